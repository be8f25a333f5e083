// The bit-exact OASIS GEMM of the paper's configuration (1 x 4096 x 4096,
// W4A4, 21 outliers per side, binary16 accumulator) against the FP32
// reference GEMM on the same synthetic data. The rate counters count the
// equivalent multiply-accumulates, K * N per token, for every path.
#include <benchmark/benchmark.h>

#include <memory>

#include "model/config.hpp"
#include "model/lut_gemm.hpp"
#include "model/quant.hpp"
#include "model/synth_data.hpp"

namespace {

using namespace oasis;

struct Setup {
  Config config;
  int k = 0, n = 0;
  std::vector<Fp16> x, w;
  QuantizedWeights qw;
  std::unique_ptr<LutGemm> model;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup s;
    s.config = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json");
    s.k = s.config.channels;
    s.n = 4096;
    SyntheticActivationSpec spec;
    spec.channels = s.k;
    spec.tokens = 1;
    s.x = synthetic_activations(spec, 1);
    spec.tokens = 16;
    const std::vector<Fp16> calib = synthetic_activations(spec, 2);
    s.w = synthetic_weights(s.n, s.k, 3);
    s.qw = quantize_weights(s.w, s.n, s.k, {});
    ActCalibrationOptions ao;
    ao.outliers_per_side = s.config.outliers_per_side;
    const ActCalibration cal = calibrate_activations(calib, 16, s.k, {}, ao);
    s.model = std::make_unique<LutGemm>(LutGemmParams::from_config(s.config), cal.codebook,
                                        s.qw.codebook);
    return s;
  }();
  return s;
}

void rate(benchmark::State& state, const Setup& s) {
  state.counters["MAC/s"] = benchmark::Counter(double(s.k) * s.n * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
  state.counters["rows/s"] =
      benchmark::Counter(double(s.n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_OasisLutGemm_1x4096x4096(benchmark::State& state) {
  const Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(s.model->gemm(s.x, 1, s.qw));
  rate(state, s);
}

void BM_ReferenceFp32Gemm_1x4096x4096(benchmark::State& state) {
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

BENCHMARK(BM_OasisLutGemm_1x4096x4096)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ReferenceFp32Gemm_1x4096x4096)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ConventionalDequantGemm_1x4096x4096)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_PrepareToken_4096)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
