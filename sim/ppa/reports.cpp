// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/reports.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace oasis::ppa {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  std::string t;
  while (in >> t) w.push_back(t);
  return w;
}

std::string unescape(std::string name) {
  if (!name.empty() && name[0] == '\\') name.erase(0, 1);
  return name;
}

double to_double(const std::string& s, const std::string& what) {
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw ReportError(fmt::format("{}: '{}' is not a number", what, s));
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

std::map<std::string, StatModule> parse_yosys_stat(const std::string& text) {
  std::map<std::string, StatModule> out;
  std::istringstream in(text);
  std::string line;
  StatModule* cur = nullptr;
  bool in_cells = false;
  static const std::regex header(R"(^=== (.*) ===$)");
  static const std::regex area(R"(^\s*Chip area for (?:top )?module '(.*)': ([0-9.eE+-]+)$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, header)) {
      const std::string name = unescape(m[1]);
      if (name == "design hierarchy") {
        cur = nullptr;
      } else {
        cur = &out[name];
      }
      in_cells = false;
      continue;
    }
    if (!cur) continue;
    if (std::regex_match(line, m, area)) {
      cur->own_area = to_double(m[2], "stat area");
      cur->has_area = true;
      in_cells = false;
      continue;
    }
    const std::vector<std::string> w = words(line);
    if (w.size() >= 4 && w[0] == "Number" && w[1] == "of" && w[2] == "cells:") {
      cur->cell_count = std::stol(w[3]);
      in_cells = true;
      continue;
    }
    if (in_cells) {
      if (w.size() == 2 && is_number(w[1]) && line.rfind("     ", 0) == 0) {
        cur->cells[unescape(w[0])] += std::stol(w[1]);
      } else {
        in_cells = false;
      }
    }
  }
  return out;
}

namespace {

void add_leaf_cells(const std::map<std::string, StatModule>& stat, const std::string& module,
                    long times, std::map<std::string, long>& out, int depth = 0) {
  if (depth > 64) throw ReportError("module hierarchy too deep in Yosys's stat");
  const auto it = stat.find(module);
  if (it == stat.end()) throw ReportError(fmt::format("no module {} in Yosys's stat", module));
  for (const auto& [cell, n] : it->second.cells) {
    if (stat.contains(cell)) {
      add_leaf_cells(stat, cell, times * n, out, depth + 1);
    } else {
      out[cell] += times * n;
    }
  }
}

}  // namespace

std::map<std::string, long> leaf_cells(const std::map<std::string, StatModule>& stat,
                                       const std::string& top) {
  std::map<std::string, long> out;
  add_leaf_cells(stat, top, 1, out);
  return out;
}

std::vector<TimingPath> parse_report_checks(const std::string& text) {
  std::vector<TimingPath> paths;
  std::istringstream in(text);
  std::string line;
  TimingPath* cur = nullptr;
  bool capture = false;  // after the data arrival time: the required side
  static const std::regex point(
      R"(^\s*([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+[\^v]\s+(\S+)(?:\s+\((.*)\))?\s*$)");
  static const std::regex labelled(R"(^\s*([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+(?:[\^v]\s+)?(.*)$)");
  static const std::regex total(
      R"(^\s*([-0-9.eE+]+)\s+(data arrival time|data required time)\s*$)");
  static const std::regex slack(R"(^\s*([-0-9.eE+]+)\s+slack \((MET|VIOLATED)\)\s*$)");
  std::smatch m;
  auto split_kind = [](const std::string& rest, std::string& name, std::string& kind) {
    const size_t open = rest.find(" (");
    name = open == std::string::npos ? rest : rest.substr(0, open);
    kind = open == std::string::npos ? "" : rest.substr(open + 2, rest.size() - open - 3);
  };
  std::string next;
  bool have_next = false;
  auto read_line = [&](std::string& out) {
    if (have_next) {
      out = next;
      have_next = false;
      return true;
    }
    return bool(std::getline(in, out));
  };
  while (read_line(line)) {
    // A long start or end point has its description on the next line.
    if (line.rfind("Startpoint: ", 0) == 0 || line.rfind("Endpoint: ", 0) == 0) {
      while (std::getline(in, next)) {
        const size_t first = next.find_first_not_of(' ');
        if (first != std::string::npos && first > 0 && next[first] == '(') {
          line.append(1, ' ').append(next, first);
          continue;
        }
        have_next = true;
        break;
      }
    }
    if (line.rfind("Startpoint: ", 0) == 0) {
      paths.emplace_back();
      cur = &paths.back();
      split_kind(line.substr(12), cur->startpoint, cur->start_kind);
      capture = false;
      continue;
    }
    if (!cur) continue;
    if (line.rfind("Endpoint: ", 0) == 0) {
      split_kind(line.substr(10), cur->endpoint, cur->end_kind);
    } else if (line.rfind("Path Group: ", 0) == 0) {
      cur->group = line.substr(12);
    } else if (std::regex_match(line, m, slack)) {
      cur->slack = to_double(m[1], "slack");
      cur = nullptr;
    } else if (std::regex_match(line, m, total)) {
      if (m[2] == "data arrival time") {
        if (!capture) cur->arrival = to_double(m[1], "arrival");
        capture = true;
      } else {
        cur->required = to_double(m[1], "required");
      }
    } else if (std::regex_match(line, m, point) && !capture) {
      cur->points.push_back(m[4].matched ? fmt::format("{} ({})", m[3].str(), m[4].str())
                                         : m[3].str());
      cur->times.push_back(to_double(m[2], "time"));
    } else if (std::regex_match(line, m, labelled)) {
      const std::string what = m[3];
      if (what.find("input external delay") != std::string::npos && !capture) {
        cur->input_delay = to_double(m[1], "input delay");
      } else if (what.find("output external delay") != std::string::npos && capture) {
        cur->output_delay = -to_double(m[1], "output delay");
      }
    }
  }
  return paths;
}

double parse_sta_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  double v = 0;
  bool found = false;
  while (std::getline(in, line)) {
    const auto w = words(line);
    if (w.size() == 2 && w[0] == key && is_number(w[1])) {
      v = to_double(w[1], key);
      found = true;
    }
  }
  if (!found) throw ReportError(fmt::format("no '{} <value>' line in the OpenSTA output", key));
  return v;
}

std::map<std::string, PowerRow> parse_report_power(const std::string& text) {
  std::map<std::string, PowerRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto w = words(line);
    if (w.size() >= 5 &&
        (w[0] == "Sequential" || w[0] == "Combinational" || w[0] == "Macro" || w[0] == "Pad" ||
         w[0] == "Total") &&
        is_number(w[1]) && is_number(w[2]) && is_number(w[3]) && is_number(w[4])) {
      rows[w[0]] = {to_double(w[1], "power"), to_double(w[2], "power"), to_double(w[3], "power"),
                    to_double(w[4], "power")};
    }
  }
  if (!rows.count("Total")) throw ReportError("no 'Total' row in report_power's output");
  return rows;
}

std::map<std::string, PowerRow> parse_instance_power(const std::string& text) {
  std::map<std::string, PowerRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto w = words(line);
    if (w.size() == 5 && is_number(w[0]) && is_number(w[1]) && is_number(w[2]) && is_number(w[3])) {
      rows[w[4]] = {to_double(w[0], "power"), to_double(w[1], "power"), to_double(w[2], "power"),
                    to_double(w[3], "power")};
    }
  }
  return rows;
}

}  // namespace oasis::ppa
