// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the .npy reader, as the oasis-model commands call it on every tensor file. An
// array it accepts is converted as the commands convert it (to binary16, float, double, bytes)
// and written back: the bytes written read back as the same array.
#include <span>

#include "model/io/npy.hpp"
#include "verif/fuzz/fuzz_target.hpp"

namespace {

// One conversion: the array's values, or a refusal naming the type.
template <typename Convert>
void convert(const Convert& f) {
  try {
    f();
  } catch (const oasis::NpyError& e) {
    oasis::fuzz::check_message(e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oasis::NpyArray a;
  try {
    a = oasis::parse_npy(std::span(data, size), "fuzz.npy");
  } catch (const oasis::NpyError& e) {
    oasis::fuzz::check_message(e.what());
    return 0;
  }
  if (a.bytes.size() != a.count() * oasis::npy_item_size(a.type)) {
    oasis::fuzz::broken("the array's bytes disagree with its shape");
  }
  convert([&] { return a.to_fp16("fuzz.npy").size(); });
  convert([&] { return a.to_float("fuzz.npy").size(); });
  convert([&] { return a.to_double("fuzz.npy").size(); });
  convert([&] { return a.to_uint8("fuzz.npy").size(); });
  std::vector<uint8_t> written;
  try {
    written = oasis::serialize_npy(a);
  } catch (const oasis::NpyError& e) {
    oasis::fuzz::check_message(e.what());  // a header too long for a version 1.0 file
    return 0;
  }
  const oasis::NpyArray back = oasis::parse_npy(written, "written.npy");
  if (back.type != a.type || back.shape != a.shape || back.bytes != a.bytes) {
    oasis::fuzz::broken("an array written back reads differently");
  }
  return 0;
}
