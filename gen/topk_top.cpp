// SPDX-License-Identifier: Apache-2.0
// The top module every top-k engine shares (gen/orizuru.hpp): the token interface with its
// load / build / drain handshake around the engine's core, and the manifest figures of the
// cycle model (model/cycle/orizuru_cycle.hpp). Interface and timing: docs/orizuru.md.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/orizuru.hpp"
#include "gen/sv.hpp"

namespace oasis::gen {

using std::string;

namespace {

// The top module's figures, ports, states and registers.
void topk_declarations(SvModule& m, const OrizuruTiming& t) {
  const int B = t.beat_activations;
  const int bw = t.beat_bits;
  const int sw = t.stage_bits;
  const int kw = t.output_bits;
  const int cw = t.channel_bits;
  std::vector<bool> valid(size_t(t.padded_leaves), false);
  for (int i = 0; i < t.channels; ++i) valid[size_t(i)] = true;
  m.header_localparam("BeatLanes", B, "Activations a beat.");
  m.header_localparam("ChanBits", cw, "Bits of a channel number.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "in_valid_i", "A beat of the token is offered."},
           {"output", 0, "in_ready_o", "The engine takes the offered beat this cycle."},
           {"input", 0, "in_data_i",
            "The beat: activation i, binary16, at [i*HalfBits +: HalfBits].", "BeatLanes*HalfBits"},
           {"output", 0, "out_valid_o", "An outlier is presented."},
           {"input", 0, "out_ready_i", "The consumer takes the presented outlier this cycle."},
           {"output", 0, "out_data_o",
            "The outlier {side, value, channel}: [HalfBits+ChanBits] side (0 max, 1 min), "
            "[ChanBits +: HalfBits] binary16 value as loaded, [ChanBits-1:0] channel.",
            "HalfBits + ChanBits + 1"}});
  m.localparam("Beats", t.beats, "Beats of a token.");
  m.localparam("BuildCycles", t.build_cycles, "Cycles of the build.");
  m.localparam("Outliers", t.outliers, "Outliers of a token, 2k.");
  m.localparam("TokenLanes", "Beats * BeatLanes",
               "Leaf registers: a token's beats of activations, the last beat's padding too.");
  m.localparam("BeatBits", bw, "Bits of the beat counter.");
  m.localparam("StageBits", sw, "Bits of the build-cycle counter.");
  m.localparam("CountBits", kw, "Bits of the outlier counter.");
  m << fmt::format(
      "  /// Leaves that hold a channel (the others are padding, never available).\n"
      "  localparam logic [TokenLanes-1:0] ValidMask = {};\n"
      "  localparam logic [1:0] StLoad  = 2'd0;\n"
      "  localparam logic [1:0] StBuild = 2'd1;\n"
      "  localparam logic [1:0] StDrain = 2'd2;\n\n"
      "  logic [1:0] state_q, state_d;\n"
      "  logic [BeatBits-1:0] beat_q, beat_d;\n"
      "  logic [StageBits-1:0] stage_q, stage_d;\n"
      "  logic [CountBits-1:0] count_q, count_d;\n"
      "  logic [TokenLanes*HalfBits-1:0] leaf_q;\n"
      "  logic [TokenLanes-1:0] max_avail_q, max_avail_d, min_avail_q, min_avail_d;\n"
      "  logic [TokenLanes-1:0] max_avail, min_avail;\n"
      "  logic [TokenLanes-1:0] max_clear, min_clear;\n"
      "  logic [HalfBits-1:0] max_val_q, min_val_q, root_max_val, root_min_val;\n"
      "  logic [ChanBits-1:0] max_chan_q, min_chan_q, root_max_chan, root_min_chan;\n"
      "  logic in_fire, out_fire, side, pop_max, pop_min, building;\n\n",
      mask_literal(valid));
}

// The handshakes: a beat in, an outlier out, the masks less this cycle's pops, and with a pop
// over more than two cycles each side's wait for its next winner.
void topk_handshake(SvModule& m, const OrizuruTiming& t, const string& module) {
  m << "  assign in_ready_o  = state_q == StLoad;\n"
       "  assign in_fire     = in_valid_i && in_ready_o;\n";
  // Orizuru's trees read the masks less this cycle's pops and not this cycle's load
  // (what they compute while loading is never used): so they depend on registers only,
  // and a simulator evaluates them once a cycle rather than at every change of an input.
  // The baselines' trees keep the masks as written (avail_d).
  m.comment(module.ends_with("_orizuru")
                ? "The masks less this cycle's pops, which the trees read, never a load's: what "
                  "they compute while loading is not used."
                : "The masks less this cycle's pops.");
  m << "  assign max_avail   = max_avail_q & ~max_clear;\n"
       "  assign min_avail   = min_avail_q & ~min_clear;\n";
  if (t.pop_cycles > 2) {
    // A side's next winner is in its root register pop_cycles after its pop;
    // the other side's single cycle in between does not cover the wait.
    m.localparam("PopCycles", t.pop_cycles,
                 "Cycles from a side's pop until its next winner can be presented.");
    m.comment("Cycles until each side's root register holds its next winner.");
    m.localparam("WaitBits", t.pop_wait_bits, "Bits of a side's wait counter.");
    m << "  logic [WaitBits-1:0] max_wait_q, max_wait_d, min_wait_q, min_wait_d;\n";
    m << "  assign out_valid_o = state_q == StDrain && (side ? min_wait_q : max_wait_q) == '0;\n";
  } else {
    m << "  assign out_valid_o = state_q == StDrain;\n";
  }
  m << "  assign out_fire    = out_valid_o && out_ready_i;\n"
       "  assign side        = count_q[0];\n"
       "  assign pop_max     = out_fire && !side;\n"
       "  assign pop_min     = out_fire && side;\n"
       "  assign building    = state_q == StBuild;\n"
       "  assign out_data_o  = side ? {1'b1, min_val_q, min_chan_q}\n"
       "                            : {1'b0, max_val_q, max_chan_q};\n\n";
  if (t.pop_cycles > 2) {
    const int w = t.pop_wait_bits;
    std::vector<Reg> waits;
    // The bug is Orizuru's, not the k-round baseline's, whose top module this also is.
    const bool orizuru = module.ends_with("_orizuru");
    const int wait = orizuru && mutated("orizuru.pop_wait_short") ? 2 : 1;
    for (const string side : {"max", "min"}) {
      m << fmt::format(
          "  assign {0}_wait_d = pop_{0} ? WaitBits'(PopCycles - {1})\n"
          "                     : {0}_wait_q == '0 ? '0 : {0}_wait_q - WaitBits'(1);\n",
          side, wait);
      waits.push_back({side + "_wait_q", side + "_wait_d"});
      m.op("add", w, side + "_wait_d");
    }
    m << registers(waits) << "\n";
  }
}

// The state machine (load, build, drain), its registers, and the leaves and masks.
void topk_state_machine(SvModule& m, const OrizuruTiming& t) {
  const int bw = t.beat_bits;
  const int sw = t.stage_bits;
  const int kw = t.output_bits;
  m << "\n  always_comb begin\n"
       "    state_d     = state_q;\n"
       "    beat_d      = beat_q;\n"
       "    stage_d     = stage_q;\n"
       "    count_d     = count_q;\n"
       "    max_avail_d = max_avail;\n"
       "    min_avail_d = min_avail;\n"
       "    unique case (state_q)\n"
       "      StLoad: begin\n"
       "        if (in_fire) begin\n"
       "          max_avail_d = ValidMask;\n"
       "          min_avail_d = ValidMask;\n"
       "          if (beat_q == BeatBits'(Beats - 1)) begin\n"
       "            beat_d  = '0;\n"
       "            stage_d = '0;\n"
       "            state_d = StBuild;\n"
       "          end else begin\n"
       "            beat_d = beat_q + BeatBits'(1);\n"
       "          end\n"
       "        end\n"
       "      end\n"
       "      StBuild: begin\n"
       "        if (stage_q == StageBits'(BuildCycles - 1)) begin\n"
       "          count_d = '0;\n"
       "          state_d = StDrain;\n"
       "        end else begin\n"
       "          stage_d = stage_q + StageBits'(1);\n"
       "        end\n"
       "      end\n"
       "      StDrain: begin\n"
       "        if (out_fire) begin\n"
       "          if (count_q == CountBits'(Outliers - 1)) begin\n"
       "            count_d = '0;\n"
       "            state_d = StLoad;\n"
       "          end else begin\n"
       "            count_d = count_q + CountBits'(1);\n"
       "          end\n"
       "        end\n"
       "      end\n"
       "      default: state_d = StLoad;\n"
       "    endcase\n"
       "  end\n\n";
  m.op("add", bw, "beat_d");
  m.op("add", sw, "stage_d");
  m.op("add", kw, "count_d");
  m << registers({{"state_q", "state_d", "StLoad"},
                  {"beat_q", "beat_d"},
                  {"stage_q", "stage_d"},
                  {"count_q", "count_d"},
                  {"max_val_q", "root_max_val"},
                  {"min_val_q", "root_min_val"},
                  {"max_chan_q", "root_max_chan"},
                  {"min_chan_q", "root_min_chan"}});
  m << "\n";
  // The leaves and masks, one register block per beat (a single reset of
  // thousands of bits is one replication too wide for lint). A beat's leaves
  // are written only when that beat is taken: a decoded enable per beat
  // rather than a write at a variable offset into the whole token, which
  // Yosys would turn into a shifter as wide as the token.
  m.comment(
      "The leaves and masks, one register block per beat; a beat's leaves are written only "
      "when that beat is taken.");
  m << loop_open("b", t.beats, "g_leaf", "Beats");
  m << "    always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "      if (!rst_ni) begin\n"
       "        leaf_q[b*BeatLanes*HalfBits +: BeatLanes*HalfBits] <= '0;\n"
       "        max_avail_q[b*BeatLanes +: BeatLanes]  <= '0;\n"
       "        min_avail_q[b*BeatLanes +: BeatLanes]  <= '0;\n"
       "      end else begin\n"
       "        if (in_fire && beat_q == BeatBits'(b)) begin\n"
       "          leaf_q[b*BeatLanes*HalfBits +: BeatLanes*HalfBits] <= in_data_i;\n"
       "        end\n"
       "        max_avail_q[b*BeatLanes +: BeatLanes] <= max_avail_d[b*BeatLanes +: BeatLanes];\n"
       "        min_avail_q[b*BeatLanes +: BeatLanes] <= min_avail_d[b*BeatLanes +: BeatLanes];\n"
       "      end\n"
       "    end\n";
  m << loop_close(t.beats);
  m.op("eq", bw, "leaf_q", t.beats);
}

}  // namespace

// The token interface and the load / build / drain handshake around a core.
SvFile topk_top_module(const OrizuruTiming& t, const string& module, const string& what,
                       const std::function<void(SvModule&)>& core) {
  const int B = t.beat_activations;
  SvModule m(
      module,
      what +
          fmt::format("\nToken in: {0} beat(s) of {1} binary16 activations (channel "
                      "beat*{1} + i at [i*HalfBits +: HalfBits]; channels past {2} are padding and "
                      "never output). Then {3} build cycle(s), then the {4} outliers "
                      "out, {5} while out_ready_i is set, in the order max_1, "
                      "min_1, max_2, min_2, ... A new token is taken only after the "
                      "last outlier of the previous one has gone (in_ready_o is low "
                      "meanwhile).",
                      t.beats, B, t.channels, t.build_cycles, t.outliers,
                      t.pop_cycles > 2 ? fmt::format("a pair (max, min) every {} cycles, the "
                                                     "cycles a pop takes,",
                                                     t.pop_cycles)
                                       : string("one per cycle")));
  topk_declarations(m, t);
  topk_handshake(m, t, module);
  core(m);
  topk_state_machine(m, t);
  return m.file();
}

nlohmann::ordered_json topk_timing_manifest(const OrizuruTiming& t) {
  nlohmann::ordered_json m;
  m["channels"] = t.channels;
  m["outliers_per_side"] = t.k;
  m["comparators"] = t.comparators;
  m["units"] = t.units;
  m["units_per_layer"] = t.units_per_layer;
  m["tree_levels"] = t.tree_levels;
  m["beat_activations"] = t.beat_activations;
  m["beats_per_token"] = t.beats;
  m["channel_bits"] = t.channel_bits;
  m["build_latency_cycles"] = t.build_cycles;
  m["outliers_per_cycle"] = 1;
  m["pop_cycles"] = t.pop_cycles;
  m["drain_cycles"] = t.drain_cycles;
  m["cycles_per_token"] = t.cycles_per_token;
  m["comparisons_per_token"] = t.comparisons_per_token;
  m["load_while_draining"] = false;
  return m;
}

nlohmann::ordered_json stage_model(const string& path, const string& unit,
                                   const StageModel& estimate) {
  nlohmann::ordered_json m;
  m["path"] = path;
  m["unit"] = unit;
  m["unit_fo4"] = estimate.unit_fo4;
  m["units_per_stage"] = estimate.units_per_stage;
  m["longest_stage_fo4"] = estimate.longest_stage_fo4;
  return m;
}

}  // namespace oasis::gen
