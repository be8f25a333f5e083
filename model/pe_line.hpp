// One PE line (paper IV-A, docs/spec.md section 6): Weight Index Buffer, Concat
// Units and Index Counter array, MAC tree and accumulator, the compensation
// MACs with the Dequantization Unit, the merge and scaling, an output FIFO.
// The cycle model that the generated RTL (gen/pe_line.cpp, block pe_line)
// follows cycle by cycle; every y it gives is LutGemm::row's. Structure and
// timing: docs/pe_line.md.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "model/config.hpp"
#include "model/fp.hpp"
#include "model/index_counter.hpp"
#include "model/lut_gemm.hpp"

namespace oasis {

/// The fixed figures of a line, from the config (docs/pe_line.md, Timing).
struct PeLineTiming {
  int fill_beats = 0;         ///< weight-stream beats a row: ceil(K / Wb)
  int count_beats = 0;        ///< Index Counter beats a row: ceil(K / G)
  int chunks = 0;             ///< MAC-tree cycles a row: ceil(E / T)
  int groups = 0;             ///< compensation cycles a row: ceil(2k / Mc)
  int tree_inputs = 0;        ///< min(T, E): inputs of the MAC tree
  int tree_levels = 0;        ///< ceil(log2 tree_inputs)
  int comp_inputs = 0;        ///< min(Mc, 2k): compensation MACs in use
  int comp_levels = 0;        ///< ceil(log2 comp_inputs)
  int main_latency = 0;       ///< a chunk's counts to its tree sum: (2 + tree_levels) S
  int comp_latency = 0;       ///< a group's issue to its products: S
  int comp_tree_latency = 0;  ///< comp_levels S
  int merge_latency = 0;      ///< add, two scalings, rounding: 3 S (+ S for binary32)
  int row_interval = 0;       ///< max(fill_beats, count_beats, chunks, groups)
  int row_latency = 0;        ///< last weight beat taken to y valid, unthrottled
  int fifo_depth = 0;         ///< D: rows a line has in flight at most
};

PeLineTiming pe_line_timing(const Config& config);

/// What a token gives every line (held while the line works on the token).
struct PeLineContext {
  std::vector<uint8_t> act_index;     ///< ia[k], K entries
  std::vector<int> outlier_channels;  ///< o_j, 2k entries, Orizuru's order
  std::vector<Fp16> residuals;        ///< r[o_j], same order
  Fp16 act_scale;                     ///< s_a
  std::vector<Fp16> lut;              ///< L[e], 2^(nA+nW) entries
  std::vector<Fp16> weight_codebook;  ///< C_W, 2^nW entries
};

/// Cycle model. Per cycle: set_context only while idle(), read the outputs,
/// then clock() with the inputs.
class PeLine {
 public:
  explicit PeLine(const Config& config);

  void reset();
  /// Throws std::invalid_argument for a context of the wrong shape.
  void set_context(const PeLineContext& context);

  bool w_ready() const { return !bank_full_[wr_bank_]; }
  bool y_valid() const { return !out_fifo_.empty(); }
  Fp16 y_data() const { return out_fifo_.empty() ? Fp16{} : out_fifo_.front(); }
  /// No row anywhere in the line (the context may change).
  bool idle() const;
  const PeLineTiming& timing() const { return timing_; }

  /// The clock edge. `w_idx` holds Wb indices (read when w_valid).
  void clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale, bool y_ready);

 private:
  template <typename T>
  struct Delay {  ///< a fixed-latency pipeline: values due at a cycle
    std::deque<std::pair<uint64_t, T>> q;
    void push(uint64_t due, T v) { q.emplace_back(due, std::move(v)); }
    std::optional<T> take(uint64_t now) {
      if (q.empty() || q.front().first != now) return std::nullopt;
      T v = std::move(q.front().second);
      q.pop_front();
      return v;
    }
  };
  struct Tagged {
    std::vector<AccValue> values;  ///< a tree sum (1) or a group's products (Mc)
    std::vector<bool> present;     ///< compensation: which MACs get a product
    bool first = false, last = false;
  };

  Config config_;
  PeLineTiming timing_;
  Accumulator acc_;
  PeLineContext ctx_;
  IndexCounterArray counters_;
  uint64_t cycle_ = 0;

  // Weight Index Buffer.
  std::vector<uint8_t> bank_[2];
  Fp16 bank_scale_[2];
  bool bank_full_[2] = {false, false};
  int wr_bank_ = 0, wr_beat_ = 0;
  int rd_bank_ = 0, cnt_beat_ = 0, group_ = 0;
  bool rd_busy_ = false;
  int credits_ = 0;

  Delay<Tagged> main_pipe_, comp_pipe_;
  Delay<AccValue> comp_tree_pipe_;
  Delay<Fp16> merge_pipe_;
  AccValue main_acc_;
  std::vector<AccValue> macs_;
  bool comp_done_ = false;
  std::deque<AccValue> main_fifo_, comp_fifo_;
  std::deque<Fp16> scale_fifo_, out_fifo_;
};

}  // namespace oasis
