// SPDX-License-Identifier: Apache-2.0
// The system wrapper (block axi, docs/axi.md): the one source of its AXI4-Lite register map,
// its error codes, the descriptor of a layer and the layout of a layer in memory. The
// generator writes the map into regmap.json, the C++ regmap header and the C driver, and the
// RTL decodes the same offsets; the host-side packing here is what the generated C driver's
// packing must equal byte for byte (test_generated_headers), and what the wrapper's
// testbench checks its memory against.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"

namespace oasis {

/// Byte-address bits of the AXI4-Lite window: 4 KB.
inline constexpr int kAxiLiteAddrBits = 12;
/// Data bits of the AXI4-Lite port.
inline constexpr int kAxiLiteDataBits = 32;
/// Bytes between two words of the register file in the window: word w of regmap.json's
/// regions is the 32-bit register at byte offset 4 w, its value in bits 15:0.
inline constexpr int kAxiRegfileStride = 4;
/// The ID register's value: "OASI" in ASCII.
inline constexpr uint32_t kAxiIdValue = 0x4F415349u;
/// The map's version (the VERSION register): changes when an offset or a field changes.
inline constexpr uint32_t kAxiMapVersion = 1;
/// AXI IDs of the memory master: descriptors, and a layer's tables, token and weights.
inline constexpr int kAxiDescId = 0;
inline constexpr int kAxiDataId = 1;
inline constexpr int kAxiWriteId = 0;

/// Descriptor flags.
inline constexpr uint16_t kAxiFlagChain = 1;   ///< go on with the descriptor at `next`
inline constexpr uint16_t kAxiFlagTables = 2;  ///< load the layer's tables from `tables` first

/// How software may access a register.
enum class AxiAccess { kReadOnly, kReadWrite, kWriteOnly, kWriteOneToClear };
/// "ro", "rw", "wo" or "w1c".
std::string access_name(AxiAccess a);

struct AxiField {
  std::string name;  ///< lower_snake_case
  int lsb = 0;
  int bits = 1;
  std::string meaning;
};

/// One 32-bit register of the control window.
struct AxiRegister {
  std::string name;  ///< lower_snake_case: the RTL, C and C++ names derive from it
  uint32_t offset = 0;
  AxiAccess access = AxiAccess::kReadOnly;
  std::string meaning;
  std::vector<AxiField> fields;  ///< empty: the whole word is one value
  bool constant = false;         ///< a value fixed by the config (below)
  uint32_t value = 0;
};

/// The reasons a start stops with an error (STATUS.code).
struct AxiErrorCode {
  std::string name;
  int code = 0;
  std::string meaning;
};

/// One field of a descriptor in memory, little endian.
struct AxiDescField {
  std::string name;
  int offset = 0;
  int bytes = 0;
  std::string meaning;
};

/// The AXI4-Lite map: the register file's window, the control registers, the error codes and
/// the descriptor's format.
struct AxiLiteMap {
  int regfile_base = 0;   ///< byte offset of register-file word 0
  int regfile_words = 0;  ///< words of the window: 2^kRegAddrBits
  std::vector<AxiRegister> registers;
  std::vector<AxiErrorCode> errors;
  std::vector<AxiDescField> descriptor;
  std::vector<AxiField> flags;  ///< the bits of the descriptor's `flags`
  const AxiRegister& reg(const std::string& name) const;
  int error(const std::string& name) const;
};

AxiLiteMap axi_lite_map(const Config& config);

/// A layer's descriptor (docs/axi.md, Descriptor).
struct AxiDescriptor {
  uint64_t next = 0, tables = 0, token = 0, weights = 0, output = 0;
  uint32_t channels = 0, rows = 0, group_stride = 0;
  uint16_t token_scale = 0, flags = 0;
  uint32_t tag = 0, reserved = 0;
};

/// The descriptor's 64 bytes.
std::array<uint8_t, 64> encode_descriptor(const AxiDescriptor& d);

/// The error code the wrapper gives a descriptor at `position` of its chain (1 for the first),
/// 0 when it runs; the checks in the RTL's order (docs/axi.md, Errors).
int axi_check_descriptor(const Config& config, const AxiDescriptor& d, uint64_t position);
/// The error code of a start at descriptor address `addr` (DESC_ADDR), 0 when it is usable.
int axi_check_start(const Config& config, uint64_t addr);

/// Bytes of a layer's buffers in memory (docs/axi.md, Memory layout).
int64_t axi_table_bytes(const Config& config);
int64_t axi_token_bytes(const Config& config);
/// The weight records of `rows` rows at `group_stride` bytes apart: (G - 1) stride + a record.
int64_t axi_weight_bytes(const Config& config, int64_t rows, int64_t group_stride);
/// The outputs the wrapper writes: 2 rows bytes (only those; the bursts' other bytes are off).
int64_t axi_output_bytes(int64_t rows);

/// The tables in memory: the LUT, C_A, C_W, the boundaries, binary16 little endian, then zeros
/// up to a whole bus beat.
std::vector<uint8_t> axi_pack_tables(const Config& config, const std::vector<Fp16>& lut,
                                     const std::vector<Fp16>& act_codebook,
                                     const std::vector<Fp16>& weight_codebook,
                                     const std::vector<Fp16>& boundaries);
/// The token: x̂[0 .. K-1], binary16 little endian, then zeros up to its bus beats.
std::vector<uint8_t> axi_pack_token(const Config& config, const std::vector<Fp16>& xhat);
/// The weight records of a matrix (rows x K indices, one scale a row), `group_stride` bytes
/// apart, the bytes between records 0: each record a head of the group's P scales, then its
/// F weight beats as the core takes them (docs/axi.md, Memory layout).
std::vector<uint8_t> axi_pack_weights(const Config& config,
                                      const std::vector<std::vector<uint8_t>>& iw,
                                      const std::vector<Fp16>& sw, int64_t group_stride);

}  // namespace oasis
