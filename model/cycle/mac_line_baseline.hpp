// SPDX-License-Identifier: Apache-2.0
// The FP16 dequantize-and-MAC line, the baseline the PE line is measured
// against (block mac_line_baseline, gen/baselines.cpp; paper Fig. 1c): for
// each weight row it dequantizes the weight indices through the codebook C_W
// and multiplies them with the token's binary16 activations, doing as many
// multiply-accumulates a cycle as the PE line needs to give a row every
// row_interval cycles (Derived::mac_line_baseline, model/derived.hpp).
// Reduction order and timing: docs/synth.md, "Baselines".
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "model/config.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"

namespace oasis {

/// One row: beat b multiplies x̂[bM + i] by C_W[iw[bM + i]] (both widened to
/// A, one mul_A) for i < M and bM + i < K, reduces the products by the
/// pairwise tree (docs/numerics.md), and accumulates the beat sums in beat
/// order in an accumulator of `slots` partial sums (interleaved_sum: with one,
/// beat 0 loads, then add_A(acc, beat sum)); y = to_fp16(mul_A(mul_A(acc,
/// widen(s_a)), widen(s_w))). `beat_sums`, if given, receives the per-beat
/// tree sums.
Fp16 mac_line_row(std::span<const Fp16> xhat, std::span<const uint8_t> weight_index_row,
                  std::span<const Fp16> weight_codebook, Fp16 act_scale, Fp16 weight_scale,
                  int macs, int slots, const Accumulator& acc,
                  std::vector<AccValue>* beat_sums = nullptr);

/// Cycle model of the generated block: per cycle, read the outputs, then
/// clock() with the inputs. No backpressure: a beat is taken whenever
/// w_valid is set, and y_valid is high for one cycle per row.
class MacLineBaseline {
 public:
  explicit MacLineBaseline(const Config& config);

  void reset();
  /// The token's x̂ (K values), s_a and C_W (2^nW values); held while rows run.
  void set_context(std::vector<Fp16> xhat, Fp16 act_scale, std::vector<Fp16> weight_codebook);

  bool y_valid() const { return !out_.empty() && out_.front().first == cycle_; }
  Fp16 y_data() const { return y_valid() ? out_.front().second : Fp16{}; }
  const MacLineTiming& timing() const { return timing_; }
  /// L: the accumulator's partial sums (Derived::accumulator_slots).
  int accumulator_slots() const { return slots_; }

  /// The clock edge. `w_idx` holds M indices (read when w_valid); `w_scale`
  /// is s_w, read with the row's first beat.
  void clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale);

 private:
  MacLineBaseline(const Config& config, const Derived& d);

  Config config_;
  MacLineTiming timing_;
  int slots_;  ///< L: the accumulator's partial sums
  Accumulator acc_;
  std::vector<Fp16> xhat_, codebook_;
  Fp16 act_scale_;
  uint64_t cycle_ = 0;
  int beat_ = 0;
  std::vector<uint8_t> row_;
  Fp16 row_scale_;
  std::deque<std::pair<uint64_t, Fp16>> out_;
};

}  // namespace oasis
