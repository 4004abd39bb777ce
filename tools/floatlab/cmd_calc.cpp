// floatlab calc: evaluate an expression in a format, every literal and every operation rounded to
// it by the library; --steps shows each rounding next to the exact value it rounded.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"
#include "expr.hpp"

namespace floatlab {

namespace {

struct calc_options {
  std::string expression;
  std::string format;
  rounding_options rounding;
  bool steps = false;
  bool json = false;
};

std::string_view op_name(expr::op k) {
  switch (k) {
    case expr::op::literal: return "literal";
    case expr::op::neg: return "neg";
    case expr::op::add: return "add";
    case expr::op::sub: return "sub";
    case expr::op::mul: return "mul";
    case expr::op::div: return "div";
    case expr::op::sqrt: return "sqrt";
    case expr::op::fma: return "fma";
  }
  return "?";
}

/// A step as a person reads it: the operation on the (already rounded) operand values.
std::string step_text(const lf::format& f, const expr::node& n, const expr::step& s) {
  auto v = [&](int a) {
    const std::string t = value_text(f, s.operands[a], 28);
    return (t[0] == '-' && n.kind != expr::op::sqrt && n.kind != expr::op::fma) ? "(" + t + ")" : t;
  };
  switch (n.kind) {
    case expr::op::literal: return n.literal;
    case expr::op::neg: return "-" + v(0);
    case expr::op::add: return v(0) + " + " + v(1);
    case expr::op::sub: return v(0) + " - " + v(1);
    case expr::op::mul: return v(0) + " * " + v(1);
    case expr::op::div: return v(0) + " / " + v(1);
    case expr::op::sqrt: return "sqrt(" + v(0) + ")";
    case expr::op::fma: return "fma(" + v(0) + ", " + v(1) + ", " + v(2) + ")";
  }
  return "?";
}

/// What one step rounded: the exact value of the operation on its operands, its rounding error
/// and why it went that way. No exact value for non-finite operands or invalid operations.
struct step_analysis {
  std::optional<exact_real> exact;
  std::optional<rounding_error> error;
  std::string explanation;
};

step_analysis analyse(const lf::format& f, const expr::node& n, const expr::step& s) {
  step_analysis out;
  if (n.kind == expr::op::neg) {
    out.explanation = "negation is exact: only the sign bit changes.";
    return out;
  }
  const int arity = n.kind == expr::op::literal ? 0 : n.kind == expr::op::sqrt ? 1 : n.kind == expr::op::fma ? 3 : 2;
  rational x[3];
  for (int a = 0; a < arity; ++a) {
    if (!is_finite(f, s.operands[a])) {
      out.explanation = "no rounding to explain: an operand is not finite.";
      return out;
    }
    x[a] = value_of(f, s.operands[a]);
  }
  exact_real r;
  switch (n.kind) {
    case expr::op::literal: {
      const std::optional<rational> v = value_of_text(n.literal);
      if (!v) {
        out.explanation = "not a finite number (or beyond 10^" + std::to_string(max_exact_exponent) + "): no exact value.";
        return out;
      }
      r.q = *v;
      break;
    }
    case expr::op::add: r.q = x[0] + x[1]; break;
    case expr::op::sub: r.q = x[0] - x[1]; break;
    case expr::op::mul: r.q = x[0] * x[1]; break;
    case expr::op::div:
      if (x[1] == 0) {
        out.explanation = "division by zero: no exact value.";
        return out;
      }
      r.q = x[0] / x[1];
      break;
    case expr::op::sqrt:
      if (x[0] < 0) {
        out.explanation = "square root of a negative number: no real value.";
        return out;
      }
      r.q = x[0];
      r.is_sqrt = true;
      break;
    case expr::op::fma: r.q = x[0] * x[1] + x[2]; break;
    case expr::op::neg: break;
  }
  out.exact = r;
  // The two candidates: the same operation rounded down and up (IEEE policies).
  auto directed = [&](lf::rounding m) {
    lf::status ignored{};
    const lf::env e{m};
    const lf::bits_t* o = s.operands;
    switch (n.kind) {
      case expr::op::literal: return lf::parse(f, n.literal, e).value;
      case expr::op::add: return lf::add(f, o[0], o[1], e, ignored);
      case expr::op::sub: return lf::sub(f, o[0], o[1], e, ignored);
      case expr::op::mul: return lf::mul(f, o[0], o[1], e, ignored);
      case expr::op::div: return lf::div(f, o[0], o[1], e, ignored);
      case expr::op::sqrt: return lf::sqrt(f, o[0], e, ignored);
      case expr::op::fma: return lf::fma(f, o[0], o[1], o[2], e, ignored);
      case expr::op::neg: break;
    }
    return s.result;
  };
  bool exact_text = true;
  const std::string x_text =
      n.kind == expr::op::literal ? n.literal : [&] {
        const decimal_text t = r.is_sqrt ? to_decimal(r.approx(3 * f.precision + 80, exact_text), 10, 10)
                                         : to_decimal(r.q, 40, 12);
        return exact_text ? t.shown() : "≈" + t.text;
      }();
  out.explanation =
      explain_rounding(f, x_text, r, s.result, directed(lf::rounding::downward), directed(lf::rounding::upward), s.env, s.flags);
  if (is_finite(f, s.result)) out.error = measure(f, s.result, r);
  return out;
}

std::string exact_text(const exact_real& r, const lf::format& f) {
  if (!r.is_sqrt) return to_decimal(r.q, 60, 20).shown();
  bool exact = true;
  const rational v = r.approx(3 * f.precision + 80, exact);
  const decimal_text t = to_decimal(v, exact ? 60 : 20, 20);
  return exact && t.exact ? t.text : "≈" + t.text;
}

std::string signed_text(const decimal_text& t) {
  std::string s = t.text;
  if (!s.empty() && s[0] != '-' && s != "0") s = "+" + s;
  return t.exact ? s : "≈" + s;
}

std::string error_text(const rounding_error& e) {
  return signed_text(e.absolute) + " absolute, " +
         (e.relative.text.empty() ? "" : signed_text(e.relative) + " relative, ") + signed_text(e.ulps) + " ulp";
}

int run_calc(const calc_options& o) {
  const lf::format f = format_or_throw(o.format, "-f/--format");
  const expr::parsed p = expr::parse(o.expression);
  if (!p) throw usage_error("EXPR: " + expr::caret_message(o.expression, p.errors[0]));
  random_source rng(o.rounding.seed);
  const expr::evaluation ev = expr::evaluate(p, f, o.rounding.env(), [&] { return rng.next(); });
  const lf::bits_t v = ev.value;
  const std::string name = lf::format_name(f);
  const std::string mode(lf::rounding_name(o.rounding.env().mode));
  output_buffer out;

  if (o.json) {
    json_writer j;
    auto value_object = [&](lf::bits_t b) {
      j.begin_object().field("bits", hex_of(f, b)).field("exact", lf::to_exact_decimal(f, b))
          .field("shortest", lf::to_shortest(f, b)).field("class", class_of(f, b)).end_object();
    };
    auto measure_object = [&](const decimal_text& t) -> json_writer& {
      if (t.text.empty()) return j.null();
      return j.begin_object().field("value", t.text).field("exact", t.exact).end_object();
    };
    j.begin_object().field("command", "calc").field("expression", o.expression).field("format", name).field("rounding", mode);
    j.key("result");
    value_object(v);
    j.key("flags").strings(flag_names(ev.flags));
    j.key("steps").begin_array();
    for (std::size_t k = 0; k < p.nodes.size(); ++k) {
      const expr::node& n = p.nodes[k];
      const expr::step& s = ev.steps[k];
      const step_analysis a = analyse(f, n, s);
      // Where the step is in EXPR, as offsets rather than its text: the text of every operator's
      // step repeated its operands' (1+1+...+1 printed quadratically many characters).
      j.begin_object().field("op", op_name(n.kind));
      j.key("span").begin_array().raw(std::to_string(n.begin)).raw(std::to_string(n.end)).end_array();
      j.key("operands").begin_array();
      for (int i = 0; i < 3; ++i)
        if (n.args[i] >= 0) j.raw(std::to_string(n.args[i]));
      j.end_array();
      j.key("result");
      value_object(s.result);
      j.key("flags").strings(flag_names(s.flags));
      j.key("exact");
      if (a.exact) {
        const std::string t = exact_text(*a.exact, f);
        const bool approx = t.rfind("≈", 0) == 0;
        j.begin_object().field("value", approx ? t.substr(std::string("≈").size()) : t).field("exact", !approx).end_object();
      } else {
        j.null();
      }
      j.key("direction");
      if (a.error) j.value(a.error->direction > 0 ? "up" : a.error->direction < 0 ? "down" : "exact");
      else j.null();
      j.key("error");
      if (a.error) {
        j.begin_object().key("absolute");
        measure_object(a.error->absolute);
        j.key("relative");
        measure_object(a.error->relative);
        j.key("ulps");
        measure_object(a.error->ulps);
        j.end_object();
      } else {
        j.null();
      }
      j.field("explanation", a.explanation).end_object();
    }
    j.end_array().end_object();
    out << j.str() << '\n';
    return exit_success;
  }

  const palette colour = palette::for_stream(stdout);
  const std::string summary = fmt::format("{} = {}{}{} in {} ({}), flags: {}", o.expression, colour.bold,
                                          value_text(f, v, 40), colour.reset, name, hex_of(f, v), flags_text(ev.flags));
  if (!o.steps) {
    out << summary << '\n';
    out << wrap("(every literal and every operation rounded to " + name + ", " + mode + "; --steps shows each)", 80, "") << '\n';
    return exit_success;
  }
  out << "Every literal and every operation is rounded to " << name << " (" << mode << ").\n";
  int number = 0;
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const expr::node& n = p.nodes[k];
    const expr::step& s = ev.steps[k];
    const step_analysis a = analyse(f, n, s);
    std::string head = n.kind == expr::op::literal ? "literal " + n.literal : "[" + std::to_string(++number) + "] " + step_text(f, n, s);
    if (a.error && a.error->direction == 0) {  // nothing rounded: one line
      out << colour.bold << wrap(head, 80, "    ") << colour.reset << " = " << value_text(f, s.result, 40) << "  ("
          << hex_of(f, s.result) << "), exact\n";
      continue;
    }
    out << colour.bold << wrap(head, 80, "    ") << colour.reset << '\n';
    auto row = [&](std::string_view label, const std::string& text) {
      out << "    " << fmt::format("{:<8}", label) << wrap(text, 68, std::string(12, ' ')) << '\n';
    };
    if (a.exact) row("exact", exact_text(*a.exact, f));
    row("rounded", value_text(f, s.result, 40) + "  (" + hex_of(f, s.result) + ")  flags: " + flags_text(s.flags));
    if (a.error) row("error", error_text(*a.error));
    out << "    " << wrap(a.explanation, 76, "    ") << '\n';
  }
  out << summary << '\n';
  return exit_success;
}

}  // namespace

command register_calc(CLI::App& app) {
  auto o = std::make_shared<calc_options>();
  CLI::App* cmd = app.add_subcommand("calc", "Evaluate an expression in a format: + - * / sqrt fma and parentheses, "
                                             "every literal and every operation rounded");
  cmd->add_option("EXPR", o->expression, "The expression, quoted, e.g. \"1 + 1e-4\"")->required();
  cmd->add_option("-f,--format", o->format, "The format; known: " + lf::known_format_names())
      ->type_name("FORMAT")
      ->required();
  add_rounding_options(*cmd, o->rounding);
  cmd->add_flag("--steps", o->steps,
                "Show each literal and operation: its exact value on the rounded operands, the rounded result, "
                "the rounding error and why it rounded that way");
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    auto run = [](std::string_view e, const lf::format& f) {
      const expr::parsed p = expr::parse(e);
      const expr::evaluation ev = expr::evaluate(p, f, lf::env{}, [] { return std::uint32_t{0}; });
      return fmt::format("{} = {} in {} ({}), flags: {}", e, value_text(f, ev.value, 40), lf::format_name(f),
                         hex_of(f, ev.value), flags_text(ev.flags));
    };
    const expr::parsed bad = expr::parse("1 + * 2");
    return fmt::format(R"help(Grammar: numbers ({}), + - * /, unary minus, parentheses,
sqrt(x) and fma(a, b, c) (a*b + c rounded once). * and / bind tighter than + and -; unary minus
tighter than both, and a minus written before a number belongs to it ("-0.1" is rounded as
-0.1). Every literal is rounded to FORMAT when it is read, and every operation's result is
rounded to FORMAT by the library, under -r and the policy options: the result is what a machine
computing in FORMAT would give, operation by operation. Negation is exact. An expression that
starts with "-(" or "-sqrt" goes after "--", as in: floatlab calc -f fp16 -- "-(1 + 2)".
Nesting deeper than {} levels (parentheses, unary signs, sqrt and fma inside one another) is
refused with an error; a chain of any length (1 + 1 + ... + 1) is not nesting.
--steps shows each literal and operation in evaluation order with: the exact value of that
operation on its already rounded operands (≈ and 20 digits for an irrational square root), the
rounded result, the rounding error (absolute, relative, in ulps of the exact value) and which
way it rounded and why.
--json prints {{"command":"calc", "expression", "format", "rounding",
  "result": {{"bits", "exact", "shortest", "class"}}, "flags": [names], "steps": [S...]}},
one S per literal and operation in evaluation order (the last is the result):
  {{"op": "literal"|"neg"|"add"|"sub"|"mul"|"div"|"sqrt"|"fma", "span": [begin, end] (its part
   of EXPR is the characters from offset begin, counted from 0, up to but not including end),
   "operands": [indexes of earlier steps], "result": {{"bits", "exact", "shortest", "class"}},
   "flags": [names], "exact": null | {{"value", "exact": bool}}, "direction": "up"|"down"|"exact"|null,
   "error": null | {{"absolute", "relative", "ulps"}}: each null or {{"value", "exact": bool}},
   "explanation"}}
Exit status: 0 success, 2 bad usage: an unknown format, a malformed expression (shown with a
caret under the position and what was expected there).

Examples:
  floatlab calc "1 + 1e-4" -f fp16
      {}
  floatlab calc "1 + 1e-4" -f fp16 --steps      # each rounding, its exact value and error
  floatlab calc "(0.1 + 0.2) - 0.3" -f fp32
      {}
  floatlab calc "fma(3, 1/3, -1)" -f bf16 -r toward_zero
  floatlab calc "1 + * 2" -f fp16
      floatlab: EXPR: {})help",
                       number_syntax_help.substr(std::string_view("accepted: ").size()), expr::max_depth,
                       run("1 + 1e-4", lf::binary16),
                       run("(0.1 + 0.2) - 0.3", lf::binary32),
                       [&] {
                         std::string m = expr::caret_message("1 + * 2", bad.errors[0]);
                         std::string indented;
                         for (char c : m) indented += c == '\n' ? std::string("\n      ") : std::string(1, c);
                         return indented;
                       }());
  });
  return {cmd, [o] { return run_calc(*o); }};
}

const register_command registered_calc{40, register_calc};

}  // namespace floatlab
