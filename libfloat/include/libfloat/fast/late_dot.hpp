// libfloat/fast/late_dot.hpp: the hardware path of the late_accumulation matrix-unit model (AMD
// CDNA3 as MATLAB-tensor-core and MMA-Sim model it: lf::matrix_units::cdna3_fp16, cdna3_bf16) with
// binary16 or bfloat16 inputs (both the same), binary32 output, nearest even, blocks of up to 32
// products, subnormals kept, no odd/even halves and no dropping of a far c. models/matrix_unit.hpp
// calls it for such a unit; it is an optimisation only, and it declines (returns false) whenever
// it could differ from the general path (detail::late_block), which then runs.
//
// Proof (its domain cannot be enumerated): ctest test late_fast, label quick
// (tests/fast/test_late_fast.cpp), compares it and the public entries that reach it (typed and
// run-time lf::dot) with a chain of detail::block_fma_general calls, bits and flags, on random and
// edge data: every kind of encoding, subnormal inputs, products far below and far above c, sums
// that cancel exactly, cross into binary32's subnormals or overflow, zeros of both signs, every
// start value kind, block sizes 8, 4 and 32, F = 24 and 28, late_extra_bits 7, 0 and 16, lengths
// around the block sizes; and the caller MXCSR states on which it must decline.
//
// Why it gives the model's bits (the model: models/matrix_unit.hpp, late_accumulation, and
// models/detail/block_fma.hpp, late_block, whose steps this follows one for one):
//  1. Decoding: a binary16 (bfloat16) encoding with exponent field E and fraction f is
//     sig * 2^(e - 10) (2^(e - 7)) with e = E - bias, sig = f + 2^10 (2^7), or for E = 0 e = emin
//     and sig = f: unpack's sig and exp, and e the alignment exponent late_block uses.
//  2. Each nonzero product is sig_a sig_b (at most 22 bits: exact in 64-bit integers) times
//     2^(e_a + e_b - 2 fb); M is the largest e_a + e_b over the block's nonzero products; a term
//     is cut toward zero onto 2^(M - F) by a right shift of its magnitude (or moved up by a left
//     shift, then below 2^(F + 2)), noting dropped bits; S is their signed sum (|S| < 32 * 2^(F + 2)).
//  3. c (binary32) is sig_c 2^(e_c - 23), e_c = emin for a zero or subnormal c, and C = +-sig_c
//     2^(F - 23) on the grid 2^(e_c - F). The three cases of late_block, with the same floor
//     shifts (toward -inf, noting dropped bits): no nonzero product; M < e_c (S onto
//     2^(e_c - F - X), X = late_extra_bits); otherwise (C onto 2^(M - F)).
//  4. The sum, an integer below 2^51 in magnitude for F <= 28, X <= 16, N <= 32 (the bounds this
//     path takes), times 2^grid is exactly a binary64 value: the integer converts exactly, and
//     2^grid (grid in [-300, 130]) keeps the product inside binary64's normal range. One
//     conversion to binary32 under MXCSR round-to-nearest rounds it once, correctly, with IEEE's
//     flags (tininess after rounding, underflow only when also inexact, overflow to infinity):
//     what round_pack to binary32 nearest even computes, flags included. An exact zero sum gives
//     +0, as the model's. Dropped bits raise inexact, as the model's.
//  5. Flags: MXCSR's sticky flags are cleared first and read after the last block (PE, UE, OE;
//     the integer to binary64 conversion and the scaling are exact and raise nothing). Each
//     block's conversion depends on the previous block's result (c), and the last result passes
//     through an empty `asm volatile` before the flags are read. The only floating-point
//     operations are these, one chain per dot product, so no compiler vector lane computes
//     anything else.
//
// It declines when: not x86-64 with SSE arithmetic (dot_fast_built false); the caller's MXCSR is
// not the default (nearest, every exception masked, no FTZ/DAZ); c or an operand is an infinity or
// a NaN, or a block before the last overflows (the next block's c is then an infinity, which the
// general path's specials handle); a product could reach 2^128 (e_a + e_b >= 126: the model's overflowing products, which
// make the block an infinity); the parameters are other than above.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/dot.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

namespace lf::detail {

/// Whether the late-accumulation hardware path can run unit mu (its formats and parameters; the
/// data and MXCSR are checked when it runs).
constexpr bool late_fast_unit(const matrix_unit& mu) {
  return (mu.input == binary16 || mu.input == bfloat16) && mu.output == binary32 &&
         mu.output_fraction_bits == 23 && mu.final_rounding == rounding::nearest_even &&
         mu.input_subnormals == subnormal_handling::keep && mu.output_subnormals == subnormal_handling::keep &&
         !mu.odd_even_halves && mu.late_c_drop == 0 && mu.block_size >= 1 && mu.block_size <= 32 &&
         mu.alignment_bits >= 23 && mu.alignment_bits <= 28 && mu.late_extra_bits >= 0 && mu.late_extra_bits <= 16;
}

/// floor(v / 2^k), k >= 0, noting dropped bits (late_floor_shift on 64 bits).
[[gnu::always_inline]] inline std::int64_t late_fast_floor(std::int64_t v, int k, bool& dropped) {
  if (k == 0) return v;
  if (k >= 63) {
    dropped = dropped || v != 0;
    return v < 0 ? -1 : 0;
  }
  dropped = dropped || (v & ((std::int64_t{1} << k) - 1)) != 0;
  return v >> k;  // (arithmetic: floor)
}

/// The kernel for input format F: see late_f32_nearest.
template <format F, class A, class B>
bool late_f32_kernel(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                     status& st) {
#if defined(LIBFLOAT_DOT_FAST_X86)
  constexpr bool half = F == binary16;
  constexpr int fb = half ? 10 : 7, ebits = half ? 5 : 8, bias = half ? 15 : 127;
  constexpr std::uint32_t emask = (1u << ebits) - 1, fmask = (1u << fb) - 1;
  const int Fa = mu.alignment_bits, X = mu.late_extra_bits;
  const auto N = static_cast<std::size_t>(mu.block_size);
  if ((c & 0x7F800000u) == 0x7F800000u) return false;  // c infinite or NaN
  const unsigned caller = _mm_getcsr();
  if ((caller & 0xFFC0u) != 0x1F80u) return false;  // not: nearest, every exception masked, no DAZ/FTZ
  bool dropped = false;
  _mm_setcsr(caller & ~0x3Fu);
  __asm__ volatile("" : "+r"(c) : : "memory");  // every conversion after the clear
  for (std::size_t s = 0; s < n; s += N) {
    const std::size_t len = n - s < N ? n - s : N;
    // The block's products, without branches (so that the loops vectorise): a zero product gets
    // significand 0 and the alignment exponent `none`, below every real one, so it neither sets M
    // nor adds anything (a zero product takes no part, file comment, 2).
    constexpr int none = -100000;
    std::uint64_t sig[32];
    int align[32];
    std::uint64_t neg[32];
    std::uint32_t bad = 0;
    int M = none;
    for (std::size_t i = 0; i < len; ++i) {  // (file comment, 1 and 2)
      const auto x = static_cast<std::uint32_t>(a(s + i)) & 0xFFFFu, y = static_cast<std::uint32_t>(b(s + i)) & 0xFFFFu;
      const std::uint32_t Ex = (x >> fb) & emask, Ey = (y >> fb) & emask;
      bad |= static_cast<std::uint32_t>(Ex == emask) | static_cast<std::uint32_t>(Ey == emask);
      const std::uint32_t fx = x & fmask, fy = y & fmask;
      const std::uint32_t sx = Ex == 0 ? fx : fx | (1u << fb), sy = Ey == 0 ? fy : fy | (1u << fb);
      const int ax = Ex == 0 ? 1 - bias : static_cast<int>(Ex) - bias;
      const int ay = Ey == 0 ? 1 - bias : static_cast<int>(Ey) - bias;
      sig[i] = std::uint64_t{sx} * sy;
      align[i] = sx == 0 || sy == 0 ? none : ax + ay;
      neg[i] = ((x ^ y) >> (fb + ebits)) & 1u;
      M = align[i] > M ? align[i] : M;
    }
    const bool any = M != none;
    if (bad != 0 || M >= 126) {  // a special operand, or a product that could overflow
      _mm_setcsr(caller);
      return false;
    }
    std::int64_t S = 0;
    for (std::size_t i = 0; i < len; ++i) {
      const int d = align[i] - 2 * fb - (M - Fa);  // the product's last bit relative to 2^(M - F)
      // d >= 0: moved up (below 2^(F + 2)); d < 0: cut toward zero, dropped bits noted (a shift of
      // 63 or more drops all of sig < 2^22).
      const int r = -d < 63 ? -d : 63;
      const std::uint64_t k = d >= 0 ? sig[i] << (d & 63) : sig[i] >> (r & 63);
      dropped = dropped || (d < 0 && (sig[i] & ((std::uint64_t{1} << (r & 63)) - 1)) != 0);
      const auto sk = static_cast<std::int64_t>(k);
      S += neg[i] != 0 ? -sk : sk;
    }
    // c (file comment, 3)
    const std::uint32_t Ec = (c >> 23) & 0xFFu, fc = c & 0x7FFFFFu;
    const int ec = Ec == 0 ? -126 : static_cast<int>(Ec) - 127;
    const auto sc = static_cast<std::int64_t>(Ec == 0 ? fc : fc | 0x800000u) << (Fa - 23);
    const std::int64_t C = (c >> 31) != 0 ? -sc : sc;
    std::int64_t sum;
    int grid;
    if (!any) {
      sum = C;
      grid = ec - Fa;
    } else if (M < ec) {
      const int shift = ec - M - X;
      sum = (shift <= 0 ? S * (std::int64_t{1} << -shift) : late_fast_floor(S, shift, dropped)) + C * (std::int64_t{1} << X);
      grid = ec - Fa - X;
    } else {
      sum = S + late_fast_floor(C, M - ec, dropped);
      grid = M - Fa;
    }
    // (file comment, 4) sum * 2^grid exactly as a binary64, then one rounding to binary32
    const double scale = std::bit_cast<double>(static_cast<std::uint64_t>(grid + 1023) << 52);
    const float r = static_cast<float>(static_cast<double>(sum) * scale);
    c = std::bit_cast<std::uint32_t>(r);
    if ((c & 0x7F800000u) == 0x7F800000u && s + len < n) {  // an overflow before the last block: the
      _mm_setcsr(caller);                                     // next c is infinite (the model's specials)
      return false;
    }
  }
  __asm__ volatile("" : "+r"(c));  // the chain ends before the flags are read
  const unsigned raised = _mm_getcsr();
  _mm_setcsr(caller);
  status s = mxcsr_flags(raised);
  if (dropped) s |= status::inexact;
  st = s;
  out = c;
  return true;
#else
  (void)mu, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
  return false;
#endif
}

/// The late_accumulation model's dot product on the hardware (file comment): c + the blocks of
/// mu.block_size products a_i b_i of format `in` (binary16 or bfloat16, bits above the encoding
/// ignored), c binary32. out = the result, st = the flags raised (assigned, not ORed). Returns
/// false, with out and st untouched, when it declines. SF: the operands' format when the caller
/// knows it at compile time (typed entries), else format{}.
template <format SF, class A, class B>
bool late_f32_nearest(const matrix_unit& mu, const format& in, A a, B b, std::size_t n, std::uint32_t c,
                      std::uint32_t& out, status& st) {
  if constexpr (!dot_fast_built || !(SF == format{} || SF == binary16 || SF == bfloat16)) {
    (void)mu, (void)in, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
    return false;
  } else {
    if (!late_fast_unit(mu) || in != mu.input) return false;
    if constexpr (SF != format{}) {
      return in == SF && late_f32_kernel<SF>(mu, a, b, n, c, out, st);
    } else {
      if (in == binary16) return late_f32_kernel<binary16>(mu, a, b, n, c, out, st);
      return late_f32_kernel<bfloat16>(mu, a, b, n, c, out, st);
    }
  }
}

}  // namespace lf::detail
