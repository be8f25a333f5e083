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
/// netlist writes it ("n_abc_12", "a_i[3]"): its sample of every cycle, just before the rising
/// edge that ends it ('0', '1', or 'x' for X or Z), and its transitions in the run's window,
/// glitches included (one from X not counted).
struct IcarusCounts {
  std::unordered_map<std::string, std::string> samples;
  std::unordered_map<std::string, uint32_t> transitions;
  std::vector<std::string> unknown;  ///< bits X or Z at the window's end: never learnt
  int64_t cycles = 0;                ///< cycles run
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

/// Compares the gate-level simulator's counts with a zero-delay Icarus run's, net by net, over
/// the cycles from the first in which Icarus knows every net (registers without reset, which
/// Icarus starts at X and the simulator at 0, written by then) to the window's end; a bit Icarus
/// never learns is left out. Simulates the netlist again over that window. `icarus_check`
/// {from_cycle, to_cycle, nets_compared, differing, unknown_in_icarus, first_difference}.
nlohmann::ordered_json compare_with_icarus(
    GateSim& sim, const GateNetlist& netlist, const std::filesystem::path& vectors, int64_t end,
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
