// libfloat/fast/binary16_span_ops.hpp: binary16 add, sub, mul and div on spans (lf::add(a, b, out, e)
// etc., core/array_arith.hpp) under the default policy, on the AVX2 and AVX-512 paths: the exact
// result of each pair, rounded to odd at binary32, then rounded once more to binary16 by the span
// kernels of lf::convert (fast/array_kernels.hpp).
//
// Proof: tests/fast/test_binary16_ops_proof.cpp (ctest label `proof`) runs lf::add / sub / mul / div
// on spans, on every path the CPU has (portable, avx2, avx512; one it lacks is reported skipped), for
// all 2^32 pairs of binary16 encodings in the six deterministic rounding directions, and compares
// every element's bits with the core (detail::add_inline etc., core/arith.hpp), and the flags the
// span returns with the OR of the core's over groups of pairs whose core flags are equal (so an
// element raising a flag the core does not is caught).
//
// Why the result is the core's. Stage 1 (binary16_span_stage) forms, for finite operands (and a
// nonzero divisor), a binary32 encoding v:
//  - mul: a * b in binary32. Each operand is an integer A < 2^11 times 2^(e - 25) (e = max(biased
//    exponent, 1)), made exactly as float(A) * 2^(e - 25); the product (A * B) * 2^(ea + eb - 50)
//    has A * B < 2^22 and lies in [2^-48, 2^32) or is a zero: exact, a binary32 normal.
//  - add, sub: a + b in binary64, exact (both are integer multiples of 2^-24 below 2^16, so the sum
//    is S * 2^-24 with |S| < 2^41, and a nonzero sum is at least 2^-24), then rounded to odd at
//    binary32 by integer operations on its encoding (truncate to 24 bits, OR a lost nonzero bit
//    into the last one); an exact zero sum takes the sign IEEE 754-2019 §6.3 gives it (-0 only
//    for -0 + -0, or under downward for opposite signs), not the hardware's.
//  - div: a / b in binary64, then rounded to odd at binary32 as above. The binary64 quotient q' is
//    not exact, but it is within 2^-52 |q| of the exact q (faithful in any hardware rounding
//    direction), while a quotient of two 11-bit integers that is not itself a number of at most
//    12 significant bits lies at least 2^-24 |q| from every such number (|A * 2^k - B * M| >= 1
//    with B < 2^11). The binary16 values and the midpoints between them are such numbers, so q'
//    lies strictly between the same two of them as q (or equals q when q is one), and so does its
//    rounding to odd at 24 bits (which never lands on a 12-bit number when inexact: its last bit
//    is 1). Hence rounding it to binary16 gives q's result and flags in every direction.
// Stage 2 rounds v to binary16 with lf::convert's span kernel for the mode (proven on every binary32
// input, fast/array_kernels.hpp). Rounding to odd at 24 >= 11 + 2 bits and then once more to
// binary16 gives the same value and flags, tininess after rounding included, as rounding the exact
// value once (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
// using rounding to odd", IEEE TC 57(4), 2008, Theorem 1), which is what IEEE 754-2019 §5.4.1 and
// §7 ask for. A pair with a NaN or infinite operand (or, for div, a zero divisor) is marked in
// stage 1, given v = +0 there (no flags), and recomputed by the core.
//
// Floating-point environment: add, sub and mul use only exact operations on normal values (and
// exact integer-to-float conversions), which read no MXCSR state and raise no exception; div's
// inexact binary64 division runs with the caller's MXCSR saved, set to its default (all exceptions
// masked, no FTZ/DAZ) and restored, flags included (mxcsr_guard).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libfloat/core/fp.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/fast/array_kernels.hpp>
#include <libfloat/fast/array_lane.hpp>

namespace lf::detail {

enum class span_op : std::uint8_t { add, sub, mul, div };

/// Elements per stage-1 call: a constant trip count, which GCC's -O2 vectoriser needs.
inline constexpr std::size_t binary16_span_block = 256;

/// Sign, significand A (hidden bit included) and e = max(biased exponent, 1) of a binary16
/// encoding h read as finite: |value| = A * 2^(e - 25).
LIBFLOAT_INLINE constexpr std::uint32_t binary16_sig(std::uint32_t h) {
  const std::uint32_t be = (h >> 10) & 31u;
  return (h & 0x3FFu) | (static_cast<std::uint32_t>(be != 0) << 10);
}
LIBFLOAT_INLINE constexpr std::uint32_t binary16_exp1(std::uint32_t h) {
  const std::uint32_t be = (h >> 10) & 31u;
  return be + static_cast<std::uint32_t>(be == 0);
}
/// The value of h as a double: float(A) times the power of two 2^(e - 25) with h's sign, both exact.
LIBFLOAT_INLINE double binary16_as_f64(std::uint32_t h) {
  const std::uint64_t scale =
      (static_cast<std::uint64_t>(binary16_exp1(h) + (1023 - 25)) << 52) | (static_cast<std::uint64_t>(h & 0x8000u) << 48);
  return static_cast<double>(static_cast<std::int32_t>(binary16_sig(h))) * std::bit_cast<double>(scale);
}
/// The same as a float (every finite binary16 value is a binary32 normal or zero).
LIBFLOAT_INLINE float binary16_as_f32(std::uint32_t h) {
  const std::uint32_t scale = ((binary16_exp1(h) + (127 - 25)) << 23) | ((h & 0x8000u) << 16);
  return static_cast<float>(static_cast<std::int32_t>(binary16_sig(h))) * std::bit_cast<float>(scale);
}
/// A double that is a zero or has |x| in binary32's normal range, rounded to odd at binary32: the
/// top 24 significand bits, the last one ORed with whether any lower bit is set.
LIBFLOAT_INLINE std::uint32_t binary32_odd_bits(double x) {
  const std::uint64_t d = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t a = d & 0x7FFFFFFFFFFFFFFFu;
  const auto sticky = static_cast<std::uint32_t>((a & 0x1FFFFFFFu) != 0);
  const auto mag = static_cast<std::uint32_t>((a >> 29) - (std::uint64_t{1023 - 127} << 23)) | sticky;
  return static_cast<std::uint32_t>((d >> 32) & 0x80000000u) | sel(a == 0, 0u, mag);
}

/// Whether stage 1 leaves the pair (x, y) to the core: a NaN or infinite operand, or a zero divisor.
template <span_op O>
LIBFLOAT_INLINE constexpr bool binary16_span_special(std::uint32_t x, std::uint32_t y) {
  const bool finite = ((x & 0x7C00u) != 0x7C00u) & ((y & 0x7C00u) != 0x7C00u);
  return !(finite & (O != span_op::div || (y & 0x7FFFu) != 0));
}

/// r (binary32 bits of a nonzero value q) rounded to odd, given the sign of t = (exact - q) where t
/// is a float: exact when t is zero or r is odd; otherwise the odd neighbour of r on t's side.
LIBFLOAT_INLINE std::uint32_t binary32_to_odd(std::uint32_t r, float t) {
  const std::uint32_t tb = std::bit_cast<std::uint32_t>(t);
  // (arithmetic rather than bools: GCC does not vectorise a bool made from a low bit)
  const std::uint32_t move = static_cast<std::uint32_t>((tb << 1) != 0) & ~r & 1u;
  const std::uint32_t step = 1u - (((tb ^ r) >> 31) << 1);  // +1 when t has q's sign (the magnitude grows), else -1
  return r + move * step;
}

/// Stage 1 over one block (see the file comment): v[i] = binary32 bits of the exact result rounded
/// to odd, or +0 for a pair the core must take (binary16_span_special). Returns whether any must.
/// Needs MXCSR's default (round to nearest even), which the callers set.
template <span_op O, rounding M>
LIBFLOAT_INLINE bool binary16_span_stage(const fp16* a, const fp16* b, float* v) {
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < binary16_span_block; ++i) {
    const std::uint32_t x = a[i].bits();
    const std::uint32_t y = O == span_op::sub ? b[i].bits() ^ 0x8000u : b[i].bits();
    const bool ok = !binary16_span_special<O>(x, y);
    const float xf = binary16_as_f32(x);
    std::uint32_t r;
    if constexpr (O == span_op::mul) {
      r = std::bit_cast<std::uint32_t>(xf * binary16_as_f32(y));
    } else if constexpr (O == span_op::div) {
      const float yf = binary16_as_f32(sel(ok, y, 0x3C00u));  // 1.0 where the core takes over
      const float q = xf / yf;
      const float rem = __builtin_fmaf(-q, yf, xf);  // x - q * y, exact
      // exact - q = rem / y: its sign is rem's times y's
      r = binary32_to_odd(std::bit_cast<std::uint32_t>(q),
                          std::bit_cast<float>(std::bit_cast<std::uint32_t>(rem) ^ (std::bit_cast<std::uint32_t>(yf) & 0x80000000u)));
    } else {
      const float yf = binary16_as_f32(y);
      const float s = xf + yf;  // 2Sum (Knuth): s + e = x + y exactly
      const float bb = s - xf;
      const float e = (xf - (s - bb)) + (yf - bb);
      r = binary32_to_odd(std::bit_cast<std::uint32_t>(s), e);
      // an exact zero sum: -0 for -0 + -0, and for opposite signs under downward (§6.3)
      const std::uint32_t sx = x >> 15, sy = y >> 15;
      const std::uint32_t zero_sign = M == rounding::downward ? (sx | sy) : (sx & sy);
      r = sel((r << 1) == 0, zero_sign << 31, r);
    }
    v[i] = std::bit_cast<float>(sel(ok, r, 0u));
    any |= static_cast<std::uint32_t>(!ok);
  }
  return any != 0;
}

#if defined(LIBFLOAT_ARRAY_X86)
template <span_op O, rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] bool binary16_span_stage_avx2(const fp16* a, const fp16* b, float* v) {
  const mxcsr_guard guard;
  return binary16_span_stage<O, M>(a, b, v);
}
template <span_op O, rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] bool binary16_span_stage_avx512(const fp16* a, const fp16* b, float* v) {
  const mxcsr_guard guard;
  return binary16_span_stage<O, M>(a, b, v);
}
#endif

}  // namespace lf::detail
