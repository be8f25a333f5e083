// SPDX-License-Identifier: Apache-2.0
// Orizuru, the two-fold top-k tree of paper IV-D, as an algorithm (docs/spec.md
// section 5): the order of outputs, the tie and availability rules, and a
// count of every comparison. The RTL's cycle model builds on it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

/// One outlier as Orizuru outputs it.
struct Outlier {
  bool min_side = false;  ///< false: from the max tree (largest), true: min tree
  Fp16 value;             ///< the activation, as stored in the leaf
  int channel = 0;        ///< its index in the token, 0-based
  friend bool operator==(const Outlier&, const Outlier&) = default;
};

struct OrizuruStats {
  /// FP16 comparisons, build and maintenance. The tree is padded to the next
  /// power of two with unavailable leaves; a node whose right subtree holds
  /// only padding has no comparator, so there are N - 1. Building costs
  /// N - 1 (max tree) + N - 1 - floor(N/2) (min tree: its leaf level reuses
  /// the max tree's comparisons, reversed); each pop costs the comparators on
  /// the popped leaf's path, at most ceil(log2 N). For N a power of two that
  /// is exactly 1.5N - 2 + 2k*log2(N) (every pop is maintained, the last
  /// too, as the hardware does).
  uint64_t comparisons = 0;
};

/// The k largest and the k smallest of x, in the order max_1, min_1, max_2,
/// min_2, ... (2k entries). Requires 1 <= k and 2k <= x.size(); throws
/// std::invalid_argument otherwise. Ties: the max side takes the lower
/// channel first, the min side the higher channel first, so both sides are
/// the two ends of one strict order (by order key; among equal keys the
/// lower channel ranks higher) and never share a channel. NaN (any sign or
/// payload) is above +Inf, -0 equals +0 (the order key); the value output is
/// the leaf's bits as given. Popped channels are unavailable and lose to any
/// available one, so several -Inf each come out once.
std::vector<Outlier> orizuru_topk(std::span<const Fp16> x, int k, OrizuruStats* stats = nullptr);

}  // namespace oasis
