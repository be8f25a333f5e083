// SPDX-License-Identifier: Apache-2.0
// Small safetensors files for the tests, written the way the format says: an
// 8-byte little-endian header length, the JSON header padded with spaces to a
// multiple of 8, the tensors' bytes back to back in header order.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis::test {

struct StTensor {
  std::string name, dtype;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;  ///< little-endian elements
};

inline void put_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

inline std::vector<uint8_t> f16_bytes(const std::vector<Fp16>& v) {
  std::vector<uint8_t> out;
  for (const Fp16 h : v) put_le(out, h.bits, 2);
  return out;
}
inline std::vector<uint8_t> bf16_bytes(const std::vector<uint16_t>& bits) {
  std::vector<uint8_t> out;
  for (const uint16_t b : bits) put_le(out, b, 2);
  return out;
}
inline std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out;
  for (const float f : v) put_le(out, std::bit_cast<uint32_t>(f), 4);
  return out;
}
inline std::vector<uint8_t> f64_bytes(const std::vector<double>& v) {
  std::vector<uint8_t> out;
  for (const double d : v) put_le(out, std::bit_cast<uint64_t>(d), 8);
  return out;
}

/// A file from a header text and the data section, the header padded to a multiple of 8.
inline std::vector<uint8_t> safetensors_bytes(std::string header,
                                              const std::vector<uint8_t>& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> out;
  put_le(out, header.size(), 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

/// The header text of `tensors` laid out back to back, with optional metadata entries.
inline std::string safetensors_header(const std::vector<StTensor>& tensors,
                                      const std::string& metadata = "") {
  std::string h = "{";
  if (!metadata.empty()) h += "\"__metadata__\":{" + metadata + "},";
  uint64_t at = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const StTensor& t = tensors[i];
    std::string shape;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (d > 0) shape += ',';
      shape += std::to_string(t.shape[d]);
    }
    if (i > 0) h += ',';
    h += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[" + shape +
         "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + t.data.size()) +
         "]}";
    at += t.data.size();
  }
  return h + "}";
}

inline std::vector<uint8_t> safetensors_file(const std::vector<StTensor>& tensors,
                                             const std::string& metadata = "") {
  std::vector<uint8_t> data;
  for (const StTensor& t : tensors) data.insert(data.end(), t.data.begin(), t.data.end());
  return safetensors_bytes(safetensors_header(tensors, metadata), data);
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace oasis::test
