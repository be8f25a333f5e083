// SPDX-License-Identifier: Apache-2.0
// NumPy .npy files in and out (format versions 1.0, 2.0 and 3.0), so a user
// can calibrate on activations dumped from their own model (docs/spec.md section 3).
//
// Supported: little-endian float16, float32, float64, uint8 and int32, C order,
// any number of dimensions. Anything else, and any malformed or truncated file,
// is refused with one NpyError whose message names the file and the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

/// A file that cannot be read or written; what() names the file and why.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class NpyType { kFloat16, kFloat32, kFloat64, kUint8, kInt32 };

/// NumPy's name of the type: "float16", "float32", "float64", "uint8", "int32".
const char* npy_type_name(NpyType type);
size_t npy_item_size(NpyType type);

/// An array as stored: element type, shape (C order) and the raw
/// little-endian bytes of its elements.
struct NpyArray {
  NpyType type = NpyType::kFloat32;
  std::vector<size_t> shape;
  std::vector<uint8_t> bytes;

  size_t count() const;  ///< number of elements (1 for a 0-d array)

  static NpyArray from_fp16(std::vector<size_t> shape, std::span<const Fp16> values);
  static NpyArray from_float(std::vector<size_t> shape, std::span<const float> values);
  static NpyArray from_double(std::vector<size_t> shape, std::span<const double> values);
  static NpyArray from_uint8(std::vector<size_t> shape, std::span<const uint8_t> values);
  static NpyArray from_int32(std::vector<size_t> shape, std::span<const int32_t> values);

  /// The elements as binary16: float16 as stored, float32 and float64 rounded
  /// once to nearest even. Other types throw NpyError naming `what`.
  std::vector<Fp16> to_fp16(const std::string& what) const;
  /// float16 or float32 elements as float (exact), float64 rounded once to
  /// nearest even.
  std::vector<float> to_float(const std::string& what) const;
  /// float16, float32 or float64 elements as double (exact).
  std::vector<double> to_double(const std::string& what) const;
  /// uint8, or int32 elements in 0..255, as bytes.
  std::vector<uint8_t> to_uint8(const std::string& what) const;
};

/// Parses the bytes of a .npy file; `origin` names it in messages.
NpyArray parse_npy(std::span<const uint8_t> file, const std::string& origin);
/// The bytes of a version 1.0 .npy file (header padded to 64 bytes).
std::vector<uint8_t> serialize_npy(const NpyArray& array);

NpyArray read_npy(const std::string& path);
/// Writes to a temporary file beside `path` and renames it into place, so a
/// failed write leaves nothing half-written.
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace oasis
