// SPDX-License-Identifier: Apache-2.0
// Checks the generated FIGLUT-class LUT line (gen/woq_lut_line_baseline.cpp, block
// woq_lut_line_baseline) against its cycle model (model/cycle/woq_lut_line_baseline.hpp) every
// cycle: w_ready_o, y_valid_o and, when valid, y; and every output row against woq_lut_row
// computed from the row alone (model/quant/woq_lut.hpp). Stimulus: tokens of random
// activations, directed ones with NaN, infinities, zeros, subnormals and values large enough to
// overflow binary16, all-zero and all-equal tokens; rows of random codes, some all equal and
// some at the extreme codes; random digits where a beat's channels lie past K; random gaps on
// the weight stream (phases of different rates) and random data on idle cycles. Last, an
// unthrottled layer measures the load, the batch interval, the row latency and the layer's
// cycles against the manifest and oasis-perf's model (model/perf/perf.hpp).
// With --workload (docs/workload.md) all that is left out: after reset, each token of the
// layer of verif/workload.hpp, its raw binary16 activations (the line has no pre-processing),
// then the layer's weights as quantize_uniform codes them at nW bits (the line's own W4A16
// format), in whole batches of R rows: a layer of fewer rows than a batch, or one that does not
// fill its last, continues with its rows from the first again, as a layer of more rows would
// keep the line busy. Every check stays on; idle inputs hold their last beat.
#include <fmt/format.h>

#include <deque>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/woq_lut_line_baseline.hpp"
#include "model/derived.hpp"
#include "model/numerics/fp.hpp"
#include "model/perf/perf.hpp"
#include "model/quant/woq_lut.hpp"
#include "verif/harness/harness.hpp"
#include "verif/tb/line_tb.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::set_bits;

struct Row {
  std::vector<uint8_t> codes;  ///< K codes of nW bits
  Fp16 scale;
};

struct Beat {
  std::vector<uint8_t> patterns;  ///< U patterns
  Fp16 scale;
};

// The kinds of binary16 values the stimulus draws.
enum class Values { kModerate, kSpecial, kLarge };

// The test: the DUT and its cycle model, the token and its LUTs, the batch being gathered, the
// beats to send and the outputs expected of woq_lut_row.
struct WoqBench {
  WoqBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("woq_lut_line_baseline", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        K(config.channels),
        model(config),
        tm(model.timing()),
        params(oasis::WoqLutParams::from_config(config)),
        U(tm.units),
        R(tm.rows),
        B(tm.batch_beats),
        mu(tm.group_size),
        q(tm.planes),
        x(static_cast<size_t>(K)),
        held{std::vector<uint8_t>(size_t(U)), Fp16{0}} {}

  int run();
  Fp16 value(Values kind);
  void new_context(const std::vector<Fp16>& token);
  void send_batch();
  void push_row(const Row& r);
  Row random_row(int kind);
  void cycle();
  void drain();
  std::vector<Fp16> token(Values kind);
  int run_workload();
  void directed();
  void random_phases();
  void measure();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const int K;
  oasis::WoqLutLineBaseline model;
  const oasis::WoqLutTiming& tm;
  const oasis::WoqLutParams params;
  const int U, R, B, mu, q;

  std::vector<Fp16> x;
  std::vector<std::vector<Fp16>> luts;  // the token's, one a group (woq_token_luts)
  bool load_pending = false;
  double gap = 0.3;
  std::vector<Row> batch;                    // rows of the batch being gathered
  std::deque<Beat> beats;                    // beats to send
  oasis::tb::RowOutputs out{"woq_lut_row"};  // y of the rows sent
  uint64_t beats_taken = 0;
  std::vector<int64_t> last_beat_cycles;
  int64_t first_ready = -1;  // the first cycle w_ready_o is set after the last load
  // Workload mode: the cycles of the run, and the weight inputs as last driven.
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  Beat held;
};

// A binary16 value: moderate (2^-6 .. 2^6, either sign); with kSpecial now and then NaN, an
// infinity, a zero or a subnormal; with kLarge near the top of the range (sums overflow).
Fp16 WoqBench::value(Values kind) {
  if (kind == Values::kSpecial && h.coin(0.15)) {
    static const uint16_t kSpecial[] = {0x7E00, 0x7C01, 0x7C00, 0xFC00,
                                        0x0000, 0x8000, 0x0001, 0x83FF};
    return Fp16{kSpecial[h.random_bits(3)]};
  }
  const uint16_t exp =
      uint16_t(kind == Values::kLarge ? 27 + h.random_bits(2) : 9 + h.random_bits(4) % 13);
  return Fp16{uint16_t((h.random_bits(1) << 15) | (exp << 10) | h.random_bits(10))};
}

// A new token: loaded by the next cycle, only between batches.
void WoqBench::new_context(const std::vector<Fp16>& token) {
  if (!batch.empty() || !beats.empty()) h.fail("a token loaded inside a batch");
  x = token;
  luts = oasis::woq_token_luts(x, mu);
  for (int k = 0; k < K; ++k) set_bits(dut.act_i, k * 16, 16, x[size_t(k)].bits);
  load_pending = true;
}

// The gathered batch of R rows as its beats.
void WoqBench::send_batch() {
  std::vector<uint8_t> codes;
  for (const Row& row : batch) codes.insert(codes.end(), row.codes.begin(), row.codes.end());
  for (int t = 0; t < B; ++t) {
    // A beat that carries no scale: random bits, or in the workload the last scale held.
    const Fp16 idle_scale = !options.workload ? Fp16{uint16_t(h.random_bits(16))}
                            : beats.empty()   ? held.scale
                                              : beats.back().scale;
    Beat b{oasis::woq_beat_patterns(tm, K, codes, t),
           t >= B - R ? batch[size_t(t - (B - R))].scale : idle_scale};
    // Digits of channels past K are not the line's to read: random ones (in the workload,
    // the +1 digits of the codes' zero padding, as they are).
    for (int u = 0; u < U && !options.workload; ++u) {
      const int g = t / q * tm.luts + u % tm.luts;
      for (int j = 0; j < mu; ++j) {
        if (g * mu + j >= K) b.patterns[size_t(u)] ^= uint8_t(h.random_bits(1) << j);
      }
    }
    beats.push_back(std::move(b));
  }
  batch.clear();
}

// One row: its expected output from the row alone; the batch's beats once R rows are in.
void WoqBench::push_row(const Row& r) {
  out.expected.push_back(oasis::woq_lut_row(luts, K, r.codes, r.scale, params));
  batch.push_back(r);
  if (int(batch.size()) < R) return;
  send_batch();
}

Row WoqBench::random_row(int kind) {
  Row r;
  r.codes.resize(size_t(K));
  const uint8_t one = uint8_t(h.random_bits(q));
  for (auto& c : r.codes) {
    c = kind == 1   ? one
        : kind == 2 ? uint8_t(h.coin(0.5) ? 0 : (1 << q) - 1)
                    : uint8_t(h.random_bits(q));
  }
  r.scale = value(Values::kModerate);
  return r;
}

void WoqBench::cycle() {
  const bool load = load_pending;
  load_pending = false;
  const bool offer = !load && !beats.empty() && !(gap > 0 && h.coin(gap));
  Beat garbage = held;
  if (!options.workload) {
    garbage.scale = Fp16{uint16_t(h.random_bits(16))};
    for (auto& p : garbage.patterns) p = uint8_t(h.random_bits(mu));
  }
  const Beat beat = offer ? beats.front() : garbage;
  held = beat;
  dut.act_load_i = load;
  dut.w_valid_i = offer;
  for (int u = 0; u < U; ++u) set_bits(dut.w_data_i, u * mu, mu, beat.patterns[size_t(u)]);
  dut.w_scale_i = beat.scale.bits;
  h.settle();
  h.check("w_ready_o", model.w_ready(), dut.w_ready_o);
  if (load) {
    first_ready = -1;
  } else if (dut.w_ready_o && first_ready < 0) {
    first_ready = int64_t(h.cycle());
  }
  out.check(h, model.y_valid(), model.y_data(), dut.y_valid_o, dut.y_data_o);
  if (in_window) {
    if (offer || load) window.present(h.cycle());
    if (model.y_valid() && dut.y_valid_o) window.output(h.cycle());
    if (offer && model.w_ready()) window.busy();
  }
  const bool taken = offer && model.w_ready();
  try {
    model.clock(load, x, offer, beat.patterns, beat.scale);
  } catch (const std::exception& e) {
    h.fail(e.what());
  }
  if (taken) {
    if (++beats_taken % uint64_t(B) == 0) last_beat_cycles.push_back(int64_t(h.cycle()));
    beats.pop_front();
  }
  h.step();
}

void WoqBench::drain() {
  while (!batch.empty()) push_row(random_row(0));
  while (!beats.empty() && !h.scoreboard().should_stop()) cycle();
  for (int i = 0; i < tm.row_latency + R + 2 && !h.scoreboard().should_stop(); ++i) cycle();
}

std::vector<Fp16> WoqBench::token(Values kind) {
  std::vector<Fp16> t(static_cast<size_t>(K));
  for (auto& v : t) v = value(kind);
  return t;
}

int WoqBench::run_workload() {
  const oasis::tb::Workload w = oasis::tb::build_workload(config, options);
  const oasis::UniformWeights u = oasis::quantize_uniform(w.w, w.rows, K, q);
  const int64_t layer_rows = (int64_t(w.rows) + R - 1) / R * R;  // whole batches
  gap = 0;
  h.reset();
  model.reset();
  in_window = true;
  for (int t = 0; t < w.tokens && !h.scoreboard().should_stop(); ++t) {
    drain();
    new_context({w.token(t).begin(), w.token(t).end()});
    for (int64_t i = 0; i < layer_rows; ++i) {
      const size_t n = size_t(i % w.rows);
      const auto codes = std::span<const uint8_t>(u.codes).subspan(n * size_t(K), size_t(K));
      push_row(Row{{codes.begin(), codes.end()}, u.scales[n]});
    }
  }
  drain();
  in_window = false;
  out.finish(h);
  const uint64_t products = uint64_t(w.tokens) * uint64_t(layer_rows) * uint64_t(K);
  oasis::tb::report_workload(h, w, window, "weight-activation products", products,
                             {{"rows_streamed", layer_rows}});
  return h.finish();
}

// Directed tokens: NaN, infinities, zeros and subnormals; values whose sums overflow; all
// zero; all equal. Rows of equal codes and of the extreme codes.
void WoqBench::directed() {
  const std::vector<std::vector<Fp16>> directed = {
      token(Values::kSpecial), token(Values::kLarge), std::vector<Fp16>(size_t(K), Fp16{0}),
      std::vector<Fp16>(size_t(K), value(Values::kModerate))};
  for (const auto& t : directed) {
    if (h.scoreboard().should_stop()) break;
    new_context(t);
    for (int r = 0; r < 2 * R; ++r) push_row(random_row(r % 3));
    drain();
  }
}

// Seeded random tokens in phases of different gap rates.
void WoqBench::random_phases() {
  const uint64_t rows = options.vectors ? options.vectors : 200;
  const int phases = 4;
  for (int phase = 0; phase < phases && !h.scoreboard().should_stop(); ++phase) {
    gap = phase * 0.25;
    new_context(token(phase % 2 == 1 ? Values::kSpecial : Values::kModerate));
    for (uint64_t r = 0; r < rows / phases; ++r) push_row(random_row(h.coin(0.1) ? 1 : 0));
    drain();
  }
}

// Measurement: an unthrottled layer of 2R + 1 rows (its last batch padded), loaded at c0.
void WoqBench::measure() {
  gap = 0;
  out.y_cycles.clear();
  last_beat_cycles.clear();
  beats_taken = 0;
  const int64_t n = 2 * R + 1;
  new_context(token(Values::kModerate));
  const int64_t c0 = int64_t(h.cycle());  // the load's cycle
  for (int64_t r = 0; r < n; ++r) push_row(random_row(0));
  drain();
  const oasis::WoqLutLayerPerf perf = oasis::woq_lut_layer_perf(config, n);
  h.check("outputs in the measurement", uint64_t(perf.batches * R), out.y_cycles.size());
  h.check("measured load_cycles (act_load_i -> w_ready_o)", uint64_t(options.param("load_cycles")),
          uint64_t(first_ready - c0));
  for (size_t b = 0; b < last_beat_cycles.size() && (b + 1) * size_t(R) <= out.y_cycles.size();
       ++b) {
    h.check("measured row_latency_cycles (batch's last beat -> its row 0)",
            uint64_t(options.param("row_latency_cycles")),
            uint64_t(out.y_cycles[b * size_t(R)] - last_beat_cycles[b]));
    if (b > 0) {
      h.check("measured batch_interval_cycles", uint64_t(options.param("batch_interval_cycles")),
              uint64_t(last_beat_cycles[b] - last_beat_cycles[b - 1]));
    }
    for (int r = 1; r < R; ++r) {
      h.check(
          "rows of a batch a cycle apart", 1,
          uint64_t(out.y_cycles[b * size_t(R) + size_t(r)] - out.y_cycles[b * size_t(R) + r - 1]));
    }
  }
  int64_t cycles = -1;
  if (size_t(n) <= out.y_cycles.size()) {
    cycles = out.y_cycles[size_t(n) - 1] - c0 + 1;
    h.check("the layer's cycles against oasis-perf (woq_lut_layer_perf)", uint64_t(perf.cycles),
            uint64_t(cycles));
  }
  h.scoreboard().figure("load_cycles", first_ready - c0);
  h.scoreboard().figure("layer_rows", n);
  h.scoreboard().figure("layer_cycles", cycles);
  fmt::print(
      "measured: load {} cycles, {} rows in {} cycles (oasis-perf {}), {} units, {} rows a "
      "batch of {} beats, {:.3g} products a cycle, {} rows checked\n",
      first_ready - c0, n, cycles, perf.cycles, U, R, B, tm.products_per_cycle, out.rows_checked);
}

int WoqBench::run() {
  dut.act_load_i = 0;
  dut.w_valid_i = 0;
  if (options.workload) return run_workload();
  h.reset();
  model.reset();
  for (int i = 0; i < 3; ++i) cycle();  // idle after reset, no token: never ready
  directed();
  random_phases();
  measure();
  out.finish(h);
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  WoqBench bench(argc, argv);
  return bench.run();
}
