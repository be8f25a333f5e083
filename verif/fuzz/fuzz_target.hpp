// SPDX-License-Identifier: Apache-2.0
// What every fuzz target of verif/fuzz/ shares: the libFuzzer entry point each defines, and the
// check that a refusal is a message a user can read.
//
// A target gives its bytes to one reader of outside input as the commands do, and catches only
// the error type that reader documents (the commands print it and exit with status 2). Anything
// else escaping (a library's exception, a crash, a sanitizer's report) is a finding: the target
// aborts, and libFuzzer or the replay program (replay.cpp) reports the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace oasis::fuzz {

/// A refusal's message: not empty and at most a few lines' worth, so that it names the input
/// without quoting the whole of it. Aborts otherwise.
inline void check_message(std::string_view what) {
  if (what.empty() || what.size() > 4096) {
    std::fprintf(stderr, "fuzz: a refusal of %zu characters: %.200s\n", what.size(), what.data());
    std::abort();
  }
}

/// A property of the reader's result that does not hold: aborts with `what`.
[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "fuzz: %s\n", what);
  std::abort();
}

}  // namespace oasis::fuzz
