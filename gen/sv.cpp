#include "gen/sv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace oasis::gen {

std::string module_header(const std::string& module, const std::string& doc,
                          const std::vector<Port>& ports) {
  std::string s;
  std::istringstream lines(doc);
  std::string line;
  while (std::getline(lines, line)) s += "/// " + line + "\n";
  s += fmt::format("module {} (\n", module);
  size_t dir_w = 0, range_w = 0;
  std::vector<std::string> ranges;
  for (const Port& p : ports) {
    ranges.push_back(p.width > 0 ? fmt::format("[{}:0] ", p.width - 1) : "");
    dir_w = std::max(dir_w, p.dir.size());
    range_w = std::max(range_w, ranges.back().size());
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    const Port& p = ports[i];
    std::istringstream d(p.doc);
    while (std::getline(d, line)) s += "  /// " + line + "\n";
    s += fmt::format("  {:<{}} logic {:<{}}{}{}\n", p.dir, dir_w, ranges[i], range_w, p.name,
                     i + 1 < ports.size() ? "," : "");
  }
  s += ");\n\n";
  return s;
}

std::string instance(const std::string& module, const std::string& inst,
                     const std::vector<std::pair<std::string, std::string>>& connections,
                     const std::string& indent) {
  size_t w = 0;
  for (const auto& [port, sig] : connections) w = std::max(w, port.size());
  std::string s = fmt::format("{}{} {} (\n", indent, module, inst);
  for (size_t i = 0; i < connections.size(); ++i) {
    s += fmt::format("{}  .{:<{}}({}){}\n", indent, connections[i].first, w, connections[i].second,
                     i + 1 < connections.size() ? "," : "");
  }
  s += indent + ");\n";
  return s;
}

}  // namespace oasis::gen
