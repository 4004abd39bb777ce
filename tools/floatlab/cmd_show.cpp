// floatlab show: what a number becomes in each format, and why. One block per value and format:
// the stored value (exact and shortest), its encoding field by field, its class, the rounding
// error (absolute, relative, in ulps, computed exactly), the ulp, the neighbours, the flags, and a
// sentence saying which way it rounded.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"

namespace floatlab {

namespace {

struct show_options {
  std::vector<std::string> values;
  std::string formats = "fp16,bf16,fp32,e4m3,e5m2";
  rounding_options rounding;
  bool bits = false;
  bool json = false;
};

struct neighbour {
  lf::bits_t bits;
  std::string text;  // exact decimal (compact notation) or inf/nan
};

struct show_result {
  std::string input;
  lf::format f = lf::binary16;
  lf::env env{};
  bool raw = false;  // --bits: taken as is
  lf::bits_t bits = 0;
  lf::status flags{};
  std::string exact, shortest, klass;
  fields parts;
  bool finite = false;
  std::optional<rounding_error> error;  // when the input has an exact value and was rounded
  std::string no_error_why;             // otherwise, why not
  std::optional<neighbour> ulp, below, above;
  long ulp_log2 = 0;
  std::string explanation;
};

show_result compute(const lf::format& f, const std::string& text, bool raw, const lf::env& e) {
  show_result r;
  r.input = text;
  r.f = f;
  r.env = e;
  r.raw = raw;
  const number_argument n = parse_number_argument(f, text, raw, e, "VALUE");
  if (!n) throw usage_error(n.error);
  r.bits = n.bits;
  r.flags = n.flags;
  r.exact = lf::to_exact_decimal(f, r.bits);
  r.shortest = lf::to_shortest(f, r.bits);
  r.klass = class_of(f, r.bits);
  r.parts = fields_of(f, r.bits);
  r.finite = is_finite(f, r.bits);
  auto make = [&](lf::bits_t b) { return neighbour{b, value_text(f, b, 40)}; };
  if (!is_nan(f, r.bits)) {
    lf::status ignored{};
    const lf::bits_t down = lf::next_down(f, r.bits, ignored), up = lf::next_up(f, r.bits, ignored);
    if (down != r.bits) r.below = make(down);
    if (up != r.bits) r.above = make(up);
  }
  if (r.finite) {
    const lf::bits_t u = lf::ulp(f, r.bits);
    r.ulp = make(u);
    r.ulp_log2 = floor_log2(value_of(f, u));
  }
  if (raw) {
    r.no_error_why = "a raw encoding (--bits) is taken as is: nothing was rounded";
    r.explanation = "not rounded: " + text + " was given as an encoding (--bits).";
    return r;
  }
  const std::optional<rational> x = value_of_text(text);
  if (!x) {
    lf::detail::scanned in;
    lf::detail::scan(text, in);
    if (in.kind != lf::detail::scanned::what::number) {
      r.no_error_why = "'" + text + "' is not a finite number";
      const bool is_inf = in.kind == lf::detail::scanned::what::infinity;
      if (lf::has(r.flags, lf::status::invalid) && !f.has_nan())
        r.explanation = lf::format_name(f) + " has no infinity and no NaN: " + text + " becomes max finite " +
                        r.shortest + ", which stands in for it (invalid).";
      else if (lf::has(r.flags, lf::status::invalid) && is_inf && !f.has_infinity())
        r.explanation = lf::format_name(f) + " has no infinity: " + text + " becomes " + r.shortest + " (invalid).";
      else if (lf::has(r.flags, lf::status::invalid))
        r.explanation = lf::format_name(f) + " is unsigned: " + text + " becomes its NaN " + r.shortest + " (invalid).";
      else if (r.finite)
        r.explanation = "saturated (--saturate): " + text + " becomes the largest finite value.";
      else
        r.explanation = "not a finite number: stored as " + r.shortest + ".";
    } else {
      r.no_error_why = "the input is too far out (beyond 10^" + std::to_string(max_exact_exponent) +
                       " either way) to expand exactly";
      const char* what = lf::has(r.flags, lf::status::overflow)  ? "overflowed"
                         : lf::has(r.flags, lf::status::invalid) ? "no encoding (a format without sign or zero)"
                         : f.has_subnormals()                    ? "far below the smallest subnormal"
                                                                 : "far below the smallest value";
      r.explanation = std::string(what) + ": stored as " + r.shortest + ".";
    }
    return r;
  }
  const exact_real xr{*x};
  const lf::bits_t lower = lf::parse(f, text, lf::env{lf::rounding::downward}).value;
  const lf::bits_t upper = lf::parse(f, text, lf::env{lf::rounding::upward}).value;
  r.explanation = explain_rounding(f, text, xr, r.bits, lower, upper, e, r.flags);
  if (r.finite) r.error = measure(f, r.bits, xr);
  else r.no_error_why = "the stored value is not finite";
  return r;
}

std::string signed_text(const decimal_text& t) {
  std::string s = t.text;
  if (!s.empty() && s[0] != '-' && s != "0") s = "+" + s;
  return t.exact ? s : "≈" + s;
}

std::string render_text(const show_result& r, const palette& colour) {
  const lf::format& f = r.f;
  std::string out = fmt::format("{}{} in {}{}", colour.bold, r.input, lf::format_name(f), colour.reset);
  out += r.raw ? " (raw encoding)\n" : fmt::format(" ({})\n", lf::rounding_name(r.env.mode));
  auto row = [&](std::string_view label, const std::string& text) {
    out += "  " + fmt::format("{:<11}", label) + " " + wrap(text, 66, "              ") + "\n";
  };
  row("stored", compact_exact(r.exact) + (r.exact == r.shortest ? "" : "  (shortest " + r.shortest + ")"));
  if (compact_exact(r.exact) != r.exact && r.exact.size() <= 66) row("", "= " + r.exact);
  row("encoding", hex_of(f, r.bits) + " = " + r.parts.grouped() + "  (" + r.parts.label() + ")");
  row("class", r.klass);
  if (r.error) {
    std::string e = signed_text(r.error->absolute) + " absolute, ";
    e += r.error->relative.text.empty() ? "" : signed_text(r.error->relative) + " relative, ";
    e += signed_text(r.error->ulps) + " ulp";
    row("error", e);
  } else {
    row("error", "none: " + r.no_error_why);
  }
  if (r.ulp) row("ulp", r.ulp->text + " = 2^" + std::to_string(r.ulp_log2) + "  (spacing of " + lf::format_name(f) + " here)");
  std::string nb;
  if (r.below) nb += r.below->text + " (" + hex_of(f, r.below->bits) + ") below";
  if (r.above) nb += std::string(nb.empty() ? "" : ", ") + r.above->text + " (" + hex_of(f, r.above->bits) + ") above";
  if (!nb.empty()) row("neighbours", nb);
  row("flags", flags_text(r.flags));
  out += "  " + wrap(r.explanation, 78, "  ") + "\n";
  return out;
}

void render_json(json_writer& j, const show_result& r) {
  const lf::format& f = r.f;
  auto value_object = [&](const std::optional<neighbour>& n) -> json_writer& {
    if (!n) return j.null();
    return j.begin_object().field("bits", hex_of(f, n->bits)).field("exact", lf::to_exact_decimal(f, n->bits))
        .field("shortest", lf::to_shortest(f, n->bits)).end_object();
  };
  j.begin_object();
  j.field("input", r.input).field("format", lf::format_name(f)).field("rounding", lf::rounding_name(r.env.mode));
  j.field("raw_encoding", r.raw).field("bits", hex_of(f, r.bits));
  j.key("fields").begin_object().field("sign", r.parts.sign).field("exponent", r.parts.exponent)
      .field("fraction", r.parts.fraction).end_object();
  j.field("class", r.klass).field("exact", r.exact).field("shortest", r.shortest);
  j.key("flags").strings(flag_names(r.flags));
  j.key("direction");
  if (r.error) j.value(r.error->direction > 0 ? "up" : r.error->direction < 0 ? "down" : "exact");
  else j.null();
  j.key("error");
  if (r.error) {
    auto measure_object = [&](const decimal_text& t) -> json_writer& {
      if (t.text.empty()) return j.null();
      return j.begin_object().field("value", t.text).field("exact", t.exact).end_object();
    };
    j.begin_object();
    j.key("absolute");
    measure_object(r.error->absolute);
    j.key("relative");
    measure_object(r.error->relative);
    j.key("ulps");
    measure_object(r.error->ulps);
    j.end_object();
  } else {
    j.null();
  }
  j.key("ulp");
  value_object(r.ulp);
  j.key("next_down");
  value_object(r.below);
  j.key("next_up");
  value_object(r.above);
  j.field("explanation", r.explanation);
  j.end_object();
}

int run_show(const show_options& o) {
  const std::vector<lf::format> formats = format_list_or_throw(o.formats, "-f/--formats");
  random_source rng(o.rounding.seed);
  std::vector<show_result> results;
  for (const std::string& v : o.values)
    for (const lf::format& f : formats) {
      lf::env e = o.rounding.env();
      e.random = rng.next();
      results.push_back(compute(f, v, o.bits, e));
    }
  output_buffer out;
  if (o.json) {
    json_writer j;
    j.begin_object().field("command", "show").key("results").begin_array();
    for (const show_result& r : results) render_json(j, r);
    j.end_array().end_object();
    out << j.str() << '\n';
    return exit_success;
  }
  const palette colour = palette::for_stream(stdout);
  for (std::size_t i = 0; i < results.size(); ++i) out << (i ? "\n" : "") << render_text(results[i], colour);
  return exit_success;
}

}  // namespace

command register_show(CLI::App& app) {
  auto o = std::make_shared<show_options>();
  CLI::App* cmd = app.add_subcommand("show", "What a number becomes in each format: stored value, encoding, class, "
                                             "rounding error, ulp, neighbours, flags, and why");
  cmd->add_option("VALUE", o->values, "Numbers to show (see Numbers below)")->required();
  CLI::Option* formats = cmd->add_option("-f,--formats", o->formats, "Formats, separated by commas; known: " + lf::known_format_names())
      ->type_name("FORMATS")
      ->capture_default_str();
  cmd->add_flag("--bits", o->bits, "Each VALUE is a raw encoding in hex of each format in -f (not rounded)");
  add_rounding_options(*cmd, o->rounding);
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    const palette none{};
    const show_result bf = compute(lf::bfloat16, "0.1", false, lf::env{});
    const show_result h = compute(lf::binary16, "3C01", true, lf::env{});
    return fmt::format(R"({}

For each VALUE and format: the stored value (every digit of it, and the shortest text that reads
back to it), the encoding in hex and in binary as sign | exponent | fraction, the class, the
rounding error of the stored value against the exact input (absolute = stored - input; relative =
absolute / |input|; in ulps of the input, 2^(max(E, emin) - p + 1) with 2^E <= |input| < 2^(E+1),
so at most 0.5 for a nearest rounding), the ulp at the stored value, the neighbours below and
above (nextDown, nextUp), the flags raised, and which way it rounded and why. Errors are computed
exactly with big rationals; a value that does not terminate within 40 digits is shown rounded
to 10 digits and marked ≈.
--json prints {{"command":"show","results":[R...]}}, one R per VALUE and format, in that order:
  {{"input", "format", "rounding", "raw_encoding": bool, "bits": "0x3DCD",
   "fields": {{"sign", "exponent", "fraction"}} (binary digits), "class", "exact", "shortest",
   "flags": [names], "direction": "up"|"down"|"exact"|null,
   "error": null | {{"absolute", "relative", "ulps"}}: each null or {{"value": decimal, "exact": bool}},
   "ulp", "next_down", "next_up": null | {{"bits", "exact", "shortest"}}, "explanation"}}
Flag names: invalid, divide_by_zero, overflow, underflow, inexact.
Exit status: 0 success, 2 bad usage: an unknown format, a malformed number.

Examples:
  floatlab show 0.1 -f bf16
{}  floatlab show --bits 3C01 -f fp16        # an encoding: the next fp16 after 1
{}  floatlab show 1e-8 65519 -f fp16 -r toward_zero
  floatlab show 0.1 --json | python3 -m json.tool)",
                       number_argument_help, indent_lines(render_text(bf, none), "    "),
                       indent_lines(render_text(h, none), "    "));
  });
  return {cmd, [o, formats] {
            if (o->bits && formats->count() == 0)
              throw usage_error("--bits needs -f FORMAT: a raw encoding means something in one format only "
                                "(e.g. floatlab show --bits 3C00 -f fp16)");
            return run_show(*o);
          }};
}

const register_command registered_show{10, register_show};

}  // namespace floatlab
