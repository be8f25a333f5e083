// SPDX-License-Identifier: Apache-2.0
// Readers of what Yosys and OpenSTA print: `stat -liberty` per module, and
// report_checks, report_wns / report_tns and report_power.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::ppa {

struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One module of `stat` (with or without -liberty): its own cells by type (a
/// submodule instance is a cell of the submodule's type) and, with -liberty,
/// the area of its own library cells.
struct StatModule {
  std::map<std::string, long> cells;
  long cell_count = 0;
  double own_area = 0;
  bool has_area = false;
};
/// Every module of a `stat` report, by name (Yosys's escaping removed:
/// "\oasis_x" -> "oasis_x"). The "design hierarchy" summary is skipped.
std::map<std::string, StatModule> parse_yosys_stat(const std::string& text);
/// The leaf cells of module `top` of a hierarchical `stat`, by type, with every submodule
/// instance's counted in (a cell whose type is a module of the report is that module's cells):
/// the figures of the flattened design, without flattening it.
std::map<std::string, long> leaf_cells(const std::map<std::string, StatModule>& stat,
                                       const std::string& top);

/// One timing path of report_checks.
struct TimingPath {
  std::string startpoint, endpoint;
  std::string start_kind, end_kind;  ///< the parenthesised descriptions
  std::string group;
  double arrival = 0;   ///< data arrival time
  double required = 0;  ///< data required time
  double slack = 0;
  double input_delay = 0;           ///< "input external delay" on the launching side, 0 if none
  double output_delay = 0;          ///< "output external delay" on the capturing side, 0 if none
  std::vector<std::string> points;  ///< the path's pins in order, e.g. "u_x/Y (NAND2X1)"
  std::vector<double> times;        ///< arrival time at each of `points`
};
std::vector<TimingPath> parse_report_checks(const std::string& text);

/// "wns X" / "tns X" lines.
double parse_sta_value(const std::string& text, const std::string& key);

struct PowerRow {
  double internal = 0, switching = 0, leakage = 0, total = 0;
};
/// report_power's group table: rows "Sequential", "Combinational", "Macro",
/// "Pad", "Total".
std::map<std::string, PowerRow> parse_report_power(const std::string& text);
/// report_power -instances: instance -> its row.
std::map<std::string, PowerRow> parse_instance_power(const std::string& text);

}  // namespace oasis::ppa
