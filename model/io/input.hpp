// SPDX-License-Identifier: Apache-2.0
// What the readers of files from outside accept, in one place: the limits on JSON (configs, --set
// values, safetensors headers, manifests, the files --query reads, model files) and the memory
// one tensor may take.
//
// Every JSON reader parses through parse_json_input, so that the text is refused before it can
// cost more than its limits, and every refusal is one line that says where. nlohmann::json takes
// a key given twice (the last wins), nests as deep as the text does (and its dump() of such a
// value recurses until the stack runs out), and reports a number beyond a double as library text
// with no place. The parser's callback sees every key and every container as it opens, before
// the document is built, so it refuses these there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace oasis {

/// The memory one tensor read from a file may take (its bytes as stored): a larger one is
/// refused, with its size, before anything is allocated for it. A third of the 24 GiB machines
/// the project is built for; the largest tensor of a 70B-parameter checkpoint holds 2.1 GB.
inline constexpr uint64_t kTensorBytesBudget = uint64_t(8) << 30;

/// JSON that is refused; what() says what and where (a key path such as 'blocks.core.ports[3]'
/// or a line and column), without the file's name, which the caller adds.
class JsonInputError : public std::runtime_error {
 public:
  /// What was refused: a file that cannot be read, the text's size, its nesting, a key given
  /// twice, a number, or text that is not JSON.
  enum class Kind { kFile, kSize, kDepth, kDuplicateKey, kNumber, kSyntax };
  JsonInputError(Kind kind, const std::string& what, std::string key = "", int depth = 0)
      : std::runtime_error(what), kind_(kind), key_(std::move(key)), depth_(depth) {}
  Kind kind() const { return kind_; }
  /// A key given twice: the key, and the depth of its object (1: the top-level object).
  const std::string& key() const { return key_; }
  int depth() const { return depth_; }

 private:
  Kind kind_;
  std::string key_;
  int depth_;
};

/// What a reader accepts.
struct JsonLimits {
  /// Longer text is refused before it is parsed (the document costs up to about 30 bytes of
  /// memory a byte of text: `[[],[],...]`).
  size_t max_bytes = 16u << 20;
  /// Arrays and objects nested deeper are refused as they open.
  int max_depth = 64;
};

/// The text's document. Refused, with a JsonInputError: text above limits.max_bytes, nesting
/// deeper than limits.max_depth, a key twice in one object (named), a number beyond a double
/// (named with its key path), and text that is not JSON (the parser's line and column).
nlohmann::json parse_json_input(std::string_view text, const JsonLimits& limits);
/// The same, keeping the objects' key order.
nlohmann::ordered_json parse_ordered_json_input(std::string_view text, const JsonLimits& limits);

/// A value for a message: its JSON text, cut to at most `max_chars` characters with "..."
/// (never the whole of a large value), bytes that are not UTF-8 replaced.
std::string json_excerpt(const nlohmann::json& value, size_t max_chars = 60);
std::string json_excerpt(const nlohmann::ordered_json& value, size_t max_chars = 60);

/// The bytes of the file at `path`, refused (JsonInputError, naming neither the file) when it
/// cannot be read, is a folder, or holds more than `max_bytes` (the figure in the message;
/// nothing above it is read).
std::string read_input_file(const std::string& path, size_t max_bytes);

}  // namespace oasis
