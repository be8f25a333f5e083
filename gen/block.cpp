// SPDX-License-Identifier: Apache-2.0
#include "gen/block.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

namespace oasis::gen {
namespace {

std::map<std::string, std::unique_ptr<Block>>& registry() {
  static std::map<std::string, std::unique_ptr<Block>> blocks;
  return blocks;
}

}  // namespace

Registrar::Registrar(std::unique_ptr<Block> block) {
  const std::string name = block->name();
  registry()[name] = std::move(block);
}

std::vector<const Block*> registered_blocks() {
  std::vector<const Block*> out;
  for (const auto& [name, block] : registry()) out.push_back(block.get());
  return out;
}

std::string module_name(const Config& config, const std::string& block) {
  return "oasis_" + config.name + "_" + block;
}

std::string upper_camel(const std::string& snake) {
  std::string camel;
  bool up = true;
  for (const char ch : snake) {
    if (ch == '_') {
      up = true;
    } else {
      camel += up ? char(std::toupper(static_cast<unsigned char>(ch))) : ch;
      up = false;
    }
  }
  return camel;
}

std::string loop_open(const std::string& var, int count, const std::string& label,
                      const std::string& bound) {
  if (bound.empty()) throw std::logic_error("loop_open " + label + ": no name for the bound");
  if (count <= 1024) {
    return fmt::format("  for (genvar {0} = 0; {0} < {1}; {0}++) begin : {2}\n", var, bound, label);
  }
  const std::string block =
      upper_camel(label.starts_with("g_") ? label.substr(2) : label) + "Block";
  return fmt::format(
      "  /// Iterations of a block of {1} (Verilator unrolls at most 1024), and its blocks.\n"
      "  localparam int {3} = 1024;\n"
      "  localparam int {3}s = ({2} + {3} - 1) / {3};\n"
      "  for (genvar {0}_hi = 0; {0}_hi < {3}s; {0}_hi++) begin : {1}_hi\n"
      "  for (genvar {0}_lo = 0; {0}_lo < {3}; {0}_lo++) begin : {1}\n"
      "  if ({0}_hi * {3} + {0}_lo < {2}) begin : g_in\n"
      "    localparam int {0} = {0}_hi * {3} + {0}_lo;\n",
      var, label, bound, block);
}
std::string loop_close(int count) { return count <= 1024 ? "  end\n" : "  end\n  end\n  end\n"; }

}  // namespace oasis::gen
