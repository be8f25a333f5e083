// SPDX-License-Identifier: Apache-2.0
#include "sim/tools/sweeps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

namespace oasis::sweeps {
namespace fs = std::filesystem;

namespace {

// A kind of run: the program in sim/ it runs and that program's option for it ("" for none),
// the test's name ({b} the block, {l} the label), its CTest label when it is not moved to make
// regress, and its timeout in seconds. Every test of a label but flows' takes the lock
// vl.<block>.<label>: the runs of a label share its build folder and take turns.
struct Rule {
  std::string_view kind, program, option, test, ctest_label;
  int timeout;
};

constexpr Rule kRules[] = {
    // The testbench on the generated RTL, and the Yosys checks of the config (sim/synthcheck,
    // yosys.<block>.<label>): every config a block is simulated with is also synthesized.
    {"verilator", "vltest", "", "vl.{b}.{l}", "verilator", 3600},
    // The same, the longer runs (make regress).
    {"regress", "vltest", "", "vl.{b}.{l}.regress", "regress", 3600},
    // An exhaustive run of 2^32 vectors takes about half an hour on one free core; allow for a
    // busy one (make test-exhaustive).
    {"exhaustive", "vltest", "", "vl.{b}.{l}.exhaustive", "exhaustive", 14400},
    // The testbench on the Yosys gate-level netlist.
    {"netlist", "vltest", "--netlist", "vl.{b}.{l}.netlist", "netlist", 3600},
    // Three times, with random reset and X-initialisation values (RESET_SEED=101, 202, 303)
    // compared with the same model expectations: the outputs after reset cannot depend on them.
    {"resets", "vltest", "", "vl.{b}.{l}.resets", "resets", 3600},
    // The testbench's workload mode (docs/workload.md).
    {"workload", "vltest", "", "vl.{b}.{l}.workload", "workload", 3600},
    // A hierarchical Verilator model; Verilator's hierarchical build takes no path with a space
    // (docs/paths.md), so it is left out where the build or source folder's path holds one.
    {"hier", "vltest", "--hier", "vl.{b}.{l}.hier", "hier", 3600},
    // The RTL with the generator's behavioural macro defined, the form large designs are
    // simulated in.
    {"behavioural", "vltest", "--behavioural", "vl.{b}.{l}.behavioural", "verilator", 3600},
    // The Verilator run recorded and replayed in Icarus Verilog (docs/icarus.md).
    {"icarus", "icarus", "", "iv.{b}.{l}", "icarus", 3600},
    // The same replay on the block's osu018 netlist, mapped, buffered and timed by oasis-ppa
    // (docs/ppa.md).
    {"gates", "icarus", "--gates", "iv.{b}.{l}.gates", "verilator", 3600},
    // The files oasis-gen writes for other flows, checked for the config (sim/flowcheck checks
    // every block; it runs no testbench).
    {"flows", "flowcheck", "", "flows.{l}", "flows", 1800},
};

const Rule* find_rule(std::string_view kind) {
  for (const Rule& r : kRules) {
    if (r.kind == kind) return &r;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? std::string(sep) : "") + words[i];
  return out;
}

// Lower-case letters, digits and _: a block's or a label's name, a config key.
bool is_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    const size_t end = s.find(sep, begin);
    out.emplace_back(s.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return out;
    begin = end + 1;
  }
}

constexpr std::string_view kFirstRow =
    "'label kinds config [key=value ...] [-- testbench arguments]'";
constexpr std::string_view kMoreRow = "'label kinds [-- testbench arguments]'";

// Reads one table, a row at a time; every error names the file and the row's line.
class Parser {
 public:
  Parser(const std::string& block, const std::string& file) {
    sweep_.block = block;
    sweep_.file = file;
  }

  void row(const std::string& text, int line) {
    line_ = line;
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty() || words[0][0] == '#') return;
    for (const auto& w : words) {
      if (w.find_first_of("\"\\") != std::string::npos) {
        fail(fmt::format("'{}' holds a quote or a backslash; allowed: words without either", w));
      }
    }
    const std::string& name = words[0];
    if (!is_name(name)) {
      fail(fmt::format("label '{}'; allowed: lower-case letters, digits and _", name));
    }
    if (words.size() < 2 || words[1] == "--") {
      fail(
          fmt::format("label '{}' with no kinds; allowed: {}, then {}", name, kFirstRow, kMoreRow));
    }
    const auto dashes = std::find(words.begin(), words.end(), "--");
    const std::vector<std::string> tb_args(dashes == words.end() ? dashes : dashes + 1,
                                           words.end());
    std::vector<Run> runs = parse_kinds(words[1], tb_args);
    Label* label = find(name);
    if (dashes - words.begin() > 2) {
      label = declare(name, std::vector<std::string>(words.begin() + 2, dashes));
    } else if (!label) {
      fail(fmt::format("label '{}' has no config above; allowed: its first row {}, then {}", name,
                       kFirstRow, kMoreRow));
    }
    for (Run& run : runs) {
      for (const Run& r : label->runs) {
        if (r.kind == run.kind) {
          fail(fmt::format(
              "kind {} of label '{}' is run at line {} already; allowed: each kind once a label",
              run.kind, label->name, r.line));
        }
      }
      label->runs.push_back(std::move(run));
    }
  }

  Sweep done() { return std::move(sweep_); }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw SweepError(fmt::format("{}:{}: {}", sweep_.file, line_, what));
  }

  Label* find(const std::string& name) {
    for (Label& l : sweep_.labels) {
      if (l.name == name) return &l;
    }
    return nullptr;
  }

  // A label's first row: `words` are its config and key=value overrides.
  Label* declare(const std::string& name, const std::vector<std::string>& words) {
    if (const Label* l = find(name)) {
      fail(fmt::format(
          "label '{}' has its config at line {} already; allowed: one config a label, its other "
          "runs in rows {}",
          name, l->line, kMoreRow));
    }
    const std::string& config = words[0];
    if (!config.ends_with(".json") || config[0] == '/') {
      fail(fmt::format(
          "'{}' is not a config; allowed after the kinds: a config relative to the project "
          "(configs/<name>.json), or -- and testbench arguments",
          config));
    }
    Label label{name, config, {}, {}, line_};
    std::set<std::string> keys;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      const size_t eq = w.find('=');
      if (w == "ctest=regress" || w == "yosys=regress") {
        fail(fmt::format(
            "'{}' is not a config key; allowed: a kind in make regress as kind:regress, "
            "verilator's Yosys check as verilator:yosys-regress",
            w));
      }
      if (eq == std::string::npos || !is_name(w.substr(0, eq)) || eq + 1 == w.size()) {
        fail(fmt::format(
            "'{}' is not key=value; allowed after the config: key=value overrides, then -- and "
            "testbench arguments",
            w));
      }
      if (!keys.insert(w.substr(0, eq)).second) {
        fail(fmt::format("key '{}' is set twice; allowed: each key once", w.substr(0, eq)));
      }
      label.sets.push_back(w);
    }
    sweep_.labels.push_back(std::move(label));
    return &sweep_.labels.back();
  }

  // The comma list `list` of kinds, each with its options (kind:option:...), run with `tb_args`.
  std::vector<Run> parse_kinds(const std::string& list, const std::vector<std::string>& tb_args) {
    std::vector<Run> runs;
    for (const std::string& item : split(list, ',')) {
      const std::vector<std::string> parts = split(item, ':');
      Run run{parts[0], false, false, tb_args, line_};
      if (run.kind.empty()) {
        fail(fmt::format("empty kind in '{}'; allowed: kinds joined by commas, no spaces ({})",
                         list, "verilator,netlist:regress"));
      }
      if (!find_rule(run.kind)) {
        fail(fmt::format("unknown kind '{}'{}; allowed: {}", run.kind,
                         run.kind.ends_with(".json") ? " (the kinds come before the config)" : "",
                         join(kinds(), ", ")));
      }
      for (size_t i = 1; i < parts.size(); ++i) {
        if (run.kind == "regress") {
          fail(fmt::format(
              "kind regress with option '{}'; allowed: none (it runs in make regress, and so "
              "does its Yosys check)",
              parts[i]));
        }
        if (parts[i] == "regress") {
          run.regress = true;
        } else if (parts[i] == "yosys-regress" && run.kind == "verilator") {
          run.yosys_regress = true;
        } else {
          fail(fmt::format("kind {} with option '{}'; allowed: {}", run.kind, parts[i],
                           run.kind == "verilator" ? "regress, yosys-regress" : "regress"));
        }
      }
      if (run.kind == "flows" && !tb_args.empty()) {
        fail(
            "kind flows with testbench arguments; allowed: none (sim/flowcheck runs no "
            "testbench)");
      }
      runs.push_back(std::move(run));
    }
    return runs;
  }

  Sweep sweep_;
  int line_ = 0;
};

// `s` as a quoted argument of CMake's language.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"' || c == '$') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<std::string> kinds() {
  std::vector<std::string> out;
  for (const Rule& r : kRules) out.emplace_back(r.kind);
  return out;
}

Sweep parse(const std::string& block, const std::string& text, const std::string& file) {
  Parser parser(block, file);
  std::istringstream in(text);
  int line = 0;
  for (std::string row; std::getline(in, row);) parser.row(row, ++line);
  return parser.done();
}

std::vector<Sweep> read(const fs::path& source) {
  const fs::path dir = source / "sim" / "sweeps";
  if (!fs::is_directory(dir)) throw SweepError(fmt::format("no folder {}", dir.string()));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".txt") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Sweep> out;
  for (const fs::path& path : files) {
    const std::string file = "sim/sweeps/" + path.filename().string();
    const std::string block = path.stem().string();
    if (!is_name(block)) {
      throw SweepError(fmt::format(
          "{}: not a sweep's name; allowed: <block>.txt, one table a block (lower-case letters, "
          "digits and _), its kinds of run a column of it",
          file));
    }
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw SweepError(fmt::format("{}: cannot be read", file));
    Sweep sweep = parse(block, text.str(), file);
    for (const Label& l : sweep.labels) {
      if (!fs::is_regular_file(source / l.config)) {
        throw SweepError(
            fmt::format("{}:{}: config '{}': no such file in the project", file, l.line, l.config));
      }
    }
    out.push_back(std::move(sweep));
  }
  return out;
}

std::vector<Test> tests(const std::vector<Sweep>& sweeps, const std::string& source,
                        const std::string& build, std::vector<std::string>& left_out) {
  const bool space = (source + build).find(' ') != std::string::npos;
  std::vector<Test> out;
  std::map<std::string, std::string> made;  // test name -> where its row is
  for (const Sweep& sweep : sweeps) {
    for (const Label& label : sweep.labels) {
      std::vector<std::string> config = {"--config", source + "/" + label.config, "--label",
                                         label.name};
      for (const auto& s : label.sets) config.insert(config.end(), {"--set", s});
      const std::string lock = fmt::format("vl.{}.{}", sweep.block, label.name);
      for (const Run& run : label.runs) {
        const Rule& rule = *find_rule(run.kind);
        const std::string where = fmt::format("{}:{}", sweep.file, run.line);
        const std::string name = fmt::format(fmt::runtime(rule.test), fmt::arg("b", sweep.block),
                                             fmt::arg("l", label.name));
        if (rule.kind == "hier" && space) {
          left_out.push_back(
              fmt::format("{} left out: the build or source folder's path holds a space", name));
          continue;
        }
        if (rule.kind == "flows" &&
            fs::exists(fs::path(source) / "configs" / (label.name + ".json"))) {
          throw SweepError(fmt::format(
              "{}: flows.{} is the make regress check of configs/{}.json; allowed: a label no "
              "config in configs/ is named",
              where, label.name, label.name));
        }
        std::vector<std::string> command = {source + "/sim/" + std::string(rule.program), "--build",
                                            build};
        if (rule.kind != "flows") command.insert(command.end(), {"--block", sweep.block});
        command.insert(command.end(), config.begin(), config.end());
        const std::vector<std::string> synth = command;
        if (!rule.option.empty()) command.emplace_back(rule.option);
        if (rule.kind != "flows") {
          command.emplace_back("--");
          command.insert(command.end(), run.tb_args.begin(), run.tb_args.end());
        }
        const auto add = [&](Test t) {
          const auto [at, added] = made.emplace(t.name, where);
          if (!added) {
            throw SweepError(
                fmt::format("{}: test {} is made at {} already; allowed: a test "
                            "made once",
                            where, t.name, at->second));
          }
          out.push_back(std::move(t));
        };
        const std::string ctest_label = run.regress ? "regress" : std::string(rule.ctest_label);
        const std::string run_lock = rule.kind == "flows" ? "" : lock;
        if (rule.kind == "resets") {
          for (const char* seed : {"101", "202", "303"}) {
            add({name + seed, command, ctest_label, rule.timeout, run_lock,
                 std::string("RESET_SEED=") + seed});
          }
        } else {
          add({name, command, ctest_label, rule.timeout, run_lock, ""});
        }
        if (rule.kind == "verilator" || rule.kind == "regress") {
          std::vector<std::string> check = synth;
          check[0] = source + "/sim/synthcheck";
          add({"yosys" + name.substr(2), check,
               run.yosys_regress ? "regress" : std::string(rule.ctest_label), 3600, "", ""});
        }
      }
    }
  }
  return out;
}

std::string ctest_script(const std::vector<Test>& tests, const std::vector<std::string>& left_out) {
  std::string out =
      "# Written by oasis-sweeps: the tests of the sweeps, sim/sweeps/<block>.txt "
      "(docs/testing.md).\n";
  for (const auto& l : left_out) out += "# " + l + "\n";
  for (const Test& t : tests) {
    out += "add_test(" + quoted(t.name);
    for (const auto& a : t.command) out += " " + quoted(a);
    out += fmt::format(")\nset_tests_properties({} PROPERTIES LABELS {} TIMEOUT {}", quoted(t.name),
                       quoted(t.label), t.timeout);
    if (!t.resource_lock.empty()) out += " RESOURCE_LOCK " + quoted(t.resource_lock);
    if (!t.environment.empty()) out += " ENVIRONMENT " + quoted(t.environment);
    out += ")\n";
  }
  return out;
}

std::string runs_json(const std::vector<Sweep>& sweeps) {
  std::vector<std::string> lines;
  for (const Sweep& sweep : sweeps) {
    for (const Label& label : sweep.labels) {
      for (const Run& run : label.runs) {
        nlohmann::ordered_json o = {{"block", sweep.block}, {"kind", run.kind},
                                    {"label", label.name},  {"config", label.config},
                                    {"sets", label.sets},   {"tb_args", run.tb_args}};
        lines.push_back("  " + o.dump());
      }
    }
  }
  return "[\n" + join(lines, ",\n") + (lines.empty() ? "" : "\n") + "]\n";
}

}  // namespace oasis::sweeps
