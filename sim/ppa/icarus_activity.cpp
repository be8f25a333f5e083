// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/icarus_activity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

std::string dims(int width) { return width > 1 ? fmt::format("[{}:0] ", width - 1) : ""; }

// The testbench: cycle c spans [c P, (c+1) P); the clock rises at its end and falls in its
// middle; line c's inputs are applied `input_delay` after its start, as registers before the
// block would give them. Only the netlist's own level is dumped (not the cells' insides).
std::string testbench(const IcarusRun& run, const std::vector<VectorPort>& ports, int64_t p_ps,
                      int64_t in_ps) {
  std::string s = "`timescale 1ns/1ps\nmodule oasis_activity_tb;\n";
  if (run.clocked) s += "  reg clk_i = 1'b0;\n";
  std::string conns = run.clocked ? "    .clk_i(clk_i)" : "";
  std::string format, reads;
  for (const VectorPort& p : ports) {
    if (p.input) {
      s += fmt::format("  reg {}{} = 0;\n  reg {}next_{};\n", dims(p.width), p.name, dims(p.width),
                       p.name);
      reads += (reads.empty() ? "" : ", ") + ("next_" + p.name);
    } else {
      s += fmt::format("  wire {}{};\n  reg {}exp_{};\n", dims(p.width), p.name, dims(p.width),
                       p.name);
      reads += (reads.empty() ? "" : ", ") + ("exp_" + p.name);
    }
    format += format.empty() ? "%h" : " %h";
    conns += (conns.empty() ? "    ." : ",\n    .") + p.name + "(" + p.name + ")";
  }
  s += fmt::format("  {} u_dut (\n{}\n  );\n", run.top, conns);
  s += "  integer fd, got, cycle;\n  reg [8*65536-1:0] header;\n  reg [8*4096-1:0] path;\n";
  s += "  initial begin\n";
  if (run.timed) s += "    $sdf_annotate(\"netlist.sdf\", u_dut);\n";
  s += "    $dumpfile(\"activity.vcd\");\n    $dumpvars(1, u_dut);\n";
  s += "    if (!$value$plusargs(\"vectors=%s\", path)) $finish;\n";
  s += "    fd = $fopen(path, \"r\");\n    got = $fgets(header, fd);\n    cycle = 0;\n";
  s += fmt::format("    got = $fscanf(fd, \"{}\\n\", {});\n", format, reads);
  s += fmt::format("    while (got == {}) begin\n", ports.size());
  s += fmt::format("      #({}.0 / 1000);\n", in_ps);
  for (const VectorPort& p : ports) {
    if (p.input) s += fmt::format("      {0} = next_{0};\n", p.name);
  }
  if (run.clocked) {
    s += fmt::format("      #({}.0 / 1000) clk_i = 1'b0;\n", p_ps / 2 - in_ps);
    s += fmt::format("      #({}.0 / 1000) clk_i = 1'b1;\n", p_ps - p_ps / 2);
  } else {
    s += fmt::format("      #({}.0 / 1000);\n", p_ps - in_ps);
  }
  s += "      cycle = cycle + 1;\n";
  s += fmt::format("      got = $fscanf(fd, \"{}\\n\", {});\n", format, reads);
  s += "    end\n    $display(\"DONE %0d cycles\", cycle);\n    $finish;\n  end\nendmodule\n";
  return s;
}

struct VcdVar {
  std::string name;  // the signal, "a_i" or "n_abc_1"
  int width = 1;
};

}  // namespace

IcarusCounts icarus_counts(const IcarusRun& run) {
  const fs::path dir = run.work / (run.timed ? "icarus-activity-timed" : "icarus-activity");
  fs::create_directories(dir);
  std::ifstream vin(run.vectors);
  std::string first;
  std::getline(vin, first);
  const std::vector<VectorPort> ports = read_vector_header(first, run.vectors);
  const int64_t p_ps = std::llround(run.period * 1000);
  const int64_t in_ps = std::max<int64_t>(1, std::llround(run.input_delay * 1000));
  write_text(dir / "activity_tb.v", testbench(run, ports, p_ps, in_ps));
  fs::copy_file(run.work / "netlist.v", dir / "netlist.v", fs::copy_options::overwrite_existing);
  if (run.timed) {
    // OpenSTA's delays at the flow's constraints.
    std::string tcl;
    std::istringstream base(read_text(run.work / "sta.tcl"));
    for (std::string line; std::getline(base, line);) {
      if (line.starts_with("report_") || line.starts_with("set_power")) continue;
      if (line.starts_with("set slews") || line.starts_with("foreach") ||
          line.starts_with("  puts") || line == "}" || line.starts_with("close")) {
        continue;
      }
      tcl += line + "\n";
    }
    tcl += "write_sdf netlist.sdf\n";
    write_text(dir / "sdf.tcl", tcl);
    std::error_code ec;
    fs::remove(dir / "cells.lib", ec);
    fs::create_symlink(fs::read_symlink(run.work / "cells.lib"), dir / "cells.lib");
    check_tool(run_tool({run.sta, "-no_splash", "-exit", "sdf.tcl"}, dir / "sdf.log", dir),
               "OpenSTA writing the SDF", dir / "sdf.log");
  }
  std::vector<std::string> iv = {"iverilog", "-g2012", "-o", "activity.vvp"};
  // OpenSTA writes each delay as (min::max): -Tmax makes Icarus take the max.
  if (run.timed) iv.insert(iv.end(), {"-gspecify", "-Tmax"});
  iv.insert(iv.end(),
            {"-s", "oasis_activity_tb", "activity_tb.v", "netlist.v", run.cells_v.string()});
  check_tool(run_tool(iv, dir / "iverilog.log", dir), "Icarus Verilog (iverilog)",
             dir / "iverilog.log");
  check_tool(
      run_tool({"vvp", "-n", "activity.vvp", "+vectors=" + fs::absolute(run.vectors).string()},
               dir / "vvp.log", dir),
      "Icarus Verilog (vvp)", dir / "vvp.log");
  if (read_text(dir / "vvp.log").find("DONE") == std::string::npos) {
    throw ToolError(
        fmt::format("Icarus did not finish the workload (log: {})", (dir / "vvp.log").string()));
  }

  // The VCD: per bit, every change in time order.
  std::ifstream vcd(dir / "activity.vcd");
  if (!vcd) throw ToolError("Icarus wrote no activity.vcd in " + dir.string());
  std::unordered_map<std::string, VcdVar> vars;  // id -> var
  std::string tok;
  int depth = 0;
  bool in_dut = false;
  while (vcd >> tok && tok != "$enddefinitions") {
    if (tok == "$scope") {
      std::string kind, name;
      vcd >> kind >> name;
      ++depth;
      in_dut = depth == 2 && name == "u_dut";
    } else if (tok == "$upscope") {
      --depth;
      in_dut = false;
    } else if (tok == "$var") {
      std::string type, id, name, rest;
      int width = 0;
      vcd >> type >> width >> id >> name;
      while (vcd >> rest && rest != "$end") {
      }
      if (in_dut && !vars.count(id)) vars[id] = {name, width};
    }
  }
  // The per-bit state: current value, samples, transitions in the window.
  struct Bit {
    char now = 'x';
    std::string samples;
    uint32_t transitions = 0;
  };
  std::unordered_map<std::string, std::vector<Bit>> bits;
  for (const auto& [id, v] : vars) bits[id].resize(size_t(v.width));
  int64_t time = 0;
  int64_t next_sample_cycle = 0;  // the cycle whose sample comes next
  const auto sample_until = [&](int64_t t) {
    // Every cycle whose edge at (c+1) P lies at or before t: its sample is the value before.
    while ((next_sample_cycle + 1) * p_ps <= t) {
      for (auto& [id, vb] : bits) {
        for (Bit& b : vb) b.samples += (b.now == '0' || b.now == '1') ? b.now : 'x';
      }
      ++next_sample_cycle;
    }
  };
  const auto change = [&](const std::string& id, const std::string& value) {
    const auto it = bits.find(id);
    if (it == bits.end()) return;
    std::vector<Bit>& vb = it->second;
    // A vector's value, most significant first, left-extended with its first digit (0, x, z).
    const size_t w = vb.size();
    for (size_t k = 0; k < w; ++k) {
      const char c =
          k < value.size() ? value[value.size() - 1 - k] : (value[0] == '1' ? '0' : value[0]);
      Bit& b = vb[k];
      if (c != b.now) {
        const int64_t cycle = time / p_ps;  // a change at an edge starts the next cycle
        const bool known = (b.now == '0' || b.now == '1') && (c == '0' || c == '1');
        if (known && cycle >= run.begin && cycle < run.end) ++b.transitions;
        b.now = c;
      }
    }
  };
  while (vcd >> tok) {
    if (tok[0] == '#') {
      time = std::stoll(tok.substr(1));
      sample_until(time);
    } else if (tok[0] == 'b' || tok[0] == 'B') {
      std::string id;
      vcd >> id;
      change(id, tok.substr(1));
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z') {
      change(tok.substr(1), tok.substr(0, 1));
    }
  }
  sample_until((run.end + 1) * p_ps);
  IcarusCounts out;
  out.cycles = next_sample_cycle;
  for (const auto& [id, v] : vars) {
    std::vector<Bit>& vb = bits[id];
    for (int k = 0; k < v.width; ++k) {
      const std::string name = v.width > 1 ? fmt::format("{}[{}]", v.name, k) : v.name;
      Bit& b = vb[size_t(k)];
      const size_t to = size_t(std::min<int64_t>(run.end, int64_t(b.samples.size())));
      if (to == 0 || b.samples[to - 1] == 'x') out.unknown.push_back(name);
      out.transitions[name] = b.transitions;
      out.samples[name] = std::move(b.samples);
    }
  }
  return out;
}

json compare_with_icarus(GateSim& sim, const GateNetlist& netlist, const fs::path& vectors,
                         int64_t end, const std::unordered_map<std::string, std::string>& names,
                         const IcarusCounts& icarus) {
  // Each simulated net under its name in the netlist's text.
  std::vector<std::string> name(size_t(sim.nets()));
  for (const auto& [blif, ref] : names) {
    const int n = sim.net(blif);
    if (n >= 0 && name[size_t(n)].empty()) name[size_t(n)] = ref;
  }
  // From the first cycle after every net Icarus learns is known for good.
  end = std::min<int64_t>(end, icarus.cycles);
  int64_t from = 1;
  int64_t never = 0;
  for (const auto& [bit, s] : icarus.samples) {
    const size_t last_x = s.substr(0, size_t(end)).rfind('x');
    if (last_x == std::string::npos) continue;
    if (int64_t(last_x) == end - 1) {
      ++never;
      continue;
    }
    from = std::max<int64_t>(from, int64_t(last_x) + 2);
  }
  if (from >= end) {
    return {{"from_cycle", from},         {"to_cycle", end},
            {"nets_compared", 0},         {"differing", 0},
            {"unknown_in_icarus", never}, {"first_difference", "no cycle with every net known"}};
  }
  const NetActivity a = simulate_vectors(sim, netlist, vectors, from, end);
  int64_t compared = 0, differing = 0;
  std::string first;
  for (int n = 0; n < sim.nets(); ++n) {
    if (sim.is_clock(n) || sim.is_constant(n)) continue;
    const auto it = icarus.samples.find(name[size_t(n)]);
    if (it == icarus.samples.end()) continue;  // not a signal of the module (an unread input)
    const std::string& s = it->second;
    if (s.substr(0, size_t(end)).rfind('x') == size_t(end - 1)) continue;  // never known
    uint32_t toggles = 0, high = 0;
    for (int64_t c = from; c < end; ++c) {
      toggles += s[size_t(c)] != s[size_t(c - 1)];
      high += s[size_t(c)] == '1';
    }
    ++compared;
    if (toggles != a.toggles[size_t(n)] || high != a.high[size_t(n)]) {
      if (first.empty()) {
        first =
            fmt::format("{}: {} toggles and {} high cycles here, {} and {} in Icarus",
                        name[size_t(n)], a.toggles[size_t(n)], a.high[size_t(n)], toggles, high);
      }
      ++differing;
    }
  }
  return {{"from_cycle", from},         {"to_cycle", end},
          {"nets_compared", compared},  {"differing", differing},
          {"unknown_in_icarus", never}, {"first_difference", first}};
}

json icarus_activity_checks(const ActivityInputs& in, const fs::path& work,
                            const IcarusCheckOptions& o) {
  GateSim sim(*in.netlist, *in.lib, in.clock);
  const ActivityRecord rec =
      read_activity(work / "activity.txt", sim, hex(fnv1a(read_text(work / "netlist.v"))));
  const NetActivity& a = rec.nets;
  IcarusRun run;
  run.work = work;
  run.top = in.netlist->model;
  run.vectors = work / "workload" / "vectors.txt";
  run.begin = a.begin;
  run.end = a.end;
  run.period = in.period;
  run.input_delay = o.input_delay;
  run.clocked = !in.clock.empty();
  run.cells_v = o.cells_v;
  run.sta = o.sta;
  json r;
  const IcarusCounts zero = icarus_counts(run);
  r["icarus_check"] =
      compare_with_icarus(sim, *in.netlist, run.vectors, a.end, in.verilog->net_ref, zero);
  if (!o.timed) return r;
  run.timed = true;
  const IcarusCounts timed = icarus_counts(run);
  // Each net's transitions with delays; a net Icarus left unknown keeps its zero-delay toggles.
  std::vector<std::string> name(size_t(sim.nets()));
  for (const auto& [blif, ref] : in.verilog->net_ref) {
    const int n = sim.net(blif);
    if (n >= 0 && name[size_t(n)].empty()) name[size_t(n)] = ref;
  }
  const double cycles = double(a.cycles());
  std::vector<double> glitchy(size_t(sim.nets()));
  for (int n = 0; n < sim.nets(); ++n) {
    const auto t = timed.transitions.find(name[size_t(n)]);
    const bool known = t != timed.transitions.end() &&
                       std::find(timed.unknown.begin(), timed.unknown.end(), name[size_t(n)]) ==
                           timed.unknown.end();
    glitchy[size_t(n)] =
        known ? std::max<double>(t->second, a.toggles[size_t(n)]) : double(a.toggles[size_t(n)]);
  }
  const PinSlews slews = read_slews(work / "slews.txt");
  const PowerInputs pin{in.netlist, &sim,      in.lib,        &in.verilog->gate_instance,
                        &slews,     in.period, in.output_load};
  const auto power = [&](const std::function<double(int)>& toggles) {
    return instance_power(pin, [&](int n) {
      return Activity{toggles(n) / cycles, a.high[size_t(n)] / cycles};
    });
  };
  const auto p0 = power([&](int n) { return double(a.toggles[size_t(n)]); });
  const auto p1 = power([&](int n) { return glitchy[size_t(n)]; });
  const PowerSums s0 = sum_power(p0, *in.netlist, *in.lib),
                  s1 = sum_power(p1, *in.netlist, *in.lib);
  const double d0 = s0.sequential + s0.combinational, d1 = s1.sequential + s1.combinational;
  // By the cell driving each net: its toggles without and with delays.
  std::map<std::string, std::pair<double, double>> by_cell;
  std::map<std::string, std::pair<double, double>> power_by_cell;
  for (size_t g = 0; g < in.netlist->gates.size(); ++g) {
    const Gate& gate = in.netlist->gates[g];
    const LibertyCell& cell = in.lib->cell(gate.cell);
    power_by_cell[gate.cell].first += p0[g].internal + p0[g].switching - p0[g].clock;
    power_by_cell[gate.cell].second += p1[g].internal + p1[g].switching - p1[g].clock;
    for (size_t k = 0; k < gate.pins.size(); ++k) {
      const LibertyPin* lp = cell.pin(gate.pins[k].first);
      if (lp->direction != "output") continue;
      const int n = sim.gate_nets(g)[k];
      by_cell[gate.cell].first += a.toggles[size_t(n)];
      by_cell[gate.cell].second += glitchy[size_t(n)];
    }
  }
  json cells = json::array();
  for (const auto& [cell, t] : by_cell) {
    if (t.first == 0 && t.second == 0) continue;
    const auto& pw = power_by_cell[cell];
    cells.push_back({{"cell", cell},
                     {"zero_delay_toggles", t.first},
                     {"timed_transitions", t.second},
                     {"transitions_over_toggles", t.first > 0 ? t.second / t.first : 0.0},
                     {"zero_delay_data_w", pw.first},
                     {"timed_data_w", pw.second}});
  }
  r["glitches"] = {{"zero_delay_data_w", d0},
                   {"timed_data_w", d1},
                   {"data_power_share", d0 > 0 ? d1 / d0 - 1 : 0.0},
                   {"zero_delay_total_w", s0.total()},
                   {"timed_total_w", s1.total()},
                   {"total_power_share", s0.total() > 0 ? s1.total() / s0.total() - 1 : 0.0},
                   {"unknown_in_icarus", timed.unknown.size()},
                   {"by_cell", cells}};
  return r;
}

}  // namespace oasis::ppa
