// SPDX-License-Identifier: Apache-2.0
// The IEEE floating-point units (docs/spec.md section 2) as generated blocks: each is a
// thin module oasis_<config>_<block> around one hand-written core (rtl/oasis_fp_add_staged.sv,
// oasis_fp_mul_staged.sv, oasis_fp_convert.sv, oasis_fp_from_uint.sv, all rounding through
// oasis_fp_round.sv) with a fixed latency of fp_pipeline_stages cycles and a valid bit: the
// adder and the multiplier hold their registers inside, where the delay model puts them
// (model/perf/fp_delay.hpp), the conversions are followed by oasis_fp_pipe.sv (docs/fp_rtl.md).
// Each unit's formats, registers and their places: Derived::fp_units (model/derived.hpp).
// Model: model/numerics/fp.hpp. Tests: verif/tb/<block>_tb.cpp.
#include <fmt/format.h>

#include <bit>
#include <string>
#include <vector>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {
namespace {

OASIS_REGISTER_MUTATION("fp32_add.register_dropped",
                        "the binary32 adder block loses one pipeline register: the last place "
                        "used inside the unit, else one after it, so its latency is one cycle "
                        "short of the manifest's");

class FpUnit : public Block {
 public:
  explicit FpUnit(const char* block) : block_(block) {}
  std::string name() const override { return block_; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const Derived d = derive(c);
    // What the unit computes and its registers: fp_pipeline_stages, or at a clock target the
    // fewest this unit needs for it (its own format and kind, not the accumulator's adders).
    const FpUnitTiming& u = d.fp_unit(block_);
    const FpFormat& in = u.a;
    const FpFormat& res = u.result;
    const int stages = u.stages;
    // A multiplier's operand narrower than its product, taken as it is.
    const bool a_half = u.kind == FpUnitKind::kMul && u.a.width() < res.width();
    const bool b_half = u.kind == FpUnitKind::kMul && u.b.width() < res.width();
    const bool targeted = c.target_period_fo4 > 0;
    std::string what, result;
    std::vector<Port> operands;
    switch (u.kind) {
      case FpUnitKind::kAdd:
        what = fmt::format("IEEE 754 {} adder/subtractor, a_i + b_i or a_i - b_i", res.name());
        operands = {{"input", in.width(), "a_i", fmt::format("First operand, {}.", in.name())},
                    {"input", in.width(), "b_i", fmt::format("Second operand, {}.", in.name())},
                    {"input", 0, "sub_i", "1: a_i - b_i; 0: a_i + b_i."}};
        result = "sum_o";
        break;
      case FpUnitKind::kMul:
        what = fmt::format("IEEE 754 {} multiplier, a_i * b_i", res.name());
        operands = {{"input", u.a.width(), "a_i", fmt::format("First operand, {}.", u.a.name())},
                    {"input", u.b.width(), "b_i", fmt::format("Second operand, {}.", u.b.name())}};
        if (a_half) {
          what += fmt::format(
              " of a_i and b_i {} as they are (the product of the operands "
              "widened, exact, so the rounding is left out: docs/fp_rtl.md, Exact products)",
              u.b.name());
        } else if (b_half) {
          what +=
              fmt::format(" with b_i {} as it is (the product of b_i widened, exact)", u.b.name());
        }
        result = "prod_o";
        break;
      case FpUnitKind::kConvert:
        what = fmt::format("IEEE 754 conversion {} -> {}", in.name(), res.name());
        operands = {
            {"input", in.width(), "a_i", fmt::format("The value to convert, {}.", in.name())}};
        result = "result_o";
        break;
      case FpUnitKind::kFromUint:
        what = fmt::format("Unsigned {}-bit integer -> IEEE 754 {} conversion", u.int_bits,
                           res.name());
        operands = {{"input", u.int_bits, "n_i", "The unsigned integer."}};
        result = "result_o";
        break;
    }
    SvModule m(
        module_name(c, name()),
        fmt::format("{}. One IEEE rounding to nearest even (docs/spec.md section 2). "
                    "Fixed latency of {} cycle(s) ({}): the result of the "
                    "operands taken with in_valid_i appears with out_valid_o {} cycle(s) "
                    "later; one operation per cycle, no backpressure (docs/fp_rtl.md).",
                    what, stages,
                    targeted ? "the unit's own stages at the clock target" : "fp_pipeline_stages",
                    stages));
    m.ports({{"input", 0, "clk_i", "Clock."},
             {"input", 0, "rst_ni", "Asynchronous reset, active low."},
             {"input", 0, "in_valid_i", "The operands are valid this cycle."}});
    m.ports(operands);
    m.ports({{"output", 0, "out_valid_o",
              fmt::format("{} is valid: in_valid_i of {} cycle(s) ago.", result, stages)},
             {"output", res.width(), result, fmt::format("The result, {}.", res.name())}});
    m << fmt::format("  logic {} result;\n", range(res.width()));
    // The adder and the multiplier hold registers inside (FpCuts); the
    // conversions, short, are followed by all theirs.
    int after = stages;
    string core_valid = "in_valid_i";
    if (u.kind == FpUnitKind::kAdd || u.kind == FpUnitKind::kMul) {
      const bool add = u.kind == FpUnitKind::kAdd;
      const FpSegments& seg = u.segments;
      FpCuts cuts = u.cuts;
      if (name() == "fp32_add" && stages > 0 && mutated("fp32_add.register_dropped")) {
        if (cuts.mask != 0) {
          cuts.mask &= ~(1u << (std::bit_width(cuts.mask) - 1));
        } else {
          --cuts.output_stages;
        }
      }
      after = cuts.output_stages;
      core_valid = "core_valid";
      m << "  logic core_valid;\n\n";
      staged_unit(
          m, res, add ? FpOp::kAdd : FpOp::kMul, cuts, "u_core", "a_i", "b_i", "sub_i", "result",
          "in_valid_i", "core_valid", "  ", "1",
          Operands{a_half ? kBinary16Format : FpFormat{}, b_half ? kBinary16Format : FpFormat{}});
      out.manifest["pipeline"] = {{"places", seg.names},
                                  {"segment_fo4", seg.segments_fo4()},
                                  {"whole_fo4", seg.whole_fo4()},
                                  {"cuts", cuts.mask},
                                  {"registers_after", cuts.output_stages},
                                  {"stage_fo4", cuts.stage_fo4}};
      if (targeted) {
        out.manifest["pipeline"]["target_period_fo4"] = c.target_period_fo4;
        out.manifest["pipeline"]["stage_budget_fo4"] = d.stage_budget_fo4;
        out.manifest["pipeline"]["fits_target"] = u.fits_target;
      }
    }
    switch (u.kind) {
      case FpUnitKind::kAdd:
      case FpUnitKind::kMul:
        break;
      case FpUnitKind::kConvert:
        m << "\n";
        fp_convert(m, in, res, "u_core", "a_i", "result");
        break;
      case FpUnitKind::kFromUint:
        m << "\n";
        m.inst("oasis_fp_from_uint", "u_core", {{"n_i", "n_i"}, {"result_o", "result"}}, "  ",
               {{"IntBits", std::to_string(u.int_bits)},
                {"ExpBits", std::to_string(res.exp_bits)},
                {"FracBits", std::to_string(res.frac_bits)}});
        m.op("fp_from_uint", u.int_bits, "result");
        break;
    }
    m << "\n" << pipe("u_pipe", res.width(), after, core_valid, "result", "out_valid_o", result);
    out.files.push_back(m.file());

    out.manifest["latency_cycles"] = stages;
    // The unit's own registers, which at a clock target need not be the config's S.
    out.manifest["register_stages"] = stages;
    out.manifest["operations_per_cycle"] = 1;
    out.manifest["result_format"] = res.name();
    if (u.kind == FpUnitKind::kFromUint) {
      out.manifest["int_bits"] = u.int_bits;
    } else {
      out.manifest["operand_format"] = in.name();
    }
    if (a_half) out.manifest["first_operand_format"] = u.a.name();
    if (b_half) out.manifest["second_operand_format"] = u.b.name();
    return out;
  }

 private:
  const char* block_;
};

// The units, their formats and their registers: Derived::fp_units.
#define OASIS_FP_UNIT(cls, block)   \
  class cls final : public FpUnit { \
   public:                          \
    cls() : FpUnit(block) {}        \
  };                                \
  OASIS_REGISTER_BLOCK(cls)

OASIS_FP_UNIT(Fp16Add, "fp16_add");
OASIS_FP_UNIT(Fp16Mul, "fp16_mul");
OASIS_FP_UNIT(Fp32Add, "fp32_add");
OASIS_FP_UNIT(Fp32Mul, "fp32_mul");
OASIS_FP_UNIT(Fp32MulFp16, "fp32_mul_fp16");
OASIS_FP_UNIT(Fp32MulFp16Fp16, "fp32_mul_fp16_fp16");
OASIS_FP_UNIT(Fp16ToFp32, "fp16_to_fp32");
OASIS_FP_UNIT(Fp32ToFp16, "fp32_to_fp16");
OASIS_FP_UNIT(UintToFp32, "uint_to_fp32");

#undef OASIS_FP_UNIT

}  // namespace
}  // namespace oasis::gen
