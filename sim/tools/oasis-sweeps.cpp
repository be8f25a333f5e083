// SPDX-License-Identifier: Apache-2.0
// oasis-sweeps (run by the build; docs/testing.md): reads the sweeps, sim/sweeps/<block>.txt
// (sim/tools/sweeps.hpp), and writes the tests they define as a CTest script, which CTest
// includes from the build folder (verif/CMakeLists.txt), and the runs as read as JSON, one
// object a kind of run of a label (block, kind, label, config, sets, tb_args).
//
//   oasis-sweeps --build DIR --ctest FILE [--json FILE] [--source DIR]
//
// A file is written only when its text changes, so that CTest and the build see no change
// when the tables have none. A program of its own, not one of the commands (tools/commands.hpp):
// CTest has the sweeps' tests once it is built, in seconds. Bad input, a malformed row named by
// its file and line among them: one line on stderr, exit status 2, nothing written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/tools/sweeps.hpp"

namespace {

namespace fs = std::filesystem;

// Writes `text` to `path` unless it holds it already, through a temporary file renamed into
// place.
void write_if_changed(const fs::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return;
  }
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
  }
  fs::rename(tmp, path);
}

int run(int argc, char** argv) {
  std::string source = OASIS_SOURCE_DIR, build, ctest, json;
  CLI::App app{
      "oasis-sweeps: the tests of the sweeps, sim/sweeps/<block>.txt, as a CTest script "
      "(docs/testing.md)"};
  app.add_option("--build", build, "the build folder the tests run in")->required();
  app.add_option("--ctest", ctest, "the CTest script to write")->required();
  app.add_option("--json", json, "the runs as read, a JSON file to write");
  app.add_option("--source", source, "the project folder; default: the one this was built from")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "oasis-sweeps: %s (see oasis-sweeps --help)\n", e.what());
    return 2;
  }
  try {
    const std::vector<oasis::sweeps::Sweep> sweeps = oasis::sweeps::read(source);
    std::vector<std::string> left_out;
    const auto tests = oasis::sweeps::tests(sweeps, fs::absolute(source).string(),
                                            fs::absolute(build).string(), left_out);
    for (const auto& l : left_out) std::printf("oasis-sweeps: %s\n", l.c_str());
    write_if_changed(ctest, oasis::sweeps::ctest_script(tests, left_out));
    if (!json.empty()) write_if_changed(json, oasis::sweeps::runs_json(sweeps));
  } catch (const oasis::sweeps::SweepError& e) {
    std::fprintf(stderr, "oasis-sweeps: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oasis-sweeps: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
