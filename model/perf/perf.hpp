// SPDX-License-Identifier: Apache-2.0
// The performance model of the generated core (docs/perf.md): cycles of a
// linear layer of N rows for M tokens streamed back to back, each token
// re-streaming the whole weight matrix as run_core drives it, with the phases
// of a token (clustering, Orizuru build, error calculation, main branch,
// outlier branch, drain) and the one that bounds the layer. Closed form from
// derive()'s figures (model/derived.hpp); with the weight memory unlimited it
// equals what the cycle model Core (and the RTL) measures, cycle for cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/core.hpp"

namespace oasis {

/// What can bound a layer (the largest share of its cycles).
enum class PerfPhase {
  kClustering,        ///< the Clustering Unit: K activations at L a cycle
  kOrizuruBuild,      ///< Orizuru's tree
  kErrorCalculation,  ///< 2k outliers one a cycle through the ECU
  kWeightStream,      ///< ceil(K / Wb) beats a group
  kMemory,            ///< the weight memory's bytes a cycle
  kIndexCounting,     ///< main branch: ceil(K / (C*I)) counting beats a row
  kMacTree,           ///< main branch: ceil(E / T) chunks a row, E the LUT's entries
  kOutlierBranch,     ///< ceil(2k / Mc) compensation cycles a row
  kDrain,             ///< the last group's fill and the last row's latency
};

std::string phase_name(PerfPhase phase);
/// kIndexCounting and kMacTree are both "main branch".
std::string phase_branch(PerfPhase phase);

struct PerfOptions {
  int tokens = 1;              ///< M, streamed back to back
  double bytes_per_cycle = 0;  ///< weight-memory bandwidth; 0 = unlimited
};

/// One token's figures (cycle 0 = its first token beat taken).
struct TokenFigures {
  // Pre-processing (docs/core.md, Timing).
  int64_t clustering = 0;         ///< B*Q + Lc + 1: the last activation index written
  int64_t orizuru_build = 0;      ///< (B-1)*Q + build + 1: the tree built
  int64_t error_calculation = 0;  ///< 2k + ecu_latency (1 + S)
  int64_t preprocess = 0;  ///< max(clustering, build) + error_calculation = preprocess_cycles
  // GEMM phase of N rows (docs/pe_line.md, Timing).
  int64_t groups = 0;              ///< ceil(N / P)
  int64_t fill_beats = 0;          ///< ceil(K / Wb), weight-stream beats a group
  int64_t count_beats = 0;         ///< ceil(K / (C*I))
  int64_t chunks = 0;              ///< ceil(E / T), E the LUT's entries
  int64_t outlier_cycles = 0;      ///< ceil(2k / Mc)
  int64_t group_bytes = 0;         ///< a full group: ceil(P*K*nW / 8) + 2P
  int64_t last_group_bytes = 0;    ///< the last group (its rows only)
  int64_t memory_cycles = 0;       ///< ceil(group_bytes / bandwidth), 0 if unlimited
  int64_t last_memory_cycles = 0;  ///< the same for the last group
  int64_t row_interval = 0;        ///< max(fill, count, chunks, outlier, memory)
  int64_t row_latency = 0;         ///< the line's last weight beat to y valid
  int64_t main_branch = 0;         ///< groups * max(count, chunks): the main branch's busy cycles
  int64_t outlier_branch = 0;      ///< groups * outlier_cycles
  int64_t gemm = 0;                ///< first weight beat to last output, inclusive
  int64_t drain = 0;               ///< gemm - groups * row_interval
  PerfPhase interval_bound = PerfPhase::kMacTree;  ///< the term of row_interval
};

TokenFigures token_figures(const Config& config, int64_t rows, double bytes_per_cycle = 0);

/// A layer of `rows` outputs (N) for M tokens back to back, on an idle core
/// whose registers are written. Cycle 0 is token 0's first beat taken.
struct LayerPerf {
  int64_t rows = 0;
  int tokens = 0;
  double bytes_per_cycle = 0;
  TokenFigures token;
  /// Per token t: first beat taken, context complete (edge writing its last
  /// residual), first weight beat taken, last output taken.
  std::vector<int64_t> first_beat, context_ready, first_weight, last_output;
  int64_t token_period = 0;  ///< max(preprocess, gemm) + 1: one token in the steady state
  int64_t cycles = 0;        ///< token 0's first beat to token M-1's last output, inclusive
  /// The layer's cycles split into what each phase leaves exposed (sums to cycles).
  int64_t exposed_preprocess = 0, exposed_rows = 0, exposed_drain = 0;
  PerfPhase bound = PerfPhase::kMacTree;
  double cycles_per_token() const { return double(cycles) / double(tokens); }
};

/// Throws std::invalid_argument for rows < 1, tokens < 1 or a negative or
/// non-finite bandwidth.
LayerPerf layer_perf(const Config& config, int64_t rows, const PerfOptions& options);

/// One FIGLUT-class line (woq_lut_line_baseline, docs/woq_lut_line.md), at a PE line's
/// throughput, on a layer of `rows` rows for M tokens back to back, unthrottled: each token loaded
/// (act_load_i) the cycle after the last beat of the one before, its rows in ceil(rows / R)
/// batches of B beats, the last batch's rows past `rows` padding. Cycle 0 is token 0's load;
/// equal to the cycle model's and the RTL's (verif/tb/woq_lut_line_baseline_tb.cpp).
struct WoqLutLayerPerf {
  int64_t rows = 0;
  int tokens = 0;
  int64_t batches = 0;               ///< a token's: ceil(rows / R)
  int64_t batch_beats = 0;           ///< B
  int64_t load_cycles = 0;           ///< a token's load to its first beat taken
  int64_t row_latency = 0;           ///< a batch's last beat to its row 0's output
  int64_t token_period = 0;          ///< load_cycles + batches * B: a token's load to the next's
  std::vector<int64_t> load;         ///< per token, the cycle it is loaded
  std::vector<int64_t> last_output;  ///< per token, the cycle of its last row's output
  int64_t cycles = 0;                ///< token 0's load to token M-1's last output, inclusive
};

/// Throws std::invalid_argument for rows < 1 or tokens < 1.
WoqLutLayerPerf woq_lut_layer_perf(const Config& config, int64_t rows, int tokens = 1);

/// A model's linear layers (configs/models/<model>.json).
struct ModelLayer {
  std::string name;  ///< q, k, v, o, gate, up, down
  int64_t in = 0;    ///< K
  int64_t out = 0;   ///< N
};
struct ModelShape {
  std::string name;
  std::string source;  ///< where the dimensions were taken from
  int layers = 0;      ///< decoder layers
  std::vector<ModelLayer> linear;
};

/// Throws ConfigError naming the file and the field for a bad file.
ModelShape load_model_shape(const std::string& path);

/// The config with K = `channels` and k scaled to keep the outlier fraction
/// 2k/K of `config`: k = ceil(k_config * K / K_config) (at least 1, at most
/// K/2). Validated again; throws ConfigError if the result is not a config.
Config with_channels(const Config& config, int64_t channels);

/// One model's linear layers on a config (each layer on with_channels(in)).
struct ModelPerf {
  std::vector<LayerPerf> layers;  ///< as ModelShape::linear
  std::vector<Config> configs;    ///< the config each layer ran on
  int64_t block_cycles = 0;       ///< one decoder block's linear layers, M tokens
  int64_t model_cycles = 0;       ///< block_cycles * decoder layers
  double tokens_per_second(double clock_hz, int tokens) const {
    return double(tokens) * clock_hz / double(model_cycles);
  }
};
ModelPerf model_perf(const Config& config, const ModelShape& shape, const PerfOptions& options);

}  // namespace oasis
