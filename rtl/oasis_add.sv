// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Binary addition with a carry in: {carry_o, sum_o} = a_i + b_i + carry_i, the carries from a
/// Kogge-Stone prefix tree (log2(Width) levels of generate and propagate pairs). Written out
/// because a standard-cell flow maps `a + b` to a ripple of carries: Yosys 0.23 and abc turn
/// their own prefix adder back into one (osu018, a registered 48-bit `a + b` is 6.6 ns whatever
/// the delay target, this tree 2.8 ns; docs/fp_rtl.md, Adders). Combinational.
module oasis_add #(
  /// Width of the operands and of the sum, bits (at least 1).
  parameter int Width = 8
) (
  /// First operand.
  input  logic [Width-1:0] a_i,
  /// Second operand.
  input  logic [Width-1:0] b_i,
  /// Carry into bit 0.
  input  logic             carry_i,
  /// The sum's low Width bits.
  output logic [Width-1:0] sum_o,
  /// The carry out of the top bit.
  output logic             carry_o
);

  localparam int Levels = $clog2(Width);

  // Level l's generate and propagate of bit i cover the bits from i - 2^l + 1 up to i (and the
  // carry in below bit 0), so the last level's generate of bit i is the carry out of bit i.
  logic [Width-1:0] half_sum, carry_out;
  logic             carry_gen;

  assign half_sum  = a_i ^ b_i;
  // Bit 0 generates a carry also when it propagates the carry in.
  assign carry_gen = half_sum[0] & carry_i;

  for (genvar l = 0; l <= Levels; l++) begin : g_level
    logic [Width-1:0] gen, prop;
    if (l == 0) begin : g_bits
      assign gen  = (a_i & b_i) | Width'(carry_gen);
      assign prop = half_sum;
    end else begin : g_merge
      // Bit i merges with bit i - Span below it; the bits below Span keep their generate, and
      // their propagate (a group that reaches below bit 0) is never read again.
      localparam int Span = 1 << (l - 1);
      assign gen  = g_level[l-1].gen | (g_level[l-1].prop & (g_level[l-1].gen << Span));
      assign prop = g_level[l-1].prop & (g_level[l-1].prop << Span);
    end
  end

  assign carry_out = g_level[Levels].gen;
  if (Width == 1) begin : g_one
    assign sum_o = half_sum ^ carry_i;
  end else begin : g_many
    assign sum_o = half_sum ^ {carry_out[Width-2:0], carry_i};
  end
  assign carry_o = carry_out[Width-1];

  // The propagates of the last level feed nothing.
  logic unused_prop;
  assign unused_prop = ^g_level[Levels].prop;

endmodule

`default_nettype wire
