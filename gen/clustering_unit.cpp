// SPDX-License-Identifier: Apache-2.0
// The Clustering Unit (paper IV-C, docs/spec.md section 4): FP16 activations in,
// nA-bit cluster indices out, by binary search over the 2^nA - 1 boundaries.
// Cycle model: model/cycle/clustering_unit.hpp. Test: verif/tb/clustering_unit_tb.cpp.
// Interface and timing: docs/clustering_unit.md.
#include "model/cycle/clustering_unit.hpp"

#include <fmt/format.h>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {
namespace {

OASIS_REGISTER_MUTATION("clustering_unit.equal_goes_down",
                        "an activation equal to a boundary takes the cluster below it (x > b "
                        "instead of x >= b at every level of the search)");
OASIS_REGISTER_MUTATION("clustering_unit.valid_dropped_in_stall",
                        "idx_valid_o falls for a cycle after a cycle of idx_ready_i low and the "
                        "beat is presented again after it: the same transfers, a valid that "
                        "did not hold until ready (the stream assertions name it)");

// One level of the search, parameterized by the level: selects the boundary
// for the index bits resolved so far and resolves the next one.
SvFile level_module(const Config& c) {
  SvModule m(module_name(c, "clustering_unit") + "_level",
             "One level of the Clustering Unit's binary search: the index bits resolved by the "
             "levels above select, among the 2^Level boundaries of this level, the one to compare "
             "with, and index bit ActBits-1-Level is set when x >= that boundary under the order "
             "key of docs/spec.md section 2. Combinational.");
  m.param("ActBits", 1, "Bits of a cluster index, nA.");
  m.param("Level", 0, "The level, 0 .. ActBits-1 (0 compares with the middle boundary).");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "x_i", "The activation, IEEE 754 binary16.", "HalfBits"},
           {"input", 0, "idx_i", "The index so far: its top Level bits resolved, the others 0.",
            "ActBits"},
           {"input", 0, "bounds_i",
            "The boundaries of this level, binary16; the one for resolved bits p at "
            "[p*HalfBits +: HalfBits].",
            "(1 << Level)*HalfBits"},
           {"output", 0, "idx_o", "The index with bit ActBits-1-Level resolved.", "ActBits"}});
  m << "  logic [HalfBits-1:0] bound;\n  logic                lt, eq, gt;\n\n"
       "  if (Level == 0) begin : g_root\n"
       "    assign bound = bounds_i;\n"
       "  end else begin : g_select\n";
  mux_tree(m, c, "u_bound_mux", "1 << Level", "HalfBits", "Level", "bounds_i",
           "idx_i[ActBits-1 -: Level]", "bound", "    ");
  m << "  end\n\n";
  m.inst(module_name(c, "comparator"), "u_cmp",
         {{"a_i", "x_i"}, {"b_i", "bound"}, {"lt_o", "lt"}, {"eq_o", "eq"}, {"gt_o", "gt"}});
  m.op("fp_compare", "HalfBits", "lt");
  const bool bug = mutated("clustering_unit.equal_goes_down");
  m << "\n  logic unused_cmp;\n"
    << (bug ? "  assign unused_cmp = lt ^ eq;\n" : "  assign unused_cmp = eq ^ gt;\n")
    << "  // Bit ActBits-1-Level is x >= bound; the others pass.\n"
       "  for (genvar b = 0; b < ActBits; b++) begin : g_bit\n"
       "    if (b == ActBits - 1 - Level) begin : g_resolve\n"
    << (bug ? "      assign idx_o[b] = gt;\n" : "      assign idx_o[b] = !lt;\n")
    << "      // The bit comes in 0: the levels above have not resolved it.\n"
       "      logic unused_idx_bit;\n"
       "      assign unused_idx_bit = idx_i[b];\n"
       "    end else begin : g_pass\n"
       "      assign idx_o[b] = idx_i[b];\n"
       "    end\n"
       "  end\n";
  return m.file();
}

// The unit's header widths, its ports and its localparams.
void clustering_ports(SvModule& m, const Config& c, const Derived& d) {
  const int na = c.act_bits;
  const int lanes = c.clustering_lanes;
  const ClusteringTiming& t = d.clustering_unit;
  const int nbounds = d.boundaries;
  m.header_localparam("Lanes", lanes, "Activations a beat.");
  m.header_localparam("ActBits", na, "Bits of a cluster index, nA.");
  m.header_localparam("Boundaries", nbounds, "Cluster boundaries, 2^nA - 1.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {{"input", 0, "clk_i", "Clock."},
       {"input", 0, "rst_ni", "Asynchronous reset, active low."},
       {"input", 0, "boundaries_i",
        "The boundaries b_0 < ... < b_(Boundaries-1), binary16, b_j at "
        "[j*HalfBits +: HalfBits]; from the register file, changed per layer while busy_o "
        "is low.",
        "Boundaries*HalfBits"},
       {"input", 0, "act_valid_i", "A beat of activations is offered."},
       {"output", 0, "act_ready_o", "The unit takes the offered beat this cycle."},
       {"input", 0, "act_data_i",
        "The beat: lane i's binary16 activation at [i*HalfBits +: HalfBits].", "Lanes*HalfBits"},
       {"output", 0, "idx_valid_o", "A beat of cluster indices is presented."},
       {"input", 0, "idx_ready_i", "The consumer takes the presented beat this cycle."},
       {"output", 0, "idx_data_o", "The indices: lane i's index at [i*ActBits +: ActBits].",
        "Lanes*ActBits"},
       {"output", 0, "busy_o",
        "Some pipeline stage holds a beat (boundaries_i must then "
        "hold)."}});
  m.localparam("Stages", t.stages, "Register stages.");
  m.localparam("LevelsPerStage", c.clustering_levels_per_stage,
               "Levels of the search between two registers.");
}

// tree_bounds: the boundaries in the order the levels of the search read them.
void clustering_tree_bounds(SvModule& m) {
  // The boundaries in the order of the search tree (binary_search_boundary).
  m << "\n";
  m.comment(
      "The boundaries in search-tree order: level l compares with tree node 2^l - 1 + p "
      "for resolved index bits p, at [(2^l - 1 + p)*HalfBits +: HalfBits]; of the 2^(nA-l) "
      "clusters still possible it splits the middle, at boundary p * 2^(nA-l) + "
      "2^(nA-l-1) - 1.");
  m << "  logic [Boundaries*HalfBits-1:0] tree_bounds;\n"
       "  for (genvar n = 0; n < Boundaries; n++) begin : g_tree_node\n"
       "    localparam int Level    = $clog2(n + 2) - 1;\n"
       "    localparam int Resolved = n + 1 - (1 << Level);\n"
       "    localparam int Span     = 1 << (ActBits - Level);\n"
       "    localparam int Boundary = Resolved * Span + Span / 2 - 1;\n"
       "    assign tree_bounds[n*HalfBits +: HalfBits] = "
       "boundaries_i[Boundary*HalfBits +: HalfBits];\n"
       "  end\n\n";
}

// The pipeline: its stages, each the levels of the search and a register, then the outputs.
void clustering_stages(SvModule& m, const std::string& module) {
  m.comment(
      "Stage s takes a beat from stage s - 1 (stage 0: the input) when it is empty or "
      "when every later stage is full and the consumer takes the last one's beat; a "
      "lane's index starts at 0 and each level of the search sets one of its bits.");
  // The mutation: the output stream's valid falls in the cycle after a stall, the last stage
  // holding its beat through it.
  const bool drop = mutated("clustering_unit.valid_dropped_in_stall");
  const std::string out_ready = drop ? "out_ready" : "idx_ready_i";
  m << "  logic [Stages-1:0] valid_q, ready;\n\n";
  if (drop) {
    m << "  logic out_ready, dropped_q;\n"
         "  assign out_ready = idx_ready_i && !dropped_q;\n"
         "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) dropped_q <= 1'b0;\n"
         "    else dropped_q <= valid_q[Stages-1] && !idx_ready_i && !dropped_q;\n"
         "  end\n\n";
  }
  m << "  for (genvar s = 0; s < Stages; s++) begin : g_stage\n"
       "    localparam int First  = s * LevelsPerStage;\n"
       "    localparam int Levels = ActBits - First < LevelsPerStage ? ActBits - First\n"
       "                                                             : LevelsPerStage;\n"
       "    logic                      in_valid, load;\n"
       "    logic [Lanes*HalfBits-1:0] x_in;\n"
       "    logic [Lanes*ActBits-1:0]  idx_in, idx_d, idx_q;\n"
       "    if (s == 0) begin : g_first\n"
       "      assign in_valid = act_valid_i;\n"
       "      assign x_in     = act_data_i;\n"
       "      assign idx_in   = '0;\n"
       "    end else begin : g_next\n"
       "      assign in_valid = valid_q[s-1];\n"
       "      assign x_in     = g_stage[s-1].g_x.x_q;\n"
       "      assign idx_in   = g_stage[s-1].idx_q;\n"
       "    end\n"
       "    assign ready[s] = "
    << out_ready
    << " || !(&valid_q[Stages-1:s]);\n"
       "    assign load     = ready[s] && in_valid;\n\n"
       "    for (genvar i = 0; i < Lanes; i++) begin : g_lane\n"
       "      for (genvar j = 0; j < Levels; j++) begin : g_level\n"
       "        localparam int Level = First + j;\n"
       "        logic [ActBits-1:0] idx_so_far, idx_out;\n"
       "        if (j == 0) begin : g_from_stage\n"
       "          assign idx_so_far = idx_in[i*ActBits +: ActBits];\n"
       "        end else begin : g_from_level\n"
       "          assign idx_so_far = g_level[j-1].idx_out;\n"
       "        end\n";
  m.inst(module + "_level", "u_level",
         {{"x_i", "x_in[i*HalfBits +: HalfBits]"},
          {"idx_i", "idx_so_far"},
          {"bounds_i", "tree_bounds[((1 << Level) - 1)*HalfBits +: (1 << Level)*HalfBits]"},
          {"idx_o", "idx_out"}},
         "        ", {{"ActBits", "ActBits"}, {"Level", "Level"}}, "Lanes*ActBits");
  m << "      end\n"
       "      assign idx_d[i*ActBits +: ActBits] = g_level[Levels-1].idx_out;\n"
       "    end\n\n"
       "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "      if (!rst_ni) begin\n"
       "        valid_q[s] <= 1'b0;\n"
       "        idx_q      <= '0;\n"
       "      end else begin\n"
       "        if (ready[s]) valid_q[s] <= in_valid;\n"
       "        if (load) idx_q <= idx_d;\n"
       "      end\n"
       "    end\n"
       "    // The activations go on to the next stage; the last stage keeps only the index.\n"
       "    if (s < Stages - 1) begin : g_x\n"
       "      logic [Lanes*HalfBits-1:0] x_q;\n"
       "      always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "        if (!rst_ni) x_q <= '0;\n"
       "        else if (load) x_q <= x_in;\n"
       "      end\n"
       "    end\n"
       "  end\n\n"
       "  assign act_ready_o = ready[0];\n"
    << (drop ? "  assign idx_valid_o = valid_q[Stages-1] && !dropped_q;\n"
             : "  assign idx_valid_o = valid_q[Stages-1];\n")
    << "  assign idx_data_o  = g_stage[Stages-1].idx_q;\n"
       "  assign busy_o      = |valid_q;\n";
}

class ClusteringUnitBlock final : public Block {
 public:
  std::string name() const override { return "clustering_unit"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    out.uses = {"comparator"};
    const int na = c.act_bits;
    const int lanes = c.clustering_lanes;
    const Derived d = derive(c);
    const ClusteringTiming& t = d.clustering_unit;
    const int nbounds = d.boundaries;
    const std::string module = module_name(c, name());
    SvModule m(module,
               fmt::format("Clustering Unit (paper IV-C, docs/spec.md section 4): {0} binary16 "
                           "activations a beat in, one {1}-bit cluster index each out, ia = "
                           "number of boundaries b_j with x >= b_j under the order key (a value "
                           "equal to a boundary goes up, NaN to the top cluster). Binary search: "
                           "{1} comparator levels per lane, {2} level(s) per register stage, {3} "
                           "stage(s); an elastic pipeline that accepts a beat every cycle and "
                           "presents it {3} cycle(s) later. boundaries_i is read at every level: "
                           "hold it while busy_o is set.",
                           lanes, na, c.clustering_levels_per_stage, t.stages));
    clustering_ports(m, c, d);
    clustering_tree_bounds(m);
    clustering_stages(m, module);
    out.files = {mux_tree_module(c), level_module(c), m.file()};

    out.manifest["latency_cycles"] = t.latency;
    out.manifest["beats_per_cycle"] = t.beats_per_cycle;
    out.manifest["activations_per_cycle"] = t.activations_per_cycle;
    out.manifest["pipeline_stages"] = t.stages;
    out.manifest["comparisons_per_activation"] = na;
    out.manifest["comparators"] = t.comparators;
    out.manifest["boundaries"] = nbounds;
    return out;
  }
};

OASIS_REGISTER_BLOCK(ClusteringUnitBlock);

}  // namespace
}  // namespace oasis::gen
