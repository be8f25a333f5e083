// SPDX-License-Identifier: Apache-2.0
// The Verilator testbench harness every block's check is built on: clock and
// reset, seeded stimulus (SEED=), a scoreboard that compares every cycle and
// reports cycle, seed and config on a mismatch, and waveforms with TRACE=1.
//
// A testbench is a main() that builds a Harness<Vdut>, drives the DUT's
// inputs, calls step() once a cycle and hands expected and actual values to
// check(). The vltest script verilates it against one generated config.
//
// With --record FILE the run also writes, every cycle, the value of every DUT
// input as driven and every output as observed at the clock edge (sim/icarus
// replays the file in Icarus Verilog). The port list comes from Vdut_ports.hpp,
// which sim/vltest writes into the Verilator build folder from the block's
// ports in manifest.json (sim/tools/portcheck --header), so no testbench names
// its ports for this; every name must be a port of the verilated model, and
// every width must fit the type Verilator gave it.
#pragma once

#include <verilated.h>
#if VM_TRACE
#include <verilated_vcd_c.h>
#endif
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "options.hpp"
#include "port_bits.hpp"

#if __has_include("Vdut_ports.hpp")
#include "Vdut_ports.hpp"  // OASIS_DUT_PORTS(X): X(direction, name, width) per port
#endif

namespace oasis::tb {

/// Compares and counts. Every mismatch prints one line with the block,
/// config, seed and cycle, the name of the value and both values in hex.
class Scoreboard {
 public:
  explicit Scoreboard(const Options& options) : options_(options) {}

  /// Returns true when equal. `context` is free text (operands, lane...).
  bool check(uint64_t cycle, std::string_view what, uint64_t expected, uint64_t got,
             std::string_view context = {});
  /// Records a failure that is not a value comparison (a handshake rule).
  void fail(uint64_t cycle, std::string_view message);
  /// One stimulus vector fully checked.
  void count_vector(uint64_t n = 1) { vectors_ += n; }
  uint64_t vectors() const { return vectors_; }
  uint64_t mismatches() const { return mismatches_; }
  bool should_stop() const { return mismatches_ >= uint64_t(options_.max_mismatches); }
  /// A figure the run measured (a latency, a cycle count, an error), for --summary.
  void figure(const std::string& key, nlohmann::ordered_json value) {
    figures_[key] = std::move(value);
  }
  /// Prints the summary, and with --summary writes it as JSON: block, config, seed, pass,
  /// vectors, checks, mismatches and the figures. 0 when at least one vector was checked and
  /// none mismatched, 1 otherwise (a run that checked nothing is a failure).
  int summary() const;

 private:
  const Options& options_;
  nlohmann::ordered_json figures_ = nlohmann::ordered_json::object();
  uint64_t vectors_ = 0;
  uint64_t checks_ = 0;
  uint64_t mismatches_ = 0;
};

/// Writes the vector file of --record: a first line `# ports:` with the
/// ports' direction:name:width in file order, then one line per cycle with
/// each port's value in hex (ceil(width / 4) digits, most significant first),
/// separated by spaces. The clock is not recorded: one line is one cycle.
class Recorder {
 public:
  /// Exits with status 2 when the file cannot be written.
  Recorder(const std::string& path, uint64_t max_cycles);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void declare(std::string_view direction, std::string_view name, int width);
  bool wants_cycle() const { return max_cycles_ == 0 || cycles_ < max_cycles_; }
  /// Appends one port's value to the current line.
  template <class T>
  void put(const T& port, int width) {
    // Whole hex digits from the top, 8 at a time, through get_bits so that
    // narrow (integer) and wide (VlWide) ports take the same path.
    const int digits = (width + 3) / 4;
    if (!line_.empty()) line_ += ' ';
    for (int d = digits; d > 0;) {
      const int n = (d - 1) % 8 + 1;  // digits in this chunk
      const int lsb = 4 * (d - n);
      const int w = std::min(4 * n, width - lsb);
      append_hex(get_bits(port, lsb, w), n);
      d -= n;
    }
  }
  /// Ends the current line (one cycle).
  void end_cycle();
  uint64_t cycles() const { return cycles_; }

 private:
  void append_hex(uint64_t value, int digits);

  std::FILE* file_ = nullptr;
  std::string path_;
  uint64_t max_cycles_ = 0;
  uint64_t cycles_ = 0;
  std::string header_;
  bool header_written_ = false;
  std::string line_;
};

template <class Dut>
class Harness {
 public:
  Harness(const Options& options, int argc, char** argv)
      : options_(options), rng_(options.seed), scoreboard_(options) {
    context_ = std::make_unique<VerilatedContext>();
    context_->commandArgs(argc, argv);
    context_->randReset(2);  // registers and memories start random
    context_->randSeed(int(options.seed & 0x7fffffff));
#if VM_TRACE
    if (options.trace) context_->traceEverOn(true);
#endif
    dut_ = std::make_unique<Dut>(context_.get());
#if VM_TRACE
    if (options.trace) {
      trace_ = std::make_unique<VerilatedVcdC>();
      dut_->trace(trace_.get(), 99);
      trace_->open(options.trace_path.c_str());
    }
#endif
    if constexpr (kClocked) dut_->clk_i = 0;
    dut_->eval();
    snapshot_coverage();
    if (!options.record_path.empty()) open_recorder();
  }

  ~Harness() {
#if VM_TRACE
    if (trace_) trace_->close();
#endif
    dut_->final();
#if VM_COVERAGE
    // Verilator keeps the counts in the context and writes them only when asked.
    context_->coveragep()->write(options_.coverage_path.c_str());
#endif
  }

  Dut& dut() { return *dut_; }
  std::mt19937_64& rng() { return rng_; }
  Scoreboard& scoreboard() { return scoreboard_; }
  const Options& options() const { return options_; }
  uint64_t cycle() const { return cycle_; }
  /// The cycles --record has written (its data lines; 0 when not recording).
  uint64_t recorded_cycles() const { return recorder_ ? recorder_->cycles() : 0; }

  /// True with probability p (stimulus gaps, backpressure).
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }
  uint64_t random_bits(int width) {
    const uint64_t r = rng_();
    return width >= 64 ? r : (r & ((uint64_t{1} << width) - 1));
  }

  /// Holds rst_ni low for `cycles` clock cycles, then releases it.
  void reset(int cycles = 3) {
    static_assert(kClocked, "reset() needs a clocked DUT");
    dut_->rst_ni = 0;
    settled_ = false;  // an input changed: the first step() evaluates it
    for (int i = 0; i < cycles; ++i) step();
    dut_->rst_ni = 1;
    dut_->eval();
    if (!was_reset_) snapshot_coverage();
    was_reset_ = true;
  }

  /// Evaluates combinational logic after the inputs changed, without a clock
  /// edge; the outputs then show this cycle's values. The inputs must not change
  /// again before step().
  void settle() {
    dut_->eval();
    settled_ = true;
  }

  /// One clock cycle: the rising edge takes the inputs driven since the
  /// last step(); the combinational outputs then reflect the new state.
  /// A combinational DUT just advances the cycle count.
  /// Verilator evaluates all logic that depends on inputs at every eval(), whether
  /// they changed or not (half the paper core's time), so step() evaluates only what
  /// it must: the settled inputs (unless settle() did), then the rising edge. The
  /// falling edge is evaluated with the next cycle's inputs, by settle() or the
  /// next step(); no block has logic on it.
  void step() {
    if (!settled_) dut_->eval();
    settled_ = false;
    if (recorder_ && recorder_->wants_cycle()) record();
    dump();
    if constexpr (kClocked) {
      dut_->clk_i = 1;
      dut_->eval();
      dump();
      dut_->clk_i = 0;
    }
    ++cycle_;
  }

  bool check(std::string_view what, uint64_t expected, uint64_t got,
             std::string_view context = {}) {
    return scoreboard_.check(cycle_, what, expected, got, context);
  }
  void fail(std::string_view message) { scoreboard_.fail(cycle_, message); }
  int finish() { return scoreboard_.summary(); }

 private:
  static constexpr bool kClocked = requires(Dut d) { d.clk_i; };

#ifdef OASIS_DUT_PORTS
  /// The bytes Verilator stores a port of `width` bits in: 1, 2, 4 or 8, or
  /// whole 32-bit words beyond 64 bits.
  static constexpr size_t verilated_bytes(int width) {
    return width <= 8    ? 1
           : width <= 16 ? 2
           : width <= 32 ? 4
           : width <= 64 ? 8
                         : 4 * size_t((width + 31) / 32);
  }
#define OASIS_CHECK_PORT(direction, name, width)                                        \
  static_assert(sizeof(std::remove_reference_t<decltype(std::declval<Dut&>().name)>) == \
                    verilated_bytes(width),                                             \
                "Vdut_ports.hpp: the width of port " #name " does not fit the verilated model");
  OASIS_DUT_PORTS(OASIS_CHECK_PORT)
#undef OASIS_CHECK_PORT
#endif

  /// A coverage build also writes the counts as they stand before the
  /// stimulus, to <coverage file>.reset: up to the end of the first reset,
  /// bits toggle because their random initial values (+verilator+rand+reset+2)
  /// change, not because the block did anything; make coverage subtracts them.
  void snapshot_coverage() {
#if VM_COVERAGE
    context_->coveragep()->write((options_.coverage_path + ".reset").c_str());
#endif
  }

  /// The ports as the clock edge sees them: inputs as driven, outputs as
  /// settled on them.
  void record() {
#ifdef OASIS_DUT_PORTS
#define OASIS_RECORD_PORT(direction, name, width) \
  if constexpr (std::string_view(#name) != "clk_i") recorder_->put(dut_->name, width);
    OASIS_DUT_PORTS(OASIS_RECORD_PORT)
#undef OASIS_RECORD_PORT
#endif
    recorder_->end_cycle();
  }

  void open_recorder() {
#ifdef OASIS_DUT_PORTS
    recorder_ = std::make_unique<Recorder>(options_.record_path, options_.record_cycles);
#define OASIS_DECLARE_PORT(direction, name, width) \
  if constexpr (std::string_view(#name) != "clk_i") recorder_->declare(#direction, #name, width);
    OASIS_DUT_PORTS(OASIS_DECLARE_PORT)
#undef OASIS_DECLARE_PORT
#else
    std::fprintf(stderr,
                 "%s_tb: --record needs the port list Vdut_ports.hpp, which sim/vltest "
                 "writes; this build has none\n",
                 options_.block.c_str());
    std::exit(2);
#endif
  }

  void dump() {
    context_->timeInc(1);
#if VM_TRACE
    if (trace_) trace_->dump(context_->time());
#endif
  }

  const Options& options_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Dut> dut_;
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> trace_;
#endif
  std::mt19937_64 rng_;
  Scoreboard scoreboard_;
  std::unique_ptr<Recorder> recorder_;
  uint64_t cycle_ = 0;
  bool was_reset_ = false;
  bool settled_ = false;  ///< settle() evaluated this cycle's inputs
};

}  // namespace oasis::tb
