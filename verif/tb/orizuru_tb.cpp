// SPDX-License-Identifier: Apache-2.0
// Checks the generated Orizuru engine against its cycle model
// (model/cycle/orizuru_cycle.hpp, values from orizuru_topk) every cycle: in_ready,
// out_valid and, while valid, the outlier's side, value bits and channel.
// Stimulus: directed tokens (all equal, signed zeros, several -Inf, NaNs,
// subnormals, duplicates straddling the k-th place, ramps), then seeded
// random tokens, first under random input gaps and output backpressure, then
// with the input always valid and the output always ready, where it measures
// the sustained output rate and the cycles per token.
// With --workload (docs/workload.md) the directed and random tokens are left out: after reset,
// the tokens' x̂ of the layer of verif/workload.hpp (what the core gives Orizuru) run as the
// steady phase, every check on, the steady phase's figures included; beats beyond the token's
// channels carry +0.
// topk_baseline_tb.cpp compiles this file for the baseline block.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <type_traits>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/orizuru_cycle.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

#ifndef OASIS_TOPK_BASELINE
#define OASIS_TOPK_BASELINE 0
#endif
#ifndef OASIS_TOPK_SORT
#define OASIS_TOPK_SORT 0
#endif

namespace {

using oasis::Fp16;

#ifdef OASIS_TOPK_BLOCK
constexpr const char* kBlock = OASIS_TOPK_BLOCK;
#else
constexpr const char* kBlock = OASIS_TOPK_BASELINE ? "topk_baseline" : "orizuru";
#endif

template <class T>
void drive_beat(T& port, const std::vector<Fp16>& beat) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t v = 0;
    for (size_t i = 0; i < beat.size(); ++i) v |= uint64_t(beat[i].bits) << (16 * i);
    port = T(v);
  } else {
    for (size_t w = 0; w < beat.size() / 2; ++w) {
      port[w] = uint32_t(beat[2 * w].bits) | (uint32_t(beat[2 * w + 1].bits) << 16);
    }
  }
}

const uint16_t kSpecials[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01,
                              0xFFFF, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x3C00, 0xBC00};

// The test: the DUT and its cycle model, the tokens (directed, random, steady; or the
// workload's) and where the stimulus stands among them, and what the steady phase measured.
struct OrizuruBench {
  OrizuruBench(int argc, char** argv)
      : options(oasis::tb::Options::parse(kBlock, argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        derived(oasis::derive(config)),
        t(OASIS_TOPK_SORT       ? derived.topk_sort_baseline
          : OASIS_TOPK_BASELINE ? derived.topk_baseline
                                : derived.orizuru),
        n(t.channels),
        k(t.k),
        model(t),
        rng(h.rng()),
        beat(size_t(t.beat_activations)) {}

  int run();
  int pick(int m) { return int(rng() % uint64_t(m)); }
  template <class F>
  void token_of(F f);
  void directed_tokens();
  void build_tokens();
  bool drive_inputs(bool steady);
  void check_output(bool out_ready, int token_out, const std::string& ctx);
  void cycle();
  void check_steady_phase();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const oasis::Derived derived;
  const oasis::OrizuruTiming t;
  const int n;
  const int k;
  oasis::OrizuruCycle model;
  std::mt19937_64& rng;

  std::vector<std::vector<Fp16>> tokens;
  std::optional<oasis::tb::Workload> workload;
  int directed = 0, random_tokens = 0, steady_tokens = 0, total = 0, steady_from = 0;
  oasis::tb::WorkloadWindow window;

  int next_token = 0, next_beat = 0;  // stimulus position
  bool in_valid = false;
  std::vector<Fp16> beat;
  uint64_t outputs_checked = 0;
  // Sustained-rate measurement on the steady tokens.
  uint64_t steady_first_out = 0, steady_last_out = 0, steady_outputs = 0;
  uint64_t token_start_cycle = 0, steady_token_cycles = 0;
  int steady_token_count = 0;
};

template <class F>
void OrizuruBench::token_of(F f) {
  std::vector<Fp16> x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) x[size_t(i)] = Fp16{uint16_t(f(i))};
  tokens.push_back(x);
}

void OrizuruBench::directed_tokens() {
  for (uint16_t v : {0x3C00, 0x0000, 0xFC00, 0x7E00}) token_of([&](int) { return v; });
  token_of([&](int i) { return i % 2 ? 0x8000 : 0x0000; });           // +0 / -0
  token_of([&](int i) { return i % 3 ? 0xFC00 : 0x7C00; });           // mostly -Inf
  token_of([&](int i) { return i % 4 == 1 ? 0xFC00 : 0x3800 + i; });  // several -Inf
  token_of([&](int i) { return kSpecials[size_t(i) % std::size(kSpecials)]; });
  token_of([&](int i) { return i % 2 ? 0x7E00 + i : 0xFE00 + i; });         // NaNs, payloads
  token_of([&](int i) { return (i % 2 ? 0x8000 : 0) | (1 + i % 0x3FF); });  // subnormals
  token_of([&](int i) { return 0x2000 + i; });                              // ascending
  token_of([&](int i) { return 0x6000 - i; });                              // descending
  // Duplicates straddling the k-th place on both sides: k-1 distinct big
  // values, then copies of one value across places k and k+1, likewise below.
  token_of([&](int i) {
    if (i < k - 1) return 0x5000 + i;
    if (i < k + 2) return 0x4800;
    if (i >= n - (k - 1)) return 0xD000 + i % 256;
    if (i >= n - (k + 2)) return 0xC800;
    return 0x3000 + i % 64;
  });
}

// Directed tokens (or the workload's), then the random ones and the steady phase's.
void OrizuruBench::build_tokens() {
  if (options.workload) {
    workload = oasis::tb::build_workload(config, options);
    for (const oasis::PreparedToken& p : workload->prepared) tokens.push_back(p.xhat);
  }
  if (!options.workload) directed_tokens();
  directed = options.workload ? 0 : int(tokens.size());
  random_tokens = options.workload ? 0 : options.vectors ? int(options.vectors) : 60;
  steady_tokens = options.workload ? int(tokens.size()) : 4;
  for (int r = 0; r < (options.workload ? 0 : random_tokens + steady_tokens); ++r) {
    const int mode = pick(3);
    token_of([&](int) -> int {
      if (mode == 0) return int(rng() & 0xFFFF);
      if (mode == 1) return 0x3C00 + pick(4);  // many ties
      return kSpecials[size_t(pick(int(std::size(kSpecials))))];
    });
  }
  total = int(tokens.size());
  steady_from = total - steady_tokens;
}

// This cycle's inputs; a raised valid holds with its beat until taken. The output's ready.
bool OrizuruBench::drive_inputs(bool steady) {
  if (!in_valid && next_token < total && (steady || h.coin(0.7))) {
    const auto& x = tokens[size_t(next_token)];
    for (int i = 0; i < t.beat_activations; ++i) {
      const int ch = next_beat * t.beat_activations + i;
      beat[size_t(i)] = ch < n             ? x[size_t(ch)]
                        : options.workload ? Fp16{0}
                                           : Fp16{uint16_t(h.random_bits(16))};
    }
    in_valid = true;
  }
  const bool out_ready = steady || h.coin(0.6);
  dut.in_valid_i = in_valid;
  drive_beat(dut.in_data_i, beat);
  dut.out_ready_i = out_ready;
  return out_ready;
}

// A valid outlier against the cycle model; counted when taken, in the steady phase too.
void OrizuruBench::check_output(bool out_ready, int token_out, const std::string& ctx) {
  const auto& o = model.out();
  const uint64_t got = dut.out_data_o;
  const int cw = t.channel_bits;
  h.check("out.side", o.min_side, (got >> (cw + 16)) & 1, ctx);
  h.check("out.value", o.value.bits, (got >> cw) & 0xFFFF, ctx);
  h.check("out.channel", uint64_t(o.channel), got & ((uint64_t{1} << cw) - 1), ctx);
  if (out_ready) {
    ++outputs_checked;
    h.scoreboard().count_vector();
    if (token_out >= steady_from) {
      if (steady_outputs == 0) steady_first_out = h.cycle();
      steady_last_out = h.cycle();
      ++steady_outputs;
    }
  }
}

void OrizuruBench::cycle() {
  // Steady phase: once every other token has been offered, the input is
  // always valid and the output always ready.
  const bool steady = next_token >= steady_from;
  const bool out_ready = drive_inputs(steady);
  h.settle();

  const int token_out = int(model.tokens_done());
  const std::string ctx =
      fmt::format("token {}{}", token_out, token_out < directed ? " (directed)" : "");
  h.check("in_ready_o", model.in_ready(), dut.in_ready_o, ctx);
  h.check("out_valid_o", model.out_valid(), dut.out_valid_o, ctx);
  if (model.out_valid() && dut.out_valid_o) check_output(out_ready, token_out, ctx);
  const bool in_fire = in_valid && model.in_ready();
  if (options.workload) {
    if (in_valid) window.present(h.cycle());
    if (model.out_valid() && dut.out_valid_o && out_ready) window.output(h.cycle());
    if (in_fire) window.busy();
  }
  if (in_fire && next_beat == 0 && next_token > steady_from) {
    // Token boundary in the steady phase: cycles from one first beat to the next.
    steady_token_cycles += h.cycle() - token_start_cycle;
    ++steady_token_count;
  }
  if (in_fire && next_beat == 0) token_start_cycle = h.cycle();
  model.step(in_valid, beat, out_ready);
  h.step();
  if (in_fire) {
    in_valid = false;
    if (++next_beat == t.beats) {
      next_beat = 0;
      ++next_token;
    }
  }
}

// With the output always ready the steady tokens' 2k outputs, token by
// token, span the manifest's drain cycles each: consecutive cycles while a
// pop takes at most two (the sides alternate), else pairs pop_cycles apart.
void OrizuruBench::check_steady_phase() {
  if (steady_outputs != uint64_t(2 * k * steady_tokens)) {
    h.fail(fmt::format("steady phase: {} outputs, expected {}", steady_outputs,
                       2 * k * steady_tokens));
  }
  const uint64_t span = steady_last_out - steady_first_out + 1;
  const uint64_t gaps = uint64_t(steady_tokens - 1) * uint64_t(t.beats + t.build_cycles);
  const uint64_t drains = uint64_t(steady_tokens) * uint64_t(t.drain_cycles);
  if (span != drains + gaps) {
    h.fail(
        fmt::format("steady phase: {} outputs over {} cycles, expected {} drain cycles and {} "
                    "between tokens",
                    steady_outputs, span, drains, gaps));
  }
  const double per_token =
      steady_token_count ? double(steady_token_cycles) / steady_token_count : 0;
  if (steady_token_count && per_token != double(t.cycles_per_token)) {
    h.fail(fmt::format("steady phase: {} cycles per token, the manifest says {}", per_token,
                       t.cycles_per_token));
  }
  fmt::print(
      "{} {}: N={} k={} R={} levels/stage={}: {} tokens ({} directed), {} outliers checked; "
      "steady: {} outliers in {} output cycles, {} cycles per token "
      "({} load + {} build + {} drain, a pop over {} cycle(s))\n",
      kBlock, options.label, n, k, t.unit_inputs, t.levels_per_stage, total, directed,
      outputs_checked, steady_outputs, steady_outputs ? span - gaps : 0, per_token, t.beats,
      t.build_cycles, t.drain_cycles, t.pop_cycles);
  if (options.workload) {
    oasis::tb::report_workload(h, *workload, window, "tokens", uint64_t(workload->tokens));
  }
}

int OrizuruBench::run() {
  build_tokens();
  h.reset();
  const uint64_t limit = uint64_t(total + 2) * uint64_t(t.cycles_per_token) * 20 + 1000;
  while (model.tokens_done() < uint64_t(total) && !h.scoreboard().should_stop()) {
    if (h.cycle() > limit) {
      h.fail(fmt::format("timeout: {} of {} tokens drained", model.tokens_done(), total));
      break;
    }
    cycle();
  }
  check_steady_phase();
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  OrizuruBench bench(argc, argv);
  return bench.run();
}
