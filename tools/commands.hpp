// SPDX-License-Identifier: Apache-2.0
// The project's commands, built as one program, oasis-commands: the libraries' templates and
// CLI11 are then compiled once for all of them rather than once for each. The build folder
// holds a link per command (build/oasis-gen -> oasis-commands) and the program runs the
// command it is called as. CMakeLists.txt reads the commands' names from the list below. A
// new command is a file in model/tools/ or sim/tools/ that defines its function, and a line
// in the list.
#pragma once

// One X(...) a command: the function oasis::commands::<first> runs the command named by the
// string, with main's arguments, and returns main's exit status.
#define OASIS_COMMANDS(X)                       \
  X(oasis_gen, "oasis-gen")                     \
  X(oasis_model, "oasis-model")                 \
  X(oasis_perf, "oasis-perf")                   \
  X(oasis_ppa, "oasis-ppa")                     \
  X(oasis_results, "oasis-results")             \
  X(oasis_synth, "oasis-synth")                 \
  X(oasis_prove, "oasis-prove")                 \
  X(oasis_vltest, "oasis-vltest")               \
  X(oasis_icarus, "oasis-icarus")               \
  X(oasis_coverage, "oasis-coverage")           \
  X(oasis_synthcheck, "oasis-synthcheck")       \
  X(oasis_flowcheck, "oasis-flowcheck")         \
  X(oasis_bench_orizuru, "oasis-bench-orizuru") \
  X(oasis_bench_core, "oasis-bench-core")       \
  X(covreport, "covreport")                     \
  X(portcheck, "portcheck")

namespace oasis::commands {

#define OASIS_DECLARE_COMMAND(function, name) int function(int argc, char** argv);
OASIS_COMMANDS(OASIS_DECLARE_COMMAND)
#undef OASIS_DECLARE_COMMAND

}  // namespace oasis::commands
