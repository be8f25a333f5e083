// SPDX-License-Identifier: Apache-2.0
// Codebooks symmetric about zero (docs/spec.md section 1, Symmetric codebooks) made from
// random centroids, for the tests and testbenches of codebooks: symmetric.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis::test {

/// Centroid 2^n - 1 - i made centroid i negated, for i in the lower half: a codebook
/// symmetric about zero when the lower half is.
inline void mirror_codebook(std::vector<Fp16>& cb) {
  for (size_t i = 0; i < cb.size() / 2; ++i) {
    cb[cb.size() - 1 - i] = Fp16{uint16_t(cb[i].bits ^ 0x8000u)};
  }
}

/// Random centroids made an ascending codebook symmetric about zero: the lower half
/// negated, all sorted ascending, then the upper half the lower half mirrored.
inline void make_symmetric_ascending(std::vector<Fp16>& cb) {
  for (size_t i = 0; i < cb.size() / 2; ++i) cb[i].bits |= 0x8000u;
  std::sort(cb.begin(), cb.end(), [](Fp16 a, Fp16 b) { return to_double(a) < to_double(b); });
  mirror_codebook(cb);
}

}  // namespace oasis::test
