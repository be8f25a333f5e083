// SPDX-License-Identifier: Apache-2.0
// The integer helpers what derives from a config is written in: divisions rounded up,
// logarithms, and the widths of indices and counts. A header of its own, so that the delay
// model (model/perf/fp_delay.hpp), which derive() reads, needs neither the config nor Derived.
#pragma once

#include <cstdint>

namespace oasis {

int ceil_div(int a, int b);
int clog2(int64_t x);  ///< ceil(log2(x)), 0 for x <= 1 (like SystemVerilog $clog2)
/// Bits of an index or counter over n values 0 .. n-1: max(1, clog2(n)).
int index_width(int64_t n);
/// Bits of a count from 0 to n inclusive: clog2(n + 1).
int count_width(int64_t n);

}  // namespace oasis
