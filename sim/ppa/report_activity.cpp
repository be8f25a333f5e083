// SPDX-License-Identifier: Apache-2.0
// The power-from-activity part of make ppa's report (docs/ppa.md, "Power from activity"):
// every block's power and energy from its workload beside the vectorless figure, by group
// and by part, the energy of an operation at equal throughput, and what zero delay misses.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/ppa/report.hpp"

namespace oasis::ppa {
namespace {

using json = nlohmann::ordered_json;

double field(const json& j, const char* a, const char* b = nullptr) {
  if (!j.contains(a)) return std::nan("");
  const json& x = j.at(a);
  if (!b) return x.is_number() ? x.get<double>() : std::nan("");
  return x.contains(b) && x.at(b).is_number() ? x.at(b).get<double>() : std::nan("");
}

std::string show(double v, int digits = 3) {
  if (!std::isfinite(v)) return "-";
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return fmt::format("{:.2e}", v);
  return fmt::format("{:.{}f}", v, digits);
}

// The SRAMs' accesses at their energy a bit (part of the blocks' totals).
std::string sram_section(const ReportInputs& in) {
  std::string md;
  std::string srams, source;
  for (const auto& [name, r] : in.blocks.items()) {
    if (!r.contains("activity") || !r["activity"].contains("sram")) continue;
    const json& m = r["activity"]["sram"];
    long reads = 0, writes = 0;
    for (const json& x : m["accesses"]) {
      reads += x["reads"].get<long>();
      writes += x["lane_writes"].get<long>();
    }
    const double total = r["activity"]["power_w"]["total"].get<double>();
    const double mw = m["power_w"].get<double>() * 1e3;
    srams += fmt::format("| {} | {} | {} | {:.0f} | {} | {} | {:.1f} % |\n", name, reads, writes,
                         m["bits"].get<double>(), show(m["pj_per_bit"].get<double>()), show(mw),
                         100 * mw / (total * 1e3));
    source = fmt::format("The energy a bit is {}'s: {}", m["pj_per_bit_file"].get<std::string>(),
                         m["pj_per_bit_source"].get<std::string>());
  }
  if (!srams.empty()) {
    md +=
        "\nSRAM access energy (docs/ppa.md, \"SRAM access energy\"): each SRAM simulated as "
        "its contract says (docs/sram.md), its reads and lane writes over the window counted, "
        "every bit read or written at one energy a bit; in the totals above. " +
        source +
        ".\n\n| block | reads | lane writes | bits | pJ a bit | mW | of the block |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
        srams;
  }
  return md;
}

// Registers clocked while they hold: what ideal clock gating could save at most.
std::string held_section(const ReportInputs& in) {
  std::string md;
  std::string held;
  for (const auto& [name, r] : in.blocks.items()) {
    if (!r.contains("activity") || !r["activity"].contains("clock_held")) continue;
    const json& h = r["activity"]["clock_held"];
    held += fmt::format(
        "| {} | {} | {} | {:.1f} % | {} | {:.1f} % |\n", name, h["flip_flops"].get<long>(),
        show(h["flip_flops_clock_w"].get<double>() * 1e3), 100 * h["held_share"].get<double>(),
        show(h["gating_bound_w"].get<double>() * 1e3),
        100 * h["gating_bound_of_total"].get<double>());
  }
  if (!held.empty()) {
    md +=
        "\nRegisters clocked while they hold (docs/ppa.md, \"Registers clocked while they "
        "hold\"): the flip-flops' clock-pin power, the share of it spent on edges where the "
        "flip-flop's output did not change, and what ideal clock gating (each flip-flop, no "
        "gating cell) could save at most, the clock buffers' power counted in the same share.\n\n"
        "| block | flip-flops | their clock mW | held edges | gating could save mW | of the "
        "block |\n| --- | ---: | ---: | ---: | ---: | ---: |\n" +
        held;
  }
  return md;
}

}  // namespace

json activity_summary(const ReportInputs& in) {
  json s;
  json blocks = json::object();
  double worst_check = 0;
  std::string worst_block;
  for (const auto& [name, r] : in.blocks.items()) {
    if (r.contains("power_check")) {
      const double d = std::fabs(r["power_check"].value("relative", 0.0));
      if (d >= worst_check) {
        worst_check = d;
        worst_block = name;
      }
    }
    if (!r.contains("activity")) continue;
    const json& a = r["activity"];
    const double p = field(a, "power_w", "total"), v = field(r, "power_w", "total");
    json b = {{"power_w", p},
              {"vectorless_w", v},
              {"activity_over_vectorless", v > 0 ? p / v : std::nan("")},
              {"energy_per_cycle_j", field(a, "energy_per_cycle_j")}};
    if (a.contains("energy_per_operation_j")) {
      b["energy_per_operation_j"] = a["energy_per_operation_j"];
      b["operation"] = a.value("operation", "");
    }
    blocks[name] = b;
  }
  s["blocks"] = blocks;
  s["model_against_opensta"] = {{"worst_relative", worst_check}, {"block", worst_block}};
  // Equal throughput: the energy of one weight-activation product, each line on the same layer.
  json cmp = json::array();
  const auto energy = [&](const std::string& b, const char* key = "energy_per_operation_j") {
    return in.blocks.contains(b) && in.blocks[b].contains("activity")
               ? field(in.blocks[b]["activity"], key)
               : std::nan("");
  };
  for (const auto& [ours, base] : std::vector<std::pair<std::string, std::string>>{
           {"pe_line", "mac_line_baseline"},
           {"pe_line", "woq_lut_line_baseline"},
           {"woq_lut_line_baseline", "mac_line_baseline"}}) {
    const double eo = energy(ours), eb = energy(base);
    if (!std::isfinite(eo) || !std::isfinite(eb)) continue;
    const char* weighted = "energy_per_operation_j_arc_weighted";
    cmp.push_back({{"ours", ours},
                   {"baseline", base},
                   {"ours_j_per_product", eo},
                   {"baseline_j_per_product", eb},
                   {"ratio", eo / eb},
                   {"ratio_arc_weighted", energy(ours, weighted) / energy(base, weighted)}});
  }
  s["energy_per_product"] = cmp;
  return s;
}

std::string activity_markdown(const ReportInputs& in, const json& summary) {
  if (summary["blocks"].empty()) return "";
  std::string md = "\n## Power from activity\n\n";
  md += fmt::format(
      "Each block's buffered netlist (the one timed above) simulated on the golden model's "
      "workload, recorded by the block's own Verilator testbench ({}), every net's toggles and "
      "high cycles counted over the workload's window, and OpenSTA's power model evaluated with "
      "them (sim/ppa/power.hpp); zero delay, so glitches are not in it (docs/ppa.md, \"What the "
      "power from activity misses\"). Clock network: two toggles a cycle. The model against "
      "OpenSTA's report_power at the vectorless activity: within {:.2f} % on every block "
      "(worst: {}).\n\n",
      in.workload, 100 * summary["model_against_opensta"]["worst_relative"].get<double>(),
      summary["model_against_opensta"]["block"].get<std::string>());
  md +=
      "| block | window cycles | busy | input toggles /bit/cycle | data nets toggling | mW | "
      "vectorless mW | / vectorless | clock mW | flip-flops mW | logic mW | leakage mW | "
      "pJ a cycle | energy an operation |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | --- |\n";
  for (const auto& [name, r] : in.blocks.items()) {
    if (!r.contains("activity")) continue;
    const json& a = r["activity"];
    const json& p = a["power_w"];
    const json& w = a.contains("workload") ? a["workload"] : json::object();
    const double busy = field(w, "busy_fraction");
    std::string per_op = "-";
    if (a.contains("energy_per_operation_j")) {
      per_op = fmt::format("{} pJ a {}", show(a["energy_per_operation_j"].get<double>() * 1e12),
                           a.value("operation", "operation"));
    }
    const double nets = field(a, "nets", "data_nets"), moving = field(a, "nets", "toggling");
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", name,
        w.contains("cycles") ? std::to_string(w["cycles"].get<long>()) : "-",
        std::isfinite(busy) ? fmt::format("{:.0f} %", 100 * busy) : "-",
        show(field(w, "input_toggle_rate")),
        std::isfinite(nets) && nets > 0 ? fmt::format("{:.0f} %", 100 * moving / nets) : "-",
        show(p["total"].get<double>() * 1e3), show(field(r, "power_w", "total") * 1e3),
        show(summary["blocks"][name]["activity_over_vectorless"].get<double>(), 2),
        show(field(p, "clock") * 1e3), show(field(p, "sequential") * 1e3),
        show(field(p, "combinational") * 1e3), show(field(p, "leakage") * 1e3),
        show(field(a, "energy_per_cycle_j") * 1e12), per_op);
  }
  // Parts.
  bool parts = false;
  for (const auto& [name, r] : in.blocks.items()) {
    parts = parts || (r.contains("activity") && r["activity"].contains("parts"));
  }
  if (parts) {
    md +=
        "\nBy part (the instances whose output lies in the part; the rest is the block's "
        "glue):\n\n| block | part | mW from activity | of which clock mW | share | mW "
        "vectorless |\n| --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const auto& [name, r] : in.blocks.items()) {
      if (!r.contains("activity") || !r["activity"].contains("parts")) continue;
      const double total = r["activity"]["power_w"]["total"].get<double>();
      for (const auto& p : r["activity"]["parts"]) {
        double vectorless = std::nan("");
        if (r.contains("parts")) {
          for (const auto& q : r["parts"]) {
            if (q["instance"] == p["instance"]) vectorless = q["power_w"].get<double>();
          }
        }
        md += fmt::format("| {} | {} ({}) | {} | {} | {:.1f} % | {} |\n", name,
                          p["instance"].get<std::string>(), p["role"].get<std::string>(),
                          show(p["power_w"].get<double>() * 1e3),
                          show(p["clock_w"].get<double>() * 1e3),
                          100 * p["power_w"].get<double>() / total, show(vectorless * 1e3));
      }
    }
  }
  md += sram_section(in) + held_section(in);
  if (!summary["energy_per_product"].empty()) {
    md +=
        "\nAt equal throughput, on the same layer: the energy of one weight-activation product "
        "(each line's power from activity over the products its workload computed).\n\n"
        "| ours | baseline | ours pJ a product | baseline pJ a product | ours / baseline | "
        "the same, later OpenSTA's internal power |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const auto& c : summary["energy_per_product"]) {
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c["ours"].get<std::string>(),
                        c["baseline"].get<std::string>(),
                        show(c["ours_j_per_product"].get<double>() * 1e12),
                        show(c["baseline_j_per_product"].get<double>() * 1e12),
                        show(c["ratio"].get<double>(), 3), show(field(c, "ratio_arc_weighted"), 3));
    }
    md +=
        "\nThe last column charges internal power as later OpenSTA does (a transition costs the "
        "mean of its rise and fall energy, the arcs weighted to one; sim/ppa/power.hpp): a "
        "ratio that holds under both does not hang on the model.\n";
  }
  // The checks against Icarus and the glitches, where they were run.
  std::string checks;
  for (const auto& [name, r] : in.blocks.items()) {
    if (!r.contains("activity")) continue;
    const json& a = r["activity"];
    if (a.contains("icarus_check")) {
      const json& c = a["icarus_check"];
      checks += fmt::format(
          "- `{}`: toggles and high cycles of {} nets against Icarus on the library's own cell "
          "models, zero delay: {} differ ({} left out, unknown in Icarus).\n",
          name, c["nets_compared"].get<long>(), c["differing"].get<long>(),
          c["unknown_in_icarus"].get<long>());
    }
    if (a.contains("glitches")) {
      const json& g = a["glitches"];
      checks += fmt::format(
          "- `{}`: with OpenSTA's delays (SDF) every transition counted, its data power is "
          "{:+.1f} % and its total {:+.1f} % of the zero-delay figure.\n",
          name, 100 * g["data_power_share"].get<double>(),
          100 * g["total_power_share"].get<double>());
    }
  }
  if (!checks.empty()) md += "\nChecks of the activity:\n\n" + checks;
  return md;
}

}  // namespace oasis::ppa
