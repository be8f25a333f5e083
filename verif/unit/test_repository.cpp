// SPDX-License-Identifier: Apache-2.0
// The repository stands on its own and says its licence: every source file (C++, SystemVerilog,
// scripts, build files) names it in an SPDX line at its top, and nothing the project holds cites
// a document outside it; and every citation of a page of docs/ (`docs/<page>.md`, or
// `docs/<page>.md, "<Heading>"`) names a page and a heading that exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
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

// The whole text of a file.
std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The headings of a Markdown page: the text after the #s of every `#`, `##`, ... line outside a
// fenced code block, trailing blanks removed.
std::set<std::string> headings(const fs::path& page) {
  static const std::regex kHeading("^#+[ \\t]+(.*?)[ \\t]*$");
  std::set<std::string> out;
  std::ifstream in(page);
  bool fenced = false;
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("```")) fenced = !fenced;
    std::smatch m;
    if (!fenced && std::regex_match(l, m, kHeading)) out.insert(m[1].str());
  }
  return out;
}

// A file's lines joined into one text, each line after the first stripped of its indentation
// and comment marks (//, ///, #, *, --) so that a citation may span a line break; `starts`
// holds where each line begins in that text.
std::string joined(const std::string& text, std::vector<size_t>& starts) {
  static const std::regex kLead("^[ \\t]*(///?|#+|\\*|--)?[ \\t]*");
  std::string out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!starts.empty()) {
      out += ' ';
      line = std::regex_replace(line, kLead, "", std::regex_constants::format_first_only);
    }
    starts.push_back(out.size());
    out += line;
    begin = end + 1;
  }
  return out;
}

TEST(Repository, EveryDocsCitationNamesAPageAndHeadingThatExist) {
  std::map<std::string, std::set<std::string>> pages;  // docs/<page>.md -> its headings
  for (const auto& e : fs::directory_iterator(kRoot / "docs")) {
    if (e.path().extension() == ".md") {
      pages["docs/" + e.path().filename().string()] = headings(e.path());
    }
  }
  ASSERT_FALSE(pages.empty());
  // A page, then optionally a comma and the quoted heading (which starts with no blank, so that
  // a C++ string literal that ends after "docs/<page>.md, " is not read as a citation).
  static const std::regex kCitation(
      "docs/([A-Za-z0-9_]+)\\.md(,[ ]*\"([^\"\\s\\\\][^\"]{0,199})\")?");
  int cited = 0;
  for (const fs::path& p : project_files()) {
    const std::string text = read(p);
    if (text.find('\0') != std::string::npos) continue;  // a binary file: no citations
    std::vector<size_t> starts;
    const std::string flat = joined(text, starts);
    const std::string file = fs::relative(p, kRoot).string();
    for (auto it = std::sregex_iterator(flat.begin(), flat.end(), kCitation);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      const size_t at = size_t(m.position(0));
      const size_t line =
          size_t(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin());
      const std::string page = "docs/" + m[1].str() + ".md";
      const auto found = pages.find(page);
      if (found == pages.end()) {
        ADD_FAILURE() << file << ":" << line << ": cites " << page << ", which does not exist";
        continue;
      }
      if (!m[3].matched) continue;
      ++cited;
      EXPECT_TRUE(found->second.count(m[3].str()))
          << file << ":" << line << ": cites " << page << ", \"" << m[3].str()
          << "\", which is no heading of that page";
    }
  }
  EXPECT_GT(cited, 20);  // the search finds the citations there are
}

}  // namespace
}  // namespace oasis::repository_test
