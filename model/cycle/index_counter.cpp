// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/index_counter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "model/quant/lut_gemm.hpp"

namespace oasis {

int popcount_adder_floor(int n) { return n - std::popcount(unsigned(n)); }

AdderCells index_counter_tree_adders(const Config& c) {
  const Derived d = derive(c);
  const int g = d.indices_per_cycle;
  const int width = d.index_counter_array.beat_sum_bits;
  return {g - width, width - std::popcount(unsigned(g))};
}

AdderCells index_counter_accumulator_adders(const Config& c) {
  const IndexCounterTiming t = derive(c).index_counter_array;
  if (t.beats_per_row == 1) return {};
  const int w = t.count_bits;
  // Columns 0 .. low-1 add two bits (the half adder of column 0, then full adders), columns
  // low .. w-2 the carry alone; column w-1 forms no carry.
  const int low = std::min(t.beat_sum_bits, w - 1);
  return {low - 1, w - low};
}

bool index_counter_in_row(const Config& c, int beat, int position) {
  return int64_t(beat) * c.index_counters * c.counter_inputs + position < c.channels;
}

std::vector<uint32_t> index_counts(std::span<const int> idx, const std::vector<bool>& mask,
                                   int index_bits) {
  if (!mask.empty() && mask.size() != idx.size()) {
    throw std::invalid_argument(
        fmt::format("index_counts: {} indices but {} mask bits", idx.size(), mask.size()));
  }
  std::vector<uint32_t> cnt(size_t(1) << index_bits, 0);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (!mask.empty() && !mask[k]) continue;
    if (idx[k] < 0 || idx[k] >= int(cnt.size())) {
      throw std::invalid_argument(
          fmt::format("index_counts: index {} is {}; allowed: 0..{}", k, idx[k], cnt.size() - 1));
    }
    ++cnt[size_t(idx[k])];
  }
  return cnt;
}

IndexCounterArray::IndexCounterArray(const Config& c) : IndexCounterArray(c, derive(c)) {}

IndexCounterArray::IndexCounterArray(const Config& c, const Derived& d)
    : config_(c),
      entries_(d.lut_entries),
      bins_(d.count_bins),
      beats_(d.index_counter_array.beats_per_row),
      chunks_(d.index_counter_array.chunks_per_row),
      group_(d.indices_per_cycle),
      lanes_out_(c.mac_tree_inputs),
      symmetric_(d.symmetric),
      stage_(d.index_counter_array.input_stage),
      ranks_(d.index_counter_array.tree_cuts.size()),
      acc_(size_t(bins_), 0),
      out_(size_t(bins_), 0) {}

void IndexCounterArray::reset() {
  beat_ = 0;
  std::fill(acc_.begin(), acc_.end(), 0);
  std::fill(out_.begin(), out_.end(), 0);
  out_valid_ = false;
  chunk_ = 0;
  in_beat_ = 0;
  in_valid_ = false;
  for (Flight& f : ranks_) f = Flight{};
}

bool IndexCounterArray::count_ready(bool cnt_ready) const {
  // A row's last beat needs the presenting bank free (or freed this cycle): the beat entering
  // the trees, or with registers in them the beat at their end.
  const bool out_free = !out_valid_ || (cnt_ready && cnt_last());
  if (ranks_.empty()) return beat_ != beats_ - 1 || out_free;
  return !ranks_.back().valid || !ranks_.back().last || out_free;
}

bool IndexCounterArray::idx_ready(bool cnt_ready) const {
  return stage_ ? !in_valid_ || count_ready(cnt_ready) : count_ready(cnt_ready);
}

bool IndexCounterArray::pending() const {
  return in_valid_ ||
         std::any_of(ranks_.begin(), ranks_.end(), [](const Flight& f) { return f.valid; });
}

int32_t IndexCounterArray::cnt_data(int t) const {
  const size_t e = size_t(chunk_ * lanes_out_ + t);
  if (e >= size_t(entries_)) return 0;
  return symmetric_ ? int32_t(out_[e]) - int32_t(out_[size_t(entries_) + e]) : int32_t(out_[e]);
}

void IndexCounterArray::clock(bool idx_valid, std::span<const int> idx,
                              const std::vector<bool>& mask, bool cnt_ready) {
  const bool accept = idx_valid && idx_ready(cnt_ready);
  if (accept && (idx.size() != size_t(group_) || mask.size() != size_t(group_))) {
    throw std::invalid_argument(
        fmt::format("IndexCounterArray::clock: {} indices and {} mask bits; allowed: C*I = {} each",
                    idx.size(), mask.size(), group_));
  }
  const bool moves = count_ready(cnt_ready);
  const bool enters = stage_ ? in_valid_ && moves : accept;
  Flight entering;
  if (enters) entering = stage_ ? enter(in_idx_, in_mask_) : enter(idx, mask);
  if (ranks_.empty()) {
    bank(entering, cnt_ready);
  } else {
    bank(moves ? ranks_.back() : Flight{}, cnt_ready);
    if (moves) {
      for (size_t r = ranks_.size() - 1; r > 0; --r) ranks_[r] = std::move(ranks_[r - 1]);
      ranks_[0] = std::move(entering);
    }
  }
  if (!stage_) return;
  if (accept) {
    in_idx_.assign(idx.begin(), idx.end());
    in_mask_ = mask;
    in_valid_ = true;
    in_beat_ = in_beat_ == beats_ - 1 ? 0 : in_beat_ + 1;
  } else if (enters) {
    in_valid_ = false;
  }
}

IndexCounterArray::Flight IndexCounterArray::enter(std::span<const int> idx,
                                                   const std::vector<bool>& mask) {
  Flight f{true, beat_ == 0, beat_ == beats_ - 1, std::vector<uint32_t>(size_t(bins_), 0)};
  const int indices = 1 << (config_.act_bits + config_.weight_bits);
  for (int p = 0; p < group_; ++p) {
    if (!mask[size_t(p)] || !index_counter_in_row(config_, beat_, p)) continue;
    const int e = idx[size_t(p)];
    if (e < 0 || e >= indices) {
      throw std::invalid_argument(fmt::format("IndexCounterArray::clock: index {} is {}", p, e));
    }
    ++f.counts[size_t(symmetric_ ? fold_index(e, config_.act_bits, config_.weight_bits) : e)];
  }
  beat_ = f.last ? 0 : beat_ + 1;
  return f;
}

void IndexCounterArray::bank(const Flight& in, bool cnt_ready) {
  const bool taken = out_valid_ && cnt_ready;
  const bool taken_last = taken && cnt_last();
  if (taken) chunk_ = taken_last ? 0 : chunk_ + 1;
  if (taken_last) out_valid_ = false;
  if (!in.valid) return;
  if (in.first) std::fill(acc_.begin(), acc_.end(), 0);
  for (int e = 0; e < bins_; ++e) acc_[size_t(e)] += in.counts[size_t(e)];
  if (in.last) {
    out_ = acc_;
    out_valid_ = true;
    chunk_ = 0;
  }
}

}  // namespace oasis
