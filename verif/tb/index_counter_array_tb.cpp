// SPDX-License-Identifier: Apache-2.0
// Checks the generated Concat Unit / Index Counter array against its cycle
// model (model/cycle/index_counter.hpp) every cycle: idx_ready, cnt_valid and, when
// valid, the chunk number, the last flag and every count. Each presented row
// is also compared with the docs/spec.md section 6 rule computed directly from the
// row's indices (index_counts). Stimulus: directed rows (all K indices equal,
// for the lowest, the highest and a middle entry: the largest counts; a row
// with every mask bit clear; alternating masks), seeded random rows with
// random masks and garbage beyond K, random gaps and backpressure. Last, an
// unthrottled stream measures the latency and the row interval and checks
// them against the manifest.
// With --workload (docs/workload.md) all that is left out: after reset, the concatenated
// indices (ia << nW) | iw of the layer of verif/workload.hpp, each token's activation indices
// with each of the layer's rows, every mask bit set (as the PE line drives them), stream
// through unthrottled, every check on; positions beyond K carry index 0 and idle inputs hold
// their last beat.
#include <fmt/format.h>

#include <deque>
#include <type_traits>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/index_counter.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::tb::get_bits;
using oasis::tb::set_bits;

struct Beat {
  std::vector<int> idx;
  std::vector<bool> mask;
};

bool all(int) { return true; }

// The test: the DUT and its cycle model, the beats to send and the counts expected of the rule
// of docs/spec.md section 6.
struct ArrayBench {
  ArrayBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("index_counter_array", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        derived(oasis::derive(config)),
        b(derived.concat_index_bits),
        entries(derived.lut_entries),
        indices(1 << b),
        symmetric(derived.symmetric),
        group(derived.indices_per_cycle),
        t(config.mac_tree_inputs),
        k(config.channels),
        beats(derived.index_counter_array.beats_per_row),
        chunks(derived.index_counter_array.chunks_per_row),
        w(int(options.param("count_bits"))),
        lane(symmetric ? derived.count_data_bits : w),
        model(config),
        held{std::vector<int>(size_t(group)), std::vector<bool>(size_t(group), true)} {}

  int run();
  // A presented count's bits: the count, or with symmetric codebooks the signed count in two's
  // complement, a bit wider.
  uint64_t lane_bits(int64_t count) const { return uint64_t(count) & ((uint64_t{1} << lane) - 1); }
  void check_row();
  void check_counts(bool ready);
  void cycle();
  void drain();
  template <class Value, class On>
  void push_row(Value value, On on);
  int run_workload();
  void directed();
  void random_phases();
  void measure();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const oasis::Derived derived;
  const int b;
  const int entries;  // counts presented a row
  const int indices;  // concatenated index values
  const bool symmetric;
  const int group;
  const int t;
  const int k;
  const int beats;
  const int chunks;
  const int w;
  const int lane;
  oasis::IndexCounterArray model;

  double gap = 0.3, backpressure = 0.3;
  std::deque<Beat> queue;                           // beats to send; front is offered
  std::deque<std::vector<uint64_t>> expected_rows;  // docs/spec.md section 6 counts of rows sent
  std::vector<uint64_t> presented;                  // counts of the row being presented
  uint64_t rows_checked = 0;
  // The cycles rows' last beats were accepted in, of rows not yet presented.
  std::deque<int64_t> last_accepts;
  std::vector<int64_t> latencies, first_chunk_cycles;
  // Workload mode: the cycles of the run, and the inputs as last driven.
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  Beat held;
};

// The whole row against the rule of docs/spec.md section 6, independent of the model.
void ArrayBench::check_row() {
  if (expected_rows.empty()) {
    h.fail("a row was presented that was never sent");
  } else {
    const auto& want = expected_rows.front();
    for (int e = 0; e < chunks * t; ++e) {
      const uint64_t x = e < entries ? want[size_t(e)] : 0;
      if (!h.check("row count (docs/spec.md section 6)", x, presented[size_t(e)],
                   fmt::format("entry {}", e))) {
        break;
      }
    }
    expected_rows.pop_front();
  }
  presented.clear();
  h.scoreboard().count_vector();
  ++rows_checked;
}

// A valid chunk of counts: against the cycle model, and when taken, gathered into the row.
void ArrayBench::check_counts(bool ready) {
  h.check("cnt_chunk_o", uint64_t(model.cnt_chunk()), dut.cnt_chunk_o);
  h.check("cnt_last_o", model.cnt_last(), dut.cnt_last_o);
  if (model.cnt_chunk() == 0 && presented.empty()) {
    first_chunk_cycles.push_back(int64_t(h.cycle()));
    if (!last_accepts.empty()) {
      latencies.push_back(int64_t(h.cycle()) - last_accepts.front());
      last_accepts.pop_front();
    }
  }
  for (int i = 0; i < t; ++i) {
    const uint64_t got = get_bits(dut.cnt_data_o, i * lane, lane);
    h.check("cnt_data_o", lane_bits(model.cnt_data(i)), got,
            fmt::format("chunk {} count {} (entry {})", model.cnt_chunk(), i,
                        model.cnt_chunk() * t + i));
  }
  if (ready) {
    for (int i = 0; i < t; ++i) presented.push_back(get_bits(dut.cnt_data_o, i * lane, lane));
    if (model.cnt_last()) check_row();
  }
}

void ArrayBench::cycle() {
  const bool offer = !queue.empty() && !(gap > 0 && h.coin(gap));
  const bool ready = !(backpressure > 0 && h.coin(backpressure));
  Beat garbage = held;
  if (!offer && !options.workload) {
    garbage = Beat{};
    for (int p = 0; p < group; ++p) {
      garbage.idx.push_back(int(h.random_bits(b)));
      garbage.mask.push_back(h.coin(0.5));
    }
  }
  const Beat& beat = offer ? queue.front() : garbage;
  held = beat;
  dut.idx_valid_i = offer;
  for (int p = 0; p < group; ++p) {
    set_bits(dut.idx_data_i, p * b, b, uint64_t(beat.idx[size_t(p)]));
    set_bits(dut.idx_mask_i, p, 1, beat.mask[size_t(p)] ? 1 : 0);
  }
  dut.cnt_ready_i = ready;
  h.settle();
  const std::string where = fmt::format("row beat {} of {}", model.beat(), beats);
  h.check("idx_ready_o", model.idx_ready(ready), dut.idx_ready_o, where);
  h.check("cnt_valid_o", model.cnt_valid(), dut.cnt_valid_o);
  if (model.cnt_valid() && dut.cnt_valid_o) check_counts(ready);
  const bool accepted = offer && dut.idx_ready_o;
  if (in_window) {
    if (offer) window.present(h.cycle());
    if (model.cnt_valid() && dut.cnt_valid_o && ready) window.output(h.cycle());
    if (accepted) window.busy();
  }
  model.clock(offer, beat.idx, beat.mask, ready);
  if (accepted) {
    if (model.beat() == 0) last_accepts.push_back(int64_t(h.cycle()));  // a row's last beat
    queue.pop_front();
  }
  h.step();
}

void ArrayBench::drain() {
  uint64_t guard = 0;
  while ((!queue.empty() || model.pending() || model.cnt_valid() || dut.cnt_valid_o) &&
         !h.scoreboard().should_stop()) {
    cycle();
    if (++guard > 10'000'000) {
      h.fail("the array did not drain in 10^7 cycles");
      break;
    }
  }
}

// Queues one row: value(k) gives channel k's index, on(k) its mask bit.
// Positions beyond K carry random indices and mask bits, which must not count.
template <class Value, class On>
void ArrayBench::push_row(Value value, On on) {
  std::vector<int> row_idx;
  std::vector<bool> row_mask;
  for (int beat = 0; beat < beats; ++beat) {
    Beat x;
    for (int p = 0; p < group; ++p) {
      const int ch = beat * group + p;
      if (ch < k) {
        x.idx.push_back(value(ch));
        x.mask.push_back(on(ch));
        row_idx.push_back(x.idx.back());
        row_mask.push_back(x.mask.back());
      } else if (options.workload) {
        x.idx.push_back(0);
        x.mask.push_back(true);
      } else {
        x.idx.push_back(int(h.random_bits(b)));
        x.mask.push_back(h.coin(0.7));
      }
    }
    queue.push_back(x);
  }
  const std::vector<uint32_t> counts = oasis::index_counts(row_idx, row_mask, b);
  std::vector<uint64_t> want;
  if (symmetric) {
    // docs/spec.md section 1, Symmetric codebooks: each index in its bin, then positive less
    // negative.
    for (const int32_t s : oasis::fold_counts(counts, config.act_bits, config.weight_bits)) {
      want.push_back(lane_bits(s));
    }
  } else {
    for (const uint32_t c : counts) want.push_back(c);
  }
  expected_rows.push_back(std::move(want));
}

int ArrayBench::run_workload() {
  const oasis::tb::Workload wl = oasis::tb::build_workload(config, options);
  gap = backpressure = 0;
  h.reset();
  model.reset();
  in_window = true;
  for (int tok = 0; tok < wl.tokens; ++tok) {
    const std::vector<uint8_t>& ia = wl.prepared[size_t(tok)].act_index;
    for (int n = 0; n < wl.rows; ++n) {
      const auto iw = wl.row(n);
      push_row([&](int ch) { return (ia[size_t(ch)] << config.weight_bits) | iw[size_t(ch)]; },
               all);
    }
  }
  drain();
  in_window = false;
  if (!expected_rows.empty()) {
    h.fail(fmt::format("{} rows sent but never presented", expected_rows.size()));
  }
  oasis::tb::report_workload(h, wl, window, "indices counted", wl.products());
  return h.finish();
}

// Directed rows: the largest counts (all K indices equal), an empty row,
// alternating indices and masks.
void ArrayBench::directed() {
  for (const int e : {0, indices - 1, indices / 2 + 1 < indices ? indices / 2 + 1 : 0}) {
    push_row([e](int) { return e; }, all);
  }
  push_row([](int) { return 0; }, [](int) { return false; });
  push_row([&](int ch) { return ch % indices; }, all);
  // Weight indices 0 and its mirror 2^nW - 1 in turn: with symmetric codebooks one magnitude's
  // positive and negative products, which cancel.
  push_row([&](int ch) { return ch % 2 == 0 ? 0 : (1 << config.weight_bits) - 1; }, all);
  push_row([&](int ch) { return (indices - 1) ^ (ch & 1); }, [](int ch) { return ch % 3 != 0; });
  drain();
  // The largest counts again, back to back with no gaps and no backpressure.
  gap = 0;
  backpressure = 0;
  for (int e = 0; e < std::min(indices, 8); ++e) push_row([e](int) { return e; }, all);
  drain();
}

// Seeded random rows in phases of different gap and backpressure rates.
void ArrayBench::random_phases() {
  const uint64_t rows = options.vectors ? options.vectors : 400;
  const int phases = 8;
  for (int phase = 0; phase < phases && !h.scoreboard().should_stop(); ++phase) {
    gap = (phase % 4) * 0.25;
    backpressure = ((phase + 1) % 4) * 0.2 + (phase == 2 ? 0.15 : 0);
    for (uint64_t r = 0; r < rows / phases; ++r) {
      const int mode = int(h.random_bits(2));
      if (mode == 0) {
        // few distinct indices: large counts
        const int a = int(h.random_bits(b)), c = int(h.random_bits(b));
        push_row([&, a, c](int) { return h.coin(0.8) ? a : c; }, all);
      } else {
        push_row([&](int) { return int(h.random_bits(b)); },
                 [&, mode](int) { return mode == 1 ? true : h.coin(0.9); });
      }
    }
    drain();
  }
}

// Measurement: an unthrottled stream of rows after an idle array.
void ArrayBench::measure() {
  gap = 0;
  backpressure = 0;
  for (int i = 0; i < 4; ++i) cycle();
  latencies.clear();
  first_chunk_cycles.clear();
  last_accepts.clear();
  const int n = 8;
  for (int r = 0; r < n; ++r) push_row([&](int) { return int(h.random_bits(b)); }, all);
  drain();
  h.check("rows presented in the measurement", uint64_t(n), first_chunk_cycles.size());
  // The first row finds the array idle; the others too when a row's presentation is no
  // longer than its counting (rows then never wait for the presenting bank) or when
  // nothing holds an accepted beat (latency 1: a last beat is taken only into a free
  // bank); else they may wait in the input stage or at the trees' end.
  const uint64_t latency = uint64_t(options.param("latency_cycles"));
  for (size_t i = 0; i < latencies.size(); ++i) {
    if (i == 0 || chunks <= beats || latency == 1) {
      h.check("measured latency_cycles (row's last beat accepted -> first chunk)", latency,
              uint64_t(latencies[i]), fmt::format("row {}", i));
    } else if (uint64_t(latencies[i]) < latency) {
      h.fail(
          fmt::format("row {} presented {} cycle(s) after its last beat, under the "
                      "latency {}",
                      i, latencies[i], latency));
    }
  }
  for (size_t i = 1; i < first_chunk_cycles.size(); ++i) {
    h.check("measured row_interval_cycles", uint64_t(options.param("row_interval_cycles")),
            uint64_t(first_chunk_cycles[i] - first_chunk_cycles[i - 1]),
            fmt::format("rows {} and {}", i - 1, i));
  }
  fmt::print(
      "measured: latency {} cycle(s), row interval {} cycles ({} beats, {} chunks a row), "
      "{} rows checked\n",
      latencies.empty() ? -1 : latencies[0],
      first_chunk_cycles.size() > 1 ? first_chunk_cycles[1] - first_chunk_cycles[0] : -1, beats,
      chunks, rows_checked);
}

int ArrayBench::run() {
  if (options.workload) return run_workload();

  h.reset();
  model.reset();
  for (int i = 0; i < 3; ++i) cycle();  // idle after reset
  directed();
  random_phases();
  measure();
  if (!expected_rows.empty())
    h.fail(fmt::format("{} rows sent but never presented", expected_rows.size()));
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  ArrayBench bench(argc, argv);
  return bench.run();
}
