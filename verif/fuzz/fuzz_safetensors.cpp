// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the safetensors reader, as calibrate, quantize, quantize-all and gemm call it. A
// file it accepts has every tensor read, raw and (for the float dtypes) as binary16, and a name
// it does not hold refused.
#include <span>

#include "model/io/safetensors.hpp"
#include "verif/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const oasis::SafetensorsFile f = oasis::SafetensorsFile::parse(std::span(data, size), "fuzz");
    uint64_t bytes = 0;
    for (const oasis::SafetensorsTensor& t : f.tensors()) {
      const std::vector<uint8_t> raw = f.read_bytes(t.name);
      if (raw.size() != t.end - t.begin ||
          raw.size() != t.count() * oasis::safetensors_dtype_size(t.dtype)) {
        oasis::fuzz::broken("a tensor's bytes disagree with its shape");
      }
      bytes += raw.size();
      if (oasis::safetensors_dtype_is_float(t.dtype) && f.read_fp16(t.name).size() != t.count()) {
        oasis::fuzz::broken("a tensor's binary16 values disagree with its shape");
      }
    }
    if (bytes + 8 > size) oasis::fuzz::broken("the tensors hold more bytes than the file");
    f.tensor(std::string(1, '\0'));  // no tensor has this name: refused
  } catch (const oasis::SafetensorsError& e) {
    oasis::fuzz::check_message(e.what());
  }
  return 0;
}
