// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// A first-in first-out buffer of Depth entries of Width bits. A pushed entry
/// is visible (empty_o low, data_o) from the next cycle; a push and a pop may
/// happen in the same cycle. The user never pushes when full_o is set (the PE
/// line guarantees it with credits) nor pops when empty_o is set; a simulation
/// check flags either. The oldest entry is kept in a register of its own, so that
/// data_o comes from a flip-flop, not through the storage's read multiplexer (a PE
/// line's merge adds its FIFOs' heads in the cycle it pops them).
module oasis_fifo #(
  /// Width of an entry, bits.
  parameter int Width = 16,
  /// Entries, at least 1.
  parameter int Depth = 2
) (
  /// Clock.
  input  logic             clk_i,
  /// Asynchronous reset, active low: empties the buffer.
  input  logic             rst_ni,
  /// Append data_i this cycle.
  input  logic             push_i,
  /// The entry to append.
  input  logic [Width-1:0] data_i,
  /// Remove the oldest entry this cycle.
  input  logic             pop_i,
  /// The oldest entry (valid while empty_o is low).
  output logic [Width-1:0] data_o,
  /// No entry is held.
  output logic             empty_o,
  /// Depth entries are held.
  output logic             full_o
);

  localparam int PtrBits = Depth > 1 ? $clog2(Depth) : 1;
  localparam int CountBits = $clog2(Depth + 1);

  logic [Width-1:0]     mem_q [Depth];
  logic [PtrBits-1:0]   rd_d, rd_q, wr_d, wr_q;
  logic [CountBits-1:0] count_d, count_q;
  /// The oldest entry: after this cycle the entry at rd_d, which is data_i when the
  /// buffer holds nothing else (pushed into an empty buffer, or with the pop of its
  /// only entry), else an entry already in the storage.
  logic [Width-1:0]     head_d, head_q;

  function automatic logic [PtrBits-1:0] next_ptr(input logic [PtrBits-1:0] p);
    next_ptr = p == PtrBits'(Depth - 1) ? '0 : p + PtrBits'(1);
  endfunction

  assign data_o  = head_q;
  assign empty_o = count_q == '0;
  assign full_o  = count_q == CountBits'(Depth);

  always_comb begin
    rd_d    = pop_i ? next_ptr(rd_q) : rd_q;
    wr_d    = push_i ? next_ptr(wr_q) : wr_q;
    count_d = count_q + CountBits'(push_i) - CountBits'(pop_i);
    head_d  = count_q == CountBits'(pop_i) ? data_i : mem_q[rd_d];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q    <= '0;
      wr_q    <= '0;
      count_q <= '0;
    end else begin
      rd_q    <= rd_d;
      wr_q    <= wr_d;
      count_q <= count_d;
    end
  end

  // The storage and the head have no reset: an entry is read only after it was written.
  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_q] <= data_i;
    head_q <= head_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (push_i && full_o && !pop_i) $display("oasis_fifo: push into a full buffer");
    if (pop_i && empty_o) $display("oasis_fifo: pop from an empty buffer");
  end
`endif

endmodule

`default_nettype wire
