// SPDX-License-Identifier: Apache-2.0
// oasis-ppa: area, timing and power of every generated block, the core and
// the baselines of a config in a real standard-cell library (docs/ppa.md).
// Each block is mapped by Yosys, buffered by blifFanout and timed by OpenSTA
// (sim/ppa/flow.hpp) at one clock target given in FO4 delays of the library,
// measured in the same run. Writes <out>/ppa.json, ppa.md and plots; a block
// whose sources, scripts and tools have not changed is not run again.
// Bad input (config, Liberty file, clock target, block name): one message,
// exit status 2, nothing written.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "model/config.hpp"
#include "model/perf/fp_delay.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/command_options.hpp"
#include "sim/ppa/flow.hpp"
#include "sim/ppa/liberty.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/report.hpp"
#include "sim/ppa/results.hpp"
#include "sim/ppa/run.hpp"
#include "sim/ppa/three_ways.hpp"
#include "tools/commands.hpp"

namespace oasis_ppa_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr const char* kDefaultLiberty = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";

struct Options : CommonOptions {
  std::string liberty = kDefaultLiberty;
  double period_fo4 = kDefaultPeriodFo4;
  double activity = 0.1;
  double io_budget = kPpaIoBudget;
  double sram_um2_per_bit = kDefaultSramUm2PerBit;
  bool plots = true;
  std::vector<double> sweep_periods;      ///< --sweep-periods: clock targets, FO4
  bool fp_spans = false;                  ///< --fp-spans: the delay model's spans
  bool three_ways = false;                ///< --three-ways: the three lines' table alone
  bool other_codebooks = true;            ///< the PE line with the other codebooks as well
  bool workload = false;                  ///< --workload: power from activity as well
  WorkloadSpec spec;                      ///< the workload's tensors, sizes and seed
  std::string activity_file;              ///< --activity-file: an earlier run's activity instead
  std::string energy;                     ///< --energy: the SRAMs' energy a bit (its file)
  bool icarus_check = false;              ///< --icarus-check: the counts against Icarus's
  bool glitches = false;                  ///< --glitches: and a timed Icarus run
  std::string command;                    ///< the command line, as given
  int jobs = 1;                           ///< --jobs: runs measured at once
  std::string source = OASIS_SOURCE_DIR;  ///< the testbenches' sources
  std::string cells_v = "/usr/share/qflow/tech/osu018/osu018_stdcells.v";
};

BlockJob make_job(const Variant& v, const std::string& block, const std::string& label,
                  const std::vector<std::string>& blackbox_blocks = {}) {
  const json& m = v.manifest.block(block);
  BlockJob job;
  job.label = label;
  job.top = m.at("top").get<std::string>();
  job.rtl_dir = v.dir;
  job.sources = block_sources(v, block);
  if (m.contains("parts")) {
    for (const auto& p : m.at("parts")) {
      job.parts.push_back({p.at("instance").get<std::string>(), p.at("module").get<std::string>(),
                           p.at("role").get<std::string>()});
    }
  }
  if (m.contains("memories")) {
    for (const auto& p : m.at("memories")) {
      MemorySpec s;
      s.name = p.at("name").get<std::string>();
      s.what = p.at("what").get<std::string>();
      s.bits = p.at("bits").get<long>();
      if (p.contains("sram")) {
        s.sram_module = p.at("sram").at("module").get<std::string>();
        s.sram_instance = p.at("sram").at("instance").get<std::string>();
      } else {
        for (const auto& r : p.at("registers")) s.registers.push_back(r.get<std::string>());
      }
      job.memories.push_back(s);
    }
  }
  for (const auto& b : blackbox_blocks) {
    const std::string top = v.manifest.top(b);
    job.blackboxes.push_back(top);
    // Parts and buffers inside a black box are measured with it, not here.
    std::vector<std::string> inside;
    for (const PartSpec& p : job.parts) {
      if (p.module == top) inside.push_back(p.instance + ".");
    }
    std::erase_if(job.parts, [&](const PartSpec& p) { return p.module == top; });
    const auto in_box = [&](const std::string& name) {
      return std::any_of(inside.begin(), inside.end(),
                         [&](const std::string& i) { return name.rfind(i, 0) == 0; });
    };
    std::erase_if(job.memories, [&](const MemorySpec& s) {
      return (!s.sram_instance.empty() && in_box(s.sram_instance)) ||
             std::any_of(s.registers.begin(), s.registers.end(), in_box);
    });
  }
  // An SRAM is a black box of the netlist, its area its bits at the stated density.
  for (const MemorySpec& s : job.memories) {
    if (!s.sram_module.empty() && std::find(job.blackboxes.begin(), job.blackboxes.end(),
                                            s.sram_module) == job.blackboxes.end()) {
      job.blackboxes.push_back(s.sram_module);
    }
  }
  return job;
}

class Runner {
 public:
  Runner(const Options& o, const Technology& tech, const Tools& tools, const Constraints& c,
         const fs::path& out, std::string environment)
      : o_(o), tech_(tech), tools_(tools), c_(c), out_(out), env_(std::move(environment)) {}

  void set_total(int n) { total_ = n; }

  json measure(const BlockJob& job) {
    const int index = ++index_;  // the runs' numbers in the order they start
    const fs::path res = out_ / "blocks" / (job.label + ".json");
    const fs::path work = out_ / "work" / job.label;
    const auto progress = [&](const std::string& step) {
      std::printf("ppa: [%d/%d] %s: %s\n", index, total_, job.label.c_str(), step.c_str());
      std::fflush(stdout);
    };
    uint64_t h = fnv1a(env_);
    h = fnv1a(yosys_synth_script(job, tech_) + yosys_map_script(job, tech_, c_, {}), h);
    h = fnv1a(sta_script(job.top, true, tech_, c_, only_sram_boxes(job)), h);
    for (const auto& s : job.sources) h = fnv1a(read_text(job.rtl_dir / s), h);
    bool sram = false;
    for (const auto& m : job.memories) {
      h = fnv1a(m.name + std::to_string(m.bits) + m.sram_module, h);
      sram = sram || !m.sram_module.empty();
    }
    // The density in the total; the netlist with the SRAMs' instances beside the one timed.
    if (sram) h = fnv1a(fmt::format("{} netlist_macros.v", o_.sram_um2_per_bit), h);
    for (const auto& p : job.parts) h = fnv1a(p.instance + p.module + p.role, h);
    const std::string key = hex(h);
    const std::string activity_key = job.activity ? activity_reuse_key(job) : "";
    if (fs::exists(res) && fs::exists(work / "netlist.v")) {
      try {
        json r = json::parse(read_text(res));
        if (r.value("key", "") == key) {
          // The netlist is unchanged: its power from activity is run again only when the
          // workload or the testbench changed.
          if (job.activity && r.value("activity_key", "") != activity_key) {
            r["activity"] = activity(job, work, progress);
            r["activity_key"] = activity_key;
          }
          check_activity(job, work, r, progress);
          write_text(res, r.dump(2) + "\n");
          std::printf("ppa: [%d/%d] %s: unchanged (%s)\n", index, total_, job.label.c_str(),
                      summary(r).c_str());
          std::fflush(stdout);
          return r;
        }
      } catch (const json::exception&) {
      }
    }
    std::printf("ppa: [%d/%d] %s ...\n", index, total_, job.label.c_str());
    std::fflush(stdout);
    json r = run_block(job, tech_, tools_, c_, work, progress);
    if (job.activity) {
      r["activity"] = activity(job, work, progress);
      r["activity_key"] = activity_key;
    }
    check_activity(job, work, r, progress);
    // The SRAMs' estimate (docs/ppa.md, "Memories") in the block's total.
    double macros = 0;
    for (const auto& m : job.memories) {
      if (!m.sram_module.empty()) macros += double(m.bits) * o_.sram_um2_per_bit;
    }
    r["area_um2"]["sram_macros"] = macros;
    r["area_um2"]["total"] = r["area_um2"]["total"].get<double>() + macros;
    r["key"] = key;
    r["scaled"] = false;
    r["note"] = "";
    fs::create_directories(res.parent_path());
    write_text(res, r.dump(2) + "\n");
    std::printf("ppa: [%d/%d] %s: %s\n", index, total_, job.label.c_str(), summary(r).c_str());
    std::fflush(stdout);
    return r;
  }

 private:
  std::string summary(const json& r) const {
    std::string s = fmt::format(
        "{:.0f} um2, {} cells, critical path {:.3f} ns ({:.1f} FO4), slack {:.3f} ns",
        r["area_um2"]["total"].get<double>(), r["cells"].get<long>(),
        r["timing"]["critical_path"].get<double>(),
        r["timing"]["critical_path"].get<double>() / fo4_, r["timing"]["slack"].get<double>());
    if (r.contains("activity")) {
      s += fmt::format(", {:.3g} mW from activity ({:.3g} mW vectorless)",
                       r["activity"]["power_w"]["total"].get<double>() * 1e3,
                       r["power_w"]["total"].get<double>() * 1e3);
    }
    return s;
  }

  // The power from activity; an activity file of another netlist is bad input, refused before
  // the block's results are written.
  json activity(const BlockJob& job, const fs::path& work,
                const std::function<void(const std::string&)>& progress) const {
    try {
      return run_activity(job, tech_, c_, work, progress);
    } catch (const ActivityMismatch& e) {
      throw UsageError(e.what());
    }
  }

  // --icarus-check, --glitches: the activity's checks, once for each activity measured.
  void check_activity(const BlockJob& job, const fs::path& work, json& r,
                      const std::function<void(const std::string&)>& progress) const {
    if (!job.activity || !(o_.icarus_check || o_.glitches)) return;
    json& a = r["activity"];
    if (a.contains("icarus_check") && (!o_.glitches || a.contains("glitches"))) return;
    progress(o_.glitches ? "power from activity: Icarus at zero delay and with delays"
                         : "power from activity: Icarus at zero delay");
    IcarusCheckOptions io;
    io.timed = o_.glitches;
    io.cells_v = o_.cells_v;
    io.sta = tools_.sta;
    io.input_delay = c_.io_budget * c_.period;
    const json checks = run_activity_checks(job, tech_, c_, work, io);
    for (const auto& [k, v] : checks.items()) a[k] = v;
    const json& ic = a["icarus_check"];
    if (ic["differing"].get<long>() != 0 || ic["nets_compared"].get<long>() == 0) {
      throw ReportError(fmt::format(
          "{}: the simulator's toggle counts differ from Icarus's on {} of {} nets ({})", job.label,
          ic["differing"].get<long>(), ic["nets_compared"].get<long>(),
          ic["first_difference"].get<std::string>()));
    }
  }

  // What the power from activity depends on beyond the netlist: the workload and the
  // testbenches that run it.
  std::string activity_reuse_key(const BlockJob& job) const {
    const ActivityJob& a = *job.activity;
    // A block with SRAMs: their energy a bit as well (the simulator's memories, version 1).
    const std::string sram =
        only_sram_boxes(job) ? fmt::format(" | sram 1 {} pJ/bit", a.sram.pj_per_bit) : "";
    if (!a.file.empty()) return "file " + hex(fnv1a(read_text(a.file) + sram));
    uint64_t h = fnv1a(a.workload.key() + " | " +
                       fmt::format("{}", fmt::join(a.testbench.sets, " ")) + sram);
    for (const char* dir : {"verif/tb", "verif/harness", "verif"}) {
      const fs::path d = fs::path(a.testbench.source) / dir;
      if (!fs::is_directory(d)) continue;
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(d)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) h = fnv1a(read_text(f), h);
    }
    return hex(h);
  }

 public:
  double fo4_ = 1;

 private:
  const Options& o_;
  const Technology& tech_;
  const Tools& tools_;
  const Constraints& c_;
  fs::path out_;
  std::string env_;
  std::atomic<int> index_ = 0;
  int total_ = 0;
};

// The power from activity of two runs of a sliced block, extrapolated as the vectorless
// power is: the clock network and the flip-flops' power in the flip-flops' measure, the logic's
// and the leakage in the logic's. The energy of an operation follows the throughput: where the
// operation is a token, the cycles a token takes are linear in the measure; otherwise the
// operations a cycle are.
json extrapolate_activity(const json& a, const json& b, double l, double l1, double l2, double f,
                          double f1, double f2) {
  if (!a.contains("activity") || !b.contains("activity")) return nullptr;
  const json& pa = a["activity"]["power_w"];
  const json& pb = b["activity"]["power_w"];
  const auto along = [&](const char* k, bool flops) {
    return flops ? lin(pa[k], pb[k], f, f1, f2) : lin(pa[k], pb[k], l, l1, l2);
  };
  json r = b["activity"];
  json& p = r["power_w"];
  p["clock"] = along("clock", true);
  p["sequential"] = along("sequential", true);
  p["combinational"] = along("combinational", false);
  p["leakage"] = along("leakage", false);
  const double total = p["clock"].get<double>() + p["sequential"].get<double>() +
                       p["combinational"].get<double>() + p["leakage"].get<double>();
  const double scale = pb["total"].get<double>() > 0 ? total / pb["total"].get<double>() : 0.0;
  p["internal"] = pb["internal"].get<double>() * scale;
  p["switching"] = pb["switching"].get<double>() * scale;
  p["total"] = total;
  const double period =
      b["activity"]["energy_per_cycle_j"].get<double>() / pb["total"].get<double>();
  r["energy_per_cycle_j"] = total * period;
  r.erase("parts");
  r.erase("icarus_check");
  r.erase("glitches");
  if (a["activity"].contains("energy_per_operation_j") &&
      b["activity"].contains("energy_per_operation_j")) {
    // Operations a cycle of each run, from its energies.
    const auto rate = [](const json& x) {
      return x["activity"]["energy_per_cycle_j"].get<double>() /
             x["activity"]["energy_per_operation_j"].get<double>();
    };
    const bool tokens = b["activity"].value("operation", "") == "tokens";
    const double ops =
        tokens ? 1 / lin(1 / rate(a), 1 / rate(b), l, l1, l2) : lin(rate(a), rate(b), l, l1, l2);
    r["energy_per_operation_j"] = total * period / ops;
  }
  return r;
}

// Extrapolates two runs of a block: logic in one measure, flip-flops in another.
json extrapolate(const json& a, const json& b, double l, double l1, double l2, double f, double f1,
                 double f2, const std::string& note) {
  json r = b;
  const double seq1 = a["area_um2"]["sequential"], seq2 = b["area_um2"]["sequential"];
  const double tot1 = a["area_um2"]["total"], tot2 = b["area_um2"]["total"];
  const double seq = lin(seq1, seq2, f, f1, f2);
  const double comb = lin(tot1 - seq1, tot2 - seq2, l, l1, l2);
  const double buf =
      lin(a["area_um2"]["fanout_buffers"], b["area_um2"]["fanout_buffers"], l, l1, l2);
  const double mem = lin(a["area_um2"]["memory_flops"], b["area_um2"]["memory_flops"], f, f1, f2);
  r["area_um2"] = {{"total", std::round(seq + comb)},   {"logic", std::round(seq + comb - mem)},
                   {"combinational", std::round(comb)}, {"sequential", std::round(seq)},
                   {"memory_flops", std::round(mem)},   {"fanout_buffers", std::round(buf)}};
  const double nand2 = b["area_um2"]["total"].get<double>() / b["nand2_eq"]["total"].get<double>();
  r["nand2_eq"] = {{"total", std::round((seq + comb) / nand2)},
                   {"logic", std::round((seq + comb - mem) / nand2)}};
  r["cells"] =
      std::lround(lin(a["cells"].get<double>() - a["flip_flops"].get<double>(),
                      b["cells"].get<double>() - b["flip_flops"].get<double>(), l, l1, l2) +
                  lin(a["flip_flops"], b["flip_flops"], f, f1, f2));
  r["flip_flops"] = std::lround(lin(a["flip_flops"], b["flip_flops"], f, f1, f2));
  const double ps = lin(a["power_w"]["sequential"], b["power_w"]["sequential"], f, f1, f2);
  const double pc = lin(a["power_w"]["combinational"], b["power_w"]["combinational"], l, l1, l2);
  const double pt = b["power_w"]["total"].get<double>();
  json p = b["power_w"];
  for (const char* k : {"internal", "switching", "leakage"}) {
    p[k] = pt > 0 ? b["power_w"][k].get<double>() * (ps + pc) / pt : 0.0;
  }
  p["total"] = ps + pc;
  p["sequential"] = ps;
  p["combinational"] = pc;
  r["power_w"] = p;
  r.erase("cells_by_type");
  r.erase("parts");
  r.erase("key");
  r.erase("power_check");
  r["memories"] = json::array();
  r["scaled"] = true;
  r["note"] = note;
  const json activity = extrapolate_activity(a, b, l, l1, l2, f, f1, f2);
  if (activity.is_null()) {
    r.erase("activity");
  } else {
    r["activity"] = activity;
  }
  return r;
}

// The difference of two results, added to a third: base + (plus - minus),
// for area, cells and power; timing is the worse of base and plus.
json add_growth(const json& base, const json& plus, const json& minus, const std::string& note) {
  json r = base;
  for (const char* k :
       {"total", "logic", "combinational", "sequential", "memory_flops", "fanout_buffers"}) {
    r["area_um2"][k] = base["area_um2"][k].get<double>() + plus["area_um2"][k].get<double>() -
                       minus["area_um2"][k].get<double>();
  }
  for (const char* k : {"total", "logic"}) {
    r["nand2_eq"][k] = base["nand2_eq"][k].get<double>() + plus["nand2_eq"][k].get<double>() -
                       minus["nand2_eq"][k].get<double>();
  }
  for (const char* k : {"cells", "flip_flops"}) {
    r[k] = base[k].get<long>() + plus[k].get<long>() - minus[k].get<long>();
  }
  for (const char* k :
       {"internal", "switching", "leakage", "total", "sequential", "combinational"}) {
    r["power_w"][k] = base["power_w"][k].get<double>() + plus["power_w"][k].get<double>() -
                      minus["power_w"][k].get<double>();
  }
  if (plus["timing"]["slack"].get<double>() < base["timing"]["slack"].get<double>()) {
    r["timing"] = plus["timing"];
  }
  // The power from activity grows the same way, when all three have it; the energy of an
  // operation at the base's rate of operations.
  if (base.contains("activity") && plus.contains("activity") && minus.contains("activity")) {
    json& a = r["activity"];
    for (const char* k :
         {"internal", "switching", "leakage", "total", "clock", "sequential", "combinational"}) {
      a["power_w"][k] = base["activity"]["power_w"][k].get<double>() +
                        plus["activity"]["power_w"][k].get<double>() -
                        minus["activity"]["power_w"][k].get<double>();
    }
    const double scale =
        a["power_w"]["total"].get<double>() / base["activity"]["power_w"]["total"].get<double>();
    for (const char* k : {"energy_per_cycle_j", "energy_per_operation_j"}) {
      if (a.contains(k)) a[k] = a[k].get<double>() * scale;
    }
    a.erase("parts");
  } else {
    r.erase("activity");
  }
  r.erase("power_check");
  r.erase("cells_by_type");
  r.erase("key");
  r["scaled"] = true;
  r["note"] = note;
  return r;
}

// base + n x each of `adds` (area, cells, power); the worst timing of all.
json compose(const json& base, const std::vector<std::pair<json, int>>& adds,
             const std::string& note) {
  json zero = base;
  for (auto& [k, v] : zero["area_um2"].items()) v = 0.0;
  for (auto& [k, v] : zero["nand2_eq"].items()) v = 0.0;
  zero["cells"] = 0;
  zero["flip_flops"] = 0;
  for (auto& [k, v] : zero["power_w"].items()) v = 0.0;
  json r = base;
  for (const auto& [add, n] : adds) {
    for (int i = 0; i < n; ++i) r = add_growth(r, add, zero, note);
  }
  r["scaled"] = true;
  r["note"] = note;
  // The power from activity, when every added block has it: theirs, and the base's vectorless
  // power (a base with black boxes has no recorded activity of its own).
  const bool all = std::all_of(adds.begin(), adds.end(),
                               [](const auto& x) { return x.first.contains("activity"); });
  if (all && !adds.empty()) {
    json a = {{"power_w",
               {{"internal", base["power_w"]["internal"]},
                {"switching", base["power_w"]["switching"]},
                {"leakage", base["power_w"]["leakage"]},
                {"total", base["power_w"]["total"]},
                {"clock", 0.0},
                {"sequential", base["power_w"]["sequential"]},
                {"combinational", base["power_w"]["combinational"]}}}};
    double period = 0;
    for (const auto& [add, n] : adds) {
      const json& p = add["activity"]["power_w"];
      for (auto& [k, v] : a["power_w"].items()) v = v.get<double>() + n * p[k].get<double>();
      period = add["activity"]["energy_per_cycle_j"].get<double>() / p["total"].get<double>();
    }
    a["energy_per_cycle_j"] = a["power_w"]["total"].get<double>() * period;
    a["source"] =
        "composed: the added blocks' power from their own workloads, the rest vectorless (its "
        "black boxes' outputs are not recorded)";
    r["activity"] = a;
  }
  return r;
}

// The command's own options, after the common ones.
void add_options(CLI::App& app, Options& o) {
  app.add_option("--liberty", o.liberty, "Liberty file of the cell library")->capture_default_str();
  app.add_option("--period-fo4", o.period_fo4,
                 "clock target in FO4 delays of the library (the paper's 500 MHz at 28 nm is "
                 "about 130)")
      ->capture_default_str();
  app.add_option("--activity", o.activity,
                 "toggles per net per clock cycle for the vectorless power estimate")
      ->capture_default_str();
  app.add_option("--io-budget", o.io_budget,
                 "input and output external delays as a fraction of the period")
      ->capture_default_str();
  app.add_option("--sram-um2-per-bit", o.sram_um2_per_bit,
                 "SRAM density for the memories' SRAM estimate, um2 per bit")
      ->capture_default_str();
  app.add_flag("!--no-plots", o.plots, "do not draw the gnuplot PNGs");
  app.add_option("--sweep-periods", o.sweep_periods,
                 "measure the --blocks at each of these clock targets (FO4, comma-separated), "
                 "the config's target_period_fo4 set to each, and write the area-period report")
      ->delimiter(',');
  app.add_flag("--workload", o.workload,
               "power from activity as well: every block's netlist simulated on the golden "
               "model's workload, its own testbench's (docs/ppa.md, \"Power from activity\")");
  app.add_option("--workload-activations", o.spec.activations,
                 "the workload's activations, tokens x channels (.npy); default: the synthetic "
                 "LLM-like layer");
  app.add_option("--workload-weights", o.spec.weights,
                 "the workload's weights, rows x channels (.npy); default: the synthetic layer");
  app.add_option("--workload-tokens", o.spec.tokens,
                 "tokens of the workload (default: each testbench's)");
  app.add_option("--workload-rows", o.spec.rows,
                 "weight rows of the workload (default: each "
                 "testbench's)");
  app.add_flag("--workload-zeros", o.spec.zeros,
               "the workload's data held at zero (indices, activations, residuals): the data "
               "path stands still and the clock network's floor is left");
  app.add_option("--workload-seed", o.spec.seed, "the synthetic workload's seed")
      ->capture_default_str();
  app.add_option("--activity-file", o.activity_file,
                 "with --blocks of one block: its power from this activity file (the "
                 "activity.txt an earlier run wrote for the same netlist) instead of a workload");
  app.add_option("--jobs", o.jobs,
                 "runs measured at once, each its own Yosys, OpenSTA and simulation (each "
                 "block's figures are the same whatever the number)")
      ->capture_default_str();
  app.add_option("--energy", o.energy,
                 "with --workload: the energy file whose SRAM energy a bit a line with its row "
                 "in an SRAM is charged (default: the source's configs/energy/osu018.json)");
  app.add_flag("--icarus-check", o.icarus_check,
               "with --workload: each block's toggle counts against Icarus Verilog's on the "
               "library's own cell models, net by net (they must agree)");
  app.add_flag("--glitches", o.glitches,
               "with --workload: also a timed Icarus run (OpenSTA's delays as SDF), every "
               "transition counted: the power zero delay misses");
  app.add_option("--source", o.source, "the project's source folder (testbenches, configs)")
      ->capture_default_str();
  app.add_flag("--fp-spans", o.fp_spans,
               "measure the delay model's figures instead: every span of places of the "
               "floating-point adders and multipliers (docs/fp_rtl.md), written to "
               "<out>/fp_spans.json and .md");
  app.add_flag("--three-ways", o.three_ways,
               "measure only the FP16 dequantize-and-MAC line, the FIGLUT-class LUT line and the "
               "PE line (with both kinds of codebooks) and write <out>/three_ways.md and .json "
               "(docs/woq_lut_line.md)");
  app.add_flag("!--no-other-codebooks", o.other_codebooks,
               "leave out the run of the PE line with the other kind of codebooks than the "
               "config's (as long as the line's own run)");
}

// `what` is `v`: within lo .. hi, else a usage error saying what is `allowed`.
void check_range(double v, double lo, double hi, const std::string& what,
                 const std::string& allowed) {
  if (!std::isfinite(v) || v < lo || v > hi) {
    throw UsageError(fmt::format("{} is {}; allowed: {}", what, v, allowed));
  }
}

// The options as parsed: each in its range, no two that exclude each other; the workload's
// files made absolute, the energy file's default and the workload implied by its options.
void check_options(Options& o) {
  check_range(o.period_fo4, 10, 10000, "--period-fo4", "10 to 10000 FO4 delays");
  for (double t : o.sweep_periods) {
    check_range(t, 10, 10000, "--sweep-periods: a target", "10 to 10000 FO4 delays");
    if (t != std::round(t)) {
      throw UsageError(
          fmt::format("--sweep-periods: a target is {}; allowed: whole FO4 delays, "
                      "as target_period_fo4 takes them",
                      t));
    }
  }
  if (o.fp_spans && (!o.sweep_periods.empty() || !o.blocks.empty())) {
    throw UsageError(
        "--fp-spans measures the floating-point units alone: no --blocks and no "
        "--sweep-periods with it");
  }
  if (o.three_ways && (o.fp_spans || !o.sweep_periods.empty() || !o.blocks.empty())) {
    throw UsageError(
        "--three-ways measures its own three lines: no --blocks, --sweep-periods or --fp-spans "
        "with it");
  }
  if (!o.sweep_periods.empty() && o.blocks.empty()) {
    throw UsageError("--sweep-periods needs --blocks: the blocks to measure at each target");
  }
  check_range(o.activity, 1e-6, 2, "--activity", "a toggle rate above 0 and at most 2 a cycle");
  if (!o.spec.activations.empty() || !o.spec.weights.empty() || o.spec.tokens || o.spec.rows ||
      o.spec.zeros) {
    o.workload = true;
  }
  for (const auto& [v, what] :
       {std::pair{o.spec.tokens, "--workload-tokens"}, std::pair{o.spec.rows, "--workload-rows"}}) {
    if (v < 0 || v > 1000000) {
      throw UsageError(
          fmt::format("{} is {}; allowed: 1 to 1000000 (0: each testbench's)", what, v));
    }
  }
  for (const auto& [f, what] : {std::pair{o.spec.activations, "--workload-activations"},
                                std::pair{o.spec.weights, "--workload-weights"},
                                std::pair{o.activity_file, "--activity-file"}}) {
    if (!f.empty() && !fs::is_regular_file(f)) {
      throw UsageError(fmt::format("{} {}: no such file", what, f));
    }
  }
  if (!o.spec.activations.empty()) o.spec.activations = fs::absolute(o.spec.activations).string();
  if (!o.spec.weights.empty()) o.spec.weights = fs::absolute(o.spec.weights).string();
  if (!o.activity_file.empty()) {
    if (o.workload) {
      throw UsageError("--activity-file gives the activity itself: no --workload options with it");
    }
    if (o.blocks.empty() || o.blocks.find(',') != std::string::npos) {
      throw UsageError("--activity-file is one netlist's: it needs --blocks with one block");
    }
  }
  if (o.energy.empty()) o.energy = (fs::path(o.source) / "configs/energy/osu018.json").string();
  if (o.workload || !o.activity_file.empty()) {
    try {
      read_sram_energy(o.energy);
    } catch (const ConfigError& e) {
      throw UsageError(fmt::format("--energy: {}", e.what()));
    }
  }
  if ((o.icarus_check || o.glitches) && !o.workload) {
    throw UsageError(
        "--icarus-check and --glitches check a workload's activity: they need --workload");
  }
  if ((o.workload || !o.activity_file.empty()) && (o.fp_spans || !o.sweep_periods.empty())) {
    throw UsageError(
        "--workload and --activity-file measure the blocks at one clock target: "
        "not with --fp-spans or --sweep-periods");
  }
  check_range(o.io_budget, 0, 0.45, "--io-budget", "0 to 0.45 of the period");
  check_range(o.jobs, 1, 64, "--jobs", "1 to 64 runs at once");
  check_range(o.sram_um2_per_bit, 1e-3, 1e4, "--sram-um2-per-bit", "0.001 to 10000 um2 per bit");
  check_common_options(o);
}

Options parse(int argc, char** argv, int& status) {
  Options o;
  o.command = "oasis-ppa";
  for (int i = 1; i < argc; ++i) o.command += " " + gen::shell_word(argv[i]);
  CLI::App app{
      "oasis-ppa: area, timing and power of every generated block in a real cell library "
      "(docs/ppa.md)"};
  add_common_options(app, o, "ppa");
  add_options(app, o);
  status = parse_command_line(app, argc, argv, "oasis-ppa");
  if (status >= 0) return o;
  check_options(o);
  return o;
}

std::string tool_version(const Tools& tools, const fs::path& tmp) {
  std::string v;
  for (const auto& [prog, arg] : std::vector<std::pair<std::string, std::string>>{
           {tools.yosys, "-V"}, {tools.sta, "-version"}}) {
    const fs::path log = tmp / "version.txt";
    fs::remove(log);
    run_tool({prog, arg}, log);
    std::string line = read_text(log);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    v += (v.empty() ? "" : ", ") + fs::path(prog).filename().string() + " " + line;
    fs::remove(log);
  }
  return v;
}

// One clock target's runs: the config, the library, the plan and what each run measured.
struct Measurement {
  Config config;
  Technology tech;
  Tools tools;
  double fo4 = 0;  ///< the library's FO4 delay, its time unit
  int fo4_stages = 0;
  double unit_ns = 0;
  Constraints c;
  std::string versions;
  Variant full;
  std::vector<std::string> order;
  std::vector<PlannedBlock> plan;
  bool large = false;
  std::map<std::string, json> measured;  // run label -> result
};

// The input's checks: everything that can be wrong with it, before anything is written.
Measurement check_inputs(const Options& o) {
  Measurement m;
  m.config = load_config(o.config_path, o.overrides);
  for (double t : o.sweep_periods) {
    std::vector<std::string> set = o.overrides;
    set.push_back(fmt::format("target_period_fo4={}", t));
    load_config(o.config_path, set);
  }
  if (!fs::is_directory(o.build)) {
    throw UsageError(fmt::format("--build {}: no such folder (make build first)", o.build));
  }
  if (!fs::is_regular_file(o.liberty)) {
    throw UsageError(
        fmt::format("--liberty {}: no such file (osu018 comes with the Debian package "
                    "qflow-tech-osu018; make deps installs it)",
                    o.liberty));
  }
  try {
    m.tech.lib = read_liberty(o.liberty);
    m.tech.check();
  } catch (const LibertyError& e) {
    throw UsageError(e.what());
  }
  for (const auto& [prog, pkg] : std::vector<std::pair<std::string, std::string>>{
           {m.tools.yosys, "yosys"}, {m.tools.sta, "opensta"}, {m.tools.blif_fanout, "qflow"}}) {
    if (find_program(prog).empty()) {
      throw UsageError(
          fmt::format("cannot find {} (Debian package {}; make deps installs it)", prog, pkg));
    }
  }
  return m;
}

// The PE line with the other codebooks than the config's (docs/woq_lut_line.md, the report's
// three ways), a run of its own under pe_line_codebooks_<kind>: when the PE line is measured,
// whole, and both index widths allow symmetric codebooks.
std::optional<PlannedBlock> other_codebooks(const Options& o, const Measurement& m,
                                            const fs::path& rtl_root) {
  const auto line = std::find_if(m.plan.begin(), m.plan.end(),
                                 [](const PlannedBlock& p) { return p.block == "pe_line"; });
  if (line == m.plan.end() || line->slice || m.config.act_bits < 2 || m.config.weight_bits < 2) {
    return std::nullopt;
  }
  const std::string kind = m.config.codebooks == Codebooks::kFree ? "symmetric" : "free";
  const std::string label = pe_line_codebooks_label(kind);
  PlannedBlock p;
  p.block = "pe_line";
  p.runs.push_back({label, "pe_line",
                    generate_variant(o.config_path, o.overrides, rtl_root, "codebooks_" + kind,
                                     {"codebooks=" + kind})});
  return p;
}

// Runs the flow on the blocks `only` (all when empty) at o.period_fo4 into `out`.
void measure(const Options& o, const std::vector<std::string>& only, const fs::path& out,
             Measurement& m) {
  m.config = load_config(o.config_path, o.overrides);
  fs::create_directories(out / "work");
  const fs::path rtl_root = out / "rtl";

  std::printf("ppa: config %s, library %s (%s)\n", m.config.name.c_str(), m.tech.lib.name.c_str(),
              o.liberty.c_str());
  const Fo4 fo4 = measure_fo4(m.tech, m.tools, out / "work" / "fo4");
  m.c.period = o.period_fo4 * fo4.delay;
  m.c.activity = o.activity;
  m.c.io_budget = o.io_budget;
  m.unit_ns = m.tech.lib.time_unit_seconds() * 1e9;
  m.fo4 = fo4.delay;
  m.fo4_stages = fo4.stages;
  std::printf(
      "ppa: FO4 = %.4f ns (inverter chain, %d stages); clock target %.0f FO4 = %.3f ns "
      "(%.1f MHz)\n",
      fo4.delay * m.unit_ns, fo4.stages, o.period_fo4, m.c.period * m.unit_ns,
      1e3 / (m.c.period * m.unit_ns));
  std::fflush(stdout);
  m.versions = tool_version(m.tools, out / "work");
  const std::string env = fmt::format(
      "flow {} | {} | {} | lib {} | period {:.6g} | act {:.6g} | "
      "io {:.6g}",
      kFlowVersion, m.versions, o.liberty, hex(fnv1a(read_text(o.liberty))), m.c.period,
      m.c.activity, m.c.io_budget);
  Runner runner(o, m.tech, m.tools, m.c, out, env);
  runner.fo4_ = fo4.delay;

  m.full = generate_variant(o.config_path, o.overrides, rtl_root, "full", {});
  m.order = measuring_order(m.full.manifest, only);
  m.large = m.config.channels > o.max_channels;

  // The plan: one or two runs per block, each a job of the flow.
  m.plan = plan_runs(o.config_path, o.overrides, rtl_root, m.full, m.order, m.large);
  check_slices(m.plan, m.full);
  // A full run and the three ways: with --blocks, only what was asked.
  if (o.sweep_periods.empty() && o.other_codebooks && (only.empty() || o.three_ways)) {
    if (auto other = other_codebooks(o, m, rtl_root)) m.plan.push_back(std::move(*other));
  }
  std::map<std::string, BlockJob> jobs;  // run label -> job
  int njobs = 0;
  for (auto& p : m.plan) {
    if (p.block == "core" && p.runs.empty()) {
      // The core around black-box PE lines and Orizuru, measured on their own.
      p.runs.push_back({"core_glue", "core", m.full});
      jobs.emplace("core_glue", make_job(m.full, "core", "core_glue", {"pe_line", "orizuru"}));
    } else if (p.block == "axi") {
      // The system wrapper around a black-box core, measured on its own (docs/axi.md).
      for (const Run& r : p.runs) {
        jobs.emplace(r.label, make_job(r.variant, r.block, r.label, {"core"}));
      }
    } else {
      for (const Run& r : p.runs) jobs.emplace(r.label, make_job(r.variant, r.block, r.label));
    }
    njobs += int(p.runs.size());
  }
  // The power from activity: each job's own testbench on the workload. A job with black boxes
  // other than SRAMs (the large core's glue) has none: the boxes' outputs are not recorded. A
  // line with its row in an SRAM is simulated with the SRAM's behaviour, its accesses at the
  // energy file's figure (docs/ppa.md, "SRAM access energy").
  if (o.workload || !o.activity_file.empty()) {
    SramEnergy sram = read_sram_energy(o.energy);
    // Named as the project names it where it is the project's file (the same from any checkout).
    const fs::path in_source = fs::path(o.energy).lexically_relative(o.source);
    if (!in_source.empty() && *in_source.begin() != "..") sram.file = in_source.string();
    for (const auto& p : m.plan) {
      for (const Run& r : p.runs) {
        BlockJob& job = jobs.at(r.label);
        if (!job.blackboxes.empty() && !only_sram_boxes(job)) continue;
        std::vector<std::string> sets = o.overrides;
        sets.insert(sets.end(), r.variant.sets.begin(), r.variant.sets.end());
        job.activity = ActivityJob{
            TestbenchRun{r.block, o.config_path, sets, fs::absolute(o.build), o.source,
                         fmt::format("ppa_{}_{}", m.config.name, r.label)},
            o.spec, o.activity_file.empty() ? fs::path() : fs::absolute(o.activity_file), sram};
      }
    }
  }
  runner.set_total(njobs);
  std::printf("ppa: %d runs; results in %s\n", njobs, out.string().c_str());
  std::fflush(stdout);
  // The runs in the plan's order, --jobs of them at a time; a block that fails does not stop
  // the others (the report needs all), bad input does.
  std::vector<const BlockJob*> queue;
  for (const auto& p : m.plan) {
    for (const Run& run : p.runs) queue.push_back(&jobs.at(run.label));
  }
  std::vector<std::string> failed;
  std::exception_ptr bad_input;
  std::mutex mu;
  size_t next = 0;
  const auto worker = [&] {
    for (;;) {
      const BlockJob* job = nullptr;
      {
        const std::lock_guard<std::mutex> lock(mu);
        if (next >= queue.size() || bad_input) return;
        job = queue[next++];
      }
      try {
        json r = runner.measure(*job);
        const std::lock_guard<std::mutex> lock(mu);
        m.measured[job->label] = std::move(r);
      } catch (const UsageError&) {
        const std::lock_guard<std::mutex> lock(mu);
        bad_input = std::current_exception();
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> lock(mu);
        std::printf("ppa: %s FAILED: %s\n", job->label.c_str(), e.what());
        std::fflush(stdout);
        failed.push_back(job->label);
      }
    }
  };
  std::vector<std::thread> workers;
  for (int i = 1; i < o.jobs; ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  if (bad_input) std::rethrow_exception(bad_input);
  std::sort(failed.begin(), failed.end());
  if (!failed.empty()) {
    throw std::runtime_error(fmt::format("{} run(s) failed, no report written: {}", failed.size(),
                                         fmt::join(failed, ", ")));
  }
}

// --sweep-periods: the blocks at each clock target, the config pipelined for it; area
// against the period each achieves, <out>/sweep.json, sweep.md and area_period.png.
int sweep(const Options& o, const std::vector<std::string>& only, const fs::path& out,
          Measurement& m) {
  json rows = json::array();
  for (double t : o.sweep_periods) {
    Options at = o;
    at.period_fo4 = t;
    at.overrides.push_back(fmt::format("target_period_fo4={}", t));
    const fs::path dir = out / "sweep" / fmt::format("{}", t);
    Measurement mt = m;
    mt.measured.clear();
    measure(at, only, dir, mt);
    for (const auto& p : mt.plan) {
      if (p.runs.size() != 1) {
        throw std::runtime_error(fmt::format(
            "--sweep-periods: {} is measured in {} runs at this config (extrapolated); the "
            "sweep takes blocks measured whole",
            p.block, p.runs.size()));
      }
      const json& r = mt.measured.at(p.runs[0].label);
      const double path_fo4 = r["timing"]["critical_path"].get<double>() / mt.fo4;
      const double min_period_fo4 = r["timing"]["min_period"].get<double>() / mt.fo4;
      rows.push_back({{"block", p.block},
                      {"target_fo4", t},
                      {"fp_pipeline_stages", mt.full.manifest.config().at("fp_pipeline_stages")},
                      {"area_um2", r["area_um2"]["total"]},
                      {"critical_path_fo4", std::round(path_fo4 * 10) / 10},
                      {"min_period_fo4", std::round(min_period_fo4 * 10) / 10},
                      {"slack_ns", r["timing"]["slack"]},
                      {"met", r["timing"]["met"]},
                      {"power_w", r["power_w"]["total"]}});
      // A floating-point unit block's own registers at the target (the config's S is what
      // the other blocks' units take).
      if (const auto own = mt.full.manifest.figure(p.block, "register_stages")) {
        rows.back()["register_stages"] = *own;
      }
    }
  }
  write_sweep(rows, m.config.name, out, o.plots);
  std::printf("ppa: wrote %s\n", (out / "sweep.md").string().c_str());
  return 0;
}

// --fp-spans: the delay model's figures (model/perf/fp_delay.cpp, docs/fp_rtl.md). Each unit
// of the model is built with registers at no place, at one place and at every two places, and
// OpenSTA gives the logic between them: from the inputs to a place (its launch left out), from
// one place to another, from a place to the outputs, from the inputs to the outputs. So every
// span of segments `first` to `last` is measured once, on its own.
struct SpanUnit {
  FpSegments segments;  ///< the model's unit: its name and places
  std::string block;    ///< the unit block whose sources it needs
  bool add = false;     ///< oasis_fp_add_staged, else oasis_fp_mul_staged
  FpFormat result;
  FpFormat operand;  ///< both operands' format
};

// The logic of the worst path of a report_checks report: its arrival less the time its
// startpoint's output is reached (the input delay, or a register's clock-to-output).
double path_logic(const std::string& report, const fs::path& file) {
  std::istringstream in(report);
  std::string line;
  double start = -1, arrival = -1;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::vector<std::string> w;
    for (std::string x; f >> x;) w.push_back(x);
    if (start < 0 && w.size() >= 4 && (w.back() == "(in)" || w[w.size() - 2].ends_with("/Q"))) {
      start = std::stod(w[1]);
    }
    if (arrival < 0 && line.find("data arrival time") != std::string::npos) {
      arrival = std::stod(w[0]);
    }
  }
  if (start < 0 || arrival < 0) {
    throw ToolError(fmt::format("OpenSTA gave no path in {}", file.string()));
  }
  return arrival - start;
}

int fp_spans(const Options& o, const fs::path& out, Measurement& m) {
  m.config = load_config(o.config_path, o.overrides);
  fs::create_directories(out / "work");
  const Fo4 fo4 = measure_fo4(m.tech, m.tools, out / "work" / "fo4");
  m.c.period = o.period_fo4 * fo4.delay;
  m.c.activity = o.activity;
  m.c.io_budget = o.io_budget;
  const double unit_ns = m.tech.lib.time_unit_seconds() * 1e9;
  std::printf("ppa: FO4 = %.4f ns; spans of the floating-point units at %.0f FO4\n",
              fo4.delay * unit_ns, o.period_fo4);
  std::fflush(stdout);
  const Variant full = generate_variant(o.config_path, o.overrides, out / "rtl", "full", {});
  const FpFormat half{5, 10}, single{8, 23};
  const std::vector<SpanUnit> units = {
      {fp_add_segments(half), "fp16_add", true, half, half},
      {fp_add_segments(single), "fp32_add", true, single, single},
      {fp_mul_segments(half), "fp16_mul", false, half, half},
      {fp_mul_segments(single), "fp32_mul", false, single, single},
      {fp_mul_segments(single, half, half), "fp32_mul_fp16_fp16", false, single, half}};
  const fs::path rtl = out / "spans";
  fs::create_directories(rtl);
  json result = json::array();
  std::string md = fmt::format(
      "# The floating-point units' spans\n\nOpenSTA on {}, FO4 = {:.4f} ns, abc's delay target "
      "{:.0f} FO4: the logic from the start of segment `first` to the end of segment `last` "
      "(rows: first; columns: last), FO4.\n",
      m.tech.lib.name, fo4.delay * unit_ns, o.period_fo4);
  for (const SpanUnit& u : units) {
    const int places = u.segments.places();
    const int segments = places + 1;
    std::string params =
        fmt::format(".ExpBits({}), .FracBits({})", u.result.exp_bits, u.result.frac_bits);
    if (u.operand.width() != u.result.width()) {
      for (const char* x : {"A", "B"}) {
        params += fmt::format(", .{0}ExpBits({1}), .{0}FracBits({2})", x, u.operand.exp_bits,
                              u.operand.frac_bits);
      }
    }
    std::vector<std::vector<double>> span(size_t(segments), std::vector<double>(segments, 0));
    std::vector<std::string> sources = block_sources(full, u.block);
    sources.pop_back();  // the unit block's own module
    for (const std::string& f : sources) {
      fs::copy_file(full.dir / f, rtl / f, fs::copy_options::overwrite_existing);
    }
    // No cut, one cut, two cuts.
    std::vector<std::vector<int>> masks = {{}};
    for (int p = 0; p < places; ++p) masks.push_back({p});
    for (int p = 0; p < places; ++p) {
      for (int q = p + 1; q < places; ++q) masks.push_back({p, q});
    }
    for (const std::vector<int>& cut : masks) {
      unsigned mask = 0;
      for (int p : cut) mask |= 1u << p;
      const std::string top = fmt::format("oasis_span_{}_{}", u.block, mask);
      write_text(
          rtl / (top + ".sv"),
          fmt::format("// oasis-ppa --fp-spans: {} with registers at places {:#x}\n"
                      "`default_nettype none\n"
                      "module {} (\n"
                      "  input  logic clk_i, input logic rst_ni, input logic valid_i,\n"
                      "  input  logic [{}:0] a_i, input logic [{}:0] b_i,{}\n"
                      "  output logic valid_o, output logic [{}:0] y_o\n);\n"
                      "  {} #({}, .Cuts({}'d{})) u_unit (\n"
                      "    .clk_i(clk_i), .rst_ni(rst_ni), .valid_i(valid_i),\n"
                      "    .valid_o(valid_o), .a_i(a_i), .b_i(b_i), {}\n  );\nendmodule\n"
                      "`default_nettype wire\n",
                      u.segments.unit, mask, top, u.operand.width() - 1, u.operand.width() - 1,
                      u.add ? " input logic sub_i," : "", u.result.width() - 1,
                      u.add ? "oasis_fp_add_staged" : "oasis_fp_mul_staged", params, places, mask,
                      u.add ? ".sub_i(sub_i), .sum_o(y_o)" : ".prod_o(y_o)"));
      BlockJob job;
      job.label = top;
      job.top = top;
      job.rtl_dir = rtl;
      job.sources = sources;
      job.sources.push_back(top + ".sv");
      const fs::path work = out / "work" / top;
      run_block(job, m.tech, m.tools, m.c, work, [&](const std::string& s) {
        std::printf("ppa: %s: %s\n", top.c_str(), s.c_str());
        std::fflush(stdout);
      });
      // The paths of each kind, from the flow's own constraints.
      std::string tcl;
      std::istringstream base(read_text(work / "sta.tcl"));
      for (std::string line; std::getline(base, line);) {
        if (line.starts_with("report_") || line.starts_with("set_power")) continue;
        tcl += line + "\n";
      }
      const std::vector<std::pair<std::string, std::string>> kinds = {
          {"in_out", "-from [all_inputs] -to [all_outputs]"},
          {"in_reg", "-from [all_inputs] -to [all_registers -data_pins]"},
          {"reg_reg", "-from [all_registers -clock_pins] -to [all_registers -data_pins]"},
          {"reg_out", "-from [all_registers -clock_pins] -to [all_outputs]"}};
      for (const auto& [kind, sel] : kinds) {
        tcl += fmt::format("report_checks -path_delay max -digits 4 {} > span_{}.rpt\n", sel, kind);
      }
      write_text(work / "spans.tcl", tcl);
      check_tool(
          run_tool({m.tools.sta, "-no_splash", "-exit", "spans.tcl"}, work / "spans.log", work),
          "OpenSTA", work / "spans.log");
      const auto logic = [&](const std::string& kind) {
        const fs::path f = work / ("span_" + kind + ".rpt");
        return path_logic(read_text(f), f) / fo4.delay;
      };
      if (cut.empty()) {
        span[0][size_t(places)] = logic("in_out");
      } else if (cut.size() == 1) {
        span[0][size_t(cut[0])] = logic("in_reg");
        span[size_t(cut[0] + 1)][size_t(places)] = logic("reg_out");
      } else {
        span[size_t(cut[0] + 1)][size_t(cut[1])] = logic("reg_reg");
      }
    }
    json rows = json::array();
    md += fmt::format("\n## {}\n\n| first \\ last |", u.segments.unit);
    for (int j = 0; j < segments; ++j) md += fmt::format(" {} |", j);
    md += "\n|---|";
    for (int j = 0; j < segments; ++j) md += "---:|";
    md += "\n";
    for (int i = 0; i < segments; ++i) {
      json row = json::array();
      md += fmt::format("| {} |", i);
      for (int j = 0; j < segments; ++j) {
        const double v = std::round(span[size_t(i)][size_t(j)] * 10) / 10;
        if (j >= i) row.push_back(v);
        md += j >= i ? fmt::format(" {:.1f} |", v) : " |";
      }
      rows.push_back(row);
      md += "\n";
    }
    result.push_back({{"unit", u.segments.unit}, {"spans_fo4", rows}});
  }
  write_text(out / "fp_spans.json", json({{"library", m.tech.lib.name},
                                          {"fo4_ns", fo4.delay * unit_ns},
                                          {"abc_delay_target_fo4", o.period_fo4},
                                          {"units", result}})
                                            .dump(2) +
                                        "\n");
  write_text(out / "fp_spans.md", md);
  std::printf("ppa: wrote %s\n", (out / "fp_spans.md").string().c_str());
  return 0;
}

// Every measured block's figures, the sliced ones extrapolated, the PE line and the large core
// composed (docs/ppa.md, "Scaled figures").
json assemble(const Measurement& m) {
  const Config& config = m.config;
  const std::map<std::string, json>& measured = m.measured;
  const std::vector<PlannedBlock>& plan = m.plan;
  const Variant& full = m.full;
  const std::vector<std::string>& order = m.order;
  const bool large = m.large;

  // Per-block figures, scaled where needed.
  json results = json::object();
  for (const auto& p : plan) {
    if (p.block == "core" || !p.slice) {
      // A block measured whole is its run (a variant's, the PE line with the other codebooks,
      // under its run's label, with its products a cycle).
      if (p.block == "core") continue;
      json& r = results[p.runs[0].label] = measured.at(p.runs[0].label);
      if (p.block == "axi") {
        r["note"] = "the AXI wrapper alone: the core a black box, measured on its own";
      }
      if (p.runs[0].label != p.block) {
        const Variant& v = p.runs[0].variant;
        r["products_per_cycle"] =
            figure(v, "pe_line", "channels") / figure(v, "pe_line", "row_interval_cycles");
      }
      continue;
    }
    if (p.block == "pe_line") continue;  // after the Index Counter array
    const SliceFigures x = slice_figures(p, full);
    results[p.block] =
        extrapolate(measured.at(p.runs[0].label), measured.at(p.runs[1].label), x.l, x.l1, x.l2,
                    x.f, x.f1, x.f2, slice_note("runs", *p.slice, x, "timing"));
  }
  for (const auto& p : plan) {
    if (p.block != "pe_line" || !p.slice) continue;
    const json& line1 = measured.at(p.runs[0].label);
    json r = add_growth(
        line1, results.at("index_counter_array"),
        measured.at("index_counter_array_index_counters_1"),
        fmt::format("run of the line with index_counters = 1, plus the Index Counter array at {} "
                    "counters (itself extrapolated) less the array at 1 counter",
                    config.index_counters));
    if (line1.contains("parts")) {
      r["parts"] = line1["parts"];
      for (auto& part : r["parts"]) {
        if (part["module"].get<std::string>().ends_with("_index_counter_array")) {
          part["area_um2"] = results["index_counter_array"]["area_um2"]["total"];
          part["power_w"] = results["index_counter_array"]["power_w"]["total"];
        }
      }
    }
    // The buffers' bits are those of the whole line.
    r["memories"] = line1["memories"];
    results["pe_line"] = r;
  }
  if (std::find(order.begin(), order.end(), "core") != order.end()) {
    if (large) {
      const json& glue = measured.at("core_glue");
      results["core"] = compose(
          glue, {{results.at("pe_line"), config.pe_lines}, {results.at("orizuru"), 1}},
          fmt::format("the core synthesized with its PE lines and Orizuru as black boxes, plus {} "
                      "x pe_line and orizuru measured on their own",
                      config.pe_lines));
      results["core"]["parts"] = glue.contains("parts") ? glue["parts"] : json::array();
    } else {
      results["core"] = measured.at("core");
    }
  }
  return results;
}

// What the report reads: the measurement's figures beside the flow's settings.
ReportInputs report_inputs(const Options& o, const Measurement& m, json results) {
  const Config& config = m.config;
  const Variant& full = m.full;
  ReportInputs in;
  in.config = config.name;
  in.config_json = full.manifest.config();
  in.library = m.tech.lib.name;
  in.liberty = o.liberty;
  in.tools = m.versions;
  in.fo4 = m.fo4 * m.unit_ns;
  in.fo4_stages = m.fo4_stages;
  in.period_fo4 = o.period_fo4;
  in.period_ns = m.c.period * m.unit_ns;
  in.activity = o.activity;
  in.io_budget = o.io_budget;
  in.nand2_area = m.tech.lib.cell(m.tech.nand2).area;
  in.sram_um2_per_bit = o.sram_um2_per_bit;
  in.blocks = results;
  in.manifest = full.manifest.json().at("blocks");
  in.max_channels = o.max_channels;
  if (o.workload) {
    in.workload = o.spec.activations.empty() && o.spec.weights.empty()
                      ? fmt::format(
                            "the seeded synthetic LLM-like layer quantized by the model, "
                            "seed {}",
                            o.spec.seed)
                      : fmt::format("activations {}, weights {}",
                                    o.spec.activations.empty() ? "synthetic" : o.spec.activations,
                                    o.spec.weights.empty() ? "synthetic" : o.spec.weights);
  } else if (!o.activity_file.empty()) {
    in.workload = "the activity file " + o.activity_file;
  }
  return in;
}

int run(int argc, char** argv) {
  int status = -1;
  const Options o = parse(argc, argv, status);
  if (status >= 0) return status;

  Measurement m = check_inputs(o);
  std::vector<std::string> only = selected_blocks(o.blocks);
  const fs::path out = o.out.empty() ? fs::path(o.build) / "ppa" / m.config.name : fs::path(o.out);
  claim_output_folder(out, "oasis-ppa", "--out");
  if (o.fp_spans) return fp_spans(o, out, m);
  if (!o.sweep_periods.empty()) return sweep(o, only, out, m);
  if (o.three_ways) {
    // The three lines, and the Index Counter array a sliced PE line is composed with.
    only = {"pe_line", "mac_line_baseline", "woq_lut_line_baseline"};
    const LineTiming line = derive(m.config).pe_line;
    if (m.config.channels > o.max_channels && !line.streamed_counting && !line.wib_sram) {
      only.push_back("index_counter_array");
    }
  }
  // The source's commit as the run starts, before its RTL is generated.
  const std::string commit = source_commit(o.source);
  measure(o, only, out, m);
  if (o.three_ways) {
    const ReportInputs in = report_inputs(o, m, assemble(m));
    // The run first: what docs/results.md names the table by (sim/ppa/results.hpp).
    json t = {
        {"run", three_ways_run(in.config, o.overrides, in.library, in.period_fo4, in.period_ns,
                               in.workload.empty() ? "power vectorless only" : in.workload,
                               o.command, commit)}};
    t.update(three_ways(in));
    write_text(out / "three_ways.json", t.dump(2) + "\n");
    write_text(out / "three_ways.md",
               fmt::format("# The three lines of config `{}` at {:.0f} FO4 in {}\n", in.config,
                           in.period_fo4, in.library) +
                   three_ways_md(t, in));
    std::printf("ppa: wrote %s\n", (out / "three_ways.md").string().c_str());
    return 0;
  }
  if (!only.empty()) {
    std::printf("ppa: --blocks given: only those measured, no report written\n");
    return 0;
  }
  write_report(report_inputs(o, m, assemble(m)), out, o.plots);
  std::printf("ppa: wrote %s and %s\n", (out / "ppa.md").string().c_str(),
              (out / "ppa.json").string().c_str());
  return 0;
}

}  // namespace oasis_ppa_command

int oasis::commands::oasis_ppa(int argc, char** argv) {
  using namespace oasis_ppa_command;
  return oasis::ppa::command_main("oasis-ppa", [&] { return run(argc, argv); });
}
