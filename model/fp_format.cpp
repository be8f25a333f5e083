// SPDX-License-Identifier: Apache-2.0
#include "model/fp_format.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/config.hpp"

namespace oasis {

std::string FpFormat::name() const {
  if (exp_bits == 5 && frac_bits == 10) return "binary16";
  if (exp_bits == 8 && frac_bits == 23) return "binary32";
  return fmt::format("e{}m{}", exp_bits, frac_bits);
}

FpFormat accumulator_format(AccumulatorFormat a) {
  return a == AccumulatorFormat::kFp16 ? FpFormat{5, 10} : FpFormat{8, 23};
}

bool holds_integers(const FpFormat& f, int bits) {
  return bits <= f.frac_bits + 1 && bits - 1 <= (1 << (f.exp_bits - 1)) - 1;
}

FpFormat count_format(int count_bits, const FpFormat& accumulator) {
  if (!holds_integers(accumulator, count_bits)) return accumulator;
  // The largest count's top bit is worth 2^(count_bits - 1): the bias must reach it.
  FpFormat f{2, std::max(1, count_bits - 1)};
  while (!holds_integers(f, count_bits)) ++f.exp_bits;
  return f;
}

}  // namespace oasis
