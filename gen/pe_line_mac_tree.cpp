// SPDX-License-Identifier: Apache-2.0
// The PE line's main branch (docs/pe_line.md, docs/numerics.md): the counts converted, times
// the LUT entries, the pairwise tree and the accumulator. The line: gen/pe_line.cpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::pe_line_parts {

namespace {

// The main branch's LUT selection: the chunk's entries, and which of its lanes hold one.
void mac_tree_select(SvModule& m, const Dims& d) {
  const int Tp = d.Tp(), T = d.T, CH = d.t.chunks;
  // The stride of a count on the bus: with symmetric codebooks a bit wider, two's complement.
  const string cb = d.d.symmetric ? "DataBits" : "CountBits";
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
}

// The main branch's counts into the multipliers' format, with symmetric codebooks through their
// magnitudes and signs (and the sign stage), registered as conv_*.
void mac_tree_counts(SvModule& m, const Dims& d) {
  const FpFormat& cf = d.d.count_format;
  const int Tp = d.Tp(), W = d.W();
  const bool sym = d.d.symmetric;
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
}

// The main branch's products, the pairwise tree over them and the accumulator.
void mac_tree_sum(SvModule& m, const Config& c, const Dims& d) {
  const FpFormat& f = d.f();
  const FpFormat& cf = d.d.count_format;
  const int aw = d.aw(), Tp = d.Tp(), S = d.S;
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
}

}  // namespace

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
  mac_tree_select(m, d);
  mac_tree_counts(m, d);
  mac_tree_sum(m, c, d);
  return m.file();
}

}  // namespace oasis::gen::pe_line_parts
