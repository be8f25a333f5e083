// SPDX-License-Identifier: Apache-2.0
#include "gen/mutation.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace oasis::gen {
namespace {

std::map<std::string, std::string>& registry() {
  static std::map<std::string, std::string> m;
  return m;
}

// The mutation in effect and whether an emitter applied it. oasis-gen renders
// one config at a time, on one thread.
struct State {
  std::string name;
  bool applied = false;
};
State& state() {
  static State s;
  return s;
}

}  // namespace

MutationRegistrar::MutationRegistrar(const char* name, const char* what) {
  registry()[name] = what;
}

std::vector<Mutation> mutations() {
  std::vector<Mutation> out;
  for (const auto& [name, what] : registry()) out.push_back({name, what});
  return out;
}

bool mutated(const std::string& name) {
  if (!registry().count(name)) {
    throw std::logic_error(fmt::format("mutated(\"{}\"): no such mutation is registered", name));
  }
  if (state().name != name) return false;
  state().applied = true;
  return true;
}

MutationScope::MutationScope(const std::string& name) {
  if (!name.empty() && !registry().count(name)) {
    std::string known;
    for (const auto& [n, what] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw MutationError(fmt::format("--mutate {}: no such mutation; allowed: {}", name, known));
  }
  state() = {name, name.empty()};
}

MutationScope::~MutationScope() { state() = {}; }

bool MutationScope::applied() const { return state().applied; }

}  // namespace oasis::gen
