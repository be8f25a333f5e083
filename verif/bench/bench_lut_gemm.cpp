// SPDX-License-Identifier: Apache-2.0
// The bit-exact OASIS GEMM of the paper's configuration (1 x 4096 x 4096, W4A4, 21 outliers
// per side, binary16 accumulator) against an FP32 GEMM on the same data, each on one thread
// and on every core, then two tables of the two side by side: run back to back, and run
// alternately (below). The OASIS GEMM counts from the layer's WeightTiles, made once at setup as
// the FP32 GEMM's binary32 weights are; the same GEMM counting row by row and the layout's own
// time are benchmarks of their own. The FP32 GEMM is the loop a user would otherwise run: binary32
// weights, 16 partial sums a row so that the compiler vectorizes it (no -ffast-math needed), rows
// split over the threads as the OASIS GEMM splits them. Also the model's ordered FP32 reference (k
// ascending, one sum: the SQNR reference, which does not vectorize), the conventional
// dequantise-then-GEMM path in software binary16/32, and a token's preparation. The rate counters
// count the equivalent multiply-accumulates, K * N per token, for every path.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "model/config.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/bench/bench_main.hpp"

namespace {

using namespace oasis;

struct Setup {
  Config config;
  int k = 0, n = 0;
  std::vector<Fp16> x, w;
  std::vector<float> xf, wf;  // the same data in binary32, for the FP32 GEMM
  QuantizedWeights qw;
  std::unique_ptr<WeightTiles> tiles;  // qw laid out for the AVX2 kernel, once, as a layer's
  std::unique_ptr<LutGemm> model;
};

// The paper config's layer; with `symmetric`, codebooks symmetric about zero and a config that
// says so (docs/spec.md section 1, Symmetric codebooks).
Setup make_setup(bool symmetric) {
  Setup s;
  s.config = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json",
                         {symmetric ? "codebooks=symmetric" : "codebooks=free"});
  s.k = s.config.channels;
  s.n = 4096;
  SyntheticActivationSpec spec;
  spec.channels = s.k;
  spec.tokens = 1;
  s.x = synthetic_activations(spec, 1);
  spec.tokens = 16;
  const std::vector<Fp16> calib = synthetic_activations(spec, 2);
  s.w = synthetic_weights(s.n, s.k, 3);
  for (const Fp16 v : s.x) s.xf.push_back(float(to_double(v)));
  for (const Fp16 v : s.w) s.wf.push_back(float(to_double(v)));
  WeightQuantOptions wo;
  wo.symmetric = symmetric;
  s.qw = quantize_weights(s.w, s.n, s.k, wo);
  s.tiles = std::make_unique<WeightTiles>(s.qw);
  ActCalibrationOptions ao;
  ao.outliers_per_side = s.config.outliers_per_side;
  ao.symmetric = symmetric;
  const ActCalibration cal = calibrate_activations(calib, 16, s.k, {}, ao);
  s.model =
      std::make_unique<LutGemm>(LutGemmParams::from_config(s.config), cal.codebook, s.qw.codebook);
  return s;
}

const Setup& setup() {
  static const Setup s = make_setup(false);
  return s;
}

const Setup& symmetric_setup() {
  static const Setup s = make_setup(true);
  return s;
}

int all_cores() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// y = W x for one token in binary32: lane l of 16 sums k = l mod 16, the lanes are added at
// the end; rows [begin, end). Compiled for AVX2 as well where the host has it, as the OASIS
// GEMM's kernel is.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void fp32_gemv_rows(const float* x, const float* w, float* y, size_t k, size_t begin,
                    size_t end) {
  constexpr size_t kLanes = 16;
  for (size_t r = begin; r < end; ++r) {
    const float* wr = w + r * k;
    float acc[kLanes] = {};
    size_t i = 0;
    for (; i + kLanes <= k; i += kLanes) {
      for (size_t l = 0; l < kLanes; ++l) acc[l] += x[i + l] * wr[i + l];
    }
    for (; i < k; ++i) acc[0] += x[i] * wr[i];
    float sum = 0;
    for (const float a : acc) sum += a;
    y[r] = sum;
  }
}

std::vector<float> fp32_gemv(const Setup& s, int threads) {
  std::vector<float> y(size_t(s.n));
  const size_t n = size_t(s.n), t = size_t(threads);
  std::vector<std::thread> pool;
  for (size_t b = 1; b < t; ++b) {
    pool.emplace_back(fp32_gemv_rows, s.xf.data(), s.wf.data(), y.data(), size_t(s.k), n * b / t,
                      n * (b + 1) / t);
  }
  fp32_gemv_rows(s.xf.data(), s.wf.data(), y.data(), size_t(s.k), 0, n / t);
  for (std::thread& th : pool) th.join();
  return y;
}

void rate(benchmark::State& state, const Setup& s) {
  state.counters["MAC/s"] = benchmark::Counter(double(s.k) * s.n * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
  state.counters["rows/s"] =
      benchmark::Counter(double(s.n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Fp32Gemm_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  const int threads = int(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp32_gemv(s, threads));
  rate(state, s);
}

// The bit-exact GEMM, counting from the layer's weight tiles (the fast path).
void BM_OasisLutGemm_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  const int threads = int(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.model->gemm(s.x, 1, s.qw, threads, s.tiles.get()));
  }
  rate(state, s);
}

// The same without tiles: rows counted from the row-major indices, two at a time.
void BM_OasisLutGemmRowMajor_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(s.model->gemm(s.x, 1, s.qw, 1));
  rate(state, s);
}

// The same layer with symmetric codebooks: the kernels count as for free ones, then fold the
// counts into the signed counts of the 64 magnitudes.
void BM_OasisLutGemmSymmetric_1x4096x4096(benchmark::State& state) {
  const Setup& s = symmetric_setup();
  const int threads = int(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.model->gemm(s.x, 1, s.qw, threads, s.tiles.get()));
  }
  rate(state, s);
}

// Laying a layer's weights out in tiles, once a layer.
void BM_WeightTiles_4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(WeightTiles(s.qw));
}

void BM_ReferenceFp32GemmInOrder_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(reference_gemm_fp32(s.x, 1, s.w, s.n, s.k));
  rate(state, s);
}

void BM_ConventionalDequantGemm_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(conventional_gemm(*s.model, s.x, 1, s.qw));
  rate(state, s);
}

void BM_PrepareToken_4096(benchmark::State& state) {
  // Scale, normalise, cluster and Orizuru: shared by every row of a token.
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(s.model->prepare(s.x));
}

// One thread and every core; wall time and the CPU time of the whole process, each run
// kRepetitions times (the console shows the least).
constexpr int kRepetitions = 5;

void threads_args(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")->Arg(1);
  if (all_cores() > 1) b->Arg(all_cores());
  b->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime()->MeasureProcessCPUTime();
  b->Repetitions(kRepetitions)->DisplayAggregatesOnly(true);
  b->ComputeStatistics(
      "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

BENCHMARK(BM_Fp32Gemm_1x4096x4096)->Apply(threads_args);
BENCHMARK(BM_OasisLutGemm_1x4096x4096)->Apply(threads_args);
BENCHMARK(BM_OasisLutGemmSymmetric_1x4096x4096)->Apply(threads_args);
BENCHMARK(BM_OasisLutGemmRowMajor_1x4096x4096)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_WeightTiles_4096x4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReferenceFp32GemmInOrder_1x4096x4096)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ConventionalDequantGemm_1x4096x4096)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_PrepareToken_4096)->Unit(benchmark::kMicrosecond);

// The side-by-side tables: OASIS against FP32, one thread and every core, the least run of
// each (other work on a shared host only ever adds time).
// - Back to back: Google Benchmark's runs above, each GEMM repeated on its own. The 16 MB of
//   weight indices then stay in a last-level cache of 32 MB (a core complex of the AMD EPYC
//   this was measured on), and part of the 64 MB of binary32 weights may.
// - Alternately: one GEMM of each in turn, kAlternations times. Each evicts the other's
//   weights, so each reads its own from memory, as in inference, where a layer's weights are
//   read once a token; and the two are measured side by side in time, while a shared host's
//   memory and cores move over seconds.
constexpr int kAlternations = 40;

struct Figures {
  double oasis_wall = 1e300, fp32_wall = 1e300, oasis_cpu = 1e300, fp32_cpu = 1e300;
};
using Table = std::map<int, Figures>;  // by thread count

void print_table(std::ostream& out, const std::string& how, const Table& table) {
  out << fmt::format(
      "\nbit-exact OASIS GEMM against the FP32 GEMM, 1 x 4096 x 4096, {}\n"
      "(ms per GEMM, the least run of each; CPU is the whole process's, so it adds the threads "
      "up):\n",
      how);
  out << fmt::format("  {:>7}  {:>14}  {:>14}  {:>14}  {:>14}  {:>10}\n", "threads", "OASIS wall",
                     "FP32 wall", "OASIS CPU", "FP32 CPU", "OASIS/FP32");
  for (const auto& [threads, f] : table) {
    out << fmt::format("  {:>7}  {:>14.2f}  {:>14.2f}  {:>14.2f}  {:>14.2f}  {:>9.2f}x\n", threads,
                       f.oasis_wall, f.fp32_wall, f.oasis_cpu, f.fp32_cpu,
                       f.oasis_cpu / f.fp32_cpu);
  }
  if (table.size() > 1) {
    const Figures& one = table.begin()->second;
    const auto& [threads, many] = *table.rbegin();
    out << fmt::format("  {} threads against 1, wall: OASIS {:.2f}x faster, FP32 {:.2f}x\n",
                       threads, one.oasis_wall / many.oasis_wall, one.fp32_wall / many.fp32_wall);
  }
}

// The console output, keeping the least runs of the two GEMMs for the back-to-back table.
class BackToBack : public oasis::bench::Reporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    Reporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "min" || r.error_occurred) {
        continue;
      }
      const std::string name = r.run_name.str();
      const size_t at = name.find("threads:");
      if (at == std::string::npos) continue;
      // The table's OASIS GEMM is the paper config's (free codebooks, from tiles).
      if (name.find("Symmetric") != std::string::npos) continue;
      const bool oasis = name.find("Oasis") != std::string::npos;
      Figures& f = table_[std::stoi(name.substr(at + 8))];
      // Per iteration, in milliseconds (the unit the benchmarks report in).
      (oasis ? f.oasis_wall : f.fp32_wall) = r.GetAdjustedRealTime();
      (oasis ? f.oasis_cpu : f.fp32_cpu) = r.GetAdjustedCPUTime();
    }
  }
  // Only thread counts both GEMMs ran at (a filter may have left one out).
  Table table() const {
    Table t;
    for (const auto& [threads, f] : table_) {
      if (f.oasis_cpu < 1e300 && f.fp32_cpu < 1e300) t[threads] = f;
    }
    return t;
  }

 private:
  Table table_;
};

double now_ms(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// Times f() once, keeping the least wall and CPU (the whole process's) milliseconds.
template <class F>
void time_once(const F& f, double& wall, double& cpu) {
  const double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
  f();
  wall = std::min(wall, now_ms(CLOCK_MONOTONIC) - w0);
  cpu = std::min(cpu, now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
}

Table alternately() {
  const Setup& s = setup();
  Table table;
  std::vector<int> threads_list = {1};
  if (all_cores() > 1) threads_list.push_back(all_cores());
  for (const int threads : threads_list) {
    Figures& f = table[threads];
    for (int i = 0; i < kAlternations; ++i) {
      time_once([&] { benchmark::DoNotOptimize(fp32_gemv(s, threads)); }, f.fp32_wall, f.fp32_cpu);
      time_once(
          [&] { benchmark::DoNotOptimize(s.model->gemm(s.x, 1, s.qw, threads, s.tiles.get())); },
          f.oasis_wall, f.oasis_cpu);
    }
  }
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  BackToBack reporter;
  const int status = oasis::bench::run(argc, argv, reporter);
  if (status != 0) return status;
  const Table back_to_back = reporter.table();
  if (!back_to_back.empty()) {
    print_table(std::cout, fmt::format("back to back, {} runs each", kRepetitions), back_to_back);
  }
  print_table(std::cout,
              fmt::format("alternately, {} runs each, one of each in turn", kAlternations),
              alternately());
  return 0;
}
