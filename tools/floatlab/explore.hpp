// tools/floatlab/explore.hpp: what the explore subcommands (show, range, table, calc) share:
// format lists, an encoding described field by field, flags as words, the sentence that says which
// way a value rounded and why, a small JSON writer and word wrapping.
#pragma once

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
  return f.kind == lf::nonfinite::ieee ? "custom, IEEE-style" : "custom, no infinity (OCP-style NaN)";
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

struct fields {
  std::string sign, exponent, fraction;
  std::string grouped() const { return sign + " | " + exponent + " | " + fraction; }
};
inline fields fields_of(const lf::format& f, lf::bits_t b) {
  return {binary_digits(b >> (f.bits() - 1), 1), binary_digits((b & f.exponent_mask()) >> f.fraction_bits(), f.exponent_bits),
          binary_digits(b & f.fraction_mask(), f.fraction_bits())};
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
  if (lower == upper) return "exact: " + std::string(x_text) + " is a value of " + lf::format_name(f) + ", nothing to round.";
  const bool stored_finite = is_finite(f, stored);
  const lf::bits_t max_finite = f.max_finite_bits();
  if (!stored_finite)
    return "overflowed: " + std::string(x_text) + " is beyond the largest finite " + lf::format_name(f) + " value " +
           value_text(f, max_finite) + ", and " + mode + " turns such an overflow into " +
           lf::to_shortest(f, stored) + (f.has_infinity() ? "." : " (the format has no infinity).");
  if (lf::has(flags, lf::status::overflow) && (stored & ~f.sign_mask()) == max_finite &&
      e.policy.overflow == lf::overflow_policy::saturate)
    return "saturated (--saturate): " + std::string(x_text) + " is beyond the largest finite value " +
           value_text(f, max_finite) + ", which it becomes instead of overflowing.";
  const int dir = -x.compare(value_of(f, stored));
  const std::string way = dir > 0 ? "rounded up" : "rounded down";
  if (stored != lower && stored != upper) {
    if (lf::has(flags, lf::status::underflow) && (stored & ~f.sign_mask()) == 0 &&
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
  if (!lower_finite || !upper_finite) {
    if (lf::has(flags, lf::status::overflow))  // odd: with an unbounded exponent it picks the value beyond max
      return "overflowed: " + std::string(x_text) + " is beyond the largest finite " + lf::format_name(f) + " value " +
             value_text(f, stored) + ", and " + mode + " gives that value on overflow (overflow and inexact raised).";
    const std::string head = way + " to the largest finite value " + value_text(f, stored) + ": " + std::string(x_text) +
                             " is beyond it, but ";
    if (f.has_infinity()) return head + mode + " does not overflow there.";
    // IEEE 754-2019 §7.4: overflow is decided by rounding as if the exponent range were unbounded.
    // There the value after max finite is max + ulp(max) = (2^p - 1) * 2^(emax - p + 1), whose
    // encoding in a format without infinity is the NaN.
    const rational m = value_of(f, stored);
    const rational beyond = m + (m < 0 ? rational(-pow2(f.emax() - f.precision + 1)) : pow2(f.emax() - f.precision + 1));
    const bool tie = x.compare((m + beyond) / 2) == 0;
    return head + "with an unbounded exponent range (IEEE 754-2019 §7.4) it lies between " + value_text(f, stored) +
           " and " + to_decimal(beyond, 20, 20).shown() + ", a value " + lf::format_name(f) +
           " cannot hold (that encoding is its NaN), and " + mode + " picks " + value_text(f, stored) +
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
      else
        why = e.mode == lf::rounding::nearest_even
                  ? "exactly halfway: a tie goes to the even one (last fraction bit 0)"
                  : "exactly halfway: nearest_away sends a tie away from zero";
      break;
    case lf::rounding::toward_zero: why = "toward_zero keeps the one nearer zero"; break;
    case lf::rounding::upward: why = "upward takes the upper"; break;
    case lf::rounding::downward: why = "downward takes the lower"; break;
    case lf::rounding::odd: why = "round-to-odd takes the one whose last fraction bit is 1"; break;
    case lf::rounding::stochastic: {
      bool ex = true;
      const rational xv = x.approx(3 * f.precision + 80, ex);
      const rational p = abs(xv) > abs(lo) ? (xv - lo) / (hi - lo) : (hi - xv) / (hi - lo);  // away from zero
      why = "stochastic rounding goes away from zero with probability " + to_decimal(p, 12, 6).shown() +
            " (the discarded fraction); this draw went " + (stored_is_upper == (xv > 0) ? "away from zero" : "toward zero");
      break;
    }
  }
  return way + ": " + between + ", " + why + ".";
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
