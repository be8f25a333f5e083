// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Specification of the comparator block: lt/eq/gt of the two operands' order keys
/// (oasis_spec_order_key). Same ports as oasis_<config>_comparator, so a miter can
/// compare the two over all 2^32 operand pairs.
module oasis_spec_comparator (
  /// First operand, IEEE 754 binary16.
  input  logic [15:0] a_i,
  /// Second operand, IEEE 754 binary16.
  input  logic [15:0] b_i,
  /// a_i is below b_i under the order key.
  output logic        lt_o,
  /// a_i equals b_i under the order key.
  output logic        eq_o,
  /// a_i is above b_i under the order key.
  output logic        gt_o
);

  logic [16:0] key_a, key_b;

  oasis_spec_order_key u_key_a (.x_i(a_i), .key_o(key_a));
  oasis_spec_order_key u_key_b (.x_i(b_i), .key_o(key_b));

  assign lt_o = key_a < key_b;
  assign eq_o = key_a == key_b;
  assign gt_o = key_a > key_b;

endmodule

`default_nettype wire
