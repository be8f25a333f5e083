// SPDX-License-Identifier: Apache-2.0
// One PE line (paper IV-A, docs/spec.md section 6) as a generated block: Weight Index Buffer,
// Concat Units feeding the index_counter_array block, the MAC tree and
// its accumulator, the compensation MACs behind the Dequantization Unit, the
// merge and scaling, and an output FIFO with credits. Design and timing:
// docs/pe_line.md; cycle model: model/cycle/pe_line.hpp; reduction orders:
// docs/numerics.md. Every width and count comes from derive(c).
#include <fmt/format.h>

#include <array>
#include <map>
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

OASIS_REGISTER_MUTATION("pe_line.wib_sram_read_late",
                        "the Weight Index Buffer's SRAM is addressed with the cycle's counting "
                        "beat and bank rather than the next cycle's: each beat is read a cycle "
                        "late");

// The figures every part of the line is sized by, named as in docs/pe_line.md,
// all read from derive(c).
struct Dims {
  explicit Dims(const Config& c) : d(derive(c)), t(d.pe_line) {
    K = c.channels;
    nA = c.act_bits;
    nW = c.weight_bits;
    B = d.concat_index_bits;
    E = d.lut_entries;
    G = d.indices_per_cycle;
    T = c.mac_tree_inputs;
    Mc = c.comp_macs;
    Wb = c.weight_beat_indices;
    S = c.fp_pipeline_stages;
  }
  Derived d;
  LineTiming t;
  int K, nA, nW, B, E, G, T, Mc, Wb, S;
  int Tp() const { return t.tree_inputs; }
  int Ci() const { return t.comp_inputs; }
  int k2() const { return d.outliers; }
  int CW() const { return d.channel_bits; }
  int W() const { return d.count_bits; }
  int centroids() const { return d.weight_centroids; }
  const FpFormat& f() const { return d.accumulator; }
  int aw() const { return d.accumulator.width(); }
  int L() const { return d.accumulator_slots; }
};

const Port kClk{"input", 0, "clk_i", "Clock."};
const Port kRst{"input", 0, "rst_ni", "Asynchronous reset, active low."};

// The Weight Index Buffer's outlier capture (docs/pe_line.md, "Outlier capture"): outlier j's
// beat and its position in the beat from its channel, a multiplexer over the beat, and a
// capture register a bank written when the beat holding the channel is.
void outlier_capture(SvModule& m, const Config& c, const Dims& d) {
  const bool pow2 = (d.Wb & (d.Wb - 1)) == 0;
  const int off_bits = index_width(d.Wb);
  m << "\n";
  m.comment(
      "Outlier capture: as each beat is written, every outlier whose channel the beat holds "
      "takes its weight index into the bank's capture register.");
  m.localparam("OffBits", off_bits, "Bits of a position in a beat.");
  m << "  logic [Outliers*WeightBits-1:0] cap0_q, cap1_q;\n";
  if (!pow2) {
    m << "  /// The first channel of the beat being written.\n"
         "  logic [ChanBits-1:0] beat_base;\n"
         "  assign beat_base = ChanBits'(wr_beat_i) * ChanBits'(BeatIndices);\n";
    m.op("mul", d.CW(), "beat_base");
  }
  m << "  for (genvar j = 0; j < Outliers; j++) begin : g_capture\n"
       "    logic [ChanBits-1:0] chan;\n"
       "    logic hit;\n"
       "    logic [OffBits-1:0] off;\n"
       "    logic [WeightBits-1:0] iw;\n"
       "    assign chan = outlier_chan_i[j*ChanBits +: ChanBits];\n";
  if (pow2 && d.Wb == 1) {
    m << "    // One index a beat: the beat number is the channel.\n"
         "    assign hit = chan == ChanBits'(wr_beat_i);\n"
         "    assign off = '0;\n";
  } else if (pow2) {
    m << "    // The beat number is the channel's high bits, the position its low ones.\n"
         "    assign hit = (chan >> OffBits) == ChanBits'(wr_beat_i);\n"
         "    assign off = chan[OffBits-1:0];\n";
  } else {
    m << "    // The channel's distance from the beat's first, and whether the beat holds it.\n"
         "    logic [ChanBits:0] rel;\n"
         "    assign rel = {1'b0, chan} - {1'b0, beat_base};\n"
         "    assign hit = rel < (ChanBits+1)'(BeatIndices);\n"
         "    assign off = rel[OffBits-1:0];\n";
    m.op("sub", d.CW() + 1, "rel", d.k2());
    m.op("lt", d.CW() + 1, "hit", d.k2());
  }
  if (pow2) m.op("eq", d.CW(), "hit", d.k2());
  // The position holds for the token while the beat moves every cycle: a multiplexer whose
  // unselected entries are quiet (a tree of 2-to-1 multiplexers switches at every level).
  hold_mux(m, c, "u_iw_mux", d.Wb, d.nW, off_bits, "wr_data_i", "off", "iw", "    ", "Outliers");
  m << "    always_ff @(posedge clk_i) begin\n"
       "      if (wr_en_i && hit) begin\n"
       "        if (wr_bank_i) cap1_q[j*WeightBits +: WeightBits] <= iw;\n"
       "        else cap0_q[j*WeightBits +: WeightBits] <= iw;\n"
       "      end\n"
       "    end\n"
       "  end\n"
       "  assign rd_iw_o = rd_bank_i ? cap1_q : cap0_q;\n";
  m.op("mux", int64_t(d.k2()) * d.nW, "rd_iw_o");
}

// The Weight Index Buffer's ports, in order: the fill side's, the outlier channels when it
// captures, the read side's; with streamed counting neither s_w nor the row.
std::vector<Port> wib_ports(const Dims& d) {
  const bool st = d.t.streamed_counting, capture = d.t.outlier_capture;
  std::vector<Port> ports = {
      kClk,
      {"input", 0, "wr_en_i", "Write the beat on wr_data_i."},
      {"input", 0, "wr_bank_i", "The bank the fill side writes."},
      {"input", 0, "wr_beat_i", "Which beat of the row wr_data_i is.", "BeatNumBits"},
      {"input", 0, "wr_data_i",
       "The beat: index b*BeatIndices + i at [i*WeightBits +: WeightBits] (those past K "
       "ignored).",
       "BeatBits"}};
  if (!st) {
    ports.push_back(
        {"input", 0, "wr_scale_i", "The row's s_w, binary16, written with beat 0.", "HalfBits"});
  }
  if (capture) {
    ports.push_back({"input", 0, "outlier_chan_i",
                     "The outlier channels o_j, Orizuru's order, at [j*ChanBits +: ChanBits]; "
                     "held while a row fills.",
                     "Outliers*ChanBits"});
  }
  ports.push_back({"input", 0, "rd_bank_i", "The bank the read side reads."});
  if (d.t.wib_sram) {
    ports.push_back({"input", 0, "rd_en_i",
                     "Read rd_word_i at this edge: the next cycle counts a beat of a full bank."});
    ports.push_back({"input", 0, "rd_word_i",
                     "The next cycle's counting beat b and bank: the word {b, bank}.", "AddrBits"});
    ports.push_back({"output", 0, "rd_beat_o",
                     "The counting beat b read at the last edge with rd_en_i: iw[b*Positions + "
                     "p] at [p*WeightBits +: WeightBits].",
                     "Positions*WeightBits"});
    ports.push_back({"output", 0, "rd_scale_o", "The read bank's s_w.", "HalfBits"});
  } else if (!st) {
    ports.push_back({"output", 0, "rd_row_o",
                     "The read bank's row: iw[k] at [k*WeightBits +: WeightBits].",
                     "Channels*WeightBits"});
    ports.push_back({"output", 0, "rd_scale_o", "The read bank's s_w.", "HalfBits"});
  }
  if (capture) {
    ports.push_back({"output", 0, "rd_iw_o",
                     "The read bank's indices at the outliers: iw[o_j] at [j*WeightBits +: "
                     "WeightBits].",
                     "Outliers*WeightBits"});
  }
  return ports;
}

// The Weight Index Buffer's SRAM (docs/sram.md): a module of its own, the one a compiled
// macro replaces, around the rtl/oasis_sram.sv primitive.
SvFile wib_memory_module(const string& name, const Dims& d) {
  const LineTiming& t = d.t;
  SvModule m(name, fmt::format("The Weight Index Buffer's memory: {} words of {} bits, {} write "
                               "lanes of {} bits, one write and one read port, the read word "
                               "registered (docs/sram.md). A word is a counting beat of a bank "
                               "(address {{beat, bank}}), a lane a weight beat. Replace this "
                               "module by a compiled two-port macro with the same contract.",
                               t.wib_words, d.G * d.nW, t.wib_lanes, d.Wb * d.nW));
  m.header_localparam("Width", int64_t(d.G) * d.nW, "Bits of a word.");
  m.header_localparam("Words", t.wib_words, "Words.");
  m.header_localparam("Lanes", t.wib_lanes, "Write lanes a word.");
  m.header_localparam("AddrBits", t.wib_addr_bits, "Bits of an address: $clog2(Words).");
  m.ports({kClk,
           {"input", 0, "we_i", "Write at this edge."},
           {"input", 0, "waddr_i", "The word written.", "AddrBits"},
           {"input", 0, "wlane_i", "The lanes written: lane l at bit l.", "Lanes"},
           {"input", 0, "wdata_i", "The data: lane l at [l*Width/Lanes +: Width/Lanes].", "Width"},
           {"input", 0, "re_i", "Read at this edge."},
           {"input", 0, "raddr_i", "The word read.", "AddrBits"},
           {"output", 0, "rdata_o", "The word read at the last edge with re_i.", "Width"}});
  m.inst("oasis_sram", "u_sram",
         {{"clk_i", "clk_i"},
          {"we_i", "we_i"},
          {"waddr_i", "waddr_i"},
          {"wlane_i", "wlane_i"},
          {"wdata_i", "wdata_i"},
          {"re_i", "re_i"},
          {"raddr_i", "raddr_i"},
          {"rdata_o", "rdata_o"}},
         "  ", {{"Width", "Width"}, {"Words", "Words"}, {"Lanes", "Lanes"}});
  return m.file();
}

// The Weight Index Buffer's banks in its SRAM: weight beat w of a bank is lane w mod Lanes of
// word {w / Lanes, bank}, the read side reads one counting beat a cycle, addressed the cycle
// before; s_w stays in registers.
void wib_sram_body(SvModule& m, const Config& c, const string& name, const Dims& d) {
  m.localparam("Lanes", d.t.wib_lanes, "Weight beats a counting beat: a word's lanes.");
  m.localparam("LaneSelBits", "$clog2(Lanes)", "Bits of a lane number.");
  m << "\n  logic [HalfBits-1:0] scale0_q, scale1_q;\n"
       "  logic [AddrBits-1:0] waddr;\n  logic [Lanes-1:0] wlane;\n";
  m.comment("The weight beat's counting beat is its number's high bits, its lane the low ones.");
  m << "  assign waddr = {wr_beat_i[BeatNumBits-1:LaneSelBits], wr_bank_i};\n"
       "  always_comb begin\n    wlane = '0;\n    wlane[wr_beat_i[LaneSelBits-1:0]] = 1'b1;\n"
       "  end\n\n";
  m.inst(name + "_mem", "u_mem",
         {{"clk_i", "clk_i"},
          {"we_i", "wr_en_i"},
          {"waddr_i", "waddr"},
          {"wlane_i", "wlane"},
          {"wdata_i", "{Lanes{wr_data_i}}"},
          {"re_i", "rd_en_i"},
          {"raddr_i", "rd_word_i"},
          {"rdata_o", "rd_beat_o"}});
  m << "  always_ff @(posedge clk_i) begin\n"
       "    if (wr_en_i && wr_beat_i == '0 && !wr_bank_i) scale0_q <= wr_scale_i;\n"
       "    if (wr_en_i && wr_beat_i == '0 && wr_bank_i) scale1_q <= wr_scale_i;\n"
       "  end\n\n"
       "  assign rd_scale_o = rd_bank_i ? scale1_q : scale0_q;\n";
  outlier_capture(m, c, d);
}

// Weight Index Buffer: two banks of a row's K indices and its s_w, or with streamed counting
// (docs/pe_line.md, "Streamed counting") no row, only the outliers' captured indices of two
// rows.
SvFile wib_module(const Config& c, const string& name, const Dims& d) {
  const LineTiming& t = d.t;
  const bool st = t.streamed_counting;
  const string capture =
      t.outlier_capture
          ? fmt::format(
                " As a beat is written, each of the 2k = {} outliers whose channel it "
                "holds takes its weight index into the bank's capture register (a "
                "multiplexer of the beat's {} indices an outlier), and the read side "
                "reads the read bank's captured indices.",
                d.k2(), d.Wb)
          : string();
  SvModule m(name,
             st ? fmt::format("Weight Index Buffer of a PE line whose Index Counter array counts "
                              "each weight beat as it is written (streamed counting): it keeps "
                              "no row, {} beat(s) of {} indices a row.{} The capture registers "
                              "have no reset: a bank is read only once its row is in.",
                              t.fill_beats, d.Wb, capture)
             : t.wib_sram
                 ? fmt::format("Weight Index Buffer of a PE line: two banks, each a row of K = {} "
                               "{}-bit weight indices in an SRAM ({} words of a counting beat, "
                               "G = {} indices, a bank; docs/sram.md), and its scale s_w in "
                               "registers. The fill side writes one bank, {} beat(s) of {} "
                               "indices a row (s_w with beat 0), each into its lane of its word; "
                               "the read side reads the other a counting beat a cycle, the word "
                               "addressed the cycle before.{}",
                               d.K, d.nW, t.count_beats, d.G, t.fill_beats, d.Wb, capture)
                 : fmt::format("Weight Index Buffer of a PE line: two banks, each a row of K = {} "
                               "{}-bit weight indices and its scale s_w. The fill side writes "
                               "one bank, {} beat(s) of {} indices a row (s_w with beat 0); the "
                               "read side reads the other whole.{} The banks have no reset: a "
                               "bank is read only once it is full.",
                               d.K, d.nW, t.fill_beats, d.Wb, capture));
  if (!st && !t.wib_sram) m.header_localparam("Channels", d.K, "Channels K of a row.");
  m.header_localparam("WeightBits", d.nW, "Bits of a weight index, nW.");
  m.header_localparam("BeatIndices", d.Wb, "Indices a beat.");
  m.header_localparam("BeatBits", "BeatIndices*WeightBits", "Bits of a whole beat.");
  m.header_localparam("BeatNumBits", d.t.fill_bits, "Bits of a beat number.");
  if (!st) m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  if (t.outlier_capture) {
    m.header_localparam("Outliers", d.k2(), "Outliers of a token, 2k.");
    m.header_localparam("ChanBits", d.CW(), "Bits of a channel number.");
  }
  if (t.wib_sram) {
    m.header_localparam("Positions", d.G, "Indices a counting beat, G: a word.");
    m.header_localparam("Words", t.wib_words, "Words: a row's counting beats, two banks.");
    m.header_localparam("AddrBits", t.wib_addr_bits, "Bits of a word's address: $clog2(Words).");
  }
  m.ports(wib_ports(d));
  if (st) {
    outlier_capture(m, c, d);
    return m.file();
  }
  if (t.wib_sram) {
    wib_sram_body(m, c, name, d);
    return m.file();
  }
  m.localparam("Beats", t.fill_beats, "Beats of a row.");
  m.localparam("LastBeatBits", t.last_fill_indices * d.nW,
               "Bits of the row's last beat: its indices below K.");
  m << "\n  logic [Channels*WeightBits-1:0] bank0_q, bank1_q;\n"
       "  logic [HalfBits-1:0] scale0_q, scale1_q;\n\n";
  m.comment("Each beat of the row has its own register block; the last one holds fewer indices.");
  m << loop_open("b", t.fill_beats, "g_beat");
  m << fmt::format(
      "    localparam int Bits = b == Beats - 1 ? LastBeatBits : BeatBits;\n"
      "    logic wr_beat;\n"
      "    assign wr_beat = wr_en_i && wr_beat_i == BeatNumBits'(b);\n"
      "    always_ff @(posedge clk_i) begin\n"
      "      if (wr_beat) begin\n"
      "        if (wr_bank_i) bank1_q[b*BeatBits +: Bits] <= wr_data_i[Bits-1:0];\n"
      "        else bank0_q[b*BeatBits +: Bits] <= wr_data_i[Bits-1:0];\n"
      "      end\n"
      "    end\n");
  m << loop_close(t.fill_beats);
  m.op("eq", d.t.fill_bits, "wr_beat", t.fill_beats);
  if (t.last_fill_indices < d.Wb && !t.outlier_capture) {
    m << "  // Indices past K in the row's last beat.\n  logic unused_w_tail;\n"
         "  assign unused_w_tail = ^wr_data_i[BeatBits-1:LastBeatBits];\n";
  }
  m << "  always_ff @(posedge clk_i) begin\n"
       "    if (wr_en_i && wr_beat_i == '0 && !wr_bank_i) scale0_q <= wr_scale_i;\n"
       "    if (wr_en_i && wr_beat_i == '0 && wr_bank_i) scale1_q <= wr_scale_i;\n"
       "  end\n\n"
       "  assign rd_row_o   = rd_bank_i ? bank1_q : bank0_q;\n"
       "  assign rd_scale_o = rd_bank_i ? scale1_q : scale0_q;\n";
  m.op("mux", int64_t(d.K) * d.nW, "rd_row_o");
  if (t.outlier_capture) outlier_capture(m, c, d);
  return m.file();
}

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
  m << loop_open("p", d.G, "g_position");
  m << "    assign idx_o[p*IdxBits +: IdxBits] =\n"
       "        {beat_act[p*ActBits +: ActBits], beat_w_i[p*WeightBits +: WeightBits]};\n";
  m << loop_close(d.G);
  m.op("eq", beat_bits, "beat_act", beats);
  m.op("mux", int64_t(d.G) * d.nA, "beat_act", beats);
  return m.file();
}

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
  structural += loop_open("k", d.K, "g_concat");
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
  behavioural += loop_open("p", d.G, "g_position");
  behavioural +=
      "    assign idx_o[p*IdxBits +: IdxBits] =\n"
      "        {beat_act[p*ActBits +: ActBits], beat_row[p*WeightBits +: WeightBits]};\n";
  behavioural += loop_close(d.G);
  m << "\n" << behavioural_or(behavioural, structural);
  m.op("eq", d.t.beat_bits, "idx_o", beats);
  m.op("mux", int64_t(d.G) * d.B, "idx_o", beats);
  return m.file();
}

// Main branch: counts to A, times the LUT entries, the pairwise tree, the
// accumulator.
SvFile mac_tree_module(const Config& c, const string& name, const Dims& d) {
  const FpFormat& f = d.f();
  const FpFormat& cf = d.d.count_format;
  const int aw = d.aw(), Tp = d.Tp(), T = d.T, W = d.W(), CH = d.t.chunks, S = d.S;
  const bool sym = d.d.symmetric;
  // The stride of a count on the bus: with symmetric codebooks a bit wider, two's complement.
  const string cb = sym ? "DataBits" : "CountBits";
  SvModule m(name, fmt::format("MAC tree of a PE line: per chunk of T = {} counts, count x L[e] "
                               "in {} ({} multipliers), the pairwise tree of docs/numerics.md "
                               "over them, and the accumulator of {} partial sum(s); {} chunk(s) "
                               "a row. {} register stage(s) for every multiplier, {} for every "
                               "adder.{}",
                               T, f.name(), Tp, d.t.main_slots, CH, d.t.main_product_stages, S,
                               sym ? " The codebooks are symmetric about zero: a count is signed "
                                     "(two's complement) and L holds the magnitudes' products."
                                   : ""));
  m.header_localparam("Entries", d.E, "LUT entries E.");
  m.header_localparam("ChunkLanes", T, "Counts a chunk carries, T.");
  m.header_localparam("CountBits", W, sym ? "Bits of a count's magnitude." : "Bits of a count.");
  if (sym) {
    m.header_localparam("DataBits", "CountBits + 1", "Bits of a signed count, two's complement.");
  }
  m.header_localparam("ChunkBits", d.t.chunk_bits, "Bits of a chunk number.");
  m.header_localparam("AccBits", aw, fmt::format("Bits of a value in A ({}).", f.name()));
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.header_localparam(
      "CountFpBits", cf.width(),
      fmt::format("Bits of a count converted for the multipliers ({}).", cf.name()));
  m.ports({kClk,
           kRst,
           {"input", 0, "cnt_valid_i", "A chunk of counts is presented."},
           {"input", 0, "cnt_data_i", fmt::format("The counts: t at [t*{0} +: {0}].", cb),
            "ChunkLanes*" + cb},
           {"input", 0, "cnt_chunk_i", "Which chunk of the row.", "ChunkBits"},
           {"input", 0, "cnt_last_i", "The row's last chunk."},
           {"input", 0, "lut_i", "The LUT: L[e], binary16, at [e*HalfBits +: HalfBits].",
            "Entries*HalfBits"},
           {"output", 0, "row_valid_o", "The row's main-branch sum is on row_sum_o."},
           {"output", 0, "row_sum_o", "The row's main-branch sum.", "AccBits"}});
  m.localparam("Chunks", CH, "Chunks of a row.");
  m.localparam("Lanes", Tp, "Lanes in use: min(T, E).");
  m << "\n";
  if (T > Tp) {
    m << "  // Lanes of the chunk past the LUT's entries.\n  logic unused_cnt_tail;\n"
      << fmt::format("  assign unused_cnt_tail = ^cnt_data_i[ChunkLanes*{0}-1:Lanes*{0}];\n", cb);
  }
  m.comment(
      "The LUT padded to whole chunks; lane t of chunk c holds entry c*T + t when it "
      "exists.");
  m << "  logic [Chunks*ChunkLanes*HalfBits-1:0] lut_pad;\n  logic [ChunkLanes*HalfBits-1:0] "
       "lut_sel;\n"
       "  logic [Lanes-1:0] main_present;\n";
  m << (CH * T > d.E ? string("  assign lut_pad = (Chunks*ChunkLanes*HalfBits)'(lut_i);\n")
                     : string("  assign lut_pad = lut_i;\n"));
  m << fmt::format(
      "  always_comb begin\n    lut_sel = '0;\n    main_present = '0;\n"
      "    for (int c = 0; c < Chunks; c++) begin\n"
      "      if (cnt_chunk_i == ChunkBits'(c)) begin\n"
      "        lut_sel = lut_pad[c*ChunkLanes*HalfBits +: ChunkLanes*HalfBits];\n"
      "        for (int t = 0; t < Lanes; t++) main_present[t] = c*ChunkLanes + t < Entries;\n"
      "      end\n    end\n  end\n");
  m.op("eq", d.t.chunk_bits, "lut_sel", CH);
  m.op("mux", T * 16, "lut_sel", CH);
  if (T > Tp) {
    m << "  logic unused_lut_tail;\n"
         "  assign unused_lut_tail = ^lut_sel[ChunkLanes*HalfBits-1:Lanes*HalfBits];\n";
  }
  m << "  logic [Lanes*CountFpBits-1:0] count_a;\n";
  // The conversion's inputs: the presented chunk, or with a sign stage its register's.
  const bool staged = sym && d.t.sign_stages > 0;
  const string in_valid = staged ? "sign_valid" : "cnt_valid_i";
  const string in_last = staged ? "sign_last" : "cnt_last_i";
  const string in_first = staged ? "sign_first" : "cnt_chunk_i == ChunkBits'(0)";
  const string in_present = staged ? "sign_present" : "main_present";
  const string in_lut = staged ? "sign_lut" : "lut_sel[Lanes*HalfBits-1:0]";
  if (sym) {
    m << "  /// Each lane's signed count as a magnitude (inverted, plus one, when below zero) and "
         "whether\n"
         "  /// it is below zero.\n"
         "  logic [Lanes*CountBits-1:0] magnitude;\n"
         "  logic [Lanes-1:0] below_zero;\n"
         "  for (genvar t = 0; t < Lanes; t++) begin : g_signed\n"
         "    logic [DataBits-1:0] count;\n"
         "    assign count = cnt_data_i[t*DataBits +: DataBits];\n"
         "    assign below_zero[t] = count[CountBits];\n"
         "    assign magnitude[t*CountBits +: CountBits] =\n"
         "        (count[CountBits-1:0] ^ {CountBits{count[CountBits]}}) + "
         "CountBits'(count[CountBits]);\n"
         "  end\n";
    m.op("add", W, "magnitude", Tp);
    if (staged) {
      m.comment(
          "The sign stage: the magnitudes registered before their conversion, which with the "
          "array's subtraction and the negation would not fit the clock target "
          "(signed_count_stage).");
      m.pipe_stage("sign", d.t.sign_stages, "cnt_valid_i",
                   {{"last", 0, "cnt_last_i"},
                    {"first", 0, "cnt_chunk_i == ChunkBits'(0)"},
                    {"present", Tp, "main_present", "Lanes"},
                    {"lut", int64_t(Tp) * 16, "lut_sel[Lanes*HalfBits-1:0]", "Lanes*HalfBits"},
                    {"below_zero", Tp, "below_zero", "Lanes"},
                    {"magnitude", int64_t(Tp) * W, "magnitude", "Lanes*CountBits"}});
    }
  }
  // A count into its format (Derived::count_format), one rounding: none when A holds every
  // count exactly, in the narrowest format that does; else A itself (in binary16 the same
  // rounding as through binary32, which holds every count exactly).
  m << "  for (genvar t = 0; t < Lanes; t++) begin : g_lane\n";
  if (sym) {
    m << fmt::format(
        "    /// The magnitude converted, with a sign bit of 0.\n"
        "    logic [CountFpBits-1:0] magnitude_a;\n"
        "    logic unused_magnitude_sign;\n"
        "    assign unused_magnitude_sign = magnitude_a[CountFpBits-1];\n"
        "    // Zero is never below zero, so it converts to +0, as the model's cnt_A.\n"
        "    assign count_a[t*CountFpBits +: CountFpBits] =\n"
        "        {{{}below_zero[t], magnitude_a[CountFpBits-2:0]}};\n",
        staged ? "sign_" : "");
  }
  m.inst("oasis_fp_from_uint", "u_count",
         {{"n_i", sym ? (staged ? "sign_magnitude[t*CountBits +: CountBits]"
                                : "magnitude[t*CountBits +: CountBits]")
                      : "cnt_data_i[t*CountBits +: CountBits]"},
          {"result_o", sym ? "magnitude_a" : "count_a[t*CountFpBits +: CountFpBits]"}},
         "    ",
         {{"IntBits", "CountBits"},
          {"ExpBits", std::to_string(cf.exp_bits)},
          {"FracBits", std::to_string(cf.frac_bits)}},
         "Lanes");
  m.op("fp_from_uint", W, "count_a", Tp);
  m << "  end\n";
  m.pipe_stage("conv", d.t.conv_stages, in_valid,
               {{"last", 0, in_last},
                {"first", 0, in_first},
                {"present", Tp, in_present, "Lanes"},
                {"count", int64_t(Tp) * cf.width(), "count_a", "Lanes*CountFpBits"},
                {"lut", int64_t(Tp) * 16, in_lut, "Lanes*HalfBits"}});
  const Operands ops{cf, kBinary16Format};
  const FpCuts mul_cuts = chain_cuts(f, FpOp::kMul, d.t.main_product_stages, ops);
  const string prod_valid = mul_cuts.mask != 0 ? "prod_valid[0]" : "conv_valid";
  m << "  logic [Lanes*AccBits-1:0] prod;\n";
  if (mul_cuts.mask != 0) {
    m << "  // Every lane's valid bit is the same; lane 0's is used.\n"
         "  logic [Lanes-1:0] prod_valid;\n  logic unused_prod_valid;\n"
         "  assign unused_prod_valid = ^prod_valid;\n";
  }
  m << "  for (genvar t = 0; t < Lanes; t++) begin : g_mul\n";
  chain_unit(m, f, FpOp::kMul, "u_mul", "conv_count[t*CountFpBits +: CountFpBits]",
             "conv_lut[t*HalfBits +: HalfBits]", "prod[t*AccBits +: AccBits]",
             d.t.main_product_stages, "conv_valid", "prod_valid[t]", "    ", "Lanes", ops);
  m << "  end\n";
  std::vector<Field> mul_fields = beside_unit(m, "mul", mul_cuts, "conv_valid",
                                              {{"last", 0, "conv_last"},
                                               {"first", 0, "conv_first"},
                                               {"present", Tp, "conv_present", "Lanes"}});
  mul_fields.push_back({"prod", int64_t(Tp) * aw, "prod", "Lanes*AccBits"});
  m.pipe_stage("mul", mul_cuts.output_stages, prod_valid, mul_fields);
  m.comment(
      "The pairwise tree, one instance per level; the chunk's first and last flags ride "
      "beside it through as many registers.");
  const TreeRoot root =
      tree(m, c, f, S, "lvl", Tp, "mul_prod", "mul_present", "mul_valid", "Lanes");
  m.pipe_stage("tag", root.levels * S, "mul_valid",
               {{"last", 0, "mul_last"}, {"first", 0, "mul_first"}});
  m << "  // The root's present bit is always set (a chunk has an entry).\n"
       "  logic unused_root;\n";
  m << fmt::format(
      "  assign unused_root = {};\n",
      root.levels > 0 ? fmt::format("^{{{}, {}}}", root.present, root.valid) : root.present);
  if (d.L() == 1) {
    m.comment(
        "The accumulator: the combinational adder and one register, so the loop closes in a "
        "cycle; chunk 0 loads it.");
    m << "  logic [AccBits-1:0] main_sum, main_d, main_q;\n";
    fp_add(m, f, "u_main_acc", "main_q", root.value, "main_sum");
    m << fmt::format("  assign main_d = tag_valid ? (tag_first ? {} : main_sum) : main_q;\n",
                     root.value);
    m << "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) main_q <= '0;\n    else main_q <= main_d;\n  end\n"
         "  assign row_valid_o = tag_valid && tag_last;\n"
         "  assign row_sum_o   = main_d;\n";
  } else {
    const TreeRoot acc = accumulator(m, c, f, S, d.L(), d.t.main_slots, 1, "", "Chunks",
                                     "tag_valid", "tag_first", "tag_last", "", root.value);
    m << fmt::format("  logic unused_acc_present;\n  assign unused_acc_present = {};\n",
                     acc.present);
    m << fmt::format("  assign row_valid_o = {};\n  assign row_sum_o   = {};\n", acc.valid,
                     acc.value);
  }
  return m.file();
}

// The gather: in cycle g, outliers j = g*Mc + m, their residuals, and each one's weight
// index: taken from the Weight Index Buffer's captured indices like the residuals, or, without
// the capture, read from the row by a balanced multiplexer tree (LineTiming::outlier_capture).
SvFile gather_module(const Config& c, const string& name, const Dims& d) {
  const int GR = d.t.groups, Ci = d.Ci(), k2 = d.k2(), CW = d.CW();
  const int slots = GR * d.Mc;
  const bool capture = d.t.outlier_capture;
  SvModule m(name,
             fmt::format("Outlier gather of a PE line: in compensation cycle g, slot m (m < {}) "
                         "takes outlier j = g*{} + m (j < 2k = {}): its residual r[o_j] and its "
                         "weight index iw[o_j], {}. Combinational.",
                         Ci, d.Mc, k2,
                         capture ? "captured by the Weight Index Buffer as the row streamed in"
                                 : fmt::format("read from the row by a balanced tree of 2-to-1 "
                                               "multiplexers over the K = {} channels",
                                               d.K)));
  if (!capture) m.header_localparam("Channels", d.K, "Channels K of a row.");
  m.header_localparam("IdxBits", d.nW, "Bits of a weight index, nW.");
  m.header_localparam("Outliers", k2, "Outliers of a token, 2k.");
  if (!capture) m.header_localparam("ChanBits", CW, "Bits of a channel index.");
  m.header_localparam("Slots", Ci, "Slots in use: min(Mc, 2k).");
  m.header_localparam("GroupBits", d.t.group_bits, "Bits of a compensation cycle number.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  std::vector<Port> ports = {{"input", 0, "group_i", "The compensation cycle g.", "GroupBits"}};
  if (capture) {
    ports.push_back({"input", 0, "iw_i",
                     "The outliers' weight indices iw[o_j], Orizuru's order, at "
                     "[j*IdxBits +: IdxBits].",
                     "Outliers*IdxBits"});
  } else {
    ports.push_back({"input", 0, "outlier_chan_i",
                     "The outlier channels o_j, Orizuru's order, at [j*ChanBits +: ChanBits].",
                     "Outliers*ChanBits"});
  }
  ports.push_back({"input", 0, "residual_i",
                   "The residuals r[o_j], binary16, at [j*HalfBits +: HalfBits].",
                   "Outliers*HalfBits"});
  if (!capture) {
    ports.push_back({"input", 0, "row_i", "The row's weight indices.", "Channels*IdxBits"});
  }
  ports.push_back({"output", 0, "iw_o", "Slot m's weight index iw[o_j], at [m*IdxBits +: IdxBits].",
                   "Slots*IdxBits"});
  ports.push_back({"output", 0, "res_o", "Slot m's residual r[o_j], at [m*HalfBits +: HalfBits].",
                   "Slots*HalfBits"});
  ports.push_back({"output", 0, "present_o", "Slot m holds an outlier (j < 2k).", "Slots"});
  m.ports(ports);
  m.localparam("Groups", GR, "Compensation cycles of a row.");
  m.localparam("Macs", d.Mc, "Compensation MACs, Mc.");
  // What a slot selects besides its residual: the weight index, or the channel to read it at.
  const string sel = capture ? "iw" : "chan";
  const string sel_in = capture ? "iw_i" : "outlier_chan_i";
  const string sel_bits = capture ? "IdxBits" : "ChanBits";
  const string pad_bits = capture ? "PadIdxBits" : "PadChanBits";
  m.localparam(pad_bits, "Groups*Macs*" + sel_bits,
               capture ? "The weight indices, padded to whole compensation cycles."
                       : "The outlier channels, padded to whole compensation cycles.");
  m.localparam("PadResBits", "Groups*Macs*HalfBits",
               "The residuals, padded to whole compensation cycles.");
  m << fmt::format("\n  logic [{0}-1:0] {1}_pad;\n  logic [PadResBits-1:0] res_pad;\n", pad_bits,
                   sel);
  if (!capture) m << "  logic [Slots*ChanBits-1:0] g_chan;\n";
  const string g_out = capture ? "iw_o" : "g_chan";
  m << (slots > k2 ? fmt::format("  assign {0}_pad = {1}'({2});\n"
                                 "  assign res_pad = PadResBits'(residual_i);\n",
                                 sel, pad_bits, sel_in)
                   : fmt::format("  assign {0}_pad = {1};\n  assign res_pad = residual_i;\n", sel,
                                 sel_in));
  m << fmt::format(
      "  always_comb begin\n    {0} = '0;\n    res_o = '0;\n    present_o = '0;\n"
      "    for (int g = 0; g < Groups; g++) begin\n"
      "      if (group_i == GroupBits'(g)) begin\n"
      "        {0} = {1}_pad[g*Macs*{2} +: Slots*{2}];\n"
      "        res_o = res_pad[g*Macs*HalfBits +: Slots*HalfBits];\n"
      "        for (int m = 0; m < Slots; m++) present_o[m] = g*Macs + m < Outliers;\n"
      "      end\n    end\n  end\n",
      g_out, sel, sel_bits);
  m.op("eq", d.t.group_bits, g_out, GR);
  m.op("mux", Ci * ((capture ? d.nW : CW) + 16), g_out, GR);
  if (d.Mc > Ci) {
    // One group (Mc > 2k): the slots past 2k are padding nothing reads.
    m << fmt::format(
        "  logic unused_slots;\n"
        "  assign unused_slots = ^{{{0}_pad[Macs*{1}-1:Slots*{1}],\n"
        "                          res_pad[Macs*HalfBits-1:Slots*HalfBits]}};\n",
        sel, sel_bits);
  }
  if (!capture) {
    m << "  for (genvar m = 0; m < Slots; m++) begin : g_slot\n";
    mux_tree(m, c, "u_iw_mux", d.K, d.nW, CW, "row_i", "g_chan[m*ChanBits +: ChanBits]",
             "iw_o[m*IdxBits +: IdxBits]", "    ", "Slots");
    m << "  end\n";
  }
  return m.file();
}

// Dequantization Unit: C_W[iw] for each compensation slot.
SvFile dequant_module(const string& name, const Dims& d) {
  SvModule m(name, fmt::format("Dequantization Unit of a PE line: the weight centroid C_W[iw] of "
                               "each of the {} compensation slot(s), from the 2^nW = {} entries. "
                               "Combinational.",
                               d.Ci(), d.centroids()));
  m.header_localparam("Slots", d.Ci(), "Compensation slots.");
  m.header_localparam("Centroids", d.centroids(), "Weight centroids, 2^nW.");
  m.header_localparam("IdxBits", d.nW, "Bits of a weight index, nW.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {{"input", 0, "iw_i", "Slot m's weight index, at [m*IdxBits +: IdxBits].", "Slots*IdxBits"},
       {"input", 0, "codebook_i", "C_W: centroid i, binary16, at [i*HalfBits +: HalfBits].",
        "Centroids*HalfBits"},
       {"output", 0, "w_o", "Slot m's centroid, binary16, at [m*HalfBits +: HalfBits].",
        "Slots*HalfBits"}});
  m << fmt::format(
      "\n  for (genvar m = 0; m < Slots; m++) begin : g_slot\n"
      "    always_comb begin\n"
      "      w_o[m*HalfBits +: HalfBits] = '0;\n"
      "      for (int i = 0; i < Centroids; i++) begin\n"
      "        if (iw_i[m*IdxBits +: IdxBits] == IdxBits'(i)) begin\n"
      "          w_o[m*HalfBits +: HalfBits] = codebook_i[i*HalfBits +: HalfBits];\n"
      "        end\n"
      "      end\n"
      "    end\n  end\n");
  m.op("eq", d.nW, "w_o", int64_t(d.Ci()) * d.centroids());
  return m.file();
}

// The compensation MACs: r x C_W[iw] in A, Mc accumulators, the tree over them.
SvFile comp_module(const Config& c, const string& name, const Dims& d) {
  const FpFormat& f = d.f();
  const int aw = d.aw(), Ci = d.Ci(), S = d.S;
  SvModule m(name,
             fmt::format("Compensation MACs of a PE line: {} slot(s) of r x C_W[iw] in {} "
                         "({} register stage(s)), accumulated by one MAC each in {} "
                         "partial sum(s) over the row's {} cycle(s), then the pairwise "
                         "tree over each MAC's partial sums and over the MACs ({} register "
                         "stage(s) an adder).",
                         Ci, f.name(), d.t.comp_product_stages, d.t.comp_slots, d.t.groups, S));
  m.header_localparam("Slots", Ci, "Compensation MACs in use.");
  m.header_localparam("AccBits", aw, fmt::format("Bits of a value in A ({}).", f.name()));
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({kClk,
           kRst,
           {"input", 0, "issue_i", "A compensation cycle of the row is issued."},
           {"input", 0, "first_i", "It is the row's first."},
           {"input", 0, "last_i", "It is the row's last."},
           {"input", 0, "present_i", "Slot m holds an outlier.", "Slots"},
           {"input", 0, "res_i", "Slot m's residual, binary16, at [m*HalfBits +: HalfBits].",
            "Slots*HalfBits"},
           {"input", 0, "w_i", "Slot m's weight centroid, binary16, at [m*HalfBits +: HalfBits].",
            "Slots*HalfBits"},
           {"output", 0, "valid_o", "The row's compensation sum is on sum_o."},
           {"output", 0, "sum_o", "The row's compensation sum.", "AccBits"}});
  m.localparam("Outliers", d.k2(), "Outliers of a token, 2k: MAC m's g-th is j = g*Mc + m.");
  const FpCuts mul_cuts = chain_cuts(f, FpOp::kMul, d.t.comp_product_stages, kHalfAB);
  const string prod_valid = mul_cuts.mask != 0 ? "prod_valid[0]" : "issue_i";
  m << "\n  logic [Slots*AccBits-1:0] g_prod;\n";
  if (mul_cuts.mask != 0) {
    m << "  // Every slot's valid bit is the same; slot 0's is used.\n"
         "  logic [Slots-1:0] prod_valid;\n  logic unused_prod_valid;\n"
         "  assign unused_prod_valid = ^prod_valid;\n";
  }
  m << "  for (genvar m = 0; m < Slots; m++) begin : g_mul\n";
  chain_unit(m, f, FpOp::kMul, "u_mul", "res_i[m*HalfBits +: HalfBits]",
             "w_i[m*HalfBits +: HalfBits]", "g_prod[m*AccBits +: AccBits]", d.t.comp_product_stages,
             "issue_i", "prod_valid[m]", "    ", "Slots", kHalfAB);
  m << "  end\n";
  std::vector<Field> cm_fields = beside_unit(
      m, "cm", mul_cuts, "issue_i",
      {{"last", 0, "last_i"}, {"first", 0, "first_i"}, {"present", Ci, "present_i", "Slots"}});
  cm_fields.push_back({"prod", int64_t(Ci) * aw, "g_prod", "Slots*AccBits"});
  m.pipe_stage("cm", mul_cuts.output_stages, prod_valid, cm_fields);
  const TreeRoot root = accumulator(m, c, f, S, d.L(), d.t.comp_slots, Ci, "Slots", "Outliers",
                                    "cm_valid", "cm_first", "cm_last", "cm_present", "cm_prod");
  m << fmt::format("  logic unused_acc_present;\n  assign unused_acc_present = {};\n",
                   root.present);
  m << fmt::format("  assign valid_o = {};\n  assign sum_o   = {};\n", root.valid, root.value);
  return m.file();
}

// Merge and scale: rows meet in order in FIFOs; add, two scalings, rounding,
// the output FIFO.
SvFile merge_module(const string& name, const Dims& d) {
  const FpFormat& f = d.f();
  const int aw = d.aw(), S = d.S, D = d.t.fifo_depth;
  const bool fp32 = aw == 32;
  SvModule m(name, fmt::format("Merge and output of a PE line: the main and compensation sums "
                               "and the row's s_w wait in FIFOs of {} rows; when both sums of a "
                               "row are there, add_A, x s_a, x s_w{}, each followed by {} "
                               "register stage(s), into the output FIFO.",
                               D, fp32 ? ", to binary16" : "", S));
  m.header_localparam("AccBits", aw, fmt::format("Bits of a value in A ({}).", f.name()));
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports({kClk,
           kRst,
           {"input", 0, "main_valid_i", "A row's main-branch sum."},
           {"input", 0, "main_i", "The sum.", "AccBits"},
           {"input", 0, "comp_valid_i", "A row's compensation sum."},
           {"input", 0, "comp_i", "The sum.", "AccBits"},
           {"input", 0, "sw_valid_i", "A row's s_w (when the row starts)."},
           {"input", 0, "sw_i", "s_w, binary16.", "HalfBits"},
           {"input", 0, "act_scale_i", "The token's s_a, binary16.", "HalfBits"},
           {"input", 0, "y_pop_i", "The consumer takes y this cycle."},
           {"output", 0, "y_valid_o", "An output is presented."},
           {"output", 0, "y_data_o", "y[n], binary16, rows in order.", "HalfBits"}});
  m << "  logic [AccBits-1:0] main_head, comp_head;\n  logic [HalfBits-1:0] sw_head, y_head;\n";
  m << "  logic merge_fire, main_empty, comp_empty, unused_sw_empty, y_empty;\n"
       "  logic unused_main_full, unused_comp_full, unused_sw_full, unused_y_full;\n";
  m << fifo("u_main_fifo", aw, D, "main_valid_i", "main_i", "merge_fire", "main_head", "main_empty",
            "unused_main_full");
  m << fifo("u_comp_fifo", aw, D, "comp_valid_i", "comp_i", "merge_fire", "comp_head", "comp_empty",
            "unused_comp_full");
  m << fifo("u_sw_fifo", 16, D, "sw_valid_i", "sw_i", "merge_fire", "sw_head", "unused_sw_empty",
            "unused_sw_full");
  m << "  assign merge_fire = !main_empty && !comp_empty;\n";
  chain_stage(m, f, FpOp::kAdd, "u_merge", "main_head", "comp_head", "mg1", S, "merge_fire",
              {{"sw", 16, "sw_head", "HalfBits"}}, "sum", "AccBits");
  chain_stage(m, f, FpOp::kMul, "u_scale_a", "mg1_sum", "act_scale_i", "mg2", S, "mg1_valid",
              {{"sw", 16, "mg1_sw", "HalfBits"}}, "prod", "AccBits", kHalfB);
  chain_stage(m, f, FpOp::kMul, "u_scale_w", "mg2_prod", "mg2_sw", "mg3", S, "mg2_valid", {},
              "prod", "AccBits", kHalfB);
  string y_valid = "mg3_valid", y_value = "mg3_prod";
  if (fp32) {
    m << "  logic [HalfBits-1:0] y16;\n";
    fp_convert(m, f, kBinary16Format, "u_round", "mg3_prod", "y16");
    m.pipe_stage("round", S, "mg3_valid", {{"y", 16, "y16", "HalfBits"}});
    y_valid = "round_valid";
    y_value = "round_y";
  }
  m << fifo("u_y_fifo", 16, D, y_valid, y_value, "y_pop_i", "y_head", "y_empty", "unused_y_full");
  m << "  assign y_valid_o = !y_empty;\n  assign y_data_o = y_head;\n";
  return m.file();
}

// The line's header: the figures its port widths are written in, and its ports, documented.
void line_header(SvModule& m, const Dims& d) {
  m.header_localparam("Channels", d.K, "Channels K of a token and of a weight row.");
  m.header_localparam("ActBits", d.nA, "Bits of an activation index.");
  m.header_localparam("WeightBits", d.nW, "Bits of a weight index.");
  m.header_localparam("Outliers", d.k2(), "Outliers of a token, 2k.");
  m.header_localparam("ChanBits", d.CW(), "Bits of a channel number.");
  m.header_localparam("Entries", d.E, "Entries of the Cartesian-product LUT.");
  m.header_localparam("Centroids", d.centroids(), "Centroids of the weight codebook.");
  m.header_localparam("BeatIndices", d.Wb, "Weight indices a beat of the weight stream.");
  m.header_localparam("HalfBits", kBinary16Format.width(), "Bits of a binary16 value.");
  m.ports(
      {kClk,
       kRst,
       {"input", 0, "act_idx_i",
        "The token's activation indices: ia[k] at [k*ActBits +: ActBits]; held while busy.",
        "Channels*ActBits"},
       {"input", 0, "outlier_chan_i",
        "The token's outlier channels in Orizuru's order (max_1, min_1, ...): o_j at "
        "[j*ChanBits +: ChanBits]; held while busy.",
        "Outliers*ChanBits"},
       {"input", 0, "residual_i",
        "The residuals r[o_j], binary16, at [j*HalfBits +: HalfBits]; held while busy.",
        "Outliers*HalfBits"},
       {"input", 0, "act_scale_i", "The token's scale s_a, binary16; held while busy.", "HalfBits"},
       {"input", 0, "lut_i",
        "The Cartesian-product LUT: L[e], binary16, at [e*HalfBits +: HalfBits]; held while busy.",
        "Entries*HalfBits"},
       {"input", 0, "weight_codebook_i",
        "The weight codebook C_W: centroid i, binary16, at [i*HalfBits +: HalfBits]; held while "
        "busy.",
        "Centroids*HalfBits"},
       {"input", 0, "w_valid_i", "A beat of a weight row is offered."},
       {"output", 0, "w_ready_o", "The line takes the offered beat this cycle."},
       {"input", 0, "w_data_i",
        "The beat: iw[n][b*BeatIndices + i] at [i*WeightBits +: WeightBits] (indices past K "
        "ignored).",
        "BeatIndices*WeightBits"},
       {"input", 0, "w_scale_i",
        "The row's scale s_w[n], binary16, taken with the row's first beat.", "HalfBits"},
       {"output", 0, "y_valid_o", "An output is presented."},
       {"input", 0, "y_ready_i", "The consumer takes the presented output this cycle."},
       {"output", 0, "y_data_o", "The output y[n], binary16, rows in order.", "HalfBits"},
       {"output", 0, "idle_o", "No row is anywhere in the line: the token's inputs may change."}});
}

// The control of the line: the fill side, the read side, the credits. With streamed counting
// (docs/pe_line.md) the fill side feeds the Index Counter array and a row's first beat takes
// its credit; the read side issues the compensation groups of a full bank alone.
void control(SvModule& m, const Dims& d) {
  const LineTiming& t = d.t;
  const bool st = t.streamed_counting;
  const int fbw = d.t.fill_bits, cbw = d.t.beat_bits, grw = d.t.group_bits, crw = d.t.credit_bits;
  m.comment(st ? "Fill side: which capture bank and beat the weight stream writes, each beat "
                 "counted as it is taken (streamed counting), a row started (its credit taken, "
                 "its s_w to the merge) with its first beat; read side: the captured bank whose "
                 "compensation groups are issued; credits: rows started and not yet popped from "
                 "the output FIFO."
               : "Fill side: which bank and beat the weight stream writes; read side: the bank "
                 "being counted and gathered, its counting beat and compensation group; "
                 "credits: rows started and not yet popped from the output FIFO.");
  m.localparam(
      "FillBeats", t.fill_beats,
      st ? "Weight-stream beats a row, each a counting beat." : "Weight-stream beats a row.");
  if (!st) m.localparam("CountBeats", t.count_beats, "Index Counter beats a row.");
  m.localparam("Groups", t.groups, "Compensation cycles a row.");
  m.localparam("Depth", t.fifo_depth, "Rows in flight at most.");
  m.localparam("FillBits", fbw, "Bits of the fill side's beat.");
  if (!st) m.localparam("BeatBits", cbw, "Bits of the counting beat.");
  m.localparam("GroupBits", grw, "Bits of the compensation group.");
  m.localparam("CreditBits", crw, "Bits of the credits.");
  m << "  logic full0_d, full0_q, full1_d, full1_q;\n"
       "  logic wr_bank_d, wr_bank_q, rd_bank_d, rd_bank_q, rd_busy_d, rd_busy_q;\n";
  m << "  logic [FillBits-1:0] wr_beat_d, wr_beat_q;\n";
  if (!st) m << "  logic [BeatBits-1:0] cnt_beat_d, cnt_beat_q, cnt_beat_next;\n";
  m << "  logic [GroupBits-1:0] group_d, group_q, group_next;\n"
       "  logic [CreditBits-1:0] credits_d, credits_q;\n";
  m << (st ? "  logic fill_ok, w_fire, w_last, start, rd_start, go, idx_valid, idx_ready, issue, "
             "rd_release;\n"
           : "  logic w_fire, w_last, start, go, idx_valid, idx_ready, idx_fire, issue, "
             "rd_release;\n")
    << "  logic y_pop;\n";
  if (st) {
    m << "\n  // A beat may enter when its capture bank is free and, for a row's first, a credit "
         "is.\n"
         "  assign fill_ok   = !(wr_bank_q ? full1_q : full0_q) &&\n"
         "                     (wr_beat_q != '0 || credits_q != CreditBits'(Depth));\n"
         "  assign idx_valid = w_valid_i && fill_ok;\n"
         "  assign w_ready_o = fill_ok && idx_ready;\n";
  } else if (t.wib_sram) {
    m.localparam("Positions", d.G, "Indices a counting beat, G.");
    m.localparam("WibWords", t.wib_words, "Words of the Weight Index Buffer's SRAM.");
    m.localparam("WibAddrBits", "$clog2(WibWords)", "Bits of its address.");
    m << "  /// The counting beat read from the Weight Index Buffer's SRAM, and the bank's s_w.\n"
         "  logic [Positions*WeightBits-1:0] row_beat;\n  logic [HalfBits-1:0] row_scale;\n"
         "  /// The SRAM's read: the next cycle's counting beat of its bank, when it is full.\n"
         "  logic row_rd_en;\n  logic [WibAddrBits-1:0] row_rd_word;\n\n";
    m << "  assign w_ready_o = !(wr_bank_q ? full1_q : full0_q);\n";
  } else {
    m << "  /// The bank being read, and its row's s_w.\n  logic [Channels*WeightBits-1:0] row;\n";
    m << "  logic [HalfBits-1:0] row_scale;\n\n";
    m << "  assign w_ready_o = !(wr_bank_q ? full1_q : full0_q);\n";
  }
  m << "  assign w_fire    = w_valid_i && w_ready_o;\n";
  m << (t.fill_beats > 1 ? string("  assign w_last    = wr_beat_q == FillBits'(FillBeats - 1);\n")
                         : string("  assign w_last    = 1'b1;\n"));
  if (st) {
    m << "  assign start     = w_fire && wr_beat_q == '0;\n"
         "  assign rd_start  = !rd_busy_q && (rd_bank_q ? full1_q : full0_q);\n"
         "  assign go = rd_busy_q || rd_start;\n"
         "  assign issue = go && group_q != GroupBits'(Groups);\n"
         "  assign group_next = group_q + GroupBits'(issue);\n"
         "  assign rd_release = go && group_next == GroupBits'(Groups);\n";
  } else {
    m << "  assign start = !rd_busy_q && (rd_bank_q ? full1_q : full0_q) && credits_q != "
         "CreditBits'(Depth);\n"
         "  assign go = rd_busy_q || start;\n"
         "  assign idx_valid = go && cnt_beat_q != BeatBits'(CountBeats);\n"
         "  assign idx_fire = idx_valid && idx_ready;\n"
         "  assign issue = go && group_q != GroupBits'(Groups);\n"
         "  assign cnt_beat_next = cnt_beat_q + BeatBits'(idx_fire);\n"
         "  assign group_next = group_q + GroupBits'(issue);\n"
         "  assign rd_release = go && cnt_beat_next == BeatBits'(CountBeats) &&\n"
         "                      group_next == GroupBits'(Groups);\n";
  }
  m << "  assign y_pop = y_valid_o && y_ready_i;\n"
       "  assign idle_o = !full0_q && !full1_q && credits_q == '0 && wr_beat_q == '0;\n\n";
  if (!st) m.op("add", cbw, "cnt_beat_next");
  m.op("add", grw, "group_next");
  m.op("eq", st ? grw : cbw, "rd_release");
  m << "  always_comb begin\n"
       "    wr_bank_d  = wr_bank_q ^ (w_fire && w_last);\n"
       "    wr_beat_d  = w_fire ? (w_last ? '0 : wr_beat_q + FillBits'(1)) : wr_beat_q;\n"
       "    full0_d    = full0_q;\n"
       "    full1_d    = full1_q;\n"
       "    if (w_fire && w_last) begin\n"
       "      if (wr_bank_q) full1_d = 1'b1;\n"
       "      else full0_d = 1'b1;\n"
       "    end\n"
       "    if (rd_release) begin\n"
       "      if (rd_bank_q) full1_d = 1'b0;\n"
       "      else full0_d = 1'b0;\n"
       "    end\n"
       "    rd_bank_d  = rd_bank_q ^ rd_release;\n"
       "    rd_busy_d  = go && !rd_release;\n";
  if (!st) m << "    cnt_beat_d = rd_release ? '0 : cnt_beat_next;\n";
  m << "    group_d    = rd_release ? '0 : group_next;\n"
       "    credits_d  = credits_q + CreditBits'(start) - CreditBits'(y_pop);\n"
       "  end\n\n";
  m.op("add", fbw, "wr_beat_d");
  m.op("add", crw, "credits_d", 2);
  std::vector<Reg> regs = {{"full0_q", "full0_d", "1'b0"},     {"full1_q", "full1_d", "1'b0"},
                           {"wr_bank_q", "wr_bank_d", "1'b0"}, {"wr_beat_q", "wr_beat_d"},
                           {"rd_bank_q", "rd_bank_d", "1'b0"}, {"rd_busy_q", "rd_busy_d", "1'b0"}};
  if (!st) regs.push_back({"cnt_beat_q", "cnt_beat_d"});
  regs.push_back({"group_q", "group_d"});
  regs.push_back({"credits_q", "credits_d"});
  m << registers(regs);
  if (t.wib_sram) {
    // The word the next cycle counts, read at this edge: its bank is full then (a bank's last
    // beat is written to its last word, never the word a row's count starts from).
    m << "\n  assign row_rd_en   = (rd_bank_d ? full1_d : full0_d) && "
         "cnt_beat_d != BeatBits'(CountBeats);\n"
      << fmt::format("  assign row_rd_word = {{cnt_beat_{0}[WibAddrBits-2:0], rd_bank_{0}}};\n",
                     mutated("pe_line.wib_sram_read_late") ? "q" : "d");
    m.op("eq", cbw, "row_rd_en");
  }
  m << "\n";
}

// The line's top: the control and its parts.
SvFile line_module(const Config& c, const string& module, const Dims& d) {
  const LineTiming& t = d.t;
  const int aw = d.aw(), Ci = d.Ci();
  SvModule m(
      module,
      fmt::format("PE line (paper IV-A, docs/spec.md section 6, docs/pe_line.md): one "
                  "weight row of K = {} {}-bit indices in, one binary16 output out. {} ({} "
                  "beat(s) of {} indices a row); Concat Units "
                  "and {} indices a cycle into the Index Counter array ({} beat(s) a row); "
                  "a {}-input MAC tree over the counts and the LUT ({} chunk(s) a row) and "
                  "an accumulator; {} compensation MAC(s) over the {} outliers ({} cycle(s) "
                  "a row); merge, scaling by s_a and s_w, rounding to binary16; an output "
                  "FIFO of {} rows. Accumulation in {}; {} register stage(s) in every "
                  "floating-point unit except the two accumulators, whose loops close in "
                  "one cycle. A row every {} cycle(s) at full rate; {} cycles from a row's "
                  "last weight beat to its output.",
                  d.K, d.nW,
                  t.streamed_counting
                      ? "Weight Index Buffer of two banks of the outliers' captured indices, "
                        "each weight beat counted as it is taken"
                      : "Weight Index Buffer of two banks",
                  t.fill_beats, d.Wb, d.G, t.count_beats, d.Tp(), t.chunks, Ci, d.k2(), t.groups,
                  t.fifo_depth, d.f().name(), d.S, t.row_interval, t.row_latency));
  line_header(m, d);
  control(m, d);
  const auto part = [&](const string& suffix) { return module + "_" + suffix; };
  m << "  // Weight Index Buffer.\n";
  if (t.outlier_capture) {
    m << "  /// The read bank's weight indices at the outliers, captured as its row streamed in.\n"
         "  logic [Outliers*WeightBits-1:0] row_iw;\n";
  }
  const std::map<string, string> wib_signals = {
      {"clk_i", "clk_i"},           {"wr_en_i", "w_fire"},
      {"wr_bank_i", "wr_bank_q"},   {"wr_beat_i", "wr_beat_q"},
      {"wr_data_i", "w_data_i"},    {"wr_scale_i", "w_scale_i"},
      {"rd_bank_i", "rd_bank_q"},   {"rd_row_o", "row"},
      {"rd_scale_o", "row_scale"},  {"outlier_chan_i", "outlier_chan_i"},
      {"rd_iw_o", "row_iw"},        {"rd_en_i", "row_rd_en"},
      {"rd_word_i", "row_rd_word"}, {"rd_beat_o", "row_beat"}};
  std::vector<std::pair<string, string>> wib_connections;
  for (const Port& p : wib_ports(d)) wib_connections.emplace_back(p.name, wib_signals.at(p.name));
  m.inst(part("wib"), "u_wib", wib_connections);
  m << "\n  // Concat Units and the Index Counter array.\n";
  // Every position of a beat counts (the array masks the row's last beat itself). A
  // replication, not '1: Icarus 11 connects an unsized '1 to a port as one bit.
  if (!t.wib_sram) m.localparam("Positions", d.G, "Indices a counting beat, G.");
  m << "  logic [Positions*(ActBits+WeightBits)-1:0] idx_data;\n";
  if (t.streamed_counting) {
    m.inst(part("concat"), "u_concat",
           {{"act_idx_i", "act_idx_i"},
            {"beat_w_i", "w_data_i"},
            {"beat_i", "wr_beat_q"},
            {"idx_o", "idx_data"}});
  } else if (t.wib_sram) {
    m.inst(part("concat"), "u_concat",
           {{"act_idx_i", "act_idx_i"},
            {"beat_w_i", "row_beat"},
            {"beat_i", "cnt_beat_q"},
            {"idx_o", "idx_data"}});
  } else {
    m.inst(part("concat"), "u_concat",
           {{"act_idx_i", "act_idx_i"},
            {"row_i", "row"},
            {"beat_i", "cnt_beat_q"},
            {"idx_o", "idx_data"}});
  }
  m.localparam("ChunkLanes", d.T, "Counts a chunk of the array's output carries, T.");
  if (d.d.symmetric) {
    m.localparam("DataBits", d.d.count_data_bits, "Bits of a signed count, two's complement.");
  } else {
    m.localparam("CountBits", d.W(), "Bits of a count.");
  }
  m.localparam("ChunkBits", d.t.chunk_bits, "Bits of a chunk number.");
  m << fmt::format(
      "  logic cnt_valid, cnt_last;\n  logic [ChunkLanes*{}-1:0] cnt_data;\n"
      "  logic [ChunkBits-1:0] cnt_chunk;\n",
      d.d.symmetric ? "DataBits" : "CountBits");
  m.inst(module_name(c, "index_counter_array"), "u_counters",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"idx_valid_i", "idx_valid"},
          {"idx_ready_o", "idx_ready"},
          {"idx_data_i", "idx_data"},
          {"idx_mask_i", "{Positions{1'b1}}"},
          {"cnt_valid_o", "cnt_valid"},
          {"cnt_ready_i", "1'b1"},
          {"cnt_data_o", "cnt_data"},
          {"cnt_chunk_o", "cnt_chunk"},
          {"cnt_last_o", "cnt_last"}});
  m << "\n  // Main branch: the MAC tree over counts and LUT entries, and its accumulator.\n";
  m.localparam("AccBits", aw, fmt::format("Bits of a value in A ({}).", d.f().name()));
  m << "  logic main_valid;\n  logic [AccBits-1:0] main_sum;\n";
  m.inst(part("mac_tree"), "u_mac_tree",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"cnt_valid_i", "cnt_valid"},
          {"cnt_data_i", "cnt_data"},
          {"cnt_chunk_i", "cnt_chunk"},
          {"cnt_last_i", "cnt_last"},
          {"lut_i", "lut_i"},
          {"row_valid_o", "main_valid"},
          {"row_sum_o", "main_sum"}});
  m << "\n  // Outlier branch: the gather, the Dequantization Unit, the compensation MACs.\n";
  m.localparam("Slots", Ci, "Compensation MACs in use, outliers gathered a cycle.");
  m << "  logic [Slots*WeightBits-1:0] g_iw;\n  logic [Slots*HalfBits-1:0] g_res, g_w;\n"
       "  logic [Slots-1:0] g_present;\n";
  std::vector<std::pair<string, string>> gather_ports = {{"group_i", "group_q"},
                                                         {"residual_i", "residual_i"},
                                                         {"iw_o", "g_iw"},
                                                         {"res_o", "g_res"},
                                                         {"present_o", "g_present"}};
  if (t.outlier_capture) {
    gather_ports.insert(gather_ports.begin() + 1, {"iw_i", "row_iw"});
  } else {
    gather_ports.insert(gather_ports.begin() + 1, {"outlier_chan_i", "outlier_chan_i"});
    gather_ports.insert(gather_ports.begin() + 3, {"row_i", "row"});
  }
  m.inst(part("gather"), "u_gather", gather_ports);
  m.comment(t.outlier_capture
                ? "The gather's reads registered: the Dequantization Unit with the multiplier "
                  "starts a cycle after the compensation cycle's choice (docs/pe_line.md, "
                  "outlier branch)."
                : "The gather's reads registered: the K-to-1 multiplexers and the "
                  "Dequantization Unit with the multiplier are a cycle apart (docs/pe_line.md, "
                  "outlier branch).");
  m.pipe_stage("gq", d.t.gather_stages, "issue",
               {{"first", 0, "group_q == '0"},
                {"last", 0, "group_q == GroupBits'(Groups - 1)"},
                {"present", Ci, "g_present", "Slots"},
                {"iw", int64_t(Ci) * d.nW, "g_iw", "Slots*WeightBits"},
                {"res", Ci * 16, "g_res", "Slots*HalfBits"}});
  m.inst(part("dequant"), "u_dequant",
         {{"iw_i", "gq_iw"}, {"codebook_i", "weight_codebook_i"}, {"w_o", "g_w"}});
  m << "  logic comp_valid;\n  logic [AccBits-1:0] comp_sum;\n";
  m.inst(part("comp_macs"), "u_comp_macs",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"issue_i", "gq_valid"},
          {"first_i", "gq_first"},
          {"last_i", "gq_last"},
          {"present_i", "gq_present"},
          {"res_i", "gq_res"},
          {"w_i", "g_w"},
          {"valid_o", "comp_valid"},
          {"sum_o", "comp_sum"}});
  m << "\n  // Merge, scaling, rounding and the output FIFO.\n";
  m.inst(part("merge"), "u_merge",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"main_valid_i", "main_valid"},
          {"main_i", "main_sum"},
          {"comp_valid_i", "comp_valid"},
          {"comp_i", "comp_sum"},
          {"sw_valid_i", "start"},
          {"sw_i", t.streamed_counting ? "w_scale_i" : "row_scale"},
          {"act_scale_i", "act_scale_i"},
          {"y_pop_i", "y_pop"},
          {"y_valid_o", "y_valid_o"},
          {"y_data_o", "y_data_o"}});
  return m.file();
}

class PeLineBlock final : public Block {
 public:
  string name() const override { return "pe_line"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const string module = module_name(c, name());
    const Dims d(c);
    const LineTiming& t = d.t;
    out.uses = {"index_counter_array"};
    const auto part = [&](const string& suffix) { return module + "_" + suffix; };
    // The tree level; drop_unused_tree_level takes it out when no tree has two inputs.
    out.files.push_back(tree_level_module(c));
    if (t.wib_sram) out.files.push_back(wib_memory_module(part("wib_mem"), d));
    if (t.outlier_capture) out.files.push_back(hold_mux_module(c));
    for (SvFile f :
         {mux_tree_module(c), wib_module(c, part("wib"), d), concat_module(part("concat"), d),
          mac_tree_module(c, part("mac_tree"), d), gather_module(c, part("gather"), d),
          dequant_module(part("dequant"), d), comp_module(c, part("comp_macs"), d),
          merge_module(part("merge"), d), line_module(c, module, d)}) {
      out.files.push_back(std::move(f));
    }

    // The parts, reported on their own by the real-library flow (docs/ppa.md),
    // and the buffers it counts in bits.
    out.manifest["parts"] = nlohmann::ordered_json::array();
    for (const auto& [inst, mod, role] : std::vector<std::array<string, 3>>{
             {"u_wib", part("wib"), "weight_index_buffer"},
             {"u_concat", part("concat"), "concat_units"},
             {"u_counters", module_name(c, "index_counter_array"), "index_counters"},
             {"u_mac_tree", part("mac_tree"), "mac_tree"},
             {"u_gather", part("gather"), "outlier_gather"},
             {"u_dequant", part("dequant"), "dequantization_unit"},
             {"u_comp_macs", part("comp_macs"), "compensation_macs"},
             {"u_merge", part("merge"), "merge_and_output"}}) {
      out.manifest["parts"].push_back({{"instance", inst}, {"module", mod}, {"role", role}});
    }
    // With streamed counting the buffer keeps no row: its capture registers are logic.
    out.manifest["memories"] = nlohmann::ordered_json::array();
    if (t.wib_sram) {
      out.manifest["memories"].push_back(
          {{"name", "weight_index_buffer"},
           {"what", fmt::format("Weight Index Buffer's SRAM: two banks of {} words of {} "
                                "{}-bit indices",
                                t.count_beats, d.G, d.nW)},
           {"bits", int64_t(t.wib_words) * d.G * d.nW},
           {"sram", {{"module", part("wib_mem")}, {"instance", "u_wib.u_mem"}}}});
    } else if (!t.streamed_counting) {
      out.manifest["memories"].push_back(
          {{"name", "weight_index_buffer"},
           {"what", fmt::format("Weight Index Buffer: two banks of {} {}-bit indices and a "
                                "binary16 s_w",
                                d.K, d.nW)},
           {"bits", 2 * (d.K * d.nW + 16)},
           {"registers", {"u_wib.bank0_q", "u_wib.bank1_q", "u_wib.scale0_q", "u_wib.scale1_q"}}});
    }
    out.manifest["memories"].push_back(
        {{"name", "row_fifos"},
         {"what", fmt::format("the merge's FIFOs of {} rows: main and compensation sums ({} bits), "
                              "s_w and y (16 bits)",
                              t.fifo_depth, d.aw())},
         {"bits", t.fifo_depth * (2 * d.aw() + 32)},
         {"registers",
          {"u_merge.u_main_fifo.mem_q", "u_merge.u_comp_fifo.mem_q", "u_merge.u_sw_fifo.mem_q",
           "u_merge.u_y_fifo.mem_q"}}});

    out.manifest["outlier_capture"] = t.outlier_capture;
    out.manifest["streamed_counting"] = t.streamed_counting;
    out.manifest["weight_index_sram"] = t.wib_sram;
    out.manifest["fill_beats_per_row"] = t.fill_beats;
    out.manifest["count_beats_per_row"] = t.count_beats;
    out.manifest["chunks_per_row"] = t.chunks;
    out.manifest["compensation_cycles_per_row"] = t.groups;
    out.manifest["mac_tree_inputs"] = t.tree_inputs;
    out.manifest["compensation_macs"] = t.comp_inputs;
    out.manifest["main_accumulator_partials"] = t.main_slots;
    out.manifest["compensation_partials"] = t.comp_slots;
    out.manifest["row_interval_cycles"] = t.row_interval;
    out.manifest["row_latency_cycles"] = t.row_latency;
    out.manifest["fifo_depth_rows"] = t.fifo_depth;
    out.manifest["accumulator"] = d.f().name();
    out.manifest["count_format"] = d.d.count_format.name();
    out.manifest["sign_stages"] = t.sign_stages;
    out.manifest["main_product_stages"] = t.main_product_stages;
    out.manifest["compensation_product_stages"] = t.comp_product_stages;
    drop_unused_tree_level(out, c);
    return out;
  }
};

OASIS_REGISTER_BLOCK(PeLineBlock);

}  // namespace
}  // namespace oasis::gen
