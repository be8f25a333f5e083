// SPDX-License-Identifier: Apache-2.0
// oasis-vltest and oasis-icarus (sim/vltest, sim/icarus): bad input is refused with one line
// and exit status 2, before anything is generated or built. Their runs are the vl.* and iv.*
// tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "gen/generator.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

class FlowCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oasis_flow_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The command run through its script in sim/, with a build folder of its own.
  test::CmdResult run(const std::string& script, const std::string& args) {
    for (const char* f : {"oasis-vltest", "oasis-icarus"}) {
      if (!fs::exists(dir_ / f)) fs::create_symlink(fs::path(OASIS_BINARY_DIR) / f, dir_ / f);
    }
    return test::run_command(gen::shell_word(std::string(OASIS_SOURCE_DIR) + "/sim/" + script) +
                             " --build " + gen::shell_word(dir_.string()) + " " + args + " 2>&1");
  }
  fs::path dir_;
};

TEST_F(FlowCli, RefusesBadInput) {
  const std::string config =
      " --config " + gen::shell_word(std::string(OASIS_SOURCE_DIR) + "/configs/default.json");
  for (const auto& [script, args, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"vltest", "--block nosuch" + config,
            "no testbench verif/tb/nosuch_tb.cpp for block 'nosuch'"},
           {"vltest", "--block comparator" + config + " --netlist --coverage x.dat",
            "--netlist excludes --coverage"},
           {"vltest", "--block comparator" + config + " --netlist --behavioural",
            "--behavioural selects a form of the RTL"},
           {"vltest", "--block comparator" + config + " --hier --coverage x.dat",
            "--hier builds the RTL without coverage"},
           {"vltest", "--block comparator" + config + " --mutate nosuch",
            "--mutate nosuch: no such mutation; allowed:"},
           {"vltest", "--block comparator" + config + " --set channels=1", "channels"},
           {"vltest", "--block comparator", "--config is required"},
           {"icarus", "--block comparator" + config + " --bogus", "bogus"},
           {"icarus", "--config x.json", "--block is required"}}) {
    const auto r = run(script, args);
    EXPECT_EQ(r.status, 2) << script << " " << args << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << script << " " << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one line: " << r.out;
    EXPECT_FALSE(fs::exists(dir_ / "vl")) << args << " wrote something";
  }
}

}  // namespace
}  // namespace oasis
