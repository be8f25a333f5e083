// SPDX-License-Identifier: Apache-2.0
#include "gen/replay_tb.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace oasis::gen {

namespace {

struct TbPort {
  bool input;
  std::string name;
  int width;
};

std::string packed_dims(int width) { return width > 1 ? fmt::format("[{}:0] ", width - 1) : ""; }

// The testbench's header comment, its module header and signals, and the block's instance.
std::string replay_dut(const std::string& block, const std::string& top,
                       const std::vector<TbPort>& ports, bool clocked) {
  std::string s;
  s += fmt::format(
      "// Replays a vector file recorded by the Verilator testbench of block '{}' on {}\n"
      "// and compares every output every cycle (sim/icarus, docs/icarus.md).\n",
      block, top);
  s += "`timescale 1ns/1ps\n`default_nettype none\n";
  s += "module oasis_replay_tb #(\n"
       "  /// Time from applying a line's inputs to comparing its outputs, and from\n"
       "  /// the clock edge to the next line.\n"
       "  parameter int Settle = 1\n"
       ");\n";
  s += "  localparam int MaxErrors = 10;\n";
  if (clocked) s += "  logic clk_i = 1'b0;\n";
  for (const auto& p : ports) {
    if (p.input) {
      s += fmt::format("  logic {}{};\n", packed_dims(p.width), p.name);
    } else {
      s += fmt::format("  wire  {}{};\n", packed_dims(p.width), p.name);
      s += fmt::format("  logic {}exp_{};\n", packed_dims(p.width), p.name);
    }
  }
  s += fmt::format("  {} u_dut (\n", top);
  std::vector<std::string> conns;
  if (clocked) conns.push_back("    .clk_i(clk_i)");
  for (const auto& p : ports) conns.push_back(fmt::format("    .{0}({0})", p.name));
  for (size_t i = 0; i < conns.size(); ++i) {
    s += conns[i] + (i + 1 < conns.size() ? ",\n" : "\n");
  }
  s += "  );\n";
  return s;
}

// The vector file opened and its header checked, then each line read and the reset awaited.
std::string replay_read(const std::vector<TbPort>& ports, const std::string& header, bool has_rst) {
  std::string s;
  s += "  integer fd, got, cycle, b, bad, xs, errors, compared, tolerated;\n"
       "  logic armed;\n"
       "  logic [8*8192-1:0] line;\n"
       "  logic [8*4096-1:0] path;\n"
       "  initial begin\n"
       "    errors = 0; compared = 0; tolerated = 0; cycle = 0;\n";
  s += fmt::format("    armed = 1'b{};\n", has_rst ? 0 : 1);
  s += "    if (!$value$plusargs(\"vectors=%s\", path)) begin\n"
       "      $display(\"FAIL icarus: no +vectors=FILE\");\n"
       "      $finish;\n"
       "    end\n"
       "    fd = $fopen(path, \"r\");\n"
       "    if (fd == 0) begin\n"
       "      $display(\"FAIL icarus: cannot read %0s\", path);\n"
       "      $finish;\n"
       "    end\n"
       "    got = $fgets(line, fd);\n";
  s += fmt::format("    if (line != \"{}\\n\") begin\n", header);
  s += "      $display(\"FAIL icarus: the vector file's ports are not this testbench's: %0s\",\n"
       "               line);\n"
       "      $finish;\n"
       "    end\n"
       "    #Settle;  // every always block waits on its events before the first vector\n"
       "    got = 0;\n"
       "    while (got != -1) begin\n";
  std::string format, vars;
  for (const auto& p : ports) {
    format += format.empty() ? "%h" : " %h";
    vars += (vars.empty() ? "" : ", ") + (p.input ? p.name : "exp_" + p.name);
  }
  s += fmt::format("      got = $fscanf(fd, \"{}\\n\",\n                    {});\n", format, vars);
  s += fmt::format("      if (got != -1 && got != {}) begin\n", ports.size());
  s += "        $display(\"FAIL icarus: line %0d of the vector file is malformed\", cycle + 2);\n"
       "        $finish;\n"
       "      end\n"
       "      if (got != -1) begin\n"
       "        #Settle;  // the inputs settle through the combinational logic\n";
  if (has_rst) s += "        if (rst_ni === 1'b0) armed = 1'b1;\n";
  s += "        if (armed) begin\n";
  return s;
}

// The comparison of output `p` with its expected value under the X rule, `q` its qualifier.
std::string replay_compare(const TbPort& p, const std::string& q) {
  std::string s;
  const std::string& n = p.name;
  s += fmt::format("          if (({0} ^ exp_{0}) !== {1}'d0) begin\n", n, p.width);
  s += "            bad = 0; xs = 0;\n";
  if (p.width == 1) {
    s += fmt::format("            if ({0} !== 1'b0 && {0} !== 1'b1) xs = 1; else bad = 1;\n", n);
  } else {
    s += fmt::format(
        "            for (b = 0; b < {0}; b = b + 1)\n"
        "              if ({1}[b] !== 1'b0 && {1}[b] !== 1'b1) xs = xs + 1;\n"
        "              else if ({1}[b] !== exp_{1}[b]) bad = bad + 1;\n",
        p.width, n);
  }
  std::string why = "X or Z";
  if (!q.empty()) {
    s += fmt::format(
        "            if (xs > 0 && exp_{0} === 1'b0) tolerated = tolerated + xs;\n"
        "            if (bad > 0 || (xs > 0 && exp_{0} !== 1'b0)) begin\n",
        q);
    why = "X or Z while " + q + " is high";
  } else {
    s += "            if (bad > 0 || xs > 0) begin\n";
  }
  s += fmt::format(
      "              errors = errors + 1;\n"
      "              if (errors <= MaxErrors)\n"
      "                $display(\"MISMATCH icarus cycle=%0d: {0} expected 0x%h got 0x%h%0s\",\n"
      "                         cycle, exp_{0}, {0}, xs > 0 ? \" ({1})\" : \"\");\n"
      "            end\n"
      "          end\n"
      "          compared = compared + {2};\n",
      n, why, p.width);
  return s;
}

}  // namespace

std::string output_qualifier(const std::string& name, int width,
                             const std::function<bool(const std::string&)>& is_output) {
  if (width == 1) return "";
  const std::string own = name.substr(0, name.find('_')) + "_valid_o";
  for (const std::string& q : {own, std::string("out_valid_o")}) {
    if (is_output(q)) return q;
  }
  return "";
}

std::string replay_testbench(const Manifest& manifest, const std::string& block) {
  const std::string top = manifest.top(block);
  // The recorded ports: every port but the clock, in the manifest's order (the
  // Verilator testbench's port list comes from the same entry, sim/vltest).
  std::vector<TbPort> ports;
  bool clocked = false, has_rst = false;
  std::map<std::string, TbPort> by_name;
  for (const ManifestPort& p : manifest.ports(block)) {
    const TbPort t{p.direction == "input", p.name, int(p.width)};
    if (t.name == "clk_i") {
      clocked = true;
      continue;
    }
    if (t.name == "rst_ni") has_rst = true;
    ports.push_back(t);
    by_name[t.name] = t;
  }
  auto qualifier = [&](const TbPort& p) {
    return output_qualifier(p.name, p.width, [&](const std::string& q) {
      const auto it = by_name.find(q);
      return it != by_name.end() && !it->second.input;
    });
  };
  std::string header = "# ports:";
  for (const auto& p : ports) {
    header += fmt::format(" {}:{}:{}", p.input ? "in" : "out", p.name, p.width);
  }

  std::string s = replay_dut(block, top, ports, clocked);
  s += replay_read(ports, header, has_rst);
  for (const auto& p : ports) {
    if (p.input) continue;
    s += replay_compare(p, qualifier(p));
  }
  s += "        end\n"
       "        if (errors >= MaxErrors) begin\n"
       "          $display(\"FAIL icarus: stopped after %0d errors\", errors);\n"
       "          $finish;\n"
       "        end\n";
  if (clocked) s += "        clk_i = 1'b1;\n        #1 clk_i = 1'b0;\n";
  s += "        #1 cycle = cycle + 1;\n"
       "      end\n"
       "    end\n"
       "    if (errors == 0 && cycle > 0 && compared > 0)\n"
       "    begin\n"
       "      $write(\"PASS icarus: %0d cycles, %0d output bits compared, \", cycle, compared);\n"
       "      $display(\"%0d X bits on data outputs while their valid was low\", tolerated);\n"
       "    end else\n"
       "      $display(\"FAIL icarus: %0d cycles, %0d output bits compared, %0d errors\", cycle,\n"
       "               compared, errors);\n"
       "    $finish;\n"
       "  end\n"
       "endmodule\n"
       "`default_nettype wire\n";
  return s;
}

}  // namespace oasis::gen
