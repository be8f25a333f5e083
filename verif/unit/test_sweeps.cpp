// SPDX-License-Identifier: Apache-2.0
// The sweeps' reader (sim/tools/sweeps.hpp, docs/testing.md): a table gives the tests its rows
// state, with their commands, labels, timeouts, locks and environment; every malformed row is
// refused with one message naming its file, its line and what is allowed; oasis-sweeps writes
// the CTest script and the runs, and refuses a malformed table before writing anything.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "sim/tools/sweeps.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis::sweeps {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const std::string kFile = "sim/sweeps/blk.txt";

// Block blk's table `text`, its tests as run from /src in /b.
std::vector<sweeps::Test> tests_of(const std::string& text,
                                   std::vector<std::string>* left_out = nullptr,
                                   const std::string& build = "/b") {
  std::vector<std::string> ignored;
  return tests({parse("blk", text, kFile)}, "/src", build, left_out ? *left_out : ignored);
}

const sweeps::Test* find_test(const std::vector<sweeps::Test>& tests, const std::string& name) {
  for (const sweeps::Test& t : tests) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The error `text` is refused with ("" when it is read).
std::string error_of(const std::string& text) {
  try {
    tests_of(text);
  } catch (const SweepError& e) {
    return e.what();
  }
  return "";
}

const std::string kGood =
    "# A comment, then a blank line.\n"
    "\n"
    "a1  verilator,netlist:regress,resets  configs/default.json  channels=5 act_bits=2\n"
    "a1  icarus:regress,gates  -- --vectors 4\n"
    "b2\tverilator:regress:yosys-regress,hier,behavioural,workload  configs/paper.json\n"
    "  b2  regress,exhaustive  -- --seed 3 --vectors 40\n"
    "f3  flows  configs/default.json  channels=5\n";

TEST(Sweeps, AGoodTableGivesItsTests) {
  const std::vector<sweeps::Test> tests = tests_of(kGood);
  std::vector<std::string> names;
  for (const sweeps::Test& t : tests) names.push_back(t.name);
  EXPECT_EQ(names, (Args{"vl.blk.a1", "yosys.blk.a1", "vl.blk.a1.netlist", "vl.blk.a1.resets101",
                         "vl.blk.a1.resets202", "vl.blk.a1.resets303", "iv.blk.a1",
                         "iv.blk.a1.gates", "vl.blk.b2", "yosys.blk.b2", "vl.blk.b2.hier",
                         "vl.blk.b2.behavioural", "vl.blk.b2.workload", "vl.blk.b2.regress",
                         "yosys.blk.b2.regress", "vl.blk.b2.exhaustive", "flows.f3"}));

  const Args a1 = {
      "--build", "/b", "--block", "blk",        "--config", "/src/configs/default.json",
      "--label", "a1", "--set",   "channels=5", "--set",    "act_bits=2"};
  const auto with = [](const std::string& program, Args args, const Args& more) {
    args.insert(args.begin(), "/src/sim/" + program);
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  // name, command, CTest label, timeout, lock, environment
  const std::vector<sweeps::Test> expected = {
      {"vl.blk.a1", with("vltest", a1, {"--"}), "verilator", 3600, "vl.blk.a1", ""},
      {"yosys.blk.a1", with("synthcheck", a1, {}), "verilator", 3600, "", ""},
      {"vl.blk.a1.netlist", with("vltest", a1, {"--netlist", "--"}), "regress", 3600, "vl.blk.a1",
       ""},
      {"vl.blk.a1.resets202", with("vltest", a1, {"--"}), "resets", 3600, "vl.blk.a1",
       "RESET_SEED=202"},
      {"iv.blk.a1", with("icarus", a1, {"--", "--vectors", "4"}), "regress", 3600, "vl.blk.a1", ""},
      {"iv.blk.a1.gates", with("icarus", a1, {"--gates", "--", "--vectors", "4"}), "verilator",
       3600, "vl.blk.a1", ""},
      {"yosys.blk.b2",
       {"/src/sim/synthcheck", "--build", "/b", "--block", "blk", "--config",
        "/src/configs/paper.json", "--label", "b2"},
       "regress",
       3600,
       "",
       ""},
      {"vl.blk.b2.hier",
       {"/src/sim/vltest", "--build", "/b", "--block", "blk", "--config", "/src/configs/paper.json",
        "--label", "b2", "--hier", "--"},
       "hier",
       3600,
       "vl.blk.b2",
       ""},
      {"vl.blk.b2.behavioural",
       {"/src/sim/vltest", "--build", "/b", "--block", "blk", "--config", "/src/configs/paper.json",
        "--label", "b2", "--behavioural", "--"},
       "verilator",
       3600,
       "vl.blk.b2",
       ""},
      {"vl.blk.b2.workload",
       {"/src/sim/vltest", "--build", "/b", "--block", "blk", "--config", "/src/configs/paper.json",
        "--label", "b2", "--"},
       "workload",
       3600,
       "vl.blk.b2",
       ""},
      {"yosys.blk.b2.regress",
       {"/src/sim/synthcheck", "--build", "/b", "--block", "blk", "--config",
        "/src/configs/paper.json", "--label", "b2"},
       "regress",
       3600,
       "",
       ""},
      {"vl.blk.b2.exhaustive",
       {"/src/sim/vltest", "--build", "/b", "--block", "blk", "--config", "/src/configs/paper.json",
        "--label", "b2", "--", "--seed", "3", "--vectors", "40"},
       "exhaustive",
       14400,
       "vl.blk.b2",
       ""},
      {"flows.f3",
       {"/src/sim/flowcheck", "--build", "/b", "--config", "/src/configs/default.json", "--label",
        "f3", "--set", "channels=5"},
       "flows",
       1800,
       "",
       ""},
  };
  for (const sweeps::Test& e : expected) {
    const sweeps::Test* t = find_test(tests, e.name);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->command, e.command) << e.name;
    EXPECT_EQ(t->label, e.label) << e.name;
    EXPECT_EQ(t->timeout, e.timeout) << e.name;
    EXPECT_EQ(t->resource_lock, e.resource_lock) << e.name;
    EXPECT_EQ(t->environment, e.environment) << e.name;
  }
}

TEST(Sweeps, AGoodTableGivesItsRunsAsJson) {
  const std::string json = runs_json({parse("blk", kGood, kFile)});
  EXPECT_EQ(json.substr(0, 2), "[\n");
  EXPECT_NE(json.find("  {\"block\":\"blk\",\"kind\":\"gates\",\"label\":\"a1\",\"config\":"
                      "\"configs/default.json\",\"sets\":[\"channels=5\",\"act_bits=2\"],"
                      "\"tb_args\":[\"--vectors\",\"4\"]},\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("  {\"block\":\"blk\",\"kind\":\"flows\",\"label\":\"f3\",\"config\":"
                      "\"configs/default.json\",\"sets\":[\"channels=5\"],\"tb_args\":[]}\n]\n"),
            std::string::npos)
      << json;
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 2 + 12) << "one line a run: " << json;
}

TEST(Sweeps, KindHierIsLeftOutWhereAPathHoldsASpace) {
  std::vector<std::string> left_out;
  const std::vector<sweeps::Test> tests = tests_of(kGood, &left_out, "/a build");
  EXPECT_EQ(find_test(tests, "vl.blk.b2.hier"), nullptr);
  EXPECT_NE(find_test(tests, "vl.blk.b2.behavioural"), nullptr);
  EXPECT_EQ(left_out,
            Args{"vl.blk.b2.hier left out: the build or source folder's path holds a space"});
  EXPECT_NE(ctest_script(tests, left_out)
                .find("\n# vl.blk.b2.hier left out: the build or source folder's path holds a "
                      "space\n"),
            std::string::npos);
}

TEST(Sweeps, TheCTestScriptQuotesEveryArgument) {
  const std::vector<sweeps::Test> tests = {
      {"vl.b.l", {"/a \"b\"/$x\\y", "--"}, "resets", 3600, "vl.b.l", "RESET_SEED=101"},
      {"flows.l", {"/f"}, "flows", 1800, "", ""}};
  const std::string script = ctest_script(tests, {});
  EXPECT_NE(script.find("\nadd_test(\"vl.b.l\" \"/a \\\"b\\\"/\\$x\\\\y\" \"--\")\n"
                        "set_tests_properties(\"vl.b.l\" PROPERTIES LABELS \"resets\" TIMEOUT 3600 "
                        "RESOURCE_LOCK \"vl.b.l\" ENVIRONMENT \"RESET_SEED=101\")\n"
                        "add_test(\"flows.l\" \"/f\")\n"
                        "set_tests_properties(\"flows.l\" PROPERTIES LABELS \"flows\" TIMEOUT "
                        "1800)\n"),
            std::string::npos)
      << script;
}

TEST(Sweeps, EveryMalformedRowIsRefusedWithItsMessage) {
  const std::string kinds =
      "verilator, regress, exhaustive, netlist, resets, workload, hier, behavioural, icarus, "
      "gates, flows";
  const std::string rows =
      "'label kinds config [key=value ...] [-- testbench arguments]', then 'label kinds [-- "
      "testbench arguments]'";
  const std::string first = "a1  verilator,icarus  configs/default.json  channels=5\n";
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"a1  verilator  configs/default.json  name=\"x\"\n",
            "1: 'name=\"x\"' holds a quote or a backslash; allowed: words without either"},
           {"# comment\n\na1  verilator  configs/default.json  --  --x\\y\n",
            "3: '--x\\y' holds a quote or a backslash; allowed: words without either"},
           {"A1  verilator  configs/default.json\n",
            "1: label 'A1'; allowed: lower-case letters, digits and _"},
           {"a1\n", "1: label 'a1' with no kinds; allowed: " + rows},
           {"a1  --  --vectors 4\n", "1: label 'a1' with no kinds; allowed: " + rows},
           {"a1  verilator,iverilog  configs/default.json\n",
            "1: unknown kind 'iverilog'; allowed: " + kinds},
           {"a1  configs/default.json  channels=5\n",
            "1: unknown kind 'configs/default.json' (the kinds come before the config); "
            "allowed: " +
                kinds},
           {"a1  verilator,,icarus  configs/default.json\n",
            "1: empty kind in 'verilator,,icarus'; allowed: kinds joined by commas, no spaces "
            "(verilator,netlist:regress)"},
           {"a1  icarus:yosys-regress  configs/default.json\n",
            "1: kind icarus with option 'yosys-regress'; allowed: regress"},
           {"a1  verilator:later  configs/default.json\n",
            "1: kind verilator with option 'later'; allowed: regress, yosys-regress"},
           {"a1  regress:regress  configs/default.json\n",
            "1: kind regress with option 'regress'; allowed: none (it runs in make regress, and "
            "so does its Yosys check)"},
           {"a1  verilator  channels=5\n",
            "1: 'channels=5' is not a config; allowed after the kinds: a config relative to the "
            "project (configs/<name>.json), or -- and testbench arguments"},
           {"a1  verilator  /work/configs/default.json\n",
            "1: '/work/configs/default.json' is not a config; allowed after the kinds: a config "
            "relative to the project (configs/<name>.json), or -- and testbench arguments"},
           {"a1  verilator  configs/default.json  channels\n",
            "1: 'channels' is not key=value; allowed after the config: key=value overrides, then "
            "-- and testbench arguments"},
           {"a1  verilator  configs/default.json  channels=\n",
            "1: 'channels=' is not key=value; allowed after the config: key=value overrides, "
            "then -- and testbench arguments"},
           {"a1  verilator  configs/default.json  ctest=regress\n",
            "1: 'ctest=regress' is not a config key; allowed: a kind in make regress as "
            "kind:regress, verilator's Yosys check as verilator:yosys-regress"},
           {"a1  verilator  configs/default.json  yosys=regress\n",
            "1: 'yosys=regress' is not a config key; allowed: a kind in make regress as "
            "kind:regress, verilator's Yosys check as verilator:yosys-regress"},
           {"a1  verilator  configs/default.json  channels=5 act_bits=2 channels=6\n",
            "1: key 'channels' is set twice; allowed: each key once"},
           {first + "a1  netlist  configs/default.json  channels=5\n",
            "2: label 'a1' has its config at line 1 already; allowed: one config a label, its "
            "other runs in rows 'label kinds [-- testbench arguments]'"},
           {first + "b2  netlist  --  --vectors 4\n",
            "2: label 'b2' has no config above; allowed: its first row " + rows},
           {first + "a1  netlist,icarus:regress  --  --vectors 4\n",
            "2: kind icarus of label 'a1' is run at line 1 already; allowed: each kind once a "
            "label"},
           {"f3  flows  configs/default.json  --  --vectors 4\n",
            "1: kind flows with testbench arguments; allowed: none (sim/flowcheck runs no "
            "testbench)"},
       }) {
    EXPECT_EQ(error_of(text), kFile + ":" + message) << text;
  }
  EXPECT_EQ(error_of(kGood), "");
}

// Names of tests made twice: a flows run named as a config's check (flows.<config>,
// verif/CMakeLists.txt), and two blocks' flows runs of one label.
TEST(Sweeps, NoTwoRowsMakeOneTest) {
  const std::string source = OASIS_SOURCE_DIR;
  std::vector<std::string> left_out;
  try {
    tests({parse("blk", "default  flows  configs/paper.json\n", kFile)}, source, "/b", left_out);
    ADD_FAILURE() << "flows.default taken";
  } catch (const SweepError& e) {
    EXPECT_EQ(std::string(e.what()),
              kFile +
                  ":1: flows.default is the make regress check of configs/default.json; "
                  "allowed: a label no config in configs/ is named");
  }
  try {
    tests({parse("blk", "f3  flows  configs/default.json\n", kFile),
           parse("two", "# the second\nf3  flows  configs/paper.json\n", "sim/sweeps/two.txt")},
          source, "/b", left_out);
    ADD_FAILURE() << "flows.f3 made twice";
  } catch (const SweepError& e) {
    EXPECT_EQ(std::string(e.what()), "sim/sweeps/two.txt:2: test flows.f3 is made at " + kFile +
                                         ":1 already; allowed: a test made once");
  }
}

class SweepFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oasis_sweeps_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sim/sweeps");
    fs::create_directories(dir_ / "configs");
    std::ofstream(dir_ / "configs/default.json") << "{}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / "sim/sweeps" / name) << text;
  }
  std::string contents(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string error() {
    try {
      read(dir_);
    } catch (const SweepError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(SweepFiles, AreOneTableABlockWithConfigsThatExist) {
  write("blk.txt", "a1  verilator  configs/default.json\n");
  write("blk.icarus.txt", "a1  configs/default.json  -- --vectors 4\n");
  EXPECT_EQ(error(),
            "sim/sweeps/blk.icarus.txt: not a sweep's name; allowed: <block>.txt, one table a "
            "block (lower-case letters, digits and _), its kinds of run a column of it");
  fs::remove(dir_ / "sim/sweeps/blk.icarus.txt");
  write("blk.txt", "a1  verilator  configs/default.json\nb2  verilator  configs/nosuch.json\n");
  EXPECT_EQ(error(),
            "sim/sweeps/blk.txt:2: config 'configs/nosuch.json': no such file in the "
            "project");
  write("blk.txt", "a1  verilator  configs/default.json\n");
  write("abc.txt", "z9  icarus  configs/default.json\n");
  EXPECT_EQ(error(), "");
  const std::vector<Sweep> sweeps = read(dir_);
  ASSERT_EQ(sweeps.size(), 2u);
  EXPECT_EQ(sweeps[0].block, "abc");
  EXPECT_EQ(sweeps[1].file, "sim/sweeps/blk.txt");
}

// oasis-sweeps: a malformed table is one line and exit status 2, nothing written; a good one
// gives the script and the runs, written again only when they change.
TEST_F(SweepFiles, OasisSweepsWritesTheScriptOrOneMessage) {
  const std::string command = gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-sweeps") +
                              " --source " + gen::shell_word(dir_.string()) + " --build /b" +
                              " --ctest " + gen::shell_word((dir_ / "out/tests.cmake").string()) +
                              " --json " + gen::shell_word((dir_ / "out/runs.json").string()) +
                              " 2>&1";
  write("blk.txt", "a1  verilator  configs/default.json\na1  kinds\n");
  test::CmdResult r = test::run_command(command);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out, "oasis-sweeps: sim/sweeps/blk.txt:2: unknown kind 'kinds'; allowed: " +
                       fmt::format("{}\n", fmt::join(kinds(), ", ")));
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  write("blk.txt", "a1  verilator,hier  configs/default.json\n");
  r = test::run_command(command);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
  const std::string script = contents("out/tests.cmake");
  EXPECT_NE(script.find("add_test(\"vl.blk.a1.hier\" "), std::string::npos) << script;
  EXPECT_NE(contents("out/runs.json").find("\"kind\":\"hier\""), std::string::npos);
  const auto written = fs::last_write_time(dir_ / "out/tests.cmake");
  fs::last_write_time(dir_ / "out/tests.cmake", written - std::chrono::hours(1));
  EXPECT_EQ(test::run_command(command).status, 0);
  EXPECT_EQ(fs::last_write_time(dir_ / "out/tests.cmake"), written - std::chrono::hours(1))
      << "written again unchanged";
}

// The project's own tables read, and each block has a testbench.
TEST(Sweeps, TheProjectsTablesRead) {
  const fs::path source = OASIS_SOURCE_DIR;
  const std::vector<Sweep> sweeps = read(source);
  EXPECT_GT(sweeps.size(), 10u);
  for (const Sweep& s : sweeps) {
    EXPECT_TRUE(fs::exists(source / "verif/tb" / (s.block + "_tb.cpp"))) << s.file;
    EXPECT_FALSE(s.labels.empty()) << s.file;
  }
  std::vector<std::string> left_out;
  EXPECT_GT(tests(sweeps, source.string(), "/b", left_out).size(), 500u);
}

}  // namespace
}  // namespace oasis::sweeps
