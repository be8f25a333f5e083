// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/netlist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>

namespace oasis::ppa {
namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  std::string t;
  while (in >> t) w.push_back(t);
  return w;
}

// "name[12]" -> ("name", 12); anything else -> (name, -1).
std::pair<std::string, int> port_bit(const std::string& bit) {
  if (bit.empty() || bit.back() != ']') return {bit, -1};
  const size_t open = bit.rfind('[');
  if (open == std::string::npos || open == 0) return {bit, -1};
  const std::string idx = bit.substr(open + 1, bit.size() - open - 2);
  if (idx.empty() || !std::all_of(idx.begin(), idx.end(), ::isdigit)) return {bit, -1};
  return {bit.substr(0, open), std::stoi(idx)};
}

bool plain_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

class UnionFind {
 public:
  int add(const std::string& name) {
    const auto [it, fresh] = ids_.emplace(name, int(parent_.size()));
    if (fresh) {
      parent_.push_back(int(parent_.size()));
      names_.push_back(name);
    }
    return it->second;
  }
  int find(int x) {
    while (parent_[size_t(x)] != x) x = parent_[size_t(x)] = parent_[size_t(parent_[size_t(x)])];
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[size_t(b)] = a;
  }
  int id(const std::string& name) const { return ids_.at(name); }
  bool has(const std::string& name) const { return ids_.count(name) != 0; }
  size_t size() const { return parent_.size(); }
  const std::string& name(int x) const { return names_[size_t(x)]; }

 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<int> parent_;
  std::vector<std::string> names_;
};

}  // namespace

GateNetlist parse_blif(const std::string& text, const std::string& where) {
  GateNetlist n;
  std::istringstream in(text);
  std::string raw, line;
  int lineno = 0, start = 0;
  bool ended = false;
  // A .names header waiting for its cover lines.
  std::vector<std::string> names;
  std::vector<std::string> cover;
  int names_line = 0;
  auto fail = [&](int at, const std::string& what) {
    throw NetlistError(fmt::format("{}:{}: {}", where, at, what));
  };
  auto flush_names = [&]() {
    if (names.empty()) return;
    if (names.size() == 1) {
      if (cover.empty()) {
        n.constants[names[0]] = false;
      } else if (cover.size() == 1 && cover[0] == "1") {
        n.constants[names[0]] = true;
      } else {
        fail(names_line, fmt::format("constant net '{}' with an unexpected cover", names[0]));
      }
    } else if (names.size() == 2 && cover.size() == 1 && cover[0] == "1 1") {
      n.copies.emplace_back(names[0], names[1]);
    } else {
      fail(names_line,
           "a logic cover (.names with logic): the netlist is not fully mapped to cells");
    }
    names.clear();
    cover.clear();
  };
  while (std::getline(in, raw)) {
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (line.empty()) start = lineno;
    if (!raw.empty() && raw.back() == '\\') {
      line += raw.substr(0, raw.size() - 1) + " ";
      continue;
    }
    line += raw;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::vector<std::string> w = split_words(line);
    line.clear();
    if (w.empty()) continue;
    if (w[0][0] != '.') {
      if (names.empty()) fail(start, fmt::format("'{}' outside a .names cover", w[0]));
      std::string c;
      for (const auto& x : w) c += (c.empty() ? "" : " ") + x;
      cover.push_back(c);
      continue;
    }
    flush_names();
    if (ended) fail(start, "more after .end (a second model?)");
    const std::string& kw = w[0];
    if (kw == ".model") {
      if (!n.model.empty()) fail(start, "a second .model");
      if (w.size() != 2) fail(start, ".model without one name");
      n.model = w[1];
    } else if (kw == ".inputs") {
      n.inputs.insert(n.inputs.end(), w.begin() + 1, w.end());
    } else if (kw == ".outputs") {
      n.outputs.insert(n.outputs.end(), w.begin() + 1, w.end());
    } else if (kw == ".names") {
      names.assign(w.begin() + 1, w.end());
      names_line = start;
      if (names.empty()) fail(start, ".names without a net");
    } else if (kw == ".gate" || kw == ".subckt") {
      if (w.size() < 2) fail(start, kw + " without a cell");
      Gate g;
      g.cell = w[1];
      for (size_t i = 2; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == w[i].size()) {
          fail(start, fmt::format("'{}' is not pin=net", w[i]));
        }
        g.pins.emplace_back(w[i].substr(0, eq), w[i].substr(eq + 1));
      }
      n.gates.push_back(std::move(g));
    } else if (kw == ".end") {
      ended = true;
    } else if (kw == ".cname" || kw == ".attr" || kw == ".param") {
      // names and attributes of cells: not needed
    } else {
      fail(start, fmt::format("unsupported BLIF construct '{}'", kw));
    }
  }
  flush_names();
  if (n.model.empty()) throw NetlistError(fmt::format("{}: no .model", where));
  return n;
}

GateNetlist read_blif(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NetlistError(fmt::format("cannot read {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_blif(ss.str(), path.string());
}

std::string plain_net(const std::string& net) {
  std::string n = net;
  const std::string flat = "$flatten\\";
  for (size_t at; (at = n.find(flat)) != std::string::npos;) n.erase(at, flat.size());
  if (!n.empty() && n[0] == '\\') n.erase(0, 1);
  return n;
}

NetlistStats netlist_stats(const GateNetlist& netlist, const Liberty& lib) {
  NetlistStats s;
  for (const Gate& g : netlist.gates) {
    const LibertyCell& cell = lib.cell(g.cell);
    CellCount& c = s.by_cell[g.cell];
    ++c.count;
    c.area += cell.area;
    ++s.total.count;
    s.total.area += cell.area;
    CellCount& kind = cell.sequential ? s.sequential : s.combinational;
    ++kind.count;
    kind.area += cell.area;
    for (const auto& [pin, net] : g.pins) {
      const LibertyPin* p = cell.pin(pin);
      if (p && p->direction == "output" && net.find("_bF$buf") != std::string::npos) {
        ++s.buffers.count;
        s.buffers.area += cell.area;
        break;
      }
    }
  }
  return s;
}

namespace {

const std::set<std::string> kKeywords = {
    "module",   "endmodule", "input",   "output",  "inout", "wire", "reg",  "assign",
    "begin",    "end",       "logic",   "always",  "if",    "else", "case", "for",
    "function", "task",      "not",     "and",     "or",    "nand", "nor",  "xor",
    "xnor",     "buf",       "supply0", "supply1", "tri"};

// A port of the netlist, a vector from its bits.
struct Port {
  std::string name;
  bool input;
  int width;  // -1: scalar
};

// The Verilog text of a netlist as it is written: the classes of connected nets and their
// names, the ports, the wires declared and the instances.
struct VerilogWriter {
  VerilogWriter(const GateNetlist& nl, const Liberty& lib,
                const std::map<std::string, std::set<std::string>>& boxes)
      : nl(nl), lib(lib), boxes(boxes) {}

  void join_nets();
  void add_port(const std::string& bit, bool input);
  void collect_ports();
  void name_classes();
  std::string fresh(const std::string& raw);
  std::string net_ref(const std::string& net);
  std::string pin_ref(const std::string& net);
  std::vector<std::pair<std::string, std::string>> box_connections(const Gate& g);
  void write_instance(const Gate& g);
  void write_text();

  const GateNetlist& nl;
  const Liberty& lib;
  const std::map<std::string, std::set<std::string>>& boxes;
  UnionFind uf;
  std::vector<Port> ports;
  std::map<std::string, size_t> port_index;
  std::map<std::string, std::set<int>> port_bits;
  std::vector<std::string> rep;  // each class's name
  std::vector<int> constant;
  std::vector<int> kind;  // 3 input port, 2 constant, 1 output port
  std::set<std::string> used;
  VerilogNetlist out;
  std::string body;
  std::set<std::string> wires_seen;
  std::vector<std::string> wires;
};

void VerilogWriter::join_nets() {
  for (const auto& b : nl.inputs) uf.add(b);
  for (const auto& b : nl.outputs) uf.add(b);
  for (const auto& [net, v] : nl.constants) uf.add(net);
  for (const auto& [a, b] : nl.copies) uf.unite(uf.add(a), uf.add(b));
  for (const Gate& g : nl.gates) {
    for (const auto& [pin, net] : g.pins) uf.add(net);
  }
}

void VerilogWriter::add_port(const std::string& bit, bool input) {
  const auto [base, idx] = port_bit(bit);
  if (!plain_identifier(base)) {
    throw NetlistError(fmt::format("port bit '{}' has no plain Verilog name", bit));
  }
  auto it = port_index.find(base);
  if (it == port_index.end()) {
    port_index[base] = ports.size();
    ports.push_back({base, input, idx < 0 ? -1 : 0});
    it = port_index.find(base);
  }
  Port& p = ports[it->second];
  if (p.input != input || (p.width < 0) != (idx < 0)) {
    throw NetlistError(fmt::format("port '{}' is declared twice in different ways", base));
  }
  if (idx >= 0) {
    if (!port_bits[base].insert(idx).second) {
      throw NetlistError(fmt::format("port bit '{}' twice", bit));
    }
    p.width = std::max(p.width, idx + 1);
  }
}

// Ports: vectors from their bits.
void VerilogWriter::collect_ports() {
  for (const auto& b : nl.inputs) add_port(b, true);
  for (const auto& b : nl.outputs) add_port(b, false);
  for (const Port& p : ports) {
    if (p.width > 0 && int(port_bits[p.name].size()) != p.width) {
      throw NetlistError(fmt::format("port '{}' lacks some of bits 0 .. {}", p.name, p.width - 1));
    }
  }
}

// Each class of connected nets gets one name: its input port bit, else its
// constant, else an output port bit, else a plain identifier.
void VerilogWriter::name_classes() {
  const size_t n_nets = uf.size();
  rep.assign(n_nets, std::string());
  constant.assign(n_nets, -1);
  kind.assign(n_nets, 0);
  for (const auto& [net, v] : nl.constants) {
    const int r = uf.find(uf.id(net));
    constant[size_t(r)] = v ? 1 : 0;
    if (kind[size_t(r)] < 2) kind[size_t(r)] = 2;
  }
  for (const auto& b : nl.inputs) {
    const int r = uf.find(uf.id(b));
    if (kind[size_t(r)] == 3) {
      throw NetlistError(fmt::format("input ports '{}' and '{}' are joined", rep[size_t(r)], b));
    }
    kind[size_t(r)] = 3;
    rep[size_t(r)] = b;
  }
  for (const auto& b : nl.outputs) {
    const int r = uf.find(uf.id(b));
    if (kind[size_t(r)] == 0) {
      kind[size_t(r)] = 1;
      rep[size_t(r)] = b;
    }
  }
  for (const Port& p : ports) used.insert(p.name);
}

// A plain identifier from a net's name, used by nothing else.
std::string VerilogWriter::fresh(const std::string& raw) {
  std::string s;
  std::string t = raw;
  for (const std::string drop : {"$flatten", "\\"}) {
    for (size_t at; (at = t.find(drop)) != std::string::npos;) t.erase(at, drop.size());
  }
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.') {
      s += "__";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      s += c;
    } else if (s.empty() || s.back() != '_') {
      s += '_';
    }
  }
  while (!s.empty() && s.front() == '_') s.erase(0, 1);
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || kKeywords.count(s)) {
    s = "n_" + s;
  }
  std::string name = s;
  for (int k = 1; used.count(name); ++k) name = fmt::format("{}_{}", s, k);
  used.insert(name);
  return name;
}

// Names of internal nets, in the order they first appear (deterministic).
std::string VerilogWriter::net_ref(const std::string& net) {
  const int r = uf.find(uf.id(net));
  if (kind[size_t(r)] == 2) return constant[size_t(r)] ? "1'b1" : "1'b0";
  if (rep[size_t(r)].empty()) rep[size_t(r)] = fresh(uf.name(r));
  return rep[size_t(r)];
}

// A pin's reference; an internal net is declared as a wire the first time.
std::string VerilogWriter::pin_ref(const std::string& net) {
  const std::string ref = net_ref(net);
  const int r = uf.find(uf.id(net));
  if (kind[size_t(r)] == 0 && wires_seen.insert(ref).second) wires.push_back(ref);
  return ref;
}

// The module's pins' bits gathered into one vector a port, bit i at position i.
std::vector<std::pair<std::string, std::string>> VerilogWriter::box_connections(const Gate& g) {
  std::vector<std::pair<std::string, std::string>> conns;  // (port, what it connects)
  std::map<std::string, std::map<int, std::string>> bits;
  for (const auto& [pin, net] : g.pins) {
    const auto [base, idx] = port_bit(pin);
    if (!bits[base].emplace(idx, pin_ref(net)).second) {
      throw NetlistError(fmt::format("{}: pin {} twice", g.cell, pin));
    }
  }
  for (const auto& [base, v] : bits) {
    if (v.size() == 1 && v.begin()->first < 0) {
      conns.emplace_back(base, v.begin()->second);
      continue;
    }
    const int top = v.rbegin()->first;
    if (v.begin()->first != 0 || int(v.size()) != top + 1) {
      throw NetlistError(fmt::format("{}: pin {} lacks some of bits 0 .. {}", g.cell, base, top));
    }
    std::string refs;
    for (auto it = v.rbegin(); it != v.rend(); ++it) {
      refs += (refs.empty() ? "{" : ", ") + it->second;
    }
    conns.emplace_back(base, refs + "}");
  }
  return conns;
}

void VerilogWriter::write_instance(const Gate& g) {
  // A module outside the library (an SRAM's) has its output ports named in `boxes`.
  const auto box = boxes.find(g.cell);
  const LibertyCell* cell = box == boxes.end() ? &lib.cell(g.cell) : nullptr;
  std::string first_out;
  for (const auto& [pin, net] : g.pins) {
    bool output;
    if (cell) {
      const LibertyPin* p = cell->pin(pin);
      if (!p) {
        throw NetlistError(
            fmt::format("cell {} has no pin {} (library {})", g.cell, pin, lib.path));
      }
      output = p->direction == "output";
    } else {
      output = box->second.count(port_bit(pin).first) > 0;
    }
    if (output && first_out.empty()) first_out = net;
  }
  // An instance name of its own (it shares the namespace with the nets).
  const std::string inst = fresh("u_" + (first_out.empty() ? g.cell : first_out));
  out.instance_net[inst] = first_out;
  out.gate_instance.push_back(inst);
  std::vector<std::pair<std::string, std::string>> conns;  // (port, what it connects)
  if (cell) {
    for (const auto& [pin, net] : g.pins) conns.emplace_back(pin, pin_ref(net));
  } else {
    conns = box_connections(g);
  }
  body += fmt::format("  {} {} (", g.cell, inst);
  for (size_t i = 0; i < conns.size(); ++i) {
    body += fmt::format("{}.{}({})", i ? ", " : "", conns[i].first, conns[i].second);
  }
  body += ");\n";
  ++out.instances;
}

void VerilogWriter::write_text() {
  const size_t n_nets = uf.size();
  for (size_t i = 0; i < n_nets; ++i) out.net_ref[uf.name(int(i))] = net_ref(uf.name(int(i)));
  // Output port bits not named by their class: copies of it.
  std::string assigns;
  for (const auto& b : nl.outputs) {
    const int r = uf.find(uf.id(b));
    const std::string ref = net_ref(b);
    if (ref != b) assigns += fmt::format("  assign {} = {};\n", b, ref);
    (void)r;
  }

  std::string& t = out.text;
  t.reserve(body.size() + wires.size() * 24 + 4096);
  t += fmt::format("module {} (", nl.model);
  for (size_t i = 0; i < ports.size(); ++i) t += (i ? ", " : "") + ports[i].name;
  t += ");\n";
  for (const Port& p : ports) {
    t += fmt::format("  {} {}{};\n", p.input ? "input" : "output",
                     p.width > 0 ? fmt::format("[{}:0] ", p.width - 1) : "", p.name);
  }
  for (const std::string& w : wires) t += fmt::format("  wire {};\n", w);
  t += body;
  t += assigns;
  t += "endmodule\n";
}

}  // namespace

VerilogNetlist write_verilog(const GateNetlist& nl, const Liberty& lib,
                             const std::map<std::string, std::set<std::string>>& boxes) {
  VerilogWriter w(nl, lib, boxes);
  w.join_nets();
  w.collect_ports();
  w.name_classes();
  for (const Gate& g : nl.gates) w.write_instance(g);
  w.write_text();
  return std::move(w.out);
}

}  // namespace oasis::ppa
