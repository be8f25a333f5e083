// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary16 multiplier (oasis_fp_mul_staged, its
// registers inside) against oasis::mul and the host FPU, cycle by cycle with
// random valid gaps (verif/tb/fp_tb.hpp): every directed pair
// (verif/fp_directed.hpp), then a seeded random million (--vectors N to
// change), or with --exhaustive every one of the 2^32 operand pairs.
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the layer's products x̂ times C_W[iw],
// instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::fp::Operation;

struct Fp16Mul {
  static constexpr const char* kResult = "prod_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint16_t(op.a);
    d.b_i = uint16_t(op.b);
  }
  uint64_t result(const Vdut& d) const { return d.prod_o; }
  uint64_t model(const Operation& op) const {
    return oasis::mul(Fp16{uint16_t(op.a)}, Fp16{uint16_t(op.b)}).bits;
  }
  uint64_t host(const Operation& op) const {
    return oasis::host::mul(Fp16{uint16_t(op.a)}, Fp16{uint16_t(op.b)}).bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:04x} * b=0x{:04x}", op.a, op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp16_mul", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp16Mul> runner(h, Fp16Mul{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProducts);
    return h.finish();
  }

  const auto d16 = oasis::directed::directed16();
  runner.run(oasis::tb::fp::pairs_of({d16.begin(), d16.end()}, false), 0.25);
  if (options.exhaustive) {
    runner.run(oasis::tb::fp::exhaustive(16, true), 0.0);
  } else {
    // Half the pairs fully random; half with exponent fields summing to
    // within 12 of twice the bias, so that products near 1, the subnormal
    // range and ties (short fractions) are frequent.
    uint64_t i = 0;
    runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                       [&] {
                                         uint16_t a = uint16_t(h.random_bits(16));
                                         uint16_t b = uint16_t(h.random_bits(16));
                                         if (i % 2) {
                                           const int ea = (a >> 10) & 0x1F;
                                           const int eb = std::clamp(
                                               30 - ea + int(h.random_bits(5)) - 16, 0, 31);
                                           b = uint16_t((b & 0x83FF) | (eb << 10));
                                         }
                                         if (i % 3 == 0) {
                                           a &= 0xFFE0;
                                           b &= 0xFFF8;
                                         }
                                         ++i;
                                         return Operation{a, b, false};
                                       }),
               0.25);
  }
  runner.print_rate();
  return h.finish();
}
