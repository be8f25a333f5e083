// SPDX-License-Identifier: Apache-2.0
// A reader of Liberty (.lib) cell libraries, as much as the PPA flow needs:
// every cell's area, leakage, pins (direction, function, capacitance) and
// whether it holds state (an ff or latch group). Timing and power tables are
// skipped: OpenSTA reads those itself.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::ppa {

/// A Liberty file that cannot be read: the message names the file and line.
struct LibertyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LibertyPin {
  std::string name;
  std::string direction;   ///< "input", "output" or "inout"
  std::string function;    ///< the Boolean function of an output, as written ("" if none)
  double capacitance = 0;  ///< in the library's capacitive load unit
  bool clock = false;
};

struct LibertyCell {
  std::string name;
  double area = 0;  ///< in the library's area unit (um2 for osu018)
  double leakage = 0;
  bool sequential = false;  ///< holds state: an ff or latch group
  std::vector<LibertyPin> pins;

  const LibertyPin* pin(const std::string& pin_name) const;
  std::vector<std::string> outputs() const;
};

struct Liberty {
  std::string name;
  std::string path;
  std::string time_unit;  ///< e.g. "1ns"
  std::string cap_unit;   ///< e.g. "1pf" (capacitive_load_unit (1,pf))
  std::map<std::string, LibertyCell> cells;

  /// The cell, or a LibertyError naming the cells there are.
  const LibertyCell& cell(const std::string& cell_name) const;
  bool has(const std::string& cell_name) const { return cells.count(cell_name) != 0; }
  /// Seconds in one time unit of the library (1e-9 for "1ns").
  double time_unit_seconds() const;
};

Liberty read_liberty(const std::filesystem::path& path);
/// The same from text (tests); `where` names it in messages.
Liberty parse_liberty(const std::string& text, const std::string& where);

}  // namespace oasis::ppa
