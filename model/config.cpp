// SPDX-License-Identifier: Apache-2.0
#include "model/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "model/io/input.hpp"

namespace oasis {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ConfigField string_field(std::string key, std::string meaning, std::string allowed,
                         std::string Config::*member) {
  ConfigField f;
  f.key = std::move(key);
  f.type = "string";
  f.meaning = std::move(meaning);
  f.unit = "-";
  f.allowed = std::move(allowed);
  f.get = [member](const Config& c) { return json(c.*member); };
  f.set = [member](Config& c, const json& v) { c.*member = v.get<std::string>(); };
  return f;
}

ConfigField integer_field(std::string key, std::string symbol, std::string meaning,
                          std::string unit, int64_t min, int64_t max, json fallback,
                          bool power_of_two, int Config::*member) {
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
  f.get = [member](const Config& c) { return json(c.*member); };
  f.set = [member](Config& c, const json& v) { c.*member = v.get<int>(); };
  return f;
}

template <typename Enum, size_t N>
ConfigField enum_field(std::string key,
                       const std::array<std::pair<std::string_view, Enum>, N>& names,
                       std::string meaning, json fallback, Enum Config::*member) {
  ConfigField f;
  f.key = std::move(key);
  f.type = "enum";
  f.meaning = std::move(meaning);
  f.unit = "-";
  for (const auto& [text, value] : names) f.choices.emplace_back(text);
  std::string allowed;
  for (const auto& choice : f.choices) {
    allowed += fmt::format("{}\"{}\"", allowed.empty() ? "" : ", ", choice);
  }
  f.allowed = "one of " + allowed;
  f.fallback = std::move(fallback);
  f.get = [member, names](const Config& c) {
    for (const auto& [text, value] : names) {
      if (value == c.*member) return json(std::string(text));
    }
    return json();
  };
  f.set = [member, names](Config& c, const json& v) {
    for (const auto& [text, value] : names) {
      if (text == v.get<std::string>()) c.*member = value;
    }
  };
  return f;
}

std::vector<ConfigField> make_schema() {
  std::vector<ConfigField> s;
#define OASIS_STRING_ROW(key, meaning, allowed) \
  s.push_back(string_field(#key, meaning, allowed, &Config::key));
#define OASIS_INTEGER_ROW(key, symbol, meaning, unit, min, max, fallback, power_of_two) \
  s.push_back(                                                                          \
      integer_field(#key, symbol, meaning, unit, min, max, fallback, power_of_two, &Config::key));
#define OASIS_ENUM_ROW(key, type, names, meaning, fallback) \
  s.push_back(enum_field<type>(#key, names, meaning, fallback, &Config::key));
  OASIS_CONFIG_FIELDS(OASIS_STRING_ROW, OASIS_INTEGER_ROW, OASIS_ENUM_ROW)
#undef OASIS_STRING_ROW
#undef OASIS_INTEGER_ROW
#undef OASIS_ENUM_ROW
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
  const std::string text = json_excerpt(v);
  const char* kind = v.is_string()         ? "a string"
                     : v.is_boolean()      ? "a boolean"
                     : v.is_null()         ? "null"
                     : v.is_array()        ? "an array"
                     : v.is_object()       ? "an object"
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

const ConfigField& config_field(std::string_view key) {
  const auto& schema = config_schema();
  const auto f = std::find_if(schema.begin(), schema.end(),
                              [&](const ConfigField& x) { return x.key == key; });
  if (f == schema.end()) throw std::logic_error(fmt::format("no config field '{}'", key));
  return *f;
}

Config parse_config(const json& doc, const std::string& origin) {
  if (!doc.is_object())
    fail(origin, fmt::format("found {}; allowed: a JSON object", describe(doc)));
  const auto& schema = config_schema();
  for (const auto& item : doc.items()) {
    // (A structured binding here could not be captured by the lambda in clang 14.)
    const std::string& key = item.key();
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
  for (const auto& f : schema) {
    const json& x = v.at(f.key);
    if (f.type == "integer") {
      check_integer(origin, f, x);
    } else if (f.type == "string") {
      if (!x.is_string() || !is_lower_identifier(x.get<std::string>())) {
        fail_field(origin, f, describe(x));
      }
    } else if (!x.is_string() || std::find(f.choices.begin(), f.choices.end(),
                                           x.get<std::string>()) == f.choices.end()) {
      fail_field(origin, f, describe(x));
    }
    f.set(c, x);
  }

  // Cross-field rules.
  const auto field = [](std::string_view key) -> const ConfigField& { return config_field(key); };
  if (2 * int64_t(c.outliers_per_side) > c.channels) {
    fail_field(
        origin, field("outliers_per_side"), describe(v.at("outliers_per_side")),
        fmt::format("1 <= k and 2k <= channels ({}), so at most {}", c.channels, c.channels / 2));
  }
  if (c.weight_beat_indices > c.channels) {
    fail_field(origin, field("weight_beat_indices"), describe(v.at("weight_beat_indices")),
               fmt::format("an integer from 1 to channels ({})", c.channels));
  }
  if (c.clustering_lanes > c.channels) {
    fail_field(origin, field("clustering_lanes"), describe(v.at("clustering_lanes")),
               fmt::format("an integer from 1 to channels ({})", c.channels));
  }
  if (c.codebooks == Codebooks::kSymmetric && (c.act_bits < 2 || c.weight_bits < 2)) {
    fail_field(origin, field("codebooks"), describe(v.at("codebooks")),
               fmt::format("\"free\"; \"symmetric\" needs act_bits and weight_bits of at least 2 "
                           "(found {} and {})",
                           c.act_bits, c.weight_bits));
  }
  if (int64_t(c.axi_max_burst) * c.axi_data_bits / 8 > 4096) {
    fail_field(origin, field("axi_max_burst"), describe(v.at("axi_max_burst")),
               fmt::format("an integer from 1 to {}, so that a burst of axi_data_bits = {} is at "
                           "most 4096 bytes",
                           4096 * 8 / c.axi_data_bits, c.axi_data_bits));
  }
  if (int64_t(c.axi_outstanding_reads) * c.axi_max_burst > 1024) {
    fail_field(origin, field("axi_outstanding_reads"), describe(v.at("axi_outstanding_reads")),
               fmt::format("an integer from 1 to {}, so that the read buffer of "
                           "axi_outstanding_reads * axi_max_burst ({}) beats is at most 1024",
                           1024 / c.axi_max_burst, c.axi_max_burst));
  }
  // The config records the stage count derive() resolves (a clock target sets it, the same
  // with or without fp_pipeline_stages given, so a config written back reads the same).
  const Derived d = derive(c);
  c.fp_pipeline_stages = d.fp_stages;
  // The FIGLUT-class line's sizes (docs/woq_lut_line.md), as derive() makes them.
  const WoqLutTiming& w = d.woq_lut_line_baseline;
  if (w.units % w.rows != 0) {
    fail_field(origin, field("woq_rows_per_lut"), describe(v.at("woq_rows_per_lut")),
               fmt::format("0, or a divisor of the line's read-accumulate units ({}{})", w.units,
                           c.woq_units == 0 ? ", sized to the PE line" : ""));
  }
  if (w.rows > w.batch_beats) {
    const std::string key = c.woq_rows_per_lut > 0 ? "woq_rows_per_lut" : "woq_units";
    fail_field(origin, field(key), describe(v.at(key)),
               fmt::format("rows a batch at most the batch's beats ({}): a batch's rows leave one "
                           "a cycle while the next batch runs",
                           w.batch_beats));
  }
  return c;
}

// A config is a few hundred bytes and one level deep; these limits leave room and keep a
// hostile file's cost in milliseconds and megabytes.
constexpr JsonLimits kConfigLimits{1u << 20, 16};

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::string text;
  try {
    text = read_input_file(path, kConfigLimits.max_bytes);
  } catch (const JsonInputError& e) {
    fail(path, e.what());
  }
  return load_config_text(text, path, overrides);
}

Config load_config_text(std::string_view text, const std::string& origin,
                        const std::vector<std::string>& overrides) {
  json doc;
  try {
    doc = parse_json_input(text, kConfigLimits);
  } catch (const JsonInputError& e) {
    fail(origin, e.what());
  }
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError(
          fmt::format("override '{}': expected key=value, e.g. act_bits=3 or accumulator=fp16", o));
    }
    const std::string key = o.substr(0, eq);
    const std::string value = o.substr(eq + 1);
    // The value as JSON when it is JSON, else as a string; JSON beyond the limits is refused.
    json v;
    try {
      v = parse_json_input(value, kConfigLimits);
    } catch (const JsonInputError& e) {
      if (e.kind() != JsonInputError::Kind::kSyntax) {
        throw ConfigError(fmt::format("override '{}': {}", key, e.what()));
      }
      v = value;
    }
    if (doc.is_object()) doc[key] = std::move(v);
  }
  return parse_config(doc, origin);
}

ordered_json to_json(const Config& c) {
  ordered_json j;
  for (const auto& f : config_schema()) j[f.key] = f.get(c);
  return j;
}

std::string accumulator_name(AccumulatorFormat format) {
  for (const auto& [text, value] : kAccumulatorNames) {
    if (value == format) return std::string(text);
  }
  return "?";
}

uint64_t fnv1a(std::string_view text, uint64_t h) {
  for (const unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;  // FNV's 64-bit prime
  }
  return h;
}

std::string config_hash(const Config& c) {
  return fmt::format("{:016x}", fnv1a(to_json(c).dump()));
}

std::string config_schema_markdown() {
  std::string md =
      "| field | symbol | meaning | unit | allowed | default |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& f : config_schema()) {
    md += fmt::format(
        "| `{}` | {} | {} | {} | {} | {} |\n", f.key, f.symbol.empty() ? "" : f.symbol, f.meaning,
        f.unit, f.allowed,
        f.fallback.is_null() ? std::string("required") : fmt::format("`{}`", f.fallback.dump()));
  }
  return md;
}

}  // namespace oasis
