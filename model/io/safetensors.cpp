// SPDX-License-Identifier: Apache-2.0
#include "model/io/safetensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/io/input.hpp"

namespace oasis {
namespace {

// The header's order is kept (tensors() lists the tensors as the file does).
using json = nlohmann::ordered_json;

// The format's own limit on the header, against files that announce gigabytes of JSON.
constexpr uint64_t kMaxHeader = 100'000'000;

const std::vector<std::pair<std::string, size_t>>& dtypes() {
  static const std::vector<std::pair<std::string, size_t>> d = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
  return d;
}

std::string dtype_list() {
  std::vector<std::string> names;
  for (const auto& [name, size] : dtypes()) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

[[noreturn]] void refuse(const std::string& origin, const std::string& what) {
  throw SafetensorsError(fmt::format("{}: {}", origin, what));
}

uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

std::string shape_list(const std::vector<uint64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// A non-negative integer from the header, or a refusal naming where it was.
uint64_t unsigned_field(const json& v, const std::string& origin, const std::string& where) {
  if (!v.is_number_unsigned()) {
    refuse(origin,
           fmt::format("{} is {}; allowed: a non-negative integer", where, json_excerpt(v)));
  }
  return v.get<uint64_t>();
}

}  // namespace

uint64_t SafetensorsTensor::count() const {
  uint64_t n = 1;
  for (const uint64_t d : shape) n *= d;
  return n;
}

size_t safetensors_dtype_size(const std::string& dtype) {
  for (const auto& [name, size] : dtypes()) {
    if (name == dtype) return size;
  }
  return 0;
}

bool safetensors_dtype_is_float(const std::string& dtype) {
  return dtype == "F16" || dtype == "BF16" || dtype == "F32" || dtype == "F64";
}

SafetensorsFile SafetensorsFile::parse_header(std::span<const uint8_t> header, uint64_t data_size,
                                              const std::string& origin) {
  // A header holds objects two deep and a shape's numbers three deep.
  json doc;
  try {
    doc = parse_ordered_json_input(
        std::string_view(reinterpret_cast<const char*>(header.data()), header.size()),
        JsonLimits{kMaxHeader, 8});
  } catch (const JsonInputError& e) {
    const std::string what = e.what();
    if (e.kind() == JsonInputError::Kind::kDuplicateKey) {
      refuse(origin, e.depth() == 1
                         ? fmt::format("tensor name '{}' appears twice in the header", e.key())
                         : fmt::format("key '{}' appears twice in one header entry", e.key()));
    }
    refuse(origin, fmt::format("the {}-byte header{} {}", header.size(),
                               e.kind() == JsonInputError::Kind::kSyntax ? "" : ":", what));
  }
  if (!doc.is_object()) {
    refuse(origin,
           fmt::format("the header is a JSON {}; allowed: an object of tensors", doc.type_name()));
  }
  SafetensorsFile f;
  f.origin_ = origin;
  for (const auto& [name, entry] : doc.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) refuse(origin, "__metadata__ is not an object of strings");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) {
          refuse(origin, fmt::format("__metadata__ '{}' is {}; allowed: a string", key,
                                     json_excerpt(value)));
        }
        f.metadata_[key] = value.get<std::string>();
      }
      continue;
    }
    const std::string where = fmt::format("tensor '{}'", name);
    if (!entry.is_object()) {
      refuse(origin, fmt::format("{} is {}; allowed: an object with dtype, shape, data_offsets",
                                 where, entry.type_name()));
    }
    for (const auto& [key, value] : entry.items()) {
      if (key != "dtype" && key != "shape" && key != "data_offsets") {
        refuse(origin,
               fmt::format("{} has key '{}'; allowed: dtype, shape, data_offsets", where, key));
      }
    }
    for (const char* key : {"dtype", "shape", "data_offsets"}) {
      if (!entry.contains(key)) refuse(origin, fmt::format("{} has no '{}'", where, key));
    }
    SafetensorsTensor t;
    t.name = name;
    const json& dtype = entry["dtype"];
    if (!dtype.is_string())
      refuse(origin, fmt::format("{}: dtype is {}", where, json_excerpt(dtype)));
    t.dtype = dtype.get<std::string>();
    const size_t item = safetensors_dtype_size(t.dtype);
    if (item == 0) {
      refuse(origin,
             fmt::format("{}: unknown dtype '{}'; known: {}", where, t.dtype, dtype_list()));
    }
    const json& shape = entry["shape"];
    if (!shape.is_array())
      refuse(origin, fmt::format("{}: shape is {}", where, json_excerpt(shape)));
    uint64_t bytes = item;
    bool overflow = false;
    for (const json& d : shape) {
      t.shape.push_back(unsigned_field(d, origin, where + ": a shape entry"));
      overflow = overflow || __builtin_mul_overflow(bytes, t.shape.back(), &bytes);
    }
    const json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2) {
      refuse(origin, fmt::format("{}: data_offsets is {}; allowed: [begin, end]", where,
                                 json_excerpt(offsets)));
    }
    t.begin = unsigned_field(offsets[0], origin, where + ": data_offsets[0]");
    t.end = unsigned_field(offsets[1], origin, where + ": data_offsets[1]");
    if (t.begin > t.end || t.end > data_size) {
      refuse(origin, fmt::format("{}: data_offsets [{}, {}] are not a range inside the {} bytes of "
                                 "data",
                                 where, t.begin, t.end, data_size));
    }
    if (overflow || bytes != t.end - t.begin) {
      refuse(origin, fmt::format("{}: shape {} of {} needs {} bytes, data_offsets [{}, {}] hold {}",
                                 where, shape_list(t.shape), t.dtype,
                                 overflow ? std::string("more than 2^64") : std::to_string(bytes),
                                 t.begin, t.end, t.end - t.begin));
    }
    f.by_name_[t.name] = f.tensors_.size();
    f.tensors_.push_back(std::move(t));
  }
  // The ranges tile the data: sorted, each starts where the one before ends, the last ends
  // at the end of the data.
  std::vector<const SafetensorsTensor*> order;
  for (const SafetensorsTensor& t : f.tensors_) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t at = 0;
  const SafetensorsTensor* previous = nullptr;
  for (const SafetensorsTensor* t : order) {
    if (t->begin < at) {
      refuse(origin, fmt::format("tensors '{}' [{}, {}) and '{}' [{}, {}) overlap", previous->name,
                                 previous->begin, previous->end, t->name, t->begin, t->end));
    }
    if (t->begin > at) {
      refuse(origin, fmt::format("data bytes [{}, {}) belong to no tensor (the format allows no "
                                 "holes)",
                                 at, t->begin));
    }
    at = t->end;
    previous = t;
  }
  if (at != data_size) {
    refuse(origin, fmt::format("data bytes [{}, {}) after the last tensor belong to no tensor", at,
                               data_size));
  }
  return f;
}

SafetensorsFile SafetensorsFile::parse(std::span<const uint8_t> file, const std::string& origin) {
  if (file.size() < 8) {
    refuse(origin,
           fmt::format("truncated: {} bytes, not even the 8-byte header length", file.size()));
  }
  const uint64_t n = load_u64(file.data());
  if (n > file.size() - 8) {
    refuse(origin, fmt::format("header length {} runs past the end of the file ({} bytes)", n,
                               file.size()));
  }
  if (n > kMaxHeader) {
    refuse(origin,
           fmt::format("header length {} is above the format's limit of {} bytes", n, kMaxHeader));
  }
  SafetensorsFile f = parse_header(file.subspan(8, n), file.size() - 8 - n, origin);
  f.bytes_.assign(file.begin(), file.end());
  f.data_offset_ = 8 + n;
  return f;
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) refuse(path, fmt::format("cannot read its size: {}", ec.message()));
  if (size < 8) {
    refuse(path, fmt::format("truncated: {} bytes, not even the 8-byte header length", size));
  }
  uint8_t len[8];
  in.read(reinterpret_cast<char*>(len), 8);
  const uint64_t n = load_u64(len);
  if (n > size - 8) {
    refuse(path, fmt::format("header length {} runs past the end of the file ({} bytes)", n, size));
  }
  if (n > kMaxHeader) {
    refuse(path,
           fmt::format("header length {} is above the format's limit of {} bytes", n, kMaxHeader));
  }
  std::vector<uint8_t> header(n);
  in.read(reinterpret_cast<char*>(header.data()), std::streamsize(n));
  if (!in) refuse(path, "read error in the header");
  SafetensorsFile f = parse_header(header, size - 8 - n, path);
  f.path_ = path;
  f.data_offset_ = 8 + n;
  return f;
}

const SafetensorsTensor& SafetensorsFile::tensor(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < tensors_.size() && i < 8; ++i) names.push_back(tensors_[i].name);
    if (tensors_.size() > 8) names.push_back(fmt::format("... ({} in all)", tensors_.size()));
    refuse(origin_, fmt::format("no tensor '{}'; the file has: {}", name,
                                names.empty() ? std::string("none")
                                              : fmt::format("{}", fmt::join(names, ", "))));
  }
  return tensors_[it->second];
}

std::vector<uint8_t> SafetensorsFile::read_bytes(const std::string& name) const {
  const SafetensorsTensor& t = tensor(name);
  const uint64_t n = t.end - t.begin;
  if (n > kTensorBytesBudget) {
    refuse(origin_, fmt::format("tensor '{}' is {} bytes; allowed: at most {} bytes (the memory "
                                "budget for one tensor)",
                                name, n, kTensorBytesBudget));
  }
  if (path_.empty()) {
    const auto* p = bytes_.data() + data_offset_ + t.begin;
    return std::vector<uint8_t>(p, p + n);
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) refuse(origin_, fmt::format("cannot open: {}", std::strerror(errno)));
  std::vector<uint8_t> out(n);
  in.seekg(std::streamoff(data_offset_ + t.begin));
  in.read(reinterpret_cast<char*>(out.data()), std::streamsize(n));
  if (!in) refuse(origin_, fmt::format("tensor '{}': read error (did the file change?)", name));
  return out;
}

std::vector<Fp16> SafetensorsFile::read_fp16(const std::string& name) const {
  const SafetensorsTensor& t = tensor(name);
  if (!safetensors_dtype_is_float(t.dtype)) {
    refuse(origin_,
           fmt::format("tensor '{}' has dtype {}; allowed: F16, BF16, F32, F64", name, t.dtype));
  }
  const std::vector<uint8_t> raw = read_bytes(name);
  const size_t n = raw.size() / safetensors_dtype_size(t.dtype);
  std::vector<Fp16> out(n);
  const uint8_t* p = raw.data();
  auto le = [p](size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[at + size_t(i)];
    return v;
  };
  if (t.dtype == "F16") {
    for (size_t i = 0; i < n; ++i) out[i] = Fp16{uint16_t(le(2 * i, 2))};
  } else if (t.dtype == "BF16") {
    // BF16 is the top half of a binary32: widened exactly, then rounded once.
    for (size_t i = 0; i < n; ++i) out[i] = to_fp16(Fp32{uint32_t(le(2 * i, 2)) << 16});
  } else if (t.dtype == "F32") {
    for (size_t i = 0; i < n; ++i) out[i] = to_fp16(Fp32{uint32_t(le(4 * i, 4))});
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = fp16_from_double(std::bit_cast<double>(le(8 * i, 8)));
  }
  return out;
}

}  // namespace oasis
