// SPDX-License-Identifier: Apache-2.0
// Emitting the floating-point datapath pieces shared by the blocks built
// from rtl/ primitives (gen/pe_line.cpp, gen/baselines.cpp, gen/core.cpp):
// the units, each recorded in its module's operators (the delay annotation),
// FIFOs, and the pairwise reduction tree, whose level is one parameterized
// module instantiated level by level.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gen/sv.hpp"
#include "model/derived.hpp"
#include "model/perf/fp_delay.hpp"

namespace oasis::gen {

using std::string;

/// An accumulator format A: binary32 (8, 23) or binary16 (5, 10), as
/// Derived::accumulator gives it.
using AccFormat = FpFormat;
inline constexpr FpFormat kBinary16Format{5, 10};
inline constexpr FpFormat kBinary32Format{8, 23};

/// A format as the parameters of a unit's instance: numbers, or the
/// parameters of a parameterized module that instantiates the unit.
struct FpParams {
  string exp_bits, frac_bits, width;
  FpParams(const FpFormat& f)  // NOLINT: a format is its parameters
      : exp_bits(std::to_string(f.exp_bits)),
        frac_bits(std::to_string(f.frac_bits)),
        width(std::to_string(f.width())) {}
  FpParams(string e, string f, string w)
      : exp_bits(std::move(e)), frac_bits(std::move(f)), width(std::move(w)) {}
};

/// oasis_fp_pipe: `stages` registers with a valid bit (width and stages as
/// numbers or parameter names).
string pipe(const string& inst, const string& width, const string& stages, const string& valid_i,
            const string& data_i, const string& valid_o, const string& data_o,
            const string& indent = "  ");
string pipe(const string& inst, int width, int stages, const string& valid_i, const string& data_i,
            const string& valid_o, const string& data_o, const string& indent = "  ");

// The units below append their instance to `m` and record its operator,
// `count` times over (the iterations of the generate loop they sit in).

/// oasis_fp_add: sum = a + b (a - b with `sub`) in format f.
void fp_add(SvModule& m, const FpParams& f, const string& inst, const string& a, const string& b,
            const string& sum, const string& indent = "  ", const string& count = "1",
            bool sub = false);
/// The formats of a multiplication's operands where they are narrower than the product's
/// (binary16 values, a PE line's counts): the unit multiplies their own significands, with no
/// widening before it (oasis_fp_mul_staged's operand formats; the result is that of the values
/// widened, which is exact, and multiplied). A format of 0 exponent bits: the product's.
struct Operands {
  FpFormat a{};
  FpFormat b{};
};
inline constexpr Operands kSameFormat{};
inline constexpr Operands kHalfB{{}, kBinary16Format};
inline constexpr Operands kHalfAB{kBinary16Format, kBinary16Format};

/// oasis_fp_mul: prod = a * b in format f, the operands as `ops` says.
void fp_mul(SvModule& m, const FpParams& f, const string& inst, const string& a, const string& b,
            const string& prod, const string& indent = "  ", const string& count = "1",
            const Operands& ops = kSameFormat);
/// oasis_fp_convert from format `in` to format `out`.
void fp_convert(SvModule& m, const FpFormat& in, const FpFormat& out, const string& inst,
                const string& a, const string& result, const string& indent = "  ",
                const string& count = "1");
/// A unit of a chain: an addition, a subtraction or a multiplication.
enum class FpOp { kAdd, kSub, kMul };

/// Where the `stages` registers of the unit `op` in format f go in a chain
/// (place_chain_cuts); a multiplier's segments are those of its operand formats `ops`
/// (fp_mul_segments: an exact product's are shorter).
FpCuts chain_cuts(const FpFormat& f, FpOp op, int stages, const Operands& ops = kSameFormat);

/// oasis_fp_add_staged or oasis_fp_mul_staged in format f with registers at
/// the places of `cuts` (its output_stages are the caller's), preceded by a
/// comment that says where they are and each stage's estimated delay. `sub`
/// drives an adder's sub_i; `ops`, a multiplier's operand formats.
void staged_unit(SvModule& m, const FpFormat& f, FpOp op, const FpCuts& cuts, const string& inst,
                 const string& a, const string& b, const string& sub, const string& result,
                 const string& valid_i, const string& valid_o, const string& indent = "  ",
                 const string& count = "1", const Operands& ops = kSameFormat);

/// The unit `op` (result = a op b in format f) as one unit of a chain followed
/// by `stages` register stages, placed by place_chain_cuts: with registers
/// inside, an oasis_fp_add_staged / oasis_fp_mul_staged with valid_i and
/// valid_o; without, the combinational unit (valid_i and valid_o unused). The
/// caller adds the cuts.output_stages registers after. Returns the placement. `ops`: a
/// multiplier's operand formats.
FpCuts chain_unit(SvModule& m, const FpFormat& f, FpOp op, const string& inst, const string& a,
                  const string& b, const string& result, int stages, const string& valid_i,
                  const string& valid_o, const string& indent = "  ", const string& count = "1",
                  const Operands& ops = kSameFormat);

/// `fields` that ride beside a chain unit with `cuts`, delayed by the registers
/// inside it (pipe_stage <stage>_side, its valid bit unused): the same fields,
/// each now read from its delayed copy.
std::vector<Field> beside_unit(SvModule& m, const string& stage, const FpCuts& cuts,
                               const string& valid_i, std::vector<Field> fields);

/// chain_unit with the registers after it: pipe_stage(stage, ...) whose last
/// field, `result`, is the unit's result and whose other `fields` ride beside
/// it, delayed first by the registers inside the unit (pipe_stage
/// <stage>_side). Declares <stage>_valid, <stage>_<field> for every field, and
/// <stage>_unit, the unit's result. `width`: the module's localparam that
/// holds f's width, which the result's declarations read. `ops`: a
/// multiplier's operand formats.
void chain_stage(SvModule& m, const FpFormat& f, FpOp op, const string& inst, const string& a,
                 const string& b, const string& stage, int stages, const string& valid_i,
                 std::vector<Field> fields, const string& result, const string& width,
                 const Operands& ops = kSameFormat);

/// Drops from a block's files the tree level (tree_level_module) when no tree has two inputs:
/// a module nothing instantiates would be a second top. (The rtl/ primitives a block lists are
/// those its files instantiate: the generator finds them.)
void drop_unused_tree_level(BlockOutput& out, const Config& c);

/// oasis_fifo of `depth` entries of `width` bits.
string fifo(const string& inst, int width, int depth, const string& push, const string& data,
            const string& pop, const string& out, const string& empty, const string& full);

/// The parameters Stages and Cuts of a parameterized module whose adders (oasis_fp_add_staged)
/// hold some of its Stages at their places; `latency` says whose latency Stages is.
void staged_adder_params(SvModule& m, const string& latency);
/// In such a module's body: the localparams Places (an adder's places), Inside (those Cuts
/// uses) and After (Stages - Inside, the registers after an adder).
void staged_adder_places(SvModule& m);

/// The end of a line whose rows leave one a cycle (the MAC-line baseline, the FIGLUT-class
/// line): `value` (valid with `valid`) times the row's s_w, the binary16 signal sw_head, in f
/// with `stages` registers (chain_stage `stage`, its unit u_scale_w), then rounded to binary16
/// (f binary32: oasis_fp_convert u_round and `stages` registers) onto y_valid_o and y_data_o.
/// Needs the localparams AccBits and HalfBits.
void scale_to_output(SvModule& m, const FpFormat& f, int stages, const string& value,
                     const string& valid, const string& stage);

/// The module of one level of the pairwise floating-point tree,
/// oasis_<config>_tree_level: parameterized by its inputs, the format and the
/// register stages; the blocks that use it list it among their files.
SvFile tree_level_module(const Config& c);

/// The signals at the root of a tree that tree() wrote.
struct TreeRoot {
  string valid;
  string value;    ///< the root's value
  string present;  ///< its present bit (set whenever an input was)
  int levels = 0;
};

/// The pairwise tree of docs/numerics.md over `inputs` values of format f
/// (`values`, value i at [i*W +: W], with present bits `present` and valid
/// `valid`), as ceil(log2 inputs) instances u_<name><l> of the tree level,
/// each followed by `stages` register stages; level l's outputs are
/// <name><l>_valid, <name><l>_sum and <name><l>_present, sized by the localparam
/// <Name><l>Outputs and the module's AccBits (which must be f's width). One input is its
/// own root. `inputs_name`, when set, names the inputs' count in the module.
TreeRoot tree(SvModule& m, const Config& c, const FpFormat& f, int stages, const string& name,
              int inputs, const string& values, const string& present, const string& valid,
              const string& inputs_name = "");

/// The accumulator of a row's values (docs/numerics.md, Accumulation), the
/// only one of its module: `lanes` independent lanes (lanes_param, when set,
/// names their count), each with `used_partials` partial sums. Value i of a
/// row (`valid`, with `first` / `last` flags, a present bit a lane in
/// `present` or "" for all present, lane n's value at [n*W +: W] of `values`)
/// goes to partial sum i mod used_partials of its lane; the first
/// used_partials load theirs, the others add to them through an adder with
/// `slots` - 1 registers inside and the partial sums' registers after it, so
/// a partial sum's loop closes in `slots` cycles, when its next value arrives
/// (slots = L, Derived::accumulator_slots). Partial sum s of lane n holds a
/// value when s * lanes + n < row_values (a localparam or a number). The cycle
/// after the row's last write, the pairwise tree (`stages` registers a level)
/// reduces each lane's partial sums (padded to a power of two, so that they
/// meet first), then the lanes; its root is returned. Needs the localparam
/// AccBits, the width of f.
TreeRoot accumulator(SvModule& m, const Config& c, const FpFormat& f, int stages, int slots,
                     int used_partials, int lanes, const string& lanes_param,
                     const string& row_values, const string& valid, const string& first,
                     const string& last, const string& present, const string& values);

}  // namespace oasis::gen
