// SPDX-License-Identifier: Apache-2.0
#include "verif/harness/harness.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace oasis::tb {
namespace {

[[noreturn]] void usage_error(const std::string& block, const std::string& message) {
  fmt::print(
      stderr,
      "{}_tb: {}\nusage: {}_tb --manifest FILE [--label NAME] [--seed N] [--vectors N] "
      "[--exhaustive] [--coverage FILE] [--record FILE [--record-cycles N]] [--summary FILE] "
      "[+verilator+...]\n"
      "(SEED=N and TRACE=1 in the environment also work)\n",
      block, message, block);
  std::exit(2);
}

uint64_t parse_u64(const std::string& block, const std::string& what, const std::string& text) {
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(text, &used, 0);
    if (used != text.size() || text.starts_with("-")) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    usage_error(block, fmt::format("{} must be a non-negative integer, found '{}'", what, text));
  }
}

}  // namespace

Options Options::parse(std::string block, int argc, char** argv) {
  Options o;
  o.block = std::move(block);
  if (const char* s = std::getenv("SEED"); s && *s) o.seed = parse_u64(o.block, "SEED", s);
  if (const char* t = std::getenv("TRACE"); t && std::string(t) == "1") o.trace = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(o.block, a + " needs a value");
      return argv[++i];
    };
    if (a.starts_with("+")) continue;  // Verilator's own +verilator+ arguments
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
    } else {
      usage_error(o.block, fmt::format("unknown argument '{}'", a));
    }
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

bool Scoreboard::check(uint64_t cycle, std::string_view what, uint64_t expected, uint64_t got,
                       std::string_view context) {
  ++checks_;
  if (expected == got) return true;
  ++mismatches_;
  if (mismatches_ <= uint64_t(options_.max_mismatches)) {
    fmt::print(stderr,
               "MISMATCH {} config={} seed={} cycle={}: {} expected 0x{:x} got 0x{:x}{}{}\n",
               options_.block, options_.label, options_.seed, cycle, what, expected, got,
               context.empty() ? "" : " | ", context);
  }
  return false;
}

void Scoreboard::fail(uint64_t cycle, std::string_view message) {
  ++mismatches_;
  if (mismatches_ <= uint64_t(options_.max_mismatches)) {
    fmt::print(stderr, "FAIL {} config={} seed={} cycle={}: {}\n", options_.block, options_.label,
               options_.seed, cycle, message);
  }
}

int Scoreboard::summary() const {
  const bool ok = mismatches_ == 0 && vectors_ > 0;
  fmt::print("{} {} config={} seed={}: {} vectors, {} checks, {} mismatches{}\n",
             ok ? "PASS" : "FAIL", options_.block, options_.label, options_.seed, vectors_, checks_,
             mismatches_, vectors_ == 0 ? " (no vectors were run: that is a failure)" : "");
  if (options_.trace) fmt::print("waveform: {}\n", options_.trace_path);
  if (!options_.summary_path.empty()) {
    nlohmann::ordered_json j;
    j["block"] = options_.block;
    j["config"] = options_.label;
    j["seed"] = options_.seed;
    j["pass"] = ok;
    j["vectors"] = vectors_;
    j["checks"] = checks_;
    j["mismatches"] = mismatches_;
    j["figures"] = figures_;
    std::ofstream out(options_.summary_path);
    out << j.dump(2) << "\n";
    out.close();
    if (!out) {
      fmt::print(stderr, "{}_tb: cannot write the summary '{}'\n", options_.block,
                 options_.summary_path);
      return 1;
    }
  }
  return ok ? 0 : 1;
}

Recorder::Recorder(const std::string& path, uint64_t max_cycles)
    : path_(path), max_cycles_(max_cycles) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) {
    fmt::print(stderr, "cannot write the vector file '{}'\n", path);
    std::exit(2);
  }
}

Recorder::~Recorder() {
  if (!header_written_) std::fputs(("# ports:" + header_ + "\n").c_str(), file_);
  if (std::fclose(file_) != 0) fmt::print(stderr, "writing the vector file '{}' failed\n", path_);
}

void Recorder::declare(std::string_view direction, std::string_view name, int width) {
  header_ += fmt::format(" {}:{}:{}", direction, name, width);
}

void Recorder::end_cycle() {
  if (!header_written_) {
    std::fputs(("# ports:" + header_ + "\n").c_str(), file_);
    header_written_ = true;
  }
  line_ += '\n';
  std::fwrite(line_.data(), 1, line_.size(), file_);
  line_.clear();
  ++cycles_;
}

void Recorder::append_hex(uint64_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) line_ += kHex[(value >> (4 * i)) & 0xF];
}

}  // namespace oasis::tb
