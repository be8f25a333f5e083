// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// IEEE 754 multiplication, a_i * b_i, one rounding to nearest even;
/// subnormals in and out, signed zeros and infinities as IEEE says, and the
/// canonical quiet NaN (exponent all ones, fraction 10...0, sign 0) as the only
/// NaN result (also for 0 * inf). Bit-exact with oasis::mul in model/numerics/fp.hpp.
/// Combinational: oasis_fp_mul_staged without stages (whose header says how an
/// operand may be in a narrower format than the result).
module oasis_fp_mul #(
  /// Exponent field width (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// Exponent and fraction field widths of the first operand.
  parameter int AExpBits  = ExpBits,
  parameter int AFracBits = FracBits,
  /// Exponent and fraction field widths of the second operand.
  parameter int BExpBits  = ExpBits,
  parameter int BFracBits = FracBits
) (
  /// First operand.
  input  logic [AExpBits+AFracBits:0] a_i,
  /// Second operand.
  input  logic [BExpBits+BFracBits:0] b_i,
  /// The rounded product.
  output logic [ExpBits+FracBits:0] prod_o
);

  logic unused_valid;

  oasis_fp_mul_staged #(
    .ExpBits  (ExpBits),
    .FracBits (FracBits),
    .Cuts     (4'b0000),
    .AExpBits (AExpBits),
    .AFracBits(AFracBits),
    .BExpBits (BExpBits),
    .BFracBits(BFracBits)
  ) u_mul (
    .clk_i  (1'b0),
    .rst_ni (1'b1),
    .valid_i(1'b0),
    .a_i    (a_i),
    .b_i    (b_i),
    .valid_o(unused_valid),
    .prod_o (prod_o)
  );

endmodule

`default_nettype wire
