// SPDX-License-Identifier: Apache-2.0
// The PE line's Weight Index Buffer (docs/pe_line.md): its two banks in registers or in an
// SRAM of its own (docs/sram.md), and the outlier capture. The line: gen/pe_line.cpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::pe_line_parts {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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
  m << loop_open("b", t.fill_beats, "g_beat", "Beats");
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

}  // namespace oasis::gen::pe_line_parts
