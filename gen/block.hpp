// A block of the generator: one class per hardware block, emitting its
// SystemVerilog for a config (STYLE: FloPoCo). Blocks register themselves;
// oasis-gen emits every registered block for every config.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace oasis::gen {

/// One emitted SystemVerilog file; the generator adds the banner and the
/// `default_nettype lines around body.
struct SvFile {
  std::string name;  ///< file name, "<module>.sv"
  std::string body;
};

/// Any other generated file (a register map, a C++ header). The generator
/// adds the banner with `comment` as the comment marker; JSON files (no
/// comments) leave it empty and carry the generator and hash as fields.
struct TextFile {
  std::string name;
  std::string body;
  std::string comment = "//";
};

struct BlockOutput {
  std::vector<std::string> primitives;  ///< rtl/ files used, e.g. "oasis_fp_add.sv"
  std::vector<std::string> uses;        ///< other blocks whose modules it instantiates
  std::vector<SvFile> files;            ///< its own modules, leaves first
  std::vector<TextFile> aux;            ///< other files it writes
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
const Block* find_block(const std::string& name);

struct Registrar {
  explicit Registrar(std::unique_ptr<Block> block);
};

/// oasis_<config name>_<block>: the module name of a generated block.
std::string module_name(const Config& config, const std::string& block);

/// lower_snake_case -> UpperCamelCase, for the constants of the generated C++
/// headers (row_interval_cycles -> RowIntervalCycles).
std::string upper_camel(const std::string& snake);

/// A generate loop over `count` iterations with genvar `var` (indented two
/// spaces, body to follow). Verilator refuses to unroll more than 1024
/// iterations, so longer loops are split in blocks of 1024 with a localparam
/// standing for the index.
std::string loop_open(const std::string& var, int count, const std::string& label);
/// The end of a loop_open(…, count, …).
std::string loop_close(int count);

/// Reads entry `sel` (an expression of `sel_bits` bits) of `entries` entries of
/// `width` bits packed in `data` (entry e at [e*width +: width]) into `out`;
/// an entry past the end reads 0. A balanced tree of 2-to-1 multiplexers,
/// sel_bits levels deep, each level a vector `<name>_l<i>` read through
/// constant part-selects: a chain of `if (sel == e)` comparisons over K
/// channels synthesizes to a path K multiplexers long (4210 cells for the
/// paper's K = 4096; Yosys took 54 minutes on such a line). Every line is
/// prefixed with `indent`; the declarations come first, so it may open a
/// generate block.
std::string mux_tree(const std::string& name, const std::string& data, int entries, int width,
                     const std::string& sel, int sel_bits, const std::string& out,
                     const std::string& indent);

}  // namespace oasis::gen

#define OASIS_REGISTER_BLOCK(cls) \
  static const ::oasis::gen::Registrar oasis_registrar_##cls { std::make_unique<cls>() }
