// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/clustering_unit.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "model/quant/clustering.hpp"

namespace oasis {

int binary_search_boundary(int act_bits, int level, int prefix) {
  const int span = 1 << (act_bits - level);  // clusters still possible
  return prefix * span + span / 2 - 1;
}

int cluster_index_binary_search(Fp16 x, std::span<const Fp16> boundaries, int* comparisons) {
  const size_t entries = boundaries.size() + 1;
  if (entries < 2 || (entries & (entries - 1)) != 0) {
    throw std::invalid_argument(fmt::format(
        "cluster_index_binary_search: found {} boundaries; allowed: 2^nA - 1", boundaries.size()));
  }
  const int levels = clog2(int64_t(entries));
  int prefix = 0;
  for (int l = 0; l < levels; ++l) {
    const int j = binary_search_boundary(levels, l, prefix);
    prefix = (prefix << 1) | (compare(x, boundaries[size_t(j)]) >= 0 ? 1 : 0);
    if (comparisons) ++*comparisons;
  }
  return prefix;
}

ClusteringUnit::ClusteringUnit(const Config& c)
    : lanes_(c.clustering_lanes),
      valid_(size_t(derive(c).clustering_unit.stages), false),
      data_(valid_.size(), std::vector<int>(size_t(c.clustering_lanes), 0)) {}

void ClusteringUnit::reset() {
  for (size_t s = 0; s < valid_.size(); ++s) {
    valid_[s] = false;
    std::fill(data_[s].begin(), data_[s].end(), 0);
  }
}

bool ClusteringUnit::act_ready(bool idx_ready) const {
  // Stage s takes a new beat when it is empty or its beat moves on.
  bool ready = idx_ready;
  for (size_t s = valid_.size(); s-- > 0;) ready = !valid_[s] || ready;
  return ready;
}

bool ClusteringUnit::idx_valid() const { return valid_.back(); }

const std::vector<int>& ClusteringUnit::idx_data() const { return data_.back(); }

bool ClusteringUnit::busy() const {
  for (const bool v : valid_) {
    if (v) return true;
  }
  return false;
}

void ClusteringUnit::clock(bool act_valid, std::span<const Fp16> act,
                           std::span<const Fp16> boundaries, bool idx_ready) {
  const size_t n = valid_.size();
  std::vector<bool> ready(n + 1);
  ready[n] = idx_ready;
  for (size_t s = n; s-- > 0;) ready[s] = !valid_[s] || ready[s + 1];
  // Last stage first, so each stage reads its predecessor's old contents.
  for (size_t s = n; s-- > 0;) {
    if (!ready[s]) continue;
    const bool in_valid = s == 0 ? act_valid : bool(valid_[s - 1]);
    valid_[s] = in_valid;
    if (!in_valid) continue;
    if (s == 0) {
      if (act.size() != size_t(lanes_)) {
        throw std::invalid_argument(fmt::format(
            "ClusteringUnit::clock: found {} activations; allowed: clustering_lanes = {}",
            act.size(), lanes_));
      }
      for (int i = 0; i < lanes_; ++i)
        data_[0][size_t(i)] = cluster_index(act[size_t(i)], boundaries);
    } else {
      data_[s] = data_[s - 1];
    }
  }
}

}  // namespace oasis
