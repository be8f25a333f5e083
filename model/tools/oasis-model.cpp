// oasis-model: the golden model from the command line. Subcommands:
// calibrate (activations -> codebook), quantize (weights -> indices, codebook,
// scales), gemm (tokens through the OASIS GEMM, error against FP32), analyze
// (the paper's analytic figures for a config), report (the SQNR table on
// synthetic data) and synth (synthetic LLM-like tensors as .npy).
// Any bad argument, config or file: one message on stderr, exit status 2,
// no output file written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/analyze.hpp"
#include "model/config.hpp"
#include "model/lut_gemm.hpp"
#include "model/npy.hpp"
#include "model/quant.hpp"
#include "model/synth_data.hpp"
#include "model/tools/cli.hpp"

namespace {

using namespace oasis;

/// A usage error found after parsing (shapes, files): exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A 2-D tensor (or a 1-D one read as one row) from a .npy file.
struct Matrix {
  size_t rows = 0, cols = 0;
};

Matrix matrix_shape(const NpyArray& a, const std::string& path, const std::string& what) {
  if (a.shape.size() == 1) return {1, a.shape[0]};
  if (a.shape.size() == 2) return {a.shape[0], a.shape[1]};
  throw UsageError(
      fmt::format("{}: {} must be 1-D or 2-D, found {} dimensions", path, what, a.shape.size()));
}

void require_nonempty(const Matrix& m, const std::string& path) {
  if (m.rows == 0 || m.cols == 0) throw UsageError(fmt::format("{}: empty array", path));
  if (m.rows > (1u << 30) || m.cols > 65536) {
    throw UsageError(
        fmt::format("{}: shape {} x {} too large (at most 65536 columns)", path, m.rows, m.cols));
  }
}

// Writes several files so that either all appear or none: temporaries first,
// renamed only once every one is written.
void write_all(const std::vector<std::pair<std::string, NpyArray>>& files) {
  std::vector<std::string> tmps;
  try {
    for (const auto& [path, array] : files) {
      tmps.push_back(path + ".part");
      write_npy(tmps.back(), array);
    }
  } catch (...) {
    for (const std::string& t : tmps) std::filesystem::remove(t);
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i) std::filesystem::rename(tmps[i], files[i].first);
}

// An output file: its folder must exist, and the path must not name anything
// but a file (a folder there would be left beside a half-written .part).
void check_output_dir(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(parent)) {
    throw UsageError(fmt::format("{}: folder {} does not exist", path, parent.string()));
  }
  const auto st = std::filesystem::symlink_status(path);
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    throw UsageError(fmt::format(
        "{}: is a folder or another non-file; allowed: the path of a .npy file, which is "
        "written or replaced",
        path));
  }
}

std::vector<double> to_doubles(const std::vector<Fp16>& v) {
  std::vector<double> d;
  d.reserve(v.size());
  for (const Fp16 h : v) d.push_back(to_double(h));
  return d;
}

std::string codebook_text(const std::vector<Fp16>& c) {
  std::vector<std::string> s;
  for (const Fp16 h : c) s.push_back(fmt::format("{:.6g}", to_double(h)));
  return fmt::format("[{}]", fmt::join(s, ", "));
}

// ---- calibrate ---------------------------------------------------------------

struct CalibrateArgs {
  std::string acts, out, fisher, method = "lloyd", scale = "rms";
  int bits = 4;
  uint64_t seed = 1;
  double outlier_fraction = 0.005;
  int outliers_per_side = -1;
  bool gap = false;
};

int run_calibrate(const CalibrateArgs& a) {
  check_output_dir(a.out);
  const NpyArray acts = read_npy(a.acts);
  const Matrix m = matrix_shape(acts, a.acts, "activations");
  require_nonempty(m, a.acts);
  const std::vector<Fp16> x = acts.to_fp16(a.acts);
  std::vector<double> fisher;
  if (!a.fisher.empty()) {
    const NpyArray f = read_npy(a.fisher);
    if (f.count() != acts.count()) {
      throw UsageError(
          fmt::format("{}: {} weights for {} activations", a.fisher, f.count(), acts.count()));
    }
    for (const float v : f.to_float(a.fisher)) fisher.push_back(double(v));
  }
  ActCalibrationOptions o;
  o.bits = a.bits;
  o.method = parse_kmeans_method(a.method);
  o.scale = parse_scale_mode(a.scale);
  o.seed = a.seed;
  o.outliers_per_side = a.outliers_per_side >= 0
                            ? a.outliers_per_side
                            : int(std::ceil(a.outlier_fraction * double(m.cols) - 1e-9));
  const ActCalibration c = calibrate_activations(x, int(m.rows), int(m.cols), fisher, o);
  write_all({{a.out, NpyArray::from_fp16({c.codebook.size()}, c.codebook)}});
  fmt::print(
      "calibrated {} centroids on {} values ({} tokens x {} channels, {} outliers per "
      "side left out), {} K-means, cost {:.6g}, {} iterations\n",
      c.codebook.size(), c.samples, m.rows, m.cols, o.outliers_per_side, a.method, c.kmeans_cost,
      c.kmeans_iterations);
  fmt::print("codebook {}\nwrote {}\n", codebook_text(c.codebook), a.out);
  if (a.gap && o.method == KMeansMethod::kLloyd) {
    o.method = KMeansMethod::kOptimal;
    const ActCalibration best = calibrate_activations(x, int(m.rows), int(m.cols), fisher, o);
    fmt::print("optimal 1-D K-means cost {:.6g}: Lloyd's iterations are {:.3f} % above it\n",
               best.kmeans_cost, 100.0 * (c.kmeans_cost / best.kmeans_cost - 1.0));
  }
  return 0;
}

// ---- quantize ----------------------------------------------------------------

struct QuantizeArgs {
  std::string weights, out_dir, method = "lloyd", scale = "rms";
  int bits = 4;
  uint64_t seed = 1;
};

std::string qpath(const std::string& dir, const char* name) {
  return (std::filesystem::path(dir) / name).string();
}

int run_quantize(const QuantizeArgs& a) {
  if (!std::filesystem::is_directory(a.out_dir)) {
    throw UsageError(fmt::format("{}: no such folder", a.out_dir));
  }
  const NpyArray in = read_npy(a.weights);
  const Matrix m = matrix_shape(in, a.weights, "weights");
  require_nonempty(m, a.weights);
  WeightQuantOptions o;
  o.bits = a.bits;
  o.method = parse_kmeans_method(a.method);
  o.scale = parse_scale_mode(a.scale);
  o.seed = a.seed;
  const QuantizedWeights q = quantize_weights(in.to_fp16(a.weights), int(m.rows), int(m.cols), o);
  write_all(
      {{qpath(a.out_dir, "weight_indices.npy"), NpyArray::from_uint8({m.rows, m.cols}, q.indices)},
       {qpath(a.out_dir, "weight_codebook.npy"),
        NpyArray::from_fp16({q.codebook.size()}, q.codebook)},
       {qpath(a.out_dir, "weight_scales.npy"), NpyArray::from_fp16({m.rows}, q.scales)}});
  fmt::print("quantized {} x {} weights to {} bits: codebook {}, {} K-means cost {:.6g}\n", m.rows,
             m.cols, a.bits, codebook_text(q.codebook), a.method, q.kmeans_cost);
  fmt::print("wrote {}/weight_indices.npy, weight_codebook.npy, weight_scales.npy\n", a.out_dir);
  return 0;
}

QuantizedWeights load_quantized(const std::string& dir) {
  QuantizedWeights q;
  const std::string ip = qpath(dir, "weight_indices.npy");
  const NpyArray idx = read_npy(ip);
  const Matrix m = matrix_shape(idx, ip, "weight indices");
  require_nonempty(m, ip);
  q.rows = int(m.rows);
  q.channels = int(m.cols);
  q.indices = idx.to_uint8(ip);
  const std::string cp = qpath(dir, "weight_codebook.npy");
  q.codebook = read_npy(cp).to_fp16(cp);
  const std::string sp = qpath(dir, "weight_scales.npy");
  q.scales = read_npy(sp).to_fp16(sp);
  q.bits = 0;
  while ((size_t(1) << q.bits) < q.codebook.size()) ++q.bits;
  validate_quantized_weights(q, dir);
  return q;
}

// ---- gemm --------------------------------------------------------------------

struct GemmArgs {
  std::string config, acts, act_codebook, quantized, out, weights;
  std::vector<std::string> overrides;
};

int run_gemm(const GemmArgs& a) {
  check_output_dir(a.out);
  const Config c = load_config(a.config, a.overrides);
  const NpyArray acts = read_npy(a.acts);
  const Matrix m = matrix_shape(acts, a.acts, "activations");
  require_nonempty(m, a.acts);
  if (m.cols != size_t(c.channels)) {
    throw UsageError(fmt::format("{}: tokens of {} channels; config '{}' has channels = {}", a.acts,
                                 m.cols, c.name, c.channels));
  }
  const std::vector<Fp16> x = acts.to_fp16(a.acts);
  const std::vector<Fp16> ca = read_npy(a.act_codebook).to_fp16(a.act_codebook);
  const QuantizedWeights q = load_quantized(a.quantized);
  if (q.channels != c.channels) {
    throw UsageError(fmt::format("{}: weights of {} channels; config '{}' has channels = {}",
                                 a.quantized, q.channels, c.name, c.channels));
  }
  std::vector<Fp16> wref;
  if (!a.weights.empty()) {
    const NpyArray w = read_npy(a.weights);
    const Matrix wm = matrix_shape(w, a.weights, "weights");
    if (wm.rows != size_t(q.rows) || wm.cols != size_t(q.channels)) {
      throw UsageError(fmt::format("{}: shape {} x {}; the quantised weights are {} x {}",
                                   a.weights, wm.rows, wm.cols, q.rows, q.channels));
    }
    wref = w.to_fp16(a.weights);
  }
  const LutGemm model(LutGemmParams::from_config(c), ca, q.codebook);
  const std::vector<Fp16> y = model.gemm(x, int(m.rows), q);
  write_all({{a.out, NpyArray::from_fp16({m.rows, size_t(q.rows)}, y)}});
  fmt::print(
      "ran {} tokens x K = {} x N = {} rows through config '{}' (k = {}, T = {}, Mc = {}, "
      "accumulator {}); wrote {}\n",
      m.rows, c.channels, q.rows, c.name, c.outliers_per_side, c.mac_tree_inputs, c.comp_macs,
      accumulator_name(c.accumulator), a.out);
  if (!wref.empty()) {
    const std::vector<float> ref = reference_gemm_fp32(x, int(m.rows), wref, q.rows, q.channels);
    fmt::print("output error against the FP32 GEMM: SQNR {:.2f} dB\n",
               sqnr_db(std::vector<double>(ref.begin(), ref.end()), to_doubles(y)));
  }
  return 0;
}

// ---- analyze, report, synth ----------------------------------------------------

struct AnalyzeArgs {
  std::string config;
  std::vector<std::string> overrides;
  int rows = 4096, mu = 4;
  uint64_t seed = 1;
  bool json = false;
};

int run_analyze(const AnalyzeArgs& a) {
  const Config c = load_config(a.config, a.overrides);
  const AnalyticFigures f = analyze(c, a.rows, a.mu, a.seed);
  if (a.json) {
    fmt::print("{}\n", to_json(f).dump(2));
  } else {
    fmt::print("{}", format_analysis(c, f));
  }
  return 0;
}

struct ReportArgs {
  std::string config;
  std::vector<std::string> overrides;
  SqnrOptions options;
};

int run_report(const ReportArgs& a) {
  const Config c = load_config(a.config, a.overrides);
  const std::vector<SqnrCase> cases = sqnr_report(c, a.options);
  fmt::print("{}", format_sqnr_report(c, a.options, cases));
  return 0;
}

struct SynthArgs {
  std::string kind = "activations", out, type = "float16";
  int rows = 16, channels = 128;
  uint64_t seed = 1;
};

int run_synth(const SynthArgs& a) {
  check_output_dir(a.out);
  if (a.type != "float16" && a.type != "float32") {
    throw UsageError(fmt::format("--type {}; allowed: float16, float32", a.type));
  }
  std::vector<Fp16> v;
  if (a.kind == "activations") {
    SyntheticActivationSpec s;
    s.tokens = a.rows;
    s.channels = a.channels;
    v = synthetic_activations(s, a.seed);
  } else if (a.kind == "weights") {
    v = synthetic_weights(a.rows, a.channels, a.seed);
  } else {
    throw UsageError(fmt::format("--kind {}; allowed: activations, weights", a.kind));
  }
  const std::vector<size_t> shape{size_t(a.rows), size_t(a.channels)};
  if (a.type == "float16") {
    write_all({{a.out, NpyArray::from_fp16(shape, v)}});
  } else {
    std::vector<float> f;
    for (const Fp16 h : v) f.push_back(float(to_double(h)));
    write_all({{a.out, NpyArray::from_float(shape, f)}});
  }
  fmt::print("wrote {} synthetic {} of shape {} x {} ({}, seed {})\n", a.out, a.kind, a.rows,
             a.channels, a.type, a.seed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "oasis-model: the OASIS golden model (NU-WAQ quantisation, LUT-GEMM with "
      "look-ahead and error compensation) from the command line"};
  app.require_subcommand(1, 1);

  CalibrateArgs ca;
  auto* cal = app.add_subcommand("calibrate",
                                 "learn an activation codebook from calibration "
                                 "tokens (.npy, tokens x K) -> codebook .npy");
  cal->add_option("--acts", ca.acts, "calibration activations, float16/float32, tokens x K")
      ->required();
  cal->add_option("--out", ca.out, "output codebook .npy (float16, 2^bits)")->required();
  cal->add_option("--bits", ca.bits, "nA: activation index bits")->check(CLI::Range(1, 8));
  cal->add_option("--method", ca.method, "K-means: lloyd or optimal (1-D dynamic programming)");
  cal->add_option("--scale", ca.scale, "per-token scale: rms or absmax");
  cal->add_option("--seed", ca.seed, "seed of the K-means initialisation");
  cal->add_option("--outlier-fraction", ca.outlier_fraction,
                  "p: k = ceil(p*K) outliers per side left out of each token")
      ->check(CLI::Range(0.0, 0.5));
  cal->add_option("--outliers-per-side", ca.outliers_per_side,
                  "k directly (overrides --outlier-fraction)")
      ->check(CLI::NonNegativeNumber);
  cal->add_option("--fisher", ca.fisher, "per-activation K-means weights .npy (same size)");
  cal->add_flag("--gap", ca.gap, "also run the optimal K-means and print Lloyd's gap to it");

  QuantizeArgs qa;
  auto* qua = app.add_subcommand("quantize",
                                 "quantise weights (.npy, N x K) -> "
                                 "weight_indices/codebook/scales .npy in a folder");
  qua->add_option("--weights", qa.weights, "weights, float16/float32, rows x K")->required();
  qua->add_option("--out-dir", qa.out_dir, "existing output folder")->required();
  qua->add_option("--bits", qa.bits, "nW: weight index bits")->check(CLI::Range(1, 8));
  qua->add_option("--method", qa.method, "K-means: lloyd or optimal");
  qua->add_option("--scale", qa.scale, "per-row scale: rms or absmax");
  qua->add_option("--seed", qa.seed, "seed of the K-means initialisation");

  GemmArgs ga;
  auto* gem = app.add_subcommand("gemm",
                                 "run tokens through the bit-exact OASIS GEMM, write the "
                                 "FP16 outputs, report the error against FP32");
  gem->add_option("--config", ga.config, "JSON config (K, k, T, Mc, accumulator)")->required();
  gem->add_option("--set", ga.overrides, "override a config field: key=value (repeatable)");
  gem->add_option("--acts", ga.acts, "activations, float16/float32, tokens x K")->required();
  gem->add_option("--act-codebook", ga.act_codebook, "activation codebook .npy (calibrate)")
      ->required();
  gem->add_option("--quantized", ga.quantized, "folder written by quantize")->required();
  gem->add_option("--out", ga.out, "output .npy, float16, tokens x N")->required();
  gem->add_option("--weights", ga.weights, "unquantised weights .npy: report SQNR against FP32");

  AnalyzeArgs aa;
  auto* ana = app.add_subcommand("analyze",
                                 "the paper's analytic figures for a config: LUT "
                                 "entries, reduction FLOPs, Orizuru comparisons, "
                                 "cycle lower bound");
  ana->add_option("--config", aa.config, "JSON config")->required();
  ana->add_option("--set", aa.overrides, "override a config field: key=value (repeatable)");
  ana->add_option("--rows", aa.rows, "N: output rows of the GEMM")->check(CLI::Range(1, 1 << 24));
  ana->add_option("--mu", aa.mu, "group size of the WOQ LUT-GEMM compared with");
  ana->add_option("--seed", aa.seed, "seed of the token Orizuru's comparisons are counted on");
  ana->add_flag("--json", aa.json, "print JSON instead of text");

  ReportArgs ra;
  auto* rep = app.add_subcommand("report",
                                 "SQNR against FP32 on synthetic LLM-like data: INT "
                                 "RTN and NU, W4A4 and W4A3, with and without outliers");
  rep->add_option("--config", ra.config, "JSON config (K, T, Mc, accumulator)")->required();
  rep->add_option("--set", ra.overrides, "override a config field: key=value (repeatable)");
  rep->add_option("--seed", ra.options.seed, "seed of the synthetic data");
  rep->add_option("--tokens", ra.options.tokens, "evaluation tokens")->check(CLI::Range(1, 4096));
  rep->add_option("--calibration-tokens", ra.options.calibration_tokens, "calibration tokens")
      ->check(CLI::Range(1, 4096));
  rep->add_option("--rows", ra.options.rows, "N: output rows")->check(CLI::Range(1, 65536));
  rep->add_option("--outlier-fraction", ra.options.outlier_fraction,
                  "p: k = ceil(p*K) outliers per side")
      ->check(CLI::Range(0.0, 0.5));

  SynthArgs sa;
  auto* syn = app.add_subcommand("synth",
                                 "write seeded synthetic LLM-like activations or "
                                 "weights as .npy");
  syn->add_option("--kind", sa.kind, "activations or weights");
  syn->add_option("--rows", sa.rows, "tokens or weight rows")->check(CLI::Range(1, 1 << 20));
  syn->add_option("--channels", sa.channels, "K")->check(CLI::Range(2, 65536));
  syn->add_option("--seed", sa.seed, "seed");
  syn->add_option("--type", sa.type, "float16 or float32");
  syn->add_option("--out", sa.out, "output .npy")->required();

  if (const auto status = parse_subcommands(app, argc, argv, "oasis-model")) return *status;
  try {
    if (*cal) return run_calibrate(ca);
    if (*qua) return run_quantize(qa);
    if (*gem) return run_gemm(ga);
    if (*ana) return run_analyze(aa);
    if (*rep) return run_report(ra);
    if (*syn) return run_synth(sa);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oasis-model: %s\n", e.what());
    return 2;
  }
  return 2;
}
