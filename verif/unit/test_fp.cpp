// SPDX-License-Identifier: Apache-2.0
// model/numerics/fp.hpp against the host FPU, bit for bit: every binary16 input for
// the unary operations, a TestFloat-style directed list for every binary
// operation (verif/fp_directed.hpp, shared with the RTL tests), and 10
// million seeded random binary32 pairs for add and multiply.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::test_seed;

using directed::directed16;
using directed::directed32;

TEST(Fp16Unary, WidenEveryInput) {
  for (uint32_t x = 0; x < 0x10000; ++x) {
    ASSERT_EQ(to_fp32(Fp16{uint16_t(x)}).bits, host::to_fp32(Fp16{uint16_t(x)}).bits)
        << std::hex << "x=0x" << x;
  }
}

TEST(Fp16Unary, RoundTripAndToDoubleEveryInput) {
  for (uint32_t x = 0; x < 0x10000; ++x) {
    const Fp16 v{uint16_t(x)};
    const Fp16 back = to_fp16(to_fp32(v));
    ASSERT_EQ(back.bits, is_nan(v) ? kFp16CanonicalNan.bits : v.bits) << std::hex << x;
    ASSERT_EQ(fp16_from_double(to_double(v)).bits, host::canon16(host::h(v)).bits) << std::hex << x;
  }
}

TEST(Fp16Unary, OrderKeyAgainstHostComparisonsEveryInput) {
  // Every input against every directed value and its own neighbours.
  for (uint32_t x = 0; x < 0x10000; ++x) {
    for (const uint16_t y : directed16()) {
      ASSERT_EQ(compare(Fp16{uint16_t(x)}, Fp16{y}), host::compare(Fp16{uint16_t(x)}, Fp16{y}))
          << std::hex << x << " " << y;
    }
    const uint16_t n = uint16_t(x + 1);
    ASSERT_EQ(compare(Fp16{uint16_t(x)}, Fp16{n}), host::compare(Fp16{uint16_t(x)}, Fp16{n}));
  }
  EXPECT_EQ(compare(Fp16{0x8000}, Fp16{0x0000}), 0);
  EXPECT_EQ(compare(Fp16{0xFE00}, Fp16{0x7C00}), 1);  // a negative NaN is above +Inf
  EXPECT_EQ(compare(Fp16{0x7E00}, Fp16{0xFD01}), 0);  // all NaNs are equal
}

TEST(Fp32ToFp16, EveryMidpointAndItsNeighbours) {
  // For each pair of adjacent binary16 values (and beyond the largest), the
  // binary32 values at their midpoint and one ulp either side: the ties that
  // round-to-nearest-even decides.
  for (uint32_t x = 0; x < 0x7C00; ++x) {
    for (const uint32_t sign : {0u, 0x8000u}) {
      const double lo = to_double(Fp16{uint16_t(x | sign)});
      const double hi =
          x == 0x7BFF ? (sign ? -65536.0 : 65536.0) : to_double(Fp16{uint16_t((x + 1) | sign)});
      const Fp32 mid = fp32_from_double((lo + hi) / 2);  // exact in binary32
      for (const int d : {-1, 0, 1}) {
        const Fp32 v{mid.bits + uint32_t(d)};
        ASSERT_EQ(to_fp16(v).bits, host::to_fp16(v).bits) << std::hex << v.bits;
      }
    }
  }
}

TEST(Fp32ToFp16, RandomInputs) {
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 2000000; ++i) {
    const Fp32 v{uint32_t(rng())};
    ASSERT_EQ(to_fp16(v).bits, host::to_fp16(v).bits) << std::hex << v.bits;
  }
}

TEST(UintToFp32, SmallAndRandom) {
  for (uint32_t n = 0; n < (1u << 20); ++n)
    ASSERT_EQ(fp32_from_uint(n).bits, host::from_uint(n).bits);
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t n = uint32_t(rng()) >> (rng() % 32);
    ASSERT_EQ(fp32_from_uint(n).bits, host::from_uint(n).bits) << n;
  }
  for (const uint32_t n : {0xFFFFFFFFu, 0x01000001u, 0x01000003u, 0x80000000u, 0xFFFFFF80u}) {
    EXPECT_EQ(fp32_from_uint(n).bits, host::from_uint(n).bits) << n;
  }
}

TEST(DoubleToFp16, RandomInputs) {
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 1000000; ++i) {
    const double d = std::bit_cast<double>((rng() & 0x80000000FFFFFFFFull) |
                                           (uint64_t(1023 - 30 + int(rng() % 50)) << 52) |
                                           (rng() & 0x000FFFFF00000000ull));
    ASSERT_EQ(fp16_from_double(d).bits, host::fp16_from_double(d).bits) << d;
  }
}

TEST(Fp32Binary, DirectedPairs) {
  for (const uint32_t a : directed32()) {
    for (const uint32_t b : directed32()) {
      const Fp32 x{a}, y{b};
      ASSERT_EQ(add(x, y).bits, host::add(x, y).bits) << std::hex << a << " + " << b;
      ASSERT_EQ(sub(x, y).bits, host::sub(x, y).bits) << std::hex << a << " - " << b;
      ASSERT_EQ(mul(x, y).bits, host::mul(x, y).bits) << std::hex << a << " * " << b;
    }
  }
}

TEST(Fp16Binary, DirectedPairs) {
  for (const uint16_t a : directed16()) {
    for (const uint16_t b : directed16()) {
      const Fp16 x{a}, y{b};
      ASSERT_EQ(add(x, y).bits, host::add(x, y).bits) << std::hex << a << " + " << b;
      ASSERT_EQ(sub(x, y).bits, host::sub(x, y).bits) << std::hex << a << " - " << b;
      ASSERT_EQ(mul(x, y).bits, host::mul(x, y).bits) << std::hex << a << " * " << b;
    }
  }
}

TEST(Fp32Binary, SpecialResults) {
  EXPECT_EQ(add(Fp32{0x7F800000}, Fp32{0xFF800000}).bits, kFp32CanonicalNan.bits);
  EXPECT_EQ(mul(Fp32{0x7F800000}, Fp32{0x00000000}).bits, kFp32CanonicalNan.bits);
  EXPECT_EQ(add(Fp32{0x80000000}, Fp32{0x80000000}).bits, 0x80000000u);
  EXPECT_EQ(add(Fp32{0x80000000}, Fp32{0x00000000}).bits, 0x00000000u);
  EXPECT_EQ(sub(Fp32{0x3F800000}, Fp32{0x3F800000}).bits, 0x00000000u);
  EXPECT_EQ(add(Fp32{0x3F800000}, Fp32{0x33800000}).bits, 0x3F800000u);  // tie to even: down
  EXPECT_EQ(add(Fp32{0x3F800001}, Fp32{0x33800000}).bits, 0x3F800002u);  // tie to even: up
  EXPECT_EQ(mul(Fp32{0x7F7FFFFF}, Fp32{0x40000000}).bits, 0x7F800000u);  // overflow
  EXPECT_EQ(mul(Fp32{0x00000001}, Fp32{0x3F000000}).bits, 0x00000000u);  // underflow, tie to 0
  EXPECT_EQ(mul(Fp32{0x00000001}, Fp32{0x3F400000}).bits, 0x00000001u);  // 0.75 ulp rounds up
}

// Random pairs: fully random bit patterns, and pairs with nearby exponents
// so that cancellation, carries and ties are frequent.
template <class Op, class Ref>
void random_pairs_32(Op op, Ref ref, const char* name) {
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 10000000; ++i) {
    uint32_t a = uint32_t(rng()), b = uint32_t(rng());
    if (i % 2) b = (a & 0xFF800000u) ^ (b & 0x807FFFFFu) ^ (uint32_t(rng() % 8) << 23);
    if (i % 7 == 0) b &= 0xFFFFFF00u;
    const Fp32 got = op(Fp32{a}, Fp32{b});
    const Fp32 want = ref(Fp32{a}, Fp32{b});
    ASSERT_EQ(got.bits, want.bits) << std::hex << name << " a=0x" << a << " b=0x" << b
                                   << " seed=" << std::dec << test_seed() << " i=" << i;
  }
}

TEST(Fp32Binary, RandomAdd) {
  random_pairs_32([](Fp32 a, Fp32 b) { return add(a, b); },
                  [](Fp32 a, Fp32 b) { return host::add(a, b); }, "add");
}
TEST(Fp32Binary, RandomSub) {
  random_pairs_32([](Fp32 a, Fp32 b) { return sub(a, b); },
                  [](Fp32 a, Fp32 b) { return host::sub(a, b); }, "sub");
}
TEST(Fp32Binary, RandomMul) {
  random_pairs_32([](Fp32 a, Fp32 b) { return mul(a, b); },
                  [](Fp32 a, Fp32 b) { return host::mul(a, b); }, "mul");
}

TEST(Fp16Binary, RandomPairs) {
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 4000000; ++i) {
    const Fp16 a{uint16_t(rng())}, b{uint16_t(rng())};
    ASSERT_EQ(add(a, b).bits, host::add(a, b).bits) << std::hex << a.bits << " + " << b.bits;
    ASSERT_EQ(mul(a, b).bits, host::mul(a, b).bits) << std::hex << a.bits << " * " << b.bits;
  }
}

}  // namespace
}  // namespace oasis
