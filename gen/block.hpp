// SPDX-License-Identifier: Apache-2.0
// A block of the generator: one class per hardware block, emitting its
// SystemVerilog for a config, as FloPoCo's operators do. Blocks register
// themselves; oasis-gen emits every registered block for every config.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/config.hpp"

namespace oasis::gen {

/// One arithmetic or comparison operator a module emits, the delay annotation
/// a frequency-directed pipelining step reads: its kind ("fp_add", "fp_sub",
/// "fp_mul", "fp_convert", "fp_from_uint", "fp_compare", "add", "sub", "eq",
/// "lt", "mux"), its operand width in bits and how many of it one instance of
/// the module holds. Width and count are numbers, or expressions of the
/// module's parameters in a parameterized module; `at` names the signal or
/// instance it drives.
struct OpRecord {
  std::string kind;
  std::string width;
  std::string count;
  std::string at;
};

/// A submodule instance of a module, with the parameter values it is given
/// and how many of it one instance of the module holds (a generate loop's
/// count): with the operators, what a delay model composes.
struct InstanceRecord {
  std::string module;
  std::string instance;
  std::string count;
  std::vector<std::pair<std::string, std::string>> parameters;
};

/// One port of a module: direction "input" or "output", width in bits (0: a
/// one-bit scalar, 1 or more: a vector [width-1:0]), name, and the `///`
/// comment that documents it. `width_expr`, when set, is the width as a
/// parameter expression instead ("Inputs*Width").
struct Port {
  std::string dir;
  int width;
  std::string name;
  std::string doc;
  std::string width_expr = "";
};

/// One emitted SystemVerilog file; the generator adds the banner and the
/// `default_nettype lines around body.
struct SvFile {
  std::string name;  ///< file name, "<module>.sv"
  std::string body;
  std::vector<OpRecord> operators = {};        ///< the module's own operators
  std::vector<InstanceRecord> instances = {};  ///< its submodule instances
  /// Its ports in declaration order (the manifest lists a block's top
  /// module's as blocks.<block>.ports).
  std::vector<Port> ports = {};
};

/// Any other generated file (a register map, a C++ header). The generator
/// adds the banner with `comment` as the comment marker; JSON files (no
/// comments) leave it empty and carry the generator and hash as fields.
struct TextFile {
  std::string name;
  std::string body;
  std::string comment = "//";
};

/// A block's output. The rtl/ primitives it uses are not listed: the generator finds them by
/// the modules its files instantiate, and theirs.
struct BlockOutput {
  std::vector<std::string> uses;  ///< other blocks whose modules it instantiates
  std::vector<SvFile> files;      ///< its own modules, leaves first
  std::vector<TextFile> aux;      ///< other files it writes
  nlohmann::ordered_json manifest = nlohmann::ordered_json::object();  ///< derived figures
};

class Block {
 public:
  virtual ~Block() = default;
  /// lower_snake_case block name: module oasis_<config>_<name>, <name>.f.
  virtual std::string name() const = 0;
  virtual BlockOutput emit(const Config& config) const = 0;
};

/// Every registered block, sorted by name.
std::vector<const Block*> registered_blocks();

struct Registrar {
  explicit Registrar(std::unique_ptr<Block> block);
};

/// oasis_<config name>_<block>: the module name of a generated block.
std::string module_name(const Config& config, const std::string& block);

/// lower_snake_case -> UpperCamelCase, for the constants of the generated C++
/// headers (row_interval_cycles -> RowIntervalCycles).
std::string upper_camel(const std::string& snake);

/// A generate loop over `count` iterations with genvar `var` (indented two
/// spaces, body to follow); `bound` names `count` (a localparam or parameter of
/// the module) in the loop's condition, so that no loop's bound is a number.
/// Verilator refuses to unroll more than 1024 iterations, so longer loops are
/// split in blocks of 1024 with a localparam standing for the index; the block
/// and the number of blocks are localparams named after `label` (g_idx:
/// IdxBlock, IdxBlocks).
std::string loop_open(const std::string& var, int count, const std::string& label,
                      const std::string& bound);
/// The end of a loop_open(…, count, …).
std::string loop_close(int count);

}  // namespace oasis::gen

#define OASIS_REGISTER_BLOCK(cls) \
  static const ::oasis::gen::Registrar oasis_registrar_##cls { std::make_unique<cls>() }
