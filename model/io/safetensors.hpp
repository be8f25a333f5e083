// SPDX-License-Identifier: Apache-2.0
// Safetensors checkpoints in (the format LLM checkpoints are published in): an
// 8-byte little-endian header length N, N bytes of JSON naming every tensor's
// dtype, shape and byte range [begin, end) in the data that follows, then the
// raw little-endian data. The header is checked whole before any tensor is
// read: known dtypes, ranges inside the data, no two ranges overlapping, every
// data byte belonging to one tensor (the format's rule against holes), shape
// and byte count agreeing, no name twice. A tensor is then read on its own,
// so a checkpoint of many gigabytes costs the memory of its largest tensor.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

/// A file that cannot be read; what() names the file and what is wrong.
class SafetensorsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One tensor's entry in the header.
struct SafetensorsTensor {
  std::string name;
  std::string dtype;            ///< as in the header: "F16", "BF16", "F32", ...
  std::vector<uint64_t> shape;  ///< C order
  uint64_t begin = 0, end = 0;  ///< byte range in the data section
  uint64_t count() const;       ///< number of elements (1 for shape [])
};

/// The dtypes of the format, with their sizes in bytes; any other is refused.
size_t safetensors_dtype_size(const std::string& dtype);  ///< 0 if unknown
/// The dtypes read_fp16 converts: F16, BF16, F32, F64.
bool safetensors_dtype_is_float(const std::string& dtype);

class SafetensorsFile {
 public:
  /// Reads and checks the header of the file at `path`.
  static SafetensorsFile open(const std::string& path);
  /// Checks a whole file held in memory; `origin` names it in messages.
  static SafetensorsFile parse(std::span<const uint8_t> file, const std::string& origin);

  const std::string& origin() const { return origin_; }
  /// Every tensor, in the header's order.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  /// The header's "__metadata__" (string to string), if any.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  /// The tensor named `name`; throws SafetensorsError naming the tensors there are.
  const SafetensorsTensor& tensor(const std::string& name) const;
  /// Its elements as binary16: F16 as stored, BF16, F32 and F64 rounded once to nearest even
  /// (BF16 widened to binary32 exactly first). Other dtypes throw SafetensorsError.
  std::vector<Fp16> read_fp16(const std::string& name) const;
  /// Its raw little-endian bytes.
  std::vector<uint8_t> read_bytes(const std::string& name) const;

 private:
  static SafetensorsFile parse_header(std::span<const uint8_t> header, uint64_t data_size,
                                      const std::string& origin);

  std::string origin_;
  std::string path_;            // empty when parsed from memory
  std::vector<uint8_t> bytes_;  // the whole file when parsed from memory
  uint64_t data_offset_ = 0;    // 8 + N
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, size_t> by_name_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace oasis
