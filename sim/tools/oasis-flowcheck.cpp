// SPDX-License-Identifier: Apache-2.0
// oasis-flowcheck (sim/flowcheck, the flows.* tests): checks the files oasis-gen writes for
// flows other than Verilator, for one config:
// - every block's Icarus command file (<block>.icarus.cmd) elaborates its top in Icarus
//   Verilog (iverilog -g2012), run from another folder with OASIS_RTL naming the generated
//   one, as its header says;
// - the FuseSoC core description (oasis_<config>.core) is CAPI2 YAML, read with yaml-cpp (not
//   with the generator's own emitter), whose filesets are exactly the blocks' file lists (the
//   same files in the same order, every file present) and whose targets name each block's top
//   and lint it with Verilator's -Wall.
//
//   oasis-flowcheck --build DIR --config FILE [--label NAME] [--set key=value]...
//                   [--no-elaborate BLOCK]...
//
// --no-elaborate leaves a block out of the Icarus elaboration (Icarus 11 takes more than ten
// minutes on the paper config's core). Everything goes to DIR/flows/<label>/, this command's
// own folder. Bad input: one message, exit status 2; a check that fails, exit status 1.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "model/config.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_flowcheck_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;

using flow::Failure;

// Elaborates each block's Icarus command file from `elsewhere`, a folder that is not the
// generated one, so that a path relative to the working folder would fail. Returns how many.
int elaborate(const fs::path& rtl, const gen::Manifest& manifest, const std::set<std::string>& skip,
              const fs::path& elsewhere) {
  fs::create_directories(elsewhere);
  setenv("OASIS_RTL", rtl.c_str(), 1);
  int n = 0;
  for (const std::string& block : manifest.blocks()) {
    if (skip.count(block)) continue;
    const fs::path cmd = rtl / (block + ".icarus.cmd");
    if (!fs::exists(cmd)) throw Failure(fmt::format("no Icarus command file {}", cmd.string()));
    const fs::path log = rtl.parent_path() / fmt::format("iverilog_{}.log", block);
    fs::remove(log);
    const std::string top = manifest.top(block);
    if (run_tool({"iverilog", "-g2012", "-s", top, "-o", block + ".vvp", "-c", cmd.string()}, log,
                 elsewhere) != 0) {
      std::fprintf(stderr, "%s", tail(log, 20).c_str());
      throw Failure(
          fmt::format("Icarus rejected {}'s command file (log: {})", block, log.string()));
    }
    ++n;
  }
  return n;
}

// A YAML sequence of strings as a vector; anything else gives an empty one.
std::vector<std::string> strings(const YAML::Node& node) {
  std::vector<std::string> v;
  if (!node.IsSequence()) return v;
  for (const auto& e : node) v.push_back(e.IsScalar() ? e.Scalar() : std::string("?"));
  return v;
}

// The scalar at `node`, or "" when there is none.
std::string scalar(const YAML::Node& node) {
  return node && node.IsScalar() ? node.Scalar() : std::string();
}

// The keys of a YAML map, sorted.
std::set<std::string> keys(const YAML::Node& node) {
  std::set<std::string> k;
  if (node.IsMap()) {
    for (const auto& e : node) k.insert(e.first.Scalar());
  }
  return k;
}

// Every way the FuseSoC core description of `rtl` differs from the blocks' file lists and
// tops in `manifest`.
std::vector<std::string> check_core(const fs::path& rtl, const gen::Manifest& manifest) {
  const std::string name = manifest.config_name();
  const fs::path path = rtl / fmt::format("oasis_{}.core", name);
  const std::string text = read_text(path);
  std::vector<std::string> errors;
  if (!text.starts_with("CAPI=2:\n")) errors.push_back("first line is not 'CAPI=2:'");
  YAML::Node core;
  try {
    core = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return {fmt::format("not YAML: {}", e.what())};
  }
  const std::string core_name = scalar(core["name"]);
  if (!std::regex_match(core_name, std::regex("[a-z0-9_]+:[a-z0-9_]+:[a-z0-9_]+:[0-9.]+"))) {
    errors.push_back(fmt::format("name '{}' is not vendor:library:name:version", core_name));
  }
  const std::vector<std::string> blocks = manifest.blocks();
  const std::set<std::string> block_names(blocks.begin(), blocks.end());
  const YAML::Node filesets = core["filesets"];
  if (keys(filesets) != block_names) {
    errors.push_back(fmt::format("filesets {} are not the blocks {}", keys(filesets), block_names));
  }
  for (const auto& block : block_names) {
    const YAML::Node fs_node = filesets[block];
    if (!fs_node) continue;
    if (scalar(fs_node["file_type"]) != "systemVerilogSource") {
      errors.push_back(
          fmt::format("fileset {}: file_type '{}'", block, scalar(fs_node["file_type"])));
    }
    const std::vector<std::string> files = strings(fs_node["files"]);
    if (files != file_list(rtl, block)) {
      errors.push_back(fmt::format("fileset {}: files differ from {}.f", block, block));
    }
    for (const auto& f : files) {
      if (!fs::is_regular_file(rtl / f)) {
        errors.push_back(fmt::format("fileset {}: {} does not exist", block, f));
      }
    }
  }
  // The default target is the core; `lint` lints the core, and a target a block lints it.
  std::map<std::string, std::string> expected = {{"default", "core"}, {"lint", "core"}};
  for (const auto& block : block_names) expected[block] = block;
  std::set<std::string> expected_names;
  for (const auto& [target, block] : expected) expected_names.insert(target);
  const YAML::Node targets = core["targets"];
  if (keys(targets) != expected_names) {
    errors.push_back(fmt::format("targets {} are not {}", keys(targets), expected_names));
  }
  for (const auto& [target, block] : expected) {
    const YAML::Node t = targets[target];
    if (!t || !manifest.has_block(block)) continue;
    if (strings(t["filesets"]) != std::vector<std::string>{block}) {
      errors.push_back(fmt::format("target {}: filesets {}, expected [{}]", target,
                                   strings(t["filesets"]), block));
    }
    const std::string top = manifest.top(block);
    if (scalar(t["toplevel"]) != top) {
      errors.push_back(
          fmt::format("target {}: toplevel '{}', expected {}", target, scalar(t["toplevel"]), top));
    }
    if (target == "default") continue;
    const YAML::Node v = t["tools"]["verilator"];
    const std::vector<std::string> options = strings(v["verilator_options"]);
    if (scalar(t["default_tool"]) != "verilator" || scalar(v["mode"]) != "lint-only" ||
        std::find(options.begin(), options.end(), "-Wall") == options.end()) {
      errors.push_back(fmt::format("target {}: not a Verilator -Wall lint", target));
    }
  }
  for (auto& e : errors) e = fmt::format("{}: {}", path.filename().string(), e);
  return errors;
}

int run(int argc, char** argv) {
  std::string build, config, label;
  std::vector<std::string> sets, no_elaborate;
  CLI::App app{
      "oasis-flowcheck: the Icarus command files and the FuseSoC core description "
      "oasis-gen writes for a config, checked"};
  app.add_option("--build", build, "the build folder")->required();
  app.add_option("--config", config, "JSON config, as oasis-gen reads it")->required();
  app.add_option("--label", label, "the run's name (default: the config file's name)");
  app.add_option("--set", sets, "override a config field: key=value (repeatable)");
  app.add_option("--no-elaborate", no_elaborate,
                 "leave this block out of the Icarus elaboration (repeatable)");
  if (const int status = parse_command_line(app, argc, argv, "oasis-flowcheck"); status >= 0) {
    return status;
  }
  if (!fs::is_directory(build)) {
    throw UsageError(fmt::format("--build {}: no such folder (run make build first)", build));
  }
  if (find_program("iverilog").empty()) {
    throw UsageError("Icarus Verilog (iverilog) not found (make deps installs it)");
  }
  if (label.empty()) label = fs::path(config).stem().string();
  gen::GenerateRequest request;
  request.config_path = config;
  request.overrides = sets;
  const fs::path out = fs::absolute(build) / "flows" / label;
  const fs::path rtl = out / "rtl";
  request.out_dir = rtl.string();
  const auto files = gen::render(load_config(config, sets), request);
  const gen::Manifest manifest = gen::Manifest::parse(files.at("manifest.json"), rtl.string());
  const std::set<std::string> skip(no_elaborate.begin(), no_elaborate.end());
  for (const auto& b : skip) {
    if (!manifest.has_block(b)) {
      throw UsageError(fmt::format("--no-elaborate {}: no such block in config {}", b, config));
    }
  }
  // The folder is this command's own: start afresh.
  fs::remove_all(out);
  fs::create_directories(rtl);
  for (const auto& [name, text] : files) write_text(rtl / name, text);

  const int n = elaborate(rtl, manifest, skip, out / "elsewhere");
  if (n == 0) throw Failure(fmt::format("no block elaborated in {}", rtl.string()));
  const std::vector<std::string> errors = check_core(rtl, manifest);
  for (const auto& e : errors) std::fprintf(stderr, "oasis-flowcheck: %s\n", e.c_str());
  if (!errors.empty()) {
    throw Failure(fmt::format("the FuseSoC core description differs in {} places", errors.size()));
  }
  std::printf(
      "flowcheck: oasis_%s.core: %zu filesets, %zu targets match the file lists and "
      "tops\n",
      manifest.config_name().c_str(), manifest.blocks().size(), manifest.blocks().size() + 2);
  const std::string skipped = skip.empty() ? "none" : fmt::format("{}", fmt::join(skip, " "));
  std::printf("flowcheck: %d Icarus command files elaborate (%s; not elaborated: %s)\n", n,
              label.c_str(), skipped.c_str());
  return 0;
}

}  // namespace oasis_flowcheck_command

namespace oasis::commands {
int oasis_flowcheck(int argc, char** argv) {
  return flow::flow_main("oasis-flowcheck",
                         [&] { return oasis_flowcheck_command::run(argc, argv); });
}
}  // namespace oasis::commands
