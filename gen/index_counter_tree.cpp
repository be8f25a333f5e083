// SPDX-License-Identifier: Apache-2.0
// The Index Counter array's counting modules (docs/index_counter.md): an entry's compressor
// tree of full and half adders over a beat's positions, with its schedule computed in the
// module, and the counting bank's adder. Adder counts: model/cycle/index_counter.hpp. The
// array: gen/index_counter.cpp.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "gen/index_counter_parts.hpp"
#include "gen/mutation.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::index_counter_parts {

namespace {

// A full adder (`full`) or a half adder of a compressor tree or an adder, `count` of them in the
// module: the instance, and its one-bit add (writing `at`) in the record of the module's
// operators.
void adder_cell(SvModule& m, bool full,
                const std::vector<std::pair<std::string, std::string>>& ports,
                const std::string& at, const std::string& indent, const std::string& count) {
  m.inst(full ? "oasis_fa" : "oasis_ha", full ? "u_fa" : "u_ha", ports, indent, {}, count);
  m.op("add", "1", at, count);
}

// The compressor tree's schedule, from its localparams to its stage count. It is computed inside
// the module from Inputs alone, so the generator instantiates the module with a number; its
// tables are localparams, computed once per Inputs (Yosys 0.23 evaluates a constant function
// slowly: one table-building call, then constant part-selects, keeps elaboration under a second
// for 512 inputs).
const char* const kTreeSchedule = R"SV(  /// Bits of one number in the schedule's tables.
  localparam int NumBits = 32;
  /// Stages the tables hold, more than the tree has (Inputs up to 65535 need at most
  /// 2.7 * Width: Compress + Width - 1); the stages after the tree's last change nothing.
  localparam int MaxStages = 3 * Width;
  /// Bits of the heights table: one number a column for each of stages 0 .. MaxStages.
  localparam int HeightsBits = (MaxStages + 1) * Width * NumBits;
  /// Bits of the offsets table: Width + 1 numbers for each of stages 0 .. MaxStages.
  localparam int OffsetsBits = (MaxStages + 1) * (Width + 1) * NumBits;

  // The schedule's functions run at elaboration only: no coverage points for them.
  /* verilator coverage_off */

  // The bits column j holds entering stage s, at [(s*Width + j)*NumBits +: NumBits]: the
  // compression stages while some column holds more than two bits, then the ripple stages.
  function automatic logic [HeightsBits-1:0] schedule_heights(input int inputs);
    int h, fulls, halves, carry, tallest, ripple;
    for (int e = 0; e < (MaxStages + 1) * Width; e++) begin
      schedule_heights[e*NumBits +: NumBits] = 0;
    end
    schedule_heights[NumBits-1:0] = inputs;
    ripple = -1;  // the column the ripple stage adds; -1 while compressing
    for (int s = 0; s < MaxStages; s++) begin
      tallest = 0;
      for (int j = 0; j < Width; j++) begin
        h = schedule_heights[(s*Width + j)*NumBits +: NumBits];
        if (h > tallest) tallest = h;
      end
      if (ripple >= 0 || tallest <= 2) ripple = ripple + 1;
      carry = 0;
      for (int j = 0; j < Width; j++) begin
        h = schedule_heights[(s*Width + j)*NumBits +: NumBits];
        fulls = ripple < 0 ? h / 3 : (j == ripple && h == 3 ? 1 : 0);
        halves = j == ripple && h == 2 ? 1 : 0;
        schedule_heights[((s+1)*Width + j)*NumBits +: NumBits] = h - 2*fulls - halves + carry;
        carry = fulls + halves;
      end
    end
  endfunction

  // Where column j starts in stage s's vector, at [(s*(Width+1) + j)*NumBits +: NumBits]; j =
  // Width gives the vector's width.
  function automatic logic [OffsetsBits-1:0] schedule_offsets(
      input logic [HeightsBits-1:0] heights);
    int sum;
    for (int s = 0; s <= MaxStages; s++) begin
      sum = 0;
      for (int j = 0; j <= Width; j++) begin
        schedule_offsets[(s*(Width+1) + j)*NumBits +: NumBits] = sum;
        if (j < Width) sum = sum + heights[(s*Width + j)*NumBits +: NumBits];
      end
    end
  endfunction

  // Compression stages: the first stage that no column enters with more than two bits.
  function automatic int compress_stages(input logic [HeightsBits-1:0] heights);
    int tallest;
    compress_stages = MaxStages;
    for (int s = MaxStages; s >= 0; s--) begin
      tallest = 0;
      for (int j = 0; j < Width; j++) begin
        if (heights[(s*Width + j)*NumBits +: NumBits] > tallest) begin
          tallest = heights[(s*Width + j)*NumBits +: NumBits];
        end
      end
      if (tallest <= 2) compress_stages = s;
    end
  endfunction

  /* verilator coverage_on */

  /// Bits of column j entering stage s, at [(s*Width + j)*NumBits +: NumBits].
  localparam logic [HeightsBits-1:0] Heights = schedule_heights(Inputs);
  /// Where column j starts in stage s's vector, at [(s*(Width+1) + j)*NumBits +: NumBits].
  localparam logic [OffsetsBits-1:0] Offsets = schedule_offsets(Heights);
  /// Compression stages.
  localparam int Compress = compress_stages(Heights);
  /// All stages: the compression, then the ripple through columns 0 .. Width - 2.
  localparam int Stages = Compress + Width - 1;

)SV";

// The tree's stages up to a column's full adders, and after its half adder.
const char* const kTreeStagesHead = R"SV(  if (Stages == 0) begin : g_wire
    assign count_o = bits_i;
  end else begin : g_tree
    for (genvar s = 0; s < Stages; s++) begin : g_stage
      /// The bits entering the stage, column after column.
      logic [Offsets[(s*(Width+1) + Width)*NumBits +: NumBits]-1:0] in;
      /// The bits it leaves: in each column the carries from the column under it, then its
      /// sums, then the bits it passes on.
      logic [Offsets[((s+1)*(Width+1) + Width)*NumBits +: NumBits]-1:0] out;
)SV";
// With registers in the tree: the stage's adders write `sum`, registered into `out` when the
// stage's bit of Cuts is set.
const char* const kTreeStagesSum =
    R"SV(      /// The stage's sums, carries and passed bits before its register (as `out`).
      logic [Offsets[((s+1)*(Width+1) + Width)*NumBits +: NumBits]-1:0] sum;
      if (Cuts[s]) begin : g_register
        // Data, read only while the beat's valid bit (outside the tree) is set: no reset.
        always_ff @(posedge clk_i) begin
          if (en_i) out <= sum;
        end
      end else begin : g_through
        assign out = sum;
      end
)SV";
const char* const kTreeStagesBody = R"SV(      if (s == 0) begin : g_first
        assign in = bits_i;
      end else begin : g_next
        assign in = g_tree.g_stage[s-1].out;
      end
      for (genvar j = 0; j < Width; j++) begin : g_column
        /// Bits of the column entering the stage.
        localparam int Height = Heights[(s*Width + j)*NumBits +: NumBits];
        /// Full adders on it: as many as fit in a compression stage; in its ripple stage,
        /// one on three bits.
        localparam int Fulls = s < Compress ? Height / 3
                                            : (j == s - Compress && Height == 3 ? 1 : 0);
        /// Half adders on it: in its ripple stage, one on two bits.
        localparam int Halves = s >= Compress && j == s - Compress && Height == 2 ? 1 : 0;
        /// Bits it passes on unchanged.
        localparam int Passes = Height - 3 * Fulls - 2 * Halves;
        /// Where the column starts in `in`.
        localparam int From = Offsets[(s*(Width+1) + j)*NumBits +: NumBits];
        /// Where its sums go in `out`: after the carries from the column under it.
        localparam int To = Offsets[((s+1)*(Width+1) + j)*NumBits +: NumBits]
                          + Heights[((s+1)*Width + j)*NumBits +: NumBits]
                          - Fulls - Halves - Passes;
        /// Where its carries go in `out`: the first bits of the column above.
        localparam int Up = Offsets[((s+1)*(Width+1) + j + 1)*NumBits +: NumBits];
        for (genvar k = 0; k < Fulls; k++) begin : g_full
)SV";
const char* const kTreeStagesEnd = R"SV(        end
      end
    end
    assign count_o = g_tree.g_stage[Stages-1].out;
  end
)SV";

}  // namespace

// One entry's count of a beat. The adder counts it gives are model/cycle/index_counter.hpp's
// index_counter_tree_adders. With `pipelined`, registers after the stages its parameter Cuts
// names (docs/index_counter.md, Registers in the counting trees).
SvFile tree_module(const std::string& name, bool pipelined) {
  SvModule m(name,
             std::string(
                 "Population count of Inputs bits (one entry's count of a beat) from full and half "
                 "adders only. Every bit starts in column 0 (weight 1); an adder takes bits of one "
                 "column and leaves its sum there and its carry in the column above. First "
                 "Compress stages of a Wallace tree of full adders, each putting h / 3 of them on "
                 "every column of h bits, bring every column down to at most two bits; then a "
                 "ripple-carry adder, one column a stage (Width - 1 stages), adds column 0, 1, ... "
                 "with the carry from below: a full adder on three bits, a half adder on two. "
                 "Column j holds floor(Inputs / 2^j) bits over the whole tree and ends with one, "
                 "so the tree has Inputs - Width full and Width - popcount(Inputs) half adders, "
                 "Inputs - popcount(Inputs) in all: the fewest an exact count built from them can "
                 "have. ") +
                 (pipelined ? "A register on the output of each stage s whose bit s of Cuts is "
                              "set, loaded when en_i is set: count_o follows bits_i by as many "
                              "cycles as Cuts has bits set."
                            : "Combinational."));
  m.param("Inputs", 16, "Bits counted, 1 .. 65535.");
  if (pipelined) {
    m.param("Cuts", "logic [63:0]", "64'h1",
            "Bit s set: a register on stage s's output (s below the tree's Stages, at most 63).");
  }
  m.param_localparam("Width", "$clog2(Inputs + 1)",
                     "Bits of the count: enough for Inputs set bits.");
  std::vector<Port> ports;
  if (pipelined) {
    ports = {{"input", 0, "clk_i", "Clock."}, {"input", 0, "en_i", "The registers load."}};
  }
  ports.push_back({"input", 0, "bits_i", "The bits counted.", "Inputs"});
  ports.push_back({"output", 0, "count_o", "How many of them are set.", "Width"});
  m.ports(ports);
  // The vector the stage's adders write.
  const std::string to = pipelined ? "sum" : "out";
  m << kTreeSchedule << kTreeStagesHead;
  if (pipelined) m << kTreeStagesSum;
  m << kTreeStagesBody;
  // Stage 1's first full adder of column 1 reads its first input, the carry from column 0 of
  // stage 0, as 0.
  const std::string a = mutated("index_counter_array.tree_carry_dropped")
                            ? "s == 1 && j == 1 && k == 0 ? 1'b0 : in[From + 3*k]"
                            : "in[From + 3*k]";
  adder_cell(m, true,
             {{"a_i", a},
              {"b_i", "in[From + 3*k + 1]"},
              {"c_i", "in[From + 3*k + 2]"},
              {"sum_o", to + "[To + k]"},
              {"carry_o", to + "[Up + k]"}},
             to, "          ", "Inputs - Width");
  m << "        end\n"
       "        if (Halves == 1) begin : g_half\n";
  adder_cell(m, false,
             {{"a_i", "in[From + 3*Fulls]"},
              {"b_i", "in[From + 3*Fulls + 1]"},
              {"sum_o", to + "[To + Fulls]"},
              {"carry_o", to + "[Up + Fulls]"}},
             to, "          ", "Width - $countones(Inputs)");
  m << "        end\n"
       "        if (Passes > 0) begin : g_pass\n"
    << fmt::format(
           "          assign {}[To + Fulls + Halves +: Passes] = in[From + 3*Fulls + 2*Halves +: "
           "Passes];\n",
           to)
    << kTreeStagesEnd;
  return m.file();
}

// The counting bank's adder for one entry. Its adder counts are model/cycle/index_counter.hpp's
// index_counter_accumulator_adders.
SvFile add_module(const std::string& name) {
  SvModule m(name,
             "The counting bank's adder: sum_o = a_i + b_i for an entry's count so far and its "
             "count of this beat; the caller knows the sum fits in Width bits. A ripple-carry "
             "adder: a half adder in column 0, full adders while b_i has bits, half adders for "
             "the carry above them; the top column forms no carry (its bits are XORed). "
             "Combinational.");
  m.param("Width", 8, "Bits of a_i and of the sum, at least 2.");
  m.param("AddendWidth", 5, "Bits of b_i, 1 .. Width.");
  m.ports({{"input", 0, "a_i", "The count so far.", "Width"},
           {"input", 0, "b_i", "The count to add.", "AddendWidth"},
           {"output", 0, "sum_o", "a_i + b_i.", "Width"}});
  m << "  /// carry[j]: the carry into column j.\n"
       "  logic [Width-1:1] carry;\n\n";
  adder_cell(m, false,
             {{"a_i", "a_i[0]"}, {"b_i", "b_i[0]"}, {"sum_o", "sum_o[0]"}, {"carry_o", "carry[1]"}},
             "sum_o", "  ", "1");
  // Low = min(AddendWidth, Width - 1): columns 1 .. Low - 1 add a bit of each and the carry (full
  // adders), columns Low .. Width - 2 a bit of a_i and the carry (half adders).
  const std::string low = "(AddendWidth < Width ? AddendWidth : Width - 1)";
  m << "  for (genvar j = 1; j < Width - 1; j++) begin : g_column\n"
       "    if (j < AddendWidth) begin : g_full\n";
  // The carry into column 1 is lost.
  const std::string carry_in =
      mutated("index_counter_array.bank_carry_dropped") ? "j == 1 ? 1'b0 : carry[j]" : "carry[j]";
  adder_cell(m, true,
             {{"a_i", "a_i[j]"},
              {"b_i", "b_i[j]"},
              {"c_i", carry_in},
              {"sum_o", "sum_o[j]"},
              {"carry_o", "carry[j+1]"}},
             "sum_o", "      ", low + " - 1");
  m << "    end else begin : g_half\n";
  adder_cell(
      m, false,
      {{"a_i", "a_i[j]"}, {"b_i", "carry[j]"}, {"sum_o", "sum_o[j]"}, {"carry_o", "carry[j+1]"}},
      "sum_o", "      ", "Width - 1 - " + low);
  m << "    end\n"
       "  end\n"
       "  if (AddendWidth == Width) begin : g_top_three\n"
       "    assign sum_o[Width-1] = a_i[Width-1] ^ b_i[Width-1] ^ carry[Width-1];\n"
       "  end else begin : g_top_two\n"
       "    assign sum_o[Width-1] = a_i[Width-1] ^ carry[Width-1];\n"
       "  end\n";
  return m.file();
}

}  // namespace oasis::gen::index_counter_parts
