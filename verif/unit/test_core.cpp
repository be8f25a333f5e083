// SPDX-License-Identifier: Apache-2.0
// The core's cycle model: every output equals LutGemm::row for the token as
// LutGemm::prepare_normalized sees it, with and without gaps and
// backpressure; y_last marks each token's last group; an unthrottled token
// shows the pre-processing and GEMM-phase cycles that derive() states
// (Derived::core, Derived::gemm_cycles), across configs (the paper's included).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::kDefault;
using test::kPaper;

using test::random_gemm;

struct Case {
  std::string path;
  std::vector<std::string> overrides;
  int rows;
};

void check(const Case& cs, int tokens, const CoreRunOptions& opt, bool measure) {
  SCOPED_TRACE(cs.path + " " + testing::PrintToString(cs.overrides));
  const Config c = load_config(cs.path, cs.overrides);
  std::mt19937_64 rng(opt.seed);
  const LutGemm gemm = random_gemm(c, rng);
  const test::RandomInputs in = test::random_inputs(c, tokens, cs.rows, rng);
  const auto& [x, sa, iw, sw] = in;

  const auto runs = run_core(c, gemm, x, sa, iw, sw, opt);
  ASSERT_EQ(runs.size(), size_t(tokens));
  for (int t = 0; t < tokens; ++t) {
    const PreparedToken token = gemm.prepare_normalized(x[size_t(t)], sa[size_t(t)]);
    ASSERT_EQ(runs[size_t(t)].y.size(), size_t(cs.rows));
    for (int n = 0; n < cs.rows; ++n) {
      ASSERT_EQ(runs[size_t(t)].y[size_t(n)].bits,
                gemm.row(token, iw[size_t(n)], sw[size_t(n)]).bits)
          << "token " << t << " row " << n;
      const bool last_group = n / c.pe_lines == (cs.rows - 1) / c.pe_lines;
      ASSERT_EQ(runs[size_t(t)].y_last[size_t(n)], last_group) << "token " << t << " row " << n;
    }
  }
  if (measure) {
    const CoreTokenRun& r = runs[0];
    const Derived d = derive(c);
    EXPECT_EQ(r.context_ready - r.first_beat + 1, d.core.preprocess_cycles);
    EXPECT_EQ(r.last_output - r.first_weight + 1, d.gemm_cycles(cs.rows));
    EXPECT_GE(d.gemm_cycles(cs.rows), d.gemm_lower_bound(cs.rows));
  }
}

const std::vector<Case> kCases = {
    {kDefault, {}, 9},
    {kDefault, {"channels=38", "mac_tree_inputs=8"}, 5},
    {kDefault,
     {"act_bits=3", "channels=100", "accumulator=fp16", "fp_pipeline_stages=0", "pe_lines=3",
      "weight_beat_indices=24", "clustering_lanes=3", "comp_macs=4"},
     7},
    {kDefault, {"pe_lines=1", "clustering_lanes=1", "fp_pipeline_stages=2"}, 3},
    {kDefault, {"orizuru_unit_inputs=16", "clustering_lanes=5", "outliers_per_side=10"}, 4},
    {kDefault, {"codebooks=symmetric", "channels=38", "mac_tree_inputs=8"}, 5},
    {kDefault, {"codebooks=symmetric", "act_bits=2", "accumulator=fp16", "pe_lines=3"}, 7},
};

TEST(Core, OutputsEqualTheGoldenModelUnthrottled) {
  for (const auto& cs : kCases) check(cs, 4, CoreRunOptions{}, true);
}

TEST(Core, OutputsEqualTheGoldenModelWithGapsAndBackpressure) {
  CoreRunOptions opt;
  opt.x_gap = 0.3;
  opt.w_gap = 0.4;
  opt.backpressure = 0.3;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    opt.seed = seed;
    for (const auto& cs : kCases) check(cs, 5, opt, false);
  }
}

// The paper's configuration (16 lines, K = 4096, W4A4, k = 21): a token's
// pre-processing and the GEMM phase of 64 rows as derive() states; the
// full 4096-row figures are in make bench.
TEST(Core, PaperConfigTiming) { check({kPaper, {}, 64}, 1, CoreRunOptions{}, true); }

TEST(Core, LowerBoundIsSpecSection6) {
  const Config c = load_config(kPaper);
  // 4096 rows on 16 lines: 256 groups of max(8, 8, 6) = 8 cycles.
  EXPECT_EQ(derive(c).gemm_lower_bound(4096), 2048);
  EXPECT_EQ(derive(c).pe_line.row_interval, 8);
}

}  // namespace
}  // namespace oasis
