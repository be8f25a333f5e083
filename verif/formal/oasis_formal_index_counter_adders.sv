// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Formal check of the Index Counter array's adder structures at every size up to a bound
/// (read with `read_verilog -formal`; the module names come in as the macros OASIS_TREE and
/// OASIS_ADD). For all inputs it asserts that
///   - the compressor tree of n bits gives their popcount ($countones), n = 1 .. MaxInputs;
///   - the counting bank's adder gives a + b modulo 2^w, for w = 2 .. MaxWidth and b of
///     1, ceil(w/2), w - 1 and w bits.
module oasis_formal_index_counter_adders #(
  /// Largest tree checked, bits counted.
  parameter int MaxInputs = 32,
  /// Largest adder checked, bits of its sum.
  parameter int MaxWidth = 13
) (
  /// Free: tree n counts [(n-1)*MaxInputs +: n].
  input logic [MaxInputs*MaxInputs-1:0] bits_i,
  /// Free: adder (w, v) adds [(w*4 + v)*MaxWidth +: w] ...
  input logic [(MaxWidth+1)*4*MaxWidth-1:0] a_i,
  /// Free: ... and [(w*4 + v)*MaxWidth +: its second addend's bits].
  input logic [(MaxWidth+1)*4*MaxWidth-1:0] b_i
);

  for (genvar n = 1; n <= MaxInputs; n++) begin : g_tree
    localparam int CountBits = $clog2(n + 1);
    logic [n-1:0] bits;
    logic [CountBits-1:0] count;
    assign bits = bits_i[(n-1)*MaxInputs +: n];
    `OASIS_TREE #(.Inputs(n)) u_tree (.bits_i(bits), .count_o(count));
    always_comb assert (count == CountBits'($countones(bits)));
  end

  for (genvar w = 2; w <= MaxWidth; w++) begin : g_width
    for (genvar v = 0; v < 4; v++) begin : g_addend
      /// The second addend's bits: 1, ceil(w/2), w - 1, w.
      localparam int AddendWidth = v == 0 ? 1 : v == 1 ? (w + 1) / 2 : v == 2 ? w - 1 : w;
      logic [w-1:0] a, sum;
      logic [AddendWidth-1:0] b;
      assign a = a_i[(w*4 + v)*MaxWidth +: w];
      assign b = b_i[(w*4 + v)*MaxWidth +: AddendWidth];
      `OASIS_ADD #(.Width(w), .AddendWidth(AddendWidth)) u_add (.a_i(a), .b_i(b), .sum_o(sum));
      always_comb assert (sum == w'(a + w'(b)));
    end
  end

endmodule

`default_nettype wire
