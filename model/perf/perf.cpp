// SPDX-License-Identifier: Apache-2.0
#include "model/perf/perf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/io/input.hpp"

namespace oasis {

std::string phase_name(PerfPhase p) {
  switch (p) {
    case PerfPhase::kClustering:
      return "clustering";
    case PerfPhase::kOrizuruBuild:
      return "Orizuru build";
    case PerfPhase::kErrorCalculation:
      return "error calculation";
    case PerfPhase::kWeightStream:
      return "weight stream";
    case PerfPhase::kMemory:
      return "weight memory";
    case PerfPhase::kIndexCounting:
      return "main branch (index counting)";
    case PerfPhase::kMacTree:
      return "main branch (MAC tree)";
    case PerfPhase::kOutlierBranch:
      return "outlier branch";
    case PerfPhase::kDrain:
      return "drain";
  }
  return "?";
}

std::string phase_branch(PerfPhase p) {
  if (p == PerfPhase::kIndexCounting || p == PerfPhase::kMacTree) return "main branch";
  return phase_name(p);
}

namespace {

int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t memory_cycles(int64_t bytes, double bytes_per_cycle) {
  if (bytes_per_cycle <= 0) return 0;
  return int64_t(std::ceil(double(bytes) / bytes_per_cycle));
}

}  // namespace

TokenFigures token_figures(const Config& c, int64_t rows, double bw) {
  const Derived d = derive(c);
  TokenFigures f;
  f.clustering = d.core.clustering_done;
  f.orizuru_build = d.core.orizuru_done;
  f.error_calculation = d.core.error_calculation;
  f.preprocess = d.core.preprocess_cycles;

  const int64_t P = c.pe_lines, K = c.channels;
  f.groups = d.row_groups(rows);
  f.fill_beats = d.row.fill;
  f.count_beats = d.row.count;
  f.chunks = d.row.reduce;
  f.outlier_cycles = d.row.compensate;
  // A group: P rows of K indices of nW bits, and P binary16 scales.
  const int64_t last_rows = rows - (f.groups - 1) * P;
  f.group_bytes = ceil_div64(P * K * c.weight_bits, 8) + 2 * P;
  f.last_group_bytes = ceil_div64(last_rows * K * c.weight_bits, 8) + 2 * last_rows;
  f.memory_cycles = memory_cycles(f.group_bytes, bw);
  f.last_memory_cycles = memory_cycles(f.last_group_bytes, bw);
  f.row_latency = d.pe_line.row_latency;

  // The term of the interval: the line's (derive()'s row interval), unless the
  // memory is slower. Ties go to the main branch, then the outlier branch,
  // then the stream (the weight beat is sized to keep up).
  const std::pair<int64_t, PerfPhase> terms[] = {
      {f.chunks, PerfPhase::kMacTree},
      {f.count_beats, PerfPhase::kIndexCounting},
      {f.outlier_cycles, PerfPhase::kOutlierBranch},
      {f.fill_beats, PerfPhase::kWeightStream},
      {f.memory_cycles, PerfPhase::kMemory},
  };
  f.row_interval = 0;
  for (const auto& [v, p] : terms) {
    if (v > f.row_interval) {
      f.row_interval = v;
      f.interval_bound = p;
    }
  }
  f.main_branch = f.groups * std::max(f.count_beats, f.chunks);
  f.outlier_branch = f.groups * f.outlier_cycles;
  // Unlimited memory: derive()'s GEMM phase. The memory stretches the
  // interval and delays the last group's last beat.
  f.gemm = d.gemm_cycles(rows, f.row_interval, std::max(f.fill_beats, f.last_memory_cycles));
  f.drain = f.gemm - f.groups * f.row_interval;
  return f;
}

LayerPerf layer_perf(const Config& c, int64_t rows, const PerfOptions& o) {
  if (rows < 1) throw std::invalid_argument(fmt::format("rows {}: at least 1", rows));
  if (o.tokens < 1) throw std::invalid_argument(fmt::format("tokens {}: at least 1", o.tokens));
  if (!std::isfinite(o.bytes_per_cycle) || o.bytes_per_cycle < 0) {
    throw std::invalid_argument(fmt::format(
        "bandwidth {}: a finite number of bytes a cycle, > 0 (0 = unlimited)", o.bytes_per_cycle));
  }
  LayerPerf L;
  L.rows = rows;
  L.tokens = o.tokens;
  L.bytes_per_cycle = o.bytes_per_cycle;
  L.token = token_figures(c, rows, o.bytes_per_cycle);
  const TokenFigures& f = L.token;
  // A token's context is complete preprocess - 1 cycles after its first beat;
  // it is switched in the cycle after, once the previous token's last output
  // has been taken (the lines idle); its weights start the cycle after the
  // switch, and the next token's first beat is taken then too (the switch
  // frees the next-context buffers).
  int64_t x = 0, prev_last = -1;
  for (int t = 0; t < o.tokens; ++t) {
    const int64_t ready = x + f.preprocess - 1;
    const int64_t sw = std::max(ready + 1, prev_last + 1);
    const int64_t fw = sw + 1;
    const int64_t last = fw + f.gemm - 1;
    L.first_beat.push_back(x);
    L.context_ready.push_back(ready);
    L.first_weight.push_back(fw);
    L.last_output.push_back(last);
    prev_last = last;
    x = sw + 1;
  }
  L.token_period = std::max(f.preprocess, f.gemm) + 1;
  L.cycles = L.last_output.back() + 1;
  // Exposed shares: token 0's pre-processing and switch, then for each later
  // token the pre-processing the previous GEMM did not hide; every token's
  // rows and drain.
  L.exposed_preprocess =
      f.preprocess + 1 + int64_t(o.tokens - 1) * (std::max(f.preprocess, f.gemm) - f.gemm);
  L.exposed_rows = int64_t(o.tokens) * f.groups * f.row_interval;
  L.exposed_drain = L.cycles - L.exposed_preprocess - L.exposed_rows;
  PerfPhase pre =
      f.clustering >= f.orizuru_build ? PerfPhase::kClustering : PerfPhase::kOrizuruBuild;
  if (f.error_calculation > std::max(f.clustering, f.orizuru_build)) {
    pre = PerfPhase::kErrorCalculation;
  }
  L.bound = f.interval_bound;
  int64_t best = L.exposed_rows;
  if (L.exposed_preprocess > best) {
    best = L.exposed_preprocess;
    L.bound = pre;
  }
  if (L.exposed_drain > best) L.bound = PerfPhase::kDrain;
  return L;
}

ModelShape load_model_shape(const std::string& path) {
  // A model file is a few kilobytes: a name, a source and a list of layers.
  constexpr JsonLimits kLimits{1u << 20, 16};
  nlohmann::json doc;
  try {
    doc = parse_json_input(read_input_file(path, kLimits.max_bytes), kLimits);
  } catch (const JsonInputError& e) {
    throw ConfigError(fmt::format("model file {}: {}", path, e.what()));
  }
  const auto need = [&](const nlohmann::json& obj, const std::string& key,
                        nlohmann::json::value_t type, const std::string& what) {
    const bool number = type == nlohmann::json::value_t::number_unsigned;
    if (!obj.is_object() || !obj.contains(key) ||
        (number ? !obj.at(key).is_number_unsigned() : obj.at(key).type() != type)) {
      throw ConfigError(
          fmt::format("model file {}: field \"{}\" missing or not {}", path, key, what));
    }
    return obj.at(key);
  };
  ModelShape m;
  m.name = need(doc, "name", nlohmann::json::value_t::string, "a string").get<std::string>();
  m.source = need(doc, "source", nlohmann::json::value_t::string, "a string").get<std::string>();
  const auto layers =
      need(doc, "layers", nlohmann::json::value_t::number_unsigned, "a whole number");
  m.layers = layers.get<int>();
  if (m.layers < 1) {
    throw ConfigError(fmt::format("model file {}: \"layers\" {}: at least 1", path, m.layers));
  }
  const auto lin = need(doc, "linear", nlohmann::json::value_t::array, "an array");
  if (lin.empty()) throw ConfigError(fmt::format("model file {}: \"linear\" is empty", path));
  for (const auto& l : lin) {
    ModelLayer ml;
    ml.name = need(l, "name", nlohmann::json::value_t::string, "a string").get<std::string>();
    ml.in =
        need(l, "in", nlohmann::json::value_t::number_unsigned, "a whole number").get<int64_t>();
    ml.out =
        need(l, "out", nlohmann::json::value_t::number_unsigned, "a whole number").get<int64_t>();
    if (ml.in < 1 || ml.in > 1 << 20 || ml.out < 1 || ml.out > 1 << 20) {
      throw ConfigError(
          fmt::format("model file {}: layer \"{}\": in {} and out {}; allowed: 1..1048576", path,
                      ml.name, ml.in, ml.out));
    }
    m.linear.push_back(ml);
  }
  return m;
}

Config with_channels(const Config& c, int64_t channels) {
  nlohmann::json j = to_json(c);
  const int64_t k = std::max<int64_t>(
      1, std::min<int64_t>(channels / 2,
                           ceil_div64(int64_t(c.outliers_per_side) * channels, c.channels)));
  j["channels"] = channels;
  j["outliers_per_side"] = k;
  j["weight_beat_indices"] = std::min<int64_t>(c.weight_beat_indices, channels);
  j["clustering_lanes"] = std::min<int64_t>(c.clustering_lanes, channels);
  return parse_config(j, fmt::format("{} with channels = {}", c.name, channels));
}

WoqLutLayerPerf woq_lut_layer_perf(const Config& c, int64_t rows, int tokens) {
  if (rows < 1 || tokens < 1) {
    throw std::invalid_argument(
        fmt::format("FIGLUT-class line: {} rows, {} tokens; at least 1 each", rows, tokens));
  }
  const WoqLutTiming& t = derive(c).woq_lut_line_baseline;
  WoqLutLayerPerf p;
  p.rows = rows;
  p.tokens = tokens;
  p.batches = (rows + t.rows - 1) / t.rows;
  p.batch_beats = t.batch_beats;
  p.load_cycles = t.load_cycles;
  p.row_latency = t.row_latency;
  p.token_period = p.load_cycles + p.batches * p.batch_beats;
  for (int m = 0; m < tokens; ++m) {
    const int64_t load = int64_t(m) * p.token_period;
    const int64_t last_beat = load + p.token_period - 1;
    p.load.push_back(load);
    p.last_output.push_back(last_beat + p.row_latency + (rows - 1) % t.rows);
  }
  p.cycles = p.last_output.back() + 1;
  return p;
}

ModelPerf model_perf(const Config& c, const ModelShape& shape, const PerfOptions& o) {
  ModelPerf m;
  for (const ModelLayer& l : shape.linear) {
    m.configs.push_back(l.in == c.channels ? c : with_channels(c, l.in));
    m.layers.push_back(layer_perf(m.configs.back(), l.out, o));
    m.block_cycles += m.layers.back().cycles;
  }
  m.model_cycles = m.block_cycles * shape.layers;
  return m;
}

}  // namespace oasis
