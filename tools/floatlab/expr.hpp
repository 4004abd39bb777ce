// tools/floatlab/expr.hpp: the expressions `floatlab calc` evaluates, parsed by recursive descent
// and evaluated in a format, every literal and every operation rounded by the library.
//
// Grammar (whitespace between tokens is ignored):
//   expr    := term { ("+" | "-") term }
//   term    := unary { ("*" | "/") unary }
//   unary   := ("-" | "+") unary | primary
//   primary := number | "(" expr ")" | "sqrt" "(" expr ")" | "fma" "(" expr "," expr "," expr ")"
//   number  := what lf::parse reads: 0.1, 1e-4, .5, 0x1.8p-3, inf, infinity, nan, snan (any case)
// Unary minus binds tighter than * and / (as in C), and a minus written just before a number is
// part of that number: "-0.1" is the literal -0.1, rounded once (not 0.1 rounded, then negated,
// which differs under directed rounding). Negating anything else is exact (IEEE 754-2019 §5.5.1).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <libfloat/training.hpp>

namespace floatlab::expr {

enum class op : std::uint8_t { literal, neg, add, sub, mul, div, sqrt, fma };

/// One node of the parsed expression. Nodes are stored children first: every operand index is
/// smaller than its parent's, and the last node is the root, so evaluating them in order never
/// recurses (a long chain like 1+1+...+1 cannot exhaust the stack).
struct node {
  op kind = op::literal;
  std::size_t begin = 0, end = 0;  ///< the node's text in the expression: [begin, end)
  std::string literal;             ///< the number as written (with a folded leading minus)
  int args[3] = {-1, -1, -1};
};

struct parse_error {
  std::size_t position = 0;  ///< byte offset in the expression; its size at the end
  std::string message;       ///< "expected ..." or what is wrong
};

struct parsed {
  std::vector<node> nodes;
  std::vector<parse_error> errors;  ///< empty on success; otherwise exactly one
  explicit operator bool() const { return errors.empty(); }
  int root() const { return static_cast<int>(nodes.size()) - 1; }
};

/// Deeper nesting than this (parentheses, unary signs, function calls) is refused.
inline constexpr int max_depth = 200;

class parser {
 public:
  explicit parser(std::string_view text) : s_(text) {}

  parsed run() {
    skip_space();
    if (i_ == s_.size()) fail(i_, "empty expression; expected a number, '(', '-', sqrt(x) or fma(a, b, c)");
    else {
      parse_expr(0);
      skip_space();
      if (ok() && i_ < s_.size())
        fail(i_, "unexpected " + describe(i_) + "; expected an operator (+ - * /) or the end of the expression");
    }
    if (!ok()) out_.nodes.clear();
    return std::move(out_);
  }

 private:
  bool ok() const { return out_.errors.empty(); }
  void fail(std::size_t pos, std::string message) {
    if (ok()) out_.errors.push_back({pos, std::move(message)});
  }
  std::string describe(std::size_t pos) const {
    if (pos >= s_.size()) return "end of the expression";
    const auto c = static_cast<unsigned char>(s_[pos]);
    if (c >= 0x20 && c < 0x7F) return std::string("'") + s_[pos] + "'";
    constexpr char hex[] = "0123456789ABCDEF";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
  static char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
  static bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (lower(a[k]) != lower(b[k])) return false;
    return true;
  }
  static bool is_number_word(std::string_view w) {
    return iequals(w, "inf") || iequals(w, "infinity") || iequals(w, "nan") || iequals(w, "snan");
  }

  int add(node n) {
    out_.nodes.push_back(std::move(n));
    return static_cast<int>(out_.nodes.size()) - 1;
  }

  // expr := term { ("+" | "-") term }
  int parse_expr(int depth) { return parse_chain(depth, i_, '+', op::add, '-', op::sub, &parser::parse_term); }

  // term := unary { ("*" | "/") unary }
  int parse_term(int depth) {
    const std::size_t begin = (skip_space(), i_);
    return parse_chain(depth, begin, '*', op::mul, '/', op::div, &parser::parse_unary);
  }

  // operand { (c1 | c2) operand }, left associative: each operator's node spans from begin to the
  // end of its right operand.
  int parse_chain(int depth, std::size_t begin, char c1, op k1, char c2, op k2, int (parser::*operand)(int)) {
    int left = (this->*operand)(depth);
    for (;;) {
      if (!ok()) return -1;
      skip_space();
      if (i_ >= s_.size() || (s_[i_] != c1 && s_[i_] != c2)) return left;
      const op kind = s_[i_] == c1 ? k1 : k2;
      ++i_;
      const int right = (this->*operand)(depth);
      if (!ok()) return -1;
      node n;
      n.kind = kind;
      n.begin = begin;
      n.end = out_.nodes[static_cast<std::size_t>(right)].end;
      n.args[0] = left;
      n.args[1] = right;
      left = add(std::move(n));
    }
  }

  // unary := ("-" | "+") unary | primary
  int parse_unary(int depth) {
    skip_space();
    if (depth > max_depth) {
      fail(i_, "the expression is nested too deeply (more than " + std::to_string(max_depth) + " levels)");
      return -1;
    }
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) {
      const std::size_t begin = i_;
      const bool minus = s_[i_] == '-';
      ++i_;
      skip_space();
      if (minus && i_ < s_.size() && starts_number(i_)) return parse_number(begin);
      const int operand = parse_unary(depth + 1);
      if (!ok() || !minus) return operand;
      node n;
      n.kind = op::neg;
      n.begin = begin;
      n.end = out_.nodes[static_cast<std::size_t>(operand)].end;
      n.args[0] = operand;
      return add(std::move(n));
    }
    return parse_primary(depth);
  }

  bool starts_number(std::size_t pos) const {
    if (is_digit(s_[pos]) || s_[pos] == '.') return true;
    std::size_t k = pos;
    while (k < s_.size() && is_alnum(s_[k])) ++k;
    return is_number_word(s_.substr(pos, k - pos));
  }

  // A number token: the longest run that could belong to one, then lf::parse judges it, so "1.2.3"
  // is reported at its second '.', as the library says.
  int parse_number(std::size_t sign_pos) {
    const std::size_t start = i_;
    const bool hex = s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X');
    const char exp_lower = hex ? 'p' : 'e';
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (lower(c) == exp_lower && i_ + 1 < s_.size() && (s_[i_ + 1] == '+' || s_[i_ + 1] == '-') &&
          !(hex && i_ == start + 1)) {
        i_ += 2;
        continue;
      }
      if (is_alnum(c) || c == '.') {
        ++i_;
        continue;
      }
      break;
    }
    std::string literal = (sign_pos != std::string_view::npos ? "-" : "") + std::string(s_.substr(start, i_ - start));
    const lf::parsed<lf::bits_t> check = lf::parse(lf::binary64, literal);  // the grammar is the same for every format
    if (!check) {
      const std::size_t offset = sign_pos != std::string_view::npos ? 1 : 0;
      const std::size_t pos = start + (check.error.position >= offset ? check.error.position - offset : 0);
      // lf's message counts positions in the number; ours count in the expression, so drop its own
      std::string why = check.error.message();
      const std::size_t at = why.find(" at position "), semi = why.find(';');
      if (at != std::string::npos && semi != std::string::npos && semi > at) why.erase(at, semi - at);
      fail(pos, "malformed number '" + std::string(s_.substr(start, i_ - start)) + "': " + why +
                    " (accepted: a decimal like 0.1 or 1e-8, a hex float like 0x1.8p-3, inf, nan)");
      return -1;
    }
    node n;
    n.kind = op::literal;
    n.begin = sign_pos != std::string_view::npos ? sign_pos : start;
    n.end = i_;
    n.literal = std::move(literal);
    return add(std::move(n));
  }

  void expect(char c, std::string_view what) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return;
    }
    fail(i_, "unexpected " + describe(i_) + "; expected " + std::string(what));
  }

  // primary := number | "(" expr ")" | "sqrt" "(" expr ")" | "fma" "(" expr "," expr "," expr ")"
  int parse_primary(int depth) {
    skip_space();
    if (i_ >= s_.size()) {
      fail(i_, "unexpected end of the expression; expected a number, '(', '-', sqrt(x) or fma(a, b, c)");
      return -1;
    }
    const std::size_t begin = i_;
    if (s_[i_] == '(') {
      ++i_;
      const int inner = parse_expr(depth + 1);
      if (!ok()) return -1;
      expect(')', "')' to close the '(' at position " + std::to_string(begin));
      if (!ok()) return -1;
      node& n = out_.nodes[static_cast<std::size_t>(inner)];
      n.begin = std::min(n.begin, begin);
      n.end = i_;
      return inner;
    }
    if (starts_number(i_)) return parse_number(std::string_view::npos);
    if (is_alpha(s_[i_])) {
      std::size_t k = i_;
      while (k < s_.size() && is_alnum(s_[k])) ++k;
      const std::string_view name = s_.substr(i_, k - i_);
      const bool is_sqrt = name == "sqrt", is_fma = name == "fma";
      if (!is_sqrt && !is_fma) {
        fail(i_, "unknown name '" + std::string(name) + "'; expected a number, '(', '-', sqrt(x) or fma(a, b, c)");
        return -1;
      }
      i_ = k;
      expect('(', "'(' after " + std::string(name));
      if (!ok()) return -1;
      node n;
      n.kind = is_sqrt ? op::sqrt : op::fma;
      n.begin = begin;
      const int arity = is_sqrt ? 1 : 3;
      for (int a = 0; a < arity; ++a) {
        if (a > 0) expect(',', "',' between the 3 arguments of fma(a, b, c)");
        if (!ok()) return -1;
        n.args[a] = parse_expr(depth + 1);
        if (!ok()) return -1;
      }
      expect(')', is_sqrt ? "')' to close sqrt(" : "')' after the 3rd argument of fma(a, b, c)");
      if (!ok()) return -1;
      n.end = i_;
      return add(std::move(n));
    }
    fail(i_, "unexpected " + describe(i_) + "; expected a number, '(', '-', sqrt(x) or fma(a, b, c)");
    return -1;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  parsed out_;
};

inline parsed parse(std::string_view text) { return parser(text).run(); }

/// "expected ..." with the expression and a caret under the position, for error messages:
///   at position 4: unexpected '*'; expected a number, ...
///     1 + * 2
///         ^
inline std::string caret_message(std::string_view text, const parse_error& e) {
  std::string shown;
  for (char c : text) shown += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  return "at position " + std::to_string(e.position) + ": " + e.message + "\n    " + shown + "\n    " +
         std::string(e.position, ' ') + "^";
}

/// One evaluated node: its operands' encodings, the rounded result and the flags it raised.
struct step {
  int node = -1;
  lf::bits_t operands[3] = {0, 0, 0};
  lf::bits_t result = 0;
  lf::status flags{};
  lf::env env{};  ///< the rounding it was done under (random bits included)
};

struct evaluation {
  std::vector<step> steps;  ///< one per node, in node order
  lf::bits_t value = 0;     ///< the root's result
  lf::status flags{};       ///< every step's flags ORed
};

/// Evaluates p in format f under e: each literal rounded once by lf::parse, each operation by the
/// library (lf::add, ...). `next_random` supplies the 32 random bits of each rounding (stochastic).
template <typename Random>
evaluation evaluate(const parsed& p, const lf::format& f, const lf::env& e, Random&& next_random) {
  evaluation out;
  out.steps.resize(p.nodes.size());
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const node& n = p.nodes[k];
    step& s = out.steps[k];
    s.node = static_cast<int>(k);
    s.env = e;
    for (int a = 0; a < 3; ++a)
      if (n.args[a] >= 0) s.operands[a] = out.steps[static_cast<std::size_t>(n.args[a])].result;
    if (n.kind != op::neg) s.env.random = next_random();
    const lf::bits_t* x = s.operands;
    switch (n.kind) {
      case op::literal: s.result = lf::parse(f, n.literal, s.env, &s.flags).value; break;
      case op::neg: s.result = lf::neg(f, x[0]); break;
      case op::add: s.result = lf::add(f, x[0], x[1], s.env, s.flags); break;
      case op::sub: s.result = lf::sub(f, x[0], x[1], s.env, s.flags); break;
      case op::mul: s.result = lf::mul(f, x[0], x[1], s.env, s.flags); break;
      case op::div: s.result = lf::div(f, x[0], x[1], s.env, s.flags); break;
      case op::sqrt: s.result = lf::sqrt(f, x[0], s.env, s.flags); break;
      case op::fma: s.result = lf::fma(f, x[0], x[1], x[2], s.env, s.flags); break;
    }
    out.flags |= s.flags;
  }
  if (!out.steps.empty()) out.value = out.steps.back().result;
  return out;
}

}  // namespace floatlab::expr
