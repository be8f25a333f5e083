// SPDX-License-Identifier: Apache-2.0
#include "model/quant/woq_lut.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace oasis {

WoqLutParams WoqLutParams::from_config(const Config& c) {
  const Derived d = derive(c);
  WoqLutParams p;
  p.group_size = c.woq_group_size;
  p.planes = c.weight_bits;
  p.lanes = d.woq_lut_line_baseline.luts;
  p.partials = d.accumulator_slots;
  p.accumulator = c.accumulator;
  return p;
}

int uniform_level(int code, int bits) { return 2 * code - ((1 << bits) - 1); }

UniformWeights quantize_uniform(std::span<const Fp16> w, int rows, int channels, int bits) {
  if (rows < 1 || channels < 1 || bits < 1 || bits > 8 ||
      w.size() != size_t(rows) * size_t(channels)) {
    throw std::invalid_argument(fmt::format("quantize_uniform: {} weights for {} x {}, {} bits",
                                            w.size(), rows, channels, bits));
  }
  UniformWeights q;
  q.rows = rows;
  q.channels = channels;
  q.bits = bits;
  q.codes.resize(w.size());
  const int top = (1 << bits) - 1;
  // The nearest level of v / s, ties to the lower code.
  const auto code_of = [top](double v, double s) {
    const double t = std::ceil((v / s + top) / 2 - 0.5);
    return int(std::clamp(t, 0.0, double(top)));
  };
  for (int n = 0; n < rows; ++n) {
    const std::span<const Fp16> row = w.subspan(size_t(n) * size_t(channels), size_t(channels));
    double absmax = 0;
    for (const Fp16 x : row) {
      const double v = to_double(x);
      if (!std::isfinite(v)) throw std::invalid_argument("quantize_uniform: a weight not finite");
      absmax = std::max(absmax, std::fabs(v));
    }
    Fp16 best{0x3C00};  // 1.0: a row of zeros
    double best_error = -1;
    for (int percent = 100; percent >= 50 && absmax > 0; --percent) {
      const Fp16 s = fp16_from_double(absmax * percent / 100.0 / top);
      const double sd = to_double(s);
      if (!(sd > 0) || !std::isfinite(sd)) continue;
      double error = 0;
      for (const Fp16 x : row) {
        const double v = to_double(x);
        const double e = v - sd * uniform_level(code_of(v, sd), bits);
        error += e * e;
      }
      if (best_error < 0 || error < best_error) {
        best_error = error;
        best = s;
      }
    }
    q.scales.push_back(best);
    for (int k = 0; k < channels; ++k) {
      q.codes[size_t(n) * size_t(channels) + size_t(k)] =
          uint8_t(code_of(to_double(row[size_t(k)]), to_double(best)));
    }
  }
  return q;
}

namespace {

Fp16 flip(Fp16 x) { return Fp16{uint16_t(x.bits ^ 0x8000u)}; }

// A node of the generator's tree: its terms and the 2^(terms-1) sums it stores.
struct LutNode {
  int terms = 1;
  std::vector<Fp16> sums;
};

// The sums of a node over `left` and `right`: entry e has the left child's pattern in its low
// left.terms bits and the right child's stored index above them.
LutNode combine(const LutNode& left, const LutNode& right) {
  LutNode n;
  n.terms = left.terms + right.terms;
  const unsigned low_left = (1u << (left.terms - 1)) - 1;
  for (unsigned e = 0; e < (1u << (n.terms - 1)); ++e) {
    const unsigned pl = e & ((1u << left.terms) - 1);
    const Fp16 l =
        (pl >> (left.terms - 1)) & 1u ? left.sums[pl & low_left] : flip(left.sums[~pl & low_left]);
    n.sums.push_back(add(l, right.sums[e >> left.terms]));
  }
  return n;
}

}  // namespace

std::vector<Fp16> woq_lut(std::span<const Fp16> group) {
  if (group.size() < 2 || group.size() > 16) {
    throw std::invalid_argument(fmt::format("woq_lut: a group of {} activations", group.size()));
  }
  std::vector<LutNode> level;
  for (const Fp16 x : group) level.push_back({1, {x}});
  while (level.size() > 1) {
    std::vector<LutNode> up;
    for (size_t i = 0; i + 1 < level.size(); i += 2) up.push_back(combine(level[i], level[i + 1]));
    if (level.size() % 2 == 1) up.push_back(std::move(level.back()));
    level = std::move(up);
  }
  return level[0].sums;
}

AccValue negate(AccValue x, const Accumulator& acc) {
  if (std::isnan(acc.to_double(x))) return x;
  const uint32_t sign = acc.format() == AccumulatorFormat::kFp16 ? 0x8000u : 0x80000000u;
  return AccValue{x.bits ^ sign};
}

AccValue woq_read(std::span<const Fp16> lut, unsigned pattern, int plane, const Accumulator& acc) {
  const unsigned low = unsigned(lut.size()) - 1;  // 2^(mu-1) entries
  const bool top = (pattern & (low + 1)) != 0;
  const Fp16 entry = lut[top ? pattern & low : ~pattern & low];
  const AccValue v = acc.mul(acc.widen(entry), acc.widen(fp16_from_double(std::ldexp(1.0, plane))));
  return top ? v : negate(v, acc);
}

std::vector<std::vector<Fp16>> woq_token_luts(std::span<const Fp16> x, int group_size) {
  std::vector<std::vector<Fp16>> luts;
  for (size_t g = 0; g * size_t(group_size) < x.size(); ++g) {
    std::vector<Fp16> group(size_t(group_size), Fp16{0});
    for (size_t j = 0; j < size_t(group_size) && g * size_t(group_size) + j < x.size(); ++j) {
      group[j] = x[g * size_t(group_size) + j];
    }
    luts.push_back(woq_lut(group));
  }
  return luts;
}

Fp16 woq_lut_row(std::span<const std::vector<Fp16>> luts, int channels,
                 std::span<const uint8_t> codes, Fp16 scale, const WoqLutParams& p) {
  const int mu = p.group_size;
  const int groups = (channels + mu - 1) / mu;
  if (channels < 1 || codes.size() != size_t(channels) || luts.size() != size_t(groups) ||
      p.lanes < 1 || p.partials < 1 || p.planes < 1) {
    throw std::invalid_argument(fmt::format("woq_lut_row: {} codes, {} LUTs for K = {}, mu = {}",
                                            codes.size(), luts.size(), channels, mu));
  }
  const Accumulator acc(p.accumulator);
  const int windows = (groups + p.lanes - 1) / p.lanes;
  const std::vector<Fp16> zeros = woq_lut(std::vector<Fp16>(size_t(mu), Fp16{0}));
  std::vector<AccValue> lanes;
  for (int l = 0; l < p.lanes; ++l) {
    // The lane's reads in beat order: window by window, each window's planes in order.
    std::vector<AccValue> reads;
    for (int w = 0; w < windows; ++w) {
      const int g = w * p.lanes + l;
      const std::vector<Fp16>& lut = g < groups ? luts[size_t(g)] : zeros;
      for (int i = 0; i < p.planes; ++i) {
        unsigned pattern = 0;
        for (int j = 0; j < mu; ++j) {
          const int k = g * mu + j;
          const unsigned digit = k < channels ? (codes[size_t(k)] >> i) & 1u : 1u;
          pattern |= digit << j;
        }
        reads.push_back(woq_read(lut, pattern, i, acc));
      }
    }
    lanes.push_back(interleaved_sum(reads, p.partials, acc));
  }
  return acc.to_fp16(acc.mul(pairwise_tree(lanes, acc), acc.widen(scale)));
}

Fp16 woq_lut_row(std::span<const Fp16> x, std::span<const uint8_t> codes, Fp16 scale,
                 const WoqLutParams& p) {
  const auto luts = woq_token_luts(x, p.group_size);
  return woq_lut_row(luts, int(x.size()), codes, scale, p);
}

std::vector<Fp16> woq_lut_gemm(std::span<const Fp16> x, int tokens, const UniformWeights& w,
                               const WoqLutParams& p) {
  const size_t k = size_t(w.channels);
  if (tokens < 1 || x.size() != size_t(tokens) * k || w.bits != p.planes ||
      w.codes.size() != size_t(w.rows) * k || w.scales.size() != size_t(w.rows)) {
    throw std::invalid_argument(
        fmt::format("woq_lut_gemm: {} activations for {} tokens of K = {}; {}-bit weights for "
                    "{} planes",
                    x.size(), tokens, w.channels, w.bits, p.planes));
  }
  std::vector<Fp16> y;
  y.reserve(size_t(tokens) * size_t(w.rows));
  for (int t = 0; t < tokens; ++t) {
    const auto luts = woq_token_luts(x.subspan(size_t(t) * k, k), p.group_size);
    for (int n = 0; n < w.rows; ++n) {
      y.push_back(woq_lut_row(luts, w.channels,
                              std::span<const uint8_t>(w.codes).subspan(size_t(n) * k, k),
                              w.scales[size_t(n)], p));
    }
  }
  return y;
}

}  // namespace oasis
