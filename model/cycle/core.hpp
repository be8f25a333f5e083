// SPDX-License-Identifier: Apache-2.0
// The OASIS core (paper IV-A, Fig. 8; docs/spec.md sections 1 and 6): the register
// port, the token pre-processing (Clustering Units, Orizuru, the Error
// Calculation Unit, the activation index buffer) and P PE lines, with the
// token's context double-buffered so that the next token is pre-processed
// while the lines work on this one. The cycle model that the generated RTL
// (gen/core.cpp, block core) follows cycle by cycle; every y it gives is
// LutGemm::row's. Structure, interface and timing: docs/core.md; the figures
// (CoreTiming, the GEMM phase and its bound) are derive()'s, model/derived.hpp.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/clustering_unit.hpp"
#include "model/cycle/orizuru_cycle.hpp"
#include "model/cycle/pe_line.hpp"
#include "model/cycle/regfile.hpp"
#include "model/numerics/fp.hpp"

namespace oasis {

/// The core's inputs in one cycle (ports of docs/core.md; data is read only
/// when its valid is set).
struct CoreInputs {
  bool x_valid = false;
  std::vector<Fp16> x_data;  ///< R activations x̂ (channels beat * R + i)
  Fp16 x_scale;              ///< s_a, taken with the token's first beat
  bool w_valid = false;
  std::vector<uint8_t> w_data;  ///< P * Wb indices, lane p's at [p * Wb, (p+1) * Wb)
  std::vector<Fp16> w_scale;    ///< P scales s_w, lane p = row group * P + p
  int w_rows = 0;               ///< rows in the last group (1..P; else P)
  bool w_last = false;          ///< this group is the token's last
  bool y_ready = false;
  bool reg_we = false, reg_re = false;
  int reg_addr = 0;
  uint16_t reg_wdata = 0;
};

/// Cycle model. Per cycle: read the outputs (they depend on the state only),
/// then clock() with the inputs.
class Core {
 public:
  explicit Core(const Config& config);

  void reset();

  bool x_ready() const;
  bool w_ready() const;
  /// The output group: the next y_rows() rows, one a line, lane p from line
  /// p; valid when every one of those lines has its output.
  bool y_valid() const;
  std::vector<Fp16> y_data() const;  ///< P values; lanes past y_rows() are 0
  int y_rows() const;
  bool y_last() const { return last_seen_ && rows_total_ - out_count_ <= uint64_t(timing_.lines); }
  /// Nothing in flight and no token context waiting for weights: the
  /// register file may be written.
  bool idle() const;
  bool reg_rvalid() const { return rvalid_; }
  uint16_t reg_rdata() const { return rdata_; }

  void clock(const CoreInputs& in);

  const CoreTiming& timing() const { return timing_; }
  const RegFileModel& registers() const { return regs_; }
  /// The pre-processed context waiting for the lines (for tests): true from
  /// the token's last residual until the lines take it.
  bool context_pending() const { return next_full_; }
  uint64_t cycle() const { return cycle_; }

 private:
  bool lines_idle() const;
  std::vector<Fp16> region(const std::string& name) const;

  Config config_;
  CoreTiming timing_;
  RegFileModel regs_;
  ClusteringUnit cu_;
  OrizuruCycle oz_;
  std::vector<PeLine> lines_;
  uint64_t cycle_ = 0;
  bool rvalid_ = false;
  uint16_t rdata_ = 0;

  // Token side: input beats, the hold register feeding the Clustering Unit.
  int in_beat_ = 0;
  bool slot_busy_ = false;  ///< the next-context buffers belong to a token
  bool hold_valid_ = false;
  int hold_part_ = 0;
  std::vector<Fp16> hold_;
  int out_beat_ = 0, out_part_ = 0;  ///< position of the Clustering Unit's next output
  bool idx_done_ = false;
  struct Residual {
    uint64_t due;
    Fp16 r;
    int channel;
  };
  std::deque<Residual> ecu_;
  int ecu_count_ = 0;
  bool next_full_ = false;
  PeLineContext next_, cur_;

  // Weight and output side.
  bool ctx_valid_ = false;  ///< the lines hold a token still taking weight groups
  int w_beat_ = 0;
  int group_rows_ = 0;
  bool group_last_ = false;
  bool last_seen_ = false;
  uint64_t rows_total_ = 0, out_count_ = 0;
};

}  // namespace oasis

namespace oasis {

class LutGemm;

/// What run_core measured for one token.
struct CoreTokenRun {
  std::vector<Fp16> y;         ///< its outputs, row order
  std::vector<bool> y_last;    ///< y_last_o with each output group, per row
  int64_t first_beat = -1;     ///< cycle its first token beat was taken
  int64_t context_ready = -1;  ///< cycle of the edge writing its last residual
  int64_t first_weight = -1;   ///< cycle its first weight beat was taken
  int64_t last_output = -1;    ///< cycle its last output was taken
};

struct CoreRunOptions {
  double x_gap = 0, w_gap = 0, backpressure = 0;  ///< probabilities per cycle
  uint64_t seed = 1;
  uint64_t max_cycles = 100'000'000;
};

/// Drives the core's cycle model the way a host would: loads the LUT,
/// codebooks and boundaries of `gemm` through the register port, then
/// streams the tokens (normalised activations and their scales) and, for
/// each, the whole weight matrix `iw` (rows x K indices) with scales `sw`,
/// in groups of P rows; collects the outputs. Throws std::runtime_error if
/// the core stops making progress.
std::vector<CoreTokenRun> run_core(const Config& config, const LutGemm& gemm,
                                   const std::vector<std::vector<Fp16>>& xhat,
                                   const std::vector<Fp16>& act_scale,
                                   const std::vector<std::vector<uint8_t>>& iw,
                                   const std::vector<Fp16>& sw, const CoreRunOptions& options = {});

}  // namespace oasis
