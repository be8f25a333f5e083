// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the readers of a generated folder's JSON, `oasis-gen --query FILE KEY.PATH` and
// the manifest reader (with `--replay-tb FILE BLOCK`, its one command-line user). The input's
// first line is the key path (and the block), the rest the JSON file.
#include <string>
#include <string_view>

#include "gen/manifest.hpp"
#include "gen/query.hpp"
#include "gen/replay_tb.hpp"
#include "verif/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t eol = input.find('\n');
  const std::string path(input.substr(0, eol));
  const std::string_view text =
      eol == std::string_view::npos ? std::string_view() : input.substr(eol + 1);
  nlohmann::ordered_json doc;
  try {
    doc = oasis::gen::parse_json_text(text, "fuzz.json");
  } catch (const oasis::gen::QueryError& e) {
    oasis::fuzz::check_message(e.what());
    return 0;
  }
  try {
    (void)oasis::gen::query_text(oasis::gen::query(doc, path));
  } catch (const oasis::gen::QueryError& e) {
    oasis::fuzz::check_message(e.what());
  }
  try {
    const oasis::gen::Manifest m = oasis::gen::Manifest::from_json(doc, "fuzz.json");
    for (const std::string& block : m.blocks()) {
      try {
        (void)m.top(block);
        (void)m.ports(block);
        (void)m.figure(block, path);
      } catch (const oasis::gen::ManifestError& e) {
        oasis::fuzz::check_message(e.what());
      }
    }
    (void)oasis::gen::replay_testbench(m, path);
  } catch (const oasis::gen::ManifestError& e) {
    oasis::fuzz::check_message(e.what());
  }
  return 0;
}
