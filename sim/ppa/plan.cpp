// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "gen/block.hpp"
#include "gen/generator.hpp"
#include "model/config.hpp"
#include "sim/ppa/run.hpp"

namespace oasis::ppa {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

void claim_output_folder(const fs::path& out, const std::string& name, const std::string& option) {
  const fs::path mark = out / ("." + name);
  std::error_code ec;
  if (fs::is_symlink(out, ec) || (fs::exists(out, ec) && !fs::is_directory(out, ec))) {
    throw UsageError(fmt::format("{} {}: not a folder", option, out.string()));
  }
  if (fs::is_directory(out) && !fs::is_empty(out) && !fs::exists(mark) &&
      !(fs::is_directory(out / "work") && fs::is_directory(out / "rtl"))) {
    throw UsageError(fmt::format(
        "{} {}: the folder holds files {} did not write; allowed: a new or empty folder, or "
        "one {} wrote before",
        option, out.string(), name, name));
  }
  fs::create_directories(out);
  write_text(mark, fmt::format("This folder is {}'s output; it may replace what is here.\n", name));
}

int command_main(const char* name, const std::function<int()>& run) {
  try {
    return run();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const PlanError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

Variant generate_variant(const std::string& config_path, const std::vector<std::string>& overrides,
                         const fs::path& root, const std::string& tag,
                         const std::vector<std::string>& sets) {
  std::vector<std::string> all = overrides;
  all.insert(all.end(), sets.begin(), sets.end());
  const Config config = load_config(config_path, all);
  gen::GenerateRequest request;
  request.config_path = config_path;
  request.overrides = all;
  Variant v;
  v.tag = tag;
  v.sets = sets;
  v.dir = root / tag;
  request.out_dir = v.dir.string();
  const auto files = gen::render(config, request);
  fs::create_directories(v.dir);
  for (const auto& [name, text] : files) {
    const fs::path p = v.dir / name;
    if (fs::exists(p) && read_text(p) == text) continue;
    write_text(p, text);
  }
  v.manifest = gen::Manifest::parse(files.at("manifest.json"), (v.dir / "manifest.json").string());
  return v;
}

double figure(const Variant& v, const std::string& block, const std::string& key) {
  if (const auto f = v.manifest.figure(block, key)) return double(*f);
  throw std::logic_error(fmt::format("no figure '{}' for block {} in {}", key, block,
                                     (v.dir / "manifest.json").string()));
}

std::vector<std::string> file_list(const fs::path& dir, const std::string& block) {
  return gen::file_list_sources(read_text(dir / (block + ".f")));
}

std::vector<std::string> block_sources(const Variant& v, const std::string& block) {
  return file_list(v.dir, block);
}

std::vector<std::string> selected_blocks(const std::string& list) {
  std::set<std::string> known;
  for (const gen::Block* b : gen::registered_blocks()) known.insert(b->name());
  std::vector<std::string> only;
  std::istringstream in(list);
  std::string b;
  while (std::getline(in, b, ',')) {
    if (b.empty()) continue;
    if (!known.count(b)) {
      throw PlanError(
          fmt::format("--blocks: no block '{}'; allowed: {}", b, fmt::join(known, ", ")));
    }
    only.push_back(b);
  }
  return only;
}

std::vector<std::string> measuring_order(const gen::Manifest& manifest,
                                         const std::vector<std::string>& only) {
  const std::vector<std::string> blocks = manifest.blocks();
  std::vector<std::string> order;
  for (const char* b : {"pe_line", "mac_line_baseline", "woq_lut_line_baseline", "orizuru",
                        "topk_sort_baseline", "topk_baseline", "index_counter_array"}) {
    if (std::find(blocks.begin(), blocks.end(), b) != blocks.end()) order.push_back(b);
  }
  for (const auto& b : blocks) {
    if (std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
  }
  if (!only.empty()) {
    std::erase_if(order, [&](const std::string& b) {
      return std::find(only.begin(), only.end(), b) == only.end();
    });
  }
  return order;
}

std::optional<Slice> slice_plan(const std::string& block, const Variant& full) {
  // One and two MAC trees a cycle at the PE line's row interval.
  if (block == "mac_line_baseline") {
    const int ri = int(figure(full, "pe_line", "row_interval_cycles"));
    const int t = int(full.manifest.number("config", "mac_tree_inputs"));
    return Slice{"channels", t * ri, 2 * t * ri, "macs_per_cycle", "macs_per_cycle"};
  }
  // The FIGLUT-class line at the same two sizes: its units (sized to the PE line) and so its
  // logic and flip-flops grow with K; its LUT generator is one at every size.
  if (block == "woq_lut_line_baseline") {
    const int ri = int(figure(full, "pe_line", "row_interval_cycles"));
    const int t = int(full.manifest.number("config", "mac_tree_inputs"));
    return Slice{"channels", t * ri, 2 * t * ri, "units", "units"};
  }
  if (block == "topk_baseline") return Slice{"channels", 128, 256, "comparators", "channels"};
  // Sizes at which the real-library flow maps the network's compare-exchanges once each
  // (docs/ppa.md): at N = 64 it is small enough to be mapped flat, which abc did not finish
  // in 25 minutes.
  if (block == "topk_sort_baseline") {
    return Slice{"channels", 128, 256, "comparators", "channels"};
  }
  if (block == "index_counter_array") {
    return Slice{"index_counters", 1, 2, "index_counters", "index_counters"};
  }
  // One run with one counter; the counters' growth is the Index Counter array's. A line
  // that streams its counting (docs/pe_line.md) is measured whole: with one counter a weight
  // beat is no longer a counting beat, and the line would keep its banks. So is a line whose
  // row is in an SRAM (docs/sram.md): with one counter its counting beat would be narrower
  // than its weight beat, and the row would go back to flip-flops.
  if (block == "pe_line") {
    const auto& line = full.manifest.block("pe_line");
    for (const char* whole : {"streamed_counting", "weight_index_sram"}) {
      if (line.contains(whole) && line.at(whole).get<bool>()) return std::nullopt;
    }
    return Slice{"index_counters", 1, 0, "", ""};
  }
  return std::nullopt;
}

double lin(double x1, double x2, double u, double u1, double u2) {
  return x2 + (u - u2) * (x2 - x1) / (u2 - u1);
}

std::vector<PlannedBlock> plan_runs(const std::string& config_path,
                                    const std::vector<std::string>& overrides, const fs::path& root,
                                    const Variant& full, const std::vector<std::string>& blocks,
                                    bool large) {
  const int wb = int(full.manifest.number("config", "weight_beat_indices"));
  std::vector<PlannedBlock> plan;
  for (const auto& b : blocks) {
    PlannedBlock p;
    p.block = b;
    if (large && b == "core") {
      // No runs: each command estimates the large core its own way.
    } else if (large && (p.slice = slice_plan(b, full))) {
      for (int v : {p.slice->v1, p.slice->v2}) {
        if (v == 0) continue;
        std::vector<std::string> sets = {fmt::format("{}={}", p.slice->key, v)};
        // A weight beat may not be longer than the row.
        if (p.slice->key == "channels") {
          sets.push_back(fmt::format("weight_beat_indices={}", std::min(v, wb)));
        }
        const std::string tag = fmt::format("{}_{}", p.slice->key, v);
        p.runs.push_back({fmt::format("{}_{}", b, tag), b,
                          generate_variant(config_path, overrides, root, tag, sets)});
      }
    } else {
      p.runs.push_back({b, b, full});
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

SliceFigures slice_figures(const PlannedBlock& p, const Variant& full) {
  const Slice& s = *p.slice;
  const Variant& v1 = p.runs.at(0).variant;
  const Variant& v2 = p.runs.at(1).variant;
  const SliceFigures x = {
      figure(full, p.block, s.logic_measure), figure(v1, p.block, s.logic_measure),
      figure(v2, p.block, s.logic_measure),   figure(full, p.block, s.flop_measure),
      figure(v1, p.block, s.flop_measure),    figure(v2, p.block, s.flop_measure)};
  // Two runs that do not differ in a measure give no line through them.
  for (const auto& [what, a, b] :
       {std::tuple{s.logic_measure, x.l1, x.l2}, std::tuple{s.flop_measure, x.f1, x.f2}}) {
    if (a == b) {
      throw PlanError(fmt::format(
          "{}: the runs at {} = {} and {} have the same {} ({}), so it cannot be extrapolated; "
          "raise --max-channels to measure the block whole",
          p.block, s.key, s.v1, s.v2, what, a));
    }
  }
  return x;
}

void check_slices(const std::vector<PlannedBlock>& plan, const Variant& full) {
  for (const auto& p : plan) {
    if (p.slice && p.runs.size() == 2) slice_figures(p, full);
  }
}

std::string slice_note(const std::string& what, const Slice& s, const SliceFigures& x,
                       const std::string& timing) {
  return fmt::format(
      "{0} at {1} = {2} and {3}, extrapolated linearly: logic in {4} ({5}, {6} -> {7}), "
      "flip-flops in {8} ({9}, {10} -> {11}); {12} is that of {1} = {3}",
      what, s.key, s.v1, s.v2, s.logic_measure, x.l1, x.l2, x.l, s.flop_measure, x.f1, x.f2, x.f,
      timing);
}

}  // namespace oasis::ppa
