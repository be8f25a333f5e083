// SPDX-License-Identifier: Apache-2.0
// oasis-synth (make synth): every generated block of a config, the core and
// the baselines through Yosys in generic cells, with make test's Yosys checks;
// per block its cells, flip-flops, longest combinational path and a transistor
// estimate, and the ratios against the baselines (docs/synth.md). Writes
// <out>/synth.json and synth.md, each Yosys log in <out>/logs; a block whose
// sources and script have not changed is not run again. The plan (variants,
// order, scaled blocks) is make ppa's (sim/ppa/plan.hpp).
// Bad input (config, block name, option): one message, exit status 2, nothing
// written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "model/config.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/command_options.hpp"
#include "sim/ppa/generic.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "tools/commands.hpp"

namespace oasis_synth_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct Options : CommonOptions {};

Options parse(int argc, char** argv, int& status) {
  Options o;
  CLI::App app{
      "oasis-synth: every generated block of a config in Yosys generic cells: cells, "
      "flip-flops, logic depth, a transistor estimate (docs/synth.md)"};
  add_common_options(app, o, "synth");
  status = parse_command_line(app, argc, argv, "oasis-synth");
  if (status >= 0) return o;
  check_common_options(o);
  return o;
}

// "yosys 0.23", from `yosys -V`.
std::string yosys_version(const fs::path& tmp) {
  const fs::path log = tmp / "version.txt";
  fs::remove(log);
  run_tool({"yosys", "-V"}, log);
  std::istringstream in(read_text(log));
  fs::remove(log);
  std::string name, version;
  in >> name >> version;
  return "yosys " + version;
}

json figures_json(const GenericFigures& f) {
  return {{"cells", f.cells},
          {"transistors", f.transistors},
          {"flip_flops", f.flip_flops},
          {"depth", f.depth}};
}

// One run, or its figures of a previous run with the same key.
json measure(const Run& run, const fs::path& out, const std::string& tool, int i, int n) {
  GenericJob job;
  job.label = run.label;
  job.top = run.variant.manifest.top(run.block);
  job.rtl_dir = run.variant.dir;
  job.sources = block_sources(run.variant, run.block);
  uint64_t h = fnv1a(tool + "\n" + generic_script(job));
  for (const auto& s : job.sources) h = fnv1a(read_text(job.rtl_dir / s), h);
  const std::string key = hex(h);
  const fs::path res = out / "blocks" / (run.label + ".json");
  if (fs::exists(res)) {
    try {
      json r = json::parse(read_text(res));
      if (r.value("key", "") == key) {
        std::printf("synth: [%d/%d] %s: unchanged, %.1f s (%ld cells)\n", i, n, run.label.c_str(),
                    r["seconds"].get<double>(), r["cells"].get<long>());
        std::fflush(stdout);
        return r;
      }
    } catch (const json::exception&) {
    }
  }
  std::printf("synth: [%d/%d] %s ...\n", i, n, run.label.c_str());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const GenericFigures f =
      run_generic(job, "yosys", out / "work" / run.label, out / "logs" / (run.label + ".log"));
  json r = {{"key", key}};
  r.update(figures_json(f));
  r["seconds"] = seconds_since(t0);
  fs::create_directories(res.parent_path());
  write_text(res, r.dump(2) + "\n");
  std::printf("synth: [%d/%d] %s: %.0f s, %ld cells, %ld transistors, %ld flip-flops, depth %ld\n",
              i, n, run.label.c_str(), r["seconds"].get<double>(), f.cells, f.transistors,
              f.flip_flops, f.depth);
  std::fflush(stdout);
  return r;
}

json as_reported(const json& r) {
  return {{"cells", r["cells"]}, {"transistors", r["transistors"]}, {"flip_flops", r["flip_flops"]},
          {"depth", r["depth"]}, {"seconds", r["seconds"]},         {"scaled", false},
          {"note", ""}};
}

double tenth(double v) { return std::round(v * 10) / 10; }

// Two runs of a sliced block extrapolated: logic (cells and transistors less
// the flip-flops) in one figure, flip-flops in another.
json extrapolate(const json& a, const json& b, const SliceFigures& x, const std::string& note) {
  const double ff1 = a["flip_flops"], ff2 = b["flip_flops"];
  const double ff = lin(ff1, ff2, x.f, x.f1, x.f2);
  const double cells =
      lin(a["cells"].get<double>() - ff1, b["cells"].get<double>() - ff2, x.l, x.l1, x.l2) + ff;
  const double tr = lin(a["transistors"].get<double>() - 16 * ff1,
                        b["transistors"].get<double>() - 16 * ff2, x.l, x.l1, x.l2) +
                    16 * ff;
  return {{"cells", std::lround(cells)},
          {"transistors", std::lround(tr)},
          {"flip_flops", std::lround(ff)},
          {"depth", b["depth"]},
          {"seconds", tenth(a["seconds"].get<double>() + b["seconds"].get<double>())},
          {"scaled", true},
          {"note", note}};
}

std::string report_md(const json& s) {
  std::string md = fmt::format("# Synthesis of config {} ({})\n\n", s["config"].get<std::string>(),
                               s["tool"].get<std::string>());
  md +=
      "Generic Yosys cells after `synth` and `flatten`; transistors by Yosys's CMOS cost (`stat "
      "-tech cmos`, flip-flops with enables unmapped, an asynchronously reset flip-flop counted as "
      "a plain one); flip-flops; depth = the longest combinational path in cells (`ltp -noff`); "
      "Yosys seconds. See docs/synth.md.\n\n";
  md += "| block | cells | transistors | flip-flops | depth | seconds | note |\n";
  md += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  auto row = [&](const std::string& name, const json& v) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", name, v["cells"].dump(),
                      v["transistors"].dump(), v["flip_flops"].dump(), v["depth"].dump(),
                      v["seconds"].dump(),
                      v["scaled"].get<bool>() ? "scaled: " + v["note"].get<std::string>() : "");
  };
  for (const auto& [name, v] : s["blocks"].items()) row(name, v);
  row("**core**", s["core"]);
  md += "\n| comparison | ours | baseline | transistors ratio | cells ratio |\n";
  md += "| --- | --- | --- | ---: | ---: |\n";
  for (const auto& c : s["comparisons"]) {
    md += fmt::format("| {} | {} | {} | {} | {} |\n", c["name"].get<std::string>(),
                      c["ours"].get<std::string>(), c["baseline"].get<std::string>(),
                      c["ratio_transistors"].dump(), c["ratio_cells"].dump());
  }
  return md;
}

int run(int argc, char** argv) {
  int status = -1;
  const Options o = parse(argc, argv, status);
  if (status >= 0) return status;

  // Everything that can be wrong with the input is checked before anything
  // is written.
  const Config config = load_config(o.config_path, o.overrides);
  if (!fs::is_directory(o.build)) {
    throw UsageError(fmt::format("--build {}: no such folder (make build first)", o.build));
  }
  if (find_program("yosys").empty()) {
    throw UsageError("cannot find yosys (Debian package yosys; make deps installs it)");
  }
  const std::vector<std::string> only = selected_blocks(o.blocks);

  const fs::path out = o.out.empty() ? fs::path(o.build) / "synth" / config.name : fs::path(o.out);
  claim_output_folder(out, "oasis-synth", "--out");
  fs::create_directories(out / "work");
  const std::string tool = yosys_version(out / "work");
  const Variant full = generate_variant(o.config_path, o.overrides, out / "rtl", "full", {});
  const std::vector<std::string> order = measuring_order(full.manifest, only);
  const bool large = config.channels > o.max_channels;
  const std::vector<PlannedBlock> plan =
      plan_runs(o.config_path, o.overrides, out / "rtl", full, order, large);
  check_slices(plan, full);
  int n = 0;
  for (const auto& p : plan) n += int(p.runs.size());
  std::printf("synth: config %s, %d channels, %d Yosys runs (%s); logs in %s\n",
              config.name.c_str(), config.channels, n, tool.c_str(),
              (out / "logs").string().c_str());
  std::fflush(stdout);
  std::map<std::string, json> measured;  // run label -> figures
  int i = 0;
  for (const auto& p : plan) {
    for (const Run& r : p.runs) measured[r.label] = measure(r, out, tool, ++i, n);
  }
  if (!only.empty()) {
    std::printf("synth: --blocks given: only those measured, no report written\n");
    return 0;
  }

  // Per-block figures, scaled where needed; the PE line after the Index
  // Counter array, whose growth it takes.
  json blocks = json::object();
  for (const auto& p : plan) {
    if (p.runs.empty()) continue;  // the core of a large config, below
    if (!p.slice) {
      blocks[p.block] = as_reported(measured.at(p.runs[0].label));
    } else if (p.block != "pe_line") {
      const SliceFigures x = slice_figures(p, full);
      blocks[p.block] = extrapolate(measured.at(p.runs[0].label), measured.at(p.runs[1].label), x,
                                    slice_note("Yosys runs", *p.slice, x, "depth"));
    }
  }
  for (const auto& p : plan) {
    if (p.block != "pe_line" || !p.slice) continue;
    // The line with one Index Counter, plus what the Index Counter array
    // grows by from one counter to the configured number.
    const json& line1 = measured.at(p.runs[0].label);
    const json& array = blocks.at("index_counter_array");
    const json& array1 = measured.at("index_counter_array_index_counters_1");
    json r = as_reported(line1);
    for (const char* k : {"cells", "transistors", "flip_flops"}) {
      r[k] = line1[k].get<long>() + array[k].get<long>() - array1[k].get<long>();
    }
    r["scaled"] = true;
    r["note"] = fmt::format(
        "Yosys run of the line with index_counters = 1, plus the index_counter_array at {} "
        "counters (itself extrapolated) less the array at 1 counter; depth is that of the run "
        "with 1 counter",
        config.index_counters);
    blocks["pe_line"] = r;
  }
  // Blocks in the manifest's order.
  json ordered = json::object();
  for (const std::string& name : full.manifest.blocks()) {
    if (blocks.contains(name)) ordered[name] = blocks[name];
  }
  json core;
  if (large) {
    // The sum of the core's blocks, each synthesized alone.
    const std::vector<std::pair<std::string, int>> parts = {
        {"pe_line", config.pe_lines}, {"orizuru", 1}, {"clustering_unit", 1}, {"regfile", 1}};
    core = {{"cells", 0}, {"transistors", 0}, {"flip_flops", 0}, {"depth", 0}, {"seconds", 0.0}};
    for (const auto& [b, times] : parts) {
      const json& v = ordered.at(b);
      for (const char* k : {"cells", "transistors", "flip_flops"}) {
        core[k] = core[k].get<long>() + times * v[k].get<long>();
      }
      core["depth"] = std::max(core["depth"].get<long>(), v["depth"].get<long>());
      core["seconds"] = tenth(core["seconds"].get<double>() + v["seconds"].get<double>());
    }
    core["scaled"] = true;
    core["note"] = fmt::format(
        "sum of its blocks, each synthesized alone: {} x pe_line + orizuru + clustering_unit + "
        "regfile; the core's own glue (error calculation unit, token context registers, "
        "sequencing) is not counted; depth is the largest of the blocks",
        config.pe_lines);
  } else {
    core = ordered.at("core");
  }
  ordered.erase("core");
  json comparisons = json::array();
  for (const auto& [title, ours, base] :
       std::vector<std::tuple<const char*, const char*, const char*>>{
           {"LUT-GEMM PE line vs FP16 dequantize-and-MAC line, equal throughput", "pe_line",
            "mac_line_baseline"},
           {"LUT-GEMM PE line vs FIGLUT-class LUT line, equal throughput", "pe_line",
            "woq_lut_line_baseline"},
           {"FIGLUT-class LUT line vs FP16 dequantize-and-MAC line, equal throughput",
            "woq_lut_line_baseline", "mac_line_baseline"},
           {"Orizuru vs sorting-network top-k", "orizuru", "topk_sort_baseline"},
           {"Orizuru vs k-round reduction top-k", "orizuru", "topk_baseline"}}) {
    if (!ordered.contains(ours) || !ordered.contains(base)) continue;
    auto ratio = [&](const char* k) {
      return std::round(ordered[ours][k].get<double>() / ordered[base][k].get<double>() * 1000) /
             1000;
    };
    comparisons.push_back({{"name", title},
                           {"ours", ours},
                           {"baseline", base},
                           {"ratio_transistors", ratio("transistors")},
                           {"ratio_cells", ratio("cells")}});
  }
  const json s = {{"config", config.name},
                  {"tool", tool},
                  {"blocks", ordered},
                  {"core", core},
                  {"comparisons", comparisons}};
  write_text(out / "synth.json", s.dump(2) + "\n");
  write_text(out / "synth.md", report_md(s));
  std::printf("synth: wrote %s and %s\n", (out / "synth.json").string().c_str(),
              (out / "synth.md").string().c_str());
  return 0;
}

}  // namespace oasis_synth_command

int oasis::commands::oasis_synth(int argc, char** argv) {
  using namespace oasis_synth_command;
  return oasis::ppa::command_main("oasis-synth", [&] { return run(argc, argv); });
}
