// SPDX-License-Identifier: Apache-2.0
// One PE line (paper IV-A, docs/spec.md section 6) as a generated block: Weight Index Buffer,
// Concat Units feeding the index_counter_array block, the MAC tree and
// its accumulator, the compensation MACs behind the Dequantization Unit, the
// merge and scaling, and an output FIFO with credits. Design and timing:
// docs/pe_line.md; cycle model: model/cycle/pe_line.hpp; reduction orders:
// docs/numerics.md. Every width and count comes from derive(c).
// The line's parts are emitted by gen/pe_line_*.cpp, which share gen/pe_line_parts.hpp; this
// file writes the line's top (its header, control and the parts' instances) and registers the
// block.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gen/block.hpp"
#include "gen/fp_emit.hpp"
#include "gen/mutation.hpp"
#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"
#include "model/derived.hpp"

namespace oasis::gen::pe_line_parts {
namespace {

OASIS_REGISTER_MUTATION("pe_line.wib_sram_read_late",
                        "the Weight Index Buffer's SRAM is addressed with the cycle's counting "
                        "beat and bank rather than the next cycle's: each beat is read a cycle "
                        "late");

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

// The line's Concat Units and the Index Counter array: a counting beat of index pairs in, a
// chunk of counts out.
void line_counting(SvModule& m, const Config& c, const Dims& d, const string& module) {
  const LineTiming& t = d.t;
  const auto part = [&](const string& suffix) { return module + "_" + suffix; };
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
}

// The line's outlier branch: the gather, its registers, the Dequantization Unit and the
// compensation MACs.
void line_outlier_branch(SvModule& m, const Dims& d, const string& module) {
  const LineTiming& t = d.t;
  const int Ci = d.Ci();
  const auto part = [&](const string& suffix) { return module + "_" + suffix; };
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
  line_counting(m, c, d, module);
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
  line_outlier_branch(m, d, module);
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
}  // namespace oasis::gen::pe_line_parts
