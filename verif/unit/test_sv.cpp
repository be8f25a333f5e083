// SPDX-License-Identifier: Apache-2.0
// The SystemVerilog emission layer (gen/sv.hpp) and what every emitter gets
// from it: folded numbers, wrapped lines, localparams only when used, the
// operator records; and the generated output of whole configs: no line over
// 100 columns, no unfolded constant arithmetic in a range, regular structures
// as parameterized modules, and every named mutation changing the RTL.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/generator.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/config.hpp"
#include "model/derived.hpp"

namespace oasis::gen {
namespace {

// The exact product's segments: a binary16 x binary16 product in binary32.
FpSegments exact_segments() {
  return fp_mul_segments(kBinary32Format, kBinary16Format, kBinary16Format);
}

const std::string kConfigs = std::string(OASIS_SOURCE_DIR) + "/configs/";

TEST(Sv, NumbersAreFolded) {
  EXPECT_EQ(range(int64_t(16)), "[15:0]");
  EXPECT_EQ(range(std::string("34")), "[33:0]");
  EXPECT_EQ(range(std::string("Inputs*Width")), "[Inputs*Width-1:0]");
  EXPECT_EQ(range(std::string("ChanBits + 17")), "[ChanBits+16:0]");
  EXPECT_EQ(range(std::string("ChanBits + 1")), "[ChanBits:0]");
  EXPECT_EQ(range(std::string("(A + 1)*B")), "[(A + 1)*B-1:0]");
  EXPECT_EQ(evaluate("(A + 1)*B - 2", {{"A", 3}, {"B", 5}}), 18);
  EXPECT_EQ(evaluate("A*Width", {{"A", 3}}), std::nullopt);
  EXPECT_EQ(evaluate("$clog2(A)", {{"A", 3}}), std::nullopt);
  EXPECT_EQ(literal(4, 3), "4'd3");
  EXPECT_EQ(lane("v", 0, 16), "v[15:0]");
  EXPECT_EQ(lane("v", 3, 16), "v[48 +: 16]");
  EXPECT_EQ(lane("v", "i", "Width"), "v[i*Width +: Width]");
  EXPECT_EQ(lane("v", "2", "8"), "v[16 +: 8]");
}

TEST(Sv, MaskLiteralStaysShortForThousandsOfBits) {
  std::vector<bool> bits(8192, false);
  for (size_t i = 0; i < 4100; ++i) bits[i] = true;
  const std::string mask = mask_literal(bits);
  EXPECT_EQ(mask, "{{4092{1'b0}}, {4100{1'b1}}}");
  std::vector<bool> small = {true, false, true};
  EXPECT_EQ(mask_literal(small), "3'b101");
  EXPECT_EQ(mask_literal(std::vector<bool>(100, true)), "{100{1'b1}}");
  // 50 valid leaves of 64: two runs, not 64 binary digits (which passed the
  // column limit in a 64-leaf Orizuru).
  std::vector<bool> leaves(64, false);
  for (size_t i = 0; i < 50; ++i) leaves[i] = true;
  EXPECT_EQ(mask_literal(leaves), "{{14{1'b0}}, {50{1'b1}}}");
  std::vector<bool> alternating(40);
  for (size_t i = 0; i < alternating.size(); ++i) alternating[i] = i % 2 == 0;
  EXPECT_EQ(mask_literal(alternating), "40'h5555555555");
}

TEST(Sv, ConcatenationsWrapBeforeTheLimit) {
  std::vector<std::string> items;
  for (int i = 0; i < 40; ++i) items.push_back("boundaries_i[" + std::to_string(i) + "*16 +: 16]");
  const std::string s = "  assign x = " + concat(items, "  ", 13) + ";\n";
  EXPECT_NO_THROW(check_columns("concat", s));
  EXPECT_GT(std::count(s.begin(), s.end(), '\n'), 5);
  // The items in order, each once.
  size_t pos = 0;
  for (const auto& item : items) {
    pos = s.find(item, pos);
    ASSERT_NE(pos, std::string::npos) << item;
  }
}

TEST(Sv, ModuleChecksColumnsAndDropsUnusedLocalparams) {
  SvModule m("oasis_t_example", "An example.");
  m.port({"input", 8, "a_i", "A value."});
  m.port({"output", 8, "y_o", "The value."});
  m.localparam("Used", 8, "Bits of a value.");
  m.localparam("Unused", 3, "Nothing reads it.");
  m.localparam("Derived", "Used * 2", "Read only by a used localparam.");
  m.localparam("Twice", "Derived + 1");
  m << "  // Unused appears in a comment only.\n  assign y_o = a_i + Used'(Twice);\n";
  m.op("add", 8, "y_o");
  const std::string s = m.str();
  EXPECT_NE(s.find("localparam int Used = 8;"), std::string::npos);
  EXPECT_NE(s.find("localparam int Derived = Used * 2;"), std::string::npos);
  EXPECT_EQ(s.find("localparam int Unused"), std::string::npos);
  EXPECT_EQ(s.find("Nothing reads it"), std::string::npos);
  ASSERT_EQ(m.file().operators.size(), 1u);
  EXPECT_EQ(m.file().operators[0].kind, "add");
  SvModule wide("oasis_t_wide", "Too wide.");
  wide << "  assign y_o = " + std::string(120, 'a') + ";\n";
  EXPECT_THROW(wide.str(), std::logic_error);
}

// A module that is not parameterized writes its port widths in localparams of its header; the
// port's number comes from them, and a header localparam nothing reads is left out.
TEST(Sv, PortWidthsAreWrittenInTheHeadersLocalparams) {
  SvModule m("oasis_t_header", "An example.");
  m.header_localparam("Channels", 128, "Channels.");
  m.header_localparam("IdxBits", 4, "Bits of an index.");
  m.header_localparam("LaneBits", "Channels*IdxBits", "A lane.");
  m.header_localparam("Unused", 3, "Nothing reads it.");
  m.header_localparam("Body", 2, "Read by the body only.");
  m.port({"input", 0, "a_i", "Lanes.", "LaneBits"});
  m.port({"output", 0, "y_o", "A lane and a bit.", "Channels*IdxBits + 1"});
  m << "  assign y_o = {1'(Body), a_i};\n";
  EXPECT_EQ(m.file().ports[0].width, 512);
  EXPECT_EQ(m.file().ports[1].width, 513);
  const std::string s = m.str();
  EXPECT_NE(s.find("module oasis_t_header #(\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  localparam int LaneBits = Channels*IdxBits,\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  localparam int Body     = 2\n) ("), std::string::npos) << s;
  EXPECT_NE(s.find("logic [LaneBits-1:0]"), std::string::npos) << s;
  EXPECT_NE(s.find("logic [Channels*IdxBits:0]"), std::string::npos) << s;
  EXPECT_EQ(s.find("Unused"), std::string::npos) << s;
  // A number beside the expression must agree; a name is declared once.
  EXPECT_THROW(m.port({"input", 8, "b_i", "Wrong.", "IdxBits*4"}), std::logic_error);
  EXPECT_THROW(m.header_localparam("IdxBits", 4, "Again."), std::logic_error);
  EXPECT_THROW(m.localparam("Channels", 1, "Also the header's."), std::logic_error);
  EXPECT_THROW(m.header_localparam("Bad", "Missing*2", "Not declared."), std::logic_error);
}

// A parameterized module's header localparam written in its parameters: in the header after
// them, its ports written in it, no number for it (nor for those ports).
TEST(Sv, HeaderLocalparamOfTheParameters) {
  SvModule m("oasis_t_count", "An example.");
  m.param("Inputs", 16, "Bits counted.");
  m.param_localparam("Width", "$clog2(Inputs + 1)", "Bits of the count.");
  m.ports({{"input", 0, "bits_i", "The bits.", "Inputs"},
           {"output", 0, "count_o", "The count.", "Width"}});
  m << "  assign count_o = Width'($countones(bits_i));\n";
  const std::string s = m.str();
  EXPECT_NE(s.find("  parameter  int Inputs = 16,\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  localparam int Width  = $clog2(Inputs + 1)\n) ("), std::string::npos) << s;
  EXPECT_NE(s.find("  output logic [Width-1:0]  count_o\n"), std::string::npos) << s;
  EXPECT_EQ(m.file().ports[1].width, 0);
  EXPECT_THROW(m.param_localparam("Inputs", "2", "Again."), std::logic_error);
}

// Registers of data: no reset, the names aligned, under an enable when given.
TEST(Sv, DataRegistersHaveNoReset) {
  EXPECT_EQ(data_registers({{"out_q", "out_d"}, {"acc_q", "acc_d"}}),
            "  always_ff @(posedge clk_i) begin\n"
            "    out_q <= out_d;\n"
            "    acc_q <= acc_d;\n"
            "  end\n");
  EXPECT_EQ(data_registers({{"data_q", "data_i"}, {"m_q", "m_i", "1'b1"}}, "    ", "take"),
            "    always_ff @(posedge clk_i) begin\n"
            "      if (take) begin\n"
            "        data_q <= data_i;\n"
            "        m_q    <= m_i;\n"
            "      end\n"
            "    end\n");
}

TEST(Sv, PipeStageUnpacksNamedFields) {
  const std::string s = pipe_stage("conv", 2, "v_i", {{"last", 0, "a"}, {"lut", 64, "b"}});
  EXPECT_NE(s.find("logic conv_last;"), std::string::npos);
  EXPECT_NE(s.find("logic [63:0] conv_lut;"), std::string::npos);
  EXPECT_NE(s.find(".Width (65)"), std::string::npos);
  EXPECT_NE(s.find(".data_i ({a, b})"), std::string::npos);
  EXPECT_NE(s.find("assign {conv_last, conv_lut} = conv_q;"), std::string::npos);
}

TEST(Sv, PipeStageRecordIsWrittenInTheFieldsNamedWidths) {
  SvModule m("oasis_t_stage", "An example.");
  m.header_localparam("AccBits", 32, "Bits of a value.");
  m.localparam("Lanes", 4, "Lanes.");
  m.localparam("LaneBits", "Lanes*AccBits", "Every lane's value.");
  m.pipe_stage("mul_side", 1, "v_i",
               {{"last", 0, "a"},
                {"first", 0, "b"},
                {"present", 4, "p", "Lanes"},
                {"tag", 3, "t"},
                {"prod", 128, "x", "LaneBits"}});
  const std::string s = m.str();
  EXPECT_NE(s.find("logic [Lanes-1:0] mul_side_present;"), std::string::npos) << s;
  EXPECT_NE(s.find("logic [2:0] mul_side_tag;"), std::string::npos) << s;
  EXPECT_NE(s.find("logic [LaneBits-1:0] mul_side_prod;"), std::string::npos) << s;
  // The record's width: the fields' in order, runs of numbers summed.
  EXPECT_NE(s.find("localparam int MulSideBits = 2 + Lanes + 3 + LaneBits;"), std::string::npos)
      << s;
  EXPECT_NE(s.find("logic [MulSideBits-1:0] mul_side_q;"), std::string::npos) << s;
  EXPECT_NE(s.find(".Width (MulSideBits)"), std::string::npos) << s;
  // A width as written must be the field's number.
  EXPECT_THROW(m.pipe_stage("bad", 1, "v_i", {{"prod", 64, "x", "LaneBits"}}), std::logic_error);
}

// A chain stage declares its result in the width localparam it is given, which
// must hold the format's width.
TEST(Sv, ChainStageResultIsWrittenInTheFormatsNamedWidth) {
  SvModule m("oasis_t_chain", "An example.");
  m.header_localparam("AccBits", kBinary32Format.width(), "Bits of a binary32 value.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  chain_stage(m, kBinary32Format, FpOp::kAdd, "u_add", "a", "b", "sum", 1, "v_i", {}, "value",
              "AccBits");
  const std::string s = m.str();
  EXPECT_NE(s.find("logic [AccBits-1:0] sum_unit;"), std::string::npos) << s;
  EXPECT_NE(s.find("logic [AccBits-1:0] sum_value;"), std::string::npos) << s;
  EXPECT_THROW(chain_stage(m, kBinary32Format, FpOp::kAdd, "u_bad", "a", "b", "bad", 1, "v_i", {},
                           "value", "HalfBits"),
               std::logic_error);
}

std::map<std::string, std::string> generate_config(const std::string& name,
                                                   const std::vector<std::string>& sets = {},
                                                   const std::string& mutation = "") {
  const Config c = load_config(kConfigs + name + ".json", sets);
  GenerateRequest r{"configs/" + name + ".json", sets, "x"};
  r.mutation = mutation;
  return render(c, r);
}

// Lines of the generated files (every one but JSON and the C driver, below) longer
// than 100 columns, and ranges of the SystemVerilog with constant arithmetic left in them
// ("[2*1-1:0]"), at the shipped configs, corners of the sweeps and the paper's config at
// short clock targets. The Index Counter array is emitted elsewhere (gen/index_counter.cpp)
// and is left out of the ranges' check.
TEST(Sv, GeneratedLinesFitAndRangesAreFolded) {
  const std::regex unfolded(R"(\[[0-9]+ *[-+*] *[0-9]+[^\]]*:)");
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"default", {}},
      {"paper", {}},
      {"default", {"channels=37", "orizuru_unit_inputs=8", "outliers_per_side=5"}},
      {"default", {"channels=50", "orizuru_unit_inputs=64", "outliers_per_side=4"}},
      {"default", {"act_bits=1", "weight_bits=1", "comp_macs=8", "accumulator=fp16"}},
      {"default", {"clustering_levels_per_stage=3", "clustering_lanes=7", "mac_tree_inputs=3"}},
      // Orizuru's pop in many parts: three cuts inside a layer's units (113 columns once).
      {"paper", {"target_period_fo4=40"}},
      {"paper", {"target_period_fo4=50"}}};
  for (const auto& [name, sets] : cases) {
    for (const auto& [file, text] : generate_config(name, sets)) {
      // JSON as nlohmann writes it (the manifest, the register map) and the C driver, whose
      // lines carry the config's prefix in every name (its check: the c99 compile test).
      if (file.ends_with(".json") || file.ends_with("_axi.h")) continue;
      const bool ranges = file.ends_with(".sv") && file.find("index_counter") == std::string::npos;
      std::istringstream lines(text);
      int n = 0;
      for (std::string line; std::getline(lines, line);) {
        ++n;
        EXPECT_LE(line.size(), kMaxColumns) << name << " " << file << ":" << n;
        if (ranges) {
          EXPECT_FALSE(std::regex_search(line, unfolded))
              << name << " " << file << ":" << n << ": " << line;
        }
      }
    }
  }
}

TEST(Sv, RegularStructuresAreParameterizedModules) {
  const auto files = generate_config("paper");
  // One module per structure, whatever the config's sizes.
  for (const char* module :
       {"oasis_paper_tree_level.sv", "oasis_paper_mux_tree.sv",
        "oasis_paper_clustering_unit_level.sv", "oasis_paper_orizuru_side.sv",
        "oasis_paper_orizuru_leaf_unit.sv", "oasis_paper_orizuru_unit.sv",
        "oasis_paper_topk_baseline_level.sv", "oasis_paper_topk_sort_baseline_network.sv"}) {
    ASSERT_TRUE(files.count(module)) << module;
    EXPECT_TRUE(std::regex_search(files.at(module), std::regex(R"(\n  parameter +int )")))
        << module;
  }
  for (const auto& [file, text] : files) {
    EXPECT_EQ(file.find("_level0"), std::string::npos) << file;
  }
  // The PE line's MAC tree: one tree-level instance per level, with numbers.
  const Derived d = derive(load_config(kConfigs + "paper.json"));
  const std::string& mac = files.at("oasis_paper_pe_line_mac_tree.sv");
  size_t levels = 0;
  for (size_t p = mac.find("oasis_paper_tree_level #("); p != std::string::npos;
       p = mac.find("oasis_paper_tree_level #(", p + 1)) {
    ++levels;
  }
  EXPECT_EQ(levels, size_t(d.pe_line.tree_levels));
}

TEST(Sv, OperatorsAreRecordedPerModule) {
  const Config c = load_config(kConfigs + "default.json");
  const Derived d = derive(c);
  const auto manifest = nlohmann::json::parse(generate_config("default").at("manifest.json"));
  const auto& modules = manifest["blocks"]["pe_line"]["modules"];
  // The MAC tree: Tp multipliers of the accumulator's width, and its levels.
  bool mul = false;
  for (const auto& op : modules["oasis_default_pe_line_mac_tree"]["operators"]) {
    if (op["kind"] == "fp_mul") {
      EXPECT_EQ(op["width"], d.accumulator.width());
      EXPECT_EQ(op["count"], d.pe_line.tree_inputs);
      mul = true;
    }
  }
  EXPECT_TRUE(mul);
  int levels = 0;
  for (const auto& in : modules["oasis_default_pe_line_mac_tree"]["instances"]) {
    if (in["module"] == "oasis_default_tree_level") ++levels;
  }
  EXPECT_EQ(levels, d.pe_line.tree_levels);
  // The tree level adds Inputs/2 values of Width bits.
  const auto& level = modules["oasis_default_tree_level"]["operators"][0];
  EXPECT_EQ(level["kind"], "fp_add");
  EXPECT_EQ(level["width"], "Width");
  EXPECT_EQ(level["count"], "Inputs/2");
}

// A line's row in an SRAM (docs/sram.md): the manifest names the module a macro replaces, a
// file of its own holding the primitive's instance, and its instance; the core names its
// lines' SRAMs from its own top; the default line streams and has none.
TEST(Sv, SramMemoriesNameTheirModuleAndInstance) {
  const auto files = generate_config("default", {"weight_beat_indices=4"});
  const auto manifest = nlohmann::json::parse(files.at("manifest.json"));
  const auto& mem = manifest["blocks"]["pe_line"]["memories"][0];
  EXPECT_EQ(mem["name"], "weight_index_buffer");
  EXPECT_EQ(mem["bits"], 16 * 16 * 4);  // 16 words of 16 4-bit indices
  EXPECT_EQ(mem["sram"]["module"], "oasis_default_pe_line_wib_mem");
  EXPECT_EQ(mem["sram"]["instance"], "u_wib.u_mem");
  EXPECT_FALSE(mem.contains("registers"));
  const std::string& wrapper = files.at("oasis_default_pe_line_wib_mem.sv");
  EXPECT_NE(wrapper.find("oasis_sram #("), std::string::npos);
  EXPECT_NE(files.at("oasis_default_pe_line_wib.sv").find("oasis_default_pe_line_wib_mem u_mem"),
            std::string::npos);
  EXPECT_TRUE(files.count("oasis_sram.sv"));
  bool core = false;
  for (const auto& m : manifest["blocks"]["core"]["memories"]) {
    if (m.contains("sram") && m["sram"]["instance"] == "g_line[1].u_line.u_wib.u_mem") core = true;
  }
  EXPECT_TRUE(core);
  const auto plain = nlohmann::json::parse(generate_config("default").at("manifest.json"));
  for (const auto& m : plain["blocks"]["pe_line"]["memories"]) EXPECT_FALSE(m.contains("sram"));
  EXPECT_FALSE(generate_config("default").count("oasis_default_pe_line_wib_mem.sv"));
}

// A mutation no emitter applies, registered by this test alone.
OASIS_REGISTER_MUTATION("test.applied_nowhere", "nothing: no emitter asks for it");

TEST(Mutation, EveryNamedBugChangesTheRtlAndNothingElse) {
  // The second config has a last beat that is partly beyond K (the extent mask), the third
  // Orizuru's pop over three cycles (the side's wait), the next two the registers the clock
  // target places in the baselines, the next registers in the Index Counter array's trees, the
  // next symmetric codebooks (the array's fold), the last a PE line whose row is in an SRAM.
  const std::vector<std::vector<std::string>> configs = {
      {"outliers_per_side=2"},  {"channels=120"},         {"orizuru_pop_cycles=3"},
      {"target_period_fo4=80"}, {"target_period_fo4=50"}, {"index_counter_tree_registers=1"},
      {"codebooks=symmetric"},  {"weight_beat_indices=4"}};
  ASSERT_GT(mutations().size(), 1u);
  for (const Mutation& mut : mutations()) {
    if (mut.name.starts_with("test.")) continue;
    bool applied = false;
    for (const auto& sets : configs) {
      std::map<std::string, std::string> bad;
      try {
        bad = generate_config("default", sets, mut.name);
      } catch (const MutationError& e) {
        EXPECT_NE(std::string(e.what()).find("has no construct"), std::string::npos) << e.what();
        continue;
      }
      applied = true;
      const auto intact = generate_config("default", sets);
      // The block the bug is in, the name's first part: only its files may change (both
      // forms of a structure that has a behavioural one).
      const std::string block = mut.name.substr(0, mut.name.find('.'));
      size_t changed = 0;
      for (const auto& [file, text] : bad) {
        if (!file.ends_with(".sv")) continue;
        // Past the banner, whose regenerate line names the mutation.
        const auto body = [](const std::string& t) { return t.substr(t.find("`default_nettype")); };
        if (body(text) == body(intact.at(file))) continue;
        ++changed;
        EXPECT_NE(file.find(block), std::string::npos) << mut.name << " changes " << file;
      }
      EXPECT_GE(changed, 1u) << mut.name;
      EXPECT_EQ(nlohmann::json::parse(bad.at("manifest.json"))["mutation"], mut.name);
    }
    EXPECT_TRUE(applied) << mut.name << " changes no config of this test";
  }
}

TEST(Mutation, AnUnknownOrInapplicableBugIsRefused) {
  EXPECT_THROW(generate_config("default", {}, "no_such_bug"), MutationError);
  try {
    generate_config("default", {}, "test.applied_nowhere");
    ADD_FAILURE() << "a mutation no emitter applied was accepted";
  } catch (const MutationError& e) {
    EXPECT_NE(std::string(e.what()).find("has no construct"), std::string::npos) << e.what();
  }
  // Without a mutation nothing changes and nothing is refused.
  EXPECT_EQ(generate_config("default"), generate_config("default", {}, ""));
}

// The pipeline registers of a unit (docs/fp_rtl.md, Pipelining): as many as
// asked, the longest stage never longer than with fewer, and no place used
// twice; each stage's delay is its span's, as measured.
TEST(FpCuts, RegistersGoWhereTheDelayIs) {
  for (const FpSegments& seg :
       {fp_add_segments(kBinary16Format), fp_mul_segments(kBinary16Format),
        fp_add_segments(kBinary32Format), fp_mul_segments(kBinary32Format), exact_segments()}) {
    SCOPED_TRACE(seg.unit);
    ASSERT_EQ(seg.names.size(), seg.spans.size());
    double total = 0;
    for (int i = 0; i <= seg.places(); ++i) {
      ASSERT_EQ(int(seg.spans[size_t(i)].size()), seg.places() + 1 - i);
      total += seg.segment_fo4(i);
      // A span is no shorter than a span inside it.
      for (int j = i + 1; j <= seg.places(); ++j) {
        EXPECT_GE(seg.span_fo4(i, j), seg.span_fo4(i, j - 1));
        EXPECT_GE(seg.span_fo4(i, j), seg.span_fo4(i + 1, j));
      }
    }
    // Synthesis optimizes across places that hold no register: the whole unit is shorter
    // than its segments one after another.
    EXPECT_LT(seg.whole_fo4(), total);
    double previous = total + 1;
    for (int stages = 0; stages <= 6; ++stages) {
      const FpCuts c = place_cuts(seg, stages);
      EXPECT_EQ(std::popcount(c.mask) + c.output_stages, stages);
      EXPECT_LT(c.mask, 1u << seg.places());
      ASSERT_EQ(int(c.stage_fo4.size()), std::popcount(c.mask) + 1);
      // Each stage is the span between its registers.
      int first = 0;
      size_t stage = 0;
      for (int i = 0; i <= seg.places(); ++i) {
        if (i == seg.places() || (c.mask >> i & 1u)) {
          EXPECT_DOUBLE_EQ(c.stage_fo4[stage++], seg.span_fo4(first, i));
          first = i + 1;
        }
      }
      EXPECT_LE(c.longest_fo4(), previous);
      previous = c.longest_fo4();
    }
    // Registers are used inside before any goes after the unit.
    EXPECT_EQ(place_cuts(seg, 1).output_stages, 0);
    EXPECT_LT(place_cuts(seg, 1).longest_fo4(), seg.whole_fo4());
    // With more registers than places the longest stage is the longest
    // segment, and a place inside is used only where it shortens that.
    const FpCuts all = place_cuts(seg, seg.places() + 2);
    const std::vector<double> segments = seg.segments_fo4();
    EXPECT_DOUBLE_EQ(all.longest_fo4(), *std::max_element(segments.begin(), segments.end()));
    EXPECT_GE(all.output_stages, 2);
  }
  // The binary16 adder with one register: after the addition, its two stages the spans of
  // segments 0 to 2 and 3 to 5.
  const FpSegments add16 = fp_add_segments(kBinary16Format);
  const FpCuts one = place_cuts(add16, 1);
  EXPECT_EQ(one.mask, 0b00100u);
  ASSERT_EQ(one.stage_fo4.size(), 2u);
  EXPECT_DOUBLE_EQ(one.stage_fo4[0], add16.spans[0][2]);
  EXPECT_DOUBLE_EQ(one.stage_fo4[1], add16.spans[3][2]);
}

// In a chain of units a unit's last register is after it, so that no stage
// spans two units; the others go inside as for a unit alone.
TEST(FpCuts, AChainKeepsARegisterAfterEachUnit) {
  for (const FpFormat& f : {kBinary16Format, kBinary32Format}) {
    for (const FpSegments& seg : {fp_add_segments(f), fp_mul_segments(f)}) {
      const FpCuts none = place_chain_cuts(seg, 0);
      EXPECT_EQ(none.mask, 0u);
      EXPECT_EQ(none.output_stages, 0);
      for (int stages = 1; stages <= 6; ++stages) {
        const FpCuts chain = place_chain_cuts(seg, stages);
        const FpCuts alone = place_cuts(seg, stages - 1);
        EXPECT_GE(chain.output_stages, 1);
        EXPECT_EQ(chain.mask, alone.mask);
        EXPECT_EQ(chain.output_stages, alone.output_stages + 1);
        EXPECT_EQ(chain.stage_fo4, alone.stage_fo4);
      }
    }
  }
  // The binary32 multiplier with two registers: one inside, after the partial products are
  // reduced to carry-save form (its spans 30.1 and 59.0 FO4, where after the carry-save
  // addition they would be 60.3 and 48.1), and one after the unit.
  const FpSegments mul32 = fp_mul_segments(kBinary32Format);
  const FpCuts two = place_chain_cuts(mul32, 2);
  EXPECT_EQ(two.mask, 0b0001u);
  EXPECT_EQ(two.output_stages, 1);
  ASSERT_EQ(two.stage_fo4.size(), 2u);
  EXPECT_DOUBLE_EQ(two.stage_fo4[0], mul32.span_fo4(0, 0));
  EXPECT_DOUBLE_EQ(two.stage_fo4[1], mul32.span_fo4(1, 4));
  EXPECT_LT(two.longest_fo4(), mul32.span_fo4(0, 1));
}

// A clock target picks the stage count (docs/fp_rtl.md, Pipelining), the
// generated units say whether their stages fit it, and a config written back
// reads the same.
TEST(FpCuts, AClockTargetSetsTheStages) {
  const auto stages_at = [](int period) {
    const auto files = generate_config("default", {fmt::format("target_period_fo4={}", period)});
    const auto m = nlohmann::json::parse(files.at("manifest.json"));
    const int s = m["config"]["fp_pipeline_stages"].get<int>();
    bool fits = true;
    for (const char* b : {"fp16_add", "fp16_mul", "fp32_add", "fp32_mul"}) {
      const auto& p = m["blocks"][b]["pipeline"];
      EXPECT_EQ(p["target_period_fo4"], period) << b;
      fits = fits && p["fits_target"].get<bool>();
    }
    // Each unit block takes the registers its own kind and format need (unit_block_stages),
    // at most the chain's; the accumulator format's adder or multiplier needs all of them.
    const auto latency = [&](const char* b) { return m["blocks"][b]["latency_cycles"].get<int>(); };
    const auto& h = kBinary16Format;
    const auto& w = kBinary32Format;
    EXPECT_EQ(latency("fp16_add"), unit_block_stages(period, FpUnitKind::kAdd, h, h, h, s));
    EXPECT_EQ(latency("fp16_mul"), unit_block_stages(period, FpUnitKind::kMul, h, h, h, s));
    EXPECT_EQ(latency("fp32_add"), unit_block_stages(period, FpUnitKind::kAdd, w, w, w, s));
    EXPECT_EQ(latency("fp32_mul"), unit_block_stages(period, FpUnitKind::kMul, w, w, w, s));
    EXPECT_EQ(latency("fp16_to_fp32"), unit_block_stages(period, FpUnitKind::kConvert, w, h, h, s));
    EXPECT_EQ(std::max(latency("fp32_add"), latency("fp32_mul")), s);
    return std::pair(s, fits);
  };
  // A unit of its own at 50 FO4 in the binary32 config: a binary16 adder needs 2 registers
  // where the binary32 adders need 4, and a conversion (16 FO4) one, not the adders' count.
  const auto files = generate_config("default", {"target_period_fo4=50"});
  const auto m50 = nlohmann::json::parse(files.at("manifest.json"));
  EXPECT_EQ(m50["config"]["fp_pipeline_stages"], 4);
  EXPECT_EQ(m50["blocks"]["fp16_add"]["latency_cycles"], 2);
  EXPECT_EQ(m50["blocks"]["fp16_to_fp32"]["latency_cycles"], 1);
  EXPECT_EQ(m50["blocks"]["fp32_mul_fp16_fp16"]["latency_cycles"], 2);
  // The stages are counted for units in a chain (place_chain_cuts): one
  // register after each unit, so at least one; at 130 FO4 the binary32
  // adder's 86.8 FO4 whole fits with it (a binary16 operand goes into a
  // multiplier with no widening before it); at 80 the adder needs one inside
  // (55.8 and 40.3 against 67), at 50 three.
  EXPECT_EQ(stages_at(250), std::pair(1, true));
  EXPECT_EQ(stages_at(130), std::pair(1, true));
  EXPECT_EQ(stages_at(80), std::pair(2, true));
  EXPECT_EQ(stages_at(50), std::pair(4, true));
  // Below what the longest segment allows (the binary32 adder's 34.8 FO4 normalisation
  // against a 31 FO4 budget): every stage, and said so.
  EXPECT_EQ(stages_at(40), std::pair(6, false));
  // The target wins over a stage count given beside it.
  const Config c =
      load_config(kConfigs + "default.json", {"fp_pipeline_stages=0", "target_period_fo4=80"});
  EXPECT_EQ(c.fp_pipeline_stages, 2);
  EXPECT_EQ(parse_config(to_json(c), "written back").fp_pipeline_stages, 2);
  // The units counted are those of the accumulator format: binary16 units
  // (60.1 and 65.7 FO4 whole) fit 80 FO4 with their one register after them.
  EXPECT_EQ(load_config(kConfigs + "default.json", {"accumulator=fp16", "target_period_fo4=80"})
                .fp_pipeline_stages,
            1);
  // At 50 FO4 (a 40 FO4 budget) one register inside each does: the adder's after its addition
  // (38.4 and 33.5 FO4), the multiplier's after its carry-save addition (39.8 and 35.0).
  EXPECT_EQ(load_config(kConfigs + "default.json", {"accumulator=fp16", "target_period_fo4=50"})
                .fp_pipeline_stages,
            2);
  const FpSegments add16 = fp_add_segments(kBinary16Format);
  const FpCuts add16_cuts = place_chain_cuts(add16, 2);
  EXPECT_EQ(add16_cuts.mask, 0b00100u);
  EXPECT_DOUBLE_EQ(add16_cuts.longest_fo4(), add16.span_fo4(0, 2));
  const FpSegments mul16 = fp_mul_segments(kBinary16Format);
  const FpCuts mul16_cuts = place_chain_cuts(mul16, 2);
  EXPECT_EQ(mul16_cuts.mask, 0b0010u);
  EXPECT_DOUBLE_EQ(mul16_cuts.longest_fo4(), mul16.span_fo4(0, 1));
  EXPECT_LE(mul16_cuts.longest_fo4(), fp_stage_budget_fo4(50));
}

}  // namespace
}  // namespace oasis::gen
