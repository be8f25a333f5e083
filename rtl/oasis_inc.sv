// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Increment: {carry_o, sum_o} = a_i + carry_i. The carry into bit i is carry_i and every bit
/// of a_i below i, from a Kogge-Stone tree of ANDs (log2(Width) levels). With KeepLevels every
/// second level (2, 4, ...) is a signal synthesis keeps: left whole, abc turns the tree into one
/// chain of ANDs to save area (docs/fp_rtl.md, Adders); kept, abc can merge two levels at most,
/// and cannot fold constants across them, so an increment off the critical path is better left
/// whole. The ANDs of a_i do not wait for carry_i, so a late carry_i costs one AND and one XOR.
/// Combinational.
module oasis_inc #(
  /// Width of the operand and of the sum, bits (at least 1).
  parameter int Width      = 8,
  /// 1: every second level of the tree a signal synthesis keeps; 0: synthesis may restructure
  /// it.
  parameter bit KeepLevels = 1'b1
) (
  /// The operand.
  input  logic [Width-1:0] a_i,
  /// Added to bit 0.
  input  logic             carry_i,
  /// The sum's low Width bits.
  output logic [Width-1:0] sum_o,
  /// The carry out of the top bit.
  output logic             carry_o
);

  localparam int Levels = $clog2(Width);

  // Level l's bit i is the AND of a_i's bits from i - 2^l + 1 up to i (down to bit 0 where that
  // is below it), so the last level's bit i is the AND of a_i's bits 0 to i.
  for (genvar l = 0; l <= Levels; l++) begin : g_level
    logic [Width-1:0] ones, ones_d;
    if (l == 0) begin : g_bits
      assign ones_d = a_i;
    end else begin : g_merge
      localparam int Span = 1 << (l - 1);
      // The bits below Span have no bit Span below them: they keep their AND.
      localparam logic [Width-1:0] Low = {Width{1'b1}} >> (Width - Span);
      assign ones_d = g_level[l-1].ones & ((g_level[l-1].ones << Span) | Low);
    end
    if (KeepLevels && l > 0 && l % 2 == 0) begin : g_kept
      (* keep *) logic [Width-1:0] kept;
      assign kept = ones_d;
      assign ones = kept;
    end else begin : g_free
      assign ones = ones_d;
    end
  end

  logic [Width-1:0] carry_in;
  if (Width == 1) begin : g_one
    assign carry_in = carry_i;
  end else begin : g_many
    assign carry_in = {g_level[Levels].ones[Width-2:0] & {(Width-1){carry_i}}, carry_i};
  end
  assign sum_o   = a_i ^ carry_in;
  assign carry_o = carry_i & g_level[Levels].ones[Width-1];

endmodule

`default_nettype wire
