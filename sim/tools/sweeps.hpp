// SPDX-License-Identifier: Apache-2.0
// The sweeps (docs/testing.md): the configs each block is simulated and synthesized with, one
// table a block, sim/sweeps/<block>.txt, read here alone. oasis-sweeps writes the CTest tests
// they define, oasis-coverage runs their plain runs, the unit tests take their configs.
//
// A row is a label, its kinds of run, then, on the label's first row only, its config and
// key=value overrides, then `--` and the testbench arguments of the row's kinds; a label's
// other rows run more kinds of it with other testbench arguments:
//
//   k5_p2_tiny  verilator,netlist:regress  configs/default.json  channels=5 act_bits=2
//   k5_p2_tiny  icarus  -- --vectors 4
//
// The kinds and the tests each makes (B the block, L the label) are kRules in sweeps.cpp. A
// kind's option `:regress` moves its test to make regress; verilator's `:yosys-regress` moves
// its Yosys check there. Blank lines and lines that start with # are left out.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::sweeps {

/// A malformed sweep: "sim/sweeps/<block>.txt:<line>: <what>; allowed: <what is>".
struct SweepError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One kind of run of a label.
struct Run {
  std::string kind;
  bool regress = false;        ///< :regress, its test in make regress
  bool yosys_regress = false;  ///< verilator:yosys-regress, its Yosys check in make regress
  std::vector<std::string> tb_args;
  int line = 0;  ///< of its row
};

/// A label: its config, its overrides (key=value, in the row's order) and its runs, in the
/// order of its rows and of each row's kinds.
struct Label {
  std::string name, config;
  std::vector<std::string> sets;
  std::vector<Run> runs;
  int line = 0;  ///< of its first row
};

/// One block's table.
struct Sweep {
  std::string block;
  std::string file;  ///< as messages name it: sim/sweeps/<block>.txt
  std::vector<Label> labels;
};

/// The kinds of run, in the order of kRules.
std::vector<std::string> kinds();

/// Block `block`'s table from its text; `file` names it in messages. A SweepError for the
/// first malformed row.
Sweep parse(const std::string& block, const std::string& text, const std::string& file);

/// Every sim/sweeps/<block>.txt of the project `source`, by block name. A SweepError for a
/// file name that is not <block>.txt, a malformed row or a config that does not exist.
std::vector<Sweep> read(const std::filesystem::path& source);

/// A CTest test.
struct Test {
  std::string name;
  std::vector<std::string> command;
  std::string label;  ///< verilator, netlist, ... (make test), regress or exhaustive
  int timeout = 0;    ///< seconds
  std::string resource_lock, environment;  ///< "" for none
};

/// The tests of `sweeps` run from `source` (the project) in `build`, both absolute, in the
/// tables' order. A run left out (kind hier, where a path holds a space) is not a test: `left_out`
/// gets a line saying which and why. A SweepError when two rows would make one test, or a flows
/// run would take the name of a config's (flows.<config>, verif/CMakeLists.txt).
std::vector<Test> tests(const std::vector<Sweep>& sweeps, const std::string& source,
                        const std::string& build, std::vector<std::string>& left_out);

/// `tests` as a CTest script of add_test() and set_tests_properties() calls; the lines of
/// `left_out` are comments in it.
std::string ctest_script(const std::vector<Test>& tests, const std::vector<std::string>& left_out);

/// The runs of `sweeps` as a JSON array, one object a kind of run of a label: block, kind,
/// label, config, sets, tb_args (<build>/sweeps.json).
std::string runs_json(const std::vector<Sweep>& sweeps);

}  // namespace oasis::sweeps
