// SPDX-License-Identifier: Apache-2.0
#include "model/perf/analyze.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/cycle/orizuru.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "model/quant/woq_lut.hpp"

namespace oasis {

AnalyticFigures analyze(const Config& c, int rows, int mu, uint64_t seed) {
  if (rows < 1) throw std::invalid_argument(fmt::format("rows {}; allowed: >= 1", rows));
  if (mu < 1 || mu > 30 || c.channels % mu != 0) {
    throw std::invalid_argument(fmt::format(
        "group size mu = {}; allowed: 1..30 and dividing the channels ({})", mu, c.channels));
  }
  const Derived d = derive(c);
  AnalyticFigures f;
  f.channels = c.channels;
  f.rows = rows;
  f.mu = mu;
  const int64_t k = c.channels, n = rows;
  f.lut_entries = d.lut_entries;
  f.woq_lut_entries = (int64_t(1) << mu) * (k / mu);
  f.group_size = k;
  f.reduction_flops = f.lut_entries * n;
  f.woq_reduction_flops = (k / mu) * c.weight_bits * n;
  // 1.5N - 2 + 2k log2 N: the engine's count for N a power of two.
  f.orizuru_formula_applies = (k & (k - 1)) == 0;
  if (f.orizuru_formula_applies) f.orizuru_formula = d.orizuru.comparisons_per_token;
  SyntheticActivationSpec spec;
  spec.tokens = 1;
  spec.channels = c.channels;
  const std::vector<Fp16> token = synthetic_activations(spec, seed);
  OrizuruStats stats;
  orizuru_topk(token, c.outliers_per_side, &stats);
  f.orizuru_measured = int64_t(stats.comparisons);
  f.topk_baseline = kCitedTopkComparisonsPerActivation * k;
  f.stream_cycles = d.row.fill;
  f.count_cycles = d.row.count;
  f.reduce_cycles = d.row.reduce;
  f.comp_cycles = d.row.compensate;
  f.cycles_per_row = d.row.row;
  f.rows_per_line = ceil_div(rows, c.pe_lines);
  f.cycle_lower_bound = d.gemm_lower_bound(rows);
  return f;
}

nlohmann::ordered_json to_json(const AnalyticFigures& f) {
  nlohmann::ordered_json j;
  j["channels"] = f.channels;
  j["rows"] = f.rows;
  j["mu"] = f.mu;
  j["lut_entries"] = f.lut_entries;
  j["woq_lut_entries"] = f.woq_lut_entries;
  j["group_size"] = f.group_size;
  j["reduction_flops"] = f.reduction_flops;
  j["woq_reduction_flops"] = f.woq_reduction_flops;
  j["orizuru_comparisons_formula"] =
      f.orizuru_formula_applies ? nlohmann::ordered_json(f.orizuru_formula) : nullptr;
  j["orizuru_comparisons_measured"] = f.orizuru_measured;
  j["topk_baseline_comparisons"] = f.topk_baseline;
  j["weight_stream_cycles_per_row"] = f.stream_cycles;
  j["count_cycles_per_row"] = f.count_cycles;
  j["reduce_cycles_per_row"] = f.reduce_cycles;
  j["compensation_cycles_per_row"] = f.comp_cycles;
  j["cycles_per_row"] = f.cycles_per_row;
  j["rows_per_pe_line"] = f.rows_per_line;
  j["cycle_lower_bound"] = f.cycle_lower_bound;
  return j;
}

namespace {
std::string ratio(int64_t a, int64_t b) {
  if (b == 0) return "-";
  if (a % b == 0) return fmt::format("{}x", a / b);
  return fmt::format("{:.2f}x", double(a) / double(b));
}
}  // namespace

std::string format_analysis(const Config& c, const AnalyticFigures& f) {
  std::string s;
  s += fmt::format("config {}: K = {}, N = {} rows, k = {}, nA = {}, nW = {}, P = {}\n", c.name,
                   c.channels, f.rows, c.outliers_per_side, c.act_bits, c.weight_bits, c.pe_lines);
  s += fmt::format("{:<28}{:>14}{:>18}{:>10}\n", "", "OASIS", "WOQ LUT-GEMM", "ratio");
  s += fmt::format("{:<28}{:>14}{:>18}{:>10}\n", "LUT entries", f.lut_entries, f.woq_lut_entries,
                   ratio(f.woq_lut_entries, f.lut_entries));
  s += fmt::format("{:<28}{:>14}{:>18}{:>10}\n", "group size", f.group_size, f.mu,
                   ratio(f.group_size, f.mu));
  s += fmt::format("{:<28}{:>14}{:>18}{:>10}\n", "reduction FLOPs", f.reduction_flops,
                   f.woq_reduction_flops, ratio(f.woq_reduction_flops, f.reduction_flops));
  s += fmt::format(
      "  (WOQ LUT-GEMM of Table I with mu = {}: LUT 2^mu*K/mu, reduction (K/mu)*nW*N;\n"
      "   OASIS: LUT 2^(nA+nW), reduction 2^(nA+nW)*N; ratio = WOQ / OASIS)\n",
      f.mu);
  s += fmt::format("Orizuru comparisons, N = {}, k = {}:\n", f.channels, c.outliers_per_side);
  if (f.orizuru_formula_applies) {
    s += fmt::format("  1.5N - 2 + 2k*log2(N) = {}\n", f.orizuru_formula);
  } else {
    s += "  1.5N - 2 + 2k*log2(N): N is not a power of two, formula does not apply\n";
  }
  s += fmt::format("  counted by the model    = {}\n", f.orizuru_measured);
  s += fmt::format("  top-k engine baseline 6N = {} ({} more)\n", f.topk_baseline,
                   ratio(f.topk_baseline, f.orizuru_measured));
  s += fmt::format(
      "Cycles per row: weight stream ceil(K/Wb) = {}, count ceil(K/(C*I)) = {}, reduce "
      "ceil({}/T) = {}, compensate ceil(2k/Mc) = {} -> {}\n",
      f.stream_cycles, f.count_cycles,
      c.codebooks == Codebooks::kSymmetric ? "2^(nA+nW-2)" : "2^(nA+nW)", f.reduce_cycles,
      f.comp_cycles, f.cycles_per_row);
  s += fmt::format(
      "Cycle lower bound for one token, N = {} rows: ceil(N/P) * {} = {} * {} = {} "
      "cycles (plus fill and drain)\n",
      f.rows, f.cycles_per_row, f.rows_per_line, f.cycles_per_row, f.cycle_lower_bound);
  return s;
}

std::vector<SqnrCase> sqnr_report(const Config& c, const SqnrOptions& o) {
  if (o.tokens < 1 || o.calibration_tokens < 1 || o.rows < 1) {
    throw std::invalid_argument("SQNR report: tokens, calibration tokens and rows must be >= 1");
  }
  if (!(o.outlier_fraction > 0 && o.outlier_fraction <= 0.5)) {
    throw std::invalid_argument(
        fmt::format("outlier fraction {}; allowed: (0, 0.5]", o.outlier_fraction));
  }
  const int k_ch = c.channels;
  const int k_out = int(std::ceil(o.outlier_fraction * k_ch - 1e-9));
  SyntheticActivationSpec spec;
  spec.channels = k_ch;
  spec.tokens = o.tokens;
  const std::vector<Fp16> x = synthetic_activations(spec, o.seed * 3 + 0);
  spec.tokens = o.calibration_tokens;
  const std::vector<Fp16> calib = synthetic_activations(spec, o.seed * 3 + 1);
  const std::vector<Fp16> w = synthetic_weights(o.rows, k_ch, o.seed * 3 + 2);
  const std::vector<float> ref_f = reference_gemm_fp32(x, o.tokens, w, o.rows, k_ch);
  const std::vector<double> ref(ref_f.begin(), ref_f.end());

  auto to_d = [](const std::vector<Fp16>& v) {
    std::vector<double> d;
    for (const Fp16 h : v) d.push_back(to_double(h));
    return d;
  };
  std::vector<SqnrCase> cases;
  for (const int a_bits : {4, 3}) {
    const int w_bits = 4;
    SqnrCase ic;
    ic.name = fmt::format("INT RTN W{}A{}", w_bits, a_bits);
    ic.weight_bits = w_bits;
    ic.act_bits = a_bits;
    ic.outliers_per_side = -1;
    ic.sqnr_db = sqnr_db(ref, int_rtn_gemm(x, o.tokens, w, o.rows, k_ch, a_bits, w_bits));
    cases.push_back(ic);

    // Free codebooks, then codebooks symmetric about zero (kmeans_symmetric) for both
    // operands: what the sign-symmetric counting would cost in accuracy.
    for (const bool symmetric : {false, true}) {
      const std::string nu =
          symmetric ? fmt::format("NU{} sym", w_bits) : fmt::format("NU{}", w_bits);
      WeightQuantOptions wo;
      wo.bits = w_bits;
      wo.seed = o.seed;
      wo.method = o.method;
      wo.symmetric = symmetric;
      const QuantizedWeights qw = quantize_weights(w, o.rows, k_ch, wo);
      if (a_bits == 4) {
        // The weights' share of the error: NU weights, unquantised activations.
        std::vector<Fp16> wd(w.size());
        for (size_t i = 0; i < w.size(); ++i) {
          wd[i] = mul(qw.codebook[qw.indices[i]], qw.scales[i / size_t(k_ch)]);
        }
        const std::vector<float> yw = reference_gemm_fp32(x, o.tokens, wd, o.rows, k_ch);
        SqnrCase wc;
        wc.name = fmt::format("{} W{} only (FP16 activations)", nu, w_bits);
        wc.weight_bits = w_bits;
        wc.outliers_per_side = -1;
        wc.sqnr_db = sqnr_db(ref, std::vector<double>(yw.begin(), yw.end()));
        cases.push_back(wc);
      }
      for (const int kk : {0, k_out}) {
        if (symmetric && kk == 0) continue;
        ActCalibrationOptions ao;
        ao.bits = a_bits;
        ao.seed = o.seed;
        ao.method = o.method;
        ao.outliers_per_side = kk;
        ao.symmetric = symmetric;
        const ActCalibration cal = calibrate_activations(calib, o.calibration_tokens, k_ch, {}, ao);
        LutGemmParams p = LutGemmParams::from_config(c);
        p.act_bits = a_bits;
        p.weight_bits = w_bits;
        p.outliers_per_side = kk;
        const LutGemm model(p, cal.codebook, qw.codebook);
        SqnrCase nc;
        nc.name = kk == 0 ? fmt::format("{} W{}A{}, no outliers", nu, w_bits, a_bits)
                          : fmt::format("{} W{}A{}, k = {} outliers/side", nu, w_bits, a_bits, kk);
        nc.weight_bits = w_bits;
        nc.act_bits = a_bits;
        nc.outliers_per_side = kk;
        nc.sqnr_db = sqnr_db(ref, to_d(model.gemm(x, o.tokens, qw)));
        nc.conventional_sqnr_db = sqnr_db(ref, to_d(conventional_gemm(model, x, o.tokens, qw)));
        cases.push_back(nc);
      }
    }
  }
  // The FIGLUT-class line's weight-only computation (docs/woq_lut_line.md): uniform 4-bit
  // weights with a searched scale a row, the activations as they are in binary16; beside it the
  // same quantized weights times the activations in double (no rounding but the quantizer's).
  {
    const int w_bits = 4;
    const UniformWeights uw = quantize_uniform(w, o.rows, k_ch, w_bits);
    WoqLutParams p = WoqLutParams::from_config(c);
    p.planes = w_bits;
    SqnrCase wc;
    wc.name = fmt::format("WOQ uniform W{}A16 (LUT line)", w_bits);
    wc.weight_bits = w_bits;
    wc.act_bits = 16;
    wc.outliers_per_side = 0;
    wc.sqnr_db = sqnr_db(ref, to_d(woq_lut_gemm(x, o.tokens, uw, p)));
    std::vector<double> exact;
    for (int t = 0; t < o.tokens; ++t) {
      for (int n = 0; n < o.rows; ++n) {
        double sum = 0;
        for (int k = 0; k < k_ch; ++k) {
          const size_t i = size_t(n) * size_t(k_ch) + size_t(k);
          sum += to_double(x[size_t(t) * size_t(k_ch) + size_t(k)]) *
                 to_double(uw.scales[size_t(n)]) * uniform_level(uw.codes[i], w_bits);
        }
        exact.push_back(sum);
      }
    }
    wc.conventional_sqnr_db = sqnr_db(ref, exact);
    cases.push_back(wc);
  }
  return cases;
}

std::string format_sqnr_report(const Config& c, const SqnrOptions& o,
                               const std::vector<SqnrCase>& cases) {
  std::string s;
  s += fmt::format(
      "Output error against the FP32 GEMM, synthetic LLM-like data (seed {}): {} tokens x K = {} "
      "x N = {} rows, codebooks calibrated on {} other tokens ({} K-means), accumulator {}, "
      "outliers {:.2g} % per side\n",
      o.seed, o.tokens, c.channels, o.rows, o.calibration_tokens,
      o.method == KMeansMethod::kOptimal ? "optimal" : "Lloyd's", accumulator_name(c.accumulator),
      o.outlier_fraction * 100);
  s += fmt::format("{:<34}{:>12}{:>22}\n", "case", "SQNR dB", "dequantise path dB");
  for (const SqnrCase& k : cases) {
    if (k.outliers_per_side < 0) {
      s += fmt::format("{:<34}{:>12.2f}{:>22}\n", k.name, k.sqnr_db, "-");
    } else {
      s += fmt::format("{:<34}{:>12.2f}{:>22.2f}\n", k.name, k.sqnr_db, k.conventional_sqnr_db);
    }
  }
  return s;
}

}  // namespace oasis
