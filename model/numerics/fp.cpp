// SPDX-License-Identifier: Apache-2.0
#include "model/numerics/fp.hpp"

#include <bit>
#include <cstring>

namespace oasis {
namespace {

// One IEEE binary format: E exponent bits, F fraction bits, held in Bits.
template <class Bits, int E, int F>
struct Format {
  using bits_t = Bits;
  static constexpr int kExpBits = E;
  static constexpr int kFracBits = F;
  static constexpr int kBias = (1 << (E - 1)) - 1;
  static constexpr int kMaxField = (1 << E) - 1;
  static constexpr uint64_t kFracMask = (uint64_t{1} << F) - 1;
  static constexpr Bits kSignBit = Bits(uint64_t{1} << (E + F));
  static constexpr Bits kInf = Bits(uint64_t(kMaxField) << F);
  static constexpr Bits kNan = Bits(kInf | (uint64_t{1} << (F - 1)));
};
using B16 = Format<uint16_t, 5, 10>;
using B32 = Format<uint32_t, 8, 23>;
using B64 = Format<uint64_t, 11, 52>;

enum class Kind { kZero, kFinite, kInf, kNan };

// A decoded operand: value = (-1)^sign * sig * 2^exp for kFinite.
struct Unpacked {
  Kind kind;
  bool sign;
  int exp;
  uint64_t sig;
};

template <class Fmt>
Unpacked unpack(typename Fmt::bits_t x) {
  const uint64_t v = x;
  const bool sign = (v >> (Fmt::kExpBits + Fmt::kFracBits)) & 1;
  const int field = int((v >> Fmt::kFracBits) & Fmt::kMaxField);
  const uint64_t frac = v & Fmt::kFracMask;
  if (field == Fmt::kMaxField) {
    return {frac ? Kind::kNan : Kind::kInf, sign, 0, 0};
  }
  if (field == 0) {
    if (frac == 0) return {Kind::kZero, sign, 0, 0};
    return {Kind::kFinite, sign, 1 - Fmt::kBias - Fmt::kFracBits, frac};
  }
  return {Kind::kFinite, sign, field - Fmt::kBias - Fmt::kFracBits,
          frac | (uint64_t{1} << Fmt::kFracBits)};
}

// Rounds (-1)^sign * sig * 2^exp to the format, to nearest even. sig != 0.
// Bit 0 of sig may be a sticky bit standing for nonzero bits below it; callers
// keep it far below the rounding position.
template <class Fmt>
typename Fmt::bits_t round_pack(bool sign, int exp, uint64_t sig) {
  using bits_t = typename Fmt::bits_t;
  const int lz = std::countl_zero(sig);
  sig <<= lz;
  exp -= lz;
  // Now sig has its leading one at bit 63: value = 1.f * 2^(exp + 63).
  int field = exp + 63 + Fmt::kBias;
  int shift = 63 - Fmt::kFracBits;  // bits below the kept significand
  if (field < 1) {                  // subnormal: fewer bits kept
    shift += 1 - field;
    field = 1;
  }
  uint64_t mant;
  if (shift >= 64) {
    // The whole significand lies below the last kept bit: at most half of the
    // smallest subnormal only when shift == 64.
    const bool above_half = shift == 64 && sig > (uint64_t{1} << 63);
    mant = above_half ? 1 : 0;
  } else {
    mant = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (mant & 1))) ++mant;
  }
  // The hidden bit of mant carries into the exponent field; a subnormal that
  // rounds up to 2^F becomes the smallest normal the same way.
  uint64_t mag = (uint64_t(field - 1) << Fmt::kFracBits) + mant;
  if (mag >= Fmt::kInf) mag = Fmt::kInf;
  return bits_t((sign ? uint64_t(Fmt::kSignBit) : 0) | mag);
}

template <class Fmt>
typename Fmt::bits_t add_impl(typename Fmt::bits_t a, typename Fmt::bits_t b) {
  using bits_t = typename Fmt::bits_t;
  const Unpacked x = unpack<Fmt>(a);
  const Unpacked y = unpack<Fmt>(b);
  if (x.kind == Kind::kNan || y.kind == Kind::kNan) return Fmt::kNan;
  if (x.kind == Kind::kInf || y.kind == Kind::kInf) {
    if (x.kind == Kind::kInf && y.kind == Kind::kInf && x.sign != y.sign) return Fmt::kNan;
    return x.kind == Kind::kInf ? a : b;
  }
  if (x.kind == Kind::kZero && y.kind == Kind::kZero) {
    // Round to nearest: -0 only when both are -0.
    return (x.sign && y.sign) ? Fmt::kSignBit : bits_t(0);
  }
  if (x.kind == Kind::kZero) return b;
  if (y.kind == Kind::kZero) return a;

  // Align to the larger exponent; the larger significand sits at bit 62 so
  // the sum cannot overflow, and a lost tail becomes a sticky bit (bit 0) far
  // below the rounding position (bit 39 or higher).
  const bool x_big = x.exp > y.exp || (x.exp == y.exp && x.sig >= y.sig);
  const Unpacked& big = x_big ? x : y;
  const Unpacked& small = x_big ? y : x;
  const int lead = std::countl_zero(big.sig) - 1;
  const uint64_t big_sig = big.sig << lead;
  const int exp = big.exp - lead;
  const int s = small.exp - exp;  // small = small.sig * 2^s in units of 2^exp
  uint64_t small_sig;
  if (s >= 0) {
    small_sig = small.sig << s;  // still at or below bit 62
  } else if (-s >= 64) {
    small_sig = 1;  // pure sticky
  } else {
    const uint64_t lost = small.sig & ((uint64_t{1} << -s) - 1);
    small_sig = (small.sig >> -s) | (lost ? 1 : 0);
  }
  if (big.sign == small.sign) return round_pack<Fmt>(big.sign, exp, big_sig + small_sig);
  const uint64_t d = big_sig - small_sig;
  if (d == 0) return bits_t(0);  // exact cancellation is +0 under RNE
  return round_pack<Fmt>(big.sign, exp, d);
}

template <class Fmt>
typename Fmt::bits_t mul_impl(typename Fmt::bits_t a, typename Fmt::bits_t b) {
  const Unpacked x = unpack<Fmt>(a);
  const Unpacked y = unpack<Fmt>(b);
  const bool sign = x.sign != y.sign;
  const auto signed_bits = [&](typename Fmt::bits_t mag) {
    return typename Fmt::bits_t(mag | (sign ? Fmt::kSignBit : 0));
  };
  if (x.kind == Kind::kNan || y.kind == Kind::kNan) return Fmt::kNan;
  if (x.kind == Kind::kInf || y.kind == Kind::kInf) {
    if (x.kind == Kind::kZero || y.kind == Kind::kZero) return Fmt::kNan;
    return signed_bits(Fmt::kInf);
  }
  if (x.kind == Kind::kZero || y.kind == Kind::kZero) return signed_bits(0);
  // Both significands have at most 24 bits: the product is exact in 64.
  return round_pack<Fmt>(sign, x.exp + y.exp, x.sig * y.sig);
}

// Converts between formats (or from an unpacked integer), one rounding.
template <class To, class From>
typename To::bits_t convert(typename From::bits_t v) {
  const Unpacked x = unpack<From>(v);
  switch (x.kind) {
    case Kind::kNan:
      return To::kNan;
    case Kind::kInf:
      return typename To::bits_t(To::kInf | (x.sign ? To::kSignBit : 0));
    case Kind::kZero:
      return typename To::bits_t(x.sign ? To::kSignBit : 0);
    case Kind::kFinite:
      break;
  }
  return round_pack<To>(x.sign, x.exp, x.sig);
}

uint64_t double_bits(double d) { return std::bit_cast<uint64_t>(d); }

}  // namespace

bool is_nan(Fp16 x) { return (x.bits & 0x7FFF) > 0x7C00; }
bool is_nan(Fp32 x) { return (x.bits & 0x7FFFFFFFu) > 0x7F800000u; }
bool is_inf(Fp16 x) { return (x.bits & 0x7FFF) == 0x7C00; }
bool is_inf(Fp32 x) { return (x.bits & 0x7FFFFFFFu) == 0x7F800000u; }

Fp16 add(Fp16 a, Fp16 b) { return {add_impl<B16>(a.bits, b.bits)}; }
Fp16 sub(Fp16 a, Fp16 b) { return {add_impl<B16>(a.bits, uint16_t(b.bits ^ 0x8000))}; }
Fp16 mul(Fp16 a, Fp16 b) { return {mul_impl<B16>(a.bits, b.bits)}; }
Fp32 add(Fp32 a, Fp32 b) { return {add_impl<B32>(a.bits, b.bits)}; }
Fp32 sub(Fp32 a, Fp32 b) { return {add_impl<B32>(a.bits, b.bits ^ 0x80000000u)}; }
Fp32 mul(Fp32 a, Fp32 b) { return {mul_impl<B32>(a.bits, b.bits)}; }

Fp32 to_fp32(Fp16 x) { return {convert<B32, B16>(x.bits)}; }
Fp16 to_fp16(Fp32 x) { return {convert<B16, B32>(x.bits)}; }

Fp32 fp32_from_uint(uint32_t n) {
  if (n == 0) return {0};
  return {round_pack<B32>(false, 0, n)};
}

Fp16 fp16_from_double(double x) { return {convert<B16, B64>(double_bits(x))}; }
Fp32 fp32_from_double(double x) { return {convert<B32, B64>(double_bits(x))}; }

namespace {
template <class Fmt>
double to_double_impl(typename Fmt::bits_t v) {
  return std::bit_cast<double>(convert<B64, Fmt>(v));
}
}  // namespace

double to_double(Fp16 x) { return to_double_impl<B16>(x.bits); }
double to_double(Fp32 x) { return to_double_impl<B32>(x.bits); }

uint32_t order_key(Fp16 x) {
  if (is_nan(x)) return 0x10000;
  const uint32_t mag = x.bits & 0x7FFF;
  if (mag == 0) return 0x8000;
  return (x.bits & 0x8000) ? 0x8000 - mag : 0x8000 + mag;
}

int compare(Fp16 a, Fp16 b) {
  const uint32_t ka = order_key(a);
  const uint32_t kb = order_key(b);
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

}  // namespace oasis
