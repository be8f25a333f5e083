// SPDX-License-Identifier: Apache-2.0
// The repository stands on its own and says its licence: every source file (C++, SystemVerilog,
// scripts, build files) names it in an SPDX line at its top, and nothing the project holds cites
// a document outside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace oasis::repository_test {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = OASIS_SOURCE_DIR;

// The project's own files: the top folder's and those of its source folders (a build folder
// inside the checkout, or any hidden folder but .ci, is not the project's).
std::vector<fs::path> project_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kRoot)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  for (const char* dir :
       {".ci", "configs", "docs", "gen", "model", "rtl", "sim", "tools", "verif"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  return files;
}

// The first `n` lines of a file.
std::vector<std::string> head(const fs::path& p, int n) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; int(lines.size()) < n && std::getline(in, l);) lines.push_back(l);
  return lines;
}

// Whether a file is source code: C++, SystemVerilog, a build file or a script.
bool is_source(const fs::path& p) {
  static const std::set<std::string> kExtensions = {".cpp", ".hpp", ".c",    ".h",
                                                    ".inc", ".sv",  ".cmake"};
  const std::string name = p.filename().string();
  if (kExtensions.count(p.extension().string()) || name == "CMakeLists.txt" || name == "Makefile") {
    return true;
  }
  const auto first = head(p, 1);
  return !first.empty() && first[0].starts_with("#!");
}

TEST(Repository, EverySourceFileCarriesTheSpdxLine) {
  int sources = 0;
  for (const fs::path& p : project_files()) {
    if (!is_source(p)) continue;
    ++sources;
    bool found = false;
    // Line 1, or line 2 after a script's #! line.
    for (const auto& line : head(p, 2)) {
      found = found || line.ends_with("SPDX-License-Identifier: Apache-2.0");
    }
    EXPECT_TRUE(found) << fs::relative(p, kRoot).string()
                       << ": no SPDX-License-Identifier: Apache-2.0 in its first two lines";
  }
  EXPECT_GT(sources, 100);
  EXPECT_TRUE(fs::exists(kRoot / "LICENSE"));
}

TEST(Repository, NothingCitesADocumentOutsideTheProject) {
  // Built in pieces so that this file does not hold them; a citation may span a line break
  // and the comment marks of the next line.
  const std::vector<std::regex> outside = {std::regex(std::string("SPEC") + "\\.md"),
                                           std::regex(std::string("SPEC") + "(\\s|//|#)+section"),
                                           std::regex(std::string("\\.\\./") + "shared"),
                                           std::regex(std::string("STYLE") + ":")};
  for (const fs::path& p : project_files()) {
    std::ifstream in(p, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& r : outside) {
      std::smatch m;
      EXPECT_FALSE(std::regex_search(text, m, r))
          << fs::relative(p, kRoot).string() << " cites '" << m.str() << "'";
    }
  }
}

}  // namespace
}  // namespace oasis::repository_test
