// SPDX-License-Identifier: Apache-2.0
// The cycle behaviour of the generated Orizuru block (gen/orizuru.cpp) and of
// its baseline (topk_baseline): a cycle model the testbench compares with the
// RTL every cycle, on the structure and timing derive() gives
// (Derived::orizuru and Derived::topk_baseline, model/derived.hpp). The
// values come from the algorithm model, orizuru_topk (model/cycle/orizuru.hpp).
// Interface and timing are described in docs/orizuru.md.
#pragma once

#include <cstdint>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/orizuru.hpp"
#include "model/numerics/fp.hpp"

namespace oasis {

/// Cycle model: the same load / build / drain handshake as the RTL.
class OrizuruCycle {
 public:
  explicit OrizuruCycle(const OrizuruTiming& timing);

  /// Outputs of the current cycle; they depend on the state only.
  bool in_ready() const { return state_ == State::kLoad; }
  /// While draining, the side whose turn it is has finished rewriting its
  /// last pop's path (pop_cycles after that pop).
  bool out_valid() const { return state_ == State::kDrain && wait_[count_ % 2] == 0; }
  /// The output offered this cycle (meaningful while out_valid()).
  const Outlier& out() const { return outputs_[size_t(count_)]; }

  /// One clock edge. `beat` holds beat_activations values (channels
  /// beat * R + i; those past N are ignored) and is read when in_valid &&
  /// in_ready.
  void step(bool in_valid, const std::vector<Fp16>& beat, bool out_ready);

  /// Tokens fully drained so far.
  uint64_t tokens_done() const { return tokens_done_; }

 private:
  enum class State { kLoad, kBuild, kDrain };
  OrizuruTiming t_;
  State state_ = State::kLoad;
  int beat_ = 0;
  int stage_ = 0;
  int count_ = 0;
  int wait_[2] = {0, 0};  ///< per side (max, min): cycles until its next winner
  std::vector<Fp16> leaves_;
  std::vector<Outlier> outputs_;
  uint64_t tokens_done_ = 0;
};

}  // namespace oasis
