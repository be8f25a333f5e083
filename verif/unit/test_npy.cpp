// SPDX-License-Identifier: Apache-2.0
// model/npy: round trips of every supported type and shape, files laid out
// byte for byte as NumPy writes them (versions 1.0 and 2.0), and refusal of
// every malformed, truncated or unsupported file with a message naming the
// file, including a seeded fuzz of truncations and corrupted bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "model/io/npy.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::test_seed;

// A .npy file as NumPy 1.x writes it: magic, version, little-endian header
// length, the dict padded with spaces to a multiple of 64 and a newline.
std::vector<uint8_t> numpy_file(const std::string& dict, const std::vector<uint8_t>& data,
                                int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  const size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  const size_t n = header.size();
  f.push_back(uint8_t(n));
  f.push_back(uint8_t(n >> 8));
  if (major != 1) {
    f.push_back(uint8_t(n >> 16));
    f.push_back(uint8_t(n >> 24));
  }
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

std::string refusal(const std::vector<uint8_t>& file) {
  try {
    parse_npy(file, "t.npy");
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}

TEST(Npy, ReadsWhatNumpyWrites) {
  // np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
  std::vector<uint8_t> data;
  for (const float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
    data.insert(data.end(), p, p + 4);
  }
  const auto f = numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data);
  ASSERT_EQ(f.size() % 64, 24u);  // 64-byte header, as NumPy pads it
  const NpyArray a = parse_npy(f, "t.npy");
  EXPECT_EQ(a.type, NpyType::kFloat32);
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(a.to_float("t"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Our writer produces the same bytes.
  EXPECT_EQ(serialize_npy(a), f);
  // Version 2.0 header, uint8, 1-D, keys in another order.
  const auto g =
      numpy_file("{'shape': (3,), 'fortran_order': False, 'descr': '|u1'}", {7, 8, 9}, 2);
  const NpyArray b = parse_npy(g, "g.npy");
  EXPECT_EQ(b.type, NpyType::kUint8);
  EXPECT_EQ(b.to_uint8("g"), (std::vector<uint8_t>{7, 8, 9}));
  // A 0-d array (shape ()) holds one element.
  const auto h =
      numpy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", {5, 0, 0, 0});
  EXPECT_EQ(parse_npy(h, "h.npy").count(), 1u);
}

TEST(Npy, RoundTripsEveryTypeAndShape) {
  std::mt19937_64 rng(test_seed());
  const std::vector<std::vector<size_t>> shapes = {{0}, {1}, {7}, {3, 5}, {2, 0, 4}, {2, 3, 4}};
  const auto dir =
      std::filesystem::temp_directory_path() / ("oasis_npy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& shape : shapes) {
    size_t n = 1;
    for (const size_t d : shape) n *= d;
    std::vector<Fp16> h(n);
    std::vector<float> f(n);
    std::vector<uint8_t> u(n);
    std::vector<int32_t> i(n);
    for (size_t j = 0; j < n; ++j) {
      h[j] = Fp16{uint16_t(rng())};
      f[j] = float(int32_t(rng())) / 7.0f;
      u[j] = uint8_t(rng());
      i[j] = int32_t(rng());
    }
    std::vector<double> g(n);
    for (size_t j = 0; j < n; ++j) g[j] = double(int64_t(rng())) / 3.0;
    for (const NpyArray& a : {NpyArray::from_fp16(shape, h), NpyArray::from_float(shape, f),
                              NpyArray::from_double(shape, g), NpyArray::from_uint8(shape, u),
                              NpyArray::from_int32(shape, i)}) {
      const std::string path = (dir / "a.npy").string();
      write_npy(path, a);
      const NpyArray b = read_npy(path);
      EXPECT_EQ(b.type, a.type);
      EXPECT_EQ(b.shape, a.shape);
      EXPECT_EQ(b.bytes, a.bytes) << npy_type_name(a.type);
      EXPECT_EQ(serialize_npy(b).size() % 64, (a.bytes.size()) % 64);
    }
    EXPECT_EQ(NpyArray::from_fp16(shape, h).to_fp16("h"), h);
  }
  std::filesystem::remove_all(dir);
}

TEST(Npy, Float32ToFp16RoundsOnceToNearestEven) {
  // Ties to even at 1 + ulp/2 and 1 + 3ulp/2, 0.75 ulp up, overflow at
  // 65520, -0, half the smallest subnormal (to 0) and 0.75 of it (up).
  const std::vector<float> v = {
      1.0f,  1.0f + 0x1.0p-11f, 1.0f + 0x3.0p-11f, 1.0f + 0x1.8p-11f, 65520.0f,
      -0.0f, 0x1.0p-25f,        0x1.8p-25f};
  const auto h = NpyArray::from_float({v.size()}, v).to_fp16("v");
  const std::vector<uint16_t> want = {0x3C00, 0x3C00, 0x3C02, 0x3C01,
                                      0x7C00, 0x8000, 0x0000, 0x0001};
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(h[i].bits, want[i]) << i;
}

TEST(Npy, Float64RoundsOnceToBinary16) {
  // np.save's default type. 1 + 2^-11 + 2^-40 is just above a binary16 tie: rounded once it
  // goes up; through binary32 it would round twice, to 1. Also a tie to even, overflow,
  // half the smallest subnormal, and -0.
  const std::vector<double> v = {
      1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 65520.0, 0x1p-25, -0.0, -2.5};
  std::vector<uint8_t> data(v.size() * 8);
  std::memcpy(data.data(), v.data(), data.size());
  const auto f = numpy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", data);
  const NpyArray a = parse_npy(f, "t.npy");
  EXPECT_EQ(a.type, NpyType::kFloat64);
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3}));
  const std::vector<Fp16> h = a.to_fp16("t");
  const std::vector<uint16_t> want = {0x3C01, 0x3C00, 0x7C00, 0x0000, 0x8000, 0xC100};
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(h[i].bits, want[i]) << i;
  EXPECT_EQ(a.to_double("t"), v);
  EXPECT_EQ(a.to_float("t")[5], -2.5f);
  EXPECT_EQ(serialize_npy(NpyArray::from_double({2, 3}, v)), f);
  EXPECT_THROW(NpyArray::from_uint8({1}, std::vector<uint8_t>{1}).to_double("x"), NpyError);
}

TEST(Npy, RefusesUnsupportedAndMalformedFiles) {
  const std::vector<uint8_t> four(4, 0);
  struct Case {
    std::vector<uint8_t> file;
    std::string expect;
  };
  const std::string ok = "'fortran_order': False, 'shape': (1,), }";
  std::vector<Case> cases = {
      {{}, "not a .npy file"},
      {{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, "not a .npy file"},
      {numpy_file("{'descr': '>f4', " + ok, four), "unsupported element type '>f4'"},
      {numpy_file("{'descr': '>f8', " + ok, std::vector<uint8_t>(8)),
       "unsupported element type '>f8'"},
      {numpy_file("{'descr': '<i8', " + ok, std::vector<uint8_t>(8)), "unsupported element type"},
      {numpy_file("{'descr': '<c8', " + ok, std::vector<uint8_t>(8)), "unsupported element type"},
      {numpy_file("{'descr': [('a', '<f4')], " + ok, four), "structured"},
      {numpy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four), "Fortran"},
      {numpy_file("{'descr': '<f4', 'shape': (1,), }", four), "lacks"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", four),
       "unexpected header key"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", four),
       "non-negative"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,2, }", four),
       "shape entries"},
      {numpy_file("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", four),
       "neither True nor False"},
      {numpy_file("{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }", four), "malformed"},
      {numpy_file("{'descr': '<f4', " + ok, {0, 0}), "truncated data"},
      {numpy_file("{'descr': '<f4', " + ok, std::vector<uint8_t>(5)), "trailing"},
      {numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, "
                  "99999999999), }",
                  four),
       "too large"},
  };
  auto v4 = numpy_file("{'descr': '<f4', " + ok, four);
  v4[6] = 4;
  cases.push_back({v4, "version 4.0"});
  auto short_header = numpy_file("{'descr': '<f4', " + ok, {});
  short_header.resize(40);
  cases.push_back({short_header, "truncated .npy header"});
  for (const Case& c : cases) {
    const std::string msg = refusal(c.file);
    EXPECT_NE(msg.find("t.npy: "), std::string::npos) << "accepted or unnamed: " << c.expect;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "message: " << msg;
  }
}

TEST(Npy, TruncationsAndCorruptionsNeverMisread) {
  std::mt19937_64 rng(test_seed());
  std::vector<Fp16> v(37);
  for (auto& x : v) x = Fp16{uint16_t(rng())};
  const std::vector<uint8_t> good = serialize_npy(NpyArray::from_fp16({37}, v));
  // Every truncation is refused.
  for (size_t n = 0; n < good.size(); ++n) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + ptrdiff_t(n));
    EXPECT_FALSE(refusal(cut).empty()) << "accepted a file cut to " << n << " bytes";
  }
  // Corrupted header bytes: refused, or read with a consistent size.
  int refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bad = good;
    const size_t at = size_t(rng() % 128);
    bad[at] = uint8_t(rng());
    try {
      const NpyArray a = parse_npy(bad, "t.npy");
      EXPECT_EQ(a.bytes.size(), a.count() * npy_item_size(a.type));
    } catch (const NpyError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
}

TEST(Npy, MissingFilesAndFoldersAreClearErrors) {
  try {
    read_npy("/nonexistent/x.npy");
    FAIL() << "read a missing file";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.npy: cannot open"), std::string::npos);
  }
  EXPECT_THROW(write_npy("/nonexistent/x.npy", NpyArray::from_uint8({1}, std::vector<uint8_t>{1})),
               NpyError);
  EXPECT_FALSE(std::filesystem::exists("/nonexistent/x.npy.tmp"));
  EXPECT_THROW(NpyArray::from_uint8({2}, std::vector<uint8_t>{1}), NpyError);
  EXPECT_THROW(NpyArray::from_uint8({1}, std::vector<uint8_t>{1}).to_fp16("x"), NpyError);
  EXPECT_THROW(NpyArray::from_int32({1}, std::vector<int32_t>{256}).to_uint8("x"), NpyError);
}

}  // namespace
}  // namespace oasis
