// SPDX-License-Identifier: Apache-2.0
// Writes everything oasis-gen produces for one config, atomically.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.hpp"

namespace oasis::gen {

struct GenerateRequest {
  std::string config_path;             ///< as given on the command line (for banners)
  std::vector<std::string> overrides;  ///< --set key=value, in order
  std::string out_dir;
  /// A bug to inject on purpose (gen/mutation.hpp), "" for none.
  std::string mutation = "";
};

/// An output folder oasis-gen must not replace; what() says which and why.
/// oasis-gen prints it and exits with status 2, having written and deleted
/// nothing.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The config file as banners and the manifest name it: as given when
/// relative; an absolute path relative to the working folder when it lies
/// under it, else the file name alone (the banner's hash names the contents).
/// Never an absolute path, so that every checkout writes the same bytes.
std::string config_label(const std::string& config_path);

/// `word` as one word of a POSIX shell command line: unchanged when it holds
/// only letters, digits and _-./=:,+@%, else in single quotes (a quote inside
/// written '\''). The banners' Regenerate line quotes the config path with it.
std::string shell_word(const std::string& word);

/// Throws OutputError unless `out_dir` may be written: it does not exist, or
/// it is an empty folder, or it holds a previous generation of oasis-gen's
/// own: its manifest.json and nothing that manifest does not list (a folder
/// written before the manifest listed its files qualifies when every file in
/// it carries oasis-gen's banner). The working folder and its parents never
/// qualify, nor does a file or a symbolic link.
void check_output_folder(const std::string& out_dir);

/// File name -> contents, everything the generator writes for `config`, in a
/// deterministic order. Exposed for the tests.
std::map<std::string, std::string> render(const Config& config, const GenerateRequest& request);

/// The sources a block's file list (`<block>.f`, as render writes it) names, in its order,
/// relative to its folder: its comments (`//`) and options (the top module's name, any line
/// that starts with '-') are not sources. Every reader of a file list reads it with this.
std::vector<std::string> file_list_sources(std::string_view text);

/// Renders into a temporary folder beside out_dir and renames it into place
/// only when every file was written; a failure leaves out_dir as it was.
/// Throws OutputError (check_output_folder) for a folder it must not replace
/// and std::runtime_error with a message on any I/O failure.
void generate(const Config& config, const GenerateRequest& request);

}  // namespace oasis::gen
