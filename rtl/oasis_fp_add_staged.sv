// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// IEEE 754 addition and subtraction, a_i + b_i or a_i - b_i, one rounding to
/// nearest even; subnormals in and out, signed zeros and infinities as IEEE
/// says, and the canonical quiet NaN (exponent all ones, fraction 10...0,
/// sign 0) as the only NaN result. Bit-exact with oasis::add / oasis::sub in
/// model/numerics/fp.hpp.
///
/// Five places inside the datapath may hold a register stage, bit k of Cuts
/// for place k (docs/fp_rtl.md, Pipelining):
///   0: after the operands' magnitudes are compared and the exponent
///      differences both ways are known;
///   1: after the smaller significand is aligned;
///   2: after the significands are added;
///   3: after the sum is normalised, before it is rounded;
///   4: inside the rounding, before its increment (after the rounding
///      decision).
/// The sum's exponent is at least the larger operand's, so its rounding never shifts right
/// (oasis_fp_round's ExpPositive).
/// The latency is the number of bits set in Cuts (0: combinational). A stage's
/// data register loads only when its valid bit does.
module oasis_fp_add_staged #(
  /// Exponent field width (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// The places holding a register stage, one bit each (see above).
  parameter logic [4:0] Cuts = 5'b00000
) (
  /// Clock (unused when Cuts is 0).
  input  logic                      clk_i,
  /// Asynchronous reset, active low: clears the stages' valid bits.
  input  logic                      rst_ni,
  /// The operands are valid this cycle.
  input  logic                      valid_i,
  /// First operand.
  input  logic [ExpBits+FracBits:0] a_i,
  /// Second operand.
  input  logic [ExpBits+FracBits:0] b_i,
  /// 1: compute a_i - b_i; 0: a_i + b_i.
  input  logic                      sub_i,
  /// sum_o is valid: valid_i of as many cycles ago as Cuts has bits set.
  output logic                      valid_o,
  /// The rounded sum or difference.
  output logic [ExpBits+FracBits:0] sum_o
);

  localparam int Width    = ExpBits + FracBits + 1;
  // Aligned significands: hidden bit, fraction, guard, round and sticky bits.
  localparam int AlignBits = FracBits + 4;
  // The sum has one more bit for the carry.
  localparam int SumBits  = AlignBits + 1;
  localparam int ExpWidth = ExpBits + 2;
  localparam int DiffBits = $clog2(AlignBits + 1);
  // What every stage carries beside the datapath: whether the result is a
  // special case, and which, as a code of two bits (none, zero, infinity, NaN)
  // and the result's sign; not the result they stand for.
  localparam int SpecialBits = 3;
  localparam logic [1:0] KindNone = 2'b00;
  localparam logic [1:0] KindZero = 2'b01;
  localparam logic [1:0] KindInf  = 2'b10;
  localparam logic [1:0] KindNan  = 2'b11;
  // Place 0 holds the special case, the sign, whether the operation subtracts, whether a is
  // the larger, the larger exponent, both significands, and both shifts with their overflows.
  localparam int Stage0Bits = SpecialBits + 3 + ExpBits + 2 * (FracBits + 1) + 2 * (DiffBits + 1);
  localparam int Stage1Bits = SpecialBits + 2 + ExpBits + 2 * AlignBits;
  localparam int Stage2Bits = SpecialBits + 1 + ExpBits + 1 + SumBits;

  // --- before place 0: classify, order by magnitude, exponent difference
  logic [Width-1:0]     b_eff;
  logic                 a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  logic                 a_is_big, eff_sub0, big_sign0;
  logic [ExpBits-1:0]   a_exp, b_exp, big_exp0, diff_ab, diff_ba;
  logic [DiffBits-1:0]  shift_ab, shift_ba;
  logic                 past_ab, past_ba;
  logic [FracBits:0]    a_sig, b_sig;
  logic [SpecialBits-1:0] special0;

  assign b_eff = {b_i[Width-1] ^ sub_i, b_i[Width-2:0]};

  assign a_nan  = (&a_i[Width-2:FracBits]) && (|a_i[FracBits-1:0]);
  assign b_nan  = (&b_i[Width-2:FracBits]) && (|b_i[FracBits-1:0]);
  assign a_inf  = (&a_i[Width-2:FracBits]) && !(|a_i[FracBits-1:0]);
  assign b_inf  = (&b_i[Width-2:FracBits]) && !(|b_i[FracBits-1:0]);
  assign a_zero = a_i[Width-2:0] == '0;
  assign b_zero = b_i[Width-2:0] == '0;

  // The operand of larger magnitude goes first: for finite values the
  // magnitude order is the order of the bit patterns without the sign.
  // a_i's magnitude less b's without its sign, as a + ~b + 1: no borrow when a's is the larger.
  logic unused_mag_diff;
  logic [Width-2:0] mag_diff;
  oasis_add #(.Width(Width - 1)) u_order (
    .a_i(a_i[Width-2:0]), .b_i(~b_eff[Width-2:0]), .carry_i(1'b1),
    .sum_o(mag_diff), .carry_o(a_is_big)
  );
  assign unused_mag_diff = ^mag_diff;
  // The signs differ whichever operand is the larger.
  assign eff_sub0  = a_i[Width-1] != b_eff[Width-1];
  assign big_sign0 = a_is_big ? a_i[Width-1] : b_eff[Width-1];

  // Subnormals have exponent 1 and no hidden bit.
  assign a_exp = (a_i[Width-2:FracBits] == '0) ? ExpBits'(1) : a_i[Width-2:FracBits];
  assign b_exp = (b_i[Width-2:FracBits] == '0) ? ExpBits'(1) : b_i[Width-2:FracBits];
  assign a_sig = {a_i[Width-2:FracBits] != '0, a_i[FracBits-1:0]};
  assign b_sig = {b_i[Width-2:FracBits] != '0, b_i[FracBits-1:0]};

  // The exponent difference both ways and its alignment shift, beside the comparison rather
  // than after it: the larger magnitude has the larger exponent, so the comparison only picks
  // one (the other, negative, is never read).
  // A difference of 2^DiffBits or more (past_ab, past_ba) shifts every bit into the sticky one,
  // as does any shift of AlignBits or more; below that the shift is the difference's low bits.
  logic unused_diff_ab_carry, unused_diff_ba_carry;
  oasis_add #(.Width(ExpBits)) u_diff_ab (
    .a_i(a_exp), .b_i(~b_exp), .carry_i(1'b1), .sum_o(diff_ab), .carry_o(unused_diff_ab_carry)
  );
  oasis_add #(.Width(ExpBits)) u_diff_ba (
    .a_i(b_exp), .b_i(~a_exp), .carry_i(1'b1), .sum_o(diff_ba), .carry_o(unused_diff_ba_carry)
  );
  assign shift_ab = diff_ab[DiffBits-1:0];
  assign shift_ba = diff_ba[DiffBits-1:0];
  assign past_ab  = |diff_ab[ExpBits-1:DiffBits];
  assign past_ba  = |diff_ba[ExpBits-1:DiffBits];

  assign big_exp0 = a_is_big ? a_exp : b_exp;

  // The special cases, in IEEE's order; an exact cancellation is found after
  // place 2.
  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && (a_i[Width-1] != b_eff[Width-1]))) begin
      special0 = {KindNan, 1'b0};
    end else if (a_inf) begin
      special0 = {KindInf, a_i[Width-1]};
    end else if (b_inf) begin
      special0 = {KindInf, b_eff[Width-1]};
    end else if (a_zero && b_zero) begin
      // Round to nearest: -0 only when both are -0.
      special0 = {KindZero, a_i[Width-1] & b_eff[Width-1]};
    end else begin
      special0 = {KindNone, 1'b0};
    end
  end

  // --- place 0
  logic [Stage0Bits-1:0] s0_d, s0_q;
  logic [SpecialBits-1:0] special1;
  logic                  valid1, sign1, eff_sub1, a_is_big1;
  logic [ExpBits-1:0]    big_exp1;
  logic [FracBits:0]     a_sig1, b_sig1;
  logic [DiffBits-1:0]   shift_ab1, shift_ba1;
  logic                  past_ab1, past_ba1;

  assign s0_d = {special0, big_sign0, eff_sub0, big_exp0, a_is_big, a_sig, b_sig, shift_ab,
                 shift_ba, past_ab, past_ba};
  oasis_fp_pipe #(.Width(Stage0Bits), .Stages(Cuts[0] ? 1 : 0)) u_cut0 (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .valid_i(valid_i), .data_i(s0_d), .valid_o(valid1), .data_o(s0_q)
  );
  assign {special1, sign1, eff_sub1, big_exp1, a_is_big1, a_sig1, b_sig1, shift_ab1,
          shift_ba1, past_ab1, past_ba1} = s0_q;

  // --- before place 1: align the smaller operand; the bits shifted out become
  // the sticky bit. Each operand is aligned as if it were the smaller, beside the comparison
  // rather than after it, and the comparison picks one of the two.
  // Below the aligned bits, room for a shift of 2^DiffBits - 1 places with no bit lost.
  localparam int LowBits = 1 << DiffBits;
  logic [AlignBits+LowBits-1:0] a_ext, b_ext;
  logic [AlignBits-1:0]         a_al, b_al, big_al1, small_al1;

  assign a_ext = {a_sig1, 3'b000, {LowBits{1'b0}}} >> shift_ba1;
  assign b_ext = {b_sig1, 3'b000, {LowBits{1'b0}}} >> shift_ab1;
  assign a_al  = past_ba1 ? {{(AlignBits-1){1'b0}}, |a_sig1}
               : {a_ext[AlignBits+LowBits-1 -: AlignBits-1], |a_ext[LowBits:0]};
  assign b_al  = past_ab1 ? {{(AlignBits-1){1'b0}}, |b_sig1}
               : {b_ext[AlignBits+LowBits-1 -: AlignBits-1], |b_ext[LowBits:0]};
  assign small_al1 = a_is_big1 ? b_al : a_al;
  assign big_al1   = {a_is_big1 ? a_sig1 : b_sig1, 3'b000};

  // --- place 1
  logic [Stage1Bits-1:0] s1_d, s1_q;
  logic [SpecialBits-1:0] special2;
  logic                  valid2, sign2, eff_sub2;
  logic [ExpBits-1:0]    big_exp2;
  logic [AlignBits-1:0]  big_al2, small_al2;

  assign s1_d = {special1, sign1, eff_sub1, big_exp1, big_al1, small_al1};
  oasis_fp_pipe #(.Width(Stage1Bits), .Stages(Cuts[1] ? 1 : 0)) u_cut1 (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .valid_i(valid1), .data_i(s1_d), .valid_o(valid2), .data_o(s1_q)
  );
  assign {special2, sign2, eff_sub2, big_exp2, big_al2, small_al2} = s1_q;

  // --- before place 2: add the significands.
  logic [SumBits-1:0] sig_sum2;

  // big - small as big + ~small + 1; never negative, since big is the larger.
  logic unused_sum_carry;
  oasis_add #(.Width(SumBits)) u_sum (
    .a_i({1'b0, big_al2}), .b_i({1'b0, small_al2} ^ {SumBits{eff_sub2}}), .carry_i(eff_sub2),
    .sum_o(sig_sum2), .carry_o(unused_sum_carry)
  );

  // --- place 2
  logic [Stage2Bits-1:0] s2_d, s2_q;
  logic                  valid3, sign3;
  logic [SpecialBits-1:0] special3, side3, side4;
  logic [ExpBits:0]      sum_exp2, sum_exp3;
  logic [SumBits-1:0]    sig_sum3;

  // sig_sum's top bit is worth 2^(big_exp + 1 - Bias): the rounding's exp_i, known here, before
  // the sum, so that what the rounding derives from it waits for nothing.
  assign sum_exp2 = (ExpBits + 1)'(big_exp2) + (ExpBits + 1)'(1);
  assign s2_d = {special2, sign2, sum_exp2, sig_sum2};
  oasis_fp_pipe #(.Width(Stage2Bits), .Stages(Cuts[2] ? 1 : 0)) u_cut2 (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .valid_i(valid2), .data_i(s2_d), .valid_o(valid3), .data_o(s2_q)
  );
  assign {special3, sign3, sum_exp3, sig_sum3} = s2_q;

  // Exact cancellation is +0 under round to nearest: found after place 2, where it waits beside
  // the rounding rather than after the addition.
  assign side3 = special3[2:1] != KindNone ? special3
               : sig_sum3 == '0 ? {KindZero, 1'b0} : {KindNone, 1'b0};

  // --- places 3 and 4 are inside the rounding.
  logic [Width-1:0] rounded;

  oasis_fp_round #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .SigBits (SumBits),
    .ExpWidth(ExpWidth),
    .Cuts    (Cuts[4:3]),
    .SideBits(SpecialBits),
    .ExpPositive(1'b1)
  ) u_round (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (valid3),
    .sign_i  (sign3),
    .exp_i   (ExpWidth'(sum_exp3)),
    .sig_i   (sig_sum3),
    .side_i  (side3),
    .valid_o (valid_o),
    .side_o  (side4),
    .result_o(rounded)
  );

  // The special result: the canonical NaN, or a signed infinity or zero (the code's high bit
  // is set for an infinity, clear for a zero: the exponent field).
  logic [Width-1:0] special_val;

  assign special_val = side4[2:1] == KindNan
                     ? {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}}
                     : {side4[0], {ExpBits{side4[2]}}, {FracBits{1'b0}}};
  assign sum_o       = side4[2:1] != KindNone ? special_val : rounded;

endmodule

`default_nettype wire
