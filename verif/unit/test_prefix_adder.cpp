// The prefix adder of the floating-point units (rtl/oasis_add.sv, docs/fp_rtl.md, Adders),
// proved equal to the addition it stands for by Yosys's SAT solver at widths from 1 to 48:
// every input, not a sample. The FP units' simulations check it only through their results.
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

// The wrapper the proofs run on: ok is 1 when the prefix adder's {carry_o, sum_o} is
// a + b + carry, and `Off` added to the reference (0 for the proof, 1 for the proof that must
// fail, so that a solver that proves anything is caught).
constexpr const char* kCheck = R"(module check #(parameter int Width = 8, parameter int Off = 0) (
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

// Yosys proves ok = 1 for every input of the wrapper at `width`; the exit status and output.
test::CmdResult prove(const fs::path& dir, int width, int off) {
  return test::run_command(fmt::format(
      "cd {} && yosys -q -p 'read_verilog -sv oasis_add.sv check.sv; "
      "hierarchy -check -top check -chparam Width {} -chparam Off {}; proc; flatten; opt -fast; "
      "sat -prove ok 1 -verify' 2>&1",
      gen::shell_word(dir.string()), width, off));
}

TEST(PrefixAdder, EqualsTheAdditionAtEveryWidth) {
  const fs::path dir = fs::path(OASIS_BINARY_DIR) / "test_prefix_adder";
  fs::remove_all(dir);
  fs::create_directories(dir);
  bool found = false;
  for (const auto& f : gen::embedded_rtl()) {
    if (f.name != "oasis_add.sv") continue;
    std::ofstream(dir / f.name, std::ios::binary) << f.text;
    found = true;
  }
  ASSERT_TRUE(found) << "rtl/oasis_add.sv is not among the embedded primitives";
  std::ofstream(dir / "check.sv", std::ios::binary) << kCheck;
  // Widths of one level and of many, powers of two and not, up to the multiplier's product.
  for (int width : {1, 2, 3, 5, 8, 13, 24, 28, 35, 48}) {
    const test::CmdResult r = prove(dir, width, 0);
    EXPECT_EQ(r.status, 0) << "width " << width << ":\n" << r.out;
  }
  // The same proof against a wrong reference fails.
  const test::CmdResult wrong = prove(dir, 13, 1);
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

}  // namespace
}  // namespace oasis
