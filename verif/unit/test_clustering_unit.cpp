// SPDX-License-Identifier: Apache-2.0
// The Clustering Unit's model: the binary search the RTL performs equals the
// docs/spec.md section 4 rule for every binary16 value, and the cycle model has the
// latency, throughput and handshake the manifest states.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "gen/block.hpp"
#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/cycle/clustering_unit.hpp"
#include "model/quant/clustering.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::kDefault;

// A random strictly ascending codebook of 2^na finite values.
std::vector<Fp16> random_codebook(std::mt19937_64& rng, int na) {
  for (;;) {
    std::vector<Fp16> cb;
    while (cb.size() < size_t(1) << na) {
      const Fp16 x{uint16_t(rng())};
      if (is_nan(x) || is_inf(x)) continue;
      if (std::none_of(cb.begin(), cb.end(), [&](Fp16 y) { return compare(x, y) == 0; })) {
        cb.push_back(x);
      }
    }
    std::sort(cb.begin(), cb.end(), [](Fp16 a, Fp16 b) { return compare(a, b) < 0; });
    try {
      return cluster_boundaries(cb);
    } catch (const std::invalid_argument&) {
    }
  }
}

TEST(ClusteringUnit, BinarySearchEqualsTheRuleForEveryValue) {
  std::mt19937_64 rng(7);
  for (int na = 1; na <= 4; ++na) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto b = random_codebook(rng, na);
      for (uint32_t x = 0; x < 0x10000; ++x) {
        int comparisons = 0;
        const int got = cluster_index_binary_search(Fp16{uint16_t(x)}, b, &comparisons);
        ASSERT_EQ(got, cluster_index(Fp16{uint16_t(x)}, b)) << "na=" << na << " x=" << x;
        ASSERT_EQ(comparisons, na);
      }
    }
  }
}

TEST(ClusteringUnit, EqualityGoesUpNanToTheTopZerosAreEqual) {
  // Boundaries -1, 0, 1 (nA = 2).
  const std::vector<Fp16> b = {Fp16{0xBC00}, Fp16{0x0000}, Fp16{0x3C00}};
  EXPECT_EQ(cluster_index_binary_search(Fp16{0xBC00}, b), 1);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0xBBFF}, b), 1);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0xBC01}, b), 0);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x0000}, b), 2);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x8000}, b), 2);  // -0 == +0 >= b_1
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x8001}, b), 1);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x3C00}, b), 3);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x7E00}, b), 3);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0xFE00}, b), 3);  // NaN of either sign: top
  EXPECT_EQ(cluster_index_binary_search(Fp16{0xFC00}, b), 0);
  EXPECT_EQ(cluster_index_binary_search(Fp16{0x7C00}, b), 3);
}

TEST(ClusteringUnit, StagesAreLevelsOverLevelsPerStage) {
  Config c = load_config(kDefault);
  for (int na = 1; na <= 4; ++na) {
    for (int l = 1; l <= 4; ++l) {
      c.act_bits = na;
      c.clustering_levels_per_stage = l;
      EXPECT_EQ(derive(c).clustering_unit.stages, (na + l - 1) / l);
      EXPECT_EQ(derive(c).clustering_unit.latency, derive(c).clustering_unit.stages);
    }
  }
}

// Streams beats through the cycle model; returns the cycle each beat was
// accepted and the cycle it was presented (and taken).
struct Trace {
  std::vector<int> accepted, presented;
};
Trace stream(const Config& c, int beats, double backpressure, uint64_t seed) {
  ClusteringUnit m(c);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution stall(backpressure);
  const std::vector<Fp16> b = {Fp16{0xBC00}, Fp16{0x0000}, Fp16{0x3C00}};  // nA = 2
  std::vector<Fp16> act(size_t(c.clustering_lanes), Fp16{0x3C00});
  Trace t;
  int sent = 0;
  for (int cycle = 0; int(t.presented.size()) < beats && cycle < 100000; ++cycle) {
    const bool ready = !stall(rng);
    const bool valid = sent < beats;
    if (m.idx_valid() && ready) t.presented.push_back(cycle);
    if (valid && m.act_ready(ready)) {
      t.accepted.push_back(cycle);
      ++sent;
    }
    m.clock(valid, act, b, ready);
  }
  return t;
}

TEST(ClusteringUnit, CycleModelLatencyAndOneBeatPerCycle) {
  Config c = load_config(kDefault);
  c.act_bits = 2;
  for (int l = 1; l <= 2; ++l) {
    c.clustering_levels_per_stage = l;
    const Trace t = stream(c, 50, 0.0, 1);
    ASSERT_EQ(t.accepted.size(), 50u);
    ASSERT_EQ(t.presented.size(), 50u);
    for (int i = 0; i < 50; ++i) {
      EXPECT_EQ(t.accepted[size_t(i)], i);  // one beat a cycle
      EXPECT_EQ(t.presented[size_t(i)] - t.accepted[size_t(i)], derive(c).clustering_unit.latency);
    }
  }
}

TEST(ClusteringUnit, CycleModelHoldsUnderBackpressureAndLosesNothing) {
  Config c = load_config(kDefault);
  c.act_bits = 2;
  c.clustering_levels_per_stage = 1;
  const Trace t = stream(c, 200, 0.5, 3);
  ASSERT_EQ(t.presented.size(), 200u);
  for (size_t i = 0; i < t.presented.size(); ++i) {
    EXPECT_GE(t.presented[i] - t.accepted[i], derive(c).clustering_unit.latency);
  }
  // A full pipeline with the consumer stalled takes nothing more.
  ClusteringUnit m(c);
  const std::vector<Fp16> b = {Fp16{0xBC00}, Fp16{0x0000}, Fp16{0x3C00}};
  const std::vector<Fp16> act(size_t(c.clustering_lanes), Fp16{0});
  for (int i = 0; i < m.stages(); ++i) m.clock(true, act, b, false);
  EXPECT_FALSE(m.act_ready(false));
  EXPECT_TRUE(m.act_ready(true));
  EXPECT_TRUE(m.busy());
  EXPECT_TRUE(m.idx_valid());
  EXPECT_EQ(m.idx_data(), std::vector<int>(size_t(c.clustering_lanes), 2));
}

TEST(ClusteringUnit, ManifestStatesTheModelsFigures) {
  for (const char* set : {"act_bits=3", "clustering_levels_per_stage=3", "clustering_lanes=7"}) {
    const Config c = load_config(kDefault, {set});
    const auto files = gen::render(c, {"configs/default.json", {set}, "x"});
    const auto m = nlohmann::json::parse(files.at("manifest.json"))["blocks"]["clustering_unit"];
    EXPECT_EQ(m["latency_cycles"], derive(c).clustering_unit.latency) << set;
    EXPECT_EQ(m["beats_per_cycle"], 1) << set;
    EXPECT_EQ(m["activations_per_cycle"], c.clustering_lanes) << set;
    EXPECT_EQ(m["comparators"], c.clustering_lanes * c.act_bits) << set;
  }
}

}  // namespace
}  // namespace oasis
