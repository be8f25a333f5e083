// SPDX-License-Identifier: Apache-2.0
// oasis-icarus (sim/icarus, the iv.* tests; docs/icarus.md): runs one block's Verilator
// testbench with --record (oasis-vltest), then replays the recorded stimulus on the same
// generated RTL in Icarus Verilog (iverilog -g2012) and compares every output, every cycle,
// with what the Verilator run observed. The Verilator run checks the outputs against the model
// first, so a passing replay means Icarus computes the model's outputs.
//
//   oasis-icarus --build DIR --block NAME --config FILE [--label NAME] [--set key=value]...
//                [--gates] [--source DIR] [-- testbench arguments...]
//
// The testbench arguments go to the Verilator run (--vectors N keeps it short; --record-cycles
// N records only the first N cycles). The vector file, the replay testbench (replay_tb.sv,
// written from the block's ports in the manifest: gen/replay_tb.hpp) and the logs are in
// DIR/vl/<block>/<label>/icarus/; the Verilator build is oasis-vltest's own, shared with the
// plain test of the same label. The X rule is the replay testbench's (docs/icarus.md).
// --gates: replay on the block's gate-level netlist in the real cell library instead of the
// RTL: the netlist oasis-ppa maps, buffers and times (docs/ppa.md), simulated with the
// library's own Verilog cell models and their delays (iverilog -gspecify), the inputs applied
// a clock period before the outputs are compared; in DIR/vl/<block>/<label>/icarus-gates.
// Environment: SEED=<n> and RESET_SEED=<n> as for oasis-vltest; ICARUS_TIMEOUT=<s> bounds the
// vvp run (300 s by default); OASIS_CELLS_V=<file> the cell models (default: osu018's from
// qflow-tech-osu018).
// Bad input: one message, exit status 2; a failed run, exit status 1.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gen/manifest.hpp"
#include "gen/replay_tb.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_icarus_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using flow::Failure;

struct Options : flow::RunOptions {
  bool gates = false;
};

Options parse(int argc, char** argv, int& status) {
  Options o;
  CLI::App app{
      "oasis-icarus: a block's Verilator run recorded and replayed in Icarus Verilog, every "
      "output compared every cycle (docs/icarus.md; arguments after -- go to the testbench)"};
  flow::add_run_options(app, o);
  app.add_flag("--gates", o.gates, "replay on the gate-level netlist in the cell library");
  status = flow::parse_run_options(app, o, argc, argv, "oasis-icarus");
  if (status >= 0) return o;
  if (find_program("iverilog").empty() || find_program("vvp").empty()) {
    throw UsageError(
        "Icarus Verilog is not installed (Debian package iverilog; make deps installs it)");
  }
  return o;
}

// The lines of a text that match `re` (that do not, when `keep` is false).
std::vector<std::string> matching(const std::string& text, const std::regex& re, bool keep = true) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, re) == keep) lines.push_back(line);
  }
  return lines;
}

double since(std::chrono::steady_clock::time_point t0) { return seconds_since(t0); }

// ICARUS_TIMEOUT: the seconds vvp may run (300 unless set).
long long replay_timeout() {
  const char* v = std::getenv("ICARUS_TIMEOUT");
  if (!v || !*v) return 300LL;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (*end || n < 1) {
    throw UsageError(fmt::format("ICARUS_TIMEOUT={}: expected a whole number of seconds", v));
  }
  return n;
}

// 1. The Verilator run, recording its vectors; the seconds it took.
double record(const Options& o, const fs::path& build, const fs::path& work,
              const fs::path& vectors) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> vl = {(build / "oasis-vltest").string(),
                                 "--source",
                                 o.source,
                                 "--build",
                                 build.string(),
                                 "--block",
                                 o.block,
                                 "--config",
                                 o.config,
                                 "--label",
                                 o.label};
  for (const auto& s : o.sets) vl.insert(vl.end(), {"--set", s});
  vl.push_back("--");
  vl.insert(vl.end(), o.tb_args.begin(), o.tb_args.end());
  vl.insert(vl.end(), {"--record", vectors.string()});
  const fs::path vl_log = work / "verilator.log";
  fs::remove(vl_log);
  if (run_tool(vl, vl_log) != 0) {
    std::fprintf(stderr, "%s", tail(vl_log, 40).c_str());
    throw Failure(fmt::format("the Verilator run of {} for {} failed (log: {})", o.block, o.label,
                              vl_log.string()));
  }
  const double t_vl = since(t0);
  for (const auto& line : matching(read_text(vl_log), std::regex("^PASS"))) {
    std::printf("%s\n", line.c_str());
  }
  return t_vl;
}

// The gate-level netlist and its clock period (one Yosys, blifFanout and OpenSTA run; reused
// while the RTL and the flow are unchanged): the replay's settle time.
long gate_netlist(const Options& o, const fs::path& build, const fs::path& work) {
  std::vector<std::string> ppa = {(build / "oasis-ppa").string(), "--build", build.string(),
                                  "--config", o.config};
  for (const auto& s : o.sets) ppa.insert(ppa.end(), {"--set", s});
  ppa.insert(ppa.end(), {"--blocks", o.block, "--out", (work / "ppa").string()});
  const fs::path ppa_log = work / "ppa.log";
  fs::remove(ppa_log);
  if (run_tool(ppa, ppa_log) != 0) {
    std::fprintf(stderr, "%s", tail(ppa_log, 30).c_str());
    throw Failure(fmt::format("the real-library flow of {} for {} failed (log: {})", o.block,
                              o.label, ppa_log.string()));
  }
  const json r = json::parse(read_text(work / "ppa" / "blocks" / (o.block + ".json")));
  return static_cast<long>(r.at("timing").at("period").get<double>() + 2);
}

// 2. The replay testbench, from the block's ports in its manifest, the list the Verilator
// testbench recorded by; the cycles recorded.
long write_replay(const Options& o, const fs::path& out, const fs::path& vectors,
                  const fs::path& sv) {
  const std::string recorded = read_text(vectors);
  if (recorded.rfind("# ports: ", 0) != 0) {
    throw Failure(fmt::format("{} does not start with a '# ports:' line", vectors.string()));
  }
  const long cycles = static_cast<long>(std::count(recorded.begin(), recorded.end(), '\n')) - 1;
  if (cycles <= 0) throw Failure("the Verilator run recorded no cycle");
  write_text(sv,
             gen::replay_testbench(gen::Manifest::read(out / "rtl" / "manifest.json"), o.block));
  return cycles;
}

// The netlist the gate-level replay compiles: with a block's SRAMs, the netlist with their
// instances and their behavioural modules; then the cells' models.
void add_gate_sources(const Options& o, const fs::path& out, const fs::path& work,
                      const fs::path& cells_v, std::vector<std::string>& iverilog) {
  const fs::path ppa_work = work / "ppa" / "work" / o.block;
  const gen::Manifest m = gen::Manifest::read(out / "rtl" / "manifest.json");
  std::set<std::string> modules;
  for (const auto& mem : m.block(o.block).value("memories", json::array())) {
    if (mem.contains("sram")) modules.insert(mem.at("sram").at("module").get<std::string>());
  }
  const fs::path macros = ppa_work / "netlist_macros.v";
  if (!modules.empty() && !fs::exists(macros)) {
    throw Failure(
        fmt::format("{} has SRAMs, but the real-library flow wrote no netlist with "
                    "their instances ({})",
                    o.block, macros.string()));
  }
  iverilog.push_back((modules.empty() ? ppa_work / "netlist.v" : macros).string());
  if (!modules.empty()) {
    iverilog.push_back((out / "rtl" / "oasis_sram.sv").string());
    for (const auto& mod : modules) iverilog.push_back((out / "rtl" / (mod + ".sv")).string());
  }
  iverilog.push_back(cells_v.string());
}

// 3. Compile: the seconds it took.
double compile(const Options& o, const fs::path& out, const fs::path& work, const fs::path& sv,
               long settle, const fs::path& cells_v) {
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::string> iverilog = {"iverilog", "-g2012", "-Wall", "-Wno-timescale"};
  if (o.gates) iverilog.push_back("-gspecify");
  iverilog.insert(iverilog.end(),
                  {"-P", fmt::format("oasis_replay_tb.Settle={}", settle), "-o",
                   (work / "replay.vvp").string(), "-s", "oasis_replay_tb", sv.string()});
  if (o.gates) {
    add_gate_sources(o, out, work, cells_v, iverilog);
  } else {
    for (const auto& f : flow::file_list(out / "rtl", o.block)) {
      iverilog.push_back((out / "rtl" / f).string());
    }
  }
  const fs::path iv_log = work / "iverilog.log";
  fs::remove(iv_log);
  if (run_tool(iverilog, iv_log) != 0) {
    const auto lines = matching(read_text(iv_log),
                                std::regex("sorry: (constant selects|Case "
                                           "unique)"),
                                /*keep=*/false);
    for (size_t i = lines.size() > 40 ? lines.size() - 40 : 0; i < lines.size(); ++i) {
      std::fprintf(stderr, "%s\n", lines[i].c_str());
    }
    throw Failure(
        fmt::format("iverilog rejected {} for {} (log: {})", o.block, o.label, iv_log.string()));
  }
  return since(t1);
}

// The replay's verdict: its PASS lines and the summary, or the mismatches and a failure.
int verdict(const Options& o, const fs::path& work, const fs::path& sv, long cycles, double t_vl,
            double t_comp, double t_run) {
  const fs::path replay_log = work / "replay.log";
  const char* seed = std::getenv("SEED");
  const std::string summary = fmt::format(
      "{} config={} seed={}: {} cycles recorded; Verilator {:.1f} s, iverilog {:.1f} s, vvp "
      "{:.1f} s",
      o.block, o.label, seed && *seed ? seed : "1", cycles, t_vl, t_comp, t_run);
  const std::string replayed = read_text(replay_log);
  const auto passes = matching(replayed, std::regex("^PASS icarus"));
  const auto complete =
      matching(replayed, std::regex(fmt::format("^PASS icarus: {} cycles", cycles)));
  if (!passes.empty() && !complete.empty()) {
    std::string text = "PASS icarus " + summary + "\n";
    for (const auto& line : passes) text += line + "\n";
    write_text(work / "summary.txt", text);
    std::printf("%s", text.c_str());
    return 0;
  }
  auto shown = matching(replayed, std::regex("^(MISMATCH|FAIL|PASS)"));
  if (shown.empty()) {
    std::fprintf(stderr, "%s", tail(replay_log, 20).c_str());
  } else {
    if (shown.size() > 20) shown.resize(20);
    for (const auto& line : shown) std::fprintf(stderr, "%s\n", line.c_str());
  }
  throw Failure(fmt::format("FAIL icarus {} (log: {}, testbench: {})", summary, replay_log.string(),
                            sv.string()));
}

int run(int argc, char** argv) {
  int status = 0;
  Options o = parse(argc, argv, status);
  if (status >= 0) return status;
  const fs::path build = fs::canonical(o.build);
  const fs::path out = build / "vl" / o.block / o.label;
  const fs::path work = out / (o.gates ? "icarus-gates" : "icarus");
  const char* cells_env = std::getenv("OASIS_CELLS_V");
  const fs::path cells_v = cells_env && *cells_env
                               ? fs::path(cells_env)
                               : fs::path("/usr/share/qflow/tech/osu018/osu018_stdcells.v");
  if (o.gates && !fs::exists(cells_v)) {
    throw UsageError(
        fmt::format("no cell models {} (Debian package qflow-tech-osu018; make deps installs it)",
                    cells_v.string()));
  }
  const long long timeout = replay_timeout();
  fs::create_directories(work);
  const fs::path vectors = work / "vectors.txt";
  for (const char* f : {"vectors.txt", "replay_tb.sv", "replay.vvp", "summary.txt"}) {
    fs::remove(work / f);
  }
  const double t_vl = record(o, build, work, vectors);
  const long settle = o.gates ? gate_netlist(o, build, work) : 1;
  const fs::path sv = work / "replay_tb.sv";
  const long cycles = write_replay(o, out, vectors, sv);
  const double t_comp = compile(o, out, work, sv, settle, cells_v);
  // A zero-delay loop never returns: bound the run.
  const auto t2 = std::chrono::steady_clock::now();
  const fs::path replay_log = work / "replay.log";
  fs::remove(replay_log);
  const int vvp = run_tool({"timeout", std::to_string(timeout), "vvp", "-n",
                            (work / "replay.vvp").string(), "+vectors=" + vectors.string()},
                           replay_log);
  if (vvp == 124) {
    std::fprintf(stderr, "oasis-icarus: vvp did not finish in %lld s (a zero-delay loop?)\n",
                 timeout);
  }
  const double t_run = since(t2);
  return verdict(o, work, sv, cycles, t_vl, t_comp, t_run);
}

}  // namespace oasis_icarus_command

namespace oasis::commands {
int oasis_icarus(int argc, char** argv) {
  return flow::flow_main("oasis-icarus", [&] { return oasis_icarus_command::run(argc, argv); });
}
}  // namespace oasis::commands
