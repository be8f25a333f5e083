// SPDX-License-Identifier: Apache-2.0
// Checks the generated unsigned 32-bit integer -> binary32 conversion
// (oasis_fp_from_uint behind oasis_fp_pipe) against oasis::fp32_from_uint
// and the host, cycle by cycle with random valid gaps (verif/tb/fp_tb.hpp):
// the directed list (verif/fp_directed.hpp), every integer below 2^17 (all
// index counts of any config), then a seeded random million (--vectors N)
// spread over every magnitude. With --exhaustive, all 2^32 integers.
// With --workload (verif/tb/fp_tb.hpp, docs/workload.md): the index counts of the layer's rows,
// instead.
#include "Vdut.h"
#include "model/numerics/fp.hpp"
#include "verif/fp_directed.hpp"
#include "verif/host_fpu.hpp"
#include "verif/tb/fp_tb.hpp"

namespace {

using oasis::tb::fp::Operation;

struct UintToFp32 {
  static constexpr const char* kResult = "result_o";
  void drive(Vdut& d, const Operation& op) const { d.n_i = uint32_t(op.a); }
  uint64_t result(const Vdut& d) const { return d.result_o; }
  uint64_t model(const Operation& op) const { return oasis::fp32_from_uint(uint32_t(op.a)).bits; }
  uint64_t host(const Operation& op) const { return oasis::host::from_uint(uint32_t(op.a)).bits; }
  std::string describe(const Operation& op) const { return fmt::format("n=0x{:08x}", op.a); }
};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("uint_to_fp32", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  oasis::tb::fp::Runner<Vdut, UintToFp32> runner(h, UintToFp32{});
  if (options.workload) {
    runner.workload(oasis::tb::fp::LayerOperations::kIndexCounts);
    return h.finish();
  }

  const auto du = oasis::directed::directed_uint();
  runner.run(oasis::tb::fp::each_of({du.begin(), du.end()}), 0.25);
  if (options.exhaustive) {
    runner.run(oasis::tb::fp::exhaustive(32, false), 0.0);
  } else {
    runner.run(oasis::tb::fp::exhaustive(17, false), 0.25);
    runner.run(oasis::tb::fp::count_of(options.vectors ? options.vectors : 1000000,
                                       [&] {
                                         const uint32_t n = uint32_t(h.random_bits(32));
                                         return Operation{n >> h.random_bits(5), 0, false};
                                       }),
               0.25);
  }
  runner.print_rate();
  return h.finish();
}
