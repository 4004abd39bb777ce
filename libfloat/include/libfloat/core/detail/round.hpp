// libfloat/core/detail/round.hpp: THE rounding core: every rounding decision of the library is made here
// or, for the fast paths (libfloat/fast/), proven identical to what is made here.
//
// Every operation reduces its result to an exact intermediate
//     x = (-1)^negative * (sig + s) * 2^exp,   s = 0 if !sticky, s in (0, 1) if sticky
// and hands it to round_pack(), which alone decides which representable value x becomes and which
// flags that raises. Nothing else in the library looks at guard or sticky bits: the one other
// entry point, round_integer(), is the same decision applied at a fixed binary point (integers).
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>

#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf::detail {

__extension__ typedef unsigned __int128 u128;

// The core's small functions are forced inline so that, when the format is a constant (lf::fp<F>,
// or a call with lf::binary16), every derived constant (bias, masks, emin) folds away.
#define LIBFLOAT_INLINE [[gnu::always_inline]] inline  // GCC/Clang extension; __extension__ keeps -Wpedantic quiet

/// The core runs on 64-bit integers for formats with p <= wide_precision_threshold (every
/// product and aligned sum of such formats fits, see exact_add in arith.hpp) and on 128-bit
/// integers above; the algorithm is the same template either way.
inline constexpr int narrow_core_max_precision = 24;

template <typename U>
inline constexpr int width_of = sizeof(U) * 8;

/// std::max, std::min and std::clamp for the integers of the core, with the same results (the
/// first argument on ties), without <algorithm>: its C++20 range algorithms cost every program
/// that includes the umbrella header about 0.05 s of compilation.
template <typename T>
constexpr T max_of(T a, T b) { return a < b ? b : a; }
template <typename T>
constexpr T min_of(T a, T b) { return b < a ? b : a; }
template <typename T>
constexpr T clamp_of(T v, T lo, T hi) { return v < lo ? lo : hi < v ? hi : v; }

constexpr int bit_width(std::uint64_t x) { return std::bit_width(x); }
constexpr int bit_width(u128 x) {
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  return hi ? 64 + std::bit_width(hi) : std::bit_width(static_cast<std::uint64_t>(x));
}

/// Where the discarded part of a significand lies relative to half a unit in the last place.
enum class lost : std::uint8_t { zero, below_half, half, above_half };

/// The outcome of one rounding step: discard the low `shift` bits of a significand.
template <typename U>
struct step {
  U kept;        ///< the kept integer after rounding (may equal 2^k: a carry out)
  bool inexact;  ///< anything nonzero was discarded
};

/// The rounding step itself: discard the low `shift` bits of `sig` and round the kept integer's
/// magnitude under `mode` (`negative` is the sign of the value, for the directed modes).
/// Preconditions: sig < 2^(W-1); shift may be anything (<= 0: nothing discarded; >= W: all).
///
/// The deterministic modes are one addition: kept = (sig + inc) >> shift, with inc a
/// mode-dependent amount below the rounding position (ulp = 2^shift, half = ulp/2):
///   nearest_even  half - 1 + (lsb of the kept part): a tie carries only into an odd kept part
///   nearest_away  half
///   upward        ulp - 1 for a positive value, else 0 (and downward the mirror image)
///   toward_zero, odd  0 (odd then sets the last bit when anything was discarded)
/// so there is no classification of the discarded bits and no data-dependent branch: on random
/// operands those outcomes are coin flips. With `mode` a compile-time constant (the typed paths)
/// the increment folds to one or two instructions; at run time it is a few flag-free selects.
template <typename U>
LIBFLOAT_INLINE constexpr step<U> round_step(U sig, int shift, bool negative, rounding mode, std::uint32_t random) {
  constexpr int W = width_of<U>;
  if (shift <= 0) return {sig, false};
  if (mode == rounding::stochastic) {
    // D = the first 32 discarded bits (zero-padded); round up iff random < D.
    const bool all = shift >= W;
    const U kept = all ? U{0} : sig >> shift;
    const U rem = all ? sig : sig & ((U{1} << shift) - 1);
    std::uint32_t d;
    if (shift >= 32) d = shift - 32 >= W ? 0 : static_cast<std::uint32_t>(rem >> (shift - 32));
    else d = static_cast<std::uint32_t>(rem << (32 - shift));
    return {kept + U{random < d}, rem != 0};
  }
  // Everything discarded (shift >= W): sig < 2^(W-1) <= 2^(shift-1) lies strictly between 0 and
  // half a unit, or is 0, and every deterministic mode decides the same for (sig != 0) at shift 2.
  if (shift >= W) {  // (only for results far below the subnormal range: rare, so predicted)
    sig = U{sig != 0};
    shift = 2;
  }
  const U ulp_mask = (U{1} << shift) - 1;
  const U rem = sig & ulp_mask;
  const bool even = mode == rounding::nearest_even, away = mode == rounding::nearest_away;
  const bool toward_infinity = (mode == rounding::upward) & !negative;
  const bool toward_minus_infinity = (mode == rounding::downward) & negative;
  const auto all_if = [](bool c) { return U{0} - U{c}; };  // masks, not ?: (which may branch)
  const U inc = ((ulp_mask >> 1) & all_if(even | away)) + (((sig >> shift) & 1) & U{even}) + U{away} +
                (ulp_mask & all_if(toward_infinity | toward_minus_infinity));
  const U kept = ((sig + inc) >> shift) | U{static_cast<bool>((mode == rounding::odd) & (rem != 0))};
  return {kept, rem != 0};
}

/// round_step plus where the discarded part lay (for callers that need the class itself).
template <typename U>
struct decision {
  U kept;    ///< the kept integer after rounding (may equal 2^k: a carry out)
  lost frac;    ///< what was discarded
};

template <typename U>
LIBFLOAT_INLINE constexpr decision<U> round_shift(U sig, int shift, bool negative, rounding mode, std::uint32_t random) {
  constexpr int W = width_of<U>;
  const step<U> s = round_step(sig, shift, negative, mode, random);
  if (!s.inexact) return {s.kept, lost::zero};
  const U rem = shift >= W ? sig : sig & ((U{1} << shift) - 1);
  const U half = shift > W ? ~U{0} : U{1} << (shift - 1);
  return {s.kept, rem > half ? lost::above_half : rem == half ? lost::half : lost::below_half};
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

LIBFLOAT_INLINE constexpr bool is_nan_bits(const format& f, std::uint64_t a) {
  const std::uint64_t mag = a & ~f.sign_mask() & f.encoding_mask();
  switch (f.kind) {
    case nonfinite::ieee: return mag > f.exponent_mask();
    case nonfinite::nan_only: return mag == (f.exponent_mask() | f.fraction_mask());
    case nonfinite::finite_only: return false;
    case nonfinite::fnuz: break;
  }
  return (a & f.encoding_mask()) == f.sign_mask();  // the negative-zero encoding
}
LIBFLOAT_INLINE constexpr bool is_snan_bits(const format& f, std::uint64_t a) {
  return f.kind == nonfinite::ieee && is_nan_bits(f, a) && !(a & f.quiet_bit());
}

/// NaN or infinity.
LIBFLOAT_INLINE constexpr bool is_nonfinite_bits(const format& f, std::uint64_t a) {
  if (f.kind == nonfinite::ieee) return (a & f.exponent_mask()) == f.exponent_mask();
  return is_nan_bits(f, a);
}

/// Splits an encoding; `daz` reads subnormals as zeros (subnormal_inputs::treat_as_zero).
LIBFLOAT_INLINE constexpr unpacked unpack(const format& f, std::uint64_t a, bool daz = false) {
  const bool neg = (a & f.sign_mask()) != 0;
  const std::uint64_t e = (a & f.exponent_mask()) >> f.fraction_bits();
  const std::uint64_t m = a & f.fraction_mask();
  if (e == f.exponent_field_max()) {
    if (f.kind == nonfinite::ieee) {
      if (m == 0) return {kind::infinite, neg, 0, 0};
      return {(m & f.quiet_bit()) ? kind::quiet_nan : kind::signaling_nan, neg, 0, m};
    }
    if (f.kind == nonfinite::nan_only && m == f.fraction_mask()) return {kind::quiet_nan, neg, 0, m};  // the one NaN
  }
  // fnuz: the negative-zero encoding is the NaN. (An exponent-only format has no zero: its field 0
  // is the smallest normal, 2^emin.)
  if (f.kind == nonfinite::fnuz && neg && e == 0 && m == 0) return {kind::quiet_nan, true, 0, 0};
  if (e == 0 && f.has_subnormals()) {
    if (m == 0 || daz) return {kind::zero, neg, 0, 0};
    return {kind::finite, neg, f.emin() - f.fraction_bits(), m};
  }
  return {kind::finite, neg, static_cast<int>(e) - f.bias() - f.fraction_bits(),
          m | (std::uint64_t{1} << f.fraction_bits())};
}

LIBFLOAT_INLINE constexpr std::uint64_t sign_bit(const format& f, bool negative) { return negative ? f.sign_mask() : 0; }
/// A zero of the given sign; +0 in a format without negative zero (fnuz). An exponent-only format
/// has no zero at all: callers that can produce one use zero_result.
LIBFLOAT_INLINE constexpr std::uint64_t zero_bits(const format& f, bool negative) {
  return sign_bit(f, negative && f.has_negative_zero());
}
/// An exact zero result of an operation: zero_bits, except that a format without zero
/// (exponent-only) gives its NaN and raises invalid, as for any result it cannot represent.
LIBFLOAT_INLINE constexpr std::uint64_t zero_result(const format& f, bool negative, status& st) {
  if (!f.has_zero()) [[unlikely]] {
    st |= status::invalid;
    return f.default_nan_bits();
  }
  return zero_bits(f, negative);
}

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
  // A format without infinity has only NaN beyond its range (OCP FP8 E4M3, non-saturating; fnuz's
  // NaN is its sign bit), or, finite_only, max finite itself (infinity_bits says which).
  return sign_bit(f, negative) | (to_infinity ? f.infinity_bits() : f.max_finite_bits());
}

/// The core's decision for an exponent-only format (precision 1: OCP MX E8M0; see lf::format):
/// positive powers of two 2^emin .. 2^emax, NaN all ones, no sign, no zero, no subnormals.
///  1. Zero and negative values have no encoding: NaN and invalid.
///  2. Round to one significant bit with an unbounded exponent (round_step: the same decision as
///     every format, so every mode, stochastic included): 2^E or 2^(E+1), where 2^E <= x < 2^(E+1).
///  3. Overflow (§7.4) as in round_pack: above 2^emax; the mode's overflow value.
///  4. Below 2^emin there is nothing but 2^emin itself, the nearest representable value from
///     below: it is the result in every mode, with underflow and inexact (there is no zero to
///     flush to, so the subnormal policies change nothing).
template <typename U>
constexpr std::uint64_t round_pack_exponent_only(const format& f, bool negative, int exp, U sig, bool sticky,
                                                 const env& e, status& st) {
  // 1.
  if ((sig == 0 && !sticky) || negative) {
    st |= status::invalid;
    return f.default_nan_bits();
  }
  // 2. Widen so that the kept bit has two bits below it, then fold sticky in (see round_pack).
  int w = bit_width(sig);
  if (w < 3) {
    sig <<= 3 - w;
    exp -= 3 - w;
    w = 3;
  }
  sig = (sig << 1) | U{sticky};
  exp -= 1;
  w += 1;
  const int E = exp + w - 1;
  const step<U> d = round_step(sig, w - 1, false, e.mode, e.random);
  const int Er = E + (d.kept >= 2 ? 1 : 0);
  // 3.
  if (Er > f.emax()) {
    st |= status::overflow | status::inexact;
    return overflow_result(f, false, e.mode, e.policy);
  }
  // 4.
  if (Er < f.emin()) {
    st |= status::underflow | status::inexact;
    return f.min_normal_bits();
  }
  // Tininess before rounding (§7.5): x < 2^emin that rounded up to 2^emin.
  if (d.inexact && E < f.emin() && e.policy.tininess == tininess::before_rounding) st |= status::underflow;
  if (d.inexact) st |= status::inexact;
  return static_cast<std::uint64_t>(Er - f.emin());
}

/// THE rounding core. Rounds x = (-1)^negative * (sig + s) * 2^exp (see the file comment) to
/// format f under e.mode and e.policy, ORs the flags into st, and returns the encoding.
///
/// U is std::uint64_t or u128 (see narrow_core_max_precision). Preconditions: sig < 2^(W-2); if sticky then sig != 0. An exact zero (sig == 0, !sticky) gives a
/// zero of the given sign: the caller decides the sign of exact zeros (§6.3).
///
/// Steps:
///  1. Make room: at least p + 2 significant bits, then fold the sticky part in as one extra low
///     1 bit. It lies strictly below the rounding position, so every mode decides the same.
///  2. E = exponent of the leading bit. The last kept bit sits at q = max(E, emin) - p + 1
///     (below emin the grid stops shrinking: gradual underflow, §3.4).
///  3. Decide (round_step); a carry out of p bits bumps q. (A normal result skips steps 3-5:
///     see the fast case below.)
///  4. Tininess (§7.5) before: E < emin; after: rounding to p bits at E's own grid stays < 2^emin.
///  5. Overflow (§7.4): the rounded value with unbounded exponent exceeds max finite. For formats
///     without infinity that value may be the NaN slot's, S.1...1.1...1 (E4M3: 1.111b * 2^8 = 480),
///     which is beyond range too. Nothing else is: max finite S.1...1.1...10 has an even last bit,
///     so under nearest_even the tie max + ulp/2 (E4M3 464) rounds to max itself, inexact but no
///     overflow; nearest_away, upward/downward, odd and stochastic overflow there exactly when
///     they pick the NaN slot's value. (In an IEEE format max has an odd last bit and that tie
///     carries into 2^(emax+1): §4.3.1's "at least b^emax (b - 1/2 b^(1-p))".)
///  6. Flags: inexact if anything was discarded; underflow if tiny and inexact; FTZ flushes tiny.
///
/// OnGrid (see round_pack_grid): x is an exact nonzero multiple of the smallest subnormal,
/// exp == emin - p + 1 and !sticky. Step 1's widening is then skipped: a significand shorter than
/// p bits is a subnormal, which the general path (steps 2-6) rounds at emin's grid whatever its
/// width, and a normal one already has p bits, plus the zero sticky bit, so its rounding position
/// is at least one bit up. (GCC compiles the widening as a branch plus a second copy of the
/// shifts, on the hot path of every fp16 and FP8 add.)
template <typename U, bool OnGrid = false>
  requires(std::same_as<U, std::uint64_t> || std::same_as<U, u128>)
LIBFLOAT_INLINE constexpr std::uint64_t round_pack(const format& f, bool negative, int exp, U sig, bool sticky, const env& e,
                                   status& st) {
  const int p = f.precision;
  if (f.exponent_only()) [[unlikely]] return round_pack_exponent_only(f, negative, exp, sig, sticky, e, st);
  if (!OnGrid && sig == 0 && !sticky) return zero_bits(f, negative);
  // 1.
  int w = bit_width(sig);
  if constexpr (!OnGrid) {
    const int grow = w < p + 2 ? p + 2 - w : 0;  // (selected where the compiler does not branch)
    sig <<= grow;
    exp -= grow;
    w += grow;
  }
  sig = (sig << 1) | U{sticky};  // the sticky part as one more low bit (0 when exact)
  exp -= 1;
  w += 1;
  // 2.
  const int E = exp + w - 1;
  // The common case first: a normal result, E in [emin, emax] (for a format without infinity,
  // below emax, whose top binade holds the NaN slot). One range check; then q = E - p + 1, no
  // tininess, and the encoding is the biased exponent minus one, shifted, plus the rounded
  // significand, whose hidden bit adds the missing one and whose carry out (kept == 2^p) the
  // next binade, so a carry needs no test. Only a carry from emax can overflow: it reaches the
  // infinity encoding. (The steps below compute the same for these values.)
  const int emax_fast = f.kind == nonfinite::ieee ? f.emax() : f.emax() - 1;  // (other kinds: top binade below)
  if (static_cast<unsigned>(E - f.emin()) <= static_cast<unsigned>(emax_fast - f.emin())) [[likely]] {
    const step<U> d = round_step(sig, w - p, negative, e.mode, e.random);
    const std::uint64_t mag =
        (static_cast<std::uint64_t>(E - f.emin()) << f.fraction_bits()) + static_cast<std::uint64_t>(d.kept);
    if (f.kind == nonfinite::ieee && mag >= f.exponent_mask()) [[unlikely]] {
      st |= status::overflow | status::inexact;
      return overflow_result(f, negative, e.mode, e.policy);
    }
    st |= static_cast<status>(static_cast<std::uint8_t>(d.inexact) * to_bits(status::inexact));
    return sign_bit(f, negative) | mag;
  }
  const bool tiny_before = E < f.emin();
  int q = (tiny_before ? f.emin() : E) - (p - 1);
  // 3.
  const step<U> d = round_step(sig, q - exp, negative, e.mode, e.random);
  U kept = d.kept;
  const bool inexact = d.inexact;
  const U top = U{1} << p;
  if (kept >= top) {  // carry out: kept == 2^p
    kept >>= 1;
    ++q;
  }
  // 5. (checked before 4: an overflowing result is not tiny)
  const bool normal = kept >= (top >> 1);
  if (normal) {
    const int Er = q + p - 1;
    // With no infinity, the all-ones significand at emax is the NaN slot: its value exists only
    // with an unbounded exponent, so rounding to it is an overflow (step 5).
    const bool over = Er > f.emax() || (f.kind == nonfinite::nan_only && Er == f.emax() && kept == top - 1);
    // (finite_only and fnuz: the whole top binade is finite, S.1..1.1..1 included.)
    if (over) {
      st |= status::overflow | status::inexact;
      return overflow_result(f, negative, e.mode, e.policy);
    }
  }
  // 4.
  bool tiny = tiny_before;
  if (tiny_before && e.policy.tininess == tininess::after_rounding && E == f.emin() - 1) {
    // Only a value in [2^(emin-1), 2^emin) can round up to 2^emin with an unbounded exponent.
    const step<U> unbounded = round_step(sig, (E - (p - 1)) - exp, negative, e.mode, e.random);
    tiny = unbounded.kept < top;
  }
  if (tiny && e.policy.results == subnormal_results::flush_to_zero) {
    st |= status::underflow | status::inexact;
    return zero_bits(f, negative);
  }
  // 6.
  st |= static_cast<status>(static_cast<std::uint8_t>(inexact) *
                            (to_bits(status::inexact) | (tiny ? to_bits(status::underflow) : 0)));
  // Encoding: biased exponent minus one, shifted, plus the significand. The hidden bit of a normal
  // significand adds the missing one; a subnormal (q at the bottom of the range) adds nothing.
  const auto steps = static_cast<std::uint64_t>(q - (f.emin() - (p - 1)));
  const std::uint64_t mag = (steps << f.fraction_bits()) + static_cast<std::uint64_t>(kept);
  // A result that rounded to zero is +0 where there is no -0 (fnuz: that encoding is the NaN).
  return sign_bit(f, negative && (mag != 0 || f.has_negative_zero())) | mag;
}

/// round_pack for x = (-1)^negative * sig * 2^(emin - p + 1), sig > 0: an exact integer number
/// of smallest subnormals (the fixed-point sums of add). The same core, with step 1 skipped.
template <typename U>
LIBFLOAT_INLINE constexpr std::uint64_t round_pack_grid(const format& f, bool negative, U sig, const env& e, status& st) {
  return round_pack<U, true>(f, negative, f.emin() - (f.precision - 1), sig, false, e, st);
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
  const step<u128> d = round_step(u128{sig}, -exp, negative, mode, random);
  return {d.kept, d.inexact, false};
}

}  // namespace lf::detail
