// SPDX-License-Identifier: Apache-2.0
// The paper's analytic figures for a config (Table I, III-B, IV-D, docs/spec.md
// section 6) and the quantisation-error report on synthetic LLM-like data.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/quant/quant.hpp"

namespace oasis {

/// The comparisons per activation of the top-k engine the paper compares
/// Orizuru with (6N for a token of N activations).
inline constexpr int64_t kCitedTopkComparisonsPerActivation = 6;

struct AnalyticFigures {
  int channels = 0;                      ///< K (= Orizuru's N)
  int rows = 0;                          ///< N output rows of the GEMM
  int mu = 0;                            ///< group size of the WOQ LUT-GEMM (Table I)
  int64_t lut_entries = 0;               ///< 2^(nA+nW), 2^(nA+nW-2) with symmetric codebooks
  int64_t woq_lut_entries = 0;           ///< 2^mu * K / mu
  int64_t group_size = 0;                ///< K
  int64_t reduction_flops = 0;           ///< lut_entries * N
  int64_t woq_reduction_flops = 0;       ///< (K / mu) * nW * N
  bool orizuru_formula_applies = false;  ///< K a power of two
  int64_t orizuru_formula = 0;           ///< 1.5N - 2 + 2k log2 N
  int64_t orizuru_measured = 0;          ///< counted by the model on a random token
  int64_t topk_baseline = 0;             ///< 6N, the top-k engine the paper cites
  int stream_cycles = 0;                 ///< ceil(K / Wb): the weight stream's beats
  int count_cycles = 0;                  ///< ceil(K / (C*I))
  int reduce_cycles = 0;                 ///< ceil(lut_entries / T)
  int comp_cycles = 0;                   ///< ceil(2k / Mc)
  int cycles_per_row = 0;                ///< the largest of the four: the row interval
  int64_t rows_per_line = 0;             ///< ceil(N / P)
  int64_t cycle_lower_bound = 0;         ///< ceil(N / P) * cycles_per_row
};

/// mu must divide K. `seed` picks the token Orizuru's count is measured on.
AnalyticFigures analyze(const Config& config, int rows, int mu, uint64_t seed);
nlohmann::ordered_json to_json(const AnalyticFigures& f);
std::string format_analysis(const Config& config, const AnalyticFigures& f);

struct SqnrOptions {
  uint64_t seed = 1;
  int tokens = 32;                             ///< evaluation tokens
  int calibration_tokens = 64;                 ///< calibration tokens (another seed)
  int rows = 256;                              ///< output rows N
  double outlier_fraction = 0.005;             ///< p: k = ceil(p * K) per side
  KMeansMethod method = KMeansMethod::kLloyd;  ///< of every codebook
};

struct SqnrCase {
  std::string name;
  int weight_bits = 0;
  int act_bits = 0;
  int outliers_per_side = 0;  ///< -1 where there is no LUT path (INT, weights only)
  double sqnr_db = 0;         ///< output against the FP32 reference GEMM
  /// NU cases: the same quantised GEMM by the conventional path (dequantise,
  /// then GEMM), which differs from the LUT path only in rounding order.
  double conventional_sqnr_db = 0;
};

/// Output error against the FP32 GEMM on the same synthetic data for INT RTN
/// W4A4, NU W4A4 without and with outliers, and the same for W4A3, plus NU
/// weights alone (the ceiling the activation quantisation adds to); then NU
/// with both codebooks symmetric about zero, weights alone and with outliers;
/// last the FIGLUT-class line's W4A16 (uniform weights, FP16 activations,
/// model/quant/woq_lut.hpp), its dequantise path the same weights in double.
/// The config supplies K, T, Mc, the accumulator format and the line's mu.
std::vector<SqnrCase> sqnr_report(const Config& config, const SqnrOptions& options);
std::string format_sqnr_report(const Config& config, const SqnrOptions& options,
                               const std::vector<SqnrCase>& cases);

}  // namespace oasis
