// SPDX-License-Identifier: Apache-2.0
// The FIGLUT-class LUT line, the weight-only LUT-GEMM baseline the PE line is measured against
// (block woq_lut_line_baseline, gen/woq_lut_line_baseline.cpp; docs/woq_lut_line.md): binary16
// activations, weights one bit-plane a beat, U read-accumulate units reading the half-size LUTs
// of the token's groups, R rows a batch. Cycle model of the generated block, its numerics from
// model/quant/woq_lut.hpp and its figures from Derived::woq_lut_line_baseline.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/woq_lut.hpp"

namespace oasis {

/// A beat's digits: unit u = r * Lc + l takes row r's pattern of the lane's group for the
/// beat's plane, digit j (bit j) that of the group's channel j. `codes` holds R rows of K codes.
std::vector<uint8_t> woq_beat_patterns(const WoqLutTiming& t, int channels,
                                       std::span<const uint8_t> codes, int beat);

/// Cycle model of the generated block: per cycle, read the outputs, then clock() with the
/// inputs. A token is loaded with act_load (act_i holds it until the next load, which comes only
/// between batches and never with a beat); the line generates its LUTs ahead and sets w_ready
/// once the current window's LUT is there. A batch is B beats of U patterns; beat B - R + j
/// carries row j's s_w. No backpressure on y: a batch's R rows leave one a cycle, in order.
class WoqLutLineBaseline {
 public:
  explicit WoqLutLineBaseline(const Config& config);

  void reset();

  bool w_ready() const { return cur_valid_; }
  bool y_valid() const { return !out_.empty() && out_.front().first == cycle_; }
  Fp16 y_data() const { return y_valid() ? out_.front().second : Fp16{}; }
  const WoqLutTiming& timing() const { return timing_; }
  uint64_t cycle() const { return cycle_; }

  /// The clock edge. `act`: the token's K activations, read with act_load. `patterns`: U
  /// patterns (read when w_valid and w_ready). `w_scale`: s_w of row j with beat B - R + j.
  /// Throws std::logic_error when the inputs break the interface's rules.
  void clock(bool act_load, std::span<const Fp16> act, bool w_valid,
             std::span<const uint8_t> patterns, Fp16 w_scale);

 private:
  Config config_;
  WoqLutTiming timing_;
  WoqLutParams params_;
  std::vector<std::vector<Fp16>> luts_;  ///< the loaded token's
  uint64_t cycle_ = 0;
  // Registers of the LUT generation (docs/woq_lut_line.md, Timing).
  int credits_ = 0, queued_ = 0;
  bool epoch_ = false, cur_valid_ = false;
  std::deque<std::pair<uint64_t, bool>> generating_;  ///< cycle presented, epoch
  uint64_t last_load_ = 0;
  bool loaded_ = false;
  // The batch.
  int beat_ = 0, plane_ = 0;
  std::vector<uint8_t> codes_;  ///< R x K codes assembled from the beats
  std::vector<Fp16> scales_;    ///< R
  std::deque<std::pair<uint64_t, Fp16>> out_;
};

}  // namespace oasis
