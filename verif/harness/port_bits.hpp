// SPDX-License-Identifier: Apache-2.0
// Fields of a Verilator port: narrow ports are integers, wide ones VlWide
// arrays of 32-bit words. Kept apart from the harness, which needs Verilator's
// headers, so that the unit tests check them on plain word arrays.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace oasis::tb {

/// Bits [lsb, lsb + width) of a port of any width (width <= 64): Verilator
/// holds narrow ports in integers and wide ones in VlWide word arrays.
template <class T>
uint64_t get_bits(const T& port, int lsb, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  if constexpr (std::is_integral_v<T>) {
    return (uint64_t(port) >> lsb) & mask;
  } else {
    // Word by word: a field spans at most three 32-bit words.
    uint64_t r = 0;
    for (int b = 0; b < width;) {
      const int bit = lsb + b, off = bit % 32, n = std::min(32 - off, width - b);
      r |= uint64_t(uint32_t(port[size_t(bit / 32)]) >> off) << b;
      b += n;
    }
    return r & mask;
  }
}

/// Sets bits [lsb, lsb + width) of a port of any width to value.
template <class T>
void set_bits(T& port, int lsb, int width, uint64_t value) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t mask = (width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1) << lsb;
    port = T((uint64_t(port) & ~mask) | ((value << lsb) & mask));
  } else {
    // Word by word: a field spans at most three 32-bit words.
    for (int b = 0; b < width;) {
      const int bit = lsb + b, off = bit % 32, n = std::min(32 - off, width - b);
      const uint32_t m = (n == 32 ? ~0u : (1u << n) - 1) << off;
      auto& word = port[size_t(bit / 32)];
      word = (word & ~m) | (uint32_t(value >> b << off) & m);
      b += n;
    }
  }
}

}  // namespace oasis::tb
