// The cycle behaviour of the generated Orizuru block (gen/orizuru.cpp) and of
// its baseline (topk_baseline): structure and timing derived from the config,
// and a cycle model the testbench compares with the RTL every cycle. The
// values come from the algorithm model, orizuru_topk (model/orizuru.hpp).
// Interface and timing are described in docs/orizuru.md.
#pragma once

#include <cstdint>
#include <vector>

#include "model/config.hpp"
#include "model/fp.hpp"
#include "model/orizuru.hpp"

namespace oasis {

/// Structure and timing of the generated engine for one config.
struct OrizuruTiming {
  int channels = 0;          ///< N
  int k = 0;                 ///< outliers per side
  int unit_inputs = 0;       ///< R
  int unit_levels = 0;       ///< log2(R)
  int layers = 0;            ///< layers of units, leaves to root
  std::vector<int> units_per_layer;  ///< leaves first; the last is 1
  int units = 0;             ///< sum of units_per_layer (273 for 4096 / 16)
  int tree_levels = 0;       ///< comparator levels of the padded tree: layers * log2(R)
  int levels_per_stage = 0;  ///< comparator levels evaluated in one build cycle
  int beat_activations = 0;  ///< activations per input beat (= R)
  int beats = 0;             ///< input beats per token: ceil(N / R)
  int padded_leaves = 0;     ///< beats * R leaf registers (the extra ones unavailable)
  int channel_bits = 0;      ///< width of the channel field of an output
  int build_cycles = 0;      ///< cycles from the last beat to the first output
  int cycles_per_token = 0;  ///< beats + build_cycles + 2k with no stalls
  int64_t comparators = 0;   ///< comparator instances that do work (see docs/orizuru.md)
};

/// The Orizuru engine's figures; `baseline` gives those of topk_baseline (one
/// build cycle, 2(N-1) comparators reducing the whole masked vector).
OrizuruTiming orizuru_timing(const Config& config, bool baseline = false);

/// Cycle model: the same load / build / drain handshake as the RTL.
class OrizuruCycle {
 public:
  explicit OrizuruCycle(const OrizuruTiming& timing);

  /// Outputs of the current cycle; they depend on the state only.
  bool in_ready() const { return state_ == State::kLoad; }
  bool out_valid() const { return state_ == State::kDrain; }
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
  std::vector<Fp16> leaves_;
  std::vector<Outlier> outputs_;
  uint64_t tokens_done_ = 0;
};

}  // namespace oasis
