// libfloat/core/decimal.hpp: decimal (and hex-float) text in and out, exactly.
//
// ---- API ---------------------------------------------------------------------------------------
//
// Parsing (never throws; an error never comes with a partial number):
//
//   lf::parsed<lf::fp<F>> lf::parse<F>(std::string_view text, lf::rounding r = nearest_even,
//                                      lf::status* flags = nullptr);
//   lf::parsed<lf::fp<F>> lf::parse<F>(std::string_view text, const lf::env& e, lf::status* flags = nullptr);
//   lf::parsed<T> lf::parse<T>(...)   the same two, named by the type T = lf::fp<F>: parse<lf::fp16>(text)
//   lf::parsed<lf::bits_t> lf::parse(const lf::format& f, std::string_view text, const lf::env& e = {},
//                                    lf::status* flags = nullptr);          // run-time format
//
//   parsed<T> { T value; parse_error error; explicit operator bool() (true when error.code == ok) }
//   parse_error { parse_errc code; std::size_t position; int character; std::string message() }
//       position: index of the offending character (== text.size() when the input ended too soon);
//       character: that byte (0..255), or -1 at the end of the input.
//       message(): e.g. "unexpected character 'x' at position 1; expected the end of the input".
//   On error, value is +0 and no flag is raised.
//
//   Grammar (ASCII, case-insensitive letters, no surrounding whitespace, no digit separators):
//     [+|-] ( decimal | hex | "inf" | "infinity" | "nan" | "snan" )
//     decimal := digits [ "." [digits] ] [ exp ]  |  "." digits [ exp ]        exp := (e|E) [+|-] digits
//     hex     := 0(x|X) ( hexdigits [ "." [hexdigits] ] | "." hexdigits ) [ (p|P) [+|-] digits ]
//   Any number of digits and any exponent are accepted ("1e-99999999999999999999" is a tiny value).
//   The hex binary exponent is optional ("0x10" is 16), unlike C99 where it is required.
//
//   Results:
//   - A number is rounded once, directly to F, in e.mode (every lf::rounding, stochastic with
//     e.random) under e.policy (tininess, flush-to-zero, saturation), and raises inexact,
//     underflow, overflow exactly as converting the infinitely precise value would
//     (IEEE 754-2019 §5.12.2: conversion from decimal character sequences is correctly rounded).
//     subnormal_inputs (DAZ) does not apply: the input is not an encoding.
//   - "0", "-0.0e5": a zero of that sign, no flag.
//   - "inf"/"infinity": infinity of that sign, no flag. A format without infinity (E4M3) treats
//     it as convertFormat does (arith.hpp convert): NaN and invalid, or max finite under
//     overflow_policy::saturate.
//   - "nan": the quiet NaN with zero payload, positive unless written "-nan" (binary16 0x7E00;
//     E4M3 0x7F). No payload syntax ("nan(...)") is accepted.
//   - "snan": the signaling NaN with the smallest payload (binary16 0x7C01); a format without
//     signaling NaNs (E4M3, or p = 2) gives its quiet NaN. No flag is raised.
//
// Output (all std::string; inf, -inf, nan, -nan, snan, -snan for non-finite encodings, where
// snan marks a signaling NaN; payloads are not shown):
//
//   lf::to_shortest(x)               fewest significant digits that lf::parse (nearest_even) reads
//                                    back to the same encoding; among those the closest to x, ties
//                                    to an even last digit. Notation as std::to_chars(first, last,
//                                    value) (libstdc++): fixed when that is not longer than
//                                    scientific, else d.ddde±XX. As in printf's %f, fixed
//                                    notation of an integer prints all of its digits (fp16 65504
//                                    -> "65504", whose shortest digits are 655e2). For binary32
//                                    the text equals std::to_chars(float) byte for byte.
//                                    fp16 0x2E66 -> "0.1", fp16 2^-24 -> "6e-08", 1e10f -> "1e+10".
//   lf::to_exact_decimal(x)          every digit of the exact value, positional (no exponent):
//                                    fp16 0.1 -> "0.0999755859375"; "-0"; integers without ".".
//   lf::to_fixed(x, n, e = {})       x rounded to n >= 0 digits after the point (printf "%.nf"):
//                                    to_fixed(fp16 0x2E66, 3) -> "0.100". A negative n is 0.
//   lf::to_scientific(x, n, e = {})  x rounded to n + 1 significant digits (printf "%.ne"):
//                                    to_scientific(fp16 0x2E66, 3) -> "9.998e-02".
//   lf::to_hex(x)                    C99 hex float, normalized (leading 1, also for subnormals),
//                                    trailing zero hex digits dropped, exponent signed like
//                                    printf's %a: fp16 0.1 -> "0x1.998p-4", 2^-24 -> "0x1p-24",
//                                    zeros "0x0p+0" / "-0x0p+0".
//   Each takes lf::fp<F>, or (const lf::format&, lf::bits_t) for a run-time format.
//   to_fixed / to_scientific round the decimal result in e.mode (an lf::rounding converts to
//   lf::env): nearest_even (printf's rounding), nearest_away, toward_zero, upward, downward,
//   odd (last digit made odd when inexact), stochastic (up iff e.random < D, D the first 32 bits
//   of the discarded fraction, as rounding.hpp defines it). That decimal rounding decision is
//   the only one made outside detail::round_pack: it rounds to a decimal grid, not to a format.
//
// ---- How the parser stays exact ------------------------------------------------------------------
//
// The text is reduced to value = D * 10^E (D an integer of nd significant digits) or H * 2^E (hex),
// then to the core's form (sig + sticky) * 2^exp with enough bits that the rounding core sees
// exactly what the infinitely precise value would make it decide, and detail::round_pack rounds
// once. Three regimes, cheapest first:
//  1. Far out of range: |value| >= 2^(emax+2) overflows in every mode, and |value| < 2^(emin-p-33)
//     rounds like any tiny positive number (to 0 or the smallest subnormal; stochastic's 32
//     discarded bits are all zero), so a representative stands in for it.
//  2. Fast path, 64/128-bit integers: nd <= 19 (convert_short). E >= 0, E <= 55: D * 5^E is
//     exact. E < 0, for p + 34 <= 63: -E <= 27, D / 5^-E by a 64-bit reciprocal, corrected to
//     the exact quotient and remainder (divide_by_pow5); 28 <= -E <= 127, the top 64 bits of
//     D * floor(2^(127+b) / 5^-E) (detail/decimal_pow5.hpp), exact unless a carry could reach
//     them, with sticky set (D < 5^28 is never a multiple of 5^-E). Otherwise, -E <= 55:
//     Q = floor(D * 2^s / 5^-E), sticky = remainder != 0, used only when Q has at least
//     p + 34 bits. Strings of the plain form [+|-]digits[.digits][e[+|-]digits] with at most
//     19 digits and 6 exponent digits are read by scan_plain straight into D and E; everything
//     else (and every error) goes through scan().
//  3. Otherwise the same computation on lf::detail::bignum, after keeping at most
//     max_significant_digits(f) digits (the rest only sets sticky, see that function).
// Why p + 34 bits: round_pack needs p + 2 bits and sticky for the deterministic modes; stochastic
// rounding reads the first 32 discarded bits, and tininess after rounding is decided one binade
// lower, so p + 34 bits make every decision exact.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/detail/bignum.hpp>
#include <libfloat/core/detail/decimal_pow5.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

// ---- parse results -----------------------------------------------------------------------------

enum class parse_errc : std::uint8_t {
  ok,
  empty,                    ///< the input is empty
  invalid_character,        ///< the character cannot start a number (after an optional sign)
  missing_digits,           ///< a decimal significand without digits: "+", ".", ".e5"
  missing_hex_digits,       ///< a hex significand without digits: "0x", "0x.p1"
  missing_exponent_digits,  ///< "1e", "1e+", "0x1p"
  trailing_characters,      ///< a complete number followed by more text: "1x", "1.2.3", "inf1"
};

struct parse_error {
  parse_errc code = parse_errc::ok;
  std::size_t position = 0;  ///< index of the offending character; the input's size at its end
  int character = -1;        ///< the offending byte (0..255), or -1 at the end of the input

  /// "unexpected character 'x' at position 1; expected the end of the input",
  /// "unexpected end of input at position 2; expected an exponent digit", ...
  std::string message() const {
    if (code == parse_errc::ok) return "no error";
    if (code == parse_errc::empty) return "empty input; expected a number";
    std::string out;
    if (character < 0) {
      out = "unexpected end of input";
    } else if (character >= 0x20 && character < 0x7F) {
      out = "unexpected character '";
      out += static_cast<char>(character);
      out += '\'';
    } else {
      constexpr char hex[] = "0123456789ABCDEF";
      out = "unexpected byte 0x";
      out += hex[character >> 4];
      out += hex[character & 15];
    }
    out += " at position " + std::to_string(position) + "; expected ";
    switch (code) {
      case parse_errc::invalid_character: out += "a digit, '.', 'inf', 'infinity', 'nan' or 'snan'"; break;
      case parse_errc::missing_digits: out += "a digit"; break;
      case parse_errc::missing_hex_digits: out += "a hexadecimal digit"; break;
      case parse_errc::missing_exponent_digits: out += "an exponent digit"; break;
      case parse_errc::trailing_characters: out += "the end of the input"; break;
      default: out += "a number"; break;
    }
    return out;
  }
  friend bool operator==(const parse_error&, const parse_error&) = default;
};

/// A parse result: the value, or an error (then value is T{}, i.e. +0).
template <class T>
struct parsed {
  T value{};
  parse_error error{};
  explicit operator bool() const { return error.code == parse_errc::ok; }
};

namespace detail {

// ---- tables and small helpers -------------------------------------------------------------------

/// 5^0 .. 5^55; 5^55 < 2^128 <= 5^56.
inline constexpr std::array<u128, 56> pow5_table = [] {
  std::array<u128, 56> t{};
  t[0] = 1;
  for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 5;
  return t;
}();

/// R[m] = ceil(2^(63 + b) / 5^m), b = bit_width(5^m), for 1 <= m <= 27 (5^27 < 2^63): a 64-bit
/// reciprocal in [2^63, 2^64) (5^m is no power of two, so R < 2^64). See divide_by_pow5.
inline constexpr std::array<std::uint64_t, 28> reciprocal_pow5_table = [] {
  std::array<std::uint64_t, 28> t{};
  for (std::size_t m = 1; m < t.size(); ++m) {
    const u128 P = pow5_table[m];
    const int b = bit_width(P);
    t[m] = static_cast<std::uint64_t>(((u128{1} << (63 + b)) + P - 1) / P);
  }
  return t;
}();

/// floor(e * log10(2)) for |e| < 2^20, possibly one too large or small near integers; callers
/// allow for that. 1292913986 / 2^32 = 0.30102999560...
constexpr long approx_floor_log10_pow2(long e) { return static_cast<long>((static_cast<std::int64_t>(e) * 1292913986) >> 32); }

/// How many significant decimal digits can matter when parsing into f.
///
/// Every decision round_pack makes for a positive x (the rounded value, inexact, overflow,
/// tininess after rounding, and stochastic rounding's first 32 discarded bits) only changes
/// where x crosses a "boundary" b = m * 2^e: a multiple of 2^(q-32), q the quantum of x's
/// binade (q >= emin - p + 1; the tininess test uses the binade below emin, so e >= emin - p - 32),
/// or an integer below 2^(emax+2). Such a b with e < 0 and m odd has as many significant digits
/// as the integer m * 5^-e, and m < 2^(p+33), so at most
///     (p + 33) log10(2) + (p + 32 - emin) log10(5) + 1
/// digits; an integer b has at most (emax + 2) log10(2) + 1. If x has more significant digits
/// than N (this bound), cut x after N digits: x' <= x < x' + 10^j, where 10^j is the unit of the
/// N-th digit. A boundary strictly inside (x', x' + 10^j) would have a nonzero digit below 10^j,
/// i.e. more than N digits, so there is none, and x rounds like "x' plus something below the last
/// bit": x' with sticky. (binary16: 55 digits, bfloat16: 130, binary32: 146, binary64: 801.)
constexpr long max_significant_digits(const format& f) {
  const long p = f.precision, emin = f.emin(), emax = f.emax();
  // 30103 / 10^5 > log10(2), 69898 / 10^5 > log10(5): the bound only grows.
  const long fractions = ((p + 34) * 30103 + (p + 32 - emin) * 69898) / 100000 + 2;
  const long integers = ((emax + 2) * 30103) / 100000 + 2;
  return max_of(fractions, integers);
}

/// Bits the intermediate significand carries (see the file comment).
constexpr int parse_bits(const format& f) { return f.precision + 34; }

/// round_pack for a significand below 2^126: formats with p <= 24 go to the 64-bit core (the
/// significand cut to 62 bits, lost bits joining sticky; 62 >= p + 34 keeps every decision).
LIBFLOAT_INLINE bits_t round_parsed(const format& f, bool negative, long exp, u128 sig, bool sticky, const env& e, status& st) {
  if (f.precision <= narrow_core_max_precision) {
    const int w = bit_width(sig);
    if (w > 62) {
      const int cut = w - 62;
      sticky |= (sig & ((u128{1} << cut) - 1)) != 0;
      sig >>= cut;
      exp += cut;
    }
    return round_pack(f, negative, static_cast<int>(exp), static_cast<std::uint64_t>(sig), sticky, e, st);
  }
  return round_pack(f, negative, static_cast<int>(exp), sig, sticky, e, st);
}

/// Values beyond the range (regime 1 in the file comment): 2^(emax+2), and a positive number
/// below 2^(emin-p-39) with sticky.
inline bits_t round_huge(const format& f, bool negative, const env& e, status& st) {
  return round_parsed(f, negative, f.emax() + 2, 1, false, e, st);
}
inline bits_t round_tiny(const format& f, bool negative, const env& e, status& st) {
  return round_parsed(f, negative, f.emin() - f.precision - 40, 1, true, e, st);
}

// ---- scanning -----------------------------------------------------------------------------------

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// The text taken apart; digits are not yet interpreted.
struct scanned {
  enum class what : std::uint8_t { number, infinity, quiet_nan, signaling_nan };
  what kind = what::number;
  bool negative = false;
  bool hex = false;
  std::string_view int_digits, frac_digits;
  std::int64_t exponent = 0;  ///< the written exponent (of 10, or of 2 for hex), saturated at +-10^13
  // Decimal only, gathered while scanning for the fast path:
  std::int64_t significant = 0;  ///< digits from the first nonzero one on, trailing zeros included
  std::uint64_t mantissa = 0;    ///< those digits as an integer when there are at most 19
};

LIBFLOAT_INLINE constexpr parse_error scan(std::string_view s, scanned& out) {
  const std::size_t n = s.size();
  auto fail = [&](parse_errc code, std::size_t pos) {
    return parse_error{code, pos, pos < n ? static_cast<int>(static_cast<unsigned char>(s[pos])) : -1};
  };
  if (n == 0) return parse_error{parse_errc::empty, 0, -1};
  std::size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    out.negative = s[0] == '-';
    i = 1;
  }
  if (i == n) return fail(parse_errc::missing_digits, i);
  if (!is_digit(s[i]) && s[i] != '.') {
    struct word {
      std::string_view text;
      scanned::what kind;
    };
    constexpr word words[] = {{"infinity", scanned::what::infinity},
                              {"inf", scanned::what::infinity},
                              {"nan", scanned::what::quiet_nan},
                              {"snan", scanned::what::signaling_nan}};
    for (const word& w : words) {
      if (n - i < w.text.size()) continue;
      bool match = true;
      for (std::size_t j = 0; j < w.text.size() && match; ++j) match = ascii_lower(s[i + j]) == w.text[j];
      if (!match) continue;
      out.kind = w.kind;
      i += w.text.size();
      return i == n ? parse_error{} : fail(parse_errc::trailing_characters, i);
    }
    return fail(parse_errc::invalid_character, i);
  }
  const bool hex = s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
  out.hex = hex;
  if (hex) i += 2;
  std::size_t start = i;
  if (hex) {
    while (i < n && hex_digit_value(s[i]) >= 0) ++i;
    out.int_digits = s.substr(start, i - start);
    if (i < n && s[i] == '.') {
      start = ++i;
      while (i < n && hex_digit_value(s[i]) >= 0) ++i;
      out.frac_digits = s.substr(start, i - start);
    }
  } else {
    std::int64_t significant = 0;
    std::uint64_t mantissa = 0;
    // A run of digits: skip leading zeros, take up to 19 digits, count the rest. Forced inline:
    // as a separate function its counters live in memory, a third of the parse time.
    auto run = [&]() __attribute__((always_inline)) {
      if (significant == 0)
        while (i < n && s[i] == '0') ++i;
      for (; i < n && is_digit(s[i]) && significant < 19; ++i, ++significant)
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(s[i] - '0');
      for (; i < n && is_digit(s[i]); ++i) ++significant;
    };
    run();
    out.int_digits = std::string_view(s.data() + start, i - start);
    if (i < n && s[i] == '.') {
      start = ++i;
      run();
      out.frac_digits = std::string_view(s.data() + start, i - start);
    }
    out.significant = significant;
    out.mantissa = mantissa;
  }
  if (out.int_digits.empty() && out.frac_digits.empty())
    return fail(hex ? parse_errc::missing_hex_digits : parse_errc::missing_digits, i);
  if (i < n && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
    ++i;
    bool negative_exponent = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative_exponent = s[i++] == '-';
    if (i == n || !is_digit(s[i])) return fail(parse_errc::missing_exponent_digits, i);
    std::int64_t v = 0;
    for (; i < n && is_digit(s[i]); ++i)
      if (v < 1'000'000'000'000) v = v * 10 + (s[i] - '0');  // saturates: far beyond any range
    out.exponent = negative_exponent ? -v : v;
  }
  return i == n ? parse_error{} : fail(parse_errc::trailing_characters, i);
}

// ---- conversion -----------------------------------------------------------------------------------

/// The significand digits of a scanned number, int part then fraction part, by index.
struct digit_string {
  std::string_view a, b;
  constexpr std::size_t size() const { return a.size() + b.size(); }
  constexpr char operator[](std::size_t i) const { return i < a.size() ? a[i] : b[i - a.size()]; }
};

/// D / 5^m (D > 0, 1 <= m <= 27) as (q + sticky) * 2^exp with q >= 2^62: 63 or 64 bits.
struct quotient {
  std::uint64_t q;
  int exp;
  bool sticky;
};
/// Without a division: with Dn = D normalised to [2^63, 2^64), b = bit_width(5^m) and
/// N = Dn * 2^(b-1), the wanted quotient is Q = floor(N / 5^m), in [2^62, 2^64). The table's
/// R = 2^(63+b) / 5^m + eps (0 <= eps < 1) gives floor(Dn * R / 2^64) = floor(N / 5^m + Dn eps / 2^64),
/// and Dn eps / 2^64 < 1, so that is Q or Q + 1; multiplying back decides which, exactly, and the
/// remainder N - Q 5^m gives sticky.
LIBFLOAT_INLINE quotient divide_by_pow5(std::uint64_t D, int m) {
  const auto P = static_cast<std::uint64_t>(pow5_table[static_cast<std::size_t>(m)]);
  const int b = std::bit_width(P), shift = 64 - std::bit_width(D);
  const std::uint64_t Dn = D << shift;
  auto Q = static_cast<std::uint64_t>((u128{Dn} * reciprocal_pow5_table[static_cast<std::size_t>(m)]) >> 64);
  const u128 N = u128{Dn} << (b - 1);
  u128 QP = u128{Q} * P;
  if (QP > N) {
    --Q;
    QP -= P;
  }
  // D / 5^m = Dn 2^-shift / 5^m = (N / 5^m) 2^(-shift - (b - 1))
  return {Q, -shift - (b - 1), QP != N};
}

/// D * 10^-m (1 <= m <= 55) by a 128-bit division, when the quotient keeps at least T bits:
/// (sig + sticky) * 2^exp. Out of line: binary64, or the rare case the reciprocal cannot decide.
[[gnu::noinline]] inline bool divide_by_pow5_wide(std::uint64_t D, int m, int T, u128& sig, long& exp, bool& sticky) {
  const u128 P = pow5_table[static_cast<std::size_t>(m)];
  const int s = 128 - std::bit_width(D);
  const u128 N = u128{D} << s;
  const u128 Q = N / P;
  if (bit_width(Q) < T) return false;
  sig = Q;
  exp = -s - m;
  sticky = N - Q * P != 0;
  return true;
}

/// Regime 3 of the file comment, out of line: the digits [first, first + nd) of d, value
/// D * 10^E.
[[gnu::noinline]] inline bits_t convert_decimal_big(const format& f, bool negative, const digit_string& d, std::size_t first,
                                                    std::int64_t nd, std::int64_t E, const env& e, status& st) {
  const int T = parse_bits(f);
  // 3. Big integers, on at most max_significant_digits(f) digits; the cut-off part holds the last
  //    nonzero digit, so cutting always sets sticky.
  const std::int64_t keep = min_of<std::int64_t>(nd, max_significant_digits(f));
  bool sticky = keep < nd;
  const long Ek = static_cast<long>(E + (nd - keep));
  bignum D;
  {
    std::uint32_t chunk = 0, scale = 1;
    for (std::size_t i = first; i < first + static_cast<std::size_t>(keep); ++i) {
      chunk = chunk * 10 + static_cast<std::uint32_t>(d[i] - '0');
      scale *= 10;
      if (scale == 1000000000u) {
        D.mul_add_small(scale, chunk);
        chunk = 0;
        scale = 1;
      }
    }
    if (scale > 1) D.mul_add_small(scale, chunk);
  }
  long exp = 0;
  if (Ek >= 0) {
    D.mul_pow5(Ek);  // D * 10^Ek = D * 5^Ek * 2^Ek
    exp = Ek;
  } else {
    // D * 2^s / 5^m with s making the quotient at least T bits: bit_width(5^m) <= m * 2.322 + 1.
    const long m = -Ek;
    const long bits_pow5 = (m * 2322 + 999) / 1000 + 1;
    const long s = max_of<long>(0, T + 1 + bits_pow5 - D.bit_width());
    D.shl(s);
    sticky |= D.div_pow5(m);
    exp = -s - m;
  }
  if (const int w = D.bit_width(); w > 125) {
    sticky |= D.shr(w - 125);
    exp += w - 125;
  }
  return round_parsed(f, negative, exp, D.to_u128(), sticky, e, st);
}


/// 1. Out of range (see the file comment): 10^(k-1) >= 2^(3(k-1)) for k >= 1, 10^k <= 2^(3k)
/// for k <= 0, where 10^(k-1) <= value < 10^k. Sets r and returns true when value is beyond it.
LIBFLOAT_INLINE bool parse_out_of_range(const format& f, bool negative, std::int64_t k, const env& e, status& st, bits_t& r) {
  if (3 * (k - 1) >= f.emax() + 2) r = round_huge(f, negative, e, st);
  else if (3 * k <= f.emin() - f.precision - 33) r = round_tiny(f, negative, e, st);
  else return false;
  return true;
}

/// 10^0 .. 10^19.
inline constexpr std::array<std::uint64_t, 20> pow10_u64 = [] {
  std::array<std::uint64_t, 20> t{};
  t[0] = 1;
  for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
  return t;
}();

/// Regimes 1 and 2 of the file comment for value = D * 10^E, D < 10^19: sets r (the rounded
/// encoding) and returns true, or returns false when the big-number path must decide.
LIBFLOAT_INLINE bool convert_short(const format& f, bool negative, std::uint64_t D, std::int64_t E, const env& e, status& st,
                                   bits_t& r) {
  if (D == 0) {
    r = zero_result(f, negative, st);
    return true;
  }
  const int T = parse_bits(f);
  // nd = number of decimal digits of D (the estimate from the bit width is nd or nd - 1)
  const int t = (std::bit_width(D) * 1233) >> 12;
  const int nd = t + (D >= pow10_u64[static_cast<std::size_t>(t)] ? 1 : 0);
  if (parse_out_of_range(f, negative, E + nd, e, st, r)) return true;
  // The branches only compute (sig + sticky) * 2^exp; one round_parsed call below keeps the
  // inlined core once in this function.
  u128 sig = 0;
  long exp = 0;
  bool sticky = false, ok = false;
  if (E >= 0 && E <= 55) {
    const u128 P = pow5_table[static_cast<std::size_t>(E)];
    ok = std::bit_width(D) + bit_width(P) <= 125;
    sig = u128{D} * P;
    exp = static_cast<long>(E);
  } else if (E < 0 && E >= -27 && T <= 63) {
    const quotient q = divide_by_pow5(D, static_cast<int>(-E));
    sig = q.q;
    exp = q.exp + static_cast<long>(E);
    sticky = q.sticky;
    ok = true;
  } else if (E < 0 && -E <= pow5_reciprocal_max && T <= 63) {
    // D / 5^m with m >= 28 (> D's 19 digits, so never exact: sticky) through the 128-bit
    // R = floor(2^(127+b) / 5^m) = 2^(127+b) / 5^m - f, 0 < f < 1: with Dn = D normalised to
    // [2^63, 2^64), Dn * 2^(127+b) / 5^m = Dn * R + Dn * f, and Dn * f < 2^64 only reaches the
    // top 64 bits of the 192-bit Dn * R through a carry out of the middle word, impossible
    // unless that word is all ones (then the exact paths below decide).
    const int m = static_cast<int>(-E);
    const pow5_reciprocal& R = pow5_reciprocal_table[static_cast<std::size_t>(m)];
    const int shift = 64 - std::bit_width(D);
    const std::uint64_t Dn = D << shift;
    const u128 low = u128{Dn} * R.lo, high = u128{Dn} * R.hi + static_cast<std::uint64_t>(low >> 64);
    // D * 10^-m = (Dn / 5^m) * 2^(-shift - m) = (top + fraction) * 2^(128 - 127 - b - shift - m)
    ok = static_cast<std::uint64_t>(high) != ~std::uint64_t{0};
    sig = high >> 64;
    exp = 1 - R.bits - shift - m;
    sticky = true;
  }
  if (!ok && E < 0 && E >= -55) ok = divide_by_pow5_wide(D, static_cast<int>(-E), T, sig, exp, sticky);
  if (ok) r = round_parsed(f, negative, exp, sig, sticky, e, st);
  return ok;
}

LIBFLOAT_INLINE bits_t convert_decimal(const format& f, const scanned& in, const env& e, status& st) {
  if (in.significant == 0) return zero_result(f, in.negative, st);
  bits_t r = 0;
  // 2. Fast path: at most 19 significant digits, value = mantissa * 10^E exactly; 64/128-bit
  //    arithmetic.
  if (in.significant <= 19 &&
      convert_short(f, in.negative, in.mantissa, in.exponent - static_cast<std::int64_t>(in.frac_digits.size()), e, st, r))
    return r;
  // The general case: value = D * 10^E, D = the digits [first, last) without leading or trailing
  // zeros.
  const digit_string d{in.int_digits, in.frac_digits};
  const auto ni = static_cast<std::int64_t>(in.int_digits.size());
  std::size_t first = 0, last = d.size();
  while (d[first] == '0') ++first;
  while (d[last - 1] == '0') --last;
  const auto nd = static_cast<std::int64_t>(last - first);
  const std::int64_t E = in.exponent + ni - static_cast<std::int64_t>(last);
  if (parse_out_of_range(f, in.negative, E + nd, e, st, r)) return r;
  // 3.
  return convert_decimal_big(f, in.negative, d, first, nd, E, e, st);
}

[[gnu::noinline]] inline bits_t convert_hex(const format& f, const scanned& in, const env& e, status& st) {
  const digit_string d{in.int_digits, in.frac_digits};
  std::size_t first = 0;
  while (first < d.size() && d[first] == '0') ++first;
  if (first == d.size()) return zero_result(f, in.negative, st);
  // Up to 30 hex digits (>= 117 bits, more than p + 34) exactly; the rest only as sticky.
  const std::size_t keep = min_of<std::size_t>(d.size() - first, 30);
  u128 H = 0;
  for (std::size_t i = first; i < first + keep; ++i) H = (H << 4) | static_cast<unsigned>(hex_digit_value(d[i]));
  bool sticky = false;
  for (std::size_t i = first + keep; i < d.size() && !sticky; ++i) sticky = d[i] != '0';
  // value = (H + sticky) * 16^(digits after the kept ones in the integer part) * 2^exponent
  const std::int64_t exp = in.exponent + 4 * (static_cast<std::int64_t>(in.int_digits.size()) -
                                              static_cast<std::int64_t>(first + keep));
  const std::int64_t lead = exp + bit_width(H) - 1;
  if (lead >= f.emax() + 2) return round_huge(f, in.negative, e, st);
  if (lead < f.emin() - f.precision - 34) return round_tiny(f, in.negative, e, st);
  return round_parsed(f, in.negative, static_cast<long>(exp), H, sticky, e, st);
}

/// "nan" read into f: its quiet NaN of that sign; a finite_only format has none and raises invalid
/// (max finite stands in for it, as convertFormat gives).
inline bits_t quiet_nan_bits(const format& f, bool negative, status& st) {
  if (!f.has_nan()) st |= status::invalid;
  return f.nan_bits(negative);
}

}  // namespace detail

// ---- parsing -------------------------------------------------------------------------------------

/// Reads `text` as a number of format f (see the file comment for the grammar and the results).
/// Flags are ORed into *flags; nothing is raised for malformed input.
namespace detail {

/// The common case of the decimal grammar, [+|-] digits ["." digits] [(e|E) [+|-] digits], with
/// at most 19 significant-or-not digits in all and at most 6 exponent digits: value = D * 10^E.
/// Anything else (longer, hex, inf/nan, malformed) returns false and goes through scan(), which
/// alone reports errors.
LIBFLOAT_INLINE bool scan_plain(std::string_view s, std::uint64_t& D, std::int64_t& E, bool& negative) {
  const char* p = s.data();
  const char* const end = p + s.size();
  negative = false;
  if (p != end && (*p == '-' || *p == '+')) negative = *p++ == '-';
  std::uint64_t d = 0;  // (wraps on more than 19 digits, which are refused below)
  const char* const int_first = p;
  for (; p != end && is_digit(*p); ++p) d = d * 10 + static_cast<std::uint64_t>(*p - '0');
  std::int64_t digits = p - int_first, frac = 0;
  if (p != end && *p == '.') {
    const char* const frac_first = ++p;
    for (; p != end && is_digit(*p); ++p) d = d * 10 + static_cast<std::uint64_t>(*p - '0');
    frac = p - frac_first;
    digits += frac;
  }
  if (digits == 0 || digits > 19) return false;
  std::int64_t x = 0;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative_exponent = false;
    if (p != end && (*p == '-' || *p == '+')) negative_exponent = *p++ == '-';
    const char* const exp_first = p;
    for (; p != end && is_digit(*p) && p - exp_first < 6; ++p) x = x * 10 + (*p - '0');
    if (p == exp_first) return false;
    if (negative_exponent) x = -x;
  }
  if (p != end) return false;
  D = d;
  E = x - frac;
  return true;
}

/// Everything scan_plain + convert_short do not take: out of line.
[[gnu::noinline]] inline parsed<bits_t> parse_general(const format& f, std::string_view text, const env& e, status* flags) {
  scanned in;
  parsed<bits_t> out;
  out.error = scan(text, in);
  if (out.error.code != parse_errc::ok) return out;
  status st{};
  switch (in.kind) {
    case scanned::what::quiet_nan: out.value = quiet_nan_bits(f, in.negative, st); break;
    case scanned::what::signaling_nan:
      out.value = f.has_signaling_nan() ? sign_bit(f, in.negative) | f.exponent_mask() | 1 : quiet_nan_bits(f, in.negative, st);
      break;
    case scanned::what::infinity:
      // As convertFormat from an infinity (arith.hpp convert).
      out.value = convert(f, binary64, sign_bit(binary64, in.negative) | binary64.infinity_bits(), e, st);
      break;
    case scanned::what::number:
      out.value = in.hex ? convert_hex(f, in, e, st) : convert_decimal(f, in, e, st);
      break;
  }
  report(flags, st);
  return out;
}
}  // namespace detail

LIBFLOAT_INLINE parsed<bits_t> parse(const format& f, std::string_view text, const env& e = {}, status* flags = nullptr) {
  using namespace detail;
  std::uint64_t D;
  std::int64_t E;
  bool negative;
  if (scan_plain(text, D, E, negative)) {
    status st{};
    parsed<bits_t> out;
    if (convert_short(f, negative, D, E, e, st, out.value)) {
      report(flags, st);
      return out;
    }
  }
  return parse_general(f, text, e, flags);
}


namespace detail {
/// The typed parser, out of line once per format: with the default env (nearest even, IEEE
/// policies) as a constant, so that the rounding folds, and with any env.
template <format F>
[[gnu::noinline]] parsed<bits_t> parse_default_env(std::string_view text, status* flags) {
  return parse(F, text, env{}, flags);
}
template <format F>
[[gnu::noinline]] parsed<bits_t> parse_any_env(std::string_view text, const env& e, status* flags) {
  return parse(F, text, e, flags);
}
}  // namespace detail

template <format F>
parsed<fp<F>> parse(std::string_view text, const env& e, status* flags = nullptr) {
  const bool plain = e.mode == rounding::nearest_even && e.policy == policy{};
  const parsed<bits_t> r = plain ? detail::parse_default_env<F>(text, flags) : detail::parse_any_env<F>(text, e, flags);
  return {fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r.value)), r.error};
}
template <format F>
parsed<fp<F>> parse(std::string_view text, rounding r = rounding::nearest_even, status* flags = nullptr) {
  return parse<F>(text, env{r}, flags);
}
/// The same, named by the type: lf::parse<lf::fp16>(text) is lf::parse<lf::binary16>(text).
template <class T>
  requires std::same_as<T, fp<T::fmt>>
parsed<T> parse(std::string_view text, const env& e, status* flags = nullptr) {
  return parse<T::fmt>(text, e, flags);
}
template <class T>
  requires std::same_as<T, fp<T::fmt>>
parsed<T> parse(std::string_view text, rounding r = rounding::nearest_even, status* flags = nullptr) {
  return parse<T::fmt>(text, env{r}, flags);
}

// ---- output helpers ------------------------------------------------------------------------------

namespace detail {

/// "inf", "-inf", "nan", "-nan", "snan", "-snan", or nothing for a finite encoding.
inline std::optional<std::string> nonfinite_text(const format& f, bits_t b) {
  const bool negative = (b & f.sign_mask()) != 0 && f.kind != nonfinite::fnuz;  // fnuz: its one NaN is unsigned
  std::string sign = negative ? "-" : "";
  if (is_snan_bits(f, b)) return sign + "snan";
  if (is_nan_bits(f, b)) return sign + "nan";
  if (is_nonfinite_bits(f, b)) return sign + "inf";
  return std::nullopt;
}

struct floor_result {
  bignum value;
  bool exact;
};
/// floor(n * 2^s / 10^k) and whether it is exact, for any s, k: n * 5^-k * 2^(s-k) with the
/// divisions done last (nested floors are exact, see bignum::div_pow5).
inline floor_result scaled_floor(bignum n, long s, long k) {
  const long two = s - k, five = -k;
  if (five > 0) n.mul_pow5(five);
  if (two > 0) n.shl(two);
  bool inexact = false;
  if (two < 0) inexact |= n.shr(-two);
  if (five < 0) inexact |= n.div_pow5(-five);
  return {std::move(n), !inexact};
}

struct floor_result128 {
  u128 value;
  bool exact;
};
/// The same for n < 2^64 and a result known to fit 128 bits, in 64/128/192-bit arithmetic where
/// that suffices (everything binary16, bfloat16 and binary32 need, and most of binary64) and on
/// bignum otherwise.
inline floor_result128 scaled_floor_small(std::uint64_t n, long s, long k) {
  const long two = s - k, five = -k;
  auto low_zero = [](u128 v, long bits) { return bits >= 128 ? v == 0 : (v & ((u128{1} << bits) - 1)) == 0; };
  if (five >= 0 && five < 56) {
    const u128 P = pow5_table[static_cast<std::size_t>(five)];
    if (two >= 0) {
      if (std::bit_width(n) + bit_width(P) + two <= 128) return {(u128{n} * P) << two, true};
    } else {
      // n * P as upper * 2^64 + w0 (192 bits; upper < 2^128 because n, P's halves < 2^64).
      const u128 a = u128{n} * static_cast<std::uint64_t>(P);
      const u128 upper = u128{n} * static_cast<std::uint64_t>(P >> 64) + (a >> 64);
      const auto w0 = static_cast<std::uint64_t>(a);
      const long t = -two;
      if (t >= 64) {
        const long t2 = t - 64;
        return {t2 >= 128 ? 0 : upper >> t2, w0 == 0 && low_zero(upper, t2)};
      }
      if (bit_width(upper) <= 64 + t) {
        const u128 v = t == 0 ? (upper << 64) | w0 : (upper << (64 - t)) | (w0 >> t);
        return {v, t == 0 || (w0 & ((std::uint64_t{1} << t) - 1)) == 0};
      }
    }
  } else if (five < 0 && -five < 56) {
    const u128 P = pow5_table[static_cast<std::size_t>(-five)];
    u128 m = n;
    bool exact = true;
    bool fits = true;
    if (two >= 0) {
      fits = std::bit_width(n) + two <= 128;
      if (fits) m <<= two;
    } else {
      exact = low_zero(m, -two);
      m = -two >= 128 ? 0 : m >> -two;
    }
    if (fits) {
      if ((m >> 64) == 0 && (P >> 64) == 0) {
        const auto m64 = static_cast<std::uint64_t>(m), p64 = static_cast<std::uint64_t>(P);
        const std::uint64_t q = m64 / p64;
        return {q, exact && q * p64 == m64};
      }
      const u128 q = m / P;
      return {q, exact && q * P == m};
    }
  }
  const floor_result r = scaled_floor(bignum(u128{n}), s, k);
  return {r.value.to_u128(), r.exact};
}

/// Shortest digits: |x| ~ digits * 10^exponent, digits without trailing zeros.
struct decimal_digits {
  u128 digits;
  long exponent;
};

/// For a finite nonzero x = c * 2^q: the interval of reals that round (nearest_even) to x is
/// [L, H] * 2^(q-2) with L = 4c - 2 (4c - 1 when the gap below is half the gap above), H = 4c + 2,
/// each end included iff it rounds to x itself (see below; the exhaustive tests check every
/// 8/16-bit encoding against the parser). Steps:
///  1. k0 with 10^k0 < H - L units, so some multiple of 10^k0 lies inside; d_lo..d_hi, the
///     multipliers of 10^k0 inside.
///  2. The largest k = k0 + j with a multiple of 10^k inside: fewest significant digits (a
///     multiple of 10 among the candidates would allow k + 1, so candidates have no trailing zero).
///  3. The candidate nearest x: round(x / 10^k) half to even, clamped to the candidates.
///  (Step 4 covers the one case where fewest digits does not mean largest k.)
inline decimal_digits shortest_digits(const format& f, const unpacked& x) {
  const std::uint64_t c = x.sig;
  const long s = x.exp - 2;
  const bool half_gap_below = c == (std::uint64_t{1} << (f.precision - 1)) && x.exp > f.emin() - f.precision + 1;
  const std::uint64_t X = 4 * c, H = X + 2, L = half_gap_below ? X - 1 : X - 2;
  // Ends: a midpoint ties to the even significand, so both ends belong to x iff c is even. That
  // holds at the top too: the max finite value of a format without infinity has an even c, and the
  // tie above it rounds to it (IEEE 754-2019 §7.4 with an unbounded exponent: E4M3 464 -> 448,
  // round_pack step 5); an IEEE format's max has an odd c, and its tie overflows.
  const bool even = (c & 1) == 0;
  const bool include_low = even, include_high = even;
  // 1. 10^k0 <= 2^s < H - L units (the estimate is within one of floor(s log10 2)).
  const long k0 = approx_floor_log10_pow2(s) - 1;
  const floor_result128 lo = scaled_floor_small(L, s, k0), hi = scaled_floor_small(H, s, k0);
  const u128 d_lo = lo.value + ((!lo.exact || !include_low) ? 1 : 0);
  const u128 d_hi = hi.value - ((hi.exact && !include_high) ? 1 : 0);
  // 2.
  long j = 0;
  u128 P = 1;
  if ((d_hi >> 63) == 0) {  // the usual case: 64-bit divisions
    const auto lo64 = static_cast<std::uint64_t>(d_lo), hi64 = static_cast<std::uint64_t>(d_hi);
    std::uint64_t P64 = 1;
    while (hi64 / (P64 * 10) * (P64 * 10) >= lo64) {
      P64 *= 10;
      ++j;
    }
    P = P64;
  } else {
    while (d_hi / (P * 10) * (P * 10) >= d_lo) {
      P *= 10;
      ++j;
    }
  }
  const long k = k0 + j;
  const u128 first = (d_lo + P - 1) / P, last = d_hi / P;
  // 3. floor(2x / 10^k): odd means the fraction is at least one half, exactly half when exact.
  const floor_result128 twice = scaled_floor_small(2 * X, s, k);  // 2X < 2^57
  u128 d = twice.value >> 1;
  if ((twice.value & 1) != 0 && (!twice.exact || (d & 1) != 0)) ++d;
  d = clamp_of(d, first, last);
  decimal_digits best{d, k};
  // 4. A one-digit result may have one-digit rivals in the decade below: when the interval holds
  //    10^k and reaches down to 9 * 10^(k-1) (only where it is 10% wide, p <= 4: E5M2 0x2E =
  //    0.09375 has both 0.09 and 0.1). The nearest of all of them wins.
  for (long kk = k - 1; best.digits < 10; --kk) {
    const floor_result128 low = scaled_floor_small(L, s, kk);
    const u128 lowest = max_of<u128>(low.value + ((!low.exact || !include_low) ? 1 : 0), 1);
    if (lowest > 9) break;
    const floor_result128 t = scaled_floor_small(2 * X, s, kk);  // floor(2y), y = x / 10^kk
    u128 dn = t.value >> 1;
    if ((t.value & 1) != 0 && (!t.exact || (dn & 1) != 0)) ++dn;
    dn = clamp_of<u128>(dn, lowest, 9);
    // best is b = best.digits * 10^(best.exponent - kk) > 9 >= dn (in units of 10^kk): dn is
    // nearer iff y < (b + dn) / 2; on a tie the even digit wins.
    u128 b = best.digits;
    for (long i = kk; i < best.exponent; ++i) b *= 10;
    const u128 sum = b + dn;
    const int cmp = t.value < sum ? -1 : (t.value == sum && t.exact) ? 0 : 1;
    if (cmp < 0 || (cmp == 0 && dn % 2 == 0 && best.digits % 2 != 0)) best = {dn, kk};
    if (lowest > 1) break;  // the interval does not reach 10^kk: no decade further down
  }
  return best;
}

// ---- shortest digits for formats with p <= 24, without divisions -------------------------------

/// floor(n * 2^s / 10^k) and whether it is exact, for n < 2^32 and a result below 2^64, by
/// multiplications: 10^k = 5^k * 2^k, and
///  - k <= 0: n * 5^-k (exact, 5^-k from pow5_table), shifted by s - k;
///  - k > 0: N = n * 2^t (t = max(s - k, 0), N < 2^127) times the ceiling reciprocal
///    Rc = R_k + 1 = 2^(127+b) / 5^k + eps (0 < eps < 1, decimal_pow5.hpp): N Rc / 2^(127+b) =
///    N / 5^k + err with 0 < err < N / 2^(127+b) < 2^-b < 5^-k, while the fraction of N / 5^k is
///    0 or in [5^-k, 1 - 5^-k]. So the floor is exact, and N / 5^k is an integer iff the computed
///    fraction is below 2^-b, i.e. bits [127, 127+b) of N Rc are zero. A negative s - k is a
///    further floor division by 2^(k-s) (nested floors).
/// Anything else (k < -55, k > pow5_reciprocal_max, N too wide) goes to scaled_floor_small.
struct floor_result64 {
  std::uint64_t value;
  bool exact;
};
inline floor_result64 scaled_floor_fast(std::uint64_t n, long s, long k) {
  const long two = s - k;
  auto low_zero = [](u128 v, long bits) { return bits >= 128 ? v == 0 : (v & ((u128{1} << bits) - 1)) == 0; };
  if (k <= 0 && k > -28) {
    const u128 prod = u128{n} * static_cast<std::uint64_t>(pow5_table[static_cast<std::size_t>(-k)]);  // < 2^96
    if (two >= 0) {
      if (bit_width(prod) + two <= 64) return {static_cast<std::uint64_t>(prod << two), true};
    } else {
      const long t = -two;
      const u128 v = t >= 128 ? 0 : prod >> t;
      if ((v >> 64) == 0) return {static_cast<std::uint64_t>(v), low_zero(prod, t)};
    }
  } else if (k <= 0 && k >= -55 && two < 0) {
    // n * 5^-k = upper * 2^64 + w0 (upper < 2^96), then shifted right by t = k - s.
    const u128 P = pow5_table[static_cast<std::size_t>(-k)];
    const u128 a = u128{n} * static_cast<std::uint64_t>(P);
    const u128 upper = u128{n} * static_cast<std::uint64_t>(P >> 64) + static_cast<std::uint64_t>(a >> 64);
    const auto w0 = static_cast<std::uint64_t>(a);
    const long t = -two;
    if (t >= 64) {
      const long t2 = t - 64;
      const u128 v = t2 >= 128 ? 0 : upper >> t2;
      if ((v >> 64) == 0) return {static_cast<std::uint64_t>(v), w0 == 0 && low_zero(upper, t2)};
    } else if ((upper >> t) == 0) {  // 0 < t < 64
      return {static_cast<std::uint64_t>((upper << (64 - t)) | (w0 >> t)), (w0 << (64 - t)) == 0};
    }
  } else if (k > 0 && k <= pow5_reciprocal_max) {
    const long t = two > 0 ? two : 0;
    const pow5_reciprocal& R = pow5_reciprocal_table[static_cast<std::size_t>(k)];
    const long sh = 127 + R.bits - t;  // quotient = (n * Rc) >> sh
    if (std::bit_width(n) + t <= 127 && sh >= 64 && sh < 192) {
      // n * Rc = hi * 2^64 + lo (hi < 2^96), Rc = R + 1 (R.lo + 1 does not wrap: checked in
      // decimal_pow5.hpp).
      const u128 a = u128{n} * (R.lo + 1);
      const u128 hi = u128{n} * R.hi + static_cast<std::uint64_t>(a >> 64);
      const auto lo = static_cast<std::uint64_t>(a);
      const u128 q = hi >> (sh - 64);
      // exact iff bits [127 - t, sh) of n * Rc are zero
      const long from = 127 - t;
      const u128 below = hi & ((u128{1} << (sh - 64)) - 1);  // bits [64, sh)
      const bool exact = from >= 64 ? (below >> (from - 64)) == 0 : below == 0 && (lo >> from) == 0;
      if ((q >> 64) == 0) {
        if (two >= 0) return {static_cast<std::uint64_t>(q), exact};
        const long u = -two;  // floor(q / 2^u)
        return {u >= 64 ? 0 : static_cast<std::uint64_t>(q) >> u, exact && low_zero(q, u)};
      }
    }
  }
  const floor_result128 r = scaled_floor_small(n, s, k);
  return {static_cast<std::uint64_t>(r.value), r.exact};
}

/// shortest_digits for p <= 24 (c < 2^24, so every scaled value is below 2^64): the same steps,
/// with scaled_floor_fast, and the powers of ten of step 2 as repeated divisions by the constant
/// 10 (multiplications): a multiple of 10^(j+1) lies in [d_lo, d_hi] iff
/// floor(d_hi / 10^(j+1)) > floor((d_lo - 1) / 10^(j+1)). Step 3's floor(2x / 10^k) is
/// floor(2x / 10^k0) divided by 10^j (nested floors), exact iff both steps are.
inline decimal_digits shortest_digits_small(const format& f, const unpacked& x) {
  const std::uint64_t c = x.sig;
  const long s = x.exp - 2;
  const bool half_gap_below = c == (std::uint64_t{1} << (f.precision - 1)) && x.exp > f.emin() - f.precision + 1;
  const std::uint64_t X = 4 * c, H = X + 2, L = half_gap_below ? X - 1 : X - 2;
  const bool even = (c & 1) == 0;
  const bool include_low = even, include_high = even;  // (as in shortest_digits, also at max finite)
  const long k0 = approx_floor_log10_pow2(s) - 1;
  const floor_result64 lo = scaled_floor_fast(L, s, k0), hi = scaled_floor_fast(H, s, k0);
  const floor_result64 twice0 = scaled_floor_fast(2 * X, s, k0);
  const std::uint64_t d_lo = lo.value + ((!lo.exact || !include_low) ? 1 : 0);
  const std::uint64_t d_hi = hi.value - ((hi.exact && !include_high) ? 1 : 0);
  if (d_lo == 0 || d_lo > d_hi) return shortest_digits(f, x);  // (not expected: 10^k0 < H - L units)
  // 2.
  std::uint64_t last = d_hi, below = d_lo - 1, tw = twice0.value;
  bool tw_exact = twice0.exact;
  long j = 0;
  while (last / 10 > below / 10) {
    last /= 10;
    below /= 10;
    tw_exact = tw_exact && tw % 10 == 0;
    tw /= 10;
    ++j;
  }
  const long k = k0 + j;
  const std::uint64_t first = below + 1;
  // 3.
  std::uint64_t d = tw >> 1;
  if ((tw & 1) != 0 && (!tw_exact || (d & 1) != 0)) ++d;
  d = clamp_of(d, first, last);
  decimal_digits best{d, k};
  // 4. (see shortest_digits)
  for (long kk = k - 1; best.digits < 10; --kk) {
    const floor_result64 low = scaled_floor_fast(L, s, kk);
    const std::uint64_t lowest = max_of<std::uint64_t>(low.value + ((!low.exact || !include_low) ? 1 : 0), 1);
    if (lowest > 9) break;
    const floor_result64 t = scaled_floor_fast(2 * X, s, kk);
    std::uint64_t dn = t.value >> 1;
    if ((t.value & 1) != 0 && (!t.exact || (dn & 1) != 0)) ++dn;
    dn = clamp_of<std::uint64_t>(dn, lowest, 9);
    std::uint64_t b = static_cast<std::uint64_t>(best.digits);
    for (long i = kk; i < best.exponent; ++i) b *= 10;
    const std::uint64_t sum = b + dn;
    const int cmp = t.value < sum ? -1 : (t.value == sum && t.exact) ? 0 : 1;
    if (cmp < 0 || (cmp == 0 && dn % 2 == 0 && best.digits % 2 != 0)) best = {dn, kk};
    if (lowest > 1) break;
  }
  return best;
}

/// Rounds y = F / 2^32 to an integer in e's direction, where F = floor(|x| * 10^n * 2^32) and
/// `exact` says that floor lost nothing. F's low 32 bits are the first 32 bits of y's fraction:
/// what stochastic rounding compares with (rounding.hpp). This decides a decimal grid, not a
/// format's value, so it is not round_pack's job.
inline bignum round_decimal(bignum F, bool exact, bool negative, const env& e) {
  const auto frac = static_cast<std::uint32_t>(F.low64());
  F.shr(32);
  constexpr std::uint32_t half = 1u << 31;
  const bool nonzero = frac != 0 || !exact;
  const bool tie = frac == half && exact;
  const bool above = frac > half || (frac == half && !exact);
  bool up = false;
  switch (e.mode) {
    case rounding::nearest_even: up = above || (tie && F.odd()); break;
    case rounding::nearest_away: up = above || tie; break;
    case rounding::toward_zero: up = false; break;
    case rounding::upward: up = nonzero && !negative; break;
    case rounding::downward: up = nonzero && negative; break;
    case rounding::odd: up = nonzero && !F.odd(); break;
    case rounding::stochastic: up = e.random < frac; break;
  }
  if (up) F.mul_add_small(1, 1);
  return F;
}

/// Digits of an integer N, read as N / 10^m: the point m places from the right, at least one
/// digit before it ("5", 3 -> "0.005").
inline std::string place_point(std::string digits, long m) {
  if (m <= 0) return digits;
  const auto um = static_cast<std::size_t>(m);
  if (digits.size() <= um) digits.insert(0, um + 1 - digits.size(), '0');
  digits.insert(digits.size() - um, 1, '.');
  return digits;
}

/// c * 2^q (c > 0) in positional decimal with every digit. Wide = false: only for values whose
/// digits fit in 128 bits (exact_digits_fit_u128 below); the bignum branches are then not compiled
/// at all (if constexpr), at any optimisation level.
template <bool Wide = true>
std::string exact_digits(std::uint64_t c, long q) {
  const int tz = std::countr_zero(c);
  c >>= tz;
  q += tz;
  if (q >= 0) {
    if constexpr (Wide) {
      if (std::bit_width(c) + q > 127) {
        bignum b(c);
        b.shl(q);
        return b.to_decimal();
      }
    }
    return bignum::u128_to_decimal(u128{c} << q);
  }
  // c / 2^m = c * 5^m / 10^m: the digits of c * 5^m with the point m places from the right.
  const long m = -q;
  if constexpr (Wide) {
    if (m >= 56 || std::bit_width(c) + bit_width(pow5_table[static_cast<std::size_t>(m)]) > 128) {
      bignum b(c);
      b.mul_pow5(m);
      return place_point(b.to_decimal(), m);
    }
  }
  return place_point(bignum::u128_to_decimal(u128{c} * pow5_table[static_cast<std::size_t>(m)]), m);
}

/// Whether every finite value of f takes exact_digits' 128-bit branches (so exact_digits<false>
/// gives its digits): c < 2^p, and after c's trailing zeros are removed q is in [emin - (p - 1),
/// emax - (p - 1)]; c * 2^q needs at most p + emax - (p - 1) <= 127 bits, and c * 5^m, m <= p - 1 -
/// emin, at most p + bit_width(5^m) <= 128 with m < 56. (binary16: 16 bits and m <= 24, 67 bits;
/// bfloat16 and binary32 need the big integers.) The typed lf::to_exact_decimal(fp<F>) uses it so
/// that a program printing such formats compiles no bignum code.
constexpr bool exact_digits_fit_u128(const format& f) {
  const long up = f.emax() + 1;  // emax - (p - 1) + p
  const long m = f.precision - 1 - f.emin();
  return up <= 127 && m < 56 && f.precision + bit_width(pow5_table[static_cast<std::size_t>(m)]) <= 128;
}

/// Writes v in decimal at `to` (no terminator); returns the number of digits (at most 39).
inline long write_decimal(char* to, u128 v) {
  char buf[40];
  char* p = buf + sizeof buf;
  while ((v >> 64) != 0) {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  auto w = static_cast<std::uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(w % 10));
    w /= 10;
  } while (w != 0);
  const long n = buf + sizeof buf - p;
  std::memcpy(to, p, static_cast<std::size_t>(n));
  return n;
}

/// to_shortest for p <= 24 (at most 9 significant digits, integers in fixed notation below
/// 10^14): the digits written once, by divisions by the constant 10, and moved with fixed-size
/// copies into buffers with room for them (no library memcpy calls for a few bytes). Same layout
/// rules as to_shortest below.
inline std::string to_shortest_small(const format& f, const unpacked& x) {
  char buf[96];  // at most 1 + 2 + 3 + 9 or 1 + 11 + 2 + 11 characters, plus 24 bytes of copy slack
  char* out = buf;
  if (x.negative) *out++ = '-';
  if (x.kind == kind::zero) {
    *out++ = '0';
    return std::string(buf, out);
  }
  const decimal_digits d = shortest_digits_small(f, x);
  char digits[48];  // the digits end at digits + 24; 24 bytes of slack after them
  char* const end = digits + 24;
  auto write = [end](std::uint64_t v) {
    char* p = end;
    do {
      *--p = static_cast<char>('0' + static_cast<int>(v % 10));
      v /= 10;
    } while (v != 0);
    return p;
  };
  auto put = [&out](const char* from, long count) {  // count <= 24
    std::memcpy(out, from, 24);
    out += count;
  };
  const char* p = write(static_cast<std::uint64_t>(d.digits));
  const long len = end - p, k = d.exponent;
  const long lower = len == 1 ? -(len + 3) + 1 : -(len + 3);
  const long upper = len == 1 ? 4 : 5;
  if (k >= lower && k <= upper && k >= 0) {
    const std::uint64_t v = x.exp >= 0 ? x.sig << x.exp : x.sig >> -x.exp;  // an integer below 10^14
    const char* q = write(v);
    put(q, end - q);
  } else if (k >= lower && k <= upper) {
    if (len <= -k) {  // 0.000ddd (at most 3 zeros)
      std::memcpy(out, "0.000", 5);
      out += 2 + (-k - len);
      put(p, len);
    } else {  // dd.ddd
      put(p, len + k);
      *out++ = '.';
      put(p + len + k, -k);
    }
  } else {
    *out++ = p[0];
    if (len > 1) {
      *out++ = '.';
      put(p + 1, len - 1);
    }
    const long e10 = k + len - 1;
    *out++ = 'e';
    *out++ = e10 < 0 ? '-' : '+';
    const char* q = write(static_cast<std::uint64_t>(e10 < 0 ? -e10 : e10));
    if (end - q < 2) *out++ = '0';
    put(q, end - q);
  }
  return std::string(buf, out);
}

/// "e+05", "e-123": at least two exponent digits, as printf's %e and std::to_chars write them.
inline std::string exponent_suffix(long e10) {
  std::string digits = std::to_string(e10 < 0 ? -e10 : e10);
  if (digits.size() < 2) digits.insert(0, 1, '0');
  return (e10 < 0 ? "e-" : "e+") + digits;
}

}  // namespace detail

// ---- output ----------------------------------------------------------------------------------------

namespace detail {
/// to_exact_decimal; Wide = false only for a format with exact_digits_fit_u128.
template <bool Wide>
std::string to_exact_decimal_of(const format& f, bits_t b) {
  if (auto t = detail::nonfinite_text(f, b)) return *t;
  const detail::unpacked x = detail::unpack(f, b);
  const std::string sign = x.negative ? "-" : "";
  if (x.kind == detail::kind::zero) return sign + "0";
  return sign + detail::exact_digits<Wide>(x.sig, x.exp);
}
/// to_shortest for a format with p <= 24.
inline std::string to_shortest_narrow(const format& f, bits_t b) {
  if (detail::is_nonfinite_bits(f, b)) return *detail::nonfinite_text(f, b);
  return detail::to_shortest_small(f, detail::unpack(f, b));
}
}  // namespace detail

/// Every digit of the exact value, positional: "0.0999755859375", "65504", "-0"; see the file comment.
inline std::string to_exact_decimal(const format& f, bits_t b) { return detail::to_exact_decimal_of<true>(f, b); }

/// The shortest text that parses back (nearest_even) to b, in std::to_chars' notation; see the
/// file comment.
inline std::string to_shortest(const format& f, bits_t b) {
  if (f.precision <= 24) return detail::to_shortest_narrow(f, b);
  if (detail::is_nonfinite_bits(f, b)) return *detail::nonfinite_text(f, b);
  const detail::unpacked x = detail::unpack(f, b);
  char buf[64];  // sign, at most 17 + 5 digits and a point, or d.ddd...e+dddd
  char* out = buf;
  if (x.negative) *out++ = '-';
  if (x.kind == detail::kind::zero) {
    *out++ = '0';
    return std::string(buf, out);
  }
  const detail::decimal_digits d = detail::shortest_digits(f, x);
  char digits[40];
  const long len = detail::write_decimal(digits, d.digits);
  const long k = d.exponent;
  auto put = [&](const char* from, long count) {
    std::memcpy(out, from, static_cast<std::size_t>(count));
    out += count;
  };
  // libstdc++'s choice for to_chars(first, last, value) (floating_to_chars.cc): fixed when
  // -(len + 3) <= k <= 5, one narrower on each side for a single digit (no point in scientific).
  const long lower = len == 1 ? -(len + 3) + 1 : -(len + 3);
  const long upper = len == 1 ? 4 : 5;
  if (k >= lower && k <= upper && k >= 0) {
    // x is an integer (a non-integer x has ulp <= 1/2, and an integer within half an ulp of it
    // would be representable and so not round to x), printed in full as printf's %.0f does; it
    // is below 10^(len + 5) <= 10^23.
    const detail::u128 v = x.exp >= 0 ? detail::u128{x.sig} << x.exp : detail::u128{x.sig >> -x.exp};
    char whole[40];
    put(whole, detail::write_decimal(whole, v));
  } else if (k >= lower && k <= upper) {
    if (len <= -k) {  // 0.000ddd
      put("0.", 2);
      std::memset(out, '0', static_cast<std::size_t>(-k - len));
      out += -k - len;
      put(digits, len);
    } else {  // dd.ddd
      put(digits, len + k);
      *out++ = '.';
      put(digits + len + k, -k);
    }
  } else {
    *out++ = digits[0];
    if (len > 1) {
      *out++ = '.';
      put(digits + 1, len - 1);
    }
    const long e10 = k + len - 1;
    *out++ = 'e';
    *out++ = e10 < 0 ? '-' : '+';
    char exponent[24];
    const long n = detail::write_decimal(exponent, static_cast<detail::u128>(e10 < 0 ? -e10 : e10));
    if (n < 2) *out++ = '0';
    put(exponent, n);
  }
  return std::string(buf, out);
}

/// b rounded to `digits_after_point` (>= 0; negative counts as 0) decimal places, printf "%.*f"
/// style, in e's rounding direction; see the file comment.
inline std::string to_fixed(const format& f, bits_t b, int digits_after_point, const env& e = {}) {
  if (auto t = detail::nonfinite_text(f, b)) return *t;
  const long n = detail::max_of(digits_after_point, 0);
  const detail::unpacked x = detail::unpack(f, b);
  std::string out = x.negative ? "-" : "";
  if (x.kind == detail::kind::zero) return out + detail::place_point(std::string(static_cast<std::size_t>(n) + 1, '0'), n);
  // floor(|x| * 10^n * 2^32) = floor(c * 2^(q+32) / 10^-n)
  detail::floor_result F = detail::scaled_floor(detail::bignum(x.sig), x.exp + 32, -n);
  const detail::bignum I = detail::round_decimal(std::move(F.value), F.exact, x.negative, e);
  return out + detail::place_point(I.to_decimal(), n);
}

/// b rounded to `digits_after_point` + 1 significant digits, printf "%.*e" style
/// ("9.998e-02"), in e's rounding direction; see the file comment.
inline std::string to_scientific(const format& f, bits_t b, int digits_after_point, const env& e = {}) {
  if (auto t = detail::nonfinite_text(f, b)) return *t;
  const long n = detail::max_of(digits_after_point, 0);
  const detail::unpacked x = detail::unpack(f, b);
  std::string out = x.negative ? "-" : "";
  std::string digits;
  long e10 = 0;
  if (x.kind == detail::kind::zero) {
    digits.assign(static_cast<std::size_t>(n) + 1, '0');
  } else {
    // e10 = floor(log10 |x|): |x| in [2^lead, 2^(lead+1)), so within one of the estimate.
    const long lead = x.exp + std::bit_width(x.sig) - 1;
    e10 = detail::approx_floor_log10_pow2(lead) + 2;
    while (detail::scaled_floor(detail::bignum(x.sig), x.exp, e10).value.is_zero()) --e10;
    detail::floor_result F = detail::scaled_floor(detail::bignum(x.sig), x.exp + 32, e10 - n);
    digits = detail::round_decimal(std::move(F.value), F.exact, x.negative, e).to_decimal();
    if (static_cast<long>(digits.size()) == n + 2) {  // rounded up to 10^(n+1)
      digits.pop_back();
      ++e10;
    }
  }
  out += digits[0];
  if (n > 0) out += "." + digits.substr(1);
  return out + detail::exponent_suffix(e10);
}

/// C99 hex float, normalized: "0x1.998p-4", "0x1p-24", "-0x0p+0"; see the file comment.
inline std::string to_hex(const format& f, bits_t b) {
  if (auto t = detail::nonfinite_text(f, b)) return *t;
  const detail::unpacked x = detail::unpack(f, b);
  std::string out = x.negative ? "-0x" : "0x";
  if (x.kind == detail::kind::zero) return out + "0p+0";
  const int w = std::bit_width(x.sig);
  const int frac_bits = w - 1;
  const int hex_digits = (frac_bits + 3) / 4;
  std::uint64_t frac = (x.sig - (std::uint64_t{1} << frac_bits)) << (4 * hex_digits - frac_bits);
  int shown = hex_digits;
  while (shown > 0 && (frac & 15) == 0) {
    frac >>= 4;
    --shown;
  }
  out += '1';
  if (shown > 0) {
    out += '.';
    for (int i = shown - 1; i >= 0; --i) out += "0123456789abcdef"[(frac >> (4 * i)) & 15];
  }
  const long e2 = x.exp + frac_bits;
  return out + (e2 < 0 ? "p-" : "p+") + std::to_string(e2 < 0 ? -e2 : e2);
}

// Typed forms.
// The typed forms compile only the code their format needs: the 128-bit digits of
// exact_digits_fit_u128 formats without the big integers, and for p <= 24 the short shortest
// printing alone (same results: the run-time forms take these branches for such formats).
template <format F> std::string to_exact_decimal(fp<F> x) {
  return detail::to_exact_decimal_of<!detail::exact_digits_fit_u128(F)>(F, x.bits());
}
template <format F> std::string to_shortest(fp<F> x) {
  if constexpr (F.precision <= 24) return detail::to_shortest_narrow(F, x.bits());
  else return to_shortest(F, x.bits());
}
template <format F> std::string to_fixed(fp<F> x, int digits_after_point, const env& e = {}) {
  return to_fixed(F, x.bits(), digits_after_point, e);
}
template <format F> std::string to_scientific(fp<F> x, int digits_after_point, const env& e = {}) {
  return to_scientific(F, x.bits(), digits_after_point, e);
}
template <format F> std::string to_hex(fp<F> x) { return to_hex(F, x.bits()); }

}  // namespace lf
