// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary32 multiplier of a binary16 second operand
// (oasis_fp_mul_staged with BExpBits 5 and BFracBits 10, its registers inside;
// the blocks' scalings and LUT products) against oasis::mul of the operand
// widened (oasis::to_fp32, exact) and against the host FPU, cycle by cycle with
// random valid gaps (verif/tb/fp_tb.hpp): every directed binary32 operand with
// every directed binary16 one (verif/fp_directed.hpp), every binary16 operand
// once with a random binary32 one, then a seeded random million (--vectors N
// to change).
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the layer's products x̂ (widened) times
// C_W[iw], instead.
#include <algorithm>

#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::Fp32;
using oasis::tb::fp::Operation;

struct Fp32MulFp16 {
  static constexpr const char* kResult = "prod_o";
  void drive(Vdut& d, const Operation& op) const {
    d.a_i = uint32_t(op.a);
    d.b_i = uint16_t(op.b);
  }
  uint64_t result(const Vdut& d) const { return d.prod_o; }
  uint64_t model(const Operation& op) const {
    return oasis::mul(Fp32{uint32_t(op.a)}, oasis::to_fp32(Fp16{uint16_t(op.b)})).bits;
  }
  uint64_t host(const Operation& op) const {
    const float b = float(std::bit_cast<_Float16>(uint16_t(op.b)));
    return oasis::host::mul(Fp32{uint32_t(op.a)}, Fp32{std::bit_cast<uint32_t>(b)}).bits;
  }
  std::string describe(const Operation& op) const {
    return fmt::format("a=0x{:08x} * b=0x{:04x}", op.a, op.b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp32_mul_fp16", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp32MulFp16> runner(h, Fp32MulFp16{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kProducts, oasis::tb::fp::Format::kFp32);
    return h.finish();
  }

  const auto d32 = oasis::directed::directed32();
  const auto d16 = oasis::directed::directed16();
  uint64_t i = 0;
  runner.run(
      oasis::tb::fp::count_of(d32.size() * d16.size(),
                              [&] {
                                const Operation op{d32[i / d16.size()], d16[i % d16.size()], false};
                                ++i;
                                return op;
                              }),
      0.25);
  // A binary32 operand whose exponent field puts the product near 1, near the
  // subnormal range or near overflow (the binary16 operand's unbiased exponent
  // is -24 to 15), every second with a short fraction (exact products, ties).
  const auto a_for = [&](uint16_t b, uint64_t n) {
    uint32_t a = uint32_t(h.random_bits(32));
    static constexpr int kTargets[4] = {0, 127, 0, 254};
    if (n % 4 != 0) {
      const int eb = int(b >> 10) & 0x1F;
      const int offset = int(h.random_bits(6)) - 32;
      const int ea = std::clamp(kTargets[n % 4] + 15 - eb + offset, 0, 255);
      a = (a & 0x807FFFFFu) | (uint32_t(ea) << 23);
    }
    if (n % 2 == 0) a &= 0xFFFF0000u;
    return a;
  };
  i = 0;
  runner.run(oasis::tb::fp::count_of(1u << 16,
                                     [&] {
                                       const uint16_t b = uint16_t(i);
                                       const Operation op{a_for(b, i), b, false};
                                       ++i;
                                       return op;
                                     }),
             0.25);
  i = 0;
  runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                     [&] {
                                       const uint16_t b = uint16_t(h.random_bits(16));
                                       const Operation op{a_for(b, i), b, false};
                                       ++i;
                                       return op;
                                     }),
             0.25);
  runner.print_rate();
  return h.finish();
}
