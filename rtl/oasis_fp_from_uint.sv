// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Converts an unsigned integer to IEEE 754, one rounding to nearest even
/// (exact while the integer fits the significand: below 2^24 for binary32),
/// 0 to +0, too large a value to +infinity. For the index counts of the MAC
/// tree. Bit-exact with oasis::fp32_from_uint in model/numerics/fp.hpp for IntBits = 32
/// and binary32. Combinational.
module oasis_fp_from_uint #(
  /// Width of the unsigned integer input, bits.
  parameter int IntBits  = 32,
  /// Exponent field width of the result (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width of the result (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// 1: the whole rounding even where every integer converts exactly (for the proof that the
  /// exact path gives the same results, verif/unit/test_exact_products.cpp).
  parameter bit KeepRounding = 1'b0
) (
  /// The unsigned integer.
  input  logic [IntBits-1:0]        n_i,
  /// Its value, rounded, IEEE 754 with ExpBits and FracBits.
  output logic [ExpBits+FracBits:0] result_o
);

  localparam int Bias     = (1 << (ExpBits - 1)) - 1;
  localparam int ExpWidth = ((ExpBits > $clog2(IntBits + 1)) ? ExpBits : $clog2(IntBits + 1)) + 2;

  // Every nonzero integer is exact and normal when it fits the significand and its top bit's
  // exponent, IntBits - 1, fits the format's normal range: no rounding (oasis_fp_round's Exact).
  localparam bit Exact    = !KeepRounding && IntBits <= FracBits + 1 && IntBits - 1 <= Bias;
  logic [ExpBits+FracBits:0] rounded;

  // The rounding without its optional stage.
  logic [1:0] unused_round;

  // The top bit of n_i is worth 2^(IntBits - 1).
  oasis_fp_round #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .SigBits (IntBits),
    .ExpWidth(ExpWidth),
    .Exact   (Exact)
  ) u_round (
    .clk_i   (1'b0),
    .rst_ni  (1'b1),
    .valid_i (1'b0),
    .sign_i  (1'b0),
    .exp_i   (ExpWidth'(Bias + IntBits - 1)),
    .sig_i   (n_i),
    .side_i  (1'b0),
    .valid_o (unused_round[1]),
    .side_o  (unused_round[0]),
    .result_o(rounded)
  );

  assign result_o = (n_i == '0) ? '0 : rounded;

endmodule

`default_nettype wire
