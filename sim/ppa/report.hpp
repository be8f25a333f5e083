// SPDX-License-Identifier: Apache-2.0
// The report of make ppa: ppa.json, ppa.md and gnuplot plots from the
// per-block results of the flow (docs/ppa.md describes every figure).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace oasis::ppa {

/// The default clock target: the paper's 500 MHz at 28 nm in FO4 delays.
/// 2 ns over an FO4 delay of 15.4 ps at 28 nm (osu018's measured 99 ps
/// scaled linearly from 180 nm to 28 nm), docs/ppa.md "Clock target".
inline constexpr double kDefaultPeriodFo4 = 130;
/// The SRAM estimate of a buffer, um2 per bit at 180 nm: a 5.59 um2 6T cell
/// over a 60 % array efficiency (docs/ppa.md, "Memories").
inline constexpr double kDefaultSramUm2PerBit = 9.3;

struct ReportInputs {
  std::string config;
  nlohmann::ordered_json config_json;
  std::string library, liberty, tools;
  double fo4 = 0;  ///< ns
  int fo4_stages = 0;
  double period_fo4 = 0;
  double period_ns = 0;
  double activity = 0, io_budget = 0;
  double nand2_area = 0;
  double sram_um2_per_bit = 0;
  int max_channels = 0;
  std::string workload;             ///< the power from activity's workload, in words ("" for none)
  nlohmann::ordered_json blocks;    ///< block -> the flow's result (scaled where marked)
  nlohmann::ordered_json manifest;  ///< the generated manifest's "blocks" (their figures)
};

/// One row of the paper's Table II (28 nm, 500 MHz), as published.
struct PaperRow {
  std::string module;
  std::string specification;
  double area_mm2;
  double power_w;
};
const std::vector<PaperRow>& paper_table2();

/// The comparisons and the Table II side by side, as JSON (also in ppa.json).
nlohmann::ordered_json comparisons(const ReportInputs& in);
nlohmann::ordered_json table2(const ReportInputs& in);
/// Each pipelined FP unit's longest stage by the delay model beside its
/// measured critical path (also in ppa.json).
nlohmann::ordered_json delay_model(const ReportInputs& in);

/// The power from activity of the blocks that have it: each block's figures beside the
/// vectorless ones, the model's agreement with OpenSTA, the energy of a product at equal
/// throughput (also in ppa.json, `power_from_activity`); and its section of ppa.md.
nlohmann::ordered_json activity_summary(const ReportInputs& in);
std::string activity_markdown(const ReportInputs& in, const nlohmann::ordered_json& summary);

/// Writes out/ppa.json and out/ppa.md, and with `plots` the PNGs (gnuplot).
void write_report(const ReportInputs& in, const std::filesystem::path& out, bool plots);

/// The sweep of clock targets (oasis-ppa --sweep-periods): `rows`, one per block and
/// target (block, target_fo4, fp_pipeline_stages, area_um2, critical_path_fo4,
/// min_period_fo4, slack_ns, met, power_w), as out/sweep.json and out/sweep.md (area
/// relative to the block at its loosest target), and with `plots` out/area_period.png:
/// each block's area against the shortest period it achieves.
void write_sweep(const nlohmann::ordered_json& rows, const std::string& config,
                 const std::filesystem::path& out, bool plots);

}  // namespace oasis::ppa
