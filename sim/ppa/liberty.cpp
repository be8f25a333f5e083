// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/liberty.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

namespace oasis::ppa {
namespace {

struct Token {
  enum Kind { kWord, kString, kPunct, kEnd } kind;
  std::string text;
  int line;
};

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& where) : s_(text), where_(where) {}

  Token next() {
    skip();
    if (i_ >= s_.size()) return {Token::kEnd, "", line_};
    const char c = s_[i_];
    if (c == '"') {
      const int line = line_;
      std::string t;
      for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
          if (s_[i_ + 1] == '\n') {  // a continued line
            ++line_;
            ++i_;
            continue;
          }
          t += s_[++i_];
          continue;
        }
        if (s_[i_] == '\n') ++line_;
        t += s_[i_];
      }
      if (i_ >= s_.size()) fail(line, "a string that is never closed");
      ++i_;
      return {Token::kString, t, line};
    }
    if (std::string("(){}:;,").find(c) != std::string::npos) {
      ++i_;
      return {Token::kPunct, std::string(1, c), line_};
    }
    std::string t;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) &&
           std::string("(){}:;,\"").find(s_[i_]) == std::string::npos) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && (s_[i_ + 1] == '\n' || s_[i_ + 1] == '\r')) break;
      if (s_.compare(i_, 2, "/*") == 0) break;
      t += s_[i_++];
    }
    if (t.empty()) fail(line_, fmt::format("an unexpected character '{}'", c));
    return {Token::kWord, t, line_};
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw LibertyError(
        fmt::format("{}:{}: not a Liberty file as expected: {}", where_, line, what));
  }

 private:
  void skip() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (c == '\\' && i_ + 1 < s_.size() && (s_[i_ + 1] == '\n' || s_[i_ + 1] == '\r')) {
        ++i_;  // a line continuation
      } else if (s_.compare(i_, 2, "/*") == 0) {
        const size_t end = s_.find("*/", i_ + 2);
        if (end == std::string::npos) fail(line_, "a comment that is never closed");
        for (size_t j = i_; j < end; ++j) line_ += s_[j] == '\n';
        i_ = end + 2;
      } else if (s_.compare(i_, 2, "//") == 0) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  const std::string& s_;
  std::string where_;
  size_t i_ = 0;
  int line_ = 1;
};

struct Group {
  std::string type;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> attrs;  // simple and complex attributes
  std::vector<Group> children;

  std::string attr(const std::string& name) const {
    for (const auto& [k, v] : attrs) {
      if (k == name) return v;
    }
    return "";
  }
};

class Parser {
 public:
  explicit Parser(Lexer& lex) : lex_(lex) { advance(); }

  Group parse_file() {
    if (tok_.kind != Token::kWord) lex_.fail(tok_.line, "expected 'library (name) {'");
    Group g = parse_statement_group();
    if (g.type != "library") lex_.fail(tok_.line, "the top group is not 'library'");
    return g;
  }

 private:
  void advance() { tok_ = lex_.next(); }
  bool is(const char* punct) const { return tok_.kind == Token::kPunct && tok_.text == punct; }
  void expect(const char* punct) {
    if (!is(punct)) {
      lex_.fail(tok_.line, fmt::format("expected '{}', found '{}'", punct, tok_.text));
    }
    advance();
  }

  // name ( args ) { body }   -- the caller has the name in tok_.
  Group parse_statement_group() {
    Group g;
    g.type = tok_.text;
    advance();
    expect("(");
    g.args = parse_args();
    expect("{");
    parse_body(g);
    return g;
  }

  std::vector<std::string> parse_args() {
    std::vector<std::string> args;
    std::string cur;
    while (!is(")")) {
      if (tok_.kind == Token::kEnd) lex_.fail(tok_.line, "the file ends inside '( ... )'");
      if (is(",")) {
        args.push_back(cur);
        cur.clear();
      } else {
        if (!cur.empty()) cur += ' ';
        cur += tok_.text;
      }
      advance();
    }
    if (!cur.empty() || !args.empty()) args.push_back(cur);
    advance();  // ')'
    return args;
  }

  void parse_body(Group& g) {
    while (!is("}")) {
      if (tok_.kind == Token::kEnd)
        lex_.fail(tok_.line, fmt::format("group '{}' never closes", g.type));
      if (is(";")) {
        advance();
        continue;
      }
      if (tok_.kind != Token::kWord) {
        lex_.fail(tok_.line,
                  fmt::format("expected an attribute or group name, found '{}'", tok_.text));
      }
      const std::string name = tok_.text;
      const int line = tok_.line;
      advance();
      if (is(":")) {
        advance();
        std::string value;
        while (!is(";") && !is("}")) {
          if (tok_.kind == Token::kEnd)
            lex_.fail(line, fmt::format("attribute '{}' never ends", name));
          if (!value.empty()) value += ' ';
          value += tok_.text;
          advance();
        }
        if (is(";")) advance();
        g.attrs.emplace_back(name, value);
      } else if (is("(")) {
        advance();
        std::vector<std::string> args = parse_args();
        if (is("{")) {
          advance();
          Group child;
          child.type = name;
          child.args = std::move(args);
          parse_body(child);
          g.children.push_back(std::move(child));
        } else {
          if (is(";")) advance();
          std::string joined;
          for (const auto& a : args) joined += (joined.empty() ? "" : ",") + a;
          g.attrs.emplace_back(name, joined);
        }
      } else {
        lex_.fail(line, fmt::format("'{}' is followed by '{}', not ':' or '('", name, tok_.text));
      }
    }
    advance();  // '}'
  }

  Lexer& lex_;
  Token tok_{Token::kEnd, "", 0};
};

double number(const std::string& s, const std::string& what, const std::string& where) {
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw LibertyError(fmt::format("{}: {} is '{}', not a number", where, what, s));
}

// The expression parser: OpenSTA's grammar (LibertyExprParse.yy) by recursive descent.
class FuncParser {
 public:
  FuncParser(const std::string& text, const std::string& where) : s_(text), where_(where) {}

  LibertyFunc parse() {
    f_.root = parse_or();
    skip();
    if (i_ < s_.size() && s_[i_] == ';') ++i_;
    skip();
    if (i_ != s_.size()) fail(fmt::format("'{}' after the expression", s_.substr(i_)));
    return std::move(f_);
  }

 private:
  using Op = LibertyFunc::Op;

  int add(Op op, int left = -1, int right = -1, std::string port = "") {
    f_.nodes.push_back({op, std::move(port), left, right});
    return int(f_.nodes.size()) - 1;
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool at(const char* chars) {
    skip();
    return i_ < s_.size() && std::strchr(chars, s_[i_]) != nullptr;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw LibertyError(
        fmt::format("{}: function \"{}\" is not a Boolean function: {}", where_, s_, what));
  }
  static bool port_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == ']' ||
           c == '.';
  }
  bool at_term() {
    skip();
    return i_ < s_.size() && (port_char(s_[i_]) || s_[i_] == '(' || s_[i_] == '!');
  }

  int parse_or() {
    int l = parse_and();
    while (at("+|")) {
      ++i_;
      l = add(Op::kOr, l, parse_and());
    }
    return l;
  }
  int parse_and() {
    int l = parse_xor();
    while (at("*&")) {
      ++i_;
      l = add(Op::kAnd, l, parse_xor());
    }
    return l;
  }
  int parse_xor() {
    int l = parse_implicit_and();
    while (at("^")) {
      ++i_;
      l = add(Op::kXor, l, parse_implicit_and());
    }
    return l;
  }
  int parse_implicit_and() {
    int l = parse_term();
    while (at_term()) l = add(Op::kAnd, l, parse_term());
    return l;
  }
  // terminal, !terminal or terminal'
  int parse_term() {
    if (at("!")) {
      ++i_;
      return add(Op::kNot, parse_terminal());
    }
    const int t = parse_terminal();
    if (at("'")) {
      ++i_;
      return add(Op::kNot, t);
    }
    return t;
  }
  int parse_terminal() {
    skip();
    if (i_ >= s_.size()) fail("it ends where a term was expected");
    if (s_[i_] == '(') {
      ++i_;
      const int e = parse_or();
      if (!at(")")) fail("a '(' that is never closed");
      ++i_;
      return e;
    }
    size_t j = i_;
    while (j < s_.size() && port_char(s_[j])) ++j;
    if (j == i_) fail(fmt::format("'{}' where a term was expected", s_[i_]));
    const std::string word = s_.substr(i_, j - i_);
    i_ = j;
    if (word == "0") return add(Op::kZero);
    if (word == "1") return add(Op::kOne);
    return add(Op::kPort, -1, -1, word);
  }

  const std::string& s_;
  std::string where_;
  size_t i_ = 0;
  LibertyFunc f_;
};

std::vector<double> numbers(const std::string& list, const std::string& what,
                            const std::string& where) {
  std::vector<double> v;
  std::string t;
  for (char c : list + ",") {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!t.empty()) v.push_back(number(t, what, where));
      t.clear();
    } else {
      t += c;
    }
  }
  return v;
}

// A power table group (rise_power, fall_power) of an internal_power group, on its template.
LibertyTable read_table(const Group& g, const std::map<std::string, LibertyTable>& templates,
                        const std::string& ctx) {
  LibertyTable t;
  const std::string tmpl = g.args.empty() ? "" : g.args[0];
  const auto it = templates.find(tmpl);
  if (it != templates.end()) t = it->second;
  const std::string i1 = g.attr("index_1"), i2 = g.attr("index_2");
  if (!i1.empty()) t.index1 = numbers(i1, "index_1", ctx);
  if (!i2.empty()) t.index2 = numbers(i2, "index_2", ctx);
  t.values = numbers(g.attr("values"), "values", ctx);
  if (it == templates.end() && !(tmpl == "scalar" && t.values.size() == 1)) {
    throw LibertyError(fmt::format("{}: table template '{}' is not defined", ctx, tmpl));
  }
  const size_t rows = std::max<size_t>(1, t.index1.size());
  const size_t cols = std::max<size_t>(1, t.index2.size());
  if (t.values.size() != rows * cols) {
    throw LibertyError(fmt::format("{}: a {} table has {} values, not {} x {}", ctx, g.type,
                                   t.values.size(), rows, cols));
  }
  return t;
}

double axis_value(const std::string& variable, double slew, double load, const std::string& ctx) {
  if (variable == "input_transition_time" || variable == "input_net_transition") return slew;
  if (variable == "total_output_net_capacitance") return load;
  throw LibertyError(fmt::format("power table axis '{}' is not read ({})", variable, ctx));
}

// OpenSTA's TableAxis::findAxisIndex: the lower point of the interval to interpolate on.
size_t axis_index(const std::vector<double>& axis, double v) {
  const size_t max = axis.size() - 1;
  if (max == 0 || v <= axis[0]) return 0;
  if (v >= axis[max]) return max - 1;
  size_t lo = 0;
  while (lo + 1 < max && v >= axis[lo + 1]) ++lo;
  return lo;
}

}  // namespace

bool LibertyFunc::eval(const std::function<bool(const std::string&)>& value) const {
  std::vector<char> v(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const auto l = [&] { return v[size_t(n.left)] != 0; };
    const auto r = [&] { return v[size_t(n.right)] != 0; };
    switch (n.op) {
      case Op::kPort:
        v[i] = value(n.port);
        break;
      case Op::kNot:
        v[i] = !l();
        break;
      case Op::kAnd:
        v[i] = l() && r();
        break;
      case Op::kOr:
        v[i] = l() || r();
        break;
      case Op::kXor:
        v[i] = l() != r();
        break;
      case Op::kOne:
        v[i] = 1;
        break;
      case Op::kZero:
        v[i] = 0;
        break;
    }
  }
  return root >= 0 && v[size_t(root)] != 0;
}

std::vector<std::string> LibertyFunc::ports() const {
  std::vector<std::string> out;
  for (const Node& n : nodes) {
    if (n.op == Op::kPort && std::find(out.begin(), out.end(), n.port) == out.end()) {
      out.push_back(n.port);
    }
  }
  return out;
}

LibertyFunc parse_liberty_func(const std::string& text, const std::string& where) {
  return FuncParser(text, where).parse();
}

double LibertyTable::lookup(double slew, double load) const {
  const std::string ctx = "a power table";
  const auto at = [&](size_t i, size_t j) {
    return values[i * std::max<size_t>(1, index2.size()) + j];
  };
  const auto weight = [](const std::vector<double>& axis, size_t i, double x) {
    return (x - axis[i]) / (axis[i + 1] - axis[i]);
  };
  if (index1.size() <= 1 && index2.size() <= 1) return values.at(0);
  if (index2.size() <= 1) {
    const double x = axis_value(variables.at(0), slew, load, ctx);
    const size_t i = axis_index(index1, x);
    const double d = weight(index1, i, x);
    return (1 - d) * at(i, 0) + d * at(i + 1, 0);
  }
  const double x1 = axis_value(variables.at(0), slew, load, ctx);
  const double x2 = axis_value(variables.at(1), slew, load, ctx);
  if (index1.size() <= 1) {
    const size_t j = axis_index(index2, x2);
    const double d = weight(index2, j, x2);
    return (1 - d) * at(0, j) + d * at(0, j + 1);
  }
  const size_t i = axis_index(index1, x1), j = axis_index(index2, x2);
  const double d1 = weight(index1, i, x1), d2 = weight(index2, j, x2);
  return (1 - d1) * (1 - d2) * at(i, j) + d1 * (1 - d2) * at(i + 1, j) +
         d1 * d2 * at(i + 1, j + 1) + (1 - d1) * d2 * at(i, j + 1);
}

const LibertyPin* LibertyCell::pin(const std::string& pin_name) const {
  for (const auto& p : pins) {
    if (p.name == pin_name) return &p;
  }
  return nullptr;
}

std::vector<std::string> LibertyCell::outputs() const {
  std::vector<std::string> out;
  for (const auto& p : pins) {
    if (p.direction == "output") out.push_back(p.name);
  }
  return out;
}

const LibertyCell& Liberty::cell(const std::string& cell_name) const {
  const auto it = cells.find(cell_name);
  if (it != cells.end()) return it->second;
  std::string names;
  for (const auto& [n, c] : cells) names += (names.empty() ? "" : " ") + n;
  throw LibertyError(
      fmt::format("{}: no cell '{}' in library '{}'; it has: {}", path, cell_name, name, names));
}

double Liberty::time_unit_seconds() const {
  static const std::map<std::string, double> units = {
      {"1ps", 1e-12}, {"10ps", 1e-11}, {"100ps", 1e-10}, {"1ns", 1e-9},
      {"10ns", 1e-8}, {"100ns", 1e-7}, {"1us", 1e-6}};
  const auto it = units.find(time_unit);
  if (it == units.end()) {
    throw LibertyError(fmt::format("{}: time_unit '{}' is not one of 1ps .. 1us", path, time_unit));
  }
  return it->second;
}

namespace {

double unit_scale(const std::string& text, const std::string& base, const std::string& what,
                  const std::string& path) {
  // "1nW", "1V", "10ps": a number, an SI prefix and the unit.
  static const std::map<std::string, double> prefixes = {
      {"", 1}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}, {"p", 1e-12}, {"f", 1e-15}, {"k", 1e3}};
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  const std::string num = text.substr(0, i);
  std::string rest = text.substr(i);
  std::string b = base;
  std::transform(rest.begin(), rest.end(), rest.begin(), ::tolower);
  std::transform(b.begin(), b.end(), b.begin(), ::tolower);
  if (!num.empty() && rest.size() >= b.size() &&
      rest.compare(rest.size() - b.size(), b.size(), b) == 0) {
    const auto it = prefixes.find(rest.substr(0, rest.size() - b.size()));
    if (it != prefixes.end()) return std::stod(num) * it->second;
  }
  throw LibertyError(
      fmt::format("{}: {} '{}' is not a number and a unit of {}", path, what, text, base));
}

// The library's power table templates: name -> the table's variables and default indices.
std::map<std::string, LibertyTable> power_templates(const Group& lib, const std::string& where) {
  std::map<std::string, LibertyTable> out;
  for (const Group& g : lib.children) {
    if (g.type != "power_lut_template" || g.args.empty()) continue;
    LibertyTable t;
    const std::string ctx = fmt::format("{}: template {}", where, g.args[0]);
    for (const char* v : {"variable_1", "variable_2", "variable_3"}) {
      if (!g.attr(v).empty()) t.variables.push_back(g.attr(v));
    }
    if (!g.attr("index_1").empty()) t.index1 = numbers(g.attr("index_1"), "index_1", ctx);
    if (!g.attr("index_2").empty()) t.index2 = numbers(g.attr("index_2"), "index_2", ctx);
    out.emplace(g.args[0], std::move(t));
  }
  return out;
}

LibertySequential read_sequential(const Group& g, const std::string& ctx) {
  LibertySequential q;
  q.latch = g.type == "latch";
  if (!g.args.empty()) q.state = g.args[0];
  if (g.args.size() > 1) q.state_inverted = g.args[1];
  const auto func = [&](const char* attr) {
    const std::string t = g.attr(attr);
    return t.empty() ? LibertyFunc{} : parse_liberty_func(t, ctx + " " + g.type + " " + attr);
  };
  q.next = func(q.latch ? "data_in" : "next_state");
  q.clock = func(q.latch ? "enable" : "clocked_on");
  q.clear = func("clear");
  q.preset = func("preset");
  const std::string v1 = g.attr("clear_preset_var1");
  if (!v1.empty()) q.clear_preset_var1 = v1[0];
  if (q.next.empty() || q.clock.empty()) {
    throw LibertyError(fmt::format("{}: its {} group lacks {}", ctx, g.type,
                                   q.latch ? "data_in or enable" : "next_state or clocked_on"));
  }
  return q;
}

}  // namespace

double Liberty::cap_unit_farads() const {
  // capacitive_load_unit (1,pf): "1,pf".
  const size_t comma = cap_unit.find(',');
  if (comma == std::string::npos) {
    throw LibertyError(
        fmt::format("{}: capacitive_load_unit '{}' is not (n,unit)", path, cap_unit));
  }
  return unit_scale(cap_unit.substr(0, comma) + cap_unit.substr(comma + 1), "f",
                    "capacitive_load_unit", path);
}

double Liberty::voltage_unit_volts() const {
  return unit_scale(voltage_unit, "V", "voltage_unit", path);
}

double Liberty::leakage_unit_watts() const {
  return unit_scale(leakage_unit, "W", "leakage_power_unit", path);
}

Liberty parse_liberty(const std::string& text, const std::string& where) {
  Lexer lex(text, where);
  Parser parser(lex);
  const Group lib = parser.parse_file();
  Liberty out;
  out.path = where;
  out.name = lib.args.empty() ? "" : lib.args[0];
  out.time_unit = lib.attr("time_unit");
  out.cap_unit = lib.attr("capacitive_load_unit");
  if (!lib.attr("leakage_power_unit").empty()) out.leakage_unit = lib.attr("leakage_power_unit");
  if (!lib.attr("voltage_unit").empty()) out.voltage_unit = lib.attr("voltage_unit");
  // The default operating conditions' voltage, else the nominal one.
  if (!lib.attr("nom_voltage").empty()) {
    out.voltage = number(lib.attr("nom_voltage"), "nom_voltage", where);
  }
  for (const Group& g : lib.children) {
    if (g.type == "operating_conditions" && !g.args.empty() &&
        g.args[0] == lib.attr("default_operating_conditions") && !g.attr("voltage").empty()) {
      out.voltage = number(g.attr("voltage"), "the operating conditions' voltage", where);
    }
  }
  const std::map<std::string, LibertyTable> templates = power_templates(lib, where);
  for (const Group& g : lib.children) {
    if (g.type != "cell") continue;
    if (g.args.size() != 1)
      throw LibertyError(fmt::format("{}: a cell group without one name", where));
    LibertyCell cell;
    cell.name = g.args[0];
    const std::string ctx = fmt::format("{}: cell {}", where, cell.name);
    const std::string area = g.attr("area");
    if (area.empty()) throw LibertyError(fmt::format("{} has no area", ctx));
    cell.area = number(area, "its area", ctx);
    const std::string leak = g.attr("cell_leakage_power");
    if (!leak.empty()) cell.leakage = number(leak, "its cell_leakage_power", ctx);
    for (const Group& child : g.children) {
      if (child.type == "ff" || child.type == "latch" || child.type == "ff_bank" ||
          child.type == "latch_bank" || child.type == "statetable") {
        cell.sequential = true;
        if (child.type == "ff" || child.type == "latch") cell.state = read_sequential(child, ctx);
      }
      if (child.type != "pin") continue;
      for (const std::string& pin_name : child.args) {
        LibertyPin pin;
        pin.name = pin_name;
        pin.direction = child.attr("direction");
        pin.function = child.attr("function");
        pin.three_state = child.attr("three_state");
        pin.clock = child.attr("clock") == "true";
        const auto cap = [&](const char* attr, double fallback) {
          const std::string v = child.attr(attr);
          return v.empty() ? fallback : number(v, fmt::format("pin {}'s {}", pin_name, attr), ctx);
        };
        pin.capacitance = cap("capacitance", 0);
        pin.rise_capacitance = cap("rise_capacitance", pin.capacitance);
        pin.fall_capacitance = cap("fall_capacitance", pin.capacitance);
        cell.pins.push_back(pin);
        // Its internal power: rise_power and fall_power tables. A `power` table (one for both
        // transitions) is not read, as OpenSTA 2.0.17 does not read it (osu018's DFFSR has one,
        // for its preset pin, which the designs tie off).
        for (const Group& ip : child.children) {
          if (ip.type != "internal_power") continue;
          LibertyInternalPower p;
          p.pin = pin_name;
          p.related_pin = ip.attr("related_pin");
          p.when = ip.attr("when");
          const std::string pctx = fmt::format("{} pin {} internal_power", ctx, pin_name);
          for (const Group& t : ip.children) {
            if (t.type == "rise_power") p.rise = read_table(t, templates, pctx);
            if (t.type == "fall_power") p.fall = read_table(t, templates, pctx);
          }
          cell.internal_power.push_back(std::move(p));
        }
      }
    }
    out.cells.emplace(cell.name, std::move(cell));
  }
  if (out.cells.empty()) throw LibertyError(fmt::format("{}: no cell groups", where));
  return out;
}

Liberty read_liberty(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LibertyError(fmt::format("cannot read the Liberty file {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_liberty(ss.str(), path.string());
}

}  // namespace oasis::ppa
