// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Formal check of the Clustering Unit (read with `read_verilog -formal`; the DUT's module
/// name comes in as the macro OASIS_DUT). The boundaries are an arbitrary constant
/// ($anyconst: any 16-bit patterns, NaNs included, in any order); the activations,
/// act_valid_i and idx_ready_i are free in every cycle. The wrapper resets the DUT in the
/// first cycle, then follows the first beat the DUT accepts and asserts that
///   - nothing is presented before it, and it is presented exactly Latency cycles after
///     it was accepted (the pipeline is empty, so no backpressure can delay it);
///   - every cycle it is presented until it is taken, lane l's index i is the bracket of
///     x_l: x_l >= b_{i-1} (or i = 0) and x_l < b_i (or i = 2^nA - 1) under the order key.
/// The binary search gives the bracket whatever the boundaries; that the bracket is the
/// count #{ j : x >= b_j } of docs/spec.md section 4 when the boundaries ascend is proven apart,
/// once per nA, in oasis_formal_cluster_count.sv (docs/formal.md).
module oasis_formal_clustering_unit #(
  /// Index bits nA (2^nA - 1 boundaries).
  parameter int ActBits = 2,
  /// Activations a beat (clustering_lanes).
  parameter int Lanes = 1,
  /// The block's documented latency (manifest latency_cycles), cycles.
  parameter int Latency = 2
) (
  /// Clock.
  input logic                  clk_i,
  /// Free: the beat offered.
  input logic                  act_valid_i,
  /// Free: the activations offered.
  input logic [Lanes*16-1:0]   act_data_i,
  /// Free: the consumer's ready.
  input logic                  idx_ready_i
);

  localparam int Bounds = (1 << ActBits) - 1;

  (* anyconst *) logic [Bounds*16-1:0] boundaries;

  logic started_q = 1'b0;        // low in the first cycle: the DUT's reset
  logic seen_q = 1'b0;           // the tracked (first accepted) beat went in
  logic taken_q = 1'b0;          // ... and came out
  logic [7:0] age_q = 8'd0;      // cycles since it went in
  logic [Lanes*16-1:0] x_q = '0; // its activations

  logic act_ready, idx_valid;
  logic unused_busy;
  logic [Lanes*ActBits-1:0] idx_data;

  `OASIS_DUT u_dut (
    .clk_i       (clk_i),
    .rst_ni      (started_q),
    .boundaries_i(boundaries),
    .act_valid_i (act_valid_i),
    .act_ready_o (act_ready),
    .act_data_i  (act_data_i),
    .idx_valid_o (idx_valid),
    .idx_ready_i (idx_ready_i),
    .idx_data_o  (idx_data),
    .busy_o      (unused_busy)
  );

  // The tracked beat's index of lane l is right when it is the bracket of x_l among the
  // boundaries (oasis_spec_cluster_bracket); with ascending boundaries that is the count
  // #{ j : x_l >= b_j } (the lemmas of oasis_formal_cluster_count.sv).
  logic [Lanes-1:0] bracket_ok;
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    oasis_spec_cluster_bracket #(.ActBits(ActBits)) u_bracket (
      .x_i         (x_q[l*16 +: 16]),
      .boundaries_i(boundaries),
      .idx_i       (idx_data[l*ActBits +: ActBits]),
      .ok_o        (bracket_ok[l])
    );
  end

  always_ff @(posedge clk_i) begin
    started_q <= 1'b1;
    if (seen_q && age_q != 8'hff) age_q <= age_q + 8'd1;
    if (started_q && !seen_q && act_valid_i && act_ready) begin
      seen_q <= 1'b1;
      x_q    <= act_data_i;
      age_q  <= 8'd1;
    end
    if (seen_q && idx_valid && idx_ready_i) taken_q <= 1'b1;
  end

  always_comb begin
    if (started_q && !seen_q) assert (!idx_valid);
    if (seen_q && !taken_q && age_q < 8'(Latency)) assert (!idx_valid);
    if (seen_q && !taken_q && age_q == 8'(Latency)) assert (idx_valid);
    if (seen_q && !taken_q && idx_valid) assert (&bracket_ok);
  end

endmodule

`default_nettype wire
