// libfloat/fast/binary16_span_ops.hpp: binary16 add, sub, mul, div and fma on spans (lf::add(a, b, out,
// e) etc., core/array_arith.hpp) under the default policy, on the AVX2 and AVX-512 paths: the exact
// result of each pair, rounded to odd at binary32, then rounded once more to binary16 by the span
// kernels of lf::convert (fast/array_kernels.hpp).
//
// Proof: tests/fast/test_binary16_ops_proof.cpp (ctest label `proof`) runs lf::add / sub / mul / div
// on spans, on every path the CPU has (portable, avx2, avx512; one it lacks is reported skipped), for
// all 2^32 pairs of binary16 encodings in the six deterministic rounding directions, and compares
// every element's bits with the core (detail::add_inline etc., core/arith.hpp), and the flags the
// span returns with the OR of the core's over groups of pairs whose core flags are equal (so an
// element raising a flag the core does not is caught). fma's 2^48 triples cannot be enumerated:
// tests/fast/test_fast_ops_sampled.cpp (label `proof`) runs lf::fma on spans over every combination
// of the three operands' exponents and signs with random fractions, cancelling triples and
// non-finite operands, the same way.
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
//  - fma: p = x * y in binary64 (exact: A * B < 2^22), s = RN(p + z) and its error by 2Sum in
//    binary64 (exact; every nonzero value is a multiple of 2^-48 and below 2^33). Then s rounded to
//    odd at binary32 by integer operations on its encoding (truncate to 24 bits, OR the lost bits
//    into the last one) is RO of p + z, unless s is itself a 24-bit number and the error is nonzero,
//    which binary32_to_odd corrects as below. An exact zero takes §6.3's sign, as for add.
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

enum class span_op : std::uint8_t { add, sub, mul, div, fma };

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
/// Whether stage 1 leaves the operands (x, y[, z]) to the core: a NaN or infinite operand, or a
/// zero divisor.
template <span_op O>
LIBFLOAT_INLINE constexpr bool binary16_span_special(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  const bool finite = ((x & 0x7C00u) != 0x7C00u) & ((y & 0x7C00u) != 0x7C00u) &
                      (O != span_op::fma || (z & 0x7C00u) != 0x7C00u);
  return !(finite & (O != span_op::div || (y & 0x7FFFu) != 0));
}

/// r (binary32 bits of a nonzero value q) rounded to odd, given t = exact - q by its sign bit
/// (t_sign: 0 or 0x80000000) and whether it is nonzero (t_nonzero: 0 or 1): r itself when t is zero
/// or r is odd; otherwise the odd neighbour of r on t's side.
LIBFLOAT_INLINE std::uint32_t binary32_to_odd(std::uint32_t r, std::uint32_t t_sign, std::uint32_t t_nonzero) {
  // (arithmetic rather than bools: GCC does not vectorise a bool made from a low bit)
  const std::uint32_t move = t_nonzero & ~r & 1u;
  const std::uint32_t step = 1u - (((t_sign ^ r) >> 31) << 1);  // +1 when t has q's sign (the magnitude grows), else -1
  return r + move * step;
}
LIBFLOAT_INLINE std::uint32_t binary32_to_odd(std::uint32_t r, float t) {
  const std::uint32_t tb = std::bit_cast<std::uint32_t>(t);
  return binary32_to_odd(r, tb & 0x80000000u, static_cast<std::uint32_t>((tb << 1) != 0));
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
/// The sign of an exact zero result x + y (or a * b + c, with x = a * b) from the operands' signs
/// (0 or 1), IEEE 754-2019 §6.3: negative when both are, and under downward when either is.
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint32_t zero_sum_sign(std::uint32_t sx, std::uint32_t sy) {
  return M == rounding::downward ? (sx | sy) : (sx & sy);
}

/// Stage 1 over one block (see the file comment): v[i] = binary32 bits of the exact result rounded
/// to odd, or +0 for a pair the core must take (binary16_span_special). Returns whether any must.
/// Needs MXCSR's default (round to nearest even), which the callers set.
template <span_op O, rounding M>
LIBFLOAT_INLINE bool binary16_span_stage(const fp16* a, const fp16* b, const fp16* c, float* v) {
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < binary16_span_block; ++i) {
    const std::uint32_t x = a[i].bits();
    const std::uint32_t y = O == span_op::sub ? b[i].bits() ^ 0x8000u : b[i].bits();
    std::uint32_t z = 0;
    if constexpr (O == span_op::fma) z = c[i].bits();
    const bool ok = !binary16_span_special<O>(x, y, z);
    const float xf = binary16_as_f32(x);
    std::uint32_t r;
    if constexpr (O == span_op::fma) {
      // p = x * y is exact in binary64 (A * B < 2^22); s = RN(p + z) and its error e = (p + z) - s
      // by 2Sum (exact: no overflow, and every nonzero value is a multiple of 2^-48). s rounded to
      // odd at 24 bits is RO of the exact result unless s is itself a 24-bit number and e != 0;
      // then binary32_to_odd moves it to its odd neighbour on e's side.
      const double p = static_cast<double>(xf) * static_cast<double>(binary16_as_f32(y));
      const double zd = binary16_as_f32(z);
      const double sd = p + zd;
      const double bb = sd - p;
      const double e = (p - (sd - bb)) + (zd - bb);
      const std::uint64_t eb = std::bit_cast<std::uint64_t>(e);
      r = binary32_to_odd(binary32_odd_bits(sd), static_cast<std::uint32_t>(eb >> 32) & 0x80000000u,
                          static_cast<std::uint32_t>((eb << 1) != 0));
      r = sel((r << 1) == 0, zero_sum_sign<M>((x ^ y) >> 15 & 1u, z >> 15) << 31, r);
    } else if constexpr (O == span_op::mul) {
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
      r = sel((r << 1) == 0, zero_sum_sign<M>(x >> 15, y >> 15) << 31, r);  // an exact zero sum
    }
    v[i] = std::bit_cast<float>(sel(ok, r, 0u));
    any |= static_cast<std::uint32_t>(!ok);
  }
  return any != 0;
}

#if defined(LIBFLOAT_ARRAY_X86)
template <span_op O, rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] bool binary16_span_stage_avx2(const fp16* a, const fp16* b, const fp16* c,
                                                                      float* v) {
  const mxcsr_guard guard;
  return binary16_span_stage<O, M>(a, b, c, v);
}
template <span_op O, rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] bool binary16_span_stage_avx512(const fp16* a, const fp16* b,
                                                                          const fp16* c, float* v) {
  const mxcsr_guard guard;
  return binary16_span_stage<O, M>(a, b, c, v);
}
#endif

}  // namespace lf::detail
