// SPDX-License-Identifier: Apache-2.0
// Orizuru as an algorithm (docs/spec.md section 5, paper IV-D).
//
// The tree is a heap-numbered complete binary tree over Np = 2^ceil(log2 N)
// leaves (node 1 is the root, node v has children 2v and 2v+1, leaf of
// channel c is node Np + c). Channels N .. Np-1 are padding: unavailable from
// the start. A node whose right subtree holds no real channel has no
// comparator (its winner is its left child's, a wire in the RTL); every other
// node has one, N - 1 in all.
//
// Each side keeps, per node, the leaf that wins its subtree (the paper keeps
// one bit per node pointing at the winning child; following those bits from
// the node gives this leaf) and a mask of available channels.
//   max side: right wins iff it is available and (left is not, or
//             key(right) > key(left)); ties go left, to the lower channel.
//   min side: right wins iff it is available and (left is not, or
//             key(right) <= key(left)); ties go right, to the higher channel.
// At the leaf level the min side's bit is the max side's bit reversed (the
// comparison is made once), which is exactly the rule above when both leaves
// are available.
#include "model/cycle/orizuru.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace oasis {
namespace {

constexpr int kNone = -1;

class TwoFoldTree {
 public:
  TwoFoldTree(std::span<const Fp16> x, OrizuruStats* stats)
      : x_(x), n_(int(x.size())), stats_(stats) {
    np_ = 2;
    while (np_ < n_) np_ *= 2;
    for (int side = 0; side < 2; ++side) {
      win_[side].assign(size_t(2 * np_), kNone);
      avail_[side].assign(size_t(np_), 0);
      for (int c = 0; c < n_; ++c) {
        avail_[side][size_t(c)] = 1;
        win_[side][size_t(np_ + c)] = c;
      }
    }
    // Leaf level: one comparison per comparator node serves both sides.
    for (int v = np_ / 2; v < np_; ++v) {
      const int l = win_[0][size_t(2 * v)];
      const int r = win_[0][size_t(2 * v + 1)];
      if (r == kNone) {
        win_[0][size_t(v)] = win_[1][size_t(v)] = l;
        continue;
      }
      count();
      const bool right_greater = order_key(x_[size_t(r)]) > order_key(x_[size_t(l)]);
      win_[0][size_t(v)] = right_greater ? r : l;
      win_[1][size_t(v)] = right_greater ? l : r;  // reversed: ties go right
    }
    // Upper levels, bottom-up, each side on its own.
    for (int side = 0; side < 2; ++side) {
      for (int v = np_ / 2 - 1; v >= 1; --v) update(side, v);
    }
  }

  /// Pops the winner of one side and maintains the popped path.
  Outlier pop(int side) {
    const int c = win_[side][1];
    if (c == kNone) throw std::logic_error("orizuru: popped an empty tree");
    avail_[side][size_t(c)] = 0;
    for (int v = (np_ + c) / 2; v >= 1; v /= 2) update(side, v);
    return Outlier{side == 1, x_[size_t(c)], c};
  }

 private:
  bool has_comparator(int v) const {
    // Leftmost leaf of v's right subtree; real iff its channel is below N.
    int u = 2 * v + 1;
    while (u < np_) u *= 2;
    return u - np_ < n_;
  }

  int available_winner(int side, int v) const {
    const int w = win_[side][size_t(v)];
    return (w != kNone && avail_[side][size_t(w)]) ? w : kNone;
  }

  void update(int side, int v) {
    if (v >= np_) return;
    const int l = available_winner(side, 2 * v);
    const int r = available_winner(side, 2 * v + 1);
    if (!has_comparator(v)) {
      win_[side][size_t(v)] = l;
      return;
    }
    count();
    bool right_wins;
    if (r == kNone) {
      right_wins = false;
    } else if (l == kNone) {
      right_wins = true;
    } else {
      const uint32_t kl = order_key(x_[size_t(l)]);
      const uint32_t kr = order_key(x_[size_t(r)]);
      right_wins = side == 0 ? kr > kl : kr <= kl;
    }
    win_[side][size_t(v)] = right_wins ? r : l;
  }

  void count() {
    if (stats_) ++stats_->comparisons;
  }

  std::span<const Fp16> x_;
  int n_;
  int np_;
  OrizuruStats* stats_;
  std::vector<int> win_[2];
  std::vector<uint8_t> avail_[2];
};

}  // namespace

std::vector<Outlier> orizuru_topk(std::span<const Fp16> x, int k, OrizuruStats* stats) {
  const int64_t n = int64_t(x.size());
  if (k < 1 || 2 * int64_t(k) > n) {
    throw std::invalid_argument(
        fmt::format("orizuru: need 1 <= k and 2k <= N, got k = {} and N = {}", k, n));
  }
  TwoFoldTree tree(x, stats);
  std::vector<Outlier> out;
  out.reserve(size_t(2 * k));
  for (int i = 0; i < k; ++i) {
    out.push_back(tree.pop(0));
    out.push_back(tree.pop(1));
  }
  return out;
}

}  // namespace oasis
