// SPDX-License-Identifier: Apache-2.0
// The testbenches' port fields (verif/harness/port_bits.hpp), which every
// Verilator check drives its inputs and reads its outputs through: each field of
// a wide port (32-bit words) and of a narrow one (an integer), every offset and
// width up to 64 bits, against one bit at a time.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "test_support.hpp"
#include "verif/harness/port_bits.hpp"

namespace {

using Words = std::array<uint32_t, 5>;  // a 160-bit port

bool bit_of(const Words& w, int i) { return (w[size_t(i / 32)] >> (i % 32)) & 1u; }

TEST(PortBits, WideFieldsAtEveryOffsetAndWidth) {
  std::mt19937_64 rng(oasis::test::test_seed());
  for (int width = 1; width <= 64; ++width) {
    for (int lsb = 0; lsb + width <= 32 * int(Words{}.size()); ++lsb) {
      Words port;
      for (auto& w : port) w = uint32_t(rng());
      const Words before = port;
      const uint64_t value = rng();
      oasis::tb::set_bits(port, lsb, width, value);
      for (int i = 0; i < 32 * int(port.size()); ++i) {
        const bool inside = i >= lsb && i < lsb + width;
        const bool want = inside ? (value >> (i - lsb)) & 1u : bit_of(before, i);
        ASSERT_EQ(bit_of(port, i), want)
            << "set_bits lsb " << lsb << " width " << width << ": bit " << i;
      }
      uint64_t want = 0;
      for (int b = 0; b < width; ++b) want |= uint64_t(bit_of(port, lsb + b)) << b;
      ASSERT_EQ(oasis::tb::get_bits(port, lsb, width), want)
          << "get_bits lsb " << lsb << " width " << width;
    }
  }
}

TEST(PortBits, NarrowFields) {
  std::mt19937_64 rng(oasis::test::test_seed());
  for (int width = 1; width <= 16; ++width) {
    for (int lsb = 0; lsb + width <= 32; ++lsb) {
      uint32_t port = uint32_t(rng());
      const uint32_t before = port;
      const uint64_t value = rng();
      oasis::tb::set_bits(port, lsb, width, value);
      const uint32_t mask = ((1u << width) - 1) << lsb;
      ASSERT_EQ(port, (before & ~mask) | (uint32_t(value << lsb) & mask));
      ASSERT_EQ(oasis::tb::get_bits(port, lsb, width), (value & ((1u << width) - 1)));
    }
  }
}

}  // namespace
