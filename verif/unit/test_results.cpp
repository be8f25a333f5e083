// SPDX-License-Identifier: Apache-2.0
// The results page (sim/ppa/results.hpp, docs/results.md): the page in the repository is its
// JSON rendered, every figure of a table is on the page as the JSON has it, and oasis-results
// refuses input that is not a three_ways.json with its run and a page it did not write.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "gen/generator.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/results.hpp"
#include "sim/ppa/run.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis::ppa {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const fs::path kRoot = OASIS_SOURCE_DIR;

TEST(Results, ThePageIsItsJsonRendered) {
  const json r = json::parse(read_text(kRoot / "docs/results.json"));
  EXPECT_EQ(results_markdown(r), read_text(kRoot / "docs/results.md"))
      << "docs/results.md is not docs/results.json rendered: run `make results`";
  EXPECT_FALSE(r["three_ways"].empty());
  for (const json& t : r["three_ways"]) {
    EXPECT_FALSE(t["run"]["commit"].get<std::string>().empty()) << t["run"];
  }
}

// A small table: each of its figures appears on the page, as rounded there.
TEST(Results, EveryFigureOfATableIsOnThePage) {
  json line = {{"key", "pe_line"},
               {"name", "the PE line"},
               {"area_um2", 5290010.0},
               {"logic_um2", 5142554.0},
               {"products_per_cycle", 16.0},
               {"energy_per_product_pj", 445.0651},
               {"products_per_cycle_per_mm2", 3.02},
               {"met", true},
               {"activity_energy_per_product_pj", 531.7671}};
  json other = line;
  other["name"] = "the MAC line";
  other["met"] = false;
  other.erase("activity_energy_per_product_pj");
  json t = {{"run", three_ways_run("default", {"channels=64"}, "osu018_stdcells", 130, 12.8904,
                                   "the synthetic layer", "oasis-ppa --three-ways", "abc1234")},
            {"lines", {line, other}}};
  json s = {{"config", "paper"},
            {"models", {"LLaMA-2-7B", "Mistral-7B"}},
            {"tokens", 1},
            {"clock_mhz", 500},
            {"energy_file", "configs/energy/osu018.json"},
            {"command", "make results"},
            {"commit", "def5678"},
            {"paper", {{"speedup", 3.0}, {"energy_ratio", 1.44}}},
            {"rows",
             {{{"memory", "HBM2"},
               {"memory_file", "configs/memory/hbm2.json"},
               {"speedup", 0.9581},
               {"speedup_equal_area", 0.9577},
               {"energy_ratio", 2.0019}}}}};
  const std::string md =
      results_markdown({{"written_by", "oasis-results"}, {"three_ways", {t}}, {"system", s}});
  EXPECT_EQ(md.rfind(kResultsMark, 0), 0u);
  // Prose is wrapped at 100 columns: looked for with its line breaks as spaces.
  std::string flat = md;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  for (const char* want :
       {"`default` (--set channels=64), 130 FO4", "`oasis-ppa --three-ways` at commit abc1234",
        "| the PE line | 5.29 | 5.14 | 16 | 531.8 | 445.1 | 3.02 | yes |",
        "| the MAC line | 5.29 | 5.14 | 16 | - | 445.1 | 3.02 | no |",
        "`make results` at commit def5678", "LLaMA-2-7B, Mistral-7B",
        "| HBM2 | 0.958x | 0.958x | 2.002x |"}) {
    EXPECT_NE(flat.find(want), std::string::npos) << want << "\n" << md;
  }
}

// The commit a table names, read from a source folder whose path holds an apostrophe and a
// space (docs/paths.md).
TEST(Results, NamesTheCommitOfAFolderWithAnApostrophe) {
  const test::TempDir dir("results it's");
  const std::string d = gen::shell_word(dir.path().string());
  const auto r = test::run_command("git init -q " + d + " && git -C " + d +
                                   " -c user.name=t -c user.email=t@t commit -q --allow-empty "
                                   "-m t 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string commit = source_commit(dir.path());
  EXPECT_GE(commit.size(), 7u) << commit;
  EXPECT_EQ(commit.find_first_not_of("0123456789abcdef"), std::string::npos) << commit;
}

TEST(Results, RefusesWhatItCannotUseAndKeepsWhatItDidNotWrite) {
  const test::TempDir dir("results_cli");
  const auto results = [&](const std::string& args) {
    return test::run_command(gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-results") +
                             " " + args + " 2>&1");
  };
  // A three_ways.json without its run (as oasis-ppa wrote before it recorded runs).
  write_text(dir.path() / "old.json", R"({"period_ns": 12.9, "lines": [{}, {}]})");
  auto r = results("--three-ways " + gen::shell_word((dir.path() / "old.json").string()) +
                   " --out " + gen::shell_word(dir.path().string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no run and lines in it"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path() / "results.md"));
  // A page it did not write is left as it is.
  write_text(dir.path() / "results.md", "my notes\n");
  json t = {{"run", three_ways_run("default", {}, "osu018_stdcells", 130, 12.9, "w", "c", "x")},
            {"lines", {{{"name", "a"}}, {{"name", "b"}}}}};
  write_text(dir.path() / "t.json", t.dump());
  r = results("--three-ways " + gen::shell_word((dir.path() / "t.json").string()) + " --out " +
              gen::shell_word(dir.path().string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("oasis-results did not write it"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(dir.path() / "results.md"), "my notes\n");
  EXPECT_FALSE(fs::exists(dir.path() / "results.json"));
}

}  // namespace
}  // namespace oasis::ppa
