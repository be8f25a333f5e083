// SPDX-License-Identifier: Apache-2.0
// The workload of a testbench's --workload mode (docs/workload.md): one layer of the golden
// model, built once from the config and the run options, that every block's testbench streams
// through its block after reset instead of the directed and random stimulus, every check on.
// By default the seeded synthetic LLM-like layer that make demo runs (synthetic_activations,
// synthetic_weights), quantized by the model: weights by quantize_weights, the activation
// codebook by calibrate_activations on 16 calibration tokens, then a LutGemm and each token's
// PreparedToken. A user's tensors (.npy) replace the synthetic ones when given. The sizes'
// defaults per block are one table, in workload.cpp.
//
// The testbench marks the cycles of its run in a WorkloadWindow and reports them with
// report_workload: the `workload` figure of --summary, whose window is the range of cycle
// numbers (lines of the --record file) that the activity flow replays on the netlist.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/pe_line.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "verif/harness/options.hpp"

namespace oasis::tb {

/// A block's workload sizes.
struct WorkloadSizes {
  int tokens = 0;
  int rows = 0;
};

/// The default sizes of `block`'s workload at `channels` (K) channels (the table in
/// workload.cpp); none for a block that has no workload.
std::optional<WorkloadSizes> workload_defaults(std::string_view block, int channels);

/// The calibration tokens the activation codebook is learnt from (from the synthetic seed + 1,
/// or the first ones of a user's activations).
inline constexpr int kCalibrationTokens = 16;

/// One layer of the golden model and its tokens.
struct Workload {
  std::string source;       ///< "synthetic" or "npy" (either tensor from a file)
  std::string activations;  ///< where x came from: "synthetic" or the file
  std::string weights;      ///< where w came from: "synthetic" or the file
  uint64_t seed = 0;        ///< activations: seed, calibration: seed + 1, weights: seed + 2
  int tokens = 0;
  int rows = 0;
  int channels = 0;                     ///< K
  std::vector<Fp16> x;                  ///< tokens x K activations, binary16, row-major
  std::vector<Fp16> w;                  ///< rows x K weights, binary16, row-major
  QuantizedWeights quantized;           ///< iw, s_w and C_W (symmetric for codebooks: symmetric)
  ActCalibration calibration;           ///< C_A from the calibration tokens
  std::optional<LutGemm> gemm;          ///< codebooks, boundaries, LUT; always set
  std::vector<PreparedToken> prepared;  ///< per token: x̂, s_a, ia, outliers, residuals
  std::vector<Fp16> dequantized;        ///< rows x K: C_W[iw[n][k]], the MAC line's weights

  const LutGemm& model() const { return *gemm; }
  /// Row n's weight indices, K of them.
  std::span<const uint8_t> row(int n) const {
    return std::span<const uint8_t>(quantized.indices)
        .subspan(size_t(n) * size_t(channels), size_t(channels));
  }
  /// Row n's dequantized weights C_W[iw[n][k]], K of them.
  std::span<const Fp16> dequantized_row(int n) const {
    return std::span<const Fp16>(dequantized)
        .subspan(size_t(n) * size_t(channels), size_t(channels));
  }
  /// Token t's raw activations, K of them.
  std::span<const Fp16> token(int t) const {
    return std::span<const Fp16>(x).subspan(size_t(t) * size_t(channels), size_t(channels));
  }
  /// What a PE line holds for token t (as the core gives it).
  PeLineContext context(int t) const;
  /// tokens x rows x K.
  uint64_t products() const { return uint64_t(tokens) * uint64_t(rows) * uint64_t(channels); }
};

/// Builds the workload of options.block for `config` from options (seed, sizes, tensors).
/// Bad input (a size the block cannot take, a file that cannot be read, a tensor whose shape
/// does not fit the config, data the model cannot quantize) prints one message and exits with
/// status 2.
Workload build_workload(const Config& config, const Options& options);

/// The stream of a line's workload (the PE line, the MAC line): for each token t, `idle()` (the
/// line runs until idle, so that its token may change), `token(t)`, then `row(iw, s_w)` for
/// each of the layer's rows; `idle()` once more at the end.
template <class Idle, class Token, class Row>
void stream_rows(const Workload& w, Idle idle, Token token, Row row) {
  for (int t = 0; t < w.tokens; ++t) {
    idle();
    token(t);
    for (int n = 0; n < w.rows; ++n) row(w.row(n), w.quantized.scales[size_t(n)]);
  }
  idle();
}

/// The cycles of a workload run, marked by the testbench as it runs.
class WorkloadWindow {
 public:
  /// A cycle in which a workload input is presented: the first opens the window.
  void present(uint64_t cycle) {
    if (!open_) begin_ = cycle;
    open_ = true;
  }
  /// A cycle in which an output is taken (or a result is valid): the window ends after the
  /// last.
  void output(uint64_t cycle) { end_ = std::max(end_, cycle + 1); }
  /// A cycle (or `n` cycles) in which the block's main input stream transferred data.
  void busy(uint64_t n = 1) { busy_ += n; }

  bool open() const { return open_; }
  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  uint64_t busy_cycles() const { return busy_; }

 private:
  bool open_ = false;
  uint64_t begin_ = 0, end_ = 0, busy_ = 0;
};

/// The `workload` figure: source, seed, tokens, rows, channels, window {begin, end},
/// operations {unit, count, and `extra`'s keys}, busy_cycles, cycles.
nlohmann::ordered_json workload_figure(const Workload& w, const WorkloadWindow& window,
                                       std::string_view unit, uint64_t count,
                                       const nlohmann::ordered_json& extra = {});

/// Reports a finished workload run on harness `h` (a Harness<Dut>): the `workload` figure for
/// --summary, and a failure when no input was presented or no output came, or when --record
/// wrote fewer lines than the window needs.
template <class H>
void report_workload(H& h, const Workload& w, const WorkloadWindow& window, std::string_view unit,
                     uint64_t count, const nlohmann::ordered_json& extra = {}) {
  if (!window.open() || window.end() <= window.begin()) {
    h.fail("workload: no input was presented or no output came");
  }
  if (!h.options().record_path.empty() && h.recorded_cycles() < window.end()) {
    h.fail(fmt::format("workload: --record wrote {} cycles, the workload's window ends at {}",
                       h.recorded_cycles(), window.end()));
  }
  h.scoreboard().figure("workload", workload_figure(w, window, unit, count, extra));
  fmt::print("workload: {} {} ({} tokens x {} rows x {} channels), cycles {} to {}, {} busy\n",
             count, unit, w.tokens, w.rows, w.channels, window.begin(), window.end(),
             window.busy_cycles());
}

}  // namespace oasis::tb
