// portcheck: compares the ports of one module in two Yosys JSON files (the
// RTL as elaborated and the synthesized netlist): same names, directions and
// widths, or one line per difference and exit status 1.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace {

using Ports = std::map<std::string, std::pair<std::string, size_t>>;

Ports read_ports(const std::string& path, const std::string& top) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
  const auto doc = nlohmann::json::parse(in);
  const auto& modules = doc.at("modules");
  if (!modules.contains(top)) throw std::runtime_error(fmt::format("{} has no module {}", path, top));
  Ports ports;
  for (const auto& [name, p] : modules.at(top).at("ports").items()) {
    ports[name] = {p.at("direction").get<std::string>(), p.at("bits").size()};
  }
  return ports;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"portcheck: the netlist's ports must be the RTL's"};
  std::string rtl, netlist, top;
  app.add_option("rtl", rtl, "Yosys JSON of the elaborated RTL")->required();
  app.add_option("netlist", netlist, "Yosys JSON of the netlist")->required();
  app.add_option("--top", top, "module name")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "portcheck: {}\n", e.what());
    return 2;
  }
  try {
    const Ports a = read_ports(rtl, top), b = read_ports(netlist, top);
    int bad = 0;
    for (const auto& [name, p] : a) {
      const auto it = b.find(name);
      if (it == b.end()) {
        fmt::print(stderr, "portcheck: {}: port {} is missing from the netlist\n", top, name);
        ++bad;
      } else if (it->second != p) {
        fmt::print(stderr, "portcheck: {}: port {} is {} [{}] in the RTL but {} [{}] in the netlist\n",
                   top, name, p.first, p.second, it->second.first, it->second.second);
        ++bad;
      }
    }
    for (const auto& [name, p] : b) {
      if (!a.count(name)) {
        fmt::print(stderr, "portcheck: {}: the netlist has an extra port {}\n", top, name);
        ++bad;
      }
    }
    if (bad) return 1;
    fmt::print("portcheck: {}: {} ports, names, directions and widths as in the RTL\n", top, a.size());
  } catch (const std::exception& e) {
    fmt::print(stderr, "portcheck: {}\n", e.what());
    return 2;
  }
  return 0;
}
