`default_nettype none

/// IEEE 754 multiplication, a_i * b_i, one rounding to nearest even;
/// subnormals in and out, signed zeros and infinities as IEEE says, and the
/// canonical quiet NaN (exponent all ones, fraction 10...0, sign 0) as the only
/// NaN result (also for 0 * inf). Bit-exact with oasis::mul in model/fp.hpp.
/// Combinational.
module oasis_fp_mul #(
  /// Exponent field width (5: binary16, 8: binary32).
  parameter int ExpBits  = 8,
  /// Fraction field width (10: binary16, 23: binary32).
  parameter int FracBits = 23
) (
  /// First operand.
  input  logic [ExpBits+FracBits:0] a_i,
  /// Second operand.
  input  logic [ExpBits+FracBits:0] b_i,
  /// The rounded product.
  output logic [ExpBits+FracBits:0] prod_o
);

  localparam int Width    = ExpBits + FracBits + 1;
  localparam int Bias     = (1 << (ExpBits - 1)) - 1;
  localparam int ProdBits = 2 * FracBits + 2;
  localparam int ExpWidth = ExpBits + 3;

  logic                 sign;
  logic                 a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  logic [ExpBits-1:0]   a_exp, b_exp;
  logic [FracBits:0]    a_sig, b_sig;
  logic [ProdBits-1:0]  sig_prod;
  logic [ExpWidth-1:0]  prod_exp;
  logic [Width-1:0]     rounded;

  assign sign   = a_i[Width-1] ^ b_i[Width-1];
  assign a_nan  = (&a_i[Width-2:FracBits]) && (|a_i[FracBits-1:0]);
  assign b_nan  = (&b_i[Width-2:FracBits]) && (|b_i[FracBits-1:0]);
  assign a_inf  = (&a_i[Width-2:FracBits]) && !(|a_i[FracBits-1:0]);
  assign b_inf  = (&b_i[Width-2:FracBits]) && !(|b_i[FracBits-1:0]);
  assign a_zero = a_i[Width-2:0] == '0;
  assign b_zero = b_i[Width-2:0] == '0;

  // Subnormals have exponent 1 and no hidden bit.
  assign a_exp = (a_i[Width-2:FracBits] == '0) ? ExpBits'(1) : a_i[Width-2:FracBits];
  assign b_exp = (b_i[Width-2:FracBits] == '0) ? ExpBits'(1) : b_i[Width-2:FracBits];
  assign a_sig = {a_i[Width-2:FracBits] != '0, a_i[FracBits-1:0]};
  assign b_sig = {b_i[Width-2:FracBits] != '0, b_i[FracBits-1:0]};

  // The exact product; its top bit is worth 2^(a_exp + b_exp - 2 Bias + 1).
  assign sig_prod = ProdBits'(a_sig) * ProdBits'(b_sig);
  assign prod_exp = ExpWidth'(a_exp) + ExpWidth'(b_exp) - ExpWidth'(Bias) + ExpWidth'(1);

  oasis_fp_round #(
    .ExpBits (ExpBits),
    .FracBits(FracBits),
    .SigBits (ProdBits),
    .ExpWidth(ExpWidth)
  ) u_round (
    .sign_i  (sign),
    .exp_i   (prod_exp),
    .sig_i   (sig_prod),
    .result_o(rounded)
  );

  always_comb begin
    prod_o = rounded;
    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) begin
      prod_o = {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}};
    end else if (a_inf || b_inf) begin
      prod_o = {sign, {ExpBits{1'b1}}, {FracBits{1'b0}}};
    end else if (a_zero || b_zero) begin
      prod_o = {sign, {(Width-1){1'b0}}};
    end
  end

endmodule

`default_nettype wire
