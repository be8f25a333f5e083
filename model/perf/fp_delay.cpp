// SPDX-License-Identifier: Apache-2.0
#include "model/perf/fp_delay.hpp"

#include <algorithm>
#include <bit>
#include <tuple>
#include <vector>

#include "model/int_math.hpp"

namespace oasis {

namespace {

// A register's clock-to-output and setup time in osu018, in FO4 of 0.0992 ns,
// rounded up: DFFPOSX1's clock-to-output is 0.10 to 0.26 ns with its load and
// its setup 0.09 to 0.18 ns (OpenSTA on the units of docs/fp_rtl.md); the
// setup time alone.
constexpr double kRegisterFo4 = 5;
constexpr double kSetupFo4 = 1;

// The measured spans, each raised to the longest span inside it: a span measured shorter than
// a part of it (abc maps each run on its own) is as long as that part.
std::vector<std::vector<double>> spans_from(std::vector<std::vector<double>> s) {
  for (size_t len = 1; len < s.size(); ++len) {
    for (size_t i = 0; i + len < s.size(); ++i) {
      s[i][len] = std::max({s[i][len], s[i][len - 1], s[i + 1][len - 1]});
    }
  }
  return s;
}

}  // namespace

// The spans' delays in FO4 (FpSegments::spans: row i, the spans from segment i), measured by
// oasis-ppa --fp-spans on osu018 (docs/fp_rtl.md, The delay model's figures): each unit
// synthesized by make ppa's flow at a 130-FO4 delay target with registers at the places that
// bound the span and nowhere else, the logic from the first place (or the inputs) to the last
// (or the outputs), clock-to-output and input delay left out.
FpSegments fp_add_segments(const FpFormat& f) {
  const bool half = f.width() == 16;
  return {half ? "binary16 adder" : "binary32 adder",
          {"compare the magnitudes, the exponent differences", "align both ways and pick one",
           "add the significands", "normalise", "decide the rounding", "increment and pack"},
          spans_from(half ? std::vector<std::vector<double>>{{13.5, 28.1, 38.4, 57, 51, 60.1},
                                                             {17.7, 32.3, 48.2, 42.5, 52.9},
                                                             {20.3, 35.1, 36.8, 46.5},
                                                             {24.7, 24.7, 33.5},
                                                             {5.3, 18.2},
                                                             {13.9}}
                          : std::vector<std::vector<double>>{{16.7, 38.7, 55.8, 66.8, 67.1, 86.8},
                                                             {19.8, 44, 59.8, 56.9, 68.8},
                                                             {29.1, 47.6, 45.9, 54.5},
                                                             {34.8, 33.9, 40.3},
                                                             {4.3, 17.9},
                                                             {17.9}})};
}

FpSegments fp_mul_segments(const FpFormat& f) {
  const bool half = f.width() == 16;
  return {half ? "binary16 multiplier" : "binary32 multiplier",
          {"partial products to carry-save", "add carry-save", "normalise", "decide the rounding",
           "increment and pack"},
          spans_from(half ? std::vector<std::vector<double>>{{20.9, 39.8, 54.2, 53.7, 65.7},
                                                             {22.9, 38.3, 33.5, 43.2},
                                                             {24.6, 25.2, 35},
                                                             {4.1, 16.5},
                                                             {14.4}}
                          : std::vector<std::vector<double>>{{30.1, 60.3, 72.6, 69.4, 81.8},
                                                             {30.1, 50.4, 44, 59},
                                                             {36.9, 35.1, 48.1},
                                                             {4.6, 18.8},
                                                             {16.4}})};
}

std::vector<double> FpSegments::segments_fo4() const {
  std::vector<double> v;
  for (int i = 0; i <= places(); ++i) v.push_back(segment_fo4(i));
  return v;
}

bool exact_product(const FpFormat& f, const FpFormat& a, const FpFormat& b) {
  const auto bias = [](const FpFormat& x) { return (1 << (x.exp_bits - 1)) - 1; };
  const auto max_field = [](const FpFormat& x) { return (1 << x.exp_bits) - 2; };
  const int prod_bits = a.frac_bits + 1 + b.frac_bits + 1;
  const int exp_offset = bias(a) + bias(b) - bias(f) - 1;
  const int min_field = 2 - exp_offset - (prod_bits - 1);
  return prod_bits <= f.frac_bits + 1 && min_field >= 1 &&
         max_field(a) + max_field(b) - exp_offset <= max_field(f);
}

// An exact product's spans, measured like the others on the binary16 x binary16 product in
// binary32 (the unit block fp32_mul_fp16_fp16): the places are the multiplier's, but after the
// normalisation there is nothing left to do but pack the product and choose a special result.
// A narrower operand (a PE line's count, 8 x 11 bits) is shorter.
FpSegments fp_mul_segments(const FpFormat& f, const FpFormat& a, const FpFormat& b) {
  if (!exact_product(f, a, b)) return fp_mul_segments(f);
  return {"exact product",
          {"partial products to carry-save", "add carry-save", "normalise", "pack",
           "select a special result"},
          spans_from({{22, 35.1, 53, 53, 53.6},
                      {18.7, 35, 34.8, 35.3},
                      {20.8, 22.8, 20.9},
                      {5.3, 4.6},
                      {4.6}})};
}

double FpCuts::longest_fo4() const {
  double longest = 0;
  for (double d : stage_fo4) longest = std::max(longest, d);
  return longest;
}

FpCuts place_cuts(const FpSegments& segments, int stages) {
  const int places = segments.places();
  // Later places first: of two masks, the larger has its highest place later.
  const auto key = [](const FpCuts& x) {
    return std::tuple(x.longest_fo4(), std::popcount(x.mask), ~x.mask);
  };
  FpCuts best;
  bool found = false;
  for (unsigned mask = 0; mask < (1u << places); ++mask) {
    const int inside = std::popcount(mask);
    if (inside > stages) continue;
    FpCuts c{mask, stages - inside, {}};
    int first = 0;
    for (int i = 0; i <= places; ++i) {
      if (i == places || (mask >> i & 1u)) {
        c.stage_fo4.push_back(segments.span_fo4(first, i));
        first = i + 1;
      }
    }
    if (!found || key(c) < key(best)) best = c;
    found = true;
  }
  return best;
}

FpCuts place_chain_cuts(const FpSegments& segments, int stages) {
  if (stages == 0) return place_cuts(segments, 0);
  FpCuts cuts = place_cuts(segments, stages - 1);
  ++cuts.output_stages;
  return cuts;
}

double fp_stage_budget_fo4(int period_fo4) {
  return (1 - kPpaIoBudget) * period_fo4 - kRegisterFo4;
}

double input_stage_budget_fo4(int period_fo4) {
  return (1 - kPpaIoBudget) * period_fo4 - kSetupFo4;
}

bool fits_period(const FpCuts& cuts, int period_fo4) {
  return cuts.longest_fo4() <= fp_stage_budget_fo4(period_fo4);
}

int fp_stages_for_period(int period_fo4, const FpFormat& format, int max_stages) {
  // The units, each in a chain. A binary16 operand of a wider product goes into the multiplier
  // as it is (no widening before it), so a first stage that fits a stage fits one from a port.
  for (int s = 1; s < max_stages; ++s) {
    bool fits = true;
    for (const FpSegments& unit : {fp_add_segments(format), fp_mul_segments(format)}) {
      fits = fits && fits_period(place_chain_cuts(unit, s), period_fo4);
    }
    if (fits) return s;
  }
  return max_stages;
}

int product_stages(int period_fo4, const FpFormat& f, const FpFormat& a, const FpFormat& b,
                   int stages, double before_fo4) {
  if (period_fo4 <= 0 || stages == 0) return stages;
  const FpSegments segments = fp_mul_segments(f, a, b);
  const double budget = fp_stage_budget_fo4(period_fo4);
  // Logic before the multiplier can ask for more registers than the chain's units take.
  const int most = std::max(stages, segments.places() + 1);
  for (int s = 1; s < most; ++s) {
    const FpCuts cuts = place_chain_cuts(segments, s);
    if (cuts.longest_fo4() <= budget && before_fo4 + cuts.stage_fo4.front() <= budget) return s;
  }
  return most;
}

int orizuru_levels_for_period(int period_fo4) {
  return std::max(1, int(fp_stage_budget_fo4(period_fo4) / kOrizuruLevelFo4));
}

namespace {

// The conversion of an unsigned integer of up to 32 bits to binary32 (the uint_to_fp32 block,
// one stage, OpenSTA on make ppa's flow, docs/fp_rtl.md): 29.3 FO4, rounded up. A count has
// fewer bits, and binary16 a shorter rounding: the figure bounds them.
constexpr double kFromUintFo4 = 30;

// The conversions between binary16 and binary32 (the fp16_to_fp32 and fp32_to_fp16 blocks, one
// register after the unit, 130 FO4, OpenSTA on make ppa's flow; docs/design_log.md,
// "2026-12-05"): 15.8 and 36.9 FO4, rounded up.
constexpr double kWidenFo4 = 16;
constexpr double kNarrowFo4 = 37;

// A conversion (a combinational unit followed by all its registers): one register when its
// delay fits a stage at the clock target, else the chain's `stages`, as without a target.
int conversion_stages(double delay_fo4, int period_fo4, int stages) {
  if (period_fo4 <= 0 || stages == 0) return stages;
  return delay_fo4 <= fp_stage_budget_fo4(period_fo4) ? 1 : stages;
}

}  // namespace

int count_conversion_stages(int period_fo4, int stages) {
  return conversion_stages(kFromUintFo4, period_fo4, stages);
}

// A symmetric line's signed count before its conversion: the presenting bank's subtraction
// (count_bits + 1 bits) and the MAC tree's negation of a count below zero. Measured with
// OpenSTA on the paper config's PE line at 50 FO4 (docs/ppa.md, "Measured: the paper
// config"): 53.8 FO4 from the presenting bank's register through both and the conversion into
// the multiplier's register, against the conversion's 30 here.
constexpr double kSignedCountFo4 = 24;

bool signed_count_stage(int period_fo4) {
  return period_fo4 > 0 && kFromUintFo4 + kSignedCountFo4 > fp_stage_budget_fo4(period_fo4);
}

int unit_block_stages(int period_fo4, FpUnitKind kind, const FpFormat& f, const FpFormat& a,
                      const FpFormat& b, int stages) {
  if (period_fo4 <= 0 || stages == 0) return stages;
  const double budget = fp_stage_budget_fo4(period_fo4);
  switch (kind) {
    case FpUnitKind::kAdd:
    case FpUnitKind::kMul: {
      const FpSegments segments =
          kind == FpUnitKind::kAdd ? fp_add_segments(f) : fp_mul_segments(f, a, b);
      for (int s = 1; s < stages; ++s) {
        if (place_chain_cuts(segments, s).longest_fo4() <= budget) return s;
      }
      return stages;
    }
    case FpUnitKind::kConvert:
      return conversion_stages(f.width() > a.width() ? kWidenFo4 : kNarrowFo4, period_fo4, stages);
    case FpUnitKind::kFromUint:
      return count_conversion_stages(period_fo4, stages);
  }
  return stages;
}

int sort_stages_for_period(int period_fo4) {
  return std::max(1, int(fp_stage_budget_fo4(period_fo4) / kCompareExchangeFo4));
}

namespace {

// Calibrated with OpenSTA on osu018 (docs/index_counter.md, "Registers in the
// counting trees"): the paper config's array at 50 FO4, from the input stage
// through the decoders (8.5 FO4, with the buffers that drive 256 entries) and 14
// full adders of a tree over 512 positions (0.32 ns a sum, 0.24 to 0.26 a
// carry) into a tree register (its load multiplexer 1 FO4); the default config's
// array at 50 FO4, through the decoders (9.5 FO4), 6 cells of a tree over 16
// positions and 5 carries of the bank's adder (0.13 to 0.22 ns, lightly loaded)
// into the bank (3 FO4). From the beat register the Concat Units' multiplexers
// add 11.5 FO4 (the default PE line before its input stage).
constexpr double kConcatFo4 = 11.5;
constexpr double kDecodeFo4 = 9;
constexpr double kTreeSumFo4 = 3.2;
constexpr double kTreeCarryFo4 = 2.5;
constexpr double kCarryCellFo4 = 1.8;
constexpr double kTreeLoadFo4 = 1;
constexpr double kBankWriteFo4 = 3;

// The bits of a tree between two stages, column by column in the order of the
// RTL's vectors (the carries from the column under it, then its sums, then the
// bits it passes on), each its arrival in FO4.
using Columns = std::vector<std::vector<double>>;

// The bits after a stage whose ripple column is `ripple` (-1: a compression
// stage): a compression stage puts h / 3 full adders on every column of h bits,
// a ripple stage a full adder on its column's three bits or a half adder on two;
// every adder cell takes the first bits of its column.
Columns popcount_stage(const Columns& in, int ripple) {
  Columns out(in.size());
  std::vector<double> carries;
  for (size_t j = 0; j < in.size(); ++j) {
    const std::vector<double>& col = in[j];
    const int h = int(col.size());
    const bool here = ripple == int(j);
    const int fulls = ripple < 0 ? h / 3 : (here && h == 3 ? 1 : 0);
    const int halves = here && h == 2 ? 1 : 0;
    std::vector<double> next = carries;
    carries.clear();
    for (int k = 0; k < fulls + halves; ++k) {
      const auto first = col.begin() + 3 * std::min(k, fulls) + 2 * std::max(0, k - fulls);
      const double in = *std::max_element(first, first + (k < fulls ? 3 : 2));
      next.push_back(in + kTreeSumFo4);
      carries.push_back(in + kTreeCarryFo4);
    }
    next.insert(next.end(), col.begin() + 3 * fulls + 2 * halves, col.end());
    out[j] = std::move(next);
  }
  return out;
}

// The bits entering the compressor tree of `positions` bits, all in column 0,
// each arriving at `start`.
Columns tree_inputs(int positions, double start) {
  Columns bits(size_t(count_width(positions)));
  bits[0].assign(size_t(positions), start);
  return bits;
}

// The compressor tree of an n-bit popcount as gen/index_counter_tree.cpp builds it
// (docs/index_counter.md): each stage's ripple column, -1 for a compression stage.
// Compression stages run while some column holds more than two bits; then one
// stage a column, 0 .. width - 2 (popcount_stage places the adders).
std::vector<int> popcount_tree_schedule(int n) {
  const int width = count_width(n);
  Columns bits = tree_inputs(n, 0);
  std::vector<int> ripple_of;
  int ripple = -1;
  while (true) {
    size_t tallest = 0;
    for (const auto& col : bits) tallest = std::max(tallest, col.size());
    if (ripple >= 0 || tallest <= 2) ++ripple;
    if (ripple >= width - 1) break;
    ripple_of.push_back(ripple);
    bits = popcount_stage(bits, ripple);
  }
  return ripple_of;
}

// The latest bit of `c`.
double latest(const Columns& c) {
  double t = 0;
  for (const auto& col : c)
    for (double a : col) t = std::max(t, a);
  return t;
}

// `c` with every bit's arrival `at`.
Columns arriving_at(Columns c, double at) {
  for (auto& col : c) std::fill(col.begin(), col.end(), at);
  return c;
}

// The counting bank's write from the tree's count (one bit a column): through
// its adder (a half adder in column 0, full adders while the count has bits,
// half adders above, the top column's sum alone) when `accumulates`, else
// straight into the bank.
double bank_fo4(const Columns& count, int count_bits, bool accumulates) {
  std::vector<double> b;
  for (const auto& col : count) b.push_back(col.empty() ? 0 : col.front());
  if (!accumulates) return *std::max_element(b.begin(), b.end()) + kBankWriteFo4;
  double carry = 0;
  double last = 0;
  for (int j = 0; j < count_bits; ++j) {
    const double in = std::max(j < int(b.size()) ? b[size_t(j)] : 0.0, carry);
    carry = in + kCarryCellFo4;
    last = std::max(last, carry);
  }
  return last + kBankWriteFo4;
}

// The estimated logic of each stage of the counting path with registers after
// the tree stages `cuts`.
std::vector<double> counting_stage_fo4(const std::vector<int>& schedule, int positions,
                                       int count_bits, bool accumulates, double start,
                                       const std::vector<int>& cuts) {
  std::vector<double> stages;
  Columns bits = tree_inputs(positions, start);
  for (size_t s = 0; s < schedule.size(); ++s) {
    bits = popcount_stage(bits, schedule[s]);
    if (std::find(cuts.begin(), cuts.end(), int(s)) != cuts.end()) {
      stages.push_back(latest(bits) + kTreeLoadFo4);
      bits = arriving_at(bits, 0);
    }
  }
  stages.push_back(bank_fo4(bits, count_bits, accumulates));
  return stages;
}

// The fewest registers after tree stages with which every stage of the counting
// path fits `budget` (or as close as a stage alone allows), each as late as it
// can go: a register after a stage when the next one would cross the budget,
// and after the tree's last stage when the bank's adder would.
std::vector<int> counting_cuts_within(const std::vector<int>& schedule, int positions,
                                      int count_bits, bool accumulates, double start,
                                      double budget) {
  std::vector<int> cuts;
  Columns bits = tree_inputs(positions, start);
  int first = 0;  // the first tree stage of the current stage of the path
  for (int s = 0; s < int(schedule.size()); ++s) {
    Columns next = popcount_stage(bits, schedule[size_t(s)]);
    if (latest(next) + kTreeLoadFo4 > budget && s > first) {
      cuts.push_back(s - 1);
      first = s;
      next = popcount_stage(arriving_at(bits, 0), schedule[size_t(s)]);
    }
    bits = std::move(next);
  }
  const int stages = int(schedule.size());
  if (stages > 0 && bank_fo4(bits, count_bits, accumulates) > budget &&
      (cuts.empty() || cuts.back() != stages - 1)) {
    cuts.push_back(stages - 1);
  }
  return cuts;
}

}  // namespace

int popcount_tree_stages(int positions) { return int(popcount_tree_schedule(positions).size()); }

CountingPath counting_path(int positions, int count_bits, bool accumulates, bool concat,
                           double budget_fo4, int registers) {
  const std::vector<int> schedule = popcount_tree_schedule(positions);
  const int stages = int(schedule.size());
  const double start = (concat ? kConcatFo4 : 0) + kDecodeFo4;
  CountingPath p;
  if (registers < 0) {
    p.cuts = budget_fo4 > 0 ? counting_cuts_within(schedule, positions, count_bits, accumulates,
                                                   start, budget_fo4)
                            : std::vector<int>{};
  } else if (registers > 0 && stages > 0) {
    // The smallest budget the greedy placement meets with at most `registers` (bisected to
    // 1/1024 FO4), then any registers still to place after the last stages, where the tree's
    // bits are fewest.
    const int want = std::min(registers, stages);
    double lo = 0;
    double hi = counting_stage_fo4(schedule, positions, count_bits, accumulates, start, {})[0];
    while (hi - lo > 1.0 / 1024) {
      const double mid = (lo + hi) / 2;
      const auto c = counting_cuts_within(schedule, positions, count_bits, accumulates, start, mid);
      (int(c.size()) <= want ? hi : lo) = mid;
    }
    p.cuts = counting_cuts_within(schedule, positions, count_bits, accumulates, start, hi);
    for (int s = stages - 1; int(p.cuts.size()) < want; --s) {
      if (std::find(p.cuts.begin(), p.cuts.end(), s) == p.cuts.end()) p.cuts.push_back(s);
    }
    std::sort(p.cuts.begin(), p.cuts.end());
  }
  p.tree_stages = stages;
  p.stage_fo4 = counting_stage_fo4(schedule, positions, count_bits, accumulates, start, p.cuts);
  return p;
}

double index_count_path_fo4(int positions, int count_bits) {
  return counting_path(positions, count_bits, true, true, 0, 0).stage_fo4.front();
}

namespace {

// Calibrated on one path, the default config's MAC-line baseline in binary16
// at 50 FO4 with four stages (OpenSTA, docs/ppa.md): 47.6 FO4 from w_data_i
// (after its input delay) to a register inside the multiplier, less the
// register's setup (kSetupFo4) and the partial products' 31 (fp_mul_segments
// of the multiplier then, two partial products where its carry-save tree now
// is), leaves 15.6 FO4 for the 4 levels of the 16-entry codebook multiplexer.
constexpr double kSelectLevelFo4 = 3.9;

// A unit's first stage with `stages` registers placed in a chain, as the sum of its segments,
// also when it spans the whole unit: from a port, through multiplexers, abc maps the unit no
// faster than that (the binary32 MAC line at 80 FO4 with one exact-product stage: 58 FO4 for
// the multiplier where the unit alone takes 41, 81 with the multiplexers; docs/synth.md,
// Baselines).
double first_stage_sum_fo4(const FpSegments& segments, int stages) {
  const FpCuts cuts = place_chain_cuts(segments, stages);
  double first = 0;
  for (int i = 0; i <= segments.places(); ++i) {
    first += segments.segment_fo4(i);
    if (cuts.mask >> i & 1u) break;
  }
  return first;
}

}  // namespace

double select_fo4(int levels) { return kSelectLevelFo4 * levels; }

double mac_line_operand_path_fo4(int weight_bits, int beats, const FpFormat& format,
                                 const FpFormat& operand, int stages) {
  const int levels = std::max(weight_bits, clog2(beats));
  return select_fo4(levels) +
         first_stage_sum_fo4(fp_mul_segments(format, operand, operand), stages);
}

double woq_read_path_fo4(int group_size, const FpFormat& format, int stages) {
  // The inversion and the negation a multiplexer level each around the LUT's levels.
  return select_fo4(group_size - 1 + 2) + first_stage_sum_fo4(fp_add_segments(format), stages);
}

}  // namespace oasis
