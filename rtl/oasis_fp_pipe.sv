`default_nettype none

/// The pipeline of a floating-point unit: a fixed latency of Stages clock
/// cycles with a valid bit alongside the data. A data register loads only when
/// its valid bit does (no toggling on idle cycles); there is no backpressure.
/// Stages = 0 is a wire.
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
    logic [Stages-1:0]       valid_d, valid_q;
    logic [Stages*Width-1:0] data_d, data_q;

    // One continuous assignment per stage, not an always_comb that sets the
    // whole vectors and then overwrites parts of them: Icarus 11 can loop
    // forever within one time step on the latter (its issue 508).
    for (genvar s = 0; s < Stages; s++) begin : g_stage
      logic             valid_in;
      logic [Width-1:0] data_in;
      if (s == 0) begin : g_first
        assign valid_in = valid_i;
        assign data_in  = data_i;
      end else begin : g_next
        assign valid_in = valid_q[s-1];
        assign data_in  = data_q[(s-1)*Width +: Width];
      end
      assign valid_d[s]               = valid_in;
      assign data_d[s*Width +: Width] = valid_in ? data_in : data_q[s*Width +: Width];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= '0;
        data_q  <= '0;
      end else begin
        valid_q <= valid_d;
        data_q  <= data_d;
      end
    end

    assign valid_o = valid_q[Stages-1];
    assign data_o  = data_q[(Stages-1)*Width +: Width];
  end

endmodule

`default_nettype wire
