// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Specification helper of the Clustering Unit proof: is index i the bracket of x among
/// the boundaries, i.e. x >= b_{i-1} (or i = 0) and x < b_i (or i = 2^nA - 1) under the
/// order key? With ascending boundaries this is the same as i = #{ j : x >= b_j }
/// (oasis_formal_cluster_count proves it). Comparing x with the two boundaries the index
/// selects, rather than with all of them, keeps the SAT problem small.
module oasis_spec_cluster_bracket #(
  /// Index bits nA.
  parameter int ActBits = 2
) (
  /// The activation, IEEE 754 binary16.
  input  logic [15:0]                      x_i,
  /// The 2^nA - 1 boundaries, b_j at [j*16 +: 16].
  input  logic [((1 << ActBits) - 1)*16-1:0] boundaries_i,
  /// The index to check.
  input  logic [ActBits-1:0]               idx_i,
  /// idx_i is the bracket of x_i.
  output logic                             ok_o
);

  logic [15:0] lo, hi;
  logic [16:0] x_key, lo_key, hi_key;

  assign lo = (idx_i == '0) ? 16'h0000 : boundaries_i[(idx_i - 1'b1)*16 +: 16];
  assign hi = (idx_i == '1) ? 16'h0000 : boundaries_i[idx_i*16 +: 16];

  oasis_spec_order_key u_x  (.x_i(x_i), .key_o(x_key));
  oasis_spec_order_key u_lo (.x_i(lo),  .key_o(lo_key));
  oasis_spec_order_key u_hi (.x_i(hi),  .key_o(hi_key));

  assign ok_o = (idx_i == '0 || x_key >= lo_key) && (idx_i == '1 || x_key < hi_key);

endmodule

`default_nettype wire
