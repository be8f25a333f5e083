// SPDX-License-Identifier: Apache-2.0
// Checks the generated FP16 dequantize-and-MAC line (gen/baselines.cpp, block
// mac_line_baseline) against its cycle model (model/cycle/mac_line_baseline.hpp)
// every cycle: y_valid and, when valid, y; and every output row against
// mac_line_row computed from the row alone. Stimulus: tokens of random
// activations, codebooks and scales, directed ones with NaN, infinities, zeros
// and subnormals; rows of random indices (some all equal) with random gaps on
// the weight stream (phases of different rates; random indices and scales on
// idle cycles). Last, an unthrottled stream measures the row latency and
// interval and checks them against the manifest.
// With --workload (docs/workload.md) all that is left out: after reset, each token of the
// layer of verif/workload.hpp (x̂, s_a and the weight codebook, set between tokens) and the
// layer's rows stream through unthrottled, every check on; idle weight inputs hold their last
// beat.
#include <fmt/format.h>

#include <deque>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/mac_line_baseline.hpp"
#include "model/derived.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/harness/harness.hpp"
#include "verif/tb/line_tb.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::set_bits;

struct Row {
  std::vector<uint8_t> iw;  ///< K indices
  Fp16 scale;
};

// The test: the DUT and its cycle model, the token's context, the weight beats to send and the
// outputs expected of mac_line_row.
struct MacBench {
  MacBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("mac_line_baseline", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        K(config.channels),
        nW(config.weight_bits),
        acc(config.accumulator),
        model(config),
        tm(model.timing()),
        M(tm.macs),
        held(static_cast<size_t>(M)) {}

  int run();
  Fp16 value(bool special);
  void apply_context();
  void new_context(bool special);
  void push_row(const Row& r);
  void cycle();
  void drain();
  Row random_row(bool same);
  int run_workload();
  void directed();
  void random_phases();
  void measure();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const int K;
  const int nW;
  const oasis::Accumulator acc;
  oasis::MacLineBaseline model;
  const oasis::MacLineTiming& tm;
  const int M;

  std::vector<Fp16> xhat, codebook;
  Fp16 act_scale;
  double gap = 0.3;
  std::deque<std::pair<std::vector<uint8_t>, Fp16>> beats;  // weight beats to send
  oasis::tb::RowOutputs out{"mac_line_row"};                // y of the rows sent
  int64_t last_beat_cycle = -1;
  // Workload mode: the cycles of the run, and the weight inputs as last driven.
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  std::vector<uint8_t> held;
  Fp16 held_scale;
};

// A binary16 value of moderate size (2^-6 .. 2^6), either sign; or, with
// `special`, now and then NaN, an infinity, a zero or a subnormal.
Fp16 MacBench::value(bool special) {
  if (special && h.coin(0.1)) {
    static const uint16_t kSpecial[] = {0x7E00, 0x7C01, 0x7C00, 0xFC00,
                                        0x0000, 0x8000, 0x0001, 0x83FF};
    return Fp16{kSpecial[h.random_bits(3)]};
  }
  const uint16_t exp = uint16_t(9 + h.random_bits(4) % 13);
  return Fp16{uint16_t((h.random_bits(1) << 15) | (exp << 10) | h.random_bits(10))};
}

void MacBench::apply_context() {
  model.set_context(xhat, act_scale, codebook);
  for (int k = 0; k < K; ++k) set_bits(dut.act_i, k * 16, 16, xhat[size_t(k)].bits);
  for (int j = 0; j < (1 << nW); ++j)
    set_bits(dut.weight_codebook_i, j * 16, 16, codebook[size_t(j)].bits);
  dut.act_scale_i = act_scale.bits;
}

void MacBench::new_context(bool special) {
  xhat.resize(size_t(K));
  for (auto& x : xhat) x = value(special);
  codebook.resize(size_t(1) << nW);
  for (auto& c : codebook) c = value(special);
  act_scale = value(false);
  apply_context();
}

void MacBench::push_row(const Row& r) {
  for (int b = 0; b < tm.beats; ++b) {
    std::vector<uint8_t> beat(static_cast<size_t>(M));
    for (int i = 0; i < M; ++i) {
      const int k = b * M + i;
      beat[size_t(i)] = k < K ? r.iw[size_t(k)] : options.workload ? 0 : uint8_t(h.random_bits(nW));
    }
    beats.emplace_back(std::move(beat), r.scale);
  }
  out.expected.push_back(oasis::mac_line_row(xhat, r.iw, codebook, act_scale, r.scale, M,
                                             model.accumulator_slots(), acc));
}

void MacBench::cycle() {
  const bool offer = !beats.empty() && !(gap > 0 && h.coin(gap));
  std::vector<uint8_t> garbage = held;
  if (!options.workload) {
    for (auto& x : garbage) x = uint8_t(h.random_bits(nW));
  }
  const auto& beat = offer ? beats.front().first : garbage;
  const Fp16 scale = offer              ? beats.front().second
                     : options.workload ? held_scale
                                        : Fp16{uint16_t(h.random_bits(16))};
  held = beat;
  held_scale = scale;
  dut.w_valid_i = offer;
  for (int i = 0; i < M; ++i) set_bits(dut.w_data_i, i * nW, nW, beat[size_t(i)]);
  dut.w_scale_i = scale.bits;
  h.settle();
  out.check(h, model.y_valid(), model.y_data(), dut.y_valid_o, dut.y_data_o);
  if (in_window) {
    if (offer) window.present(h.cycle());
    if (model.y_valid() && dut.y_valid_o) window.output(h.cycle());
    if (offer) window.busy();
  }
  const bool was_last = offer && beats.size() % size_t(tm.beats) == 1 % size_t(tm.beats);
  model.clock(offer, beat, scale);
  if (offer) {
    if (was_last) last_beat_cycle = int64_t(h.cycle());
    beats.pop_front();
  }
  h.step();
}

void MacBench::drain() {
  while (!beats.empty() && !h.scoreboard().should_stop()) cycle();
  for (int i = 0; i < tm.row_latency + 2 && !h.scoreboard().should_stop(); ++i) cycle();
}

Row MacBench::random_row(bool same) {
  Row r;
  r.iw.resize(size_t(K));
  const uint8_t one = uint8_t(h.random_bits(nW));
  for (auto& x : r.iw) x = same ? one : uint8_t(h.random_bits(nW));
  r.scale = value(false);
  return r;
}

int MacBench::run_workload() {
  const oasis::tb::Workload w = oasis::tb::build_workload(config, options);
  gap = 0;
  codebook = w.model().weight_codebook();
  const auto set_token = [&](int t) {
    xhat = w.prepared[size_t(t)].xhat;
    act_scale = w.prepared[size_t(t)].scale;
    apply_context();
  };
  set_token(0);
  h.reset();
  model.reset();
  in_window = true;
  oasis::tb::stream_rows(
      w, [&] { drain(); }, set_token,
      [&](std::span<const uint8_t> iw, Fp16 s) {
        push_row(Row{{iw.begin(), iw.end()}, s});
      });
  in_window = false;
  out.finish(h);
  oasis::tb::report_workload(h, w, window, "weight-activation products", w.products());
  return h.finish();
}

// Directed tokens: NaN, infinities, zeros and subnormals in the activations
// and the codebook; rows of equal indices.
void MacBench::directed() {
  for (int t = 0; t < 2 && !h.scoreboard().should_stop(); ++t) {
    new_context(true);
    for (int r = 0; r < 6; ++r) push_row(random_row(r % 2 == 0));
    drain();
  }
}

// Seeded random tokens in phases of different gap rates.
void MacBench::random_phases() {
  const uint64_t rows = options.vectors ? options.vectors : 200;
  const int phases = 4;
  for (int phase = 0; phase < phases && !h.scoreboard().should_stop(); ++phase) {
    gap = phase * 0.25;
    new_context(phase % 2 == 1);
    for (uint64_t r = 0; r < rows / phases; ++r) push_row(random_row(h.coin(0.1)));
    drain();
  }
}

// Measurement: an unthrottled stream of rows.
void MacBench::measure() {
  gap = 0;
  out.y_cycles.clear();
  last_beat_cycle = -1;
  const int n = 8;
  int64_t first_last_beat = -1;
  for (int r = 0; r < n; ++r) push_row(random_row(false));
  while (!beats.empty() && !h.scoreboard().should_stop()) {
    cycle();
    if (first_last_beat < 0 && last_beat_cycle >= 0) first_last_beat = last_beat_cycle;
  }
  drain();
  h.check("outputs in the measurement", uint64_t(n), out.y_cycles.size());
  int64_t latency = -1;
  if (!out.y_cycles.empty() && first_last_beat >= 0) {
    latency = out.y_cycles[0] - first_last_beat;
    h.check("measured row_latency_cycles (row's last beat taken -> y valid)",
            uint64_t(options.param("row_latency_cycles")), uint64_t(latency));
  }
  for (size_t i = 1; i < out.y_cycles.size(); ++i) {
    h.check("measured row_interval_cycles", uint64_t(options.param("row_interval_cycles")),
            uint64_t(out.y_cycles[i] - out.y_cycles[i - 1]),
            fmt::format("rows {} and {}", i - 1, i));
  }
  fmt::print(
      "measured: row latency {} cycles, row interval {} cycles, {} MACs a cycle, {} rows "
      "checked\n",
      latency, out.y_cycles.size() > 1 ? out.y_cycles[1] - out.y_cycles[0] : -1, M,
      out.rows_checked);
}

int MacBench::run() {
  if (options.workload) return run_workload();

  h.reset();
  model.reset();
  new_context(false);
  for (int i = 0; i < 3; ++i) cycle();  // idle after reset
  directed();
  random_phases();
  measure();
  out.finish(h);
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  MacBench bench(argc, argv);
  return bench.run();
}
