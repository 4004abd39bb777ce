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
// nonzero divisor), the binary32 encoding v of the exact result rounded to odd at binary32 (RO: the
// result truncated to 24 significant bits, its last bit set when that was inexact). Each operand is
// an integer A < 2^11 times 2^(e - 25) (e = max(biased exponent, 1)), made exactly as
// float(A) * 2^(e - 25): a binary32 normal or zero. With MXCSR at its default (round to nearest even):
//  - mul: x * y = (A * B) * 2^(ea + eb - 50) with A * B < 2^22, in [2^-48, 2^32) or a zero: exact
//    in binary32, so v = x * y.
//  - add, sub (sub: y negated, the core's rule for a finite y): s = RN(x + y) and its error
//    e = (x + y) - s by Knuth's 2Sum (five more additions, exact in round to nearest; every value
//    is a multiple of 2^-24 below 2^17, so nothing underflows or overflows). An exact zero sum
//    takes the sign IEEE 754-2019 §6.3 gives it (-0 only for -0 + -0, or under downward for
//    opposite signs).
//  - div: q = RN(x / y) and the remainder r = x - q * y by an FMA, exact (the remainder of a
//    correctly rounded quotient is a binary32 number when it is not below the normal range; here it
//    is a multiple of ulp(q) * 2^-24 >= 2^-87, as |q| >= 2^-24 / 65504 > 2^-40); the exact
//    quotient is q + r / y, above q when r and y have the same sign.
// binary32_to_odd turns (s, e) or (q, r / y's sign) into RO: a correctly rounded value with a
// nonzero error is the truncation or one step beyond it, so it is RO itself when its last bit is
// 1, and otherwise RO is its odd neighbour on the error's side.
// Stage 2 rounds v to binary16 with lf::convert's span kernel for the mode (proven on every binary32
// input, fast/array_kernels.hpp). Rounding to odd at 24 >= 11 + 2 bits and then once more to
// binary16 gives the same value and flags, tininess after rounding included, as rounding the exact
// value once (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
// using rounding to odd", IEEE TC 57(4), 2008, Theorem 1), which is what IEEE 754-2019 §5.4.1 and
// §7 ask for. A pair with a NaN or infinite operand (or, for div, a zero divisor) is marked in
// stage 1, given v = +0 there (no flags), and recomputed by the core.
//
// Floating-point environment: stage 1 runs with the caller's MXCSR saved, set to its default (round
// to nearest even, all exceptions masked, no FTZ/DAZ) and restored, sticky flags included
// (mxcsr_guard); stage 2's kernels do the same.
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
/// The value of a binary16 encoding h read as finite, as a float (a binary32 normal or zero):
/// float(A) times the power of two 2^(e - 25) with h's sign, both exact.
LIBFLOAT_INLINE float binary16_as_f32(std::uint32_t h) {
  const std::uint32_t scale = ((binary16_exp1(h) + (127 - 25)) << 23) | ((h & 0x8000u) << 16);
  return static_cast<float>(static_cast<std::int32_t>(binary16_sig(h))) * std::bit_cast<float>(scale);
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
