// SPDX-License-Identifier: Apache-2.0
// oasis-results: the headline figures in one place (`make results`, docs/results.md). Reads
// the build folder's `oasis-ppa --three-ways` tables (each carrying its run: config, clock,
// workload, command, commit), computes the system figures on the paper config, and writes
// docs/results.json and docs/results.md, the page being the JSON rendered
// (sim/ppa/results.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/results.hpp"
#include "sim/ppa/run.hpp"
#include "tools/commands.hpp"

namespace oasis_results_command {

namespace fs = std::filesystem;
using namespace oasis::ppa;

// A file this command may replace: absent, or one it wrote (its mark).
void check_own(const fs::path& f, bool markdown) {
  if (!fs::exists(f)) return;
  const std::string text = read_text(f);
  const bool own = markdown ? text.rfind(kResultsMark, 0) == 0
                            : text.find("\"written_by\": \"oasis-results\"") != std::string::npos;
  if (!own) {
    throw UsageError(
        fmt::format("{} exists and oasis-results did not write it; allowed: a --out folder whose "
                    "results.json and results.md are absent or this command's",
                    f.string()));
  }
}

int run(int argc, char** argv) {
  CLI::App app{"oasis-results: the headline figures in one place (docs/results.md)"};
  std::string build = "build", out, source = OASIS_SOURCE_DIR;
  std::vector<std::string> files;
  app.add_option("--build", build, "the build folder whose ppa/*/three_ways.json are read")
      ->capture_default_str();
  app.add_option("--three-ways", files,
                 "three_ways.json files of oasis-ppa --three-ways (default: every "
                 "BUILD/ppa/*/three_ways.json)");
  app.add_option("--out", out, "where results.json and results.md go (default: SOURCE/docs)");
  app.add_option("--source", source, "the project's source folder (configs)")
      ->capture_default_str();
  if (const int status = parse_command_line(app, argc, argv, "oasis-results"); status >= 0) {
    return status;
  }
  ResultsInputs in;
  in.source = source;
  if (files.empty()) {
    const fs::path ppa = fs::path(build) / "ppa";
    if (fs::is_directory(ppa)) {
      for (const auto& e : fs::directory_iterator(ppa)) {
        if (fs::is_regular_file(e.path() / "three_ways.json")) {
          in.three_ways.push_back(e.path() / "three_ways.json");
        }
      }
    }
    std::sort(in.three_ways.begin(), in.three_ways.end());
    if (in.three_ways.empty()) {
      throw UsageError(fmt::format(
          "no {}/ppa/*/three_ways.json; allowed: a build folder where `make ppa CONFIG=default "
          "ACTIVITY=sim PPA_ARGS=--three-ways` ran, or --three-ways FILE",
          build));
    }
  } else {
    for (const auto& f : files) {
      if (!fs::is_regular_file(f))
        throw UsageError(fmt::format("--three-ways {}: no such file", f));
      in.three_ways.emplace_back(f);
    }
  }
  const fs::path dir = out.empty() ? fs::path(source) / "docs" : fs::path(out);
  if (!fs::is_directory(dir))
    throw UsageError(fmt::format("--out {}: no such folder", dir.string()));
  check_own(dir / "results.json", false);
  check_own(dir / "results.md", true);
  in.command = "make results";
  in.commit = source_commit(source);
  const nlohmann::ordered_json r = collect_results(in);
  write_text(dir / "results.json", r.dump(2) + "\n");
  write_text(dir / "results.md", results_markdown(r));
  std::printf("oasis-results: wrote %s and %s\n", (dir / "results.json").string().c_str(),
              (dir / "results.md").string().c_str());
  return 0;
}

}  // namespace oasis_results_command

int oasis::commands::oasis_results(int argc, char** argv) {
  return oasis::ppa::command_main("oasis-results",
                                  [&] { return oasis_results_command::run(argc, argv); });
}
