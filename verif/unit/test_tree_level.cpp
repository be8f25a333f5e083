// SPDX-License-Identifier: Apache-2.0
// The pairwise tree's level (oasis_<config>_tree_level, gen/fp_emit.cpp): a pair whose right
// value is absent adds -0 in its place, which must give the left value exactly for every value
// a tree can hold, a unit's result: every encoding but the NaNs other than the canonical one.
// Yosys's SAT solver proves it for every such left value, in binary16 and binary32, on the
// level the generator writes for the default config; the same proof against a wrong reference
// fails, so that a solver that proves anything is caught.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "gen/generator.hpp"
#include "model/config.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

// ok is 1 when the level's one output is the left value (xor Off) or that value is a NaN no
// unit gives; the right value is present_i's absent one, whatever its bits.
constexpr const char* kCheck =
    R"(module check #(
  parameter int ExpBits = 5, parameter int FracBits = 10, parameter int Off = 0
) (
  input  logic                      clk,
  input  logic [ExpBits+FracBits:0] a,
  input  logic [ExpBits+FracBits:0] b,
  output logic                      ok
);
  localparam int Width = ExpBits + FracBits + 1;
  localparam logic [Width-1:0] CanonicalNan =
    {1'b0, {ExpBits{1'b1}}, 1'b1, {(FracBits-1){1'b0}}};
  logic [Width-1:0] sum;
  logic             present, valid;
  oasis_default_tree_level #(.Inputs(2), .Width(Width), .ExpBits(ExpBits), .Stages(0), .Cuts(0))
    u_level (.clk_i(clk), .rst_ni(1'b1), .valid_i(1'b1), .data_i({b, a}), .present_i(2'b01),
             .valid_o(valid), .data_o(sum), .present_o(present));
  assign ok = (&a[Width-2:FracBits] && |a[FracBits-1:0] && a != CanonicalNan) ||
              sum == (a ^ Width'(Off));
endmodule
)";

TEST(TreeLevel, AnAbsentRightValueGivesTheLeftOneExactly) {
  const Config c = load_config(test::kDefault);
  const auto files = gen::render(c, {"configs/default.json", {}, "x"});
  const fs::path dir = fs::path(OASIS_BINARY_DIR) / "test_tree_level";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The level and the primitives it instantiates, dependencies first (the pipe before the
  // adder's parts).
  std::string sources;
  for (const char* f : {"oasis_fp_pipe.sv", "oasis_add.sv", "oasis_inc.sv", "oasis_fp_round.sv",
                        "oasis_fp_add_staged.sv", "oasis_default_tree_level.sv"}) {
    std::ofstream(dir / f, std::ios::binary) << files.at(f);
    sources += std::string(f) + " ";
  }
  std::ofstream(dir / "check.sv", std::ios::binary) << kCheck;
  const auto prove = [&](int exp_bits, int frac_bits, int off) {
    return test::run_command(fmt::format(
        "cd {} && yosys -q -p 'read_verilog -sv {} check.sv; hierarchy -check -top check "
        "-chparam ExpBits {} -chparam FracBits {} -chparam Off {}; proc; flatten; opt -fast; "
        "sat -prove ok 1 -verify' 2>&1",
        gen::shell_word(dir.string()), sources, exp_bits, frac_bits, off));
  };
  for (const auto& [e, f] : {std::pair(5, 10), std::pair(8, 23)}) {
    const test::CmdResult r = prove(e, f, 0);
    EXPECT_EQ(r.status, 0) << "binary" << (1 + e + f) << ":\n" << r.out;
  }
  const test::CmdResult wrong = prove(5, 10, 1);
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

}  // namespace
}  // namespace oasis
