// SPDX-License-Identifier: Apache-2.0
// The PE line's merge (docs/pe_line.md): the two branches' row sums in order, the scalings,
// the rounding to binary16 and the output FIFO. The line: gen/pe_line.cpp.
#include <fmt/format.h>

#include <string>

#include "gen/fp_emit.hpp"
#include "gen/pe_line_parts.hpp"
#include "gen/sv.hpp"

namespace oasis::gen::pe_line_parts {

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

}  // namespace oasis::gen::pe_line_parts
