// SPDX-License-Identifier: Apache-2.0
// Command-line parsing shared by the project's commands (oasis-model,
// oasis-perf): a CLI11 app of subcommands where an unknown subcommand and
// every parse error give one message naming what is allowed, and exit
// status 2.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace oasis {

/// A seed: a whole number from 0 to 2^64 - 1 as written. CLI11 alone reads "-1" as 2^64 - 1
/// and a number above 2^64 - 1 as 2^64 - 1, without a word.
inline CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [at, error] = std::from_chars(text.data(), end, v);
        if (text.empty() || error != std::errc() || at != end) {
          return fmt::format("seed '{}': allowed: a whole number from 0 to {}", text, UINT64_MAX);
        }
        return "";
      },
      "SEED");
}

/// A number from `min` to `max`: CLI::Range lets NaN through (it compares false both ways).
inline CLI::Validator finite_range(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < min || v > max) {
          return fmt::format("'{}': allowed: a number from {} to {}", text, min, max);
        }
        return "";
      },
      fmt::format("NUMBER in [{} - {}]", min, max));
}

/// Parses argv into `app`. Returns nothing when the command should go on,
/// else the exit status (0 after --help, 2 on bad arguments).
inline std::optional<int> parse_subcommands(CLI::App& app, int argc, char** argv,
                                            const std::string& tool) {
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names.push_back(sub->get_name());
      known = known || sub->get_name() == argv[1];
    }
    if (!known) {
      std::fprintf(stderr, "%s: unknown subcommand '%s'; allowed: %s\n", tool.c_str(), argv[1],
                   fmt::format("{}", fmt::join(names, ", ")).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s (see %s --help)\n", tool.c_str(), e.what(), tool.c_str());
    return 2;
  }
  return std::nullopt;
}

}  // namespace oasis
