// SPDX-License-Identifier: Apache-2.0
// The OASIS core (paper IV-A, Fig. 8; docs/spec.md sections 1 and 6) as a generated
// block: the register file, the token pre-processing (a hold register feeding
// the Clustering Unit, Orizuru, the Error Calculation Unit, the activation
// index buffer) into a next-token context, the current context the P PE lines
// read, and the weight and output streams. Design and timing: docs/core.md;
// cycle model: model/cycle/core.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/sv.hpp"
#include "model/cycle/regfile.hpp"

namespace oasis::gen {
namespace {

// The count of a token's rows sent to the lines and not yet out: a token may
// have any number of rows, and 32 bits count 2^32 - 1 of them.
constexpr int kRowsLeftBits = 32;

using std::string;

// Error Calculation Unit: r = xhat[o] - C_A[ia[o]] for the outlier Orizuru
// presents, its activation index read by a balanced multiplexer tree.
SvFile ecu_module(const Config& c, const string& name, const Derived& d) {
  const int K = c.channels, nA = c.act_bits, CW = d.channel_bits;
  const int R = d.core.ecu_read_stages, S = d.fp_stages;
  SvModule m(name, fmt::format("Error Calculation Unit (paper IV-A): for the outlier (channel o, "
                               "value xhat[o]) taken this cycle, r = xhat[o] - C_A[ia[o]] in "
                               "binary16, ia[o] read from the K = {} activation indices by a "
                               "balanced tree of 2-to-1 multiplexers; {} register stage(s) "
                               "after the reads, {} after the subtraction.",
                               K, R, S));
  m.header_localparam("Channels", K, "Channels K of a token.");
  m.header_localparam("IdxBits", nA, "Bits of an activation index, nA.");
  m.header_localparam("Centroids", d.act_centroids, "Activation centroids, 2^nA.");
  m.header_localparam("ChanBits", CW, "Bits of a channel number.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "fire_i", "An outlier is taken this cycle."},
           {"input", 0, "outlier_i",
            "The outlier {xhat[o], o}: channel o at [ChanBits-1:0], xhat[o] (binary16) above it.",
            "ChanBits + HalfBits"},
           {"input", 0, "act_idx_i", "The token's ia[k] at [k*IdxBits +: IdxBits].",
            "Channels*IdxBits"},
           {"input", 0, "act_codebook_i", "C_A: centroid i, binary16, at [i*HalfBits +: HalfBits].",
            "Centroids*HalfBits"},
           {"output", 0, "valid_o", "data_o holds an outlier's residual."},
           {"output", 0, "data_o",
            "{o, r}: the channel o above r = xhat[o] - C_A[ia[o]] at [HalfBits-1:0].",
            "ChanBits + HalfBits"}});
  m << "\n  logic [ChanBits-1:0] chan;\n  logic [HalfBits-1:0] value, ca;\n"
       "  logic [IdxBits-1:0] ia;\n";
  m << "  assign {value, chan} = outlier_i;\n";
  m << "  always_comb begin\n    ca = '0;\n"
       "    for (int i = 0; i < Centroids; i++) begin\n"
       "      if (ia == IdxBits'(i)) ca = act_codebook_i[i*HalfBits +: HalfBits];\n"
       "    end\n  end\n";
  m.op("eq", nA, "ca", d.act_centroids);
  mux_tree(m, c, "u_ia_mux", K, nA, CW, "act_idx_i", "chan", "ia");
  m.comment(
      "The reads registered: the K-to-1 read and the subtraction are a cycle apart "
      "(docs/core.md, Error Calculation Unit).");
  m.pipe_stage("rd", R, "fire_i",
               {{"chan", CW, "chan", "ChanBits"},
                {"value", 16, "value", "HalfBits"},
                {"ca", 16, "ca", "HalfBits"}});
  chain_stage(m, kBinary16Format, FpOp::kSub, "u_sub", "rd_value", "rd_ca", "res", S, "rd_valid",
              {{"chan", CW, "rd_chan", "ChanBits"}}, "r", "HalfBits");
  m << "  assign valid_o = res_valid;\n  assign data_o  = {res_chan, res_r};\n";
  return m.file();
}

// The figures the core is sized by, from derive(c).
struct Dims {
  explicit Dims(const Config& c) : d(derive(c)), t(d.core) {}
  Derived d;
  CoreTiming t;
  // The token-beat counter counts Orizuru's beats, the ECU's counter its 2k outputs.
  int bw() const { return d.orizuru.beat_bits; }
  int pw() const { return t.part_bits; }
  int jw() const { return d.orizuru.output_bits; }
};

// The core's header: the figures its port widths are written in, and its ports, documented.
void core_header(SvModule& m, const Config& c, const Dims& d) {
  m.header_localparam("Lines", c.pe_lines, "PE lines P: the rows of a weight group.");
  m.header_localparam("BeatLanes", d.t.beat_activations, "Activations a token beat.");
  m.header_localparam("BeatIndices", c.weight_beat_indices,
                      "Weight indices a beat of one lane of the weight stream.");
  m.header_localparam("WeightBits", c.weight_bits, "Bits of a weight index.");
  m.header_localparam("LaneBits", "BeatIndices*WeightBits", "One line's lane of a weight beat.");
  m.header_localparam("RowsBits", d.t.rows_bits, "Bits of a group's row count, 1 .. Lines.");
  m.header_localparam("RegAddrBits", kRegAddrBits, "Bits of a register word address.");
  m.header_localparam("RegWordBits", kRegWordBits, "Bits of a register word.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {{"input", 0, "clk_i", "Clock."},
       {"input", 0, "rst_ni", "Asynchronous reset, active low."},
       {"input", 0, "reg_we_i",
        "Register port: write strobe (reg_wdata_i to reg_addr_i at this edge)."},
       {"input", 0, "reg_re_i",
        "Register port: read strobe (the word appears on reg_rdata_o next cycle)."},
       {"input", 0, "reg_addr_i", "Register port: word address (regmap.json).", "RegAddrBits"},
       {"input", 0, "reg_wdata_i", "Register port: write data.", "RegWordBits"},
       {"output", 0, "reg_rvalid_o", "Register port: read data valid, one cycle after reg_re_i."},
       {"output", 0, "reg_rdata_o", "Register port: read data.", "RegWordBits"},
       {"input", 0, "x_valid_i", "A token beat is offered."},
       {"output", 0, "x_ready_o", "The core takes the offered token beat this cycle."},
       {"input", 0, "x_data_i",
        "The beat: xhat[b*BeatLanes + i], binary16, at [i*HalfBits +: HalfBits] (channels past K "
        "ignored).",
        "BeatLanes*HalfBits"},
       {"input", 0, "x_scale_i",
        "The token's scale s_a, binary16, taken with the token's first beat.", "HalfBits"},
       {"input", 0, "w_valid_i", "A weight beat is offered."},
       {"output", 0, "w_ready_o", "The core takes the offered weight beat this cycle."},
       {"input", 0, "w_data_i",
        "The beat: lane p (row g*Lines + p of group g) at [p*LaneBits +: LaneBits], its index i "
        "at [p*LaneBits + i*WeightBits +: WeightBits] (channel b*BeatIndices + i; indices past "
        "K ignored).",
        "Lines*LaneBits"},
       {"input", 0, "w_scale_i",
        "The rows' scales s_w, binary16, lane p at [p*HalfBits +: HalfBits]; taken with the first "
        "beat.",
        "Lines*HalfBits"},
       {"input", 0, "w_rows_i",
        "Rows in the token's last group (1 .. Lines; other values mean Lines); taken with the "
        "first beat of a group whose w_last_i is high. Other groups have Lines rows.",
        "RowsBits"},
       {"input", 0, "w_last_i",
        "The group is the token's last; taken with the group's first beat."},
       {"output", 0, "y_valid_o", "An output group is presented."},
       {"input", 0, "y_ready_i", "The consumer takes the presented group this cycle."},
       {"output", 0, "y_data_o",
        "The group's outputs, binary16: lane p (row g*Lines + p of group g) at [p*HalfBits +: "
        "HalfBits]; "
        "lanes at or past y_rows_o are 0.",
        "Lines*HalfBits"},
       {"output", 0, "y_rows_o",
        "Rows in the presented group (Lines, or fewer in the token's last group).", "RowsBits"},
       {"output", 0, "y_last_o", "The presented group is the token's last."},
       {"output", 0, "idle_o",
        "Nothing in flight and no token waiting for weights: registers may be written."}});
}

// The register file, the Clustering Unit fed from the hold register, Orizuru.
void token_side(SvModule& m, const Config& c, const Dims& d) {
  const int R = d.t.beat_activations, L = c.clustering_lanes;
  const int parts = d.t.clustering_parts;
  m << "  // Register file: the layer's LUT, codebooks and boundaries.\n";
  m.localparam("Entries", d.d.lut_entries, "Entries of the LUT.");
  m.localparam("ActCentroids", d.d.act_centroids, "Centroids of the activation codebook.");
  m.localparam("WeightCentroids", d.d.weight_centroids, "Centroids of the weight codebook.");
  m.localparam("Boundaries", d.d.boundaries, "Boundaries of the Clustering Unit.");
  m << "  logic [Entries*HalfBits-1:0] lut;\n  logic [ActCentroids*HalfBits-1:0] act_codebook;\n"
       "  logic [WeightCentroids*HalfBits-1:0] weight_codebook;\n"
       "  logic [Boundaries*HalfBits-1:0] boundaries;\n";
  m.inst(module_name(c, "regfile"), "u_regfile",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"reg_we_i", "reg_we_i"},
          {"reg_re_i", "reg_re_i"},
          {"reg_addr_i", "reg_addr_i"},
          {"reg_wdata_i", "reg_wdata_i"},
          {"reg_rvalid_o", "reg_rvalid_o"},
          {"lut_o", "lut"},
          {"act_codebook_o", "act_codebook"},
          {"weight_codebook_o", "weight_codebook"},
          {"boundaries_o", "boundaries"},
          {"reg_rdata_o", "reg_rdata_o"}});
  m << "\n  // Token side: each beat goes to Orizuru and to the hold register, which feeds\n"
       "  // the Clustering Unit one part of the beat a cycle.\n";
  m.localparam("TokenBeats", d.t.token_beats, "Beats of a token.");
  m.localparam("Parts", parts, "Clustering Unit beats a token beat.");
  m.localparam("Lanes", L, "Clustering lanes.");
  m.localparam("ActBits", c.act_bits, "Bits of an activation index, nA.");
  m.localparam("ChanBits", d.d.channel_bits, "Bits of a channel index.");
  m.localparam("BeatBits", d.bw(), "Bits of a token beat's number.");
  m.localparam("PartBits", d.pw(), "Bits of a part's number.");
  const string bw = "BeatBits", pw = "PartBits";
  m << "  logic [BeatBits-1:0] in_beat_d, in_beat_q, out_beat_d, out_beat_q;\n"
       "  logic [PartBits-1:0] hold_part_d, hold_part_q, out_part_d, out_part_q;\n"
       "  logic [BeatLanes*HalfBits-1:0] hold_q;\n  logic [Lanes*HalfBits-1:0] cu_act;\n"
       "  logic [Lanes*ActBits-1:0] cu_idx;\n";
  m << "  logic slot_busy_d, slot_busy_q, hold_valid_d, hold_valid_q, idx_done_d, idx_done_q;\n"
       "  logic oz_in_ready, cu_act_ready, cu_idx_valid, hold_ok, x_fire, cu_fire;\n"
       "  logic unused_cu_busy, unused_oz_side;\n"
       "  logic [HalfBits-1:0] scale_next_q;\n";
  m << fmt::format(
      "  assign hold_ok   = !hold_valid_q || (hold_part_q == {0}'(Parts - 1) && cu_act_ready);\n"
      "  assign x_ready_o = (in_beat_q != '0 || !slot_busy_q) && oz_in_ready && hold_ok;\n"
      "  assign x_fire    = x_valid_i && x_ready_o;\n"
      "  assign cu_fire   = hold_valid_q && cu_act_ready;\n\n",
      pw);
  m.comment(
      "Part p of the held beat: activations p*Lanes and up (the last part may be short: "
      "its missing lanes read 0).");
  m << "  logic [Parts*Lanes*HalfBits-1:0] hold_pad;\n";
  m << (parts * L > R ? "  assign hold_pad = (Parts*Lanes*HalfBits)'(hold_q);\n"
                      : "  assign hold_pad = hold_q;\n");
  m << fmt::format(
      "  always_comb begin\n    cu_act = '0;\n"
      "    for (int p = 0; p < Parts; p++) begin\n"
      "      if (hold_part_q == {}'(p)) cu_act = hold_pad[p*Lanes*HalfBits +: Lanes*HalfBits];\n"
      "    end\n  end\n\n",
      pw);
  m.op("eq", pw, "cu_act", std::to_string(parts));
  m.inst(module_name(c, "clustering_unit"), "u_clustering",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"boundaries_i", "boundaries"},
          {"act_valid_i", "hold_valid_q"},
          {"act_ready_o", "cu_act_ready"},
          {"act_data_i", "cu_act"},
          {"idx_valid_o", "cu_idx_valid"},
          {"idx_ready_i", "1'b1"},
          {"idx_data_o", "cu_idx"},
          {"busy_o", "unused_cu_busy"}});
  m << "\n  logic oz_out_valid;\n  logic [HalfBits+ChanBits:0] oz_out;\n";
  m.inst(module_name(c, "orizuru"), "u_orizuru",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"in_valid_i", "x_fire"},
          {"in_ready_o", "oz_in_ready"},
          {"in_data_i", "x_data_i"},
          {"out_valid_o", "oz_out_valid"},
          {"out_ready_i", "idx_done_q"},
          {"out_data_o", "oz_out"}});
  m << "  assign unused_oz_side = oz_out[HalfBits+ChanBits];\n";
  if (L > R) {
    // More clustering lanes than a token beat has activations: the extra lanes
    // cluster the padding and are never read.
    m << "  logic unused_cu_lanes;\n"
         "  assign unused_cu_lanes = ^cu_idx[Lanes*ActBits-1:BeatLanes*ActBits];\n";
  }
  m << "\n";
  m << fmt::format(
      "  always_comb begin\n"
      "    in_beat_d    = in_beat_q;\n    slot_busy_d  = slot_busy_q;\n"
      "    hold_valid_d = hold_valid_q;\n    hold_part_d  = hold_part_q;\n"
      "    out_beat_d   = out_beat_q;\n    out_part_d   = out_part_q;\n"
      "    idx_done_d   = idx_done_q;\n"
      "    if (x_fire) begin\n"
      "      slot_busy_d  = 1'b1;\n      hold_valid_d = 1'b1;\n      hold_part_d  = '0;\n"
      "      in_beat_d    = in_beat_q == {bw}'(TokenBeats - 1) ? '0 : in_beat_q + {bw}'(1);\n"
      "    end else if (cu_fire) begin\n"
      "      if (hold_part_q == {pw}'(Parts - 1)) hold_valid_d = 1'b0;\n"
      "      else hold_part_d = hold_part_q + {pw}'(1);\n"
      "    end\n"
      "    if (cu_idx_valid) begin\n"
      "      if (out_part_q == {pw}'(Parts - 1)) begin\n"
      "        out_part_d = '0;\n"
      "        if (out_beat_q == {bw}'(TokenBeats - 1)) begin\n"
      "          out_beat_d = '0;\n          idx_done_d = 1'b1;\n"
      "        end else begin\n          out_beat_d = out_beat_q + {bw}'(1);\n        end\n"
      "      end else begin\n        out_part_d = out_part_q + {pw}'(1);\n      end\n"
      "    end\n"
      "    if (do_switch) begin\n      slot_busy_d = 1'b0;\n      idx_done_d  = 1'b0;\n    end\n"
      "  end\n\n",
      fmt::arg("bw", bw), fmt::arg("pw", pw));
  m.op("add", bw, "in_beat_d");
  m.op("add", pw, "hold_part_d");
  m.op("add", pw, "out_part_d");
  m.op("add", bw, "out_beat_d");
  m << registers({{"in_beat_q", "in_beat_d"},
                  {"slot_busy_q", "slot_busy_d", "1'b0"},
                  {"hold_valid_q", "hold_valid_d", "1'b0"},
                  {"hold_part_q", "hold_part_d"},
                  {"out_beat_q", "out_beat_d"},
                  {"out_part_q", "out_part_d"},
                  {"idx_done_q", "idx_done_d", "1'b0"}});
  // Data read only behind their valid bits (hold_valid_q, next_full_q): no reset.
  m << data_registers({{"hold_q", "x_data_i"}}, "  ", "x_fire");
  m << data_registers({{"scale_next_q", "x_scale_i"}}, "  ", "x_fire && in_beat_q == '0");
  m << "\n";
}

// The Activation Index Buffer of the next token and the current one.
void index_buffer(SvModule& m, const Config& c, const Dims& d) {
  const int K = c.channels;
  m << "  // Activation Index Buffer of the next token: channel ch is lane i of part p of\n"
       "  // beat b, written when the Clustering Unit presents that part.\n";
  m.localparam("Channels", K, "Channels, K.");
  m << "  logic [Channels*ActBits-1:0] idx_next_q, cur_idx_q;\n  logic do_switch;\n";
  m << loop_open("ch", K, "g_idx", "Channels");
  m << "    localparam int Beat = ch / BeatLanes;\n"
       "    localparam int Part = (ch % BeatLanes) / Lanes;\n"
       "    localparam int Lane = (ch % BeatLanes) % Lanes;\n"
       "    logic write;\n"
       "    assign write = cu_idx_valid && out_beat_q == BeatBits'(Beat) &&\n"
       "                   out_part_q == PartBits'(Part);\n"
       "    // No reset: the next token's indices are read once all are written\n"
       "    // (idx_done_q), the current token's once the context is valid.\n"
       "    always_ff @(posedge clk_i) begin\n"
       "      if (write) idx_next_q[ch*ActBits +: ActBits] <= cu_idx[Lane*ActBits +: ActBits];\n"
       "      if (do_switch) cur_idx_q[ch*ActBits +: ActBits] <= "
       "idx_next_q[ch*ActBits +: ActBits];\n"
       "    end\n";
  m << loop_close(K);
  m.op("eq", d.bw() + d.pw(), "idx_next_q", K);
  m << "\n";
}

// The Error Calculation Unit and the next token's outliers and residuals.
void residuals(SvModule& m, const Dims& d, const string& ecu) {
  const int k2 = d.d.outliers;
  m << "  // Error Calculation Unit: r = xhat[o] - C_A[ia[o]] for each outlier Orizuru gives,\n"
       "  // once the token's indices are all in; the residuals fill the next context in\n"
       "  // Orizuru's order.\n";
  m.localparam("Outliers", k2, "Outliers of a token, 2k.");
  m.localparam("OutlierBits", d.jw(), "Bits of an outlier's number.");
  const string jw = "OutlierBits";
  m << "  logic ecu_fire, ecu_valid, next_full_d, next_full_q;\n"
       "  logic [ChanBits+15:0] ecu_q;\n  logic [OutlierBits-1:0] ecu_count_d, ecu_count_q;\n"
       "  logic [Outliers*HalfBits-1:0] resid_next_q;\n  logic [Outliers*ChanBits-1:0] "
       "chan_next_q;\n"
       "  assign ecu_fire = oz_out_valid && idx_done_q;\n";
  m.inst(ecu, "u_ecu",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"fire_i", "ecu_fire"},
          {"outlier_i", "oz_out[ChanBits+15:0]"},
          {"act_idx_i", "idx_next_q"},
          {"act_codebook_i", "act_codebook"},
          {"valid_o", "ecu_valid"},
          {"data_o", "ecu_q"}});
  m << fmt::format(
      "  always_comb begin\n"
      "    ecu_count_d = ecu_count_q;\n    next_full_d = next_full_q;\n"
      "    if (ecu_valid) begin\n"
      "      if (ecu_count_q == {0}'(Outliers - 1)) begin\n"
      "        ecu_count_d = '0;\n        next_full_d = 1'b1;\n"
      "      end else begin\n        ecu_count_d = ecu_count_q + {0}'(1);\n      end\n"
      "    end\n"
      "    if (do_switch) next_full_d = 1'b0;\n"
      "  end\n",
      jw);
  m.op("add", jw, "ecu_count_d");
  m << registers({{"ecu_count_q", "ecu_count_d"}, {"next_full_q", "next_full_d", "1'b0"}});
  m << fmt::format(
      "  // No reset: the next context is read once all of it is written (next_full_q).\n"
      "  for (genvar j = 0; j < Outliers; j++) begin : g_resid\n"
      "    always_ff @(posedge clk_i) begin\n"
      "      if (ecu_valid && ecu_count_q == {0}'(j)) begin\n"
      "        {{chan_next_q[j*ChanBits +: ChanBits], resid_next_q[j*HalfBits +: HalfBits]}} <= "
      "ecu_q;\n"
      "      end\n    end\n  end\n\n",
      jw);
}

// The current token's context, the weight and output streams, the lines.
void lines(SvModule& m, const Config& c, const Dims& d) {
  const int P = c.pe_lines, RB = d.t.rows_bits;
  m << "  // The current token's context, read by every line; it changes only when the\n"
       "  // lines are idle and the previous token has had all its weight groups.\n";
  m.localparam("GroupBeats", d.t.group_beats, "Weight-stream beats a group of rows.");
  m.localparam("FillBits", d.d.pe_line.fill_bits, "Bits of the lines' weight-beat counter.");
  m.localparam("RowsLeftBits", kRowsLeftBits,
               "Bits of the count of a token's rows sent to the lines and not yet out.");
  const string fw = "FillBits";
  m << "  logic lines_idle, ctx_valid_d, ctx_valid_q;\n"
       "  logic [Outliers*ChanBits-1:0] cur_chan_q;\n  logic [Outliers*HalfBits-1:0] cur_resid_q;\n"
       "  logic [HalfBits-1:0] cur_scale_q;\n"
       "  logic [Lines-1:0] line_w_valid, line_w_ready, line_y_valid, line_y_ready, line_idle;\n"
       "  logic [Lines*HalfBits-1:0] line_y_data;\n"
       "  assign lines_idle = &line_idle;\n"
       "  assign do_switch  = next_full_q && !ctx_valid_q && lines_idle;\n";
  // The current context is read only while ctx_valid_q is set: no reset.
  m << data_registers({{"cur_chan_q", "chan_next_q"},
                       {"cur_resid_q", "resid_next_q"},
                       {"cur_scale_q", "scale_next_q"}},
                      "  ", "do_switch");
  m << "\n";
  // Every nonzero value of w_rows_i is at most P when P = 2^RB - 1.
  const string upper = (1 << RB) - 1 == P ? "" : " && w_rows_i <= RowsBits'(Lines)";
  m << fmt::format(
      "  // Weight side: a group's beats go to every line with a row in the group.\n"
      "  logic w_fire, w_first, group_last_d, group_last_q, last_group, last_seen_d, last_seen_q;\n"
      "  logic [FillBits-1:0] w_beat_d, w_beat_q;\n"
      "  logic [RowsBits-1:0] rows_in, rows, group_rows_d, group_rows_q;\n"
      "  // Rows of the token sent to the lines and not yet out, a register of its own so that\n"
      "  // the output side reads no subtraction.\n"
      "  logic [RowsLeftBits-1:0] rows_left_d, rows_left_q;\n"
      "  assign w_ready_o  = ctx_valid_q && &line_w_ready;\n"
      "  assign w_fire     = w_valid_i && w_ready_o;\n"
      "  assign w_first    = w_beat_q == '0;\n"
      "  assign rows_in    = w_last_i && w_rows_i != '0{0}\n"
      "                      ? w_rows_i : RowsBits'(Lines);\n"
      "  assign rows       = w_first ? rows_in : group_rows_q;\n"
      "  assign last_group = w_first ? w_last_i : group_last_q;\n"
      "  for (genvar p = 0; p < Lines; p++) begin : g_w_valid\n"
      "    assign line_w_valid[p] = w_fire && RowsBits'(p) < rows;\n"
      "  end\n\n",
      upper);
  m.op("lt", RB, "line_w_valid", P);
  m << "  // Output side: one group of rows a beat, lane p from line p. Only the token's last\n"
       "  // group can have fewer than Lines rows; its lines alone must have their outputs.\n"
       "  assign y_rows_o  = last_seen_q && rows_left_q < RowsLeftBits'(Lines) ? "
       "RowsBits'(rows_left_q)\n"
       "                                                              : RowsBits'(Lines);\n"
       "  always_comb begin\n"
       "    y_valid_o = y_rows_o != '0;\n"
       "    y_data_o  = '0;\n"
       "    for (int p = 0; p < Lines; p++) begin\n"
       "      if (RowsBits'(p) < y_rows_o) begin\n"
       "        y_valid_o = y_valid_o && line_y_valid[p];\n"
       "        y_data_o[p*HalfBits +: HalfBits] = line_y_data[p*HalfBits +: HalfBits];\n"
       "      end\n"
       "    end\n"
       "  end\n"
       "  for (genvar p = 0; p < Lines; p++) begin : g_y_ready\n"
       "    assign line_y_ready[p] = y_ready_i && y_valid_o && RowsBits'(p) < y_rows_o;\n"
       "  end\n"
       "  assign y_last_o = last_seen_q && rows_left_q <= RowsLeftBits'(Lines);\n"
       "  assign idle_o   = !slot_busy_q && !ctx_valid_q && lines_idle;\n\n";
  m.op("lt", "RowsLeftBits", "y_rows_o");
  m << fmt::format(
      "  always_comb begin\n"
      "    ctx_valid_d  = ctx_valid_q;\n    w_beat_d     = w_beat_q;\n"
      "    group_rows_d = group_rows_q;\n    group_last_d = group_last_q;\n"
      "    last_seen_d  = last_seen_q;\n    rows_left_d  = rows_left_q;\n"
      "    if (w_fire) begin\n"
      "      if (w_first) begin\n        group_rows_d = rows_in;\n        group_last_d = "
      "w_last_i;\n"
      "      end\n"
      "      if (w_beat_q == {0}'(GroupBeats - 1)) begin\n"
      "        w_beat_d     = '0;\n        rows_left_d  = rows_left_q + RowsLeftBits'(rows);\n"
      "        if (last_group) begin\n          ctx_valid_d = 1'b0;\n          last_seen_d = "
      "1'b1;\n"
      "        end\n"
      "      end else begin\n        w_beat_d = w_beat_q + {0}'(1);\n      end\n"
      "    end\n"
      "    if (y_valid_o && y_ready_i) rows_left_d = rows_left_d - RowsLeftBits'(y_rows_o);\n"
      "    if (do_switch) begin\n"
      "      ctx_valid_d  = 1'b1;\n      last_seen_d  = 1'b0;\n"
      "      rows_left_d  = '0;\n"
      "    end\n  end\n",
      fw);
  m.op("add", fw, "w_beat_d");
  m.op("add", "RowsLeftBits", "rows_left_d");
  m.op("sub", "RowsLeftBits", "rows_left_d");
  m << registers({{"ctx_valid_q", "ctx_valid_d", "1'b0"},
                  {"w_beat_q", "w_beat_d"},
                  {"group_rows_q", "group_rows_d"},
                  {"group_last_q", "group_last_d", "1'b0"},
                  {"last_seen_q", "last_seen_d", "1'b0"},
                  {"rows_left_q", "rows_left_d"}});
  m << "\n  for (genvar p = 0; p < Lines; p++) begin : g_line\n";
  m.inst(module_name(c, "pe_line"), "u_line",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"act_idx_i", "cur_idx_q"},
          {"outlier_chan_i", "cur_chan_q"},
          {"residual_i", "cur_resid_q"},
          {"act_scale_i", "cur_scale_q"},
          {"lut_i", "lut"},
          {"weight_codebook_i", "weight_codebook"},
          {"w_valid_i", "line_w_valid[p]"},
          {"w_ready_o", "line_w_ready[p]"},
          {"w_data_i", "w_data_i[p*LaneBits +: LaneBits]"},
          {"w_scale_i", "w_scale_i[p*HalfBits +: HalfBits]"},
          {"y_valid_o", "line_y_valid[p]"},
          {"y_ready_i", "line_y_ready[p]"},
          {"y_data_o", "line_y_data[p*HalfBits +: HalfBits]"},
          {"idle_o", "line_idle[p]"}},
         "    ", {}, "Lines");
  m << "  end\n";
}

class CoreBlock final : public Block {
 public:
  string name() const override { return "core"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const Dims d(c);
    const CoreTiming& tm = d.t;
    const int K = c.channels, nA = c.act_bits, P = c.pe_lines, k2 = d.d.outliers;
    out.uses = {"regfile", "clustering_unit", "orizuru", "pe_line"};
    const string ecu = module + "_ecu";
    SvModule m(module,
               fmt::format("The OASIS core (paper IV-A, Fig. 8; docs/core.md): K = {} channels, "
                           "{} PE line(s), W{}A{}, {} outlier(s) per side. Tokens come in as {} "
                           "beat(s) of {} activations; the Clustering Unit ({} lane(s), {} "
                           "cycle(s) a beat), Orizuru and the Error Calculation Unit turn a "
                           "token into its context (activation indices, outlier channels and "
                           "residuals, s_a) while the lines work on the previous one. Weights "
                           "come in as groups of {} row(s), {} beat(s) of {} indices per row; "
                           "outputs leave in row order. Codebooks, LUT and boundaries sit behind "
                           "the register port (regmap.json) and change only while idle_o is "
                           "high.",
                           K, P, c.weight_bits, nA, c.outliers_per_side, tm.token_beats,
                           tm.beat_activations, c.clustering_lanes, tm.clustering_parts, P,
                           tm.group_beats, c.weight_beat_indices));
    core_header(m, c, d);
    token_side(m, c, d);
    index_buffer(m, c, d);
    residuals(m, d, ecu);
    lines(m, c, d);
    out.files = {mux_tree_module(c), ecu_module(c, ecu, d.d), m.file()};

    out.manifest["lines"] = P;
    out.manifest["token_beat_activations"] = tm.beat_activations;
    out.manifest["token_beats"] = tm.token_beats;
    out.manifest["clustering_parts_per_beat"] = tm.clustering_parts;
    out.manifest["group_beats"] = tm.group_beats;
    out.manifest["rows_bits"] = tm.rows_bits;
    out.manifest["ecu_latency_cycles"] = tm.ecu_latency;
    out.manifest["row_interval_cycles"] = d.d.pe_line.row_interval;
    out.manifest["row_latency_cycles"] = d.d.pe_line.row_latency;
    out.manifest["preprocess_cycles"] = tm.preprocess_cycles;
    // The parts and buffers the real-library flow reports (docs/ppa.md); the
    // parts that are blocks bring their own buffers (gen/generator.cpp).
    auto& parts = out.manifest["parts"] = nlohmann::ordered_json::array();
    parts.push_back(
        {{"instance", "u_regfile"}, {"module", module_name(c, "regfile")}, {"role", "regfile"}});
    parts.push_back({{"instance", "u_clustering"},
                     {"module", module_name(c, "clustering_unit")},
                     {"role", "clustering_units"}});
    parts.push_back(
        {{"instance", "u_orizuru"}, {"module", module_name(c, "orizuru")}, {"role", "orizuru"}});
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
                               k2, d.d.channel_bits)},
          {"bits",
           2 * (k2 * (d.d.channel_bits + kBinary16Format.width()) + kBinary16Format.width())},
          {"registers",
           {"chan_next_q", "resid_next_q", "scale_next_q", "cur_chan_q", "cur_resid_q",
            "cur_scale_q"}}}});
    return out;
  }
};

OASIS_REGISTER_BLOCK(CoreBlock);

}  // namespace
}  // namespace oasis::gen
