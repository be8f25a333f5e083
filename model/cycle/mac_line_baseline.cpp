// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/mac_line_baseline.hpp"

#include <stdexcept>

namespace oasis {

Fp16 mac_line_row(std::span<const Fp16> xhat, std::span<const uint8_t> weight_index_row,
                  std::span<const Fp16> weight_codebook, Fp16 act_scale, Fp16 weight_scale,
                  int macs, int slots, const Accumulator& acc, std::vector<AccValue>* beat_sums) {
  const size_t K = xhat.size();
  if (weight_index_row.size() != K || macs < 1 || K == 0) {
    throw std::invalid_argument("mac_line_row: K activations, K weight indices, M >= 1");
  }
  std::vector<AccValue> sums;
  for (size_t b = 0; b * size_t(macs) < K; ++b) {
    std::vector<AccValue> products;
    for (size_t k = b * size_t(macs); k < K && k < (b + 1) * size_t(macs); ++k) {
      const Fp16 w = weight_codebook[weight_index_row[k]];
      products.push_back(acc.mul(acc.widen(xhat[k]), acc.widen(w)));
    }
    sums.push_back(pairwise_tree(products, acc));
  }
  if (beat_sums != nullptr) *beat_sums = sums;
  return merge_and_scale(interleaved_sum(sums, slots, acc), std::nullopt, act_scale, weight_scale,
                         acc);
}

MacLineBaseline::MacLineBaseline(const Config& config) : MacLineBaseline(config, derive(config)) {}

MacLineBaseline::MacLineBaseline(const Config& config, const Derived& d)
    : config_(config),
      timing_(d.mac_line_baseline),
      slots_(d.accumulator_slots),
      acc_(config.accumulator) {
  reset();
}

void MacLineBaseline::reset() {
  cycle_ = 0;
  beat_ = 0;
  row_.assign(size_t(config_.channels), 0);
  out_.clear();
}

void MacLineBaseline::set_context(std::vector<Fp16> xhat, Fp16 act_scale,
                                  std::vector<Fp16> weight_codebook) {
  if (xhat.size() != size_t(config_.channels) ||
      weight_codebook.size() != size_t(1) << config_.weight_bits) {
    throw std::invalid_argument("MacLineBaseline: K activations and 2^nW codebook entries");
  }
  xhat_ = std::move(xhat);
  act_scale_ = act_scale;
  codebook_ = std::move(weight_codebook);
}

void MacLineBaseline::clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale) {
  if (y_valid()) out_.pop_front();
  if (w_valid) {
    const int M = timing_.macs;
    if (w_idx.size() != size_t(M))
      throw std::invalid_argument("MacLineBaseline: a beat is M indices");
    if (beat_ == 0) row_scale_ = w_scale;
    for (int i = 0; i < M; ++i) {
      const int k = beat_ * M + i;
      if (k < config_.channels) row_[size_t(k)] = w_idx[size_t(i)];
    }
    if (++beat_ == timing_.beats) {
      beat_ = 0;
      const Fp16 y = mac_line_row(xhat_, row_, codebook_, act_scale_, row_scale_, M, slots_, acc_);
      out_.emplace_back(cycle_ + uint64_t(timing_.row_latency), y);
    }
  }
  ++cycle_;
}

}  // namespace oasis
