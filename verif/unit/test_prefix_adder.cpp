// SPDX-License-Identifier: Apache-2.0
// The prefix adder and the incrementer of the floating-point units (rtl/oasis_add.sv,
// rtl/oasis_inc.sv, docs/fp_rtl.md, Adders), proved equal to the addition they stand for by
// Yosys's SAT solver at widths from 1 to 48, and the multiplier's carry-save tree
// (rtl/oasis_mul_cs.sv) equal to the product at every shape up to 7 by 7 bits: every input, not
// a sample. A proof of 8 by 8 takes half a minute; the binary16 and binary32 shapes are checked
// by the FP multipliers' netlist tests, the simulations that see the tree (simulators read its
// product as one multiplication). The FP units' simulations check these only through their
// results.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gen/embedded_rtl.hpp"
#include "gen/generator.hpp"
#include "verif/unit/run_command.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

// The wrappers the proofs run on: ok is 1 when the primitive's {carry_o, sum_o} is a + b +
// carry (a + carry for the incrementer, its levels kept and not), and `Off` added to the
// reference (0 for the proof, 1 for the proof that must fail, so that a solver that proves
// anything is caught).
constexpr const char* kCheckAdd =
    R"(module check #(parameter int Width = 8, parameter int Off = 0) (
  input  logic [Width-1:0] a,
  input  logic [Width-1:0] b,
  input  logic             c,
  output logic             ok
);
  logic [Width-1:0] sum;
  logic             carry;
  oasis_add #(.Width(Width)) u_add (.a_i(a), .b_i(b), .carry_i(c), .sum_o(sum), .carry_o(carry));
  assign ok = {carry, sum} == {1'b0, a} + {1'b0, b} + (Width+1)'(c) + (Width+1)'(Off);
endmodule
)";

constexpr const char* kCheckInc =
    R"(module check #(parameter int Width = 8, parameter int Off = 0) (
  input  logic [Width-1:0] a,
  input  logic             c,
  output logic             ok
);
  logic [Width-1:0] sum, sum_free;
  logic             carry, carry_free;
  oasis_inc #(.Width(Width)) u_inc (.a_i(a), .carry_i(c), .sum_o(sum), .carry_o(carry));
  oasis_inc #(.Width(Width), .KeepLevels(1'b0)) u_free (
    .a_i(a), .carry_i(c), .sum_o(sum_free), .carry_o(carry_free)
  );
  assign ok = {carry, sum} == {1'b0, a} + (Width+1)'(c) + (Width+1)'(Off) &&
              {carry_free, sum_free} == {1'b0, a} + (Width+1)'(c) + (Width+1)'(Off);
endmodule
)";

constexpr const char* kCheckMul =
    R"(module check #(parameter int AWidth = 8, parameter int BWidth = 8, parameter int Off = 0) (
  input  logic [AWidth-1:0] a,
  input  logic [BWidth-1:0] b,
  output logic              ok
);
  localparam int Width = AWidth + BWidth;
  logic [Width-1:0] sum, carry;
  oasis_mul_cs #(.AWidth(AWidth), .BWidth(BWidth)) u_mul (
    .a_i(a), .b_i(b), .sum_o(sum), .carry_o(carry)
  );
  assign ok = Width'(sum + carry) == Width'(a) * Width'(b) + Width'(Off);
endmodule
)";

// Yosys proves ok = 1 for every input of the wrapper with `params` (its -chparam arguments);
// the exit status and output.
test::CmdResult prove(const fs::path& dir, const std::string& files, const std::string& params) {
  return test::run_command(fmt::format(
      "cd {} && yosys -q -p 'read_verilog -sv {} check.sv; "
      "hierarchy -check -top check {}; proc; flatten; opt -fast; sat -prove ok 1 -verify' 2>&1",
      gen::shell_word(dir.string()), files, params));
}

// The primitives `files` and the wrapper `check` written to a folder of their own, one a test,
// so that tests run side by side do not remove each other's files.
fs::path write_check(const std::string& name, const std::vector<std::string>& files,
                     const char* check) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(OASIS_BINARY_DIR) / "test_prefix_adder" /
                       (std::string(test->test_suite_name()) + "." + test->name()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const std::string& file : files) {
    bool found = false;
    for (const auto& f : gen::embedded_rtl()) {
      if (f.name != file) continue;
      std::ofstream(dir / f.name, std::ios::binary) << f.text;
      found = true;
    }
    EXPECT_TRUE(found) << "rtl/" << file << " is not among the embedded primitives";
  }
  std::ofstream(dir / "check.sv", std::ios::binary) << check;
  return dir;
}

// Every width of one level and of many, powers of two and not, up to the multiplier's product;
// the same proof against a wrong reference fails.
void prove_widths(const std::string& primitive, const char* check) {
  const fs::path dir = write_check(primitive, {primitive}, check);
  for (int width : {1, 2, 3, 5, 8, 13, 24, 28, 35, 48}) {
    const test::CmdResult r =
        prove(dir, primitive, fmt::format("-chparam Width {} -chparam Off 0", width));
    EXPECT_EQ(r.status, 0) << primitive << ", width " << width << ":\n" << r.out;
  }
  const test::CmdResult wrong = prove(dir, primitive, "-chparam Width 13 -chparam Off 1");
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

TEST(PrefixAdder, EqualsTheAdditionAtEveryWidth) { prove_widths("oasis_add.sv", kCheckAdd); }

TEST(PrefixAdder, IncrementEqualsTheAdditionAtEveryWidth) {
  prove_widths("oasis_inc.sv", kCheckInc);
}

// Shapes of one row, of one level and of every level count up to four, square and not, the
// rows the fewer operand bits and the more.
// The carry-save multiplier's tree proved equal to the product at each shape (widths a by b).
void prove_mul_shapes(const std::vector<std::pair<int, int>>& shapes) {
  const std::string files = "oasis_mul_cs.sv oasis_fa.sv oasis_ha.sv";
  const fs::path dir =
      write_check("oasis_mul_cs.sv", {"oasis_mul_cs.sv", "oasis_fa.sv", "oasis_ha.sv"}, kCheckMul);
  for (const auto& [a, b] : shapes) {
    const test::CmdResult r = prove(
        dir, files, fmt::format("-chparam AWidth {} -chparam BWidth {} -chparam Off 0", a, b));
    EXPECT_EQ(r.status, 0) << a << " by " << b << " bits:\n" << r.out;
  }
}

// The shapes up to 6 by 6 bits, and a tree with an error that the proof must refute, in make
// test; 5 by 7 and wider, whose proofs take most of the time, in make regress
// (PrefixAdderRegress below).
TEST(PrefixAdder, CarrySaveTreeEqualsTheProductAtSmallShapes) {
  prove_mul_shapes({{1, 1}, {4, 1}, {1, 4}, {2, 3}, {3, 7}, {7, 2}, {6, 6}});
  const std::string files = "oasis_mul_cs.sv oasis_fa.sv oasis_ha.sv";
  const fs::path dir =
      write_check("oasis_mul_cs.sv", {"oasis_mul_cs.sv", "oasis_fa.sv", "oasis_ha.sv"}, kCheckMul);
  const test::CmdResult wrong =
      prove(dir, files, "-chparam AWidth 3 -chparam BWidth 7 -chparam Off 1");
  EXPECT_NE(wrong.status, 0) << wrong.out;
  // Simulators read the multiplication, not the tree (SYNTHESIS undefined): the tree's text is
  // linted as synthesis reads it, at the binary16 and binary32 shapes.
  for (int width : {11, 24}) {
    const test::CmdResult lint = test::run_command(
        fmt::format("cd {} && verilator --lint-only -Wall -DSYNTHESIS --top-module oasis_mul_cs "
                    "-GAWidth={} -GBWidth={} {} 2>&1",
                    gen::shell_word(dir.string()), width, width, files));
    EXPECT_EQ(lint.status, 0) << lint.out;
  }
}

TEST(PrefixAdderRegress, CarrySaveTreeEqualsTheProductAtTheWideShapes) {
  prove_mul_shapes({{5, 7}, {7, 5}, {7, 7}});
}

}  // namespace
}  // namespace oasis
