// SPDX-License-Identifier: Apache-2.0
// The core's cycle model on the paper's configuration (configs/paper.json:
// 16 PE lines, K = 4096, W4A4, 21 outliers per side): one 1 x 4096 x 4096
// GEMM on synthetic LLM-like data, every output checked against the golden
// model. Counters: the GEMM phase (first weight beat taken to last output
// taken) against docs/spec.md section 6's 2048-cycle bound, the token's
// pre-processing (clustering, Orizuru, residuals) and its share of the
// token's latency, the outlier branch's cycles a row against the main
// branch's, and the cycle model's speed. The RTL is cycle-identical to this
// model wherever the testbench runs it (tools/bench_core.sh runs Verilator).
#include <benchmark/benchmark.h>

#include <algorithm>

#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/bench/bench_main.hpp"

namespace {

using namespace oasis;

void BM_CorePaperConfig_1x4096x4096(benchmark::State& state) {
  const Config c = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json");
  const int K = c.channels, N = 4096;
  SyntheticActivationSpec spec;
  spec.channels = K;
  spec.tokens = 1;
  const std::vector<Fp16> x = synthetic_activations(spec, 1);
  spec.tokens = 16;
  const std::vector<Fp16> calib = synthetic_activations(spec, 2);
  const QuantizedWeights qw = quantize_weights(synthetic_weights(N, K, 3), N, K, {});
  ActCalibrationOptions ao;
  ao.outliers_per_side = c.outliers_per_side;
  const ActCalibration cal = calibrate_activations(calib, 16, K, {}, ao);
  const LutGemm gemm(LutGemmParams::from_config(c), cal.codebook, qw.codebook);
  const PreparedToken token = gemm.prepare(x);
  std::vector<std::vector<uint8_t>> iw(static_cast<size_t>(N));
  std::vector<Fp16> sw(static_cast<size_t>(N));
  for (int n = 0; n < N; ++n) {
    iw[size_t(n)].assign(qw.indices.begin() + ptrdiff_t(n) * K,
                         qw.indices.begin() + ptrdiff_t(n + 1) * K);
    sw[size_t(n)] = qw.scales[size_t(n)];
  }

  CoreTokenRun run;
  for (auto _ : state) {
    run = run_core(c, gemm, {token.xhat}, {token.scale}, iw, sw).at(0);
  }
  for (int n = 0; n < N; ++n) {
    if (run.y.at(size_t(n)).bits != gemm.row(token, iw[size_t(n)], sw[size_t(n)]).bits) {
      state.SkipWithError("an output differs from the golden model");
      return;
    }
  }
  const Derived d = derive(c);
  const LineTiming& line = d.pe_line;
  const int64_t gemm_cycles = run.last_output - run.first_weight + 1;
  const int64_t bound = d.gemm_lower_bound(N);
  const int64_t preprocess = run.context_ready - run.first_beat + 1;
  const int64_t token_latency = run.last_output - run.first_beat + 1;
  const int main_cycles = std::max(line.count_beats, line.chunks);
  state.counters["outputs_checked"] = double(run.y.size());
  state.counters["gemm_cycles"] = double(gemm_cycles);
  state.counters["gemm_bound"] = double(bound);
  state.counters["gemm_over_bound_pct"] = 100.0 * double(gemm_cycles - bound) / double(bound);
  state.counters["preprocess_cycles"] = double(preprocess);
  state.counters["preprocess_share_pct"] = 100.0 * double(preprocess) / double(token_latency);
  state.counters["main_cycles_per_row"] = main_cycles;
  state.counters["outlier_cycles_per_row"] = line.groups;
  state.counters["outlier_sooner_pct"] =
      100.0 * double(main_cycles - line.groups) / double(main_cycles);
  state.counters["model_cycles/s"] = benchmark::Counter(
      double(token_latency) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CorePaperConfig_1x4096x4096)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

OASIS_BENCH_MAIN()
