// SPDX-License-Identifier: Apache-2.0
// The C driver of the system wrapper (docs/axi.md, The C driver): one C99 header,
// oasis_<name>_axi.h, from the map and the layout of model/cycle/axi.hpp and the figures of
// derive(). Its packing functions lay a layer into memory as the model's axi_pack_* do, byte for
// byte (verif/unit/test_generated_headers.cpp compares them).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "gen/axi.hpp"
#include "model/cycle/axi.hpp"
#include "model/cycle/regfile.hpp"
#include "model/derived.hpp"

namespace oasis::gen {
namespace {

std::string upper(std::string s) {
  for (char& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// The driver's functions, with $P_ (the prefix of a name: oasis_<config>_axi_) and $M_ (of a
// macro: OASIS_<CONFIG>_) filled in.
constexpr const char* kFunctions = R"(
/* ---------------------------------------------------------------- register access */

/* The device: the AXI4-Lite window's base address and the one pair of functions every
 * register access goes through ($P_init sets them to plain volatile loads and stores; a
 * simulation, a user-space mapping or a bus bridge gives its own). wait_irq, when not NULL,
 * returns once the interrupt line is high (or may be; $P_wait reads the status again). */
typedef struct $P_dev {
  uintptr_t base;
  uint32_t (*read32)(void *ctx, uintptr_t addr);
  void (*write32)(void *ctx, uintptr_t addr, uint32_t value);
  void (*wait_irq)(void *ctx);
  void *ctx;
} $P_dev;

static inline uint32_t $P_mmio_read32(void *ctx, uintptr_t addr) {
  (void)ctx;
  return *(volatile const uint32_t *)addr;
}

static inline void $P_mmio_write32(void *ctx, uintptr_t addr, uint32_t value) {
  (void)ctx;
  *(volatile uint32_t *)addr = value;
}

/* A device at `base` reached by plain loads and stores, polled. */
static inline void $P_init($P_dev *dev, uintptr_t base) {
  dev->base = base;
  dev->read32 = $P_mmio_read32;
  dev->write32 = $P_mmio_write32;
  dev->wait_irq = 0;
  dev->ctx = 0;
}

static inline uint32_t $P_read(const $P_dev *dev, uint32_t offset) {
  return dev->read32(dev->ctx, dev->base + offset);
}

static inline void $P_write(const $P_dev *dev, uint32_t offset, uint32_t value) {
  dev->write32(dev->ctx, dev->base + offset, value);
}

/* 0 when the device is this header's: its ID, map version and config hash; -1 otherwise. */
static inline int $P_check(const $P_dev *dev) {
  if ($P_read(dev, $M_REG_ID) != $M_ID_VALUE) return -1;
  if ($P_read(dev, $M_REG_VERSION) != $M_VERSION_VALUE) return -1;
  if ($P_read(dev, $M_REG_CONFIG_HASH_LO) != (uint32_t)$M_CONFIG_HASH) return -1;
  if ($P_read(dev, $M_REG_CONFIG_HASH_HI) != (uint32_t)($M_CONFIG_HASH >> 32)) return -1;
  return 0;
}

static inline int $P_busy(const $P_dev *dev) {
  return ($P_read(dev, $M_REG_STATUS) & $M_STATUS_BUSY_MASK) != 0;
}

/* The layer's tables through the register window (binary16 words): the LUT's $M_LUT_WORDS,
 * C_A's $M_ACT_CODEBOOK_WORDS, C_W's $M_WEIGHT_CODEBOOK_WORDS, the $M_BOUNDARIES_WORDS
 * boundaries. -1 while a chain runs (the window refuses writes then), else 0. */
static inline int $P_load_tables(const $P_dev *dev, const uint16_t *lut,
                                const uint16_t *act_codebook,
                                const uint16_t *weight_codebook,
                                const uint16_t *boundaries) {
  uint32_t i;
  if ($P_busy(dev)) return -1;
  for (i = 0; i < $M_LUT_WORDS; ++i) {
    $P_write(dev, $M_REGFILE_STRIDE * ($M_LUT_BASE + i), lut[i]);
  }
  for (i = 0; i < $M_ACT_CODEBOOK_WORDS; ++i) {
    $P_write(dev, $M_REGFILE_STRIDE * ($M_ACT_CODEBOOK_BASE + i), act_codebook[i]);
  }
  for (i = 0; i < $M_WEIGHT_CODEBOOK_WORDS; ++i) {
    $P_write(dev, $M_REGFILE_STRIDE * ($M_WEIGHT_CODEBOOK_BASE + i), weight_codebook[i]);
  }
  for (i = 0; i < $M_BOUNDARIES_WORDS; ++i) {
    $P_write(dev, $M_REGFILE_STRIDE * ($M_BOUNDARIES_BASE + i), boundaries[i]);
  }
  return 0;
}

/* A 64-bit counter (its _LO register's offset): high, low, high again until both highs
 * agree, so that a carry between the two reads is not torn. */
static inline uint64_t $P_counter(const $P_dev *dev, uint32_t lo_offset) {
  uint32_t hi, lo, again;
  hi = $P_read(dev, lo_offset + 4u);
  for (;;) {
    lo = $P_read(dev, lo_offset);
    again = $P_read(dev, lo_offset + 4u);
    if (again == hi) return ((uint64_t)hi << 32) | lo;
    hi = again;
  }
}

/* ---------------------------------------------------------------- memory layout */

static inline void $P_put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static inline void $P_put32(uint8_t *p, uint32_t v) {
  $P_put16(p, (uint16_t)v);
  $P_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void $P_put64(uint8_t *p, uint64_t v) {
  $P_put32(p, (uint32_t)v);
  $P_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t $P_get16(const uint8_t *p) {
  return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
}

/* `bits` bits of `value` at bit `at` of little-endian memory (bit i is bit i % 8 of byte
 * i / 8), into zeros. */
static inline void $P_put_bits(uint8_t *dst, uint64_t at, uint32_t bits, uint32_t value) {
  uint32_t i;
  for (i = 0; i < bits; ++i) {
    if ((value >> i) & 1u) dst[(at + i) / 8u] |= (uint8_t)(1u << ((at + i) % 8u));
  }
}

static inline void $P_zero(uint8_t *dst, uint64_t bytes) {
  uint64_t i;
  for (i = 0; i < bytes; ++i) dst[i] = 0;
}

/* The tables in memory for a descriptor with flag tables: $M_TABLE_BYTES bytes at dst. */
static inline void $P_pack_tables(uint8_t *dst, const uint16_t *lut, const uint16_t *act_codebook,
                                 const uint16_t *weight_codebook, const uint16_t *boundaries) {
  uint32_t i, w = 0;
  $P_zero(dst, $M_TABLE_BYTES);
  for (i = 0; i < $M_LUT_WORDS; ++i) $P_put16(dst + 2u * w++, lut[i]);
  for (i = 0; i < $M_ACT_CODEBOOK_WORDS; ++i) $P_put16(dst + 2u * w++, act_codebook[i]);
  for (i = 0; i < $M_WEIGHT_CODEBOOK_WORDS; ++i) $P_put16(dst + 2u * w++, weight_codebook[i]);
  for (i = 0; i < $M_BOUNDARIES_WORDS; ++i) $P_put16(dst + 2u * w++, boundaries[i]);
}

/* The token x^ ($M_CHANNELS binary16 values) in memory: $M_TOKEN_BYTES bytes at dst. */
static inline void $P_pack_token(uint8_t *dst, const uint16_t *xhat) {
  uint32_t k;
  $P_zero(dst, $M_TOKEN_BYTES);
  for (k = 0; k < $M_CHANNELS; ++k) $P_put16(dst + 2u * k, xhat[k]);
}

/* Groups of `rows` rows: ceil(rows / $M_LINES). */
static inline uint32_t $P_groups(uint32_t rows) { return (rows + $M_LINES - 1u) / $M_LINES; }

/* Bytes of the weight records of `rows` rows `stride` bytes apart. */
static inline uint64_t $P_weight_bytes(uint32_t rows, uint32_t stride) {
  return (uint64_t)($P_groups(rows) - 1u) * stride + $M_RECORD_BYTES;
}

/* The weight records of a matrix: iw holds rows x $M_CHANNELS indices row by row (one byte
 * each), sw the rows' binary16 scales; $P_weight_bytes(rows, stride) bytes at dst. A record:
 * the group's $M_LINES scales (lane p at bits 16 p), then its $M_GROUP_BEATS weight beats,
 * lane p of a beat holding row g $M_LINES + p, index i of it at bits
 * p $M_WEIGHT_BEAT_INDICES $M_WEIGHT_BITS + i $M_WEIGHT_BITS (docs/axi.md, Memory layout). */
static inline void $P_pack_weights(uint8_t *dst, const uint8_t *iw, const uint16_t *sw,
                                  uint32_t rows, uint32_t stride) {
  uint32_t g, p, b, i;
  $P_zero(dst, $P_weight_bytes(rows, stride));
  for (g = 0; g < $P_groups(rows); ++g) {
    const uint64_t base = 8u * (uint64_t)g * stride;
    for (p = 0; p < $M_LINES; ++p) {
      const uint32_t n = g * $M_LINES + p;
      if (n < rows) $P_put_bits(dst, base + 16u * p, 16u, sw[n]);
    }
    for (b = 0; b < $M_GROUP_BEATS; ++b) {
      const uint64_t beat = base + (uint64_t)$M_SCALE_BEATS * $M_BUS_BITS +
                            (uint64_t)(b / $M_W_SLOTS) * $M_W_PARTS * $M_BUS_BITS +
                            (uint64_t)(b % $M_W_SLOTS) * $M_W_BEAT_BITS;
      for (p = 0; p < $M_LINES; ++p) {
        const uint32_t n = g * $M_LINES + p;
        if (n >= rows) continue;
        for (i = 0; i < $M_WEIGHT_BEAT_INDICES && b * $M_WEIGHT_BEAT_INDICES + i < $M_CHANNELS;
             ++i) {
          $P_put_bits(dst,
                     beat + (uint64_t)p * $M_WEIGHT_BEAT_INDICES * $M_WEIGHT_BITS +
                         (uint64_t)i * $M_WEIGHT_BITS,
                     $M_WEIGHT_BITS, iw[(uint64_t)n * $M_CHANNELS + b * $M_WEIGHT_BEAT_INDICES + i]);
        }
      }
    }
  }
}

/* ---------------------------------------------------------------- descriptors and runs */

/* A layer: the addresses the accelerator reads and writes (bus addresses, each aligned to
 * $M_BUS_BYTES; next to $M_DESC_BYTES), its rows N, the bytes from one weight record to the
 * next, the token's scale s_a (binary16), flags ($M_FLAG_CHAIN, $M_FLAG_TABLES) and a tag. */
typedef struct $P_layer {
  uint64_t next, tables, token, weights, output;
  uint32_t rows, group_stride, tag;
  uint16_t token_scale, flags;
} $P_layer;

/* The layer's descriptor: $M_DESC_BYTES bytes at dst ($M_DESC_BYTES-aligned in the bus's
 * address space). */
static inline void $P_write_descriptor(uint8_t *dst, const $P_layer *l) {
  $P_put64(dst + $M_DESC_NEXT, l->next);
  $P_put64(dst + $M_DESC_TABLES, l->tables);
  $P_put64(dst + $M_DESC_TOKEN, l->token);
  $P_put64(dst + $M_DESC_WEIGHTS, l->weights);
  $P_put64(dst + $M_DESC_OUTPUT, l->output);
  $P_put32(dst + $M_DESC_CHANNELS, $M_CHANNELS);
  $P_put32(dst + $M_DESC_ROWS, l->rows);
  $P_put32(dst + $M_DESC_GROUP_STRIDE, l->group_stride);
  $P_put16(dst + $M_DESC_TOKEN_SCALE, l->token_scale);
  $P_put16(dst + $M_DESC_FLAGS, l->flags);
  $P_put32(dst + $M_DESC_TAG, l->tag);
  $P_put32(dst + $M_DESC_RESERVED, 0u);
}

/* Runs the chain whose first descriptor is at `desc_addr`: -1 while one runs, else 0. */
static inline int $P_start(const $P_dev *dev, uint64_t desc_addr) {
  if ($P_busy(dev)) return -1;
  $P_write(dev, $M_REG_DESC_ADDR_LO, (uint32_t)desc_addr);
  $P_write(dev, $M_REG_DESC_ADDR_HI, (uint32_t)(desc_addr >> 32));
  $P_write(dev, $M_REG_CTRL, $M_CTRL_START_MASK);
  return 0;
}

/* Waits until the chain is done or stopped and returns STATUS ($M_STATUS_DONE_MASK or
 * $M_STATUS_ERROR_MASK set, the error's code in $M_STATUS_CODE). With wait_irq it waits for
 * the interrupt (enabled for both events here) and clears both events; else it polls. */
static inline uint32_t $P_wait(const $P_dev *dev) {
  uint32_t status;
  if (dev->wait_irq) {
    $P_write(dev, $M_REG_IRQ_ENABLE, $M_IRQ_ENABLE_DONE_MASK | $M_IRQ_ENABLE_ERROR_MASK);
    while ((status = $P_read(dev, $M_REG_STATUS)) & $M_STATUS_BUSY_MASK) dev->wait_irq(dev->ctx);
    $P_write(dev, $M_REG_IRQ_STATUS, $M_IRQ_STATUS_DONE_MASK | $M_IRQ_STATUS_ERROR_MASK);
    return status;
  }
  while ((status = $P_read(dev, $M_REG_STATUS)) & $M_STATUS_BUSY_MASK) {
  }
  return status;
}

/* The error code of a STATUS value ($M_ERR_*), 0 without an error. */
static inline uint32_t $P_error_code(uint32_t status) {
  return (status & $M_STATUS_CODE_MASK) >> $M_STATUS_CODE_SHIFT;
}
)";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

}  // namespace

std::vector<TextFile> axi_c_headers(const Config& c) {
  const Derived d = derive(c);
  const AxiTiming& ax = d.axi;
  const AxiLiteMap map = axi_lite_map(c);
  const std::string M = "OASIS_" + upper(c.name) + "_";
  const std::string P = "oasis_" + c.name + "_axi_";  // replaces $P_
  std::string h;
  const auto define = [&](const std::string& name, const std::string& value,
                          const std::string& doc = "") {
    if (!doc.empty()) h += "/* " + doc + " */\n";
    h += fmt::format("#define {}{} {}\n", M, name, value);
  };
  const auto u = [](int64_t v) { return fmt::format("{}u", v); };
  const auto hex = [](int64_t v) { return fmt::format("0x{:03X}u", v); };
  h += fmt::format(
      "/* The C driver of the system wrapper oasis_{0}_axi (config '{0}', docs/axi.md): its\n"
      " * AXI4-Lite registers (regmap.json), error codes, descriptor and memory layout, and\n"
      " * functions to run layers from memory. C99, no allocation, every register access\n"
      " * through the device's read32 and write32. */\n"
      "#ifndef {1}AXI_H\n#define {1}AXI_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
      "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n",
      c.name, M);
  h += "/* ---------------------------------------------------------------- the config */\n";
  define("CONFIG_HASH", fmt::format("UINT64_C(0x{})", config_hash(c)), "the config's hash");
  define("CHANNELS", u(c.channels), "K: channels of a token and of a weight row");
  define("LINES", u(c.pe_lines), "P: rows of a group");
  define("ACT_BITS", u(c.act_bits));
  define("WEIGHT_BITS", u(c.weight_bits));
  define("WEIGHT_BEAT_INDICES", u(c.weight_beat_indices), "Wb: indices of a lane of a beat");
  define("GROUP_BEATS", u(d.core.group_beats), "F: weight beats of a group");
  define("MAX_ROWS", u(ax.max_rows), "the largest N of a descriptor");
  define("CHAIN_LIMIT", u(ax.chain_limit), "descriptors one start runs at most");
  define("ADDR_BITS", u(ax.addr_bits), "address bits of the memory master");
  define("BUS_BITS", u(ax.data_bits), "bits of a bus beat");
  define("BUS_BYTES", u(ax.data_bytes), "bytes of a bus beat: every buffer's alignment");
  define("DESC_BYTES", u(ax.desc_bytes), "bytes of a descriptor, and its alignment");
  define("TABLE_WORDS", u(ax.table_words), "binary16 words of a layer's tables");
  define("TABLE_BYTES", u(axi_table_bytes(c)), "bytes of a layer's tables in memory");
  define("TOKEN_BYTES", u(axi_token_bytes(c)), "bytes of a token in memory");
  define("SCALE_BEATS", u(ax.scale_beats), "bus beats of a weight record's scales");
  define("W_BEAT_BITS", u(ax.w_beat_bits), "bits of a weight beat");
  define("W_PARTS", u(ax.w_parts), "bus beats of a weight beat (1: it fits in one)");
  define("W_SLOTS", u(ax.w_slots), "weight beats of a bus beat (1: one or less)");
  define("RECORD_BYTES", u(ax.record_bytes), "bytes of a weight record, the least group_stride");
  h += "\n/* ---------------------------------------------------------------- registers */\n";
  define("REGFILE_BASE", hex(map.regfile_base),
         "register-file word w (regmap.json regions) is the register at 4 w, bits 15:0");
  define("REGFILE_STRIDE", u(kAxiRegfileStride));
  for (const RegisterRegion& r : register_map(c)) {
    define(upper(r.name) + "_BASE", hex(r.base), "region " + r.name + ": " + r.meaning);
    define(upper(r.name) + "_WORDS", u(r.size));
  }
  for (const AxiRegister& r : map.registers) {
    define("REG_" + upper(r.name), hex(r.offset),
           fmt::format("{} ({})", r.meaning, access_name(r.access)));
    for (const AxiField& f : r.fields) {
      const uint64_t mask = ((uint64_t{1} << f.bits) - 1) << f.lsb;
      define(upper(r.name) + "_" + upper(f.name) + "_SHIFT", u(f.lsb), f.meaning);
      define(upper(r.name) + "_" + upper(f.name) + "_MASK", fmt::format("0x{:08X}u", mask));
    }
  }
  define("ID_VALUE", fmt::format("0x{:08X}u", kAxiIdValue), "the ID register's value");
  define("VERSION_VALUE", u(kAxiMapVersion), "the VERSION register's value");
  h += "\n/* ---------------------------------------------------------------- error codes */\n";
  for (const AxiErrorCode& e : map.errors) define("ERR_" + upper(e.name), u(e.code), e.meaning);
  h += "\n/* ---------------------------------------------------------------- descriptors */\n";
  for (const AxiDescField& f : map.descriptor) {
    define("DESC_" + upper(f.name), fmt::format("0x{:02X}u", f.offset),
           fmt::format("{} ({} bytes)", f.meaning, f.bytes));
  }
  for (const AxiField& f : map.flags) {
    define("FLAG_" + upper(f.name), fmt::format("0x{:X}u", 1 << f.lsb), f.meaning);
  }
  std::string fns = replace_all(kFunctions, "$P_", P);
  fns = replace_all(fns, "$M_", M);
  h += fns;
  h += "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return {{fmt::format("oasis_{}_axi.h", c.name), h}};
}

}  // namespace oasis::gen
