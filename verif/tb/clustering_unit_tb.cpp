// SPDX-License-Identifier: Apache-2.0
// Checks the generated Clustering Unit against its cycle model
// (model/cycle/clustering_unit.hpp), which takes its indices from the docs/spec.md section 4
// rule (model/quant/clustering.hpp), every cycle: act_ready, idx_valid, busy and
// every lane's index. Stimulus per layer (a codebook, so a set of boundaries):
// directed values (every boundary, its neighbours in the order, +-0, +-Inf,
// NaNs, subnormals, extremes), then seeded random values, with random gaps in
// the input and random backpressure. Last, an unthrottled stream measures the
// latency and throughput and checks them against the manifest.
// With --workload (docs/workload.md) all that is left out: after reset, the tokens' x̂ of the
// layer of verif/workload.hpp (what the core clusters), each token in beats of the lanes (its
// last beat padded with +0), stream through unthrottled under the layer's calibrated
// boundaries, every check on; idle inputs hold their last beat.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/clustering_unit.hpp"
#include "model/quant/clustering.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;

using oasis::tb::get_bits;
using oasis::tb::set_bits;

// The binary16 value whose order key is `key` (0 .. 0x10000; 0x10000 is NaN).
Fp16 from_key(uint32_t key) {
  if (key >= 0x10000) return oasis::kFp16CanonicalNan;
  if (key == 0x8000) return Fp16{0};
  if (key > 0x8000) return Fp16{uint16_t(key - 0x8000)};
  return Fp16{uint16_t(0x8000 | (0x8000 - key))};
}

// The test: the DUT and its cycle model, the current boundaries, the beats to send and what
// the measurement counts.
struct UnitBench {
  UnitBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("clustering_unit", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        lanes(config.clustering_lanes),
        na(config.act_bits),
        nbounds((1 << na) - 1),
        model(config),
        held(static_cast<size_t>(lanes)) {}

  int run();
  void set_boundaries(const std::vector<Fp16>& b);
  std::string bounds_text() const;
  void cycle(bool allow_offer);
  void drain();
  void push_values(const std::vector<Fp16>& values);
  std::vector<Fp16> random_codebook(bool narrow);
  std::vector<Fp16> directed_values() const;
  int run_workload();
  std::vector<std::vector<Fp16>> directed_codebooks();
  void every_value();
  void random_layers();
  void measure();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const int lanes;
  const int na;
  const int nbounds;
  oasis::ClusteringUnit model;

  std::vector<Fp16> bounds;
  double gap = 0.3;                     // probability of no offer when the source is free
  double backpressure = 0.3;            // probability of idx_ready low
  std::deque<std::vector<Fp16>> queue;  // beats still to send; front is offered
  int64_t first_accept = -1, first_output = -1;
  uint64_t accepted_total = 0, outputs_total = 0;
  // Workload mode: the cycles of the run, and the inputs as last driven.
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  std::vector<Fp16> held;
};

void UnitBench::set_boundaries(const std::vector<Fp16>& b) {
  bounds = b;
  for (int j = 0; j < nbounds; ++j) set_bits(dut.boundaries_i, j * 16, 16, b[size_t(j)].bits);
}

std::string UnitBench::bounds_text() const {
  std::string t;
  for (const Fp16 b : bounds) t += fmt::format("{}{:04x}", t.empty() ? "" : ",", b.bits);
  return t;
}

// One cycle: drive, compare every output with the model, clock both.
void UnitBench::cycle(bool allow_offer) {
  const bool offer = allow_offer && !queue.empty() && !(gap > 0 && h.coin(gap));
  const bool ready = !(backpressure > 0 && h.coin(backpressure));
  const std::vector<Fp16> garbage = [&] {
    std::vector<Fp16> g = held;
    if (!options.workload) {
      for (auto& v : g) v = Fp16{uint16_t(h.random_bits(16))};
    }
    return g;
  }();
  const std::vector<Fp16>& beat = offer ? queue.front() : garbage;
  held = beat;
  dut.act_valid_i = offer;
  for (int i = 0; i < lanes; ++i) set_bits(dut.act_data_i, i * 16, 16, beat[size_t(i)].bits);
  dut.idx_ready_i = ready;
  h.settle();
  const bool model_ready = model.act_ready(ready);
  h.check("act_ready_o", model_ready, dut.act_ready_o);
  h.check("idx_valid_o", model.idx_valid(), dut.idx_valid_o);
  h.check("busy_o", model.busy(), dut.busy_o);
  if (model.idx_valid() && dut.idx_valid_o) {
    for (int i = 0; i < lanes; ++i) {
      h.check("idx_data_o", uint64_t(model.idx_data()[size_t(i)]),
              get_bits(dut.idx_data_o, i * na, na),
              fmt::format("lane {} boundaries {}", i, bounds_text()));
    }
    if (ready) {
      h.scoreboard().count_vector(uint64_t(lanes));
      ++outputs_total;
      if (first_output < 0) first_output = int64_t(h.cycle());
    }
  }
  const bool accepted = offer && dut.act_ready_o;
  if (in_window) {
    if (offer) window.present(h.cycle());
    if (model.idx_valid() && dut.idx_valid_o && ready) window.output(h.cycle());
    if (accepted) window.busy();
  }
  model.clock(offer, beat, bounds, ready);
  if (accepted) {
    if (first_accept < 0) first_accept = int64_t(h.cycle());
    ++accepted_total;
    queue.pop_front();
  }
  h.step();
}

// Sends the queue and drains the pipeline (boundaries may then change).
void UnitBench::drain() {
  uint64_t guard = 0;
  while ((!queue.empty() || model.busy() || dut.busy_o) && !h.scoreboard().should_stop()) {
    cycle(true);
    if (++guard > 10'000'000) {
      h.fail("the pipeline did not drain in 10^7 cycles");
      break;
    }
  }
}

void UnitBench::push_values(const std::vector<Fp16>& values) {
  for (size_t i = 0; i < values.size(); i += size_t(lanes)) {
    std::vector<Fp16> beat(static_cast<size_t>(lanes));
    for (int l = 0; l < lanes; ++l) {
      beat[size_t(l)] = values[(i + size_t(l)) % values.size()];
    }
    queue.push_back(beat);
  }
}

// A random strictly ascending codebook of 2^nA finite values; `narrow`
// keeps them close together (boundaries one or two ulps apart).
std::vector<Fp16> UnitBench::random_codebook(bool narrow) {
  for (int attempt = 0;; ++attempt) {
    if (attempt == 1000) narrow = false;  // a narrow draw that keeps collapsing
    std::vector<uint32_t> keys;
    // Finite values have keys 0x0400 (-0x7BFF) .. 0xFBFF (+0x7BFF).
    const uint32_t base = 0x0400 + uint32_t(h.random_bits(17) % (0xFBFF - 0x0400 - 64));
    while (keys.size() < size_t(1) << na) {
      uint32_t k = narrow ? base + uint32_t(h.random_bits(6)) : uint32_t(h.random_bits(17));
      if (k < 0x0400 || k > 0xFBFF) continue;  // keep finite: -0x7BFF .. +0x7BFF
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
    std::vector<Fp16> cb;
    for (const uint32_t k : keys) cb.push_back(from_key(k));
    try {
      return oasis::cluster_boundaries(cb);
    } catch (const std::invalid_argument&) {
      // boundaries collapsed after rounding: draw again
    }
  }
}

// Directed values for the current boundaries.
std::vector<Fp16> UnitBench::directed_values() const {
  std::vector<Fp16> v = {Fp16{0x0000}, Fp16{0x8000}, Fp16{0x7C00}, Fp16{0xFC00}, Fp16{0x7E00},
                         Fp16{0xFE00}, Fp16{0x7C01}, Fp16{0xFFFF}, Fp16{0x7D55}, Fp16{0x0001},
                         Fp16{0x8001}, Fp16{0x03FF}, Fp16{0x83FF}, Fp16{0x0400}, Fp16{0x8400},
                         Fp16{0x7BFF}, Fp16{0xFBFF}, Fp16{0x3C00}, Fp16{0xBC00}};
  for (const Fp16 b : bounds) {
    const uint32_t k = oasis::order_key(b);
    v.push_back(b);
    v.push_back(from_key(k - 1));
    v.push_back(from_key(k + 1));
    if ((b.bits & 0x7FFF) == 0) v.push_back(Fp16{uint16_t(b.bits ^ 0x8000)});  // the other zero
  }
  return v;
}

int UnitBench::run_workload() {
  const oasis::tb::Workload w = oasis::tb::build_workload(config, options);
  gap = backpressure = 0;
  set_boundaries(w.model().boundaries());
  for (const oasis::PreparedToken& t : w.prepared) {
    for (size_t i = 0; i < t.xhat.size(); i += size_t(lanes)) {
      std::vector<Fp16> beat(size_t(lanes), Fp16{0});
      for (size_t l = 0; l < size_t(lanes) && i + l < t.xhat.size(); ++l) beat[l] = t.xhat[i + l];
      queue.push_back(beat);
    }
  }
  h.reset();
  model.reset();
  in_window = true;
  drain();
  in_window = false;
  oasis::tb::report_workload(h, w, window, "tokens", uint64_t(w.tokens),
                             {{"values", uint64_t(w.tokens) * uint64_t(w.channels)}});
  return h.finish();
}

// Directed codebooks: a boundary at +0 (the midpoint of -c and c),
// subnormal boundaries, the extremes of the format, and negative values.
std::vector<std::vector<Fp16>> UnitBench::directed_codebooks() {
  std::vector<std::vector<Fp16>> layers;
  const int n = 1 << na;
  std::vector<Fp16> symmetric, subnormal, extreme, negative;
  for (int i = 0; i < n; ++i) {
    const int m = i - n / 2;  // -n/2 .. n/2-1, with a centroid mirrored around 0
    const double step = 0.25;
    symmetric.push_back(
        oasis::fp16_from_double(m < 0 ? (m + 0.5) * step * 2 - step : (m + 0.5) * step * 2 + step));
    subnormal.push_back(
        Fp16{uint16_t(i < n / 2 ? 0x8000 | (2 * (n / 2 - i) + 1) : 2 * (i - n / 2) + 1)});
    extreme.push_back(
        from_key(uint32_t(0x0401 + uint32_t(i) * ((0xFBFE - 0x0401) / uint32_t(n - 1)))));
    negative.push_back(oasis::fp16_from_double(-1000.0 + 3.0 * i));
  }
  // symmetric: centroids -a, a around 0 give a boundary of exactly 0.
  std::sort(symmetric.begin(), symmetric.end(),
            [](Fp16 a, Fp16 b) { return oasis::compare(a, b) < 0; });
  for (const auto* cb : {&symmetric, &subnormal, &extreme, &negative}) {
    try {
      layers.push_back(oasis::cluster_boundaries(*cb));
    } catch (const std::invalid_argument& e) {
      h.fail(fmt::format("directed codebook rejected: {}", e.what()));
    }
  }
  return layers;
}

// Every binary16 value once, under one random codebook.
void UnitBench::every_value() {
  set_boundaries(random_codebook(false));
  std::vector<Fp16> all;
  for (uint32_t x = 0; x < 0x10000; ++x) all.push_back(Fp16{uint16_t(x)});
  push_values(all);
  drain();
}

// Seeded random layers: random codebooks (wide and narrow), values drawn
// from random bit patterns and from the neighbourhood of the boundaries;
// the gap and backpressure rates change per layer.
void UnitBench::random_layers() {
  const uint64_t beats = options.vectors ? options.vectors : 20000;
  const int nlayers = 8;
  for (int layer = 0; layer < nlayers && !h.scoreboard().should_stop(); ++layer) {
    set_boundaries(random_codebook(layer % 2 == 1));
    gap = (layer % 4) * 0.25;
    backpressure = ((layer + 1) % 4) * 0.2;
    std::vector<Fp16> values;
    for (uint64_t i = 0; i < beats / nlayers * uint64_t(lanes); ++i) {
      if (h.coin(0.5)) {
        values.push_back(Fp16{uint16_t(h.random_bits(16))});
      } else {
        const Fp16 b = bounds[size_t(h.random_bits(8)) % bounds.size()];
        values.push_back(from_key(oasis::order_key(b) + uint32_t(h.random_bits(3)) - 4));
      }
    }
    push_values(values);
    drain();
  }
}

// Measurement: an unthrottled stream of beats after an idle pipeline.
void UnitBench::measure() {
  gap = 0;
  backpressure = 0;
  set_boundaries(random_codebook(false));
  const int n = 64;
  std::vector<Fp16> values;
  for (int i = 0; i < n * lanes; ++i) values.push_back(Fp16{uint16_t(h.random_bits(16))});
  push_values(values);
  first_accept = first_output = -1;
  accepted_total = outputs_total = 0;
  const uint64_t start = h.cycle();
  drain();
  const uint64_t span = h.cycle() - start;
  const int64_t latency = first_output - first_accept;
  h.check("measured latency_cycles (first beat accepted -> presented)",
          uint64_t(options.param("latency_cycles")), uint64_t(latency));
  // The stream of n beats took exactly n cycles in and n cycles out:
  // one beat per cycle, and the drain ends with the last one presented.
  h.check("measured cycles to stream 64 beats, minus latency (beats_per_cycle = 64 / this)",
          uint64_t(n / options.param("beats_per_cycle")), span - uint64_t(latency));
  h.check("beats accepted", uint64_t(n), accepted_total);
  h.check("beats presented", uint64_t(n), outputs_total);
  fmt::print(
      "measured: latency {} cycles, {} beats of {} activations in {} cycles after the "
      "first output\n",
      latency, n, lanes, span - uint64_t(latency));
}

int UnitBench::run() {
  if (options.workload) return run_workload();

  h.reset();
  model.reset();
  for (int i = 0; i < 3; ++i) cycle(false);  // idle after reset: nothing valid

  const std::vector<std::vector<Fp16>> layers = directed_codebooks();
  // Directed values under each directed codebook, gaps and backpressure on.
  for (const auto& b : layers) {
    set_boundaries(b);
    push_values(directed_values());
    drain();
  }
  every_value();
  random_layers();
  measure();
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  UnitBench bench(argc, argv);
  return bench.run();
}
