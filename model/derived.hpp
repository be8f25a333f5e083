// SPDX-License-Identifier: Apache-2.0
// Everything that derives from a config, computed once, by derive(): index and count widths,
// the accumulator format, the LUT and codebook sizes, every field the config leaves to be
// resolved (0 or -1, and the stage count S at a clock target), the clock target's stage
// budgets, every block's structure and timing (the floating-point unit blocks' registers and
// the top-k engines' stage estimates included), and the cycle bound of docs/spec.md section 6
// with all its terms (the weight stream's included). The models, the performance model, the
// generator's emitters, the manifest and the generated C++ headers all read these figures;
// none computes them again. derive() takes the delays from the delay model
// (model/perf/fp_delay.hpp), which needs neither the config nor Derived; the one figure the
// config keeps as resolved is S (fp_pipeline_stages, written back by parse_config).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/fp_format.hpp"
#include "model/perf/fp_delay.hpp"

namespace oasis {

struct Config;
enum class AccumulatorFormat;

/// The cycles a PE line spends on each output row (docs/spec.md section 6):
/// every term and the row interval they bound.
struct RowCycles {
  int fill = 0;        ///< ceil(K / Wb): weight-stream beats that carry the row
  int count = 0;       ///< ceil(K / (C*I)): Index Counter beats
  int reduce = 0;      ///< ceil(lut_entries / T): MAC-tree cycles (2^(nA+nW) or 2^(nA+nW-2))
  int compensate = 0;  ///< ceil(2k / Mc): compensation-MAC cycles
  int row = 0;         ///< the largest of the four: the line's row interval
};

/// The Clustering Unit (docs/clustering_unit.md).
struct ClusteringTiming {
  int stages = 0;                 ///< ceil(nA / levels per stage) register stages
  int latency = 0;                ///< a beat accepted to its indices presented: the stages
  int beats_per_cycle = 0;        ///< 1: one beat of `lanes` activations a cycle
  int activations_per_cycle = 0;  ///< clustering_lanes
  int comparators = 0;            ///< lanes * nA
};

/// The delay model's estimate of a top-k engine's longest stage, the manifest's stage_model
/// (make ppa sets its measurement beside it): each cycle's part of the path in like units.
struct StageModel {
  double unit_fo4 = 0;               ///< a unit: a tree level (kOrizuruLevelFo4) or a network stage
  std::vector<int> units_per_stage;  ///< the units of each cycle's part
  double longest_stage_fo4 = 0;      ///< unit_fo4 times the most units of a part
};

/// Structure and timing of a top-k engine (docs/orizuru.md): Orizuru, or the
/// plain baseline (topk_baseline) that reduces the whole masked vector.
struct OrizuruTiming {
  int channels = 0;                  ///< N
  int k = 0;                         ///< outliers per side
  int outliers = 0;                  ///< 2k outliers of a token, one a pop
  int unit_inputs = 0;               ///< R
  int unit_levels = 0;               ///< log2(R)
  int layers = 0;                    ///< layers of units, leaves to root
  std::vector<int> units_per_layer;  ///< leaves first; the last is 1
  int units = 0;                     ///< sum of units_per_layer (273 for 4096 / 16)
  int tree_levels = 0;               ///< comparator levels of the padded tree: layers * log2(R)
  int levels_per_stage = 0;          ///< comparator levels evaluated in one build cycle
  /// Tree levels (from the leaves) a pop rewrites in the cycle its outlier is
  /// taken; tree_levels: all at once (docs/orizuru.md, Drain).
  int pop_levels = 0;
  /// The levels, ascending, whose nodes read the winners of the level below
  /// through the pop's cut registers: each starts the part of the path a pop
  /// rewrites one cycle later than the part below it.
  std::vector<int> pop_cuts;
  /// 1 when a pop rewrites no level in the cycle its outlier is taken (its
  /// first part, from the leaves, one cycle later), else 0.
  int pop_delay = 0;
  /// Cycles from a side's pop to the cycle its next winner can be presented:
  /// pop_delay + pop_cuts.size() + 1 (the k-round baseline: its trees' parts,
  /// pop_cuts.size() + 1; the sorting-network baseline: 1).
  int pop_cycles = 1;
  int pop_wait_bits = 1;  ///< a side's wait for its next winner: index_width(pop_cycles)
  /// The tree levels of each cycle's part of a pop's path, the delay model's
  /// unit for it (empty for the sorting network, which pops no tree).
  std::vector<int> pop_part_levels;
  /// Cycles from the first outlier of a token to the last one, inclusive,
  /// with the consumer always ready: the sides alternate, so 2k while
  /// pop_cycles <= 2, else (k - 1) * pop_cycles + 2.
  int drain_cycles = 0;
  int beat_activations = 0;  ///< activations per input beat (= R)
  int beats = 0;             ///< input beats per token: ceil(N / R)
  int padded_leaves = 0;     ///< beats * R leaf registers (the extra ones unavailable)
  int channel_bits = 0;      ///< width of the channel field of an output
  /// Cycles from the last beat to the first output (the baselines: 1, plus
  /// their register ranks).
  int build_cycles = 0;
  int cycles_per_token = 0;  ///< beats + build_cycles + drain_cycles with no stalls
  int beat_bits = 0;         ///< an input beat of a token: max(1, clog2(beats))
  int stage_bits = 0;        ///< a build cycle: max(1, clog2(build_cycles))
  int output_bits = 0;       ///< one of the 2k outputs: max(1, clog2(2k))
  int64_t comparators = 0;   ///< comparator instances that do work (see docs/orizuru.md)
  /// Comparator instances in the generated units, idle padding ones
  /// included (synthesis removes those): a leaf unit R/2 + 2(R/2 - 1), a
  /// unit above 2(R - 1). Orizuru only.
  int64_t comparator_instances = 0;
  /// Comparisons for one token: the build, then clog2(N) per pop and side for
  /// Orizuru (1.5N - 2 + 2k log2 N for N a power of two, docs/spec.md section
  /// 5); N - 1 per output for the k-round baseline; every compare-exchange of
  /// the sorting network's, once.
  int64_t comparisons_per_token = 0;
  /// The estimate of the longest stage: a pop's parts (pop_part_levels) of kOrizuruLevelFo4
  /// tree levels; the sorting network's stages between two of its registers
  /// (SortNetworkTiming::cycle_stages) of kCompareExchangeFo4.
  StageModel stage_model;
};

/// The bitonic network of the sorting-network top-k baseline (docs/synth.md,
/// Baselines).
struct SortNetworkTiming {
  int positions = 0;  ///< the padded leaves rounded up to a power of two
  int stages = 0;     ///< stages of compare-exchanges: m(m+1)/2, m = log2(positions)
  /// Stages between two registers (topk_sort_stages_per_cycle resolved); a
  /// register after every stages_per_cycle-th stage but the last.
  int stages_per_cycle = 0;
  int registers = 0;  ///< ranks of registers in the network: ceil(stages / per cycle) - 1
  /// The stages of each cycle's part, registers + 1 parts: stages_per_cycle, the last the
  /// stages left.
  std::vector<int> cycle_stages;
};

/// The Index Counter array of one PE line (docs/index_counter.md).
struct IndexCounterTiming {
  int beats_per_row = 0;   ///< ceil(K / (C*I)) beats of C*I indices
  int chunks_per_row = 0;  ///< ceil(lut_entries / T) chunks of T counts
  int count_bits = 0;      ///< clog2(K + 1): a count of K equal indices fits
  int column_bits = 0;     ///< clog2(I + 1): one Index Counter's column sum
  int beat_sum_bits = 0;   ///< clog2(C*I + 1): a beat's sum over the C counters
  /// The beat's indices are registered before their decoders and trees
  /// (index_counter_input_stage resolved).
  bool input_stage = false;
  /// Stages of an entry's compressor tree: compression, then ripple (popcount_tree_stages).
  int tree_stages = 0;
  /// The tree stages whose output is registered, ascending (index_counter_tree_registers
  /// resolved; counting_path in model/perf/fp_delay.hpp): a register after the last stage
  /// holds the beat's counts before the counting bank.
  std::vector<int> tree_cuts;
  /// The delay model's estimate of each stage of the counting path, from the decoders (or
  /// the Concat Units' multiplexers, with no input stage) to the bank, in FO4.
  std::vector<double> counting_stage_fo4;
  /// a row's last beat accepted to its first chunk presented: 1 + stage + tree_cuts
  int latency = 0;
  int row_interval = 0;  ///< max(beats, chunks): double-buffered count banks
  int beat_bits = 0;     ///< max(1, clog2(beats)): the beat of a row being counted
  int chunk_bits = 0;    ///< max(1, clog2(chunks)): the chunk of a row presented
};

/// One PE line (docs/pe_line.md, Timing): the figures its cycle model
/// (model/cycle/pe_line.hpp) and its emitter (gen/pe_line.cpp) read.
struct LineTiming {
  int fill_beats = 0;   ///< weight-stream beats a row: ceil(K / Wb)
  int count_beats = 0;  ///< Index Counter beats a row: ceil(K / (C*I))
  int chunks = 0;       ///< MAC-tree cycles a row: ceil(E / T)
  int groups = 0;       ///< compensation cycles a row: ceil(2k / Mc)
  int tree_inputs = 0;  ///< min(T, E): inputs of the MAC tree
  int tree_levels = 0;  ///< ceil(log2 tree_inputs)
  int comp_inputs = 0;  ///< min(Mc, 2k): compensation MACs in use
  int comp_levels = 0;  ///< ceil(log2 comp_inputs)
  /// With symmetric codebooks, a register between a signed count's magnitude and its
  /// conversion (signed_count_stage): 1 or 0.
  int sign_stages = 0;
  /// Registers after the count conversion (cnt_A): S, or with a clock target that the
  /// conversion fits in a stage, 1 (count_conversion_stages).
  int conv_stages = 0;
  /// Registers of the main branch's multipliers (a count in count_format times a binary16 LUT
  /// entry, in A): S, or with a clock target product_stages (fewer for an exact product).
  int main_product_stages = 0;
  /// a chunk's counts to its tree sum: sign_stages + conv_stages + main_product_stages +
  /// tree_levels S
  int main_latency = 0;
  int main_slots = 0;  ///< partial sums the main accumulator uses: min(L, chunks)
  /// The last chunk's tree sum to the row's sum at the main FIFO: 0 with L = 1
  /// (the adder's output); else L, then the tree over the partial sums,
  /// ceil(log2 main_slots) S.
  int main_acc_latency = 0;
  int gather_stages = 0;  ///< registers after the outlier gather's reads: 1
  /// Registers of a compensation MAC's multiplier (binary16 times binary16, in A): S, or with
  /// a clock target product_stages (fewer for an exact product).
  int comp_product_stages = 0;
  int comp_latency = 0;  ///< a group's issue to its products: gather_stages + comp_product_stages
  int comp_slots = 0;    ///< partial sums a compensation MAC uses: min(L, groups)
  int comp_acc_latency = 0;  ///< the MACs' last products to their partial sums read: L
  /// From the MACs' partial sums read (L cycles after their last products):
  /// the tree over each MAC's partial sums, then over the MACs, (ceil(log2
  /// comp_slots) + comp_levels) S.
  int comp_tree_latency = 0;
  int merge_latency = 0;      ///< add, two scalings, rounding: 3 S (+ S for binary32)
  int row_interval = 0;       ///< max(fill_beats, count_beats, chunks, groups)
  int row_latency = 0;        ///< last weight beat taken to y valid, unthrottled
  int fifo_depth = 0;         ///< D: rows a line has in flight at most
  int last_fill_indices = 0;  ///< indices in a row's last weight beat: K - (fill_beats-1) Wb
  /// How the outlier branch gets its weight indices iw[n][o_j] (docs/pe_line.md, "Outlier
  /// capture"): true, each outlier takes its index from the weight beat that holds its channel
  /// as the row streams in (2k multiplexers of Wb inputs and two registers an outlier a bank);
  /// false, the gather reads them from the full bank (min(Mc, 2k) multiplexers of K inputs).
  /// Whichever costs fewer 2-to-1 multiplexers, a register counted as two and its write
  /// enable as one (osu018: DFFPOSX1 96 um2, MUX2X1 48): capture when 2k (Wb + 6) is at most
  /// min(Mc, 2k) (K - 1). The config's pe_line_outlier_capture, when not -1, chooses.
  bool outlier_capture = false;
  /// Streamed counting (docs/pe_line.md, "Streamed counting"): with the outlier capture and a
  /// weight beat of G indices (Wb = C*I), the Index Counter array counts each weight beat as
  /// it is taken, and the Weight Index Buffer keeps no row, only the captured indices.
  bool streamed_counting = false;
  /// The Weight Index Buffer's banks in an SRAM (docs/sram.md): with weight_index_sram, a
  /// capturing line that keeps its row, whose counting beat is wib_lanes = G / Wb weight beats
  /// (a power of two) and whose row is at least two counting beats. A word is a counting
  /// beat of a bank, its lanes the weight beats in it.
  bool wib_sram = false;
  int wib_lanes = 0;      ///< weight beats a counting beat when wib_sram, else 0
  int wib_words = 0;      ///< the SRAM's words, 2 count_beats, when wib_sram, else 0
  int wib_addr_bits = 0;  ///< bits of its address {beat, bank}: clog2(wib_words)
  // Widths of the line's counters.
  int fill_bits = 0;    ///< a weight-stream beat of a row: max(1, clog2(fill_beats))
  int beat_bits = 0;    ///< counting beats, 0 .. count_beats: clog2(count_beats + 1)
  int group_bits = 0;   ///< compensation groups, 0 .. groups: clog2(groups + 1)
  int chunk_bits = 0;   ///< a MAC-tree chunk of a row: the Index Counter array's chunk_bits
  int credit_bits = 0;  ///< output FIFO credits, 0 .. fifo_depth: clog2(fifo_depth + 1)
};

/// The FP16 dequantize-and-MAC line, the PE line's baseline (docs/synth.md).
struct MacLineTiming {
  int macs = 0;          ///< M: multiply-accumulates a cycle, ceil(K / PE line row interval)
  int trees = 0;         ///< ceil(M / T): MAC trees of T inputs that M makes
  int tree_inputs = 0;   ///< min(M, T): the inputs of a tree
  int beats = 0;         ///< weight beats (cycles) a row: ceil(K / M)
  int tree_levels = 0;   ///< ceil(log2 M): adder levels of the beat's pairwise tree
  int slots = 0;         ///< partial sums the accumulator uses: min(L, beats)
  int row_interval = 0;  ///< cycles a row in steady state: beats
  int beat_bits = 0;     ///< a weight beat of a row: max(1, clog2(beats))
  /// A register between the operand multiplexers and the multipliers
  /// (mac_line_operand_stage resolved).
  bool operand_stage = false;
  /// Registers of a lane's multiplier (binary16 times binary16, in A): S, or with a clock
  /// target product_stages (fewer for an exact product).
  int lane_stages = 0;
  /// Last beat taken to y valid: operand_stage + lane_stages + tree_levels S + L
  /// + ceil(log2 slots) S + 2S (+ S for binary32).
  int row_latency = 0;
  /// Entries of the FIFO that holds each row's s_w from its first beat to the scaling by
  /// it: rows pushed a beat apart at least and popped within beats - 1 + row_latency
  /// cycles, so ceil((beats - 1 + row_latency) / beats).
  int sw_fifo_depth = 0;
};

/// The FIGLUT-class LUT line, the weight-only LUT-GEMM baseline (docs/woq_lut_line.md): U
/// read-accumulate units, R rows a batch sharing each of Lc = U / R LUTs, one bit-plane of the
/// weights a beat. Its model: model/cycle/woq_lut_line_baseline.hpp; its numerics:
/// model/quant/woq_lut.hpp.
struct WoqLutTiming {
  int group_size = 0;   ///< mu: activations a group
  int planes = 0;       ///< q = nW: bit-planes of a weight, one a beat
  int lut_entries = 0;  ///< E = 2^(mu-1): the half-size LUT of a group
  int lut_levels = 0;   ///< ceil(log2 mu): adder levels of the LUT generator
  int lut_adders = 0;   ///< binary16 adders of one LUT's generator
  int groups = 0;       ///< G = ceil(K / mu)
  int units = 0;        ///< U: read-accumulate units (woq_units, or sized to the PE line)
  int rows = 0;         ///< R: rows of a batch, each LUT read by one unit of each
  int luts = 0;         ///< Lc = U / R: LUTs, the groups of a window
  int windows = 0;      ///< W = ceil(G / Lc): windows of a batch
  int batch_beats = 0;  ///< B = W q: beats, and cycles unthrottled, of a batch of R rows
  /// Per lane, the channels of its group in the last window that lie below K (mu: all); the
  /// others are padding, a zero activation with a +1 digit.
  std::vector<int> last_window_channels;
  int partials = 0;       ///< Lp = min(L, B): partial sums a unit's accumulator uses
  int tree_partials = 0;  ///< Lp rounded up to a power of two
  /// Registers of a binary16 adder of the LUT generator: the chain's S, or with a clock target
  /// the fewest whose stages fit it.
  int generator_stages = 0;
  /// A window issued to the generator to its LUT presented: the group register and
  /// lut_levels * generator_stages.
  int generator_latency = 0;
  /// LUTs generated ahead, in flight or waiting (the queue's slots): ceil((Lg + 1) / q), so that
  /// the next window's LUT is there when a window's last beat is taken, unthrottled.
  int lut_slots = 0;
  /// A register between the LUT reads (multiplexer and negation) and the adders
  /// (woq_read_stage resolved).
  bool read_stage = false;
  int accumulate_stages = 0;  ///< L: registers of the accumulating adder's loop
  int row_tree_inputs = 0;    ///< Lc * tree_partials: the values a row's tree reduces
  int row_tree_levels = 0;    ///< ceil(log2 row_tree_inputs)
  /// act_load_i to the first cycle w_ready_o is set: the first LUT generated (2 + Lg).
  int load_cycles = 0;
  /// A batch's last beat taken to its row 0's y valid (row r: r cycles later): read_stage, L,
  /// the bank and the row register (2), the tree, s_w's multiplication (S; + S for binary32).
  int row_latency = 0;
  /// The batch's last beat to the multiplication by row 0's s_w: row_latency less the
  /// multiplier and the rounding.
  int scale_latency = 0;
  int scale_fifo_depth = 0;        ///< the rows' s_w waiting from their beat to their row's scaling
  int64_t products_per_batch = 0;  ///< R K weight-activation products a batch
  double products_per_cycle = 0;   ///< R K / B, unthrottled
  double pe_products_per_cycle = 0;  ///< the PE line's: K / its row interval
  // Widths of the line's counters.
  int beat_bits = 0;    ///< a beat of a batch: index_width(B)
  int plane_bits = 0;   ///< a plane: index_width(q)
  int window_bits = 0;  ///< a window: index_width(W)
  int row_bits = 0;     ///< a row of a batch: index_width(R)
  int credit_bits = 0;  ///< credits and queued LUTs, 0 .. lut_slots: count_width(lut_slots)
};

/// The core (docs/core.md, Timing).
struct CoreTiming {
  int lines = 0;             ///< P
  int outliers = 0;          ///< 2k outliers a token, through the ECU one a cycle
  int beat_activations = 0;  ///< R: activations a token beat (Orizuru's beat)
  int token_beats = 0;       ///< ceil(K / R)
  int clustering_parts = 0;  ///< ceil(R / lanes): Clustering Unit beats a token beat
  int group_beats = 0;       ///< weight-stream beats a group of P rows: ceil(K / Wb)
  int rows_bits = 0;         ///< width of w_rows_i and y_rows_o: clog2(P + 1)
  int weight_lane_bits = 0;  ///< one line's lane of a weight beat: Wb * nW
  int ecu_read_stages = 0;   ///< registers after the ECU's reads of ia[o] and C_A: 1
  int ecu_latency = 0;       ///< an outlier taken to its residual: ecu_read_stages + S
  int part_bits = 0;         ///< a Clustering Unit beat of a token beat: max(1, clog2(parts))
  // An unthrottled token on an idle core, cycles counted from its first beat
  // taken (cycle 0): the last activation index written (B*Q + Lc + 1), the
  // Orizuru tree built ((B-1)*Q + build + 1), then the 2k outliers one a cycle
  // through the Error Calculation Unit (2k + ecu_latency).
  int clustering_done = 0;
  int orizuru_done = 0;
  int error_calculation = 0;
  /// Cycles from its first beat taken to the edge that writes its last
  /// residual: max(clustering_done, orizuru_done) + error_calculation.
  int preprocess_cycles = 0;
};

/// A floating-point unit that is a block of its own (gen/fp_units.cpp, docs/fp_rtl.md, "A clock
/// target"): what it computes and its registers.
struct FpUnitTiming {
  std::string block;  ///< the block's name, e.g. "fp32_mul_fp16"
  FpUnitKind kind = FpUnitKind::kAdd;
  FpFormat result;  ///< the result's format
  /// The operands' formats: a multiplier's each as it takes it (a binary16 operand of a
  /// binary32 product as it is); a conversion's a (b the same); an integer's conversion neither.
  FpFormat a, b;
  int int_bits = 0;  ///< kFromUint: bits of the unsigned integer
  /// Its registers, and so its latency: S without a clock target, else what its own format
  /// and kind need (unit_block_stages).
  int stages = 0;
  /// An adder's or a multiplier's segments (fp_add_segments, fp_mul_segments); a conversion
  /// has none.
  FpSegments segments;
  /// Where the stages go: an adder's or a multiplier's at the places that make its longest
  /// stage shortest, any of them inside (place_cuts), the rest after it; a conversion's all
  /// after it.
  FpCuts cuts;
  /// With a clock target, whether an adder's or a multiplier's every stage fits
  /// stage_budget_fo4 (fits_period).
  bool fits_target = false;
};

/// The system wrapper (block axi, docs/axi.md): its AXI4 master, its buffers and the layout of
/// a layer in memory, each unit of it a whole number of bus beats.
struct AxiTiming {
  int data_bits = 0;          ///< D: the AXI4 master's data bits (axi_data_bits)
  int data_bytes = 0;         ///< D / 8: a bus beat, and the alignment of every buffer
  int size_code = 0;          ///< AxSIZE: log2(D / 8)
  int addr_bits = 0;          ///< the AXI4 master's address bits (axi_addr_bits)
  int id_bits = 0;            ///< its ID bits (axi_id_bits)
  int max_burst = 0;          ///< its longest burst, beats (axi_max_burst)
  int outstanding_reads = 0;  ///< read bursts in flight at most (axi_outstanding_reads)
  int chain_limit = 0;        ///< descriptors one start runs at most (axi_chain_limit)
  /// Beats of the read buffer: outstanding_reads * max_burst, so that that many longest bursts
  /// are in flight with room reserved for their data.
  int read_buffer_beats = 0;
  int write_buffer_beats = 0;  ///< beats of the write buffer: one longest burst
  int desc_bytes = 0;          ///< a descriptor: 64 bytes, 64-aligned
  int desc_beats = 0;          ///< its bus beats: 64 / (D / 8)
  /// The words of a layer's tables: the LUT's entries, C_A, C_W and the boundaries, binary16.
  int table_words = 0;
  int table_beats = 0;          ///< their bus beats: ceil(16 table_words / D)
  int word_slots = 0;           ///< binary16 words a bus beat: D / 16
  int x_beat_bits = 0;          ///< the core's token beat: R binary16 values
  int x_parts = 0;              ///< bus beats a token beat: ceil(x_beat_bits / D)
  int x_slots = 0;              ///< token beats a bus beat: floor(D / x_beat_bits), at least 1
  int token_bus_beats = 0;      ///< the token in memory: ceil(B / x_slots) x_parts bus beats
  int w_beat_bits = 0;          ///< the core's weight beat: P Wb nW bits
  int w_parts = 0;              ///< bus beats a weight beat: ceil(w_beat_bits / D)
  int w_slots = 0;              ///< weight beats a bus beat: floor(D / w_beat_bits), at least 1
  int scale_bits = 0;           ///< a group's scales: P binary16 values
  int scale_beats = 0;          ///< their bus beats, the head of a weight record: ceil(16 P / D)
  int record_weight_beats = 0;  ///< a group's weight beats in memory: ceil(F / w_slots) w_parts
  int record_beats = 0;         ///< a weight record: scale_beats + record_weight_beats bus beats
  int64_t record_bytes = 0;     ///< record_beats * D / 8
  /// The fewest cycles the wrapper takes to hand the core a group: one a bus beat of the
  /// record, and with several weight beats in a bus beat one a weight beat:
  /// scale_beats + F w_parts.
  int feed_group_cycles = 0;
  int rows_bits = 0;     ///< bits of a layer's row count N in the wrapper: 24
  int64_t max_rows = 0;  ///< the largest N a descriptor may give: 2^rows_bits - 1
  int group_bits = 0;    ///< bits of a layer's group count: count_width(ceil(max_rows / P))
};

/// Every figure derived from one config.
struct Derived {
  // Index formats and sizes.
  int act_centroids = 0;      ///< 2^nA
  int weight_centroids = 0;   ///< 2^nW
  int boundaries = 0;         ///< 2^nA - 1 clustering boundaries
  int concat_index_bits = 0;  ///< nA + nW: e = {ia, iw}
  /// The codebooks are symmetric about zero (codebooks: symmetric): the line counts signed
  /// magnitudes (docs/spec.md section 1, Symmetric codebooks).
  bool symmetric = false;
  /// Bins the Index Counter array counts: 2^(nA+nW) entries e; with symmetric codebooks
  /// 2^(nA+nW-1), a product's sign and magnitude {s, ma, mw} (fold_index).
  int count_bins = 0;
  /// Entries of the LUT and counts the MAC tree reduces: 2^(nA+nW); with symmetric codebooks
  /// the 2^(nA+nW-2) magnitudes.
  int lut_entries = 0;
  int outliers = 0;      ///< 2k a token
  int channel_bits = 0;  ///< max(1, clog2(K)): a channel index
  int count_bits = 0;    ///< clog2(K + 1): an index count over a row
  /// A count as the Index Counter array presents it: count_bits, and with symmetric codebooks
  /// one bit more, the signed count in two's complement.
  int count_data_bits = 0;
  /// A count as the MAC tree's multipliers take it (count_format)
  FpFormat count_format;
  int indices_per_cycle = 0;  ///< C * I, one Index Counter beat
  FpFormat accumulator;       ///< the accumulation format A
  /// S: register stages of each floating-point unit of the blocks' chains (docs/fp_rtl.md,
  /// Pipelining). fp_pipeline_stages; with a clock target (target_period_fo4 > 0) the fewest,
  /// at most the field's maximum, with which the adder and the multiplier in A fit it
  /// (fp_stages_for_period), whatever fp_pipeline_stages says. parse_config writes it back
  /// into the config, so that the config as resolved (to_json, the manifest, the hash) names
  /// the stages the blocks have and a config written back reads the same.
  int fp_stages = 0;
  /// With a clock target, the logic a stage may have (fp_stage_budget_fo4) and a stage that
  /// starts at a block's input port (input_stage_budget_fo4), in FO4; 0 without one.
  double stage_budget_fo4 = 0;
  double input_stage_budget_fo4 = 0;
  /// L: the partial sums an accumulator keeps (docs/numerics.md, Accumulation), max(1, S).
  /// Its adder has L - 1 registers inside and the partial sums' register after it, so a
  /// partial sum's loop takes L cycles: the cycles until the value that adds to it next
  /// arrives.
  int accumulator_slots = 0;
  FpFormat storage{5, 10};  ///< binary16: activations, centroids, LUT, scales, outputs

  RowCycles row;  ///< what bounds a row; row.row is the row interval of every line
  ClusteringTiming clustering_unit;
  OrizuruTiming orizuru;
  OrizuruTiming topk_baseline;
  /// The sorting-network baseline: the k-round one's figures but its build,
  /// 1 + sort_network.registers cycles.
  OrizuruTiming topk_sort_baseline;
  SortNetworkTiming sort_network;
  IndexCounterTiming index_counter_array;
  LineTiming pe_line;
  MacLineTiming mac_line_baseline;
  WoqLutTiming woq_lut_line_baseline;
  CoreTiming core;
  AxiTiming axi;
  /// The floating-point units that are blocks of their own, one a block.
  std::vector<FpUnitTiming> fp_units;

  /// The unit of fp_units whose block is `block` (std::logic_error when none is).
  const FpUnitTiming& fp_unit(std::string_view block) const;

  /// The groups of `rows` output rows, a row a PE line: ceil(rows / P).
  int64_t row_groups(int64_t rows) const;
  /// docs/spec.md section 6's lower bound on the GEMM phase of one token of
  /// `rows` output rows: ceil(rows / P) groups at the row interval.
  int64_t gemm_lower_bound(int64_t rows) const;
  /// The GEMM phase of one token of `rows` rows on an idle core, every stream
  /// unthrottled: cycles from the first weight beat taken to the last output
  /// taken, (ceil(rows / P) - 1) row intervals plus one group's beats and the
  /// line's row latency.
  int64_t gemm_cycles(int64_t rows) const;
  /// The same with a row interval and a last group's beats that a slower
  /// weight memory stretches (model/perf/perf.hpp).
  int64_t gemm_cycles(int64_t rows, int64_t row_interval, int64_t last_group_beats) const;

  /// The manifest's "derived" object and the scalar constants of the
  /// generated params header: the figures above that no block owns.
  nlohmann::ordered_json to_json() const;
};

/// Computes every derived figure of a config (parse_config has validated it).
Derived derive(const Config& config);

}  // namespace oasis
