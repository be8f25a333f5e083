// SPDX-License-Identifier: Apache-2.0
// Checks the generated register file against RegFileModel every cycle: the
// region outputs after every write, read data and its valid one cycle after
// the read (old data on a read during a write), unmapped addresses, and the
// read-only config hash.
#include <fmt/format.h>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/regfile.hpp"
#include "verif/harness/harness.hpp"

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

  // Mapped addresses, most of the time; anything otherwise.
  std::vector<int> mapped;
  for (const auto& r : model.map()) {
    for (int i = 0; i < r.size; ++i) mapped.push_back(r.base + i);
  }
  const uint64_t cycles = options.vectors ? options.vectors : 20000;
  bool read_pending = false;
  uint16_t expected_rdata = 0;
  for (uint64_t n = 0; n < cycles && !h.scoreboard().should_stop(); ++n) {
    const bool we = h.coin(0.6), re = h.coin(0.4);
    const int addr = h.coin(0.9) ? mapped[h.random_bits(32) % mapped.size()]
                                 : int(h.random_bits(oasis::kRegAddrBits));
    const uint16_t data = uint16_t(h.random_bits(16));
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
  }
  return h.finish();
}
