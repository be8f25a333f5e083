// SPDX-License-Identifier: Apache-2.0
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
#include "model/cycle/index_counter.hpp"
#include "model/derived.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"

namespace oasis {

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

  bool w_ready() const;
  bool y_valid() const { return !out_fifo_.empty(); }
  Fp16 y_data() const { return out_fifo_.empty() ? Fp16{} : out_fifo_.front(); }
  /// No row anywhere in the line (the context may change).
  bool idle() const;
  /// The line's fixed figures: derive(config).pe_line (docs/pe_line.md, Timing).
  const LineTiming& timing() const { return derived_.pe_line; }

  /// The clock edge. `w_idx` holds Wb indices (read when w_valid).
  void clock(bool w_valid, std::span<const uint8_t> w_idx, Fp16 w_scale, bool y_ready);

 private:
  /// The fill side may take a beat: the bank it writes is free and, with streamed counting,
  /// a row's first beat has a credit (the array's readiness aside).
  bool fill_ok() const;
  // The steps of clock().
  void merge(uint64_t now);
  void push_outlier_group(uint64_t now);
  void push_main_chunk(uint64_t now);
  void accumulate(uint64_t now, std::vector<AccValue>& main_push, std::vector<AccValue>& comp_push);
  void fill(std::span<const uint8_t> w_idx, Fp16 w_scale);
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
  Derived derived_;  ///< derive(config_)
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
  Delay<AccValue> main_acc_pipe_, comp_tree_pipe_;
  Delay<Fp16> merge_pipe_;
  std::vector<AccValue> main_sums_;                  ///< the row's chunk sums so far
  std::vector<std::vector<AccValue>> mac_products_;  ///< each MAC's products of the row so far
  std::deque<AccValue> main_fifo_, comp_fifo_;
  std::deque<Fp16> scale_fifo_, out_fifo_;
};

}  // namespace oasis
