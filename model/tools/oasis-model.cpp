// SPDX-License-Identifier: Apache-2.0
// oasis-model: the golden model from the command line. Subcommands:
// calibrate (activations -> codebook), quantize (weights -> indices, codebook,
// scales), quantize-all (every matching weight of a safetensors checkpoint into
// a folder), gemm (tokens through the OASIS GEMM, error against FP32), analyze
// (the paper's analytic figures for a config), report (the SQNR table on
// synthetic data) and synth (synthetic LLM-like tensors as .npy). Tensors come
// from .npy files or, by name, from safetensors checkpoints.
// Any bad argument, config or file: one message on stderr, exit status 2,
// no output file written.
#include <fmt/format.h>
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/io/input.hpp"
#include "model/io/npy.hpp"
#include "model/io/output.hpp"
#include "model/io/safetensors.hpp"
#include "model/perf/analyze.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "model/tools/cli.hpp"
#include "tools/commands.hpp"

namespace oasis_model_command {

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

// Where a tensor comes from: a .npy file, or a named tensor of a safetensors file.
struct TensorSource {
  std::string npy, safetensors, tensor;
};

// A 2-D tensor (or a 1-D one as one row) as binary16, with its shape and a name for messages.
struct LoadedTensor {
  std::vector<Fp16> values;
  Matrix shape;
  std::string origin;
};

// Exactly one of `--<npy_flag> FILE.npy` and `--safetensors FILE --tensor NAME`.
LoadedTensor load_tensor(const TensorSource& src, const char* npy_flag, const char* what) {
  const bool npy = !src.npy.empty(), st = !src.safetensors.empty() || !src.tensor.empty();
  if (npy == st) {
    throw UsageError(fmt::format("{}: give --{} FILE.npy, or --safetensors FILE --tensor NAME{}",
                                 what, npy_flag, npy ? ", not both" : ""));
  }
  LoadedTensor t;
  if (npy) {
    const NpyArray a = read_npy(src.npy);
    t.shape = matrix_shape(a, src.npy, what);
    require_nonempty(t.shape, src.npy);
    t.values = a.to_fp16(src.npy);
    t.origin = src.npy;
    return t;
  }
  if (src.safetensors.empty() || src.tensor.empty()) {
    throw UsageError(fmt::format("{}: --safetensors FILE and --tensor NAME go together", what));
  }
  const SafetensorsFile f = SafetensorsFile::open(src.safetensors);
  const SafetensorsTensor& info = f.tensor(src.tensor);
  t.origin = fmt::format("{} tensor '{}'", src.safetensors, src.tensor);
  if (info.shape.size() == 1) {
    t.shape = {1, size_t(info.shape[0])};
  } else if (info.shape.size() == 2) {
    t.shape = {size_t(info.shape[0]), size_t(info.shape[1])};
  } else {
    throw UsageError(fmt::format("{}: {} must be 1-D or 2-D, found {} dimensions", t.origin, what,
                                 info.shape.size()));
  }
  require_nonempty(t.shape, t.origin);
  t.values = f.read_fp16(src.tensor);
  return t;
}

void add_safetensors_options(CLI::App* app, TensorSource& src, const char* what) {
  app->add_option("--safetensors", src.safetensors,
                  fmt::format("safetensors checkpoint holding the {} (F16, BF16, F32 or F64, "
                              "rounded once to binary16), with --tensor",
                              what));
  app->add_option("--tensor", src.tensor, "name of the tensor in the --safetensors file");
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
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    std::filesystem::rename(tmps[i], files[i].first, ec);
    if (ec) {
      for (size_t j = i; j < tmps.size(); ++j) std::filesystem::remove(tmps[j], ec);
      throw UsageError(fmt::format("{}: cannot write: {}", files[i].first, ec.message()));
    }
  }
}

// An output file: its folder must exist, and the path must not name anything
// but a file (a folder there would be left beside a half-written .part).
void check_output_dir(const std::string& path) {
  if (path.empty()) {
    throw UsageError("--out '': an empty path; allowed: the path of a .npy file");
  }
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(parent)) {
    const std::filesystem::path above = existing_ancestor(std::filesystem::absolute(path));
    throw UsageError(
        std::filesystem::is_directory(above)
            ? fmt::format("{}: folder {} does not exist", path, parent.string())
            : fmt::format("{}: lies under {}, which is not a folder", path, above.string()));
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
  TensorSource acts;
  std::string out, fisher, method = "lloyd", scale = "rms";
  int bits = 4;
  uint64_t seed = 1;
  double outlier_fraction = 0.005;
  int outliers_per_side = -1;
  bool gap = false;
  bool symmetric = false;
};

int run_calibrate(const CalibrateArgs& a) {
  check_output_dir(a.out);
  const LoadedTensor acts = load_tensor(a.acts, "acts", "activations");
  const Matrix m = acts.shape;
  const std::vector<Fp16>& x = acts.values;
  std::vector<double> fisher;
  if (!a.fisher.empty()) {
    const NpyArray f = read_npy(a.fisher);
    if (f.count() != x.size()) {
      throw UsageError(
          fmt::format("{}: {} weights for {} activations", a.fisher, f.count(), x.size()));
    }
    fisher = f.to_double(a.fisher);
  }
  ActCalibrationOptions o;
  o.bits = a.bits;
  o.method = parse_kmeans_method(a.method);
  o.scale = parse_scale_mode(a.scale);
  o.seed = a.seed;
  o.symmetric = a.symmetric;
  o.outliers_per_side = a.outliers_per_side >= 0
                            ? a.outliers_per_side
                            : int(std::ceil(a.outlier_fraction * double(m.cols) - 1e-9));
  const ActCalibration c = calibrate_activations(x, int(m.rows), int(m.cols), fisher, o);
  write_all({{a.out, NpyArray::from_fp16({c.codebook.size()}, c.codebook)}});
  fmt::print(
      "calibrated {} centroids on {} values ({} tokens x {} channels, {} outliers per "
      "side left out), {}{} K-means, cost {:.6g}, {} iterations\n",
      c.codebook.size(), c.samples, m.rows, m.cols, o.outliers_per_side,
      a.symmetric ? "symmetric " : "", a.method, c.kmeans_cost, c.kmeans_iterations);
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
  TensorSource weights;
  std::string out_dir, method = "lloyd", scale = "rms";
  int bits = 4;
  uint64_t seed = 1;
  bool symmetric = false;
};

WeightQuantOptions quant_options(const QuantizeArgs& a) {
  WeightQuantOptions o;
  o.bits = a.bits;
  o.method = parse_kmeans_method(a.method);
  o.scale = parse_scale_mode(a.scale);
  o.seed = a.seed;
  o.symmetric = a.symmetric;
  return o;
}

std::string qpath(const std::string& dir, const char* name) {
  return (std::filesystem::path(dir) / name).string();
}

// The three files of a quantized weight tensor, all or none.
void write_quantized(const std::string& dir, const Matrix& m, const QuantizedWeights& q) {
  write_all(
      {{qpath(dir, "weight_indices.npy"), NpyArray::from_uint8({m.rows, m.cols}, q.indices)},
       {qpath(dir, "weight_codebook.npy"), NpyArray::from_fp16({q.codebook.size()}, q.codebook)},
       {qpath(dir, "weight_scales.npy"), NpyArray::from_fp16({m.rows}, q.scales)}});
}

int run_quantize(const QuantizeArgs& a) {
  if (!std::filesystem::is_directory(a.out_dir)) {
    throw UsageError(fmt::format("{}: no such folder", a.out_dir));
  }
  const WeightQuantOptions o = quant_options(a);
  const LoadedTensor w = load_tensor(a.weights, "weights", "weights");
  const Matrix m = w.shape;
  const QuantizedWeights q = quantize_weights(w.values, int(m.rows), int(m.cols), o);
  write_quantized(a.out_dir, m, q);
  fmt::print("quantized {} x {} weights to {} bits: codebook {}, {}{} K-means cost {:.6g}\n",
             m.rows, m.cols, a.bits, codebook_text(q.codebook), a.symmetric ? "symmetric " : "",
             a.method, q.kmeans_cost);
  fmt::print("wrote {}/weight_indices.npy, weight_codebook.npy, weight_scales.npy\n", a.out_dir);
  return 0;
}

// ---- quantize-all ------------------------------------------------------------
//
// Every 2-D floating-point tensor of a checkpoint whose name matches a pattern, each into
// <out-dir>/<name>/ as quantize writes it. The folder is the command's own: it lists in kManifest
// every entry it holds, so that a later run recognises them. It refuses a folder it did not make
// or one that holds anything else, and then writes and deletes nothing. A run writes the whole
// folder under a temporary name beside it (the earlier run's entries it does not redo linked
// in) and renames it into place only when every tensor succeeded, as oasis-gen does.

constexpr const char* kManifest = "oasis-quantize-all.json";

struct QuantizeAllArgs {
  QuantizeArgs quant;
  std::string checkpoint, pattern = "*.weight";
};

// A tensor name used as a folder name: letters, digits, '.', '_', '-', not starting with '.',
// and not a name of the command's own files (the manifest, and the temporary one an earlier
// version wrote beside it).
bool safe_folder_name(const std::string& n) {
  if (n.empty() || n[0] == '.' || n.size() > 200) return false;
  if (n.starts_with(kManifest)) return false;
  for (const char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

void write_manifest(const std::filesystem::path& dir, const nlohmann::json& m) {
  const std::filesystem::path path = dir / kManifest;
  std::ofstream out(path, std::ios::trunc);
  out << m.dump(2) << "\n";
  if (!(out << std::flush)) {
    throw std::filesystem::filesystem_error("cannot write", path,
                                            std::make_error_code(std::errc::io_error));
  }
}

// The folder's manifest, after checking that the folder is this command's and holds nothing
// else (a fresh manifest when the folder does not exist yet; its parent must). `dir` is
// resolved (resolved_output_path); `given` is the path as given, for messages.
nlohmann::json claim_output_folder(const std::filesystem::path& dir, const std::string& given) {
  namespace fs = std::filesystem;
  const auto refuse = [&](const std::string& why) {
    throw UsageError(
        fmt::format("--out-dir {}: {}; allowed: a new folder, or one an earlier "
                    "quantize-all made (nothing was written or deleted)",
                    given, why));
  };
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) {
    const fs::path parent = dir.parent_path();
    if (!fs::is_directory(parent, ec)) {
      throw UsageError(fmt::format("{}: folder {} does not exist", given, parent.string()));
    }
    return nlohmann::json{{"tool", "oasis-model quantize-all"},
                          {"entries", nlohmann::json::array()}};
  }
  if (fs::is_symlink(st)) refuse("is a symbolic link");
  const fs::path cwd = fs::current_path(ec);
  if (!ec && !cwd.lexically_relative(dir).empty() && *cwd.lexically_relative(dir).begin() != "..") {
    refuse("is the working folder or holds it");
  }
  const fs::path manifest = dir / kManifest;
  if (!fs::is_directory(st) || !fs::is_regular_file(manifest)) {
    throw UsageError(fmt::format(
        "{}: exists and was not made by quantize-all (no {}); give a new folder (nothing was "
        "written or deleted)",
        given, kManifest));
  }
  nlohmann::json m;
  try {
    m = parse_json_input(read_input_file(manifest.string(), 16u << 20), JsonLimits{});
  } catch (const JsonInputError& e) {
    throw UsageError(fmt::format("{}: unreadable ({}); nothing was written or deleted",
                                 manifest.string(), e.what()));
  }
  if (!m.is_object() || !m.contains("tool") || m["tool"] != "oasis-model quantize-all" ||
      !m.contains("entries") || !m["entries"].is_array()) {
    throw UsageError(fmt::format("{}: not a quantize-all manifest; nothing was written or deleted",
                                 manifest.string()));
  }
  std::set<std::string> ours = {kManifest, std::string(kManifest) + ".part"};
  for (const auto& e : m["entries"]) {
    if (e.is_string()) ours.insert(e.get<std::string>());
  }
  std::vector<std::string> foreign;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!ours.count(name)) foreign.push_back(name);
  }
  if (!foreign.empty()) {
    std::sort(foreign.begin(), foreign.end());
    throw UsageError(fmt::format(
        "{}: holds {}, which quantize-all did not write; nothing was written or deleted", given,
        fmt::join(foreign, ", ")));
  }
  return m;
}

int run_quantize_all(const QuantizeAllArgs& a) {
  namespace fs = std::filesystem;
  const WeightQuantOptions o = quant_options(a.quant);
  if (a.quant.out_dir.empty()) {
    throw UsageError(
        "--out-dir '': an empty path; allowed: a new folder, or one an earlier "
        "quantize-all made");
  }
  const SafetensorsFile f = SafetensorsFile::open(a.checkpoint);
  // What is to be done, all checked before anything is written.
  std::vector<const SafetensorsTensor*> todo;
  std::vector<std::string> skipped;
  for (const SafetensorsTensor& t : f.tensors()) {
    if (fnmatch(a.pattern.c_str(), t.name.c_str(), 0) != 0) continue;
    if (t.shape.size() != 2 || !safetensors_dtype_is_float(t.dtype) || t.count() == 0) {
      skipped.push_back(fmt::format("skipping {}: {} [{}] is not a 2-D floating-point weight",
                                    t.name, t.dtype, fmt::join(t.shape, ", ")));
      continue;
    }
    if (!safe_folder_name(t.name)) {
      throw UsageError(fmt::format(
          "{}: tensor name '{}' cannot be a folder name; allowed: letters, digits, '.', '_', "
          "'-', not starting with '.' nor with {} (nothing was written)",
          a.checkpoint, t.name, kManifest));
    }
    require_nonempty({size_t(t.shape[0]), size_t(t.shape[1])}, a.checkpoint + " " + t.name);
    todo.push_back(&t);
  }
  if (todo.empty()) {
    throw UsageError(
        fmt::format("{}: no 2-D floating-point tensor matches '{}' ({} tensors in "
                    "the file)",
                    a.checkpoint, a.pattern, f.tensors().size()));
  }
  const fs::path dir = resolved_output_path(a.quant.out_dir);
  nlohmann::json manifest = claim_output_folder(dir, a.quant.out_dir);
  for (const std::string& line : skipped) fmt::print("{}\n", line);
  manifest["source"] = fs::absolute(a.checkpoint).string();
  manifest["pattern"] = a.pattern;
  manifest["bits"] = a.quant.bits;
  manifest["method"] = a.quant.method;
  manifest["scale"] = a.quant.scale;
  manifest["seed"] = a.quant.seed;
  manifest["symmetric"] = a.quant.symmetric;
  if (!manifest.contains("tensors") || !manifest["tensors"].is_object()) {
    manifest["tensors"] = nlohmann::json::object();
  }
  std::set<std::string> redo;
  for (const SafetensorsTensor* t : todo) redo.insert(t->name);
  const fs::path tmp = sibling_path(dir, "tmp");
  std::error_code ec;
  try {
    fs::remove_all(tmp);
    fs::create_directory(tmp);
    // The earlier run's entries that this one does not redo, linked into the new folder.
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : manifest["entries"]) {
      if (!e.is_string() || redo.count(e.get<std::string>())) continue;
      const std::string name = e.get<std::string>();
      if (!fs::exists(dir / name) || !safe_folder_name(name)) continue;
      fs::copy(dir / name, tmp / name,
               fs::copy_options::recursive | fs::copy_options::create_hard_links);
      entries.push_back(name);
    }
    manifest["entries"] = entries;
    for (size_t i = 0; i < todo.size(); ++i) {
      const SafetensorsTensor& t = *todo[i];
      const auto start = std::chrono::steady_clock::now();
      const Matrix m{size_t(t.shape[0]), size_t(t.shape[1])};
      QuantizedWeights q;
      try {
        q = quantize_weights(f.read_fp16(t.name), int(m.rows), int(m.cols), o);
      } catch (const std::invalid_argument& e) {
        throw UsageError(
            fmt::format("{} tensor '{}': {}; nothing was written", a.checkpoint, t.name, e.what()));
      }
      fs::create_directory(tmp / t.name);
      write_quantized((tmp / t.name).string(), m, q);
      manifest["entries"].push_back(t.name);
      manifest["tensors"][t.name] = {{"complete", true},
                                     {"rows", m.rows},
                                     {"cols", m.cols},
                                     {"dtype", t.dtype},
                                     {"kmeans_cost", q.kmeans_cost}};
      fmt::print("[{}/{}] {}: {} x {} {} -> {} bits, K-means cost {:.6g} ({:.1f} s)\n", i + 1,
                 todo.size(), t.name, m.rows, m.cols, t.dtype, a.quant.bits, q.kmeans_cost,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::fflush(stdout);
    }
    for (auto it = manifest["tensors"].begin(); it != manifest["tensors"].end();) {
      const bool listed = std::find(manifest["entries"].begin(), manifest["entries"].end(),
                                    it.key()) != manifest["entries"].end();
      it = listed ? std::next(it) : manifest["tensors"].erase(it);
    }
    write_manifest(tmp, manifest);
    replace_folder(tmp, dir);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw UsageError(fmt::format("--out-dir {}: cannot write: {}; nothing was written or deleted",
                                 a.quant.out_dir, filesystem_message(e)));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fmt::print("quantized {} tensors of {} into {}/<name>/ (list: {})\n", todo.size(), a.checkpoint,
             a.quant.out_dir, (fs::path(a.quant.out_dir) / kManifest).string());
  return 0;
}

// A 1-D tensor (a codebook, the scales) as binary16.
std::vector<Fp16> read_vector(const std::string& path, const char* what) {
  const NpyArray a = read_npy(path);
  if (a.shape.size() != 1) {
    throw UsageError(
        fmt::format("{}: {} has {} dimensions; allowed: 1 (one value a centroid or "
                    "row, as calibrate and quantize write it)",
                    path, what, a.shape.size()));
  }
  return a.to_fp16(path);
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
  q.codebook = read_vector(qpath(dir, "weight_codebook.npy"), "a weight codebook");
  q.scales = read_vector(qpath(dir, "weight_scales.npy"), "weight scales");
  q.bits = 0;
  while ((size_t(1) << q.bits) < q.codebook.size()) ++q.bits;
  validate_quantized_weights(q, dir);
  return q;
}

// ---- gemm --------------------------------------------------------------------

// The SQNR line's figure, and why when it is not a number of decibels: outputs that are NaN or
// infinite, a reference of zeros, or outputs equal to the reference.
std::string sqnr_text(const std::vector<double>& ref, const std::vector<double>& y) {
  size_t bad_ref = 0, bad_y = 0, differing = 0;
  bool ref_zero = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    bad_ref += !std::isfinite(ref[i]);
    bad_y += !std::isfinite(y[i]);
    ref_zero = ref_zero && ref[i] == 0;
    differing += y[i] != ref[i];
  }
  if (bad_ref > 0 || bad_y > 0) {
    return fmt::format(
        "SQNR not a number: {} of the {} outputs and {} of the FP32 reference's are NaN or "
        "infinite (the weights or activations overflow binary16 or binary32)",
        bad_y, y.size(), bad_ref);
  }
  if (differing == 0) {
    return fmt::format("SQNR +inf dB: the {} outputs equal the FP32 reference", y.size());
  }
  if (ref_zero) {
    return fmt::format(
        "SQNR -inf dB: the FP32 reference is all zeros (the weights or activations are), and {} "
        "outputs are not",
        differing);
  }
  return fmt::format("SQNR {:.2f} dB", sqnr_db(ref, y));
}

struct GemmArgs {
  std::string config, acts, act_codebook, quantized, out;
  TensorSource weights;
  std::vector<std::string> overrides;
  int threads = 0;
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
  const std::vector<Fp16> ca = read_vector(a.act_codebook, "an activation codebook");
  const QuantizedWeights q = load_quantized(a.quantized);
  if (q.channels != c.channels) {
    throw UsageError(fmt::format("{}: weights of {} channels; config '{}' has channels = {}",
                                 a.quantized, q.channels, c.name, c.channels));
  }
  std::vector<Fp16> wref;
  if (!a.weights.npy.empty() || !a.weights.safetensors.empty() || !a.weights.tensor.empty()) {
    const LoadedTensor w = load_tensor(a.weights, "weights", "weights");
    if (w.shape.rows != size_t(q.rows) || w.shape.cols != size_t(q.channels)) {
      throw UsageError(fmt::format("{}: shape {} x {}; the quantised weights are {} x {}", w.origin,
                                   w.shape.rows, w.shape.cols, q.rows, q.channels));
    }
    wref = w.values;
  }
  const LutGemm model(LutGemmParams::from_config(c), ca, q.codebook);
  const std::vector<Fp16> y = model.gemm(x, int(m.rows), q, a.threads);
  write_all({{a.out, NpyArray::from_fp16({m.rows, size_t(q.rows)}, y)}});
  fmt::print(
      "ran {} tokens x K = {} x N = {} rows through config '{}' (k = {}, T = {}, Mc = {}, "
      "accumulator {}; {} kernel); wrote {}\n",
      m.rows, c.channels, q.rows, c.name, c.outliers_per_side, c.mac_tree_inputs, c.comp_macs,
      accumulator_name(c.accumulator), rows_kernel_name(fastest_rows_kernel()), a.out);
  if (!wref.empty()) {
    const std::vector<float> ref = reference_gemm_fp32(x, int(m.rows), wref, q.rows, q.channels);
    fmt::print("output error against the FP32 GEMM: {}\n",
               sqnr_text(std::vector<double>(ref.begin(), ref.end()), to_doubles(y)));
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
  std::string method = "lloyd";
  SqnrOptions options;
};

int run_report(const ReportArgs& a) {
  const Config c = load_config(a.config, a.overrides);
  SqnrOptions o = a.options;
  o.method = parse_kmeans_method(a.method);
  const std::vector<SqnrCase> cases = sqnr_report(c, o);
  fmt::print("{}", format_sqnr_report(c, o, cases));
  return 0;
}

struct SynthArgs {
  std::string kind = "activations", out, type = "float16";
  int rows = 16, channels = 128;
  uint64_t seed = 1;
};

int run_synth(const SynthArgs& a) {
  check_output_dir(a.out);
  if (a.type != "float16" && a.type != "float32" && a.type != "float64") {
    throw UsageError(fmt::format("--type {}; allowed: float16, float32, float64", a.type));
  }
  const uint64_t item = a.type == "float16" ? 2 : a.type == "float32" ? 4 : 8;
  if (uint64_t(a.rows) * uint64_t(a.channels) * item > kTensorBytesBudget) {
    throw UsageError(
        fmt::format("--rows {} --channels {} of {}: {} bytes; allowed: at most {} "
                    "bytes (the memory budget for one tensor)",
                    a.rows, a.channels, a.type, uint64_t(a.rows) * uint64_t(a.channels) * item,
                    kTensorBytesBudget));
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
  } else if (a.type == "float32") {
    std::vector<float> f;
    for (const Fp16 h : v) f.push_back(float(to_double(h)));
    write_all({{a.out, NpyArray::from_float(shape, f)}});
  } else {
    std::vector<double> d;
    for (const Fp16 h : v) d.push_back(to_double(h));
    write_all({{a.out, NpyArray::from_double(shape, d)}});
  }
  fmt::print("wrote {} synthetic {} of shape {} x {} ({}, seed {})\n", a.out, a.kind, a.rows,
             a.channels, a.type, a.seed);
  return 0;
}

}  // namespace oasis_model_command

int oasis::commands::oasis_model(int argc, char** argv) {
  using namespace oasis_model_command;
  CLI::App app{
      "oasis-model: the OASIS golden model (NU-WAQ quantisation, LUT-GEMM with "
      "look-ahead and error compensation) from the command line"};
  app.require_subcommand(1, 1);

  CalibrateArgs ca;
  auto* cal = app.add_subcommand("calibrate",
                                 "learn an activation codebook from calibration "
                                 "tokens (.npy or a safetensors tensor, tokens x K) -> "
                                 "codebook .npy");
  cal->add_option("--acts", ca.acts.npy,
                  "calibration activations .npy, tokens x K (float16, float32, or float64 "
                  "rounded once to binary16)");
  add_safetensors_options(cal, ca.acts, "activations");
  cal->add_option("--out", ca.out, "output codebook .npy (float16, 2^bits)")->required();
  cal->add_option("--bits", ca.bits, "nA: activation index bits")->check(CLI::Range(1, 8));
  cal->add_option("--method", ca.method, "K-means: lloyd or optimal (1-D dynamic programming)");
  cal->add_option("--scale", ca.scale, "per-token scale: rms or absmax");
  cal->add_option("--seed", ca.seed, "seed of the K-means initialisation")->check(seed_validator());
  cal->add_option("--outlier-fraction", ca.outlier_fraction,
                  "p: k = ceil(p*K) outliers per side left out of each token")
      ->check(finite_range(0.0, 0.5));
  cal->add_option("--outliers-per-side", ca.outliers_per_side,
                  "k directly (overrides --outlier-fraction)")
      ->check(CLI::NonNegativeNumber);
  cal->add_option("--fisher", ca.fisher, "per-activation K-means weights .npy (same size)");
  cal->add_flag("--gap", ca.gap, "also run the optimal K-means and print Lloyd's gap to it");
  cal->add_flag("--symmetric", ca.symmetric,
                "a codebook symmetric about zero: K-means of the magnitudes, mirrored");

  QuantizeArgs qa;
  auto* qua = app.add_subcommand("quantize",
                                 "quantise weights (.npy or a safetensors tensor, N x K) -> "
                                 "weight_indices/codebook/scales .npy in a folder");
  qua->add_option("--weights", qa.weights.npy,
                  "weights .npy, rows x K (float16, float32, or float64 rounded once to "
                  "binary16)");
  add_safetensors_options(qua, qa.weights, "weights");
  qua->add_option("--out-dir", qa.out_dir, "existing output folder")->required();
  auto add_quant_options = [](CLI::App* app, QuantizeArgs& q) {
    app->add_option("--bits", q.bits, "nW: weight index bits")->check(CLI::Range(1, 8));
    app->add_option("--method", q.method, "K-means: lloyd or optimal");
    app->add_option("--scale", q.scale, "per-row scale: rms or absmax");
    app->add_option("--seed", q.seed, "seed of the K-means initialisation")
        ->check(seed_validator());
    app->add_flag("--symmetric", q.symmetric,
                  "a codebook symmetric about zero: K-means of the magnitudes, mirrored");
  };
  add_quant_options(qua, qa);

  QuantizeAllArgs qaa;
  auto* qall = app.add_subcommand(
      "quantize-all",
      "quantise every 2-D floating-point tensor of a safetensors checkpoint whose name matches "
      "a pattern, each into <out-dir>/<name>/ as quantize writes it, one progress line a tensor");
  qall->add_option("--safetensors", qaa.checkpoint,
                   "safetensors checkpoint (F16, BF16, F32 or F64 tensors)")
      ->required();
  qall->add_option("--match", qaa.pattern,
                   "shell pattern the whole tensor name must match (* ? [...]), e.g. "
                   "'model.layers.*.mlp.*_proj.weight'; default *.weight");
  qall->add_option("--out-dir", qaa.quant.out_dir,
                   "output folder: a new one (its parent must exist), or one an earlier "
                   "quantize-all made and nothing else wrote into")
      ->required();
  add_quant_options(qall, qaa.quant);

  GemmArgs ga;
  auto* gem = app.add_subcommand("gemm",
                                 "run tokens through the bit-exact OASIS GEMM, write the "
                                 "FP16 outputs, report the error against FP32");
  gem->add_option("--config", ga.config, "JSON config (K, k, T, Mc, accumulator)")->required();
  gem->add_option("--set", ga.overrides, "override a config field: key=value (repeatable)");
  gem->add_option("--acts", ga.acts,
                  "activations .npy, tokens x K (float16, float32, or float64 rounded once to "
                  "binary16)")
      ->required();
  gem->add_option("--act-codebook", ga.act_codebook, "activation codebook .npy (calibrate)")
      ->required();
  gem->add_option("--quantized", ga.quantized, "folder written by quantize")->required();
  gem->add_option("--out", ga.out, "output .npy, float16, tokens x N")->required();
  gem->add_option("--weights", ga.weights.npy,
                  "unquantised weights .npy: report SQNR against FP32");
  add_safetensors_options(gem, ga.weights, "unquantised weights (SQNR against FP32)");
  gem->add_option("--threads", ga.threads,
                  "rows on this many threads, 0 for one per core (the output does not change)")
      ->check(CLI::Range(0, 1024));

  AnalyzeArgs aa;
  auto* ana = app.add_subcommand("analyze",
                                 "the paper's analytic figures for a config: LUT "
                                 "entries, reduction FLOPs, Orizuru comparisons, "
                                 "cycle lower bound");
  ana->add_option("--config", aa.config, "JSON config")->required();
  ana->add_option("--set", aa.overrides, "override a config field: key=value (repeatable)");
  ana->add_option("--rows", aa.rows, "N: output rows of the GEMM")->check(CLI::Range(1, 1 << 24));
  ana->add_option("--mu", aa.mu, "group size of the WOQ LUT-GEMM compared with");
  ana->add_option("--seed", aa.seed, "seed of the token Orizuru's comparisons are counted on")
      ->check(seed_validator());
  ana->add_flag("--json", aa.json, "print JSON instead of text");

  ReportArgs ra;
  auto* rep = app.add_subcommand("report",
                                 "SQNR against FP32 on synthetic LLM-like data: INT "
                                 "RTN and NU, W4A4 and W4A3, with and without outliers");
  rep->add_option("--config", ra.config, "JSON config (K, T, Mc, accumulator)")->required();
  rep->add_option("--set", ra.overrides, "override a config field: key=value (repeatable)");
  rep->add_option("--seed", ra.options.seed, "seed of the synthetic data")->check(seed_validator());
  rep->add_option("--tokens", ra.options.tokens, "evaluation tokens")->check(CLI::Range(1, 4096));
  rep->add_option("--calibration-tokens", ra.options.calibration_tokens, "calibration tokens")
      ->check(CLI::Range(1, 4096));
  rep->add_option("--rows", ra.options.rows, "N: output rows")->check(CLI::Range(1, 65536));
  rep->add_option("--method", ra.method,
                  "K-means of every codebook: lloyd or optimal (1-D dynamic programming)");
  rep->add_option("--outlier-fraction", ra.options.outlier_fraction,
                  "p: k = ceil(p*K) outliers per side")
      ->check(finite_range(0.0, 0.5));

  SynthArgs sa;
  auto* syn = app.add_subcommand("synth",
                                 "write seeded synthetic LLM-like activations or "
                                 "weights as .npy");
  syn->add_option("--kind", sa.kind, "activations or weights");
  syn->add_option("--rows", sa.rows, "tokens or weight rows")->check(CLI::Range(1, 1 << 20));
  syn->add_option("--channels", sa.channels, "K")->check(CLI::Range(2, 65536));
  syn->add_option("--seed", sa.seed, "seed")->check(seed_validator());
  syn->add_option("--type", sa.type, "float16, float32 or float64");
  syn->add_option("--out", sa.out, "output .npy")->required();

  if (const auto status = parse_subcommands(app, argc, argv, "oasis-model")) return *status;
  try {
    if (*cal) return run_calibrate(ca);
    if (*qua) return run_quantize(qa);
    if (*qall) return run_quantize_all(qaa);
    if (*gem) return run_gemm(ga);
    if (*ana) return run_analyze(aa);
    if (*rep) return run_report(ra);
    if (*syn) return run_synth(sa);
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "oasis-model: %s\n", filesystem_message(e).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oasis-model: %s\n", e.what());
    return 2;
  }
  return 2;
}
