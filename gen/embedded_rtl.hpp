// SPDX-License-Identifier: Apache-2.0
// The hand-written SystemVerilog primitives of rtl/, compiled into oasis-gen.
#pragma once

#include <string>
#include <vector>

namespace oasis::gen {

struct EmbeddedFile {
  std::string name;  ///< file name, e.g. "oasis_fp_add.sv"
  std::string text;  ///< contents as in rtl/
};

/// Every rtl/*.sv file, sorted by name.
const std::vector<EmbeddedFile>& embedded_rtl();

}  // namespace oasis::gen
