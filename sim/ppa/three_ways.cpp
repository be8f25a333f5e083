// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/three_ways.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace oasis::ppa {

using json = nlohmann::ordered_json;

std::string pe_line_codebooks_label(const std::string& kind) { return "pe_line_codebooks_" + kind; }

double block_power_w(const json& result) { return result.at("power_w").at("total").get<double>(); }

namespace {

// A line of the table: the key of its result, what it is, and its products a cycle.
struct Line {
  std::string key, name;
  double products_per_cycle = 0;
};

// The lines measured, each with its weight-activation products a cycle unthrottled: K a row
// interval for the MAC and PE lines, the FIGLUT-class line's figure, the other codebooks' PE
// line's as the flow recorded it beside its result.
std::vector<Line> lines(const ReportInputs& in) {
  const double k = in.config_json.at("channels").get<double>();
  const auto figure = [&](const std::string& block, const char* key) {
    return in.manifest.contains(block) ? in.manifest.at(block).value(key, 0.0) : 0.0;
  };
  const std::string kind = in.config_json.value("codebooks", "free");
  const std::string other = kind == "free" ? "symmetric" : "free";
  std::vector<Line> all = {{"mac_line_baseline", "FP16 dequantize-and-MAC line (W4 codebook, A16)",
                            k / figure("mac_line_baseline", "row_interval_cycles")},
                           {"woq_lut_line_baseline", "FIGLUT-class LUT line (W4 uniform, A16)",
                            figure("woq_lut_line_baseline", "products_per_cycle")},
                           {"pe_line", fmt::format("OASIS PE line, {} codebooks (W4A4)", kind),
                            k / figure("pe_line", "row_interval_cycles")},
                           {pe_line_codebooks_label(other),
                            fmt::format("OASIS PE line, {} codebooks (W4A4)", other), 0}};
  std::vector<Line> out;
  for (Line& l : all) {
    if (!in.blocks.contains(l.key)) continue;
    const json& r = in.blocks.at(l.key);
    if (r.contains("products_per_cycle")) l.products_per_cycle = r.at("products_per_cycle");
    if (l.products_per_cycle > 0 && std::isfinite(l.products_per_cycle)) out.push_back(l);
  }
  return out;
}

json rounded(double v, int digits) {
  if (!std::isfinite(v)) return nullptr;
  const double f = std::pow(10.0, digits);
  return std::round(v * f) / f;
}

std::string shown(const json& v, int digits) {
  return v.is_null() ? "-" : fmt::format("{:.{}f}", v.get<double>(), digits);
}

}  // namespace

json three_ways(const ReportInputs& in) {
  json rows = json::array();
  for (const Line& l : lines(in)) {
    const json& r = in.blocks.at(l.key);
    const double area = r.at("area_um2").at("total").get<double>();
    const double power = block_power_w(r);
    rows.push_back(
        {{"key", l.key},
         {"name", l.name},
         {"area_um2", rounded(area, 1)},
         {"logic_um2", rounded(r.at("area_um2").at("logic").get<double>(), 1)},
         {"power_w", rounded(power, 9)},
         {"products_per_cycle", rounded(l.products_per_cycle, 4)},
         // W times ns is nJ: a product's share of a cycle's energy, in pJ.
         {"energy_per_product_pj", rounded(power * in.period_ns * 1e3 / l.products_per_cycle, 4)},
         {"products_per_cycle_per_mm2", rounded(l.products_per_cycle / (area * 1e-6), 2)},
         {"met", r.at("timing").at("met")}});
    // From activity when the line was simulated on the workload: its power and its energy over
    // the products the workload computed (fill and drain included).
    json& row = rows.back();
    row["activity_power_w"] = nullptr;
    row["activity_energy_per_product_pj"] = nullptr;
    if (r.contains("activity") && r["activity"].is_object() &&
        r["activity"].contains("energy_per_operation_j")) {
      const json& a = r["activity"];
      row["activity_power_w"] = rounded(a.at("power_w").at("total").get<double>(), 9);
      row["activity_energy_per_product_pj"] =
          rounded(a["energy_per_operation_j"].get<double>() * 1e12, 4);
    }
  }
  json ratios = json::array();
  if (rows.size() >= 2) {
    for (const auto& a : rows) {
      for (const auto& b : rows) {
        if (a["key"] == b["key"]) continue;
        const auto ratio = [&](const char* k) -> json {
          if (a[k].is_null() || b[k].is_null()) return nullptr;
          return rounded(a[k].get<double>() / b[k].get<double>(), 3);
        };
        ratios.push_back({{"of", a["key"]},
                          {"to", b["key"]},
                          {"area_total", ratio("area_um2")},
                          {"area_logic", ratio("logic_um2")},
                          {"power", ratio("power_w")},
                          {"energy_per_product", ratio("energy_per_product_pj")},
                          {"energy_per_product_activity", ratio("activity_energy_per_product_pj")},
                          {"products_per_cycle_per_mm2", ratio("products_per_cycle_per_mm2")}});
      }
    }
  }
  if (rows.size() < 2) rows = json::array();
  return {{"period_ns", rounded(in.period_ns, 4)}, {"lines", rows}, {"ratios", ratios}};
}

std::string three_ways_md(const json& t, const ReportInputs& in) {
  if (t.at("lines").size() < 2) return "";
  std::string md = "\n## Three ways to a 4-bit GEMM at equal throughput\n\n";
  md += fmt::format(
      "Each line sized to the PE line's weight-activation products a cycle (docs/woq_lut_line.md): "
      "the FP16 dequantize-and-MAC line (paper Fig. 1c), the FIGLUT-class LUT line (paper II-B, "
      "Table I: weights one bit-plane a beat, half-size LUTs of mu activations read by "
      "read-accumulate units) and the OASIS PE line. Energy per product: power times the period "
      "({:.3f} ns) over the products a cycle, the power vectorless (every net {} toggles a "
      "cycle); from activity, where the flow simulated the line on the workload, its power and "
      "its energy over the products the workload computed. No published FIGLUT figure is used: "
      "every number is this flow's.\n\n",
      in.period_ns, in.activity);
  md +=
      "| line | area um2 | logic um2 | power mW, vectorless | products a cycle | energy pJ a "
      "product, vectorless | power mW, activity | energy pJ a product, activity | products a "
      "cycle per mm2 | meets clock |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  const auto milli = [](const json& w) {
    return w.is_null() ? std::string("-") : fmt::format("{:.3f}", w.get<double>() * 1e3);
  };
  for (const auto& r : t.at("lines")) {
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["name"].get<std::string>(),
        shown(r["area_um2"], 0), shown(r["logic_um2"], 0), milli(r["power_w"]),
        shown(r["products_per_cycle"], 2), shown(r["energy_per_product_pj"], 3),
        milli(r["activity_power_w"]), shown(r["activity_energy_per_product_pj"], 3),
        shown(r["products_per_cycle_per_mm2"], 0), r["met"].get<bool>() ? "yes" : "**no**");
  }
  md +=
      "\nEach line against each other (row / column line): area, logic area, power, energy a "
      "product (vectorless and from activity), products a cycle per mm2.\n\n"
      "| line | to | area | logic | power | energy a product | energy a product, activity | "
      "products a cycle per mm2 |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& r : t.at("ratios")) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", r["of"].get<std::string>(),
                      r["to"].get<std::string>(), shown(r["area_total"], 3),
                      shown(r["area_logic"], 3), shown(r["power"], 3),
                      shown(r["energy_per_product"], 3),
                      shown(r["energy_per_product_activity"], 3),
                      shown(r["products_per_cycle_per_mm2"], 3));
  }
  return md;
}

}  // namespace oasis::ppa
