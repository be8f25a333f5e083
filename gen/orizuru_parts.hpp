// SPDX-License-Identifier: Apache-2.0
// The parts of the Orizuru and top-k baseline emitters (gen/orizuru.cpp, gen/topk_baseline.cpp)
// that their modules' files share. Private to those files and gen/orizuru_*.cpp; what the other
// top-k engines share is in gen/orizuru.hpp.
#pragma once

#include <string>

#include "gen/sv.hpp"
#include "model/config.hpp"
#include "model/cycle/orizuru_cycle.hpp"

namespace oasis::gen::orizuru_parts {

using std::string;

// The comparator block's module (gen/orizuru.cpp).
string cmp_module(const Config& c);

// A comparator instance whose gt output drives `gt` and whose eq output
// drives `eq` ("" leaves lt and eq to `unused` sinks the caller declares).
void compare(SvModule& m, const Config& c, const string& inst, const string& a, const string& b,
             const string& lt, const string& eq, const string& gt, const string& indent,
             const string& count);

// Orizuru's units (gen/orizuru_units.cpp): the side module, the two sides' instances of a unit
// (which the baseline's core uses too), the leaf unit and the unit above the leaves.
SvFile side_module(const Config& c);
void sides(SvModule& m, const Config& c, const string& max_val, const string& min_val,
           const string& max_gt0, const string& min_gt0, const string& max_pay,
           const string& min_pay, const string& payload, const string& max_out,
           const string& min_out);
SvFile leaf_unit_module(const Config& c);
SvFile unit_module(const Config& c);

// Orizuru's tree of units inside the top-k top module (gen/orizuru_core.cpp).
void orizuru_core(SvModule& m, const Config& c, const OrizuruTiming& t);

}  // namespace oasis::gen::orizuru_parts
