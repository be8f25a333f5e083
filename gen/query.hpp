// SPDX-License-Identifier: Apache-2.0
// One reader of a JSON file (manifest.json, chiefly) for the project's
// scripts, so that none parses JSON in its own way: `oasis-gen --query FILE
// KEY.PATH`. A path is keys joined by dots; on an array a number picks an
// item and a key is read from every item (blocks.core.ports.name: the name
// of every port); on an object * stands for every member, in order
// (blocks.*.filelist: every block's file list). What it prints: a string unquoted, a number,
// boolean or null as JSON, an array one item a line, an object as one line of JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/io/input.hpp"

namespace oasis::gen {

/// A path that the document does not have; the message names the path, the
/// part of it that is missing, and what is there instead.
struct QueryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value at `path` in `doc`.
nlohmann::ordered_json query(const nlohmann::ordered_json& doc, const std::string& path);

/// `value` as --query prints it, each line ending in a newline.
std::string query_text(const nlohmann::ordered_json& value);

/// What --query and the manifest reader accept: a manifest of the paper's config is about
/// 100 KB and 8 levels deep.
inline constexpr JsonLimits kQueryLimits{16u << 20, 64};

/// The JSON document in `file`; a QueryError for a file it cannot read or parse, or that is
/// beyond kQueryLimits (larger, nested deeper, a key twice, a number beyond a double).
nlohmann::ordered_json read_json_file(const std::string& file);
/// The same from text; `where` names it in messages.
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& where);

/// Reads `file` and returns query_text(query(file's JSON, path)); throws
/// QueryError for a file it cannot read or parse, too.
std::string query_file(const std::string& file, const std::string& path);

}  // namespace oasis::gen
