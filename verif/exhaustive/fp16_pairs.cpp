// SPDX-License-Identifier: Apache-2.0
// Every pair of binary16 operands (2^32) for add, multiply and compare,
// against the host FPU. Minutes, not seconds: make test-exhaustive only.
#include <gtest/gtest.h>

#include "model/numerics/fp.hpp"
#include "verif/host_fpu.hpp"

namespace oasis {
namespace {

TEST(Fp16Exhaustive, AllPairsAddMulCompare) {
  uint64_t mismatches = 0;
  for (uint32_t a = 0; a < 0x10000; ++a) {
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const Fp16 x{uint16_t(a)}, y{uint16_t(b)};
      const bool ok = add(x, y) == host::add(x, y) && mul(x, y) == host::mul(x, y) &&
                      compare(x, y) == host::compare(x, y);
      if (!ok && ++mismatches <= 10) {
        ADD_FAILURE() << std::hex << "a=0x" << a << " b=0x" << b << " add 0x" << add(x, y).bits
                      << "/0x" << host::add(x, y).bits << " mul 0x" << mul(x, y).bits << "/0x"
                      << host::mul(x, y).bits;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Fp32ToFp16Exhaustive, EveryBinary32Input) {
  uint64_t mismatches = 0;
  for (uint64_t v = 0; v <= 0xFFFFFFFFull; ++v) {
    const Fp32 x{uint32_t(v)};
    if (to_fp16(x) != host::to_fp16(x) && ++mismatches <= 10) {
      ADD_FAILURE() << std::hex << "x=0x" << v;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace oasis
