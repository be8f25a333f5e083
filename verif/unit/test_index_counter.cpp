// The Index Counter array's model: the counts rule of docs/spec.md section 6, widths
// that cannot overflow, the row's extent, and the cycle model's latency, row
// interval and double buffering as the manifest states them.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gen/block.hpp"
#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/index_counter.hpp"

namespace oasis {
namespace {

const std::string kDefault = std::string(OASIS_SOURCE_DIR) + "/configs/default.json";

TEST(IndexCounter, CountsFollowTheRule) {
  const std::vector<int> idx = {3, 0, 3, 15, 3, 0};
  const auto c = index_counts(idx, {}, 4);
  ASSERT_EQ(c.size(), 16u);
  EXPECT_EQ(c[3], 3u);
  EXPECT_EQ(c[0], 2u);
  EXPECT_EQ(c[15], 1u);
  EXPECT_EQ(c[1], 0u);
  const auto m = index_counts(idx, {true, false, true, true, false, true}, 4);
  EXPECT_EQ(m[3], 2u);
  EXPECT_EQ(m[0], 1u);
  EXPECT_THROW(index_counts(std::vector<int>{16}, {}, 4), std::invalid_argument);
}

TEST(IndexCounter, CountWidthHoldsKEqualIndices) {
  for (int k : {2, 3, 4, 7, 8, 127, 128, 4095, 4096, 65535, 65536}) {
    Config c = load_config(kDefault);
    c.channels = k;
    const int w = index_counter_count_bits(c);
    EXPECT_LT(uint64_t(k), uint64_t{1} << w) << k;      // K fits
    EXPECT_GE(uint64_t(k), uint64_t{1} << (w - 1)) << k;  // and no bit is wasted
  }
}

TEST(IndexCounter, RowExtentCoversExactlyKChannels) {
  Config c = load_config(kDefault);
  for (int k : {16, 17, 50, 100, 128, 129}) {
    c.channels = k;
    const int group = c.index_counters * c.counter_inputs;
    int n = 0;
    for (int b = 0; b < index_counter_beats_per_row(c); ++b) {
      for (int p = 0; p < group; ++p) n += index_counter_in_row(c, b, p) ? 1 : 0;
    }
    EXPECT_EQ(n, k);
  }
}

// Streams rows of random indices through the cycle model without gaps or
// backpressure; checks each row's counts and returns the cycles at which
// each row's first chunk was presented and each row's last beat accepted.
struct Trace {
  std::vector<int> last_beat, first_chunk;
};
Trace stream(const Config& c, int rows, bool all_equal) {
  IndexCounterArray m(c);
  std::mt19937_64 rng(11);
  const int b = c.act_bits + c.weight_bits;
  const int group = c.index_counters * c.counter_inputs;
  const int beats = index_counter_beats_per_row(c);
  std::vector<std::vector<uint32_t>> want;
  std::vector<int> row;
  std::vector<uint32_t> got;
  Trace t;
  int sent_beats = 0, rows_seen = 0;
  for (int cycle = 0; rows_seen < rows && cycle < 100000; ++cycle) {
    std::vector<int> idx(static_cast<size_t>(group));
    for (auto& x : idx) x = all_equal ? (1 << b) - 1 : int(rng() % (1u << b));
    const std::vector<bool> mask(static_cast<size_t>(group), true);
    const bool valid = sent_beats < rows * beats;
    if (m.cnt_valid()) {
      if (m.cnt_chunk() == 0) t.first_chunk.push_back(cycle);
      for (int i = 0; i < c.mac_tree_inputs; ++i) got.push_back(m.cnt_data(i));
      if (m.cnt_last()) {
        for (size_t e = 0; e < want[size_t(rows_seen)].size(); ++e) {
          EXPECT_EQ(got[e], want[size_t(rows_seen)][e]) << "row " << rows_seen << " entry " << e;
        }
        got.clear();
        ++rows_seen;
      }
    }
    if (valid && m.idx_ready(true)) {
      const int beat = m.beat();
      for (int p = 0; p < group; ++p) {
        if (index_counter_in_row(c, beat, p)) row.push_back(idx[size_t(p)]);
      }
      if (beat == beats - 1) {
        want.push_back(index_counts(row, {}, b));
        row.clear();
        t.last_beat.push_back(cycle);
      }
      ++sent_beats;
    }
    m.clock(valid, idx, mask, true);
  }
  EXPECT_EQ(rows_seen, rows);
  return t;
}

TEST(IndexCounter, LatencyAndRowIntervalAsStated) {
  // (K, C, I, nA, nW, T): counting-bound, reduction-bound, one-beat rows.
  const std::vector<std::vector<int>> cases = {
      {128, 2, 8, 4, 4, 32}, {100, 2, 8, 4, 4, 16}, {40, 2, 32, 1, 4, 4}, {20, 1, 16, 3, 2, 64}};
  for (const auto& p : cases) {
    Config c = load_config(kDefault);
    c.channels = p[0];
    c.index_counters = p[1];
    c.counter_inputs = p[2];
    c.act_bits = p[3];
    c.weight_bits = p[4];
    c.mac_tree_inputs = p[5];
    const Trace t = stream(c, 6, false);
    ASSERT_EQ(t.first_chunk.size(), 6u);
    for (size_t r = 0; r < 6; ++r) {
      EXPECT_EQ(t.first_chunk[r] - t.last_beat[r], index_counter_latency(c)) << p[0];
      if (r > 0) {
        EXPECT_EQ(t.first_chunk[r] - t.first_chunk[r - 1], index_counter_row_interval(c)) << p[0];
      }
    }
  }
}

TEST(IndexCounter, AllIndicesEqualCountsK) {
  Config c = load_config(kDefault);
  c.channels = 100;  // not a multiple of C*I = 16: the last beat is partial
  stream(c, 3, true);  // checks every count against the rule: entry 255 holds 100
  IndexCounterArray m(c);
  const std::vector<int> idx(16, 255);
  const std::vector<bool> mask(16, true);
  for (int b = 0; b < index_counter_beats_per_row(c); ++b) m.clock(true, idx, mask, false);
  ASSERT_TRUE(m.cnt_valid());
  while (!m.cnt_last()) m.clock(false, idx, mask, true);
  EXPECT_EQ(m.cnt_data(255 % c.mac_tree_inputs), 100u);
}

TEST(IndexCounter, LastBeatWaitsForTheFreeBank) {
  Config c = load_config(kDefault);  // K=128, C*I=16: 8 beats, 8 chunks
  IndexCounterArray m(c);
  const std::vector<int> idx(16, 1);
  const std::vector<bool> mask(16, true);
  for (int b = 0; b < 8; ++b) m.clock(true, idx, mask, false);  // row 0 done
  for (int b = 0; b < 7; ++b) {
    EXPECT_TRUE(m.idx_ready(false));
    m.clock(true, idx, mask, false);
  }
  EXPECT_FALSE(m.idx_ready(false));  // row 1's last beat: bank 2 still full
  EXPECT_FALSE(m.idx_ready(true));   // taking chunk 0 does not free it
  for (int k = 0; k < 7; ++k) m.clock(false, idx, mask, true);
  EXPECT_TRUE(m.cnt_last());
  EXPECT_TRUE(m.idx_ready(true));  // the last chunk leaves this cycle
}

TEST(IndexCounter, ManifestStatesTheModelsFigures) {
  for (const char* set : {"channels=100", "mac_tree_inputs=4", "counter_inputs=32"}) {
    const Config c = load_config(kDefault, {set});
    const auto files = gen::render(c, {"configs/default.json", {set}, "x"});
    const auto m =
        nlohmann::json::parse(files.at("manifest.json"))["blocks"]["index_counter_array"];
    EXPECT_EQ(m["latency_cycles"], index_counter_latency(c)) << set;
    EXPECT_EQ(m["row_interval_cycles"], index_counter_row_interval(c)) << set;
    EXPECT_EQ(m["count_bits"], index_counter_count_bits(c)) << set;
    EXPECT_EQ(m["indices_per_cycle"], c.index_counters * c.counter_inputs) << set;
  }
}

}  // namespace
}  // namespace oasis
