// SPDX-License-Identifier: Apache-2.0
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
/// With Exact the caller guarantees that every result is normal and exact: sig_i
/// fits the result's hidden and fraction bits (SigBits <= FracBits + 1) and the
/// normalised exponent, exp_i less the leading zeros of sig_i, lies in
/// 1 .. 2^ExpBits - 2 (a binary16 x binary16 product in binary32, a narrow
/// integer). The result is then the normalised value packed: no shift for a
/// subnormal result, no rounding and no overflow, and none of their logic.
/// With ExpPositive the caller guarantees exp_i >= 1 (an adder's sum: the larger
/// operand's exponent plus one), so no result needs a shift to the right.
/// Two places may hold a register stage, bit k of Cuts for place k:
///   0: after the normalisation (the shift to the left, or a subnormal result's to
///      the right), before the rounding decision;
///   1: after the rounding decision, before the increment.
/// The latency is the number of bits set in Cuts (0: combinational); side_i, the
/// caller's data that must stay beside the value (its special-case result),
/// crosses the stages too.
module oasis_fp_round #(
  /// Exponent field width of the result format (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width of the result format (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// Width of the significand sig_i, bits.
  parameter int SigBits  = 27,
  /// Width of the two's complement exponent exp_i, bits.
  parameter int ExpWidth = 10,
  /// The places holding a register stage, one bit each (see above).
  parameter logic [1:0] Cuts = 2'b00,
  /// Width of side_i, bits.
  parameter int SideBits = 1,
  /// Every result is normal and exact (see above).
  parameter bit Exact    = 1'b0,
  /// exp_i is at least 1 (see above).
  parameter bit ExpPositive = 1'b0
) (
  /// Clock (unused when Cuts is 0).
  input  logic                         clk_i,
  /// Asynchronous reset, active low: clears the stages' valid bits.
  input  logic                         rst_ni,
  /// The operand is valid this cycle (loads the first stage's register).
  input  logic                         valid_i,
  /// Sign of the result (1: negative).
  input  logic                         sign_i,
  /// Biased exponent of sig_i's top bit, two's complement.
  input  logic signed [ExpWidth-1:0]   exp_i,
  /// Significand, nonzero, binary point below the top bit.
  input  logic        [SigBits-1:0]    sig_i,
  /// Data that crosses the stage beside the value.
  input  logic        [SideBits-1:0]   side_i,
  /// result_o is valid: valid_i of as many cycles ago as Cuts has bits set.
  output logic                         valid_o,
  /// side_i of as many cycles ago as Cuts has bits set.
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

  logic [WorkBits-1:0]          sig_w;
  logic [WorkBits-1:0]          norm0;
  logic [LzBits-1:0]            lz;
  logic signed [FieldBits-1:0]  field0, field;
  logic                         sign;
  logic                         subnormal;
  logic [ShiftBits-1:0]         shift;
  logic [KeepBits-1:0]          keep0;
  logic [2*KeepBits-1:0]        shifted;
  logic [KeepBits-1:0]          rounded_in;
  logic                         round_up;
  logic [FieldBits-1:0]         field_out;
  logic [ExpBits-1:0]           field_rounded;
  logic [FracBits-1:0]          frac;
  logic                         overflow;

  if (PadBits == 0) begin : g_nopad
    assign sig_w = sig_i;
  end else begin : g_pad
    assign sig_w = {sig_i, {PadBits{1'b0}}};
  end

  // Normalisation, two ways side by side, both from exp_i, which comes before sig_i's bits:
  // - exp_i >= 1: the leading one goes to the top, but no further than a biased exponent of 1
  //   allows: the shift is min(leading zeros, exp_i - 1). A mark at the bit exp_i - 1 places
  //   below the top, ORed into what the leading zeros are counted of, stops the count there; a
  //   result so stopped has its hidden bit clear and is subnormal, with nothing shifted out.
  // - exp_i <= 0 (not when ExpPositive): the result is subnormal whatever sig_i's leading
  //   zeros: sig_i as it is, shifted right by 1 - exp_i (at most KeepBits places; beyond, every
  //   bit is sticky), with no count before it.
  // Neither waits for the other; the count never waits for a subtraction.
  localparam int LzWidth = 1 << LzBits;
  logic [FieldBits-1:0] exp_wide;
  logic [WorkBits-1:0]  floor_mark;
  logic                 below_one;

  assign exp_wide  = FieldBits'(exp_i);
  assign below_one = !ExpPositive && !Exact && (exp_i[ExpWidth-1] || exp_i == '0);
  for (genvar j = 0; j < WorkBits; j++) begin : g_mark
    // The top bit less exp_i - 1 places: the bit whose biased exponent is 1.
    if (Exact) begin : g_none
      assign floor_mark[j] = 1'b0;
    end else begin : g_at
      assign floor_mark[j] = exp_wide == FieldBits'(WorkBits - j);
    end
  end

  logic [WorkBits-1:0] lz_in;
  assign lz_in = sig_w | floor_mark;

  // The leading zeros counted by a tree, then the leading one shifted to the top in LzBits
  // steps of 2^k places each, largest first. Level l of the tree has a node for every 2^l bits
  // of the operand, padded below with zeros to 2^LzBits: whether they hold a one, and if so how
  // many zeros lead them (l bits). A node's count is its upper half's when that holds a one,
  // else the half's width plus its lower half's count; so the count's bits come high first,
  // each one level after the one above it, and each step of the shift waits only for its own
  // bit.
  for (genvar l = 0; l <= LzBits; l++) begin : g_lz
    localparam int Nodes = LzWidth >> l;
    localparam int CountBits = l > 0 ? l : 1;
    logic [Nodes-1:0]           any;
    logic [Nodes*CountBits-1:0] count;
    if (l == 0) begin : g_bits
      assign any   = LzWidth'(lz_in) << (LzWidth - WorkBits);
      assign count = '0;
    end else begin : g_merge
      for (genvar n = 0; n < Nodes; n++) begin : g_node
        logic hi, lo;
        assign hi     = g_lz[l-1].any[2*n+1];
        assign lo     = g_lz[l-1].any[2*n];
        assign any[n] = hi | lo;
        if (l == 1) begin : g_leaf
          assign count[n] = !hi;
        end else begin : g_inner
          assign count[n*l +: l] = hi ? {1'b0, g_lz[l-1].count[(2*n+1)*(l-1) +: l-1]}
                                      : {1'b1, g_lz[l-1].count[(2*n)*(l-1) +: l-1]};
        end
      end
    end
  end
  assign lz = g_lz[LzBits].count;
  // Level 0 counts nothing; the root's one is known to be there (sig_i is nonzero).
  logic unused_lz;
  assign unused_lz = (^g_lz[0].count) ^ g_lz[LzBits].any[0];

  always_comb begin
    norm0 = sig_w;
    for (int j = 0; j < LzBits; j++) begin
      if (lz[LzBits-1-j]) norm0 = norm0 << (1 << (LzBits - 1 - j));
    end
  end

  // exp_i - lz as exp_i + ~lz + 1, with the prefix adder: the count's low bits come last.
  logic [FieldBits-1:0] lz_inv, field0_sum;
  logic                 unused_field0_carry;
  assign lz_inv = {{(FieldBits - LzBits){1'b1}}, ~lz};
  oasis_add #(.Width(FieldBits)) u_field0 (
    .a_i(exp_wide), .b_i(lz_inv), .carry_i(1'b1), .sum_o(field0_sum),
    .carry_o(unused_field0_carry)
  );
  assign field0 = field0_sum;

  // Below a biased exponent of 1: shift right by 1 - exp_i, from exp_i alone.
  logic [FieldBits-1:0] under_shift;
  logic [KeepBits-1:0]  keep_raw, keep_under;
  assign under_shift = FieldBits'(1) - exp_wide;
  always_comb begin
    shift = '0;
    if (below_one) begin
      if (under_shift > FieldBits'(KeepBits)) begin
        shift = ShiftBits'(KeepBits);
      end else begin
        shift = ShiftBits'(under_shift);
      end
    end
  end
  assign keep_raw   = {sig_w[WorkBits-1 -: KeepBits-1], |sig_w[WorkBits-KeepBits:0]};
  assign shifted    = {keep_raw, {KeepBits{1'b0}}} >> shift;
  assign keep_under = {shifted[2*KeepBits-1 -: KeepBits-1],
                       shifted[KeepBits] | (|shifted[KeepBits-1:0])};

  // The kept bits, a guard bit and a sticky bit, from one of the two.
  assign keep0 = below_one ? keep_under
                           : {norm0[WorkBits-1 -: KeepBits-1], |norm0[WorkBits-KeepBits:0]};

  // Place 0: the kept bits, whether they are below a biased exponent of 1, the exponent the
  // normalised value would have, its sign and the side data.
  localparam int Cut0Bits = 2 + FieldBits + KeepBits + SideBits;
  logic [Cut0Bits-1:0]  cut0_d, cut0_q;
  logic                 valid1, below_one1;
  logic [SideBits-1:0]  side1;
  assign cut0_d = {sign_i, below_one, field0, keep0, side_i};
  assign {sign, below_one1, field, rounded_in, side1} = cut0_q;
  oasis_fp_pipe #(
    .Width (Cut0Bits),
    .Stages(Cuts[0] ? 1 : 0)
  ) u_cut0 (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .valid_i(valid_i),
    .data_i (cut0_d),
    .valid_o(valid1),
    .data_o (cut0_q)
  );

  // Subnormal: below a biased exponent of 1, or stopped there with the hidden bit clear.
  assign subnormal = !Exact && (below_one1 || !rounded_in[KeepBits-1]);

  // Round to nearest, ties to even: up when the guard bit is set and either
  // the sticky bit or the last kept bit is.
  // An exact result has neither guard nor sticky bit to round by.
  assign round_up = !Exact && rounded_in[1] && (rounded_in[0] || rounded_in[2]);

  // The exponent field of the result before the rounding's carry: a normal result's hidden bit
  // is set and stands for the field itself; a subnormal result's is clear and its field is 0.
  // An exact result's field fits ExpBits bits, so the bits above are constant.
  assign field_out = Exact ? FieldBits'(field[ExpBits-1:0]) : subnormal ? '0 : FieldBits'(field);

  // Place 1: the sign, the exponent field, the fraction, the rounding decision and the side
  // data.
  localparam int Cut1Bits = 1 + FieldBits + FracBits + 1 + SideBits;
  logic [Cut1Bits-1:0]  cut1_d, cut1_q;
  logic                 sign2, round_up2;
  logic [FieldBits-1:0] field_out2;
  logic [FracBits-1:0]  frac2;
  assign cut1_d = {sign, field_out, rounded_in[FracBits+1:2], round_up, side1};
  assign {sign2, field_out2, frac2, round_up2, side_o} = cut1_q;
  oasis_fp_pipe #(
    .Width (Cut1Bits),
    .Stages(Cuts[1] ? 1 : 0)
  ) u_cut1 (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .valid_i(valid1),
    .data_i (cut1_d),
    .valid_o(valid_o),
    .data_o (cut1_q)
  );

  // The rounding increments the fraction; its carry increments the exponent field (a
  // subnormal that rounds up to 2^FracBits becomes the smallest normal number the same way).
  // The increments' ANDs and both overflow comparisons wait for nothing but the registers.
  localparam logic [FieldBits-1:0] FieldMax = FieldBits'({ExpBits{1'b1}});
  // Whether a significand of SigBits bits can round at all: one that fits the result's hidden
  // and fraction bits rounds only when its result is subnormal, so its increment (a conversion
  // that widens, a narrow integer) is off the critical path and left to synthesis whole.
  localparam bit Inexact = SigBits > FracBits + 1;
  logic frac_carry, unused_field_carry;
  oasis_inc #(.Width(FracBits), .KeepLevels(Inexact)) u_frac (
    .a_i(frac2), .carry_i(round_up2), .sum_o(frac), .carry_o(frac_carry)
  );
  oasis_inc #(.Width(ExpBits), .KeepLevels(Inexact)) u_field (
    .a_i(field_out2[ExpBits-1:0]), .carry_i(frac_carry), .sum_o(field_rounded),
    .carry_o(unused_field_carry)
  );
  // Infinity when the field reaches all ones.
  assign overflow = !Exact && (frac_carry ? field_out2 >= FieldMax - FieldBits'(1)
                                           : field_out2 >= FieldMax);

  always_comb begin
    result_o = {sign2, field_rounded, frac};
    if (overflow) begin
      result_o = {sign2, {ExpBits{1'b1}}, {FracBits{1'b0}}};
    end
  end

endmodule

`default_nettype wire
