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
#include <sstream>
#include <string>
#include <vector>

#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/derived.hpp"
#include "model/perf/fp_delay.hpp"
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
    // A folder of each test's own: CTest runs the tests side by side, each in its process.
    dir_ = fs::path(OASIS_BINARY_DIR) /
           (std::string("test_exact_products_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
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

// The rule is written twice: in C++ (exact_product, which gives an exact multiplier its own
// delay and stage count, and holds_integers, by which count_format picks a format a count
// converts into exactly) and in the units' SystemVerilog (the localparam Exact of
// oasis_fp_mul_staged and oasis_fp_from_uint). Icarus elaborates the units over a grid of formats
// that passes and fails each of the rule's conditions, and prints each instance's Exact; the two
// must agree.
TEST_F(ExactProducts, TheModelsRuleIsTheRtls) {
  const std::vector<FpFormat> outputs = {{8, 23}, {6, 23}, {5, 10}, {7, 14}};
  const std::vector<FpFormat> operands = {{5, 10}, {4, 7}, {2, 1}, {3, 2},
                                          {5, 12}, {8, 4}, {6, 5}, {8, 23}};
  struct Case {
    FpFormat f, a, b;
    int bits;  // a conversion's integer bits; 0 for a product
  };
  std::vector<Case> cases;
  for (const FpFormat& f : outputs) {
    for (const FpFormat& a : operands) {
      for (const FpFormat& b : {FpFormat{5, 10}, FpFormat{8, 4}, FpFormat{2, 1}}) {
        cases.push_back({f, a, b, 0});
      }
    }
  }
  // Each count width into the format count_format picks (exact), into binary16 (exact up to
  // 11 bits) and into e3m10, whose exponent reaches 2^3 only (exact up to 4 bits).
  for (int bits = 1; bits <= 26; ++bits) {
    for (const FpFormat& f : {count_format(bits, {8, 23}), FpFormat{5, 10}, FpFormat{3, 10}}) {
      cases.push_back({f, {}, {}, bits});
    }
  }
  std::string sv = "module rule;\n";
  std::string show;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const int width = c.f.exp_bits + c.f.frac_bits + 1;
    if (c.bits == 0) {
      sv += fmt::format(
          "  logic v{0};\n  logic [{1}:0] p{0};\n"
          "  oasis_fp_mul_staged #(.ExpBits({2}), .FracBits({3}), .AExpBits({4}), .AFracBits({5}),"
          " .BExpBits({6}), .BFracBits({7}))\n"
          "    u{0} (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b0), .a_i({8}'(0)), .b_i({9}'(0)),"
          " .valid_o(v{0}), .prod_o(p{0}));\n",
          i, width - 1, c.f.exp_bits, c.f.frac_bits, c.a.exp_bits, c.a.frac_bits, c.b.exp_bits,
          c.b.frac_bits, c.a.exp_bits + c.a.frac_bits + 1, c.b.exp_bits + c.b.frac_bits + 1);
    } else {
      sv += fmt::format(
          "  logic [{1}:0] p{0};\n"
          "  oasis_fp_from_uint #(.IntBits({2}), .ExpBits({3}), .FracBits({4}))\n"
          "    u{0} (.n_i({2}'(0)), .result_o(p{0}));\n",
          i, width - 1, c.bits, c.f.exp_bits, c.f.frac_bits);
    }
    show += fmt::format("    $display(\"{} %0d\", u{}.Exact);\n", i, i);
  }
  sv += "  initial begin\n" + show + "  end\nendmodule\n";
  std::ofstream(dir_ / "rule.sv", std::ios::binary) << sv;
  const test::CmdResult r = test::run_command(fmt::format(
      "cd {} && iverilog -g2012 -o rule.vvp {} rule.sv 2>/dev/null && vvp -n rule.vvp 2>&1",
      gen::shell_word(dir_.string()), sources_));
  ASSERT_EQ(r.status, 0) << r.out;
  std::istringstream lines(r.out);
  size_t seen = 0, exact = 0;
  for (size_t i, e; lines >> i >> e;) {
    ASSERT_LT(i, cases.size());
    const Case& c = cases[i];
    const bool model = c.bits == 0 ? exact_product(c.f, c.a, c.b) : holds_integers(c.f, c.bits);
    EXPECT_EQ(e, size_t(model)) << (c.bits == 0 ? fmt::format("{} x {} into {}", c.a.name(),
                                                              c.b.name(), c.f.name())
                                                : fmt::format("a {}-bit count into {}", c.bits,
                                                              c.f.name()));
    ++seen;
    exact += e;
  }
  EXPECT_EQ(seen, cases.size()) << r.out;
  // The grid holds both outcomes.
  EXPECT_GT(exact, 0u);
  EXPECT_LT(exact, seen);
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
