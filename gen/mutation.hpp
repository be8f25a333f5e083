// SPDX-License-Identifier: Apache-2.0
// Bugs the generator injects on purpose (oasis-gen --mutate NAME), so that a
// check can show it catches each one (oasis-prove runs every proof once on
// the mutated RTL and wants a counterexample). An emitter declares its
// mutations with OASIS_REGISTER_MUTATION and asks mutated(NAME) where it
// writes the construct; a generation with a mutation fails unless some
// emitter applied it, so a renamed construct cannot leave a check testing
// nothing.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace oasis::gen {

/// A mutation that is not registered, or that no emitter applied for the
/// config; what() says which and what is allowed. oasis-gen exits with
/// status 2 and writes nothing.
class MutationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Mutation {
  std::string name;  ///< <block>.<what>, e.g. "comparator.mag_ge"
  std::string what;  ///< the bug, in a sentence
};

/// Every registered mutation, sorted by name.
std::vector<Mutation> mutations();

/// Whether mutation `name` is the one in effect (and, if so, notes that an
/// emitter applied it). `name` must be registered.
bool mutated(const std::string& name);

/// Puts mutation `name` in effect for its lifetime ("" for none). Throws
/// MutationError naming the registered mutations when `name` is not one of
/// them.
class MutationScope {
 public:
  explicit MutationScope(const std::string& name);
  ~MutationScope();
  MutationScope(const MutationScope&) = delete;
  MutationScope& operator=(const MutationScope&) = delete;
  /// Whether an emitter applied the mutation (always true for none).
  bool applied() const;
};

struct MutationRegistrar {
  MutationRegistrar(const char* name, const char* what);
};

}  // namespace oasis::gen

#define OASIS_MUTATION_CAT2(a, b) a##b
#define OASIS_MUTATION_CAT(a, b) OASIS_MUTATION_CAT2(a, b)
#define OASIS_REGISTER_MUTATION(name, what)                                                       \
  static const ::oasis::gen::MutationRegistrar OASIS_MUTATION_CAT(oasis_mutation_, __COUNTER__) { \
    name, what                                                                                    \
  }
