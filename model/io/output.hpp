// SPDX-License-Identifier: Apache-2.0
// The rules every command that writes a folder follows (oasis-gen --out, oasis-model
// quantize-all --out-dir): the path resolved through the links in its parent before any rule is
// applied, the folder written whole under a temporary name beside it and renamed into place only
// when everything succeeded, and a filesystem error told as one line that names the path.
#pragma once

#include <filesystem>
#include <string>

namespace oasis {

/// The absolute, normal form of an output folder's path, without a trailing separator, with the
/// links of its parent folders resolved (a link to a parent of the working folder makes it the
/// same folder as any other path to it). The last component is kept as given, so that a link
/// there is seen, and refused, by the caller.
std::filesystem::path resolved_output_path(const std::string& path);

/// The nearest folder above `path` that exists, or the first file found there in its place
/// (`d.txt` for `d.txt/D` when d.txt is a file): what writing `path` would first meet.
std::filesystem::path existing_ancestor(const std::filesystem::path& path);

/// A temporary name for `out` beside it: `.<name>.<what>-<pid>`.
std::filesystem::path sibling_path(const std::filesystem::path& out, const std::string& what);

/// Puts the folder `tmp` (complete) in the place of `out`: an earlier `out` is moved aside,
/// `tmp` renamed to `out`, and the earlier one removed; if the rename fails, the earlier one is
/// put back. Both lie in the same folder. Throws std::filesystem::filesystem_error.
void replace_folder(const std::filesystem::path& tmp, const std::filesystem::path& out);

/// A filesystem error as one line: the path(s) and the system's reason, without the library's
/// "filesystem error:" wording.
std::string filesystem_message(const std::filesystem::filesystem_error& e);

}  // namespace oasis
