// SPDX-License-Identifier: Apache-2.0
#include "model/tools/perf_system.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/derived.hpp"

namespace oasis::perf_system {
namespace {

namespace fs = std::filesystem;

// The paper's averages over FIGLUT (Section V-C and V-D2).
struct Claim {
  int act_bits;
  double speedup, energy, prefill_decode;
};
constexpr Claim kClaims[] = {{4, 3.00, 1.44, 2.80}, {3, 3.15, 1.51, 2.93}};

Config with_act_bits(const Config& c, int bits) {
  if (c.act_bits == bits) return c;
  nlohmann::json j = to_json(c);
  j["act_bits"] = bits;
  return parse_config(j, fmt::format("{} with nA = {}", c.name, bits));
}

// One model on OASIS and on both sizings of the FIGLUT-class accelerator.
struct Compared {
  DesignRun oasis, figlut, figlut_area;
  int tokens = 1;
  double speedup() const { return double(figlut.cycles) / double(oasis.cycles); }
  double speedup_area() const { return double(figlut_area.cycles) / double(oasis.cycles); }
  double energy_ratio() const { return figlut.energy.total() / oasis.energy.total(); }
  double energy_ratio_area() const { return figlut_area.energy.total() / oasis.energy.total(); }
  double compute_energy_ratio() const {
    return (figlut.energy.compute + figlut.energy.idle) /
           (oasis.energy.compute + oasis.energy.idle);
  }
};

Compared compare(const Config& c, const ModelShape& m, int tokens, const EnergySpec& e,
                 const SystemOptions& o) {
  Compared r;
  r.tokens = tokens;
  r.oasis = oasis_run(c, m, tokens, e, o);
  r.figlut = figlut_run(c, m, tokens, figlut_lines(c, e, Sizing::kPaperConfig), e, o);
  r.figlut_area = figlut_run(c, m, tokens, figlut_lines(c, e, Sizing::kEqualArea), e, o);
  return r;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

bool all_memory_bound(const DesignRun& r) {
  for (const LayerCost& L : r.block) {
    if (!L.memory_bound) return false;
  }
  return true;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream o(p);
  o << text;
  if (!o) throw std::runtime_error(fmt::format("{}: cannot be written", p.string()));
}

std::string gp_bars(const std::string& png, const std::string& title, const std::string& ylabel,
                    const std::string& dat, const std::vector<std::string>& columns) {
  std::string s = fmt::format(
      "set terminal pngcairo size 900,480 font 'sans,10'\nset output '{}'\nset grid ytics\n"
      "set title '{}'\nset ylabel '{}'\nset style data histograms\n"
      "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
      "set boxwidth 0.9\nset xtics rotate by -25\nset yrange [0:*]\nset key top left\nplot ",
      png, title, ylabel);
  for (size_t i = 0; i < columns.size(); ++i) {
    s += fmt::format("{}'{}' using {}{} title '{}'", i ? ", " : "", dat, i + 2, i ? "" : ":xtic(1)",
                     columns[i]);
  }
  return s + "\n";
}

std::string label(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    if (ch == ' ') ch = '_';
  }
  return out;
}

const ModelShape* find(const std::vector<ModelShape>& models, const std::string& name) {
  for (const auto& m : models) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string memory_line(const MemorySpec& m) {
  if (m.unlimited()) return "no memory limit (compute only: bandwidth unlimited, no latency)";
  return fmt::format("{}: {:g} GB/s ({}), {:g} ns to first data ({}), {:g} pJ a bit ({})", m.name,
                     m.gb_per_s, m.bandwidth_source, m.latency_ns, m.latency_source, m.pj_per_bit,
                     m.energy_source);
}

std::string fig11(const Config& cfg, const std::vector<ModelShape>& models, const EnergySpec& e,
                  const std::vector<MemorySpec>& memories, double hz, const fs::path& out) {
  std::string md = "### Single-batch decode (paper Fig. 11)\n\n";
  md +=
      "One token through every linear layer of the model (one decode step; with linear layers "
      "only every step of an output of 2,048 tokens costs the same, so the ratios are those of "
      "the whole output). Speedup and energy ratio are the FIGLUT-class accelerator's time and "
      "energy over OASIS's: above 1, OASIS is faster or spends less.\n\n";
  std::string dat = "# model/nA speedup speedup_equal_area energy_ratio\n";
  for (size_t mi = 0; mi < memories.size(); ++mi) {
    const SystemOptions o{hz, memories[mi], false};
    md += fmt::format("#### {}\n\n", memories[mi].name);
    md +=
        "| model | nA | OASIS tokens/s | OASIS bound | FIGLUT-class tokens/s | speedup | equal "
        "area: tokens/s | speedup | OASIS mJ a token | FIGLUT-class mJ a token | energy ratio "
        "| compute-only energy ratio |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
        "---:|\n";
    for (const Claim& claim : kClaims) {
      const Config c = with_act_bits(cfg, claim.act_bits);
      std::vector<double> sp, spa, er;
      for (const ModelShape& m : models) {
        const Compared r = compare(c, m, 1, e, o);
        sp.push_back(r.speedup());
        spa.push_back(r.speedup_area());
        er.push_back(r.energy_ratio());
        md += fmt::format(
            "| {} | {} | {:.2f} | {} | {:.2f} | {:.2f}x | {:.2f} | {:.2f}x | {:.3f} | {:.3f} | "
            "{:.2f}x | {:.2f}x |\n",
            m.name, claim.act_bits, hz / double(r.oasis.cycles),
            all_memory_bound(r.oasis) ? "memory" : "compute", hz / double(r.figlut.cycles),
            r.speedup(), hz / double(r.figlut_area.cycles), r.speedup_area(),
            r.oasis.energy.total() * 1e3, r.figlut.energy.total() * 1e3, r.energy_ratio(),
            r.compute_energy_ratio());
        if (mi == 0) {
          dat += fmt::format("{}/A{} {:.4f} {:.4f} {:.4f}\n", label(m.name), claim.act_bits,
                             r.speedup(), r.speedup_area(), r.energy_ratio());
        }
      }
      md += fmt::format(
          "| **mean (geometric)** | {} | | | | **{:.2f}x** | | **{:.2f}x** | | | **{:.2f}x** | "
          "|\n| *paper (average)* | {} | | | | *{:.2f}x* | | | | | *{:.2f}x* | |\n",
          claim.act_bits, geomean(sp), geomean(spa), geomean(er), claim.act_bits, claim.speedup,
          claim.energy);
    }
    md += "\n";
  }
  write_file(out / "system_fig11.dat", dat);
  write_file(
      out / "system_fig11.gp",
      gp_bars("system_fig11.png",
              fmt::format("Single-batch decode, {}: FIGLUT-class over OASIS", memories[0].name),
              "ratio (above 1: OASIS better)", "system_fig11.dat",
              {"speedup, as many lines", "speedup, equal area", "energy ratio"}));
  md += "![Fig. 11](system_fig11.png)\n\n";
  return md;
}

std::string fig12(const Config& cfg, const std::vector<ModelShape>& models, const EnergySpec& e,
                  const MemorySpec& mem, double hz, const fs::path& out) {
  std::string md = "### Low-batch decode (paper Fig. 12)\n\n";
  md += fmt::format(
      "M tokens decoded together ({}, nA = 4). The core keeps no weights across tokens: each "
      "token re-streams the weight matrix, as the FIGLUT-class line does, so a batch moves M "
      "times a token's weight bytes on both designs.\n\n",
      mem.name);
  const SystemOptions o{hz, mem, false};
  const int batches[] = {1, 2, 4, 8, 16};
  std::string dat = "# batch";
  std::vector<const ModelShape*> ms;
  for (const char* n : {"LLaMA-2-7B", "LLaMA-2-13B"}) {
    if (const ModelShape* m = find(models, n)) {
      ms.push_back(m);
      dat += fmt::format(" {0}_speedup {0}_energy", label(n));
    }
  }
  if (ms.empty()) return md + "(LLaMA-2-7B and LLaMA-2-13B are not among the models.)\n\n";
  dat += "\n";
  md +=
      "| model | M | OASIS tokens/s | FIGLUT-class tokens/s | speedup | energy ratio |\n"
      "|---|---:|---:|---:|---:|---:|\n";
  std::vector<std::string> rows(std::size(batches));
  for (size_t bi = 0; bi < std::size(batches); ++bi) rows[bi] = std::to_string(batches[bi]);
  for (const ModelShape* m : ms) {
    for (size_t bi = 0; bi < std::size(batches); ++bi) {
      const int b = batches[bi];
      const Compared r = compare(cfg, *m, b, e, o);
      md += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f}x | {:.2f}x |\n", m->name, b,
                        b * hz / double(r.oasis.cycles), b * hz / double(r.figlut.cycles),
                        r.speedup(), r.energy_ratio());
      rows[bi] += fmt::format(" {:.4f} {:.4f}", r.speedup(), r.energy_ratio());
    }
  }
  for (const auto& row : rows) dat += row + "\n";
  write_file(out / "system_fig12.dat", dat);
  std::string gp = fmt::format(
      "set terminal pngcairo size 800,450 font 'sans,10'\nset output 'system_fig12.png'\n"
      "set grid\nset title 'Low-batch decode, {}: FIGLUT-class over OASIS'\nset xlabel "
      "'batch M'\nset ylabel 'ratio'\nset logscale x 2\nset yrange [0:*]\nset key top left\n"
      "plot ",
      mem.name);
  for (size_t i = 0; i < ms.size(); ++i) {
    gp += fmt::format(
        "{}'system_fig12.dat' using 1:{} with linespoints title '{} speedup', "
        "'system_fig12.dat' using 1:{} with linespoints title '{} energy ratio'",
        i ? ", " : "", 2 + 2 * i, ms[i]->name, 3 + 2 * i, ms[i]->name);
  }
  write_file(out / "system_fig12.gp", gp + "\n");
  return md + "\n![Fig. 12](system_fig12.png)\n\n";
}

std::string fig13(const Config& cfg, const std::vector<ModelShape>& models, const EnergySpec& e,
                  const MemorySpec& mem, double hz, const fs::path& out) {
  std::string md = "### Prefill and decode (paper Fig. 13)\n\n";
  md += fmt::format(
      "A prompt of P tokens streamed back to back, then D tokens decoded one at a time ({}, "
      "nA = 4 and 3).\n\n",
      mem.name);
  const SystemOptions o{hz, mem, false};
  const std::pair<int, int> pairs[] = {{128, 128}, {128, 2048}, {2048, 128}, {1024, 1024}};
  md +=
      "| model | nA | P / D | OASIS seconds | FIGLUT-class seconds | speedup | energy ratio "
      "|\n|---|---:|---|---:|---:|---:|---:|\n";
  std::string dat = "# model/nA/P/D speedup energy_ratio\n";
  std::vector<double> sp[2];
  for (const char* n : {"LLaMA-2-7B", "LLaMA-2-70B"}) {
    const ModelShape* m = find(models, n);
    if (!m) continue;
    for (size_t ci = 0; ci < std::size(kClaims); ++ci) {
      const Config c = with_act_bits(cfg, kClaims[ci].act_bits);
      const Compared one = compare(c, *m, 1, e, o);
      for (const auto& [p, d] : pairs) {
        const Compared pre = compare(c, *m, p, e, o);
        const double to = double(pre.oasis.cycles + int64_t(d) * one.oasis.cycles) / hz;
        const double tf = double(pre.figlut.cycles + int64_t(d) * one.figlut.cycles) / hz;
        const double eo = pre.oasis.energy.total() + d * one.oasis.energy.total();
        const double ef = pre.figlut.energy.total() + d * one.figlut.energy.total();
        sp[ci].push_back(tf / to);
        md += fmt::format("| {} | {} | {} / {} | {:.3f} | {:.3f} | {:.2f}x | {:.2f}x |\n", n,
                          kClaims[ci].act_bits, p, d, to, tf, tf / to, ef / eo);
        dat += fmt::format("{}/A{}/{}/{} {:.4f} {:.4f}\n", label(n), kClaims[ci].act_bits, p, d,
                           tf / to, ef / eo);
      }
    }
  }
  if (sp[0].empty()) return md + "(LLaMA-2-7B and LLaMA-2-70B are not among the models.)\n\n";
  md += fmt::format(
      "| **mean (geometric)** | 4 / 3 | | | | **{:.2f}x / {:.2f}x** | |\n| *paper (average)* "
      "| 4 / 3 | | | | *{:.2f}x / {:.2f}x* | |\n\n",
      geomean(sp[0]), geomean(sp[1]), kClaims[0].prefill_decode, kClaims[1].prefill_decode);
  write_file(out / "system_fig13.dat", dat);
  write_file(out / "system_fig13.gp",
             gp_bars("system_fig13.png",
                     fmt::format("Prefill / decode, {}: FIGLUT-class over OASIS", mem.name),
                     "ratio", "system_fig13.dat", {"speedup", "energy ratio"}));
  return md + "![Fig. 13](system_fig13.png)\n\n";
}

std::string fig18(const Config& cfg, const EnergySpec& e, const MemorySpec& mem, double hz,
                  const fs::path& out) {
  ModelShape gemm;
  gemm.name = "1 x 4096 x 4096 GEMM";
  gemm.layers = 1;
  gemm.linear = {{"gemm", 4096, 4096}};
  const SystemOptions o{hz, mem, false};
  const Compared r = compare(cfg, gemm, 1, e, o);
  const LayerCost& a = r.oasis.block[0];
  const LayerCost& b = r.figlut.block[0];
  const int storage_bytes = 2;
  std::string md = "### One GEMM's memory traffic and energy (paper Fig. 18)\n\n";
  md += fmt::format(
      "A 1 x 4096 x 4096 GEMM (one token, nA = 4, {}). Both designs store a weight in nW = {} "
      "bits and one binary16 scale a row.\n\n",
      mem.name, cfg.weight_bits);
  md += "| traffic, bytes | OASIS | FIGLUT-class |\n|---|---:|---:|\n";
  md +=
      fmt::format("| weights (indices / bit-planes) | {} | {} |\n",
                  a.weight_bytes - storage_bytes * a.rows, b.weight_bytes - storage_bytes * b.rows);
  md +=
      fmt::format("| weight scales | {} | {} |\n", storage_bytes * a.rows, storage_bytes * b.rows);
  md += fmt::format("| token (binary16) | {} | {} |\n", a.act_bytes, b.act_bytes);
  md += fmt::format("| outputs (binary16) | {} | {} |\n\n", a.out_bytes, b.out_bytes);
  md += "| energy, uJ | OASIS | FIGLUT-class |\n|---|---:|---:|\n";
  std::string dat = "# part OASIS FIGLUT-class (uJ)\n";
  const std::pair<const char*, double EnergyParts::*> parts[] = {{"compute", &EnergyParts::compute},
                                                                 {"idle clock", &EnergyParts::idle},
                                                                 {"DRAM", &EnergyParts::dram},
                                                                 {"SRAM", &EnergyParts::sram}};
  for (const auto& [name, field] : parts) {
    md += fmt::format("| {} | {:.3f} | {:.3f} |\n", name, a.energy.*field * 1e6,
                      b.energy.*field * 1e6);
    dat += fmt::format("{} {:.6f} {:.6f}\n", label(name), a.energy.*field * 1e6,
                       b.energy.*field * 1e6);
  }
  md += fmt::format("| **total** | **{:.3f}** | **{:.3f}** |\n\n", a.energy.total() * 1e6,
                    b.energy.total() * 1e6);
  md += fmt::format("Cycles: OASIS {} ({} with the memory unlimited), FIGLUT-class {} ({}).\n\n",
                    a.cycles, a.compute_cycles, b.cycles, b.compute_cycles);
  write_file(out / "system_fig18.dat", dat);
  write_file(
      out / "system_fig18.gp",
      gp_bars("system_fig18.png", fmt::format("1 x 4096 x 4096 GEMM, {}: energy by part", mem.name),
              "uJ", "system_fig18.dat", {"OASIS", "FIGLUT-class"}));
  return md + "![Fig. 18](system_fig18.png)\n\n";
}

// Issue: a decode step exposes each token context's pre-processing. The step of one decoder
// block of LLaMA-2-7B against its GEMM bound (every group's rows at the row interval), as the
// pre-processing widens: clustering lanes L and the token beat R (Orizuru's unit inputs).
std::string decode_width(const Config& cfg, const std::vector<ModelShape>& models,
                         const fs::path& out) {
  const ModelShape* m = find(models, "LLaMA-2-7B");
  if (!m) return "";
  std::string md = "### A decode step against its GEMM bound: the pre-processing's width\n\n";
  md += fmt::format(
      "One decoder block of {} (its {} groups of layers on one token context each, the memory "
      "unlimited) against the GEMM bound: each group's ceil(N / P) row intervals. The "
      "pre-processing (clustering B x ceil(R / L) cycles, Orizuru's build) is paid once a "
      "context and exposed at M = 1.\n\n"
      "| L (clustering lanes) | R (token beat) | pre-processing, K = 4096 | block cycles | GEMM "
      "bound | ratio |\n|---:|---:|---:|---:|---:|---:|\n",
      m->name, shared_contexts(*m).size());
  std::string dat = "# L R ratio\n";
  for (int lanes : {1, 2, 4, 8, 16, 32}) {
    for (int r : {16, 32, 64}) {
      nlohmann::json j = to_json(cfg);
      j["clustering_lanes"] = lanes;
      j["orizuru_unit_inputs"] = r;
      const Config c = parse_config(j, fmt::format("{} with L = {}, R = {}", cfg.name, lanes, r));
      int64_t cycles = 0, bound = 0;
      for (const auto& g : shared_contexts(*m)) {
        int64_t rows = 0;
        for (size_t i : g) rows += m->linear[i].out;
        const int64_t k = m->linear[g[0]].in;
        const Config lc = k == c.channels ? c : with_channels(c, k);
        const LayerPerf L = layer_perf(lc, rows, PerfOptions{1, 0});
        cycles += L.cycles;
        bound += L.token.groups * L.token.row_interval;
      }
      const double ratio = double(cycles) / double(bound);
      md += fmt::format("| {} | {} | {} | {} | {} | {:.3f}{} |\n", lanes, r,
                        derive(c).core.preprocess_cycles, cycles, bound, ratio,
                        ratio <= 1.10 ? " (within 1.10)" : "");
      dat += fmt::format("{} {} {:.4f}\n", lanes, r, ratio);
    }
  }
  write_file(out / "system_decode_width.dat", dat);
  return md + "\n";
}

// What the figures say, in sentences the numbers decide.
std::string verdict(const Config& cfg, const std::vector<ModelShape>& models, const EnergySpec& e,
                    const std::vector<MemorySpec>& memories, double hz) {
  std::string md = "### What it says\n\n";
  const double x = line_products_per_cycle(cfg);
  const LinePoint pe = line_at(e.pe_line, x);
  const LinePoint wq = line_at(e.woq_lut_line, x);
  for (const MemorySpec& mem : memories) {
    const SystemOptions o{hz, mem, false};
    std::vector<double> sp, er;
    bool bound = true;
    for (const ModelShape& m : models) {
      const Compared r = compare(cfg, m, 1, e, o);
      sp.push_back(r.speedup());
      er.push_back(r.energy_ratio());
      bound = bound && all_memory_bound(r.oasis);
    }
    const double s = geomean(sp), en = geomean(er);
    md += fmt::format(
        "- **{}**: OASIS-A4 is {:.2f}x as fast as the FIGLUT-class accelerator of "
        "as many lines and spends {:.2f}x less energy (paper: 3.00x and 1.44x). ",
        mem.name, s, en);
    if (bound && !mem.unlimited()) {
      md += fmt::format(
          "Every layer of OASIS is bound by the weight memory: both designs move the same "
          "bytes (nW bits a weight and a scale a row), so the memory, not either design's "
          "compute, sets the speed; OASIS is the slower by its pre-processing ({} cycles), "
          "which the core finishes before a token context's first weight beat, and the "
          "FIGLUT-class line does not have. ",
          derive(cfg).core.preprocess_cycles);
    }
    md += s >= 2.7 ? "The speedup claim holds here.\n"
                   : "**The speedup claim does not hold here.**\n";
  }
  md += fmt::format(
      "- **The baseline's size.** A FIGLUT-class line at a PE line's {:.0f} products a cycle is "
      "{:.1f} M um2 in osu018 against the PE line's {:.1f} M um2, so at equal area the "
      "accelerator has {} lines to OASIS's {}: the paper's premise of a FIGLUT limited in "
      "parallelism does not hold for this line, which shares one LUT among {} units.\n",
      x, wq.area_um2 / 1e6, pe.area_um2 / 1e6, figlut_lines(cfg, e, Sizing::kEqualArea),
      cfg.pe_lines, derive(cfg).woq_lut_line_baseline.rows);
  md += fmt::format(
      "- **The library.** Energy a product is {:.1f} pJ for the PE line and {:.1f} pJ for the "
      "FIGLUT-class line ({}, from activity); at 0.18 um the compute outweighs the memory's "
      "pJ a bit far more than at the paper's 28 nm, so the energy ratio here leans toward the "
      "compute-only ratio ({:.2f}x).\n\n",
      pe.pj_per_product, wq.pj_per_product, e.library, wq.pj_per_product / pe.pj_per_product);
  return md;
}

}  // namespace

std::string run_text(const Config& c, const ModelShape& m, int tokens, const EnergySpec& e,
                     Sizing sizing, const SystemOptions& o) {
  const DesignRun a = oasis_run(c, m, tokens, e, o);
  const DesignRun b = figlut_run(c, m, tokens, figlut_lines(c, e, sizing), e, o);
  std::string s = fmt::format("{}, {} decoder layers, M = {}, {} at {:g} MHz\n", m.name, m.layers,
                              tokens, memory_line(o.memory), o.clock_hz / 1e6);
  for (const DesignRun* r : {&a, &b}) {
    s += fmt::format("\n{}: {} lines, {:.1f} M um2 of lines, {:.2f} pJ a product\n", r->design,
                     r->lines, r->area_um2 / 1e6,
                     o.arc_weighted ? r->line.pj_per_product_arc : r->line.pj_per_product);
    s += "  layers         K       N   cycles (unlimited)  bound    weight bytes   energy uJ\n";
    for (const LayerCost& L : r->block) {
      s += fmt::format("  {:<10} {:>6} {:>7} {:>9} ({:>9})  {:<7} {:>13} {:>10.3f}\n", L.name,
                       L.channels, L.rows, L.cycles, L.compute_cycles,
                       L.memory_bound ? "memory" : "compute", L.weight_bytes,
                       L.energy.total() * 1e6);
    }
    s += fmt::format(
        "  model: {} cycles, {:.2f} tokens/s, {} bytes; energy {:.4f} J (compute {:.4f}, idle "
        "clock {:.4f}, DRAM {:.4f}, SRAM {:.4f})\n",
        r->cycles, tokens * o.clock_hz / double(r->cycles), r->bytes, r->energy.total(),
        r->energy.compute, r->energy.idle, r->energy.dram, r->energy.sram);
  }
  s += fmt::format("\nFIGLUT-class ({}) over OASIS: speedup {:.3f}x, energy ratio {:.3f}x\n",
                   sizing_name(sizing), double(b.cycles) / double(a.cycles),
                   b.energy.total() / a.energy.total());
  return s;
}

std::string write_report(const Config& cfg, const std::vector<ModelShape>& models,
                         const EnergySpec& e, const std::vector<MemorySpec>& memories, double hz,
                         const fs::path& out) {
  std::string md = "## System figures: OASIS against the FIGLUT-class accelerator\n\n";
  md += fmt::format(
      "The model's linear layers only (attention's score and value products and the other "
      "operations are not modelled), at {:g} MHz. OASIS is the core of this config "
      "(`oasis-perf system`, docs/system.md): q, k and v share one token context, as do gate "
      "and up. The FIGLUT-class accelerator is lines of `woq_lut_line_baseline` "
      "(docs/woq_lut_line.md), each sized to a PE line's products a cycle, taking the rows of a "
      "layer in turn: as many lines as PE lines ({}), or as many as fit the PE lines' area ({}). "
      "Cycles are each design's performance model, equal to its RTL's with the memory "
      "unlimited. Energy: the lines' energy a product from `{}` ({}; OASIS: {}; FIGLUT-class: "
      "{}), the lines' clock network while they wait, the memory's energy a bit and SRAM at "
      "{:g} pJ a bit ({}). OASIS's Orizuru, Clustering Unit and error calculation are not in "
      "its energy (not measured at the paper's size); nA = 3 uses the energy a product "
      "measured at nA = 4.\n\n",
      hz / 1e6, cfg.pe_lines, figlut_lines(cfg, e, Sizing::kEqualArea), e.path, e.library,
      e.pe_line.source, e.woq_lut_line.source, e.sram_pj_per_bit, e.sram_source);
  md += "Memories:\n\n";
  for (const MemorySpec& m : memories) md += "- " + memory_line(m) + "\n";
  md += "\n";
  md += verdict(cfg, models, e, memories, hz);
  md += fig11(cfg, models, e, memories, hz, out);
  md += fig12(cfg, models, e, memories[0], hz, out);
  md += fig13(cfg, models, e, memories[0], hz, out);
  md += fig18(cfg, e, memories[0], hz, out);
  md += decode_width(cfg, models, out);
  return md;
}

}  // namespace oasis::perf_system
