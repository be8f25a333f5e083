// The prefix adder and the incrementer of the floating-point units (rtl/oasis_add.sv,
// rtl/oasis_inc.sv, docs/fp_rtl.md, Adders), proved equal to the addition they stand for by
// Yosys's SAT solver at widths from 1 to 48: every input, not a sample. The FP units'
// simulations check them only through their results.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

// Yosys proves ok = 1 for every input of the wrapper at `width`; the exit status and output.
test::CmdResult prove(const fs::path& dir, const std::string& primitive, int width, int off) {
  return test::run_command(fmt::format(
      "cd {} && yosys -q -p 'read_verilog -sv {} check.sv; "
      "hierarchy -check -top check -chparam Width {} -chparam Off {}; proc; flatten; opt -fast; "
      "sat -prove ok 1 -verify' 2>&1",
      gen::shell_word(dir.string()), primitive, width, off));
}

// Every width of one level and of many, powers of two and not, up to the multiplier's product;
// the same proof against a wrong reference fails.
void prove_widths(const std::string& primitive, const char* check) {
  const fs::path dir = fs::path(OASIS_BINARY_DIR) / "test_prefix_adder" / primitive;
  fs::remove_all(dir);
  fs::create_directories(dir);
  bool found = false;
  for (const auto& f : gen::embedded_rtl()) {
    if (f.name != primitive) continue;
    std::ofstream(dir / f.name, std::ios::binary) << f.text;
    found = true;
  }
  ASSERT_TRUE(found) << "rtl/" << primitive << " is not among the embedded primitives";
  std::ofstream(dir / "check.sv", std::ios::binary) << check;
  for (int width : {1, 2, 3, 5, 8, 13, 24, 28, 35, 48}) {
    const test::CmdResult r = prove(dir, primitive, width, 0);
    EXPECT_EQ(r.status, 0) << primitive << ", width " << width << ":\n" << r.out;
  }
  const test::CmdResult wrong = prove(dir, primitive, 13, 1);
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

TEST(PrefixAdder, EqualsTheAdditionAtEveryWidth) { prove_widths("oasis_add.sv", kCheckAdd); }

TEST(PrefixAdder, IncrementEqualsTheAdditionAtEveryWidth) {
  prove_widths("oasis_inc.sv", kCheckInc);
}

}  // namespace
}  // namespace oasis
