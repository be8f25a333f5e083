// Orizuru, the two-fold top-k tree of paper IV-D, as an algorithm (SPEC
// section 5): the order of outputs, the tie and availability rules, and a
// count of every comparison. The RTL's cycle model builds on it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/fp.hpp"

namespace oasis {

/// One outlier as Orizuru outputs it.
struct Outlier {
  bool min_side = false;  ///< false: from the max tree (largest), true: min tree
  Fp16 value;             ///< the activation, as stored in the leaf
  int channel = 0;        ///< its index in the token, 0-based
  friend bool operator==(const Outlier&, const Outlier&) = default;
};

struct OrizuruStats {
  uint64_t comparisons = 0;  ///< FP16 comparisons, build and maintenance
};

/// The k largest and the k smallest of x, in the order max_1, min_1, max_2,
/// min_2, ... (2k entries). Requires 1 <= k and 2k <= x.size(); throws
/// std::invalid_argument otherwise. Ties: the max side takes the lower
/// channel first, the min side the higher channel first, so both sides are
/// the two ends of one strict order (value, then channel) and never share a
/// channel. NaN is above +Inf, -0 equals +0 (the order key).
std::vector<Outlier> orizuru_topk(std::span<const Fp16> x, int k, OrizuruStats* stats = nullptr);

}  // namespace oasis
