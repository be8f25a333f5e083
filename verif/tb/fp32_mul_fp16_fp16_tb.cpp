// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary32 multiplier of two binary16 operands (oasis_fp_mul_staged with
// AExpBits, BExpBits 5 and AFracBits, BFracBits 10: an exact product, no rounding, its
// registers inside; the MAC-line baseline's lanes and the compensation MACs) against
// oasis::mul of the operands widened (oasis::to_fp32, exact) and against the host FPU, cycle
// by cycle with random valid gaps (verif/tb/fp_tb.hpp): every directed pair
// (verif/fp_directed.hpp), then a seeded random million (--vectors N to change), or with
// --exhaustive every one of the 2^32 operand pairs.
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the layer's products x̂ times C_W[iw],
// instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::Fp32;
using oasis::tb::fp::Operation;

struct Fp32MulFp16Fp16 {
  static constexpr const char* kResult = "prod_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint16_t(op.a);
    d.b_i = uint16_t(op.b);
  }
  uint64_t result(const Vdut& d) const { return d.prod_o; }
  uint64_t model(const Operation& op) const {
    return oasis::mul(oasis::to_fp32(Fp16{uint16_t(op.a)}), oasis::to_fp32(Fp16{uint16_t(op.b)}))
        .bits;
  }
  uint64_t host(const Operation& op) const {
    const float a = float(std::bit_cast<_Float16>(uint16_t(op.a)));
    const float b = float(std::bit_cast<_Float16>(uint16_t(op.b)));
    return oasis::host::mul(Fp32{std::bit_cast<uint32_t>(a)}, Fp32{std::bit_cast<uint32_t>(b)})
        .bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:04x} * b=0x{:04x}", op.a, op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp32_mul_fp16_fp16", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp32MulFp16Fp16> runner(h, Fp32MulFp16Fp16{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProducts);
    return h.finish();
  }

  const auto d16 = oasis::directed::directed16();
  runner.run(oasis::tb::fp::pairs_of({d16.begin(), d16.end()}, false), 0.25);
  if (options.exhaustive) {
    runner.run(oasis::tb::fp::exhaustive(16, true), 0.0);
  } else {
    // Half the pairs fully random; a quarter with both operands subnormal or near it (the
    // products with the most leading zeros, the normalisation's longest shifts); a quarter
    // with both exponent fields near the top (the largest products).
    uint64_t i = 0;
    runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                       [&] {
                                         uint16_t a = uint16_t(h.random_bits(16));
                                         uint16_t b = uint16_t(h.random_bits(16));
                                         if (i % 4 == 1) {
                                           a &= 0x87FF;
                                           b &= 0x87FF;
                                         } else if (i % 4 == 3) {
                                           a |= 0x7000;
                                           b |= 0x7000;
                                         }
                                         ++i;
                                         return Operation{a, b, false};
                                       }),
               0.25);
  }
  runner.print_rate();
  return h.finish();
}
