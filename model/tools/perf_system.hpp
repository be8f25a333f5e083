// SPDX-License-Identifier: Apache-2.0
// The system figures of oasis-perf (docs/system.md): `oasis-perf system` and the section of
// `oasis-perf report` that sets the paper's Figs. 11, 12, 13 and 18 beside this project's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/perf/system.hpp"

namespace oasis::perf_system {

/// One model on both designs at one memory and batch: the text `oasis-perf system` prints.
std::string run_text(const Config& config, const ModelShape& shape, int tokens,
                     const EnergySpec& energy, Sizing sizing, const SystemOptions& options);

/// The report's section: writes its data and gnuplot scripts (system_*.dat, system_*.gp) into
/// `out` and returns its markdown. `memories` are the memories of the Fig. 11 tables; the first
/// is the one of Figs. 12, 13 and 18.
std::string write_report(const Config& config, const std::vector<ModelShape>& models,
                         const EnergySpec& energy, const std::vector<MemorySpec>& memories,
                         double clock_hz, const std::filesystem::path& out);

}  // namespace oasis::perf_system
