// SPDX-License-Identifier: Apache-2.0
// The oasis-model command: help for every subcommand, the paper's analytic
// figures, a whole synth -> quantize -> calibrate -> gemm run whose output
// equals the library's bit for bit, the SQNR report, and every kind of bad
// input giving one message, exit status 2 and no output file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>

#include "model/config.hpp"
#include "model/io/npy.hpp"
#include "model/io/safetensors.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/safetensors_writer.hpp"

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
    // Appended rather than added up: GCC 12 can warn of a false out-of-bounds copy in the
    // moves of a chain of +, depending on what the translation unit included before.
    std::string path = OASIS_SOURCE_DIR;
    path.append("/configs/").append(name).append(".json");
    return path;
  }
  // The same paths as words of the shell command run() runs.
  std::string arg(const std::string& name) const { return gen::shell_word(at(name)); }
  std::string dir_arg() const { return gen::shell_word(dir_.string()); }
  // Seeded synthetic data of 128 channels through `synth`: `tokens` tokens (x.npy, of
  // `x_type`), 40 calibration tokens (calib.npy) and `rows` weight rows (w.npy).
  void synthesize(int tokens, const std::string& x_type, int rows) const {
    for (const std::string& args :
         {fmt::format("activations --rows {} --seed 3 --type {} --out {}", tokens, x_type,
                      arg("x.npy")),
          fmt::format("activations --rows 40 --seed 4 --out {}", arg("calib.npy")),
          fmt::format("weights --rows {} --seed 5 --out {}", rows, arg("w.npy"))}) {
      const CmdResult r = run("synth --channels 128 --kind " + args);
      ASSERT_EQ(r.status, 0) << args << ": " << r.out;
    }
  }
  static std::string config_arg(const char* name) { return gen::shell_word(config(name)); }
  fs::path dir_;
};

TEST_F(Cli, HelpForEverySubcommand) {
  const CmdResult top = run("--help");
  EXPECT_EQ(top.status, 0) << top.out;
  for (const char* sub :
       {"calibrate", "quantize", "quantize-all", "gemm", "analyze", "report", "synth"}) {
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
  ASSERT_NO_FATAL_FAILURE(synthesize(6, "float32", 24));
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

// codebooks: symmetric (docs/spec.md section 1): symmetric codebooks from calibrate and
// quantize go through gemm; free ones are refused with one message, exit 2 and no output.
TEST_F(Cli, SymmetricCodebooksGoThroughGemmAndFreeOnesAreRefused) {
  ASSERT_NO_FATAL_FAILURE(synthesize(3, "float16", 8));
  fs::create_directories(at("sym"));
  fs::create_directories(at("free"));
  ASSERT_EQ(
      run("quantize --symmetric --weights " + arg("w.npy") + " --out-dir " + arg("sym")).status, 0);
  ASSERT_EQ(run("quantize --weights " + arg("w.npy") + " --out-dir " + arg("free")).status, 0);
  ASSERT_EQ(
      run("calibrate --symmetric --acts " + arg("calib.npy") + " --out " + arg("ca.npy")).status,
      0);
  const std::string gemm = "gemm --config " + config_arg("default") +
                           " --set codebooks=symmetric --acts " + arg("x.npy") +
                           " --act-codebook " + arg("ca.npy") + " --quantized ";
  const CmdResult ok = run(gemm + arg("sym") + " --out " + arg("y.npy"));
  ASSERT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(read_npy(at("y.npy")).shape, (std::vector<size_t>{3, 8}));
  const CmdResult bad = run(gemm + arg("free") + " --out " + arg("y2.npy"));
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("weight codebook is not symmetric about zero"), std::string::npos)
      << bad.out;
  EXPECT_FALSE(fs::exists(at("y2.npy")));
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
  // The FIGLUT-class line keeps its activations in binary16: above NU4 W4A4 with outliers here.
  ASSERT_TRUE(
      std::regex_search(r.out, m, std::regex(R"(WOQ uniform W4A16 \(LUT line\)\s+([0-9.]+))")))
      << r.out;
  EXPECT_GT(std::stod(m[1]), nu) << r.out;
  for (const char* row :
       {"NU4 W4A4, no outliers", "INT RTN W4A3", "NU4 W4A3, no outliers",
        "NU4 W4A3, k = 1 outliers/side", "NU4 W4 only", "NU4 sym W4 only",
        "NU4 sym W4A4, k = 1 outliers/side", "NU4 sym W4A3, k = 1 outliers/side"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row;
  }
}

// A small checkpoint as LLM checkpoints come: BF16 and F32 linear weights, a 1-D F16 norm, an
// F16 matrix of calibration activations, metadata. Returns the weights as binary16 (as the
// reader rounds them) by name.
std::map<std::string, std::vector<Fp16>> write_checkpoint(const std::string& path) {
  std::map<std::string, std::vector<Fp16>> w;
  const std::vector<Fp16> w0 = synthetic_weights(24, 128, 5), w1 = synthetic_weights(16, 128, 6);
  std::vector<float> f0;
  for (const Fp16 h : w0) f0.push_back(float(to_double(h)) * 1.0001f);  // not binary16 exactly
  std::vector<uint16_t> b1;  // BF16: the top half of the binary32
  for (const Fp16 h : w1)
    b1.push_back(uint16_t(std::bit_cast<uint32_t>(float(to_double(h))) >> 16));
  SyntheticActivationSpec spec;
  spec.channels = 128;
  spec.tokens = 40;
  const std::vector<Fp16> acts = synthetic_activations(spec, 4);
  test::write_file(path, test::safetensors_file(
                             {{"layers.0.w", "F32", {24, 128}, test::f32_bytes(f0)},
                              {"layers.1.w", "BF16", {16, 128}, test::bf16_bytes(b1)},
                              {"norm.weight",
                               "F16",
                               {128},
                               test::f16_bytes(std::vector<Fp16>(w0.begin(), w0.begin() + 128))},
                              {"calib.acts", "F16", {40, 128}, test::f16_bytes(acts)}},
                             "\"format\":\"pt\""));
  for (const float v : f0) w["layers.0.w"].push_back(to_fp16(Fp32{std::bit_cast<uint32_t>(v)}));
  for (const uint16_t b : b1) w["layers.1.w"].push_back(to_fp16(Fp32{uint32_t(b) << 16}));
  w["calib.acts"] = acts;
  return w;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

TEST_F(Cli, Float64NpyAndSafetensorsGoThroughCalibrateQuantizeAndGemm) {
  const auto w = write_checkpoint(at("ckpt.safetensors"));
  ASSERT_EQ(run("synth --kind activations --rows 5 --channels 128 --seed 3 --type float64 --out " +
                arg("x.npy"))
                .status,
            0);
  ASSERT_EQ(read_npy(at("x.npy")).type, NpyType::kFloat64);
  const CmdResult c = run("calibrate --safetensors " + arg("ckpt.safetensors") +
                          " --tensor calib.acts --out " + arg("ca.npy"));
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("40 tokens x 128 channels"), std::string::npos) << c.out;
  // A float64 .npy calibrates like the same values in binary16.
  ASSERT_EQ(run("calibrate --acts " + arg("x.npy") + " --out " + arg("ca64.npy")).status, 0);
  ASSERT_EQ(run("synth --kind activations --rows 5 --channels 128 --seed 3 --out " + arg("x16.npy"))
                .status,
            0);
  ASSERT_EQ(run("calibrate --acts " + arg("x16.npy") + " --out " + arg("ca16.npy")).status, 0);
  EXPECT_EQ(file_bytes(at("ca64.npy")), file_bytes(at("ca16.npy")));
  fs::create_directories(at("q"));
  const CmdResult q = run("quantize --safetensors " + arg("ckpt.safetensors") +
                          " --tensor layers.0.w --out-dir " + arg("q"));
  ASSERT_EQ(q.status, 0) << q.out;
  EXPECT_NE(q.out.find("quantized 24 x 128 weights"), std::string::npos) << q.out;
  const CmdResult g =
      run("gemm --config " + config_arg("default") + " --acts " + arg("x.npy") +
          " --act-codebook " + arg("ca.npy") + " --quantized " + arg("q") + " --safetensors " +
          arg("ckpt.safetensors") + " --tensor layers.0.w --threads 2 --out " + arg("y.npy"));
  ASSERT_EQ(g.status, 0) << g.out;
  EXPECT_TRUE(std::regex_search(g.out, std::regex(R"(SQNR [0-9]+\.[0-9]+ dB)"))) << g.out;
  // The same in-process, from the values as the reader rounds them.
  const QuantizedWeights qw = quantize_weights(w.at("layers.0.w"), 24, 128, {});
  EXPECT_EQ(read_npy(at("q/weight_indices.npy")).to_uint8("i"), qw.indices);
  const LutGemm model(LutGemmParams::from_config(load_config(config("default"))),
                      read_npy(at("ca.npy")).to_fp16("a"), qw.codebook);
  const std::vector<Fp16> want = model.gemm(read_npy(at("x.npy")).to_fp16("x"), 5, qw);
  const std::vector<Fp16> got = read_npy(at("y.npy")).to_fp16("y");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].bits, want[i].bits) << i;
}

TEST_F(Cli, QuantizeAllWritesEveryMatchingTensorIntoItsOwnFolder) {
  const auto w = write_checkpoint(at("ckpt.safetensors"));
  const std::string out = at("quantized");
  const std::string cmd =
      "quantize-all --safetensors " + at("ckpt.safetensors") + " --out-dir " + out;
  const CmdResult r = run(cmd + " --match 'layers.*.w'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(\[1/2\] layers\.0\.w: 24 x 128 F32 -> 4 bits)")))
      << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(\[2/2\] layers\.1\.w: 16 x 128 BF16 -> 4 bits)")))
      << r.out;
  for (const char* name : {"layers.0.w", "layers.1.w"}) {
    const std::string d = out + "/" + name;
    const QuantizedWeights qw = quantize_weights(w.at(name), int(w.at(name).size() / 128), 128, {});
    EXPECT_EQ(read_npy(d + "/weight_indices.npy").to_uint8("i"), qw.indices) << name;
    EXPECT_EQ(read_npy(d + "/weight_codebook.npy").to_fp16("c"), qw.codebook) << name;
    EXPECT_EQ(read_npy(d + "/weight_scales.npy").to_fp16("s"), qw.scales) << name;
  }
  // Run again into its own folder, with every tensor: the 1-D norm is skipped, the F16
  // activations are a 2-D tensor and are quantized too.
  const CmdResult again = run(cmd + " --match '*'");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("skipping norm.weight: F16 [128]"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("[3/3] calib.acts"), std::string::npos) << again.out;
  // A foreign file in the folder: refused, and nothing written or deleted.
  { std::ofstream(out + "/notes.txt") << "mine\n"; }
  const auto before = fs::last_write_time(out + "/layers.0.w/weight_indices.npy");
  const CmdResult foreign = run(cmd + " --match 'layers.*'");
  EXPECT_EQ(foreign.status, 2) << foreign.out;
  EXPECT_NE(foreign.out.find("holds notes.txt, which quantize-all did not write"),
            std::string::npos)
      << foreign.out;
  EXPECT_TRUE(fs::exists(out + "/notes.txt"));
  EXPECT_EQ(fs::last_write_time(out + "/layers.0.w/weight_indices.npy"), before);
  // A folder it did not make, even an empty one: refused and left as it was.
  fs::create_directories(at("theirs"));
  { std::ofstream(at("theirs/keep.npy")) << "x"; }
  fs::create_directories(at("empty"));
  for (const std::string& d : {at("theirs"), at("empty")}) {
    const CmdResult r2 =
        run("quantize-all --safetensors " + at("ckpt.safetensors") + " --match '*' --out-dir " + d);
    EXPECT_EQ(r2.status, 2) << r2.out;
    EXPECT_NE(r2.out.find("was not made by quantize-all"), std::string::npos) << r2.out;
    EXPECT_EQ(std::count(r2.out.begin(), r2.out.end(), '\n'), 1) << r2.out;
  }
  EXPECT_TRUE(fs::exists(at("theirs/keep.npy")));
  EXPECT_TRUE(fs::is_empty(at("empty")));
  // Nothing matches; a tensor name that cannot be a folder name.
  const CmdResult none = run(cmd + "2 --match 'decoder.*'");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("no 2-D floating-point tensor matches 'decoder.*'"), std::string::npos)
      << none.out;
  test::write_file(
      at("evil.safetensors"),
      test::safetensors_file({{"../x.weight", "F16", {1, 2}, std::vector<uint8_t>(4)}}));
  const CmdResult evil =
      run("quantize-all --safetensors " + at("evil.safetensors") + " --out-dir " + at("e"));
  EXPECT_EQ(evil.status, 2) << evil.out;
  EXPECT_NE(evil.out.find("cannot be a folder name"), std::string::npos) << evil.out;
  EXPECT_FALSE(fs::exists(at("e")));
  EXPECT_FALSE(fs::exists(at("quantized2")));
}

TEST_F(Cli, MalformedCheckpointsAndMixedSourcesGiveOneMessage) {
  write_checkpoint(at("ckpt.safetensors"));
  std::vector<uint8_t> bad = file_bytes(at("ckpt.safetensors"));
  bad.resize(bad.size() - 3);  // truncated data
  test::write_file(at("cut.safetensors"), bad);
  bad[0] = 0xFF;
  bad[1] = 0xFF;  // header length past the end
  test::write_file(at("long.safetensors"), bad);
  ASSERT_EQ(run("synth --kind weights --rows 8 --channels 128 --out " + at("w.npy")).status, 0);
  fs::create_directories(at("q"));
  const std::string st = " --safetensors " + at("ckpt.safetensors");
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"quantize --safetensors " + at("cut.safetensors") + " --tensor layers.0.w --out-dir " +
           at("q"),
       "not a range inside"},
      {"calibrate --safetensors " + at("long.safetensors") + " --tensor calib.acts --out " +
           at("c.npy"),
       "runs past the end of the file"},
      {"quantize-all --safetensors " + at("cut.safetensors") + " --out-dir " + at("all"),
       "cut.safetensors"},
      {"quantize" + st + " --tensor nope --out-dir " + at("q"), "no tensor 'nope'"},
      {"quantize" + st + " --out-dir " + at("q"), "go together"},
      {"quantize --tensor layers.0.w --out-dir " + at("q"), "go together"},
      {"quantize --weights " + at("w.npy") + st + " --tensor layers.0.w --out-dir " + at("q"),
       "not both"},
      {"quantize --out-dir " + at("q"), "give --weights FILE.npy, or --safetensors"},
      {"calibrate --out " + at("c.npy"), "give --acts FILE.npy"},
      {"calibrate" + st + " --tensor calib.acts --fisher " + at("w.npy") + " --out " + at("c.npy"),
       "1024 weights for 5120 activations"},
  };
  for (const Case& c : cases) {
    const CmdResult r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
  }
  EXPECT_TRUE(fs::is_empty(at("q")));
  EXPECT_FALSE(fs::exists(at("c.npy")));
  EXPECT_FALSE(fs::exists(at("all")));
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

namespace oasis {
namespace {

// A .npy file of `data_bytes` bytes of data after its header, sparse: it costs no disk.
void write_sparse_npy(const std::string& path, const std::string& shape, uint64_t data_bytes) {
  std::string text =
      fmt::format("{{'descr': '<f2', 'fortran_order': False, 'shape': {}, }}", shape);
  text.append((64 - (10 + text.size() + 1) % 64) % 64, ' ');
  text += '\n';
  std::vector<uint8_t> bytes = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(text.size() & 0xFF), uint8_t(text.size() >> 8)};
  bytes.insert(bytes.end(), text.begin(), text.end());
  test::write_file(path, bytes);
  fs::resize_file(path, bytes.size() + data_bytes);
}

// The bad inputs of issue #63 that reach oasis-model: each one line, exit status 2, and no
// output file.
TEST_F(Cli, HostileInputsGiveOneMessageExitTwoAndNoOutput) {
  ASSERT_NO_FATAL_FAILURE(synthesize(2, "float16", 4));
  ASSERT_EQ(run("quantize --weights " + arg("w.npy") + " --out-dir " + dir_arg()).status, 0);
  ASSERT_EQ(run("calibrate --acts " + arg("calib.npy") + " --out " + arg("ca.npy")).status, 0);
  std::ofstream(at("d.txt")) << "a user's file";
  std::ofstream(at("deep.json")) << std::string(100000, '[') + std::string(100000, ']');
  std::ofstream(at("number.json"))
      << R"({"name": "n", "channels": 128, "outliers_per_side": 1e400, "act_bits": 4,
             "weight_bits": 4})";
  // 16 GiB of binary16 declared, and present as a sparse file: refused before it is read.
  write_sparse_npy(at("huge.npy"), "(131072, 65536)", uint64_t(16) << 30);
  test::write_file(
      at("huge.safetensors"),
      test::safetensors_bytes(
          R"({"w":{"dtype":"F16","shape":[131072,65536],"data_offsets":[0,17179869184]}})", {}));
  fs::resize_file(at("huge.safetensors"),
                  fs::file_size(at("huge.safetensors")) + (uint64_t(16) << 30));
  test::write_file(
      at("deep.safetensors"),
      test::safetensors_bytes("{\"w\":{\"dtype\":\"F16\",\"shape\":" + std::string(100000, '[') +
                                  std::string(100000, ']') + ",\"data_offsets\":[0,0]}}",
                              {}));
  // A 2-D activation codebook, and quantized folders with a 2-D codebook and with a NaN, a zero
  // and a negative scale.
  const std::vector<Fp16> ca = read_npy(at("ca.npy")).to_fp16("ca");
  write_npy(at("ca2d.npy"), NpyArray::from_fp16({2, ca.size() / 2}, ca));
  for (const char* q : {"q2d", "qnan", "qzero", "qneg"}) {
    fs::create_directories(at(q));
    for (const char* f : {"weight_indices.npy", "weight_codebook.npy", "weight_scales.npy"}) {
      fs::copy_file(at(f), at(std::string(q) + "/" + f));
    }
  }
  const std::vector<Fp16> cw = read_npy(at("weight_codebook.npy")).to_fp16("cw");
  write_npy(at("q2d/weight_codebook.npy"), NpyArray::from_fp16({2, cw.size() / 2}, cw));
  std::vector<Fp16> scales = read_npy(at("weight_scales.npy")).to_fp16("s");
  for (const auto& [q, bits] : std::vector<std::pair<std::string, uint16_t>>{
           {"qnan", 0x7E00}, {"qzero", 0x0000}, {"qneg", 0xBC00}}) {
    scales[1] = Fp16{bits};
    write_npy(at(q + "/weight_scales.npy"), NpyArray::from_fp16({scales.size()}, scales));
  }
  const std::string acts = " --acts " + arg("x.npy");
  const std::string gemm =
      "gemm --config " + config_arg("default") + acts + " --out " + arg("y.npy");
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"analyze --config " + arg("deep.json"), "nested more than 16 deep"},
      {"analyze --config " + arg("number.json"),
       "the number 1e400 at 'outliers_per_side' is beyond the range of a double"},
      {"quantize --safetensors " + arg("deep.safetensors") + " --tensor w --out-dir " + dir_arg(),
       "header: arrays and objects nested more than 8 deep at 'w.shape[0][0]"},
      {"calibrate" + acts + " --out ''", "--out '': an empty path"},
      {"calibrate" + acts + " --out " + arg("d.txt/D"),
       "d.txt/D: lies under " + at("d.txt") + ", which is not a folder"},
      {"quantize-all --safetensors x --out-dir ''", "--out-dir '': an empty path"},
      {"calibrate" + acts + " --seed -1 --out " + arg("c.npy"),
       "seed '-1': allowed: a whole number from 0 to 18446744073709551615"},
      {"calibrate" + acts + " --seed 18446744073709551616 --out " + arg("c.npy"),
       "seed '18446744073709551616'"},
      {"quantize --weights " + arg("w.npy") + " --seed -1 --out-dir " + dir_arg(), "seed '-1'"},
      {"analyze --config " + config_arg("default") + " --seed 99999999999999999999",
       "seed '99999999999999999999'"},
      {"report --config " + config_arg("default") + " --seed -1", "seed '-1'"},
      {"synth --seed -2 --out " + arg("s.npy"), "seed '-2'"},
      {"calibrate" + acts + " --outlier-fraction nan --out " + arg("c.npy"),
       "'nan': allowed: a number from 0 to 0.5"},
      {"report --config " + config_arg("default") + " --outlier-fraction nan",
       "'nan': allowed: a number from 0 to 0.5"},
      {"synth --rows 1048576 --channels 65536 --out " + arg("s.npy"),
       "137438953472 bytes; allowed: at most 8589934592 bytes (the memory budget for one tensor)"},
      {"calibrate --acts " + arg("huge.npy") + " --out " + arg("c.npy"),
       "bytes; allowed: at most 8589934592 bytes of data (the memory budget for one tensor)"},
      {"quantize --safetensors " + arg("huge.safetensors") + " --tensor w --out-dir " + dir_arg(),
       "tensor 'w' is 17179869184 bytes; allowed: at most 8589934592 bytes"},
      {gemm + " --act-codebook " + arg("ca2d.npy") + " --quantized " + dir_arg(),
       "ca2d.npy: an activation codebook has 2 dimensions; allowed: 1"},
      {gemm + " --act-codebook " + arg("ca.npy") + " --quantized " + arg("q2d"),
       "weight_codebook.npy: a weight codebook has 2 dimensions; allowed: 1"},
      {gemm + " --act-codebook " + arg("ca.npy") + " --quantized " + arg("qnan"),
       "weight scale of row 1 is nan; allowed: a finite number above zero"},
      {gemm + " --act-codebook " + arg("ca.npy") + " --quantized " + arg("qzero"),
       "weight scale of row 1 is 0; allowed: a finite number above zero"},
      {gemm + " --act-codebook " + arg("ca.npy") + " --quantized " + arg("qneg"),
       "weight scale of row 1 is -1; allowed: a finite number above zero"},
  };
  for (const Case& c : cases) {
    const CmdResult r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    for (const char* out : {"c.npy", "y.npy", "s.npy", "d.txt/D"}) {
      EXPECT_FALSE(fs::exists(at(out))) << c.args << ": " << out;
    }
  }
  EXPECT_EQ(fs::file_size(at("d.txt")), 13u);
}

// A folder the command may not write in: one line naming it, status 2, nothing left.
TEST_F(Cli, AnUnwritableFolderGivesOneMessage) {
  ASSERT_EQ(run("synth --kind weights --rows 4 --channels 16 --out " + arg("w.npy")).status, 0);
  test::write_file(at("ckpt.safetensors"),
                   test::safetensors_file({{"a.weight", "F16", {2, 2}, std::vector<uint8_t>(8)}}));
  fs::create_directories(at("ro"));
  fs::permissions(at("ro"),
                  fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  const std::string cmd =
      test::unprivileged() + gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-model") + " ";
  for (const std::string& args :
       {"synth --out " + arg("ro/s.npy"), "quantize-all --safetensors " + arg("ckpt.safetensors") +
                                              " --match '*' --out-dir " + arg("ro/q")}) {
    const CmdResult r = test::run_command(cmd + args + " 2>&1");
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(at("ro")), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Permission denied"), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
  }
  EXPECT_TRUE(fs::is_empty(at("ro")));
  fs::permissions(at("ro"), fs::perms::owner_write, fs::perm_options::add);
}

// quantize-all writes its folder whole or not at all: a tensor that fails (not finite) leaves a
// new folder unmade and an earlier one as it was, with nothing beside them; a tensor named as
// the command's own file is refused before anything is written.
TEST_F(Cli, QuantizeAllLeavesNothingPartial) {
  std::vector<Fp16> w(4 * 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = fp16_from_double(double(i % 7) - 3.0);
  std::vector<Fp16> bad = w;
  bad[5] = Fp16{0x7C00};  // +inf
  test::write_file(at("ckpt.safetensors"),
                   test::safetensors_file({{"a.weight", "F16", {4, 8}, test::f16_bytes(w)},
                                           {"b.weight", "F16", {4, 8}, test::f16_bytes(bad)}}));
  const std::string all = "quantize-all --safetensors " + arg("ckpt.safetensors") + " --out-dir ";
  const CmdResult fresh = run(all + arg("new"));
  EXPECT_EQ(fresh.status, 2) << fresh.out;
  EXPECT_NE(fresh.out.find("tensor 'b.weight': weights: element 5 (row 0, channel 5) is not "
                           "finite; nothing was written"),
            std::string::npos)
      << fresh.out;
  EXPECT_FALSE(fs::exists(at("new")));
  const CmdResult first = run(all + arg("q") + " --match a.weight");
  ASSERT_EQ(first.status, 0) << first.out;
  const auto listing = [&] {
    std::map<std::string, std::string> s;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      s[e.path().string()] = e.is_regular_file() ? std::to_string(fs::file_size(e)) : "<dir>";
    }
    return s;
  };
  test::write_file(at("own.safetensors"),
                   test::safetensors_file(
                       {{"oasis-quantize-all.json.part", "F16", {4, 8}, test::f16_bytes(w)}}));
  const auto before = listing();
  const std::vector<uint8_t> manifest = file_bytes(at("q/oasis-quantize-all.json"));
  const CmdResult again = run(all + arg("q") + " --match '*'");
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("tensor 'b.weight'"), std::string::npos) << again.out;
  EXPECT_EQ(listing(), before);
  EXPECT_EQ(file_bytes(at("q/oasis-quantize-all.json")), manifest);
  EXPECT_EQ(nlohmann::json::parse(manifest)["tensors"]["a.weight"]["complete"], true);
  const CmdResult own = run("quantize-all --safetensors " + arg("own.safetensors") +
                            " --match '*' --out-dir " + arg("q"));
  EXPECT_EQ(own.status, 2) << own.out;
  EXPECT_NE(own.out.find("tensor name 'oasis-quantize-all.json.part' cannot be a folder name"),
            std::string::npos)
      << own.out;
  EXPECT_EQ(listing(), before);
  // A later run into the folder works, and keeps what the first one wrote.
  const CmdResult later = run(all + arg("q") + " --match 'a.*'");
  EXPECT_EQ(later.status, 0) << later.out;
}

// gemm's SQNR line says why it is not a number of decibels.
TEST_F(Cli, GemmSaysWhyItsSqnrIsNotANumber) {
  ASSERT_NO_FATAL_FAILURE(synthesize(2, "float16", 4));
  ASSERT_EQ(run("quantize --weights " + arg("w.npy") + " --out-dir " + dir_arg()).status, 0);
  ASSERT_EQ(run("calibrate --acts " + arg("calib.npy") + " --out " + arg("ca.npy")).status, 0);
  write_npy(at("zeros.npy"), NpyArray::from_fp16({4, 128}, std::vector<Fp16>(4 * 128)));
  std::vector<Fp16> x = read_npy(at("x.npy")).to_fp16("x");
  x[3] = Fp16{0x7C00};  // +inf
  write_npy(at("xinf.npy"), NpyArray::from_fp16({2, 128}, x));
  const auto gemm = [&](const std::string& acts, const std::string& weights) {
    return run("gemm --config " + config_arg("default") + " --acts " + arg(acts) +
               " --act-codebook " + arg("ca.npy") + " --quantized " + dir_arg() + " --weights " +
               arg(weights) + " --out " + arg("y.npy"));
  };
  const CmdResult zero = gemm("x.npy", "zeros.npy");
  EXPECT_EQ(zero.status, 0) << zero.out;
  EXPECT_NE(zero.out.find("SQNR -inf dB: the FP32 reference is all zeros"), std::string::npos)
      << zero.out;
  const CmdResult inf = gemm("xinf.npy", "w.npy");
  EXPECT_EQ(inf.status, 0) << inf.out;
  EXPECT_NE(inf.out.find("SQNR not a number: "), std::string::npos) << inf.out;
  EXPECT_EQ(inf.out.find("nan dB"), std::string::npos) << inf.out;
}

}  // namespace
}  // namespace oasis
