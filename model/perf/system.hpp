// SPDX-License-Identifier: Apache-2.0
// The system model (docs/system.md): a model's linear layers on the OASIS core and on an
// accelerator of FIGLUT-class lines, with a weight memory (bandwidth, latency, energy a bit),
// the lines' energy a product measured by make ppa, and SRAM access energy. The cycles of each
// design come from its own performance model (layer_perf, woq_lut_layer_perf), which equal its
// RTL's; the memory and energy are models, every figure of them read from a file that cites it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/perf/perf.hpp"

namespace oasis {

/// A weight memory (configs/memory/<name>.json); each figure with its published source.
struct MemorySpec {
  std::string name;
  double gb_per_s = 0;    ///< sustained read bandwidth, 1e9 bytes a second
  double latency_ns = 0;  ///< a read to its first data (row activation and column access)
  double pj_per_bit = 0;  ///< energy a bit moved, device and interface
  std::string bandwidth_source, latency_source, energy_source;
  bool unlimited() const { return gb_per_s == 0; }
};

/// Throws ConfigError naming the file and the field for a missing field or a figure out of
/// range (bandwidth 0.1 to 100,000 GB/s, latency 0 to 10,000 ns, energy 0.01 to 1,000 pJ/bit).
MemorySpec load_memory(const std::string& path);
/// No memory limit: bandwidth, latency and energy all zero (the compute-only figures).
MemorySpec unlimited_memory();

/// One line of a design as make ppa measured it, at a size in products a cycle.
struct LinePoint {
  double products_per_cycle = 0;
  double area_um2 = 0;
  double clock_mw = 0;            ///< the clock network's power, whatever the data does
  double pj_per_product = 0;      ///< from activity, OpenSTA 2.0.17's internal-power model
  double pj_per_product_arc = 0;  ///< the same run, arc-weighted internal power
};
struct LineEnergy {
  std::string design;  ///< pe_line, woq_lut_line_baseline
  std::string source;  ///< the command and commit that measured it
  std::vector<LinePoint> points;
};
/// The line's figures at `products_per_cycle`: the measured point if there is one of that size;
/// from two points, area and clock power linear in products a cycle and energy a product
/// c + d / x (a fixed share spread over the products); from one point of another size, its own
/// figures with the area and clock power scaled in proportion.
LinePoint line_at(const LineEnergy& line, double products_per_cycle);

/// The energy file (configs/energy/<name>.json).
struct EnergySpec {
  std::string path;      ///< the file it was read from
  std::string library;   ///< e.g. osu018
  double period_ns = 0;  ///< the clock the lines were measured at
  std::string activity;  ///< what workload the energies come from
  double sram_pj_per_bit = 0;
  std::string sram_source;
  LineEnergy pe_line, woq_lut_line;
};
/// Throws ConfigError naming the file and the field.
EnergySpec load_energy(const std::string& path);

/// How many FIGLUT-class lines the accelerator it is compared with has: as many as the core
/// has PE lines (each sized to a PE line's products a cycle: the paper's configuration), or as
/// many as fit the PE lines' area.
enum class Sizing { kPaperConfig, kEqualArea };
std::string sizing_name(Sizing s);

/// The products a cycle of one PE line of `config` (K over the row interval).
double line_products_per_cycle(const Config& config);
int figlut_lines(const Config& config, const EnergySpec& energy, Sizing sizing);

/// Layers that read the same token and share its context (q, k, v; gate, up): the indices of
/// ModelShape::linear in groups, in order. Throws ConfigError if a group's layers differ in K.
std::vector<std::vector<size_t>> shared_contexts(const ModelShape& shape);

struct SystemOptions {
  double clock_hz = 500e6;
  MemorySpec memory = unlimited_memory();
  bool arc_weighted = false;  ///< the arc-weighted energies instead of OpenSTA 2.0.17's
};

/// Energy by part, joules. The compute is the products at the line's measured energy a product;
/// idle is the clock network of the lines over the cycles they wait (for memory, or a partly
/// empty batch); dram the memory's bytes; sram the token and the outputs through the buffers.
struct EnergyParts {
  double compute = 0, idle = 0, dram = 0, sram = 0;
  double total() const { return compute + idle + dram + sram; }
  EnergyParts& operator+=(const EnergyParts& o);
};

/// One group of layers sharing a context, M tokens.
struct LayerCost {
  std::string name;  ///< "q+k+v"
  int64_t channels = 0, rows = 0;
  int tokens = 0;
  int64_t compute_cycles = 0;  ///< the memory unlimited
  int64_t cycles = 0;          ///< with the memory's bandwidth and latency
  int64_t products = 0;
  int64_t weight_bytes = 0, act_bytes = 0, out_bytes = 0;
  bool memory_bound = false;
  EnergyParts energy;
};

struct DesignRun {
  std::string design;
  int lines = 0;
  double area_um2 = 0;  ///< the lines' area
  LinePoint line;
  std::vector<LayerCost> block;  ///< one decoder block
  int decoder_layers = 0;
  int64_t cycles = 0;  ///< the whole model
  int64_t bytes = 0;   ///< memory traffic of the whole model
  EnergyParts energy;  ///< the whole model
  double seconds(double clock_hz) const { return double(cycles) / clock_hz; }
};

/// M tokens through every linear layer of the model on the core of `config` (each group on
/// with_channels(config, K); the layers of a group one layer of their rows together, their
/// weight streams back to back on one token context).
DesignRun oasis_run(const Config& config, const ModelShape& shape, int tokens,
                    const EnergySpec& energy, const SystemOptions& options);
/// The same on `lines` FIGLUT-class lines, each taking ceil(N / lines) rows of a layer.
DesignRun figlut_run(const Config& config, const ModelShape& shape, int tokens, int lines,
                     const EnergySpec& energy, const SystemOptions& options);

}  // namespace oasis
