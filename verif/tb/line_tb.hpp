// SPDX-License-Identifier: Apache-2.0
// What the testbenches of the lines whose rows leave one y a cycle share (the FP16 MAC-line
// baseline, the FIGLUT-class line): the output side's check, every cycle against the cycle
// model and every row against the model computed from the row alone.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis::tb {

/// The rows sent and checked. `row_model` names the function that computed `expected` (for the
/// messages); `y_cycles` holds the cycles an output was checked in.
struct RowOutputs {
  std::string row_model;
  std::deque<Fp16> expected;  ///< y of the rows sent and not yet output, in row order
  std::vector<int64_t> y_cycles;
  uint64_t rows_checked = 0;

  /// One cycle's y_valid_o and y_data_o against the cycle model's, and a valid output against
  /// the next row's expected y.
  template <class Harness>
  void check(Harness& h, bool model_valid, Fp16 model_y, bool dut_valid, uint16_t dut_y) {
    h.check("y_valid_o", model_valid, dut_valid);
    if (!model_valid || !dut_valid) return;
    h.check("y_data_o", model_y.bits, dut_y, "the cycle model's output");
    y_cycles.push_back(int64_t(h.cycle()));
    if (expected.empty()) {
      h.fail("an output was given for a row that was never sent");
    } else {
      h.check("y_data_o", expected.front().bits, dut_y,
              fmt::format("row {} against {}", rows_checked, row_model));
      expected.pop_front();
    }
    h.scoreboard().count_vector();
    ++rows_checked;
  }

  /// At the end: a row sent and never output is a failure.
  template <class Harness>
  void finish(Harness& h) {
    if (!expected.empty()) h.fail(fmt::format("{} rows sent but never output", expected.size()));
  }
};

}  // namespace oasis::tb
