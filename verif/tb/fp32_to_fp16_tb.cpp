// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary32 -> binary16 rounding (oasis_fp_convert behind
// oasis_fp_pipe) against oasis::to_fp16 and the host, cycle by cycle with
// random valid gaps (verif/tb/fp_tb.hpp): the directed binary32 list
// (verif/fp_directed.hpp); every midpoint between adjacent binary16 values
// (and beyond the largest) with its neighbours one binary32 ulp either side,
// the cases round-to-nearest-even decides; then a seeded random million
// (--vectors N), half of them in or near the binary16 range. With
// --exhaustive, every one of the 2^32 binary32 inputs.
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the binary32 partial sums of the layer's
// rows, instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::Fp32;
using oasis::tb::fp::Operation;

struct Fp32ToFp16 {
  static constexpr const char* kResult = "result_o";
  void drive(Vdut& d, const Operation& op) const { d.a_i = uint32_t(op.a); }
  uint64_t result(const Vdut& d) const { return d.result_o; }
  uint64_t model(const Operation& op) const { return oasis::to_fp16(Fp32{uint32_t(op.a)}).bits; }
  uint64_t host(const Operation& op) const {
    return oasis::host::to_fp16(Fp32{uint32_t(op.a)}).bits;
  }
  std::string describe(const Operation& op) const { return fmt::format("a=0x{:08x}", op.a); }
};

// Binary32 values at each binary16 midpoint and one ulp either side.
std::vector<uint64_t> midpoints() {
  std::vector<uint64_t> out;
  for (uint32_t x = 0; x < 0x7C00; ++x) {
    for (const uint32_t sign : {0u, 0x8000u}) {
      const double lo = oasis::to_double(Fp16{uint16_t(x | sign)});
      const double hi = x == 0x7BFF ? (sign ? -65536.0 : 65536.0)
                                    : oasis::to_double(Fp16{uint16_t((x + 1) | sign)});
      const Fp32 mid = oasis::fp32_from_double((lo + hi) / 2);  // exact in binary32
      for (const int d : {-1, 0, 1}) out.push_back(uint32_t(mid.bits + uint32_t(d)));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp32_to_fp16", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp32ToFp16> runner(h, Fp32ToFp16{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kPartialSums);
    return h.finish();
  }

  const auto d32 = oasis::directed::directed32();
  runner.run(oasis::tb::fp::each_of({d32.begin(), d32.end()}), 0.25);
  if (options.exhaustive) {
    runner.run(oasis::tb::fp::exhaustive(32, false), 0.0);
  } else {
    runner.run(oasis::tb::fp::each_of(midpoints()), 0.25);
    uint64_t i = 0;
    runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                       [&] {
                                         uint32_t a = uint32_t(h.random_bits(32));
                                         if (i++ % 2) {
                                           // Exponent fields 96 .. 159: binary16's
                                           // range (subnormals included) and beyond.
                                           a = (a & 0x807FFFFFu) |
                                               (uint32_t(96 + h.random_bits(6)) << 23);
                                         }
                                         return Operation{a, 0, false};
                                       }),
               0.25);
  }
  runner.print_rate();
  return h.finish();
}
