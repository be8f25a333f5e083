// SPDX-License-Identifier: Apache-2.0
// The oasis-perf command: its figures equal the library's (layer_perf,
// model_perf), the report folder holds the text, data and gnuplot scripts,
// and every kind of bad input gives one message, exit status 2 and nothing
// written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "model/config.hpp"
#include "model/perf/perf.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;

using test::CmdResult;

// stdout and stderr of one run
CmdResult run_perf(const std::string& args) {
  return test::run_command(gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-perf") + " " +
                           args + " 2>&1");
}

using test::kPaper;
using test::kSource;
const std::string kLlama = kSource + "/configs/models/llama2_7b.json";
// The same paths as words of run_perf()'s shell command.
const std::string kPaperArg = gen::shell_word(kPaper);
const std::string kModelsArg = gen::shell_word(kSource + "/configs/models");

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("oasis_perf_" + std::to_string(::getpid()) + "_" + name);
}

TEST(PerfCli, LayerEqualsTheLibrary) {
  const CmdResult r = run_perf("layer --config " + kPaperArg + " --rows 4096 --tokens 3 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const LayerPerf L = layer_perf(load_config(kPaper), 4096, PerfOptions{3, 0});
  EXPECT_EQ(j.at("cycles").get<int64_t>(), L.cycles);
  EXPECT_EQ(j.at("phases").at("gemm").get<int64_t>(), 2068);
  EXPECT_EQ(j.at("bound").get<std::string>(), phase_name(L.bound));
  // The FIGLUT-class line on a PE line's 256 rows: 512 rows a batch of 4096 beats, one batch.
  const WoqLutLayerPerf w = woq_lut_layer_perf(load_config(kPaper), 256, 3);
  EXPECT_EQ(j.at("woq_lut_line").at("rows_per_line").get<int64_t>(), 256);
  EXPECT_EQ(j.at("woq_lut_line").at("batches").get<int64_t>(), 1);
  EXPECT_EQ(j.at("woq_lut_line").at("cycles").get<int64_t>(), w.cycles);
  const CmdResult t = run_perf("layer --config " + kPaperArg + " --rows 4096");
  EXPECT_NE(t.out.find("layer 3146 cycles"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("FIGLUT-class LUT line at a PE line's throughput, one a PE line: 256 rows"),
            std::string::npos)
      << t.out;
}

TEST(PerfCli, ModelEqualsTheLibrary) {
  const CmdResult r =
      run_perf("model --config " + kPaperArg + " --model " + gen::shell_word(kLlama));
  ASSERT_EQ(r.status, 0) << r.out;
  const ModelPerf m = model_perf(load_config(kPaper), load_model_shape(kLlama), PerfOptions{1, 0});
  EXPECT_NE(r.out.find(std::to_string(m.model_cycles) + " cycles"), std::string::npos) << r.out;
}

TEST(PerfCli, ReportWritesTextDataAndScripts) {
  const fs::path out = scratch("report");
  fs::remove_all(out);
  const CmdResult r = run_perf("report --config " + kPaperArg + " --out " +
                               gen::shell_word(out.string()) + " --models " + kModelsArg);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string md = read(out / "report.md");
  EXPECT_NE(md.find("config `paper`"), std::string::npos);
  EXPECT_NE(md.find("whole token 3146 cycles"), std::string::npos);
  EXPECT_NE(md.find("### LLaMA-2-70B"), std::string::npos);
  EXPECT_NE(md.find("no synthesis report"), std::string::npos);
  for (const char* f : {"pipeline", "pipeline_rows", "outliers", "lut", "sweep"}) {
    EXPECT_TRUE(fs::exists(out / (std::string(f) + ".gp"))) << f;
    EXPECT_TRUE(fs::exists(out / (std::string(f) + ".dat"))) << f;
  }
  // An existing folder is not overwritten.
  const CmdResult again = run_perf("report --config " + kPaperArg + " --out " +
                                   gen::shell_word(out.string()) + " --models " + kModelsArg);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("already exists"), std::string::npos) << again.out;
  EXPECT_TRUE(fs::exists(out / "report.md"));
  fs::remove_all(out);
}

TEST(PerfCli, BadInputExitsTwoAndWritesNothing) {
  const fs::path bad = scratch("bad.json");
  {
    std::ofstream o(bad);
    o << R"({"name": "x", "source": "s", "layers": 2,)"
      << R"( "linear": [{"name": "q", "in": 0, "out": 4}]})";
  }
  const fs::path out = scratch("bad_report");
  fs::remove_all(out);
  const std::pair<std::string, std::string> cases[] = {
      {"model --config " + kPaperArg + " --model /nonexistent/m.json", "cannot be read"},
      {"model --config " + kPaperArg + " --model " + gen::shell_word(bad.string()),
       "in 0 and out 4"},
      {"layer --config /nonexistent/c.json", "cannot be read"},
      {"layer --config " + kPaperArg + " --set pe_lines=0", "pe_lines"},
      {"layer --config " + kPaperArg + " --bandwidth -1", "--bandwidth -1"},
      {"layer --config " + kPaperArg + " --bandwidth nan", "--bandwidth nan"},
      {"layer --config " + kPaperArg + " --bandwidth fast", "bandwidth"},
      {"layer --config " + kPaperArg + " --rows 0", "rows"},
      {"frob", "unknown subcommand 'frob'"},
      {"report --config " + kPaperArg + " --out " + gen::shell_word(out.string()) + " --limit 0",
       "--limit 0"},
      {"report --config " + kPaperArg + " --out " + gen::shell_word(out.string()) +
           " --models /nonexistent",
       "not a folder"},
  };
  for (const auto& [args, message] : cases) {
    const CmdResult r = run_perf(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  fs::remove(bad);
}

}  // namespace
}  // namespace oasis
