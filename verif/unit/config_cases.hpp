// SPDX-License-Identifier: Apache-2.0
// Configs for the tests of what derives from a config: the labels of the
// sweeps (sim/sweeps/*.txt), configs/*.json and random configs the schema
// accepts.
#pragma once

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "sim/tools/sweeps.hpp"

namespace oasis::test {

struct ConfigCase {
  std::string label;
  Config config;
};

/// Every label of the sweeps whose block names start with `prefix`
/// (sim/sweeps/<prefix>*.txt), its config with its overrides.
inline std::vector<ConfigCase> sweep_cases(const std::string& prefix = "") {
  const std::string source = OASIS_SOURCE_DIR;
  std::vector<ConfigCase> out;
  for (const auto& sweep : sweeps::read(source)) {
    if (!sweep.block.starts_with(prefix)) continue;
    for (const auto& label : sweep.labels) {
      out.push_back({sweep.block + ".txt:" + label.name,
                     load_config(source + "/" + label.config, label.sets)});
    }
  }
  return out;
}

/// configs/*.json.
inline std::vector<ConfigCase> config_cases() {
  std::vector<ConfigCase> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(OASIS_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".json") continue;
    out.push_back({e.path().filename().string(), load_config(e.path().string())});
  }
  return out;
}

/// Random configs the schema accepts, small enough to run in milliseconds.
inline std::vector<ConfigCase> random_cases(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](int lo, int hi) { return lo + int(rng() % uint64_t(hi - lo + 1)); };
  std::vector<ConfigCase> out;
  while (int(out.size()) < n) {
    const int K = pick(4, 300);
    std::vector<std::string> o = {
        "channels=" + std::to_string(K),
        "outliers_per_side=" + std::to_string(pick(1, std::min(12, K / 2))),
        "act_bits=" + std::to_string(pick(1, 4)),
        "weight_bits=" + std::to_string(pick(1, 4)),
        "pe_lines=" + std::to_string(pick(1, 4)),
        "index_counters=" + std::to_string(pick(1, 8)),
        "counter_inputs=" + std::to_string(pick(1, 8)),
        "mac_tree_inputs=" + std::to_string(pick(1, 32)),
        "comp_macs=" + std::to_string(pick(1, 8)),
        "clustering_lanes=" + std::to_string(pick(1, std::min(8, K))),
        "clustering_levels_per_stage=" + std::to_string(pick(1, 3)),
        "orizuru_unit_inputs=" + std::to_string(1 << pick(1, 4)),
        "orizuru_levels_per_stage=" + std::to_string(pick(1, 3)),
        "orizuru_pop_levels=" + std::to_string(pick(-1, 4)),
        "orizuru_pop_cycles=" + std::to_string(pick(0, 4)),
        "fp_pipeline_stages=" + std::to_string(pick(0, 2)),
        "weight_beat_indices=" + std::to_string(pick(1, std::min(64, K))),
        std::string("accumulator=") + (rng() % 2 ? "fp16" : "fp32"),
        "index_counter_input_stage=" + std::to_string(pick(-1, 1)),
        "mac_line_operand_stage=" + std::to_string(pick(-1, 1)),
        "topk_sort_stages_per_cycle=" + std::to_string(pick(0, 4)),
        "topk_baseline_pop_cycles=" + std::to_string(pick(0, 4)),
        "index_counter_tree_registers=" + std::to_string(pick(-1, 2)),
    };
    try {
      out.push_back({"random " + std::to_string(out.size()),
                     load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json", o)});
    } catch (const ConfigError&) {
    }
  }
  return out;
}

}  // namespace oasis::test
