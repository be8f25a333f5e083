// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Formal check of the Index Counter array for rows of one beat (read with
/// `read_verilog -formal`; the DUT's module name comes in as the macro OASIS_DUT). The
/// wrapper resets the DUT in the first cycle; the beat's indices, mask and valid and the
/// consumer's ready are free in every cycle. It follows the first beat the DUT accepts
/// (a whole row) and asserts that
///   - nothing is presented before it, and its chunk 0 is presented exactly Latency cycles
///     after it was accepted;
///   - every chunk presented until the row's last chunk is taken is the next chunk in
///     order, cnt_last_o is set on the last one only, and each count t of chunk c equals
///     the reference: the number of positions p < Channels with the mask bit set and index
///     c*Tree + t (0 for entries beyond 2^(nA+nW)). With Symmetric (codebooks symmetric
///     about zero) count t is the signed count of magnitude m = c*Tree + t in two's
///     complement: the positions whose activation and weight indices a and w have
///     magnitudes (ma, mw) = m, a magnitude taken as the distance from the codebook's middle
///     (a - 2^(nA-1) above it, 2^(nA-1) - 1 - a below), counted +1 when a and w lie on the
///     same side of their middles and -1 when not (0 beyond 2^(nA+nW-2)).
module oasis_formal_index_counter_array #(
  /// Positions a beat, C * I.
  parameter int Positions = 16,
  /// Bits of a concatenated index, nA + nW.
  parameter int IdxBits = 2,
  /// Channels K of a row (at most Positions: one beat).
  parameter int Channels = 16,
  /// Bits of a count (manifest count_bits).
  parameter int CountBits = 5,
  /// Counts a chunk, T (mac_tree_inputs).
  parameter int Tree = 4,
  /// Chunks a row (manifest chunks_per_row).
  parameter int Chunks = 1,
  /// The block's documented latency (manifest latency_cycles), cycles.
  parameter int Latency = 1,
  parameter bit Symmetric = 1'b0,
  parameter int ActBits = 1
) (
  /// Clock.
  input logic                          clk_i,
  /// Free: a beat is offered.
  input logic                          idx_valid_i,
  /// Free: the beat's indices.
  input logic [Positions*IdxBits-1:0]  idx_data_i,
  /// Free: the beat's mask.
  input logic [Positions-1:0]          idx_mask_i,
  /// Free: the consumer's ready.
  input logic                          cnt_ready_i
);

  localparam int Entries = 1 << IdxBits;
  /// Counts a row presents: the entries, or with Symmetric the magnitudes.
  localparam int Values = Symmetric ? Entries / 4 : Entries;
  /// Bits of a presented count: with Symmetric a sign above the magnitude.
  localparam int LaneBits = CountBits + (Symmetric ? 1 : 0);
  localparam int WBits = IdxBits - ActBits;
  localparam int ChunkBits = Chunks > 1 ? $clog2(Chunks) : 1;

  logic started_q = 1'b0;                    // low in the first cycle: the DUT's reset
  logic seen_q = 1'b0;                       // the tracked (first accepted) row went in
  logic done_q = 1'b0;                       // ... and its last chunk was taken
  logic [7:0] age_q = 8'd0;                  // cycles since it went in
  logic [ChunkBits-1:0] next_q = '0;         // the chunk expected next
  logic [Positions*IdxBits-1:0] data_q = '0; // its indices
  logic [Positions-1:0] mask_q = '0;         // its mask

  logic idx_ready, cnt_valid, cnt_last;
  logic [Tree*LaneBits-1:0] cnt_data;
  logic [ChunkBits-1:0] cnt_chunk;

  `OASIS_DUT u_dut (
    .clk_i      (clk_i),
    .rst_ni     (started_q),
    .idx_valid_i(idx_valid_i),
    .idx_ready_o(idx_ready),
    .idx_data_i (idx_data_i),
    .idx_mask_i (idx_mask_i),
    .cnt_valid_o(cnt_valid),
    .cnt_ready_i(cnt_ready_i),
    .cnt_data_o (cnt_data),
    .cnt_chunk_o(cnt_chunk),
    .cnt_last_o (cnt_last)
  );

  // The reference counts of the tracked row, entry e at [e*CountBits +: CountBits],
  // zero beyond the last entry: the popcount of the positions p < Channels whose mask bit
  // is set and whose index is e.
  logic [Chunks*Tree*LaneBits-1:0] want;
  for (genvar e = 0; e < Chunks*Tree; e++) begin : g_entry
    if (e < Values && Symmetric) begin : g_signed
      localparam int HalfA = 1 << (ActBits - 1);
      localparam int HalfW = 1 << (WBits - 1);
      logic [Channels-1:0] same, opposite;
      for (genvar p = 0; p < Channels; p++) begin : g_pos
        logic [ActBits-1:0] a, ma;
        logic [WBits-1:0] w, mw;
        logic of_e;
        assign a = data_q[p*IdxBits + WBits +: ActBits];
        assign w = data_q[p*IdxBits +: WBits];
        assign ma = a >= ActBits'(HalfA) ? a - ActBits'(HalfA) : ActBits'(HalfA - 1) - a;
        assign mw = w >= WBits'(HalfW) ? w - WBits'(HalfW) : WBits'(HalfW - 1) - w;
        assign of_e = mask_q[p] && ma == ActBits'(e / HalfW) && mw == WBits'(e % HalfW);
        assign same[p] = of_e && ((a >= ActBits'(HalfA)) == (w >= WBits'(HalfW)));
        assign opposite[p] = of_e && ((a >= ActBits'(HalfA)) != (w >= WBits'(HalfW)));
      end
      logic [LaneBits-1:0] plus, minus;
      assign plus = LaneBits'($countones(same));
      assign minus = LaneBits'($countones(opposite));
      assign want[e*LaneBits +: LaneBits] = plus - minus;
    end else if (e < Values) begin : g_real
      logic [Channels-1:0] hit;
      for (genvar p = 0; p < Channels; p++) begin : g_pos
        assign hit[p] = mask_q[p] && data_q[p*IdxBits +: IdxBits] == IdxBits'(e);
      end
      assign want[e*LaneBits +: LaneBits] = LaneBits'($countones(hit));
    end else begin : g_pad
      assign want[e*LaneBits +: LaneBits] = '0;
    end
  end

  logic [Tree*LaneBits-1:0] want_chunk;
  always_comb begin
    want_chunk = '0;
    for (int c = 0; c < Chunks; c++) begin
      if (next_q == ChunkBits'(c)) want_chunk = want[c*Tree*LaneBits +: Tree*LaneBits];
    end
  end

  always_ff @(posedge clk_i) begin
    started_q <= 1'b1;
    if (seen_q && age_q != 8'hff) age_q <= age_q + 8'd1;
    if (started_q && !seen_q && idx_valid_i && idx_ready) begin
      seen_q <= 1'b1;
      data_q <= idx_data_i;
      mask_q <= idx_mask_i;
      age_q  <= 8'd1;
    end
    if (seen_q && !done_q && cnt_valid && cnt_ready_i) begin
      next_q <= next_q + 1'b1;
      if (cnt_last) done_q <= 1'b1;
    end
  end

  always_comb begin
    if (started_q && !seen_q) assert (!cnt_valid);
    if (seen_q && age_q < 8'(Latency)) assert (!cnt_valid);
    if (seen_q && age_q == 8'(Latency)) assert (cnt_valid);
    if (seen_q && !done_q && cnt_valid) begin
      assert (cnt_chunk == next_q);
      assert (cnt_last == (next_q == ChunkBits'(Chunks - 1)));
      assert (cnt_data == want_chunk);
    end
  end

endmodule

`default_nettype wire
