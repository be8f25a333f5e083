// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/orizuru_cycle.hpp"

#include <algorithm>
#include <stdexcept>

namespace oasis {

OrizuruCycle::OrizuruCycle(const OrizuruTiming& timing)
    : t_(timing), leaves_(size_t(timing.channels)), outputs_(1) {}

void OrizuruCycle::step(bool in_valid, const std::vector<Fp16>& beat, bool out_ready) {
  const bool pop = out_valid() && out_ready;
  const int side = count_ % 2;
  for (int& w : wait_) w = std::max(0, w - 1);
  if (pop) wait_[side] = t_.pop_cycles - 1;
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
      if (!pop) break;
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
