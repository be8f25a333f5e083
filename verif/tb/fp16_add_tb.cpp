// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary16 adder/subtractor (oasis_fp_add_staged, its
// registers inside) against oasis::add / oasis::sub and the host FPU, cycle by
// cycle with random valid gaps (verif/tb/fp_tb.hpp): every directed pair
// (verif/fp_directed.hpp) as a sum and as a difference, then a seeded random
// million (--vectors N to change), or with --exhaustive every one of the 2^32
// operand pairs as a sum.
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): sums of the layer's adjacent binary16
// products, instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::fp::Operation;

struct Fp16Add {
  static constexpr const char* kResult = "sum_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint16_t(op.a);
    d.b_i = uint16_t(op.b);
    d.sub_i = op.sub;
  }
  uint64_t result(const Vdut& d) const { return d.sum_o; }
  uint64_t model(const Operation& op) const {
    const Fp16 a{uint16_t(op.a)}, b{uint16_t(op.b)};
    return (op.sub ? oasis::sub(a, b) : oasis::add(a, b)).bits;
  }
  uint64_t host(const Operation& op) const {
    const Fp16 a{uint16_t(op.a)}, b{uint16_t(op.b)};
    return (op.sub ? oasis::host::sub(a, b) : oasis::host::add(a, b)).bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:04x} {} b=0x{:04x}", op.a, op.sub ? "-" : "+", op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp16_add", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp16Add> runner(h, Fp16Add{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProductPairs);
    return h.finish();
  }

  const auto d16 = oasis::directed::directed16();
  runner.run(oasis::tb::fp::pairs_of({d16.begin(), d16.end()}, true), 0.25);
  if (options.exhaustive) {
    runner.run(oasis::tb::fp::exhaustive(16, true), 0.0);
  } else {
    // Half the pairs fully random; half with exponents at most 3 apart, so
    // that cancellation, carries and ties are frequent; every seventh with
    // the low fraction bits of b cleared (more exact ties).
    uint64_t i = 0;
    runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                       [&] {
                                         const uint16_t a = uint16_t(h.random_bits(16));
                                         uint16_t b = uint16_t(h.random_bits(16));
                                         if (i % 2) {
                                           b = uint16_t((a & 0x7C00) ^ (b & 0x83FF) ^
                                                        (h.random_bits(2) << 10));
                                         }
                                         if (i % 7 == 0) b &= 0xFFF0;
                                         ++i;
                                         return Operation{a, b, h.random_bits(1) == 1};
                                       }),
               0.25);
  }
  runner.print_rate();
  return h.finish();
}
