// SPDX-License-Identifier: Apache-2.0
// oasis-vltest (sim/vltest, the Verilator tests): generates one config, verilates one block's
// testbench (verif/tb/<block>_tb.cpp) against it, and runs it.
//
//   oasis-vltest --build DIR --block NAME --config FILE [--label NAME] [--set key=value]...
//                [--mutate BUG] [--netlist | --coverage FILE] [--hier | --flat]
//                [--behavioural | --structural] [--source DIR] [-- testbench arguments...]
//
// --mutate BUG: the RTL with a bug injected on purpose (oasis-gen --mutate; use a label of its
// own), for a check that must catch it.
// --netlist: simulate the gate-level netlist Yosys synthesizes from the generated RTL instead
// of the RTL itself (same testbench, same checks), and check that its ports have the widths of
// the RTL's and the manifest's.
// --coverage FILE: build with Verilator's line and toggle coverage (in its own folder,
// <label>.coverage, so that the plain build is left alone) and write the run's counts to FILE,
// and those at the end of its reset to FILE.reset (verilator_coverage reads both; make coverage
// merges them).
// --hier: hierarchical verilation: each module the block instantiates more than once among its
// parts (the core's PE line) is verilated and compiled once, as a library every instance uses
// (docs/core.md, "Verilator"), in an object folder of its own (obj-hier); --flat: one model of
// the whole design. Without either, a core of at least OASIS_HIER_CHANNELS channel-lines
// (lines x K, 8192 unless set: two lines at the paper's K) is built hierarchically.
// --behavioural: the RTL with the generator's behavioural macro defined (manifest
// behavioural_macro, docs/generator.md): the structures written gate by gate for synthesis
// simulated in their behavioural form, which Verilator can build at the paper's size;
// --structural: as synthesis reads it. Without either, a design of at least
// OASIS_BEHAVIOURAL_ADDERS full adders in its Index Counter arrays (32768 unless set; one paper
// line has 130816) is built behaviourally, in its own object folder (obj-behavioural,
// obj-hier-behavioural).
// Testbench arguments (after --) include --record FILE [--record-cycles N]: write every
// cycle's port values to FILE for sim/icarus (verif/harness/harness.hpp).
// Environment: SEED=<n> (stimulus seed; also the reset-value seed unless RESET_SEED=<n> is
// given), TRACE=1 (waveform).
//
// The project and the build folder may lie in folders whose paths hold spaces: Verilator and
// its make see only relative paths, and Yosys runs in the block's folder (docs/paths.md).
// Bad input: one message, exit status 2. The testbench's own exit status is the command's.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/config.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_vltest_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using flow::Failure;

struct Options : flow::RunOptions {
  std::string mutate, coverage;
  bool netlist = false;
  int hier = -1;         ///< 1 --hier, 0 --flat, -1 chosen by size
  int behavioural = -1;  ///< 1 --behavioural, 0 --structural, -1 chosen by size
  int cxx_opt = -1;      ///< --cxx-opt: the C++'s -O level, -1 chosen by the kind of run
};

// An environment variable as a whole number, `fallback` when unset.
long long env_number(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v, &end, 10);
  if (errno || *end || n < 0) {
    throw UsageError(fmt::format("{}={}: expected a whole number, 0 or more", name, v));
  }
  return n;
}

Options parse(int argc, char** argv, int& status) {
  Options o;
  CLI::App app{
      "oasis-vltest: generate a config, verilate one block's testbench against it and run it "
      "(docs/generator.md; arguments after -- go to the testbench)"};
  flow::add_run_options(app, o);
  app.add_option("--mutate", o.mutate, "inject a bug on purpose (oasis-gen --mutations)");
  auto* netlist = app.add_flag("--netlist", o.netlist, "simulate Yosys's gate-level netlist");
  app.add_option("--coverage", o.coverage, "build with coverage; write the counts to FILE")
      ->excludes(netlist);
  app.add_flag_function(
      "--hier", [&](int64_t) { o.hier = 1; }, "hierarchical verilation");
  app.add_flag_function(
      "--flat", [&](int64_t) { o.hier = 0; }, "one model of the whole design");
  app.add_flag_function(
      "--behavioural", [&](int64_t) { o.behavioural = 1; }, "the behavioural form");
  app.add_flag_function(
      "--structural", [&](int64_t) { o.behavioural = 0; }, "the structural form");
  app.add_option("--cxx-opt", o.cxx_opt,
                 "the C++'s optimization level, 0 to 2: 0 compiles fastest, for a short run "
                 "(default: by the kind of run)")
      ->check(CLI::Range(0, 2));
  status = flow::parse_run_options(app, o, argc, argv, "oasis-vltest");
  if (status >= 0) return o;
  if (!fs::exists(fs::path(o.source) / "verif" / "tb" / (o.block + "_tb.cpp"))) {
    throw UsageError(
        fmt::format("no testbench verif/tb/{}_tb.cpp for block '{}'", o.block, o.block));
  }
  if (o.netlist && !o.coverage.empty()) {
    throw UsageError("--coverage measures the RTL, not the netlist: use one of them");
  }
  if (o.hier == 1 && (o.netlist || !o.coverage.empty())) {
    throw UsageError("--hier builds the RTL without coverage: not with --netlist or --coverage");
  }
  if (o.behavioural == 1 && o.netlist) {
    throw UsageError(
        "--behavioural selects a form of the RTL: the netlist is synthesized from the "
        "structural one");
  }
  if (o.netlist || !o.coverage.empty()) o.hier = 0;
  if (o.netlist) o.behavioural = 0;
  return o;
}

// Writes `text` to `path` unless the file holds it already, so that make does not rebuild what
// reads it. True when it wrote.
bool replace_if_changed(const fs::path& path, const std::string& text) {
  if (fs::exists(path) && read_text(path) == text) return false;
  write_text(path, text);
  return true;
}

// The end of a log on stderr, then a Failure naming it.
[[noreturn]] void fail(const std::string& what, const fs::path& log, int lines) {
  std::fprintf(stderr, "%s", tail(log, lines).c_str());
  throw Failure(fmt::format("{} (log: {})", what, log.string()));
}

// Runs a program with this process's standard streams; its exit status (128 + the signal when
// it was killed).
int run_inherit(const std::vector<std::string>& argv, const fs::path& cwd) {
  const std::string program =
      argv[0].find('/') == std::string::npos ? find_program(argv[0]) : argv[0];
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Failure(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execv(program.c_str(), args.data());
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) throw Failure(fmt::format("waiting for {} failed", argv[0]));
  }
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

// The generated files of the config (a bad config or mutation is a UsageError or ConfigError,
// before anything is written).
std::map<std::string, std::string> render(const Options& o, const fs::path& out) {
  gen::GenerateRequest request;
  request.config_path = o.config;
  request.overrides = o.sets;
  request.out_dir = (out / "rtl").string();
  request.mutation = o.mutate;
  return gen::render(load_config(o.config, o.sets), request);
}

// Writes the generated files into out/rtl, keeping the old folder (and its files' dates) when
// nothing changed, so that Verilator and make skip the rebuild. True when it changed.
bool write_rtl(const std::map<std::string, std::string>& files, const fs::path& out) {
  const fs::path rtl = out / "rtl";
  bool same = fs::is_directory(rtl);
  if (same) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(rtl)) {
      ++n;
      const auto it = files.find(e.path().filename().string());
      if (it == files.end() || read_text(e.path()) != it->second) same = false;
    }
    same = same && n == files.size();
  }
  if (same) return false;
  fs::remove_all(rtl);
  fs::remove(out / "netlist.v");
  fs::create_directories(rtl);
  for (const auto& [name, text] : files) write_text(rtl / name, text);
  return true;
}

// Synthesizes the gate-level netlist (make synth's synth of the hierarchy, each module once,
// flattened afterwards for the simulation) and checks its ports against the RTL's and the
// manifest's. Yosys runs in `out`, every path relative to it.
//
// splitnets: Yosys writes many internal vectors whose bits come from unrelated cells (bit i of
// a wire computed from bit j of the same wire). Verilator 5.006 sees each such vector as one
// node, reports a combinational loop (UNOPTFLAT) and can then leave input-driven logic stale:
// the PE line's netlist kept a LUT entry's old value after the token context changed
// (docs/pe_line.md). With every internal wire one bit wide there is no loop left to schedule.
// Flattening before synth made one module of the whole core, and Yosys's resource sharing on it
// took 91 of the 192 s of the tiny core's run, against 25 s in all this way. The netlist's
// ports are read back from netlist.v with its cells and processes deleted (a JSON of the whole
// netlist was 50 MB and half a minute for the PE line).
void synthesize(const Options& o, const fs::path& out, const std::string& top, bool changed) {
  std::string script = "read_verilog -sv";
  for (const auto& f : flow::file_list(out / "rtl", o.block, "rtl/")) script += " " + f;
  script += fmt::format(
      "; hierarchy -check -top {0}; proc; write_json rtl_ports.json; synth -top {0}; flatten; "
      "opt_clean; splitnets; opt_clean; write_verilog -noattr netlist.v; design -reset; "
      "read_verilog netlist.v; delete t:* p:*; opt_clean -purge; write_json netlist_ports.json",
      top);
  // A netlist made by another script (an older version of this command) is made again.
  const std::string key = hex(fnv1a(script)) + "\n";
  const fs::path key_file = out / "netlist.key";
  if (changed || !fs::exists(out / "netlist.v") || !fs::exists(key_file) ||
      read_text(key_file) != key) {
    fs::remove(key_file);
    fs::remove(out / "yosys.log");
    if (run_tool({"yosys", "-p", script}, out / "yosys.log", out) != 0) {
      fs::remove(out / "netlist.v");
      fail(fmt::format("synthesizing {} for {} failed", o.block, o.label), out / "yosys.log", 30);
    }
    write_text(key_file, key);
  }
  // The netlist's ports must have the names, directions and widths the manifest lists and the
  // RTL has.
  const fs::path portcheck = fs::path(o.build) / "portcheck";
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"rtl/manifest.json", "rtl_ports.json"}, {"rtl_ports.json", "netlist_ports.json"}}) {
    const fs::path log = out / "portcheck.log";
    fs::remove(log);
    if (run_tool({portcheck.string(), "--top", top, a, b}, log, out) != 0) {
      fail(fmt::format("the ports of {} and {} differ", a, b), log, 30);
    }
  }
}

// One run: the options, the folders and the manifest of the generated block, and what the
// verilation is given.
struct Vltest {
  Options o;
  fs::path root, build, out, obj;
  long long seed = 1, reset_seed = 1;
  bool trace = false, changed = false;
  std::optional<gen::Manifest> man;
  std::string name, top, tb;
  std::vector<std::string> sources, lint, defines, hierarchy, repeated, cover;

  void prepare();
  void choose_behavioural();
  void choose_hier();
  void hier_sources();
  void write_generated_headers();
  void run_verilator();
  void write_port_list();
  std::vector<std::string> make_command();
  void build_testbench();
  void choose_build_mode(std::vector<std::string>& make);
  int run_testbench();
  void rename_coverage_sources();
};

// The generated RTL in BUILD/vl/<block>/<label>, the coverage file's place, the project's link
// and the manifest.
void Vltest::prepare() {
  root = fs::absolute(o.source).lexically_normal();
  build = fs::canonical(o.build);
  seed = env_number("SEED", 1);
  reset_seed = env_number("RESET_SEED", seed);
  trace = std::getenv("TRACE") && std::string(std::getenv("TRACE")) == "1";
  out = build / "vl" / o.block / o.label;
  tb = o.block + "_tb";
  if (o.netlist) out += ".netlist";
  if (!o.coverage.empty()) out += ".coverage";
  const auto files = render(o, out);
  if (!o.coverage.empty()) {
    const fs::path cov = fs::absolute(o.coverage);
    fs::create_directories(cov.parent_path());
    o.coverage = (fs::canonical(cov.parent_path()) / cov.filename()).string();
    // A failed run must not leave an earlier run's counts behind.
    fs::remove(o.coverage);
    fs::remove(o.coverage + ".reset");
  }
  fs::create_directories(out);
  changed = write_rtl(files, out);
  // Verilator 5.006 cuts a source path at its first space, and its make (verilated.mk) cannot
  // take one at all. So Verilator runs in its object folder, as its make does, and every path
  // either sees is relative and holds no space: the generated folder is ../rtl, the project is
  // ../source (a symbolic link to it), the build folder is ../../../.. (out is
  // BUILD/vl/<block>/<label>).
  fs::remove(out / "source");
  fs::create_directory_symlink(root, out / "source");
  man.emplace(gen::Manifest::read(out / "rtl" / "manifest.json"));
  name = man->config_name();
  top = man->top(o.block);
  sources = {"-F", "../rtl/" + o.block + ".f"};
  lint = {"-Wall"};
  if (o.netlist) {
    synthesize(o, out, top, changed);
    sources = {"../netlist.v"};
    // A loop Verilator has to schedule around makes the run untrustworthy (see splitnets):
    // fail rather than simulate it.
    lint = {"-Wno-fatal", "-Wno-lint", "-Wno-style", "-Werror-UNOPTFLAT"};
  }
}

// The behavioural form, automatic for a design whose Index Counter arrays hold many full
// adders: the generator's macro defined (the file list names the top module, since the
// compressor tree's and the adder's modules are then instantiated by nothing and Verilator
// would take them for top modules). -fno-dfg: Verilator 5.006's data-flow optimizer joins the
// assignments to the parts of a wide vector (a generate loop's lanes) into one concatenation
// it rebuilds part by part at every evaluation. With the optimizer on, the paper core
// simulated 150 cycles a second, off 237 (the Concat Units then one loop); the behavioural
// forms, each lane written at a constant offset, rely on it being off.
void Vltest::choose_behavioural() {
  if (o.behavioural < 0) {
    long adders = 0;
    if (o.block == "core") {
      adders =
          man->number("index_counter_array", "full_adders") * man->number("config", "pe_lines");
    } else if (o.block == "pe_line" || o.block == "index_counter_array") {
      adders = man->number("index_counter_array", "full_adders");
    }
    o.behavioural = adders >= env_number("OASIS_BEHAVIOURAL_ADDERS", 32768);
  }
  // The block tops' assertions on their outputs (gen/sv.hpp, output_assertions) run in every
  // build of the RTL: --assert makes a failed one stop the run with its message.
  if (!o.netlist) defines.push_back(std::string("-D") + gen::kAssertionsMacro);
  if (o.behavioural == 1) {
    defines.insert(defines.end(), {"-D" + man->behavioural_macro(), "-fno-dfg"});
  }
}

// Hierarchical verilation, automatic for a large core. Verilator 5.006's hierarchical build
// writes the sources' absolute paths into its makefile, which make cannot take when they
// hold a space (docs/paths.md).
void Vltest::choose_hier() {
  const bool spaced = (out.string() + root.string()).find(' ') != std::string::npos;
  if (o.hier < 0) {
    o.hier = o.block == "core" && !spaced &&
             man->number("config", "pe_lines") * man->number("config", "channels") >=
                 env_number("OASIS_HIER_CHANNELS", 8192);
  }
  if (o.hier == 1 && spaced) {
    throw UsageError(fmt::format(
        "--hier: Verilator's hierarchical build cannot take a path with a space ('{}'); build "
        "in a folder whose path holds none, or use --flat",
        out.string()));
  }
}

// Each module the block's manifest lists as a part more than once (the core's PE line) is
// a hierarchical block, verilated once.
void Vltest::hier_sources() {
  std::map<std::string, int> uses;
  const json& block = man->block(o.block);
  if (block.contains("parts")) {
    for (const auto& p : block.at("parts")) ++uses[p.at("module").get<std::string>()];
  }
  for (const auto& [module, n] : uses) {
    if (n > 1) repeated.push_back(module);
  }
  if (repeated.empty()) {
    throw UsageError(fmt::format(
        "--hier: block '{}' has no part that repeats (the core's PE lines do)", o.block));
  }
  std::string vlt = "`verilator_config\n";
  for (const auto& m : repeated) vlt += fmt::format("hier_block -module \"{}\"\n", m);
  replace_if_changed(obj / "hier.vlt", vlt);
  // Verilator 5.006 hands a hierarchical block's verilation the contents of a -F file as
  // bare names, which it cannot find: the sources are named one by one.
  sources = {"hier.vlt"};
  for (const auto& f : flow::file_list(out / "rtl", o.block, "../rtl/")) sources.push_back(f);
  // A hierarchical block is opaque: Verilator takes each of its outputs to depend on all its
  // inputs, and so sees loops (valid into a line, ready out of it, back into valid) that the
  // flat model shows are not there. It iterates them to a fixed point; the checks are the
  // same as the flat build's.
  // The file list's --top-module is not among the files: named here, for the behavioural
  // form's modules that nothing instantiates.
  hierarchy = {"--hierarchical", "-Wno-UNOPTFLAT", "--top-module", top};
}

// The generated C++ headers of the config under a name that does not depend on it, for the
// testbenches (oasis_generated::regmap::kLutBase, ...).
void Vltest::write_generated_headers() {
  replace_if_changed(obj / "oasis_generated.hpp",
                     fmt::format("// Written by oasis-vltest: the generated headers of config "
                                 "'{0}'.\n#pragma once\n#include \"oasis_{0}_params.hpp\"\n"
                                 "#include \"oasis_{0}_regmap.hpp\"\n"
                                 "namespace oasis_generated = oasis_{0};\n",
                                 name));
  // The C driver the same way, for the C side of a testbench: OASIS_AXI(start) is
  // oasis_<name>_axi_start, OASIS_AXI_CONST(BUS_BYTES) is OASIS_<NAME>_BUS_BYTES.
  std::string upper_name = name;
  for (char& ch : upper_name) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  replace_if_changed(obj / "oasis_generated.h",
                     fmt::format("/* Written by oasis-vltest: the generated C driver of config "
                                 "'{0}'. */\n#ifndef OASIS_GENERATED_H\n#define OASIS_GENERATED_H\n"
                                 "#include \"oasis_{0}_axi.h\"\n"
                                 "#define OASIS_AXI(x) oasis_{0}_axi_##x\n"
                                 "#define OASIS_AXI_CONST(x) OASIS_{1}_##x\n#endif\n",
                                 name, upper_name));
}

void Vltest::run_verilator() {
  // Verilate, write the port list the harness records with (--record), then compile. In obj,
  // with relative paths only (see the sources above). -MP: a header that moved or is gone does
  // not stop make in a build folder that compiled it before.
  const fs::path log = out / "build.log";
  fs::remove(log);
  std::vector<std::string> verilate = {"verilator", "--cc", "--exe"};
  verilate.insert(verilate.end(), lint.begin(), lint.end());
  verilate.insert(verilate.end(), {"--assert", "-x-assign", "unique", "-x-initial", "unique"});
  if (trace) verilate.push_back("--trace");
  for (const auto* part : {&cover, &hierarchy, &defines}) {
    verilate.insert(verilate.end(), part->begin(), part->end());
  }
  verilate.insert(verilate.end(), {"--prefix", "Vdut", "-Mdir", "."});
  verilate.insert(verilate.end(), sources.begin(), sources.end());
  // A sanitizer build's libraries need the sanitizers' runtime (CMakeLists.txt).
#ifdef OASIS_TB_SANITIZERS
  const std::string sanitizers = " " OASIS_TB_SANITIZERS;
#else
  const std::string sanitizers;
#endif
  verilate.insert(verilate.end(),
                  {"-CFLAGS", "-std=c++20 -ffp-contract=off -MP -I../source -I../rtl" + sanitizers,
                   "../source/verif/tb/" + tb + ".cpp", "../../../../liboasis_tb.a",
                   "../../../../liboasis_model.a", "-LDFLAGS", "-lfmt" + sanitizers, "-o", tb});
  const auto build_failed = [&] {
    fail(fmt::format("building {} for {} failed", o.block, o.label), log, 60);
  };
  // A testbench's C side (verif/tb/<block>_tb.c: software that uses the generated C driver
  // alone) is compiled as C99 with every warning an error, and linked in.
  if (fs::exists(root / "verif" / "tb" / (o.block + "_tb.c"))) {
    const std::string object = o.block + "_tb_c.o";
    if (run_tool({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-I.",
                  "-I../rtl", "-c", "../source/verif/tb/" + o.block + "_tb.c", "-o", object},
                 log, obj) != 0) {
      build_failed();
    }
    verilate.insert(verilate.end() - 5, object);
  }
  if (run_tool(verilate, log, obj) != 0) build_failed();
  // Each hierarchical block is its own verilated model, used by the top's.
  for (const auto& m : repeated) {
    if (!fs::exists(obj / ("V" + m) / ("V" + m + ".mk"))) {
      throw Failure(fmt::format("--hier: {} was not verilated as a block of its own", m));
    }
  }
}

// The harness's port list (the block's ports in the manifest; the harness checks each width
// against the verilated model's).
void Vltest::write_port_list() {
  const fs::path ports_log = out / "ports.log";
  fs::remove(ports_log);
  if (run_tool({(build / "portcheck").string(), "--block", o.block, "--header",
                "Vdut_ports.hpp.new", "../rtl/manifest.json"},
               ports_log, obj) != 0) {
    fail(
        fmt::format("no port list for {} in {}", o.block, (out / "rtl" / "manifest.json").string()),
        ports_log, 10);
  }
  const std::string ports = read_text(obj / "Vdut_ports.hpp.new");
  fs::remove(obj / "Vdut_ports.hpp.new");
  replace_if_changed(obj / "Vdut_ports.hpp", ports);
}

// Verilator's makefile, run in obj.
std::vector<std::string> Vltest::make_command() {
  // With ccache (make deps installs it), Verilator's runtime (verilated.cpp and
  // verilated_threads.cpp, about 9 CPU seconds) is compiled once per build folder rather than
  // once per testbench: its preprocessed text is the same in all.
  std::vector<std::string> make = {"make", "-f", "Vdut.mk", "-j", "2", "CURDIR=."};
  if (!find_program("ccache").empty()) {
    make.push_back("OBJCACHE=ccache");
    setenv("CCACHE_DIR", (build / "ccache").c_str(), 0);
  }
  // The C++ at -O1; -O2 for a hierarchical build, a large design's that runs long (the paper
  // core 2,446 to 2,458 cycles a second against 2,278 to 2,298 at -O1, its C++ in 53 s on two
  // cores against 49); -O0 for a netlist, whose simulations are short (the tiny core's 120
  // tokens take 0.3 s at -O0) and whose C++ is large: -O0 compiles the tiny core's netlist in
  // 2.0 CPU minutes against 3.4 at -O1.
  // --cxx-opt 0 for a short run of a large flat model (make demo's default core: its C++ in 35
  // CPU seconds against 113 at -O1).
  const int opt = o.cxx_opt >= 0 ? o.cxx_opt : o.netlist ? 0 : o.hier == 1 ? 2 : 1;
  make.push_back(fmt::format("OPT_FAST=-O{}", opt));
  // Verilator splits its C++ into files of about 20,000 statements, each compiled on its own and
  // each parsing verilated.h again: a small or middling model is compiled as one file
  // (VM_PARALLEL_BUILDS=0), which takes half the CPU time (the K = 38 core, 21.7 MB of C++: 114
  // CPU seconds split, 57 whole; the FIGLUT-class line's netlist at -O0: 39 against 17). A
  // larger one stays split, so that make's jobs share it and no one compiler holds all of it.
  // The split files of an earlier verilation stay in the folder and count too, which can only
  // choose the split build. The archive is made again when the choice changes: make adds
  // members to it and removes none.
  choose_build_mode(make);
  return make;
}

void Vltest::choose_build_mode(std::vector<std::string>& make) {
  constexpr std::uintmax_t kWholeBuildLimitBytes = 64ull << 20;
  std::uintmax_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(obj)) {
    const std::string file = entry.path().filename().string();
    if (entry.is_regular_file() && file.starts_with("Vdut") && file.ends_with(".cpp") &&
        file != "Vdut__ALL.cpp") {
      bytes += entry.file_size();
    }
  }
  const bool whole = o.hier == 0 && bytes <= kWholeBuildLimitBytes;
  const std::string mode = whole ? "whole\n" : "split\n";
  if (replace_if_changed(obj / "build_mode.txt", mode)) fs::remove(obj / "Vdut__ALL.a");
  if (whole) make.push_back("VM_PARALLEL_BUILDS=0");
}

// Make, after a testbench older than the model libraries is removed.
void Vltest::build_testbench() {
  const std::vector<std::string> make = make_command();
  // Verilator's makefile links the model libraries without depending on them: a testbench
  // older than either is removed, so that a change of the model relinks it.
  for (const char* lib : {"liboasis_tb.a", "liboasis_model.a"}) {
    std::error_code ec_tb, ec_lib;
    const auto tb_time = fs::last_write_time(obj / tb, ec_tb);
    const auto lib_time = fs::last_write_time(build / lib, ec_lib);
    if (!ec_tb && !ec_lib && tb_time <= lib_time) fs::remove(obj / tb);
  }
  // verilated.mk stops when make's working folder, CURDIR, holds a space. Every path in
  // Verilator's makefiles is relative and holds none, so make is given the folder by its
  // relative name.
  if (run_tool(make, out / "build.log", obj) != 0) {
    fail(fmt::format("building {} for {} failed", o.block, o.label), out / "build.log", 60);
  }
}

// The testbench with its seeds and arguments, in out; its status.
int Vltest::run_testbench() {
  // Verilator keeps a large design's wide temporaries on the stack: the paper PE line's settle
  // function overflows the usual 8 MB.
  rlimit stack{};
  if (getrlimit(RLIMIT_STACK, &stack) == 0) {
    stack.rlim_cur = stack.rlim_max;
    setrlimit(RLIMIT_STACK, &stack);
  }
  std::vector<std::string> cmd = {(obj / tb).string(),
                                  "+verilator+rand+reset+2",
                                  fmt::format("+verilator+seed+{}", reset_seed % 2147483646 + 1),
                                  "--manifest",
                                  (out / "rtl" / "manifest.json").string(),
                                  "--label",
                                  o.label,
                                  "--seed",
                                  std::to_string(seed)};
  cmd.insert(cmd.end(), o.tb_args.begin(), o.tb_args.end());
  return run_inherit(cmd, out);
}

// The counts name each source as Verilator read it, relative to obj (../rtl/<file>), the
// same in every run: name them by their absolute path, so that runs of different configs
// stay apart when merged and verilator_coverage finds the sources from anywhere.
void Vltest::rename_coverage_sources() {
  const std::string from = "\001f\002../rtl/";
  const std::string to = "\001f\002" + (out / "rtl").string() + "/";
  for (const std::string& f : {o.coverage, o.coverage + ".reset"}) {
    if (!fs::exists(f)) continue;
    std::string text = read_text(f), done;
    for (size_t at = 0;;) {
      const size_t hit = text.find(from, at);
      done += text.substr(at, hit - at);
      if (hit == std::string::npos) break;
      done += to;
      at = hit + from.size();
    }
    write_text(f, done);
  }
}

int run(int argc, char** argv) {
  int status = 0;
  Vltest v;
  v.o = parse(argc, argv, status);
  if (status >= 0) return status;
  v.prepare();
  v.choose_behavioural();
  v.choose_hier();
  // The object folder: obj, with -hier, -behavioural and -trace for those builds, so that
  // each kept build of a label is rebuilt only when its sources change.
  v.obj = v.out / fmt::format("obj{}{}{}", v.o.hier == 1 ? "-hier" : "",
                              v.o.behavioural == 1 ? "-behavioural" : "", v.trace ? "-trace" : "");
  fs::create_directories(v.obj);
  if (v.o.hier == 1) v.hier_sources();
  v.write_generated_headers();
  if (!v.o.coverage.empty()) {
    v.cover = {"--coverage-line", "--coverage-toggle"};
    v.o.tb_args.push_back("--coverage");
    v.o.tb_args.push_back(v.o.coverage);
  }
  v.run_verilator();
  v.write_port_list();
  v.build_testbench();
  const int tb_status = v.run_testbench();
  if (!v.o.coverage.empty()) v.rename_coverage_sources();
  return tb_status;
}

}  // namespace oasis_vltest_command

namespace oasis::commands {
int oasis_vltest(int argc, char** argv) {
  return flow::flow_main("oasis-vltest", [&] { return oasis_vltest_command::run(argc, argv); });
}
}  // namespace oasis::commands
