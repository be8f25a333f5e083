// SPDX-License-Identifier: Apache-2.0
// The system test of the wrapper (block axi, docs/axi.md): the generated oasis_<name>_axi in
// Verilator between a C++ AXI4 memory (verif/axi_memory.hpp: latency, bandwidth, random
// back-pressure on every channel, read data out of order across IDs, error ranges, every write
// checked against the buffers allowed) and an AXI4-Lite master driven by the C program of
// verif/tb/axi_tb.c, which uses the generated C driver alone: each register access it makes
// steps the simulation until its response (the shim below). Every output the wrapper writes is
// compared with the golden model (LutGemm, from the layer's codebooks, token and weights alone).
//
// Every cycle: the memory's checks of the master (VALID held, payload stable, INCR bursts of
// whole beats inside 4 KB, WLAST on the last beat only, writes inside the output buffers), the
// AXI4-Lite slave's (BVALID and RVALID held with their payload until taken, no response without
// its request) and that no handshake output of the wrapper follows a handshake input in the
// same cycle (every such input flipped, the design evaluated again, the outputs compared).
//
// Stimulus: the register map's constant registers and the register file's window (refused
// accesses answered SLVERR); a layer from memory, tables through the registers, polled; a
// chain of three layers on one token (q, k, v) with their tables loaded by the descriptors,
// waited for with the interrupt; the same chain under three memory seeds of random
// back-pressure and reordering, whose cycles must differ from the unthrottled run and whose
// outputs must not; bad commands, each of which must set its error code, raise the interrupt
// and write nothing outside the output buffers; and a layer's cycles against the performance
// model (model/perf/perf.hpp, layer_perf) at the same bytes a cycle. `--vectors 1` runs the
// registers and the first layer only (the Icarus replay's recording).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/axi.hpp"
#include "model/derived.hpp"
#include "model/numerics/fp.hpp"
#include "model/perf/perf.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/axi_memory.hpp"
#include "verif/harness/harness.hpp"
#include "verif/random_layer.hpp"
#include "verif/tb/axi_tb_sw.h"

namespace {

using oasis::AxiDescriptor;
using oasis::Fp16;
using oasis::tb::AxiMemory;
using oasis::tb::AxiMemoryOptions;
using oasis::tb::get_bits;
using oasis::tb::set_bits;
using Harness = oasis::tb::Harness<Vdut>;

constexpr uint64_t kMemBase = 0x10000000;    // the memory's first bus address
constexpr uint64_t kMemBytes = 8u << 20;     // its size
constexpr uint64_t kMaxCycles = 50'000'000;  // a run that goes on longer is stuck
constexpr uint64_t kStuckCycles = 20'000;    // a chain that moves no memory channel so long
constexpr uint64_t kLiteCycles = 1'000;      // an AXI4-Lite access answered no later
constexpr int kOkay = 0, kSlverr = 2;

// The DUT between the memory and the AXI4-Lite master, a cycle at a time, with the checks of
// every cycle.
class System {
 public:
  System(Harness& h, const oasis::Config& c, const AxiMemoryOptions& mo)
      : h_(h), dut_(h.dut()), d_(oasis::derive(c)), mem_(kMemBase, kMemBytes, mo) {}

  AxiMemory& mem() { return mem_; }
  /// Called once a chain is laid out, before it starts: a bad command's corruption.
  std::function<void(const axi_sw_result&)> corrupt;
  Vdut& dut() { return dut_; }
  /// Probability that the AXI4-Lite master holds a VALID back or a READY low a cycle.
  double lite_stall = 0;
  /// CTRL and STATUS: from a start to a STATUS read without busy, a chain runs, and a run
  /// without a handshake on the memory's channels for kStuckCycles cycles is stuck.
  uint32_t ctrl_offset = 0, status_offset = 0;

  void tick() {
    const oasis::tb::AxiSlaveSignals s = mem_.outputs();
    dut_.m_axi_arready_i = s.arready;
    dut_.m_axi_awready_i = s.awready;
    dut_.m_axi_wready_i = s.wready;
    dut_.m_axi_rvalid_i = s.rvalid;
    dut_.m_axi_rid_i = uint8_t(s.rid);
    for (int i = 0; i < d_.axi.data_bytes; ++i) {
      set_bits(dut_.m_axi_rdata_i, 8 * i, 8, s.rdata[size_t(i)]);
    }
    dut_.m_axi_rresp_i = uint8_t(s.rresp);
    dut_.m_axi_rlast_i = s.rlast;
    dut_.m_axi_bvalid_i = s.bvalid;
    dut_.m_axi_bid_i = uint8_t(s.bid);
    dut_.m_axi_bresp_i = uint8_t(s.bresp);
    dut_.s_axil_awvalid_i = aw_.active && aw_.delay == 0;
    dut_.s_axil_awaddr_i = uint16_t(aw_.addr);
    dut_.s_axil_awprot_i = uint8_t(h_.random_bits(3));
    dut_.s_axil_wvalid_i = w_.active && w_.delay == 0;
    dut_.s_axil_wdata_i = w_.data;
    dut_.s_axil_wstrb_i = uint8_t(w_.strb);
    dut_.s_axil_bready_i = want_b_ && !h_.coin(lite_stall);
    dut_.s_axil_arvalid_i = ar_.active && ar_.delay == 0;
    dut_.s_axil_araddr_i = uint16_t(ar_.addr);
    dut_.s_axil_arprot_i = uint8_t(h_.random_bits(3));
    dut_.s_axil_rready_i = want_r_ && !h_.coin(lite_stall);
    h_.settle();
    check_combinational();
    check_lite();
    oasis::tb::AxiMasterSignals m;
    m.arvalid = dut_.m_axi_arvalid_o;
    m.arid = dut_.m_axi_arid_o;
    m.araddr = get_bits(dut_.m_axi_araddr_o, 0, d_.axi.addr_bits);
    m.arlen = dut_.m_axi_arlen_o;
    m.arsize = dut_.m_axi_arsize_o;
    m.arburst = dut_.m_axi_arburst_o;
    m.awvalid = dut_.m_axi_awvalid_o;
    m.awid = dut_.m_axi_awid_o;
    m.awaddr = get_bits(dut_.m_axi_awaddr_o, 0, d_.axi.addr_bits);
    m.awlen = dut_.m_axi_awlen_o;
    m.awsize = dut_.m_axi_awsize_o;
    m.awburst = dut_.m_axi_awburst_o;
    m.wvalid = dut_.m_axi_wvalid_o;
    m.wdata.resize(size_t(d_.axi.data_bytes));
    m.wstrb.resize(size_t(d_.axi.data_bytes));
    for (int i = 0; i < d_.axi.data_bytes; ++i) {
      m.wdata[size_t(i)] = uint8_t(get_bits(dut_.m_axi_wdata_o, 8 * i, 8));
      m.wstrb[size_t(i)] = get_bits(dut_.m_axi_wstrb_o, i, 1) != 0;
    }
    m.wlast = dut_.m_axi_wlast_o;
    m.rready = dut_.m_axi_rready_o;
    m.bready = dut_.m_axi_bready_o;
    // The AXI4-Lite handshakes.
    if (dut_.s_axil_awvalid_i && dut_.s_axil_awready_o) aw_.active = false, ++aw_count_;
    if (dut_.s_axil_wvalid_i && dut_.s_axil_wready_o) w_.active = false, ++w_count_;
    if (dut_.s_axil_arvalid_i && dut_.s_axil_arready_o) ar_.active = false, ++ar_count_;
    if (dut_.s_axil_bvalid_o && dut_.s_axil_bready_i) {
      got_b_ = true;
      bresp_ = dut_.s_axil_bresp_o;
      ++b_count_;
    }
    if (dut_.s_axil_rvalid_o && dut_.s_axil_rready_i) {
      got_r_ = true;
      rdata_ = dut_.s_axil_rdata_o;
      rresp_ = dut_.s_axil_rresp_o;
      ++r_count_;
    }
    if ((m.arvalid && s.arready) || (m.awvalid && s.awready) || (m.wvalid && s.wready) ||
        (s.rvalid && m.rready) || (s.bvalid && m.bready)) {
      last_handshake_ = h_.cycle();
    }
    mem_.clock(m);
    while (reported_ < mem_.violations().size()) h_.fail(mem_.violations()[reported_++]);
    for (Pending* p : {&aw_, &w_, &ar_}) {
      if (p->active && p->delay > 0) --p->delay;
    }
    h_.step();
    if (h_.cycle() > kMaxCycles) stop("the run passed its cycle limit: the system is stuck");
    if (running_ && h_.cycle() - last_handshake_ > kStuckCycles) {
      stop(fmt::format("a chain runs and no memory channel has moved for {} cycles: stuck",
                       kStuckCycles));
    }
    if (h_.scoreboard().should_stop()) stop("too many mismatches");
  }

  /// Writes a register: AW and W offered in either order after random delays; the response.
  int lite_write(uint32_t offset, uint32_t value, uint32_t strb = 0xF) {
    aw_ = {true, delay(), offset};
    w_ = {true, delay(), 0};
    w_.data = value;
    w_.strb = strb;
    want_b_ = true;
    got_b_ = false;
    const uint64_t since = h_.cycle();
    while (aw_.active || w_.active || !got_b_) {
      tick();
      if (h_.cycle() - since > kLiteCycles) stop("an AXI4-Lite write was never answered");
    }
    want_b_ = false;
    if (offset == ctrl_offset && (value & 1) && bresp_ == kOkay) {
      running_ = true;
      last_handshake_ = h_.cycle();
    }
    return bresp_;
  }

  /// Reads a register; its response into *resp when given.
  uint32_t lite_read(uint32_t offset, int* resp = nullptr) {
    ar_ = {true, delay(), offset};
    want_r_ = true;
    got_r_ = false;
    const uint64_t since = h_.cycle();
    while (ar_.active || !got_r_) {
      tick();
      if (h_.cycle() - since > kLiteCycles) stop("an AXI4-Lite read was never answered");
    }
    want_r_ = false;
    if (offset == status_offset && rresp_ == kOkay && !(rdata_ & 1)) running_ = false;
    if (resp) *resp = rresp_;
    return rdata_;
  }

  /// Steps until the interrupt line is high.
  void wait_irq() {
    while (!dut_.irq_o) tick();
  }

  void idle(int cycles) {
    for (int i = 0; i < cycles; ++i) tick();
  }

  /// Ends the run now with the harness's summary (from inside the C program too).
  [[noreturn]] void stop(const std::string& why) {
    h_.fail(why);
    std::fflush(nullptr);
    std::exit(h_.finish());
  }

 private:
  struct Pending {
    bool active = false;
    int delay = 0;
    uint32_t addr = 0;
    uint32_t data = 0, strb = 0;
  };
  int delay() { return h_.coin(lite_stall) ? int(h_.random_bits(2)) : 0; }

  // Every handshake output of the wrapper as it stands.
  std::vector<uint64_t> handshakes() {
    return {dut_.m_axi_arvalid_o,
            dut_.m_axi_awvalid_o,
            dut_.m_axi_wvalid_o,
            dut_.m_axi_wlast_o,
            dut_.m_axi_rready_o,
            dut_.m_axi_bready_o,
            dut_.m_axi_arlen_o,
            dut_.m_axi_awlen_o,
            get_bits(dut_.m_axi_araddr_o, 0, 32),
            get_bits(dut_.m_axi_awaddr_o, 0, 32),
            get_bits(dut_.m_axi_wstrb_o, 0, 8),
            dut_.s_axil_awready_o,
            dut_.s_axil_wready_o,
            dut_.s_axil_arready_o,
            dut_.s_axil_bvalid_o,
            dut_.s_axil_rvalid_o,
            dut_.s_axil_rdata_o,
            dut_.s_axil_bresp_o,
            dut_.s_axil_rresp_o,
            dut_.irq_o};
  }
  // No VALID or READY of the wrapper depends on a VALID or READY coming in within the cycle.
  void check_combinational() {
    const auto before = handshakes();
    const auto flip = [&] {
      dut_.m_axi_arready_i ^= 1;
      dut_.m_axi_awready_i ^= 1;
      dut_.m_axi_wready_i ^= 1;
      dut_.m_axi_rvalid_i ^= 1;
      dut_.m_axi_bvalid_i ^= 1;
      dut_.s_axil_awvalid_i ^= 1;
      dut_.s_axil_wvalid_i ^= 1;
      dut_.s_axil_arvalid_i ^= 1;
      dut_.s_axil_bready_i ^= 1;
      dut_.s_axil_rready_i ^= 1;
    };
    flip();
    dut_.eval();
    const auto after = handshakes();
    flip();
    h_.settle();
    if (before != after) {
      h_.fail(
          "a VALID or READY of the wrapper follows a VALID or READY coming in, combinationally");
    }
  }
  // AXI4-Lite: BVALID and RVALID held with their payload until taken; no response without its
  // request.
  void check_lite() {
    if (b_waiting_ && (!dut_.s_axil_bvalid_o || dut_.s_axil_bresp_o != last_bresp_)) {
      h_.fail("AXI4-Lite: BVALID dropped or BRESP changed before BREADY");
    }
    if (r_waiting_ && (!dut_.s_axil_rvalid_o || dut_.s_axil_rdata_o != last_rdata_ ||
                       dut_.s_axil_rresp_o != last_rresp_)) {
      h_.fail("AXI4-Lite: RVALID dropped or RDATA/RRESP changed before RREADY");
    }
    const uint64_t b_now = b_count_ + (dut_.s_axil_bvalid_o ? 1 : 0);
    const uint64_t r_now = r_count_ + (dut_.s_axil_rvalid_o ? 1 : 0);
    if (b_now > std::min(aw_count_, w_count_))
      h_.fail("AXI4-Lite: a write response without a write");
    if (r_now > ar_count_) h_.fail("AXI4-Lite: read data without a read");
    b_waiting_ = dut_.s_axil_bvalid_o && !dut_.s_axil_bready_i;
    r_waiting_ = dut_.s_axil_rvalid_o && !dut_.s_axil_rready_i;
    last_bresp_ = dut_.s_axil_bresp_o;
    last_rdata_ = dut_.s_axil_rdata_o;
    last_rresp_ = dut_.s_axil_rresp_o;
  }

  Harness& h_;
  Vdut& dut_;
  oasis::Derived d_;
  AxiMemory mem_;
  size_t reported_ = 0;
  bool running_ = false;
  uint64_t last_handshake_ = 0;
  Pending aw_, w_, ar_;
  bool want_b_ = false, want_r_ = false, got_b_ = false, got_r_ = false;
  int bresp_ = 0, rresp_ = 0;
  uint32_t rdata_ = 0;
  uint64_t aw_count_ = 0, w_count_ = 0, ar_count_ = 0, b_count_ = 0, r_count_ = 0;
  bool b_waiting_ = false, r_waiting_ = false;
  int last_bresp_ = 0, last_rresp_ = 0;
  uint32_t last_rdata_ = 0;
};

// The C program's view of the device: each access steps the simulation (the shim).
uint32_t shim_read32(void* ctx, uintptr_t addr) {
  return static_cast<System*>(ctx)->lite_read(uint32_t(addr));
}
void shim_write32(void* ctx, uintptr_t addr, uint32_t value) {
  static_cast<System*>(ctx)->lite_write(uint32_t(addr), value);
}
void shim_wait_irq(void* ctx) { static_cast<System*>(ctx)->wait_irq(); }
// Once the chain is laid out: its outputs are the only bytes the wrapper may write, and they
// hold 0xFFFF (a NaN no output is: the core's NaNs are 0x7E00) until it writes them.
void shim_laid_out(void* ctx, const axi_sw_result* layout) {
  AxiMemory& mem = static_cast<System*>(ctx)->mem();
  mem.forbid_writes();
  for (uint32_t i = 0; i < layout->layers; ++i) {
    const uint64_t bytes = oasis::axi_output_bytes(layout->rows[i]);
    mem.allow_writes(layout->output[i], bytes);
    std::fill_n(mem.host(layout->output[i]), bytes, uint8_t(0xFF));
  }
  System* sys = static_cast<System*>(ctx);
  if (sys->corrupt) sys->corrupt(*layout);
}

// Bytes of a descriptor in memory.
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
void put_le(uint8_t* p, int bytes, uint64_t v) {
  for (int i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * i));
}
AxiDescriptor decode_descriptor(const uint8_t* b) {
  AxiDescriptor d;
  d.next = get_le(b + 0x00, 8);
  d.tables = get_le(b + 0x08, 8);
  d.token = get_le(b + 0x10, 8);
  d.weights = get_le(b + 0x18, 8);
  d.output = get_le(b + 0x20, 8);
  d.channels = uint32_t(get_le(b + 0x28, 4));
  d.rows = uint32_t(get_le(b + 0x2C, 4));
  d.group_stride = uint32_t(get_le(b + 0x30, 4));
  d.token_scale = uint16_t(get_le(b + 0x34, 2));
  d.flags = uint16_t(get_le(b + 0x36, 2));
  d.tag = uint32_t(get_le(b + 0x38, 4));
  d.reserved = uint32_t(get_le(b + 0x3C, 4));
  return d;
}

// A layer of the test: random codebooks and weights, its tables as the driver takes them.
struct Layer {
  oasis::LutGemm gemm;
  int rows = 0;
  std::vector<uint8_t> iw;  // rows x K, row by row
  std::vector<uint16_t> sw;
  std::vector<uint16_t> lut, ca, cw, bounds;
  uint32_t stride_pad = 0, tag = 0;

  axi_sw_layer sw_layer() const {
    return {lut.data(),     ca.data(),  cw.data(), bounds.data(), iw.data(), sw.data(),
            uint32_t(rows), stride_pad, tag};
  }
};

std::vector<uint16_t> bits(const std::vector<Fp16>& v) {
  std::vector<uint16_t> b;
  for (Fp16 x : v) b.push_back(x.bits);
  return b;
}

Layer random_layer(Harness& h, const oasis::Config& c, int rows, bool special, uint32_t tag) {
  Layer l{oasis::tb::random_gemm(c, h.rng(), special)};
  l.rows = rows;
  l.tag = tag;
  for (int i = 0; i < rows * c.channels; ++i) l.iw.push_back(uint8_t(h.random_bits(c.weight_bits)));
  for (int n = 0; n < rows; ++n) l.sw.push_back(oasis::tb::moderate(h.rng()).bits);
  l.lut = bits(l.gemm.lut());
  l.ca = bits(l.gemm.act_codebook());
  l.cw = bits(l.gemm.weight_codebook());
  l.bounds = bits(l.gemm.boundaries());
  return l;
}

// A bad command of the test: its name, the error code it must set, and how it is made.
struct Bad {
  std::string name;
  int code;
  int desc;  // the descriptor made bad (0 or 1), -1 for none
  int field, bytes;
  uint64_t value;  // the field's new value (or bits or'ed in: or_bits)
  bool or_bits = false;
  uint64_t start = 0;  // not 0: start here instead of the first descriptor
  int fail = 0;        // 1: the weights' reads fail, 2: the outputs' writes
};

// What the model expects of a bad command: its code, the descriptor it names and the layers
// done before it.
struct BadExpectation {
  int code = -1;
  uint64_t error_desc = 0, layers_before = 0;
};

AxiMemoryOptions unthrottled_memory(const oasis::AxiTiming& ax) {
  AxiMemoryOptions unthrottled;
  unthrottled.data_bytes = ax.data_bytes;
  unthrottled.read_latency = 6;
  unthrottled.write_latency = 3;
  return unthrottled;
}

// The test: the system, the C driver's environment, the token every chain runs on.
struct AxiBench {
  AxiBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("axi", argc, argv)),
        h(options, argc, argv),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        d(oasis::derive(config)),
        ax(d.axi),
        map(oasis::axi_lite_map(config)),
        K(config.channels),
        P(config.pe_lines),
        quick(options.vectors == 1),
        unthrottled(unthrottled_memory(ax)),
        sys(h, config, unthrottled) {
    sys.ctrl_offset = map.reg("ctrl").offset;
    sys.status_offset = map.reg("status").offset;
    h.reset();
    sys.idle(3);
    env.ctx = &sys;
    env.read32 = shim_read32;
    env.write32 = shim_write32;
    env.laid_out = shim_laid_out;
    env.lite_base = 0;
    env.mem = sys.mem().host(kMemBase);
    env.mem_addr = kMemBase;
    env.mem_bytes = kMemBytes;
    // The buffers start three beats before a 4 KB boundary, so that bursts are split at it.
    env.arena_offset = 4096 - 3 * uint64_t(ax.data_bytes);
  }

  int run();
  void check_register_map();
  void check_outputs(const std::vector<Layer>& layers, const axi_sw_result& res,
                     const std::string& what);
  axi_sw_result run_chain(std::vector<Layer>& layers, bool by_registers, bool irq,
                          const std::string& what);
  void backpressure(std::vector<Layer>& qkv, const axi_sw_result& calm);
  std::vector<Bad> bad_commands() const;
  void corrupt(const Bad& b, const axi_sw_result& lay, BadExpectation& e);
  void run_bad(const Bad& b, std::vector<Layer>& pair);
  void bad_command_runs(int rows_bad);
  void perf_against_model();

  const oasis::tb::Options options;
  Harness h;
  const oasis::Config config;
  const oasis::Derived d;
  const oasis::AxiTiming& ax;
  const oasis::AxiLiteMap map;
  const int K, P;
  const bool quick;
  const AxiMemoryOptions unthrottled;
  System sys;
  axi_sw_env env{};
  std::vector<Fp16> xhat;  // the token every chain runs on
  Fp16 scale;
};

// --- The register map: constants, the register file's window, refusals.
void AxiBench::check_register_map() {
  h.check("axi_sw_check (ID, version, config hash through the C driver)", 0,
          uint64_t(axi_sw_check(&env)));
  for (const oasis::AxiRegister& r : map.registers) {
    if (!r.constant) continue;
    int resp = -1;
    h.check(fmt::format("register {}", r.name), r.value, sys.lite_read(r.offset, &resp));
    h.check(fmt::format("register {} response", r.name), kOkay, uint64_t(resp));
  }
  const uint64_t hash = std::stoull(oasis::config_hash(config), nullptr, 16);
  for (int i = 0; i < 4; ++i) {
    h.check("config hash through the register file's window", uint16_t(hash >> (16 * i)),
            sys.lite_read(oasis::kAxiRegfileStride * (0x1FC + i)));
  }
  const uint32_t lut3 = oasis::kAxiRegfileStride * 3;
  h.check("window write", kOkay, uint64_t(sys.lite_write(lut3, 0xABCD1234)));
  h.check("window read back (bits 15:0)", 0x1234, sys.lite_read(lut3));
  h.check("window write of one byte: refused", kSlverr, uint64_t(sys.lite_write(lut3, 1, 0x1)));
  int resp = -1;
  sys.lite_read(0x802, &resp);
  h.check("unaligned read: refused", kSlverr, uint64_t(resp));
  sys.lite_read(0xFFC, &resp);
  h.check("unmapped read: refused", kSlverr, uint64_t(resp));
  h.check("read-only write: refused", kSlverr,
          uint64_t(sys.lite_write(map.reg("status").offset, 0)));
  h.check("desc_addr_lo write", kOkay,
          uint64_t(sys.lite_write(map.reg("desc_addr_lo").offset, 0x12345678, 0x3)));
  h.check("desc_addr_lo with two strobes", 0x5678, sys.lite_read(map.reg("desc_addr_lo").offset));
  h.scoreboard().count_vector();
}

// Every output of the chain's layers against the golden model.
void AxiBench::check_outputs(const std::vector<Layer>& layers, const axi_sw_result& res,
                             const std::string& what) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    const oasis::PreparedToken token = l.gemm.prepare_normalized(xhat, scale);
    const uint8_t* out = sys.mem().host(res.output[i]);
    for (int n = 0; n < l.rows; ++n) {
      const Fp16 want = l.gemm.row(token, std::span(l.iw).subspan(size_t(n) * size_t(K), size_t(K)),
                                   Fp16{l.sw[size_t(n)]});
      h.check("output", want.bits, uint64_t(out[2 * n] | out[2 * n + 1] << 8),
              fmt::format("{}: layer {} row {}, the golden model", what, i, n));
      h.scoreboard().count_vector();
    }
  }
}

// Runs `layers` as one chain on the token; the outputs are checked and the status, the
// layers done, the last tag and the weight bytes read must be the chain's.
axi_sw_result AxiBench::run_chain(std::vector<Layer>& layers, bool by_registers, bool irq,
                                  const std::string& what) {
  std::vector<axi_sw_layer> sw;
  for (const Layer& l : layers) sw.push_back(l.sw_layer());
  env.wait_irq = irq ? shim_wait_irq : nullptr;
  axi_sw_result res{};
  const int rc = axi_sw_run(&env, bits(xhat).data(), scale.bits, sw.data(), uint32_t(sw.size()),
                            by_registers ? 1 : 0, &res);
  h.check(what + ": axi_sw_run's status code (0: done)", 0, uint64_t(int64_t(rc)));
  h.check(what + ": status done", 1, (res.status >> map.reg("status").fields[1].lsb) & 1);
  h.check(what + ": layers done", layers.size(), res.layers_done);
  h.check(what + ": last tag", layers.back().tag, res.last_tag);
  uint64_t weight_bytes = 0;
  for (const Layer& l : layers) weight_bytes += uint64_t(d.row_groups(l.rows)) * ax.record_bytes;
  h.check(what + ": weight bytes read", weight_bytes, res.weight_bytes);
  if (res.stall_cycles > res.cycles) h.fail(what + ": more stall cycles than cycles");
  check_outputs(layers, res, what);
  fmt::print("{}: {} layer(s), {} cycles busy, {} weight bytes, {} stall cycles\n", what,
             layers.size(), res.cycles, res.weight_bytes, res.stall_cycles);
  return res;
}

// The same chain under random back-pressure on every channel and reordering, three memory
// seeds: other cycles, the same outputs.
void AxiBench::backpressure(std::vector<Layer>& qkv, const axi_sw_result& calm) {
  uint64_t reordered = 0;
  for (uint64_t s = 0; s < 3; ++s) {
    AxiMemoryOptions o = unthrottled;
    o.seed = options.seed * 1000 + s;
    o.ar_stall = o.aw_stall = o.w_stall = 0.3;
    o.r_gap = o.b_gap = 0.3;
    o.reorder = true;
    o.read_latency = 4 + int(s) * 5;
    sys.mem().set_options(o);
    sys.lite_stall = 0.3;
    const uint64_t before = sys.mem().reordered_beats();
    const axi_sw_result r =
        run_chain(qkv, false, true, fmt::format("q, k, v, memory seed {}", o.seed));
    reordered += sys.mem().reordered_beats() - before;
    if (r.cycles == calm.cycles) {
      h.fail(fmt::format("memory seed {}: back-pressure left the cycles unchanged ({})", o.seed,
                         r.cycles));
    }
  }
  fmt::print("back-pressure and reordering: {} read beats came out of issue order\n", reordered);
  if (reordered == 0) h.fail("no read beat came out of order: reordering was not exercised");
  sys.mem().set_options(unthrottled);
  sys.lite_stall = 0;
}

std::vector<Bad> AxiBench::bad_commands() const {
  const uint64_t beat = uint64_t(ax.data_bytes);
  const uint64_t top = ax.addr_bits >= 64 ? 0 : uint64_t{1} << ax.addr_bits;
  const uint64_t past = top - beat;  // a beat-aligned address whose buffers run past the top
  return {
      {"desc_addr 0", 1, -1, 0, 0, 0, false, 0},
      {"desc_addr not 64-byte aligned", 1, -1, 0, 0, 0, false, kMemBase + 4096 + 32},
      {"desc_addr beyond the address bits", 1, -1, 0, 0, 0, false, top ? top : 1},
      {"reserved flag", 2, 0, 0x36, 2, 4, true},
      {"reserved flag bit 15", 2, 1, 0x36, 2, 0x8000, true},
      {"reserved word", 2, 0, 0x3C, 4, 1},
      {"channels K + 1", 3, 0, 0x28, 4, uint64_t(K + 1)},
      {"channels 0", 3, 1, 0x28, 4, 0},
      {"rows 0", 4, 0, 0x2C, 4, 0},
      {"rows above max_rows", 4, 0, 0x2C, 4, uint64_t(ax.max_rows) + 1},
      {"rows 0 on the chain's second layer", 4, 1, 0x2C, 4, 0},
      {"group_stride shorter than a record", 5, 0, 0x30, 4, uint64_t(ax.record_bytes) - beat},
      {"group_stride not whole beats", 5, 0, 0x30, 4, uint64_t(ax.record_bytes) + 1},
      {"tables 0", 6, 0, 0x08, 8, 0},
      {"tables not beat-aligned", 6, 1, 0x08, 8, kMemBase + 2},
      {"tables past the address space", 6, 0, 0x08, 8, past},
      {"token 0", 7, 0, 0x10, 8, 0},
      {"token not beat-aligned", 7, 0, 0x10, 8, kMemBase + 6},
      {"token past the address space", 7, 1, 0x10, 8, past},
      {"weights 0", 8, 0, 0x18, 8, 0},
      {"weights not beat-aligned", 8, 0, 0x18, 8, kMemBase + beat / 2},
      {"weights past the address space", 8, 0, 0x18, 8, past},
      {"output 0", 9, 0, 0x20, 8, 0},
      {"output not beat-aligned", 9, 1, 0x20, 8, kMemBase + 2},
      {"output past the address space", 9, 0, 0x20, 8, past},
      {"next 0", 10, 0, 0x00, 8, 0},
      {"next not 64-byte aligned", 10, 0, 0x00, 8, kMemBase + 4096 + 16},
      {"next beyond the address bits", 10, 0, 0x00, 8, top ? top : 64},
      {"a loop past the chain limit", 11, 1, 0x36, 2, 1, true},
      {"a weight read answered SLVERR", 12, -1, 0, 0, 0, false, 0, 1},
      {"an output write answered SLVERR", 13, -1, 0, 0, 0, false, 0, 2},
  };
}

// Called once the chain is laid out: makes the command bad, and finds the model's code by
// walking the chain as the wrapper does.
void AxiBench::corrupt(const Bad& b, const axi_sw_result& lay, BadExpectation& e) {
  if (b.desc >= 0) {
    uint8_t* at = sys.mem().host(lay.desc[size_t(b.desc)]) + b.field;
    const uint64_t v = b.or_bits ? get_le(at, b.bytes) | b.value : b.value;
    put_le(at, b.bytes, v);
    if (b.name == "a loop past the chain limit") {
      put_le(sys.mem().host(lay.desc[1]), 8, lay.desc[0]);  // back to the first
    }
  }
  if (b.fail == 1) {
    const AxiDescriptor d0 = decode_descriptor(sys.mem().host(lay.desc[0]));
    sys.mem().fail_reads(d0.weights, 1, kSlverr);
  }
  if (b.fail == 2) sys.mem().fail_writes(lay.output[0], 1, kSlverr);
  // The model's code: walk the chain as the wrapper does.
  if (b.start != 0 || b.name == "desc_addr 0") {
    e.code = oasis::axi_check_start(config, b.start);
    e.error_desc = b.start;
    return;
  }
  if (b.fail == 1) e.code = 12, e.error_desc = lay.desc[0];
  if (b.fail == 2) e.code = 13, e.error_desc = lay.desc[0];
  if (b.fail != 0) return;
  uint64_t at = lay.desc[0];
  for (uint64_t pos = 1; pos <= uint64_t(ax.chain_limit) + 1; ++pos) {
    const AxiDescriptor d = decode_descriptor(sys.mem().host(at));
    const int code = oasis::axi_check_descriptor(config, d, pos);
    if (code != 0 || !(d.flags & oasis::kAxiFlagChain)) {
      e.code = code;
      e.error_desc = at;
      break;
    }
    ++e.layers_before;
    at = d.next;
  }
}

// One bad command: its error code, STATUS, the interrupt raised and cleared.
void AxiBench::run_bad(const Bad& b, std::vector<Layer>& pair) {
  const uint32_t map_irq_en = map.reg("irq_enable").offset;
  const uint32_t map_irq_st = map.reg("irq_status").offset;
  const std::string what = "bad command '" + b.name + "'";
  BadExpectation e;
  sys.corrupt = [&](const axi_sw_result& lay) { corrupt(b, lay, e); };
  sys.lite_write(map_irq_en, 2);  // the error event only
  sys.lite_write(map_irq_st, 3);
  env.wait_irq = nullptr;
  std::vector<axi_sw_layer> sw;
  for (const Layer& l : pair) sw.push_back(l.sw_layer());
  axi_sw_result res{};
  int rc;
  if (b.start != 0 || b.name == "desc_addr 0") {
    // A bad start: nothing may be written at all.
    sys.mem().forbid_writes();
    sys.corrupt(res);
    rc = axi_sw_start(&env, b.start, &res);
  } else {
    rc = axi_sw_run(&env, bits(xhat).data(), scale.bits, sw.data(), uint32_t(sw.size()), 0, &res);
  }
  sys.corrupt = nullptr;
  h.check(what + ": the model's code", uint64_t(b.code), uint64_t(int64_t(e.code)));
  h.check(what + ": the error code returned", uint64_t(b.code), uint64_t(int64_t(rc)));
  h.check(what + ": STATUS.error", 1, (res.status >> 2) & 1);
  h.check(what + ": STATUS.done", 0, (res.status >> 1) & 1);
  h.check(what + ": STATUS.code", uint64_t(b.code), (res.status >> 8) & 0xFF);
  h.check(what + ": error_desc", e.error_desc, res.error_desc);
  if (b.fail == 0) h.check(what + ": layers done before it", e.layers_before, res.layers_done);
  sys.idle(2);
  h.check(what + ": irq_o", 1, uint64_t(sys.dut().irq_o));
  h.check(what + ": irq_status.error", 1, (sys.lite_read(map_irq_st) >> 1) & 1);
  sys.lite_write(map_irq_st, 3);
  sys.idle(2);
  h.check(what + ": irq_o once cleared", 0, uint64_t(sys.dut().irq_o));
  sys.mem().clear_failures();
  h.scoreboard().count_vector();
  fmt::print("{}: code {}, {} layer(s) done before it, {} cycles\n", what, rc, res.layers_done,
             res.cycles);
}

// --- Bad commands: each sets STATUS.error with its code (the model's axi_check_start or
// axi_check_descriptor agrees), raises the interrupt, and writes nothing outside the output
// buffers (the memory checks every byte written). A chain of two layers whose tables the
// descriptors load, one field of one descriptor made bad after it is laid out; then starts
// at bad descriptor addresses, a loop past the chain limit and error responses.
void AxiBench::bad_command_runs(int rows_bad) {
  const uint32_t map_irq_en = map.reg("irq_enable").offset;
  const std::vector<Bad> bads = bad_commands();
  std::vector<Layer> pair = {random_layer(h, config, rows_bad, false, 0xB0),
                             random_layer(h, config, P + 1, false, 0xB1)};
  int bad_count = 0;
  for (const Bad& b : bads) {
    run_bad(b, pair);
    ++bad_count;
  }
  sys.lite_write(map_irq_en, 0);
  fmt::print("bad commands: {}, each with its error code and the interrupt\n", bad_count);
  // A good chain after them.
  run_chain(pair, false, true, "a chain after the bad commands");
}

// --- A layer's cycles against the performance model (oasis-perf --bandwidth) at the
// memory's bytes a cycle: unlimited, a quarter of a beat a cycle (the core still bounds the
// rows) and half a byte a cycle (the memory bounds them). The wrapper reads each group's
// record, padded to whole beats (record_bytes), where the model counts the group's bytes
// (group_bytes): the model is given the same useful bytes a cycle, bw group_bytes /
// record_bytes. The rows' cycles must then equal the model's: the cycles of 32 P rows less
// those of 8 P rows are the model's difference exactly. What is left, the layer's fixed
// overhead (the descriptor fetch, the token's read, the outputs' last write and its
// response), must not depend on N: measured - model is the same at both sizes.
void AxiBench::perf_against_model() {
  for (const double bw : {0.0, double(ax.data_bytes) / 4, 0.5}) {
    AxiMemoryOptions o = unthrottled;
    o.bytes_per_cycle = bw;
    sys.mem().set_options(o);
    std::vector<int64_t> measured, model;
    for (const int n : {8 * P, 32 * P}) {
      std::vector<Layer> one = {random_layer(h, config, n, false, 0x90)};
      const axi_sw_result r = run_chain(one, true, false, fmt::format("layer of {} rows", n));
      oasis::PerfOptions po;
      const int64_t group_bytes = oasis::token_figures(config, n).group_bytes;
      po.bytes_per_cycle = bw * double(group_bytes) / double(ax.record_bytes);
      const oasis::LayerPerf lp = oasis::layer_perf(config, n, po);
      measured.push_back(int64_t(r.cycles));
      model.push_back(lp.cycles);
      fmt::print(
          "perf: {} rows at {} bytes a cycle ({} to the model): {} cycles, the model {}, "
          "overhead {}\n",
          n, bw, po.bytes_per_cycle, r.cycles, lp.cycles, int64_t(r.cycles) - lp.cycles);
    }
    h.check(fmt::format("perf at {} bytes a cycle: the rows' cycles (32 P rows less 8 P)", bw),
            uint64_t(model[1] - model[0]), uint64_t(measured[1] - measured[0]));
    h.check(fmt::format("perf at {} bytes a cycle: a fixed overhead, the same at 8 P and 32 P "
                        "rows",
                        bw),
            uint64_t(measured[0] - model[0]), uint64_t(measured[1] - model[1]));
  }
  sys.mem().set_options(unthrottled);
}

int AxiBench::run() {
  check_register_map();

  // --- Runs of layers from memory, every output against the golden model.
  xhat.resize(static_cast<size_t>(K));
  for (auto& v : xhat) v = oasis::tb::moderate(h.rng());
  scale = oasis::tb::moderate(h.rng());

  // A layer whose rows are not a multiple of the lines, tables through the registers, polled.
  const int rows = 2 * P + 1 + (P > 1 ? 0 : 1);
  std::vector<Layer> single = {random_layer(h, config, rows, true, 0x51)};
  run_chain(single, true, false, "one layer, tables through the registers");
  if (quick) return h.finish();

  // q, k, v: three layers on the token, each with its codebooks, loaded by its descriptor, a
  // record stride longer than a record on the second; the interrupt waited for.
  std::vector<Layer> qkv = {random_layer(h, config, rows + 2, false, 0x71),
                            random_layer(h, config, P, true, 0x72),
                            random_layer(h, config, 3 * P - 1 + (P > 1 ? 0 : 2), false, 0x73)};
  qkv[1].stride_pad = uint32_t(2 * ax.data_bytes);
  const axi_sw_result calm = run_chain(qkv, false, true, "q, k, v chained");
  backpressure(qkv, calm);
  bad_command_runs(3 * P);
  perf_against_model();
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  AxiBench bench(argc, argv);
  return bench.run();
}
