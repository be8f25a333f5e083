// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/topk_sort_baseline.hpp"

#include <stdexcept>
#include <utility>

#include "model/config.hpp"

namespace oasis {

std::vector<std::vector<CompareExchange>> bitonic_network(int n) {
  if (n < 1 || (n & (n - 1)) != 0) {
    throw std::invalid_argument("bitonic_network: n must be a power of two");
  }
  std::vector<std::vector<CompareExchange>> stages;
  for (int b = 2; b <= n; b *= 2) {
    for (int j = b / 2; j >= 1; j /= 2) {
      std::vector<CompareExchange> stage;
      for (int i = 0; i < n; ++i) {
        if ((i & j) != 0) continue;
        stage.push_back((i & b) == 0 ? CompareExchange{i, i + j} : CompareExchange{i + j, i});
      }
      stages.push_back(std::move(stage));
    }
  }
  return stages;
}

bool ranks_above(const SortRecord& a, const SortRecord& b) {
  if (!a.avail) return false;
  if (!b.avail) return true;
  const int c = compare(a.value, b.value);
  return c > 0 || (c == 0 && a.channel < b.channel);
}

int64_t bitonic_compare_exchanges(int n) {
  int64_t p = 1;
  int m = 0;
  while (p < n) p *= 2, ++m;
  return p / 2 * (int64_t(m) * (m + 1) / 2);
}

std::vector<Outlier> sort_network_topk(std::span<const Fp16> x, int k, int64_t* compare_exchanges) {
  const int n = int(x.size());
  if (k < 1 || 2 * int64_t(k) > n) {
    throw std::invalid_argument("sort_network_topk: needs 1 <= k and 2k <= N");
  }
  int p = 1;
  while (p < n) p *= 2;
  std::vector<SortRecord> r(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    r[size_t(i)] = SortRecord{i < n ? x[size_t(i)] : Fp16{}, i, i < n};
  }
  int64_t count = 0;
  for (const auto& stage : bitonic_network(p)) {
    for (const CompareExchange& ce : stage) {
      if (ranks_above(r[size_t(ce.lo)], r[size_t(ce.hi)]))
        std::swap(r[size_t(ce.hi)], r[size_t(ce.lo)]);
      ++count;
    }
  }
  if (compare_exchanges != nullptr) *compare_exchanges = count;
  std::vector<Outlier> out;
  for (int i = 0; i < k; ++i) {
    const SortRecord& hi = r[size_t(i)];
    const SortRecord& lo = r[size_t(n - 1 - i)];
    out.push_back(Outlier{false, hi.value, hi.channel});
    out.push_back(Outlier{true, lo.value, lo.channel});
  }
  return out;
}

}  // namespace oasis
