// Every binary16, bfloat16, OCP E4M3 and E5M2 encoding through every unary operation and every
// conversion, in every deterministic rounding direction, result bits and flags, against the
// exact-rational oracle (tests/support/oracle.hpp), which shares no code with libfloat.
//
//   mode-free:   abs, neg, copysign, classify, next_up, next_down, ulp
//   per mode:    sqrt, roundToIntegral (exact and not), convertToInteger(Exact) into
//                int32/int64/uint32/uint64, convertFormat into binary16, bfloat16, E4M3, E5M2,
//                binary32, binary64, tf32
//   conversions from the wide formats into the small ones: every tf32 encoding; binary32 and
//                binary64 inputs with every leading 16 bits and the trailing bits that decide a
//                rounding (exact, tie, just below / above a tie, sticky only)
//   convertFromInt into the small formats
//   stochastic rounding: the decision is exactly "random < D, the first 32 discarded bits", so
//                over 256 evenly spaced random words the round-up count is ceil(D / 2^24)
#include "exhaustive_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace {

using ex::collector;
using ex::fmt;
using oracle::cpp_int;

std::string hx(const fmt& f, std::uint64_t v) { return ex::hex(v, f.ora.bits); }

/// The value of a non-NaN encoding as a double (every value of the small formats is one),
/// computed from the oracle's exact decoding.
double value_of(const fmt& f, std::uint64_t a) {
  const oracle::operand o = oracle::decode(f.ora, a);
  if (o.value.is_inf()) return o.neg ? -INFINITY : INFINITY;
  if (o.value.is_zero()) return o.neg ? -0.0 : 0.0;
  const double m = std::ldexp(static_cast<double>(o.value.num), static_cast<int>(o.value.exp));
  return o.neg ? -m : m;
}

// ---- sign operations and classification ---------------------------------------------------------

/// §5.7.2 class, from the oracle's decoding and the exponent field.
lf::fp_class class_oracle(const fmt& f, std::uint64_t a) {
  const oracle::operand o = oracle::decode(f.ora, a);
  if (o.nan) return o.snan ? lf::fp_class::signaling_nan : lf::fp_class::quiet_nan;
  if (o.value.is_inf()) return o.neg ? lf::fp_class::negative_infinity : lf::fp_class::positive_infinity;
  if (o.value.is_zero()) return o.neg ? lf::fp_class::negative_zero : lf::fp_class::positive_zero;
  const bool subnormal = ((a >> (f.ora.p - 1)) & f.ora.exp_field_max()) == 0;
  if (subnormal) return o.neg ? lf::fp_class::negative_subnormal : lf::fp_class::positive_subnormal;
  return o.neg ? lf::fp_class::negative_normal : lf::fp_class::positive_normal;
}

TEST_CASE("every binary16/bfloat16/E4M3/E5M2 encoding: abs, neg, copysign flip only the sign bit; classify") {
  for (const fmt* fp : ex::small_formats) {
    const fmt& f = *fp;
    collector c(std::string(f.name) + " abs/neg/copysign/classify");
    const std::uint64_t s = f.ora.sign_mask();
    for (std::uint64_t a = 0; a < f.count(); ++a) {
      c.check(lf::abs(f.lib, a) == (a & ~s), [&] { return "abs " + hx(f, a); });
      c.check(lf::neg(f.lib, a) == (a ^ s), [&] { return "neg " + hx(f, a); });
      c.check(lf::copysign(f.lib, a, 0) == (a & ~s), [&] { return "copysign(" + hx(f, a) + ", +0)"; });
      c.check(lf::copysign(f.lib, a, s | 1) == (a | s), [&] { return "copysign(" + hx(f, a) + ", -x)"; });
      c.check(lf::classify(f.lib, a) == class_oracle(f, a), [&] {
        return "classify " + hx(f, a) + ": lf " + std::string(lf::class_name(lf::classify(f.lib, a))) + ", oracle " +
               std::string(lf::class_name(class_oracle(f, a)));
      });
    }
    c.report();
  }
}

// ---- next_up / next_down / ulp --------------------------------------------------------------------

/// All non-NaN encodings sorted by value: nextUp(x) is the first entry above x (§5.3.1).
struct ordered {
  std::vector<std::pair<double, std::uint64_t>> v;
  explicit ordered(const fmt& f) {
    for (std::uint64_t a = 0; a < f.count(); ++a)
      if (!oracle::decode(f.ora, a).nan) v.emplace_back(value_of(f, a), a);
    std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  }
};

/// §5.3.1 nextUp / nextDown. A NaN comes back quiet (invalid if signaling). A zero result takes the
/// sign that keeps nextDown(x) = -nextUp(-x): nextUp(-min subnormal) = -0, nextDown(+min) = +0.
/// Above +max of a format without infinity there is only its NaN: that is the documented result.
oracle::result next_oracle(const fmt& f, const ordered& ord, std::uint64_t a, bool up) {
  const oracle::operand o = oracle::decode(f.ora, a);
  if (o.nan) return {oracle::quiet(f.ora, a), o.snan ? oracle::flag::invalid : oracle::flag::none};
  const double x = value_of(f, a);
  const std::uint64_t s = f.ora.sign_mask();
  if (up) {
    auto it = std::upper_bound(ord.v.begin(), ord.v.end(), x, [](double val, const auto& e) { return val < e.first; });
    if (it == ord.v.end()) return {f.ora.nan_only ? f.ora.top_bits() : a, oracle::flag::none};  // +inf, or NaN
    return {it->first == 0 ? s : it->second, oracle::flag::none};
  }
  auto it = std::lower_bound(ord.v.begin(), ord.v.end(), x, [](const auto& e, double val) { return e.first < val; });
  if (it == ord.v.begin()) return {f.ora.nan_only ? s | f.ora.top_bits() : a, oracle::flag::none};
  --it;
  return {it->first == 0 ? 0 : it->second, oracle::flag::none};
}

/// ulp(x) = 2^(max(e, emin) - p + 1), e = floor(log2 |x|); ulp(0) is the smallest subnormal.
std::uint64_t ulp_oracle(const fmt& f, std::uint64_t a) {
  const oracle::operand o = oracle::decode(f.ora, a);
  if (o.nan) return oracle::quiet(f.ora, a);
  if (o.value.is_inf()) return f.ora.top_bits();
  const long e = o.value.is_zero() ? f.ora.emin : std::max<long>(oracle::detail::floor_log2(o.value), f.ora.emin);
  return oracle::round(oracle::exact::dyadic(false, 1, e - (f.ora.p - 1)), f.ora, oracle::mode::nearest_even).bits;
}

TEST_CASE("every binary16/bfloat16/E4M3/E5M2 encoding: next_up, next_down against the sorted value table; ulp") {
  for (const fmt* fp : ex::small_formats) {
    const fmt& f = *fp;
    const ordered ord(f);
    collector c(std::string(f.name) + " next_up/next_down/ulp");
    for (std::uint64_t a = 0; a < f.count(); ++a) {
      for (bool up : {true, false}) {
        lf::status st{};
        const std::uint64_t r = up ? lf::next_up(f.lib, a, st) : lf::next_down(f.lib, a, st);
        const oracle::result w = next_oracle(f, ord, a, up);
        c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
          return std::string(up ? "next_up(" : "next_down(") + hx(f, a) + "): " +
                 ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
        });
      }
      const std::uint64_t u = lf::ulp(f.lib, a), w = ulp_oracle(f, a);
      c.check(u == w, [&] { return "ulp(" + hx(f, a) + "): lf " + hx(f, u) + ", oracle " + hx(f, w); });
    }
    c.report();
  }
}

// ---- per rounding direction: sqrt, roundToIntegral, convertToInteger -----------------------------

TEST_CASE("every binary16/bfloat16/E4M3/E5M2 encoding, every deterministic mode: sqrt, round_to_integral "
          "(exact and not), to_int into int32/int64/uint32/uint64 (exact and not)") {
  for (const fmt* fp : ex::small_formats) {
    const fmt& f = *fp;
    collector c_sqrt(std::string(f.name) + " sqrt"), c_rti(std::string(f.name) + " round_to_integral"),
        c_int(std::string(f.name) + " to_int");
    for (const auto& d : ex::deterministic) {
      const lf::env e{d.lib};
      for (std::uint64_t a = 0; a < f.count(); ++a) {
        {
          lf::status st{};
          const std::uint64_t r = lf::sqrt(f.lib, a, e, st);
          const oracle::result w = oracle::sqrt(f.ora, a, d.ora);
          c_sqrt.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(d.name) + " sqrt(" + hx(f, a) + "): " +
                   ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
          });
        }
        for (bool exact : {false, true}) {
          lf::status st{};
          const std::uint64_t r = lf::round_to_integral(f.lib, a, e, exact, st);
          const oracle::result w = oracle::round_to_integral(f.ora, a, d.ora, exact);
          c_rti.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(d.name) + (exact ? " round_to_integral_exact(" : " round_to_integral(") + hx(f, a) +
                   "): " + ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
          });
        }
        auto int_case = [&](auto tag, int width, bool is_signed, const char* tname) {
          using I = decltype(tag);
          for (bool exact : {false, true}) {
            lf::status st{};
            const I r = lf::to_int<I>(f.lib, a, e, exact, st);
            const auto pattern = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<I>>(r));
            const oracle::int_result w = oracle::to_int(f.ora, a, d.ora, exact, width, is_signed);
            c_int.check(pattern == w.bits && lf::to_bits(st) == w.flags, [&] {
              return std::string(d.name) + " to_int<" + tname + ">" + (exact ? "(exact, " : "(") + hx(f, a) +
                     "): " + ex::got_want(pattern, lf::to_bits(st), w.bits, w.flags, width);
            });
          }
        };
        int_case(std::int32_t{}, 32, true, "int32");
        int_case(std::int64_t{}, 64, true, "int64");
        int_case(std::uint32_t{}, 32, false, "uint32");
        int_case(std::uint64_t{}, 64, false, "uint64");
      }
    }
    c_sqrt.report();
    c_rti.report();
    c_int.report();
  }
}

// ---- conversions -------------------------------------------------------------------------------

void check_conversions(const fmt& from, const std::vector<std::uint64_t>& inputs, const fmt* const* to_begin,
                       const fmt* const* to_end) {
  for (const fmt* const* tp = to_begin; tp != to_end; ++tp) {
    const fmt& to = **tp;
    collector c(std::string("convert ") + from.name + " -> " + to.name);
    for (const auto& d : ex::deterministic) {
      const lf::env e{d.lib};
      for (std::uint64_t a : inputs) {
        lf::status st{};
        const std::uint64_t r = lf::convert(to.lib, from.lib, a, e, st);
        const oracle::result w = oracle::convert(to.ora, from.ora, a, d.ora);
        c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
          return std::string(d.name) + " " + ex::hex(a, from.ora.bits) + ": " +
                 ex::got_want(r, lf::to_bits(st), w.bits, w.flags, to.ora.bits);
        });
        if (c.enough()) break;
      }
    }
    c.report();
  }
}

std::vector<std::uint64_t> every_encoding(const fmt& f) {
  std::vector<std::uint64_t> v(f.count());
  for (std::uint64_t a = 0; a < f.count(); ++a) v[a] = a;
  return v;
}

TEST_CASE("every binary16/bfloat16/E4M3/E5M2 encoding, every deterministic mode: convert into each of binary16, "
          "bfloat16, E4M3, E5M2, binary32, binary64, tf32") {
  for (const fmt* fp : ex::small_formats)
    check_conversions(*fp, every_encoding(*fp), std::begin(ex::all_formats), std::end(ex::all_formats));
}

TEST_CASE("every tf32 encoding, every deterministic mode: convert into binary16, bfloat16, E4M3, E5M2") {
  check_conversions(ex::tf32, every_encoding(ex::tf32), std::begin(ex::small_formats), std::end(ex::small_formats));
}

/// Trailing 16 bits of a binary32 that decide a rounding into the small formats: exact, the
/// binary16 tie (bit 12) with the kept bit 13 clear and set, just below / above it, sticky only,
/// the bfloat16 half-ulp (bit 15, a tie when the rest is zero).
constexpr std::uint32_t binary32_tails[] = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x3000, 0x8000, 0xFFFF};

std::vector<std::uint64_t> binary32_inputs() {
  std::vector<std::uint64_t> v;
  for (std::uint32_t top = 0; top < 65536; ++top)
    for (std::uint32_t tail : binary32_tails) v.push_back((top << 16) | tail);
  return v;
}

TEST_CASE("binary32 with every leading 16 bits and 8 rounding-deciding tails (524288 inputs), every deterministic "
          "mode: convert into binary16, bfloat16, E4M3, E5M2, tf32") {
  const fmt* const targets[] = {&ex::binary16, &ex::bfloat16, &ex::e4m3, &ex::e5m2, &ex::tf32};
  check_conversions(ex::binary32, binary32_inputs(), std::begin(targets), std::end(targets));
}

TEST_CASE("binary64 inputs (every leading 16 bits x 4 tails; the binary32 set widened, with and without a sticky "
          "bit), every deterministic mode: convert into binary16, bfloat16, E4M3, E5M2, binary32, tf32") {
  std::vector<std::uint64_t> in;
  for (std::uint64_t top = 0; top < 65536; ++top)
    for (std::uint64_t tail : {0x0ull, 0x1ull, 0x800000000000ull, 0xFFFFFFFFFFFFull}) in.push_back((top << 48) | tail);
  for (std::uint64_t u : binary32_inputs()) {
    float f;
    const auto u32 = static_cast<std::uint32_t>(u);
    std::memcpy(&f, &u32, sizeof f);
    if (std::isnan(f)) continue;  // covered by the leading-16-bit set
    const double dbl = f;         // exact widening in hardware
    std::uint64_t w;
    std::memcpy(&w, &dbl, sizeof w);
    in.push_back(w);
    if (f != 0 && !std::isinf(f)) in.push_back(w | 1);  // just above in magnitude: breaks every tie
  }
  const fmt* const targets[] = {&ex::binary16, &ex::bfloat16, &ex::e4m3, &ex::e5m2, &ex::binary32, &ex::tf32};
  check_conversions(ex::binary64, in, std::begin(targets), std::end(targets));
}

TEST_CASE("convert_from_int: every int32 in [-2^17, 2^17], and 2^k +- small for k < 64, every deterministic mode, "
          "into binary16, bfloat16, E4M3, E5M2") {
  std::vector<std::int64_t> ints;
  for (std::int64_t v = -(1 << 17); v <= (1 << 17); ++v) ints.push_back(v);
  for (int k = 17; k < 63; ++k)
    for (std::int64_t dlt = -3; dlt <= 3; ++dlt) {
      const std::int64_t p = (std::int64_t{1} << k) + dlt;
      ints.push_back(p);
      ints.push_back(-p);
    }
  ints.push_back(std::numeric_limits<std::int64_t>::min());
  ints.push_back(std::numeric_limits<std::int64_t>::max());
  for (const fmt* fp : ex::small_formats) {
    const fmt& f = *fp;
    collector c(std::string("from_int -> ") + f.name);
    for (const auto& d : ex::deterministic) {
      for (std::int64_t v : ints) {
        lf::status st{};
        const std::uint64_t r = lf::from_int(f.lib, v, lf::env{d.lib}, st);
        const oracle::result w = oracle::from_int(f.ora, cpp_int(v), d.ora);
        c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
          return std::string(d.name) + " from_int(" + std::to_string(v) + "): " +
                 ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
        });
      }
      for (std::uint64_t v : {std::numeric_limits<std::uint64_t>::max(), std::uint64_t{1} << 63,
                              (std::uint64_t{1} << 63) + 1}) {
        lf::status st{};
        const std::uint64_t r = lf::from_int(f.lib, v, lf::env{d.lib}, st);
        const oracle::result w = oracle::from_int(f.ora, cpp_int(v), d.ora);
        c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
          return std::string(d.name) + " from_int(" + std::to_string(v) + "u): " +
                 ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
        });
      }
    }
    c.report();
  }
}

// ---- stochastic rounding ---------------------------------------------------------------------

TEST_CASE("stochastic: binary32 -> binary16/bfloat16/E4M3/E5M2 rounds up iff random < D (first 32 discarded bits); "
          "over 256 evenly spaced words exactly ceil(D / 2^24) round up; same word, same result") {
  // Inputs: every 61st leading-16-bit pattern (1075 of them, every binade of every target, varied
  // leading fraction bits) with the rounding-deciding tails. Exact ones must stay exact for every word.
  std::vector<std::uint64_t> in;
  for (std::uint32_t top = 0; top < 65536; top += 61)
    for (std::uint32_t tail : binary32_tails) in.push_back((top << 16) | tail);
  for (const fmt* fp : ex::small_formats) {
    const fmt& f = *fp;
    collector c(std::string("stochastic binary32 -> ") + f.name);
    collector counts(std::string("stochastic binary32 -> ") + f.name + ": round-up count over 256 words");
    for (std::uint64_t a : in) {
      const oracle::operand o = oracle::decode(oracle::binary32, a);
      if (o.nan || o.value.is_inf()) continue;  // not a rounding
      std::uint32_t D = 0;
      if (!o.value.is_zero()) {
        const long E = oracle::detail::floor_log2(o.value);
        const long q = std::max<long>(E, f.ora.emin) - (f.ora.p - 1);
        oracle::detail::part part{};
        const cpp_int I = oracle::detail::split(o.value, q, part);
        D = oracle::detail::first_32_discarded(o.value, q, I);
      }
      const oracle::result down = oracle::round(o.value, f.ora, oracle::mode::toward_zero);
      auto run = [&](std::uint32_t word) {
        lf::status st{};
        const std::uint64_t r = lf::convert(f.lib, lf::binary32, a, lf::env{lf::rounding::stochastic, {}, word}, st);
        const oracle::result w = oracle::round_stochastic(o.value, f.ora, word);
        c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
          char buf[32];
          std::snprintf(buf, sizeof buf, " random 0x%08X: ", word);
          return ex::hex(a, 32) + buf + ex::got_want(r, lf::to_bits(st), w.bits, w.flags, f.ora.bits);
        });
        lf::status st2{};
        const std::uint64_t again = lf::convert(f.lib, lf::binary32, a, lf::env{lf::rounding::stochastic, {}, word}, st2);
        c.check(again == r && st2 == st, [&] { return ex::hex(a, 32) + ": same random word, different result"; });
        return r != down.bits;  // rounded up (away from zero)
      };
      unsigned ups = 0;
      for (std::uint32_t k = 0; k < 256; ++k) ups += run(k << 24) ? 1 : 0;
      if (D != 0) {  // the boundary words: D - 1 rounds up, D and all ones do not
        run(D - 1);
        run(D);
        run(0xFFFFFFFFu);
      }
      const unsigned expect_ups = (D == 0) ? 0u : static_cast<unsigned>((std::uint64_t{D} + 0xFFFFFF) >> 24);
      // Beyond max + ulp both neighbours overflow (to the same infinity / NaN): nothing to count.
      if (down.flags & oracle::flag::overflow) continue;
      counts.check(ups == expect_ups, [&] {
        return ex::hex(a, 32) + ": " + std::to_string(ups) + " of 256 words rounded up, expected ceil(D/2^24) = " +
               std::to_string(expect_ups) + " (D = " + std::to_string(D) + ")";
      });
    }
    c.report();
    counts.report();
  }
}

// ---- the checks can fail -----------------------------------------------------------------------

TEST_CASE("unary oracle sanity: neighbouring answers differ, and the collector rejects a wrong library answer") {
  using oracle::mode;
  // 1 + 2^-11 (binary32 0x3F801000) is the binary16 tie between 1 and 1 + 2^-10.
  CHECK(oracle::convert(oracle::binary16, oracle::binary32, 0x3F801000, mode::nearest_even).bits == 0x3C00);
  CHECK(oracle::convert(oracle::binary16, oracle::binary32, 0x3F801000, mode::nearest_away).bits == 0x3C01);
  CHECK(oracle::convert(oracle::binary16, oracle::binary32, 0x3F801000, mode::odd).bits == 0x3C01);
  // E4M3: 464 = 448 + 16 = 1.1101b * 2^8 ties between 448 (1.110b) and 480 (1.111b, the NaN
  // encoding); with an unbounded exponent (IEEE 754-2019 §7.4) nearest_even gives the even 448, no
  // overflow; everything above 464 overflows to NaN, and so does the tie under nearest_away.
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80000, mode::nearest_even).bits == 0x7E);
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80000, mode::nearest_even).flags == oracle::flag::inexact);
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80001, mode::nearest_even).bits == 0x7F);
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80001, mode::nearest_even).flags ==
        (oracle::flag::overflow | oracle::flag::inexact));
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80000, mode::nearest_away).bits == 0x7F);
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E80000, mode::toward_zero).bits == 0x7E);
  CHECK(oracle::convert(oracle::e4m3, oracle::binary32, 0x43E7FFFF, mode::nearest_even).bits == 0x7E);
  CHECK(oracle::sqrt(oracle::binary16, 0x4000, mode::nearest_even).bits == 0x3DA8);  // sqrt(2)
  CHECK(oracle::sqrt(oracle::binary16, 0x4000, mode::upward).bits == 0x3DA9);
  // Stochastic: 1 + 2^-11 into binary16 discards 0b1'000000000000, so D = 2^31.
  const oracle::exact tie = oracle::exact::dyadic(false, (1 << 11) + 1, -11);
  CHECK(oracle::round_stochastic(tie, oracle::binary16, 0x7FFFFFFF).bits == 0x3C01);
  CHECK(oracle::round_stochastic(tie, oracle::binary16, 0x80000000).bits == 0x3C00);
  // A deliberately wrong "library": sqrt answered one ulp high is caught.
  collector c("sanity");
  for (std::uint64_t a = 0x3C00; a < 0x3C10; ++a) {
    const oracle::result w = oracle::sqrt(oracle::binary16, a, mode::nearest_even);
    c.check(w.bits + 1 == w.bits, [] { return std::string("deliberate"); });
  }
  CHECK(c.bad == 16);
  CHECK(c.first.size() == c.keep);
}

}  // namespace
