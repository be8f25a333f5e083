// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/gatesim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "gen/replay_tb.hpp"

namespace oasis::ppa {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxInputs = 6;  // inputs of one cell output's table (64 entries)

// The truth table of `f` over `ports` (port i is bit i of the index).
uint64_t truth_table(const LibertyFunc& f, const std::vector<std::string>& ports) {
  uint64_t t = 0;
  for (uint64_t i = 0; i < (uint64_t{1} << ports.size()); ++i) {
    const bool v = f.eval([&](const std::string& p) {
      const auto it = std::find(ports.begin(), ports.end(), p);
      return ((i >> (it - ports.begin())) & 1) != 0;
    });
    if (v) t |= uint64_t{1} << i;
  }
  return t;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

// Bit `bit` of a hex value written most significant digit first.
bool hex_bit(const std::string& hex, int bit, bool& ok) {
  const size_t digit = size_t(bit / 4);
  if (digit >= hex.size()) {
    ok = false;
    return false;
  }
  const char c = hex[hex.size() - 1 - digit];
  int v = 0;
  if (c >= '0' && c <= '9') {
    v = c - '0';
  } else if (c >= 'a' && c <= 'f') {
    v = c - 'a' + 10;
  } else if (c >= 'A' && c <= 'F') {
    v = c - 'A' + 10;
  } else {
    ok = false;
  }
  return ((v >> (bit % 4)) & 1) != 0;
}

// The nets of the inputs of `f` but the state variables, in `in` (`count` of them), through the
// gate's pins; their names, in order.
std::vector<std::string> in_nets(const Gate& g, const std::map<std::string, int>& pin_net,
                                 const LibertyFunc& f, int* in, uint8_t& count,
                                 const std::vector<std::string>& state) {
  std::vector<std::string> ports;
  for (const std::string& p : f.ports()) {
    if (std::find(state.begin(), state.end(), p) == state.end()) ports.push_back(p);
  }
  if (ports.size() > size_t(kMaxInputs)) {
    throw SimError(fmt::format("cell {}: a function of more than {} inputs", g.cell, kMaxInputs));
  }
  count = uint8_t(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) {
    const auto it = pin_net.find(ports[i]);
    if (it == pin_net.end()) {
      throw SimError(
          fmt::format("a {} instance leaves its input {} unconnected", g.cell, ports[i]));
    }
    in[i] = it->second;
  }
  return ports;
}

}  // namespace

int GateSim::net(const std::string& blif_name) const {
  const auto it = id_.find(blif_name);
  return it == id_.end() ? -1 : it->second;
}

GateSim::GateSim(const GateNetlist& nl, const Liberty& lib, const std::string& clock,
                 const std::set<std::string>& memories) {
  number_nets(nl);
  const size_t n_nets = names_.size();

  // Cells: one node per output, a flip-flop per state.
  std::vector<int> driver(n_nets, -1);  // node driving a net
  for (const auto& b : nl.inputs) driver[size_t(id_.at(b))] = -2;
  for (size_t i = 0; i < n_nets; ++i) {
    if (constant_[i] >= 0) driver[i] = -2;
  }
  std::vector<int> clock_pins;  // nets of the flip-flops' clock pins
  gate_nets_.reserve(nl.gates.size());
  for (const Gate& g : nl.gates) {
    if (memories.count(g.cell)) {
      add_memory(g, driver, clock_pins);
    } else {
      add_cell(g, lib, driver, clock_pins);
    }
  }
  trace_clock(clock, clock_pins, driver);
  sort_nodes(driver);
}

// Nets: BLIF names joined by copies (union-find), then renumbered by class.
void GateSim::number_nets(const GateNetlist& nl) {
  std::unordered_map<std::string, int> raw;
  std::vector<int> parent;
  std::vector<std::string> raw_names;
  const auto add = [&](const std::string& n) {
    const auto [it, fresh] = raw.emplace(n, int(parent.size()));
    if (fresh) {
      parent.push_back(int(parent.size()));
      raw_names.push_back(n);
    }
    return it->second;
  };
  const auto find = [&](int x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  };
  for (const auto& b : nl.inputs) add(b);
  for (const auto& b : nl.outputs) add(b);
  for (const auto& [n, v] : nl.constants) add(n);
  for (const auto& [a, b] : nl.copies) {
    const int x = find(add(a)), y = find(add(b));
    if (x != y) parent[size_t(y)] = x;
  }
  for (const Gate& g : nl.gates) {
    for (const auto& [pin, n] : g.pins) add(n);
  }
  // A class is named by its input port bit where it has one, else its first name.
  std::vector<int> cls(parent.size(), -1);
  const auto class_id = [&](int r) {
    if (cls[size_t(r)] < 0) {
      cls[size_t(r)] = int(names_.size());
      names_.push_back(raw_names[size_t(r)]);
      constant_.push_back(-1);
    }
    return cls[size_t(r)];
  };
  for (const auto& b : nl.inputs) {
    const int c = class_id(find(raw.at(b)));
    names_[size_t(c)] = b;
  }
  for (size_t i = 0; i < parent.size(); ++i) id_[raw_names[i]] = class_id(find(int(i)));
  for (const auto& [n, v] : nl.constants) {
    const int c = id_.at(n);
    if (constant_[size_t(c)] >= 0 && constant_[size_t(c)] != int8_t(v)) {
      throw SimError(fmt::format("net {} is tied to both 0 and 1", n));
    }
    constant_[size_t(c)] = v ? 1 : 0;
  }
  const size_t n_nets = names_.size();
  value_.assign(n_nets, 0);
  clock_net_.assign(n_nets, 0);
  for (size_t i = 0; i < n_nets; ++i) {
    if (constant_[i] > 0) value_[i] = 1;
  }
}

void GateSim::add_memory(const Gate& g, std::vector<int>& driver, std::vector<int>& clock_pins) {
  gate_nets_.emplace_back();
  for (const auto& [pin, n] : g.pins) gate_nets_.back().push_back(id_.at(n));
  memories_.push_back(memory_of(g));
  for (int out : memories_.back().rdata) {
    if (driver[size_t(out)] != -1) {
      throw SimError(fmt::format("net {} has more than one driver", names_[size_t(out)]));
    }
    driver[size_t(out)] = -2;  // a state of the memory, as a flip-flop's output
  }
  clock_pins.push_back(memories_.back().clk);
}

// The flip-flop of a cell's state; its index.
int GateSim::add_flop(const Gate& g, const LibertySequential& q,
                      const std::map<std::string, int>& pin_net,
                      const std::vector<std::string>& state_vars, std::vector<int>& clock_pins) {
  // The clock: one pin, rising edge.
  const std::vector<std::string> ck = q.clock.ports();
  if (ck.size() != 1 || q.clock.nodes.size() != 1) {
    throw SimError(
        fmt::format("cell {} is clocked on \"{}\"; the simulator takes rising "
                    "edges of one pin only",
                    g.cell, q.clock.ports().empty() ? "" : ck[0]));
  }
  clock_pins.push_back(pin_net.at(ck[0]));
  Flop f;
  const auto ports = [&](const LibertyFunc& fn, int* in, uint8_t& count) {
    return truth_table(fn, in_nets(g, pin_net, fn, in, count, state_vars));
  };
  f.next_table = ports(q.next, f.next_in, f.next_inputs);
  if (!q.clear.empty()) f.clear_table = ports(q.clear, f.clear_in, f.clear_inputs);
  if (!q.preset.empty()) f.preset_table = ports(q.preset, f.preset_in, f.preset_inputs);
  f.both = q.clear_preset_var1;
  if (f.clear_table && f.preset_table && f.both != 'L' && f.both != 'H') {
    throw SimError(fmt::format("cell {}: clear_preset_var1 '{}' is not L or H", g.cell, f.both));
  }
  flops_.push_back(f);
  return int(flops_.size()) - 1;
}

// The node of output pin `p` of a gate: a function of its inputs, or of its flip-flop's state.
GateSim::Node GateSim::output_node(const Gate& g, const Liberty& lib, const LibertyCell& cell,
                                   const LibertyPin& p, int out,
                                   const std::map<std::string, int>& pin_net, int flop,
                                   const std::vector<std::string>& state_vars) const {
  const LibertyFunc f = parse_liberty_func(p.function, lib.path + ": cell " + g.cell);
  Node node;
  node.out = out;
  if (flop >= 0) {
    // A function of the state: the state itself or its inverse.
    const std::vector<std::string> ports = f.ports();
    if (ports.size() != 1 ||
        std::find(state_vars.begin(), state_vars.end(), ports[0]) == state_vars.end()) {
      throw SimError(
          fmt::format("output {} of cell {} is \"{}\", not its state", p.name, g.cell, p.function));
    }
    node.kind = Node::kFlop;
    node.flop = flop;
    // table bit 0: the output when the state is 0; bit 1: when it is 1.
    const std::string& iq = cell.state->state;
    for (int s = 0; s < 2; ++s) {
      const bool v = f.eval([&](const std::string& v) { return (v == iq) == (s == 1); });
      if (v) node.table |= uint64_t{1} << s;
    }
    const Flop& fl = flops_[size_t(flop)];
    for (int i = 0; i < fl.clear_inputs; ++i) node.in[node.inputs++] = fl.clear_in[i];
    for (int i = 0; i < fl.preset_inputs; ++i) node.in[node.inputs++] = fl.preset_in[i];
  } else {
    const std::vector<std::string> ports = in_nets(g, pin_net, f, node.in, node.inputs, {});
    node.table = truth_table(f, ports);
  }
  return node;
}

void GateSim::add_cell(const Gate& g, const Liberty& lib, std::vector<int>& driver,
                       std::vector<int>& clock_pins) {
  const LibertyCell& cell = lib.cell(g.cell);
  std::map<std::string, int> pin_net;
  std::vector<int> nets;
  for (const auto& [pin, n] : g.pins) {
    const LibertyPin* p = cell.pin(pin);
    if (!p) throw SimError(fmt::format("cell {} has no pin {}", g.cell, pin));
    pin_net[pin] = id_.at(n);
    nets.push_back(id_.at(n));
  }
  gate_nets_.push_back(std::move(nets));
  int flop = -1;
  std::vector<std::string> state_vars;
  if (cell.state) {
    const LibertySequential& q = *cell.state;
    if (q.latch) {
      throw SimError(
          fmt::format("cell {} is a latch; the simulator takes flip-flops only", g.cell));
    }
    state_vars = {q.state, q.state_inverted};
    flop = add_flop(g, q, pin_net, state_vars, clock_pins);
  }
  for (const LibertyPin& p : cell.pins) {
    if (p.direction != "output") continue;
    const auto it = pin_net.find(p.name);
    if (it == pin_net.end()) continue;  // an unconnected output
    if (!p.three_state.empty()) {
      throw SimError(
          fmt::format("cell {} has a tristate output; the simulator takes none", g.cell));
    }
    if (p.function.empty()) {
      throw SimError(fmt::format("output {} of cell {} has no function", p.name, g.cell));
    }
    const Node node = output_node(g, lib, cell, p, it->second, pin_net, flop, state_vars);
    if (driver[size_t(node.out)] != -1) {
      throw SimError(fmt::format("net {} has more than one driver", names_[size_t(node.out)]));
    }
    driver[size_t(node.out)] = int(nodes_.size());
    nodes_.push_back(node);
  }
}

// The clock network: from the clock port through cells of one input that copy it; every
// flip-flop clocked from it, none fed by it.
void GateSim::trace_clock(const std::string& clock, const std::vector<int>& clock_pins,
                          std::vector<int>& driver) {
  const size_t n_nets = names_.size();
  if (!clock.empty() && id_.count(clock)) {
    std::vector<std::vector<int>> readers(n_nets);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (int k = 0; k < nodes_[i].inputs; ++k) readers[size_t(nodes_[i].in[k])].push_back(int(i));
    }
    std::vector<int> work = {id_.at(clock)};
    clock_net_[size_t(work[0])] = 1;
    while (!work.empty()) {
      const int n = work.back();
      work.pop_back();
      for (int r : readers[size_t(n)]) {
        const Node& node = nodes_[size_t(r)];
        if (node.kind != Node::kComb || node.inputs != 1 || node.table != 0b10) {
          throw SimError(fmt::format(
              "the clock reaches net {} through a cell that is not a buffer (a gated or "
              "inverted clock); the simulator takes a buffered clock only",
              names_[size_t(node.out)]));
        }
        if (!clock_net_[size_t(node.out)]) {
          clock_net_[size_t(node.out)] = 1;
          work.push_back(node.out);
        }
      }
    }
  }
  for (int ck : clock_pins) {
    if (!clock_net_[size_t(ck)]) {
      throw SimError(fmt::format("a flip-flop is clocked by net {}, which is not the clock {}",
                                 names_[size_t(ck)], clock.empty() ? "(none)" : clock));
    }
  }
  for (const Flop& f : flops_) {
    for (int i = 0; i < f.next_inputs; ++i) {
      if (clock_net_[size_t(f.next_in[i])]) throw SimError("a flip-flop's data is the clock");
    }
  }
  // The clock network is not evaluated: its nets stay 0.
  std::erase_if(nodes_, [&](const Node& n) { return clock_net_[size_t(n.out)] != 0; });
  for (size_t i = 0; i < nodes_.size(); ++i) driver[size_t(nodes_[i].out)] = int(i);
  for (size_t i = 0; i < n_nets; ++i) {
    if (driver[i] == -1 && !clock_net_[i]) {
      driver[i] = -2;  // undriven (an unused input of a black box, say): stays 0
    }
  }
}

void GateSim::sort_nodes(const std::vector<int>& driver) {
  // Topological order (Kahn): a node after the nodes driving its inputs.
  const size_t n_nodes = nodes_.size();
  std::vector<int> pending(n_nodes, 0);
  std::vector<std::vector<int>> users(n_nodes);
  for (size_t i = 0; i < n_nodes; ++i) {
    for (int k = 0; k < nodes_[i].inputs; ++k) {
      const int d = driver[size_t(nodes_[i].in[k])];
      if (d >= 0) {
        ++pending[i];
        users[size_t(d)].push_back(int(i));
      }
    }
  }
  std::vector<int> order;
  order.reserve(n_nodes);
  for (size_t i = 0; i < n_nodes; ++i) {
    if (pending[i] == 0) order.push_back(int(i));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (int u : users[size_t(order[k])]) {
      if (--pending[size_t(u)] == 0) order.push_back(u);
    }
  }
  if (order.size() != n_nodes) {
    for (size_t i = 0; i < n_nodes; ++i) {
      if (pending[i] > 0) {
        throw SimError(
            fmt::format("a combinational loop through net {}", names_[size_t(nodes_[i].out)]));
      }
    }
  }
  std::vector<Node> sorted;
  sorted.reserve(n_nodes);
  for (int i : order) sorted.push_back(nodes_[size_t(i)]);
  nodes_ = std::move(sorted);
}

GateSim::Memory GateSim::memory_of(const Gate& g) const {
  // Its pins by bus: "waddr_i[3]" is bit 3 of waddr_i; a one-bit pin has no index.
  std::map<std::string, std::map<int, int>> buses;
  for (const auto& [pin, n] : g.pins) {
    const size_t open = pin.find('[');
    int bit = 0;
    if (open != std::string::npos) {
      try {
        bit = std::stoi(pin.substr(open + 1));
      } catch (const std::exception&) {
        bit = -1;
      }
    }
    if (bit < 0 || !buses[pin.substr(0, open)].emplace(bit, id_.at(n)).second) {
      throw SimError(fmt::format("memory {}: pin {} is not a bit of a port", g.cell, pin));
    }
  }
  const auto take = [&](const char* port, bool one_bit) {
    const auto it = buses.find(port);
    if (it == buses.end()) {
      throw SimError(fmt::format(
          "memory {} has no pin {}; a memory has the ports of rtl/oasis_sram.sv (clk_i, we_i, "
          "waddr_i, wlane_i, wdata_i, re_i, raddr_i, rdata_o)",
          g.cell, port));
    }
    std::vector<int> nets;
    for (const auto& [bit, net] : it->second) {
      if (bit != int(nets.size())) {
        throw SimError(fmt::format("memory {}: port {} has no bit {}", g.cell, port, nets.size()));
      }
      nets.push_back(net);
    }
    if (one_bit && nets.size() != 1) {
      throw SimError(fmt::format("memory {}: port {} is not one bit", g.cell, port));
    }
    buses.erase(it);
    return nets;
  };
  Memory m;
  m.clk = take("clk_i", true)[0];
  m.we = take("we_i", true)[0];
  m.re = take("re_i", true)[0];
  m.waddr = take("waddr_i", false);
  m.wlane = take("wlane_i", false);
  m.wdata = take("wdata_i", false);
  m.raddr = take("raddr_i", false);
  m.rdata = take("rdata_o", false);
  if (!buses.empty()) {
    throw SimError(fmt::format("memory {} has a pin {} that rtl/oasis_sram.sv has not", g.cell,
                               buses.begin()->first));
  }
  const size_t width = m.rdata.size(), lanes = m.wlane.size();
  if (m.wdata.size() != width || width % lanes != 0 || m.raddr.size() != m.waddr.size() ||
      m.raddr.size() > 24) {
    throw SimError(fmt::format(
        "memory {}: wdata_i of {} bits, rdata_o of {}, {} lanes, addresses of {} and {} bits; "
        "allowed: equal data widths, a whole number of bits a lane, equal addresses of at "
        "most 24 bits",
        g.cell, m.wdata.size(), width, lanes, m.waddr.size(), m.raddr.size()));
  }
  m.count.cell = g.cell;
  m.count.width = int(width);
  m.count.lanes = int(lanes);
  m.count.addr_bits = int(m.raddr.size());
  m.words.assign(width << m.raddr.size(), 0);
  m.out.assign(width, 0);
  return m;
}

uint64_t GateSim::bus(const std::vector<int>& nets) const {
  uint64_t v = 0;
  for (size_t k = 0; k < nets.size(); ++k) v |= uint64_t(value_[size_t(nets[k])]) << k;
  return v;
}

void GateSim::memory_edge(Memory& m) {
  // The read takes the word as it was before this edge's write (docs/sram.md).
  const size_t width = m.rdata.size(), lane = width / m.wlane.size();
  if (value_[size_t(m.re)]) {
    const size_t base = size_t(bus(m.raddr)) * width;
    std::copy(m.words.begin() + long(base), m.words.begin() + long(base + width), m.out.begin());
    m.count.reads += counting_;
  }
  if (value_[size_t(m.we)]) {
    const size_t base = size_t(bus(m.waddr)) * width;
    for (size_t l = 0; l < m.wlane.size(); ++l) {
      if (!value_[size_t(m.wlane[l])]) continue;
      for (size_t b = l * lane; b < (l + 1) * lane; ++b)
        m.words[base + b] = value_[size_t(m.wdata[b])];
      m.count.lane_writes += counting_;
    }
  }
}

std::vector<MemoryAccesses> GateSim::memory_accesses() const {
  std::vector<MemoryAccesses> v;
  for (const Memory& m : memories_) v.push_back(m.count);
  return v;
}

uint64_t GateSim::index(const int* in, int n) const {
  uint64_t ix = 0;
  for (int k = 0; k < n; ++k) ix |= uint64_t(value_[size_t(in[k])]) << k;
  return ix;
}

bool GateSim::effective(const Flop& f) const {
  const bool clear = f.clear_table && ((f.clear_table >> index(f.clear_in, f.clear_inputs)) & 1);
  const bool preset =
      f.preset_table && ((f.preset_table >> index(f.preset_in, f.preset_inputs)) & 1);
  if (clear && preset) return f.both == 'H';
  if (clear) return false;
  if (preset) return true;
  return f.state;
}

void GateSim::settle() {
  for (const Node& n : nodes_) {
    if (n.kind == Node::kComb) {
      value_[size_t(n.out)] = uint8_t((n.table >> index(n.in, n.inputs)) & 1);
    } else {
      // An active clear or preset sets the state at once, edge or not.
      Flop& f = flops_[size_t(n.flop)];
      f.state = effective(f);
      value_[size_t(n.out)] = uint8_t((n.table >> (f.state ? 1 : 0)) & 1);
    }
  }
}

void GateSim::clock_edge() {
  // Every next state from the settled values first, then all at once.
  std::vector<uint8_t> next(flops_.size());
  for (size_t i = 0; i < flops_.size(); ++i) {
    const Flop& f = flops_[i];
    next[i] = uint8_t((f.next_table >> index(f.next_in, f.next_inputs)) & 1);
  }
  for (size_t i = 0; i < flops_.size(); ++i) {
    Flop& f = flops_[i];
    f.state = next[i] != 0;
    f.state = effective(f);  // an active clear or preset wins over the edge
  }
  // The memories from the same settled values; their read registers drive their outputs.
  for (Memory& m : memories_) memory_edge(m);
  for (const Memory& m : memories_) {
    for (size_t b = 0; b < m.rdata.size(); ++b) value_[size_t(m.rdata[b])] = m.out[b];
  }
}

std::vector<VectorPort> read_vector_header(const std::string& first_line, const fs::path& file) {
  const std::vector<std::string> w = split(first_line);
  if (w.size() < 2 || w[0] != "#" || w[1] != "ports:") {
    throw SimError(fmt::format("{}: the first line is not a '# ports:' header of a recorded run",
                               file.string()));
  }
  std::vector<VectorPort> ports;
  for (size_t i = 2; i < w.size(); ++i) {
    const size_t a = w[i].find(':'), b = w[i].rfind(':');
    if (a == std::string::npos || a == b) {
      throw SimError(fmt::format("{}: port '{}' is not direction:name:width", file.string(), w[i]));
    }
    VectorPort p;
    const std::string dir = w[i].substr(0, a);
    p.input = dir == "in";
    p.name = w[i].substr(a + 1, b - a - 1);
    try {
      p.width = std::stoi(w[i].substr(b + 1));
    } catch (const std::exception&) {
      p.width = 0;
    }
    if ((dir != "in" && dir != "out") || p.width <= 0) {
      throw SimError(fmt::format("{}: port '{}' is not direction:name:width", file.string(), w[i]));
    }
    ports.push_back(p);
  }
  return ports;
}

NetActivity simulate_vectors(GateSim& sim, const GateNetlist& nl, const fs::path& vectors,
                             int64_t begin, int64_t end) {
  std::ifstream in(vectors);
  if (!in) throw SimError(fmt::format("cannot read the vector file {}", vectors.string()));
  std::string line;
  std::getline(in, line);
  const std::vector<VectorPort> ports = read_vector_header(line, vectors);
  // Each port bit's net: "name[i]", or "name" for a one-bit port; an input bit the netlist
  // does not read is not in it.
  const auto bit_net = [&](const VectorPort& p, int b) {
    int n = sim.net(fmt::format("{}[{}]", p.name, b));
    if (n < 0 && p.width == 1) n = sim.net(p.name);
    return n;
  };
  std::vector<std::vector<int>> nets(ports.size());
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < ports.size(); ++i) {
    index[ports[i].name] = i;
    for (int b = 0; b < ports[i].width; ++b) {
      const int n = bit_net(ports[i], b);
      if (n < 0 && !ports[i].input) {
        throw SimError(fmt::format("output {} bit {} of {} is not in the netlist {}", ports[i].name,
                                   b, vectors.string(), nl.model));
      }
      nets[i].push_back(n);
    }
  }
  std::vector<int> qualifier(ports.size(), -1);
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i].input) continue;
    const std::string q =
        gen::output_qualifier(ports[i].name, ports[i].width, [&](const std::string& name) {
          const auto it = index.find(name);
          return it != index.end() && !ports[it->second].input;
        });
    if (!q.empty()) qualifier[i] = int(index.at(q));
  }
  const auto rst = index.find("rst_ni");
  bool armed = rst == index.end() || !ports[rst->second].input;

  NetActivity a;
  a.begin = begin;
  const size_t n = size_t(sim.nets());
  a.toggles.assign(n, 0);
  a.high.assign(n, 0);
  std::vector<uint8_t> prev(n, 0);
  int64_t cycle = 0;
  std::vector<std::string> w;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    w = split(line);
    if (w.size() != ports.size()) {
      throw SimError(fmt::format("{}: line {} has {} values for {} ports", vectors.string(),
                                 cycle + 2, w.size(), ports.size()));
    }
    bool ok = true;
    for (size_t i = 0; i < ports.size(); ++i) {
      if (!ports[i].input) continue;
      for (int b = 0; b < ports[i].width; ++b) {
        const int net = nets[i][size_t(b)];
        if (net >= 0 && !sim.is_clock(net) && !sim.is_constant(net))
          sim.set(net, hex_bit(w[i], b, ok));
      }
    }
    if (!ok) {
      throw SimError(fmt::format("{}: line {} holds a value that is not hex of its port's width",
                                 vectors.string(), cycle + 2));
    }
    if (rst != index.end() && !armed) armed = !hex_bit(w[rst->second], 0, ok);
    sim.settle();
    // The outputs against the recorded run.
    if (armed) {
      for (size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].input) continue;
        const bool looked_at = qualifier[i] < 0 || hex_bit(w[size_t(qualifier[i])], 0, ok);
        for (int b = 0; b < ports[i].width; ++b) {
          const bool want = hex_bit(w[i], b, ok);
          const bool got = sim.value(nets[i][size_t(b)]);
          if (want == got) {
            ++a.output_bits_compared;
          } else if (!looked_at) {
            ++a.output_bits_tolerated;
          } else {
            throw SimError(fmt::format(
                "the netlist's simulation differs from the recorded run in cycle {}: {} bit {} "
                "is {}, recorded {} ({})",
                cycle, ports[i].name, b, got ? 1 : 0, want ? 1 : 0, vectors.string()));
          }
        }
      }
    }
    // The samples.
    const bool in_window = cycle >= begin && (end < 0 || cycle < end);
    const std::vector<uint8_t>& v = sim.values();
    if (in_window) {
      for (size_t k = 0; k < n; ++k) {
        a.toggles[k] += uint32_t((v[k] ^ prev[k]) & uint8_t(cycle > 0));
        a.high[k] += v[k];
      }
    }
    std::copy(v.begin(), v.end(), prev.begin());
    sim.count_accesses(in_window);
    sim.clock_edge();
    ++cycle;
  }
  a.lines = cycle;
  a.end = end < 0 ? cycle : end;
  if (a.end > cycle || begin < 0 || begin > a.end) {
    throw SimError(fmt::format("{}: the window [{}, {}) does not lie in its {} cycles",
                               vectors.string(), begin, a.end, cycle));
  }
  return a;
}

}  // namespace oasis::ppa
