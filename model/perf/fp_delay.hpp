// SPDX-License-Identifier: Apache-2.0
// The delay model of the pipelined floating-point units (docs/fp_rtl.md,
// Pipelining): each unit's datapath as a chain of segments between the places
// where rtl/oasis_fp_add_staged.sv and oasis_fp_mul_staged.sv can hold a
// register, the delay in FO4 of every span of them measured with OpenSTA on
// osu018; where a unit's registers go; and the stage count a clock target needs. derive()
// (model/derived.hpp) resolves the clock target's stage counts and the unit blocks' registers
// with these figures, and the generator places its chains' registers with them
// (gen/fp_emit.hpp, chain_cuts). It reads neither the config nor Derived.
#pragma once

#include <string>
#include <vector>

#include "model/fp_format.hpp"

namespace oasis {

/// A unit's segments: segment i ends at place i (the last at the unit's output), and the delay
/// of every span of them, measured (oasis-ppa --fp-spans): synthesis optimizes across the places
/// that hold no register, so a span is not the sum of its segments.
struct FpSegments {
  std::string unit;                ///< e.g. "binary32 adder"
  std::vector<std::string> names;  ///< what each segment computes
  /// spans[i][j]: the logic of segments i to i + j with no register between them, FO4.
  std::vector<std::vector<double>> spans;
  int places() const { return int(names.size()) - 1; }  ///< places inside the unit
  /// The delay of a stage of segments `first` to `last`.
  double span_fo4(int first, int last) const { return spans[size_t(first)][size_t(last - first)]; }
  double segment_fo4(int i) const { return span_fo4(i, i); }
  std::vector<double> segments_fo4() const;
  /// The whole unit's delay, no place used.
  double whole_fo4() const { return span_fo4(0, places()); }
};
FpSegments fp_add_segments(const FpFormat& f);
FpSegments fp_mul_segments(const FpFormat& f);

/// Whether every product of finite values in formats `a` and `b` is exact and normal in `f`:
/// the significands' product fits f's significand and the normalised exponent cannot leave f's
/// normal range (docs/fp_rtl.md, Exact products). The multiplier then leaves its rounding out;
/// rtl/oasis_fp_mul_staged.sv decides by the same rule (its localparam Exact).
bool exact_product(const FpFormat& f, const FpFormat& a, const FpFormat& b);

/// The segments of a multiplier into `f` of operands in formats `a` and `b`: an exact product's
/// (the rounding left out) when exact_product, else f's multiplier's.
FpSegments fp_mul_segments(const FpFormat& f, const FpFormat& a, const FpFormat& b);

/// Where a unit's `stages` registers go: the places inside the unit that
/// minimize the longest stage (ties: fewer places inside, then later ones),
/// and the rest after the unit.
struct FpCuts {
  unsigned mask = 0;              ///< bit k: a register at place k inside the unit
  int output_stages = 0;          ///< registers after the unit
  std::vector<double> stage_fo4;  ///< estimated delay of each stage, input to output
  double longest_fo4() const;
};
FpCuts place_cuts(const FpSegments& segments, int stages);

/// Where the `stages` registers of a unit inside a chain of units go (the PE
/// line, the MAC-line baseline, the core): one after the unit, so that no stage
/// spans two units, and the others inside it, placed as place_cuts places them.
/// With 0 stages the unit is combinational.
FpCuts place_chain_cuts(const FpSegments& segments, int stages);

/// The input and output delays make ppa constrains a block with by default, a
/// fraction of the clock period (oasis-ppa --io-budget).
inline constexpr double kPpaIoBudget = 0.1;

/// The logic delay a stage may have at a clock period of `period_fo4`: the
/// period less the input or output delay make ppa assumes (10 % of it) and a
/// register's clock-to-output and setup time.
double fp_stage_budget_fo4(int period_fo4);

/// The logic delay a stage that starts at a block's input port may have: the
/// period less the input delay make ppa assumes and a register's setup time
/// (no clock-to-output: no register launches it).
double input_stage_budget_fo4(int period_fo4);

/// Whether every stage of `cuts` fits fp_stage_budget_fo4(period_fo4).
bool fits_period(const FpCuts& cuts, int period_fo4);

/// The register stages the floating-point units need at a clock period of
/// `period_fo4`: the fewest, at least 1 (a chain of combinational units fits no
/// period) and at most `max_stages`, with which the adder and the multiplier in
/// `format` (the accumulator format, the one the blocks' chains compute in),
/// placed in a chain (place_chain_cuts), have their longest stage within
/// fp_stage_budget_fo4; `max_stages` when none does.
int fp_stages_for_period(int period_fo4, const FpFormat& format, int max_stages);

/// The register stages of a multiplier into `f` of operands in formats `a` and `b` inside a
/// chain whose units have `stages` (fp_pipeline_stages): with a clock target `period_fo4`
/// (> 0), the fewest, at least 1, with which its stages placed in a chain (place_chain_cuts of
/// fp_mul_segments(f, a, b)) fit fp_stage_budget_fo4, the first after `before_fo4` of logic
/// between the operands' registers and the multiplier (a PE line's Dequantization Unit); at
/// most `stages` or, where that logic asks for more, one a place and one after the unit, which
/// it takes when nothing fewer fits. An exact product needs fewer than the accumulator's
/// units; any other the same, or more after such logic.
int product_stages(int period_fo4, const FpFormat& f, const FpFormat& a, const FpFormat& b,
                   int stages, double before_fo4 = 0);

/// A multiplexer that selects one of 2^levels values, as a tree of `levels` levels, in FO4
/// (kSelectLevelFo4 a level: the MAC-line baseline's operand multiplexers, a PE line's
/// Dequantization Unit).
double select_fo4(int levels);

/// The delay of one level of an Orizuru tree in FO4 (a binary16 order-key
/// comparison and the winner multiplexers it drives), measured with OpenSTA on
/// osu018 (docs/orizuru.md, Drain).
inline constexpr double kOrizuruLevelFo4 = 18;

/// The Orizuru tree levels a pop may rewrite in one cycle at a clock period of
/// `period_fo4`: as many as fit fp_stage_budget_fo4, at least 1.
int orizuru_levels_for_period(int period_fo4);

/// The registers after the PE line's conversion of a count into the accumulator format
/// (oasis_fp_from_uint, a combinational unit followed by registers, no places inside): the
/// chain's `stages`, or with a clock target `period_fo4` (> 0) whose stage budget holds the
/// conversion, one. A conversion that does not fit keeps all `stages`, as without a target.
int count_conversion_stages(int period_fo4, int stages);

/// With symmetric codebooks, whether a register goes between a presented signed count's
/// magnitude (the Index Counter array's subtraction, the MAC tree's negation) and its
/// conversion: with a clock target `period_fo4` (> 0) whose stage budget does not hold the
/// three in a row. Without a target, none.
bool signed_count_stage(int period_fo4);

/// What a floating-point unit block of its own computes (gen/fp_units.cpp).
enum class FpUnitKind {
  kAdd,       ///< an adder in `f`
  kMul,       ///< a multiplier into `f` of operands in `a` and `b`
  kConvert,   ///< a conversion from `a` into `f`
  kFromUint,  ///< an unsigned integer into `f`
};

/// The registers of a floating-point unit that is a block of its own (docs/fp_rtl.md, "A clock
/// target"): the chain's `stages` without a clock target; with one (`period_fo4` > 0), the
/// fewest, at least 1 and at most `stages`, whose stages fit fp_stage_budget_fo4: an adder's or
/// multiplier's placed as in a chain (place_chain_cuts, the last register after the unit, so
/// that the block's output is registered; the block may then place them all inside), a
/// conversion's all after it, so one when its delay fits the budget; else `stages`. A unit
/// takes what its own format needs, not the accumulator's, and a conversion one stage, not the
/// adders' count.
int unit_block_stages(int period_fo4, FpUnitKind kind, const FpFormat& f, const FpFormat& a,
                      const FpFormat& b, int stages);

/// The delay of one stage of compare-exchanges of the sorting-network top-k
/// baseline in FO4 (an order-key comparison and the multiplexers of the two
/// records), the pointer multiplexers after the network counted in: the
/// default config's network, 28 stages in one cycle, measured 492.6 FO4 with
/// OpenSTA on osu018 (docs/ppa.md).
inline constexpr double kCompareExchangeFo4 = 17.6;

/// The stages of compare-exchanges the sorting network may have between two
/// registers at a clock period of `period_fo4`: as many as fit
/// fp_stage_budget_fo4, at least 1.
int sort_stages_for_period(int period_fo4);

/// Full-adder and ripple stages of the compressor tree that counts `positions`
/// bits (docs/index_counter.md): the compression stages, then one a column of
/// the count but its top one.
int popcount_tree_stages(int positions);

/// The Index Counter array's counting path (docs/index_counter.md, "Registers
/// in the counting trees"): from the counting beat (through the Concat Units'
/// multiplexers first when `concat`, that is with no input stage), the
/// decoders, one entry's tree over `positions` bits and, when `accumulates`
/// (rows of several beats), the counting bank's adder of `count_bits` into the
/// bank. The delay model follows every bit of the tree, at a figure per adder
/// cell (calibrated on two measured paths).
struct CountingPath {
  int tree_stages = 0;            ///< popcount_tree_stages(positions)
  std::vector<int> cuts;          ///< tree stages whose output is registered, ascending
  std::vector<double> stage_fo4;  ///< the estimated logic of each stage of the path, in order
};
/// With `registers` < 0, the fewest registers with which every stage fits
/// `budget_fo4`, each as late in the tree as it can go (none when the budget
/// is 0); with `registers` >= 0 that many (at most the tree's stages), placed
/// where the longest stage is shortest.
CountingPath counting_path(int positions, int count_bits, bool accumulates, bool concat,
                           double budget_fo4, int registers);

/// The whole counting path with no register in it, the Concat Units'
/// multiplexers included, in FO4: whether the input stage is needed.
double index_count_path_fo4(int positions, int count_bits);

/// The MAC-line baseline's operand path in FO4 (docs/synth.md, Baselines): a
/// weight index from the w_data_i port (input_stage_budget_fo4 applies)
/// through the dequantization multiplexer over the 2^weight_bits
/// codebook entries, or the beat's activation through the multiplexer over the
/// row's `beats`, whichever has more levels, then the first stage of a
/// multiplier in `format` of two operands in `operand` (binary16, taken as they
/// are) with `stages` registers placed in a chain (place_chain_cuts).
double mac_line_operand_path_fo4(int weight_bits, int beats, const FpFormat& format,
                                 const FpFormat& operand, int stages);

/// The FIGLUT-class line's read path in FO4 (docs/woq_lut_line.md): a weight bit-plane's pattern
/// from the w_data_i port (input_stage_budget_fo4 applies), its low bits inverted by its top bit,
/// the multiplexer over the 2^(group_size-1) LUT entries, the negation, then the first stage of
/// the accumulating adder in `format` with `stages` registers placed in a chain.
double woq_read_path_fo4(int group_size, const FpFormat& format, int stages);

}  // namespace oasis
