// SPDX-License-Identifier: Apache-2.0
// The command line of the flow's commands (oasis-ppa, oasis-synth, oasis-vltest, oasis-prove,
// ...), read one way.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string_view>

#include "sim/ppa/plan.hpp"

namespace oasis::ppa {

/// Parses argv into `app`. Returns -1 to go on, or the exit status of --help (CLI11 prints the
/// help); a command line CLI11 refuses is a UsageError saying what is wrong and where the
/// allowed options are listed: "<what> (see <name> --help)".
inline int parse_command_line(CLI::App& app, int argc, char** argv, std::string_view name) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("{} (see {} --help)", e.what(), name));
  }
  return -1;
}

}  // namespace oasis::ppa
