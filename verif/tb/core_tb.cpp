// SPDX-License-Identifier: Apache-2.0
// Checks the generated OASIS core against its cycle model (model/cycle/core.hpp)
// every cycle: x_ready, w_ready, y_valid, y_rows, y_last, idle, the register port's
// read side and, when valid, y. Every output is also compared, in row order,
// with the golden model computed from the token and the weight row alone:
// LutGemm::prepare_normalized (clustering, Orizuru, residuals) and
// LutGemm::row, independent of the cycle model.
// Stimulus: layers of random codebooks loaded through the register port while
// the core is idle, at the addresses of the generated register-map header
// (oasis_<name>_regmap.hpp, which sim/vltest makes available as
// oasis_generated.hpp), whose config hash is also read back through the port; tokens of random
// activations and directed ones (NaN, +-Inf, an all-equal token, the largest and smallest values in
// the first and last channels); weight matrices whose row count is not a multiple of the lines;
// random gaps on the token and weight streams, random backpressure on y and
// random register reads, in phases of different rates. Last, an unthrottled
// token measures the pre-processing and the GEMM phase against derive() and
// docs/spec.md section 6's lower bound; then two back-to-back segments of unthrottled
// tokens (3 tokens of P + 1 rows, bound by the pre-processing, and 2 tokens of
// enough rows for the GEMM phase to bound) are compared with the performance
// model (model/perf/perf.hpp, layer_perf): every token's last output and the
// segment's cycles, exactly.
// With --workload (docs/workload.md; tools/bench_core.sh, make demo) the directed and random
// stimulus is left out: after reset the layer of verif/workload.hpp (by default the seeded
// synthetic LLM-like one, quantized by the model) is loaded through the register port and its
// tokens run unthrottled, back to back, every check on; the first token's timing is measured
// as above, with the simulation's speed and the outputs' error against FP32 next to INT
// round-to-nearest. Idle inputs then hold their last values and unused fields carry zeros,
// rather than the random values the other runs drive there.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <vector>

#include "Vdut.h"
#include "model/config.hpp"
#include "model/cycle/core.hpp"
#include "model/numerics/fp.hpp"
#include "model/perf/perf.hpp"
#include "model/quant/clustering.hpp"
#include "model/quant/lut_gemm.hpp"
#include "oasis_generated.hpp"
#include "verif/harness/harness.hpp"
#include "verif/random_layer.hpp"
#include "verif/workload.hpp"

namespace {

using oasis::Fp16;
using oasis::tb::get_bits;
using oasis::tb::set_bits;
namespace regmap = oasis_generated::regmap;

struct Expected {
  Fp16 y;
  bool last;  ///< in the token's last group
  uint64_t token, row;
};

// Stimulus queues: register writes, token beats, weight beats.
struct RegWrite {
  int addr;
  uint16_t data;
};
struct XBeat {
  std::vector<Fp16> x;
  Fp16 scale;
};
struct WBeat {
  std::vector<uint8_t> idx;  // P * Wb
  std::vector<Fp16> scale;   // P
  int rows;
  bool last;
};

using Matrix = std::vector<std::vector<uint8_t>>;

// The testbench: the DUT and its cycle model, the stimulus queues, the outputs expected from
// the golden model, and the cycles the measurements read.
struct CoreBench {
  CoreBench(int argc, char** argv)
      : options(oasis::tb::Options::parse("core", argc, argv)),
        h(options, argc, argv),
        dut(h.dut()),
        config(oasis::parse_config(options.config_json(), options.manifest_path)),
        K(config.channels),
        P(config.pe_lines),
        nW(config.weight_bits),
        Wb(config.weight_beat_indices),
        model(config),
        tm(model.timing()),
        R(tm.beat_activations),
        F(tm.group_beats),
        workload_mode(options.workload) {
    held.x_data.resize(size_t(R));
    held.w_data.resize(size_t(P * Wb));
    held.w_scale.resize(size_t(P));
  }

  int run();

  // Stimulus helpers.
  uint64_t noise(int bits, uint64_t quiet);
  Fp16 moderate() { return oasis::tb::moderate(h.rng()); }
  oasis::CoreInputs next_inputs(bool write, bool hash);
  void drive(const oasis::CoreInputs& in);
  void check_ports(bool hash);
  void take_outputs(bool y_ready);
  void cycle();
  void drain();
  void put_region(const char* region, int base, int words, const std::vector<Fp16>& v);
  void load_layer();
  void new_layer(bool special);
  void send_token_beats(const std::vector<Fp16>& xhat, Fp16 scale);
  void send_weight_group(int g, int groups, int rows, const Matrix& iw,
                         const std::vector<Fp16>& sw);
  void send_token(const std::vector<Fp16>& xhat, Fp16 scale, const Matrix& iw,
                  const std::vector<Fp16>& sw);
  void random_matrix(int rows, Matrix& iw, std::vector<Fp16>& sw);
  std::vector<Fp16> random_token();

  // The run's phases.
  void check_config_hash();
  void directed_tokens(int rows);
  void random_phases(int rows);
  void measure();
  void report_measurement(int n);
  void report_workload_error(int n_tokens, int n, size_t first_output);
  void back_to_back();

  const oasis::tb::Options options;
  oasis::tb::Harness<Vdut> h;
  Vdut& dut;
  const oasis::Config config;
  const int K, P;
  const int nW;
  const int Wb;
  oasis::Core model;
  const oasis::CoreTiming& tm;
  const int R, F;
  const bool workload_mode;

  std::deque<RegWrite> writes;
  std::deque<int> hash_reads;  // the config hash's words, read first
  int hash_word_due = -1;      // the word whose read answers this cycle
  uint64_t hash_read = 0;
  std::deque<XBeat> xbeats;
  std::deque<WBeat> wbeats;
  std::deque<Expected> expected;
  double x_gap = 0.2, w_gap = 0.2, backpressure = 0.2;
  uint64_t outputs_checked = 0, tokens_sent = 0, measured_token = ~uint64_t{0};
  std::vector<Fp16> got;  // every output taken, in order
  int64_t first_x_fire = -1, first_w_fire = -1, last_y_fire = -1, context_ready = -1;
  // Back-to-back segments: the first token of the segment and, per token, the
  // cycle its last output was taken.
  uint64_t segment_first_token = ~uint64_t{0};
  std::vector<int64_t> segment_last;

  std::optional<oasis::LutGemm> gemm;
  // Workload mode: the cycles of the run, and the inputs as last driven (idle ones hold them).
  oasis::tb::WorkloadWindow window;
  bool in_window = false;
  oasis::CoreInputs held;
  // The layer of the workload mode, built before the run (the model's quantization takes a
  // moment at the paper's size).
  std::optional<oasis::tb::Workload> workload;
  // The current weight matrix and its row scales.
  Matrix iw;
  std::vector<Fp16> sw;
};

// Bits of a field nobody reads: random, or `quiet` in workload mode.
uint64_t CoreBench::noise(int bits, uint64_t quiet) {
  return workload_mode ? quiet : h.random_bits(bits);
}

// This cycle's inputs: the queues' fronts where valid, elsewhere noise (held in workload mode).
oasis::CoreInputs CoreBench::next_inputs(bool write, bool hash) {
  oasis::CoreInputs in;
  // The register port: pending writes only while idle (the model's and the
  // DUT's idle agree or a mismatch is reported), random reads always (none in workload mode).
  in.reg_we = write;
  in.reg_re = hash || (!workload_mode && h.coin(0.2));
  in.reg_addr = write  ? writes.front().addr
                : hash ? hash_reads.front()
                       : int(noise(regmap::kAddressBits, uint64_t(held.reg_addr)));
  in.reg_wdata = write ? writes.front().data : uint16_t(noise(16, held.reg_wdata));
  // Streams.
  in.x_valid = !xbeats.empty() && writes.empty() && !(x_gap > 0 && h.coin(x_gap));
  in.x_data.resize(size_t(R));
  for (int i = 0; i < R; ++i) {
    in.x_data[size_t(i)] = in.x_valid ? xbeats.front().x[size_t(i)]
                                      : Fp16{uint16_t(noise(16, held.x_data[size_t(i)].bits))};
  }
  in.x_scale = in.x_valid ? xbeats.front().scale : Fp16{uint16_t(noise(16, held.x_scale.bits))};
  in.w_valid = !wbeats.empty() && !(w_gap > 0 && h.coin(w_gap));
  in.w_data.resize(size_t(P * Wb));
  in.w_scale.resize(size_t(P));
  for (int i = 0; i < P * Wb; ++i) {
    in.w_data[size_t(i)] =
        in.w_valid ? wbeats.front().idx[size_t(i)] : uint8_t(noise(nW, held.w_data[size_t(i)]));
  }
  for (int p = 0; p < P; ++p) {
    in.w_scale[size_t(p)] = in.w_valid ? wbeats.front().scale[size_t(p)]
                                       : Fp16{uint16_t(noise(16, held.w_scale[size_t(p)].bits))};
  }
  in.w_rows = in.w_valid ? wbeats.front().rows : int(noise(tm.rows_bits, uint64_t(held.w_rows)));
  in.w_last = in.w_valid ? wbeats.front().last : workload_mode ? held.w_last : h.coin(0.5);
  in.y_ready = !(backpressure > 0 && h.coin(backpressure));
  return in;
}

void CoreBench::drive(const oasis::CoreInputs& in) {
  dut.reg_we_i = in.reg_we;
  dut.reg_re_i = in.reg_re;
  dut.reg_addr_i = uint16_t(in.reg_addr);
  dut.reg_wdata_i = in.reg_wdata;
  dut.x_valid_i = in.x_valid;
  for (int i = 0; i < R; ++i) set_bits(dut.x_data_i, i * 16, 16, in.x_data[size_t(i)].bits);
  dut.x_scale_i = in.x_scale.bits;
  dut.w_valid_i = in.w_valid;
  for (int i = 0; i < P * Wb; ++i) set_bits(dut.w_data_i, i * nW, nW, in.w_data[size_t(i)]);
  for (int p = 0; p < P; ++p) set_bits(dut.w_scale_i, p * 16, 16, in.w_scale[size_t(p)].bits);
  dut.w_rows_i = uint8_t(in.w_rows);
  dut.w_last_i = in.w_last;
  dut.y_ready_i = in.y_ready;
}

// The handshakes and the register port against the cycle model; the config hash's words as
// they are read back.
void CoreBench::check_ports(bool hash) {
  h.check("x_ready_o", model.x_ready(), dut.x_ready_o);
  h.check("w_ready_o", model.w_ready(), dut.w_ready_o);
  h.check("y_valid_o", model.y_valid(), dut.y_valid_o);
  h.check("idle_o", model.idle(), dut.idle_o);
  h.check("reg_rvalid_o", model.reg_rvalid(), dut.reg_rvalid_o);
  h.check("reg_rdata_o", model.reg_rdata(), dut.reg_rdata_o);
  if (hash_word_due >= 0 && dut.reg_rvalid_o) {
    hash_read |= uint64_t(dut.reg_rdata_o) << (16 * hash_word_due);
  }
  hash_word_due = hash ? hash_reads.front() - regmap::kConfigHashBase : -1;
  if (hash) hash_reads.pop_front();
}

// A valid output: against the cycle model, and when taken, row by row against the golden model.
void CoreBench::take_outputs(bool y_ready) {
  const int rows = model.y_rows();
  const std::vector<Fp16> y = model.y_data();
  h.check("y_rows_o", uint64_t(rows), dut.y_rows_o, "the cycle model's output");
  h.check("y_last_o", model.y_last(), dut.y_last_o, "the cycle model's output");
  for (int p = 0; p < P; ++p) {
    h.check("y_data_o", p < rows ? y[size_t(p)].bits : 0, get_bits(dut.y_data_o, p * 16, 16),
            fmt::format("lane {}, the cycle model's output", p));
  }
  if (!y_ready) return;
  for (int p = 0; p < rows; ++p) {
    if (expected.empty()) {
      h.fail("an output was given for a row that was never sent");
      break;
    }
    const Expected& e = expected.front();
    const std::string where =
        fmt::format("token {} row {} (lane {}), the golden model", e.token, e.row, p);
    h.check("y_data_o", e.y.bits, get_bits(dut.y_data_o, p * 16, 16), where);
    h.check("y_last_o", e.last, dut.y_last_o, where);
    got.push_back(Fp16{uint16_t(get_bits(dut.y_data_o, p * 16, 16))});
    if (e.token == measured_token && e.last) last_y_fire = int64_t(h.cycle());
    if (e.last && e.token >= segment_first_token &&
        e.token - segment_first_token < segment_last.size()) {
      segment_last[size_t(e.token - segment_first_token)] = int64_t(h.cycle());
    }
    expected.pop_front();
    h.scoreboard().count_vector();
    ++outputs_checked;
  }
}

void CoreBench::cycle() {
  const bool write = !writes.empty() && model.idle();
  const bool hash = !write && !hash_reads.empty();
  const oasis::CoreInputs in = next_inputs(write, hash);
  held = in;
  drive(in);
  h.settle();

  check_ports(hash);
  if (model.y_valid() && dut.y_valid_o) take_outputs(in.y_ready);
  if (in.x_valid && dut.x_ready_o && first_x_fire < 0) first_x_fire = int64_t(h.cycle());
  if (in.w_valid && dut.w_ready_o && first_w_fire < 0) first_w_fire = int64_t(h.cycle());
  const bool x_taken = in.x_valid && dut.x_ready_o;
  const bool w_taken = in.w_valid && dut.w_ready_o;
  if (in_window) {
    if (in.x_valid || in.w_valid) window.present(h.cycle());
    if (model.y_valid() && dut.y_valid_o && in.y_ready) window.output(h.cycle());
    if (w_taken) window.busy();
  }
  model.clock(in);
  if (model.context_pending() && context_ready < 0) context_ready = int64_t(h.cycle());
  if (write) writes.pop_front();
  if (x_taken) xbeats.pop_front();
  if (w_taken) wbeats.pop_front();
  h.step();
}

void CoreBench::drain() {
  uint64_t guard = 0;
  while ((!writes.empty() || !xbeats.empty() || !wbeats.empty() || !expected.empty() ||
          !model.idle() || !dut.idle_o) &&
         !h.scoreboard().should_stop()) {
    cycle();
    if (++guard > 10'000'000) {
      h.fail("the core did not drain in 10^7 cycles");
      break;
    }
  }
}

void CoreBench::put_region(const char* region, int base, int words, const std::vector<Fp16>& v) {
  if (v.size() != size_t(words)) {
    h.fail(fmt::format("region {}: the model has {} words, the regmap header {}", region, v.size(),
                       words));
  }
  for (size_t i = 0; i < v.size(); ++i) writes.push_back({base + int(i), v[i].bits});
}

// The current layer's LUT, codebooks and boundaries, through the register
// port at the generated header's addresses.
void CoreBench::load_layer() {
  put_region("lut", regmap::kLutBase, regmap::kLutWords, gemm->lut());
  put_region("act_codebook", regmap::kActCodebookBase, regmap::kActCodebookWords,
             gemm->act_codebook());
  put_region("weight_codebook", regmap::kWeightCodebookBase, regmap::kWeightCodebookWords,
             gemm->weight_codebook());
  put_region("boundaries", regmap::kBoundariesBase, regmap::kBoundariesWords, gemm->boundaries());
}

// A layer: random codebooks (verif/random_layer.hpp), loaded through the register port.
void CoreBench::new_layer(bool special) {
  gemm.emplace(oasis::tb::random_gemm(config, h.rng(), special));
  load_layer();
}

// A token's beats: its channels, noise past the last, and its scale on the first beat.
void CoreBench::send_token_beats(const std::vector<Fp16>& xhat, Fp16 scale) {
  for (int b = 0; b < tm.token_beats; ++b) {
    XBeat beat;
    for (int i = 0; i < R; ++i) {
      const int ch = b * R + i;
      beat.x.push_back(ch < K ? xhat[size_t(ch)] : Fp16{uint16_t(noise(16, 0))});
    }
    beat.scale = b == 0 ? scale : Fp16{uint16_t(noise(16, scale.bits))};
    xbeats.push_back(std::move(beat));
  }
}

// Group g of a weight matrix's rows: one row per line, F beats.
void CoreBench::send_weight_group(int g, int groups, int rows, const Matrix& iw,
                                  const std::vector<Fp16>& sw) {
  const bool last = g == groups - 1;
  const int in_group = last ? rows - g * P : P;
  int group_rows = 0;  // the rows field of the group's first beat
  for (int b = 0; b < F; ++b) {
    WBeat beat;
    beat.idx.resize(size_t(P * Wb));
    beat.scale.resize(size_t(P));
    for (int p = 0; p < P; ++p) {
      const int n = g * P + p;
      for (int i = 0; i < Wb; ++i) {
        const int ch = b * Wb + i;
        beat.idx[size_t(p * Wb + i)] =
            n < rows && ch < K ? iw[size_t(n)][size_t(ch)] : uint8_t(noise(nW, 0));
      }
      const Fp16 s = n < rows ? sw[size_t(n)] : Fp16{};
      beat.scale[size_t(p)] = n < rows && b == 0 ? s : Fp16{uint16_t(noise(16, s.bits))};
    }
    // Rows and last are only read on the first beat: elsewhere, noise (in workload mode
    // the first beat's values, held). Rows of a group not the last: any.
    if (b == 0) {
      group_rows =
          last ? in_group : (workload_mode || h.coin(0.5) ? P : int(h.random_bits(tm.rows_bits)));
    }
    beat.rows = b == 0 ? group_rows : int(noise(tm.rows_bits, uint64_t(group_rows)));
    beat.last = b == 0 || workload_mode ? last : h.coin(0.5);
    wbeats.push_back(std::move(beat));
  }
}

// One token and its whole weight matrix (rows x K) through the core.
void CoreBench::send_token(const std::vector<Fp16>& xhat, Fp16 scale, const Matrix& iw,
                           const std::vector<Fp16>& sw) {
  const oasis::PreparedToken token = gemm->prepare_normalized(xhat, scale);
  send_token_beats(xhat, scale);
  const int rows = int(iw.size());
  const int groups = int(oasis::derive(config).row_groups(rows));
  for (int g = 0; g < groups; ++g) send_weight_group(g, groups, rows, iw, sw);
  for (int n = 0; n < rows; ++n) {
    expected.push_back({gemm->row(token, iw[size_t(n)], sw[size_t(n)]), n / P == groups - 1,
                        tokens_sent, uint64_t(n)});
  }
  ++tokens_sent;
}

void CoreBench::random_matrix(int rows, Matrix& iw, std::vector<Fp16>& sw) {
  iw.assign(size_t(rows), std::vector<uint8_t>(size_t(K)));
  sw.resize(size_t(rows));
  for (auto& r : iw) {
    for (auto& x : r) x = uint8_t(h.random_bits(nW));
  }
  for (auto& s : sw) s = moderate();
}

std::vector<Fp16> CoreBench::random_token() {
  std::vector<Fp16> x(static_cast<size_t>(K));
  for (auto& v : x) v = moderate();
  return x;
}

// The config hash, read through the port at the header's address, is the
// header's (and the model's, which every read is compared with).
void CoreBench::check_config_hash() {
  for (int i = 0; i < regmap::kConfigHashWords; ++i) {
    hash_reads.push_back(regmap::kConfigHashBase + i);
  }
  for (int i = 0; i < regmap::kConfigHashWords + 1; ++i) cycle();
  h.check("the config hash read at regmap::kConfigHashBase", regmap::kConfigHash, hash_read);
}

// Directed tokens on one layer: NaN and infinities among the activations,
// an all-equal token (Orizuru's ties), the largest and smallest values in the
// first and last channels, then the reverse.
void CoreBench::directed_tokens(int rows) {
  new_layer(true);
  random_matrix(rows, iw, sw);
  auto x = random_token();
  x[size_t(K / 2)] = Fp16{0x7E00};
  x[size_t(K / 3)] = Fp16{0x7C00};
  x[size_t(K / 4)] = Fp16{0xFC00};
  x[1 % size_t(K)] = Fp16{0xFE01};  // a negative, non-canonical NaN
  send_token(x, moderate(), iw, sw);
  send_token(std::vector<Fp16>(size_t(K), moderate()), moderate(), iw, sw);
  x = random_token();
  x[0] = Fp16{0x5BFF};
  x[size_t(K - 1)] = Fp16{0xDBFF};
  send_token(x, moderate(), iw, sw);
  std::swap(x[0], x[size_t(K - 1)]);
  send_token(x, moderate(), iw, sw);
  drain();
}

// Seeded random tokens over layers, in phases of different rates.
void CoreBench::random_phases(int rows) {
  const uint64_t tokens = options.vectors ? options.vectors : 24;
  const int phases = 4;
  for (int phase = 0; phase < phases && !h.scoreboard().should_stop(); ++phase) {
    x_gap = (phase % 4) * 0.25;
    w_gap = ((phase + 2) % 4) * 0.2;
    backpressure = ((phase + 1) % 4) * 0.2;
    new_layer(phase % 2 == 1);
    random_matrix(rows + phase % 2, iw, sw);
    for (uint64_t t = 0; t < tokens / phases; ++t) send_token(random_token(), moderate(), iw, sw);
    drain();
  }
}

// Measurement: a token after an idle core, every stream unthrottled. In workload mode the
// layer is the workload's (by default a seeded synthetic LLM-like one, quantized by the
// model: K-means codebooks, outliers calibrated), loaded through the register port, and all
// its tokens follow back to back.
void CoreBench::measure() {
  x_gap = w_gap = backpressure = 0;
  const int n_tokens = workload_mode ? workload->tokens : 1;
  const int n = workload_mode ? workload->rows : 4 * P + 1;
  std::vector<std::vector<Fp16>> xs;
  std::vector<Fp16> scales;
  if (workload_mode) {
    gemm = workload->model();
    load_layer();
    iw.assign(size_t(n), {});
    sw.assign(size_t(n), Fp16{});
    for (int r = 0; r < n; ++r) {
      const auto row = workload->row(r);
      iw[size_t(r)].assign(row.begin(), row.end());
      sw[size_t(r)] = workload->quantized.scales[size_t(r)];
    }
    for (const oasis::PreparedToken& tok : workload->prepared) {
      xs.push_back(tok.xhat);
      scales.push_back(tok.scale);
    }
  } else {
    random_matrix(n, iw, sw);
    xs.push_back(random_token());
    scales.push_back(moderate());
  }
  drain();  // the layer's registers
  for (int i = 0; i < 4; ++i) cycle();
  first_x_fire = first_w_fire = last_y_fire = context_ready = -1;
  measured_token = tokens_sent;
  const size_t first_output = got.size();
  const uint64_t start_cycle = h.cycle();
  const auto start = std::chrono::steady_clock::now();
  in_window = workload_mode;
  for (int t = 0; t < n_tokens; ++t) send_token(xs[size_t(t)], scales[size_t(t)], iw, sw);
  drain();
  in_window = false;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report_measurement(n);
  if (workload_mode) {
    fmt::print("simulated: {} cycles in {:.2f} s, {:.0f} cycles/s\n", h.cycle() - start_cycle,
               seconds, double(h.cycle() - start_cycle) / seconds);
    oasis::tb::report_workload(h, *workload, window, "weight-activation products",
                               workload->products(), {{"gemms", workload->tokens}});
    report_workload_error(n_tokens, n, first_output);
  }
}

// The measured token's pre-processing and GEMM phase: printed, as figures, and checked against
// derive() and the manifest.
void CoreBench::report_measurement(int n) {
  const int64_t preprocess = context_ready - first_x_fire + 1;
  const int64_t gemm_cycles = last_y_fire - first_w_fire + 1;
  const int64_t bound = oasis::derive(config).gemm_lower_bound(n);
  fmt::print(
      "measured: token pre-processing {} cycles (first beat taken -> context ready; {} beats), "
      "GEMM phase {} cycles for {} rows on {} line(s) (first weight beat taken -> last output "
      "taken), lower bound {} ({:+.2f} %), {} outputs checked over {} tokens\n",
      preprocess, tm.token_beats, gemm_cycles, n, P, bound,
      100.0 * double(gemm_cycles - bound) / double(bound), outputs_checked, tokens_sent);
  oasis::tb::Scoreboard& sb = h.scoreboard();
  sb.figure("preprocess_cycles", preprocess);
  sb.figure("gemm_rows", n);
  sb.figure("pe_lines", P);
  sb.figure("gemm_cycles", gemm_cycles);
  sb.figure("gemm_lower_bound", bound);
  sb.figure("gemm_over_bound_percent", 100.0 * double(gemm_cycles - bound) / double(bound));
  sb.figure("outputs_checked", outputs_checked);
  sb.figure("tokens", tokens_sent);
  h.check("measured GEMM phase (first weight beat taken -> last output taken)",
          uint64_t(oasis::derive(config).gemm_cycles(n)), uint64_t(gemm_cycles));
  // The same from the manifest's figures as the generator wrote them:
  // (groups - 1) row intervals (its cycles_per_row, which the cycle bound
  // uses), one group's beats and the line's row latency.
  h.check(
      "measured GEMM phase against the manifest's cycles_per_row, group_beats and "
      "row_latency_cycles",
      uint64_t(((n + P - 1) / P - 1) * options.param("cycles_per_row") +
               options.param("group_beats") + options.param("row_latency_cycles")),
      uint64_t(gemm_cycles));
  h.check("measured preprocess_cycles (first token beat taken -> last residual written)",
          uint64_t(options.param("preprocess_cycles")), uint64_t(preprocess));
}

// Output error of the RTL's outputs against FP32 on the unquantized data,
// next to per-token / per-row INT round-to-nearest at the same bits.
void CoreBench::report_workload_error(int n_tokens, int n, size_t first_output) {
  const std::vector<float> ref32 =
      oasis::reference_gemm_fp32(workload->x, n_tokens, workload->w, n, K);
  const std::vector<double> ref(ref32.begin(), ref32.end());
  std::vector<double> rtl;
  for (size_t i = first_output; i < got.size(); ++i) rtl.push_back(oasis::to_double(got[i]));
  const std::vector<double> rtn = oasis::int_rtn_gemm(workload->x, n_tokens, workload->w, n, K,
                                                      config.act_bits, config.weight_bits);
  if (rtl.size() != ref.size()) return;
  fmt::print(
      "error against FP32 ({} tokens x {} rows, {} layer): OASIS RTL "
      "W{}A{} SQNR {:.2f} dB, INT W{}A{} round-to-nearest {:.2f} dB\n",
      n_tokens, n, workload->source == "synthetic" ? "synthetic LLM-like" : "the given",
      config.weight_bits, config.act_bits, oasis::sqnr_db(ref, rtl), config.weight_bits,
      config.act_bits, oasis::sqnr_db(ref, rtn));
  h.scoreboard().figure("error_against_fp32", {{"tokens", n_tokens},
                                               {"rows", n},
                                               {"weight_bits", config.weight_bits},
                                               {"act_bits", config.act_bits},
                                               {"oasis_rtl_sqnr_db", oasis::sqnr_db(ref, rtl)},
                                               {"int_rtn_sqnr_db", oasis::sqnr_db(ref, rtn)}});
}

// Back to back, every stream unthrottled, against the performance model.
void CoreBench::back_to_back() {
  x_gap = w_gap = backpressure = 0;
  const oasis::TokenFigures tf = oasis::token_figures(config, 1);
  const int64_t long_groups = (tf.preprocess + tf.row_interval - 1) / tf.row_interval + 1;
  const std::pair<int, int> segments[] = {{3, P + 1}, {2, int(long_groups * P) - (P > 1 ? 1 : 0)}};
  for (const auto& [m, n] : segments) {
    if (h.scoreboard().should_stop()) break;
    random_matrix(n, iw, sw);
    drain();
    for (int i = 0; i < 4; ++i) cycle();
    first_x_fire = -1;
    segment_first_token = tokens_sent;
    segment_last.assign(size_t(m), -1);
    for (int t = 0; t < m; ++t) send_token(random_token(), moderate(), iw, sw);
    drain();
    const oasis::LayerPerf L = oasis::layer_perf(config, n, oasis::PerfOptions{m, 0});
    const int64_t total = segment_last.back() - first_x_fire + 1;
    fmt::print(
        "measured back to back: {} tokens x {} rows, {} cycles (first token beat taken "
        "-> last output taken); performance model {} cycles, bound by {}\n",
        m, n, total, L.cycles, oasis::phase_name(L.bound));
    for (int t = 0; t < m; ++t) {
      h.check(
          "back to back: a token's last output, cycles after the segment's first beat "
          "(performance model)",
          uint64_t(L.last_output[size_t(t)]), uint64_t(segment_last[size_t(t)] - first_x_fire),
          fmt::format("token {} of {}, {} rows", t, m, n));
    }
    h.check("back to back: the segment's cycles (performance model)", uint64_t(L.cycles),
            uint64_t(total), fmt::format("{} tokens, {} rows", m, n));
    segment_first_token = ~uint64_t{0};
  }
}

int CoreBench::run() {
  if (workload_mode) workload = oasis::tb::build_workload(config, options);

  h.reset();
  model.reset();
  for (int i = 0; i < 3; ++i) cycle();  // idle after reset

  if (!workload_mode) {
    check_config_hash();
    // Rows not a multiple of the lines (and at least one full group).
    const int rows = P + std::max(1, P / 2) + (P > 1 ? 0 : 1);
    directed_tokens(rows);
    random_phases(rows);
  }
  measure();
  if (!workload_mode) back_to_back();
  return h.finish();
}

}  // namespace

int main(int argc, char** argv) {
  CoreBench bench(argc, argv);
  return bench.run();
}
