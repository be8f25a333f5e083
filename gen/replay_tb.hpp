// SPDX-License-Identifier: Apache-2.0
// The Icarus Verilog replay testbench of a generated block (sim/icarus,
// docs/icarus.md): `oasis-gen --replay-tb MANIFEST BLOCK` writes it from the
// block's ports in the manifest, the same list the Verilator testbench
// records its vector file by.
#pragma once

#include <functional>
#include <string>

#include "gen/manifest.hpp"

namespace oasis::gen {

/// Module `oasis_replay_tb`: reads the vector file named by +vectors=FILE
/// (its first line must be the header the Verilator testbench writes for
/// these ports), drives the inputs of each line, waits `Settle` time units
/// (a parameter, 1 by default: a gate-level netlist with delays wants more),
/// compares every output under the X rule of docs/icarus.md, clocks, and
/// prints one PASS or FAIL line. Throws ManifestError when the manifest has no
/// such block or no ports for it.
std::string replay_testbench(const Manifest& manifest, const std::string& block);

/// The X rule's qualifier of an output (docs/icarus.md): the valid output that says when a
/// multi-bit output `name` may be looked at, `<prefix>_valid_o` for `<prefix>_..._o`, else
/// `out_valid_o`, whichever `is_output` knows; "" for a one-bit output or when there is none.
std::string output_qualifier(const std::string& name, int width,
                             const std::function<bool(const std::string&)>& is_output);

}  // namespace oasis::gen
