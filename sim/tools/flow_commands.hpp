// SPDX-License-Identifier: Apache-2.0
// What the flow commands share (oasis-vltest, oasis-icarus, oasis-synthcheck, oasis-prove,
// oasis-coverage): their failure, a block's file list, the arguments that go to a testbench,
// the options that name one run of a block, and their main(). Only those commands include it.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/mutation.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::flow {

/// A build or a check that failed: the command prints "<name>: what" (a verdict that starts
/// with "FAIL " as it is) and exits with status 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The sources of a generated block, from its file list `<rtl>/<block>.f` (relative to that
/// folder), each with `prefix` before it.
inline std::vector<std::string> file_list(const std::filesystem::path& rtl,
                                          const std::string& block,
                                          const std::string& prefix = "") {
  std::vector<std::string> files = ppa::file_list(rtl, block);
  if (files.empty()) throw Failure("no sources in " + (rtl / (block + ".f")).string());
  for (auto& f : files) f = prefix + f;
  return files;
}

/// One run of a block: the options oasis-vltest and oasis-icarus share.
struct RunOptions {
  std::string build, block, config, label, source = OASIS_SOURCE_DIR;
  std::vector<std::string> sets;
  std::vector<std::string> tb_args;  ///< the arguments after "--", for the testbench
};

/// The shared options on `app`.
inline void add_run_options(CLI::App& app, RunOptions& o) {
  app.add_option("--build", o.build, "the build folder")->required();
  app.add_option("--block", o.block, "the block (verif/tb/<block>_tb.cpp)")->required();
  app.add_option("--config", o.config, "JSON config, as oasis-gen reads it")->required();
  app.add_option("--label", o.label, "the run's name (default: the config file's name)");
  app.add_option("--set", o.sets, "override a config field: key=value (repeatable)");
  app.add_option("--source", o.source,
                 "the project folder (verif/tb); default: the one this program was built from")
      ->capture_default_str();
}

/// Parses argv into `app`, the arguments after "--" into o.tb_args. Returns the exit status
/// of --help, or -1 to go on; a parse error is a UsageError naming `name`.
inline int parse_run_options(CLI::App& app, RunOptions& o, int argc, char** argv,
                             const char* name) {
  std::vector<char*> own;
  int i = 0;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) own.push_back(argv[i]);
  for (++i; i < argc; ++i) o.tb_args.emplace_back(argv[i]);
  if (const int status = ppa::parse_command_line(app, static_cast<int>(own.size()), own.data(),
                                                 name);
      status >= 0) {
    return status;
  }
  if (!std::filesystem::is_directory(o.build)) {
    throw ppa::UsageError(
        fmt::format("--build {}: no such folder (run make build first)", o.build));
  }
  if (o.label.empty()) o.label = std::filesystem::path(o.config).stem().string();
  return -1;
}

/// main() of a flow command: ppa::command_main (bad input: one line, status 2), an unknown
/// mutation as bad input, a Failure printed and status 1.
inline int flow_main(const char* name, const std::function<int()>& run) {
  return ppa::command_main(name, [&] {
    try {
      return run();
    } catch (const Failure& e) {
      const std::string what = e.what();
      if (what.rfind("FAIL ", 0) == 0) {
        std::fprintf(stderr, "%s\n", what.c_str());
      } else {
        std::fprintf(stderr, "%s: %s\n", name, what.c_str());
      }
      return 1;
    } catch (const gen::MutationError& e) {
      throw ppa::UsageError(e.what());
    }
  });
}

}  // namespace oasis::flow
