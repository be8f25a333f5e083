// SPDX-License-Identifier: Apache-2.0
// The common driver of the floating-point units' testbenches
// (verif/tb/fp16_add_tb.cpp ... uint_to_fp32_tb.cpp): streams operations
// through a generated unit (a combinational core behind oasis_fp_pipe, a fixed
// latency of fp_pipeline_stages cycles with a valid bit, docs/fp_rtl.md) with
// random gaps in in_valid_i, and every cycle checks
//   - out_valid_o against in_valid_i of `latency` cycles before, and
//   - when valid, the result against the model (model/numerics/fp.hpp) and against the
//     host FPU (verif/host_fpu.hpp), both bit for bit.
// A mismatch prints the operands, the expected and the actual result in hex,
// the cycle the operation entered, the cycle it came out and the seed.
// With --workload (docs/workload.md) a testbench runs Runner::workload instead: after the
// reset, the operations the unit does on the layer of verif/workload.hpp (layer_operations),
// back to back, checked the same way.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace oasis::tb::fp {

/// One operation of a unit: its operands (b unused by unary units) and, for
/// the adder, the subtract flag.
struct Operation {
  uint64_t a = 0;
  uint64_t b = 0;
  bool sub = false;
};

/// A stimulus source: sets op and returns true, or returns false when done.
using Source = std::function<bool(Operation&)>;

/// A source over a list of operations.
inline Source each_op(std::vector<Operation> ops) {
  auto v = std::make_shared<std::vector<Operation>>(std::move(ops));
  auto i = std::make_shared<size_t>(0);
  return [v, i](Operation& op) {
    if (*i >= v->size()) return false;
    op = (*v)[(*i)++];
    return true;
  };
}

/// A unit's operand format.
enum class Format { kFp16, kFp32 };

/// What a unit does on the layer of a workload, tokens t, rows n and channels k in order.
enum class LayerOperations {
  kProducts,      ///< x̂[t][k] times C_W[iw[n][k]], operands in the unit's formats a and b
  kProductPairs,  ///< sums of adjacent products (k = 2i, 2i + 1; the first level of a MAC
                  ///< tree), the products in the unit's format a
  kActivations,   ///< x̂[t][k]
  kPartialSums,   ///< a row's binary32 partial sums of its binary32 products, k ascending
  kIndexCounts,   ///< the counts of a row's concatenated indices (ia << nW) | iw
};

/// The operations of `what` on workload `w` (docs/workload.md).
inline std::vector<Operation> layer_operations(const Workload& w, LayerOperations what,
                                               Format a_format = Format::kFp16,
                                               Format b_format = Format::kFp16) {
  const auto operand = [](Fp16 v, Format f) -> uint64_t {
    return f == Format::kFp16 ? v.bits : to_fp32(v).bits;
  };
  // The product in format f: binary16 rounded once, binary32 exact.
  const auto product = [](Fp16 x, Fp16 c, Format f) -> uint64_t {
    return f == Format::kFp16 ? mul(x, c).bits : mul(to_fp32(x), to_fp32(c)).bits;
  };
  std::vector<Operation> ops;
  const int K = w.channels;
  for (int t = 0; t < w.tokens; ++t) {
    const PreparedToken& token = w.prepared[size_t(t)];
    if (what == LayerOperations::kActivations) {
      for (const Fp16 x : token.xhat) ops.push_back({x.bits, 0, false});
      continue;
    }
    for (int n = 0; n < w.rows; ++n) {
      const auto c = w.dequantized_row(n);
      switch (what) {
        case LayerOperations::kProducts:
          for (int k = 0; k < K; ++k) {
            ops.push_back(
                {operand(token.xhat[size_t(k)], a_format), operand(c[size_t(k)], b_format), false});
          }
          break;
        case LayerOperations::kProductPairs:
          for (int k = 0; k + 1 < K; k += 2) {
            ops.push_back({product(token.xhat[size_t(k)], c[size_t(k)], a_format),
                           product(token.xhat[size_t(k + 1)], c[size_t(k + 1)], a_format), false});
          }
          break;
        case LayerOperations::kPartialSums: {
          Fp32 sum{0};
          for (int k = 0; k < K; ++k) {
            const Fp32 p{uint32_t(product(token.xhat[size_t(k)], c[size_t(k)], Format::kFp32))};
            sum = k == 0 ? p : add(sum, p);
            ops.push_back({sum.bits, 0, false});
          }
          break;
        }
        case LayerOperations::kIndexCounts: {
          const LutGemmParams& p = w.model().params();
          for (const uint32_t count :
               index_counts(token.act_index, w.row(n), p.act_bits, p.weight_bits)) {
            ops.push_back({count, 0, false});
          }
          break;
        }
        case LayerOperations::kActivations:
          break;
      }
    }
  }
  return ops;
}

/// Drives a Dut with ports clk_i, rst_ni, in_valid_i, out_valid_o and the
/// unit's own operand and result ports. Unit supplies:
///   void drive(Dut&, const Operation&)            operand ports
///   uint64_t result(const Dut&)                   result port
///   uint64_t model(const Operation&)              model/numerics/fp.hpp
///   uint64_t host(const Operation&)               verif/host_fpu.hpp
///   std::string describe(const Operation&)        operands in hex
///   static constexpr const char* kResult          result port name
template <class Dut, class Unit>
class Runner {
 public:
  Runner(Harness<Dut>& h, Unit unit)
      : h_(h),
        unit_(unit),
        latency_(int(h.options().param("latency_cycles"))),
        ring_(size_t(latency_ + 1)) {
    h_.dut().in_valid_i = 0;
    h_.reset();
  }

  /// Streams every operation of `next` through the unit; a cycle has no
  /// operation with probability `gap` (0 for the exhaustive runs' speed).
  /// Drains the pipeline before it returns.
  void run(const Source& next, double gap) {
    const auto start = std::chrono::steady_clock::now();
    const uint64_t vectors_before = h_.scoreboard().vectors();
    bool more = true;
    while (more && !h_.scoreboard().should_stop()) {
      Operation op;
      if (gap > 0 && h_.coin(gap)) {
        cycle(false, op);
      } else if ((more = next(op))) {
        cycle(true, op);
      }
    }
    // Cycles with no operation until the last result has come out (in workload mode with the
    // operands held as last driven).
    for (int i = 0; i < latency_; ++i) cycle(false, hold_ ? last_ : Operation{});
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    operations_ += h_.scoreboard().vectors() - vectors_before;
  }

  /// --workload: builds the workload, streams `what` (layer_operations) through the unit back
  /// to back and reports the `workload` figure, its window from the cycle of the first
  /// operation to the cycle after the last result.
  void workload(LayerOperations what, Format a_format = Format::kFp16,
                Format b_format = Format::kFp16) {
    const Options& o = h_.options();
    const Workload w = build_workload(parse_config(o.config_json(), o.manifest_path), o);
    const std::vector<Operation> ops = layer_operations(w, what, a_format, b_format);
    WorkloadWindow window;
    window.present(h_.cycle());
    hold_ = true;
    const uint64_t before = operations_;
    run(each_op(ops), 0.0);
    window.output(h_.cycle() - 1);
    window.busy(operations_ - before);
    report_workload(h_, w, window, "operations", operations_ - before);
  }

  /// Prints the checked operations per second of wall time (Verilator, the
  /// model and the host FPU together): the figure make bench reports as operations_per_s
  /// (verif/bench/bench_fp_rtl.cpp).
  void print_rate() const {
    fmt::print("throughput {} config={}: {} operations in {:.3f} s = {:.0f} operations/s\n",
               h_.options().block, h_.options().label, operations_, seconds_,
               seconds_ > 0 ? double(operations_) / seconds_ : 0.0);
  }

 private:
  struct Entry {
    bool valid = false;
    Operation op;
    uint64_t issued = 0;
  };

  // One clock cycle: drive, check what comes out, clock.
  void cycle(bool valid, const Operation& op) {
    Dut& dut = h_.dut();
    if (valid) last_ = op;
    dut.in_valid_i = valid;
    unit_.drive(dut, op);
    // The outputs are read settled on this cycle's inputs, registers or not: a unit whose
    // output follows its inputs a register early (a stage missing) is then seen early.
    h_.settle();
    const uint64_t now = h_.cycle();
    ring_[now % ring_.size()] = Entry{valid, op, now};
    // What entered `latency_` cycles ago comes out now.
    const Entry& e = ring_[(now + 1) % ring_.size()];
    const bool out_valid = dut.out_valid_o;
    if (out_valid == e.valid) {
      h_.check("out_valid_o", e.valid, out_valid);
    } else {
      h_.check("out_valid_o", e.valid, out_valid,
               fmt::format("latency {} cycles; in_valid_i at cycle {} was {}", latency_, e.issued,
                           e.valid ? 1 : 0));
    }
    if (e.valid) {
      const uint64_t got = unit_.result(dut);
      const uint64_t want_model = unit_.model(e.op);
      const uint64_t want_host = unit_.host(e.op);
      if (got == want_model && got == want_host) {
        h_.check(Unit::kResult, want_model, got);
      } else {
        const std::string context =
            fmt::format("{} entered at cycle {}", unit_.describe(e.op), e.issued);
        h_.check(fmt::format("{} vs model", Unit::kResult), want_model, got, context);
        h_.check(fmt::format("{} vs host FPU", Unit::kResult), want_host, got, context);
      }
      h_.scoreboard().count_vector();
    }
    h_.step();
  }

  Harness<Dut>& h_;
  Unit unit_;
  int latency_;
  std::vector<Entry> ring_;
  Operation last_;     ///< the last operation issued
  bool hold_ = false;  ///< idle cycles drive last_ (workload mode) rather than zeros
  uint64_t operations_ = 0;
  double seconds_ = 0;
};

/// A source over a list of values taken as all ordered pairs (a, b), each
/// once with sub = false and, when `with_sub`, once with sub = true.
inline Source pairs_of(std::vector<uint64_t> values, bool with_sub) {
  struct State {
    std::vector<uint64_t> v;
    size_t i = 0, j = 0;
    int s = 0;
  };
  auto st = std::make_shared<State>();
  st->v = std::move(values);
  return [st, with_sub](Operation& op) {
    if (st->i >= st->v.size()) return false;
    op = Operation{st->v[st->i], st->v[st->j], st->s == 1};
    if (++st->s > (with_sub ? 1 : 0)) {
      st->s = 0;
      if (++st->j == st->v.size()) {
        st->j = 0;
        ++st->i;
      }
    }
    return true;
  };
}

/// A source over a list of single operands.
inline Source each_of(std::vector<uint64_t> values) {
  std::vector<Operation> ops;
  for (const uint64_t v : values) ops.push_back({v, 0, false});
  return each_op(std::move(ops));
}

/// A source of n operations made by `make`.
inline Source count_of(uint64_t n, std::function<Operation()> make) {
  auto i = std::make_shared<uint64_t>(0);
  return [n, i, make](Operation& op) {
    if (*i >= n) return false;
    ++*i;
    op = make();
    return true;
  };
}

/// Every value of a `bits`-wide operand (bits <= 32), or every pair of two
/// such operands when `pairs` (bits <= 16). The first operand runs through
/// its values in a spread order (k * an odd constant, a permutation), so that
/// a run stopped early has still seen every kind of first operand; a progress
/// line every 2^24 operations says how far it got (mismatches print at once).
inline Source exhaustive(int bits, bool pairs) {
  auto i = std::make_shared<uint64_t>(0);
  const uint64_t n = pairs ? (uint64_t{1} << (2 * bits)) : (uint64_t{1} << bits);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  return [i, n, bits, pairs, mask](Operation& op) {
    if (*i >= n) return false;
    const uint64_t k = (*i)++;
    const uint64_t first = pairs ? k >> bits : k;
    const uint64_t a = (first * 0x9E3779B1u) & mask;
    op = pairs ? Operation{a, k & mask, false} : Operation{a, 0, false};
    if ((k & 0xFFFFFF) == 0xFFFFFF) {
      fmt::print("exhaustive: {} of {} operations issued\n", k + 1, n);
      std::fflush(stdout);
    }
    return true;
  };
}

}  // namespace oasis::tb::fp
