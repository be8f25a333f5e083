// SPDX-License-Identifier: Apache-2.0
// TestFloat-style directed operands for binary16 and binary32, shared by the
// model's tests (verif/unit/test_fp.cpp) and the RTL's (verif/tb/fp*_tb.cpp),
// so both are held against the same corner cases: zeros, the smallest and
// largest subnormal and normal numbers, one and its neighbours, values whose
// sum or product ties, overflows and underflows, NaNs and infinities.
#pragma once

#include <cstdint>
#include <vector>

namespace oasis::directed {

inline std::vector<uint32_t> directed32() {
  return {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007FFFFF, 0x807FFFFF,
          0x00800000, 0x80800000, 0x00800001, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF,
          0x33800000, 0x33800001, 0x34000000, 0x3F000000, 0x3FC00000, 0x40000000, 0x7F7FFFFF,
          0xFF7FFFFF, 0x7F000000, 0x7F7FFFFE, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
          0x7F800001, 0x7FFFFFFF, 0x00400000, 0x3EAAAAAB, 0x1F800000, 0x5F800000, 0x0C000000,
          0x4B800000, 0x4B800001, 0xCB800001, 0x33FFFFFF};
}

inline std::vector<uint16_t> directed16() {
  return {0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401,
          0x3C00, 0xBC00, 0x3C01, 0x3BFF, 0x1400, 0x1401, 0x3800, 0x3E00, 0x4000, 0x7BFF,
          0xFBFF, 0x7800, 0x7BFE, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0x0200,
          0x3555, 0x1000, 0x5C00, 0x6400, 0x6401, 0xE401, 0x13FF, 0x0800};
}

/// Integers whose conversion to binary32 rounds (or just does not): around
/// 2^24, ties to even either way, the largest values.
inline std::vector<uint32_t> directed_uint() {
  return {0,          1,          2,          3,          0x00FFFFFF, 0x01000000, 0x01000001,
          0x01000002, 0x01000003, 0x01000005, 0x02000002, 0x02000006, 0x7FFFFFBF, 0x7FFFFFC0,
          0x7FFFFFFF, 0x80000000, 0x80000080, 0x80000180, 0xFFFFFF7F, 0xFFFFFF80, 0xFFFFFFFF};
}

}  // namespace oasis::directed
