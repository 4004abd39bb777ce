// libfloat/core/arith.hpp: IEEE 754-2019 operations on encodings of any lf::format.
//
// Each operation handles NaNs, infinities and zeros, builds the exact result (or an exact
// significand plus a sticky bit) and leaves every rounding decision to detail::round_pack.
// Functions here take the format at run time; lf::fp<F> (fp.hpp) wraps them with types.
//
// NaN rule (IEEE 754-2019 §6.2.3 leaves the choice open; this is Berkeley SoftFloat's x86-SSE
// specialisation, so TestFloat's expected results match bit for bit; it agrees with x86 SSE
// except that fma(0, ∞, qNaN) gives the default NaN and raises invalid, where x86 FMA returns the
// NaN addend):
// an operation with NaN operands returns the first NaN operand, quieted; a signaling NaN operand
// raises invalid. An invalid operation (∞-∞, 0*∞, 0/0, ∞/∞, sqrt(-x), rem(∞,y), rem(x,0)) returns
// the format's default NaN (format::default_nan_bits) and raises invalid.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

using bits_t = std::uint64_t;

namespace detail {

constexpr bool daz(const env& e) { return e.policy.inputs == subnormal_inputs::treat_as_zero; }

/// Quiets a NaN of format f (IEEE 754-2019 §6.2.1: the quiet bit is the fraction's msb).
constexpr bits_t quiet(const format& f, bits_t a) { return f.kind == nonfinite::ieee ? a | f.quiet_bit() : a; }

/// SoftFloat's propagateNaN for two operands, at least one of them a NaN.
LIBFLOAT_INLINE constexpr bits_t propagate_nan(const format& f, bits_t a, bits_t b, status& st) {
  if (is_snan_bits(f, a) || is_snan_bits(f, b)) st |= status::invalid;
  return quiet(f, is_nan_bits(f, a) ? a : b);
}

constexpr bits_t invalid_nan(const format& f, status& st) {
  st |= status::invalid;
  return f.default_nan_bits();
}

constexpr bits_t infinity(const format& f, bool negative) { return sign_bit(f, negative) | f.infinity_bits(); }

/// Exact sum of two nonzero finite values x = sa*2^ea, y = sb*2^eb (sa, sb < 2^113): the result
/// as {sig, exp, sticky} ready for round_pack, or sig == 0 && !sticky for an exact zero.
template <typename U>
struct exact_value {
  bool negative;
  int exp;
  U sig;
  bool sticky;
};
/// With W = 64 or 128 bits: both leading bits go to bit W - 4. Inputs have at most 2p bits
/// (<= 48 for the 64-bit core, <= 106 for the 128-bit one), so at least 12 low bits of each are
/// zero and a right shift by d <= 12 loses nothing; for d > 12 there is no cancellation beyond one
/// bit and the result keeps >= W - 6 bits, far more than p + 2. Sums stay below 2^(W-2).
///
/// P > 0 says both operands are unpacked encodings of a format with precision P (canonical: a
/// larger exponent means a larger magnitude, and equal exponents compare by significand, with
/// subnormals at emin's exponent). Then one constant shift puts a normal's leading bit at W - 4
/// with the same ordering, and a subnormal operand only meets operands at its own exponent
/// (d = 0), so nothing is lost; no bit widths are needed.
template <typename U, int P = 0>
LIBFLOAT_INLINE constexpr exact_value<U> exact_add(bool na, int ea, U sa, bool nb, int eb, U sb) {
  constexpr int lead = width_of<U> - 3;  // width after normalising
  if constexpr (P > 0) {
    sa <<= (lead - P);
    ea -= (lead - P);
    sb <<= (lead - P);
    eb -= (lead - P);
  } else {
    const int wa = bit_width(sa), wb = bit_width(sb);
    sa <<= (lead - wa);
    ea -= (lead - wa);
    sb <<= (lead - wb);
    eb -= (lead - wb);
  }
  // Written without data-dependent branches: on random operands which operand is larger, and
  // whether the signs agree, are coin flips. Masks rather than ?:, which GCC may turn into branches.
  const bool swap = (ea < eb) | ((ea == eb) & (sa < sb));
  const U m = U{0} - U{swap};
  const U ts = (sa ^ sb) & m;
  sa ^= ts;
  sb ^= ts;
  const int te = (ea ^ eb) & -static_cast<int>(swap);
  ea ^= te;
  eb ^= te;
  const bool negative = swap ? nb : na;
  const bool differ = na != nb;
  // Align: d >= W - 1 shifts everything out of sb (< 2^(W-3)) into the sticky bit, as d = W - 1 does.
  int d = ea - eb;
  d = d < width_of<U> - 1 ? d : width_of<U> - 1;
  const bool sticky = (sb & ((U{1} << d) - 1)) != 0;
  sb >>= d;
  // Opposite signs: x - (y + δ), 0 < δ < 1, is (diff - 1) + (1 - δ) when sticky.
  const U md = U{0} - U{differ};
  return {negative, ea, sa + ((sb ^ md) - md) - U{static_cast<bool>(differ & sticky)}, sticky};
}

template <typename U>
LIBFLOAT_INLINE constexpr bits_t round_exact(const format& f, const exact_value<U>& x, const env& e, status& st) {
  return round_pack(f, x.negative, x.exp, x.sig, x.sticky, e, st);
}

/// True when every finite value of f is an integer multiple of its smallest subnormal that fits,
/// with a carry, in a 63-bit magnitude: binary16 needs 42 bits, the FP8 formats fewer.
/// (Not an exponent-only format: its field 0 is a normal, not a subnormal.)
constexpr bool fits_fixed_point(const format& f) {
  return f.has_subnormals() && f.emax() - f.emin() + f.precision + 2 <= 62;
}

/// IEEE 754-2019 §6.3: an exact zero sum of opposite-signed operands is +0, or -0 when rounding
/// downward.
constexpr bool exact_zero_sum_sign(rounding mode) { return mode == rounding::downward; }

template <typename U>
constexpr U isqrt(U x) {
  if (x == 0) return 0;
  U r = 0;
  if (!std::is_constant_evaluated()) {
    r = static_cast<U>(__builtin_sqrt(static_cast<double>(x)));  // then corrected below
  } else {
    // digit-by-digit
    U bit = U{1} << ((bit_width(x) - 1) & ~1);
    U v = x;
    while (bit != 0) {
      if (v >= r + bit) {
        v -= r + bit;
        r = (r >> 1) + bit;
      } else {
        r >>= 1;
      }
      bit >>= 2;
    }
    return r;
  }
  while (r * r > x) --r;
  while ((r + 1) * (r + 1) <= x) ++r;
  return r;
}

/// The next 32 bits of a square root: given root = isqrt(N) and rem = N - root^2 (so 0 <= rem <=
/// 2 root), returns R = isqrt(N * 2^64) = root * 2^32 + t and sets rem = N * 2^64 - R^2.
/// Preconditions: N < 2^113 (root < 2^57), which gives R < 2^89 and rem <= 2R < 2^90.
template <typename U>
constexpr U sqrt_32_more_bits(U N, U root, U& rem) {
  if (std::is_constant_evaluated()) {
    // Restoring digit-by-digit square root (no floating point in a constant expression): two zero
    // bits appended to N make the next root bit 1 iff 4 rem >= 4 root + 1, and then rem becomes
    // 4 rem - (4 root + 1). (4 rem <= 8 root < 2^92; for the 64-bit core, p <= 24, below 2^62.)
    for (int i = 0; i < 32; ++i) {
      rem <<= 2;
      const U trial = (root << 2) | 1;
      const bool one = rem >= trial;
      rem -= one ? trial : U{0};
      root = (root << 1) | U{one};
    }
    return root;
  }
  // t = floor((sqrt(N) - root) * 2^32) = floor(rem * 2^32 / (sqrt(N) + root)), and t < 2^32 as
  // rem <= 2 root <= sqrt(N) + root, equal only when rem = 0. In double each of N, rem and root is
  // within a relative 2^-53, and the sqrt, sum and quotient add one rounding each: the estimate is
  // within a relative 2^-50 of the exact quotient (below 2^32), so within 2^-18 of it, and its
  // floor is t, t - 1 or t + 1.
  const double root_sum = __builtin_sqrt(static_cast<double>(N)) + static_cast<double>(root);
  const double q = static_cast<double>(rem) * 0x1p32 / root_sum;
  std::uint64_t t = q < 0x1p32 ? static_cast<std::uint64_t>(q) : 0xFFFFFFFF;
  // The exact check: R^2 = root^2 * 2^64 + B with B = (root * 2^33 + t) * t, so the remainder is
  // A - B with A = rem * 2^64, and t is right iff 0 <= A - B <= 2R. B(t -/+ 1) = B -/+ (2R -/+ 1).
  // Sizes: A < 2^121, B < 2^122.
  const u128 A = u128{rem} << 64;
  u128 R = (u128{root} << 32) + t;
  u128 B = ((u128{root} << 33) + t) * t;
  if (B > A) {
    B -= 2 * R - 1;
    R -= 1;
  } else if (A - B > 2 * R) {
    B += 2 * R + 1;
    R += 1;
  }
  rem = static_cast<U>(A - B);
  return static_cast<U>(R);
}

}  // namespace detail

// ---- sign operations (IEEE 754-2019 §5.5.1: quiet, bit-level, no flags) ---------------------
// Where the sign bit is not free to flip: in a fnuz format zero has no negative and the NaN is the
// negative-zero encoding, so both keep their encoding; an exponent-only format (E8M0) has no sign,
// and the negation of a number gives its NaN (it raises nothing: these operations are quiet).

namespace detail {
/// fnuz zero or NaN: the two encodings whose sign bit is not a sign.
constexpr bool fnuz_unsigned_encoding(const format& f, bits_t a) {
  return f.kind == nonfinite::fnuz && (a & ~f.sign_mask() & f.encoding_mask()) == 0;
}
}  // namespace detail

constexpr bits_t neg(const format& f, bits_t a) {
  if (!f.has_sign()) return detail::is_nan_bits(f, a) ? a : f.default_nan_bits();
  if (detail::fnuz_unsigned_encoding(f, a)) return a;
  return a ^ f.sign_mask();
}
constexpr bits_t abs(const format& f, bits_t a) {
  if (detail::fnuz_unsigned_encoding(f, a)) return a;
  return a & ~f.sign_mask();
}
constexpr bits_t copysign(const format& f, bits_t a, bits_t b) {
  if (detail::fnuz_unsigned_encoding(f, a)) return a;
  return (a & ~f.sign_mask()) | (b & f.sign_mask());
}

// ---- arithmetic --------------------------------------------------------------------------

namespace detail {

/// A result and the flags it raises, returned by value (a status& argument to an out-of-line
/// function would keep the caller's flags in memory on the hot path too).
struct flagged {
  bits_t bits;
  status flags;
};

/// add with a NaN or infinite operand; kept out of line so the common path stays small.
[[gnu::noinline, gnu::cold]] constexpr flagged add_nonfinite(const format& f, bits_t a, bits_t b) {
  status st{};
  const unpacked x = unpack(f, a), y = unpack(f, b);
  if (x.is_nan() || y.is_nan()) return {propagate_nan(f, a, b, st), st};
  if (x.kind == kind::infinite && y.kind == kind::infinite && x.negative != y.negative) return {invalid_nan(f, st), st};
  return {infinity(f, x.kind == kind::infinite ? x.negative : y.negative), st};
}

/// mul with a NaN or infinite operand, out of line. (Subnormals read as zeros under DAZ: 0 * inf.)
[[gnu::noinline, gnu::cold]] constexpr flagged mul_nonfinite(const format& f, bits_t a, bits_t b, bool daz) {
  status st{};
  const unpacked x = unpack(f, a, daz), y = unpack(f, b, daz);
  if (x.is_nan() || y.is_nan()) return {propagate_nan(f, a, b, st), st};
  if (x.kind == kind::zero || y.kind == kind::zero) return {invalid_nan(f, st), st};  // 0 * inf
  return {infinity(f, x.negative != y.negative), st};
}

LIBFLOAT_INLINE constexpr bits_t take(const flagged& r, status& st) {
  st |= r.flags;
  return r.bits;
}

/// For a constant format F that fits_fixed_point: the signed fixed-point value of an encoding
/// whose sign and biased exponent (its top bits) are s.e is fraction * scale[s.e] + hidden[s.e],
/// with scale = ±2^(max(e, 1) - 1) and hidden = ± the hidden bit's value (0 for subnormals).
/// A table and a multiplication rather than shifts: on x86 variable shifts compete with the
/// branches for two execution ports, and that port pressure is what bounds add.
template <format F>
struct fixed_point_table {
  static constexpr int entries = 1 << (F.exponent_bits + 1);
  std::int64_t scale[entries]{};
  std::int64_t hidden[entries]{};
  constexpr fixed_point_table() {
    for (int i = 0; i < entries; ++i) {
      const int be = i & ((1 << F.exponent_bits) - 1);
      const std::int64_t sign = (i >> F.exponent_bits) ? -1 : 1;
      scale[i] = sign * (std::int64_t{1} << (be == 0 ? 0 : be - 1));
      hidden[i] = be == 0 ? 0 : sign * (std::int64_t{1} << (be - 1 + F.fraction_bits()));
    }
  }
};
template <format F>
inline constexpr fixed_point_table<F> fixed_point_table_v{};

/// §5.4.1 addition, correctly rounded. FC is the format when it is a compile-time constant (then
/// FC == f), or format{} when it is not.
template <typename U, format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t add_impl(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  if (fits_fixed_point(f)) {
    // Every value is an integer multiple of the smallest subnormal 2^(emin - p + 1), and the whole
    // range fits a 64-bit two's complement integer: the exact sum is one integer addition.
    // Encoding -> integer: (fraction | hidden bit) << (biased exponent - 1), subnormals unshifted.
    if (static_cast<int>(is_nonfinite_bits(f, a)) | static_cast<int>(is_nonfinite_bits(f, b))) [[unlikely]]
      return take(add_nonfinite(f, a, b), st);
    auto fixed = [&](bits_t v) {
      if constexpr (FC != format{} && fits_fixed_point(FC)) {
        constexpr auto& t = fixed_point_table_v<FC>;
        // (masked: bits above the encoding are ignored, as everywhere else)
        const auto i = static_cast<std::size_t>((v >> FC.fraction_bits()) & (t.entries - 1));
        const std::int64_t x = static_cast<std::int64_t>(v & FC.fraction_mask()) * t.scale[i] + t.hidden[i];
        // (a mask, not ?:, which GCC turns into a branch per operand)
        if (daz(e)) return x & -static_cast<std::int64_t>((v & FC.exponent_mask()) != 0);
        return x;
      } else {
        const std::uint64_t be = (v & f.exponent_mask()) >> f.fraction_bits();
        const std::uint64_t normal = be != 0;
        std::uint64_t sig = (v & f.fraction_mask()) | (normal << f.fraction_bits());
        if (daz(e)) sig = normal ? sig : 0;
        const auto mag = static_cast<std::int64_t>(sig << (be - normal));
        const std::int64_t m = -static_cast<std::int64_t>((v & f.sign_mask()) != 0);  // 0 or -1
        return (mag ^ m) - m;  // negated without a branch: signs are coin flips
      }
    };
    const std::int64_t sum = fixed(a) + fixed(b);
    if (sum == 0) {  // §6.3: -0 + -0 = -0; any other exact zero sum is +0 (-0 rounding downward)
      const bool na = (a & f.sign_mask()) != 0, nb = (b & f.sign_mask()) != 0;
      return zero_bits(f, na == nb ? na : exact_zero_sum_sign(e.mode));
    }
    return round_pack_grid(f, sum < 0, static_cast<std::uint64_t>(sum < 0 ? -sum : sum), e, st);
  }
  const unpacked x = unpack(f, a, daz(e)), y = unpack(f, b, daz(e));
  if ((x.kind > kind::finite) | (y.kind > kind::finite)) [[unlikely]] return take(add_nonfinite(f, a, b), st);
  if (x.kind == kind::zero && y.kind == kind::zero)
    return zero_bits(f, x.negative == y.negative ? x.negative : exact_zero_sum_sign(e.mode));
  if (x.kind == kind::zero) return round_pack(f, y.negative, y.exp, y.sig, false, e, st);
  if (y.kind == kind::zero) return round_pack(f, x.negative, x.exp, x.sig, false, e, st);
  exact_value<U> s;
  if constexpr (FC != format{}) s = exact_add<U, FC.precision>(x.negative, x.exp, x.sig, y.negative, y.exp, y.sig);
  else s = exact_add<U>(x.negative, x.exp, x.sig, y.negative, y.exp, y.sig);
  if (s.sig == 0 && !s.sticky) return zero_result(f, exact_zero_sum_sign(e.mode), st);
  return round_exact(f, s, e, st);
}

/// §5.4.1 subtraction in a format without a sign bit (exponent-only): b's sign cannot be flipped
/// in its encoding, so the difference is formed from the unpacked operands. A zero or negative
/// difference has no encoding (round_pack: NaN and invalid).
template <typename U>
constexpr bits_t sub_unsigned(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  const unpacked x = unpack(f, a), y = unpack(f, b);
  if (x.is_nan() || y.is_nan()) return propagate_nan(f, a, b, st);
  const exact_value<U> s = exact_add<U>(false, x.exp, U{x.sig}, true, y.exp, U{y.sig});
  if (s.sig == 0 && !s.sticky) return zero_result(f, false, st);
  return round_exact(f, s, e, st);
}

/// §5.4.1 multiplication, correctly rounded.
template <typename U>
LIBFLOAT_INLINE constexpr bits_t mul_impl(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  const unpacked x = unpack(f, a, daz(e)), y = unpack(f, b, daz(e));
  if ((x.kind > kind::finite) | (y.kind > kind::finite)) [[unlikely]] return take(mul_nonfinite(f, a, b, daz(e)), st);
  // A zero operand has sig 0: the product is an exact zero of the right sign.
  return round_pack(f, x.negative != y.negative, x.exp + y.exp, U{x.sig} * U{y.sig}, false, e, st);
}

/// §5.4.1 division, correctly rounded. Finite / 0 raises divide_by_zero (§7.3).
template <typename U>
LIBFLOAT_INLINE constexpr bits_t div_impl(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  const unpacked x = unpack(f, a, daz(e)), y = unpack(f, b, daz(e));
  if (x.is_nan() || y.is_nan()) return propagate_nan(f, a, b, st);
  const bool negative = x.negative != y.negative;
  if (x.kind == kind::infinite) {
    if (y.kind == kind::infinite) return invalid_nan(f, st);
    return infinity(f, negative);
  }
  if (y.kind == kind::infinite) return zero_bits(f, negative);
  if (y.kind == kind::zero) {
    if (x.kind == kind::zero) return invalid_nan(f, st);
    st |= status::divide_by_zero;
    return infinity(f, negative);
  }
  if (x.kind == kind::zero) return zero_bits(f, negative);
  // Quotient with at least p + 2 bits (p + 3 or p + 4: num has p + 3 + wb bits); the remainder
  // is the sticky part.
  const int wa = std::bit_width(x.sig), wb = std::bit_width(y.sig);
  int s = f.precision + 2 + wb - wa + 1;
  if (s < 0) s = 0;
  const U num = U{x.sig} << s;
  U quo = num / y.sig;
  U rem = num % y.sig;
  int exp = x.exp - y.exp - s;
  if (e.mode == rounding::stochastic) {
    // Stochastic rounding reads the first 32 bits below the rounding position (round_step), and
    // round_pack's tininess-after-rounding test reads them at a grid one bit lower, so D is exact
    // only with p + 33 quotient bits and sticky below them. 32 more quotient bits, the next digit
    // of the long division in base 2^32, give p + 35 or p + 36. Sizes: rem < y.sig < 2^p, so
    // rem << 32 fits either core (2^56 for p <= 24, 2^85 for p <= 53), and quo < 2^(p + 4)
    // becomes < 2^(p + 36) <= 2^60 resp. 2^89, below round_pack's 2^(W - 2). The deterministic
    // modes only need p + 2 bits and sticky, so they skip the second division.
    const U num2 = rem << 32;
    quo = (quo << 32) | (num2 / y.sig);
    rem = num2 % y.sig;
    exp -= 32;
  }
  return round_pack(f, negative, exp, quo, rem != 0, e, st);
}

/// §5.4.1 squareRoot, correctly rounded; sqrt(-0) = -0, sqrt(x < 0) is invalid.
template <typename U>
LIBFLOAT_INLINE constexpr bits_t sqrt_impl(const format& f, bits_t a, const env& e, status& st) {
  const unpacked x = unpack(f, a, daz(e));
  if (x.is_nan()) return propagate_nan(f, a, a, st);
  if (x.kind == kind::zero) return zero_bits(f, x.negative);
  if (x.negative) return invalid_nan(f, st);
  if (x.kind == kind::infinite) return a;
  U sig = x.sig;
  int exp = x.exp;
  if (exp & 1) {
    sig <<= 1;
    --exp;
  }
  // Radicand with at least 2(p + 2) bits, shifted by an even amount.
  const int need = 2 * (f.precision + 2) - bit_width(sig);
  const int shift = need > 0 ? (need + 1) & ~1 : 0;
  sig <<= shift;
  exp -= shift;
  U root = isqrt(sig);
  U rem = sig - root * root;  // 0 <= rem <= 2 root
  exp /= 2;                    // (exp is even)
  if (e.mode == rounding::stochastic) {
    // Stochastic rounding reads the first 32 bits below the rounding position (see div_impl):
    // 32 more root bits. The root has p + 2 or p + 3 bits, so it ends below 2^(p + 35).
    root = sqrt_32_more_bits(sig, root, rem);
    exp -= 32;
  }
  return round_pack(f, false, exp, root, rem != 0, e, st);
}

/// §5.4.1 fusedMultiplyAdd: a*b + c with one rounding. Invalid for ∞*0 (even when c is a quiet
/// NaN, as SoftFloat does) and for ∞ - ∞.
template <typename U>
LIBFLOAT_INLINE constexpr bits_t fma_impl(const format& f, bits_t a, bits_t b, bits_t c, const env& e, status& st) {
  const unpacked x = unpack(f, a, daz(e)), y = unpack(f, b, daz(e)), z = unpack(f, c, daz(e));
  if (x.is_nan() || y.is_nan()) {
    const bits_t r = propagate_nan(f, a, b, st);
    if (z.kind == kind::signaling_nan) st |= status::invalid;
    return r;
  }
  const bool pneg = x.negative != y.negative;
  const bool pinf = x.kind == kind::infinite || y.kind == kind::infinite;
  const bool pzero = x.kind == kind::zero || y.kind == kind::zero;
  if (pinf && pzero) {
    if (z.kind == kind::signaling_nan) st |= status::invalid;
    return invalid_nan(f, st);
  }
  if (z.is_nan()) return propagate_nan(f, c, c, st);
  if (pinf) {
    if (z.kind == kind::infinite && z.negative != pneg) return invalid_nan(f, st);
    return infinity(f, pneg);
  }
  if (z.kind == kind::infinite) return c;
  if (pzero) {
    if (z.kind == kind::zero) return zero_bits(f, z.negative == pneg ? pneg : exact_zero_sum_sign(e.mode));  // (formats with zero)
    return round_pack(f, z.negative, z.exp, z.sig, false, e, st);
  }
  const U prod = U{x.sig} * y.sig;
  if (z.kind == kind::zero) return round_pack(f, pneg, x.exp + y.exp, prod, false, e, st);
  const exact_value<U> s = exact_add<U>(pneg, x.exp + y.exp, prod, z.negative, z.exp, z.sig);
  if (s.sig == 0 && !s.sticky) return zero_result(f, exact_zero_sum_sign(e.mode), st);
  return round_exact(f, s, e, st);
}

}  // namespace detail

#define LIBFLOAT_DISPATCH(impl, ...)                                                   \
  (f.precision <= detail::narrow_core_max_precision ? detail::impl<std::uint64_t>(__VA_ARGS__) \
                                                     : detail::impl<detail::u128>(__VA_ARGS__))

namespace detail {

// The operations expanded inline: what the typed paths (lf::fp<F>, lf::add(fp<F>, ...)) use, with
// F a constant, so that every derived constant folds away.
// FC: the format when the caller has it as a constant (see add_impl), else format{}; only add
// and sub use it so far.
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t add_inline(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return f.precision <= narrow_core_max_precision ? add_impl<std::uint64_t, FC>(f, a, b, e, st)
                                                  : add_impl<u128, FC>(f, a, b, e, st);
}
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t sub_inline(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  if (!f.has_sign()) [[unlikely]] return LIBFLOAT_DISPATCH(sub_unsigned, f, a, b, e, st);
  // a NaN b keeps its sign; a fnuz zero stays +0 (lf::neg)
  if (f.kind == nonfinite::fnuz) return add_inline<FC>(f, a, is_nan_bits(f, b) ? b : neg(f, b), e, st);
  return add_inline<FC>(f, a, is_nan_bits(f, b) ? b : b ^ f.sign_mask(), e, st);
}
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t mul_inline(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return LIBFLOAT_DISPATCH(mul_impl, f, a, b, e, st);
}
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t div_inline(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return LIBFLOAT_DISPATCH(div_impl, f, a, b, e, st);
}
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t sqrt_inline(const format& f, bits_t a, const env& e, status& st) {
  return LIBFLOAT_DISPATCH(sqrt_impl, f, a, e, st);
}
template <format FC = format{}>
LIBFLOAT_INLINE constexpr bits_t fma_inline(const format& f, bits_t a, bits_t b, bits_t c, const env& e, status& st) {
  return LIBFLOAT_DISPATCH(fma_impl, f, a, b, c, e, st);
}

}  // namespace detail
}  // namespace lf

#include <libfloat/core/detail/runtime_entry.hpp>

namespace lf {
namespace detail {

}  // namespace detail

// The run-time-format add, sub, mul, div, sqrt and fma below (and their flags-by-pointer forms
// further down) are function templates with one defaulted, never deduced parameter
// (LIBFLOAT_RUNTIME_LAZY): called exactly as plain functions (no parameter is deduced, so every
// argument converts as before), but their bodies, with the 300 out-of-line instantiations behind
// detail::*_named (core/detail/runtime_entry.hpp), are instantiated only in a program that calls
// them. (The calls inside name the parameter, detail::add_named<Lazy>: a call that does not
// depend on it would be instantiated with the template's definition, as Clang does for constexpr
// functions.) As plain inline functions they were instantiated in every translation unit that included
// the umbrella header, about 0.13 s of its compile time.
#define LIBFLOAT_RUNTIME_LAZY template <class Lazy = void>

/// §5.4.1 addition, correctly rounded. IEEE 754-2019 §6.3: an exact zero sum of opposite-signed
/// operands is +0 (-0 when rounding downward).
LIBFLOAT_RUNTIME_LAZY constexpr bits_t add(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return detail::add_named<Lazy>(f, a, b, e, st);
}
/// §5.4.1 multiplication, correctly rounded.
LIBFLOAT_RUNTIME_LAZY constexpr bits_t mul(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return detail::mul_named<Lazy>(f, a, b, e, st);
}
/// §5.4.1 division, correctly rounded; finite / 0 raises divide_by_zero (§7.3).
LIBFLOAT_RUNTIME_LAZY constexpr bits_t div(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return detail::div_named<Lazy>(f, a, b, e, st);
}
/// §5.4.1 squareRoot, correctly rounded; sqrt(-0) = -0, sqrt(x < 0) is invalid.
LIBFLOAT_RUNTIME_LAZY constexpr bits_t sqrt(const format& f, bits_t a, const env& e, status& st) {
  return detail::sqrt_named<Lazy>(f, a, e, st);
}
/// §5.4.1 fusedMultiplyAdd: a*b + c with one rounding. Invalid for ∞*0 (even when c is a quiet
/// NaN, as SoftFloat does) and for ∞ - ∞.
LIBFLOAT_RUNTIME_LAZY constexpr bits_t fma(const format& f, bits_t a, bits_t b, bits_t c, const env& e, status& st) {
  return detail::fma_named<Lazy>(f, a, b, c, e, st);
}
#undef LIBFLOAT_DISPATCH

/// §5.4.1 subtraction: a + (-b), except that a NaN b keeps its sign.
LIBFLOAT_RUNTIME_LAZY constexpr bits_t sub(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  return detail::sub_named<Lazy>(f, a, b, e, st);
}

/// §5.3.1 remainder: a - n*b with n the integer nearest a/b (ties to even). Always exact; the
/// rounding direction is not used. rem(±∞, b) and rem(a, 0) are invalid; rem(a, ±∞) = a.
constexpr bits_t rem(const format& f, bits_t a, bits_t b, const env& e, status& st) {
  using namespace detail;
  const unpacked x = unpack(f, a, daz(e)), y = unpack(f, b, daz(e));
  if (x.is_nan() || y.is_nan()) return propagate_nan(f, a, b, st);
  if (x.kind == kind::infinite || y.kind == kind::zero) return invalid_nan(f, st);
  if (x.kind == kind::zero) return zero_bits(f, x.negative);
  if (y.kind == kind::infinite) return round_pack(f, x.negative, x.exp, x.sig, false, e, st);
  // |x| = X * 2^m, |y| = Y * 2^m on a common grid m = min(ex, ey).
  const int Ex = x.exp + std::bit_width(x.sig), Ey = y.exp + std::bit_width(y.sig);
  if (Ex < Ey - 1) return round_pack(f, x.negative, x.exp, x.sig, false, e, st);  // |x| < |y|/2
  u128 R, Y;
  bool q_odd;
  int m;
  if (x.exp >= y.exp) {
    // R = (sx * 2^(ex-ey)) mod sy, reducing up to 64 bits of the shift at a time.
    m = y.exp;
    Y = y.sig;
    R = x.sig % Y;
    u128 q = x.sig / Y;
    int left = x.exp - y.exp;
    while (left > 0) {
      const int k = left > 64 ? 64 : left;
      const u128 t = R << k;
      q = t / Y;
      R = t % Y;
      left -= k;
    }
    q_odd = (q & 1) != 0;
  } else {
    m = x.exp;
    Y = u128{y.sig} << (y.exp - x.exp);  // small shift: |x| >= |y|/2 bounds it
    R = u128{x.sig} % Y;
    q_odd = ((u128{x.sig} / Y) & 1) != 0;
  }
  // n = q or q + 1: pick the nearer, ties to even.
  bool negative = x.negative;
  u128 r = R;
  if (2 * R > Y || (2 * R == Y && q_odd)) {
    r = Y - R;
    negative = !negative;
  }
  if (r == 0) return zero_result(f, x.negative, st);
  return round_pack(f, negative, m, r, false, e, st);
}

/// §5.3.1 roundToIntegral: rounds to an integral value in the format under e.mode.
/// With exact = true it is roundToIntegralExact and raises inexact when the value changes.
/// In a format whose max finite is not an integer (emax < p - 1, e.g. e2m3 with max 3.75) the
/// integer can exceed max finite (3.75 -> 4); that is an overflow (§7.4): overflow and inexact,
/// and the mode's overflow value, except that where that value is finite (saturate) it is the
/// largest finite integer of the format (e2m3: 3), so the result stays integral. (It cannot
/// happen in an IEEE interchange format: max finite is above 2^(p-1), and every value from there
/// up is an integer, §5.9.)
constexpr bits_t round_to_integral(const format& f, bits_t a, const env& e, bool exact, status& st) {
  using namespace detail;
  const unpacked x = unpack(f, a, daz(e));
  if (x.is_nan()) return propagate_nan(f, a, a, st);
  if (x.kind == kind::infinite) return a;
  if (x.kind == kind::zero) return zero_bits(f, x.negative);
  if (x.exp >= 0) return a;
  const integer_rounding r = round_integer(x.negative, x.exp, x.sig, e.mode, e.random);
  if (r.magnitude == 0 && !f.has_zero()) return zero_result(f, x.negative, st);  // invalid alone (E8M0)
  if (r.inexact && exact) st |= status::inexact;
  if (r.magnitude == 0) return zero_bits(f, x.negative);
  status over{};
  const bits_t b = round_pack(f, x.negative, 0, r.magnitude, false, e, over);  // exact unless it overflows
  if (!has(over, status::overflow)) return b;
  st |= status::overflow | status::inexact;
  if ((b & ~f.sign_mask()) != f.max_finite_bits()) return b;  // infinity, or the NaN of a format without one
  const unpacked m = unpack(f, f.max_finite_bits());
  const integer_rounding largest = round_integer(false, m.exp, m.sig, rounding::toward_zero, 0);
  status ignored{};
  return round_pack(f, x.negative, 0, largest.magnitude, false, e, ignored);  // below max finite: exact
}

// ---- conversions ------------------------------------------------------------------------

/// §5.4.2 convertFormat: from format `from` to format `to`, correctly rounded. NaN payloads keep
/// their leading bits (SoftFloat's rule), are quieted, and a signaling NaN raises invalid.
/// Infinity into a format without one gives NaN and invalid, or max finite under saturation.
/// Into a finite_only format (no NaN, no infinity) a NaN or an infinity gives max finite of its
/// sign and raises invalid (the OCP MX spec leaves it open; see lf::nonfinite::finite_only). Into
/// an exponent-only format (E8M0: no sign, no zero) a zero or a negative value gives the NaN and
/// raises invalid.
constexpr bits_t convert(const format& to, const format& from, bits_t a, const env& e, status& st) {
  using namespace detail;
  const unpacked x = unpack(from, a, daz(e));
  switch (x.kind) {
    case kind::signaling_nan:
      st |= status::invalid;
      [[fallthrough]];
    case kind::quiet_nan: {
      if (to.kind == nonfinite::finite_only) st |= status::invalid;
      if (to.kind != nonfinite::ieee) return to.nan_bits(x.negative);
      // payload aligned at the top of the fraction field
      const int fb = from.fraction_bits(), tb = to.fraction_bits();
      const bits_t payload = fb >= tb ? x.sig >> (fb - tb) : x.sig << (tb - fb);
      return sign_bit(to, x.negative) | to.exponent_mask() | to.quiet_bit() | (payload & to.fraction_mask());
    }
    case kind::infinite:
      if (x.negative && !to.has_sign()) return invalid_nan(to, st);
      if (e.policy.overflow == overflow_policy::saturate) return sign_bit(to, x.negative) | to.max_finite_bits();
      if (!to.has_infinity()) {
        st |= status::invalid;
        return to.nan_bits(x.negative);
      }
      return infinity(to, x.negative);
    case kind::zero: return zero_result(to, x.negative, st);
    case kind::finite: break;
  }
  return round_pack(to, x.negative, x.exp, x.sig, false, e, st);
}

/// §5.4.1 convertFromInt: any integer type, correctly rounded.
template <std::integral I>
constexpr bits_t from_int(const format& f, I v, const env& e, status& st) {
  using U = std::make_unsigned_t<I>;
  const bool negative = v < 0;
  const U mag = negative ? static_cast<U>(U{0} - static_cast<U>(v)) : static_cast<U>(v);
  return detail::round_pack(f, negative, 0, detail::u128{mag}, false, e, st);
}

/// §5.8 convertToInteger: rounds under e.mode to the integer type I. NaN, infinity and
/// out-of-range values raise invalid (and only invalid) and give x86's "integer indefinite":
/// the most negative value for signed I, all ones for unsigned I. With exact = true
/// (convertToIntegerExact) an inexact in-range conversion raises inexact.
template <std::integral I>
constexpr I to_int(const format& f, bits_t a, const env& e, bool exact, status& st) {
  using namespace detail;
  const I indefinite = std::is_signed_v<I> ? std::numeric_limits<I>::min() : std::numeric_limits<I>::max();
  const unpacked x = unpack(f, a, daz(e));
  if (x.is_nan() || x.kind == kind::infinite) {
    st |= status::invalid;
    return indefinite;
  }
  if (x.kind == kind::zero) return 0;
  const integer_rounding r = round_integer(x.negative, x.exp, x.sig, e.mode, e.random);
  using U = std::make_unsigned_t<I>;
  const u128 limit = std::is_signed_v<I> ? (x.negative ? u128{U{1} << (sizeof(I) * 8 - 1)}
                                                      : u128{std::numeric_limits<I>::max()})
                                         : (x.negative ? u128{0} : u128{std::numeric_limits<U>::max()});
  if (r.too_large || r.magnitude > limit) {
    st |= status::invalid;
    return indefinite;
  }
  if (r.inexact && exact) st |= status::inexact;
  const U mag = static_cast<U>(r.magnitude);
  return x.negative ? static_cast<I>(U{0} - mag) : static_cast<I>(mag);
}

// ---- comparisons (§5.11) -----------------------------------------------------------------

/// The four-way relation of §5.11 (NaN operands compare unordered). Flags: a signaling NaN
/// raises invalid; with `signaling` any NaN does (the comparisons listed as signaling in §5.6.1).
constexpr std::partial_ordering compare(const format& f, bits_t a, bits_t b, bool signaling, status& st,
                                        bool daz = false) {
  using namespace detail;
  const unpacked x = unpack(f, a, daz), y = unpack(f, b, daz);
  if (x.is_nan() || y.is_nan()) {
    if (signaling || x.kind == kind::signaling_nan || y.kind == kind::signaling_nan) st |= status::invalid;
    return std::partial_ordering::unordered;
  }
  // Map to a totally ordered integer: zeros (both signs, and DAZ'd subnormals) to 0.
  auto key = [&](const unpacked& u, bits_t bitsv) -> std::int64_t {
    if (u.kind == kind::zero) return 0;
    const auto mag = static_cast<std::int64_t>(bitsv & ~f.sign_mask() & f.encoding_mask());
    return u.negative ? -mag : mag;
  };
  const std::int64_t ka = key(x, a), kb = key(y, b);
  return ka <=> kb;
}

constexpr bool eq(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  return compare(f, a, b, false, st, daz) == std::partial_ordering::equivalent;
}
constexpr bool eq_signaling(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  return compare(f, a, b, true, st, daz) == std::partial_ordering::equivalent;
}
constexpr bool le(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  const auto o = compare(f, a, b, true, st, daz);
  return o == std::partial_ordering::less || o == std::partial_ordering::equivalent;
}
constexpr bool lt(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  return compare(f, a, b, true, st, daz) == std::partial_ordering::less;
}
constexpr bool le_quiet(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  const auto o = compare(f, a, b, false, st, daz);
  return o == std::partial_ordering::less || o == std::partial_ordering::equivalent;
}
constexpr bool lt_quiet(const format& f, bits_t a, bits_t b, status& st, bool daz = false) {
  return compare(f, a, b, false, st, daz) == std::partial_ordering::less;
}

// ---- minimum / maximum (IEEE 754-2019 §9.6) -----------------------------------------------

namespace detail {
/// Shared by the four §9.6 operations. `number` selects the *Number variants (a NaN operand
/// loses to a number); `want_max` picks the larger. -0 is less than +0 in all four.
constexpr bits_t min_max(const format& f, bits_t a, bits_t b, bool want_max, bool number, status& st) {
  const bool na = is_nan_bits(f, a), nb = is_nan_bits(f, b);
  if (na || nb) {
    if (is_snan_bits(f, a) || is_snan_bits(f, b)) st |= status::invalid;
    if (number && !(na && nb)) return na ? b : a;
    return quiet(f, na ? a : b);
  }
  status ignored{};
  const auto o = compare(f, a, b, false, ignored);
  if (o == std::partial_ordering::equivalent) {  // equal values: only ±0 differ, by sign
    const bool a_neg = (a & f.sign_mask()) != 0;
    return (a_neg == want_max) ? b : a;
  }
  const bool a_less = o == std::partial_ordering::less;
  return (a_less != want_max) ? a : b;
}
}  // namespace detail

constexpr bits_t minimum(const format& f, bits_t a, bits_t b, status& st) { return detail::min_max(f, a, b, false, false, st); }
constexpr bits_t maximum(const format& f, bits_t a, bits_t b, status& st) { return detail::min_max(f, a, b, true, false, st); }
constexpr bits_t minimum_number(const format& f, bits_t a, bits_t b, status& st) { return detail::min_max(f, a, b, false, true, st); }
constexpr bits_t maximum_number(const format& f, bits_t a, bits_t b, status& st) { return detail::min_max(f, a, b, true, true, st); }

// ---- classification and neighbours (§5.7.2, §5.3.1) ---------------------------------------

/// §5.7.2 class().
enum class fp_class : std::uint8_t {
  signaling_nan, quiet_nan,
  negative_infinity, negative_normal, negative_subnormal, negative_zero,
  positive_zero, positive_subnormal, positive_normal, positive_infinity,
};

constexpr fp_class classify(const format& f, bits_t a) {
  if (detail::is_nan_bits(f, a)) return detail::is_snan_bits(f, a) ? fp_class::signaling_nan : fp_class::quiet_nan;
  const bool n = (a & f.sign_mask()) != 0;
  const bits_t mag = a & ~f.sign_mask() & f.encoding_mask();
  if (f.kind == nonfinite::ieee && mag == f.exponent_mask()) return n ? fp_class::negative_infinity : fp_class::positive_infinity;
  if (!f.has_subnormals()) return fp_class::positive_normal;  // exponent-only: every number is a normal
  if (mag == 0) return n ? fp_class::negative_zero : fp_class::positive_zero;
  if ((mag & f.exponent_mask()) == 0) return n ? fp_class::negative_subnormal : fp_class::positive_subnormal;
  return n ? fp_class::negative_normal : fp_class::positive_normal;
}

constexpr std::string_view class_name(fp_class c) {
  switch (c) {
    case fp_class::signaling_nan: return "signaling NaN";
    case fp_class::quiet_nan: return "quiet NaN";
    case fp_class::negative_infinity: return "negative infinity";
    case fp_class::negative_normal: return "negative normal";
    case fp_class::negative_subnormal: return "negative subnormal";
    case fp_class::negative_zero: return "negative zero";
    case fp_class::positive_zero: return "positive zero";
    case fp_class::positive_subnormal: return "positive subnormal";
    case fp_class::positive_normal: return "positive normal";
    case fp_class::positive_infinity: return "positive infinity";
  }
  return "?";
}

/// §5.3.1 nextUp: the least value greater than a. nextUp(-min subnormal) = -0 (+0 in a fnuz
/// format); a NaN is returned quieted (invalid if signaling). A format without infinity has nothing
/// above max finite: nextUp(max) gives its NaN, or max itself in a finite_only format (no NaN).
constexpr bits_t next_up(const format& f, bits_t a, status& st) {
  if (detail::is_nan_bits(f, a)) return detail::propagate_nan(f, a, a, st);
  const bits_t mag = a & ~f.sign_mask() & f.encoding_mask();
  const bool n = (a & f.sign_mask()) != 0;
  if (!f.has_zero()) return mag == f.max_finite_bits() ? f.default_nan_bits() : a + 1;  // exponent-only
  if (mag == 0) return f.min_subnormal_bits();
  if (!n) {
    if (f.kind == nonfinite::ieee && mag == f.exponent_mask()) return a;  // +inf
    if (f.kind == nonfinite::finite_only && mag == f.max_finite_bits()) return a;
    if (f.kind == nonfinite::fnuz && mag == f.max_finite_bits()) return f.default_nan_bits();
    return a + 1;  // max finite + 1 is +inf (IEEE) or the NaN slot (nan_only)
  }
  if (f.kind == nonfinite::ieee && mag == f.exponent_mask()) return f.sign_mask() | f.max_finite_bits();
  return mag == 1 ? detail::zero_bits(f, true) : a - 1;
}

/// §5.3.1 nextDown(a) = -nextUp(-a). In an exponent-only format (no sign) it is the next smaller
/// power of two, and the NaN below the smallest.
constexpr bits_t next_down(const format& f, bits_t a, status& st) {
  if (detail::is_nan_bits(f, a)) return detail::propagate_nan(f, a, a, st);
  if (!f.has_sign()) return a == f.min_normal_bits() ? f.default_nan_bits() : a - 1;
  return neg(f, next_up(f, neg(f, a), st));
}

/// The unit in the last place of a finite a, as a positive encoding of the same format:
/// 2^(max(e, emin) - p + 1) where e is a's exponent. ulp(±∞) = +∞; NaN gives NaN.
constexpr bits_t ulp(const format& f, bits_t a) {
  if (detail::is_nan_bits(f, a)) return detail::quiet(f, a);
  const detail::unpacked x = detail::unpack(f, a);
  if (x.kind == detail::kind::infinite) return f.infinity_bits();
  const bits_t biased = (a & f.exponent_mask()) >> f.fraction_bits();
  const int e = biased == 0 ? f.emin() : static_cast<int>(biased) - f.bias();
  const int ulp_exp = e - f.fraction_bits();
  status ignored{};
  return detail::round_pack(f, false, ulp_exp, std::uint64_t{1}, false, env{}, ignored);  // a power of two >= min subnormal: exact
}

// ---- the same operations, flags through an optional pointer ------------------------------------
// The typed functions (fp.hpp), the parser and the models take flags as `status* st = nullptr`,
// ORed into *st when st is not null. These overloads give every function above that raises flags
// the same form, so that both conventions work on both sides: lf::add(f, a, b, e, &st), or
// lf::add(f, a, b, e) to ignore the flags. (A status& argument still picks the function above.)
#define LIBFLOAT_FLAGS_BY_POINTER_IMPL(lazy, ret, name, callee, params, args) \
  lazy constexpr ret name params {                        \
    status s{};                                           \
    const ret r = callee args;                            \
    if (st) *st |= s;                                     \
    return r;                                             \
  }
#define LIBFLOAT_FLAGS_BY_POINTER(ret, name, params, args) LIBFLOAT_FLAGS_BY_POINTER_IMPL(, ret, name, name, params, args)
#define LIBFLOAT_FLAGS_BY_POINTER_LAZY(ret, name, params, args) \
  LIBFLOAT_FLAGS_BY_POINTER_IMPL(LIBFLOAT_RUNTIME_LAZY, ret, name, name<Lazy>, params, args)
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, add, (const format& f, bits_t a, bits_t b, const env& e, status* st = nullptr), (f, a, b, e, s))
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, sub, (const format& f, bits_t a, bits_t b, const env& e, status* st = nullptr), (f, a, b, e, s))
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, mul, (const format& f, bits_t a, bits_t b, const env& e, status* st = nullptr), (f, a, b, e, s))
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, div, (const format& f, bits_t a, bits_t b, const env& e, status* st = nullptr), (f, a, b, e, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, rem, (const format& f, bits_t a, bits_t b, const env& e, status* st = nullptr), (f, a, b, e, s))
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, sqrt, (const format& f, bits_t a, const env& e, status* st = nullptr), (f, a, e, s))
LIBFLOAT_FLAGS_BY_POINTER_LAZY(bits_t, fma, (const format& f, bits_t a, bits_t b, bits_t c, const env& e, status* st = nullptr), (f, a, b, c, e, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, round_to_integral, (const format& f, bits_t a, const env& e, bool exact, status* st = nullptr), (f, a, e, exact, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, convert, (const format& to, const format& from, bits_t a, const env& e, status* st = nullptr), (to, from, a, e, s))
LIBFLOAT_FLAGS_BY_POINTER(std::partial_ordering, compare, (const format& f, bits_t a, bits_t b, bool signaling, status* st, bool daz = false), (f, a, b, signaling, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, eq, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, eq_signaling, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, le, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, lt, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, le_quiet, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bool, lt_quiet, (const format& f, bits_t a, bits_t b, status* st, bool daz = false), (f, a, b, s, daz))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, minimum, (const format& f, bits_t a, bits_t b, status* st = nullptr), (f, a, b, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, maximum, (const format& f, bits_t a, bits_t b, status* st = nullptr), (f, a, b, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, minimum_number, (const format& f, bits_t a, bits_t b, status* st = nullptr), (f, a, b, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, maximum_number, (const format& f, bits_t a, bits_t b, status* st = nullptr), (f, a, b, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, next_up, (const format& f, bits_t a, status* st = nullptr), (f, a, s))
LIBFLOAT_FLAGS_BY_POINTER(bits_t, next_down, (const format& f, bits_t a, status* st = nullptr), (f, a, s))
#undef LIBFLOAT_FLAGS_BY_POINTER_LAZY
#undef LIBFLOAT_FLAGS_BY_POINTER
#undef LIBFLOAT_FLAGS_BY_POINTER_IMPL
#undef LIBFLOAT_RUNTIME_LAZY
template <std::integral I>
constexpr bits_t from_int(const format& f, I v, const env& e, status* st = nullptr) {
  status s{};
  const bits_t r = from_int(f, v, e, s);
  if (st) *st |= s;
  return r;
}
template <std::integral I>
constexpr I to_int(const format& f, bits_t a, const env& e, bool exact, status* st = nullptr) {
  status s{};
  const I r = to_int<I>(f, a, e, exact, s);
  if (st) *st |= s;
  return r;
}

}  // namespace lf
