// The OASIS core (paper IV-A, Fig. 8; docs/spec.md sections 1 and 6) as a generated
// block: the register file, the token pre-processing (a hold register feeding
// the Clustering Unit, Orizuru, the Error Calculation Unit, the activation
// index buffer) into a next-token context, the current context the P PE lines
// read, and the weight and output streams. Design and timing: docs/core.md;
// cycle model: model/core.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gen/block.hpp"
#include "gen/sv.hpp"
#include "model/regfile.hpp"

namespace oasis::gen {
namespace {

using std::string;

string range(int width) { return fmt::format("[{}:0]", width - 1); }

// Error Calculation Unit: r = xhat[o] - C_A[ia[o]] for the outlier Orizuru
// presents, its activation index read by a balanced multiplexer tree.
string ecu_module(const string& name, int K, int nA, int CW, int S) {
  string s = module_header(
      name,
      fmt::format("Error Calculation Unit (paper IV-A): for the outlier (channel o, value\n"
                  "xhat[o]) taken this cycle, r = xhat[o] - C_A[ia[o]] in binary16, ia[o] read\n"
                  "from the K = {} activation indices by a balanced tree of 2-to-1 multiplexers;\n"
                  "{} register stage(s).",
                  K, S),
      {{"input", 0, "clk_i", "Clock."},
       {"input", 0, "rst_ni", "Asynchronous reset, active low."},
       {"input", 0, "fire_i", "An outlier is taken this cycle."},
       {"input", 16 + CW, "outlier_i",
        fmt::format("The outlier: channel o at [{}:0], xhat[o] (binary16) above it.", CW - 1)},
       {"input", K * nA, "act_idx_i", fmt::format("The token's ia[k] at [k*{0} +: {0}].", nA)},
       {"input", (1 << nA) * 16, "act_codebook_i", "C_A: centroid i, binary16, at [i*16 +: 16]."},
       {"output", 0, "valid_o", "data_o holds an outlier's residual."},
       {"output", 16 + CW, "data_o",
        fmt::format("The channel o at [{}:{}] and r = xhat[o] - C_A[ia[o]] at [15:0].", 15 + CW,
                    16)}});
  s += fmt::format("  logic {} chan;\n  logic [15:0] value, ca, r;\n  logic {} ia;\n",
                   range(CW), range(nA));
  s += fmt::format("  assign chan  = outlier_i[{}:0];\n  assign value = outlier_i[{}:{}];\n",
                   CW - 1, 15 + CW, CW);
  s += fmt::format(
      "  always_comb begin\n    ca = '0;\n"
      "    for (int i = 0; i < {0}; i++) begin\n"
      "      if (ia == {1}'(i)) ca = act_codebook_i[i*16 +: 16];\n"
      "    end\n  end\n",
      1 << nA, nA);
  s += mux_tree("ia_mux", "act_idx_i", K, nA, "chan", CW, "ia", "  ");
  s += "  oasis_fp_add #(\n    .ExpBits (5),\n    .FracBits(10)\n  ) u_sub (\n"
       "    .a_i  (value),\n    .b_i  (ca),\n    .sub_i(1'b1),\n    .sum_o(r)\n  );\n";
  s += fmt::format(
      "  oasis_fp_pipe #(\n    .Width ({}),\n    .Stages({})\n  ) u_pipe (\n"
      "    .clk_i  (clk_i),\n    .rst_ni (rst_ni),\n    .valid_i(fire_i),\n"
      "    .data_i ({{chan, r}}),\n    .valid_o(valid_o),\n    .data_o (data_o)\n  );\n\n"
      "endmodule\n",
      16 + CW, S);
  return s;
}

class CoreBlock final : public Block {
 public:
  string name() const override { return "core"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const Derived d = derive(c);
    const CoreTiming& tm = d.core;
    const int K = c.channels, nA = c.act_bits, nW = c.weight_bits;
    const int E = d.lut_entries;
    const int P = c.pe_lines, R = tm.beat_activations, L = c.clustering_lanes;
    const int PARTS = tm.clustering_parts, BEATS = tm.token_beats;
    const int Wb = c.weight_beat_indices, F = tm.group_beats;
    const int k2 = d.outliers;
    const int CW = d.channel_bits;
    const int S = tm.ecu_latency;
    const int RB = tm.rows_bits;
    const int bw = index_width(BEATS);
    const int pw = index_width(PARTS);
    const int fw = index_width(F);
    const int jw = index_width(k2);
    const int lw = tm.weight_lane_bits;  // one lane of the weight stream
    const int amsb = kRegAddrBits - 1;

    out.primitives = {"oasis_fp_round.sv", "oasis_fp_add.sv", "oasis_fp_pipe.sv"};
    out.uses = {"regfile", "clustering_unit", "orizuru", "pe_line"};
    const string ecu = module + "_ecu";
    out.files.push_back({ecu + ".sv", ecu_module(ecu, K, nA, CW, S)});

    string s = fmt::format(
        "/// The OASIS core (paper IV-A, Fig. 8; docs/core.md): K = {K} channels, {P} PE line(s),\n"
        "/// W{nW}A{nA}, {k} outlier(s) per side. Tokens come in as {BEATS} beat(s) of {R}\n"
        "/// activations; the Clustering Unit ({L} lane(s), {PARTS} cycle(s) a beat), Orizuru\n"
        "/// and the Error Calculation Unit turn a token into its context (activation indices,\n"
        "/// outlier channels and residuals, s_a) while the lines work on the previous one.\n"
        "/// Weights come in as groups of {P} row(s), {F} beat(s) of {Wb} indices per row;\n"
        "/// outputs leave in row order. Codebooks, LUT and boundaries sit behind the register\n"
        "/// port (regmap.json) and change only while idle_o is high.\n"
        "module {module} (\n"
        "  /// Clock.\n  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n  input  logic rst_ni,\n"
        "  /// Register port: write strobe (reg_wdata_i to reg_addr_i at this edge).\n"
        "  input  logic reg_we_i,\n"
        "  /// Register port: read strobe (the word appears on reg_rdata_o next cycle).\n"
        "  input  logic reg_re_i,\n"
        "  /// Register port: word address (regmap.json).\n  input  logic [{amsb}:0] reg_addr_i,\n"
        "  /// Register port: write data.\n  input  logic [15:0] reg_wdata_i,\n"
        "  /// Register port: read data valid, one cycle after reg_re_i.\n"
        "  output logic reg_rvalid_o,\n"
        "  /// Register port: read data.\n  output logic [15:0] reg_rdata_o,\n"
        "  /// A token beat is offered.\n  input  logic x_valid_i,\n"
        "  /// The core takes the offered token beat this cycle.\n  output logic x_ready_o,\n"
        "  /// The beat: xhat[b*{R} + i], binary16, at [i*16 +: 16] (channels past K ignored).\n"
        "  input  logic {r_x} x_data_i,\n"
        "  /// The token's scale s_a, binary16, taken with the token's first beat.\n"
        "  input  logic [15:0] x_scale_i,\n"
        "  /// A weight beat is offered.\n  input  logic w_valid_i,\n"
        "  /// The core takes the offered weight beat this cycle.\n  output logic w_ready_o,\n"
        "  /// The beat: lane p (row g*{P} + p of group g) at [p*{lw} +: {lw}], its index i at\n"
        "  /// [p*{lw} + i*{nW} +: {nW}] (channel b*{Wb} + i; indices past K ignored).\n"
        "  input  logic {r_w} w_data_i,\n"
        "  /// The rows' scales s_w, binary16, lane p at [p*16 +: 16]; taken with the first beat.\n"
        "  input  logic {r_ws} w_scale_i,\n"
        "  /// Rows in the token's last group (1 .. {P}; other values mean {P}); taken with the\n"
        "  /// first beat of a group whose w_last_i is high. Other groups have {P} rows.\n"
        "  input  logic {r_rows} w_rows_i,\n"
        "  /// The group is the token's last; taken with the group's first beat.\n"
        "  input  logic w_last_i,\n"
        "  /// An output group is presented.\n  output logic y_valid_o,\n"
        "  /// The consumer takes the presented group this cycle.\n  input  logic y_ready_i,\n"
        "  /// The group's outputs, binary16: lane p (row g*{P} + p of group g) at [p*16 +: 16];\n"
        "  /// lanes at or past y_rows_o are 0.\n"
        "  output logic {r_ws} y_data_o,\n"
        "  /// Rows in the presented group ({P}, or fewer in the token's last group).\n"
        "  output logic {r_rows} y_rows_o,\n"
        "  /// The presented group is the token's last.\n  output logic y_last_o,\n"
        "  /// Nothing in flight and no token waiting for weights: registers may be written.\n"
        "  output logic idle_o\n"
        ");\n\n",
        fmt::arg("K", K), fmt::arg("P", P), fmt::arg("nW", nW), fmt::arg("nA", nA),
        fmt::arg("k", c.outliers_per_side), fmt::arg("BEATS", BEATS), fmt::arg("R", R),
        fmt::arg("L", L), fmt::arg("PARTS", PARTS), fmt::arg("F", F), fmt::arg("Wb", Wb),
        fmt::arg("module", module), fmt::arg("amsb", amsb), fmt::arg("r_x", range(R * 16)),
        fmt::arg("lw", lw), fmt::arg("r_w", range(P * lw)), fmt::arg("r_ws", range(P * 16)),
        fmt::arg("r_rows", range(RB)));

    // ---- Register file --------------------------------------------------
    s += fmt::format(
        "  // Register file: the layer's LUT, codebooks and boundaries.\n"
        "  logic {} lut;\n  logic {} act_codebook;\n  logic {} weight_codebook;\n"
        "  logic {} boundaries;\n",
        range(E * 16), range(d.act_centroids * 16), range(d.weight_centroids * 16),
        range(d.boundaries * 16));
    s += fmt::format(
        "  {}_regfile u_regfile (\n"
        "    .clk_i            (clk_i),\n    .rst_ni           (rst_ni),\n"
        "    .reg_we_i         (reg_we_i),\n    .reg_re_i         (reg_re_i),\n"
        "    .reg_addr_i       (reg_addr_i),\n    .reg_wdata_i      (reg_wdata_i),\n"
        "    .reg_rvalid_o     (reg_rvalid_o),\n    .lut_o            (lut),\n"
        "    .act_codebook_o   (act_codebook),\n    .weight_codebook_o(weight_codebook),\n"
        "    .boundaries_o     (boundaries),\n    .reg_rdata_o      (reg_rdata_o)\n  );\n\n",
        "oasis_" + c.name);

    // ---- Token side -----------------------------------------------------
    s += "  // Token side: each beat goes to Orizuru and to the hold register, which feeds\n"
         "  // the Clustering Unit one part of the beat a cycle.\n";
    s += fmt::format("  logic {} in_beat_d, in_beat_q, out_beat_d, out_beat_q;\n", range(bw));
    s += fmt::format("  logic {} hold_part_d, hold_part_q, out_part_d, out_part_q;\n", range(pw));
    s += fmt::format("  logic {} hold_q;\n  logic {} cu_act;\n", range(R * 16), range(L * 16));
    s += fmt::format("  logic {} cu_idx;\n", range(L * nA));
    s += "  logic slot_busy_d, slot_busy_q, hold_valid_d, hold_valid_q, idx_done_d, idx_done_q;\n";
    s += "  logic oz_in_ready, cu_act_ready, cu_idx_valid, hold_ok, x_fire, cu_fire;\n";
    s += "  logic unused_cu_busy, unused_oz_side;\n";
    s += fmt::format("  logic {} scale_next_q;\n", range(16));
    s += fmt::format(
        "  assign hold_ok   = !hold_valid_q || (hold_part_q == {pw}'d{pl} && cu_act_ready);\n"
        "  assign x_ready_o = (in_beat_q != '0 || !slot_busy_q) && oz_in_ready && hold_ok;\n"
        "  assign x_fire    = x_valid_i && x_ready_o;\n"
        "  assign cu_fire   = hold_valid_q && cu_act_ready;\n\n",
        fmt::arg("pw", pw), fmt::arg("pl", PARTS - 1));
    s += "  always_comb begin\n    cu_act = '0;\n";
    for (int p = 0; p < PARTS; ++p) {
      const int n = std::min(L, R - p * L);
      s += fmt::format("    if (hold_part_q == {}'d{}) cu_act[{}:0] = hold_q[{} +: {}];\n", pw, p,
                       n * 16 - 1, p * L * 16, n * 16);
    }
    s += "  end\n\n";
    s += fmt::format(
        "  {0}_clustering_unit u_clustering (\n"
        "    .clk_i       (clk_i),\n    .rst_ni      (rst_ni),\n"
        "    .boundaries_i(boundaries),\n    .act_valid_i (hold_valid_q),\n"
        "    .act_ready_o (cu_act_ready),\n    .act_data_i  (cu_act),\n"
        "    .idx_valid_o (cu_idx_valid),\n    .idx_ready_i (1'b1),\n"
        "    .idx_data_o  (cu_idx),\n    .busy_o      (unused_cu_busy)\n  );\n\n",
        "oasis_" + c.name);
    s += fmt::format("  logic oz_out_valid;\n  logic {} oz_out;\n", range(17 + CW));
    s += fmt::format(
        "  {0}_orizuru u_orizuru (\n"
        "    .clk_i      (clk_i),\n    .rst_ni     (rst_ni),\n"
        "    .in_valid_i (x_fire),\n    .in_ready_o (oz_in_ready),\n    .in_data_i  (x_data_i),\n"
        "    .out_valid_o(oz_out_valid),\n    .out_ready_i(idx_done_q),\n"
        "    .out_data_o (oz_out)\n  );\n  assign unused_oz_side = oz_out[{1}];\n\n",
        "oasis_" + c.name, 16 + CW);

    // Counters of the token side.
    s += fmt::format(
        "  always_comb begin\n"
        "    in_beat_d    = in_beat_q;\n    slot_busy_d  = slot_busy_q;\n"
        "    hold_valid_d = hold_valid_q;\n    hold_part_d  = hold_part_q;\n"
        "    out_beat_d   = out_beat_q;\n    out_part_d   = out_part_q;\n"
        "    idx_done_d   = idx_done_q;\n"
        "    if (x_fire) begin\n"
        "      slot_busy_d  = 1'b1;\n      hold_valid_d = 1'b1;\n      hold_part_d  = '0;\n"
        "      in_beat_d    = in_beat_q == {bw}'d{bl} ? '0 : in_beat_q + {bw}'d1;\n"
        "    end else if (cu_fire) begin\n"
        "      if (hold_part_q == {pw}'d{pl}) hold_valid_d = 1'b0;\n"
        "      else hold_part_d = hold_part_q + {pw}'d1;\n"
        "    end\n"
        "    if (cu_idx_valid) begin\n"
        "      if (out_part_q == {pw}'d{pl}) begin\n"
        "        out_part_d = '0;\n"
        "        if (out_beat_q == {bw}'d{bl}) begin\n"
        "          out_beat_d = '0;\n          idx_done_d = 1'b1;\n"
        "        end else begin\n          out_beat_d = out_beat_q + {bw}'d1;\n        end\n"
        "      end else begin\n        out_part_d = out_part_q + {pw}'d1;\n      end\n"
        "    end\n"
        "    if (do_switch) begin\n      slot_busy_d = 1'b0;\n      idx_done_d  = 1'b0;\n    end\n"
        "  end\n\n",
        fmt::arg("bw", bw), fmt::arg("bl", BEATS - 1), fmt::arg("pw", pw),
        fmt::arg("pl", PARTS - 1));
    s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) begin\n"
         "      in_beat_q    <= '0;\n      slot_busy_q  <= 1'b0;\n      hold_valid_q <= 1'b0;\n"
         "      hold_part_q  <= '0;\n      out_beat_q   <= '0;\n      out_part_q   <= '0;\n"
         "      idx_done_q   <= 1'b0;\n      hold_q       <= '0;\n      scale_next_q <= '0;\n"
         "    end else begin\n"
         "      in_beat_q    <= in_beat_d;\n      slot_busy_q  <= slot_busy_d;\n"
         "      hold_valid_q <= hold_valid_d;\n      hold_part_q  <= hold_part_d;\n"
         "      out_beat_q   <= out_beat_d;\n      out_part_q   <= out_part_d;\n"
         "      idx_done_q   <= idx_done_d;\n"
         "      if (x_fire) hold_q <= x_data_i;\n"
         "      if (x_fire && in_beat_q == '0) scale_next_q <= x_scale_i;\n"
         "    end\n  end\n\n";

    // Activation index buffer (next token): one register per channel.
    s += "  // Activation Index Buffer of the next token: channel ch is lane i of part p of\n"
         "  // beat b, written when the Clustering Unit presents that part.\n";
    s += fmt::format("  logic {0} idx_next_q, cur_idx_q;\n  logic do_switch;\n", range(K * nA));
    s += loop_open("ch", K, "g_idx");
    s += fmt::format(
        "    localparam int Beat = ch / {R};\n"
        "    localparam int Part = (ch % {R}) / {L};\n"
        "    localparam int Lane = (ch % {R}) % {L};\n"
        "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "      if (!rst_ni) begin\n"
        "        idx_next_q[ch*{nA} +: {nA}] <= '0;\n"
        "      end else if (cu_idx_valid && out_beat_q == {bw}'(Beat) && out_part_q == {pw}'(Part)) "
        "begin\n"
        "        idx_next_q[ch*{nA} +: {nA}] <= cu_idx[Lane*{nA} +: {nA}];\n"
        "      end\n"
        "    end\n"
        "    // The current token's index (one reset per channel: a K * nA-bit '0 is too\n"
        "    // wide a replication for lint).\n"
        "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "      if (!rst_ni) begin\n"
        "        cur_idx_q[ch*{nA} +: {nA}] <= '0;\n"
        "      end else if (do_switch) begin\n"
        "        cur_idx_q[ch*{nA} +: {nA}] <= idx_next_q[ch*{nA} +: {nA}];\n"
        "      end\n"
        "    end\n",
        fmt::arg("R", R), fmt::arg("L", L), fmt::arg("nA", nA), fmt::arg("bw", bw),
        fmt::arg("pw", pw));
    s += loop_close(K);
    s += "\n";

    // ---- Error Calculation Unit -----------------------------------------
    s += "  // Error Calculation Unit: r = xhat[o] - C_A[ia[o]] for each outlier Orizuru gives,\n"
         "  // once the token's indices are all in; the residuals fill the next context in\n"
         "  // Orizuru's order.\n";
    s += fmt::format(
        "  logic ecu_fire, ecu_valid, next_full_d, next_full_q;\n"
        "  logic {r_e} ecu_q;\n  logic {r_j} ecu_count_d, ecu_count_q;\n"
        "  logic {r_res} resid_next_q;\n  logic {r_och} chan_next_q;\n"
        "  assign ecu_fire = oz_out_valid && idx_done_q;\n",
        fmt::arg("r_e", range(16 + CW)), fmt::arg("r_j", range(jw)),
        fmt::arg("r_res", range(k2 * 16)), fmt::arg("r_och", range(k2 * CW)));
    s += instance(ecu, "u_ecu",
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"fire_i", "ecu_fire"},
                   {"outlier_i", fmt::format("oz_out[{}:0]", 15 + CW)},
                   {"act_idx_i", "idx_next_q"},
                   {"act_codebook_i", "act_codebook"},
                   {"valid_o", "ecu_valid"},
                   {"data_o", "ecu_q"}});
    s += fmt::format(
        "  always_comb begin\n"
        "    ecu_count_d = ecu_count_q;\n    next_full_d = next_full_q;\n"
        "    if (ecu_valid) begin\n"
        "      if (ecu_count_q == {jw}'d{jl}) begin\n"
        "        ecu_count_d = '0;\n        next_full_d = 1'b1;\n"
        "      end else begin\n        ecu_count_d = ecu_count_q + {jw}'d1;\n      end\n"
        "    end\n"
        "    if (do_switch) next_full_d = 1'b0;\n"
        "  end\n"
        "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "    if (!rst_ni) begin\n      ecu_count_q <= '0;\n      next_full_q <= 1'b0;\n"
        "    end else begin\n      ecu_count_q <= ecu_count_d;\n      next_full_q <= next_full_d;\n"
        "    end\n  end\n",
        fmt::arg("jw", jw), fmt::arg("jl", k2 - 1));
    s += fmt::format(
        "  for (genvar j = 0; j < {k2}; j++) begin : g_resid\n"
        "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "      if (!rst_ni) begin\n"
        "        resid_next_q[j*16 +: 16]   <= '0;\n        chan_next_q[j*{CW} +: {CW}] <= '0;\n"
        "      end else if (ecu_valid && ecu_count_q == {jw}'(j)) begin\n"
        "        resid_next_q[j*16 +: 16]   <= ecu_q[15:0];\n"
        "        chan_next_q[j*{CW} +: {CW}] <= ecu_q[{em}:16];\n"
        "      end\n    end\n  end\n\n",
        fmt::arg("k2", k2), fmt::arg("CW", CW), fmt::arg("jw", jw), fmt::arg("em", 15 + CW));

    // ---- Current context and the lines --------------------------------------
    s += "  // The current token's context, read by every line; it changes only when the\n"
         "  // lines are idle and the previous token has had all its weight groups.\n";
    s += fmt::format(
        "  logic lines_idle, ctx_valid_d, ctx_valid_q;\n"
        "  logic {r_och} cur_chan_q;\n  logic {r_res} cur_resid_q;\n"
        "  logic [15:0] cur_scale_q;\n"
        "  logic {r_p} line_w_valid, line_w_ready, line_y_valid, line_y_ready, line_idle;\n"
        "  logic {r_y} line_y_data;\n"
        "  assign lines_idle = &line_idle;\n"
        "  assign do_switch  = next_full_q && !ctx_valid_q && lines_idle;\n"
        "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "    if (!rst_ni) begin\n"
        "      cur_chan_q <= '0;\n      cur_resid_q <= '0;\n"
        "      cur_scale_q <= '0;\n"
        "    end else if (do_switch) begin\n"
        "      cur_chan_q <= chan_next_q;\n"
        "      cur_resid_q <= resid_next_q;\n      cur_scale_q <= scale_next_q;\n"
        "    end\n  end\n\n",
        fmt::arg("r_och", range(k2 * CW)),
        fmt::arg("r_res", range(k2 * 16)), fmt::arg("r_p", range(P)),
        fmt::arg("r_y", range(P * 16)));

    // Weight side.
    s += fmt::format(
        "  // Weight side: a group's beats go to every line with a row in the group.\n"
        "  logic w_fire, w_first, group_last_d, group_last_q, last_group, last_seen_d, last_seen_q;\n"
        "  logic {r_f} w_beat_d, w_beat_q;\n"
        "  logic {r_rb} rows_in, rows, group_rows_d, group_rows_q;\n"
        "  logic [31:0] rows_total_d, rows_total_q, out_count_d, out_count_q;\n"
        "  logic [31:0] rows_left;\n"
        "  assign w_ready_o  = ctx_valid_q && &line_w_ready;\n"
        "  assign w_fire     = w_valid_i && w_ready_o;\n"
        "  assign w_first    = w_beat_q == '0;\n"
        "  assign rows_in    = w_last_i && w_rows_i != '0{upper} ? w_rows_i : {rb}'d{P};\n"
        "  assign rows       = w_first ? rows_in : group_rows_q;\n"
        "  assign last_group = w_first ? w_last_i : group_last_q;\n"
        "  for (genvar p = 0; p < {P}; p++) begin : g_w_valid\n"
        "    assign line_w_valid[p] = w_fire && {rb}'(p) < rows;\n"
        "  end\n\n",
        fmt::arg("r_f", range(fw)), fmt::arg("r_rb", range(RB)),
        fmt::arg("rb", RB), fmt::arg("P", P),
        // Every nonzero value of w_rows_i is at most P when P = 2^RB - 1.
        fmt::arg("upper", (1 << RB) - 1 == P ? "" : fmt::format(" && w_rows_i <= {}'d{}", RB, P)));
    // Output side.
    s += fmt::format(
        "  // Output side: one group of rows a beat, lane p from line p. Only the token's last\n"
        "  // group can have fewer than {P} rows; its lines alone must have their outputs.\n"
        "  assign rows_left = rows_total_q - out_count_q;\n"
        "  assign y_rows_o  = last_seen_q && rows_left < 32'd{P} ? {rb}'(rows_left) : {rb}'d{P};\n"
        "  always_comb begin\n"
        "    y_valid_o = y_rows_o != '0;\n"
        "    y_data_o  = '0;\n"
        "    for (int p = 0; p < {P}; p++) begin\n"
        "      if ({rb}'(p) < y_rows_o) begin\n"
        "        y_valid_o = y_valid_o && line_y_valid[p];\n"
        "        y_data_o[p*16 +: 16] = line_y_data[p*16 +: 16];\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "  for (genvar p = 0; p < {P}; p++) begin : g_y_ready\n"
        "    assign line_y_ready[p] = y_ready_i && y_valid_o && {rb}'(p) < y_rows_o;\n"
        "  end\n"
        "  assign y_last_o = last_seen_q && rows_left <= 32'd{P};\n"
        "  assign idle_o   = !slot_busy_q && !ctx_valid_q && lines_idle;\n\n",
        fmt::arg("P", P), fmt::arg("rb", RB));
    s += fmt::format(
        "  always_comb begin\n"
        "    ctx_valid_d  = ctx_valid_q;\n    w_beat_d     = w_beat_q;\n"
        "    group_rows_d = group_rows_q;\n    group_last_d = group_last_q;\n"
        "    last_seen_d  = last_seen_q;\n    rows_total_d = rows_total_q;\n"
        "    out_count_d  = out_count_q;\n"
        "    if (w_fire) begin\n"
        "      if (w_first) begin\n        group_rows_d = rows_in;\n        group_last_d = w_last_i;\n"
        "      end\n"
        "      if (w_beat_q == {fw}'d{fl}) begin\n"
        "        w_beat_d     = '0;\n        rows_total_d = rows_total_q + 32'(rows);\n"
        "        if (last_group) begin\n          ctx_valid_d = 1'b0;\n          last_seen_d = 1'b1;\n"
        "        end\n"
        "      end else begin\n        w_beat_d = w_beat_q + {fw}'d1;\n      end\n"
        "    end\n"
        "    if (y_valid_o && y_ready_i) out_count_d = out_count_q + 32'(y_rows_o);\n"
        "    if (do_switch) begin\n"
        "      ctx_valid_d  = 1'b1;\n      last_seen_d  = 1'b0;\n"
        "      rows_total_d = '0;\n      out_count_d  = '0;\n"
        "    end\n  end\n"
        "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
        "    if (!rst_ni) begin\n"
        "      ctx_valid_q  <= 1'b0;\n      w_beat_q     <= '0;\n      group_rows_q <= '0;\n"
        "      group_last_q <= 1'b0;\n      last_seen_q  <= 1'b0;\n      rows_total_q <= '0;\n"
        "      out_count_q  <= '0;\n"
        "    end else begin\n"
        "      ctx_valid_q  <= ctx_valid_d;\n      w_beat_q     <= w_beat_d;\n"
        "      group_rows_q <= group_rows_d;\n      group_last_q <= group_last_d;\n"
        "      last_seen_q  <= last_seen_d;\n      rows_total_q <= rows_total_d;\n"
        "      out_count_q  <= out_count_d;\n"
        "    end\n  end\n\n",
        fmt::arg("fw", fw), fmt::arg("fl", F - 1));

    // The lines.
    s += fmt::format(
        "  for (genvar p = 0; p < {P}; p++) begin : g_line\n"
        "    {pre}_pe_line u_line (\n"
        "      .clk_i            (clk_i),\n      .rst_ni           (rst_ni),\n"
        "      .act_idx_i        (cur_idx_q),\n      .outlier_chan_i   (cur_chan_q),\n"
        "      .residual_i       (cur_resid_q),\n      .act_scale_i      (cur_scale_q),\n"
        "      .lut_i            (lut),\n      .weight_codebook_i(weight_codebook),\n"
        "      .w_valid_i        (line_w_valid[p]),\n      .w_ready_o        (line_w_ready[p]),\n"
        "      .w_data_i         (w_data_i[p*{lw} +: {lw}]),\n"
        "      .w_scale_i        (w_scale_i[p*16 +: 16]),\n"
        "      .y_valid_o        (line_y_valid[p]),\n      .y_ready_i        (line_y_ready[p]),\n"
        "      .y_data_o         (line_y_data[p*16 +: 16]),\n      .idle_o           (line_idle[p])\n"
        "    );\n  end\n\n"
        "endmodule\n",
        fmt::arg("P", P), fmt::arg("pre", "oasis_" + c.name), fmt::arg("lw", lw));

    out.files.push_back({module + ".sv", s});
    out.manifest["lines"] = P;
    out.manifest["token_beat_activations"] = R;
    out.manifest["token_beats"] = BEATS;
    out.manifest["clustering_parts_per_beat"] = PARTS;
    out.manifest["group_beats"] = F;
    out.manifest["rows_bits"] = RB;
    out.manifest["ecu_latency_cycles"] = S;
    out.manifest["row_interval_cycles"] = d.pe_line.row_interval;
    out.manifest["row_latency_cycles"] = d.pe_line.row_latency;
    out.manifest["preprocess_cycles"] = tm.preprocess_cycles;
    // The parts and buffers the real-library flow reports (docs/ppa.md); the
    // parts that are blocks bring their own buffers (gen/generator.cpp).
    auto& parts = out.manifest["parts"] = nlohmann::ordered_json::array();
    parts.push_back({{"instance", "u_regfile"}, {"module", module_name(c, "regfile")},
                     {"role", "regfile"}});
    parts.push_back({{"instance", "u_clustering"}, {"module", module_name(c, "clustering_unit")},
                     {"role", "clustering_units"}});
    parts.push_back({{"instance", "u_orizuru"}, {"module", module_name(c, "orizuru")},
                     {"role", "orizuru"}});
    parts.push_back({{"instance", "u_ecu"}, {"module", ecu}, {"role", "error_calculation_unit"}});
    for (int p = 0; p < P; ++p) {
      parts.push_back({{"instance", fmt::format("g_line[{}].u_line", p)},
                       {"module", module_name(c, "pe_line")},
                       {"role", "pe_line"}});
    }
    out.manifest["memories"] = nlohmann::ordered_json::array(
        {{{"name", "activation_index_buffer"},
          {"what", fmt::format("Activation Index Buffer: the next and the current token's {} "
                               "{}-bit indices",
                               K, nA)},
          {"bits", 2 * K * nA},
          {"registers", {"idx_next_q", "cur_idx_q"}}},
         {{"name", "token_context"},
          {"what", fmt::format("the next and the current token's {} outlier channels ({} bits), "
                               "residuals and s_a (binary16)",
                               k2, CW)},
          {"bits", 2 * (k2 * (CW + 16) + 16)},
          {"registers", {"chan_next_q", "resid_next_q", "scale_next_q", "cur_chan_q",
                         "cur_resid_q", "cur_scale_q"}}}});
    return out;
  }
};

OASIS_REGISTER_BLOCK(CoreBlock);

}  // namespace
}  // namespace oasis::gen
