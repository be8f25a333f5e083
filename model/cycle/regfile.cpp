// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/regfile.hpp"

#include <stdexcept>

namespace oasis {

std::vector<RegisterRegion> register_map(const Config& c) {
  const Derived d = derive(c);
  return {
      {"lut", 0x000, d.lut_entries, 256, true,
       "Cartesian-product LUT L[(ia << nW) | iw] = fp16(C_A[ia] * C_W[iw])"},
      {"act_codebook", 0x100, d.act_centroids, 16, true, "activation centroids C_A, ascending"},
      {"weight_codebook", 0x110, d.weight_centroids, 16, true, "weight centroids C_W"},
      {"boundaries", 0x120, d.boundaries, 15, true,
       "clustering boundaries b_j, strictly ascending (docs/numerics.md)"},
      {"config_hash", 0x1FC, 4, 4, false,
       "the config's 64-bit hash, least significant word first (read-only)"},
  };
}

RegFileModel::RegFileModel(const Config& c) : map_(register_map(c)), words_(1 << kRegAddrBits) {
  const std::string hash = config_hash(c);
  const uint64_t h = std::stoull(hash, nullptr, 16);
  for (int i = 0; i < 4; ++i) words_[0x1FC + i] = uint16_t(h >> (16 * i));
}

const RegisterRegion* RegFileModel::find(int addr) const {
  for (const auto& r : map_) {
    if (addr >= r.base && addr < r.base + r.size) return &r;
  }
  return nullptr;
}

void RegFileModel::write(int addr, uint16_t data) {
  const RegisterRegion* r = find(addr);
  if (r && r->writable) words_[size_t(addr)] = data;
}

uint16_t RegFileModel::read(int addr) const { return find(addr) ? words_[size_t(addr)] : 0; }

std::vector<uint16_t> RegFileModel::region(const std::string& name) const {
  for (const auto& r : map_) {
    if (r.name == name) {
      return {words_.begin() + r.base, words_.begin() + r.base + r.size};
    }
  }
  throw std::invalid_argument("no register region " + name);
}

}  // namespace oasis
