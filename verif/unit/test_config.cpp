// SPDX-License-Identifier: Apache-2.0
// Config validation through the real command: each malformed config gives one
// clear message naming the field, exit status 2, and leaves the output
// folder exactly as it was.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gen/generator.hpp"
#include "model/config.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

struct GenRun {
  int status;
  std::string err;
};

GenRun run_gen(const std::string& args) {
  const std::string cmd = fmt::format(
      "{} {} 2>&1 >/dev/null", gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-gen"), args);
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_default() { return slurp(fs::path(OASIS_SOURCE_DIR) / "configs/default.json"); }

// Replaces the value of "key" in the default config's text.
std::string with(const std::string& key, const std::string& value) {
  std::string t = read_default();
  const auto at = t.find("\"" + key + "\"");
  const auto colon = t.find(':', at);
  const auto end = t.find_first_of(",\n}", colon);
  return t.substr(0, colon + 1) + " " + value + t.substr(end);
}

struct Bad {
  const char* what;
  std::string text;
  const char* expect;  // must appear in the message
};

class MalformedConfig : public ::testing::TestWithParam<int> {};

std::vector<Bad> bad_configs() {
  std::string trunc = read_default();
  trunc.resize(trunc.size() / 2);
  std::string unknown = read_default();
  unknown.insert(unknown.find('{') + 1, "\n  \"pe_line\": 4,");
  std::string pop = read_default();
  pop.insert(pop.find('{') + 1, "\n  \"orizuru_pop_levels\": -2,");
  // Hostile configs (issue #63): each crashed oasis-gen, exited 1 with library text, or was
  // taken silently.
  std::string twice = read_default();
  twice.insert(twice.find('{') + 1, "\n  \"pe_lines\": 2, \"pe_lines\": 4,");
  std::string second_name = read_default();
  second_name.insert(second_name.find('{') + 1, "\n  \"name\": \"other\",");
  std::string large = "[";
  large.resize(size_t(50) << 20, ' ');  // 50 MB, which took 3.9 GB to parse
  large.back() = ']';
  return {
      {"unknown key", unknown, "unknown field 'pe_line'"},
      {"wrong type", with("channels", "\"128\""), "field 'channels': found a string \"128\""},
      {"out-of-range act_bits", with("act_bits", "5"), "field 'act_bits': found the number 5"},
      {"out-of-range weight_bits", with("weight_bits", "0"),
       "field 'weight_bits': found the number 0"},
      {"k = 0", with("outliers_per_side", "0"), "field 'outliers_per_side': found the number 0"},
      {"2k > N", with("outliers_per_side", "65"), "2k <= channels (128), so at most 64"},
      {"name not an identifier", with("name", "\"my-core\""),
       "field 'name': found a string \"my-core\""},
      {"name with a path separator", with("name", "\"../evil\""), "field 'name'"},
      {"truncated JSON", trunc, "is not valid JSON"},
      {"non-integer", with("pe_lines", "2.5"), "field 'pe_lines': found a non-integer number 2.5"},
      {"R not a power of two", with("orizuru_unit_inputs", "12"), "a power of two from 2 to 64"},
      {"bad enum", with("accumulator", "\"bf16\""), "one of \"fp32\", \"fp16\""},
      {"pop levels out of range", pop, "field 'orizuru_pop_levels': found the number -2"},
      {"nested 100,000 deep", std::string(100000, '[') + std::string(100000, ']'),
       "arrays and objects nested more than 16 deep at '[0][0][0]"},
      {"a number beyond a double", with("pe_lines", "1e400"),
       "the number 1e400 at 'pe_lines' is beyond the range of a double"},
      {"a key twice", twice, "key 'pe_lines' appears twice in the top-level object"},
      {"a second name", second_name, "key 'name' appears twice in the top-level object"},
      {"50 MB", large, "is 52428800 bytes; allowed: at most 1048576 bytes"},
  };
}

TEST_P(MalformedConfig, ExitsTwoWithOneClearMessageAndWritesNothing) {
  const Bad bad = bad_configs()[size_t(GetParam())];
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("oasis_cfg_test_{}_{}", getpid(), GetParam());
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  std::ofstream(dir / "out" / "keep.txt") << "previous output";
  std::ofstream(dir / "bad.json") << bad.text;
  const GenRun r =
      run_gen(fmt::format("--config {} --out {}", gen::shell_word((dir / "bad.json").string()),
                          gen::shell_word((dir / "out").string())));
  EXPECT_EQ(r.status, 2) << bad.what << ": " << r.err;
  EXPECT_NE(r.err.find(bad.expect), std::string::npos) << bad.what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  // The output folder is untouched and nothing else appeared beside it.
  EXPECT_EQ(slurp(dir / "out" / "keep.txt"), "previous output");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out"), fs::directory_iterator{}), 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 2);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Each, MalformedConfig, ::testing::Range(0, int(bad_configs().size())));

TEST(Config, CommandLineErrorsExitTwo) {
  EXPECT_EQ(run_gen("--bogus").status, 2);
  EXPECT_EQ(run_gen("--config").status, 2);
  EXPECT_EQ(run_gen("--out /tmp/x").status, 2);
  const GenRun missing = run_gen("--config /nonexistent.json --out /tmp/oasis_never");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("cannot be read"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists("/tmp/oasis_never"));
  const GenRun bad_set = run_gen(
      fmt::format("--config {} --set act_bits --out /tmp/oasis_never",
                  gen::shell_word(std::string(OASIS_SOURCE_DIR) + "/configs/default.json")));
  EXPECT_EQ(bad_set.status, 2) << bad_set.err;
}

// --set values are JSON when they parse as JSON: JSON beyond the config's limits is refused, with
// the override named, and a value that is not UTF-8 is a string the message can still quote.
TEST(Config, HostileOverridesAreRefusedWithTheirName) {
  const std::string path = std::string(OASIS_SOURCE_DIR) + "/configs/default.json";
  const auto message = [&](const std::string& override_text) -> std::string {
    try {
      load_config(path, {override_text});
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message("pe_lines=" + std::string(100000, '[') + std::string(100000, ']')),
            "override 'pe_lines': arrays and objects nested more than 16 deep at "
            "'[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]'");
  EXPECT_EQ(message("pe_lines=1e400"),
            "override 'pe_lines': the number 1e400 is beyond the range of a double (about "
            "1.8e308 in magnitude)");
  const std::string not_utf8 = message("name=\xff\xfe");
  EXPECT_NE(not_utf8.find("field 'name': found a string"), std::string::npos) << not_utf8;
  const GenRun r = run_gen(fmt::format(
      "--config {} --set name=$(printf '\\377') --out /tmp/oasis_never", gen::shell_word(path)));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("field 'name': found a string"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists("/tmp/oasis_never"));
}

TEST(Config, ShippedConfigsParse) {
  const Config d = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/default.json");
  EXPECT_EQ(d.name, "default");
  const Config p = load_config(std::string(OASIS_SOURCE_DIR) + "/configs/paper.json");
  // docs/spec.md section 7: the paper's Table II.
  EXPECT_EQ(p.channels, 4096);
  EXPECT_EQ(p.outliers_per_side, 21);  // ceil(0.5 % of 4096)
  EXPECT_EQ(p.pe_lines, 16);
  EXPECT_EQ(p.index_counters, 32);
  EXPECT_EQ(p.counter_inputs, 16);
  EXPECT_EQ(p.mac_tree_inputs, 32);
  EXPECT_EQ(p.comp_macs, 8);
  EXPECT_EQ(p.clustering_lanes, 4);
  const Derived pd = derive(p);
  EXPECT_EQ(pd.orizuru.units, 273);
  EXPECT_EQ(pd.row.row, 8);  // max(4096/512 = 8, 8, 8, ceil(42/8) = 6)
  EXPECT_EQ(pd.gemm_lower_bound(4096), 2048);
}

TEST(Config, OverridesApplyBeforeValidation) {
  const std::string path = std::string(OASIS_SOURCE_DIR) + "/configs/default.json";
  const Config c = load_config(path, {"act_bits=3", "accumulator=fp16"});
  EXPECT_EQ(c.act_bits, 3);
  EXPECT_EQ(c.accumulator, AccumulatorFormat::kFp16);
  EXPECT_THROW(load_config(path, {"nope=1"}), ConfigError);
  EXPECT_THROW(load_config(path, {"act_bits=9"}), ConfigError);
}

TEST(Config, DerivedHelpers) {
  EXPECT_EQ(clog2(1), 0);
  EXPECT_EQ(clog2(2), 1);
  EXPECT_EQ(clog2(5), 3);
  EXPECT_EQ(index_width(1), 1);
  EXPECT_EQ(index_width(5), 3);
  EXPECT_EQ(count_width(4), 3);
  EXPECT_EQ(count_width(3), 2);
  const std::string path = std::string(OASIS_SOURCE_DIR) + "/configs/paper.json";
  const auto units = [&](int n) {
    return derive(load_config(path, {fmt::format("channels={}", n), "weight_beat_indices=2",
                                     "outliers_per_side=1", "clustering_lanes=1"}))
        .orizuru.units;
  };
  EXPECT_EQ(units(64), 5);
  EXPECT_EQ(units(2), 1);
  EXPECT_EQ(units(8192), 512 + 32 + 2 + 1);
}

}  // namespace
}  // namespace oasis

namespace oasis {
namespace {

TEST(Config, DocsShowTheSchemaAsItIs) {
  std::ifstream in(std::string(OASIS_SOURCE_DIR) + "/docs/config.md");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find(config_schema_markdown()), std::string::npos)
      << "docs/config.md is out of date: regenerate its table with oasis-gen --schema";
}

}  // namespace
}  // namespace oasis

namespace oasis {
namespace {

// The project's one hash against FNV's published 64-bit FNV-1a test vectors (the empty string
// is the offset basis itself), and a run continued across two calls equal to one call.
TEST(Config, Fnv1aIsFnvsOwn) {
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ull);
  EXPECT_EQ(fnv1a("bar", fnv1a("foo")), fnv1a("foobar"));
}

}  // namespace
}  // namespace oasis
