// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Formal check of Orizuru (read with `read_verilog -formal`; the DUT's module name comes
/// in as the macro OASIS_DUT, the comparator block's as OASIS_CMP). The token is an
/// arbitrary constant ($anyconst: any 16-bit patterns). The wrapper resets the DUT in the
/// first cycle, then offers the token's beats in order (padding lanes of the last beat
/// carry free bits). With FreeHandshake the offer (in_valid_i) and the consumer's ready
/// (out_ready_i) are free in every cycle; without it both are always set. For the first
/// token it asserts:
///   - nothing is presented before the token is loaded and built, and the first outlier
///     is presented exactly BuildCycles + 1 cycles after the beat that completes the token
///     was accepted;
///   - the first 2 * Outliers outliers alternate max, min, max, ...;
///   - each is a channel of the token with its value as loaded, and its channel is the
///     winner of a tournament over the channels not yet popped on its side
///     (oasis_formal_topk_tree). oasis_formal_topk_lemmas.sv proves that winner equal to
///     the linear scan of docs/spec.md section 5 (oasis_spec_topk_scan) for every token and mask.
module oasis_formal_orizuru #(
  /// Channels N of a token.
  parameter int Channels = 8,
  /// Activations a beat (orizuru_unit_inputs).
  parameter int BeatLanes = 2,
  /// Outliers a side checked, at most k.
  parameter int Outliers = 1,
  /// Width of the channel field (manifest channel_bits).
  parameter int ChanBits = 3,
  /// Build cycles (manifest build_latency_cycles).
  parameter int BuildCycles = 3,
  /// 1: in_valid_i and out_ready_i are free; 0: both always set.
  parameter bit FreeHandshake = 1'b0
) (
  /// Clock.
  input logic                    clk_i,
  /// Free (with FreeHandshake): the next beat is offered.
  input logic                    in_valid_i,
  /// Free: the bits of the padding lanes.
  input logic [BeatLanes*16-1:0] pad_i,
  /// Free (with FreeHandshake): the consumer's ready.
  input logic                    out_ready_i
);

  localparam int Beats = (Channels + BeatLanes - 1) / BeatLanes;
  localparam int BeatBits = Beats > 1 ? $clog2(Beats) : 1;

  (* anyconst *) logic [Channels*16-1:0] token;

  logic started_q = 1'b0;           // low in the first cycle: the DUT's reset
  logic [BeatBits-1:0] beat_q = '0; // the next beat of the token to offer
  logic loaded_q = 1'b0;            // the token's last beat was accepted
  logic [7:0] age_q = 8'd0;         // cycles since then
  logic [7:0] pops_q = 8'd0;        // outliers taken

  logic in_valid, out_ready;
  assign in_valid  = FreeHandshake ? in_valid_i : 1'b1;
  assign out_ready = FreeHandshake ? out_ready_i : 1'b1;

  logic in_ready, out_valid;
  logic [BeatLanes*16-1:0] in_data;
  logic [16+ChanBits:0] out_data;

  always_comb begin
    in_data = pad_i;
    for (int b = 0; b < Beats; b++) begin
      for (int r = 0; r < BeatLanes; r++) begin
        if (b * BeatLanes + r < Channels && beat_q == BeatBits'(b)) begin
          in_data[r*16 +: 16] = token[(b * BeatLanes + r)*16 +: 16];
        end
      end
    end
  end

  `OASIS_DUT u_dut (
    .clk_i      (clk_i),
    .rst_ni     (started_q),
    .in_valid_i (in_valid),
    .in_ready_o (in_ready),
    .in_data_i  (in_data),
    .out_valid_o(out_valid),
    .out_ready_i(out_ready),
    .out_data_o (out_data)
  );

  logic side;
  logic [15:0] value;
  logic [ChanBits-1:0] chan;
  assign side  = out_data[16+ChanBits];
  assign value = out_data[ChanBits +: 16];
  assign chan  = out_data[ChanBits-1:0];

  // The expected channel of pop p of each side: the tournament over the channels the
  // expected pops before it have not taken.
  logic [Outliers*ChanBits-1:0] want_max, want_min;
  logic [Outliers*Channels-1:0] avail_max, avail_min;
  for (genvar p = 0; p < Outliers; p++) begin : g_pop
    if (p == 0) begin : g_first
      assign avail_max[0 +: Channels] = '1;
      assign avail_min[0 +: Channels] = '1;
    end else begin : g_next
      for (genvar j = 0; j < Channels; j++) begin : g_chan
        assign avail_max[p*Channels + j] = avail_max[(p-1)*Channels + j]
            && want_max[(p-1)*ChanBits +: ChanBits] != ChanBits'(j);
        assign avail_min[p*Channels + j] = avail_min[(p-1)*Channels + j]
            && want_min[(p-1)*ChanBits +: ChanBits] != ChanBits'(j);
      end
    end
    oasis_formal_topk_tree #(
      .Channels(Channels), .ChanBits(ChanBits), .MinSide(1'b0)
    ) u_max (
      .val_i  (token),
      .avail_i(avail_max[p*Channels +: Channels]),
      .chan_o (want_max[p*ChanBits +: ChanBits])
    );
    oasis_formal_topk_tree #(
      .Channels(Channels), .ChanBits(ChanBits), .MinSide(1'b1)
    ) u_min (
      .val_i  (token),
      .avail_i(avail_min[p*Channels +: Channels]),
      .chan_o (want_min[p*ChanBits +: ChanBits])
    );
  end

  logic [ChanBits-1:0] want_chan;
  logic [15:0] chan_value;
  always_comb begin
    want_chan  = '0;
    chan_value = '0;
    for (int p = 0; p < Outliers; p++) begin
      if (pops_q == 8'(2 * p)) want_chan = want_max[p*ChanBits +: ChanBits];
      if (pops_q == 8'(2 * p + 1)) want_chan = want_min[p*ChanBits +: ChanBits];
    end
    for (int j = 0; j < Channels; j++) begin
      if (chan == ChanBits'(j)) chan_value = token[j*16 +: 16];
    end
  end

  always_ff @(posedge clk_i) begin
    started_q <= 1'b1;
    if (started_q && !loaded_q && in_valid && in_ready) begin
      if (beat_q == BeatBits'(Beats - 1)) begin
        loaded_q <= 1'b1;
        age_q    <= 8'd1;
      end else begin
        beat_q <= beat_q + 1'b1;
      end
    end
    if (loaded_q && age_q != 8'hff) age_q <= age_q + 8'd1;
    if (loaded_q && out_valid && out_ready && pops_q != 8'hff) pops_q <= pops_q + 8'd1;
  end

  always_comb begin
    if (started_q && (!loaded_q || age_q <= 8'(BuildCycles))) assert (!out_valid);
    if (loaded_q && age_q == 8'(BuildCycles + 1)) assert (out_valid);
    if (loaded_q && out_valid && pops_q < 8'(2 * Outliers)) begin
      assert (side == pops_q[0]);
      assert (32'(chan) < Channels);
      assert (value == chan_value);
      assert (chan == want_chan);
    end
  end

endmodule

`default_nettype wire
