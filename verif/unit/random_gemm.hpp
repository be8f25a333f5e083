// SPDX-License-Identifier: Apache-2.0
// Random LUT-GEMM set-ups for the tests of the core and of the performance
// model: codebooks, activations and scales of moderate binary16 values (no
// overflow in the LUT), random weight indices.
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

namespace oasis::test {

/// A binary16 value of either sign with exponent 9..21 (about 2^-6 to 2^6).
inline Fp16 moderate(std::mt19937_64& rng) {
  const uint16_t exp = uint16_t(9 + rng() % 13);
  return Fp16{uint16_t(((rng() & 1) << 15) | (exp << 10) | (rng() & 0x3FF))};
}

/// A LutGemm with random sorted activation centroids and random weight
/// centroids (with codebooks: symmetric, both mirrored about zero), drawn again until the
/// config accepts them.
inline LutGemm random_gemm(const Config& c, std::mt19937_64& rng) {
  const bool symmetric = c.codebooks == Codebooks::kSymmetric;
  for (;;) {
    std::vector<Fp16> ca(size_t(1) << c.act_bits), cw(size_t(1) << c.weight_bits);
    for (auto& v : ca) v = moderate(rng);
    if (symmetric) {
      make_symmetric_ascending(ca);
    } else {
      std::sort(ca.begin(), ca.end(), [](Fp16 a, Fp16 b) { return to_double(a) < to_double(b); });
    }
    for (auto& v : cw) v = moderate(rng);
    if (symmetric) mirror_codebook(cw);
    try {
      return LutGemm(LutGemmParams::from_config(c), ca, cw);
    } catch (const std::invalid_argument&) {
    }
  }
}

/// Random inputs of a GEMM through the core: tokens of moderate activations
/// with their scales, and weight rows of random indices with their scales.
struct RandomInputs {
  std::vector<std::vector<Fp16>> x;      ///< [token][channel]
  std::vector<Fp16> sa;                  ///< [token]
  std::vector<std::vector<uint8_t>> iw;  ///< [row][channel]
  std::vector<Fp16> sw;                  ///< [row]
};

/// Draws `tokens` tokens, then `rows` weight rows (in that order, so a seed
/// gives the same inputs to every test that uses it).
inline RandomInputs random_inputs(const Config& c, int64_t tokens, int64_t rows,
                                  std::mt19937_64& rng) {
  RandomInputs in;
  in.x.assign(size_t(tokens), std::vector<Fp16>(size_t(c.channels)));
  in.sa.resize(size_t(tokens));
  for (auto& t : in.x) {
    for (auto& v : t) v = moderate(rng);
  }
  for (auto& s : in.sa) s = moderate(rng);
  in.iw.assign(size_t(rows), std::vector<uint8_t>(size_t(c.channels)));
  in.sw.resize(size_t(rows));
  for (auto& r : in.iw) {
    for (auto& v : r) v = uint8_t(rng() % (1u << c.weight_bits));
  }
  for (auto& s : in.sw) s = moderate(rng);
  return in;
}

}  // namespace oasis::test
