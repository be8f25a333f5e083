// SPDX-License-Identifier: Apache-2.0
// Orizuru, the two-fold top-k tree of paper IV-D (docs/spec.md section 5), and
// topk_baseline, the plain engine it is measured against: k rounds of a
// max-and-min reduction over the whole masked vector. Both share the token
// interface and the load / build / drain handshake, so one cycle model
// (model/cycle/orizuru_cycle.hpp) and one testbench shape check both.
// Algorithm: model/cycle/orizuru.hpp. Tests: verif/tb/orizuru_tb.cpp,
// verif/tb/topk_baseline_tb.cpp. Interface, timing, structure: docs/orizuru.md.
#include "gen/orizuru.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/perf/fp_delay.hpp"

namespace oasis::gen {
namespace {

using std::string;

OASIS_REGISTER_MUTATION("orizuru.min_ties_left",
                        "the min tree's leaf level breaks ties to the left (lower) channel");
OASIS_REGISTER_MUTATION("orizuru.left_pop_lost",
                        "a popped leaf that is the left one of its pair is not cleared, so it "
                        "stays available and wins again");
OASIS_REGISTER_MUTATION("orizuru.next_cycle_pop_lost",
                        "a pop never reaches the levels it rewrites in the cycle after its "
                        "outlier is taken (orizuru_pop_levels below the tree's levels)");
OASIS_REGISTER_MUTATION("topk_baseline.tree_register_extra",
                        "the k-round baseline's trees read level 1 through a rank of registers "
                        "more than its pop cycles count");
OASIS_REGISTER_MUTATION("orizuru.pop_wait_short",
                        "with a pop over more than two cycles, a side presents its next outlier "
                        "a cycle before the last part of its path is rewritten");

string cmp_module(const Config& c) { return module_name(c, "comparator"); }

// A comparator instance whose gt output drives `gt` and whose eq output
// drives `eq` ("" leaves lt and eq to `unused` sinks the caller declares).
void compare(SvModule& m, const Config& c, const string& inst, const string& a, const string& b,
             const string& lt, const string& eq, const string& gt, const string& indent,
             const string& count) {
  m.inst(cmp_module(c), inst, {{"a_i", a}, {"b_i", b}, {"lt_o", lt}, {"eq_o", eq}, {"gt_o", gt}},
         indent, {}, count);
  m.op("fp_compare", "HalfBits", gt, count);
}

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

// The pop's cuts (docs/orizuru.md, Drain) are tree levels that read the
// winners of the level below from registers: a cut at a layer's first level
// lies between two layers of units (layer_children), any other inside the
// units of its layer (the side module's Cuts).
bool cut_below_layer(const OrizuruTiming& t, int l) {
  return std::find(t.pop_cuts.begin(), t.pop_cuts.end(), l * t.unit_levels) != t.pop_cuts.end();
}

// The name of the cut at t.pop_cuts[i], a localparam of the top module.
string cut_name(size_t i) { return fmt::format("Cut{}", i + 1); }

// The bits of the index a winner of layer l carries: UnitLevels a layer, layers 0 .. l.
string index_bits(int l) { return l == 0 ? "UnitLevels" : fmt::format("UnitLevels*{}", l + 1); }

// The signals of one layer of units, each side's winners and, above layer 0,
// the children they read (the layer below, padded to whole units).
void layer_signals(SvModule& m, const OrizuruTiming& t, int l) {
  const int u = t.units_per_layer[size_t(l)], r = t.unit_levels;
  const string units = fmt::format("L{}Units", l);
  m.localparam(
      units, u,
      fmt::format("Units of layer {}, heights {}..{} of the tree.", l, l * r + 1, l * r + r));
  for (const char* side : {"max", "min"}) {
    const auto decl = [&](const string& width, const string& field) {
      m << fmt::format("  logic {} l{}_{}_{};\n", range(width), l, side, field);
    };
    decl(units + "*HalfBits", "val");
    decl(units, "avail");
    decl(units + "*UnitLevels", "pop");
    decl(units + "*" + index_bits(l), "idx");
    if (l > 0) {
      decl(units + "*UnitInputs*HalfBits", "child_val");
      decl(units + "*UnitInputs", "child_avail");
      decl(units + "*UnitInputs*" + index_bits(l - 1), "child_idx");
    }
  }
}

// Layer l's children: the winners of layer l - 1, the last unit's missing
// children tied to unavailable; registered when the pop's cut lies between
// the two layers.
void layer_children(SvModule& m, const OrizuruTiming& t, int l) {
  const int u = t.units_per_layer[size_t(l)], R = t.unit_inputs;
  const int below = t.units_per_layer[size_t(l - 1)];
  const int pad = u * R - below;
  const string children = fmt::format("L{}Units*UnitInputs", l);
  const bool cut = cut_below_layer(t, l);
  std::vector<Reg> regs;
  if (cut) {
    m.comment(fmt::format("A pop's cut: layer {} reads layer {}'s winners registered.", l, l - 1));
  }
  for (const char* side : {"max", "min"}) {
    // Zero-extended to whole units: the missing children are unavailable.
    const auto padded = [&](const string& field, const string& bits) {
      const string winners = fmt::format("l{}_{}_{}", l - 1, side, field);
      return pad > 0 ? fmt::format("({}{})'({})", children, bits, winners) : winners;
    };
    const std::vector<std::pair<string, string>> fields = {
        {"val", padded("val", "*HalfBits")},
        {"avail", padded("avail", "")},
        {"idx", padded("idx", "*" + index_bits(l - 1))}};
    for (const auto& [field, value] : fields) {
      const string child = fmt::format("l{}_{}_child_{}", l, side, field);
      if (cut) {
        regs.push_back({child, value});
      } else {
        m << fmt::format("  assign {:<20} = {};\n", child, value);
      }
    }
  }
  if (cut) m << registers(regs);
}

// Where a pop rewrites the tree, and when. The popped leaf is the channel its
// side's root register presents, so its path is decoded from that register
// instead of walked down the winner bits. The part of the path below the first
// cut is rewritten pop_delay cycles after the outlier is taken (0: in that
// cycle), each part above a cut one cycle after the part below it, from the cut
// registers (layer_children, the side module's Cuts). Until the last part is
// rewritten the root register keeps naming the popped leaf, and the side's next
// outlier waits for it (topk_top_module); the other side's is presented
// meanwhile (docs/orizuru.md, Drain).
void pop_paths(SvModule& m, const OrizuruTiming& t) {
  m.comment(t.pop_cycles == 1 ? "A pop rewrites its whole path in the cycle its outlier is taken."
            : t.pop_cuts.empty()
                ? "A pop rewrites its whole path in the cycle after its outlier is taken."
                : fmt::format("A pop rewrites its path in {} parts, one a cycle, from the leaves "
                              "up, the first {} its outlier is taken.",
                              t.pop_cuts.size() + 1,
                              t.pop_delay ? "in the cycle after" : "in the cycle"));
  m << "  logic [TreeLevels-1:0] max_path, min_path, max_rewrite, min_rewrite;\n"
       "  assign max_path = TreeLevels'(max_chan_q);\n"
       "  assign min_path = TreeLevels'(min_chan_q);\n";
  // The pop delayed by d cycles, d = 0 .. pop_cycles - 1.
  const auto delayed = [](const string& side, int d) {
    return d == 0 ? "pop_" + side : fmt::format("pop_{}_q{}", side, d);
  };
  std::vector<Reg> regs;
  for (int d = 1; d < t.pop_cycles; ++d) {
    const bool lost = d == 1 && mutated("orizuru.next_cycle_pop_lost");
    for (const string side : {"max", "min"}) {
      m << "  logic " << delayed(side, d) << ";\n";
      regs.push_back({delayed(side, d), lost ? "1'b0" : delayed(side, d - 1)});
    }
  }
  if (!regs.empty()) m << registers(regs);
  const size_t parts = t.pop_cuts.size() + 1;
  for (const string side : {"max", "min"}) {
    // The parts from the top down, each its levels' copies of its delayed pop.
    std::vector<string> items;
    for (size_t i = parts; i-- > 0;) {
      const string from = i == 0 ? "" : cut_name(i - 1);
      const string to = i + 1 == parts ? "TreeLevels" : cut_name(i);
      const string width = from.empty() ? to : fmt::format("({} - {})", to, from);
      items.push_back(fmt::format("{{{}{{{}}}}}", width, delayed(side, t.pop_delay + int(i))));
    }
    const string lhs = fmt::format("  assign {}_rewrite = ", side);
    m << lhs << (items.size() == 1 ? items[0] : concat(items, "  ", lhs.size(), 2)) << ";\n";
  }
  m << "\n";
}

// Inside layer l's loop over its units u: the levels of unit u that a pop
// rewrites this cycle, per side (none unless the popped leaf is under it).
void unit_pops(SvModule& m, const OrizuruTiming& t, int l) {
  for (const char* side : {"max", "min"}) {
    const string levels = fmt::format("{}_rewrite[{}*UnitLevels +: UnitLevels]", side, l);
    if (l == t.layers - 1) {
      m << fmt::format("    assign l{}_{}_pop[u*UnitLevels +: UnitLevels] = {};\n", l, side,
                       levels);
    } else {
      m.op("eq", t.tree_levels, fmt::format("l{}_{}_pop", l, side), t.units_per_layer[size_t(l)]);
      m << fmt::format(
          "    assign l{0}_{1}_pop[u*UnitLevels +: UnitLevels] = {2}\n"
          "        & {{UnitLevels{{{1}_path >> {3}*UnitLevels == TreeLevels'(u)}}}};\n",
          l, side, levels, l + 1);
    }
  }
}

// The pop's cuts that fall inside layer l's units, as bits of a unit's Cuts (a cut between two
// layers is in layer_children).
std::vector<string> unit_cut_bits(const OrizuruTiming& t, int l) {
  std::vector<string> bits;
  for (size_t i = 0; i < t.pop_cuts.size(); ++i) {
    const int level = t.pop_cuts[i] - l * t.unit_levels;
    if (level <= 0 || level >= t.unit_levels) continue;
    bits.push_back(l == 0 ? fmt::format("(1 << {})", cut_name(i))
                          : fmt::format("(1 << ({} - {}*UnitLevels))", cut_name(i), l));
  }
  return bits;
}

// The localparam L<l>UnitCuts that layer l's units take as Cuts, one bit a line; nothing when
// no cut falls inside them.
void unit_cuts(SvModule& m, const OrizuruTiming& t, int l) {
  const std::vector<string> bits = unit_cut_bits(t, l);
  if (bits.empty()) return;
  const string head = fmt::format("  localparam int L{}UnitCuts = ", l);
  string text = fmt::format(
      "  /// Layer {}'s units: bit j set where the pop's part ends at the unit's level j.\n", l);
  text += head + bits[0];
  for (size_t i = 1; i < bits.size(); ++i) {
    text += " |\n" + string(head.size(), ' ') + bits[i];
  }
  m << text << ";\n";
}

// The parameters of layer l's units, with the cuts inside them (unit_cuts).
std::vector<std::pair<string, string>> unit_params(const OrizuruTiming& t, int l,
                                                   std::vector<std::pair<string, string>> params) {
  if (!unit_cut_bits(t, l).empty()) params.push_back({"Cuts", fmt::format("L{}UnitCuts", l)});
  return params;
}

// The behavioural form of the trees (simulation only, under kBehaviouralMacro):
// each side's whole padded tree as one loop over its levels, nodes in heap order,
// evaluated only while a token is built or drained. The structural form's units
// compute the same winners every cycle, but the trees' values matter only then:
// while a token loads, the root registers are not presented (out_valid_o is low)
// and the build rewrites every level before the first outlier, so the bits a
// pop's last parts would rewrite in the first cycle of the next load, and the
// cut registers' values from it, are never read. A subtree of padding has an
// unavailable winner of value and index 0 in both forms.
string behavioural_trees(const OrizuruTiming& t) {
  const int leaf_regs = t.units_per_layer[0] * t.unit_inputs;
  if (leaf_regs > t.padded_leaves) {
    throw std::logic_error("orizuru: the leaf units read past the leaf registers");
  }
  // Four comparisons a line, the lines after the first under the first.
  string cut_levels;
  for (size_t i = 0; i < t.pop_cuts.size(); ++i) {
    const char* join = i == 0 ? "" : i % 4 == 0 ? " ||\n                       " : " || ";
    cut_levels += fmt::format("{}j == {}", join, cut_name(i));
  }
  string s = fmt::format(
      "  // The behavioural form: each side's tree, padded to Leaves leaves, as one loop over\n"
      "  // its levels (level j's nodes from Leaves - (Leaves >> j) on), evaluated only while\n"
      "  // a token is built or drained. While one loads, the roots are not presented and\n"
      "  // the build rewrites every level before the first outlier is taken.\n"
      "  /// Leaves of the padded tree.\n"
      "  localparam int Leaves = 1 << TreeLevels;\n"
      "  /// Nodes of the padded tree.\n"
      "  localparam int Nodes = Leaves - 1;\n"
      "  /// Leaves that have a leaf register: the leaf units' inputs.\n"
      "  localparam int LeafRegs = {0};\n"
      "  /// binary16's fraction bits, below its exponent.\n"
      "  localparam int KeyFracBits = {1};\n"
      "  /// binary16's exponent and fraction bits, below its sign.\n"
      "  localparam int KeyMagBits = {2};\n"
      "  // The comparator's gt_o: a > b under the order key (NaN above +Inf, -0 = +0).\n"
      "  function automatic logic key_gt(input logic [KeyMagBits:0] a,\n"
      "                                  input logic [KeyMagBits:0] b);\n"
      "    logic a_nan, b_nan;\n"
      "    a_nan = &a[KeyMagBits-1:KeyFracBits] && |a[KeyFracBits-1:0];\n"
      "    b_nan = &b[KeyMagBits-1:KeyFracBits] && |b[KeyFracBits-1:0];\n"
      "    if (a_nan || b_nan) key_gt = a_nan && !b_nan;\n"
      "    else if (a[KeyMagBits-1:0] == '0 && b[KeyMagBits-1:0] == '0) key_gt = 1'b0;\n"
      "    else if (a[KeyMagBits] != b[KeyMagBits]) key_gt = !a[KeyMagBits];\n"
      "    else if (a[KeyMagBits]) key_gt = a[KeyMagBits-1:0] < b[KeyMagBits-1:0];\n"
      "    else key_gt = a[KeyMagBits-1:0] > b[KeyMagBits-1:0];\n"
      "  endfunction\n"
      "  logic active;\n"
      "  assign active = state_q != StLoad;\n",
      leaf_regs, kBinary16Format.frac_bits, kBinary16Format.exp_bits + kBinary16Format.frac_bits);
  for (const string side : {"max", "min"}) {
    const bool cuts = !t.pop_cuts.empty();
    s += fmt::format(
        "  // The {0} tree: per node its winner bit (1: the right child), its winner's value,\n"
        "  // availability and leaf{1}.\n"
        "  logic [Nodes-1:0]            {0}_bit_q, {0}_bit_d, {0}_avl;\n"
        "  logic [Nodes*HalfBits-1:0]   {0}_val;\n"
        "  logic [Nodes*TreeLevels-1:0] {0}_win;\n",
        side, cuts ? "; registered, for the levels above a cut" : "");
    if (cuts) {
      s += fmt::format(
          "  logic [Nodes-1:0]            {0}_avl_r;\n"
          "  logic [Nodes*HalfBits-1:0]   {0}_val_r;\n"
          "  logic [Nodes*TreeLevels-1:0] {0}_win_r;\n",
          side);
    }
    s += fmt::format(
        "  always_comb begin : b_{0}_tree\n"
        "    int node, child;\n"
        "    logic [TreeLevels-1:0] lw, rw;\n"
        "    logic [HalfBits-1:0] lv, rv;\n"
        "    logic la, ra, right;\n"
        "    {{node, child, lw, rw, lv, rv, la, ra, right}} = '0;\n"
        "    {0}_bit_d = {0}_bit_q;\n"
        "    {0}_val   = (Nodes*HalfBits)'(0);\n"
        "    {0}_avl   = Nodes'(0);\n"
        "    {0}_win   = (Nodes*TreeLevels)'(0);\n"
        "    if (active) begin\n"
        "      for (int j = 0; j < TreeLevels; j++) begin\n"
        "        for (int n = 0; n < (j == 0 ? LeafRegs / 2 : Leaves >> (j + 1)); n++) begin\n"
        "          node = Leaves - (Leaves >> j) + n;\n"
        "          if (j == 0) begin\n"
        "            lv = leaf_q[2*n*HalfBits +: HalfBits];\n"
        "            rv = leaf_q[(2*n+1)*HalfBits +: HalfBits];\n"
        "            la = {0}_avail[2*n];\n"
        "            ra = {0}_avail[2*n+1];\n"
        "            lw = TreeLevels'(2*n);\n"
        "            rw = TreeLevels'(2*n+1);\n",
        side);
    if (cuts) {
      s += fmt::format(
          "          end else if ({1}) begin\n"
          "            child = Leaves - (Leaves >> (j - 1)) + 2*n;\n"
          "            lv = {0}_val_r[child*HalfBits +: HalfBits];\n"
          "            rv = {0}_val_r[(child+1)*HalfBits +: HalfBits];\n"
          "            la = {0}_avl_r[child];\n"
          "            ra = {0}_avl_r[child+1];\n"
          "            lw = {0}_win_r[child*TreeLevels +: TreeLevels];\n"
          "            rw = {0}_win_r[(child+1)*TreeLevels +: TreeLevels];\n",
          side, cut_levels);
    }
    s += fmt::format(
        "          end else begin\n"
        "            child = Leaves - (Leaves >> (j - 1)) + 2*n;\n"
        "            lv = {0}_val[child*HalfBits +: HalfBits];\n"
        "            rv = {0}_val[(child+1)*HalfBits +: HalfBits];\n"
        "            la = {0}_avl[child];\n"
        "            ra = {0}_avl[child+1];\n"
        "            lw = {0}_win[child*TreeLevels +: TreeLevels];\n"
        "            rw = {0}_win[(child+1)*TreeLevels +: TreeLevels];\n"
        "          end\n"
        "          right = ra && (!la || {1});\n"
        "          if (build[j] || ({0}_rewrite[j] && "
        "{0}_path >> (j + 1) == TreeLevels'(n))) begin\n"
        "            {0}_bit_d[node] = right;\n"
        "          end\n"
        "          {0}_val[node*HalfBits +: HalfBits] = {0}_bit_d[node] ? rv : lv;\n"
        "          {0}_avl[node] = la || ra;\n"
        "          {0}_win[node*TreeLevels +: TreeLevels] = {0}_bit_d[node] ? rw : lw;\n"
        "        end\n"
        "      end\n"
        "    end\n"
        "  end\n",
        side,
        side == "max"                      ? "key_gt(rv, lv)"
        : mutated("orizuru.min_ties_left") ? "(j == 0 ? key_gt(lv, rv) : !key_gt(rv, lv))"
                                           : "!key_gt(rv, lv)");
    s += fmt::format(
        "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "    if (!rst_ni) begin\n"
        "      {0}_bit_q <= Nodes'(0);\n"
        "{1}"
        "    end else if (active) begin\n"
        "      {0}_bit_q <= {0}_bit_d;\n"
        "{2}"
        "    end\n"
        "  end\n"
        "  assign root_{0}_val  = {0}_val[(Nodes-1)*HalfBits +: HalfBits];\n"
        "  assign root_{0}_chan = {0}_win[(Nodes-1)*TreeLevels +: ChanBits];\n"
        "  // A popped leaf is cleared in the cycle its level 0 is rewritten.\n"
        "  assign {0}_clear = {0}_rewrite[0]{3} ? TokenLanes'(1) << {0}_path : '0;\n",
        side,
        cuts ? fmt::format("      {0}_val_r <= (Nodes*HalfBits)'(0);\n"
                           "      {0}_avl_r <= Nodes'(0);\n"
                           "      {0}_win_r <= (Nodes*TreeLevels)'(0);\n",
                           side)
             : "",
        cuts ? fmt::format("      {0}_val_r <= {0}_val;\n"
                           "      {0}_avl_r <= {0}_avl;\n"
                           "      {0}_win_r <= {0}_win;\n",
                           side)
             : "",
        mutated("orizuru.left_pop_lost") ? fmt::format(" && {}_path[0]", side) : "");
  }
  return s;
}

// The tree of units: layer 0 holds the leaf units, each further layer units
// over up to R winners of the layer below, the last layer one unit.
void orizuru_core(SvModule& m, const Config& c, const OrizuruTiming& t) {
  const int R = t.unit_inputs, r = t.unit_levels, T = t.layers;
  m.localparam("TreeLevels", t.tree_levels, "Comparator levels of the tree.");
  m.localparam("LevelsPerStage", t.levels_per_stage, "Levels built in one cycle.");
  const size_t cuts = t.pop_cuts.size();
  for (size_t i = 0; i < cuts; ++i) {
    m.localparam(cut_name(i), t.pop_cuts[i],
                 fmt::format("A pop's cut: tree levels from here up read registered winners "
                             "and are rewritten a cycle after those {}.",
                             i == 0 ? "below" : fmt::format("from {} up", cut_name(i - 1))));
  }
  for (size_t i = 0; i < cuts; ++i) {
    const string from = i == 0 ? "" : cut_name(i - 1);
    const string levels = i == 0 ? cut_name(i) : fmt::format("{} - {}", cut_name(i), from);
    m.localparam(cut_name(i) + "Stage",
                 fmt::format("{}({} + LevelsPerStage - 1) / LevelsPerStage",
                             i == 0 ? "" : from + "Stage + ", levels),
                 fmt::format("The first build cycle of the levels above {}.", cut_name(i)));
  }
  if (cuts > 0) {
    m.comment(
        "Build cycle s writes the winner bits of LevelsPerStage tree levels, from the leaves "
        "up, each cut's levels from its first build cycle on: no cycle builds levels on both "
        "sides of a cut, since the level above it reads registered winners.");
  } else {
    m.comment("Build cycle s writes the winner bits of tree levels s*LevelsPerStage and up.");
  }
  m << "  logic [TreeLevels-1:0] build;\n"
       "  for (genvar j = 0; j < TreeLevels; j++) begin : g_build\n";
  if (cuts > 0) {
    string stage = "    localparam int Stage = ";
    const string pad(stage.size(), ' ');
    for (size_t i = 0; i <= cuts; ++i) {
      const string from = i == 0 ? "" : cut_name(i - 1);
      const string term = i == 0 ? "j / LevelsPerStage"
                                 : fmt::format("{0}Stage + (j - {0}) / LevelsPerStage", from);
      if (i > 0) stage += "\n" + pad + ": ";
      stage += i < cuts ? fmt::format("j < {} ? {}", cut_name(i), term) : term;
    }
    m << stage << ";\n"
      << "    assign build[j] = building && stage_q == StageBits'(Stage);\n";
  } else {
    m << "    assign build[j] = building && stage_q == StageBits'(j / LevelsPerStage);\n";
  }
  m << "  end\n\n";
  m.op("eq", t.stage_bits, "build", t.tree_levels);
  // The pop's paths in each branch: the structural form declares them after its layers.
  m << fmt::format("`ifdef {}\n", kBehaviouralMacro);
  pop_paths(m, t);
  m << behavioural_trees(t) << "`else\n";
  m.localparam("UnitInputs", R, "Inputs of a unit, R.");
  m.localparam("UnitLevels", r, "Comparator levels of a unit, log2(R).");
  for (int l = 0; l < T; ++l) layer_signals(m, t, l);
  m << "\n";
  for (int l = 1; l < T; ++l) layer_children(m, t, l);
  m << "\n";
  pop_paths(m, t);

  unit_cuts(m, t, 0);
  m << loop_open("u", t.units_per_layer[0], "g_layer0", "L0Units");
  unit_pops(m, t, 0);
  m.inst(module_name(c, "orizuru") + "_leaf_unit", "u_unit",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"build_i", "build[0 +: UnitLevels]"},
          {"leaf_i", "leaf_q[u*UnitInputs*HalfBits +: UnitInputs*HalfBits]"},
          {"max_avail_i", "max_avail[u*UnitInputs +: UnitInputs]"},
          {"min_avail_i", "min_avail[u*UnitInputs +: UnitInputs]"},
          {"max_pop_i", "l0_max_pop[u*UnitLevels +: UnitLevels]"},
          {"min_pop_i", "l0_min_pop[u*UnitLevels +: UnitLevels]"},
          {"max_path_i", "max_path[0 +: UnitLevels]"},
          {"min_path_i", "min_path[0 +: UnitLevels]"},
          {"max_clear_o", "max_clear[u*UnitInputs +: UnitInputs]"},
          {"min_clear_o", "min_clear[u*UnitInputs +: UnitInputs]"},
          {"max_val_o", "l0_max_val[u*HalfBits +: HalfBits]"},
          {"max_avail_o", "l0_max_avail[u]"},
          {"max_idx_o", "l0_max_idx[u*UnitLevels +: UnitLevels]"},
          {"min_val_o", "l0_min_val[u*HalfBits +: HalfBits]"},
          {"min_avail_o", "l0_min_avail[u]"},
          {"min_idx_o", "l0_min_idx[u*UnitLevels +: UnitLevels]"}},
         "    ", unit_params(t, 0, {{"Inputs", "UnitInputs"}}),
         std::to_string(t.units_per_layer[0]));
  m << loop_close(t.units_per_layer[0]);
  for (int l = 1; l < T; ++l) {
    const int u = t.units_per_layer[size_t(l)];
    const string cw = fmt::format("{}*UnitLevels", l), w = fmt::format("{}*UnitLevels", l + 1);
    unit_cuts(m, t, l);
    m << loop_open("u", u, fmt::format("g_layer{}", l), fmt::format("L{}Units", l));
    unit_pops(m, t, l);
    std::vector<std::pair<string, string>> conn = {
        {"clk_i", "clk_i"},
        {"rst_ni", "rst_ni"},
        {"build_i", fmt::format("build[{}*UnitLevels +: UnitLevels]", l)}};
    for (const char* side : {"max", "min"}) {
      conn.push_back(
          {fmt::format("{}_val_i", side),
           fmt::format("l{}_{}_child_val[u*UnitInputs*HalfBits +: UnitInputs*HalfBits]", l, side)});
      conn.push_back({fmt::format("{}_avail_i", side),
                      fmt::format("l{}_{}_child_avail[u*UnitInputs +: UnitInputs]", l, side)});
      conn.push_back(
          {fmt::format("{}_idx_i", side),
           fmt::format("l{0}_{1}_child_idx[u*UnitInputs*{2} +: UnitInputs*{2}]", l, side, cw)});
    }
    for (const char* side : {"max", "min"}) {
      conn.push_back({fmt::format("{}_pop_i", side),
                      fmt::format("l{}_{}_pop[u*UnitLevels +: UnitLevels]", l, side)});
    }
    for (const char* side : {"max", "min"}) {
      conn.push_back({fmt::format("{}_path_i", side),
                      fmt::format("{}_path[{}*UnitLevels +: UnitLevels]", side, l)});
    }
    for (const char* side : {"max", "min"}) {
      conn.push_back({fmt::format("{}_val_o", side),
                      fmt::format("l{}_{}_val[u*HalfBits +: HalfBits]", l, side)});
      conn.push_back({fmt::format("{}_avail_o", side), fmt::format("l{}_{}_avail[u]", l, side)});
      conn.push_back(
          {fmt::format("{}_idx_o", side), fmt::format("l{0}_{1}_idx[u*{2} +: {2}]", l, side, w)});
    }
    m.inst(module_name(c, "orizuru") + "_unit", "u_unit", conn, "    ",
           unit_params(t, l, {{"Inputs", "UnitInputs"}, {"ChildIndexBits", cw}}),
           std::to_string(u));
    m << loop_close(u);
  }
  // The root: its index is the channel (padding makes it wider than needed).
  const int w = r * T;
  m << fmt::format(
      "\n  assign root_max_val  = l{0}_max_val;\n"
      "  assign root_min_val  = l{0}_min_val;\n"
      "  assign root_max_chan = l{0}_max_idx[ChanBits-1:0];\n"
      "  assign root_min_chan = l{0}_min_idx[ChanBits-1:0];\n",
      T - 1);
  std::vector<string> unused = {fmt::format("l{}_max_avail", T - 1),
                                fmt::format("l{}_min_avail", T - 1)};
  if (w > t.channel_bits) {
    unused.push_back(fmt::format("l{}_max_idx[TreeLevels-1:ChanBits]", T - 1));
    unused.push_back(fmt::format("l{}_min_idx[TreeLevels-1:ChanBits]", T - 1));
  }
  m << "  // The root is always available while draining; the index bits above the\n"
       "  // channel width only address padding.\n"
       "  logic unused_root;\n";
  m << "  assign unused_root = ^" << concat(unused, "  ", 24) << ";\n";
  m << "`endif\n";
}

}  // namespace

SvFile topk_baseline_level_module(const Config& c);

namespace {

// The baseline: the whole masked vector reduced to its max and its min every
// cycle by two pairwise trees (same tie rules), the winners' masks cleared;
// the levels in t.pop_cuts read their inputs through registers, so a side's
// next winner is at the root t.pop_cycles cycles after its pop.
void baseline_core(SvModule& m, const Config& c, const OrizuruTiming& t) {
  const int cw = t.channel_bits;
  m.localparam("Leaves", t.padded_leaves, "Leaf registers.");
  m << "  logic [Leaves*ChanBits-1:0] leaf_chan;\n";
  m << loop_open("i", t.padded_leaves, "g_chan");
  m << "    assign leaf_chan[i*ChanBits +: ChanBits] = ChanBits'(i);\n";
  m << loop_close(t.padded_leaves);
  m.comment(t.pop_cuts.empty()
                ? "Each side a pairwise tree of levels, ceil(n/2) winners out of n."
                : "Each side a pairwise tree of levels, ceil(n/2) winners out of n; the levels "
                  "that start a later cycle of the pop read their records through registers.");
  const string level_mod = module_name(c, "topk_baseline") + "_level";
  // The records into each level (Leaves, then the level before's outputs), the two sides'
  // trees being the same shape.
  std::vector<string> inputs = {"Leaves"};
  for (int n = t.padded_leaves; n > 1; n = (n + 1) / 2) {
    const string name = fmt::format("Lvl{}Outputs", inputs.size() - 1);
    m.localparam(name, (n + 1) / 2,
                 inputs.size() == 1 ? "Records out of each level, ceil(n/2) of its n." : "");
    inputs.push_back(name);
  }
  for (const char* side : {"max", "min"}) {
    const bool is_max = side == string("max");
    string val = "leaf_q", avail = fmt::format("{}_avail_d", side), chan = "leaf_chan";
    int level = 0;
    for (int n = t.padded_leaves; n > 1; n = (n + 1) / 2, ++level) {
      const string& in = inputs[size_t(level)];
      const string& out = inputs[size_t(level) + 1];
      const string p = fmt::format("{}{}", side, level);
      const bool cut = std::find(t.pop_cuts.begin(), t.pop_cuts.end(), level) != t.pop_cuts.end();
      if (cut || (level == 1 && mutated("topk_baseline.tree_register_extra"))) {
        // A rank of registers before this level, one record at a time.
        const string q = p + "_in";
        m << fmt::format("  logic {} {}_val;\n  logic {} {}_avail;\n  logic {} {}_chan;\n",
                         range(in + "*HalfBits"), q, range(in), q, range(in + "*ChanBits"), q);
        m << loop_open("j", n, "g_" + q);
        m << fmt::format(
            "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
            "      if (!rst_ni) begin\n"
            "        {0}_val[j*HalfBits +: HalfBits]  <= '0;\n"
            "        {0}_avail[j]                     <= 1'b0;\n"
            "        {0}_chan[j*ChanBits +: ChanBits] <= '0;\n"
            "      end else begin\n"
            "        {0}_val[j*HalfBits +: HalfBits]  <= {1}[j*HalfBits +: HalfBits];\n"
            "        {0}_avail[j]                     <= {2}[j];\n"
            "        {0}_chan[j*ChanBits +: ChanBits] <= {3}[j*ChanBits +: ChanBits];\n"
            "      end\n"
            "    end\n",
            q, val, avail, chan);
        m << loop_close(n);
        val = q + "_val";
        avail = q + "_avail";
        chan = q + "_chan";
      }
      m << fmt::format("  logic {} {}_val;\n  logic {} {}_avail;\n  logic {} {}_chan;\n",
                       range(out + "*HalfBits"), p, range(out), p, range(out + "*ChanBits"), p);
      m.inst(level_mod, "u_" + p,
             {{"val_i", val},
              {"avail_i", avail},
              {"chan_i", chan},
              {"val_o", p + "_val"},
              {"avail_o", p + "_avail"},
              {"chan_o", p + "_chan"}},
             "  ", {{"Inputs", in}, {"ChanBits", "ChanBits"}, {"MinSide", is_max ? "0" : "1"}});
      val = p + "_val";
      avail = p + "_avail";
      chan = p + "_chan";
    }
    m << fmt::format("  assign root_{0}_val  = {1};\n  assign root_{0}_chan = {2};\n", side, val,
                     chan);
    m << fmt::format(
        "  // The root is always available while draining.\n"
        "  logic unused_{0}_root;\n  assign unused_{0}_root = {1};\n",
        side, avail);
  }
  m << "  // The build flag only matters to the tree's level-by-level build.\n"
       "  logic unused_building;\n"
       "  assign unused_building = building;\n";
  m << loop_open("i", t.padded_leaves, "g_clear");
  m << "    assign max_clear[i] = pop_max && max_chan_q == ChanBits'(i);\n"
       "    assign min_clear[i] = pop_min && min_chan_q == ChanBits'(i);\n";
  m << loop_close(t.padded_leaves);
  m.op("eq", cw, "max_clear", 2 * int64_t(t.padded_leaves));
}

}  // namespace

// One level of the baseline's pairwise trees.
SvFile topk_baseline_level_module(const Config& c) {
  SvModule m(module_name(c, "topk_baseline") + "_level",
             "One level of a pairwise max (or min, when MinSide is 1) tree over records (value, "
             "availability, channel): Inputs records in, (Inputs + 1) / 2 out. Pair j keeps "
             "record 2j + 1 when it is available and record 2j is not, or when it is greater "
             "(max) or not greater (min) under the order key, else record 2j; an odd last record "
             "passes. Ties as in Orizuru. Combinational.");
  m.param("Inputs", 2, "Records in, at least 2.");
  m.param("ChanBits", 1, "Bits of a channel.");
  m.param("MinSide", 0, "1: the min tree; 0: the max tree.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "val_i", "Record i's value, binary16, at [i*HalfBits +: HalfBits].",
            "Inputs*HalfBits"},
           {"input", 0, "avail_i", "Record i is available.", "Inputs"},
           {"input", 0, "chan_i", "Record i's channel.", "Inputs*ChanBits"},
           {"output", 0, "val_o", "Winner j's value.", "((Inputs+1)/2)*HalfBits"},
           {"output", 0, "avail_o", "Winner j is available.", "(Inputs+1)/2"},
           {"output", 0, "chan_o", "Winner j's channel.", "((Inputs+1)/2)*ChanBits"}});
  m.localparam("Outputs", "(Inputs + 1) / 2");
  m.comment("Blocks of at most 1024 pairs: Verilator unrolls no longer loop.");
  m.localparam("Block", "Outputs < 1024 ? Outputs : 1024");
  m << "\n  for (genvar hi = 0; hi < (Outputs + Block - 1) / Block; hi++) begin : g_hi\n"
       "  for (genvar lo = 0; lo < Block; lo++) begin : g_pair\n"
       "  if (hi*Block + lo < Outputs) begin : g_in\n"
       "    localparam int j = hi*Block + lo;\n"
       "    if (2*j + 1 < Inputs) begin : g_cmp\n"
       "      logic gt, right, unused_lt, unused_eq;\n";
  compare(m, c, "u_cmp", "val_i[(2*j+1)*HalfBits +: HalfBits]", "val_i[2*j*HalfBits +: HalfBits]",
          "unused_lt", "unused_eq", "gt", "      ", "Inputs/2");
  m << "      assign right = avail_i[2*j+1] && (!avail_i[2*j] || (MinSide == 1 ? !gt : gt));\n"
       "      assign val_o[j*HalfBits +: HalfBits] = right ? val_i[(2*j+1)*HalfBits +: HalfBits]\n"
       "                                                   : val_i[2*j*HalfBits +: HalfBits];\n"
       "      assign chan_o[j*ChanBits +: ChanBits] = right ? chan_i[(2*j+1)*ChanBits +: "
       "ChanBits]\n"
       "                                                    : chan_i[2*j*ChanBits +: ChanBits];\n"
       "      assign avail_o[j] = avail_i[2*j] || avail_i[2*j+1];\n"
       "    end else begin : g_pass\n"
       "      assign val_o[j*HalfBits +: HalfBits] = val_i[2*j*HalfBits +: HalfBits];\n"
       "      assign chan_o[j*ChanBits +: ChanBits] = chan_i[2*j*ChanBits +: ChanBits];\n"
       "      assign avail_o[j] = avail_i[2*j];\n"
       "    end\n"
       "  end\n"
       "  end\n"
       "  end\n";
  return m.file();
}

// The token interface and the load / build / drain handshake around a core.
SvFile topk_top_module(const OrizuruTiming& t, const string& module, const string& what,
                       const std::function<void(SvModule&)>& core) {
  const int B = t.beat_activations;
  const int bw = t.beat_bits;
  const int sw = t.stage_bits;
  const int kw = t.output_bits;
  const int cw = t.channel_bits;
  const int nb = t.padded_leaves;
  std::vector<bool> valid(size_t(nb), false);
  for (int i = 0; i < t.channels; ++i) valid[size_t(i)] = true;
  SvModule m(
      module,
      what +
          fmt::format("\nToken in: {0} beat(s) of {1} binary16 activations (channel "
                      "beat*{1} + i at [i*HalfBits +: HalfBits]; channels past {2} are padding and "
                      "never output). Then {3} build cycle(s), then the {4} outliers "
                      "out, {5} while out_ready_i is set, in the order max_1, "
                      "min_1, max_2, min_2, ... A new token is taken only after the "
                      "last outlier of the previous one has gone (in_ready_o is low "
                      "meanwhile).",
                      t.beats, B, t.channels, t.build_cycles, t.outliers,
                      t.pop_cycles > 2 ? fmt::format("a pair (max, min) every {} cycles, the "
                                                     "cycles a pop takes,",
                                                     t.pop_cycles)
                                       : string("one per cycle")));
  m.header_localparam("BeatLanes", B, "Activations a beat.");
  m.header_localparam("ChanBits", cw, "Bits of a channel number.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "in_valid_i", "A beat of the token is offered."},
           {"output", 0, "in_ready_o", "The engine takes the offered beat this cycle."},
           {"input", 0, "in_data_i",
            "The beat: activation i, binary16, at [i*HalfBits +: HalfBits].", "BeatLanes*HalfBits"},
           {"output", 0, "out_valid_o", "An outlier is presented."},
           {"input", 0, "out_ready_i", "The consumer takes the presented outlier this cycle."},
           {"output", 0, "out_data_o",
            "The outlier {side, value, channel}: [HalfBits+ChanBits] side (0 max, 1 min), "
            "[ChanBits +: HalfBits] binary16 value as loaded, [ChanBits-1:0] channel.",
            "HalfBits + ChanBits + 1"}});
  m.localparam("Beats", t.beats, "Beats of a token.");
  m.localparam("BuildCycles", t.build_cycles, "Cycles of the build.");
  m.localparam("Outliers", t.outliers, "Outliers of a token, 2k.");
  m.localparam("TokenLanes", "Beats * BeatLanes",
               "Leaf registers: a token's beats of activations, the last beat's padding too.");
  m.localparam("BeatBits", bw, "Bits of the beat counter.");
  m.localparam("StageBits", sw, "Bits of the build-cycle counter.");
  m.localparam("CountBits", kw, "Bits of the outlier counter.");
  m << fmt::format(
      "  /// Leaves that hold a channel (the others are padding, never available).\n"
      "  localparam logic [TokenLanes-1:0] ValidMask = {};\n"
      "  localparam logic [1:0] StLoad  = 2'd0;\n"
      "  localparam logic [1:0] StBuild = 2'd1;\n"
      "  localparam logic [1:0] StDrain = 2'd2;\n\n"
      "  logic [1:0] state_q, state_d;\n"
      "  logic [BeatBits-1:0] beat_q, beat_d;\n"
      "  logic [StageBits-1:0] stage_q, stage_d;\n"
      "  logic [CountBits-1:0] count_q, count_d;\n"
      "  logic [TokenLanes*HalfBits-1:0] leaf_q;\n"
      "  logic [TokenLanes-1:0] max_avail_q, max_avail_d, min_avail_q, min_avail_d;\n"
      "  logic [TokenLanes-1:0] max_avail, min_avail;\n"
      "  logic [TokenLanes-1:0] max_clear, min_clear;\n"
      "  logic [HalfBits-1:0] max_val_q, min_val_q, root_max_val, root_min_val;\n"
      "  logic [ChanBits-1:0] max_chan_q, min_chan_q, root_max_chan, root_min_chan;\n"
      "  logic in_fire, out_fire, side, pop_max, pop_min, building;\n\n",
      mask_literal(valid));
  m << "  assign in_ready_o  = state_q == StLoad;\n"
       "  assign in_fire     = in_valid_i && in_ready_o;\n";
  // Orizuru's trees read the masks less this cycle's pops and not this cycle's load
  // (what they compute while loading is never used): so they depend on registers only,
  // and a simulator evaluates them once a cycle rather than at every change of an input.
  // The baselines' trees keep the masks as written (avail_d).
  m.comment(module.ends_with("_orizuru")
                ? "The masks less this cycle's pops, which the trees read, never a load's: what "
                  "they compute while loading is not used."
                : "The masks less this cycle's pops.");
  m << "  assign max_avail   = max_avail_q & ~max_clear;\n"
       "  assign min_avail   = min_avail_q & ~min_clear;\n";
  if (t.pop_cycles > 2) {
    // A side's next winner is in its root register pop_cycles after its pop;
    // the other side's single cycle in between does not cover the wait.
    m.localparam("PopCycles", t.pop_cycles,
                 "Cycles from a side's pop until its next winner can be presented.");
    m.comment("Cycles until each side's root register holds its next winner.");
    m.localparam("WaitBits", t.pop_wait_bits, "Bits of a side's wait counter.");
    m << "  logic [WaitBits-1:0] max_wait_q, max_wait_d, min_wait_q, min_wait_d;\n";
    m << "  assign out_valid_o = state_q == StDrain && (side ? min_wait_q : max_wait_q) == '0;\n";
  } else {
    m << "  assign out_valid_o = state_q == StDrain;\n";
  }
  m << "  assign out_fire    = out_valid_o && out_ready_i;\n"
       "  assign side        = count_q[0];\n"
       "  assign pop_max     = out_fire && !side;\n"
       "  assign pop_min     = out_fire && side;\n"
       "  assign building    = state_q == StBuild;\n"
       "  assign out_data_o  = side ? {1'b1, min_val_q, min_chan_q}\n"
       "                            : {1'b0, max_val_q, max_chan_q};\n\n";
  if (t.pop_cycles > 2) {
    const int w = t.pop_wait_bits;
    std::vector<Reg> waits;
    // The bug is Orizuru's, not the k-round baseline's, whose top module this also is.
    const bool orizuru = module.ends_with("_orizuru");
    const int wait = orizuru && mutated("orizuru.pop_wait_short") ? 2 : 1;
    for (const string side : {"max", "min"}) {
      m << fmt::format(
          "  assign {0}_wait_d = pop_{0} ? WaitBits'(PopCycles - {1})\n"
          "                     : {0}_wait_q == '0 ? '0 : {0}_wait_q - WaitBits'(1);\n",
          side, wait);
      waits.push_back({side + "_wait_q", side + "_wait_d"});
      m.op("add", w, side + "_wait_d");
    }
    m << registers(waits) << "\n";
  }
  core(m);
  m << "\n  always_comb begin\n"
       "    state_d     = state_q;\n"
       "    beat_d      = beat_q;\n"
       "    stage_d     = stage_q;\n"
       "    count_d     = count_q;\n"
       "    max_avail_d = max_avail;\n"
       "    min_avail_d = min_avail;\n"
       "    unique case (state_q)\n"
       "      StLoad: begin\n"
       "        if (in_fire) begin\n"
       "          max_avail_d = ValidMask;\n"
       "          min_avail_d = ValidMask;\n"
       "          if (beat_q == BeatBits'(Beats - 1)) begin\n"
       "            beat_d  = '0;\n"
       "            stage_d = '0;\n"
       "            state_d = StBuild;\n"
       "          end else begin\n"
       "            beat_d = beat_q + BeatBits'(1);\n"
       "          end\n"
       "        end\n"
       "      end\n"
       "      StBuild: begin\n"
       "        if (stage_q == StageBits'(BuildCycles - 1)) begin\n"
       "          count_d = '0;\n"
       "          state_d = StDrain;\n"
       "        end else begin\n"
       "          stage_d = stage_q + StageBits'(1);\n"
       "        end\n"
       "      end\n"
       "      StDrain: begin\n"
       "        if (out_fire) begin\n"
       "          if (count_q == CountBits'(Outliers - 1)) begin\n"
       "            count_d = '0;\n"
       "            state_d = StLoad;\n"
       "          end else begin\n"
       "            count_d = count_q + CountBits'(1);\n"
       "          end\n"
       "        end\n"
       "      end\n"
       "      default: state_d = StLoad;\n"
       "    endcase\n"
       "  end\n\n";
  m.op("add", bw, "beat_d");
  m.op("add", sw, "stage_d");
  m.op("add", kw, "count_d");
  m << registers({{"state_q", "state_d", "StLoad"},
                  {"beat_q", "beat_d"},
                  {"stage_q", "stage_d"},
                  {"count_q", "count_d"},
                  {"max_val_q", "root_max_val"},
                  {"min_val_q", "root_min_val"},
                  {"max_chan_q", "root_max_chan"},
                  {"min_chan_q", "root_min_chan"}});
  m << "\n";
  // The leaves and masks, one register block per beat (a single reset of
  // thousands of bits is one replication too wide for lint). A beat's leaves
  // are written only when that beat is taken: a decoded enable per beat
  // rather than a write at a variable offset into the whole token, which
  // Yosys would turn into a shifter as wide as the token.
  m.comment(
      "The leaves and masks, one register block per beat; a beat's leaves are written only "
      "when that beat is taken.");
  m << loop_open("b", t.beats, "g_leaf");
  m << "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "      if (!rst_ni) begin\n"
       "        leaf_q[b*BeatLanes*HalfBits +: BeatLanes*HalfBits] <= '0;\n"
       "        max_avail_q[b*BeatLanes +: BeatLanes]  <= '0;\n"
       "        min_avail_q[b*BeatLanes +: BeatLanes]  <= '0;\n"
       "      end else begin\n"
       "        if (in_fire && beat_q == BeatBits'(b)) begin\n"
       "          leaf_q[b*BeatLanes*HalfBits +: BeatLanes*HalfBits] <= in_data_i;\n"
       "        end\n"
       "        max_avail_q[b*BeatLanes +: BeatLanes] <= max_avail_d[b*BeatLanes +: BeatLanes];\n"
       "        min_avail_q[b*BeatLanes +: BeatLanes] <= min_avail_d[b*BeatLanes +: BeatLanes];\n"
       "      end\n"
       "    end\n";
  m << loop_close(t.beats);
  m.op("eq", bw, "leaf_q", t.beats);
  return m.file();
}

nlohmann::ordered_json topk_timing_manifest(const OrizuruTiming& t) {
  nlohmann::ordered_json m;
  m["channels"] = t.channels;
  m["outliers_per_side"] = t.k;
  m["comparators"] = t.comparators;
  m["units"] = t.units;
  m["units_per_layer"] = t.units_per_layer;
  m["tree_levels"] = t.tree_levels;
  m["beat_activations"] = t.beat_activations;
  m["beats_per_token"] = t.beats;
  m["channel_bits"] = t.channel_bits;
  m["build_latency_cycles"] = t.build_cycles;
  m["outliers_per_cycle"] = 1;
  m["pop_cycles"] = t.pop_cycles;
  m["drain_cycles"] = t.drain_cycles;
  m["cycles_per_token"] = t.cycles_per_token;
  m["comparisons_per_token"] = t.comparisons_per_token;
  m["load_while_draining"] = false;
  return m;
}

nlohmann::ordered_json stage_model(const string& path, const string& unit, double unit_fo4,
                                   const std::vector<int>& parts) {
  nlohmann::ordered_json m;
  m["path"] = path;
  m["unit"] = unit;
  m["unit_fo4"] = unit_fo4;
  m["units_per_stage"] = parts;
  m["longest_stage_fo4"] =
      unit_fo4 * (parts.empty() ? 0 : *std::max_element(parts.begin(), parts.end()));
  return m;
}

namespace {

class Orizuru final : public Block {
 public:
  string name() const override { return "orizuru"; }

  BlockOutput emit(const Config& c) const override {
    const OrizuruTiming t = derive(c).orizuru;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    out.files = {side_module(c), leaf_unit_module(c)};
    if (t.layers > 1) out.files.push_back(unit_module(c));
    const string what = fmt::format(
        "Orizuru (paper IV-D, docs/spec.md section 5): the k = {0} largest and k smallest of a "
        "token of N = {1} activations by a max tree and a min tree over shared leaves, {2} "
        "unit(s) of {3} inputs in {4} layer(s), {5} comparator level(s) per build cycle. Ties: "
        "max to the lower channel, min to the higher; popped leaves are unavailable.",
        t.k, t.channels, t.units, t.unit_inputs, t.layers, t.levels_per_stage);
    out.files.push_back(
        topk_top_module(t, base, what, [&](SvModule& m) { orizuru_core(m, c, t); }));
    out.manifest = topk_timing_manifest(t);
    out.manifest["pop_levels"] = t.pop_levels;
    out.manifest["pop_cuts"] = t.pop_cuts;
    out.manifest["stage_model"] =
        stage_model("a pop, from out_ready_i through its part of the tree", "tree level",
                    kOrizuruLevelFo4, t.pop_part_levels);
    out.manifest["comparator_instances"] = t.comparator_instances;
    return out;
  }
};

class TopkBaseline final : public Block {
 public:
  string name() const override { return "topk_baseline"; }

  BlockOutput emit(const Config& c) const override {
    const OrizuruTiming t = derive(c).topk_baseline;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    const string what = fmt::format(
        "Top-k baseline for Orizuru: the k = {0} largest and k smallest of a token of N = {1} "
        "activations by reducing the whole masked vector to its max and its min every cycle "
        "(two pairwise trees, ties as in Orizuru), k rounds{2}.",
        t.k, t.channels,
        t.pop_cuts.empty()
            ? string()
            : fmt::format("; registers before tree levels {} split a pop over {} cycles",
                          fmt::join(t.pop_cuts, ", "), t.pop_cycles));
    out.files = {topk_baseline_level_module(c),
                 topk_top_module(t, base, what, [&](SvModule& m) { baseline_core(m, c, t); })};
    out.manifest = topk_timing_manifest(t);
    out.manifest.erase("units");
    out.manifest.erase("units_per_layer");
    out.manifest.erase("tree_levels");
    out.manifest["pop_cuts"] = t.pop_cuts;
    out.manifest["stage_model"] =
        stage_model("a pop, from out_ready_i through the mask's clear and its part of a tree",
                    "tree level", kOrizuruLevelFo4, t.pop_part_levels);
    return out;
  }
};

OASIS_REGISTER_BLOCK(Orizuru);
OASIS_REGISTER_BLOCK(TopkBaseline);

}  // namespace
}  // namespace oasis::gen
