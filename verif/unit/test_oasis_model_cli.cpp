// The oasis-model command: help for every subcommand, the paper's analytic
// figures, a whole synth -> quantize -> calibrate -> gemm run whose output
// equals the library's bit for bit, the SQNR report, and every kind of bad
// input giving one message, exit status 2 and no output file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "model/config.hpp"
#include "model/lut_gemm.hpp"
#include "model/npy.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

using test::CmdResult;

// stdout and stderr of one run
CmdResult run(const std::string& args) {
  return test::run_command(gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-model") + " " +
                           args + " 2>&1");
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("oasis_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  static std::string config(const char* name) {
    return std::string(OASIS_SOURCE_DIR) + "/configs/" + name + ".json";
  }
  // The same paths as words of the shell command run() runs.
  std::string arg(const std::string& name) const { return gen::shell_word(at(name)); }
  std::string dir_arg() const { return gen::shell_word(dir_.string()); }
  static std::string config_arg(const char* name) { return gen::shell_word(config(name)); }
  fs::path dir_;
};

TEST_F(Cli, HelpForEverySubcommand) {
  const CmdResult top = run("--help");
  EXPECT_EQ(top.status, 0) << top.out;
  for (const char* sub : {"calibrate", "quantize", "gemm", "analyze", "report", "synth"}) {
    EXPECT_NE(top.out.find(sub), std::string::npos) << sub;
    const CmdResult r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub << ": " << r.out;
    EXPECT_NE(r.out.find("--"), std::string::npos) << sub;
  }
}

TEST_F(Cli, AnalyzePrintsThePapersFigures) {
  const CmdResult r = run("analyze --config " + config_arg("paper"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(LUT entries\s+256\s+16384\s+64x)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(group size\s+4096\s+4\s+1024x)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(reduction FLOPs\s+1048576\s+16777216\s+16x)")))
      << r.out;
  // 1.5 * 4096 - 2 + 2 * 21 * 12 = 6646, formula and count.
  EXPECT_NE(r.out.find("1.5N - 2 + 2k*log2(N) = 6646"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counted by the model    = 6646"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("256 * 8 = 2048 cycles"), std::string::npos) << r.out;
  const CmdResult j = run("analyze --json --rows 100 --config " + config_arg("paper"));
  ASSERT_EQ(j.status, 0) << j.out;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["cycle_lower_bound"], 7 * 8);  // ceil(100 / 16) = 7 rows per line
}

TEST_F(Cli, WholeFlowMatchesTheLibraryBitForBit) {
  ASSERT_EQ(run("synth --kind activations --rows 6 --channels 128 --seed 3 --type float32 --out " +
                arg("x.npy"))
                .status,
            0);
  ASSERT_EQ(
      run("synth --kind activations --rows 40 --channels 128 --seed 4 --out " + arg("calib.npy"))
          .status,
      0);
  ASSERT_EQ(
      run("synth --kind weights --rows 24 --channels 128 --seed 5 --out " + arg("w.npy")).status,
      0);
  const CmdResult q = run("quantize --weights " + arg("w.npy") + " --out-dir " + dir_arg());
  ASSERT_EQ(q.status, 0) << q.out;
  const CmdResult c = run("calibrate --acts " + arg("calib.npy") + " --gap --out " + arg("ca.npy"));
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("optimal 1-D K-means cost"), std::string::npos) << c.out;
  const CmdResult g = run("gemm --config " + config_arg("default") + " --acts " + arg("x.npy") +
                          " --act-codebook " + arg("ca.npy") + " --quantized " + dir_arg() +
                          " --weights " + arg("w.npy") + " --out " + arg("y.npy"));
  ASSERT_EQ(g.status, 0) << g.out;
  EXPECT_TRUE(std::regex_search(g.out, std::regex(R"(SQNR -?[0-9]+\.[0-9]+ dB)"))) << g.out;
  const NpyArray y = read_npy(at("y.npy"));
  ASSERT_EQ(y.type, NpyType::kFloat16);
  ASSERT_EQ(y.shape, (std::vector<size_t>{6, 24}));
  // The same computation in-process, from the files the tool wrote.
  QuantizedWeights w;
  w.rows = 24;
  w.channels = 128;
  w.bits = 4;
  w.indices = read_npy(at("weight_indices.npy")).to_uint8("i");
  w.codebook = read_npy(at("weight_codebook.npy")).to_fp16("c");
  w.scales = read_npy(at("weight_scales.npy")).to_fp16("s");
  const Config cfg = load_config(config("default"));
  const LutGemm model(LutGemmParams::from_config(cfg), read_npy(at("ca.npy")).to_fp16("a"),
                      w.codebook);
  const std::vector<Fp16> want = model.gemm(read_npy(at("x.npy")).to_fp16("x"), 6, w);
  const std::vector<Fp16> got = y.to_fp16("y");
  ASSERT_EQ(got.size(), want.size());
  int differing = 0;
  for (size_t i = 0; i < got.size(); ++i) differing += got[i].bits != want[i].bits;
  EXPECT_EQ(differing, 0);
}

TEST_F(Cli, ReportPutsNuWithOutliersAheadOfInt4) {
  const CmdResult r = run("report --config " + config_arg("default") + " --seed 1");
  ASSERT_EQ(r.status, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(INT RTN W4A4\s+(-?[0-9.]+))"))) << r.out;
  const double int4 = std::stod(m[1]);
  ASSERT_TRUE(
      std::regex_search(r.out, m, std::regex(R"(NU4 W4A4, k = 1 outliers/side\s+([0-9.]+))")))
      << r.out;
  const double nu = std::stod(m[1]);
  EXPECT_GT(nu, int4 + 3.0) << r.out;
  for (const char* row : {"NU4 W4A4, no outliers", "INT RTN W4A3", "NU4 W4A3, no outliers",
                          "NU4 W4A3, k = 1 outliers/side", "NU4 W4 only"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row;
  }
}

TEST_F(Cli, BadInputsGiveOneMessageExitTwoAndNoOutput) {
  ASSERT_EQ(run("synth --rows 4 --channels 128 --out " + arg("x.npy")).status, 0);
  ASSERT_EQ(run("synth --rows 4 --channels 64 --out " + arg("x64.npy")).status, 0);
  ASSERT_EQ(run("synth --kind weights --rows 8 --channels 128 --out " + arg("w.npy")).status, 0);
  ASSERT_EQ(run("quantize --weights " + arg("w.npy") + " --out-dir " + dir_arg()).status, 0);
  ASSERT_EQ(run("calibrate --acts " + arg("x.npy") + " --bits 2 --out " + arg("ca.npy")).status, 0);
  {
    // A version 1.0 header announcing 16 bytes, cut after 15.
    const std::string cut("\x93NUMPY\x01\x00\x10\x00{'descr': '<f2'", 25);
    std::ofstream bad(at("bad.npy"), std::ios::binary);
    bad << cut;
  }
  {
    std::ofstream text(at("text.npy"));
    text << "1,2,3\n";
  }
  const std::string gemm = "gemm --config " + config_arg("default") + " --act-codebook " +
                           arg("ca.npy") + " --quantized " + dir_arg() + " --out " + arg("y.npy");
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"", "subcommand"},
      {"frobnicate", "frobnicate"},
      {"analyze --config " + config_arg("paper") + " --bogus", "--bogus"},
      {"analyze --config /nonexistent.json", "/nonexistent.json"},
      {"analyze --config " + config_arg("default") + " --mu 3", "mu = 3"},
      {"analyze --config " + config_arg("default") + " --set channels=-4", "channels"},
      {"calibrate --acts " + arg("x.npy") + " --bits 9 --out " + arg("c.npy"), "--bits"},
      {"calibrate --acts " + arg("x.npy") + " --method best --out " + arg("c.npy"),
       "method 'best'"},
      {"calibrate --acts " + arg("text.npy") + " --out " + arg("c.npy"), "not a .npy file"},
      {"calibrate --acts " + arg("x.npy") + " --out /nonexistent/c.npy", "does not exist"},
      {"quantize --weights " + arg("w.npy") + " --out-dir " + arg("nodir"), "no such folder"},
      {"quantize --weights " + arg("bad.npy") + " --out-dir " + dir_arg(), "truncated"},
      {gemm + " --acts " + arg("missing.npy"), "cannot open"},
      {gemm + " --acts " + arg("bad.npy"), "bad.npy"},
      {gemm + " --acts " + arg("x64.npy"), "channels = 128"},
      {gemm + " --acts " + arg("x.npy") + " --weights " + arg("x64.npy"), "quantised weights"},
      {"gemm --config " + config_arg("default") + " --act-codebook " + arg("w.npy") +
           " --quantized " + dir_arg() + " --out " + arg("y.npy") + " --acts " + arg("x.npy"),
       "activation codebook"},
      {"report --config " + config_arg("default") + " --outlier-fraction 0.7", "outlier-fraction"},
      {"synth --kind tensors --out " + arg("s.npy"), "--kind tensors"},
      // An output path naming a folder: refused before anything is written.
      {"synth --kind activations --rows 2 --channels 8 --out " + arg("folder"), "is a folder"},
  };
  fs::create_directories(at("folder"));
  for (const Case& c : cases) {
    const CmdResult r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(at("y.npy")) || fs::exists(at("c.npy")) || fs::exists(at("s.npy")))
        << c.args;
  }
  // Nothing half-written: no temporaries left behind.
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string n = e.path().filename().string();
    EXPECT_EQ(n.find(".part"), std::string::npos) << n;
    EXPECT_EQ(n.find(".tmp"), std::string::npos) << n;
  }
}

}  // namespace
}  // namespace oasis
