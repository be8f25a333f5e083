// SPDX-License-Identifier: Apache-2.0
// Running the external tools of the flow (Yosys, blifFanout, OpenSTA) with an
// argument vector, never through a shell, so that no path is ever split or
// interpreted; what they print goes to a log file.
#pragma once

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::ppa {

struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs argv[0] (looked up in PATH when it has no '/') with `argv`, in `cwd`
/// when given, stdout and stderr appended to `log`. Returns the exit status;
/// a program that cannot be started, or that dies from a signal, is a
/// ToolError naming it.
int run_tool(const std::vector<std::string>& argv, const std::filesystem::path& log,
             const std::filesystem::path& cwd = {});

/// A ToolError naming `what`, its exit status and the end of its log, unless
/// `status` is 0.
void check_tool(int status, const std::string& what, const std::filesystem::path& log);

/// Wall-clock seconds since `t0`, to a tenth.
double seconds_since(std::chrono::steady_clock::time_point t0);

/// The full path of a program found in PATH, or "" when there is none.
std::string find_program(const std::string& name);

/// The whole of a text file, or a ToolError naming it.
std::string read_text(const std::filesystem::path& path);
/// Writes `text` to `path` through a temporary file renamed into place.
void write_text(const std::filesystem::path& path, const std::string& text);

/// The last `lines` lines of a text file ("" if it cannot be read).
std::string tail(const std::filesystem::path& path, int lines);

}  // namespace oasis::ppa
