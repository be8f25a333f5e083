// SPDX-License-Identifier: Apache-2.0
// The register map: fixed bases, regions inside their reservations and
// disjoint for every nA, nW; the generated JSON map says the same; the model
// ignores writes outside writable words.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gen/generator.hpp"
#include "model/config.hpp"
#include "model/cycle/regfile.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::kDefault;

TEST(RegisterMap, RegionsFitAndAreDisjointForEveryWidth) {
  for (int na = 1; na <= 4; ++na) {
    for (int nw = 1; nw <= 4; ++nw) {
      const Config c = load_config(
          kDefault, {fmt::format("act_bits={}", na), fmt::format("weight_bits={}", nw)});
      const auto map = register_map(c);
      for (size_t i = 0; i < map.size(); ++i) {
        EXPECT_LE(map[i].size, map[i].capacity) << map[i].name;
        EXPECT_LE(map[i].base + map[i].capacity, 1 << kRegAddrBits) << map[i].name;
        for (size_t j = i + 1; j < map.size(); ++j) {
          EXPECT_TRUE(map[i].base + map[i].capacity <= map[j].base ||
                      map[j].base + map[j].capacity <= map[i].base)
              << map[i].name << " overlaps " << map[j].name;
        }
      }
      EXPECT_EQ(map[0].size, 1 << (na + nw));
      EXPECT_EQ(map[3].size, (1 << na) - 1);
    }
  }
}

TEST(RegisterMap, ModelWritesOnlyWritableMappedWords) {
  const Config c = load_config(kDefault, {"act_bits=2", "weight_bits=2"});
  RegFileModel m(c);
  m.write(0x00F, 0x1234);  // last LUT entry of 16
  m.write(0x010, 0x5678);  // beyond the LUT: ignored
  m.write(0x1FC, 0xFFFF);  // read-only hash: ignored
  EXPECT_EQ(m.read(0x00F), 0x1234);
  EXPECT_EQ(m.read(0x010), 0);
  const uint64_t hash = std::stoull(config_hash(c), nullptr, 16);
  EXPECT_EQ(m.read(0x1FC), uint16_t(hash));
  EXPECT_EQ(m.read(0x1FF), uint16_t(hash >> 48));
  EXPECT_EQ(m.region("boundaries").size(), 3u);
}

TEST(RegisterMap, GeneratedJsonMatchesTheModel) {
  const Config c = load_config(kDefault);
  const auto files = gen::render(c, {"configs/default.json", {}, "x"});
  const auto json = nlohmann::json::parse(files.at("regmap.json"));
  const auto map = register_map(c);
  ASSERT_EQ(json["regions"].size(), map.size());
  for (size_t i = 0; i < map.size(); ++i) {
    EXPECT_EQ(json["regions"][i]["name"], map[i].name);
    EXPECT_EQ(json["regions"][i]["base"], map[i].base);
    EXPECT_EQ(json["regions"][i]["words"], map[i].size);
  }
  EXPECT_TRUE(files.count("oasis_default_regmap.hpp"));
}

}  // namespace
}  // namespace oasis
