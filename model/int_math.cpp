// SPDX-License-Identifier: Apache-2.0
#include "model/int_math.hpp"

#include <algorithm>

namespace oasis {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

int clog2(int64_t x) {
  int n = 0;
  while ((int64_t{1} << n) < x) ++n;
  return n;
}

int index_width(int64_t n) { return std::max(1, clog2(n)); }

int count_width(int64_t n) { return clog2(n + 1); }

}  // namespace oasis
