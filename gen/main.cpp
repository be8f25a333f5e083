// SPDX-License-Identifier: Apache-2.0
// oasis-gen: a JSON config in, SystemVerilog, file lists and a manifest out.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "gen/mutation.hpp"
#include "gen/query.hpp"
#include "gen/replay_tb.hpp"
#include "model/config.hpp"
#include "model/io/output.hpp"
#include "tools/commands.hpp"

int oasis::commands::oasis_gen(int argc, char** argv) {
  CLI::App app{"oasis-gen: generate the OASIS accelerator's SystemVerilog from a JSON config"};
  oasis::gen::GenerateRequest request;
  bool schema = false;
  app.add_option("--config", request.config_path, "JSON config file (see docs/config.md)");
  app.add_option("--out", request.out_dir,
                 "output folder: created, or replaced as a whole on success when it holds an "
                 "earlier output of oasis-gen (and nothing else)");
  app.add_option("--set", request.overrides,
                 "override a config field before validation: key=value (repeatable)");
  bool list_mutations = false;
  app.add_option("--mutate", request.mutation,
                 "inject the named bug on purpose, for a check that must catch it "
                 "(--mutations lists them)");
  app.add_flag("--mutations", list_mutations, "list the bugs --mutate can inject and exit");
  app.add_flag("--schema", schema, "print the config schema as a Markdown table and exit");
  std::vector<std::string> query;
  app.add_option("--query", query,
                 "print the value at KEY.PATH in the JSON FILE (a manifest.json) and exit: a "
                 "string unquoted, an array one item a line, an object as JSON; on an array a "
                 "number picks an item and a key reads it from every item; a missing key exits 2")
      ->type_size(2)
      ->type_name("FILE KEY.PATH");
  std::vector<std::string> replay;
  app.add_option("--replay-tb", replay,
                 "print the Icarus replay testbench of BLOCK of the generated folder whose "
                 "manifest is FILE and exit (sim/icarus, docs/icarus.md)")
      ->type_size(2)
      ->type_name("FILE BLOCK");
  app.set_version_flag("--version", OASIS_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "oasis-gen: %s (see oasis-gen --help)\n", e.what());
    return 2;
  }
  if (!query.empty()) {
    try {
      std::fputs(oasis::gen::query_file(query[0], query[1]).c_str(), stdout);
    } catch (const oasis::gen::QueryError& e) {
      std::fprintf(stderr, "oasis-gen: --query: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  if (!replay.empty()) {
    try {
      std::fputs(
          oasis::gen::replay_testbench(oasis::gen::Manifest::read(replay[0]), replay[1]).c_str(),
          stdout);
    } catch (const oasis::gen::ManifestError& e) {
      std::fprintf(stderr, "oasis-gen: --replay-tb: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  if (list_mutations) {
    const auto all = oasis::gen::mutations();
    int width = 0;
    for (const auto& m : all) width = std::max(width, int(m.name.size()));
    for (const auto& m : all) std::printf("%-*s  %s\n", width, m.name.c_str(), m.what.c_str());
    return 0;
  }
  if (schema) {
    std::fputs(oasis::config_schema_markdown().c_str(), stdout);
    return 0;
  }
  if (request.config_path.empty() || request.out_dir.empty()) {
    std::fprintf(stderr, "oasis-gen: --config FILE and --out DIR are both required\n");
    return 2;
  }
  try {
    const oasis::Config config = oasis::load_config(request.config_path, request.overrides);
    oasis::gen::generate(config, request);
    std::printf("oasis-gen: wrote config '%s' to %s\n", config.name.c_str(),
                request.out_dir.c_str());
  } catch (const oasis::ConfigError& e) {
    std::fprintf(stderr, "oasis-gen: %s\n", e.what());
    return 2;
  } catch (const oasis::gen::MutationError& e) {
    std::fprintf(stderr, "oasis-gen: %s\n", e.what());
    return 2;
  } catch (const oasis::gen::OutputError& e) {
    std::fprintf(stderr, "oasis-gen: %s\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "oasis-gen: --out %s: %s\n", request.out_dir.c_str(),
                 oasis::filesystem_message(e).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oasis-gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
