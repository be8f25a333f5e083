// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/woq_lut_line_baseline.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace oasis {

std::vector<uint8_t> woq_beat_patterns(const WoqLutTiming& t, int channels,
                                       std::span<const uint8_t> codes, int beat) {
  if (codes.size() != size_t(t.rows) * size_t(channels) || beat < 0 || beat >= t.batch_beats) {
    throw std::invalid_argument(
        fmt::format("woq_beat_patterns: {} codes for {} rows of K = {}, "
                    "beat {} of {}",
                    codes.size(), t.rows, channels, beat, t.batch_beats));
  }
  const int window = beat / t.planes, plane = beat % t.planes;
  std::vector<uint8_t> patterns(size_t(t.units), 0);
  for (int u = 0; u < t.units; ++u) {
    const int r = u / t.luts, g = window * t.luts + u % t.luts;
    for (int j = 0; j < t.group_size; ++j) {
      const int k = g * t.group_size + j;
      const unsigned digit =
          k < channels ? (codes[size_t(r) * size_t(channels) + size_t(k)] >> plane) & 1u : 1u;
      patterns[size_t(u)] = uint8_t(patterns[size_t(u)] | digit << j);
    }
  }
  return patterns;
}

WoqLutLineBaseline::WoqLutLineBaseline(const Config& config)
    : config_(config),
      timing_(derive(config).woq_lut_line_baseline),
      params_(WoqLutParams::from_config(config)) {
  reset();
}

void WoqLutLineBaseline::reset() {
  cycle_ = 0;
  credits_ = queued_ = 0;
  epoch_ = cur_valid_ = loaded_ = false;
  generating_.clear();
  beat_ = plane_ = 0;
  codes_.assign(size_t(timing_.rows) * size_t(config_.channels), 0);
  scales_.assign(size_t(timing_.rows), Fp16{});
  out_.clear();
}

void WoqLutLineBaseline::clock(bool act_load, std::span<const Fp16> act, bool w_valid,
                               std::span<const uint8_t> patterns, Fp16 w_scale) {
  const WoqLutTiming& t = timing_;
  const int K = config_.channels;
  if (y_valid()) out_.pop_front();
  const bool take = w_valid && cur_valid_;
  if (act_load) {
    if (act.size() != size_t(K)) throw std::invalid_argument("WoqLutLineBaseline: K activations");
    if (w_valid || beat_ != 0) {
      throw std::logic_error(fmt::format(
          "WoqLutLineBaseline: a token loaded at cycle {} with a beat offered or inside a batch "
          "(beat {})",
          cycle_, beat_));
    }
    if (loaded_ && cycle_ - last_load_ <= uint64_t(t.generator_latency)) {
      throw std::logic_error(fmt::format(
          "WoqLutLineBaseline: tokens loaded at cycles {} and {}, closer than the generator's {} "
          "cycles",
          last_load_, cycle_, t.generator_latency));
    }
  }
  // The LUT generation: a LUT presented this cycle (of the current token's epoch) goes straight
  // to the current LUT when it is needed and the queue is empty, else into the queue.
  bool arrive = false;
  if (!generating_.empty() && generating_.front().first == cycle_) {
    arrive = generating_.front().second == epoch_ && !act_load;
    generating_.pop_front();
  }
  const bool issue = credits_ > 0 && !act_load;
  const bool window_end = take && plane_ == t.planes - 1;
  const bool need = !cur_valid_ || window_end;
  const bool from_queue = need && queued_ > 0;
  const bool bypass = need && queued_ == 0 && arrive;
  const bool load_current = from_queue || bypass;
  const bool push = arrive && !bypass;
  if (issue) generating_.emplace_back(cycle_ + uint64_t(t.generator_latency), epoch_);
  if (act_load) {
    cur_valid_ = false;
    queued_ = 0;
    credits_ = t.lut_slots;
    epoch_ = !epoch_;
    luts_ = woq_token_luts(act, t.group_size);
    last_load_ = cycle_;
    loaded_ = true;
  } else {
    if (need) cur_valid_ = load_current;
    queued_ += (push ? 1 : 0) - (from_queue ? 1 : 0);
    credits_ += (load_current ? 1 : 0) - (issue ? 1 : 0);
    if (queued_ > t.lut_slots || credits_ < 0) {
      throw std::logic_error(
          fmt::format("WoqLutLineBaseline: {} LUTs queued, {} credits", queued_, credits_));
    }
  }
  // The beat: its digits into the rows' codes, its s_w when it carries one.
  if (take) {
    if (patterns.size() != size_t(t.units)) {
      throw std::invalid_argument("WoqLutLineBaseline: a beat is U patterns");
    }
    if (beat_ == 0) std::fill(codes_.begin(), codes_.end(), 0);
    const int window = beat_ / t.planes;
    for (int u = 0; u < t.units; ++u) {
      const int r = u / t.luts, g = window * t.luts + u % t.luts;
      for (int j = 0; j < t.group_size; ++j) {
        const int k = g * t.group_size + j;
        if (k >= K) continue;
        const unsigned digit = (patterns[size_t(u)] >> j) & 1u;
        codes_[size_t(r) * size_t(K) + size_t(k)] |= uint8_t(digit << plane_);
      }
    }
    if (beat_ >= t.batch_beats - t.rows)
      scales_[size_t(beat_ - (t.batch_beats - t.rows))] = w_scale;
    if (beat_ == t.batch_beats - 1) {
      for (int r = 0; r < t.rows; ++r) {
        const Fp16 y = woq_lut_row(
            luts_, K, std::span<const uint8_t>(codes_).subspan(size_t(r) * size_t(K), size_t(K)),
            scales_[size_t(r)], params_);
        out_.emplace_back(cycle_ + uint64_t(t.row_latency + r), y);
      }
    }
    beat_ = beat_ == t.batch_beats - 1 ? 0 : beat_ + 1;
    plane_ = plane_ == t.planes - 1 ? 0 : plane_ + 1;
  }
  ++cycle_;
}

}  // namespace oasis
