// SPDX-License-Identifier: Apache-2.0
// Checks the generated register file against RegFileModel every cycle: the
// region outputs after every write, read data and its valid one cycle after
// the read (old data on a read during a write), unmapped addresses, and the
// read-only config hash. With --workload (docs/workload.md), instead, the register writes of
// the layer of verif/workload.hpp (its LUT, codebooks and boundaries at the map's addresses),
// back to back, then a read of each, back to back.
#include <fmt/format.h>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/regfile.hpp"
#include "verif/harness/harness.hpp"
#include "verif/workload.hpp"

namespace {

oasis::Config config_of(const oasis::tb::Options& options) {
  return oasis::parse_config(options.config_json(), options.manifest_path);
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = oasis::tb::Options::parse("regfile", argc, argv);
  oasis::tb::Harness<Vdut> h(options, argc, argv);
  auto& dut = h.dut();
  const oasis::Config config = config_of(options);
  oasis::RegFileModel model(config);
  using oasis::tb::get_bits;

  const auto check_regions = [&] {
    const auto check = [&](const char* name, const auto& port) {
      const auto words = model.region(name);
      for (size_t i = 0; i < words.size(); ++i) {
        h.check(name, words[i], get_bits(port, int(16 * i), 16), fmt::format("word {}", i));
      }
    };
    check("lut", dut.lut_o);
    check("act_codebook", dut.act_codebook_o);
    check("weight_codebook", dut.weight_codebook_o);
    check("boundaries", dut.boundaries_o);
  };

  dut.reg_we_i = 0;
  dut.reg_re_i = 0;
  dut.reg_addr_i = 0;
  dut.reg_wdata_i = 0;
  h.reset();
  check_regions();

  bool read_pending = false;
  uint16_t expected_rdata = 0;
  // One cycle of the port, checked.
  const auto access = [&](bool we, bool re, int addr, uint16_t data) {
    dut.reg_we_i = we;
    dut.reg_re_i = re;
    dut.reg_addr_i = uint16_t(addr);
    dut.reg_wdata_i = data;
    const std::string ctx =
        fmt::format("we={} re={} addr=0x{:03x} data=0x{:04x}", we, re, addr, data);
    if (re) expected_rdata = model.read(addr);  // before this cycle's write
    if (we) model.write(addr, data);
    h.step();
    h.check("reg_rvalid_o", re, dut.reg_rvalid_o, ctx);
    if (re) h.check("reg_rdata_o", expected_rdata, dut.reg_rdata_o, ctx);
    if (!re && read_pending) h.check("reg_rdata_o held", expected_rdata, dut.reg_rdata_o, ctx);
    read_pending = read_pending || re;
    check_regions();
    h.scoreboard().count_vector();
  };

  if (options.workload) {
    const oasis::tb::Workload w = oasis::tb::build_workload(config, options);
    const oasis::LutGemm& layer = w.model();
    std::vector<std::pair<int, uint16_t>> writes;
    for (const auto& [name, values] :
         {std::pair{"lut", &layer.lut()}, std::pair{"act_codebook", &layer.act_codebook()},
          std::pair{"weight_codebook", &layer.weight_codebook()},
          std::pair{"boundaries", &layer.boundaries()}}) {
      for (const auto& r : model.map()) {
        if (r.name != name) continue;
        if (size_t(r.size) != values->size()) {
          h.fail(fmt::format("region {}: the map has {} words, the model {}", name, r.size,
                             values->size()));
        }
        for (size_t i = 0; i < values->size(); ++i)
          writes.emplace_back(r.base + int(i), (*values)[i].bits);
      }
    }
    oasis::tb::WorkloadWindow window;
    for (const auto& [addr, data] : writes) {
      window.present(h.cycle());
      window.busy();
      access(true, false, addr, data);
    }
    // The reads, with the write data held as last driven.
    const uint16_t held = writes.back().second;
    for (const auto& [addr, data] : writes) {
      window.present(h.cycle());
      window.output(h.cycle() + 1);  // the read's data comes a cycle later
      window.busy();
      access(false, true, addr, held);
    }
    access(false, false, writes.back().first, held);  // the cycle of the last read's data
    oasis::tb::report_workload(h, w, window, "register accesses", 2 * writes.size());
    return h.finish();
  }

  // Mapped addresses, most of the time; anything otherwise.
  std::vector<int> mapped;
  for (const auto& r : model.map()) {
    for (int i = 0; i < r.size; ++i) mapped.push_back(r.base + i);
  }
  const uint64_t cycles = options.vectors ? options.vectors : 20000;
  for (uint64_t n = 0; n < cycles && !h.scoreboard().should_stop(); ++n) {
    const bool we = h.coin(0.6), re = h.coin(0.4);
    const int addr = h.coin(0.9) ? mapped[h.random_bits(32) % mapped.size()]
                                 : int(h.random_bits(oasis::kRegAddrBits));
    const uint16_t data = uint16_t(h.random_bits(16));
    access(we, re, addr, data);
  }
  return h.finish();
}
