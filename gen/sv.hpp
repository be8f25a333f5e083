// SPDX-License-Identifier: Apache-2.0
// The SystemVerilog emission layer every block's emitter uses: numbers
// folded into text, documented module headers with parameters and ports,
// localparams, instances, registers, pipeline stages whose fields keep their
// names, flat-vector lanes, wrapped concatenations, and the record of the
// arithmetic and comparison operators each module holds (kind and width, the
// delay annotation a frequency-directed pipelining step reads). A module that
// is built here is checked: no line longer than kMaxColumns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gen/block.hpp"

namespace oasis::gen {

/// The longest line a generated SystemVerilog file may hold.
inline constexpr size_t kMaxColumns = 100;

/// The macro that selects, for simulation speed, the behavioural form of the structures written
/// gate by gate for synthesis: the Index Counter array's compressor trees and counting-bank
/// adders, the multiplexer trees, the PE line's Concat Units and Orizuru's trees
/// (docs/generator.md, "Two forms of the large structures"). Both forms compute the same function;
/// undefined (the default, and what synthesis reads) gives the structural form. `sim/vltest
/// --behavioural` defines it; the manifest names it (`behavioural_macro`).
inline constexpr const char* kBehaviouralMacro = "OASIS_BEHAVIOURAL";

/// `behavioural` and `structural` (each whole lines) as the two branches of an `ifdef` on
/// kBehaviouralMacro.
std::string behavioural_or(const std::string& behavioural, const std::string& structural);

/// The macro under which every block's top module checks the promises its outputs make
/// (output_assertions). Simulations that run assertions define it (sim/vltest, with Verilator's
/// --assert); synthesis, Icarus and the formal flows never do.
inline constexpr const char* kAssertionsMacro = "OASIS_ASSERTIONS";

/// Assertions on the outputs of a module with `ports` (clock clk_i, reset rst_ni), immediate
/// ones at each clock edge, under an `ifdef` on kAssertionsMacro, for the end of its body: the
/// stream contract of docs/spec.md section 8 and no X on an output once reset has been
/// released. A stream is an
/// output <s>valid_o; its payload, the other outputs named <s>..._o (the longest such <s>).
/// With an input <s>ready_i, once valid is high and ready low, valid stays high the next cycle
/// and each payload output keeps its value. A one-bit output outside any payload is never
/// unknown, a payload output not while its valid is high; a wider output outside any payload
/// (a floating-point unit's result, the register file's tables) is not checked. Empty for a
/// module without clk_i and rst_ni.
std::string output_assertions(const std::vector<Port>& ports);

// ---- Numbers as text ---------------------------------------------------------

/// "[width-1:0]" with the subtraction done: range(16) = "[15:0]".
std::string range(int64_t width);
/// "[expr-1:0]" for a width given as a parameter expression ("Inputs*Width");
/// a number is folded as range(int64_t) folds it.
std::string range(const std::string& width);
/// A sized decimal literal: literal(4, 3) = "4'd3".
std::string literal(int width, int64_t value);
/// A bit mask as a sized constant, bit i = bits[i]: a binary literal while it
/// is short, else a concatenation of replications of its runs ({4{1'b0}},
/// {4092{1'b1}}), so that a mask of thousands of bits is a few words.
std::string mask_literal(const std::vector<bool>& bits);
/// Lane `index` of `width` bits of a flat vector: "vec[index*width +: width]".
/// Index and width are text (a genvar, a localparam, a number); a product of
/// two numbers is folded, and lane 0 of numbers reads "vec[width-1:0]".
std::string lane(const std::string& vec, const std::string& index, const std::string& width);
std::string lane(const std::string& vec, int64_t index, int64_t width);
/// "{a, b, c}" over `items`, wrapped onto continuation lines (indented by
/// `indent` plus four spaces) before a line would pass kMaxColumns. `lead` is
/// the text already on the first line, `tail` the text that follows the
/// closing brace, for the width count.
std::string concat(const std::vector<std::string>& items, const std::string& indent,
                   size_t lead = 0, size_t tail = 1);

// ---- Module ------------------------------------------------------------------

/// A parameter of a parameterized module, `parameter int Name = default`, or with `local` a
/// localparam of the module's header, `localparam int Name = value`: a fixed figure of the
/// config that the port widths are written in.
struct Param {
  std::string name;
  int64_t default_value;
  std::string doc;
  bool local = false;
  std::string value_text = "";  ///< a localparam's value as written, when not the number
  std::string type = "int";     ///< the parameter's type, e.g. "logic [63:0]"
};

/// `/// doc` lines, `module name (`, the ports with their comments, `);`.
/// `doc` may hold several lines.
std::string module_header(const std::string& module, const std::string& doc,
                          const std::vector<Port>& ports, const std::vector<Param>& params = {});

/// `module inst (.port(signal), ...);` with the ports aligned; with
/// `params`, `module #(.Name(value), ...) inst (...)`.
std::string instance(const std::string& module, const std::string& inst,
                     const std::vector<std::pair<std::string, std::string>>& connections,
                     const std::string& indent = "  ",
                     const std::vector<std::pair<std::string, std::string>>& params = {});

/// One named field of a pipeline stage: `name` (the stage's signal is
/// <stage>_<name>), its width in bits (0: a scalar), the expression that
/// feeds it and, when set, its width as written in the module's named figures
/// (`Lanes*AccBits`).
struct Field {
  std::string name;
  int64_t width;
  std::string in;
  std::string width_expr = "";
};

/// A module under construction: header, body text, and the records of the
/// operators and instances it holds. str() and file() check the line width.
class SvModule {
 public:
  SvModule(std::string name, std::string doc);

  const std::string& name() const { return name_; }

  SvModule& param(const std::string& name, int64_t default_value, const std::string& doc);
  /// A parameter of another type than int (`parameter logic [63:0] Cuts = 64'h1`), its
  /// default written as it is; not a figure the port widths can be written in.
  SvModule& param(const std::string& name, const std::string& type, const std::string& value,
                  const std::string& doc);
  /// A localparam of the header (`#(localparam int Name = value, ...)`), for the port widths of
  /// a module that is not parameterized: `input logic [Channels*ActBits-1:0] act_idx_i`.
  /// Declared before the ports that use it; left out of str() when nothing uses it.
  SvModule& header_localparam(const std::string& name, int64_t value, const std::string& doc);
  /// The same with its value written as an expression of the header localparams before it
  /// (`LaneBits = BeatIndices*WeightBits`).
  SvModule& header_localparam(const std::string& name, const std::string& expr,
                              const std::string& doc);
  /// A localparam of a parameterized module's header written in its parameters
  /// (`localparam int Width = $clog2(Inputs + 1)`), for the port widths: not evaluated, so a
  /// port width written in it has no number.
  SvModule& param_localparam(const std::string& name, const std::string& expr,
                             const std::string& doc);
  /// A port. A width written as an expression (Port::width_expr) of numbers and header
  /// localparams is evaluated, so the port's number (what the manifest lists) and its text
  /// come from the same figures; a number given beside it must agree (std::logic_error).
  SvModule& port(const Port& p);
  SvModule& ports(const std::vector<Port>& ps);

  /// `localparam int Name = value;` with its `///` comment when doc is set;
  /// left out of str() when nothing in the module uses Name.
  SvModule& localparam(const std::string& name, int64_t value, const std::string& doc = "");
  /// `localparam int Name = expr;` for a parameterized module.
  SvModule& localparam(const std::string& name, const std::string& expr,
                       const std::string& doc = "");
  /// A pipeline stage (the free pipe_stage()) in the body; a field width written as an
  /// expression of the module's localparams of numbers and header localparams must agree with
  /// the field's number (std::logic_error).
  SvModule& pipe_stage(const std::string& stage, int stages, const std::string& valid_in,
                       const std::vector<Field>& fields, const std::string& indent = "  ");
  /// Body text, taken as it is (lines already indented, newlines included).
  SvModule& operator<<(const std::string& text);
  /// "  // text", the text wrapped at kMaxColumns.
  SvModule& comment(const std::string& text, const std::string& indent = "  ");

  /// Records an operator (see OpRecord). A width or count that names a
  /// localparam of a number is recorded as the number.
  void op(const std::string& kind, const std::string& width, const std::string& at,
          const std::string& count = "1");
  void op(const std::string& kind, int64_t width, const std::string& at, int64_t count = 1);
  /// Emits an instance (see instance()) and records it, `count` times over.
  SvModule& inst(const std::string& module, const std::string& inst_name,
                 const std::vector<std::pair<std::string, std::string>>& connections,
                 const std::string& indent = "  ",
                 const std::vector<std::pair<std::string, std::string>>& params = {},
                 const std::string& count = "1");

  /// The value of `expr` over the module's localparams of numbers and its header
  /// localparams (evaluate()), when it has one.
  std::optional<int64_t> value_of(const std::string& expr) const;

  const std::vector<OpRecord>& ops() const { return ops_; }
  const std::vector<InstanceRecord>& instances() const { return instances_; }

  /// The module's text, `endmodule` included; throws std::logic_error naming
  /// the module and the line when a line is longer than kMaxColumns.
  std::string str() const;
  /// {name + ".sv", str()} with the records.
  SvFile file() const;

 private:
  /// The number a localparam of a number, or an expression of them, stands for; other text as
  /// it is.
  std::string resolve(const std::string& text) const;

  std::string name_, doc_;
  std::vector<Param> params_;
  std::vector<Port> ports_;
  std::string body_;
  std::vector<std::pair<std::string, std::string>> localparams_;  ///< name, declaration
  std::vector<OpRecord> ops_;
  std::vector<InstanceRecord> instances_;
  /// The localparams of numbers and the header's, for evaluate().
  std::map<std::string, int64_t> figures() const;
  /// The value of a width written as `expr`, when it has one; a std::logic_error naming
  /// `what` when it differs from `width` (0: no number given).
  std::optional<int64_t> checked_width(const std::string& what, int64_t width,
                                       const std::string& expr) const;

  std::map<std::string, std::string> numeric_;  ///< localparams of numbers
  std::map<std::string, int64_t> header_;       ///< header localparams
};

/// The value of `expr`, a width written with numbers, names of `names`, `+`, `-`, `*` and
/// parentheses; nothing when it holds anything else (a parameter, a function).
std::optional<int64_t> evaluate(const std::string& expr,
                                const std::map<std::string, int64_t>& names);

/// Throws std::logic_error when a line of `text` is longer than kMaxColumns.
void check_columns(const std::string& where, const std::string& text);

// ---- Registers and pipeline stages -------------------------------------------

/// One register of an always_ff: its _q, the value it takes (its _d or an
/// expression) and its reset value.
struct Reg {
  std::string q;
  std::string d;
  std::string reset = "'0";
};

/// `always_ff @(posedge clk_i or negedge rst_ni)` resetting `regs` to their
/// reset values and loading them otherwise (under `enable` when set), the
/// names aligned.
std::string registers(const std::vector<Reg>& regs, const std::string& indent = "  ",
                      const std::string& enable = "");

/// `always_ff @(posedge clk_i)` loading `regs` (under `enable` when set), the names aligned,
/// with no reset (their reset values are not used): registers of data that a valid bit says
/// when to read, which need none (a flip-flop with a reset is about twice the area in osu018).
std::string data_registers(const std::vector<Reg>& regs, const std::string& indent = "  ",
                           const std::string& enable = "");

/// A stage of `stages` registers with a valid bit (oasis_fp_pipe) over a
/// record of named fields: declares <stage>_valid and <stage>_<field> for
/// every field, packs the fields (first field most significant) into the
/// pipe and unpacks them behind it, so that no field is read through a
/// computed offset. The pipe is u_<stage>_pipe; its data, <stage>_q. When a
/// field's width is written as an expression, the record's width is a
/// localparam <Stage>Bits, the sum of the fields' widths as written.
std::string pipe_stage(const std::string& stage, int stages, const std::string& valid_in,
                       const std::vector<Field>& fields, const std::string& indent = "  ");

// ---- Shared parameterized modules -----------------------------------------------

/// oasis_<config>_mux_tree: entry sel_i of Entries entries of Width bits (an
/// entry past the end reads 0), a balanced tree of 2-to-1 multiplexers SelBits
/// levels deep. A chain of `if (sel == e)` comparisons over K channels
/// synthesizes to a path K multiplexers long (4210 cells for the paper's
/// K = 4096; Yosys took 54 minutes on such a line).
SvFile mux_tree_module(const Config& c);

/// An instance of the mux tree in `m` (recorded), its parameters given as
/// numbers (checked) or as the parameters of a parameterized module.
void mux_tree(SvModule& m, const Config& c, const std::string& inst, int64_t entries, int width,
              int sel_bits, const std::string& data, const std::string& sel, const std::string& out,
              const std::string& indent = "  ", const std::string& count = "1");
void mux_tree(SvModule& m, const Config& c, const std::string& inst, const std::string& entries,
              const std::string& width, const std::string& sel_bits, const std::string& data,
              const std::string& sel, const std::string& out, const std::string& indent = "  ",
              const std::string& count = "1");

/// oasis_<config>_hold_mux: the same function as the mux tree, for a select that holds while
/// the entries move (an outlier's position in the weight beat, fixed for a token): each entry
/// ANDed with its line of the select decoded one-hot, kept nets, then a balanced OR tree; only
/// the selected entry's path switches. About a third more cells than the tree.
SvFile hold_mux_module(const Config& c);
/// An instance of it in `m` (recorded), its parameters as numbers (checked).
void hold_mux(SvModule& m, const Config& c, const std::string& inst, int64_t entries, int width,
              int sel_bits, const std::string& data, const std::string& sel, const std::string& out,
              const std::string& indent = "  ", const std::string& count = "1");

}  // namespace oasis::gen
