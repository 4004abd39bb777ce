// Decimal and hex-float text in and out (libfloat/core/decimal.hpp), the quick suite (label quick).
//
// Expected results come from tests/support/oracle.hpp (exact rationals, independent rounding) via
// decimal_test_support.hpp (its own decimal reader and writer on cpp_int), from std::to_chars /
// std::from_chars / strtod for binary32 and binary64, or from hand derivations in the comments.
// The exhaustive suite (test_decimal_exhaustive.cpp) runs the per-encoding checks over every
// 16-bit encoding and a million binary32 ones.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "decimal_test_support.hpp"
#include "encoding_checks.hpp"
#include "../support/sanitizer.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dectest::format_pair;
using lf::rounding;
using lf::status;

std::uint64_t bits_of(const lf::format& f, std::string_view s, lf::env e = {}, status* st = nullptr) {
  const auto r = lf::parse(f, s, e, st);
  REQUIRE_MESSAGE(static_cast<bool>(r), "parse(\"" << s << "\"): " << r.error.message());
  return r.value;
}

/// A random decimal string: 1..60 digits, a point anywhere or nowhere, an optional exponent in
/// [lo, hi], a random sign, random case and spelling of the exponent marker.
std::string random_decimal(std::mt19937_64& rng, long lo, long hi) {
  std::uniform_int_distribution<int> len(1, 60), digit(0, 9), coin(0, 3);
  std::string s;
  if (coin(rng) == 0) s += '-';
  else if (coin(rng) == 0) s += '+';
  const int n = len(rng);
  const int point = std::uniform_int_distribution<int>(-1, n)(rng);  // -1: none
  for (int i = 0; i < n; ++i) {
    if (i == point) s += '.';
    // short runs of zeros and nines make near-ties and carries likely
    const int kind = coin(rng);
    s += static_cast<char>('0' + (kind == 0 ? 0 : kind == 1 ? 9 : digit(rng)));
  }
  if (point == n) s += '.';
  if (coin(rng) != 0) {
    s += coin(rng) == 0 ? 'E' : 'e';
    const long e = std::uniform_int_distribution<long>(lo, hi)(rng);
    if (e >= 0 && coin(rng) == 0) s += '+';
    s += std::to_string(e);
  }
  return s;
}

/// Decimal exponents that reach from far below the smallest subnormal to far above the maximum.
std::pair<long, long> exponent_range(const lf::format& f) {
  const long lo = static_cast<long>(std::floor((f.emin() - f.precision) * 0.30103)) - 75;
  const long hi = static_cast<long>(std::ceil((f.emax() + 1) * 0.30103)) + 10;
  return {lo, hi};
}

const format_pair* const oracle_formats[] = {&dectest::binary16, &dectest::bfloat16, &dectest::binary32,
                                             &dectest::binary64, &dectest::e4m3};

}  // namespace

// ---- parsing: accepted inputs --------------------------------------------------------------------

TEST_CASE("parse: decimal of any length and exponent, hex floats, specials") {
  struct row {
    const char* text;
    std::uint64_t bits;
    status flags;
  };
  const row rows[] = {
      {"0.1", 0x2E66, status::inexact},  // 0.0999755859375 = 1638 * 2^-14; next up 0.10009765625
      {"-1e-10000", 0x8000, status::underflow | status::inexact},
      {"123456789012345678901234567890e-5", 0x7C00, status::overflow | status::inexact},  // 1.2e24 > 65504
      {"1234567890123456789012345678e-24", 0x64D3, status::inexact},  // 1234.5678...: ulp 1, -> 1235
      {".5", 0x3800, status::none},
      {"5.", 0x4500, status::none},
      {"+1.5E+3", 0x65DC, status::none},   // 1500 = 1.46484375 * 2^10: 0.11001.0111011100
      {"0x1.8p-3", 0x3200, status::none},  // 1.5 * 2^-3
      {"-0X.8P1", 0xBC00, status::none},   // -0.5 * 2 = -1
      {"0x10", 0x4C00, status::none},      // no p: 16
      {"0x1.ffcp15", 0x7BFF, status::none},
      {"0x1.ffep15", 0x7C00, status::overflow | status::inexact},  // max + ulp/2: a tie, rounds to inf
      {"inf", 0x7C00, status::none},
      {"-Infinity", 0xFC00, status::none},
      {"+INF", 0x7C00, status::none},
      {"nan", 0x7E00, status::none},
      {"-NaN", 0xFE00, status::none},
      {"snan", 0x7C01, status::none},
      {"-sNaN", 0xFC01, status::none},
      {"0", 0x0000, status::none},
      {"-0.000e99999", 0x8000, status::none},
      {"65504", 0x7BFF, status::none},
      {"65519.99999999999999999999999999999", 0x7BFF, status::inexact},
      {"65520", 0x7C00, status::overflow | status::inexact},
      {"5.9604644775390625e-8", 0x0001, status::none},  // 2^-24 exactly: min subnormal, exact so no underflow
      {"2.98023223876953125e-8", 0x0000, status::underflow | status::inexact},  // 2^-25: tie, to even (zero)
      {"2.980232238769531250000000000000000001e-8", 0x0001, status::underflow | status::inexact},
      {"0.00006103515625", 0x0400, status::none},  // 2^-14, min normal
      {"1e99999999999999999999999999", 0x7C00, status::overflow | status::inexact},
      {"1e-99999999999999999999999999", 0x0000, status::underflow | status::inexact},
      {"0e99999999999999999999999999", 0x0000, status::none},
  };
  for (const row& r : rows) {
    CAPTURE(r.text);
    status st{};
    const auto got = lf::parse<lf::binary16>(r.text, rounding::nearest_even, &st);
    REQUIRE(static_cast<bool>(got));
    CHECK(oracle::hex(got.value.bits(), 16) == oracle::hex(r.bits, 16));
    CHECK(lf::to_bits(st) == lf::to_bits(r.flags));
  }
}

TEST_CASE("parse: typed and run-time forms agree; env carries policies and random bits") {
  status a{}, b{};
  const auto typed = lf::parse<lf::bfloat16>("3.14159", rounding::upward, &a);
  const auto runtime = lf::parse(lf::bfloat16, "3.14159", rounding::upward, &b);
  CHECK(typed.value.bits() == runtime.value);
  CHECK(typed.value.bits() == 0x404A);  // 3.14159 = 1.1001001|0000111... * 2: up to 1.1001010 * 2 = 3.15625
  CHECK(a == b);
}

TEST_CASE("parse: special values in formats without infinity or signaling NaNs (E4M3)") {
  const lf::format f = lf::float8_e4m3fn;
  status st{};
  CHECK(bits_of(f, "nan", {}, &st) == 0x7F);
  CHECK(bits_of(f, "-nan") == 0xFF);
  CHECK(bits_of(f, "snan") == 0x7F);  // no signaling NaN: the quiet one
  CHECK(st == status::none);
  // "inf" is converted as convertFormat converts an infinity: NaN and invalid, or max under saturation
  CHECK(bits_of(f, "inf", {}, &st) == 0x7F);
  CHECK(st == status::invalid);
  const lf::env sat{rounding::nearest_even, lf::policy{.overflow = lf::overflow_policy::saturate}};
  CHECK(bits_of(f, "-inf", sat) == 0xFE);
  CHECK(bits_of(f, "1e9", sat) == 0x7E);  // 448
  // 464 = 1.1101b * 2^8 is the tie between 448 = 1.110b * 2^8 (max, even) and 480 = 1.111b * 2^8
  // (the NaN encoding). IEEE 754-2019 §7.4 rounds as if the exponent were unbounded: nearest_even
  // gives 448, finite, so inexact and no overflow. Anything above 464 rounds to 480: overflow, NaN.
  st = {};
  CHECK(bits_of(f, "464", {}, &st) == 0x7E);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "-464.000", {}, &st) == 0xFE);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "4.64e2", {}, &st) == 0x7E);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "0x1.dp8", {}, &st) == 0x7E);  // the same tie in hex
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "464.0000001", {}, &st) == 0x7F);
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "-464.0000001", {}, &st) == 0xFF);
  CHECK(st == (status::overflow | status::inexact));
  st = {};  // more digits than the fast path takes (the bignum path), a last nonzero digit far down
  CHECK(bits_of(f, "464.000000000000000000000000000000000000000000000000000000000000000000000001", {}, &st) == 0x7F);
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "464.000000000000000000000000000000000000000000000000000000000000000000000000", {}, &st) == 0x7E);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "464", rounding::nearest_away, &st) == 0x7F);  // the tie goes away, to 480: overflow
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "464", rounding::upward, &st) == 0x7F);
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "464", rounding::toward_zero, &st) == 0x7E);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(f, "-464", rounding::downward, &st) == 0xFF);
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "464.0000001", sat, &st) == 0x7E);  // saturated overflow: max finite, flags kept
  CHECK(st == (status::overflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "464", sat, &st) == 0x7E);  // not an overflow at all
  CHECK(st == status::inexact);
  CHECK(bits_of(f, "463.99999999999999999999") == 0x7E);
  // A custom "fn" format, e5m3fn {5, 4}: max 1.110b * 2^16 = 114688 = 0xFE, tie 118784 -> max.
  const lf::format e5m3fn{5, 4, lf::nonfinite::nan_only};
  st = {};
  CHECK(bits_of(e5m3fn, "118784", {}, &st) == 0xFE);
  CHECK(st == status::inexact);
  st = {};
  CHECK(bits_of(e5m3fn, "118784.5", {}, &st) == 0xFF);
  CHECK(st == (status::overflow | status::inexact));
  CHECK(bits_of(lf::format{2, 2}, "snan") == 0x7);  // p = 2: the only fraction bit is the quiet bit
}

TEST_CASE("parse: policies apply (flush to zero, tininess before rounding, saturation)") {
  const lf::format f = lf::binary16;
  status st{};
  const lf::env ftz{rounding::nearest_even, lf::policy{.results = lf::subnormal_results::flush_to_zero}};
  CHECK(bits_of(f, "1e-7", ftz, &st) == 0x0000);  // 1e-7 is subnormal in binary16: flushed
  CHECK(st == (status::underflow | status::inexact));
  // 0x1.ffep-15 rounds up to 2^-14 (min normal): tiny before rounding only
  const lf::env before{rounding::nearest_even, lf::policy{.tininess = lf::tininess::before_rounding}};
  st = {};
  CHECK(bits_of(f, "0x1.ffep-15", before, &st) == 0x0400);
  CHECK(st == (status::underflow | status::inexact));
  st = {};
  CHECK(bits_of(f, "0x1.ffep-15", {}, &st) == 0x0400);
  CHECK(st == status::inexact);
  const lf::env sat{rounding::nearest_even, lf::policy{.overflow = lf::overflow_policy::saturate}};
  CHECK(bits_of(f, "-1e10", sat) == 0xFBFF);
}

// ---- parsing: malformed input --------------------------------------------------------------------

TEST_CASE("parse: malformed input is an error value naming the offending character, never a partial number") {
  using lf::parse_errc;
  struct row {
    const char* text;
    parse_errc code;
    std::size_t position;
  };
  const row rows[] = {
      {"", parse_errc::empty, 0},
      {"1e", parse_errc::missing_exponent_digits, 2},
      {"1e+", parse_errc::missing_exponent_digits, 3},
      {"1e-x", parse_errc::missing_exponent_digits, 3},
      {"0x", parse_errc::missing_hex_digits, 2},
      {"0x.p1", parse_errc::missing_hex_digits, 3},
      {"0xg", parse_errc::missing_hex_digits, 2},
      {"1.2.3", parse_errc::trailing_characters, 3},
      {"--1", parse_errc::invalid_character, 1},
      {"+-1", parse_errc::invalid_character, 1},
      {"1x", parse_errc::trailing_characters, 1},
      {"0x1.8p", parse_errc::missing_exponent_digits, 6},
      {"0x1p-", parse_errc::missing_exponent_digits, 5},
      {"inf1", parse_errc::trailing_characters, 3},
      {"infinit", parse_errc::trailing_characters, 3},
      {"nan(1)", parse_errc::trailing_characters, 3},
      {".", parse_errc::missing_digits, 1},
      {"-.e5", parse_errc::missing_digits, 2},
      {"+", parse_errc::missing_digits, 1},
      {"e5", parse_errc::invalid_character, 0},
      {"x", parse_errc::invalid_character, 0},
      {" 1", parse_errc::invalid_character, 0},  // no surrounding whitespace
      {"1 ", parse_errc::trailing_characters, 1},
      {"1_000", parse_errc::trailing_characters, 1},
      {"1e5.5", parse_errc::trailing_characters, 3},
      {"0x1.8p-3x", parse_errc::trailing_characters, 8},
      {"1,5", parse_errc::trailing_characters, 1},
      {"\xC2\xBD", parse_errc::invalid_character, 0},
  };
  for (const row& r : rows) {
    CAPTURE(r.text);
    status st{};
    const auto got = lf::parse<lf::binary16>(r.text, rounding::nearest_even, &st);
    CHECK_FALSE(static_cast<bool>(got));
    CHECK(got.error.code == r.code);
    CHECK(got.error.position == r.position);
    CHECK(got.value.bits() == 0);  // never a partial number
    CHECK(st == status::none);
  }
  CHECK(lf::parse<lf::binary16>("1x").error.message() == "unexpected character 'x' at position 1; expected the end of the input");
  CHECK(lf::parse<lf::binary16>("1e").error.message() == "unexpected end of input at position 2; expected an exponent digit");
  CHECK(lf::parse<lf::binary16>("--1").error.message() ==
        "unexpected character '-' at position 1; expected a digit, '.', 'inf', 'infinity', 'nan' or 'snan'");
  CHECK(lf::parse<lf::binary16>("0x").error.message() == "unexpected end of input at position 2; expected a hexadecimal digit");
  CHECK(lf::parse<lf::binary16>("").error.message() == "empty input; expected a number");
  CHECK(lf::parse<lf::binary16>("\xC2\xBD").error.message() ==
        "unexpected byte 0xC2 at position 0; expected a digit, '.', 'inf', 'infinity', 'nan' or 'snan'");
  CHECK(lf::parse<lf::binary16>("1").error.message() == "no error");
}

// ---- the double-rounding trap ------------------------------------------------------------------------

TEST_CASE("double rounding: 1 + 2^-11 + 1e-40 parses to 0x3C01, but through double it becomes 0x3C00") {
  // 1.00048828125 = 1 + 2^-11 is the exact midpoint between fp16 1.0 (0x3C00) and 1 + 2^-10
  // (0x3C01). Anything above it rounds up. In binary64 the 1e-40 is far below half an ulp
  // (2^-53), so strtod gives the midpoint itself, and rounding that to fp16 is a tie that goes to
  // the even neighbour 0x3C00: the second rounding undoes the first one's information.
  const char* text = "1.0004882812500000000000000000000000000001";
  const double through_double = std::strtod(text, nullptr);
  CHECK(through_double == 1.00048828125);
  CHECK(lf::fp16(through_double).bits() == 0x3C00);      // half.hpp-style: parse through double, round again
  CHECK(lf::parse<lf::binary16>(text).value.bits() == 0x3C01);  // one rounding, straight to binary16
  CHECK(dectest::expected(oracle::binary16, text, rounding::nearest_even).bits == 0x3C01);
  // ... and just below the midpoint both agree on 0x3C00.
  CHECK(lf::parse<lf::binary16>("1.0004882812499999999999999999999999999999").value.bits() == 0x3C00);
}

TEST_CASE("trap: fp16 midpoints plus or minus 1e-40 land on the correct side in every mode") {
  std::mt19937_64 rng(3);
  long long checked = 0;
  for (int i = 0; i < 400; ++i) {
    // a random positive finite fp16 below max, and its midpoint to the next one up
    const auto b = static_cast<std::uint64_t>(std::uniform_int_distribution<int>(0, 0x7BFE)(rng));
    const oracle::operand o = oracle::decode(oracle::binary16, b);
    const long q = o.value.is_zero() ? -24 : dectest::quantum(oracle::binary16, o.value);
    const dectest::cpp_int c = o.value.is_zero() ? 0 : dectest::cpp_int(o.value.num << static_cast<unsigned>(o.value.exp - q));
    const dectest::decimal mid = dectest::decimal_of_dyadic(false, 2 * c + 1, q - 1);
    // mid +- 1e-40: mid has at most 25 fraction digits here, so 10^-40 is below its last digit
    REQUIRE(mid.L < 40);
    const dectest::decimal above = mid.nudged(+1, 40 - mid.L), below = mid.nudged(-1, 40 - mid.L);
    for (rounding r : lf::deterministic_roundings) {
      CAPTURE(above.text());
      const std::uint64_t up = lf::parse(lf::binary16, above.text(), r).value;
      const std::uint64_t down = lf::parse(lf::binary16, below.text(), r).value;
      CHECK(up == dectest::expected(oracle::binary16, above.text(), r).bits);
      CHECK(down == dectest::expected(oracle::binary16, below.text(), r).bits);
      if (r == rounding::nearest_even || r == rounding::nearest_away) {
        CHECK(up == b + 1);
        CHECK(down == b);
      }
      checked += 2;
    }
  }
  CHECK(checked == 4800);
}

// ---- parsing against the exact-rational oracle ---------------------------------------------------

TEST_CASE("parse: random decimal strings of 1..60 digits, wide exponents, every deterministic mode, against the oracle") {
  std::mt19937_64 rng(20240603);
  long long n = 0, bad = 0;
  for (const format_pair* fp : oracle_formats) {
    const auto [lo, hi] = exponent_range(fp->f);
    for (int i = 0; i < 700; ++i) {
      const std::string s = random_decimal(rng, lo, hi);
      for (rounding r : lf::deterministic_roundings) {
        status st{};
        const auto got = lf::parse(fp->f, s, r, &st);
        const oracle::result want = dectest::expected(fp->t, s, r);
        ++n;
        if (!got || got.value != want.bits || lf::to_bits(st) != want.flags) {
          if (++bad <= 10)
            FAIL_CHECK(fp->name << " \"" << s << "\" " << lf::rounding_name(r) << ": " << oracle::hex(got.value, fp->f.bits())
                                << " flags " << int(lf::to_bits(st)) << ", oracle " << oracle::hex(want.bits, fp->f.bits())
                                << " flags " << int(want.flags));
        }
      }
    }
  }
  CHECK(bad == 0);
  MESSAGE(n << " parses compared with the oracle");
}

TEST_CASE("parse: stochastic rounding uses env.random exactly as rounding.hpp defines it (oracle)") {
  std::mt19937_64 rng(77);
  long long bad = 0;
  for (const format_pair* fp : oracle_formats) {
    const auto [lo, hi] = exponent_range(fp->f);
    for (int i = 0; i < 300; ++i) {
      const std::string s = random_decimal(rng, lo, hi);
      const auto rnd = static_cast<std::uint32_t>(rng());
      status st{};
      const auto got = lf::parse(fp->f, s, lf::env{rounding::stochastic, {}, rnd}, &st);
      const oracle::result want = oracle::round_stochastic(dectest::exact_of_decimal(s), fp->t, rnd);
      if (got.value != want.bits || lf::to_bits(st) != want.flags)
        if (++bad <= 10) FAIL_CHECK(fp->name << " \"" << s << "\" random " << rnd);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("parse: hex floats of any length against the oracle") {
  std::mt19937_64 rng(5);
  long long bad = 0;
  for (const format_pair* fp : oracle_formats) {
    for (int i = 0; i < 300; ++i) {
      // H * 2^e with up to 40 hex digits; the oracle reads it as an exact dyadic
      const int n = std::uniform_int_distribution<int>(1, 40)(rng);
      std::string digits;
      dectest::cpp_int H = 0;
      for (int j = 0; j < n; ++j) {
        const int v = std::uniform_int_distribution<int>(0, 15)(rng);
        digits += "0123456789abcdef"[v];
        H = H * 16 + v;
      }
      const long e = std::uniform_int_distribution<long>(fp->t.emin - 4 * n - 70, fp->t.emax + 10)(rng);
      const std::string s = "0x" + digits + "p" + std::to_string(e);
      const oracle::exact x = H == 0 ? oracle::exact::zero(false) : oracle::exact::dyadic(false, H, e);
      for (rounding r : lf::deterministic_roundings) {
        status st{};
        const auto got = lf::parse(fp->f, s, r, &st);
        const oracle::result want = oracle::round(x, fp->t, dectest::to_oracle(r));
        if (got.value != want.bits || lf::to_bits(st) != want.flags)
          if (++bad <= 10) FAIL_CHECK(fp->name << " \"" << s << "\" " << lf::rounding_name(r));
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("parse: very long digit strings and huge exponents are exact and quick") {
  // The binary64 midpoint between 1 and 1 + 2^-52, written out, with a 1 appended after 10000 zeros.
  const std::string mid = "1.00000000000000011102230246251565404236316680908203125";
  const std::string above = mid + std::string(10000, '0') + "1";
  const std::string below = "1.00000000000000011102230246251565404236316680908203124" + std::string(10000, '9');
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(bits_of(lf::binary64, mid) == 0x3FF0000000000000);  // tie to even
  CHECK(bits_of(lf::binary64, above) == 0x3FF0000000000001);
  CHECK(bits_of(lf::binary64, below) == 0x3FF0000000000000);
  CHECK(bits_of(lf::binary64, mid, rounding::nearest_away) == 0x3FF0000000000001);
  // binary16 1 + 2^-11 with 100000 more digits
  CHECK(bits_of(lf::binary16, "1.00048828125" + std::string(100000, '0') + "1") == 0x3C01);
  CHECK(bits_of(lf::binary16, "0." + std::string(100000, '0') + "2e100003") == 0x5A40);  // 200 = 1.5625 * 2^7
  // enormous exponents are clamped before any big arithmetic
  status st{};
  CHECK(bits_of(lf::binary64, "1e-400", rounding::upward, &st) == 0x0000000000000001);
  CHECK(st == (status::underflow | status::inexact));
  CHECK(bits_of(lf::binary64, "-1e400", rounding::toward_zero) == 0xFFEFFFFFFFFFFFFF);
  CHECK(bits_of(lf::binary64, "123e-99999999999", rounding::odd) == 0x0000000000000001);
  CHECK(bits_of(lf::binary64, "0.000000000000000000001e99999999999") == 0x7FF0000000000000);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(ms < 2000);
  MESSAGE("long inputs: " << ms << " ms");
  // against the oracle too, for a value right at the edge of binary64's subnormal range
  const std::string edge = "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324";
  for (rounding r : lf::deterministic_roundings)
    CHECK(lf::parse(lf::binary64, edge, r).value == dectest::expected(oracle::binary64, edge, r).bits);
}

// ---- output ----------------------------------------------------------------------------------------

TEST_CASE("output: exact, shortest, fixed, scientific and hex text of known values") {
  const auto h = lf::fp16::from_bits(0x2E66);  // 1638 * 2^-14 = 0.0999755859375
  CHECK(lf::to_exact_decimal(h) == "0.0999755859375");
  CHECK(lf::to_shortest(h) == "0.1");
  CHECK(lf::to_fixed(h, 3) == "0.100");
  CHECK(lf::to_fixed(h, 3, rounding::toward_zero) == "0.099");
  CHECK(lf::to_fixed(h, 13) == "0.0999755859375");
  CHECK(lf::to_fixed(h, 15) == "0.099975585937500");
  CHECK(lf::to_fixed(h, 0) == "0");
  CHECK(lf::to_scientific(h, 3) == "9.998e-02");
  CHECK(lf::to_scientific(h, 2) == "1.00e-01");  // 9.9976 rounds up into the next decade
  CHECK(lf::to_scientific(h, 2, rounding::downward) == "9.99e-02");
  CHECK(lf::to_hex(h) == "0x1.998p-4");
  CHECK(lf::to_exact_decimal(-h) == "-0.0999755859375");
  // bfloat16 max = (2 - 2^-7) * 2^127: all 39 digits
  CHECK(lf::to_exact_decimal(lf::bf16::from_bits(0x7F7F)) == "338953138925153547590470800371487866880");
  CHECK(lf::to_shortest(lf::bf16::from_bits(0x7F7F)) == "3.39e+38");
  // binary16 extremes
  CHECK(lf::to_shortest(lf::fp16::from_bits(0x7BFF)) == "65504");  // fixed: an integer prints in full
  CHECK(lf::to_shortest(lf::fp16::from_bits(0x0001)) == "6e-08");  // 2^-24
  CHECK(lf::to_exact_decimal(lf::fp16::from_bits(0x0001)) == "0.000000059604644775390625");
  CHECK(lf::to_hex(lf::fp16::from_bits(0x0001)) == "0x1p-24");
  CHECK(lf::to_hex(lf::fp16::from_bits(0x0003)) == "0x1.8p-23");
  CHECK(lf::to_hex(lf::fp16::from_bits(0x3C00)) == "0x1p+0");
  CHECK(lf::to_hex(lf::fp16::from_bits(0x8000)) == "-0x0p+0");
  CHECK(lf::to_hex(lf::fp8_e4m3::from_bits(0x7E)) == "0x1.cp+8");  // 448 = 1.75 * 2^8
  CHECK(lf::to_shortest(lf::fp16::from_bits(0x8000)) == "-0");
  CHECK(lf::to_exact_decimal(lf::fp16::from_bits(0x0000)) == "0");
  CHECK(lf::to_fixed(lf::fp16::from_bits(0x8000), 2) == "-0.00");
  CHECK(lf::to_scientific(lf::fp16::from_bits(0x0000), 2) == "0.00e+00");
  CHECK(lf::to_shortest(lf::fp16::from_bits(0x7C00)) == "inf");
  CHECK(lf::to_shortest(lf::fp16::from_bits(0xFE00)) == "-nan");
  CHECK(lf::to_exact_decimal(lf::fp16::from_bits(0x7C01)) == "snan");
  CHECK(lf::to_fixed(lf::fp16::from_bits(0xFC00), 3) == "-inf");
  // decimal rounding directions: -2.5 at 0 decimals
  const auto m = lf::fp16(-2.5);
  CHECK(lf::to_fixed(m, 0) == "-2");
  CHECK(lf::to_fixed(m, 0, rounding::nearest_away) == "-3");
  CHECK(lf::to_fixed(m, 0, rounding::upward) == "-2");
  CHECK(lf::to_fixed(m, 0, rounding::downward) == "-3");
  CHECK(lf::to_fixed(m, 0, rounding::odd) == "-3");
  CHECK(lf::to_fixed(lf::fp16(2.25), 1, lf::env{rounding::stochastic, {}, 0x7FFFFFFF}) == "2.3");  // D = 0.5 * 2^32
  CHECK(lf::to_fixed(lf::fp16(2.25), 1, lf::env{rounding::stochastic, {}, 0x80000000}) == "2.2");
  CHECK(lf::to_fixed(lf::fp16(-1.0), -3) == "-1");
  // binary64 extremes go through the big-integer paths
  CHECK(lf::to_exact_decimal(lf::fp64::from_bits(1)).size() == 2 + 1074);  // 2^-1074 = 5^1074 / 10^1074: "0." and 1074 places
  CHECK(lf::to_shortest(lf::fp64::from_bits(1)) == "5e-324");
  CHECK(lf::to_shortest(lf::fp64::from_bits(0x7FEFFFFFFFFFFFFF)) == "1.7976931348623157e+308");
}

TEST_CASE("binary32: to_shortest, to_fixed and to_scientific equal std::to_chars; from_chars reads them back") {
  std::mt19937_64 rng(32);
  std::vector<std::uint32_t> cases = {0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0x3DCCCCCD,
                                      0x4B189680, 0x501502F9, 0x4CBEBC20, 0x49742400, 0x47C35000, 0x38D1B717,
                                      0x57D98E95};  // its interval's excluded lower end is a multiple of 10^7
  for (int i = 0; i < 200000; ++i) cases.push_back(static_cast<std::uint32_t>(rng()));
  for (int e = -45; e <= 38; ++e) {  // powers of ten and their neighbours: round shortest outputs
    const float v = std::strtof(("1e" + std::to_string(e)).c_str(), nullptr);
    const auto b = std::bit_cast<std::uint32_t>(v);
    for (std::uint32_t d : {b - 1, b, b + 1}) cases.push_back(d);
  }
  long long bad = 0;
  char buf[256];
  for (std::uint32_t b : cases) {
    const float v = std::bit_cast<float>(b);
    if (std::isnan(v)) continue;
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    const std::string want(buf, r.ptr);
    const std::string got = lf::to_shortest(lf::binary32, b);
    if (got != want && ++bad <= 10) FAIL_CHECK(oracle::hex(b, 32) << ": to_chars " << want << ", to_shortest " << got);
    float back = 0;
    std::from_chars(got.data(), got.data() + got.size(), back);
    if (std::bit_cast<std::uint32_t>(back) != b && ++bad <= 10) FAIL_CHECK("from_chars(" << got << ")");
    if (lf::parse(lf::binary32, got).value != b && ++bad <= 10) FAIL_CHECK("parse(" << got << ")");
    if ((b & 63) == 0) {  // fixed and scientific with a precision, on a sixty-fourth of them
      for (int prec : {0, 1, 3, 8, 17, 60}) {
        const auto rs = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, prec);
        if (lf::to_scientific(lf::binary32, b, prec) != std::string(buf, rs.ptr) && ++bad <= 10)
          FAIL_CHECK(oracle::hex(b, 32) << " scientific " << prec << ": " << std::string(buf, rs.ptr));
        const auto rf = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, prec);  // <= 39 + 1 + 60 chars
        if (lf::to_fixed(lf::binary32, b, prec) != std::string(buf, rf.ptr) && ++bad <= 10)
          FAIL_CHECK(oracle::hex(b, 32) << " fixed " << prec << ": " << std::string(buf, rf.ptr));
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("binary64: to_shortest reads back with strtod and agrees with std::to_chars(double)") {
  std::mt19937_64 rng(64);
  long long bad = 0;
  char buf[64];
  for (int i = 0; i < 3000; ++i) {
    const std::uint64_t b = rng();
    const double v = std::bit_cast<double>(b);
    if (std::isnan(v)) continue;
    const std::string got = lf::to_shortest(lf::binary64, b);
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    if (got != std::string(buf, r.ptr) && ++bad <= 10) FAIL_CHECK(oracle::hex(b, 64) << ": " << got << " vs " << std::string(buf, r.ptr));
    if (std::bit_cast<std::uint64_t>(std::strtod(got.c_str(), nullptr)) != b && ++bad <= 10) FAIL_CHECK("strtod(" << got << ")");
  }
  CHECK(bad == 0);
}

TEST_CASE("every E4M3 and E5M2 encoding: shortest, exact and hex text read back; midpoints round by the mode") {
  std::mt19937_64 rng(8);
  for (const format_pair* fp : {&dectest::e4m3, &dectest::e5m2}) {
    dectest::encoding_stats st;
    for (std::uint64_t b = 0; b < 256; ++b) dectest::check_encoding(*fp, b, st, rng);
    st.report();
    CHECK(st.failures == 0);
    CHECK(st.encodings == 256);
    MESSAGE(std::string(fp->name) << ": " << st.parses << " parses checked");
  }
}

// The shortest-digits search (to_shortest's digits) must use the parser's interval. e4m5fn
// {4, 6, nan_only}: max 1.11110b * 2^8 = 496 = 0x1FE, ulp 8. The reals that parse (nearest_even)
// to 496 are [492, 500]: 492 ties between 488 (1.11101b, odd) and 496 (even), and 500 ties between
// 496 and 504 = 1.11111b * 2^8 (the NaN encoding, odd): both go to 496, so the interval is closed
// and 500 = 5e2 (one digit) is its shortest member. (to_shortest still prints "496": fixed
// notation writes an integer in full.) Both the p <= 24 search and the general one are asked.
TEST_CASE("shortest digits of a no-infinity format's max finite include the tie above it (e4m5fn 496 -> 5e2)") {
  const lf::format e4m5fn{4, 6, lf::nonfinite::nan_only};
  status st{};
  CHECK(bits_of(e4m5fn, "500", {}, &st) == 0x1FE);
  CHECK(st == status::inexact);
  CHECK(bits_of(e4m5fn, "492") == 0x1FE);
  const lf::detail::unpacked x = lf::detail::unpack(e4m5fn, 0x1FE);
  const lf::detail::decimal_digits small = lf::detail::shortest_digits_small(e4m5fn, x);
  CHECK(static_cast<std::uint64_t>(small.digits) == 5);
  CHECK(small.exponent == 2);
  const lf::detail::decimal_digits general = lf::detail::shortest_digits(e4m5fn, x);
  CHECK(static_cast<std::uint64_t>(general.digits) == 5);
  CHECK(general.exponent == 2);
  CHECK(lf::to_shortest(e4m5fn, 0x1FE) == "496");
  CHECK(lf::to_shortest(e4m5fn, 0x3FE) == "-496");
}

TEST_CASE("operator<< prints the shortest text") {
  std::ostringstream os;
  os << lf::fp16(0.1) << ' ' << lf::bf16(3.14159) << ' ' << lf::fp32(1e10f) << ' ' << lf::fp8_e4m3(448.0) << ' '
     << lf::fp16::from_bits(0xFC00);
  CHECK(os.str() == "0.1 3.14 1e+10 448 -inf");
}

namespace {
// The typed output functions against the run-time ones, which the other cases check against the
// oracle: every encoding of a format with at most 2^16 of them, else the extremes and random bits.
template <lf::format F>
void check_typed_output(std::uint64_t samples) {
  using T = lf::fp<F>;
  const std::uint64_t count = F.bits() >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << F.bits();
  std::mt19937_64 rng(F.bits() * 131 + F.precision);
  std::size_t checked = 0, differ = 0;
  auto one = [&](std::uint64_t b) {
    const T x = T::from_bits(static_cast<typename T::storage_type>(b));
    const bool same = lf::to_exact_decimal(x) == lf::to_exact_decimal(F, b) && lf::to_shortest(x) == lf::to_shortest(F, b);
    if (!same && differ++ < 3) FAIL_CHECK("encoding " << b << ": " << lf::to_exact_decimal(x) << " vs " << lf::to_exact_decimal(F, b));
    ++checked;
  };
  if (count <= 65536) {
    for (std::uint64_t b = 0; b < count; ++b) one(b);
  } else {
    // zeros, the smallest subnormals, the largest finite values, both signs; then random bits
    const std::uint64_t max_finite = F.max_finite_bits();
    for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, max_finite, max_finite - 1})
      for (std::uint64_t s : {std::uint64_t{0}, F.sign_mask()}) one(b | s);
    for (std::uint64_t i = 0; i < samples; ++i) one(rng() & F.encoding_mask());
  }
  INFO(F.exponent_bits << " exponent bits, p = " << F.precision << ": " << checked << " encodings");
  CHECK(differ == 0);
}
}  // namespace

TEST_CASE("typed to_exact_decimal and to_shortest equal the run-time forms (they compile only their format's branches)") {
  // exact_digits_fit_u128: the 128-bit branches hold every value of the format. Independently:
  // the largest value needs emax + 1 bits, the smallest subnormal 5^m with m = p - 1 - emin
  // digits-scaled, p + bit_width(5^m) bits; 5^m below 2^128 needs m <= 55. Formats on both sides
  // of the bound, so that a wrong bound shows as a wrong digit below (the typed form would
  // overflow 128 bits where the run-time form switches to big integers).
  auto bits_of_pow5 = [](int m) {  // bit_width(5^m) by exact doubling count, no table
    lf::detail::u128 v = 1;
    for (int i = 0; i < m; ++i) v *= 5;
    return lf::detail::bit_width(v);
  };
  auto fits = [&](const lf::format& f) {
    const int m = f.precision - 1 - f.emin();
    return f.emax() + 1 <= 127 && m <= 55 && f.precision + bits_of_pow5(m) <= 128;
  };
  for (const lf::format& f : {lf::binary16, lf::bfloat16, lf::binary32, lf::binary64, lf::float8_e4m3fn, lf::float8_e5m2,
                              lf::format{6, 11}, lf::format{6, 16}, lf::format{6, 20}, lf::format{7, 11}, lf::format{3, 3}}) {
    INFO(f.exponent_bits << " exponent bits, p = " << f.precision);
    CHECK(lf::detail::exact_digits_fit_u128(f) == fits(f));
  }
  CHECK(lf::detail::exact_digits_fit_u128(lf::binary16));
  CHECK(lf::detail::exact_digits_fit_u128(lf::format{6, 16}));   // 16 + bit_width(5^45) = 121 bits
  CHECK(!lf::detail::exact_digits_fit_u128(lf::format{6, 20}));  // 20 + bit_width(5^49) = 134 bits
  const std::uint64_t n = static_cast<std::uint64_t>(test_sanitizer::scaled(20000, 8));
  check_typed_output<lf::binary16>(n);
  check_typed_output<lf::bfloat16>(n);
  check_typed_output<lf::float8_e4m3fn>(n);
  check_typed_output<lf::float8_e5m2>(n);
  check_typed_output<lf::format{3, 3}>(n);
  check_typed_output<lf::format{6, 16}>(n);  // the widest fitting one: 2^22 encodings, sampled
  check_typed_output<lf::format{6, 20}>(n);
  check_typed_output<lf::binary32>(n);
  check_typed_output<lf::binary64>(n);
}

TEST_CASE("sampled binary16, bfloat16 and binary32 encodings: the exhaustive suite's per-encoding checks") {
  std::mt19937_64 rng(16);
  for (const format_pair* fp : {&dectest::binary16, &dectest::bfloat16, &dectest::binary32}) {
    dectest::encoding_stats st;
    // 1500 random encodings (375 under AddressSanitizer; decimal_exhaustive checks them all in release).
    for (int i = 0; i < test_sanitizer::scaled(1500, 4); ++i) dectest::check_encoding(*fp, rng() & fp->f.encoding_mask(), st, rng);
    st.report();
    CHECK(st.failures == 0);
  }
}

TEST_CASE("custom formats (a format is data): very wide e15m48, tiny e3m2, e4m2fn and e2m1 against the oracle") {
  // The oracle's description of a format, from the IEEE 754 layout rules rather than lf::format's
  // members: bias = 2^(w-1) - 1, emin = 1 - bias, emax = bias (one more without infinity).
  auto spec = [](int w, int p, bool nan_only) {
    const int bias = (1 << (w - 1)) - 1;
    return oracle::target{p, 1 - bias, nan_only ? bias + 1 : bias, 1 + w + p - 1, nan_only};
  };
  const format_pair formats[] = {
      {"e15m48", lf::format{15, 49}, spec(15, 49, false)},
      {"e3m2", lf::format{3, 3}, spec(3, 3, false)},
      {"e4m2fn", lf::format{4, 3, lf::nonfinite::nan_only}, spec(4, 3, true)},
      {"e2m1", lf::format{2, 2}, spec(2, 2, false)},
  };
  std::mt19937_64 rng(15);
  for (const format_pair& fp : formats) {
    CAPTURE(fp.name);
    dectest::encoding_stats st;
    // e15m48's extreme values have 10^4 significant digits: a few of them go a long way (a quarter
    // of the random ones under AddressSanitizer; the 8-bit formats' encodings are all checked).
    const std::uint64_t count = fp.f.bits() <= 8 ? std::uint64_t{1} << fp.f.bits() : test_sanitizer::scaled<std::uint64_t>(25, 4);
    for (std::uint64_t i = 0; i < count; ++i) dectest::check_encoding(fp, fp.f.bits() <= 8 ? i : rng() & fp.f.encoding_mask(), st, rng);
    const auto [lo, hi] = exponent_range(fp.f);
    for (int i = 0; i < test_sanitizer::scaled(fp.f.bits() <= 8 ? 300 : 60, 4); ++i) {
      const std::string s = random_decimal(rng, lo, hi);
      for (rounding r : lf::deterministic_roundings) dectest::detail::check_parse(fp, s, r, st);
    }
    st.report();
    CHECK(st.failures == 0);
  }
}
