`default_nettype none

/// IEEE 754 addition and subtraction, a_i + b_i or a_i - b_i, one rounding to
/// nearest even; subnormals in and out, signed zeros and infinities as IEEE
/// says, and the canonical quiet NaN (exponent all ones, fraction 10...0,
/// sign 0) as the only NaN result. Bit-exact with oasis::add / oasis::sub in
/// model/fp.hpp. Combinational.
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

  localparam int Width    = ExpBits + FracBits + 1;
  // Aligned significands: hidden bit, fraction, guard, round and sticky bits.
  localparam int AlignBits = FracBits + 4;
  // The sum has one more bit for the carry.
  localparam int SumBits  = AlignBits + 1;
  localparam int ExpWidth = ExpBits + 2;
  localparam int DiffBits = $clog2(AlignBits + 1);

  logic [Width-1:0]     b_eff, op_big, op_small;
  logic                 a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  logic                 a_is_big, eff_sub;
  logic [ExpBits-1:0]   big_exp, small_exp, exp_diff;
  logic [DiffBits-1:0]  shift;
  logic [FracBits:0]    big_sig, small_sig;
  logic [2*AlignBits-1:0] small_ext;
  logic [AlignBits-1:0] big_al, small_al;
  logic [SumBits-1:0]   sig_sum;
  logic [Width-1:0]     rounded;

  assign b_eff = {b_i[Width-1] ^ sub_i, b_i[Width-2:0]};

  assign a_nan  = (&a_i[Width-2:FracBits]) && (|a_i[FracBits-1:0]);
  assign b_nan  = (&b_i[Width-2:FracBits]) && (|b_i[FracBits-1:0]);
  assign a_inf  = (&a_i[Width-2:FracBits]) && !(|a_i[FracBits-1:0]);
  assign b_inf  = (&b_i[Width-2:FracBits]) && !(|b_i[FracBits-1:0]);
  assign a_zero = a_i[Width-2:0] == '0;
  assign b_zero = b_i[Width-2:0] == '0;

  // The operand of larger magnitude goes first: for finite values the
  // magnitude order is the order of the bit patterns without the sign.
  assign a_is_big = a_i[Width-2:0] >= b_eff[Width-2:0];
  assign op_big      = a_is_big ? a_i : b_eff;
  assign op_small    = a_is_big ? b_eff : a_i;
  assign eff_sub  = op_big[Width-1] != op_small[Width-1];

  // Subnormals have exponent 1 and no hidden bit.
  assign big_exp   = (op_big[Width-2:FracBits] == '0) ? ExpBits'(1) : op_big[Width-2:FracBits];
  assign small_exp = (op_small[Width-2:FracBits] == '0) ? ExpBits'(1) : op_small[Width-2:FracBits];
  assign big_sig   = {op_big[Width-2:FracBits] != '0, op_big[FracBits-1:0]};
  assign small_sig = {op_small[Width-2:FracBits] != '0, op_small[FracBits-1:0]};
  assign exp_diff  = big_exp - small_exp;

  // Align the smaller operand; the bits shifted out become the sticky bit.
  always_comb begin
    shift = DiffBits'(AlignBits);
    if (exp_diff < ExpBits'(AlignBits)) begin
      shift = DiffBits'(exp_diff);
    end
  end
  assign small_ext = {small_sig, 3'b000, {AlignBits{1'b0}}} >> shift;
  assign small_al  = {small_ext[2*AlignBits-1 -: AlignBits-1],
                      small_ext[AlignBits] | (|small_ext[AlignBits-1:0])};
  assign big_al    = {big_sig, 3'b000};

  assign sig_sum = eff_sub ? ({1'b0, big_al} - {1'b0, small_al})
                           : ({1'b0, big_al} + {1'b0, small_al});

  // sig_sum's top bit is worth 2^(big_exp + 1 - Bias).
  oasis_fp_round #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .SigBits (SumBits),
    .ExpWidth(ExpWidth)
  ) u_round (
    .sign_i  (op_big[Width-1]),
    .exp_i   (ExpWidth'(big_exp) + ExpWidth'(1)),
    .sig_i   (sig_sum),
    .result_o(rounded)
  );

  always_comb begin
    sum_o = rounded;
    if (a_nan || b_nan || (a_inf && b_inf && (a_i[Width-1] != b_eff[Width-1]))) begin
      sum_o = {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}};
    end else if (a_inf) begin
      sum_o = a_i;
    end else if (b_inf) begin
      sum_o = b_eff;
    end else if (a_zero && b_zero) begin
      // Round to nearest: -0 only when both are -0.
      sum_o = {a_i[Width-1] & b_eff[Width-1], {(Width-1){1'b0}}};
    end else if (sig_sum == '0) begin
      // Exact cancellation is +0 under round to nearest.
      sum_o = '0;
    end
  end

endmodule

`default_nettype wire
