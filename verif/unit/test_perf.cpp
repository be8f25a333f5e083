// SPDX-License-Identifier: Apache-2.0
// The performance model against the cycle model: for the configs of the
// core's sweeps (sim/sweeps/core*.txt), configs/*.json and random valid
// configs, M = 1..3 tokens streamed back to back with every stream
// unthrottled, layer_perf's per-token cycles (first beat, context ready,
// first weight beat, last output) equal what run_core measures on Core,
// exactly. Row counts on both sides of the pre-processing / GEMM balance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/perf/perf.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/unit/config_cases.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::random_gemm;

using test::kSource;

using Case = test::ConfigCase;
using test::config_cases;
using test::random_cases;

std::vector<Case> sweep_cases() { return test::sweep_cases("core"); }

// Row counts: a partial single group, and enough groups for the GEMM phase
// to outlast the pre-processing (so both sides of the max are exercised).
std::vector<int64_t> row_counts(const Config& c) {
  const TokenFigures f = token_figures(c, 1);
  const int64_t P = c.pe_lines;
  const int64_t groups = (f.preprocess + f.row_interval - 1) / f.row_interval + 2;
  std::vector<int64_t> rows = {std::max<int64_t>(1, P - 1), groups * P - (P > 1 ? 1 : 0)};
  return rows;
}

void check(const Case& cs, int64_t rows, int tokens, uint64_t seed) {
  const Config& c = cs.config;
  SCOPED_TRACE(cs.label + " rows " + std::to_string(rows) + " tokens " + std::to_string(tokens));
  std::mt19937_64 rng(seed);
  const LutGemm gemm = random_gemm(c, rng);
  const test::RandomInputs in = test::random_inputs(c, tokens, rows, rng);
  const auto runs = run_core(c, gemm, in.x, in.sa, in.iw, in.sw);
  const LayerPerf L = layer_perf(c, rows, PerfOptions{tokens, 0});
  ASSERT_EQ(runs.size(), size_t(tokens));
  const int64_t origin = runs[0].first_beat;
  for (int t = 0; t < tokens; ++t) {
    const CoreTokenRun& r = runs[size_t(t)];
    EXPECT_EQ(r.first_beat - origin, L.first_beat[size_t(t)]) << "token " << t;
    EXPECT_EQ(r.context_ready - origin, L.context_ready[size_t(t)]) << "token " << t;
    EXPECT_EQ(r.first_weight - origin, L.first_weight[size_t(t)]) << "token " << t;
    EXPECT_EQ(r.last_output - origin, L.last_output[size_t(t)]) << "token " << t;
  }
  EXPECT_EQ(runs.back().last_output - origin + 1, L.cycles);
  EXPECT_EQ(L.token.gemm, derive(c).gemm_cycles(rows));
  EXPECT_EQ(L.token.preprocess, derive(c).core.preprocess_cycles);
  EXPECT_EQ(L.exposed_preprocess + L.exposed_rows + L.exposed_drain, L.cycles);
  if (tokens >= 2) {
    const int64_t period = runs[1].last_output - runs[0].last_output;
    EXPECT_EQ(period, L.token_period);
  }
}

void check_all(const std::vector<Case>& cases, uint64_t seed) {
  int runs = 0;
  for (const auto& cs : cases) {
    for (const int64_t rows : row_counts(cs.config)) {
      for (int m = 1; m <= 3; ++m, ++runs) check(cs, rows, m, seed);
    }
  }
  std::printf("%zu configs, %d runs of 1 to 3 tokens compared\n", cases.size(), runs);
}

TEST(Perf, EqualsTheCycleModelOnTheCoreSweeps) {
  const auto cases = sweep_cases();
  EXPECT_GE(cases.size(), 7u);
  check_all(cases, 1);
}

// The paper config is the expensive one (16 lines, K = 4096): about
// 1,200 cycles a token of pre-processing and 160 groups for the long case.
TEST(Perf, EqualsTheCycleModelOnTheNamedConfigs) { check_all(config_cases(), 2); }

TEST(Perf, EqualsTheCycleModelOnRandomConfigs) { check_all(random_cases(150, 3), 3); }

TEST(Perf, PaperConfigLlama7bQ) {
  // 1 x 4096 x 4096: 256 groups of 8 cycles, bound by the main branch, and the last row's
  // latency (20 cycles, its counting streamed); the outlier branch needs ceil(42 / 8) = 6
  // cycles a row.
  const Config c = load_config(kSource + "/configs/paper.json");
  const LayerPerf L = layer_perf(c, 4096, PerfOptions{1, 0});
  EXPECT_EQ(L.token.gemm, 2068);
  EXPECT_EQ(L.token.preprocess, 1077);
  EXPECT_EQ(L.cycles, 1077 + 1 + 2068);
  EXPECT_EQ(L.token.outlier_cycles, 6);
  EXPECT_EQ(phase_branch(L.bound), "main branch");
  // Back to back the pre-processing hides behind the GEMM: one token every
  // 2069 cycles.
  EXPECT_EQ(layer_perf(c, 4096, PerfOptions{4, 0}).token_period, 2069);
}

TEST(Perf, MemoryBoundLayers) {
  const Config c = load_config(kSource + "/configs/paper.json");
  // A group: 16 rows x 4096 x 4 bits = 32768 bytes and 32 bytes of scales.
  const TokenFigures slow = token_figures(c, 4096, 1024);
  EXPECT_EQ(slow.group_bytes, 32800);
  EXPECT_EQ(slow.memory_cycles, 33);
  EXPECT_EQ(slow.row_interval, 33);
  EXPECT_EQ(slow.interval_bound, PerfPhase::kMemory);
  const TokenFigures fast = token_figures(c, 4096, 8192);
  EXPECT_EQ(fast.memory_cycles, 5);
  EXPECT_EQ(fast.row_interval, 8);
  EXPECT_EQ(fast.gemm, derive(c).gemm_cycles(4096));
}

TEST(Perf, RejectsBadArguments) {
  const Config c = load_config(kSource + "/configs/paper.json");
  EXPECT_THROW(layer_perf(c, 0, PerfOptions{1, 0}), std::invalid_argument);
  EXPECT_THROW(layer_perf(c, 8, PerfOptions{0, 0}), std::invalid_argument);
  EXPECT_THROW(layer_perf(c, 8, PerfOptions{1, -1}), std::invalid_argument);
  EXPECT_THROW(load_model_shape(kSource + "/configs/models/none.json"), ConfigError);
}

TEST(Perf, ModelShapesLoad) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/configs/models")) {
    const ModelShape m = load_model_shape(e.path().string());
    EXPECT_EQ(m.linear.size(), 7u) << e.path();
    EXPECT_GE(m.layers, 32) << e.path();
    ++n;
  }
  EXPECT_EQ(n, 5);
}

}  // namespace
}  // namespace oasis
