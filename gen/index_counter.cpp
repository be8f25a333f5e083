// The Concat Unit / Index Counter array of a PE line (paper IV-B, SPEC
// section 6), block index_counter_array: C Index Counters of I inputs count
// C*I concatenated indices a beat, a row's counts accumulate over
// ceil(K / (C*I)) beats, and the finished row is presented T counts a cycle
// from a second bank while the next row is counted.
// Cycle model: model/index_counter.hpp. Test: verif/tb/index_counter_array_tb.cpp.
// Interface and timing: docs/index_counter.md.
#include <fmt/format.h>

#include "gen/block.hpp"
#include "model/index_counter.hpp"

namespace oasis::gen {
namespace {

// One Index Counter: I indices in, one-hot decode, column popcounts out.
std::string counter_module(const Config& c, const std::string& module) {
  const int b = c.act_bits + c.weight_bits;
  const int entries = 1 << b;
  const int inputs = c.counter_inputs;
  const int cw = clog2(int64_t(inputs) + 1);
  return fmt::format(
      "/// Index Counter (paper IV-B): {0} concatenated {1}-bit indices in, each decoded to a\n"
      "/// one-hot row of {2} columns; column e's popcount is how many of the valid inputs are e.\n"
      "/// Combinational.\n"
      "module {3} (\n"
      "  /// The indices: input i at [i*{1} +: {1}].\n"
      "  input  logic [{4}:0] idx_i,\n"
      "  /// Input i is counted when bit i is set.\n"
      "  input  logic [{5}:0] valid_i,\n"
      "  /// Column counts, {6} bits each: entry e at [e*{6} +: {6}].\n"
      "  output logic [{7}:0] count_o\n"
      ");\n\n"
      "  /// The one-hot matrix, column-major: input i decodes to entry e at [e*{0} + i].\n"
      "  logic [{8}:0] onehot;\n\n"
      "  always_comb begin\n"
      "    onehot = '0;\n"
      "    for (int e = 0; e < {2}; e++) begin\n"
      "      for (int i = 0; i < {0}; i++) begin\n"
      "        onehot[e*{0} + i] = valid_i[i] && (idx_i[i*{1} +: {1}] == {1}'(e));\n"
      "      end\n"
      "    end\n"
      "  end\n\n"
      "  for (genvar e = 0; e < {2}; e++) begin : g_column\n"
      "    assign count_o[e*{6} +: {6}] = {6}'($countones(onehot[e*{0} +: {0}]));\n"
      "  end\n\n"
      "endmodule\n",
      inputs, b, entries, module, inputs * b - 1, inputs - 1, cw, entries * cw - 1,
      entries * inputs - 1);
}

std::string hex_mask(int width, const std::vector<bool>& bits) {
  std::string h;
  for (int d = (width + 3) / 4 - 1; d >= 0; --d) {
    int v = 0;
    for (int k = 0; k < 4; ++k) {
      const int bit = d * 4 + k;
      if (bit < width && bits[size_t(bit)]) v |= 1 << k;
    }
    h += "0123456789abcdef"[v];
  }
  return fmt::format("{}'h{}", width, h);
}

class IndexCounterArrayBlock final : public Block {
 public:
  std::string name() const override { return "index_counter_array"; }

  BlockOutput emit(const Config& c) const override {
    BlockOutput out;
    const std::string module = module_name(c, name());
    const std::string counter = module + "_counter";
    out.files.push_back({counter + ".sv", counter_module(c, counter)});

    const int b = c.act_bits + c.weight_bits;
    const int entries = 1 << b;
    const int counters = c.index_counters;
    const int inputs = c.counter_inputs;
    const int group = counters * inputs;
    const int t = c.mac_tree_inputs;
    const int w = index_counter_count_bits(c);
    const int cw = clog2(int64_t(inputs) + 1);
    const int sw = clog2(int64_t(group) + 1);
    const int beats = index_counter_beats_per_row(c);
    const int chunks = index_counter_chunks_per_row(c);
    const int bw = clog2(beats);
    const int chw = std::max(1, clog2(chunks));
    const int bank = chunks * t * w;  // presenting bank, padded to whole chunks
    const bool partial = int64_t(beats) * group > c.channels;

    std::string s = fmt::format(
        "/// Concat Unit / Index Counter array of one PE line (paper IV-B, SPEC section 6): {0}\n"
        "/// Index Counters of {1} inputs count {2} concatenated {3}-bit indices {{ia, iw}} a beat;\n"
        "/// a row of K = {4} indices is {5} beat(s); its {6} counts ({7} bits each, so K equal\n"
        "/// indices fit) accumulate in the counting bank, move to the presenting bank with the\n"
        "/// row's last beat, and are presented {8} a cycle in {9} chunk(s) while the next row is\n"
        "/// counted. A row's last beat waits while the presenting bank still holds a row.\n"
        "module {10} (\n"
        "  /// Clock.\n"
        "  input  logic clk_i,\n"
        "  /// Asynchronous reset, active low.\n"
        "  input  logic rst_ni,\n"
        "  /// A beat of indices is offered.\n"
        "  input  logic idx_valid_i,\n"
        "  /// The array takes the offered beat this cycle.\n"
        "  output logic idx_ready_o,\n"
        "  /// The beat: position p = c*{1} + i (counter c, input i) at [p*{3} +: {3}], channel\n"
        "  /// beat*{2} + p of the row; index {{ia, iw}}, activation bits high.\n"
        "  input  logic [{11}:0] idx_data_i,\n"
        "  /// Position p is counted when bit p is set; positions at or beyond K in the row's last\n"
        "  /// beat are never counted.\n"
        "  input  logic [{12}:0] idx_mask_i,\n"
        "  /// A chunk of a row's counts is presented.\n"
        "  output logic cnt_valid_o,\n"
        "  /// The consumer (the MAC tree) takes the presented chunk this cycle.\n"
        "  input  logic cnt_ready_i,\n"
        "  /// The chunk: count of entry cnt_chunk_o*{8} + t at [t*{7} +: {7}] (0 beyond entry {13}).\n"
        "  output logic [{14}:0] cnt_data_o,\n"
        "  /// Which chunk of the row is presented, 0 .. {15}.\n"
        "  output logic [{16}:0] cnt_chunk_o,\n"
        "  /// The presented chunk is the row's last.\n"
        "  output logic cnt_last_o\n"
        ");\n\n",
        counters, inputs, group, b, c.channels, beats, entries, w, t, chunks, module,
        group * b - 1, group - 1, entries - 1, t * w - 1, chunks - 1, chw - 1);

    // Which positions count.
    s += fmt::format("  /// Positions counted this beat: the input mask and the row's extent.\n"
                     "  logic [{}:0] count_mask;\n", group - 1);
    s += "  /// The beat is the row's last.\n  logic last_beat;\n";
    if (beats > 1) {
      s += fmt::format("  /// Beat of the row the next accepted beat is, 0 .. {}.\n", beats - 1);
      s += fmt::format("  logic [{}:0] beat_d, beat_q;\n", bw - 1);
      s += fmt::format("  assign last_beat = beat_q == {}'d{};\n", bw, beats - 1);
    } else {
      s += "  assign last_beat = 1'b1;  // a row is one beat\n";
    }
    if (partial) {
      std::vector<bool> in_row(static_cast<size_t>(group));
      for (int p = 0; p < group; ++p) in_row[size_t(p)] = index_counter_in_row(c, beats - 1, p);
      s += fmt::format("  /// Positions of the last beat that hold channels below K.\n"
                       "  localparam logic [{}:0] LastBeatMask = {};\n",
                       group - 1, hex_mask(group, in_row));
      s += fmt::format("  assign count_mask = last_beat ? (idx_mask_i & LastBeatMask) : idx_mask_i;\n\n");
    } else {
      s += "  assign count_mask = idx_mask_i;\n\n";
    }

    // The counters and the column sums over them.
    s += fmt::format("  /// Counter c's column counts at [c*{} +: {}].\n", entries * cw, entries * cw);
    s += fmt::format("  logic [{}:0] counter_counts;\n", counters * entries * cw - 1);
    s += fmt::format("  for (genvar c = 0; c < {}; c++) begin : g_counter\n", counters);
    s += fmt::format("    {} u_counter (\n", counter);
    s += fmt::format("      .idx_i  (idx_data_i[c*{0} +: {0}]),\n", inputs * b);
    s += fmt::format("      .valid_i(count_mask[c*{0} +: {0}]),\n", inputs);
    s += fmt::format("      .count_o(counter_counts[c*{0} +: {0}])\n    );\n  end\n\n", entries * cw);
    s += fmt::format("  /// This beat's count of entry e at [e*{0} +: {0}], counters added in order.\n", sw);
    s += fmt::format("  logic [{}:0] beat_counts;\n", entries * sw - 1);
    s += "  always_comb begin\n    beat_counts = '0;\n";
    s += fmt::format("    for (int e = 0; e < {}; e++) begin\n", entries);
    s += fmt::format("      for (int c = 0; c < {}; c++) begin\n", counters);
    s += fmt::format("        beat_counts[e*{0} +: {0}] = beat_counts[e*{0} +: {0}] + {0}'(counter_counts[(c*{1} + e)*{2} +: {2}]);\n",
                     sw, entries, cw);
    s += "      end\n    end\n  end\n\n";

    // The counting bank.
    s += fmt::format("  /// The row's counts including this beat, entry e at [e*{0} +: {0}] (at most K).\n", w);
    s += fmt::format("  logic [{}:0] row_counts;\n", entries * w - 1);
    if (beats > 1) {
      s += "  /// The counting bank: the row's counts before the current beat.\n";
      s += fmt::format("  logic [{}:0] acc_d, acc_q;\n", entries * w - 1);
      s += fmt::format("  for (genvar e = 0; e < {}; e++) begin : g_accumulate\n", entries);
      s += fmt::format("    assign row_counts[e*{0} +: {0}] = (beat_q == '0 ? {0}'(0) : acc_q[e*{0} +: {0}]) + {0}'(beat_counts[e*{1} +: {1}]);\n",
                       w, sw);
      s += "  end\n\n";
    } else {
      s += fmt::format("  for (genvar e = 0; e < {}; e++) begin : g_accumulate\n", entries);
      s += fmt::format("    assign row_counts[e*{0} +: {0}] = {0}'(beat_counts[e*{1} +: {1}]);\n", w, sw);
      s += "  end\n\n";
    }

    // The presenting bank, shifted one chunk at a time.
    s += "  /// The presenting bank: the chunk presented in the low bits, the rest above it.\n";
    s += fmt::format("  logic [{}:0] out_d, out_q;\n", bank - 1);
    s += "  logic out_valid_d, out_valid_q;\n";
    if (chunks > 1) s += fmt::format("  logic [{}:0] chunk_d, chunk_q;\n", chw - 1);
    s += "  logic accept, load_out, taken, out_free;\n\n";
    s += chunks > 1 ? fmt::format("  assign cnt_last_o  = chunk_q == {}'d{};\n", chw, chunks - 1)
                    : "  assign cnt_last_o  = 1'b1;\n";
    s += chunks > 1 ? "  assign cnt_chunk_o = chunk_q;\n" : "  assign cnt_chunk_o = 1'b0;\n";
    s += "  assign cnt_valid_o = out_valid_q;\n";
    s += fmt::format("  assign cnt_data_o  = out_q[{}:0];\n", t * w - 1);
    s += "  assign taken       = out_valid_q && cnt_ready_i;\n";
    s += "  assign out_free    = !out_valid_q || (cnt_ready_i && cnt_last_o);\n";
    s += "  assign idx_ready_o = !last_beat || out_free;\n";
    s += "  assign accept      = idx_valid_i && idx_ready_o;\n";
    s += "  assign load_out    = accept && last_beat;\n\n";

    const std::string loaded = bank > entries * w
                                   ? fmt::format("{{{}'(0), row_counts}}", bank - entries * w)
                                   : std::string("row_counts");
    const std::string shifted =
        chunks > 1 ? fmt::format("{{{}'(0), out_q[{}:{}]}}", t * w, bank - 1, t * w) : "out_q";
    s += "  always_comb begin\n";
    s += "    out_d       = out_q;\n    out_valid_d = out_valid_q;\n";
    if (chunks > 1) s += "    chunk_d     = chunk_q;\n";
    if (beats > 1) s += "    acc_d       = acc_q;\n    beat_d      = beat_q;\n";
    s += "    if (taken) begin\n";
    if (chunks > 1) {
      s += fmt::format("      out_d   = {};\n", shifted);
      s += fmt::format("      chunk_d = cnt_last_o ? {0}'d0 : chunk_q + {0}'d1;\n", chw);
    }
    s += "      if (cnt_last_o) out_valid_d = 1'b0;\n    end\n";
    s += "    if (accept) begin\n";
    if (beats > 1) {
      s += "      acc_d  = row_counts;\n";
      s += fmt::format("      beat_d = last_beat ? {0}'d0 : beat_q + {0}'d1;\n", bw);
    }
    s += "    end\n";
    s += "    if (load_out) begin\n";
    s += fmt::format("      out_d       = {};\n", loaded);
    s += "      out_valid_d = 1'b1;\n";
    if (chunks > 1) s += fmt::format("      chunk_d     = {}'d0;\n", chw);
    s += "    end\n  end\n\n";

    s += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n    if (!rst_ni) begin\n";
    s += "      out_q       <= '0;\n      out_valid_q <= 1'b0;\n";
    if (chunks > 1) s += "      chunk_q     <= '0;\n";
    if (beats > 1) s += "      acc_q       <= '0;\n      beat_q      <= '0;\n";
    s += "    end else begin\n";
    s += "      out_q       <= out_d;\n      out_valid_q <= out_valid_d;\n";
    if (chunks > 1) s += "      chunk_q     <= chunk_d;\n";
    if (beats > 1) s += "      acc_q       <= acc_d;\n      beat_q      <= beat_d;\n";
    s += "    end\n  end\n\nendmodule\n";
    out.files.push_back({module + ".sv", s});

    out.manifest["latency_cycles"] = index_counter_latency(c);
    out.manifest["row_interval_cycles"] = index_counter_row_interval(c);
    out.manifest["beats_per_row"] = beats;
    out.manifest["chunks_per_row"] = chunks;
    out.manifest["indices_per_cycle"] = group;
    out.manifest["count_bits"] = w;
    out.manifest["counter_column_bits"] = cw;
    out.manifest["count_registers_bits"] = (beats > 1 ? entries * w : 0) + bank;
    return out;
  }
};

OASIS_REGISTER_BLOCK(IndexCounterArrayBlock);

}  // namespace
}  // namespace oasis::gen
