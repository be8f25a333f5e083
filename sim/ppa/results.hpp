// SPDX-License-Identifier: Apache-2.0
// The project's headline figures in one place (docs/results.md, written by `make results`):
// the three ways to a 4-bit GEMM as `oasis-ppa --three-ways` measured them, each table with
// the run that made it (config, clock, library, workload, command, commit), and OASIS against
// the FIGLUT-class accelerator in the system model (model/perf/system.hpp) on the paper
// config. The page is the JSON rendered, nothing else: a test renders docs/results.json and
// compares it with docs/results.md.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace oasis::ppa {

/// The commit of the project's source folder (`git describe --always --dirty`: "-dirty" when
/// tracked files differ from it), "" when it is not a git checkout. oasis-ppa takes it as a run
/// starts, before it generates the RTL.
std::string source_commit(const std::filesystem::path& source);

/// What `oasis-ppa --three-ways` records of its run in three_ways.json (`run`).
nlohmann::ordered_json three_ways_run(const std::string& config,
                                      const std::vector<std::string>& sets,
                                      const std::string& library, double period_fo4,
                                      double period_ns, const std::string& workload,
                                      const std::string& command, const std::string& commit);

struct ResultsInputs {
  std::vector<std::filesystem::path> three_ways;  ///< three_ways.json files of oasis-ppa
  std::filesystem::path source;                   ///< configs/ of the system figures
  std::string command, commit;                    ///< this run's, for the system figures
};

/// The results' JSON: every three-ways table (each must carry its `run`) and the system
/// figures computed here. Throws UsageError naming a file that is not a three_ways.json with
/// its run.
nlohmann::ordered_json collect_results(const ResultsInputs& in);

/// docs/results.md: the JSON rendered, its first line the mark of the command that writes it.
std::string results_markdown(const nlohmann::ordered_json& results);

/// The first line of every page results_markdown writes.
extern const char* const kResultsMark;

}  // namespace oasis::ppa
