`default_nettype none

/// Normalises, rounds to nearest even and packs one IEEE 754 result: the
/// shared back end of the adder, the multiplier and the conversions.
/// The operand is (-1)^sign_i * sig_i * 2^(exp_i - Bias - (SigBits - 1)): exp_i
/// is the biased exponent the value would have if the leading one of sig_i
/// were its top bit. sig_i must be nonzero (callers handle zero, infinity and
/// NaN). Bit 0 of sig_i may be a sticky bit (the OR of nonzero bits below it)
/// when it lies at least two places below the last kept bit of the result.
/// Results below the normal range become subnormal (no flush to zero); results
/// that round above the largest finite value become infinity.
/// Combinational when Cut is 0; with Cut = 1 a register stage sits between the
/// normalisation and the rounding (latency one cycle), and side_i, the
/// caller's data that must stay beside the value (its special-case result),
/// crosses it too.
module oasis_fp_round #(
  /// Exponent field width of the result format (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width of the result format (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// Width of the significand sig_i, bits.
  parameter int SigBits  = 27,
  /// Width of the two's complement exponent exp_i, bits.
  parameter int ExpWidth = 10,
  /// Register stages between the normalisation and the rounding (0 or 1).
  parameter int Cut      = 0,
  /// Width of side_i, bits.
  parameter int SideBits = 1
) (
  /// Clock (unused when Cut is 0).
  input  logic                         clk_i,
  /// Asynchronous reset, active low: clears the stage's valid bit.
  input  logic                         rst_ni,
  /// The operand is valid this cycle (loads the stage's register).
  input  logic                         valid_i,
  /// Sign of the result (1: negative).
  input  logic                         sign_i,
  /// Biased exponent of sig_i's top bit, two's complement.
  input  logic signed [ExpWidth-1:0]   exp_i,
  /// Significand, nonzero, binary point below the top bit.
  input  logic        [SigBits-1:0]    sig_i,
  /// Data that crosses the stage beside the value.
  input  logic        [SideBits-1:0]   side_i,
  /// result_o is valid: valid_i of Cut cycles ago.
  output logic                         valid_o,
  /// side_i of Cut cycles ago.
  output logic        [SideBits-1:0]   side_o,
  /// The rounded result, IEEE 754 with ExpBits and FracBits.
  output logic [ExpBits+FracBits:0]    result_o
);

  // Kept bits (hidden + fraction), a guard bit and a sticky bit.
  localparam int KeepBits = FracBits + 3;
  // A narrow significand is padded with zeros below (exact).
  localparam int PadBits  = (SigBits >= KeepBits) ? 0 : KeepBits - SigBits;
  localparam int WorkBits = SigBits + PadBits;
  localparam int LzBits   = $clog2(WorkBits);
  // The normalised exponent needs one more bit than exp_i (exp_i - lz).
  localparam int FieldBits = ((ExpWidth > LzBits) ? ExpWidth : LzBits) + 2;
  localparam int ShiftBits = $clog2(KeepBits + 1);
  // The result without its sign: the exponent field above the fraction.
  localparam int MagBits   = FieldBits + FracBits;

  logic [WorkBits-1:0]          sig_w;
  logic [WorkBits-1:0]          norm0, norm;
  logic [LzBits-1:0]            lz;
  logic signed [FieldBits-1:0]  field0, field;
  logic                         sign;
  logic                         subnormal;
  logic [FieldBits-1:0]         denorm_shift;
  logic [ShiftBits-1:0]         shift;
  logic [KeepBits-1:0]          keep;
  logic [2*KeepBits-1:0]        shifted;
  logic [KeepBits-1:0]          rounded_in;
  logic                         round_up;
  logic [FieldBits-1:0]         field_minus_one;
  logic [MagBits-1:0]           mag;
  logic                         overflow;

  if (PadBits == 0) begin : g_nopad
    assign sig_w = sig_i;
  end else begin : g_pad
    assign sig_w = {sig_i, {PadBits{1'b0}}};
  end

  // Normalisation: shift the leading one to the top, in LzBits steps of
  // 2^k places each, largest first; lz counts the places.
  always_comb begin
    norm0 = sig_w;
    lz    = '0;
    for (int j = 0; j < LzBits; j++) begin
      if ((norm0 >> (WorkBits - (1 << (LzBits - 1 - j)))) == '0) begin
        norm0 = norm0 << (1 << (LzBits - 1 - j));
        lz[LzBits-1-j] = 1'b1;
      end
    end
  end

  assign field0 = FieldBits'(exp_i) - FieldBits'(lz);

  // The optional stage: the normalised value, its sign and the side data.
  localparam int CutBits = 1 + FieldBits + WorkBits + SideBits;
  logic [CutBits-1:0] cut_d, cut_q;
  assign cut_d = {sign_i, field0, norm0, side_i};
  assign {sign, field, norm, side_o} = cut_q;
  oasis_fp_pipe #(
    .Width (CutBits),
    .Stages(Cut)
  ) u_cut (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .valid_i(valid_i),
    .data_i (cut_d),
    .valid_o(valid_o),
    .data_o (cut_q)
  );

  assign subnormal = (field[FieldBits-1] == 1'b1) || (field == '0);

  // Subnormal results keep fewer bits: shift right by 1 - field, at most
  // KeepBits places (beyond that every bit is sticky and the result is 0).
  assign denorm_shift = FieldBits'(1) - field;
  always_comb begin
    shift = '0;
    if (subnormal) begin
      if (denorm_shift > FieldBits'(KeepBits)) begin
        shift = ShiftBits'(KeepBits);
      end else begin
        shift = ShiftBits'(denorm_shift);
      end
    end
  end

  assign keep    = {norm[WorkBits-1 -: KeepBits-1], |norm[WorkBits-KeepBits:0]};
  assign shifted = {keep, {KeepBits{1'b0}}} >> shift;
  assign rounded_in = {shifted[2*KeepBits-1 -: KeepBits-1],
                       shifted[KeepBits] | (|shifted[KeepBits-1:0])};

  // Round to nearest, ties to even: up when the guard bit is set and either
  // the sticky bit or the last kept bit is.
  assign round_up = rounded_in[1] & (rounded_in[0] | rounded_in[2]);

  // The hidden bit of the rounded significand carries into the exponent field; a subnormal
  // that rounds up to 2^FracBits becomes the smallest normal number the same way. One
  // addition: the exponent field above the significand, the rounding as the carry in.
  logic unused_mag_carry;
  assign field_minus_one = subnormal ? '0 : FieldBits'(field - FieldBits'(1));
  oasis_add #(.Width(MagBits)) u_mag (
    .a_i({field_minus_one, {FracBits{1'b0}}}), .b_i(MagBits'(rounded_in[KeepBits-1:2])),
    .carry_i(round_up), .sum_o(mag), .carry_o(unused_mag_carry)
  );
  assign overflow = mag >= MagBits'({{ExpBits{1'b1}}, {FracBits{1'b0}}});

  always_comb begin
    result_o = {sign, mag[ExpBits+FracBits-1:0]};
    if (overflow) begin
      result_o = {sign, {ExpBits{1'b1}}, {FracBits{1'b0}}};
    end
  end

endmodule

`default_nettype wire
