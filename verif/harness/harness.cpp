// SPDX-License-Identifier: Apache-2.0
#include "verif/harness/harness.hpp"

#include <fmt/format.h>

#include <fstream>
#include <string>

namespace oasis::tb {

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
