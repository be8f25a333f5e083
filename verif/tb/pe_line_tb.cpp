// SPDX-License-Identifier: Apache-2.0
// Checks the generated PE line against its cycle model (model/cycle/pe_line.hpp)
// every cycle: w_ready, y_valid, idle and, when valid, y. Every output row is
// also compared with the per-row steps of the golden model (main_counts,
// main_branch, outlier_branch, merge_and_scale of model/quant/lut_gemm.hpp)
// computed directly from the row, independent of the cycle model.
// Stimulus: tokens (contexts) of random codebooks, LUT, outliers and
// residuals, including directed ones (NaN and Inf in the LUT and the
// residuals, subnormals, all indices equal so counts reach K, outliers in the
// first and last channel, the same channel twice; LUT entries of opposite
// signs and rows that make them cancel exactly); rows of random indices
// with random gaps on the weight stream and random backpressure on y. Last, an
// unthrottled stream measures the row latency and interval and checks them
// against the manifest.
// With --workload (docs/workload.md) all that is left out: after reset, each token of the
// layer of verif/workload.hpp is the line's context (set while the line is idle, as the core
// switches it) and the layer's rows stream through unthrottled, every check on; idle weight
// inputs hold their last beat.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/pe_line.hpp"
#include "model/derived.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::get_bits;
using oasis::tb::set_bits;

struct Row {
  std::vector<uint8_t> iw;  ///< K indices
  Fp16 scale;
};

// The test: the DUT and its cycle model, the context of the current token, the weight beats
// to send and the outputs expected of the golden model.
struct LineBench {
  LineBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("pe_line", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        K(config.channels),
        nA(config.act_bits),
        nW(config.weight_bits),
        derived(oasis::derive(config)),
        E(derived.lut_entries),
        k2(derived.outliers),
        Wb(config.weight_beat_indices),
        cw(derived.channel_bits),
        acc(config.accumulator),
        model(config),
        tm(model.timing()),
        held(static_cast<size_t>(Wb)) {}

  int run();
  Fp16 value(bool special);
  void apply_context();
  Fp16 reference(const Row& r);
  void push_row(const Row& r);
  void check_output(bool ready);
  void cycle();
  void drain();
  void new_context(bool special, int mode);
  Row cancelling_row();
  Row random_row(int mode);
  int run_workload();
  void directed();
  void random_phases();
  void measure();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const int K;
  const int nA, nW;
  const oasis::Derived derived;
  const int E;
  const int k2;
  const int Wb;
  const int cw;
  const oasis::Accumulator acc;
  oasis::PeLine model;
  const oasis::LineTiming& tm;

  oasis::PeLineContext ctx;
  double gap = 0.3, backpressure = 0.3;
  std::deque<std::pair<std::vector<uint8_t>, Fp16>> beats;  // weight beats to send
  std::deque<Fp16> expected;  // y of the rows sent, docs/spec.md section 2
  uint64_t rows_checked = 0;
  int64_t last_beat_cycle = -1;
  std::vector<int64_t> latencies, y_cycles;
  // Workload mode: the cycles of the run, and the weight inputs as last driven.
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  std::vector<uint8_t> held;
  Fp16 held_scale;
};

// A binary16 value of moderate size (2^-6 .. 2^6), either sign; or, with
// `special`, now and then NaN, an infinity, a zero or a subnormal.
Fp16 LineBench::value(bool special) {
  if (special && h.coin(0.1)) {
    static const uint16_t kSpecial[] = {0x7E00, 0x7C01, 0x7C00, 0xFC00,
                                        0x0000, 0x8000, 0x0001, 0x83FF};
    return Fp16{kSpecial[h.random_bits(3)]};
  }
  const uint16_t exp = uint16_t(9 + h.random_bits(4) % 13);
  return Fp16{uint16_t((h.random_bits(1) << 15) | (exp << 10) | h.random_bits(10))};
}

void LineBench::apply_context() {
  model.set_context(ctx);
  for (int ch = 0; ch < K; ++ch) set_bits(dut.act_idx_i, ch * nA, nA, ctx.act_index[size_t(ch)]);
  for (int j = 0; j < k2; ++j) {
    set_bits(dut.outlier_chan_i, j * cw, cw, uint64_t(ctx.outlier_channels[size_t(j)]));
    set_bits(dut.residual_i, j * 16, 16, ctx.residuals[size_t(j)].bits);
  }
  dut.act_scale_i = ctx.act_scale.bits;
  for (int e = 0; e < E; ++e) set_bits(dut.lut_i, e * 16, 16, ctx.lut[size_t(e)].bits);
  for (int i = 0; i < (1 << nW); ++i) {
    set_bits(dut.weight_codebook_i, i * 16, 16, ctx.weight_codebook[size_t(i)].bits);
  }
}

// The row's y by the golden model's per-row steps (docs/numerics.md).
Fp16 LineBench::reference(const Row& r) {
  const auto counts = oasis::main_counts(ctx.act_index, r.iw, nA, nW, derived.symmetric);
  const oasis::AccValue main = oasis::main_branch(counts, ctx.lut, config.mac_tree_inputs,
                                                  derived.accumulator_slots, acc);
  std::vector<oasis::Outlier> outliers(static_cast<size_t>(k2));
  for (int j = 0; j < k2; ++j) outliers[size_t(j)].channel = ctx.outlier_channels[size_t(j)];
  const auto comp = oasis::outlier_branch(outliers, ctx.residuals, r.iw, ctx.weight_codebook,
                                          config.comp_macs, derived.accumulator_slots, acc);
  return oasis::merge_and_scale(main, comp, ctx.act_scale, r.scale, acc);
}

void LineBench::push_row(const Row& r) {
  for (int b = 0; b < tm.fill_beats; ++b) {
    std::vector<uint8_t> beat(static_cast<size_t>(Wb));
    for (int p = 0; p < Wb; ++p) {
      const int ch = b * Wb + p;
      beat[size_t(p)] = ch < K             ? r.iw[size_t(ch)]
                        : options.workload ? 0
                                           : uint8_t(h.random_bits(nW));
    }
    beats.emplace_back(std::move(beat), r.scale);
  }
  expected.push_back(reference(r));
}

// A valid output: against the cycle model, and when taken, against the golden model.
void LineBench::check_output(bool ready) {
  h.check("y_data_o", model.y_data().bits, dut.y_data_o, "the cycle model's output");
  if (y_cycles.empty() || y_cycles.back() != int64_t(h.cycle())) {
    y_cycles.push_back(int64_t(h.cycle()));
  }
  if (ready) {
    if (expected.empty()) {
      h.fail("an output was given for a row that was never sent");
    } else {
      h.check("y_data_o", expected.front().bits, dut.y_data_o,
              fmt::format("row {} against the golden model's row steps", rows_checked));
      expected.pop_front();
    }
    h.scoreboard().count_vector();
    ++rows_checked;
  }
}

void LineBench::cycle() {
  const bool offer = !beats.empty() && !(gap > 0 && h.coin(gap));
  const bool ready = !(backpressure > 0 && h.coin(backpressure));
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
  for (int p = 0; p < Wb; ++p) set_bits(dut.w_data_i, p * nW, nW, beat[size_t(p)]);
  dut.w_scale_i = scale.bits;
  dut.y_ready_i = ready;
  h.settle();
  h.check("w_ready_o", model.w_ready(), dut.w_ready_o);
  h.check("y_valid_o", model.y_valid(), dut.y_valid_o);
  h.check("idle_o", model.idle(), dut.idle_o);
  if (model.y_valid() && dut.y_valid_o) check_output(ready);
  const bool accepted = offer && dut.w_ready_o;
  if (in_window) {
    if (offer) window.present(h.cycle());
    if (model.y_valid() && dut.y_valid_o && ready) window.output(h.cycle());
    if (accepted) window.busy();
  }
  const bool was_last = accepted && beats.size() > 0 &&
                        (beats.size() % size_t(tm.fill_beats)) == 1 % size_t(tm.fill_beats);
  model.clock(offer, beat, scale, ready);
  if (accepted) {
    if (was_last) last_beat_cycle = int64_t(h.cycle());
    beats.pop_front();
  }
  h.step();
}

void LineBench::drain() {
  uint64_t guard = 0;
  while ((!beats.empty() || !model.idle() || !dut.idle_o || model.y_valid()) &&
         !h.scoreboard().should_stop()) {
    cycle();
    if (++guard > 10'000'000) {
      h.fail("the line did not drain in 10^7 cycles");
      break;
    }
  }
}

// A new token's context; only while the line is idle.
void LineBench::new_context(bool special, int mode) {
  ctx.act_index.assign(size_t(K), 0);
  for (auto& a : ctx.act_index) a = uint8_t(mode % 2 == 1 ? (1 << nA) - 1 : h.random_bits(nA));
  ctx.outlier_channels.assign(size_t(k2), 0);
  for (int j = 0; j < k2; ++j) {
    int ch = int(h.random_bits(20) % uint64_t(K));
    if (mode == 2) ch = j % 2 == 0 ? 0 : K - 1;  // first and last channel, each repeated
    ctx.outlier_channels[size_t(j)] = ch;
  }
  ctx.residuals.resize(size_t(k2));
  for (auto& r : ctx.residuals) r = value(special);
  ctx.act_scale = value(false);
  ctx.lut.resize(size_t(E));
  for (auto& l : ctx.lut) l = value(special);
  // Mode 3: entries e and e ^ 1 of opposite signs, so that rows of paired
  // weight indices (cancelling_row) cancel exactly in the tree or the
  // accumulator, the adder's exact-cancellation branch.
  if (mode == 3) {
    for (int e = 1; e < E; e += 2) ctx.lut[size_t(e)].bits = ctx.lut[size_t(e - 1)].bits ^ 0x8000;
  }
  ctx.weight_codebook.resize(size_t(1) << nW);
  for (auto& c : ctx.weight_codebook) c = value(special);
  apply_context();
}

// Weight indices w and w ^ 1 on alternate channels (equal counts of the
// entries e and e ^ 1 when the activation indices are equal); with K odd the
// last channel takes w ^ 2, whose pair w ^ 3 does not occur.
Row LineBench::cancelling_row() {
  Row r;
  r.iw.resize(size_t(K));
  const uint8_t w = uint8_t(h.random_bits(nW) & ~1u);
  for (int ch = 0; ch < K; ++ch) r.iw[size_t(ch)] = uint8_t(w ^ (ch % 2));
  if (K % 2 == 1 && nW >= 2) r.iw[size_t(K - 1)] = uint8_t(w ^ 2);
  r.scale = value(false);
  return r;
}

Row LineBench::random_row(int mode) {
  Row r;
  r.iw.resize(size_t(K));
  const uint8_t same = uint8_t(h.random_bits(nW));
  for (auto& x : r.iw) x = mode == 1 ? same : uint8_t(h.random_bits(nW));
  r.scale = value(false);
  return r;
}

int LineBench::run_workload() {
  const oasis::tb::Workload w = oasis::tb::build_workload(config, options);
  gap = backpressure = 0;
  const auto set_token = [&](int t) {
    ctx = w.context(t);
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
  if (!expected.empty()) h.fail(fmt::format("{} rows sent but never output", expected.size()));
  oasis::tb::report_workload(h, w, window, "weight-activation products", w.products());
  return h.finish();
}

// Directed tokens: all activation indices equal and rows of equal weight
// indices (counts of K); outliers in the first and last channel; NaN, Inf,
// zeros and subnormals in the LUT, codebook and residuals.
void LineBench::directed() {
  for (int mode = 0; mode < 3 && !h.scoreboard().should_stop(); ++mode) {
    new_context(mode != 1, mode);
    for (int r = 0; r < 6; ++r) push_row(random_row(r % 2 == 0 ? 1 : 0));
    drain();
  }
  // Rows whose main branch cancels exactly.
  new_context(false, 3);
  for (int r = 0; r < 4; ++r) push_row(cancelling_row());
  drain();
}

// Seeded random tokens in phases of different gap and backpressure rates.
void LineBench::random_phases() {
  const uint64_t rows = options.vectors ? options.vectors : 240;
  const int phases = 8;
  for (int phase = 0; phase < phases && !h.scoreboard().should_stop(); ++phase) {
    gap = (phase % 4) * 0.25;
    backpressure = ((phase + 1) % 4) * 0.2 + (phase == 2 ? 0.15 : 0);
    new_context(phase % 2 == 1, 0);
    for (uint64_t r = 0; r < rows / phases; ++r) push_row(random_row(h.coin(0.1) ? 1 : 0));
    drain();
  }
}

// Measurement: an unthrottled stream of rows after an idle line.
void LineBench::measure() {
  gap = 0;
  backpressure = 0;
  for (int i = 0; i < 4; ++i) cycle();
  y_cycles.clear();
  last_beat_cycle = -1;
  const int n = 8;
  int64_t first_last_beat = -1;
  for (int r = 0; r < n; ++r) push_row(random_row(0));
  while (!beats.empty() && !h.scoreboard().should_stop()) {
    cycle();
    if (first_last_beat < 0 && last_beat_cycle >= 0) first_last_beat = last_beat_cycle;
  }
  drain();
  h.check("outputs in the measurement", uint64_t(n), y_cycles.size());
  if (!y_cycles.empty() && first_last_beat >= 0) {
    latencies.push_back(y_cycles[0] - first_last_beat);
    h.check("measured row_latency_cycles (row's last weight beat taken -> y valid)",
            uint64_t(options.param("row_latency_cycles")), uint64_t(latencies[0]));
  }
  for (size_t i = 1; i < y_cycles.size(); ++i) {
    h.check("measured row_interval_cycles", uint64_t(options.param("row_interval_cycles")),
            uint64_t(y_cycles[i] - y_cycles[i - 1]), fmt::format("rows {} and {}", i - 1, i));
  }
  fmt::print(
      "measured: row latency {} cycles, row interval {} cycles (fill {}, count {}, "
      "reduce {}, compensate {}), FIFO depth {}, {} rows checked\n",
      latencies.empty() ? -1 : latencies[0], y_cycles.size() > 1 ? y_cycles[1] - y_cycles[0] : -1,
      tm.fill_beats, tm.count_beats, tm.chunks, tm.groups, tm.fifo_depth, rows_checked);
}

int LineBench::run() {
  if (options.workload) return run_workload();

  h.reset();
  model.reset();
  new_context(false, 0);
  for (int i = 0; i < 3; ++i) cycle();  // idle after reset
  directed();
  random_phases();
  measure();
  if (!expected.empty()) h.fail(fmt::format("{} rows sent but never output", expected.size()));
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  LineBench bench(argc, argv);
  return bench.run();
}
