// SPDX-License-Identifier: Apache-2.0
// oasis-commands: runs the command named by the link it is called through (build/oasis-gen,
// build/oasis-model, ...), or by its first argument (oasis-commands oasis-gen --help).
#include "tools/commands.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
};

#define OASIS_COMMAND_ENTRY(function, name) Command{name, &oasis::commands::function},
constexpr Command kCommands[] = {OASIS_COMMANDS(OASIS_COMMAND_ENTRY)};
#undef OASIS_COMMAND_ENTRY

const Command* find(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 1) {
    if (const Command* c = find(std::filesystem::path(argv[0]).filename().string())) {
      return c->run(argc, argv);
    }
  }
  if (argc >= 2) {
    if (const Command* c = find(argv[1])) return c->run(argc - 1, argv + 1);
  }
  std::string names;
  for (const Command& c : kCommands)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", c.name);
  fmt::print(stderr,
             "oasis-commands: name the command, as the link it is called through or as the "
             "first argument; allowed: {}\n",
             names);
  return 2;
}
