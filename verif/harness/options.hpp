// SPDX-License-Identifier: Apache-2.0
// A testbench's run options (verif/harness/harness.hpp). Kept apart from the harness, which
// needs Verilator's headers, so that the unit tests parse them too.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "gen/manifest.hpp"

namespace oasis::tb {

/// Run options, from the command line (after Verilator's own +args) and the
/// environment: SEED=<n> sets the seed, TRACE=1 writes a waveform.
struct Options {
  std::string block;          ///< block under test, for messages
  std::string label;          ///< config label (the sweep's name for it)
  std::string manifest_path;  ///< the generated manifest.json
  gen::Manifest manifest;     ///< its contents
  uint64_t seed = 1;
  uint64_t vectors = 0;     ///< random vectors to run; 0 = the testbench's default
  bool exhaustive = false;  ///< run the exhaustive stimulus where there is one
  bool trace = false;
  std::string trace_path;
  std::string coverage_path;  ///< where a coverage build (sim/vltest --coverage) writes its counts
  std::string record_path;    ///< --record: the per-cycle port values go here (empty: not recorded)
  uint64_t record_cycles = 0;  ///< --record-cycles: record only the first n cycles; 0 = all
  std::string summary_path;    ///< --summary: the verdict and figures as JSON go here
  int max_mismatches = 10;     ///< stop after this many
  /// --workload: after reset, the golden model's layer (verif/workload.hpp, docs/workload.md)
  /// instead of the directed and random stimulus, every check on.
  bool workload = false;
  uint64_t workload_tokens = 0;      ///< --workload-tokens: 0 = the block's default
  uint64_t workload_rows = 0;        ///< --workload-rows: 0 = the block's default
  std::string workload_activations;  ///< --workload-activations: tokens x K .npy (empty: synthetic)
  std::string workload_weights;      ///< --workload-weights: rows x K .npy (empty: synthetic)
  /// --workload-zeros: the layer's data held at zero (verif/workload.hpp): a workload whose data
  /// path does not move, the power flow's check of its clock floor.
  bool workload_zeros = false;

  /// The largest --workload-tokens and --workload-rows.
  static constexpr uint64_t kMaxWorkloadSize = uint64_t{1} << 20;

  /// Reads --manifest, --label, --vectors, --exhaustive, --seed, --coverage,
  /// --record, --record-cycles, --summary, --workload and its sizes and tensors, and the
  /// environment. Exits with status 2 and a message on a bad argument.
  static Options parse(std::string block, int argc, char** argv);
  /// A derived parameter or config field from the manifest, as an integer.
  long long param(const std::string& key) const;
  /// The config the design was generated from, as oasis::parse_config reads it.
  nlohmann::json config_json() const { return nlohmann::json(manifest.config()); }
};

}  // namespace oasis::tb
