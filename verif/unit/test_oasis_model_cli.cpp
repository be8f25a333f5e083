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
