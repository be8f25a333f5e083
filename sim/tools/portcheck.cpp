// SPDX-License-Identifier: Apache-2.0
// portcheck: the ports of one module, from the generator's manifest.json
// (blocks.<block>.ports of the block whose top it is) or from a Yosys JSON
// (the RTL as elaborated, or a synthesized netlist).
//
//   portcheck --top T A B             A and B must give T the same port names,
//                                     directions and widths; one line per
//                                     difference and exit status 1 otherwise.
//   portcheck --top T --header OUT A  writes T's ports as the testbench
//                                     harness's list OASIS_DUT_PORTS(X),
//                                     X(in|out, name, width), in A's order.
//   --block B instead of --top T: the top module of block B, which the first
//   source, a manifest, names.
//
// sim/vltest writes the harness's list from the manifest, and checks a
// netlist's ports against the manifest and the RTL; oasis-synthcheck
// checks every block's manifest ports against the elaborated RTL.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "gen/manifest.hpp"
#include "tools/commands.hpp"

namespace portcheck_command {

using nlohmann::ordered_json;

struct PortInfo {
  std::string name;
  std::string direction;  ///< "input", "output" or "inout"
  size_t width = 0;
};

ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
  try {
    return ordered_json::parse(in);
  } catch (const ordered_json::parse_error& e) {
    throw std::runtime_error(fmt::format("{} is not JSON: {}", path, e.what()));
  }
}

// The top module of `block` in the manifest at `path`.
std::string block_top(const std::string& path, const std::string& block) {
  ordered_json doc = read_json(path);
  if (!oasis::gen::Manifest::is_manifest(doc)) {
    throw std::runtime_error(fmt::format("--block: {} is not an oasis-gen manifest", path));
  }
  return oasis::gen::Manifest::from_json(std::move(doc), path).top(block);
}

// The ports of `top` in `path`, in the file's order.
std::vector<PortInfo> read_ports(const std::string& path, const std::string& top) {
  ordered_json doc = read_json(path);
  std::vector<PortInfo> ports;
  if (oasis::gen::Manifest::is_manifest(doc)) {
    const oasis::gen::Manifest manifest = oasis::gen::Manifest::from_json(std::move(doc), path);
    for (const std::string& block : manifest.blocks()) {
      if (manifest.top(block) != top) continue;
      for (const oasis::gen::ManifestPort& p : manifest.ports(block)) {
        ports.push_back({p.name, p.direction, size_t(p.width)});
      }
      return ports;
    }
    throw std::runtime_error(fmt::format("{} has no block whose top is {}", path, top));
  }
  if (!doc.contains("modules")) {
    throw std::runtime_error(
        fmt::format("{} is neither an oasis-gen manifest nor a Yosys JSON (no \"modules\")", path));
  }
  const auto& modules = doc.at("modules");
  if (!modules.contains(top))
    throw std::runtime_error(fmt::format("{} has no module {}", path, top));
  for (const auto& [name, p] : modules.at(top).at("ports").items()) {
    ports.push_back({name, p.at("direction").get<std::string>(), p.at("bits").size()});
  }
  return ports;
}

int compare(const std::string& top, const std::string& a_path, const std::string& b_path) {
  std::map<std::string, PortInfo> a, b;
  for (auto& p : read_ports(a_path, top)) a[p.name] = p;
  for (auto& p : read_ports(b_path, top)) b[p.name] = p;
  int bad = 0;
  for (const auto& [name, p] : a) {
    const auto it = b.find(name);
    if (it == b.end()) {
      fmt::print(stderr, "portcheck: {}: port {} of {} is missing from {}\n", top, name, a_path,
                 b_path);
      ++bad;
    } else if (it->second.direction != p.direction || it->second.width != p.width) {
      fmt::print(stderr, "portcheck: {}: port {} is {} [{}] in {} but {} [{}] in {}\n", top, name,
                 p.direction, p.width, a_path, it->second.direction, it->second.width, b_path);
      ++bad;
    }
  }
  for (const auto& [name, p] : b) {
    if (!a.count(name)) {
      fmt::print(stderr, "portcheck: {}: {} has a port {} that {} has not\n", top, b_path, name,
                 a_path);
      ++bad;
    }
  }
  if (bad) return 1;
  fmt::print("portcheck: {}: {} ports, the same names, directions and widths in {} and {}\n", top,
             a.size(), a_path, b_path);
  return 0;
}

// The harness's port list (verif/harness/harness.hpp), written whole or not at all.
void write_header(const std::string& top, const std::string& source, const std::string& out) {
  std::string text = fmt::format(
      "// Written by portcheck from {}: the ports of {}, X(direction, name, width).\n"
      "#define OASIS_DUT_PORTS(X) \\\n",
      std::filesystem::path(source).filename().string(), top);
  for (const PortInfo& p : read_ports(source, top)) {
    if (p.direction != "input" && p.direction != "output") {
      throw std::runtime_error(
          fmt::format("{}: port {} is {}; the harness records inputs and "
                      "outputs only",
                      top, p.name, p.direction));
    }
    text +=
        fmt::format("  X({}, {}, {}) \\\n", p.direction == "input" ? "in" : "out", p.name, p.width);
  }
  text += "\n";
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp);
    if (!(f << text) || !(f.flush())) throw std::runtime_error(fmt::format("cannot write {}", tmp));
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}", out));
  }
}

}  // namespace portcheck_command

int oasis::commands::portcheck(int argc, char** argv) {
  using namespace portcheck_command;
  CLI::App app{
      "portcheck: compare a module's ports in two sources (an oasis-gen manifest.json or a Yosys "
      "JSON), or write them as the testbench harness's port list"};
  std::vector<std::string> sources;
  std::string top, block, header;
  app.add_option("sources", sources,
                 "manifest.json or Yosys JSON: two to compare, one with --header")
      ->required();
  auto* top_opt = app.add_option("--top", top, "module name");
  app.add_option("--block", block, "block name: its top module, as the first source names it")
      ->excludes(top_opt);
  app.add_option("--header", header, "write the port list OASIS_DUT_PORTS(X) to this file");
  try {
    app.parse(argc, argv);
    if (top.empty() && block.empty()) {
      throw CLI::ValidationError("--top", "--top or --block is required");
    }
    if (header.empty() && sources.size() != 2) {
      throw CLI::ValidationError("sources",
                                 fmt::format("{} given; comparing takes two", sources.size()));
    }
    if (!header.empty() && sources.size() != 1) {
      throw CLI::ValidationError("sources",
                                 fmt::format("{} given; --header takes one", sources.size()));
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "portcheck: {}\n", e.what());
    return 2;
  }
  try {
    if (!block.empty()) top = block_top(sources[0], block);
    if (!header.empty()) {
      write_header(top, sources[0], header);
      return 0;
    }
    return compare(top, sources[0], sources[1]);
  } catch (const std::exception& e) {
    fmt::print(stderr, "portcheck: {}\n", e.what());
    return 2;
  }
}
