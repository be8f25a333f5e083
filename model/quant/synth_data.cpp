// SPDX-License-Identifier: Apache-2.0
#include "model/quant/synth_data.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace oasis {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

uint64_t Rng::below(uint64_t n) { return n == 0 ? 0 : uint64_t(uniform() * double(n)) % n; }

double Rng::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::student_t(int dof) {
  double chi2 = 0;
  for (int i = 0; i < dof; ++i) {
    const double z = normal();
    chi2 += z * z;
  }
  return normal() / std::sqrt(chi2 / dof);
}

std::vector<Fp16> synthetic_activations(const SyntheticActivationSpec& spec, uint64_t seed) {
  if (spec.tokens < 1 || spec.channels < 2) {
    throw std::invalid_argument("synthetic activations: need at least 1 token and 2 channels");
  }
  Rng rng(seed);
  const int k = spec.channels;
  // Per-channel gains: log-normal, as channel magnitudes differ in LLMs.
  std::vector<double> gain(static_cast<size_t>(k));
  for (double& g : gain) g = std::exp(0.3 * rng.normal());
  // A few outlier channels with a fixed sign each (massive activations).
  const int n_out =
      spec.outlier_channels > 0 ? std::min(spec.outlier_channels, k) : std::max(1, k / 256);
  std::vector<double> out_gain(size_t(k), 0.0);
  for (int placed = 0; placed < n_out;) {
    const size_t c = size_t(rng.below(uint64_t(k)));
    if (out_gain[c] != 0.0) continue;
    out_gain[c] = (rng.uniform() < 0.5 ? -1.0 : 1.0) * spec.outlier_gain * (0.5 + rng.uniform());
    ++placed;
  }
  std::vector<Fp16> x(size_t(spec.tokens) * size_t(k));
  for (int t = 0; t < spec.tokens; ++t) {
    const double token_gain = std::exp(0.25 * rng.normal());
    for (int c = 0; c < k; ++c) {
      double v = rng.student_t(5) * gain[size_t(c)] * 0.7;
      if (out_gain[size_t(c)] != 0.0) {
        v = out_gain[size_t(c)] * (0.8 + 0.4 * rng.uniform()) + v;
      } else if (rng.uniform() < spec.spike_rate) {
        v *= 10.0;
      }
      x[size_t(t) * size_t(k) + size_t(c)] = fp16_from_double(v * token_gain);
    }
  }
  return x;
}

std::vector<Fp16> synthetic_weights(int rows, int channels, uint64_t seed) {
  if (rows < 1 || channels < 1) {
    throw std::invalid_argument("synthetic weights: need at least 1 row and 1 channel");
  }
  Rng rng(seed);
  std::vector<Fp16> w(size_t(rows) * size_t(channels));
  for (int n = 0; n < rows; ++n) {
    const double row_gain = 0.02 * std::exp(0.2 * rng.normal());
    for (int c = 0; c < channels; ++c) {
      w[size_t(n) * size_t(channels) + size_t(c)] = fp16_from_double(row_gain * rng.normal());
    }
  }
  return w;
}

}  // namespace oasis
