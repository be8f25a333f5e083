// SPDX-License-Identifier: Apache-2.0
// The multiplexer modules the blocks share (gen/sv.hpp): a balanced tree of AND-OR
// multiplexers, and the hold multiplexer (docs/pe_line.md, Outlier capture), with the helpers
// that instantiate them.
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gen/block.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {

SvFile mux_tree_module(const Config& c) {
  SvModule m(module_name(c, "mux_tree"),
             "A multiplexer: data_o is entry sel_i of the Entries entries of data_i (an entry "
             "past the end reads 0), as a balanced tree of 2-to-1 multiplexers SelBits levels "
             "deep: node n of level l picks node 2n or 2n + 1 of level l - 1 (level 0: the "
             "entries) by select bit l - 1; under the macro " +
                 std::string(kBehaviouralMacro) +
                 ", the same function as one part-select, for simulation speed. Combinational.");
  m.param("Entries", 2, "Entries, at least 1 and at most 2^SelBits.");
  m.param("Width", 1, "Bits of an entry.");
  m.param("SelBits", 1, "Bits of the select, at least 1.");
  m.ports({{"input", 0, "data_i", "Entry e at [e*Width +: Width].", "Entries*Width"},
           {"input", 0, "sel_i", "The entry to read.", "SelBits"},
           {"output", 0, "data_o", "Entry sel_i.", "Width"}});
  m << "\n";
  const std::string tree =
      "  /// Entries padded to a power of two.\n"
      "  localparam int Leaves = 1 << SelBits;\n\n"
      "  for (genvar l = 0; l <= SelBits; l++) begin : g_level\n"
      "    localparam int Nodes = Leaves >> l;\n"
      "    logic [Nodes*Width-1:0] node;\n"
      "    if (l == 0 && Leaves > Entries) begin : g_pad\n"
      "      assign node = {{((Leaves-Entries)*Width){1'b0}}, data_i};\n"
      "    end else if (l == 0) begin : g_entries\n"
      "      assign node = data_i;\n"
      "    end else begin : g_mux\n"
      "      // Blocks of at most 1024 nodes: Verilator unrolls no longer loop.\n"
      "      localparam int Block = Nodes < 1024 ? Nodes : 1024;\n"
      "      for (genvar hi = 0; hi < (Nodes + Block - 1) / Block; hi++) begin : g_hi\n"
      "        for (genvar lo = 0; lo < Block; lo++) begin : g_lo\n"
      "          if (hi*Block + lo < Nodes) begin : g_node\n"
      "            localparam int N = hi*Block + lo;\n"
      "            assign node[N*Width +: Width] = sel_i[l-1]\n"
      "                ? g_level[l-1].node[(2*N+1)*Width +: Width]\n"
      "                : g_level[l-1].node[2*N*Width +: Width];\n"
      "          end\n"
      "        end\n"
      "      end\n"
      "    end\n"
      "  end\n\n"
      "  assign data_o = g_level[SelBits].node;\n";
  m << behavioural_or(
      "  assign data_o = {1'b0, sel_i} < (SelBits+1)'(Entries) ? data_i[sel_i*Width +: Width]\n"
      "                                                        : '0;\n",
      tree);

  m.op("mux", "Width", "node", "Leaves-1");
  return m.file();
}

SvFile hold_mux_module(const Config& c) {
  SvModule m(module_name(c, "hold_mux"),
             "A multiplexer for a select that holds while the entries move: data_o is entry "
             "sel_i of the Entries entries of data_i (an entry past the end reads 0), the OR of "
             "every entry ANDed with its line of sel_i decoded one-hot. The ANDed entries are "
             "kept nets, so that while sel_i holds, only the selected entry's AND and its path "
             "of ORs switch; a tree of 2-to-1 multiplexers switches at every level whatever its "
             "select (docs/pe_line.md, \"Outlier capture\"). Under the macro " +
                 std::string(kBehaviouralMacro) +
                 ", the same function as one part-select, for simulation speed. Combinational.");
  m.param("Entries", 2, "Entries, at least 1 and at most 2^SelBits.");
  m.param("Width", 1, "Bits of an entry.");
  m.param("SelBits", 1, "Bits of the select, at least 1.");
  m.ports({{"input", 0, "data_i", "Entry e at [e*Width +: Width].", "Entries*Width"},
           {"input", 0, "sel_i", "The entry to read.", "SelBits"},
           {"output", 0, "data_o", "Entry sel_i.", "Width"}});
  m << "\n";
  const std::string tree =
      "  /// Entries padded to a power of two.\n"
      "  localparam int Leaves = 1 << SelBits;\n\n"
      "  for (genvar l = 0; l <= SelBits; l++) begin : g_level\n"
      "    localparam int Nodes = Leaves >> l;\n"
      "    logic [Nodes*Width-1:0] node;\n"
      "    // Blocks of at most 1024 nodes: Verilator unrolls no longer loop.\n"
      "    localparam int Block = Nodes < 1024 ? Nodes : 1024;\n"
      "    for (genvar hi = 0; hi < (Nodes + Block - 1) / Block; hi++) begin : g_hi\n"
      "      for (genvar lo = 0; lo < Block; lo++) begin : g_lo\n"
      "        if (hi*Block + lo < Nodes) begin : g_node\n"
      "          localparam int N = hi*Block + lo;\n"
      "          if (l == 0 && N < Entries) begin : g_gated\n"
      "            (* keep *) logic [Width-1:0] gated;\n"
      "            assign gated = data_i[N*Width +: Width] & {Width{sel_i == SelBits'(N)}};\n"
      "            assign node[N*Width +: Width] = gated;\n"
      "          end else if (l == 0) begin : g_pad\n"
      "            assign node[N*Width +: Width] = '0;\n"
      "          end else begin : g_or\n"
      "            assign node[N*Width +: Width] = g_level[l-1].node[(2*N+1)*Width +: Width]\n"
      "                                          | g_level[l-1].node[2*N*Width +: Width];\n"
      "          end\n"
      "        end\n"
      "      end\n"
      "    end\n"
      "  end\n\n"
      "  assign data_o = g_level[SelBits].node;\n";
  m << behavioural_or(
      "  assign data_o = {1'b0, sel_i} < (SelBits+1)'(Entries) ? data_i[sel_i*Width +: Width]\n"
      "                                                        : '0;\n",
      tree);
  m.op("and", "Width", "gated", "Entries");
  m.op("or", "Width", "node", "Leaves-1");
  return m.file();
}

void hold_mux(SvModule& m, const Config& c, const std::string& inst, int64_t entries, int width,
              int sel_bits, const std::string& data, const std::string& sel, const std::string& out,
              const std::string& indent, const std::string& count) {
  if (entries < 1 || entries > (int64_t(1) << sel_bits) || width < 1 || sel_bits < 1) {
    throw std::logic_error(
        fmt::format("hold_mux {}: {} entries for {} select bits", inst, entries, sel_bits));
  }
  m.inst(module_name(c, "hold_mux"), inst, {{"data_i", data}, {"sel_i", sel}, {"data_o", out}},
         indent,
         {{"Entries", std::to_string(entries)},
          {"Width", std::to_string(width)},
          {"SelBits", std::to_string(sel_bits)}},
         count);
}

void mux_tree(SvModule& m, const Config& c, const std::string& inst, int64_t entries, int width,
              int sel_bits, const std::string& data, const std::string& sel, const std::string& out,
              const std::string& indent, const std::string& count) {
  if (entries < 1 || entries > (int64_t(1) << sel_bits) || width < 1 || sel_bits < 1) {
    throw std::logic_error(
        fmt::format("mux_tree {}: {} entries for {} select bits", inst, entries, sel_bits));
  }
  mux_tree(m, c, inst, std::to_string(entries), std::to_string(width), std::to_string(sel_bits),
           data, sel, out, indent, count);
}

void mux_tree(SvModule& m, const Config& c, const std::string& inst, const std::string& entries,
              const std::string& width, const std::string& sel_bits, const std::string& data,
              const std::string& sel, const std::string& out, const std::string& indent,
              const std::string& count) {
  m.inst(module_name(c, "mux_tree"), inst, {{"data_i", data}, {"sel_i", sel}, {"data_o", out}},
         indent, {{"Entries", entries}, {"Width", width}, {"SelBits", sel_bits}}, count);
}

}  // namespace oasis::gen
