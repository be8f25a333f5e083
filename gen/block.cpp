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

const Block* find_block(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
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

std::string loop_open(const std::string& var, int count, const std::string& label) {
  if (count <= 1024) {
    return fmt::format("  for (genvar {0} = 0; {0} < {1}; {0}++) begin : {2}\n", var, count, label);
  }
  return fmt::format(
      "  for (genvar {0}_hi = 0; {0}_hi < {1}; {0}_hi++) begin : {2}_hi\n"
      "  for (genvar {0}_lo = 0; {0}_lo < 1024; {0}_lo++) begin : {2}\n"
      "  if ({0}_hi * 1024 + {0}_lo < {3}) begin : g_in\n"
      "    localparam int {0} = {0}_hi * 1024 + {0}_lo;\n",
      var, ceil_div(count, 1024), label, count);
}
std::string loop_close(int count) { return count <= 1024 ? "  end\n" : "  end\n  end\n  end\n"; }

std::string mux_tree(const std::string& name, const std::string& data, int entries, int width,
                     const std::string& sel, int sel_bits, const std::string& out,
                     const std::string& indent) {
  const int padded = 1 << sel_bits;
  if (entries < 1 || entries > padded || width < 1) {
    throw std::logic_error(fmt::format("mux_tree {}: {} entries for {} select bits", name, entries, sel_bits));
  }
  const auto vec = [&](int n) { return fmt::format("[{}:0]", n * width - 1); };
  std::string s;
  s += fmt::format("{}logic {} {}_l0;\n", indent, vec(padded), name);
  if (sel_bits > 0) s += fmt::format("{}logic [{}:0] {}_sel;\n", indent, sel_bits - 1, name);
  for (int l = 1; l <= sel_bits; ++l) {
    s += fmt::format("{}logic {} {}_l{};\n", indent, vec(padded >> l), name, l);
  }
  if (padded > entries) {
    s += fmt::format("{}assign {}_l0 = {{{}'(0), {}}};\n", indent, name, (padded - entries) * width, data);
  } else {
    s += fmt::format("{}assign {}_l0 = {};\n", indent, name, data);
  }
  if (sel_bits > 0) s += fmt::format("{}assign {}_sel = {};\n", indent, name, sel);
  // Level l pairs the entries of level l-1 that differ in select bit l-1.
  // Continuous assignments in generate loops: in an always_comb, Yosys 0.23
  // took minutes to read the paper's levels (one wide process per level).
  for (int l = 1; l <= sel_bits; ++l) {
    const int n = padded >> l;
    std::string loop = loop_open("j", n, fmt::format("g_{}_l{}", name, l));
    loop += fmt::format(
        "    assign {0}_l{1}[j*{2} +: {2}] =\n"
        "        {0}_sel[{3}] ? {0}_l{3}[(2*j+1)*{2} +: {2}] : {0}_l{3}[2*j*{2} +: {2}];\n",
        name, l, width, l - 1);
    loop += loop_close(n);
    // loop_open indents by two spaces; indent by `indent` instead.
    for (size_t b = 0; b < loop.size();) {
      const size_t e = loop.find('\n', b);
      s += indent + loop.substr(b + 2, e + 1 - (b + 2));
      b = e + 1;
    }
  }
  s += fmt::format("{}assign {} = {}_l{};\n", indent, out, name, sel_bits);
  return s;
}

}  // namespace oasis::gen
