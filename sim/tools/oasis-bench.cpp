// SPDX-License-Identifier: Apache-2.0
// The benchmarks that run the generated RTL through a tool (tools/bench_orizuru.sh,
// tools/bench_core.sh); the model's own benchmarks are Google Benchmark programs (make bench).
//
//   oasis-bench-orizuru --build DIR [N ...]
//       Orizuru against the plain top-k baseline (k rounds of a max-and-min reduction over the
//       masked vector), both generated for the same N and k = ceil(0.005 N) from
//       configs/paper.json with R = 16: cycles per token, comparators and comparisons from the
//       manifest (the testbenches check those cycle figures cycle for cycle), Yosys generic
//       cells and flip-flops from `synth; stat` with the hierarchy kept: each distinct module
//       (an Orizuru unit, a comparator) is synthesized once and counted once per instance,
//       which keeps N = 4096 within minutes. Default N: 64 256 1024 4096.
//   oasis-bench-core --build DIR [--lines L] [--config FILE]
//       the generated core at a paper-size config in Verilator (configs/paper.json unless
//       given) through oasis-vltest: one token of a seeded synthetic LLM-like layer of
//       K * L / P rows (the testbench's workload mode, docs/workload.md), every cycle checked
//       against the cycle model and every output against the golden model; prints the build and run
//       time, the GEMM phase against docs/spec.md's bound and the simulated cycles a second. The
//       lines work in lock-step, so fewer lines (L < P) give the same figures on a machine too
//       small for all of them. Fails (status 1) when the run fails or the GEMM phase is more than 2
//       % above the bound.
//
// Work folders: DIR/bench_orizuru/n<N>/, DIR/vl/core/<label>/ (oasis-vltest's).
// Bad input: one message, exit status 2.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/reports.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_bench_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using flow::Failure;

fs::path build_folder(const std::string& build) {
  if (!fs::is_directory(build)) {
    throw UsageError(fmt::format("--build {}: no such folder (run make build first)", build));
  }
  return fs::canonical(build);
}

// ---- Orizuru against the k-round baseline ----------------------------------------------------

// A design's leaf cells and flip-flops, its submodules expanded.
struct Cells {
  long cells = 0, flip_flops = 0;
};

bool is_flip_flop(const std::string& cell) {
  return cell.rfind("$_", 0) == 0 &&
         (cell.find("DFF") != std::string::npos || cell.find("DLATCH") != std::string::npos);
}

// The cells and flip-flops of `module` of a hierarchical `stat`, submodules counted in.
Cells count_cells(const std::map<std::string, StatModule>& stat, const std::string& module) {
  Cells c;
  for (const auto& [cell, n] : leaf_cells(stat, module)) {
    c.cells += n;
    if (is_flip_flop(cell)) c.flip_flops += n;
  }
  return c;
}

int bench_orizuru(int argc, char** argv) {
  std::string build_arg;
  std::vector<int> sizes;
  CLI::App app{
      "oasis-bench-orizuru: Orizuru against the k-round top-k baseline, same N and k: "
      "cycles, comparators, comparisons, Yosys generic cells and flip-flops"};
  app.add_option("--build", build_arg, "the build folder")->required();
  app.add_option("sizes", sizes, "the token lengths N (default: 64 256 1024 4096)")
      ->check(CLI::Range(2, 1 << 16));
  const int status = parse_command_line(app, argc, argv, "oasis-bench-orizuru");
  if (status >= 0) return status;
  const fs::path build = build_folder(build_arg);
  if (find_program("yosys").empty()) throw UsageError("yosys not found (make deps installs it)");
  if (sizes.empty()) sizes = {64, 256, 1024, 4096};
  const fs::path config = fs::path(OASIS_SOURCE_DIR) / "configs" / "paper.json";
  const fs::path work = build / "bench_orizuru";

  fmt::print("{:<6} {:<4} {:<14} {:>9} {:>10} {:>12} {:>10} {:>10}\n", "N", "k", "design",
             "cycles/tok", "comparators", "comparisons", "cells", "flip-flops");
  std::fflush(stdout);
  for (const int n : sizes) {
    const int k = (n * 5 + 999) / 1000;  // ceil(0.005 N), as the paper
    const fs::path dir = work / fmt::format("n{}", n);
    const Variant v = generate_variant(
        config.string(), {}, dir, "rtl",
        {fmt::format("channels={}", n), fmt::format("outliers_per_side={}", k),
         "orizuru_unit_inputs=16", fmt::format("weight_beat_indices={}", std::min(n, 64)),
         fmt::format("clustering_lanes={}", std::min(n, 4))});
    for (const std::string block : {"orizuru", "topk_baseline"}) {
      const std::string top = v.manifest.top(block);
      // Yosys runs in the size's folder on relative paths: its tee takes no quoted path
      // (docs/paths.md).
      std::string sources;
      for (const auto& f : file_list(v.dir, block)) sources += " rtl/" + f;
      const std::string script = block + ".ys";
      write_text(dir / script, fmt::format("read_verilog -sv{}\nsynth -top {}\n"
                                           "tee -q -o {}.stat stat -top {}\n",
                                           sources, top, block, top));
      const fs::path log = dir / (block + ".log");
      fs::remove(log);
      const auto t0 = std::chrono::steady_clock::now();
      if (run_tool({"yosys", "-q", "-l", log.string(), "-s", script}, dir / "yosys.out", dir) !=
          0) {
        std::fprintf(stderr, "%s", tail(log, 30).c_str());
        throw Failure(
            fmt::format("Yosys failed on {} at N = {} (log: {})", block, n, log.string()));
      }
      const double seconds = seconds_since(t0);
      const Cells c = count_cells(parse_yosys_stat(read_text(dir / (block + ".stat"))), top);
      const auto fig = [&](const char* key) { return long(figure(v, block, key)); };
      fmt::print("{:<6} {:<4} {:<14} {:>9} {:>10} {:>12} {:>10} {:>10}   (yosys {:.0f} s)\n", n, k,
                 block, fig("cycles_per_token"), fig("comparators"), fig("comparisons_per_token"),
                 c.cells, c.flip_flops, seconds);
      std::fflush(stdout);
    }
  }
  return 0;
}

// ---- The core at a paper-size config ---------------------------------------------------------

int bench_core(int argc, char** argv) {
  std::string build_arg;
  std::string config = (fs::path(OASIS_SOURCE_DIR) / "configs" / "paper.json").string();
  int lines = 0;
  CLI::App app{
      "oasis-bench-core: the generated core at a paper-size config in Verilator, every "
      "cycle and output checked; its GEMM phase against the bound (at most +2 %)"};
  app.add_option("--build", build_arg, "the build folder")->required();
  app.add_option("--lines", lines, "PE lines to build (default: the config's)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--config", config, "JSON config, as oasis-gen reads it")->capture_default_str();
  if (const int help = parse_command_line(app, argc, argv, "oasis-bench-core"); help >= 0) {
    return help;
  }
  const fs::path build = build_folder(build_arg);
  if (!fs::is_regular_file(config)) throw UsageError(fmt::format("no config file '{}'", config));
  const Config c = load_config(config);
  const int p = c.pe_lines;
  if (lines == 0) lines = p;
  // K / P groups of rows, each a row a line.
  const int64_t rows = int64_t((c.channels + p - 1) / p) * lines;
  std::vector<std::string> args = {(build / "oasis-vltest").string(),
                                   "--build",
                                   build.string(),
                                   "--block",
                                   "core",
                                   "--config",
                                   config};
  std::string label = c.name;
  if (lines != p) {
    label = fmt::format("{}_p{}", c.name, lines);
    args.insert(args.end(), {"--set", fmt::format("pe_lines={}", lines)});
  }
  const fs::path log = build / fmt::format("bench_core_{}.log", label);
  const fs::path summary = build / fmt::format("bench_core_{}.json", label);
  // One token of the synthetic layer's rows, the testbench's workload mode
  // (verif/tb/core_tb.cpp, docs/workload.md).
  args.insert(args.end(), {"--label", label, "--", "--workload", "--workload-tokens", "1",
                           "--workload-rows", std::to_string(rows), "--summary", summary.string()});
  fs::remove(log);
  fs::remove(summary);
  const auto t0 = std::chrono::steady_clock::now();
  const int status = run_tool(args, log);
  const double seconds = seconds_since(t0);
  if (status != 0) {
    std::fprintf(stderr, "%s", tail(log, 30).c_str());
    throw Failure(fmt::format("the run failed (build folder: {}; log: {})",
                              (build / "vl" / "core" / label).string(), log.string()));
  }
  fmt::print("== core, config {}, {} PE line(s), K = {}, {} rows\n", c.name, lines, c.channels,
             rows);
  fmt::print("build and run: {:.0f} s wall (Verilator build of {} plus the run)\n", seconds,
             (build / "vl" / "core" / label).string());
  // What the testbench printed, and the GEMM phase against the bound from its summary.
  std::istringstream in(read_text(log));
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("measured") || line.starts_with("simulated") || line.starts_with("PASS")) {
      fmt::print("{}\n", line);
    }
  }
  std::fflush(stdout);
  const json figures = json::parse(read_text(summary)).at("figures");
  if (!figures.contains("gemm_over_bound_percent")) {
    throw Failure(fmt::format("the testbench measured no GEMM phase ({})", summary.string()));
  }
  const double over = figures.at("gemm_over_bound_percent").get<double>();
  if (over > 2.0) {
    throw Failure(fmt::format("GEMM phase {:+.2f} % above the bound; allowed: at most +2 %", over));
  }
  return 0;
}

}  // namespace oasis_bench_command

namespace oasis::commands {
int oasis_bench_orizuru(int argc, char** argv) {
  return flow::flow_main("oasis-bench-orizuru",
                         [&] { return oasis_bench_command::bench_orizuru(argc, argv); });
}
int oasis_bench_core(int argc, char** argv) {
  return flow::flow_main("oasis-bench-core",
                         [&] { return oasis_bench_command::bench_core(argc, argv); });
}
}  // namespace oasis::commands
