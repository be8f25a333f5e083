// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Unsigned multiplication in carry-save form: sum_o + carry_o = a_i * b_i (modulo
/// 2^(AWidth+BWidth), where the product lies). The partial products, one row of a_i per bit of
/// b_i, are reduced by a Wallace tree of rows: each level adds every three rows as two (their
/// bitwise sum and their carries, a place up), until two are left, in ceil(log1.5(BWidth/2))
/// levels. Each level is built of full and half adders (oasis_fa, oasis_ha, which a standard-cell
/// flow maps to the library's adder cells) on the bits a row can hold: a partial product's bits
/// start where its bit of b_i does, so a level's columns hold three, two, one or no bits, and get
/// a full adder, a half adder, a wire or a constant 0. A carry-propagate adder (oasis_add)
/// finishes the product; a register between the two halves the multiplier's path.
/// Simulators (SYNTHESIS undefined) get the product as one multiplication in sum_o and 0 in
/// carry_o, the same sum. Combinational.
module oasis_mul_cs #(
  /// Width of a_i, bits (at least 1).
  parameter int AWidth = 24,
  /// Width of b_i, bits (at least 1): the tree's rows.
  parameter int BWidth = 24
) (
  /// First operand.
  input  logic [AWidth-1:0]        a_i,
  /// Second operand.
  input  logic [BWidth-1:0]        b_i,
  /// The sums of the last level.
  output logic [AWidth+BWidth-1:0] sum_o,
  /// The carries of the last level, in place (0 when BWidth is 1).
  output logic [AWidth+BWidth-1:0] carry_o
);

  localparam int Width = AWidth + BWidth;

`ifdef SYNTHESIS
  // The tables are built at elaboration only: no coverage points for them.
  /* verilator coverage_off */

  // Rows entering level l: each level turns every three rows into two and passes the others.
  function automatic int rows_at(input int level);
    rows_at = BWidth;
    for (int l = 0; l < level; l++) rows_at = 2 * (rows_at / 3) + rows_at % 3;
  endfunction

  // Levels until at most two rows are left.
  function automatic int levels_of(input int rows);
    levels_of = 0;
    for (int r = rows; r > 2; r = 2 * (r / 3) + r % 3) levels_of = levels_of + 1;
  endfunction

  localparam int Levels = levels_of(BWidth);
  /// Bits of the table of which bits a row can hold: bit j of row r entering level l at
  /// [(l*BWidth + r)*Width + j].
  localparam int TableBits = (Levels + 1) * BWidth * Width;

  // Which bits each row can hold (the others are 0 whatever the operands).
  function automatic logic [TableBits-1:0] held_bits(input int rows0);
    int rows, groups;
    logic x, y, z;
    for (int e = 0; e < TableBits; e++) held_bits[e] = 1'b0;
    for (int r = 0; r < rows0; r++) begin
      for (int j = 0; j < AWidth; j++) held_bits[r*Width + r + j] = 1'b1;
    end
    rows = rows0;
    for (int l = 1; l <= Levels; l++) begin
      groups = rows / 3;
      for (int g = 0; g < groups; g++) begin
        for (int j = 0; j < Width; j++) begin
          x = held_bits[((l-1)*BWidth + 3*g)*Width + j];
          y = held_bits[((l-1)*BWidth + 3*g + 1)*Width + j];
          z = held_bits[((l-1)*BWidth + 3*g + 2)*Width + j];
          held_bits[(l*BWidth + 2*g)*Width + j] = x | y | z;
          if (j + 1 < Width) begin
            held_bits[(l*BWidth + 2*g + 1)*Width + j + 1] = (x & y) | (x & z) | (y & z);
          end
        end
      end
      for (int p = 0; p < rows % 3; p++) begin
        for (int j = 0; j < Width; j++) begin
          held_bits[(l*BWidth + 2*groups + p)*Width + j] =
              held_bits[((l-1)*BWidth + 3*groups + p)*Width + j];
        end
      end
      rows = 2 * groups + rows % 3;
    end
  endfunction

  /* verilator coverage_on */

  localparam logic [TableBits-1:0] Held = held_bits(BWidth);

  for (genvar l = 0; l <= Levels; l++) begin : g_level
    /// The rows entering level l, row r at [r*Width +: Width].
    localparam int Rows = rows_at(l);
    logic [Rows*Width-1:0] rows;
    if (l == 0) begin : g_partial
      for (genvar r = 0; r < BWidth; r++) begin : g_row
        assign rows[r*Width +: Width] = (Width'(a_i) & {Width{b_i[r]}}) << r;
      end
    end else begin : g_reduce
      localparam int Prev   = rows_at(l - 1);
      localparam int Groups = Prev / 3;
      for (genvar g = 0; g < Groups; g++) begin : g_group
        /// Where the group's first row is in the table.
        localparam int From = ((l-1)*BWidth + 3*g) * Width;
        logic [Width-1:0] x, y, z, sum, carry;
        assign x = g_level[l-1].rows[(3*g)*Width +: Width];
        assign y = g_level[l-1].rows[(3*g+1)*Width +: Width];
        assign z = g_level[l-1].rows[(3*g+2)*Width +: Width];
        assign carry[0] = 1'b0;
        for (genvar j = 0; j < Width; j++) begin : g_column
          localparam bit HasX = Held[From + j];
          localparam bit HasY = Held[From + Width + j];
          localparam bit HasZ = Held[From + 2*Width + j];
          localparam int Bits = (HasX ? 1 : 0) + (HasY ? 1 : 0) + (HasZ ? 1 : 0);
          if (j == Width - 1) begin : g_top
            // The product fits Width bits: the top column's carry is never needed.
            assign sum[j] = (HasX & x[j]) ^ (HasY & y[j]) ^ (HasZ & z[j]);
          end else if (Bits == 3) begin : g_full
            oasis_fa u_fa (
              .a_i(x[j]), .b_i(y[j]), .c_i(z[j]), .sum_o(sum[j]), .carry_o(carry[j+1])
            );
          end else if (Bits == 2) begin : g_half
            oasis_ha u_ha (
              .a_i    (HasX ? x[j] : y[j]),
              .b_i    (HasZ ? z[j] : y[j]),
              .sum_o  (sum[j]),
              .carry_o(carry[j+1])
            );
          end else begin : g_pass
            assign sum[j] = (HasX & x[j]) | (HasY & y[j]) | (HasZ & z[j]);
          end
          if (j < Width - 1 && Bits < 2) begin : g_no_carry
            assign carry[j+1] = 1'b0;
          end
        end
        assign rows[(2*g)*Width +: Width]   = sum;
        assign rows[(2*g+1)*Width +: Width] = carry;
      end
      if (Prev % 3 != 0) begin : g_pass
        assign rows[2*Groups*Width +: (Prev%3)*Width] =
            g_level[l-1].rows[3*Groups*Width +: (Prev%3)*Width];
      end
    end
  end

  assign sum_o = g_level[Levels].rows[0 +: Width];
  if (BWidth == 1) begin : g_one
    assign carry_o = '0;
  end else begin : g_two
    assign carry_o = g_level[Levels].rows[Width +: Width];
  end
`else
  // Simulation: the same sum, as one multiplication (a simulator evaluates the tree's thousand
  // adder instances far slower). Synthesis tools define SYNTHESIS and build the tree, which the
  // unit tests prove equal to this, and which the FP units' netlist tests simulate.
  assign sum_o   = Width'(a_i) * Width'(b_i);
  assign carry_o = '0;
`endif

endmodule

`default_nettype wire
