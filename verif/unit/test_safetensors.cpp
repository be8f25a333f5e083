// SPDX-License-Identifier: Apache-2.0
// model/safetensors: F16, BF16, F32 and F64 tensors read by name and rounded
// once to binary16; every kind of malformed file refused with one message
// naming the file and the problem; a seeded fuzz of mutated headers (text
// edits, numbers, dtypes, offsets, the length field, truncation) in which
// every file is either refused with SafetensorsError or read with an index an
// independent check finds consistent. Files are written by the test itself.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/io/safetensors.hpp"
#include "verif/unit/safetensors_writer.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

using test::StTensor;

using test::test_seed;

std::string refusal(const std::vector<uint8_t>& file) {
  try {
    SafetensorsFile::parse(file, "t.safetensors");
  } catch (const SafetensorsError& e) {
    return e.what();
  }
  return "";
}

// A checkpoint of every dtype the reader converts, with values that show one rounding.
std::vector<StTensor> float_tensors() {
  return {
      {"a.f16",
       "F16",
       {2, 2},
       test::f16_bytes({Fp16{0x3C00}, Fp16{0x8001}, Fp16{0x7BFF}, Fp16{0xFC00}})},
      // BF16: 1, 65536 (Inf in binary16), 2^-25 (a tie: to 0), 1.5 * 2^-25 (up to 2^-24),
      // -1.0078125, a NaN.
      {"b.bf16", "BF16", {6}, test::bf16_bytes({0x3F80, 0x4780, 0x3300, 0x3340, 0xBF81, 0x7FC1})},
      // F32: the ties 1 + 2^-11 (to 1) and 1 + 3 * 2^-11 (up), 65520 (to Inf), -0.
      {"c.f32",
       "F32",
       {1, 4},
       test::f32_bytes({1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 65520.0f, -0.0f})},
      // F64: 1 + 2^-11 + 2^-40 rounds up once; through binary32 it would round twice, to 1.
      {"d.f64", "F64", {2}, test::f64_bytes({1.0 + 0x1p-11 + 0x1p-40, -3.0})},
      {"e.i32", "I32", {1}, std::vector<uint8_t>(4, 0)},
      {"f.empty", "F16", {0, 3}, {}},
  };
}

TEST(Safetensors, ReadsEveryFloatDtypeByNameRoundingOnce) {
  const std::vector<uint8_t> bytes =
      test::safetensors_file(float_tensors(), "\"format\":\"pt\",\"note\":\"x\"");
  const SafetensorsFile f = SafetensorsFile::parse(bytes, "t.safetensors");
  ASSERT_EQ(f.tensors().size(), 6u);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.tensor("a.f16").shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(f.tensor("f.empty").count(), 0u);
  auto bits = [&](const std::string& name) {
    std::vector<uint16_t> b;
    for (const Fp16 h : f.read_fp16(name)) b.push_back(h.bits);
    return b;
  };
  EXPECT_EQ(bits("a.f16"), (std::vector<uint16_t>{0x3C00, 0x8001, 0x7BFF, 0xFC00}));
  const std::vector<uint16_t> bf = bits("b.bf16");
  ASSERT_EQ(bf.size(), 6u);
  EXPECT_EQ(std::vector<uint16_t>(bf.begin(), bf.begin() + 5),
            (std::vector<uint16_t>{0x3C00, 0x7C00, 0x0000, 0x0001, 0xBC08}));
  EXPECT_TRUE(is_nan(Fp16{bf[5]}));
  EXPECT_EQ(bits("c.f32"), (std::vector<uint16_t>{0x3C00, 0x3C02, 0x7C00, 0x8000}));
  EXPECT_EQ(bits("d.f64"), (std::vector<uint16_t>{0x3C01, 0xC200}));
  EXPECT_TRUE(f.read_fp16("f.empty").empty());
  // The same from a file on disk.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("oasis_st_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  test::write_file(path, bytes);
  const SafetensorsFile g = SafetensorsFile::open(path);
  EXPECT_EQ(g.read_fp16("c.f32"), f.read_fp16("c.f32"));
  EXPECT_EQ(g.read_fp16("b.bf16").size(), 6u);
  std::filesystem::remove(path);
}

TEST(Safetensors, NamesWhatIsThereWhenATensorIsMissingOrNotFloat) {
  const SafetensorsFile f =
      SafetensorsFile::parse(test::safetensors_file(float_tensors()), "t.safetensors");
  try {
    f.read_fp16("model.nope");
    FAIL() << "read a missing tensor";
  } catch (const SafetensorsError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("t.safetensors: no tensor 'model.nope'; the file has: a.f16, b.bf16"),
              std::string::npos)
        << m;
  }
  try {
    f.read_fp16("e.i32");
    FAIL() << "read an I32 tensor as binary16";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("dtype I32; allowed: F16, BF16, F32, F64"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(SafetensorsFile::open("/nonexistent/x.safetensors"), SafetensorsError);
}

TEST(Safetensors, RefusesEveryKindOfMalformedFile) {
  const std::vector<uint8_t> four(4, 0);
  auto file = [](const std::string& header, const std::vector<uint8_t>& data) {
    return test::safetensors_bytes(header, data);
  };
  const std::string ok = "\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]";
  struct Case {
    std::vector<uint8_t> file;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{}, "truncated: 0 bytes"},
      {{1, 0, 0}, "truncated: 3 bytes"},
      {file("{\"a\":{" + ok + "}}", four), ""},  // the good one, accepted
      {file("{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,4]}}", four),
       "tensor 'a': unknown dtype 'Q4'; known: BOOL"},
      {file("{\"a\":{" + ok + "},\"a\":{" + ok + "}}", four), "tensor name 'a' appears twice"},
      {file("{\"a\":{" + ok + ",\"dtype\":\"F16\"}}", four), "key 'dtype' appears twice"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,8]}}", four),
       "data_offsets [0, 8] are not a range inside the 4 bytes"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[4,2]}}", four),
       "are not a range"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[2,4]}}",
            four),
       "overlap"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[2,4]}}", four),
       "data bytes [0, 2) belong to no tensor"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]}}", four),
       "after the last tensor belong to no tensor"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,4]}}", four),
       "shape [3] of F16 needs 6 bytes, data_offsets [0, 4] hold 4"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[4294967296,4294967296],"
            "\"data_offsets\":[0,4]}}",
            four),
       "needs more than 2^64 bytes"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[-2],\"data_offsets\":[0,4]}}", four),
       "a shape entry is -2; allowed: a non-negative integer"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[2.0],\"data_offsets\":[0,4]}}", four),
       "a shape entry is 2.0"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0]}}", four),
       "data_offsets is [0]; allowed: [begin, end]"},
      {file("{\"a\":{\"dtype\":\"F16\",\"shape\":[2]}}", four), "tensor 'a' has no 'data_offsets'"},
      {file("{\"a\":{" + ok + ",\"extra\":1}}", four), "has key 'extra'"},
      {file("{\"a\":[1,2]}", four), "tensor 'a' is array"},
      {file("[1,2]", four), "the header is a JSON array"},
      {file("{\"a\":{" + ok + "}", four), "is not valid JSON"},
      {file("{\"__metadata__\":{\"k\":3},\"a\":{" + ok + "}}", four), "__metadata__ 'k' is 3"},
  };
  // Header length past the end of the file.
  std::vector<uint8_t> past = file("{\"a\":{" + ok + "}}", four);
  past[0] = 0xF0;
  cases.push_back({past, "header length 240 runs past the end of the file"});
  std::vector<uint8_t> huge = past;
  huge[7] = 0x80;
  cases.push_back({huge, "runs past the end of the file"});
  // Truncated data.
  std::vector<uint8_t> cut = file("{\"a\":{" + ok + "}}", four);
  cut.resize(cut.size() - 1);
  cases.push_back({cut, "not a range inside the 3 bytes of data"});
  for (const Case& c : cases) {
    const std::string msg = refusal(c.file);
    if (c.expect.empty()) {
      EXPECT_EQ(msg, "") << "refused the good file";
      continue;
    }
    EXPECT_EQ(msg.find("t.safetensors: "), 0u)
        << "accepted or unnamed: " << c.expect << " / " << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "message: " << msg;
  }
}

// The index of an accepted file, checked without the reader's own code: names unique, every
// range inside the data, ranges tiling the data exactly, bytes matching shape and dtype,
// float tensors readable.
void check_accepted(const SafetensorsFile& f, const std::vector<uint8_t>& file,
                    const std::string& where) {
  ASSERT_GE(file.size(), 8u) << where;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | file[size_t(i)];
  ASSERT_LE(n, file.size() - 8) << where;
  const uint64_t data = file.size() - 8 - n;
  std::set<std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const SafetensorsTensor& t : f.tensors()) {
    ASSERT_TRUE(names.insert(t.name).second) << "name twice: " << t.name << " " << where;
    ASSERT_LE(t.begin, t.end) << where;
    ASSERT_LE(t.end, data) << where;
    const size_t item = safetensors_dtype_size(t.dtype);
    ASSERT_GT(item, 0u) << t.dtype << " " << where;
    long double bytes = item;
    for (const uint64_t d : t.shape) bytes *= d;
    ASSERT_EQ(bytes, (long double)(t.end - t.begin)) << t.name << " " << where;
    ranges.emplace_back(t.begin, t.end);
    if (safetensors_dtype_is_float(t.dtype)) {
      ASSERT_EQ(f.read_fp16(t.name).size(), t.count()) << where;
    }
  }
  std::sort(ranges.begin(), ranges.end());
  uint64_t at = 0;
  for (const auto& [b, e] : ranges) {
    ASSERT_EQ(b, at) << "hole or overlap " << where;
    at = e;
  }
  ASSERT_EQ(at, data) << "trailing data " << where;
}

TEST(Safetensors, FuzzedHeadersAreRefusedOrReadConsistently) {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::vector<StTensor> base = float_tensors();
  base.push_back({"g.u8", "U8", {3}, {1, 2, 3}});
  const std::string header = test::safetensors_header(base, "\"k\":\"v\"");
  std::vector<uint8_t> data;
  for (const StTensor& t : base) data.insert(data.end(), t.data.begin(), t.data.end());
  const std::string alphabet = "{}[],:\"0123456789-.eE aF16BU8I32_";
  const std::vector<std::string> dtypes = {"F16",  "BF16", "F32", "F64", "U8",     "I32",
                                           "BOOL", "Q4",   "f16", "",    "F8_E4M3"};
  int accepted = 0, refused = 0;
  const int trials = 20000;
  for (int trial = 0; trial < trials; ++trial) {
    std::string h = header;
    std::vector<uint8_t> d = data;
    const int edits = 1 + int(rng() % 3);
    int length_delta = 0;
    size_t cut = 0;
    bool name_twice = false;  // the last edit repeated a tensor under its own name
    for (int e = 0; e < edits; ++e) {
      const size_t at = h.empty() ? 0 : size_t(rng() % h.size());
      name_twice = false;
      switch (rng() % 9) {
        case 0:  // change one character
          if (!h.empty()) h[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:  // delete one
          if (!h.empty()) h.erase(at, 1);
          break;
        case 2:  // insert one
          h.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 3: {  // a number replaced by another: small, large, negative, fractional
          const size_t digit = h.find_first_of("0123456789", at);
          if (digit == std::string::npos) break;
          const size_t stop = h.find_first_not_of("0123456789", digit);
          const std::vector<std::string> numbers = {"0",
                                                    "1",
                                                    "2",
                                                    "3",
                                                    "4",
                                                    "7",
                                                    "8",
                                                    "12",
                                                    "40",
                                                    "18446744073709551615",
                                                    "18446744073709551616",
                                                    "-1",
                                                    "1.5",
                                                    "1e3"};
          h.replace(digit, stop - digit, numbers[rng() % numbers.size()]);
          break;
        }
        case 4: {  // a dtype replaced
          const size_t q = h.find("\"dtype\":\"", at);
          if (q == std::string::npos) break;
          const size_t v = q + 9, w = h.find('"', v);
          h.replace(v, w - v, dtypes[rng() % dtypes.size()]);
          break;
        }
        case 5: {  // a tensor's entry repeated, with its name or another
          const size_t q = h.find("\":{\"dtype\"", at);
          if (q == std::string::npos) break;
          const size_t start = h.rfind('"', q - 1), end = h.find('}', q);
          const std::string entry = h.substr(start, end + 1 - start);
          name_twice = rng() % 2 == 0;
          h.insert(end + 1, "," + (name_twice ? entry : "\"z" + entry.substr(1)));
          break;
        }
        case 6:  // the data section longer or shorter
          if (rng() % 2 && !d.empty()) {
            d.resize(d.size() - 1 - rng() % std::min<size_t>(d.size(), 8));
          } else {
            d.insert(d.end(), 1 + rng() % 8, 0x55);
          }
          break;
        case 7:  // the length field off
          length_delta = int(rng() % 17) - 8;
          break;
        default:  // the file cut short
          cut = 1 + rng() % 64;
          break;
      }
    }
    std::vector<uint8_t> file = test::safetensors_bytes(h, d);
    if (length_delta != 0) {
      uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = n << 8 | file[size_t(i)];
      n = uint64_t(int64_t(n) + length_delta);
      for (int i = 0; i < 8; ++i) file[size_t(i)] = uint8_t(n >> (8 * i));
    }
    if (cut > 0) file.resize(file.size() - std::min(cut, file.size()));
    const std::string where = "trial " + std::to_string(trial) + " seed " + std::to_string(seed);
    try {
      const SafetensorsFile f = SafetensorsFile::parse(file, "fuzz.safetensors");
      ASSERT_FALSE(name_twice) << "read a file with a tensor name twice, " << where;
      check_accepted(f, file, where);
      if (::testing::Test::HasFatalFailure()) return;
      ++accepted;
    } catch (const SafetensorsError& e) {
      ASSERT_EQ(std::string(e.what()).find("fuzz.safetensors: "), 0u) << e.what() << " " << where;
      ++refused;
    }
  }
  std::printf("fuzz: %d mutated files, %d read, %d refused (seed %llu)\n", trials, accepted,
              refused, static_cast<unsigned long long>(seed));
  EXPECT_EQ(accepted + refused, trials);
  // Both outcomes are common: a fuzz that only refused (or only accepted) would test little.
  EXPECT_GT(accepted, trials / 50) << "accepted " << accepted;
  EXPECT_GT(refused, trials / 2) << "refused " << refused;
}

}  // namespace
}  // namespace oasis
