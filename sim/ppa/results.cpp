// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "model/config.hpp"
#include "model/perf/perf.hpp"
#include "model/perf/system.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const char* const kResultsMark =
    "<!-- Written by `make results` (oasis-results) from docs/results.json; edit neither by "
    "hand. -->";

std::string source_commit(const fs::path& source) {
  // The folder as one shell word: in single quotes, each of its own quotes closed, escaped and
  // reopened (docs/paths.md: a path may hold apostrophes).
  std::string word = "'";
  for (const char ch : source.string())
    word += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  word += "'";
  const std::string cmd = fmt::format("git -C {} describe --always --dirty 2>/dev/null", word);
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) return "";
  std::array<char, 128> buf{};
  std::string out;
  while (fgets(buf.data(), int(buf.size()), p.get())) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

json three_ways_run(const std::string& config, const std::vector<std::string>& sets,
                    const std::string& library, double period_fo4, double period_ns,
                    const std::string& workload, const std::string& command,
                    const std::string& commit) {
  return {{"config", config},         {"sets", sets},           {"library", library},
          {"period_fo4", period_fo4}, {"period_ns", period_ns}, {"workload", workload},
          {"command", command},       {"commit", commit}};
}

namespace {

// OASIS against the FIGLUT-class accelerator on the paper config (docs/system.md): one token a
// step through every model of configs/models/, each memory, the paper's 500 MHz; the
// geometric mean over the models, as make report's verdict gives it.
json system_figures(const ResultsInputs& in) {
  const fs::path s = in.source;
  const Config cfg = load_config((s / "configs/paper.json").string());
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(s / "configs/models")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<ModelShape> models;
  json names = json::array();
  for (const fs::path& f : files) {
    models.push_back(load_model_shape(f.string()));
    names.push_back(models.back().name);
  }
  const std::string energy_file = "configs/energy/osu018.json";
  const EnergySpec energy = load_energy((s / energy_file).string());
  const auto geomean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += std::log(x);
    return std::exp(sum / double(v.size()));
  };
  json rows = json::array();
  for (const char* mem : {"hbm2", "ddr4", ""}) {
    SystemOptions o;
    o.clock_hz = 500e6;
    const std::string mem_file = *mem ? fmt::format("configs/memory/{}.json", mem) : "";
    if (*mem) o.memory = load_memory((s / mem_file).string());
    std::vector<double> speedup, speedup_area, energy_ratio;
    for (const ModelShape& model : models) {
      const DesignRun ours = oasis_run(cfg, model, 1, energy, o);
      const DesignRun paper =
          figlut_run(cfg, model, 1, figlut_lines(cfg, energy, Sizing::kPaperConfig), energy, o);
      const DesignRun area =
          figlut_run(cfg, model, 1, figlut_lines(cfg, energy, Sizing::kEqualArea), energy, o);
      speedup.push_back(double(paper.cycles) / double(ours.cycles));
      speedup_area.push_back(double(area.cycles) / double(ours.cycles));
      energy_ratio.push_back(paper.energy.total() / ours.energy.total());
    }
    rows.push_back({{"memory", *mem ? o.memory.name : "unlimited (compute only)"},
                    {"memory_file", mem_file},
                    {"speedup", geomean(speedup)},
                    {"speedup_equal_area", geomean(speedup_area)},
                    {"energy_ratio", geomean(energy_ratio)}});
  }
  return {{"config", cfg.name},
          {"models", names},
          {"tokens", 1},
          {"clock_mhz", 500},
          {"energy_file", energy_file},
          {"command", in.command},
          {"commit", in.commit},
          {"paper", {{"speedup", 3.00}, {"energy_ratio", 1.44}}},
          {"rows", rows}};
}

}  // namespace

json collect_results(const ResultsInputs& in) {
  json r;
  r["written_by"] = "oasis-results";
  json tw = json::array();
  for (const fs::path& f : in.three_ways) {
    json t;
    try {
      t = json::parse(read_text(f));
    } catch (const std::exception& e) {
      throw UsageError(
          fmt::format("{}: not a three_ways.json of oasis-ppa ({})", f.string(), e.what()));
    }
    if (!t.contains("run") || !t.contains("lines") || t["lines"].size() < 2) {
      throw UsageError(
          fmt::format("{}: no run and lines in it; allowed: the three_ways.json that oasis-ppa "
                      "--three-ways writes (run it again: it reuses what it measured)",
                      f.string()));
    }
    tw.push_back(t);
  }
  r["three_ways"] = tw;
  r["system"] = system_figures(in);
  return r;
}

namespace {

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

// Prose lines wrapped at 100 columns, as the other pages are; tables, headings and the mark
// left whole.
std::string wrapped(const std::string& md) {
  std::string out, line;
  std::istringstream in(md);
  while (std::getline(in, line)) {
    const bool prose = !line.empty() && line[0] != '|' && line[0] != '#' && line[0] != '<';
    while (prose && line.size() > 100) {
      size_t cut = line.rfind(' ', 100);
      if (cut == std::string::npos || cut == 0) cut = line.find(' ', 100);
      if (cut == std::string::npos) break;
      out += line.substr(0, cut) + "\n";
      line = line.substr(cut + 1);
    }
    out += line + "\n";
  }
  return out;
}

std::string three_ways_section(const json& t) {
  const json& run = t["run"];
  std::string sets;
  for (const auto& x : run["sets"]) sets += " --set " + x.get<std::string>();
  std::string md = fmt::format(
      "\n## The three ways at config `{}`{}, {:.0f} FO4\n\n"
      "`{}` at commit {}; {} at {:.3f} ns; {}.\n\n",
      run["config"].get<std::string>(), sets.empty() ? "" : " (" + sets.substr(1) + ")",
      run["period_fo4"].get<double>(), run["command"].get<std::string>(),
      run["commit"].get<std::string>(), run["library"].get<std::string>(),
      run["period_ns"].get<double>(), run["workload"].get<std::string>());
  md +=
      "| line | area M um2 | logic M um2 | products a cycle | pJ a product, activity | pJ a "
      "product, vectorless | products a cycle per mm2 | meets the clock |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const json& l : t["lines"]) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", l["name"].get<std::string>(),
                      fixed(l["area_um2"].get<double>() / 1e6, 2),
                      fixed(l["logic_um2"].get<double>() / 1e6, 2),
                      fixed(l["products_per_cycle"].get<double>(), 0),
                      l.contains("activity_energy_per_product_pj")
                          ? fixed(l["activity_energy_per_product_pj"].get<double>(), 1)
                          : "-",
                      fixed(l["energy_per_product_pj"].get<double>(), 1),
                      fixed(l["products_per_cycle_per_mm2"].get<double>(), 2),
                      l["met"].get<bool>() ? "yes" : "no");
  }
  return md;
}

}  // namespace

std::string results_markdown(const json& r) {
  std::string md = std::string(kResultsMark) + "\n# Results: the headline figures\n\n";
  md +=
      "What the project's tools measured, each table with the run that made it. `make results` "
      "collects them from the build folder's `oasis-ppa --three-ways` runs and computes the "
      "system figures, writing docs/results.json and this page from it "
      "(`Results.ThePageIsItsJsonRendered` checks that they agree). How the figures are made: "
      "docs/ppa.md, docs/woq_lut_line.md, docs/system.md.\n";
  for (const json& t : r["three_ways"]) md += three_ways_section(t);
  const json& s = r["system"];
  std::string models;
  for (const auto& m : s["models"]) models += (models.empty() ? "" : ", ") + m.get<std::string>();
  md += fmt::format(
      "\n## OASIS against the FIGLUT-class accelerator, whole models\n\n"
      "The system model (docs/system.md) on config `{}`, {} token a step, {} MHz, the lines' "
      "energies from {}; the geometric mean over {}. FIGLUT-class lines as many as PE lines "
      "(and, for the second speedup, as many as fit the PE lines' area). `{}` at commit {}. The "
      "paper claims {:.2f}x speedup and {:.2f}x energy efficiency over FIGLUT.\n\n"
      "| memory | OASIS speedup | at equal area | FIGLUT-class energy / OASIS |\n"
      "| --- | ---: | ---: | ---: |\n",
      s["config"].get<std::string>(), s["tokens"].get<int>(), s["clock_mhz"].get<int>(),
      s["energy_file"].get<std::string>(), models, s["command"].get<std::string>(),
      s["commit"].get<std::string>(), s["paper"]["speedup"].get<double>(),
      s["paper"]["energy_ratio"].get<double>());
  for (const json& x : s["rows"]) {
    md += fmt::format("| {} | {}x | {}x | {}x |\n", x["memory"].get<std::string>(),
                      fixed(x["speedup"].get<double>(), 3),
                      fixed(x["speedup_equal_area"].get<double>(), 3),
                      fixed(x["energy_ratio"].get<double>(), 3));
  }
  return wrapped(md);
}

}  // namespace oasis::ppa
