// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary32 adder/subtractor (oasis_fp_add_staged, its
// registers inside) against oasis::add / oasis::sub and the host FPU, cycle by
// cycle with random valid gaps (verif/tb/fp_tb.hpp): every directed pair
// (verif/fp_directed.hpp) as a sum and as a difference, then a seeded random
// million (--vectors N to change).
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): sums of the layer's adjacent binary32
// products, instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp32;
using oasis::tb::fp::Operation;

struct Fp32Add {
  static constexpr const char* kResult = "sum_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint32_t(op.a);
    d.b_i = uint32_t(op.b);
    d.sub_i = op.sub;
  }
  uint64_t result(const Vdut& d) const { return d.sum_o; }
  uint64_t model(const Operation& op) const {
    const Fp32 a{uint32_t(op.a)}, b{uint32_t(op.b)};
    return (op.sub ? oasis::sub(a, b) : oasis::add(a, b)).bits;
  }
  uint64_t host(const Operation& op) const {
    const Fp32 a{uint32_t(op.a)}, b{uint32_t(op.b)};
    return (op.sub ? oasis::host::sub(a, b) : oasis::host::add(a, b)).bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:08x} {} b=0x{:08x}", op.a, op.sub ? "-" : "+", op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp32_add", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp32Add> runner(h, Fp32Add{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProductPairs, oasis::tb::fp::Format::kFp32);
    return h.finish();
  }

  const auto d32 = oasis::directed::directed32();
  runner.run(oasis::tb::fp::pairs_of({d32.begin(), d32.end()}, true), 0.25);
  // As verif/unit/test_fp.cpp: half fully random, half with exponents at
  // most 7 apart (cancellation, carries, ties), every seventh with the low
  // byte of b cleared.
  uint64_t i = 0;
  runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                     [&] {
                                       const uint32_t a = uint32_t(h.random_bits(32));
                                       uint32_t b = uint32_t(h.random_bits(32));
                                       if (i % 2) {
                                         b = (a & 0x7F800000u) ^ (b & 0x807FFFFFu) ^
                                             (uint32_t(h.random_bits(3)) << 23);
                                       }
                                       if (i % 7 == 0) b &= 0xFFFFFF00u;
                                       ++i;
                                       return Operation{a, b, h.random_bits(1) == 1};
                                     }),
             0.25);
  runner.print_rate();
  return h.finish();
}
