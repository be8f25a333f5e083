// SPDX-License-Identifier: Apache-2.0
#include "model/perf/fp_delay.hpp"

#include <algorithm>
#include <bit>
#include <tuple>
#include <vector>

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
// register after the unit, 130 FO4, OpenSTA on make ppa's flow; docs/ppa.md, "Every block at
// 130, 80 and 50 FO4"): 15.8 and 36.9 FO4, rounded up.
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

// Calibrated on one path, the default config's PE line in binary16 at 50 FO4
// (16 positions, 8-bit counts; OpenSTA, docs/ppa.md): 11.5 FO4 from the beat
// register through the Concat Units' multiplexers, 9.4 through the decoders,
// 11 adder cells at 2.26 FO4 each (5 full-adder stages of the tree, its
// ripple's last cell and 5 of the bank's carries) and 3 FO4 into the bank.
constexpr double kConcatFo4 = 11.5;
constexpr double kDecodeAndBankFo4 = 9.4 + 3;
constexpr double kAdderCellFo4 = 2.26;

// Full-adder stages until every column of an n-bit popcount holds at most two
// bits (a full adder takes three bits of a column, leaves one, carries one).
int popcount_tree_stages(int n) {
  std::vector<int> h = {n};
  int stages = 0;
  while (*std::max_element(h.begin(), h.end()) > 2) {
    std::vector<int> next(h.size() + 1, 0);
    for (size_t j = 0; j < h.size(); ++j) {
      next[j] += h[j] - 2 * (h[j] / 3);
      next[j + 1] += h[j] / 3;
    }
    if (next.back() == 0) next.pop_back();
    h = next;
    ++stages;
  }
  return stages;
}

}  // namespace

double index_count_path_fo4(int positions, int count_bits) {
  // The tree's stages, its ripple's last cell, and the bank's carries above
  // the beat count's lowest bits.
  const int cells = popcount_tree_stages(positions) + 1 + std::max(0, count_bits - 3);
  return kConcatFo4 + kDecodeAndBankFo4 + kAdderCellFo4 * cells;
}

namespace {

// Calibrated on one path, the default config's MAC-line baseline in binary16
// at 50 FO4 with four stages (OpenSTA, docs/ppa.md): 47.6 FO4 from w_data_i
// (after its input delay) to a register inside the multiplier, less the
// register's setup (kSetupFo4) and the partial products' 31 (fp_mul_segments
// of the multiplier then, two partial products where its carry-save tree now
// is), leaves 15.6 FO4 for the 4 levels of the 16-entry codebook multiplexer.
constexpr double kSelectLevelFo4 = 3.9;

}  // namespace

double select_fo4(int levels) { return kSelectLevelFo4 * levels; }

double mac_line_operand_path_fo4(int weight_bits, int beats, const FpFormat& format,
                                 const FpFormat& operand, int stages) {
  const int levels = std::max(weight_bits, clog2(beats));
  // The multiplier's first stage as the sum of its segments, also when it spans the whole unit:
  // from a port, through the multiplexers, abc maps the unit no faster than that (the binary32
  // line at 80 FO4 with one exact-product stage: 58 FO4 for the multiplier where the unit alone
  // takes 41, 81 with the multiplexers; docs/synth.md, Baselines).
  const FpSegments segments = fp_mul_segments(format, operand, operand);
  const FpCuts cuts = place_chain_cuts(segments, stages);
  double first = 0;
  for (int i = 0; i <= segments.places(); ++i) {
    first += segments.segment_fo4(i);
    if (cuts.mask >> i & 1u) break;
  }
  return select_fo4(levels) + first;
}

}  // namespace oasis
