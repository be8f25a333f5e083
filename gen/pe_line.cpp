// One PE line (paper IV-A, SPEC section 6) as a generated block: Weight Index
// Buffer, Concat Units feeding the index_counter_array block, the MAC tree and
// its accumulator, the compensation MACs behind the Dequantization Unit, the
// merge and scaling, and an output FIFO with credits. Design and timing:
// docs/pe_line.md; cycle model: model/pe_line.hpp; reduction orders:
// docs/numerics.md.
#include "model/pe_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"

namespace oasis::gen {
namespace {

using std::string;

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
        "/// PE line (paper IV-A, SPEC section 6, docs/pe_line.md): one weight row of K = {K}\n"
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

    // ---- Weight Index Buffer -------------------------------------------
    s += "  // Weight Index Buffer: two banks; the fill side writes one while the read\n"
         "  // side (counting and gathering) reads the other.\n";
    s += fmt::format("  logic {0} bank0_q, bank1_q, bank_rd;\n", range(K * nW));
    s += "  logic [15:0] scale0_q, scale1_q;\n";
    s += "  logic full0_d, full0_q, full1_d, full1_q;\n";
    s += "  logic wr_bank_d, wr_bank_q, rd_bank_d, rd_bank_q, rd_busy_d, rd_busy_q;\n";
    s += fmt::format("  logic {} wr_beat_d, wr_beat_q;\n", range(fbw));
    s += fmt::format("  logic {} cnt_beat_d, cnt_beat_q, cnt_beat_next;\n", range(cbw));
    s += fmt::format("  logic {} group_d, group_q, group_next;\n", range(grw));
    s += fmt::format("  logic {} credits_d, credits_q;\n", range(crw));
    s += "  logic w_fire, w_last, start, go, idx_valid, idx_ready, idx_fire, issue, rd_release;\n";
    s += "  logic y_pop, merge_fire;\n\n";
    s += "  assign w_ready_o = !(wr_bank_q ? full1_q : full0_q);\n";
    s += "  assign w_fire    = w_valid_i && w_ready_o;\n";
    s += F > 1 ? fmt::format("  assign w_last    = wr_beat_q == {}'d{};\n", fbw, F - 1)
               : "  assign w_last    = 1'b1;\n";
    s += "  assign bank_rd   = rd_bank_q ? bank1_q : bank0_q;\n\n";
    // Bank writes, one register block per beat of the row.
    const auto bank_write = [&](const string& lo, int nb, const string& beat) {
      string t;
      for (int bank = 0; bank < 2; ++bank) {
        t += fmt::format(
            "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
            "      if (!rst_ni) begin\n"
            "        bank{0}_q[{1} +: {2}] <= '0;\n"
            "      end else if (w_fire && wr_bank_q == 1'b{0} && wr_beat_q == {3}) begin\n"
            "        bank{0}_q[{1} +: {2}] <= w_data_i[{4}:0];\n"
            "      end\n"
            "    end\n",
            bank, lo, nb * nW, beat, nb * nW - 1);
      }
      return t;
    };
    if (F > 1) {
      s += loop_open("b", F - 1, "g_fill");
      s += bank_write(fmt::format("b*{}", Wb * nW), Wb, fmt::format("{}'(b)", fbw));
      s += loop_close(F - 1);
    }
    s += "  if (1) begin : g_fill_last\n";
    s += bank_write(std::to_string((F - 1) * Wb * nW), last_nb, fmt::format("{}'d{}", fbw, F - 1));
    s += "  end\n";
    if (last_nb < Wb) {
      s += "  // Indices past K in the row's last beat.\n  logic unused_w_tail;\n";
      s += fmt::format("  assign unused_w_tail = ^w_data_i[{}:{}];\n", Wb * nW - 1, last_nb * nW);
    }
    s += "\n";

    // Read side control.
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
         "      scale0_q   <= '0;\n      scale1_q   <= '0;\n"
         "    end else begin\n"
         "      full0_q    <= full0_d;\n      full1_q    <= full1_d;\n"
         "      wr_bank_q  <= wr_bank_d;\n      wr_beat_q  <= wr_beat_d;\n"
         "      rd_bank_q  <= rd_bank_d;\n      rd_busy_q  <= rd_busy_d;\n"
         "      cnt_beat_q <= cnt_beat_d;\n      group_q    <= group_d;\n"
         "      credits_q  <= credits_d;\n"
         "      if (w_fire && wr_beat_q == '0 && !wr_bank_q) scale0_q <= w_scale_i;\n"
         "      if (w_fire && wr_beat_q == '0 && wr_bank_q) scale1_q <= w_scale_i;\n"
         "    end\n  end\n\n";

    // ---- Concat Units and the Index Counter array ------------------------
    const int padded = CB * G;
    s += "  // Concat Units: e = {ia[k], iw[n][k]} for every channel; the counting beat\n"
         "  // picks G of them.\n";
    s += fmt::format("  logic {} concat;\n", range(padded * B));
    s += loop_open("k", K, "g_concat");
    s += fmt::format(
        "    assign concat[k*{0} +: {0}] = {{act_idx_i[k*{1} +: {1}], bank_rd[k*{2} +: {2}]}};\n",
        B, nA, nW);
    s += loop_close(K);
    if (padded > K) s += fmt::format("  assign concat[{}:{}] = '0;\n", padded * B - 1, K * B);
    s += fmt::format("  logic {} idx_data;\n", range(G * B));
    s += "  always_comb begin\n    idx_data = '0;\n";
    s += fmt::format("    for (int b = 0; b < {}; b++) begin\n", CB);
    s += fmt::format("      if (cnt_beat_q == {0}'(b)) idx_data = concat[b*{1} +: {1}];\n", cbw,
                     G * B);
    s += "    end\n  end\n\n";
    s += fmt::format("  logic cnt_valid, cnt_last;\n  logic {} cnt_data;\n  logic {} cnt_chunk;\n",
                     range(T * W), range(chw));
    s += fmt::format(
        "  {0} u_counters (\n"
        "    .clk_i      (clk_i),\n    .rst_ni     (rst_ni),\n"
        "    .idx_valid_i(idx_valid),\n    .idx_ready_o(idx_ready),\n"
        "    .idx_data_i (idx_data),\n    .idx_mask_i ({{{1}{{1'b1}}}}),\n"
        "    .cnt_valid_o(cnt_valid),\n    .cnt_ready_i(1'b1),\n"
        "    .cnt_data_o (cnt_data),\n    .cnt_chunk_o(cnt_chunk),\n    .cnt_last_o (cnt_last)\n"
        "  );\n\n",
        module_name(c, "index_counter_array"), G);

    // ---- Main branch ----------------------------------------------------
    s += fmt::format("  // Main branch: counts to {0}, times the LUT entries, the pairwise tree.\n",
                     fp32 ? "binary32" : "binary16");
    if (T > Tp) {
      s += "  // Lanes of the chunk past the LUT's entries.\n  logic unused_cnt_tail;\n";
      s += fmt::format("  assign unused_cnt_tail = ^cnt_data[{}:{}];\n", T * W - 1, Tp * W);
    }
    // LUT padded to whole chunks; present bits per chunk.
    std::vector<bool> present_main(size_t(CH * Tp));
    for (int ch = 0; ch < CH; ++ch) {
      for (int t = 0; t < Tp; ++t) present_main[size_t(ch * Tp + t)] = ch * T + t < E;
    }
    s += fmt::format("  localparam logic {} MainPresent = {};\n", range(CH * Tp),
                     mask_literal(present_main));
    s += fmt::format("  logic {} lut_pad;\n  logic {} lut_sel;\n  logic {} main_present;\n",
                     range(CH * T * 16), range(T * 16), range(Tp));
    s += CH * T > E ? fmt::format("  assign lut_pad = {{{}'(0), lut_i}};\n", (CH * T - E) * 16)
                    : "  assign lut_pad = lut_i;\n";
    s += "  always_comb begin\n    lut_sel = '0;\n    main_present = '0;\n";
    s += fmt::format("    for (int c = 0; c < {}; c++) begin\n", CH);
    s += fmt::format(
        "      if (cnt_chunk == {0}'(c)) begin\n"
        "        lut_sel = lut_pad[c*{1} +: {1}];\n"
        "        main_present = MainPresent[c*{2} +: {2}];\n"
        "      end\n    end\n  end\n",
        chw, T * 16, Tp);
    if (T * 16 > Tp * 16) {
      s += "  logic unused_lut_tail;\n";
      s += fmt::format("  assign unused_lut_tail = ^lut_sel[{}:{}];\n", T * 16 - 1, Tp * 16);
    }
    s += fmt::format("  logic {0} count_a, lut_a;\n", range(Tp * aw));
    s += fmt::format("  for (genvar t = 0; t < {}; t++) begin : g_lane\n", Tp);
    s += "    logic [31:0] count32;\n";
    s += fmt::format(
        "    oasis_fp_from_uint #(\n      .IntBits ({}),\n      .ExpBits (8),\n      "
        ".FracBits(23)\n"
        "    ) u_count (\n      .n_i     (cnt_data[t*{} +: {}]),\n      .result_o(count32)\n    "
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
    s += pipe("u_conv_pipe", conv_w, S, "cnt_valid",
              fmt::format("{{cnt_last, cnt_chunk == {}'d0, main_present, count_a, lut_a}}", chw),
              "conv_valid", "conv_q");
    s += fmt::format("  logic {} prod;\n", range(Tp * aw));
    s += fmt::format("  for (genvar t = 0; t < {}; t++) begin : g_mul\n", Tp);
    s += fp_mul(f, "u_mul", fmt::format("conv_q[{} + t*{} +: {}]", Tp * aw, aw, aw),
                fmt::format("conv_q[t*{0} +: {0}]", aw), fmt::format("prod[t*{0} +: {0}]", aw),
                "    ");
    s += "  end\n";
    const int mul_w = 2 + Tp + Tp * aw;
    s += fmt::format("  logic mul_valid;\n  logic {} mul_q;\n", range(mul_w));
    s +=
        pipe("u_mul_pipe", mul_w, S, "conv_valid",
             fmt::format("{{conv_q[{}:{}], prod}}", conv_w - 1, 2 * Tp * aw), "mul_valid", "mul_q");
    // Tree levels.
    string cur = "mul_q", cur_valid = "mul_valid";
    int n = Tp;
    int level = 0;
    while (n > 1) {
      const string name = fmt::format("lvl{}", level);
      const int w = 2 + n + n * aw;
      const string vals = fmt::format("{}[{}:0]", cur, n * aw - 1);
      const string pres = fmt::format("{}[{}:{}]", cur, n * aw + n - 1, n * aw);
      s += fmt::format("  logic {0} {1}_in;\n  logic {2} {1}_in_p;\n", range(n * aw), name,
                       range(n));
      s += fmt::format("  assign {0}_in = {1};\n  assign {0}_in_p = {2};\n", name, vals, pres);
      s += tree_level(f, S, name, n, name + "_in", name + "_in_p", cur_valid,
                      fmt::format("{}[{}:{}]", cur, w - 1, w - 2), 2);
      cur = name + "_q";
      cur_valid = name + "_valid";
      n = (n + 1) / 2;
      ++level;
    }
    // cur: {last, first, present[0], root}
    s += "  // The root's present bit is always set (a chunk has an entry).\n";
    s += fmt::format(
        "  logic root_valid, root_first, root_last, unused_root_present;\n"
        "  logic {0} root, main_sum, main_d, main_q;\n",
        range(aw));
    s += fmt::format("  assign root_valid = {};\n  assign root = {}[{}:0];\n", cur_valid, cur,
                     aw - 1);
    s += fmt::format("  assign unused_root_present = {}[{}];\n", cur, aw);
    s += fmt::format("  assign root_first = {}[{}];\n  assign root_last = {}[{}];\n", cur, aw + 1,
                     cur, aw + 2);
    s += "  // The accumulator: the combinational adder and one register, so the loop\n"
         "  // closes in a cycle; chunk 0 loads it.\n";
    s += fp_add(f, "u_main_acc", "main_q", "root", "main_sum");
    s += "  assign main_d = root_valid ? (root_first ? root : main_sum) : main_q;\n";
    s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) main_q <= '0;\n    else main_q <= main_d;\n  end\n\n";

    // ---- Outlier branch ---------------------------------------------------
    s += "  // Outlier branch: the gather reads outliers j = group*Mc + m, the\n"
         "  // Dequantization Unit looks up C_W[iw[n][o_j]], the MACs multiply by r[o_j].\n";
    const int slots = GR * Mc;
    std::vector<bool> present_comp(size_t(GR * Ci));
    for (int g = 0; g < GR; ++g) {
      for (int m = 0; m < Ci; ++m) present_comp[size_t(g * Ci + m)] = g * Mc + m < k2;
    }
    s += fmt::format("  localparam logic {} CompPresent = {};\n", range(GR * Ci),
                     mask_literal(present_comp));
    s += fmt::format("  logic {} chan_pad;\n  logic {} res_pad;\n", range(slots * CW),
                     range(slots * 16));
    s += slots > k2 ? fmt::format(
                          "  assign chan_pad = {{{}'(0), outlier_chan_i}};\n"
                          "  assign res_pad = {{{}'(0), residual_i}};\n",
                          (slots - k2) * CW, (slots - k2) * 16)
                    : "  assign chan_pad = outlier_chan_i;\n  assign res_pad = residual_i;\n";
    s += fmt::format("  logic {} g_chan;\n  logic {} g_res;\n  logic {} g_present;\n",
                     range(Ci * CW), range(Ci * 16), range(Ci));
    s += "  always_comb begin\n    g_chan = '0;\n    g_res = '0;\n    g_present = '0;\n";
    s += fmt::format("    for (int g = 0; g < {}; g++) begin\n", GR);
    s += fmt::format(
        "      if (group_q == {0}'(g)) begin\n"
        "        g_chan = chan_pad[g*{1} +: {2}];\n"
        "        g_res = res_pad[g*{3} +: {4}];\n"
        "        g_present = CompPresent[g*{5} +: {5}];\n"
        "      end\n    end\n  end\n",
        grw, Mc * CW, Ci * CW, Mc * 16, Ci * 16, Ci);
    if (Mc > Ci) {
      // One group (Mc > 2k): the slots past 2k are padding nothing reads.
      s += "  logic unused_slots;\n";
      s += fmt::format("  assign unused_slots = ^{{chan_pad[{}:{}], res_pad[{}:{}]}};\n",
                       slots * CW - 1, Ci * CW, slots * 16 - 1, Ci * 16);
    }
    s += fmt::format("  logic {} g_prod;\n", range(Ci * aw));
    s += fmt::format("  for (genvar m = 0; m < {}; m++) begin : g_gather\n", Ci);
    s += fmt::format("    logic [{}:0] iw;\n    logic [15:0] w16;\n    logic [{}:0] w_a, r_a;\n",
                     nW - 1, aw - 1);
    // Both lookups read constant part-selects: no tool has to size a variable
    // index product. The outlier's weight index is a balanced multiplexer over
    // the K channels (mux_tree), the codebook entry a 2^nW-way one.
    s += mux_tree("iw_mux", "bank_rd", K, nW, fmt::format("g_chan[m*{0} +: {0}]", CW), CW, "iw",
                  "    ");
    s += fmt::format(
        "    always_comb begin\n"
        "      w16 = '0;\n"
        "      for (int i = 0; i < {1}; i++) begin\n"
        "        if (iw == {0}'(i)) w16 = weight_codebook_i[i*16 +: 16];\n"
        "      end\n"
        "    end\n",
        nW, 1 << nW);
    s += widen(f, "u_widen_w", "w16", "w_a", "    ");
    s += widen(f, "u_widen_r", "g_res[m*16 +: 16]", "r_a", "    ");
    s += fp_mul(f, "u_mul", "r_a", "w_a", fmt::format("g_prod[m*{0} +: {0}]", aw), "    ");
    s += "  end\n";
    const int cm_w = 2 + Ci + Ci * aw;
    s += fmt::format("  logic cm_valid;\n  logic {} cm_q;\n", range(cm_w));
    s += pipe(
        "u_comp_pipe", cm_w, S, "issue",
        fmt::format("{{group_q == {0}'d{1}, group_q == {0}'d0, g_present, g_prod}}", grw, GR - 1),
        "cm_valid", "cm_q");
    s += "  // The compensation MACs: combinational adder and one register each.\n";
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
    cur = "macs_q";
    cur_valid = "comp_done_q";
    n = Ci;
    level = 0;
    string comp_out = "macs_q";
    string comp_valid = "comp_done_q";
    while (n > 1) {
      const string name = fmt::format("ct{}", level);
      const string vals = level == 0 ? string("macs_q") : fmt::format("{}[{}:0]", cur, n * aw - 1);
      const string pres =
          level == 0 ? string("'1") : fmt::format("{}[{}:{}]", cur, n * aw + n - 1, n * aw);
      s += fmt::format("  logic {0} {1}_in;\n  logic {2} {1}_in_p;\n", range(n * aw), name,
                       range(n));
      s += fmt::format("  assign {0}_in = {1};\n  assign {0}_in_p = {2};\n", name, vals, pres);
      s += tree_level(f, S, name, n, name + "_in", name + "_in_p", cur_valid, "", 0);
      cur = name + "_q";
      cur_valid = name + "_valid";
      n = (n + 1) / 2;
      ++level;
      comp_out = fmt::format("{}[{}:0]", cur, aw - 1);
      comp_valid = cur_valid;
      if (n == 1) {
        s += fmt::format("  logic unused_{}_p;\n  assign unused_{}_p = {}[{}];\n", name, name, cur,
                         aw);
      }
    }
    s += "\n";

    // ---- Merge, scale, output -------------------------------------------
    s += "  // Rows meet in order: main and compensation results and the row's s_w wait\n"
         "  // in FIFOs; credits keep every FIFO from overflowing.\n";
    s += fmt::format("  logic {0} main_head, comp_head;\n  logic [15:0] sw_head, y_head;\n",
                     range(aw));
    s += "  logic main_empty, comp_empty, unused_sw_empty, y_empty;\n";
    s += "  logic unused_main_full, unused_comp_full, unused_sw_full, unused_y_full;\n";
    s += fifo("u_main_fifo", aw, D, "root_valid && root_last", "main_d", "merge_fire", "main_head",
              "main_empty", "unused_main_full");
    s += fifo("u_comp_fifo", aw, D, comp_valid, comp_out, "merge_fire", "comp_head", "comp_empty",
              "unused_comp_full");
    s += fifo("u_sw_fifo", 16, D, "start", "rd_bank_q ? scale1_q : scale0_q", "merge_fire",
              "sw_head", "unused_sw_empty", "unused_sw_full");
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
    s += fifo("u_y_fifo", 16, D, y_valid, y_value, "y_pop", "y_head", "y_empty", "unused_y_full");
    s += "  assign y_valid_o = !y_empty;\n  assign y_data_o = y_head;\n\n";
    s += "endmodule\n";
    out.files.push_back({module + ".sv", s});

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
