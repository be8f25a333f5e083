// SPDX-License-Identifier: Apache-2.0
// The options oasis-synth and oasis-ppa share: the build folder, the config and its
// overrides, the output folder, the blocks to measure and the size above which a block is
// measured smaller and extrapolated. Only the two commands include it.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sim/ppa/plan.hpp"

namespace oasis::ppa {

struct CommonOptions {
  std::string build;
  std::string config_path;
  std::vector<std::string> overrides;
  std::string out;
  std::string blocks;
  int max_channels = 1024;
};

/// The shared options on `app`; `report` names the default output folder, BUILD/<report>/NAME.
inline void add_common_options(CLI::App& app, CommonOptions& o, const std::string& report) {
  app.add_option("--build", o.build,
                 fmt::format("the build folder (the default output is BUILD/{}/NAME)", report))
      ->required();
  app.add_option("--config", o.config_path, "JSON config, as oasis-gen reads it")->required();
  app.add_option("--set", o.overrides, "override a config field: key=value (repeatable)");
  app.add_option("--out", o.out,
                 fmt::format("output folder (default BUILD/{}/<config name>)", report));
  app.add_option("--max-channels", o.max_channels,
                 "above this many channels, blocks too large for Yosys are measured smaller and "
                 "extrapolated")
      ->capture_default_str();
  app.add_option("--blocks", o.blocks,
                 "measure only these blocks (comma-separated; their results are reused by the next "
                 "full run) and write no report");
}

/// UsageError for a shared option out of its range.
inline void check_common_options(const CommonOptions& o) {
  if (o.max_channels < 2 || o.max_channels > (1 << 20)) {
    throw UsageError(fmt::format("--max-channels is {}; allowed: 2 to 1048576", o.max_channels));
  }
}

}  // namespace oasis::ppa
