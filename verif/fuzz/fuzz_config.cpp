// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the config reader, as oasis-gen, oasis-model and oasis-perf call it. The input is
// a config's text, then `--set` overrides, each after a NUL byte (`{...}\0act_bits=3\0...`).
// A config it accepts is derived, hashed and written back, and reads back the same.
#include <string>
#include <string_view>
#include <vector>

#include "model/config.hpp"
#include "verif/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  std::vector<std::string> overrides;
  for (size_t at = nul; at != std::string_view::npos && at < input.size();) {
    const size_t next = input.find('\0', at + 1);
    overrides.emplace_back(
        input.substr(at + 1, next == std::string_view::npos ? next : next - at - 1));
    at = next;
  }
  oasis::Config c;
  try {
    c = oasis::load_config_text(text, "fuzz.json", overrides);
  } catch (const oasis::ConfigError& e) {
    oasis::fuzz::check_message(e.what());
    return 0;
  }
  const std::string written = oasis::to_json(c).dump();
  const oasis::Config again = oasis::load_config_text(written, "written.json");
  if (oasis::config_hash(again) != oasis::config_hash(c)) {
    oasis::fuzz::broken("a config written back reads differently");
  }
  (void)oasis::derive(c);
  return 0;
}
