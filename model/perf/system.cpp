// SPDX-License-Identifier: Apache-2.0
#include "model/perf/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "model/derived.hpp"
#include "model/io/input.hpp"

namespace oasis {
namespace {

using json = nlohmann::json;

json read_doc(const std::string& path, const std::string& what) {
  constexpr JsonLimits kLimits{1u << 20, 16};
  try {
    return parse_json_input(read_input_file(path, kLimits.max_bytes), kLimits);
  } catch (const JsonInputError& e) {
    throw ConfigError(fmt::format("{} {}: {}", what, path, e.what()));
  }
}

// A field of `obj`, by its path for the message ("memory file F: field \"a.b\" ...").
struct Reader {
  std::string what, path;
  const json& at(const json& obj, const std::string& key, const std::string& name) const {
    if (!obj.is_object() || !obj.contains(key)) {
      throw ConfigError(fmt::format("{} {}: field \"{}\" missing", what, path, name));
    }
    return obj.at(key);
  }
  std::string text(const json& obj, const std::string& key, const std::string& name) const {
    const json& v = at(obj, key, name);
    if (!v.is_string() || v.get<std::string>().empty()) {
      throw ConfigError(
          fmt::format("{} {}: field \"{}\" is not a non-empty string", what, path, name));
    }
    return v.get<std::string>();
  }
  double number(const json& obj, const std::string& key, const std::string& name, double lo,
                double hi) const {
    const json& v = at(obj, key, name);
    const double x = v.is_number() ? v.get<double>() : std::nan("");
    if (!(x >= lo && x <= hi)) {
      throw ConfigError(
          fmt::format("{} {}: field \"{}\" is {}; allowed: a number from {:g} to {:g}", what, path,
                      name, json_excerpt(v), lo, hi));
    }
    return x;
  }
};

LineEnergy read_line(const Reader& r, const json& doc, const std::string& key) {
  const json& obj = r.at(doc, key, key);
  LineEnergy line;
  line.design = key;
  line.source = r.text(obj, "source", key + ".source");
  const json& pts = r.at(obj, "points", key + ".points");
  if (!pts.is_array() || pts.empty() || pts.size() > 2) {
    throw ConfigError(fmt::format("{} {}: field \"{}.points\" must hold one or two measurements",
                                  r.what, r.path, key));
  }
  for (size_t i = 0; i < pts.size(); ++i) {
    const std::string n = fmt::format("{}.points[{}].", key, i);
    LinePoint p;
    p.products_per_cycle = r.number(pts[i], "products_per_cycle", n + "products_per_cycle", 1, 1e7);
    p.area_um2 = r.number(pts[i], "area_um2", n + "area_um2", 1, 1e12);
    p.clock_mw = r.number(pts[i], "clock_mw", n + "clock_mw", 0, 1e6);
    p.pj_per_product = r.number(pts[i], "pj_per_product", n + "pj_per_product", 1e-3, 1e6);
    p.pj_per_product_arc =
        r.number(pts[i], "pj_per_product_arc", n + "pj_per_product_arc", 1e-3, 1e6);
    line.points.push_back(p);
  }
  if (line.points.size() == 2 &&
      line.points[0].products_per_cycle == line.points[1].products_per_cycle) {
    throw ConfigError(fmt::format("{} {}: field \"{}.points\": two measurements of one size",
                                  r.what, r.path, key));
  }
  return line;
}

int64_t ceil_bytes(int64_t bits) { return (bits + 7) / 8; }

// The memory's cost of moving `bytes` at its bandwidth, cycles of the core's clock.
int64_t memory_cycles(int64_t bytes, const SystemOptions& o) {
  if (o.memory.unlimited()) return 0;
  const double per_cycle = o.memory.gb_per_s * 1e9 / o.clock_hz;
  return int64_t(std::ceil(double(bytes) / per_cycle));
}
int64_t latency_cycles(const SystemOptions& o) {
  return int64_t(std::ceil(o.memory.latency_ns * 1e-9 * o.clock_hz));
}

// The bytes every design moves: the weights in their stored form (nW bits a weight, one
// binary16 scale a row: the PE line's indices and the FIGLUT-class line's planes alike), the
// binary16 token read once a token and the binary16 outputs written.
void traffic(LayerCost& L, const Config& c) {
  const int storage_bytes = derive(c).storage.width() / 8;
  L.products = int64_t(L.tokens) * L.rows * L.channels;
  L.weight_bytes = int64_t(L.tokens) *
                   (ceil_bytes(L.rows * L.channels * c.weight_bits) + storage_bytes * L.rows);
  L.act_bytes = int64_t(L.tokens) * L.channels * storage_bytes;
  L.out_bytes = int64_t(L.tokens) * L.rows * storage_bytes;
}

// The layer's energy by part, once its cycles are known.
void energy(LayerCost& L, int lines, const LinePoint& line, const EnergySpec& e,
            const SystemOptions& o) {
  const double pj = o.arc_weighted ? line.pj_per_product_arc : line.pj_per_product;
  L.energy.compute = double(L.products) * pj * 1e-12;
  // Line-cycles the lines are not doing the products' work: each line's clock network runs.
  const double busy = double(L.products) / line.products_per_cycle;
  const double idle = std::max(0.0, double(L.cycles) * lines - busy);
  L.energy.idle = idle * line.clock_mw * 1e-3 * e.period_ns * 1e-9;
  const int64_t bytes = L.weight_bytes + L.act_bytes + L.out_bytes;
  L.energy.dram = double(bytes) * 8 * o.memory.pj_per_bit * 1e-12;
  L.energy.sram = double(L.act_bytes + L.out_bytes) * 8 * e.sram_pj_per_bit * 1e-12;
}

// A group of layers sharing a token context, as one layer of their rows together.
LayerCost group_layer(const ModelShape& shape, const std::vector<size_t>& g, int tokens) {
  LayerCost L;
  for (size_t i : g) {
    L.name += (L.name.empty() ? "" : "+") + shape.linear[i].name;
    L.rows += shape.linear[i].out;
  }
  L.channels = shape.linear[g[0]].in;
  L.tokens = tokens;
  return L;
}

void finish(DesignRun& run, const ModelShape& shape) {
  run.decoder_layers = shape.layers;
  int64_t cycles = 0, bytes = 0;
  EnergyParts e;
  for (const LayerCost& L : run.block) {
    cycles += L.cycles;
    bytes += L.weight_bytes + L.act_bytes + L.out_bytes;
    e += L.energy;
  }
  run.cycles = cycles * shape.layers;
  run.bytes = bytes * shape.layers;
  run.energy = {e.compute * shape.layers, e.idle * shape.layers, e.dram * shape.layers,
                e.sram * shape.layers};
}

}  // namespace

EnergyParts& EnergyParts::operator+=(const EnergyParts& o) {
  compute += o.compute;
  idle += o.idle;
  dram += o.dram;
  sram += o.sram;
  return *this;
}

MemorySpec load_memory(const std::string& path) {
  const json doc = read_doc(path, "memory file");
  const Reader r{"memory file", path};
  MemorySpec m;
  m.name = r.text(doc, "name", "name");
  m.gb_per_s = r.number(doc, "gb_per_s", "gb_per_s", 0.1, 1e5);
  m.latency_ns = r.number(doc, "latency_ns", "latency_ns", 0, 1e4);
  m.pj_per_bit = r.number(doc, "pj_per_bit", "pj_per_bit", 0.01, 1e3);
  m.bandwidth_source = r.text(doc, "gb_per_s_source", "gb_per_s_source");
  m.latency_source = r.text(doc, "latency_ns_source", "latency_ns_source");
  m.energy_source = r.text(doc, "pj_per_bit_source", "pj_per_bit_source");
  return m;
}

MemorySpec unlimited_memory() {
  MemorySpec m;
  m.name = "unlimited";
  return m;
}

EnergySpec load_energy(const std::string& path) {
  const json doc = read_doc(path, "energy file");
  const Reader r{"energy file", path};
  EnergySpec e;
  e.path = path;
  e.library = r.text(doc, "library", "library");
  e.period_ns = r.number(doc, "period_ns", "period_ns", 0.01, 1e6);
  e.activity = r.text(doc, "activity", "activity");
  e.sram_pj_per_bit = r.number(doc, "sram_pj_per_bit", "sram_pj_per_bit", 0, 1e3);
  e.sram_source = r.text(doc, "sram_pj_per_bit_source", "sram_pj_per_bit_source");
  e.pe_line = read_line(r, doc, "pe_line");
  e.woq_lut_line = read_line(r, doc, "woq_lut_line_baseline");
  return e;
}

LinePoint line_at(const LineEnergy& line, double x) {
  for (const LinePoint& p : line.points) {
    if (p.products_per_cycle == x) return p;
  }
  LinePoint out;
  out.products_per_cycle = x;
  if (line.points.size() == 1) {
    const LinePoint& p = line.points[0];
    const double s = x / p.products_per_cycle;
    out.area_um2 = p.area_um2 * s;
    out.clock_mw = p.clock_mw * s;
    out.pj_per_product = p.pj_per_product;
    out.pj_per_product_arc = p.pj_per_product_arc;
    return out;
  }
  const LinePoint& a = line.points[0];
  const LinePoint& b = line.points[1];
  const auto linear = [&](double ya, double yb) {
    return ya +
           (yb - ya) * (x - a.products_per_cycle) / (b.products_per_cycle - a.products_per_cycle);
  };
  // y = c + d / x through both points.
  const auto hyperbolic = [&](double ya, double yb) {
    const double d = (ya - yb) / (1 / a.products_per_cycle - 1 / b.products_per_cycle);
    return ya - d / a.products_per_cycle + d / x;
  };
  out.area_um2 = linear(a.area_um2, b.area_um2);
  out.clock_mw = linear(a.clock_mw, b.clock_mw);
  out.pj_per_product = hyperbolic(a.pj_per_product, b.pj_per_product);
  out.pj_per_product_arc = hyperbolic(a.pj_per_product_arc, b.pj_per_product_arc);
  return out;
}

std::string sizing_name(Sizing s) {
  return s == Sizing::kPaperConfig ? "as many lines as PE lines" : "equal line area";
}

double line_products_per_cycle(const Config& c) {
  return double(c.channels) / double(derive(c).row.row);
}

int figlut_lines(const Config& c, const EnergySpec& e, Sizing s) {
  if (s == Sizing::kPaperConfig) return c.pe_lines;
  const double x = line_products_per_cycle(c);
  const double pe = line_at(e.pe_line, x).area_um2 * c.pe_lines;
  return std::max(1, int(std::floor(pe / line_at(e.woq_lut_line, x).area_um2)));
}

std::vector<std::vector<size_t>> shared_contexts(const ModelShape& shape) {
  // The projections that read one token: attention's q, k and v, and the MLP's gate and up.
  const std::map<std::string, std::string> kShared = {
      {"q", "qkv"}, {"k", "qkv"}, {"v", "qkv"}, {"gate", "gate_up"}, {"up", "gate_up"}};
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> where;
  for (size_t i = 0; i < shape.linear.size(); ++i) {
    const auto it = kShared.find(shape.linear[i].name);
    if (it != kShared.end() && where.count(it->second)) {
      std::vector<size_t>& g = groups[where[it->second]];
      if (shape.linear[g[0]].in != shape.linear[i].in) {
        throw ConfigError(fmt::format(
            "model {}: layers \"{}\" (in {}) and \"{}\" (in {}) read one token but differ in K",
            shape.name, shape.linear[g[0]].name, shape.linear[g[0]].in, shape.linear[i].name,
            shape.linear[i].in));
      }
      g.push_back(i);
      continue;
    }
    if (it != kShared.end()) where[it->second] = groups.size();
    groups.push_back({i});
  }
  return groups;
}

DesignRun oasis_run(const Config& c, const ModelShape& shape, int tokens, const EnergySpec& e,
                    const SystemOptions& o) {
  DesignRun run;
  run.design = "OASIS";
  run.lines = c.pe_lines;
  run.line = line_at(e.pe_line, line_products_per_cycle(c));
  run.area_um2 = run.line.area_um2 * run.lines;
  const double bytes_per_cycle = o.memory.unlimited() ? 0 : o.memory.gb_per_s * 1e9 / o.clock_hz;
  for (const auto& g : shared_contexts(shape)) {
    LayerCost L = group_layer(shape, g, tokens);
    const Config lc = L.channels == c.channels ? c : with_channels(c, L.channels);
    L.compute_cycles = layer_perf(lc, L.rows, PerfOptions{tokens, 0}).cycles;
    const LayerPerf limited = layer_perf(lc, L.rows, PerfOptions{tokens, bytes_per_cycle});
    L.cycles = limited.cycles + (o.memory.unlimited() ? 0 : latency_cycles(o));
    L.memory_bound = limited.token.interval_bound == PerfPhase::kMemory;
    traffic(L, lc);
    energy(L, run.lines, run.line, e, o);
    run.block.push_back(L);
  }
  finish(run, shape);
  return run;
}

DesignRun figlut_run(const Config& c, const ModelShape& shape, int tokens, int lines,
                     const EnergySpec& e, const SystemOptions& o) {
  DesignRun run;
  run.design = "FIGLUT-class";
  run.lines = lines;
  run.line = line_at(e.woq_lut_line, line_products_per_cycle(c));
  run.area_um2 = run.line.area_um2 * run.lines;
  for (const auto& g : shared_contexts(shape)) {
    LayerCost L = group_layer(shape, g, tokens);
    const Config lc = L.channels == c.channels ? c : with_channels(c, L.channels);
    L.compute_cycles = woq_lut_layer_perf(lc, (L.rows + lines - 1) / lines, tokens).cycles;
    traffic(L, lc);
    // The lines take the weights as the memory delivers them: the layer takes the longer of its
    // compute and its weight stream, after the memory's first data (the token's bytes are not
    // in it, as layer_perf's memory bound leaves them out of OASIS's).
    const int64_t stream = memory_cycles(L.weight_bytes, o);
    L.memory_bound = stream > L.compute_cycles;
    L.cycles = std::max(L.compute_cycles, stream) + (o.memory.unlimited() ? 0 : latency_cycles(o));
    energy(L, lines, run.line, e, o);
    run.block.push_back(L);
  }
  finish(run, shape);
  return run;
}

}  // namespace oasis
