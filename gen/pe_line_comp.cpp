// SPDX-License-Identifier: Apache-2.0
// The PE line's outlier branch (docs/pe_line.md): the gather of the outliers, the
// Dequantization Unit and the compensation MACs. The line: gen/pe_line.cpp.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/fp_emit.hpp"
#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::pe_line_parts {

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

}  // namespace oasis::gen::pe_line_parts
