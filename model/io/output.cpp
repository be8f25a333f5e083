// SPDX-License-Identifier: Apache-2.0
#include "model/io/output.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace oasis {

namespace fs = std::filesystem;

fs::path resolved_output_path(const std::string& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty() && p.has_parent_path()) p = p.parent_path();
  std::error_code ec;
  const fs::path parent = fs::weakly_canonical(p.parent_path(), ec);
  if (!ec && !p.filename().empty()) p = parent / p.filename();
  return p;
}

fs::path existing_ancestor(const fs::path& path) {
  fs::path p = path.parent_path();
  std::error_code ec;
  // Up to the first thing that exists: a folder, or a file in a folder's place.
  while (!p.empty() && !fs::exists(fs::symlink_status(p, ec)) && p.has_relative_path()) {
    p = p.parent_path();
  }
  return p;
}

fs::path sibling_path(const fs::path& out, const std::string& what) {
  return out.parent_path() / fmt::format(".{}.{}-{}", out.filename().string(), what, getpid());
}

void replace_folder(const fs::path& tmp, const fs::path& out) {
  fs::path old;
  if (fs::exists(fs::symlink_status(out))) {
    old = sibling_path(out, "old");
    fs::remove_all(old);
    fs::rename(out, old);
  }
  try {
    fs::rename(tmp, out);
  } catch (const fs::filesystem_error&) {
    std::error_code ec;
    if (!old.empty()) fs::rename(old, out, ec);
    throw;
  }
  if (!old.empty()) fs::remove_all(old);
}

std::string filesystem_message(const fs::filesystem_error& e) {
  std::string paths = e.path1().empty() ? std::string("''") : e.path1().string();
  if (!e.path2().empty()) paths += " -> " + e.path2().string();
  return fmt::format("{}: {}", paths, e.code().message());
}

}  // namespace oasis
