// SPDX-License-Identifier: Apache-2.0
// The IEEE 754 binary formats the blocks compute in, and the rules that pick one: read by
// derive() (model/derived.hpp) and by the floating-point units' delay model
// (model/perf/fp_delay.hpp), which derive() itself reads.
#pragma once

#include <string>

namespace oasis {

enum class AccumulatorFormat;

/// An IEEE 754 binary format: binary16 (5, 10) or binary32 (8, 23).
struct FpFormat {
  int exp_bits = 0;
  int frac_bits = 0;
  int width() const { return 1 + exp_bits + frac_bits; }
  /// "binary16" or "binary32"; another format "e<exp_bits>m<frac_bits>".
  std::string name() const;
};

/// The format an accumulator setting names: binary16 or binary32.
FpFormat accumulator_format(AccumulatorFormat a);

/// Whether format `f` holds every unsigned integer of `bits` bits exactly, as a normal number:
/// its significand holds the bits (bits <= frac_bits + 1) and its exponent reaches the top bit
/// (bits - 1 <= bias). The conversion into it then never rounds (rtl/oasis_fp_from_uint.sv's
/// Exact is this rule).
bool holds_integers(const FpFormat& f, int bits);

/// The format the PE line converts its index counts of `count_bits` bits into, before they
/// multiply the LUT entries (docs/pe_line.md, Main branch): when the accumulation format
/// `accumulator` holds every count exactly, the narrowest format that does too (the count's
/// bits less one as its fraction, the fewest exponent bits whose normal range reaches
/// 2^(count_bits - 1), at least 2), so the conversion never rounds and the multiplier's
/// significand product is count_bits wide, not the accumulator's; otherwise the accumulator
/// itself (the conversion rounds, as the model's to_A does).
FpFormat count_format(int count_bits, const FpFormat& accumulator);

}  // namespace oasis
