// SPDX-License-Identifier: Apache-2.0
// Random layers for the testbenches of the core and of the system wrapper: binary16 values of
// moderate size and random codebooks (activation centroids ascending, valid boundaries;
// symmetric about zero with codebooks: symmetric), the LUT-GEMM they make.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/codebooks.hpp"

namespace oasis::tb {

/// `width` random bits (the harness's random_bits on the same generator).
inline uint64_t random_bits(std::mt19937_64& rng, int width) {
  const uint64_t r = rng();
  return width >= 64 ? r : (r & ((uint64_t{1} << width) - 1));
}

/// A binary16 value of moderate size (2^-6 .. 2^6), either sign.
inline Fp16 moderate(std::mt19937_64& rng) {
  const uint16_t exp = uint16_t(9 + random_bits(rng, 4) % 13);
  return Fp16{uint16_t((random_bits(rng, 1) << 15) | (exp << 10) | random_bits(rng, 10))};
}

/// A layer's random codebooks and the LUT-GEMM of them: moderate centroids, C_A ascending (drawn
/// again while two boundaries are equal); with `special`, C_W holds a zero and a subnormal.
inline LutGemm random_gemm(const Config& config, std::mt19937_64& rng, bool special) {
  const bool symmetric = config.codebooks == Codebooks::kSymmetric;
  for (;;) {
    std::vector<Fp16> ca(size_t(1) << config.act_bits), cw(size_t(1) << config.weight_bits);
    for (auto& v : ca) v = moderate(rng);
    if (symmetric) {
      test::make_symmetric_ascending(ca);
    } else {
      std::sort(ca.begin(), ca.end(), [](Fp16 a, Fp16 b) { return to_double(a) < to_double(b); });
    }
    for (auto& v : cw) v = moderate(rng);
    if (special) {
      cw[0] = Fp16{0x0000};
      cw[1] = Fp16{0x8001};  // a subnormal
    }
    if (symmetric) test::mirror_codebook(cw);
    try {
      return LutGemm(LutGemmParams::from_config(config), ca, cw);
    } catch (const std::invalid_argument&) {
      continue;  // equal neighbours: draw again
    }
  }
}

}  // namespace oasis::tb
