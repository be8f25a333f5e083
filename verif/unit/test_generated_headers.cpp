// SPDX-License-Identifier: Apache-2.0
// The C++ headers oasis-gen writes, compiled: verif/CMakeLists.txt generates
// configs/default.json and configs/paper.json at build time and puts their
// folders on this test's include path. Every constant of
// oasis_<name>_params.hpp and oasis_<name>_regmap.hpp that host code or a
// testbench would read is checked against the model: every field of the config
// and every derived figure (by the model's tables), each block's figures and
// the register map.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gen/block.hpp"
#include "model/config.hpp"
#include "model/cycle/regfile.hpp"
#include "oasis_default_params.hpp"
#include "oasis_default_regmap.hpp"
#include "oasis_paper_params.hpp"
#include "oasis_paper_regmap.hpp"

namespace oasis {
namespace {

Config shipped(const std::string& name) {
  return load_config(std::string(OASIS_SOURCE_DIR) + "/configs/" + name + ".json");
}

const RegisterRegion& region(const Config& c, const std::string& name) {
  static std::vector<RegisterRegion> map;
  map = register_map(c);
  for (const auto& r : map) {
    if (r.name == name) return r;
  }
  throw std::logic_error("no region " + name);
}

// Every integer and boolean of `figures` (the config's fields in the schema's order, or
// derive()'s figures) as its constant in the generated params header of config `name`:
// `k<Key in UpperCamel> = value;`, read from the header's text, so that a field added to the
// schema is checked without a line here.
void expect_constants(const std::string& name, const nlohmann::ordered_json& figures) {
  std::ifstream in(fmt::format("{}/generated/configs/{}/oasis_{}_params.hpp", OASIS_BINARY_DIR,
                               name, name));
  std::stringstream whole;
  whole << in.rdbuf();
  ASSERT_FALSE(whole.str().empty()) << "no generated params header for config " << name;
  // The config's namespace itself, before the blocks' namespaces.
  const std::string text = whole.str().substr(0, whole.str().find("\n/// Block "));
  int checked = 0;
  for (const auto& [key, value] : figures.items()) {
    std::string line;
    if (value.is_number_integer()) {
      line = fmt::format("inline constexpr long long k{} = {};\n", gen::upper_camel(key),
                         value.get<long long>());
    } else if (value.is_boolean()) {
      line = fmt::format("inline constexpr bool k{} = {};\n", gen::upper_camel(key),
                         value.get<bool>() ? "true" : "false");
    } else {
      continue;
    }
    ++checked;
    EXPECT_NE(text.find(line), std::string::npos) << name << ": no line " << line;
  }
  EXPECT_GT(checked, 10) << name;
}

// The same checks for every generated namespace N (oasis_default, oasis_paper).
#define OASIS_CHECK_PARAMS(N, config_name)                                                       \
  do {                                                                                           \
    const Config c = shipped(config_name);                                                       \
    const Derived d = derive(c);                                                                 \
    EXPECT_EQ(std::string(N::kConfigName), c.name);                                              \
    EXPECT_EQ(std::string(N::kConfigHash), config_hash(c));                                      \
    /* Every field of the config and every derived figure, by the model's own tables: */     \
    /* compiled, and read back from the header's text. */                                      \
    EXPECT_EQ(N::kChannels, c.channels);                                                         \
    EXPECT_EQ(N::kAccumulatorFp16, c.accumulator == AccumulatorFormat::kFp16);                   \
    expect_constants(config_name, to_json(c));                                                   \
    expect_constants(config_name, d.to_json());                                                  \
    /* Each block's figures. */                                                                  \
    EXPECT_EQ(N::clustering_unit::kLatencyCycles, d.clustering_unit.latency);                    \
    EXPECT_EQ(N::clustering_unit::kPipelineStages, d.clustering_unit.stages);                    \
    EXPECT_EQ(N::clustering_unit::kComparators, d.clustering_unit.comparators);                  \
    EXPECT_EQ(N::orizuru::kUnits, d.orizuru.units);                                              \
    EXPECT_EQ(N::orizuru::kChannelBits, d.channel_bits);                                         \
    EXPECT_EQ(N::orizuru::kBuildLatencyCycles, d.orizuru.build_cycles);                          \
    EXPECT_EQ(N::orizuru::kCyclesPerToken, d.orizuru.cycles_per_token);                          \
    EXPECT_EQ(N::orizuru::kComparisonsPerToken, d.orizuru.comparisons_per_token);                \
    EXPECT_FALSE(N::orizuru::kLoadWhileDraining);                                                \
    EXPECT_EQ(N::topk_baseline::kComparisonsPerToken, d.topk_baseline.comparisons_per_token);    \
    EXPECT_EQ(N::index_counter_array::kLatencyCycles, d.index_counter_array.latency);            \
    EXPECT_EQ(N::index_counter_array::kRowIntervalCycles, d.index_counter_array.row_interval);   \
    EXPECT_EQ(N::index_counter_array::kCountBits, d.count_bits);                                 \
    EXPECT_EQ(N::pe_line::kRowIntervalCycles, d.pe_line.row_interval);                           \
    EXPECT_EQ(N::pe_line::kRowLatencyCycles, d.pe_line.row_latency);                             \
    EXPECT_EQ(N::pe_line::kFifoDepthRows, d.pe_line.fifo_depth);                                 \
    EXPECT_EQ(N::mac_line_baseline::kMacsPerCycle, d.mac_line_baseline.macs);                    \
    EXPECT_EQ(N::mac_line_baseline::kRowLatencyCycles, d.mac_line_baseline.row_latency);         \
    EXPECT_EQ(N::woq_lut_line_baseline::kUnits, d.woq_lut_line_baseline.units);                  \
    EXPECT_EQ(N::woq_lut_line_baseline::kBatchBeats, d.woq_lut_line_baseline.batch_beats);       \
    EXPECT_EQ(N::woq_lut_line_baseline::kRowLatencyCycles, d.woq_lut_line_baseline.row_latency); \
    EXPECT_EQ(N::woq_lut_line_baseline::kLoadCycles, d.woq_lut_line_baseline.load_cycles);       \
    EXPECT_EQ(N::core::kTokenBeats, d.core.token_beats);                                         \
    EXPECT_EQ(N::core::kGroupBeats, d.core.group_beats);                                         \
    EXPECT_EQ(N::core::kRowsBits, d.core.rows_bits);                                             \
    EXPECT_EQ(N::core::kRowIntervalCycles, d.row.row);                                           \
    EXPECT_EQ(N::core::kRowLatencyCycles, d.pe_line.row_latency);                                \
    EXPECT_EQ(N::core::kPreprocessCycles, d.core.preprocess_cycles);                             \
    EXPECT_EQ(N::regfile::kAddressBits, kRegAddrBits);                                           \
    EXPECT_EQ(N::fp16_add::kLatencyCycles, c.fp_pipeline_stages);                                \
    /* The register map. */                                                                      \
    EXPECT_EQ(N::regmap::kAddressBits, kRegAddrBits);                                            \
    EXPECT_EQ(N::regmap::kConfigHash, std::stoull(config_hash(c), nullptr, 16));                 \
    EXPECT_EQ(N::regmap::kLutBase, region(c, "lut").base);                                       \
    EXPECT_EQ(N::regmap::kLutWords, d.lut_entries);                                              \
    EXPECT_EQ(N::regmap::kActCodebookBase, region(c, "act_codebook").base);                      \
    EXPECT_EQ(N::regmap::kActCodebookWords, d.act_centroids);                                    \
    EXPECT_EQ(N::regmap::kWeightCodebookBase, region(c, "weight_codebook").base);                \
    EXPECT_EQ(N::regmap::kWeightCodebookWords, d.weight_centroids);                              \
    EXPECT_EQ(N::regmap::kBoundariesBase, region(c, "boundaries").base);                         \
    EXPECT_EQ(N::regmap::kBoundariesWords, d.boundaries);                                        \
    EXPECT_EQ(N::regmap::kConfigHashBase, region(c, "config_hash").base);                        \
    EXPECT_EQ(N::regmap::kConfigHashWords, 4);                                                   \
  } while (false)

TEST(GeneratedHeaders, DefaultConfigEqualsTheModel) {
  OASIS_CHECK_PARAMS(oasis_default, "default");
}

TEST(GeneratedHeaders, PaperConfigEqualsTheModel) {
  OASIS_CHECK_PARAMS(oasis_paper, "paper");
  // The paper's figures, as constants a host program can use at compile time.
  static_assert(oasis_paper::kCyclesPerRow == 8);
  static_assert(oasis_paper::kOrizuruUnits == 273);
  static_assert(oasis_paper::regmap::kLutWords == 256);
}

}  // namespace
}  // namespace oasis
