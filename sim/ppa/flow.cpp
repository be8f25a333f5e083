// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/flow.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "sim/ppa/activity.hpp"
#include "sim/ppa/generic.hpp"
#include "sim/ppa/icarus_activity.hpp"
#include "sim/ppa/netlist.hpp"
#include "sim/ppa/reports.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

double round_to(double v, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(v * f) / f;
}

bool matches_register(const std::string& net, const std::string& reg) {
  return net == reg || (net.size() > reg.size() && net.compare(0, reg.size(), reg) == 0 &&
                        net[reg.size()] == '[');
}

// The Liberty file as cells.lib in a work folder, so that scripts name it
// without a path.
void link_library(const Technology& tech, const fs::path& work) {
  const fs::path link = work / "cells.lib";
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_symlink(fs::absolute(tech.lib.path), link);
}

}  // namespace

void Technology::check() const {
  for (const std::string& c : {inverter, nand2, buffer, clock_buffer}) (void)lib.cell(c);
  if (!lib.cell(inverter).pin("A") || !lib.cell(inverter).pin("Y")) {
    throw LibertyError(fmt::format("{}: inverter {} lacks pin A or Y", lib.path, inverter));
  }
}

double Technology::fo4_load() const { return 4 * lib.cell(inverter).pin("A")->capacitance; }

Fo4 measure_fo4(const Technology& tech, const Tools& tools, const fs::path& work) {
  fs::create_directories(work);
  // A chain of inverters, each driving the next one and three more loads.
  constexpr int kStages = 12, kFirst = 2, kLast = 10;
  const std::string inv = tech.inverter;
  std::string v = "module fo4_chain (in_i, out_o);\n  input in_i;\n  output out_o;\n";
  for (int i = 1; i < kStages; ++i) v += fmt::format("  wire n{};\n", i);
  for (int i = 0; i < kStages; ++i) {
    const std::string a = i == 0 ? "in_i" : fmt::format("n{}", i);
    const std::string y = i == kStages - 1 ? "out_o" : fmt::format("n{}", i + 1);
    v += fmt::format("  {} s{} (.A({}), .Y({}));\n", inv, i, a, y);
    if (i < kStages - 1) {
      for (int l = 0; l < 3; ++l) {
        v += fmt::format("  wire l{}_{};\n  {} l{}_{}_inv (.A({}), .Y(l{}_{}));\n", i, l, inv, i, l,
                         y, i, l);
      }
    }
  }
  v += "endmodule\n";
  write_text(work / "fo4_chain.v", v);
  const std::string tcl = fmt::format(
      "read_liberty cells.lib\nread_verilog fo4_chain.v\nlink_design fo4_chain\n"
      "create_clock -name vclk -period 1000\n"
      "set_input_delay 0 -clock vclk [get_ports in_i]\n"
      "set_output_delay 0 -clock vclk [get_ports out_o]\n"
      "set_driving_cell -lib_cell {} -pin Y [get_ports in_i]\n"
      "set_load {} [get_ports out_o]\n"
      "report_checks -path_delay max -digits 6 > fo4_chain.rpt\n",
      inv, tech.fo4_load());
  write_text(work / "fo4_chain.tcl", tcl);
  link_library(tech, work);
  const fs::path log = work / "fo4_chain.log";
  fs::remove(log);
  check_tool(run_tool({tools.sta, "-no_splash", "-exit", "fo4_chain.tcl"}, log, work),
             "OpenSTA on the FO4 inverter chain", log);
  const auto paths = parse_report_checks(read_text(work / "fo4_chain.rpt"));
  if (paths.size() != 1) throw ReportError("the FO4 chain's timing report has no single path");
  const TimingPath& p = paths[0];
  auto at = [&](int stage) {
    const std::string pin = fmt::format("s{}/Y", stage);
    for (size_t i = 0; i < p.points.size(); ++i) {
      if (p.points[i].rfind(pin + " ", 0) == 0 || p.points[i] == pin) return p.times[i];
    }
    throw ReportError(fmt::format("the FO4 chain's path does not pass {}", pin));
  };
  Fo4 f;
  f.stages = kLast - kFirst;
  f.delay = (at(kLast) - at(kFirst)) / f.stages;
  if (!(f.delay > 0)) throw ReportError("the FO4 chain measured no delay");
  return f;
}

std::string yosys_synth_script(const BlockJob& job, const Technology& tech) {
  std::string s =
      fmt::format("# oasis-ppa, flow version {}: {}, synthesis\n", kFlowVersion, job.label);
  s += "read_liberty -lib cells.lib\n";
  s += "read_verilog -sv";
  for (const auto& src : job.sources) s += " rtl/" + src;
  s += "\n";
  s += fmt::format("hierarchy -check -top {}\n", job.top);
  for (const auto& m : job.blackboxes) s += fmt::format("blackbox {}\n", m);
  s += "proc\ncheck -assert\nselect -assert-none t:$dlatch t:$adlatch t:$dlatchsr\n";
  // Full and half adders written as such go to the library's adder cells
  // (abc cannot map to cells with two outputs), after flattening: until then
  // they stay cells of their own.
  if (tech.has_adders()) s += "setattr -mod -set keep_hierarchy 1 oasis_fa oasis_ha\n";
  // synth module by module: on one flat module its resource sharing alone
  // takes minutes.
  s += fmt::format("synth -top {}\ncheck -assert\n", job.top);
  s += "tee -q -o generic.stat stat\nwrite_rtlil synth.il\n";
  return s;
}

std::string yosys_map_script(const BlockJob& job, const Technology& tech, const Constraints& c,
                             const std::set<std::string>& kept) {
  std::string s =
      fmt::format("# oasis-ppa, flow version {}: {}, mapping\n", kFlowVersion, job.label);
  s += "read_liberty -lib cells.lib\nread_rtlil synth.il\n";
  // Flat but for the kept modules, so that the library mapping sees across
  // the units' boundaries (the binary16 adder is 28 % larger mapped with its
  // rounding as a module of its own); a kept module is mapped once however
  // often it is used.
  for (const auto& m : kept) s += fmt::format("setattr -mod -set keep_hierarchy 1 {}\n", m);
  // The buffers' registers keep their names through flattening (else a net
  // takes the name of the deepest port it reaches), so that their flip-flops
  // can be found and counted.
  std::set<std::string> regs;
  for (const auto& m : job.memories) {
    for (const auto& r : m.registers) regs.insert(r.substr(r.rfind('.') + 1));
  }
  for (const auto& r : regs) s += fmt::format("setattr -set keep 1 w:{0} w:{0}[*]\n", r);
  s += "flatten\nopt -fast\n";
  if (tech.has_adders()) {
    // An adder with a constant input (a multiplier's partial product that is
    // always 0, where a constant operand bit feeds the tree) becomes logic, which the constant
    // folds; its outputs may make adders after it constant too, one level of a tree a round. The
    // others become the library's cells.
    for (int i = 0; i < kConstantAdderRounds; ++i) s += "techmap -map adders_const.v\nopt -fast\n";
    s += "techmap -map adders.v\ntechmap\nopt -fast\ndelete oasis_fa oasis_ha\n";
  }
  const double ps = c.period * tech.lib.time_unit_seconds() * 1e12;
  s += "dfflibmap -liberty cells.lib\n";
  s += fmt::format("abc -liberty cells.lib -D {:.0f} -constr abc.constr\n", ps);
  s += "opt_clean -purge\n";
  s += "tee -q -o hier.stat stat -liberty cells.lib\n";
  for (const auto& m : kept) s += fmt::format("setattr -mod -unset keep_hierarchy {}\n", m);
  s += "flatten\nopt_clean -purge\n";
  for (const auto& m : job.blackboxes) {
    s += fmt::format("tee -q -o {0}.inputs select -list ={0}/i:*\n", m);
    s += fmt::format("tee -q -o {0}.outputs select -list ={0}/o:*\n", m);
  }
  s += "write_blif -gates mapped.blif\n";
  return s;
}

double generic_cell_count(const std::string& module,
                          const std::map<std::string, StatModule>& generic) {
  double n = 0;
  for (const auto& [type, count] : leaf_cells(generic, module)) n += double(count);
  return n;
}

std::set<std::string> kept_modules(const BlockJob& job,
                                   const std::map<std::string, StatModule>& generic) {
  std::set<std::string> kept;
  for (const auto& p : job.parts) kept.insert(p.module);
  // Instances of each module in the whole block, and its cells with
  // everything below it.
  std::map<std::string, double> size;
  std::function<double(const std::string&, int)> cells = [&](const std::string& m, int depth) {
    if (depth > 64) throw ReportError("module hierarchy too deep in stat");
    const auto it = size.find(m);
    if (it != size.end()) return it->second;
    double n = 0;
    for (const auto& [type, count] : generic.at(m).cells) {
      n += double(count) * (generic.count(type) ? cells(type, depth + 1) : 1.0);
    }
    return size[m] = n;
  };
  std::map<std::string, double> uses;
  std::function<void(const std::string&, double, int)> walk = [&](const std::string& m, double n,
                                                                  int depth) {
    if (depth > 64) throw ReportError("module hierarchy too deep in stat");
    uses[m] += n;
    for (const auto& [type, count] : generic.at(m).cells) {
      if (generic.count(type)) walk(type, n * double(count), depth + 1);
    }
  };
  if (!generic.count(job.top)) throw ReportError("no module " + job.top + " in Yosys's stat");
  walk(job.top, 1, 0);
  if (cells(job.top, 0) <= kFlatMaxCells) return kept;
  std::set<std::string> repeated;
  for (const auto& [m, n] : uses) {
    if (m != job.top && n >= kKeptMinInstances && cells(m, 0) >= kKeptMinCells) repeated.insert(m);
  }
  // The outermost repeated units only: a unit inside another (the rounding
  // inside an adder) is flattened into it wherever it is used, so that the
  // mapping sees across their boundary (keep_hierarchy is a module's, not an
  // instance's).
  std::set<std::string> inner;
  std::function<void(const std::string&, int)> below = [&](const std::string& m, int depth) {
    if (depth > 64) throw ReportError("module hierarchy too deep in stat");
    for (const auto& [type, count] : generic.at(m).cells) {
      if (generic.count(type) && inner.insert(type).second) below(type, depth + 1);
    }
  };
  for (const auto& m : repeated) below(m, 0);
  for (const auto& m : repeated) {
    if (!inner.count(m)) kept.insert(m);
  }
  return kept;
}

bool only_sram_boxes(const BlockJob& job) {
  return !job.blackboxes.empty() &&
         std::all_of(job.blackboxes.begin(), job.blackboxes.end(), [&](const std::string& b) {
           return std::any_of(job.memories.begin(), job.memories.end(),
                              [&](const MemorySpec& m) { return m.sram_module == b; });
         });
}

std::string sta_script(const std::string& top, bool clocked, const Technology& tech,
                       const Constraints& c, bool srams) {
  std::string s =
      fmt::format("read_liberty cells.lib\nread_verilog netlist.v\nlink_design {}\n", top);
  if (clocked) {
    s += fmt::format("create_clock -name clk -period {:.6g} [get_ports clk_i]\n", c.period);
    s += "set inputs [delete_from_list [all_inputs] [get_ports clk_i]]\n";
  } else {
    s += fmt::format("create_clock -name clk -period {:.6g}\n", c.period);
    s += "set inputs [all_inputs]\n";
  }
  const double io = c.io_budget * c.period;
  s += fmt::format("set_input_delay {:.6g} -clock clk $inputs\n", io);
  s += fmt::format("set_output_delay {:.6g} -clock clk [all_outputs]\n", io);
  s += fmt::format("set_driving_cell -lib_cell {} -pin Y $inputs\n", tech.buffer);
  s += fmt::format("set_load {:.6g} [all_outputs]\n", tech.fo4_load());
  s += fmt::format("report_checks -path_delay max -digits 4 > {}\n", "timing.rpt");
  s += fmt::format("report_wns -digits 4 > {}\n", "wns.rpt");
  s += fmt::format("report_tns -digits 4 > {}\n", "tns.rpt");
  if (srams) {
    s += "report_checks -path_delay max -digits 4 -from [get_ports bb_in*] > sram_read.rpt\n";
    s += "report_checks -path_delay max -digits 4 -to [get_ports bb_out*] > sram_write.rpt\n";
  }
  s +=
      fmt::format("set_power_activity -global -activity {:.6g} -duty {:.6g}\n", c.activity, c.duty);
  s += fmt::format("set_power_activity -input -activity {:.6g} -duty {:.6g}\n", c.activity, c.duty);
  s += fmt::format("report_power -digits 6 > {}\n", "power.rpt");
  s += fmt::format("report_power -instances [get_cells *] -digits 6 > {}\n", "power_instances.rpt");
  // Every pin's slews, which the power from activity reads (sim/ppa/power.hpp).
  s += "set slews [open slews.txt w]\n"
       "foreach pin [get_pins */*] {\n"
       "  puts $slews \"[get_full_name $pin] [get_property $pin actual_rise_transition_max] "
       "[get_property $pin actual_fall_transition_max]\"\n"
       "}\n"
       "close $slews\n";
  return s;
}

namespace {

// The area of a module with everything below it, from `stat -liberty`; a black box (an
// SRAM's module, docs/sram.md) counts nothing here.
double module_area(const std::map<std::string, StatModule>& stat, const std::string& module,
                   const Liberty& lib, const std::vector<std::string>& boxes, int depth = 0) {
  if (depth > 64) throw ReportError("module hierarchy too deep in stat");
  const auto it = stat.find(module);
  if (it == stat.end()) {
    // Yosys names a parameterised module "$paramod$<hash>\<name>"; the
    // generated parts have no parameters.
    throw ReportError(fmt::format("no module '{}' in Yosys's stat", module));
  }
  double a = 0;
  for (const auto& [type, n] : it->second.cells) {
    if (lib.has(type)) {
      a += lib.cell(type).area * double(n);
    } else if (stat.count(type)) {
      a += module_area(stat, type, lib, boxes, depth + 1) * double(n);
    } else if (std::find(boxes.begin(), boxes.end(), type) == boxes.end()) {
      throw ReportError(
          fmt::format("cell type '{}' in module '{}' is neither a library cell nor a "
                      "module",
                      type, module));
    }
  }
  return a;
}

std::vector<std::string> port_names(const fs::path& list) {
  // `select -list module/i:*` lines: "module/port".
  std::vector<std::string> out;
  std::istringstream in(read_text(list));
  std::string line;
  while (std::getline(in, line)) {
    const size_t slash = line.rfind('/');
    if (slash != std::string::npos) out.push_back(line.substr(slash + 1));
  }
  return out;
}

// Black boxes out of the netlist: each instance is removed, the nets its
// outputs drove become inputs, the nets its inputs read become outputs.
GateNetlist cut_blackboxes(GateNetlist nl, const BlockJob& job, const fs::path& work) {
  if (job.blackboxes.empty()) return nl;
  std::map<std::string, std::set<std::string>> outputs_of;
  for (const auto& m : job.blackboxes) {
    for (const auto& p : port_names(work / (m + ".outputs"))) outputs_of[m].insert(p);
    // Every block has outputs: none read means Yosys's selection missed the box.
    if (outputs_of[m].empty()) {
      throw ReportError(fmt::format("no outputs of the black box {} in {}", m,
                                    (work / (m + ".outputs")).string()));
    }
  }
  std::vector<Gate> kept;
  std::set<std::string> new_inputs, new_outputs;
  for (Gate& g : nl.gates) {
    const auto it = outputs_of.find(g.cell);
    if (it == outputs_of.end()) {
      kept.push_back(std::move(g));
      continue;
    }
    for (const auto& [pin, net] : g.pins) {
      const std::string base = pin.substr(0, pin.find('['));
      if (nl.constants.count(net)) continue;
      (it->second.count(base) ? new_inputs : new_outputs).insert(net);
    }
  }
  nl.gates = std::move(kept);
  std::set<std::string> ports(nl.inputs.begin(), nl.inputs.end());
  ports.insert(nl.outputs.begin(), nl.outputs.end());
  // A cut net gets a port of its own: bb_<n>[i].
  int i = 0, o = 0;
  std::map<std::string, std::string> rename;
  for (const auto& n : new_inputs) {
    if (ports.count(n)) continue;
    const std::string p = fmt::format("bb_in[{}]", i++);
    nl.inputs.push_back(p);
    nl.copies.emplace_back(p, n);
  }
  for (const auto& n : new_outputs) {
    if (ports.count(n) || new_inputs.count(n)) continue;
    const std::string p = fmt::format("bb_out[{}]", o++);
    nl.outputs.push_back(p);
    nl.copies.emplace_back(n, p);
  }
  return nl;
}

// The inputs of Yosys's synthesis in `work`: the adders' techmaps, the ABC constraints, the
// script, the library and the RTL.
void write_synthesis_inputs(const BlockJob& job, const Technology& tech, const fs::path& work) {
  write_text(work / "adders.v",
             fmt::format("// oasis_fa / oasis_ha to the library's adder cells.\n"
                         "module oasis_fa (input a_i, input b_i, input c_i, output sum_o, "
                         "output carry_o);\n"
                         "  {} _TECHMAP_REPLACE_ (.A(a_i), .B(b_i), .C(c_i), .YS(sum_o), "
                         ".YC(carry_o));\nendmodule\n"
                         "module oasis_ha (input a_i, input b_i, output sum_o, output carry_o);\n"
                         "  {} _TECHMAP_REPLACE_ (.A(a_i), .B(b_i), .YS(sum_o), .YC(carry_o));\n"
                         "endmodule\n",
                         tech.full_adder, tech.half_adder));
  write_text(work / "adders_const.v",
             "// oasis_fa / oasis_ha with a constant input to logic; the others are left.\n"
             "module oasis_fa (input a_i, input b_i, input c_i, output sum_o, output carry_o);\n"
             "  parameter _TECHMAP_CONSTMSK_a_i_ = 0;\n"
             "  parameter _TECHMAP_CONSTMSK_b_i_ = 0;\n"
             "  parameter _TECHMAP_CONSTMSK_c_i_ = 0;\n"
             "  wire _TECHMAP_FAIL_ = !(_TECHMAP_CONSTMSK_a_i_ || _TECHMAP_CONSTMSK_b_i_ ||\n"
             "                          _TECHMAP_CONSTMSK_c_i_);\n"
             "  assign sum_o = a_i ^ b_i ^ c_i;\n"
             "  assign carry_o = (a_i & b_i) | (c_i & (a_i ^ b_i));\n"
             "endmodule\n"
             "module oasis_ha (input a_i, input b_i, output sum_o, output carry_o);\n"
             "  parameter _TECHMAP_CONSTMSK_a_i_ = 0;\n"
             "  parameter _TECHMAP_CONSTMSK_b_i_ = 0;\n"
             "  wire _TECHMAP_FAIL_ = !(_TECHMAP_CONSTMSK_a_i_ || _TECHMAP_CONSTMSK_b_i_);\n"
             "  assign sum_o = a_i ^ b_i;\n"
             "  assign carry_o = a_i & b_i;\n"
             "endmodule\n");
  write_text(work / "abc.constr",
             fmt::format("set_driving_cell {}\nset_load {:.6g}\n", tech.buffer, tech.fo4_load()));
  write_text(work / "synth.ys", yosys_synth_script(job, tech));
  link_library(tech, work);
  fs::create_directory_symlink(fs::absolute(job.rtl_dir), work / "rtl");
}

// What the synthesis and mapping found, and the seconds they took.
struct Synthesis {
  std::set<std::string> kept;  ///< the modules mapped once each
  long generic_cells = 0;
  double seconds = 0;
};

// 1. Yosys: map to the library.
Synthesis synthesize(const BlockJob& job, const Technology& tech, const Tools& tools,
                     const Constraints& c, const fs::path& work,
                     const std::function<void(const std::string&)>& progress) {
  write_synthesis_inputs(job, tech, work);
  const auto t0 = std::chrono::steady_clock::now();
  progress("yosys: synthesis");
  const std::string errors = kYosysErrors;
  check_tool(run_tool({tools.yosys, "-q", "-e", errors, "-l", "synth.log", "-s", "synth.ys"},
                      work / "yosys.out", work),
             "Yosys", work / "synth.log");
  const auto generic = parse_yosys_stat(read_text(work / "generic.stat"));
  Synthesis s;
  s.kept = kept_modules(job, generic);
  s.generic_cells = long(generic_cell_count(job.top, generic));
  write_text(work / "map.ys", yosys_map_script(job, tech, c, s.kept));
  progress(fmt::format("yosys: mapping to {} ({} module(s) mapped once each)", tech.lib.name,
                       s.kept.size()));
  check_tool(run_tool({tools.yosys, "-q", "-e", errors, "-l", "map.log", "-s", "map.ys"},
                      work / "yosys.out", work),
             "Yosys", work / "map.log");
  s.seconds = seconds_since(t0);
  return s;
}

// blifFanout's passes: how many, the gates they changed, and the seconds they took.
struct Fanout {
  int iterations = 0;
  long changed_total = 0;
  double seconds = 0;
};

// 2. Buffer high-fanout nets until blifFanout changes nothing: buffered.blif.
Fanout buffer_fanout(const Technology& tech, const Tools& tools, const fs::path& work,
                     double t_yosys, const std::function<void(const std::string&)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  progress(fmt::format("yosys {:.0f} s; buffering high-fanout nets", t_yosys));
  write_text(work / "nofanout", "$false\n$true\n$undef\n");
  fs::path cur = work / "mapped.blif";
  int iterations = 0;
  long changed_total = 0;
  const fs::path flog = work / "fanout.log";
  for (;; ++iterations) {
    if (iterations == 20) {
      throw ToolError(
          fmt::format("blifFanout still changes gates after 20 passes (log: {})", flog.string()));
    }
    const fs::path next = work / fmt::format("buffered{}.blif", iterations);
    const size_t before = fs::exists(flog) ? read_text(flog).size() : 0;
    run_tool({tools.blif_fanout, "-l", "100", "-c", "20", "-s", "nullstring", "-I",
              (work / "nofanout").string(), "-p", fs::absolute(tech.lib.path).string(), "-b",
              tech.buffer + "," + tech.clock_buffer, "-i", "A,A", "-o", "Y,Y", cur.string(),
              next.string()},
             flog);
    const std::string out = read_text(flog).substr(before);
    static const std::regex changed(R"(Number of gates changed: (\d+))");
    std::smatch m;
    if (!std::regex_search(out, m, changed) || !fs::exists(next)) {
      throw ToolError(
          fmt::format("blifFanout did not finish (log: {}):\n{}", flog.string(), tail(flog, 15)));
    }
    const long n = std::stol(m[1]);
    changed_total += n;
    if (cur != work / "mapped.blif") fs::remove(cur);
    cur = next;
    if (n == 0) break;
  }
  fs::rename(cur, work / "buffered.blif");
  return Fanout{iterations, changed_total, seconds_since(t0)};
}

// With SRAMs its only black boxes, the netlist with their instances in too, for a gate-level
// simulation beside their behavioural modules (sim/icarus --gates, docs/sram.md).
void write_sram_netlist(const BlockJob& job, const Technology& tech, const GateNetlist& raw,
                        const fs::path& work) {
  std::map<std::string, std::set<std::string>> srams;  // module -> its output ports
  for (const std::string& b : job.blackboxes) {
    for (const auto& p : port_names(work / (b + ".outputs"))) srams[b].insert(p);
  }
  write_text(work / "netlist_macros.v", "// oasis-ppa: " + job.label + ", mapped to " +
                                            tech.lib.name +
                                            " and buffered, with its SRAMs' instances\n" +
                                            write_verilog(raw, tech.lib, srams).text);
}

// OpenSTA's reports: the timing paths, WNS and TNS, the power by group and by instance.
struct StaResults {
  std::vector<TimingPath> paths;
  double wns = 0, tns = 0;
  std::map<std::string, PowerRow> power, inst_power;
  double seconds = 0;
};

// 4. OpenSTA: timing and power.
StaResults run_sta(const BlockJob& job, const Technology& tech, const Tools& tools,
                   const Constraints& c, const fs::path& work, bool clocked, bool sram_boxes,
                   long cells, const std::function<void(const std::string&)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  progress(fmt::format("{} cells after buffering; OpenSTA", cells));
  write_text(work / "sta.tcl", sta_script(job.top, clocked, tech, c, sram_boxes));
  const fs::path slog = work / "sta.log";
  check_tool(run_tool({tools.sta, "-no_splash", "-exit", "sta.tcl"}, slog, work), "OpenSTA", slog);
  const std::string slog_text = read_text(slog);
  for (const char* bad : {"Error", "not found", "unknown"}) {
    if (slog_text.find(bad) != std::string::npos) {
      throw ToolError(
          fmt::format("OpenSTA reported a problem (log: {}):\n{}", slog.string(), tail(slog, 25)));
    }
  }
  StaResults s;
  s.seconds = seconds_since(t0);
  s.paths = parse_report_checks(read_text(work / "timing.rpt"));
  s.wns = parse_sta_value(read_text(work / "wns.rpt"), "wns");
  s.tns = parse_sta_value(read_text(work / "tns.rpt"), "tns");
  s.power = parse_report_power(read_text(work / "power.rpt"));
  s.inst_power = parse_instance_power(read_text(work / "power_instances.rpt"));
  return s;
}

// Flip-flops of the buffers, found by the names of their registers' nets: buffer -> (count,
// area), and their whole area.
struct MemoryFlops {
  std::map<std::string, std::pair<long, double>> flops;
  double area = 0;
};

MemoryFlops count_memory_flops(const GateNetlist& nl, const Technology& tech, const BlockJob& job,
                               const std::map<std::string, std::vector<std::string>>& mem_nets) {
  MemoryFlops mf;
  auto& mem_flops = mf.flops;
  double& mem_area = mf.area;
  for (const Gate& g : nl.gates) {
    const LibertyCell& cell = tech.lib.cell(g.cell);
    if (!cell.sequential) continue;
    for (const auto& [pin, net] : g.pins) {
      const LibertyPin* p = cell.pin(pin);
      if (!p || p->direction != "output") continue;
      const std::string q = plain_net(net);
      for (const MemorySpec& m : job.memories) {
        const auto& names = mem_nets.at(m.name);
        if (std::any_of(names.begin(), names.end(),
                        [&](const std::string& reg) { return matches_register(q, reg); })) {
          auto& [n, a] = mem_flops[m.name];
          ++n;
          a += cell.area;
          mem_area += cell.area;
          break;
        }
      }
      break;
    }
  }
  return mf;
}

// A register of the block's top that drives an output port directly has the
// port's name in the netlist (Yosys names a net after its port): its other
// names, asked of the synthesized design, added to mem_nets.
void add_register_aliases(const BlockJob& job, const Tools& tools, const fs::path& work,
                          std::map<std::string, std::vector<std::string>>& mem_nets) {
  std::string q =
      fmt::format("read_rtlil synth.il\nhierarchy -top {}\nflatten\nopt_clean\n", job.top);
  for (const MemorySpec& m : job.memories) {
    for (size_t i = 0; i < m.registers.size(); ++i) {
      q += fmt::format("tee -q -o alias_{}_{}.txt select -list w:{} %a\n", m.name, i,
                       m.registers[i]);
    }
  }
  write_text(work / "aliases.ys", q);
  check_tool(run_tool({tools.yosys, "-q", "-l", "aliases.log", "-s", "aliases.ys"},
                      work / "yosys.out", work),
             "Yosys", work / "aliases.log");
  for (const MemorySpec& m : job.memories) {
    for (size_t i = 0; i < m.registers.size(); ++i) {
      std::istringstream lines(read_text(work / fmt::format("alias_{}_{}.txt", m.name, i)));
      for (std::string line; std::getline(lines, line);) {
        const auto slash = line.find('/');
        if (slash != std::string::npos) mem_nets[m.name].push_back(line.substr(slash + 1));
      }
    }
  }
}

// The buffers flip-flops hold, with their area, each counted against its bits.
ordered_json memories_json(const BlockJob& job, const MemoryFlops& mf) {
  const auto& mem_flops = mf.flops;
  ordered_json mems = ordered_json::array();
  for (const MemorySpec& m : job.memories) {
    if (!m.sram_module.empty()) {
      mems.push_back({{"name", m.name},
                      {"what", m.what},
                      {"bits", m.bits},
                      {"kind", "sram"},
                      {"module", m.sram_module},
                      {"flop_area_um2", 0.0}});
      continue;
    }
    const auto it = mem_flops.find(m.name);
    const long n = it == mem_flops.end() ? 0 : it->second.first;
    if (n != m.bits) {
      throw ReportError(
          fmt::format("{}: buffer {} has {} bits, but {} flip-flops were found in the "
                      "netlist for its registers ({})",
                      job.label, m.name, m.bits, n, fmt::join(m.registers, ", ")));
    }
    mems.push_back({{"name", m.name},
                    {"what", m.what},
                    {"bits", m.bits},
                    {"kind", "flip-flops"},
                    {"flop_area_um2", round_to(it == mem_flops.end() ? 0 : it->second.second, 1)}});
  }
  return mems;
}

// Timing: the path of least slack.
ordered_json timing_json(const BlockJob& job, const Constraints& c, const StaResults& sta) {
  const auto& paths = sta.paths;
  const double wns = sta.wns, tns = sta.tns;
  if (paths.empty()) throw ReportError(job.label + ": OpenSTA reported no timing path");
  const TimingPath* worst = &paths[0];
  for (const auto& p : paths) {
    if (p.slack < worst->slack) worst = &p;
  }
  const double internal = c.period - worst->slack - worst->input_delay - worst->output_delay;
  ordered_json t;
  t = {{"period", round_to(c.period, 4)},
       {"slack", round_to(worst->slack, 4)},
       {"met", worst->slack >= 0},
       {"critical_path", round_to(internal, 4)},
       {"min_period", round_to(c.period - worst->slack, 4)},
       {"wns", round_to(wns, 4)},
       {"tns", round_to(tns, 4)},
       {"startpoint", worst->startpoint + " (" + worst->start_kind + ")"},
       {"endpoint", worst->endpoint + " (" + worst->end_kind + ")"},
       {"path_group", worst->group},
       {"cells_on_path", std::max<int>(0, int(worst->points.size()) - 2)},
       {"input_delay", round_to(worst->input_delay, 4)},
       {"output_delay", round_to(worst->output_delay, 4)}};
  return t;
}

// The SRAMs' share of the clock (docs/sram.md): a macro's clock-to-output may be the input
// delay its read data was given plus the slack of the worst path from it; its setup time,
// the output delay plus the slack of the worst path into it.
ordered_json sram_timing_json(const BlockJob& job, const fs::path& work) {
  const auto worst_of = [&](const std::string& file) {
    const auto ps = parse_report_checks(read_text(work / file));
    if (ps.empty()) throw ReportError(job.label + ": OpenSTA reported no path in " + file);
    return *std::min_element(ps.begin(), ps.end(), [](const TimingPath& a, const TimingPath& b) {
      return a.slack < b.slack;
    });
  };
  const TimingPath rd = worst_of("sram_read.rpt"), wr = worst_of("sram_write.rpt");
  return {{"read_slack", round_to(rd.slack, 4)},
          {"clock_to_output_allowed", round_to(rd.input_delay + rd.slack, 4)},
          {"read_endpoint", rd.endpoint + " (" + rd.end_kind + ")"},
          {"write_slack", round_to(wr.slack, 4)},
          {"setup_allowed", round_to(wr.output_delay + wr.slack, 4)},
          {"write_startpoint", wr.startpoint + " (" + wr.start_kind + ")"}};
}

// Parts: area from the hierarchy before buffering, power from the buffered
// netlist's instances by the part their output net belongs to.
void add_parts(const BlockJob& job, const Technology& tech, const fs::path& work,
               const VerilogNetlist& vn, const StaResults& sta, ordered_json& r) {
  const auto& inst_power = sta.inst_power;
  const auto stat = parse_yosys_stat(read_text(work / "hier.stat"));
  std::map<std::string, double> part_power;
  double counted = 0;
  for (const auto& [inst, row] : inst_power) {
    const auto it = vn.instance_net.find(inst);
    const int k = it == vn.instance_net.end() ? -1 : part_of(plain_net(it->second), job.parts);
    if (k >= 0) part_power[job.parts[size_t(k)].instance] += row.total;
    counted += row.total;
  }
  ordered_json parts = ordered_json::array();
  for (const PartSpec& p : job.parts) {
    parts.push_back(
        {{"instance", p.instance},
         {"module", p.module},
         {"role", p.role},
         {"area_um2", round_to(module_area(stat, p.module, tech.lib, job.blackboxes), 1)},
         {"power_w", part_power[p.instance]}});
  }
  r["parts"] = parts;
  r["power_w"]["instances_sum"] = counted;
}

}  // namespace

ordered_json run_block(const BlockJob& job, const Technology& tech, const Tools& tools,
                       const Constraints& c, const fs::path& work,
                       const std::function<void(const std::string&)>& progress) {
  fs::remove_all(work);
  fs::create_directories(work);
  const Synthesis syn = synthesize(job, tech, tools, c, work, progress);
  const Fanout fan = buffer_fanout(tech, tools, work, syn.seconds, progress);

  // 3. The netlist: counted, and written as Verilog for OpenSTA.
  const GateNetlist raw = read_blif(work / "buffered.blif");
  const GateNetlist nl = cut_blackboxes(raw, job, work);
  const NetlistStats st = netlist_stats(nl, tech.lib);
  const VerilogNetlist vn = write_verilog(nl, tech.lib);
  write_text(work / "netlist.v", "// oasis-ppa: " + job.label + ", mapped to " + tech.lib.name +
                                     " and buffered\n" + vn.text);
  const bool sram_boxes = only_sram_boxes(job);
  fs::remove(work / "netlist_macros.v");
  if (sram_boxes) write_sram_netlist(job, tech, raw, work);
  bool clocked = false;
  for (const auto& in : nl.inputs) clocked = clocked || in == "clk_i";

  const StaResults sta =
      run_sta(job, tech, tools, c, work, clocked, sram_boxes, st.total.count, progress);

  // 5. Figures.
  ordered_json r;
  r["label"] = job.label;
  r["top"] = job.top;
  const double nand2 = tech.lib.cell(tech.nand2).area;
  std::map<std::string, std::vector<std::string>> mem_nets;  // buffer -> net names
  for (const MemorySpec& m : job.memories) mem_nets[m.name] = m.registers;
  MemoryFlops mf = count_memory_flops(nl, tech, job, mem_nets);
  // Registers that drive an output port may be counted short under their nets' names: then
  // counted again with their other names.
  bool short_count = false;
  for (const MemorySpec& m : job.memories) {
    if (!m.sram_module.empty()) continue;
    const auto it = mf.flops.find(m.name);
    short_count = short_count || (it == mf.flops.end() ? 0 : it->second.first) != m.bits;
  }
  if (short_count) {
    add_register_aliases(job, tools, work, mem_nets);
    mf = count_memory_flops(nl, tech, job, mem_nets);
  }
  fs::remove(work / "synth.il");
  const double mem_area = mf.area;
  r["area_um2"] = {{"total", round_to(st.total.area, 1)},
                   {"logic", round_to(st.total.area - mem_area, 1)},
                   {"combinational", round_to(st.combinational.area, 1)},
                   {"sequential", round_to(st.sequential.area, 1)},
                   {"memory_flops", round_to(mem_area, 1)},
                   {"fanout_buffers", round_to(st.buffers.area, 1)}};
  r["nand2_eq"] = {{"total", round_to(st.total.area / nand2, 1)},
                   {"logic", round_to((st.total.area - mem_area) / nand2, 1)}};
  r["cells"] = st.total.count;
  r["flip_flops"] = st.sequential.count;
  r["fanout_buffers"] = st.buffers.count;
  ordered_json by_cell = ordered_json::object();
  for (const auto& [cell, cc] : st.by_cell) by_cell[cell] = cc.count;
  r["cells_by_type"] = by_cell;
  r["memories"] = memories_json(job, mf);
  r["timing"] = timing_json(job, c, sta);
  if (sram_boxes) r["timing"]["sram"] = sram_timing_json(job, work);
  const PowerRow& tot = sta.power.at("Total");
  auto prow = [](const PowerRow& p) {
    return ordered_json{{"internal", p.internal},
                        {"switching", p.switching},
                        {"leakage", p.leakage},
                        {"total", p.total}};
  };
  r["power_w"] = prow(tot);
  r["power_w"]["sequential"] =
      sta.power.count("Sequential") ? sta.power.at("Sequential").total : 0.0;
  r["power_w"]["combinational"] =
      sta.power.count("Combinational") ? sta.power.at("Combinational").total : 0.0;

  if (!job.parts.empty()) add_parts(job, tech, work, vn, sta, r);
  // 6. The power model at the vectorless activity against OpenSTA's own (the power from
  // activity is run_activity's).
  ActivityInputs ain;
  ain.netlist = &nl;
  ain.verilog = &vn;
  ain.lib = &tech.lib;
  ain.parts = &job.parts;
  ain.period = c.period;
  ain.output_load = tech.fo4_load();
  ain.clock = clocked ? "clk_i" : "";
  r["power_check"] = uniform_power_check(ain, c.activity, c.duty, tot.total, work);
  std::set<std::string> part_modules;
  for (const auto& p : job.parts) part_modules.insert(p.module);
  r["mapping"] = {{"generic_cells", syn.generic_cells},
                  {"repeated_modules_mapped_once", syn.kept.size() - part_modules.size()}};
  r["fanout"] = {{"passes", fan.iterations + 1}, {"gates_changed", fan.changed_total}};
  r["seconds"] = {{"yosys", syn.seconds}, {"fanout", fan.seconds}, {"sta", sta.seconds}};
  return r;
}

namespace {

// The netlist as run_block wrote it in `work`, and what the power from activity reads of it.
struct Written {
  GateNetlist full, nl;  ///< with the black boxes' instances, and without (OpenSTA's)
  VerilogNetlist vn;
  ActivityInputs in;
};
std::unique_ptr<Written> written_netlist(const BlockJob& job, const Technology& tech,
                                         const Constraints& c, const fs::path& work) {
  auto w = std::make_unique<Written>();
  w->full = read_blif(work / "buffered.blif");
  w->nl = cut_blackboxes(w->full, job, work);
  w->vn = write_verilog(w->nl, tech.lib);
  bool clocked = false;
  for (const auto& in : w->nl.inputs) clocked = clocked || in == "clk_i";
  w->in.netlist = &w->nl;
  w->in.verilog = &w->vn;
  w->in.lib = &tech.lib;
  w->in.parts = &job.parts;
  w->in.period = c.period;
  w->in.output_load = tech.fo4_load();
  w->in.clock = clocked ? "clk_i" : "";
  // SRAMs as the simulator's memories (docs/sram.md), at their access energy.
  if (!job.blackboxes.empty() && only_sram_boxes(job)) {
    w->in.with_memories = &w->full;
    w->in.memories.insert(job.blackboxes.begin(), job.blackboxes.end());
    if (job.activity) w->in.sram = job.activity->sram;
  }
  return w;
}

}  // namespace

nlohmann::ordered_json run_activity(const BlockJob& job, const Technology& tech,
                                    const Constraints& c, const fs::path& work,
                                    const std::function<void(const std::string&)>& progress) {
  if (!job.activity) throw std::logic_error("run_activity: the job asks for no activity");
  const auto t0 = std::chrono::steady_clock::now();
  const std::unique_ptr<Written> w = written_netlist(job, tech, c, work);
  ordered_json r;
  if (job.activity->file.empty()) {
    progress("power from activity: the testbench's workload in Verilator");
    const RecordedWorkload rec =
        record_workload(job.activity->testbench, job.activity->workload, work / "workload");
    progress(fmt::format("power from activity: the netlist on {} cycles ({} in the window)",
                         rec.end, rec.end - rec.begin));
    r = power_from_activity(w->in, rec, work);
  } else {
    r = power_from_activity_file(w->in, job.activity->file, work);
  }
  r["seconds"]["total"] = seconds_since(t0);
  return r;
}

nlohmann::ordered_json run_activity_checks(const BlockJob& job, const Technology& tech,
                                           const Constraints& c, const fs::path& work,
                                           const IcarusCheckOptions& o) {
  const std::unique_ptr<Written> w = written_netlist(job, tech, c, work);
  return icarus_activity_checks(w->in, work, o);
}

}  // namespace oasis::ppa
