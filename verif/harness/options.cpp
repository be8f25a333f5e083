// SPDX-License-Identifier: Apache-2.0
#include "verif/harness/options.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace oasis::tb {
namespace {

[[noreturn]] void usage_error(const std::string& block, const std::string& message) {
  fmt::print(
      stderr,
      "{}_tb: {}\nusage: {}_tb --manifest FILE [--label NAME] [--seed N] [--vectors N] "
      "[--exhaustive] [--coverage FILE] [--record FILE [--record-cycles N]] [--summary FILE] "
      "[--workload [--workload-tokens N] [--workload-rows N] [--workload-activations FILE.npy] "
      "[--workload-weights FILE.npy] [--workload-zeros]] [+verilator+...]\n"
      "(SEED=N and TRACE=1 in the environment also work)\n",
      block, message, block);
  std::exit(2);
}

// `text` as a whole number in `base` (0: C's prefixes), none when it is not one.
std::optional<uint64_t> to_u64(const std::string& text, int base) {
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(text, &used, base);
    if (used == text.size() && !text.starts_with("-")) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

uint64_t parse_u64(const std::string& block, const std::string& what, const std::string& text) {
  const auto v = to_u64(text, 0);
  if (!v) {
    usage_error(block, fmt::format("{} must be a non-negative integer, found '{}'", what, text));
  }
  return *v;
}

// A workload size: 1 to Options::kMaxWorkloadSize.
uint64_t parse_size(const std::string& block, const std::string& what, const std::string& text) {
  const auto v = to_u64(text, 10);
  if (!v || *v < 1 || *v > Options::kMaxWorkloadSize) {
    usage_error(block, fmt::format("{} must be a whole number from 1 to {}, found '{}'", what,
                                   Options::kMaxWorkloadSize, text));
  }
  return *v;
}

}  // namespace

Options Options::parse(std::string block, int argc, char** argv) {
  Options o;
  o.block = std::move(block);
  if (const char* s = std::getenv("SEED"); s && *s) o.seed = parse_u64(o.block, "SEED", s);
  if (const char* t = std::getenv("TRACE"); t && std::string(t) == "1") o.trace = true;
  std::string workload_option;  // a --workload-* option given, for the check below
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(o.block, a + " needs a value");
      return argv[++i];
    };
    if (a.starts_with("+")) continue;  // Verilator's own +verilator+ arguments
    if (a.starts_with("--workload-")) workload_option = a;
    if (a == "--manifest") {
      o.manifest_path = value();
    } else if (a == "--label") {
      o.label = value();
    } else if (a == "--seed") {
      o.seed = parse_u64(o.block, "--seed", value());
    } else if (a == "--vectors") {
      o.vectors = parse_u64(o.block, "--vectors", value());
    } else if (a == "--exhaustive") {
      o.exhaustive = true;
    } else if (a == "--coverage") {
      o.coverage_path = value();
    } else if (a == "--record") {
      o.record_path = value();
    } else if (a == "--record-cycles") {
      o.record_cycles = parse_u64(o.block, "--record-cycles", value());
    } else if (a == "--summary") {
      o.summary_path = std::filesystem::absolute(value()).string();
    } else if (a == "--workload") {
      o.workload = true;
    } else if (a == "--workload-tokens") {
      o.workload_tokens = parse_size(o.block, a, value());
    } else if (a == "--workload-rows") {
      o.workload_rows = parse_size(o.block, a, value());
    } else if (a == "--workload-activations") {
      o.workload_activations = value();
    } else if (a == "--workload-weights") {
      o.workload_weights = value();
    } else if (a == "--workload-zeros") {
      o.workload_zeros = true;
    } else {
      usage_error(o.block, fmt::format("unknown argument '{}'", a));
    }
  }
  if (!o.workload && !workload_option.empty()) {
    usage_error(o.block, fmt::format("{} needs --workload", workload_option));
  }
  if (o.workload && (o.exhaustive || o.vectors != 0)) {
    usage_error(o.block, fmt::format("--workload runs instead of the {} stimulus: not with {}",
                                     o.exhaustive ? "exhaustive" : "random",
                                     o.exhaustive ? "--exhaustive" : "--vectors"));
  }
  if (o.manifest_path.empty()) usage_error(o.block, "--manifest is required");
  try {
    o.manifest = gen::Manifest::read(o.manifest_path);
    if (o.label.empty()) o.label = o.manifest.config_name();
  } catch (const gen::ManifestError& e) {
    usage_error(o.block, e.what());
  }
  o.trace_path =
      std::filesystem::absolute(fmt::format("{}_{}_seed{}.vcd", o.block, o.label, o.seed)).string();
  // Written only by a build with Verilator's --coverage; the default is Verilator's own name.
  if (o.coverage_path.empty()) o.coverage_path = "coverage.dat";
  o.coverage_path = std::filesystem::absolute(o.coverage_path).string();
  return o;
}

long long Options::param(const std::string& key) const {
  try {
    if (const auto v = manifest.figure(block, key)) return *v;
  } catch (const gen::ManifestError& e) {
    fmt::print(stderr, "{}_tb: {}\n", block, e.what());
    std::exit(2);
  }
  fmt::print(stderr, "{}_tb: manifest has no parameter '{}'\n", block, key);
  std::exit(2);
}

}  // namespace oasis::tb
