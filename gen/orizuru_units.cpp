// SPDX-License-Identifier: Apache-2.0
// Orizuru's units (docs/orizuru.md, Structure): a side of a unit, the leaf unit over the leaf
// registers and the unit over the winners of the layer below. The engine: gen/orizuru.cpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::orizuru_parts {

// One side of a unit: the winner bits of log2(R) levels, the winners, the
// rewrite of the popped path, and the pop's cut when it falls inside the
// unit. Both units instantiate it twice.
SvFile side_module(const Config& c) {
  SvModule m(module_name(c, "orizuru") + "_side",
             "One side of an Orizuru unit over Inputs inputs: the max tree, or the min tree when "
             "MinSide is 1. log2(Inputs) levels of nodes (level 0 nearest the inputs); per node a "
             "winner bit (0: the left child, 1: the right one) and the winner (value, "
             "availability, which input, and the input's payload) muxed from the children by the "
             "bit's next value. The max tree takes the right child iff it is greater, the min "
             "tree iff it is not (ties go right); an unavailable child loses to an available one. "
             "Level 0's comparisons come in: the leaf unit shares them between its two sides. "
             "Build: a level's bits are written when its build_i bit is set. Pop: the nodes on "
             "the popped input's path (path_i) rewrite their bits at the levels pop_i names. "
             "Each level j whose bit is set in Cuts reads the winners of level j - 1 from "
             "registers (the pop's cuts, docs/orizuru.md).");
  m.param("Inputs", 2, "Inputs of the unit, R: a power of two, at least 2.");
  m.param("MinSide", 0, "1: the min tree; 0: the max tree.");
  m.param("Payload", 1, "Bits carried with each input to the winner (at least 1).");
  m.param("Cuts", 0,
          "Bit j (0 < j < log2(Inputs)): level j reads registered winners; 0: no register "
          "inside.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {{"input", 0, "clk_i", "Clock."},
       {"input", 0, "rst_ni", "Asynchronous reset, active low."},
       {"input", 0, "build_i", "Build: bit j writes the winner bits of level j.", "$clog2(Inputs)"},
       {"input", 0, "val_i", "Input i's value, binary16, at [i*HalfBits +: HalfBits].",
        "Inputs*HalfBits"},
       {"input", 0, "avail_i", "Input i is available.", "Inputs"},
       {"input", 0, "pay_i", "Input i's payload at [i*Payload +: Payload].", "Inputs*Payload"},
       {"input", 0, "gt0_i", "Level 0: input 2i+1 is greater than input 2i under the order key.",
        "Inputs/2"},
       {"input", 0, "pop_i",
        "Bit j: the unit is on the popped path and its level j is rewritten this cycle.",
        "$clog2(Inputs)"},
       {"input", 0, "path_i", "The popped input (read when a pop_i bit is set).", "$clog2(Inputs)"},
       {"output", 0, "val_o", "The winner, binary16 (after this cycle's bit updates).", "HalfBits"},
       {"output", 0, "avail_o", "The winner is available."},
       {"output", 0, "win_o", "Which input wins.", "$clog2(Inputs)"},
       {"output", 0, "pay_o", "The winning input's payload.", "Payload"}});
  m.localparam("Levels", "$clog2(Inputs)");
  m << "\n  for (genvar j = 0; j < Levels; j++) begin : g_level\n"
       "    localparam int Nodes = Inputs >> (j + 1);\n"
       "    logic [2*Nodes*HalfBits-1:0] child_val;\n"
       "    logic [2*Nodes-1:0]          child_avail;\n"
       "    logic [2*Nodes*Payload-1:0]  child_pay;\n"
       "    logic [Nodes-1:0]            gt, right, en, bit_d, bit_q;\n"
       "    // Each node's winner, and the same as the level above reads it.\n"
       "    logic [Nodes*HalfBits-1:0]   val, val_up;\n"
       "    logic [Nodes-1:0]            avail, avail_up;\n"
       "    logic [Nodes*(j+1)-1:0]      win, win_up;\n"
       "    logic [Nodes*Payload-1:0]    pay, pay_up;\n"
       "    if (j == 0) begin : g_inputs\n"
       "      assign child_val   = val_i;\n"
       "      assign child_avail = avail_i;\n"
       "      assign child_pay   = pay_i;\n"
       "      assign gt          = gt0_i;\n"
       "    end else begin : g_below\n"
       "      assign child_val   = g_level[j-1].val_up;\n"
       "      assign child_avail = g_level[j-1].avail_up;\n"
       "      assign child_pay   = g_level[j-1].pay_up;\n"
       "      for (genvar n = 0; n < Nodes; n++) begin : g_cmp\n"
       "        logic unused_lt, unused_eq;\n";
  compare(m, c, "u_cmp", "child_val[(2*n+1)*HalfBits +: HalfBits]",
          "child_val[2*n*HalfBits +: HalfBits]", "unused_lt", "unused_eq", "gt[n]", "        ",
          "Inputs/2 - 1");
  m << "      end\n"
       "    end\n"
       "    // A node is on the popped path when the popped input's index without its j + 1\n"
       "    // lowest bits is the node's.\n"
       "    for (genvar n = 0; n < Nodes; n++) begin : g_en\n"
       "      assign en[n] = pop_i[j] && path_i >> (j + 1) == Levels'(n);\n"
       "    end\n"
       "    for (genvar n = 0; n < Nodes; n++) begin : g_node\n"
       "      assign right[n] = child_avail[2*n+1]\n"
       "          && (!child_avail[2*n] || (MinSide == 1 ? !gt[n] : gt[n]));\n"
       "      assign bit_d[n] = build_i[j] || en[n] ? right[n] : bit_q[n];\n"
       "      assign val[n*HalfBits +: HalfBits] = bit_d[n] ? child_val[(2*n+1)*HalfBits +: "
       "HalfBits]\n"
       "                                        : child_val[2*n*HalfBits +: HalfBits];\n"
       "      assign pay[n*Payload +: Payload] = bit_d[n] ? child_pay[(2*n+1)*Payload +: Payload]\n"
       "                                                  : child_pay[2*n*Payload +: Payload];\n"
       "      assign avail[n] = child_avail[2*n] || child_avail[2*n+1];\n"
       "      if (j == 0) begin : g_win\n"
       "        assign win[n] = bit_d[n];\n"
       "      end else begin : g_win\n"
       "        assign win[n*(j+1) +: j+1] = {bit_d[n], bit_d[n]\n"
       "            ? g_level[j-1].win_up[(2*n+1)*j +: j] : g_level[j-1].win_up[2*n*j +: j]};\n"
       "      end\n"
       "    end\n"
       "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "      if (!rst_ni) bit_q <= '0;\n"
       "      else bit_q <= bit_d;\n"
       "    end\n"
       "    if ((Cuts >> (j + 1)) % 2 == 1) begin : g_cut\n"
       "      // A pop's cut: the level above reads these winners registered.\n"
       "      always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "        if (!rst_ni) begin\n"
       "          val_up   <= '0;\n"
       "          avail_up <= '0;\n"
       "          win_up   <= '0;\n"
       "          pay_up   <= '0;\n"
       "        end else begin\n"
       "          val_up   <= val;\n"
       "          avail_up <= avail;\n"
       "          win_up   <= win;\n"
       "          pay_up   <= pay;\n"
       "        end\n"
       "      end\n"
       "    end else begin : g_through\n"
       "      assign val_up   = val;\n"
       "      assign avail_up = avail;\n"
       "      assign win_up   = win;\n"
       "      assign pay_up   = pay;\n"
       "    end\n"
       "  end\n\n"
       "  // The top level is never cut inside the unit: its winners pass through.\n"
       "  assign val_o   = g_level[Levels-1].val_up;\n"
       "  assign avail_o = g_level[Levels-1].avail_up;\n"
       "  assign win_o   = g_level[Levels-1].win_up;\n"
       "  assign pay_o   = g_level[Levels-1].pay_up;\n";
  m.op("mux", "HalfBits", "val", "Inputs-1");
  m.op("mux", "Payload", "pay", "Inputs-1");
  return m.file();
}

// The two sides' instances of a unit.
void sides(SvModule& m, const Config& c, const string& max_val, const string& min_val,
           const string& max_gt0, const string& min_gt0, const string& max_pay,
           const string& min_pay, const string& payload, const string& max_out,
           const string& min_out) {
  for (const char* side : {"max", "min"}) {
    const bool is_max = side == string("max");
    m.inst(module_name(c, "orizuru") + "_side", fmt::format("u_{}", side),
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"build_i", "build_i"},
            {"val_i", is_max ? max_val : min_val},
            {"avail_i", fmt::format("{}_avail_i", side)},
            {"pay_i", is_max ? max_pay : min_pay},
            {"gt0_i", is_max ? max_gt0 : min_gt0},
            {"pop_i", fmt::format("{}_pop_i", side)},
            {"path_i", fmt::format("{}_path_i", side)},
            {"val_o", fmt::format("{}_val_o", side)},
            {"avail_o", fmt::format("{}_avail_o", side)},
            {"win_o", fmt::format("{}_win", side)},
            {"pay_o", is_max ? max_out : min_out}},
           "  ",
           {{"Inputs", "Inputs"},
            {"MinSide", is_max ? "0" : "1"},
            {"Payload", payload},
            {"Cuts", "Cuts"}});
  }
}

// The leaf unit: R leaves shared by both sides, one comparison per leaf pair.
SvFile leaf_unit_module(const Config& c) {
  SvModule m(module_name(c, "orizuru") + "_leaf_unit",
             "Leaf unit of Orizuru: the max tree and the min tree over Inputs shared leaves "
             "(oasis side modules). The first level compares each leaf pair once for both "
             "trees: the max tree takes the right leaf iff it is greater, the min tree reuses "
             "the result reversed (right iff not greater, so ties go right).");
  m.param("Inputs", 2, "Leaves, R: a power of two, at least 2.");
  m.param("Cuts", 0, "Bit j (0 < j < log2(Inputs)): level j reads registered winners.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {{"input", 0, "clk_i", "Clock."},
       {"input", 0, "rst_ni", "Asynchronous reset, active low."},
       {"input", 0, "build_i", "Build: bit j writes the winner bits of level j.", "$clog2(Inputs)"},
       {"input", 0, "leaf_i", "Leaf i's activation, binary16, at [i*HalfBits +: HalfBits].",
        "Inputs*HalfBits"},
       {"input", 0, "max_avail_i", "Max tree: leaf i is available (not yet popped).", "Inputs"},
       {"input", 0, "min_avail_i", "Min tree: leaf i is available (not yet popped).", "Inputs"},
       {"input", 0, "max_pop_i",
        "Max tree: bit j, the unit is on the popped path and its level j is rewritten.",
        "$clog2(Inputs)"},
       {"input", 0, "min_pop_i",
        "Min tree: bit j, the unit is on the popped path and its level j is rewritten.",
        "$clog2(Inputs)"},
       {"input", 0, "max_path_i", "Max tree: the popped leaf.", "$clog2(Inputs)"},
       {"input", 0, "min_path_i", "Min tree: the popped leaf.", "$clog2(Inputs)"},
       {"output", 0, "max_clear_o", "Max tree: leaf i is popped this cycle.", "Inputs"},
       {"output", 0, "min_clear_o", "Min tree: leaf i is popped this cycle.", "Inputs"},
       {"output", 0, "max_val_o", "Max tree: the unit's winner, binary16.", "HalfBits"},
       {"output", 0, "max_avail_o", "Max tree: the winner is available."},
       {"output", 0, "max_idx_o", "Max tree: the winner's leaf.", "$clog2(Inputs)"},
       {"output", 0, "min_val_o", "Min tree: the unit's winner, binary16.", "HalfBits"},
       {"output", 0, "min_avail_o", "Min tree: the winner is available."},
       {"output", 0, "min_idx_o", "Min tree: the winner's leaf.", "$clog2(Inputs)"}});
  const bool left = mutated("orizuru.min_ties_left");
  const bool lost = mutated("orizuru.left_pop_lost");
  m.localparam("Levels", "$clog2(Inputs)");
  m << "\n  logic [Inputs/2-1:0] gt, eq;\n"
       "  for (genvar i = 0; i < Inputs/2; i++) begin : g_pair\n"
       "    logic unused_lt;\n";
  compare(m, c, "u_cmp", "leaf_i[(2*i+1)*HalfBits +: HalfBits]", "leaf_i[2*i*HalfBits +: HalfBits]",
          "unused_lt", "eq[i]", "gt[i]", "    ", "Inputs/2");
  m << "  end\n";
  if (left) {
    m << "  // The min tree takes the right leaf only when it is strictly less.\n"
         "  logic [Inputs/2-1:0] min_gt0;\n"
         "  assign min_gt0 = gt | eq;\n";
  } else {
    m << "  // Equal leaves matter to neither tree beyond gt.\n"
         "  logic unused_eq;\n"
         "  assign unused_eq = ^eq;\n";
  }
  m << "  // A leaf carries no payload: its index is the winner bits.\n"
       "  logic [Levels-1:0] max_win, min_win;\n"
       "  logic max_pay, min_pay, unused_pay;\n"
       "  assign unused_pay = max_pay ^ min_pay;\n";
  sides(m, c, "leaf_i", "leaf_i", "gt", left ? "min_gt0" : "gt", "'0", "'0", "1", "max_pay",
        "min_pay");
  m << "  assign max_idx_o = max_win;\n  assign min_idx_o = min_win;\n";
  m.comment("A popped leaf is cleared in the cycle its level 0 is rewritten.");
  m << "  for (genvar i = 0; i < Inputs; i++) begin : g_clear\n";
  if (lost) {
    m << "    if (i % 2 == 0) begin : g_left\n"
         "      assign max_clear_o[i] = 1'b0;\n"
         "      assign min_clear_o[i] = 1'b0;\n"
         "    end else begin : g_right\n"
         "      assign max_clear_o[i] = max_pop_i[0] && max_path_i == Levels'(i);\n"
         "      assign min_clear_o[i] = min_pop_i[0] && min_path_i == Levels'(i);\n"
         "    end\n";
  } else {
    m << "    assign max_clear_o[i] = max_pop_i[0] && max_path_i == Levels'(i);\n"
         "    assign min_clear_o[i] = min_pop_i[0] && min_path_i == Levels'(i);\n";
  }
  m << "  end\n";
  m.op("eq", "Levels", "max_clear_o", "Inputs");
  m.op("eq", "Levels", "min_clear_o", "Inputs");
  return m.file();
}

// A unit above the leaves: each input is a lower unit's winner, per side.
SvFile unit_module(const Config& c) {
  SvModule m(module_name(c, "orizuru") + "_unit",
             "Unit of Orizuru above the leaves: each of its Inputs children is the winner of a "
             "lower unit, per side (oasis side modules, one comparator per node and side). A "
             "winner's index is its child's position, above the child's own winner index.");
  m.param("Inputs", 2, "Children, R: a power of two, at least 2.");
  m.param("ChildIndexBits", 1, "Width of a child's index (its position in its subtree), bits.");
  m.param("Cuts", 0, "Bit j (0 < j < log2(Inputs)): level j reads registered winners.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  std::vector<Port> ports = {
      {"input", 0, "clk_i", "Clock."},
      {"input", 0, "rst_ni", "Asynchronous reset, active low."},
      {"input", 0, "build_i", "Build: bit j writes the winner bits of level j.", "$clog2(Inputs)"}};
  for (const char* side : {"max", "min"}) {
    const string s = side;
    ports.push_back({"input", 0, s + "_val_i",
                     s + " tree: child i's winner, at [i*HalfBits +: HalfBits].",
                     "Inputs*HalfBits"});
    ports.push_back(
        {"input", 0, s + "_avail_i", s + " tree: child i's winner is available.", "Inputs"});
    ports.push_back({"input", 0, s + "_idx_i",
                     s + " tree: child i's winner's index in its subtree, at "
                         "[i*ChildIndexBits +: ChildIndexBits].",
                     "Inputs*ChildIndexBits"});
  }
  for (const char* side : {"max", "min"}) {
    ports.push_back({"input", 0, string(side) + "_pop_i",
                     string(side) +
                         " tree: bit j, the unit is on the popped path and its level j is "
                         "rewritten.",
                     "$clog2(Inputs)"});
  }
  for (const char* side : {"max", "min"}) {
    ports.push_back({"input", 0, string(side) + "_path_i",
                     string(side) + " tree: the child the popped leaf is under.",
                     "$clog2(Inputs)"});
  }
  for (const char* side : {"max", "min"}) {
    const string s = side;
    ports.push_back(
        {"output", 0, s + "_val_o", s + " tree: the unit's winner, binary16.", "HalfBits"});
    ports.push_back({"output", 0, s + "_avail_o", s + " tree: the winner is available."});
    ports.push_back({"output", 0, s + "_idx_o",
                     s + " tree: the winner's index in this unit's subtree.",
                     "ChildIndexBits+$clog2(Inputs)"});
  }
  m.ports(ports);
  m.localparam("Levels", "$clog2(Inputs)");
  m << "\n";
  for (const char* side : {"max", "min"}) {
    m << fmt::format(
        "  logic [Inputs/2-1:0] {0}_gt;\n"
        "  logic [Levels-1:0]   {0}_win;\n"
        "  for (genvar i = 0; i < Inputs/2; i++) begin : g_{0}_pair\n"
        "    logic unused_lt, unused_eq;\n",
        side);
    compare(m, c, "u_cmp", fmt::format("{}_val_i[(2*i+1)*HalfBits +: HalfBits]", side),
            fmt::format("{}_val_i[2*i*HalfBits +: HalfBits]", side), "unused_lt", "unused_eq",
            fmt::format("{}_gt[i]", side), "    ", "Inputs/2");
    m << "  end\n";
  }
  m.comment(
      "A child's index travels with its winner as the payload: the winner's index is the "
      "child's position, then the child's own index.");
  m << "  logic [ChildIndexBits-1:0] max_child_idx, min_child_idx;\n";
  sides(m, c, "max_val_i", "min_val_i", "max_gt", "min_gt", "max_idx_i", "min_idx_i",
        "ChildIndexBits", "max_child_idx", "min_child_idx");
  m << "  assign max_idx_o = {max_win, max_child_idx};\n"
       "  assign min_idx_o = {min_win, min_child_idx};\n";
  return m.file();
}

}  // namespace oasis::gen::orizuru_parts
