// SPDX-License-Identifier: Apache-2.0
#include "sim/ppa/liberty.hpp"

#include <fmt/format.h>

#include <cctype>
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

}  // namespace

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

Liberty parse_liberty(const std::string& text, const std::string& where) {
  Lexer lex(text, where);
  Parser parser(lex);
  const Group lib = parser.parse_file();
  Liberty out;
  out.path = where;
  out.name = lib.args.empty() ? "" : lib.args[0];
  out.time_unit = lib.attr("time_unit");
  out.cap_unit = lib.attr("capacitive_load_unit");
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
      }
      if (child.type != "pin") continue;
      for (const std::string& pin_name : child.args) {
        LibertyPin pin;
        pin.name = pin_name;
        pin.direction = child.attr("direction");
        pin.function = child.attr("function");
        pin.clock = child.attr("clock") == "true";
        const std::string cap = child.attr("capacitance");
        if (!cap.empty()) pin.capacitance = number(cap, "pin " + pin_name + "'s capacitance", ctx);
        cell.pins.push_back(pin);
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
