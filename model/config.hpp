// SPDX-License-Identifier: Apache-2.0
// The one configuration object everything derives from: the RTL, the model's
// parameters, the testbench constants and the reports, as Gemmini's config is.
//
// The fields are one table, OASIS_CONFIG_FIELDS: the struct, the schema
// (validation, defaults, `oasis-gen --schema`, docs/config.md), parsing and
// to_json are all generated from it, so a field is added in one place. What
// derives from a config (widths, formats, what a field set to 0 or -1 resolves
// to, every block's timing, the cycle bound) is computed once, by derive() in
// model/derived.hpp. parse_config writes one resolution back: the stage count
// a clock target sets (Derived::fp_stages into fp_pipeline_stages), so that the
// config as resolved names the stages the blocks have.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/int_math.hpp"

namespace oasis {

/// A config that cannot be used; what() names the field, what was found and
/// what is allowed. Tools print it and exit with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AccumulatorFormat { kFp32, kFp16 };

/// The text of each accumulator format, as a config writes it.
inline constexpr std::array<std::pair<std::string_view, AccumulatorFormat>, 2> kAccumulatorNames{
    {{"fp32", AccumulatorFormat::kFp32}, {"fp16", AccumulatorFormat::kFp16}}};

/// "fp32" or "fp16".
std::string accumulator_name(AccumulatorFormat format);

/// What the hardware may assume of the codebooks (docs/spec.md section 1, Symmetric codebooks).
enum class Codebooks { kFree, kSymmetric };

/// The text of each codebook setting, as a config writes it.
inline constexpr std::array<std::pair<std::string_view, Codebooks>, 2> kCodebookNames{
    {{"free", Codebooks::kFree}, {"symmetric", Codebooks::kSymmetric}}};

// The fields, in schema order, one row each:
//   STRING(key, meaning, allowed)
//   INTEGER(key, paper symbol, meaning, unit, min, max, default, power of two)
//   ENUM(key, C++ type, names, meaning, default)
// A default of nullptr makes the field required. Cross-field rules are in
// parse_config.
#define OASIS_CONFIG_FIELDS(STRING, INTEGER, ENUM)                                                \
  STRING(name, "Name of the configuration: generated modules are called oasis_<name>_<block>",    \
         "a lowercase SystemVerilog identifier of 1 to 32 characters: a letter, then letters, "   \
         "digits or '_' (no path separators)")                                                    \
  INTEGER(channels, "K",                                                                          \
          "Input channels of the GEMM, which is also the length of a token and so Orizuru's N",   \
          "channels", 2, 65536, nullptr, false)                                                   \
  INTEGER(outliers_per_side, "k",                                                                 \
          "Outliers taken from each side of a token (the k largest and the k smallest); 2k "      \
          "must not exceed channels",                                                             \
          "activations", 1, 32768, nullptr, false)                                                \
  INTEGER(act_bits, "nA", "Activation index width: 2^nA activation centroids", "bits", 1, 4,      \
          nullptr, false)                                                                         \
  INTEGER(weight_bits, "nW", "Weight index width: 2^nW weight centroids", "bits", 1, 4, nullptr,  \
          false)                                                                                  \
  INTEGER(pe_lines, "P", "PE lines, each computing one output row at a time", "lines", 1, 64, 16, \
          false)                                                                                  \
  INTEGER(index_counters, "C", "Index Counters per PE line", "counters", 1, 64, 32, false)        \
  INTEGER(counter_inputs, "I", "Concatenated indices one Index Counter takes per cycle",          \
          "indices", 1, 64, 16, false)                                                            \
  INTEGER(mac_tree_inputs, "T", "Count x LUT-entry products the MAC tree reduces per cycle",      \
          "inputs", 1, 256, 32, false)                                                            \
  INTEGER(comp_macs, "Mc", "Error-compensation MAC units per PE line", "MACs", 1, 64, 8, false)   \
  INTEGER(clustering_lanes, "", "Activations the Clustering Units classify per cycle",            \
          "activations/cycle", 1, 64, 4, false)                                                   \
  INTEGER(clustering_levels_per_stage, "",                                                        \
          "Comparator levels of the Clustering Unit's binary search between two pipeline "        \
          "registers",                                                                            \
          "levels", 1, 4, 1, false)                                                               \
  INTEGER(orizuru_unit_inputs, "R",                                                               \
          "Inputs of one Orizuru unit; the tree is composed of such units", "inputs", 2, 64, 16,  \
          true)                                                                                   \
  INTEGER(orizuru_levels_per_stage, "",                                                           \
          "Comparator levels of the Orizuru tree between two pipeline registers while the "       \
          "tree is built",                                                                        \
          "levels", 1, 16, 1, false)                                                              \
  INTEGER(orizuru_pop_levels, "",                                                                 \
          "Levels of the Orizuru tree, from the leaves, a pop rewrites in the cycle its outlier " \
          "is taken; the levels above, behind registers, in the next cycle, while the other "     \
          "side's outlier is presented, so no cycle is lost (docs/orizuru.md, Drain). -1: the "   \
          "lower half of the levels, rounded down; 0: all in the next cycle; the tree's levels "  \
          "or more: all in one cycle",                                                            \
          "levels", -1, 64, -1, false)                                                            \
  INTEGER(orizuru_pop_cycles, "",                                                                 \
          "Cycles over which a pop rewrites its path of the Orizuru tree, the levels above "      \
          "orizuru_pop_levels split evenly over the cycles after the first; a side presents its " \
          "next outlier that many cycles after its last, so above 2 the drain has gaps "          \
          "(docs/orizuru.md, Drain). 0: from target_period_fo4 when it is set (the fewest "       \
          "cycles whose levels fit it), else 2",                                                  \
          "cycles", 0, 64, 0, false)                                                              \
  INTEGER(topk_baseline_pop_cycles, "",                                                           \
          "Cycles from a pop of the k-round top-k baseline until its side's next winner: its "    \
          "pairwise trees split into that many parts by registers, each a build cycle more "      \
          "(docs/orizuru.md, Baseline). 0: from target_period_fo4 when it is set (the fewest "    \
          "cycles whose parts fit it), else 1",                                                   \
          "cycles", 0, 64, 0, false)                                                              \
  INTEGER(topk_sort_stages_per_cycle, "",                                                         \
          "Compare-exchange stages of the sorting-network top-k baseline between two of its "     \
          "registers, each register a build cycle more (docs/synth.md, Baselines). 0: from "      \
          "target_period_fo4 when it is set (as many as fit it), else all (one build cycle)",     \
          "stages", 0, 1000, 0, false)                                                            \
  INTEGER(index_counter_input_stage, "",                                                          \
          "A register between the Concat Units and the Index Counter array's decoders and "       \
          "trees, a cycle more of latency (docs/index_counter.md): 1 on, 0 off, -1 from "         \
          "target_period_fo4 (on when the delay model's concatenate-and-count path does not fit " \
          "it; off without a target)",                                                            \
          "", -1, 1, -1, false)                                                                   \
  INTEGER(index_counter_tree_registers, "",                                                       \
          "Registers inside the Index Counter array's compressor trees (and before its "          \
          "counting bank), each a cycle more of latency (docs/index_counter.md, Registers in "    \
          "the counting trees): that many, placed where the longest stage is shortest, or -1 "    \
          "from target_period_fo4 (the fewest with which the delay model's counting path fits "   \
          "it; none without a target)",                                                           \
          "registers", -1, 16, -1, false)                                                         \
  INTEGER(mac_line_operand_stage, "",                                                             \
          "A register between the MAC-line baseline's operand multiplexers (the beat's "          \
          "activation, the dequantized weight) and its multipliers, a cycle more of latency "     \
          "(docs/synth.md, Baselines): 1 on, 0 off, -1 from target_period_fo4 (on when the "      \
          "delay model's multiplexers and first multiplier stage do not fit it; off without a "   \
          "target)",                                                                              \
          "", -1, 1, -1, false)                                                                   \
  INTEGER(woq_group_size, "mu",                                                                   \
          "Activations in one group of the FIGLUT-class LUT line baseline "                       \
          "(woq_lut_line_baseline): its LUT holds the 2^(mu-1) signed sums of a group's "         \
          "activations, a weight bit-plane's mu digits pick one (docs/woq_lut_line.md)",          \
          "activations", 2, 8, 4, false)                                                          \
  INTEGER(woq_units, "",                                                                          \
          "Read-accumulate units of the FIGLUT-class line, each one row's reads of one LUT a "    \
          "cycle; 0: sized to the PE line's throughput, ceil(ceil(K / mu) * nW / row interval) "  \
          "(docs/woq_lut_line.md)",                                                               \
          "units", 0, 16384, 0, false)                                                            \
  INTEGER(woq_rows_per_lut, "",                                                                   \
          "Rows that share one LUT of the FIGLUT-class line, a read-accumulate unit each; the "   \
          "units are a whole number of times it, each LUT a group of the window the line works "  \
          "on; 0: all the units (one LUT)",                                                       \
          "rows", 0, 16384, 0, false)                                                             \
  INTEGER(woq_read_stage, "",                                                                     \
          "A register between the FIGLUT-class line's LUT reads and its accumulating adders, a "  \
          "cycle more of latency (docs/woq_lut_line.md): 1 on, 0 off, -1 from target_period_fo4 " \
          "(on when the delay model's read and first adder stage do not fit it; off without a "   \
          "target)",                                                                              \
          "", -1, 1, -1, false)                                                                   \
  INTEGER(pe_line_outlier_capture, "",                                                            \
          "How a PE line's outlier branch gets the outliers' weight indices (docs/pe_line.md, "   \
          "Outlier capture): 1 captured from the weight stream as a row fills (2k "               \
          "multiplexers of weight_beat_indices inputs), 0 read from the full row (a "             \
          "multiplexer of channels inputs a compensation MAC), -1 whichever costs fewer 2-to-1 "  \
          "multiplexers. A capturing line whose weight beat is a counting beat counts each "      \
          "beat as it is taken and keeps no row (Streamed counting)",                             \
          "", -1, 1, -1, false)                                                                   \
  INTEGER(weight_index_sram, "",                                                                  \
          "Where a PE line keeps its weight row (it captures its outliers and does not stream "   \
          "its counting), a counting beat is a power-of-two number of weight beats and a row "    \
          "at least two counting beats, 1 keeps the row in an SRAM (a module of its own around "  \
          "rtl/oasis_sram.sv, for a compiled macro to replace; docs/sram.md), 0 in flip-flops; "  \
          "the cycles are the same",                                                              \
          "", 0, 1, 1, false)                                                                     \
  INTEGER(fp_pipeline_stages, "",                                                                 \
          "Register stages of each floating-point unit (0: combinational); the accumulators "     \
          "keep max(1, S) partial sums, which sets their order (docs/numerics.md)",               \
          "stages", 0, 6, 1, false)                                                               \
  INTEGER(target_period_fo4, "",                                                                  \
          "Clock period the blocks are pipelined for, in FO4 delays: sets fp_pipeline_stages, "   \
          "orizuru_pop_cycles, topk_baseline_pop_cycles and topk_sort_stages_per_cycle when "     \
          "they are 0, and index_counter_input_stage, index_counter_tree_registers, "             \
          "mac_line_operand_stage and woq_read_stage when they are -1, from the delay model "     \
          "(docs/fp_rtl.md, "                                                                     \
          "Pipelining); 0 keeps fp_pipeline_stages as given; 130 is the paper's 500 MHz at "      \
          "28 nm",                                                                                \
          "FO4", 0, 100000, 0, false)                                                             \
  INTEGER(weight_beat_indices, "",                                                                \
          "Weight indices carried by one beat of the weight stream; at most channels", "indices", \
          1, 4096, 64, false)                                                                     \
  ENUM(accumulator, AccumulatorFormat, kAccumulatorNames,                                         \
       "Accumulation format of the MAC tree and compensation MACs (fp16 is the paper's "          \
       "choice)",                                                                                 \
       "fp32")                                                                                    \
  ENUM(codebooks, Codebooks, kCodebookNames,                                                      \
       "What the codebooks are: free, or both symmetric about zero (C[i] = -C[2^n - 1 - i] bit "  \
       "for bit), so that a product's sign is the XOR of the two indices' top bits and the line " \
       "counts 2^(nA+nW-2) magnitudes with signed counts, half the counting of free codebooks "   \
       "(docs/spec.md section 1, Symmetric codebooks); symmetric needs act_bits and weight_bits " \
       "of at least 2",                                                                           \
       "free")                                                                                    \
  INTEGER(axi_data_bits, "",                                                                      \
          "Data width of the system wrapper's AXI4 memory master (block axi, docs/axi.md)",       \
          "bits", 64, 512, 128, true)                                                             \
  INTEGER(axi_addr_bits, "", "Address width of the system wrapper's AXI4 memory master", "bits", \
          32, 64, 32, false)                                                                      \
  INTEGER(axi_id_bits, "",                                                                        \
          "ID width of the system wrapper's AXI4 memory master (descriptors are read with ID 0, " \
          "a layer's tables, token and weights with ID 1; writes use ID 0)",                      \
          "bits", 1, 8, 4, false)                                                                 \
  INTEGER(axi_max_burst, "",                                                                      \
          "Longest burst of the system wrapper's AXI4 master; a burst never crosses a 4 KB "      \
          "boundary, so axi_max_burst * axi_data_bits / 8 must not exceed 4096",                  \
          "beats", 1, 256, 16, false)                                                             \
  INTEGER(axi_outstanding_reads, "",                                                              \
          "Read bursts the system wrapper has in flight at most; its read buffer holds that "     \
          "many longest bursts (axi_outstanding_reads * axi_max_burst beats, at most 1024)",      \
          "bursts", 1, 32, 4, false)                                                              \
  INTEGER(axi_chain_limit, "",                                                                    \
          "Descriptors one start of the system wrapper runs at most: a chain that goes on "       \
          "(a loop) stops with an error at the descriptor past it",                               \
          "descriptors", 1, 65535, 1024, false)

/// A config: one member per row of OASIS_CONFIG_FIELDS (K = channels, k =
/// outliers_per_side, nA = act_bits, nW = weight_bits, P = pe_lines, C =
/// index_counters, I = counter_inputs, T = mac_tree_inputs, Mc = comp_macs,
/// R = orizuru_unit_inputs; the table gives each field's meaning and unit).
struct Config {
#define OASIS_CONFIG_STRING_MEMBER(key, ...) std::string key;
#define OASIS_CONFIG_INTEGER_MEMBER(key, ...) int key = 0;
#define OASIS_CONFIG_ENUM_MEMBER(key, type, ...) type key{};
  OASIS_CONFIG_FIELDS(OASIS_CONFIG_STRING_MEMBER, OASIS_CONFIG_INTEGER_MEMBER,
                      OASIS_CONFIG_ENUM_MEMBER)
#undef OASIS_CONFIG_STRING_MEMBER
#undef OASIS_CONFIG_INTEGER_MEMBER
#undef OASIS_CONFIG_ENUM_MEMBER
};

/// One field of the schema, made from its row of OASIS_CONFIG_FIELDS.
struct ConfigField {
  std::string key;
  std::string type;    ///< "string", "integer" or "enum"
  std::string symbol;  ///< the paper's symbol, if it has one
  std::string meaning;
  std::string unit;
  std::string allowed;      ///< human-readable range, as printed in errors
  nlohmann::json fallback;  ///< default; null when the field is required
  int64_t min = 0;          ///< integers: inclusive range
  int64_t max = 0;
  bool power_of_two = false;
  std::vector<std::string> choices;  ///< enums
  /// Reads the field of a config as JSON; writes a value already validated.
  std::function<nlohmann::json(const Config&)> get;
  std::function<void(Config&, const nlohmann::json&)> set;
};

const std::vector<ConfigField>& config_schema();
/// The field of the schema called `key` (std::logic_error for a key the table lacks).
const ConfigField& config_field(std::string_view key);

/// Validates a JSON document against the schema and the cross-field rules.
/// `origin` names the document in messages (a file path).
Config parse_config(const nlohmann::json& doc, const std::string& origin);

/// Reads and parses a config file, applying `key=value` overrides (the value
/// is read as JSON when it parses as JSON, else as a string) before
/// validation. Throws ConfigError for anything wrong, file errors included.
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});
/// The same from a config's text; `origin` names it in messages. A file above 1 MiB, nesting
/// deeper than 16, a key given twice and a number beyond a double are refused, each naming
/// where (docs/config.md).
Config load_config_text(std::string_view text, const std::string& origin,
                        const std::vector<std::string>& overrides = {});

/// The config as resolved: every field, defaults filled in, schema order.
nlohmann::ordered_json to_json(const Config& config);

/// FNV-1a, 64 bits, over `text`, continuing from `h` (FNV's offset basis to start): the one
/// hash of the project, naming configs, and keying the results the flows reuse.
inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;
uint64_t fnv1a(std::string_view text, uint64_t h = kFnv1aOffsetBasis);

/// fnv1a of the resolved config's canonical JSON text, as 16 lowercase hex
/// digits: names the config in every generated file's banner.
std::string config_hash(const Config& config);

/// The schema as a Markdown table (docs/config.md is this text).
std::string config_schema_markdown();

}  // namespace oasis

#include "model/derived.hpp"
