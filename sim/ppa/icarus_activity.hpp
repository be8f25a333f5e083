// SPDX-License-Identifier: Apache-2.0
// The gate-level simulator's counts checked against Icarus Verilog running the same netlist
// with the library's own cell models (osu018_stdcells.v, its UDPs) on the same recorded
// workload, and what zero-delay simulation misses: the same run with the delays OpenSTA
// computes (SDF), every transition counted, glitches included (docs/ppa.md, "Power from
// activity").
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/ppa/activity.hpp"
#include "sim/ppa/gatesim.hpp"
#include "sim/ppa/power.hpp"

namespace oasis::ppa {

/// What an Icarus run saw of every signal bit of the netlist's top module, named as the
/// netlist writes it ("n_abc_12", "a_i[3]"), over the cycles [begin, end): the cycles it
/// toggled between one sample and the next (sampled just before each rising edge), the
/// cycles it was high there, and every transition (glitches included).
struct IcarusCounts {
  std::unordered_map<std::string, uint32_t> toggles, high, transitions;
  /// Bits X or Z in some sample of the window (a register without reset never written yet,
  /// which the simulator starts at 0): left out of the counts and the comparison.
  std::vector<std::string> unknown;
  int64_t cycles = 0;
};

struct IcarusRun {
  std::filesystem::path work;     ///< the block's work folder: netlist.v, sta.tcl
  std::string top;                ///< the netlist's module
  std::filesystem::path vectors;  ///< the recorded workload
  int64_t begin = 0, end = 0;     ///< the window
  double period = 0;              ///< library time unit (ns)
  double input_delay = 0;         ///< inputs change this long after the clock edge
  bool clocked = true;
  bool timed = false;             ///< with OpenSTA's delays (SDF), else zero delay
  std::filesystem::path cells_v;  ///< the library's Verilog cell models
  std::string sta = "sta";        ///< OpenSTA, which writes the SDF
};

/// Runs Icarus Verilog in <work>/icarus-activity (or -timed) and counts from its VCD.
IcarusCounts icarus_counts(const IcarusRun& run);

/// Compares the gate-level simulator's counts with a zero-delay Icarus run's, net by net:
/// `icarus_check` {nets_compared, differing, first_difference}. Every net must agree.
nlohmann::ordered_json compare_with_icarus(
    const GateSim& sim, const NetActivity& a,
    const std::unordered_map<std::string, std::string>& verilog_names, const IcarusCounts& icarus);

/// How the checks of a block's power from activity run Icarus.
struct IcarusCheckOptions {
  bool timed = false;             ///< also the timed run: what zero delay misses
  std::filesystem::path cells_v;  ///< the library's Verilog cell models
  std::string sta = "sta";
  double input_delay = 0;  ///< library time unit
};

/// For a block whose power from activity run_activity computed in `work`: the zero-delay
/// Icarus run compared net by net with the simulator's counts (`icarus_check`), and with
/// `timed` the run with OpenSTA's delays (`glitches`: the data power with every transition
/// against the zero-delay toggles', overall and by the cell that drives the net).
nlohmann::ordered_json icarus_activity_checks(const ActivityInputs& in,
                                              const std::filesystem::path& work,
                                              const IcarusCheckOptions& o);

}  // namespace oasis::ppa
