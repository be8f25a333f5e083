// SPDX-License-Identifier: Apache-2.0
// Online activation clustering (docs/spec.md section 4), the functional rule shared by
// the golden model, the Clustering Unit's cycle model and its RTL.
#pragma once

#include <span>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

/// Boundaries b_j = the midpoint of C_A[j] and C_A[j+1], computed exactly
/// (in double, where the sum of two binary16 values is exact) and rounded
/// once to binary16, to nearest even. Throws std::invalid_argument, naming
/// the first offending pair, when the codebook
/// is not strictly ascending or the boundaries are not (two centroids one
/// binary16 ulp apart can give equal boundaries), or a centroid is NaN/Inf.
std::vector<Fp16> cluster_boundaries(std::span<const Fp16> codebook);

/// ia = number of boundaries b_j with x >= b_j under the order key: a value
/// equal to a boundary goes up, NaN goes to the top cluster.
int cluster_index(Fp16 x, std::span<const Fp16> boundaries);

/// cluster_index with the boundaries' order keys computed once, for a whole token.
class ClusterIndex {
 public:
  explicit ClusterIndex(std::span<const Fp16> boundaries);
  int operator()(Fp16 x) const;

 private:
  std::vector<uint32_t> keys_;
};

}  // namespace oasis
