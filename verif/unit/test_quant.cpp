// SPDX-License-Identifier: Apache-2.0
// model/quant: K-means (Lloyd's iterations against the exact 1-D optimum and
// a brute-force search), weight quantisation with a shared codebook and
// per-row scales, activation calibration, scales and normalisation against
// the host FPU, and the INT round-to-nearest baseline. SEED=n overrides the
// seed (default 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "model/cycle/orizuru.hpp"
#include "model/quant/clustering.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/host_fpu.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::test_seed;

// The optimum by trying every split of the sorted values into `k`
// contiguous groups (an optimal 1-D clustering is contiguous).
double brute_force_cost(std::vector<std::pair<double, double>> p, int k) {
  std::sort(p.begin(), p.end());
  const size_t n = p.size();
  auto group = [&](size_t a, size_t b) {
    double w = 0, s = 0;
    for (size_t i = a; i < b; ++i) {
      w += p[i].second;
      s += p[i].second * p[i].first;
    }
    const double m = s / w;
    double c = 0;
    for (size_t i = a; i < b; ++i) c += p[i].second * (p[i].first - m) * (p[i].first - m);
    return c;
  };
  double best = std::numeric_limits<double>::infinity();
  std::function<void(size_t, int, double)> rec = [&](size_t start, int left, double acc) {
    if (left == 1) {
      best = std::min(best, acc + group(start, n));
      return;
    }
    for (size_t end = start + 1; end + size_t(left - 1) <= n; ++end) {
      rec(end, left - 1, acc + group(start, end));
    }
  };
  rec(0, k, 0.0);
  return best;
}

TEST(KMeans, OptimalEqualsBruteForceOnSmallSets) {
  std::mt19937_64 rng(test_seed());
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + int(rng() % 11);
    const int k = 1 + int(rng() % std::min(n, 5));
    std::vector<double> v, w;
    std::vector<std::pair<double, double>> p;
    for (int i = 0; i < n; ++i) {
      v.push_back(double(int(rng() % 2001) - 1000) / 64.0 + i * 1e-3);  // distinct
      w.push_back(trial % 2 ? 1.0 : double(1 + rng() % 9));
      p.emplace_back(v.back(), w.back());
    }
    const KMeansResult opt = kmeans_optimal_1d(v, w, k);
    const double want = brute_force_cost(p, k);
    ASSERT_NEAR(opt.cost, want, 1e-9 * std::max(1.0, want)) << "trial " << trial;
    ASSERT_TRUE(std::is_sorted(opt.centroids.begin(), opt.centroids.end()));
    // Lloyd can only be as good or worse.
    const KMeansResult ll = kmeans_lloyd(v, w, k, test_seed() + uint64_t(trial));
    ASSERT_GE(ll.cost, opt.cost - 1e-9 * std::max(1.0, want)) << "trial " << trial;
  }
}

// A symmetric codebook: the optimum over codebooks -m_h .. -m_1, m_1 .. m_h is the optimum
// of the magnitudes' clustering mirrored, and its cost on the signed values is that
// clustering's (the nearest of +-m_j to v is sign(v) times the nearest m_j to |v|).
TEST(KMeans, SymmetricIsTheMagnitudesOptimumMirrored) {
  std::mt19937_64 rng(test_seed());
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + int(rng() % 11);
    const int half = 1 + int(rng() % std::min(n, 4));
    std::vector<double> v, w;
    std::vector<std::pair<double, double>> magnitudes;
    for (int i = 0; i < n; ++i) {
      const double m = double(1 + rng() % 1000) / 64.0 + i * 1e-3;  // distinct, positive
      v.push_back(rng() % 2 ? m : -m);
      w.push_back(trial % 2 ? 1.0 : double(1 + rng() % 9));
      magnitudes.emplace_back(m, w.back());
    }
    const KMeansResult sym = kmeans_symmetric(KMeansMethod::kOptimal, v, w, 2 * half, 1);
    ASSERT_EQ(sym.centroids.size(), size_t(2 * half));
    for (int j = 0; j < 2 * half; ++j) {
      ASSERT_EQ(sym.centroids[size_t(j)], -sym.centroids[size_t(2 * half - 1 - j)]) << trial;
    }
    ASSERT_TRUE(std::is_sorted(sym.centroids.begin(), sym.centroids.end()));
    const double want = brute_force_cost(magnitudes, half);
    ASSERT_NEAR(sym.cost, want, 1e-9 * std::max(1.0, want)) << "trial " << trial;
    ASSERT_NEAR(kmeans_cost(v, w, sym.centroids), sym.cost, 1e-9 * std::max(1.0, want));
    // A free codebook of as many centroids is never worse.
    ASSERT_LE(kmeans_optimal_1d(v, w, std::min(n, 2 * half)).cost, sym.cost + 1e-9 * want);
  }
  const std::vector<double> v = {-2, -1, 1, 2};
  EXPECT_THROW(kmeans_symmetric(KMeansMethod::kOptimal, v, {}, 3, 1), std::invalid_argument);
  EXPECT_THROW(kmeans_symmetric(KMeansMethod::kLloyd, v, {}, 0, 1), std::invalid_argument);
  // Two distinct magnitudes cannot make three centroids a side.
  EXPECT_THROW(kmeans_symmetric(KMeansMethod::kOptimal, v, {}, 6, 1), std::invalid_argument);
}

// Weights and activations quantised with symmetric codebooks: every centroid is its mirror's
// negation, bit for bit in binary16.
TEST(Quantize, SymmetricCodebooksMirrorBitForBit) {
  const std::vector<Fp16> w = synthetic_weights(64, 96, test_seed());
  WeightQuantOptions wo;
  wo.symmetric = true;
  const QuantizedWeights q = quantize_weights(w, 64, 96, wo);
  ASSERT_EQ(q.codebook.size(), 16u);
  for (size_t j = 0; j < 16; ++j) {
    EXPECT_EQ(q.codebook[j].bits, q.codebook[15 - j].bits ^ 0x8000) << j;
  }
  EXPECT_GT(to_double(q.codebook[8]), 0.0);
  SyntheticActivationSpec spec;
  spec.channels = 96;
  spec.tokens = 8;
  ActCalibrationOptions ao;
  ao.bits = 3;
  ao.outliers_per_side = 1;
  ao.symmetric = true;
  ao.method = KMeansMethod::kOptimal;
  const ActCalibration cal =
      calibrate_activations(synthetic_activations(spec, test_seed()), 8, 96, {}, ao);
  ASSERT_EQ(cal.codebook.size(), 8u);
  for (size_t j = 0; j < 8; ++j) {
    EXPECT_EQ(cal.codebook[j].bits, cal.codebook[7 - j].bits ^ 0x8000) << j;
  }
}

TEST(KMeans, LloydIsAFixedPointAndDeterministic) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<double> nd(0, 1);
  std::vector<double> v(5000);
  for (auto& x : v) x = nd(rng) * (rng() % 50 == 0 ? 20.0 : 1.0);
  const KMeansResult a = kmeans_lloyd(v, {}, 16, 7);
  const KMeansResult b = kmeans_lloyd(v, {}, 16, 7);
  EXPECT_EQ(a.centroids, b.centroids);  // same seed, same bits
  ASSERT_EQ(a.centroids.size(), 16u);
  EXPECT_LT(a.iterations, 300);
  // Each centroid is the mean of the values nearest to it (midpoints up).
  std::vector<double> sum(16, 0), cnt(16, 0);
  for (const double x : v) {
    size_t j = 0;
    while (j + 1 < 16 && x >= (a.centroids[j] + a.centroids[j + 1]) / 2) ++j;
    sum[j] += x;
    cnt[j] += 1;
  }
  for (size_t j = 0; j < 16; ++j) {
    ASSERT_GT(cnt[j], 0) << j;
    EXPECT_NEAR(a.centroids[j], sum[j] / cnt[j], 1e-9) << j;
  }
  EXPECT_NEAR(kmeans_cost(v, {}, a.centroids), a.cost, 1e-9 * a.cost);
  // The optimum is no worse; Lloyd's local optimum stays within a loose
  // bound of it on such data (a few to ten per cent over seeds 1..20).
  const KMeansResult opt = kmeans_optimal_1d(v, {}, 16);
  EXPECT_LE(opt.cost, a.cost * (1 + 1e-12));
  EXPECT_LT(a.cost, opt.cost * 1.5) << "Lloyd " << a.cost << " optimum " << opt.cost;
}

TEST(KMeans, IntegerWeightsEqualRepeatedValues) {
  std::mt19937_64 rng(test_seed());
  std::vector<double> v, w, rep;
  for (int i = 0; i < 200; ++i) {
    v.push_back(double(int(rng() % 1000)) / 8);
    w.push_back(double(1 + rng() % 4));
    for (int r = 0; r < int(w.back()); ++r) rep.push_back(v.back());
  }
  const KMeansResult a = kmeans_optimal_1d(v, w, 8);
  const KMeansResult b = kmeans_optimal_1d(rep, {}, 8);
  EXPECT_EQ(a.centroids, b.centroids);
  // A zero weight removes a value.
  std::vector<double> v2 = v, w2 = w;
  v2.push_back(1e6);
  w2.push_back(0.0);
  EXPECT_EQ(kmeans_optimal_1d(v2, w2, 8).centroids, a.centroids);
}

TEST(KMeans, RefusesWhatItCannotCluster) {
  const std::vector<double> three = {1, 2, 2, 3};
  EXPECT_THROW(kmeans_lloyd(three, {}, 4, 1), std::invalid_argument);  // 3 distinct < 4
  EXPECT_THROW(kmeans_optimal_1d(three, {}, 4), std::invalid_argument);
  const std::vector<double> with_nan = {1.0, std::nan("")}, negative = {1, 1, -1, 1}, two = {1, 1};
  EXPECT_THROW(kmeans_lloyd(with_nan, {}, 1, 1), std::invalid_argument);
  EXPECT_THROW(kmeans_lloyd(three, negative, 2, 1), std::invalid_argument);
  EXPECT_THROW(kmeans_lloyd(three, two, 2, 1), std::invalid_argument);
  EXPECT_THROW(kmeans_lloyd(three, {}, 0, 1), std::invalid_argument);
  EXPECT_THROW(parse_kmeans_method("kmeans++"), std::invalid_argument);
  EXPECT_THROW(parse_scale_mode("max"), std::invalid_argument);
}

TEST(Scales, RowScaleAndNormalizeAgainstHost) {
  // RMS of {3, 4} = sqrt(12.5); absmax 4; zeros -> 1; Inf/NaN left out.
  const std::vector<Fp16> v = {fp16_from_double(3), fp16_from_double(-4)};
  EXPECT_EQ(row_scale(v, ScaleMode::kRms).bits, fp16_from_double(std::sqrt(12.5)).bits);
  EXPECT_EQ(row_scale(v, ScaleMode::kAbsMax).bits, fp16_from_double(4).bits);
  EXPECT_EQ(row_scale(std::vector<Fp16>(5, Fp16{0x8000}), ScaleMode::kRms).bits, 0x3C00);
  const std::vector<Fp16> special = {fp16_from_double(2), kFp16PosInf, kFp16CanonicalNan};
  EXPECT_EQ(row_scale(special, ScaleMode::kRms).bits, fp16_from_double(2).bits);
  EXPECT_EQ(row_scale(special, ScaleMode::kAbsMax).bits, fp16_from_double(2).bits);
  // x / s rounded once equals the host's binary32 division rounded to
  // binary16 (innocuous double rounding, 24 >= 2*11 + 2), for every x.
  std::mt19937_64 rng(test_seed());
  for (int t = 0; t < 6; ++t) {
    const Fp16 s{uint16_t(rng() % 0x7C00)};
    if (to_double(s) == 0) continue;
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const Fp16 x{uint16_t(b)};
      const Fp16 want = host::canon16(_Float16(float(host::h(x)) / float(host::h(s))));
      ASSERT_EQ(normalize(x, s).bits, want.bits) << std::hex << b << " / " << s.bits;
    }
  }
}

TEST(WeightQuant, SharedCodebookPerRowScalesNearestIndices) {
  const int rows = 48, k = 256;
  const std::vector<Fp16> w = synthetic_weights(rows, k, test_seed());
  for (const KMeansMethod m : {KMeansMethod::kLloyd, KMeansMethod::kOptimal}) {
    WeightQuantOptions o;
    o.method = m;
    const QuantizedWeights q = quantize_weights(w, rows, k, o);
    EXPECT_NO_THROW(validate_quantized_weights(q, "q"));
    ASSERT_EQ(q.codebook.size(), 16u);
    for (size_t j = 1; j < 16; ++j)
      ASSERT_LT(to_double(q.codebook[j - 1]), to_double(q.codebook[j]));
    double err = 0, sig = 0;
    for (int n = 0; n < rows; ++n) {
      const auto row = std::span(w).subspan(size_t(n * k), size_t(k));
      ASSERT_EQ(q.scales[size_t(n)].bits, row_scale(row, ScaleMode::kRms).bits);
      const double s = to_double(q.scales[size_t(n)]);
      for (int i = 0; i < k; ++i) {
        const double x = to_double(row[size_t(i)]) / s;
        const int idx = q.indices[size_t(n * k + i)];
        // No centroid is strictly nearer than the chosen one.
        for (const Fp16 c : q.codebook) {
          ASSERT_GE(std::fabs(x - to_double(c)),
                    std::fabs(x - to_double(q.codebook[size_t(idx)])) - 0.0);
        }
        const double rec = to_double(q.codebook[size_t(idx)]) * s;
        err += (rec - to_double(row[size_t(i)])) * (rec - to_double(row[size_t(i)]));
        sig += to_double(row[size_t(i)]) * to_double(row[size_t(i)]);
      }
    }
    // 4-bit K-means of a normal distribution: about 20 dB (Lloyd-Max 20.2).
    EXPECT_GT(10 * std::log10(sig / err), 19.0);
  }
  std::vector<Fp16> bad = w;
  bad[5] = kFp16PosInf;
  EXPECT_THROW(quantize_weights(bad, rows, k, {}), std::invalid_argument);
  EXPECT_THROW(quantize_weights(w, rows + 1, k, {}), std::invalid_argument);
  QuantizedWeights q = quantize_weights(w, rows, k, {});
  q.indices[3] = 16;
  EXPECT_THROW(validate_quantized_weights(q, "q"), std::invalid_argument);
}

TEST(ActCalibration, CodebookFitsInliersAndIsAValidClusteringCodebook) {
  SyntheticActivationSpec spec;
  spec.tokens = 32;
  spec.channels = 512;
  const std::vector<Fp16> x = synthetic_activations(spec, test_seed());
  ActCalibrationOptions with, without;
  with.outliers_per_side = 3;
  const ActCalibration a = calibrate_activations(x, 32, 512, {}, with);
  const ActCalibration b = calibrate_activations(x, 32, 512, {}, without);
  EXPECT_EQ(a.samples, size_t(32 * (512 - 6)));
  EXPECT_EQ(b.samples, size_t(32 * 512));
  EXPECT_NO_THROW(cluster_boundaries(a.codebook));
  EXPECT_NO_THROW(cluster_boundaries(b.codebook));
  // Without outlier removal the top centroid chases the outlier channel.
  EXPECT_GT(
      std::fabs(to_double(b.codebook.back())) + std::fabs(to_double(b.codebook.front())),
      2 * (std::fabs(to_double(a.codebook.back())) + std::fabs(to_double(a.codebook.front()))));
  // Deterministic for a seed.
  EXPECT_EQ(calibrate_activations(x, 32, 512, {}, with).codebook, a.codebook);
  // Fisher weights: zero weight on every value below 0 pulls every centroid
  // to the non-negative side.
  std::vector<double> fisher(x.size());
  for (int t = 0; t < 32; ++t) {
    const auto tok = std::span(x).subspan(size_t(t * 512), 512);
    const Fp16 s = row_scale(tok, ScaleMode::kRms);
    for (int i = 0; i < 512; ++i)
      fisher[size_t(t * 512 + i)] = to_double(normalize(tok[size_t(i)], s)) >= 0 ? 1 : 0;
  }
  const ActCalibration f = calibrate_activations(x, 32, 512, fisher, with);
  EXPECT_GE(to_double(f.codebook.front()), 0.0);
  // W4A3 and errors.
  ActCalibrationOptions a3;
  a3.bits = 3;
  a3.method = KMeansMethod::kOptimal;
  EXPECT_EQ(calibrate_activations(x, 32, 512, {}, a3).codebook.size(), 8u);
  EXPECT_THROW(calibrate_activations(x, 31, 512, {}, with), std::invalid_argument);
  with.outliers_per_side = 257;
  EXPECT_THROW(calibrate_activations(x, 32, 512, {}, with), std::invalid_argument);
}

TEST(IntRtn, SymmetricRoundToNearestEvenPerRow) {
  const std::vector<Fp16> x = {
      fp16_from_double(7), fp16_from_double(-3.5), fp16_from_double(2.5), fp16_from_double(0.49),
      fp16_from_double(0), fp16_from_double(0),    fp16_from_double(0),   fp16_from_double(0)};
  const IntQuantized q = quantize_int_rtn(x, 2, 4, 4);
  EXPECT_EQ(q.scales[0], 1.0);
  EXPECT_EQ(q.q[0], 7);
  EXPECT_EQ(q.q[1], -4);  // -3.5 to even
  EXPECT_EQ(q.q[2], 2);   // 2.5 to even
  EXPECT_EQ(q.q[3], 0);
  EXPECT_EQ(q.scales[1], 1.0);  // an all-zero row
  const IntQuantized q3 = quantize_int_rtn(x, 2, 4, 3);
  EXPECT_EQ(q3.scales[0], 7.0 / 3);
  EXPECT_EQ(q3.q[0], 3);
  EXPECT_THROW(quantize_int_rtn(x, 3, 4, 4), std::invalid_argument);
}

}  // namespace
}  // namespace oasis
