// SPDX-License-Identifier: Apache-2.0
// Power of a mapped netlist from per-net switching activity (docs/ppa.md, "Power from
// activity"): the power model of OpenSTA 2.0.17 (search/Power.cc of the Debian snapshot),
// evaluated with each net's own toggle rate and static probability where OpenSTA has one
// global rate. That OpenSTA reads no VCD or SAIF and its `set_power_activity -pins` does not
// work, so the model is evaluated here, from the Liberty file's internal power tables and
// leakage, with the slews OpenSTA computed at every pin and the loads the netlist gives:
//
// - switching: 1/2 C V^2 a / T for each output pin, C its net's load (the pins it drives, max of
//   rise and fall capacitance, plus an output port's load), a its toggles a cycle, T the period;
// - internal: for each internal_power group of a pin, the average of its rise and fall tables
//   (each at the related pin's slew of that transition and the pin's load) times a duty, times
//   the pin's toggles a cycle over T; the duty is OpenSTA's: for an output's arc from an input,
//   the static probability of the condition under which the input alone switches the output
//   (inferred from the function), scaled by the input's toggles over the output's; 1 from a
//   clock pin; 0.5 otherwise;
// - leakage: the cell's cell_leakage_power.
//
// The clock network's pins toggle twice a cycle with probability 0.5 (OpenSTA's clock
// activity). At one activity on every other net this is OpenSTA's report_power; a test holds
// them within 2 % on every block of the default config.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/ppa/gatesim.hpp"
#include "sim/ppa/liberty.hpp"
#include "sim/ppa/netlist.hpp"

namespace oasis::ppa {

/// A net's activity: toggles per clock cycle and the fraction of cycles it is high.
struct Activity {
  double toggles = 0;
  double duty = 0;
};

/// The slews OpenSTA computed at each instance pin ("instance/pin" -> rise, fall), in the
/// library's time unit: the file the flow's OpenSTA script writes (sta_script, slews.txt).
using PinSlews = std::unordered_map<std::string, std::array<float, 2>>;
PinSlews read_slews(const std::filesystem::path& file);

/// One instance's power, watts.
struct InstancePower {
  double internal = 0, switching = 0, leakage = 0;
  /// The part of `internal` and `switching` spent on the clock network: clock buffers, the
  /// flip-flops' clock pins.
  double clock = 0;
  double total() const { return internal + switching + leakage; }
};

/// How internal power is charged (every other part of the model is the same):
/// - kOpenSta2017: OpenSTA 2.0.17's (Debian's), which report_power uses: each output transition
///   costs, for every arc into it, the rise and the fall energy, each times the arc's duty;
/// - kArcWeighted: later OpenSTA's: each output transition costs the mean of an arc's rise and
///   fall energy (the input's slew of the transition that causes it), the arcs weighted by their
///   inputs' toggles times the probability that the input alone switches the output, the
///   weights summing to one; an input's own energy is the mean of its tables too. For a cell of
///   one arc it charges half of what kOpenSta2017 charges.
enum class PowerModel { kOpenSta2017, kArcWeighted };

struct PowerInputs {
  const GateNetlist* netlist = nullptr;
  const GateSim* sim = nullptr;  ///< its nets, pins and clock network
  const Liberty* lib = nullptr;
  const std::vector<std::string>* instances = nullptr;  ///< each gate's instance name
  const PinSlews* slews = nullptr;
  double period = 0;       ///< clock period, library time unit
  double output_load = 0;  ///< the load on every output port bit, capacitive load unit
  PowerModel model = PowerModel::kOpenSta2017;
};

/// Every instance's power with `activity` of each net (clock nets excepted).
std::vector<InstancePower> instance_power(const PowerInputs& in,
                                          const std::function<Activity(int net)>& activity);

/// The sums over instances, by component (internal, switching, leakage) and by group: the
/// clock network (its buffers and the flip-flops' clock pins), the flip-flops' other power, the
/// combinational cells' other power, and leakage; each way they add up to the total.
struct PowerSums {
  double internal = 0, switching = 0, leakage = 0;
  double sequential = 0, combinational = 0, clock = 0;
  double total() const { return internal + switching + leakage; }
};
PowerSums sum_power(const std::vector<InstancePower>& p, const GateNetlist& netlist,
                    const Liberty& lib);

}  // namespace oasis::ppa
