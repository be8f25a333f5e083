// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/generic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

#include "sim/ppa/reports.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {

namespace fs = std::filesystem;

std::vector<ConeRule> stream_contract(const gen::Manifest& manifest, const std::string& block) {
  const auto ports = manifest.ports(block);
  const auto has = [&](const std::string& direction, const std::string& name) {
    return std::any_of(ports.begin(), ports.end(), [&](const gen::ManifestPort& p) {
      return p.direction == direction && p.name == name;
    });
  };
  const bool has_ready = std::any_of(ports.begin(), ports.end(), [](const gen::ManifestPort& p) {
    return p.name.ends_with("ready_i") || p.name.ends_with("ready_o");
  });
  const bool pass_through = !has_ready && has("input", "in_valid_i") &&
                            manifest.figure(block, "latency_cycles") == 0;
  const std::map<std::pair<std::string, std::string>, std::string> documented = {
      {{"clustering_unit", "act_ready_o"}, "idx_ready_i"},
      {{"index_counter_array", "idx_ready_o"}, "cnt_ready_i"}};
  std::vector<ConeRule> rules;
  for (const auto& p : ports) {
    if (p.direction != "output") continue;
    const bool handshake = p.name.ends_with("valid_o") || p.name.ends_with("ready_o") ||
                           p.name.ends_with("idle_o") || p.name.ends_with("busy_o");
    if (!handshake) continue;
    ConeRule rule{p.name, {}};
    if (const auto it = documented.find({block, p.name}); it != documented.end()) {
      rule.allowed_inputs.push_back(it->second);
    }
    if (pass_through && p.name == "out_valid_o") rule.allowed_inputs.push_back("in_valid_i");
    rules.push_back(rule);
  }
  return rules;
}

std::string stream_contract_script(const std::vector<ConeRule>& rules) {
  if (rules.empty()) return "";
  // Every flip-flop cell proc and opt leave; a memory's read port is logic, as it is in the
  // RTL's asynchronous reads.
  const std::string flops = "$dff,$dffe,$adff,$adffe,$sdff,$sdffe,$sdffce,$aldff,$aldffe,"
                            "$dffsr,$dffsre";
  std::string s = "design -save contract\nflatten\nopt_clean\n";
  for (const auto& r : rules) {
    s += fmt::format("log stream contract: {}'s inputs through logic alone\n", r.output);
    s += fmt::format("select -set cone o:{} %ci*:-{}\nselect -list @cone i:* %i\n", r.output,
                     flops);
    s += "select -assert-none @cone i:* %i";
    for (const auto& a : r.allowed_inputs) s += fmt::format(" i:{} %d", a);
    s += "\n";
  }
  s += "design -load contract\n";
  return s;
}

std::string yosys_check_script(const std::vector<std::string>& sources, const std::string& top,
                               const std::string& ports_json, const std::string& contract) {
  std::string s = "read_verilog -sv";
  for (const auto& src : sources) s += " rtl/" + src;
  s += "\n";
  s += fmt::format("hierarchy -check -top {}\nproc\n", top);
  // The elaborated ports, from a copy of the design with every cell and process deleted.
  if (!ports_json.empty()) {
    s += fmt::format(
        "design -save elab\ndelete t:* p:*\nopt_clean -purge\nwrite_json {}\ndesign -load elab\n",
        ports_json);
  }
  s += contract;
  s += "check -assert\nselect -assert-none t:$dlatch t:$adlatch t:$dlatchsr\n";
  s += fmt::format("synth -top {}\ncheck -assert\nstat\n", top);
  return s;
}

std::string generic_script(const GenericJob& job) {
  std::string s = fmt::format("# oasis-synth: {}, generic cells\n", job.label);
  s += yosys_check_script(job.sources, job.top);
  // Measured flat; then the flip-flops with enables become plain ones and a
  // multiplexer, which the CMOS costs know.
  s += "flatten\nopt_clean\ntee -q -o cells.stat stat\ntee -q -o depth.ltp ltp -noff\n";
  s += "dffunmap\nopt_clean\ntee -q -o cmos.stat stat\n";
  return s;
}

long generic_flip_flops(const std::map<std::string, long>& cells) {
  long n = 0;
  for (const auto& [type, count] : cells) {
    if (type.starts_with("$_") && type.find("DFF") != std::string::npos) n += count;
  }
  return n;
}

long generic_transistors(const std::map<std::string, long>& cells) {
  static const std::map<std::string, long> cost = {
      {"$_BUF_", 1},  {"$_NOT_", 2},   {"$_AND_", 6},    {"$_NAND_", 4},
      {"$_OR_", 6},   {"$_NOR_", 4},   {"$_ANDNOT_", 6}, {"$_ORNOT_", 6},
      {"$_XOR_", 12}, {"$_XNOR_", 12}, {"$_AOI3_", 6},   {"$_OAI3_", 6},
      {"$_AOI4_", 8}, {"$_OAI4_", 8},  {"$_MUX_", 12},   {"$_NMUX_", 10}};
  // A plain flip-flop, with or without an asynchronous reset or set.
  static const std::regex flop(R"(^\$_DFF_[PN]([PN][01])?_$)");
  long t = 0;
  for (const auto& [type, n] : cells) {
    const auto it = cost.find(type);
    if (it != cost.end()) {
      t += it->second * n;
    } else if (std::regex_match(type, flop)) {
      t += 16 * n;
    } else {
      throw ReportError(fmt::format("no transistor cost for cell type {}", type));
    }
  }
  return t;
}

long parse_ltp_depth(const std::string& text) {
  static const std::regex path(R"(Longest topological path in .* \(length=(\d+)\):)");
  long depth = -1;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator();
       ++it) {
    depth = std::stol((*it)[1]);
  }
  if (depth < 0) throw ReportError("no longest path in Yosys's ltp report");
  return depth;
}

GenericFigures run_generic(const GenericJob& job, const std::string& yosys, const fs::path& work,
                           const fs::path& log) {
  fs::remove_all(work);
  fs::create_directories(work);
  fs::create_directories(log.parent_path());
  fs::create_directory_symlink(fs::absolute(job.rtl_dir), work / "rtl");
  write_text(work / "synth.ys", generic_script(job));
  check_tool(run_tool({yosys, "-q", "-e", kYosysErrors, "-l", fs::absolute(log).string(), "-s",
                       "synth.ys"},
                      work / "yosys.out", work),
             "Yosys", log);
  auto flat = [&](const char* file) {
    const auto stat = parse_yosys_stat(read_text(work / file));
    const auto it = stat.find(job.top);
    if (it == stat.end()) {
      throw ReportError(fmt::format("no module {} in {}", job.top, (work / file).string()));
    }
    return it->second;
  };
  const StatModule cells = flat("cells.stat");
  GenericFigures f;
  f.cells = cells.cell_count;
  f.flip_flops = generic_flip_flops(cells.cells);
  f.depth = parse_ltp_depth(read_text(work / "depth.ltp"));
  f.transistors = generic_transistors(flat("cmos.stat").cells);
  return f;
}

}  // namespace oasis::ppa
