// SPDX-License-Identifier: Apache-2.0
// Seeded synthetic LLM-like tensors for tests, benchmarks and the demo: a
// token's activations have a heavy-tailed bulk (Student t, 5 degrees of
// freedom) with per-channel gains, plus a few channels carrying large
// outliers, as in the massive-activation channels of real LLMs; weights are
// bell-shaped (normal) with per-row gains. The generator is written out here
// (splitmix64 and Box-Muller), not taken from <random>, so a seed gives the
// same tensors with every standard library.
#pragma once

#include <cstdint>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

/// A small deterministic generator: splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  /// Uniform in [0, 1), 53 bits.
  double uniform();
  /// Uniform integer in [0, n).
  uint64_t below(uint64_t n);
  /// Standard normal (Box-Muller, one of the pair used).
  double normal();
  /// Student t with `dof` (integer) degrees of freedom.
  double student_t(int dof);

 private:
  uint64_t state_;
};

struct SyntheticActivationSpec {
  int tokens = 16;
  int channels = 128;
  /// Channels that carry large outliers; 0 means max(1, channels / 256).
  int outlier_channels = 0;
  /// Magnitude of those outliers relative to the bulk's RMS.
  double outlier_gain = 40.0;
  /// Probability that an ordinary activation is a sporadic spike.
  double spike_rate = 0.001;
};

/// tokens x channels activations (row-major), rounded to binary16.
std::vector<Fp16> synthetic_activations(const SyntheticActivationSpec& spec, uint64_t seed);

/// rows x channels weights (row-major), bell-shaped, rounded to binary16.
std::vector<Fp16> synthetic_weights(int rows, int channels, uint64_t seed);

}  // namespace oasis
