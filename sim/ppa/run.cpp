// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/run.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace oasis::ppa {

void check_tool(int status, const std::string& what, const std::filesystem::path& log) {
  if (status != 0) {
    throw ToolError(fmt::format("{} failed with exit status {} (log: {}):\n{}", what, status,
                                log.string(), tail(log, 25)));
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() *
                    10) /
         10;
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return access(name.c_str(), X_OK) == 0 ? name : "";
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir.push_back('.');
    std::string full = dir;
    full += '/';
    full += name;
    struct stat st;
    if (stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(full.c_str(), X_OK) == 0) {
      return full;
    }
  }
  return "";
}

int run_tool(const std::vector<std::string>& argv, const std::filesystem::path& log,
             const std::filesystem::path& cwd) {
  if (argv.empty()) throw ToolError("run_tool: no program");
  const std::string program = find_program(argv[0]);
  if (program.empty()) throw ToolError(fmt::format("cannot find the program '{}'", argv[0]));
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw ToolError(fmt::format("cannot write the log {}: {}", log.string(), std::strerror(errno)));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    throw ToolError(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execv(program.c_str(), args.data());
    _exit(127);
  }
  close(fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw ToolError(fmt::format("waiting for {} failed", argv[0]));
  }
  if (WIFSIGNALED(status)) {
    throw ToolError(fmt::format("{} was killed by signal {} (log: {})", argv[0], WTERMSIG(status),
                                log.string()));
  }
  return WEXITSTATUS(status);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError(fmt::format("cannot read {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw ToolError(fmt::format("cannot write {}", tmp.string()));
  }
  std::filesystem::rename(tmp, path);
}

std::string tail(const std::filesystem::path& path, int lines) {
  std::ifstream in(path);
  if (!in) return "";
  std::vector<std::string> all;
  std::string l;
  while (std::getline(in, l)) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > size_t(lines) ? all.size() - size_t(lines) : 0; i < all.size();
       ++i) {
    out += all[i];
    out += '\n';
  }
  return out;
}

}  // namespace oasis::ppa
