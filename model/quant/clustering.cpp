// SPDX-License-Identifier: Apache-2.0
#include "model/quant/clustering.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace oasis {

std::vector<Fp16> cluster_boundaries(std::span<const Fp16> codebook) {
  if (codebook.size() < 2 || (codebook.size() & (codebook.size() - 1)) != 0) {
    throw std::invalid_argument(
        fmt::format("activation codebook: found {} centroids; allowed: a power of two, at least 2",
                    codebook.size()));
  }
  for (size_t j = 0; j < codebook.size(); ++j) {
    if (is_nan(codebook[j]) || is_inf(codebook[j])) {
      throw std::invalid_argument(
          fmt::format("activation codebook: centroid {} is 0x{:04x}; allowed: finite values", j,
                      codebook[j].bits));
    }
  }
  std::vector<Fp16> b;
  for (size_t j = 0; j + 1 < codebook.size(); ++j) {
    if (compare(codebook[j], codebook[j + 1]) >= 0) {
      throw std::invalid_argument(fmt::format(
          "activation codebook: centroids {} and {} (0x{:04x}, 0x{:04x}) are not strictly "
          "ascending",
          j, j + 1, codebook[j].bits, codebook[j + 1].bits));
    }
    b.push_back(fp16_from_double((to_double(codebook[j]) + to_double(codebook[j + 1])) / 2));
    if (j > 0 && compare(b[j - 1], b[j]) >= 0) {
      throw std::invalid_argument(fmt::format(
          "activation codebook: boundaries {} and {} are both 0x{:04x} after rounding to "
          "binary16; centroids {}..{} are too close; allowed: strictly ascending boundaries",
          j - 1, j, b[j].bits, j - 1, j + 1));
    }
  }
  return b;
}

namespace {

// The rule of cluster_index: the boundaries whose order key is at or below x's.
template <class Boundaries, class KeyOf>
int boundaries_at_or_below(Fp16 x, const Boundaries& boundaries, const KeyOf& key_of) {
  const uint32_t key = order_key(x);
  int n = 0;
  for (const auto& b : boundaries) n += key >= key_of(b) ? 1 : 0;
  return n;
}

}  // namespace

int cluster_index(Fp16 x, std::span<const Fp16> boundaries) {
  return boundaries_at_or_below(x, boundaries, order_key);
}

ClusterIndex::ClusterIndex(std::span<const Fp16> boundaries) {
  for (const Fp16 b : boundaries) keys_.push_back(order_key(b));
}

int ClusterIndex::operator()(Fp16 x) const {
  return boundaries_at_or_below(x, keys_, [](uint32_t key) { return key; });
}

}  // namespace oasis
