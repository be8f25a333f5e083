// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/pe_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace oasis {

PeLine::PeLine(const Config& c)
    : config_(c), derived_(derive(c)), acc_(c.accumulator), counters_(c, derived_) {
  for (auto& b : bank_) b.assign(size_t(c.channels), 0);
  reset();
}

void PeLine::reset() {
  counters_.reset();
  cycle_ = 0;
  for (auto& b : bank_) std::fill(b.begin(), b.end(), 0);
  bank_scale_[0] = bank_scale_[1] = Fp16{};
  bank_full_[0] = bank_full_[1] = false;
  wr_bank_ = wr_beat_ = rd_bank_ = cnt_beat_ = group_ = credits_ = 0;
  rd_busy_ = false;
  main_pipe_ = {};
  comp_pipe_ = {};
  main_acc_pipe_ = {};
  comp_tree_pipe_ = {};
  merge_pipe_ = {};
  main_sums_.clear();
  mac_products_.assign(size_t(timing().comp_inputs), {});
  main_fifo_.clear();
  comp_fifo_.clear();
  scale_fifo_.clear();
  out_fifo_.clear();
}

void PeLine::set_context(const PeLineContext& ctx) {
  const size_t k2 = size_t(derived_.outliers);
  const size_t entries = size_t(derived_.lut_entries);
  const size_t centroids = size_t(derived_.weight_centroids);
  if (ctx.act_index.size() != size_t(config_.channels) || ctx.outlier_channels.size() != k2 ||
      ctx.residuals.size() != k2 || ctx.lut.size() != entries ||
      ctx.weight_codebook.size() != centroids) {
    throw std::invalid_argument(fmt::format(
        "PE line context: {} activation indices, {} outliers, {} residuals, {} LUT entries, {} "
        "weight centroids; expected {}, {}, {}, {}, {}",
        ctx.act_index.size(), ctx.outlier_channels.size(), ctx.residuals.size(), ctx.lut.size(),
        ctx.weight_codebook.size(), config_.channels, k2, k2, entries, centroids));
  }
  for (int ch : ctx.outlier_channels) {
    if (ch < 0 || ch >= config_.channels) {
      throw std::invalid_argument(fmt::format("PE line context: outlier channel {}; allowed: 0..{}",
                                              ch, config_.channels - 1));
    }
  }
  ctx_ = ctx;
}

bool PeLine::fill_ok() const {
  if (bank_full_[wr_bank_]) return false;
  // Streamed counting: a row's first beat takes its credit.
  return !timing().streamed_counting || wr_beat_ != 0 || credits_ < timing().fifo_depth;
}

bool PeLine::w_ready() const {
  // Streamed counting: the beat goes to the Index Counter array as it is taken.
  return fill_ok() && (!timing().streamed_counting || counters_.idx_ready(true));
}

bool PeLine::idle() const {
  return !bank_full_[0] && !bank_full_[1] && credits_ == 0 && wr_beat_ == 0;
}

// The merge: the rows at the head of both branches' FIFOs, scaled, into the merge pipeline.
void PeLine::merge(uint64_t now) {
  AccValue merged;
  const Fp16 y = merge_and_scale(main_fifo_.front(), comp_fifo_.front(), ctx_.act_scale,
                                 scale_fifo_.front(), acc_, &merged);
  main_fifo_.pop_front();
  comp_fifo_.pop_front();
  scale_fifo_.pop_front();
  merge_pipe_.push(now + uint64_t(timing().merge_latency), y);
}

// The compensation of the next group of Mc outliers: their products, into the MACs' pipeline.
void PeLine::push_outlier_group(uint64_t now) {
  const int Mc = config_.comp_macs;
  Tagged g;
  g.values.assign(size_t(Mc), AccValue{});
  g.present.assign(size_t(Mc), false);
  for (int m = 0; m < Mc; ++m) {
    const int j = group_ * Mc + m;
    if (j >= derived_.outliers) continue;
    const uint8_t iw = bank_[rd_bank_][size_t(ctx_.outlier_channels[size_t(j)])];
    g.values[size_t(m)] =
        acc_.mul(acc_.widen(ctx_.residuals[size_t(j)]), acc_.widen(ctx_.weight_codebook[iw]));
    g.present[size_t(m)] = true;
  }
  g.first = group_ == 0;
  g.last = group_ == timing().groups - 1;
  comp_pipe_.push(now + uint64_t(timing().comp_latency), std::move(g));
  ++group_;
}

// Main branch: the chunk the Index Counter array presents this cycle, reduced by the tree.
void PeLine::push_main_chunk(uint64_t now) {
  const int T = config_.mac_tree_inputs;
  const int entries = derived_.lut_entries;
  const int c = counters_.cnt_chunk();
  std::vector<AccValue> products;
  for (int t = 0; t < T && c * T + t < entries; ++t) {
    products.push_back(
        acc_.mul(acc_.count(counters_.cnt_data(t)), acc_.widen(ctx_.lut[size_t(c * T + t)])));
  }
  Tagged v;
  v.values = {pairwise_tree(products, acc_)};
  v.first = c == 0;
  v.last = counters_.cnt_last();
  main_pipe_.push(now + uint64_t(timing().main_latency), std::move(v));
}

// The accumulators (docs/numerics.md, Accumulation): a row's sum leaves its
// accumulator main_acc_latency cycles after its last value arrives (at
// once with one partial sum); the MACs' L cycles after their last products,
// then through the trees.
void PeLine::accumulate(uint64_t now, std::vector<AccValue>& main_push,
                        std::vector<AccValue>& comp_push) {
  const int slots = derived_.accumulator_slots;
  if (auto v = main_acc_pipe_.take(now)) main_push.push_back(*v);
  if (auto v = main_pipe_.take(now)) {
    if (v->first) main_sums_.clear();
    main_sums_.push_back(v->values[0]);
    if (v->last) {
      const AccValue sum = interleaved_sum(main_sums_, slots, acc_);
      if (timing().main_acc_latency == 0) {
        main_push.push_back(sum);
      } else {
        main_acc_pipe_.push(now + uint64_t(timing().main_acc_latency), sum);
      }
    }
  }
  if (auto g = comp_pipe_.take(now)) {
    for (int m = 0; m < timing().comp_inputs; ++m) {
      auto& p = mac_products_[size_t(m)];
      if (g->first) p.clear();
      if (g->present[size_t(m)]) p.push_back(g->values[size_t(m)]);
    }
    if (g->last) {
      std::vector<AccValue> macs;
      for (const auto& p : mac_products_) macs.push_back(interleaved_sum(p, slots, acc_));
      comp_tree_pipe_.push(now + uint64_t(timing().comp_acc_latency + timing().comp_tree_latency),
                           pairwise_tree(macs, acc_));
    }
  }
  if (auto v = comp_tree_pipe_.take(now)) comp_push.push_back(*v);
}

// Fill side: a weight beat taken into the bank being written.
void PeLine::fill(std::span<const uint8_t> w_idx, Fp16 w_scale) {
  const int K = config_.channels;
  const int nW = config_.weight_bits;
  for (int p = 0; p < config_.weight_beat_indices; ++p) {
    const int ch = wr_beat_ * config_.weight_beat_indices + p;
    if (ch < K) bank_[wr_bank_][size_t(ch)] = w_idx[size_t(p)] & ((1 << nW) - 1);
  }
  if (wr_beat_ == 0) bank_scale_[wr_bank_] = w_scale;
  if (wr_beat_ == timing().fill_beats - 1) {
    bank_full_[wr_bank_] = true;
    wr_bank_ ^= 1;
    wr_beat_ = 0;
  } else {
    ++wr_beat_;
  }
}

void PeLine::clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale, bool y_ready) {
  const uint64_t now = cycle_;
  const int K = config_.channels;
  const int G = derived_.indices_per_cycle;
  const int nW = config_.weight_bits;
  std::vector<AccValue> main_push, comp_push;
  std::vector<Fp16> out_push;
  const bool stream = timing().streamed_counting;
  const bool w_fire = w_valid && w_ready();
  // Streamed counting: a row starts (takes its credit and passes its s_w to the merge) with its
  // first weight beat.
  const bool fill_start = stream && w_fire && wr_beat_ == 0;

  // Output FIFO, then the merge: both read only what was visible at the
  // start of the cycle.
  const bool y_pop = y_valid() && y_ready;
  if (y_pop) out_fifo_.pop_front();
  if (!main_fifo_.empty() && !comp_fifo_.empty()) merge(now);

  // Read side of the Weight Index Buffer: counting and gathering.
  const bool start =
      !rd_busy_ && bank_full_[rd_bank_] && (stream || credits_ < timing().fifo_depth);
  const bool go = rd_busy_ || start;
  if (fill_start) scale_fifo_.push_back(w_scale);
  if (start && !stream) scale_fifo_.push_back(bank_scale_[rd_bank_]);
  // The counting beat: the read bank's, or streamed, the weight beat offered (taken when the
  // array and the fill side are ready).
  const bool idx_valid = stream ? w_valid && fill_ok() : go && cnt_beat_ < timing().count_beats;
  const bool idx_fire = idx_valid && counters_.idx_ready(true);
  const int beat = stream ? wr_beat_ : cnt_beat_;
  std::vector<int> idx(size_t(G), 0);
  if (idx_valid) {
    for (int p = 0; p < G; ++p) {
      const int ch = beat * G + p;
      if (ch >= K) continue;
      const int iw = stream ? w_idx[size_t(p)] & ((1 << nW) - 1) : bank_[rd_bank_][size_t(ch)];
      idx[size_t(p)] = (ctx_.act_index[size_t(ch)] << nW) | iw;
    }
  }
  if (go && group_ < timing().groups) push_outlier_group(now);
  if (idx_fire && !stream) ++cnt_beat_;
  const bool release =
      go && (stream || cnt_beat_ == timing().count_beats) && group_ == timing().groups;
  const int pending_rd_bank = rd_bank_;

  // Main branch: the chunk the Index Counter array presents this cycle.
  if (counters_.cnt_valid()) push_main_chunk(now);
  counters_.clock(idx_valid, idx, std::vector<bool>(size_t(G), true), true);
  accumulate(now, main_push, comp_push);
  if (auto y = merge_pipe_.take(now)) out_push.push_back(*y);

  // Fill side.
  if (w_fire) fill(w_idx, w_scale);
  if (release) {
    bank_full_[pending_rd_bank] = false;
    rd_bank_ ^= 1;
    rd_busy_ = false;
    cnt_beat_ = 0;
    group_ = 0;
  } else {
    rd_busy_ = go;
  }
  credits_ += int(stream ? fill_start : start) - int(y_pop);
  for (const auto& v : main_push) main_fifo_.push_back(v);
  for (const auto& v : comp_push) comp_fifo_.push_back(v);
  for (const auto& v : out_push) out_fifo_.push_back(v);
  ++cycle_;
}

}  // namespace oasis
