// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// The pipeline of a floating-point unit: a fixed latency of Stages clock
/// cycles with a valid bit alongside the data. A data register loads only when
/// its valid bit does (no toggling on idle cycles); there is no backpressure.
/// Stages = 0 is a wire. The reset clears the valid bits only.
module oasis_fp_pipe #(
  /// Width of the data, bits.
  parameter int Width  = 32,
  /// Register stages, the latency in cycles (0: combinational).
  parameter int Stages = 1
) (
  /// Clock.
  input  logic             clk_i,
  /// Asynchronous reset, active low: clears the valid bits.
  input  logic             rst_ni,
  /// data_i is valid this cycle.
  input  logic             valid_i,
  /// Data entering the pipeline.
  input  logic [Width-1:0] data_i,
  /// data_o is valid: valid_i of Stages cycles ago.
  output logic             valid_o,
  /// data_i of Stages cycles ago.
  output logic [Width-1:0] data_o
);

  if (Stages == 0) begin : g_wire
    logic unused_clock;
    assign unused_clock = clk_i ^ rst_ni;
    assign valid_o = valid_i;
    assign data_o  = data_i;
  end else begin : g_regs
    logic [Stages-1:0]       valid_q;
    logic [Stages*Width-1:0] data_q;

    // Each stage its own registers: one continuous assignment per stage, not an
    // always_comb that sets whole vectors and then overwrites parts of them
    // (Icarus 11 can loop forever within one time step on that, its issue 508),
    // and no reset wider than a stage.
    for (genvar s = 0; s < Stages; s++) begin : g_stage
      logic             valid_in, valid_r;
      logic [Width-1:0] data_in, data_r;
      if (s == 0) begin : g_first
        assign valid_in = valid_i;
        assign data_in  = data_i;
      end else begin : g_next
        assign valid_in = valid_q[s-1];
        assign data_in  = data_q[(s-1)*Width +: Width];
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) valid_r <= 1'b0;
        else valid_r <= valid_in;
      end
      // The data has no reset: it is read only with its valid bit, and a flip-flop without one
      // is about half the area of one with it.
      always_ff @(posedge clk_i) begin
        if (valid_in) data_r <= data_in;
      end
      assign valid_q[s]               = valid_r;
      assign data_q[s*Width +: Width] = data_r;
    end

    assign valid_o = valid_q[Stages-1];
    assign data_o  = data_q[(Stages-1)*Width +: Width];
  end

endmodule

`default_nettype wire
