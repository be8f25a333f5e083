// SPDX-License-Identifier: Apache-2.0
// What many unit tests share: the shipped configs and the seed of their random stimuli. The
// test files are compiled several to a translation unit (a unity build, CMakeLists.txt), so a
// helper two files would both define goes here once.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace oasis::test {

/// The source folder (the build passes it in) and the configs in it.
inline const std::string kSource = OASIS_SOURCE_DIR;
inline const std::string kDefault = kSource + "/configs/default.json";
inline const std::string kPaper = kSource + "/configs/paper.json";

/// The seed of a test's random stimuli: the environment's SEED (make test passes it), else
/// `fallback`.
inline uint64_t test_seed(uint64_t fallback = 1) {
  const char* s = std::getenv("SEED");
  return s ? std::strtoull(s, nullptr, 0) : fallback;
}

/// A fresh folder under the system's temporary folder, named after the test and the process,
/// removed with everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("oasis_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace oasis::test
