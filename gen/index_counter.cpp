// SPDX-License-Identifier: Apache-2.0
// The Concat Unit / Index Counter array of a PE line (paper IV-B,
// docs/spec.md section 6), block index_counter_array: C*I concatenated indices a beat, each
// decoded once (activation and weight index one-hot, one AND per entry); each
// entry's count of the beat is one compressor tree of full and half adders
// (rtl/oasis_fa.sv, rtl/oasis_ha.sv) over all C*I positions (behavioural under
// kBehaviouralMacro, for simulation speed); a row's counts
// accumulate over ceil(K / (C*I)) beats, and the finished row is presented T
// counts a cycle from a second bank while the next row is counted.
// Cycle model and adder counts: model/cycle/index_counter.hpp. Test:
// verif/tb/index_counter_array_tb.cpp. Interface and timing: docs/index_counter.md.
// The compressor tree and the bank's adder are emitted by gen/index_counter_tree.cpp.
#include "model/cycle/index_counter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gen/block.hpp"
#include "gen/index_counter_parts.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"
#include "model/derived.hpp"

namespace oasis::gen::index_counter_parts {
namespace {

OASIS_REGISTER_MUTATION("index_counter_array.extent_one_beyond",
                        "the row's extent mask lets the first position beyond K of the last "
                        "beat count");
OASIS_REGISTER_MUTATION("index_counter_array.tree_carry_dropped",
                        "the compressor tree drops a carry: stage 1's first full adder of "
                        "column 1 reads the carry from column 0 as 0");
OASIS_REGISTER_MUTATION("index_counter_array.tree_register_missing",
                        "the compressor trees' first register is missing: its stage's bits go "
                        "through while the beat's valid is still registered");
OASIS_REGISTER_MUTATION("index_counter_array.fold_sign_dropped",
                        "symmetric codebooks: a bin's product sign ignores the weight index's "
                        "top bit (the activation's alone)");
OASIS_REGISTER_MUTATION("index_counter_array.bank_carry_dropped",
                        "the counting bank's adder loses the carry into column 1");
// A constant of `width` bits, bit i = bits[i]: one hex literal up to 64 bits, above that a
// concatenation of 64-bit literals, one a line (lines stay within 100 columns).
std::string hex_mask(int width, const std::vector<bool>& bits) {
  const auto hex = [&](int lo, int n) {
    std::string h;
    for (int d = (n + 3) / 4 - 1; d >= 0; --d) {
      int v = 0;
      for (int k = 0; k < 4; ++k) {
        const int bit = d * 4 + k;
        if (bit < n && bits[size_t(lo + bit)]) v |= 1 << k;
      }
      h += "0123456789abcdef"[v];
    }
    return fmt::format("{}'h{}", n, h);
  };
  if (width <= 64) return hex(0, width);
  std::string s = "{";
  for (int hi = width; hi > 0; hi -= 64) {
    const int lo = std::max(0, hi - 64);
    s += fmt::format("\n      {}{}", hex(lo, hi - lo), lo > 0 ? "," : "");
  }
  return s + "\n    }";
}

// The figures of one array, from derive(c), and its top module in parts.
struct CounterArray {
  explicit CounterArray(const Config& config)
      : c(config),
        d(derive(c)),
        ict(d.index_counter_array),
        b(d.concat_index_bits),
        entries(d.count_bins),
        mags(d.lut_entries),
        sym(d.symmetric),
        counters(c.index_counters),
        inputs(c.counter_inputs),
        group(d.indices_per_cycle),
        t(c.mac_tree_inputs),
        w(ict.count_bits),
        sw(ict.beat_sum_bits),
        beats(ict.beats_per_row),
        chunks(ict.chunks_per_row),
        bw(ict.beat_bits),
        chw(ict.chunk_bits),
        stage(ict.input_stage),
        regs(int(ict.tree_cuts.size())),
        // With the input stage the decoders read the registered beat.
        data(stage ? "in_data_q" : "idx_data_i"),
        mask(stage ? "in_mask_q" : "idx_mask_i"),
        // presenting bank, padded to whole chunks (symmetric: a positive and a negative count
        // a lane)
        bank(chunks * t * w * (sym ? 2 : 1)),
        partial(int64_t(beats) * group > c.channels) {
    if (group > 65535) {
      throw std::logic_error(
          fmt::format("index_counter_array: {} positions a beat; the tree "
                      "module counts at most 65535",
                      group));
    }
  }

  const Config& c;
  const Derived d;
  const IndexCounterTiming& ict;
  const int b, entries, mags;
  const bool sym;
  const int counters, inputs, group, t, w, sw, beats, chunks, bw, chw;
  const bool stage;
  const int regs;  // registers in the trees
  const std::string data, mask;
  const int bank;
  const bool partial;

  // The top module's ports, documented.
  std::vector<Port> ports() const {
    return {
        {"input", 0, "clk_i", "Clock."},
        {"input", 0, "rst_ni", "Asynchronous reset, active low."},
        {"input", 0, "idx_valid_i", "A beat of indices is offered."},
        {"output", 0, "idx_ready_o", "The array takes the offered beat this cycle."},
        {"input", group * b, "idx_data_i",
         fmt::format("The beat: position p = c*{} + i (counter c, input i) at [p*IndexBits +: "
                     "IndexBits], channel beat*Positions + p of the row; index {{ia, iw}}, "
                     "activation bits high.",
                     inputs),
         "Positions*IndexBits"},
        {"input", group, "idx_mask_i",
         "Position p is counted when bit p is set; positions at or beyond K in the row's last "
         "beat are never counted.",
         "Positions"},
        {"output", 0, "cnt_valid_o", "A chunk of a row's counts is presented."},
        {"input", 0, "cnt_ready_i",
         "The consumer (the MAC tree) takes the presented chunk this cycle."},
        sym ? Port{"output", t * d.count_data_bits, "cnt_data_o",
                   fmt::format("The chunk: the signed count of magnitude cnt_chunk_o*ChunkCounts "
                               "+ t at [t*DataBits +: DataBits], two's complement (0 beyond "
                               "magnitude {}).",
                               mags - 1),
                   "ChunkCounts*DataBits"}
            : Port{"output", t * w, "cnt_data_o",
                   fmt::format("The chunk: count of entry cnt_chunk_o*ChunkCounts + t at "
                               "[t*CountBits +: CountBits] (0 beyond entry {}).",
                               entries - 1),
                   "ChunkCounts*CountBits"},
        {"output", chw, "cnt_chunk_o",
         fmt::format("Which chunk of the row is presented, 0 .. {}.", chunks - 1), "ChunkBits"},
        {"output", 0, "cnt_last_o", "The presented chunk is the row's last."}};
  }

  // The module's documentation.
  std::string doc() const {
    return fmt::format(
        "Concat Unit / Index Counter array of one PE line (paper IV-B, docs/spec.md section "
        "6): {0} Index Counters of {1} inputs count {2} concatenated {3}-bit indices "
        "{{ia, iw}} a beat. Each index is decoded once (activation and weight index one-hot, "
        "one AND per entry); each entry's count of the beat is one tree of full and half "
        "adders over all {2} positions (under the macro {10}, for simulation speed, one loop "
        "over the positions and one adder per entry, the same counts). A row of K = {4} "
        "indices is {5} beat(s); its {6} "
        "counts ({7} bits each, so K equal indices fit) accumulate in the counting bank, move "
        "to the presenting bank with the row's last beat, and are presented {8} a cycle in "
        "{9} chunk(s) while the next row is counted. A row's last beat waits while the "
        "presenting bank still holds a row.{11}{12}{13}",
        counters, inputs, group, b, c.channels, beats, entries, w, t, chunks, kBehaviouralMacro,
        stage ? " An accepted beat is registered (the input stage) and counted from the "
                "register, a cycle later."
              : "",
        regs > 0 ? fmt::format(" The trees hold {} register(s), so a beat's counts reach the "
                               "counting bank {} cycle(s) after it enters them; the registers "
                               "move together and hold while a row's last beat at their end "
                               "waits for the presenting bank.",
                               regs, regs)
                 : "",
        sym ? fmt::format(
                  " The codebooks are symmetric about zero: an index is counted in its bin {{s, "
                  "ma, "
                  "mw}} (its product's sign, the XOR of the two indices' top bits, and the two "
                  "magnitudes, low bits inverted under a top bit of 0), {} bins, and a chunk "
                  "presents the signed counts of {} magnitudes, positive bin less negative bin, "
                  "in two's complement.",
                  entries, mags)
            : "");
  }

  // The header's figures, the ports, and the figures of the body.
  void header(SvModule& m) const {
    m.header_localparam("Positions", group, "Positions a beat, C*I.")
        .header_localparam("ActBits", c.act_bits,
                           "Bits of an activation index (the high bits of a concatenated index).")
        .header_localparam("WeightBits", c.weight_bits, "Bits of a weight index (the low bits).")
        .header_localparam("IndexBits", "ActBits + WeightBits", "Bits of a concatenated index.")
        .header_localparam("CountBits", w, "Bits of an entry's count of a row, $clog2(K + 1).");
    if (sym) {
      m.header_localparam("DataBits", "CountBits + 1",
                          "Bits of a presented count: signed, two's complement.");
    }
    m.header_localparam("ChunkCounts", t, "Counts presented a cycle, T.")
        .header_localparam("ChunkBits", chw, "Bits of a chunk number.");
    m.ports(ports());
    if (sym) {
      m.localparam("BinBits", "IndexBits - 1",
                   "Bits of a bin: {product sign, activation magnitude, weight magnitude}.");
      m.localparam("BinWeightBits", "WeightBits - 1",
                   "Bits of a weight magnitude (a bin's low bits).");
      m.localparam("Entries", "1 << BinBits", "Bins counted, 2^BinBits.");
      m.localparam(
          "Magnitudes", "Entries / 2",
          "Magnitudes presented: bin m counts positive products, Magnitudes + m negative.");
    } else {
      m.localparam("Entries", "1 << IndexBits", "Entries counted, 2^IndexBits.");
    }
    m.localparam("BeatCountBits", sw, "Bits of an entry's count of a beat, $clog2(Positions + 1).");
    m << "\n";
  }

  // The trees' registers: where they are, and the valid and row-position bits that go along
  // with the counts in them.
  void flights(SvModule& m) const {
    if (regs == 0) return;
    m.localparam("TreeRegisters", regs, "Registers in each tree (index_counter_tree_registers).");
    m << "  /// Register r of the trees holds a beat (valid) and the beat is its row's last.\n"
         "  logic [TreeRegisters-1:0] flight_valid_q, flight_last_q;\n";
    if (beats > 1) {
      m << "  /// Register r's beat is its row's first (the counting bank starts from zero).\n"
           "  logic [TreeRegisters-1:0] flight_first_q;\n";
    }
    m << "  /// The trees' registers move: their end is empty, or its beat enters the counting "
         "bank.\n"
         "  logic advance;\n"
         "  /// The beat at the trees' end enters the counting bank.\n"
         "  logic retire;\n\n";
  }

  // The trees' registers' valid and row-position bits, moving with `advance`.
  std::string flight_registers() const {
    if (regs == 0) return "";
    std::vector<Reg> held = {{"flight_last_q", "TreeRegisters'({flight_last_q, last_beat})"}};
    if (beats > 1) {
      held.push_back({"flight_first_q", "TreeRegisters'({flight_first_q, beat_q == '0})"});
    }
    return registers({{"flight_valid_q", "TreeRegisters'({flight_valid_q, accept})", "'0"}}, "  ",
                     "advance") +
           "  // Read only while flight_valid_q is set: no reset.\n" +
           data_registers(held, "  ", "advance");
  }

  // The input stage: the accepted beat, registered.
  void input_stage(SvModule& m) const {
    if (!stage) return;
    m << "  /// The input stage: the accepted beat, registered before the decoders and trees; it\n"
         "  /// takes a beat while empty or while the one it holds is counted.\n"
         "  logic in_valid_q;\n"
         "  logic [Positions*IndexBits-1:0] in_data_q;\n"
         "  logic [Positions-1:0] in_mask_q;\n"
         "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) begin\n"
         "      in_valid_q <= 1'b0;\n"
         "    end else if (idx_valid_i && idx_ready_o) begin\n"
         "      in_valid_q <= 1'b1;\n"
         "    end else if (accept) begin\n"
         "      in_valid_q <= 1'b0;\n"
         "    end\n"
         "  end\n"
         "  // The beat is data, read only while in_valid_q is set: no reset.\n"
      << data_registers({{"in_data_q", "idx_data_i"}, {"in_mask_q", "idx_mask_i"}}, "  ",
                        "idx_valid_i && idx_ready_o")
      << "\n";
  }

  // Which positions count: the input mask and the row's extent; the beat of the row.
  void extent(SvModule& m) const {
    m << "  /// Positions counted this beat: the input mask and the row's extent.\n"
         "  logic [Positions-1:0] count_mask;\n"
         "  /// The beat is the row's last.\n"
         "  logic last_beat;\n";
    if (beats > 1) {
      m.localparam("Beats", beats, "Beats a row, ceil(K / Positions).");
      m.localparam("BeatBits", bw, "Bits of a beat number.");
      m << "  /// Beat of the row the next accepted beat is, 0 .. Beats - 1.\n"
           "  logic [BeatBits-1:0] beat_d, beat_q;\n"
           "  assign last_beat = beat_q == BeatBits'(Beats - 1);\n";
      m.op("eq", "BeatBits", "last_beat");
    } else {
      m << "  assign last_beat = 1'b1;  // a row is one beat\n";
    }
    if (partial) {
      std::vector<bool> in_row(static_cast<size_t>(group));
      for (int p = 0; p < group; ++p) in_row[size_t(p)] = index_counter_in_row(c, beats - 1, p);
      // The first position beyond K counts too.
      if (mutated("index_counter_array.extent_one_beyond")) {
        in_row[size_t(c.channels - int64_t(beats - 1) * group)] = true;
      }
      m << fmt::format(
          "  /// Positions of the last beat that hold channels below K.\n"
          "  localparam logic [Positions-1:0] LastBeatMask = {};\n"
          "  assign count_mask = last_beat ? ({} & LastBeatMask) : {};\n\n",
          hex_mask(group, in_row), mask, mask);
    } else {
      m << fmt::format("  assign count_mask = {};\n\n", mask);
    }
  }

  // Where the decoders read a position's index: the beat, or with symmetric codebooks its bin.
  std::string source() const { return sym ? "folded" : data; }
  std::string source_bits() const { return sym ? "BinBits" : "IndexBits"; }

  // Symmetric codebooks: each position's bin, {s, ma, mw}. The mirror of centroid i is
  // 2^n - 1 - i, all bits inverted, so an index with its top bit 0 takes its low bits
  // inverted as its magnitude; the product is negative when exactly one top bit is 1.
  void fold(SvModule& m) const {
    if (!sym) return;
    m << "  /// Each position's bin, {product sign, activation magnitude, weight magnitude}, at\n"
         "  /// [p*BinBits +: BinBits].\n"
         "  logic [Positions*BinBits-1:0] folded;\n"
      << loop_open("p", group, "g_fold", "Positions")
      << fmt::format(
             "    logic act_top, weight_top;\n"
             "    assign act_top = {0}[p*IndexBits + IndexBits - 1];\n"
             "    assign weight_top = {0}[p*IndexBits + WeightBits - 1];\n"
             "    assign folded[p*BinBits +: BinBits] = {{\n"
             "        {1},\n"
             "        {0}[p*IndexBits + WeightBits +: ActBits - 1] ^ {{(ActBits - "
             "1){{!act_top}}}},\n"
             "        {0}[p*IndexBits +: BinWeightBits] ^ {{BinWeightBits{{!weight_top}}}}}};\n",
             data,
             // A bug on purpose (gen/mutation.hpp), for the check that must catch it.
             mutated("index_counter_array.fold_sign_dropped") ? "act_top" : "act_top ^ weight_top")
      << loop_close(group) << "\n";
    m.op("xor", "BinBits", "folded", std::to_string(group));
  }

  // This beat's counts and the row's, as compressor trees and counting-bank adders of full and
  // half adders (what synthesis reads, and what the records hold), or behaviourally for
  // simulation speed.
  void counting(SvModule& m, const std::string& tree, const std::string& add) const {
    m << "  /// The row's counts including this beat, entry e at [e*CountBits +: CountBits] (at "
         "most\n"
         "  /// K).\n"
         "  logic [Entries*CountBits-1:0] row_counts;\n";
    if (beats > 1) {
      m << "  /// The counting bank: the row's counts before the current beat.\n"
           "  logic [Entries*CountBits-1:0] acc_d, acc_q;\n"
           "  /// What this beat adds to: the counting bank, zero on a row's first beat.\n"
           "  logic [Entries*CountBits-1:0] acc_in;\n" +
               std::string(regs > 0 ? "  assign acc_in = flight_first_q[TreeRegisters-1] ? '0 : "
                                      "acc_q;\n"
                                    : "  assign acc_in = beat_q == '0 ? '0 : acc_q;\n");
      if (regs == 0) m.op("eq", "BeatBits", "acc_in");
    }
    m << "\n" << fmt::format("`ifdef {}\n", kBehaviouralMacro) << behavioural() << "`else\n";
    structural(m, tree, add);
    m << "`endif\n\n";
  }

  // The behavioural form: one loop over the positions, one adder per entry (each at a constant
  // offset: in a loop with a variable offset, Verilator rewrites the whole vector per entry).
  std::string behavioural() const {
    std::string s = fmt::format(
        "  /// Entry e's count of the beat.\n"
        "  logic [BeatCountBits-1:0] bin_count [Entries];\n"
        "  always_comb begin\n"
        "    for (int e = 0; e < Entries; e++) bin_count[e] = '0;\n"
        "    for (int p = 0; p < Positions; p++) begin\n"
        "      if (count_mask[p]) begin\n"
        "        bin_count[{0}[p*{2} +: {2}]] =\n"
        "            bin_count[{0}[p*{2} +: {2}]] + BeatCountBits'(1);\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "{1}"
        "  for (genvar e = 0; e < Entries; e++) begin : g_bin\n",
        source(),
        regs > 0 ? "  /// The beat's counts, entry e at [e*BeatCountBits +: BeatCountBits].\n"
                   "  logic [Entries*BeatCountBits-1:0] bin_counts;\n"
                 : "",
        source_bits());
    if (regs > 0) {
      // The counts go through as many registers as the trees hold.
      s += "    assign bin_counts[e*BeatCountBits +: BeatCountBits] = bin_count[e];\n"
           "  end\n"
           "  /// The beat's counts through the registers the trees hold, data read only while\n"
           "  /// flight_valid_q says so: no reset.\n"
           "  for (genvar r = 0; r < TreeRegisters; r++) begin : g_flight\n"
           "    logic [Entries*BeatCountBits-1:0] counts_q;\n"
           "    if (r == 0) begin : g_first\n"
           "      always_ff @(posedge clk_i) begin\n"
           "        if (advance) counts_q <= bin_counts;\n"
           "      end\n"
           "    end else begin : g_next\n"
           "      always_ff @(posedge clk_i) begin\n"
           "        if (advance) counts_q <= g_flight[r-1].counts_q;\n"
           "      end\n"
           "    end\n"
           "  end\n"
           "  for (genvar e = 0; e < Entries; e++) begin : g_entry\n";
      const std::string count =
          "CountBits'(g_flight[TreeRegisters-1].counts_q[e*BeatCountBits +: BeatCountBits])";
      s += beats > 1 ? "    assign row_counts[e*CountBits +: CountBits] =\n"
                       "        acc_in[e*CountBits +: CountBits] +\n"
                       "        " +
                           count + ";\n"
                     : "    assign row_counts[e*CountBits +: CountBits] =\n"
                       "        " +
                           count + ";\n";
      return s + "  end\n";
    }
    s += beats > 1
             ? "    assign row_counts[e*CountBits +: CountBits] =\n"
               "        acc_in[e*CountBits +: CountBits] + CountBits'(bin_count[e]);\n"
             : "    assign row_counts[e*CountBits +: CountBits] = CountBits'(bin_count[e]);\n";
    return s + "  end\n";
  }

  // The structural form: the decoders and each entry's hits, the trees, the counting bank's
  // adders.
  void structural(SvModule& m, const std::string& tree, const std::string& add) const {
    m << (sym ? "  /// Bin e's hits of the beat, position p at [e*Positions + p]: p counts and its "
                "index\n  /// folds to e.\n"
              : "  /// Entry e's hits of the beat, position p at [e*Positions + p]: p counts and "
                "holds e.\n")
      << "  logic [Entries*Positions-1:0] hits;\n"
      << loop_open("p", group, "g_position", "Positions")
      << fmt::format(
             "    /// The position's activation index one-hot; zero when the position does not "
             "count.\n"
             "    logic [(1 << ActBits)-1:0] act_onehot;\n"
             "    /// Its weight index one-hot.\n"
             "    logic [(1 << {2})-1:0] weight_onehot;\n"
             "    for (genvar a = 0; a < (1 << ActBits); a++) begin : g_act\n"
             "      assign act_onehot[a] =\n"
             "          count_mask[p] && {0}[p*{1} + {2} +: ActBits] == "
             "ActBits'(a);\n"
             "    end\n"
             "    for (genvar v = 0; v < (1 << {2}); v++) begin : g_weight\n"
             "      assign weight_onehot[v] = {0}[p*{1} +: {2}] == {2}'(v);\n"
             "    end\n"
             "    for (genvar e = 0; e < Entries; e++) begin : g_entry\n"
             "      assign hits[e*Positions + p] =\n"
             "          act_onehot[e >> {2}] && weight_onehot[e % (1 << {2})];\n"
             "    end\n",
             source(), source_bits(), sym ? "BinWeightBits" : "WeightBits")
      << loop_close(group) << "\n";
    m.op("eq", "ActBits", "act_onehot", std::to_string(group << c.act_bits));
    m.op("eq", sym ? "BinWeightBits" : "WeightBits", "weight_onehot",
         std::to_string(group << (c.weight_bits - (sym ? 1 : 0))));

    // The trees.
    if (regs > 0) {
      std::vector<bool> cut(64, false);
      for (int s : ict.tree_cuts) cut[size_t(s)] = true;
      // The first register passes its stage's bits through.
      if (mutated("index_counter_array.tree_register_missing")) {
        cut[size_t(ict.tree_cuts[0])] = false;
      }
      m << fmt::format(
          "  /// Bit s set: a register on the trees' stage s (of {}), from the delay model\n"
          "  /// (docs/index_counter.md, Registers in the counting trees).\n"
          "  localparam logic [63:0] TreeCuts = {};\n",
          ict.tree_stages, hex_mask(64, cut));
    }
    m << "  /// This beat's count of entry e at [e*BeatCountBits +: BeatCountBits].\n"
         "  logic [Entries*BeatCountBits-1:0] beat_counts;\n"
         "  for (genvar e = 0; e < Entries; e++) begin : g_tree\n";
    std::vector<std::pair<std::string, std::string>> ports, params = {{"Inputs", "Positions"}};
    if (regs > 0) {
      ports = {{"clk_i", "clk_i"}, {"en_i", "advance"}};
      params.push_back({"Cuts", "TreeCuts"});
    }
    ports.push_back({"bits_i", "hits[e*Positions +: Positions]"});
    ports.push_back({"count_o", "beat_counts[e*BeatCountBits +: BeatCountBits]"});
    m.inst(tree, "u_tree", ports, "    ", params, std::to_string(entries));
    m << "  end\n\n";

    // The counting bank's adders.
    m << "  for (genvar e = 0; e < Entries; e++) begin : g_accumulate\n";
    if (beats > 1) {
      m.inst(add, "u_add",
             {{"a_i", "acc_in[e*CountBits +: CountBits]"},
              {"b_i", "beat_counts[e*BeatCountBits +: BeatCountBits]"},
              {"sum_o", "row_counts[e*CountBits +: CountBits]"}},
             "    ", {{"Width", "CountBits"}, {"AddendWidth", "BeatCountBits"}},
             std::to_string(entries));
    } else {
      m << "    assign row_counts[e*CountBits +: CountBits] =\n"
           "        CountBits'(beat_counts[e*BeatCountBits +: BeatCountBits]);\n";
    }
    m << "  end\n";
  }

  // The presenting bank's signals, and the handshakes.
  void presenting(SvModule& m) const {
    m << "  /// The presenting bank: the chunk presented in the low bits, the rest above it.\n";
    m.localparam("Chunks", chunks,
                 "Chunks a row, ceil(Entries / ChunkCounts); the bank holds whole chunks.");
    if (sym) {
      m.localparam(
          "BankBits", "Chunks*2*ChunkCounts*CountBits",
          "Bits of the presenting bank: a chunk's positive counts, then its negative ones.");
    } else {
      m.localparam("BankBits", "Chunks*ChunkCounts*CountBits", "Bits of the presenting bank.");
    }
    m << "  logic [BankBits-1:0] out_d, out_q;\n"
         "  logic out_valid_d, out_valid_q;\n";
    if (chunks > 1) m << "  logic [ChunkBits-1:0] chunk_d, chunk_q;\n";
    m << (stage && regs == 0 ? "  logic accept, load_out, taken, out_free, count_ready;\n\n"
                             : "  logic accept, load_out, taken, out_free;\n\n");
    if (chunks > 1) {
      m << "  assign cnt_last_o  = chunk_q == ChunkBits'(Chunks - 1);\n"
           "  assign cnt_chunk_o = chunk_q;\n";
      m.op("eq", "ChunkBits", "cnt_last_o");
    } else {
      m << "  assign cnt_last_o  = 1'b1;\n"
           "  assign cnt_chunk_o = 1'b0;\n";
    }
    if (sym) signed_counts(m);
    m << "  assign cnt_valid_o = out_valid_q;\n"
      << (sym ? "" : "  assign cnt_data_o  = out_q[ChunkCounts*CountBits-1:0];\n")
      << "  assign taken       = out_valid_q && cnt_ready_i;\n"
         "  assign out_free    = !out_valid_q || (cnt_ready_i && cnt_last_o);\n";

    if (regs > 0) {
      m << "  assign advance     = !flight_valid_q[TreeRegisters-1] ||\n"
           "                       !flight_last_q[TreeRegisters-1] || out_free;\n"
        << (stage ? "  assign idx_ready_o = !in_valid_q || advance;\n"
                    "  assign accept      = in_valid_q && advance;\n"
                  : "  assign idx_ready_o = advance;\n"
                    "  assign accept      = idx_valid_i && idx_ready_o;\n")
        << "  assign retire      = advance && flight_valid_q[TreeRegisters-1];\n"
           "  assign load_out    = retire && flight_last_q[TreeRegisters-1];\n\n";
      return;
    }
    if (stage) {
      m << "  assign count_ready = !last_beat || out_free;\n"
           "  assign idx_ready_o = !in_valid_q || count_ready;\n"
           "  assign accept      = in_valid_q && count_ready;\n";
    } else {
      m << "  assign idx_ready_o = !last_beat || out_free;\n"
           "  assign accept      = idx_valid_i && idx_ready_o;\n";
    }
    m << "  assign load_out    = accept && last_beat;\n\n";
  }

  // Symmetric codebooks: the row's counts as the presenting bank takes them (each chunk's
  // positive counts, then its negative ones), and each presented lane's signed count, positive
  // less negative, in two's complement: a subtractor's outputs, which nothing inside reads back
  // (an output in sign and magnitude would feed its own sign bit into its magnitude, one vector
  // that a gate-level netlist presents to Verilator as a combinational loop).
  void signed_counts(SvModule& m) const {
    m << "  /// A row's counts as the presenting bank takes them: chunk c's positive counts, then "
         "its\n"
         "  /// negative ones, at [c*2*ChunkCounts*CountBits +: 2*ChunkCounts*CountBits].\n"
         "  logic [BankBits-1:0] bank_load;\n"
         "  for (genvar n = 0; n < Chunks*ChunkCounts; n++) begin : g_load\n"
         "    /// Where magnitude n's positive count goes in the bank.\n"
         "    localparam int Lane = (n / ChunkCounts)*2*ChunkCounts + n % ChunkCounts;\n"
         "    if (n < Magnitudes) begin : g_count\n"
         "      assign bank_load[Lane*CountBits +: CountBits] = row_counts[n*CountBits +: "
         "CountBits];\n"
         "      assign bank_load[(Lane + ChunkCounts)*CountBits +: CountBits] =\n"
         "          row_counts[(Magnitudes + n)*CountBits +: CountBits];\n"
         "    end else begin : g_pad\n"
         "      assign bank_load[Lane*CountBits +: CountBits] = '0;\n"
         "      assign bank_load[(Lane + ChunkCounts)*CountBits +: CountBits] = '0;\n"
         "    end\n"
         "  end\n";
    m << "  for (genvar t = 0; t < ChunkCounts; t++) begin : g_signed\n"
         "    /// The lane's counts of positive and of negative products.\n"
         "    logic [CountBits-1:0] positive, negative;\n"
         "    assign positive = out_q[t*CountBits +: CountBits];\n"
         "    assign negative = out_q[(ChunkCounts + t)*CountBits +: CountBits];\n"
         "    assign cnt_data_o[t*DataBits +: DataBits] = {1'b0, positive} - {1'b0, negative};\n"
         "  end\n";
    m.op("sub", w + 1, "cnt_data_o", t);
  }

  // The banks' and counters' next state and their registers: a row's counts into the presenting
  // bank (zero-extended to whole chunks), the bank a chunk on.
  void banks(SvModule& m) const {
    std::string s = "  always_comb begin\n";
    s += "    out_d       = out_q;\n    out_valid_d = out_valid_q;\n";
    if (chunks > 1) s += "    chunk_d     = chunk_q;\n";
    if (beats > 1) s += "    acc_d       = acc_q;\n    beat_d      = beat_q;\n";
    s += "    if (taken) begin\n";
    if (chunks > 1) {
      s += sym ? "      out_d   = out_q >> 2*ChunkCounts*CountBits;\n"
               : "      out_d   = out_q >> ChunkCounts*CountBits;\n";
      s += "      chunk_d = cnt_last_o ? '0 : chunk_q + ChunkBits'(1);\n";
      m.op("add", "ChunkBits", "chunk_d");
    }
    s += "      if (cnt_last_o) out_valid_d = 1'b0;\n    end\n";
    s += "    if (accept) begin\n";
    if (beats > 1) {
      if (regs == 0) s += "      acc_d  = row_counts;\n";
      s += "      beat_d = last_beat ? '0 : beat_q + BeatBits'(1);\n";
      m.op("add", "BeatBits", "beat_d");
    }
    s += "    end\n";
    if (beats > 1 && regs > 0) {
      s += "    if (retire) acc_d = row_counts;\n";
      m.op("eq", "BeatBits", "flight_first_q");  // the beat entering is its row's first
    }
    s += "    if (load_out) begin\n";
    s += sym                  ? "      out_d       = bank_load;\n"
         : bank > entries * w ? "      out_d       = BankBits'(row_counts);\n"
                              : "      out_d       = row_counts;\n";
    s += "      out_valid_d = 1'b1;\n";
    if (chunks > 1) s += "      chunk_d     = '0;\n";
    s += "    end\n  end\n\n";
    m << s;

    std::vector<Reg> state = {{"out_valid_q", "out_valid_d", "1'b0"}};
    if (chunks > 1) state.push_back({"chunk_q", "chunk_d"});
    if (beats > 1) state.push_back({"beat_q", "beat_d"});
    m << registers(state);
    // The banks are data: the presenting bank is read only while out_valid_q is set, the
    // counting bank only after a row's first beat, so neither needs a reset.
    std::vector<Reg> held = {{"out_q", "out_d"}};
    if (beats > 1) held.push_back({"acc_q", "acc_d"});
    m << data_registers(held) << flight_registers();
  }

  // The block's figures in the manifest.
  void manifest(nlohmann::ordered_json& m) const {
    m["input_stage"] = ict.input_stage;
    m["tree_stages"] = ict.tree_stages;
    m["tree_registers"] = regs;
    m["tree_register_stages"] = ict.tree_cuts;
    // The estimates to 0.01 FO4.
    nlohmann::ordered_json fo4 = nlohmann::ordered_json::array();
    for (double x : ict.counting_stage_fo4) fo4.push_back(std::round(x * 100) / 100);
    m["counting_stage_fo4"] = fo4;
    m["latency_cycles"] = ict.latency;
    m["row_interval_cycles"] = ict.row_interval;
    m["beats_per_row"] = beats;
    m["chunks_per_row"] = chunks;
    m["indices_per_cycle"] = group;
    m["count_bits"] = w;
    m["beat_count_bits"] = sw;
    m["count_registers_bits"] = (beats > 1 ? entries * w : 0) + bank;
    // Adder cells: one tree an entry, and one counting-bank adder an entry when a row is
    // several beats; the floor is that of the beat's count, popcount_adder_floor(C*I).
    const AdderCells tree_cells = index_counter_tree_adders(c);
    const AdderCells acc_cells = index_counter_accumulator_adders(c);
    m["tree_full_adders"] = tree_cells.full;
    m["tree_half_adders"] = tree_cells.half;
    m["tree_adder_floor"] = popcount_adder_floor(group);
    m["accumulator_full_adders"] = acc_cells.full;
    m["accumulator_half_adders"] = acc_cells.half;
    m["full_adders"] = entries * (tree_cells.full + acc_cells.full);
    m["half_adders"] = entries * (tree_cells.half + acc_cells.half);
  }
};

class IndexCounterArrayBlock final : public Block {
 public:
  std::string name() const override { return "index_counter_array"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const std::string module = module_name(c, name());
    const std::string tree = module + "_tree";
    const std::string add = module + "_add";
    const CounterArray a(c);

    out.files.push_back(tree_module(tree, a.regs > 0));
    if (a.beats > 1) out.files.push_back(add_module(add));

    SvModule m(module, a.doc());
    a.header(m);
    a.input_stage(m);
    a.flights(m);
    a.extent(m);
    a.fold(m);
    a.counting(m, tree, add);
    a.presenting(m);
    a.banks(m);
    out.files.push_back(m.file());
    a.manifest(out.manifest);
    return out;
  }
};

OASIS_REGISTER_BLOCK(IndexCounterArrayBlock);

}  // namespace
}  // namespace oasis::gen::index_counter_parts
