// SPDX-License-Identifier: Apache-2.0
#include "gen/query.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "model/io/input.hpp"

namespace oasis::gen {
namespace {

using nlohmann::ordered_json;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> keys;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    keys.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& k : keys) {
    if (k.empty()) {
      throw QueryError(
          fmt::format("'{}' is not a key path: keys joined by dots, none empty", path));
    }
  }
  return keys;
}

bool is_index(const std::string& key) {
  return key.find_first_not_of("0123456789") == std::string::npos;
}

// What a node holds, for a message.
std::string holds(const ordered_json& node) {
  if (node.is_object()) {
    std::string keys;
    for (const auto& [k, v] : node.items()) keys += (keys.empty() ? "" : ", ") + k;
    return keys.empty() ? "an empty object" : "the keys " + keys;
  }
  if (node.is_array()) return fmt::format("an array of {} items", node.size());
  return fmt::format("the {} {}", node.type_name(), json_excerpt(node));
}

ordered_json walk(const ordered_json& node, const std::vector<std::string>& keys, size_t i,
                  const std::string& path) {
  if (i == keys.size()) return node;
  const std::string& key = keys[i];
  std::string prefix;
  for (size_t j = 0; j < i; ++j) prefix += (j ? "." : "") + keys[j];
  const std::string at = i == 0 ? "the top" : "'" + prefix + "'";
  if (node.is_object() && key == "*") {
    ordered_json out = ordered_json::array();
    for (const auto& [k, v] : node.items()) out.push_back(walk(v, keys, i + 1, path));
    return out;
  }
  if (node.is_object()) {
    if (!node.contains(key)) {
      throw QueryError(fmt::format("no key '{}': {} holds {}", path, at, holds(node)));
    }
    return walk(node.at(key), keys, i + 1, path);
  }
  if (node.is_array()) {
    if (is_index(key)) {
      size_t n = 0;
      const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), n);
      if (error != std::errc() || end != key.data() + key.size() || n >= node.size()) {
        throw QueryError(fmt::format("no key '{}': {} holds {}", path, at, holds(node)));
      }
      return walk(node.at(n), keys, i + 1, path);
    }
    ordered_json out = ordered_json::array();
    for (const auto& item : node) out.push_back(walk(item, keys, i, path));
    return out;
  }
  throw QueryError(fmt::format("no key '{}': {} holds {}", path, at, holds(node)));
}

std::string line(const ordered_json& v) {
  return v.is_string() ? v.get<std::string>()
                       : v.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

ordered_json query(const ordered_json& doc, const std::string& path) {
  return walk(doc, split_path(path), 0, path);
}

std::string query_text(const ordered_json& value) {
  if (!value.is_array()) return line(value) + "\n";
  std::string s;
  for (const auto& item : value) s += line(item) + "\n";
  return s;
}

ordered_json read_json_file(const std::string& file) {
  std::string text;
  try {
    text = read_input_file(file, kQueryLimits.max_bytes);
  } catch (const JsonInputError& e) {
    throw QueryError(fmt::format("{}: {}", file, e.what()));
  }
  return parse_json_text(text, file);
}

ordered_json parse_json_text(std::string_view text, const std::string& where) {
  try {
    return parse_ordered_json_input(text, kQueryLimits);
  } catch (const JsonInputError& e) {
    throw QueryError(fmt::format("{}: {}", where, e.what()));
  }
}

std::string query_file(const std::string& file, const std::string& path) {
  const ordered_json doc = read_json_file(file);
  try {
    return query_text(query(doc, path));
  } catch (const QueryError& e) {
    throw QueryError(fmt::format("{}: {}", file, e.what()));
  }
}

}  // namespace oasis::gen
