// One PE line (paper IV-A, docs/spec.md section 6) as a generated block: Weight Index
// Buffer, Concat Units feeding the index_counter_array block, the MAC tree and
// its accumulator, the compensation MACs behind the Dequantization Unit, the
// merge and scaling, and an output FIFO with credits. Design and timing:
// docs/pe_line.md; cycle model: model/pe_line.hpp; reduction orders:
// docs/numerics.md.
#include "model/pe_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {
namespace {

using std::string;

// The figures every part of the line is sized by (names as in docs/pe_line.md).
struct Dims {
  int K, nA, nW, B, E, G, T, Tp, Mc, Ci, k2, CW, Wb, F, CB, CH, GR, D, W;
  int fbw, cbw, grw, chw, last_nb, S;
  AccFormat f;
  int aw() const { return f.width(); }
};

const Port kClk{"input", 0, "clk_i", "Clock."};
const Port kRst{"input", 0, "rst_ni", "Asynchronous reset, active low."};

// Weight Index Buffer: two banks of a row's K indices and its s_w.
string wib_module(const string& name, const Dims& d) {
  string s = module_header(
      name,
      fmt::format("Weight Index Buffer of a PE line: two banks, each a row of K = {} {}-bit\n"
                  "weight indices and its scale s_w. The fill side writes one bank, {} beat(s) of\n"
                  "{} indices a row (s_w with beat 0); the read side reads the other whole.",
                  d.K, d.nW, d.F, d.Wb),
      {kClk,
       kRst,
       {"input", 0, "wr_en_i", "Write the beat on wr_data_i."},
       {"input", 0, "wr_bank_i", "The bank the fill side writes."},
       {"input", d.fbw, "wr_beat_i", "Which beat of the row wr_data_i is."},
       {"input", d.Wb * d.nW, "wr_data_i",
        fmt::format("The beat: index b*{0} + i at [i*{1} +: {1}] (those past K ignored).", d.Wb,
                    d.nW)},
       {"input", 16, "wr_scale_i", "The row's s_w, binary16, written with beat 0."},
       {"input", 0, "rd_bank_i", "The bank the read side reads."},
       {"output", d.K * d.nW, "rd_row_o", "The read bank's row: iw[k] at [k*nW +: nW]."},
       {"output", 16, "rd_scale_o", "The read bank's s_w."}});
  s += fmt::format("  logic {} bank0_q, bank1_q;\n  logic [15:0] scale0_q, scale1_q;\n\n",
                   range(d.K * d.nW));
  // Bank writes, one register block per beat of the row.
  const auto bank_write = [&](const string& lo, int nb, const string& beat, const string& ind) {
    string t;
    for (int bank = 0; bank < 2; ++bank) {
      t += fmt::format(
          "{5}always_ff @(posedge clk_i or negedge rst_ni) begin\n"
          "{5}  if (!rst_ni) begin\n"
          "{5}    bank{0}_q[{1} +: {2}] <= '0;\n"
          "{5}  end else if (wr_en_i && wr_bank_i == 1'b{0} && wr_beat_i == {3}) begin\n"
          "{5}    bank{0}_q[{1} +: {2}] <= wr_data_i[{4}:0];\n"
          "{5}  end\n"
          "{5}end\n",
          bank, lo, nb * d.nW, beat, nb * d.nW - 1, ind);
    }
    return t;
  };
  if (d.F > 1) {
    s += loop_open("b", d.F - 1, "g_fill");
    s += bank_write(fmt::format("b*{}", d.Wb * d.nW), d.Wb, fmt::format("{}'(b)", d.fbw), "    ");
    s += loop_close(d.F - 1);
  }
  s += "  // The row's last beat.\n";
  s += bank_write(std::to_string((d.F - 1) * d.Wb * d.nW), d.last_nb,
                  fmt::format("{}'d{}", d.fbw, d.F - 1), "  ");
  if (d.last_nb < d.Wb) {
    s += "  // Indices past K in the row's last beat.\n  logic unused_w_tail;\n";
    s += fmt::format("  assign unused_w_tail = ^wr_data_i[{}:{}];\n", d.Wb * d.nW - 1,
                     d.last_nb * d.nW);
  }
  s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "    if (!rst_ni) begin\n"
       "      scale0_q <= '0;\n      scale1_q <= '0;\n"
       "    end else begin\n"
       "      if (wr_en_i && wr_beat_i == '0 && !wr_bank_i) scale0_q <= wr_scale_i;\n"
       "      if (wr_en_i && wr_beat_i == '0 && wr_bank_i) scale1_q <= wr_scale_i;\n"
       "    end\n  end\n\n";
  s += "  assign rd_row_o   = rd_bank_i ? bank1_q : bank0_q;\n";
  s += "  assign rd_scale_o = rd_bank_i ? scale1_q : scale0_q;\n\nendmodule\n";
  return s;
}

// Concat Units: e = {ia[k], iw[n][k]} for every channel; the counting beat
// picks G of them.
string concat_module(const string& name, const Dims& d) {
  const int padded = d.CB * d.G;
  string s = module_header(
      name,
      fmt::format("Concat Units of a PE line: e = {{ia[k], iw[k]}} ({} bits, activation bits\n"
                  "high) for each of the K = {} channels; counting beat b presents channels\n"
                  "b*{} .. b*{} + {}. Combinational.",
                  d.B, d.K, d.G, d.G, d.G - 1),
      {{"input", d.K * d.nA, "act_idx_i", "The token's activation indices ia[k]."},
       {"input", d.K * d.nW, "row_i", "The row's weight indices iw[k]."},
       {"input", d.cbw, "beat_i", "The counting beat."},
       {"output", d.G * d.B, "idx_o", "The beat's indices: position p at [p*B +: B]."}});
  s += fmt::format("  logic {} concat;\n", range(padded * d.B));
  s += loop_open("k", d.K, "g_concat");
  s += fmt::format(
      "    assign concat[k*{0} +: {0}] = {{act_idx_i[k*{1} +: {1}], row_i[k*{2} +: {2}]}};\n", d.B,
      d.nA, d.nW);
  s += loop_close(d.K);
  if (padded > d.K) s += fmt::format("  assign concat[{}:{}] = '0;\n", padded * d.B - 1, d.K * d.B);
  s += "  always_comb begin\n    idx_o = '0;\n";
  s += fmt::format("    for (int b = 0; b < {}; b++) begin\n", d.CB);
  s +=
      fmt::format("      if (beat_i == {0}'(b)) idx_o = concat[b*{1} +: {1}];\n", d.cbw, d.G * d.B);
  s += "    end\n  end\n\nendmodule\n";
  return s;
}

// Main branch: counts to A, times the LUT entries, the pairwise tree, the
// accumulator.
string mac_tree_module(const string& name, const Dims& d) {
  const AccFormat& f = d.f;
  const int aw = d.aw(), Tp = d.Tp, T = d.T, W = d.W, CH = d.CH, S = d.S;
  const bool fp32 = aw == 32;
  string s = module_header(
      name,
      fmt::format("MAC tree of a PE line: per chunk of T = {} counts, count x L[e] in {}\n"
                  "({} multipliers), the pairwise tree of docs/numerics.md over them, and the\n"
                  "accumulator (one adder and one register: the loop closes in a cycle);\n"
                  "{} chunk(s) a row. {} register stage(s) after every unit but the accumulator.",
                  T, fp32 ? "binary32" : "binary16", Tp, CH, S),
      {kClk,
       kRst,
       {"input", 0, "cnt_valid_i", "A chunk of counts is presented."},
       {"input", T * W, "cnt_data_i", fmt::format("The counts, {} bits each.", W)},
       {"input", d.chw, "cnt_chunk_i", "Which chunk of the row."},
       {"input", 0, "cnt_last_i", "The row's last chunk."},
       {"input", d.E * 16, "lut_i", "The LUT: L[e], binary16, at [e*16 +: 16]."},
       {"output", 0, "row_valid_o", "The row's main-branch sum is on row_sum_o."},
       {"output", aw, "row_sum_o", "The row's main-branch sum."}});
  if (T > Tp) {
    s += "  // Lanes of the chunk past the LUT's entries.\n  logic unused_cnt_tail;\n";
    s += fmt::format("  assign unused_cnt_tail = ^cnt_data_i[{}:{}];\n", T * W - 1, Tp * W);
  }
  // LUT padded to whole chunks; lane t of chunk c holds entry c*T + t when it exists.
  s += fmt::format("  logic {} lut_pad;\n  logic {} lut_sel;\n  logic {} main_present;\n",
                   range(CH * T * 16), range(T * 16), range(Tp));
  s += CH * T > d.E ? fmt::format("  assign lut_pad = {{{}'(0), lut_i}};\n", (CH * T - d.E) * 16)
                    : "  assign lut_pad = lut_i;\n";
  s += "  always_comb begin\n    lut_sel = '0;\n    main_present = '0;\n";
  s += fmt::format("    for (int c = 0; c < {}; c++) begin\n", CH);
  s += fmt::format(
      "      if (cnt_chunk_i == {0}'(c)) begin\n"
      "        lut_sel = lut_pad[c*{1} +: {1}];\n"
      "        for (int t = 0; t < {2}; t++) main_present[t] = c*{3} + t < {4};\n"
      "      end\n    end\n  end\n",
      d.chw, T * 16, Tp, T, d.E);
  if (T > Tp) {
    s += "  logic unused_lut_tail;\n";
    s += fmt::format("  assign unused_lut_tail = ^lut_sel[{}:{}];\n", T * 16 - 1, Tp * 16);
  }
  s += fmt::format("  logic {0} count_a, lut_a;\n", range(Tp * aw));
  s += fmt::format("  for (genvar t = 0; t < {}; t++) begin : g_lane\n", Tp);
  s += "    logic [31:0] count32;\n";
  s += fmt::format(
      "    oasis_fp_from_uint #(\n      .IntBits ({}),\n      .ExpBits (8),\n      "
      ".FracBits(23)\n"
      "    ) u_count (\n      .n_i     (cnt_data_i[t*{} +: {}]),\n      .result_o(count32)\n    "
      ");\n",
      W, W, W);
  if (fp32) {
    s += fmt::format("    assign count_a[t*{0} +: {0}] = count32;\n", aw);
  } else {
    s += fp_convert(8, 23, 5, 10, "u_count16", "count32", "count_a[t*16 +: 16]", "    ");
  }
  s += widen(f, "u_widen", "lut_sel[t*16 +: 16]", fmt::format("lut_a[t*{0} +: {0}]", aw), "    ");
  s += "  end\n";
  const int conv_w = 2 + Tp + 2 * Tp * aw;
  s += fmt::format("  logic conv_valid;\n  logic {} conv_q;\n", range(conv_w));
  s +=
      pipe("u_conv_pipe", conv_w, S, "cnt_valid_i",
           fmt::format("{{cnt_last_i, cnt_chunk_i == {}'d0, main_present, count_a, lut_a}}", d.chw),
           "conv_valid", "conv_q");
  s += fmt::format("  logic {} prod;\n", range(Tp * aw));
  s += fmt::format("  for (genvar t = 0; t < {}; t++) begin : g_mul\n", Tp);
  s += fp_mul(f, "u_mul", fmt::format("conv_q[{} + t*{} +: {}]", Tp * aw, aw, aw),
              fmt::format("conv_q[t*{0} +: {0}]", aw), fmt::format("prod[t*{0} +: {0}]", aw),
              "    ");
  s += "  end\n";
  const int mul_w = 2 + Tp + Tp * aw;
  s += fmt::format("  logic mul_valid;\n  logic {} mul_q;\n", range(mul_w));
  s += pipe("u_mul_pipe", mul_w, S, "conv_valid",
            fmt::format("{{conv_q[{}:{}], prod}}", conv_w - 1, 2 * Tp * aw), "mul_valid", "mul_q");
  // Tree levels.
  string cur = "mul_q", cur_valid = "mul_valid";
  int n = Tp;
  int level = 0;
  while (n > 1) {
    const string lvl = fmt::format("lvl{}", level);
    const int w = 2 + n + n * aw;
    const string vals = fmt::format("{}[{}:0]", cur, n * aw - 1);
    const string pres = fmt::format("{}[{}:{}]", cur, n * aw + n - 1, n * aw);
    s += fmt::format("  logic {0} {1}_in;\n  logic {2} {1}_in_p;\n", range(n * aw), lvl, range(n));
    s += fmt::format("  assign {0}_in = {1};\n  assign {0}_in_p = {2};\n", lvl, vals, pres);
    s += tree_level(f, S, lvl, n, lvl + "_in", lvl + "_in_p", cur_valid,
                    fmt::format("{}[{}:{}]", cur, w - 1, w - 2), 2);
    cur = lvl + "_q";
    cur_valid = lvl + "_valid";
    n = (n + 1) / 2;
    ++level;
  }
  // cur: {last, first, present[0], root}
  s += "  // The root's present bit is always set (a chunk has an entry).\n";
  s += fmt::format(
      "  logic root_valid, root_first, root_last, unused_root_present;\n"
      "  logic {0} root, main_sum, main_d, main_q;\n",
      range(aw));
  s +=
      fmt::format("  assign root_valid = {};\n  assign root = {}[{}:0];\n", cur_valid, cur, aw - 1);
  s += fmt::format("  assign unused_root_present = {}[{}];\n", cur, aw);
  s += fmt::format("  assign root_first = {}[{}];\n  assign root_last = {}[{}];\n", cur, aw + 1,
                   cur, aw + 2);
  s += "  // The accumulator: the combinational adder and one register, so the loop\n"
       "  // closes in a cycle; chunk 0 loads it.\n";
  s += fp_add(f, "u_main_acc", "main_q", "root", "main_sum");
  s += "  assign main_d = root_valid ? (root_first ? root : main_sum) : main_q;\n";
  s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "    if (!rst_ni) main_q <= '0;\n    else main_q <= main_d;\n  end\n";
  s += "  assign row_valid_o = root_valid && root_last;\n";
  s += "  assign row_sum_o   = main_d;\n\nendmodule\n";
  return s;
}

// The gather: in cycle g, outliers j = g*Mc + m, their residuals, and each
// one's weight index read from the row by a balanced multiplexer tree.
string gather_module(const string& name, const Dims& d) {
  const int slots = d.GR * d.Mc;
  string s = module_header(
      name,
      fmt::format("Outlier gather of a PE line: in compensation cycle g, slot m (m < {}) takes\n"
                  "outlier j = g*{} + m (j < 2k = {}): its residual r[o_j] and its weight index\n"
                  "iw[o_j], read from the row by a balanced tree of 2-to-1 multiplexers over the\n"
                  "K = {} channels. Combinational.",
                  d.Ci, d.Mc, d.k2, d.K),
      {{"input", d.grw, "group_i", "The compensation cycle g."},
       {"input", d.k2 * d.CW, "outlier_chan_i", "The outlier channels o_j, Orizuru's order."},
       {"input", d.k2 * 16, "residual_i", "The residuals r[o_j], binary16."},
       {"input", d.K * d.nW, "row_i", "The row's weight indices."},
       {"output", d.Ci * d.nW, "iw_o", "Slot m's weight index iw[o_j]."},
       {"output", d.Ci * 16, "res_o", "Slot m's residual r[o_j]."},
       {"output", d.Ci, "present_o", "Slot m holds an outlier (j < 2k)."}});
  s += fmt::format("  logic {} chan_pad;\n  logic {} res_pad;\n  logic {} g_chan;\n",
                   range(slots * d.CW), range(slots * 16), range(d.Ci * d.CW));
  s += slots > d.k2 ? fmt::format(
                          "  assign chan_pad = {{{}'(0), outlier_chan_i}};\n"
                          "  assign res_pad = {{{}'(0), residual_i}};\n",
                          (slots - d.k2) * d.CW, (slots - d.k2) * 16)
                    : "  assign chan_pad = outlier_chan_i;\n  assign res_pad = residual_i;\n";
  s += "  always_comb begin\n    g_chan = '0;\n    res_o = '0;\n    present_o = '0;\n";
  s += fmt::format("    for (int g = 0; g < {}; g++) begin\n", d.GR);
  s += fmt::format(
      "      if (group_i == {0}'(g)) begin\n"
      "        g_chan = chan_pad[g*{1} +: {2}];\n"
      "        res_o = res_pad[g*{3} +: {4}];\n"
      "        for (int m = 0; m < {5}; m++) present_o[m] = g*{6} + m < {7};\n"
      "      end\n    end\n  end\n",
      d.grw, d.Mc * d.CW, d.Ci * d.CW, d.Mc * 16, d.Ci * 16, d.Ci, d.Mc, d.k2);
  if (d.Mc > d.Ci) {
    // One group (Mc > 2k): the slots past 2k are padding nothing reads.
    s += "  logic unused_slots;\n";
    s += fmt::format("  assign unused_slots = ^{{chan_pad[{}:{}], res_pad[{}:{}]}};\n",
                     slots * d.CW - 1, d.Ci * d.CW, slots * 16 - 1, d.Ci * 16);
  }
  s += fmt::format("  for (genvar m = 0; m < {}; m++) begin : g_slot\n", d.Ci);
  s += fmt::format("    logic [{}:0] iw;\n", d.nW - 1);
  // Constant part-selects only: no tool has to size a variable index product.
  s += mux_tree("iw_mux", "row_i", d.K, d.nW, fmt::format("g_chan[m*{0} +: {0}]", d.CW), d.CW, "iw",
                "    ");
  s += fmt::format("    assign iw_o[m*{0} +: {0}] = iw;\n  end\n\nendmodule\n", d.nW);
  return s;
}

// Dequantization Unit: C_W[iw] for each compensation slot.
string dequant_module(const string& name, const Dims& d) {
  string s = module_header(
      name,
      fmt::format("Dequantization Unit of a PE line: the weight centroid C_W[iw] of each of the\n"
                  "{} compensation slot(s), from the 2^nW = {} entries. Combinational.",
                  d.Ci, 1 << d.nW),
      {{"input", d.Ci * d.nW, "iw_i", "Slot m's weight index."},
       {"input", (1 << d.nW) * 16, "codebook_i", "C_W: centroid i, binary16, at [i*16 +: 16]."},
       {"output", d.Ci * 16, "w_o", "Slot m's centroid, binary16."}});
  s += fmt::format("  for (genvar m = 0; m < {}; m++) begin : g_slot\n", d.Ci);
  s += fmt::format(
      "    always_comb begin\n"
      "      w_o[m*16 +: 16] = '0;\n"
      "      for (int i = 0; i < {1}; i++) begin\n"
      "        if (iw_i[m*{0} +: {0}] == {0}'(i)) w_o[m*16 +: 16] = codebook_i[i*16 +: 16];\n"
      "      end\n"
      "    end\n  end\n\nendmodule\n",
      d.nW, 1 << d.nW);
  return s;
}

// The compensation MACs: r x C_W[iw] in A, Mc accumulators, the tree over them.
string comp_module(const string& name, const Dims& d) {
  const AccFormat& f = d.f;
  const int aw = d.aw(), Ci = d.Ci, S = d.S;
  string s = module_header(
      name,
      fmt::format("Compensation MACs of a PE line: {} slot(s) of r x C_W[iw] in {} ({} register\n"
                  "stage(s)), accumulated by one MAC each (one adder and one register: the loop\n"
                  "closes in a cycle) over the row's {} cycle(s), then the pairwise tree over the\n"
                  "MACs.",
                  Ci, aw == 32 ? "binary32" : "binary16", S, d.GR),
      {kClk,
       kRst,
       {"input", 0, "issue_i", "A compensation cycle of the row is issued."},
       {"input", 0, "first_i", "It is the row's first."},
       {"input", 0, "last_i", "It is the row's last."},
       {"input", Ci, "present_i", "Slot m holds an outlier."},
       {"input", Ci * 16, "res_i", "Slot m's residual, binary16."},
       {"input", Ci * 16, "w_i", "Slot m's weight centroid, binary16."},
       {"output", 0, "valid_o", "The row's compensation sum is on sum_o."},
       {"output", aw, "sum_o", "The row's compensation sum."}});
  s += fmt::format("  logic {} g_prod;\n", range(Ci * aw));
  s += fmt::format("  for (genvar m = 0; m < {}; m++) begin : g_mul\n", Ci);
  s += fmt::format("    logic [{}:0] w_a, r_a;\n", aw - 1);
  s += widen(f, "u_widen_w", "w_i[m*16 +: 16]", "w_a", "    ");
  s += widen(f, "u_widen_r", "res_i[m*16 +: 16]", "r_a", "    ");
  s += fp_mul(f, "u_mul", "r_a", "w_a", fmt::format("g_prod[m*{0} +: {0}]", aw), "    ");
  s += "  end\n";
  const int cm_w = 2 + Ci + Ci * aw;
  s += fmt::format("  logic cm_valid;\n  logic {} cm_q;\n", range(cm_w));
  s += pipe("u_comp_pipe", cm_w, S, "issue_i", "{last_i, first_i, present_i, g_prod}", "cm_valid",
            "cm_q");
  s += "  // The MACs: combinational adder and one register each.\n";
  s += fmt::format("  logic {} macs_d, macs_q;\n  logic comp_done_d, comp_done_q;\n",
                   range(Ci * aw));
  s += fmt::format("  for (genvar m = 0; m < {}; m++) begin : g_mac\n", Ci);
  s += fmt::format("    logic [{}:0] sum;\n", aw - 1);
  s += fp_add(f, "u_add", fmt::format("macs_q[m*{0} +: {0}]", aw),
              fmt::format("cm_q[m*{0} +: {0}]", aw), "sum", "    ");
  s += fmt::format(
      "    assign macs_d[m*{0} +: {0}] = cm_valid && cm_q[{1} + m]\n"
      "                                  ? (cm_q[{2}] ? cm_q[m*{0} +: {0}] : sum)\n"
      "                                  : macs_q[m*{0} +: {0}];\n",
      aw, Ci * aw, Ci * aw + Ci);
  s += "  end\n";
  s += fmt::format("  assign comp_done_d = cm_valid && cm_q[{}];\n", Ci * aw + Ci + 1);
  s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "    if (!rst_ni) begin\n      macs_q <= '0;\n      comp_done_q <= 1'b0;\n"
       "    end else begin\n      macs_q <= macs_d;\n      comp_done_q <= comp_done_d;\n"
       "    end\n  end\n";
  // The tree over the MACs (all present).
  string cur = "macs_q", cur_valid = "comp_done_q";
  string comp_out = "macs_q", comp_valid = "comp_done_q";
  int n = Ci, level = 0;
  while (n > 1) {
    const string lvl = fmt::format("ct{}", level);
    const string vals = level == 0 ? string("macs_q") : fmt::format("{}[{}:0]", cur, n * aw - 1);
    const string pres =
        level == 0 ? string("'1") : fmt::format("{}[{}:{}]", cur, n * aw + n - 1, n * aw);
    s += fmt::format("  logic {0} {1}_in;\n  logic {2} {1}_in_p;\n", range(n * aw), lvl, range(n));
    s += fmt::format("  assign {0}_in = {1};\n  assign {0}_in_p = {2};\n", lvl, vals, pres);
    s += tree_level(f, S, lvl, n, lvl + "_in", lvl + "_in_p", cur_valid, "", 0);
    cur = lvl + "_q";
    cur_valid = lvl + "_valid";
    n = (n + 1) / 2;
    ++level;
    comp_out = fmt::format("{}[{}:0]", cur, aw - 1);
    comp_valid = cur_valid;
    if (n == 1) {
      s += fmt::format("  logic unused_{}_p;\n  assign unused_{}_p = {}[{}];\n", lvl, lvl, cur, aw);
    }
  }
  s += fmt::format("  assign valid_o = {};\n  assign sum_o   = {};\n\nendmodule\n", comp_valid,
                   comp_out);
  return s;
}

// Merge and scale: rows meet in order in FIFOs; add, two scalings, rounding,
// the output FIFO.
string merge_module(const string& name, const Dims& d) {
  const AccFormat& f = d.f;
  const int aw = d.aw(), S = d.S, D = d.D;
  const bool fp32 = aw == 32;
  string s = module_header(
      name,
      fmt::format("Merge and output of a PE line: the main and compensation sums and the row's\n"
                  "s_w wait in FIFOs of {} rows; when both sums of a row are there, add_A, x s_a,\n"
                  "x s_w{}, each followed by {} register stage(s), into the output FIFO.",
                  D, fp32 ? ", to binary16" : "", S),
      {kClk,
       kRst,
       {"input", 0, "main_valid_i", "A row's main-branch sum."},
       {"input", aw, "main_i", "The sum."},
       {"input", 0, "comp_valid_i", "A row's compensation sum."},
       {"input", aw, "comp_i", "The sum."},
       {"input", 0, "sw_valid_i", "A row's s_w (when the row starts)."},
       {"input", 16, "sw_i", "s_w, binary16."},
       {"input", 16, "act_scale_i", "The token's s_a, binary16."},
       {"input", 0, "y_pop_i", "The consumer takes y this cycle."},
       {"output", 0, "y_valid_o", "An output is presented."},
       {"output", 16, "y_data_o", "y[n], binary16, rows in order."}});
  s += fmt::format("  logic {0} main_head, comp_head;\n  logic [15:0] sw_head, y_head;\n",
                   range(aw));
  s += "  logic merge_fire, main_empty, comp_empty, unused_sw_empty, y_empty;\n";
  s += "  logic unused_main_full, unused_comp_full, unused_sw_full, unused_y_full;\n";
  s += fifo("u_main_fifo", aw, D, "main_valid_i", "main_i", "merge_fire", "main_head", "main_empty",
            "unused_main_full");
  s += fifo("u_comp_fifo", aw, D, "comp_valid_i", "comp_i", "merge_fire", "comp_head", "comp_empty",
            "unused_comp_full");
  s += fifo("u_sw_fifo", 16, D, "sw_valid_i", "sw_i", "merge_fire", "sw_head", "unused_sw_empty",
            "unused_sw_full");
  s += "  assign merge_fire = !main_empty && !comp_empty;\n";
  s += fmt::format("  logic {0} merged, sa_a, scaled_a, sw_a, scaled_w;\n", range(aw));
  s += fp_add(f, "u_merge", "main_head", "comp_head", "merged");
  s += fmt::format("  logic mg1_valid;\n  logic {} mg1_q;\n", range(16 + aw));
  s += pipe("u_merge_pipe", 16 + aw, S, "merge_fire", "{sw_head, merged}", "mg1_valid", "mg1_q");
  s += widen(f, "u_widen_sa", "act_scale_i", "sa_a");
  s += fp_mul(f, "u_scale_a", fmt::format("mg1_q[{}:0]", aw - 1), "sa_a", "scaled_a");
  s += fmt::format("  logic mg2_valid;\n  logic {} mg2_q;\n", range(16 + aw));
  s += pipe("u_scale_a_pipe", 16 + aw, S, "mg1_valid",
            fmt::format("{{mg1_q[{}:{}], scaled_a}}", 15 + aw, aw), "mg2_valid", "mg2_q");
  s += widen(f, "u_widen_sw", fmt::format("mg2_q[{}:{}]", 15 + aw, aw), "sw_a");
  s += fp_mul(f, "u_scale_w", fmt::format("mg2_q[{}:0]", aw - 1), "sw_a", "scaled_w");
  s += fmt::format("  logic mg3_valid;\n  logic {} mg3_q;\n", range(aw));
  s += pipe("u_scale_w_pipe", aw, S, "mg2_valid", "scaled_w", "mg3_valid", "mg3_q");
  string y_valid = "mg3_valid", y_value = "mg3_q";
  if (fp32) {
    s += "  logic [15:0] y16, y16_q;\n  logic y16_valid;\n";
    s += fp_convert(8, 23, 5, 10, "u_round", "mg3_q", "y16");
    s += pipe("u_round_pipe", 16, S, "mg3_valid", "y16", "y16_valid", "y16_q");
    y_valid = "y16_valid";
    y_value = "y16_q";
  }
  s += fifo("u_y_fifo", 16, D, y_valid, y_value, "y_pop_i", "y_head", "y_empty", "unused_y_full");
  s += "  assign y_valid_o = !y_empty;\n  assign y_data_o = y_head;\n\nendmodule\n";
  return s;
}

class PeLineBlock final : public Block {
 public:
  string name() const override { return "pe_line"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const PeLineTiming tm = pe_line_timing(c);
    const bool fp32 = c.accumulator == AccumulatorFormat::kFp32;
    const AccFormat f = fp32 ? AccFormat{8, 23} : AccFormat{5, 10};
    const int aw = f.width();
    const int S = c.fp_pipeline_stages;
    const int K = c.channels;
    const int nA = c.act_bits, nW = c.weight_bits, B = nA + nW;
    const int E = 1 << B;
    const int G = c.index_counters * c.counter_inputs;
    const int T = c.mac_tree_inputs;
    const int Tp = tm.tree_inputs;
    const int Mc = c.comp_macs;
    const int Ci = tm.comp_inputs;
    const int k2 = 2 * c.outliers_per_side;
    const int CW = std::max(1, clog2(K));
    const int Wb = c.weight_beat_indices;
    const int F = tm.fill_beats;
    const int CB = tm.count_beats;
    const int CH = tm.chunks;
    const int GR = tm.groups;
    const int D = tm.fifo_depth;
    const int W = clog2(int64_t(K) + 1);  // count bits
    const int fbw = std::max(1, clog2(F));
    const int cbw = clog2(int64_t(CB) + 1);
    const int grw = clog2(int64_t(GR) + 1);
    const int chw = std::max(1, clog2(CH));
    const int crw = clog2(int64_t(D) + 1);
    const int last_nb = K - (F - 1) * Wb;  // indices in the row's last weight beat

    out.primitives = {"oasis_fp_round.sv",   "oasis_fp_add.sv",       "oasis_fp_mul.sv",
                      "oasis_fp_convert.sv", "oasis_fp_from_uint.sv", "oasis_fp_pipe.sv",
                      "oasis_fifo.sv"};
    out.uses = {"index_counter_array"};

    string s = fmt::format(
        "/// PE line (paper IV-A, docs/spec.md section 6, docs/pe_line.md): one weight row of K = "
        "{K}\n"
        "/// {nW}-bit indices in, one binary16 output out. Weight Index Buffer of two banks\n"
        "/// ({F} beat(s) of {Wb} indices a row); Concat Units and {G} indices a cycle into the\n"
        "/// Index Counter array ({CB} beat(s) a row); a {Tp}-input MAC tree over the counts and\n"
        "/// the LUT ({CH} chunk(s) a row) and an accumulator; {Ci} compensation MAC(s) over the\n"
        "/// {k2} outliers ({GR} cycle(s) a row); merge, scaling by s_a and s_w, rounding to\n"
        "/// binary16; an output FIFO of {D} rows. Accumulation in {acc}; {S} register stage(s)\n"
        "/// in every floating-point unit except the two accumulators, whose loops close in one\n"
        "/// cycle. A row every {ri} cycle(s) at full rate; {rl} cycles from a row's last weight\n"
        "/// beat to its output.\n"
        "module {module} (\n"
        "  /// Clock.\n  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n  input  logic rst_ni,\n"
        "  /// The token's activation indices: ia[k] at [k*{nA} +: {nA}]; held while busy.\n"
        "  input  logic {r_act} act_idx_i,\n"
        "  /// The token's outlier channels in Orizuru's order (max_1, min_1, ...): o_j at\n"
        "  /// [j*{CW} +: {CW}]; held while busy.\n"
        "  input  logic {r_och} outlier_chan_i,\n"
        "  /// The residuals r[o_j], binary16, at [j*16 +: 16]; held while busy.\n"
        "  input  logic {r_res} residual_i,\n"
        "  /// The token's scale s_a, binary16; held while busy.\n"
        "  input  logic [15:0] act_scale_i,\n"
        "  /// The Cartesian-product LUT: L[e], binary16, at [e*16 +: 16]; held while busy.\n"
        "  input  logic {r_lut} lut_i,\n"
        "  /// The weight codebook C_W: centroid i, binary16, at [i*16 +: 16]; held while busy.\n"
        "  input  logic {r_wcb} weight_codebook_i,\n"
        "  /// A beat of a weight row is offered.\n  input  logic w_valid_i,\n"
        "  /// The line takes the offered beat this cycle.\n  output logic w_ready_o,\n"
        "  /// The beat: iw[n][b*{Wb} + i] at [i*{nW} +: {nW}] (indices past K ignored).\n"
        "  input  logic {r_w} w_data_i,\n"
        "  /// The row's scale s_w[n], binary16, taken with the row's first beat.\n"
        "  input  logic [15:0] w_scale_i,\n"
        "  /// An output is presented.\n  output logic y_valid_o,\n"
        "  /// The consumer takes the presented output this cycle.\n  input  logic y_ready_i,\n"
        "  /// The output y[n], binary16, rows in order.\n  output logic [15:0] y_data_o,\n"
        "  /// No row is anywhere in the line: the token's inputs may change.\n"
        "  output logic idle_o\n"
        ");\n\n",
        fmt::arg("K", K), fmt::arg("nW", nW), fmt::arg("F", F), fmt::arg("Wb", Wb),
        fmt::arg("G", G), fmt::arg("CB", CB), fmt::arg("Tp", Tp), fmt::arg("CH", CH),
        fmt::arg("Ci", Ci), fmt::arg("k2", k2), fmt::arg("GR", GR), fmt::arg("D", D),
        fmt::arg("acc", fp32 ? "binary32" : "binary16"), fmt::arg("S", S),
        fmt::arg("ri", tm.row_interval), fmt::arg("rl", tm.row_latency), fmt::arg("module", module),
        fmt::arg("nA", nA), fmt::arg("r_act", range(K * nA)), fmt::arg("CW", CW),
        fmt::arg("r_och", range(k2 * CW)), fmt::arg("r_res", range(k2 * 16)),
        fmt::arg("r_lut", range(E * 16)), fmt::arg("r_wcb", range((1 << nW) * 16)),
        fmt::arg("r_w", range(Wb * nW)));

    const string wib = module + "_wib", concat = module + "_concat";
    const string mac_tree = module + "_mac_tree", gather = module + "_gather";
    const string dequant = module + "_dequant", comp = module + "_comp_macs";
    const string merge = module + "_merge";
    const Dims d{K, nA, nW, B,  E, G, T,   Tp,  Mc,  Ci,  k2,      CW, Wb,
                 F, CB, CH, GR, D, W, fbw, cbw, grw, chw, last_nb, S,  f};
    out.files.push_back({wib + ".sv", wib_module(wib, d)});
    out.files.push_back({concat + ".sv", concat_module(concat, d)});
    out.files.push_back({mac_tree + ".sv", mac_tree_module(mac_tree, d)});
    out.files.push_back({gather + ".sv", gather_module(gather, d)});
    out.files.push_back({dequant + ".sv", dequant_module(dequant, d)});
    out.files.push_back({comp + ".sv", comp_module(comp, d)});
    out.files.push_back({merge + ".sv", merge_module(merge, d)});

    // ---- Control: the fill side, the read side, the credits -------------
    s += "  // Fill side: which bank and beat the weight stream writes; read side: the\n"
         "  // bank being counted and gathered, its counting beat and compensation group;\n"
         "  // credits: rows started and not yet popped from the output FIFO.\n";
    s += "  logic full0_d, full0_q, full1_d, full1_q;\n";
    s += "  logic wr_bank_d, wr_bank_q, rd_bank_d, rd_bank_q, rd_busy_d, rd_busy_q;\n";
    s += fmt::format("  logic {} wr_beat_d, wr_beat_q;\n", range(fbw));
    s += fmt::format("  logic {} cnt_beat_d, cnt_beat_q, cnt_beat_next;\n", range(cbw));
    s += fmt::format("  logic {} group_d, group_q, group_next;\n", range(grw));
    s += fmt::format("  logic {} credits_d, credits_q;\n", range(crw));
    s += "  logic w_fire, w_last, start, go, idx_valid, idx_ready, idx_fire, issue, rd_release;\n";
    s += "  logic y_pop;\n";
    s += fmt::format("  /// The bank being read, and its row's s_w.\n  logic {} row;\n",
                     range(K * nW));
    s += "  logic [15:0] row_scale;\n\n";
    s += "  assign w_ready_o = !(wr_bank_q ? full1_q : full0_q);\n";
    s += "  assign w_fire    = w_valid_i && w_ready_o;\n";
    s += F > 1 ? fmt::format("  assign w_last    = wr_beat_q == {}'d{};\n", fbw, F - 1)
               : "  assign w_last    = 1'b1;\n";
    s += fmt::format(
        "  assign start = !rd_busy_q && (rd_bank_q ? full1_q : full0_q) && credits_q != {0}'d{1};\n"
        "  assign go = rd_busy_q || start;\n"
        "  assign idx_valid = go && cnt_beat_q != {2}'d{3};\n"
        "  assign idx_fire = idx_valid && idx_ready;\n"
        "  assign issue = go && group_q != {4}'d{5};\n"
        "  assign cnt_beat_next = cnt_beat_q + {2}'(idx_fire);\n"
        "  assign group_next = group_q + {4}'(issue);\n"
        "  assign rd_release = go && cnt_beat_next == {2}'d{3} && group_next == {4}'d{5};\n"
        "  assign y_pop = y_valid_o && y_ready_i;\n"
        "  assign idle_o = !full0_q && !full1_q && credits_q == '0 && wr_beat_q == '0;\n\n",
        crw, D, cbw, CB, grw, GR);
    s += fmt::format(
        "  always_comb begin\n"
        "    wr_bank_d  = wr_bank_q ^ (w_fire && w_last);\n"
        "    wr_beat_d  = w_fire ? (w_last ? '0 : wr_beat_q + {0}'d1) : wr_beat_q;\n"
        "    full0_d    = full0_q;\n"
        "    full1_d    = full1_q;\n"
        "    if (w_fire && w_last) begin\n"
        "      if (wr_bank_q) full1_d = 1'b1;\n"
        "      else full0_d = 1'b1;\n"
        "    end\n"
        "    if (rd_release) begin\n"
        "      if (rd_bank_q) full1_d = 1'b0;\n"
        "      else full0_d = 1'b0;\n"
        "    end\n"
        "    rd_bank_d  = rd_bank_q ^ rd_release;\n"
        "    rd_busy_d  = go && !rd_release;\n"
        "    cnt_beat_d = rd_release ? '0 : cnt_beat_next;\n"
        "    group_d    = rd_release ? '0 : group_next;\n"
        "    credits_d  = credits_q + {1}'(start) - {1}'(y_pop);\n"
        "  end\n\n",
        fbw, crw);
    s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) begin\n"
         "      full0_q    <= 1'b0;\n      full1_q    <= 1'b0;\n"
         "      wr_bank_q  <= 1'b0;\n      wr_beat_q  <= '0;\n"
         "      rd_bank_q  <= 1'b0;\n      rd_busy_q  <= 1'b0;\n"
         "      cnt_beat_q <= '0;\n      group_q    <= '0;\n      credits_q  <= '0;\n"
         "    end else begin\n"
         "      full0_q    <= full0_d;\n      full1_q    <= full1_d;\n"
         "      wr_bank_q  <= wr_bank_d;\n      wr_beat_q  <= wr_beat_d;\n"
         "      rd_bank_q  <= rd_bank_d;\n      rd_busy_q  <= rd_busy_d;\n"
         "      cnt_beat_q <= cnt_beat_d;\n      group_q    <= group_d;\n"
         "      credits_q  <= credits_d;\n"
         "    end\n  end\n\n";

    // ---- The parts ---------------------------------------------------------
    s += "  // Weight Index Buffer.\n";
    s += instance(wib, "u_wib",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"wr_en_i", "w_fire"},
                   {"wr_bank_i", "wr_bank_q"},
                   {"wr_beat_i", "wr_beat_q"},
                   {"wr_data_i", "w_data_i"},
                   {"wr_scale_i", "w_scale_i"},
                   {"rd_bank_i", "rd_bank_q"},
                   {"rd_row_o", "row"},
                   {"rd_scale_o", "row_scale"}});
    s += "\n  // Concat Units and the Index Counter array.\n";
    s += fmt::format("  logic {} idx_data;\n", range(G * B));
    s += instance(concat, "u_concat",
                  {{"act_idx_i", "act_idx_i"},
                   {"row_i", "row"},
                   {"beat_i", "cnt_beat_q"},
                   {"idx_o", "idx_data"}});
    s += fmt::format("  logic cnt_valid, cnt_last;\n  logic {} cnt_data;\n  logic {} cnt_chunk;\n",
                     range(T * W), range(chw));
    s += instance(module_name(c, "index_counter_array"), "u_counters",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"idx_valid_i", "idx_valid"},
                   {"idx_ready_o", "idx_ready"},
                   {"idx_data_i", "idx_data"},
                   {"idx_mask_i", fmt::format("{{{}{{1'b1}}}}", G)},
                   {"cnt_valid_o", "cnt_valid"},
                   {"cnt_ready_i", "1'b1"},
                   {"cnt_data_o", "cnt_data"},
                   {"cnt_chunk_o", "cnt_chunk"},
                   {"cnt_last_o", "cnt_last"}});
    s += "\n  // Main branch: the MAC tree over counts and LUT entries, and its accumulator.\n";
    s += fmt::format("  logic main_valid;\n  logic {} main_sum;\n", range(aw));
    s += instance(mac_tree, "u_mac_tree",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"cnt_valid_i", "cnt_valid"},
                   {"cnt_data_i", "cnt_data"},
                   {"cnt_chunk_i", "cnt_chunk"},
                   {"cnt_last_i", "cnt_last"},
                   {"lut_i", "lut_i"},
                   {"row_valid_o", "main_valid"},
                   {"row_sum_o", "main_sum"}});
    s += "\n  // Outlier branch: the gather, the Dequantization Unit, the compensation MACs.\n";
    s += fmt::format("  logic {} g_iw;\n  logic {} g_res, g_w;\n  logic {} g_present;\n",
                     range(Ci * nW), range(Ci * 16), range(Ci));
    s += instance(gather, "u_gather",
                  {{"group_i", "group_q"},
                   {"outlier_chan_i", "outlier_chan_i"},
                   {"residual_i", "residual_i"},
                   {"row_i", "row"},
                   {"iw_o", "g_iw"},
                   {"res_o", "g_res"},
                   {"present_o", "g_present"}});
    s += instance(dequant, "u_dequant",
                  {{"iw_i", "g_iw"}, {"codebook_i", "weight_codebook_i"}, {"w_o", "g_w"}});
    s += fmt::format("  logic comp_valid;\n  logic {} comp_sum;\n", range(aw));
    s += instance(comp, "u_comp_macs",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"issue_i", "issue"},
                   {"first_i", fmt::format("group_q == {}'d0", grw)},
                   {"last_i", fmt::format("group_q == {}'d{}", grw, GR - 1)},
                   {"present_i", "g_present"},
                   {"res_i", "g_res"},
                   {"w_i", "g_w"},
                   {"valid_o", "comp_valid"},
                   {"sum_o", "comp_sum"}});
    s += "\n  // Merge, scaling, rounding and the output FIFO.\n";
    s += instance(merge, "u_merge",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"main_valid_i", "main_valid"},
                   {"main_i", "main_sum"},
                   {"comp_valid_i", "comp_valid"},
                   {"comp_i", "comp_sum"},
                   {"sw_valid_i", "start"},
                   {"sw_i", "row_scale"},
                   {"act_scale_i", "act_scale_i"},
                   {"y_pop_i", "y_pop"},
                   {"y_valid_o", "y_valid_o"},
                   {"y_data_o", "y_data_o"}});
    s += "\nendmodule\n";
    out.files.push_back({module + ".sv", s});

    // The parts, reported on their own by the real-library flow (docs/ppa.md),
    // and the buffers it counts in bits.
    out.manifest["parts"] = nlohmann::ordered_json::array();
    for (const auto& [inst, mod, role] : std::vector<std::array<string, 3>>{
             {"u_wib", wib, "weight_index_buffer"},
             {"u_concat", concat, "concat_units"},
             {"u_counters", module_name(c, "index_counter_array"), "index_counters"},
             {"u_mac_tree", mac_tree, "mac_tree"},
             {"u_gather", gather, "outlier_gather"},
             {"u_dequant", dequant, "dequantization_unit"},
             {"u_comp_macs", comp, "compensation_macs"},
             {"u_merge", merge, "merge_and_output"}}) {
      out.manifest["parts"].push_back({{"instance", inst}, {"module", mod}, {"role", role}});
    }
    out.manifest["memories"] = nlohmann::ordered_json::array(
        {{{"name", "weight_index_buffer"},
          {"what", fmt::format("Weight Index Buffer: two banks of {} {}-bit indices and a "
                               "binary16 s_w",
                               K, nW)},
          {"bits", 2 * (K * nW + 16)},
          {"registers", {"u_wib.bank0_q", "u_wib.bank1_q", "u_wib.scale0_q", "u_wib.scale1_q"}}},
         {{"name", "row_fifos"},
          {"what",
           fmt::format("the merge's FIFOs of {} rows: main and compensation sums ({} bits), "
                       "s_w and y (16 bits)",
                       D, aw)},
          {"bits", D * (2 * aw + 32)},
          {"registers",
           {"u_merge.u_main_fifo.mem_q", "u_merge.u_comp_fifo.mem_q", "u_merge.u_sw_fifo.mem_q",
            "u_merge.u_y_fifo.mem_q"}}}});

    out.manifest["fill_beats_per_row"] = tm.fill_beats;
    out.manifest["count_beats_per_row"] = tm.count_beats;
    out.manifest["chunks_per_row"] = tm.chunks;
    out.manifest["compensation_cycles_per_row"] = tm.groups;
    out.manifest["mac_tree_inputs"] = tm.tree_inputs;
    out.manifest["compensation_macs"] = tm.comp_inputs;
    out.manifest["row_interval_cycles"] = tm.row_interval;
    out.manifest["row_latency_cycles"] = tm.row_latency;
    out.manifest["fifo_depth_rows"] = tm.fifo_depth;
    out.manifest["accumulator"] = fp32 ? "binary32" : "binary16";
    return out;
  }
};

OASIS_REGISTER_BLOCK(PeLineBlock);

}  // namespace
}  // namespace oasis::gen
