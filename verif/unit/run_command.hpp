// SPDX-License-Identifier: Apache-2.0
// Runs one of the project's commands for the CLI tests and collects what it
// prints and its exit status. The command is a shell command line: every path
// in it goes through gen::shell_word, since the project may lie in a folder
// whose path holds a space (docs/paths.md).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "gen/generator.hpp"

namespace oasis::test {

struct CmdResult {
  int status;       ///< exit status, -1 if it did not exit normally
  std::string out;  ///< what the shell command printed (add 2>&1 to it for stderr)
};

inline CmdResult run_command(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  CmdResult r{-1, ""};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// The prefix of a shell command that runs it without the right to write into a folder of
/// mode 0555: as root (who writes anywhere) under the user nobody, with setpriv; as any other
/// user, nothing.
inline std::string unprivileged() {
  return geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

}  // namespace oasis::test
