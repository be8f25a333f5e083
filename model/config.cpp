#include "model/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace oasis {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ConfigField integer(std::string key, std::string symbol, std::string meaning, std::string unit,
                    int64_t min, int64_t max, json fallback, bool power_of_two = false) {
  ConfigField f;
  f.key = std::move(key);
  f.type = "integer";
  f.symbol = std::move(symbol);
  f.meaning = std::move(meaning);
  f.unit = std::move(unit);
  f.min = min;
  f.max = max;
  f.power_of_two = power_of_two;
  f.fallback = std::move(fallback);
  f.allowed = power_of_two ? fmt::format("a power of two from {} to {}", min, max)
                           : fmt::format("an integer from {} to {}", min, max);
  return f;
}

std::vector<ConfigField> make_schema() {
  std::vector<ConfigField> s;
  ConfigField name;
  name.key = "name";
  name.type = "string";
  name.meaning =
      "Name of the configuration: generated modules are called oasis_<name>_<block>";
  name.unit = "-";
  name.allowed =
      "a lowercase SystemVerilog identifier of 1 to 32 characters: a letter, then letters, "
      "digits or '_' (no path separators)";
  s.push_back(name);
  s.push_back(integer("channels", "K", "Input channels of the GEMM, which is also the length of "
                      "a token and so Orizuru's N", "channels", 2, 65536, nullptr));
  s.push_back(integer("outliers_per_side", "k", "Outliers taken from each side of a token "
                      "(the k largest and the k smallest); 2k must not exceed channels",
                      "activations", 1, 32768, nullptr));
  s.push_back(integer("act_bits", "nA", "Activation index width: 2^nA activation centroids",
                      "bits", 1, 4, nullptr));
  s.push_back(integer("weight_bits", "nW", "Weight index width: 2^nW weight centroids", "bits",
                      1, 4, nullptr));
  s.push_back(integer("pe_lines", "P", "PE lines, each computing one output row at a time",
                      "lines", 1, 64, 16));
  s.push_back(integer("index_counters", "C", "Index Counters per PE line", "counters", 1, 64,
                      32));
  s.push_back(integer("counter_inputs", "I", "Concatenated indices one Index Counter takes per "
                      "cycle", "indices", 1, 64, 16));
  s.push_back(integer("mac_tree_inputs", "T", "Count x LUT-entry products the MAC tree reduces "
                      "per cycle", "inputs", 1, 256, 32));
  s.push_back(integer("comp_macs", "Mc", "Error-compensation MAC units per PE line", "MACs", 1,
                      64, 8));
  s.push_back(integer("clustering_lanes", "", "Activations the Clustering Units classify per "
                      "cycle", "activations/cycle", 1, 64, 4));
  s.push_back(integer("clustering_levels_per_stage", "", "Comparator levels of the Clustering "
                      "Unit's binary search between two pipeline registers", "levels", 1, 4, 1));
  s.push_back(integer("orizuru_unit_inputs", "R", "Inputs of one Orizuru unit; the tree is "
                      "composed of such units", "inputs", 2, 64, 16, true));
  s.push_back(integer("orizuru_levels_per_stage", "", "Comparator levels of the Orizuru tree "
                      "between two pipeline registers while the tree is built", "levels", 1, 16,
                      1));
  s.push_back(integer("fp_pipeline_stages", "", "Register stages inside each floating-point "
                      "adder and multiplier (0: combinational)", "stages", 0, 4, 1));
  s.push_back(integer("weight_beat_indices", "", "Weight indices carried by one beat of the "
                      "weight stream; at most channels", "indices", 1, 4096, 64));
  ConfigField acc;
  acc.key = "accumulator";
  acc.type = "enum";
  acc.meaning = "Accumulation format of the MAC tree and compensation MACs (fp16 is the "
                "paper's choice)";
  acc.unit = "-";
  acc.choices = {"fp32", "fp16"};
  acc.allowed = "one of \"fp32\", \"fp16\"";
  acc.fallback = "fp32";
  s.push_back(acc);
  return s;
}

[[noreturn]] void fail(const std::string& origin, const std::string& message) {
  throw ConfigError(fmt::format("config {}: {}", origin, message));
}

[[noreturn]] void fail_field(const std::string& origin, const ConfigField& f,
                             const std::string& found, const std::string& allowed = "") {
  fail(origin, fmt::format("field '{}': found {}; allowed: {}", f.key, found,
                           allowed.empty() ? f.allowed : allowed));
}

std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  const char* kind = v.is_string()    ? "a string"
                     : v.is_boolean() ? "a boolean"
                     : v.is_null()    ? "null"
                     : v.is_array()   ? "an array"
                     : v.is_object()  ? "an object"
                     : v.is_number_float() ? "a non-integer number"
                                           : "the number";
  return fmt::format("{} {}", kind, text);
}

bool is_lower_identifier(const std::string& s) {
  static const std::regex re("[a-z][a-z0-9_]{0,31}");
  return std::regex_match(s, re);
}

int64_t check_integer(const std::string& origin, const ConfigField& f, const json& v) {
  if (!v.is_number_integer()) fail_field(origin, f, describe(v));
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(f.max)) {
    fail_field(origin, f, describe(v));
  }
  const int64_t x = v.get<int64_t>();
  if (x < f.min || x > f.max) fail_field(origin, f, describe(v));
  if (f.power_of_two && (x & (x - 1)) != 0) fail_field(origin, f, describe(v));
  return x;
}

}  // namespace

const std::vector<ConfigField>& config_schema() {
  static const std::vector<ConfigField> schema = make_schema();
  return schema;
}

Config parse_config(const json& doc, const std::string& origin) {
  if (!doc.is_object()) fail(origin, fmt::format("found {}; allowed: a JSON object", describe(doc)));
  const auto& schema = config_schema();
  for (const auto& [key, value] : doc.items()) {
    const bool known = std::any_of(schema.begin(), schema.end(),
                                   [&](const ConfigField& f) { return f.key == key; });
    if (!known) {
      std::string keys;
      for (const auto& f : schema) keys += (keys.empty() ? "" : ", ") + f.key;
      fail(origin, fmt::format("unknown field '{}'; allowed fields: {}", key, keys));
    }
  }
  std::map<std::string, json> v;
  for (const auto& f : schema) {
    if (doc.contains(f.key)) {
      v[f.key] = doc.at(f.key);
    } else if (!f.fallback.is_null()) {
      v[f.key] = f.fallback;
    } else {
      fail(origin, fmt::format("field '{}' is missing; it is required: {} ({})", f.key, f.meaning,
                               f.allowed));
    }
  }
  Config c;
  std::map<std::string, int64_t> ints;
  for (const auto& f : schema) {
    const json& x = v.at(f.key);
    if (f.type == "integer") {
      ints[f.key] = check_integer(origin, f, x);
    } else if (f.type == "string") {
      if (!x.is_string() || !is_lower_identifier(x.get<std::string>())) {
        fail_field(origin, f, describe(x));
      }
      c.name = x.get<std::string>();
    } else {  // enum
      if (!x.is_string() ||
          std::find(f.choices.begin(), f.choices.end(), x.get<std::string>()) == f.choices.end()) {
        fail_field(origin, f, describe(x));
      }
      c.accumulator = x.get<std::string>() == "fp16" ? AccumulatorFormat::kFp16
                                                     : AccumulatorFormat::kFp32;
    }
  }
  c.channels = int(ints["channels"]);
  c.outliers_per_side = int(ints["outliers_per_side"]);
  c.act_bits = int(ints["act_bits"]);
  c.weight_bits = int(ints["weight_bits"]);
  c.pe_lines = int(ints["pe_lines"]);
  c.index_counters = int(ints["index_counters"]);
  c.counter_inputs = int(ints["counter_inputs"]);
  c.mac_tree_inputs = int(ints["mac_tree_inputs"]);
  c.comp_macs = int(ints["comp_macs"]);
  c.clustering_lanes = int(ints["clustering_lanes"]);
  c.clustering_levels_per_stage = int(ints["clustering_levels_per_stage"]);
  c.orizuru_unit_inputs = int(ints["orizuru_unit_inputs"]);
  c.orizuru_levels_per_stage = int(ints["orizuru_levels_per_stage"]);
  c.fp_pipeline_stages = int(ints["fp_pipeline_stages"]);
  c.weight_beat_indices = int(ints["weight_beat_indices"]);

  // Cross-field rules.
  const auto field = [&](const std::string& key) -> const ConfigField& {
    return *std::find_if(schema.begin(), schema.end(),
                         [&](const ConfigField& f) { return f.key == key; });
  };
  if (2 * int64_t(c.outliers_per_side) > c.channels) {
    fail_field(origin, field("outliers_per_side"), describe(v.at("outliers_per_side")),
               fmt::format("1 <= k and 2k <= channels ({}), so at most {}", c.channels,
                           c.channels / 2));
  }
  if (c.weight_beat_indices > c.channels) {
    fail_field(origin, field("weight_beat_indices"), describe(v.at("weight_beat_indices")),
               fmt::format("an integer from 1 to channels ({})", c.channels));
  }
  if (c.clustering_lanes > c.channels) {
    fail_field(origin, field("clustering_lanes"), describe(v.at("clustering_lanes")),
               fmt::format("an integer from 1 to channels ({})", c.channels));
  }
  return c;
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be read (no such file, or no permission)");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    fail(path, fmt::format("is not valid JSON: {}", e.what()));
  }
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError(fmt::format(
          "override '{}': expected key=value, e.g. act_bits=3 or accumulator=fp16", o));
    }
    const std::string key = o.substr(0, eq);
    const std::string value = o.substr(eq + 1);
    if (doc.is_object()) doc[key] = json::accept(value) ? json::parse(value) : json(value);
  }
  return parse_config(doc, path);
}

ordered_json to_json(const Config& c) {
  ordered_json j;
  j["name"] = c.name;
  j["channels"] = c.channels;
  j["outliers_per_side"] = c.outliers_per_side;
  j["act_bits"] = c.act_bits;
  j["weight_bits"] = c.weight_bits;
  j["pe_lines"] = c.pe_lines;
  j["index_counters"] = c.index_counters;
  j["counter_inputs"] = c.counter_inputs;
  j["mac_tree_inputs"] = c.mac_tree_inputs;
  j["comp_macs"] = c.comp_macs;
  j["clustering_lanes"] = c.clustering_lanes;
  j["clustering_levels_per_stage"] = c.clustering_levels_per_stage;
  j["orizuru_unit_inputs"] = c.orizuru_unit_inputs;
  j["orizuru_levels_per_stage"] = c.orizuru_levels_per_stage;
  j["fp_pipeline_stages"] = c.fp_pipeline_stages;
  j["weight_beat_indices"] = c.weight_beat_indices;
  j["accumulator"] = c.accumulator == AccumulatorFormat::kFp16 ? "fp16" : "fp32";
  return j;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

int clog2(int64_t x) {
  int n = 0;
  while ((int64_t{1} << n) < x) ++n;
  return n;
}

int orizuru_units(int n, int r) {
  int units = 0;
  for (int width = n; width > 1;) {
    const int level = ceil_div(width, r);
    units += level;
    width = level;
  }
  return units;
}

RowCycles row_cycles(const Config& c) {
  RowCycles r;
  r.count = ceil_div(c.channels, c.index_counters * c.counter_inputs);
  r.reduce = ceil_div(1 << (c.act_bits + c.weight_bits), c.mac_tree_inputs);
  r.compensate = ceil_div(2 * c.outliers_per_side, c.comp_macs);
  r.row = std::max({r.count, r.reduce, r.compensate});
  return r;
}

int cycles_per_row(const Config& c) { return row_cycles(c).row; }

ordered_json derived_parameters(const Config& c) {
  ordered_json d;
  const int index_bits = c.act_bits + c.weight_bits;
  d["concat_index_bits"] = index_bits;
  d["lut_entries"] = 1 << index_bits;
  d["indices_per_cycle"] = c.index_counters * c.counter_inputs;
  d["count_bits"] = clog2(int64_t(c.channels) + 1);
  d["channel_index_bits"] = std::max(1, clog2(c.channels));
  const RowCycles rc = row_cycles(c);
  d["count_cycles_per_row"] = rc.count;
  d["reduce_cycles_per_row"] = rc.reduce;
  d["compensation_cycles_per_row"] = rc.compensate;
  d["cycles_per_row"] = rc.row;
  d["orizuru_units"] = orizuru_units(c.channels, c.orizuru_unit_inputs);
  d["accumulator_exp_bits"] = c.accumulator == AccumulatorFormat::kFp16 ? 5 : 8;
  d["accumulator_frac_bits"] = c.accumulator == AccumulatorFormat::kFp16 ? 10 : 23;
  return d;
}

std::string config_hash(const Config& c) {
  const std::string text = to_json(c).dump();
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

std::string config_schema_markdown() {
  std::string md =
      "| field | symbol | meaning | unit | allowed | default |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& f : config_schema()) {
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", f.key,
                      f.symbol.empty() ? "" : f.symbol, f.meaning, f.unit, f.allowed,
                      f.fallback.is_null() ? std::string("required")
                                           : fmt::format("`{}`", f.fallback.dump()));
  }
  return md;
}

}  // namespace oasis
