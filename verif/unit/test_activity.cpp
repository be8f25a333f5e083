// SPDX-License-Identifier: Apache-2.0
// The power from activity (docs/ppa.md, "Power from activity"): Liberty functions and power
// tables as OpenSTA reads them, the gate-level simulator's toggle and high counts against a
// hand count on circuits of known activity, the power model against a hand computation from
// the library's tables, and activity files that belong to another netlist.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/ppa/activity.hpp"
#include "sim/ppa/gatesim.hpp"
#include "sim/ppa/liberty.hpp"
#include "sim/ppa/netlist.hpp"
#include "sim/ppa/power.hpp"
#include "sim/ppa/run.hpp"
#include "verif/unit/test_support.hpp"

namespace oasis::ppa {
namespace {

namespace fs = std::filesystem;

const fs::path kOsu018 = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";

// The tree OpenSTA builds, written out: the shape matters to the power model's inferred
// conditions.
std::string tree(const LibertyFunc& f, int n) {
  const LibertyFunc::Node& x = f.nodes[size_t(n)];
  switch (x.op) {
    case LibertyFunc::Op::kPort:
      return x.port;
    case LibertyFunc::Op::kNot:
      return "!" + tree(f, x.left);
    case LibertyFunc::Op::kAnd:
      return "(" + tree(f, x.left) + "&" + tree(f, x.right) + ")";
    case LibertyFunc::Op::kOr:
      return "(" + tree(f, x.left) + "|" + tree(f, x.right) + ")";
    case LibertyFunc::Op::kXor:
      return "(" + tree(f, x.left) + "^" + tree(f, x.right) + ")";
    case LibertyFunc::Op::kOne:
      return "1";
    case LibertyFunc::Op::kZero:
      return "0";
  }
  return "?";
}

std::string parsed(const std::string& text) {
  const LibertyFunc f = parse_liberty_func(text, "t");
  return tree(f, f.root);
}

TEST(LibertyFunc, ParsesAsOpenStaDoes) {
  // Precedence: not, terms side by side (and), xor, and (& or *), or (+ or |);
  // left-associative.
  EXPECT_EQ(parsed("(A B)"), "(A&B)");
  EXPECT_EQ(parsed("A+B C"), "(A|(B&C))");
  EXPECT_EQ(parsed("A B^C"), "((A&B)^C)");
  EXPECT_EQ(parsed("A&B^C"), "(A&(B^C))");
  EXPECT_EQ(parsed("A*B+C&D"), "((A&B)|(C&D))");
  EXPECT_EQ(parsed("!A B'"), "(!A&!B)");
  EXPECT_EQ(parsed("(((A B)+(B C))+(C A))"), "(((A&B)|(B&C))|(C&A))");
  EXPECT_EQ(parsed("((A^B)^C)"), "((A^B)^C)");
  EXPECT_EQ(parsed("A|B|C"), "((A|B)|C)");
  EXPECT_EQ(parsed("1"), "1");
  const LibertyFunc aoi = parse_liberty_func("(!((A B)+C))", "t");
  EXPECT_EQ(aoi.ports(), (std::vector<std::string>{"A", "B", "C"}));
  for (int v = 0; v < 8; ++v) {
    const bool a = v & 1, b = v & 2, c = v & 4;
    EXPECT_EQ(aoi.eval([&](const std::string& p) { return p == "A"   ? a
                                                          : p == "B" ? b
                                                                     : c; }),
              !((a && b) || c));
  }
  EXPECT_THROW(parse_liberty_func("(A B", "t"), LibertyError);
  EXPECT_THROW(parse_liberty_func("A +", "t"), LibertyError);
  EXPECT_THROW(parse_liberty_func("A ) B", "t"), LibertyError);
}

TEST(LibertyTable, InterpolatesAndExtrapolatesAsOpenStaDoes) {
  LibertyTable t;
  t.variables = {"total_output_net_capacitance", "input_transition_time"};
  t.index1 = {1, 2};
  t.index2 = {10, 20, 40};
  t.values = {1, 2, 4, 3, 5, 9};  // row load 1: 1 2 4; row load 2: 3 5 9
  EXPECT_DOUBLE_EQ(t.lookup(10, 1), 1);
  EXPECT_DOUBLE_EQ(t.lookup(30, 2), 7);
  EXPECT_DOUBLE_EQ(t.lookup(15, 1.5), 0.5 * (1.5 + 4));
  // Outside the axes: the line through the two nearest points.
  EXPECT_DOUBLE_EQ(t.lookup(60, 1), 6);
  EXPECT_DOUBLE_EQ(t.lookup(10, 3), 5);
  EXPECT_DOUBLE_EQ(t.lookup(0, 1), 0);
}

TEST(Liberty, ReadsStateAndPowerOfOsu018) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  EXPECT_DOUBLE_EQ(lib.voltage, 1.8);
  EXPECT_DOUBLE_EQ(lib.energy_unit_joules(), 1e-12);
  EXPECT_DOUBLE_EQ(lib.leakage_unit_watts(), 1e-9);
  const LibertyCell& dff = lib.cell("DFFSR");
  ASSERT_TRUE(dff.state);
  EXPECT_EQ(tree(dff.state->next, dff.state->next.root), "D");
  EXPECT_EQ(tree(dff.state->clear, dff.state->clear.root), "!R");
  EXPECT_EQ(dff.state->clear_preset_var1, 'L');
  EXPECT_FALSE(lib.cell("NAND2X1").state);
  // The flip-flop's clock pin has its own (passive) energy; the inverter's output one per arc.
  const auto& clk = lib.cell("DFFPOSX1").internal_power;
  ASSERT_FALSE(clk.empty());
  bool passive = false;
  for (const auto& p : clk) passive = passive || (p.pin == "CLK" && p.related_pin.empty());
  EXPECT_TRUE(passive);
  const auto& inv = lib.cell("INVX1").internal_power;
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].pin, "Y");
  EXPECT_EQ(inv[0].related_pin, "A");
  ASSERT_TRUE(inv[0].rise && inv[0].fall);
  EXPECT_DOUBLE_EQ(lib.cell("DFFPOSX1").pin("CLK")->fall_capacitance, 0.0274634);
}

// A 3-bit counter (DFFSR, cleared by rst_ni) and a 3-stage shift register (DFFPOSX1) fed
// d_i, in osu018's cells.
const char* kCounterBlif = R"blif(.model counter
.inputs clk_i rst_ni d_i
.outputs q_o[0] q_o[1] q_o[2] s_o[0] s_o[1] s_o[2]
.names $true
1
.gate CLKBUF1 A=clk_i Y=ck
.gate INVX1 A=q0 Y=n0
.gate XOR2X1 A=q1 B=q0 Y=x1
.gate AND2X1 A=q1 B=q0 Y=c1
.gate XOR2X1 A=q2 B=c1 Y=x2
.gate DFFSR CLK=ck D=n0 R=rst_ni S=$true Q=q0
.gate DFFSR CLK=ck D=x1 R=rst_ni S=$true Q=q1
.gate DFFSR CLK=ck D=x2 R=rst_ni S=$true Q=q2
.gate DFFPOSX1 CLK=ck D=d_i Q=s0
.gate DFFPOSX1 CLK=ck D=s0 Q=s1
.gate DFFPOSX1 CLK=ck D=s1 Q=s2
.names q0 q_o[0]
1 1
.names q1 q_o[1]
1 1
.names q2 q_o[2]
1 1
.names s0 s_o[0]
1 1
.names s1 s_o[1]
1 1
.names s2 s_o[2]
1 1
.end
)blif";

// The counter's and shift register's values cycle by cycle, by hand: rst_ni low in cycles 0
// and 1; d_i the pattern 1101 0010 1110 ... (bit c of kPattern).
struct Counted {
  std::vector<std::map<std::string, int>> values;  // per cycle: net -> value
  std::string vectors;
};

Counted count_by_hand(int cycles) {
  const uint32_t kPattern = 0xB74D2E3Bu;
  Counted c;
  c.vectors = "# ports: in:rst_ni:1 in:d_i:1 out:q_o:3 out:s_o:3\n";
  int q = 0, s[3] = {0, 0, 0};
  for (int t = 0; t < cycles; ++t) {
    const int rst_n = t >= 2 ? 1 : 0;
    const int d = (kPattern >> (t % 32)) & 1;
    if (!rst_n) q = 0;
    std::map<std::string, int> v;
    v["rst_ni"] = rst_n;
    v["d_i"] = d;
    for (int b = 0; b < 3; ++b) v[fmt::format("q{}", b)] = (q >> b) & 1;
    v["n0"] = !(q & 1);
    v["x1"] = ((q >> 1) ^ q) & 1;
    v["c1"] = (q >> 1) & q & 1;
    v["x2"] = ((q >> 2) ^ (((q >> 1) & q) & 1)) & 1;
    for (int b = 0; b < 3; ++b) v[fmt::format("s{}", b)] = s[b];
    c.values.push_back(v);
    c.vectors += fmt::format("{} {} {:x} {:x}\n", rst_n, d, q, s[0] | (s[1] << 1) | (s[2] << 2));
    // The rising edge.
    q = rst_n ? (q + 1) & 7 : 0;
    s[2] = s[1];
    s[1] = s[0];
    s[0] = d;
  }
  return c;
}

TEST(GateSim, CountsTogglesAndHighCyclesAsByHand) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  const GateNetlist nl = parse_blif(kCounterBlif, "counter.blif");
  GateSim sim(nl, lib);
  EXPECT_EQ(sim.flip_flops(), 6);
  EXPECT_TRUE(sim.is_clock(sim.net("ck")));
  EXPECT_TRUE(sim.is_constant(sim.net("$true")));
  const test::TempDir dir("gatesim");
  const int cycles = 100;
  const Counted hand = count_by_hand(cycles);
  write_text(dir.path() / "vectors.txt", hand.vectors);
  const int64_t begin = 5, end = 90;
  const NetActivity a = simulate_vectors(sim, nl, dir.path() / "vectors.txt", begin, end);
  EXPECT_EQ(a.lines, cycles);
  EXPECT_EQ(a.cycles(), end - begin);
  EXPECT_EQ(a.output_bits_tolerated, 0);
  EXPECT_GT(a.output_bits_compared, 0);
  for (const auto& [name, v0] : hand.values[0]) {
    uint32_t toggles = 0, high = 0;
    for (int64_t t = begin; t < end; ++t) {
      toggles += hand.values[size_t(t)].at(name) != hand.values[size_t(t - 1)].at(name);
      high += hand.values[size_t(t)].at(name);
    }
    const int n = sim.net(name);
    ASSERT_GE(n, 0) << name;
    EXPECT_EQ(a.toggles[size_t(n)], toggles) << name;
    EXPECT_EQ(a.high[size_t(n)], high) << name;
  }
  // q0 toggles every cycle of the window, q2 every fourth.
  EXPECT_EQ(a.toggles[size_t(sim.net("q0"))], uint32_t(end - begin));
  EXPECT_EQ(a.toggles[size_t(sim.net("q2"))], uint32_t((end - begin) / 4));
  // The clock and a constant do not move in the simulation: their activity is the model's.
  EXPECT_EQ(a.toggles[size_t(sim.net("ck"))], 0u);
  EXPECT_EQ(a.toggles[size_t(sim.net("$true"))], 0u);
}

TEST(GateSim, RefusesARecordingTheNetlistDoesNotGive) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  const GateNetlist nl = parse_blif(kCounterBlif, "counter.blif");
  GateSim sim(nl, lib);
  const test::TempDir dir("gatesim_bad");
  std::string v = count_by_hand(20).vectors;
  // One recorded output bit flipped in cycle 10 (line 12): the simulation must disagree there.
  size_t at = 0;
  for (int line = 0; line < 11; ++line) at = v.find('\n', at) + 1;
  v[v.find('\n', at) - 1] ^= 1;
  write_text(dir.path() / "vectors.txt", v);
  try {
    simulate_vectors(sim, nl, dir.path() / "vectors.txt", 0, -1);
    FAIL() << "a recording the netlist does not give was accepted";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle 10: s_o"), std::string::npos) << e.what();
  }
  // A gated clock is refused.
  std::string gated = kCounterBlif;
  gated.replace(gated.find(".gate CLKBUF1 A=clk_i Y=ck"), 26, ".gate AND2X1 A=clk_i B=d_i Y=ck");
  EXPECT_THROW(GateSim(parse_blif(gated, "g.blif"), lib), SimError);
}

// An SRAM's module (docs/sram.md) as the simulator's memory: the words as written lane by
// lane, the read taking the word as it was before the edge's write and holding it, and the
// accesses counted only while counting is on.
TEST(GateSim, SimulatesAnSramAsItsContractSays) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  std::string blif =
      ".model mem\n.inputs clk_i we_i re_i waddr_i[0] raddr_i[0] wlane_i[0] wlane_i[1] "
      "wdata_i[0] wdata_i[1] wdata_i[2] wdata_i[3]\n.outputs q_o[0] q_o[1] q_o[2] q_o[3]\n"
      ".gate oasis_x_mem clk_i=clk_i we_i=we_i re_i=re_i waddr_i[0]=waddr_i[0] "
      "raddr_i[0]=raddr_i[0] wlane_i[0]=wlane_i[0] wlane_i[1]=wlane_i[1] wdata_i[0]=wdata_i[0] "
      "wdata_i[1]=wdata_i[1] wdata_i[2]=wdata_i[2] wdata_i[3]=wdata_i[3] rdata_o[0]=r0 "
      "rdata_o[1]=r1 rdata_o[2]=r2 rdata_o[3]=r3\n";
  for (int b = 0; b < 4; ++b) blif += fmt::format(".gate BUFX2 A=r{0} Y=q_o[{0}]\n", b);
  blif += ".end\n";
  const GateNetlist nl = parse_blif(blif, "mem.blif");
  GateSim sim(nl, lib, "clk_i", {"oasis_x_mem"});
  const auto cycle = [&](bool we, int waddr, int wlane, int wdata, bool re, int raddr) {
    sim.set(sim.net("we_i"), we);
    sim.set(sim.net("re_i"), re);
    sim.set(sim.net("waddr_i[0]"), waddr != 0);
    sim.set(sim.net("raddr_i[0]"), raddr != 0);
    for (int l = 0; l < 2; ++l) sim.set(sim.net(fmt::format("wlane_i[{}]", l)), (wlane >> l) & 1);
    for (int b = 0; b < 4; ++b) sim.set(sim.net(fmt::format("wdata_i[{}]", b)), (wdata >> b) & 1);
    sim.settle();
    sim.clock_edge();
    sim.settle();
    int q = 0;
    for (int b = 0; b < 4; ++b) q |= int(sim.value(sim.net(fmt::format("q_o[{}]", b)))) << b;
    return q;
  };
  cycle(true, 0, 0b11, 0xa, false, 0);  // not counted: word 0 = a
  sim.count_accesses(true);
  EXPECT_EQ(cycle(true, 1, 0b01, 0x5, true, 0), 0xa);  // word 1 = 1 (lane 0 only)
  EXPECT_EQ(cycle(true, 0, 0b10, 0x3, true, 0), 0xa) << "the read sees the word before the write";
  EXPECT_EQ(cycle(false, 0, 0b11, 0xf, false, 1), 0xa) << "held without re_i";
  EXPECT_EQ(cycle(false, 0, 0b11, 0xf, true, 0), 0x2) << "word 0 after its lane 1 was written";
  sim.count_accesses(false);
  EXPECT_EQ(cycle(false, 0, 0, 0, true, 1), 0x1);
  const std::vector<MemoryAccesses> m = sim.memory_accesses();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].cell, "oasis_x_mem");
  EXPECT_EQ(m[0].width, 4);
  EXPECT_EQ(m[0].lanes, 2);
  EXPECT_EQ(m[0].reads, 3);
  EXPECT_EQ(m[0].lane_writes, 2);
  EXPECT_EQ(m[0].bits_read(), 12);
  EXPECT_EQ(m[0].bits_written(), 4);
  // A box without a port of the contract is refused, naming the port.
  std::string no_re = blif;
  no_re.erase(no_re.find(" re_i=re_i"), 10);
  try {
    GateSim(parse_blif(no_re, "m.blif"), lib, "clk_i", {"oasis_x_mem"});
    FAIL() << "a memory without re_i was accepted";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("has no pin re_i"), std::string::npos) << e.what();
  }
}

// The power model on one inverter, by hand from the library's tables.
TEST(PowerModel, AnInverterByHandFromTheTables) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  const GateNetlist nl = parse_blif(
      ".model inv\n.inputs a_i\n.outputs y_o\n.gate INVX1 A=a_i Y=y_o\n.end\n", "inv.blif");
  GateSim sim(nl, lib, "");
  const std::vector<std::string> instances = {"u_y"};
  const PinSlews slews = {{"u_y/A", {0.2f, 0.3f}}, {"u_y/Y", {0.1f, 0.1f}}};
  const double load = 0.05, period = 10;
  const PowerInputs in{&nl, &sim, &lib, &instances, &slews, period, load};
  const double toggles = 0.3;
  const auto p = instance_power(in, [&](int) { return Activity{toggles, 0.5}; });
  ASSERT_EQ(p.size(), 1u);
  const LibertyInternalPower& ip = lib.cell("INVX1").internal_power[0];
  const double c = load + 0;  // the inverter's output pin has no capacitance of its own
  const double rate = toggles / (period * 1e-9);
  // The inverter's output is its input's function alone: OpenSTA's duty is 1 (the input's
  // toggles over the output's), so each output toggle costs the rise and the fall tables.
  const double internal =
      (ip.rise->lookup(double(0.2f), c) + ip.fall->lookup(double(0.3f), c)) * 1.0 * 1e-12 * rate;
  const double switching = 0.5 * c * 1e-12 * 1.8 * 1.8 * rate;
  EXPECT_NEAR(p[0].internal, internal, 1e-12 * internal);
  EXPECT_NEAR(p[0].switching, switching, 1e-12 * switching);
  EXPECT_DOUBLE_EQ(p[0].leakage, lib.cell("INVX1").leakage * 1e-9);
  // No toggles: no internal or switching power, the leakage stays.
  const auto q = instance_power(in, [&](int) { return Activity{0, 1}; });
  EXPECT_EQ(q[0].internal + q[0].switching, 0.0);
  EXPECT_GT(q[0].leakage, 0.0);
}

TEST(PowerModel, AClockPinCostsEveryCycleWhateverTheData) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  const GateNetlist nl = parse_blif(kCounterBlif, "counter.blif");
  GateSim sim(nl, lib);
  std::vector<std::string> instances;
  PinSlews slews;
  for (size_t g = 0; g < nl.gates.size(); ++g) {
    instances.push_back(fmt::format("u{}", g));
    for (const auto& [pin, net] : nl.gates[g].pins)
      slews[instances.back() + "/" + pin] = {0.1f, 0.1f};
  }
  const PowerInputs in{&nl, &sim, &lib, &instances, &slews, 10, 0.02};
  // Data still: only the clock network's power is left (and leakage).
  const auto still = sum_power(instance_power(in, [&](int) { return Activity{0, 0}; }), nl, lib);
  EXPECT_GT(still.clock, 0);
  EXPECT_NEAR(still.internal + still.switching, still.clock, 1e-15);
  EXPECT_DOUBLE_EQ(still.sequential + still.combinational, 0);
  const auto moving = sum_power(instance_power(in,
                                               [&](int) {
                                                 return Activity{0.5, 0.5};
                                               }),
                                nl, lib);
  EXPECT_DOUBLE_EQ(moving.clock, still.clock);
  EXPECT_GT(moving.total(), still.total());
  EXPECT_NEAR(moving.clock + moving.sequential + moving.combinational + moving.leakage,
              moving.total(), 1e-12 * moving.total());
}

TEST(Activity, AFileOfAnotherNetlistIsRefused) {
  if (!fs::exists(kOsu018)) GTEST_SKIP() << "qflow-tech-osu018 is not installed";
  const Liberty lib = read_liberty(kOsu018);
  const GateNetlist nl = parse_blif(kCounterBlif, "counter.blif");
  GateSim sim(nl, lib);
  const test::TempDir dir("activity_file");
  write_text(dir.path() / "vectors.txt", count_by_hand(40).vectors);
  ActivityRecord rec;
  rec.nets = simulate_vectors(sim, nl, dir.path() / "vectors.txt", 3, -1);
  rec.workload = {{"operations", {{"unit", "cycles"}, {"count", 37}}}};
  write_activity(dir.path() / "activity.txt", sim, rec, "0123456789abcdef");
  const ActivityRecord back = read_activity(dir.path() / "activity.txt", sim, "0123456789abcdef");
  EXPECT_EQ(back.nets.toggles, rec.nets.toggles);
  EXPECT_EQ(back.nets.high, rec.nets.high);
  EXPECT_EQ(back.nets.begin, 3);
  EXPECT_EQ(back.workload, rec.workload);
  try {
    read_activity(dir.path() / "activity.txt", sim, "fedcba9876543210");
    FAIL() << "the activity of another netlist was accepted";
  } catch (const ActivityMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("not of this one"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace oasis::ppa
