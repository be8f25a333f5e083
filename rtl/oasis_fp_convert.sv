// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Converts an IEEE 754 value from one binary format to another, one rounding
/// to nearest even: binary16 -> binary32 (exact) and binary32 -> binary16
/// (rounded; overflow to infinity, underflow to subnormals and zero). Zeros
/// and infinities keep their sign; every NaN becomes the canonical quiet NaN
/// of the output format. Bit-exact with oasis::to_fp32 / oasis::to_fp16 in
/// model/numerics/fp.hpp. Combinational.
module oasis_fp_convert #(
  /// Exponent field width of the input format.
  parameter int InExpBits   = 5,
  /// Fraction field width of the input format.
  parameter int InFracBits  = 10,
  /// Exponent field width of the output format.
  parameter int OutExpBits  = 8,
  /// Fraction field width of the output format.
  parameter int OutFracBits = 23
) (
  /// The value to convert, IEEE 754 with InExpBits and InFracBits.
  input  logic [InExpBits+InFracBits:0]   a_i,
  /// The converted value, IEEE 754 with OutExpBits and OutFracBits.
  output logic [OutExpBits+OutFracBits:0] result_o
);

  localparam int InWidth  = InExpBits + InFracBits + 1;
  localparam int OutWidth = OutExpBits + OutFracBits + 1;
  localparam int InBias   = (1 << (InExpBits - 1)) - 1;
  localparam int OutBias  = (1 << (OutExpBits - 1)) - 1;
  localparam int ExpWidth = ((InExpBits > OutExpBits) ? InExpBits : OutExpBits) + 2;

  logic                      sign, is_nan, is_inf, is_zero;
  logic [InExpBits-1:0]      in_exp;
  logic [InFracBits:0]       in_sig;
  logic [ExpWidth-1:0]       out_exp;
  logic [OutWidth-1:0]       rounded;

  assign sign    = a_i[InWidth-1];
  assign is_nan  = (&a_i[InWidth-2:InFracBits]) && (|a_i[InFracBits-1:0]);
  assign is_inf  = (&a_i[InWidth-2:InFracBits]) && !(|a_i[InFracBits-1:0]);
  assign is_zero = a_i[InWidth-2:0] == '0;

  // Subnormals have exponent 1 and no hidden bit; the exponent is rebiased.
  assign in_exp  = (a_i[InWidth-2:InFracBits] == '0) ? InExpBits'(1) : a_i[InWidth-2:InFracBits];
  assign in_sig  = {a_i[InWidth-2:InFracBits] != '0, a_i[InFracBits-1:0]};
  assign out_exp = ExpWidth'(in_exp) - ExpWidth'(InBias) + ExpWidth'(OutBias);

  // The rounding without its optional stage.
  logic [1:0] unused_round;

  oasis_fp_round #(
    .ExpBits (OutExpBits),
    .FracBits(OutFracBits),
    .SigBits (InFracBits + 1),
    .ExpWidth(ExpWidth)
  ) u_round (
    .clk_i   (1'b0),
    .rst_ni  (1'b1),
    .valid_i (1'b0),
    .sign_i  (sign),
    .exp_i   (out_exp),
    .sig_i   (in_sig),
    .side_i  (1'b0),
    .valid_o (unused_round[1]),
    .side_o  (unused_round[0]),
    .result_o(rounded)
  );

  // A conversion to a format that holds every input value (more fraction bits, and a normal
  // range reaching below the input's smallest subnormal) is exact, and its result's last
  // OutFracBits - InFracBits fraction bits are 0: said here as constants, so that synthesis
  // sees them (logic that reads the result can fold them).
  localparam bit Exact = OutFracBits >= InFracBits && OutBias >= InBias + InFracBits;
  localparam int ZeroBits = Exact ? OutFracBits - InFracBits : 0;
  logic [OutWidth-1:0] value;

  if (ZeroBits > 0) begin : g_exact
    logic unused_low;
    assign value      = {rounded[OutWidth-1:ZeroBits], {ZeroBits{1'b0}}};
    assign unused_low = |rounded[ZeroBits-1:0];
  end else begin : g_rounded
    assign value = rounded;
  end

  always_comb begin
    result_o = value;
    if (is_nan) begin
      result_o = {1'b0, {OutExpBits{1'b1}}, 1'b1, {(OutFracBits-1){1'b0}}};
    end else if (is_inf) begin
      result_o = {sign, {OutExpBits{1'b1}}, {OutFracBits{1'b0}}};
    end else if (is_zero) begin
      result_o = {sign, {(OutWidth-1){1'b0}}};
    end
  end

endmodule

`default_nettype wire
