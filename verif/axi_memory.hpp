// SPDX-License-Identifier: Apache-2.0
// An AXI4 memory for testbenches (docs/axi.md, The system test): the slave side of an AXI4
// master's five channels over a byte array, cycle by cycle, with a read latency, a read
// bandwidth in bytes a cycle, random back-pressure on AR, AW and W, random gaps in R and B,
// read data of different IDs returned out of order and interleaved, and address ranges that
// answer with SLVERR. It also holds the master to the rules of AMBA AXI4 section A3 every
// cycle: VALID held until READY with the payload stable, whole-bus beats of INCR bursts that
// stay inside 4 KB, WLAST on a burst's last beat and only there, and every byte written inside
// the ranges the test allows. What it finds is a list of violations, one line each.
//
// A cycle: outputs() gives what the memory drives (it depends on its state only), the master
// settles on it, then clock() takes what the master drives and does the cycle's handshakes.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace oasis::tb {

struct AxiMemoryOptions {
  int data_bytes = 16;         ///< bytes of a bus beat
  int read_latency = 8;        ///< cycles from AR taken to its first beat at the earliest
  int write_latency = 4;       ///< cycles from a burst's last W beat to its B at the earliest
  double bytes_per_cycle = 0;  ///< read bandwidth; 0: a beat every cycle
  double ar_stall = 0, aw_stall = 0, w_stall = 0;  ///< probability that READY is low a cycle
  double r_gap = 0, b_gap = 0;  ///< probability that no new R beat or B is offered a cycle
  bool reorder = false;         ///< R beats of different IDs in any order, interleaved
  uint64_t seed = 1;
};

/// What the master drives in a cycle (its outputs, settled).
struct AxiMasterSignals {
  bool arvalid = false;
  uint64_t arid = 0, araddr = 0;
  int arlen = 0, arsize = 0, arburst = 0;
  bool awvalid = false;
  uint64_t awid = 0, awaddr = 0;
  int awlen = 0, awsize = 0, awburst = 0;
  bool wvalid = false;
  std::vector<uint8_t> wdata;  ///< data_bytes bytes
  std::vector<bool> wstrb;     ///< data_bytes strobes
  bool wlast = false;
  bool rready = false, bready = false;
};

/// What the memory drives in a cycle.
struct AxiSlaveSignals {
  bool arready = false, awready = false, wready = false;
  bool rvalid = false;
  uint64_t rid = 0;
  std::vector<uint8_t> rdata;
  int rresp = 0;
  bool rlast = false;
  bool bvalid = false;
  uint64_t bid = 0;
  int bresp = 0;
};

class AxiMemory {
 public:
  /// `bytes` bytes at bus addresses [base, base + bytes), all zero.
  AxiMemory(uint64_t base, uint64_t bytes, const AxiMemoryOptions& options);

  /// The host's view of bus address `addr` (inside the memory).
  uint8_t* host(uint64_t addr);
  uint64_t base() const { return base_; }
  uint64_t size() const { return uint64_t(mem_.size()); }
  /// New timing options from the next cycle on (the bytes stay).
  void set_options(const AxiMemoryOptions& options);

  /// Writes are allowed to bytes of these ranges only; any other byte written is a violation.
  void allow_writes(uint64_t addr, uint64_t bytes);
  void forbid_writes() { allowed_.clear(); }
  /// Reads of a burst that touches [addr, addr + bytes) answer `resp` (2 SLVERR, 3 DECERR),
  /// writes too (their data is not written).
  void fail_reads(uint64_t addr, uint64_t bytes, int resp);
  void fail_writes(uint64_t addr, uint64_t bytes, int resp);
  void clear_failures();

  /// This cycle's outputs (the same until clock()). WREADY is high only while a write burst's
  /// AW has been taken and its W beats are due: this memory takes W after its AW, which the
  /// masters it serves do.
  AxiSlaveSignals outputs();
  void clock(const AxiMasterSignals& m);

  /// Nothing in flight: every burst taken has been answered.
  bool quiet() const;
  uint64_t cycle() const { return cycle_; }
  const std::vector<std::string>& violations() const { return violations_; }
  /// Counts since construction.
  uint64_t read_beats() const { return read_beats_; }
  uint64_t write_beats() const { return write_beats_; }
  uint64_t bytes_written() const { return bytes_written_; }
  /// R beats that came in another order than their bursts were issued (across IDs).
  uint64_t reordered_beats() const { return reordered_; }

 private:
  struct Burst {
    uint64_t id, addr;
    int beats, done = 0;
    uint64_t due;  ///< cycle from which its first beat (or its B) may go
    uint64_t serial;
    int resp = 0;
  };
  void violation(const std::string& what);
  void check_address(const char* ch, uint64_t addr, int len, int size, int burst);
  int failure(const std::vector<std::pair<uint64_t, std::pair<uint64_t, int>>>& ranges,
              uint64_t addr, uint64_t bytes) const;
  bool coin(double p) { return p > 0 && std::bernoulli_distribution(p)(rng_); }

  uint64_t base_;
  std::vector<uint8_t> mem_;
  AxiMemoryOptions o_;
  std::mt19937_64 rng_;
  double credit_ = 0;  ///< read bandwidth banked, bytes (at most a beat)
  uint64_t cycle_ = 0, serial_ = 0;
  // The master's channels last cycle, for the stability rules.
  AxiMasterSignals last_;
  bool ar_pending_ = false, aw_pending_ = false, w_pending_ = false;
  AxiSlaveSignals out_;  ///< this cycle's outputs (computed once)
  bool out_ready_ = false;
  // Reads: per ID, bursts in order; the beat presented.
  std::map<uint64_t, std::deque<Burst>> reads_;
  bool r_holding_ = false;
  uint64_t r_id_ = 0;
  // Writes: bursts whose W beats are due, in order; then their B responses.
  std::deque<Burst> aw_;
  std::deque<Burst> b_;
  bool b_holding_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> allowed_;
  std::vector<std::pair<uint64_t, std::pair<uint64_t, int>>> read_fail_, write_fail_;
  std::vector<std::string> violations_;
  uint64_t read_beats_ = 0, write_beats_ = 0, bytes_written_ = 0, reordered_ = 0;
};

}  // namespace oasis::tb
