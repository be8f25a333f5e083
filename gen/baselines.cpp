// The baselines the OASIS blocks are measured against in synthesis
// (make synth, docs/synth.md):
// - mac_line_baseline: an FP16 dequantize-and-MAC line (paper Fig. 1c) with
//   the PE line's throughput: ceil(K / row interval) multiply-accumulates a
//   cycle. Model: model/mac_line_baseline.hpp; test:
//   verif/tb/mac_line_baseline_tb.cpp.
// - topk_sort_baseline: Orizuru's interface and handshake around a bitonic
//   sorting network over the token, in Orizuru's order. Model:
//   model/topk_sort_baseline.hpp (outputs equal orizuru_topk's); test:
//   verif/tb/topk_sort_baseline_tb.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/orizuru.hpp"
#include "model/mac_line_baseline.hpp"
#include "model/topk_sort_baseline.hpp"

namespace oasis::gen {
namespace {

// ---- Sorting-network top-k ----------------------------------------------

string ce_module(const Config& c, int cw) {
  return fmt::format(
      "/// Compare-exchange of the sorting-network top-k baseline: the hi outputs get the\n"
      "/// higher-ranked of the two records in Orizuru's order (an available record above an\n"
      "/// unavailable one; then by order key; equal keys: the lower channel ranks higher),\n"
      "/// the lo outputs the other.\n"
      "module {0} (\n"
      "  /// The record at the position that receives the higher-ranked one: value (binary16).\n"
      "  input  logic [15:0] a_val_i,\n"
      "  /// Its channel.\n"
      "  input  logic [{2}:0] a_chan_i,\n"
      "  /// It holds a channel (padding does not).\n"
      "  input  logic        a_avail_i,\n"
      "  /// The record at the other position: value.\n"
      "  input  logic [15:0] b_val_i,\n"
      "  /// Its channel.\n"
      "  input  logic [{2}:0] b_chan_i,\n"
      "  /// It holds a channel.\n"
      "  input  logic        b_avail_i,\n"
      "  /// The higher-ranked record: value.\n"
      "  output logic [15:0] hi_val_o,\n"
      "  /// Its channel.\n"
      "  output logic [{2}:0] hi_chan_o,\n"
      "  /// Its availability.\n"
      "  output logic        hi_avail_o,\n"
      "  /// The other record: value.\n"
      "  output logic [15:0] lo_val_o,\n"
      "  /// Its channel.\n"
      "  output logic [{2}:0] lo_chan_o,\n"
      "  /// Its availability.\n"
      "  output logic        lo_avail_o\n"
      ");\n\n"
      "  logic gt, eq, unused_lt, swap;\n"
      "  {1} u_cmp (\n"
      "    .a_i (b_val_i),\n"
      "    .b_i (a_val_i),\n"
      "    .lt_o(unused_lt),\n"
      "    .eq_o(eq),\n"
      "    .gt_o(gt)\n"
      "  );\n"
      "  // b ranks above a: swap.\n"
      "  assign swap = b_avail_i && (!a_avail_i || gt || (eq && b_chan_i < a_chan_i));\n"
      "  assign hi_val_o   = swap ? b_val_i : a_val_i;\n"
      "  assign hi_chan_o  = swap ? b_chan_i : a_chan_i;\n"
      "  assign hi_avail_o = swap ? b_avail_i : a_avail_i;\n"
      "  assign lo_val_o   = swap ? a_val_i : b_val_i;\n"
      "  assign lo_chan_o  = swap ? a_chan_i : b_chan_i;\n"
      "  assign lo_avail_o = swap ? a_avail_i : b_avail_i;\n\n"
      "endmodule\n",
      module_name(c, "topk_sort_baseline") + "_ce", module_name(c, "comparator"), cw - 1);
}

int pow2_at_least(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The network over the leaves, and the pointer muxes that pick the next
// outlier of each side from its sorted output.
string sort_core(const Config& c, const OrizuruTiming& t) {
  const int cw = t.channel_bits;
  const int nb = t.padded_leaves;
  const int P = pow2_at_least(nb);
  const int N = t.channels;
  const int k = t.k;
  const int kw = index_width(2 * k);
  const int pw = kw + 1;
  string s;
  s += fmt::format(
      "  // The sorting network: {0} positions (the {1} leaves, then unavailable padding),\n"
      "  // a bitonic network of {2} stages; position 0 ends highest in Orizuru's order.\n"
      "  logic [{3}:0] s0_val;\n  logic [{4}:0] s0_chan;\n  logic [{5}:0] s0_avail;\n",
      P, nb, 0, P * 16 - 1, P * cw - 1, P - 1);
  if (P > nb) {
    s += fmt::format("  assign s0_val = {{{}'(0), leaf_q}};\n", (P - nb) * 16);
    s += fmt::format("  assign s0_avail = {{{}'(0), ValidMask}};\n", P - nb);
  } else {
    s += "  assign s0_val = leaf_q;\n  assign s0_avail = ValidMask;\n";
  }
  s += loop_open("i", P, "g_chan");
  s += fmt::format("    assign s0_chan[i*{0} +: {0}] = {0}'(i);\n", cw);
  s += loop_close(P);
  int stage = 0;
  for (int b = 2; b <= P; b *= 2) {
    for (int j = b / 2; j >= 1; j /= 2) {
      const int n = stage + 1;
      s += fmt::format(
          "  // Stage {0}: block {1}, distance {2}.\n"
          "  logic [{3}:0] s{0}_val;\n  logic [{4}:0] s{0}_chan;\n  logic [{5}:0] s{0}_avail;\n",
          n, b, j, P * 16 - 1, P * cw - 1, P - 1);
      s += loop_open("p", P / 2, fmt::format("g_s{}", n));
      s += fmt::format(
          "    localparam int I  = (p / {0}) * {1} + p % {0};\n"
          "    localparam int Hi = (I & {2}) == 0 ? I : I + {0};\n"
          "    localparam int Lo = (I & {2}) == 0 ? I + {0} : I;\n"
          "    {3} u_ce (\n"
          "      .a_val_i   (s{4}_val[Hi*16 +: 16]),\n"
          "      .a_chan_i  (s{4}_chan[Hi*{5} +: {5}]),\n"
          "      .a_avail_i (s{4}_avail[Hi]),\n"
          "      .b_val_i   (s{4}_val[Lo*16 +: 16]),\n"
          "      .b_chan_i  (s{4}_chan[Lo*{5} +: {5}]),\n"
          "      .b_avail_i (s{4}_avail[Lo]),\n"
          "      .hi_val_o  (s{6}_val[Hi*16 +: 16]),\n"
          "      .hi_chan_o (s{6}_chan[Hi*{5} +: {5}]),\n"
          "      .hi_avail_o(s{6}_avail[Hi]),\n"
          "      .lo_val_o  (s{6}_val[Lo*16 +: 16]),\n"
          "      .lo_chan_o (s{6}_chan[Lo*{5} +: {5}]),\n"
          "      .lo_avail_o(s{6}_avail[Lo])\n"
          "    );\n",
          j, 2 * j, b, module_name(c, "topk_sort_baseline") + "_ce", stage, cw, n);
      s += loop_close(P / 2);
      stage = n;
    }
  }
  // Selection: max_i at sorted position i-1, min_i at N-i; the pointers count
  // the outliers of each side taken, this cycle's included.
  s += fmt::format(
      "  // The next outlier of each side: max_i sits at position i-1, min_i at {0}-i. The\n"
      "  // pointers count each side's outliers taken, this cycle's included.\n"
      "  logic [{1}:0] max_ptr, min_ptr;\n"
      "  assign max_ptr = ((({2}'(count_q) + {2}'(1)) >> 1) + {2}'(pop_max));\n"
      "  assign min_ptr = ({2}'(count_q) >> 1) + {2}'(pop_min);\n"
      "  always_comb begin\n"
      "    root_max_val  = s{3}_val[15:0];\n"
      "    root_max_chan = s{3}_chan[{4}:0];\n"
      "    root_min_val  = s{3}_val[{5}*16 +: 16];\n"
      "    root_min_chan = s{3}_chan[{5}*{6} +: {6}];\n"
      "    for (int i = 1; i < {7}; i++) begin\n"
      "      if (max_ptr == {2}'(i)) begin\n"
      "        root_max_val  = s{3}_val[i*16 +: 16];\n"
      "        root_max_chan = s{3}_chan[i*{6} +: {6}];\n"
      "      end\n"
      "      if (min_ptr == {2}'(i)) begin\n"
      "        root_min_val  = s{3}_val[({5}-i)*16 +: 16];\n"
      "        root_min_chan = s{3}_chan[({5}-i)*{6} +: {6}];\n"
      "      end\n"
      "    end\n"
      "  end\n"
      "  // Only the first and last k positions are read; the network's other outputs and\n"
      "  // the masks, which a sorted token does not need, are left to synthesis to remove.\n"
      "  logic unused_sorted;\n"
      "  assign unused_sorted = ^{{s{3}_val, s{3}_chan, s{3}_avail, building}};\n"
      "  assign max_clear = '0;\n"
      "  assign min_clear = '0;\n",
      N, pw - 1, pw, stage, cw - 1, N - 1, cw, k);
  return s;
}

class TopkSortBaseline final : public Block {
 public:
  string name() const override { return "topk_sort_baseline"; }

  BlockOutput emit(const Config& c) const override {
    const OrizuruTiming t = derive(c).topk_baseline;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    const int P = pow2_at_least(t.padded_leaves);
    const int m = clog2(P);
    const string what = fmt::format(
        "/// Sorting-network top-k baseline for Orizuru: the k = {0} largest and k smallest of a\n"
        "/// token of N = {1} activations by a bitonic sorting network over {2} positions ({3}\n"
        "/// stages of compare-exchanges in Orizuru's order), in one build cycle; max_i is\n"
        "/// sorted position i-1, min_i position N-i.\n",
        t.k, t.channels, P, m * (m + 1) / 2);
    out.files.push_back({base + "_ce.sv", ce_module(c, t.channel_bits)});
    out.files.push_back({base + ".sv", topk_top_module(t, base, what, sort_core(c, t))});
    out.manifest = topk_timing_manifest(t);
    out.manifest.erase("units");
    out.manifest.erase("units_per_layer");
    out.manifest.erase("tree_levels");
    out.manifest["comparators"] = bitonic_compare_exchanges(t.padded_leaves);
    out.manifest["comparisons_per_token"] = out.manifest["comparators"];
    out.manifest["network_positions"] = P;
    out.manifest["network_stages"] = m * (m + 1) / 2;
    return out;
  }
};

// ---- FP16 dequantize-and-MAC line ----------------------------------------

class MacLineBaselineBlock final : public Block {
 public:
  string name() const override { return "mac_line_baseline"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const Derived d = derive(c);
    const MacLineTiming& tm = d.mac_line_baseline;
    const bool fp32 = c.accumulator == AccumulatorFormat::kFp32;
    // Conversions (widening, the final rounding) only with a binary32 accumulator.
    out.primitives = {"oasis_fp_round.sv", "oasis_fp_add.sv", "oasis_fp_mul.sv", "oasis_fp_pipe.sv"};
    if (fp32) out.primitives.insert(out.primitives.begin() + 3, "oasis_fp_convert.sv");
    const AccFormat f = d.accumulator;
    const int aw = f.width();
    const int S = c.fp_pipeline_stages;
    const int K = c.channels;
    const int nW = c.weight_bits;
    const int M = tm.macs;
    const int B = tm.beats;
    const int bw = index_width(B);
    const int pad = B * M;
    // Lanes that hold a channel in the last beat; the others only in earlier beats.
    const int last_lanes = K - (B - 1) * M;
    string s = fmt::format(
        "/// FP16 dequantize-and-MAC line, the baseline of the PE line (paper Fig. 1c): per\n"
        "/// weight row, {0} beat(s) of M = {1} weight indices; beat b multiplies x[bM+i] by\n"
        "/// C_W[iw] (widened to {2}), reduces the M products by a pairwise tree ({3}\n"
        "/// level(s); {4} tree(s) of {5} inputs), accumulates the beat sums in beat order, then\n"
        "/// scales by s_a and s_w and rounds to binary16. {6} register stage(s) per\n"
        "/// floating-point unit except the accumulator (one). No backpressure: a beat is taken\n"
        "/// whenever w_valid_i is set; y_valid_o is set for one cycle per row.\n"
        "module {7} (\n"
        "  /// Clock.\n"
        "  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n"
        "  input  logic rst_ni,\n"
        "  /// The token's activations x[k], binary16, at [k*16 +: 16]; held while rows run.\n"
        "  input  logic [{8}:0] act_i,\n"
        "  /// The token's scale s_a, binary16.\n"
        "  input  logic [15:0] act_scale_i,\n"
        "  /// The weight codebook C_W: entry j, binary16, at [j*16 +: 16].\n"
        "  input  logic [{9}:0] weight_codebook_i,\n"
        "  /// A beat of the weight row is offered (and taken).\n"
        "  input  logic w_valid_i,\n"
        "  /// The beat: iw[n][b*M + i] at [i*{10} +: {10}]; indices past K are ignored.\n"
        "  input  logic [{11}:0] w_data_i,\n"
        "  /// The row's scale s_w, binary16, read with its first beat.\n"
        "  input  logic [15:0] w_scale_i,\n"
        "  /// y is valid this cycle (one cycle per row, rows in order).\n"
        "  output logic y_valid_o,\n"
        "  /// y[n], binary16.\n"
        "  output logic [15:0] y_data_o\n"
        ");\n\n",
        B, M, f.name(), tm.tree_levels, tm.trees,
        std::min(M, c.mac_tree_inputs), S, module, K * 16 - 1, d.weight_centroids * 16 - 1, nW,
        M * nW - 1);

    s += fmt::format(
        "  // Beat counter within the row.\n"
        "  logic [{0}:0] beat_q;\n  logic first, last;\n  logic [15:0] sw_q, sw_cur;\n"
        "  assign first = beat_q == {1}'(0);\n"
        "  assign last  = beat_q == {1}'({2});\n"
        "  assign sw_cur = first ? w_scale_i : sw_q;\n"
        "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "    if (!rst_ni) begin\n"
        "      beat_q <= '0;\n      sw_q   <= '0;\n"
        "    end else if (w_valid_i) begin\n"
        "      beat_q <= last ? '0 : beat_q + {1}'(1);\n"
        "      sw_q   <= sw_cur;\n"
        "    end\n"
        "  end\n\n",
        bw - 1, bw, B - 1);
    if (pad > K) {
      s += fmt::format("  logic [{0}:0] act_pad;\n  assign act_pad = {{{1}'(0), act_i}};\n",
                       pad * 16 - 1, (pad - K) * 16);
    } else {
      s += fmt::format("  logic [{0}:0] act_pad;\n  assign act_pad = act_i;\n", pad * 16 - 1);
    }
    // Lanes: activation of this beat, dequantized weight, product.
    s += fmt::format("  logic [{0}:0] prod;\n  logic [{1}:0] prod_p;\n", M * aw - 1, M - 1);
    s += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_lane\n", M);
    s += fmt::format(
        "    logic [15:0] x, w;\n    logic [{0}:0] x_a, w_a;\n"
        "    always_comb begin\n"
        "      x = act_pad[i*16 +: 16];\n"
        "      for (int b = 1; b < {1}; b++) begin\n"
        "        if (beat_q == {2}'(b)) x = act_pad[(b*{3} + i)*16 +: 16];\n"
        "      end\n"
        "    end\n"
        "    // The Dequantization Unit: C_W[iw].\n"
        "    always_comb begin\n"
        "      w = weight_codebook_i[15:0];\n"
        "      for (int j = 1; j < {4}; j++) begin\n"
        "        if (w_data_i[i*{5} +: {5}] == {5}'(j)) w = weight_codebook_i[j*16 +: 16];\n"
        "      end\n"
        "    end\n",
        aw - 1, B, bw, M, d.weight_centroids, nW);
    s += widen(f, "u_widen_x", "x", "x_a", "    ");
    s += widen(f, "u_widen_w", "w", "w_a", "    ");
    s += fp_mul(f, "u_mul", "x_a", "w_a", fmt::format("prod[i*{0} +: {0}]", aw), "    ");
    s += fmt::format("    assign prod_p[i] = i < {} || !last;\n  end\n", last_lanes);
    // Registers: one pipe per lane or tree node ({present, value}) and one for
    // the beat's tag {sw, last, first}: no register wider than a value (a reset
    // of more than 8k bits at once is a lint warning; M = 512 products are 8k).
    s += "  logic [17:0] tag0;\n  assign tag0 = {sw_cur, last, first};\n";
    string tag = "tag0", valid = "w_valid_i";
    const auto regs = [&](const string& name, int count, const string& v_in, const string& p_in) {
      string r = fmt::format(
          "  logic [{0}:0] {1}_v;\n  logic [{2}:0] {1}_p, {1}_lane_valid;\n"
          "  logic [17:0] {1}_tag;\n  logic {1}_valid;\n",
          count * aw - 1, name, count - 1);
      r += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_{}_reg\n", count, name);
      r += fmt::format("    logic [{}:0] q;\n", aw);
      r += pipe("u_pipe", aw + 1, S, valid, fmt::format("{{{}[i], {}[i*{} +: {}]}}", p_in, v_in, aw, aw),
                fmt::format("{}_lane_valid[i]", name), "q", "    ");
      r += fmt::format("    assign {0}_p[i] = q[{1}];\n    assign {0}_v[i*{1} +: {1}] = q[{2}:0];\n  end\n",
                       name, aw, aw - 1);
      r += pipe(fmt::format("u_{}_tag_pipe", name), 18, S, valid, tag, name + "_valid", name + "_tag");
      r += fmt::format("  logic unused_{0}_lane_valid;\n  assign unused_{0}_lane_valid = ^{0}_lane_valid;\n",
                       name);
      return r;
    };
    s += regs("mul", M, "prod", "prod_p");
    string vals = "mul_v", pres = "mul_p";
    tag = "mul_tag";
    valid = "mul_valid";
    int n = M;
    int level = 0;
    while (n > 1) {
      // One level of the pairwise tree: adjacent pairs, left operand first; an
      // absent right operand or an odd last value passes the left one up.
      const string name = fmt::format("lvl{}", level);
      const int next = (n + 1) / 2;
      s += fmt::format("  logic [{}:0] {}_sum;\n  logic [{}:0] {}_sp;\n", next * aw - 1, name, next - 1, name);
      s += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_{}\n", n / 2, name);
      s += fmt::format("    logic [{}:0] sum;\n", aw - 1);
      s += fp_add(f, "u_add", fmt::format("{}[2*i*{} +: {}]", vals, aw, aw),
                  fmt::format("{}[(2*i+1)*{} +: {}]", vals, aw, aw), "sum", "    ");
      s += fmt::format("    assign {0}_sum[i*{1} +: {1}] = {2}[2*i+1] ? sum : {3}[2*i*{1} +: {1}];\n", name,
                       aw, pres, vals);
      s += fmt::format("    assign {0}_sp[i] = {1}[2*i];\n  end\n", name, pres);
      if (n % 2 == 1) {
        s += fmt::format("  assign {0}_sum[{1}*{2} +: {2}] = {3}[{4}*{2} +: {2}];\n", name, n / 2, aw, vals,
                         n - 1);
        s += fmt::format("  assign {0}_sp[{1}] = {2}[{3}];\n", name, n / 2, pres, n - 1);
      }
      s += regs(name, next, name + "_sum", name + "_sp");
      vals = name + "_v";
      pres = name + "_p";
      tag = name + "_tag";
      valid = name + "_valid";
      n = next;
      ++level;
    }
    s += fmt::format(
        "  // The beat's sum; its present bit is always set (lane 0 holds a channel).\n"
        "  logic root_valid, root_first, root_last, unused_root_present;\n"
        "  logic [15:0] root_sw;\n"
        "  logic [{0}:0] root, acc_sum, acc_d, acc_q;\n"
        "  assign root_valid = {1};\n"
        "  assign root = {2}[{0}:0];\n"
        "  assign unused_root_present = {3}[0];\n"
        "  assign root_first = {4}[0];\n"
        "  assign root_last = {4}[1];\n"
        "  assign root_sw = {4}[17:2];\n",
        aw - 1, valid, vals, pres, tag);
    s += "  // The accumulator: the combinational adder and one register; beat 0 loads it.\n";
    s += fp_add(f, "u_acc", "acc_q", "root", "acc_sum");
    s += "  assign acc_d = root_valid ? (root_first ? root : acc_sum) : acc_q;\n"
         "  logic done_q;\n  logic [15:0] done_sw_q;\n"
         "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) begin\n"
         "      acc_q     <= '0;\n      done_q    <= 1'b0;\n      done_sw_q <= '0;\n"
         "    end else begin\n"
         "      acc_q  <= acc_d;\n"
         "      done_q <= root_valid && root_last;\n"
         "      if (root_valid && root_last) done_sw_q <= root_sw;\n"
         "    end\n"
         "  end\n\n";
    s += fmt::format("  logic [{0}:0] sa_a, scaled_a, sw_a, scaled_w;\n", aw - 1);
    s += widen(f, "u_widen_sa", "act_scale_i", "sa_a");
    s += fp_mul(f, "u_scale_a", "acc_q", "sa_a", "scaled_a");
    s += fmt::format("  logic mg1_valid;\n  logic [{}:0] mg1_q;\n", 15 + aw);
    s += pipe("u_scale_a_pipe", 16 + aw, S, "done_q", "{done_sw_q, scaled_a}", "mg1_valid",
              "mg1_q");
    s += widen(f, "u_widen_sw", fmt::format("mg1_q[{}:{}]", 15 + aw, aw), "sw_a");
    s += fp_mul(f, "u_scale_w", fmt::format("mg1_q[{}:0]", aw - 1), "sw_a", "scaled_w");
    s += fmt::format("  logic mg2_valid;\n  logic [{}:0] mg2_q;\n", aw - 1);
    s += pipe("u_scale_w_pipe", aw, S, "mg1_valid", "scaled_w", "mg2_valid", "mg2_q");
    if (fp32) {
      s += "  logic [15:0] y16;\n";
      s += fp_convert(8, 23, 5, 10, "u_round", "mg2_q", "y16");
      s += pipe("u_round_pipe", 16, S, "mg2_valid", "y16", "y_valid_o", "y_data_o");
    } else {
      s += "  assign y_valid_o = mg2_valid;\n  assign y_data_o = mg2_q;\n";
    }
    s += "\nendmodule\n";
    out.files.push_back({module + ".sv", s});
    out.manifest["macs_per_cycle"] = M;
    out.manifest["mac_trees"] = tm.trees;
    out.manifest["mac_tree_inputs"] = std::min(M, c.mac_tree_inputs);
    out.manifest["tree_levels"] = tm.tree_levels;
    out.manifest["beats_per_row"] = B;
    out.manifest["row_interval_cycles"] = tm.row_interval;
    out.manifest["row_latency_cycles"] = tm.row_latency;
    out.manifest["accumulator"] = f.name();
    return out;
  }
};

OASIS_REGISTER_BLOCK(TopkSortBaseline);
OASIS_REGISTER_BLOCK(MacLineBaselineBlock);

}  // namespace
}  // namespace oasis::gen
