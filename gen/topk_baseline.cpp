// SPDX-License-Identifier: Apache-2.0
// topk_baseline, the plain top-k engine Orizuru is measured against (docs/orizuru.md): k rounds
// of a max-and-min reduction over the whole masked vector by two pairwise trees, in the top
// module Orizuru has (gen/topk_top.cpp). Test: verif/tb/topk_baseline_tb.cpp.
#include <fmt/format.h>

#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru.hpp"
#include "gen/orizuru_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::orizuru_parts {
namespace {

OASIS_REGISTER_MUTATION("topk_baseline.tree_register_extra",
                        "the k-round baseline's trees read level 1 through a rank of registers "
                        "more than its pop cycles count");

// The baseline: the whole masked vector reduced to its max and its min every
// cycle by two pairwise trees (same tie rules), the winners' masks cleared;
// the levels in t.pop_cuts read their inputs through registers, so a side's
// next winner is at the root t.pop_cycles cycles after its pop.
void baseline_core(SvModule& m, const Config& c, const OrizuruTiming& t) {
  const int cw = t.channel_bits;
  m.localparam("Leaves", t.padded_leaves, "Leaf registers.");
  m << "  logic [Leaves*ChanBits-1:0] leaf_chan;\n";
  m << loop_open("i", t.padded_leaves, "g_chan", "Leaves");
  m << "    assign leaf_chan[i*ChanBits +: ChanBits] = ChanBits'(i);\n";
  m << loop_close(t.padded_leaves);
  m.comment(t.pop_cuts.empty()
                ? "Each side a pairwise tree of levels, ceil(n/2) winners out of n."
                : "Each side a pairwise tree of levels, ceil(n/2) winners out of n; the levels "
                  "that start a later cycle of the pop read their records through registers.");
  const string level_mod = module_name(c, "topk_baseline") + "_level";
  // The records into each level (Leaves, then the level before's outputs), the two sides'
  // trees being the same shape.
  std::vector<string> inputs = {"Leaves"};
  for (int n = t.padded_leaves; n > 1; n = (n + 1) / 2) {
    const string name = fmt::format("Lvl{}Outputs", inputs.size() - 1);
    m.localparam(name, (n + 1) / 2,
                 inputs.size() == 1 ? "Records out of each level, ceil(n/2) of its n." : "");
    inputs.push_back(name);
  }
  for (const char* side : {"max", "min"}) {
    const bool is_max = side == string("max");
    string val = "leaf_q", avail = fmt::format("{}_avail_d", side), chan = "leaf_chan";
    int level = 0;
    for (int n = t.padded_leaves; n > 1; n = (n + 1) / 2, ++level) {
      const string& in = inputs[size_t(level)];
      const string& out = inputs[size_t(level) + 1];
      const string p = fmt::format("{}{}", side, level);
      const bool cut = std::find(t.pop_cuts.begin(), t.pop_cuts.end(), level) != t.pop_cuts.end();
      if (cut || (level == 1 && mutated("topk_baseline.tree_register_extra"))) {
        // A rank of registers before this level, one record at a time.
        const string q = p + "_in";
        m << fmt::format("  logic {} {}_val;\n  logic {} {}_avail;\n  logic {} {}_chan;\n",
                         range(in + "*HalfBits"), q, range(in), q, range(in + "*ChanBits"), q);
        m << loop_open("j", n, "g_" + q, in);
        m << fmt::format(
            "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
            "      if (!rst_ni) begin\n"
            "        {0}_val[j*HalfBits +: HalfBits]  <= '0;\n"
            "        {0}_avail[j]                     <= 1'b0;\n"
            "        {0}_chan[j*ChanBits +: ChanBits] <= '0;\n"
            "      end else begin\n"
            "        {0}_val[j*HalfBits +: HalfBits]  <= {1}[j*HalfBits +: HalfBits];\n"
            "        {0}_avail[j]                     <= {2}[j];\n"
            "        {0}_chan[j*ChanBits +: ChanBits] <= {3}[j*ChanBits +: ChanBits];\n"
            "      end\n"
            "    end\n",
            q, val, avail, chan);
        m << loop_close(n);
        val = q + "_val";
        avail = q + "_avail";
        chan = q + "_chan";
      }
      m << fmt::format("  logic {} {}_val;\n  logic {} {}_avail;\n  logic {} {}_chan;\n",
                       range(out + "*HalfBits"), p, range(out), p, range(out + "*ChanBits"), p);
      m.inst(level_mod, "u_" + p,
             {{"val_i", val},
              {"avail_i", avail},
              {"chan_i", chan},
              {"val_o", p + "_val"},
              {"avail_o", p + "_avail"},
              {"chan_o", p + "_chan"}},
             "  ", {{"Inputs", in}, {"ChanBits", "ChanBits"}, {"MinSide", is_max ? "0" : "1"}});
      val = p + "_val";
      avail = p + "_avail";
      chan = p + "_chan";
    }
    m << fmt::format("  assign root_{0}_val  = {1};\n  assign root_{0}_chan = {2};\n", side, val,
                     chan);
    m << fmt::format(
        "  // The root is always available while draining.\n"
        "  logic unused_{0}_root;\n  assign unused_{0}_root = {1};\n",
        side, avail);
  }
  m << "  // The build flag only matters to the tree's level-by-level build.\n"
       "  logic unused_building;\n"
       "  assign unused_building = building;\n";
  m << loop_open("i", t.padded_leaves, "g_clear", "Leaves");
  m << "    assign max_clear[i] = pop_max && max_chan_q == ChanBits'(i);\n"
       "    assign min_clear[i] = pop_min && min_chan_q == ChanBits'(i);\n";
  m << loop_close(t.padded_leaves);
  m.op("eq", cw, "max_clear", 2 * int64_t(t.padded_leaves));
}

// One level of the baseline's pairwise trees.
SvFile topk_baseline_level_module(const Config& c) {
  SvModule m(module_name(c, "topk_baseline") + "_level",
             "One level of a pairwise max (or min, when MinSide is 1) tree over records (value, "
             "availability, channel): Inputs records in, (Inputs + 1) / 2 out. Pair j keeps "
             "record 2j + 1 when it is available and record 2j is not, or when it is greater "
             "(max) or not greater (min) under the order key, else record 2j; an odd last record "
             "passes. Ties as in Orizuru. Combinational.");
  m.param("Inputs", 2, "Records in, at least 2.");
  m.param("ChanBits", 1, "Bits of a channel.");
  m.param("MinSide", 0, "1: the min tree; 0: the max tree.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "val_i", "Record i's value, binary16, at [i*HalfBits +: HalfBits].",
            "Inputs*HalfBits"},
           {"input", 0, "avail_i", "Record i is available.", "Inputs"},
           {"input", 0, "chan_i", "Record i's channel.", "Inputs*ChanBits"},
           {"output", 0, "val_o", "Winner j's value.", "((Inputs+1)/2)*HalfBits"},
           {"output", 0, "avail_o", "Winner j is available.", "(Inputs+1)/2"},
           {"output", 0, "chan_o", "Winner j's channel.", "((Inputs+1)/2)*ChanBits"}});
  m.localparam("Outputs", "(Inputs + 1) / 2");
  m.comment("Blocks of at most 1024 pairs: Verilator unrolls no longer loop.");
  m.localparam("Block", "Outputs < 1024 ? Outputs : 1024");
  m << "\n  for (genvar hi = 0; hi < (Outputs + Block - 1) / Block; hi++) begin : g_hi\n"
       "  for (genvar lo = 0; lo < Block; lo++) begin : g_pair\n"
       "  if (hi*Block + lo < Outputs) begin : g_in\n"
       "    localparam int j = hi*Block + lo;\n"
       "    if (2*j + 1 < Inputs) begin : g_cmp\n"
       "      logic gt, right, unused_lt, unused_eq;\n";
  compare(m, c, "u_cmp", "val_i[(2*j+1)*HalfBits +: HalfBits]", "val_i[2*j*HalfBits +: HalfBits]",
          "unused_lt", "unused_eq", "gt", "      ", "Inputs/2");
  m << "      assign right = avail_i[2*j+1] && (!avail_i[2*j] || (MinSide == 1 ? !gt : gt));\n"
       "      assign val_o[j*HalfBits +: HalfBits] = right ? val_i[(2*j+1)*HalfBits +: HalfBits]\n"
       "                                                   : val_i[2*j*HalfBits +: HalfBits];\n"
       "      assign chan_o[j*ChanBits +: ChanBits] = right ? chan_i[(2*j+1)*ChanBits +: "
       "ChanBits]\n"
       "                                                    : chan_i[2*j*ChanBits +: ChanBits];\n"
       "      assign avail_o[j] = avail_i[2*j] || avail_i[2*j+1];\n"
       "    end else begin : g_pass\n"
       "      assign val_o[j*HalfBits +: HalfBits] = val_i[2*j*HalfBits +: HalfBits];\n"
       "      assign chan_o[j*ChanBits +: ChanBits] = chan_i[2*j*ChanBits +: ChanBits];\n"
       "      assign avail_o[j] = avail_i[2*j];\n"
       "    end\n"
       "  end\n"
       "  end\n"
       "  end\n";
  return m.file();
}

class TopkBaseline final : public Block {
 public:
  string name() const override { return "topk_baseline"; }

  BlockOutput emit(const Config& c) const override {
    const OrizuruTiming t = derive(c).topk_baseline;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    const string what = fmt::format(
        "Top-k baseline for Orizuru: the k = {0} largest and k smallest of a token of N = {1} "
        "activations by reducing the whole masked vector to its max and its min every cycle "
        "(two pairwise trees, ties as in Orizuru), k rounds{2}.",
        t.k, t.channels,
        t.pop_cuts.empty()
            ? string()
            : fmt::format("; registers before tree levels {} split a pop over {} cycles",
                          fmt::join(t.pop_cuts, ", "), t.pop_cycles));
    out.files = {topk_baseline_level_module(c),
                 topk_top_module(t, base, what, [&](SvModule& m) { baseline_core(m, c, t); })};
    out.manifest = topk_timing_manifest(t);
    out.manifest.erase("units");
    out.manifest.erase("units_per_layer");
    out.manifest.erase("tree_levels");
    out.manifest["pop_cuts"] = t.pop_cuts;
    out.manifest["stage_model"] =
        stage_model("a pop, from out_ready_i through the mask's clear and its part of a tree",
                    "tree level", t.stage_model);
    return out;
  }
};

OASIS_REGISTER_BLOCK(TopkBaseline);

}  // namespace
}  // namespace oasis::gen::orizuru_parts
