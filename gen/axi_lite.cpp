// SPDX-License-Identifier: Apache-2.0
// The system wrapper's AXI4-Lite slave (_axi_lite): the register file's window and the
// control registers, laid out as model/cycle/axi.hpp's map.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/cycle/axi.hpp"
#include "model/cycle/regfile.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

using std::string;

OASIS_REGISTER_MUTATION("axi.lite_rvalid_dropped",
                        "the AXI4-Lite slave drops RVALID after one cycle when RREADY is low");

namespace {

// A register's value as the read multiplexer gives it: its fields' signals at their bits,
// zeros between, from the map (model/cycle/axi.hpp), so that the RTL's layout is the map's.
string packed(const AxiRegister& r, const std::map<string, string>& signal) {
  std::vector<string> parts;
  int top = kAxiLiteDataBits;
  std::vector<AxiField> fields = r.fields;
  std::sort(fields.begin(), fields.end(),
            [](const AxiField& a, const AxiField& b) { return a.lsb > b.lsb; });
  for (const AxiField& f : fields) {
    if (f.lsb + f.bits < top) parts.push_back(fmt::format("{}'h0", top - f.lsb - f.bits));
    const auto it = signal.find(f.name);
    if (it == signal.end()) {
      throw std::logic_error(
          fmt::format("gen/axi_lite.cpp: no signal for field {}.{}", r.name, f.name));
    }
    parts.push_back(it->second);
    top = f.lsb;
  }
  if (top > 0) parts.push_back(fmt::format("{}'h0", top));
  return "{" + fmt::format("{}", fmt::join(parts, ", ")) + "}";
}

// The two event bits (done, error) of irq_enable and irq_status, at bits 0 and 1.
void check_event_fields(const AxiRegister& r) {
  if (r.fields.size() != 2 || r.fields[0].name != "done" || r.fields[0].lsb != 0 ||
      r.fields[1].name != "error" || r.fields[1].lsb != 1) {
    throw std::logic_error("gen/axi_lite.cpp: register " + r.name + " is not {done, error} at 1:0");
  }
}

// The slave's header widths and its ports: AXI4-Lite, the register port, the chain's events.
void lite_ports(SvModule& m) {
  m.header_localparam("LiteAddrBits", kAxiLiteAddrBits, "Byte-address bits of the window.");
  m.header_localparam("LiteDataBits", kAxiLiteDataBits, "Data bits of the AXI4-Lite port.");
  m.header_localparam("LiteStrbBits", kAxiLiteDataBits / 8, "Byte strobes of a write.");
  m.header_localparam("RegAddrBits", kRegAddrBits, "Bits of a register-file word address.");
  m.header_localparam("RegWordBits", kRegWordBits, "Bits of a register-file word.");
  m.header_localparam("CodeBits", 8, "Bits of an error code.");
  m.header_localparam("WideBits", 64, "Bits of a descriptor address and of a counter.");
  m.header_localparam("TagBits", 32, "Bits of a layer's tag.");
  m.ports(
      kClock +
      std::vector<Port>{
          {"input", 0, "s_axil_awvalid_i", "Write address valid."},
          {"output", 0, "s_axil_awready_o", "Write address ready."},
          {"input", 0, "s_axil_awaddr_i", "Write byte address.", "LiteAddrBits"},
          {"input", 0, "s_axil_awprot_i", "Write protection (not used).", "3"},
          {"input", 0, "s_axil_wvalid_i", "Write data valid."},
          {"output", 0, "s_axil_wready_o", "Write data ready."},
          {"input", 0, "s_axil_wdata_i", "Write data.", "LiteDataBits"},
          {"input", 0, "s_axil_wstrb_i", "Write byte strobes.", "LiteStrbBits"},
          {"output", 0, "s_axil_bvalid_o", "Write response valid."},
          {"input", 0, "s_axil_bready_i", "Write response ready."},
          {"output", 0, "s_axil_bresp_o", "Write response: OKAY, or SLVERR when refused.", "2"},
          {"input", 0, "s_axil_arvalid_i", "Read address valid."},
          {"output", 0, "s_axil_arready_o", "Read address ready."},
          {"input", 0, "s_axil_araddr_i", "Read byte address.", "LiteAddrBits"},
          {"input", 0, "s_axil_arprot_i", "Read protection (not used).", "3"},
          {"output", 0, "s_axil_rvalid_o", "Read data valid."},
          {"input", 0, "s_axil_rready_i", "Read data ready."},
          {"output", 0, "s_axil_rdata_o", "Read data.", "LiteDataBits"},
          {"output", 0, "s_axil_rresp_o", "Read response: OKAY, or SLVERR when refused.", "2"},
          {"output", 0, "reg_we_o", "The core's register port: write strobe."},
          {"output", 0, "reg_re_o", "The core's register port: read strobe."},
          {"output", 0, "reg_addr_o", "The core's register port: word address.", "RegAddrBits"},
          {"output", 0, "reg_wdata_o", "The core's register port: write data.", "RegWordBits"},
          {"input", 0, "reg_rdata_i", "The core's register port: read data, a cycle after.",
           "RegWordBits"},
          {"input", 0, "busy_i", "A chain runs: the register file belongs to it."},
          {"output", 0, "start_o", "START was written while no chain ran: run one now."},
          {"output", 0, "desc_addr_o", "The first descriptor's address (desc_addr).", "WideBits"},
          {"input", 0, "done_i", "The chain ran to its end (a cycle's pulse)."},
          {"input", 0, "error_i", "The chain stopped with an error (a cycle's pulse)."},
          {"input", 0, "error_code_i", "The error's code, with error_i.", "CodeBits"},
          {"input", 0, "error_desc_i", "The descriptor it concerns, with error_i.", "WideBits"},
          {"input", 0, "layer_done_i", "A layer's outputs are all written (a cycle's pulse)."},
          {"input", 0, "layer_tag_i", "Its tag, with layer_done_i.", "TagBits"},
          {"input", 0, "weight_beat_i", "A bus beat of a weight record was taken."},
          {"input", 0, "stall_i", "The core could take a weight beat and had none."},
          {"output", 0, "irq_o", "Interrupt: an enabled event of irq_status is set."}});
}

// The localparams: the window's size and the control registers' offsets, checked against the map.
void lite_localparams(SvModule& m, const AxiLiteMap& map, const Derived& d) {
  m.localparam("WindowBytes", int64_t(map.regfile_words) * kAxiRegfileStride,
               "Bytes of the register file's window, from byte 0.");
  m.localparam("BusBytes", d.axi.data_bytes, "Bytes of a bus beat: a weight beat's count.");
  const AxiRegister& ctrl = map.reg("ctrl");
  const AxiRegister& irq_en = map.reg("irq_enable");
  const AxiRegister& irq_st = map.reg("irq_status");
  check_event_fields(irq_en);
  check_event_fields(irq_st);
  if (ctrl.fields.size() != 1 || ctrl.fields[0].name != "start") {
    throw std::logic_error("gen/axi_lite.cpp: ctrl is not one start bit");
  }
  for (const AxiRegister& r : map.registers) {
    m.localparam(upper_camel(r.name) + "Offset", r.offset,
                 fmt::format("Byte offset of register {}: {}.", r.name, r.meaning));
  }
  m.localparam("StartBit", ctrl.fields[0].lsb, "The start bit of ctrl.");
}

// The read multiplexer's cases: every control register's value at its offset.
string lite_read_cases(const AxiLiteMap& map) {
  const AxiRegister& status = map.reg("status");
  // The read value of every control register.
  const std::map<string, string> status_fields = {
      {"busy", "busy_i"}, {"done", "done_q"}, {"error", "error_q"}, {"code", "code_q"}};
  const std::map<string, string> reads = {{"ctrl", "'0"},
                                          {"status", packed(status, status_fields)},
                                          {"irq_enable", "LiteDataBits'(irq_en_q)"},
                                          {"irq_status", "LiteDataBits'(irq_st_q)"},
                                          {"desc_addr_lo", "desc_q[31:0]"},
                                          {"desc_addr_hi", "desc_q[63:32]"},
                                          {"error_desc_lo", "err_desc_q[31:0]"},
                                          {"error_desc_hi", "err_desc_q[63:32]"},
                                          {"layers_done", "layers_q"},
                                          {"last_tag", "tag_q"},
                                          {"cycles_lo", "cycles_q[31:0]"},
                                          {"cycles_hi", "cycles_q[63:32]"},
                                          {"weight_bytes_lo", "wbytes_q[31:0]"},
                                          {"weight_bytes_hi", "wbytes_q[63:32]"},
                                          {"stall_cycles_lo", "stall_q[31:0]"},
                                          {"stall_cycles_hi", "stall_q[63:32]"}};
  string read_cases;
  for (const AxiRegister& r : map.registers) {
    string value;
    if (r.constant) {
      value = fmt::format("32'h{:08x}", r.value);
    } else {
      const auto it = reads.find(r.name);
      if (it == reads.end()) {
        throw std::logic_error("gen/axi_lite.cpp: no read value for register " + r.name);
      }
      value = it->second;
    }
    read_cases +=
        fmt::format("        LiteAddrBits'({}Offset): rd_word = {};\n", upper_camel(r.name), value);
  }
  return read_cases;
}

// The write decoder's cases: what each writable control register does with a write.
string lite_write_cases(const AxiLiteMap& map) {
  // What each writable register does with a write.
  string write_cases;
  for (const AxiRegister& r : map.registers) {
    const string off = "LiteAddrBits'(" + upper_camel(r.name) + "Offset)";
    if (r.name == "ctrl") {
      write_cases += fmt::format(
          "          {}: begin\n"
          "            if (w_strb_q[StartBit/8] && w_data_q[StartBit]) begin\n"
          "              if (busy_i) bresp_d = Slverr;\n"
          "              else        start_o = 1'b1;\n"
          "            end\n"
          "          end\n",
          off);
    } else if (r.name == "irq_enable") {
      write_cases += fmt::format(
          "          {}:\n"
          "            irq_en_d = (irq_en_q & ~w_mask[1:0]) | (w_data_q[1:0] & w_mask[1:0]);\n",
          off);
    } else if (r.name == "irq_status") {
      write_cases += fmt::format("          {}: irq_clear = w_data_q[1:0] & w_mask[1:0];\n", off);
    } else if (r.name == "desc_addr_lo" || r.name == "desc_addr_hi") {
      const string half = r.name == "desc_addr_lo" ? "31:0" : "63:32";
      write_cases += fmt::format(
          "          {0}:\n            desc_d[{1}] = (desc_q[{1}] & ~w_mask) | (w_data_q & "
          "w_mask);\n",
          off, half);
    } else if (r.access != AxiAccess::kReadOnly) {
      throw std::logic_error("gen/axi_lite.cpp: no write action for register " + r.name);
    }
  }
  return write_cases;
}

// The response codes, the write and read channels' signals and the register file's window.
void lite_channels(SvModule& m) {
  m << fill(R"(
  localparam logic [1:0] Okay   = 2'b00;
  localparam logic [1:0] Slverr = 2'b10;

  // Writes: the address and the data, each held until the write is done in the cycle both are
  // in; the response is held until taken.
  logic                    aw_full_q, w_full_q, bvalid_q, write_now;
  logic [LiteAddrBits-1:0] aw_addr_q;
  logic [LiteDataBits-1:0] w_data_q, w_mask;
  logic [LiteStrbBits-1:0] w_strb_q;
  logic [1:0]              bresp_q, bresp_d;
  assign s_axil_awready_o = !aw_full_q;
  assign s_axil_wready_o  = !w_full_q;
  assign write_now        = aw_full_q && w_full_q && !bvalid_q;
  for (genvar b = 0; b < LiteStrbBits; b++) begin : g_mask
    assign w_mask[b*8 +: 8] = {8{w_strb_q[b]}};
  end

  // Reads: the address taken, the register file read in that cycle, the value captured in the
  // next and held until taken. No read is taken in a cycle that writes (one register port).
  logic                    ar_busy_q, rd_now_q, rd_win_q, rvalid_q, ar_fire;
  logic [LiteAddrBits-1:0] ar_addr_q;
  logic [LiteDataBits-1:0] rdata_q, rdata_d, rd_word;
  logic [1:0]              rresp_q, rresp_d;
  assign s_axil_arready_o = !ar_busy_q && !write_now;
  assign ar_fire          = s_axil_arvalid_i && s_axil_arready_o;

  // The control and status registers.
  logic                 done_q, error_q;
  logic [CodeBits-1:0]  code_q;
  logic [WideBits-1:0]  err_desc_q, desc_q, desc_d, cycles_q, wbytes_q, stall_q;
  logic [1:0]           irq_en_q, irq_en_d, irq_st_q, irq_clear;
  logic [TagBits-1:0]   layers_q, tag_q;

  // The register file's window: word w at byte 4 w.
  logic aw_window, ar_window;
  assign aw_window   = aw_addr_q < LiteAddrBits'(WindowBytes);
  assign ar_window   = s_axil_araddr_i < LiteAddrBits'(WindowBytes);
  assign reg_we_o    = write_now && aw_window && aw_addr_q[1:0] == '0 && !busy_i &&
                       w_strb_q[1:0] == 2'b11;
  assign reg_re_o    = ar_fire && ar_window && s_axil_araddr_i[1:0] == '0 && !busy_i;
  assign reg_addr_o  = write_now ? aw_addr_q[2 +: RegAddrBits] : s_axil_araddr_i[2 +: RegAddrBits];
  assign reg_wdata_o = w_data_q[RegWordBits-1:0];
)",
            {});
}

// The write decoder and the read multiplexer.
void lite_decode(SvModule& m, const string& write_cases, const string& read_cases) {
  m << fill(R"(
  always_comb begin
    bresp_d   = Okay;
    start_o   = 1'b0;
    irq_en_d  = irq_en_q;
    irq_clear = '0;
    desc_d    = desc_q;
    if (write_now) begin
      if (aw_addr_q[1:0] != '0) begin
        bresp_d = Slverr;
      end else if (aw_window) begin
        if (busy_i || w_strb_q[1:0] != 2'b11) bresp_d = Slverr;
      end else begin
        unique case (aw_addr_q)
@@write_cases@@          default: bresp_d = Slverr;
        endcase
      end
    end
  end

  always_comb begin
    rd_word = '0;
    rresp_d = Okay;
    if (ar_addr_q[1:0] != '0) begin
      rresp_d = Slverr;
    end else if (ar_addr_q < LiteAddrBits'(WindowBytes)) begin
      if (rd_win_q) rd_word = {{(LiteDataBits-RegWordBits){1'b0}}, reg_rdata_i};
      else          rresp_d = Slverr;
    end else begin
      unique case (ar_addr_q)
@@read_cases@@        default: rresp_d = Slverr;
      endcase
    end
    rdata_d = rd_word;
  end
)",
            {{"write_cases", write_cases}, {"read_cases", read_cases}});
}

// The channels' registers: the write's address, data and response, the read's value.
void lite_channel_registers(SvModule& m) {
  const bool rvalid_bug = mutated("axi.lite_rvalid_dropped");
  m << fill(R"(
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_full_q <= 1'b0;
      w_full_q  <= 1'b0;
      bvalid_q  <= 1'b0;
      bresp_q   <= Okay;
      aw_addr_q <= '0;
      w_data_q  <= '0;
      w_strb_q  <= '0;
      ar_busy_q <= 1'b0;
      rd_now_q  <= 1'b0;
      rd_win_q  <= 1'b0;
      rvalid_q  <= 1'b0;
      ar_addr_q <= '0;
      rdata_q   <= '0;
      rresp_q   <= Okay;
    end else begin
      if (s_axil_awvalid_i && !aw_full_q) begin
        aw_full_q <= 1'b1;
        aw_addr_q <= s_axil_awaddr_i;
      end else if (write_now) begin
        aw_full_q <= 1'b0;
      end
      if (s_axil_wvalid_i && !w_full_q) begin
        w_full_q <= 1'b1;
        w_data_q <= s_axil_wdata_i;
        w_strb_q <= s_axil_wstrb_i;
      end else if (write_now) begin
        w_full_q <= 1'b0;
      end
      if (write_now) begin
        bvalid_q <= 1'b1;
        bresp_q  <= bresp_d;
      end else if (s_axil_bready_i) begin
        bvalid_q <= 1'b0;
      end
      if (ar_fire) begin
        ar_busy_q <= 1'b1;
        ar_addr_q <= s_axil_araddr_i;
        rd_win_q  <= reg_re_o;
      end
      rd_now_q <= ar_fire;
      if (rd_now_q) begin
        rvalid_q <= 1'b1;
        rdata_q  <= rdata_d;
        rresp_q  <= rresp_d;
      end else if (@@rvalid_clear@@) begin
        rvalid_q  <= 1'b0;
        ar_busy_q <= 1'b0;
      end
    end
  end
)",
            {{"rvalid_clear", rvalid_bug ? "rvalid_q && (s_axil_rready_i || 1'b1)"
                                         : "rvalid_q && s_axil_rready_i"}});
}

// The status, interrupt and counter registers, and the outputs.
void lite_status(SvModule& m) {
  m << fill(R"(
  // Status, interrupts and counters: a start clears them; the events of the chain set them.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_q     <= 1'b0;
      error_q    <= 1'b0;
      code_q     <= '0;
      err_desc_q <= '0;
      irq_en_q   <= '0;
      irq_st_q   <= '0;
      desc_q     <= '0;
      layers_q   <= '0;
      tag_q      <= '0;
      cycles_q   <= '0;
      wbytes_q   <= '0;
      stall_q    <= '0;
    end else begin
      irq_en_q <= irq_en_d;
      desc_q   <= desc_d;
      irq_st_q <= (irq_st_q & ~irq_clear) | {error_i, done_i};
      if (start_o) begin
        done_q   <= 1'b0;
        error_q  <= 1'b0;
        code_q   <= '0;
        layers_q <= '0;
        cycles_q <= '0;
        wbytes_q <= '0;
        stall_q  <= '0;
      end else begin
        if (done_i) done_q <= 1'b1;
        if (error_i) begin
          error_q    <= 1'b1;
          code_q     <= error_code_i;
          err_desc_q <= error_desc_i;
        end
        if (layer_done_i) begin
          layers_q <= layers_q + TagBits'(1);
          tag_q    <= layer_tag_i;
        end
        if (busy_i) cycles_q <= cycles_q + WideBits'(1);
        if (weight_beat_i) wbytes_q <= wbytes_q + WideBits'(BusBytes);
        if (stall_i) stall_q <= stall_q + WideBits'(1);
      end
    end
  end

  logic [2:0] unused_prot;
  assign unused_prot = s_axil_awprot_i ^ s_axil_arprot_i;
  assign s_axil_bvalid_o = bvalid_q;
  assign s_axil_bresp_o  = bresp_q;
  assign s_axil_rvalid_o = rvalid_q;
  assign s_axil_rdata_o  = rdata_q;
  assign s_axil_rresp_o  = rresp_q;
  assign desc_addr_o     = desc_q;
  assign irq_o           = |(irq_st_q & irq_en_q);
)",
            {});
}

}  // namespace

SvFile lite_module(const Config& c, const Derived& d) {
  const AxiLiteMap map = axi_lite_map(c);
  SvModule m(module_name(c, "axi_lite"),
             "The wrapper's AXI4-Lite slave (docs/axi.md, Registers): the core's register file "
             "in a window of 32-bit registers (register-file word w at byte 4 w, bits 15:0; "
             "refused with SLVERR while a chain runs), then the command, status, interrupt, "
             "error and counter registers of regmap.json. A write is done once its address and "
             "data are both in; a read answers two cycles after its address. Every ready and "
             "valid depends on registers only.");
  lite_ports(m);
  lite_localparams(m, map, d);
  const string read_cases = lite_read_cases(map);
  const string write_cases = lite_write_cases(map);
  lite_channels(m);
  lite_decode(m, write_cases, read_cases);
  lite_channel_registers(m);
  lite_status(m);
  m.op("lt", kAxiLiteAddrBits, "aw_window");
  m.op("lt", kAxiLiteAddrBits, "ar_window");
  m.op("mux", kAxiLiteDataBits, "rd_word", int64_t(map.registers.size()));
  m.op("add", 32, "layers_q");
  m.op("add", 64, "cycles_q");
  m.op("add", 64, "wbytes_q");
  m.op("add", 64, "stall_q");
  return m.file();
}

}  // namespace oasis::gen::axi_detail
