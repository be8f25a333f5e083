// SPDX-License-Identifier: Apache-2.0
#include "gen/manifest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <utility>

#include "gen/query.hpp"
#include "model/io/input.hpp"

namespace oasis::gen {

using nlohmann::ordered_json;

Manifest::Manifest()
    : doc_({{"generator", {{"tool", "oasis-gen"}}},
            {"config", ordered_json::object()},
            {"derived", ordered_json::object()},
            {"blocks", ordered_json::object()}}),
      where_("an empty manifest") {}

Manifest::Manifest(ordered_json doc, std::string where)
    : doc_(std::move(doc)), where_(std::move(where)) {}

bool Manifest::is_manifest(const ordered_json& doc) {
  if (!doc.is_object()) return false;
  const auto generator = doc.find("generator");
  if (generator == doc.end() || !generator->is_object()) return false;
  const auto tool = generator->find("tool");
  if (tool == generator->end() || *tool != "oasis-gen") return false;
  for (const char* section : {"config", "derived", "blocks"}) {
    const auto s = doc.find(section);
    if (s == doc.end() || !s->is_object()) return false;
  }
  return true;
}

Manifest Manifest::parse(const std::string& text, const std::string& where) {
  ordered_json doc;
  try {
    doc = parse_ordered_json_input(text, kQueryLimits);
  } catch (const JsonInputError& e) {
    throw ManifestError(fmt::format("{}: {}", where, e.what()));
  }
  return from_json(std::move(doc), where);
}

Manifest Manifest::from_json(ordered_json doc, const std::string& where) {
  if (!is_manifest(doc)) {
    throw ManifestError(fmt::format(
        "{}: not a manifest of oasis-gen (an object with generator.tool \"oasis-gen\", config, "
        "derived and blocks)",
        where));
  }
  return Manifest(std::move(doc), where);
}

Manifest Manifest::read(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_input_file(file.string(), kQueryLimits.max_bytes);
  } catch (const JsonInputError& e) {
    throw ManifestError(fmt::format("{}: {}", file.string(), e.what()));
  }
  return parse(text, file.string());
}

std::string Manifest::config_name() const {
  const auto name = config().find("name");
  if (name == config().end() || !name->is_string()) {
    throw ManifestError(fmt::format("{}: config has no name", where_));
  }
  return name->get<std::string>();
}

std::string Manifest::behavioural_macro() const {
  const auto macro = doc_.find("behavioural_macro");
  if (macro == doc_.end() || !macro->is_string()) {
    throw ManifestError(fmt::format("{}: no behavioural_macro", where_));
  }
  return macro->get<std::string>();
}

std::vector<std::string> Manifest::blocks() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : doc_.at("blocks").items()) names.push_back(name);
  return names;
}

bool Manifest::has_block(const std::string& block) const {
  return doc_.at("blocks").contains(block);
}

const ordered_json& Manifest::block(const std::string& block) const {
  if (!has_block(block)) {
    throw ManifestError(
        fmt::format("{}: no block '{}'; its blocks: {}", where_, block, fmt::join(blocks(), ", ")));
  }
  return doc_.at("blocks").at(block);
}

std::string Manifest::top(const std::string& block) const {
  const ordered_json& b = this->block(block);
  const auto top = b.find("top");
  if (top == b.end() || !top->is_string()) {
    throw ManifestError(fmt::format("{}: block '{}' has no top module", where_, block));
  }
  return top->get<std::string>();
}

std::vector<ManifestPort> Manifest::ports(const std::string& block) const {
  const ordered_json& b = this->block(block);
  const auto list = b.find("ports");
  if (list == b.end() || !list->is_array()) {
    throw ManifestError(fmt::format("{}: block '{}' lists no ports", where_, block));
  }
  std::vector<ManifestPort> ports;
  for (const ordered_json& p : *list) {
    // A width read as an integer only when it is one: nlohmann converts 1e21 to int64_t with a
    // cast whose result is undefined (UBSan's report, found by the query fuzz target).
    const auto width = p.is_object() ? p.find("width") : p.end();
    if (width == p.end() || !width->is_number_integer() || width->get<int64_t>() < 1 ||
        width->get<int64_t>() > INT32_MAX) {
      throw ManifestError(
          fmt::format("{}: block '{}': a port whose width is not an integer from 1 to {}: {}",
                      where_, block, INT32_MAX, json_excerpt(p)));
    }
    try {
      ports.push_back({p.at("direction").get<std::string>(), p.at("name").get<std::string>(),
                       width->get<int64_t>()});
    } catch (const ordered_json::exception& e) {
      throw ManifestError(fmt::format("{}: block '{}': a port without direction, name or width: {}",
                                      where_, block, json_excerpt(p)));
    }
  }
  return ports;
}

namespace {

// An integer, or a boolean as 0 or 1 (a block's flags: an input stage, an operand register).
std::optional<int64_t> integer(const ordered_json& section, const std::string& key) {
  const auto v = section.find(key);
  if (v == section.end()) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>() ? 1 : 0;
  if (!v->is_number_integer()) return std::nullopt;
  return v->get<int64_t>();
}

}  // namespace

int64_t Manifest::number(const std::string& section, const std::string& key) const {
  const ordered_json& s =
      section == "config" || section == "derived" ? doc_.at(section) : block(section);
  if (const auto v = integer(s, key)) return *v;
  throw ManifestError(fmt::format("{}: no integer {}.{}", where_, section, key));
}

std::optional<int64_t> Manifest::figure(const std::string& block, const std::string& key) const {
  if (const auto v = integer(this->block(block), key)) return v;
  if (const auto v = integer(derived(), key)) return v;
  return integer(config(), key);
}

}  // namespace oasis::gen
