// SPDX-License-Identifier: Apache-2.0
// A reader of Liberty (.lib) cell libraries, as much as the PPA flow needs:
// every cell's area, leakage, pins (direction, function, capacitances), its
// state (an ff or latch group: next state, clock, clear and preset), and its
// internal power tables, which the power from activity reads (sim/ppa/power.hpp).
// Boolean functions are parsed as OpenSTA parses them. Timing tables are
// skipped: OpenSTA reads those itself.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::ppa {

/// A Liberty file that cannot be read: the message names the file and line.
struct LibertyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A Boolean function of a cell's pins or state variables, as Liberty writes them
/// (`function`, `next_state`, `clear`): `!` before and `'` after a term negate it; terms side
/// by side are and, binding tightest; then `^` xor, `&` or `*` and, `+` or `|` or, each
/// left-associative: the trees OpenSTA's LibertyExprParse builds (the shape matters to the
/// power model, which reads the tree: sim/ppa/power.hpp).
struct LibertyFunc {
  enum class Op { kPort, kNot, kAnd, kOr, kXor, kOne, kZero };
  struct Node {
    Op op = Op::kZero;
    std::string port;           ///< kPort: the pin or state variable
    int left = -1, right = -1;  ///< operands (kNot: left only)
  };
  std::vector<Node> nodes;  ///< operands before the nodes that read them
  int root = -1;            ///< -1: no function

  bool empty() const { return root < 0; }
  /// The value with each port's value from `value`.
  bool eval(const std::function<bool(const std::string&)>& value) const;
  /// The ports it reads, each once, in order of first appearance.
  std::vector<std::string> ports() const;
};
/// Parses `text` (a LibertyError naming `where` when it is not a function).
LibertyFunc parse_liberty_func(const std::string& text, const std::string& where);

/// A table of a power group: one or two axes (each named by its template's variable, e.g.
/// total_output_net_capacitance, input_transition_time), values row by row of axis 1.
struct LibertyTable {
  std::vector<std::string> variables;
  std::vector<double> index1, index2;
  std::vector<double> values;  ///< index1.size() x max(1, index2.size())
  /// The value at `slew` (library time unit) and `load` (capacitive load unit), interpolated and
  /// extrapolated linearly on each axis between its two nearest points, as OpenSTA does.
  double lookup(double slew, double load) const;
};

/// An internal_power group: the energy of one transition of the pin it belongs to (an output,
/// caused by its related pin; or an input's own, without a related pin), in the library's energy
/// unit (its voltage unit squared times its capacitive load unit).
struct LibertyInternalPower {
  std::string pin;          ///< the pin whose group holds it
  std::string related_pin;  ///< "" for an input's own (passive) energy
  std::string when;         ///< a condition, as written ("" if none)
  std::optional<LibertyTable> rise, fall;
};

/// An ff or latch group.
struct LibertySequential {
  bool latch = false;
  std::string state, state_inverted;  ///< the variables it names (IQ, IQN)
  LibertyFunc next;                   ///< ff: next_state; latch: data_in
  LibertyFunc clock;                  ///< ff: clocked_on; latch: enable
  LibertyFunc clear, preset;          ///< asynchronous; empty when absent
  char clear_preset_var1 = 'X';       ///< the state when both are active: L, H, N, T or X
};

struct LibertyPin {
  std::string name;
  std::string direction;    ///< "input", "output" or "inout"
  std::string function;     ///< the Boolean function of an output, as written ("" if none)
  std::string three_state;  ///< when the output is driven off, as written ("" if never)
  double capacitance = 0;   ///< in the library's capacitive load unit
  double rise_capacitance = 0, fall_capacitance = 0;  ///< capacitance unless given
  bool clock = false;
};

struct LibertyCell {
  std::string name;
  double area = 0;          ///< in the library's area unit (um2 for osu018)
  double leakage = 0;       ///< cell_leakage_power, in the library's leakage power unit
  bool sequential = false;  ///< holds state: an ff or latch group
  std::vector<LibertyPin> pins;
  std::optional<LibertySequential> state;  ///< its ff or latch group, when it has one
  std::vector<LibertyInternalPower> internal_power;

  const LibertyPin* pin(const std::string& pin_name) const;
  std::vector<std::string> outputs() const;
};

struct Liberty {
  std::string name;
  std::string path;
  std::string time_unit;             ///< e.g. "1ns"
  std::string cap_unit;              ///< e.g. "1pf" (capacitive_load_unit (1,pf))
  std::string leakage_unit = "1nW";  ///< leakage_power_unit
  std::string voltage_unit = "1V";
  double voltage = 0;  ///< the default operating conditions' (else nom_voltage), voltage unit
  std::map<std::string, LibertyCell> cells;

  /// The cell, or a LibertyError naming the cells there are.
  const LibertyCell& cell(const std::string& cell_name) const;
  bool has(const std::string& cell_name) const { return cells.count(cell_name) != 0; }
  /// Seconds in one time unit of the library (1e-9 for "1ns").
  double time_unit_seconds() const;
  /// Farads in one capacitive load unit (1e-12 for pf).
  double cap_unit_farads() const;
  /// Volts in one voltage unit.
  double voltage_unit_volts() const;
  /// Watts in one leakage power unit (1e-9 for "1nW").
  double leakage_unit_watts() const;
  /// Joules in one energy unit of the internal power tables: the voltage unit squared times
  /// the capacitive load unit (1e-12 for osu018, pJ), as OpenSTA reads them.
  double energy_unit_joules() const {
    return voltage_unit_volts() * voltage_unit_volts() * cap_unit_farads();
  }
};

Liberty read_liberty(const std::filesystem::path& path);
/// The same from text (tests); `where` names it in messages.
Liberty parse_liberty(const std::string& text, const std::string& where);

}  // namespace oasis::ppa
