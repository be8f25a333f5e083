// SPDX-License-Identifier: Apache-2.0
// The models of the synthesis baselines (docs/synth.md): the sorting-network
// top-k gives exactly Orizuru's outliers, and the FP16 dequantize-and-MAC row
// equals the same computation on the host FPU; the paper config's baseline
// does 512 multiply-accumulates a cycle in sixteen 32-input trees.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/mac_line_baseline.hpp"
#include "model/cycle/orizuru.hpp"
#include "model/cycle/topk_sort_baseline.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"

namespace oasis {
namespace {

TEST(TopkSortBaseline, NetworkSortsEveryZeroOneInput) {
  // The 0-1 principle: a comparator network sorts every input iff it sorts
  // every 0-1 input.
  for (int n : {1, 2, 4, 8, 16}) {
    const auto net = bitonic_network(n);
    int64_t count = 0;
    for (const auto& stage : net) count += int64_t(stage.size());
    EXPECT_EQ(count, bitonic_compare_exchanges(n)) << "n=" << n;
    for (uint32_t bits = 0; bits < (1u << n); ++bits) {
      std::vector<int> v(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) v[size_t(i)] = (bits >> i) & 1;
      for (const auto& stage : net) {
        for (const auto& ce : stage) {
          if (v[size_t(ce.lo)] > v[size_t(ce.hi)]) std::swap(v[size_t(ce.lo)], v[size_t(ce.hi)]);
        }
      }
      for (int i = 1; i < n; ++i)
        ASSERT_GE(v[size_t(i - 1)], v[size_t(i)]) << "n=" << n << " input " << bits;
    }
  }
  EXPECT_EQ(bitonic_compare_exchanges(4096), 159744);
  EXPECT_EQ(bitonic_compare_exchanges(37), 32 * 21);
}

TEST(TopkSortBaseline, SameOutliersAsOrizuru) {
  std::mt19937_64 rng(7);
  const uint16_t specials[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00,
                               0xFE00, 0x7C01, 0x0001, 0x3C00};
  int tokens = 0;
  for (int t = 0; t < 1500; ++t) {
    const int n = 2 + int(rng() % 300);
    const int k = 1 + int(rng() % uint64_t(n / 2));
    const int mix = t % 3;
    std::vector<Fp16> x(static_cast<size_t>(n));
    for (auto& v : x) {
      if (mix == 0) v = Fp16{uint16_t(rng())};
      if (mix == 1) v = Fp16{specials[rng() % 4 + 5 * (rng() % 2)]};  // many ties
      if (mix == 2) v = Fp16{specials[rng() % 9]};
    }
    int64_t ces = 0;
    ASSERT_EQ(sort_network_topk(x, k, &ces), orizuru_topk(x, k))
        << "N=" << n << " k=" << k << " mix=" << mix;
    EXPECT_EQ(ces, bitonic_compare_exchanges(n));
    ++tokens;
  }
  EXPECT_EQ(tokens, 1500);
  EXPECT_THROW(sort_network_topk(std::vector<Fp16>(3), 2), std::invalid_argument);
}

// The host FPU's float: one IEEE binary32 operation each, rounded to nearest even.
float host_tree(std::vector<float> v) {
  while (v.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(v[i] + v[i + 1]);
    if (v.size() % 2 == 1) next.push_back(v.back());
    v = std::move(next);
  }
  return v[0];
}

TEST(MacLineBaseline, RowEqualsHostFpu) {
  std::mt19937_64 rng(11);
  const Accumulator acc(AccumulatorFormat::kFp32);
  const auto value = [&] {  // moderate binary16 values, either sign
    return Fp16{uint16_t(((rng() & 1) << 15) | ((9 + rng() % 13) << 10) | (rng() & 0x3FF))};
  };
  for (int t = 0; t < 300; ++t) {
    const int K = 1 + int(rng() % 200);
    const int M = 1 + int(rng() % 40);
    std::vector<Fp16> x(static_cast<size_t>(K)), cw(16);
    std::vector<uint8_t> iw(static_cast<size_t>(K));
    for (auto& v : x) v = value();
    for (auto& v : cw) v = value();
    for (auto& i : iw) i = uint8_t(rng() % 16);
    const Fp16 sa = value(), sw = value();
    float total = 0;
    for (int b = 0; b * M < K; ++b) {
      std::vector<float> products;
      for (int k = b * M; k < K && k < (b + 1) * M; ++k) {
        products.push_back(float(to_double(x[size_t(k)])) * float(to_double(cw[iw[size_t(k)]])));
      }
      const float sum = host_tree(products);
      total = b == 0 ? sum : total + sum;
    }
    const float y = (total * float(to_double(sa))) * float(to_double(sw));
    EXPECT_EQ(mac_line_row(x, iw, cw, sa, sw, M, 1, acc).bits, fp16_from_double(double(y)).bits)
        << "K=" << K << " M=" << M;
  }
}

TEST(MacLineBaseline, PaperConfigTiming) {
  const Config paper = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json");
  const MacLineTiming t = derive(paper).mac_line_baseline;
  EXPECT_EQ(t.macs, 512);
  EXPECT_EQ(t.trees, 16);
  EXPECT_EQ(t.beats, 8);
  EXPECT_EQ(t.tree_levels, 9);
  const Config def = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json");
  EXPECT_EQ(derive(def).mac_line_baseline.macs, 16);
  EXPECT_EQ(derive(def).mac_line_baseline.beats, 8);
}

}  // namespace
}  // namespace oasis
