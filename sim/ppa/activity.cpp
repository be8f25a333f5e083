// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/activity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "model/perf/system.hpp"
#include "sim/ppa/flow.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::vector<std::string> WorkloadSpec::testbench_args() const {
  std::vector<std::string> a = {"--workload"};
  if (!activations.empty()) a.insert(a.end(), {"--workload-activations", activations});
  if (!weights.empty()) a.insert(a.end(), {"--workload-weights", weights});
  if (tokens > 0) a.insert(a.end(), {"--workload-tokens", std::to_string(tokens)});
  if (rows > 0) a.insert(a.end(), {"--workload-rows", std::to_string(rows)});
  if (zeros) a.push_back("--workload-zeros");
  return a;
}

std::string WorkloadSpec::key() const {
  std::string k =
      fmt::format("workload seed {} tokens {} rows {} zeros {}", seed, tokens, rows, zeros);
  for (const std::string& f : {activations, weights}) {
    if (!f.empty()) k += fmt::format(" {}", hex(fnv1a(read_text(f))));
  }
  return k;
}

RecordedWorkload record_workload(const TestbenchRun& tb, const WorkloadSpec& w,
                                 const fs::path& work) {
  fs::create_directories(work);
  // The testbench runs in its own folder: every path it is given is absolute.
  const fs::path dir = fs::absolute(work);
  RecordedWorkload r;
  r.vectors = dir / "vectors.txt";
  const fs::path summary = dir / "workload.json";
  const fs::path log = dir / "verilator.log";
  for (const fs::path& f : {r.vectors, summary, log}) fs::remove(f);
  std::vector<std::string> argv = {(tb.build / "oasis-vltest").string(),
                                   "--source",
                                   tb.source,
                                   "--build",
                                   tb.build.string(),
                                   "--block",
                                   tb.block,
                                   "--config",
                                   tb.config_path,
                                   "--label",
                                   tb.label};
  for (const std::string& s : tb.sets) argv.insert(argv.end(), {"--set", s});
  argv.push_back("--");
  for (const std::string& a : w.testbench_args()) argv.push_back(a);
  argv.insert(argv.end(), {"--seed", std::to_string(w.seed), "--record", r.vectors.string(),
                           "--summary", summary.string()});
  const int status = run_tool(argv, log);
  check_tool(status, fmt::format("the Verilator testbench of {} on its workload", tb.block), log);
  const json s = json::parse(read_text(summary));
  if (!s.value("pass", false)) {
    throw ToolError(fmt::format("the testbench of {} failed on its workload (log: {}):\n{}",
                                tb.block, log.string(), tail(log, 20)));
  }
  if (!s.contains("figures") || !s["figures"].contains("workload")) {
    throw ToolError(fmt::format("the testbench of {} gave no workload figure (log: {})", tb.block,
                                log.string()));
  }
  r.workload = s["figures"]["workload"];
  r.begin = r.workload.at("window").at("begin").get<int64_t>();
  r.end = r.workload.at("window").at("end").get<int64_t>();
  return r;
}

void write_activity(const fs::path& file, const GateSim& sim, const ActivityRecord& record,
                    const std::string& netlist_hash) {
  const NetActivity& a = record.nets;
  std::string t = fmt::format("# oasis-ppa activity: netlist {} window {} {} lines {}\n# {}\n",
                              netlist_hash, a.begin, a.end, a.lines, record.workload.dump());
  t += "# net toggles high (cycles of the window)\n";
  for (int n = 0; n < sim.nets(); ++n) {
    t += fmt::format("{} {} {}\n", sim.name(n), a.toggles[size_t(n)], a.high[size_t(n)]);
  }
  write_text(file, t);
}

ActivityRecord read_activity(const fs::path& file, const GateSim& sim,
                             const std::string& netlist_hash) {
  const auto bad = [&](const std::string& what) {
    return ActivityMismatch(fmt::format("--activity-file {}: {}", file.string(), what));
  };
  std::ifstream in(file);
  if (!in) throw bad("cannot read it");
  std::string line;
  std::getline(in, line);
  std::istringstream h(line);
  std::string w[7];
  ActivityRecord r;
  NetActivity& a = r.nets;
  if (!(h >> w[0] >> w[1] >> w[2] >> w[3] >> w[4] >> w[5] >> a.begin >> a.end >> w[6] >> a.lines) ||
      w[0] != "#" || w[2] != "activity:" || w[3] != "netlist" || a.end <= a.begin) {
    throw bad("not an activity file of oasis-ppa");
  }
  if (w[4] != netlist_hash) {
    throw bad(fmt::format(
        "it is the activity of netlist {}, not of this one ({}); allowed: the activity.txt "
        "that a run wrote for this very netlist",
        w[4], netlist_hash));
  }
  std::getline(in, line);
  try {
    r.workload = json::parse(line.substr(std::min<size_t>(2, line.size())));
  } catch (const json::exception&) {
    throw bad("its second line is not the workload's figure");
  }
  std::getline(in, line);  // the column names
  a.toggles.assign(size_t(sim.nets()), 0);
  a.high.assign(size_t(sim.nets()), 0);
  std::string name;
  uint32_t t = 0, hi = 0;
  int64_t read = 0;
  while (in >> name >> t >> hi) {
    const int n = sim.net(name);
    if (n < 0) throw bad(fmt::format("net {} is not in the netlist", name));
    a.toggles[size_t(n)] = t;
    a.high[size_t(n)] = hi;
    ++read;
  }
  if (read != sim.nets()) throw bad(fmt::format("{} nets, the netlist has {}", read, sim.nets()));
  return r;
}

SramEnergy read_sram_energy(const std::string& file) {
  const EnergySpec e = load_energy(file);
  return {e.sram_pj_per_bit, e.sram_source, file};
}

int part_of(const std::string& net, const std::vector<PartSpec>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (net.rfind(parts[i].instance + ".", 0) == 0) return int(i);
  }
  return -1;
}

namespace {

PowerInputs power_inputs(const ActivityInputs& in, const GateSim& sim, const PinSlews& slews) {
  return {in.netlist, &sim, in.lib, &in.verilog->gate_instance, &slews, in.period, in.output_load};
}

// `sram`: the SRAMs' access power, part of the total (none but with SRAMs).
json power_json(const PowerSums& s, double sram) {
  json j = {
      {"internal", s.internal},          {"switching", s.switching}, {"leakage", s.leakage},
      {"total", s.total() + sram},       {"clock", s.clock},         {"sequential", s.sequential},
      {"combinational", s.combinational}};
  if (sram > 0) j["sram"] = sram;
  return j;
}

// The workload simulated on the netlist with the SRAMs' instances, its activity carried over
// to the netlist OpenSTA times by the nets' names (the same nets; the instances' pins are its
// ports), and the SRAMs' accesses into the workload's figure.
NetActivity simulate_with_memories(const ActivityInputs& in, const GateSim& timed,
                                   const RecordedWorkload& w, json& workload) {
  GateSim full(*in.with_memories, *in.lib, in.clock, in.memories);
  const NetActivity fa = simulate_vectors(full, *in.with_memories, w.vectors, w.begin, w.end);
  // Each net of the simulated netlist is a net of the timed one (whose cut pins' ports are
  // copies of the nets they cut); every timed net must be one of them.
  NetActivity a = fa;
  a.toggles.assign(size_t(timed.nets()), 0);
  a.high.assign(size_t(timed.nets()), 0);
  std::vector<uint8_t> seen(size_t(timed.nets()), 0);
  for (int f = 0; f < full.nets(); ++f) {
    const int n = timed.net(full.name(f));
    if (n < 0) {
      throw SimError(
          fmt::format("net {} of the netlist with the SRAMs' instances is not in the "
                      "netlist OpenSTA times",
                      full.name(f)));
    }
    a.toggles[size_t(n)] = fa.toggles[size_t(f)];
    a.high[size_t(n)] = fa.high[size_t(f)];
    seen[size_t(n)] = 1;
  }
  for (int n = 0; n < timed.nets(); ++n) {
    if (!seen[size_t(n)]) {
      throw SimError(
          fmt::format("net {} is not in the netlist with the SRAMs' instances", timed.name(n)));
    }
  }
  json acc = json::array();
  for (const MemoryAccesses& m : full.memory_accesses()) {
    acc.push_back({{"module", m.cell},
                   {"width", m.width},
                   {"lanes", m.lanes},
                   {"address_bits", m.addr_bits},
                   {"reads", m.reads},
                   {"lane_writes", m.lane_writes},
                   {"bits_read", m.bits_read()},
                   {"bits_written", m.bits_written()}});
  }
  workload["memory_accesses"] = acc;
  return a;
}

}  // namespace

namespace {

json activity_figures(const ActivityInputs& in, const GateSim& sim, const ActivityRecord& rec,
                      const fs::path& work, double t_sim);

}  // namespace

json power_from_activity(const ActivityInputs& in, const RecordedWorkload& w,
                         const fs::path& work) {
  const auto t0 = std::chrono::steady_clock::now();
  GateSim sim(*in.netlist, *in.lib, in.clock);
  ActivityRecord rec;
  rec.workload = w.workload;
  rec.nets = in.with_memories ? simulate_with_memories(in, sim, w, rec.workload)
                              : simulate_vectors(sim, *in.netlist, w.vectors, w.begin, w.end);
  write_activity(work / "activity.txt", sim, rec, hex(fnv1a(read_text(work / "netlist.v"))));
  json r = activity_figures(in, sim, rec, work, seconds_since(t0));
  r["source"] = "gate-level simulation of the workload";
  return r;
}

json power_from_activity_file(const ActivityInputs& in, const fs::path& activity_file,
                              const fs::path& work) {
  GateSim sim(*in.netlist, *in.lib, in.clock);
  const ActivityRecord rec =
      read_activity(activity_file, sim, hex(fnv1a(read_text(work / "netlist.v"))));
  json r = activity_figures(in, sim, rec, work, 0);
  r["source"] = "activity file " + activity_file.string();
  return r;
}

namespace {

// Registers clocked while they hold: a flip-flop whose output does not change at an edge took
// that edge's clock for nothing. What clock gating could save at most: ideal gating of each
// flip-flop, at no cost, its clock pin's power and the clock buffers' in the same share
// (docs/ppa.md, "Registers clocked while they hold").
json clock_held(const ActivityInputs& in, const GateSim& sim, const NetActivity& a,
                const std::vector<InstancePower>& p, double clock_w, double total) {
  const double cycles = double(a.cycles());
  double flop_clock = 0, held_clock = 0;
  int64_t flops = 0;
  for (size_t g = 0; g < p.size(); ++g) {
    const Gate& gate = in.netlist->gates[g];
    const LibertyCell& cell = in.lib->cell(gate.cell);
    if (!cell.sequential) continue;
    for (const auto& [pin, net] : gate.pins) {
      const LibertyPin* lp = cell.pin(pin);
      if (!lp || lp->direction != "output") continue;
      const int q = sim.net(net);
      const double hold = std::clamp(1 - a.toggles[size_t(q)] / cycles, 0.0, 1.0);
      flop_clock += p[g].clock;
      held_clock += p[g].clock * hold;
      ++flops;
      break;
    }
  }
  const double held_share = flop_clock > 0 ? held_clock / flop_clock : 0;
  const double gating_bound = held_clock + (clock_w - flop_clock) * held_share;
  return {{"flip_flops", flops},
          {"flip_flops_clock_w", flop_clock},
          {"held_share", held_share},
          {"gating_bound_w", gating_bound},
          {"gating_bound_of_total", total > 0 ? gating_bound / total : 0.0}};
}

json activity_figures(const ActivityInputs& in, const GateSim& sim, const ActivityRecord& rec,
                      const fs::path& work, double t_sim) {
  const auto t0 = std::chrono::steady_clock::now();
  const NetActivity& a = rec.nets;
  const json& workload = rec.workload;
  const double cycles = double(a.cycles());
  if (cycles <= 0) throw SimError("the workload's window has no cycles");
  const PinSlews slews = read_slews(work / "slews.txt");
  const auto per_net = [&](int n) {
    return Activity{a.toggles[size_t(n)] / cycles, a.high[size_t(n)] / cycles};
  };
  const std::vector<InstancePower> p = instance_power(power_inputs(in, sim, slews), per_net);
  const PowerSums sums = sum_power(p, *in.netlist, *in.lib);

  // The same with later OpenSTA's charge of internal power (PowerModel::kArcWeighted): how
  // much the comparisons depend on the model.
  PowerInputs weighted = power_inputs(in, sim, slews);
  weighted.model = PowerModel::kArcWeighted;
  const PowerSums sums_weighted =
      sum_power(instance_power(weighted, per_net), *in.netlist, *in.lib);

  json r;
  const double period_s = in.period * in.lib->time_unit_seconds();
  // The SRAMs' accesses at their energy a bit (docs/ppa.md, "SRAM access energy").
  json wl = workload;
  double sram_w = 0;
  if (wl.contains("memory_accesses")) {
    double bits = 0;
    for (const json& m : wl["memory_accesses"]) {
      bits += m.at("bits_read").get<double>() + m.at("bits_written").get<double>();
    }
    const double joules = bits * in.sram.pj_per_bit * 1e-12;
    sram_w = joules / (cycles * period_s);
    r["sram"] = {{"accesses", wl["memory_accesses"]},
                 {"bits", bits},
                 {"pj_per_bit", in.sram.pj_per_bit},
                 {"pj_per_bit_file", in.sram.file},
                 {"pj_per_bit_source", in.sram.source},
                 {"energy_j", joules},
                 {"power_w", sram_w}};
    wl.erase("memory_accesses");
  }
  r["power_w"] = power_json(sums, sram_w);
  r["power_w_arc_weighted"] = power_json(sums_weighted, sram_w);
  const double total = sums.total() + sram_w, total_weighted = sums_weighted.total() + sram_w;
  r["energy_per_cycle_j"] = total * period_s;
  // The workload: what the testbench said, and what the inputs did.
  wl["cycles"] = a.cycles();
  const double ops =
      workload.contains("operations") ? workload["operations"].value("count", 0.0) : 0.0;
  if (ops > 0) {
    r["energy_per_operation_j"] = total * period_s * cycles / ops;
    r["energy_per_operation_j_arc_weighted"] = total_weighted * period_s * cycles / ops;
    r["operation"] = workload["operations"].value("unit", "operation");
  }
  if (workload.contains("busy_cycles")) {
    wl["busy_fraction"] = workload["busy_cycles"].get<double>() / cycles;
  }
  // Inputs' toggles a bit and cycle, port by port and over all data inputs.
  std::map<std::string, std::pair<double, int>> ports;  // port -> (toggles, bits)
  for (const std::string& b : in.netlist->inputs) {
    const int n = sim.net(b);
    if (n < 0 || sim.is_clock(n)) continue;
    const std::string port = b.substr(0, b.find('['));
    ports[port].first += a.toggles[size_t(n)] / cycles;
    ports[port].second += 1;
  }
  json rates = json::object();
  double all = 0;
  int bits = 0;
  for (const auto& [port, tb] : ports) {
    rates[port] = tb.first / tb.second;
    if (port != "rst_ni") {
      all += tb.first;
      bits += tb.second;
    }
  }
  wl["input_toggle_rate"] = bits ? all / bits : 0.0;
  wl["input_toggle_rate_by_port"] = rates;
  r["workload"] = wl;
  // Nets: how much of the netlist moved.
  int64_t moving = 0;
  double toggles = 0;
  int data_nets = 0;
  for (int n = 0; n < sim.nets(); ++n) {
    if (sim.is_clock(n) || sim.is_constant(n)) continue;
    ++data_nets;
    toggles += a.toggles[size_t(n)];
    moving += a.toggles[size_t(n)] > 0;
  }
  r["nets"] = {{"data_nets", data_nets},
               {"toggling", moving},
               {"mean_toggle_rate", data_nets ? toggles / data_nets / cycles : 0.0}};
  r["simulation"] = {{"cycles_simulated", a.lines},
                     {"output_bits_compared", a.output_bits_compared},
                     {"output_bits_tolerated", a.output_bits_tolerated},
                     {"seconds", t_sim}};
  r["clock_held"] = clock_held(in, sim, a, p, sums.clock, total);
  // Parts, by the part each instance's first output lies in.
  if (!in.parts->empty()) {
    std::vector<PowerSums> part(in.parts->size());
    std::vector<InstancePower> one(1);
    for (size_t g = 0; g < p.size(); ++g) {
      const auto it = in.verilog->instance_net.find(in.verilog->gate_instance[g]);
      const int k =
          it == in.verilog->instance_net.end() ? -1 : part_of(plain_net(it->second), *in.parts);
      if (k < 0) continue;
      PowerSums& s = part[size_t(k)];
      s.internal += p[g].internal;
      s.switching += p[g].switching;
      s.leakage += p[g].leakage;
      s.clock += p[g].clock;
    }
    json parts = json::array();
    for (size_t k = 0; k < part.size(); ++k) {
      parts.push_back({{"instance", (*in.parts)[k].instance},
                       {"role", (*in.parts)[k].role},
                       {"power_w", part[k].total()},
                       {"clock_w", part[k].clock}});
    }
    r["parts"] = parts;
  }
  r["seconds"] = {{"simulation", t_sim}, {"power", seconds_since(t0)}};
  return r;
}

}  // namespace

json uniform_power_check(const ActivityInputs& in, double activity, double duty,
                         double opensta_total_w, const fs::path& work) {
  GateSim sim(*in.netlist, *in.lib, in.clock);
  const PinSlews slews = read_slews(work / "slews.txt");
  const std::vector<InstancePower> p = instance_power(power_inputs(in, sim, slews), [&](int) {
    return Activity{activity, duty};
  });
  const double model = sum_power(p, *in.netlist, *in.lib).total();
  return {{"activity", activity},
          {"opensta_w", opensta_total_w},
          {"model_w", model},
          {"relative", opensta_total_w > 0 ? model / opensta_total_w - 1 : 0.0}};
}

}  // namespace oasis::ppa
