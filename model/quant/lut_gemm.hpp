// SPDX-License-Identifier: Apache-2.0
// The Cartesian-product LUT-GEMM of OASIS with look-ahead and error
// compensation (docs/spec.md sections 1 and 6), bit-exact in the order written down
// in docs/numerics.md, one function per step so a cycle model of a PE line
// can call the same code for one row. Also the comparison paths: the FP32
// reference GEMM on unquantised data, the conventional dequantise-then-GEMM
// path, the INT round-to-nearest baseline, and the exact-integer forms of the
// two identities of docs/spec.md section 1.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/config.hpp"
#include "model/cycle/orizuru.hpp"
#include "model/numerics/fp.hpp"
#include "model/quant/quant.hpp"

namespace oasis {

/// A value in the accumulator format A: binary32 bits, or binary16 bits in
/// the low half.
struct AccValue {
  uint32_t bits = 0;
  friend constexpr bool operator==(AccValue, AccValue) = default;
};

/// The arithmetic of format A (docs/numerics.md: widen, cnt_A, add_A, mul_A).
class Accumulator {
 public:
  explicit Accumulator(AccumulatorFormat format) : format_(format) {}
  AccumulatorFormat format() const { return format_; }
  AccValue widen(Fp16 x) const;
  /// A count, exact below 2^24 in binary32, one rounding for binary16. A negative count
  /// (symmetric codebooks' signed counts) is its magnitude's conversion negated, which is the
  /// one rounding of n itself (round to nearest even is symmetric); zero is +0.
  AccValue count(int64_t n) const;
  AccValue add(AccValue a, AccValue b) const;
  AccValue mul(AccValue a, AccValue b) const;
  Fp16 to_fp16(AccValue a) const;
  double to_double(AccValue a) const;

 private:
  AccumulatorFormat format_;
};

/// The parameters of the computation (a subset of the Config).
struct LutGemmParams {
  int act_bits = 4;           ///< nA
  int weight_bits = 4;        ///< nW
  int mac_tree_inputs = 32;   ///< T
  int comp_macs = 8;          ///< Mc
  int outliers_per_side = 0;  ///< k; 0 (model only) turns the outlier branch off
  int accumulator_slots = 1;  ///< L: partial sums of each accumulator (Derived::accumulator_slots)
  /// Both codebooks symmetric about zero: signed counts of magnitudes (codebooks: symmetric).
  bool symmetric = false;
  AccumulatorFormat accumulator = AccumulatorFormat::kFp32;
  ScaleMode scale = ScaleMode::kRms;  ///< how s_a is taken from a token

  static LutGemmParams from_config(const Config& config);
};

/// L[(i << nW) | j] = mul16(C_A[i], C_W[j]) (docs/numerics.md, offline).
std::vector<Fp16> cartesian_lut(std::span<const Fp16> act_codebook,
                                std::span<const Fp16> weight_codebook);

/// Whether a codebook is symmetric about zero bit for bit: C[2^n - 1 - i] is C[i] with its
/// sign bit flipped, for every i (docs/spec.md section 1, Symmetric codebooks).
bool is_symmetric_codebook(std::span<const Fp16> codebook);
/// With symmetric codebooks, the LUT of magnitudes: L[(ma << (nW-1)) | mw] =
/// mul16(C_A[2^(nA-1) + ma], C_W[2^(nW-1) + mw]), the products of the positive centroids.
std::vector<Fp16> symmetric_lut(std::span<const Fp16> act_codebook,
                                std::span<const Fp16> weight_codebook);
/// With symmetric codebooks, the bin the Index Counter array counts concatenated index e =
/// (ia << nW) | iw in: {s, ma, mw} (s high), with s = ia[nA-1] XOR iw[nW-1] the product's sign
/// (1: negative) and ma, mw each index's magnitude, its low bits inverted when its top bit is
/// 0 (the mirror of centroid i is 2^n - 1 - i, all bits inverted).
int fold_index(int e, int act_bits, int weight_bits);
/// A symmetric line's signed counts from its bins' counts (2^(nA+nW-1) of them, fold_index):
/// magnitude m's count is bin m's (positive products) less bin 2^(nA+nW-2) + m's (negative).
std::vector<int32_t> signed_counts(std::span<const uint32_t> bins);
/// A symmetric line's signed counts from the counts of the 2^(nA+nW) concatenated indices:
/// each entry's count into its bin (fold_index), then signed_counts.
std::vector<int32_t> fold_counts(std::span<const uint32_t> counts, int act_bits, int weight_bits);

/// A token as the per-row computation sees it (everything shared by rows).
struct PreparedToken {
  Fp16 scale;                      ///< s_a
  std::vector<Fp16> xhat;          ///< x̂ = x / s_a
  std::vector<uint8_t> act_index;  ///< ia, one per channel
  std::vector<Outlier> outliers;   ///< Orizuru's 2k outputs, max_1, min_1, ...
  std::vector<Fp16> residuals;     ///< r[o_j] = sub16(x̂[o_j], C_A[ia[o_j]]), same order
};

/// What one row's computation produced, step by step.
struct RowTrace {
  /// What the MAC tree multiplies: cnt[e], or with symmetric codebooks the signed counts
  /// of the magnitudes.
  std::vector<int32_t> counts;
  std::vector<AccValue> tree;    ///< the MAC tree's sum for each cycle
  AccValue main;                 ///< main branch
  std::vector<AccValue> macs;    ///< each compensation MAC's result
  std::optional<AccValue> comp;  ///< outlier branch (none when k = 0)
  AccValue merged;               ///< add_A(main, comp)
  Fp16 y;
};

// Per-row steps (docs/numerics.md, "Per token and row").

/// Step 2: cnt[e] for e = (ia << nW) | iw, 2^(nA+nW) counts.
std::vector<uint32_t> index_counts(std::span<const uint8_t> act_index,
                                   std::span<const uint8_t> weight_index_row, int act_bits,
                                   int weight_bits);
/// Step 2 as the MAC tree reads it: index_counts, or with `symmetric` codebooks the
/// signed counts of the 2^(nA+nW-2) magnitudes (fold_index, signed_counts).
std::vector<int32_t> main_counts(std::span<const uint8_t> act_index,
                                 std::span<const uint8_t> weight_index_row, int act_bits,
                                 int weight_bits, bool symmetric);
/// The pairwise tree: adjacent pairs added left operand first, an odd last
/// element passed up, until one value is left. Requires a non-empty input.
AccValue pairwise_tree(std::span<const AccValue> values, const Accumulator& acc);
/// An accumulator with `slots` (L) interleaved partial sums (docs/numerics.md,
/// Accumulation): value i of `values` goes to slot i mod L, the first L load
/// their slots and each later one is added to its slot (the slot the left
/// operand); the min(n, L) slots are then reduced by the pairwise tree in slot
/// order. L = 1 is the plain sum in arrival order. Requires a value and L >= 1.
AccValue interleaved_sum(std::span<const AccValue> values, int slots, const Accumulator& acc);
/// Step 3: the MAC tree of T inputs over the counts, the cycle sums
/// accumulated by an accumulator of `slots` partial sums (interleaved_sum).
/// `tree`, if given, receives the per-cycle sums.
AccValue main_branch(std::span<const int32_t> counts, std::span<const Fp16> lut, int tree_inputs,
                     int slots, const Accumulator& acc, std::vector<AccValue>* tree = nullptr);
/// Step 5: outlier j to MAC j mod Mc, each MAC an accumulator of `slots`
/// partial sums over its products in arrival order (interleaved_sum), the
/// min(Mc, 2k) results reduced by the pairwise tree. Empty outliers give no
/// result. `macs`, if given, receives each MAC's result.
std::optional<AccValue> outlier_branch(std::span<const Outlier> outliers,
                                       std::span<const Fp16> residuals,
                                       std::span<const uint8_t> weight_index_row,
                                       std::span<const Fp16> weight_codebook, int comp_macs,
                                       int slots, const Accumulator& acc,
                                       std::vector<AccValue>* macs = nullptr);
/// Step 6: y = add_A(main, comp) (just main without outliers), times s_a,
/// times s_w, rounded to binary16.
Fp16 merge_and_scale(AccValue main, std::optional<AccValue> comp, Fp16 act_scale, Fp16 weight_scale,
                     const Accumulator& acc, AccValue* merged = nullptr);

struct HostLayer;

/// How LutGemm::rows computes its rows; every kernel gives the same bits.
enum class RowsKernel {
  kSoftware,  ///< row() for every row: the software arithmetic of model/numerics/fp.hpp
  kHost,      ///< the host's binary32 unit, vectorized for the baseline instruction set
  kHostAvx2,  ///< the same with AVX2 vectors and F16C conversions to binary16 (x86-64)
};

/// Whether `kernel` can run in the calling thread: the host has its instructions, and for
/// the host kernels the floating-point environment is IEEE round to nearest even without
/// flush-to-zero (host_fpu_is_ieee()).
bool rows_kernel_available(RowsKernel kernel);
/// The fastest kernel rows_kernel_available() allows (kSoftware at worst).
RowsKernel fastest_rows_kernel();
/// "software", "host", "host-avx2".
const char* rows_kernel_name(RowsKernel kernel);

/// A layer's weight indices laid out for the AVX2 kernel's counting (docs/model.md, Speed):
/// tiles of kRows rows, each tile its rows' indices channel by channel, kRows bytes a
/// channel, so that one vector load is one channel of every row of a tile. Made once for a
/// layer, as a deployment lays its weights out once, and passed to LutGemm::rows() or gemm()
/// beside the weights it was made from (tiles of other weights give other results).
class WeightTiles {
 public:
  static constexpr int kRows = 32;
  /// The most channels the AVX2 kernel counts from tiles (its counts are 16 bits).
  static constexpr size_t kMaxChannels = 0xFFFF;
  /// Indices masked to w.bits bits, as the counting reads them; the rows of a last partial
  /// tile are index 0. Throws std::invalid_argument for weights whose sizes disagree.
  explicit WeightTiles(const QuantizedWeights& w);
  int rows() const { return rows_; }
  int channels() const { return channels_; }
  int bits() const { return bits_; }
  size_t tiles() const { return (size_t(rows_) + kRows - 1) / kRows; }
  /// Tile t: channel c's kRows indices at tile(t) + c * kRows, row q of the tile in byte
  /// row_byte(q).
  const uint8_t* tile(size_t t) const { return data_.data() + t * size_t(channels_) * kRows; }
  /// The byte of a channel that holds row q of its tile: the order in which AVX2's
  /// interleaves (within each 128-bit half) leave the counts, so that they come out in row order.
  static constexpr int row_byte(int q) { return q < 8 || q >= 24 ? q : q < 16 ? q + 8 : q - 8; }

 private:
  int rows_ = 0, channels_ = 0, bits_ = 0;
  std::vector<uint8_t> data_;
};

/// The OASIS GEMM of one layer: codebooks, boundaries and LUT fixed
/// offline, tokens in, FP16 outputs out.
class LutGemm {
 public:
  /// Throws std::invalid_argument for codebooks of the wrong size or an
  /// activation codebook that is not a valid clustering codebook.
  LutGemm(const LutGemmParams& params, std::vector<Fp16> act_codebook,
          std::vector<Fp16> weight_codebook);

  const LutGemmParams& params() const { return params_; }
  const std::vector<Fp16>& act_codebook() const { return act_codebook_; }
  const std::vector<Fp16>& weight_codebook() const { return weight_codebook_; }
  const std::vector<Fp16>& boundaries() const { return boundaries_; }
  const std::vector<Fp16>& lut() const { return lut_; }
  const Accumulator& accumulator() const { return acc_; }

  /// Scale, normalise, cluster, find outliers (Orizuru) and residuals.
  PreparedToken prepare(std::span<const Fp16> x, OrizuruStats* stats = nullptr) const;
  /// The same from an already normalised token and its scale (as the RTL
  /// receives them).
  PreparedToken prepare_normalized(std::span<const Fp16> xhat, Fp16 act_scale,
                                   OrizuruStats* stats = nullptr) const;
  /// One output row, step by step in the software arithmetic of model/numerics/fp.hpp.
  Fp16 row(const PreparedToken& token, std::span<const uint8_t> weight_index_row, Fp16 weight_scale,
           RowTrace* trace = nullptr) const;
  /// Every row of `w` for one token: element n is row(token, row n of w, s_w[n]) bit for bit,
  /// computed by `kernel` (by default fastest_rows_kernel(); docs/model.md says why the host
  /// kernels give the same bits). Rows are split into `threads` contiguous blocks (0: one per
  /// core); the result does not depend on `threads`. With `tiles` (made from `w`), the AVX2
  /// kernel counts from them where the layer allows (weight_bits <= 4, act_bits + weight_bits
  /// <= 8, under 65536 channels), the others ignore them; the result is the same. Throws
  /// std::invalid_argument for weights that do not fit the model or the token, tiles of
  /// another shape, or a kernel that cannot run here.
  std::vector<Fp16> rows(const PreparedToken& token, const QuantizedWeights& w, int threads = 1,
                         std::optional<RowsKernel> kernel = std::nullopt,
                         const WeightTiles* tiles = nullptr) const;
  /// y[t][n] for tokens x channels activations (row-major); the result is
  /// tokens x rows, row-major. Each token's rows as rows() computes them, from `tiles` if
  /// given; without, from tiles made here when there are kTokensWorthTiles tokens or more and
  /// the AVX2 kernel runs.
  std::vector<Fp16> gemm(std::span<const Fp16> x, int tokens, const QuantizedWeights& w,
                         int threads = 1, const WeightTiles* tiles = nullptr) const;
  static constexpr int kTokensWorthTiles = 8;

 private:
  HostLayer host_layer(const PreparedToken& token, size_t channels) const;

  LutGemmParams params_;
  Accumulator acc_;
  std::vector<Fp16> act_codebook_, weight_codebook_, boundaries_, lut_;
};

/// Whether the calling thread's binary32 arithmetic is IEEE round-to-nearest-even with
/// subnormals kept (no flush-to-zero or denormals-are-zero), as LutGemm::rows' fast path
/// needs. False if a library or the program changed the floating-point environment.
bool host_fpu_is_ieee();

/// binary32 rounded once to the nearest binary16 value (ties to even; Inf from 65520 up), as a
/// binary32 again; a NaN stays a NaN. Equals to_fp16 for every input but a NaN's payload.
/// Written without branches so that loops over it vectorize.
inline float round_to_binary16(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v);
  const uint32_t sign = b & 0x80000000u, mag = b & 0x7FFFFFFFu;
  // All ones where a condition holds: selections by mask, which vectorize.
  auto all_ones = [](bool c) { return 0u - uint32_t(c); };
  // Normal binary16 range: drop 13 fraction bits to nearest even (a carry moves into the
  // exponent); 65520 and above round to 2^16 or more, which is Inf.
  uint32_t normal = (mag + 0x0FFFu + ((mag >> 13) & 1u)) & 0xFFFFE000u;
  const uint32_t inf = all_ones(normal >= 0x47800000u);
  normal = (normal & ~inf) | (0x7F800000u & inf);
  // Subnormal range (below 2^-14): multiples of 2^-24, which is the binary32 ulp in
  // [0.5, 1), so the binary32 adder rounds there, ties to even.
  const uint32_t subnormal = std::bit_cast<uint32_t>((std::bit_cast<float>(mag) + 0.5f) - 0.5f);
  const uint32_t sub = all_ones(mag < 0x38800000u), nan = all_ones(mag > 0x7F800000u);
  const uint32_t r = (subnormal & sub) | (normal & ~sub);
  return std::bit_cast<float>(sign | (mag & nan) | (r & ~nan));  // a NaN stays a NaN
}

/// The reference: y[t][n] = sum_k fp32(x[t][k]) * fp32(w[n][k]) on the
/// unquantised data, in binary32, k ascending (product rounded, then added).
std::vector<float> reference_gemm_fp32(std::span<const Fp16> x, int tokens, std::span<const Fp16> w,
                                       int rows, int channels);

/// The conventional path (paper Fig. 4(a)): dequantise (inliers to
/// C_A[ia], outliers kept as x̂, weights to C_W[iw]), then a dense GEMM in
/// format A, k ascending (mul_A then add_A), then the scaling of step 6.
std::vector<Fp16> conventional_gemm(const LutGemm& model, std::span<const Fp16> x, int tokens,
                                    const QuantizedWeights& w);

/// The INT round-to-nearest baseline (per-token activations, per-row
/// weights, symmetric): y = s_a * s_w * sum q_a q_w, in double.
std::vector<double> int_rtn_gemm(std::span<const Fp16> x, int tokens, std::span<const Fp16> w,
                                 int rows, int channels, int act_bits, int weight_bits);

/// Output error against a reference, as signal-to-quantisation-noise ratio
/// in dB: 10 log10(sum ref^2 / sum (y - ref)^2); +inf when equal.
double sqnr_db(std::span<const double> reference, std::span<const double> y);

// Exact arithmetic for the identities of docs/spec.md section 1: every finite
// binary16 value is an integer multiple of 2^-24, so a product is an integer
// multiple of 2^-48 below 2^80 and a sum of 2^16 of them fits in 128 bits.

/// A real number as an integer count of 2^-48.
using Exact = __int128;
/// x * 2^24 as an integer; requires x finite.
int64_t exact_fp16(Fp16 x);
/// a * b * 2^48, exactly.
Exact exact_product(Fp16 a, Fp16 b);
/// sum_e cnt[e] * (C_A[e >> nW] * C_W[e & (2^nW - 1)]), the LUT exact.
/// With symmetric codebooks (`symmetric`), the signed counts of the magnitudes:
/// sum_m cnt[m] * (C_A[2^(nA-1) + ma] * C_W[2^(nW-1) + mw]).
Exact exact_main_by_counts(std::span<const int32_t> counts, std::span<const Fp16> act_codebook,
                           std::span<const Fp16> weight_codebook, int weight_bits,
                           bool symmetric = false);
/// sum_k C_A[ia[k]] * C_W[iw[k]].
Exact exact_main_direct(std::span<const uint8_t> act_index,
                        std::span<const uint8_t> weight_index_row,
                        std::span<const Fp16> act_codebook, std::span<const Fp16> weight_codebook);
/// Look-ahead plus compensation with exact residuals:
/// main + sum_{o in O} (x̂[o] - C_A[ia[o]]) * C_W[iw[o]].
Exact exact_lookahead_compensated(std::span<const Fp16> xhat, std::span<const uint8_t> act_index,
                                  std::span<const uint8_t> weight_index_row,
                                  std::span<const int> outlier_channels,
                                  std::span<const Fp16> act_codebook,
                                  std::span<const Fp16> weight_codebook);
/// Conventional detection: inliers quantised, outliers kept in FP16:
/// sum_{k not in O} C_A[ia[k]] * C_W[iw[k]] + sum_{o in O} x̂[o] * C_W[iw[o]].
Exact exact_conventional(std::span<const Fp16> xhat, std::span<const uint8_t> act_index,
                         std::span<const uint8_t> weight_index_row,
                         std::span<const int> outlier_channels, std::span<const Fp16> act_codebook,
                         std::span<const Fp16> weight_codebook);

}  // namespace oasis
