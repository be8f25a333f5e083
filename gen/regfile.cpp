// The core's run-time register file (docs/spec.md section 6): LUT, codebooks and
// boundaries behind a 16-bit register port, with the address map written out
// as JSON and as a C++ header. Model: model/regfile.hpp. Test:
// verif/tb/regfile_tb.cpp.
#include <fmt/format.h>

#include "gen/block.hpp"
#include "model/regfile.hpp"

namespace oasis::gen {
namespace {

class RegFile final : public Block {
 public:
  std::string name() const override { return "regfile"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const std::string module = module_name(c, name());
    const auto map = register_map(c);
    const uint64_t hash = std::stoull(config_hash(c), nullptr, 16);
    const int aw = kRegAddrBits;

    std::string ports, decls, writes, resets, flops, reads;
    for (const auto& r : map) {
      if (!r.writable) continue;
      ports += fmt::format(
          "  /// Region '{0}' ({1}), {2} binary16 words, word i at bits [16*i +: 16].\n"
          "  output logic [{3}:0] {0}_o,\n",
          r.name, r.meaning, r.size, r.size * 16 - 1);
      decls += fmt::format("  logic [{1}:0] {0}_d, {0}_q;\n", r.name, r.size * 16 - 1);
      writes += fmt::format(
          "    {0}_d = {0}_q;\n"
          "    for (int i = 0; i < {2}; i++) begin\n"
          "      if (reg_we_i && reg_addr_i == {3}'({1} + i)) {0}_d[i*16 +: 16] = reg_wdata_i;\n"
          "    end\n",
          r.name, r.base, r.size, aw);
      resets += fmt::format("      {}_q <= '0;\n", r.name);
      flops += fmt::format("      {0}_q <= {0}_d;\n", r.name);
      reads += fmt::format(
          "    for (int i = 0; i < {2}; i++) begin\n"
          "      if (reg_addr_i == {3}'({1} + i)) rdata_d = {0}_q[i*16 +: 16];\n"
          "    end\n",
          r.name, r.base, r.size, aw);
    }
    for (const auto& r : map) {
      if (r.writable) continue;  // the hash words are constants
      for (int i = 0; i < r.size; ++i) {
        reads += fmt::format("    if (reg_addr_i == {}'h{:x}) rdata_d = 16'h{:04x};\n", aw,
                             r.base + i, uint16_t(hash >> (16 * i)));
      }
    }
    std::string assigns;
    for (const auto& r : map) {
      if (r.writable) assigns += fmt::format("  assign {0}_o = {0}_q;\n", r.name);
    }

    out.files.push_back({module + ".sv", fmt::format(R"(/// Run-time register file of the OASIS core: the Cartesian-product LUT, the
/// activation and weight codebooks and the clustering boundaries of the
/// current layer, written through a 16-bit register port (address map:
/// regmap.json and oasis_{name}_regmap.hpp beside this file). Writes take
/// effect at the clock edge; a read returns the word as it was before any
/// write of the same cycle, one cycle later with reg_rvalid_o. Unmapped
/// addresses read as 0 and ignore writes. Everything resets to 0.
module {module} (
  /// Clock.
  input  logic        clk_i,
  /// Asynchronous reset, active low.
  input  logic        rst_ni,
  /// Write strobe: reg_wdata_i is written to reg_addr_i at this clock edge.
  input  logic        reg_we_i,
  /// Read strobe: the word at reg_addr_i appears on reg_rdata_o next cycle.
  input  logic        reg_re_i,
  /// Word address.
  input  logic [{amsb}:0]  reg_addr_i,
  /// Write data, one binary16 value or register word.
  input  logic [15:0] reg_wdata_i,
  /// Read data valid, one cycle after reg_re_i.
  output logic        reg_rvalid_o,
{ports}  /// Read data; holds its value until the next read.
  output logic [15:0] reg_rdata_o
);

{decls}  logic [15:0] rdata_d, rdata_q;
  logic        rvalid_q;

  always_comb begin
{writes}  end

  always_comb begin
    rdata_d = rdata_q;
    if (reg_re_i) begin
      rdata_d = 16'h0000;
{reads}    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
{resets}      rdata_q <= '0;
      rvalid_q <= 1'b0;
    end else begin
{flops}      rdata_q <= rdata_d;
      rvalid_q <= reg_re_i;
    end
  end

{assigns}  assign reg_rdata_o  = rdata_q;
  assign reg_rvalid_o = rvalid_q;

endmodule
)",
        fmt::arg("module", module), fmt::arg("name", c.name), fmt::arg("amsb", aw - 1),
        fmt::arg("ports", ports), fmt::arg("decls", decls), fmt::arg("writes", writes),
        fmt::arg("reads", reads), fmt::arg("resets", resets), fmt::arg("flops", flops),
        fmt::arg("assigns", assigns))});

    // The address map, for host software.
    nlohmann::ordered_json json;
    json["spdx_license_identifier"] = "Apache-2.0";
    json["generator"] = fmt::format("oasis-gen {}", OASIS_VERSION);
    json["config"] = c.name;
    json["config_hash"] = config_hash(c);
    json["word_bits"] = 16;
    json["address_bits"] = aw;
    json["regions"] = nlohmann::ordered_json::array();
    std::string header = fmt::format(
        "// Register map of config '{0}': word addresses of the core's register port.\n"
        "#pragma once\n\nnamespace oasis_{0}::regmap {{\n\n"
        "inline constexpr int kAddressBits = {1};\n"
        "inline constexpr unsigned long long kConfigHash = 0x{2}ull;\n",
        c.name, aw, config_hash(c));
    for (const auto& r : map) {
      json["regions"].push_back({{"name", r.name},
                                 {"base", r.base},
                                 {"words", r.size},
                                 {"reserved_words", r.capacity},
                                 {"writable", r.writable},
                                 {"meaning", r.meaning}});
      const std::string camel = upper_camel(r.name);
      header += fmt::format("/// {}\ninline constexpr int k{}Base = 0x{:03x};\n", r.meaning,
                            camel, r.base);
      header += fmt::format("inline constexpr int k{}Words = {};\n", camel, r.size);
    }
    header += fmt::format("\n}}  // namespace oasis_{}::regmap\n", c.name);
    out.aux.push_back({"regmap.json", json.dump(2) + "\n", ""});
    out.aux.push_back({fmt::format("oasis_{}_regmap.hpp", c.name), header});
    out.manifest["read_latency_cycles"] = 1;
    out.manifest["address_bits"] = aw;
    out.manifest["regmap"] = "regmap.json";
    // Its registers, counted as buffers by the real-library flow (docs/ppa.md).
    const int nA = c.act_bits, nW = c.weight_bits;
    out.manifest["memories"] = nlohmann::ordered_json::array(
        {{{"name", "lut"},
          {"what", fmt::format("the LUT: {} binary16 entries", 1 << (nA + nW))},
          {"bits", (1 << (nA + nW)) * 16},
          {"registers", {"lut_q"}}},
         {{"name", "codebooks"},
          {"what", fmt::format("C_A, C_W and the {} boundaries, binary16", (1 << nA) - 1)},
          {"bits", ((1 << nA) + (1 << nW) + (1 << nA) - 1) * 16},
          {"registers", {"act_codebook_q", "weight_codebook_q", "boundaries_q"}}}});
    return out;
  }
};

OASIS_REGISTER_BLOCK(RegFile);

}  // namespace
}  // namespace oasis::gen
