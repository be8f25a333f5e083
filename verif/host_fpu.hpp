// SPDX-License-Identifier: Apache-2.0
// The host CPU's IEEE FPU (and libgcc's _Float16 conversions) as an
// independent reference for model/numerics/fp.hpp, with NaN results made canonical as
// docs/spec.md section 2 asks (x86 returns a negative NaN for inf - inf).
#pragma once

#include <bit>
#include <cstdint>

#include "model/numerics/fp.hpp"

namespace oasis::host {

inline float f(Fp32 x) { return std::bit_cast<float>(x.bits); }
inline _Float16 h(Fp16 x) { return std::bit_cast<_Float16>(x.bits); }

inline Fp32 canon(float r) { return r != r ? kFp32CanonicalNan : Fp32{std::bit_cast<uint32_t>(r)}; }
inline Fp16 canon16(_Float16 r) {
  return r != r ? kFp16CanonicalNan : Fp16{std::bit_cast<uint16_t>(r)};
}

inline Fp32 add(Fp32 a, Fp32 b) { return canon(f(a) + f(b)); }
inline Fp32 sub(Fp32 a, Fp32 b) { return canon(f(a) - f(b)); }
inline Fp32 mul(Fp32 a, Fp32 b) { return canon(f(a) * f(b)); }

// binary16 arithmetic through binary32: exact operands, one binary32
// rounding, then one binary16 rounding. For +, - and * this double rounding
// is innocuous because 24 >= 2*11 + 2 (Figueroa), so it equals one binary16
// rounding.
inline Fp16 add(Fp16 a, Fp16 b) { return canon16(_Float16(float(h(a)) + float(h(b)))); }
inline Fp16 sub(Fp16 a, Fp16 b) { return canon16(_Float16(float(h(a)) - float(h(b)))); }
inline Fp16 mul(Fp16 a, Fp16 b) { return canon16(_Float16(float(h(a)) * float(h(b)))); }

inline Fp32 to_fp32(Fp16 x) { return canon(float(h(x))); }
inline Fp16 to_fp16(Fp32 x) { return canon16(_Float16(f(x))); }
inline Fp32 from_uint(uint32_t n) { return canon(float(n)); }
inline Fp16 fp16_from_double(double d) { return canon16(_Float16(d)); }

/// -1, 0, +1 under the order key of docs/spec.md section 2, from the host's own comparisons.
inline int compare(Fp16 a, Fp16 b) {
  const float x = float(h(a)), y = float(h(b));
  const bool xn = x != x, yn = y != y;
  if (xn || yn) return xn && yn ? 0 : (xn ? 1 : -1);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace oasis::host
