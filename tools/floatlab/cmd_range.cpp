// floatlab range: the parameters and extreme values of formats, side by side. Every number comes
// from the library: lf::format's fields and encodings, lf::ulp, lf::to_exact_decimal and
// lf::to_shortest (digit counts from exact integer powers).
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"

namespace floatlab {

namespace {

struct range_options {
  std::string formats;  // empty: every named format
  bool json = false;
};

struct encoding_range {
  lf::bits_t first, last;
};

struct format_range {
  lf::format f;
  lf::bits_t max_finite, min_normal, min_subnormal, epsilon;
  bool has_subnormals = true;  ///< false: min_subnormal means nothing (exponent-only formats)
  rational unit_roundoff;
  int digits10, max_digits10;
  std::vector<lf::bits_t> infinities;
  std::vector<encoding_range> nans, quiet_nans, signaling_nans;
  std::uint64_t nan_count = 0;
};

/// The largest d with 10^d <= 2^n (floor(n log10 2), exactly).
int floor_log10_pow2(int n) {
  const big_int p2 = big_int(1) << n;
  int d = 0;
  big_int t = 10;
  while (t <= p2) {
    ++d;
    t *= 10;
  }
  return d;
}

format_range compute(const lf::format& f) {
  format_range r{};
  r.f = f;
  r.max_finite = f.max_finite_bits();
  r.min_normal = f.min_normal_bits();
  r.min_subnormal = f.min_subnormal_bits();
  r.has_subnormals = f.has_subnormals();
  r.epsilon = lf::ulp(f, lf::parse(f, "1").value);  // the gap between 1 and the next value
  r.unit_roundoff = value_of(f, r.epsilon) / 2;     // 2^-p: half that gap, not always a value of f
  r.digits10 = floor_log10_pow2(f.precision - 1);
  r.max_digits10 = floor_log10_pow2(f.precision) + 2;  // ceil(p log10 2) + 1; p log10 2 is never an integer
  const lf::bits_t s = f.sign_mask(), em = f.exponent_mask(), fm = f.fraction_mask();
  if (f.has_infinity()) r.infinities = {em, s | em};
  if (f.kind == lf::nonfinite::ieee) {
    for (const lf::bits_t sign : {lf::bits_t{0}, s}) {
      r.nans.push_back({sign | em | 1, sign | em | fm});
      r.quiet_nans.push_back({sign | em | f.quiet_bit(), sign | em | fm});
      if (f.has_signaling_nan()) r.signaling_nans.push_back({sign | em | 1, sign | em | (f.quiet_bit() - 1)});
      r.nan_count += fm;
    }
  } else {
    // One NaN per sign (OCP fn), one in all (fnuz: the -0 encoding; exponent-only: all ones), or
    // none (finite_only): lf::format::nan_bits, all quiet.
    for (const lf::bits_t b : non_ieee_nans(f)) {
      r.nans.push_back({b, b});
      r.quiet_nans.push_back({b, b});
      r.nan_count += 1;
    }
  }
  return r;
}

/// The kind as one word: "ieee", "nan_only" (OCP fn), "finite_only", "fnuz", "exponent_only".
std::string_view kind_word(const lf::format& f) {
  if (f.exponent_only()) return "exponent_only";
  switch (f.kind) {
    case lf::nonfinite::ieee: return "ieee";
    case lf::nonfinite::nan_only: return "nan_only";
    case lf::nonfinite::finite_only: return "finite_only";
    case lf::nonfinite::fnuz: return "fnuz";
  }
  return "?";
}

std::string ranges_text(const lf::format& f, const std::vector<encoding_range>& v) {
  std::string out;
  for (const auto& e : v) {
    out += out.empty() ? "" : ", ";
    out += hex_of(f, e.first) + (e.first == e.last ? "" : "-" + hex_of(f, e.last));
  }
  return out;
}

std::string power_text(const lf::format& f, lf::bits_t b) { return " = 2^" + std::to_string(floor_log2(value_of(f, b))); }

std::string render_text(const format_range& r, const palette& colour) {
  const lf::format& f = r.f;
  std::string out = fmt::format("{}{}{}  {}\n", colour.bold, lf::format_name(f), colour.reset, format_citation(f));
  auto row = [&](std::string_view label, const std::string& text) {
    out += "  " + fmt::format("{:<15}", label) + " " + wrap(text, 62, std::string(18, ' ')) + "\n";
  };
  auto value_row = [&](std::string_view label, lf::bits_t b, bool power) {
    row(label, hex_of(f, b) + "  " + value_text(f, b, 48) + (power ? power_text(f, b) : ""));
  };
  row("bits", f.has_sign() ? fmt::format("{} = 1 sign + {} exponent + {} fraction", f.bits(), f.exponent_bits,
                                          f.fraction_bits())
                            : fmt::format("{} = {} exponent (no sign bit, no fraction)", f.bits(), f.exponent_bits));
  row("precision",
      fmt::format("{} bit{} (p, the implicit leading bit included)", f.precision, f.precision == 1 ? "" : "s"));
  row("emin, emax", fmt::format("{}, {}", f.emin(), f.emax()));
  row("bias", std::to_string(f.bias()));
  row("kind", kind_summary(f));
  value_row("max finite", r.max_finite, false);
  value_row("min normal", r.min_normal, true);
  if (r.has_subnormals) value_row("min subnormal", r.min_subnormal, true);
  else row("min subnormal", "none (no subnormals: the smallest value is min normal)");
  value_row("epsilon", r.epsilon, true);
  row("unit roundoff", to_decimal(r.unit_roundoff).shown() + " = 2^" + std::to_string(floor_log2(r.unit_roundoff)) +
                           "  (epsilon / 2)");
  row("decimal digits", fmt::format("{} (digits10), {} (max_digits10)", r.digits10, r.max_digits10));
  row("infinity", r.infinities.empty() ? "none"
                                       : hex_of(f, r.infinities[0]) + " (+inf), " + hex_of(f, r.infinities[1]) + " (-inf)");
  row("NaN", r.nan_count == 0 ? std::string("none")
                               : fmt::format("{} encoding{}: {}", r.nan_count, r.nan_count == 1 ? "" : "s",
                                             ranges_text(f, r.nans)));
  if (f.kind == lf::nonfinite::ieee) {
    row("  quiet", ranges_text(f, r.quiet_nans));
    row("  signaling", r.signaling_nans.empty() ? "none" : ranges_text(f, r.signaling_nans));
  }
  return out;
}

void render_json(json_writer& j, const format_range& r) {
  const lf::format& f = r.f;
  auto value_object = [&](std::string_view k, lf::bits_t b) {
    j.key(k).begin_object().field("bits", hex_of(f, b)).field("exact", lf::to_exact_decimal(f, b))
        .field("shortest", lf::to_shortest(f, b)).end_object();
  };
  auto ranges = [&](std::string_view k, const std::vector<encoding_range>& v) {
    j.key(k).begin_array();
    for (const auto& e : v) j.begin_array().value(hex_of(f, e.first)).value(hex_of(f, e.last)).end_array();
    j.end_array();
  };
  j.begin_object();
  j.field("format", lf::format_name(f)).field("citation", format_citation(f));
  j.field("bits", f.bits()).field("exponent_bits", f.exponent_bits).field("fraction_bits", f.fraction_bits());
  j.field("precision", f.precision).field("emin", f.emin()).field("emax", f.emax()).field("bias", f.bias());
  j.field("kind", std::string(kind_word(f))).field("summary", kind_summary(f));
  j.field("has_sign", f.has_sign()).field("has_zero", f.has_zero()).field("has_negative_zero", f.has_negative_zero());
  j.field("has_subnormals", f.has_subnormals()).field("has_infinity", f.has_infinity()).field("has_nan", f.has_nan());
  value_object("max_finite", r.max_finite);
  value_object("min_normal", r.min_normal);
  if (r.has_subnormals) value_object("min_subnormal", r.min_subnormal);
  else j.key("min_subnormal").null();
  value_object("epsilon", r.epsilon);
  j.key("unit_roundoff").begin_object().field("exact", to_decimal(r.unit_roundoff, 1000).text)
      .field("log2", static_cast<int>(floor_log2(r.unit_roundoff))).end_object();
  j.field("digits10", r.digits10).field("max_digits10", r.max_digits10);
  j.key("infinity").begin_array();
  for (lf::bits_t b : r.infinities) j.value(hex_of(f, b));
  j.end_array();
  j.field("nan_count", static_cast<long long>(r.nan_count));
  ranges("nan", r.nans);
  ranges("quiet_nan", r.quiet_nans);
  ranges("signaling_nan", r.signaling_nans);
  j.end_object();
}

int run_range(const range_options& o) {
  const std::vector<lf::format> formats =
      o.formats.empty() ? all_named_formats() : format_list_or_throw(o.formats, "-f/--formats");
  output_buffer out;
  if (o.json) {
    json_writer j;
    j.begin_object().field("command", "range").key("formats").begin_array();
    for (const lf::format& f : formats) render_json(j, compute(f));
    j.end_array().end_object();
    out << j.str() << '\n';
    return exit_success;
  }
  const palette colour = palette::for_stream(stdout);
  for (std::size_t i = 0; i < formats.size(); ++i) out << (i ? "\n" : "") << render_text(compute(formats[i]), colour);
  return exit_success;
}

}  // namespace

command register_range(CLI::App& app) {
  auto o = std::make_shared<range_options>();
  CLI::App* cmd = app.add_subcommand("range", "Parameters and extreme values of formats: precision, exponent range, "
                                              "max, min normal, min subnormal, epsilon, non-finite encodings");
  cmd->add_option("-f,--formats", o->formats,
                  "Formats, separated by commas (default: every named format); known: " + lf::known_format_names())
      ->type_name("FORMATS");
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    const palette none{};
    return fmt::format(R"(For each format: its width and fields, precision p, emin and emax (the exponents of the
smallest normal value and of the largest finite one), the exponent bias, its kind (what it has
and lacks: IEEE 754; OCP fn: no inf, one NaN per sign; finite only (FP4, FP6): no inf, no NaN;
fnuz: NaN at the -0 encoding, no -0, no inf; exponent only (E8M0): unsigned, no zero, no
subnormals), the largest finite value, the smallest normal and subnormal values, epsilon (the
gap between 1 and the next value, 2^(1-p)), the unit roundoff u = 2^-p (the largest relative
error of a nearest rounding in the normal range), the decimal digits (digits10, max_digits10, as
std::numeric_limits), and the encodings of infinity and NaN. Values are exact; one longer than
48 characters is shown rounded to 20 significant digits and marked ≈.
--json prints {{"command":"range","formats":[R...]}} with, per format:
  {{"format", "citation", "bits", "exponent_bits", "fraction_bits", "precision", "emin", "emax",
   "bias", "kind": "ieee"|"nan_only"|"finite_only"|"fnuz"|"exponent_only", "summary",
   "has_sign", "has_zero", "has_negative_zero", "has_subnormals", "has_infinity", "has_nan",
   "max_finite", "min_normal", "min_subnormal" (null without subnormals),
   "epsilon": {{"bits", "exact", "shortest"}}, "unit_roundoff": {{"exact", "log2"}}, "digits10",
   "max_digits10", "infinity": [bits...], "nan_count", "nan", "quiet_nan",
   "signaling_nan": [[first bits, last bits]...]}}
Exit status: 0 success, 2 bad usage (an unknown format).

Examples:
  floatlab range -f fp16
{}  floatlab range -f e4m3,e5m2
  floatlab range -f fp4,e4m3fnuz,e8m0       # finite only, fnuz, exponent only
  floatlab range -f e3m2 --json)",
                       indent_lines(render_text(compute(lf::binary16), none), "    "));
  });
  return {cmd, [o] { return run_range(*o); }};
}

const register_command registered_range{20, register_range};

}  // namespace floatlab
