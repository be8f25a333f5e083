// SPDX-License-Identifier: Apache-2.0
// The system wrapper's read side (_axi_read): the AR and R channels, the layer's reads and
// the read buffer.
#include <algorithm>
#include <string>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/cycle/axi.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

OASIS_REGISTER_MUTATION("axi.burst_crosses_4k",
                        "the memory master's reads ignore the 4 KB boundary when they size a "
                        "burst");
OASIS_REGISTER_MUTATION("axi.arvalid_dropped",
                        "the memory master drops ARVALID after one cycle when ARREADY is low");

namespace {

// The read side's header widths and its ports: AXI4 reads, the fetcher's, the queue, the buffer.
void read_ports(SvModule& m, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const LayerBits lb(d);
  m.header_localparam("AddrBits", ax.addr_bits, "Bits of a bus address.");
  m.header_localparam("DataBits", ax.data_bits, "Bits of a bus beat.");
  m.header_localparam("IdBits", ax.id_bits, "Bits of an AXI ID.");
  m.header_localparam("LenBits", 8, "Bits of AxLEN.");
  m.header_localparam("WideBits", 64, "Bits of a descriptor address.");
  m.header_localparam("StrideBits", 32, "Bits of a group stride.");
  m.header_localparam("GroupBits", lb.groups, "Bits of a layer's group count.");
  m.ports(
      kClock +
      std::vector<Port>{
          {"input", 0, "start_i", "A chain starts: the read error is cleared."},
          {"output", 0, "m_axi_arvalid_o", "Read address valid."},
          {"input", 0, "m_axi_arready_i", "Read address ready."},
          {"output", 0, "m_axi_arid_o", "Read ID: 0 a descriptor, 1 a layer's data.", "IdBits"},
          {"output", 0, "m_axi_araddr_o", "Read address.", "AddrBits"},
          {"output", 0, "m_axi_arlen_o", "Read burst length less one.", "LenBits"},
          {"input", 0, "m_axi_rvalid_i", "Read data valid."},
          {"output", 0, "m_axi_rready_o", "Read data ready: always."},
          {"input", 0, "m_axi_rid_i", "Read data ID.", "IdBits"},
          {"input", 0, "m_axi_rdata_i", "Read data.", "DataBits"},
          {"input", 0, "m_axi_rresp_i", "Read response.", "2"},
          {"input", 0, "m_axi_rlast_i", "The burst's last beat."},
          {"input", 0, "desc_req_i", "The fetcher wants a descriptor's read."},
          {"input", 0, "desc_addr_i", "Its address.", "AddrBits"},
          {"input", 0, "desc_len_i", "Its AxLEN.", "LenBits"},
          {"output", 0, "desc_grant_o", "The descriptor's read is issued this cycle."},
          {"output", 0, "desc_valid_o", "A beat of ID 0 arrives."},
          {"output", 0, "desc_data_o", "Its data.", "DataBits"},
          {"output", 0, "desc_err_o", "It was answered with SLVERR or DECERR."},
          {"input", 0, "lay_valid_i", "A layer waits in the read queue."},
          {"output", 0, "lay_pop_o", "Take it."},
          {"input", 0, "lay_desc_i", "Its descriptor's address.", "WideBits"},
          {"input", 0, "lay_tables_i", "Its tables are read first."},
          {"input", 0, "lay_tables_addr_i", "Their address.", "AddrBits"},
          {"input", 0, "lay_token_addr_i", "Its token's address.", "AddrBits"},
          {"input", 0, "lay_weights_addr_i", "Its first weight record's address.", "AddrBits"},
          {"input", 0, "lay_stride_i", "Bytes from one record to the next.", "StrideBits"},
          {"input", 0, "lay_groups_i", "Its groups (records).", "GroupBits"},
          {"output", 0, "buf_valid_o", "The read buffer holds a beat."},
          {"output", 0, "buf_data_o", "The beat at its head.", "DataBits"},
          {"input", 0, "buf_pop_i", "Take it."},
          {"output", 0, "idle_o", "No read to issue and none in flight."},
          {"output", 0, "error_o", "A layer's read was answered with an error since the start."},
          {"output", 0, "error_desc_o", "The descriptor being read then.", "WideBits"}});
}

// The localparams: the read buffer, the bursts in flight, the 4 KB page and the segments' beats.
void read_localparams(SvModule& m, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const int page_beats = 4096 / ax.data_bytes;
  const int left = std::max({ax.table_beats, ax.token_bus_beats, ax.record_beats});
  m.localparam("BufferBeats", ax.read_buffer_beats, "Beats of the read buffer.");
  m.localparam("CreditBits", count_width(ax.read_buffer_beats), "Bits of its free beats.");
  m.localparam("Outstanding", ax.outstanding_reads, "Read bursts in flight at most.");
  m.localparam("OutBits", count_width(ax.outstanding_reads), "Bits of the bursts in flight.");
  m.localparam("MaxBurst", ax.max_burst, "Beats of the longest burst.");
  m.localparam("SizeCode", ax.size_code, "log2 of a beat's bytes.");
  m.localparam("PageBeats", page_beats, "Beats of 4 KB.");
  m.localparam("TableBeats", ax.table_beats, "Beats of a layer's tables.");
  m.localparam("TokenBeats", ax.token_bus_beats, "Beats of a token.");
  m.localparam("RecordBeats", ax.record_beats, "Beats of a weight record.");
  m.localparam("CmpBits", count_width(std::max({left, page_beats, ax.max_burst})),
               "Bits of a count of beats: a segment's, a page's or a burst's.");
  m.localparam("DescId", kAxiDescId, "The descriptors' read ID.");
  m.localparam("DataId", kAxiDataId, "The layers' read ID.");
}

// The segments, the signals, and the next burst's length and addresses.
void read_bursts(SvModule& m) {
  const bool no_page = mutated("axi.burst_crosses_4k");
  m << fill(R"(
  localparam logic [1:0] SegIdle    = 2'd0;
  localparam logic [1:0] SegTables  = 2'd1;
  localparam logic [1:0] SegToken   = 2'd2;
  localparam logic [1:0] SegRecords = 2'd3;

  logic [1:0]            seg_q, seg_d;
  logic [AddrBits-1:0]   cur_q, cur_d, rec_q, rec_d, token_q, token_d, weights_q, weights_d;
  logic [StrideBits-1:0] stride_q, stride_d;
  logic [GroupBits-1:0]  groups_q, groups_d;
  logic [CmpBits-1:0]    left_q, left_d, to_page, len;
  logic [WideBits-1:0]   layer_q, layer_d, err_desc_q, err_desc_d;
  logic [CreditBits-1:0] credit_q, credit_d;
  logic [OutBits-1:0]    out_q, out_d;
  logic                  ar_valid_q, ar_valid_d, err_q, err_d;
  logic [IdBits-1:0]     ar_id_q, ar_id_d;
  logic [AddrBits-1:0]   ar_addr_q, ar_addr_d;
  logic [LenBits-1:0]    ar_len_q, ar_len_d;
  logic                  slot_free, out_ok, data_req, data_grant, data_beat, buf_empty;
  logic                  unused_full, unused_resp;

  // The next burst of the segment: at most MaxBurst beats, no more than the segment has left,
  // and not past the next 4 KB boundary.
  assign to_page = @@to_page@@;
  // The address after it and the next weight record's, in prefix adders (a short clock).
  logic [AddrBits-1:0] cur_next, rec_next;
  logic                unused_cur_carry, unused_rec_carry;
  oasis_add #(
    .Width(AddrBits)
  ) u_cur_next (
    .a_i    (cur_q),
    .b_i    (AddrBits'(len) << SizeCode),
    .carry_i(1'b0),
    .sum_o  (cur_next),
    .carry_o(unused_cur_carry)
  );
  oasis_add #(
    .Width(AddrBits)
  ) u_rec_next (
    .a_i    (rec_q),
    .b_i    (AddrBits'(stride_q)),
    .carry_i(1'b0),
    .sum_o  (rec_next),
    .carry_o(unused_rec_carry)
  );
  always_comb begin
    len = CmpBits'(MaxBurst);
    if (left_q < len) len = left_q;
    if (to_page < len) len = to_page;
  end
)",
            {{"to_page", no_page ? "CmpBits'(PageBeats)"
                                 : "CmpBits'(PageBeats) - CmpBits'(cur_q[11:SizeCode])"}});
}

// The AR channel: the descriptors' and the layer's reads, and the walk through its segments.
void read_ar_channel(SvModule& m) {
  const bool dropped = mutated("axi.arvalid_dropped");
  m << fill(R"(
  // The AR channel: a descriptor's read first, then a layer's, each only while fewer than
  // Outstanding bursts are in flight, a layer's only while the buffer has room for all of it.
  assign slot_free    = !ar_valid_q || m_axi_arready_i;
  assign out_ok       = out_q < OutBits'(Outstanding);
  assign data_req     = seg_q != SegIdle && CmpBits'(credit_q) >= len;
  assign desc_grant_o = slot_free && out_ok && desc_req_i;
  assign data_grant   = slot_free && out_ok && !desc_req_i && data_req;
  assign lay_pop_o    = seg_q == SegIdle && lay_valid_i;

  always_comb begin
    seg_d      = seg_q;
    cur_d      = cur_q;
    rec_d      = rec_q;
    token_d    = token_q;
    weights_d  = weights_q;
    stride_d   = stride_q;
    groups_d   = groups_q;
    left_d     = left_q;
    layer_d    = layer_q;
    ar_valid_d = @@ar_keep@@;
    ar_id_d    = ar_id_q;
    ar_addr_d  = ar_addr_q;
    ar_len_d   = ar_len_q;
    if (desc_grant_o) begin
      ar_valid_d = 1'b1;
      ar_id_d    = IdBits'(DescId);
      ar_addr_d  = desc_addr_i;
      ar_len_d   = desc_len_i;
    end else if (data_grant) begin
      ar_valid_d = 1'b1;
      ar_id_d    = IdBits'(DataId);
      ar_addr_d  = cur_q;
      ar_len_d   = LenBits'(len - CmpBits'(1));
      cur_d      = cur_next;
      left_d     = left_q - len;
      if (left_q == len) begin
        unique case (seg_q)
          SegTables: begin
            seg_d  = SegToken;
            cur_d  = token_q;
            left_d = CmpBits'(TokenBeats);
          end
          SegToken: begin
            seg_d  = SegRecords;
            cur_d  = weights_q;
            rec_d  = weights_q;
            left_d = CmpBits'(RecordBeats);
          end
          default: begin
            if (groups_q == GroupBits'(1)) begin
              seg_d = SegIdle;
            end else begin
              rec_d    = rec_next;
              cur_d    = rec_next;
              left_d   = CmpBits'(RecordBeats);
              groups_d = groups_q - GroupBits'(1);
            end
          end
        endcase
      end
    end
    if (lay_pop_o) begin
      seg_d     = lay_tables_i ? SegTables : SegToken;
      cur_d     = lay_tables_i ? lay_tables_addr_i : lay_token_addr_i;
      left_d    = lay_tables_i ? CmpBits'(TableBeats) : CmpBits'(TokenBeats);
      token_d   = lay_token_addr_i;
      weights_d = lay_weights_addr_i;
      stride_d  = lay_stride_i;
      groups_d  = lay_groups_i;
      layer_d   = lay_desc_i;
    end
  end
)",
            {{"ar_keep", dropped ? "1'b0" : "ar_valid_q && !m_axi_arready_i"}});
}

// The R channel, the registers, the read buffer and the outputs.
void read_r_channel(SvModule& m) {
  m << fill(R"(
  // The R channel: ID 0 to the fetcher, ID 1 into the buffer.
  assign desc_valid_o = m_axi_rvalid_i && m_axi_rid_i == IdBits'(DescId);
  assign desc_data_o  = m_axi_rdata_i;
  assign desc_err_o   = m_axi_rresp_i[1];
  assign data_beat    = m_axi_rvalid_i && m_axi_rid_i != IdBits'(DescId);
  assign out_d        = out_q + OutBits'(desc_grant_o || data_grant) -
                        OutBits'(m_axi_rvalid_i && m_axi_rlast_i);
  assign credit_d     = credit_q - (data_grant ? CreditBits'(len) : '0) + CreditBits'(buf_pop_i);
  always_comb begin
    err_d      = err_q && !start_i;
    err_desc_d = err_desc_q;
    if (data_beat && m_axi_rresp_i[1] && !err_q) begin
      err_d      = 1'b1;
      err_desc_d = layer_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seg_q      <= SegIdle;
      cur_q      <= '0;
      rec_q      <= '0;
      token_q    <= '0;
      weights_q  <= '0;
      stride_q   <= '0;
      groups_q   <= '0;
      left_q     <= '0;
      layer_q    <= '0;
      credit_q   <= CreditBits'(BufferBeats);
      out_q      <= '0;
      ar_valid_q <= 1'b0;
      ar_id_q    <= '0;
      ar_addr_q  <= '0;
      ar_len_q   <= '0;
      err_q      <= 1'b0;
      err_desc_q <= '0;
    end else begin
      seg_q      <= seg_d;
      cur_q      <= cur_d;
      rec_q      <= rec_d;
      token_q    <= token_d;
      weights_q  <= weights_d;
      stride_q   <= stride_d;
      groups_q   <= groups_d;
      left_q     <= left_d;
      layer_q    <= layer_d;
      credit_q   <= credit_d;
      out_q      <= out_d;
      ar_valid_q <= ar_valid_d;
      ar_id_q    <= ar_id_d;
      ar_addr_q  <= ar_addr_d;
      ar_len_q   <= ar_len_d;
      err_q      <= err_d;
      err_desc_q <= err_desc_d;
    end
  end

  oasis_fifo #(
    .Width(DataBits),
    .Depth(BufferBeats)
  ) u_buf (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .push_i (data_beat),
    .data_i (m_axi_rdata_i),
    .pop_i  (buf_pop_i),
    .data_o (buf_data_o),
    .empty_o(buf_empty),
    .full_o (unused_full)
  );

  assign unused_resp     = m_axi_rresp_i[0];
  assign buf_valid_o     = !buf_empty;
  assign m_axi_arvalid_o = ar_valid_q;
  assign m_axi_arid_o    = ar_id_q;
  assign m_axi_araddr_o  = ar_addr_q;
  assign m_axi_arlen_o   = ar_len_q;
  assign m_axi_rready_o  = 1'b1;
  assign idle_o          = seg_q == SegIdle && !ar_valid_q && out_q == '0;
  assign error_o         = err_q;
  assign error_desc_o    = err_desc_q;
)",
            {});
}

}  // namespace

SvFile read_module(const Config& c, const Derived& d) {
  SvModule m(module_name(c, "axi_read"),
             "The wrapper's read side (docs/axi.md, Reads): the AR channel, shared by the "
             "descriptor fetcher (ID 0, first) and a layer's reads (ID 1), which it issues in "
             "order (the tables when asked, the token, then each weight record) in bursts of at "
             "most MaxBurst beats that never cross a 4 KB boundary, as far ahead as the read "
             "buffer has room for their data and Outstanding bursts are in flight; the R "
             "channel, whose beats of ID 0 go to the fetcher and of ID 1 into the read buffer "
             "(RREADY is always high: the room was kept when the burst was issued).");
  read_ports(m, d);
  read_localparams(m, d);
  read_bursts(m);
  read_ar_channel(m);
  read_r_channel(m);
  m.op("sub", "CmpBits", "to_page");
  m.op("lt", "CmpBits", "len", "2");
  m.op("add", "AddrBits", "u_cur_next");
  m.op("add", "AddrBits", "u_rec_next");
  m.op("add", "CreditBits", "credit_d", "2");
  m.op("add", "OutBits", "out_d", "2");
  return m.file();
}

}  // namespace oasis::gen::axi_detail
