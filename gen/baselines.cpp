// SPDX-License-Identifier: Apache-2.0
// The baselines the OASIS blocks are measured against in synthesis
// (make synth, docs/synth.md):
// - mac_line_baseline: an FP16 dequantize-and-MAC line (paper Fig. 1c) with
//   the PE line's throughput: ceil(K / row interval) multiply-accumulates a
//   cycle. Model: model/cycle/mac_line_baseline.hpp; test:
//   verif/tb/mac_line_baseline_tb.cpp.
// - topk_sort_baseline: Orizuru's interface and handshake around a bitonic
//   sorting network over the token, in Orizuru's order. Model:
//   model/cycle/topk_sort_baseline.hpp (outputs equal orizuru_topk's); test:
//   verif/tb/topk_sort_baseline_tb.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru.hpp"
#include "model/cycle/mac_line_baseline.hpp"
#include "model/cycle/topk_sort_baseline.hpp"

namespace oasis::gen {
namespace {

OASIS_REGISTER_MUTATION("topk_sort_baseline.stage_register_extra",
                        "the sorting network holds a register every stage fewer than its build "
                        "counts, so the pointers read records a cycle behind");
OASIS_REGISTER_MUTATION("mac_line_baseline.operand_register_dropped",
                        "the MAC-line baseline's operand registers pass their data through "
                        "while the beat's tag is still registered");

// ---- Sorting-network top-k ----------------------------------------------

SvFile ce_module(const Config& c) {
  SvModule m(module_name(c, "topk_sort_baseline") + "_ce",
             "Compare-exchange of the sorting-network top-k baseline: the hi outputs get the "
             "higher-ranked of the two records in Orizuru's order (an available record above an "
             "unavailable one; then by order key; equal keys: the lower channel ranks higher), "
             "the lo outputs the other.");
  m.param("ChanBits", 1, "Bits of a channel.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "a_val_i",
            "The record at the position that receives the higher-ranked one: value (binary16).",
            "HalfBits"},
           {"input", 0, "a_chan_i", "Its channel.", "ChanBits"},
           {"input", 0, "a_avail_i", "It holds a channel (padding does not)."},
           {"input", 0, "b_val_i", "The record at the other position: value.", "HalfBits"},
           {"input", 0, "b_chan_i", "Its channel.", "ChanBits"},
           {"input", 0, "b_avail_i", "It holds a channel."},
           {"output", 0, "hi_val_o", "The higher-ranked record: value.", "HalfBits"},
           {"output", 0, "hi_chan_o", "Its channel.", "ChanBits"},
           {"output", 0, "hi_avail_o", "Its availability."},
           {"output", 0, "lo_val_o", "The other record: value.", "HalfBits"},
           {"output", 0, "lo_chan_o", "Its channel.", "ChanBits"},
           {"output", 0, "lo_avail_o", "Its availability."}});
  m << "  logic gt, eq, unused_lt, swap;\n";
  m.inst(module_name(c, "comparator"), "u_cmp",
         {{"a_i", "b_val_i"},
          {"b_i", "a_val_i"},
          {"lt_o", "unused_lt"},
          {"eq_o", "eq"},
          {"gt_o", "gt"}});
  m.op("fp_compare", "HalfBits", "swap");
  m.op("lt", "ChanBits", "swap");
  m << "  // b ranks above a: swap.\n"
       "  assign swap = b_avail_i && (!a_avail_i || gt || (eq && b_chan_i < a_chan_i));\n"
       "  assign hi_val_o   = swap ? b_val_i : a_val_i;\n"
       "  assign hi_chan_o  = swap ? b_chan_i : a_chan_i;\n"
       "  assign hi_avail_o = swap ? b_avail_i : a_avail_i;\n"
       "  assign lo_val_o   = swap ? a_val_i : b_val_i;\n"
       "  assign lo_chan_o  = swap ? a_chan_i : b_chan_i;\n"
       "  assign lo_avail_o = swap ? a_avail_i : b_avail_i;\n";
  return m.file();
}

// The bitonic network: one generate loop over its blocks and their stages,
// with a register after every StagesPerCycle-th stage but the last.
SvFile network_module(const Config& c, const SortNetworkTiming& sn) {
  const bool regs = sn.registers > 0;
  SvModule m(module_name(c, "topk_sort_baseline") + "_network",
             "Bitonic sorting network over Positions records (value, availability, channel = "
             "position) in Orizuru's order: position 0 ends highest. Block k (1 .. log2 "
             "Positions) merges runs of 2^k positions in k stages of compare-exchanges at "
             "distances 2^(k-1) .. 1, every stage reading the one before" +
                 string(regs ? "; the records leave every StagesPerCycle-th stage but the last "
                               "through registers, so the sorted records are out that many "
                               "cycles after the inputs settle."
                             : ". Combinational."));
  m.param("Positions", 2, "Records, a power of two, at least 2.");
  m.param("ChanBits", 1, "Bits of a channel.");
  if (regs) {
    m.param("StagesPerCycle", sn.stages_per_cycle,
            "Stages of compare-exchanges between two registers.");
  }
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  std::vector<Port> ports;
  if (regs) {
    ports.push_back({"input", 0, "clk_i", "Clock."});
    ports.push_back({"input", 0, "rst_ni", "Asynchronous reset, active low."});
  }
  ports.insert(
      ports.end(),
      {{"input", 0, "val_i", "Position p's value, binary16, at [p*HalfBits +: HalfBits].",
        "Positions*HalfBits"},
       {"input", 0, "avail_i", "Position p holds a channel.", "Positions"},
       {"output", 0, "val_o", "The sorted values, highest at position 0.", "Positions*HalfBits"},
       {"output", 0, "chan_o", "Their channels.", "Positions*ChanBits"},
       {"output", 0, "avail_o", "Their availability.", "Positions"}});
  m.ports(ports);
  m.localparam("Blocks", "$clog2(Positions)");
  m.localparam("Pairs", "Positions / 2");
  m.comment("Blocks of at most 1024 iterations in every loop: Verilator unrolls no longer one.");
  m.localparam("Span", "Pairs < 1024 ? Pairs : 1024");
  m << "\n  logic [Positions*ChanBits-1:0] chan_in;\n"
       "  for (genvar hi = 0; hi < Positions / Span; hi++) begin : g_chan_hi\n"
       "    for (genvar lo = 0; lo < Span; lo++) begin : g_chan\n"
       "      assign chan_in[(hi*Span + lo)*ChanBits +: ChanBits] = ChanBits'(hi*Span + lo);\n"
       "    end\n"
       "  end\n\n"
       "  for (genvar k = 1; k <= Blocks; k++) begin : g_block\n"
       "    for (genvar e = 0; e < k; e++) begin : g_stage\n"
       "      localparam int Block = 1 << k;\n"
       "      localparam int Dist  = 1 << (k - 1 - e);\n";
  if (regs) {
    m << "      // Stage index from 0; a register after the stage ending each cycle.\n"
         "      localparam int Stage = (k - 1) * k / 2 + e;\n"
         "      localparam bit Cut   = (Stage + 1) % StagesPerCycle == 0 &&\n"
         "                             Stage + 1 < Blocks * (Blocks + 1) / 2;\n";
  }
  m << "      logic [Positions*HalfBits-1:0] in_val, val;\n"
       "      logic [Positions*ChanBits-1:0] in_chan, chan;\n"
       "      logic [Positions-1:0]          in_avail, avail;\n"
       "      if (k == 1) begin : g_first\n"
       "        assign in_val   = val_i;\n"
       "        assign in_chan  = chan_in;\n"
       "        assign in_avail = avail_i;\n"
       "      end else if (e == 0) begin : g_from_block\n"
       "        assign in_val   = g_block[k-1].g_stage[k-2].val;\n"
       "        assign in_chan  = g_block[k-1].g_stage[k-2].chan;\n"
       "        assign in_avail = g_block[k-1].g_stage[k-2].avail;\n"
       "      end else begin : g_from_stage\n"
       "        assign in_val   = g_stage[e-1].val;\n"
       "        assign in_chan  = g_stage[e-1].chan;\n"
       "        assign in_avail = g_stage[e-1].avail;\n"
       "      end\n"
       "      for (genvar hi = 0; hi < Pairs / Span; hi++) begin : g_hi\n"
       "        for (genvar lo = 0; lo < Span; lo++) begin : g_pair\n"
       "          // Pair p joins positions I and I + Dist; in a block whose bit Block of I is\n"
       "          // set, the order is reversed (bitonic).\n"
       "          localparam int P  = hi*Span + lo;\n"
       "          localparam int I  = (P / Dist) * 2*Dist + P % Dist;\n"
       "          localparam int Hi = (I & Block) == 0 ? I : I + Dist;\n"
       "          localparam int Lo = (I & Block) == 0 ? I + Dist : I;\n";
  // Without registers the compare-exchange writes the stage's records;
  // with them, its own, which a register or a wire passes on.
  const auto out = [&](const string& side, const string& field, const string& slice) {
    return regs ? side + "_" + field : slice;
  };
  if (regs) {
    m << "          logic [15:0]         hi_val, lo_val;\n"
         "          logic [ChanBits-1:0] hi_chan, lo_chan;\n"
         "          logic                hi_avail, lo_avail;\n";
  }
  m.inst(module_name(c, "topk_sort_baseline") + "_ce", "u_ce",
         {{"a_val_i", "in_val[Hi*HalfBits +: HalfBits]"},
          {"a_chan_i", "in_chan[Hi*ChanBits +: ChanBits]"},
          {"a_avail_i", "in_avail[Hi]"},
          {"b_val_i", "in_val[Lo*HalfBits +: HalfBits]"},
          {"b_chan_i", "in_chan[Lo*ChanBits +: ChanBits]"},
          {"b_avail_i", "in_avail[Lo]"},
          {"hi_val_o", out("hi", "val", "val[Hi*HalfBits +: HalfBits]")},
          {"hi_chan_o", out("hi", "chan", "chan[Hi*ChanBits +: ChanBits]")},
          {"hi_avail_o", out("hi", "avail", "avail[Hi]")},
          {"lo_val_o", out("lo", "val", "val[Lo*HalfBits +: HalfBits]")},
          {"lo_chan_o", out("lo", "chan", "chan[Lo*ChanBits +: ChanBits]")},
          {"lo_avail_o", out("lo", "avail", "avail[Lo]")}},
         "          ", {{"ChanBits", "ChanBits"}}, "Pairs*Blocks*(Blocks+1)/2");
  if (regs) {
    m << "          if (Cut) begin : g_reg\n"
         "            logic [15:0]         hi_val_q, lo_val_q;\n"
         "            logic [ChanBits-1:0] hi_chan_q, lo_chan_q;\n"
         "            logic                hi_avail_q, lo_avail_q;\n"
         "            always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "              if (!rst_ni) begin\n"
         "                hi_val_q   <= '0;\n"
         "                hi_chan_q  <= '0;\n"
         "                hi_avail_q <= 1'b0;\n"
         "                lo_val_q   <= '0;\n"
         "                lo_chan_q  <= '0;\n"
         "                lo_avail_q <= 1'b0;\n"
         "              end else begin\n"
         "                hi_val_q   <= hi_val;\n"
         "                hi_chan_q  <= hi_chan;\n"
         "                hi_avail_q <= hi_avail;\n"
         "                lo_val_q   <= lo_val;\n"
         "                lo_chan_q  <= lo_chan;\n"
         "                lo_avail_q <= lo_avail;\n"
         "              end\n"
         "            end\n"
         "            assign val[Hi*HalfBits +: HalfBits]  = hi_val_q;\n"
         "            assign chan[Hi*ChanBits +: ChanBits] = hi_chan_q;\n"
         "            assign avail[Hi]                     = hi_avail_q;\n"
         "            assign val[Lo*HalfBits +: HalfBits]  = lo_val_q;\n"
         "            assign chan[Lo*ChanBits +: ChanBits] = lo_chan_q;\n"
         "            assign avail[Lo]                     = lo_avail_q;\n"
         "          end else begin : g_wire\n"
         "            assign val[Hi*HalfBits +: HalfBits]  = hi_val;\n"
         "            assign chan[Hi*ChanBits +: ChanBits] = hi_chan;\n"
         "            assign avail[Hi]                     = hi_avail;\n"
         "            assign val[Lo*HalfBits +: HalfBits]  = lo_val;\n"
         "            assign chan[Lo*ChanBits +: ChanBits] = lo_chan;\n"
         "            assign avail[Lo]                     = lo_avail;\n"
         "          end\n";
  }
  m << "        end\n"
       "      end\n"
       "    end\n"
       "  end\n\n"
       "  assign val_o   = g_block[Blocks].g_stage[Blocks-1].val;\n"
       "  assign chan_o  = g_block[Blocks].g_stage[Blocks-1].chan;\n"
       "  assign avail_o = g_block[Blocks].g_stage[Blocks-1].avail;\n";
  return m.file();
}

// The network over the leaves, and the pointer muxes that pick the next
// outlier of each side from its sorted output.
void sort_core(SvModule& m, const Config& c, const OrizuruTiming& t, const SortNetworkTiming& sn) {
  const int nb = t.padded_leaves;
  const int P = sn.positions;
  const int kw = t.output_bits;
  const int pw = kw + 1;
  m.localparam("Positions", P, "Positions of the network: the leaves, then padding.");
  m.localparam("Channels", t.channels, "Channels N.");
  m.localparam("K", t.k, "Outliers per side, k.");
  m.localparam("NetValBits", "Positions*HalfBits", "The network's values, binary16 each.");
  m << "  logic [NetValBits-1:0] net_val, sorted_val;\n"
       "  logic [Positions-1:0] net_avail, sorted_avail;\n"
       "  logic [Positions*ChanBits-1:0] sorted_chan;\n";
  if (P > nb) {
    m << "  assign net_val   = NetValBits'(leaf_q);  // the padding: zero, never available\n"
         "  assign net_avail = Positions'(ValidMask);\n";
  } else {
    m << "  assign net_val   = leaf_q;\n  assign net_avail = ValidMask;\n";
  }
  std::vector<std::pair<string, string>> conns = {{"val_i", "net_val"},
                                                  {"avail_i", "net_avail"},
                                                  {"val_o", "sorted_val"},
                                                  {"chan_o", "sorted_chan"},
                                                  {"avail_o", "sorted_avail"}};
  std::vector<std::pair<string, string>> params = {{"Positions", "Positions"},
                                                   {"ChanBits", "ChanBits"}};
  if (sn.registers > 0) {
    const bool extra =
        sn.stages_per_cycle > 1 && mutated("topk_sort_baseline.stage_register_extra");
    m.localparam("StagesPerCycle", sn.stages_per_cycle - (extra ? 1 : 0),
                 "Stages of the network between two of its registers.");
    conns.insert(conns.begin(), {{"clk_i", "clk_i"}, {"rst_ni", "rst_ni"}});
    params.push_back({"StagesPerCycle", "StagesPerCycle"});
  }
  m.inst(module_name(c, "topk_sort_baseline") + "_network", "u_network", conns, "  ", params);
  // Selection: max_i at sorted position i-1, min_i at N-i; the pointers count
  // the outliers of each side taken, this cycle's included.
  m << fmt::format(
      "  // The next outlier of each side: max_i sits at position i-1, min_i at N-i. The\n"
      "  // pointers count each side's outliers taken, this cycle's included.\n"
      "  localparam int PtrBits = {};\n"
      "  logic [PtrBits-1:0] max_ptr, min_ptr;\n"
      "  assign max_ptr = (((PtrBits'(count_q) + PtrBits'(1)) >> 1) + PtrBits'(pop_max));\n"
      "  assign min_ptr = (PtrBits'(count_q) >> 1) + PtrBits'(pop_min);\n"
      "  always_comb begin\n"
      "    root_max_val  = sorted_val[HalfBits-1:0];\n"
      "    root_max_chan = sorted_chan[ChanBits-1:0];\n"
      "    root_min_val  = sorted_val[(Channels-1)*HalfBits +: HalfBits];\n"
      "    root_min_chan = sorted_chan[(Channels-1)*ChanBits +: ChanBits];\n"
      "    for (int i = 1; i < K; i++) begin\n"
      "      if (max_ptr == PtrBits'(i)) begin\n"
      "        root_max_val  = sorted_val[i*HalfBits +: HalfBits];\n"
      "        root_max_chan = sorted_chan[i*ChanBits +: ChanBits];\n"
      "      end\n"
      "      if (min_ptr == PtrBits'(i)) begin\n"
      "        root_min_val  = sorted_val[(Channels-1-i)*HalfBits +: HalfBits];\n"
      "        root_min_chan = sorted_chan[(Channels-1-i)*ChanBits +: ChanBits];\n"
      "      end\n"
      "    end\n"
      "  end\n"
      "  // Only the first and last k positions are read; the network's other outputs and\n"
      "  // the masks, which a sorted token does not need, are left to synthesis to remove.\n"
      "  logic unused_sorted;\n"
      "  assign unused_sorted = ^{{sorted_val, sorted_chan, sorted_avail, building}};\n"
      "  assign max_clear = '0;\n"
      "  assign min_clear = '0;\n",
      pw);
  m.op("add", pw, "max_ptr", 2);
  m.op("add", pw, "min_ptr");
  m.op("eq", pw, "root_max_val", 2 * int64_t(t.k - 1));
}

class TopkSortBaseline final : public Block {
 public:
  string name() const override { return "topk_sort_baseline"; }

  BlockOutput emit(const Config& c) const override {
    const Derived d = derive(c);
    const OrizuruTiming& t = d.topk_sort_baseline;
    const SortNetworkTiming& sn = d.sort_network;
    BlockOutput out;
    out.uses = {"comparator"};
    const string base = module_name(c, name());
    const int P = sn.positions;
    const string what = fmt::format(
        "Sorting-network top-k baseline for Orizuru: the k = {0} largest and k smallest of a "
        "token of N = {1} activations by a bitonic sorting network over {2} positions ({3} "
        "stages of compare-exchanges in Orizuru's order), {4}; max_i is sorted position i-1, "
        "min_i position N-i.",
        t.k, t.channels, P, sn.stages,
        sn.registers > 0 ? fmt::format("{} a build cycle, in {} build cycles", sn.stages_per_cycle,
                                       t.build_cycles)
                         : string("in one build cycle"));
    out.files = {ce_module(c), network_module(c, sn),
                 topk_top_module(t, base, what, [&](SvModule& mod) { sort_core(mod, c, t, sn); })};
    out.manifest = topk_timing_manifest(t);
    out.manifest.erase("units");
    out.manifest.erase("units_per_layer");
    out.manifest.erase("tree_levels");
    out.manifest["network_positions"] = P;
    out.manifest["network_stages"] = sn.stages;
    out.manifest["network_stages_per_cycle"] = sn.stages_per_cycle;
    out.manifest["network_registers"] = sn.registers;
    out.manifest["stage_model"] =
        stage_model("the network's stages between two registers, the last with the pointers",
                    "compare-exchange stage", t.stage_model);
    return out;
  }
};

// ---- FP16 dequantize-and-MAC line ----------------------------------------

// The MAC line's header widths, its ports and its localparams.
void mac_line_header(SvModule& m, const Config& c, const Derived& d) {
  const MacLineTiming& tm = d.mac_line_baseline;
  const FpFormat& f = d.accumulator;
  const int aw = f.width();
  const int K = c.channels;
  const int nW = c.weight_bits;
  const int M = tm.macs;
  const int B = tm.beats;
  const int bw = tm.beat_bits;
  m.header_localparam("Channels", K, "Channels K of a token and of a weight row.");
  m.header_localparam("Macs", M, "Multiply-accumulates a cycle, M.");
  m.header_localparam("Centroids", d.weight_centroids, "Weight centroids, 2^nW.");
  m.header_localparam("IdxBits", nW, "Bits of a weight index, nW.");
  m.header_localparam("HalfBits", kBinary16Format.width(),
                      "Bits of a binary16 value: activations, codebook entries, scales.");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "act_i",
            "The token's activations x[k], binary16, at [k*HalfBits +: HalfBits]; held while rows "
            "run.",
            "Channels*HalfBits"},
           {"input", 0, "act_scale_i", "The token's scale s_a, binary16.", "HalfBits"},
           {"input", 0, "weight_codebook_i",
            "The weight codebook C_W: entry j, binary16, at [j*HalfBits +: HalfBits].",
            "Centroids*HalfBits"},
           {"input", 0, "w_valid_i", "A beat of the weight row is offered (and taken)."},
           {"input", 0, "w_data_i",
            "The beat: iw[n][b*Macs + i] at [i*IdxBits +: IdxBits]; indices past K are "
            "ignored.",
            "Macs*IdxBits"},
           {"input", 0, "w_scale_i", "The row's scale s_w, binary16, read with its first beat.",
            "HalfBits"},
           {"output", 0, "y_valid_o", "y is valid this cycle (one cycle per row, rows in order)."},
           {"output", 0, "y_data_o", "y[n], binary16.", "HalfBits"}});
  m.localparam("Beats", B, "Beats of a row.");
  m.localparam("LastLanes", K - (B - 1) * M, "Lanes that hold a channel in the last beat.");
  m.localparam("AccBits", aw, fmt::format("Bits of a value in A ({}).", f.name()));
  m.localparam("BeatBits", bw, "Bits of the beat counter.");
  m.localparam("PadBits", "Beats*Macs*HalfBits", "The activations, padded to whole beats.");
  const bool op_stage = tm.operand_stage;
  if (op_stage) {
    const bool dropped = mutated("mac_line_baseline.operand_register_dropped");
    m.localparam("OperandStages", dropped ? 0 : 1,
                 "Registers between the operand multiplexers and the multipliers.");
  }
}

// The beat counter, the rows' s_w FIFO and the activations padded to whole beats.
void mac_line_beats(SvModule& m, const Config& c, const Derived& d) {
  const MacLineTiming& tm = d.mac_line_baseline;
  const int K = c.channels;
  const int M = tm.macs;
  const int B = tm.beats;
  m << "\n  // Beat counter within the row.\n"
       "  logic [BeatBits-1:0] beat_q;\n  logic first, last;\n"
       "  assign first = beat_q == '0;\n"
       "  assign last  = beat_q == BeatBits'(Beats - 1);\n";
  m << registers({{"beat_q", "last ? '0 : beat_q + BeatBits'(1)"}}, "  ", "w_valid_i");
  m.comment(
      "Each row's s_w, from its first beat to the multiplier that scales the row's sum by "
      "it (a FIFO, not registers riding beside the tree and the accumulator).");
  m << "  logic [HalfBits-1:0] sw_head;\n  logic sw_pop, sw_empty, sw_full;\n";
  m << fifo("u_sw_fifo", 16, tm.sw_fifo_depth, "w_valid_i && first", "w_scale_i", "sw_pop",
            "sw_head", "sw_empty", "sw_full");
  m << "  logic unused_sw_fifo;\n  assign unused_sw_fifo = ^{sw_empty, sw_full};\n";
  m.op("add", "BeatBits", "beat_q");
  m << "  logic [PadBits-1:0] act_pad;\n";
  m << (int64_t(B) * M > K ? "  assign act_pad = PadBits'(act_i);\n"
                           : "  assign act_pad = act_i;\n");
}

// The lanes: each beat's activation and dequantized weight, and their product.
void mac_line_lanes(SvModule& m, const Config& c, const Derived& d) {
  const MacLineTiming& tm = d.mac_line_baseline;
  const FpFormat& f = d.accumulator;
  const int nW = c.weight_bits;
  const int M = tm.macs;
  const int B = tm.beats;
  const int bw = tm.beat_bits;
  const bool op_stage = tm.operand_stage;
  // The beat's tag {last, first}, beside the operands' registers when
  // there are any; `op` names what the multipliers take.
  const string op_valid = op_stage ? "op_valid" : "w_valid_i";
  const string op_last = op_stage ? "op_last" : "last";
  if (op_stage) {
    m.comment("The beat's tag beside the operand registers.");
    m.pipe_stage("op", 1, "w_valid_i", {{"last", 0, "last"}, {"first", 0, "first"}});
  }
  m.comment(op_stage ? "Lanes: the beat's activation and the dequantized weight, registered, "
                       "and their product."
                     : "Lanes: the beat's activation, the dequantized weight, their product.");
  m << "  logic [Macs*AccBits-1:0] prod;\n  logic [Macs-1:0] prod_p;\n";
  // A lane's multiplier has stages of its own (an exact product needs fewer at a clock
  // target: MacLineTiming::lane_stages).
  const int LS = tm.lane_stages;
  const FpCuts mul_cuts = chain_cuts(f, FpOp::kMul, LS, kHalfAB);
  if (mul_cuts.mask != 0) m << "  logic [Macs-1:0] prod_valid;\n";
  if (op_stage) m << "  logic [Macs-1:0] op_lane_valid;\n";
  m << "  for (genvar i = 0; i < Macs; i++) begin : g_lane\n"
       "    logic [HalfBits-1:0] x, w;\n"
       "    always_comb begin\n"
       "      x = act_pad[i*HalfBits +: HalfBits];\n"
       "      for (int b = 1; b < Beats; b++) begin\n"
       "        if (beat_q == BeatBits'(b)) x = act_pad[(b*Macs + i)*HalfBits +: HalfBits];\n"
       "      end\n"
       "    end\n"
       "    // The Dequantization Unit: C_W[iw].\n"
       "    always_comb begin\n"
       "      w = weight_codebook_i[HalfBits-1:0];\n"
       "      for (int j = 1; j < Centroids; j++) begin\n"
       "        if (w_data_i[i*IdxBits +: IdxBits] == IdxBits'(j)) begin\n"
       "          w = weight_codebook_i[j*HalfBits +: HalfBits];\n"
       "        end\n"
       "      end\n"
       "    end\n";
  m.op("eq", bw, "x", int64_t(M) * (B - 1));
  m.op("eq", nW, "w", int64_t(M) * (d.weight_centroids - 1));
  // The multiplier takes the binary16 operands as they are, also into a binary32 product.
  if (op_stage) {
    m << "    logic [HalfBits-1:0] x_q, w_q;\n";
    m << pipe("u_operand_pipe", "2*HalfBits", "OperandStages", "w_valid_i", "{x, w}",
              "op_lane_valid[i]", "{x_q, w_q}", "    ");
  }
  chain_unit(m, f, FpOp::kMul, "u_mul", op_stage ? "x_q" : "x", op_stage ? "w_q" : "w",
             "prod[i*AccBits +: AccBits]", LS, op_valid, "prod_valid[i]", "    ", "Macs", kHalfAB);
  m << fmt::format("    assign prod_p[i] = i < LastLanes || !{};\n  end\n", op_last);
  if (op_stage) {
    m << "  logic unused_op_lane_valid;\n  assign unused_op_lane_valid = ^op_lane_valid;\n";
  }
}

// The products' registers, the pairwise tree, the accumulator and the scaling to y.
void mac_line_tree(SvModule& m, const Config& c, const Derived& d) {
  const MacLineTiming& tm = d.mac_line_baseline;
  const FpFormat& f = d.accumulator;
  const int S = d.fp_stages;
  const int M = tm.macs;
  const int LS = tm.lane_stages;
  const FpCuts mul_cuts = chain_cuts(f, FpOp::kMul, LS, kHalfAB);
  const bool op_stage = tm.operand_stage;
  // The beat's tag as the multipliers take it (see mac_line_lanes).
  const string op_valid = op_stage ? "op_valid" : "w_valid_i";
  const string op_last = op_stage ? "op_last" : "last";
  const string op_first = op_stage ? "op_first" : "first";
  m.comment(
      "The products' registers, then the pairwise tree, one instance per level; the "
      "beat's tag {last, first} rides beside them through as many registers.");
  m << "  logic mul_valid;\n  logic [Macs*AccBits-1:0] mul_prod;\n"
       "  logic [Macs-1:0] mul_present;\n  logic [Macs-1:0] mul_lane_valid;\n";
  m << "  for (genvar i = 0; i < Macs; i++) begin : g_mul_reg\n";
  m << pipe("u_pipe", "AccBits", std::to_string(mul_cuts.output_stages),
            mul_cuts.mask != 0 ? "prod_valid[i]" : op_valid, "prod[i*AccBits +: AccBits]",
            "mul_lane_valid[i]", "mul_prod[i*AccBits +: AccBits]", "    ");
  m << "  end\n";
  m << pipe("u_mul_present_pipe", "Macs", std::to_string(LS), op_valid, "prod_p", "mul_valid",
            "mul_present");
  m << "  logic unused_mul_lane_valid;\n  assign unused_mul_lane_valid = ^mul_lane_valid;\n";
  const TreeRoot root = tree(m, c, f, S, "lvl", M, "mul_prod", "mul_present", "mul_valid", "Macs");
  m.pipe_stage("tag", LS + root.levels * S, op_valid,
               {{"last", 0, op_last}, {"first", 0, op_first}});
  m << "  // The beat's sum; its present bit is always set (lane 0 holds a channel).\n"
       "  logic unused_root;\n";
  m << fmt::format("  assign unused_root = ^{{{}, {}}};\n", root.present, root.valid);
  const TreeRoot acc = accumulator(m, c, f, S, d.accumulator_slots, tm.slots, 1, "", "Beats",
                                   "tag_valid", "tag_first", "tag_last", "", root.value);
  m << fmt::format("  logic unused_acc_present;\n  assign unused_acc_present = {};\n", acc.present);
  chain_stage(m, f, FpOp::kMul, "u_scale_a", acc.value, "act_scale_i", "mg1", S, acc.valid, {},
              "prod", "AccBits", kHalfB);
  m << "  // The row's s_w leaves its FIFO as the row's sum enters the scaling by it.\n"
       "  assign sw_pop = mg1_valid;\n";
  scale_to_output(m, f, S, "mg1_prod", "mg1_valid", "mg2");
}

class MacLineBaselineBlock final : public Block {
 public:
  string name() const override { return "mac_line_baseline"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const Derived d = derive(c);
    const MacLineTiming& tm = d.mac_line_baseline;
    const FpFormat& f = d.accumulator;
    const int S = d.fp_stages;
    const int M = tm.macs;
    const int B = tm.beats;
    SvModule m(
        module,
        fmt::format(
            "FP16 dequantize-and-MAC line, the baseline of the PE line (paper Fig. "
            "1c): per weight row, {0} beat(s) of M = {1} weight indices; beat b "
            "multiplies x[bM+i] by C_W[iw] (into {2}), reduces the M products "
            "by a pairwise tree ({3} level(s); {4} tree(s) of {5} inputs), "
            "accumulates the beat sums in beat order in {7} partial sum(s), then "
            "scales by s_a and s_w and rounds to binary16. {9} register stage(s) per "
            "lane multiplier, {6} per other floating-point unit{8}. No backpressure: a beat "
            "is taken whenever w_valid_i is set; y_valid_o is set for one cycle per row.",
            B, M, f.name(), tm.tree_levels, tm.trees, tm.tree_inputs, S, tm.slots,
            tm.operand_stage ? ", and one between the operand multiplexers and the multipliers"
                             : "",
            tm.lane_stages));
    mac_line_header(m, c, d);
    mac_line_beats(m, c, d);
    mac_line_lanes(m, c, d);
    mac_line_tree(m, c, d);
    out.files = {m.file()};
    // The tree level; drop_unused_tree_level takes it out when no tree has two inputs.
    out.files.insert(out.files.begin(), tree_level_module(c));
    out.manifest["macs_per_cycle"] = M;
    out.manifest["mac_trees"] = tm.trees;
    out.manifest["mac_tree_inputs"] = tm.tree_inputs;
    out.manifest["tree_levels"] = tm.tree_levels;
    out.manifest["accumulator_partials"] = tm.slots;
    out.manifest["beats_per_row"] = B;
    out.manifest["row_interval_cycles"] = tm.row_interval;
    out.manifest["row_latency_cycles"] = tm.row_latency;
    out.manifest["operand_stage"] = tm.operand_stage;
    out.manifest["lane_stages"] = tm.lane_stages;
    out.manifest["sw_fifo_depth"] = tm.sw_fifo_depth;
    out.manifest["accumulator"] = f.name();
    drop_unused_tree_level(out, c);
    return out;
  }
};

OASIS_REGISTER_BLOCK(TopkSortBaseline);
OASIS_REGISTER_BLOCK(MacLineBaselineBlock);

}  // namespace
}  // namespace oasis::gen
