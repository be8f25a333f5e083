// SPDX-License-Identifier: Apache-2.0
// Orizuru, the two-fold top-k tree of paper IV-D (docs/spec.md section 5), and
// topk_baseline, the plain engine it is measured against: k rounds of a
// max-and-min reduction over the whole masked vector. Both share the token
// interface and the load / build / drain handshake, so one cycle model
// (model/cycle/orizuru_cycle.hpp) and one testbench shape check both.
// Algorithm: model/cycle/orizuru.hpp. Tests: verif/tb/orizuru_tb.cpp,
// verif/tb/topk_baseline_tb.cpp. Interface, timing, structure: docs/orizuru.md.
// Orizuru's units are emitted by gen/orizuru_units.cpp, its tree of them by
// gen/orizuru_core.cpp, the baseline by gen/topk_baseline.cpp, the top module both share by
// gen/topk_top.cpp; this file registers Orizuru.
#include <fmt/format.h>

#include <string>

#include "gen/block.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru.hpp"
#include "gen/orizuru_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::orizuru_parts {

string cmp_module(const Config& c) { return module_name(c, "comparator"); }

// A comparator instance whose gt output drives `gt` and whose eq output
// drives `eq` ("" leaves lt and eq to `unused` sinks the caller declares).
void compare(SvModule& m, const Config& c, const string& inst, const string& a, const string& b,
             const string& lt, const string& eq, const string& gt, const string& indent,
             const string& count) {
  m.inst(cmp_module(c), inst, {{"a_i", a}, {"b_i", b}, {"lt_o", lt}, {"eq_o", eq}, {"gt_o", gt}},
         indent, {}, count);
  m.op("fp_compare", "HalfBits", gt, count);
}

namespace {

OASIS_REGISTER_MUTATION("orizuru.min_ties_left",
                        "the min tree's leaf level breaks ties to the left (lower) channel");
OASIS_REGISTER_MUTATION("orizuru.left_pop_lost",
                        "a popped leaf that is the left one of its pair is not cleared, so it "
                        "stays available and wins again");
OASIS_REGISTER_MUTATION("orizuru.next_cycle_pop_lost",
                        "a pop never reaches the levels it rewrites in the cycle after its "
                        "outlier is taken (orizuru_pop_levels below the tree's levels)");
OASIS_REGISTER_MUTATION("orizuru.pop_wait_short",
                        "with a pop over more than two cycles, a side presents its next outlier "
                        "a cycle before the last part of its path is rewritten");

class Orizuru final : public Block {
 public:
  string name() const override { return "orizuru"; }

  BlockOutput emit(const Config& c) const override {
    const OrizuruTiming t = derive(c).orizuru;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    out.files = {side_module(c), leaf_unit_module(c)};
    if (t.layers > 1) out.files.push_back(unit_module(c));
    const string what = fmt::format(
        "Orizuru (paper IV-D, docs/spec.md section 5): the k = {0} largest and k smallest of a "
        "token of N = {1} activations by a max tree and a min tree over shared leaves, {2} "
        "unit(s) of {3} inputs in {4} layer(s), {5} comparator level(s) per build cycle. Ties: "
        "max to the lower channel, min to the higher; popped leaves are unavailable.",
        t.k, t.channels, t.units, t.unit_inputs, t.layers, t.levels_per_stage);
    out.files.push_back(
        topk_top_module(t, base, what, [&](SvModule& m) { orizuru_core(m, c, t); }));
    out.manifest = topk_timing_manifest(t);
    out.manifest["pop_levels"] = t.pop_levels;
    out.manifest["pop_cuts"] = t.pop_cuts;
    out.manifest["stage_model"] = stage_model(
        "a pop, from out_ready_i through its part of the tree", "tree level", t.stage_model);
    out.manifest["comparator_instances"] = t.comparator_instances;
    return out;
  }
};

OASIS_REGISTER_BLOCK(Orizuru);

}  // namespace
}  // namespace oasis::gen::orizuru_parts
