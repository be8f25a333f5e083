// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "model/perf/fp_delay.hpp"
#include "sim/ppa/run.hpp"
#include "sim/ppa/three_ways.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const std::vector<PaperRow>& paper_table2() {
  // Table II of the paper (TSMC 28 nm, 500 MHz): per PE line for the rows of
  // a line, per chip for the others.
  static const std::vector<PaperRow> rows = {
      {"Concat Unit", "4096 Concat Units per line", 8.68e-2, 8.36e-2},
      {"Wgt Idx Buffer", "2 KB per line", 6.75e-2, 1.69e-2},
      {"Index Counter", "32 16-in Index Counters per line", 2.71e-1, 6.14e-2},
      {"Dequant Unit", "1 Dequant Unit per line", 2.83e-3, 6.11e-3},
      {"MAC Tree", "1 32-in FP16 MAC Tree per line", 1.17e-1, 2.54e-1},
      {"MAC", "8 FP16 MAC Units per line", 2.26e-2, 4.89e-2},
      {"Act. Idx Buffer", "16 KB per chip", 5.40e-1, 6.71e-2},
      {"LUT", "2 KB per chip", 6.75e-2, 8.38e-3},
      {"Cluster. Unit", "4 Clustering Units per chip", 1.31e-3, 2.90e-4},
      {"Orizuru", "273 16-in Orizuru Units per chip", 7.39e-1, 2.73e-1},
      {"Error Calc. Unit", "1 Error Calculation Unit per chip", 4.12e-3, 6.40e-3},
  };
  return rows;
}

namespace {

// Where a Table II row is in the generated design: a part of a block (by
// role), a buffer of a block (by name), or a whole block.
struct Source {
  std::string block;
  std::string part;    // role of a part, or ""
  std::string memory;  // name of a memory, or ""
};

const std::map<std::string, Source>& table2_sources() {
  static const std::map<std::string, Source> m = {
      {"Concat Unit", {"pe_line", "concat_units", ""}},
      {"Wgt Idx Buffer", {"pe_line", "weight_index_buffer", ""}},
      {"Index Counter", {"pe_line", "index_counters", ""}},
      {"Dequant Unit", {"pe_line", "dequantization_unit", ""}},
      {"MAC Tree", {"pe_line", "mac_tree", ""}},
      {"MAC", {"pe_line", "compensation_macs", ""}},
      {"Act. Idx Buffer", {"core", "", "activation_index_buffer"}},
      {"LUT", {"core", "", "u_regfile.lut"}},
      {"Cluster. Unit", {"clustering_unit", "", ""}},
      {"Orizuru", {"orizuru", "", ""}},
      {"Error Calc. Unit", {"core", "error_calculation_unit", ""}},
  };
  return m;
}

struct Figure {
  double area = 0;   // um2
  double power = 0;  // W, vectorless
  std::string how;
  double activity_power = std::nan("");  // W, from the workload's activity where measured
};

std::optional<Figure> find_figure(const json& blocks, const Source& s, double sram_um2_per_bit) {
  if (!blocks.contains(s.block)) return std::nullopt;
  const json& b = blocks.at(s.block);
  if (!s.part.empty()) {
    if (!b.contains("parts")) return std::nullopt;
    for (const auto& p : b.at("parts")) {
      if (p.at("role") == s.part) {
        Figure f{
            p.at("area_um2").get<double>(), p.at("power_w").get<double>(),
            fmt::format("{} part {} ({})", s.block, p.at("instance").get<std::string>(), s.part)};
        if (b.contains("activity") && b["activity"].contains("parts")) {
          for (const auto& q : b["activity"]["parts"]) {
            if (q.at("role") == s.part) f.activity_power = q.at("power_w").get<double>();
          }
        }
        return f;
      }
    }
    return std::nullopt;
  }
  if (!s.memory.empty()) {
    if (!b.contains("memories")) return std::nullopt;
    for (const auto& m : b.at("memories")) {
      if (m.at("name") == s.memory) {
        if (m.value("kind", "") == "sram") {
          return Figure{m.at("bits").get<double>() * sram_um2_per_bit, std::nan(""),
                        fmt::format("{} buffer {}, {} bits in an SRAM (the estimate)", s.block,
                                    s.memory, m.at("bits").get<long>())};
        }
        return Figure{m.at("flop_area_um2").get<double>(), std::nan(""),
                      fmt::format("{} buffer {}, {} bits in flip-flops", s.block, s.memory,
                                  m.at("bits").get<long>())};
      }
    }
    return std::nullopt;
  }
  Figure f{b.at("area_um2").at("total").get<double>(), b.at("power_w").at("total").get<double>(),
           "block " + s.block};
  if (b.contains("activity")) f.activity_power = b["activity"]["power_w"]["total"].get<double>();
  return f;
}

double ratio(double a, double b) { return b > 0 ? a / b : std::nan(""); }

json num(double v, int digits = 4) {
  if (!std::isfinite(v)) return nullptr;
  const double f = std::pow(10.0, digits);
  return std::round(v * f) / f;
}

std::string fmt_num(const json& v, int digits = 3) {
  if (v.is_null()) return "-";
  const double d = v.get<double>();
  if (d != 0 && (std::fabs(d) >= 1e6 || std::fabs(d) < 1e-3)) return fmt::format("{:.{}e}", d, 2);
  return fmt::format("{:.{}f}", d, digits);
}

std::string fmt_area(double a) { return fmt::format("{:.0f}", a); }

}  // namespace

json comparisons(const ReportInputs& in) {
  const json& b = in.blocks;
  json out = json::array();
  auto add = [&](const std::string& name, const std::string& ours, const std::string& base) {
    if (!b.contains(ours) || !b.contains(base)) return;
    const json& o = b.at(ours);
    const json& s = b.at(base);
    out.push_back(
        {{"name", name},
         {"ours", ours},
         {"baseline", base},
         {"area_total", num(ratio(o["area_um2"]["total"], s["area_um2"]["total"]))},
         {"area_logic", num(ratio(o["area_um2"]["logic"], s["area_um2"]["logic"]))},
         {"power", num(ratio(o["power_w"]["total"], s["power_w"]["total"]))},
         {"ours_met", o["timing"]["met"]},
         {"baseline_met", s["timing"]["met"]},
         {"ours_critical_path_fo4", num(o["timing"]["critical_path"].get<double>() / in.fo4, 1)},
         {"baseline_critical_path_fo4",
          num(s["timing"]["critical_path"].get<double>() / in.fo4, 1)}});
  };
  add("LUT-GEMM PE line vs FP16 dequantize-and-MAC line, equal throughput", "pe_line",
      "mac_line_baseline");
  add("Orizuru vs sorting-network top-k", "orizuru", "topk_sort_baseline");
  add("Orizuru vs k-round reduction top-k", "orizuru", "topk_baseline");
  // One index counted against one FP16 multiply-accumulate, logic only.
  if (b.contains("index_counter_array") && b.contains("mac_line_baseline")) {
    const json& ica = b.at("index_counter_array");
    const json& mac = b.at("mac_line_baseline");
    const double per_index = ica["area_um2"]["logic"].get<double>() /
                             double(in.config_json["index_counters"].get<int>() *
                                    in.config_json["counter_inputs"].get<int>());
    const double macs = in.manifest.contains("mac_line_baseline")
                            ? in.manifest["mac_line_baseline"]["macs_per_cycle"].get<double>()
                            : 0;
    if (macs > 0) {
      const double per_mac = mac["area_um2"]["logic"].get<double>() / macs;
      out.push_back({{"name", "one index counted (Index Counter array) vs one FP16 MAC (MAC line)"},
                     {"ours", "index_counter_array"},
                     {"baseline", "mac_line_baseline"},
                     {"area_logic", num(per_index / per_mac)},
                     {"ours_um2", num(per_index, 1)},
                     {"baseline_um2", num(per_mac, 1)}});
    }
  }
  return out;
}

json table2(const ReportInputs& in) {
  const json& b = in.blocks;
  const auto ref = find_figure(b, table2_sources().at("MAC Tree"), in.sram_um2_per_bit);
  const auto& paper = paper_table2();
  double paper_ref_area = 0, paper_ref_power = 0;
  for (const auto& r : paper) {
    if (r.module == "MAC Tree") {
      paper_ref_area = r.area_mm2;
      paper_ref_power = r.power_w;
    }
  }
  json rows = json::array();
  for (const auto& r : paper) {
    json row = {{"module", r.module},
                {"specification", r.specification},
                {"paper_area_mm2", r.area_mm2},
                {"paper_power_w", r.power_w},
                {"paper_area_vs_mac_tree", num(r.area_mm2 / paper_ref_area)},
                {"paper_power_vs_mac_tree", num(r.power_w / paper_ref_power)}};
    const auto f = find_figure(b, table2_sources().at(r.module), in.sram_um2_per_bit);
    if (f && ref) {
      row["ours_area_um2"] = num(f->area, 1);
      row["ours_power_w"] = num(f->power, 9);
      row["ours_area_vs_mac_tree"] = num(f->area / ref->area);
      row["ours_power_vs_mac_tree"] = num(f->power / ref->power);
      row["ours_power_from_activity_w"] = num(f->activity_power, 9);
      row["ours_power_from_activity_vs_mac_tree"] = num(f->activity_power / ref->activity_power);
      row["ours_from"] = f->how;
      const auto& src = table2_sources().at(r.module);
      if (b.contains(src.block) && b.at(src.block).value("scaled", false)) {
        row["ours_from"] = f->how + " (scaled: " + b.at(src.block).value("note", "") + ")";
      }
    } else {
      row["ours_area_um2"] = nullptr;
      row["ours_from"] = "not in this design or not measured";
    }
    rows.push_back(row);
  }
  return {{"reference", ref ? ref->how : "none: no mac_tree part measured"},
          {"reference_area_um2", ref ? num(ref->area, 1) : json(nullptr)},
          {"reference_power_w", ref ? num(ref->power, 9) : json(nullptr)},
          {"rows", rows}};
}

json delay_model(const ReportInputs& in) {
  json rows = json::array();
  const double budget = fp_stage_budget_fo4(int(std::lround(in.period_fo4)));
  // One row: the model's longest stage beside the block's measured path.
  const auto row = [&](const std::string& name, const std::string& cuts, const json& after,
                       double longest) {
    const json& t = in.blocks.at(name).at("timing");
    const double measured = t.at("critical_path").get<double>() / in.fo4;
    rows.push_back(
        {{"block", name},
         {"cuts", cuts},
         {"registers_after", after},
         {"model_longest_stage_fo4", num(longest, 1)},
         {"model_stage_budget_fo4", num(budget, 1)},
         {"model_fits", longest <= budget},
         {"measured_critical_path_fo4", num(measured, 1)},
         {"measured_over_model", num(longest > 0 ? measured / longest : std::nan(""), 3)},
         {"measured_met", t.at("met")}});
  };
  for (const auto& [name, m] : in.manifest.items()) {
    if (!m.contains("pipeline") || !in.blocks.contains(name)) continue;
    const json& pl = m.at("pipeline");
    double longest = 0;
    for (const auto& d : pl.at("stage_fo4")) longest = std::max(longest, d.get<double>());
    // The places used, place 0 rightmost, as the generated Cuts parameter reads; a place
    // follows each segment the manifest names but the last.
    const unsigned mask = pl.at("cuts").get<unsigned>();
    std::string cuts;
    for (size_t k = pl.at("places").size() - 1; k-- > 0;) cuts += (mask >> k & 1u) ? '1' : '0';
    row(name, cuts, pl.at("registers_after"), longest);
  }
  // The blocks whose registers the model places by a unit's delay (a tree
  // level, a compare-exchange stage): their longest stage by the model.
  for (const auto& [name, m] : in.manifest.items()) {
    if (!m.contains("stage_model") || !in.blocks.contains(name)) continue;
    const json& sm = m.at("stage_model");
    std::string parts;
    for (const auto& p : sm.at("units_per_stage")) {
      parts += (parts.empty() ? "" : "+") + std::to_string(p.get<int>());
    }
    row(name, fmt::format("{} a stage: {}", sm.at("unit").get<std::string>(), parts), nullptr,
        sm.at("longest_stage_fo4").get<double>());
  }
  return rows;
}

// The report's JSON: the run's settings, the blocks with their FO4 paths and SRAM estimates,
// and the figures drawn from them.
json report_json(const ReportInputs& in) {
  json j;
  j["config"] = in.config;
  j["library"] = in.library;
  j["liberty"] = in.liberty;
  j["tools"] = in.tools;
  j["fo4_ns"] = num(in.fo4, 5);
  j["clock"] = {{"period_fo4", in.period_fo4},
                {"period_ns", num(in.period_ns, 4)},
                {"frequency_mhz", num(1e3 / in.period_ns, 2)}};
  j["constraints"] = {{"io_budget", in.io_budget},
                      {"input_delay_ns", num(in.io_budget * in.period_ns, 4)},
                      {"output_delay_ns", num(in.io_budget * in.period_ns, 4)},
                      {"input_drive", "BUFX2"},
                      {"output_load", "four INVX1 inputs"},
                      {"clock", "ideal"}};
  j["power"] = {{"activity", in.activity}, {"method", "vectorless, uniform"}};
  if (!in.workload.empty()) j["power"]["from_activity"] = in.workload;
  j["nand2_area_um2"] = in.nand2_area;
  j["sram_um2_per_bit"] = in.sram_um2_per_bit;
  json blocks = in.blocks;
  for (auto& [name, r] : blocks.items()) {
    r["timing"]["critical_path_fo4"] = num(r["timing"]["critical_path"].get<double>() / in.fo4, 1);
    for (auto& m : r["memories"]) {
      m["sram_estimate_um2"] = num(m["bits"].get<double>() * in.sram_um2_per_bit, 1);
    }
  }
  j["blocks"] = blocks;
  j["comparisons"] = comparisons(in);
  j["table2"] = table2(in);
  j["delay_model"] = delay_model(in);
  j["three_ways"] = three_ways(in);
  j["power_from_activity"] = activity_summary(in);
  return j;
}

// The heading: the library, the clock, the constraints and the power's method.
std::string intro_md(const ReportInputs& in) {
  std::string md =
      fmt::format("# Area, timing and power of config `{}` in {}\n\n", in.config, in.library);
  md += fmt::format(
      "Library `{}`; {}. FO4 = {:.4f} ns (an inverter driving four, measured by OpenSTA on an "
      "inverter chain in this run). Clock target {:.0f} FO4 = {:.3f} ns ({:.1f} MHz), ideal clock; "
      "inputs and outputs {:.0f} % of the period outside the block, inputs driven by BUFX2, "
      "outputs loaded by four INVX1 inputs. High-fanout nets buffered by qflow's blifFanout. "
      "Power: OpenSTA, vectorless, every net {:.2f} toggles a cycle at the target clock (the "
      "power from a workload's activity, where measured, in its own section). No wires "
      "(the library has no wire-load model): see docs/ppa.md for what these figures mean and do "
      "not mean.\n\n",
      in.liberty, in.tools, in.fo4, in.period_fo4, in.period_ns, 1e3 / in.period_ns,
      in.io_budget * 100, in.activity);
  return md;
}

// The blocks' area, timing and vectorless power, and their critical paths.
std::string blocks_md(json& blocks) {
  std::string md;
  md += "## Blocks\n\n";
  md +=
      "| block | area um2 | logic um2 | flip-flops um2 | memory flops um2 | NAND2-eq | cells | "
      "critical path ns | FO4 | slack ns | met | vectorless power mW (int / sw / leak) | note |\n";
  md +=
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n";
  for (const auto& [name, r] : blocks.items()) {
    const json& a = r["area_um2"];
    const json& p = r["power_w"];
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {:.0f} | {} | {:.3f} | {:.1f} | {:.3f} | {} | "
        "{:.3f} ({:.3f} / {:.3f} / {:.2e}) | {} |\n",
        name, fmt_area(a["total"]), fmt_area(a["logic"]), fmt_area(a["sequential"]),
        fmt_area(a["memory_flops"]), r["nand2_eq"]["total"].get<double>(), r["cells"].get<long>(),
        r["timing"]["critical_path"].get<double>(), r["timing"]["critical_path_fo4"].get<double>(),
        r["timing"]["slack"].get<double>(), r["timing"]["met"].get<bool>() ? "yes" : "**no**",
        p["total"].get<double>() * 1e3, p["internal"].get<double>() * 1e3,
        p["switching"].get<double>() * 1e3, p["leakage"].get<double>() * 1e3,
        r.value("scaled", false) ? "scaled: " + r.value("note", "") : r.value("note", ""));
  }
  md +=
      "\nCritical paths (the path of least slack; ns are the block's own share: the period less "
      "the slack and the external delays on the path):\n\n";
  md +=
      "| block | from | to | cells on path | WNS ns | TNS ns |\n| --- | --- | --- | ---: | ---: | "
      "---: |\n";
  for (const auto& [name, r] : blocks.items()) {
    const json& t = r["timing"];
    md +=
        fmt::format("| {} | `{}` | `{}` | {} | {:.3f} | {:.3f} |\n", name,
                    t["startpoint"].get<std::string>(), t["endpoint"].get<std::string>(),
                    t["cells_on_path"].get<int>(), t["wns"].get<double>(), t["tns"].get<double>());
  }
  return md;
}

// Ours against the baselines.
std::string comparisons_md(json& j) {
  std::string md;
  md += "\n## Comparisons (ours / baseline, same clock target)\n\n";
  md +=
      "| comparison | area, total | area, logic only | power | ours meets clock | baseline meets "
      "clock |\n| --- | ---: | ---: | ---: | --- | --- |\n";
  for (const auto& c : j["comparisons"]) {
    auto yes = [&](const char* k) {
      return c.contains(k) ? (c[k].get<bool>() ? "yes" : "no") : "-";
    };
    md +=
        fmt::format("| {} | {} | {} | {} | {} | {} |\n", c["name"].get<std::string>(),
                    fmt_num(c.value("area_total", json(nullptr))),
                    fmt_num(c.value("area_logic", json(nullptr))),
                    fmt_num(c.value("power", json(nullptr))), yes("ours_met"), yes("baseline_met"));
  }
  md +=
      "\n\"Logic only\" leaves out the flip-flops of the buffers listed below on both sides "
      "(equal memory accounting).\n";
  return md;
}

// The buffers, in flip-flops or SRAMs, and what the clock leaves the SRAMs.
std::string memories_md(const ReportInputs& in, json& blocks) {
  std::string md;
  md += "\n## Memories\n\n";
  md += fmt::format(
      "Each buffer in flip-flops, or in an SRAM: a black box of the netlist (docs/sram.md) "
      "whose estimate at {:.2f} um2 a bit is in its block's total area (docs/ppa.md, "
      "\"Memories\").\n\n",
      in.sram_um2_per_bit);
  md +=
      "| block | buffer | bits | kind | flip-flop area um2 | SRAM estimate um2 | what |\n"
      "| --- | --- | ---: | --- | ---: | ---: | --- |\n";
  for (const auto& [name, r] : blocks.items()) {
    for (const auto& m : r["memories"]) {
      md += fmt::format("| {} | {} | {} | {} | {:.0f} | {:.0f} | {} |\n", name,
                        m["name"].get<std::string>(), m["bits"].get<long>(),
                        m.value("kind", "flip-flops"), m["flop_area_um2"].get<double>(),
                        m["sram_estimate_um2"].get<double>(), m["what"].get<std::string>());
    }
  }
  // What the clock leaves a macro (docs/sram.md, "The real-library flow").
  for (const auto& [name, r] : blocks.items()) {
    if (!r["timing"].contains("sram")) continue;
    const json& t = r["timing"]["sram"];
    md += fmt::format(
        "\n`{}`'s SRAMs at this clock: a clock-to-output of up to {:.3f} ns (the worst path from "
        "the read data ends at {}) and a setup time of up to {:.3f} ns (the worst path into "
        "them starts at {}).\n",
        name, t["clock_to_output_allowed"].get<double>(), t["read_endpoint"].get<std::string>(),
        t["setup_allowed"].get<double>(), t["write_startpoint"].get<std::string>());
  }
  return md;
}

// The FP units' and engines' delay model against the measured critical paths.
std::string delay_model_md(const ReportInputs& in, json& j) {
  std::string md;
  md += "\n## The delay model against the measurement\n\n";
  md += fmt::format(
      "The generator places each FP unit's registers, and those of the top-k engines' trees "
      "and network, by the delay model (model/perf/fp_delay.hpp, docs/fp_rtl.md): its longest "
      "stage, and whether it fits the model's budget of a stage at {:.0f} FO4 ({:.0f} FO4: 90 % "
      "of the period less a register's 5), beside the critical path measured here (a "
      "register's clock-to-output or setup included; for an engine, possibly another path) "
      "and whether it met the clock. A ratio drifting far from 1, or a block the model fits "
      "that misses the clock, says the model's table wants measuring again.\n\n",
      in.period_fo4, fp_stage_budget_fo4(int(std::lround(in.period_fo4))));
  md +=
      "| unit | places cut (Cuts) | registers after | model: longest stage FO4 | model fits | "
      "measured "
      "FO4 | measured / model | met |\n| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |\n";
  for (const auto& r : j["delay_model"]) {
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", r["block"].get<std::string>(),
        r["cuts"].get<std::string>(),
        r["registers_after"].is_null() ? std::string("") : r["registers_after"].dump(),
        fmt_num(r["model_longest_stage_fo4"], 1), r["model_fits"].get<bool>() ? "yes" : "no",
        fmt_num(r["measured_critical_path_fo4"], 1), fmt_num(r["measured_over_model"], 2),
        r["measured_met"].get<bool>() ? "yes" : "**no**");
  }
  return md;
}

// The paper's Table II beside ours.
std::string table2_md(const ReportInputs& in, const json& t2) {
  std::string md;
  md += "\n## The paper's Table II side by side\n\n";
  md += fmt::format(
      "Each row relative to one 32-input FP16 MAC tree (the paper's MAC Tree row; ours: {}, {} "
      "um2). The paper's figures are TSMC 28 nm at 500 MHz; ours are {} at {:.0f} FO4. Power of "
      "the buffers is not estimated as SRAM (\"-\").\n\n",
      t2["reference"].get<std::string>(), fmt_num(t2["reference_area_um2"], 0), in.library,
      in.period_fo4);
  md +=
      "| row | paper: specification | paper area / MAC tree | ours area / MAC tree | paper "
      "power / MAC tree | ours power / MAC tree, vectorless | ours, from activity | ours um2 | "
      "ours mW, vectorless | ours from |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& r : t2["rows"]) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      r["module"].get<std::string>(), r["specification"].get<std::string>(),
                      fmt_num(r["paper_area_vs_mac_tree"]),
                      fmt_num(r.value("ours_area_vs_mac_tree", json(nullptr))),
                      fmt_num(r["paper_power_vs_mac_tree"]),
                      fmt_num(r.value("ours_power_vs_mac_tree", json(nullptr))),
                      fmt_num(r.value("ours_power_from_activity_vs_mac_tree", json(nullptr))),
                      fmt_num(r.value("ours_area_um2", json(nullptr)), 0),
                      r.contains("ours_power_w") && !r["ours_power_w"].is_null()
                          ? fmt::format("{:.3f}", r["ours_power_w"].get<double>() * 1e3)
                          : "-",
                      r["ours_from"].get<std::string>());
  }
  return md;
}

// The plots' data and gnuplot scripts, drawn.
void write_plots(const ReportInputs& in, json& blocks, const json& t2, const fs::path& out) {
  std::string area = "# block logic_um2 memory_flops_um2\n";
  std::string crit = "# block critical_path_fo4\n";
  for (const auto& [name, r] : blocks.items()) {
    area += fmt::format("{} {:.1f} {:.1f}\n", name, r["area_um2"]["logic"].get<double>(),
                        std::max(1.0, r["area_um2"]["memory_flops"].get<double>()));
    crit += fmt::format("{} {:.2f}\n", name, r["timing"]["critical_path_fo4"].get<double>());
  }
  write_text(out / "area.dat", area);
  write_text(out / "critical_path.dat", crit);
  std::string t2d = "# row paper_area ours_area\n";
  for (const auto& r : t2["rows"]) {
    if (r.value("ours_area_vs_mac_tree", json(nullptr)).is_null()) continue;
    std::string label = r["module"].get<std::string>();
    for (char& ch : label) {
      if (ch == ' ') ch = '_';
    }
    t2d += fmt::format("{} {:.6g} {:.6g}\n", label, r["paper_area_vs_mac_tree"].get<double>(),
                       r["ours_area_vs_mac_tree"].get<double>());
  }
  write_text(out / "table2.dat", t2d);
  const std::string common =
      "set terminal pngcairo noenhanced size 1100,600\nset style data histogram\n"
      "set style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
      "set xtics rotate by -35\nset key top left\nset grid ytics\n";
  write_text(out / "area.gp",
             common + fmt::format("set output 'area.png'\nset title 'Area per block, {} (config "
                                  "{})'\nset logscale y\nset ylabel 'um2'\n"
                                  "plot 'area.dat' using 2:xtic(1) title 'logic', '' using 3 title "
                                  "'buffer flip-flops'\n",
                                  in.library, in.config));
  write_text(out / "critical_path.gp",
             common + fmt::format("set output 'critical_path.png'\nset title 'Critical path per "
                                  "block, FO4 of {} (target {:.0f})'\nset ylabel 'FO4'\n"
                                  "plot 'critical_path.dat' using 2:xtic(1) title 'critical path', "
                                  "{:.0f} with lines lw 2 title 'target'\n",
                                  in.library, in.period_fo4, in.period_fo4));
  write_text(out / "table2.gp",
             common +
                 "set output 'table2.png'\nset title 'Table II side by side: area relative "
                 "to one 32-input FP16 MAC tree'\nset logscale y\n"
                 "plot 'table2.dat' using 2:xtic(1) title 'paper (28 nm)', '' using 3 title "
                 "'ours'\n");
  for (const char* gp : {"area.gp", "critical_path.gp", "table2.gp"}) {
    const fs::path log = out / "gnuplot.log";
    if (std::string(gp) == "table2.gp" && t2d.find('\n') == t2d.size() - 1) continue;
    const int st = run_tool({"gnuplot", gp}, log, out);
    if (st != 0) throw ToolError(fmt::format("gnuplot {} failed (log: {})", gp, log.string()));
  }
}

void write_report(const ReportInputs& in, const fs::path& out, bool plots) {
  json j = report_json(in);
  json blocks = j["blocks"];  // a copy: the Markdown's lookups leave the JSON as it is
  fs::create_directories(out);

  // ---- Markdown --------------------------------------------------------
  std::string md = intro_md(in);
  md += blocks_md(blocks);
  md += activity_markdown(in, j["power_from_activity"]);
  md += comparisons_md(j);
  md += three_ways_md(j["three_ways"], in);
  md += memories_md(in, blocks);
  md += delay_model_md(in, j);
  const json& t2 = j["table2"];
  md += table2_md(in, t2);
  if (plots) {
    md +=
        "\n## Plots\n\n![area per block](area.png)\n\n![critical path per block](critical_path.png)"
        "\n\n![Table II side by side](table2.png)\n";
  }
  write_text(out / "ppa.json", j.dump(2) + "\n");
  write_text(out / "ppa.md", md);
  if (!plots) return;

  // ---- Plots -----------------------------------------------------------
  write_plots(in, blocks, t2, out);
}

void write_sweep(const json& rows, const std::string& config, const fs::path& out, bool plots) {
  // Blocks in the order they came, each with its rows by falling target.
  std::vector<std::string> blocks;
  std::map<std::string, std::vector<json>> by_block;
  for (const auto& r : rows) {
    const std::string b = r["block"].get<std::string>();
    if (!by_block.count(b)) blocks.push_back(b);
    by_block[b].push_back(r);
  }
  for (auto& [b, rs] : by_block) {
    std::sort(rs.begin(), rs.end(), [](const json& x, const json& y) {
      return x["target_fo4"].get<double>() > y["target_fo4"].get<double>();
    });
  }
  json j;
  j["config"] = config;
  j["rows"] = rows;
  std::string md = fmt::format(
      "# Area against clock period: config {}\n\n"
      "Each block measured at each clock target with the config's `target_period_fo4` set to "
      "it (the floating-point units pipelined for it, docs/fp_rtl.md). The shortest period a "
      "block achieves is the target less its slack; area is relative to the block at its "
      "loosest target. Register stages: the config's `fp_pipeline_stages` at the target, and "
      "for a floating-point unit block the stages the unit itself takes there (docs/fp_rtl.md, "
      "The unit blocks).\n\n"
      "| block | target FO4 | fp_pipeline_stages | unit's stages | area um2 | area, relative | "
      "critical path FO4 | shortest period FO4 | slack ns | met | power mW |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n",
      config);
  for (const auto& b : blocks) {
    const double base = by_block[b].front()["area_um2"].get<double>();
    for (const auto& r : by_block[b]) {
      md += fmt::format(
          "| {} | {:.0f} | {} | {} | {:.0f} | {:.2f} | {:.1f} | {:.1f} | {:.2f} | {} | "
          "{:.1f} |\n",
          b, r["target_fo4"].get<double>(), r["fp_pipeline_stages"].get<int>(),
          r.contains("register_stages") ? std::to_string(r["register_stages"].get<int>()) : "",
          r["area_um2"].get<double>(), r["area_um2"].get<double>() / base,
          r["critical_path_fo4"].get<double>(), r["min_period_fo4"].get<double>(),
          r["slack_ns"].get<double>(), r["met"].get<bool>() ? "yes" : "no",
          r["power_w"].get<double>() * 1e3);
    }
  }
  if (plots) md += "\n![area against period](area_period.png)\n";
  write_text(out / "sweep.json", j.dump(2) + "\n");
  write_text(out / "sweep.md", md);
  if (!plots) return;
  // One data block per block (gnuplot's index), x the shortest period, y the area.
  std::string dat, plot;
  for (size_t k = 0; k < blocks.size(); ++k) {
    dat += fmt::format("# {}\n", blocks[k]);
    for (const auto& r : by_block[blocks[k]]) {
      dat += fmt::format("{:.1f} {:.1f} {:.0f}\n", r["min_period_fo4"].get<double>(),
                         r["area_um2"].get<double>(), r["target_fo4"].get<double>());
    }
    dat += "\n\n";
    plot += fmt::format("{}'area_period.dat' index {} using 1:2 with linespoints lw 2 title '{}'",
                        k ? ", " : "", k, blocks[k]);
  }
  write_text(out / "area_period.dat", dat);
  write_text(out / "area_period.gp",
             fmt::format("set terminal pngcairo noenhanced size 1000,650\n"
                         "set output 'area_period.png'\n"
                         "set title 'Area against the shortest period achieved, config {}'\n"
                         "set xlabel 'shortest period, FO4'\nset ylabel 'area, um2'\n"
                         "set logscale y\nset grid\nset key outside right\nplot {}\n",
                         config, plot));
  const fs::path log = out / "gnuplot.log";
  if (run_tool({"gnuplot", "area_period.gp"}, log, out) != 0) {
    throw ToolError(fmt::format("gnuplot area_period.gp failed (log: {})", log.string()));
  }
}

}  // namespace oasis::ppa
