// SPDX-License-Identifier: Apache-2.0
// covreport: the per-block report of make coverage (sim/coverage). Reads, in
// BUILD/coverage/, runs.tsv (the runs and their status), blocks/<block>.dat
// and blocks/<block>.reset.dat (each block's counts at the end of its runs and
// at the end of their reset, merged by verilator_coverage --write) and
// annotate/<block>/<label>/ (verilator_coverage --annotate of each run's line
// points); writes report.md and report.json there and prints the per-block
// table. Only points in the sources of a run's own file list
// (vl/<block>/<label>.coverage/rtl/<block>.f) count: the block's generated
// RTL and the rtl/ primitives it uses. Toggles up to the end of reset come
// from the random initial values and are not counted.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/ppa/plan.hpp"
#include "tools/commands.hpp"

namespace covreport_command {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

/// One coverage point of a Verilator coverage data file.
struct Point {
  std::string key;      ///< the whole key, the same in every file of the same model
  std::string file;     ///< 'f'
  int line = 0;         ///< 'l'
  std::string kind;     ///< "line" (page v_line or v_branch) or "toggle" (v_toggle)
  std::string comment;  ///< 'o': block, if, else, case... or the toggled bit
  std::string hier;     ///< 'h'
  int first = 0;        ///< 'S': the lines of the statements it counts
  int last = 0;
  uint64_t count = 0;

  bool spans(int n) const { return n == line || (first <= n && n <= last); }
};

/// Reads the `C '<\001key\002value>...' count` lines of a coverage.dat.
std::vector<Point> read_points(const fs::path& path) {
  std::vector<Point> points;
  int n = 0;
  for (const auto& l : read_lines(path)) {
    ++n;
    if (l.empty() || l[0] == '#') continue;
    const size_t close = l.rfind("' ");
    if (!l.starts_with("C '") || close == std::string::npos || close < 3) {
      throw std::runtime_error(fmt::format("{}:{}: not a coverage point", path.string(), n));
    }
    Point p;
    p.key = l.substr(3, close - 3);
    p.count = std::stoull(l.substr(close + 2));
    std::string page;
    std::istringstream keys(p.key);
    for (std::string kv; std::getline(keys, kv, '\001');) {
      const size_t sep = kv.find('\002');
      if (sep == std::string::npos) continue;
      const std::string key = kv.substr(0, sep), value = kv.substr(sep + 1);
      if (key == "f") p.file = value;
      if (key == "l") p.line = std::stoi(value);
      if (key == "page") page = value;
      if (key == "o") p.comment = value;
      if (key == "h") p.hier = value;
      if (key == "S") {
        const size_t dash = value.find('-');
        p.first = std::stoi(value.substr(0, dash));
        p.last = dash == std::string::npos ? p.first : std::stoi(value.substr(dash + 1));
      }
    }
    if (page.starts_with("v_line/") || page.starts_with("v_branch/")) {
      p.kind = "line";
    } else if (page.starts_with("v_toggle/")) {
      p.kind = "toggle";
    } else {
      continue;  // a kind this report does not measure
    }
    points.push_back(std::move(p));
  }
  return points;
}

struct Tally {
  uint64_t covered = 0, total = 0;

  void add(uint64_t count) {
    ++total;
    if (count > 0) ++covered;
  }
  ordered_json json() const {
    ordered_json j = {{"covered", covered}, {"total", total}, {"percent", nullptr}};
    if (total) j["percent"] = 100.0 * double(covered) / double(total);
    return j;
  }
  std::string percent() const {
    return total ? fmt::format("{:.1f} %", 100.0 * double(covered) / double(total)) : "n/a";
  }
  std::string text() const { return fmt::format("{} ({}/{})", percent(), covered, total); }
};

/// A source file of one run.
struct Source {
  std::string label;
  fs::path path;              ///< the generated copy the simulation read
  std::string name;           ///< how the report names it: <label>/<file name>
  std::string rtl;            ///< rtl/<file> when it is a copy of a hand-written primitive
  std::vector<int> rtl_line;  ///< line of the copy -> line of rtl/<file> (0: none)
};

/// A primitive's copy is its rtl/ file after a banner and a "// Copied from
/// rtl/<file>." line, without the `default_nettype lines and the blank lines
/// before the first other line (gen/generator.cpp). Maps its lines back,
/// checking the text; leaves them unmapped if the copy differs.
void map_primitive(Source& s, const fs::path& root) {
  const auto copy = read_lines(s.path);
  const std::string tag = "// Copied from ";
  size_t c = 0;
  while (c < copy.size() && !copy[c].starts_with(tag + "rtl/")) ++c;
  if (c == copy.size() || !copy[c].ends_with(".")) return;
  const std::string rel = copy[c].substr(tag.size(), copy[c].size() - tag.size() - 1);
  if (!fs::exists(root / rel)) return;
  const auto orig = read_lines(root / rel);
  std::vector<int> map(copy.size() + 1, 0);
  ++c;
  bool leading = true;
  for (size_t o = 0; o < orig.size() && c < copy.size(); ++o) {
    if (orig[o].starts_with("`default_nettype") || (leading && orig[o].empty())) continue;
    leading = false;
    if (orig[o] != copy[c]) return;
    map[c + 1] = int(o + 1);
    ++c;
  }
  s.rtl = rel;
  s.rtl_line = std::move(map);
}

/// A line verilator_coverage --annotate marked: a point on it never counted.
struct Uncovered {
  const Source* source;
  int line;
  std::string text;
  std::set<std::string> kinds;  ///< of the points at 0 on it: block, if, else, case...
};

/// Reads an annotated file: "<count>\t<source line>", the count empty where
/// the line has no point and starting with '%' below --annotate-min; a further
/// point on a line follows it as "<count>\t(next point on previous line)" and
/// an empty line.
std::vector<Uncovered> read_annotation(const fs::path& path, const Source& s) {
  std::vector<Uncovered> out;
  const auto lines = read_lines(path);
  int n = 0;
  std::string text;
  for (size_t i = 1; i < lines.size(); ++i) {  // [0] is verilator_coverage's banner
    const std::string& l = lines[i];
    const size_t tab = l.find('\t');
    if (tab == std::string::npos) continue;  // the empty line after a further point
    if (l.find("verilator_coverage: (next point on previous line)", tab) == std::string::npos) {
      ++n;
      text = l.substr(tab + 1);
    }
    if (l[0] == '%' && (out.empty() || out.back().line != n)) out.push_back({&s, n, text, {}});
  }
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

/// A toggle point's signal: its comment without the bit index.
std::string signal_of(const std::string& comment) {
  const size_t b = comment.rfind('[');
  return b == std::string::npos || !comment.ends_with("]") ? comment : comment.substr(0, b);
}

std::string md_code(const std::string& s) {
  return s.find('`') == std::string::npos ? "`" + s + "`" : "`` " + s + " ``";
}

struct Run {
  std::string label, status;
  uint64_t seconds = 0;
};

/// Everything the report says about one block.
struct Block {
  std::string name;
  std::vector<Run> runs;
  int failed = 0;
  Tally line, toggle;
  Tally toggle_raw;  ///< Verilator's own figure, the toggles up to reset included
  uint64_t excluded = 0;
  std::map<std::string, std::pair<Tally, Tally>> files;  ///< line, toggle by source name
  std::map<std::string, Source> sources;                 ///< by the path the simulation read
  std::vector<Uncovered> uncovered;
  /// Per source name and signal: its bits, and the instances with one that never toggled.
  std::map<std::pair<std::string, std::string>, std::pair<Tally, std::set<std::string>>> signals;
};

Block measure(const fs::path& build, const fs::path& root, const std::string& name,
              const std::vector<Run>& runs) {
  const fs::path dir = build / "coverage";
  Block b;
  b.name = name;
  b.runs = runs;
  for (const auto& r : runs) {
    b.failed += r.status != "PASS";
    const fs::path rtl = build / "vl" / name / (r.label + ".coverage") / "rtl";
    const fs::path list = rtl / (name + ".f");
    if (!fs::exists(list)) continue;  // the run failed before it generated anything
    for (const auto& l : oasis::ppa::file_list(rtl, name)) {
      Source s{r.label, fs::weakly_canonical(rtl / l), r.label + "/" + l, "", {}};
      map_primitive(s, root);
      b.sources[s.path.string()] = std::move(s);
    }
  }

  std::vector<Point> points;
  if (fs::exists(dir / "blocks" / (name + ".dat"))) {
    points = read_points(dir / "blocks" / (name + ".dat"));
  }
  std::map<std::string, uint64_t> at_reset;
  if (const fs::path r = dir / "blocks" / (name + ".reset.dat"); fs::exists(r)) {
    for (const auto& p : read_points(r)) at_reset[p.key] = p.count;
  }
  std::map<std::string, std::vector<const Point*>> never;  // line points at 0, by path
  for (auto& p : points) {
    const auto it = b.sources.find(fs::weakly_canonical(p.file).string());
    if (it == b.sources.end()) {
      ++b.excluded;
      continue;
    }
    auto& file = b.files[it->second.name];
    if (p.kind == "line") {
      b.line.add(p.count);
      file.first.add(p.count);
      if (p.count == 0) never[it->first].push_back(&p);
    } else {
      b.toggle_raw.add(p.count);
      if (const auto r = at_reset.find(p.key); r != at_reset.end()) {
        p.count = p.count > r->second ? p.count - r->second : 0;
      }
      b.toggle.add(p.count);
      file.second.add(p.count);
      auto& signal = b.signals[{it->second.name, signal_of(p.comment)}];
      signal.first.add(p.count);
      if (p.count == 0) signal.second.insert(p.hier);
    }
  }

  for (const auto& [path, s] : b.sources) {
    const fs::path a = dir / "annotate" / name / s.label / s.path.filename();
    if (!fs::exists(a)) continue;  // verilator_coverage writes only the files it marks
    for (auto& u : read_annotation(a, s)) {
      for (const Point* p : never[path]) {
        if (p->spans(u.line)) u.kinds.insert(p->comment);
      }
      b.uncovered.push_back(std::move(u));
    }
  }
  return b;
}

std::string rtl_ref(const Uncovered& u) {
  const Source& s = *u.source;
  if (s.rtl.empty() || size_t(u.line) >= s.rtl_line.size() || !s.rtl_line[u.line]) return "";
  return fmt::format("{}:{}", s.rtl, s.rtl_line[u.line]);
}

ordered_json to_json(const Block& b) {
  ordered_json runs = ordered_json::array(), files = ordered_json::array(),
               uncovered = ordered_json::array(), untoggled = ordered_json::array();
  for (const auto& r : b.runs) {
    runs.push_back({{"label", r.label}, {"status", r.status}, {"seconds", r.seconds}});
  }
  for (const auto& [name, t] : b.files) {
    files.push_back({{"file", name}, {"line", t.first.json()}, {"toggle", t.second.json()}});
  }
  for (const auto& u : b.uncovered) {
    ordered_json j = {{"file", u.source->name}, {"line", u.line}};
    if (const auto r = rtl_ref(u); !r.empty()) j["rtl"] = r;
    j["text"] = trim(u.text);
    j["points"] = u.kinds;
    uncovered.push_back(j);
  }
  for (const auto& [key, s] : b.signals) {
    if (s.first.covered == s.first.total) continue;
    untoggled.push_back({{"file", key.first},
                         {"signal", key.second},
                         {"untoggled_bits", s.first.total - s.first.covered},
                         {"bits", s.first.total},
                         {"instances", s.second}});
  }
  return {{"runs", runs},
          {"failed_runs", b.failed},
          {"line", b.line.json()},
          {"toggle", b.toggle.json()},
          {"toggle_including_reset", b.toggle_raw.json()},
          {"excluded_points", b.excluded},
          {"files", files},
          {"uncovered_lines", uncovered},
          {"untoggled_signals", untoggled}};
}

std::string to_markdown(const Block& b, size_t max_signals) {
  std::string md = fmt::format("\n## {}\n\nRuns:", b.name);
  for (const auto& r : b.runs) md += fmt::format(" `{}` {} {} s;", r.label, r.status, r.seconds);
  md.back() = '.';
  md += fmt::format("\nLine {}, toggle {} ({} with the toggles up to reset).", b.line.text(),
                    b.toggle.text(), b.toggle_raw.percent());
  if (b.excluded) md += fmt::format(" {} points outside the block's sources left out.", b.excluded);
  md += "\n\n| file | line | toggle |\n|---|---|---|\n";
  for (const auto& [name, t] : b.files) {
    md += fmt::format("| {} | {} | {} |\n", name, t.first.text(), t.second.text());
  }
  if (b.uncovered.empty()) {
    md += "\nEvery line point counted.\n";
  } else {
    md +=
        "\nLines with a point that never counted (`verilator_coverage --annotate`, `%000000`), "
        "with the kinds of those points:\n\n";
    for (const auto& u : b.uncovered) {
      const auto r = rtl_ref(u);
      md += fmt::format("- {}:{}{} {}{}\n", u.source->name, u.line, r.empty() ? "" : " (" + r + ")",
                        md_code(trim(u.text)),
                        u.kinds.empty() ? "" : fmt::format(" ({})", fmt::join(u.kinds, ", ")));
    }
  }
  size_t n = 0, total = 0;
  for (const auto& [key, s] : b.signals) total += s.first.covered < s.first.total;
  if (total)
    md += "\nSignals with bits that never toggled after reset (untoggled bits / bits):\n\n";
  for (const auto& [key, s] : b.signals) {
    if (s.first.covered == s.first.total) continue;
    if (n++ == max_signals) {
      md += fmt::format("- and {} more (report.json)\n", total - max_signals);
      break;
    }
    md += fmt::format("- {} {}: {}/{}\n", key.first, md_code(key.second),
                      s.first.total - s.first.covered, s.first.total);
  }
  return md;
}

}  // namespace covreport_command

int oasis::commands::covreport(int argc, char** argv) {
  using namespace covreport_command;
  CLI::App app{"covreport: the per-block report of make coverage (see sim/coverage)"};
  std::string build, root;
  std::string seed = "1";  // as given: the report only quotes it
  uint64_t seconds = 0;
  size_t max_signals = 40;
  app.add_option("--build", build, "build folder (reads and writes BUILD/coverage)")->required();
  app.add_option("--root", root, "source tree, to map the primitives' copies to rtl/")->required();
  app.add_option("--seed", seed, "the runs' SEED, for the report");
  app.add_option("--seconds", seconds, "wall time of the runs, for the report");
  app.add_option("--max-signals", max_signals, "untoggled signals listed per block in report.md");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "covreport: {}\n", e.what());
    return 2;
  }
  try {
    const fs::path dir = fs::path(build) / "coverage";
    std::vector<std::string> order;
    std::map<std::string, std::vector<Run>> runs;
    const auto tsv = read_lines(dir / "runs.tsv");
    for (size_t i = 1; i < tsv.size(); ++i) {
      std::istringstream f(tsv[i]);
      std::string block;
      Run r;
      if (!(f >> block >> r.label >> r.status >> r.seconds)) {
        throw std::runtime_error(fmt::format("{}:{}: expected block, label, status, seconds",
                                             (dir / "runs.tsv").string(), i + 1));
      }
      if (!runs.count(block)) order.push_back(block);
      runs[block].push_back(r);
    }

    ordered_json report = {
        {"seed", seed},
        {"runs", tsv.size() - 1},
        {"seconds", seconds},
        {"counted",
         "line (v_line, v_branch) and toggle (v_toggle) points in the sources of each "
         "run's <block>.f: the block's generated RTL and the rtl/ primitives it uses; "
         "toggles counted after the first reset"},
        {"blocks", ordered_json::object()}};
    std::string md = fmt::format(
        "# Verilator coverage of the generated RTL\n\n"
        "Written by `make coverage` (`sim/coverage`, `sim/tools/covreport.cpp`; see "
        "docs/coverage.md): every plain run of the sweeps (kind `verilator` of "
        "`sim/sweeps/<block>.txt`) built "
        "with `verilator --coverage-line --coverage-toggle`, seed {}, {} runs in {} s. Counted: "
        "the points in the sources of each run's `<block>.f` (the block's generated RTL and the "
        "`rtl/` primitives it uses), over every config the block is swept with. A line point (a "
        "block of statements, or one side of an `if`) is covered when it ran once, a toggle point "
        "(one bit of a signal) when the bit changed once after the first reset.\n\n"
        "| block | runs | line coverage | toggle coverage | lines with a point never run |\n"
        "|---|---|---|---|---|\n",
        seed, tsv.size() - 1, seconds);
    std::string details;
    std::string table = fmt::format("{:<20} {:>4}  {:<24} {:<24} {}\n", "block", "runs", "line",
                                    "toggle", "lines never run");
    for (const auto& name : order) {
      const Block b = measure(build, root, name, runs[name]);
      report["blocks"][name] = to_json(b);
      const std::string failed = b.failed ? fmt::format(" ({} FAILED)", b.failed) : "";
      md += fmt::format("| [{}](#{}) | {}{} | {} | {} | {} |\n", name, name, b.runs.size(), failed,
                        b.line.text(), b.toggle.text(), b.uncovered.size());
      table += fmt::format("{:<20} {:>4}  {:<24} {:<24} {}{}\n", name, b.runs.size(), b.line.text(),
                           b.toggle.text(), b.uncovered.size(), failed);
      details += to_markdown(b, max_signals);
    }
    std::ofstream(dir / "report.md") << md << details;
    std::ofstream(dir / "report.json") << report.dump(2) << "\n";
    fmt::print("{}\nreport: {}\n        {}\n", table, (dir / "report.md").string(),
               (dir / "report.json").string());
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "covreport: {}\n", e.what());
    return 1;
  }
}
