// libfloat/models/exact.hpp: exact sums and dot products of values of any formats (a long, Kulisch-style
// fixed-point accumulator), rounded once at the end by the core, and the error measures of a
// computed result against them.
//
// API (stable; everything in namespace lf):
//
//   class exact_accumulator                     the exact value of a sum of terms, plus IEEE specials
//     add(const format&, bits_t)                  + one value (any format)
//     add(fp<F>)                                  typed
//     add_product(const format&, bits_t, const format&, bits_t)   + a*b, the product kept exact
//     add_product(fp<F>, fp<G>)                   typed
//     add_range(span<const fp<F>>), add_products(span<const fp<F>>, span<const fp<G>>)
//                                                 whole ranges (fast paths: see below)
//     add(const exact_accumulator&) / sub(...)    + / - another accumulator (exact), merging specials
//     negate()
//     round_to(const format&, const env&, status&) -> bits_t   THE one rounding (detail::round_pack)
//     round_to<F>(const env& = {}, status* = nullptr) -> fp<F>  typed
//     to_double()                                 correctly rounded (nearest even) to binary64
//     is_nan() is_infinite() is_finite() is_zero() sign() (-1, 0, +1; 0 for zeros and NaN)
//     flags()                                     invalid so far (signaling NaN operand, inf - inf, 0 * inf)
//     ilogb()                                     exponent of the leading bit of a finite nonzero value
//     limbs()                                     how many 64-bit limbs the buffer holds now
//     scaled(m, shift)                            a copy times the integer m times 2^shift, exact
//     round_abs_scaled(format, shift, env, status&)   |value| * 2^-shift rounded once
//     static quotient(num, den) -> double         |num| / |den| correctly rounded (long division)
//   compare(const exact_accumulator&, const exact_accumulator&) -> std::partial_ordering
//   compare(const exact_accumulator&, const format&, bits_t)     -> std::partial_ordering
//   exact_sum(range of fp<F>)                   -> exact_accumulator
//   exact_dot(range of fp<F>, range of fp<G>)   -> exact_accumulator (mismatched lengths: NaN + invalid)
//   exact_abs_sum(range), exact_abs_dot(range, range)   sum |x_i|, sum |a_i b_i| (for the bound ratio)
//   struct error_measures { absolute, relative, ulps, bound_ratio }     all double
//   measure_error(const format&, bits_t computed, const exact_accumulator& exact, std::size_t n,
//                 const exact_accumulator* magnitude = nullptr) -> error_measures
//   measure_error(fp<F> computed, exact, n, magnitude = nullptr)      typed
//
// Representation. The value is a two's complement integer X of n 64-bit limbs times 2^lsb
// (lsb a multiple of 64). The buffer starts inline with 10 limbs, lsb = -320: bits 2^-320 ..
// 2^319, which holds every product of two values of any format whose values lie in binary32's
// range (binary32, bfloat16, tf32, binary16, the FP8 formats: smallest product 2^-149 * 2^-149 =
// 2^-298, largest below 2^128 * 2^128 = 2^256) with 64 bits of carry headroom, so 2^63 terms
// can never overflow it. For those formats nothing is ever allocated (tests/models/test_exact.cpp
// counts operator new). A term of a wider format (binary64, custom formats with more exponent
// bits) grows the buffer once to that format's whole product range, on the heap.
//
// Every term is added exactly: its significand (product of significands, at most 106 bits) is
// shifted onto the limb grid and added or subtracted with carry propagation. Nothing is rounded
// until round_to(), which takes the leading 126 bits of |X| plus a sticky bit for everything below
// and hands them to detail::round_pack: the exact value is rounded exactly once.
//
// Fast paths for whole ranges give the same exact value (and the same specials and flags):
// - add_products (exact_dot) of formats whose significand product has at most 30 bits and whose
//   exponent fields at most 8 bits (binary16, bfloat16, tf32, E4M3, E5M2, mixed): a finite product
//   is the integer p * 2^(lo + k), p < 2^30, k = the sum of the operands' scale indices, so
//   (-1)^sign p is added to an int64 "bucket" k (61 buckets for binary16, 509 for bfloat16) with no
//   carries; 2^32 terms fit. A vectorizable loop forms p and k (SSE2, or an AVX2 build chosen at
//   run time unless lf::set_array_dispatch(array_dispatch::portable) asks for the portable one;
//   both are the same integer code), and the buckets reach the limbs once per range;
// - add_range of binary16 and FP8 values (and add_products of other formats whose product range
//   spans at most 96 bits): a 128-bit fixed-point partial sum, flushed every 2^24 terms.
// NaN and infinity operands leave the fast loops for the term-by-term path, in order.
//
// IEEE specials (the semantics of a sum evaluated with IEEE additions, made order-independent):
// - a NaN operand makes the result NaN: the first NaN operand, quieted and converted to the
//   target format (convertFormat's rule); a signaling NaN operand raises invalid;
// - inf - inf (infinite terms of both signs: a magnitude subtraction of infinities) and 0 * inf
//   are invalid (IEEE 754-2019 §7.2 b, d): invalid is raised whenever the terms hold one, a NaN
//   operand or not (whatever value a quiet NaN stood for, the sum would be invalid), and flags()
//   has it as soon as the term arrives; the result is the target format's default NaN (unless a
//   NaN operand came first: then that NaN, as above);
// - otherwise an infinity gives that infinity (converted: a format without infinity gives NaN and
//   invalid, or max finite under overflow_policy::saturate, as lf::convert does);
// - an exact zero: -0 if every term was a zero and all of them -0 (so -0 + -0 = -0), otherwise
//   +0, or -0 when rounding downward (IEEE 754-2019 §6.3); the empty sum is +0.
// Operands are read as they are: no subnormal_inputs::treat_as_zero here (an exact reference).
//
// Error measures (measure_error). With d = |computed - exact|, all exact until one final rounding
// to binary64 (nearest even) unless stated:
// - absolute    = d, correctly rounded;
// - relative    = d / |exact|, correctly rounded (an exact long division); 0 when both are zero,
//                 +inf when exact is zero and computed is not;
// - ulps        = d / ulp(exact), ulp in the computed result's format: 2^(max(E, emin) - p + 1)
//                 with 2^E <= |exact| < 2^(E+1) (Muller's ulp of a real number; ulp(0) is the
//                 smallest subnormal), correctly rounded. A correctly rounded nearest result has
//                 ulps <= 0.5;
// - bound_ratio = d / (n u M), u = 2^-p the unit roundoff of the computed result's format and M =
//                 sum |terms| when `magnitude` is given (exact_abs_sum / exact_abs_dot: the
//                 textbook bound |s^ - s| <= n u sum|x_i|, Higham, Accuracy and Stability of
//                 Numerical Algorithms, 2nd ed., §4.2 and §3.1), else M = |exact| (the bound on the
//                 relative error, n u, exact for same-sign data); correctly rounded.
// A NaN on either side gives NaN in all four; a computed infinity against a finite exact value
// gives +inf; an infinity equal to the exact infinity gives 0.
// The accumulator never allocates for the formats above; the error measures may (they scale a
// copy of the accumulator, which can leave the inline range).
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/fast/array_kernels.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/models/detail/fp_range.hpp>

namespace lf {

namespace detail {

// ---- the bucketed dot product loop (exact_accumulator::add_products_bucketed) -------------------

/// The encodings the fixed-point decoders below (bucket_loop, nonfinite_lane, fixed_parts) assume:
/// a sign bit, exponent field 0 = zero or subnormal (no hidden bit), and specials that
/// nonfinite_lane recognises (ieee: the all-ones exponent; nan_only: S.1..1.1..1). The other
/// kinds break one of these: fnuz's NaN is the -0 encoding and its all-ones magnitude is finite,
/// every finite_only encoding is finite, and an exponent-only format (E8M0) has no sign bit and
/// its field 0 is 2^emin. Those take the general path (detail::unpack, the core's decoding).
constexpr bool fixed_point_layout(const format& f) {
  return (f.kind == nonfinite::ieee || f.kind == nonfinite::nan_only) && f.has_subnormals();
}

/// 1 for an encoding of F that is NaN or infinity (is_nonfinite_bits), given its biased exponent
/// field e; written so that the loop below vectorizes. Only for fixed_point_layout(F).
template <format F>
LIBFLOAT_INLINE constexpr std::uint32_t nonfinite_lane(std::uint32_t x, std::uint32_t e) {
  static_assert(fixed_point_layout(F), "the bucketed loop reads only ieee and nan_only encodings");
  if constexpr (F.kind == nonfinite::ieee) {
    return e == F.exponent_field_max();
  } else {
    constexpr auto all = static_cast<std::uint32_t>(F.exponent_mask() | F.fraction_mask());
    return (x & all) == all;
  }
}

struct bucket_flags {
  std::uint32_t any;      ///< OR of the finite products' magnitudes (0: every finite product is zero)
  std::uint32_t special;  ///< 1 if some operand is NaN or infinity
};

/// bucket[k] += (-1)^sign p for every term, p = sig_a * sig_b (0 for NaN/inf terms), k = shift_a +
/// shift_b (see exact_accumulator::add_products_bucketed). Per block of 256 terms, a first loop with
/// independent lanes (vectorized: SSE2, or AVX2 in bucket_loop_avx2) forms every signed p and k,
/// a second adds them to the buckets. The significands are multiplied as 16-bit lanes when they
/// fit (a widening multiply, cheaper than a 32-bit one without SSE4.1).
template <format F, format G>
LIBFLOAT_INLINE bucket_flags bucket_loop(const fp<F>* a, const fp<G>* b, std::size_t n, std::int64_t* bucket) {
  constexpr auto fmax = static_cast<std::uint32_t>(F.exponent_field_max()),
                 gmax = static_cast<std::uint32_t>(G.exponent_field_max());
  constexpr std::uint32_t fb = F.fraction_bits(), gb = G.fraction_bits();
  constexpr auto fm = static_cast<std::uint32_t>(F.fraction_mask()), gm = static_cast<std::uint32_t>(G.fraction_mask());
  using sig_t = std::conditional_t<(F.precision <= 16 && G.precision <= 16), std::uint16_t, std::uint32_t>;
  constexpr std::size_t block = 256;
  alignas(64) std::int32_t prod[block];
  alignas(64) std::uint32_t index[block];
  bucket_flags r{0, 0};
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t m = min_of(block, n - start);
    const fp<F>* const pa = a + start;
    const fp<G>* const pb = b + start;
    std::uint32_t any = 0, special = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const auto x = static_cast<std::uint32_t>(pa[j].bits()), y = static_cast<std::uint32_t>(pb[j].bits());
      const std::uint32_t ex = (x >> fb) & fmax, ey = (y >> gb) & gmax;
      const std::uint32_t bad = nonfinite_lane<F>(x, ex) | nonfinite_lane<G>(y, ey);
      special |= bad;
      const std::uint32_t nx = ex != 0, ny = ey != 0;
      const auto sx = static_cast<sig_t>((x & fm) | (nx << fb)), sy = static_cast<sig_t>((y & gm) | (ny << gb));
      const std::uint32_t p = (static_cast<std::uint32_t>(sx) * sy) & (bad - 1);  // 0 for NaN/inf
      any |= p;
      const std::int32_t s = -static_cast<std::int32_t>(((x >> (F.bits() - 1)) ^ (y >> (G.bits() - 1))) & 1);
      prod[j] = (static_cast<std::int32_t>(p) ^ s) - s;  // signs are coin flips: no branch
      index[j] = ex - nx + ey - ny;                      // <= (fmax - 1) + (gmax - 1), NaN/inf lanes too
    }
    for (std::size_t j = 0; j < m; ++j) bucket[index[j]] += prod[j];
    r.any |= any;
    r.special |= special;
  }
  return r;
}
template <format F, format G>
[[gnu::noinline]] bucket_flags bucket_loop_portable(const fp<F>* a, const fp<G>* b, std::size_t n,
                                                   std::int64_t* bucket) {
  return bucket_loop<F, G>(a, b, n, bucket);
}
#if defined(LIBFLOAT_ARRAY_X86)
template <format F, format G>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] bucket_flags bucket_loop_avx2(const fp<F>* a, const fp<G>* b, std::size_t n,
                                                                      std::int64_t* bucket) {
  return bucket_loop<F, G>(a, b, n, bucket);
}
#endif
/// The loop lf::array_dispatch_in_use() selects (the same bits on every path: integer code).
template <format F, format G>
bucket_flags bucket_loop_dispatch(const fp<F>* a, const fp<G>* b, std::size_t n, std::int64_t* bucket) {
#if defined(LIBFLOAT_ARRAY_X86)
  if (array_dispatch_in_use() != array_dispatch::portable) return bucket_loop_avx2<F, G>(a, b, n, bucket);
#endif
  return bucket_loop_portable<F, G>(a, b, n, bucket);
}
}  // namespace detail

class exact_accumulator {
 public:
  using limb = std::uint64_t;
  /// Limbs held inline (no allocation): bits 2^inline_lsb .. 2^(inline_lsb + 64 * inline_limbs - 1).
  static constexpr int inline_limbs = 10;
  static constexpr int inline_lsb = -320;

  exact_accumulator() = default;

  // ---- adding terms ---------------------------------------------------------------------------

  /// + the value of encoding `a` in format `f`.
  exact_accumulator& add(const format& f, bits_t a) {
    const detail::unpacked x = detail::unpack(f, a);
    switch (x.kind) {
      case detail::kind::zero: note_zero(x.negative); return *this;
      case detail::kind::finite: break;
      case detail::kind::infinite: note_infinity(x.negative); return *this;
      default: note_nan(f, a); return *this;
    }
    reserve(f.emin() - f.fraction_bits(), f.emax() + 1);
    note_nonzero();
    add_magnitude(x.negative, x.sig, x.exp);
    return *this;
  }

  /// + a*b, the product exact (significands multiplied, exponents added).
  exact_accumulator& add_product(const format& fa, bits_t a, const format& fb, bits_t b) {
    const detail::unpacked x = detail::unpack(fa, a), y = detail::unpack(fb, b);
    if (x.is_nan() || y.is_nan()) {
      if (detail::is_snan_bits(fa, a) || detail::is_snan_bits(fb, b)) flags_ |= status::invalid;
      return x.is_nan() ? note_nan(fa, a) : note_nan(fb, b);
    }
    const bool negative = x.negative != y.negative;
    const bool inf = x.kind == detail::kind::infinite || y.kind == detail::kind::infinite;
    const bool zero = x.kind == detail::kind::zero || y.kind == detail::kind::zero;
    if (inf && zero) {  // §7.2: 0 * inf is invalid
      flags_ |= status::invalid;
      invalid_nan_ = true;
      return *this;
    }
    if (inf) return note_infinity(negative);
    if (zero) return note_zero(negative);
    reserve(fa.emin() - fa.fraction_bits() + fb.emin() - fb.fraction_bits(), fa.emax() + fb.emax() + 2);
    note_nonzero();
    add_magnitude(negative, detail::u128{x.sig} * y.sig, x.exp + y.exp);
    return *this;
  }

  template <format F>
  exact_accumulator& add(fp<F> a) {
    return add(F, a.bits());
  }
  template <format F, format G>
  exact_accumulator& add_product(fp<F> a, fp<G> b) {
    return add_product(F, a.bits(), G, b.bits());
  }

  /// + every value of x. For formats whose whole range spans at most 96 bits (binary16, the FP8
  /// formats) the finite values are first summed in a 128-bit fixed-point integer (exact: at most
  /// 2^24 terms below 2^96 between flushes), then added here once: the same exact value, fast.
  template <format F>
  exact_accumulator& add_range(std::span<const fp<F>> x) {
    constexpr int lo = F.emin() - F.fraction_bits(), hi = F.emax() + 1;
    // fixed_parts needs field 0 to be a subnormal (not an exponent-only format's 2^emin). fnuz and
    // finite_only formats are fine here: specials are found by the core's is_nonfinite_bits.
    if constexpr (hi - lo <= 96 && F.has_subnormals()) {
      fixed_sum fs{};
      for (const fp<F> v : x) {
        const bits_t b = v.bits();
        if (detail::is_nonfinite_bits(F, b)) [[unlikely]] {
          add(F, b);
          continue;
        }
        const fixed_parts u = fixed_parts::of(F, b);
        fs.add((b & F.sign_mask()) != 0, detail::u128{u.sig} << u.shift);
        if (fs.count == fixed_sum::capacity) [[unlikely]] fs = flush(fs, lo, hi);
      }
      flush(fs, lo, hi);
    } else {
      for (const fp<F> v : x) add(F, v.bits());
    }
    return *this;
  }
  /// + sum a_i b_i over the common length (the callers check it). Formats whose significand
  /// product has at most 30 bits and whose exponent field at most 8 bits (binary16, bfloat16,
  /// tf32, the FP8 formats, mixed) take the bucketed path (add_products_bucketed); other
  /// products whose range spans at most 96 bits take the 128-bit fixed-point path of add_range.
  template <format F, format G>
  exact_accumulator& add_products(std::span<const fp<F>> a, std::span<const fp<G>> b) {
    constexpr int lo = F.emin() - F.fraction_bits() + G.emin() - G.fraction_bits(), hi = F.emax() + G.emax() + 2;
    const std::size_t n = detail::min_of(a.size(), b.size());
    if constexpr (bucketed<F, G>) {
      for (std::size_t start = 0; start < n; start += bucket_chunk)
        add_products_bucketed<F, G>(a.data() + start, b.data() + start, detail::min_of(n - start, bucket_chunk));
    } else if constexpr (hi - lo <= 96 && F.has_subnormals() && G.has_subnormals()) {  // (as add_range)
      fixed_sum fs{};
      for (std::size_t i = 0; i < n; ++i) {
        const bits_t x = a[i].bits(), y = b[i].bits();
        if (detail::is_nonfinite_bits(F, x) || detail::is_nonfinite_bits(G, y)) [[unlikely]] {
          add_product(F, x, G, y);
          continue;
        }
        const fixed_parts u = fixed_parts::of(F, x), v = fixed_parts::of(G, y);
        const bool negative = ((x & F.sign_mask()) != 0) != ((y & G.sign_mask()) != 0);
        fs.add(negative, (detail::u128{u.sig} * v.sig) << (u.shift + v.shift));
        if (fs.count == fixed_sum::capacity) [[unlikely]] fs = flush(fs, lo, hi);
      }
      flush(fs, lo, hi);
    } else {
      for (std::size_t i = 0; i < n; ++i) add_product(F, a[i].bits(), G, b[i].bits());
    }
    return *this;
  }

  /// + another accumulator, exactly; NaN, infinities, zero signs and flags merge as if its terms
  /// had been added here.
  exact_accumulator& add(const exact_accumulator& o) { return merge(o, false); }
  /// - another accumulator, exactly.
  exact_accumulator& sub(const exact_accumulator& o) { return merge(o, true); }

  /// The accumulator now holds minus its value (infinities and zero signs swap too).
  exact_accumulator& negate() {
    limb* x = data();
    limb carry = 1;  // -X = ~X + 1
    for (int k = 0; k < n_; ++k) {
      const limb v = ~x[k] + carry;
      carry = (carry && v == 0) ? 1 : 0;
      x[k] = v;
    }
    std::swap(pos_inf_, neg_inf_);
    if (zero_terms_ > 0 || nonzero_terms_ > 0) {
      // -(-0) = +0 and -(+0) = -0: "every term was -0" becomes "every term was +0".
      const bool was_all_negative = all_negative_zero_;
      all_negative_zero_ = all_positive_zero_;
      all_positive_zero_ = was_all_negative;
    }
    return *this;
  }

  // ---- reading ------------------------------------------------------------------------------

  bool is_nan() const { return nan_ || invalid_nan_ || (pos_inf_ && neg_inf_); }
  bool is_infinite() const { return !is_nan() && (pos_inf_ || neg_inf_); }
  bool is_finite() const { return !is_nan() && !pos_inf_ && !neg_inf_; }
  /// The finite part is zero (and the value is finite).
  bool is_zero() const { return is_finite() && magnitude_is_zero(); }
  /// -1, 0 or +1; infinities count, NaN gives 0.
  int sign() const {
    if (is_nan()) return 0;
    if (pos_inf_) return 1;
    if (neg_inf_) return -1;
    if (negative()) return -1;
    return magnitude_is_zero() ? 0 : 1;
  }
  /// Flags raised by the terms so far (invalid), reported again by round_to.
  status flags() const { return flags_; }
  /// E with 2^E <= |value| < 2^(E+1), for a finite nonzero value; otherwise INT_MIN.
  int ilogb() const {
    if (!is_finite() || magnitude_is_zero()) return std::numeric_limits<int>::min();
    const magnitude_view m = view();
    return lsb_ + 64 * m.top + std::bit_width(m.limb_at(data(), m.top)) - 1;
  }
  int limbs() const { return n_; }

  /// THE one rounding of the exact value into format f, by detail::round_pack under e (every
  /// rounding direction and policy). ORs into st the flags of the terms (flags()) and those of
  /// the rounding.
  bits_t round_to(const format& f, const env& e, status& st) const {
    st |= flags_;
    if (nan_) {
      status ignored{};  // a signaling NaN operand already raised invalid in flags_
      const bits_t r = convert(f, nan_format_, nan_bits_, e, ignored);
      // A format without NaN (finite_only) cannot hold the result: what stands in for it (max
      // finite, lf::nonfinite::finite_only) comes with invalid, as lf::convert raises it.
      if (!f.has_nan()) st |= status::invalid;
      return r;
    }
    if (invalid_nan_ || (pos_inf_ && neg_inf_)) {  // §7.2: inf - inf, 0 * inf
      st |= status::invalid;
      return f.default_nan_bits();
    }
    if (pos_inf_ || neg_inf_) return convert(f, binary64, detail::sign_bit(binary64, neg_inf_) | binary64.infinity_bits(), e, st);
    return round_scaled(f, 0, e, st);
  }
  template <format F>
  fp<F> round_to(const env& e = {}, status* st = nullptr) const {
    status s{};
    const bits_t r = round_to(F, e, s);
    detail::report(st, s);
    return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
  }
  /// Correctly rounded to binary64, nearest even.
  double to_double() const {
    status ignored{};
    return std::bit_cast<double>(round_to(binary64, env{}, ignored));
  }

  // ---- pieces used by the error measures (and usable on their own) ---------------------------

  /// |value| * 2^-shift rounded once into f (finite values only; NaN/inf as round_to).
  bits_t round_abs_scaled(const format& f, int shift, const env& e, status& st) const {
    // lf::abs, not a mask: a fnuz NaN is the sign bit itself (masking it would give +0).
    if (!is_finite()) return lf::abs(f, round_to(f, e, st));
    st |= flags_;
    return round_scaled(f, shift, e, st, /*absolute=*/true);
  }

  /// The exact product value * m * 2^shift (finite part only; specials and flags kept).
  exact_accumulator scaled(std::uint64_t m, int shift) const {
    exact_accumulator r;
    r.copy_specials(*this);
    const magnitude_view v = view();
    if (v.top < 0 || m == 0) return r;
    const limb* x = data();
    for (int k = v.bottom; k <= v.top; ++k) {
      const limb mk = v.limb_at(x, k);
      if (mk == 0) continue;
      const int e = lsb_ + 64 * k + shift;
      r.reserve(e, e + 128);
      r.add_magnitude(v.negative, detail::u128{mk} * m, e);
    }
    return r;
  }

  /// |num| / |den| correctly rounded to binary64 (nearest even), for finite values: 0 when num
  /// is zero, +inf when only den is. A long division: q = leading 126 bits of |num| / leading 64
  /// bits of |den| (off by a few units at most), corrected with the exact remainder
  /// R = |num| - q |den| 2^g until 0 <= R < |den| 2^g; R != 0 is the sticky bit, and round_pack
  /// rounds q + sticky once.
  static double quotient(const exact_accumulator& num, const exact_accumulator& den) {
    if (num.magnitude_is_zero()) return 0.0;
    if (den.magnitude_is_zero()) return std::numeric_limits<double>::infinity();
    const leading nl = num.leading_bits(126), dl = den.leading_bits(64);
    std::uint64_t q = static_cast<std::uint64_t>(nl.sig / static_cast<std::uint64_t>(dl.sig));  // < 2^63 + 2^62
    const int g = nl.exp - dl.exp;  // |num| / |den| ~ q * 2^g
    exact_accumulator r = num;
    if (r.negative()) r.negate();
    r.merge_finite(den.scaled(q, g), /*subtract=*/den.negative() == false);
    const exact_accumulator dg = den.scaled(1, g);
    const bool dneg = dg.negative();
    while (r.negative()) {  // q too large
      --q;
      r.merge_finite(dg, dneg);
    }
    for (;;) {  // q too small
      exact_accumulator t = r;
      t.merge_finite(dg, !dneg);
      if (t.negative()) break;
      ++q;
      r = t;
    }
    status ignored{};
    const bits_t b = detail::round_pack(binary64, false, g, detail::u128{q}, !r.magnitude_is_zero(), env{}, ignored);
    return std::bit_cast<double>(b);
  }

 private:
  /// |X| = (sig + t) * 2^exp with 0 <= t < 1 (t > 0 iff sticky) and sig of exactly `bits` bits
  /// (bits <= 126), for X != 0. A truncation of a magnitude, used only as the first guess of the
  /// long division in quotient(), which then corrects it exactly.
  struct leading {
    detail::u128 sig;
    int exp;
    bool sticky;
  };
  leading leading_bits(int bits) const {
    const magnitude_view v = view();
    const limb* x = data();
    const int h = v.top;
    detail::u128 sig = detail::u128{v.limb_at(x, h)};
    int exp = lsb_ + 64 * h;
    bool sticky = false;
    if (h >= 1) {
      sig = (sig << 64) | v.limb_at(x, h - 1);
      exp -= 64;
      sticky = v.bottom < h - 1;
    }
    const int w = detail::bit_width(sig);
    if (w > bits) {
      const int s = w - bits;
      sticky = sticky || (sig & ((detail::u128{1} << s) - 1)) != 0;
      sig >>= s;
      exp += s;
    } else {
      sig <<= bits - w;
      exp -= bits - w;
    }
    return {sig, exp, sticky};
  }

  /// X += or -= o's finite part (no specials): the remainder updates of quotient().
  void merge_finite(const exact_accumulator& o, bool subtract) {
    const magnitude_view v = o.view();
    if (v.top < 0) return;
    reserve(o.lsb_ + 64 * v.bottom, o.lsb_ + 64 * (v.top + 1));
    const limb* y = o.data();
    for (int k = v.bottom; k <= v.top; ++k) {
      const limb mk = v.limb_at(y, k);
      if (mk != 0) add_magnitude(v.negative != subtract, mk, o.lsb_ + 64 * k);
    }
  }

  // Buffer: inline_ unless heap_ is in use.
  std::array<limb, inline_limbs> inline_{};
  std::vector<limb> heap_;
  int lsb_ = inline_lsb;  ///< exponent of bit 0 of limb 0, a multiple of 64
  int n_ = inline_limbs;  ///< limbs in use; the top limb's top bit is the sign

  // Specials and zero-sign bookkeeping.
  bool nan_ = false;          ///< a NaN operand was seen (the first is kept)
  bool invalid_nan_ = false;  ///< 0 * inf was seen
  bool pos_inf_ = false, neg_inf_ = false;
  format nan_format_ = binary64;
  bits_t nan_bits_ = 0;
  status flags_{};
  std::uint64_t zero_terms_ = 0, nonzero_terms_ = 0;
  bool all_negative_zero_ = true;  ///< every term so far was -0
  bool all_positive_zero_ = true;  ///< every term so far was +0 (kept so negate() can swap)

  limb* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const limb* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  bool negative() const { return (data()[n_ - 1] >> 63) != 0; }

  /// A finite encoding of f as sig * 2^(emin - fraction_bits + shift): written without branches
  /// (subnormals have biased exponent 0 and no hidden bit, the same scale as biased exponent 1).
  /// Not for a format without subnormals (exponent-only: its field 0 is 2^emin, with the hidden bit).
  struct fixed_parts {
    std::uint64_t sig;
    int shift;
    static constexpr fixed_parts of(const format& f, bits_t b) {
      const bits_t e = (b & f.exponent_mask()) >> f.fraction_bits();
      const bits_t normal = e != 0;
      return {(b & f.fraction_mask()) | (normal << f.fraction_bits()), static_cast<int>(e - normal)};
    }
  };

  /// The 128-bit fixed-point partial sum of add_range / add_products, a value kept in registers:
  /// terms m * 2^lo with m < 2^96 (m == 0 for a zero term, whose sign still counts, §6.3), at
  /// most `capacity` of them before flush(), so |sum| < 2^120 never overflows.
  struct fixed_sum {
    __extension__ typedef __int128 i128;
    static constexpr std::size_t capacity = std::size_t{1} << 24;
    i128 sum;
    std::size_t count, zeros, negative_zeros;
    void add(bool negative, detail::u128 m) {
      const i128 mask = -static_cast<i128>(negative);  // 0 or -1: negated without a branch (signs are coin flips)
      sum += (static_cast<i128>(m) ^ mask) - mask;
      const bool zero = m == 0;
      zeros += zero;
      negative_zeros += zero & negative;
      ++count;
    }
  };
  /// The products add_products_bucketed takes: significand products of at most 30 bits,
  /// exponent fields of at most 8 bits, encodings of at most 32 bits, and encodings laid out as
  /// the loop decodes them (detail::fixed_point_layout: not fnuz, finite_only or exponent-only).
  template <format F, format G>
  static constexpr bool bucketed = F.precision + G.precision <= 30 && F.exponent_bits <= 8 && G.exponent_bits <= 8 &&
                                   F.bits() <= 32 && G.bits() <= 32 && detail::fixed_point_layout(F) &&
                                   detail::fixed_point_layout(G);
  /// At most this many terms per call of add_products_bucketed: each bucket then stays below
  /// 2^32 * 2^30 = 2^62 in magnitude.
  static constexpr std::size_t bucket_chunk = std::size_t{1} << (sizeof(std::size_t) > 4 ? 32 : 31);

  /// + sum a_i b_i for i < n <= bucket_chunk (bucketed<F, G>). A finite encoding is
  /// sig * 2^(emin - fraction_bits + shift) with shift = e - (e != 0) (fixed_parts), so a finite
  /// product is the integer p * 2^(lo + k), p < 2^30, k = shift_a + shift_b < nb (61 buckets for
  /// binary16 x binary16, 29 for E4M3 x E4M3, 509 for bfloat16): (-1)^sign p goes into the int64
  /// bucket k, exactly, with no carries (detail::bucket_loop). The buckets reach the limbs once at
  /// the end: as one 128-bit sum when it fits (binary16, FP8), else bucket by bucket. NaN and
  /// infinity operands count as p = 0 there and are then handed to add_product in order (the
  /// same specials and flags as term by term). Zero terms matter only when every finite product
  /// is zero (the signs of the zeros then decide the sign of an exact zero sum, §6.3): only then
  /// a second pass notes them one by one.
  template <format F, format G>
  void add_products_bucketed(const fp<F>* a, const fp<G>* b, std::size_t n) {
    constexpr int lo = F.emin() - F.fraction_bits() + G.emin() - G.fraction_bits(), hi = F.emax() + G.emax() + 2;
    constexpr int nb = static_cast<int>(F.exponent_field_max() + G.exponent_field_max()) - 1;
    std::array<std::int64_t, nb> bucket{};
    const detail::bucket_flags r = detail::bucket_loop_dispatch<F, G>(a, b, n, bucket.data());
    if (r.special != 0) [[unlikely]] {
      for (std::size_t i = 0; i < n; ++i) {
        const bits_t x = a[i].bits(), y = b[i].bits();
        if (detail::is_nonfinite_bits(F, x) || detail::is_nonfinite_bits(G, y)) add_product(F, x, G, y);
      }
    }
    if (r.any == 0) {  // every finite product is zero (or there is none): the zero signs count
      for (std::size_t i = 0; i < n; ++i) {
        const bits_t x = a[i].bits(), y = b[i].bits();
        if (!detail::is_nonfinite_bits(F, x) && !detail::is_nonfinite_bits(G, y))
          note_zero(((x & F.sign_mask()) != 0) != ((y & G.sign_mask()) != 0));
      }
      return;
    }
    note_nonzero();
    // |bucket k| * 2^(lo + k) < n * 2^(lo + k + F.precision + G.precision) <= n * 2^hi: the 64
    // bits of headroom reserve() keeps above 2^hi hold every bucket and their sum.
    reserve(lo, hi);
    constexpr int bucket_bits = 32 + F.precision + G.precision;  // |bucket| < 2^bucket_bits
    if constexpr (bucket_bits + (nb - 1) + std::bit_width(static_cast<unsigned>(nb)) < 127) {
      fixed_sum::i128 sum = 0;
      for (int k = 0; k < nb; ++k) sum += static_cast<fixed_sum::i128>(bucket[static_cast<std::size_t>(k)]) << k;
      if (sum != 0) add_magnitude(sum < 0, static_cast<detail::u128>(sum < 0 ? -sum : sum), lo);
    } else {
      for (int k = 0; k < nb; ++k) {
        const std::int64_t v = bucket[static_cast<std::size_t>(k)];
        const auto u = static_cast<std::uint64_t>(v);
        if (v != 0) add_magnitude(v < 0, v < 0 ? std::uint64_t{0} - u : u, lo + k);
      }
    }
  }

  /// Adds a fixed_sum's terms (exactly) and returns an empty one.
  fixed_sum flush(fixed_sum fs, int lo, int hi) {
    if (fs.zeros != 0) {
      zero_terms_ += fs.zeros;
      if (fs.negative_zeros != fs.zeros) all_negative_zero_ = false;
      if (fs.negative_zeros != 0) all_positive_zero_ = false;
    }
    if (fs.count != fs.zeros) {
      reserve(lo, hi + 25);  // up to 2^24 terms below 2^hi each
      note_nonzero();
      if (fs.sum != 0) add_magnitude(fs.sum < 0, static_cast<detail::u128>(fs.sum < 0 ? -fs.sum : fs.sum), lo);
    }
    return fixed_sum{};
  }

  exact_accumulator& note_zero(bool negative) {
    ++zero_terms_;
    (negative ? all_positive_zero_ : all_negative_zero_) = false;
    return *this;
  }
  void note_nonzero() {
    ++nonzero_terms_;
    all_negative_zero_ = all_positive_zero_ = false;
  }
  /// An infinite term. Infinities of both signs are a magnitude subtraction of infinities, invalid
  /// (IEEE 754-2019 §7.2 d): raised when the second sign arrives, whatever else the sum holds (a
  /// NaN operand, 0 * inf), so flags() reports it before any rounding.
  exact_accumulator& note_infinity(bool negative) {
    (negative ? neg_inf_ : pos_inf_) = true;
    if (pos_inf_ && neg_inf_) flags_ |= status::invalid;
    return *this;
  }
  exact_accumulator& note_nan(const format& f, bits_t a) {
    if (detail::is_snan_bits(f, a)) flags_ |= status::invalid;
    if (!nan_) {
      nan_ = true;
      nan_format_ = f;
      nan_bits_ = a;
    }
    return *this;
  }
  void copy_specials(const exact_accumulator& o) {
    nan_ = o.nan_;
    invalid_nan_ = o.invalid_nan_;
    pos_inf_ = o.pos_inf_;
    neg_inf_ = o.neg_inf_;
    nan_format_ = o.nan_format_;
    nan_bits_ = o.nan_bits_;
    flags_ = o.flags_;
    zero_terms_ = o.zero_terms_;
    nonzero_terms_ = o.nonzero_terms_;
    all_negative_zero_ = o.all_negative_zero_;
    all_positive_zero_ = o.all_positive_zero_;
  }

  /// Makes the buffer hold terms whose bits lie in [2^lo, 2^hi) with 64 bits of headroom above.
  void reserve(int lo, int hi) {
    const int top = lsb_ + 64 * n_;
    if (lo >= lsb_ && hi + 64 <= top) return;
    grow(lo, hi);
  }
  [[gnu::noinline]] void grow(int lo, int hi) {
    auto floor64 = [](int v) { return v >= 0 ? v / 64 * 64 : -((-v + 63) / 64 * 64); };
    const int new_lsb = detail::min_of(lsb_, floor64(lo));
    const int new_top = detail::max_of(lsb_ + 64 * n_, -floor64(-(hi + 64)));
    const int new_n = (new_top - new_lsb) / 64;
    std::vector<limb> b(static_cast<std::size_t>(new_n), negative() ? ~limb{0} : limb{0});
    const int at = (lsb_ - new_lsb) / 64;
    for (int k = 0; k < n_; ++k) b[static_cast<std::size_t>(at + k)] = data()[k];
    for (int k = 0; k < at; ++k) b[static_cast<std::size_t>(k)] = 0;  // below the old lsb: zeros
    heap_ = std::move(b);
    lsb_ = new_lsb;
    n_ = new_n;
  }

  /// X += (-1)^negative * m * 2^e, exactly. Precondition: reserve() covered the term.
  void add_magnitude(bool neg, detail::u128 m, int e) {
    limb* x = data();
    const int offset = e - lsb_;
    int k = offset / 64;
    const int sh = offset % 64;
    const auto lo = static_cast<limb>(m), hi = static_cast<limb>(m >> 64);
    limb w[3] = {lo << sh, sh ? (lo >> (64 - sh)) | (hi << sh) : hi, sh ? hi >> (64 - sh) : 0};
    const int words = w[2] ? 3 : w[1] ? 2 : 1;
    if (!neg) {
      bool carry = false;
      for (int i = 0; i < words; ++i, ++k) {
        const limb s = x[k] + w[i];
        const bool c1 = s < w[i];
        const limb t = s + limb{carry};
        carry = c1 || (carry && t == 0);
        x[k] = t;
      }
      for (; carry && k < n_; ++k) carry = ++x[k] == 0;
    } else {
      bool borrow = false;
      for (int i = 0; i < words; ++i, ++k) {
        const limb s = x[k] - w[i];
        const bool b1 = x[k] < w[i];
        const limb t = s - limb{borrow};
        borrow = b1 || (borrow && s == 0);
        x[k] = t;
      }
      for (; borrow && k < n_; ++k) borrow = x[k]-- == 0;
    }
  }

  /// Reads |X| limb by limb without negating the buffer: for X < 0 with lowest nonzero limb b,
  /// |X| = ~X + 1 has limbs 0 below b, -X_b at b, ~X_k above.
  struct magnitude_view {
    bool negative;
    int bottom;  ///< lowest nonzero limb, or -1 if X == 0
    int top;     ///< highest nonzero limb of |X|, or -1 if X == 0
    limb limb_at(const limb* x, int k) const {
      if (!negative) return x[k];
      if (k < bottom) return 0;
      return k == bottom ? limb{0} - x[k] : ~x[k];
    }
  };
  magnitude_view view() const {
    const limb* x = data();
    magnitude_view v{negative(), -1, -1};
    for (int k = 0; k < n_; ++k)
      if (x[k] != 0) {
        v.bottom = k;
        break;
      }
    if (v.bottom < 0) return v;
    for (int k = n_ - 1; k >= v.bottom; --k)
      if (v.limb_at(x, k) != 0) {
        v.top = k;
        break;
      }
    return v;
  }
  bool magnitude_is_zero() const {
    const limb* x = data();
    for (int k = 0; k < n_; ++k)
      if (x[k] != 0) return false;
    return true;
  }

  /// Rounds the finite value * 2^-shift (|value| when `absolute`) into f: the leading 126 bits of
  /// the magnitude as sig, anything nonzero below them as sticky, then round_pack decides.
  bits_t round_scaled(const format& f, int shift, const env& e, status& st, bool absolute = false) const {
    const magnitude_view v = view();
    const bool neg = v.negative && !absolute;
    if (v.top < 0) {  // exact zero, §6.3: -0 + -0 = -0, +0 + +0 = +0, any other exact zero sum
                      // is +0 (-0 rounding downward); the empty sum is +0
      const bool only_zeros = nonzero_terms_ == 0 && zero_terms_ > 0;
      bool zneg = false;
      if (only_zeros && all_negative_zero_) zneg = true;
      else if (only_zeros && all_positive_zero_) zneg = false;
      else zneg = zero_terms_ + nonzero_terms_ > 0 && detail::exact_zero_sum_sign(e.mode);
      if (absolute) zneg = false;
      // zero_result: a format without a zero (exponent-only, E8M0) gives its NaN and invalid, as
      // the core does for an exact zero result (zero_bits would give 0, the encoding of 2^emin).
      return detail::zero_result(f, zneg, st);
    }
    const limb* x = data();
    const int h = v.top;
    detail::u128 sig = detail::u128{v.limb_at(x, h)};
    int exp = lsb_ + 64 * h - shift;
    bool sticky = false;
    if (h >= 1) {
      sig = (sig << 64) | v.limb_at(x, h - 1);
      exp -= 64;
      sticky = v.bottom < h - 1;  // |X| has nonzero limbs below h - 1 iff X does
    }
    if (detail::bit_width(sig) > 126) {  // round_pack wants sig < 2^126: the two low bits join the sticky part
      sticky = sticky || (sig & 3) != 0;
      sig >>= 2;
      exp += 2;
    }
    return detail::round_pack(f, neg, exp, sig, sticky, e, st);
  }

  exact_accumulator& merge(const exact_accumulator& o, bool subtract) {
    // Specials.
    if (o.nan_ && !nan_) {
      nan_ = true;
      nan_format_ = o.nan_format_;
      nan_bits_ = o.nan_bits_;
    }
    invalid_nan_ = invalid_nan_ || o.invalid_nan_;
    flags_ |= o.flags_;
    (subtract ? neg_inf_ : pos_inf_) |= o.pos_inf_;
    (subtract ? pos_inf_ : neg_inf_) |= o.neg_inf_;
    if (pos_inf_ && neg_inf_) flags_ |= status::invalid;  // inf - inf across the two (§7.2 d)
    zero_terms_ += o.zero_terms_;
    nonzero_terms_ += o.nonzero_terms_;
    const bool o_all_neg = subtract ? o.all_positive_zero_ : o.all_negative_zero_;
    const bool o_all_pos = subtract ? o.all_negative_zero_ : o.all_positive_zero_;
    all_negative_zero_ = all_negative_zero_ && o_all_neg;
    all_positive_zero_ = all_positive_zero_ && o_all_pos;
    merge_finite(o, subtract);
    return *this;
  }
};

/// The order of two exact values (IEEE: NaN is unordered, -inf < finite < +inf), exactly.
inline std::partial_ordering compare(const exact_accumulator& a, const exact_accumulator& b) {
  if (a.is_nan() || b.is_nan()) return std::partial_ordering::unordered;
  const int ca = a.is_infinite() ? a.sign() : 0, cb = b.is_infinite() ? b.sign() : 0;
  if (ca != 0 || cb != 0) return ca <=> cb;  // +inf == +inf; finite values lie between
  exact_accumulator d = a;
  d.sub(b);
  return d.sign() <=> 0;
}
/// The order of an exact value and the value of encoding b of format f.
inline std::partial_ordering compare(const exact_accumulator& a, const format& f, bits_t b) {
  exact_accumulator x;
  x.add(f, b);
  return compare(a, x);
}

// ---- whole ranges ---------------------------------------------------------------------------

/// The exact sum of the values of x.
template <fp_range R>
exact_accumulator exact_sum(const R& x) {
  using T = detail::fp_range_value_t<R>;
  exact_accumulator acc;
  acc.add_range(std::span<const T>(std::data(x), std::size(x)));
  return acc;
}

/// The exact dot product sum a_i * b_i. Mismatched lengths give NaN and invalid (through
/// round_to), like lf::dot on a matrix unit.
template <fp_range R, fp_range S>
exact_accumulator exact_dot(const R& a, const S& b) {
  exact_accumulator acc;
  if (std::size(a) != std::size(b)) {
    acc.add_product(binary64, binary64.infinity_bits(), binary64, 0);  // 0 * inf: invalid, NaN
    return acc;
  }
  using TA = detail::fp_range_value_t<R>;
  using TB = detail::fp_range_value_t<S>;
  acc.add_products(std::span<const TA>(std::data(a), std::size(a)),
                   std::span<const TB>(std::data(b), std::size(b)));
  return acc;
}

/// sum |x_i|, exactly: the M of the textbook bound n u sum|x_i| (measure_error's `magnitude`).
template <fp_range R>
exact_accumulator exact_abs_sum(const R& x) {
  exact_accumulator acc;
  for (const auto& v : x) acc.add(abs(v));
  return acc;
}

/// sum |a_i b_i|, exactly. Mismatched lengths: NaN and invalid.
template <fp_range R, fp_range S>
exact_accumulator exact_abs_dot(const R& a, const S& b) {
  exact_accumulator acc;
  if (std::size(a) != std::size(b)) {
    acc.add_product(binary64, binary64.infinity_bits(), binary64, 0);
    return acc;
  }
  const auto* ib = std::data(b);
  for (const auto& v : a) acc.add_product(abs(v), abs(*ib++));
  return acc;
}

// ---- error measures -----------------------------------------------------------------------

/// See the file comment for the definitions; every field is one rounding of an exact quantity
/// to binary64 (nearest even).
struct error_measures {
  double absolute;     ///< |computed - exact|
  double relative;     ///< |computed - exact| / |exact|
  double ulps;         ///< |computed - exact| / ulp(exact), ulp in the computed result's format
  double bound_ratio;  ///< |computed - exact| / (n u M), M = sum|terms| if given, else |exact|
};

/// The error measures of `computed` (an encoding of format f, the format the result was computed
/// in: its p and emin define ulp and u) against `exact`, for a sum or dot product of n terms.
/// `magnitude`, when given, is sum |terms| (exact_abs_sum / exact_abs_dot) for the bound ratio.
inline error_measures measure_error(const format& f, bits_t computed, const exact_accumulator& exact, std::size_t n,
                                    const exact_accumulator* magnitude = nullptr) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const detail::unpacked c = detail::unpack(f, computed);
  if (c.is_nan() || exact.is_nan() || (magnitude != nullptr && magnitude->is_nan())) return {nan, nan, nan, nan};
  if (c.kind == detail::kind::infinite || !exact.is_finite()) {
    const bool same = c.kind == detail::kind::infinite && exact.is_infinite() && c.negative == (exact.sign() < 0);
    const double v = same ? 0.0 : inf;
    return {v, v, v, v};
  }
  exact_accumulator diff = exact;  // computed - exact, exactly
  diff.negate();
  diff.add(f, computed);
  status ignored{};
  const env rne{};
  error_measures m{};
  m.absolute = std::bit_cast<double>(diff.round_abs_scaled(binary64, 0, rne, ignored));
  m.relative = exact_accumulator::quotient(diff, exact);
  // ulp(exact) = 2^(max(E, emin) - p + 1), 2^E <= |exact| < 2^(E+1); ulp(0) = 2^(emin - p + 1).
  const int E = exact.is_zero() ? f.emin() : detail::max_of(exact.ilogb(), f.emin());
  m.ulps = std::bit_cast<double>(diff.round_abs_scaled(binary64, E - f.precision + 1, rne, ignored));
  // n u M = n * 2^-p * M, formed exactly.
  const exact_accumulator& M = magnitude != nullptr ? *magnitude : exact;
  m.bound_ratio = exact_accumulator::quotient(diff, M.scaled(static_cast<std::uint64_t>(n), -f.precision));
  return m;
}

template <format F>
error_measures measure_error(fp<F> computed, const exact_accumulator& exact, std::size_t n,
                             const exact_accumulator* magnitude = nullptr) {
  return measure_error(F, computed.bits(), exact, n, magnitude);
}

}  // namespace lf
