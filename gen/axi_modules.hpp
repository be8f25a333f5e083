// SPDX-License-Identifier: Apache-2.0
// The system wrapper's modules (block axi): the emitters gen/axi.cpp calls, each returning one
// module, and the helpers they share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gen/block.hpp"
#include "model/config.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

/// `text` with every @@key@@ replaced by its value: the modules' bodies are SystemVerilog with
/// a few names of the config in them, easier to read than a format string full of {{ }}.
/// Throws std::logic_error if a mark is left unfilled.
std::string fill(std::string text, const std::map<std::string, std::string>& values);

/// The ports every module starts with.
extern const std::vector<Port> kClock;

/// The ports of `a`, then those of `b`.
std::vector<Port> operator+(std::vector<Port> a, const std::vector<Port>& b);

/// The figures the modules share: a layer's fields as the queues carry them.
struct LayerBits {
  explicit LayerBits(const Derived& d)
      : addr(d.axi.addr_bits),
        groups(d.axi.group_bits),
        rows(d.core.rows_bits),
        out_beats(count_width((2 * d.axi.max_rows + d.axi.data_bytes - 1) / d.axi.data_bytes)) {}
  int addr, groups, rows, out_beats;
};

/// _axi_lite: the AXI4-Lite slave with the control registers (gen/axi_lite.cpp).
SvFile lite_module(const Config& c, const Derived& d);

/// _axi_fetch: the descriptor fetcher (gen/axi_fetch.cpp).
SvFile fetch_module(const Config& c, const Derived& d);

/// _axi_read: the read channels, the layer's reads and the read buffer (gen/axi_read.cpp).
SvFile read_module(const Config& c, const Derived& d);

/// _axi_unpack: the core's beats from the read buffer's bus beats (gen/axi_feed.cpp).
SvFile unpack_module(const Config& c);

/// _axi_feed: the feed of the core's streams and register file (gen/axi_feed.cpp).
SvFile feed_module(const Config& c, const Derived& d);

/// _axi_write: the write side (gen/axi_write.cpp).
SvFile write_module(const Config& c, const Derived& d);

}  // namespace oasis::gen::axi_detail
