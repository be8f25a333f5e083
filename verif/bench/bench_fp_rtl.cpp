// SPDX-License-Identifier: Apache-2.0
// What the floating-point units cost, in both formats, so later blocks can
// set an FP16 or FP32 MAC next to an Index Counter:
//   Yosys/<block>     cells: generic gates of the combinational core
//                     (fp_pipeline_stages = 0) after `synth -flatten`;
//   Verilator/<block> operations_per_s: checked operations per second of the
//                     block's Verilator testbench (simulation, model and host
//                     FPU together, one million random operations).
// Each runs its tool once (Iterations(1), manual time = the tool's own time).
// Needs oasis-gen and liboasis_model.a in the build folder, yosys and
// verilator on the PATH.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include "gen/generator.hpp"
#include "verif/bench/bench_main.hpp"

namespace {

using oasis::gen::shell_word;  // the paths in the commands may hold spaces

const std::array<const char*, 9> kBlocks = {"fp16_add",     "fp16_mul",      "fp32_add",
                                            "fp32_mul",     "fp32_mul_fp16", "fp32_mul_fp16_fp16",
                                            "fp16_to_fp32", "fp32_to_fp16",  "uint_to_fp32"};

// Runs a shell command, returns its standard output and sets ok.
std::string run(const std::string& command, bool& ok) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    ok = false;
    return out;
  }
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ok = pclose(p) == 0;
  return out;
}

std::string bench_dir() { return std::string(OASIS_BINARY_DIR) + "/bench/fp_rtl"; }

void yosys_cells(benchmark::State& state, const std::string& block) {
  const std::string rtl = bench_dir() + "/yosys/rtl";
  bool ok = true;
  // One generated folder serves every block.
  if (!std::filesystem::exists(rtl + "/manifest.json")) {
    run(fmt::format("{} --config {} --set fp_pipeline_stages=0 --out {}",
                    shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-gen"),
                    shell_word(std::string(OASIS_SOURCE_DIR) + "/configs/default.json"),
                    shell_word(rtl)),
        ok);
    if (!ok) return state.SkipWithError("oasis-gen failed");
  }
  const std::string top = "oasis_default_" + block;
  // The list's comments and its Verilator options (`--top-module`) left out.
  const std::string cmd = fmt::format(
      "cd {0} && yosys -q -p \"read_verilog -sv $(grep -v -e '^//' -e '^-' {1}.f | tr '\\n' ' '); "
      "synth -flatten -top {2}; tee -o /dev/stdout stat\" 2>&1",
      shell_word(rtl), block, top);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string out = run(cmd, ok);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::smatch m;
    if (!ok || !std::regex_search(out, m, std::regex(R"(Number of cells:\s+(\d+))"))) {
      return state.SkipWithError(("yosys failed: " + out.substr(0, 400)).c_str());
    }
    state.counters["cells"] = std::stod(m[1]);
  }
}

void verilator_rate(benchmark::State& state, const std::string& block) {
  const std::string cmd = fmt::format(
      "{0} --build {1} --block {2} --config {3} --label bench -- --vectors 1000000 2>&1",
      shell_word(std::string(OASIS_SOURCE_DIR) + "/sim/vltest"), shell_word(OASIS_BINARY_DIR),
      block, shell_word(std::string(OASIS_SOURCE_DIR) + "/configs/default.json"));
  for (auto _ : state) {
    bool ok = true;
    const std::string out = run(cmd, ok);
    std::smatch m;
    if (!ok || !std::regex_search(
                   out, m, std::regex(R"((\d+) operations in ([0-9.]+) s = (\d+) operations/s)"))) {
      return state.SkipWithError(("vltest failed: " + out.substr(0, 400)).c_str());
    }
    state.SetIterationTime(std::stod(m[2]));
    state.counters["operations"] = std::stod(m[1]);
    state.counters["operations_per_s"] = std::stod(m[3]);
  }
}

const bool kRegistered = [] {
  for (const char* b : kBlocks) {
    const std::string block = b;
    benchmark::RegisterBenchmark(("Yosys/" + block).c_str(), yosys_cells, block)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* b : kBlocks) {
    const std::string block = b;
    benchmark::RegisterBenchmark(("Verilator/" + block).c_str(), verilator_rate, block)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

OASIS_BENCH_MAIN()
