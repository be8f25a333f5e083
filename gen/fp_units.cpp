// The IEEE floating-point units (docs/spec.md section 2) as generated blocks: each is a
// thin module oasis_<config>_<block> around one hand-written combinational
// core (rtl/oasis_fp_add.sv, oasis_fp_mul.sv, oasis_fp_convert.sv,
// oasis_fp_from_uint.sv, all rounding through oasis_fp_round.sv) followed by
// oasis_fp_pipe.sv, a fixed latency of fp_pipeline_stages cycles with a valid
// bit (docs/fp_rtl.md). Model: model/fp.hpp. Tests: verif/tb/<block>_tb.cpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/block.hpp"

namespace oasis::gen {
namespace {

struct Format {
  const char* name;  ///< "binary16" / "binary32"
  int exp_bits;
  int frac_bits;
  int width() const { return exp_bits + frac_bits + 1; }
};

constexpr Format kBinary16{"binary16", 5, 10};
constexpr Format kBinary32{"binary32", 8, 23};

enum class Op { kAdd, kMul, kConvert, kFromUint };

struct UnitSpec {
  const char* block;
  Op op;
  Format in;         ///< operand format (unused for kFromUint)
  Format out;        ///< result format
  int int_bits = 0;  ///< kFromUint: width of the integer input
};

// One input port and its /// comment.
std::string port(const std::string& comment, const std::string& dir, int width,
                 const std::string& name) {
  const std::string range = width == 1 ? "" : fmt::format("[{}:0] ", width - 1);
  return fmt::format("  /// {}\n  {} logic {}{},\n", comment, dir, range, name);
}

class FpUnit : public Block {
 public:
  explicit FpUnit(UnitSpec spec) : spec_(spec) {}
  std::string name() const override { return spec_.block; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const std::string module = module_name(c, name());
    const int stages = c.fp_pipeline_stages;
    const int w_in = spec_.in.width();
    const int w_out = spec_.out.width();
    std::string what, ports, core, result;
    switch (spec_.op) {
      case Op::kAdd:
        what = fmt::format("IEEE 754 {} adder/subtractor, a_i + b_i or a_i - b_i", spec_.out.name);
        ports = port(fmt::format("First operand, {}.", spec_.in.name), "input ", w_in, "a_i") +
                port(fmt::format("Second operand, {}.", spec_.in.name), "input ", w_in, "b_i") +
                port("1: a_i - b_i; 0: a_i + b_i.", "input ", 1, "sub_i");
        result = "sum_o";
        core = fmt::format(
            "  oasis_fp_add #(\n    .ExpBits ({}),\n    .FracBits({})\n  ) u_core (\n"
            "    .a_i  (a_i),\n    .b_i  (b_i),\n    .sub_i(sub_i),\n    .sum_o(result)\n  );\n",
            spec_.out.exp_bits, spec_.out.frac_bits);
        out.primitives = {"oasis_fp_round.sv", "oasis_fp_add.sv", "oasis_fp_pipe.sv"};
        break;
      case Op::kMul:
        what = fmt::format("IEEE 754 {} multiplier, a_i * b_i", spec_.out.name);
        ports = port(fmt::format("First operand, {}.", spec_.in.name), "input ", w_in, "a_i") +
                port(fmt::format("Second operand, {}.", spec_.in.name), "input ", w_in, "b_i");
        result = "prod_o";
        core = fmt::format(
            "  oasis_fp_mul #(\n    .ExpBits ({}),\n    .FracBits({})\n  ) u_core (\n"
            "    .a_i   (a_i),\n    .b_i   (b_i),\n    .prod_o(result)\n  );\n",
            spec_.out.exp_bits, spec_.out.frac_bits);
        out.primitives = {"oasis_fp_round.sv", "oasis_fp_mul.sv", "oasis_fp_pipe.sv"};
        break;
      case Op::kConvert:
        what = fmt::format("IEEE 754 conversion {} -> {}", spec_.in.name, spec_.out.name);
        ports =
            port(fmt::format("The value to convert, {}.", spec_.in.name), "input ", w_in, "a_i");
        result = "result_o";
        core = fmt::format(
            "  oasis_fp_convert #(\n    .InExpBits  ({}),\n    .InFracBits ({}),\n"
            "    .OutExpBits ({}),\n    .OutFracBits({})\n  ) u_core (\n"
            "    .a_i     (a_i),\n    .result_o(result)\n  );\n",
            spec_.in.exp_bits, spec_.in.frac_bits, spec_.out.exp_bits, spec_.out.frac_bits);
        out.primitives = {"oasis_fp_round.sv", "oasis_fp_convert.sv", "oasis_fp_pipe.sv"};
        break;
      case Op::kFromUint:
        what = fmt::format("Unsigned {}-bit integer -> IEEE 754 {} conversion", spec_.int_bits,
                           spec_.out.name);
        ports = port("The unsigned integer.", "input ", spec_.int_bits, "n_i");
        result = "result_o";
        core = fmt::format(
            "  oasis_fp_from_uint #(\n    .IntBits ({}),\n    .ExpBits ({}),\n"
            "    .FracBits({})\n  ) u_core (\n    .n_i     (n_i),\n    .result_o(result)\n  );\n",
            spec_.int_bits, spec_.out.exp_bits, spec_.out.frac_bits);
        out.primitives = {"oasis_fp_round.sv", "oasis_fp_from_uint.sv", "oasis_fp_pipe.sv"};
        break;
    }

    std::string body = fmt::format(
        "/// {what}.\n"
        "/// One IEEE rounding to nearest even (docs/spec.md section 2). Fixed latency of\n"
        "/// {stages} cycle(s) (fp_pipeline_stages): the result of the operands taken\n"
        "/// with in_valid_i appears with out_valid_o {stages} cycle(s) later; one\n"
        "/// operation per cycle, no backpressure (docs/fp_rtl.md).\n"
        "module {module} (\n"
        "  /// Clock.\n  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n  input  logic rst_ni,\n"
        "  /// The operands are valid this cycle.\n  input  logic in_valid_i,\n"
        "{ports}"
        "  /// {result} is valid: in_valid_i of {stages} cycle(s) ago.\n  output logic "
        "out_valid_o,\n"
        "  /// The result, {out_format}.\n  output logic [{msb}:0] {result}\n"
        ");\n\n"
        "  logic [{msb}:0] result;\n\n"
        "{core}\n"
        "  oasis_fp_pipe #(\n    .Width ({w_out}),\n    .Stages({stages})\n  ) u_pipe (\n"
        "    .clk_i  (clk_i),\n    .rst_ni (rst_ni),\n    .valid_i(in_valid_i),\n"
        "    .data_i (result),\n    .valid_o(out_valid_o),\n    .data_o ({result})\n  );\n\n"
        "endmodule\n",
        fmt::arg("what", what), fmt::arg("stages", stages), fmt::arg("module", module),
        fmt::arg("ports", ports), fmt::arg("result", result),
        fmt::arg("out_format", spec_.out.name), fmt::arg("msb", w_out - 1), fmt::arg("core", core),
        fmt::arg("w_out", w_out));
    out.files.push_back({module + ".sv", body});

    out.manifest["latency_cycles"] = stages;
    out.manifest["operations_per_cycle"] = 1;
    out.manifest["result_format"] = spec_.out.name;
    if (spec_.op == Op::kFromUint) {
      out.manifest["int_bits"] = spec_.int_bits;
    } else {
      out.manifest["operand_format"] = spec_.in.name;
    }
    return out;
  }

 private:
  UnitSpec spec_;
};

#define OASIS_FP_UNIT(cls, ...)              \
  class cls final : public FpUnit {          \
   public:                                   \
    cls() : FpUnit(UnitSpec{__VA_ARGS__}) {} \
  };                                         \
  OASIS_REGISTER_BLOCK(cls)

OASIS_FP_UNIT(Fp16Add, "fp16_add", Op::kAdd, kBinary16, kBinary16);
OASIS_FP_UNIT(Fp16Mul, "fp16_mul", Op::kMul, kBinary16, kBinary16);
OASIS_FP_UNIT(Fp32Add, "fp32_add", Op::kAdd, kBinary32, kBinary32);
OASIS_FP_UNIT(Fp32Mul, "fp32_mul", Op::kMul, kBinary32, kBinary32);
OASIS_FP_UNIT(Fp16ToFp32, "fp16_to_fp32", Op::kConvert, kBinary16, kBinary32);
OASIS_FP_UNIT(Fp32ToFp16, "fp32_to_fp16", Op::kConvert, kBinary32, kBinary16);
// 32 bits, the model's fp32_from_uint: the rounding path above 2^24 is checked
// too, although index counts (count_bits) stay far below.
OASIS_FP_UNIT(UintToFp32, "uint_to_fp32", Op::kFromUint, kBinary32, kBinary32, 32);

#undef OASIS_FP_UNIT

}  // namespace
}  // namespace oasis::gen
