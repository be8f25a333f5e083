// Orizuru, the two-fold top-k tree of paper IV-D (docs/spec.md section 5), and
// topk_baseline, the plain engine it is measured against: k rounds of a
// max-and-min reduction over the whole masked vector. Both share the token
// interface and the load / build / drain handshake, so one cycle model
// (model/orizuru_cycle.hpp) and one testbench shape check both.
// Algorithm: model/orizuru.hpp. Tests: verif/tb/orizuru_tb.cpp,
// verif/tb/topk_baseline_tb.cpp. Interface, timing, structure: docs/orizuru.md.
#include <fmt/format.h>

#include <string>

#include "gen/block.hpp"
#include "gen/orizuru.hpp"
#include "model/orizuru_cycle.hpp"

namespace oasis::gen {
namespace {

using std::string;

string cmp_module(const Config& c) { return module_name(c, "comparator"); }

/// Width of a level's index field inside a unit, as SystemVerilog text.
string idx_width(bool leaf, int bits) {
  return leaf ? std::to_string(bits) : fmt::format("(ChildIndexBits+{})", bits);
}

// One unit of R inputs: log2(R) levels of nodes, per node and side a winner
// bit (0: left child, 1: right child) and the winner (value, availability,
// index) muxed from the children by the next value of that bit. The leaf
// unit's first level compares leaf values once for both sides; every other
// node has one comparator per side.
string unit_module(const Config& c, const OrizuruTiming& t, bool leaf) {
  const int r = t.unit_levels;
  const int R = t.unit_inputs;
  const string module = module_name(c, "orizuru") + (leaf ? "_leaf_unit" : "_unit");
  string s;
  if (leaf) {
    s += fmt::format(
        "/// Leaf unit of Orizuru ({0} leaves, {1} levels): the max tree and the min tree over\n"
        "/// shared leaves. The first level compares each leaf pair once; the max tree takes the\n"
        "/// right leaf iff it is greater, the min tree reuses the result reversed (right iff not\n"
        "/// greater, so ties go right). Per node and side a winner bit; an unavailable child\n"
        "/// loses to an available one. Build: a level's bits are written when its build_i bit\n"
        "/// is set. Pop: pop_i walks down the current bits and clears the popped leaf's mask;\n"
        "/// only the nodes on that path rewrite their bits.\n"
        "module {2} (\n",
        R, r, module);
  } else {
    s += fmt::format(
        "/// Unit of Orizuru above the leaves ({0} children, {1} levels): each child is the\n"
        "/// winner of a lower unit, per side. Max tree: right iff greater; min tree: right iff\n"
        "/// less or equal (ties go right); an unavailable child loses to an available one.\n"
        "/// Build and pop as in the leaf unit; pop_o tells the lower unit on the popped path.\n"
        "module {2} #(\n"
        "  /// Width of a child's index (its position inside the child's subtree), bits.\n"
        "  parameter int ChildIndexBits = 1\n"
        ") (\n",
        R, r, module);
  }
  s += fmt::format(
      "  /// Clock.\n"
      "  input  logic clk_i,\n"
      "  /// Asynchronous reset, active low.\n"
      "  input  logic rst_ni,\n"
      "  /// Build: bit j writes the winner bits of level j (0 = nearest the inputs).\n"
      "  input  logic [{0}:0] build_i,\n",
      r - 1);
  if (leaf) {
    s += fmt::format(
        "  /// The leaves: binary16 activation of input i at [i*16 +: 16].\n"
        "  input  logic [{0}:0] leaf_i,\n"
        "  /// Max tree: leaf i is available (not yet popped by the max tree).\n"
        "  input  logic [{1}:0] max_avail_i,\n"
        "  /// Min tree: leaf i is available (not yet popped by the min tree).\n"
        "  input  logic [{1}:0] min_avail_i,\n",
        R * 16 - 1, R - 1);
  } else {
    for (const char* side : {"max", "min"}) {
      s += fmt::format(
          "  /// {0} tree: child i's winner, binary16, at [i*16 +: 16].\n"
          "  input  logic [{1}:0] {0}_val_i,\n"
          "  /// {0} tree: child i's winner is available.\n"
          "  input  logic [{2}:0] {0}_avail_i,\n"
          "  /// {0} tree: child i's winner's index in its subtree, at [i*ChildIndexBits +: "
          "ChildIndexBits].\n"
          "  input  logic [{3}*ChildIndexBits-1:0] {0}_idx_i,\n",
          side, R * 16 - 1, R - 1, R);
    }
  }
  for (const char* side : {"max", "min"}) {
    s += fmt::format(
        "  /// {0} tree: this unit's root is on the popped path this cycle.\n"
        "  input  logic {0}_pop_i,\n",
        side);
  }
  for (const char* side : {"max", "min"}) {
    s += fmt::format(
        "  /// {0} tree: {1} i is on the popped path this cycle.\n"
        "  output logic [{2}:0] {0}_{3}_o,\n",
        side, leaf ? "leaf" : "child", R - 1, leaf ? "clear" : "pop");
  }
  for (const char* side : {"max", "min"}) {
    s += fmt::format(
        "  /// {0} tree: the unit's winner, binary16 (after this cycle's bit updates).\n"
        "  output logic [15:0] {0}_val_o,\n"
        "  /// {0} tree: the unit's winner is available.\n"
        "  output logic {0}_avail_o,\n"
        "  /// {0} tree: the winner's index in this unit's subtree, most significant bit first.\n"
        "  output logic [{1}-1:0] {0}_idx_o{2}\n",
        side, idx_width(leaf, r), side == string("max") ? "," : "");
  }
  s += ");\n\n";

  for (int j = 0; j < r; ++j) {
    const int n = R >> (j + 1);
    for (const char* side : {"max", "min"}) {
      s += fmt::format("  // Level {0}, {1} tree: {2} node(s).\n", j, side, n);
      s += fmt::format("  logic [{0}:0] l{1}_{2}_bit_q, l{1}_{2}_bit_d, l{1}_{2}_en, l{1}_{2}_avail;\n",
                       n - 1, j, side);
      s += fmt::format("  logic [{0}:0] l{1}_{2}_val;\n", n * 16 - 1, j, side);
      s += fmt::format("  logic [{0}*{1}-1:0] l{2}_{3}_idx;\n", n, idx_width(leaf, j + 1), j, side);
    }
  }
  s += "\n";

  for (int j = 0; j < r; ++j) {
    const int n = R >> (j + 1);
    if (leaf && j == 0) {
      s += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_l0\n", n);
      s += "    logic gt;\n    logic unused_lt;\n    logic unused_eq;\n";
      s += fmt::format(
          "    {} u_cmp (\n"
          "      .a_i (leaf_i[(2*i+1)*16 +: 16]),\n"
          "      .b_i (leaf_i[2*i*16 +: 16]),\n"
          "      .lt_o(unused_lt),\n"
          "      .eq_o(unused_eq),\n"
          "      .gt_o(gt)\n"
          "    );\n",
          cmp_module(c));
      for (const char* side : {"max", "min"}) {
        const string cond = side == string("max") ? "gt" : "!gt";
        s += fmt::format(
            "    assign l0_{0}_bit_d[i] = (build_i[0] || l0_{0}_en[i])\n"
            "        ? ({0}_avail_i[2*i+1] && (!{0}_avail_i[2*i] || {1})) : l0_{0}_bit_q[i];\n"
            "    assign l0_{0}_val[i*16 +: 16] = l0_{0}_bit_d[i] ? leaf_i[(2*i+1)*16 +: 16]\n"
            "                                                : leaf_i[2*i*16 +: 16];\n"
            "    assign l0_{0}_avail[i] = {0}_avail_i[2*i] || {0}_avail_i[2*i+1];\n"
            "    assign l0_{0}_idx[i] = l0_{0}_bit_d[i];\n",
            side, cond);
      }
      s += "  end\n\n";
      continue;
    }
    for (const char* side : {"max", "min"}) {
      const bool is_max = side == string("max");
      string src_val, src_avail, src_idx, ws;
      if (j == 0) {
        src_val = fmt::format("{}_val_i", side);
        src_avail = fmt::format("{}_avail_i", side);
        src_idx = fmt::format("{}_idx_i", side);
        ws = "ChildIndexBits";
      } else {
        src_val = fmt::format("l{}_{}_val", j - 1, side);
        src_avail = fmt::format("l{}_{}_avail", j - 1, side);
        src_idx = fmt::format("l{}_{}_idx", j - 1, side);
        ws = idx_width(leaf, j);
      }
      const string w = idx_width(leaf, j + 1);
      s += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_l{}_{}\n", n, j, side);
      s += is_max ? "    logic gt;\n    logic unused_lt;\n    logic unused_eq;\n"
                  : "    logic lt;\n    logic eq;\n    logic unused_gt;\n";
      s += fmt::format(
          "    {0} u_cmp (\n"
          "      .a_i ({1}[(2*i+1)*16 +: 16]),\n"
          "      .b_i ({1}[2*i*16 +: 16]),\n"
          "      .lt_o({2}),\n"
          "      .eq_o({3}),\n"
          "      .gt_o({4})\n"
          "    );\n",
          cmp_module(c), src_val, is_max ? "unused_lt" : "lt", is_max ? "unused_eq" : "eq",
          is_max ? "gt" : "unused_gt");
      s += fmt::format(
          "    assign l{0}_{1}_bit_d[i] = (build_i[{0}] || l{0}_{1}_en[i])\n"
          "        ? ({2}[2*i+1] && (!{2}[2*i] || {3})) : l{0}_{1}_bit_q[i];\n"
          "    assign l{0}_{1}_val[i*16 +: 16] = l{0}_{1}_bit_d[i] ? {4}[(2*i+1)*16 +: 16]\n"
          "                                              : {4}[2*i*16 +: 16];\n"
          "    assign l{0}_{1}_avail[i] = {2}[2*i] || {2}[2*i+1];\n"
          "    assign l{0}_{1}_idx[i*{5} +: {5}] = {{l{0}_{1}_bit_d[i],\n"
          "        l{0}_{1}_bit_d[i] ? {6}[(2*i+1)*{7} +: {7}] : {6}[2*i*{7} +: {7}]}};\n",
          j, side, src_avail, is_max ? "gt" : "(lt || eq)", src_val, w, src_idx, ws);
      s += "  end\n\n";
    }
  }

  // Pops walk down the current bits from the unit's root.
  for (const char* side : {"max", "min"}) {
    s += fmt::format("  assign l{}_{}_en = {}_pop_i;\n", r - 1, side, side);
    for (int j = r - 2; j >= 0; --j) {
      const int n = R >> (j + 1);
      s += fmt::format(
          "  for (genvar i = 0; i < {0}; i++) begin : g_en{1}_{2}\n"
          "    assign l{1}_{2}_en[i] = l{3}_{2}_en[i/2]\n"
          "        && ((i % 2 == 1) ? l{3}_{2}_bit_q[i/2] : !l{3}_{2}_bit_q[i/2]);\n"
          "  end\n",
          n, j, side, j + 1);
    }
    s += fmt::format(
        "  for (genvar i = 0; i < {0}; i++) begin : g_out_{1}\n"
        "    assign {1}_{2}_o[2*i]   = l0_{1}_en[i] && !l0_{1}_bit_q[i];\n"
        "    assign {1}_{2}_o[2*i+1] = l0_{1}_en[i] && l0_{1}_bit_q[i];\n"
        "  end\n",
        R / 2, side, leaf ? "clear" : "pop");
    s += fmt::format(
        "  assign {0}_val_o   = l{1}_{0}_val;\n"
        "  assign {0}_avail_o = l{1}_{0}_avail;\n"
        "  assign {0}_idx_o   = l{1}_{0}_idx;\n\n",
        side, r - 1);
  }

  s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n    if (!rst_ni) begin\n";
  for (int j = 0; j < r; ++j) {
    for (const char* side : {"max", "min"}) s += fmt::format("      l{}_{}_bit_q <= '0;\n", j, side);
  }
  s += "    end else begin\n";
  for (int j = 0; j < r; ++j) {
    for (const char* side : {"max", "min"}) {
      s += fmt::format("      l{0}_{1}_bit_q <= l{0}_{1}_bit_d;\n", j, side);
    }
  }
  s += "    end\n  end\n\nendmodule\n";
  return s;
}

// The tree of units: layer 0 holds the leaf units, each further layer units
// over up to R winners of the layer below, the last layer one unit.
string orizuru_core(const Config& c, const OrizuruTiming& t) {
  const int R = t.unit_inputs;
  const int r = t.unit_levels;
  const int T = t.layers;
  const int sw = index_width(t.build_cycles);
  string s;
  for (int l = 0; l < T; ++l) {
    const int u = t.units_per_layer[size_t(l)];
    const int w = r * (l + 1);
    s += fmt::format("  // Layer {0}: {1} unit(s), heights {2}..{3} of the tree.\n", l, u,
                     l * r + 1, l * r + r);
    s += fmt::format("  logic [{}:0] build_l{};\n", r - 1, l);
    for (const char* side : {"max", "min"}) {
      s += fmt::format("  logic [{0}:0] l{1}_{2}_val;\n  logic [{3}:0] l{1}_{2}_avail, l{1}_{2}_pop;\n",
                       u * 16 - 1, l, side, u - 1);
      s += fmt::format("  logic [{0}:0] l{1}_{2}_idx;\n", u * w - 1, l, side);
      if (l > 0) {
        const int cw = r * l;
        s += fmt::format("  logic [{0}:0] l{1}_{2}_child_val;\n", u * R * 16 - 1, l, side);
        s += fmt::format("  logic [{0}:0] l{1}_{2}_child_avail, l{1}_{2}_child_pop;\n", u * R - 1, l,
                         side);
        s += fmt::format("  logic [{0}:0] l{1}_{2}_child_idx;\n", u * R * cw - 1, l, side);
      }
    }
  }
  s += "\n";
  for (int l = 0; l < T; ++l) {
    for (int j = 0; j < r; ++j) {
      const int stage = (l * r + j) / t.levels_per_stage;
      s += fmt::format("  assign build_l{}[{}] = building && (stage_q == {}'d{});\n", l, j, sw, stage);
    }
  }
  s += "\n";
  for (int l = 1; l < T; ++l) {
    const int u = t.units_per_layer[size_t(l)];
    const int below = t.units_per_layer[size_t(l - 1)];
    const int pad = u * R - below;
    const int cw = r * l;
    for (const char* side : {"max", "min"}) {
      if (pad > 0) {
        s += fmt::format("  assign l{0}_{1}_child_val   = {{{2}'d0, l{3}_{1}_val}};\n", l, side,
                         pad * 16, l - 1);
        s += fmt::format("  assign l{0}_{1}_child_avail = {{{2}'d0, l{3}_{1}_avail}};\n", l, side,
                         pad, l - 1);
        s += fmt::format("  assign l{0}_{1}_child_idx   = {{{2}'d0, l{3}_{1}_idx}};\n", l, side,
                         pad * cw, l - 1);
        s += fmt::format("  assign l{0}_{1}_pop = l{2}_{1}_child_pop[{3}:0];\n", l - 1, side, l,
                         below - 1);
        s += fmt::format("  logic unused_l{0}_{1}_pad_pop;\n", l, side);
        s += fmt::format("  assign unused_l{0}_{1}_pad_pop = ^l{0}_{1}_child_pop[{2}:{3}];\n", l,
                         side, u * R - 1, below);
      } else {
        s += fmt::format("  assign l{0}_{1}_child_val   = l{2}_{1}_val;\n", l, side, l - 1);
        s += fmt::format("  assign l{0}_{1}_child_avail = l{2}_{1}_avail;\n", l, side, l - 1);
        s += fmt::format("  assign l{0}_{1}_child_idx   = l{2}_{1}_idx;\n", l, side, l - 1);
        s += fmt::format("  assign l{0}_{1}_pop = l{2}_{1}_child_pop;\n", l - 1, side, l);
      }
    }
  }
  s += fmt::format("  assign l{0}_max_pop = pop_max;\n  assign l{0}_min_pop = pop_min;\n\n", T - 1);

  const string leaf_mod = module_name(c, "orizuru") + "_leaf_unit";
  const string unit_mod = module_name(c, "orizuru") + "_unit";
  s += loop_open("u", t.units_per_layer[0], "g_layer0");
  s += fmt::format(
      "    {0} u_unit (\n"
      "      .clk_i,\n"
      "      .rst_ni,\n"
      "      .build_i    (build_l0),\n"
      "      .leaf_i     (leaf_q[u*{1} +: {1}]),\n"
      "      .max_avail_i(max_avail_d[u*{2} +: {2}]),\n"
      "      .min_avail_i(min_avail_d[u*{2} +: {2}]),\n"
      "      .max_pop_i  (l0_max_pop[u]),\n"
      "      .min_pop_i  (l0_min_pop[u]),\n"
      "      .max_clear_o(max_clear[u*{2} +: {2}]),\n"
      "      .min_clear_o(min_clear[u*{2} +: {2}]),\n"
      "      .max_val_o  (l0_max_val[u*16 +: 16]),\n"
      "      .max_avail_o(l0_max_avail[u]),\n"
      "      .max_idx_o  (l0_max_idx[u*{3} +: {3}]),\n"
      "      .min_val_o  (l0_min_val[u*16 +: 16]),\n"
      "      .min_avail_o(l0_min_avail[u]),\n"
      "      .min_idx_o  (l0_min_idx[u*{3} +: {3}])\n"
      "    );\n",
      leaf_mod, R * 16, R, r);
  s += loop_close(t.units_per_layer[0]);
  for (int l = 1; l < T; ++l) {
    const int cw = r * l;
    const int w = r * (l + 1);
    s += loop_open("u", t.units_per_layer[size_t(l)], fmt::format("g_layer{}", l));
    s += fmt::format(
        "    {0} #(\n"
        "      .ChildIndexBits({1})\n"
        "    ) u_unit (\n"
        "      .clk_i,\n"
        "      .rst_ni,\n"
        "      .build_i    (build_l{2}),\n",
        unit_mod, cw, l);
    for (const char* side : {"max", "min"}) {
      s += fmt::format(
          "      .{0}_val_i  (l{1}_{0}_child_val[u*{2} +: {2}]),\n"
          "      .{0}_avail_i(l{1}_{0}_child_avail[u*{3} +: {3}]),\n"
          "      .{0}_idx_i  (l{1}_{0}_child_idx[u*{4} +: {4}]),\n",
          side, l, R * 16, R, R * cw);
    }
    s += fmt::format(
        "      .max_pop_i  (l{0}_max_pop[u]),\n"
        "      .min_pop_i  (l{0}_min_pop[u]),\n"
        "      .max_pop_o  (l{0}_max_child_pop[u*{1} +: {1}]),\n"
        "      .min_pop_o  (l{0}_min_child_pop[u*{1} +: {1}]),\n"
        "      .max_val_o  (l{0}_max_val[u*16 +: 16]),\n"
        "      .max_avail_o(l{0}_max_avail[u]),\n"
        "      .max_idx_o  (l{0}_max_idx[u*{2} +: {2}]),\n"
        "      .min_val_o  (l{0}_min_val[u*16 +: 16]),\n"
        "      .min_avail_o(l{0}_min_avail[u]),\n"
        "      .min_idx_o  (l{0}_min_idx[u*{2} +: {2}])\n"
        "    );\n",
        l, R, w);
    s += loop_close(t.units_per_layer[size_t(l)]);
  }
  // The root: its index is the channel (padding makes it wider than needed).
  const int w = r * T;
  s += fmt::format(
      "\n  assign root_max_val = l{0}_max_val;\n"
      "  assign root_min_val = l{0}_min_val;\n"
      "  assign root_max_chan = l{0}_max_idx[{1}:0];\n"
      "  assign root_min_chan = l{0}_min_idx[{1}:0];\n",
      T - 1, t.channel_bits - 1);
  string unused = fmt::format("l{0}_max_avail, l{0}_min_avail", T - 1);
  if (w > t.channel_bits) {
    unused += fmt::format(", l{0}_max_idx[{1}:{2}], l{0}_min_idx[{1}:{2}]", T - 1, w - 1,
                          t.channel_bits);
  }
  s += fmt::format(
      "  // The root is always available while draining; the index bits above the\n"
      "  // channel width only address padding.\n"
      "  logic unused_root;\n"
      "  assign unused_root = ^{{{}}};\n",
      unused);
  return s;
}

// The baseline: the whole masked vector reduced to its max and its min every
// cycle by two pairwise trees (same tie rules), the winners' masks cleared.
string baseline_core(const Config& c, const OrizuruTiming& t) {
  const int cw = t.channel_bits;
  string s;
  s += fmt::format("  logic [{}:0] b0_chan;\n", t.padded_leaves * cw - 1);
  s += loop_open("i", t.padded_leaves, "g_chan");
  s += fmt::format("    assign b0_chan[i*{0} +: {0}] = {0}'(i);\n", cw);
  s += loop_close(t.padded_leaves);
  int m = t.padded_leaves;
  int level = 0;
  for (const char* side : {"max", "min"}) {
    s += fmt::format("  logic [{0}:0] b0_{1}_val;\n  logic [{2}:0] b0_{1}_avail;\n", m * 16 - 1, side,
                     m - 1);
    s += fmt::format("  assign b0_{0}_val = leaf_q;\n  assign b0_{0}_avail = {0}_avail_d;\n", side);
  }
  while (m > 1) {
    const int next = (m + 1) / 2;
    const int pairs = m / 2;
    const int j = level + 1;
    for (const char* side : {"max", "min"}) {
      const bool is_max = side == string("max");
      s += fmt::format("  logic [{0}:0] b{1}_{2}_val;\n  logic [{3}:0] b{1}_{2}_avail;\n", next * 16 - 1,
                       j, side, next - 1);
      s += fmt::format("  logic [{0}:0] b{1}_{2}_chan;\n", next * cw - 1, j, side);
      const string chan = level == 0 ? "b0_chan" : fmt::format("b{}_{}_chan", level, side);
      s += loop_open("i", pairs, fmt::format("g_b{}_{}", j, side));
      s += is_max ? "    logic gt;\n    logic unused_lt;\n    logic unused_eq;\n"
                  : "    logic lt;\n    logic eq;\n    logic unused_gt;\n";
      s += "    logic right;\n";
      s += fmt::format(
          "    {0} u_cmp (\n"
          "      .a_i (b{1}_{2}_val[(2*i+1)*16 +: 16]),\n"
          "      .b_i (b{1}_{2}_val[2*i*16 +: 16]),\n"
          "      .lt_o({3}),\n"
          "      .eq_o({4}),\n"
          "      .gt_o({5})\n"
          "    );\n",
          cmp_module(c), level, side, is_max ? "unused_lt" : "lt", is_max ? "unused_eq" : "eq",
          is_max ? "gt" : "unused_gt");
      s += fmt::format(
          "    assign right = b{0}_{1}_avail[2*i+1] && (!b{0}_{1}_avail[2*i] || {2});\n"
          "    assign b{3}_{1}_val[i*16 +: 16] = right ? b{0}_{1}_val[(2*i+1)*16 +: 16]\n"
          "                                       : b{0}_{1}_val[2*i*16 +: 16];\n"
          "    assign b{3}_{1}_avail[i] = b{0}_{1}_avail[2*i] || b{0}_{1}_avail[2*i+1];\n"
          "    assign b{3}_{1}_chan[i*{4} +: {4}] = right ? {5}[(2*i+1)*{4} +: {4}]\n"
          "                                     : {5}[2*i*{4} +: {4}];\n",
          level, side, is_max ? "gt" : "(lt || eq)", j, cw, chan);
      s += loop_close(pairs);
      if (m % 2 == 1) {
        s += fmt::format(
            "  assign b{0}_{1}_val[{2}*16 +: 16] = b{3}_{1}_val[{4}*16 +: 16];\n"
            "  assign b{0}_{1}_avail[{2}] = b{3}_{1}_avail[{4}];\n"
            "  assign b{0}_{1}_chan[{2}*{5} +: {5}] = {6}[{4}*{5} +: {5}];\n",
            j, side, pairs, level, m - 1, cw, chan);
      }
    }
    m = next;
    ++level;
  }
  s += fmt::format(
      "  assign root_max_val = b{0}_max_val;\n"
      "  assign root_min_val = b{0}_min_val;\n"
      "  assign root_max_chan = b{0}_max_chan;\n"
      "  assign root_min_chan = b{0}_min_chan;\n"
      "  // The root is always available while draining.\n"
      "  logic unused_root;\n"
      "  assign unused_root = ^{{b{0}_max_avail, b{0}_min_avail}};\n"
      "  // Stage and build flags only matter to the tree's level-by-level build.\n"
      "  logic unused_building;\n"
      "  assign unused_building = building;\n",
      level);
  s += loop_open("i", t.padded_leaves, "g_clear");
  s += fmt::format(
      "    assign max_clear[i] = pop_max && (max_chan_q == {0}'(i));\n"
      "    assign min_clear[i] = pop_min && (min_chan_q == {0}'(i));\n",
      cw);
  s += loop_close(t.padded_leaves);
  return s;
}

}  // namespace

// The token interface and the load / build / drain handshake around a core.
string topk_top_module(const OrizuruTiming& t, const string& module,
                  const string& what, const string& core) {
  const int B = t.beat_activations;
  const int bw = index_width(t.beats);
  const int sw = index_width(t.build_cycles);
  const int kw = index_width(2 * t.k);
  const int cw = t.channel_bits;
  const int nb = t.padded_leaves;
  string valid_mask = fmt::format("{}'b", nb);
  for (int i = nb - 1; i >= 0; --i) valid_mask += i < t.channels ? '1' : '0';
  string s = fmt::format(
      "{0}"
      "/// Token in: {1} beat(s) of {2} binary16 activations (channel beat*{2} + i at\n"
      "/// [i*16 +: 16]; channels past {3} are padding and never output). Then {4} build\n"
      "/// cycle(s), then the {5} outliers out, one per cycle while out_ready_i is set, in\n"
      "/// the order max_1, min_1, max_2, min_2, ... A new token is taken only after the\n"
      "/// last outlier of the previous one has gone (in_ready_o is low meanwhile).\n"
      "module {6} (\n"
      "  /// Clock.\n"
      "  input  logic clk_i,\n"
      "  /// Asynchronous reset, active low.\n"
      "  input  logic rst_ni,\n"
      "  /// A beat of the token is offered.\n"
      "  input  logic in_valid_i,\n"
      "  /// The engine takes the offered beat this cycle.\n"
      "  output logic in_ready_o,\n"
      "  /// The beat: activation i, binary16, at [i*16 +: 16].\n"
      "  input  logic [{7}:0] in_data_i,\n"
      "  /// An outlier is presented.\n"
      "  output logic out_valid_o,\n"
      "  /// The consumer takes the presented outlier this cycle.\n"
      "  input  logic out_ready_i,\n"
      "  /// The outlier: [{8}] side (0 max, 1 min), [{9}:{10}] binary16 value as loaded,\n"
      "  /// [{11}:0] channel.\n"
      "  output logic [{8}:0] out_data_o\n"
      ");\n\n",
      what, t.beats, B, t.channels, t.build_cycles, 2 * t.k, module, B * 16 - 1, cw + 16,
      cw + 15, cw, cw - 1);
  s += fmt::format(
      "  /// Leaves that hold a channel (the others are padding, never available).\n"
      "  localparam logic [{0}:0] ValidMask = {1};\n"
      "  localparam logic [1:0] StLoad  = 2'd0;\n"
      "  localparam logic [1:0] StBuild = 2'd1;\n"
      "  localparam logic [1:0] StDrain = 2'd2;\n\n"
      "  logic [1:0] state_q, state_d;\n"
      "  logic [{2}:0] beat_q, beat_d;\n"
      "  logic [{3}:0] stage_q, stage_d;\n"
      "  logic [{4}:0] count_q, count_d;\n"
      "  logic [{5}:0] leaf_q;\n"
      "  logic [{0}:0] max_avail_q, max_avail_d, min_avail_q, min_avail_d;\n"
      "  logic [{0}:0] max_clear, min_clear;\n"
      "  logic [15:0] max_val_q, min_val_q, root_max_val, root_min_val;\n"
      "  logic [{6}:0] max_chan_q, min_chan_q, root_max_chan, root_min_chan;\n"
      "  logic in_fire, out_fire, side, pop_max, pop_min, building;\n\n",
      nb - 1, valid_mask, bw - 1, sw - 1, kw - 1, nb * 16 - 1, cw - 1);
  s += fmt::format(
      "  assign in_ready_o  = state_q == StLoad;\n"
      "  assign in_fire     = in_valid_i && in_ready_o;\n"
      "  assign out_valid_o = state_q == StDrain;\n"
      "  assign out_fire    = out_valid_o && out_ready_i;\n"
      "  assign side        = count_q[0];\n"
      "  assign pop_max     = out_fire && !side;\n"
      "  assign pop_min     = out_fire && side;\n"
      "  assign building    = state_q == StBuild;\n"
      "  assign out_data_o  = side ? {{1'b1, min_val_q, min_chan_q}} : {{1'b0, max_val_q, max_chan_q}};\n\n");
  s += core;
  s += fmt::format(
      "\n  always_comb begin\n"
      "    state_d     = state_q;\n"
      "    beat_d      = beat_q;\n"
      "    stage_d     = stage_q;\n"
      "    count_d     = count_q;\n"
      "    max_avail_d = max_avail_q & ~max_clear;\n"
      "    min_avail_d = min_avail_q & ~min_clear;\n"
      "    unique case (state_q)\n"
      "      StLoad: begin\n"
      "        if (in_fire) begin\n"
      "          max_avail_d = ValidMask;\n"
      "          min_avail_d = ValidMask;\n"
      "          if (beat_q == {1}'d{2}) begin\n"
      "            beat_d  = '0;\n"
      "            stage_d = '0;\n"
      "            state_d = StBuild;\n"
      "          end else begin\n"
      "            beat_d = beat_q + {1}'d1;\n"
      "          end\n"
      "        end\n"
      "      end\n"
      "      StBuild: begin\n"
      "        if (stage_q == {3}'d{4}) begin\n"
      "          count_d = '0;\n"
      "          state_d = StDrain;\n"
      "        end else begin\n"
      "          stage_d = stage_q + {3}'d1;\n"
      "        end\n"
      "      end\n"
      "      StDrain: begin\n"
      "        if (out_fire) begin\n"
      "          if (count_q == {5}'d{6}) begin\n"
      "            count_d = '0;\n"
      "            state_d = StLoad;\n"
      "          end else begin\n"
      "            count_d = count_q + {5}'d1;\n"
      "          end\n"
      "        end\n"
      "      end\n"
      "      default: state_d = StLoad;\n"
      "    endcase\n"
      "  end\n\n",
      B * 16, bw, t.beats - 1, sw, t.build_cycles - 1, kw, 2 * t.k - 1);
  s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "    if (!rst_ni) begin\n"
       "      state_q     <= StLoad;\n"
       "      beat_q      <= '0;\n"
       "      stage_q     <= '0;\n"
       "      count_q     <= '0;\n"

       "      max_val_q   <= '0;\n"
       "      min_val_q   <= '0;\n"
       "      max_chan_q  <= '0;\n"
       "      min_chan_q  <= '0;\n"
       "    end else begin\n"
       "      state_q     <= state_d;\n"
       "      beat_q      <= beat_d;\n"
       "      stage_q     <= stage_d;\n"
       "      count_q     <= count_d;\n"

       "      max_val_q   <= root_max_val;\n"
       "      min_val_q   <= root_min_val;\n"
       "      max_chan_q  <= root_max_chan;\n"
       "      min_chan_q  <= root_min_chan;\n"
       "    end\n"
       "  end\n\n";
  // The leaves and masks, one register block per beat (a single reset of
  // thousands of bits is one replication too wide for lint). A beat's leaves
  // are written only when that beat is taken: a decoded enable per beat
  // rather than a write at a variable offset into the whole token, which
  // Yosys would turn into a shifter as wide as the token.
  s += fmt::format(
      "{0}"
      "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
      "      if (!rst_ni) begin\n"
      "        leaf_q[b*{1} +: {1}]      <= '0;\n"
      "        max_avail_q[b*{2} +: {2}] <= '0;\n"
      "        min_avail_q[b*{2} +: {2}] <= '0;\n"
      "      end else begin\n"
      "        if (in_fire && beat_q == {4}'(b)) leaf_q[b*{1} +: {1}] <= in_data_i;\n"
      "        max_avail_q[b*{2} +: {2}] <= max_avail_d[b*{2} +: {2}];\n"
      "        min_avail_q[b*{2} +: {2}] <= min_avail_d[b*{2} +: {2}];\n"
      "      end\n"
      "    end\n"
      "{3}\n"
      "endmodule\n",
      loop_open("b", t.beats, "g_leaf"), B * 16, B, loop_close(t.beats), bw);
  return s;
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
  m["cycles_per_token"] = t.cycles_per_token;
  m["comparisons_per_token"] = t.comparisons_per_token;
  m["load_while_draining"] = false;
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
    out.files.push_back({base + "_leaf_unit.sv", unit_module(c, t, true)});
    if (t.layers > 1) out.files.push_back({base + "_unit.sv", unit_module(c, t, false)});
    const string what = fmt::format(
        "/// Orizuru (paper IV-D, docs/spec.md section 5): the k = {0} largest and k smallest of\n"
        "/// a token of N = {1} activations by a max tree and a min tree over shared leaves,\n"
        "/// {2} unit(s) of {3} inputs in {4} layer(s), {5} comparator level(s) per build cycle.\n"
        "/// Ties: max to the lower channel, min to the higher; popped leaves are unavailable.\n",
        t.k, t.channels, t.units, t.unit_inputs, t.layers, t.levels_per_stage);
    out.files.push_back({base + ".sv", topk_top_module(t, base, what, orizuru_core(c, t))});
    out.manifest = topk_timing_manifest(t);
    // Padding leaves and units make some instances idle; synthesis removes them.
    int64_t instances = 0;
    for (int l = 0; l < t.layers; ++l) {
      const int64_t u = t.units_per_layer[size_t(l)];
      const int64_t per_unit = l == 0 ? t.unit_inputs / 2 + 2 * (t.unit_inputs / 2 - 1)
                                      : 2 * (t.unit_inputs - 1);
      instances += u * per_unit;
    }
    out.manifest["comparator_instances"] = instances;
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
        "/// Top-k baseline for Orizuru: the k = {0} largest and k smallest of a token of\n"
        "/// N = {1} activations by reducing the whole masked vector to its max and its min\n"
        "/// every cycle (two pairwise trees, ties as in Orizuru), k rounds.\n",
        t.k, t.channels);
    out.files.push_back({base + ".sv", topk_top_module(t, base, what, baseline_core(c, t))});
    out.manifest = topk_timing_manifest(t);
    out.manifest.erase("units");
    out.manifest.erase("units_per_layer");
    out.manifest.erase("tree_levels");
    return out;
  }
};

OASIS_REGISTER_BLOCK(Orizuru);
OASIS_REGISTER_BLOCK(TopkBaseline);

}  // namespace
}  // namespace oasis::gen
