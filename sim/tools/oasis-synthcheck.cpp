// SPDX-License-Identifier: Apache-2.0
// oasis-synthcheck (sim/synthcheck, the yosys.* tests; make demo): Yosys's checks of generated
// blocks: hierarchy -check, proc, the stream contract (docs/spec.md section 8: no handshake
// output reached from an input through logic alone, but those the contract names), check
// -assert, no latch, synth, check -assert; implicit or undriven nets, latches, logic loops,
// conflicting drivers and a broken contract stop the run (yosys -e). The script is
// oasis-synth's (sim/ppa/generic.hpp, yosys_check_script).
//
//   oasis-synthcheck --build DIR --block NAME --config FILE [--label NAME] [--set key=value]...
//       generates the config into DIR/yosys/<block>/<label>/rtl and checks the block, and that
//       its ports as Yosys elaborates them are those its manifest lists (portcheck);
//   oasis-synthcheck --rtl DIR [--ports] [--stat] [--no-contract] [BLOCK...]
//       checks blocks (all when none is named) of a folder oasis-gen wrote; --stat writes each
//       one's generic cells and flip-flops, those of the flattened design counted through its
//       hierarchy, to stat_<block>.json; --no-contract leaves out the contract's check, the one
//       step that flattens the design (make demo: the default core in 75 CPU seconds and
//       0.2 GB against 150 and 3 GB).
//
// Logs, the ports with --ports and the figures with --stat go to <rtl folder>.yosys/, beside
// the generated folder, which holds only what oasis-gen wrote. Yosys runs there, where a link
// `rtl` names the generated folder, so that no path in its script holds a space
// (docs/paths.md).
// Bad input: one message, exit status 2; a block that fails, exit status 1.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "model/config.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/generic.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/reports.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_synthcheck_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using flow::Failure;

// Checks `blocks` of the generated folder `rtl`; with `ports`, writes each block's elaborated
// ports to <rtl>.yosys/ports_<block>.json; with `stat`, its generic cells and flip-flops,
// those of the flattened design, to <rtl>.yosys/stat_<block>.json.
void check_blocks(const fs::path& rtl, const std::vector<std::string>& blocks, bool ports,
                  bool stat = false, bool contract = true) {
  const gen::Manifest manifest = gen::Manifest::read(rtl / "manifest.json");
  const fs::path logs = rtl.string() + ".yosys";
  fs::create_directories(logs);
  fs::remove(logs / "rtl");
  fs::create_directory_symlink(rtl, logs / "rtl");
  for (const auto& block : blocks) {
    const std::string top = manifest.top(block);
    const fs::path log = logs / fmt::format("yosys_{}.log", block);
    const std::string script = fmt::format("yosys_{}.ys", block);
    const std::string stat_text = fmt::format("stat_{}.txt", block);
    const std::string contract_script =
        contract ? stream_contract_script(stream_contract(manifest, block)) : "";
    write_text(logs / script,
               yosys_check_script(flow::file_list(rtl, block), top,
                                  ports ? fmt::format("ports_{}.json", block) : "",
                                  contract_script) +
                   (stat ? fmt::format("tee -q -o {} stat\n", stat_text) : ""));
    fs::remove(log);
    if (run_tool({"yosys", "-q", "-e", kYosysErrors, "-l", log.string(), "-s", script},
                 logs / "yosys.out", logs) != 0) {
      std::fprintf(stderr, "%s", tail(log, 30).c_str());
      throw Failure(fmt::format("block {} failed (log: {})", block, log.string()));
    }
    if (stat) {
      // Counted through the hierarchy, as flattening would give them, without flattening:
      // a large core's PE lines are one module, synthesized once.
      std::map<std::string, long> cells;
      try {
        cells = leaf_cells(parse_yosys_stat(read_text(logs / stat_text)), top);
      } catch (const ReportError& e) {
        throw Failure(fmt::format("{} ({})", e.what(), (logs / stat_text).string()));
      }
      long count = 0;
      for (const auto& [type, n] : cells) count += n;
      const json figures = {{"block", block},
                            {"top", top},
                            {"cells", count},
                            {"flip_flops", generic_flip_flops(cells)}};
      write_text(logs / fmt::format("stat_{}.json", block), figures.dump(2) + "\n");
    }
  }
  std::printf("yosys: %zu blocks synthesized, check -assert clean, no latches%s (%s)\n",
              blocks.size(), contract ? ", stream contract kept" : "", rtl.string().c_str());
}

int run(int argc, char** argv) {
  std::string build, block, config, label, rtl_arg;
  std::vector<std::string> sets, blocks;
  bool ports = false, stat = false, no_contract = false;
  CLI::App app{
      "oasis-synthcheck: Yosys's checks of generated blocks (check -assert, no latch, synth)"};
  app.add_option("--build", build, "the build folder (with --config)");
  app.add_option("--block", block, "the block to generate and check (with --config)");
  app.add_option("--config", config, "JSON config, as oasis-gen reads it");
  app.add_option("--label", label, "the run's name (default: the config file's name)");
  app.add_option("--set", sets, "override a config field: key=value (repeatable)");
  app.add_option("--rtl", rtl_arg, "check blocks of this folder oasis-gen wrote instead");
  app.add_flag("--ports", ports, "with --rtl: write each block's elaborated ports");
  app.add_flag("--stat", stat,
               "with --rtl: write each block's generic cells and flip-flops, flattened");
  app.add_flag("--no-contract", no_contract,
               "with --rtl: leave out the stream contract's check, which flattens the design "
               "(make demo's area of a core)");
  app.add_option("blocks", blocks, "with --rtl: the blocks (default: all)");
  if (const int status = parse_command_line(app, argc, argv, "oasis-synthcheck"); status >= 0) {
    return status;
  }
  if (find_program("yosys").empty()) throw UsageError("yosys not found (make deps installs it)");
  if (!rtl_arg.empty()) {
    if (!config.empty() || !build.empty() || !block.empty()) {
      throw UsageError("--rtl checks a generated folder: not with --build, --block or --config");
    }
    const fs::path rtl = fs::canonical(rtl_arg);
    if (!fs::exists(rtl / "manifest.json")) {
      throw UsageError(fmt::format("--rtl {}: no manifest.json of oasis-gen there", rtl_arg));
    }
    const gen::Manifest manifest = [&] {
      try {
        return gen::Manifest::read(rtl / "manifest.json");
      } catch (const gen::ManifestError& e) {
        throw UsageError(fmt::format("--rtl {}: {}", rtl_arg, e.what()));
      }
    }();
    if (blocks.empty()) blocks = manifest.blocks();
    for (const auto& b : blocks) {
      if (!manifest.has_block(b)) {
        throw UsageError(fmt::format("--rtl {}: no block '{}'", rtl_arg, b));
      }
    }
    check_blocks(rtl, blocks, ports, stat, !no_contract);
    return 0;
  }
  if (build.empty() || block.empty() || config.empty()) {
    throw UsageError("--build, --block and --config are required (or --rtl DIR)");
  }
  if (!blocks.empty()) throw UsageError("blocks are named by --block with --config");
  if (stat || no_contract) throw UsageError("--stat and --no-contract go with --rtl");
  if (label.empty()) label = fs::path(config).stem().string();
  gen::GenerateRequest request;
  request.config_path = config;
  request.overrides = sets;
  const fs::path out = fs::absolute(build) / "yosys" / block / label / "rtl";
  request.out_dir = out.string();
  const auto files = gen::render(load_config(config, sets), request);
  if (!gen::Manifest::parse(files.at("manifest.json"), out.string()).has_block(block)) {
    throw UsageError(fmt::format("no block '{}' in config {}", block, config));
  }
  // The folder is this command's own: start afresh.
  fs::remove_all(out);
  fs::remove_all(out.string() + ".yosys");
  fs::create_directories(out);
  for (const auto& [name, text] : files) write_text(out / name, text);
  check_blocks(out, {block}, true);
  // The ports as Yosys elaborates them must be those the manifest lists.
  const fs::path log = out.string() + ".yosys/portcheck.log";
  if (run_tool(
          {(fs::path(build) / "portcheck").string(), "--block", block,
           (out / "manifest.json").string(), (out.string() + ".yosys/ports_" + block + ".json")},
          log) != 0) {
    std::fprintf(stderr, "%s", read_text(log).c_str());
    throw Failure(
        fmt::format("the ports of {} differ from its manifest's (log: {})", block, log.string()));
  }
  return 0;
}

}  // namespace oasis_synthcheck_command

namespace oasis::commands {
int oasis_synthcheck(int argc, char** argv) {
  return flow::flow_main("oasis-synthcheck",
                         [&] { return oasis_synthcheck_command::run(argc, argv); });
}
}  // namespace oasis::commands
