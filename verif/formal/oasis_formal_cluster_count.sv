// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Lemmas that turn the Clustering Unit proof's bracket into the count of docs/spec.md section 4
/// (read with `read_verilog -formal`; no design module involved). With g_j = (x >= b_j)
/// under the order key:
///   oasis_formal_cluster_order: for all binary16 a, c, x: a <= c and x >= c imply
///     x >= a. So with ascending boundaries (b_j <= b_{j+1}), g_{j+1} implies g_j.
///   oasis_formal_cluster_count: for all x, all boundaries and every index i, if g_{j+1}
///     implies g_j for every j and i is the bracket of x (oasis_spec_cluster_bracket), then
///     i = #{ j : g_j }, the number of boundaries with x >= b_j.
/// Broken = 1 drops the premise that makes each lemma true, so the run must find a
/// counterexample (the check that the lemma is not vacuous).
module oasis_formal_cluster_order #(
  /// 1: reverse the premise a <= c (the lemma no longer holds).
  parameter bit Broken = 1'b0
) (
  /// Free binary16 values.
  input logic [15:0] a_i,
  input logic [15:0] c_i,
  input logic [15:0] x_i
);

  logic [16:0] a_key, c_key, x_key;
  oasis_spec_order_key u_a (.x_i(a_i), .key_o(a_key));
  oasis_spec_order_key u_c (.x_i(c_i), .key_o(c_key));
  oasis_spec_order_key u_x (.x_i(x_i), .key_o(x_key));

  always_comb begin
    if ((Broken ? a_key >= c_key : a_key <= c_key) && x_key >= c_key) assert (x_key >= a_key);
  end

endmodule

module oasis_formal_cluster_count #(
  /// Index bits nA.
  parameter int ActBits = 2,
  /// 1: drop the premise that g is monotone (the lemma no longer holds for nA >= 2).
  parameter bit Broken = 1'b0
) (
  /// Free activation and boundaries.
  input logic [15:0]                      x_i,
  input logic [((1 << ActBits) - 1)*16-1:0] boundaries_i,
  /// Free index.
  input logic [ActBits-1:0]               idx_i
);

  localparam int Bounds = (1 << ActBits) - 1;

  logic [16:0] x_key;
  logic [Bounds-1:0] g;
  oasis_spec_order_key u_x (.x_i(x_i), .key_o(x_key));
  for (genvar j = 0; j < Bounds; j++) begin : g_bound
    logic [16:0] b_key;
    oasis_spec_order_key u_b (.x_i(boundaries_i[j*16 +: 16]), .key_o(b_key));
    assign g[j] = x_key >= b_key;
  end
  for (genvar j = 0; j + 1 < Bounds; j++) begin : g_monotone
    if (!Broken) begin : g_assume
      always_comb assume (!g[j+1] || g[j]);
    end
  end

  logic bracket;
  oasis_spec_cluster_bracket #(.ActBits(ActBits)) u_bracket (
    .x_i         (x_i),
    .boundaries_i(boundaries_i),
    .idx_i       (idx_i),
    .ok_o        (bracket)
  );

  logic [ActBits:0] count;
  assign count = (ActBits + 1)'($countones(g));

  always_comb begin
    if (bracket) assert (count == {1'b0, idx_i});
  end

endmodule

`default_nettype wire
