// SPDX-License-Identifier: Apache-2.0
// Checks the generated binary16 -> binary32 conversion (oasis_fp_convert
// behind oasis_fp_pipe) against oasis::to_fp32 and the host, cycle by cycle
// with random valid gaps (verif/tb/fp_tb.hpp): every one of the 2^16 inputs,
// twice (once in order, once from the seeded generator).
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the layer's activations x̂, instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::fp::Operation;

struct Fp16ToFp32 {
  static constexpr const char* kResult = "result_o";
  void drive(Vdut& d, const Operation& op) const { d.a_i = uint16_t(op.a); }
  uint64_t result(const Vdut& d) const { return d.result_o; }
  uint64_t model(const Operation& op) const { return oasis::to_fp32(Fp16{uint16_t(op.a)}).bits; }
  uint64_t host(const Operation& op) const {
    return oasis::host::to_fp32(Fp16{uint16_t(op.a)}).bits;
  }
  std::string describe(const Operation& op) const { return fmt::format("a=0x{:04x}", op.a); }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("fp16_to_fp32", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, Fp16ToFp32> runner(h, Fp16ToFp32{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kActivations);
    return h.finish();
  }

  runner.run(oasis::tb::fp::exhaustive(16, false), 0.25);
  runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 65536,
                                     [&] {
                                       return Operation{h.random_bits(16), 0, false};
                                     }),
             0.25);
  runner.print_rate();
  return h.finish();
}
