// SPDX-License-Identifier: Apache-2.0
// The sorting-network baseline for Orizuru (block topk_sort_baseline,
// gen/baselines.cpp): the token's channels sorted by a bitonic network under
// Orizuru's strict order, the k first and the k last of the sorted order
// taken as the max and min outliers. Same outputs as orizuru_topk, by a
// different algorithm: docs/synth.md, "Baselines".
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/cycle/orizuru.hpp"
#include "model/numerics/fp.hpp"

namespace oasis {

/// One compare-exchange: afterwards position `hi` holds the higher-ranked of
/// the two records and `lo` the other.
struct CompareExchange {
  int hi = 0, lo = 0;
  friend bool operator==(const CompareExchange&, const CompareExchange&) = default;
};

/// Bitonic sorting network over n positions (n a power of two, >= 1), stage
/// by stage, that leaves position 0 the highest ranked. Stage (b, j) for
/// b = 2, 4, ..., n and j = b/2, b/4, ..., 1 pairs i with i + j for every i
/// with (i & j) == 0; the pair sorts descending (hi = i) when (i & b) == 0,
/// ascending (hi = i + j) otherwise. log2(n)(log2(n)+1)/2 stages of n/2.
std::vector<std::vector<CompareExchange>> bitonic_network(int n);

/// A record of the network: a leaf's value and channel, and whether it holds
/// a channel at all (padding up to the network's size does not).
struct SortRecord {
  Fp16 value;
  int channel = 0;
  bool avail = false;
};

/// Orizuru's strict order over records: a ranks above b iff a is a channel
/// and b is not, or both are and a's order key is greater, or the keys are
/// equal and a's channel is lower. Padding never ranks above anything.
bool ranks_above(const SortRecord& a, const SortRecord& b);

/// The k largest and k smallest of x by the network, in Orizuru's output
/// order max_1, min_1, max_2, ...: the records padded with unavailable ones
/// to the next power of two, sorted, max_i at position i - 1 and min_i at
/// position N - i. Requires 1 <= k and 2k <= N; throws std::invalid_argument
/// otherwise. `compare_exchanges`, if given, receives the network's size.
std::vector<Outlier> sort_network_topk(std::span<const Fp16> x, int k,
                                       int64_t* compare_exchanges = nullptr);

/// Compare-exchanges of the bitonic network over n records padded to the
/// next power of two p: p/2 * log2(p)(log2(p)+1)/2.
int64_t bitonic_compare_exchanges(int n);

}  // namespace oasis
