// SPDX-License-Identifier: Apache-2.0
// The system wrapper (block axi; docs/axi.md): the core behind an AXI4-Lite slave for control
// and status and an AXI4 master that runs layers from descriptors in memory. Its register map,
// error codes and memory layout are model/cycle/axi.hpp's; its figures derive()'s (AxiTiming).
// This file holds the top (oasis_<name>_axi), the block and the helpers the modules share
// (gen/axi_modules.hpp). The modules, one file each: the AXI4-Lite slave with the control
// registers (_axi_lite, gen/axi_lite.cpp), the descriptor fetcher (_axi_fetch,
// gen/axi_fetch.cpp), the read side (_axi_read, gen/axi_read.cpp: the read channels, the
// layer's reads, the read buffer), the feed of the core's streams (_axi_feed) with the
// unpacking of bus beats into the core's beats (_axi_unpack) in gen/axi_feed.cpp, and the
// write side (_axi_write, gen/axi_write.cpp). The C driver beside it: gen/axi_driver.cpp.
#include "gen/axi.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/sv.hpp"
#include "model/cycle/axi.hpp"
#include "model/cycle/regfile.hpp"
#include "model/derived.hpp"

namespace oasis::gen {
namespace axi_detail {

using std::string;

// `text` with every @@key@@ replaced by its value: the modules' bodies are SystemVerilog with
// a few names of the config in them, easier to read than a format string full of {{ }}.
string fill(string text, const std::map<string, string>& values) {
  for (const auto& [key, value] : values) {
    const string mark = "@@" + key + "@@";
    for (size_t at = text.find(mark); at != string::npos; at = text.find(mark, at)) {
      text.replace(at, mark.size(), value);
      at += value.size();
    }
  }
  if (text.find("@@") != string::npos) {
    throw std::logic_error("gen/axi.cpp: a mark left unfilled: " +
                           text.substr(text.find("@@"), 40));
  }
  return text;
}

const std::vector<Port> kClock = {{"input", 0, "clk_i", "Clock."},
                                  {"input", 0, "rst_ni", "Asynchronous reset, active low."}};

std::vector<Port> operator+(std::vector<Port> a, const std::vector<Port>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

namespace {

// ------------------------------------------------------------------------------ top

// An instance of one of the wrapper's parts, and a blank line after it.
void top_inst(SvModule& m, const string& block_module, const string& inst_name,
              const std::vector<std::pair<string, string>>& conns) {
  m.inst(block_module, inst_name, conns);
  m << "\n";
}

// The top's header widths and its ports: the AXI4-Lite slave, the AXI4 master, the interrupt.
void top_ports(SvModule& m, const AxiTiming& ax) {
  m.header_localparam("LiteAddrBits", kAxiLiteAddrBits, "Byte-address bits of the AXI4-Lite port.");
  m.header_localparam("LiteDataBits", kAxiLiteDataBits, "Data bits of the AXI4-Lite port.");
  m.header_localparam("LiteStrbBits", kAxiLiteDataBits / 8, "Byte strobes of the AXI4-Lite port.");
  m.header_localparam("AddrBits", ax.addr_bits, "Address bits of the AXI4 master.");
  m.header_localparam("DataBits", ax.data_bits, "Data bits of the AXI4 master.");
  m.header_localparam("StrbBits", ax.data_bytes, "Byte strobes of the AXI4 master.");
  m.header_localparam("IdBits", ax.id_bits, "ID bits of the AXI4 master.");
  m.ports(
      kClock +
      std::vector<Port>{
          {"input", 0, "s_axil_awvalid_i", "AXI4-Lite write address valid."},
          {"output", 0, "s_axil_awready_o", "AXI4-Lite write address ready."},
          {"input", 0, "s_axil_awaddr_i", "AXI4-Lite write byte address.", "LiteAddrBits"},
          {"input", 0, "s_axil_awprot_i", "AXI4-Lite write protection (not used).", "3"},
          {"input", 0, "s_axil_wvalid_i", "AXI4-Lite write data valid."},
          {"output", 0, "s_axil_wready_o", "AXI4-Lite write data ready."},
          {"input", 0, "s_axil_wdata_i", "AXI4-Lite write data.", "LiteDataBits"},
          {"input", 0, "s_axil_wstrb_i", "AXI4-Lite write byte strobes.", "LiteStrbBits"},
          {"output", 0, "s_axil_bvalid_o", "AXI4-Lite write response valid."},
          {"input", 0, "s_axil_bready_i", "AXI4-Lite write response ready."},
          {"output", 0, "s_axil_bresp_o", "AXI4-Lite write response.", "2"},
          {"input", 0, "s_axil_arvalid_i", "AXI4-Lite read address valid."},
          {"output", 0, "s_axil_arready_o", "AXI4-Lite read address ready."},
          {"input", 0, "s_axil_araddr_i", "AXI4-Lite read byte address.", "LiteAddrBits"},
          {"input", 0, "s_axil_arprot_i", "AXI4-Lite read protection (not used).", "3"},
          {"output", 0, "s_axil_rvalid_o", "AXI4-Lite read data valid."},
          {"input", 0, "s_axil_rready_i", "AXI4-Lite read data ready."},
          {"output", 0, "s_axil_rdata_o", "AXI4-Lite read data.", "LiteDataBits"},
          {"output", 0, "s_axil_rresp_o", "AXI4-Lite read response.", "2"},
          {"output", 0, "m_axi_awvalid_o", "AXI4 write address valid."},
          {"input", 0, "m_axi_awready_i", "AXI4 write address ready."},
          {"output", 0, "m_axi_awid_o", "AXI4 write ID: 0.", "IdBits"},
          {"output", 0, "m_axi_awaddr_o", "AXI4 write address.", "AddrBits"},
          {"output", 0, "m_axi_awlen_o", "AXI4 write burst length less one.", "8"},
          {"output", 0, "m_axi_awsize_o", "AXI4 write beat size: the whole bus.", "3"},
          {"output", 0, "m_axi_awburst_o", "AXI4 write burst type: INCR.", "2"},
          {"output", 0, "m_axi_awlock_o", "AXI4 write lock: normal."},
          {"output", 0, "m_axi_awcache_o", "AXI4 write cache: normal, bufferable.", "4"},
          {"output", 0, "m_axi_awprot_o", "AXI4 write protection: data, secure, unprivileged.",
           "3"},
          {"output", 0, "m_axi_awqos_o", "AXI4 write QoS: 0.", "4"},
          {"output", 0, "m_axi_wvalid_o", "AXI4 write data valid."},
          {"input", 0, "m_axi_wready_i", "AXI4 write data ready."},
          {"output", 0, "m_axi_wdata_o", "AXI4 write data.", "DataBits"},
          {"output", 0, "m_axi_wstrb_o", "AXI4 write byte strobes.", "StrbBits"},
          {"output", 0, "m_axi_wlast_o", "AXI4 write last beat of a burst."},
          {"input", 0, "m_axi_bvalid_i", "AXI4 write response valid."},
          {"output", 0, "m_axi_bready_o", "AXI4 write response ready."},
          {"input", 0, "m_axi_bid_i", "AXI4 write response ID.", "IdBits"},
          {"input", 0, "m_axi_bresp_i", "AXI4 write response.", "2"},
          {"output", 0, "m_axi_arvalid_o", "AXI4 read address valid."},
          {"input", 0, "m_axi_arready_i", "AXI4 read address ready."},
          {"output", 0, "m_axi_arid_o", "AXI4 read ID: 0 descriptors, 1 layer data.", "IdBits"},
          {"output", 0, "m_axi_araddr_o", "AXI4 read address.", "AddrBits"},
          {"output", 0, "m_axi_arlen_o", "AXI4 read burst length less one.", "8"},
          {"output", 0, "m_axi_arsize_o", "AXI4 read beat size: the whole bus.", "3"},
          {"output", 0, "m_axi_arburst_o", "AXI4 read burst type: INCR.", "2"},
          {"output", 0, "m_axi_arlock_o", "AXI4 read lock: normal."},
          {"output", 0, "m_axi_arcache_o", "AXI4 read cache: normal, bufferable.", "4"},
          {"output", 0, "m_axi_arprot_o", "AXI4 read protection: data, secure, unprivileged.", "3"},
          {"output", 0, "m_axi_arqos_o", "AXI4 read QoS: 0.", "4"},
          {"input", 0, "m_axi_rvalid_i", "AXI4 read data valid."},
          {"output", 0, "m_axi_rready_o", "AXI4 read data ready."},
          {"input", 0, "m_axi_rid_i", "AXI4 read data ID.", "IdBits"},
          {"input", 0, "m_axi_rdata_i", "AXI4 read data.", "DataBits"},
          {"input", 0, "m_axi_rresp_i", "AXI4 read response.", "2"},
          {"input", 0, "m_axi_rlast_i", "AXI4 read last beat of a burst."},
          {"output", 0, "irq_o", "Interrupt, level: an enabled event of irq_status is set."}});
}

// The localparams: the layers' fields as the queues carry them, the error codes, the write ID.
void top_localparams(SvModule& m, const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const AxiLiteMap map = axi_lite_map(c);
  const LayerBits lb(d);
  m.localparam("WideBits", 64, "Bits of a descriptor address.");
  m.localparam("CodeBits", 8, "Bits of an error code.");
  m.localparam("TagBits", 32, "Bits of a layer's tag.");
  m.localparam("StrideBits", 32, "Bits of a group stride.");
  m.localparam("HalfBits", d.storage.width(), "Bits of a binary16 value.");
  m.localparam("GroupBits", lb.groups, "Bits of a layer's group count.");
  m.localparam("RowsBits", lb.rows, "Bits of a group's row count.");
  m.localparam("OutBeatsBits", lb.out_beats, "Bits of a layer's output beats.");
  m.localparam("Lines", c.pe_lines, "PE lines P.");
  m.localparam("BeatLanes", d.core.beat_activations, "Activations a token beat.");
  m.localparam("LaneBits", d.core.weight_lane_bits, "One line's lane of a weight beat.");
  m.localparam("RegAddrBits", kRegAddrBits, "Bits of a register-file word address.");
  m.localparam("RegWordBits", kRegWordBits, "Bits of a register-file word.");
  m.localparam("ReadLayerBits", 64 + 1 + 3 * ax.addr_bits + 32 + lb.groups,
               "Bits of a layer in the read queue.");
  m.localparam("FeedLayerBits", 1 + lb.groups + lb.rows + d.storage.width(),
               "Bits of a layer in the feed queue.");
  m.localparam("WriteLayerBits", ax.addr_bits + lb.out_beats + 32 + 64,
               "Bits of a layer in the write queue.");
  m.localparam("SizeCode", ax.size_code, "AxSIZE: log2 of a beat's bytes.");
  m.localparam("ErrReadResp", map.error("read_resp"), "Error code: a read refused.");
  m.localparam("ErrWriteResp", map.error("write_resp"), "Error code: a write refused.");
  m.localparam("WriteId", kAxiWriteId, "The writes' ID.");
}

// The signals between the parts: the core's streams, the control, the layers and their queues.
void top_signals(SvModule& m) {
  m << R"(
  // The core's streams and register port.
  logic                      x_valid, x_ready, w_valid, w_ready, w_last, y_valid, y_ready, y_last;
  logic                      core_idle, unused_rvalid;
  logic [BeatLanes*HalfBits-1:0] x_data;
  logic [HalfBits-1:0]       x_scale;
  logic [Lines*LaneBits-1:0] w_data;
  logic [Lines*HalfBits-1:0] w_scale, y_data;
  logic [RowsBits-1:0]       w_rows, y_rows;
  logic                      reg_we, reg_re, lite_we, lite_re, feed_we;
  logic [RegAddrBits-1:0]    reg_addr, lite_addr, feed_addr;
  logic [RegWordBits-1:0]    reg_wdata, reg_rdata, lite_wdata, feed_wdata;
  // Control: a start, the chain's end, its errors.
  logic                      busy_q, start, report, failed, abort;
  logic                      fetch_idle, read_idle, feed_idle, write_idle;
  logic                      fetch_err, read_err, write_err, layer_done, record_beat, stall;
  logic [CodeBits-1:0]       fetch_code, error_code;
  logic [WideBits-1:0]       desc_addr, fetch_desc, read_desc, write_desc, error_desc;
  logic [TagBits-1:0]        layer_tag;
  // The descriptor fetcher's reads and its layers, through the queues.
  logic                      desc_req, desc_grant, desc_valid, desc_err, push, push_ready;
  logic [AddrBits-1:0]       desc_ar_addr;
  logic [7:0]                desc_ar_len;
  logic [DataBits-1:0]       desc_data, buf_data;
  logic                      buf_valid, buf_pop;
  logic [WideBits-1:0]       lay_desc;
  logic                      lay_tables;
  logic [AddrBits-1:0]       lay_tables_addr, lay_token_addr, lay_weights_addr, lay_output_addr;
  logic [StrideBits-1:0]     lay_stride;
  logic [GroupBits-1:0]      lay_groups;
  logic [RowsBits-1:0]       lay_last_rows;
  logic [OutBeatsBits-1:0]   lay_out_beats;
  logic [HalfBits-1:0]       lay_scale;
  logic [TagBits-1:0]        lay_tag;
  logic [ReadLayerBits-1:0]  rq_in, rq_out;
  logic [FeedLayerBits-1:0]  fq_in, fq_out;
  logic [WriteLayerBits-1:0] wq_in, wq_out;
  logic                      rq_empty, rq_full, rq_pop, fq_empty, fq_full, fq_pop;
  logic                      wq_empty, wq_full, wq_pop;
  logic [WideBits-1:0]       rq_desc, wq_desc;
  logic                      rq_tables, fq_tables;
  logic [AddrBits-1:0]       rq_tables_addr, rq_token_addr, rq_weights_addr, wq_addr;
  logic [StrideBits-1:0]     rq_stride;
  logic [GroupBits-1:0]      rq_groups, fq_groups;
  logic [RowsBits-1:0]       fq_last_rows;
  logic [HalfBits-1:0]       fq_scale;
  logic [OutBeatsBits-1:0]   wq_beats;
  logic [TagBits-1:0]        wq_tag;

)";
}

// The AXI4-Lite slave (u_lite) and the descriptor fetcher (u_fetch).
void top_lite_fetch(SvModule& m, const Config& c) {
  top_inst(m, module_name(c, "axi_lite"), "u_lite",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"s_axil_awvalid_i", "s_axil_awvalid_i"},
            {"s_axil_awready_o", "s_axil_awready_o"},
            {"s_axil_awaddr_i", "s_axil_awaddr_i"},
            {"s_axil_awprot_i", "s_axil_awprot_i"},
            {"s_axil_wvalid_i", "s_axil_wvalid_i"},
            {"s_axil_wready_o", "s_axil_wready_o"},
            {"s_axil_wdata_i", "s_axil_wdata_i"},
            {"s_axil_wstrb_i", "s_axil_wstrb_i"},
            {"s_axil_bvalid_o", "s_axil_bvalid_o"},
            {"s_axil_bready_i", "s_axil_bready_i"},
            {"s_axil_bresp_o", "s_axil_bresp_o"},
            {"s_axil_arvalid_i", "s_axil_arvalid_i"},
            {"s_axil_arready_o", "s_axil_arready_o"},
            {"s_axil_araddr_i", "s_axil_araddr_i"},
            {"s_axil_arprot_i", "s_axil_arprot_i"},
            {"s_axil_rvalid_o", "s_axil_rvalid_o"},
            {"s_axil_rready_i", "s_axil_rready_i"},
            {"s_axil_rdata_o", "s_axil_rdata_o"},
            {"s_axil_rresp_o", "s_axil_rresp_o"},
            {"reg_we_o", "lite_we"},
            {"reg_re_o", "lite_re"},
            {"reg_addr_o", "lite_addr"},
            {"reg_wdata_o", "lite_wdata"},
            {"reg_rdata_i", "reg_rdata"},
            {"busy_i", "busy_q"},
            {"start_o", "start"},
            {"desc_addr_o", "desc_addr"},
            {"done_i", "report && !failed"},
            {"error_i", "report && failed"},
            {"error_code_i", "error_code"},
            {"error_desc_i", "error_desc"},
            {"layer_done_i", "layer_done"},
            {"layer_tag_i", "layer_tag"},
            {"weight_beat_i", "record_beat"},
            {"stall_i", "stall"},
            {"irq_o", "irq_o"}});
  top_inst(m, module_name(c, "axi_fetch"), "u_fetch",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"start_i", "start"},
            {"desc_addr_i", "desc_addr"},
            {"abort_i", "abort"},
            {"ar_req_o", "desc_req"},
            {"ar_addr_o", "desc_ar_addr"},
            {"ar_len_o", "desc_ar_len"},
            {"ar_grant_i", "desc_grant"},
            {"r_valid_i", "desc_valid"},
            {"r_data_i", "desc_data"},
            {"r_err_i", "desc_err"},
            {"push_o", "push"},
            {"push_ready_i", "push_ready"},
            {"lay_desc_o", "lay_desc"},
            {"lay_tables_o", "lay_tables"},
            {"lay_tables_addr_o", "lay_tables_addr"},
            {"lay_token_addr_o", "lay_token_addr"},
            {"lay_weights_addr_o", "lay_weights_addr"},
            {"lay_output_addr_o", "lay_output_addr"},
            {"lay_stride_o", "lay_stride"},
            {"lay_groups_o", "lay_groups"},
            {"lay_last_rows_o", "lay_last_rows"},
            {"lay_out_beats_o", "lay_out_beats"},
            {"lay_scale_o", "lay_scale"},
            {"lay_tag_o", "lay_tag"},
            {"idle_o", "fetch_idle"},
            {"error_o", "fetch_err"},
            {"error_code_o", "fetch_code"},
            {"error_desc_o", "fetch_desc"}});
}

// The three layer queues, of the read side, the feed and the write side.
void top_queues(SvModule& m) {
  m << "  // A checked layer goes to the three queues at once: each side takes it when it gets "
       "there.\n"
    << R"(  assign push_ready = !rq_full && !fq_full && !wq_full;
  assign rq_in = {lay_desc, lay_tables, lay_tables_addr, lay_token_addr, lay_weights_addr,
                  lay_stride, lay_groups};
  assign fq_in = {lay_tables, lay_groups, lay_last_rows, lay_scale};
  assign wq_in = {lay_output_addr, lay_out_beats, lay_tag, lay_desc};
  assign {rq_desc, rq_tables, rq_tables_addr, rq_token_addr, rq_weights_addr, rq_stride,
          rq_groups} = rq_out;
  assign {fq_tables, fq_groups, fq_last_rows, fq_scale} = fq_out;
  assign {wq_addr, wq_beats, wq_tag, wq_desc} = wq_out;
)";
  for (const auto& [q, width] : std::vector<std::pair<string, string>>{
           {"rq", "ReadLayerBits"}, {"fq", "FeedLayerBits"}, {"wq", "WriteLayerBits"}}) {
    m.inst("oasis_fifo", "u_" + q,
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"push_i", "push && push_ready"},
            {"data_i", q + "_in"},
            {"pop_i", q + "_pop"},
            {"data_o", q + "_out"},
            {"empty_o", q + "_empty"},
            {"full_o", q + "_full"}},
           "  ", {{"Width", width}, {"Depth", "2"}});
  }
  m << "\n";
}

// The read side (u_read): the read channels, the layers' reads and the read buffer.
void top_read(SvModule& m, const Config& c) {
  top_inst(m, module_name(c, "axi_read"), "u_read",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"start_i", "start"},
            {"m_axi_arvalid_o", "m_axi_arvalid_o"},
            {"m_axi_arready_i", "m_axi_arready_i"},
            {"m_axi_arid_o", "m_axi_arid_o"},
            {"m_axi_araddr_o", "m_axi_araddr_o"},
            {"m_axi_arlen_o", "m_axi_arlen_o"},
            {"m_axi_rvalid_i", "m_axi_rvalid_i"},
            {"m_axi_rready_o", "m_axi_rready_o"},
            {"m_axi_rid_i", "m_axi_rid_i"},
            {"m_axi_rdata_i", "m_axi_rdata_i"},
            {"m_axi_rresp_i", "m_axi_rresp_i"},
            {"m_axi_rlast_i", "m_axi_rlast_i"},
            {"desc_req_i", "desc_req"},
            {"desc_addr_i", "desc_ar_addr"},
            {"desc_len_i", "desc_ar_len"},
            {"desc_grant_o", "desc_grant"},
            {"desc_valid_o", "desc_valid"},
            {"desc_data_o", "desc_data"},
            {"desc_err_o", "desc_err"},
            {"lay_valid_i", "!rq_empty"},
            {"lay_pop_o", "rq_pop"},
            {"lay_desc_i", "rq_desc"},
            {"lay_tables_i", "rq_tables"},
            {"lay_tables_addr_i", "rq_tables_addr"},
            {"lay_token_addr_i", "rq_token_addr"},
            {"lay_weights_addr_i", "rq_weights_addr"},
            {"lay_stride_i", "rq_stride"},
            {"lay_groups_i", "rq_groups"},
            {"buf_valid_o", "buf_valid"},
            {"buf_data_o", "buf_data"},
            {"buf_pop_i", "buf_pop"},
            {"idle_o", "read_idle"},
            {"error_o", "read_err"},
            {"error_desc_o", "read_desc"}});
}

// The feed of the core's streams (u_feed) and the write side (u_write).
void top_feed_write(SvModule& m, const Config& c) {
  top_inst(m, module_name(c, "axi_feed"), "u_feed",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"lay_valid_i", "!fq_empty"},
            {"lay_pop_o", "fq_pop"},
            {"lay_tables_i", "fq_tables"},
            {"lay_groups_i", "fq_groups"},
            {"lay_last_rows_i", "fq_last_rows"},
            {"lay_scale_i", "fq_scale"},
            {"buf_valid_i", "buf_valid"},
            {"buf_data_i", "buf_data"},
            {"buf_pop_o", "buf_pop"},
            {"core_idle_i", "core_idle"},
            {"reg_we_o", "feed_we"},
            {"reg_addr_o", "feed_addr"},
            {"reg_wdata_o", "feed_wdata"},
            {"x_valid_o", "x_valid"},
            {"x_ready_i", "x_ready"},
            {"x_data_o", "x_data"},
            {"x_scale_o", "x_scale"},
            {"w_valid_o", "w_valid"},
            {"w_ready_i", "w_ready"},
            {"w_data_o", "w_data"},
            {"w_scale_o", "w_scale"},
            {"w_rows_o", "w_rows"},
            {"w_last_o", "w_last"},
            {"record_beat_o", "record_beat"},
            {"stall_o", "stall"},
            {"idle_o", "feed_idle"}});
  top_inst(m, module_name(c, "axi_write"), "u_write",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"start_i", "start"},
            {"lay_valid_i", "!wq_empty"},
            {"lay_pop_o", "wq_pop"},
            {"lay_addr_i", "wq_addr"},
            {"lay_beats_i", "wq_beats"},
            {"lay_tag_i", "wq_tag"},
            {"lay_desc_i", "wq_desc"},
            {"drop_i", "read_err"},
            {"y_valid_i", "y_valid"},
            {"y_ready_o", "y_ready"},
            {"y_data_i", "y_data"},
            {"y_rows_i", "y_rows"},
            {"y_last_i", "y_last"},
            {"m_axi_awvalid_o", "m_axi_awvalid_o"},
            {"m_axi_awready_i", "m_axi_awready_i"},
            {"m_axi_awaddr_o", "m_axi_awaddr_o"},
            {"m_axi_awlen_o", "m_axi_awlen_o"},
            {"m_axi_wvalid_o", "m_axi_wvalid_o"},
            {"m_axi_wready_i", "m_axi_wready_i"},
            {"m_axi_wdata_o", "m_axi_wdata_o"},
            {"m_axi_wstrb_o", "m_axi_wstrb_o"},
            {"m_axi_wlast_o", "m_axi_wlast_o"},
            {"m_axi_bvalid_i", "m_axi_bvalid_i"},
            {"m_axi_bready_o", "m_axi_bready_o"},
            {"m_axi_bresp_i", "m_axi_bresp_i"},
            {"layer_done_o", "layer_done"},
            {"layer_tag_o", "layer_tag"},
            {"idle_o", "write_idle"},
            {"error_o", "write_err"},
            {"error_desc_o", "write_desc"}});
}

// The register port's multiplexer and the core (u_core).
void top_core(SvModule& m, const Config& c) {
  m << R"(  // The register port: the AXI4-Lite window while no chain runs, the feed's tables while
  // one does.
  assign reg_we    = busy_q ? feed_we : lite_we;
  assign reg_re    = !busy_q && lite_re;
  assign reg_addr  = busy_q ? feed_addr : lite_addr;
  assign reg_wdata = busy_q ? feed_wdata : lite_wdata;

)";
  top_inst(m, module_name(c, "core"), "u_core",
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"reg_we_i", "reg_we"},
            {"reg_re_i", "reg_re"},
            {"reg_addr_i", "reg_addr"},
            {"reg_wdata_i", "reg_wdata"},
            {"reg_rvalid_o", "unused_rvalid"},
            {"reg_rdata_o", "reg_rdata"},
            {"x_valid_i", "x_valid"},
            {"x_ready_o", "x_ready"},
            {"x_data_i", "x_data"},
            {"x_scale_i", "x_scale"},
            {"w_valid_i", "w_valid"},
            {"w_ready_o", "w_ready"},
            {"w_data_i", "w_data"},
            {"w_scale_i", "w_scale"},
            {"w_rows_i", "w_rows"},
            {"w_last_i", "w_last"},
            {"y_valid_o", "y_valid"},
            {"y_ready_i", "y_ready"},
            {"y_data_o", "y_data"},
            {"y_rows_o", "y_rows"},
            {"y_last_o", "y_last"},
            {"idle_o", "core_idle"}});
}

// The chain's control (its start, end and errors) and the AXI4 master's fixed signals.
void top_control(SvModule& m) {
  m << R"(  // A chain runs from a start until every side is idle with nothing queued; it ends done,
  // or with the first error: the fetcher's (a descriptor), a read's, a write's. A refused read
  // drops the outputs still to come, and either refusal stops the chain before its next layer.
  assign report = busy_q && fetch_idle && read_idle && feed_idle && write_idle && rq_empty &&
                  fq_empty && wq_empty;
  assign failed = fetch_err || read_err || write_err;
  assign abort  = read_err || write_err;
  assign error_code = fetch_err ? fetch_code : read_err ? CodeBits'(ErrReadResp)
                                                        : CodeBits'(ErrWriteResp);
  assign error_desc = fetch_err ? fetch_desc : read_err ? read_desc : write_desc;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)     busy_q <= 1'b0;
    else if (start)  busy_q <= 1'b1;
    else if (report) busy_q <= 1'b0;
  end

  logic [IdBits-1:0] unused_bid;
  assign unused_bid      = m_axi_bid_i;
  assign m_axi_awid_o    = IdBits'(WriteId);
  assign m_axi_awsize_o  = 3'(SizeCode);
  assign m_axi_awburst_o = 2'b01;
  assign m_axi_awlock_o  = 1'b0;
  assign m_axi_awcache_o = 4'b0011;
  assign m_axi_awprot_o  = 3'b000;
  assign m_axi_awqos_o   = 4'b0000;
  assign m_axi_arsize_o  = 3'(SizeCode);
  assign m_axi_arburst_o = 2'b01;
  assign m_axi_arlock_o  = 1'b0;
  assign m_axi_arcache_o = 4'b0011;
  assign m_axi_arprot_o  = 3'b000;
  assign m_axi_arqos_o   = 4'b0000;
)";
}

SvFile top_module(const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const string name = module_name(c, "axi");
  SvModule m(
      name,
      fmt::format("The OASIS core in a system (docs/axi.md): an AXI4-Lite slave for control and "
                  "status (the register file's window and the registers of regmap.json), an "
                  "AXI4 master of {} data bits that runs a chain of layers from descriptors in "
                  "memory (reads its tables, token and weight records, writes its outputs) and "
                  "an interrupt. The core (oasis_{}_core) is inside, unchanged.",
                  ax.data_bits, c.name));
  top_ports(m, ax);
  top_localparams(m, c, d);
  top_signals(m);
  top_lite_fetch(m, c);
  top_queues(m);
  top_read(m, c);
  top_feed_write(m, c);
  top_core(m, c);
  top_control(m);
  return m.file();
}

}  // namespace
}  // namespace axi_detail

namespace {

using std::string;

class AxiBlock final : public Block {
 public:
  string name() const override { return "axi"; }

  BlockOutput emit(const Config& c) const override {
    const Derived d = derive(c);
    const AxiTiming& ax = d.axi;
    BlockOutput out;
    out.uses = {"core"};
    out.files = {axi_detail::unpack_module(c),   axi_detail::lite_module(c, d),
                 axi_detail::fetch_module(c, d), axi_detail::read_module(c, d),
                 axi_detail::feed_module(c, d),  axi_detail::write_module(c, d),
                 axi_detail::top_module(c, d)};
    out.aux = axi_c_headers(c);
    auto& mf = out.manifest;
    mf["data_bits"] = ax.data_bits;
    mf["data_bytes"] = ax.data_bytes;
    mf["addr_bits"] = ax.addr_bits;
    mf["id_bits"] = ax.id_bits;
    mf["max_burst"] = ax.max_burst;
    mf["outstanding_reads"] = ax.outstanding_reads;
    mf["chain_limit"] = ax.chain_limit;
    mf["read_buffer_beats"] = ax.read_buffer_beats;
    mf["write_buffer_beats"] = ax.write_buffer_beats;
    mf["desc_beats"] = ax.desc_beats;
    mf["table_words"] = ax.table_words;
    mf["table_beats"] = ax.table_beats;
    mf["token_bus_beats"] = ax.token_bus_beats;
    mf["x_parts"] = ax.x_parts;
    mf["x_slots"] = ax.x_slots;
    mf["w_parts"] = ax.w_parts;
    mf["w_slots"] = ax.w_slots;
    mf["scale_beats"] = ax.scale_beats;
    mf["record_beats"] = ax.record_beats;
    mf["record_bytes"] = ax.record_bytes;
    mf["feed_group_cycles"] = ax.feed_group_cycles;
    mf["max_rows"] = ax.max_rows;
    mf["lite_addr_bits"] = kAxiLiteAddrBits;
    mf["regmap"] = "regmap.json";
    mf["c_header"] = fmt::format("oasis_{}_axi.h", c.name);
    auto& parts = mf["parts"] = nlohmann::ordered_json::array();
    for (const auto& [inst, block, role] :
         std::vector<std::tuple<string, string, string>>{{"u_core", "core", "core"},
                                                         {"u_lite", "axi_lite", "axi_lite"},
                                                         {"u_fetch", "axi_fetch", "axi_fetch"},
                                                         {"u_read", "axi_read", "axi_read"},
                                                         {"u_feed", "axi_feed", "axi_feed"},
                                                         {"u_write", "axi_write", "axi_write"}}) {
      parts.push_back({{"instance", inst}, {"module", module_name(c, block)}, {"role", role}});
    }
    mf["memories"] = nlohmann::ordered_json::array(
        {{{"name", "read_buffer"},
          {"what", fmt::format("the read buffer: {} bus beats of {} bits", ax.read_buffer_beats,
                               ax.data_bits)},
          {"bits", int64_t(ax.read_buffer_beats) * ax.data_bits},
          {"registers", {"u_read.u_buf.mem_q"}}},
         {{"name", "write_buffer"},
          {"what", fmt::format("the write buffer: {} bus beats of {} bits and a write enable "
                               "for each of their {} values",
                               ax.write_buffer_beats, ax.data_bits, ax.word_slots)},
          {"bits", int64_t(ax.write_buffer_beats) * (ax.data_bits + ax.word_slots)},
          {"registers", {"u_write.u_buf.mem_q"}}}});
    return out;
  }
};

OASIS_REGISTER_BLOCK(AxiBlock);

}  // namespace
}  // namespace oasis::gen
