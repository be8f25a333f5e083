// SPDX-License-Identifier: Apache-2.0
// The FIGLUT-class LUT line (paper II-B, Table I; docs/woq_lut_line.md), the weight-only
// LUT-GEMM baseline the PE line is measured against: binary16 activations, uniform weights one
// bit-plane a beat, the half-size LUT of each group of mu activations generated ahead by
// binary16 adders, U read-accumulate units reading the shared LUTs, R rows a batch whose sums
// leave one a cycle through the row's tree and its scaling by s_w. Model:
// model/cycle/woq_lut_line_baseline.hpp (numerics: model/quant/woq_lut.hpp); test:
// verif/tb/woq_lut_line_baseline_tb.cpp. Every figure comes from derive(c).woq_lut_line_baseline.
#include <fmt/format.h>

#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/derived.hpp"

namespace oasis::gen {
namespace {

using std::string;

OASIS_REGISTER_MUTATION("woq_lut_line_baseline.plane_weight_wrong",
                        "the LUT is not doubled after a beat of plane 1, so that planes 2 and up "
                        "are weighted half their power of two");
OASIS_REGISTER_MUTATION("woq_lut_line_baseline.negation_sign_wrong",
                        "a read is negated when its pattern's top digit is +1 instead of -1");

string block_name() { return "woq_lut_line_baseline"; }

// A node of the LUT generator (docs/numerics.md, "The FIGLUT-class line"): the 2^(n-1) sums of
// its n terms with the last one positive, each its left child's sum of a pattern (a stored one,
// or one negated) plus a stored sum of its right child.
SvFile node_module(const Config& c) {
  SvModule m(
      module_name(c, block_name()) + "_node",
      "A node of the FIGLUT-class line's LUT generator over LeftTerms + RightTerms activations: "
      "sum e is the left child's sum of pattern e mod 2^LeftTerms plus the right child's stored "
      "sum e / 2^LeftTerms, add16 with the left operand first. A child stores the 2^(n-1) sums "
      "of its n activations with the last one positive; a left pattern whose last digit is -1 "
      "is the stored sum of the inverted pattern with its sign flipped. Stages register stages: "
      "inside the adders at the places Cuts names, the rest after them.");
  m.param("LeftTerms", 1, "Activations under the left child, at least 1.");
  m.param("RightTerms", 1, "Activations under the right child, at least 1.");
  staged_adder_params(m, "the node's latency");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "valid_i", "The children's sums are valid this cycle."},
           {"input", 0, "left_i", "The left child's stored sum i at [i*HalfBits +: HalfBits].",
            "(1 << (LeftTerms-1))*HalfBits"},
           {"input", 0, "right_i", "The right child's stored sum i at [i*HalfBits +: HalfBits].",
            "(1 << (RightTerms-1))*HalfBits"},
           {"output", 0, "sums_o", "Sum e at [e*HalfBits +: HalfBits], Stages cycles later.",
            "(1 << (LeftTerms+RightTerms-1))*HalfBits"}});
  m.localparam("Sums", "1 << (LeftTerms + RightTerms - 1)", "Sums of the node.");
  m.localparam("LeftLow", "(1 << (LeftTerms - 1)) - 1",
               "Mask of a left pattern's digits below its last: the left child's stored index.");
  staged_adder_places(m);
  m << "\n  logic [Sums*HalfBits-1:0] sum_d;\n"
       "  logic [Sums-1:0]          sum_valid, lane_valid;\n"
       "  for (genvar e = 0; e < Sums; e++) begin : g_sum\n"
       "    /// The left pattern; with its last digit -1, the stored sum of its inversion.\n"
       "    localparam int Pattern = e % (1 << LeftTerms);\n"
       "    localparam int Positive = Pattern >> (LeftTerms - 1);\n"
       "    localparam int Stored = Positive == 1 ? Pattern & LeftLow : ~Pattern & LeftLow;\n"
       "    logic [HalfBits-1:0] left;\n"
       "    assign left = left_i[Stored*HalfBits +: HalfBits]\n"
       "                  ^ {Positive == 0, {(HalfBits-1){1'b0}}};\n";
  m.inst("oasis_fp_add_staged", "u_add",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"valid_i", "valid_i"},
          {"a_i", "left"},
          {"b_i", "right_i[(e >> LeftTerms)*HalfBits +: HalfBits]"},
          {"sub_i", "1'b0"},
          {"valid_o", "sum_valid[e]"},
          {"sum_o", "sum_d[e*HalfBits +: HalfBits]"}},
         "    ", {{"ExpBits", "5"}, {"FracBits", "10"}, {"Cuts", "Places'(Cuts)"}}, "Sums");
  m.op("fp_add", "HalfBits", "sum_d", "Sums");
  m << pipe("u_pipe", "HalfBits", "After", "sum_valid[e]", "sum_d[e*HalfBits +: HalfBits]",
            "lane_valid[e]", "sums_o[e*HalfBits +: HalfBits]", "    ");
  m << "  end\n"
       "  logic unused_lane_valid;\n"
       "  assign unused_lane_valid = ^lane_valid;\n";
  return m.file();
}

// The generator's tree over mu activations: the pairwise tree of docs/numerics.md, each level's
// nodes (their terms) from the leaves up; an odd last node passes up.
std::vector<std::vector<int>> generator_levels(int group_size) {
  std::vector<std::vector<int>> levels{std::vector<int>(size_t(group_size), 1)};
  while (levels.back().size() > 1) {
    const std::vector<int>& below = levels.back();
    std::vector<int> up;
    for (size_t i = 0; i + 1 < below.size(); i += 2) up.push_back(below[i] + below[i + 1]);
    if (below.size() % 2 == 1) up.push_back(below.back());
    levels.push_back(std::move(up));
  }
  return levels;
}

class WoqLutLineBaselineBlock final : public Block {
 public:
  string name() const override { return block_name(); }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const Derived d = derive(c);
    const WoqLutTiming& t = d.woq_lut_line_baseline;
    const FpFormat& f = d.accumulator;
    const int S = d.fp_stages;
    const string node = module_name(c, name()) + "_node";
    SvModule m(
        module_name(c, name()),
        fmt::format(
            "FIGLUT-class LUT line, the weight-only LUT-GEMM baseline of the PE line (paper II-B, "
            "Table I; docs/woq_lut_line.md): binary16 activations, uniform {0}-bit weights one "
            "bit-plane a beat. For each group of mu = {1} activations a half-size LUT of its "
            "{2} signed sums, generated ahead by binary16 adders ({3} a LUT) in window order; "
            "{4} read-accumulate unit(s), {5} row(s) a batch sharing each of {6} LUT(s); a read "
            "takes the entry of the pattern (inverted when its top digit is -1), scaled by the "
            "plane's power of two (the LUT doubled after each beat), negated when the top digit "
            "is -1, and accumulates it in {7} ({8} partial sum(s)). A batch is {9} beats; its "
            "rows' partial sums go to a bank and leave one a cycle through the row's tree, the "
            "scaling by s_w and the rounding to binary16. No backpressure on y.",
            t.planes, t.group_size, t.lut_entries, t.lut_adders, t.units, t.rows, t.luts, f.name(),
            t.partials, t.batch_beats));
    m.header_localparam("Channels", c.channels, "Channels K of a token and of a weight row.");
    m.header_localparam("GroupSize", t.group_size, "Activations a group, mu.");
    m.header_localparam("Units", t.units, "Read-accumulate units, U.");
    m.header_localparam("HalfBits", kBinary16Format.width(),
                        "Bits of a binary16 value: activations, LUT entries, scales, outputs.");
    m.ports({{"input", 0, "clk_i", "Clock."},
             {"input", 0, "rst_ni", "Asynchronous reset, active low."},
             {"input", 0, "act_i",
              "The token's activations x[k], binary16, at [k*HalfBits +: HalfBits]; held from "
              "act_load_i to the next load.",
              "Channels*HalfBits"},
             {"input", 0, "act_load_i",
              "A new token on act_i: the LUTs made so far are dropped and made again from it (only "
              "between batches, never with w_valid_i)."},
             {"input", 0, "w_valid_i", "A beat is offered."},
             {"output", 0, "w_ready_o", "The beat is taken (the LUT of its window is there)."},
             {"input", 0, "w_data_i",
              "The beat: unit u's pattern at [u*GroupSize +: GroupSize], bit j the digit (1: +1, "
              "0: -1) of the beat's bit-plane of row u / Luts's weight at channel "
              "(window*Luts + u mod Luts)*GroupSize + j (digits past K are ignored).",
              "Units*GroupSize"},
             {"input", 0, "w_scale_i",
              "With beat Beats - Rows + j of a batch, s_w of its row j, binary16.", "HalfBits"},
             {"output", 0, "y_valid_o", "y is valid this cycle (a batch's rows, one a cycle)."},
             {"output", 0, "y_data_o", "y of the row, binary16.", "HalfBits"}});
    m.localparam("Luts", t.luts, "LUTs, Lc: the groups of a window.");
    m.localparam("Rows", t.rows, "Rows of a batch, R = Units / Luts.");
    m.localparam("Planes", t.planes, "Bit-planes of a weight, q.");
    m.localparam("Entries", t.lut_entries, "Entries of a LUT, 2^(mu-1).");
    m.localparam("SelBits", t.group_size - 1, "Bits of an entry's index.");
    m.localparam("Windows", t.windows, "Windows of a batch: groups of Luts groups.");
    m.localparam("Beats", t.batch_beats, "Beats of a batch: Windows * Planes.");
    m.localparam("AccBits", f.width(), fmt::format("Bits of a value in A ({}).", f.name()));
    m.localparam("GroupBits", "GroupSize*HalfBits", "Bits of a group's activations.");
    m.localparam("LutBits", "Entries*HalfBits", "Bits of a LUT as generated.");
    m.localparam("CurBits", "Entries*AccBits", "Bits of a LUT scaled for a plane, in A.");
    m.localparam("Slots", t.lut_slots, "LUTs generated ahead: in flight or queued.");
    m.localparam("CreditBits", t.credit_bits, "Bits of a count of them.");
    m.localparam("BeatBits", t.beat_bits, "Bits of a beat of a batch.");
    m.localparam("PlaneBits", t.plane_bits, "Bits of a plane.");
    m.localparam("WindowBits", t.window_bits, "Bits of a window.");
    m.localparam("RowBits", t.row_bits, "Bits of a row of a batch.");
    m.localparam("Partials", t.partials, "Partial sums of a unit: min(L, Beats).");
    m.localparam("PadBits", "Windows*Luts*GroupBits", "The activations, padded to whole windows.");

    beat(m);
    lut_generation(m, c, t, node);
    current_lut(m, c, t, f);
    units(m, c, t, f);
    rows(m, c, t, f, S);

    out.files = {node_module(c), mux_tree_module(c), tree_level_module(c), m.file()};
    drop_unused_tree_level(out, c);
    manifest(out, t, f);
    return out;
  }

 private:
  // The beat's place in its batch: its plane, window and beat.
  static void beat(SvModule& m);
  // The LUTs, generated ahead in window order by the generator's levels of `node` modules.
  static void lut_generation(SvModule& m, const Config& c, const WoqLutTiming& t,
                             const string& node);
  // The queue of LUTs generated ahead and the current LUT, scaled for the next beat's plane.
  static void current_lut(SvModule& m, const Config& c, const WoqLutTiming& t, const FpFormat& f);
  // The read-accumulate units and the control their accumulators share.
  static void units(SvModule& m, const Config& c, const WoqLutTiming& t, const FpFormat& f);
  // The bank of a batch's partial sums, the rows' trees, the scaling by s_w and the output.
  static void rows(SvModule& m, const Config& c, const WoqLutTiming& t, const FpFormat& f, int S);
  static void manifest(BlockOutput& out, const WoqLutTiming& t, const FpFormat& f);
};

void WoqLutLineBaselineBlock::beat(SvModule& m) {
  m.comment("The beat's place in its batch: its plane, window and beat.", "  ");
  m << "  logic cur_valid_q, take, last_plane, last_window, last_beat;\n"
       "  logic [BeatBits-1:0] beat_q;\n  logic [PlaneBits-1:0] plane_q;\n"
       "  logic [WindowBits-1:0] win_q;\n"
       "  assign w_ready_o   = cur_valid_q;\n"
       "  assign take        = w_valid_i && cur_valid_q;\n"
       "  assign last_plane  = plane_q == PlaneBits'(Planes - 1);\n"
       "  assign last_window = win_q == WindowBits'(Windows - 1);\n"
       "  assign last_beat   = beat_q == BeatBits'(Beats - 1);\n";
  m << registers({{"beat_q", "last_beat ? '0 : beat_q + BeatBits'(1)"},
                  {"plane_q", "last_plane ? '0 : plane_q + PlaneBits'(1)"},
                  {"win_q", "!last_plane ? win_q : last_window ? '0 : win_q + WindowBits'(1)"}},
                 "  ", "take");
  m.op("add", "BeatBits", "beat_q");
  m.op("add", "PlaneBits", "plane_q");
  m.op("add", "WindowBits", "win_q");
}

void WoqLutLineBaselineBlock::lut_generation(SvModule& m, const Config& c, const WoqLutTiming& t,
                                             const string& node) {
  m.comment(
      "The LUTs, generated ahead in window order (docs/woq_lut_line.md, Timing): a window is "
      "issued while credits remain (a LUT in flight or queued takes one); its LUT goes to the "
      "current LUT when that needs one and no LUT is queued, else to the queue; one leaving "
      "the queue, or going past it, gives its credit back. act_load_i restarts at window 0 "
      "and drops what is in flight by the epoch it was issued in.");
  m << "  logic [CreditBits-1:0] credits_q, queued_q;\n  logic [WindowBits-1:0] issue_q;\n"
       "  logic epoch_q, issue, need, arrive, from_queue, bypass, load_cur, push;\n"
       "  logic gen_valid, gen_epoch;\n  logic [Luts*LutBits-1:0] gen_lut;\n"
       "  assign issue      = credits_q != '0 && !act_load_i;\n"
       "  assign need       = !cur_valid_q || (take && last_plane);\n"
       "  assign arrive     = gen_valid && gen_epoch == epoch_q && !act_load_i;\n"
       "  assign from_queue = need && queued_q != '0;\n"
       "  assign bypass     = need && queued_q == '0 && arrive;\n"
       "  assign load_cur   = from_queue || bypass;\n"
       "  assign push       = arrive && !bypass;\n"
       "  logic [CreditBits-1:0] credits_next, queued_next;\n"
       "  logic [WindowBits-1:0] issue_next;\n"
       "  assign credits_next = credits_q - CreditBits'(issue) + CreditBits'(load_cur);\n"
       "  assign queued_next  = queued_q + CreditBits'(push) - CreditBits'(from_queue);\n"
       "  assign issue_next   = issue_q == WindowBits'(Windows - 1) ? '0 : issue_q + 1'b1;\n";
  m << registers({{"credits_q", "act_load_i ? CreditBits'(Slots) : credits_next"},
                  {"queued_q", "act_load_i ? '0 : queued_next"},
                  {"issue_q", "act_load_i ? '0 : issue ? issue_next : issue_q"},
                  {"epoch_q", "epoch_q ^ act_load_i"},
                  {"cur_valid_q", "!act_load_i && (need ? load_cur : cur_valid_q)"}});
  m.op("add", "CreditBits", "credits_next", "2");
  m.op("add", "CreditBits", "queued_next", "2");
  m.op("add", "WindowBits", "issue_next");

  // The issued window's groups, one a LUT: a multiplexer over the windows.
  m << "  logic [PadBits-1:0] act_pad;\n";
  m << (int64_t(t.windows) * t.luts * t.group_size > c.channels
            ? "  assign act_pad = PadBits'(act_i);\n"
            : "  assign act_pad = act_i;\n");
  m << "  logic [Luts*GroupBits-1:0] grp_d;\n";
  m << "  for (genvar l = 0; l < Luts; l++) begin : g_group\n";
  if (t.luts == 1) {
    mux_tree(m, c, "u_group_mux", t.windows, t.group_size * 16, t.window_bits, "act_pad", "issue_q",
             "grp_d[l*GroupBits +: GroupBits]", "    ", "Luts");
  } else {
    m << "    // The lane's groups, window by window.\n"
         "    logic [Windows*GroupBits-1:0] lane_acts;\n"
         "    for (genvar w = 0; w < Windows; w++) begin : g_window\n"
         "      assign lane_acts[w*GroupBits +: GroupBits] =\n"
         "          act_pad[(w*Luts + l)*GroupBits +: GroupBits];\n"
         "    end\n";
    mux_tree(m, c, "u_group_mux", t.windows, t.group_size * 16, t.window_bits, "lane_acts",
             "issue_q", "grp_d[l*GroupBits +: GroupBits]", "    ", "Luts");
  }
  m << "  end\n";
  m.comment("The group register, then the generator's levels; the epoch rides beside them.");
  m.pipe_stage("grp", 1, "issue",
               {{"epoch", 0, "epoch_q"},
                {"act", int64_t(t.luts) * t.group_size * 16, "grp_d", "Luts*GroupBits"}});
  const std::vector<std::vector<int>> levels = generator_levels(t.group_size);
  const int gs = t.generator_stages;
  const string cuts = std::to_string(chain_cuts(kBinary16Format, FpOp::kAdd, gs).mask);
  string valid = "grp_valid", epoch = "grp_epoch";
  for (size_t lv = 1; lv < levels.size(); ++lv) {
    const string st = fmt::format("gen{}", lv);
    m.pipe_stage(st, gs, valid, {{"epoch", 0, epoch}});
    valid = st + "_valid";
    epoch = st + "_epoch";
  }
  // The node values of lane l: level 0 the group's activations, each level's node i a signal
  // n<level>_<i> of its stored sums.
  const auto node_signal = [&](size_t lv, size_t i) {
    if (lv == 0) return fmt::format("grp_act[(l*GroupSize + {})*HalfBits +: HalfBits]", i);
    return fmt::format("n{}_{}", lv, i);
  };
  m << "  for (genvar l = 0; l < Luts; l++) begin : g_lut\n";
  string level_valid = "grp_valid";
  for (size_t lv = 1; lv < levels.size(); ++lv) {
    const std::vector<int>& below = levels[lv - 1];
    for (size_t i = 0; i < levels[lv].size(); ++i) {
      const int terms = levels[lv][i];
      m << fmt::format("    logic {} {};\n", range(fmt::format("{}*HalfBits", 1 << (terms - 1))),
                       node_signal(lv, i));
      if (2 * i + 1 < below.size()) {
        m.inst(node, fmt::format("u_n{}_{}", lv, i),
               {{"clk_i", "clk_i"},
                {"rst_ni", "rst_ni"},
                {"valid_i", level_valid},
                {"left_i", node_signal(lv - 1, 2 * i)},
                {"right_i", node_signal(lv - 1, 2 * i + 1)},
                {"sums_o", node_signal(lv, i)}},
               "    ",
               {{"LeftTerms", std::to_string(below[2 * i])},
                {"RightTerms", std::to_string(below[2 * i + 1])},
                {"Stages", std::to_string(gs)},
                {"Cuts", cuts}},
               "Luts");
      } else {
        m << "    // The odd last node passes up.\n"
          << fmt::format("    logic unused_pass{}_valid;\n", lv)
          << pipe(fmt::format("u_pass{}", lv), fmt::format("{}*HalfBits", 1 << (terms - 1)),
                  std::to_string(gs), level_valid, node_signal(lv - 1, 2 * i),
                  fmt::format("unused_pass{}_valid", lv), node_signal(lv, i), "    ");
      }
    }
    level_valid = fmt::format("gen{}_valid", lv);
  }
  m << fmt::format("    assign gen_lut[l*LutBits +: LutBits] = {};\n",
                   node_signal(levels.size() - 1, 0))
    << "  end\n";
  m << fmt::format("  assign gen_valid = {};\n  assign gen_epoch = {};\n", valid, epoch);
}

void WoqLutLineBaselineBlock::current_lut(SvModule& m, const Config& c, const WoqLutTiming& t,
                                          const FpFormat& f) {
  (void)c;
  m.comment(
      "The queue of LUTs generated ahead, slot 0 the oldest: one leaving it moves the others "
      "down, one arriving is written behind the last.");
  m.localparam("SlotBits", "Luts*LutBits", "Bits of a window's LUTs as generated.");
  m << "  logic [Slots*SlotBits-1:0] slots_q;\n  logic [CreditBits-1:0] push_slot;\n"
       "  assign push_slot = queued_q - CreditBits'(from_queue);\n"
       "  always_ff @(posedge clk_i) begin\n";
  if (t.lut_slots > 1) {
    m << "    if (from_queue) begin\n"
         "      for (int i = 0; i + 1 < Slots; i++) begin\n"
         "        slots_q[i*SlotBits +: SlotBits] <= slots_q[(i+1)*SlotBits +: SlotBits];\n"
         "      end\n"
         "    end\n";
  }
  m << "    for (int i = 0; i < Slots; i++) begin\n"
       "      if (push && push_slot == CreditBits'(i)) begin\n"
       "        slots_q[i*SlotBits +: SlotBits] <= gen_lut;\n"
       "      end\n"
       "    end\n"
       "  end\n";
  m.op("sub", "CreditBits", "push_slot");
  m.comment(
      "The current LUT in A, scaled for the plane of the next beat: a window's LUT widened when "
      "it is loaded (plane 0), then doubled after each beat (2^i exactly; docs/numerics.md).");
  m << "  logic [SlotBits-1:0] cur_src;\n"
       "  logic [Luts*CurBits-1:0] cur_q, cur_load, cur_double;\n"
       "  assign cur_src = from_queue ? slots_q[SlotBits-1:0] : gen_lut;\n"
       "  for (genvar e = 0; e < Luts*Entries; e++) begin : g_entry\n";
  if (f.width() != 16) {
    fp_convert(m, kBinary16Format, f, "u_widen", "cur_src[e*HalfBits +: HalfBits]",
               "cur_load[e*AccBits +: AccBits]", "    ", "Luts*Entries");
  } else {
    m << "    assign cur_load[e*AccBits +: AccBits] = cur_src[e*HalfBits +: HalfBits];\n";
  }
  m.inst("oasis_fp_double", "u_double",
         {{"a_i", "cur_q[e*AccBits +: AccBits]"}, {"result_o", "cur_double[e*AccBits +: AccBits]"}},
         "    ",
         {{"ExpBits", std::to_string(f.exp_bits)}, {"FracBits", std::to_string(f.frac_bits)}},
         "Luts*Entries");
  m.op("add", f.exp_bits, "cur_double", int64_t(t.luts) * t.lut_entries);
  m << "  end\n";
  const string doubles = mutated("woq_lut_line_baseline.plane_weight_wrong")
                             ? "(take && plane_q != PlaneBits'(1))"
                             : "take";
  m << "  logic cur_en;\n" << fmt::format("  assign cur_en = load_cur || {};\n", doubles);
  m << data_registers({{"cur_q", "load_cur ? cur_load : cur_double"}}, "  ", "cur_en");
}

void WoqLutLineBaselineBlock::units(SvModule& m, const Config& c, const WoqLutTiming& t,
                                    const FpFormat& f) {
  const int P = t.partials;
  m.comment(
      "The accumulators' control, one for every unit: beat i of a batch adds to partial sum i "
      "mod Partials, the first Partials of a batch to -0 (x + -0 is x, a NaN made the "
      "canonical one); it rides beside the read register and the adders' inside registers.");
  m << "  logic acc_load;\n";
  if (P >= t.batch_beats) {
    m << "  assign acc_load = 1'b1;\n";
  } else {
    m << "  assign acc_load = beat_q < BeatBits'(Partials);\n";
    m.op("lt", "BeatBits", "acc_load");
  }
  std::vector<Field> fields = {{"load", 0, "acc_load"}, {"last", 0, "last_beat"}};
  if (P > 1) {
    m.localparam("PartBits", "$clog2(Partials)", "Bits of a partial sum's index.");
    m << "  logic [PartBits-1:0] part_q;\n";
    m << registers({{"part_q",
                     "last_beat || part_q == PartBits'(Partials - 1) ? '0\n"
                     "                               : part_q + PartBits'(1)"}},
                   "  ", "take");
    m.op("add", "PartBits", "part_q");
    fields.push_back({"part", clog2(P), "part_q", "PartBits"});
  }
  m.pipe_stage("rd", t.read_stage ? 1 : 0, "take", fields);
  const FpCuts cuts = chain_cuts(f, FpOp::kAdd, t.accumulate_stages);
  std::vector<Field> beside = {{"last", 0, "rd_last"}};
  if (P > 1) beside.push_back({"part", clog2(P), "rd_part", "PartBits"});
  m.pipe_stage("wr", std::popcount(cuts.mask), "rd_valid", beside);
  m << "  logic unused_rd_valid;\n  assign unused_rd_valid = rd_valid;\n";

  // The last window's channels past K read +1 digits (their activations are zero).
  std::vector<bool> pad;
  for (int l = 0; l < t.luts; ++l) {
    for (int j = 0; j < t.group_size; ++j) pad.push_back(j >= t.last_window_channels[size_t(l)]);
  }
  const bool padded = std::find(pad.begin(), pad.end(), true) != pad.end();
  if (padded) {
    m << fmt::format(
        "  /// The last window's digits past K, lane l's at [l*GroupSize +: GroupSize].\n"
        "  localparam logic [Luts*GroupSize-1:0] PadDigits = {};\n",
        mask_literal(pad));
  }
  m.comment(
      "The read-accumulate units: unit u reads LUT u mod Luts for row u / Luts. The pattern's "
      "low digits select the entry, inverted when its top digit is -1, which negates the read.");
  m << fmt::format(
      "  logic [Units*Partials*AccBits-1:0] partials;\n"
      "  logic [Units-1:0] unit_add_valid;\n");
  m << loop_open("u", t.units, "g_unit", "Units");
  m << "    localparam int Lane = u % Luts;\n"
       "    logic [GroupSize-1:0] digits;\n"
       "    logic [SelBits-1:0] sel;\n"
       "    logic [AccBits-1:0] entry, value, old, sum;\n";
  m << (padded ? "    assign digits = w_data_i[u*GroupSize +: GroupSize]\n"
                 "                    | ({GroupSize{last_window}} & "
                 "PadDigits[Lane*GroupSize +: GroupSize]);\n"
               : "    assign digits = w_data_i[u*GroupSize +: GroupSize];\n");
  m << "    assign sel = digits[GroupSize-1] ? digits[SelBits-1:0] : ~digits[SelBits-1:0];\n";
  mux_tree(m, c, "u_read", t.lut_entries, f.width(), t.group_size - 1,
           "cur_q[Lane*CurBits +: CurBits]", "sel", "entry", "    ", "Units");
  const string negate = mutated("woq_lut_line_baseline.negation_sign_wrong")
                            ? "digits[GroupSize-1]"
                            : "!digits[GroupSize-1]";
  m << fmt::format("    assign value = {{entry[AccBits-1] ^ {}, entry[AccBits-2:0]}};\n", negate);
  string operand = "value";
  if (t.read_stage) {
    m << "    logic [AccBits-1:0] value_q;\n"
      << data_registers({{"value_q", "value"}}, "    ", "take");
    operand = "value_q";
  }
  m << (P > 1 ? "    assign old = rd_load ? {1'b1, {(AccBits-1){1'b0}}}\n"
                "                         : partials[(u*Partials + 32'(rd_part))*AccBits +: "
                "AccBits];\n"
              : "    assign old = rd_load ? {1'b1, {(AccBits-1){1'b0}}} : "
                "partials[u*AccBits +: AccBits];\n");
  chain_unit(m, f, FpOp::kAdd, "u_add", "old", operand, "sum", t.accumulate_stages, "rd_valid",
             "unit_add_valid[u]", "    ", "Units");
  if (cuts.mask == 0) m << "    assign unit_add_valid[u] = 1'b0;\n";
  m << "    // Partial sum s: written when its value leaves the adder.\n"
       "    for (genvar s = 0; s < Partials; s++) begin : g_part\n"
       "      logic [AccBits-1:0] q;\n"
       "      always_ff @(posedge clk_i) begin\n"
    << (P > 1 ? "        if (wr_valid && wr_part == PartBits'(s)) q <= sum;\n"
              : "        if (wr_valid) q <= sum;\n")
    << "      end\n"
       "      assign partials[(u*Partials + s)*AccBits +: AccBits] = q;\n"
       "    end\n";
  m << loop_close(t.units);
  m << "  logic unused_unit_add_valid;\n  assign unused_unit_add_valid = ^unit_add_valid;\n";
}

void WoqLutLineBaselineBlock::rows(SvModule& m, const Config& c, const WoqLutTiming& t,
                                   const FpFormat& f, int S) {
  m.comment(
      "The batch's last write: its partial sums go to the bank, and its rows leave one a cycle: "
      "the row's partial sums registered, reduced by the pairwise tree (each unit's, then the "
      "units'), multiplied by its s_w and rounded to binary16.");
  m << "  logic done_q, ser_active_q;\n  logic [RowBits-1:0] ser_row_q;\n"
       "  logic [Units*Partials*AccBits-1:0] bank_q;\n";
  m << registers({{"done_q", "wr_valid && wr_last"},
                  {"ser_active_q", "done_q || (ser_active_q && ser_row_q != RowBits'(Rows - 1))"},
                  {"ser_row_q", "done_q ? '0 : ser_row_q + RowBits'(ser_active_q)"}});
  m.op("add", "RowBits", "ser_row_q");
  m << data_registers({{"bank_q", "partials"}}, "  ", "done_q");
  m.localparam("RowValBits", "Luts*Partials*AccBits", "Bits of a row's partial sums.");
  m << "  logic [RowValBits-1:0] row_d;\n";
  mux_tree(m, c, "u_row_mux", t.rows, t.luts * t.partials * f.width(), t.row_bits, "bank_q",
           "ser_row_q", "row_d");
  m.pipe_stage("row_sums", 1, "ser_active_q",
               {{"vals", int64_t(t.luts) * t.partials * f.width(), "row_d", "RowValBits"}});
  m.localparam("TreePartials", t.tree_partials, "Partials rounded up to a power of two.");
  m.localparam("RowTreeInputs", "Luts*TreePartials", "Values of a row's tree.");
  m << "  logic [RowTreeInputs*AccBits-1:0] row_tree;\n  logic [RowTreeInputs-1:0] row_present;\n";
  if (t.tree_partials == t.partials) {
    m << "  assign row_tree = row_sums_vals;\n  assign row_present = '1;\n";
  } else {
    m << "  // Each unit's partial sums padded to a power of two, so that they meet first.\n"
         "  for (genvar i = 0; i < RowTreeInputs; i++) begin : g_row_tree\n"
         "    if (i % TreePartials < Partials) begin : g_used\n"
         "      assign row_tree[i*AccBits +: AccBits] =\n"
         "          row_sums_vals[(i / TreePartials * Partials + i % TreePartials)*AccBits +: "
         "AccBits];\n"
         "      assign row_present[i] = 1'b1;\n"
         "    end else begin : g_pad\n"
         "      assign row_tree[i*AccBits +: AccBits] = '0;\n"
         "      assign row_present[i] = 1'b0;\n"
         "    end\n"
         "  end\n";
  }
  const TreeRoot root = tree(m, c, f, S, "rt", t.row_tree_inputs, "row_tree", "row_present",
                             "row_sums_valid", "RowTreeInputs");
  m << fmt::format("  logic unused_root_present;\n  assign unused_root_present = ^{};\n",
                   root.present);
  m.comment(
      "Row j's s_w comes with beat Beats - Rows + j and waits in a FIFO for its row's "
      "scaling.");
  m << "  logic [HalfBits-1:0] sw_head;\n  logic sw_push, sw_pop, sw_empty, sw_full;\n";
  m << (t.rows == t.batch_beats
            ? "  assign sw_push = take;\n"
            : "  assign sw_push = take && beat_q >= BeatBits'(Beats - Rows);\n");
  if (t.rows != t.batch_beats) m.op("lt", "BeatBits", "sw_push");
  m << fmt::format("  assign sw_pop = {};\n", root.valid);
  m << fifo("u_sw_fifo", 16, t.scale_fifo_depth, "sw_push", "w_scale_i", "sw_pop", "sw_head",
            "sw_empty", "sw_full");
  m << "  logic unused_sw_fifo;\n  assign unused_sw_fifo = ^{sw_empty, sw_full};\n";
  scale_to_output(m, f, S, root.value, root.valid, "mg");
}

void WoqLutLineBaselineBlock::manifest(BlockOutput& out, const WoqLutTiming& t, const FpFormat& f) {
  nlohmann::ordered_json& j = out.manifest;
  j["group_size"] = t.group_size;
  j["planes"] = t.planes;
  j["lut_entries"] = t.lut_entries;
  j["lut_adders"] = t.lut_adders;
  j["units"] = t.units;
  j["rows_per_lut"] = t.rows;
  j["luts"] = t.luts;
  j["windows_per_batch"] = t.windows;
  j["batch_beats"] = t.batch_beats;
  j["batch_interval_cycles"] = t.batch_beats;
  j["rows_per_batch"] = t.rows;
  j["products_per_cycle"] = t.products_per_cycle;
  j["pe_line_products_per_cycle"] = t.pe_products_per_cycle;
  j["generator_stages"] = t.generator_stages;
  j["generator_latency_cycles"] = t.generator_latency;
  j["lut_slots"] = t.lut_slots;
  j["load_cycles"] = t.load_cycles;
  j["read_stage"] = t.read_stage;
  j["accumulator_partials"] = t.partials;
  j["row_latency_cycles"] = t.row_latency;
  j["scale_fifo_depth"] = t.scale_fifo_depth;
  j["accumulator"] = f.name();
  j["memories"] = nlohmann::ordered_json::array(
      {{{"name", "row_bank"},
        {"what", fmt::format("the batch's {} x {} partial sums ({} bits each), held while its "
                             "rows leave one a cycle",
                             t.units, t.partials, f.width())},
        {"bits", int64_t(t.units) * t.partials * f.width()},
        {"registers", {"bank_q"}}},
       {{"name", "scale_fifo"},
        {"what", fmt::format("the rows' s_w, {} binary16 entries", t.scale_fifo_depth)},
        {"bits", int64_t(t.scale_fifo_depth) * 16},
        {"registers", {"u_sw_fifo.mem_q"}}}});
}

OASIS_REGISTER_BLOCK(WoqLutLineBaselineBlock);

}  // namespace
}  // namespace oasis::gen
