// SPDX-License-Identifier: Apache-2.0
#include "gen/fp_emit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <stdexcept>

namespace oasis::gen {

string pipe(const string& inst, const string& width, const string& stages, const string& valid_i,
            const string& data_i, const string& valid_o, const string& data_o,
            const string& indent) {
  return instance("oasis_fp_pipe", inst,
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"valid_i", valid_i},
                   {"data_i", data_i},
                   {"valid_o", valid_o},
                   {"data_o", data_o}},
                  indent, {{"Width", width}, {"Stages", stages}});
}

string pipe(const string& inst, int width, int stages, const string& valid_i, const string& data_i,
            const string& valid_o, const string& data_o, const string& indent) {
  return pipe(inst, std::to_string(width), std::to_string(stages), valid_i, data_i, valid_o, data_o,
              indent);
}

namespace {

std::vector<std::pair<string, string>> format_params(const FpParams& f) {
  return {{"ExpBits", f.exp_bits}, {"FracBits", f.frac_bits}};
}

// A multiplier's parameters: the result's format, then the formats of its operands where they
// are not the result's.
std::vector<std::pair<string, string>> mul_params(const FpParams& f, const Operands& ops) {
  std::vector<std::pair<string, string>> params = format_params(f);
  const auto operand = [&](const FpFormat& o, const string& prefix) {
    const string e = std::to_string(o.exp_bits), fr = std::to_string(o.frac_bits);
    if (o.exp_bits == 0 || (e == f.exp_bits && fr == f.frac_bits)) return;
    params.insert(params.end(), {{prefix + "ExpBits", e}, {prefix + "FracBits", fr}});
  };
  operand(ops.a, "A");
  operand(ops.b, "B");
  return params;
}

FpSegments chain_segments(const FpFormat& f, FpOp op, const Operands& ops = kSameFormat) {
  if (op != FpOp::kMul) return fp_add_segments(f);
  const auto format = [&](const FpFormat& o) { return o.exp_bits == 0 ? f : o; };
  return fp_mul_segments(f, format(ops.a), format(ops.b));
}

}  // namespace

void fp_add(SvModule& m, const FpParams& f, const string& inst, const string& a, const string& b,
            const string& sum, const string& indent, const string& count, bool sub) {
  m.inst("oasis_fp_add", inst,
         {{"a_i", a}, {"b_i", b}, {"sub_i", sub ? "1'b1" : "1'b0"}, {"sum_o", sum}}, indent,
         format_params(f), count);
  m.op(sub ? "fp_sub" : "fp_add", f.width, sum, count);
}

void fp_mul(SvModule& m, const FpParams& f, const string& inst, const string& a, const string& b,
            const string& prod, const string& indent, const string& count, const Operands& ops) {
  m.inst("oasis_fp_mul", inst, {{"a_i", a}, {"b_i", b}, {"prod_o", prod}}, indent,
         mul_params(f, ops), count);
  m.op("fp_mul", f.width, prod, count);
}

void fp_convert(SvModule& m, const FpFormat& in, const FpFormat& out, const string& inst,
                const string& a, const string& result, const string& indent, const string& count) {
  m.inst("oasis_fp_convert", inst, {{"a_i", a}, {"result_o", result}}, indent,
         {{"InExpBits", std::to_string(in.exp_bits)},
          {"InFracBits", std::to_string(in.frac_bits)},
          {"OutExpBits", std::to_string(out.exp_bits)},
          {"OutFracBits", std::to_string(out.frac_bits)}},
         count);
  m.op("fp_convert", std::to_string(std::max(in.width(), out.width())), result, count);
}

FpCuts chain_cuts(const FpFormat& f, FpOp op, int stages, const Operands& ops) {
  return place_chain_cuts(chain_segments(f, op, ops), stages);
}

void staged_unit(SvModule& m, const FpFormat& f, FpOp op, const FpCuts& cuts, const string& inst,
                 const string& a, const string& b, const string& sub, const string& result,
                 const string& valid_i, const string& valid_o, const string& indent,
                 const string& count, const Operands& ops) {
  const bool mul = op == FpOp::kMul;
  const FpSegments seg = chain_segments(f, op, ops);
  std::vector<string> stage_fo4;
  for (double d : cuts.stage_fo4) stage_fo4.push_back(fmt::format("{:.0f}", d));
  m << indent
    << (cuts.mask == 0 ? "// No register inside the unit (docs/fp_rtl.md, Pipelining).\n"
                       : "// Registers inside the unit, at its places (docs/fp_rtl.md, "
                         "Pipelining):\n");
  for (int k = 0; k < seg.places(); ++k) {
    if (cuts.mask >> k & 1u) {
      m << fmt::format("{}//   {}: after {}\n", indent, k, seg.names[size_t(k)]);
    }
  }
  m << fmt::format("{}// {} after it. Estimated stage delays, FO4: {}.\n", indent,
                   cuts.output_stages, fmt::join(stage_fo4, ", "));
  std::vector<std::pair<string, string>> ports = {
      {"clk_i", "clk_i"}, {"rst_ni", "rst_ni"}, {"valid_i", valid_i}, {"a_i", a}, {"b_i", b}};
  if (!mul) ports.push_back({"sub_i", sub});
  ports.push_back({"valid_o", valid_o});
  ports.push_back({mul ? "prod_o" : "sum_o", result});
  std::vector<std::pair<string, string>> params = mul ? mul_params(f, ops) : format_params(f);
  params.insert(params.begin() + 2,
                {"Cuts", fmt::format("{}'b{:0{}b}", seg.places(), cuts.mask, seg.places())});
  m.inst(mul ? "oasis_fp_mul_staged" : "oasis_fp_add_staged", inst, ports, indent, params, count);
  m.op(mul ? "fp_mul" : (op == FpOp::kSub ? "fp_sub" : "fp_add"), std::to_string(f.width()), result,
       count);
}

FpCuts chain_unit(SvModule& m, const FpFormat& f, FpOp op, const string& inst, const string& a,
                  const string& b, const string& result, int stages, const string& valid_i,
                  const string& valid_o, const string& indent, const string& count,
                  const Operands& ops) {
  const FpCuts cuts = chain_cuts(f, op, stages, ops);
  if (cuts.mask == 0) {
    if (op == FpOp::kMul) {
      fp_mul(m, f, inst, a, b, result, indent, count, ops);
    } else {
      fp_add(m, f, inst, a, b, result, indent, count, op == FpOp::kSub);
    }
  } else {
    staged_unit(m, f, op, cuts, inst, a, b, op == FpOp::kSub ? "1'b1" : "1'b0", result, valid_i,
                valid_o, indent, count, ops);
  }
  return cuts;
}

std::vector<Field> beside_unit(SvModule& m, const string& stage, const FpCuts& cuts,
                               const string& valid_i, std::vector<Field> fields) {
  const int inside = std::popcount(cuts.mask);
  if (inside == 0 || fields.empty()) return fields;
  const string side = stage + "_side";
  m.pipe_stage(side, inside, valid_i, fields);
  m << fmt::format("  logic unused_{0}_valid;\n  assign unused_{0}_valid = {0}_valid;\n", side);
  for (Field& field : fields) field.in = side + "_" + field.name;
  return fields;
}

void chain_stage(SvModule& m, const FpFormat& f, FpOp op, const string& inst, const string& a,
                 const string& b, const string& stage, int stages, const string& valid_i,
                 std::vector<Field> fields, const string& result, const string& width,
                 const Operands& ops) {
  if (m.value_of(width) != std::optional<int64_t>(f.width())) {
    throw std::logic_error(
        fmt::format("{}: {} is not the width of {} ({})", m.name(), width, f.name(), f.width()));
  }
  const string unit = stage + "_unit";
  const FpCuts cuts = chain_cuts(f, op, stages, ops);
  const string valid = cuts.mask != 0 ? unit + "_valid" : valid_i;
  m << fmt::format("  logic {} {};\n", range(width), unit);
  if (cuts.mask != 0) m << fmt::format("  logic {};\n", valid);
  chain_unit(m, f, op, inst, a, b, unit, stages, valid_i, valid, "  ", "1", ops);
  fields = beside_unit(m, stage, cuts, valid_i, std::move(fields));
  fields.push_back({result, f.width(), unit, width});
  m.pipe_stage(stage, cuts.output_stages, valid, fields);
}

void drop_unused_tree_level(BlockOutput& out, const Config& c) {
  const string level = module_name(c, "tree_level");
  const bool used = std::any_of(out.files.begin(), out.files.end(), [&](const SvFile& file) {
    return std::any_of(file.instances.begin(), file.instances.end(),
                       [&](const InstanceRecord& i) { return i.module == level; });
  });
  if (!used) {
    std::erase_if(out.files, [&](const SvFile& f) { return f.name == level + ".sv"; });
  }
}

string fifo(const string& inst, int width, int depth, const string& push, const string& data,
            const string& pop, const string& out, const string& empty, const string& full) {
  return instance("oasis_fifo", inst,
                  {{"clk_i", "clk_i"},
                   {"rst_ni", "rst_ni"},
                   {"push_i", push},
                   {"data_i", data},
                   {"pop_i", pop},
                   {"data_o", out},
                   {"empty_o", empty},
                   {"full_o", full}},
                  "  ", {{"Width", std::to_string(width)}, {"Depth", std::to_string(depth)}});
}

void staged_adder_params(SvModule& m, const string& latency) {
  m.param("Stages", 1, fmt::format("Register stages, {} (0: combinational).", latency));
  m.param("Cuts", 0,
          "Places inside each adder that hold one of the Stages, bit k for place k of "
          "oasis_fp_add_staged (docs/fp_rtl.md, Pipelining).");
}

void staged_adder_places(SvModule& m) {
  // Every format's adder has the same places.
  const int places = fp_add_segments(kBinary32Format).places();
  m.localparam("Places", places, "Places inside an adder (oasis_fp_add_staged).");
  m << "\n  // The registers inside an adder: the places set in Cuts.\n"
       "  function automatic int places_used(input int cuts);\n"
       "    places_used = 0;\n"
       "    for (int k = 0; k < Places; k++) begin\n"
       "      if (cuts[k]) places_used = places_used + 1;\n"
       "    end\n"
       "  endfunction\n"
       "  localparam int Inside = places_used(Cuts);\n"
       "  localparam int After  = Stages - Inside;\n";
}

void scale_to_output(SvModule& m, const FpFormat& f, int stages, const string& value,
                     const string& valid, const string& stage) {
  chain_stage(m, f, FpOp::kMul, "u_scale_w", value, "sw_head", stage, stages, valid, {}, "prod",
              "AccBits", kHalfB);
  if (f.width() != kBinary16Format.width()) {
    m << "  logic [HalfBits-1:0] y16;\n";
    fp_convert(m, f, kBinary16Format, "u_round", stage + "_prod", "y16");
    m << pipe("u_round_pipe", "HalfBits", std::to_string(stages), stage + "_valid", "y16",
              "y_valid_o", "y_data_o");
  } else {
    m << fmt::format("  assign y_valid_o = {0}_valid;\n  assign y_data_o = {0}_prod;\n", stage);
  }
}

SvFile tree_level_module(const Config& c) {
  SvModule m(module_name(c, "tree_level"),
             "One level of the pairwise floating-point reduction tree of docs/numerics.md: "
             "Inputs values in, (Inputs + 1) / 2 out. Output j is value 2j + value 2j+1, the left "
             "operand first; when value 2j+1 is absent, or for an odd last value, it is value 2j "
             "passed up (an absent value is added as -0, which gives value 2j exactly: every "
             "value a tree reduces is a unit's result, its NaN the canonical one). Each output is "
             "present when its left input is (present bits form a prefix). Stages register "
             "stages: inside the adders at the places Cuts names, the rest after them.");
  m.param("Inputs", 2, "Values in, at least 2.");
  m.param("Width", 32, "Width of a value, bits: 1 + ExpBits + fraction bits.");
  m.param("ExpBits", 8, "Exponent bits of the format (binary32: 8, binary16: 5).");
  staged_adder_params(m, "the level's latency");
  m.ports({{"input", 0, "clk_i", "Clock."},
           {"input", 0, "rst_ni", "Asynchronous reset, active low."},
           {"input", 0, "valid_i", "The values are valid this cycle."},
           {"input", 0, "data_i", "Value i at [i*Width +: Width].", "Inputs*Width"},
           {"input", 0, "present_i", "Value i is present.", "Inputs"},
           {"output", 0, "valid_o", "valid_i of Stages cycles ago."},
           {"output", 0, "data_o", "Output j at [j*Width +: Width].", "((Inputs+1)/2)*Width"},
           {"output", 0, "present_o", "Output j is present.", "(Inputs+1)/2"}});
  m.localparam("Outputs", "(Inputs + 1) / 2");
  m.localparam("FracBits", "Width - 1 - ExpBits");
  staged_adder_places(m);
  m << "\n  logic [Outputs*Width-1:0] sum_d;\n"
       "  logic [Outputs-1:0]       present_d, sum_valid, lane_valid;\n\n"
       "  for (genvar j = 0; j < Outputs; j++) begin : g_pair\n"
       "    if (2*j + 1 < Inputs) begin : g_add\n"
       "      // An absent right value is added as -0: x + (-0) is x for every x, zeros of\n"
       "      // either sign included, and for the canonical NaN, the only one a unit gives.\n"
       "      logic [Width-1:0] right;\n"
       "      assign right = present_i[2*j+1] ? data_i[(2*j+1)*Width +: Width]\n"
       "                                      : {1'b1, {(Width-1){1'b0}}};\n";
  m.inst("oasis_fp_add_staged", "u_add",
         {{"clk_i", "clk_i"},
          {"rst_ni", "rst_ni"},
          {"valid_i", "valid_i"},
          {"a_i", "data_i[2*j*Width +: Width]"},
          {"b_i", "right"},
          {"sub_i", "1'b0"},
          {"valid_o", "sum_valid[j]"},
          {"sum_o", "sum_d[j*Width +: Width]"}},
         "      ", {{"ExpBits", "ExpBits"}, {"FracBits", "FracBits"}, {"Cuts", "Places'(Cuts)"}},
         "Inputs/2");
  m.op("fp_add", "Width", "sum_d", "Inputs/2");
  m << "    end else begin : g_pass\n";
  m << pipe("u_left_pipe", "Width", "Inside", "valid_i", "data_i[2*j*Width +: Width]",
            "sum_valid[j]", "sum_d[j*Width +: Width]", "      ");
  m << "    end\n"
       "    assign present_d[j] = present_i[2*j];\n"
       "    // One pipe per value: no register wider than a value (a reset of thousands of\n"
       "    // bits at once is a lint warning).\n";
  m << pipe("u_pipe", "Width", "After", "sum_valid[j]", "sum_d[j*Width +: Width]", "lane_valid[j]",
            "data_o[j*Width +: Width]", "    ");
  m << "  end\n\n";
  m << pipe("u_present_pipe", "Outputs", "Stages", "valid_i", "present_d", "valid_o", "present_o");
  m << "  // Every value's valid bit is valid_o.\n"
       "  logic unused_lane_valid;\n"
       "  assign unused_lane_valid = ^lane_valid;\n";
  return m.file();
}

TreeRoot tree(SvModule& m, const Config& c, const FpFormat& f, int stages, const string& name,
              int inputs, const string& values, const string& present, const string& valid,
              const string& inputs_name) {
  TreeRoot root{valid, values, present, 0};
  if (inputs > 1 && m.value_of("AccBits") != f.width()) {
    throw std::logic_error(
        fmt::format("{}: the tree {} needs AccBits = {}", m.name(), name, f.width()));
  }
  string count = inputs_name.empty() ? std::to_string(inputs) : inputs_name;
  const string cuts = std::to_string(chain_cuts(f, FpOp::kAdd, stages).mask);
  for (int n = inputs; n > 1; n = (n + 1) / 2) {
    const string l = fmt::format("{}{}", name, root.levels);
    const string outputs = upper_camel(l) + "Outputs";
    m.localparam(outputs, (n + 1) / 2,
                 fmt::format("Sums out of level {} of the tree.", root.levels));
    m << fmt::format("  logic {0}_valid;\n  logic {1} {0}_sum;\n  logic {2} {0}_present;\n", l,
                     range(outputs + "*AccBits"), range(outputs));
    m.inst(module_name(c, "tree_level"), "u_" + l,
           {{"clk_i", "clk_i"},
            {"rst_ni", "rst_ni"},
            {"valid_i", root.valid},
            {"data_i", root.value},
            {"present_i", root.present},
            {"valid_o", l + "_valid"},
            {"data_o", l + "_sum"},
            {"present_o", l + "_present"}},
           "  ",
           {{"Inputs", count},
            {"Width", "AccBits"},
            {"ExpBits", std::to_string(f.exp_bits)},
            {"Stages", std::to_string(stages)},
            {"Cuts", cuts}});
    count = outputs;
    root = {l + "_valid", l + "_sum", l + "_present", root.levels + 1};
  }
  return root;
}

TreeRoot accumulator(SvModule& m, const Config& c, const FpFormat& f, int stages, int slots,
                     int used_partials, int lanes, const string& lanes_param,
                     const string& row_values, const string& valid, const string& first,
                     const string& last, const string& present, const string& values) {
  const int w = f.width();
  const int tree_partials = int(std::bit_ceil(unsigned(used_partials)));
  const bool several = used_partials > 1;
  m.comment(fmt::format(
      "The accumulator (docs/numerics.md, Accumulation): value i of a row goes to partial sum "
      "i mod Partials of its lane; the first Partials load theirs, the others add to them. The "
      "adder has {} register(s) inside and the partial sums' registers after it, so a partial "
      "sum's loop closes in {} cycle(s), when its next value arrives.",
      slots - 1, slots));
  if (lanes_param.empty()) {
    m.localparam("AccLanes", lanes, "Lanes of the accumulator.");
  } else {
    m.localparam("AccLanes", lanes_param, "Lanes of the accumulator.");
  }
  m.localparam("Partials", used_partials, "Partial sums of a lane: min(L, the lane's values).");
  m.localparam("TreePartials", tree_partials, "Partials rounded up to a power of two.");
  if (several) {
    m.localparam("PartBits", "$clog2(Partials)", "Bits of a partial sum's index.");
    m << "  logic [PartBits-1:0] acc_part, acc_part_q;\n  logic acc_load, acc_wrapped_q;\n"
      << fmt::format("  assign acc_part = {} ? '0 : acc_part_q;\n", first)
      << fmt::format("  assign acc_load = {} || !acc_wrapped_q;\n", first);
    m << registers(
        {{"acc_part_q", "acc_part == PartBits'(Partials - 1) ? '0 : acc_part + 1'b1"},
         {"acc_wrapped_q",
          fmt::format("(acc_wrapped_q && !{}) || acc_part == PartBits'(Partials - 1)", first),
          "1'b0"}},
        "  ", valid);
  } else {
    m << fmt::format("  logic acc_load;\n  assign acc_load = {};\n", first);
  }
  const FpCuts cuts = chain_cuts(f, FpOp::kAdd, slots);
  const bool inside = cuts.mask != 0;
  m << fmt::format("  logic {} acc_old, acc_sum;\n", range("AccLanes*AccBits"));
  if (inside) {
    m << "  // Every lane's valid bit is the same; lane 0's is used.\n"
         "  logic [AccLanes-1:0] acc_add_valid;\n  logic unused_acc_add_valid;\n"
         "  assign unused_acc_add_valid = ^acc_add_valid;\n";
  }
  if (several) {
    m.comment(
        "The partial sum a value adds to, selected by acc_part_q, a register: acc_part differs "
        "from it only on a row's first value, which loads its partial sum and adds to none.");
  }
  m << "  for (genvar n = 0; n < AccLanes; n++) begin : g_acc_add\n";
  m << (several ? "    assign acc_old[n*AccBits +: AccBits] =\n"
                  "        acc_q[(n*Partials + 32'(acc_part_q))*AccBits +: AccBits];\n"
                : "    assign acc_old[n*AccBits +: AccBits] = acc_q[n*AccBits +: AccBits];\n");
  chain_unit(m, f, FpOp::kAdd, "u_add", "acc_old[n*AccBits +: AccBits]",
             fmt::format("{}[n*AccBits +: AccBits]", values), "acc_sum[n*AccBits +: AccBits]",
             slots, valid, "acc_add_valid[n]", "    ", "AccLanes");
  m << "  end\n";
  // The fields that ride beside the adder's inside registers.
  std::vector<Field> fields;
  if (several) fields.push_back({"part", clog2(used_partials), "acc_part"});
  fields.push_back({"load", 0, "acc_load"});
  fields.push_back({"last", 0, last});
  if (!present.empty()) fields.push_back({"present", lanes, present});
  fields.push_back({"value", int64_t(lanes) * w, values});
  fields = beside_unit(m, "acc", cuts, valid, fields);
  const auto field = [&](const string& name) {
    for (const Field& fl : fields) {
      if (fl.name == name) return fl.in;
    }
    return string();
  };
  const string write = inside ? "acc_add_valid[0]" : valid;
  m << fmt::format("  logic {} acc_q;\n  logic {} acc_tree;\n  logic {} acc_tree_present;\n",
                   range("AccLanes*Partials*AccBits"), range("AccLanes*TreePartials*AccBits"),
                   range("AccLanes*TreePartials"));
  string when = write;
  if (several) when += fmt::format(" && {} == PartBits'(s)", field("part"));
  if (!present.empty()) when += fmt::format(" && {}[n]", field("present"));
  m << "  // Partial sum s of lane n: a register, written when its value leaves the adder.\n"
       "  for (genvar n = 0; n < AccLanes; n++) begin : g_acc_lane\n"
       "    for (genvar s = 0; s < TreePartials; s++) begin : g_part\n"
       "      if (s < Partials) begin : g_used\n"
    << fmt::format("        logic {} q;\n", range(w))
    << "        always_ff @(posedge clk_i or negedge rst_ni) begin\n"
       "          if (!rst_ni) q <= '0;\n"
    << fmt::format("          else if ({}) begin\n", when)
    << fmt::format("            q <= {} ? {}[n*AccBits +: AccBits]\n", field("load"),
                   field("value"))
    << "                : acc_sum[n*AccBits +: AccBits];\n"
       "          end\n"
       "        end\n"
       "        assign acc_q[(n*Partials + s)*AccBits +: AccBits] = q;\n"
       "        assign acc_tree[(n*TreePartials + s)*AccBits +: AccBits] = q;\n"
       "      end else begin : g_pad\n"
       "        assign acc_tree[(n*TreePartials + s)*AccBits +: AccBits] = '0;\n"
       "      end\n"
    << fmt::format(
           "      assign acc_tree_present[n*TreePartials + s] =\n"
           "          s < Partials && s*AccLanes + n < {};\n",
           row_values)
    << "    end\n  end\n";
  m << "  logic acc_done_q;\n";
  m << registers({{"acc_done_q", fmt::format("{} && {}", write, field("last")), "1'b0"}});
  if (lanes * tree_partials > 1) {
    m.comment(
        "The pairwise tree over each lane's partial sums, then over the lanes, the cycle after "
        "the row's last write.");
  }
  return tree(m, c, f, stages, "acc_t", lanes * tree_partials, "acc_tree", "acc_tree_present",
              "acc_done_q", "AccLanes*TreePartials");
}

}  // namespace oasis::gen
