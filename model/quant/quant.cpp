// SPDX-License-Identifier: Apache-2.0
#include "model/quant/quant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/cycle/orizuru.hpp"
#include "model/quant/clustering.hpp"
#include "model/quant/synth_data.hpp"

namespace oasis {
namespace {

// The data of a 1-D K-means problem: distinct values, ascending, with the
// summed weight of each.
struct Points {
  std::vector<double> v;
  std::vector<double> w;
};

Points compress(std::span<const double> values, std::span<const double> weights, int clusters) {
  if (clusters < 1) throw std::invalid_argument("K-means: need at least one cluster");
  if (!weights.empty() && weights.size() != values.size()) {
    throw std::invalid_argument(
        fmt::format("K-means: {} weights for {} values", weights.size(), values.size()));
  }
  std::vector<std::pair<double, double>> p;
  p.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument(fmt::format("K-means: value {} is not finite", i));
    }
    if (!(w >= 0) || !std::isfinite(w)) {
      throw std::invalid_argument(
          fmt::format("K-means: weight {} is {}; allowed: finite, >= 0", i, w));
    }
    if (w > 0) p.emplace_back(values[i] == 0 ? 0.0 : values[i], w);  // -0 joins +0
  }
  std::sort(p.begin(), p.end());
  Points out;
  for (const auto& [v, w] : p) {
    if (!out.v.empty() && out.v.back() == v) {
      out.w.back() += w;
    } else {
      out.v.push_back(v);
      out.w.push_back(w);
    }
  }
  if (out.v.size() < size_t(clusters)) {
    throw std::invalid_argument(fmt::format(
        "K-means: {} distinct values of positive weight for {} clusters; need at least as many "
        "distinct values as clusters",
        out.v.size(), clusters));
  }
  return out;
}

// Cost of points sorted ascending against centroids sorted ascending, each
// point at its nearest centroid (midpoints go up).
double sorted_cost(const Points& p, const std::vector<double>& c) {
  double cost = 0;
  size_t j = 0;
  for (size_t i = 0; i < p.v.size(); ++i) {
    while (j + 1 < c.size() && p.v[i] >= (c[j] + c[j + 1]) / 2) ++j;
    const double d = p.v[i] - c[j];
    cost += p.w[i] * d * d;
  }
  return cost;
}

}  // namespace

KMeansMethod parse_kmeans_method(const std::string& text) {
  if (text == "lloyd") return KMeansMethod::kLloyd;
  if (text == "optimal") return KMeansMethod::kOptimal;
  throw std::invalid_argument(fmt::format("K-means method '{}'; allowed: lloyd, optimal", text));
}

ScaleMode parse_scale_mode(const std::string& text) {
  if (text == "rms") return ScaleMode::kRms;
  if (text == "absmax") return ScaleMode::kAbsMax;
  throw std::invalid_argument(fmt::format("scale '{}'; allowed: rms, absmax", text));
}

KMeansResult kmeans_lloyd(std::span<const double> values, std::span<const double> weights,
                          int clusters, uint64_t seed, int max_iterations) {
  const Points p = compress(values, weights, clusters);
  const size_t n = p.v.size();
  std::vector<double> pw(n + 1, 0.0), pwx(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) {
    pw[i + 1] = pw[i] + p.w[i];
    pwx[i + 1] = pwx[i] + p.w[i] * p.v[i];
  }
  // k-means++: the first centre drawn by weight, each next one by weight
  // times squared distance to the nearest centre so far.
  Rng rng(seed);
  std::vector<double> c;
  std::vector<double> d2(n, std::numeric_limits<double>::infinity());
  auto draw = [&](const std::vector<double>& mass) {
    double total = 0;
    for (const double m : mass) total += m;
    double r = rng.uniform() * total;
    for (size_t i = 0; i < n; ++i) {
      if (mass[i] > 0 && r < mass[i]) return i;
      r -= mass[i];
    }
    for (size_t i = n; i-- > 0;) {
      if (mass[i] > 0) return i;
    }
    return size_t(0);
  };
  c.push_back(p.v[draw(p.w)]);
  while (c.size() < size_t(clusters)) {
    std::vector<double> mass(n);
    for (size_t i = 0; i < n; ++i) {
      const double d = p.v[i] - c.back();
      d2[i] = std::min(d2[i], d * d);
      mass[i] = p.w[i] * d2[i];
    }
    c.push_back(p.v[draw(mass)]);
  }
  std::sort(c.begin(), c.end());
  KMeansResult r;
  for (r.iterations = 0; r.iterations < max_iterations; ++r.iterations) {
    std::vector<double> next(c.size());
    size_t start = 0;
    for (size_t j = 0; j < c.size(); ++j) {
      size_t end = n;
      if (j + 1 < c.size()) {
        const double b = (c[j] + c[j + 1]) / 2;
        end = size_t(std::lower_bound(p.v.begin(), p.v.end(), b) - p.v.begin());
        end = std::max(end, start);
      }
      const double w = pw[end] - pw[start];
      next[j] = end > start && w > 0 ? (pwx[end] - pwx[start]) / w : c[j];
      start = end;
    }
    std::sort(next.begin(), next.end());
    if (next == c) break;
    c = next;
  }
  r.centroids = c;
  r.cost = sorted_cost(p, c);
  return r;
}

KMeansResult kmeans_optimal_1d(std::span<const double> values, std::span<const double> weights,
                               int clusters) {
  const Points p = compress(values, weights, clusters);
  const size_t n = p.v.size();
  // The tables hold clusters x (n + 1) entries of 20 bytes.
  const size_t limit = (size_t(1) << 25) / size_t(clusters);
  if (n > limit) {
    throw std::invalid_argument(fmt::format(
        "optimal K-means: {} distinct values for {} clusters; at most {} (use Lloyd's iterations)",
        n, clusters, limit));
  }
  // Prefix sums in long double, with the values shifted by their mean, keep
  // the segment costs S_xx - S_x^2 / S accurate.
  long double mean = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    mean += (long double)p.w[i] * p.v[i];
    total += p.w[i];
  }
  mean /= total;
  std::vector<long double> s(n + 1, 0), sx(n + 1, 0), sxx(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const long double x = (long double)p.v[i] - mean;
    s[i + 1] = s[i] + p.w[i];
    sx[i + 1] = sx[i] + p.w[i] * x;
    sxx[i + 1] = sxx[i] + p.w[i] * x * x;
  }
  auto cost = [&](size_t l, size_t r) -> long double {  // points l .. r-1
    const long double w = s[r] - s[l], x = sx[r] - sx[l];
    const long double c = (sxx[r] - sxx[l]) - x * x / w;
    return c > 0 ? c : 0;
  };
  const size_t k = size_t(clusters);
  // d[j][i]: best cost of the first i points in j+1 clusters; arg[j][i]:
  // where its last cluster starts.
  std::vector<std::vector<long double>> d(k, std::vector<long double>(n + 1, 0));
  std::vector<std::vector<uint32_t>> arg(k, std::vector<uint32_t>(n + 1, 0));
  for (size_t i = 1; i <= n; ++i) d[0][i] = cost(0, i);
  for (size_t j = 1; j < k; ++j) {
    // Split points are monotone in i (1-D K-means has the Monge property),
    // so divide and conquer over i with a shrinking range of splits.
    struct Frame {
      size_t lo, hi, opt_lo, opt_hi;
    };
    std::vector<Frame> stack{{j + 1, n, j, n - 1}};
    while (!stack.empty()) {
      const Frame f = stack.back();
      stack.pop_back();
      if (f.lo > f.hi) continue;
      const size_t i = (f.lo + f.hi) / 2;
      long double best = std::numeric_limits<long double>::infinity();
      size_t best_m = f.opt_lo;
      for (size_t m = f.opt_lo; m <= std::min(f.opt_hi, i - 1); ++m) {
        const long double c = d[j - 1][m] + cost(m, i);
        if (c < best) {
          best = c;
          best_m = m;
        }
      }
      d[j][i] = best;
      arg[j][i] = uint32_t(best_m);
      if (i > f.lo) stack.push_back({f.lo, i - 1, f.opt_lo, best_m});
      stack.push_back({i + 1, f.hi, best_m, f.opt_hi});
    }
  }
  std::vector<double> c(k);
  size_t end = n;
  for (size_t j = k; j-- > 0;) {
    const size_t start = j == 0 ? 0 : arg[j][end];
    c[j] = double(mean + (sx[end] - sx[start]) / (s[end] - s[start]));
    end = start;
  }
  std::sort(c.begin(), c.end());
  KMeansResult r;
  r.centroids = c;
  r.cost = sorted_cost(p, c);
  return r;
}

KMeansResult kmeans(KMeansMethod method, std::span<const double> values,
                    std::span<const double> weights, int clusters, uint64_t seed) {
  return method == KMeansMethod::kOptimal ? kmeans_optimal_1d(values, weights, clusters)
                                          : kmeans_lloyd(values, weights, clusters, seed);
}

KMeansResult kmeans_symmetric(KMeansMethod method, std::span<const double> values,
                              std::span<const double> weights, int clusters, uint64_t seed) {
  if (clusters < 2 || clusters % 2 != 0) {
    throw std::invalid_argument(fmt::format(
        "symmetric codebook of {} centroids; allowed: an even number, at least 2", clusters));
  }
  std::vector<double> magnitudes(values.size());
  for (size_t i = 0; i < values.size(); ++i) magnitudes[i] = std::fabs(values[i]);
  const KMeansResult half = kmeans(method, magnitudes, weights, clusters / 2, seed);
  KMeansResult r;
  for (auto m = half.centroids.rbegin(); m != half.centroids.rend(); ++m) {
    r.centroids.push_back(-*m);
  }
  r.centroids.insert(r.centroids.end(), half.centroids.begin(), half.centroids.end());
  r.cost = half.cost;
  r.iterations = half.iterations;
  return r;
}

namespace {

// A codebook of `clusters` centroids, free or symmetric about zero, as the options ask.
KMeansResult codebook_kmeans(bool symmetric, KMeansMethod method, std::span<const double> values,
                             std::span<const double> weights, int clusters, uint64_t seed) {
  return symmetric ? kmeans_symmetric(method, values, weights, clusters, seed)
                   : kmeans(method, values, weights, clusters, seed);
}

}  // namespace

double kmeans_cost(std::span<const double> values, std::span<const double> weights,
                   std::span<const double> centroids) {
  std::vector<double> c(centroids.begin(), centroids.end());
  std::sort(c.begin(), c.end());
  const Points p = compress(values, weights, 1);
  return sorted_cost(p, c);
}

int nearest_centroid(double v, std::span<const Fp16> codebook) {
  int best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < codebook.size(); ++j) {
    const double d = std::fabs(v - to_double(codebook[j]));
    if (d < best_d) {
      best_d = d;
      best = int(j);
    }
  }
  return best;
}

Fp16 row_scale(std::span<const Fp16> values, ScaleMode mode) {
  double acc = 0;
  size_t n = 0;
  for (const Fp16 x : values) {
    if (is_nan(x) || is_inf(x)) continue;
    const double v = to_double(x);
    acc = mode == ScaleMode::kRms ? acc + v * v : std::max(acc, std::fabs(v));
    ++n;
  }
  if (n == 0) return fp16_from_double(1.0);
  const Fp16 s = fp16_from_double(mode == ScaleMode::kRms ? std::sqrt(acc / double(n)) : acc);
  if (is_inf(s) || to_double(s) == 0) return fp16_from_double(1.0);
  return s;
}

Fp16 normalize(Fp16 x, Fp16 scale) { return fp16_from_double(to_double(x) / to_double(scale)); }

QuantizedWeights quantize_weights(std::span<const Fp16> w, int rows, int channels,
                                  const WeightQuantOptions& o) {
  if (rows < 1 || channels < 1 || w.size() != size_t(rows) * size_t(channels)) {
    throw std::invalid_argument(
        fmt::format("weights: {} values for {} rows of {} channels", w.size(), rows, channels));
  }
  if (o.bits < 1 || o.bits > 8) {
    throw std::invalid_argument(fmt::format("weight bits {}; allowed: 1..8", o.bits));
  }
  for (size_t i = 0; i < w.size(); ++i) {
    if (is_nan(w[i]) || is_inf(w[i])) {
      throw std::invalid_argument(
          fmt::format("weights: element {} (row {}, channel {}) is not "
                      "finite",
                      i, i / size_t(channels), i % size_t(channels)));
    }
  }
  QuantizedWeights q;
  q.rows = rows;
  q.channels = channels;
  q.bits = o.bits;
  std::vector<double> norm(w.size());
  for (int n = 0; n < rows; ++n) {
    const auto row = w.subspan(size_t(n) * size_t(channels), size_t(channels));
    q.scales.push_back(row_scale(row, o.scale));
    const double s = to_double(q.scales.back());
    for (int k = 0; k < channels; ++k) {
      norm[size_t(n) * size_t(channels) + size_t(k)] = to_double(row[size_t(k)]) / s;
    }
  }
  const KMeansResult km = codebook_kmeans(o.symmetric, o.method, norm, {}, 1 << o.bits, o.seed);
  for (const double c : km.centroids) q.codebook.push_back(fp16_from_double(c));
  q.kmeans_cost = km.cost;
  q.kmeans_iterations = km.iterations;
  q.indices.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    q.indices[i] = uint8_t(nearest_centroid(norm[i], q.codebook));
  return q;
}

void validate_quantized_weights(const QuantizedWeights& q, const std::string& origin) {
  if (q.bits < 1 || q.bits > 8 || q.codebook.size() != (size_t(1) << q.bits)) {
    throw std::invalid_argument(
        fmt::format("{}: weight codebook has {} entries; allowed: 2^nW with nW in 1..8", origin,
                    q.codebook.size()));
  }
  for (size_t j = 0; j < q.codebook.size(); ++j) {
    if (is_nan(q.codebook[j]) || is_inf(q.codebook[j])) {
      throw std::invalid_argument(fmt::format("{}: weight centroid {} is not finite", origin, j));
    }
  }
  if (q.scales.size() != size_t(q.rows)) {
    throw std::invalid_argument(
        fmt::format("{}: {} scales for {} rows", origin, q.scales.size(), q.rows));
  }
  // quantize_weights writes a row's RMS or largest magnitude, 1 for a row of zeros: a scale that
  // is not a finite number above zero comes from elsewhere, and would scale the row's outputs
  // into NaN, zero or the wrong sign.
  for (size_t r = 0; r < q.scales.size(); ++r) {
    const double s = to_double(q.scales[r]);
    if (!(s > 0) || is_inf(q.scales[r])) {
      throw std::invalid_argument(fmt::format(
          "{}: weight scale of row {} is {}; allowed: a finite number above zero", origin, r, s));
    }
  }
  if (q.indices.size() != size_t(q.rows) * size_t(q.channels)) {
    throw std::invalid_argument(fmt::format("{}: {} indices for {} x {} weights", origin,
                                            q.indices.size(), q.rows, q.channels));
  }
  for (size_t i = 0; i < q.indices.size(); ++i) {
    if (q.indices[i] >= q.codebook.size()) {
      throw std::invalid_argument(fmt::format("{}: weight index {} is {}; allowed: 0..{}", origin,
                                              i, q.indices[i], q.codebook.size() - 1));
    }
  }
}

ActCalibration calibrate_activations(std::span<const Fp16> x, int tokens, int channels,
                                     std::span<const double> fisher,
                                     const ActCalibrationOptions& o) {
  if (tokens < 1 || channels < 2 || x.size() != size_t(tokens) * size_t(channels)) {
    throw std::invalid_argument(
        fmt::format("calibration activations: {} values for {} tokens of {} channels", x.size(),
                    tokens, channels));
  }
  if (!fisher.empty() && fisher.size() != x.size()) {
    throw std::invalid_argument(
        fmt::format("calibration weights: {} values for {} activations", fisher.size(), x.size()));
  }
  if (o.bits < 1 || o.bits > 8) {
    throw std::invalid_argument(fmt::format("activation bits {}; allowed: 1..8", o.bits));
  }
  if (o.outliers_per_side < 0 || 2 * o.outliers_per_side > channels) {
    throw std::invalid_argument(fmt::format("outliers per side {}; allowed: 0 .. channels / 2 ({})",
                                            o.outliers_per_side, channels / 2));
  }
  std::vector<double> values, weights;
  std::vector<Fp16> xhat(static_cast<size_t>(channels));
  std::vector<char> skip(static_cast<size_t>(channels));
  for (int t = 0; t < tokens; ++t) {
    const auto token = x.subspan(size_t(t) * size_t(channels), size_t(channels));
    const Fp16 s = row_scale(token, o.scale);
    for (int k = 0; k < channels; ++k) xhat[size_t(k)] = normalize(token[size_t(k)], s);
    std::fill(skip.begin(), skip.end(), 0);
    if (o.outliers_per_side > 0) {
      for (const Outlier& out : orizuru_topk(xhat, o.outliers_per_side))
        skip[size_t(out.channel)] = 1;
    }
    for (int k = 0; k < channels; ++k) {
      const Fp16 v = xhat[size_t(k)];
      if (skip[size_t(k)] || is_nan(v) || is_inf(v)) continue;
      values.push_back(to_double(v));
      if (!fisher.empty()) weights.push_back(fisher[size_t(t) * size_t(channels) + size_t(k)]);
    }
  }
  const KMeansResult km =
      codebook_kmeans(o.symmetric, o.method, values, weights, 1 << o.bits, o.seed);
  ActCalibration c;
  for (const double v : km.centroids) c.codebook.push_back(fp16_from_double(v));
  c.kmeans_cost = km.cost;
  c.kmeans_iterations = km.iterations;
  c.samples = values.size();
  try {
    cluster_boundaries(c.codebook);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("calibration gave an unusable codebook: {}", e.what()));
  }
  return c;
}

IntQuantized quantize_int_rtn(std::span<const Fp16> x, int rows, int channels, int bits) {
  if (rows < 1 || channels < 1 || x.size() != size_t(rows) * size_t(channels)) {
    throw std::invalid_argument(
        fmt::format("INT quantisation: {} values for {} x {}", x.size(), rows, channels));
  }
  if (bits < 2 || bits > 16) {
    throw std::invalid_argument(fmt::format("INT quantisation: {} bits; allowed: 2..16", bits));
  }
  const double qmax = double((1 << (bits - 1)) - 1);
  IntQuantized q;
  q.rows = rows;
  q.channels = channels;
  q.q.resize(x.size());
  for (int r = 0; r < rows; ++r) {
    double amax = 0;
    for (int k = 0; k < channels; ++k) {
      const Fp16 v = x[size_t(r) * size_t(channels) + size_t(k)];
      if (!is_nan(v) && !is_inf(v)) amax = std::max(amax, std::fabs(to_double(v)));
    }
    const double scale = amax > 0 ? amax / qmax : 1.0;
    q.scales.push_back(scale);
    for (int k = 0; k < channels; ++k) {
      const size_t i = size_t(r) * size_t(channels) + size_t(k);
      const double v = to_double(x[i]);
      const double t = std::isnan(v) ? 0.0 : std::clamp(std::nearbyint(v / scale), -qmax, qmax);
      q.q[i] = int(t);
    }
  }
  return q;
}

}  // namespace oasis
