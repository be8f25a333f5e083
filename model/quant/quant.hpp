// SPDX-License-Identifier: Apache-2.0
// NU-WAQ quantisation (docs/spec.md section 3, paper III-A and V-A): codebooks by
// weighted K-means, weights with one shared codebook and per-row scales,
// activation codebooks calibrated offline on tokens normalised by their own
// scale; and the INT round-to-nearest baseline the paper compares with.
// Everything here is offline and model-only, computed in double; the results
// that reach the hardware (centroids, scales, normalised activations) are
// rounded once to binary16.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/numerics/fp.hpp"

namespace oasis {

enum class KMeansMethod {
  kLloyd,    ///< Lloyd's iterations from a seeded k-means++ initialisation
  kOptimal,  ///< the exact 1-D optimum, by dynamic programming
};

/// How a token's (or a weight row's) scale is taken from its values.
enum class ScaleMode {
  kRms,     ///< root mean square (the default)
  kAbsMax,  ///< largest magnitude
};

/// Parses "lloyd"/"optimal" and "rms"/"absmax"; throws std::invalid_argument.
KMeansMethod parse_kmeans_method(const std::string& text);
ScaleMode parse_scale_mode(const std::string& text);

struct KMeansResult {
  std::vector<double> centroids;  ///< ascending
  double cost = 0;                ///< sum of weight * squared distance to the nearest centroid
  int iterations = 0;             ///< Lloyd's iterations run (0 for the optimum)
};

/// Weighted K-means of 1-D data. `weights` is empty (all 1) or one
/// non-negative weight per value (the paper uses Fisher information);
/// zero-weight values are ignored. Requires at least `clusters` distinct
/// values of positive weight and finite values; throws std::invalid_argument.
/// Lloyd's iterations assign each value to the nearest centroid (a value at a
/// midpoint goes to the upper one, as the Clustering Unit does) and stop when
/// the centroids no longer change or after max_iterations.
KMeansResult kmeans_lloyd(std::span<const double> values, std::span<const double> weights,
                          int clusters, uint64_t seed, int max_iterations = 300);
/// The optimum of the same cost, by dynamic programming over the sorted
/// distinct values (divide and conquer on the monotone split points,
/// O(clusters * n log n)); at most 2^25 / clusters distinct values (binary16
/// data has fewer than 2^16).
KMeansResult kmeans_optimal_1d(std::span<const double> values, std::span<const double> weights,
                               int clusters);
KMeansResult kmeans(KMeansMethod method, std::span<const double> values,
                    std::span<const double> weights, int clusters, uint64_t seed);
/// A codebook symmetric about zero, c[i] = -c[2^b - 1 - i] (`clusters` even): K-means of the
/// magnitudes |v| into clusters / 2 centroids m_j, mirrored to -m_j .. m_j. Every m_j is a mean
/// of magnitudes, so the nearest of the mirrored centroids to v is sign(v) times the nearest m_j
/// to |v|, and the cost is that of the magnitudes' clustering: with kOptimal this is the exact
/// optimum among symmetric codebooks. Needs clusters / 2 distinct magnitudes of positive weight.
KMeansResult kmeans_symmetric(KMeansMethod method, std::span<const double> values,
                              std::span<const double> weights, int clusters, uint64_t seed);
/// The K-means cost of `centroids` (any order) on the data.
double kmeans_cost(std::span<const double> values, std::span<const double> weights,
                   std::span<const double> centroids);

/// Index of the centroid nearest to v; ties go to the lower index.
int nearest_centroid(double v, std::span<const Fp16> codebook);

/// The scale of a token or row: binary16 of the RMS (sum of squares in
/// double, ascending index) or of the largest magnitude; non-finite values
/// are left out, and 1.0 is used when the result is zero or not finite.
Fp16 row_scale(std::span<const Fp16> values, ScaleMode mode);
/// x̂ = x / s: the exact quotient rounded once to binary16 (equal to one
/// binary16 IEEE division).
Fp16 normalize(Fp16 x, Fp16 scale);

/// A weight matrix quantised with one shared codebook and per-row scales:
/// w[n][k] ~ s_w[n] * C_W[iw[n][k]].
struct QuantizedWeights {
  int rows = 0;
  int channels = 0;
  int bits = 0;
  std::vector<Fp16> codebook;    ///< C_W, 2^bits centroids, ascending
  std::vector<Fp16> scales;      ///< s_w, one per row
  std::vector<uint8_t> indices;  ///< iw, rows x channels, row-major
  double kmeans_cost = 0;        ///< of the normalised weights
  int kmeans_iterations = 0;
};

struct WeightQuantOptions {
  int bits = 4;
  KMeansMethod method = KMeansMethod::kLloyd;
  ScaleMode scale = ScaleMode::kRms;
  uint64_t seed = 1;
  /// A codebook symmetric about zero (kmeans_symmetric): a product's sign is then the XOR of
  /// its operands' top index bits, its magnitude set by the bits below (docs/model.md).
  bool symmetric = false;
};

/// Quantises rows x channels weights (row-major, finite): scales per row,
/// K-means over all normalised weights w / s_w, nearest-centroid indices.
QuantizedWeights quantize_weights(std::span<const Fp16> w, int rows, int channels,
                                  const WeightQuantOptions& options);

/// Checks a loaded QuantizedWeights for consistent sizes and index range;
/// throws std::invalid_argument naming `origin`.
void validate_quantized_weights(const QuantizedWeights& q, const std::string& origin);

struct ActCalibrationOptions {
  int bits = 4;
  KMeansMethod method = KMeansMethod::kLloyd;
  ScaleMode scale = ScaleMode::kRms;
  uint64_t seed = 1;
  /// Outliers per side left out of each token's samples (found by Orizuru
  /// on the normalised token): they are kept in FP16 at run time, so the
  /// codebook should fit the inliers. 0 keeps every value.
  int outliers_per_side = 0;
  /// A codebook symmetric about zero (kmeans_symmetric).
  bool symmetric = false;
};

struct ActCalibration {
  std::vector<Fp16> codebook;  ///< C_A, 2^bits, strictly ascending boundaries
  double kmeans_cost = 0;
  int kmeans_iterations = 0;
  size_t samples = 0;  ///< values the codebook was fitted on
};

/// Learns the activation codebook from calibration tokens (tokens x channels,
/// row-major): each token normalised by its own scale, outliers left out,
/// weighted K-means with `fisher` (empty, or one weight per activation).
/// Throws std::invalid_argument if the result is not a valid clustering
/// codebook (docs/spec.md section 4).
ActCalibration calibrate_activations(std::span<const Fp16> x, int tokens, int channels,
                                     std::span<const double> fisher,
                                     const ActCalibrationOptions& options);

/// Symmetric round-to-nearest-even integer quantisation per row (token or
/// output row), the INT baseline: scale = absmax / (2^(bits-1) - 1),
/// q = clamp(round(x / scale)) in [-(2^(bits-1)-1), 2^(bits-1)-1].
struct IntQuantized {
  int rows = 0;
  int channels = 0;
  std::vector<int> q;
  std::vector<double> scales;
};
IntQuantized quantize_int_rtn(std::span<const Fp16> x, int rows, int channels, int bits);

}  // namespace oasis
