// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary32 multiplier (oasis_fp_mul_staged, its
// registers inside) against oasis::mul and the host FPU, cycle by cycle with
// random valid gaps (verif/tb/fp_tb.hpp): every directed pair
// (verif/fp_directed.hpp), then a seeded random million (--vectors N to
// change).
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the layer's products x̂ times C_W[iw],
// both widened, instead.
#include <algorithm>

#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp32;
using oasis::tb::fp::Operation;

struct Fp32Mul {
  static constexpr const char* kResult = "prod_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint32_t(op.a);
    d.b_i = uint32_t(op.b);
  }
  uint64_t result(const Vdut& d) const { return d.prod_o; }
  uint64_t model(const Operation& op) const {
    return oasis::mul(Fp32{uint32_t(op.a)}, Fp32{uint32_t(op.b)}).bits;
  }
  uint64_t host(const Operation& op) const {
    return oasis::host::mul(Fp32{uint32_t(op.a)}, Fp32{uint32_t(op.b)}).bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:08x} * b=0x{:08x}", op.a, op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp32_mul", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp32Mul> runner(h, Fp32Mul{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProducts, oasis::tb::fp::Format::kFp32,
                    oasis::tb::fp::Format::kFp32);
    return h.finish();
  }

  const auto d32 = oasis::directed::directed32();
  runner.run(oasis::tb::fp::pairs_of({d32.begin(), d32.end()}, false), 0.25);
  // A quarter fully random; the others with exponent fields summing to
  // within 32 of 254 (products near 1), of 127 (near the subnormal range) or
  // of 381 (near overflow); every second pair with short fractions, so that
  // exact products and ties to even are frequent.
  uint64_t i = 0;
  runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                     [&] {
                                       uint32_t a = uint32_t(h.random_bits(32));
                                       uint32_t b = uint32_t(h.random_bits(32));
                                       const int ea = int(a >> 23) & 0xFF;
                                       const int offset = int(h.random_bits(6)) - 32;
                                       static constexpr int kTargets[4] = {0, 254, 127, 381};
                                       if (i % 4 != 0) {
                                         const int eb =
                                             std::clamp(kTargets[i % 4] - ea + offset, 0, 255);
                                         b = (b & 0x807FFFFFu) | (uint32_t(eb) << 23);
                                       }
                                       if (i % 2 == 0) {
                                         a &= 0xFFFFF000u;
                                         b &= 0xFFFF8000u;
                                       }
                                       ++i;
                                       return Operation{a, b, false};
                                     }),
             0.25);
  runner.print_rate();
  return h.finish();
}
