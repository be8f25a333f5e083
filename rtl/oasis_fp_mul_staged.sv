// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// IEEE 754 multiplication, a_i * b_i, one rounding to nearest even;
/// subnormals in and out, signed zeros and infinities as IEEE says, and the
/// canonical quiet NaN (exponent all ones, fraction 10...0, sign 0) as the only
/// NaN result (also for 0 * inf). Bit-exact with oasis::mul in model/numerics/fp.hpp.
///
/// Either operand may be in a narrower format than the result (AExpBits ..
/// BFracBits; binary16 operands of a binary32 product): the unit then multiplies
/// the operand's own significand, with no widening before it, and the result is
/// that of the operand widened to the result's format (exact) and multiplied.
/// An operand's format is never wider than the result's. When the operands are
/// narrow enough that every product of finite values is exact and normal in the
/// result's format (the significands' product fits its significand and the
/// exponents cannot leave its normal range: binary16 x binary16 in binary32), the
/// rounding is left out (oasis_fp_round's Exact): the product is normalised and
/// packed, and place 3 holds the packed result.
///
/// Four places inside the datapath may hold a register stage, bit k of Cuts
/// for place k (docs/fp_rtl.md, Pipelining):
///   0: inside the significand multiplier, after its tree of full adders, with the
///      product in carry-save form (oasis_mul_cs);
///   1: after the exact product;
///   2: after the product is normalised, before it is rounded;
///   3: inside the rounding, before its increment (after a subnormal result's
///      shift and the rounding decision).
/// The latency is the number of bits set in Cuts (0: combinational). A stage's
/// data register loads only when its valid bit does.
module oasis_fp_mul_staged #(
  /// Exponent field width (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width (10: binary16, 23: binary32).
  parameter int FracBits = 23,
  /// The places holding a register stage, one bit each (see above).
  parameter logic [3:0] Cuts = 4'b0000,
  /// Exponent and fraction field widths of the first operand.
  parameter int AExpBits  = ExpBits,
  parameter int AFracBits = FracBits,
  /// Exponent and fraction field widths of the second operand.
  parameter int BExpBits  = ExpBits,
  parameter int BFracBits = FracBits,
  /// 1: the whole rounding even where every product is exact (for the proof that the exact
  /// path gives the same results, verif/unit/test_exact_products.cpp).
  parameter bit KeepRounding = 1'b0
) (
  /// Clock (unused when Cuts is 0).
  input  logic                      clk_i,
  /// Asynchronous reset, active low: clears the stages' valid bits.
  input  logic                      rst_ni,
  /// The operands are valid this cycle.
  input  logic                      valid_i,
  /// First operand.
  input  logic [AExpBits+AFracBits:0] a_i,
  /// Second operand.
  input  logic [BExpBits+BFracBits:0] b_i,
  /// prod_o is valid: valid_i of as many cycles ago as Cuts has bits set.
  output logic                      valid_o,
  /// The rounded product.
  output logic [ExpBits+FracBits:0] prod_o
);

  localparam int Width     = ExpBits + FracBits + 1;
  localparam int Bias      = (1 << (ExpBits - 1)) - 1;
  localparam int AWidth    = AExpBits + AFracBits + 1;
  localparam int ABias     = (1 << (AExpBits - 1)) - 1;
  localparam int ASigBits  = AFracBits + 1;
  localparam int BWidth    = BExpBits + BFracBits + 1;
  localparam int BBias     = (1 << (BExpBits - 1)) - 1;
  localparam int BSigBits  = BFracBits + 1;
  localparam int ProdBits  = ASigBits + BSigBits;
  localparam int ExpWidth  = ExpBits + 3;
  // The product's top bit is worth 2^(a_exp - ABias + b_exp - BBias + 1): biased in the
  // result's format, a_exp + b_exp - ExpOffset.
  localparam int ExpOffset = ABias + BBias - Bias - 1;
  // The normalised product's biased exponent lies between the smallest finite operands' with
  // the most leading zeros (the product of two significands of 1) and the largest ones'.
  localparam int MinField  = 2 - ExpOffset - (ProdBits - 1);
  localparam int MaxField  = (1 << AExpBits) - 2 + (1 << BExpBits) - 2 - ExpOffset;
  localparam bit Exact     = !KeepRounding && ProdBits <= FracBits + 1 && MinField >= 1 &&
                             MaxField <= (1 << ExpBits) - 2;
  // Beside the datapath: whether the result is a special case, and which, as a
  // code of two bits (none, zero, infinity, NaN) and the result's sign. Each
  // stage carries the three bits, not the result they stand for.
  localparam int SpecialBits = 3;
  localparam logic [1:0] KindNone = 2'b00;
  localparam logic [1:0] KindZero = 2'b01;
  localparam logic [1:0] KindInf  = 2'b10;
  localparam logic [1:0] KindNan  = 2'b11;
  localparam int Stage0Bits = SpecialBits + 1 + ExpWidth + 2 * ProdBits;
  localparam int Stage1Bits = SpecialBits + 1 + ExpWidth + ProdBits;

  // --- before place 0: classify, exponent, partial products
  logic                 sign0;
  logic                 a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  logic [AExpBits-1:0]  a_exp;
  logic [BExpBits-1:0]  b_exp;
  logic [ASigBits-1:0]  a_sig;
  logic [BSigBits-1:0]  b_sig;
  logic [ExpWidth-1:0]  prod_exp0;
  logic [SpecialBits-1:0] special0;

  assign sign0  = a_i[AWidth-1] ^ b_i[BWidth-1];
  assign a_nan  = (&a_i[AWidth-2:AFracBits]) && (|a_i[AFracBits-1:0]);
  assign b_nan  = (&b_i[BWidth-2:BFracBits]) && (|b_i[BFracBits-1:0]);
  assign a_inf  = (&a_i[AWidth-2:AFracBits]) && !(|a_i[AFracBits-1:0]);
  assign b_inf  = (&b_i[BWidth-2:BFracBits]) && !(|b_i[BFracBits-1:0]);
  assign a_zero = a_i[AWidth-2:0] == '0;
  assign b_zero = b_i[BWidth-2:0] == '0;

  // Subnormals have exponent 1 and no hidden bit.
  assign a_exp = (a_i[AWidth-2:AFracBits] == '0) ? AExpBits'(1) : a_i[AWidth-2:AFracBits];
  assign b_exp = (b_i[BWidth-2:BFracBits] == '0) ? BExpBits'(1) : b_i[BWidth-2:BFracBits];
  assign a_sig = {a_i[AWidth-2:AFracBits] != '0, a_i[AFracBits-1:0]};
  assign b_sig = {b_i[BWidth-2:BFracBits] != '0, b_i[BFracBits-1:0]};

  assign prod_exp0 = ExpWidth'(a_exp) + ExpWidth'(b_exp) - ExpWidth'(ExpOffset);

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) begin
      special0 = {KindNan, 1'b0};
    end else if (a_inf || b_inf) begin
      special0 = {KindInf, sign0};
    end else if (a_zero || b_zero) begin
      special0 = {KindZero, sign0};
    end else begin
      special0 = {KindNone, 1'b0};
    end
  end

  // --- places 0 and 1: the product in carry-save form, then exact
  logic [ProdBits-1:0]    prod_sum0, prod_carry0, prod_sum1, prod_carry1, sig_prod1;
  logic [Stage0Bits-1:0]  s0_d, s0_q;
  logic [Stage1Bits-1:0]  s1_d, s1_q;
  logic                   valid1, sign1, valid2, sign2, unused_prod_carry;
  logic [SpecialBits-1:0] side1, side2, side3;
  logic [ExpWidth-1:0]    prod_exp1, prod_exp2;
  logic [ProdBits-1:0]    sig_prod2;

  oasis_mul_cs #(.AWidth(ASigBits), .BWidth(BSigBits)) u_mul (
    .a_i(a_sig), .b_i(b_sig), .sum_o(prod_sum0), .carry_o(prod_carry0)
  );
  assign s0_d = {special0, sign0, prod_exp0, prod_sum0, prod_carry0};
  oasis_fp_pipe #(.Width(Stage0Bits), .Stages(Cuts[0] ? 1 : 0)) u_cut0 (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .valid_i(valid_i), .data_i(s0_d), .valid_o(valid1), .data_o(s0_q)
  );
  assign {side1, sign1, prod_exp1, prod_sum1, prod_carry1} = s0_q;
  // The product fits ProdBits bits: the adder's carry out is not part of it.
  oasis_add #(.Width(ProdBits)) u_add (
    .a_i(prod_sum1), .b_i(prod_carry1), .carry_i(1'b0), .sum_o(sig_prod1),
    .carry_o(unused_prod_carry)
  );

  assign s1_d = {side1, sign1, prod_exp1, sig_prod1};
  oasis_fp_pipe #(.Width(Stage1Bits), .Stages(Cuts[1] ? 1 : 0)) u_cut1 (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .valid_i(valid1), .data_i(s1_d), .valid_o(valid2), .data_o(s1_q)
  );
  assign {side2, sign2, prod_exp2, sig_prod2} = s1_q;

  // --- places 2 and 3 are inside the rounding.
  logic [Width-1:0] rounded;

  oasis_fp_round #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .SigBits (ProdBits),
    .ExpWidth(ExpWidth),
    .Cuts    (Cuts[3:2]),
    .SideBits(SpecialBits),
    .Exact   (Exact)
  ) u_round (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (valid2),
    .sign_i  (sign2),
    .exp_i   (prod_exp2),
    .sig_i   (sig_prod2),
    .side_i  (side2),
    .valid_o (valid_o),
    .side_o  (side3),
    .result_o(rounded)
  );

  // The special result: the canonical NaN, or a signed infinity or zero (the code's high bit
  // is set for an infinity, clear for a zero: the exponent field).
  logic [Width-1:0] special_val;

  assign special_val = side3[2:1] == KindNan
                     ? {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}}
                     : {side3[0], {ExpBits{side3[2]}}, {FracBits{1'b0}}};
  assign prod_o      = side3[2:1] != KindNone ? special_val : rounded;

endmodule

`default_nettype wire
