// SPDX-License-Identifier: Apache-2.0
#include "model/derived.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/config.hpp"
#include "model/cycle/topk_sort_baseline.hpp"
#include "model/perf/fp_delay.hpp"

namespace oasis {
namespace {

// Where a pop over `cycles` cycles of a tree of `levels` levels splits its
// path (docs/orizuru.md, Drain): the first level of each part after the
// first, ascending. The first part is `first` levels (-1: levels / cycles,
// rounded down but at least 1, since its cycle also carries the handshake's
// input delay and the path's decode; 0: nothing, the whole path from the next
// cycle on), the rest split as evenly as the levels allow. No boundary: the
// whole path in one cycle.
std::vector<int> pop_boundaries(int levels, int cycles, int first) {
  const int p = first < 0 ? std::max(1, levels / std::max(1, cycles)) : std::min(first, levels);
  if (cycles <= 1 || p >= levels) return {};
  const int parts = std::min(cycles, 1 + levels - p);
  std::vector<int> b;
  for (int s = 1; s < parts; ++s) b.push_back(p + (s - 1) * (levels - p) / (parts - 1));
  return b;
}

// The levels of each part of a path of `levels` levels split at `boundaries`
// (ascending; a leading 0 makes an empty first part).
std::vector<int> part_levels(const std::vector<int>& boundaries, int levels) {
  std::vector<int> parts;
  int from = 0;
  for (int b : boundaries) {
    parts.push_back(b - from);
    from = b;
  }
  parts.push_back(levels - from);
  return parts;
}

// The k-round baseline's pairwise trees over `leaves`: ceil(log2 leaves)
// levels split into topk_baseline_pop_cycles parts (from the clock target when
// 0), the first parts the smaller; the levels that start a later part, their
// inputs registered.
std::vector<int> kround_cuts(const Config& c, int leaves) {
  const int levels = clog2(leaves);
  int parts = c.topk_baseline_pop_cycles;
  if (parts == 0) {
    parts = c.target_period_fo4 > 0
                ? ceil_div(levels, orizuru_levels_for_period(c.target_period_fo4))
                : 1;
  }
  parts = std::clamp(parts, 1, std::max(1, levels));
  std::vector<int> cuts;
  for (int s = 1; s < parts; ++s) cuts.push_back(s * levels / parts);
  return cuts;
}

// S: the config's fp_pipeline_stages, or with a clock target the stages the target needs,
// whatever the config says (Derived::fp_stages).
int resolve_fp_stages(const Config& c, const FpFormat& accumulator) {
  if (c.target_period_fo4 <= 0) return c.fp_pipeline_stages;
  return fp_stages_for_period(c.target_period_fo4, accumulator,
                              int(config_field("fp_pipeline_stages").max));
}

// The estimate of a stage of `parts` units of `unit_fo4` each (StageModel).
StageModel stage_estimate(double unit_fo4, std::vector<int> parts) {
  StageModel m;
  m.unit_fo4 = unit_fo4;
  m.longest_stage_fo4 =
      unit_fo4 * (parts.empty() ? 0 : *std::max_element(parts.begin(), parts.end()));
  m.units_per_stage = std::move(parts);
  return m;
}

// The three top-k engines behind Orizuru's interface.
enum class TopkEngine { kOrizuru, kKRound, kSortNetwork };

// Orizuru or a baseline for N = K leaves in units of R inputs; the sorting network's
// (d.sort_network) build takes 1 + its registers cycles.
OrizuruTiming orizuru(const Config& c, const Derived& d, TopkEngine engine) {
  const bool baseline = engine != TopkEngine::kOrizuru;
  OrizuruTiming t;
  t.channels = c.channels;
  t.k = c.outliers_per_side;
  t.outliers = d.outliers;
  t.unit_inputs = c.orizuru_unit_inputs;
  t.unit_levels = clog2(c.orizuru_unit_inputs);
  for (int width = ceil_div(c.channels, t.unit_inputs);; width = ceil_div(width, t.unit_inputs)) {
    t.units_per_layer.push_back(width);
    if (width == 1) break;
  }
  t.layers = int(t.units_per_layer.size());
  for (int u : t.units_per_layer) t.units += u;
  t.tree_levels = t.layers * t.unit_levels;
  t.levels_per_stage = c.orizuru_levels_per_stage;
  if (!baseline) {
    const int levels = t.tree_levels;
    int cycles = c.orizuru_pop_cycles > 0 ? c.orizuru_pop_cycles : 2;
    if (c.orizuru_pop_cycles == 0 && c.target_period_fo4 > 0) {
      // The fewest cycles whose parts of the path each fit the clock.
      const int fit = orizuru_levels_for_period(c.target_period_fo4);
      for (cycles = 1; cycles < levels; ++cycles) {
        const std::vector<int> parts =
            part_levels(pop_boundaries(levels, cycles, c.orizuru_pop_levels), levels);
        if (*std::max_element(parts.begin(), parts.end()) <= fit) break;
      }
    }
    const std::vector<int> b = pop_boundaries(levels, cycles, c.orizuru_pop_levels);
    t.pop_delay = !b.empty() && b.front() == 0 ? 1 : 0;
    t.pop_cuts.assign(b.begin() + t.pop_delay, b.end());
    t.pop_levels = t.pop_delay ? 0 : b.empty() ? levels : b.front();
    t.pop_cycles = t.pop_delay + int(t.pop_cuts.size()) + 1;
    t.pop_part_levels = part_levels(t.pop_cuts, levels);
  }
  t.beat_activations = t.unit_inputs;
  t.beats = ceil_div(c.channels, t.unit_inputs);
  t.padded_leaves = t.beats * t.unit_inputs;
  if (engine == TopkEngine::kKRound) {
    // The k-round baseline: its trees' registers delay a side's next winner.
    t.pop_cuts = kround_cuts(c, t.padded_leaves);
    t.pop_levels = t.pop_cuts.empty() ? clog2(t.padded_leaves) : t.pop_cuts.front();
    t.pop_cycles = int(t.pop_cuts.size()) + 1;
    t.pop_part_levels = part_levels(t.pop_cuts, clog2(t.padded_leaves));
  }
  t.pop_wait_bits = index_width(t.pop_cycles);
  t.channel_bits = d.channel_bits;
  const int64_t n = c.channels;
  const int64_t pops = t.outliers;
  if (engine == TopkEngine::kSortNetwork) {
    // Every compare-exchange of the network works once a token.
    t.build_cycles = 1 + d.sort_network.registers;
    t.comparators = bitonic_compare_exchanges(t.padded_leaves);
    t.comparisons_per_token = t.comparators;
  } else if (baseline) {
    // Two pairwise trees over the N leaves; each output is N - 1 comparisons.
    t.build_cycles = 1 + int(t.pop_cuts.size());
    t.comparators = 2 * (n - 1);
    t.comparisons_per_token = pops * (n - 1);
  } else {
    // The levels between two of the pop's cuts are built in cycles of their
    // own: the level above a cut reads registered winners.
    t.build_cycles = 0;
    for (int part : part_levels(t.pop_cuts, t.tree_levels)) {
      t.build_cycles += ceil_div(part, t.levels_per_stage);
    }
    // The max tree's N - 1, the min tree's N/2 - 1 beyond the shared leaf
    // comparisons; each pop re-compares one path of a side.
    t.comparators = (n - 1) + (n - 1 - n / 2);
    for (int l = 0; l < t.layers; ++l) {
      const int64_t r = t.unit_inputs;
      t.comparator_instances +=
          t.units_per_layer[size_t(l)] * (l == 0 ? r / 2 + 2 * (r / 2 - 1) : 2 * (r - 1));
    }
    t.comparisons_per_token = t.comparators + pops * clog2(n);
  }
  t.drain_cycles = t.pop_cycles <= 2 ? int(pops) : (t.k - 1) * t.pop_cycles + 2;
  t.cycles_per_token = t.beats + t.build_cycles + t.drain_cycles;
  t.beat_bits = index_width(t.beats);
  t.stage_bits = index_width(t.build_cycles);
  t.output_bits = index_width(t.outliers);
  t.stage_model = engine == TopkEngine::kSortNetwork
                      ? stage_estimate(kCompareExchangeFo4, d.sort_network.cycle_stages)
                      : stage_estimate(kOrizuruLevelFo4, t.pop_part_levels);
  return t;
}

LineTiming pe_line(const Config& c, const Derived& d) {
  LineTiming t;
  const int s = d.fp_stages;
  t.fill_beats = d.row.fill;
  t.count_beats = d.row.count;
  t.chunks = d.row.reduce;
  t.groups = d.row.compensate;
  t.tree_inputs = std::min(c.mac_tree_inputs, d.lut_entries);
  t.tree_levels = clog2(t.tree_inputs);
  t.comp_inputs = std::min(c.comp_macs, d.outliers);
  t.comp_levels = clog2(t.comp_inputs);
  // Count conversion, multiplier, one adder per tree level.
  t.sign_stages = d.symmetric && signed_count_stage(c.target_period_fo4) ? 1 : 0;
  t.conv_stages = count_conversion_stages(c.target_period_fo4, s);
  t.main_product_stages =
      product_stages(c.target_period_fo4, d.accumulator, d.count_format, d.storage, s);
  t.main_latency = t.sign_stages + t.conv_stages + t.main_product_stages + t.tree_levels * s;
  // The gather's register, then the multiplier's stages; its first stage starts with the
  // Dequantization Unit's multiplexer over the 2^nW weight centroids.
  t.gather_stages = 1;
  t.comp_product_stages = product_stages(c.target_period_fo4, d.accumulator, d.storage, d.storage,
                                         s, select_fo4(c.weight_bits));
  t.comp_latency = t.gather_stages + t.comp_product_stages;
  const int l = d.accumulator_slots;
  t.main_slots = std::min(l, t.chunks);
  t.main_acc_latency = l == 1 ? 0 : l + clog2(t.main_slots) * s;
  t.comp_slots = std::min(l, t.groups);
  t.comp_acc_latency = l;
  t.comp_tree_latency = (clog2(t.comp_slots) + t.comp_levels) * s;
  t.merge_latency = (c.accumulator == AccumulatorFormat::kFp32 ? 4 : 3) * s;
  t.row_interval = d.row.row;
  // Per outlier and index bit, capture costs Wb - 1 multiplexers of the beat, two registers
  // of two and their enables, and the read bank's multiplexer; the gather K - 1 a MAC.
  t.outlier_capture = c.pe_line_outlier_capture < 0
                          ? int64_t(d.outliers) * (c.weight_beat_indices + 6) <=
                                int64_t(t.comp_inputs) * (c.channels - 1)
                          : c.pe_line_outlier_capture == 1;
  // Nothing reads a captured line's row but the counting, which takes it beat by beat as it
  // streams in when a weight beat is a counting beat.
  t.streamed_counting = t.outlier_capture && c.weight_beat_indices == d.indices_per_cycle;
  {
    const int g = d.indices_per_cycle, wb = c.weight_beat_indices;
    t.wib_sram = c.weight_index_sram == 1 && t.outlier_capture && !t.streamed_counting &&
                 g % wb == 0 && ((g / wb) & (g / wb - 1)) == 0 && t.count_beats >= 2;
    t.wib_lanes = t.wib_sram ? g / wb : 0;
    t.wib_words = t.wib_sram ? 2 * t.count_beats : 0;
    t.wib_addr_bits = clog2(t.wib_words);
  }
  // From the cycle the row's last weight beat is taken: the row starts the
  // next cycle; the Index Counter array presents chunk 0 `latency` cycles
  // after the last counting beat (streamed: the beat just taken); the main
  // result enters its FIFO after the accumulator, the compensation result
  // after the MACs' L cycles, the done register and the tree; the merge
  // starts when both are visible and its result is visible a cycle after it
  // leaves the merge pipeline.
  const int main_ready = (t.streamed_counting ? 0 : t.count_beats) + d.index_counter_array.latency +
                         t.chunks + t.main_latency + t.main_acc_latency;
  const int comp_ready = t.groups + t.comp_latency + 1 + t.comp_acc_latency + t.comp_tree_latency;
  t.row_latency = std::max(main_ready, comp_ready) + t.merge_latency + 1;
  t.fifo_depth = ceil_div(t.row_latency - 1, t.row_interval) + 1;
  t.last_fill_indices = c.channels - (t.fill_beats - 1) * c.weight_beat_indices;
  t.fill_bits = index_width(t.fill_beats);
  t.beat_bits = count_width(t.count_beats);
  t.group_bits = count_width(t.groups);
  t.chunk_bits = d.index_counter_array.chunk_bits;
  t.credit_bits = count_width(t.fifo_depth);
  return t;
}

// The FP16 dequantize-and-MAC line (docs/synth.md, Baselines): as many multiply-accumulates a
// cycle as the PE line needs for its row interval.
MacLineTiming mac_line(const Config& c, const Derived& d) {
  MacLineTiming ml;
  const int s = d.fp_stages;
  ml.macs = ceil_div(c.channels, d.pe_line.row_interval);
  ml.trees = ceil_div(ml.macs, c.mac_tree_inputs);
  ml.tree_inputs = std::min(ml.macs, c.mac_tree_inputs);
  ml.beats = ceil_div(c.channels, ml.macs);
  ml.tree_levels = clog2(ml.macs);
  ml.row_interval = ml.beats;
  ml.beat_bits = index_width(ml.beats);
  ml.slots = std::min(d.accumulator_slots, ml.beats);
  ml.lane_stages = product_stages(c.target_period_fo4, d.accumulator, d.storage, d.storage, s);
  ml.operand_stage =
      c.mac_line_operand_stage < 0
          ? c.target_period_fo4 > 0 &&
                mac_line_operand_path_fo4(c.weight_bits, ml.beats, d.accumulator, d.storage,
                                          ml.lane_stages) > d.input_stage_budget_fo4
          : c.mac_line_operand_stage == 1;
  ml.row_latency = (ml.operand_stage ? 1 : 0) + ml.lane_stages + ml.tree_levels * s +
                   d.accumulator_slots + clog2(ml.slots) * s + 2 * s +
                   (c.accumulator == AccumulatorFormat::kFp32 ? s : 0);
  ml.sw_fifo_depth = std::max(1, ceil_div(ml.beats - 1 + ml.row_latency, ml.beats));
  return ml;
}

// The FIGLUT-class line (docs/woq_lut_line.md): sized to the PE line's products a cycle unless
// the config gives its units; its timing from the same stage counts as the other blocks'.
WoqLutTiming woq_lut_line(const Config& c, const Derived& d) {
  WoqLutTiming t;
  const int s = d.fp_stages;
  t.group_size = c.woq_group_size;
  t.planes = c.weight_bits;
  t.lut_entries = 1 << (t.group_size - 1);
  t.lut_levels = clog2(t.group_size);
  // A node of n terms stores the 2^(n-1) sums with its top term positive, one adder each.
  std::vector<int> nodes(size_t(t.group_size), 1);
  while (nodes.size() > 1) {
    std::vector<int> up;
    for (size_t i = 0; i + 1 < nodes.size(); i += 2) {
      up.push_back(nodes[i] + nodes[i + 1]);
      t.lut_adders += 1 << (up.back() - 1);
    }
    if (nodes.size() % 2 == 1) up.push_back(nodes.back());
    nodes = std::move(up);
  }
  t.groups = ceil_div(c.channels, t.group_size);
  t.pe_products_per_cycle = double(c.channels) / double(d.pe_line.row_interval);
  t.units = c.woq_units > 0 ? c.woq_units : ceil_div(t.groups * t.planes, d.pe_line.row_interval);
  t.rows = c.woq_rows_per_lut > 0 ? c.woq_rows_per_lut : t.units;
  t.luts = ceil_div(t.units, t.rows);
  t.windows = ceil_div(t.groups, t.luts);
  t.batch_beats = t.windows * t.planes;
  for (int l = 0; l < t.luts; ++l) {
    const int first = ((t.windows - 1) * t.luts + l) * t.group_size;
    t.last_window_channels.push_back(std::clamp(c.channels - first, 0, t.group_size));
  }
  t.accumulate_stages = d.accumulator_slots;
  t.partials = std::min(d.accumulator_slots, t.batch_beats);
  t.tree_partials = 1 << clog2(t.partials);
  t.generator_stages =
      unit_block_stages(c.target_period_fo4, FpUnitKind::kAdd, d.storage, d.storage, d.storage, s);
  t.generator_latency = 1 + t.lut_levels * t.generator_stages;
  t.lut_slots = ceil_div(t.generator_latency + 1, t.planes);
  t.read_stage = c.woq_read_stage < 0
                     ? c.target_period_fo4 > 0 &&
                           woq_read_path_fo4(t.group_size, d.accumulator, t.accumulate_stages) >
                               d.input_stage_budget_fo4
                     : c.woq_read_stage == 1;
  t.row_tree_inputs = t.luts * t.tree_partials;
  t.row_tree_levels = clog2(t.row_tree_inputs);
  t.load_cycles = 2 + t.generator_latency;
  t.scale_latency = (t.read_stage ? 1 : 0) + t.accumulate_stages + 2 + t.row_tree_levels * s;
  t.row_latency = t.scale_latency + s + (c.accumulator == AccumulatorFormat::kFp32 ? s : 0);
  // Row j's s_w comes with beat B - R + j and leaves with its row's scaling, scale_latency + j
  // cycles after the last beat; the next batch's come from its beat B - R on. The most held at
  // once, unthrottled (a gap only delays the next batch's):
  t.scale_fifo_depth = t.rows;
  for (int j = 0; j < t.rows; ++j) {
    const int at = t.batch_beats - t.rows + 1 + j;  // next batch's push j, after the last beat
    const int popped = std::clamp(at - t.scale_latency + 1, 0, t.rows);
    t.scale_fifo_depth = std::max(t.scale_fifo_depth, j + 1 + t.rows - popped);
  }
  t.products_per_batch = int64_t(t.rows) * c.channels;
  t.products_per_cycle = double(t.products_per_batch) / double(t.batch_beats);
  t.beat_bits = index_width(t.batch_beats);
  t.plane_bits = index_width(t.planes);
  t.window_bits = index_width(t.windows);
  t.row_bits = index_width(t.rows);
  t.credit_bits = count_width(t.lut_slots);
  return t;
}

// The floating-point units that are blocks of their own (gen/fp_units.cpp), each in its own
// formats, with the registers its own format and kind need at a clock target.
std::vector<FpUnitTiming> fp_unit_blocks(const Config& c, const Derived& d) {
  constexpr FpFormat h{5, 10}, s{8, 23};
  struct Unit {
    const char* block;
    FpUnitKind kind;
    FpFormat result, a, b;
    int int_bits = 0;
  };
  const Unit units[] = {
      {"fp16_add", FpUnitKind::kAdd, h, h, h},
      {"fp16_mul", FpUnitKind::kMul, h, h, h},
      {"fp32_add", FpUnitKind::kAdd, s, s, s},
      {"fp32_mul", FpUnitKind::kMul, s, s, s},
      // The blocks' binary32 multipliers by a binary16 value (the scalings, the LUT entries).
      {"fp32_mul_fp16", FpUnitKind::kMul, s, s, h},
      // The binary32 product of two binary16 values (the MAC-line baseline's lanes, the
      // compensation MACs): exact, so the multiplier has no rounding.
      {"fp32_mul_fp16_fp16", FpUnitKind::kMul, s, h, h},
      {"fp16_to_fp32", FpUnitKind::kConvert, s, h, h},
      {"fp32_to_fp16", FpUnitKind::kConvert, h, s, s},
      // 32 bits, the model's fp32_from_uint: the rounding path above 2^24 is checked too,
      // although index counts (count_bits) stay far below.
      {"uint_to_fp32", FpUnitKind::kFromUint, s, s, s, 32}};
  std::vector<FpUnitTiming> blocks;
  for (const Unit& u : units) {
    FpUnitTiming t;
    t.block = u.block;
    t.kind = u.kind;
    t.result = u.result;
    t.a = u.a;
    t.b = u.b;
    t.int_bits = u.int_bits;
    t.stages = unit_block_stages(c.target_period_fo4, u.kind, u.result, u.a, u.b, d.fp_stages);
    if (u.kind == FpUnitKind::kAdd || u.kind == FpUnitKind::kMul) {
      t.segments = u.kind == FpUnitKind::kAdd ? fp_add_segments(u.result)
                                              : fp_mul_segments(u.result, u.a, u.b);
      t.cuts = place_cuts(t.segments, t.stages);
      t.fits_target = c.target_period_fo4 > 0 && fits_period(t.cuts, c.target_period_fo4);
    } else {
      t.cuts.output_stages = t.stages;
    }
    blocks.push_back(std::move(t));
  }
  return blocks;
}

}  // namespace

Derived derive(const Config& c) {
  Derived d;
  d.act_centroids = 1 << c.act_bits;
  d.weight_centroids = 1 << c.weight_bits;
  d.boundaries = d.act_centroids - 1;
  d.concat_index_bits = c.act_bits + c.weight_bits;
  d.symmetric = c.codebooks == Codebooks::kSymmetric;
  d.count_bins = 1 << (d.concat_index_bits - (d.symmetric ? 1 : 0));
  d.lut_entries = 1 << (d.concat_index_bits - (d.symmetric ? 2 : 0));
  d.outliers = 2 * c.outliers_per_side;
  d.channel_bits = index_width(c.channels);
  d.count_bits = count_width(c.channels);
  d.count_data_bits = d.count_bits + (d.symmetric ? 1 : 0);
  d.indices_per_cycle = c.index_counters * c.counter_inputs;
  d.accumulator = accumulator_format(c.accumulator);
  d.count_format = count_format(d.count_bits, d.accumulator);
  d.fp_stages = resolve_fp_stages(c, d.accumulator);
  if (c.target_period_fo4 > 0) {
    d.stage_budget_fo4 = fp_stage_budget_fo4(c.target_period_fo4);
    d.input_stage_budget_fo4 = input_stage_budget_fo4(c.target_period_fo4);
  }
  d.accumulator_slots = std::max(1, d.fp_stages);

  d.row.fill = ceil_div(c.channels, c.weight_beat_indices);
  d.row.count = ceil_div(c.channels, d.indices_per_cycle);
  d.row.reduce = ceil_div(d.lut_entries, c.mac_tree_inputs);
  d.row.compensate = ceil_div(d.outliers, c.comp_macs);
  d.row.row = std::max({d.row.fill, d.row.count, d.row.reduce, d.row.compensate});

  ClusteringTiming& cu = d.clustering_unit;
  cu.stages = ceil_div(c.act_bits, c.clustering_levels_per_stage);
  cu.latency = cu.stages;
  cu.beats_per_cycle = 1;
  cu.activations_per_cycle = c.clustering_lanes * cu.beats_per_cycle;
  cu.comparators = c.clustering_lanes * c.act_bits;

  d.orizuru = orizuru(c, d, TopkEngine::kOrizuru);
  d.topk_baseline = orizuru(c, d, TopkEngine::kKRound);
  SortNetworkTiming& sn = d.sort_network;
  sn.positions = 1 << clog2(d.topk_baseline.padded_leaves);
  const int m = clog2(sn.positions);
  sn.stages = m * (m + 1) / 2;
  sn.stages_per_cycle = c.topk_sort_stages_per_cycle > 0 ? c.topk_sort_stages_per_cycle
                        : c.target_period_fo4 > 0 ? sort_stages_for_period(c.target_period_fo4)
                                                  : sn.stages;
  sn.stages_per_cycle = std::min(sn.stages_per_cycle, sn.stages);
  sn.registers = ceil_div(sn.stages, sn.stages_per_cycle) - 1;
  sn.cycle_stages.assign(size_t(sn.registers + 1), sn.stages_per_cycle);
  sn.cycle_stages.back() = sn.stages - sn.registers * sn.stages_per_cycle;
  d.topk_sort_baseline = orizuru(c, d, TopkEngine::kSortNetwork);

  IndexCounterTiming& ic = d.index_counter_array;
  ic.beats_per_row = d.row.count;
  ic.chunks_per_row = d.row.reduce;
  ic.count_bits = d.count_bits;
  ic.column_bits = count_width(c.counter_inputs);
  ic.beat_sum_bits = count_width(d.indices_per_cycle);
  ic.input_stage =
      c.index_counter_input_stage < 0
          ? c.target_period_fo4 > 0 &&
                index_count_path_fo4(d.indices_per_cycle, d.count_bits) > d.stage_budget_fo4
          : c.index_counter_input_stage == 1;
  const CountingPath counting =
      counting_path(d.indices_per_cycle, d.count_bits, ic.beats_per_row > 1, !ic.input_stage,
                    d.stage_budget_fo4, c.index_counter_tree_registers);
  ic.tree_stages = counting.tree_stages;
  ic.tree_cuts = counting.cuts;
  ic.counting_stage_fo4 = counting.stage_fo4;
  ic.latency = 1 + (ic.input_stage ? 1 : 0) + int(ic.tree_cuts.size());
  ic.row_interval = std::max(ic.beats_per_row, ic.chunks_per_row);
  ic.beat_bits = index_width(ic.beats_per_row);
  ic.chunk_bits = index_width(ic.chunks_per_row);

  d.pe_line = pe_line(c, d);

  d.mac_line_baseline = mac_line(c, d);

  d.woq_lut_line_baseline = woq_lut_line(c, d);

  CoreTiming& co = d.core;
  co.outliers = d.outliers;
  co.lines = c.pe_lines;
  co.beat_activations = d.orizuru.beat_activations;
  co.token_beats = d.orizuru.beats;
  co.clustering_parts = ceil_div(co.beat_activations, c.clustering_lanes);
  co.group_beats = d.pe_line.fill_beats;
  co.rows_bits = count_width(c.pe_lines);
  co.weight_lane_bits = c.weight_beat_indices * c.weight_bits;
  co.ecu_read_stages = 1;
  co.ecu_latency = co.ecu_read_stages + d.fp_stages;
  co.part_bits = index_width(co.clustering_parts);
  // The last beat is taken (B - 1) * Q cycles after the first. The indices
  // are all in once its last part has left the Clustering Unit; the tree is
  // built build_cycles after it; the 2k outliers then leave one a cycle
  // through the read's register and the S registers of the subtraction.
  co.clustering_done = co.token_beats * co.clustering_parts + cu.latency + 1;
  co.orizuru_done = (co.token_beats - 1) * co.clustering_parts + d.orizuru.build_cycles + 1;
  co.error_calculation = d.orizuru.drain_cycles + co.ecu_latency;
  co.preprocess_cycles = std::max(co.clustering_done, co.orizuru_done) + co.error_calculation;

  AxiTiming& ax = d.axi;
  ax.data_bits = c.axi_data_bits;
  ax.data_bytes = c.axi_data_bits / 8;
  ax.size_code = clog2(ax.data_bytes);
  ax.addr_bits = c.axi_addr_bits;
  ax.id_bits = c.axi_id_bits;
  ax.max_burst = c.axi_max_burst;
  ax.outstanding_reads = c.axi_outstanding_reads;
  ax.chain_limit = c.axi_chain_limit;
  ax.read_buffer_beats = ax.outstanding_reads * ax.max_burst;
  ax.write_buffer_beats = ax.max_burst;
  ax.desc_bytes = 64;
  ax.desc_beats = ax.desc_bytes / ax.data_bytes;
  const int half = d.storage.width();
  ax.word_slots = ax.data_bits / half;
  ax.table_words = d.lut_entries + d.act_centroids + d.weight_centroids + d.boundaries;
  ax.table_beats = ceil_div(ax.table_words, ax.word_slots);
  ax.x_beat_bits = co.beat_activations * half;
  ax.x_parts = ceil_div(ax.x_beat_bits, ax.data_bits);
  ax.x_slots = std::max(1, ax.data_bits / ax.x_beat_bits);
  ax.token_bus_beats = ceil_div(co.token_beats, ax.x_slots) * ax.x_parts;
  ax.w_beat_bits = c.pe_lines * co.weight_lane_bits;
  ax.w_parts = ceil_div(ax.w_beat_bits, ax.data_bits);
  ax.w_slots = std::max(1, ax.data_bits / ax.w_beat_bits);
  ax.scale_bits = c.pe_lines * half;
  ax.scale_beats = ceil_div(ax.scale_bits, ax.data_bits);
  ax.record_weight_beats = ceil_div(co.group_beats, ax.w_slots) * ax.w_parts;
  ax.record_beats = ax.scale_beats + ax.record_weight_beats;
  ax.record_bytes = int64_t(ax.record_beats) * ax.data_bytes;
  ax.feed_group_cycles = ax.scale_beats + co.group_beats * ax.w_parts;
  ax.rows_bits = 24;
  ax.max_rows = (int64_t{1} << ax.rows_bits) - 1;
  ax.group_bits = count_width((ax.max_rows + c.pe_lines - 1) / c.pe_lines);

  d.fp_units = fp_unit_blocks(c, d);
  return d;
}

const FpUnitTiming& Derived::fp_unit(std::string_view block) const {
  for (const FpUnitTiming& u : fp_units) {
    if (u.block == block) return u;
  }
  throw std::logic_error(fmt::format("no floating-point unit block '{}'", block));
}

int64_t Derived::row_groups(int64_t rows) const { return (rows + core.lines - 1) / core.lines; }

int64_t Derived::gemm_lower_bound(int64_t rows) const { return row_groups(rows) * row.row; }

int64_t Derived::gemm_cycles(int64_t rows, int64_t row_interval, int64_t last_group_beats) const {
  return (row_groups(rows) - 1) * row_interval + last_group_beats + pe_line.row_latency;
}

int64_t Derived::gemm_cycles(int64_t rows) const {
  return gemm_cycles(rows, row.row, core.group_beats);
}

nlohmann::ordered_json Derived::to_json() const {
  nlohmann::ordered_json j;
  j["concat_index_bits"] = concat_index_bits;
  j["codebooks"] = symmetric ? "symmetric" : "free";
  j["count_bins"] = count_bins;
  j["lut_entries"] = lut_entries;
  j["act_centroids"] = act_centroids;
  j["weight_centroids"] = weight_centroids;
  j["boundaries"] = boundaries;
  j["outliers"] = outliers;
  j["indices_per_cycle"] = indices_per_cycle;
  j["count_bits"] = count_bits;
  j["count_data_bits"] = count_data_bits;
  j["count_format"] = count_format.name();
  j["channel_index_bits"] = channel_bits;
  j["weight_stream_cycles_per_row"] = row.fill;
  j["count_cycles_per_row"] = row.count;
  j["reduce_cycles_per_row"] = row.reduce;
  j["compensation_cycles_per_row"] = row.compensate;
  j["cycles_per_row"] = row.row;
  j["orizuru_units"] = orizuru.units;
  j["accumulator_exp_bits"] = accumulator.exp_bits;
  j["accumulator_frac_bits"] = accumulator.frac_bits;
  return j;
}

}  // namespace oasis
