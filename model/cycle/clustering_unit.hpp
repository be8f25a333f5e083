// SPDX-License-Identifier: Apache-2.0
// The Clustering Unit's cycle model (paper IV-C, docs/spec.md section 4): what the
// generated RTL (gen/clustering_unit.cpp) does cycle by cycle, with the
// functional rule taken from model/quant/clustering.hpp.
//
// The unit is an elastic pipeline of ceil(nA / clustering_levels_per_stage)
// register stages (Derived::clustering_unit, model/derived.hpp); each stage
// resolves up to clustering_levels_per_stage levels of the binary search
// (one comparison per lane and level). A beat of clustering_lanes
// activations is accepted when act_valid && act_ready and its indices are
// presented `latency` cycles later; with no backpressure one
// beat is accepted and one presented every cycle. docs/clustering_unit.md.
#pragma once

#include <span>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"

namespace oasis {

/// The boundary that level `level` (0 = first) of the binary search over
/// 2^act_bits clusters compares with when the levels before resolved the index
/// prefix `prefix`: j = p * 2^(nA-l) + 2^(nA-l-1) - 1.
int binary_search_boundary(int act_bits, int level, int prefix);

/// The binary search the RTL performs, level by level: level l compares x
/// with boundary binary_search_boundary(nA, l, p), where p is the index prefix
/// resolved by the levels before, and appends (x >= b_j) under the order key
/// as the next index bit. Equal to cluster_index() for every
/// x and strictly ascending boundaries (verif/unit/test_clustering_unit.cpp
/// checks all 2^16 values). `comparisons`, when given, is increased by the
/// comparisons made (always nA).
int cluster_index_binary_search(Fp16 x, std::span<const Fp16> boundaries,
                                int* comparisons = nullptr);

/// Cycle model. Per cycle: set the inputs, read the outputs (which, as in
/// the RTL, may depend combinationally on idx_ready), then clock().
class ClusteringUnit {
 public:
  explicit ClusteringUnit(const Config& config);

  /// Empties the pipeline (asynchronous reset).
  void reset();

  /// act_ready_o for this cycle, given the consumer's idx_ready_i.
  bool act_ready(bool idx_ready) const;
  bool idx_valid() const;
  /// The presented beat: one index per lane (meaningful when idx_valid()).
  const std::vector<int>& idx_data() const;
  /// Some stage holds a beat (busy_o): boundaries must not change.
  bool busy() const;

  /// The clock edge. `act` has clustering_lanes values (read only when
  /// act_valid); `boundaries` has 2^nA - 1 values.
  void clock(bool act_valid, std::span<const Fp16> act, std::span<const Fp16> boundaries,
             bool idx_ready);

  int stages() const { return int(valid_.size()); }

 private:
  int lanes_;
  std::vector<bool> valid_;             ///< per stage
  std::vector<std::vector<int>> data_;  ///< per stage, per lane: the final index
};

}  // namespace oasis
