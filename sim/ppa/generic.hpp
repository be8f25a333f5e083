// SPDX-License-Identifier: Apache-2.0
// The generic-cell measurement of `make synth` (oasis-synth, docs/synth.md):
// Yosys's own checks and `synth` on one block, then its generic cells,
// flip-flops, the depth of its longest combinational path and a transistor
// estimate. No library, no timing: a quick signal between designs built the
// same way.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gen/manifest.hpp"

namespace oasis::ppa {

/// One block to synthesize in generic cells.
struct GenericJob {
  std::string label;                 ///< names the work folder, the log and the result
  std::string top;                   ///< top module
  std::filesystem::path rtl_dir;     ///< the generated folder
  std::vector<std::string> sources;  ///< SystemVerilog files in it, in order
};

/// The figures of one block.
struct GenericFigures {
  long cells = 0;        ///< generic cells after synth, flatten and opt_clean
  long flip_flops = 0;   ///< the $_DFF* cells among them
  long depth = 0;        ///< longest combinational path, in cells (ltp -noff)
  long transistors = 0;  ///< CMOS cost of every cell (generic_transistors)
};

/// One handshake output of a block and the inputs it may depend on combinationally (through
/// no flip-flop): the stream contract of docs/spec.md section 8.
struct ConeRule {
  std::string output;
  std::vector<std::string> allowed_inputs;
};

/// The stream contract of a block of the manifest: a rule for every output whose name ends in
/// valid_o, ready_o, idle_o or busy_o. None may depend on an input through logic alone, but
/// the Clustering Unit's act_ready_o on idx_ready_i, the Index Counter array's idx_ready_o on
/// cnt_ready_i, and a pipeline of no register stage (no ready, latency_cycles 0), whose
/// out_valid_o is its in_valid_i.
std::vector<ConeRule> stream_contract(const gen::Manifest& manifest, const std::string& block);

/// The rules as Yosys commands, on a flattened copy of the design after proc: each output's
/// combinational input cone (stopping at every flip-flop cell) holds no input port but those
/// allowed, else the run stops naming the output and the inputs.
std::string stream_contract_script(const std::vector<ConeRule>& rules);

/// make test's Yosys checks of a block (the yosys.* tests, oasis-synthcheck), run in a folder
/// where `rtl` links to the generated folder: read the sources, hierarchy -check, proc, when
/// `ports_json` is given the elaborated ports written there (from a copy of the design with
/// every cell and process deleted), the `contract` commands (stream_contract_script), check
/// -assert, no latch, synth, check -assert, stat.
std::string yosys_check_script(const std::vector<std::string>& sources, const std::string& top,
                               const std::string& ports_json = "",
                               const std::string& contract = "");

/// The Yosys script, run in the work folder where `rtl` links to the
/// generated folder: yosys_check_script's checks, then the measuring commands
/// writing cells.stat, depth.ltp and cmos.stat.
std::string generic_script(const GenericJob& job);

/// The regular expression of Yosys messages that fail the run (yosys -e):
/// implicit or undriven nets, latches, logic loops, conflicting drivers.
inline constexpr const char* kYosysErrors =
    "implicitly declared|no driver|Latch|logic loop|conflicting";

/// Transistors of a flattened `stat` (after dffunmap) by Yosys's CMOS costs
/// (kernel/cost.h: NOT 2, NAND and NOR 4, AND, OR, ANDNOT, ORNOT, AOI3, OAI3 6,
/// AOI4, OAI4 8, XOR, XNOR and MUX 12, NMUX 10, BUF 1, plain flip-flop 16).
/// Yosys 0.23 has no cost for a flip-flop with an asynchronous reset; it is
/// counted as the plain one. Any other cell type is a ReportError.
long generic_transistors(const std::map<std::string, long>& cells);

/// The flip-flops of a `stat`: its $_DFF* cells of every kind.
long generic_flip_flops(const std::map<std::string, long>& cells);

/// The length of the last "Longest topological path" of an `ltp` report.
long parse_ltp_depth(const std::string& text);

/// Runs Yosys on `job` in `work` (made afresh), its log at `log`; the
/// figures, or a ToolError naming the log.
GenericFigures run_generic(const GenericJob& job, const std::string& yosys,
                           const std::filesystem::path& work, const std::filesystem::path& log);

}  // namespace oasis::ppa
