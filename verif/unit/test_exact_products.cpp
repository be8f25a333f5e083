// SPDX-License-Identifier: Apache-2.0
// Exact products and conversions (rtl/oasis_fp_round.sv's Exact): where every result of a
// multiplier or a count conversion is exact and normal in its format (binary16 x binary16 in
// binary32, a PE line's count in Derived::count_format, that count times a binary16 LUT entry
// in binary32), the units leave the rounding out. Yosys's SAT solver proves, for every pair of
// operands, that the unit gives what the same unit with its whole rounding gives
// (KeepRounding); the same proof against a wrong reference fails, so that a solver that
// proves anything is caught. Shared logic (the significands' product) is merged before the
// proof, so the solver compares the roundings.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/derived.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

// ok is 1 when the unit as used (exact) gives the unit with its whole rounding's result (xor
// Off): a multiplier of operands in formats A and B into ExpBits / FracBits, and a conversion
// of an unsigned integer of IntBits bits into the same format.
constexpr const char* kCheck =
    R"(module check #(
  parameter int ExpBits = 8, parameter int FracBits = 23,
  parameter int AExpBits = 5, parameter int AFracBits = 10,
  parameter int BExpBits = 5, parameter int BFracBits = 10,
  parameter int IntBits = 8, parameter bit Convert = 0, parameter int Off = 0
) (
  input  logic [AExpBits+AFracBits:0] a,
  input  logic [BExpBits+BFracBits:0] b,
  input  logic [IntBits-1:0]          n,
  output logic                        ok
);
  localparam int Width = ExpBits + FracBits + 1;
  logic [Width-1:0] exact, rounded;
  if (Convert) begin : g_convert
    logic unused_ab;
    assign unused_ab = ^{a, b};
    oasis_fp_from_uint #(.IntBits(IntBits), .ExpBits(ExpBits), .FracBits(FracBits))
      u_exact (.n_i(n), .result_o(exact));
    oasis_fp_from_uint #(.IntBits(IntBits), .ExpBits(ExpBits), .FracBits(FracBits),
                         .KeepRounding(1'b1))
      u_rounded (.n_i(n), .result_o(rounded));
  end else begin : g_mul
    logic unused_n, unused_valid_exact, unused_valid_rounded;
    assign unused_n = ^n;
    oasis_fp_mul_staged #(.ExpBits(ExpBits), .FracBits(FracBits), .AExpBits(AExpBits),
                          .AFracBits(AFracBits), .BExpBits(BExpBits), .BFracBits(BFracBits))
      u_exact (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a), .b_i(b),
               .valid_o(unused_valid_exact), .prod_o(exact));
    oasis_fp_mul_staged #(.ExpBits(ExpBits), .FracBits(FracBits), .AExpBits(AExpBits),
                          .AFracBits(AFracBits), .BExpBits(BExpBits), .BFracBits(BFracBits),
                          .KeepRounding(1'b1))
      u_rounded (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a), .b_i(b),
                 .valid_o(unused_valid_rounded), .prod_o(rounded));
  end
  assign ok = exact == (rounded ^ Width'(Off));
endmodule
)";

class ExactProducts : public ::testing::Test {
 protected:
  void SetUp() override {
    const Config c = load_config(test::kDefault);
    const auto files = gen::render(c, {"configs/default.json", {}, "x"});
    dir_ = fs::path(OASIS_BINARY_DIR) / "test_exact_products";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : {"oasis_fp_pipe.sv", "oasis_add.sv", "oasis_inc.sv", "oasis_fa.sv",
                          "oasis_ha.sv", "oasis_mul_cs.sv", "oasis_fp_round.sv",
                          "oasis_fp_mul_staged.sv", "oasis_fp_from_uint.sv"}) {
      std::ofstream(dir_ / f, std::ios::binary) << files.at(f);
      sources_ += std::string(f) + " ";
    }
    std::ofstream(dir_ / "check.sv", std::ios::binary) << kCheck;
  }

  // Proves ok for every input of check with these parameters.
  test::CmdResult prove(const std::string& params) const {
    return test::run_command(
        fmt::format("cd {} && yosys -q -p 'read_verilog -sv {} check.sv; hierarchy -check -top "
                    "check {}; proc; flatten; opt -fast; sat -prove ok 1 -verify' 2>&1",
                    gen::shell_word(dir_.string()), sources_, params));
  }

  static std::string format_params(const std::string& prefix, const FpFormat& f) {
    return fmt::format("-chparam {0}ExpBits {1} -chparam {0}FracBits {2}", prefix, f.exp_bits,
                       f.frac_bits);
  }

  fs::path dir_;
  std::string sources_;
};

TEST_F(ExactProducts, Binary16TimesBinary16InBinary32) {
  const test::CmdResult r = prove("");
  EXPECT_EQ(r.status, 0) << r.out;
  const test::CmdResult wrong = prove("-chparam Off 1");
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

TEST_F(ExactProducts, ACountTimesABinary16LutEntryInBinary32) {
  const Derived d = derive(load_config(test::kDefault));
  ASSERT_EQ(d.count_format.name(), "e4m7");  // 8-bit counts: the proof covers the default
  const test::CmdResult r = prove(format_params("A", d.count_format));
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(ExactProducts, ACountIntoItsFormat) {
  const Derived d = derive(load_config(test::kDefault));
  const test::CmdResult r = prove(fmt::format("-chparam Convert 1 -chparam IntBits {} {}",
                                              d.count_bits, format_params("", d.count_format)));
  EXPECT_EQ(r.status, 0) << r.out;
  const test::CmdResult wrong =
      prove(fmt::format("-chparam Convert 1 -chparam IntBits {} {} -chparam Off 1", d.count_bits,
                        format_params("", d.count_format)));
  EXPECT_NE(wrong.status, 0) << wrong.out;
}

// The narrowest exact format, at the edges of the exponent's rule; a count the accumulator
// cannot hold exactly stays in the accumulator's format.
TEST(CountFormat, HoldsEveryCountExactlyWithTheFewestBits) {
  const FpFormat b32{8, 23}, b16{5, 10};
  EXPECT_EQ(count_format(1, b32).name(), "e2m1");
  EXPECT_EQ(count_format(2, b32).name(), "e2m1");
  EXPECT_EQ(count_format(3, b32).name(), "e3m2");
  EXPECT_EQ(count_format(5, b32).name(), "e4m4");
  EXPECT_EQ(count_format(8, b32).name(), "e4m7");
  EXPECT_EQ(count_format(9, b32).name(), "e5m8");
  EXPECT_EQ(count_format(13, b32).name(), "e5m12");
  EXPECT_EQ(count_format(24, b32).name(), "e6m23");
  EXPECT_EQ(count_format(25, b32).name(), "binary32");
  EXPECT_EQ(count_format(11, b16).name(), "binary16");
  EXPECT_EQ(count_format(12, b16).name(), "binary16");
}

}  // namespace
}  // namespace oasis
