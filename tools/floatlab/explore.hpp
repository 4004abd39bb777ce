// tools/floatlab/explore.hpp: what the explore subcommands (show, range, table, calc) share:
// format lists, an encoding described field by field, flags as words, the sentence that says which
// way a value rounded and why, a small JSON writer and word wrapping.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "exact_real.hpp"

namespace floatlab {

// ---- formats ---------------------------------------------------------------------------------

/// The format called `name`, or usage_error naming the option and listing the accepted names.
inline lf::format format_or_throw(std::string_view name, std::string_view option) {
  std::string error;
  const std::optional<lf::format> f = lf::format_by_name(name, &error);
  if (!f) throw usage_error(std::string(option) + ": " + error);
  return *f;
}

/// A comma-separated list of format names ("fp16,bf16"); empty entries are an error.
inline std::vector<lf::format> format_list_or_throw(std::string_view list, std::string_view option) {
  std::vector<lf::format> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (name.empty())
      throw usage_error(std::string(option) + " '" + std::string(list) +
                        "': an empty format name (give names separated by commas, e.g. fp16,bf16; known: " +
                        lf::known_format_names() + ")");
    out.push_back(format_or_throw(name, option));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

/// Every named format, in the library's order.
inline std::vector<lf::format> all_named_formats() {
  std::vector<lf::format> out;
  for (const auto& n : lf::named_formats) out.push_back(n.fmt);
  return out;
}

inline std::string_view format_citation(const lf::format& f) {
  for (const auto& n : lf::named_formats)
    if (n.fmt == f) return n.citation;
  if (f.exponent_only()) return "custom, exponent only (E8M0-style)";
  switch (f.kind) {
    case lf::nonfinite::ieee: return "custom, IEEE-style";
    case lf::nonfinite::nan_only: return "custom, no infinity (OCP-style NaN)";
    case lf::nonfinite::finite_only: return "custom, finite only (no infinity, no NaN)";
    case lf::nonfinite::fnuz: return "custom, fnuz (NaN at -0, no infinity)";
  }
  return "custom";
}

/// What the format has and lacks, from lf::format's predicates and NaN encodings, e.g.
/// "IEEE 754: ±0, subnormals, ±inf, NaNs", "finite only: no inf, no NaN (overflow gives max
/// finite)", "fnuz: NaN 0x80, no -0, no inf", "exponent only: unsigned, no zero, no subnormals,
/// no inf, NaN 0xFF".
inline std::string kind_summary(const lf::format& f);

/// The NaN encodings of a format that is not IEEE: lf::format::nan_bits of each sign (one
/// encoding in an unsigned or fnuz format, none in a finite_only one).
inline std::vector<lf::bits_t> non_ieee_nans(const lf::format& f) {
  std::vector<lf::bits_t> out;
  if (!f.has_nan()) return out;
  for (const bool negative : {false, true}) {
    const lf::bits_t b = f.nan_bits(negative);
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

// ---- an encoding, field by field -------------------------------------------------------------

inline std::string hex_digits(std::uint64_t v, int digits) {
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = "0123456789ABCDEF"[v & 0xF];
  return s;
}
/// "0x3DCD": as many hex digits as the encoding needs.
inline std::string hex_of(const lf::format& f, lf::bits_t b) { return "0x" + hex_digits(b, (f.bits() + 3) / 4); }

inline std::string binary_digits(std::uint64_t v, int n) {
  std::string s(static_cast<std::size_t>(n), '0');
  for (int i = n - 1; i >= 0; --i, v >>= 1) s[static_cast<std::size_t>(i)] = static_cast<char>('0' + (v & 1));
  return s;
}

/// An encoding's fields as binary digits. A field the format does not have is empty: the sign of
/// an unsigned format and the fraction of an exponent-only one (E8M0 has neither).
struct fields {
  std::string sign, exponent, fraction;
  std::string grouped() const {
    std::string out;
    for (const std::string* p : {&sign, &exponent, &fraction})
      if (!p->empty()) out += (out.empty() ? "" : " | ") + *p;
    return out;
  }
  /// What grouped() shows: "sign | exponent | fraction", or the fields there are.
  std::string label() const {
    std::string out;
    if (!sign.empty()) out += "sign";
    out += (out.empty() ? "" : " | ") + std::string("exponent");
    if (!fraction.empty()) out += " | fraction";
    return out;
  }
};
inline fields fields_of(const lf::format& f, lf::bits_t b) {
  return {f.has_sign() ? binary_digits(b >> (f.bits() - 1), 1) : std::string(),
          binary_digits((b & f.exponent_mask()) >> f.fraction_bits(), f.exponent_bits),
          binary_digits(b & f.fraction_mask(), f.fraction_bits())};
}
/// The field names of format f, as fields::label() gives them.
inline std::string fields_label(const lf::format& f) { return fields_of(f, 0).label(); }

inline std::string kind_summary(const lf::format& f) {
  std::vector<std::string> parts;
  auto nan_list = [&] {
    std::string t;
    for (const lf::bits_t b : non_ieee_nans(f)) t += (t.empty() ? "" : "/") + hex_of(f, b);
    return t;
  };
  std::string head;
  if (f.exponent_only()) {
    head = "exponent only";
  } else {
    switch (f.kind) {
      case lf::nonfinite::ieee: return "IEEE 754: ±0, subnormals, ±inf, NaNs";
      case lf::nonfinite::nan_only: head = "OCP fn"; break;
      case lf::nonfinite::finite_only: head = "finite only"; break;
      case lf::nonfinite::fnuz: head = "fnuz"; break;
    }
  }
  if (!f.has_sign()) parts.emplace_back("unsigned");
  if (!f.has_zero()) parts.emplace_back("no zero");
  if (f.has_nan() && f.kind != lf::nonfinite::ieee) {
    const std::string nans = nan_list();
    parts.push_back((nans.find('/') == std::string::npos ? "NaN " : "NaNs ") + nans +
                    (f.kind == lf::nonfinite::fnuz ? " (the -0 encoding)" : ""));
  }
  if (f.has_zero() && f.has_sign() && !f.has_negative_zero()) parts.emplace_back("no -0");
  if (!f.has_subnormals()) parts.emplace_back("no subnormals");
  if (!f.has_infinity()) parts.emplace_back("no inf");
  if (!f.has_nan()) parts.emplace_back("no NaN (overflow gives max finite)");
  std::string out = head + ":";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : " ") + parts[i];
  return out;
}

/// "normal", "subnormal", "zero", "infinity", "quiet NaN", "signaling NaN", with the sign where it
/// is meaningful: lf::class_name.
inline std::string class_of(const lf::format& f, lf::bits_t b) { return std::string(lf::class_name(lf::classify(f, b))); }

// ---- flags -----------------------------------------------------------------------------------

inline std::vector<std::string> flag_names(lf::status s) {
  std::vector<std::string> out;
  if (lf::has(s, lf::status::invalid)) out.emplace_back("invalid");
  if (lf::has(s, lf::status::divide_by_zero)) out.emplace_back("divide_by_zero");
  if (lf::has(s, lf::status::overflow)) out.emplace_back("overflow");
  if (lf::has(s, lf::status::underflow)) out.emplace_back("underflow");
  if (lf::has(s, lf::status::inexact)) out.emplace_back("inexact");
  return out;
}
inline std::string flags_text(lf::status s) {
  std::string out;
  for (const std::string& n : flag_names(s)) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// ---- which way it rounded, and why -------------------------------------------------------------

/// A value shown in a sentence or a table cell: its exact decimal, in scientific notation when
/// that is shorter; when even that is longer than `max_chars`, the exact value rounded to 20
/// significant digits and marked ≈ (the shortest round-trip text could read like the unrounded
/// input, e.g. "0.1" for binary64 0x3FB999999999999A).
inline std::string value_text(const lf::format& f, lf::bits_t b, std::size_t max_chars = 32) {
  const std::string exact = compact_exact(lf::to_exact_decimal(f, b));
  if (exact.size() <= max_chars || !is_finite(f, b)) return exact;
  return to_decimal(value_of(f, b), 20, 20).shown();
}

/// The sentence explaining a rounding of the real value x (written `x_text`) to `stored` under e,
/// knowing the two candidates: lower = x rounded downward, upper = x rounded upward (default
/// policies). `flags` are those the rounding raised.
inline std::string explain_rounding(const lf::format& f, std::string_view x_text, const exact_real& x, lf::bits_t stored,
                                    lf::bits_t lower, lf::bits_t upper, const lf::env& e, lf::status flags) {
  const std::string mode(lf::rounding_name(e.mode));
  const std::string name = lf::format_name(f);
  const bool stored_finite = is_finite(f, stored);
  const lf::bits_t max_finite = f.max_finite_bits();
  // No encoding at all: an exponent-only format (E8M0) has no sign and no zero.
  if (!stored_finite && lf::has(flags, lf::status::invalid) && !lf::has(flags, lf::status::overflow))
    return "no encoding: " + std::string(x_text) + " is " + (x.compare(rational(0)) == 0 ? "zero" : "negative") +
           ", and " + name + " is unsigned with no zero, so the result is its NaN, " + hex_of(f, stored) +
           " (invalid raised).";
  // An exact input is stored as it is in every mode (in a finite_only format, lower == upper
  // does not mean exact: both directions clamp to max finite).
  // A zero without a negative one (fnuz): a negative zero or tiny negative result is +0.
  const bool lost_minus = f.has_zero() && f.has_sign() && !f.has_negative_zero() && (stored & f.encoding_mask()) == 0 &&
                          !x_text.empty() && x_text.front() == '-';
  const std::string plus_zero = lost_minus ? " (+0: " + name + " has no -0)" : "";
  if (stored_finite && x.compare(value_of(f, stored)) == 0)
    return "exact: " + std::string(x_text) + " is a value of " + name + ", nothing to round" + plus_zero + ".";
  if (!stored_finite)
    return "overflowed: " + std::string(x_text) + " is beyond the largest finite " + name + " value " +
           value_text(f, max_finite) + ", and " + mode + " turns such an overflow into " + lf::to_shortest(f, stored) +
           (f.has_infinity() ? "."
            : f.kind == lf::nonfinite::fnuz
                ? " (the format has no infinity: its NaN, the -0 encoding " + hex_of(f, stored) + ", stands in)."
                : " (the format has no infinity).");
  if (lf::has(flags, lf::status::overflow) && (stored & ~f.sign_mask()) == max_finite &&
      e.policy.overflow == lf::overflow_policy::saturate)
    return "saturated (--saturate): " + std::string(x_text) + " is beyond the largest finite value " +
           value_text(f, max_finite) + ", which it becomes instead of overflowing.";
  if (lf::has(flags, lf::status::overflow) && !f.has_nan() && !f.has_infinity())
    return "overflowed: " + std::string(x_text) + " is beyond the largest finite " + name + " value " +
           value_text(f, max_finite) + "; " + name +
           " has no infinity and no NaN, so an overflow gives max finite in every rounding direction "
           "(overflow and inexact raised).";
  // Below the smallest value of a format without zero and subnormals: nothing else to round to.
  if (!f.has_zero() && (stored & f.encoding_mask()) == f.min_normal_bits() && x.compare(value_of(f, stored)) < 0)
    return "rounded up to the smallest value " + value_text(f, stored) + ": " + std::string(x_text) +
           " is below it, and " + name +
           " has no zero and no subnormals, so every rounding direction gives it (underflow and inexact raised).";
  const int dir = -x.compare(value_of(f, stored));
  const std::string way = dir > 0 ? "rounded up" : "rounded down";
  if (stored != lower && stored != upper) {
    if (lf::has(flags, lf::status::underflow) && f.has_zero() && (stored & ~f.sign_mask()) == 0 &&
        e.policy.results == lf::subnormal_results::flush_to_zero)
      return "flushed to zero (--ftz): " + std::string(x_text) + " is tiny (below " +
             value_text(f, f.min_normal_bits()) + " in magnitude), so it becomes a zero.";
    if ((stored & ~f.sign_mask()) == max_finite)
      return "saturated (--saturate): " + std::string(x_text) + " is beyond the largest finite value, which it becomes.";
    return way + " to " + value_text(f, stored) + ".";
  }
  const bool lower_finite = is_finite(f, lower), upper_finite = is_finite(f, upper);
  std::string between = std::string(x_text) + " lies between " + (lower_finite ? value_text(f, lower) : lf::to_shortest(f, lower)) +
                        " and " + (upper_finite ? value_text(f, upper) : lf::to_shortest(f, upper));
  // A finite_only format clamps both directions to max finite beyond it: the same case as a
  // neighbour that is not finite.
  const bool top_clamp = !f.has_infinity() && !f.has_nan() && lower == upper && (lower & ~f.sign_mask()) == max_finite;
  if (!lower_finite || !upper_finite || top_clamp) {
    if (lf::has(flags, lf::status::overflow))  // odd: with an unbounded exponent it picks the value beyond max
      return "overflowed: " + std::string(x_text) + " is beyond the largest finite " + lf::format_name(f) + " value " +
             value_text(f, stored) + ", and " + mode + " gives that value on overflow (overflow and inexact raised).";
    const std::string head = way + " to the largest finite value " + value_text(f, stored) + ": " + std::string(x_text) +
                             " is beyond it, but ";
    if (f.has_infinity()) return head + mode + " does not overflow there.";
    // IEEE 754-2019 §7.4: overflow is decided by rounding as if the exponent range were unbounded.
    // There the value after max finite is max + ulp(max) (lf::ulp). In an OCP-style (nan_only)
    // format that value's encoding would be the NaN; a fnuz format's all-ones encoding is max
    // itself, so the value after it is beyond every encoding.
    const rational m = value_of(f, stored);
    const rational u = value_of(f, lf::ulp(f, stored));
    const rational beyond = m + (m < 0 ? rational(-u) : u);
    const bool tie = x.compare((m + beyond) / 2) == 0;
    const std::string why_not =
        f.kind == lf::nonfinite::nan_only ? "that encoding is its NaN" : "it is past the last encoding";
    return head + "with an unbounded exponent range (IEEE 754-2019 §7.4) it lies between " + value_text(f, stored) +
           " and " + to_decimal(beyond, 20, 20).shown() + ", a value " + name + " cannot hold (" + why_not + "), and " +
           mode + " picks " + value_text(f, stored) +
           (tie ? " (exactly halfway: the tie goes to the even one)" : "") + ", so it does not overflow.";
  }
  const rational lo = value_of(f, lower), hi = value_of(f, upper);
  const int side = x.compare((lo + hi) / 2);  // -1 nearer the lower
  const bool stored_is_upper = stored == upper;
  std::string why;
  switch (e.mode) {
    case lf::rounding::nearest_even:
    case lf::rounding::nearest_away:
      if (side != 0) why = side < 0 ? "nearer the lower" : "nearer the upper";
      else if (e.mode == lf::rounding::nearest_even && f.fraction_bits() == 0)
        why = "exactly halfway: with no fraction bits both are odd (significand 1), and the carry of the tie "
              "takes the upper";
      else
        why = e.mode == lf::rounding::nearest_even
                  ? "exactly halfway: a tie goes to the even one (last fraction bit 0)"
                  : "exactly halfway: nearest_away sends a tie away from zero";
      break;
    case lf::rounding::toward_zero: why = "toward_zero keeps the one nearer zero"; break;
    case lf::rounding::upward: why = "upward takes the upper"; break;
    case lf::rounding::downward: why = "downward takes the lower"; break;
    case lf::rounding::odd:
      why = f.fraction_bits() == 0
                ? "round-to-odd keeps the lower: with no fraction bits its significand 1 is already odd"
                : "round-to-odd takes the one whose last fraction bit is 1";
      break;
    case lf::rounding::stochastic: {
      bool ex = true;
      const rational xv = x.approx(3 * f.precision + 80, ex);
      const rational p = abs(xv) > abs(lo) ? (xv - lo) / (hi - lo) : (hi - xv) / (hi - lo);  // away from zero
      why = "stochastic rounding goes away from zero with probability " + to_decimal(p, 12, 6).shown() +
            " (the discarded fraction); this draw went " + (stored_is_upper == (xv > 0) ? "away from zero" : "toward zero");
      break;
    }
  }
  return way + ": " + between + ", " + why + plus_zero + ".";
}

// ---- JSON ------------------------------------------------------------------------------------

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (u < 0x20) out += "\\u00" + hex_digits(u, 2);
    else out += c;  // UTF-8 passes through
  }
  return out + "\"";
}

/// Builds one JSON value; keys and values are appended in order, commas handled here. Not
/// copyable: every member returns a reference, and a helper lambda that returned the writer by
/// value (`[&] { return j.null(); }`) copied the whole document on every call, which made
/// `calc --json` superlinear in the expression length.
class json_writer {
 public:
  json_writer() = default;
  json_writer(const json_writer&) = delete;
  json_writer& operator=(const json_writer&) = delete;
  json_writer(json_writer&&) = default;
  json_writer& operator=(json_writer&&) = default;
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }
  json_writer& key(std::string_view k) {
    comma();
    out_ += json_string(k) + ":";
    after_key_ = true;
    return *this;
  }
  json_writer& value(std::string_view s) { return raw(json_string(s)); }
  json_writer& value(const char* s) { return raw(json_string(s)); }
  json_writer& value(const std::string& s) { return raw(json_string(s)); }
  json_writer& value(bool b) { return raw(b ? "true" : "false"); }
  json_writer& value(long long v) { return raw(std::to_string(v)); }
  json_writer& value(int v) { return raw(std::to_string(v)); }
  json_writer& null() { return raw("null"); }
  json_writer& strings(const std::vector<std::string>& v) {
    begin_array();
    for (const auto& s : v) value(s);
    return end_array();
  }
  template <typename T>
  json_writer& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  json_writer& raw(std::string_view text) {
    comma();
    out_ += text;
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  json_writer& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  json_writer& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

// ---- text ------------------------------------------------------------------------------------

/// `text` wrapped at spaces to lines of at most `width` columns (counting bytes; a word longer
/// than the width gets its own line), each line after the first starting with `indent`.
inline std::string wrap(std::string_view text, std::size_t width, std::string_view indent) {
  std::string out, line;
  std::size_t start = 0;
  auto flush_line = [&] {
    if (!out.empty()) {
      out += '\n';
      out += indent;
    }
    out += line;
    line.clear();
  };
  std::size_t limit = width;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      flush_line();
      limit = width > indent.size() ? width - indent.size() : 1;
    }
    if (!line.empty()) line += ' ';  // appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "x" + string
    line += word;
    start = end + 1;
  }
  if (!line.empty()) flush_line();
  return out;
}

/// Every line of `text` prefixed with `prefix` (for example outputs in --help footers).
inline std::string indent_lines(std::string_view text, std::string_view prefix) {
  std::string out;
  bool at_start = true;
  for (char c : text) {
    if (at_start && c != '\n') out += prefix;
    out += c;
    at_start = c == '\n';
  }
  return out;
}

/// The --json option's help. Errors are never JSON: they go to stderr with exit status 2.
inline constexpr std::string_view json_option_help = "Print one JSON object instead of text (schema: see below)";

}  // namespace floatlab
