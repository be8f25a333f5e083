// SPDX-License-Identifier: Apache-2.0
// The system wrapper's C driver (gen/axi_driver.cpp): a C99 header of the AXI4-Lite register
// map, the error codes, the descriptor and the memory layout, with static inline functions to
// check the device, load the tables, pack a layer into memory, start a chain, wait for it and
// read the counters (docs/axi.md, The C driver). Written beside the block's RTL.
#pragma once

#include <vector>

#include "gen/block.hpp"
#include "model/config.hpp"

namespace oasis::gen {

/// oasis_<name>_axi.h.
std::vector<TextFile> axi_c_headers(const Config& config);

}  // namespace oasis::gen
