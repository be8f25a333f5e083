// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Formal check of the system wrapper's AXI4-Lite slave (read with `read_verilog -formal`; the
/// DUT's module name comes in as the macro OASIS_DUT). The wrapper resets the DUT in the first
/// cycle; then every input is free in every cycle: the master's channels (its valids, addresses,
/// data, strobes and readies), the register file's read data and the wrapper's status. The
/// master is assumed to keep the AXI rules a master keeps (a valid, once raised, held with its
/// payload until its ready); the slave's rules of the AXI4-Lite protocol are asserted:
///   - no response before reset ends, and none without a request: a write response only after
///     as many address and data handshakes as responses, a read response only after as many
///     address handshakes as responses;
///   - BVALID and RVALID, once raised, held until BREADY and RREADY, and BRESP, RDATA and RRESP
///     stable while they wait.
module oasis_formal_axi_lite #(
  /// Address bits of the register port (the register file's reg_addr_i).
  parameter int RegAddrBits = 9,
  /// Data bits of the register port.
  parameter int RegWordBits = 16
) (
  /// Clock.
  input logic                   clk_i,
  /// Free: the master's channels.
  input logic                   awvalid_i,
  input logic [11:0]            awaddr_i,
  input logic                   wvalid_i,
  input logic [31:0]            wdata_i,
  input logic [3:0]             wstrb_i,
  input logic                   bready_i,
  input logic                   arvalid_i,
  input logic [11:0]            araddr_i,
  input logic                   rready_i,
  /// Free: what the rest of the wrapper tells the slave.
  input logic [RegWordBits-1:0] reg_rdata_i,
  input logic                   busy_i,
  input logic                   done_i,
  input logic                   error_i,
  input logic [7:0]             error_code_i,
  input logic [63:0]            error_desc_i,
  input logic                   layer_done_i,
  input logic [31:0]            layer_tag_i,
  input logic                   weight_beat_i,
  input logic                   stall_i
);

  logic started_q = 1'b0;  // low in the first cycle: the DUT's reset

  logic awready, wready, bvalid, arready, rvalid;
  logic [1:0] bresp, rresp;
  logic [31:0] rdata;
  logic unused_we, unused_re, unused_start, unused_irq;
  logic [RegAddrBits-1:0] unused_addr;
  logic [RegWordBits-1:0] unused_wdata;
  logic [63:0] unused_desc;

  `OASIS_DUT u_dut (
    .clk_i           (clk_i),
    .rst_ni          (started_q),
    .s_axil_awvalid_i(awvalid_i),
    .s_axil_awready_o(awready),
    .s_axil_awaddr_i (awaddr_i),
    .s_axil_awprot_i (3'b000),
    .s_axil_wvalid_i (wvalid_i),
    .s_axil_wready_o (wready),
    .s_axil_wdata_i  (wdata_i),
    .s_axil_wstrb_i  (wstrb_i),
    .s_axil_bvalid_o (bvalid),
    .s_axil_bready_i (bready_i),
    .s_axil_bresp_o  (bresp),
    .s_axil_arvalid_i(arvalid_i),
    .s_axil_arready_o(arready),
    .s_axil_araddr_i (araddr_i),
    .s_axil_arprot_i (3'b000),
    .s_axil_rvalid_o (rvalid),
    .s_axil_rready_i (rready_i),
    .s_axil_rdata_o  (rdata),
    .s_axil_rresp_o  (rresp),
    .reg_we_o        (unused_we),
    .reg_re_o        (unused_re),
    .reg_addr_o      (unused_addr),
    .reg_wdata_o     (unused_wdata),
    .reg_rdata_i     (reg_rdata_i),
    .busy_i          (busy_i),
    .start_o         (unused_start),
    .desc_addr_o     (unused_desc),
    .done_i          (done_i),
    .error_i         (error_i),
    .error_code_i    (error_code_i),
    .error_desc_i    (error_desc_i),
    .layer_done_i    (layer_done_i),
    .layer_tag_i     (layer_tag_i),
    .weight_beat_i   (weight_beat_i),
    .stall_i         (stall_i),
    .irq_o           (unused_irq)
  );

  // Handshakes counted since reset (a bounded proof never wraps them).
  logic [7:0] aw_n = '0, w_n = '0, b_n = '0, ar_n = '0, r_n = '0;
  // Last cycle's channels, for the rules that span two cycles.
  logic        past_aw = 1'b0, past_w = 1'b0, past_ar = 1'b0, past_b = 1'b0, past_r = 1'b0;
  logic [11:0] past_awaddr = '0, past_araddr = '0;
  logic [31:0] past_wdata = '0, past_rdata = '0;
  logic [3:0]  past_wstrb = '0;
  logic [1:0]  past_bresp = '0, past_rresp = '0;

  always_ff @(posedge clk_i) begin
    started_q   <= 1'b1;
    aw_n        <= aw_n + 8'(started_q && awvalid_i && awready);
    w_n         <= w_n + 8'(started_q && wvalid_i && wready);
    b_n         <= b_n + 8'(started_q && bvalid && bready_i);
    ar_n        <= ar_n + 8'(started_q && arvalid_i && arready);
    r_n         <= r_n + 8'(started_q && rvalid && rready_i);
    past_aw     <= started_q && awvalid_i && !awready;
    past_w      <= started_q && wvalid_i && !wready;
    past_ar     <= started_q && arvalid_i && !arready;
    past_b      <= started_q && bvalid && !bready_i;
    past_r      <= started_q && rvalid && !rready_i;
    past_awaddr <= awaddr_i;
    past_wdata  <= wdata_i;
    past_wstrb  <= wstrb_i;
    past_araddr <= araddr_i;
    past_bresp  <= bresp;
    past_rdata  <= rdata;
    past_rresp  <= rresp;
  end

  always_comb begin
    // The master: nothing offered in reset, an offer held with its payload until taken.
    if (!started_q) assume (!awvalid_i && !wvalid_i && !arvalid_i);
    if (past_aw) assume (awvalid_i && awaddr_i == past_awaddr);
    if (past_w) assume (wvalid_i && wdata_i == past_wdata && wstrb_i == past_wstrb);
    if (past_ar) assume (arvalid_i && araddr_i == past_araddr);
    // The slave.
    if (!started_q) assert (!bvalid && !rvalid);
    if (bvalid) assert (b_n < aw_n && b_n < w_n);
    if (rvalid) assert (r_n < ar_n);
    if (past_b) assert (bvalid && bresp == past_bresp);
    if (past_r) assert (rvalid && rdata == past_rdata && rresp == past_rresp);
  end

endmodule

`default_nettype wire
