// SPDX-License-Identifier: Apache-2.0
#include "model/io/npy.hpp"

#include <fmt/format.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "model/io/input.hpp"

namespace oasis {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// A header this long is far beyond any NumPy writes (a few hundred bytes).
constexpr uint64_t kMaxHeaderBytes = 1 << 20;

[[noreturn]] void fail(const std::string& origin, const std::string& what) {
  throw NpyError(fmt::format("{}: {}", origin, what));
}

// Text from a file for a message: at most 120 characters, on one line (bytes outside printable
// ASCII as \xNN).
std::string printable(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (out.size() >= 120) return out + "...";
    const auto c = static_cast<unsigned char>(ch);
    out += c >= 0x20 && c < 0x7F ? std::string(1, ch) : fmt::format("\\x{:02x}", c);
  }
  return out;
}

// The header is a Python dict literal; this reads exactly the subset NumPy
// writes: string values, True/False and tuples of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& origin) : s_(text), origin_(origin) {}

  void parse(std::string* descr, bool* fortran, std::vector<size_t>* shape) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip();
    expect('{');
    for (;;) {
      skip();
      if (peek() == '}') break;
      const std::string key = string_literal();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') {
          bad("'descr' is not a simple type (structured arrays are not supported)");
        }
        *descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        *fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        *shape = tuple();
        seen_shape = true;
      } else {
        bad(fmt::format("unexpected header key '{}'", printable(key)));
      }
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip();
      if (peek() != '}') bad("expected ',' or '}' in the header");
    }
    ++i_;
    if (!seen_descr || !seen_fortran || !seen_shape) {
      bad("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    skip();
    if (i_ != s_.size()) bad("trailing characters after the header dict");
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail(origin_, fmt::format("malformed .npy header ({}): {}", what, printable(s_)));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) bad(fmt::format("expected '{}'", c));
    ++i_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) out += s_[i_++];
    if (i_ >= s_.size()) bad("unterminated string");
    ++i_;
    return out;
  }
  bool boolean() {
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    bad("'fortran_order' is neither True nor False");
  }
  std::vector<size_t> tuple() {
    std::vector<size_t> dims;
    expect('(');
    for (;;) {
      skip();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad("shape entries must be non-negative integers");
      uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (std::numeric_limits<uint64_t>::max() - 9) / 10) bad("shape entry too large");
        v = v * 10 + uint64_t(peek() - '0');
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2 long literal
      dims.push_back(size_t(v));
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip();
      if (peek() != ')') bad("expected ',' or ')' in the shape");
    }
    ++i_;
    return dims;
  }

  const std::string& s_;
  const std::string& origin_;
  size_t i_ = 0;
};

NpyType type_from_descr(const std::string& descr, const std::string& origin) {
  if (descr == "<f2") return NpyType::kFloat16;
  if (descr == "<f4") return NpyType::kFloat32;
  if (descr == "<f8") return NpyType::kFloat64;
  if (descr == "|u1" || descr == "<u1" || descr == ">u1") return NpyType::kUint8;
  if (descr == "<i4") return NpyType::kInt32;
  fail(origin, fmt::format("unsupported element type '{}'; supported: '<f2' (float16), '<f4' "
                           "(float32), '<f8' (float64), '|u1' (uint8), '<i4' (int32), "
                           "little-endian",
                           printable(descr)));
}

const char* descr_of(NpyType type) {
  switch (type) {
    case NpyType::kFloat16:
      return "<f2";
    case NpyType::kFloat32:
      return "<f4";
    case NpyType::kFloat64:
      return "<f8";
    case NpyType::kUint8:
      return "|u1";
    case NpyType::kInt32:
      return "<i4";
  }
  return "?";
}

std::string shape_text(const std::vector<size_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

template <typename T>
NpyArray from_values(NpyType type, std::vector<size_t> shape, std::span<const T> values) {
  NpyArray a;
  a.type = type;
  a.shape = std::move(shape);
  if (a.count() != values.size()) {
    throw NpyError(
        fmt::format("array of shape {} given {} values", shape_text(a.shape), values.size()));
  }
  a.bytes.resize(values.size() * sizeof(T));
  static_assert(std::endian::native == std::endian::little,
                "the model assumes a little-endian host");
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

template <typename T>
T load(const NpyArray& a, size_t i) {
  T v;
  std::memcpy(&v, a.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

const char* npy_type_name(NpyType type) {
  switch (type) {
    case NpyType::kFloat16:
      return "float16";
    case NpyType::kFloat32:
      return "float32";
    case NpyType::kFloat64:
      return "float64";
    case NpyType::kUint8:
      return "uint8";
    case NpyType::kInt32:
      return "int32";
  }
  return "?";
}

size_t npy_item_size(NpyType type) {
  switch (type) {
    case NpyType::kFloat16:
      return 2;
    case NpyType::kFloat32:
      return 4;
    case NpyType::kFloat64:
      return 8;
    case NpyType::kUint8:
      return 1;
    case NpyType::kInt32:
      return 4;
  }
  return 0;
}

size_t NpyArray::count() const {
  size_t n = 1;
  for (const size_t d : shape) n *= d;
  return n;
}

NpyArray NpyArray::from_fp16(std::vector<size_t> shape, std::span<const Fp16> values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) bits[i] = values[i].bits;
  return from_values<uint16_t>(NpyType::kFloat16, std::move(shape), bits);
}
NpyArray NpyArray::from_float(std::vector<size_t> shape, std::span<const float> values) {
  return from_values<float>(NpyType::kFloat32, std::move(shape), values);
}
NpyArray NpyArray::from_double(std::vector<size_t> shape, std::span<const double> values) {
  return from_values<double>(NpyType::kFloat64, std::move(shape), values);
}
NpyArray NpyArray::from_uint8(std::vector<size_t> shape, std::span<const uint8_t> values) {
  return from_values<uint8_t>(NpyType::kUint8, std::move(shape), values);
}
NpyArray NpyArray::from_int32(std::vector<size_t> shape, std::span<const int32_t> values) {
  return from_values<int32_t>(NpyType::kInt32, std::move(shape), values);
}

std::vector<Fp16> NpyArray::to_fp16(const std::string& what) const {
  std::vector<Fp16> out(count());
  if (type == NpyType::kFloat16) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = Fp16{load<uint16_t>(*this, i)};
  } else if (type == NpyType::kFloat32) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = oasis::to_fp16(Fp32{load<uint32_t>(*this, i)});
  } else if (type == NpyType::kFloat64) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = fp16_from_double(load<double>(*this, i));
  } else {
    throw NpyError(fmt::format("{}: element type {}; allowed: float16, float32 or float64", what,
                               npy_type_name(type)));
  }
  return out;
}

std::vector<float> NpyArray::to_float(const std::string& what) const {
  std::vector<float> out(count());
  if (type == NpyType::kFloat32) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = load<float>(*this, i);
  } else if (type == NpyType::kFloat16) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = std::bit_cast<float>(to_fp32(Fp16{load<uint16_t>(*this, i)}).bits);
    }
  } else if (type == NpyType::kFloat64) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = std::bit_cast<float>(fp32_from_double(load<double>(*this, i)).bits);
    }
  } else {
    throw NpyError(fmt::format("{}: element type {}; allowed: float16, float32 or float64", what,
                               npy_type_name(type)));
  }
  return out;
}

std::vector<double> NpyArray::to_double(const std::string& what) const {
  if (type == NpyType::kFloat64) {
    std::vector<double> out(count());
    for (size_t i = 0; i < out.size(); ++i) out[i] = load<double>(*this, i);
    return out;
  }
  const std::vector<float> f = to_float(what);  // exact for float16 and float32
  return std::vector<double>(f.begin(), f.end());
}

std::vector<uint8_t> NpyArray::to_uint8(const std::string& what) const {
  std::vector<uint8_t> out(count());
  if (type == NpyType::kUint8) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = bytes[i];
  } else if (type == NpyType::kInt32) {
    for (size_t i = 0; i < out.size(); ++i) {
      const int32_t v = load<int32_t>(*this, i);
      if (v < 0 || v > 255) {
        throw NpyError(fmt::format("{}: element {} is {}; allowed: 0..255", what, i, v));
      }
      out[i] = uint8_t(v);
    }
  } else {
    throw NpyError(
        fmt::format("{}: element type {}; allowed: uint8 or int32", what, npy_type_name(type)));
  }
  return out;
}

NpyArray parse_npy(std::span<const uint8_t> file, const std::string& origin) {
  if (file.size() < 10 || std::memcmp(file.data(), kMagic, 6) != 0) {
    fail(origin, "not a .npy file (no \\x93NUMPY magic, or shorter than a header)");
  }
  const int major = file[6];
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = size_t(file[8]) | size_t(file[9]) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) fail(origin, "truncated .npy header");
    header_len =
        size_t(file[8]) | size_t(file[9]) << 8 | size_t(file[10]) << 16 | size_t(file[11]) << 24;
    offset = 12;
  } else {
    fail(origin,
         fmt::format(".npy format version {}.{}; supported: 1.0, 2.0, 3.0", major, int(file[7])));
  }
  if (file.size() - offset < header_len) {
    fail(origin, fmt::format("truncated .npy header: {} bytes announced, {} present", header_len,
                             file.size() - offset));
  }
  std::string header(reinterpret_cast<const char*>(file.data() + offset), header_len);
  while (!header.empty() &&
         (header.back() == '\n' || header.back() == ' ' || header.back() == '\0')) {
    header.pop_back();
  }
  std::string descr;
  bool fortran = false;
  NpyArray a;
  HeaderParser(header, origin).parse(&descr, &fortran, &a.shape);
  a.type = type_from_descr(descr, origin);
  if (fortran) fail(origin, "Fortran-order array; supported: C order only");
  const size_t item = npy_item_size(a.type);
  size_t count = 1;
  for (const size_t d : a.shape) {
    if (d != 0 && count > std::numeric_limits<size_t>::max() / item / d) {
      fail(origin, fmt::format("shape {} is too large", shape_text(a.shape)));
    }
    count *= d;
  }
  if (count * item > kTensorBytesBudget) {
    fail(origin,
         fmt::format("shape {} of {} is {} bytes; allowed: at most {} bytes (the memory "
                     "budget for one tensor)",
                     shape_text(a.shape), npy_type_name(a.type), count * item, kTensorBytesBudget));
  }
  const size_t data = file.size() - offset - header_len;
  if (data != count * item) {
    fail(origin, fmt::format("{} data: shape {} of {} needs {} bytes, the file holds {}",
                             data < count * item ? "truncated" : "unexpected trailing",
                             shape_text(a.shape), npy_type_name(a.type), count * item, data));
  }
  a.bytes.assign(file.begin() + ptrdiff_t(offset + header_len), file.end());
  return a;
}

std::vector<uint8_t> serialize_npy(const NpyArray& a) {
  if (a.bytes.size() != a.count() * npy_item_size(a.type)) {
    throw NpyError(fmt::format("array of shape {} and type {} holds {} bytes", shape_text(a.shape),
                               npy_type_name(a.type), a.bytes.size()));
  }
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   descr_of(a.type), shape_text(a.shape));
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xFFFF) throw NpyError("array header too long for a version 1.0 file");
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(uint8_t(header.size() & 0xFF));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  return out;
}

NpyArray read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a folder; allowed: a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, fmt::format("cannot open: {}", std::strerror(errno)));
  // The whole file is read: one larger than a tensor may be (and a header) is refused first.
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kTensorBytesBudget + kMaxHeaderBytes) {
    fail(path, fmt::format("{} bytes; allowed: at most {} bytes of data (the memory budget for "
                           "one tensor)",
                           size, kTensorBytesBudget));
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return parse_npy(bytes, path);
}

void write_npy(const std::string& path, const NpyArray& array) {
  const std::vector<uint8_t> bytes = serialize_npy(array);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, fmt::format("cannot write: {}", std::strerror(errno)));
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      fail(path, "write error");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    fail(path, fmt::format("cannot write: {}", ec.message()));
  }
}

}  // namespace oasis
