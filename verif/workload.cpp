// SPDX-License-Identifier: Apache-2.0
#include "verif/workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <stdexcept>

#include "model/io/npy.hpp"
#include "model/quant/synth_data.hpp"

namespace oasis::tb {
namespace {

// The default sizes of each block's workload: enough work that fill and drain are a small
// part of the window, every part of the block in its steady state. The blocks that take a
// token at a time get max(tokens, ceil(activations / K)) tokens, 4096 activations: a window of
// about a thousand cycles or more at configs/default.json (K = 128: 32 tokens) and a few
// hundred to two thousand at configs/paper.json (K = 4096: two tokens); the blocks that take
// rows get tokens x rows, about a thousand cycles at both (their row interval is 8 at both).
// The core's two tokens overlap one's pre-processing with the other's GEMM; at the paper's
// config they are bound by the pre-processing (about 1,080 cycles each). Rows are the layer's
// weight rows; the blocks that take only tokens use their quantization alone (16 rows) and the
// register file neither tokens nor rows (its workload is one layer's registers).
// docs/workload.md has the table with each block's window at both configs.
struct DefaultSizes {
  std::string_view block;
  int tokens;       ///< at least
  int activations;  ///< tokens = max(tokens, ceil(activations / K)); 0: tokens
  int rows;
};
constexpr DefaultSizes kDefaults[] = {
    {"core", 2, 0, 128},
    {"pe_line", 4, 0, 32},
    {"mac_line_baseline", 4, 0, 32},
    {"woq_lut_line_baseline", 4, 0, 32},
    {"index_counter_array", 4, 0, 32},
    {"clustering_unit", 2, 4096, 16},
    {"orizuru", 2, 4096, 16},
    {"topk_baseline", 2, 4096, 16},
    {"topk_sort_baseline", 2, 4096, 16},
    {"comparator", 2, 4096, 16},
    {"regfile", 1, 0, 16},
    {"fp16_add", 2, 4096, 1},
    {"fp16_mul", 2, 4096, 1},
    {"fp32_add", 2, 4096, 1},
    {"fp32_mul", 2, 4096, 1},
    {"fp32_mul_fp16", 2, 4096, 1},
    {"fp32_mul_fp16_fp16", 2, 4096, 1},
    {"fp16_to_fp32", 2, 4096, 1},
    {"fp32_to_fp16", 2, 4096, 1},
    {"uint_to_fp32", 2, 4096, 1},
};

[[noreturn]] void workload_error(std::string_view block, const std::string& message) {
  fmt::print(stderr, "{}_tb: --workload: {}\n", block, message);
  std::exit(2);
}

// A tensor from a .npy file: its rows of `channels` values, binary16 (a 1-D array of `channels`
// values, when `one_d`, is one row). `option` names the option, `rows_name` the rows.
std::vector<Fp16> read_rows(std::string_view block, const std::string& option,
                            const std::string& path, const char* rows_name, bool one_d,
                            int channels, int& rows) {
  try {
    const NpyArray a = read_npy(path);
    const auto& s = a.shape;
    const bool fits = (s.size() == 2 && s[1] == size_t(channels) && s[0] >= 1) ||
                      (one_d && s.size() == 1 && s[0] == size_t(channels));
    if (!fits) {
      workload_error(block, fmt::format("{} {}: shape ({}), expected ({}, {}){} for the "
                                        "config's {} channels",
                                        option, path, fmt::join(s, ", "), rows_name, channels,
                                        one_d ? fmt::format(" or ({},)", channels) : "", channels));
    }
    rows = int(s.size() == 2 ? s[0] : 1);
    return a.to_fp16(option + " " + path);
  } catch (const NpyError& e) {
    workload_error(block, e.what());
  }
}

// The first `cap` rows of `rows` (all when cap is 0): `rows` becomes their number.
std::vector<Fp16> first_rows(const std::vector<Fp16>& v, int channels, uint64_t cap, int& rows) {
  if (cap) rows = int(std::min<uint64_t>(uint64_t(rows), cap));
  return {v.begin(), v.begin() + ptrdiff_t(rows) * channels};
}

}  // namespace

std::optional<WorkloadSizes> workload_defaults(std::string_view block, int channels) {
  for (const DefaultSizes& d : kDefaults) {
    if (d.block != block) continue;
    const int by_activations = d.activations ? (d.activations + channels - 1) / channels : 0;
    return WorkloadSizes{std::max(d.tokens, by_activations), d.rows};
  }
  return std::nullopt;
}

PeLineContext Workload::context(int t) const {
  const PreparedToken& p = prepared[size_t(t)];
  PeLineContext c;
  c.act_index = p.act_index;
  for (const Outlier& o : p.outliers) c.outlier_channels.push_back(o.channel);
  c.residuals = p.residuals;
  c.act_scale = p.scale;
  c.lut = model().lut();
  c.weight_codebook = model().weight_codebook();
  return c;
}

namespace {

// --workload-zeros: the layer's shapes, codebooks and LUT, with the data it streams held still:
// x̂, the activation and weight indices and the residuals zero, so every dequantized weight is
// C_W[0]. The core and the register file are left out: the core clusters the tokens itself and
// the register file's workload is the codebooks.
void hold_at_zero(const std::string& block, Workload& w) {
  if (block == "core" || block == "regfile") {
    workload_error(block,
                   "--workload-zeros is for the blocks a layer's data streams through, "
                   "not the core or the register file");
  }
  for (PreparedToken& t : w.prepared) {
    std::fill(t.xhat.begin(), t.xhat.end(), Fp16{0});
    std::fill(t.act_index.begin(), t.act_index.end(), uint8_t{0});
    std::fill(t.residuals.begin(), t.residuals.end(), Fp16{0});
  }
  std::fill(w.quantized.indices.begin(), w.quantized.indices.end(), uint8_t{0});
  for (size_t i = 0; i < w.dequantized.size(); ++i) w.dequantized[i] = w.quantized.codebook[0];
  w.source = "zeros";
}

}  // namespace

Workload build_workload(const Config& config, const Options& options) {
  const int K = config.channels;
  const std::optional<WorkloadSizes> sizes = workload_defaults(options.block, K);
  if (!sizes) workload_error(options.block, "this block has no workload");
  const WorkloadSizes defaults = *sizes;
  const bool symmetric = config.codebooks == Codebooks::kSymmetric;
  Workload w;
  w.seed = options.seed;
  w.channels = K;
  w.activations = options.workload_activations.empty() ? "synthetic" : options.workload_activations;
  w.weights = options.workload_weights.empty() ? "synthetic" : options.workload_weights;
  w.source = options.workload_activations.empty() && options.workload_weights.empty() ? "synthetic"
                                                                                      : "npy";
  // Activations, and the calibration tokens: the synthetic ones from the next seed, a user's
  // from the first of their tokens.
  std::vector<Fp16> calibration;
  int calibration_tokens = kCalibrationTokens;
  SyntheticActivationSpec spec;
  spec.channels = K;
  if (options.workload_activations.empty()) {
    w.tokens = options.workload_tokens ? int(options.workload_tokens) : defaults.tokens;
    spec.tokens = w.tokens;
    w.x = synthetic_activations(spec, w.seed);
    spec.tokens = calibration_tokens;
    calibration = synthetic_activations(spec, w.seed + 1);
  } else {
    int n = 0;
    const std::vector<Fp16> x = read_rows(options.block, "--workload-activations",
                                          options.workload_activations, "tokens", true, K, n);
    calibration_tokens = n;
    calibration = first_rows(x, K, kCalibrationTokens, calibration_tokens);
    w.tokens = n;
    w.x = first_rows(x, K, options.workload_tokens, w.tokens);
  }
  if (options.workload_weights.empty()) {
    w.rows = options.workload_rows ? int(options.workload_rows) : defaults.rows;
    w.w = synthetic_weights(w.rows, K, w.seed + 2);
  } else {
    const std::vector<Fp16> all = read_rows(options.block, "--workload-weights",
                                            options.workload_weights, "rows", false, K, w.rows);
    w.w = first_rows(all, K, options.workload_rows, w.rows);
  }
  // Quantized by the model: K-means codebooks, per-row weight scales, the activation codebook
  // calibrated with the config's outliers left out.
  try {
    WeightQuantOptions wo;
    wo.bits = config.weight_bits;
    wo.symmetric = symmetric;
    w.quantized = quantize_weights(w.w, w.rows, K, wo);
    ActCalibrationOptions ao;
    ao.bits = config.act_bits;
    ao.outliers_per_side = config.outliers_per_side;
    ao.symmetric = symmetric;
    w.calibration = calibrate_activations(calibration, calibration_tokens, K, {}, ao);
    w.gemm.emplace(LutGemmParams::from_config(config), w.calibration.codebook,
                   w.quantized.codebook);
  } catch (const std::invalid_argument& e) {
    workload_error(
        options.block,
        fmt::format("the model cannot quantize this layer at this config: {}", e.what()));
  }
  for (int t = 0; t < w.tokens; ++t) w.prepared.push_back(w.model().prepare(w.token(t)));
  w.dequantized.reserve(w.quantized.indices.size());
  for (const uint8_t i : w.quantized.indices) w.dequantized.push_back(w.quantized.codebook[i]);
  if (options.workload_zeros) hold_at_zero(options.block, w);
  return w;
}

nlohmann::ordered_json workload_figure(const Workload& w, const WorkloadWindow& window,
                                       std::string_view unit, uint64_t count,
                                       const nlohmann::ordered_json& extra) {
  nlohmann::ordered_json operations = {{"unit", unit}, {"count", count}};
  for (const auto& [key, value] : extra.items()) operations[key] = value;
  return {{"source", w.source},
          {"activations", w.activations},
          {"weights", w.weights},
          {"seed", w.seed},
          {"tokens", w.tokens},
          {"rows", w.rows},
          {"channels", w.channels},
          {"window", {{"begin", window.begin()}, {"end", window.end()}}},
          {"operations", operations},
          {"busy_cycles", window.busy_cycles()},
          {"cycles", window.end() - window.begin()}};
}

}  // namespace oasis::tb
