// The FP16 comparator of docs/spec.md section 2, the order every comparison in the
// accelerator uses (Clustering Unit, Orizuru). Model: oasis::compare in
// model/numerics/fp.hpp. Test: verif/tb/comparator_tb.cpp.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "gen/block.hpp"
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
    const std::vector<Port> ports = {{"input", 16, "a_i", "First operand, IEEE 754 binary16."},
                                     {"input", 16, "b_i", "Second operand, IEEE 754 binary16."},
                                     {"output", 0, "lt_o", "a_i is below b_i."},
                                     {"output", 0, "eq_o", "a_i equals b_i under the order key."},
                                     {"output", 0, "gt_o", "a_i is above b_i."}};
    const std::string header =
        module_header(module,
                      "FP16 comparator under the order key of the OASIS contract\n"
                      "(docs/spec.md section 2): NaN of any sign or payload is above +Inf and\n"
                      "equal to every NaN, -0 equals +0, otherwise IEEE order. Combinational;\n"
                      "exactly one of lt_o, eq_o, gt_o is set.",
                      ports);
    SvFile file{module + ".sv",
                header + fmt::format(R"(  logic a_nan, b_nan, both_zero, mag_gt, mag_lt;

  assign a_nan     = (a_i[14:10] == 5'h1f) && (a_i[9:0] != 10'd0);
  assign b_nan     = (b_i[14:10] == 5'h1f) && (b_i[9:0] != 10'd0);
  assign both_zero = (a_i[14:0] == 15'd0) && (b_i[14:0] == 15'd0);
  assign mag_gt    = a_i[14:0] {0} b_i[14:0];
  assign mag_lt    = a_i[14:0] < b_i[14:0];

  always_comb begin
    gt_o = 1'b0;
    lt_o = 1'b0;
    if (a_nan || b_nan) begin
      gt_o = a_nan && !b_nan;
      lt_o = b_nan && !a_nan;
    end else if (both_zero) begin
      gt_o = 1'b0;
      lt_o = 1'b0;
    end else if (a_i[15] != b_i[15]) begin
      gt_o = !a_i[15];
      lt_o = a_i[15];
    end else if (!a_i[15]) begin
      gt_o = mag_gt;
      lt_o = mag_lt;
    end else begin
      gt_o = mag_lt;
      lt_o = mag_gt;
    end
  end

  assign eq_o = !gt_o && !lt_o;

endmodule
)",
                                     mutated("comparator.magnitude_ge") ? ">=" : ">")};
    file.ports = ports;
    out.files.push_back(std::move(file));
    out.manifest["latency_cycles"] = 0;
    out.manifest["comparisons_per_cycle"] = 1;
    return out;
  }
};

OASIS_REGISTER_BLOCK(Comparator);

}  // namespace
}  // namespace oasis::gen
