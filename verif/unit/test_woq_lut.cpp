// SPDX-License-Identifier: Apache-2.0
// The FIGLUT-class line (docs/woq_lut_line.md): its numerics against an independent evaluation
// in double (a LUT entry is the signed sum of its group, a row the plain sum of the dequantized
// products, each within the bound docs/numerics.md writes down and exactly where every
// operation is exact); the RTL's plane scaling (the LUT doubled after each beat) equal to the
// model's multiplication by 2^i for every binary16 value; the quantizer's nearest levels; the
// line sized to the PE line's products a cycle; and oasis-perf's cycles of a layer equal to the
// cycle model's.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/woq_lut_line_baseline.hpp"
#include "model/numerics/fp.hpp"
#include "model/perf/perf.hpp"
#include "model/quant/woq_lut.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

constexpr double kU16 = 0x1p-11;  // binary16's unit roundoff
constexpr double kEta = 0x1p-25;  // half binary16's smallest subnormal: an underflow's error

double gamma(int n, double u) { return n * u / (1 - n * u); }

// A binary16 value of moderate size, either sign (2^-6 .. 2^6).
Fp16 moderate(std::mt19937_64& rng) {
  return Fp16{uint16_t(((rng() & 1) << 15) | ((9 + rng() % 13) << 10) | (rng() & 0x3FF))};
}

TEST(WoqLut, EntriesAreTheGroupsSignedSums) {
  std::mt19937_64 rng(test::test_seed(3));
  for (int trial = 0; trial < 2000; ++trial) {
    const int mu = 2 + int(rng() % 7);
    const bool integers = trial % 2 == 0;
    std::vector<Fp16> x(static_cast<size_t>(mu));
    for (auto& v : x) {
      v = integers ? fp16_from_double(double(int(rng() % 65) - 32)) : moderate(rng);
    }
    const std::vector<Fp16> lut = woq_lut(x);
    ASSERT_EQ(lut.size(), size_t(1) << (mu - 1));
    double magnitude = 0;
    for (const Fp16 v : x) magnitude += std::fabs(to_double(v));
    for (size_t e = 0; e < lut.size(); ++e) {
      double exact = to_double(x[size_t(mu - 1)]);
      for (int j = 0; j + 1 < mu; ++j) exact += ((e >> j) & 1 ? 1 : -1) * to_double(x[size_t(j)]);
      const double got = to_double(lut[e]);
      if (integers) {
        // Sums of small integers are exact in binary16.
        EXPECT_EQ(got, exact) << "mu " << mu << " entry " << e;
      } else {
        EXPECT_LE(std::fabs(got - exact), gamma(clog2(mu), kU16) * magnitude)
            << "mu " << mu << " entry " << e;
      }
    }
  }
}

// The RTL's doubling (rtl/oasis_fp_double.sv) written out again: the magnitude field shifted
// for a zero or subnormal, the exponent incremented for a normal, the largest binade to an
// infinity, infinities kept, a NaN made canonical.
uint32_t rtl_double(uint32_t a, int exp_bits, int frac_bits) {
  const uint32_t exp_max = (1u << exp_bits) - 1, frac_mask = (1u << frac_bits) - 1;
  const uint32_t sign = a >> (exp_bits + frac_bits) << (exp_bits + frac_bits);
  const uint32_t exp = (a >> frac_bits) & exp_max, frac = a & frac_mask;
  if (exp == exp_max) return frac != 0 ? (exp_max << frac_bits) | (1u << (frac_bits - 1)) : a;
  if (exp == exp_max - 1) return sign | (exp_max << frac_bits);
  if (exp == 0) return sign | (frac << 1);
  return a + (1u << frac_bits);
}

TEST(WoqLut, DoublingTheLutIsItsReadScaledByThePlanesPowerOfTwo) {
  for (const AccumulatorFormat f : {AccumulatorFormat::kFp16, AccumulatorFormat::kFp32}) {
    const Accumulator acc(f);
    const int eb = f == AccumulatorFormat::kFp16 ? 5 : 8,
              fb = f == AccumulatorFormat::kFp16 ? 10 : 23;
    int64_t checked = 0;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      const Fp16 entry{uint16_t(bits)};
      std::vector<Fp16> lut = {entry, entry};  // mu = 2: entry 0 (and 1) of a pattern's read
      uint32_t scaled = acc.widen(entry).bits;
      if (std::isnan(to_double(entry)))
        scaled = acc.mul(acc.widen(entry), acc.widen(Fp16{0x3C00})).bits;
      for (int plane = 0; plane < 4; ++plane) {
        // Pattern 0b10: the top digit +1, entry 0 read as it is.
        ASSERT_EQ(woq_read(lut, 2, plane, acc).bits, scaled)
            << std::hex << "entry 0x" << bits << " plane " << plane << " " << accumulator_name(f);
        ++checked;
        scaled = rtl_double(scaled, eb, fb);
      }
    }
    EXPECT_EQ(checked, 4 * 0x10000);
  }
}

TEST(WoqLut, ReadNegatesByTheTopDigit) {
  const Accumulator acc(AccumulatorFormat::kFp32);
  const std::vector<Fp16> lut =
      woq_lut(std::vector<Fp16>{Fp16{0x3C00}, Fp16{0x4000}, Fp16{0x4200}});
  // x = (1, 2, 3): pattern 0b111 is 1 + 2 + 3, 0b011 its negation with x2's digit -1:
  // 1 + 2 - 3 = 0 read as -(-1 - 2 + 3), 0b000 is -6.
  EXPECT_EQ(acc.to_double(woq_read(lut, 0b111, 0, acc)), 6);
  EXPECT_EQ(acc.to_double(woq_read(lut, 0b000, 0, acc)), -6);
  EXPECT_EQ(acc.to_double(woq_read(lut, 0b101, 2, acc)), 4 * (1 - 2 + 3));
  EXPECT_EQ(acc.to_double(woq_read(lut, 0b010, 1, acc)), 2 * (-1 + 2 - 3));
  EXPECT_EQ(negate(AccValue{0x7FC00000u}, acc).bits, 0x7FC00000u);  // a NaN as it is
}

// The row's bound (docs/numerics.md, "The FIGLUT-class line"): the LUT entries' roundings,
// the accumulation's, the scaling's and the final rounding's.
double row_bound(const std::vector<Fp16>& x, Fp16 s, double exact, const WoqLutParams& p) {
  const int K = int(x.size());
  const int groups = (K + p.group_size - 1) / p.group_size;
  const int windows = (groups + p.lanes - 1) / p.lanes;
  const double ua = p.accumulator == AccumulatorFormat::kFp16 ? kU16 : 0x1p-24;
  double magnitude = 0;
  for (const Fp16 v : x) magnitude += std::fabs(to_double(v));
  magnitude *= (1 << p.planes) - 1;
  const int depth = windows * p.planes + clog2(p.partials) + clog2(p.lanes) + 1;
  const double lut = gamma(clog2(p.group_size), kU16) * magnitude;
  const double sum = lut + gamma(depth, ua) * (magnitude + lut);
  const double sd = std::fabs(to_double(s));
  return sd * sum + (ua + kU16 + ua * kU16) * sd * (std::fabs(exact) + sum) + 2 * kEta +
         1e-12 * sd * magnitude;
}

TEST(WoqLut, RowIsThePlainSumOfTheDequantizedProductsWithinItsBound) {
  std::mt19937_64 rng(test::test_seed(5));
  int rows = 0, exact_rows = 0;
  for (int trial = 0; trial < 600; ++trial) {
    WoqLutParams p;
    p.group_size = 2 + int(rng() % 7);
    p.planes = 1 + int(rng() % 4);
    p.lanes = 1 + int(rng() % 3);
    p.partials = 1 + int(rng() % 4);
    p.accumulator = trial % 2 ? AccumulatorFormat::kFp16 : AccumulatorFormat::kFp32;
    // Small integers and a power-of-two scale: every operation exact (binary16 sums below 2^11).
    const bool integers = trial % 3 == 0;
    const int K = integers ? 1 + int(rng() % 16) : 1 + int(rng() % 200);
    std::vector<Fp16> x(static_cast<size_t>(K));
    std::vector<uint8_t> codes(static_cast<size_t>(K));
    for (auto& v : x) v = integers ? fp16_from_double(double(int(rng() % 9) - 4)) : moderate(rng);
    for (auto& c : codes) c = uint8_t(rng() % (1u << p.planes));
    // A scale small enough that the row stays finite in binary16 (2^-6 .. 2^-1).
    const Fp16 s =
        integers ? fp16_from_double(std::ldexp(1.0, int(rng() % 5) - 2))
                 : Fp16{uint16_t(((rng() & 1) << 15) | ((9 + rng() % 5) << 10) | (rng() & 0x3FF))};
    double exact = 0;
    for (int k = 0; k < K; ++k) {
      exact += to_double(x[size_t(k)]) * to_double(s) * uniform_level(codes[size_t(k)], p.planes);
    }
    const double y = to_double(woq_lut_row(x, codes, s, p));
    const std::string what = "K " + std::to_string(K) + " mu " + std::to_string(p.group_size) +
                             " q " + std::to_string(p.planes) + " lanes " +
                             std::to_string(p.lanes) + " L " + std::to_string(p.partials) + " " +
                             accumulator_name(p.accumulator);
    if (integers) {
      EXPECT_EQ(y, exact) << what;
      ++exact_rows;
    } else {
      EXPECT_LE(std::fabs(y - exact), row_bound(x, s, exact, p)) << what << " exact " << exact;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 600);
  EXPECT_EQ(exact_rows, 200);
}

TEST(WoqLut, QuantizerTakesTheNearestLevelOfTheBestScale) {
  std::mt19937_64 rng(test::test_seed(7));
  const int rows = 20, K = 64;
  std::vector<Fp16> w(static_cast<size_t>(rows * K));
  for (auto& v : w) v = moderate(rng);
  for (int bits = 1; bits <= 4; ++bits) {
    const UniformWeights q = quantize_uniform(w, rows, K, bits);
    ASSERT_EQ(q.scales.size(), size_t(rows));
    for (int n = 0; n < rows; ++n) {
      const double s = to_double(q.scales[size_t(n)]);
      double absmax = 0, error = 0, error_absmax = 0;
      for (int k = 0; k < K; ++k)
        absmax = std::max(absmax, std::fabs(to_double(w[size_t(n * K + k)])));
      const double s_absmax = to_double(fp16_from_double(absmax / ((1 << bits) - 1)));
      for (int k = 0; k < K; ++k) {
        const double v = to_double(w[size_t(n * K + k)]);
        const int c = q.codes[size_t(n * K + k)];
        // No other level is nearer (ties to the lower code).
        for (int o = 0; o < (1 << bits); ++o) {
          const double d = std::fabs(v - s * uniform_level(o, bits));
          const double mine = std::fabs(v - s * uniform_level(c, bits));
          EXPECT_TRUE(d > mine || (d == mine && o >= c)) << "row " << n << " k " << k;
        }
        error += std::pow(v - s * uniform_level(c, bits), 2);
        double best = 1e300;
        for (int o = 0; o < (1 << bits); ++o) {
          best = std::min(best, std::fabs(v - s_absmax * uniform_level(o, bits)));
        }
        error_absmax += best * best;
      }
      EXPECT_LE(error, error_absmax) << "row " << n << " bits " << bits;
    }
  }
  const UniformWeights zeros = quantize_uniform(std::vector<Fp16>(8), 1, 8, 4);
  EXPECT_EQ(zeros.scales[0].bits, 0x3C00);
}

TEST(WoqLut, SizedToThePeLinesProductsACycle) {
  const Derived dd = derive(load_config(test::kDefault));
  const WoqLutTiming& d = dd.woq_lut_line_baseline;
  EXPECT_EQ(d.units, 16);
  EXPECT_EQ(d.rows, 16);
  EXPECT_EQ(d.luts, 1);
  EXPECT_EQ(d.batch_beats, 128);
  EXPECT_EQ(d.lut_adders, 12);
  EXPECT_EQ(d.products_per_cycle, 16);
  EXPECT_EQ(d.pe_products_per_cycle, 16);
  const WoqLutTiming p = derive(load_config(test::kPaper)).woq_lut_line_baseline;
  EXPECT_EQ(p.units, 512);
  EXPECT_EQ(p.batch_beats, 4096);
  EXPECT_EQ(p.products_per_cycle, 512);
  EXPECT_EQ(p.pe_products_per_cycle, 512);
  // At least the PE line's products a cycle, for every K, nW and mu, and at most one unit more
  // than that needs.
  for (int K : {5, 21, 100, 128, 1000, 4096}) {
    for (int nW = 1; nW <= 4; ++nW) {
      for (int mu = 2; mu <= 8; ++mu) {
        const Config c =
            load_config(test::kDefault, {"channels=" + std::to_string(K), "outliers_per_side=1",
                                         "weight_bits=" + std::to_string(nW),
                                         "woq_group_size=" + std::to_string(mu),
                                         "weight_beat_indices=" + std::to_string(std::min(K, 16))});
        const Derived x = derive(c);
        const WoqLutTiming& t = x.woq_lut_line_baseline;
        SCOPED_TRACE("K " + std::to_string(K) + " nW " + std::to_string(nW) + " mu " +
                     std::to_string(mu));
        EXPECT_GE(t.products_per_cycle, t.pe_products_per_cycle);
        EXPECT_LT(double(t.rows - 1) * K / t.batch_beats, t.pe_products_per_cycle);
        EXPECT_LE(t.rows, t.batch_beats);
        // The next window's LUT is there when a window's last beat is taken.
        EXPECT_GE(t.lut_slots * t.planes, t.generator_latency + 1);
      }
    }
  }
  // A LUT a row of the default's 16 units: 16 LUTs of a window of 16 groups, 8 beats a batch.
  const WoqLutTiming r1 =
      derive(load_config(test::kDefault, {"woq_rows_per_lut=1"})).woq_lut_line_baseline;
  EXPECT_EQ(r1.luts, 16);
  EXPECT_EQ(r1.batch_beats, 8);
}

TEST(WoqLut, ConfigRefusesSizesTheLineCannotHave) {
  const auto message = [](const std::vector<std::string>& sets) {
    try {
      load_config(test::kDefault, sets);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({"woq_rows_per_lut=5"}).find("field 'woq_rows_per_lut'"), std::string::npos);
  EXPECT_NE(message({"woq_rows_per_lut=5"}).find("divisor of the line's read-accumulate units (16"),
            std::string::npos);
  EXPECT_NE(message({"woq_units=200"}).find("field 'woq_units'"), std::string::npos);
  EXPECT_NE(message({"woq_group_size=9"}).find("field 'woq_group_size'"), std::string::npos);
  EXPECT_NE(message({"woq_read_stage=2"}).find("field 'woq_read_stage'"), std::string::npos);
  EXPECT_EQ(message({"woq_units=32", "woq_rows_per_lut=8"}), "");
}

// The cycle model on a layer of `rows` rows for `tokens` tokens, unthrottled: each token loaded
// the cycle after the last beat of the one before. Returns each token's last output cycle.
std::vector<int64_t> run_layer(const Config& c, int64_t rows, int tokens, std::mt19937_64& rng) {
  WoqLutLineBaseline m(c);
  const WoqLutTiming& t = m.timing();
  const int64_t batches = (rows + t.rows - 1) / t.rows;
  std::vector<int64_t> last(size_t(tokens), -1);
  std::vector<Fp16> x(size_t(c.channels));
  int token = 0;
  int64_t outputs = 0, beat = 0;
  std::vector<uint8_t> patterns(size_t(t.units));
  bool load = true;
  for (int64_t cycle = 0; cycle < 100000 && last.back() < 0; ++cycle) {
    if (m.y_valid()) {
      const int tk = int(outputs / (batches * t.rows));
      if (outputs % (batches * t.rows) == rows - 1) last[size_t(tk)] = int64_t(m.cycle());
      ++outputs;
    }
    for (auto& v : x) v = moderate(rng);
    for (auto& p : patterns) p = uint8_t(rng());
    const bool offer = !load && token < tokens;
    const bool taken = offer && m.w_ready();
    m.clock(load, x, offer, patterns, moderate(rng));
    load = false;
    if (taken && ++beat == batches * t.batch_beats) {
      beat = 0;
      load = ++token < tokens;
    }
  }
  return last;
}

TEST(WoqLut, PerfCyclesAreTheCycleModels) {
  std::mt19937_64 rng(test::test_seed(9));
  const std::vector<std::vector<std::string>> configs = {
      {},
      {"channels=21", "act_bits=2", "weight_bits=2", "comp_macs=1", "accumulator=fp16"},
      {"target_period_fo4=50", "channels=21", "woq_read_stage=1"},
      {"channels=22", "act_bits=2", "weight_bits=2", "comp_macs=1", "woq_rows_per_lut=1"},
      {"weight_bits=1", "woq_group_size=8", "channels=37"}};
  for (const auto& sets : configs) {
    const Config c = load_config(test::kDefault, sets);
    const int R = derive(c).woq_lut_line_baseline.rows;
    for (const int64_t rows : {int64_t(1), int64_t(R), int64_t(2 * R + 1)}) {
      for (int tokens = 1; tokens <= 2; ++tokens) {
        const WoqLutLayerPerf p = woq_lut_layer_perf(c, rows, tokens);
        const std::vector<int64_t> last = run_layer(c, rows, tokens, rng);
        for (int t = 0; t < tokens; ++t) {
          EXPECT_EQ(last[size_t(t)], p.last_output[size_t(t)])
              << "token " << t << " rows " << rows << " " << (sets.empty() ? "" : sets[0]);
        }
        EXPECT_EQ(p.cycles, p.last_output.back() + 1);
      }
    }
  }
  EXPECT_THROW(woq_lut_layer_perf(load_config(test::kDefault), 0), std::invalid_argument);
}

}  // namespace
}  // namespace oasis
