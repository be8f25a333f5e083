// SPDX-License-Identifier: Apache-2.0
// make test / regress / test-exhaustive SHARD=i/n: the Makefile hands CTest
// -I i,,n, the n shards together hold every test exactly once, and a bad
// SHARD stops make with one message before anything runs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "verif/unit/run_command.hpp"

namespace oasis {
namespace {

test::CmdResult make_dry(const std::string& args) {
  return test::run_command(fmt::format("make -s -n -C {} BUILD={} {} 2>&1",
                                       gen::shell_word(OASIS_SOURCE_DIR),
                                       gen::shell_word(OASIS_BINARY_DIR), args));
}

// The test names CTest lists for `selection` (its -N output, "Test #k: name").
std::multiset<std::string> listed(const std::string& selection) {
  const test::CmdResult r = test::run_command(
      fmt::format("ctest --test-dir {} -N {} 2>&1", gen::shell_word(OASIS_BINARY_DIR), selection));
  std::multiset<std::string> names;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    if (line.find("Test") != std::string::npos && line.find('#') != std::string::npos &&
        colon != std::string::npos) {
      names.insert(line.substr(colon + 2));
    }
  }
  return names;
}

TEST(Shards, MakePassesEveryNthTestToCTest) {
  const test::CmdResult t = make_dry("test SHARD=2/3");
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("-I 2,,3 -LE 'regress|exhaustive'"), std::string::npos) << t.out;
  const test::CmdResult r = make_dry("regress SHARD=4/4");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("-I 4,,4 -L regress"), std::string::npos) << r.out;
  const test::CmdResult all = make_dry("test");
  EXPECT_EQ(all.out.find("-I "), std::string::npos) << all.out;
}

TEST(Shards, BadShardStopsMake) {
  for (const char* bad : {"0/2", "3/2", "2", "a/b", "1/0", "-1/2"}) {
    const test::CmdResult r = make_dry(fmt::format("test SHARD={}", bad));
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("expected i/n"), std::string::npos) << bad << ": " << r.out;
    EXPECT_EQ(r.out.find("ctest"), std::string::npos) << bad << ": " << r.out;
  }
}

TEST(Shards, TheShardsHoldEveryTestOnce) {
  for (const std::string labels : {"-LE 'regress|exhaustive'", "-L regress"}) {
    const std::multiset<std::string> whole = listed(labels);
    ASSERT_GT(whole.size(), 10u) << labels;
    std::multiset<std::string> together;
    for (int i = 1; i <= 3; ++i) {
      const std::multiset<std::string> shard = listed(fmt::format("-I {},,3 {}", i, labels));
      EXPECT_GE(shard.size(), whole.size() / 3) << labels << " shard " << i;
      together.insert(shard.begin(), shard.end());
    }
    EXPECT_EQ(together, whole) << labels;
  }
}

}  // namespace
}  // namespace oasis
