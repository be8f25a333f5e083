// SPDX-License-Identifier: Apache-2.0
// The one reader of the manifest the scripts call, `oasis-gen --query FILE
// KEY.PATH` (gen/query.hpp): values as the scripts want them, and a clear
// message with exit status 2 for a key, a file or an argument that is wrong.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "gen/query.hpp"
#include "gen/replay_tb.hpp"
#include "model/config.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis::gen {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

const ordered_json kDoc = ordered_json::parse(R"({
  "config": {"name": "default", "channels": 128, "fp": true, "none": null},
  "blocks": {
    "comparator": {"top": "oasis_default_comparator",
                   "ports": [{"name": "a_i", "width": 16}, {"name": "lt_o", "width": 1}]},
    "regfile": {"top": "oasis_default_regfile", "ports": [{"name": "clk_i", "width": 1}]}
  },
  "files": ["a.sv", "b.sv"],
  "empty": []
})");

std::string q(const std::string& path) { return query_text(query(kDoc, path)); }

TEST(Query, PrintsScalarsStringsUnquotedAndArraysOneItemALine) {
  EXPECT_EQ(q("config.name"), "default\n");
  EXPECT_EQ(q("config.channels"), "128\n");
  EXPECT_EQ(q("config.fp"), "true\n");
  EXPECT_EQ(q("config.none"), "null\n");
  EXPECT_EQ(q("files"), "a.sv\nb.sv\n");
  EXPECT_EQ(q("files.1"), "b.sv\n");
  EXPECT_EQ(q("empty"), "");
  EXPECT_EQ(q("blocks.comparator.ports.0"), "{\"name\":\"a_i\",\"width\":16}\n");
  EXPECT_EQ(q("blocks.comparator"),
            "{\"top\":\"oasis_default_comparator\",\"ports\":[{\"name\":\"a_i\",\"width\":16},"
            "{\"name\":\"lt_o\",\"width\":1}]}\n");
}

TEST(Query, AKeyOnAnArrayReadsItFromEveryItem) {
  EXPECT_EQ(q("blocks.comparator.ports.name"), "a_i\nlt_o\n");
  EXPECT_EQ(q("blocks.comparator.ports.width"), "16\n1\n");
}

TEST(Query, AStarOnAnObjectReadsEveryMemberInOrder) {
  EXPECT_EQ(q("blocks.*.top"), "oasis_default_comparator\noasis_default_regfile\n");
  EXPECT_EQ(q("blocks.*.ports.name"), "[\"a_i\",\"lt_o\"]\n[\"clk_i\"]\n");
  EXPECT_EQ(q("config.*"), "default\n128\ntrue\nnull\n");
}

TEST(Query, AWrongPathNamesWhatIsMissingAndWhatIsThere) {
  const auto message = [](const std::string& path) {
    try {
      query(kDoc, path);
    } catch (const QueryError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("config.nme"),
            "no key 'config.nme': 'config' holds the keys name, channels, fp, none");
  EXPECT_EQ(message("cfg"), "no key 'cfg': the top holds the keys config, blocks, files, empty");
  EXPECT_EQ(message("files.2"), "no key 'files.2': 'files' holds an array of 2 items");
  EXPECT_EQ(message("config.channels.x"),
            "no key 'config.channels.x': 'config.channels' holds the number 128");
  EXPECT_EQ(message("blocks.comparator.ports.dir"),
            "no key 'blocks.comparator.ports.dir': 'blocks.comparator.ports' holds the keys name, "
            "width");
  EXPECT_EQ(message("config..name"),
            "'config..name' is not a key path: keys joined by dots, none empty");
  EXPECT_EQ(message(""), "'' is not a key path: keys joined by dots, none empty");
}

// The command line, on a manifest oasis-gen wrote.
class QueryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("oasis_query_{}", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const Config c = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json");
    std::ofstream(dir_ / "manifest.json")
        << render(c, {"configs/default.json", {}, "x"}).at("manifest.json");
    std::ofstream(dir_ / "broken.json") << "{\"config\": ";
    // Hostile files (issue #63): nested 100,000 deep, a number beyond a double, a key twice, and
    // more than the 16 MiB a file may hold.
    std::ofstream(dir_ / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
    std::ofstream(dir_ / "huge_number.json") << "{\"files\": [1e400]}";
    std::ofstream(dir_ / "twice.json") << "{\"config\": {\"name\": \"a\", \"name\": \"b\"}}";
    std::ofstream(dir_ / "large.json") << std::string((16u << 20) + 1, ' ');
  }
  void TearDown() override { fs::remove_all(dir_); }

  test::CmdResult run(const std::string& args, bool with_stderr) const {
    return test::run_command(fmt::format("cd {} && {} --query {}{}", shell_word(dir_.string()),
                                         shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-gen"),
                                         args, with_stderr ? " 2>&1" : ""));
  }

  fs::path dir_;
};

TEST_F(QueryCli, PrintsTheValue) {
  auto r = run("manifest.json config.name", false);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "default\n");
  r = run("manifest.json blocks.comparator.ports.name", false);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "a_i\nb_i\nlt_o\neq_o\ngt_o\n");
  r = run("manifest.json derived.cycles_per_row", false);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "8\n");
}

TEST_F(QueryCli, BadInputExitsTwoWithOneMessageOnStderr) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"manifest.json blocks.nope.top",
       "oasis-gen: --query: manifest.json: no key 'blocks.nope.top': 'blocks' holds the keys "},
      {"missing.json config.name",
       "oasis-gen: --query: missing.json: cannot be read (No such file or directory)\n"},
      {"broken.json config.name", "oasis-gen: --query: broken.json: is not valid JSON: "},
      {". config.name", "oasis-gen: --query: .: is a folder; allowed: a file\n"},
      {"manifest.json", "oasis-gen: "},
      // An index beyond every integer: no such item, not an uncaught std::out_of_range.
      {"manifest.json files.99999999999999999999999",
       "oasis-gen: --query: manifest.json: no key 'files.99999999999999999999999': 'files' "
       "holds an array of "},
      {"deep.json x",
       "oasis-gen: --query: deep.json: arrays and objects nested more than 64 deep "
       "at '[0][0][0]"},
      {"huge_number.json files",
       "oasis-gen: --query: huge_number.json: the number 1e400 at 'files[0]' is "
       "beyond the range of a double"},
      {"twice.json config.name",
       "oasis-gen: --query: twice.json: key 'name' appears twice in the object at "
       "'config'\n"},
      {"large.json x",
       "oasis-gen: --query: large.json: is 16777217 bytes; allowed: at most 16777216 bytes\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto quiet = run(c.args, false);
    EXPECT_EQ(quiet.status, 2);
    EXPECT_EQ(quiet.out, "");  // nothing on stdout
    const auto r = run(c.args, true);
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.starts_with(c.message)) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

// The commands' and testbenches' typed reader (gen/manifest.hpp): the generated manifest reads
// back whole; a file that is not oasis-gen's, and a block or figure it lacks, give one message
// naming the file and what is there.
TEST(Manifest, ReadsTheGeneratedOneAndNamesWhatIsMissing) {
  const auto files = render(load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json"),
                            {"configs/default.json", {}, "x"});
  const Manifest m = Manifest::parse(files.at("manifest.json"), "x/manifest.json");
  EXPECT_EQ(m.config_name(), "default");
  EXPECT_EQ(m.blocks().front(), "axi");
  EXPECT_TRUE(m.has_block("core"));
  EXPECT_EQ(m.top("comparator"), "oasis_default_comparator");
  ASSERT_FALSE(m.ports("comparator").empty());
  EXPECT_EQ(m.ports("comparator").front().name, "a_i");
  EXPECT_EQ(m.ports("comparator").front().width, 16);
  EXPECT_EQ(m.number("config", "channels"), 128);
  // A figure: the block's first (what it built), then the derived figures, then the config's
  // (what was asked); a flag as 0 or 1. The MAC line builds a tree of min(M, T) = 16 inputs
  // where the config asks for T = 32, and the FIGLUT-class line's LUTs have 8 entries where
  // the PE line's have 256.
  EXPECT_EQ(m.figure("pe_line", "channels"), 128);
  EXPECT_EQ(m.figure("pe_line", "lut_entries"), m.number("derived", "lut_entries"));
  EXPECT_EQ(m.figure("pe_line", "row_interval_cycles"), m.number("pe_line", "row_interval_cycles"));
  EXPECT_EQ(m.number("config", "mac_tree_inputs"), 32);
  EXPECT_EQ(m.figure("mac_line_baseline", "mac_tree_inputs"), 16);
  EXPECT_EQ(m.figure("woq_lut_line_baseline", "lut_entries"), 8);
  EXPECT_EQ(m.figure("pe_line", "no_such_figure"), std::nullopt);
  const auto message = [&](const auto& call) -> std::string {
    try {
      call();
    } catch (const ManifestError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message([&] { m.block("nosuch"); })
                .rfind("x/manifest.json: no block 'nosuch'; its "
                       "blocks: axi, clustering_unit, comparator",
                       0),
            0u);
  EXPECT_EQ(message([&] { m.number("config", "name"); }),
            "x/manifest.json: no integer config.name");
  EXPECT_EQ(message([&] { Manifest::parse("{", "f.json"); }).rfind("f.json: is not valid JSON", 0),
            0u);
  EXPECT_EQ(
      message([&] {
        Manifest::parse(R"({"generator": {"tool": "other"}, "config": {}, "derived": {},
                            "blocks": {}})",
                        "f.json");
      }),
      "f.json: not a manifest of oasis-gen (an object with generator.tool \"oasis-gen\", config, "
      "derived and blocks)");
  // A port's width that is not an integer (found by the query fuzz target: 1e21 went through
  // nlohmann's cast to int64_t, undefined behaviour).
  const auto with_width = [](const std::string& width) {
    return Manifest::parse(R"({"generator": {"tool": "oasis-gen"}, "config": {}, "derived": {},
                               "blocks": {"b": {"ports": [{"direction": "input", "name": "a",
                               "width": )" +
                               width + "}]}}}",
                           "f.json");
  };
  EXPECT_EQ(with_width("8").ports("b").front().width, 8);
  for (const char* width : {"1184467440737095516166", "1e21", "0", "-3", "\"8\""}) {
    EXPECT_EQ(message([&] { with_width(width).ports("b"); })
                  .rfind("f.json: block 'b': a port whose width is not an integer from 1 to "
                         "2147483647: ",
                         0),
              0u)
        << width;
  }
  EXPECT_EQ(message([&] { Manifest::read("/nonexistent/manifest.json"); }),
            "/nonexistent/manifest.json: cannot be read (No such file or directory)");
  EXPECT_EQ(
      message([&] { Manifest::parse(std::string(70, '[') + std::string(70, ']'), "f.json"); }),
      "f.json: arrays and objects nested more than 64 deep at "
      "'[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]...'");
}

// The Icarus replay testbench (sim/icarus) from a block's ports: the header
// the Verilator recorder writes for them (every port but the clock, in the
// manifest's order), one expected value per output, the X rule's qualifier.
TEST(ReplayTb, FollowsTheManifestsPorts) {
  const Manifest m = Manifest::parse(R"({"generator": {"tool": "oasis-gen"}, "config": {},
    "derived": {}, "blocks": {"x": {"top": "oasis_t_x", "ports": [
      {"name": "clk_i", "direction": "input", "width": 1},
      {"name": "rst_ni", "direction": "input", "width": 1},
      {"name": "in_data_i", "direction": "input", "width": 8},
      {"name": "out_valid_o", "direction": "output", "width": 1},
      {"name": "out_data_o", "direction": "output", "width": 4}]},
    "y": {"top": "oasis_t_y", "ports": [
      {"name": "a_i", "direction": "input", "width": 16},
      {"name": "lt_o", "direction": "output", "width": 1}]}}})",
                                     "test");
  const std::string x = replay_testbench(m, "x");
  EXPECT_NE(x.find("if (line != \"# ports: in:rst_ni:1 in:in_data_i:8 out:out_valid_o:1 "
                   "out:out_data_o:4\\n\")"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("oasis_t_x u_dut (\n    .clk_i(clk_i),\n    .rst_ni(rst_ni),"),
            std::string::npos);
  EXPECT_NE(x.find("logic [3:0] exp_out_data_o;"), std::string::npos);
  EXPECT_NE(x.find("got = $fscanf(fd, \"%h %h %h %h\\n\",\n"
                   "                    rst_ni, in_data_i, exp_out_valid_o, exp_out_data_o);"),
            std::string::npos)
      << x;
  // Data may be X while its valid is recorded low; a one-bit output never.
  EXPECT_NE(x.find("if (xs > 0 && exp_out_valid_o === 1'b0) tolerated"), std::string::npos);
  EXPECT_NE(x.find("armed = 1'b0;"), std::string::npos) << "armed by the first reset cycle";
  EXPECT_NE(x.find("parameter int Settle = 1"), std::string::npos);
  // A combinational unit: no clock, armed from the first vector.
  const std::string y = replay_testbench(m, "y");
  EXPECT_EQ(y.find("clk_i"), std::string::npos) << y;
  EXPECT_NE(y.find("armed = 1'b1;"), std::string::npos);
  EXPECT_THROW(replay_testbench(m, "nosuch"), ManifestError);
}

}  // namespace
}  // namespace oasis::gen
