// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/axi.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "model/cycle/regfile.hpp"
#include "model/derived.hpp"

namespace oasis {
namespace {

// Sets `bits` bits of `value` at bit `at` of a little-endian byte string (bit i is bit i % 8
// of byte i / 8): how every unit of the layout is laid into memory.
void put_bits(std::vector<uint8_t>& out, int64_t at, int bits, uint64_t value) {
  for (int i = 0; i < bits; ++i) {
    if ((value >> i) & 1) out[size_t((at + i) / 8)] |= uint8_t(1u << ((at + i) % 8));
  }
}

bool aligned(uint64_t a, uint64_t to) { return a % to == 0; }

// An address is usable for a buffer of `bytes` bytes: not zero, aligned to `align`, within
// the master's address bits, and the buffer does not run past the top of the address space.
bool usable(uint64_t a, uint64_t align, int addr_bits, uint64_t bytes) {
  if (a == 0 || !aligned(a, align)) return false;
  if (addr_bits < 64) {
    const unsigned __int128 top = (unsigned __int128)1 << addr_bits;
    return (unsigned __int128)a + bytes <= top;
  }
  return (unsigned __int128)a + bytes <= ((unsigned __int128)1 << 64);
}

}  // namespace

std::string access_name(AxiAccess a) {
  switch (a) {
    case AxiAccess::kReadOnly:
      return "ro";
    case AxiAccess::kReadWrite:
      return "rw";
    case AxiAccess::kWriteOnly:
      return "wo";
    case AxiAccess::kWriteOneToClear:
      return "w1c";
  }
  return "?";
}

const AxiRegister& AxiLiteMap::reg(const std::string& name) const {
  for (const auto& r : registers) {
    if (r.name == name) return r;
  }
  throw std::invalid_argument("no AXI4-Lite register " + name);
}

int AxiLiteMap::error(const std::string& name) const {
  for (const auto& e : errors) {
    if (e.name == name) return e.code;
  }
  throw std::invalid_argument("no AXI error code " + name);
}

AxiLiteMap axi_lite_map(const Config& c) {
  const Derived d = derive(c);
  const uint64_t hash = std::stoull(config_hash(c), nullptr, 16);
  AxiLiteMap m;
  m.regfile_base = 0;
  m.regfile_words = 1 << kRegAddrBits;
  const auto ro = [&](std::string name, uint32_t off, std::string meaning, uint32_t value,
                      std::vector<AxiField> fields = {}) {
    m.registers.push_back({std::move(name), off, AxiAccess::kReadOnly, std::move(meaning),
                           std::move(fields), true, value});
  };
  const auto reg = [&](std::string name, uint32_t off, AxiAccess a, std::string meaning,
                       std::vector<AxiField> fields = {}) {
    m.registers.push_back({std::move(name), off, a, std::move(meaning), std::move(fields)});
  };
  ro("id", 0x800, "identification: \"OASI\" in ASCII", kAxiIdValue);
  ro("version", 0x804, "version of this register map", kAxiMapVersion);
  ro("config_hash_lo", 0x808, "the config's 64-bit hash, bits 31:0", uint32_t(hash));
  ro("config_hash_hi", 0x80C, "the config's 64-bit hash, bits 63:32", uint32_t(hash >> 32));
  ro("channels", 0x810, "K: the channels a descriptor must give", uint32_t(c.channels));
  ro("geometry", 0x814, "the core's and the bus's sizes",
     uint32_t(c.pe_lines) | uint32_t(c.act_bits) << 8 | uint32_t(c.weight_bits) << 12 |
         uint32_t(d.axi.data_bytes) << 16 | uint32_t(d.axi.addr_bits) << 24,
     {{"lines", 0, 8, "P, the rows of a group"},
      {"act_bits", 8, 4, "nA"},
      {"weight_bits", 12, 4, "nW"},
      {"bus_bytes", 16, 8, "bytes of a bus beat, the alignment of every buffer"},
      {"addr_bits", 24, 8, "address bits of the memory master"}});
  ro("max_rows", 0x818, "the largest N a descriptor may give", uint32_t(d.axi.max_rows));
  reg("ctrl", 0x820, AxiAccess::kWriteOnly, "commands",
      {{"start", 0, 1,
        "1: run the chain at desc_addr (refused with SLVERR while busy); reads as 0"}});
  reg("status", 0x824, AxiAccess::kReadOnly, "state of the last start",
      {{"busy", 0, 1, "a chain runs"},
       {"done", 1, 1, "the last start ran its whole chain"},
       {"error", 2, 1, "the last start stopped with an error"},
       {"code", 8, 8, "the error's code (error_codes), 0 without one"}});
  reg("irq_enable", 0x828, AxiAccess::kReadWrite, "which events raise irq_o",
      {{"done", 0, 1, "a chain ran to its end"}, {"error", 1, 1, "a chain stopped with an error"}});
  reg("irq_status", 0x82C, AxiAccess::kWriteOneToClear,
      "events since cleared (write 1 to clear); irq_o is high while an enabled one is set",
      {{"done", 0, 1, "a chain ran to its end"}, {"error", 1, 1, "a chain stopped with an error"}});
  reg("desc_addr_lo", 0x830, AxiAccess::kReadWrite, "the first descriptor's address, bits 31:0");
  reg("desc_addr_hi", 0x834, AxiAccess::kReadWrite, "the first descriptor's address, bits 63:32");
  reg("error_desc_lo", 0x838, AxiAccess::kReadOnly,
      "the address of the descriptor the error concerns, bits 31:0");
  reg("error_desc_hi", 0x83C, AxiAccess::kReadOnly,
      "the address of the descriptor the error concerns, bits 63:32");
  reg("layers_done", 0x840, AxiAccess::kReadOnly, "layers whose outputs are all written");
  reg("last_tag", 0x844, AxiAccess::kReadOnly, "the tag of the last layer done");
  reg("cycles_lo", 0x848, AxiAccess::kReadOnly, "cycles busy since the last start, bits 31:0");
  reg("cycles_hi", 0x84C, AxiAccess::kReadOnly, "cycles busy since the last start, bits 63:32");
  reg("weight_bytes_lo", 0x850, AxiAccess::kReadOnly,
      "bytes of weight records read since the last start, bits 31:0");
  reg("weight_bytes_hi", 0x854, AxiAccess::kReadOnly,
      "bytes of weight records read since the last start, bits 63:32");
  reg("stall_cycles_lo", 0x858, AxiAccess::kReadOnly,
      "cycles the core could take a weight beat and had none, bits 31:0");
  reg("stall_cycles_hi", 0x85C, AxiAccess::kReadOnly,
      "cycles the core could take a weight beat and had none, bits 63:32");

  m.errors = {
      {"desc_addr", 1, "desc_addr is 0, not 64-byte aligned or beyond the address bits"},
      {"reserved", 2, "a reserved flag or the reserved word of the descriptor is not 0"},
      {"channels", 3, "channels is not the config's K"},
      {"rows", 4, "rows is 0 or above max_rows"},
      {"stride", 5, "group_stride is shorter than a weight record or not a whole number of beats"},
      {"tables_addr", 6,
       "tables (flag tables set) is 0, not beat-aligned, or the tables run past the address "
       "space"},
      {"token_addr", 7, "token is 0, not beat-aligned, or the token runs past the address space"},
      {"weights_addr", 8,
       "weights is 0, not beat-aligned, or the records run past the address space"},
      {"output_addr", 9,
       "output is 0, not beat-aligned, or the outputs run past the address space"},
      {"next_addr", 10,
       "next (flag chain set) is 0, not 64-byte aligned or beyond the address bits"},
      {"chain_limit", 11, "the chain goes on past axi_chain_limit descriptors"},
      {"read_resp", 12, "a read was answered with SLVERR or DECERR"},
      {"write_resp", 13, "a write was answered with SLVERR or DECERR"},
  };
  m.descriptor = {
      {"next", 0x00, 8, "the next descriptor (flag chain)"},
      {"tables", 0x08, 8, "the layer's tables (flag tables)"},
      {"token", 0x10, 8, "the token x̂, K binary16 values"},
      {"weights", 0x18, 8, "the first weight record"},
      {"output", 0x20, 8, "where the N binary16 outputs go"},
      {"channels", 0x28, 4, "K"},
      {"rows", 0x2C, 4, "N"},
      {"group_stride", 0x30, 4, "bytes from one weight record to the next"},
      {"token_scale", 0x34, 2, "s_a, binary16"},
      {"flags", 0x36, 2, "flags (below); the others reserved, 0"},
      {"tag", 0x38, 4, "any value: last_tag once the layer is done"},
      {"reserved", 0x3C, 4, "0"},
  };
  m.flags = {{"chain", 0, 1, "go on with the descriptor at next"},
             {"tables", 1, 1, "write the tables at tables into the register file first"}};
  return m;
}

std::array<uint8_t, 64> encode_descriptor(const AxiDescriptor& d) {
  std::array<uint8_t, 64> b{};
  const auto put = [&](int at, int bytes, uint64_t v) {
    for (int i = 0; i < bytes; ++i) b[size_t(at + i)] = uint8_t(v >> (8 * i));
  };
  put(0x00, 8, d.next);
  put(0x08, 8, d.tables);
  put(0x10, 8, d.token);
  put(0x18, 8, d.weights);
  put(0x20, 8, d.output);
  put(0x28, 4, d.channels);
  put(0x2C, 4, d.rows);
  put(0x30, 4, d.group_stride);
  put(0x34, 2, d.token_scale);
  put(0x36, 2, d.flags);
  put(0x38, 4, d.tag);
  put(0x3C, 4, d.reserved);
  return b;
}

int axi_check_start(const Config& c, uint64_t addr) {
  const Derived dv = derive(c);
  return usable(addr, 64, dv.axi.addr_bits, 64) ? 0 : 1;
}

int axi_check_descriptor(const Config& c, const AxiDescriptor& d, uint64_t position) {
  const Derived dv = derive(c);
  const AxiTiming& ax = dv.axi;
  const uint64_t beat = uint64_t(ax.data_bytes);
  if ((d.flags & ~(kAxiFlagChain | kAxiFlagTables)) != 0 || d.reserved != 0) return 2;
  if (d.channels != uint32_t(c.channels)) return 3;
  if (d.rows == 0 || d.rows > uint64_t(ax.max_rows)) return 4;
  if (d.group_stride < uint64_t(ax.record_bytes) || d.group_stride % beat != 0) return 5;
  if ((d.flags & kAxiFlagTables) &&
      !usable(d.tables, beat, ax.addr_bits, uint64_t(axi_table_bytes(c)))) {
    return 6;
  }
  if (!usable(d.token, beat, ax.addr_bits, uint64_t(axi_token_bytes(c)))) return 7;
  if (!usable(d.weights, beat, ax.addr_bits,
              uint64_t(axi_weight_bytes(c, d.rows, d.group_stride)))) {
    return 8;
  }
  if (!usable(d.output, beat, ax.addr_bits, uint64_t(axi_output_bytes(d.rows)))) return 9;
  if ((d.flags & kAxiFlagChain) && !usable(d.next, 64, ax.addr_bits, 64)) return 10;
  if ((d.flags & kAxiFlagChain) && position >= uint64_t(ax.chain_limit)) return 11;
  return 0;
}

int64_t axi_table_bytes(const Config& c) {
  const Derived d = derive(c);
  return int64_t(d.axi.table_beats) * d.axi.data_bytes;
}

int64_t axi_token_bytes(const Config& c) {
  const Derived d = derive(c);
  return int64_t(d.axi.token_bus_beats) * d.axi.data_bytes;
}

int64_t axi_weight_bytes(const Config& c, int64_t rows, int64_t group_stride) {
  const Derived d = derive(c);
  return (d.row_groups(rows) - 1) * group_stride + d.axi.record_bytes;
}

int64_t axi_output_bytes(int64_t rows) { return 2 * rows; }

std::vector<uint8_t> axi_pack_tables(const Config& c, const std::vector<Fp16>& lut,
                                     const std::vector<Fp16>& ca, const std::vector<Fp16>& cw,
                                     const std::vector<Fp16>& b) {
  const Derived d = derive(c);
  if (lut.size() != size_t(d.lut_entries) || ca.size() != size_t(d.act_centroids) ||
      cw.size() != size_t(d.weight_centroids) || b.size() != size_t(d.boundaries)) {
    throw std::invalid_argument(fmt::format(
        "axi_pack_tables: {} LUT entries, {} + {} centroids, {} boundaries; the config has {}, "
        "{} + {}, {}",
        lut.size(), ca.size(), cw.size(), b.size(), d.lut_entries, d.act_centroids,
        d.weight_centroids, d.boundaries));
  }
  std::vector<uint8_t> out(size_t(axi_table_bytes(c)), 0);
  int64_t w = 0;
  for (const auto* v : {&lut, &ca, &cw, &b}) {
    for (const Fp16 x : *v) put_bits(out, 16 * w++, 16, x.bits);
  }
  return out;
}

std::vector<uint8_t> axi_pack_token(const Config& c, const std::vector<Fp16>& xhat) {
  if (xhat.size() != size_t(c.channels)) {
    throw std::invalid_argument(
        fmt::format("axi_pack_token: {} values; the config has K = {}", xhat.size(), c.channels));
  }
  std::vector<uint8_t> out(size_t(axi_token_bytes(c)), 0);
  for (size_t k = 0; k < xhat.size(); ++k) put_bits(out, 16 * int64_t(k), 16, xhat[k].bits);
  return out;
}

std::vector<uint8_t> axi_pack_weights(const Config& c, const std::vector<std::vector<uint8_t>>& iw,
                                      const std::vector<Fp16>& sw, int64_t group_stride) {
  const Derived d = derive(c);
  const AxiTiming& ax = d.axi;
  const int64_t rows = int64_t(iw.size());
  if (rows < 1 || sw.size() != iw.size() || group_stride < ax.record_bytes) {
    throw std::invalid_argument(
        fmt::format("axi_pack_weights: {} rows, {} scales, stride {} (a record is {} bytes)", rows,
                    sw.size(), group_stride, ax.record_bytes));
  }
  const int P = c.pe_lines, K = c.channels, Wb = c.weight_beat_indices, nW = c.weight_bits;
  const int F = d.core.group_beats;
  std::vector<uint8_t> out(size_t(axi_weight_bytes(c, rows, group_stride)), 0);
  for (int64_t g = 0; g < d.row_groups(rows); ++g) {
    const int64_t base = 8 * g * group_stride;
    for (int p = 0; p < P; ++p) {
      const int64_t n = g * P + p;
      if (n < rows) put_bits(out, base + 16 * p, 16, sw[size_t(n)].bits);
    }
    for (int b = 0; b < F; ++b) {
      const int64_t beat = base + int64_t(ax.scale_beats) * ax.data_bits +
                           int64_t(b / ax.w_slots) * ax.w_parts * ax.data_bits +
                           int64_t(b % ax.w_slots) * ax.w_beat_bits;
      for (int p = 0; p < P; ++p) {
        const int64_t n = g * P + p;
        if (n >= rows) continue;
        if (iw[size_t(n)].size() != size_t(K)) {
          throw std::invalid_argument(fmt::format("axi_pack_weights: row {} has {} indices, K = {}",
                                                  n, iw[size_t(n)].size(), K));
        }
        for (int i = 0; i < Wb && b * Wb + i < K; ++i) {
          put_bits(out, beat + int64_t(p) * Wb * nW + int64_t(i) * nW, nW,
                   iw[size_t(n)][size_t(b * Wb + i)]);
        }
      }
    }
  }
  return out;
}

}  // namespace oasis
