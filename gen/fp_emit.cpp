#include "gen/fp_emit.hpp"

#include <fmt/format.h>

namespace oasis::gen {

string range(int width) { return fmt::format("[{}:0]", width - 1); }

// oasis_fp_pipe: Stages registers with a valid bit.
string pipe(const string& inst, int width, int stages, const string& valid_i, const string& data_i,
            const string& valid_o, const string& data_o, const string& indent) {
  return fmt::format(
      "{0}oasis_fp_pipe #(\n{0}  .Width ({1}),\n{0}  .Stages({2})\n{0}) {3} (\n"
      "{0}  .clk_i  (clk_i),\n{0}  .rst_ni (rst_ni),\n{0}  .valid_i({4}),\n{0}  .data_i ({5}),\n"
      "{0}  .valid_o({6}),\n{0}  .data_o ({7})\n{0});\n",
      indent, width, stages, inst, valid_i, data_i, valid_o, data_o);
}

string fp_add(const AccFormat& f, const string& inst, const string& a, const string& b,
              const string& sum, const string& indent) {
  return fmt::format(
      "{0}oasis_fp_add #(\n{0}  .ExpBits ({1}),\n{0}  .FracBits({2})\n{0}) {3} (\n"
      "{0}  .a_i  ({4}),\n{0}  .b_i  ({5}),\n{0}  .sub_i(1'b0),\n{0}  .sum_o({6})\n{0});\n",
      indent, f.exp_bits, f.frac_bits, inst, a, b, sum);
}

string fp_mul(const AccFormat& f, const string& inst, const string& a, const string& b,
              const string& prod, const string& indent) {
  return fmt::format(
      "{0}oasis_fp_mul #(\n{0}  .ExpBits ({1}),\n{0}  .FracBits({2})\n{0}) {3} (\n"
      "{0}  .a_i   ({4}),\n{0}  .b_i   ({5}),\n{0}  .prod_o({6})\n{0});\n",
      indent, f.exp_bits, f.frac_bits, inst, a, b, prod);
}

string fp_convert(int ie, int ifr, int oe, int ofr, const string& inst, const string& a,
                  const string& result, const string& indent) {
  return fmt::format(
      "{0}oasis_fp_convert #(\n{0}  .InExpBits  ({1}),\n{0}  .InFracBits ({2}),\n"
      "{0}  .OutExpBits ({3}),\n{0}  .OutFracBits({4})\n{0}) {5} (\n"
      "{0}  .a_i     ({6}),\n{0}  .result_o({7})\n{0});\n",
      indent, ie, ifr, oe, ofr, inst, a, result);
}

// binary16 -> A: exact, combinational (a wire for binary16).
string widen(const AccFormat& f, const string& inst, const string& a, const string& result,
             const string& indent) {
  if (f.width() == 16) return fmt::format("{}assign {} = {};\n", indent, result, a);
  return fp_convert(5, 10, f.exp_bits, f.frac_bits, inst, a, result, indent);
}

string fifo(const string& inst, int width, int depth, const string& push, const string& data,
            const string& pop, const string& out, const string& empty, const string& full) {
  return fmt::format(
      "  oasis_fifo #(\n    .Width({1}),\n    .Depth({2})\n  ) {0} (\n"
      "    .clk_i  (clk_i),\n    .rst_ni (rst_ni),\n    .push_i ({3}),\n    .data_i ({4}),\n"
      "    .pop_i  ({5}),\n    .data_o ({6}),\n    .empty_o({7}),\n    .full_o ({8})\n  );\n",
      inst, width, depth, push, data, pop, out, empty, full);
}

// A bit mask as a sized binary literal, bit i = bits[i].
string mask_literal(const std::vector<bool>& bits) {
  string s = fmt::format("{}'b", bits.size());
  for (size_t i = bits.size(); i-- > 0;) s += bits[i] ? '1' : '0';
  return s;
}

// One pairwise-tree level over `n` values of `aw` bits named `in` with
// present bits `in_p` (adjacent pairs, left operand first; a pair whose
// right value is absent, or an odd last value, passes its left value up):
// the ceil(n/2) results and their present bits through a pipe.
string tree_level(const AccFormat& f, int stages, const string& name, int n, const string& in,
                  const string& in_p, const string& in_valid, const string& extra_in,
                  int extra_bits) {
  const int aw = f.width();
  const int next = (n + 1) / 2;
  string s;
  s += fmt::format("  logic {} {}_sum;\n  logic {} {}_p;\n", range(next * aw), name, range(next),
                   name);
  s += fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_{}\n", n / 2, name);
  s += "    logic [" + std::to_string(aw - 1) + ":0] sum;\n";
  s += fp_add(f, "u_add", fmt::format("{}[2*i*{} +: {}]", in, aw, aw),
              fmt::format("{}[(2*i+1)*{} +: {}]", in, aw, aw), "sum", "    ");
  s += fmt::format("    assign {0}_sum[i*{1} +: {1}] = {2}[2*i+1] ? sum : {3}[2*i*{1} +: {1}];\n",
                   name, aw, in_p, in);
  s += fmt::format("    assign {0}_p[i] = {1}[2*i];\n  end\n", name, in_p);
  if (n % 2 == 1) {
    s += fmt::format("  assign {0}_sum[{1}*{2} +: {2}] = {3}[{4}*{2} +: {2}];\n", name, n / 2, aw,
                     in, n - 1);
    s += fmt::format("  assign {0}_p[{1}] = {2}[{3}];\n", name, n / 2, in_p, n - 1);
  }
  const int w = extra_bits + next + next * aw;
  s += fmt::format("  logic {}_valid;\n  logic {} {}_q;\n", name, range(w), name);
  s += pipe("u_" + name + "_pipe", w, stages, in_valid,
            fmt::format("{{{}{}_p, {}_sum}}", extra_in.empty() ? "" : extra_in + ", ", name, name),
            name + "_valid", name + "_q");
  return s;
}

}  // namespace oasis::gen
