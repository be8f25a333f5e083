// SPDX-License-Identifier: Apache-2.0
// oasis-prove (make prove): formal proofs of generated blocks with Yosys's built-in SAT
// solver (sat, miter, equiv_*; no external solver). What each proof states, its bounds and
// its run time: docs/formal.md. Every proof also runs on a copy of the RTL (or of the lemma)
// with a bug injected on purpose (a generator mutation, gen/mutation.hpp), and that run must
// end with a counterexample; a proof whose bug goes unnoticed is a failure.
//
// The command generates each config it needs from configs/default.json with its overrides,
// writes every proof's Yosys scripts (prove.ys, bug*.ys) into OUT/<proof> (OUT is
// BUILD/prove unless --out names another folder), runs them
// JOBS at a time and prints one line per proof as it ends. Yosys runs in the proof's folder
// and every path of a script is relative to it (../rtl/<config>, ../formal, bug_rtl), so
// that the project and the build folder may lie where a path holds a space (docs/paths.md).
// Bad input (an option, a pattern no proof matches): one message, exit status 2.
#include <fmt/format.h>
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gen/generator.hpp"
#include "gen/manifest.hpp"
#include "model/config.hpp"
#include "sim/ppa/cli.hpp"
#include "sim/ppa/plan.hpp"
#include "sim/ppa/run.hpp"
#include "sim/tools/flow_commands.hpp"
#include "tools/commands.hpp"

namespace oasis_prove_command {

using namespace oasis;
using namespace oasis::ppa;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------- configs

// The configs the proofs read: configs/default.json with these overrides, generated under
// the name given (so that the modules are oasis_<name>_<block>).
struct ConfigSpec {
  std::string name;
  std::vector<std::string> sets;
};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<ConfigSpec>& config_specs() {
  static const std::vector<ConfigSpec> specs = [] {
    const std::vector<std::string> ic = {"outliers_per_side=1", "counter_inputs=16",
                                         "clustering_lanes=1"};
    const std::vector<std::string> oz = {"clustering_lanes=1", "outliers_per_side=1"};
    const std::vector<std::string> oz8k2 = {"clustering_lanes=1", "outliers_per_side=2",
                                            "channels=8", "orizuru_unit_inputs=2",
                                            "weight_beat_indices=8"};
    // One counter, two-valued indices (E = 4), two MAC-tree inputs, K channels in one beat.
    auto one_counter = [&ic](int k) {
      return ic + std::vector<std::string>{fmt::format("channels={}", k),
                                           "index_counters=1",
                                           "act_bits=1",
                                           "weight_bits=1",
                                           "mac_tree_inputs=2",
                                           fmt::format("weight_beat_indices={}", k)};
    };
    return std::vector<ConfigSpec>{
        {"cu1", {"act_bits=1", "clustering_lanes=2"}},
        {"cu2", {"act_bits=2", "clustering_lanes=2"}},
        {"cu3", {"act_bits=3", "clustering_lanes=2"}},
        {"cu4", {"act_bits=4", "clustering_lanes=2"}},
        {"cu4l2", {"act_bits=4", "clustering_lanes=2", "clustering_levels_per_stage=2"}},
        {"oz2", oz + std::vector<std::string>{"channels=2", "orizuru_unit_inputs=2",
                                              "weight_beat_indices=2"}},
        {"oz4", oz + std::vector<std::string>{"channels=4", "orizuru_unit_inputs=2",
                                              "weight_beat_indices=4"}},
        {"oz6", oz + std::vector<std::string>{"channels=6", "orizuru_unit_inputs=4",
                                              "weight_beat_indices=6"}},
        {"oz8", oz + std::vector<std::string>{"channels=8", "orizuru_unit_inputs=4",
                                              "weight_beat_indices=8"}},
        {"oz8k2", oz8k2},
        {"oz16", oz + std::vector<std::string>{"channels=16", "orizuru_unit_inputs=4",
                                               "weight_beat_indices=16"}},
        // N = 8 in pairs, 3 levels: at the three clock targets a pop over 1, 1 and 2 cycles;
        // over 3, one level a cycle, with the gaps between a side's outliers.
        {"oz8k2t130", oz8k2 + std::vector<std::string>{"target_period_fo4=130"}},
        {"oz8k2t80", oz8k2 + std::vector<std::string>{"target_period_fo4=80"}},
        {"oz8k2t50", oz8k2 + std::vector<std::string>{"target_period_fo4=50"}},
        {"oz8k2c3", oz8k2 + std::vector<std::string>{"orizuru_pop_cycles=3"}},
        // One counter, K = 12 of G = 16 positions (the extent mask), E = 4, two chunks.
        {"ic1", one_counter(12)},
        // Two counters added, K = 28 of G = 32, E = 4, two chunks.
        {"ic2", ic + std::vector<std::string>{"channels=28", "index_counters=2", "act_bits=1",
                                              "weight_bits=1", "mac_tree_inputs=2",
                                              "weight_beat_indices=28"}},
        // One counter, K = 40: three beats a row, so the counting bank's adder is generated.
        {"ic3", one_counter(40)},
        // ic1 with the register before the decoders (the clock target's input stage).
        {"ic1s", one_counter(12) + std::vector<std::string>{"index_counter_input_stage=1"}},
        // ic1s with two registers in the trees (the counts four cycles after the beat).
        {"ic1t", one_counter(12) + std::vector<std::string>{"index_counter_input_stage=1",
                                                            "index_counter_tree_registers=2"}},
        // Symmetric codebooks, nA = nW = 2: 8 bins of sign and magnitude, 4 signed counts in
        // two chunks.
        {"ic1y", one_counter(12) + std::vector<std::string>{"act_bits=2", "weight_bits=2",
                                                            "codebooks=symmetric"}},
        // fp16_add with the 4 stages of 50 FO4, registers inside the unit.
        {"fp50", {"act_bits=2", "clustering_lanes=2", "target_period_fo4=50"}},
        // The system wrapper around the tiny core of sim/sweeps/axi.txt.
        {"ax", {"axi_data_bits=64", "axi_max_burst=4", "axi_outstanding_reads=2",
                "axi_chain_limit=4", "channels=5", "outliers_per_side=2", "mac_tree_inputs=1",
                "comp_macs=1", "index_counters=1", "counter_inputs=2", "weight_beat_indices=2",
                "orizuru_unit_inputs=2", "act_bits=2", "weight_bits=2", "clustering_lanes=1"}},
    };
  }();
  return specs;
}

const ConfigSpec& config_spec(const std::string& name) {
  for (const auto& c : config_specs()) {
    if (c.name == name) return c;
  }
  throw std::logic_error("oasis-prove: no config " + name);
}

// The generated files of a config (name -> text), with `mutation` injected when not empty.
std::map<std::string, std::string> render_config(const fs::path& source, const ConfigSpec& spec,
                                                 const fs::path& dir,
                                                 const std::string& mutation = "") {
  const std::string config_path = (source / "configs" / "default.json").string();
  std::vector<std::string> sets = {"name=" + spec.name};
  sets.insert(sets.end(), spec.sets.begin(), spec.sets.end());
  gen::GenerateRequest request;
  request.config_path = config_path;
  request.overrides = sets;
  request.out_dir = dir.string();
  request.mutation = mutation;
  return gen::render(load_config(config_path, sets), request);
}

// Writes `files` into `dir`, a file only when its text changed (a proof reading it is then
// not disturbed, and its date stays).
void write_files(const fs::path& dir, const std::map<std::string, std::string>& files) {
  fs::create_directories(dir);
  for (const auto& [name, text] : files) {
    const fs::path p = dir / name;
    if (fs::exists(p) && read_text(p) == text) continue;
    write_text(p, text);
  }
}

// A file's text without the banner lines that name the command (the mutation among them).
std::string without_command_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("// Regenerate: ", 0) == 0 || line.rfind("//   --", 0) == 0) continue;
    out += line;
    out += '\n';
  }
  return out;
}

// ---------------------------------------------------------------------------- scripts

// One Yosys script of a proof: the proof itself must hold; a bug variant must end with a
// counterexample.
struct Script {
  std::string file;  ///< prove.ys or bug*.ys, in the proof's folder
  std::string text;
};

struct ProofSetup {
  Script proof;
  std::vector<Script> bugs;
};

// What a proof kind reads: the generated configs (clean, as a folder relative to the proof's)
// and their manifests, and the mutants it makes into its own folder.
class Context {
 public:
  Context(fs::path source, fs::path out, fs::path dir)
      : source_(std::move(source)), out_(std::move(out)), dir_(std::move(dir)) {}

  // A file of verif/formal as a script names it.
  static std::string fv(std::initializer_list<const char*> files) {
    std::string s;
    for (const char* f : files) s += fmt::format("{}../formal/{}", s.empty() ? "" : " ", f);
    return s;
  }

  const gen::Manifest& manifest(const std::string& cfg) {
    auto it = manifests_.find(cfg);
    if (it == manifests_.end()) {
      it = manifests_.emplace(cfg, gen::Manifest::read(out_ / "rtl" / cfg / "manifest.json")).first;
    }
    return it->second;
  }
  // A scalar of the manifest: "config.KEY", "derived.KEY" or "BLOCK.KEY".
  long figure(const std::string& cfg, const std::string& section, const std::string& key) {
    return long(manifest(cfg).number(section, key));
  }

  // A generated RTL folder: as a script names it (relative to the proof's folder) and on disk.
  struct Rtl {
    std::string name;
    fs::path disk;
  };
  Rtl clean(const std::string& cfg) const { return {"../rtl/" + cfg, out_ / "rtl" / cfg}; }

  // The sources of a block as a script names them, in its file list's order.
  static std::string sources(const Rtl& rtl, const std::string& block) {
    return fmt::format("{}", fmt::join(flow::file_list(rtl.disk, block, rtl.name + "/"), " "));
  }

  // The config `cfg` generated again with `bug` injected, into the proof's folder `sub`.
  // Fails when the generator refuses the bug (unknown, or no construct for it in this config)
  // or when no source file changed.
  Rtl mutant(const std::string& cfg, const std::string& bug, const std::string& sub) {
    const ConfigSpec& spec = config_spec(cfg);
    const Rtl rtl{sub, dir_ / sub};
    const auto intact = render_config(source_, spec, out_ / "rtl" / cfg);
    const auto broken = render_config(source_, spec, rtl.disk, bug);
    bool changed = false;
    for (const auto& [name, text] : broken) {
      if (name == "manifest.json") continue;
      const auto it = intact.find(name);
      if (it == intact.end() || without_command_lines(it->second) != without_command_lines(text)) {
        changed = true;
      }
    }
    if (!changed) {
      throw std::runtime_error(
          fmt::format("injecting {} changed no source of config {}", bug, cfg));
    }
    fs::remove_all(rtl.disk);
    write_files(rtl.disk, broken);
    return rtl;
  }

  // -D and the generator's behavioural macro when `form` is behavioural, else nothing.
  std::string form_defines(const std::string& cfg, const std::string& form) {
    if (form != "behavioural") return "";
    return " -D" + manifest(cfg).behavioural_macro();
  }

 private:
  fs::path source_, out_, dir_;
  std::map<std::string, gen::Manifest> manifests_;
};

// Yosys command lines shared by the proofs. The design read with -sv, wrappers and
// specifications with -formal; flatten, asynchronous resets modelled as synchronous
// (async2sync: the reset acts in the cycle it is asserted), and the usual word-level
// simplifications before the SAT solver.
std::string prep_for(const std::string& top) {
  return fmt::format(
      "prep -top {}; flatten; async2sync; opt_clean; opt -full; wreduce; peepopt; opt_clean", top);
}
constexpr const char* kShow = "-show-inputs -show-outputs";

using Rtl = Context::Rtl;

// comparator CFG: the comparator block against oasis_spec_comparator, all 2^32 pairs.
ProofSetup kind_comparator(Context& c, const std::string& cfg) {
  const std::string top = fmt::format("oasis_{}_comparator", cfg);
  auto body = [&](const Rtl& rtl) {
    return fmt::format(
        "read_verilog -sv {}\nread_verilog -sv {}\nhierarchy -check\nproc; flatten\n"
        "miter -equiv -flatten -make_outputs oasis_spec_comparator {} miter\n"
        "hierarchy -top miter\nsat -verify -prove trigger 0 {} miter\n",
        Context::fv({"oasis_spec_order_key.sv", "oasis_spec_comparator.sv"}),
        Context::sources(rtl, "comparator"), top, kShow);
  };
  return {{"prove.ys", body(c.clean(cfg))},
          {{"bug.ys", body(c.mutant(cfg, "comparator.magnitude_ge", "bug_rtl"))}}};
}

// clustering CFG: the Clustering Unit's first beat after reset, free handshake, any
// boundaries; its index is the bracket of x (see oasis_formal_clustering_unit.sv).
ProofSetup kind_clustering(Context& c, const std::string& cfg) {
  const long na = c.figure(cfg, "config", "act_bits");
  const long lanes = c.figure(cfg, "config", "clustering_lanes");
  const long lat = c.figure(cfg, "clustering_unit", "latency_cycles");
  const long steps = lat + 3;  // reset, the beat accepted in cycle 2 or 3, presented Latency later
  const std::string top = "oasis_formal_clustering_unit";
  auto body = [&](const Rtl& rtl) {
    return fmt::format(
        "read_verilog -sv {}\n"
        "read_verilog -sv -formal -DOASIS_DUT=oasis_{}_clustering_unit {}\n"
        "hierarchy -check -top {} -chparam ActBits {} -chparam Lanes {} -chparam Latency {}\n"
        "{}\n"
        "sat -verify -tempinduct-baseonly -maxsteps {} -prove-asserts -set-assumes {} "
        "-show boundaries,x_q,idx_data {}\n",
        Context::sources(rtl, "clustering_unit"), cfg,
        Context::fv({"oasis_spec_order_key.sv", "oasis_spec_cluster_bracket.sv",
                     "oasis_formal_clustering_unit.sv"}),
        top, na, lanes, lat, prep_for(top), steps, kShow, top);
  };
  // x equal to b_j goes down instead of up
  return {{"prove.ys", body(c.clean(cfg))},
          {{"bug.ys", body(c.mutant(cfg, "clustering_unit.equal_goes_down", "bug_rtl"))}}};
}

// axi_lite CFG: the system wrapper's AXI4-Lite slave from reset, every input free, the master
// keeping its rules: the slave's handshake rules hold for `kAxiLiteSteps` cycles (see
// oasis_formal_axi_lite.sv).
ProofSetup kind_axi_lite(Context& c, const std::string& cfg) {
  constexpr int kAxiLiteSteps = 12;  // reset and about three transactions of each kind
  int addr_bits = 0, word_bits = 0;
  for (const gen::ManifestPort& p : c.manifest(cfg).ports("regfile")) {
    if (p.name == "reg_addr_i") addr_bits = p.width;
    if (p.name == "reg_wdata_i") word_bits = p.width;
  }
  const std::string top = "oasis_formal_axi_lite";
  auto body = [&](const Rtl& rtl) {
    return fmt::format(
        "read_verilog -sv {}\n"
        "read_verilog -sv -formal -DOASIS_DUT=oasis_{}_axi_lite {}\n"
        "hierarchy -check -top {} -chparam RegAddrBits {} -chparam RegWordBits {}\n"
        "{}\n"
        "sat -verify -tempinduct-baseonly -maxsteps {} -prove-asserts -set-assumes {} {}\n",
        Context::sources(rtl, "axi"), cfg, Context::fv({"oasis_formal_axi_lite.sv"}), top,
        addr_bits, word_bits, prep_for(top), kAxiLiteSteps, kShow, top);
  };
  // RVALID dropped after a cycle while RREADY is low
  return {{"prove.ys", body(c.clean(cfg))},
          {{"bug.ys", body(c.mutant(cfg, "axi.lite_rvalid_dropped", "bug_rtl"))}}};
}

// cluster_lemmas: the bracket is the count #{ j : x >= b_j } for ascending boundaries,
// nA = 1..4 (oasis_formal_cluster_count.sv). Bug variants: each lemma without its premise
// (Broken = 1) must fail.
ProofSetup kind_cluster_lemmas(Context&) {
  const std::string read = "read_verilog -sv -formal " +
                           Context::fv({"oasis_spec_order_key.sv", "oasis_spec_cluster_bracket.sv",
                                        "oasis_formal_cluster_count.sv"});
  auto lemma = [&](const std::string& top, const std::string& params) {
    return fmt::format(
        "design -reset\n{}\nhierarchy -top {}{}\nprep -top {}; flatten\n"
        "sat -verify -prove-asserts -set-assumes -show-inputs {}\n",
        read, top, params, top, top);
  };
  auto order = [&](int broken) {
    return lemma("oasis_formal_cluster_order", fmt::format(" -chparam Broken {}", broken));
  };
  auto count = [&](int bits, int broken) {
    return lemma("oasis_formal_cluster_count",
                 fmt::format(" -chparam ActBits {} -chparam Broken {}", bits, broken));
  };
  return {{"prove.ys", order(0) + count(1, 0) + count(2, 0) + count(3, 0) + count(4, 0)},
          {{"bug_order.ys", order(1)}, {"bug_count.ys", count(4, 1)}}};
}

// orizuru CFG OUTLIERS FREE FORM: the first OUTLIERS pops of each side of the first token;
// in the behavioural form, of the RTL read with the generator's behavioural macro defined
// (the trees the paper-size core is simulated with), against the same bugs.
ProofSetup kind_orizuru(Context& c, const std::string& cfg, int outliers, int free,
                        const std::string& form) {
  const long n = c.figure(cfg, "config", "channels");
  const long r = c.figure(cfg, "orizuru", "beat_activations");
  const long cb = c.figure(cfg, "orizuru", "channel_bits");
  const long build = c.figure(cfg, "orizuru", "build_latency_cycles");
  const long beats = c.figure(cfg, "orizuru", "beats_per_token");
  const long drain = c.figure(cfg, "orizuru", "drain_cycles");
  long steps = 1 + beats + build + drain;  // reset, load, build, the pops
  if (free) steps += 2;                    // room for two stalls
  const std::string defines = c.form_defines(cfg, form);
  const std::string top = "oasis_formal_orizuru";
  auto body = [&](const Rtl& rtl) {
    return fmt::format(
        "read_verilog -sv{} {}\n"
        "read_verilog -sv -formal -DOASIS_DUT=oasis_{}_orizuru -DOASIS_CMP=oasis_{}_comparator "
        "{}\n"
        "hierarchy -check -top {} -chparam Channels {} -chparam BeatLanes {} -chparam Outliers {} "
        "-chparam ChanBits {} -chparam BuildCycles {} -chparam FreeHandshake {}\n"
        "{}\n"
        "sat -verify -tempinduct-baseonly -maxsteps {} -prove-asserts -set-assumes {} "
        "-show token,out_data,want_chan,pops_q {}\n",
        defines, Context::sources(rtl, "orizuru"), cfg, cfg,
        Context::fv({"oasis_formal_topk_tree.sv", "oasis_formal_orizuru.sv"}), top, n, r, outliers,
        cb, build, free, prep_for(top), steps, kShow, top);
  };
  ProofSetup s{{"prove.ys", body(c.clean(cfg))}, {}};
  // the min tree's leaf level breaks ties to the left (lower channel)
  s.bugs.push_back({"bug.ys", body(c.mutant(cfg, "orizuru.min_ties_left", "bug_rtl"))});
  if (outliers >= 2) {
    // a popped leaf that is the left one of its pair stays available, which only the second
    // pop of a side can show
    s.bugs.push_back({"bug_pop.ys", body(c.mutant(cfg, "orizuru.left_pop_lost", "bug_pop_rtl"))});
  }
  return s;
}

// topk_lemmas CFG: for the config's N, the tournament of the Orizuru proof equals the same
// tournament on order keys and the linear scan, both sides, every mask. The bug variant: the
// scan breaks max-side ties to the higher channel.
ProofSetup kind_topk_lemmas(Context& c, const std::string& cfg) {
  const long n = c.figure(cfg, "config", "channels");
  const long cb = c.figure(cfg, "orizuru", "channel_bits");
  const Rtl rtl = c.clean(cfg);
  auto lemma = [&](const std::string& read, const std::string& top, int side,
                   const std::string& extra, const std::string& check) {
    return fmt::format(
        "design -reset\n{}\nhierarchy {}-top {} -chparam Channels {} -chparam ChanBits {} "
        "-chparam MinSide {}{}\nprep -top {}; flatten; opt -full\n"
        "sat -verify -prove-asserts -show-inputs {}\n",
        read, check, top, n, cb, side, extra, top, top);
  };
  auto body = [&](int broken) {
    std::string s;
    for (int side = 0; side <= 1; ++side) {
      if (!broken) {
        s += lemma(fmt::format("read_verilog -sv {}/oasis_{}_comparator.sv\n"
                               "read_verilog -sv -formal -DOASIS_CMP=oasis_{}_comparator {}",
                               rtl.name, cfg, cfg,
                               Context::fv({"oasis_spec_order_key.sv", "oasis_formal_topk_tree.sv",
                                            "oasis_spec_topk_tree.sv", "oasis_spec_topk_scan.sv",
                                            "oasis_formal_topk_lemmas.sv"})),
                   "oasis_formal_topk_tree_keys", side, "", "-check ");
      }
      s += lemma("read_verilog -sv -formal " +
                     Context::fv({"oasis_spec_topk_tree.sv", "oasis_spec_topk_scan.sv",
                                  "oasis_formal_topk_lemmas.sv"}),
                 "oasis_formal_topk_tree_scan", side, fmt::format(" -chparam Broken {}", broken),
                 "");
      if (broken) break;
    }
    return s;
  };
  return {{"prove.ys", body(0)}, {{"bug.ys", body(1)}}};
}

// index_counter CFG FORM: a one-beat row's counts against a popcount of the beat; in the
// behavioural form (the loop the paper-size core is simulated with) the only bug variant is
// the extent's.
ProofSetup kind_index_counter(Context& c, const std::string& cfg, const std::string& form) {
  const long g = c.figure(cfg, "derived", "indices_per_cycle");
  const long b = c.figure(cfg, "derived", "concat_index_bits");
  const long k = c.figure(cfg, "config", "channels");
  const long w = c.figure(cfg, "index_counter_array", "count_bits");
  const long t = c.figure(cfg, "config", "mac_tree_inputs");
  const long chunks = c.figure(cfg, "index_counter_array", "chunks_per_row");
  const long lat = c.figure(cfg, "index_counter_array", "latency_cycles");
  const long beats = c.figure(cfg, "index_counter_array", "beats_per_row");
  const long na = c.figure(cfg, "config", "act_bits");
  const bool symmetric = c.figure(cfg, "derived", "count_bins") * 2 ==
                         (long(1) << c.figure(cfg, "derived", "concat_index_bits"));
  if (beats != 1) {
    throw std::runtime_error(
        fmt::format("config {} has {} beats a row; the proof wants one", cfg, beats));
  }
  const long steps = 2 + lat + chunks;  // reset, the row accepted in cycle 2 or 3, its chunks
  const std::string defines = c.form_defines(cfg, form);
  const std::string top = "oasis_formal_index_counter_array";
  auto body = [&](const Rtl& rtl) {
    return fmt::format(
        "read_verilog -sv{} {}\n"
        "read_verilog -sv -formal -DOASIS_DUT=oasis_{}_index_counter_array {}\n"
        "hierarchy -check -top {} -chparam Positions {} -chparam IdxBits {} -chparam Channels {} "
        "-chparam CountBits {} -chparam Tree {} -chparam Chunks {} -chparam Latency {} "
        "-chparam Symmetric {} -chparam ActBits {}\n"
        "{}\n"
        "sat -verify -tempinduct-baseonly -maxsteps {} -prove-asserts -set-assumes {} "
        "-show data_q,mask_q,cnt_data,want_chunk {}\n",
        defines, Context::sources(rtl, "index_counter_array"), cfg,
        Context::fv({"oasis_formal_index_counter_array.sv"}), top, g, b, k, w, t, chunks, lat,
        symmetric ? 1 : 0, na, prep_for(top), steps, kShow, top);
  };
  ProofSetup s{{"prove.ys", body(c.clean(cfg))}, {}};
  s.bugs.push_back(
      {"bug.ys", body(c.mutant(cfg, "index_counter_array.extent_one_beyond", "bug_rtl"))});
  if (form != "behavioural") {
    s.bugs.push_back({"bug_carry.ys", body(c.mutant(cfg, "index_counter_array.tree_carry_dropped",
                                                    "bug_carry_rtl"))});
  }
  if (symmetric) {
    s.bugs.push_back({"bug_fold.ys", body(c.mutant(cfg, "index_counter_array.fold_sign_dropped",
                                                   "bug_fold_rtl"))});
  }
  return s;
}

// index_counter_adders CFG: the config's compressor tree module at every size 1 .. 32 against
// a popcount, and its counting-bank adder at widths 2 .. 13 against a + b
// (oasis_formal_index_counter_adders.sv); CFG must have rows of several beats.
ProofSetup kind_index_counter_adders(Context& c, const std::string& cfg) {
  const std::string top = "oasis_formal_index_counter_adders";
  const std::string tree = fmt::format("oasis_{}_index_counter_array_tree", cfg);
  const std::string add = fmt::format("oasis_{}_index_counter_array_add", cfg);
  auto body = [&](const Rtl& rtl) {
    const std::string d = rtl.name;
    return fmt::format(
        "read_verilog -sv {}/oasis_fa.sv {}/oasis_ha.sv {}/{}.sv {}/{}.sv\n"
        "read_verilog -sv -formal -DOASIS_TREE={} -DOASIS_ADD={} ../formal/{}.sv\n"
        "hierarchy -check -top {}\nprep -top {}; flatten; opt_clean; opt -full\n"
        "sat -verify -prove-asserts -show-inputs {}\n",
        d, d, d, tree, d, add, tree, add, top, top, top, top);
  };
  return {{"prove.ys", body(c.clean(cfg))},
          {{"bug_tree.ys",
            body(c.mutant(cfg, "index_counter_array.tree_carry_dropped", "bug_tree_rtl"))},
           {"bug_add.ys",
            body(c.mutant(cfg, "index_counter_array.bank_carry_dropped", "bug_add_rtl"))}}};
}

// equiv CFG BLOCK: the block's RTL against its own Yosys netlist (synth -flatten, as make
// test's Yosys check makes it). Registers are matched by name; every other internal name of
// the netlist is hidden, so only ports and registers are equivalence points. The bug variant:
// the netlist of a broken RTL against the intact RTL.
ProofSetup kind_equiv(Context& c, const std::string& cfg, const std::string& block) {
  const std::string top = fmt::format("oasis_{}_{}", cfg, block);
  auto body = [&](const Rtl& gold, const Rtl& gate) {
    return fmt::format(
        "read_verilog -sv {}\nhierarchy -check -top {}\nproc; flatten; async2sync; opt_clean\n"
        "rename {} gold\ndesign -stash gold\n"
        "read_verilog -sv {}\nsynth -flatten -top {}\nrename {} gate\n"
        "select -set keep gate/i:* gate/o:* %u gate/t:$_*DFF* gate/t:$*dff* %u %co:+[Q] "
        "gate/w:* %i %u\n"
        "rename -hide gate/w:* @keep %d\nasync2sync\ndesign -stash gate\n"
        "design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
        "equiv_make gold gate equiv\nhierarchy -top equiv\nequiv_simple -seq 5\n"
        "equiv_induct -seq 5\nequiv_status -assert\n",
        Context::sources(gold, block), top, top, Context::sources(gate, block), top, top);
  };
  static const std::map<std::string, std::string> bugs = {
      {"comparator", "comparator.magnitude_ge"},
      {"clustering_unit", "clustering_unit.equal_goes_down"},
      {"index_counter_array", "index_counter_array.extent_one_beyond"},
      {"fp16_add", "fp_round.ties_away"},
      {"fp16_mul", "fp_round.ties_away"}};
  const auto bug = bugs.find(block);
  if (bug == bugs.end()) throw std::runtime_error("no injected bug for block " + block);
  const Rtl rtl = c.clean(cfg);
  return {{"prove.ys", body(rtl, rtl)},
          {{"bug.ys", body(rtl, c.mutant(cfg, bug->second, "bug_rtl"))}}};
}

// ---------------------------------------------------------------------------- the proofs

struct Proof {
  std::string name;
  std::vector<std::string> configs;  ///< the configs it reads
  std::function<ProofSetup(Context&)> setup;
};

const std::vector<Proof>& proofs() {
  static const std::vector<Proof> list = [] {
    std::vector<Proof> p;
    p.push_back({"comparator", {"cu2"}, [](Context& c) { return kind_comparator(c, "cu2"); }});
    for (const auto& [name, cfg] :
         std::vector<std::pair<std::string, std::string>>{{"na1", "cu1"},
                                                          {"na2", "cu2"},
                                                          {"na3", "cu3"},
                                                          {"na4", "cu4"},
                                                          {"na4_2levels", "cu4l2"}}) {
      p.push_back({"clustering_unit." + name, {cfg}, [cfg = cfg](Context& c) {
                     return kind_clustering(c, cfg);
                   }});
    }
    p.push_back({"clustering_unit.count_lemmas", {}, kind_cluster_lemmas});
    auto orizuru = [&p](const std::string& name, const std::string& cfg, int outliers, int free,
                        const std::string& form) {
      p.push_back(
          {name, {cfg}, [=](Context& c) { return kind_orizuru(c, cfg, outliers, free, form); }});
    };
    orizuru("orizuru.n2_k1", "oz2", 1, 1, "structural");
    orizuru("orizuru.n4_k1", "oz4", 1, 1, "structural");
    orizuru("orizuru.n6_k1", "oz6", 1, 0, "structural");
    orizuru("orizuru.n8_k1", "oz8", 1, 0, "structural");
    orizuru("orizuru.n8_k2", "oz8k2", 2, 0, "structural");
    orizuru("orizuru.n16_k1", "oz16", 1, 0, "structural");
    orizuru("orizuru.n8_k2_t130", "oz8k2t130", 2, 0, "structural");
    orizuru("orizuru.n8_k2_t80", "oz8k2t80", 2, 0, "structural");
    orizuru("orizuru.n8_k2_t50", "oz8k2t50", 2, 0, "structural");
    orizuru("orizuru.n8_k2_c3", "oz8k2c3", 2, 0, "structural");
    orizuru("orizuru.n6_k1.behavioural", "oz6", 1, 0, "behavioural");
    orizuru("orizuru.n8_k2.behavioural", "oz8k2", 2, 0, "behavioural");
    orizuru("orizuru.n8_k2_c3.behavioural", "oz8k2c3", 2, 0, "behavioural");
    for (const char* n : {"2", "4", "6", "8", "16"}) {
      const std::string cfg = std::string("oz") + n;
      p.push_back({fmt::format("orizuru.scan_lemmas.n{}", n), {cfg}, [cfg](Context& c) {
                     return kind_topk_lemmas(c, cfg);
                   }});
    }
    auto counter = [&p](const std::string& name, const std::string& cfg, const std::string& form) {
      p.push_back({name, {cfg}, [=](Context& c) { return kind_index_counter(c, cfg, form); }});
    };
    counter("index_counter_array.c1_i16", "ic1", "structural");
    counter("index_counter_array.c2_i16", "ic2", "structural");
    counter("index_counter_array.c1_i16_stage", "ic1s", "structural");
    counter("index_counter_array.c1_i16_tree2", "ic1t", "structural");
    counter("index_counter_array.c1_i16_tree2.behavioural", "ic1t", "behavioural");
    counter("index_counter_array.c1_i16_sym", "ic1y", "structural");
    counter("index_counter_array.c1_i16.behavioural", "ic1", "behavioural");
    counter("index_counter_array.c2_i16.behavioural", "ic2", "behavioural");
    p.push_back({"index_counter_array.adders", {"ic3"}, [](Context& c) {
                   return kind_index_counter_adders(c, "ic3");
                 }});
    auto equiv = [&p](const std::string& cfg, const std::string& block, const std::string& tag) {
      p.push_back(
          {"netlist." + block + tag, {cfg}, [=](Context& c) { return kind_equiv(c, cfg, block); }});
    };
    equiv("cu2", "comparator", "");
    equiv("cu2", "clustering_unit", "");
    equiv("ic1", "index_counter_array", "");
    equiv("cu2", "fp16_add", "");
    equiv("fp50", "fp16_add", "_t50");
    p.push_back({"axi_lite", {"ax"}, [](Context& c) { return kind_axi_lite(c, "ax"); }});
    return p;
  }();
  return list;
}

// ---------------------------------------------------------------------------- running

struct Options {
  std::string build;
  std::string out;
  std::string source;
  int jobs = 1;
  int timeout = 1800;
  bool list = false;
  std::vector<std::string> patterns;
};

// Yosys on a script in the proof's folder; true when it ran to the end. Implicit nets,
// undriven nets, logic loops and conflicting drivers are errors, in the design as in the
// wrappers (an undriven net would be a free input of the proof).
bool run_yosys(const Options& o, const fs::path& dir, const std::string& script,
               const std::string& log) {
  fs::remove(dir / log);
  return run_tool({"timeout", std::to_string(o.timeout), "yosys", "-q", "-e",
                   "implicitly declared|no driver|logic loop|conflicting", "-l", log, "-s", script},
                  dir / "yosys.out", dir) == 0;
}

std::string log_of(const std::string& script) {
  return script.substr(0, script.size() - 3) + ".log";
}

// How many lines of `text` match `re`.
long count_lines(const std::string& text, const std::regex& re) {
  std::istringstream in(text);
  std::string line;
  long n = 0;
  while (std::getline(in, line)) n += std::regex_search(line, re);
  return n;
}

// Every sat and equiv_status of the script succeeded.
bool expect_proof(const Options& o, const fs::path& dir, const Script& s) {
  if (!run_yosys(o, dir, s.file, log_of(s.file))) return false;
  const std::string log = read_text(dir / log_of(s.file));
  const long want = count_lines(s.text, std::regex("^(sat |equiv_status)"));
  const long got = count_lines(log, std::regex("SUCCESS!|Equivalence successfully proven"));
  return want > 0 && got >= want && log.find("FAIL!") == std::string::npos;
}

// Yosys stopped because a proof found a counterexample (not for any other error).
bool expect_counterexample(const Options& o, const fs::path& dir, const Script& s) {
  if (run_yosys(o, dir, s.file, log_of(s.file))) return false;
  const std::string log = read_text(dir / log_of(s.file));
  return count_lines(log, std::regex(R"(model found.*FAIL!|unproven \$equiv cells)")) > 0;
}

struct Result {
  bool pass = false;
  double seconds = 0;
  std::string note;
};

// The counterexample of a failed proof: the rows of Yosys's signal table, at most 60 lines.
std::string counterexample(const fs::path& log) {
  std::istringstream in(read_text(log));
  std::string line, out;
  bool on = false;
  int lines = 0;
  while (std::getline(in, line) && lines < 60) {
    if (line.find("Signal Name") != std::string::npos) on = true;
    if (!on) continue;
    if (line.empty()) break;
    out += "  " + line + "\n";
    ++lines;
  }
  return out;
}

Result run_proof(const Options& o, const fs::path& dir, const ProofSetup& s) {
  Result r;
  const auto t0 = std::chrono::steady_clock::now();
  r.pass = expect_proof(o, dir, s.proof);
  r.seconds = seconds_since(t0);
  r.note = r.pass ? "proven" : fmt::format("NOT proven (log: {})", (dir / "prove.log").string());
  const auto t1 = std::chrono::steady_clock::now();
  bool caught = true;
  for (const auto& bug : s.bugs) {
    if (!expect_counterexample(o, dir, bug)) {
      caught = false;
      r.pass = false;
      r.note +=
          fmt::format("; injected bug NOT caught (log: {})", (dir / log_of(bug.file)).string());
    }
  }
  if (caught) r.note += fmt::format("; injected bug caught in {:.1f} s", seconds_since(t1));
  return r;
}

Options parse(int argc, char** argv, int& status) {
  Options o;
  CLI::App app{
      "oasis-prove: formal proofs of generated blocks with Yosys's SAT solver, each with a bug "
      "injected on purpose that must be refuted (docs/formal.md)"};
  app.add_option("--build", o.build, "the build folder")->required();
  app.add_option("--out", o.out,
                 "where the configs, scripts and logs are written (default BUILD/prove)");
  app.add_option("--source", o.source,
                 "the project folder (configs/default.json, verif/formal); default: the one this "
                 "program was built from")
      ->default_str(OASIS_SOURCE_DIR);
  app.add_option("-j,--jobs", o.jobs, "Yosys runs at a time")->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds a Yosys run may take")->capture_default_str();
  app.add_flag("--list", o.list, "list the proofs (those the patterns select) and stop");
  app.add_option("patterns", o.patterns,
                 "shell patterns on the proof names; only the proofs one matches run");
  o.source = OASIS_SOURCE_DIR;
  status = parse_command_line(app, argc, argv, "oasis-prove");
  if (status >= 0) return o;
  if (o.jobs < 1 || o.jobs > 256) {
    throw UsageError(fmt::format("--jobs is {}; allowed: 1 to 256", o.jobs));
  }
  if (o.timeout < 1)
    throw UsageError(fmt::format("--timeout is {}; allowed: 1 or more", o.timeout));
  if (!fs::is_directory(o.build)) {
    throw UsageError(fmt::format("--build {}: no such folder (run make build first)", o.build));
  }
  for (const char* f : {"configs/default.json", "verif/formal/oasis_formal_orizuru.sv"}) {
    if (!fs::exists(fs::path(o.source) / f)) {
      throw UsageError(
          fmt::format("--source {}: no {} there; give the project folder", o.source, f));
    }
  }
  return o;
}

// The file that marks a folder as oasis-prove's: it replaces the proofs' folders in it, and
// writes into no other folder that is not empty.
constexpr const char* kMarker = "oasis-prove.txt";

void check_out(const fs::path& out, const std::string& given) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out)) {
    throw UsageError(fmt::format("--out {}: is a file, not a folder", given));
  }
  if (fs::is_empty(out) || fs::exists(out / kMarker)) return;
  // A folder of make prove's earlier shell driver: its configs (rtl/) and one folder a proof,
  // each with its prove.ys (and this command's link to the wrappers, formal, if it ran there).
  bool earlier = true;
  for (const auto& e : fs::directory_iterator(out)) {
    earlier = earlier && e.is_directory() &&
              (e.path().filename() == "rtl" || e.path().filename() == "formal" ||
               fs::exists(e.path() / "prove.ys"));
  }
  if (earlier) return;
  throw UsageError(fmt::format(
      "--out {}: holds files and no {} of an earlier run; allowed: a new or empty folder, or "
      "one oasis-prove wrote. Nothing was written or deleted",
      given, kMarker));
}

bool selected(const Options& o, const std::string& name) {
  if (o.patterns.empty()) return true;
  for (const auto& p : o.patterns) {
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

int run(int argc, char** argv) {
  int status = 0;
  const Options o = parse(argc, argv, status);
  if (status >= 0) return status;
  std::vector<const Proof*> todo;
  for (const auto& p : proofs()) {
    if (selected(o, p.name)) todo.push_back(&p);
  }
  if (todo.empty()) {
    std::string names;
    for (const auto& p : proofs()) names += (names.empty() ? "" : ", ") + p.name;
    throw UsageError(
        fmt::format("no proof matches {}; the proofs: {}", fmt::join(o.patterns, " "), names));
  }
  if (o.list) {
    for (const Proof* p : todo) std::printf("%s\n", p->name.c_str());
    return 0;
  }
  if (find_program("yosys").empty()) {
    throw UsageError("yosys not found (make deps installs it)");
  }
  const fs::path source = fs::absolute(o.source);
  const fs::path out = fs::absolute(o.out.empty() ? fs::path(o.build) / "prove" : fs::path(o.out));
  check_out(out, o.out.empty() ? (fs::path(o.build) / "prove").string() : o.out);
  fs::create_directories(out);
  write_text(out / kMarker,
             "Written by oasis-prove (make prove, docs/formal.md): each run replaces the folders "
             "of the proofs it runs.\n");
  // verif/formal as ../formal from every proof's folder.
  fs::remove(out / "formal");
  fs::create_directory_symlink(source / "verif" / "formal", out / "formal");

  std::printf("prove: %zu proofs, %d at a time, output in %s\n", todo.size(), o.jobs,
              out.string().c_str());
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  std::set<std::string> configs;
  for (const Proof* p : todo) configs.insert(p->configs.begin(), p->configs.end());
  for (const auto& cfg : configs) {
    write_files(out / "rtl" / cfg, render_config(source, config_spec(cfg), out / "rtl" / cfg));
  }

  // Every proof's scripts and mutants, before any Yosys run.
  std::vector<std::optional<ProofSetup>> setups(todo.size());
  std::vector<Result> results(todo.size());
  for (size_t i = 0; i < todo.size(); ++i) {
    const fs::path dir = out / todo[i]->name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    try {
      Context c(source, out, dir);
      ProofSetup s = todo[i]->setup(c);
      write_text(dir / s.proof.file, s.proof.text);
      for (const auto& b : s.bugs) write_text(dir / b.file, b.text);
      setups[i] = std::move(s);
    } catch (const std::exception& e) {
      results[i] = {false, 0, fmt::format("setup failed: {}", e.what())};
    }
  }

  std::mutex print;
  auto report = [&](size_t i) {
    std::lock_guard<std::mutex> lock(print);
    const Result& r = results[i];
    std::printf("prove: %-38s %-4s %7.1f s  %s\n", todo[i]->name.c_str(), r.pass ? "PASS" : "FAIL",
                r.seconds, r.note.c_str());
    const fs::path log = out / todo[i]->name / "prove.log";
    if (!r.pass && fs::exists(log) && read_text(log).find("FAIL!") != std::string::npos) {
      std::printf("  counterexample (%s):\n%s", log.string().c_str(), counterexample(log).c_str());
    }
    std::fflush(stdout);
  };
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < todo.size();) {
      if (setups[i]) {
        try {
          results[i] = run_proof(o, out / todo[i]->name, *setups[i]);
        } catch (const std::exception& e) {
          results[i] = {false, 0, fmt::format("the proof's run stopped: {}", e.what())};
        }
      }
      report(i);
    }
  };
  std::vector<std::thread> workers;
  for (int j = 0; j < std::min<int>(o.jobs, static_cast<int>(todo.size())); ++j) {
    workers.emplace_back(worker);
  }
  for (auto& w : workers) w.join();

  size_t failed = 0;
  for (const auto& r : results) failed += !r.pass;
  const double total = seconds_since(start);
  if (failed > 0) {
    std::fprintf(stderr, "prove: %zu of %zu proofs FAILED (wall time %.1f s)\n", failed,
                 todo.size(), total);
    return 1;
  }
  std::printf("prove: all %zu proofs PASS, every injected bug caught (wall time %.1f s)\n",
              todo.size(), total);
  return 0;
}

}  // namespace oasis_prove_command

namespace oasis::commands {
int oasis_prove(int argc, char** argv) {
  return oasis::ppa::command_main("oasis-prove",
                                  [&] { return oasis_prove_command::run(argc, argv); });
}
}  // namespace oasis::commands
