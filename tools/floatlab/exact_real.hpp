// tools/floatlab/exact_real.hpp: exact values for the explore subcommands (show, calc): the real
// number a decimal or hex-float text denotes, the value of an encoding, and the exact result of an
// operation on encodings, as big rationals (Boost.Multiprecision), so that
// rounding errors are computed exactly and only the final decimal text is ever rounded (marked
// "≈" then). Nothing here rounds into a format: that is the library's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/multiprecision/cpp_int.hpp>

#include <libfloat/models.hpp>

namespace floatlab {

using big_int = boost::multiprecision::cpp_int;
using rational = boost::multiprecision::cpp_rational;

/// Inputs whose decimal exponent (after moving the point to the end of the digits) or digit count
/// exceeds this are not expanded: 10^20000 is far beyond every supported format (binary64 spans
/// about 10^-324 .. 10^308, 767 significant digits) and still cheap as a big integer.
inline constexpr std::int64_t max_exact_exponent = 20000;

inline rational pow2(long e) {
  const big_int one = 1;
  if (e >= 0) return rational(big_int(one << static_cast<unsigned>(e)));
  return rational(one, big_int(one << static_cast<unsigned>(-e)));
}

inline big_int pow10_int(long k) {
  big_int r = 1;
  big_int base = 10;
  for (unsigned long n = static_cast<unsigned long>(k); n; n >>= 1, base *= base)
    if (n & 1) r *= base;
  return r;
}

inline rational pow10(long k) { return k >= 0 ? rational(pow10_int(k)) : rational(big_int(1), pow10_int(-k)); }

/// The value of a finite encoding b of f, (-1)^negative * sig * 2^exp as the library's decoder
/// (lf::detail::unpack) takes the fields apart, so that every kind is read as the core reads it: a
/// fnuz or finite_only format's all-ones encodings are numbers, an exponent-only format (E8M0) has
/// no sign bit and its field 0 is 2^emin, not a zero. (NaN and infinity have no value: 0 here.)
inline rational value_of(const lf::format& f, lf::bits_t b) {
  const lf::detail::unpacked u = lf::detail::unpack(f, b);
  if (u.kind != lf::detail::kind::finite) return rational(0);
  const rational r = rational(big_int(u.sig)) * pow2(u.exp);
  return u.negative ? rational(-r) : r;
}

/// True for encodings with a real value (not inf, not NaN).
inline bool is_finite(const lf::format& f, lf::bits_t b) { return !lf::detail::is_nonfinite_bits(f, b); }
inline bool is_nan(const lf::format& f, lf::bits_t b) { return lf::detail::is_nan_bits(f, b); }

/// The exact value of a text lf::parse accepts (decimal or hex float), taken apart by the
/// library's own scanner; nullopt for inf/nan, malformed text, or an exponent beyond
/// max_exact_exponent.
inline std::optional<rational> value_of_text(std::string_view text) {
  lf::detail::scanned in;
  if (lf::detail::scan(text, in).code != lf::parse_errc::ok) return std::nullopt;
  if (in.kind != lf::detail::scanned::what::number) return std::nullopt;
  const auto nd = static_cast<std::int64_t>(in.int_digits.size() + in.frac_digits.size());
  if (nd > max_exact_exponent) return std::nullopt;
  big_int d = 0;
  const int radix = in.hex ? 16 : 10;
  bool nonzero = false;
  for (std::string_view part : {in.int_digits, in.frac_digits})
    for (char c : part) {
      const int v = lf::detail::hex_digit_value(c);
      nonzero = nonzero || v != 0;
      d = d * radix + v;
    }
  if (!nonzero) return rational(0);  // the sign of a zero is the encoding's business
  const auto frac = static_cast<std::int64_t>(in.frac_digits.size());
  std::int64_t e = in.exponent - (in.hex ? 4 * frac : frac);  // |exponent| <= 10^12: no overflow
  if (e > max_exact_exponent || e < -max_exact_exponent * (in.hex ? 4 : 1)) return std::nullopt;
  rational r = in.hex ? rational(d) * pow2(static_cast<long>(e)) : rational(d) * pow10(static_cast<long>(e));
  return in.negative ? rational(-r) : r;
}

/// E with 2^E <= |q| < 2^(E+1), q != 0.
inline long floor_log2(const rational& q) {
  const big_int n = abs(numerator(q)), d = denominator(q);
  long e = static_cast<long>(msb(n)) - static_cast<long>(msb(d));
  const bool ge = e >= 0 ? n >= (d << static_cast<unsigned>(e)) : (n << static_cast<unsigned>(-e)) >= d;
  return ge ? e : e - 1;
}

/// k with 10^k <= |q| < 10^(k+1), q != 0.
inline long floor_log10(const rational& q) {
  const rational a = abs(q);
  long k = static_cast<long>(static_cast<double>(floor_log2(a)) * 0.30102999566398120);
  while (pow10(k) > a) --k;
  while (pow10(k + 1) <= a) ++k;
  return k;
}

/// Significant digits and a decimal exponent written out: positional for 10^-5 <= |x| < 10^21
/// (as JavaScript does), else d.ddde±XX like std::to_chars.
inline std::string place_digits(bool negative, const std::string& digits, long k) {
  std::string out = negative ? "-" : "";
  const auto n = static_cast<long>(digits.size());
  if (k >= -5 && k < 21) {
    if (k >= 0) {
      if (n <= k + 1) out += digits + std::string(static_cast<std::size_t>(k + 1 - n), '0');
      else out += digits.substr(0, static_cast<std::size_t>(k + 1)) + "." + digits.substr(static_cast<std::size_t>(k + 1));
    } else {
      out += "0." + std::string(static_cast<std::size_t>(-k - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  const long a = k < 0 ? -k : k;
  out += k < 0 ? "e-" : "e+";
  if (a < 10) out += '0';
  return out + std::to_string(a);
}

/// A decimal rendering of an exact value: every digit when it terminates within max_digits
/// significant digits (exact = true), otherwise correctly rounded (half to even) to
/// approx_digits significant digits (exact = false; shown with "≈").
struct decimal_text {
  std::string text;
  bool exact = true;
  std::string shown() const { return exact ? text : "≈" + text; }
};

inline decimal_text to_decimal(const rational& q, int max_digits = 40, int approx_digits = 10) {
  if (q == 0) return {"0", true};
  const bool negative = q < 0;
  const rational a = abs(q);
  long k = floor_log10(a);
  const rational scaled = a * pow10(max_digits - 1 - k);
  big_int n = numerator(scaled) / denominator(scaled);
  bool exact = n * denominator(scaled) == numerator(scaled);
  if (!exact) {
    const rational s2 = a * pow10(approx_digits - 1 - k);
    n = numerator(s2) / denominator(s2);
    const rational rem = s2 - rational(n);
    if (rem > rational(1, 2) || (rem == rational(1, 2) && (n & 1) != 0)) ++n;
    if (n == pow10_int(approx_digits)) {
      n /= 10;
      ++k;
    }
  }
  std::string digits = n.str();
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return {place_digits(negative, digits, k), exact};
}

/// A positional exact decimal from lf::to_exact_decimal ("0.0000152587890625") shortened for
/// display when it has many leading or trailing zeros: the same digits in scientific notation.
/// Only the notation changes; every digit is kept.
inline std::string compact_exact(const std::string& positional) {
  std::string_view s = positional;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty() || s[0] < '0' || s[0] > '9') return positional;  // inf, nan
  const std::size_t point = s.find('.');
  const std::string_view int_part = s.substr(0, point);
  const std::string_view frac_part = point == std::string_view::npos ? std::string_view{} : s.substr(point + 1);
  std::string all = std::string(int_part) + std::string(frac_part);
  const std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return positional;  // a zero
  const long k = static_cast<long>(int_part.size()) - 1 - static_cast<long>(first);
  std::string digits = all.substr(first);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (k >= -5 && k < 21) return positional;
  return place_digits(negative, digits, k);
}

/// A real number that is either a rational q or the square root of a rational q >= 0 (calc's
/// sqrt): enough to compare with any rational exactly and to approximate to any precision.
struct exact_real {
  rational q;
  bool is_sqrt = false;

  /// -1, 0 or +1 as this is below, equal to or above r.
  int compare(const rational& r) const {
    if (!is_sqrt) return q < r ? -1 : (q > r ? 1 : 0);
    if (r < 0) return 1;
    const rational r2 = r * r;
    return q < r2 ? -1 : (q > r2 ? 1 : 0);
  }
  /// The value exactly when it is rational (and then exact = true), otherwise truncated to
  /// `bits` significant bits (a lower bound within a relative 2^(1-bits)).
  rational approx(int bits, bool& exact) const {
    exact = true;
    if (!is_sqrt || q == 0) return q;
    // sqrt(q) ~ floor(sqrt(q * 4^K)) / 2^K with K making the integer about 2 * bits bits wide
    const long K = bits - floor_log2(q) / 2 + 2;
    const rational scaled = q * pow2(2 * K);
    const big_int n = numerator(scaled) / denominator(scaled);
    const big_int s = boost::multiprecision::sqrt(n);
    exact = s * s == n && n * denominator(scaled) == numerator(scaled);
    return rational(s) * pow2(-K);
  }
};

/// The error measures of one rounding, computed exactly from stored - exact; only their decimal
/// texts are rounded. ulps are in units of Muller's ulp of the exact value,
/// 2^(max(E, emin) - p + 1) with 2^E <= |exact| < 2^(E+1), as lf::measure_error defines it (at
/// most 0.5 for a nearest rounding); the smallest subnormal when the exact value is 0.
struct rounding_error {
  decimal_text absolute;  ///< stored - exact (signed)
  decimal_text relative;  ///< (stored - exact) / |exact|; empty when exact is 0
  decimal_text ulps;      ///< (stored - exact) / ulp(exact)
  int direction = 0;      ///< sign of stored - exact: +1 rounded up, -1 down, 0 exact
};

inline rounding_error measure(const lf::format& f, lf::bits_t stored, const exact_real& x) {
  rounding_error out;
  const rational s = value_of(f, stored);
  bool exact = true;
  // For a square root: enough bits that the difference (never below ~2^-(2p+3) |x| when nonzero)
  // keeps more than the 10 digits shown.
  const rational xv = x.approx(3 * f.precision + 80, exact);
  out.direction = -x.compare(s);
  if (out.direction == 0) {
    out.absolute = {"0", true};
    out.relative = {"0", true};
    out.ulps = {"0", true};
    return out;
  }
  const rational d = s - xv;
  auto approx_if = [&](decimal_text t) {
    if (!exact) t.exact = false;
    return t;
  };
  out.absolute = approx_if(exact ? to_decimal(d) : to_decimal(d, 10, 10));
  const long e = xv == 0 ? f.emin() : std::max(floor_log2(xv), static_cast<long>(f.emin()));
  const rational u = pow2(e - f.precision + 1);
  out.ulps = approx_if(exact ? to_decimal(d / u) : to_decimal(d / u, 10, 10));
  if (xv != 0) out.relative = approx_if(exact ? to_decimal(d / abs(xv)) : to_decimal(d / abs(xv), 10, 10));
  return out;
}

}  // namespace floatlab
