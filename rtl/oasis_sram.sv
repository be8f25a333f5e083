// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// A static RAM of Words words of Width bits with one write port and one read port (a
/// two-port "1R1W" macro), both on clk_i. The behavioural model below is for simulation
/// and for flows without a memory compiler (it synthesizes to flip-flops); a design meant
/// for silicon replaces the module that instantiates it by a compiled macro with the same
/// contract (docs/sram.md):
///
/// - a write of lane l (Width/Lanes bits) of word waddr_i takes effect at the clock edge
///   where we_i and wlane_i[l] are high; the other lanes keep their bits;
/// - a read presents, from the edge where re_i is high until the next such edge, the word
///   at raddr_i as it was before that edge's writes (a read and a write of the same word at
///   one edge return the old word; the generated designs never do it, and a simulation
///   check flags it);
/// - no reset, and a word never written reads as anything.
module oasis_sram #(
  /// Bits of a word.
  parameter int Width = 8,
  /// Words, at least 2.
  parameter int Words = 2,
  /// Write lanes a word: each of Width/Lanes bits with its own write enable (Width a
  /// multiple of Lanes).
  parameter int Lanes = 1,
  /// Bits of an address: clog2(Words).
  parameter int AddrBits = $clog2(Words)
) (
  /// Clock.
  input  logic                clk_i,
  /// Write at this edge.
  input  logic                we_i,
  /// The word written.
  input  logic [AddrBits-1:0] waddr_i,
  /// Which lanes of the word are written: lane l at bit l.
  input  logic [Lanes-1:0]    wlane_i,
  /// The data written: lane l at [l*LaneBits +: LaneBits].
  input  logic [Width-1:0]    wdata_i,
  /// Read at this edge.
  input  logic                re_i,
  /// The word read.
  input  logic [AddrBits-1:0] raddr_i,
  /// The word read at the last edge where re_i was high.
  output logic [Width-1:0]    rdata_o
);

  localparam int LaneBits = Width / Lanes;

  logic [Width-1:0] mem_q [Words];

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem_q[raddr_i];
    for (int l = 0; l < Lanes; l++) begin
      if (we_i && wlane_i[l]) begin
        mem_q[waddr_i][l*LaneBits +: LaneBits] <= wdata_i[l*LaneBits +: LaneBits];
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (we_i && re_i && waddr_i == raddr_i && wlane_i != '0) begin
      $display("oasis_sram: word %0d read and written at one edge", raddr_i);
    end
  end
`endif

endmodule

`default_nettype wire
