// SPDX-License-Identifier: Apache-2.0
// The one reader of the manifest.json oasis-gen writes (docs/generator.md, "The manifest"):
// every command and testbench that needs a generated folder's config, derived figures, block
// tops, file lists or ports reads them through Manifest, so the document's shape is known in
// this one place, and a missing file, block or figure is one message that names the file, what
// is missing and what is there. (oasis-gen --query, gen/query.hpp, is the scripts' reader of
// any JSON file.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::gen {

/// A manifest that cannot be read, is not oasis-gen's, or lacks what was asked of it.
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A port of a block's top module, as the manifest lists it (declaration order).
struct ManifestPort {
  std::string direction;  ///< "input" or "output"
  std::string name;
  int64_t width = 0;
};

class Manifest {
 public:
  /// An empty manifest: no config figures, no blocks (a holder to be assigned).
  Manifest();
  /// Reads `file` and checks that it is oasis-gen's manifest.
  static Manifest read(const std::filesystem::path& file);
  /// The same from text already in memory; `where` names it in messages.
  static Manifest parse(const std::string& text, const std::string& where);
  /// The same from a document already parsed.
  static Manifest from_json(nlohmann::ordered_json doc, const std::string& where);
  /// Whether `doc` has the shape of oasis-gen's manifest: an object with generator.tool
  /// "oasis-gen" and the sections config, derived and blocks.
  static bool is_manifest(const nlohmann::ordered_json& doc);

  /// The file (or text) it was read from, for messages.
  const std::string& where() const { return where_; }
  /// The config's name (config.name), which names the generated modules and files.
  std::string config_name() const;
  /// The macro that selects the behavioural form of the large structures.
  std::string behavioural_macro() const;
  const nlohmann::ordered_json& config() const { return doc_.at("config"); }
  const nlohmann::ordered_json& derived() const { return doc_.at("derived"); }

  /// The blocks, in the manifest's order.
  std::vector<std::string> blocks() const;
  bool has_block(const std::string& block) const;
  /// A block's entry; a ManifestError naming the blocks there are when it has none.
  const nlohmann::ordered_json& block(const std::string& block) const;
  /// A block's top module.
  std::string top(const std::string& block) const;
  /// A block's top module's ports, in declaration order.
  std::vector<ManifestPort> ports(const std::string& block) const;

  /// An integer (a boolean reads 0 or 1) of a section: "config", "derived" or a block's name; a
  /// ManifestError when the section has no integer of that name.
  int64_t number(const std::string& section, const std::string& key) const;
  /// A figure of a block: the block entry's `key` (what the block built), else the derived
  /// figures', else the config's, as an integer; nothing when none of them has an integer of
  /// that name. The one lookup order of every reader (testbenches, oasis-ppa, oasis-bench).
  std::optional<int64_t> figure(const std::string& block, const std::string& key) const;

  /// The whole document.
  const nlohmann::ordered_json& json() const { return doc_; }

 private:
  Manifest(nlohmann::ordered_json doc, std::string where);

  nlohmann::ordered_json doc_;
  std::string where_;
};

}  // namespace oasis::gen
