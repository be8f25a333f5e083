// SPDX-License-Identifier: Apache-2.0
#include "model/quant/lut_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "model/derived.hpp"
#if defined(__x86_64__)
#include <xmmintrin.h>  // _mm_getcsr, with any compiler (the sanitizer and fuzzing builds' clang)
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define OASIS_HAVE_AVX2_KERNEL 1
#else
#define OASIS_HAVE_AVX2_KERNEL 0
#endif

#include "model/quant/clustering.hpp"

namespace oasis {

// ---- Format A -------------------------------------------------------------

AccValue Accumulator::widen(Fp16 x) const {
  return format_ == AccumulatorFormat::kFp16 ? AccValue{x.bits} : AccValue{to_fp32(x).bits};
}

AccValue Accumulator::count(int64_t n) const {
  if (n < -int64_t(UINT32_MAX) || n > int64_t(UINT32_MAX)) {
    throw std::invalid_argument(fmt::format("count {} beyond 32 bits", n));
  }
  const Fp32 c = fp32_from_uint(uint32_t(n < 0 ? -n : n));
  const uint32_t sign = n < 0 ? 0x80000000u : 0u;
  return format_ == AccumulatorFormat::kFp16 ? AccValue{oasis::to_fp16(Fp32{c.bits | sign}).bits}
                                             : AccValue{c.bits | sign};
}

AccValue Accumulator::add(AccValue a, AccValue b) const {
  if (format_ == AccumulatorFormat::kFp16) {
    return AccValue{oasis::add(Fp16{uint16_t(a.bits)}, Fp16{uint16_t(b.bits)}).bits};
  }
  return AccValue{oasis::add(Fp32{a.bits}, Fp32{b.bits}).bits};
}

AccValue Accumulator::mul(AccValue a, AccValue b) const {
  if (format_ == AccumulatorFormat::kFp16) {
    return AccValue{oasis::mul(Fp16{uint16_t(a.bits)}, Fp16{uint16_t(b.bits)}).bits};
  }
  return AccValue{oasis::mul(Fp32{a.bits}, Fp32{b.bits}).bits};
}

Fp16 Accumulator::to_fp16(AccValue a) const {
  return format_ == AccumulatorFormat::kFp16 ? Fp16{uint16_t(a.bits)}
                                             : oasis::to_fp16(Fp32{a.bits});
}

double Accumulator::to_double(AccValue a) const {
  return format_ == AccumulatorFormat::kFp16 ? oasis::to_double(Fp16{uint16_t(a.bits)})
                                             : oasis::to_double(Fp32{a.bits});
}

LutGemmParams LutGemmParams::from_config(const Config& c) {
  LutGemmParams p;
  p.act_bits = c.act_bits;
  p.weight_bits = c.weight_bits;
  p.mac_tree_inputs = c.mac_tree_inputs;
  p.comp_macs = c.comp_macs;
  p.outliers_per_side = c.outliers_per_side;
  p.accumulator = c.accumulator;
  p.accumulator_slots = derive(c).accumulator_slots;
  p.symmetric = c.codebooks == Codebooks::kSymmetric;
  return p;
}

// ---- Offline --------------------------------------------------------------

std::vector<Fp16> cartesian_lut(std::span<const Fp16> ca, std::span<const Fp16> cw) {
  std::vector<Fp16> lut;
  lut.reserve(ca.size() * cw.size());
  for (const Fp16 a : ca) {
    for (const Fp16 w : cw) lut.push_back(mul(a, w));
  }
  return lut;
}

bool is_symmetric_codebook(std::span<const Fp16> cb) {
  for (size_t i = 0; i < cb.size(); ++i) {
    if (cb[cb.size() - 1 - i].bits != (cb[i].bits ^ 0x8000u)) return false;
  }
  return true;
}

std::vector<Fp16> symmetric_lut(std::span<const Fp16> ca, std::span<const Fp16> cw) {
  return cartesian_lut(ca.subspan(ca.size() / 2), cw.subspan(cw.size() / 2));
}

int fold_index(int e, int act_bits, int weight_bits) {
  const int ia = e >> weight_bits, iw = e & ((1 << weight_bits) - 1);
  const int a_top = ia >> (act_bits - 1), w_top = iw >> (weight_bits - 1);
  const int a_low = (1 << (act_bits - 1)) - 1, w_low = (1 << (weight_bits - 1)) - 1;
  const int ma = (a_top ? ia : ~ia) & a_low, mw = (w_top ? iw : ~iw) & w_low;
  return ((a_top ^ w_top) << (act_bits + weight_bits - 2)) | (ma << (weight_bits - 1)) | mw;
}

std::vector<int32_t> signed_counts(std::span<const uint32_t> bins) {
  const size_t m = bins.size() / 2;
  std::vector<int32_t> s(m);
  for (size_t i = 0; i < m; ++i) s[i] = int32_t(bins[i]) - int32_t(bins[m + i]);
  return s;
}

// ---- Per row --------------------------------------------------------------

std::vector<uint32_t> index_counts(std::span<const uint8_t> ia, std::span<const uint8_t> iw,
                                   int act_bits, int weight_bits) {
  if (ia.size() != iw.size()) {
    throw std::invalid_argument(
        fmt::format("index counts: {} activation indices, {} weight "
                    "indices",
                    ia.size(), iw.size()));
  }
  std::vector<uint32_t> cnt(size_t(1) << (act_bits + weight_bits), 0);
  const uint32_t amask = (1u << act_bits) - 1, wmask = (1u << weight_bits) - 1;
  for (size_t k = 0; k < ia.size(); ++k) {
    ++cnt[((ia[k] & amask) << weight_bits) | (iw[k] & wmask)];
  }
  return cnt;
}

std::vector<int32_t> fold_counts(std::span<const uint32_t> counts, int act_bits, int weight_bits) {
  std::vector<uint32_t> bins(counts.size() / 2, 0);
  for (size_t e = 0; e < counts.size(); ++e) {
    bins[size_t(fold_index(int(e), act_bits, weight_bits))] += counts[e];
  }
  return signed_counts(bins);
}

std::vector<int32_t> main_counts(std::span<const uint8_t> ia, std::span<const uint8_t> iw,
                                 int act_bits, int weight_bits, bool symmetric) {
  const std::vector<uint32_t> cnt = index_counts(ia, iw, act_bits, weight_bits);
  if (!symmetric) return std::vector<int32_t>(cnt.begin(), cnt.end());
  return fold_counts(cnt, act_bits, weight_bits);
}

AccValue pairwise_tree(std::span<const AccValue> values, const Accumulator& acc) {
  if (values.empty()) throw std::invalid_argument("pairwise tree of no values");
  std::vector<AccValue> level(values.begin(), values.end());
  while (level.size() > 1) {
    std::vector<AccValue> next;
    next.reserve((level.size() + 1) / 2);
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(acc.add(level[i], level[i + 1]));
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  return level[0];
}

AccValue interleaved_sum(std::span<const AccValue> values, int slots, const Accumulator& acc) {
  if (values.empty() || slots < 1) {
    throw std::invalid_argument(
        fmt::format("interleaved sum: {} values, {} slots", values.size(), slots));
  }
  const size_t l = std::min(values.size(), size_t(slots));
  std::vector<AccValue> slot(values.begin(), values.begin() + ptrdiff_t(l));
  for (size_t i = l; i < values.size(); ++i) slot[i % l] = acc.add(slot[i % l], values[i]);
  return pairwise_tree(slot, acc);
}

AccValue main_branch(std::span<const int32_t> counts, std::span<const Fp16> lut, int t, int slots,
                     const Accumulator& acc, std::vector<AccValue>* tree) {
  if (counts.size() != lut.size() || counts.empty() || t < 1) {
    throw std::invalid_argument(fmt::format("main branch: {} counts, {} LUT entries, T = {}",
                                            counts.size(), lut.size(), t));
  }
  std::vector<AccValue> sums;
  sums.reserve((counts.size() + size_t(t) - 1) / size_t(t));
  std::vector<AccValue> products;
  products.reserve(size_t(t));
  for (size_t base = 0; base < counts.size(); base += size_t(t)) {
    products.clear();
    const size_t end = std::min(counts.size(), base + size_t(t));
    for (size_t e = base; e < end; ++e) {
      products.push_back(acc.mul(acc.count(counts[e]), acc.widen(lut[e])));
    }
    sums.push_back(pairwise_tree(products, acc));
  }
  if (tree) *tree = sums;
  return interleaved_sum(sums, slots, acc);
}

std::optional<AccValue> outlier_branch(std::span<const Outlier> outliers,
                                       std::span<const Fp16> residuals, std::span<const uint8_t> iw,
                                       std::span<const Fp16> cw, int mc, int slots,
                                       const Accumulator& acc, std::vector<AccValue>* macs) {
  if (outliers.size() != residuals.size() || mc < 1) {
    throw std::invalid_argument(fmt::format("outlier branch: {} outliers, {} residuals, Mc = {}",
                                            outliers.size(), residuals.size(), mc));
  }
  if (outliers.empty()) return std::nullopt;
  const size_t used = std::min(outliers.size(), size_t(mc));
  std::vector<std::vector<AccValue>> products(used);
  for (size_t j = 0; j < outliers.size(); ++j) {
    const size_t ch = size_t(outliers[j].channel);
    if (ch >= iw.size()) {
      throw std::invalid_argument(
          fmt::format("outlier branch: channel {} of a row of {}", ch, iw.size()));
    }
    if (iw[ch] >= cw.size()) {
      throw std::invalid_argument(
          fmt::format("outlier branch: weight index {} at channel {}; allowed: 0..{}", iw[ch], ch,
                      cw.size() - 1));
    }
    products[j % used].push_back(acc.mul(acc.widen(residuals[j]), acc.widen(cw[iw[ch]])));
  }
  std::vector<AccValue> m;
  m.reserve(used);
  for (const auto& p : products) m.push_back(interleaved_sum(p, slots, acc));
  if (macs) *macs = m;
  return pairwise_tree(m, acc);
}

Fp16 merge_and_scale(AccValue main, std::optional<AccValue> comp, Fp16 sa, Fp16 sw,
                     const Accumulator& acc, AccValue* merged) {
  AccValue y = comp ? acc.add(main, *comp) : main;
  if (merged) *merged = y;
  y = acc.mul(y, acc.widen(sa));
  y = acc.mul(y, acc.widen(sw));
  return acc.to_fp16(y);
}

// ---- The layer ------------------------------------------------------------

LutGemm::LutGemm(const LutGemmParams& p, std::vector<Fp16> ca, std::vector<Fp16> cw)
    : params_(p),
      acc_(p.accumulator),
      act_codebook_(std::move(ca)),
      weight_codebook_(std::move(cw)) {
  if (p.act_bits < 1 || p.weight_bits < 1 || p.act_bits + p.weight_bits > 16) {
    throw std::invalid_argument(
        fmt::format("nA = {}, nW = {}; allowed: >= 1, nA + nW <= 16", p.act_bits, p.weight_bits));
  }
  if (act_codebook_.size() != (size_t(1) << p.act_bits)) {
    throw std::invalid_argument(fmt::format("activation codebook: {} centroids; nA = {} needs {}",
                                            act_codebook_.size(), p.act_bits, 1 << p.act_bits));
  }
  if (weight_codebook_.size() != (size_t(1) << p.weight_bits)) {
    throw std::invalid_argument(fmt::format("weight codebook: {} centroids; nW = {} needs {}",
                                            weight_codebook_.size(), p.weight_bits,
                                            1 << p.weight_bits));
  }
  if (p.mac_tree_inputs < 1 || p.comp_macs < 1 || p.outliers_per_side < 0 ||
      p.accumulator_slots < 1) {
    throw std::invalid_argument(
        fmt::format("T = {}, Mc = {}, k = {}, L = {}; allowed: T, Mc, L >= 1, k >= 0",
                    p.mac_tree_inputs, p.comp_macs, p.outliers_per_side, p.accumulator_slots));
  }
  boundaries_ = cluster_boundaries(act_codebook_);
  if (p.symmetric) {
    if (p.act_bits < 2 || p.weight_bits < 2) {
      throw std::invalid_argument(
          fmt::format("symmetric codebooks with nA = {}, nW = {}; allowed: nA, nW >= 2", p.act_bits,
                      p.weight_bits));
    }
    for (const auto& [what, cb] :
         {std::pair{"activation", &act_codebook_}, std::pair{"weight", &weight_codebook_}}) {
      if (!is_symmetric_codebook(*cb)) {
        throw std::invalid_argument(fmt::format(
            "the {} codebook is not symmetric about zero (centroid 2^n - 1 - i must be centroid i "
            "negated, bit for bit), which codebooks: symmetric needs (oasis-model calibrate and "
            "quantize make such codebooks with --symmetric)",
            what));
      }
    }
    lut_ = symmetric_lut(act_codebook_, weight_codebook_);
  } else {
    lut_ = cartesian_lut(act_codebook_, weight_codebook_);
  }
}

PreparedToken LutGemm::prepare(std::span<const Fp16> x, OrizuruStats* stats) const {
  const Fp16 s = row_scale(x, params_.scale);
  std::vector<Fp16> xhat(x.size());
  for (size_t k = 0; k < x.size(); ++k) xhat[k] = normalize(x[k], s);
  return prepare_normalized(xhat, s, stats);
}

PreparedToken LutGemm::prepare_normalized(std::span<const Fp16> xhat, Fp16 sa,
                                          OrizuruStats* stats) const {
  PreparedToken t;
  t.scale = sa;
  t.xhat.assign(xhat.begin(), xhat.end());
  t.act_index.resize(xhat.size());
  const ClusterIndex cluster(boundaries_);
  for (size_t k = 0; k < xhat.size(); ++k) t.act_index[k] = uint8_t(cluster(xhat[k]));
  if (params_.outliers_per_side > 0) {
    t.outliers = orizuru_topk(xhat, params_.outliers_per_side, stats);
    for (const Outlier& o : t.outliers) {
      const size_t ch = size_t(o.channel);
      t.residuals.push_back(sub(xhat[ch], act_codebook_[t.act_index[ch]]));
    }
  }
  return t;
}

Fp16 LutGemm::row(const PreparedToken& t, std::span<const uint8_t> iw, Fp16 sw,
                  RowTrace* trace) const {
  std::vector<int32_t> counts =
      main_counts(t.act_index, iw, params_.act_bits, params_.weight_bits, params_.symmetric);
  std::vector<AccValue>* tree = trace ? &trace->tree : nullptr;
  if (tree) tree->clear();
  const AccValue main =
      main_branch(counts, lut_, params_.mac_tree_inputs, params_.accumulator_slots, acc_, tree);
  const std::optional<AccValue> comp =
      outlier_branch(t.outliers, t.residuals, iw, weight_codebook_, params_.comp_macs,
                     params_.accumulator_slots, acc_, trace ? &trace->macs : nullptr);
  AccValue merged;
  const Fp16 y = merge_and_scale(main, comp, t.scale, sw, acc_, &merged);
  if (trace) {
    trace->counts = std::move(counts);
    trace->main = main;
    trace->comp = comp;
    trace->merged = merged;
    trace->y = y;
  }
  return y;
}

std::vector<Fp16> LutGemm::gemm(std::span<const Fp16> x, int tokens, const QuantizedWeights& w,
                                int threads, const WeightTiles* tiles) const {
  const size_t k = size_t(w.channels);
  if (tokens < 1 || x.size() != size_t(tokens) * k) {
    throw std::invalid_argument(
        fmt::format("GEMM: {} activations for {} tokens of {} channels", x.size(), tokens, k));
  }
  // Laying the weights out takes about as long as four tokens' rows counted without it.
  // Weights whose sizes disagree are left to rows(), which says what is wrong with them.
  std::optional<WeightTiles> own;
  if (tiles == nullptr && tokens >= kTokensWorthTiles && w.rows > 0 &&
      w.indices.size() == size_t(w.rows) * k && rows_kernel_available(RowsKernel::kHostAvx2)) {
    tiles = &own.emplace(w);
  }
  std::vector<Fp16> y;
  y.reserve(size_t(tokens) * size_t(w.rows));
  for (int t = 0; t < tokens; ++t) {
    const std::vector<Fp16> yt =
        rows(prepare(x.subspan(size_t(t) * k, k)), w, threads, std::nullopt, tiles);
    y.insert(y.end(), yt.begin(), yt.end());
  }
  return y;
}

// ---- The host-FPU path of rows() ---------------------------------------------------
//
// The steps above in the same order, on the host's binary32 unit. binary32 operations are
// the host's own (IEEE, to nearest even, subnormals kept: host_fpu_is_ieee()). A binary16
// operation is the binary32 operation on exact binary16 operands, rounded once more to
// binary16 (round_to_binary16): a product of two binary16 values is exact in binary32, and for
// a sum the double rounding is innocuous because 24 >= 2 * 11 + 2. NaN payloads differ from
// the software's canonical NaN along the way, but a NaN stays a NaN through + and *, and the
// output is made canonical. verif/unit/test_lut_gemm.cpp checks every row against row().

#if defined(__FAST_MATH__)
#error "the model needs IEEE arithmetic: build without -ffast-math"
#endif
static_assert(std::numeric_limits<float>::is_iec559 && FLT_EVAL_METHOD == 0,
              "the host-FPU path needs binary32 evaluated as binary32");

bool host_fpu_is_ieee() {
#if defined(__x86_64__)
  // MXCSR: flush-to-zero (bit 15), denormals-are-zero (bit 6), rounding control (13-14).
  if ((_mm_getcsr() & 0xE040u) != 0) return false;
#endif
  return std::fegetround() == FE_TONEAREST;
}

namespace {

float widen_f(Fp16 x) { return std::bit_cast<float>(to_fp32(x).bits); }

// The bits of a binary32 that holds a binary16 value (or Inf, or NaN: canonical).
uint16_t binary16_bits(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v);
  const uint16_t sign = uint16_t((b >> 16) & 0x8000u);
  const uint32_t mag = b & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return kFp16CanonicalNan.bits;
  if (mag >= 0x47800000u) return uint16_t(sign | 0x7C00u);
  if (mag >= 0x38800000u) return uint16_t(sign | ((mag >> 13) - ((127u - 15u) << 10)));
  return uint16_t(sign | uint16_t(std::bit_cast<float>(mag) * 0x1p24f));  // exact, below 2^10
}

}  // namespace

// What every row of one layer and token shares, laid out for the host kernels' row loop.
struct HostLayer {
  // entries: the concatenated indices counted, 2^(nA+nW); lut_entries: the LUT's, which the
  // MAC tree reduces (with symmetric codebooks the 2^(nA+nW-2) magnitudes).
  size_t channels = 0, entries = 0, lut_entries = 0, tree_inputs = 0, comp_macs = 0, slots = 1;
  unsigned weight_mask = 0;
  // Symmetric codebooks: entry e's magnitude, with bit 15 set when its product is negative
  // (fold_index); empty for free codebooks.
  std::vector<uint16_t> fold;
  std::vector<float> lut;  // widen(L[e])
  std::vector<float> weight_codebook;
  // The token.
  std::vector<uint16_t> act_base;  // ia[k] << nW
  // The channels by activation index, for counting from tiles: those with ia = a are
  // group_offsets[group_begin[a] .. group_begin[a + 1]), each as its offset in a tile
  // (channel * WeightTiles::kRows), ascending.
  std::vector<uint32_t> group_begin, group_offsets;
  std::vector<int> outlier_channels;
  std::vector<float> residuals;
  float act_scale = 0;
};

namespace {

namespace host_baseline {
#define OASIS_HOST_AVX2 0
#include "model/quant/lut_gemm_host.inc"
#undef OASIS_HOST_AVX2
}  // namespace host_baseline

#if OASIS_HAVE_AVX2_KERNEL
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
namespace host_avx2 {
#define OASIS_HOST_AVX2 1
#include "model/quant/lut_gemm_host.inc"
#undef OASIS_HOST_AVX2
}  // namespace host_avx2
#pragma GCC pop_options
#endif

// Runs body(begin, end) on `threads` contiguous blocks of [0, n), the first on the calling
// thread; rethrows the first exception.
template <class Body>
void split_rows(size_t n, int threads, const Body& body) {
  size_t t = threads > 0 ? size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
  t = std::max<size_t>(1, std::min(t, n));
  std::vector<std::exception_ptr> errors(t);
  auto block = [&](size_t b) {
    try {
      body(n * b / t, n * (b + 1) / t);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (size_t b = 1; b < t; ++b) pool.emplace_back(block, b);
  block(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

bool rows_kernel_available(RowsKernel kernel) {
  switch (kernel) {
    case RowsKernel::kSoftware:
      return true;
    case RowsKernel::kHost:
      return host_fpu_is_ieee();
    case RowsKernel::kHostAvx2:
#if OASIS_HAVE_AVX2_KERNEL
      __builtin_cpu_init();
      return host_fpu_is_ieee() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#else
      return false;
#endif
  }
  return false;
}

RowsKernel fastest_rows_kernel() {
  for (const RowsKernel k : {RowsKernel::kHostAvx2, RowsKernel::kHost}) {
    if (rows_kernel_available(k)) return k;
  }
  return RowsKernel::kSoftware;
}

const char* rows_kernel_name(RowsKernel kernel) {
  switch (kernel) {
    case RowsKernel::kSoftware:
      return "software";
    case RowsKernel::kHost:
      return "host";
    case RowsKernel::kHostAvx2:
      return "host-avx2";
  }
  return "?";
}

HostLayer LutGemm::host_layer(const PreparedToken& t, size_t k) const {
  HostLayer l;
  l.channels = k;
  l.entries = size_t(1) << (params_.act_bits + params_.weight_bits);
  l.lut_entries = lut_.size();
  if (params_.symmetric) {
    const size_t mags = l.lut_entries;
    for (size_t e = 0; e < l.entries; ++e) {
      const size_t bin = size_t(fold_index(int(e), params_.act_bits, params_.weight_bits));
      l.fold.push_back(uint16_t((bin % mags) | (bin >= mags ? 0x8000u : 0u)));
    }
  }
  l.tree_inputs = size_t(params_.mac_tree_inputs);
  l.comp_macs = size_t(params_.comp_macs);
  l.slots = size_t(params_.accumulator_slots);
  l.weight_mask = (1u << params_.weight_bits) - 1;
  for (const Fp16 e : lut_) l.lut.push_back(widen_f(e));
  for (const Fp16 c : weight_codebook_) l.weight_codebook.push_back(widen_f(c));
  const unsigned amask = (1u << params_.act_bits) - 1;
  for (const uint8_t a : t.act_index) {
    l.act_base.push_back(uint16_t((a & amask) << params_.weight_bits));
  }
  if (k <= WeightTiles::kMaxChannels) {
    l.group_begin.assign(size_t(amask) + 2, 0);
    for (const uint8_t a : t.act_index) ++l.group_begin[(a & amask) + 1u];
    for (size_t a = 1; a < l.group_begin.size(); ++a) l.group_begin[a] += l.group_begin[a - 1];
    l.group_offsets.resize(k);
    std::vector<uint32_t> next(l.group_begin.begin(), l.group_begin.end() - 1);
    for (size_t c = 0; c < k; ++c) {
      l.group_offsets[next[t.act_index[c] & amask]++] = uint32_t(c * WeightTiles::kRows);
    }
  }
  for (const Outlier& o : t.outliers) l.outlier_channels.push_back(o.channel);
  for (const Fp16 r : t.residuals) l.residuals.push_back(widen_f(r));
  if (l.outlier_channels.size() != l.residuals.size()) {
    throw std::invalid_argument(fmt::format("GEMM: {} outliers, {} residuals",
                                            l.outlier_channels.size(), l.residuals.size()));
  }
  for (const int ch : l.outlier_channels) {
    if (ch < 0 || size_t(ch) >= k) {
      throw std::invalid_argument(fmt::format("GEMM: outlier channel {} of a row of {}", ch, k));
    }
  }
  l.act_scale = widen_f(t.scale);
  return l;
}

WeightTiles::WeightTiles(const QuantizedWeights& w)
    : rows_(w.rows), channels_(w.channels), bits_(w.bits) {
  const size_t k = size_t(std::max(0, w.channels)), n = size_t(std::max(0, w.rows));
  if (w.rows < 1 || w.channels < 1 || w.bits < 1 || w.bits > 8 || w.indices.size() != n * k) {
    throw std::invalid_argument(
        fmt::format("weight tiles: {} weight indices of {} bits for {} rows of {} channels",
                    w.indices.size(), w.bits, w.rows, w.channels));
  }
  const uint8_t mask = uint8_t((1u << w.bits) - 1);
  const size_t tr = kRows;
  data_.assign(tiles() * k * tr, 0);
  // A channel's bytes written together, read from its tile's rows (32 streams through memory).
  const uint8_t* rows[kRows];
  const std::vector<uint8_t> zeros(k, 0);
  for (size_t t = 0; t < tiles(); ++t) {
    for (size_t q = 0; q < tr; ++q) {
      // Byte q holds row row_byte(q) (row_byte is its own inverse); rows past the last are 0.
      const size_t r = t * tr + size_t(row_byte(int(q)));
      rows[q] = r < n ? w.indices.data() + r * k : zeros.data();
    }
    uint8_t* d = data_.data() + t * k * tr;
    for (size_t c = 0; c < k; ++c, d += tr) {
      for (size_t q = 0; q < tr; ++q) d[q] = rows[q][c] & mask;
    }
  }
}

std::vector<Fp16> LutGemm::rows(const PreparedToken& t, const QuantizedWeights& w, int threads,
                                std::optional<RowsKernel> kernel, const WeightTiles* tiles) const {
  const size_t k = size_t(w.channels), n = size_t(std::max(0, w.rows));
  if (w.channels < 1 || w.rows < 1 || w.indices.size() != n * k || w.scales.size() != n) {
    throw std::invalid_argument(
        fmt::format("GEMM: {} weight indices and {} scales for {} rows of {} channels",
                    w.indices.size(), w.scales.size(), w.rows, w.channels));
  }
  if (t.act_index.size() != k) {
    throw std::invalid_argument(
        fmt::format("GEMM: a token of {} channels, weights of {}", t.act_index.size(), k));
  }
  if (w.codebook != weight_codebook_) {
    throw std::invalid_argument("GEMM: the weights' codebook is not the model's");
  }
  if (tiles != nullptr &&
      (tiles->rows() != w.rows || tiles->channels() != w.channels || tiles->bits() != w.bits)) {
    throw std::invalid_argument(
        fmt::format("GEMM: weight tiles of {} rows, {} channels, {} bits for weights of {}, {}, {}",
                    tiles->rows(), tiles->channels(), tiles->bits(), w.rows, w.channels, w.bits));
  }
  const RowsKernel use = kernel ? *kernel : fastest_rows_kernel();
  if (!rows_kernel_available(use)) {
    throw std::invalid_argument(fmt::format(
        "GEMM: the {} kernel cannot run here (instruction set or floating-point environment)",
        rows_kernel_name(use)));
  }
  std::vector<Fp16> y(n);
  if (use == RowsKernel::kSoftware) {
    split_rows(n, threads, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) {
        y[r] = row(t, std::span(w.indices).subspan(r * k, k), w.scales[r]);
      }
    });
    return y;
  }
  const HostLayer l = host_layer(t, k);
  std::vector<float> weight_scales(n);
  for (size_t r = 0; r < n; ++r) weight_scales[r] = widen_f(w.scales[r]);
  const bool b16 = params_.accumulator == AccumulatorFormat::kFp16;
#if OASIS_HAVE_AVX2_KERNEL
  if (use == RowsKernel::kHostAvx2) {
    if (tiles != nullptr && host_avx2::HostRows<false, uint8_t>::tiles_fit(l)) {
      // Whole tiles to each thread.
      const size_t tr = WeightTiles::kRows;
      split_rows(tiles->tiles(), threads, [&](size_t begin, size_t end) {
        host_avx2::compute_rows(l, b16, w.indices.data(), tiles, weight_scales.data(), y.data(),
                                begin * tr, std::min(n, end * tr));
      });
      return y;
    }
    split_rows(n, threads, [&](size_t begin, size_t end) {
      host_avx2::compute_rows(l, b16, w.indices.data(), nullptr, weight_scales.data(), y.data(),
                              begin, end);
    });
    return y;
  }
#endif
  split_rows(n, threads, [&](size_t begin, size_t end) {
    host_baseline::compute_rows(l, b16, w.indices.data(), nullptr, weight_scales.data(), y.data(),
                                begin, end);
  });
  return y;
}

// ---- Comparison paths ------------------------------------------------------

std::vector<float> reference_gemm_fp32(std::span<const Fp16> x, int tokens, std::span<const Fp16> w,
                                       int rows, int channels) {
  const size_t k = size_t(channels);
  if (x.size() != size_t(tokens) * k || w.size() != size_t(rows) * k) {
    throw std::invalid_argument(fmt::format(
        "reference GEMM: {} activations, {} weights for {} tokens, {} rows, {} channels", x.size(),
        w.size(), tokens, rows, channels));
  }
  // binary16 -> binary32 is exact: one table of all 65536 inputs.
  static const std::vector<float> table = [] {
    std::vector<float> t(0x10000);
    for (uint32_t b = 0; b < 0x10000; ++b)
      t[b] = std::bit_cast<float>(to_fp32(Fp16{uint16_t(b)}).bits);
    return t;
  }();
  auto widen = [](std::span<const Fp16> v) {
    std::vector<float> f(v.size());
    for (size_t i = 0; i < v.size(); ++i) f[i] = table[v[i].bits];
    return f;
  };
  const std::vector<float> xf = widen(x);
  std::vector<float> y(size_t(tokens) * size_t(rows));
  for (int t = 0; t < tokens; ++t) {
    const float* xt = xf.data() + size_t(t) * k;
    for (int n = 0; n < rows; ++n) {
      const Fp16* wn = w.data() + size_t(n) * k;
      float acc = 0.0f;
      for (size_t i = 0; i < k; ++i) {
        const float p = xt[i] * table[wn[i].bits];  // -ffp-contract=off: rounded, then added
        acc = acc + p;
      }
      y[size_t(t) * size_t(rows) + size_t(n)] = acc;
    }
  }
  return y;
}

std::vector<Fp16> conventional_gemm(const LutGemm& m, std::span<const Fp16> x, int tokens,
                                    const QuantizedWeights& w) {
  const size_t k = size_t(w.channels);
  if (tokens < 1 || x.size() != size_t(tokens) * k) {
    throw std::invalid_argument(
        fmt::format("GEMM: {} activations for {} tokens of {} channels", x.size(), tokens, k));
  }
  const Accumulator& acc = m.accumulator();
  std::vector<Fp16> y(size_t(tokens) * size_t(w.rows));
  std::vector<Fp16> xq(k);
  for (int t = 0; t < tokens; ++t) {
    const PreparedToken p = m.prepare(x.subspan(size_t(t) * k, k));
    for (size_t i = 0; i < k; ++i) xq[i] = m.act_codebook()[p.act_index[i]];
    for (const Outlier& o : p.outliers) xq[size_t(o.channel)] = p.xhat[size_t(o.channel)];
    for (int n = 0; n < w.rows; ++n) {
      const uint8_t* iw = w.indices.data() + size_t(n) * k;
      AccValue sum{};
      for (size_t i = 0; i < k; ++i) {
        const AccValue q = acc.mul(acc.widen(xq[i]), acc.widen(w.codebook[iw[i]]));
        sum = i == 0 ? q : acc.add(sum, q);
      }
      y[size_t(t) * size_t(w.rows) + size_t(n)] =
          merge_and_scale(sum, std::nullopt, p.scale, w.scales[size_t(n)], acc);
    }
  }
  return y;
}

std::vector<double> int_rtn_gemm(std::span<const Fp16> x, int tokens, std::span<const Fp16> w,
                                 int rows, int channels, int act_bits, int weight_bits) {
  const IntQuantized qa = quantize_int_rtn(x, tokens, channels, act_bits);
  const IntQuantized qw = quantize_int_rtn(w, rows, channels, weight_bits);
  std::vector<double> y(size_t(tokens) * size_t(rows));
  const size_t k = size_t(channels);
  for (int t = 0; t < tokens; ++t) {
    for (int n = 0; n < rows; ++n) {
      int64_t dot = 0;
      for (size_t i = 0; i < k; ++i) {
        dot += int64_t(qa.q[size_t(t) * k + i]) * qw.q[size_t(n) * k + i];
      }
      y[size_t(t) * size_t(rows) + size_t(n)] =
          double(dot) * qa.scales[size_t(t)] * qw.scales[size_t(n)];
    }
  }
  return y;
}

double sqnr_db(std::span<const double> ref, std::span<const double> y) {
  if (ref.size() != y.size() || ref.empty()) {
    throw std::invalid_argument(
        fmt::format("SQNR: {} reference values, {} values", ref.size(), y.size()));
  }
  double signal = 0, noise = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    signal += ref[i] * ref[i];
    const double e = y[i] - ref[i];
    noise += e * e;
  }
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

// ---- Exact arithmetic -------------------------------------------------------

int64_t exact_fp16(Fp16 x) {
  if (is_nan(x) || is_inf(x)) {
    throw std::invalid_argument(fmt::format("exact arithmetic of non-finite 0x{:04x}", x.bits));
  }
  const int e = (x.bits >> 10) & 0x1F;
  const int64_t m = x.bits & 0x3FF;
  const int64_t mag = e == 0 ? m : (m | 0x400) << (e - 1);
  return (x.bits & 0x8000) ? -mag : mag;
}

Exact exact_product(Fp16 a, Fp16 b) { return Exact(exact_fp16(a)) * Exact(exact_fp16(b)); }

Exact exact_main_by_counts(std::span<const int32_t> counts, std::span<const Fp16> ca,
                           std::span<const Fp16> cw, int weight_bits, bool symmetric) {
  // With symmetric codebooks entry m is a magnitude, the positive centroids' product.
  const std::span<const Fp16> a = symmetric ? ca.subspan(ca.size() / 2) : ca;
  const std::span<const Fp16> w = symmetric ? cw.subspan(cw.size() / 2) : cw;
  const int bits = symmetric ? weight_bits - 1 : weight_bits;
  Exact sum = 0;
  const size_t mask = (size_t(1) << bits) - 1;
  for (size_t e = 0; e < counts.size(); ++e) {
    if (counts[e] != 0) sum += Exact(counts[e]) * exact_product(a[e >> bits], w[e & mask]);
  }
  return sum;
}

Exact exact_main_direct(std::span<const uint8_t> ia, std::span<const uint8_t> iw,
                        std::span<const Fp16> ca, std::span<const Fp16> cw) {
  Exact sum = 0;
  for (size_t k = 0; k < ia.size(); ++k) sum += exact_product(ca[ia[k]], cw[iw[k]]);
  return sum;
}

Exact exact_lookahead_compensated(std::span<const Fp16> xhat, std::span<const uint8_t> ia,
                                  std::span<const uint8_t> iw, std::span<const int> outliers,
                                  std::span<const Fp16> ca, std::span<const Fp16> cw) {
  Exact sum = exact_main_direct(ia, iw, ca, cw);
  for (const int o : outliers) {
    const size_t c = size_t(o);
    const Exact r = Exact(exact_fp16(xhat[c]) - exact_fp16(ca[ia[c]]));  // exact residual
    sum += r * exact_fp16(cw[iw[c]]);
  }
  return sum;
}

Exact exact_conventional(std::span<const Fp16> xhat, std::span<const uint8_t> ia,
                         std::span<const uint8_t> iw, std::span<const int> outliers,
                         std::span<const Fp16> ca, std::span<const Fp16> cw) {
  std::vector<char> is_outlier(xhat.size(), 0);
  for (const int o : outliers) is_outlier[size_t(o)] = 1;
  Exact sum = 0;
  for (size_t k = 0; k < xhat.size(); ++k) {
    sum += is_outlier[k] ? exact_product(xhat[k], cw[iw[k]]) : exact_product(ca[ia[k]], cw[iw[k]]);
  }
  return sum;
}

}  // namespace oasis
