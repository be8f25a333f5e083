// The Concat Unit / Index Counter array of one PE line (paper IV-B, SPEC
// section 6): its functional rule (the counts of a row) and its cycle model,
// which the generated RTL (gen/index_counter.cpp, block index_counter_array)
// follows cycle by cycle. Interface and timing: docs/index_counter.md.
//
// A beat carries C*I concatenated indices e = {ia, iw} (nA+nW bits, activation
// bits high) with a mask; C Index Counters of I inputs decode them to one-hot
// and sum the columns; the array adds the C counters' columns and accumulates
// a row's counts over ceil(K / (C*I)) beats. Positions at or beyond K in the
// last beat of a row are never counted, whatever the mask says, so a count
// never exceeds K and count_bits = clog2(K + 1) cannot overflow. The counts
// of a finished row move to a second bank and are presented T at a time
// (ceil(2^(nA+nW) / T) chunks, entries beyond 2^(nA+nW) zero) while the next
// row is counted.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/config.hpp"

namespace oasis {

/// Beats of C*I indices per row: ceil(K / (C*I)).
int index_counter_beats_per_row(const Config& config);
/// Chunks of T counts presented per row: ceil(2^(nA+nW) / T).
int index_counter_chunks_per_row(const Config& config);
/// Width of every count: clog2(K + 1), enough for K equal indices.
int index_counter_count_bits(const Config& config);
/// Cycles from the cycle a row's last beat is accepted to the first cycle its
/// first chunk is presented.
int index_counter_latency(const Config& config);
/// Cycles between two rows in steady state without gaps or backpressure:
/// max(beats per row, chunks per row) (double-buffered count banks).
int index_counter_row_interval(const Config& config);
/// Whether position p (0 .. C*I-1) of beat b (0 .. beats-1) of a row holds
/// channel b*C*I + p < K (the structural mask; the input mask is ANDed in).
bool index_counter_in_row(const Config& config, int beat, int position);

/// SPEC section 6: cnt[e] = number of k with e_k == e, over the indices whose
/// mask is set; 2^index_bits entries. `mask` may be empty (all set).
std::vector<uint32_t> index_counts(std::span<const int> concat_indices,
                                   const std::vector<bool>& mask, int index_bits);

/// Cycle model. Per cycle: set the inputs, read the outputs (idx_ready may
/// depend combinationally on cnt_ready), then clock().
class IndexCounterArray {
 public:
  explicit IndexCounterArray(const Config& config);

  void reset();

  /// idx_ready_o this cycle, given the consumer's cnt_ready_i.
  bool idx_ready(bool cnt_ready) const;
  bool cnt_valid() const { return out_valid_; }
  /// Which chunk of T counts is presented: entries chunk*T .. chunk*T+T-1.
  int cnt_chunk() const { return chunk_; }
  bool cnt_last() const { return chunk_ == chunks_ - 1; }
  /// Count t of the presented chunk (0 for entries beyond 2^(nA+nW)).
  uint32_t cnt_data(int t) const;
  /// The beat of the current row the next accepted beat will be (0-based).
  int beat() const { return beat_; }

  /// The clock edge. `idx` and `mask` have C*I entries (read only when
  /// idx_valid).
  void clock(bool idx_valid, std::span<const int> idx, const std::vector<bool>& mask,
             bool cnt_ready);

 private:
  Config config_;
  int entries_, beats_, chunks_, group_, lanes_out_;
  int beat_ = 0;
  std::vector<uint32_t> acc_;  ///< the counting bank
  std::vector<uint32_t> out_;  ///< the presenting bank
  bool out_valid_ = false;
  int chunk_ = 0;
};

}  // namespace oasis
