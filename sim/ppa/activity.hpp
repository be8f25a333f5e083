// SPDX-License-Identifier: Apache-2.0
// Power from the switching activity of a real workload (docs/ppa.md, "Power from activity"):
// a block's Verilator testbench runs the golden model's workload (the seeded synthetic
// LLM-like layer quantized by the model, or a user's tensors) and records every port every
// cycle; the buffered netlist that OpenSTA timed replays the recording in the gate-level
// simulator (sim/ppa/gatesim.hpp), which counts every net's toggles and high cycles over the
// workload's window; the power model (sim/ppa/power.hpp) turns them into watts, with
// OpenSTA's slews. The block's figures gain an `activity` entry: power by group and by part,
// energy a cycle and an operation, and the workload's own statistics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/ppa/gatesim.hpp"
#include "sim/ppa/liberty.hpp"
#include "sim/ppa/netlist.hpp"
#include "sim/ppa/power.hpp"

namespace oasis::ppa {

struct PartSpec;

/// The workload a block's activity is measured on: the testbenches' `--workload` mode
/// (docs/workload.md).
struct WorkloadSpec {
  std::string activations, weights;  ///< a user's .npy tensors; empty: the synthetic layer
  int tokens = 0, rows = 0;          ///< 0: the testbench's defaults
  uint64_t seed = 1;
  bool zeros = false;  ///< the layer's data held at zero (the clock floor's check)
  /// The testbench's arguments for it.
  std::vector<std::string> testbench_args() const;
  /// Everything that names it, for the flow's reuse key (the tensors by their contents).
  std::string key() const;
};

/// A block's Verilator testbench as the flow runs it: `<build>/oasis-vltest`.
struct TestbenchRun {
  std::string block;
  std::string config_path;
  std::vector<std::string> sets;  ///< --set overrides of the config
  std::filesystem::path build;    ///< the build folder, with oasis-vltest
  std::string source;             ///< the project's source folder (testbenches, configs)
  std::string label;              ///< its Verilator build: build/vl/<block>/<label>
};

/// A recorded workload run: the vector file and what the testbench said of it (its
/// `workload` figure: window, operations, busy cycles, tokens, rows, source, seed).
struct RecordedWorkload {
  std::filesystem::path vectors;
  nlohmann::ordered_json workload;
  int64_t begin = 0, end = 0;  ///< the window, cycles
};

/// Runs the testbench on the workload in `work` (vectors.txt, workload.json, verilator.log);
/// a ToolError with the log's tail when it fails or gives no workload window.
RecordedWorkload record_workload(const TestbenchRun& tb, const WorkloadSpec& w,
                                 const std::filesystem::path& work);

/// Every net's activity over a window, as a file: a header naming the netlist by the hash of
/// its text and the workload, then one line a net ("name toggles high"). A file of another
/// netlist is refused (ActivityMismatch).
struct ActivityRecord {
  NetActivity nets;
  nlohmann::ordered_json workload;  ///< the testbench's workload figure
};
void write_activity(const std::filesystem::path& file, const GateSim& sim,
                    const ActivityRecord& record, const std::string& netlist_hash);
ActivityRecord read_activity(const std::filesystem::path& file, const GateSim& sim,
                             const std::string& netlist_hash);
struct ActivityMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The part of the block an instance belongs to, by the net its first output drives (a
/// part's instance name as its prefix); -1 for none.
int part_of(const std::string& plain_output_net, const std::vector<PartSpec>& parts);

/// An SRAM's access energy (docs/ppa.md, "SRAM access energy"): the same figure a bit read
/// and a bit written, with its published source (configs/energy/<library>.json).
struct SramEnergy {
  double pj_per_bit = 0;
  std::string source, file;
};

/// The SRAM energy of an energy file (configs/energy/<library>.json, model/perf/system.hpp);
/// a ConfigError names the file and the field.
SramEnergy read_sram_energy(const std::string& file);

/// What the activity figures are computed from.
struct ActivityInputs {
  const GateNetlist* netlist = nullptr;
  const VerilogNetlist* verilog = nullptr;
  const Liberty* lib = nullptr;
  const std::vector<PartSpec>* parts = nullptr;
  double period = 0;       ///< library time unit
  double output_load = 0;  ///< capacitive load unit
  std::string clock;       ///< the clock port, "" for none
  /// A block with SRAMs (docs/sram.md): the netlist with their instances, on which the
  /// workload is simulated (`netlist` is the one without them, which OpenSTA times), their
  /// modules, and their access energy.
  const GateNetlist* with_memories = nullptr;
  std::set<std::string> memories;
  SramEnergy sram;
};

/// The `activity` entry of a block's figures: from a recorded workload, simulated here (the
/// activity written to <work>/activity.txt), or from the activity file of an earlier run.
nlohmann::ordered_json power_from_activity(const ActivityInputs& in, const RecordedWorkload& w,
                                           const std::filesystem::path& work);
nlohmann::ordered_json power_from_activity_file(const ActivityInputs& in,
                                                const std::filesystem::path& activity_file,
                                                const std::filesystem::path& work);

/// The project's power model at one activity on every net, against OpenSTA's report_power of
/// the same netlist at the same activity: `power_check` {opensta_w, model_w, relative}.
nlohmann::ordered_json uniform_power_check(const ActivityInputs& in, double activity, double duty,
                                           double opensta_total_w,
                                           const std::filesystem::path& work);

}  // namespace oasis::ppa
