// SPDX-License-Identifier: Apache-2.0
// Orizuru's tree of units (docs/orizuru.md, Structure and Drain): the layers of units, the
// pop's paths and cuts, and the trees' behavioural form for simulation. The engine:
// gen/orizuru.cpp.
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::orizuru_parts {

namespace {

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

}  // namespace

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

}  // namespace oasis::gen::orizuru_parts
