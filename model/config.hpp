// The one configuration object everything derives from: the RTL, the model's
// parameters, the testbench constants and the reports (STYLE: Gemmini).
//
// The schema is a table (config_schema()) that validation, defaults and the
// documentation (`oasis-gen --schema`, docs/config.md) are all read from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace oasis {

/// A config that cannot be used; what() names the field, what was found and
/// what is allowed. Tools print it and exit with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AccumulatorFormat { kFp32, kFp16 };

struct Config {
  std::string name;             ///< module prefix oasis_<name>_ and output folder
  int channels = 0;             ///< K: input channels = token length (Orizuru's N)
  int outliers_per_side = 0;    ///< k: outliers taken from each side of a token
  int act_bits = 0;             ///< nA: activation index bits
  int weight_bits = 0;          ///< nW: weight index bits
  int pe_lines = 0;             ///< P: PE lines (output rows in flight)
  int index_counters = 0;       ///< C: Index Counters per PE line
  int counter_inputs = 0;       ///< I: inputs per Index Counter
  int mac_tree_inputs = 0;      ///< T: inputs of the MAC tree per PE line
  int comp_macs = 0;            ///< Mc: error-compensation MACs per PE line
  int clustering_lanes = 0;     ///< activations clustered per cycle
  int clustering_levels_per_stage = 0;  ///< comparator levels between registers
  int orizuru_unit_inputs = 0;  ///< R: inputs of one Orizuru unit
  int orizuru_levels_per_stage = 0;     ///< comparator levels between registers
  int fp_pipeline_stages = 0;   ///< register stages inside each FP unit
  int weight_beat_indices = 0;  ///< weight indices per beat of the weight stream
  AccumulatorFormat accumulator = AccumulatorFormat::kFp32;
};

/// One field of the schema.
struct ConfigField {
  std::string key;
  std::string type;        ///< "string", "integer" or "enum"
  std::string symbol;      ///< the paper's symbol, if it has one
  std::string meaning;
  std::string unit;
  std::string allowed;     ///< human-readable range, as printed in errors
  nlohmann::json fallback; ///< default; null when the field is required
  int64_t min = 0;         ///< integers: inclusive range
  int64_t max = 0;
  bool power_of_two = false;
  std::vector<std::string> choices;  ///< enums
};

const std::vector<ConfigField>& config_schema();

/// Validates a JSON document against the schema and the cross-field rules.
/// `origin` names the document in messages (a file path).
Config parse_config(const nlohmann::json& doc, const std::string& origin);

/// Reads and parses a config file, applying `key=value` overrides (the value
/// is read as JSON when it parses as JSON, else as a string) before
/// validation. Throws ConfigError for anything wrong, file errors included.
Config load_config(const std::string& path,
                   const std::vector<std::string>& overrides = {});

/// The config as resolved: every field, defaults filled in, schema order.
nlohmann::ordered_json to_json(const Config& config);

/// Derived parameters (widths, counts, cycle figures) with their values, in a
/// fixed order; the manifest and the testbench header are written from this.
nlohmann::ordered_json derived_parameters(const Config& config);

/// FNV-1a 64-bit hash of the resolved config's canonical JSON text, as 16
/// lowercase hex digits: names the config in every generated file's banner.
std::string config_hash(const Config& config);

/// The schema as a Markdown table (docs/config.md is this text).
std::string config_schema_markdown();

// Derived quantities used by several blocks, written once.
int ceil_div(int a, int b);
int clog2(int64_t x);  ///< ceil(log2(x)), 0 for x <= 1 (like SystemVerilog $clog2)
/// Units of R inputs in the Orizuru composition for N leaves (273 for 4096/16).
int orizuru_units(int n, int r);
/// The cycles a PE line spends per output row (SPEC section 6), each phase
/// and the row interval they bound, written once for every consumer.
struct RowCycles {
  int count = 0;       ///< ceil(K / (C*I)): Index Counter beats
  int reduce = 0;      ///< ceil(2^(nA+nW) / T): MAC-tree cycles
  int compensate = 0;  ///< ceil(2k / Mc): compensation-MAC cycles
  int row = 0;         ///< the largest of the three
};
RowCycles row_cycles(const Config& config);
/// row_cycles(config).row.
int cycles_per_row(const Config& config);

}  // namespace oasis
