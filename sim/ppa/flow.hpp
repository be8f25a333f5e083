// SPDX-License-Identifier: Apache-2.0
// The real-library flow of one block (docs/ppa.md): Yosys maps the generated
// RTL to a Liberty library in the order the open flows use (synth, dfflibmap,
// abc -liberty with a delay target, opt_clean, stat -liberty), qflow's
// blifFanout buffers high-fanout nets, and OpenSTA times the buffered netlist
// at the target clock and estimates its power at a uniform switching
// activity. Also the FO4 delay of the library, measured the same way.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/ppa/activity.hpp"
#include "sim/ppa/icarus_activity.hpp"
#include "sim/ppa/liberty.hpp"
#include "sim/ppa/reports.hpp"

namespace oasis::ppa {

/// The programs the flow runs.
struct Tools {
  std::string yosys = "yosys";
  std::string sta = "sta";
  std::string blif_fanout = "/usr/lib/qflow/bin/blifFanout";
};

/// The library and the cells the flow uses by name.
struct Technology {
  Liberty lib;
  std::string inverter = "INVX1";  ///< FO4 chain, output loads
  std::string nand2 = "NAND2X1";   ///< the NAND2-equivalent unit
  std::string buffer = "BUFX2";    ///< fanout buffers, input drivers
  std::string clock_buffer = "CLKBUF1";
  std::string full_adder = "FAX1";  ///< oasis_fa maps to it (A B C -> YS YC)
  std::string half_adder = "HAX1";  ///< oasis_ha maps to it (A B -> YS YC)

  /// Checks that the named cells exist (a LibertyError otherwise).
  void check() const;
  /// Four inverter inputs: the load of an FO4 stage and of every output port.
  double fo4_load() const;
  bool has_adders() const { return lib.has(full_adder) && lib.has(half_adder); }
};

/// The FO4 delay: an inverter driving four copies of itself, measured by
/// OpenSTA on a chain of such stages (the middle stages, rise and fall
/// averaged), in the library's time unit (ns for osu018).
struct Fo4 {
  double delay = 0;
  int stages = 0;  ///< stages averaged
};
Fo4 measure_fo4(const Technology& tech, const Tools& tools, const std::filesystem::path& work);

/// How the block is constrained and its power estimated.
struct Constraints {
  double period = 0;       ///< clock period, library time unit
  double io_budget = 0.1;  ///< input and output external delays, as a fraction of the period
  double activity = 0.1;   ///< toggles per net per clock cycle (vectorless)
  double duty = 0.5;       ///< static probability of every net
};

/// A named sub-module of a block reported on its own (a row of the paper's
/// Table II, say), kept as its own hierarchy through mapping.
struct PartSpec {
  std::string instance;  ///< instance name in the block's top module
  std::string module;    ///< its module
  std::string role;      ///< what it is, for the report
};

/// A buffer of the block built from flip-flops today.
struct MemorySpec {
  std::string name;  ///< e.g. "weight_index_buffer"
  std::string what;  ///< a line for the report
  long bits = 0;
  std::vector<std::string> registers;  ///< register names from the block's top, e.g. "u_x.mem_q"
  /// An SRAM (docs/sram.md): the module a macro replaces, left out of the netlist as a black
  /// box and counted in bits, and its instance from the block's top; empty for flip-flops.
  std::string sram_module;
  std::string sram_instance;
};

/// The power from activity of a job (docs/ppa.md, "Power from activity"): its testbench on a
/// workload, or the activity file of an earlier run of the same netlist.
struct ActivityJob {
  TestbenchRun testbench;
  WorkloadSpec workload;
  std::filesystem::path file;  ///< an activity file instead of the testbench's run
  SramEnergy sram;             ///< the SRAMs' access energy, for a block with SRAMs
};

struct BlockJob {
  std::string label;                 ///< names the work folder and the result
  std::string top;                   ///< top module
  std::filesystem::path rtl_dir;     ///< the generated folder
  std::vector<std::string> sources;  ///< SystemVerilog files in it, in order
  std::vector<PartSpec> parts;
  std::vector<MemorySpec> memories;
  /// Modules left out as black boxes (measured on their own): their outputs
  /// become inputs of the netlist that is timed, their inputs outputs.
  std::vector<std::string> blackboxes;
  /// Power from activity as well as vectorless; none for a block with black boxes (their
  /// outputs are not recorded).
  std::optional<ActivityJob> activity;
};

/// Runs the flow of one job in `work` (created; its previous content is
/// replaced). Throws ToolError with the log's tail when a tool fails.
/// `progress` gets a line per step.
nlohmann::ordered_json run_block(const BlockJob& job, const Technology& tech, const Tools& tools,
                                 const Constraints& constraints, const std::filesystem::path& work,
                                 const std::function<void(const std::string&)>& progress);

/// The power from activity of a job whose netlist run_block wrote in `work`: the testbench's
/// workload recorded in <work>/workload, the netlist simulated on it, or the job's activity
/// file read. The block's `activity` figures (sim/ppa/activity.hpp).
nlohmann::ordered_json run_activity(const BlockJob& job, const Technology& tech,
                                    const Constraints& c, const std::filesystem::path& work,
                                    const std::function<void(const std::string&)>& progress);

/// For a job run_activity measured: its counts against Icarus Verilog's on the library's own
/// cell models, and with `o.timed` the glitches zero delay misses (sim/ppa/icarus_activity.hpp).
nlohmann::ordered_json run_activity_checks(const BlockJob& job, const Technology& tech,
                                           const Constraints& c, const std::filesystem::path& work,
                                           const IcarusCheckOptions& o);

/// The Yosys scripts of a job (exposed for the tests and the reuse key). They
/// run in the job's work folder, where `rtl` links to the generated folder
/// and `cells.lib` to the Liberty file, so no path in them has a space. The
/// first synthesizes module by module and writes synth.il and generic.stat;
/// the second maps it to the library, flat but for the modules in `kept`.
std::string yosys_synth_script(const BlockJob& job, const Technology& tech);
std::string yosys_map_script(const BlockJob& job, const Technology& tech, const Constraints& c,
                             const std::set<std::string>& kept);
/// The modules mapped once each rather than flattened: the job's parts and,
/// in a block of more than kFlatMaxCells generic cells (whose flat mapping
/// takes abc hours), every module used at least kKeptMinInstances times with
/// at least kKeptMinCells generic cells (a sorting network's compare-exchange,
/// an Orizuru unit, a floating-point unit of a tree), from synthesis' stat.
std::set<std::string> kept_modules(const BlockJob& job,
                                   const std::map<std::string, StatModule>& generic_stat);
/// Generic cells of a module with everything below it, from synthesis' stat.
double generic_cell_count(const std::string& module,
                          const std::map<std::string, StatModule>& generic_stat);
inline constexpr double kFlatMaxCells = 250000;
inline constexpr double kKeptMinInstances = 4;
inline constexpr double kKeptMinCells = 50;
/// The job has SRAMs (docs/sram.md) and they are its only black boxes: the flow then also
/// writes the netlist with their instances and times the paths from and to them.
bool only_sram_boxes(const BlockJob& job);

/// The OpenSTA script of a job's buffered netlist (netlist.v), run there too. With `srams`
/// (the job's only black boxes are SRAMs, docs/sram.md) it also reports the worst path from
/// their read data and the worst into their inputs: the time a macro may take.
std::string sta_script(const std::string& top, bool clocked, const Technology& tech,
                       const Constraints& c, bool srams = false);

/// Bumped whenever the flow changes what it measures, so older results are
/// not reused.
inline constexpr int kFlowVersion = 6;

/// Rounds of turning full and half adders with a constant input into logic
/// before the rest become the library's cells: a level of a tree a round (the
/// binary32 multiplier's carry-save tree has 7).
inline constexpr int kConstantAdderRounds = 10;

}  // namespace oasis::ppa
