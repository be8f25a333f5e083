// SPDX-License-Identifier: Apache-2.0
// IEEE 754 binary16 / binary32 arithmetic, bit-exact, in software.
//
// Every operation is one IEEE 754 operation with round-to-nearest-even,
// subnormals in and out, signed zeros and infinities; every NaN result is the
// canonical quiet NaN (docs/spec.md section 2). The RTL implements the same functions;
// the host FPU is the independent reference the tests compare both with.
#pragma once

#include <cstdint>

namespace oasis {

/// An IEEE 754 binary16 value, held as its bit pattern.
struct Fp16 {
  uint16_t bits = 0;
  friend constexpr bool operator==(Fp16, Fp16) = default;
};

/// An IEEE 754 binary32 value, held as its bit pattern.
struct Fp32 {
  uint32_t bits = 0;
  friend constexpr bool operator==(Fp32, Fp32) = default;
};

inline constexpr Fp16 kFp16CanonicalNan{0x7E00};
inline constexpr Fp32 kFp32CanonicalNan{0x7FC00000u};
inline constexpr Fp16 kFp16PosInf{0x7C00};
inline constexpr Fp16 kFp16NegInf{0xFC00};

bool is_nan(Fp16 x);
bool is_nan(Fp32 x);
bool is_inf(Fp16 x);
bool is_inf(Fp32 x);

Fp16 add(Fp16 a, Fp16 b);
Fp16 sub(Fp16 a, Fp16 b);
Fp16 mul(Fp16 a, Fp16 b);
Fp32 add(Fp32 a, Fp32 b);
Fp32 sub(Fp32 a, Fp32 b);
Fp32 mul(Fp32 a, Fp32 b);

/// binary16 -> binary32, exact for every non-NaN input.
Fp32 to_fp32(Fp16 x);
/// binary32 -> binary16, rounded to nearest even.
Fp16 to_fp16(Fp32 x);
/// Unsigned integer -> binary32, rounded to nearest even (exact below 2^24).
Fp32 fp32_from_uint(uint32_t n);

/// double -> binary16 / binary32, one rounding to nearest even (for the
/// model's offline steps: centroids, scales, LUT entries computed in double).
Fp16 fp16_from_double(double x);
Fp32 fp32_from_double(double x);
/// Exact value as a double (NaN stays NaN).
double to_double(Fp16 x);
double to_double(Fp32 x);

/// The comparator order key of docs/spec.md section 2, as a 17-bit unsigned number:
/// a < b in the order iff order_key(a) < order_key(b). NaN (any sign or
/// payload) is above +Inf; -0 equals +0; otherwise IEEE order.
uint32_t order_key(Fp16 x);
/// -1, 0 or +1 as a is below, equal to or above b under the order key.
int compare(Fp16 a, Fp16 b);

}  // namespace oasis
