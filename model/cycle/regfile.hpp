// SPDX-License-Identifier: Apache-2.0
// The run-time register port of the core (docs/spec.md section 6): the LUT, the two
// codebooks and the clustering boundaries, loaded per layer. The address map
// is derived from the config here, once; the generator writes it out as JSON
// and as a C++ header, and the RTL decodes the same addresses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace oasis {

/// Word address width of the register port.
inline constexpr int kRegAddrBits = 9;
/// Bits of a register word: one binary16 value (the model's words are uint16_t).
inline constexpr int kRegWordBits = 16;

struct RegisterRegion {
  std::string name;  ///< lower_snake_case, also the RTL output's stem
  int base = 0;      ///< first word address
  int size = 0;      ///< words used by this config
  int capacity = 0;  ///< words reserved in the map (size <= capacity)
  bool writable = true;
  std::string meaning;
};

/// lut (2^(nA+nW) binary16 entries, index (ia << nW) | iw), act_codebook
/// (2^nA), weight_codebook (2^nW), boundaries (2^nA - 1), config_hash (four
/// read-only words, least significant first). Bases are fixed so that host
/// software can be written once for every config.
std::vector<RegisterRegion> register_map(const Config& config);

/// The register file's behaviour: writes to writable mapped words take
/// effect, everything else is ignored; reads of unmapped words give 0.
class RegFileModel {
 public:
  explicit RegFileModel(const Config& config);
  void write(int addr, uint16_t data);
  uint16_t read(int addr) const;
  /// The words of one region (size() of them), as the RTL drives them.
  std::vector<uint16_t> region(const std::string& name) const;
  const std::vector<RegisterRegion>& map() const { return map_; }

 private:
  const RegisterRegion* find(int addr) const;
  std::vector<RegisterRegion> map_;
  std::vector<uint16_t> words_;
};

}  // namespace oasis
