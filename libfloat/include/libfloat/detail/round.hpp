// libfloat/detail/round.hpp: THE rounding core (DESIGN.md decision 2).
//
// Every operation reduces its result to an exact intermediate
//     x = (-1)^negative * (sig + s) * 2^exp,   s = 0 if !sticky, s in (0, 1) if sticky
// and hands it to round_pack(), which alone decides which representable value x becomes and which
// flags that raises. Nothing else in the library looks at guard or sticky bits: the one other
// entry point, round_integer(), is the same decision applied at a fixed binary point (integers).
#pragma once

#include <bit>
#include <cstdint>

#include "../format.hpp"
#include "../rounding.hpp"
#include "../status.hpp"

namespace lf::detail {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension; __extension__ keeps -Wpedantic quiet

constexpr int bit_width(u128 x) {
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  return hi ? 64 + std::bit_width(hi) : std::bit_width(static_cast<std::uint64_t>(x));
}

/// Where the discarded part of a significand lies relative to half a unit in the last place.
enum class lost : std::uint8_t { zero, below_half, half, above_half };

/// The rounding decision: discard the low `shift` bits of `sig` (shift >= 0) and decide whether
/// the kept part's magnitude is incremented (or, for round-to-odd, jammed).
struct decision {
  u128 kept;    ///< the kept integer after rounding (may equal 2^k: a carry out)
  lost frac;    ///< what was discarded
};

constexpr decision round_shift(u128 sig, int shift, bool negative, rounding mode, std::uint32_t random) {
  if (shift <= 0) return {sig, lost::zero};
  u128 kept, rem;
  lost frac;
  if (shift >= 128) {
    kept = 0;
    rem = sig;
    frac = sig == 0 ? lost::zero : lost::below_half;  // sig < 2^127 <= 2^(shift-1)
  } else {
    kept = sig >> shift;
    rem = sig & ((u128{1} << shift) - 1);
    const u128 half = u128{1} << (shift - 1);
    frac = rem == 0 ? lost::zero : rem < half ? lost::below_half : rem == half ? lost::half : lost::above_half;
  }
  if (frac == lost::zero) return {kept, frac};
  bool up = false;
  switch (mode) {
    case rounding::nearest_even: up = frac == lost::above_half || (frac == lost::half && (kept & 1)); break;
    case rounding::nearest_away: up = frac == lost::above_half || frac == lost::half; break;
    case rounding::toward_zero: up = false; break;
    case rounding::upward: up = !negative; break;
    case rounding::downward: up = negative; break;
    case rounding::odd: return {kept | 1, frac};
    case rounding::stochastic: {
      // D = the first 32 discarded bits (zero-padded); round up iff random < D.
      std::uint32_t d;
      if (shift >= 32) d = shift - 32 >= 128 ? 0 : static_cast<std::uint32_t>(rem >> (shift - 32));
      else d = static_cast<std::uint32_t>(rem << (32 - shift));
      up = random < d;
      break;
    }
  }
  return {kept + (up ? 1 : 0), frac};
}

// ---- encodings --------------------------------------------------------------------------------

enum class kind : std::uint8_t { zero, finite, infinite, quiet_nan, signaling_nan };

/// An encoding taken apart. For finite values: value = (-1)^negative * sig * 2^exp, with sig
/// holding the hidden bit for normals (sig < 2^p).
struct unpacked {
  lf::detail::kind kind;
  bool negative;
  int exp;
  std::uint64_t sig;
  constexpr bool is_nan() const { return kind == detail::kind::quiet_nan || kind == detail::kind::signaling_nan; }
};

constexpr bool is_nan_bits(const format& f, std::uint64_t a) {
  const std::uint64_t mag = a & ~f.sign_mask() & f.encoding_mask();
  if (f.kind == nonfinite::ieee) return mag > f.exponent_mask();
  return mag == (f.exponent_mask() | f.fraction_mask());
}
constexpr bool is_snan_bits(const format& f, std::uint64_t a) {
  return f.kind == nonfinite::ieee && is_nan_bits(f, a) && !(a & f.quiet_bit());
}

/// Splits an encoding; `daz` reads subnormals as zeros (subnormal_inputs::treat_as_zero).
constexpr unpacked unpack(const format& f, std::uint64_t a, bool daz = false) {
  const bool neg = (a & f.sign_mask()) != 0;
  const std::uint64_t e = (a & f.exponent_mask()) >> f.fraction_bits();
  const std::uint64_t m = a & f.fraction_mask();
  const int lsb_exp_normal = -f.bias() - f.fraction_bits();  // exponent of the last bit, biased e = 0 -> add e
  if (is_nan_bits(f, a))
    return {is_snan_bits(f, a) ? kind::signaling_nan : kind::quiet_nan, neg, 0, m};
  if (f.kind == nonfinite::ieee && e == f.exponent_field_max()) return {kind::infinite, neg, 0, 0};
  if (e == 0) {
    if (m == 0 || daz) return {kind::zero, neg, 0, 0};
    return {kind::finite, neg, f.emin() - f.fraction_bits(), m};
  }
  return {kind::finite, neg, static_cast<int>(e) + lsb_exp_normal, m | (std::uint64_t{1} << f.fraction_bits())};
}

constexpr std::uint64_t sign_bit(const format& f, bool negative) { return negative ? f.sign_mask() : 0; }
constexpr std::uint64_t zero_bits(const format& f, bool negative) { return sign_bit(f, negative); }

/// The value an overflow produces (IEEE 754-2019 §7.4) under the given direction and policy.
constexpr std::uint64_t overflow_result(const format& f, bool negative, rounding mode, const policy& pol) {
  bool to_infinity = false;
  switch (mode) {
    case rounding::nearest_even:
    case rounding::nearest_away:
    case rounding::stochastic: to_infinity = true; break;
    case rounding::upward: to_infinity = !negative; break;
    case rounding::downward: to_infinity = negative; break;
    case rounding::toward_zero:
    case rounding::odd: to_infinity = false; break;  // SoftFloat: round-to-odd overflows to max finite
  }
  if (pol.overflow == overflow_policy::saturate) to_infinity = false;
  // A format without infinity has only NaN beyond its range (OCP FP8 E4M3, non-saturating).
  return sign_bit(f, negative) | (to_infinity ? f.infinity_bits() : f.max_finite_bits());
}

/// THE rounding core. Rounds x = (-1)^negative * (sig + s) * 2^exp (see the file comment) to
/// format f under e.mode and e.policy, ORs the flags into st, and returns the encoding.
///
/// Preconditions: sig < 2^126; if sticky then sig != 0. An exact zero (sig == 0, !sticky) gives a
/// zero of the given sign: the caller decides the sign of exact zeros (§6.3).
///
/// Steps:
///  1. Make room: at least p + 2 significant bits, then fold the sticky part in as one extra low
///     1 bit. It lies strictly below the rounding position, so every mode decides the same.
///  2. E = exponent of the leading bit. The last kept bit sits at q = max(E, emin) - p + 1
///     (below emin the grid stops shrinking: gradual underflow, §3.4).
///  3. Decide (round_shift); a carry out of p bits bumps q.
///  4. Tininess (§7.5) before: E < emin; after: rounding to p bits at E's own grid stays < 2^emin.
///  5. Overflow (§7.4): the rounded value with unbounded exponent exceeds max finite. For formats
///     without infinity the NaN slot S.1...1.1...1 also counts as beyond range, and ties between
///     max finite and it overflow, as §4.3.1 rounds ties at max + ulp/2 to infinity.
///  6. Flags: inexact if anything was discarded; underflow if tiny and inexact; FTZ flushes tiny.
constexpr std::uint64_t round_pack(const format& f, bool negative, int exp, u128 sig, bool sticky, const env& e,
                                   status& st) {
  const int p = f.precision;
  if (sig == 0 && !sticky) return zero_bits(f, negative);
  // 1.
  int w = bit_width(sig);
  if (w < p + 2) {
    sig <<= (p + 2 - w);
    exp -= (p + 2 - w);
    w = p + 2;
  }
  if (sticky) {
    sig = (sig << 1) | 1;
    exp -= 1;
    w += 1;
  }
  // 2.
  const int E = exp + w - 1;
  const bool tiny_before = E < f.emin();
  int q = (tiny_before ? f.emin() : E) - (p - 1);
  // 3.
  decision d = round_shift(sig, q - exp, negative, e.mode, e.random);
  u128 kept = d.kept;
  const bool inexact = d.frac != lost::zero;
  const u128 top = u128{1} << p;
  if (kept >= top) {  // carry out: kept == 2^p
    kept >>= 1;
    ++q;
  }
  // 5. (checked before 4: an overflowing result is not tiny)
  const bool normal = kept >= (top >> 1);
  if (normal) {
    const int Er = q + p - 1;
    bool over = Er > f.emax();
    if (!over && f.kind == nonfinite::nan_only && Er == f.emax()) {
      const u128 nan_slot = top - 1;
      over = kept == nan_slot ||
             (kept == nan_slot - 1 && d.frac == lost::half && e.mode == rounding::nearest_even);
    }
    if (over) {
      st |= status::overflow | status::inexact;
      return overflow_result(f, negative, e.mode, e.policy);
    }
  }
  // 4.
  bool tiny = tiny_before;
  if (tiny_before && e.policy.tininess == tininess::after_rounding && E == f.emin() - 1) {
    // Only a value in [2^(emin-1), 2^emin) can round up to 2^emin with an unbounded exponent.
    const decision unbounded = round_shift(sig, (E - (p - 1)) - exp, negative, e.mode, e.random);
    tiny = unbounded.kept < top;
  }
  if (tiny && e.policy.results == subnormal_results::flush_to_zero) {
    st |= status::underflow | status::inexact;
    return zero_bits(f, negative);
  }
  // 6.
  if (inexact) {
    st |= status::inexact;
    if (tiny) st |= status::underflow;
  }
  const std::uint64_t k = static_cast<std::uint64_t>(kept);
  if (!normal) return sign_bit(f, negative) | k;  // subnormal or zero: biased exponent 0
  const auto biased = static_cast<std::uint64_t>(q + p - 1 + f.bias());
  return sign_bit(f, negative) | (biased << f.fraction_bits()) | (k & f.fraction_mask());
}

/// The same decision at a fixed binary point: rounds |x| = sig * 2^exp (exp may be negative) to
/// an integer under `mode`. Used by roundToIntegral and conversions to integer formats.
struct integer_rounding {
  u128 magnitude;  ///< valid when !too_large
  bool inexact;
  bool too_large;  ///< |x| >= 2^127
};
constexpr integer_rounding round_integer(bool negative, int exp, std::uint64_t sig, rounding mode,
                                         std::uint32_t random) {
  if (sig == 0) return {0, false, false};
  if (exp >= 0) {
    if (exp + std::bit_width(sig) > 127) return {0, false, true};
    return {u128{sig} << exp, false, false};
  }
  const decision d = round_shift(sig, -exp, negative, mode, random);
  return {d.kept, d.frac != lost::zero, false};
}

}  // namespace lf::detail
