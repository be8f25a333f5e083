// SPDX-License-Identifier: Apache-2.0
// What derives from a config (model/derived.hpp): one value for every fact,
// the same in every consumer, and equal to what the cycle models do (every
// vl.* test compares those with the RTL cycle for cycle). The row interval
// includes the weight stream's beats: with weight_beat_indices = 4 on the
// default config the stream bounds the row (32 cycles against 8), and the
// manifest, the PE line, the core, oasis-model analyze, the performance model
// and the cycle model all say so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/cycle/pe_line.hpp"
#include "model/perf/analyze.hpp"
#include "model/perf/fp_delay.hpp"
#include "model/perf/perf.hpp"
#include "verif/unit/config_cases.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::kDefault;

std::vector<test::ConfigCase> all_cases() {
  std::vector<test::ConfigCase> cases = test::sweep_cases();
  for (auto& c : test::config_cases()) cases.push_back(std::move(c));
  for (auto& c : test::random_cases(200, 7)) cases.push_back(std::move(c));
  return cases;
}

// Each counter width holds its counter's range, and no bit more: an index
// 0 .. n-1 (at least one bit) or a count 0 .. n.
TEST(Derived, CounterWidthsHoldTheirRangesExactly) {
  const auto index_fits = [](int bits, int n) {
    return (int64_t(1) << bits) >= n && (bits == 1 || (int64_t(1) << (bits - 1)) < n);
  };
  const auto count_fits = [](int bits, int n) {
    return (int64_t(1) << bits) > n && (bits == 0 || (int64_t(1) << (bits - 1)) <= n);
  };
  const auto cases = all_cases();
  for (const auto& [label, c] : cases) {
    SCOPED_TRACE(label);
    const Derived d = derive(c);
    const LineTiming& t = d.pe_line;
    const IndexCounterTiming& ic = d.index_counter_array;
    EXPECT_TRUE(index_fits(t.fill_bits, t.fill_beats)) << t.fill_bits << " " << t.fill_beats;
    EXPECT_TRUE(count_fits(t.beat_bits, t.count_beats)) << t.beat_bits << " " << t.count_beats;
    EXPECT_TRUE(count_fits(t.group_bits, t.groups)) << t.group_bits << " " << t.groups;
    EXPECT_TRUE(index_fits(t.chunk_bits, t.chunks)) << t.chunk_bits << " " << t.chunks;
    EXPECT_TRUE(count_fits(t.credit_bits, t.fifo_depth)) << t.credit_bits << " " << t.fifo_depth;
    EXPECT_TRUE(index_fits(ic.beat_bits, ic.beats_per_row));
    EXPECT_TRUE(index_fits(ic.chunk_bits, ic.chunks_per_row));
    for (const OrizuruTiming* o : {&d.orizuru, &d.topk_baseline}) {
      EXPECT_TRUE(index_fits(o->beat_bits, o->beats));
      EXPECT_TRUE(index_fits(o->stage_bits, o->build_cycles));
      EXPECT_TRUE(index_fits(o->output_bits, 2 * o->k));
    }
    EXPECT_TRUE(index_fits(d.mac_line_baseline.beat_bits, d.mac_line_baseline.beats));
    const WoqLutTiming& w = d.woq_lut_line_baseline;
    EXPECT_TRUE(index_fits(w.beat_bits, w.batch_beats));
    EXPECT_TRUE(index_fits(w.plane_bits, w.planes));
    EXPECT_TRUE(index_fits(w.window_bits, w.windows));
    EXPECT_TRUE(index_fits(w.row_bits, w.rows));
    EXPECT_TRUE(count_fits(w.credit_bits, w.lut_slots));
    EXPECT_TRUE(index_fits(d.core.part_bits, d.core.clustering_parts));
  }
  std::printf("%zu configs checked\n", cases.size());
}

// The row interval is the largest of its four terms, the cycle bound is
// ceil(N / P) row intervals, and the figures that several blocks share are
// the same number wherever they appear.
TEST(Derived, OneValueForEachFact) {
  for (const auto& [label, c] : all_cases()) {
    SCOPED_TRACE(label);
    const Derived d = derive(c);
    EXPECT_EQ(d.row.row, std::max({d.row.fill, d.row.count, d.row.reduce, d.row.compensate}));
    EXPECT_EQ(d.pe_line.row_interval, d.row.row);
    EXPECT_EQ(d.core.group_beats, d.row.fill);
    EXPECT_EQ(d.orizuru.channel_bits, d.channel_bits);
    EXPECT_EQ(d.topk_baseline.channel_bits, d.channel_bits);
    EXPECT_EQ(d.index_counter_array.count_bits, d.count_bits);
    EXPECT_GE(int64_t(1) << d.channel_bits, c.channels);
    EXPECT_GT(int64_t(1) << d.count_bits, c.channels);
    // Symmetric codebooks: a sign and the two magnitudes are counted, the magnitudes reduced.
    const int products = d.act_centroids * d.weight_centroids;
    EXPECT_EQ(d.count_bins, d.symmetric ? products / 2 : products);
    EXPECT_EQ(d.lut_entries, d.symmetric ? products / 4 : products);
    EXPECT_EQ(d.row.reduce, ceil_div(d.lut_entries, c.mac_tree_inputs));
    EXPECT_EQ(d.count_data_bits, d.count_bits + (d.symmetric ? 1 : 0));
    for (const int64_t rows : {int64_t(1), int64_t(c.pe_lines) * 3 + 1}) {
      EXPECT_EQ(d.gemm_lower_bound(rows), (rows + c.pe_lines - 1) / c.pe_lines * d.row.row);
      EXPECT_GE(d.gemm_cycles(rows), d.gemm_lower_bound(rows));
    }
  }
}

TEST(Derived, OrizuruComparisonsAreThePapersCountForPowersOfTwo) {
  const Config p = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json");
  EXPECT_EQ(derive(p).orizuru.comparisons_per_token, 4096 * 3 / 2 - 2 + 2 * 21 * 12);
  EXPECT_EQ(derive(p).topk_baseline.comparisons_per_token, 2 * 21 * 4095);
}

// The pop's cut (docs/orizuru.md, Drain): by default below the upper half of
// the layers; the build takes a cycle more only when the levels per build
// cycle do not divide the levels below the cut.
TEST(Derived, OrizuruPopCutAndItsBuild) {
  const std::string paper = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto timing = [&](std::vector<std::string> sets) {
    return derive(load_config(paper, sets)).orizuru;
  };
  EXPECT_EQ(timing({}).pop_levels, 6);  // three layers of 16-input units
  EXPECT_EQ(timing({}).build_cycles, 12);
  EXPECT_EQ(timing({"orizuru_pop_levels=5"}).pop_levels, 5);
  EXPECT_EQ(timing({"orizuru_pop_levels=8"}).pop_levels, 8);
  EXPECT_EQ(timing({"orizuru_pop_levels=64"}).pop_levels, 12);
  EXPECT_EQ(timing({"orizuru_pop_levels=0"}).pop_levels, 0);
  EXPECT_EQ(timing({"orizuru_levels_per_stage=3"}).build_cycles, 4);
  EXPECT_EQ(timing({"orizuru_levels_per_stage=4"}).build_cycles, 2 + 2);
  EXPECT_EQ(timing({"orizuru_levels_per_stage=4", "orizuru_pop_levels=0"}).build_cycles, 3);
  EXPECT_EQ(timing({"orizuru_levels_per_stage=4"}).cycles_per_token, 256 + 4 + 42);
  // The default config: four layers of 4-input units.
  EXPECT_EQ(derive(load_config(kDefault)).orizuru.pop_levels, 4);
}

// The Index Counter array's input stage: from the clock target when -1, by the
// delay model's concatenate-and-count path (52.8 FO4 at the default config, 78.1 at
// the paper's); a cycle more of latency, in the PE line's row latency too.
TEST(Derived, IndexCounterInputStage) {
  const std::string paper = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto stage = [](const std::string& config, std::vector<std::string> sets) {
    return derive(load_config(config, sets)).index_counter_array.input_stage;
  };
  EXPECT_NEAR(index_count_path_fo4(16, 8), 52.8, 1e-9);
  EXPECT_NEAR(index_count_path_fo4(512, 13), 78.1, 1e-9);
  EXPECT_FALSE(stage(kDefault, {}));
  EXPECT_FALSE(stage(kDefault, {"target_period_fo4=80"}));
  EXPECT_TRUE(stage(kDefault, {"target_period_fo4=50"}));
  EXPECT_FALSE(stage(kDefault, {"target_period_fo4=50", "index_counter_input_stage=0"}));
  EXPECT_TRUE(stage(kDefault, {"index_counter_input_stage=1"}));
  EXPECT_FALSE(stage(paper, {"target_period_fo4=130"}));
  EXPECT_TRUE(stage(paper, {"target_period_fo4=80"}));
  const Derived off = derive(load_config(kDefault, {}));
  const Derived on = derive(load_config(kDefault, {"index_counter_input_stage=1"}));
  EXPECT_EQ(on.index_counter_array.latency, off.index_counter_array.latency + 1);
  EXPECT_EQ(on.pe_line.row_latency, off.pe_line.row_latency + 1);
  EXPECT_EQ(on.pe_line.row_interval, off.pe_line.row_interval);
}

// Registers in the counting trees: the fewest with which every stage of the delay model's
// counting path fits the clock target, each as late as it goes; or as many as asked, the
// longest stage as short as it goes. Each is a cycle more of latency.
TEST(Derived, IndexCounterTreeRegisters) {
  const std::string paper = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto timing = [](const std::string& config, std::vector<std::string> sets) {
    return derive(load_config(config, sets)).index_counter_array;
  };
  // 512 positions: 14 compression and 9 ripple stages, the tree's longest path 16 cells.
  EXPECT_EQ(popcount_tree_stages(512), 23);
  EXPECT_EQ(popcount_tree_stages(16), 9);
  EXPECT_EQ(popcount_tree_stages(2), 1);
  EXPECT_EQ(popcount_tree_stages(1), 0);
  // Paper at 50 FO4 (stage budget 40): after the input stage, the decoders (9) and 10
  // cells of a tree over 512 positions (7 sums at 3.2, 3 carries at 2.5) and a register's
  // load (1) reach the end of the tree's stage 9, 16 bits an entry; the tree's last 6
  // cells and the bank's carries follow.
  const IndexCounterTiming p50 = timing(paper, {"target_period_fo4=50"});
  EXPECT_TRUE(p50.input_stage);
  EXPECT_EQ(p50.tree_cuts, std::vector<int>{9});
  ASSERT_EQ(p50.counting_stage_fo4.size(), 2u);
  EXPECT_NEAR(p50.counting_stage_fo4[0], 9 + 7 * 3.2 + 3 * 2.5 + 1, 1e-9);
  EXPECT_LE(p50.counting_stage_fo4[1], fp_stage_budget_fo4(50));
  EXPECT_EQ(p50.latency, 3);
  EXPECT_TRUE(timing(paper, {"target_period_fo4=80"}).tree_cuts.empty());
  // The default config's 16 positions: 41.3 FO4 after the input stage, over 50 FO4's
  // budget, so a register after the tree (5 bits an entry); none at 80.
  EXPECT_EQ(timing(kDefault, {"target_period_fo4=50"}).tree_cuts, std::vector<int>{8});
  EXPECT_TRUE(timing(kDefault, {"target_period_fo4=80"}).tree_cuts.empty());
  EXPECT_TRUE(timing(kDefault, {}).tree_cuts.empty());
  // Forced: as many as asked, the longest stage no longer than with fewer.
  double longest = 1e9;
  for (int r = 0; r <= 4; ++r) {
    const IndexCounterTiming t =
        timing(paper, {"index_counter_tree_registers=" + std::to_string(r)});
    EXPECT_EQ(int(t.tree_cuts.size()), r);
    EXPECT_TRUE(std::is_sorted(t.tree_cuts.begin(), t.tree_cuts.end()));
    EXPECT_EQ(t.latency, 1 + r);
    const double l = *std::max_element(t.counting_stage_fo4.begin(), t.counting_stage_fo4.end());
    EXPECT_LE(l, longest);
    longest = l;
  }
  // At most one register a stage: a tree of 16 positions has 9.
  EXPECT_EQ(timing(kDefault, {"index_counter_tree_registers=16"}).tree_cuts.size(), 9u);
  const Derived off = derive(load_config(kDefault, {}));
  const Derived on = derive(load_config(kDefault, {"index_counter_tree_registers=2"}));
  EXPECT_EQ(on.pe_line.row_latency, off.pe_line.row_latency + 2);
  EXPECT_EQ(on.pe_line.row_interval, off.pe_line.row_interval);
}

// The PE line's outlier capture: chosen when 2k (Wb + 6) is at most min(Mc, 2k) (K - 1), or
// set by the config; the line's timing is the same either way, but for streamed counting,
// which the capture allows where a weight beat is a counting beat (the paper's 512 indices):
// the row's counting beats off its latency.
TEST(Derived, OutlierCaptureIsTheCheaperAndTimesTheSame) {
  const std::string paper = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto line = [](const std::string& config, std::vector<std::string> sets) {
    return derive(load_config(config, sets)).pe_line;
  };
  EXPECT_TRUE(line(paper, {}).outlier_capture);      // 42 x 518 = 21,756 <= 8 x 4,095 = 32,760
  EXPECT_FALSE(line(kDefault, {}).outlier_capture);  // 6 x 22 = 132 > 1 x 127
  // The rule's edge: 6 (Wb + 6) <= 127 holds up to Wb = 15.
  EXPECT_TRUE(line(kDefault, {"weight_beat_indices=15"}).outlier_capture);
  EXPECT_FALSE(line(kDefault, {"weight_beat_indices=16", "comp_macs=1"}).outlier_capture);
  EXPECT_TRUE(line(kDefault, {"pe_line_outlier_capture=1"}).outlier_capture);
  EXPECT_FALSE(line(paper, {"pe_line_outlier_capture=0"}).outlier_capture);
  const LineTiming on = line(paper, {"pe_line_outlier_capture=1"});
  const LineTiming off = line(paper, {"pe_line_outlier_capture=0"});
  EXPECT_TRUE(on.streamed_counting);
  EXPECT_FALSE(off.streamed_counting);
  EXPECT_EQ(on.row_latency, off.row_latency - on.count_beats);
  EXPECT_EQ(on.row_interval, off.row_interval);
  // Without streamed counting (a weight beat of 7 indices, not G = 16), the same timing.
  const LineTiming on7 = line(kDefault, {"weight_beat_indices=7", "pe_line_outlier_capture=1"});
  const LineTiming off7 = line(kDefault, {"weight_beat_indices=7", "pe_line_outlier_capture=0"});
  EXPECT_FALSE(on7.streamed_counting);
  EXPECT_EQ(on7.row_latency, off7.row_latency);
  EXPECT_EQ(on7.row_interval, off7.row_interval);
  EXPECT_EQ(on7.fifo_depth, off7.fifo_depth);
}

// The sorting-network baseline's registers: stages a cycle from the clock
// target (17.6 FO4 a stage: 6, 3 and 2 at 130, 80 and 50 FO4), each rank a
// build cycle more; its pops take one cycle at any target.
TEST(Derived, SortNetworkRegisters) {
  const auto derived = [](std::vector<std::string> sets) {
    return derive(load_config(kDefault, sets));
  };
  const Derived plain = derived({});
  EXPECT_EQ(plain.sort_network.positions, 128);
  EXPECT_EQ(plain.sort_network.stages, 28);
  EXPECT_EQ(plain.sort_network.registers, 0);
  EXPECT_EQ(plain.topk_sort_baseline.build_cycles, 1);
  EXPECT_EQ(sort_stages_for_period(130), 6);
  EXPECT_EQ(sort_stages_for_period(80), 3);
  EXPECT_EQ(sort_stages_for_period(50), 2);
  const Derived t50 = derived({"target_period_fo4=50"});
  EXPECT_EQ(t50.sort_network.stages_per_cycle, 2);
  EXPECT_EQ(t50.sort_network.registers, 13);
  EXPECT_EQ(t50.topk_sort_baseline.build_cycles, 14);
  EXPECT_EQ(t50.topk_sort_baseline.cycles_per_token,
            plain.topk_sort_baseline.cycles_per_token + 13);
  EXPECT_EQ(t50.topk_sort_baseline.pop_cycles, 1);
  const Derived five = derived({"topk_sort_stages_per_cycle=5"});
  EXPECT_EQ(five.sort_network.registers, 5);
  EXPECT_EQ(derived({"topk_sort_stages_per_cycle=1000"}).sort_network.registers, 0);
}

// The k-round baseline's trees split by the clock target into parts of at
// most orizuru_levels_for_period levels (7 levels at the default config: 6,
// 3 and 2 a cycle at 130, 80 and 50 FO4), a side's next winner that many
// cycles after its pop, a build cycle more for each rank of registers.
TEST(Derived, KRoundBaselinePops) {
  const auto timing = [](std::vector<std::string> sets) {
    return derive(load_config(kDefault, sets)).topk_baseline;
  };
  const OrizuruTiming plain = timing({});
  EXPECT_EQ(plain.pop_cycles, 1);
  EXPECT_EQ(plain.build_cycles, 1);
  EXPECT_EQ(plain.pop_cuts, std::vector<int>{});
  EXPECT_EQ(timing({"target_period_fo4=130"}).pop_cuts, std::vector<int>{3});
  EXPECT_EQ(timing({"target_period_fo4=80"}).pop_cuts, (std::vector<int>{2, 4}));
  const OrizuruTiming t50 = timing({"target_period_fo4=50"});
  EXPECT_EQ(t50.pop_cuts, (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(t50.pop_cycles, 4);
  EXPECT_EQ(t50.build_cycles, 4);
  EXPECT_EQ(t50.drain_cycles, (3 - 1) * 4 + 2);
  EXPECT_EQ(timing({"topk_baseline_pop_cycles=64"}).pop_cycles, 7);
  EXPECT_EQ(timing({"target_period_fo4=50", "topk_baseline_pop_cycles=1"}).pop_cycles, 1);
}

// The MAC-line baseline's operand stage: from the clock target when -1, by the
// delay model's multiplexers and first multiplier stage against the budget of
// a stage from an input port (the default config's binary16 line: 59.4 FO4 at
// 50 FO4 with two stages, over its 44; 102.5 at 80 with one stage, a whole
// multiplier counted as the sum of its segments, over its 71; the same at 130,
// within 116); a cycle more of latency, the same rows a cycle. In binary32 the
// product of the binary16 operands is exact (fp_mul_segments of an exact
// product): 87.0 with one stage, within 116 at 130 FO4 but over 71 at 80; at
// 50 FO4 the lanes take two stages (lane_stages), whose first, 40.7, makes 56.3,
// over 44.
TEST(Derived, MacLineOperandStage) {
  const auto line = [](std::vector<std::string> sets) {
    return derive(load_config(kDefault, sets)).mac_line_baseline;
  };
  const FpFormat half{5, 10};
  EXPECT_NEAR(mac_line_operand_path_fo4(4, 8, half, half, 3), 15.6 + 20.9, 1e-9);
  EXPECT_NEAR(mac_line_operand_path_fo4(4, 8, half, half, 2), 15.6 + 20.9 + 22.9, 1e-9);
  EXPECT_NEAR(mac_line_operand_path_fo4(4, 8, half, half, 1), 15.6 + 86.9, 1e-9);
  EXPECT_NEAR(input_stage_budget_fo4(80), 71, 1e-9);
  EXPECT_FALSE(line({}).operand_stage);
  EXPECT_TRUE(line({"accumulator=fp16", "target_period_fo4=50"}).operand_stage);
  EXPECT_TRUE(line({"accumulator=fp16", "target_period_fo4=80"}).operand_stage);
  EXPECT_FALSE(line({"accumulator=fp16", "target_period_fo4=130"}).operand_stage);
  EXPECT_NEAR(mac_line_operand_path_fo4(4, 8, FpFormat{8, 23}, half, 1), 15.6 + 71.4, 1e-9);
  EXPECT_FALSE(line({"target_period_fo4=130"}).operand_stage);
  EXPECT_EQ(line({"target_period_fo4=80"}).lane_stages, 1);
  EXPECT_TRUE(line({"target_period_fo4=80"}).operand_stage);
  EXPECT_EQ(line({"target_period_fo4=50"}).lane_stages, 2);
  EXPECT_NEAR(mac_line_operand_path_fo4(4, 8, FpFormat{8, 23}, half, 2), 15.6 + 40.7, 1e-9);
  EXPECT_TRUE(line({"target_period_fo4=50"}).operand_stage);
  EXPECT_FALSE(line({"target_period_fo4=200"}).operand_stage);
  EXPECT_FALSE(
      line({"accumulator=fp16", "target_period_fo4=80", "mac_line_operand_stage=0"}).operand_stage);
  EXPECT_TRUE(line({"mac_line_operand_stage=1"}).operand_stage);
  const MacLineTiming off = line({});
  const MacLineTiming on = line({"mac_line_operand_stage=1"});
  EXPECT_EQ(on.row_latency, off.row_latency + 1);
  EXPECT_EQ(on.row_interval, off.row_interval);
}

// The PE line's count conversion (a 30 FO4 figure, no places inside) keeps the chain's S
// registers after it unless a clock target's stage budget holds it: then one, and the main
// branch's latency is that register, the multiplier's S and S a tree level. The paper config
// at 50 FO4: S = 2, so a cycle less a row than with S after the conversion; its row latency
// 35 cycles (48 when binary16 took 3 stages at 50 FO4, docs/fp_rtl.md, "Spans measured"; one
// of them the Index Counter array's tree register; with streamed counting, 8 beats less:
// docs/pe_line.md, "Streamed counting").
// Symmetric codebooks: the signed count's subtraction and negation before the conversion take
// a register of their own when the three do not fit the clock target, a cycle of main-branch
// latency; free codebooks never do.
TEST(Derived, SignedCountStage) {
  for (const int period : {0, 130, 80, 50, 40}) {
    const std::string target = "target_period_fo4=" + std::to_string(period);
    const Config c = load_config(test::kDefault, {"codebooks=symmetric", target});
    const Derived sym = derive(c);
    const Derived free = derive(load_config(test::kDefault, {target}));
    EXPECT_EQ(sym.pe_line.sign_stages, period == 50 || period == 40 ? 1 : 0) << period;
    EXPECT_EQ(free.pe_line.sign_stages, 0) << period;
    EXPECT_EQ(sym.pe_line.main_latency, sym.pe_line.sign_stages + sym.pe_line.conv_stages +
                                            sym.pe_line.main_product_stages +
                                            sym.pe_line.tree_levels * c.fp_pipeline_stages)
        << period;
  }
}

// The row in an SRAM (docs/sram.md) only where a line keeps it, captures its outliers and a
// counting beat is a power-of-two number of weight beats, at least two counting beats a row;
// the cycles are those of the flip-flop banks.
TEST(Derived, WeightIndexSram) {
  const auto line = [](std::vector<std::string> sets) {
    return derive(load_config(test::kDefault, sets)).pe_line;
  };
  // The default line streams its counting (Wb = G = 16): it keeps no row.
  EXPECT_FALSE(line({}).wib_sram);
  const LineTiming s = line({"weight_beat_indices=4"});
  EXPECT_TRUE(s.outlier_capture);
  EXPECT_TRUE(s.wib_sram);
  EXPECT_EQ(s.wib_lanes, 4);
  EXPECT_EQ(s.wib_words, 16);  // two banks of 128 / 16 counting beats
  EXPECT_EQ(s.wib_addr_bits, 4);
  const LineTiming f = line({"weight_beat_indices=4", "weight_index_sram=0"});
  EXPECT_FALSE(f.wib_sram);
  EXPECT_EQ(f.wib_lanes, 0);
  EXPECT_EQ(f.row_latency, s.row_latency);
  EXPECT_EQ(f.row_interval, s.row_interval);
  EXPECT_EQ(f.fifo_depth, s.fifo_depth);
  // G = 16 not a multiple of Wb = 3; G = 24 three weight beats of 8; a row of one counting
  // beat; a line that gathers.
  EXPECT_FALSE(line({"weight_beat_indices=3"}).wib_sram);
  EXPECT_FALSE(line({"index_counters=3", "weight_beat_indices=8"}).wib_sram);
  EXPECT_FALSE(line({"channels=16", "weight_beat_indices=8"}).wib_sram);
  EXPECT_FALSE(line({"weight_beat_indices=4", "pe_line_outlier_capture=0"}).wib_sram);
}

TEST(Derived, CountConversionStages) {
  const auto line = [](const std::string& config, std::vector<std::string> sets) {
    return derive(load_config(std::string(OASIS_SOURCE_DIR) + "/configs/" + config, sets)).pe_line;
  };
  EXPECT_EQ(count_conversion_stages(0, 3), 3);
  EXPECT_EQ(count_conversion_stages(50, 0), 0);
  EXPECT_EQ(count_conversion_stages(50, 3), 1);
  EXPECT_EQ(count_conversion_stages(40, 6), 1);  // a stage budget of 31 FO4
  EXPECT_EQ(count_conversion_stages(35, 6), 6);  // 26.5 FO4: it does not fit
  const LineTiming s3 = line("default.json", {"fp_pipeline_stages=3"});
  EXPECT_EQ(s3.conv_stages, 3);
  EXPECT_EQ(s3.main_latency, 3 + (1 + s3.tree_levels) * 3);
  const LineTiming t50 = line("paper.json", {"target_period_fo4=50"});
  EXPECT_EQ(t50.conv_stages, 1);
  EXPECT_EQ(t50.main_latency, 1 + (1 + t50.tree_levels) * 2);
  EXPECT_TRUE(t50.streamed_counting);
  EXPECT_EQ(t50.row_latency, 43 - t50.count_beats);
}

// Exact products (docs/fp_rtl.md): the rule the multiplier's Exact follows, and the stages
// such a product takes at a clock target: two at 50 FO4 (its first two segments, 35.1 FO4
// together, fill a 40-FO4 stage), where the binary32 units take four; one at 80 and 130.
// Without a target, or where the product is not exact, the chain's S. The compensation MACs'
// multipliers start after the Dequantization Unit's multiplexer (4 levels, 15.6 FO4), so
// their first stage holds the carry-save tree alone (22): three stages at 50 FO4, and at 80
// two (the whole product, 53.6, and the multiplexer are over 67).
TEST(Derived, ExactProductsTakeTheirOwnStages) {
  const FpFormat b16{5, 10}, b32{8, 23}, count{4, 7};
  EXPECT_TRUE(exact_product(b32, b16, b16));
  EXPECT_TRUE(exact_product(b32, count, b16));
  EXPECT_FALSE(exact_product(b16, b16, b16));      // 22 bits into 11
  EXPECT_FALSE(exact_product(b32, b32, b16));      // 35 bits into 24
  EXPECT_FALSE(exact_product({6, 23}, b16, b16));  // products below the normal range
  EXPECT_EQ(product_stages(50, b32, b16, b16, 5), 2);
  EXPECT_EQ(product_stages(80, b32, b16, b16, 3), 1);
  EXPECT_EQ(product_stages(0, b32, b16, b16, 3), 3);
  EXPECT_EQ(product_stages(50, b16, b16, b16, 3), 2);
  EXPECT_EQ(product_stages(50, b32, b16, b16, 5, select_fo4(4)), 3);
  EXPECT_EQ(product_stages(80, b32, b16, b16, 3, select_fo4(4)), 2);
  const auto timing = [](const std::string& config, std::vector<std::string> sets) {
    return derive(load_config(std::string(OASIS_SOURCE_DIR) + "/configs/" + config, sets));
  };
  const Derived t50 = timing("default.json", {"target_period_fo4=50"});
  EXPECT_EQ(t50.count_format.name(), "e4m7");
  EXPECT_EQ(t50.pe_line.main_product_stages, 2);
  EXPECT_EQ(t50.pe_line.comp_product_stages, 3);
  EXPECT_EQ(t50.mac_line_baseline.lane_stages, 2);
  EXPECT_EQ(t50.pe_line.main_latency, 1 + 2 + t50.pe_line.tree_levels * 4);
  EXPECT_EQ(t50.pe_line.comp_latency, 1 + 3);
  const Derived s3 = timing("default.json", {"fp_pipeline_stages=3"});
  EXPECT_EQ(s3.pe_line.main_product_stages, 3);
  EXPECT_EQ(s3.mac_line_baseline.lane_stages, 3);
  const Derived paper = timing("paper.json", {"target_period_fo4=50"});
  EXPECT_EQ(paper.count_format.name(), "binary16");
  EXPECT_EQ(paper.pe_line.main_product_stages, 2);
  EXPECT_EQ(paper.pe_line.comp_product_stages, 3);
}

// A pop over more than two cycles: the first part floor(L / C) levels (or
// orizuru_pop_levels), the rest split evenly; the drain has a gap of C - 2
// cycles after each pair; a clock target picks the fewest cycles whose parts
// fit the delay model's levels per cycle.
TEST(Derived, OrizuruPopOverSeveralCycles) {
  const std::string paper = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto timing = [&](std::vector<std::string> sets) {
    return derive(load_config(paper, sets)).orizuru;
  };
  const OrizuruTiming two = timing({});
  EXPECT_EQ(two.pop_cycles, 2);
  EXPECT_EQ(two.pop_cuts, std::vector<int>{6});
  EXPECT_EQ(two.drain_cycles, 42);
  const OrizuruTiming five = timing({"orizuru_pop_cycles=5"});
  EXPECT_EQ(five.pop_levels, 2);
  EXPECT_EQ(five.pop_cuts, (std::vector<int>{2, 4, 7, 9}));
  EXPECT_EQ(five.pop_cycles, 5);
  EXPECT_EQ(five.drain_cycles, 20 * 5 + 2);
  EXPECT_EQ(five.build_cycles, 12);
  EXPECT_EQ(five.cycles_per_token, 256 + 12 + 102);
  const OrizuruTiming late = timing({"orizuru_pop_cycles=3", "orizuru_pop_levels=0"});
  EXPECT_EQ(late.pop_delay, 1);
  EXPECT_EQ(late.pop_cuts, std::vector<int>{6});
  EXPECT_EQ(late.pop_cycles, 3);
  // More cycles than levels above the first part: one level a cycle.
  EXPECT_EQ(timing({"orizuru_pop_cycles=64"}).pop_cycles, 12);
  EXPECT_EQ(timing({"orizuru_pop_cycles=1"}).pop_cuts, std::vector<int>{});
  EXPECT_EQ(timing({"orizuru_pop_cycles=1"}).pop_levels, 12);
  EXPECT_EQ(timing({"orizuru_pop_cycles=1"}).drain_cycles, 42);
  // From the clock: 18 FO4 a level; 6 levels fit 130 FO4, 3 fit 80, 2 fit 50.
  EXPECT_EQ(orizuru_levels_for_period(130), 6);
  EXPECT_EQ(orizuru_levels_for_period(80), 3);
  EXPECT_EQ(orizuru_levels_for_period(50), 2);
  EXPECT_EQ(timing({"target_period_fo4=130"}).pop_cycles, 2);
  EXPECT_EQ(timing({"target_period_fo4=80"}).pop_cycles, 4);
  EXPECT_EQ(timing({"target_period_fo4=50"}).pop_cycles, 6);
  EXPECT_EQ(timing({"target_period_fo4=50"}).pop_cuts, (std::vector<int>{2, 4, 6, 8, 10}));
  EXPECT_EQ(timing({"target_period_fo4=50", "orizuru_pop_cycles=2"}).pop_cycles, 2);
  // The core's pre-processing waits for the whole drain.
  const Derived d = derive(load_config(paper, {"orizuru_pop_cycles=5"}));
  EXPECT_EQ(d.core.error_calculation, 102 + d.core.ecu_latency);
}

// The weight stream bounds the row: one bound everywhere, what the cycle
// model does.
TEST(Derived, WeightStreamBoundIsTheSameEverywhere) {
  const Config c = load_config(kDefault, {"weight_beat_indices=4"});
  const Derived d = derive(c);
  const int interval = 32;  // ceil(128 / 4); Index Counters 8, MAC tree 8, compensation 6
  EXPECT_EQ(d.row.fill, interval);
  EXPECT_EQ(d.row.row, interval);
  const int64_t rows = 64;
  const int64_t bound = (rows + c.pe_lines - 1) / c.pe_lines * interval;
  EXPECT_EQ(d.gemm_lower_bound(rows), bound);

  // The manifest.
  const auto files = gen::render(c, {"configs/default.json", {"weight_beat_indices=4"}, "x"});
  const auto m = nlohmann::json::parse(files.at("manifest.json"));
  EXPECT_EQ(m["derived"]["cycles_per_row"], interval);
  EXPECT_EQ(m["derived"]["weight_stream_cycles_per_row"], interval);
  EXPECT_EQ(m["blocks"]["pe_line"]["row_interval_cycles"], interval);
  EXPECT_EQ(m["blocks"]["core"]["row_interval_cycles"], interval);
  // The generated parameters header.
  const std::string params = files.at(fmt::format("oasis_{}_params.hpp", c.name));
  for (const char* name : {"kWeightStreamCyclesPerRow", "kCyclesPerRow"}) {
    const std::string line = fmt::format("inline constexpr long long {} = {};", name, interval);
    EXPECT_NE(params.find(line), std::string::npos) << line;
  }

  // A command's JSON for this config: `program verb --json --rows ...`.
  const auto command_json = [&](const char* program, const char* verb) {
    const test::CmdResult r = test::run_command(
        fmt::format("{} {} --json --rows {} --config {} --set weight_beat_indices=4",
                    gen::shell_word(std::string(OASIS_BINARY_DIR) + "/" + program), verb, rows,
                    gen::shell_word(kDefault)));
    EXPECT_EQ(r.status, 0) << r.out;
    return nlohmann::json::parse(r.out);
  };

  // oasis-model analyze, as a library and as a command.
  const AnalyticFigures a = analyze(c, int(rows), 4, 1);
  EXPECT_EQ(a.stream_cycles, interval);
  EXPECT_EQ(a.cycles_per_row, interval);
  EXPECT_EQ(a.cycle_lower_bound, bound);
  const auto j = command_json("oasis-model", "analyze");
  EXPECT_EQ(j["cycles_per_row"], interval);
  EXPECT_EQ(j["cycle_lower_bound"], bound);

  // The performance model.
  const TokenFigures f = token_figures(c, rows);
  EXPECT_EQ(f.row_interval, interval);
  EXPECT_EQ(f.interval_bound, PerfPhase::kWeightStream);
  const auto p = command_json("oasis-perf", "layer");
  EXPECT_EQ(p["phases"]["row_interval"], interval);
  EXPECT_EQ(p["phases"]["interval_bound"], "weight stream");

  // The cycle model: each further group of rows costs one row interval, and
  // the GEMM phase is derive()'s.
  std::mt19937_64 rng(5);
  const LutGemm gemm = test::random_gemm(c, rng);
  int64_t previous = 0;
  for (int groups = 3; groups <= 5; ++groups) {
    const int64_t n = int64_t(groups) * c.pe_lines;
    const test::RandomInputs in = test::random_inputs(c, 1, n, rng);
    const CoreTokenRun run = run_core(c, gemm, in.x, in.sa, in.iw, in.sw)[0];
    const int64_t gemm_cycles = run.last_output - run.first_weight + 1;
    EXPECT_EQ(gemm_cycles, d.gemm_cycles(n)) << n << " rows";
    EXPECT_GE(gemm_cycles, d.gemm_lower_bound(n)) << n << " rows";
    if (previous != 0) {
      EXPECT_EQ(gemm_cycles - previous, interval) << n << " rows";
    }
    previous = gemm_cycles;
  }
}

}  // namespace
}  // namespace oasis
