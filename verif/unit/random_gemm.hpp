// Random LUT-GEMM set-ups for the tests of the core and of the performance
// model: codebooks of moderate binary16 values (no overflow in the LUT).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "model/config.hpp"
#include "model/fp.hpp"
#include "model/lut_gemm.hpp"

namespace oasis::test {

/// A binary16 value of either sign with exponent 9..21 (about 2^-6 to 2^6).
inline Fp16 moderate(std::mt19937_64& rng) {
  const uint16_t exp = uint16_t(9 + rng() % 13);
  return Fp16{uint16_t(((rng() & 1) << 15) | (exp << 10) | (rng() & 0x3FF))};
}

/// A LutGemm with random sorted activation centroids and random weight
/// centroids, drawn again until the config accepts them.
inline LutGemm random_gemm(const Config& c, std::mt19937_64& rng) {
  for (;;) {
    std::vector<Fp16> ca(size_t(1) << c.act_bits), cw(size_t(1) << c.weight_bits);
    for (auto& v : ca) v = moderate(rng);
    std::sort(ca.begin(), ca.end(), [](Fp16 a, Fp16 b) { return to_double(a) < to_double(b); });
    for (auto& v : cw) v = moderate(rng);
    try {
      return LutGemm(LutGemmParams::from_config(c), ca, cw);
    } catch (const std::invalid_argument&) {
    }
  }
}

}  // namespace oasis::test
