// SPDX-License-Identifier: Apache-2.0
#include "verif/axi_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace oasis::tb {

AxiMemory::AxiMemory(uint64_t base, uint64_t bytes, const AxiMemoryOptions& options)
    : base_(base),
      mem_(size_t(bytes), 0),
      o_(options),
      rng_(options.seed),
      credit_(options.data_bytes) {}

uint8_t* AxiMemory::host(uint64_t addr) { return mem_.data() + (addr - base_); }

void AxiMemory::set_options(const AxiMemoryOptions& options) {
  const uint64_t seed = o_.seed;
  o_ = options;
  if (options.seed != seed) rng_.seed(options.seed);
}

void AxiMemory::allow_writes(uint64_t addr, uint64_t bytes) { allowed_.push_back({addr, bytes}); }

void AxiMemory::fail_reads(uint64_t addr, uint64_t bytes, int resp) {
  read_fail_.push_back({addr, {bytes, resp}});
}

void AxiMemory::fail_writes(uint64_t addr, uint64_t bytes, int resp) {
  write_fail_.push_back({addr, {bytes, resp}});
}

void AxiMemory::clear_failures() {
  read_fail_.clear();
  write_fail_.clear();
}

void AxiMemory::violation(const std::string& what) {
  violations_.push_back(fmt::format("cycle {}: {}", cycle_, what));
}

bool AxiMemory::quiet() const {
  for (const auto& [id, q] : reads_) {
    if (!q.empty()) return false;
  }
  return aw_.empty() && b_.empty();
}

int AxiMemory::failure(const std::vector<std::pair<uint64_t, std::pair<uint64_t, int>>>& ranges,
                       uint64_t addr, uint64_t bytes) const {
  if (addr < base_ || addr + bytes > base_ + mem_.size()) return 3;  // DECERR: no memory there
  for (const auto& [at, r] : ranges) {
    if (addr < at + r.first && at < addr + bytes) return r.second;
  }
  return 0;
}

void AxiMemory::check_address(const char* ch, uint64_t addr, int len, int size, int burst) {
  const uint64_t bytes = uint64_t(len + 1) * uint64_t(o_.data_bytes);
  if (size != std::countr_zero(unsigned(o_.data_bytes))) {
    violation(
        fmt::format("{}SIZE {} at 0x{:x}: a beat is {} bytes", ch, size, addr, o_.data_bytes));
  }
  if (burst != 1) violation(fmt::format("{}BURST {} at 0x{:x}: not INCR", ch, burst, addr));
  if (addr % uint64_t(o_.data_bytes) != 0) {
    violation(fmt::format("{}ADDR 0x{:x} is not aligned to a beat", ch, addr));
  }
  if ((addr & 0xFFF) + bytes > 4096) {
    violation(
        fmt::format("{} burst at 0x{:x} of {} beats crosses a 4 KB boundary", ch, addr, len + 1));
  }
}

AxiSlaveSignals AxiMemory::outputs() {
  if (out_ready_) return out_;
  AxiSlaveSignals s;
  s.rdata.assign(size_t(o_.data_bytes), 0);
  s.arready = !coin(o_.ar_stall);
  s.awready = !coin(o_.aw_stall);
  s.wready = !aw_.empty() && !coin(o_.w_stall);
  // R: the beat held, or a new one from a burst that is due.
  if (!r_holding_) {
    const bool bandwidth = o_.bytes_per_cycle <= 0 || credit_ >= o_.data_bytes;
    std::vector<uint64_t> due;
    for (const auto& [id, q] : reads_) {
      if (!q.empty() && q.front().due <= cycle_) due.push_back(id);
    }
    if (bandwidth && !due.empty() && !coin(o_.r_gap)) {
      if (o_.reorder) {
        r_id_ = due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)];
      } else {
        r_id_ = due.front();
        for (uint64_t id : due) {
          if (reads_[id].front().serial < reads_[r_id_].front().serial) r_id_ = id;
        }
      }
      r_holding_ = true;
    }
  }
  if (r_holding_) {
    const Burst& b = reads_[r_id_].front();
    s.rvalid = true;
    s.rid = b.id;
    s.rresp = b.resp;
    s.rlast = b.done + 1 == b.beats;
    if (b.resp == 0) {
      const uint64_t a = b.addr + uint64_t(b.done) * uint64_t(o_.data_bytes);
      std::copy_n(host(a), o_.data_bytes, s.rdata.begin());
    }
  }
  if (!b_holding_ && !b_.empty() && b_.front().due <= cycle_ && !coin(o_.b_gap)) {
    b_holding_ = true;
  }
  if (b_holding_) {
    s.bvalid = true;
    s.bid = b_.front().id;
    s.bresp = b_.front().resp;
  }
  out_ = s;
  out_ready_ = true;
  return out_;
}

void AxiMemory::clock(const AxiMasterSignals& m) {
  const AxiSlaveSignals s = outputs();
  // VALID held until READY, the payload unchanged meanwhile (AMBA AXI4 A3.2.1).
  if (ar_pending_) {
    if (!m.arvalid) violation("ARVALID dropped before ARREADY");
    if (m.arvalid && (m.arid != last_.arid || m.araddr != last_.araddr || m.arlen != last_.arlen ||
                      m.arsize != last_.arsize || m.arburst != last_.arburst)) {
      violation("AR payload changed while ARVALID waited for ARREADY");
    }
  }
  if (aw_pending_) {
    if (!m.awvalid) violation("AWVALID dropped before AWREADY");
    if (m.awvalid && (m.awid != last_.awid || m.awaddr != last_.awaddr || m.awlen != last_.awlen ||
                      m.awsize != last_.awsize || m.awburst != last_.awburst)) {
      violation("AW payload changed while AWVALID waited for AWREADY");
    }
  }
  if (w_pending_) {
    if (!m.wvalid) violation("WVALID dropped before WREADY");
    if (m.wvalid && (m.wdata != last_.wdata || m.wstrb != last_.wstrb || m.wlast != last_.wlast)) {
      violation("W payload changed while WVALID waited for WREADY");
    }
  }
  if (m.arvalid && s.arready) {
    check_address("AR", m.araddr, m.arlen, m.arsize, m.arburst);
    Burst b{m.arid,   m.araddr, m.arlen + 1, 0, cycle_ + uint64_t(std::max(1, o_.read_latency)),
            serial_++};
    b.resp = failure(read_fail_, b.addr, uint64_t(b.beats) * uint64_t(o_.data_bytes));
    reads_[b.id].push_back(b);
  }
  if (m.wvalid && s.wready) {
    Burst& b = aw_.front();
    const bool last = b.done + 1 == b.beats;
    if (m.wlast != last) {
      violation(fmt::format("WLAST {} on beat {} of a {}-beat burst at 0x{:x}", m.wlast ? 1 : 0,
                            b.done + 1, b.beats, b.addr));
    }
    const uint64_t a = b.addr + uint64_t(b.done) * uint64_t(o_.data_bytes);
    for (int i = 0; i < o_.data_bytes; ++i) {
      if (!m.wstrb[size_t(i)]) continue;
      const uint64_t at = a + uint64_t(i);
      const bool ok = std::any_of(allowed_.begin(), allowed_.end(), [&](const auto& r) {
        return at >= r.first && at < r.first + r.second;
      });
      if (!ok) violation(fmt::format("byte 0x{:x} written outside the buffers allowed", at));
      if (b.resp == 0) {
        *host(at) = m.wdata[size_t(i)];
        ++bytes_written_;
      }
    }
    ++write_beats_;
    if (++b.done == b.beats) {
      b.due = cycle_ + uint64_t(std::max(1, o_.write_latency));
      b_.push_back(b);
      aw_.pop_front();
    }
  }
  if (m.awvalid && s.awready) {
    check_address("AW", m.awaddr, m.awlen, m.awsize, m.awburst);
    Burst b{m.awid, m.awaddr, m.awlen + 1, 0, 0, serial_++};
    b.resp = failure(write_fail_, b.addr, uint64_t(b.beats) * uint64_t(o_.data_bytes));
    aw_.push_back(b);
  }
  if (s.rvalid && m.rready) {
    auto& q = reads_[r_id_];
    const uint64_t serial = q.front().serial;
    for (const auto& [id, other] : reads_) {
      if (id != r_id_ && !other.empty() && other.front().serial < serial) {
        ++reordered_;
        break;
      }
    }
    if (++q.front().done == q.front().beats) q.pop_front();
    r_holding_ = false;
    ++read_beats_;
    if (o_.bytes_per_cycle > 0) credit_ -= o_.data_bytes;
  }
  if (s.bvalid && m.bready) {
    b_.pop_front();
    b_holding_ = false;
  }
  if (o_.bytes_per_cycle > 0) {
    credit_ = std::min(credit_ + o_.bytes_per_cycle, double(o_.data_bytes));
  }
  ar_pending_ = m.arvalid && !s.arready;
  aw_pending_ = m.awvalid && !s.awready;
  w_pending_ = m.wvalid && !s.wready;
  last_ = m;
  ++cycle_;
  out_ready_ = false;
}

}  // namespace oasis::tb
