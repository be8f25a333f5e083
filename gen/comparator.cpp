// SPDX-License-Identifier: Apache-2.0
// The FP16 comparator of docs/spec.md section 2, the order every comparison in the
// accelerator uses (Clustering Unit, Orizuru). Model: oasis::compare in
// model/numerics/fp.hpp. Test: verif/tb/comparator_tb.cpp.
#include <fmt/format.h>

#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {
namespace {

OASIS_REGISTER_MUTATION("comparator.magnitude_ge",
                        "two positive values of equal magnitude compare as greater (>= instead "
                        "of > on the magnitudes)");

class Comparator final : public Block {
 public:
  std::string name() const override { return "comparator"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const std::string module = module_name(c, name());
    SvModule m(module,
               "FP16 comparator under the order key of the OASIS contract (docs/spec.md section "
               "2): NaN of any sign or payload is above +Inf and equal to every NaN, -0 equals "
               "+0, otherwise IEEE order. Combinational; exactly one of lt_o, eq_o, gt_o is set.");
    m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
    m.ports({{"input", 0, "a_i", "First operand, IEEE 754 binary16.", "HalfBits"},
             {"input", 0, "b_i", "Second operand, IEEE 754 binary16.", "HalfBits"},
             {"output", 0, "lt_o", "a_i is below b_i."},
             {"output", 0, "eq_o", "a_i equals b_i under the order key."},
             {"output", 0, "gt_o", "a_i is above b_i."}});
    m.comment("The binary16 fields: the exponent above the fraction, the sign above both.");
    m.localparam("FracBits", kBinary16Format.frac_bits, "");
    m.localparam("MagBits", kBinary16Format.exp_bits + kBinary16Format.frac_bits, "");
    m << fmt::format(R"(
  logic a_nan, b_nan, both_zero, mag_gt, mag_lt;
  logic a_sign, b_sign;
  logic [MagBits-1:0] a_mag, b_mag;

  assign {{a_sign, a_mag}} = a_i;
  assign {{b_sign, b_mag}} = b_i;
  assign a_nan     = (&a_mag[MagBits-1:FracBits]) && (|a_mag[FracBits-1:0]);
  assign b_nan     = (&b_mag[MagBits-1:FracBits]) && (|b_mag[FracBits-1:0]);
  assign both_zero = (a_mag == '0) && (b_mag == '0);
  assign mag_gt    = a_mag {0} b_mag;
  assign mag_lt    = a_mag < b_mag;

  always_comb begin
    gt_o = 1'b0;
    lt_o = 1'b0;
    if (a_nan || b_nan) begin
      gt_o = a_nan && !b_nan;
      lt_o = b_nan && !a_nan;
    end else if (both_zero) begin
      gt_o = 1'b0;
      lt_o = 1'b0;
    end else if (a_sign != b_sign) begin
      gt_o = !a_sign;
      lt_o = a_sign;
    end else if (!a_sign) begin
      gt_o = mag_gt;
      lt_o = mag_lt;
    end else begin
      gt_o = mag_lt;
      lt_o = mag_gt;
    end
  end

  assign eq_o = !gt_o && !lt_o;
)",
                     mutated("comparator.magnitude_ge") ? ">=" : ">");
    out.files.push_back(m.file());
    out.manifest["latency_cycles"] = 0;
    out.manifest["comparisons_per_cycle"] = 1;
    return out;
  }
};

OASIS_REGISTER_BLOCK(Comparator);

}  // namespace
}  // namespace oasis::gen
