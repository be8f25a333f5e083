// SPDX-License-Identifier: Apache-2.0
// Checks the generated FP16 comparator against oasis::compare (docs/spec.md
// section 2) every cycle: all pairs of a directed list, seeded random pairs, and with
// --exhaustive every one of the 2^32 pairs. With --workload (docs/workload.md), instead, each
// value of the tokens' x̂ of the layer of verif/workload.hpp against the next one of its token.
#include <fmt/format.h>

#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/numerics/fp.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;

// Zeros, subnormal and normal extremes, neighbours of one, infinities and
// NaNs of both signs with several payloads.
const std::vector<uint16_t> kDirected = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401,
    0x3BFF, 0x3C00, 0x3C01, 0xBC00, 0xBBFF, 0xBC01, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
    0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7FFF, 0xFFFF, 0x7D55, 0x5640, 0xD640};

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("comparator", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  auto& dut = h.dut();

  const auto run = [&](uint16_t a, uint16_t b) {
    dut.a_i = a;
    dut.b_i = b;
    h.settle();
    const int expected = oasis::compare(Fp16{a}, Fp16{b});
    const uint64_t want = (expected < 0 ? 4 : 0) | (expected == 0 ? 2 : 0) | (expected > 0 ? 1 : 0);
    const uint64_t got = (uint64_t(dut.lt_o) << 2) | (uint64_t(dut.eq_o) << 1) | dut.gt_o;
    h.check("{lt,eq,gt}", want, got, fmt::format("a=0x{:04x} b=0x{:04x}", a, b));
    h.scoreboard().count_vector();
    h.step();
  };

  if (options.workload) {
    const oasis::tb::Workload w = oasis::tb::build_workload(
        oasis::parse_config(options.config_json(), options.manifest_path), options);
    oasis::tb::WorkloadWindow window;
    uint64_t comparisons = 0;
    for (const oasis::PreparedToken& t : w.prepared) {
      for (size_t k = 0; k + 1 < t.xhat.size() && !h.scoreboard().should_stop(); ++k) {
        window.present(h.cycle());
        window.output(h.cycle());
        window.busy();
        run(t.xhat[k].bits, t.xhat[k + 1].bits);
        ++comparisons;
      }
    }
    oasis::tb::report_workload(h, w, window, "comparisons", comparisons);
    return h.finish();
  }

  for (const uint16_t a : kDirected) {
    for (const uint16_t b : kDirected) run(a, b);
  }
  if (options.exhaustive) {
    for (uint32_t a = 0; a < 0x10000 && !h.scoreboard().should_stop(); ++a) {
      for (uint32_t b = 0; b < 0x10000; ++b) run(uint16_t(a), uint16_t(b));
    }
  } else {
    const uint64_t n = options.vectors ? options.vectors : 1000000;
    for (uint64_t i = 0; i < n && !h.scoreboard().should_stop(); ++i) {
      // Half the pairs share sign and exponent, so the magnitude compare is hit.
      const uint16_t a = uint16_t(h.random_bits(16));
      uint16_t b = uint16_t(h.random_bits(16));
      if (i & 1) b = uint16_t((a & 0xFC00) | (b & 0x03FF));
      run(a, b);
    }
  }
  return h.finish();
}
