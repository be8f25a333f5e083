// SPDX-License-Identifier: Apache-2.0
// The Concat Unit / Index Counter array of one PE line (paper IV-B,
// docs/spec.md section 6): its functional rule (the counts of a row) and its cycle model,
// which the generated RTL (gen/index_counter.cpp, block index_counter_array)
// follows cycle by cycle. Interface and timing: docs/index_counter.md.
//
// A beat carries G = C*I concatenated indices e = {ia, iw} (nA+nW bits,
// activation bits high) with a mask; each index is decoded to one-hot, and
// entry e's count of the beat is one compressor tree of full and half adders
// over all G positions; the counts of a row accumulate over ceil(K / G)
// beats. Positions at or beyond K in the last beat of a row are never
// counted, whatever the mask says, so a count never exceeds K and
// count_bits = clog2(K + 1) cannot overflow. The counts
// of a finished row move to a second bank and are presented T at a time
// (ceil(E / T) chunks of the LUT's E entries, those beyond E zero) while the next
// row is counted. With symmetric codebooks (Derived::symmetric) each index is counted in its
// folded bin (fold_index: the product's sign and magnitude), and the presented counts are the
// magnitudes' signed counts, positive bin less negative bin (ceil(2^(nA+nW-2) / T) chunks).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/config.hpp"
#include "model/derived.hpp"

namespace oasis {

// The array's figures (beats and chunks a row, count widths, latency, row
// interval) are derive(config).index_counter_array (model/derived.hpp).

/// Whether position p (0 .. C*I-1) of beat b (0 .. beats-1) of a row holds
/// channel b*C*I + p < K (the structural mask; the input mask is ANDed in).
bool index_counter_in_row(const Config& config, int beat, int position);

/// Full and half adder cells of one adder structure.
struct AdderCells {
  int full = 0;
  int half = 0;
  int total() const { return full + half; }
};

/// The fewest full and half adders an exact count of n bits can be built from:
/// n - popcount(n) (each full adder removes one bit of the n, each column ends
/// with one bit; e.g. 11 full + 4 half adders for 16 bits).
int popcount_adder_floor(int n);
/// One entry's count of a beat, a tree over the G = C*I positions: full adders
/// only until every column holds at most two bits, then a ripple-carry adder.
/// Every column j then holds floor(G / 2^j) bits over the whole tree and ends
/// with one, so G - clog2(G+1) full and clog2(G+1) - popcount(G) half adders:
/// the floor.
AdderCells index_counter_tree_adders(const Config& config);
/// The counting bank's adder for one entry, count_bits wide plus the beat's
/// count (a ripple: half adder in column 0, full adders over the beat count's
/// other bits, half adders above, the top column's carry not formed); none
/// when a row is one beat.
AdderCells index_counter_accumulator_adders(const Config& config);

/// docs/spec.md section 6: cnt[e] = number of k with e_k == e, over the indices whose
/// mask is set; 2^index_bits entries. `mask` may be empty (all set).
std::vector<uint32_t> index_counts(std::span<const int> concat_indices,
                                   const std::vector<bool>& mask, int index_bits);

/// Cycle model. Per cycle: set the inputs, read the outputs (idx_ready may
/// depend combinationally on cnt_ready), then clock(). With the input stage
/// (IndexCounterTiming::input_stage) a beat is registered when accepted and
/// counted from the register: the stage takes a beat while it is empty or
/// while the beat it holds enters the trees. With registers in the trees
/// (IndexCounterTiming::tree_cuts, R of them) a beat's counts reach the
/// counting bank R cycles after it enters the trees; the trees' registers move
/// together, and hold while a row's last beat at their end waits for the
/// presenting bank.
class IndexCounterArray {
 public:
  explicit IndexCounterArray(const Config& config);
  /// The same, with derive(config) already at hand.
  IndexCounterArray(const Config& config, const Derived& derived);

  void reset();

  /// idx_ready_o this cycle, given the consumer's cnt_ready_i.
  bool idx_ready(bool cnt_ready) const;
  bool cnt_valid() const { return out_valid_; }
  /// Which chunk of T counts is presented: entries chunk*T .. chunk*T+T-1.
  int cnt_chunk() const { return chunk_; }
  bool cnt_last() const { return chunk_ == chunks_ - 1; }
  /// Count t of the presented chunk (0 for entries beyond lut_entries): with symmetric
  /// codebooks a signed count.
  int32_t cnt_data(int t) const;
  /// An accepted beat is not yet in the counting bank (in the input stage or the trees).
  bool pending() const;
  /// The beat of the current row the next accepted beat will be (0-based).
  int beat() const { return stage_ ? in_beat_ : beat_; }

  /// The clock edge. `idx` and `mask` have C*I entries (read only when
  /// idx_valid).
  void clock(bool idx_valid, std::span<const int> idx, const std::vector<bool>& mask,
             bool cnt_ready);

 private:
  /// A beat's counts on their way through the trees' registers.
  struct Flight {
    bool valid = false;
    bool first = false;  ///< the row's first beat: the counting bank starts from zero
    bool last = false;   ///< the row's last beat: the row goes to the presenting bank
    std::vector<uint32_t> counts;
  };

  /// Whether a beat enters the trees this cycle (from the input, or from the input stage);
  /// with registers in the trees, whether they move.
  bool count_ready(bool cnt_ready) const;
  /// The counts of the beat entering the trees, and its place in the row.
  Flight enter(std::span<const int> idx, const std::vector<bool>& mask);
  /// The presenting bank's edge, and the counting bank's with `in` (when valid) added.
  void bank(const Flight& in, bool cnt_ready);

  Config config_;
  int entries_, bins_, beats_, chunks_, group_, lanes_out_;
  bool symmetric_ = false;
  bool stage_ = false;
  int beat_ = 0;           ///< the beat of the row the trees take next
  int in_beat_ = 0;        ///< with the stage: the beat of the row the input takes next
  bool in_valid_ = false;  ///< the stage holds a beat
  std::vector<int> in_idx_;
  std::vector<bool> in_mask_;
  std::vector<Flight> ranks_;  ///< the trees' registers, first to last
  std::vector<uint32_t> acc_;  ///< the counting bank
  std::vector<uint32_t> out_;  ///< the presenting bank
  bool out_valid_ = false;
  int chunk_ = 0;
};

}  // namespace oasis
