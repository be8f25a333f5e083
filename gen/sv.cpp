// SPDX-License-Identifier: Apache-2.0
#include "gen/sv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <stdexcept>

#include "gen/block.hpp"

namespace oasis::gen {
namespace {

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch)) != 0;
  });
}

// Lines of `text` (without their newlines).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// `prefix` + words of `text`, wrapped so that no line passes kMaxColumns.
std::string wrap(const std::string& prefix, const std::string& text) {
  std::string out;
  for (const std::string& para : lines_of(text)) {
    std::istringstream words(para);
    std::string line = prefix, word;
    bool empty = true;
    while (words >> word) {
      if (!empty && line.size() + 1 + word.size() > kMaxColumns) {
        out += line + "\n";
        line = prefix;
        empty = true;
      }
      line += (empty ? "" : " ") + word;
      empty = false;
    }
    // Keep the prefix's trailing space off an empty comment line.
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

}  // namespace

std::string behavioural_or(const std::string& behavioural, const std::string& structural) {
  return fmt::format("`ifdef {}\n{}`else\n{}`endif\n", kBehaviouralMacro, behavioural, structural);
}

std::string output_assertions(const std::vector<Port>& ports) {
  const auto has = [&](const std::string& dir, const std::string& name) {
    return std::any_of(ports.begin(), ports.end(),
                       [&](const Port& p) { return p.dir == dir && p.name == name; });
  };
  if (!has("input", "clk_i") || !has("input", "rst_ni")) return "";
  // The streams' prefixes, <s> of <s>valid_o.
  std::vector<std::string> streams;
  for (const Port& p : ports) {
    if (p.dir == "output" && p.name.ends_with("valid_o")) {
      streams.push_back(p.name.substr(0, p.name.size() - 7));
    }
  }
  // The stream an output is payload of: the longest prefix, nothing for none.
  const auto stream_of = [&](const Port& p) -> std::optional<std::string> {
    std::optional<std::string> best;
    for (const auto& s : streams) {
      if (p.name.starts_with(s) && p.name != s + "valid_o" && (!best || s.size() > best->size())) {
        best = s;
      }
    }
    return best;
  };
  // The registers of the previous edge's values (declarations, updates) and the checks.
  std::string regs, copies, checks;
  const auto assertion = [&](const std::string& label, const std::string& condition,
                             const std::string& message) {
    checks += fmt::format(
        "        a_{} :\n"
        "          assert ({})\n"
        "          else $error(\"{}\");\n",
        label, condition, message);
  };
  const auto copy = [&](const std::string& decl, const std::string& reg,
                        const std::string& value) {
    regs += fmt::format("  logic {}{};\n", decl, reg);
    copies += fmt::format("    {} <= {};\n", reg, value);
  };
  for (const auto& s : streams) {
    const std::string valid = s + "valid_o", ready = s + "ready_i";
    if (!has("input", ready)) continue;
    const std::string stall = "sva_" + s + "stall_q";
    copy("", stall, valid + " && !" + ready);
    assertion(valid + "_held", "!" + stall + " || " + valid, valid + " fell before " + ready);
    for (const Port& p : ports) {
      if (p.dir == "output" && stream_of(p) == s) {
        const std::string prev = "sva_" + p.name + "_q";
        copy(!p.width_expr.empty() ? range(p.width_expr) + " "
             : p.width >= 1        ? range(p.width) + " "
                                   : "",
             prev, p.name);
        assertion(p.name + "_stable", "!" + stall + " || " + p.name + " == " + prev,
                  p.name + " changed before " + ready);
      }
    }
  }
  for (const Port& p : ports) {
    if (p.dir != "output") continue;
    if (const auto owner = stream_of(p)) {
      assertion(p.name + "_known", "!" + *owner + "valid_o || !$isunknown(" + p.name + ")",
                p.name + " unknown while " + *owner + "valid_o");
    } else if (p.width <= 1 && !(p.width == 0 && !p.width_expr.empty())) {
      assertion(p.name + "_known", "!$isunknown(" + p.name + ")",
                p.name + " unknown after reset");
    }
  }
  if (checks.empty()) return "";
  // Checked from the second clock edge after reset, in the `else` of the reset: never at an
  // edge inside reset, where the registers hold their random initial values (a hierarchical
  // Verilator block can start in reset without seeing rst_ni fall). rst_ni only as the
  // asynchronous reset, which Verilator wants (SYNCASYNCNET). Immediate assertions against
  // registered copies of the previous edge's values, rather than concurrent ones with
  // $stable: Verilator 5.006 compiles a concurrent assertion's sampled copy of a vector wider
  // than 64 words to C++ that does not build.
  std::string out = fmt::format(
      "\n`ifdef {}\n"
      "  // The outputs' promises (docs/spec.md section 8): a stream's valid and payload hold\n"
      "  // until ready, no output unknown once reset has been released.\n"
      "  logic sva_armed_q;\n"
      "{}",
      kAssertionsMacro, regs);
  if (!copies.empty()) out += "  always_ff @(posedge clk_i) begin\n" + copies + "  end\n";
  out += "  always_ff @(posedge clk_i or negedge rst_ni) begin\n"
         "    if (!rst_ni) begin\n"
         "      sva_armed_q <= 1'b0;\n"
         "    end else begin\n"
         "      sva_armed_q <= 1'b1;\n"
         "      if (sva_armed_q) begin\n" +
         checks +
         "      end\n"
         "    end\n"
         "  end\n"
         "`endif\n";
  check_columns("output_assertions", out);
  return out;
}

std::string range(int64_t width) { return fmt::format("[{}:0]", width - 1); }

std::string range(const std::string& width) {
  if (is_number(width)) return range(std::stoll(width));
  // "X + 17" folds to "[X+16:0]".
  const size_t plus = width.rfind('+');
  if (plus != std::string::npos && width.find_first_of("()", plus) == std::string::npos) {
    std::string head = width.substr(0, plus), tail = width.substr(plus + 1);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    while (!tail.empty() && tail.front() == ' ') tail.erase(0, 1);
    if (is_number(tail) && head.find_first_of("()") == std::string::npos) {
      const int64_t n = std::stoll(tail) - 1;
      return n == 0 ? fmt::format("[{}:0]", head) : fmt::format("[{}+{}:0]", head, n);
    }
  }
  return fmt::format("[{}-1:0]", width);
}

std::string literal(int width, int64_t value) { return fmt::format("{}'d{}", width, value); }

std::string mask_literal(const std::vector<bool>& bits) {
  const size_t n = bits.size();
  if (n <= 32) {
    std::string s = fmt::format("{}'b", n);
    for (size_t i = n; i-- > 0;) s += bits[i] ? '1' : '0';
    return s;
  }
  // Runs from the most significant bit down: a mask of valid leaves is one or
  // two runs whatever its width.
  std::vector<std::string> runs;
  for (size_t hi = n; hi > 0;) {
    const bool v = bits[hi - 1];
    size_t lo = hi - 1;
    while (lo > 0 && bits[lo - 1] == v) --lo;
    const size_t len = hi - lo;
    runs.push_back(len == 1 ? fmt::format("1'b{}", v ? 1 : 0)
                            : fmt::format("{{{}{{1'b{}}}}}", len, v ? 1 : 0));
    hi = lo;
  }
  if (runs.size() == 1) return runs.front();
  if (runs.size() <= 4) {
    std::string s = "{";
    for (size_t i = 0; i < runs.size(); ++i) s += (i ? ", " : "") + runs[i];
    return s + "}";
  }
  // Many runs: hexadecimal, four bits a digit.
  std::string s = fmt::format("{}'h", n);
  for (size_t d = (n + 3) / 4; d-- > 0;) {
    int digit = 0;
    for (size_t b = 0; b < 4; ++b) {
      if (4 * d + b < n && bits[4 * d + b]) digit |= 1 << b;
    }
    s += "0123456789abcdef"[digit];
  }
  return s;
}

std::string lane(const std::string& vec, const std::string& index, const std::string& width) {
  if (is_number(index) && is_number(width)) return lane(vec, std::stoll(index), std::stoll(width));
  if (index == "0") return fmt::format("{}[0 +: {}]", vec, width);
  return fmt::format("{}[{}*{} +: {}]", vec, index, width, width);
}

std::string lane(const std::string& vec, int64_t index, int64_t width) {
  if (index == 0) return fmt::format("{}[{}:0]", vec, width - 1);
  return fmt::format("{}[{} +: {}]", vec, index * width, width);
}

std::string concat(const std::vector<std::string>& items, const std::string& indent, size_t lead,
                   size_t tail) {
  std::string s = "{";
  size_t col = lead + 1;
  for (size_t i = 0; i < items.size(); ++i) {
    const bool final = i + 1 == items.size();
    const std::string sep = final ? "}" : ",";
    if (i > 0) {
      if (col + 1 + items[i].size() + sep.size() + (final ? tail : 1) > kMaxColumns) {
        s += "\n" + indent + "    ";
        col = indent.size() + 4;
      } else {
        s += " ";
        ++col;
      }
    }
    s += items[i] + sep;
    col += items[i].size() + sep.size();
  }
  if (items.empty()) s += "}";
  return s;
}

std::string module_header(const std::string& module, const std::string& doc,
                          const std::vector<Port>& ports, const std::vector<Param>& params) {
  std::string s = wrap("/// ", doc);
  if (params.empty()) {
    s += fmt::format("module {} (\n", module);
  } else {
    s += fmt::format("module {} #(\n", module);
    size_t w = 0, kw = 0, tw = 0;
    const auto keyword = [](const Param& p) { return p.local ? "localparam" : "parameter"; };
    for (const Param& p : params) {
      w = std::max(w, p.name.size());
      kw = std::max(kw, std::string(keyword(p)).size());
      tw = std::max(tw, p.type.size());
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      s += wrap("  /// ", p.doc);
      const std::string value =
          p.value_text.empty() ? std::to_string(p.default_value) : p.value_text;
      s += fmt::format("  {:<{}} {:<{}} {:<{}} = {}{}\n", keyword(p), kw, p.type, tw, p.name, w,
                       value, i + 1 < params.size() ? "," : "");
    }
    s += ") (\n";
  }
  // A port whose width is written in the header's localparams must have that width. A
  // localparam written in the parameters (SvModule::param_localparam) has no number.
  std::map<std::string, int64_t> figures;
  for (const Param& p : params) {
    if (p.local && p.value_text.empty()) figures[p.name] = p.default_value;
  }
  for (const Param& p : params) {
    const std::optional<int64_t> v = p.value_text.empty() || p.type != "int"
                                         ? std::optional<int64_t>()
                                         : evaluate(p.value_text, figures);
    if (v && *v != p.default_value) {
      throw std::logic_error(fmt::format("{}: localparam {} = {} is {}, not {}", module, p.name,
                                         p.value_text, *v, p.default_value));
    }
    if (v && p.local) figures[p.name] = *v;
  }
  for (const Port& p : ports) {
    const std::optional<int64_t> v =
        p.width_expr.empty() ? std::optional<int64_t>() : evaluate(p.width_expr, figures);
    if (v && p.width != 0 && *v != p.width) {
      throw std::logic_error(fmt::format("{}: port {} is {} bits, its width {} is {}", module,
                                         p.name, p.width, p.width_expr, *v));
    }
  }
  size_t dir_w = 0, range_w = 0;
  std::vector<std::string> ranges;
  for (const Port& p : ports) {
    ranges.push_back(!p.width_expr.empty() ? range(p.width_expr) + " "
                     : p.width > 0         ? range(int64_t(p.width)) + " "
                                           : "");
    dir_w = std::max(dir_w, p.dir.size());
    range_w = std::max(range_w, ranges.back().size());
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    const Port& p = ports[i];
    s += wrap("  /// ", p.doc);
    std::string line = fmt::format("  {:<{}} logic {:<{}}{}{}", p.dir, dir_w, ranges[i], range_w,
                                   p.name, i + 1 < ports.size() ? "," : "");
    // A long range in one port must not push every port past the limit.
    if (line.size() > kMaxColumns) {
      line = fmt::format("  {:<{}} logic {}{}{}", p.dir, dir_w, ranges[i], p.name,
                         i + 1 < ports.size() ? "," : "");
    }
    s += line + "\n";
  }
  s += ");\n\n";
  return s;
}

std::string instance(const std::string& module, const std::string& inst,
                     const std::vector<std::pair<std::string, std::string>>& connections,
                     const std::string& indent,
                     const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s;
  if (params.empty()) {
    s = fmt::format("{}{} {} (\n", indent, module, inst);
  } else {
    size_t pw = 0;
    for (const auto& [name, value] : params) pw = std::max(pw, name.size());
    s = fmt::format("{}{} #(\n", indent, module);
    for (size_t i = 0; i < params.size(); ++i) {
      s += fmt::format("{}  .{:<{}}({}){}\n", indent, params[i].first, pw, params[i].second,
                       i + 1 < params.size() ? "," : "");
    }
    s += fmt::format("{}) {} (\n", indent, inst);
  }
  size_t w = 0;
  for (const auto& [port, sig] : connections) w = std::max(w, port.size());
  for (size_t i = 0; i < connections.size(); ++i) {
    const std::string head = fmt::format("{}  .{:<{}}(", indent, connections[i].first, w);
    const std::string tail = i + 1 < connections.size() ? ")," : ")";
    std::string sig = connections[i].second;
    if (sig.starts_with("{") && sig.ends_with("}") &&
        head.size() + sig.size() + tail.size() > kMaxColumns) {
      // A long concatenation: one item per word, wrapped.
      std::vector<std::string> items;
      int depth = 0;
      std::string item;
      for (size_t k = 1; k + 1 < sig.size(); ++k) {
        const char ch = sig[k];
        if (ch == '{' || ch == '(' || ch == '[') ++depth;
        if (ch == '}' || ch == ')' || ch == ']') --depth;
        if (ch == ',' && depth == 0) {
          items.push_back(item);
          item.clear();
          while (k + 1 < sig.size() && sig[k + 1] == ' ') ++k;
          continue;
        }
        item += ch;
      }
      items.push_back(item);
      sig = concat(items, indent + "  ", head.size());
    }
    s += head + sig + tail + "\n";
  }
  s += indent + ");\n";
  return s;
}

void check_columns(const std::string& where, const std::string& text) {
  int n = 0;
  for (const std::string& line : lines_of(text)) {
    ++n;
    if (line.size() > kMaxColumns) {
      throw std::logic_error(fmt::format("{}: line {} has {} columns (at most {}): {}", where, n,
                                         line.size(), kMaxColumns, line.substr(0, 60) + "..."));
    }
  }
}

SvModule::SvModule(std::string name, std::string doc)
    : name_(std::move(name)), doc_(std::move(doc)) {}

SvModule& SvModule::param(const std::string& name, int64_t default_value, const std::string& doc) {
  params_.push_back({name, default_value, doc});
  return *this;
}

SvModule& SvModule::param(const std::string& name, const std::string& type,
                          const std::string& value, const std::string& doc) {
  params_.push_back({name, 0, doc, false, value, type});
  return *this;
}

SvModule& SvModule::header_localparam(const std::string& name, int64_t value,
                                      const std::string& doc) {
  if (header_.contains(name)) {
    throw std::logic_error(fmt::format("{}: header localparam {} declared twice", name_, name));
  }
  header_[name] = value;
  numeric_[name] = std::to_string(value);
  params_.push_back({name, value, doc, true});
  return *this;
}

SvModule& SvModule::header_localparam(const std::string& name, const std::string& expr,
                                      const std::string& doc) {
  const std::optional<int64_t> v = evaluate(expr, header_);
  if (!v) {
    throw std::logic_error(fmt::format(
        "{}: header localparam {} = {}: not of the figures before it", name_, name, expr));
  }
  header_localparam(name, *v, doc);
  params_.back().value_text = expr;
  return *this;
}

SvModule& SvModule::param_localparam(const std::string& name, const std::string& expr,
                                     const std::string& doc) {
  for (const Param& p : params_) {
    if (p.name == name) {
      throw std::logic_error(fmt::format("{}: {} declared twice in the header", name_, name));
    }
  }
  params_.push_back({name, 0, doc, true, expr});
  return *this;
}

std::optional<int64_t> SvModule::checked_width(const std::string& what, int64_t width,
                                               const std::string& expr) const {
  const std::optional<int64_t> v = value_of(expr);
  if (v && width != 0 && width != *v) {
    throw std::logic_error(
        fmt::format("{}: {} is {} bits, its width {} is {}", name_, what, width, expr, *v));
  }
  return v;
}

SvModule& SvModule::port(const Port& p) {
  Port q = p;
  if (!q.width_expr.empty()) {
    if (const std::optional<int64_t> v = checked_width("port " + q.name, q.width, q.width_expr)) {
      q.width = int(*v);
    }
  }
  ports_.push_back(q);
  return *this;
}

SvModule& SvModule::ports(const std::vector<Port>& ps) {
  for (const Port& p : ps) port(p);
  return *this;
}

namespace {

// A recursive-descent reader of evaluate()'s expressions.
class WidthExpr {
 public:
  WidthExpr(const std::string& text, const std::map<std::string, int64_t>& names)
      : s_(text), names_(names) {}

  std::optional<int64_t> value() {
    const std::optional<int64_t> v = sum();
    skip();
    return p_ == s_.size() ? v : std::nullopt;
  }

 private:
  void skip() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
  }
  bool take(char ch) {
    skip();
    if (p_ < s_.size() && s_[p_] == ch) {
      ++p_;
      return true;
    }
    return false;
  }
  std::optional<int64_t> sum() {
    std::optional<int64_t> v = product();
    while (v) {
      if (take('+')) {
        const std::optional<int64_t> r = product();
        v = r ? std::optional<int64_t>(*v + *r) : std::nullopt;
      } else if (take('-')) {
        const std::optional<int64_t> r = product();
        v = r ? std::optional<int64_t>(*v - *r) : std::nullopt;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<int64_t> product() {
    std::optional<int64_t> v = atom();
    while (v && take('*')) {
      const std::optional<int64_t> r = atom();
      v = r ? std::optional<int64_t>(*v * *r) : std::nullopt;
    }
    return v;
  }
  std::optional<int64_t> atom() {
    if (take('(')) {
      const std::optional<int64_t> v = sum();
      return v && take(')') ? v : std::nullopt;
    }
    skip();
    const size_t b = p_;
    const auto ident = [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
    };
    while (p_ < s_.size() && ident(s_[p_])) ++p_;
    const std::string word = s_.substr(b, p_ - b);
    if (is_number(word)) return std::stoll(word);
    const auto it = names_.find(word);
    if (it == names_.end()) return std::nullopt;
    return it->second;
  }

  const std::string& s_;
  const std::map<std::string, int64_t>& names_;
  size_t p_ = 0;
};

}  // namespace

std::optional<int64_t> evaluate(const std::string& expr,
                                const std::map<std::string, int64_t>& names) {
  return WidthExpr(expr, names).value();
}

SvModule& SvModule::localparam(const std::string& name, int64_t value, const std::string& doc) {
  return localparam(name, std::to_string(value), doc);
}

SvModule& SvModule::localparam(const std::string& name, const std::string& expr,
                               const std::string& doc) {
  if (header_.contains(name)) {
    throw std::logic_error(fmt::format("{}: localparam {} is also the header's", name_, name));
  }
  if (is_number(expr)) {
    numeric_[name] = expr;
  } else if (const std::optional<int64_t> v = evaluate(expr, figures())) {
    numeric_[name] = std::to_string(*v);
  }
  // A marker line: str() writes the declaration only if the module uses the name.
  localparams_.push_back({name, (doc.empty() ? "" : wrap("  /// ", doc)) +
                                    fmt::format("  localparam int {} = {};\n", name, expr)});
  body_ += fmt::format("\x01{}\n", localparams_.size() - 1);
  return *this;
}

std::map<std::string, int64_t> SvModule::figures() const {
  std::map<std::string, int64_t> names = header_;
  for (const auto& [name, value] : numeric_) names[name] = std::stoll(value);
  return names;
}

SvModule& SvModule::pipe_stage(const std::string& stage, int stages, const std::string& valid_in,
                               const std::vector<Field>& fields, const std::string& indent) {
  for (const Field& f : fields) {
    if (!f.width_expr.empty())
      checked_width("field " + stage + "_" + f.name, std::max<int64_t>(f.width, 1), f.width_expr);
  }
  return *this << oasis::gen::pipe_stage(stage, stages, valid_in, fields, indent);
}

SvModule& SvModule::operator<<(const std::string& text) {
  body_ += text;
  return *this;
}

SvModule& SvModule::comment(const std::string& text, const std::string& indent) {
  body_ += wrap(indent + "// ", text);
  return *this;
}

void SvModule::op(const std::string& kind, const std::string& width, const std::string& at,
                  const std::string& count) {
  ops_.push_back({kind, resolve(width), resolve(count), at});
}

std::optional<int64_t> SvModule::value_of(const std::string& expr) const {
  return evaluate(expr, figures());
}

std::string SvModule::resolve(const std::string& text) const {
  const std::optional<int64_t> v = value_of(text);
  return v ? std::to_string(*v) : text;
}

void SvModule::op(const std::string& kind, int64_t width, const std::string& at, int64_t count) {
  op(kind, std::to_string(width), at, std::to_string(count));
}

SvModule& SvModule::inst(const std::string& module, const std::string& inst_name,
                         const std::vector<std::pair<std::string, std::string>>& connections,
                         const std::string& indent,
                         const std::vector<std::pair<std::string, std::string>>& params,
                         const std::string& count) {
  body_ += instance(module, inst_name, connections, indent, params);
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [name, value] : params) values.push_back({name, resolve(value)});
  instances_.push_back({module, inst_name, resolve(count), values});
  return *this;
}

namespace {

// Whether `word` occurs in `text` as a whole identifier.
bool uses_identifier(const std::string& text, const std::string& word) {
  const auto ident = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
  };
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
    const bool start = p == 0 || !ident(text[p - 1]);
    const bool end = p + word.size() == text.size() || !ident(text[p + word.size()]);
    if (start && end) return true;
  }
  return false;
}

}  // namespace

std::string SvModule::str() const {
  // Localparams the module does not use are left out (lint flags them).
  std::string used_text;  // the body without the markers and the comments
  for (size_t p = 0; p < body_.size();) {
    const size_t e = body_.find('\n', p);
    if (body_[p] != '\x01') {
      const std::string line = body_.substr(p, e - p);
      used_text += line.substr(0, line.find("//")) + "\n";
    }
    p = e + 1;
  }
  std::string body;
  for (size_t p = 0; p < body_.size();) {
    const size_t e = body_.find('\n', p);
    if (body_[p] == '\x01') {
      const auto& [name, text] = localparams_[std::stoul(body_.substr(p + 1, e - p - 1))];
      bool used = uses_identifier(used_text, name);
      // A localparam another localparam uses counts too.
      for (const auto& [other, other_text] : localparams_) {
        if (other != name && uses_identifier(used_text, other)) {
          const size_t eq = other_text.rfind(" = ");
          used = used || uses_identifier(other_text.substr(eq), name);
        }
      }
      if (used) body += text;
    } else {
      body += body_.substr(p, e + 1 - p);
    }
    p = e + 1;
  }
  // Header localparams nothing uses are left out too.
  std::string code;  // the body without its comments
  for (const std::string& line : lines_of(body)) code += line.substr(0, line.find("//")) + "\n";
  // Used: by the body, a port's width, or a used header localparam's value.
  std::set<std::string> used;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Param& p : params_) {
      if (used.contains(p.name)) continue;
      bool u = !p.local || uses_identifier(code, p.name);
      for (const Port& port : ports_) u = u || uses_identifier(port.width_expr, p.name);
      for (const Param& q : params_) {
        u = u || (used.contains(q.name) && uses_identifier(q.value_text, p.name));
      }
      if (u) grew = used.insert(p.name).second || grew;
    }
  }
  std::vector<Param> params;
  for (const Param& p : params_) {
    if (used.contains(p.name)) params.push_back(p);
  }
  std::string s = module_header(name_, doc_, ports_, params) + body;
  if (!s.ends_with("\n\n")) s += "\n";
  s += "endmodule\n";
  check_columns(name_, s);
  return s;
}

SvFile SvModule::file() const {
  SvFile f{name_ + ".sv", str()};
  f.operators = ops_;
  f.instances = instances_;
  f.ports = ports_;
  return f;
}

std::string registers(const std::vector<Reg>& regs, const std::string& indent,
                      const std::string& enable) {
  size_t w = 0;
  for (const Reg& r : regs) w = std::max(w, r.q.size());
  std::string s = indent + "always_ff @(posedge clk_i or negedge rst_ni) begin\n";
  s += indent + "  if (!rst_ni) begin\n";
  for (const Reg& r : regs) s += fmt::format("{}    {:<{}} <= {};\n", indent, r.q, w, r.reset);
  s += indent + (enable.empty() ? "  end else begin\n" : "  end else if (" + enable + ") begin\n");
  for (const Reg& r : regs) s += fmt::format("{}    {:<{}} <= {};\n", indent, r.q, w, r.d);
  s += indent + "  end\n" + indent + "end\n";
  return s;
}

std::string data_registers(const std::vector<Reg>& regs, const std::string& indent,
                           const std::string& enable) {
  size_t w = 0;
  for (const Reg& r : regs) w = std::max(w, r.q.size());
  const std::string inner = enable.empty() ? indent + "  " : indent + "    ";
  std::string s = indent + "always_ff @(posedge clk_i) begin\n";
  if (!enable.empty()) s += indent + "  if (" + enable + ") begin\n";
  for (const Reg& r : regs) s += fmt::format("{}{:<{}} <= {};\n", inner, r.q, w, r.d);
  if (!enable.empty()) s += indent + "  end\n";
  s += indent + "end\n";
  return s;
}

std::string pipe_stage(const std::string& stage, int stages, const std::string& valid_in,
                       const std::vector<Field>& fields, const std::string& indent) {
  int64_t total = 0, numbers = 0;
  // The fields' widths in order, the expressions as written, runs of numbers summed.
  std::vector<std::string> terms;
  std::string s = fmt::format("{}logic {}_valid;\n", indent, stage);
  std::vector<std::string> ins, outs;
  for (const Field& f : fields) {
    total += std::max<int64_t>(f.width, 1);
    const std::string sig = stage + "_" + f.name;
    if (!f.width_expr.empty()) {
      if (numbers > 0) terms.push_back(std::to_string(numbers));
      numbers = 0;
      terms.push_back(f.width_expr);
      s += fmt::format("{}logic {} {};\n", indent, range(f.width_expr), sig);
    } else {
      numbers += std::max<int64_t>(f.width, 1);
      s += fmt::format("{}logic {}{};\n", indent, f.width > 0 ? range(f.width) + " " : "", sig);
    }
    ins.push_back(f.in);
    outs.push_back(sig);
  }
  std::string width = std::to_string(total);
  if (!terms.empty()) {
    // <stage> -> <Stage>Bits: rd -> RdBits, mul_side -> MulSideBits.
    width = upper_camel(stage) + "Bits";
    if (numbers > 0) terms.push_back(std::to_string(numbers));
    s += fmt::format("{0}/// Bits of the {1} stage's record.\n{0}localparam int {2} = {3};\n",
                     indent, stage, width, join(terms, " + "));
  }
  s += fmt::format("{}logic {} {}_q;\n", indent, range(width), stage);
  const std::string data_in = fields.size() == 1 ? ins.front() : fmt::format("{{{}}}", join(ins));
  s += instance("oasis_fp_pipe", "u_" + stage + "_pipe",
                {{"clk_i", "clk_i"},
                 {"rst_ni", "rst_ni"},
                 {"valid_i", valid_in},
                 {"data_i", data_in},
                 {"valid_o", stage + "_valid"},
                 {"data_o", stage + "_q"}},
                indent, {{"Width", width}, {"Stages", std::to_string(stages)}});
  const std::string lhs = indent + "assign ";
  if (fields.size() == 1) {
    s += fmt::format("{}{} = {}_q;\n", lhs, outs.front(), stage);
  } else {
    const std::string rhs = fmt::format(" = {}_q;", stage);
    s += lhs + concat(outs, indent, lhs.size(), rhs.size()) + rhs + "\n";
  }
  return s;
}

}  // namespace oasis::gen
