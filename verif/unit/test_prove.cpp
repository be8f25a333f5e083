// SPDX-License-Identifier: Apache-2.0
// oasis-prove (make prove, docs/formal.md): bad input is refused with one line and exit
// status 2, writing nothing; a run of the quick proofs proves each and catches each one's
// injected bug; a folder it did not write is left alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "gen/generator.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

class ProveCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oasis_prove_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  test::CmdResult prove(const std::string& args) {
    return test::run_command(gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-prove") +
                             " --build " + gen::shell_word(OASIS_BINARY_DIR) + " --out " +
                             gen::shell_word(out().string()) + " " + args + " 2>&1");
  }
  fs::path out() const { return dir_ / "out"; }
  fs::path dir_;
};

TEST_F(ProveCli, RefusesBadInput) {
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"'nosuch*'", "no proof matches nosuch*; the proofs: comparator,"},
           {"-j 0 comparator", "--jobs is 0; allowed: 1 to 256"},
           {"--timeout 0 comparator", "--timeout is 0; allowed: 1 or more"},
           {"--source /nonexistent comparator", "no configs/default.json there"},
           {"--bogus", "bogus"}}) {
    const auto r = prove(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one line: " << r.out;
    EXPECT_FALSE(fs::exists(out())) << args << " wrote something";
  }
}

// A folder holding a file oasis-prove did not write is refused and kept as it was.
TEST_F(ProveCli, KeepsAForeignFolder) {
  fs::create_directories(out() / "comparator");
  { std::ofstream(out() / "comparator" / "notes.txt") << "mine\n"; }
  const auto r = prove("comparator");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("holds files and no oasis-prove.txt"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out() / "comparator" / "notes.txt"));
  EXPECT_EQ(std::distance(fs::directory_iterator(out()), fs::directory_iterator()), 1);
}

// The quickest proofs of three kinds (a miter, a bounded proof from reset, a netlist
// equivalence), run twice: the second run replaces the first's folders.
TEST_F(ProveCli, ProvesAndCatchesTheInjectedBugs) {
  for (int run = 0; run < 2; ++run) {
    const auto r = prove("-j 2 comparator clustering_unit.na1 netlist.comparator");
    EXPECT_EQ(r.status, 0) << r.out;
    for (const char* name : {"comparator", "clustering_unit.na1", "netlist.comparator"}) {
      const auto at = r.out.find(std::string("prove: ") + name + " ");
      ASSERT_NE(at, std::string::npos) << name << ": " << r.out;
      const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
      EXPECT_NE(line.find(" PASS "), std::string::npos) << line;
      EXPECT_NE(line.find("proven; injected bug caught"), std::string::npos) << line;
      EXPECT_TRUE(fs::exists(out() / name / "prove.ys")) << name;
      EXPECT_TRUE(fs::exists(out() / name / "bug.ys")) << name;
    }
    EXPECT_NE(r.out.find("prove: all 3 proofs PASS, every injected bug caught"), std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace oasis
