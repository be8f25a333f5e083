// SPDX-License-Identifier: Apache-2.0
// The core's run-time register file (docs/spec.md section 6): LUT, codebooks and
// boundaries behind a 16-bit register port, with the address map written out
// as JSON and as a C++ header. Model: model/cycle/regfile.hpp. Test:
// verif/tb/regfile_tb.cpp.
#include "model/cycle/regfile.hpp"

#include <fmt/format.h>

#include "gen/block.hpp"
#include "gen/sv.hpp"
#include "model/cycle/axi.hpp"
#include "model/derived.hpp"

namespace oasis::gen {
namespace {

// The words the read multiplexer picks from, and the read-only regions' localparams.
std::string regfile_words(SvModule& m, const std::vector<RegisterRegion>& map, uint64_t hash) {
  const int aw = kRegAddrBits;
  std::string reads;
  // Every address's read value, region by region in address order, with 0
  // in the gaps; the read is one multiplexer over it.
  std::string cursor = "0";
  int cursor_addr = 0;
  const auto gap = [&](const std::string& to, int to_addr) {
    if (to_addr > cursor_addr) {
      reads += fmt::format(
          "  assign words[{0}*WordBits +:\n               ({1} - {0})*WordBits] = '0;\n", cursor,
          to);
    }
  };
  for (const auto& r : map) {
    const std::string base = upper_camel(r.name) + "Base";
    const std::string words = upper_camel(r.name) + "Words";
    gap(base, r.base);
    cursor = fmt::format("({} + {})", base, words);
    cursor_addr = r.base + r.size;
    if (r.writable) {
      reads += fmt::format("  assign words[{0}*WordBits +: {1}*WordBits] = {2}_q;\n", base, words,
                           r.name);
      continue;
    }
    m.localparam(base, r.base, fmt::format("Region '{}': its first word address.", r.name));
    m.localparam(words, r.size, fmt::format("Region '{}': its words.", r.name));
    std::string value;
    for (int i = r.size - 1; i >= 0; --i) {
      value += fmt::format("{}{}'h{:04x}", value.empty() ? "" : ", ", kRegWordBits,
                           uint16_t(hash >> (kRegWordBits * i)));
    }
    reads += fmt::format("  assign words[{}*WordBits +: {}*WordBits] =\n      {{{}}};\n", base,
                         words, value);
  }
  gap("Words", 1 << aw);
  return reads;
}

// The registers, the write decoder, the read multiplexer and the outputs.
void regfile_body(SvModule& m, const std::vector<RegisterRegion>& map, const std::string& decls,
                  const std::string& writes, const std::string& reads, std::vector<Reg> regs) {
  const int aw = kRegAddrBits;
  regs.push_back({"rdata_q", "rdata_d"});
  regs.push_back({"rvalid_q", "reg_re_i", "1'b0"});
  m << "\n"
    << decls
    << "  logic [WordBits-1:0] rdata_d, rdata_q, read_word;\n"
       "  logic                rvalid_q;\n\n"
       "  always_comb begin\n"
    << writes << "  end\n\n";
  m.comment("Word a's read value at [a*WordBits +: WordBits], 0 where nothing is mapped.");
  m << "  logic [Words*WordBits-1:0] words;\n" << reads;
  m.comment(
      "The read: the OR of every word ANDed with its address's match. No address takes "
      "priority over another, so synthesis balances it into a tree (a chain of ifs would be "
      "a chain of multiplexers as long as the map).");
  m << fmt::format(
      "  always_comb begin\n"
      "    read_word = '0;\n"
      "    for (int a = 0; a < Words; a++) begin\n"
      "      read_word |= {{WordBits{{reg_addr_i == AddrBits'(a)}}}}\n"
      "                   & words[a*WordBits +: WordBits];\n"
      "    end\n"
      "  end\n"
      "  assign rdata_d = reg_re_i ? read_word : rdata_q;\n\n");
  m << registers(regs) << "\n";
  m.op("mux", kRegWordBits, "read_word", (int64_t(1) << aw) - 1);
  for (const auto& r : map) {
    if (r.writable) m << fmt::format("  assign {0}_o = {0}_q;\n", r.name);
  }
  m << "  assign reg_rdata_o  = rdata_q;\n  assign reg_rvalid_o = rvalid_q;\n";
}

// The register file: its ports, each writable region's register and its write.
SvFile regfile_module(const Config& c) {
  const std::string module = module_name(c, "regfile");
  const auto map = register_map(c);
  const uint64_t hash = std::stoull(config_hash(c), nullptr, 16);
  const int aw = kRegAddrBits;

  SvModule m(module,
             fmt::format("Run-time register file of the OASIS core: the Cartesian-product LUT, "
                         "the activation and weight codebooks and the clustering boundaries of "
                         "the current layer, written through a {1}-bit register port (address "
                         "map: regmap.json and oasis_{0}_regmap.hpp beside this file). Writes "
                         "take effect at the clock edge; a read returns the word as it was "
                         "before any write of the same cycle, one cycle later with "
                         "reg_rvalid_o. Unmapped addresses read as 0 and ignore writes. "
                         "Everything resets to 0.",
                         c.name, kRegWordBits));
  m.header_localparam("AddrBits", aw, "Bits of a word address.");
  m.header_localparam("WordBits", kRegWordBits, "Bits of a register word: one binary16 value.");
  std::vector<Port> ports = {
      {"input", 0, "clk_i", "Clock."},
      {"input", 0, "rst_ni", "Asynchronous reset, active low."},
      {"input", 0, "reg_we_i",
       "Write strobe: reg_wdata_i is written to reg_addr_i at this clock edge."},
      {"input", 0, "reg_re_i",
       "Read strobe: the word at reg_addr_i appears on reg_rdata_o "
       "next cycle."},
      {"input", 0, "reg_addr_i", "Word address.", "AddrBits"},
      {"input", 0, "reg_wdata_i", "Write data, one binary16 value or register word.", "WordBits"},
      {"output", 0, "reg_rvalid_o", "Read data valid, one cycle after reg_re_i."}};
  std::string decls, writes;
  std::vector<Reg> regs;
  for (const auto& r : map) {
    if (!r.writable) continue;
    const std::string base = upper_camel(r.name) + "Base";
    const std::string words = upper_camel(r.name) + "Words";
    m.header_localparam(words, r.size, fmt::format("Region '{}': its words.", r.name));
    ports.push_back({"output", 0, r.name + "_o",
                     fmt::format("Region '{}' ({}), {} binary16 words, word i at bits "
                                 "[i*WordBits +: WordBits].",
                                 r.name, r.meaning, words),
                     words + "*WordBits"});
    m.localparam(base, r.base, fmt::format("Region '{}': its first word address.", r.name));
    decls += fmt::format("  logic {1} {0}_d, {0}_q;\n", r.name, range(words + "*WordBits"));
    writes += fmt::format(
        "    {0}_d = {0}_q;\n"
        "    for (int i = 0; i < {2}; i++) begin\n"
        "      if (reg_we_i && reg_addr_i == AddrBits'({1} + i)) begin\n"
        "        {0}_d[i*WordBits +: WordBits] = reg_wdata_i;\n"
        "      end\n"
        "    end\n",
        r.name, base, words);
    m.op("eq", aw, r.name + "_d", 2 * int64_t(r.size));
    regs.push_back({r.name + "_q", r.name + "_d"});
  }
  ports.push_back(
      {"output", 0, "reg_rdata_o", "Read data; holds its value until the next read.", "WordBits"});
  m.ports(ports);
  m.localparam("Words", int64_t(1) << aw, "Word addresses.");
  const std::string reads = regfile_words(m, map, hash);
  regfile_body(m, map, decls, writes, reads, regs);
  return m.file();
}

// The AXI4-Lite map of the system wrapper in regmap.json and the C++ header.
void regmap_axi_lite(const Config& c, nlohmann::ordered_json& json, std::string& header) {
  // The system wrapper's AXI4-Lite map (block axi, docs/axi.md): the register file's window,
  // the control registers, the error codes and the descriptor, from the same model.
  const AxiLiteMap axi = axi_lite_map(c);
  auto& lite = json["axi_lite"];
  lite["data_bits"] = kAxiLiteDataBits;
  lite["address_bits"] = kAxiLiteAddrBits;
  lite["regfile_window"] = {
      {"base", axi.regfile_base}, {"stride", kAxiRegfileStride}, {"words", axi.regfile_words}};
  lite["registers"] = nlohmann::ordered_json::array();
  header += fmt::format(
      "\n/// The system wrapper's AXI4-Lite window (byte offsets): register-file word w at\n"
      "/// kAxiRegfileBase + kAxiRegfileStride * w, bits 15:0, then the control registers.\n"
      "namespace axi {{\n\ninline constexpr int kAddressBits = {};\n"
      "inline constexpr int kRegfileBase = 0x{:03x};\ninline constexpr int kRegfileStride = "
      "{};\n",
      kAxiLiteAddrBits, axi.regfile_base, kAxiRegfileStride);
  for (const AxiRegister& r : axi.registers) {
    nlohmann::ordered_json reg = {{"name", r.name},
                                  {"offset", r.offset},
                                  {"access", access_name(r.access)},
                                  {"meaning", r.meaning}};
    if (r.constant) reg["value"] = r.value;
    header += fmt::format("/// {} ({})\ninline constexpr int k{} = 0x{:03x};\n", r.meaning,
                          access_name(r.access), upper_camel(r.name), r.offset);
    if (!r.fields.empty()) {
      reg["fields"] = nlohmann::ordered_json::array();
      for (const AxiField& f : r.fields) {
        reg["fields"].push_back(
            {{"name", f.name}, {"lsb", f.lsb}, {"bits", f.bits}, {"meaning", f.meaning}});
        header += fmt::format("inline constexpr int k{}{}Lsb = {};\n", upper_camel(r.name),
                              upper_camel(f.name), f.lsb);
      }
    }
    lite["registers"].push_back(reg);
  }
  lite["error_codes"] = nlohmann::ordered_json::array();
  for (const AxiErrorCode& e : axi.errors) {
    lite["error_codes"].push_back({{"name", e.name}, {"code", e.code}, {"meaning", e.meaning}});
    header += fmt::format("inline constexpr int kError{} = {};\n", upper_camel(e.name), e.code);
  }
  lite["descriptor"] = {{"bytes", 64}, {"align", 64}, {"fields", nlohmann::ordered_json::array()}};
  for (const AxiDescField& f : axi.descriptor) {
    lite["descriptor"]["fields"].push_back(
        {{"name", f.name}, {"offset", f.offset}, {"bytes", f.bytes}, {"meaning", f.meaning}});
    header +=
        fmt::format("inline constexpr int kDesc{} = 0x{:02x};\n", upper_camel(f.name), f.offset);
  }
  lite["descriptor"]["flags"] = nlohmann::ordered_json::array();
  for (const AxiField& f : axi.flags) {
    lite["descriptor"]["flags"].push_back(
        {{"name", f.name}, {"bit", f.lsb}, {"meaning", f.meaning}});
    header += fmt::format("inline constexpr int kFlag{} = {};\n", upper_camel(f.name), 1 << f.lsb);
  }
  header += "\n}  // namespace axi\n";
}

// regmap.json and the C++ header: the register file's regions, then the wrapper's map.
void regmap_files(const Config& c, BlockOutput& out) {
  const auto map = register_map(c);
  const int aw = kRegAddrBits;
  // The address map, for host software.
  nlohmann::ordered_json json;
  json["spdx_license_identifier"] = "Apache-2.0";
  json["generator"] = fmt::format("oasis-gen {}", OASIS_VERSION);
  json["config"] = c.name;
  json["config_hash"] = config_hash(c);
  json["word_bits"] = kRegWordBits;
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
    header +=
        fmt::format("/// {}\ninline constexpr int k{}Base = 0x{:03x};\n", r.meaning, camel, r.base);
    header += fmt::format("inline constexpr int k{}Words = {};\n", camel, r.size);
  }
  regmap_axi_lite(c, json, header);
  header += fmt::format("\n}}  // namespace oasis_{}::regmap\n", c.name);
  out.aux.push_back({"regmap.json", json.dump(2) + "\n", ""});
  out.aux.push_back({fmt::format("oasis_{}_regmap.hpp", c.name), header});
}

class RegFile final : public Block {
 public:
  std::string name() const override { return "regfile"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    out.files.push_back(regfile_module(c));
    regmap_files(c, out);
    out.manifest["read_latency_cycles"] = 1;
    out.manifest["address_bits"] = kRegAddrBits;
    out.manifest["regmap"] = "regmap.json";
    // Its registers, counted as buffers by the real-library flow (docs/ppa.md).
    const Derived d = derive(c);
    out.manifest["memories"] = nlohmann::ordered_json::array(
        {{{"name", "lut"},
          {"what", fmt::format("the LUT: {} binary16 entries", d.lut_entries)},
          {"bits", d.lut_entries * kRegWordBits},
          {"registers", {"lut_q"}}},
         {{"name", "codebooks"},
          {"what", fmt::format("C_A, C_W and the {} boundaries, binary16", d.boundaries)},
          {"bits", (d.act_centroids + d.weight_centroids + d.boundaries) * kRegWordBits},
          {"registers", {"act_codebook_q", "weight_codebook_q", "boundaries_q"}}}});
    return out;
  }
};

OASIS_REGISTER_BLOCK(RegFile);

}  // namespace
}  // namespace oasis::gen
