// tests/core/encoding_checks.hpp: every decimal-I/O property of one encoding, checked against
// the independent reference in decimal_test_support.hpp. Used over all encodings of the 8- and
// 16-bit formats (test_decimal_exhaustive.cpp, and the FP8 formats in test_decimal.cpp) and over
// random binary32 encodings.
#pragma once

#include "decimal_test_support.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dectest {

/// Counts and the first failures. Failures are collected, not reported, so that threads can share
/// the work; report() hands them to doctest from the main thread.
struct encoding_stats {
  long long encodings = 0;
  long long parses = 0;  ///< lf::parse calls compared with an expectation
  long long failures = 0;
  std::vector<std::string> messages;

  void merge(const encoding_stats& o) {
    encodings += o.encodings;
    parses += o.parses;
    failures += o.failures;
    for (const auto& m : o.messages)
      if (messages.size() < 20) messages.push_back(m);
  }
  void report() const {
    for (const auto& m : messages) FAIL_CHECK(m);
  }
};

namespace detail {

inline bool report_failure(encoding_stats& st, const std::string& what) {
  if (++st.failures <= 20) st.messages.push_back(what);
  return false;
}

inline std::string hex_bits(const lf::format& f, std::uint64_t b) { return oracle::hex(b, f.bits()); }

/// lf::parse(s) in mode r must give exactly the oracle's bits and flags.
inline void check_parse(const format_pair& fp, const std::string& s, lf::rounding r, encoding_stats& st) {
  ++st.parses;
  lf::status flags{};
  const auto got = lf::parse(fp.f, s, r, &flags);
  const oracle::result want = expected(fp.t, s, r);
  if (!got || got.value != want.bits || lf::to_bits(flags) != want.flags)
    report_failure(st, std::string(fp.name) + " parse(\"" + s + "\", " + std::string(lf::rounding_name(r)) +
                           ") = " + hex_bits(fp.f, got.value) + " flags " + std::to_string(lf::to_bits(flags)) +
                           ", oracle " + hex_bits(fp.f, want.bits) + " flags " + std::to_string(want.flags));
}

/// parse(s) (nearest even) must give b back, with no flag (`exact`) or only inexact.
inline void check_round_trip(const format_pair& fp, std::uint64_t b, const std::string& s, bool exact, const char* what,
                             encoding_stats& st) {
  ++st.parses;
  lf::status flags{};
  const auto got = lf::parse(fp.f, s, lf::rounding::nearest_even, &flags);
  const oracle::result want = expected(fp.t, s, lf::rounding::nearest_even);
  const bool flags_ok = exact ? flags == lf::status::none : lf::to_bits(flags) == want.flags;
  if (!got || got.value != b || want.bits != b || !flags_ok)
    report_failure(st, std::string(fp.name) + " " + what + " of " + hex_bits(fp.f, b) + " is \"" + s +
                           "\", which parses to " + hex_bits(fp.f, got.value) + " flags " +
                           std::to_string(lf::to_bits(flags)) + " (oracle " + hex_bits(fp.f, want.bits) + ")");
}

inline std::string sign_text(bool neg) { return neg ? "-" : ""; }

}  // namespace detail

/// Every property of encoding b:
///  - to_shortest parses back to b; no shorter decimal does (neither neighbour at one digit fewer,
///    rounded toward zero and away from zero by to_scientific, parses back); it is the nearest of
///    the shortest ones (ties to even); an integer in fixed notation is printed exactly;
///  - to_exact_decimal is the exact value (written here from the spec decoding) and parses back
///    with no flag; to_hex parses back with no flag;
///  - the midpoint to the next value up in magnitude (written here exactly), and that midpoint
///    plus and minus 10^-28 of its last digit, parse in all six deterministic modes to the
///    oracle's bits and flags, and in stochastic mode (one random word) to the oracle's; so do
///    the midpoint cut to 19 and to 17 significant digits, down and up;
///  - non-finite encodings print as inf / nan / snan with their sign and parse back to the same
///    class.
inline void check_encoding(const format_pair& fp, std::uint64_t b, encoding_stats& st, std::mt19937_64& rng) {
  using namespace detail;
  ++st.encodings;
  const lf::format& f = fp.f;
  const oracle::operand o = oracle::decode(fp.t, b);
  const std::string shortest = lf::to_shortest(f, b);
  if (o.nan) {
    const std::string want = sign_text(o.neg) + (o.snan ? "snan" : "nan");
    if (shortest != want) report_failure(st, std::string(fp.name) + " NaN " + hex_bits(f, b) + " printed " + shortest);
    const auto back = lf::parse(f, shortest);
    const oracle::operand ob = oracle::decode(fp.t, back.value);
    if (!ob.nan || ob.snan != o.snan || ob.neg != o.neg)
      report_failure(st, std::string(fp.name) + " NaN text " + shortest + " parses to " + hex_bits(f, back.value));
    return;
  }
  if (o.value.is_inf()) {
    if (shortest != sign_text(o.neg) + "inf") report_failure(st, std::string(fp.name) + " inf printed " + shortest);
    ++st.parses;
    lf::status flags{};
    if (lf::parse(f, shortest, lf::rounding::nearest_even, &flags).value != b || flags != lf::status::none)
      report_failure(st, std::string(fp.name) + " " + shortest + " does not parse back");
    return;
  }

  // Shortest.
  const oracle::exact value = o.value;
  check_round_trip(fp, b, shortest, value.is_zero(), "to_shortest", st);
  if (!value.is_zero()) {
    const lf::rounding away = o.neg ? lf::rounding::downward : lf::rounding::upward;
    auto parses_back = [&](const std::string& s) { return lf::parse(f, s).value == b; };
    int n = 1;
    std::string lo, hi;
    bool ok_lo = false, ok_hi = false;
    for (; n <= 20; ++n) {
      lo = lf::to_scientific(f, b, n - 1, lf::rounding::toward_zero);
      hi = lf::to_scientific(f, b, n - 1, away);
      ok_lo = parses_back(lo);
      ok_hi = parses_back(hi);
      if (ok_lo || ok_hi) break;
    }
    const std::string nearest = ok_lo && ok_hi ? lf::to_scientific(f, b, n - 1) : ok_lo ? lo : hi;
    const bool integer_fixed = shortest.find_first_of(".e") == std::string::npos;
    if (integer_fixed) {
      if (shortest != decimal_of_dyadic(o.neg, value.num, value.exp).text())
        report_failure(st, std::string(fp.name) + " integer " + hex_bits(f, b) + " printed " + shortest);
    } else if (oracle::detail::compare_values(exact_of_decimal(shortest), exact_of_decimal(nearest)) != 0) {
      report_failure(st, std::string(fp.name) + " shortest of " + hex_bits(f, b) + " is " + shortest +
                             ", the nearest " + std::to_string(n) + "-digit decimal that reads back is " + nearest);
    } else {
      std::string digits;
      for (char c : shortest.substr(0, shortest.find('e')))
        if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
      while (!digits.empty() && digits.back() == '0') digits.pop_back();
      if (static_cast<int>(digits.size()) != n)
        report_failure(st, std::string(fp.name) + " shortest of " + hex_bits(f, b) + " is " + shortest + ", expected " +
                               std::to_string(n) + " significant digits");
    }
  }

  // Exact expansion and hex.
  const std::string exact_text = value.is_zero() ? sign_text(o.neg) + "0" : decimal_of_dyadic(o.neg, value.num, value.exp).text();
  const std::string exact_got = lf::to_exact_decimal(f, b);
  if (exact_got != exact_text)
    report_failure(st, std::string(fp.name) + " exact decimal of " + hex_bits(f, b) + " is " + exact_got + ", expected " + exact_text);
  check_round_trip(fp, b, exact_got, true, "to_exact_decimal", st);
  {
    ++st.parses;
    lf::status flags{};
    const std::string h = lf::to_hex(f, b);
    const auto back = lf::parse(f, h, lf::rounding::nearest_even, &flags);
    if (!back || back.value != b || flags != lf::status::none)
      report_failure(st, std::string(fp.name) + " to_hex of " + hex_bits(f, b) + " is " + h + ", which parses to " + hex_bits(f, back.value));
  }

  // Midpoint to the next value up in magnitude: x + 2^(q-1) = (2c + 1) * 2^(q-1), also for zero.
  const long q = value.is_zero() ? fp.t.emin - (fp.t.p - 1) : quantum(fp.t, value);
  const cpp_int c = value.is_zero() ? cpp_int(0) : cpp_int(value.num << static_cast<unsigned>(value.exp - q));
  const decimal mid = decimal_of_dyadic(o.neg, 2 * c + 1, q - 1);
  const std::array<std::string, 3> texts{mid.text(), mid.nudged(+1, 28).text(), mid.nudged(-1, 28).text()};
  // Short neighbours of the midpoint (19 and 17 significant digits, cut down and up): these take
  // the parser's 128-bit fast path, where the midpoint can lie closer than the quotient's last bit
  // so that only the division remainder tells the sides apart.
  const std::array<std::string, 4> short_texts{mid.cut(19, false).text(), mid.cut(19, true).text(),
                                               mid.cut(17, false).text(), mid.cut(17, true).text()};
  for (const std::string& s : short_texts)
    for (lf::rounding r : lf::deterministic_roundings) check_parse(fp, s, r, st);
  for (const std::string& s : texts) {
    for (lf::rounding r : lf::deterministic_roundings) check_parse(fp, s, r, st);
    ++st.parses;
    const auto rnd = static_cast<std::uint32_t>(rng());
    lf::status flags{};
    const auto got = lf::parse(f, s, lf::env{lf::rounding::stochastic, {}, rnd}, &flags);
    const oracle::result want = oracle::round_stochastic(exact_of_decimal(s), fp.t, rnd);
    if (got.value != want.bits || lf::to_bits(flags) != want.flags)
      report_failure(st, std::string(fp.name) + " stochastic parse(\"" + s + "\", random " + std::to_string(rnd) + ") = " +
                             hex_bits(f, got.value) + ", oracle " + hex_bits(f, want.bits));
  }
  // The same by the rounding rules themselves, where the next value up is finite: the midpoint
  // goes to the even one (nearest_even) or away (nearest_away); nudged, to the nearer one.
  const std::uint64_t next = b + 1;
  if (!oracle::decode(fp.t, next).nan && !oracle::decode(fp.t, next).value.is_inf()) {
    const std::uint64_t even = (c & 1) == 0 ? b : next;  // significand parity = encoding parity
    auto is = [&](const std::string& s, lf::rounding r, std::uint64_t want) {
      if (lf::parse(f, s, r).value != want)
        report_failure(st, std::string(fp.name) + " \"" + s + "\" " + std::string(lf::rounding_name(r)) + " should give " + hex_bits(f, want));
    };
    is(texts[0], lf::rounding::nearest_even, even);
    is(texts[0], lf::rounding::nearest_away, next);
    is(texts[0], lf::rounding::toward_zero, b);
    is(texts[0], lf::rounding::odd, even == b ? next : b);
    is(texts[1], lf::rounding::nearest_even, next);
    is(texts[2], lf::rounding::nearest_even, b);
    is(texts[1], lf::rounding::nearest_away, next);
    is(texts[2], lf::rounding::nearest_away, b);
  }
}

}  // namespace dectest
