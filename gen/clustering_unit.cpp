// The Clustering Unit (paper IV-C, docs/spec.md section 4): FP16 activations in,
// nA-bit cluster indices out, by binary search over the 2^nA - 1 boundaries.
// Cycle model: model/clustering_unit.hpp. Test: verif/tb/clustering_unit_tb.cpp.
// Interface and timing: docs/clustering_unit.md.
#include <fmt/format.h>

#include "gen/block.hpp"
#include "model/clustering_unit.hpp"

namespace oasis::gen {
namespace {

// One level of the search: selects the boundary for the prefix resolved so
// far among the 2^l boundaries of the level and compares.
std::string level_module(const Config& c, int level) {
  const std::string module = module_name(c, "clustering_unit") + fmt::format("_level{}", level);
  const int candidates = 1 << level;
  std::string s = fmt::format(
      "/// Level {0} of the Clustering Unit's binary search (of {1}): selects, by the index bits\n"
      "/// already resolved, the boundary this level compares with, and appends the next index\n"
      "/// bit (x >= boundary under the order key of docs/spec.md section 2). Combinational.\n"
      "module {2} (\n"
      "  /// The activation, IEEE 754 binary16.\n"
      "  input  logic [15:0] x_i,\n",
      level, c.act_bits, module);
  if (level > 0) {
    s += fmt::format(
        "  /// Index bits resolved by levels 0..{0}, most significant first.\n"
        "  input  logic [{0}:0] prefix_i,\n",
        level - 1);
  }
  s += fmt::format(
      "  /// The {0} boundaries of this level, binary16; the one for prefix p at [p*16 +: 16].\n"
      "  input  logic [{1}:0] bounds_i,\n"
      "  /// The index bits resolved by levels 0..{2}, most significant first.\n"
      "  output logic [{2}:0] prefix_o\n"
      ");\n\n"
      "  logic [15:0] bound;\n"
      "  logic        lt;\n"
      "  logic        unused_eq;\n"
      "  logic        unused_gt;\n\n",
      candidates, candidates * 16 - 1, level);
  if (level == 0) {
    s += "  assign bound = bounds_i;\n\n";
  } else {
    s += "  always_comb begin\n    bound = 16'h0000;\n    unique case (prefix_i)\n";
    for (int p = 0; p < candidates; ++p) {
      s += fmt::format("      {}'d{}: bound = bounds_i[{} +: 16];\n", level, p, p * 16);
    }
    s += "      default: bound = 16'h0000;\n    endcase\n  end\n\n";
  }
  s += fmt::format(
      "  {0} u_cmp (\n"
      "    .a_i (x_i),\n"
      "    .b_i (bound),\n"
      "    .lt_o(lt),\n"
      "    .eq_o(unused_eq),\n"
      "    .gt_o(unused_gt)\n"
      "  );\n\n",
      module_name(c, "comparator"));
  s += level == 0 ? "  assign prefix_o = !lt;\n" : "  assign prefix_o = {prefix_i, !lt};\n";
  s += "\nendmodule\n";
  return s;
}

class ClusteringUnitBlock final : public Block {
 public:
  std::string name() const override { return "clustering_unit"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    out.uses = {"comparator"};
    const int na = c.act_bits;
    const int lanes = c.clustering_lanes;
    const int per_stage = c.clustering_levels_per_stage;
    const Derived d = derive(c);
    const ClusteringTiming& t = d.clustering_unit;
    const int stages = t.stages;
    const int nbounds = d.boundaries;
    for (int l = 0; l < na; ++l) {
      out.files.push_back({module_name(c, name()) + fmt::format("_level{}.sv", l),
                           level_module(c, l)});
    }
    const std::string module = module_name(c, name());
    std::string s = fmt::format(
        "/// Clustering Unit (paper IV-C, docs/spec.md section 4): {0} binary16 activations a\n"
        "/// beat in, one {1}-bit cluster index each out, ia = number of boundaries b_j with\n"
        "/// x >= b_j under the order key (a value equal to a boundary goes up, NaN to the top\n"
        "/// cluster). Binary search: {1} comparator levels per lane, {2} level(s) per register\n"
        "/// stage, {3} stage(s); an elastic pipeline that accepts a beat every cycle and\n"
        "/// presents it {3} cycle(s) later. boundaries_i is read at every level: hold it while\n"
        "/// busy_o is set.\n"
        "module {4} (\n"
        "  /// Clock.\n"
        "  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n"
        "  input  logic rst_ni,\n"
        "  /// The {5} boundaries b_0 < ... < b_{6}, binary16, b_j at [j*16 +: 16]; from the\n"
        "  /// register file, changed per layer while busy_o is low.\n"
        "  input  logic [{7}:0] boundaries_i,\n"
        "  /// A beat of activations is offered.\n"
        "  input  logic act_valid_i,\n"
        "  /// The unit takes the offered beat this cycle.\n"
        "  output logic act_ready_o,\n"
        "  /// The beat: lane i's binary16 activation at [i*16 +: 16].\n"
        "  input  logic [{8}:0] act_data_i,\n"
        "  /// A beat of cluster indices is presented.\n"
        "  output logic idx_valid_o,\n"
        "  /// The consumer takes the presented beat this cycle.\n"
        "  input  logic idx_ready_i,\n"
        "  /// The indices: lane i's {1}-bit index at [i*{1} +: {1}].\n"
        "  output logic [{9}:0] idx_data_o,\n"
        "  /// Some pipeline stage holds a beat (boundaries_i must then hold).\n"
        "  output logic busy_o\n"
        ");\n\n",
        lanes, na, per_stage, stages, module, nbounds, nbounds - 1, nbounds * 16 - 1,
        lanes * 16 - 1, lanes * na - 1);

    // Boundaries of each level, in prefix order: the tree of the search.
    for (int l = 0; l < na; ++l) {
      const int n = 1 << l;
      s += fmt::format("  /// Boundaries compared at level {}, for prefix p at [p*16 +: 16].\n", l);
      s += fmt::format("  logic [{}:0] level{}_bounds;\n", n * 16 - 1, l);
      std::string cat;
      for (int p = n - 1; p >= 0; --p) {
        const int j = binary_search_boundary(na, l, p);
        cat += fmt::format("{}boundaries_i[{} +: 16]", cat.empty() ? "" : ", ", j * 16);
      }
      s += fmt::format("  assign level{}_bounds = {{{}}};\n", l, cat);
    }
    s += "\n";

    // Stage registers: valid, and per lane the activation and the resolved
    // prefix; the last stage keeps only the index.
    for (int st = 0; st < stages; ++st) {
      const int bits = std::min((st + 1) * per_stage, na);
      const bool last = st == stages - 1;
      s += fmt::format("  // Stage {}: levels {}..{}.\n", st, st * per_stage, bits - 1);
      s += fmt::format("  logic s{0}_ready;\n  logic s{0}_load;\n  logic s{0}_valid_d, s{0}_valid_q;\n", st);
      if (!last) s += fmt::format("  logic [{1}:0] s{0}_x_d, s{0}_x_q;\n", st, lanes * 16 - 1);
      s += fmt::format("  logic [{1}:0] s{0}_prefix_d, s{0}_prefix_q;\n", st, lanes * bits - 1);
      for (int l = st * per_stage; l < bits; ++l) {
        s += fmt::format("  logic [{1}:0] s{2}_level{0};\n", l, lanes * (l + 1) - 1, st);
      }
      s += "\n";
    }

    // Handshake: a stage takes a beat when empty or when its beat moves on.
    for (int st = stages - 1; st >= 0; --st) {
      const std::string next = st == stages - 1 ? "idx_ready_i" : fmt::format("s{}_ready", st + 1);
      const std::string in_valid = st == 0 ? "act_valid_i" : fmt::format("s{}_valid_q", st - 1);
      s += fmt::format("  assign s{0}_ready   = !s{0}_valid_q || {1};\n", st, next);
      s += fmt::format("  assign s{0}_load    = s{0}_ready && {1};\n", st, in_valid);
      s += fmt::format("  assign s{0}_valid_d = s{0}_ready ? {1} : s{0}_valid_q;\n", st, in_valid);
    }
    s += "  assign act_ready_o = s0_ready;\n";
    s += fmt::format("  assign idx_valid_o = s{}_valid_q;\n", stages - 1);
    s += fmt::format("  assign idx_data_o  = s{}_prefix_q;\n", stages - 1);
    std::string busy;
    for (int st = 0; st < stages; ++st) busy += fmt::format("{}s{}_valid_q", st ? " || " : "", st);
    s += fmt::format("  assign busy_o      = {};\n\n", busy);

    // The comparator levels, per lane.
    s += "  for (genvar i = 0; i < " + std::to_string(lanes) + "; i++) begin : g_lane\n";
    for (int st = 0; st < stages; ++st) {
      const int first = st * per_stage;
      const int bits = std::min((st + 1) * per_stage, na);
      const std::string x = st == 0 ? "act_data_i" : fmt::format("s{}_x_q", st - 1);
      for (int l = first; l < bits; ++l) {
        s += fmt::format("    {}_level{} u_s{}_level{} (\n", module, l, st, l);
        s += fmt::format("      .x_i     ({}[i*16 +: 16]),\n", x);
        if (l > 0) {
          const std::string prev = l == first ? fmt::format("s{}_prefix_q", st - 1)
                                              : fmt::format("s{}_level{}", st, l - 1);
          s += fmt::format("      .prefix_i({}[i*{} +: {}]),\n", prev, l, l);
        }
        s += fmt::format("      .bounds_i(level{}_bounds),\n", l);
        s += fmt::format("      .prefix_o(s{}_level{}[i*{} +: {}])\n    );\n", st, l, l + 1, l + 1);
      }
    }
    s += "  end\n\n";

    // Next state.
    for (int st = 0; st < stages; ++st) {
      const int bits = std::min((st + 1) * per_stage, na);
      const bool last = st == stages - 1;
      const std::string x = st == 0 ? "act_data_i" : fmt::format("s{}_x_q", st - 1);
      if (!last) s += fmt::format("  assign s{0}_x_d      = s{0}_load ? {1} : s{0}_x_q;\n", st, x);
      s += fmt::format("  assign s{0}_prefix_d = s{0}_load ? s{0}_level{1} : s{0}_prefix_q;\n", st,
                       bits - 1);
    }
    s += "\n  always_ff @(posedge clk_i or negedge rst_ni) begin\n    if (!rst_ni) begin\n";
    for (int st = 0; st < stages; ++st) {
      const bool last = st == stages - 1;
      s += fmt::format("      s{}_valid_q  <= 1'b0;\n", st);
      if (!last) s += fmt::format("      s{}_x_q      <= '0;\n", st);
      s += fmt::format("      s{}_prefix_q <= '0;\n", st);
    }
    s += "    end else begin\n";
    for (int st = 0; st < stages; ++st) {
      const bool last = st == stages - 1;
      s += fmt::format("      s{0}_valid_q  <= s{0}_valid_d;\n", st);
      if (!last) s += fmt::format("      s{0}_x_q      <= s{0}_x_d;\n", st);
      s += fmt::format("      s{0}_prefix_q <= s{0}_prefix_d;\n", st);
    }
    s += "    end\n  end\n\nendmodule\n";
    out.files.push_back({module + ".sv", s});

    out.manifest["latency_cycles"] = t.latency;
    out.manifest["beats_per_cycle"] = t.beats_per_cycle;
    out.manifest["activations_per_cycle"] = t.activations_per_cycle;
    out.manifest["pipeline_stages"] = stages;
    out.manifest["comparisons_per_activation"] = na;
    out.manifest["comparators"] = t.comparators;
    out.manifest["boundaries"] = nbounds;
    return out;
  }
};

OASIS_REGISTER_BLOCK(ClusteringUnitBlock);

}  // namespace
}  // namespace oasis::gen
