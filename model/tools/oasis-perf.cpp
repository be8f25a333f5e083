// SPDX-License-Identifier: Apache-2.0
// oasis-perf: the performance model of the generated core (model/perf/perf.hpp,
// docs/perf.md) from the command line. Subcommands: layer (one layer of N
// rows for M tokens), model (a model's linear layers from
// configs/models/<model>.json) and report (the Markdown report of make report
// with its gnuplot data and scripts; tools/report.sh draws the PNGs).
// Any bad argument, config or file: one message on stderr, exit status 2,
// nothing written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/perf/analyze.hpp"
#include "model/perf/perf.hpp"
#include "model/perf/system.hpp"
#include "model/tools/cli.hpp"
#include "model/tools/perf_system.hpp"
#include "tools/commands.hpp"

namespace oasis_perf_command {

using namespace oasis;
namespace fs = std::filesystem;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Common {
  std::string config;
  std::vector<std::string> overrides;
  int tokens = 1;
  double bandwidth = 0;
  double clock_mhz = 1000;
};

void add_common(CLI::App* app, Common& c) {
  app->add_option("--config", c.config, "JSON config, as oasis-gen reads it")->required();
  app->add_option("--set", c.overrides, "override a config field: key=value (repeatable)");
  app->add_option("--tokens", c.tokens,
                  "M: tokens streamed back to back, each re-streaming "
                  "the weights")
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--bandwidth", c.bandwidth,
                  "weight-memory bytes a cycle (0 = unlimited); a group of P rows is "
                  "ceil(P*K*nW/8) + 2P bytes");
}

void check_bandwidth(double b, const std::string& what) {
  if (!std::isfinite(b) || b < 0) {
    throw UsageError(
        fmt::format("{} {}: a finite number of bytes a cycle, > 0, or 0 for "
                    "unlimited",
                    what, b));
  }
}

std::string fmt_bw(double b) { return b > 0 ? fmt::format("{:g} B/cycle", b) : "unlimited"; }

nlohmann::ordered_json layer_json(const LayerPerf& L) {
  const TokenFigures& f = L.token;
  nlohmann::ordered_json j;
  j["rows"] = L.rows;
  j["tokens"] = L.tokens;
  j["bytes_per_cycle"] = L.bytes_per_cycle;
  j["cycles"] = L.cycles;
  j["cycles_per_token"] = L.cycles_per_token();
  j["token_period"] = L.token_period;
  j["bound"] = phase_name(L.bound);
  j["phases"] = {{"clustering", f.clustering},
                 {"orizuru_build", f.orizuru_build},
                 {"error_calculation", f.error_calculation},
                 {"preprocess", f.preprocess},
                 {"groups", f.groups},
                 {"fill_beats", f.fill_beats},
                 {"count_beats", f.count_beats},
                 {"chunks", f.chunks},
                 {"outlier_cycles", f.outlier_cycles},
                 {"memory_cycles", f.memory_cycles},
                 {"group_bytes", f.group_bytes},
                 {"row_interval", f.row_interval},
                 {"interval_bound", phase_name(f.interval_bound)},
                 {"row_latency", f.row_latency},
                 {"main_branch", f.main_branch},
                 {"outlier_branch", f.outlier_branch},
                 {"gemm", f.gemm},
                 {"drain", f.drain}};
  j["exposed"] = {
      {"preprocess", L.exposed_preprocess}, {"rows", L.exposed_rows}, {"drain", L.exposed_drain}};
  j["last_output"] = L.last_output;
  return j;
}

// The FIGLUT-class line beside the core's PE lines (docs/woq_lut_line.md): one at each PE
// line's throughput, on the rows a line takes, ceil(N / P).
WoqLutLayerPerf woq_lines(const Config& c, const LayerPerf& L) {
  return woq_lut_layer_perf(c, (L.rows + c.pe_lines - 1) / c.pe_lines, L.tokens);
}

nlohmann::ordered_json woq_json(const WoqLutLayerPerf& w) {
  return {{"rows_per_line", w.rows},      {"batches", w.batches},
          {"batch_beats", w.batch_beats}, {"load_cycles", w.load_cycles},
          {"row_latency", w.row_latency}, {"token_period", w.token_period},
          {"last_output", w.last_output}, {"cycles", w.cycles}};
}

std::string layer_text(const Config& c, const LayerPerf& L) {
  const TokenFigures& f = L.token;
  std::string s;
  s += fmt::format("config {}: K = {}, k = {}, P = {}, {} rows, {} token(s), bandwidth {}\n",
                   c.name, c.channels, c.outliers_per_side, c.pe_lines, L.rows, L.tokens,
                   fmt_bw(L.bytes_per_cycle));
  s += fmt::format(
      "pre-processing {} cycles: clustering {}, Orizuru build {}, error calculation {}\n",
      f.preprocess, f.clustering, f.orizuru_build, f.error_calculation);
  s += fmt::format(
      "GEMM phase {} cycles: {} groups x row interval {} ({}; weight stream {}, index counting "
      "{}, MAC tree {}, outlier branch {}, memory {}), drain {}\n",
      f.gemm, f.groups, f.row_interval, phase_name(f.interval_bound), f.fill_beats, f.count_beats,
      f.chunks, f.outlier_cycles, f.memory_cycles, f.drain);
  s += fmt::format("main branch busy {} cycles, outlier branch busy {} cycles\n", f.main_branch,
                   f.outlier_branch);
  s += fmt::format(
      "layer {} cycles ({:.1f} a token; a token every {} cycles back to back), "
      "bound by {}\n",
      L.cycles, L.cycles_per_token(), L.token_period, phase_name(L.bound));
  const WoqLutLayerPerf w = woq_lines(c, L);
  const WoqLutTiming& t = derive(c).woq_lut_line_baseline;
  s += fmt::format(
      "FIGLUT-class LUT line at a PE line's throughput, one a PE line: {} rows a line in {} "
      "cycles ({} batch(es) of {} rows, {} beats each; a token loaded in {} cycles)\n",
      w.rows, w.cycles, w.batches, t.rows, w.batch_beats, w.load_cycles);
  return s;
}

Config load(const Common& c) {
  check_bandwidth(c.bandwidth, "--bandwidth");
  return load_config(c.config, c.overrides);
}

int run_layer(const Common& c, int64_t rows, bool json) {
  const Config cfg = load(c);
  const LayerPerf L = layer_perf(cfg, rows, PerfOptions{c.tokens, c.bandwidth});
  if (json) {
    nlohmann::ordered_json j = layer_json(L);
    j["woq_lut_line"] = woq_json(woq_lines(cfg, L));
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", layer_text(cfg, L));
  }
  return 0;
}

std::string model_table(const Config& cfg, const ModelShape& shape, int tokens, double bw,
                        double clock_mhz) {
  const ModelPerf m = model_perf(cfg, shape, PerfOptions{tokens, bw});
  std::string s = fmt::format(
      "| layer | K | N | k | cycles a token | a token every | bound |\n"
      "|---|---:|---:|---:|---:|---:|---|\n");
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerPerf& L = m.layers[i];
    s += fmt::format("| {} | {} | {} | {} | {:.1f} | {} | {} |\n", shape.linear[i].name,
                     shape.linear[i].in, shape.linear[i].out, m.configs[i].outliers_per_side,
                     L.cycles_per_token(), L.token_period, phase_name(L.bound));
  }
  s += fmt::format(
      "\n{} decoder layers: {} cycles for {} token(s), {:.1f} cycles a token, "
      "{:.2f} tokens/s at {:g} MHz (linear layers only)\n",
      shape.layers, m.model_cycles, tokens, double(m.model_cycles) / double(tokens),
      m.tokens_per_second(clock_mhz * 1e6, tokens), clock_mhz);
  return s;
}

int run_model(const Common& c, const std::string& model) {
  const Config cfg = load(c);
  const ModelShape shape = load_model_shape(model);
  fmt::print("{} on config {} ({} token(s), bandwidth {}):\n\n{}", shape.name, cfg.name, c.tokens,
             fmt_bw(c.bandwidth), model_table(cfg, shape, c.tokens, c.bandwidth, c.clock_mhz));
  return 0;
}

// ---------------------------------------------------------------------------
// The report: report.md, *.dat and *.gp in one folder.

struct ReportArgs {
  std::string out;
  std::string models = "configs/models";
  std::string synth;
  int batch = 4;
  double limit = 1024;
  std::string energy;                 ///< the system section's energy file, if given
  std::vector<std::string> memories;  ///< and its memories
};

// ---------------------------------------------------------------------------
// oasis-perf system: one model on OASIS and on the FIGLUT-class accelerator (docs/system.md).

struct SystemArgs {
  std::string model, memory, energy = "configs/energy/osu018.json", sizing = "paper";
  bool arc_weighted = false;
};

int run_system(const Common& c, const SystemArgs& a) {
  const Config cfg = load(c);
  if (!(c.clock_mhz > 0) || !std::isfinite(c.clock_mhz)) {
    throw UsageError(fmt::format("--clock-mhz {}: a positive number", c.clock_mhz));
  }
  if (a.sizing != "paper" && a.sizing != "equal-area") {
    throw UsageError(fmt::format("--sizing {}: allowed: paper, equal-area", a.sizing));
  }
  const ModelShape shape = load_model_shape(a.model);
  const EnergySpec e = load_energy(a.energy);
  SystemOptions o;
  o.clock_hz = c.clock_mhz * 1e6;
  o.memory = a.memory.empty() ? unlimited_memory() : load_memory(a.memory);
  o.arc_weighted = a.arc_weighted;
  fmt::print("{}", perf_system::run_text(
                       cfg, shape, c.tokens, e,
                       a.sizing == "paper" ? Sizing::kPaperConfig : Sizing::kEqualArea, o));
  return 0;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream o(p);
  o << text;
  if (!o) throw UsageError(fmt::format("{}: cannot be written", p.string()));
}

std::string gp_header(const std::string& png, int w, int h) {
  return fmt::format(
      "set terminal pngcairo size {},{} font 'sans,10'\nset output '{}'\n"
      "set grid\n",
      w, h, png);
}

std::vector<ModelShape> load_models(const std::string& dir) {
  if (!fs::is_directory(dir)) {
    throw UsageError(fmt::format("--models {}: not a folder of model files", dir));
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError(fmt::format("--models {}: no .json model files", dir));
  std::vector<ModelShape> out;
  for (const auto& f : files) out.push_back(load_model_shape(f.string()));
  return out;
}

// (1) The pipeline of one 1 x 4096 x 4096 GEMM: its phases as bars, pipeline.dat and .gp.
void write_pipeline_bars(const Config& cfg, const Config& g, const LayerPerf& L,
                         const fs::path& tmp) {
  const TokenFigures& f = L.token;
  const int64_t fw = L.first_weight[0];
  const int64_t start = fw + f.fill_beats;  // the first row starts after its group's beats
  struct Bar {
    std::string name;
    int64_t from, to;
  };
  const int64_t pre_from = std::max(f.clustering, f.orizuru_build);
  const std::vector<Bar> bars = {
      {"clustering", 0, f.clustering},
      {"Orizuru build", 0, f.orizuru_build},
      {"error calculation", pre_from, f.preprocess},
      {"weight stream", fw, fw + (f.groups - 1) * f.row_interval + f.fill_beats},
      {"main branch", start, start + f.main_branch},
      {"outlier branch", start, start + f.outlier_branch},
      {"drain", fw + f.groups * f.row_interval, L.last_output[0] + 1},
  };
  std::string dat;
  for (size_t i = 0; i < bars.size(); ++i) {
    // Short bars get their label beside them: to their left, or to their
    // right near the start of the axis.
    const int place = 12 * (bars[i].to - bars[i].from) >= L.cycles ? 0
                      : 4 * bars[i].from > L.cycles                ? 1
                                                                   : 2;
    dat += fmt::format("{} {} {} \"{}\" \"{} ({})\" {}\n", bars.size() - i, bars[i].from,
                       bars[i].to, bars[i].name, bars[i].name, bars[i].to - bars[i].from, place);
  }
  write_file(tmp / "pipeline.dat", dat);
  std::string gp = gp_header("pipeline.png", 1000, 420);
  gp += fmt::format(
      "set title \"1 x 4096 x 4096 GEMM on {} (K = 4096, k = {}): {} cycles, first token beat "
      "to last output\"\n"
      "set xlabel 'cycle'\nset xrange [0:*]\nset yrange [0.3:{}.7]\nset ytics ()\nunset key\n"
      "set style fill solid 0.8 border -1\n"
      "plot 'pipeline.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.35):yticlabels(4) with "
      "boxxyerror lc rgb '#4a7ab5', '' using ($6 == 0 ? ($2+$3)/2 : NaN):1:5 with labels "
      "font 'sans,9' tc rgb 'black', '' using ($6 == 1 ? $2 : NaN):1:5 with labels right "
      "offset -1,0 font 'sans,9' tc rgb 'black', '' using ($6 == 2 ? $3 : NaN):1:5 with "
      "labels left offset 1,0 font 'sans,9' tc rgb 'black'\n",
      cfg.name, g.outliers_per_side, L.cycles, bars.size());
  write_file(tmp / "pipeline.gp", gp);
}

void write_pipeline_rows(const LayerPerf& L, const fs::path& tmp) {
  const TokenFigures& f = L.token;
  const int64_t fw = L.first_weight[0];
  // The first groups' rows, from derive(config).pe_line: a group's beats, then each
  // line's row counts (index counting), reduces (MAC tree) and, in parallel,
  // compensates its 2k outliers (outlier branch); one group every I cycles.
  const int shown = int(std::min<int64_t>(4, f.groups));
  std::string rows_dat;
  for (int gi = 0; gi < shown; ++gi) {
    const int64_t w0 = fw + gi * f.row_interval, r0 = w0 + f.fill_beats;
    const int64_t c1 = r0 + f.count_beats;
    const std::pair<int64_t, int64_t> spans[] = {
        {w0, r0}, {r0, c1}, {c1 + 1, c1 + 1 + f.chunks}, {r0, r0 + f.outlier_cycles}};
    for (int k = 0; k < 4; ++k) {
      rows_dat += fmt::format("{} {} {} \"g{} ({})\"\n", 4 - k, spans[k].first, spans[k].second, gi,
                              spans[k].second - spans[k].first);
    }
  }
  write_file(tmp / "pipeline_rows.dat", rows_dat);
  std::string rgp = gp_header("pipeline_rows.png", 1000, 300);
  rgp += fmt::format(
      "set title \"The first {} groups of rows (g0, g1, ...; cycles in parentheses), one "
      "group every {} cycles\"\n"
      "set xlabel 'cycle'\nset yrange [0.3:4.7]\nunset key\n"
      "set ytics ('weight stream' 4, 'main: index counting' 3, 'main: MAC tree' 2, "
      "'outlier branch' 1)\nset style fill solid 0.8 border -1\n"
      "plot 'pipeline_rows.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.35) with boxxyerror "
      "lc rgb '#6aa06a', '' using (($2+$3)/2):1:4 with labels font 'sans,8'\n",
      shown, f.row_interval);
  write_file(tmp / "pipeline_rows.gp", rgp);
}

void report_pipeline(const Config& cfg, const fs::path& tmp, std::string& md) {
  std::fprintf(stderr, "report: pipeline of 1 x 4096 x 4096\n");
  const Config g = cfg.channels == 4096 ? cfg : with_channels(cfg, 4096);
  const LayerPerf L = layer_perf(g, 4096, PerfOptions{1, 0});
  const TokenFigures& f = L.token;
  write_pipeline_bars(cfg, g, L, tmp);
  write_pipeline_rows(L, tmp);
  md += "## 1. The pipeline of one 1 x 4096 x 4096 GEMM (paper Fig. 14)\n\n";
  md += fmt::format(
      "![pipeline](pipeline.png)\n\n![rows](pipeline_rows.png)\n\nOne token after an idle core, "
      "every stream unthrottled "
      "(cycle 0: its first beat taken). Pre-processing {} cycles: clustering {} (4096 "
      "activations at {} a cycle), Orizuru build {}, then the error calculation of the 2k = {} "
      "outliers {}. The token's context is switched in at cycle {} and its first weight beat "
      "is taken at cycle {}. {} groups of {} rows at one group every {} cycles (bound: {}; "
      "weight stream {}, index counting {}, MAC tree {}, outlier branch {} cycles a row). "
      "**Main branch {} cycles, outlier branch {} cycles** (each branch's own work, {} rows a "
      "line x {} and x {}): the outlier branch finishes **{:.0f} % sooner** and waits in the "
      "output stage for the main branch (second plot: each group's rows, from the line's timing "
      "in docs/pe_line.md; the main branch counts, then reduces, while the next group's beats "
      "arrive). Drain (the last group's beats and the last row's "
      "latency) {} cycles. GEMM phase {} cycles against docs/spec.md section 6's bound of {}; "
      "the whole token {} cycles.\n\n",
      f.preprocess, f.clustering, g.clustering_lanes, f.orizuru_build, 2 * g.outliers_per_side,
      f.error_calculation, L.first_weight[0] - 1, L.first_weight[0], f.groups, g.pe_lines,
      f.row_interval, phase_name(f.interval_bound), f.fill_beats, f.count_beats, f.chunks,
      f.outlier_cycles, f.main_branch, f.outlier_branch, f.groups,
      std::max(f.count_beats, f.chunks), f.outlier_cycles,
      100.0 * double(f.main_branch - f.outlier_branch) / double(f.main_branch), f.drain, f.gemm,
      derive(g).gemm_lower_bound(4096), L.cycles);
}

// The plot of the outlier sweep: each picked model's relative throughput, and the branches'
// cycles a row.
void write_outliers_plot(const std::vector<const ModelShape*>& picked, const fs::path& tmp) {
  std::string gp = gp_header("outliers.png", 900, 420);
  gp +=
      "set multiplot layout 1,2\n"
      "set title 'Throughput against outlier fraction (M = 1)'\n"
      "set xlabel 'outlier fraction 2k/K (%)'\nset ylabel 'throughput / throughput at 0.5 %'\n"
      "set yrange [0:1.1]\nset key bottom left\n";
  gp += "plot ";
  for (size_t i = 0; i < picked.size(); ++i) {
    gp += fmt::format(
        "{}'outliers.dat' using 1:{} with linespoints lw 2 dt {} pt {} ps 1.3 "
        "title '{}'",
        i ? ", " : "", 3 + i, 1 + i, 6 + i, picked[i]->name);
  }
  gp += fmt::format(
      "\nset title 'Cycles a row at K = 4096'\nset ylabel 'cycles a row'\nset yrange [0:*]\n"
      "set key top left\nplot 'outliers.dat' using 1:{} with linespoints lw 2 title 'main "
      "branch', '' using 1:{} with linespoints lw 2 title 'outlier branch'\nunset multiplot\n",
      3 + picked.size(), 4 + picked.size());
  write_file(tmp / "outliers.gp", gp);
}

// (2) Throughput against the outlier fraction.
void report_outliers(const Common& c, const Config& cfg, const std::vector<ModelShape>& models,
                     double hz, const fs::path& tmp, std::string& md) {
  const std::vector<double> fractions = {0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5,
                                         3.0, 4.0,  5.0, 6.0,  7.0, 8.0,  9.0, 10.0};
  std::vector<const ModelShape*> picked;
  for (const auto& m : models) {
    if (m.name == "LLaMA-2-7B" || m.name == "Mistral-7B") picked.push_back(&m);
  }
  if (picked.empty()) picked.push_back(&models.front());
  std::string dat = "# fraction_percent k(K=4096)";
  for (const auto* m : picked) dat += " " + m->name;
  dat += " main_cycles_a_row outlier_cycles_a_row\n";
  std::map<const ModelShape*, double> base;
  std::map<double, double> rel;  // the first model's relative throughput
  int64_t main_row = 0;          // the main branch's cycles a row at K = 4096
  int comp_macs = cfg.comp_macs;
  std::string table = "| 2k/K | k at K = 4096 | main / outlier cycles a row (K = 4096) |";
  for (const auto* m : picked)
    table += fmt::format(" {} tokens/s | {} relative |", m->name, m->name);
  table += "\n|---:|---:|---|";
  for (size_t i = 0; i < picked.size(); ++i) table += "---:|---:|";
  table += "\n";
  int step = 0;
  for (const double f : fractions) {
    std::fprintf(stderr, "report: outlier sweep %d/%zu (%.2f %%)\n", ++step, fractions.size(), f);
    // k = ceil(f * K / 2) at K = config K; each layer scales it with its K.
    nlohmann::json j = to_json(cfg);
    j["outliers_per_side"] = int64_t(std::ceil(f / 100.0 * cfg.channels / 2.0 - 1e-9));
    const Config fc = parse_config(j, fmt::format("{} at {} % outliers", cfg.name, f));
    const Config f4096 = fc.channels == 4096 ? fc : with_channels(fc, 4096);
    const TokenFigures t = token_figures(f4096, 4096);
    dat += fmt::format("{} {}", f, f4096.outliers_per_side);
    table += fmt::format("| {:g} % | {} | {} / {} |", f, f4096.outliers_per_side,
                         std::max(t.count_beats, t.chunks), t.outlier_cycles);
    for (const auto* m : picked) {
      const double tps = model_perf(fc, *m, PerfOptions{1, 0}).tokens_per_second(hz, 1);
      if (!base.count(m)) base[m] = tps;
      if (m == picked.front()) rel[f] = tps / base[m];
      dat += fmt::format(" {:.6f}", tps / base[m]);
      table += fmt::format(" {:.2f} | {:.3f} |", tps, tps / base[m]);
    }
    dat += fmt::format(" {} {}\n", std::max(t.count_beats, t.chunks), t.outlier_cycles);
    main_row = std::max({t.count_beats, t.chunks, t.fill_beats});
    table += "\n";
  }
  write_file(tmp / "outliers.dat", dat);
  write_outliers_plot(picked, tmp);
  md += "## 2. Throughput against the outlier fraction (paper Fig. 15 b, c)\n\n";
  md += fmt::format(
      "![outliers](outliers.png)\n\nSingle-token decoding (M = 1, every linear layer of every "
      "decoder layer, weights unlimited), at {:g} MHz. The outlier fraction is 2k/K: k = "
      "ceil(f K / 2) at the config's K, and each layer scales k with its own K. The "
      "throughput stays flat while the main branch bounds the row interval and falls once the "
      "outlier branch (ceil(2k / Mc) cycles a row) takes over; the small steps before that are "
      "the error calculation (2k cycles a token), which the GEMM of a single token does not "
      "hide.\n\n{}\n",
      c.clock_mhz, table);
  // The outlier branch bounds the row once ceil(2k / Mc) exceeds the main
  // branch's cycles, i.e. from 2k = Mc * main + 1 (k whole).
  const int64_t k_over = comp_macs * main_row / 2 + 1;
  md += fmt::format(
      "Measured ({}, relative to 0.5 %): {:.3f} at 1 %, {:.3f} at 1.5 %, {:.3f} at 2 %, "
      "{:.3f} at 5 %, {:.3f} at 10 %. At K = 4096 the main branch needs {} cycles a row; the "
      "outlier branch, ceil(2k / {}) cycles, overtakes it from k = {} outliers a side "
      "(2k/K = {:.2f} %).\n\n",
      picked.front()->name, rel[1.0], rel[1.5], rel[2.0], rel[5.0], rel[10.0], main_row, comp_macs,
      k_over, 200.0 * double(k_over) / 4096.0);
}

// (3) LUT size and reduction FLOPs against K.
void report_lut(const Config& cfg, const fs::path& tmp, std::string& md) {
  std::fprintf(stderr, "report: LUT size and reduction FLOPs\n");
  const std::vector<int> ks = {1024, 2048, 4096, 5120, 8192, 11008, 13824, 16384, 28672};
  std::string dat = "# K oasis_lut woq_lut oasis_flops woq_flops (N = K, mu = 4)\n";
  std::string table =
      "| K = N | OASIS LUT entries | WOQ LUT entries (mu = 4) | OASIS reduction "
      "FLOPs | WOQ reduction FLOPs |\n|---:|---:|---:|---:|---:|\n";
  for (const int k : ks) {
    const Config kc = with_channels(cfg, k);
    const AnalyticFigures a = analyze(kc, k, 4, 1);
    dat += fmt::format("{} {} {} {} {}\n", k, a.lut_entries, a.woq_lut_entries, a.reduction_flops,
                       a.woq_reduction_flops);
    table += fmt::format("| {} | {} | {} | {} | {} |\n", k, a.lut_entries, a.woq_lut_entries,
                         a.reduction_flops, a.woq_reduction_flops);
  }
  write_file(tmp / "lut.dat", dat);
  std::string gp = gp_header("lut.png", 900, 400);
  gp +=
      "set multiplot layout 1,2\nset logscale y\nset format y '10^{%L}'\n"
      "set xlabel 'K (input channels; N = K, a q\\_proj layer)'\nset key bottom right\n"
      "set title 'LUT size'\nset ylabel 'LUT entries'\nset yrange [1:1e6]\n"
      "plot 'lut.dat' using 1:2 with linespoints lw 2 title 'OASIS (Cartesian product)', "
      "'' using 1:3 with linespoints lw 2 title 'WOQ LUT-GEMM (FIGLUT, mu = 4)'\n"
      "set title 'Reduction FLOPs'\nset ylabel 'FLOPs'\nset yrange [1e4:1e9]\n"
      "plot 'lut.dat' using 1:4 with linespoints lw 2 title 'OASIS', "
      "'' using 1:5 with linespoints lw 2 title 'WOQ LUT-GEMM (FIGLUT, mu = 4)'\n"
      "unset multiplot\n";
  write_file(tmp / "lut.gp", gp);
  md += "## 3. LUT size and reduction FLOPs against K (paper Fig. 16)\n\n";
  md += fmt::format(
      "![lut](lut.png)\n\nCounted as paper Table I and III-B count them "
      "(model/perf/analyze.hpp): "
      "OASIS stores the Cartesian product of the centroids, 2^(nA+nW) = {} entries whatever "
      "K is, and reduces 2^(nA+nW) products a row (N x 2^(nA+nW) FLOPs); a WOQ LUT-GEMM "
      "(FIGLUT, groups of mu = 4 activations, bit-serial weights) keeps an inner-product LUT "
      "of 2^mu entries for each of the K/mu groups, 2^mu K / mu entries, and reduces K/mu "
      "partial sums per weight bit a row (N x nW x K/mu FLOPs). N = K (a q_proj layer).\n\n{}\n",
      derive(cfg).lut_entries, table);
}

// The area of the config from the synthesis report `synth`, or where to get it.
void report_area(const Config& cfg, const std::string& synth, std::string& md) {
  if (!synth.empty() && fs::exists(synth)) {
    nlohmann::json sj;
    try {
      std::ifstream in(synth);
      sj = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(fmt::format("{}: not JSON ({})", synth, e.what()));
    }
    md += fmt::format(
        "Area of config `{}` from `{}` (tool: {}):\n\n| block | cells | "
        "transistors | flip-flops | depth |\n|---|---:|---:|---:|---:|\n",
        cfg.name, synth, sj.value("tool", std::string("?")));
    const auto row = [&](const std::string& name, const nlohmann::json& b) {
      const auto v = [&](const char* key) {
        return b.contains(key) ? b.at(key).dump() : std::string("-");
      };
      md += fmt::format("| {} | {} | {} | {} | {} |\n", name, v("cells"), v("transistors"),
                        v("flip_flops"), v("depth"));
    };
    if (sj.contains("blocks") && sj.at("blocks").is_object()) {
      for (const auto& [name, b] : sj.at("blocks").items()) row(name, b);
    }
    if (sj.contains("core") && sj.at("core").is_object()) row("**core**", sj.at("core"));
    md += "\nThe sweep's other points are not synthesized; only this config's area is shown.\n\n";
  } else {
    md += fmt::format(
        "Area: no synthesis report at `{}`, so no area here. `make synth CONFIG={}` writes it "
        "(Yosys cell counts per block and for the core); run it, then `make report` again.\n\n",
        synth.empty() ? "build/synth/<config>/synth.json" : synth, cfg.name);
  }
}

// (4) Cycles (and area) across PE lines and MAC tree widths.
void report_sweep(const Config& cfg, const ReportArgs& r, const std::vector<ModelShape>& models,
                  const fs::path& tmp, std::string& md) {
  const std::vector<int> lines = {1, 2, 4, 8, 16, 32, 64};
  const std::vector<int> trees = {8, 16, 32, 64, 128};
  const ModelShape* ref = &models.front();
  for (const auto& m : models) {
    if (m.name == "LLaMA-2-7B") ref = &m;
  }
  std::string dat = "# P";
  for (const int t : trees) dat += fmt::format(" T={}", t);
  dat += "  (cycles a token, " + ref->name + ", M = 1)\n";
  std::string table = "| P |";
  for (const int t : trees) table += fmt::format(" T = {} |", t);
  table += "\n|---:|";
  for (size_t i = 0; i < trees.size(); ++i) table += "---:|";
  table += "\n";
  int step = 0;
  const int total = int(lines.size() * trees.size());
  for (const int p : lines) {
    dat += fmt::format("{}", p);
    table += fmt::format("| {} |", p);
    for (const int t : trees) {
      std::fprintf(stderr, "report: design sweep %d/%d (P = %d, T = %d)\n", ++step, total, p, t);
      nlohmann::json j = to_json(cfg);
      j["pe_lines"] = p;
      j["mac_tree_inputs"] = t;
      const Config pc = parse_config(j, fmt::format("{} with P = {}, T = {}", cfg.name, p, t));
      const ModelPerf mp = model_perf(pc, *ref, PerfOptions{1, 0});
      const double cyc = double(mp.model_cycles);
      dat += fmt::format(" {}", mp.model_cycles);
      table += fmt::format(" {:.0f} |", cyc);
    }
    dat += "\n";
    table += "\n";
  }
  write_file(tmp / "sweep.dat", dat);
  std::string gp = gp_header("sweep.png", 800, 450);
  gp += fmt::format(
      "set title 'Cycles a token, {} (M = 1, weights unlimited), against PE lines'\n"
      "set logscale x 2\nset logscale y 10\nset format y '10^{{%L}}'\n"
      "set xlabel 'PE lines P'\nset ylabel 'cycles a token'\n"
      "set key top right\nplot ",
      ref->name);
  for (size_t i = 0; i < trees.size(); ++i) {
    gp += fmt::format("{}'sweep.dat' using 1:{} with linespoints lw 2 dt {} pt {} title 'T = {}'",
                      i ? ", " : "", 2 + i, 1 + i, 4 + i, trees[i]);
  }
  gp += "\n";
  write_file(tmp / "sweep.gp", gp);
  md += "## 4. Cycles and area across PE lines and MAC tree widths\n\n";
  md += fmt::format(
      "![sweep](sweep.png)\n\nCycles a token of {} (every linear layer of its {} decoder "
      "layers, M = 1, weights unlimited) on the config with P and T changed, everything else "
      "as above. More lines divide the rows; a wider tree shortens the MAC-tree term "
      "ceil(E / T) (E the LUT's entries) until the index counting, the weight stream or the "
      "outlier branch "
      "bounds the row, and the pre-processing (not divided by P) stays.\n\n{}\n",
      ref->name, ref->layers, table);
  report_area(cfg, r.synth, md);
}

// (5) Per-model tables.
void report_models(const Common& c, const ReportArgs& r, const Config& cfg,
                   const std::vector<ModelShape>& models, double hz, std::string& md) {
  md += "## 5. Models\n\n";
  md += fmt::format(
      "Each linear layer runs on the config with K = the layer's input channels and k scaled "
      "to keep 2k/K (with_channels, docs/perf.md); every token re-streams the layer's "
      "weights (the core keeps no weights across tokens). M = 1 is single-token decoding; "
      "M = {} tokens stream back to back through each layer, so the pre-processing of one "
      "hides behind the GEMM of the one before. The bandwidth limit is {:g} bytes a cycle "
      "({:.0f} GB/s at {:g} MHz; `--limit`): a group of P rows is ceil(P K nW / 8) + 2P "
      "bytes (indices and binary16 scales) and cannot be streamed faster than the memory "
      "gives it. Tokens/s count the linear layers only (no attention, no normalization).\n\n",
      r.batch, r.limit, r.limit * c.clock_mhz * 1e6 / 1e9, c.clock_mhz);
  int idx = 0;
  for (const auto& m : models) {
    std::fprintf(stderr, "report: model %d/%zu (%s)\n", ++idx, models.size(), m.name.c_str());
    struct Col {
      int tokens;
      double bw;
    };
    const std::vector<Col> cols = {{1, 0}, {r.batch, 0}, {1, r.limit}, {r.batch, r.limit}};
    std::vector<ModelPerf> mp;
    for (const auto& col : cols) mp.push_back(model_perf(cfg, m, PerfOptions{col.tokens, col.bw}));
    md += fmt::format("### {}\n\n{} decoder layers. Source: {}.\n\n", m.name, m.layers, m.source);
    md += "| layer | K | N | k | M = 1 cycles a token | bound |";
    md += fmt::format(" M = {} cycles a token | bound |", r.batch);
    md += " M = 1, limited | bound |";
    md += fmt::format(" M = {}, limited | bound |\n|---|---:|---:|---:|", r.batch);
    for (size_t i = 0; i < cols.size(); ++i) md += "---:|---|";
    md += "\n";
    for (size_t i = 0; i < m.linear.size(); ++i) {
      md += fmt::format("| {} | {} | {} | {} |", m.linear[i].name, m.linear[i].in, m.linear[i].out,
                        mp[0].configs[i].outliers_per_side);
      for (const auto& p : mp) {
        md += fmt::format(" {:.1f} | {} |", p.layers[i].cycles_per_token(),
                          phase_name(p.layers[i].bound));
      }
      md += "\n";
    }
    md += "| **model** | | | |";
    for (size_t k = 0; k < cols.size(); ++k) {
      md += fmt::format(" {:.0f} | {:.2f} tokens/s |",
                        double(mp[k].model_cycles) / double(cols[k].tokens),
                        mp[k].tokens_per_second(hz, cols[k].tokens));
    }
    md += "\n\n";
  }
}

void check_report_args(const Common& c, const ReportArgs& r) {
  if (!std::isfinite(r.limit) || r.limit <= 0) {
    throw UsageError(
        fmt::format("--limit {}: the report's bandwidth limit, a finite number of "
                    "bytes a cycle > 0",
                    r.limit));
  }
  if (r.batch < 2) throw UsageError(fmt::format("--batch {}: at least 2", r.batch));
  if (!(c.clock_mhz > 0) || !std::isfinite(c.clock_mhz)) {
    throw UsageError(fmt::format("--clock-mhz {}: a positive number", c.clock_mhz));
  }
  if (fs::exists(r.out)) throw UsageError(fmt::format("--out {}: already exists", r.out));
}

// The report's heading and the config it describes.
std::string report_intro(const Common& c, const Config& cfg) {
  const Derived d = derive(cfg);
  std::string md;
  md += fmt::format("# Performance report: config `{}`\n\n", cfg.name);
  md += fmt::format(
      "Written by `oasis-perf report` (docs/perf.md) from `{}`: K = {}, k = {} outliers a side "
      "(2k/K = {:.2f} %), nA = {}, nW = {}, P = {} PE lines, C x I = {} x {}, T = {}, Mc = {}, "
      "{} clustering lanes, R = {}, S = {}, Wb = {}, {} accumulation. Clock {:g} MHz (a "
      "parameter, `--clock-mhz`). Cycle counts are the performance model's; with the weight "
      "memory unlimited they equal the cycle model's and the RTL's (verif/unit/test_perf.cpp, "
      "verif/tb/core_tb.cpp).\n\n",
      c.config, cfg.channels, cfg.outliers_per_side, 200.0 * cfg.outliers_per_side / cfg.channels,
      cfg.act_bits, cfg.weight_bits, cfg.pe_lines, cfg.index_counters, cfg.counter_inputs,
      cfg.mac_tree_inputs, cfg.comp_macs, cfg.clustering_lanes, cfg.orizuru_unit_inputs,
      d.fp_stages, cfg.weight_beat_indices, d.accumulator.name(), c.clock_mhz);
  return md;
}

int run_report(const Common& c, const ReportArgs& r) {
  const Config cfg = load(c);
  check_report_args(c, r);
  const std::vector<ModelShape> models = load_models(r.models);
  const fs::path tmp = r.out;
  fs::create_directories(tmp);
  const double hz = c.clock_mhz * 1e6;
  std::string md = report_intro(c, cfg);
  report_pipeline(cfg, tmp, md);
  report_outliers(c, cfg, models, hz, tmp, md);
  report_lut(cfg, tmp, md);
  report_sweep(cfg, r, models, tmp, md);
  report_models(c, r, cfg, models, hz, md);
  if (!r.energy.empty()) {
    const EnergySpec e = load_energy(r.energy);
    std::vector<MemorySpec> memories;
    for (const auto& m : r.memories) memories.push_back(load_memory(m));
    memories.push_back(unlimited_memory());
    std::fprintf(stderr, "report: system figures\n");
    md += perf_system::write_report(cfg, models, e, memories, hz, tmp);
  }
  write_file(tmp / "report.md", md);
  return 0;
}

}  // namespace oasis_perf_command

int oasis::commands::oasis_perf(int argc, char** argv) {
  using namespace oasis_perf_command;
  CLI::App app{"oasis-perf: the performance model of the generated OASIS core (docs/perf.md)"};
  app.require_subcommand(1, 1);

  Common lc;
  int64_t rows = 4096;
  bool json = false;
  auto* lay = app.add_subcommand("layer",
                                 "one layer of N rows for M tokens: cycles, phases, "
                                 "the bounding phase");
  add_common(lay, lc);
  lay->add_option("--rows", rows, "N: output rows")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 24));
  lay->add_flag("--json", json, "print JSON instead of text");

  Common mc;
  std::string model;
  auto* mod = app.add_subcommand("model", "a model's linear layers (configs/models/<model>.json)");
  add_common(mod, mc);
  mod->add_option("--model", model, "model file, e.g. configs/models/llama2_7b.json")->required();
  mod->add_option("--clock-mhz", mc.clock_mhz, "clock for tokens/s");

  Common rc;
  ReportArgs ra;
  auto* rep = app.add_subcommand("report",
                                 "write report.md and the gnuplot data and scripts "
                                 "into a new folder (tools/report.sh draws them)");
  rep->add_option("--config", rc.config, "JSON config")->required();
  rep->add_option("--set", rc.overrides, "override a config field: key=value (repeatable)");
  rep->add_option("--out", ra.out, "new output folder (must not exist)")->required();
  rep->add_option("--models", ra.models, "folder of model files");
  rep->add_option("--synth", ra.synth, "synthesis report (make synth), used when it exists");
  rep->add_option("--batch", ra.batch, "M of the small-batch columns")->check(CLI::Range(2, 1024));
  rep->add_option("--limit", ra.limit, "the bandwidth limit of the limited columns, bytes a cycle");
  rep->add_option("--clock-mhz", rc.clock_mhz, "clock for tokens/s");
  rep->add_option("--energy", ra.energy,
                  "energy file (configs/energy/*.json): adds the system figures");
  rep->add_option("--memory", ra.memories,
                  "memory file of the system figures (configs/memory/*.json; repeatable)");

  Common sc;
  SystemArgs sa;
  sc.clock_mhz = 500;
  auto* sys = app.add_subcommand(
      "system",
      "a model's linear layers on OASIS and on the FIGLUT-class accelerator, with a "
      "memory and energy (docs/system.md)");
  add_common(sys, sc);
  sys->add_option("--model", sa.model, "model file, e.g. configs/models/llama2_7b.json")
      ->required();
  sys->add_option("--memory", sa.memory,
                  "memory file (configs/memory/*.json); none: unlimited, compute only");
  sys->add_option("--energy", sa.energy, "energy file (configs/energy/*.json)");
  sys->add_option("--sizing", sa.sizing,
                  "FIGLUT-class lines: paper (as many as PE lines) or equal-area");
  sys->add_flag("--arc-weighted", sa.arc_weighted, "the arc-weighted energies a product");
  sys->add_option("--clock-mhz", sc.clock_mhz, "clock (default 500, the paper's)");

  if (const auto status = parse_subcommands(app, argc, argv, "oasis-perf")) return *status;
  const bool out_existed = !ra.out.empty() && std::filesystem::exists(ra.out);
  try {
    if (*lay) return run_layer(lc, rows, json);
    if (*mod) return run_model(mc, model);
    if (*sys) return run_system(sc, sa);
    if (*rep) {
      const int rcode = run_report(rc, ra);
      return rcode;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oasis-perf: %s\n", e.what());
    if (*rep && !ra.out.empty() && !out_existed) std::filesystem::remove_all(ra.out);
    return 2;
  }
  return 2;
}
