// SPDX-License-Identifier: Apache-2.0
// The section of make ppa's report that holds the three ways to a 4-bit GEMM side by side at
// the PE line's throughput (docs/woq_lut_line.md, "Measured"): the FP16 dequantize-and-MAC line,
// the FIGLUT-class LUT line and the OASIS PE line (with the config's codebooks and, when the
// flow measured it, the other kind), each's area, power, energy per weight-activation product
// and products a cycle per mm2, and the ratio of each to the others.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/ppa/report.hpp"

namespace oasis::ppa {

/// The label under which oasis-ppa puts the PE line measured with the other codebooks than the
/// config's ("free" or "symmetric"): pe_line_codebooks_<kind>.
std::string pe_line_codebooks_label(const std::string& kind);

/// A block's power in W as the flow estimated it: the one place the report reads it, so that a
/// power from simulated activity can take the vectorless estimate's place.
double block_power_w(const nlohmann::ordered_json& result);

/// The lines measured, each with its figures, and the ratios of each to the others (also in
/// ppa.json as `three_ways`); an empty list of lines when fewer than two were measured.
nlohmann::ordered_json three_ways(const ReportInputs& in);
/// The section's Markdown, from three_ways()'s JSON; empty when it has fewer than two lines.
std::string three_ways_md(const nlohmann::ordered_json& t, const ReportInputs& in);

}  // namespace oasis::ppa
