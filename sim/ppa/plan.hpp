// SPDX-License-Identifier: Apache-2.0
// What `make synth` (generic cells, oasis-synth) and `make ppa` (a real cell
// library, oasis-ppa) measure for a config: its generated variants, the order
// of the blocks, and for a config too large to synthesize whole, which blocks
// are measured at two smaller sizes and extrapolated (docs/synth.md and
// docs/ppa.md, "Scaled figures"). One plan, read by both commands.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/manifest.hpp"
#include "model/config.hpp"

namespace oasis::ppa {

/// The keys under which a block's results are reused are model/config.hpp's fnv1a.
using oasis::fnv1a;
/// 16 hex digits.
std::string hex(uint64_t v);

/// One generated variant of the config: the config as given, or a smaller
/// slice of it for a block too large to synthesize whole.
struct Variant {
  std::string tag;                ///< "full" or "<key>_<value>"
  std::vector<std::string> sets;  ///< the key=value settings on top of the config
  std::filesystem::path dir;      ///< the generated folder
  gen::Manifest manifest;
};

/// Generates the config with `overrides` and `sets` into root/tag, leaving a
/// file untouched when its content is unchanged (so a run reading it while
/// another generates the same config is not disturbed). An invalid config
/// throws oasis::ConfigError.
Variant generate_variant(const std::string& config_path, const std::vector<std::string>& overrides,
                         const std::filesystem::path& root, const std::string& tag,
                         const std::vector<std::string>& sets);

/// A figure of a block, in gen::Manifest::figure's order (the block's, the derived, the
/// config's); a std::logic_error naming the manifest when there is none.
double figure(const Variant& v, const std::string& block, const std::string& key);
/// The files of a generated block's file list `<dir>/<block>.f`, relative to `dir`, in order
/// (read with gen::file_list_sources; a ToolError when it cannot be read).
std::vector<std::string> file_list(const std::filesystem::path& dir, const std::string& block);
/// The SystemVerilog files of a block, in its file list's order.
std::vector<std::string> block_sources(const Variant& v, const std::string& block);

/// A plan that cannot be made or cannot give a figure: an unknown block, a
/// slice whose two runs do not differ.
struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Bad input to a command: an option out of range, a missing file or tool.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Makes `out` the output folder of the command `name` (oasis-synth, oasis-ppa), or throws a
/// UsageError naming `option` and writes nothing: the folder must not exist, or be empty, or
/// hold the mark the command leaves in every folder it writes (`.<name>`). A folder of the
/// layout the command wrote before it left marks (its `work` and `rtl` folders) is its own too.
/// Any other folder is the user's: the command neither writes nor deletes anything in it.
void claim_output_folder(const std::filesystem::path& out, const std::string& name,
                         const std::string& option);

/// main() of oasis-synth and oasis-ppa: `run`'s status; bad input (UsageError,
/// oasis::ConfigError, PlanError) one line "<name>: message" on stderr and
/// status 2, any other failure status 1.
int command_main(const char* name, const std::function<int()>& run);

/// The blocks of a comma-separated --blocks list, each a generated block
/// (else a PlanError naming the allowed ones); empty: all.
std::vector<std::string> selected_blocks(const std::string& list);

/// The blocks of a manifest in measuring order: the compared blocks first,
/// so that a long run gives the comparisons early, then the rest; only those
/// in `only` unless it is empty.
std::vector<std::string> measuring_order(const gen::Manifest& manifest,
                                         const std::vector<std::string>& only = {});

/// Two smaller sizes of a block: `key` set to v1 and v2 (v2 == 0: one run,
/// the PE line's), its logic extrapolated in one manifest figure and its
/// flip-flops in another.
struct Slice {
  std::string key;
  int v1 = 0, v2 = 0;
  std::string logic_measure, flop_measure;
};
/// The slice of a block measured smaller when the config is large, if any.
std::optional<Slice> slice_plan(const std::string& block, const Variant& full);

/// x at u on the line through (u1, x1) and (u2, x2).
double lin(double x1, double x2, double u, double u1, double u2);

/// One synthesis run: a block of a variant, under a label naming its results.
struct Run {
  std::string label;
  std::string block;
  Variant variant;
};
/// A block and its runs: one of the full config, or the slice's.
struct PlannedBlock {
  std::string block;
  std::optional<Slice> slice;
  std::vector<Run> runs;
};

/// The runs for `blocks` of the config whose full variant is `full`: when
/// `large`, the blocks with a slice plan at their two sizes (generated under
/// root), the others as configured; but the core, when `large`, with no runs:
/// each command estimates it its own way.
std::vector<PlannedBlock> plan_runs(const std::string& config_path,
                                    const std::vector<std::string>& overrides,
                                    const std::filesystem::path& root, const Variant& full,
                                    const std::vector<std::string>& blocks, bool large);

/// The variables of a slice's extrapolation for one block: the full config's
/// figure and the two runs' figures, for logic (l) and flip-flops (f).
struct SliceFigures {
  double l, l1, l2, f, f1, f2;
};
/// The figures of a sliced block other than the PE line; a PlanError when
/// its two runs do not differ in a measure.
SliceFigures slice_figures(const PlannedBlock& p, const Variant& full);
/// Every sliced block's figures, before anything is run.
void check_slices(const std::vector<PlannedBlock>& plan, const Variant& full);
/// The sentence saying how a slice was extrapolated, `what` naming the runs
/// ("runs", "Yosys runs").
std::string slice_note(const std::string& what, const Slice& s, const SliceFigures& x,
                       const std::string& timing);

}  // namespace oasis::ppa
