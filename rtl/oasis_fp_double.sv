// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Doubles an IEEE 754 value: one multiplication by two rounded to nearest even, which is exact
/// but in the largest binade, whose doubles overflow to the infinity of their sign. A subnormal's
/// magnitude field shifts left by one (its top fraction bit carries into the exponent field when
/// the double is normal), a normal's exponent goes up by one; zeros and infinities stay as they
/// are; every NaN becomes the canonical quiet NaN. Bit-exact with oasis::mul(a, 2) of
/// model/numerics/fp.hpp. Combinational: the FIGLUT-class line's LUT scaled from one bit-plane to
/// the next (docs/woq_lut_line.md).
module oasis_fp_double #(
  /// Exponent field width of the format.
  parameter int ExpBits  = 8,
  /// Fraction field width of the format.
  parameter int FracBits = 23
) (
  /// The value, IEEE 754 with ExpBits and FracBits.
  input  logic [ExpBits+FracBits:0] a_i,
  /// 2 a_i, in the same format.
  output logic [ExpBits+FracBits:0] result_o
);

  logic                sign;
  logic [ExpBits-1:0]  exp;
  logic [FracBits-1:0] frac;

  assign {sign, exp, frac} = a_i;

  always_comb begin
    result_o = {sign, exp + ExpBits'(1), frac};
    if (exp == '1) begin
      result_o = frac != '0 ? {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}} : a_i;
    end else if (exp == {{(ExpBits-1){1'b1}}, 1'b0}) begin
      result_o = {sign, {ExpBits{1'b1}}, {FracBits{1'b0}}};
    end else if (exp == '0) begin
      result_o = {sign, {(ExpBits-1){1'b0}}, frac, 1'b0};
    end
  end

endmodule

`default_nettype wire
