// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/power.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace oasis::ppa {
namespace fs = std::filesystem;

namespace {

using Op = LibertyFunc::Op;

// OpenSTA's evalActivity, for the static probability only: inputs independent.
double duty_of(const LibertyFunc& f, int node, const std::function<double(const std::string&)>& d) {
  const LibertyFunc::Node& n = f.nodes[size_t(node)];
  switch (n.op) {
    case Op::kPort:
      return d(n.port);
    case Op::kNot:
      return 1 - duty_of(f, n.left, d);
    case Op::kOr:
      return 1 - (1 - duty_of(f, n.left, d)) * (1 - duty_of(f, n.right, d));
    case Op::kAnd:
      return duty_of(f, n.left, d) * duty_of(f, n.right, d);
    case Op::kXor: {
      const double a = duty_of(f, n.left, d), b = duty_of(f, n.right, d);
      return a * (1 - b) + b * (1 - a);
    }
    case Op::kOne:
      return 1;
    case Op::kZero:
      return 0;
  }
  return 0;
}

bool is_port_ref(const LibertyFunc& f, int node, const std::string& port) {
  const LibertyFunc::Node& n = f.nodes[size_t(node)];
  if (n.op == Op::kPort) return n.port == port;
  return n.op == Op::kNot && f.nodes[size_t(n.left)].op == Op::kPort &&
         f.nodes[size_t(n.left)].port == port;
}

// OpenSTA's inferedWhen: the condition under which `port` alone switches the function (1 for
// the function of `port` itself), as the static probability of that condition; none where
// OpenSTA infers none.
std::optional<double> inferred_when_duty(const LibertyFunc& f, int node, const std::string& port,
                                         const std::function<double(const std::string&)>& d) {
  const LibertyFunc::Node& n = f.nodes[size_t(node)];
  switch (n.op) {
    case Op::kPort:
      if (n.port == port) return 1.0;
      return std::nullopt;
    case Op::kNot:
      return inferred_when_duty(f, n.left, port, d);
    case Op::kOr:
    case Op::kXor:
      // The other side negated.
      if (is_port_ref(f, n.left, port)) return 1 - duty_of(f, n.right, d);
      if (is_port_ref(f, n.right, port)) return 1 - duty_of(f, n.left, d);
      return std::nullopt;
    case Op::kAnd:
      if (is_port_ref(f, n.left, port)) return duty_of(f, n.right, d);
      if (is_port_ref(f, n.right, port)) return duty_of(f, n.left, d);
      return std::nullopt;
    case Op::kOne:
    case Op::kZero:
      return std::nullopt;
  }
  return std::nullopt;
}

// A cell's output functions, once per cell type: as parsed, and as a truth table over their
// ports (port k is bit k of the index) for the arc-weighted model.
struct OutputFunction {
  LibertyFunc func;
  std::vector<std::string> ports;
  uint64_t table = 0;
  std::map<std::string, bool> negative_unate;  // port -> the output falls as it rises
};
struct CellModel {
  std::map<std::string, OutputFunction> functions;  // output pin -> its function
};

OutputFunction output_function(const LibertyFunc& f) {
  OutputFunction o;
  o.func = f;
  o.ports = f.ports();
  for (uint64_t m = 0; m < (uint64_t{1} << o.ports.size()); ++m) {
    const bool v = f.eval([&](const std::string& p) {
      return (m >> (std::find(o.ports.begin(), o.ports.end(), p) - o.ports.begin()) & 1) != 0;
    });
    if (v) o.table |= uint64_t{1} << m;
  }
  for (size_t k = 0; k < o.ports.size(); ++k) {
    bool rises = false, falls = false;
    for (uint64_t m = 0; m < (uint64_t{1} << o.ports.size()); ++m) {
      if (m >> k & 1) continue;
      const bool lo = o.table >> m & 1, hi = o.table >> (m | (uint64_t{1} << k)) & 1;
      rises = rises || (!lo && hi);
      falls = falls || (lo && !hi);
    }
    o.negative_unate[o.ports[k]] = falls && !rises;
  }
  return o;
}

// The probability that port k alone switches the function (its Boolean difference), the other
// ports independent, each high with probability duty[i]: later OpenSTA's evalDiffDuty.
double difference_duty(const OutputFunction& o, size_t k, const std::vector<double>& duty) {
  double prob = 0;
  for (uint64_t m = 0; m < (uint64_t{1} << o.ports.size()); ++m) {
    if (m >> k & 1) continue;
    if ((o.table >> m & 1) == (o.table >> (m | (uint64_t{1} << k)) & 1)) continue;
    double w = 1;
    for (size_t i = 0; i < o.ports.size(); ++i) {
      if (i != k) w *= (m >> i & 1) ? duty[i] : 1 - duty[i];
    }
    prob += w;
  }
  return prob;
}

}  // namespace

PinSlews read_slews(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw SimError(fmt::format("cannot read OpenSTA's slews {}", file.string()));
  PinSlews s;
  std::string pin;
  double rise = 0, fall = 0;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::istringstream w(line);
    if (!(w >> pin >> rise >> fall)) {
      throw SimError(fmt::format("{}:{}: not 'pin rise fall'", file.string(), lineno));
    }
    s[pin] = {float(rise), float(fall)};
  }
  return s;
}

namespace {

// One gate while its power is computed: its cell, its cell's output functions, its pins' nets
// and its instance's name.
struct GateView {
  const Gate& gate;
  const LibertyCell& cell;
  const CellModel& model;
  const std::vector<int>& gn;
  const std::string& inst;

  int net_of(const std::string& pin) const {
    for (size_t k = 0; k < gate.pins.size(); ++k) {
      if (gate.pins[k].first == pin) return gn[k];
    }
    return -1;
  }
};

// The power of a netlist's instances: the library's units, every net's load, the nets'
// activity and each cell's output functions.
struct PowerCalc {
  PowerCalc(const PowerInputs& in, const std::function<Activity(int net)>& activity)
      : in(in),
        nl(*in.netlist),
        sim(*in.sim),
        lib(*in.lib),
        activity(activity),
        volt(lib.voltage * lib.voltage_unit_volts()),
        cap_f(lib.cap_unit_farads()),
        per_second(1.0 / (in.period * lib.time_unit_seconds())),
        energy_j(lib.energy_unit_joules()) {}

  void net_loads();
  double load(int n) const { return std::max(rise[size_t(n)], fall[size_t(n)]); }
  // Clock nets toggle twice a cycle, high half the time.
  Activity act(int n) const {
    if (sim.is_clock(n)) return Activity{2.0, 0.5};
    return activity(n);
  }
  double pin_duty(const GateView& v, const std::string& pin) const {
    const int n = v.net_of(pin);
    return n < 0 ? 0.0 : act(n).duty;  // a state variable has none, as in OpenSTA
  }
  std::array<float, 2> slew_at(const GateView& v, const std::string& pin) const;
  const CellModel& cell_model(const Gate& gate, const LibertyCell& cell);
  double arc_weighted_internal(const GateView& v, const std::string& pin, double c,
                               double rate) const;
  double opensta2017_internal(const GateView& v, const std::string& pin, const Activity& a,
                              double c, double rate) const;
  InstancePower gate_power(size_t g);

  const PowerInputs& in;
  const GateNetlist& nl;
  const GateSim& sim;
  const Liberty& lib;
  const std::function<Activity(int net)>& activity;
  const double volt;
  const double cap_f;
  const double per_second;
  const double energy_j;
  std::vector<double> rise, fall;
  std::map<std::string, CellModel> models;
};

// Each net's load: every pin on it, by transition, plus the output ports' loads; the larger.
void PowerCalc::net_loads() {
  const size_t nets = size_t(sim.nets());
  rise.assign(nets, 0);
  fall.assign(nets, 0);
  for (size_t g = 0; g < nl.gates.size(); ++g) {
    const LibertyCell& cell = lib.cell(nl.gates[g].cell);
    const std::vector<int>& gn = sim.gate_nets(g);
    for (size_t k = 0; k < gn.size(); ++k) {
      const LibertyPin* p = cell.pin(nl.gates[g].pins[k].first);
      rise[size_t(gn[k])] += p->rise_capacitance;
      fall[size_t(gn[k])] += p->fall_capacitance;
    }
  }
  for (const std::string& o : nl.outputs) {
    const int n = sim.net(o);
    if (n >= 0) {
      rise[size_t(n)] += in.output_load;
      fall[size_t(n)] += in.output_load;
    }
  }
}

std::array<float, 2> PowerCalc::slew_at(const GateView& v, const std::string& pin) const {
  const auto slew = in.slews->find(v.inst + "/" + pin);
  if (slew == in.slews->end()) {
    throw SimError(fmt::format("OpenSTA gave no slew at pin {}/{}", v.inst, pin));
  }
  return slew->second;
}

// The output functions of a cell, parsed the first time the cell is met.
const CellModel& PowerCalc::cell_model(const Gate& gate, const LibertyCell& cell) {
  CellModel& model = models[gate.cell];
  if (model.functions.empty()) {
    for (const LibertyPin& p : cell.pins) {
      if (!p.function.empty()) {
        model.functions[p.name] =
            output_function(parse_liberty_func(p.function, lib.path + ": " + cell.name));
      }
    }
  }
  return model;
}

// Later OpenSTA's internal power of one pin (PowerModel::kArcWeighted).
double PowerCalc::arc_weighted_internal(const GateView& v, const std::string& pin, double c,
                                        double rate) const {
  const LibertyCell& cell = v.cell;
  const CellModel& model = v.model;
  const auto f = model.functions.find(pin);
  std::vector<double> duty;
  if (f != model.functions.end()) {
    for (const std::string& p : f->second.ports) duty.push_back(pin_duty(v, p));
  }
  double sum = 0, internal = 0;
  std::vector<std::pair<double, double>> arcs;  // (weight before normalizing, energy)
  for (const LibertyInternalPower& ip : cell.internal_power) {
    if (ip.pin != pin) continue;
    const std::string from = ip.related_pin.empty() ? pin : ip.related_pin;
    const int from_net = v.net_of(from);
    if (from_net < 0) continue;
    size_t k = 0;
    bool has = false;
    if (f != model.functions.end()) {
      const auto& ports = f->second.ports;
      k = size_t(std::find(ports.begin(), ports.end(), from) - ports.begin());
      has = k < ports.size();
    }
    const bool flip = has && f->second.negative_unate.at(from);
    const std::array<float, 2> s = slew_at(v, from);
    double e = 0;
    int n = 0;
    if (ip.rise) e += ip.rise->lookup(s[flip ? 1 : 0], c), ++n;
    if (ip.fall) e += ip.fall->lookup(s[flip ? 0 : 1], c), ++n;
    if (n) e /= n;
    if (ip.related_pin.empty()) {
      internal += e * energy_j * rate;  // an input's own energy
      continue;
    }
    const double w = act(from_net).toggles * (has ? difference_duty(f->second, k, duty) : 0.5);
    sum += w;
    arcs.emplace_back(w, e);
  }
  for (const auto& [w, e] : arcs) {
    if (sum > 0) internal += w / sum * e * energy_j * rate;
  }
  return internal;
}

// OpenSTA 2.0's internal power of one pin (PowerModel::kOpenSta2017): each arc's energy weighted
// by its `when` condition's duty, or the one inferred from the function.
double PowerCalc::opensta2017_internal(const GateView& v, const std::string& pin, const Activity& a,
                                       double c, double rate) const {
  const LibertyCell& cell = v.cell;
  double internal = 0;
  for (const LibertyInternalPower& ip : cell.internal_power) {
    if (ip.pin != pin) continue;
    const std::string from = ip.related_pin.empty() ? pin : ip.related_pin;
    const int from_net = v.net_of(from);
    if (from_net < 0) continue;
    double duty = 0.5;
    std::optional<double> inferred;
    if (!ip.related_pin.empty() && ip.when.empty()) {
      const auto f = v.model.functions.find(pin);
      if (f != v.model.functions.end()) {
        inferred = inferred_when_duty(f->second.func, f->second.func.root, from,
                                      [&](const std::string& p) { return pin_duty(v, p); });
      }
    }
    if (!ip.when.empty()) {
      const LibertyFunc w = parse_liberty_func(ip.when, lib.path + ": " + cell.name);
      duty = duty_of(w, w.root, [&](const std::string& p) { return pin_duty(v, p); });
    } else if (inferred) {
      duty = a.toggles == 0 ? 0.0 : act(from_net).toggles / a.toggles * *inferred;
    } else if (sim.is_clock(from_net)) {
      duty = 1.0;
    }
    const auto slew = in.slews->find(v.inst + "/" + from);
    if (slew == in.slews->end()) {
      throw SimError(fmt::format("OpenSTA gave no slew at pin {}/{}", v.inst, from));
    }
    double e = 0;
    if (ip.rise) e += ip.rise->lookup(slew->second[0], c) * duty;
    if (ip.fall) e += ip.fall->lookup(slew->second[1], c) * duty;
    internal += e * energy_j * rate;
  }
  return internal;
}

InstancePower PowerCalc::gate_power(size_t g) {
  const Gate& gate = nl.gates[g];
  const LibertyCell& cell = lib.cell(gate.cell);
  const GateView v{gate, cell, cell_model(gate, cell), sim.gate_nets(g), (*in.instances)[g]};
  InstancePower r;
  for (size_t k = 0; k < gate.pins.size(); ++k) {
    const std::string& pin = gate.pins[k].first;
    const LibertyPin* lp = cell.pin(pin);
    const int net = v.gn[k];
    const Activity a = act(net);
    const bool output = lp->direction == "output";
    const double c = output ? load(net) : 0.0;
    const double rate = a.toggles * per_second;
    double switching = 0, internal = 0;
    if (output) switching = 0.5 * c * cap_f * volt * volt * rate;
    if (in.model == PowerModel::kArcWeighted) internal = arc_weighted_internal(v, pin, c, rate);
    if (in.model == PowerModel::kOpenSta2017) internal += opensta2017_internal(v, pin, a, c, rate);
    r.switching += switching;
    r.internal += internal;
    if (sim.is_clock(net)) r.clock += switching + internal;
  }
  r.leakage = cell.leakage * lib.leakage_unit_watts();
  return r;
}

}  // namespace

std::vector<InstancePower> instance_power(const PowerInputs& in,
                                          const std::function<Activity(int net)>& activity) {
  PowerCalc calc(in, activity);
  calc.net_loads();
  std::vector<InstancePower> out(calc.nl.gates.size());
  for (size_t g = 0; g < calc.nl.gates.size(); ++g) out[g] = calc.gate_power(g);
  return out;
}

PowerSums sum_power(const std::vector<InstancePower>& p, const GateNetlist& nl,
                    const Liberty& lib) {
  PowerSums s;
  for (size_t g = 0; g < p.size(); ++g) {
    s.internal += p[g].internal;
    s.switching += p[g].switching;
    s.leakage += p[g].leakage;
    s.clock += p[g].clock;
    const double data = p[g].internal + p[g].switching - p[g].clock;
    (lib.cell(nl.gates[g].cell).sequential ? s.sequential : s.combinational) += data;
  }
  return s;
}

}  // namespace oasis::ppa
