// SPDX-License-Identifier: Apache-2.0
// A zero-delay, cycle-based simulator of a mapped gate netlist (the buffered
// netlist that OpenSTA times, sim/ppa/flow.hpp), its cells evaluated from the
// Liberty file's `function`, `ff` and `clear`/`preset` attributes, so that
// the toggles and high cycles of every net on a recorded workload can be
// counted (docs/ppa.md, "Power from activity"). One clock, rising edge; flip-
// flops with asynchronous clear and preset; no latches, no tristate cells. A
// black box with the ports of rtl/oasis_sram.sv (an SRAM's module, docs/sram.md)
// is simulated as that contract says, and its accesses are counted.
// Each cycle the inputs are applied, the logic settles, every net is sampled,
// and the clock rises; a net toggles in a cycle when its sample differs from
// the cycle before (zero delay: no glitches).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/ppa/liberty.hpp"
#include "sim/ppa/netlist.hpp"

namespace oasis::ppa {

/// A netlist the simulator cannot take (a latch, a gated or inverted clock, a combinational
/// loop) or a vector file that does not fit it: the message says which.
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What one SRAM instance did over the counted edges: the edges with `re_i` high, and the
/// lanes written (`we_i` and `wlane_i[l]` high at an edge).
struct MemoryAccesses {
  std::string cell;  ///< its module
  int width = 0, lanes = 0, addr_bits = 0;
  int64_t reads = 0, lane_writes = 0;
  int64_t bits_read() const { return reads * width; }
  int64_t bits_written() const { return lanes ? lane_writes * (width / lanes) : 0; }
};

/// The netlist compiled for simulation. Nets are the classes of BLIF nets joined by copies
/// (`.names a b`); net ids run 0 .. nets() - 1.
class GateSim {
 public:
  /// `clock`: the clock input port ("" for a block without one). `memories`: the cells that are
  /// modules with the ports and behaviour of rtl/oasis_sram.sv (clk_i; we_i, waddr_i, wlane_i,
  /// wdata_i; re_i, raddr_i, rdata_o), simulated behaviourally: every word as last written
  /// (0 before), `rdata_o` the word at `raddr_i` as it was before an edge with `re_i`, held
  /// to the next such edge.
  GateSim(const GateNetlist& netlist, const Liberty& lib, const std::string& clock = "clk_i",
          const std::set<std::string>& memories = {});

  int nets() const { return int(names_.size()); }
  /// The net a BLIF net name belongs to, or -1.
  int net(const std::string& blif_name) const;
  /// A net's name: one of its BLIF names (an input port bit where it has one), which net()
  /// finds.
  const std::string& name(int net) const { return names_[size_t(net)]; }
  /// On the clock network: the clock port and the buffers' outputs from it. Such a net rises
  /// and falls every cycle; the simulator holds it at 0.
  bool is_clock(int net) const { return clock_net_[size_t(net)] != 0; }
  /// Tied to a constant (never toggles).
  bool is_constant(int net) const { return constant_[size_t(net)] >= 0; }
  /// The net of each pin of gate `g` (in the netlist's order), as the netlist connects them.
  const std::vector<int>& gate_nets(size_t g) const { return gate_nets_[g]; }
  int flip_flops() const { return int(flops_.size()); }

  /// Drives an input net (a port bit) for the next settle().
  void set(int net, bool v) { value_[size_t(net)] = v ? 1 : 0; }
  /// Evaluates the combinational logic and the asynchronous clears and presets.
  void settle();
  /// The rising clock edge: every flip-flop takes its next state (its clear or preset when
  /// active). Call settle() after it (and after new inputs) before reading values.
  void clock_edge();
  bool value(int net) const { return value_[size_t(net)] != 0; }
  const std::vector<uint8_t>& values() const { return value_; }
  /// Whether the clock edges from now on count the memories' accesses (the window's edges).
  void count_accesses(bool on) { counting_ = on; }
  /// Each memory instance's accesses, in the netlist's order.
  std::vector<MemoryAccesses> memory_accesses() const;

 private:
  // One output of a cell: `out` = table[inputs as bits, input 0 the least significant]. A
  // flip-flop's output reads its state (kFlop) through the clear and preset.
  struct Node {
    enum Kind : uint8_t { kComb, kFlop } kind = kComb;
    uint8_t inputs = 0;
    int out = -1;
    int in[6] = {-1, -1, -1, -1, -1, -1};
    uint64_t table = 0;
    int flop = -1;  ///< kFlop: the flip-flop
  };
  struct Flop {
    bool state = false;
    int next_in[6] = {-1, -1, -1, -1, -1, -1};  ///< the next-state function's nets
    uint8_t next_inputs = 0;
    uint64_t next_table = 0;
    int clear_in[6] = {-1, -1, -1, -1, -1, -1};
    uint8_t clear_inputs = 0;
    uint64_t clear_table = 0;  ///< 0: no clear
    int preset_in[6] = {-1, -1, -1, -1, -1, -1};
    uint8_t preset_inputs = 0;
    uint64_t preset_table = 0;  ///< 0: no preset
    char both = 'L';            ///< clear_preset_var1: the state when both are active
  };

  // A memory instance: its pins' nets (bit i of a bus at i), its words, its read register.
  struct Memory {
    int clk = -1, we = -1, re = -1;
    std::vector<int> waddr, wlane, wdata, raddr, rdata;
    std::vector<uint8_t> words;  ///< 2^addr_bits words of width bits, word-major
    std::vector<uint8_t> out;    ///< the word the last read edge took
    MemoryAccesses count;
  };

  uint64_t index(const int* in, int n) const;
  bool effective(const Flop& f) const;
  Memory memory_of(const Gate& g) const;
  // The constructor's steps.
  void number_nets(const GateNetlist& nl);
  void add_memory(const Gate& g, std::vector<int>& driver, std::vector<int>& clock_pins);
  int add_flop(const Gate& g, const LibertySequential& q, const std::map<std::string, int>& pin_net,
               const std::vector<std::string>& state_vars, std::vector<int>& clock_pins);
  Node output_node(const Gate& g, const Liberty& lib, const LibertyCell& cell, const LibertyPin& p,
                   int out, const std::map<std::string, int>& pin_net, int flop,
                   const std::vector<std::string>& state_vars) const;
  void add_cell(const Gate& g, const Liberty& lib, std::vector<int>& driver,
                std::vector<int>& clock_pins);
  void trace_clock(const std::string& clock, const std::vector<int>& clock_pins,
                   std::vector<int>& driver);
  void sort_nodes(const std::vector<int>& driver);
  uint64_t bus(const std::vector<int>& nets) const;
  void memory_edge(Memory& m);

  std::unordered_map<std::string, int> id_;
  std::vector<std::string> names_;
  std::vector<int8_t> constant_;
  std::vector<uint8_t> clock_net_;
  std::vector<std::vector<int>> gate_nets_;
  std::vector<Node> nodes_;  ///< in an order where every node's inputs come first
  std::vector<Flop> flops_;
  std::vector<Memory> memories_;
  std::vector<uint8_t> value_;
  bool counting_ = false;
};

/// A vector file of the Verilator testbench's --record (docs/icarus.md): its ports and one
/// line of hex values a cycle.
struct VectorPort {
  bool input = false;
  std::string name;
  int width = 0;
};
std::vector<VectorPort> read_vector_header(const std::string& first_line,
                                           const std::filesystem::path& file);

/// What a simulation of a recorded run counted: for every net, over the cycles [begin, end),
/// the cycles in which it toggled and the cycles in which it was high.
struct NetActivity {
  int64_t begin = 0, end = 0;  ///< the window, cycles (lines of the vector file)
  int64_t lines = 0;           ///< cycles simulated
  std::vector<uint32_t> toggles, high;
  /// Output bits compared with the recorded run, and those left out by the X rule (a data
  /// output whose valid was low, from the flip-flops' arbitrary start values).
  int64_t output_bits_compared = 0, output_bits_tolerated = 0;
  int64_t cycles() const { return end - begin; }
};

/// Replays `vectors` on the netlist from the first line, counting in [begin, end) (end = -1: to
/// the last line); the memories count the window's edges. Every output bit is compared with the
/// recorded one under the X rule of the Icarus replay (docs/icarus.md): from the first cycle with
/// rst_ni low (every cycle without one), one-bit outputs and outputs with their valid high must
/// equal the recorded values; a mismatch throws SimError naming the cycle, the port and both
/// values.
NetActivity simulate_vectors(GateSim& sim, const GateNetlist& netlist,
                             const std::filesystem::path& vectors, int64_t begin, int64_t end);

}  // namespace oasis::ppa
