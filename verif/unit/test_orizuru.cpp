// SPDX-License-Identifier: Apache-2.0
// orizuru_topk against an independent reference: a stable sort of the
// channels under one strict order (order key of docs/spec.md section 2, then lower
// channel ranks higher). The max side is the top k of that order, the min
// side the bottom k, interleaved max_1, min_1, max_2, ... Also checks that no
// channel is popped twice and the comparison count of docs/spec.md section 5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/cycle/orizuru.hpp"
#include "model/numerics/fp.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::test_seed;

std::vector<Outlier> reference_topk(const std::vector<Fp16>& x, int k) {
  std::vector<int> desc(x.size());
  std::iota(desc.begin(), desc.end(), 0);
  // Max side: descending by key, equal keys in ascending channel order.
  std::stable_sort(desc.begin(), desc.end(),
                   [&](int a, int b) { return order_key(x[size_t(a)]) > order_key(x[size_t(b)]); });
  std::vector<int> asc(x.size());
  std::iota(asc.begin(), asc.end(), 0);
  std::reverse(asc.begin(), asc.end());
  // Min side: ascending by key, equal keys in descending channel order.
  std::stable_sort(asc.begin(), asc.end(),
                   [&](int a, int b) { return order_key(x[size_t(a)]) < order_key(x[size_t(b)]); });
  std::vector<Outlier> out;
  for (int i = 0; i < k; ++i) {
    out.push_back(Outlier{false, x[size_t(desc[size_t(i)])], desc[size_t(i)]});
    out.push_back(Outlier{true, x[size_t(asc[size_t(i)])], asc[size_t(i)]});
  }
  return out;
}

/// Comparator nodes on the path from channel c's leaf to the root of the
/// tree padded to a power of two: the ancestor of height h has a comparator
/// iff its right half starts at a real channel.
uint64_t path_comparators(int c, int n) {
  uint64_t d = 0;
  for (int h = 1; (1 << (h - 1)) < n; ++h) {
    const int64_t right_start = ((int64_t(c) >> h) << h) + (int64_t{1} << (h - 1));
    if (right_start < n) ++d;
  }
  return d;
}

/// docs/spec.md section 5's count, generalised to any N: N - 1 comparisons build the
/// max tree, N - 1 - floor(N/2) the min tree (its leaf level is the max
/// tree's, reversed), and each pop costs the comparator nodes on its path.
uint64_t expected_comparisons(const std::vector<Outlier>& out, int n) {
  uint64_t total = uint64_t(n - 1) + uint64_t(n - 1 - n / 2);
  for (const Outlier& o : out) total += path_comparators(o.channel, n);
  return total;
}

int log2_exact(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

std::string describe(const std::vector<Fp16>& x, int k) {
  std::string s = "N=" + std::to_string(x.size()) + " k=" + std::to_string(k) + " x=[";
  for (size_t i = 0; i < x.size() && i < 16; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s%04x", i ? " " : "", x[i].bits);
    s += buf;
  }
  return s + (x.size() > 16 ? " ...]" : "]");
}

/// Runs one token through both and checks everything; returns the count.
uint64_t check_token(const std::vector<Fp16>& x, int k) {
  OrizuruStats stats;
  const std::vector<Outlier> got = orizuru_topk(x, k, &stats);
  const std::vector<Outlier> want = reference_topk(x, k);
  EXPECT_EQ(got.size(), size_t(2 * k)) << describe(x, k);
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    EXPECT_EQ(got[i].min_side, want[i].min_side) << describe(x, k) << " output " << i;
    EXPECT_EQ(got[i].value.bits, want[i].value.bits) << describe(x, k) << " output " << i;
    EXPECT_EQ(got[i].channel, want[i].channel) << describe(x, k) << " output " << i;
    if (::testing::Test::HasFailure()) break;
  }
  std::set<int> seen;
  for (const Outlier& o : got) {
    EXPECT_TRUE(seen.insert(o.channel).second)
        << describe(x, k) << " channel " << o.channel << " popped twice";
    EXPECT_EQ(o.value.bits, x[size_t(o.channel)].bits);
  }
  const int n = int(x.size());
  EXPECT_EQ(stats.comparisons, expected_comparisons(got, n)) << describe(x, k);
  if ((n & (n - 1)) == 0) {
    // 1.5N - 2 + 2k log2(N), written as integers.
    const uint64_t formula = uint64_t(3 * n / 2 - 2) + uint64_t(2 * k * log2_exact(n));
    EXPECT_EQ(stats.comparisons, formula) << describe(x, k);
  } else {
    const uint64_t bound = uint64_t(2 * n - 2 - n / 2) + uint64_t(2 * k * log2_exact(n));
    EXPECT_LE(stats.comparisons, bound) << describe(x, k);
  }
  return stats.comparisons;
}

Fp16 h(uint16_t b) { return Fp16{b}; }

TEST(Orizuru, RefusesBadK) {
  const std::vector<Fp16> x(8, h(0x3C00));
  EXPECT_THROW(orizuru_topk(x, 0), std::invalid_argument);
  EXPECT_THROW(orizuru_topk(x, 5), std::invalid_argument);
  EXPECT_THROW(orizuru_topk(std::vector<Fp16>(1), 1), std::invalid_argument);
  EXPECT_NO_THROW(orizuru_topk(x, 4));
}

TEST(Orizuru, AllEqualTokenNeverSharesAChannel) {
  for (int n : {2, 3, 5, 8, 16, 17, 100, 4096}) {
    for (uint16_t v : {0x0000, 0x8000, 0x3C00, 0xFC00, 0x7C00, 0x7E00}) {
      const std::vector<Fp16> x(size_t(n), h(v));
      check_token(x, n / 2);
      check_token(x, 1);
      // Max side in ascending channel order, min side in descending.
      const auto out = orizuru_topk(x, n / 2);
      EXPECT_EQ(out[0].channel, 0);
      EXPECT_EQ(out[1].channel, n - 1);
    }
  }
}

TEST(Orizuru, SpecialValues) {
  // Several -Inf must each come out once on the min side; NaN tops the max
  // side whatever its sign or payload; -0 and +0 tie; subnormals order.
  const std::vector<Fp16> x = {h(0xFC00), h(0x0001), h(0x8000), h(0xFC00), h(0x7C00), h(0x0000),
                               h(0xFE01), h(0x8001), h(0xFC00), h(0x03FF), h(0x7E00), h(0x83FF),
                               h(0x3C00), h(0xBC00), h(0x7C00), h(0x0000)};
  for (int k = 1; k <= 8; ++k) check_token(x, k);
  const auto out = orizuru_topk(x, 3);
  EXPECT_EQ(out[0].channel, 6);   // negative-sign NaN, lowest channel of the NaNs
  EXPECT_EQ(out[2].channel, 10);  // then the other NaN
  EXPECT_EQ(out[4].channel, 4);   // then +Inf at the lower channel
  EXPECT_EQ(out[1].channel, 8);   // -Inf, highest channel first
  EXPECT_EQ(out[3].channel, 3);
  EXPECT_EQ(out[5].channel, 0);
  // Zeros of both signs tie: the min side takes them from the highest channel.
  const std::vector<Fp16> zeros = {h(0x8000), h(0x0000), h(0x8000), h(0x0000), h(0x3C00)};
  const auto z = orizuru_topk(zeros, 2);
  EXPECT_EQ(z[1].channel, 3);
  EXPECT_EQ(z[3].channel, 2);
  EXPECT_EQ(z[2].channel, 0);
  check_token(zeros, 2);
}

Fp16 random_value(std::mt19937_64& rng, int mode) {
  switch (mode) {
    case 0:  // any bit pattern
      return h(uint16_t(rng()));
    case 1:  // few distinct values: many ties, straddling the k-th place
      return h(uint16_t(0x3C00 + (rng() % 4)));
    default: {  // mostly specials, zeros and subnormals
      static const uint16_t pool[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00,
                                      0x0001, 0x8001, 0x03FF, 0x83FF, 0x7C01, 0x3C00};
      return h(pool[rng() % (sizeof pool / sizeof pool[0])]);
    }
  }
}

TEST(Orizuru, RandomTokensMatchStableSort) {
  const uint64_t seed = test_seed(20261129u);
  std::mt19937_64 rng(seed);
  int tokens = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = trial < 1500 ? 2 + int(rng() % 63) : 2 + int(rng() % 700);
    const int k = 1 + int(rng() % uint64_t(n / 2));
    const int mode = int(rng() % 3);
    std::vector<Fp16> x(static_cast<size_t>(n));
    for (auto& v : x) v = random_value(rng, mode);
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial));
    check_token(x, k);
    ++tokens;
    if (HasFailure()) break;
  }
  EXPECT_EQ(tokens, 3000);
}

TEST(Orizuru, PaperCountForN4096) {
  std::mt19937_64 rng(test_seed(20261129u));
  std::vector<Fp16> x(4096);
  for (auto& v : x) v = h(uint16_t(rng()));
  // 1.5 * 4096 - 2 + 2 * 21 * 12 = 6142 + 504
  EXPECT_EQ(check_token(x, 21), 6646u);
}

TEST(Orizuru, CountForNotPowerOfTwo) {
  // N = 5, padded to 8: comparators at (0,1), (2,3), (0..1 vs 2..3) and the
  // root (0..3 vs 4), 4 for the max tree and 2 more for the min tree; channel
  // 4's path has one comparator (the root), channels 0..3 have three.
  const std::vector<Fp16> x = {h(0x3C00), h(0x4000), h(0x4200), h(0x4400), h(0x4500)};
  OrizuruStats stats;
  const auto out = orizuru_topk(x, 1, &stats);
  EXPECT_EQ(out[0].channel, 4);
  EXPECT_EQ(out[1].channel, 0);
  EXPECT_EQ(stats.comparisons, 4u + 2u + 1u + 3u);
}

}  // namespace
}  // namespace oasis
