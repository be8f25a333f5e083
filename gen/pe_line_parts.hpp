// SPDX-License-Identifier: Apache-2.0
// The parts of the PE line's emitter (gen/pe_line.cpp) that its modules' files share: the
// figures every part is sized by, and each part's emitter. Private to gen/pe_line*.cpp.
#pragma once

#include <string>
#include <vector>

#include "gen/sv.hpp"
#include "model/config.hpp"
#include "model/derived.hpp"

namespace oasis::gen::pe_line_parts {

using std::string;

// The figures every part of the line is sized by, named as in docs/pe_line.md,
// all read from derive(c).
struct Dims {
  explicit Dims(const Config& c) : d(derive(c)), t(d.pe_line) {
    K = c.channels;
    nA = c.act_bits;
    nW = c.weight_bits;
    B = d.concat_index_bits;
    E = d.lut_entries;
    G = d.indices_per_cycle;
    T = c.mac_tree_inputs;
    Mc = c.comp_macs;
    Wb = c.weight_beat_indices;
    S = d.fp_stages;
  }
  Derived d;
  LineTiming t;
  int K, nA, nW, B, E, G, T, Mc, Wb, S;
  int Tp() const { return t.tree_inputs; }
  int Ci() const { return t.comp_inputs; }
  int k2() const { return d.outliers; }
  int CW() const { return d.channel_bits; }
  int W() const { return d.count_bits; }
  int centroids() const { return d.weight_centroids; }
  const FpFormat& f() const { return d.accumulator; }
  int aw() const { return d.accumulator.width(); }
  int L() const { return d.accumulator_slots; }
};

const Port kClk{"input", 0, "clk_i", "Clock."};
const Port kRst{"input", 0, "rst_ni", "Asynchronous reset, active low."};

// The Weight Index Buffer (gen/pe_line_wib.cpp): its ports, in order, which the line's top
// connects by name; its SRAM; the buffer.
std::vector<Port> wib_ports(const Dims& d);
SvFile wib_memory_module(const string& name, const Dims& d);
SvFile wib_module(const Config& c, const string& name, const Dims& d);
// The Concat Units (gen/pe_line_concat.cpp).
SvFile concat_module(const string& name, const Dims& d);
// The main branch (gen/pe_line_mac_tree.cpp).
SvFile mac_tree_module(const Config& c, const string& name, const Dims& d);
// The outlier branch (gen/pe_line_comp.cpp): the gather, the Dequantization Unit, the
// compensation MACs.
SvFile gather_module(const Config& c, const string& name, const Dims& d);
SvFile dequant_module(const string& name, const Dims& d);
SvFile comp_module(const Config& c, const string& name, const Dims& d);
// The merge and the output FIFO (gen/pe_line_merge.cpp).
SvFile merge_module(const string& name, const Dims& d);

}  // namespace oasis::gen::pe_line_parts
