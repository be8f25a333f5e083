// SPDX-License-Identifier: Apache-2.0
// The PE line's Concat Units (docs/pe_line.md): each weight index paired with its activation
// index, a counting beat of them into the Index Counter array. The line: gen/pe_line.cpp.
#include <fmt/format.h>

#include <string>

#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::pe_line_parts {

namespace {

// The Concat Units' figures, both kinds; a beat number has `beat_bits` bits.
void concat_header(SvModule& m, const Dims& d, int beat_bits) {
  m.header_localparam("Channels", d.K, "Channels K.");
  m.header_localparam("ActBits", d.nA, "Bits of an activation index, nA.");
  m.header_localparam("WeightBits", d.nW, "Bits of a weight index, nW.");
  m.header_localparam("IdxBits", "ActBits + WeightBits", "Bits of a concatenated index.");
  m.header_localparam("Positions", d.G, "Indices a counting beat, G.");
  m.header_localparam("BeatBits", "Positions*IdxBits", "Bits of a beat's indices.");
  m.header_localparam("BeatNumBits", beat_bits, "Bits of a beat number.");
}

}  // namespace

namespace {

// Concat Units with streamed counting (the weight beat being written is the counting beat) or
// with the row in an SRAM (the counting beat is the word read): the beat's weight indices
// paired with its G activation indices of the token's.
SvFile streamed_concat_module(const string& name, const Dims& d) {
  const int beats = d.t.count_beats;
  const bool st = d.t.streamed_counting;
  const int beat_bits = st ? d.t.fill_bits : d.t.beat_bits;
  SvModule m(name, fmt::format("Concat Units of a PE line {}: e = {{ia[k], iw[k]}} ({} bits, "
                               "activation bits high) for the G = {} channels b*{} .. b*{} + {} "
                               "of {}. Combinational.",
                               st ? "with streamed counting" : "whose row is in an SRAM", d.B, d.G,
                               d.G, d.G, d.G - 1,
                               st ? "the weight beat b being written"
                                  : "counting beat b, read from the Weight Index Buffer"));
  concat_header(m, d, beat_bits);
  m.ports({{"input", 0, "act_idx_i", "The token's activation indices ia[k].", "Channels*ActBits"},
           {"input", 0, "beat_w_i",
            "The weight beat's indices: iw[b*Positions + p] at [p*WeightBits +: WeightBits].",
            "Positions*WeightBits"},
           {"input", 0, "beat_i", "The beat's number b.", "BeatNumBits"},
           {"output", 0, "idx_o", "The beat's indices: position p at [p*IdxBits +: IdxBits].",
            "BeatBits"}});
  const bool partial = beats * d.G > d.K;
  // A beat past the row's last (the counter never holds one) presents 0 in both forms.
  const bool past = (int64_t(1) << d.t.fill_bits) > beats;
  // The behavioural form names the row's beats only to pad or to guard.
  const string beats_decl =
      fmt::format("  /// Beats of a row.\n  localparam int Beats = {};\n", beats);
  m << "\n" << (partial || past ? beats_decl : "");
  m << "  // The beat's activation indices.\n  logic [Positions*ActBits-1:0] beat_act;\n";
  string act = "act_idx_i";
  if (partial) {
    // Past K the last beat reads padding, so that no part-select leaves its vector.
    m << "  // The activation indices padded to whole beats.\n"
         "  logic [Beats*Positions*ActBits-1:0] act_pad;\n"
         "  assign act_pad = {{(Beats*Positions - Channels)*ActBits{1'b0}}, act_idx_i};\n";
    act = "act_pad";
  }
  const string behavioural = fmt::format(
      "  assign beat_act = {}{}[int'(beat_i)*Positions*ActBits +: Positions*ActBits];\n",
      past ? "int'(beat_i) >= Beats ? '0\n      : " : "", act);
  const string structural = fmt::format(
      "{}  always_comb begin\n    beat_act = '0;\n"
      "    for (int b = 0; b < Beats; b++) begin\n"
      "      if (beat_i == BeatNumBits'(b)) beat_act = {}[b*Positions*ActBits +: "
      "Positions*ActBits];\n"
      "    end\n  end\n",
      partial || past ? "" : beats_decl, act);
  m << behavioural_or(behavioural, structural);
  m << loop_open("p", d.G, "g_position", "Positions");
  m << "    assign idx_o[p*IdxBits +: IdxBits] =\n"
       "        {beat_act[p*ActBits +: ActBits], beat_w_i[p*WeightBits +: WeightBits]};\n";
  m << loop_close(d.G);
  m.op("eq", beat_bits, "beat_act", beats);
  m.op("mux", int64_t(d.G) * d.nA, "beat_act", beats);
  return m.file();
}

}  // namespace

// Concat Units: e = {ia[k], iw[n][k]} for every channel; the counting beat
// picks G of them.
SvFile concat_module(const string& name, const Dims& d) {
  if (d.t.streamed_counting || d.t.wib_sram) return streamed_concat_module(name, d);
  const int beats = d.t.count_beats;
  SvModule m(name, fmt::format("Concat Units of a PE line: e = {{ia[k], iw[k]}} ({} bits, "
                               "activation bits high) for each of the K = {} channels; counting "
                               "beat b presents channels b*{} .. b*{} + {}. Combinational.",
                               d.B, d.K, d.G, d.G, d.G - 1));
  concat_header(m, d, d.t.beat_bits);
  m.ports({{"input", 0, "act_idx_i", "The token's activation indices ia[k].", "Channels*ActBits"},
           {"input", 0, "row_i", "The row's weight indices iw[k].", "Channels*WeightBits"},
           {"input", 0, "beat_i", "The counting beat.", "BeatNumBits"},
           {"output", 0, "idx_o", "The beat's indices: position p at [p*IdxBits +: IdxBits].",
            "BeatBits"}});
  // The structural form: every channel's index, then the beat's picked.
  std::string structural = fmt::format(
      "  /// Counting beats of a row.\n  localparam int Beats = {};\n"
      "  logic [Beats*BeatBits-1:0] concat;\n",
      beats);
  structural += loop_open("k", d.K, "g_concat", "Channels");
  structural +=
      "    assign concat[k*IdxBits +: IdxBits] =\n"
      "        {act_idx_i[k*ActBits +: ActBits], row_i[k*WeightBits +: WeightBits]};\n";
  structural += loop_close(d.K);
  if (beats * d.G > d.K) {
    structural +=
        "  // Positions past K in the last beat.\n"
        "  assign concat[Beats*BeatBits-1:Channels*IdxBits] = '0;\n";
  }
  structural +=
      "  always_comb begin\n    idx_o = '0;\n"
      "    for (int b = 0; b < Beats; b++) begin\n"
      "      if (beat_i == BeatNumBits'(b)) idx_o = concat[b*BeatBits +: BeatBits];\n"
      "    end\n  end\n";
  // Behaviourally, only the beat's positions are formed: the beat's activation and weight
  // indices are two part-selects at the beat's offset, and each position pairs them at
  // constant offsets. (Verilator rebuilds all of idx_o for each position of a loop, joins the
  // structural form's K assignments into one concatenation unless its data-flow optimizer is
  // off, sim/vltest, and without it computes a variable offset again in every expression that
  // reads it.)
  const bool partial = beats * d.G > d.K;
  // A beat past the row's last (the counter never holds one) presents 0, as structurally.
  const bool past = (int64_t(1) << d.t.beat_bits) > beats;
  std::string behavioural = fmt::format(
      "{}"
      "  // The beat's indices, activation and weight.\n"
      "  logic [Positions*ActBits-1:0]    beat_act;\n"
      "  logic [Positions*WeightBits-1:0] beat_row;\n",
      partial || past
          ? fmt::format("  /// Counting beats of a row.\n  localparam int Beats = {};\n", beats)
          : "");
  if (partial) {
    // Past K the last beat reads padding, so that no part-select leaves its vector.
    behavioural +=
        "  // The indices padded to whole beats.\n"
        "  logic [Beats*Positions*ActBits-1:0]    act_pad;\n"
        "  logic [Beats*Positions*WeightBits-1:0] row_pad;\n"
        "  assign act_pad  = {{(Beats*Positions - Channels)*ActBits{1'b0}}, act_idx_i};\n"
        "  assign row_pad  = {{(Beats*Positions - Channels)*WeightBits{1'b0}}, row_i};\n";
  }
  const std::string act = partial ? "act_pad" : "act_idx_i", row = partial ? "row_pad" : "row_i";
  const std::string guard = past ? "int'(beat_i) >= Beats ? '0\n      : " : "";
  behavioural += fmt::format(
      "  assign beat_act = {0}{1}[int'(beat_i)*Positions*ActBits +: Positions*ActBits];\n"
      "  assign beat_row = {0}{2}[int'(beat_i)*Positions*WeightBits +: Positions*WeightBits];\n",
      guard, act, row);
  behavioural += loop_open("p", d.G, "g_position", "Positions");
  behavioural +=
      "    assign idx_o[p*IdxBits +: IdxBits] =\n"
      "        {beat_act[p*ActBits +: ActBits], beat_row[p*WeightBits +: WeightBits]};\n";
  behavioural += loop_close(d.G);
  m << "\n" << behavioural_or(behavioural, structural);
  m.op("eq", d.t.beat_bits, "idx_o", beats);
  m.op("mux", int64_t(d.G) * d.B, "idx_o", beats);
  return m.file();
}

}  // namespace oasis::gen::pe_line_parts
