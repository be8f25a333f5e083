#include "model/orizuru_cycle.hpp"

#include <algorithm>
#include <stdexcept>

namespace oasis {

OrizuruTiming orizuru_timing(const Config& c, bool baseline) {
  OrizuruTiming t;
  t.channels = c.channels;
  t.k = c.outliers_per_side;
  t.unit_inputs = c.orizuru_unit_inputs;
  t.unit_levels = clog2(c.orizuru_unit_inputs);
  for (int width = ceil_div(c.channels, t.unit_inputs);; width = ceil_div(width, t.unit_inputs)) {
    t.units_per_layer.push_back(width);
    if (width == 1) break;
  }
  t.layers = int(t.units_per_layer.size());
  for (int u : t.units_per_layer) t.units += u;
  t.tree_levels = t.layers * t.unit_levels;
  t.levels_per_stage = c.orizuru_levels_per_stage;
  t.beat_activations = t.unit_inputs;
  t.beats = ceil_div(c.channels, t.unit_inputs);
  t.padded_leaves = t.beats * t.unit_inputs;
  t.channel_bits = std::max(1, clog2(c.channels));
  const int64_t n = c.channels;
  if (baseline) {
    t.build_cycles = 1;
    t.comparators = 2 * (n - 1);
  } else {
    t.build_cycles = ceil_div(t.tree_levels, t.levels_per_stage);
    t.comparators = (n - 1) + (n - 1 - n / 2);
  }
  t.cycles_per_token = t.beats + t.build_cycles + 2 * t.k;
  return t;
}

OrizuruCycle::OrizuruCycle(const OrizuruTiming& timing)
    : t_(timing), leaves_(size_t(timing.channels)), outputs_(1) {}

void OrizuruCycle::step(bool in_valid, const std::vector<Fp16>& beat, bool out_ready) {
  switch (state_) {
    case State::kLoad:
      if (!in_valid) break;
      if (beat.size() != size_t(t_.beat_activations)) {
        throw std::invalid_argument("OrizuruCycle: a beat must hold R activations");
      }
      for (int i = 0; i < t_.beat_activations; ++i) {
        const int ch = beat_ * t_.beat_activations + i;
        if (ch < t_.channels) leaves_[size_t(ch)] = beat[size_t(i)];
      }
      if (beat_ == t_.beats - 1) {
        beat_ = 0;
        stage_ = 0;
        state_ = State::kBuild;
      } else {
        ++beat_;
      }
      break;
    case State::kBuild:
      if (stage_ == t_.build_cycles - 1) {
        // The tree is complete at the end of the last build cycle; its pops
        // are the algorithm's output order.
        outputs_ = orizuru_topk(leaves_, t_.k);
        count_ = 0;
        state_ = State::kDrain;
      } else {
        ++stage_;
      }
      break;
    case State::kDrain:
      if (!out_ready) break;
      if (count_ == 2 * t_.k - 1) {
        count_ = 0;
        state_ = State::kLoad;
        ++tokens_done_;
      } else {
        ++count_;
      }
      break;
  }
}

}  // namespace oasis
