// SPDX-License-Identifier: Apache-2.0
// The system wrapper's write side (_axi_write): the core's outputs packed into bus beats and
// written to memory in bursts.
#include <algorithm>
#include <string>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

OASIS_REGISTER_MUTATION("axi.wlast_early",
                        "the memory master raises WLAST on the second-last beat of a burst");
OASIS_REGISTER_MUTATION("axi.strobe_past_end",
                        "the last beat of a layer's outputs is written with every byte strobe "
                        "on, past the output buffer's end");

namespace {

// The write side's header widths and its ports: the write queue, the core's outputs, AXI4 writes.
void write_ports(SvModule& m, const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const LayerBits lb(d);
  m.header_localparam("AddrBits", ax.addr_bits, "Bits of a bus address.");
  m.header_localparam("DataBits", ax.data_bits, "Bits of a bus beat.");
  m.header_localparam("StrbBits", ax.data_bytes, "Byte strobes of a bus beat.");
  m.header_localparam("LenBits", 8, "Bits of AxLEN.");
  m.header_localparam("HalfBits", d.storage.width(), "Bits of a binary16 value.");
  m.header_localparam("Lines", c.pe_lines, "PE lines P: values of an output group.");
  m.header_localparam("RowsBits", lb.rows, "Bits of a group's row count.");
  m.header_localparam("OutBeatsBits", lb.out_beats, "Bits of a layer's count of output beats.");
  m.header_localparam("WideBits", 64, "Bits of a descriptor address.");
  m.header_localparam("TagBits", 32, "Bits of a layer's tag.");
  m.ports(kClock +
          std::vector<Port>{
              {"input", 0, "start_i", "A chain starts: the write error is cleared."},
              {"input", 0, "lay_valid_i", "A layer waits in the write queue."},
              {"output", 0, "lay_pop_o", "Take it."},
              {"input", 0, "lay_addr_i", "Its outputs' address.", "AddrBits"},
              {"input", 0, "lay_beats_i", "Their bus beats.", "OutBeatsBits"},
              {"input", 0, "lay_tag_i", "Its tag.", "TagBits"},
              {"input", 0, "lay_desc_i", "Its descriptor's address.", "WideBits"},
              {"input", 0, "drop_i", "A read failed: drop the outputs."},
              {"input", 0, "y_valid_i", "An output group is presented."},
              {"output", 0, "y_ready_o", "It is taken."},
              {"input", 0, "y_data_i", "Its values, lane p at [p*HalfBits +: HalfBits].",
               "Lines*HalfBits"},
              {"input", 0, "y_rows_i", "Its rows.", "RowsBits"},
              {"input", 0, "y_last_i", "It is the layer's last group."},
              {"output", 0, "m_axi_awvalid_o", "Write address valid."},
              {"input", 0, "m_axi_awready_i", "Write address ready."},
              {"output", 0, "m_axi_awaddr_o", "Write address.", "AddrBits"},
              {"output", 0, "m_axi_awlen_o", "Write burst length less one.", "LenBits"},
              {"output", 0, "m_axi_wvalid_o", "Write data valid."},
              {"input", 0, "m_axi_wready_i", "Write data ready."},
              {"output", 0, "m_axi_wdata_o", "Write data.", "DataBits"},
              {"output", 0, "m_axi_wstrb_o", "Write byte strobes.", "StrbBits"},
              {"output", 0, "m_axi_wlast_o", "The burst's last beat."},
              {"input", 0, "m_axi_bvalid_i", "Write response valid."},
              {"output", 0, "m_axi_bready_o", "Write response ready: always."},
              {"input", 0, "m_axi_bresp_i", "Write response.", "2"},
              {"output", 0, "layer_done_o", "The layer's outputs are all written (a cycle)."},
              {"output", 0, "layer_tag_o", "Its tag.", "TagBits"},
              {"output", 0, "idle_o", "No layer being written."},
              {"output", 0, "error_o", "A write was answered with an error since the start."},
              {"output", 0, "error_desc_o", "The descriptor being written then.", "WideBits"}});
}

// The localparams: a beat's slots, the buffer, the bursts and the 4 KB page.
void write_localparams(SvModule& m, const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const LayerBits lb(d);
  const int page_beats = 4096 / ax.data_bytes;
  const int fill_bits = count_width(ax.word_slots);
  m.localparam("Slots", ax.word_slots, "Output values a bus beat.");
  m.localparam("SlotBytes", d.storage.width() / 8, "Bytes of an output value.");
  m.localparam("FillBits", fill_bits, "Bits of a count of values in a beat, 0 .. Slots.");
  m.localparam("TakeBits", std::max(fill_bits, lb.rows), "Bits to compare the two.");
  m.localparam("RpBits", index_width(c.pe_lines), "Bits of a value's lane in a group.");
  m.localparam("BufferBeats", ax.write_buffer_beats, "Beats of the write buffer.");
  m.localparam("CountBits", count_width(ax.write_buffer_beats), "Bits of its beats.");
  m.localparam("MaxBurst", ax.max_burst, "Beats of the longest burst.");
  m.localparam("WLeftBits", count_width(ax.max_burst), "Bits of a burst's beats left.");
  m.localparam("SizeCode", ax.size_code, "log2 of a beat's bytes.");
  m.localparam("PageBeats", page_beats, "Beats of 4 KB.");
  m.localparam("CmpBits",
               std::max({lb.out_beats, count_width(page_beats), count_width(ax.max_burst)}),
               "Bits of a count of beats: the layer's, a page's or a burst's.");
  m.localparam("BOutBits", 4, "Bits of the writes awaiting their response (at most 15).");
}

// The signals: the group being packed, the beat being filled, the layer and its bursts.
void write_signals(SvModule& m) {
  m << fill(R"(
  // The group being packed: its values from lane g_rp_q, g_rem_q of them left.
  logic                      g_valid_q, g_valid_d, g_last_q, g_last_d;
  logic [Lines*HalfBits-1:0] g_data_q;
  logic [RowsBits-1:0]       g_rem_q, g_rem_d, rem_new;
  logic [RpBits-1:0]         g_rp_q, g_rp_d;
  // The beat being filled: fill_q values in its low slots.
  logic [Slots*HalfBits-1:0] acc_q, acc_new;
  logic [FillBits-1:0]       fill_q, fill_d, fill_new, room, take;
  logic [Slots-1:0]          slot_on;
  logic                      go, final_beat, emit, y_fire;
  // The layer, the buffer and the bursts.
  logic                      active_q, active_d, aw_valid_q, aw_valid_d, err_q, err_d;
  logic [AddrBits-1:0]       addr_q, addr_d, aw_addr_q, aw_addr_d;
  logic [LenBits-1:0]        aw_len_q, aw_len_d;
  logic [CmpBits-1:0]        beats_q, beats_d, to_page, len;
  logic [WLeftBits-1:0]      w_left_q, w_left_d;
  logic [CountBits-1:0]      count_q, count_d;
  logic [BOutBits-1:0]       bout_q, bout_d;
  logic [TagBits-1:0]        tag_q;
  logic [WideBits-1:0]       desc_q, err_desc_q, err_desc_d;
  logic                      issue, w_fire, drop_pop, buf_pop, buf_empty, unused_full;
  logic [DataBits+Slots-1:0] head;
)",
            {});
}

// The packing of a group's values into the beat, and the beat's written slots.
void write_packing(SvModule& m, const Config& c) {
  const bool strb_bug = mutated("axi.strobe_past_end");
  m << fill(
      R"(
  assign go        = active_q && g_valid_q && count_q != CountBits'(BufferBeats);
  assign room      = FillBits'(Slots) - fill_q;
  assign take      = !go ? '0 : TakeBits'(g_rem_q) < TakeBits'(room) ? FillBits'(g_rem_q) : room;
  assign fill_new  = fill_q + take;
  assign rem_new   = g_rem_q - RowsBits'(take);
  assign final_beat = g_last_q && rem_new == '0 && take != '0;
  assign emit      = take != '0 && (fill_new == FillBits'(Slots) || final_beat);
  assign y_ready_o = active_q && (!g_valid_q || (go && TakeBits'(g_rem_q) <= TakeBits'(room)));
  assign y_fire    = y_valid_i && y_ready_o;

  // Slot j of the beat takes lane g_rp_q + j - fill_q of the group when it is among the
  // values placed this cycle.
  for (genvar j = 0; j < Slots; j++) begin : g_slot
    logic [RpBits-1:0]   src;
    logic [HalfBits-1:0] value;
    logic                placed;
    assign src    = g_rp_q + RpBits'(j) - RpBits'(fill_q);
    assign placed = FillBits'(j) >= fill_q && FillBits'(j) < fill_new;
    @@mux@@ #(
      .Entries(Lines),
      .Width  (HalfBits),
      .SelBits(RpBits)
    ) u_pick (
      .data_i(g_data_q),
      .sel_i (src),
      .data_o(value)
    );
    assign acc_new[j*HalfBits +: HalfBits] = placed ? value : acc_q[j*HalfBits +: HalfBits];
  end
  // A beat's slots that hold values are written, the others not: one bit a slot in the
  // buffer, a byte strobe for each of its bytes on the bus.
  for (genvar j = 0; j < Slots; j++) begin : g_slot_on
    assign slot_on[j] = @@strb@@;
  end

  always_comb begin
    g_valid_d = g_valid_q;
    g_last_d  = g_last_q;
    g_rem_d   = g_rem_q;
    g_rp_d    = g_rp_q;
    if (take != '0) begin
      g_rem_d = rem_new;
      g_rp_d  = g_rp_q + RpBits'(take);
      if (rem_new == '0) g_valid_d = 1'b0;
    end
    if (y_fire) begin
      g_valid_d = 1'b1;
      g_last_d  = y_last_i;
      g_rem_d   = y_rows_i;
      g_rp_d    = '0;
    end
  end
  assign fill_d = emit ? '0 : fill_new;
)",
      {{"mux", module_name(c, "mux_tree")},
       {"strb", strb_bug ? "final_beat || FillBits'(j) < fill_new" : "FillBits'(j) < fill_new"}});
}

// The bursts: their length, their issue and the layer's progress and errors.
void write_bursts(SvModule& m) {
  m << fill(R"(
  // Bursts: at most MaxBurst beats, the layer's rest, and not past a 4 KB boundary; issued
  // when the buffer holds all of it and the burst before has sent its data.
  assign to_page = CmpBits'(PageBeats) - CmpBits'(addr_q[11:SizeCode]);
  always_comb begin
    len = CmpBits'(MaxBurst);
    if (beats_q < len) len = beats_q;
    if (to_page < len) len = to_page;
  end
  assign issue    = active_q && !aw_valid_q && w_left_q == '0 && beats_q != '0 && !drop_i &&
                    CmpBits'(count_q) >= len && bout_q != '1;
  assign w_fire   = m_axi_wvalid_o && m_axi_wready_i;
  assign drop_pop = active_q && drop_i && w_left_q == '0 && !aw_valid_q && beats_q != '0 &&
                    count_q != '0;
  assign buf_pop  = w_fire || drop_pop;
  assign count_d  = count_q + CountBits'(emit) - CountBits'(buf_pop);
  assign lay_pop_o = !active_q && lay_valid_i;
  assign layer_done_o = active_q && beats_q == '0 && w_left_q == '0 && !aw_valid_q &&
                        bout_q == '0;

  always_comb begin
    active_d   = active_q;
    addr_d     = addr_q;
    beats_d    = beats_q;
    aw_valid_d = aw_valid_q && !m_axi_awready_i;
    aw_addr_d  = aw_addr_q;
    aw_len_d   = aw_len_q;
    w_left_d   = w_left_q - WLeftBits'(w_fire);
    bout_d     = bout_q - BOutBits'(m_axi_bvalid_i);
    if (issue) begin
      aw_valid_d = 1'b1;
      aw_addr_d  = addr_q;
      aw_len_d   = LenBits'(len - CmpBits'(1));
      addr_d     = addr_q + (AddrBits'(len) << SizeCode);
      beats_d    = beats_q - len;
      w_left_d   = WLeftBits'(len);
      bout_d     = bout_q + BOutBits'(1) - BOutBits'(m_axi_bvalid_i);
    end
    if (drop_pop) beats_d = beats_q - CmpBits'(1);
    if (layer_done_o) active_d = 1'b0;
    if (lay_pop_o) begin
      active_d = 1'b1;
      addr_d   = lay_addr_i;
      beats_d  = CmpBits'(lay_beats_i);
    end
    err_d      = err_q && !start_i;
    err_desc_d = err_desc_q;
    if (m_axi_bvalid_i && m_axi_bresp_i[1] && !err_q) begin
      err_d      = 1'b1;
      err_desc_d = desc_q;
    end
  end
)",
            {});
}

// The registers, the write buffer and the outputs.
void write_outputs(SvModule& m) {
  const bool wlast_bug = mutated("axi.wlast_early");
  m << fill(R"(
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      g_valid_q  <= 1'b0;
      g_last_q   <= 1'b0;
      g_rem_q    <= '0;
      g_rp_q     <= '0;
      fill_q     <= '0;
      active_q   <= 1'b0;
      addr_q     <= '0;
      beats_q    <= '0;
      aw_valid_q <= 1'b0;
      aw_addr_q  <= '0;
      aw_len_q   <= '0;
      w_left_q   <= '0;
      count_q    <= '0;
      bout_q     <= '0;
      err_q      <= 1'b0;
      err_desc_q <= '0;
      tag_q      <= '0;
      desc_q     <= '0;
    end else begin
      g_valid_q  <= g_valid_d;
      g_last_q   <= g_last_d;
      g_rem_q    <= g_rem_d;
      g_rp_q     <= g_rp_d;
      fill_q     <= fill_d;
      active_q   <= active_d;
      addr_q     <= addr_d;
      beats_q    <= beats_d;
      aw_valid_q <= aw_valid_d;
      aw_addr_q  <= aw_addr_d;
      aw_len_q   <= aw_len_d;
      w_left_q   <= w_left_d;
      count_q    <= count_d;
      bout_q     <= bout_d;
      err_q      <= err_d;
      err_desc_q <= err_desc_d;
      if (lay_pop_o) begin
        tag_q  <= lay_tag_i;
        desc_q <= lay_desc_i;
      end
    end
  end

  // No reset: a group's values are read only once taken, the beat's only once placed.
  always_ff @(posedge clk_i) begin
    if (y_fire) g_data_q <= y_data_i;
    acc_q <= acc_new;
  end

  oasis_fifo #(
    .Width(DataBits + Slots),
    .Depth(BufferBeats)
  ) u_buf (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .push_i (emit),
    .data_i ({slot_on, acc_new}),
    .pop_i  (buf_pop),
    .data_o (head),
    .empty_o(buf_empty),
    .full_o (unused_full)
  );

  logic unused_resp;
  assign unused_resp     = m_axi_bresp_i[0];
  assign m_axi_awvalid_o = aw_valid_q;
  assign m_axi_awaddr_o  = aw_addr_q;
  assign m_axi_awlen_o   = aw_len_q;
  assign m_axi_wvalid_o  = w_left_q != '0 && !aw_valid_q && !buf_empty;
  assign m_axi_wdata_o   = head[DataBits-1:0];
  for (genvar b = 0; b < StrbBits; b++) begin : g_strb
    assign m_axi_wstrb_o[b] = head[DataBits+b/SlotBytes];
  end
  assign m_axi_wlast_o   = w_left_q == WLeftBits'(@@wlast@@);
  assign m_axi_bready_o  = 1'b1;
  assign layer_tag_o     = tag_q;
  assign idle_o          = !active_q;
  assign error_o         = err_q;
  assign error_desc_o    = err_desc_q;
)",
            {{"wlast", wlast_bug ? "2" : "1"}});
}

}  // namespace

SvFile write_module(const Config& c, const Derived& d) {
  SvModule m(module_name(c, "axi_write"),
             "The wrapper's write side (docs/axi.md, Writes): packs the core's output groups, "
             "binary16 values in row order, into bus beats (a group may end inside a beat and "
             "the next go on in it; the layer's last beat strobes only its values' bytes), "
             "holds them in a buffer of one longest burst, and writes them from the layer's "
             "output address in bursts that never cross a 4 KB boundary, each issued once its "
             "data is all in the buffer, its W beats after its AW. A layer is done when every "
             "response is in. While a read has failed (drop_i) the outputs are dropped: no "
             "write is issued.");
  write_ports(m, c, d);
  write_localparams(m, c, d);
  write_signals(m);
  write_packing(m, c);
  write_bursts(m);
  write_outputs(m);
  m.op("sub", "FillBits", "room");
  m.op("add", "FillBits", "fill_new");
  m.op("mux", "HalfBits", "u_pick", "Slots*(Lines-1)");
  m.op("add", "AddrBits", "addr_d");
  m.op("sub", "CmpBits", "beats_d", "2");
  return m.file();
}

}  // namespace oasis::gen::axi_detail
