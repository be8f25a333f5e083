// SPDX-License-Identifier: Apache-2.0
// oasis-coverage (make coverage; docs/coverage.md): runs every plain testbench run of the sweeps
// (kind verilator of sim/sweeps/<block>.txt; not regress, exhaustive, netlist, resets or the
// other kinds) with Verilator's line and toggle coverage (oasis-vltest --coverage), merges the
// counts per block and writes a report of the generated RTL and the rtl/ primitives each block
// uses (covreport; the testbench is C++ and has no coverage points).
//
//   oasis-coverage --build DIR [--block NAME]... [--source DIR]
//
// --block: only these blocks (default: every block with a sweep). Writes DIR/coverage/:
// runs/<block>.<label>.{dat,dat.reset,log} (one run each: the counts at the end and at the end
// of reset), blocks/<block>.dat and blocks/<block>.reset.dat (merged with verilator_coverage
// --write), annotate/<block>/<label>/ (verilator_coverage --annotate of the line points,
// '%000000' marks a line never run), report.md and report.json.
// Exit status 1 when a run failed (the report is still written), 2 on bad input.
// Environment: SEED=<n> as for oasis-vltest.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/sweeps.hpp"
#include "tools/commands.hpp"

namespace oasis_coverage_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;

// One run of a sweep (sim/tools/sweeps.hpp).
struct SweepRun {
  std::string block, label, config;
  std::vector<std::string> sets, tb_args;
};

// The plain runs (kind verilator) of the sweeps of the project `root`, of `only`'s blocks (every
// block when empty), by block and in each table's order.
std::vector<SweepRun> read_sweeps(const fs::path& root, const std::vector<std::string>& only) {
  std::vector<sweeps::Sweep> tables;
  try {
    tables = sweeps::read(root);
  } catch (const sweeps::SweepError& e) {
    throw UsageError(e.what());
  }
  std::vector<SweepRun> runs;
  for (const auto& t : tables) {
    if (!only.empty() && std::find(only.begin(), only.end(), t.block) == only.end()) continue;
    for (const auto& label : t.labels) {
      for (const auto& r : label.runs) {
        if (r.kind == "verilator") {
          runs.push_back({t.block, label.name, label.config, label.sets, r.tb_args});
        }
      }
    }
  }
  return runs;
}

int run(int argc, char** argv) {
  std::string build_arg, source = OASIS_SOURCE_DIR;
  std::vector<std::string> only;
  CLI::App app{
      "oasis-coverage: the make test sweeps' testbench runs with line and toggle coverage, "
      "merged and reported per block (docs/coverage.md)"};
  app.add_option("--build", build_arg, "the build folder")->required();
  app.add_option("--block", only, "only this block (repeatable; default: every sweep's)");
  app.add_option("--source", source, "the project folder; default: the one this was built from")
      ->capture_default_str();
  if (const int status = parse_command_line(app, argc, argv, "oasis-coverage"); status >= 0) {
    return status;
  }
  const fs::path root = fs::absolute(source);
  if (!fs::is_directory(build_arg) || !fs::exists(fs::path(build_arg) / "oasis-vltest")) {
    throw UsageError(
        fmt::format("--build {}: no oasis-vltest there (run make build first)", build_arg));
  }
  if (find_program("verilator_coverage").empty()) {
    throw UsageError("verilator_coverage is not installed (it comes with verilator)");
  }
  const fs::path build = fs::canonical(build_arg);
  const std::vector<SweepRun> runs = read_sweeps(root, only);
  for (const auto& b : only) {
    if (std::none_of(runs.begin(), runs.end(), [&](const SweepRun& r) { return r.block == b; })) {
      throw UsageError(fmt::format("no sweep sim/sweeps/{}.txt for block '{}'", b, b));
    }
  }
  if (runs.empty()) throw UsageError("no runs found in sim/sweeps/");

  const fs::path out = build / "coverage";
  fs::remove_all(out);
  for (const char* d : {"runs", "blocks", "annotate"}) fs::create_directories(out / d);
  const char* seed_env = std::getenv("SEED");
  const std::string seed = seed_env && *seed_env ? seed_env : "1";
  std::printf("coverage: %zu runs with line and toggle coverage, seed %s; logs in %s\n",
              runs.size(), seed.c_str(), (out / "runs").string().c_str());
  std::fflush(stdout);
  std::string tsv = "block\tlabel\tstatus\tseconds\n";
  const auto start = std::chrono::steady_clock::now();
  size_t failed = 0;
  std::vector<std::string> blocks;  // in run order, each once
  for (size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& r = runs[i];
    if (blocks.empty() || blocks.back() != r.block) blocks.push_back(r.block);
    std::printf("[%2zu/%zu] %-20s %-16s ", i + 1, runs.size(), r.block.c_str(), r.label.c_str());
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    const fs::path dat = out / "runs" / fmt::format("{}.{}.dat", r.block, r.label);
    const fs::path log = out / "runs" / fmt::format("{}.{}.log", r.block, r.label);
    std::vector<std::string> cmd = {(build / "oasis-vltest").string(),
                                    "--source",
                                    root.string(),
                                    "--build",
                                    build.string(),
                                    "--block",
                                    r.block,
                                    "--config",
                                    (root / r.config).string(),
                                    "--label",
                                    r.label};
    for (const auto& s : r.sets) cmd.insert(cmd.end(), {"--set", s});
    cmd.insert(cmd.end(), {"--coverage", dat.string(), "--"});
    cmd.insert(cmd.end(), r.tb_args.begin(), r.tb_args.end());
    bool pass = run_tool(cmd, log) == 0;
    // A run that passed but wrote no counts is a broken flow, not coverage.
    if (pass && (!fs::exists(dat) || fs::file_size(dat) == 0)) {
      write_text(log, read_text(log) + fmt::format("wrote no {}\n", dat.string()));
      pass = false;
    }
    failed += !pass;
    const long secs = std::lround(seconds_since(t0));
    std::printf("%s %ld s\n", pass ? "PASS" : "FAIL", secs);
    std::fflush(stdout);
    if (!pass) {
      std::istringstream lines(tail(log, 20));
      for (std::string line; std::getline(lines, line);)
        std::fprintf(stderr, "    %s\n", line.c_str());
    }
    tsv += fmt::format("{}\t{}\t{}\t{}\n", r.block, r.label, pass ? "PASS" : "FAIL", secs);
  }
  write_text(out / "runs.tsv", tsv);

  // Per block: the runs' counts merged, their counts at the end of reset merged, and each
  // run's line points annotated on the sources (toggle points left out).
  const fs::path merge_log = out / "verilator_coverage.log";
  for (const auto& block : blocks) {
    std::vector<std::string> dats, resets;
    for (const auto& r : runs) {
      if (r.block != block) continue;
      const fs::path dat = out / "runs" / fmt::format("{}.{}.dat", r.block, r.label);
      if (!fs::exists(dat) || fs::file_size(dat) == 0) continue;
      dats.push_back(dat.string());
      const fs::path reset = dat.string() + ".reset";
      if (fs::exists(reset) && fs::file_size(reset) > 0) resets.push_back(reset.string());
    }
    if (dats.empty()) continue;
    for (const auto& [to, from] : {std::pair{out / "blocks" / (block + ".dat"), dats},
                                   std::pair{out / "blocks" / (block + ".reset.dat"), resets}}) {
      if (from.empty()) continue;
      std::vector<std::string> merge = {"verilator_coverage", "--write", to.string()};
      merge.insert(merge.end(), from.begin(), from.end());
      check_tool(run_tool(merge, merge_log), "verilator_coverage --write", merge_log);
    }
    for (const auto& r : runs) {
      const fs::path dat = out / "runs" / fmt::format("{}.{}.dat", r.block, r.label);
      if (r.block != block || !fs::exists(dat) || fs::file_size(dat) == 0) continue;
      const fs::path dir = out / "annotate" / block;
      fs::create_directories(dir);
      std::istringstream in(read_text(dat));
      std::string lines;
      for (std::string line; std::getline(in, line);) {
        if (line.find("\001page\002v_toggle/") == std::string::npos) lines += line + "\n";
      }
      const fs::path points = dir / (r.label + ".dat");
      write_text(points, lines);
      check_tool(run_tool({"verilator_coverage", "--annotate", (dir / r.label).string(),
                           "--annotate-min", "1", points.string()},
                          merge_log),
                 "verilator_coverage --annotate", merge_log);
    }
  }

  std::printf("\n");
  std::fflush(stdout);
  std::vector<std::string> report = {
      "covreport", "--build",     build.string(),
      "--root",    root.string(), "--seed",
      seed,        "--seconds",   fmt::format("{}", std::lround(seconds_since(start)))};
  std::vector<char*> report_argv;
  for (auto& a : report) report_argv.push_back(a.data());
  const int status =
      oasis::commands::covreport(static_cast<int>(report_argv.size()), report_argv.data());
  if (status != 0) return status;
  if (failed > 0) {
    std::fprintf(stderr, "coverage: %zu of %zu runs failed (logs in %s)\n", failed, runs.size(),
                 (out / "runs").string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace oasis_coverage_command

namespace oasis::commands {
int oasis_coverage(int argc, char** argv) {
  return oasis::ppa::command_main("oasis-coverage",
                                  [&] { return oasis_coverage_command::run(argc, argv); });
}
}  // namespace oasis::commands
