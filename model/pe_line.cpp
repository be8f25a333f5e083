#include "model/pe_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace oasis {

PeLineTiming pe_line_timing(const Config& c) {
  PeLineTiming t;
  const int entries = 1 << (c.act_bits + c.weight_bits);
  const int s = c.fp_pipeline_stages;
  const RowCycles rc = row_cycles(c);
  t.fill_beats = ceil_div(c.channels, c.weight_beat_indices);
  t.count_beats = rc.count;
  t.chunks = rc.reduce;
  t.groups = rc.compensate;
  t.tree_inputs = std::min(c.mac_tree_inputs, entries);
  t.tree_levels = clog2(t.tree_inputs);
  t.comp_inputs = std::min(c.comp_macs, 2 * c.outliers_per_side);
  t.comp_levels = clog2(t.comp_inputs);
  // Count conversion, multiplier, one adder per tree level.
  t.main_latency = (2 + t.tree_levels) * s;
  t.comp_latency = s;
  t.comp_tree_latency = t.comp_levels * s;
  t.merge_latency = (c.accumulator == AccumulatorFormat::kFp32 ? 4 : 3) * s;
  t.row_interval = std::max({t.fill_beats, t.count_beats, t.chunks, t.groups});
  // From the cycle the row's last weight beat is taken: the row starts the
  // next cycle; the Index Counter array presents chunk 0 the cycle after the
  // last counting beat; the main result enters its FIFO after the
  // accumulator, the compensation result after the MACs, the done register
  // and the tree; the merge starts when both are visible and its result is
  // visible a cycle after it leaves the merge pipeline.
  const int main_ready = t.count_beats + t.chunks + t.main_latency + 1;
  const int comp_ready = t.groups + t.comp_latency + 2 + t.comp_tree_latency;
  t.row_latency = std::max(main_ready, comp_ready) + t.merge_latency + 1;
  t.fifo_depth = ceil_div(t.row_latency - 1, t.row_interval) + 1;
  return t;
}

PeLine::PeLine(const Config& c)
    : config_(c), timing_(pe_line_timing(c)), acc_(c.accumulator), counters_(c) {
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
  comp_tree_pipe_ = {};
  merge_pipe_ = {};
  main_acc_ = {};
  macs_.assign(size_t(timing_.comp_inputs), AccValue{});
  comp_done_ = false;
  main_fifo_.clear();
  comp_fifo_.clear();
  scale_fifo_.clear();
  out_fifo_.clear();
}

void PeLine::set_context(const PeLineContext& ctx) {
  const size_t k2 = size_t(2 * config_.outliers_per_side);
  const size_t entries = size_t(1) << (config_.act_bits + config_.weight_bits);
  if (ctx.act_index.size() != size_t(config_.channels) || ctx.outlier_channels.size() != k2 ||
      ctx.residuals.size() != k2 || ctx.lut.size() != entries ||
      ctx.weight_codebook.size() != size_t(1) << config_.weight_bits) {
    throw std::invalid_argument(fmt::format(
        "PE line context: {} activation indices, {} outliers, {} residuals, {} LUT entries, {} "
        "weight centroids; expected {}, {}, {}, {}, {}",
        ctx.act_index.size(), ctx.outlier_channels.size(), ctx.residuals.size(), ctx.lut.size(),
        ctx.weight_codebook.size(), config_.channels, k2, k2, entries,
        size_t(1) << config_.weight_bits));
  }
  for (int ch : ctx.outlier_channels) {
    if (ch < 0 || ch >= config_.channels) {
      throw std::invalid_argument(fmt::format("PE line context: outlier channel {}; allowed: 0..{}",
                                              ch, config_.channels - 1));
    }
  }
  ctx_ = ctx;
}

bool PeLine::idle() const {
  return !bank_full_[0] && !bank_full_[1] && credits_ == 0 && wr_beat_ == 0;
}

void PeLine::clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale, bool y_ready) {
  const uint64_t now = cycle_;
  const int K = config_.channels;
  const int G = config_.index_counters * config_.counter_inputs;
  const int T = config_.mac_tree_inputs;
  const int Mc = config_.comp_macs;
  const int nW = config_.weight_bits;
  const int entries = 1 << (config_.act_bits + nW);
  std::vector<AccValue> main_push, comp_push;
  std::vector<Fp16> out_push;

  // Output FIFO, then the merge: both read only what was visible at the
  // start of the cycle.
  const bool y_pop = y_valid() && y_ready;
  if (y_pop) out_fifo_.pop_front();
  if (!main_fifo_.empty() && !comp_fifo_.empty()) {
    AccValue merged;
    const Fp16 y = merge_and_scale(main_fifo_.front(), comp_fifo_.front(), ctx_.act_scale,
                                   scale_fifo_.front(), acc_, &merged);
    main_fifo_.pop_front();
    comp_fifo_.pop_front();
    scale_fifo_.pop_front();
    merge_pipe_.push(now + uint64_t(timing_.merge_latency), y);
  }

  // Read side of the Weight Index Buffer: counting and gathering.
  const bool start = !rd_busy_ && bank_full_[rd_bank_] && credits_ < timing_.fifo_depth;
  const bool go = rd_busy_ || start;
  if (start) scale_fifo_.push_back(bank_scale_[rd_bank_]);
  const bool idx_valid = go && cnt_beat_ < timing_.count_beats;
  const bool idx_fire = idx_valid && counters_.idx_ready(true);
  std::vector<int> idx(size_t(G), 0);
  if (idx_valid) {
    for (int p = 0; p < G; ++p) {
      const int ch = cnt_beat_ * G + p;
      if (ch < K) idx[size_t(p)] = (ctx_.act_index[size_t(ch)] << nW) | bank_[rd_bank_][size_t(ch)];
    }
  }
  if (go && group_ < timing_.groups) {
    Tagged g;
    g.values.assign(size_t(Mc), AccValue{});
    g.present.assign(size_t(Mc), false);
    for (int m = 0; m < Mc; ++m) {
      const int j = group_ * Mc + m;
      if (j >= 2 * config_.outliers_per_side) continue;
      const uint8_t iw = bank_[rd_bank_][size_t(ctx_.outlier_channels[size_t(j)])];
      g.values[size_t(m)] =
          acc_.mul(acc_.widen(ctx_.residuals[size_t(j)]), acc_.widen(ctx_.weight_codebook[iw]));
      g.present[size_t(m)] = true;
    }
    g.first = group_ == 0;
    g.last = group_ == timing_.groups - 1;
    comp_pipe_.push(now + uint64_t(timing_.comp_latency), std::move(g));
    ++group_;
  }
  if (idx_fire) ++cnt_beat_;
  const bool release = go && cnt_beat_ == timing_.count_beats && group_ == timing_.groups;
  const int pending_rd_bank = rd_bank_;

  // Main branch: the chunk the Index Counter array presents this cycle.
  if (counters_.cnt_valid()) {
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
    main_pipe_.push(now + uint64_t(timing_.main_latency), std::move(v));
  }
  counters_.clock(idx_valid, idx, std::vector<bool>(size_t(G), true), true);
  if (auto v = main_pipe_.take(now)) {
    main_acc_ = v->first ? v->values[0] : acc_.add(main_acc_, v->values[0]);
    if (v->last) main_push.push_back(main_acc_);
  }

  // Outlier branch: the tree reads the MACs the cycle after their last
  // product, before this cycle's products update them.
  if (comp_done_) {
    comp_tree_pipe_.push(now + uint64_t(timing_.comp_tree_latency), pairwise_tree(macs_, acc_));
  }
  comp_done_ = false;
  if (auto g = comp_pipe_.take(now)) {
    for (int m = 0; m < timing_.comp_inputs; ++m) {
      if (!g->present[size_t(m)]) continue;
      macs_[size_t(m)] =
          g->first ? g->values[size_t(m)] : acc_.add(macs_[size_t(m)], g->values[size_t(m)]);
    }
    comp_done_ = g->last;
  }
  if (auto v = comp_tree_pipe_.take(now)) comp_push.push_back(*v);
  if (auto y = merge_pipe_.take(now)) out_push.push_back(*y);

  // Fill side.
  if (w_valid && w_ready()) {
    for (int p = 0; p < config_.weight_beat_indices; ++p) {
      const int ch = wr_beat_ * config_.weight_beat_indices + p;
      if (ch < K) bank_[wr_bank_][size_t(ch)] = w_idx[size_t(p)] & ((1 << nW) - 1);
    }
    if (wr_beat_ == 0) bank_scale_[wr_bank_] = w_scale;
    if (wr_beat_ == timing_.fill_beats - 1) {
      bank_full_[wr_bank_] = true;
      wr_bank_ ^= 1;
      wr_beat_ = 0;
    } else {
      ++wr_beat_;
    }
  }
  if (release) {
    bank_full_[pending_rd_bank] = false;
    rd_bank_ ^= 1;
    rd_busy_ = false;
    cnt_beat_ = 0;
    group_ = 0;
  } else {
    rd_busy_ = go;
  }
  credits_ += int(start) - int(y_pop);
  for (const auto& v : main_push) main_fifo_.push_back(v);
  for (const auto& v : comp_push) comp_fifo_.push_back(v);
  for (const auto& v : out_push) out_fifo_.push_back(v);
  ++cycle_;
}

}  // namespace oasis
