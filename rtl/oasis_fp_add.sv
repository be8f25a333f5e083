// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// IEEE 754 addition and subtraction, a_i + b_i or a_i - b_i, one rounding to
/// nearest even; subnormals in and out, signed zeros and infinities as IEEE
/// says, and the canonical quiet NaN (exponent all ones, fraction 10...0,
/// sign 0) as the only NaN result. Bit-exact with oasis::add / oasis::sub in
/// model/numerics/fp.hpp. Combinational: oasis_fp_add_staged without stages.
module oasis_fp_add #(
  /// Exponent field width (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width (10: binary16, 23: binary32).
  parameter int FracBits = 23
) (
  /// First operand.
  input  logic [ExpBits+FracBits:0] a_i,
  /// Second operand.
  input  logic [ExpBits+FracBits:0] b_i,
  /// 1: compute a_i - b_i; 0: a_i + b_i.
  input  logic                      sub_i,
  /// The rounded sum or difference.
  output logic [ExpBits+FracBits:0] sum_o
);

  logic unused_valid;

  oasis_fp_add_staged #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .Cuts    (5'b00000)
  ) u_add (
    .clk_i  (1'b0),
    .rst_ni (1'b1),
    .valid_i(1'b0),
    .a_i    (a_i),
    .b_i    (b_i),
    .sub_i  (sub_i),
    .valid_o(unused_valid),
    .sum_o  (sum_o)
  );

endmodule

`default_nettype wire
