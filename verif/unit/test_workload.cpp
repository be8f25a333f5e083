// SPDX-License-Identifier: Apache-2.0
// The testbenches' workload mode (verif/workload.hpp, docs/workload.md): its options refuse bad
// values with one message and exit status 2, the layer is the model's quantization of the seeded
// synthetic tensors or of a user's .npy tensors, whose shapes are checked against the config,
// every block with a testbench has default sizes, and the figure is what the activity flow reads.
// The runs themselves are the vl.<block>.<label>.workload tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/io/npy.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/harness/options.hpp"
#include "verif/workload.hpp"

namespace oasis::tb {
namespace {

namespace fs = std::filesystem;

// `text` as a POSIX extended regular expression that matches it literally.
std::string literal(const std::string& text) {
  std::string r;
  for (const char c : text) {
    if (std::string_view(".[]{}()\\*+?^$|").find(c) != std::string_view::npos) r += '\\';
    r += c;
  }
  return r;
}

// Options::parse of `args` for block pe_line (no manifest needed to reach the checks below).
Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "pe_line_tb");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return Options::parse("pe_line", int(argv.size()), argv.data());
}

TEST(WorkloadOptions, BadValuesExitTwoWithOneMessage) {
  const std::string max = std::to_string(Options::kMaxWorkloadSize);
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--workload", "--workload-tokens", "0"},
            "--workload-tokens must be a whole number from 1 to " + max + ", found '0'"},
           {{"--workload", "--workload-rows", "-3"},
            "--workload-rows must be a whole number from 1 to " + max + ", found '-3'"},
           {{"--workload", "--workload-tokens", "2x"},
            "--workload-tokens must be a whole number from 1 to " + max + ", found '2x'"},
           {{"--workload", "--workload-rows", std::to_string(Options::kMaxWorkloadSize + 1)},
            "--workload-rows must be a whole number from 1 to " + max + ", found '" +
                std::to_string(Options::kMaxWorkloadSize + 1) + "'"},
           {{"--workload", "--workload-rows"}, "--workload-rows needs a value"},
           {{"--workload-tokens", "4"}, "--workload-tokens needs --workload"},
           {{"--workload-weights", "w.npy", "--seed", "3"}, "--workload-weights needs --workload"},
           {{"--workload", "--vectors", "10"},
            "--workload runs instead of the random stimulus: not with --vectors"},
           {{"--exhaustive", "--workload"},
            "--workload runs instead of the exhaustive stimulus: not with --exhaustive"}}) {
    // The message on the first line, then the usage: one message.
    EXPECT_EXIT(parse(args), ::testing::ExitedWithCode(2),
                "^pe_line_tb: " + literal(message) + "\nusage: [^\n]*\n[^\n]*\n$")
        << message;
  }
}

TEST(WorkloadOptions, ReadsTheSizesAndTensors) {
  // A manifest is required once the options are read: the generated one of configs/default.json.
  const std::string manifest =
      std::string(OASIS_BINARY_DIR) + "/generated/configs/default/manifest.json";
  ASSERT_TRUE(fs::exists(manifest)) << manifest;
  const Options o =
      parse({"--manifest", manifest, "--workload", "--workload-tokens", "5", "--workload-rows",
             "16", "--workload-activations", "x.npy", "--workload-weights", "w.npy"});
  EXPECT_TRUE(o.workload);
  EXPECT_EQ(o.workload_tokens, 5u);
  EXPECT_EQ(o.workload_rows, 16u);
  EXPECT_EQ(o.workload_activations, "x.npy");
  EXPECT_EQ(o.workload_weights, "w.npy");
  EXPECT_FALSE(parse({"--manifest", manifest}).workload);
}

class WorkloadBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oasis_workload_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json");
  }
  void TearDown() override { fs::remove_all(dir_); }

  Options options(const std::string& block) const {
    Options o;
    o.block = block;
    o.seed = 7;
    o.workload = true;
    return o;
  }
  // A float32 .npy file of `shape` whose values are v(i), i in file order.
  std::string npy(const std::string& name, std::vector<size_t> shape, float (*v)(size_t)) const {
    size_t n = 1;
    for (const size_t s : shape) n *= s;
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = v(i);
    const std::string path = (dir_ / name).string();
    write_npy(path, NpyArray::from_float(shape, values));
    return path;
  }

  fs::path dir_;
  Config config_;
};

TEST_F(WorkloadBuild, DefaultsCoverEveryTestbench) {
  int blocks = 0;
  for (const auto& e : fs::directory_iterator(fs::path(OASIS_SOURCE_DIR) / "verif" / "tb")) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with("_tb.cpp")) continue;
    const std::string block = name.substr(0, name.size() - 7);
    // The system wrapper's test runs the C driver on its own layers; oasis-ppa measures the
    // wrapper around a black-box core, which has no activity of its own (docs/axi.md).
    if (block == "axi") continue;
    const auto sizes = workload_defaults(block, 128);
    ASSERT_TRUE(sizes.has_value()) << block << " has a testbench but no workload sizes";
    EXPECT_GE(sizes->tokens, 1) << block;
    EXPECT_GE(sizes->rows, 1) << block;
    ++blocks;
  }
  EXPECT_EQ(blocks, 20);
  EXPECT_FALSE(workload_defaults("nosuch", 128).has_value());
  // The blocks that take a token at a time get 4096 activations, two tokens at least.
  EXPECT_EQ(workload_defaults("orizuru", 128)->tokens, 32);
  EXPECT_EQ(workload_defaults("orizuru", 4096)->tokens, 2);
  EXPECT_EQ(workload_defaults("orizuru", 37)->tokens, 111);
  EXPECT_EQ(workload_defaults("pe_line", 4096)->tokens, workload_defaults("pe_line", 128)->tokens);
}

TEST_F(WorkloadBuild, SyntheticLayerIsTheModelsQuantizationOfTheSeededTensors) {
  Options o = options("pe_line");
  o.workload_tokens = 3;
  o.workload_rows = 5;
  const Workload w = build_workload(config_, o);
  const int K = config_.channels;
  EXPECT_EQ(w.source, "synthetic");
  EXPECT_EQ(w.tokens, 3);
  EXPECT_EQ(w.rows, 5);
  EXPECT_EQ(w.channels, K);
  // The seeds of the core's bench figures: activations seed, calibration seed + 1, weights
  // seed + 2.
  SyntheticActivationSpec spec;
  spec.channels = K;
  spec.tokens = 3;
  EXPECT_EQ(w.x, synthetic_activations(spec, 7));
  EXPECT_EQ(w.w, synthetic_weights(5, K, 9));
  spec.tokens = kCalibrationTokens;
  ActCalibrationOptions ao;
  ao.bits = config_.act_bits;
  ao.outliers_per_side = config_.outliers_per_side;
  EXPECT_EQ(w.model().act_codebook(),
            calibrate_activations(synthetic_activations(spec, 8), kCalibrationTokens, K, {}, ao)
                .codebook);
  WeightQuantOptions wo;
  wo.bits = config_.weight_bits;
  const QuantizedWeights q = quantize_weights(w.w, 5, K, wo);
  EXPECT_EQ(w.quantized.indices, q.indices);
  EXPECT_EQ(w.quantized.scales, q.scales);
  EXPECT_EQ(w.model().weight_codebook(), q.codebook);
  // Each token prepared by the model, the context a PE line gets, the dequantized weights.
  ASSERT_EQ(w.prepared.size(), 3u);
  for (int t = 0; t < 3; ++t) {
    const PreparedToken p = w.model().prepare(w.token(t));
    EXPECT_EQ(w.prepared[size_t(t)].xhat, p.xhat);
    EXPECT_EQ(w.prepared[size_t(t)].act_index, p.act_index);
    EXPECT_EQ(w.prepared[size_t(t)].outliers, p.outliers);
    const PeLineContext c = w.context(t);
    EXPECT_EQ(c.act_index, p.act_index);
    ASSERT_EQ(c.outlier_channels.size(), size_t(2 * config_.outliers_per_side));
    EXPECT_EQ(c.outlier_channels[0], p.outliers[0].channel);
    EXPECT_EQ(c.residuals, p.residuals);
    EXPECT_EQ(c.act_scale.bits, p.scale.bits);
    EXPECT_EQ(c.lut, w.model().lut());
  }
  for (int n = 0; n < 5; ++n) {
    for (int k = 0; k < K; ++k) {
      EXPECT_EQ(w.dequantized_row(n)[size_t(k)].bits,
                q.codebook[q.indices[size_t(n * K + k)]].bits);
    }
  }
  EXPECT_EQ(w.products(), uint64_t(3 * 5 * K));
  // The defaults when no size is given.
  const Workload d = build_workload(config_, options("index_counter_array"));
  EXPECT_EQ(d.tokens, workload_defaults("index_counter_array", K)->tokens);
  EXPECT_EQ(d.rows, workload_defaults("index_counter_array", K)->rows);
}

TEST_F(WorkloadBuild, SymmetricCodebooksWhenTheConfigSaysSo) {
  config_ =
      load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json", {"codebooks=symmetric"});
  Options o = options("pe_line");
  o.workload_tokens = 1;
  o.workload_rows = 4;
  const Workload w = build_workload(config_, o);
  EXPECT_TRUE(is_symmetric_codebook(w.model().act_codebook()));
  EXPECT_TRUE(is_symmetric_codebook(w.model().weight_codebook()));
}

TEST_F(WorkloadBuild, UsersTensorsFromNpyFiles) {
  const int K = config_.channels;
  // Values a few ulps apart, rounded once to binary16 when read.
  const auto ramp = [](size_t i) { return float(int(i % 97) - 48) * 0.0137f + 0.001f; };
  Options o = options("mac_line_baseline");
  o.workload_activations = npy("x.npy", {20, size_t(K)}, ramp);
  o.workload_weights = npy("w.npy", {6, size_t(K)}, ramp);
  Workload w = build_workload(config_, o);
  EXPECT_EQ(w.source, "npy");
  EXPECT_EQ(w.activations, o.workload_activations);
  EXPECT_EQ(w.tokens, 20);
  EXPECT_EQ(w.rows, 6);
  ASSERT_EQ(w.x.size(), size_t(20 * K));
  EXPECT_EQ(w.x[5].bits, fp16_from_double(double(ramp(5))).bits);
  EXPECT_EQ(w.prepared.size(), 20u);
  // Capped by the sizes when given; one token from a 1-D array.
  o.workload_tokens = 3;
  o.workload_rows = 2;
  w = build_workload(config_, o);
  EXPECT_EQ(w.tokens, 3);
  EXPECT_EQ(w.rows, 2);
  EXPECT_EQ(w.x.size(), size_t(3 * K));
  o.workload_activations = npy("x1.npy", {size_t(K)}, ramp);
  o.workload_weights.clear();
  w = build_workload(config_, o);
  EXPECT_EQ(w.tokens, 1);
  EXPECT_EQ(w.weights, "synthetic");
  EXPECT_EQ(w.source, "npy");
  EXPECT_EQ(w.w, synthetic_weights(2, K, 9));
}

TEST_F(WorkloadBuild, BadTensorsExitTwoWithOneMessage) {
  const int K = config_.channels;
  const auto one = [](size_t) { return 1.0f; };
  const std::string k = std::to_string(K);
  const auto expect = [&](Options o, const std::string& message) {
    EXPECT_EXIT(build_workload(config_, o), ::testing::ExitedWithCode(2),
                "^pe_line_tb: --workload: " + message + "\n$")
        << message;
  };
  Options o = options("pe_line");
  o.workload_activations = npy("wide.npy", {3, size_t(K + 1)}, one);
  expect(o, literal("--workload-activations " + o.workload_activations + ": shape (3, " +
                    std::to_string(K + 1) + "), expected (tokens, " + k + ") or (" + k +
                    ",) for the config's " + k + " channels"));
  o = options("pe_line");
  o.workload_weights = npy("row.npy", {size_t(K)}, one);
  expect(o, literal("--workload-weights " + o.workload_weights + ": shape (" + k +
                    "), expected (rows, " + k + ") for the config's " + k + " channels"));
  o = options("pe_line");
  o.workload_weights = (dir_ / "missing.npy").string();
  expect(o, literal(o.workload_weights) + "[^\n]*");
  o = options("pe_line");
  o.workload_activations = (dir_ / "int.npy").string();
  write_npy(o.workload_activations,
            NpyArray::from_int32({2, size_t(K)}, std::vector<int32_t>(2 * size_t(K))));
  expect(o, "[^\n]*element type int32[^\n]*");
  // Data the model cannot quantize: every weight equal, one centroid where 16 are needed.
  o = options("pe_line");
  o.workload_weights = npy("flat.npy", {2, size_t(K)}, one);
  expect(o, literal("the model cannot quantize this layer at this config: ") + "[^\n]*");
  o = options("nosuch");
  EXPECT_EXIT(build_workload(config_, o), ::testing::ExitedWithCode(2),
              "^nosuch_tb: --workload: this block has no workload\n$");
}

TEST(WorkloadFigure, HoldsWhatTheActivityFlowReads) {
  Workload w;
  w.source = "synthetic";
  w.activations = w.weights = "synthetic";
  w.seed = 3;
  w.tokens = 2;
  w.rows = 4;
  w.channels = 8;
  WorkloadWindow window;
  window.present(17);
  window.present(20);  // the first presented cycle opens the window
  window.busy();
  window.busy(3);
  window.output(40);
  window.output(35);  // the last output closes it
  const auto f = workload_figure(w, window, "tokens", 2, {{"values", 16}});
  EXPECT_EQ(f.at("window").at("begin"), 17);
  EXPECT_EQ(f.at("window").at("end"), 41);
  EXPECT_EQ(f.at("cycles"), 24);
  EXPECT_EQ(f.at("busy_cycles"), 4);
  EXPECT_EQ(f.at("operations").at("unit"), "tokens");
  EXPECT_EQ(f.at("operations").at("count"), 2);
  EXPECT_EQ(f.at("operations").at("values"), 16);
  for (const char* key : {"source", "seed", "tokens", "rows", "channels"}) {
    EXPECT_TRUE(f.contains(key)) << key;
  }
}

}  // namespace
}  // namespace oasis::tb
