// SPDX-License-Identifier: Apache-2.0
// model/lut_gemm against an independent re-implementation of
// docs/numerics.md on the host FPU (verif/host_fpu.hpp), bit for bit, and the
// two identities of docs/spec.md section 1 in exact integer arithmetic, on seeded
// random and adversarial inputs. Seed: SEED=n (default 1), printed on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "model/cycle/orizuru.hpp"
#include "model/quant/clustering.hpp"
#include "model/quant/lut_gemm.hpp"
#include "model/quant/quant.hpp"
#include "model/quant/synth_data.hpp"
#include "verif/host_fpu.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::test_seed;

// ---- The reference: docs/numerics.md on the host FPU -------------------------

struct HostAcc {
  bool fp16;
  uint32_t add(uint32_t a, uint32_t b) const {
    return fp16 ? host::add(Fp16{uint16_t(a)}, Fp16{uint16_t(b)}).bits
                : host::add(Fp32{a}, Fp32{b}).bits;
  }
  uint32_t mul(uint32_t a, uint32_t b) const {
    return fp16 ? host::mul(Fp16{uint16_t(a)}, Fp16{uint16_t(b)}).bits
                : host::mul(Fp32{a}, Fp32{b}).bits;
  }
  uint32_t widen(Fp16 x) const { return fp16 ? x.bits : host::to_fp32(x).bits; }
  uint32_t count(uint32_t n) const {
    return fp16 ? host::to_fp16(host::from_uint(n)).bits : host::from_uint(n).bits;
  }
  uint16_t out(uint32_t v) const { return fp16 ? uint16_t(v) : host::to_fp16(Fp32{v}).bits; }
};

// Adjacent pairs, left operand first, odd last element passed up.
uint32_t host_tree(std::vector<uint32_t> v, const HostAcc& a) {
  while (v.size() > 1) {
    std::vector<uint32_t> up;
    for (size_t i = 0; i < v.size(); i += 2)
      up.push_back(i + 1 < v.size() ? a.add(v[i], v[i + 1]) : v[i]);
    v = up;
  }
  return v.at(0);
}

// The outliers as docs/spec.md section 5 defines them, from a stable sort: one
// strict order (value by the order key, then the lower channel counts as
// larger); max side from the top, min side from the bottom, interleaved.
std::vector<int> host_outliers(const std::vector<Fp16>& x, int k) {
  std::vector<int> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    const int c = host::compare(x[size_t(a)], x[size_t(b)]);
    return c != 0 ? c < 0 : a > b;
  });
  std::vector<int> out;
  for (int j = 0; j < k; ++j) {
    out.push_back(idx[idx.size() - 1 - size_t(j)]);
    out.push_back(idx[size_t(j)]);
  }
  return out;
}

struct HostRow {
  std::vector<int> ia;
  std::vector<int> outliers;
  std::vector<uint16_t> residuals;
  uint16_t y;
};

HostRow host_row(const std::vector<Fp16>& xhat, Fp16 sa, const std::vector<Fp16>& ca,
                 const std::vector<Fp16>& cw, const std::vector<uint8_t>& iw, Fp16 sw, int na,
                 int nw, int t, int mc, int k, bool fp16, int slots) {
  const HostAcc a{fp16};
  const size_t L = size_t(slots);
  HostRow r;
  std::vector<Fp16> b;
  for (size_t j = 0; j + 1 < ca.size(); ++j) {
    b.push_back(host::fp16_from_double((double(host::h(ca[j])) + double(host::h(ca[j + 1]))) / 2));
  }
  for (const Fp16 x : xhat) {
    int n = 0;
    for (const Fp16 bj : b) n += host::compare(x, bj) >= 0;
    r.ia.push_back(n);
  }
  const size_t entries = size_t(1) << (na + nw);
  std::vector<uint32_t> cnt(entries, 0);
  for (size_t i = 0; i < xhat.size(); ++i) ++cnt[(size_t(r.ia[i]) << nw) | iw[i]];
  // Cycle c's sum into partial sum c mod L, then the tree over the partial sums.
  std::vector<uint32_t> partial;
  for (size_t c = 0; c * size_t(t) < entries; ++c) {
    std::vector<uint32_t> p;
    for (size_t e = c * size_t(t); e < std::min(entries, (c + 1) * size_t(t)); ++e) {
      const Fp16 lut = host::mul(ca[e >> nw], cw[e & ((size_t(1) << nw) - 1)]);
      p.push_back(a.mul(a.count(cnt[e]), a.widen(lut)));
    }
    if (c < L) {
      partial.push_back(host_tree(p, a));
    } else {
      partial[c % L] = a.add(partial[c % L], host_tree(p, a));
    }
  }
  const uint32_t main = host_tree(partial, a);
  uint32_t y = main;
  if (k > 0) {
    r.outliers = host_outliers(xhat, k);
    // MAC j mod Mc's n-th product into its partial sum n mod L.
    std::vector<std::vector<uint32_t>> macs(std::min(size_t(mc), r.outliers.size()));
    for (size_t j = 0; j < r.outliers.size(); ++j) {
      const size_t o = size_t(r.outliers[j]);
      const Fp16 res = host::sub(xhat[o], ca[size_t(r.ia[o])]);
      r.residuals.push_back(res.bits);
      const uint32_t q = a.mul(a.widen(res), a.widen(cw[iw[o]]));
      std::vector<uint32_t>& m = macs[j % macs.size()];
      const size_t n = j / macs.size();
      if (n < L) {
        m.push_back(q);
      } else {
        m[n % L] = a.add(m[n % L], q);
      }
    }
    std::vector<uint32_t> mac_sums;
    for (const auto& m : macs) mac_sums.push_back(host_tree(m, a));
    y = a.add(main, host_tree(mac_sums, a));
  }
  y = a.mul(y, a.widen(sa));
  y = a.mul(y, a.widen(sw));
  r.y = a.out(y);
  return r;
}

// ---- Stimulus -------------------------------------------------------------

Fp16 random_fp16(std::mt19937_64& rng, bool specials) {
  for (;;) {
    const Fp16 v{uint16_t(rng())};
    if (specials || (!is_nan(v) && !is_inf(v))) return v;
  }
}

// A strictly ascending codebook with strictly ascending boundaries, its
// values spread over `decades` orders of magnitude around 1.
std::vector<Fp16> random_codebook(std::mt19937_64& rng, int bits, double spread) {
  for (;;) {
    std::vector<double> v;
    std::normal_distribution<double> n(0.0, 1.0);
    for (int i = 0; i < (1 << bits); ++i) v.push_back(n(rng) * std::pow(10.0, spread * n(rng)));
    std::sort(v.begin(), v.end());
    std::vector<Fp16> c;
    for (const double d : v) c.push_back(fp16_from_double(d));
    try {
      cluster_boundaries(c);
      return c;
    } catch (const std::invalid_argument&) {
    }
  }
}

// random_codebook made symmetric about zero: its lower half negated, sorted, mirrored.
std::vector<Fp16> random_symmetric_codebook(std::mt19937_64& rng, int bits, double spread) {
  for (;;) {
    std::vector<Fp16> c = random_codebook(rng, bits, spread);
    test::make_symmetric_ascending(c);
    try {
      cluster_boundaries(c);
      return c;
    } catch (const std::invalid_argument&) {
    }
  }
}

std::vector<Fp16> random_any_codebook(std::mt19937_64& rng, int bits) {
  std::vector<Fp16> c;
  for (int i = 0; i < (1 << bits); ++i) c.push_back(random_fp16(rng, true));
  return c;
}

std::vector<Fp16> random_token(std::mt19937_64& rng, int k, int mode) {
  std::vector<Fp16> x(static_cast<size_t>(k));
  std::normal_distribution<double> n(0.0, 1.0);
  for (auto& v : x) {
    switch (mode) {
      case 0:
        v = fp16_from_double(n(rng));
        break;  // plain
      case 1:
        v = fp16_from_double(n(rng) * std::pow(10.0, 2 * n(rng)));
        break;  // wide
      case 2:
        v = random_fp16(rng, true);
        break;  // any bits
      default:
        v = Fp16{uint16_t(rng() % 4 == 0 ? 0x3C00 : 0x0000)};
        break;  // many ties
    }
  }
  return x;
}

// Every kernel of LutGemm::rows this host can run, at several thread counts, against the
// rows of `want` (row() on the same token and weights), bit for bit. Returns how many
// kernels ran.
int check_kernels(const LutGemm& model, const PreparedToken& tok, const QuantizedWeights& w,
                  const std::vector<uint16_t>& want, const std::string& where) {
  int kernels = 0;
  const WeightTiles tiles(w);
  for (const RowsKernel kernel :
       {RowsKernel::kSoftware, RowsKernel::kHost, RowsKernel::kHostAvx2}) {
    if (!rows_kernel_available(kernel)) continue;
    ++kernels;
    for (const int threads : {1, 3}) {
      for (const WeightTiles* t : {static_cast<const WeightTiles*>(nullptr), &tiles}) {
        const std::vector<Fp16> y = model.rows(tok, w, threads, kernel, t);
        EXPECT_EQ(y.size(), want.size());
        for (size_t n = 0; n < y.size() && n < want.size(); ++n) {
          EXPECT_EQ(y[n].bits, want[n])
              << std::hex << "kernel " << rows_kernel_name(kernel) << ", " << std::dec << threads
              << " threads, " << (t ? "tiles" : "rows") << ", row " << n << " " << where;
        }
      }
    }
  }
  return kernels;
}

// ---- Per-row computation against the host reference ---------------------------

struct Shape {
  int k, na, nw, t, mc, outliers;
  bool fp16;
  int slots = 1;  ///< L, the accumulators' partial sums
};

void check_rows(const Shape& s, int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    const int mode = trial % 4;
    const std::vector<Fp16> ca = random_codebook(rng, s.na, mode == 1 ? 1.0 : 0.3);
    const std::vector<Fp16> cw = random_codebook(rng, s.nw, 0.3);
    LutGemmParams p;
    p.act_bits = s.na;
    p.weight_bits = s.nw;
    p.mac_tree_inputs = s.t;
    p.comp_macs = s.mc;
    p.outliers_per_side = s.outliers;
    p.accumulator = s.fp16 ? AccumulatorFormat::kFp16 : AccumulatorFormat::kFp32;
    p.accumulator_slots = s.slots;
    const LutGemm model(p, ca, cw);
    const std::vector<Fp16> xhat = random_token(rng, s.k, mode);
    const Fp16 sa =
        fp16_from_double(std::ldexp(1.0 + double(rng() % 1024) / 1024, int(rng() % 9) - 4));
    const PreparedToken tok = model.prepare_normalized(xhat, sa);
    QuantizedWeights w;
    w.rows = 4;
    w.channels = s.k;
    w.bits = s.nw;
    w.codebook = cw;
    std::vector<uint16_t> want;
    for (int row = 0; row < 4; ++row) {
      std::vector<uint8_t> iw(size_t(s.k));
      for (auto& i : iw) i = uint8_t(rng() % (1u << s.nw));
      const Fp16 sw =
          fp16_from_double(std::ldexp(1.0 + double(rng() % 1024) / 1024, -int(rng() % 8)));
      w.indices.insert(w.indices.end(), iw.begin(), iw.end());
      w.scales.push_back(sw);
      RowTrace trace;
      const Fp16 y = model.row(tok, iw, sw, &trace);
      const HostRow h =
          host_row(xhat, sa, ca, cw, iw, sw, s.na, s.nw, s.t, s.mc, s.outliers, s.fp16, s.slots);
      const std::string where =
          ::testing::PrintToString(std::vector<int>{s.k, s.na, s.nw, s.t, s.mc, s.outliers, s.fp16,
                                                    s.slots, trial, row}) +
          " (K nA nW T Mc k fp16 L trial row), seed " + std::to_string(seed);
      ASSERT_EQ(std::vector<int>(tok.act_index.begin(), tok.act_index.end()), h.ia) << where;
      std::vector<int> ch;
      std::vector<uint16_t> res;
      for (size_t j = 0; j < tok.outliers.size(); ++j) {
        ch.push_back(tok.outliers[j].channel);
        res.push_back(tok.residuals[j].bits);
      }
      ASSERT_EQ(ch, h.outliers) << where;
      ASSERT_EQ(res, h.residuals) << where;
      ASSERT_EQ(y.bits, h.y) << std::hex << "y 0x" << y.bits << " want 0x" << h.y << " " << where;
      ASSERT_EQ(trace.y.bits, y.bits);
      ASSERT_EQ(trace.tree.size(), size_t((1 << (s.na + s.nw)) + s.t - 1) / size_t(s.t));
      ASSERT_EQ(trace.macs.size(), size_t(std::min(2 * s.outliers, s.mc)));
      ASSERT_EQ(std::accumulate(trace.counts.begin(), trace.counts.end(), 0u), uint32_t(s.k));
      want.push_back(y.bits);
    }
    ASSERT_GE(check_kernels(model, tok, w, want,
                            ::testing::PrintToString(std::vector<int>{s.k, s.na, s.nw, s.t, s.mc,
                                                                      s.outliers, s.fp16, trial}) +
                                " (K nA nW T Mc k fp16 trial), seed " + std::to_string(seed)),
              2);
  }
}

TEST(LutGemmRow, MatchesHostFpuReference) {
  const uint64_t seed = test_seed();
  const std::vector<Shape> shapes = {
      {128, 4, 4, 32, 1, 3, false},  // configs/default.json
      {128, 4, 4, 32, 1, 3, true},
      {64, 3, 4, 32, 8, 1, false},    // W4A3
      {64, 1, 1, 1, 1, 1, false},     // smallest: T = 1 is a sequential sum
      {100, 2, 3, 3, 3, 5, true},     // T and Mc not powers of two, Mc odd
      {50, 4, 4, 256, 64, 4, false},  // one MAC-tree cycle, Mc > 2k
      {96, 4, 4, 33, 5, 48, true},    // 2k = K: every channel an outlier
      {300, 4, 2, 5, 2, 0, false},    // no outlier branch (model-only k = 0)
      {1000, 4, 4, 32, 8, 5, true},   // K not a power of two
      // Accumulators of L partial sums: L dividing the cycles and not, L above the
      // cycles of a row (the main branch's 1, the compensation's 2), the MACs' last
      // cycle partly filled.
      {128, 4, 4, 32, 1, 3, false, 2},
      {128, 4, 4, 32, 1, 3, true, 3},
      {100, 2, 3, 3, 3, 5, true, 4},
      {50, 4, 4, 256, 3, 2, false, 4},
      {64, 1, 1, 1, 1, 13, false, 3},
  };
  for (const Shape& s : shapes) check_rows(s, 24, seed);
}

TEST(LutGemmRow, PaperConfigMatchesHostFpuReference) {
  check_rows({4096, 4, 4, 32, 8, 21, true}, 3, test_seed() + 100);
  check_rows({4096, 4, 4, 32, 8, 21, false}, 2, test_seed() + 101);
}

TEST(LutGemmRow, SpecialValuesInCodebooksPropagateAsIeeeSays) {
  // Weight centroids and scales of any bits, including Inf and NaN: the LUT
  // entries and the products follow IEEE (0 * Inf is NaN, canonical).
  std::mt19937_64 rng(test_seed() + 7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<Fp16> ca = random_codebook(rng, 2, 2.0);
    const std::vector<Fp16> cw = random_any_codebook(rng, 2);
    LutGemmParams p;
    p.act_bits = 2;
    p.weight_bits = 2;
    p.mac_tree_inputs = 4;
    p.comp_macs = 2;
    p.outliers_per_side = 2;
    p.accumulator = trial % 2 ? AccumulatorFormat::kFp16 : AccumulatorFormat::kFp32;
    const LutGemm model(p, ca, cw);
    const std::vector<Fp16> xhat = random_token(rng, 16, 2);
    const Fp16 sa = random_fp16(rng, true), sw = random_fp16(rng, true);
    std::vector<uint8_t> iw(16);
    for (auto& i : iw) i = uint8_t(rng() % 4);
    const PreparedToken tok = model.prepare_normalized(xhat, sa);
    const Fp16 y = model.row(tok, iw, sw);
    const HostRow h = host_row(xhat, sa, ca, cw, iw, sw, 2, 2, 4, 2, 2, trial % 2, 1);
    const std::string where =
        "trial " + std::to_string(trial) + " seed " + std::to_string(test_seed() + 7);
    ASSERT_EQ(y.bits, h.y) << where;
    if (is_nan(y)) {
      ASSERT_EQ(y.bits, kFp16CanonicalNan.bits);
    }
    QuantizedWeights w;
    w.rows = 1;
    w.channels = 16;
    w.bits = 2;
    w.codebook = cw;
    w.indices = iw;
    w.scales = {sw};
    ASSERT_GE(check_kernels(model, tok, w, {y.bits}, where), 2);
  }
}

// ---- LutGemm::rows: every kernel and thread count gives row()'s bits ------------------

TEST(LutGemmRows, EveryKernelAndThreadCountGivesRowsBits) {
  const uint64_t seed = test_seed() + 300;
  std::mt19937_64 rng(seed);
  struct Case {
    int k, na, nw, t, mc, outliers;
    bool fp16;
    int slots = 1;
    bool symmetric = false;
  };
  // The paper's shape with both accumulators, K not a multiple of 8, T not a power of two
  // with a partial last cycle, entries above 256 (16-bit entry indices), and one MAC-tree
  // cycle only; accumulators of 2, 3 and 4 partial sums; symmetric codebooks (the kernels
  // fold the counts into signed counts of the magnitudes).
  const std::vector<Case> cases = {
      {4096, 4, 4, 32, 8, 21, true},
      {4096, 4, 4, 32, 8, 21, false},
      {1001, 4, 4, 32, 8, 7, true},
      {515, 3, 4, 12, 5, 9, true},
      {300, 4, 6, 32, 4, 3, false},
      {200, 4, 6, 64, 3, 2, true},
      {77, 2, 2, 16, 2, 0, true},
      {4096, 4, 4, 32, 8, 21, false, 2},
      {515, 3, 4, 12, 5, 9, true, 3},
      {200, 4, 6, 64, 3, 2, false, 4},
      {4096, 4, 4, 32, 8, 21, true, 1, true},
      {515, 3, 4, 12, 5, 9, false, 2, true},
      {300, 4, 6, 7, 4, 3, true, 1, true},
  };
  int runs = 0;
  for (const Case& c : cases) {
    for (int trial = 0; trial < 4; ++trial) {
      LutGemmParams p;
      p.act_bits = c.na;
      p.weight_bits = c.nw;
      p.mac_tree_inputs = c.t;
      p.comp_macs = c.mc;
      p.outliers_per_side = c.outliers;
      p.accumulator = c.fp16 ? AccumulatorFormat::kFp16 : AccumulatorFormat::kFp32;
      p.accumulator_slots = c.slots;
      p.symmetric = c.symmetric;
      const auto codebook = c.symmetric ? random_symmetric_codebook : random_codebook;
      const std::vector<Fp16> cw = codebook(rng, c.nw, trial == 3 ? 2.0 : 0.3);
      const LutGemm model(p, codebook(rng, c.na, trial == 1 ? 1.0 : 0.3), cw);
      const PreparedToken tok =
          model.prepare_normalized(random_token(rng, c.k, trial), Fp16{0x3C00});
      QuantizedWeights w;
      w.rows = 37;
      w.channels = c.k;
      w.bits = c.nw;
      w.codebook = cw;
      std::vector<uint16_t> want;
      for (int n = 0; n < w.rows; ++n) {
        std::vector<uint8_t> iw(size_t(c.k));
        // Row 0 all one index: the largest counts (K in one entry).
        for (auto& i : iw) i = uint8_t(n == 0 ? 1 : rng() % (1u << c.nw));
        w.indices.insert(w.indices.end(), iw.begin(), iw.end());
        w.scales.push_back(
            fp16_from_double(std::ldexp(1.0 + double(rng() % 64) / 64, -int(rng() % 8))));
        want.push_back(model.row(tok, iw, w.scales.back()).bits);
      }
      const std::string where = "K " + std::to_string(c.k) + " nA " + std::to_string(c.na) +
                                " nW " + std::to_string(c.nw) + " T " + std::to_string(c.t) +
                                " L " + std::to_string(c.slots) +
                                (c.symmetric ? " symmetric" : "") + " trial " +
                                std::to_string(trial) + " seed " + std::to_string(seed);
      ASSERT_GE(check_kernels(model, tok, w, want, where), 2) << where;
      const WeightTiles tiles(w);
      for (const int threads : {0, 2, 7, 100}) {
        for (const WeightTiles* t : {static_cast<const WeightTiles*>(nullptr), &tiles}) {
          const std::vector<Fp16> y = model.rows(tok, w, threads, std::nullopt, t);
          for (size_t n = 0; n < y.size(); ++n) {
            ASSERT_EQ(y[n].bits, want[n]) << threads << " threads, " << (t ? "tiles" : "rows")
                                          << ", row " << n << " " << where;
          }
        }
      }
      ++runs;
    }
  }
  EXPECT_EQ(runs, int(cases.size()) * 4);
}

// Counting from tiles with one activation index in every channel: one group of all K channels,
// whose counts take all 16 bit planes (K = 40000; row 0 all one weight index, 40000 in one
// bin), and K past the pair histogram's 2^15 limit, so only the tiles count two rows at once.
TEST(LutGemmRows, TilesCountAGroupOfEveryChannel) {
  std::mt19937_64 rng(test_seed() + 310);
  LutGemmParams p;
  p.outliers_per_side = 2;
  p.accumulator = AccumulatorFormat::kFp32;
  const std::vector<Fp16> cw = random_codebook(rng, 4, 0.3);
  const LutGemm model(p, random_codebook(rng, 4, 0.3), cw);
  const int k = 40000;
  const PreparedToken tok =
      model.prepare_normalized(std::vector<Fp16>(size_t(k), fp16_from_double(0.25)), Fp16{0x3C00});
  ASSERT_TRUE(std::all_of(tok.act_index.begin(), tok.act_index.end(),
                          [&](uint8_t a) { return a == tok.act_index[0]; }));
  QuantizedWeights w;
  w.rows = 33;
  w.channels = k;
  w.bits = 4;
  w.codebook = cw;
  std::vector<uint16_t> want;
  for (int n = 0; n < w.rows; ++n) {
    std::vector<uint8_t> iw(static_cast<size_t>(k));
    for (auto& i : iw) i = uint8_t(n == 0 ? 5 : rng() % 16);
    w.indices.insert(w.indices.end(), iw.begin(), iw.end());
    w.scales.push_back(Fp16{0x3C00});
    want.push_back(model.row(tok, iw, w.scales.back()).bits);
  }
  ASSERT_GE(check_kernels(model, tok, w, want, "K 40000, one group"), 2);
}

// Three tokens (rows counted row by row) and kTokensWorthTiles (gemm() lays the weights out
// in tiles itself): every thread count gives each token's rows as row() computes them.
TEST(LutGemmRows, GemmIsTheSameForAnyThreadCount) {
  const int ch = 512, n = 301;
  const QuantizedWeights qw =
      quantize_weights(synthetic_weights(n, ch, test_seed() + 22), n, ch, {});
  ActCalibrationOptions ao;
  ao.outliers_per_side = 3;
  SyntheticActivationSpec spec;
  spec.channels = ch;
  spec.tokens = 8;
  const ActCalibration cal =
      calibrate_activations(synthetic_activations(spec, test_seed() + 23), 8, ch, {}, ao);
  LutGemmParams p;
  p.outliers_per_side = 3;
  p.accumulator = AccumulatorFormat::kFp16;
  const LutGemm model(p, cal.codebook, qw.codebook);
  for (const int tokens : {3, LutGemm::kTokensWorthTiles}) {
    spec.tokens = tokens;
    const std::vector<Fp16> x = synthetic_activations(spec, test_seed() + 21);
    std::vector<Fp16> want;
    for (int t = 0; t < tokens; ++t) {
      const PreparedToken tok = model.prepare(std::span(x).subspan(size_t(t) * ch, ch));
      for (const Fp16 y : model.rows(tok, qw, 1, RowsKernel::kSoftware)) want.push_back(y);
    }
    for (const int threads : {1, 2, 3, 0, 1000}) {
      const std::vector<Fp16> y = model.gemm(x, tokens, qw, threads);
      ASSERT_EQ(y.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(y[i].bits, want[i].bits)
            << tokens << " tokens, " << threads << " threads, output " << i;
      }
    }
  }
}

TEST(LutGemmRows, HostKernelsStepAsideWhenTheFpuFlushesSubnormals) {
#if defined(__x86_64__)
  // With flush-to-zero and denormals-are-zero set, the host's binary32 unit is not IEEE:
  // only the software kernel may run, rows() falls back to it, and the bits do not change.
  LutGemmParams p;
  p.act_bits = 2;
  p.weight_bits = 2;
  p.mac_tree_inputs = 4;
  p.outliers_per_side = 1;
  p.accumulator = AccumulatorFormat::kFp32;
  const std::vector<Fp16> ca = {Fp16{0x8400}, Fp16{0x0001}, Fp16{0x0002}, Fp16{0x0400}};
  const std::vector<Fp16> cw = {Fp16{0x0001}, Fp16{0x0003}, Fp16{0x0200}, Fp16{0x3C00}};
  const LutGemm model(p, ca, cw);
  std::vector<Fp16> xhat(32);
  for (size_t i = 0; i < xhat.size(); ++i) xhat[i] = Fp16{uint16_t(i % 5)};  // subnormals
  const PreparedToken tok = model.prepare_normalized(xhat, Fp16{0x0001});
  QuantizedWeights w;
  w.rows = 8;
  w.channels = 32;
  w.bits = 2;
  w.codebook = cw;
  for (int i = 0; i < 8 * 32; ++i) w.indices.push_back(uint8_t((i * 7) % 4));
  w.scales.assign(8, Fp16{0x3C00});
  std::vector<uint16_t> want;
  for (int n = 0; n < 8; ++n) {
    want.push_back(
        model.row(tok, std::span(w.indices).subspan(size_t(n) * 32, 32), w.scales[size_t(n)]).bits);
  }
  ASSERT_TRUE(rows_kernel_available(RowsKernel::kHost));
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | 0x8040u);
  const bool host = rows_kernel_available(RowsKernel::kHost);
  const RowsKernel fastest = fastest_rows_kernel();
  const std::vector<Fp16> y = model.rows(tok, w, 2);
  bool refused = false;
  try {
    model.rows(tok, w, 1, RowsKernel::kHost);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  _mm_setcsr(csr);
  EXPECT_FALSE(host);
  EXPECT_EQ(fastest, RowsKernel::kSoftware);
  EXPECT_TRUE(refused);
  for (size_t n = 0; n < want.size(); ++n) EXPECT_EQ(y[n].bits, want[n]) << "row " << n;
  // The same rows with the host kernel and an IEEE environment, for contrast.
  EXPECT_EQ(check_kernels(model, tok, w, want, "subnormal token"),
            rows_kernel_available(RowsKernel::kHostAvx2) ? 3 : 2);
#else
  GTEST_SKIP() << "MXCSR is x86-64 only";
#endif
}

TEST(LutGemmRows, RejectsWeightsThatDoNotFit) {
  LutGemmParams p;
  p.act_bits = 2;
  p.weight_bits = 2;
  p.outliers_per_side = 1;
  const std::vector<Fp16> c = {fp16_from_double(-1), fp16_from_double(0), fp16_from_double(1),
                               fp16_from_double(2)};
  const LutGemm model(p, c, c);
  std::vector<Fp16> xhat(8, fp16_from_double(0.5));
  xhat[3] = fp16_from_double(9);   // the max outlier
  xhat[5] = fp16_from_double(-9);  // the min outlier
  const PreparedToken tok = model.prepare_normalized(xhat, Fp16{0x3C00});
  QuantizedWeights w;
  w.rows = 2;
  w.channels = 8;
  w.bits = 2;
  w.codebook = c;
  w.indices.assign(16, 1);
  w.scales.assign(2, Fp16{0x3C00});
  for (const RowsKernel kernel :
       {RowsKernel::kSoftware, RowsKernel::kHost, RowsKernel::kHostAvx2}) {
    if (!rows_kernel_available(kernel)) continue;
    EXPECT_NO_THROW(model.rows(tok, w, 1, kernel));
    QuantizedWeights bad = w;
    bad.indices[8 + 3] = 4;  // row 1, the outlier channel: no centroid 4
    // Every kernel says what row() says of it.
    std::string message;
    try {
      model.rows(tok, bad, 2, kernel);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    EXPECT_EQ(message, "outlier branch: weight index 4 at channel 3; allowed: 0..3")
        << rows_kernel_name(kernel);
    bad = w;
    bad.scales.pop_back();
    EXPECT_THROW(model.rows(tok, bad, 1, kernel), std::invalid_argument);
    bad = w;
    bad.indices.pop_back();
    EXPECT_THROW(model.rows(tok, bad, 1, kernel), std::invalid_argument);
    bad = w;
    bad.codebook[0] = fp16_from_double(-3);
    EXPECT_THROW(model.rows(tok, bad, 1, kernel), std::invalid_argument);
  }
  // Tiles of weights of another shape, and tiles of weights whose sizes disagree.
  QuantizedWeights other = w;
  other.rows = 1;
  other.indices.resize(8);
  other.scales.resize(1);
  const WeightTiles tiles(other);
  EXPECT_EQ(tiles.tiles(), 1u);
  std::string message;
  try {
    model.rows(tok, w, 1, std::nullopt, &tiles);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "GEMM: weight tiles of 1 rows, 8 channels, 2 bits for weights of 2, 8, 2");
  other = w;
  other.indices.pop_back();
  EXPECT_THROW(WeightTiles{other}, std::invalid_argument);
}

TEST(LutGemm, RoundToBinary16IsToFp16) {
  // Every exponent, both signs, every value of the 13 bits that decide the rounding (and for
  // the subnormal range the bits above them), against the software conversion; NaNs stay
  // NaNs.
  std::mt19937_64 rng(test_seed() + 31);
  uint64_t checked = 0;
  for (uint32_t exp = 0; exp < 256; ++exp) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      std::vector<uint32_t> highs = {0, 1, 2, 0x1FF, 0x200, 0x3FE, 0x3FF};
      for (int i = 0; i < 4; ++i) highs.push_back(uint32_t(rng() & 0x3FF));
      for (const uint32_t high : highs) {
        for (uint32_t low = 0; low < 0x2000; ++low) {
          const uint32_t bits = sign | exp << 23 | high << 13 | low;
          const float r = round_to_binary16(std::bit_cast<float>(bits));
          const Fp16 want = to_fp16(Fp32{bits});
          if (is_nan(want)) {
            ASSERT_TRUE(r != r) << std::hex << bits;
          } else {
            ASSERT_EQ(std::bit_cast<uint32_t>(r), to_fp32(want).bits) << std::hex << bits;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 256u * 2u * 11u * 0x2000u);
}

TEST(LutGemm, StepsAreTheDocumentedOnes) {
  const Accumulator a32(AccumulatorFormat::kFp32);
  auto v = [](float f) { return AccValue{std::bit_cast<uint32_t>(f)}; };
  // Pairwise: ((1e8 + -1e8) + (1 + 1)) + 3, not a left fold.
  const std::vector<AccValue> five = {v(1e8f), v(-1e8f), v(1.f), v(1.f), v(3.f)};
  EXPECT_EQ(pairwise_tree(five, a32), v(5.f));
  // A left fold would give 1e8 + 1 + ... rounding differently: check the
  // tree is not one.
  const std::vector<AccValue> lossy = {v(1e8f), v(1.f), v(1.f), v(-1e8f)};
  EXPECT_EQ(pairwise_tree(lossy, a32), v(0.f));  // (1e8+1) + (1-1e8) = 1e8 - 1e8
  // cnt_A for binary16 rounds once: 2049 -> 2048, 2051 -> 2052.
  const Accumulator a16(AccumulatorFormat::kFp16);
  EXPECT_EQ(a16.count(2049).bits, fp16_from_double(2048).bits);
  EXPECT_EQ(a16.count(2051).bits, fp16_from_double(2052).bits);
  EXPECT_EQ(a32.count(16777217).bits, std::bit_cast<uint32_t>(16777216.f));
  // The LUT: activation bits high.
  const std::vector<Fp16> ca = {fp16_from_double(-1), fp16_from_double(2)};
  const std::vector<Fp16> cw = {fp16_from_double(3), fp16_from_double(5), fp16_from_double(7),
                                fp16_from_double(11)};
  const std::vector<Fp16> lut = cartesian_lut(ca, cw);
  ASSERT_EQ(lut.size(), 8u);
  EXPECT_EQ(to_double(lut[1]), -5.0);
  EXPECT_EQ(to_double(lut[(1 << 2) | 3]), 22.0);
  // Counts: e = ia << nW | iw.
  const std::vector<uint8_t> ia = {1, 1, 0}, iw = {3, 3, 2};
  const std::vector<uint32_t> cnt = index_counts(ia, iw, 1, 2);
  EXPECT_EQ(cnt[7], 2u);
  EXPECT_EQ(cnt[2], 1u);
  EXPECT_EQ(std::accumulate(cnt.begin(), cnt.end(), 0u), 3u);
}

TEST(LutGemm, InterleavedSumIsTheDocumentedOrder) {
  const Accumulator a32(AccumulatorFormat::kFp32);
  auto v = [](float f) { return AccValue{std::bit_cast<uint32_t>(f)}; };
  // Values 0..4 with L = 2: slot 0 = (1e8 + -1e8) + 3 = 3, slot 1 = 1 + 1 = 2; then 3 + 2.
  const std::vector<AccValue> x = {v(1e8f), v(1.f), v(-1e8f), v(1.f), v(3.f)};
  EXPECT_EQ(interleaved_sum(x, 2, a32), v(5.f));
  // L = 1 is the left fold: ((((1e8 + 1) + -1e8) + 1) + 3) = 4, 1e8 + 1 rounding to 1e8.
  EXPECT_EQ(interleaved_sum(x, 1, a32), v(4.f));
  // L = 3: slots {1e8 + 1, 1 + 3, -1e8}, the tree (1e8 + 4) + -1e8 = 0 (1e8 + 4 is 1e8).
  EXPECT_EQ(interleaved_sum(x, 3, a32), v(0.f));
  // L past the values: the pairwise tree of them all.
  EXPECT_EQ(interleaved_sum(x, 8, a32), pairwise_tree(x, a32));
  // -0 alone stays -0 (a slot is loaded, not added to a zero).
  EXPECT_EQ(interleaved_sum(std::vector<AccValue>{v(-0.f)}, 4, a32), v(-0.f));
  EXPECT_THROW(interleaved_sum(x, 0, a32), std::invalid_argument);
}

// Symmetric codebooks (docs/spec.md section 1): every entry of the full LUT is its bin's
// magnitude entry, negated when the bin's sign says so, bit for bit.
TEST(LutGemm, SymmetricFoldNamesEachProductsSignAndMagnitude) {
  std::mt19937_64 rng(test_seed());
  for (int na = 2; na <= 4; ++na) {
    for (int nw = 2; nw <= 4; ++nw) {
      std::vector<Fp16> ca = random_codebook(rng, na, 0.5), cw(size_t(1) << nw);
      for (auto& v : cw) v = random_fp16(rng, false);
      test::mirror_codebook(ca);
      test::mirror_codebook(cw);
      ASSERT_TRUE(is_symmetric_codebook(ca) && is_symmetric_codebook(cw));
      const std::vector<Fp16> full = cartesian_lut(ca, cw), mags = symmetric_lut(ca, cw);
      ASSERT_EQ(mags.size(), full.size() / 4);
      for (int e = 0; e < int(full.size()); ++e) {
        const int bin = fold_index(e, na, nw);
        const int m = bin % int(mags.size());
        const bool negative = bin >= int(mags.size());
        ASSERT_LT(bin, int(full.size() / 2));
        ASSERT_EQ(full[size_t(e)].bits, mags[size_t(m)].bits ^ (negative ? 0x8000u : 0u))
            << "nA " << na << " nW " << nw << " e " << e;
      }
    }
  }
  // Signed counts: positive bins less negative ones; a signed count converts as its value.
  const std::vector<uint32_t> bins = {3, 0, 5, 1, 3, 2, 0, 4};
  EXPECT_EQ(signed_counts(bins), (std::vector<int32_t>{0, -2, 5, -3}));
  const Accumulator a16(AccumulatorFormat::kFp16), a32(AccumulatorFormat::kFp32);
  EXPECT_EQ(a32.count(-3).bits, std::bit_cast<uint32_t>(-3.f));
  EXPECT_EQ(a16.count(-2051).bits, fp16_from_double(-2052).bits);
  EXPECT_EQ(a32.count(0).bits, 0u);  // +0
}

TEST(LutGemm, SymmetricCodebooksAreChecked) {
  LutGemmParams p;
  p.act_bits = 2;
  p.weight_bits = 2;
  p.symmetric = true;
  const std::vector<Fp16> sym = {fp16_from_double(-2), fp16_from_double(-0.5),
                                 fp16_from_double(0.5), fp16_from_double(2)};
  const LutGemm m(p, sym, sym);
  EXPECT_EQ(m.lut().size(), 4u);
  EXPECT_EQ(to_double(m.lut()[0]), 0.25);  // C_A[2] * C_W[2]
  EXPECT_EQ(to_double(m.lut()[3]), 4.0);
  const std::vector<Fp16> free = {fp16_from_double(-2), fp16_from_double(-0.5),
                                  fp16_from_double(0.5), fp16_from_double(3)};
  EXPECT_THROW(LutGemm(p, free, sym), std::invalid_argument);
  EXPECT_THROW(LutGemm(p, sym, free), std::invalid_argument);
}

TEST(LutGemm, RejectsBadCodebooks) {
  LutGemmParams p;
  p.act_bits = 2;
  p.weight_bits = 2;
  const std::vector<Fp16> ok = {fp16_from_double(-1), fp16_from_double(0), fp16_from_double(1),
                                fp16_from_double(2)};
  EXPECT_NO_THROW(LutGemm(p, ok, ok));
  EXPECT_THROW(LutGemm(p, {ok[0], ok[1]}, ok), std::invalid_argument);
  EXPECT_THROW(LutGemm(p, ok, {ok[0]}), std::invalid_argument);
  EXPECT_THROW(LutGemm(p, {ok[0], ok[2], ok[1], ok[3]}, ok), std::invalid_argument);
  p.mac_tree_inputs = 0;
  EXPECT_THROW(LutGemm(p, ok, ok), std::invalid_argument);
}

// ---- The identities of docs/spec.md section 1, in exact integers ------------------------

TEST(LutGemmIdentity, ExactIntegersAgreeWithDoubles) {
  // exact_fp16 against the value as a double, every finite binary16.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const Fp16 x{uint16_t(b)};
    if (is_nan(x) || is_inf(x)) continue;
    ASSERT_EQ(double(exact_fp16(x)), std::ldexp(to_double(x), 24)) << std::hex << b;
  }
  EXPECT_EQ(exact_product(Fp16{0x7BFF}, Fp16{0x7BFF}), Exact(65504LL << 24) * Exact(65504LL << 24));
  EXPECT_EQ(exact_product(Fp16{0x0001}, Fp16{0x8001}), Exact(-1));
}

void check_identities(const std::vector<Fp16>& ca, const std::vector<Fp16>& cw,
                      const std::vector<Fp16>& xhat, const std::vector<uint8_t>& iw, int na, int nw,
                      int k, const std::string& where) {
  LutGemmParams p;
  p.act_bits = na;
  p.weight_bits = nw;
  p.outliers_per_side = k;
  const LutGemm model(p, ca, cw);
  const PreparedToken tok = model.prepare_normalized(xhat, fp16_from_double(1.0));
  const std::vector<int32_t> cnt = main_counts(tok.act_index, iw, na, nw, false);
  // Identity 1: sum_e cnt[e] * L_exact[e] == sum_k C_A[ia[k]] * C_W[iw[k]].
  const Exact by_counts = exact_main_by_counts(cnt, ca, cw, nw);
  const Exact direct = exact_main_direct(tok.act_index, iw, ca, cw);
  ASSERT_TRUE(by_counts == direct) << "identity 1 " << where;
  // Identity 2: look-ahead + compensation == conventional detection.
  std::vector<int> outliers;
  for (const Outlier& o : tok.outliers) outliers.push_back(o.channel);
  const Exact la = exact_lookahead_compensated(tok.xhat, tok.act_index, iw, outliers, ca, cw);
  const Exact conv = exact_conventional(tok.xhat, tok.act_index, iw, outliers, ca, cw);
  ASSERT_TRUE(la == conv) << "identity 2 " << where;
}

TEST(LutGemmIdentity, RandomInputs) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  int runs = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int na = 1 + int(rng() % 4), nw = 1 + int(rng() % 4);
    const int k = 2 + int(rng() % 600);
    const int out = int(rng() % size_t(k / 2 + 1));
    const std::vector<Fp16> ca = random_codebook(rng, na, trial % 3 == 0 ? 3.0 : 0.5);
    std::vector<Fp16> cw = trial % 2 ? random_codebook(rng, nw, 3.0) : std::vector<Fp16>{};
    while (cw.size() < (size_t(1) << nw)) cw.push_back(random_fp16(rng, false));  // any finite
    std::vector<Fp16> xhat = random_token(rng, k, trial % 4);
    for (auto& v : xhat) {
      if (is_nan(v) || is_inf(v)) v = random_fp16(rng, false);  // exact arithmetic: finite only
    }
    std::vector<uint8_t> iw(static_cast<size_t>(k));
    for (auto& i : iw) i = uint8_t(rng() % (1u << nw));
    check_identities(ca, cw, xhat, iw, na, nw, out,
                     "trial " + std::to_string(trial) + " seed " + std::to_string(seed));
    ++runs;
  }
  EXPECT_EQ(runs, 400);
}

// Identity 1 with symmetric codebooks: the signed counts of the magnitudes times the
// magnitudes' products equal the direct sum, exactly.
TEST(LutGemmIdentity, SymmetricSignedCounts) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 300; ++trial) {
    const int na = 2 + int(rng() % 3), nw = 2 + int(rng() % 3);
    const int k = 1 + int(rng() % 700);
    std::vector<Fp16> ca = random_codebook(rng, na, trial % 3 == 0 ? 3.0 : 0.5);
    std::vector<Fp16> cw(size_t(1) << nw);
    for (auto& v : cw) v = random_fp16(rng, false);
    test::mirror_codebook(ca);
    test::mirror_codebook(cw);
    std::vector<uint8_t> ia(static_cast<size_t>(k)), iw(static_cast<size_t>(k));
    for (auto& i : ia) i = uint8_t(rng() % (1u << na));
    for (auto& i : iw) i = uint8_t(rng() % (1u << nw));
    const std::vector<int32_t> cnt = main_counts(ia, iw, na, nw, true);
    ASSERT_EQ(cnt.size(), size_t(1) << (na + nw - 2));
    ASSERT_TRUE(exact_main_by_counts(cnt, ca, cw, nw, true) == exact_main_direct(ia, iw, ca, cw))
        << "trial " << trial << " seed " << seed;
  }
}

TEST(LutGemmIdentity, AdversarialInputs) {
  const Fp16 max{0x7BFF}, min_sub{0x0001}, neg_max{0xFBFF};
  // Extreme codebooks: the largest magnitudes and the smallest subnormals.
  const std::vector<Fp16> ca = {neg_max, Fp16{0x8001}, min_sub, max};
  const std::vector<Fp16> cw = {neg_max,      Fp16{0x8001}, Fp16{0x0000}, min_sub,
                                Fp16{0x03FF}, Fp16{0x0400}, Fp16{0x3C00}, max};
  struct Case {
    std::string name;
    std::vector<Fp16> x;
    std::vector<uint8_t> iw;
    int k;
  };
  std::vector<Case> cases;
  const int n = 65536;  // counts up to 2^16, sums near 2^96 * 2^-48
  cases.push_back(
      {"all max, one weight index", std::vector<Fp16>(n, max), std::vector<uint8_t>(n, 7), 1});
  cases.push_back({"all -max", std::vector<Fp16>(n, neg_max), std::vector<uint8_t>(n, 0), 3});
  cases.push_back({"all equal (padding token)", std::vector<Fp16>(4096, Fp16{0x3C00}),
                   std::vector<uint8_t>(4096, 6), 21});
  cases.push_back(
      {"signed zeros", {Fp16{0x8000}, Fp16{0}, Fp16{0x8000}, Fp16{0}}, {0, 7, 2, 3}, 2});
  std::vector<Fp16> subs;
  std::vector<uint8_t> iws;
  for (uint16_t b = 0; b < 0x400; ++b) {
    subs.push_back(Fp16{b});
    subs.push_back(Fp16{uint16_t(b | 0x8000)});
    iws.push_back(uint8_t(b % 8));
    iws.push_back(uint8_t((b + 3) % 8));
  }
  cases.push_back({"every subnormal, both signs", subs, iws, 64});
  cases.push_back({"every subnormal, all outliers", subs, iws, int(subs.size() / 2)});
  std::vector<Fp16> every;
  std::vector<uint8_t> iwe;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const Fp16 v{uint16_t(b)};
    if (is_nan(v) || is_inf(v)) continue;
    every.push_back(v);
    iwe.push_back(uint8_t((b * 2654435761u) >> 29));
  }
  cases.push_back({"every finite binary16", every, iwe, 300});
  for (const Case& c : cases) check_identities(ca, cw, c.x, c.iw, 2, 3, c.k, c.name);
}

// ---- The comparison paths ------------------------------------------------------

TEST(LutGemm, ExactWhenEveryStepIsExact) {
  // Small integer centroids, activations on a grid of 1/4 with the largest
  // magnitude 8 (so s_a = 8 by absmax and x̂ = x / 8 is exact) and
  // power-of-two weight scales: every FP operation of both paths is exact
  // (binary32 accumulator), so the LUT path, the conventional path and the
  // exact integer sum, each rounded once to binary16, agree bit for bit.
  std::mt19937_64 rng(test_seed());
  std::vector<Fp16> ca, cw;
  for (int i = 0; i < 16; ++i) ca.push_back(fp16_from_double(i - 8));
  for (int i = 0; i < 16; ++i) cw.push_back(fp16_from_double(2 * i - 15));
  LutGemmParams p;
  p.outliers_per_side = 4;
  p.scale = ScaleMode::kAbsMax;
  const LutGemm model(p, ca, cw);
  const int k = 256, rows = 8, tokens = 4;
  std::vector<Fp16> x(static_cast<size_t>(k * tokens));
  for (auto& v : x) v = fp16_from_double(double(int(rng() % 64) - 32) / 4);
  for (int t = 0; t < tokens; ++t) x[size_t(t * k + int(rng() % k))] = fp16_from_double(8.0);
  QuantizedWeights w;
  w.rows = rows;
  w.channels = k;
  w.bits = 4;
  w.codebook = cw;
  for (int n = 0; n < rows; ++n) w.scales.push_back(fp16_from_double(std::ldexp(1.0, -n)));
  for (int i = 0; i < rows * k; ++i) w.indices.push_back(uint8_t(rng() % 16));
  const std::vector<Fp16> lut_y = model.gemm(x, tokens, w);
  const std::vector<Fp16> conv_y = conventional_gemm(model, x, tokens, w);
  for (int t = 0; t < tokens; ++t) {
    const PreparedToken tok = model.prepare(std::span(x).subspan(size_t(t * k), size_t(k)));
    std::vector<int> outliers;
    for (const Outlier& o : tok.outliers) outliers.push_back(o.channel);
    for (int n = 0; n < rows; ++n) {
      const auto iw = std::span(w.indices).subspan(size_t(n * k), size_t(k));
      ASSERT_EQ(to_double(tok.scale), 8.0);
      const Exact e = exact_conventional(tok.xhat, tok.act_index, iw, outliers, ca, cw);
      const double want =
          double(e) * 0x1.0p-48 * to_double(tok.scale) * to_double(w.scales[size_t(n)]);
      const size_t i = size_t(t * rows + n);
      ASSERT_EQ(lut_y[i].bits, fp16_from_double(want).bits) << "token " << t << " row " << n;
      ASSERT_EQ(conv_y[i].bits, lut_y[i].bits) << "token " << t << " row " << n;
    }
  }
}

TEST(LutGemm, ReferenceGemmIsBinary32InOrder) {
  // The host-float reference against the model's own binary32 arithmetic.
  std::mt19937_64 rng(test_seed());
  const int k = 77, tokens = 3, rows = 5;
  std::vector<Fp16> x(size_t(tokens * k)), w(size_t(rows * k));
  for (auto& v : x) v = random_fp16(rng, false);
  for (auto& v : w) v = random_fp16(rng, rng() % 8 == 0);
  const std::vector<float> y = reference_gemm_fp32(x, tokens, w, rows, k);
  for (int t = 0; t < tokens; ++t) {
    for (int n = 0; n < rows; ++n) {
      Fp32 acc{0};
      for (int i = 0; i < k; ++i) {
        acc = add(acc, mul(to_fp32(x[size_t(t * k + i)]), to_fp32(w[size_t(n * k + i)])));
      }
      const uint32_t got = std::bit_cast<uint32_t>(y[size_t(t * rows + n)]);
      ASSERT_EQ(is_nan(Fp32{got}) ? kFp32CanonicalNan.bits : got, acc.bits) << t << " " << n;
    }
  }
}

TEST(LutGemm, SqnrOfTheOasisPathOnSyntheticData) {
  // NU4 with outliers must be well ahead of INT4 RTN on LLM-like data.
  SyntheticActivationSpec spec;
  spec.channels = 512;
  spec.tokens = 8;
  const std::vector<Fp16> x = synthetic_activations(spec, 11);
  spec.tokens = 32;
  const std::vector<Fp16> calib = synthetic_activations(spec, 12);
  const int rows = 64;
  const std::vector<Fp16> w = synthetic_weights(rows, 512, 13);
  const std::vector<float> rf = reference_gemm_fp32(x, 8, w, rows, 512);
  const std::vector<double> ref(rf.begin(), rf.end());
  const double int4 = sqnr_db(ref, int_rtn_gemm(x, 8, w, rows, 512, 4, 4));
  const QuantizedWeights qw = quantize_weights(w, rows, 512, {});
  ActCalibrationOptions ao;
  ao.outliers_per_side = 3;
  const ActCalibration cal = calibrate_activations(calib, 32, 512, {}, ao);
  LutGemmParams p;
  p.outliers_per_side = 3;
  const LutGemm model(p, cal.codebook, qw.codebook);
  std::vector<double> y;
  for (const Fp16 v : model.gemm(x, 8, qw)) y.push_back(to_double(v));
  const double nu = sqnr_db(ref, y);
  EXPECT_GT(nu, int4 + 3.0) << "NU4 " << nu << " dB, INT4 " << int4 << " dB";
  EXPECT_GT(nu, 15.0);
}

}  // namespace
}  // namespace oasis
