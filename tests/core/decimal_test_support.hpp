// tests/core/decimal_test_support.hpp: an independent reference for core/decimal.hpp's tests.
//
// Nothing here uses libfloat's decimal code: decimal strings are read into exact rationals with
// boost::multiprecision::cpp_int (exact_of_decimal), exact dyadic values are written as decimal
// strings with cpp_int (decimal_of_dyadic), and the rounding to a format is tests/support/oracle.hpp's
// (exact-remainder comparisons, no guard or sticky bits). Only the mapping from lf::format /
// lf::rounding to the oracle's spec parameters touches libfloat's enums.
#pragma once

#include <libfloat/libfloat.hpp>

#include "../support/oracle.hpp"
#include "../support/oracle_mode.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dectest {

using boost::multiprecision::cpp_int;

inline oracle::mode to_oracle(lf::rounding r) { return oracle::mode_of(r); }

inline cpp_int pow10(long n) { return boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(n)); }
inline cpp_int pow5(long n) { return boost::multiprecision::pow(cpp_int(5), static_cast<unsigned>(n)); }

/// A decimal number N / 10^L (N >= 0, L >= 0) with a sign: what the tests write as text.
struct decimal {
  bool neg = false;
  cpp_int N = 0;
  long L = 0;

  /// Positional text: "-0.0999755859375", "65504", "0"; a negative L gives "123e4".
  std::string text() const {
    std::string d = N.str();
    if (L < 0) return (neg ? "-" : "") + d + "e" + std::to_string(-L);
    if (L > 0) {
      if (static_cast<long>(d.size()) <= L) d.insert(0, static_cast<std::size_t>(L + 1) - d.size(), '0');
      d.insert(d.size() - static_cast<std::size_t>(L), 1, '.');
    }
    return (neg ? "-" : "") + d;
  }
  /// The magnitude cut to n significant digits, rounded down or up (a no-op when it has fewer).
  decimal cut(int n, bool up) const {
    const long digits = static_cast<long>(N.str().size());
    if (digits <= n) return *this;
    const long drop = digits - n;
    const cpp_int unit = pow10(drop);
    decimal r{neg, N / unit, L - drop};
    if (up && r.N * unit != N) r.N += 1;
    return r;
  }
  /// this + sign * 10^-(L + extra): the same number nudged by one unit of a digit far to the right.
  decimal nudged(int sign, long extra) const {
    decimal r{neg, N * pow10(extra), L + extra};
    if (sign > 0) r.N += 1;
    else r.N -= 1;
    return r;
  }
};

/// The exact value of a dyadic (-1)^neg * n * 2^e as a decimal, trailing zeros removed.
inline decimal decimal_of_dyadic(bool neg, cpp_int n, long e) {
  decimal d{neg, 0, 0};
  if (n == 0) return d;
  if (e >= 0) d.N = n << static_cast<unsigned>(e);
  else {
    d.N = n * pow5(-e);  // n / 2^m = n * 5^m / 10^m
    d.L = -e;
  }
  while (d.L > 0 && d.N % 10 == 0) {
    d.N /= 10;
    --d.L;
  }
  return d;
}

/// Reads what the tests generate: [+-] digits [. digits] [(e|E) [+-] digits], no specials.
/// The exponent may be as large as the caller likes; the cost grows with it.
inline oracle::exact exact_of_decimal(std::string_view s) {
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  cpp_int N = 0;
  long frac = 0;
  bool point = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') {
      point = true;
      continue;
    }
    N = N * 10 + (s[i] - '0');
    if (point) ++frac;
  }
  long exp10 = 0;
  if (i < s.size()) exp10 = std::stol(std::string(s.substr(i + 1)));
  exp10 -= frac;
  if (N == 0) return oracle::exact::zero(neg);
  // N * 10^exp10 = N * 5^exp10 * 2^exp10
  if (exp10 >= 0) return oracle::exact::dyadic(neg, N * pow5(exp10), exp10);
  return oracle::exact::rational(neg, N, pow5(-exp10), exp10);
}

/// The oracle's result for a decimal string in a deterministic mode.
inline oracle::result expected(const oracle::target& t, std::string_view s, lf::rounding r) {
  return oracle::round(exact_of_decimal(s), t, to_oracle(r));
}

/// A libfloat format and the same format described from its spec parameters.
struct format_pair {
  const char* name;
  lf::format f;
  oracle::target t;
};
inline const format_pair binary16{"binary16", lf::binary16, oracle::binary16};
inline const format_pair bfloat16{"bfloat16", lf::bfloat16, oracle::bfloat16};
inline const format_pair binary32{"binary32", lf::binary32, oracle::binary32};
inline const format_pair binary64{"binary64", lf::binary64, oracle::binary64};
inline const format_pair e4m3{"e4m3", lf::float8_e4m3fn, oracle::e4m3};
inline const format_pair e5m2{"e5m2", lf::float8_e5m2, oracle::e5m2};

/// The quantum exponent q of a finite nonzero exact value of format t: the value is c * 2^q.
inline long quantum(const oracle::target& t, const oracle::exact& v) {
  const long E = oracle::detail::floor_log2(v);
  return std::max<long>(E, t.emin) - (t.p - 1);
}

}  // namespace dectest
