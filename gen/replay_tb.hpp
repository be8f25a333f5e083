// SPDX-License-Identifier: Apache-2.0
// The Icarus Verilog replay testbench of a generated block (sim/icarus,
// docs/icarus.md): `oasis-gen --replay-tb MANIFEST BLOCK` writes it from the
// block's ports in the manifest, the same list the Verilator testbench
// records its vector file by.
#pragma once

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

}  // namespace oasis::gen
