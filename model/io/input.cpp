// SPDX-License-Identifier: Apache-2.0
#include "model/io/input.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

namespace oasis {
namespace {

// Where the parser is: one frame per open array or object.
struct Frame {
  bool array = false;
  std::string key;   // objects: the key being read
  size_t index = 0;  // arrays: the item being read
  std::set<std::string> keys;
};

// The key path of the value being read, e.g. blocks.core.ports[3]; at most about 80
// characters (the front kept, "..." for the rest).
std::string path_text(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& f : frames) {
    if (path.size() > 80) return path + "...";
    if (f.array) {
      path += fmt::format("[{}]", f.index);
    } else if (!f.key.empty()) {
      path += (path.empty() ? "" : ".") + f.key;
    }
  }
  return path;
}

std::string at_path(const std::vector<Frame>& frames) {
  const std::string path = path_text(frames);
  return path.empty() ? std::string("at the top level") : fmt::format("at '{}'", path);
}

// A refusal from inside the callback, carried out of the parser.
struct Stop {
  JsonInputError::Kind kind;
  std::string what;
  std::string key = "";
  int depth = 0;
};

// The library's message without its "[json.exception.parse_error.101] " tag, at most 200
// characters (its "last read" may quote a long token).
std::string library_text(const char* what) {
  std::string s = what;
  if (s.starts_with("[json.exception.")) {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  if (s.size() > 200) s = s.substr(0, 197) + "...";
  return s;
}

template <typename Json>
Json parse(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw JsonInputError(
        JsonInputError::Kind::kSize,
        fmt::format("is {} bytes; allowed: at most {} bytes", text.size(), limits.max_bytes));
  }
  std::vector<Frame> frames;
  // An item of the innermost array is done: the next one is read.
  const auto next_item = [&] {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  };
  const auto callback = [&](int, nlohmann::detail::parse_event_t event, Json& parsed) {
    using E = nlohmann::detail::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (int(frames.size()) >= limits.max_depth) {
          throw Stop{JsonInputError::Kind::kDepth,
                     fmt::format("arrays and objects nested more than {} deep {}", limits.max_depth,
                                 at_path(frames))};
        }
        frames.push_back(Frame{event == E::array_start, "", 0, {}});
        break;
      case E::object_end:
      case E::array_end:
        frames.pop_back();
        next_item();
        break;
      case E::key: {
        Frame& f = frames.back();
        f.key = parsed.template get<std::string>();
        if (!f.keys.insert(f.key).second) {
          const std::string key = f.key;
          f.key.clear();
          throw Stop{JsonInputError::Kind::kDuplicateKey,
                     fmt::format("key '{}' appears twice in {}", key,
                                 frames.size() == 1
                                     ? std::string("the top-level object")
                                     : fmt::format("the object at '{}'", path_text(frames))),
                     key, int(frames.size())};
        }
        break;
      }
      case E::value:
        next_item();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback);
  } catch (const Stop& s) {
    throw JsonInputError(s.kind, s.what, s.key, s.depth);
  } catch (const typename Json::out_of_range& e) {
    // 406: a number beyond a double. The library names the number; the frames say where.
    std::string number = e.what();
    const size_t open = number.find('\''), close = number.rfind('\'');
    number = open != std::string::npos && close > open
                 ? number.substr(open + 1, std::min<size_t>(close - open - 1, 40))
                 : std::string("?");
    throw JsonInputError(
        JsonInputError::Kind::kNumber,
        fmt::format("the number {}{} is beyond the range of a double (about 1.8e308 in magnitude)",
                    number, frames.empty() ? "" : " " + at_path(frames)));
  } catch (const typename Json::exception& e) {
    throw JsonInputError(JsonInputError::Kind::kSyntax,
                         fmt::format("is not valid JSON: {}", library_text(e.what())));
  }
}

template <typename Json>
void excerpt(const Json& v, std::string& out, size_t max_chars) {
  if (out.size() > max_chars) return;
  if (v.is_array() || v.is_object()) {
    out += v.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (out.size() > max_chars) return;
      if (!first) out += ',';
      first = false;
      if (v.is_object()) {
        out += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ':';
      }
      excerpt(*it, out, max_chars);
    }
    out += v.is_array() ? ']' : '}';
    return;
  }
  out += v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

template <typename Json>
std::string excerpt_text(const Json& v, size_t max_chars) {
  std::string out;
  excerpt(v, out, max_chars);
  if (out.size() > max_chars) out = out.substr(0, max_chars > 3 ? max_chars - 3 : 0) + "...";
  return out;
}

}  // namespace

nlohmann::json parse_json_input(std::string_view text, const JsonLimits& limits) {
  return parse<nlohmann::json>(text, limits);
}

nlohmann::ordered_json parse_ordered_json_input(std::string_view text, const JsonLimits& limits) {
  return parse<nlohmann::ordered_json>(text, limits);
}

std::string json_excerpt(const nlohmann::json& value, size_t max_chars) {
  return excerpt_text(value, max_chars);
}

std::string json_excerpt(const nlohmann::ordered_json& value, size_t max_chars) {
  return excerpt_text(value, max_chars);
}

std::string read_input_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw JsonInputError(JsonInputError::Kind::kFile, "is a folder; allowed: a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw JsonInputError(JsonInputError::Kind::kFile,
                         fmt::format("cannot be read ({})", std::strerror(errno)));
  }
  // Read at most one byte past the limit: a file that is larger (or a device that never ends)
  // costs no more than that.
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (text.size() <= max_bytes) {
    in.read(chunk.data(), std::streamsize(std::min(chunk.size(), max_bytes + 1 - text.size())));
    text.append(chunk.data(), size_t(in.gcount()));
    if (in.gcount() == 0 || !in) break;
  }
  if (in.bad()) throw JsonInputError(JsonInputError::Kind::kFile, "cannot be read (read error)");
  if (text.size() > max_bytes) {
    const uint64_t size = std::filesystem::file_size(path, ec);
    throw JsonInputError(
        JsonInputError::Kind::kSize,
        fmt::format("is {} bytes; allowed: at most {} bytes",
                    ec ? fmt::format("more than {}", max_bytes) : std::to_string(size), max_bytes));
  }
  return text;
}

}  // namespace oasis
