// SPDX-License-Identifier: Apache-2.0
// The mapped gate netlist of one block, as Yosys writes it in BLIF
// (`write_blif -gates`) and qflow's blifFanout rewrites it: read, counted
// against a Liberty library, and written back as structural Verilog that
// OpenSTA, Icarus and Verilator read (one-bit nets with plain names, ports
// with the widths the RTL gave them, no concatenations).
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/ppa/liberty.hpp"

namespace oasis::ppa {

struct NetlistError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Gate {
  std::string cell;
  std::vector<std::pair<std::string, std::string>> pins;  ///< (pin, net) as written
};

struct GateNetlist {
  std::string model;
  std::vector<std::string> inputs;  ///< port bits, e.g. "a_i[3]" or "clk_i"
  std::vector<std::string> outputs;
  std::vector<Gate> gates;
  /// `.names a b` with cover `1 1`: b is a copy of a.
  std::vector<std::pair<std::string, std::string>> copies;
  /// Nets tied to a constant (`.names n` alone: 0; with cover `1`: 1).
  std::map<std::string, bool> constants;
};

/// Reads a BLIF file with one model of .gate (or .subckt) instances, .names
/// constants and copies. Anything else (a logic cover, a latch, a second
/// model) is a NetlistError naming the line.
GateNetlist read_blif(const std::filesystem::path& path);
GateNetlist parse_blif(const std::string& text, const std::string& where);

/// A net's hierarchical name without Yosys's markers:
/// "$flatten\u_wib.$abc$12$n4" -> "u_wib.$abc$12$n4".
std::string plain_net(const std::string& net);

struct CellCount {
  int count = 0;
  double area = 0;
};

struct NetlistStats {
  std::map<std::string, CellCount> by_cell;
  CellCount total, sequential, combinational, buffers;  ///< buffers: those blifFanout added
};

/// Cells, area and flip-flops of a netlist against `lib`; every cell must be
/// in the library. Buffers whose output net carries blifFanout's "_bF$buf"
/// suffix are counted in `buffers` (and in the totals).
NetlistStats netlist_stats(const GateNetlist& netlist, const Liberty& lib);

/// One Verilog module of the netlist. Port bits "name[i]" become the vector
/// port `name` of width max(i) + 1 (bits must run 0 .. w-1); the other nets
/// get plain identifiers made from their names (unique; see `net_names`).
/// Every instance is named after the net its first output drives, so a
/// timing report names registers as the RTL does. Copies between nets become
/// one net; a copy into an output port is a one-bit assign.
struct VerilogNetlist {
  std::string text;
  std::map<std::string, std::string> instance_net;  ///< instance -> the net its first output drives
  std::vector<std::string> gate_instance;  ///< each gate's instance name, in the netlist's order
  /// Each BLIF net's reference in the text: a port bit ("a_i[3]"), a wire, or a constant.
  std::unordered_map<std::string, std::string> net_ref;
  int instances = 0;
};
/// `boxes` names the cells that are modules outside the library (an SRAM's, docs/sram.md),
/// each with its output ports: their instances are written with one vector a port, bit i of
/// pin "name[i]" at position i.
VerilogNetlist write_verilog(const GateNetlist& netlist, const Liberty& lib,
                             const std::map<std::string, std::set<std::string>>& boxes = {});

}  // namespace oasis::ppa
