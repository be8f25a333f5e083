// Emitting the floating-point datapath pieces shared by the blocks built
// from rtl/ primitives (gen/pe_line.cpp, gen/baselines.cpp): pipes, adders,
// multipliers, conversions, FIFOs and one level of the pairwise tree.
#pragma once

#include <string>
#include <vector>

#include "model/derived.hpp"

namespace oasis::gen {

using std::string;

/// An accumulator format A: binary32 (8, 23) or binary16 (5, 10), as
/// Derived::accumulator gives it.
using AccFormat = FpFormat;

string range(int width);

// oasis_fp_pipe: Stages registers with a valid bit.
string pipe(const string& inst, int width, int stages, const string& valid_i, const string& data_i,
            const string& valid_o, const string& data_o, const string& indent = "  ");

string fp_add(const AccFormat& f, const string& inst, const string& a, const string& b,
              const string& sum, const string& indent = "  ");

string fp_mul(const AccFormat& f, const string& inst, const string& a, const string& b,
              const string& prod, const string& indent = "  ");

string fp_convert(int ie, int ifr, int oe, int ofr, const string& inst, const string& a,
                  const string& result, const string& indent = "  ");

// binary16 -> A: exact, combinational (a wire for binary16).
string widen(const AccFormat& f, const string& inst, const string& a, const string& result,
             const string& indent = "  ");

string fifo(const string& inst, int width, int depth, const string& push, const string& data,
            const string& pop, const string& out, const string& empty, const string& full);

// A bit mask as a sized binary literal, bit i = bits[i].
string mask_literal(const std::vector<bool>& bits);

// One pairwise-tree level over `n` values of `aw` bits named `in` with
// present bits `in_p` (adjacent pairs, left operand first; a pair whose
// right value is absent, or an odd last value, passes its left value up):
// the ceil(n/2) results and their present bits through a pipe.
string tree_level(const AccFormat& f, int stages, const string& name, int n, const string& in,
                  const string& in_p, const string& in_valid, const string& extra_in,
                  int extra_bits);

}  // namespace oasis::gen
