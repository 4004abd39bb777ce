// tests/support/oracle.hpp: an exact-rational reference for IEEE 754-2019 rounding, written
// independently of the library. Nothing here includes or calls libfloat: formats are described
// by their spec parameters (p, emin, emax, width, layout), values are exact
// rationals over boost::multiprecision::cpp_int, and rounding is decided by comparing exact
// remainders, not by guard/sticky bits.
//
// API (everything in namespace oracle):
//   target                 a format: {p, emin, emax, bits, nan_only[, layout]}; oracle::binary16, ... are the named ones
//   mode                   nearest_even, nearest_away, toward_zero, upward, downward, odd
//   policy                 tininess before rounding, flush-to-zero, denormals-are-zero, saturation (default: IEEE)
//   flag::*                exception bits, TestFloat's values (0x01 inexact ... 0x10 invalid)
//   exact                  (-1)^neg * num/den * 2^exp, or a zero/infinity; optionally "plus a tail"
//   decode(t, bits[, daz]) an encoding as {nan, snan, exact}
//   round(x, t, m[, pol])  THE reference rounding: exact -> {bits, flags}
//   add sub mul div fma rem sqrt round_to_integral convert from_int to_int compare minimum ...
//                          the IEEE operations with x86 SSE / TestFloat NaN rules (see each comment)
//   prepare_* + finish     the same operations in two steps: the exact result (or a special one),
//                          computed once, then rounded in any mode under any policy
//
// Conventions the library documents and the oracle reproduces (each is a *choice* IEEE leaves open):
//   - NaN operands: the result is the first NaN operand, quieted; a signaling NaN raises invalid.
//   - Invalid operations return the default NaN: sign set, quiet bit set, payload zero
//     (binary16 0xFE00); for a no-infinity format (OCP E4M3) the negative NaN S.1111.111.
//   - Tininess is detected after rounding (IEEE 754-2019 §7.5, x86 SSE, TestFloat default).
//   - Round-to-odd overflows to max finite (SoftFloat).
//   - Overflow is decided as IEEE 754-2019 §7.4 defines it, by rounding with an unbounded exponent.
//     OCP E4M3 (no infinity): |x| > 464 overflows under nearest_even (the tie 464 = 448 + ulp/2
//     goes to the even 448), |x| >= 464 under nearest_away; an overflow gives NaN where IEEE would
//     give infinity, and 448 where IEEE would give max finite.
//
// Layouts beyond IEEE and OCP "fn" (target::kind; the rules are the library's documented choices):
//   - finite_only (OCP MX FP4 E2M1, FP6 E3M2/E2M3): every encoding is a finite number, the all-ones
//     magnitude is max finite; -0 and subnormals exist. An overflow gives +-max with
//     overflow|inexact in every mode. Where IEEE gives a NaN (invalid operation) the result is -max
//     ("the default NaN"); where it gives an infinity, max of that sign (x/0: divide_by_zero).
//     Converting a NaN gives max of the NaN's sign and raises invalid; an infinity gives +-max with
//     invalid (under saturation: no flag).
//   - fnuz (float8_e4m3fnuz, e5m2fnuz, e4m3b11fnuz): the one NaN is the negative-zero encoding
//     1.0..0.0..0 (quiet); there is no -0 (a zero result is +0) and no infinity. An overflow that
//     IEEE sends to infinity gives the NaN, otherwise +-max; x/0 gives the NaN with divide_by_zero.
//     Converting a NaN gives the NaN (invalid only for a signaling one), an infinity the NaN with
//     invalid (under saturation +-max, no flag).
//   - exponent_only (OCP MX E8M0): no sign bit, field e = 0 .. 2^w - 2 is 2^(e - bias) (field 0 is
//     the smallest value, not zero), all ones is the (quiet) NaN. A value is rounded to one
//     significant bit with an unbounded exponent; a result whose rounded exponent is above emax
//     overflows (NaN where IEEE gives infinity, else the largest value), one below emin gives the
//     smallest value with underflow|inexact in every mode. Zero or negative results and operands
//     and infinities are invalid (NaN); under saturation +inf converts to the largest value.
//
// Policies (policy): tininess_before decides tininess on the exact value (|x| < 2^emin);
// flush_to_zero turns a tiny result (per the tininess rule, exact or not) into a zero of its sign
// with underflow|inexact; denormals_are_zero reads subnormal operands as zeros of their sign; saturate
// turns every overflow into +-max (still overflow|inexact) and a converted infinity into +-max
// without a flag. An exponent-only format has no subnormals and no zero: the two subnormal
// policies do not touch its operands or results.
// round_to_integral: an integer above max finite overflows; where the overflow result would be
// finite (directed modes, saturation, finite_only) it is the largest finite integer of the format,
// so the result stays integral (the library's documented rule).
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace oracle {

using boost::multiprecision::cpp_int;

// ---- rounding directions and flags ------------------------------------------------------------

enum class mode : std::uint8_t { nearest_even, nearest_away, toward_zero, upward, downward, odd };
inline constexpr mode all_modes[] = {mode::nearest_even, mode::nearest_away, mode::toward_zero,
                                     mode::upward,       mode::downward,     mode::odd};

inline const char* mode_name(mode m) {
  switch (m) {
    case mode::nearest_even: return "nearest_even";
    case mode::nearest_away: return "nearest_away";
    case mode::toward_zero: return "toward_zero";
    case mode::upward: return "upward";
    case mode::downward: return "downward";
    case mode::odd: return "odd";
  }
  return "?";
}

/// Berkeley SoftFloat/TestFloat flag values (softfloat.h, softfloat_flag_*).
namespace flag {
inline constexpr std::uint8_t none = 0x00;
inline constexpr std::uint8_t inexact = 0x01;
inline constexpr std::uint8_t underflow = 0x02;
inline constexpr std::uint8_t overflow = 0x04;
inline constexpr std::uint8_t divide_by_zero = 0x08;
inline constexpr std::uint8_t invalid = 0x10;
}  // namespace flag

// ---- formats ----------------------------------------------------------------------------------

/// How the encodings beyond the ordinary finite numbers are laid out (see the file comment).
enum class layout : std::uint8_t {
  interchange,    ///< IEEE 754 (nan_only false) or OCP FP8 "fn" (nan_only true)
  finite_only,    ///< every encoding finite, max = all-ones magnitude
  fnuz,           ///< NaN = 1.0..0.0..0, no -0, no infinity, max = all-ones magnitude
  exponent_only,  ///< p = 1, unsigned, 2^(e - bias) for e < 2^w - 1, NaN = all ones
};

/// A binary interchange-style format described by its spec parameters. The encoding is
/// sign | biased exponent (bits - p bits, bias 1 - emin) | fraction (p - 1 bits).
/// nan_only: no infinity; the only NaNs are S.11..1.11..1 and every other all-ones-exponent
/// encoding is finite (OCP FP8 "fn"), which is why emax is one larger than in the IEEE layout.
/// kind (default interchange) selects the other layouts; for them nan_only is false. An
/// exponent_only target has no sign bit: bits = w, p = 1, bias = -emin.
struct target {
  int p;
  int emin;
  int emax;
  int bits;
  bool nan_only;
  layout kind = layout::interchange;

  bool exponent_only() const { return kind == layout::exponent_only; }
  bool has_negative_zero() const { return kind == layout::interchange || kind == layout::finite_only; }
  bool has_subnormals() const { return !exponent_only(); }
  int w() const { return exponent_only() ? bits : bits - p; }
  int bias() const { return exponent_only() ? -emin : 1 - emin; }
  std::uint64_t sign_mask() const { return exponent_only() ? 0 : std::uint64_t{1} << (bits - 1); }
  std::uint64_t frac_mask() const { return (std::uint64_t{1} << (p - 1)) - 1; }
  std::uint64_t exp_field_max() const { return (std::uint64_t{1} << w()) - 1; }
  std::uint64_t mask() const { return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
  std::uint64_t quiet_bit() const { return p >= 2 ? std::uint64_t{1} << (p - 2) : 0; }
  /// The positive NaN of a nan_only format / the positive infinity of an IEEE one; for the other
  /// layouts what stands in for +infinity: max (finite_only), the NaN (fnuz, exponent_only).
  std::uint64_t top_bits() const {
    switch (kind) {
      case layout::interchange: break;
      case layout::finite_only: return mask() & ~sign_mask();
      case layout::fnuz: return sign_mask();
      case layout::exponent_only: return mask();
    }
    return nan_only ? (exp_field_max() << (p - 1)) | frac_mask() : exp_field_max() << (p - 1);
  }
  /// The largest finite encoding, positive.
  std::uint64_t max_bits() const {
    switch (kind) {
      case layout::interchange: break;
      case layout::finite_only:
      case layout::fnuz: return mask() & ~sign_mask();
      case layout::exponent_only: return mask() - 1;
    }
    return top_bits() - 1;  // S.1..10.1..1 (IEEE) / S.1..1.1..10 (nan_only)
  }
  std::uint64_t default_nan() const {
    switch (kind) {
      case layout::interchange: break;
      case layout::finite_only: return sign_mask() | max_bits();  // -max stands in for the NaN
      case layout::fnuz: return sign_mask();
      case layout::exponent_only: return mask();
    }
    return nan_only ? sign_mask() | top_bits() : sign_mask() | top_bits() | quiet_bit();
  }
  /// Significand of the largest finite value: 2^p - 1 (IEEE, finite_only, fnuz, exponent_only) or
  /// 2^p - 2 (nan_only: the all-ones significand at emax is the NaN).
  std::uint64_t max_sig() const {
    return nan_only ? (std::uint64_t{1} << p) - 2 : (std::uint64_t{1} << p) - 1;
  }
};

// Parameters copied from the specifications (IEEE 754-2019 §3.6, OCP FP8 v1.0, NVIDIA TF32),
// not derived from lf::format.
inline constexpr target binary16{11, -14, 15, 16, false};   // IEEE 754-2019 §3.6
inline constexpr target bfloat16{8, -126, 127, 16, false};  // binary32's exponent, p = 8
inline constexpr target binary32{24, -126, 127, 32, false};
inline constexpr target binary64{53, -1022, 1023, 64, false};
inline constexpr target tf32{11, -126, 127, 19, false};  // NVIDIA TF32 as a 19-bit encoding
inline constexpr target e4m3{4, -6, 8, 8, true};         // OCP FP8 v1.0 E4M3: max 448, NaN S.1111.111
inline constexpr target e5m2{3, -14, 15, 8, false};      // OCP FP8 v1.0 E5M2: IEEE-style, max 57344
// OCP Microscaling (MX) v1.0 §5.3: finite only. E2M1 bias 1: 0.11.1 = 1.5 * 2^2 = 6; E3M2 bias 3:
// 0.111.11 = 1.75 * 2^4 = 28; E2M3 bias 1: 0.11.111 = 1.875 * 2^2 = 7.5.
inline constexpr target e2m1{2, 0, 2, 4, false, layout::finite_only};
inline constexpr target e3m2{3, -2, 4, 6, false, layout::finite_only};
inline constexpr target e2m3{4, 0, 2, 6, false, layout::finite_only};
// fnuz (Graphcore arXiv 2206.02915, ml_dtypes): E4M3 bias 8 (emin 1 - 8, emax 15 - 8),
// 0.1111.111 = 1.875 * 2^7 = 240; E5M2 bias 16, 0.11111.11 = 1.75 * 2^15 = 57344; E4M3 bias 11,
// 0.1111.111 = 1.875 * 2^4 = 30.
inline constexpr target e4m3fnuz{4, -7, 7, 8, false, layout::fnuz};
inline constexpr target e5m2fnuz{3, -15, 15, 8, false, layout::fnuz};
inline constexpr target e4m3b11fnuz{4, -10, 4, 8, false, layout::fnuz};
// IEEE-style with infinities and NaNs (ml_dtypes float8_e4m3, float8_e3m4): bias 7, max
// 0.1110.111 = 240; bias 3, max 0.110.1111 = 1.9375 * 2^3 = 15.5.
inline constexpr target e4m3ieee{4, -6, 7, 8, false};
inline constexpr target e3m4{5, -2, 3, 8, false};
// OCP MX v1.0 §5.4.1 E8M0: bias 127, 2^-127 (0x00) .. 2^127 (0xFE), NaN 0xFF.
inline constexpr target e8m0{1, -127, 127, 8, false, layout::exponent_only};

/// The policies beside the rounding direction (see the file comment); the default is IEEE's.
struct policy {
  bool tininess_before = false;
  bool flush_to_zero = false;
  bool denormals_are_zero = false;
  bool saturate = false;
};

/// An encoding and the exception flags an operation raised.
struct result {
  std::uint64_t bits;
  std::uint8_t flags;
};

// ---- exact values -----------------------------------------------------------------------------

/// An exact real: zero, infinity, or (-1)^neg * num/den * 2^exp with num, den > 0.
/// With `tail` (only when den == 1) the value lies strictly between num*2^exp and (num+1)*2^exp:
/// what an inexact square root produces.
struct exact {
  enum class kind : std::uint8_t { zero, finite, infinite };
  kind k = kind::zero;
  bool neg = false;
  cpp_int num = 0;
  cpp_int den = 1;
  long exp = 0;
  bool tail = false;

  static exact zero(bool negative) {
    exact x;
    x.neg = negative;
    return x;
  }
  static exact infinity(bool negative) {
    exact x;
    x.k = kind::infinite;
    x.neg = negative;
    return x;
  }
  /// (-1)^negative * n * 2^e; n == 0 gives a zero of that sign.
  static exact dyadic(bool negative, cpp_int n, long e) {
    exact x;
    x.neg = negative;
    if (n == 0) return x;
    x.k = kind::finite;
    x.num = std::move(n);
    x.exp = e;
    return x;
  }
  static exact rational(bool negative, cpp_int n, cpp_int d, long e) {
    exact x = dyadic(negative, std::move(n), e);
    if (x.k == kind::finite) x.den = std::move(d);
    return x;
  }
  /// A signed integer.
  static exact integer(const cpp_int& v) { return dyadic(v < 0, v < 0 ? cpp_int(-v) : v, 0); }
  /// A finite double, by frexp: independent of any bit layout code.
  static exact from_double(double v) {
    if (std::isinf(v)) return infinity(v < 0);
    if (v == 0) return zero(std::signbit(v));
    int e = 0;
    double m = std::frexp(std::fabs(v), &e);  // v = m * 2^e, m in [0.5, 1)
    const auto n = static_cast<std::uint64_t>(std::ldexp(m, 64 - 11));  // 53 bits, exact
    return dyadic(std::signbit(v), cpp_int(n), e - 53);
  }

  bool is_zero() const { return k == kind::zero; }
  bool is_inf() const { return k == kind::infinite; }
  bool is_finite_nonzero() const { return k == kind::finite; }
};

namespace detail {

inline long msb(const cpp_int& v) { return static_cast<long>(boost::multiprecision::msb(v)); }

/// floor(log2(num/den * 2^exp)) for a finite nonzero value (a tail never changes it: the value
/// stays below (num + 1) * 2^exp <= 2^(msb(num) + 1 + exp)).
inline long floor_log2(const exact& x) {
  if (x.den == 1) return msb(x.num) + x.exp;  // a dyadic value: the leading bit says it
  long k = msb(x.num) - msb(x.den);  // num/den in [2^(k-1), 2^(k+1))
  const bool below = k >= 0 ? x.num < (x.den << static_cast<unsigned>(k))
                            : (x.num << static_cast<unsigned>(-k)) < x.den;
  return (below ? k - 1 : k) + x.exp;
}

enum class part : std::uint8_t { zero, below_half, half, above_half };

/// |x| / 2^q = I + f with I an integer and 0 <= f < 1: returns I and where f lies.
inline cpp_int split(const exact& x, long q, part& f) {
  const long s = x.exp - q;
  if (x.tail) {
    // value/2^q = (num + t) / 2^-s with 0 < t < 1. Needs s < 0 so the tail stays below the cut.
    if (s >= 0) throw std::logic_error("oracle: tail operand needs more significand bits");
    const unsigned sh = static_cast<unsigned>(-s);
    const cpp_int I = x.num >> sh;
    const cpp_int r = x.num - (I << sh);  // 0 <= r < 2^sh; half = 2^(sh-1) is an integer
    // r + t is never 0 and never exactly half: r < half gives r + t < half, r >= half gives more.
    f = r < (cpp_int(1) << (sh - 1)) ? part::below_half : part::above_half;
    return I;
  }
  if (x.den == 1) {  // a dyadic value: shifts, no division
    if (s >= 0) {
      f = part::zero;
      return x.num << static_cast<unsigned>(s);
    }
    const unsigned sh = static_cast<unsigned>(-s);
    cpp_int I = x.num >> sh;
    const cpp_int r = x.num - (I << sh);  // 0 <= r < 2^sh
    if (r == 0) f = part::zero;
    else {
      const cpp_int half = cpp_int(1) << (sh - 1);
      f = r < half ? part::below_half : r == half ? part::half : part::above_half;
    }
    return I;
  }
  cpp_int n = x.num, d = x.den;
  if (s >= 0) n <<= static_cast<unsigned>(s);
  else d <<= static_cast<unsigned>(-s);
  cpp_int I, r;
  boost::multiprecision::divide_qr(n, d, I, r);
  if (r == 0) f = part::zero;
  else {
    const cpp_int twice = r * 2;
    f = twice < d ? part::below_half : twice == d ? part::half : part::above_half;
  }
  return I;
}

/// Applies a direction to a truncated magnitude I with discarded part f.
inline cpp_int apply(mode m, bool neg, cpp_int I, part f) {
  if (f == part::zero) return I;
  bool up = false;
  switch (m) {
    case mode::nearest_even: up = f == part::above_half || (f == part::half && (I & 1) != 0); break;
    case mode::nearest_away: up = f != part::below_half; break;
    case mode::toward_zero: up = false; break;
    case mode::upward: up = !neg; break;
    case mode::downward: up = neg; break;
    case mode::odd:
      if ((I & 1) == 0) ++I;  // jam: truncate, then make the last bit 1
      return I;
  }
  if (up) ++I;
  return I;
}

/// |x| rounded to an integer multiple of 2^q in direction m: the multiplier, and what was discarded.
inline cpp_int round_at(const exact& x, long q, mode m, part& f) {
  cpp_int I = split(x, q, f);  // sets f: keep this a separate statement (argument order is unspecified)
  return apply(m, x.neg, std::move(I), f);
}

/// Compares |x| with n * 2^e (n > 0), x finite nonzero without tail.
inline int compare_magnitude(const exact& x, const cpp_int& n, long e) {
  // num/den * 2^xe  vs  n * 2^e   <=>  num * 2^(xe - m)  vs  n * den * 2^(e - m), m = min
  const long m = std::min(x.exp, e);
  const cpp_int lhs = x.num << static_cast<unsigned>(x.exp - m);
  const cpp_int rhs = (x.den == 1 ? n : cpp_int(n * x.den)) << static_cast<unsigned>(e - m);
  return lhs < rhs ? -1 : lhs == rhs ? 0 : 1;
}

}  // namespace detail

// ---- encodings --------------------------------------------------------------------------------

/// An encoding taken apart: a NaN (signaling or quiet), or an exact value.
struct operand {
  bool nan = false;
  bool snan = false;
  bool neg = false;  ///< the sign bit (also for NaNs)
  exact value;
};

/// daz: a subnormal reads as a zero of its sign (denormals-are-zero).
inline operand decode(const target& t, std::uint64_t bits, bool daz = false) {
  operand o;
  bits &= t.mask();
  o.neg = (bits & t.sign_mask()) != 0;
  if (t.exponent_only()) {  // the whole encoding is the exponent field
    if (bits == t.exp_field_max()) o.nan = true;  // quiet: there is no fraction to tell
    else o.value = exact::dyadic(false, cpp_int(1), static_cast<long>(bits) - t.bias());
    return o;
  }
  if (t.kind == layout::fnuz && bits == t.sign_mask()) {  // 1.0..0.0..0: the NaN, quiet
    o.nan = true;
    return o;
  }
  const std::uint64_t E = (bits >> (t.p - 1)) & t.exp_field_max();
  const std::uint64_t F = bits & t.frac_mask();
  if (E == t.exp_field_max() && t.kind == layout::interchange) {
    if (t.nan_only) {
      if (F == t.frac_mask()) {
        o.nan = true;  // no signaling NaNs in a nan_only format
        return o;
      }
    } else if (F == 0) {
      o.value = exact::infinity(o.neg);
      return o;
    } else {
      o.nan = true;
      o.snan = (F & t.quiet_bit()) == 0;
      return o;
    }
  }
  if (E == 0) {
    // subnormal or zero: F * 2^(emin - (p - 1))
    o.value = exact::dyadic(o.neg, daz ? cpp_int(0) : cpp_int(F), t.emin - (t.p - 1));
    return o;
  }
  const std::uint64_t sig = F | (std::uint64_t{1} << (t.p - 1));
  o.value = exact::dyadic(o.neg, cpp_int(sig), static_cast<long>(E) - t.bias() - (t.p - 1));
  return o;
}

/// A NaN quieted: IEEE sets the quiet bit; the other layouts have one NaN per sign (or one in all).
inline std::uint64_t quiet(const target& t, std::uint64_t nan_bits) {
  return t.nan_only || t.kind != layout::interchange ? nan_bits : nan_bits | t.quiet_bit();
}
inline bool is_nan(const target& t, std::uint64_t b) { return decode(t, b).nan; }

namespace detail {
/// An exact zero result of the given sign: +0 where there is no -0 (fnuz); an exponent-only format
/// has no zero at all, so it is invalid and gives the NaN.
inline result zero_result(const target& t, bool neg) {
  if (t.exponent_only()) return {t.default_nan(), flag::invalid};
  return {neg && t.has_negative_zero() ? t.sign_mask() : 0, flag::none};
}
}  // namespace detail

// ---- THE reference rounding ------------------------------------------------------------------

namespace detail {
/// Rounding into an exponent-only format (see the file comment): one significant bit, an
/// unbounded exponent, then the range.
inline result round_exponent_only(const exact& x, const target& t, mode m, const policy& pol) {
  if (x.is_zero() || x.neg) return {t.default_nan(), flag::invalid};  // no zero, no sign
  if (x.is_inf()) return {t.top_bits(), flag::none};                   // the NaN; callers add flags
  const long E = floor_log2(x);
  part f{};
  const cpp_int R = round_at(x, E, m, f);  // 1 (2^E) or 2 (2^(E+1))
  const bool inexact = f != part::zero;
  const long Er = R == 2 ? E + 1 : E;
  if (Er > t.emax) {
    const bool to_top = !pol.saturate && (m == mode::nearest_even || m == mode::nearest_away || m == mode::upward);
    return {to_top ? t.top_bits() : t.max_bits(), static_cast<std::uint8_t>(flag::overflow | flag::inexact)};
  }
  if (Er < t.emin) return {0, static_cast<std::uint8_t>(flag::underflow | flag::inexact)};  // 2^emin
  std::uint8_t flags = inexact ? flag::inexact : flag::none;
  if (inexact && pol.tininess_before && E < t.emin) flags |= flag::underflow;
  return {static_cast<std::uint64_t>(Er + t.bias()), flags};
}
}  // namespace detail

/// Rounds an exact value to format t in direction m, with IEEE 754-2019 flags (tininess after
/// rounding unless the policy says before). Zeros keep their sign (+0 in fnuz); infinity gives
/// infinity (or, without one, what stands in for it, no flag: the caller raises whatever the
/// operation needs).
inline result round(const exact& x, const target& t, mode m, const policy& pol = {}) {
  if (t.exponent_only()) return detail::round_exponent_only(x, t, m, pol);
  const std::uint64_t sign = x.neg ? t.sign_mask() : 0;
  if (x.is_zero()) return detail::zero_result(t, x.neg);
  if (x.is_inf()) return {t.kind == layout::fnuz ? t.top_bits() : sign | t.top_bits(), flag::none};

  // 1. The exponent of the leading digit, and the quantum of the result's binade (the grid stops
  //    shrinking at emin: subnormals).
  const long E = detail::floor_log2(x);
  const long q = std::max<long>(E, t.emin) - (t.p - 1);
  detail::part f{};
  cpp_int R = detail::round_at(x, q, m, f);
  const bool inexact = f != detail::part::zero;

  // 2. Overflow (IEEE 754-2019 §7.4): "the destination format's largest finite number is exceeded
  //    in magnitude by what would have been the rounded floating-point result were the exponent
  //    range unbounded". For E >= emin, q is already the unbounded quantum and R * 2^q that
  //    result, in every mode. (For an IEEE format under nearest this is §4.3.1's cut, magnitude at
  //    least b^emax (b - 1/2 b^(1-p)) = max + ulp/2, because max has an odd last digit and the tie
  //    rounds up; a format without infinity has an even one, S.1..1.1..10, so under nearest_even
  //    its tie max + ulp/2 rounds down to max and does not overflow: E4M3 464 -> 448.)
  const long ulp_max_exp = t.emax - (t.p - 1);
  const bool over =
      E >= t.emin && detail::compare_magnitude(exact::dyadic(false, R, q), cpp_int(t.max_sig()), ulp_max_exp) > 0;
  if (over) {
    bool to_top = false;  // to infinity (IEEE) or to the NaN (nan_only, fnuz)
    switch (m) {
      case mode::nearest_even:
      case mode::nearest_away: to_top = true; break;
      case mode::toward_zero:
      case mode::odd: to_top = false; break;
      case mode::upward: to_top = !x.neg; break;
      case mode::downward: to_top = x.neg; break;
    }
    if (pol.saturate || t.kind == layout::finite_only) to_top = false;
    const std::uint64_t top = t.kind == layout::fnuz ? t.top_bits() : sign | t.top_bits();
    return {to_top ? top : sign | t.max_bits(), static_cast<std::uint8_t>(flag::overflow | flag::inexact)};
  }

  // 3. Tininess: before rounding, |x| < 2^emin; after rounding (the default), round to p digits
  //    as if the exponent range had no lower end and ask whether that is still below 2^emin.
  bool tiny = false;
  if (E < t.emin) {
    if (pol.tininess_before) {
      tiny = true;
    } else {
      const long qu = E - (t.p - 1);
      detail::part fu{};
      const cpp_int Ru = detail::round_at(x, qu, m, fu);
      tiny = detail::compare_magnitude(exact::dyadic(false, Ru, qu), cpp_int(1), t.emin) < 0;
    }
  }
  // Flush-to-zero: a tiny result, exact or not, becomes a zero of its sign.
  if (tiny && pol.flush_to_zero)
    return {detail::zero_result(t, x.neg).bits, static_cast<std::uint8_t>(flag::underflow | flag::inexact)};
  std::uint8_t flags = inexact ? flag::inexact : flag::none;
  if (tiny && inexact) flags |= flag::underflow;

  // 4. Encode R * 2^q.
  long qq = q;
  const cpp_int two_p = cpp_int(1) << static_cast<unsigned>(t.p);
  if (R == two_p) {  // carry into the next binade
    R >>= 1;
    ++qq;
  }
  if (R == 0) return {detail::zero_result(t, x.neg).bits, flags};
  const cpp_int hidden = cpp_int(1) << static_cast<unsigned>(t.p - 1);
  if (R < hidden) {  // subnormal: only possible at the lowest quantum
    assert(qq == t.emin - (t.p - 1));
    return {sign | static_cast<std::uint64_t>(R), flags};
  }
  const long biased = qq + (t.p - 1) + t.bias();
  assert(biased >= 1 && static_cast<std::uint64_t>(biased) <= t.exp_field_max());
  const auto frac = static_cast<std::uint64_t>(R - hidden);
  return {sign | (static_cast<std::uint64_t>(biased) << (t.p - 1)) | frac, flags};
}

// ---- stochastic rounding ----------------------------------------------------------------------

namespace detail {
/// D = floor(f * 2^32) where f in [0, 1) is the part of |x| / 2^q below the integer I: "the first
/// 32 discarded bits" of lf::rounding::stochastic's definition (zero-padded when fewer exist).
inline std::uint32_t first_32_discarded(const exact& x, long q, const cpp_int& I) {
  const long s = x.exp - q;  // |x| / 2^q = num * 2^s / den (+ tail * 2^s)
  cpp_int n = x.num, d = x.den;
  if (x.tail) {
    // (num + t) * 2^s with 0 < t < 1: floor(((num - I * 2^-s) + t) * 2^(32 + s)) equals
    // floor((num - I * 2^-s) * 2^(32 + s)) when 32 + s <= 0 (the tail stays below one unit).
    if (s >= 0 || 32 + s > 0) throw std::logic_error("oracle: tail operand needs more bits for stochastic");
    const cpp_int r = n - (I << static_cast<unsigned>(-s));
    return static_cast<std::uint32_t>(r >> static_cast<unsigned>(-(32 + s)));
  }
  // f * 2^32 = (num * 2^s - I * den) * 2^32 / den
  if (s >= 0) n <<= static_cast<unsigned>(s);
  else d <<= static_cast<unsigned>(-s);
  const cpp_int r = n - I * d;  // 0 <= r < d
  return static_cast<std::uint32_t>((r << 32) / d);
}
}  // namespace detail

/// lf::rounding::stochastic as documented in rounding.hpp: the magnitude is rounded up iff
/// random < D, D = the first 32 discarded bits. Overflow happens when the chosen value exceeds max
/// finite (and then gives infinity, or the NaN of a format without one); tininess is decided
/// after rounding with an unbounded exponent and the same random word.
inline result round_stochastic(const exact& x, const target& t, std::uint32_t random) {
  const std::uint64_t sign = x.neg ? t.sign_mask() : 0;
  if (x.is_zero()) return {sign, flag::none};
  if (x.is_inf()) return {sign | t.top_bits(), flag::none};
  auto stochastic_at = [&](long q, bool& inexact) {
    detail::part f{};
    cpp_int I = detail::split(x, q, f);
    inexact = f != detail::part::zero;
    if (inexact && random < detail::first_32_discarded(x, q, I)) ++I;
    return I;
  };
  const long E = detail::floor_log2(x);
  const long q = std::max<long>(E, t.emin) - (t.p - 1);
  bool inexact = false;
  const cpp_int R = stochastic_at(q, inexact);
  if (detail::compare_magnitude(exact::dyadic(false, R, q), cpp_int(t.max_sig()), t.emax - (t.p - 1)) > 0)
    return {sign | t.top_bits(), static_cast<std::uint8_t>(flag::overflow | flag::inexact)};
  bool tiny = false;
  if (E < t.emin) {
    bool unused = false;
    const long qu = E - (t.p - 1);
    const cpp_int Ru = stochastic_at(qu, unused);
    tiny = detail::compare_magnitude(exact::dyadic(false, Ru, qu), cpp_int(1), t.emin) < 0;
  }
  result r = round(exact::dyadic(x.neg, R, q), t, mode::toward_zero);  // representable: exact
  if (R == 0) r.bits = sign;
  r.flags = static_cast<std::uint8_t>((inexact ? flag::inexact : 0) | (inexact && tiny ? flag::underflow : 0));
  return r;
}

// ---- exact arithmetic -------------------------------------------------------------------------

namespace detail {
/// Exact sum of two finite nonzero values (no tails); an exact zero comes back as kind::zero
/// with neg = false (the caller decides the sign of an exact zero, §6.3).
inline exact exact_add(const exact& a, const exact& b) {
  const long e = std::min(a.exp, b.exp);
  cpp_int A = (a.num * b.den) << static_cast<unsigned>(a.exp - e);
  cpp_int B = (b.num * a.den) << static_cast<unsigned>(b.exp - e);
  if (a.neg) A = -A;
  if (b.neg) B = -B;
  const cpp_int S = A + B;
  if (S == 0) return exact::zero(false);
  return exact::rational(S < 0, S < 0 ? cpp_int(-S) : S, a.den * b.den, e);
}
inline exact exact_mul(const exact& a, const exact& b) {
  return exact::rational(a.neg != b.neg, a.num * b.num, a.den * b.den, a.exp + b.exp);
}
inline exact exact_div(const exact& a, const exact& b) {
  return exact::rational(a.neg != b.neg, a.num * b.den, a.den * b.num, a.exp - b.exp);
}
/// sqrt of a positive finite dyadic value, as a root with >= 70 bits plus a tail when inexact.
inline exact exact_sqrt(const exact& a) {
  cpp_int n = a.num;
  long e = a.exp;
  if (e & 1) {  // make the exponent even
    n <<= 1;
    --e;
  }
  const long have = msb(n) + 1;
  long shift = 2 * 72 - have;  // root gets ~72 bits: far more than p + 2 for any p <= 64
  if (shift < 0) shift = 0;
  shift += shift & 1;
  n <<= static_cast<unsigned>(shift);
  e -= shift;
  cpp_int r;
  cpp_int root = boost::multiprecision::sqrt(n, r);
  exact x = exact::dyadic(false, root, e / 2);
  x.tail = r != 0;
  return x;
}
/// Signed comparison of two values that are zero or finite (no tails): -1, 0, 1.
inline int compare_values(const exact& a, const exact& b) {
  auto sgn = [](const exact& v) { return v.is_zero() ? 0 : v.neg ? -1 : 1; };
  if (a.is_inf() || b.is_inf()) {
    const int ka = a.is_inf() ? (a.neg ? -2 : 2) : sgn(a);
    const int kb = b.is_inf() ? (b.neg ? -2 : 2) : sgn(b);
    if (ka == kb && (ka == 2 || ka == -2)) return 0;
    if (a.is_inf() || b.is_inf()) return ka < kb ? -1 : ka > kb ? 1 : 0;
  }
  if (a.is_zero() || b.is_zero()) {
    const int sa = sgn(a), sb = sgn(b);
    return sa < sb ? -1 : sa > sb ? 1 : 0;
  }
  const exact d = exact_add(a, exact{exact::kind::finite, !b.neg, b.num, b.den, b.exp, false});
  return d.is_zero() ? 0 : d.neg ? -1 : 1;
}
}  // namespace detail

// ---- operations (x86 SSE / SoftFloat-8086-SSE conventions, see the file comment) --------------
//
// Each arithmetic operation is two steps: prepare_<op> reads the operands (denormals-are-zero
// decides how) and computes the exact result, or the special one (NaN, invalid, an exact zero of
// known sign, ...), which needs neither mode nor policy; finish() then rounds it. <op>(...) is the
// two together. A test that checks many modes and policies prepares once and finishes many times.

/// What an operation yields before its rounding.
struct outcome {
  enum class kind : std::uint8_t {
    done,            ///< r is the result in every mode and policy
    value,           ///< v rounded, with extra ORed into the flags (divide_by_zero)
    exact_zero_sum,  ///< §6.3: x + (-x), +0 (-0 rounding downward)
  };
  kind k = kind::done;
  result r{0, flag::none};
  exact v;
  std::uint8_t extra = flag::none;

  static outcome final_result(result res) {
    outcome o;
    o.r = res;
    return o;
  }
  static outcome rounded(exact x, std::uint8_t extra_flags = flag::none) {
    outcome o;
    o.k = kind::value;
    o.v = std::move(x);
    o.extra = extra_flags;
    return o;
  }
  static outcome zero_sum() {
    outcome o;
    o.k = kind::exact_zero_sum;
    return o;
  }
};

namespace detail {
/// First NaN operand, quieted; invalid when any operand is signaling.
inline result propagate(const target& t, std::uint64_t a, std::uint64_t b) {
  const operand x = decode(t, a), y = decode(t, b);
  result r{quiet(t, x.nan ? a : b) & t.mask(), flag::none};
  if (x.snan || y.snan) r.flags |= flag::invalid;
  return r;
}
inline result invalid(const target& t) { return {t.default_nan(), flag::invalid}; }
inline result zero_sum(const target& t, mode m) {  // §6.3: x + (-x) = +0, or -0 rounding downward
  return zero_result(t, m == mode::downward);
}
inline outcome done(result r) { return outcome::final_result(r); }

/// a + b on decoded operands (a_bits, b_bits only for NaN propagation).
inline outcome add_operands(const target& t, const operand& x, const operand& y, std::uint64_t a_bits,
                            std::uint64_t b_bits) {
  if (x.nan || y.nan) return done(propagate(t, a_bits, b_bits));
  if (x.value.is_inf() && y.value.is_inf()) {
    if (x.neg != y.neg) return done(invalid(t));
    return outcome::rounded(x.value);
  }
  if (x.value.is_inf()) return outcome::rounded(x.value);
  if (y.value.is_inf()) return outcome::rounded(y.value);
  if (x.value.is_zero() && y.value.is_zero()) {
    if (x.neg == y.neg) return done(zero_result(t, x.neg));
    return outcome::zero_sum();
  }
  if (x.value.is_zero()) return outcome::rounded(y.value);
  if (y.value.is_zero()) return outcome::rounded(x.value);
  exact s = exact_add(x.value, y.value);
  if (s.is_zero()) return outcome::zero_sum();
  return outcome::rounded(std::move(s));
}
}  // namespace detail

/// The second step: the outcome rounded into t in direction m under the policy.
inline result finish(const outcome& o, const target& t, mode m, const policy& pol = {}) {
  switch (o.k) {
    case outcome::kind::done: return o.r;
    case outcome::kind::exact_zero_sum: return detail::zero_sum(t, m);
    case outcome::kind::value: break;
  }
  result r = round(o.v, t, m, pol);
  r.flags |= o.extra;
  return r;
}

/// §5.4.1 addition.
inline outcome prepare_add(const target& t, std::uint64_t a, std::uint64_t b, bool daz = false) {
  return detail::add_operands(t, decode(t, a, daz), decode(t, b, daz), a, b);
}

/// §5.4.1 subtraction: a + (-b); a NaN b propagates with its own sign. The negation is of the
/// value (an unsigned or fnuz format cannot flip a sign bit).
inline outcome prepare_sub(const target& t, std::uint64_t a, std::uint64_t b, bool daz = false) {
  operand y = decode(t, b, daz);
  if (!y.nan) {
    y.neg = !y.neg;
    y.value.neg = !y.value.neg;
  }
  return detail::add_operands(t, decode(t, a, daz), y, a, b);
}

/// §5.4.1 multiplication.
inline outcome prepare_mul(const target& t, std::uint64_t a, std::uint64_t b, bool daz = false) {
  const operand x = decode(t, a, daz), y = decode(t, b, daz);
  if (x.nan || y.nan) return detail::done(detail::propagate(t, a, b));
  const bool neg = x.neg != y.neg;
  if (x.value.is_inf() || y.value.is_inf()) {
    if (x.value.is_zero() || y.value.is_zero()) return detail::done(detail::invalid(t));
    return outcome::rounded(exact::infinity(neg));
  }
  if (x.value.is_zero() || y.value.is_zero()) return detail::done(detail::zero_result(t, neg));
  return outcome::rounded(detail::exact_mul(x.value, y.value));
}

/// §5.4.1 division; finite nonzero / 0 raises divide_by_zero (§7.3).
inline outcome prepare_div(const target& t, std::uint64_t a, std::uint64_t b, bool daz = false) {
  const operand x = decode(t, a, daz), y = decode(t, b, daz);
  if (x.nan || y.nan) return detail::done(detail::propagate(t, a, b));
  const bool neg = x.neg != y.neg;
  if (x.value.is_inf() && y.value.is_inf()) return detail::done(detail::invalid(t));
  if (x.value.is_zero() && y.value.is_zero()) return detail::done(detail::invalid(t));
  if (x.value.is_inf()) return outcome::rounded(exact::infinity(neg));
  if (y.value.is_inf() || x.value.is_zero()) return detail::done(detail::zero_result(t, neg));
  if (y.value.is_zero()) {
    // The infinity (or what stands in for it: max of finite_only, fnuz's NaN), exact: saturation
    // does not apply, nothing overflowed.
    const std::uint64_t inf = t.kind == layout::fnuz ? t.top_bits() : (neg ? t.sign_mask() : 0) | t.top_bits();
    return detail::done({inf, flag::divide_by_zero});
  }
  return outcome::rounded(detail::exact_div(x.value, y.value));
}

/// §5.4.1 squareRoot: sqrt(-0) = -0 (+0 in fnuz), negative operands (but -0) are invalid.
inline outcome prepare_sqrt(const target& t, std::uint64_t a, bool daz = false) {
  const operand x = decode(t, a, daz);
  if (x.nan) return detail::done(detail::propagate(t, a, a));
  if (x.value.is_zero()) return detail::done(detail::zero_result(t, x.neg));
  if (x.neg) return detail::done(detail::invalid(t));
  if (x.value.is_inf()) return detail::done({a & t.mask(), flag::none});
  return outcome::rounded(detail::exact_sqrt(x.value));
}

/// §5.4.1 fusedMultiplyAdd a*b + c, one rounding. NaN order: a NaN a or b wins (c sNaN still
/// raises invalid); inf*0 is invalid with the default NaN even when c is a quiet NaN; then c.
inline outcome prepare_fma(const target& t, std::uint64_t a, std::uint64_t b, std::uint64_t c, bool daz = false) {
  const operand x = decode(t, a, daz), y = decode(t, b, daz), z = decode(t, c, daz);
  if (x.nan || y.nan) {
    result r = detail::propagate(t, a, b);
    if (z.snan) r.flags |= flag::invalid;
    return detail::done(r);
  }
  const bool pneg = x.neg != y.neg;
  const bool pinf = x.value.is_inf() || y.value.is_inf();
  const bool pzero = x.value.is_zero() || y.value.is_zero();
  if (pinf && pzero) return detail::done(detail::invalid(t));
  if (z.nan) return detail::done(detail::propagate(t, c, c));
  if (pinf) {
    if (z.value.is_inf() && z.neg != pneg) return detail::done(detail::invalid(t));
    return outcome::rounded(exact::infinity(pneg));
  }
  if (z.value.is_inf()) return detail::done({c & t.mask(), flag::none});
  if (pzero) {
    if (z.value.is_zero()) {
      if (z.neg == pneg) return detail::done(detail::zero_result(t, pneg));
      return outcome::zero_sum();
    }
    return outcome::rounded(z.value);
  }
  exact p = detail::exact_mul(x.value, y.value);
  if (z.value.is_zero()) return outcome::rounded(std::move(p));
  exact s = detail::exact_add(p, z.value);
  if (s.is_zero()) return outcome::zero_sum();
  return outcome::rounded(std::move(s));
}

/// §5.3.1 remainder: a - n*b, n the integer nearest a/b (ties to even). Exact; invalid for
/// rem(inf, b) and rem(a, 0); rem(a, inf) = a; a zero result has a's sign.
inline outcome prepare_rem(const target& t, std::uint64_t a, std::uint64_t b, bool daz = false) {
  const operand x = decode(t, a, daz), y = decode(t, b, daz);
  if (x.nan || y.nan) return detail::done(detail::propagate(t, a, b));
  if (x.value.is_inf() || y.value.is_zero()) return detail::done(detail::invalid(t));
  if (x.value.is_zero()) return detail::done(detail::zero_result(t, x.neg));
  if (y.value.is_inf()) return outcome::rounded(x.value);
  // n = nearest integer to |a/b| (ties even); r = a - sign * n * b
  const exact qv = detail::exact_div(x.value, y.value);
  detail::part f{};
  const cpp_int n = detail::round_at(qv, 0, mode::nearest_even, f);
  exact nb = y.value;
  nb.neg = x.neg;  // n carries the sign of a/b; n*b then has a's sign
  nb.num *= n;
  if (n == 0) return outcome::rounded(x.value);
  exact r = detail::exact_add(x.value, exact{exact::kind::finite, !nb.neg, nb.num, nb.den, nb.exp, false});
  if (r.is_zero()) return detail::done(detail::zero_result(t, x.neg));
  return outcome::rounded(std::move(r));
}

inline result add(const target& t, std::uint64_t a, std::uint64_t b, mode m, const policy& pol = {}) {
  return finish(prepare_add(t, a, b, pol.denormals_are_zero), t, m, pol);
}
inline result sub(const target& t, std::uint64_t a, std::uint64_t b, mode m, const policy& pol = {}) {
  return finish(prepare_sub(t, a, b, pol.denormals_are_zero), t, m, pol);
}
inline result mul(const target& t, std::uint64_t a, std::uint64_t b, mode m, const policy& pol = {}) {
  return finish(prepare_mul(t, a, b, pol.denormals_are_zero), t, m, pol);
}
inline result div(const target& t, std::uint64_t a, std::uint64_t b, mode m, const policy& pol = {}) {
  return finish(prepare_div(t, a, b, pol.denormals_are_zero), t, m, pol);
}
inline result sqrt(const target& t, std::uint64_t a, mode m, const policy& pol = {}) {
  return finish(prepare_sqrt(t, a, pol.denormals_are_zero), t, m, pol);
}
inline result fma(const target& t, std::uint64_t a, std::uint64_t b, std::uint64_t c, mode m, const policy& pol = {}) {
  return finish(prepare_fma(t, a, b, c, pol.denormals_are_zero), t, m, pol);
}
inline result rem(const target& t, std::uint64_t a, std::uint64_t b, mode m, const policy& pol = {}) {
  return finish(prepare_rem(t, a, b, pol.denormals_are_zero), t, m, pol);
}

/// Rounds a finite value to an integer (as a signed cpp_int) in direction m; sets `inexact`.
inline cpp_int integer_part(const exact& v, mode m, bool& inexact) {
  if (v.is_zero()) {
    inexact = false;
    return 0;
  }
  detail::part f{};
  const cpp_int I = detail::round_at(v, 0, m, f);
  inexact = f != detail::part::zero;
  return v.neg ? cpp_int(-I) : I;
}

/// §5.3.1 roundToIntegral (exact = false: no flags) / roundToIntegralExact (inexact when changed).
inline result round_to_integral(const target& t, std::uint64_t a, mode m, bool exact_variant, const policy& pol = {}) {
  const operand x = decode(t, a, pol.denormals_are_zero);
  if (x.nan) return detail::propagate(t, a, a);
  if (x.value.is_inf()) return {a & t.mask(), flag::none};
  if (x.value.is_zero()) return detail::zero_result(t, x.neg);
  bool inexact = false;
  const cpp_int I = integer_part(x.value, m, inexact);
  if (I == 0) {
    // A zero: of x's sign (+0 in fnuz); none in an exponent-only format: invalid, the NaN.
    result z = detail::zero_result(t, x.neg);
    if (z.flags == flag::none && inexact && exact_variant) z.flags = flag::inexact;
    return z;
  }
  result r = round(exact::integer(I), t, m, pol);
  // An integer up to max finite is exact in the format; one above it (a format whose max finite is
  // not an integer, e.g. E2M3 with max 7.5 and I = 8) overflows like any other result: round()
  // raised overflow and inexact (§7.4) and gave the mode's overflow value. Where that value is
  // finite it is max finite, not an integer: the result is then the largest integer below it.
  if ((r.flags & flag::overflow) != 0) {
    const operand got = decode(t, r.bits);
    if (!got.nan && !got.value.is_inf()) {
      const exact largest = decode(t, t.max_bits()).value;
      bool unused = false;
      cpp_int L = integer_part(largest, mode::toward_zero, unused);
      if (x.neg) L = -L;
      r.bits = round(exact::integer(L), t, mode::toward_zero).bits;
    }
    return r;
  }
  r.flags = (inexact && exact_variant) ? flag::inexact : flag::none;
  return r;
}

/// §5.4.2 convertFormat. NaN payloads keep their leading fraction bits and are quieted (sNaN
/// raises invalid); into a nan_only format any NaN becomes the NaN of the same sign; infinity
/// into a format without one is invalid and gives the NaN of the same sign. The other layouts as
/// the file comment says; under saturation an infinity gives max finite of its sign, no flag.
inline result convert(const target& to, const target& from, std::uint64_t a, mode m, const policy& pol = {}) {
  const operand x = decode(from, a, pol.denormals_are_zero);
  const std::uint64_t sign = x.neg ? to.sign_mask() : 0;
  if (x.nan) {
    const std::uint8_t fl = x.snan ? flag::invalid : flag::none;
    switch (to.kind) {
      case layout::interchange: break;
      case layout::finite_only: return {sign | to.max_bits(), flag::invalid};
      case layout::fnuz:
      case layout::exponent_only: return {to.default_nan(), fl};  // the one NaN
    }
    if (to.nan_only) return {sign | to.top_bits(), fl};
    const std::uint64_t frac = a & from.frac_mask();
    const std::uint64_t payload = from.p >= to.p ? frac >> (from.p - to.p) : frac << (to.p - from.p);
    return {sign | to.top_bits() | to.quiet_bit() | (payload & to.frac_mask()), fl};
  }
  if (x.value.is_inf()) {
    if (to.exponent_only() && x.neg) return detail::invalid(to);  // no negative values at all
    if (pol.saturate) return {sign | to.max_bits(), flag::none};
    if (to.kind == layout::interchange && !to.nan_only) return {sign | to.top_bits(), flag::none};
    // no infinity: the NaN of that sign (nan_only), the NaN (fnuz, exponent_only), +-max (finite_only)
    return {to.kind == layout::interchange || to.kind == layout::finite_only ? sign | to.top_bits() : to.top_bits(),
            flag::invalid};
  }
  if (x.value.is_zero()) return detail::zero_result(to, x.neg);
  return round(x.value, to, m, pol);
}

/// §5.4.1 convertFromInt.
inline result from_int(const target& t, const cpp_int& v, mode m) {
  if (v == 0) return {0, flag::none};
  return round(exact::integer(v), t, m);
}

/// §5.8 convertToInteger(Exact) into an integer type of `width` bits. NaN, infinity and values
/// that round outside the type raise invalid (only) and give x86's "integer indefinite": the
/// most negative value for signed types, all ones for unsigned. The result is returned as its
/// two's-complement bit pattern in the low `width` bits.
struct int_result {
  std::uint64_t bits;
  std::uint8_t flags;
};
inline int_result to_int(const target& t, std::uint64_t a, mode m, bool exact_variant, int width, bool is_signed) {
  const cpp_int lo = is_signed ? cpp_int(-(cpp_int(1) << (width - 1))) : cpp_int(0);
  const cpp_int hi = is_signed ? cpp_int((cpp_int(1) << (width - 1)) - 1) : cpp_int((cpp_int(1) << width) - 1);
  const std::uint64_t wmask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  const std::uint64_t indefinite = is_signed ? (std::uint64_t{1} << (width - 1)) : wmask;
  const operand x = decode(t, a);
  if (x.nan || x.value.is_inf()) return {indefinite, flag::invalid};
  bool inexact = false;
  const cpp_int I = integer_part(x.value, m, inexact);
  if (I < lo || I > hi) return {indefinite, flag::invalid};
  const cpp_int pattern = I < 0 ? cpp_int((cpp_int(1) << width) + I) : I;
  return {static_cast<std::uint64_t>(pattern) & wmask, (inexact && exact_variant) ? flag::inexact : flag::none};
}

/// §5.11 comparison: less / equivalent / greater / unordered. Invalid for a signaling NaN
/// operand, or for any NaN when `signaling` (the §5.6.1 signaling predicates).
inline std::partial_ordering compare(const target& t, std::uint64_t a, std::uint64_t b, bool signaling,
                                     std::uint8_t& flags) {
  const operand x = decode(t, a), y = decode(t, b);
  if (x.nan || y.nan) {
    if (signaling || x.snan || y.snan) flags |= flag::invalid;
    return std::partial_ordering::unordered;
  }
  const int c = detail::compare_values(x.value, y.value);
  return c < 0 ? std::partial_ordering::less : c > 0 ? std::partial_ordering::greater : std::partial_ordering::equivalent;
}

/// IEEE 754-2019 §9.6 minimum / maximum / minimumNumber / maximumNumber: -0 < +0; minimum and
/// maximum return a quiet NaN if either operand is a NaN (the first NaN, quieted); the *Number
/// forms return the number when exactly one operand is a NaN. Any signaling NaN raises invalid.
inline result min_max(const target& t, std::uint64_t a, std::uint64_t b, bool want_max, bool number) {
  const operand x = decode(t, a), y = decode(t, b);
  if (x.nan || y.nan) {
    const std::uint8_t fl = (x.snan || y.snan) ? flag::invalid : flag::none;
    if (number && !(x.nan && y.nan)) return {(x.nan ? b : a) & t.mask(), fl};
    return {quiet(t, x.nan ? a : b) & t.mask(), fl};
  }
  int c = detail::compare_values(x.value, y.value);
  if (c == 0 && x.value.is_zero()) c = (x.neg == y.neg) ? 0 : (x.neg ? -1 : 1);  // -0 < +0
  const bool pick_a = want_max ? c >= 0 : c <= 0;
  return {(pick_a ? a : b) & t.mask(), flag::none};
}
inline result minimum(const target& t, std::uint64_t a, std::uint64_t b) { return min_max(t, a, b, false, false); }
inline result maximum(const target& t, std::uint64_t a, std::uint64_t b) { return min_max(t, a, b, true, false); }
inline result minimum_number(const target& t, std::uint64_t a, std::uint64_t b) { return min_max(t, a, b, false, true); }
inline result maximum_number(const target& t, std::uint64_t a, std::uint64_t b) { return min_max(t, a, b, true, true); }

/// Hex of an encoding, for failure messages.
inline std::string hex(std::uint64_t v, int bits) {
  static const char* digits = "0123456789ABCDEF";
  std::string s = "0x";
  for (int i = (bits + 3) / 4 - 1; i >= 0; --i) s += digits[(v >> (4 * i)) & 0xF];
  return s;
}

}  // namespace oracle
