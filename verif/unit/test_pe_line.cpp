// SPDX-License-Identifier: Apache-2.0
// The PE line's cycle model: every output equals LutGemm::row for the same
// token and row, rows leave in order, and an unthrottled stream shows the
// row interval and latency that derive(config).pe_line states (and the manifest
// carries), across configs that exercise each bound of the interval.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/pe_line.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::kDefault;

Fp16 moderate(std::mt19937_64& rng) {
  const uint16_t exp = uint16_t(9 + rng() % 13);
  return Fp16{uint16_t(((rng() & 1) << 15) | (exp << 10) | (rng() & 0x3FF))};
}

struct Result {
  std::vector<Fp16> y;
  std::vector<uint64_t> last_beat, first_valid;
};

// Streams `rows` random rows of one token through the model, unthrottled
// when `gaps` is false; returns the outputs and when they came.
Result run(const Config& c, const LutGemm& gemm, const PreparedToken& token, int rows,
           std::vector<std::vector<uint8_t>>& iw, std::vector<Fp16>& sw, bool gaps,
           std::mt19937_64& rng) {
  PeLine line(c);
  PeLineContext ctx;
  ctx.act_index = token.act_index;
  for (const auto& o : token.outliers) ctx.outlier_channels.push_back(o.channel);
  ctx.residuals = token.residuals;
  ctx.act_scale = token.scale;
  ctx.lut = gemm.lut();
  ctx.weight_codebook = gemm.weight_codebook();
  line.set_context(ctx);
  const int fill = line.timing().fill_beats;
  const int wb = c.weight_beat_indices;
  std::deque<std::vector<uint8_t>> beats;
  std::deque<Fp16> beat_scale;
  iw.assign(size_t(rows), std::vector<uint8_t>(size_t(c.channels)));
  sw.resize(size_t(rows));
  for (int r = 0; r < rows; ++r) {
    for (auto& x : iw[size_t(r)]) x = uint8_t(rng() % (1u << c.weight_bits));
    sw[size_t(r)] = moderate(rng);
    for (int b = 0; b < fill; ++b) {
      std::vector<uint8_t> beat(static_cast<size_t>(wb), 0);
      for (int p = 0; p < wb && b * wb + p < c.channels; ++p) {
        beat[size_t(p)] = iw[size_t(r)][size_t(b * wb + p)];
      }
      beats.push_back(beat);
      beat_scale.push_back(sw[size_t(r)]);
    }
  }
  Result out;
  int sent_beats = 0;
  for (uint64_t cycle = 0; out.y.size() < size_t(rows) && cycle < 100000; ++cycle) {
    const bool offer = !beats.empty() && !(gaps && rng() % 3 == 0);
    const bool ready = !(gaps && rng() % 3 == 0);
    if (line.y_valid() && ready) {
      out.y.push_back(line.y_data());
      out.first_valid.push_back(cycle);
    }
    const bool taken = offer && line.w_ready();
    const std::vector<uint8_t> empty(static_cast<size_t>(wb), 0);
    line.clock(offer, offer ? beats.front() : empty, offer ? beat_scale.front() : Fp16{}, ready);
    if (taken) {
      beats.pop_front();
      beat_scale.pop_front();
      if (++sent_beats % fill == 0) out.last_beat.push_back(cycle);
    }
  }
  EXPECT_TRUE(line.idle());
  return out;
}

void check_config(const Config& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int na = c.act_bits, nw = c.weight_bits;
  std::vector<Fp16> ca(size_t(1) << na), cw(size_t(1) << nw);
  for (size_t i = 0; i < ca.size(); ++i)
    ca[i] = fp16_from_double(-2.0 + 4.0 * double(i) / double(ca.size()));
  for (auto& x : cw) x = moderate(rng);
  if (c.codebooks == Codebooks::kSymmetric) {
    test::mirror_codebook(ca);  // -2 .. -0.25 mirrored: 0.25 .. 2
    test::mirror_codebook(cw);
  }
  const LutGemm gemm(LutGemmParams::from_config(c), ca, cw);
  std::vector<Fp16> x(size_t(c.channels));
  for (auto& v : x) v = moderate(rng);
  const PreparedToken token = gemm.prepare(x);
  for (const bool gaps : {false, true}) {
    std::vector<std::vector<uint8_t>> iw;
    std::vector<Fp16> sw;
    const int rows = 12;
    const Result r = run(c, gemm, token, rows, iw, sw, gaps, rng);
    ASSERT_EQ(r.y.size(), size_t(rows));
    for (int n = 0; n < rows; ++n) {
      EXPECT_EQ(r.y[size_t(n)].bits, gemm.row(token, iw[size_t(n)], sw[size_t(n)]).bits)
          << "row " << n << (gaps ? " with gaps" : "");
    }
    if (gaps) continue;
    const LineTiming t = derive(c).pe_line;
    EXPECT_EQ(r.first_valid[0] - r.last_beat[0], uint64_t(t.row_latency));
    for (int n = 2; n < rows; ++n) {
      EXPECT_EQ(r.first_valid[size_t(n)] - r.first_valid[size_t(n - 1)], uint64_t(t.row_interval))
          << "rows " << n - 1 << " and " << n;
    }
  }
}

TEST(PeLine, OutputsEqualTheRowStepsAndTheTimingHolds) {
  const std::vector<std::vector<std::string>> sets = {
      {},  // fill = count = reduce
      {"accumulator=fp16", "fp_pipeline_stages=0"},
      {"act_bits=3", "channels=100", "weight_beat_indices=7", "mac_tree_inputs=7", "comp_macs=4",
       "fp_pipeline_stages=2"},  // reduce-bound
      {"channels=128", "index_counters=1", "counter_inputs=4", "weight_beat_indices=128"},  // count
      {"outliers_per_side=20", "comp_macs=1", "weight_beat_indices=128",
       "index_counters=8"},       // compensate
      {"weight_beat_indices=3"},  // fill-bound
      // Four partial sums an accumulator: 8 chunks, MACs of 14 and 13 products.
      {"outliers_per_side=20", "comp_macs=3", "weight_beat_indices=128", "index_counters=8",
       "fp_pipeline_stages=4"},
      // Symmetric codebooks: signed counts of 64 magnitudes, two chunks; with binary16 and
      // T = 7 chunks of which the last is partly past the magnitudes.
      {"codebooks=symmetric"},
      {"codebooks=symmetric", "act_bits=3", "accumulator=fp16", "mac_tree_inputs=7",
       "fp_pipeline_stages=2"},
      // At 50 FO4: a register between the signed counts' magnitudes and their conversion.
      {"codebooks=symmetric", "target_period_fo4=50"},
  };
  uint64_t seed = 1;
  for (const auto& s : sets) {
    const Config c = load_config(kDefault, s);
    SCOPED_TRACE(testing::PrintToString(s));
    check_config(c, seed++);
  }
}

TEST(PeLine, RefusesAContextOfTheWrongShape) {
  const Config c = load_config(kDefault);
  PeLine line(c);
  PeLineContext ctx;
  EXPECT_THROW(line.set_context(ctx), std::invalid_argument);
}

}  // namespace
}  // namespace oasis
