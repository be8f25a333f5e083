// SPDX-License-Identifier: Apache-2.0
// The system model (model/perf/system.hpp, docs/system.md): its cycles are each design's own
// performance model (equal to the RTL's), layers that read one token share its context, the
// energy's parts add up to its total, the measured lines are read back at their own sizes, and
// bad memory, energy and model files are refused with their field named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/perf/perf.hpp"
#include "model/perf/system.hpp"
#include "model/quant/lut_gemm.hpp"
#include "verif/unit/random_gemm.hpp"
#include "verif/unit/run_command.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis {
namespace {

namespace fs = std::filesystem;
using test::kPaper;
using test::kSource;

const std::string kEnergy = kSource + "/configs/energy/osu018.json";
const std::string kHbm = kSource + "/configs/memory/hbm2.json";
const std::string kLlama = kSource + "/configs/models/llama2_7b.json";

TEST(System, SharedContextsGroupTheLayersThatReadOneToken) {
  const ModelShape m = load_model_shape(kLlama);
  const auto g = shared_contexts(m);
  ASSERT_EQ(g.size(), 4u);  // q+k+v, o, gate+up, down
  EXPECT_EQ(g[0], (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(g[1], (std::vector<size_t>{3}));
  EXPECT_EQ(g[2], (std::vector<size_t>{4, 5}));
  EXPECT_EQ(g[3], (std::vector<size_t>{6}));
  ModelShape bad = m;
  bad.linear[1].in = 1024;  // k reads another token than q
  EXPECT_THROW(shared_contexts(bad), ConfigError);
}

// Two weight matrices on one token context are one stream of their rows: run_core on the
// cycle model with both matrices' rows back to back gives each matrix's own outputs, and
// cycles equal to layer_perf's for the rows together, which the system model charges.
TEST(System, TwoMatricesOnOneContextAreOneLayerOfTheirRows) {
  const Config c = load_config(kSource + "/configs/default.json");
  std::mt19937_64 rng(7);
  const LutGemm gemm = test::random_gemm(c, rng);
  const int64_t n1 = 3 * c.pe_lines + 1, n2 = 2 * c.pe_lines;
  const test::RandomInputs both = test::random_inputs(c, 1, n1 + n2, rng);
  const auto runs = run_core(c, gemm, both.x, both.sa, both.iw, both.sw);
  ASSERT_EQ(runs.size(), 1u);
  const LayerPerf L = layer_perf(c, n1 + n2, PerfOptions{1, 0});
  EXPECT_EQ(runs[0].last_output - runs[0].first_beat + 1, L.cycles);
  // Each matrix alone on the same token: the same outputs, row for row.
  for (const auto& [first, rows] : {std::pair<int64_t, int64_t>{0, n1}, {n1, n2}}) {
    test::RandomInputs one = both;
    one.iw.assign(both.iw.begin() + first, both.iw.begin() + first + rows);
    one.sw.assign(both.sw.begin() + first, both.sw.begin() + first + rows);
    const auto alone = run_core(c, gemm, one.x, one.sa, one.iw, one.sw);
    ASSERT_EQ(alone[0].y.size(), size_t(rows));
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(alone[0].y[size_t(r)], runs[0].y[size_t(first + r)]) << "row " << first + r;
    }
  }
  // Shared, the pre-processing is paid once: fewer cycles than the two layers one by one.
  EXPECT_LT(L.cycles, layer_perf(c, n1, PerfOptions{1, 0}).cycles +
                          layer_perf(c, n2, PerfOptions{1, 0}).cycles);
}

TEST(System, CyclesAreEachDesignsOwnModelWithTheMemoryUnlimited) {
  const Config c = load_config(kPaper);
  const ModelShape m = load_model_shape(kLlama);
  const EnergySpec e = load_energy(kEnergy);
  const SystemOptions o;  // unlimited memory
  const DesignRun a = oasis_run(c, m, 2, e, o);
  const DesignRun b = figlut_run(c, m, 2, 16, e, o);
  ASSERT_EQ(a.block.size(), 4u);
  int64_t sum_a = 0, sum_b = 0;
  for (size_t i = 0; i < a.block.size(); ++i) {
    const Config lc = a.block[i].channels == c.channels ? c : with_channels(c, a.block[i].channels);
    EXPECT_EQ(a.block[i].cycles, layer_perf(lc, a.block[i].rows, PerfOptions{2, 0}).cycles);
    EXPECT_EQ(b.block[i].cycles, woq_lut_layer_perf(lc, (b.block[i].rows + 15) / 16, 2).cycles);
    sum_a += a.block[i].cycles;
    sum_b += b.block[i].cycles;
  }
  EXPECT_EQ(a.cycles, sum_a * m.layers);
  EXPECT_EQ(b.cycles, sum_b * m.layers);
  // q + k + v: 12,288 rows of 4,096 indices of 4 bits and a binary16 scale each, two tokens.
  EXPECT_EQ(a.block[0].weight_bytes, 2 * (12288 * 4096 / 2 + 2 * 12288));
  EXPECT_EQ(a.block[0].weight_bytes, b.block[0].weight_bytes);
  EXPECT_DOUBLE_EQ(a.energy.dram, 0.0);
}

// The paper config, LLaMA-2-7B, the measured energies and an HBM2 stack at 500 MHz (512 bytes
// a cycle).
struct PaperOnHbm {
  Config c = load_config(kPaper);
  ModelShape m = load_model_shape(kLlama);
  EnergySpec e = load_energy(kEnergy);
  SystemOptions o{500e6, load_memory(kHbm), false};
};

TEST(System, TheMemoryBoundsALayerByItsBytes) {
  const PaperOnHbm p;
  const auto& [c, m, e, o] = p;
  for (const DesignRun& r : {oasis_run(c, m, 1, e, o), figlut_run(c, m, 1, 16, e, o)}) {
    for (const LayerCost& L : r.block) {
      SCOPED_TRACE(r.design + " " + L.name);
      EXPECT_TRUE(L.memory_bound);
      EXPECT_GE(L.cycles, (L.weight_bytes + 511) / 512 + 14);  // 28 ns: 14 cycles
      EXPECT_GT(L.cycles, L.compute_cycles);
    }
  }
}

TEST(System, EnergyPartsAddUpToTheTotal) {
  const PaperOnHbm p;
  const auto& [c, m, e, o] = p;
  for (const DesignRun& r : {oasis_run(c, m, 3, e, o), figlut_run(c, m, 3, 19, e, o)}) {
    EnergyParts sum;
    for (const LayerCost& L : r.block) {
      EXPECT_DOUBLE_EQ(L.energy.total(),
                       L.energy.compute + L.energy.idle + L.energy.dram + L.energy.sram);
      EXPECT_GT(L.energy.compute, 0);
      EXPECT_GT(L.energy.idle, 0) << "memory-bound lines wait";
      EXPECT_GT(L.energy.dram, 0);
      sum += L.energy;
    }
    EXPECT_NEAR(r.energy.total(), sum.total() * m.layers, 1e-12 * r.energy.total());
    EXPECT_NEAR(r.energy.dram, double(r.bytes) * 8 * 3.97e-12, 1e-9 * r.energy.dram);
  }
}

TEST(System, MeasuredLinesReadBackAtTheirSizes) {
  const EnergySpec e = load_energy(kEnergy);
  const LinePoint p = line_at(e.pe_line, 512);
  EXPECT_DOUBLE_EQ(p.pj_per_product, e.pe_line.points[0].pj_per_product);
  const LinePoint& a = e.woq_lut_line.points[0];
  const LinePoint& b = e.woq_lut_line.points[1];
  EXPECT_DOUBLE_EQ(line_at(e.woq_lut_line, a.products_per_cycle).area_um2, a.area_um2);
  // Between and beyond the two points: area linear, energy a product c + d / x.
  const LinePoint x = line_at(e.woq_lut_line, 512);
  EXPECT_NEAR(x.area_um2, a.area_um2 + (b.area_um2 - a.area_um2) * (512 - 32) / 32.0, 1e-3);
  const double d = (a.pj_per_product - b.pj_per_product) / (1.0 / 32 - 1.0 / 64);
  EXPECT_NEAR(x.pj_per_product, a.pj_per_product - d / 32 + d / 512, 1e-9);
  EXPECT_LT(x.pj_per_product, b.pj_per_product);
  // Equal area: the PE lines' area over a FIGLUT-class line's.
  const Config c = load_config(kPaper);
  EXPECT_EQ(figlut_lines(c, e, Sizing::kPaperConfig), 16);
  EXPECT_EQ(figlut_lines(c, e, Sizing::kEqualArea), int(16 * p.area_um2 / x.area_um2));
}

class SystemFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oasis_system_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(SystemFiles, BadMemoryAndEnergyFilesNameTheirField) {
  const std::string good =
      R"({"name": "m", "gb_per_s": 10, "gb_per_s_source": "s", "latency_ns": 1,
          "latency_ns_source": "s", "pj_per_bit": 5, "pj_per_bit_source": "s"})";
  EXPECT_NO_THROW(load_memory(write("good.json", good)));
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"name": "m"})", "field \"gb_per_s\" missing"},
           {R"({"name": "m", "gb_per_s": 1e9, "gb_per_s_source": "s", "latency_ns": 1,
               "latency_ns_source": "s", "pj_per_bit": 5, "pj_per_bit_source": "s"})",
            "field \"gb_per_s\" is 1000000000.0; allowed: a number from 0.1 to 100000"},
           {R"({"name": "m", "gb_per_s": 10, "gb_per_s_source": "s", "latency_ns": 1,
               "latency_ns_source": "s", "pj_per_bit": "x", "pj_per_bit_source": "s"})",
            "field \"pj_per_bit\" is \"x\""},
           {R"({"name": "m", "gb_per_s": 10, "gb_per_s_source": "", "latency_ns": 1,
               "latency_ns_source": "s", "pj_per_bit": 5, "pj_per_bit_source": "s"})",
            "field \"gb_per_s_source\" is not a non-empty string"}}) {
    try {
      load_memory(write("bad.json", text));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ConfigError& err) {
      EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
    }
  }
  std::ifstream in(kEnergy);
  std::string energy((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string bad =
      energy.replace(energy.find("\"clock_mw\": 382.146"), 19, "\"clock_mw\": -1");
  try {
    load_energy(write("energy.json", bad));
    ADD_FAILURE() << "a negative clock power accepted";
  } catch (const ConfigError& err) {
    EXPECT_NE(std::string(err.what()).find("pe_line.points[0].clock_mw"), std::string::npos)
        << err.what();
  }
}

TEST_F(SystemFiles, TheCommandRefusesBadInputWithOneLine) {
  const std::string perf = gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-perf");
  const std::string base =
      perf + " system --config " + gen::shell_word(kPaper) + " --model " + gen::shell_word(kLlama);
  const auto ok = test::run_command(base + " --memory " + gen::shell_word(kHbm) + " 2>&1");
  ASSERT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("FIGLUT-class (as many lines as PE lines) over OASIS: speedup"),
            std::string::npos)
      << ok.out;
  const std::string shape =
      write("shape.json", R"({"name": "x", "source": "s", "layers": 1, "linear": [
        {"name": "q", "in": 64, "out": 64}, {"name": "k", "in": 32, "out": 64}]})");
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {" --memory " + write("m.json", R"({"name": "m", "gb_per_s": -5})"),
            "field \"gb_per_s\" is -5"},
           {" --sizing most", "--sizing most: allowed: paper, equal-area"},
           {" --clock-mhz 0", "--clock-mhz 0"},
           {" --energy /nonexistent.json", "/nonexistent.json"}}) {
    const auto r = test::run_command(base + args + " 2>&1");
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
  }
  const auto r = test::run_command(perf + " system --config " + gen::shell_word(kPaper) +
                                   " --model " + shape + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("read one token but differ in K"), std::string::npos) << r.out;
}

// make report's system section: the paper's figures beside ours, each table with its plot.
TEST_F(SystemFiles, TheReportSetsThePapersFiguresBesideOurs) {
  const fs::path out = dir_ / "report";
  const auto r = test::run_command(
      gen::shell_word(std::string(OASIS_BINARY_DIR) + "/oasis-perf") + " report --config " +
      gen::shell_word(kPaper) + " --models " + gen::shell_word(kSource + "/configs/models") +
      " --out " + gen::shell_word(out.string()) + " --energy " + gen::shell_word(kEnergy) +
      " --memory " + gen::shell_word(kHbm) + " --clock-mhz 500 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(out / "report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* s : {"## System figures", "(paper Fig. 11)", "(paper Fig. 12)",
                        "(paper Fig. 13)", "(paper Fig. 18)", "| *paper (average)* | 4 |",
                        "*3.00x*", "*1.44x*", "### What it says", "linear layers only"}) {
    EXPECT_NE(md.find(s), std::string::npos) << s;
  }
  for (const char* f : {"system_fig11", "system_fig12", "system_fig13", "system_fig18"}) {
    EXPECT_TRUE(fs::exists(out / (std::string(f) + ".dat"))) << f;
    EXPECT_TRUE(fs::exists(out / (std::string(f) + ".gp"))) << f;
    EXPECT_NE(md.find(std::string(f) + ".png"), std::string::npos) << f;
  }
}

}  // namespace
}  // namespace oasis
