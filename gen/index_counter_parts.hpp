// SPDX-License-Identifier: Apache-2.0
// The Index Counter array's counting modules (gen/index_counter_tree.cpp), which its top
// (gen/index_counter.cpp) instantiates. Private to those two files.
#pragma once

#include <string>

#include "gen/sv.hpp"

namespace oasis::gen::index_counter_parts {

// One entry's count of a beat: the compressor tree, with registers after the stages its
// parameter Cuts names when `pipelined`.
SvFile tree_module(const std::string& name, bool pipelined);
// The counting bank's adder for one entry.
SvFile add_module(const std::string& name);

}  // namespace oasis::gen::index_counter_parts
