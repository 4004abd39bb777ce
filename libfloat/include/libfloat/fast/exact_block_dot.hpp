// libfloat/fast/exact_block_dot.hpp: the hardware path of the block-FMA model with exact alignment
// (alignment_rounding::exact: each block of products and c summed exactly, rounded once; AMD CDNA1
// as MATLAB-tensor-core models it: lf::matrix_units::cdna1_fp16, cdna1_bf16) with binary16 or
// bfloat16 inputs (both the same), binary32 output, nearest even, subnormals kept, blocks of 1 to
// 16 products. models/matrix_unit.hpp calls it for such a unit; it is an optimisation only. It
// declines (returns false) only for a caller's MXCSR other than the default; a block it cannot
// compute on binary64 values (below) it hands to the general path's block, detail::block_fma_general,
// so the chain goes on.
//
// Proof (its domain cannot be enumerated): ctest test exact_block_fast, label quick
// (tests/fast/test_exact_block_fast.cpp), compares it and the public entries that reach it (typed
// and run-time lf::dot) with a chain of detail::block_fma_general calls (detail::exact_window_block:
// 128-bit integer sums, the core's round_pack), bits and flags, on random and edge data: every kind
// of encoding, subnormal inputs, narrow and wide exponents, sums that cancel exactly, cross into
// binary32's subnormals or overflow, zeros of both signs, every start value kind, block sizes 1 to
// 16, lengths around them; sums whose binary64 rounding lands on a binary32 midpoint (or below
// 2^-126), which need the step 4 correction; blocks at step 2's bound and one past it; sums at the
// edges of step 7's predicted binade (onto and just below its lowest power of two, exact binary32
// values off its step, ties of its step, up to the next power of two, far below, across zero; in
// binary32's lowest and highest normal binades); and the caller MXCSR states on which it must
// decline. It runs both kernels, the portable one (steps 1-5 and 7) and the AVX2 one (steps 6 and
// 7), chosen with lf::set_array_dispatch; a kernel the CPU lacks is reported as skipped.
//
// Why it gives the model's bits (the model: models/matrix_unit.hpp, steps 1-6, with exact
// alignment: d = the exact sum of the block's products and c, rounded once to binary32 by
// round_pack, nearest even, IEEE flags with tininess after rounding; an exact zero is +0, or -0
// when every term is -0):
//  1. Each product is exact in binary64: sig_a sig_b (at most 22 bits for binary16, 16 for
//     bfloat16, an integer that converts exactly) times 2^(e_a + e_b - 2 fb), a power of two
//     inside binary64's normal range (products within [2^-48, 2^32) for binary16, [2^-266, 2^258)
//     for bfloat16), with the sign of a_i b_i (a zero product is a zero of that sign).
//  2. The block's products sum exactly in binary64 when their alignment exponents E = e_a + e_b
//     (of the nonzero ones) span at most 51 - 2 fb - ceil(log2 N): each product is below
//     2^(E + 2) and a multiple of 2^(E - 2 fb), so any partial sum of N of them is a multiple of
//     2^(Emin - 2 fb) below 2^(Emax + 2 + ceil(log2 N)), at most 53 bits. Exact additions raise
//     no flag, and with round-to-nearest the sum of zeros is -0 exactly when all are -0. A short
//     block is padded with -0, which adds nothing and keeps every sign. Otherwise, or for an
//     operand that is an infinity or a NaN, or when c is one, the block is the general path's.
//  3. c (binary32) converts exactly to binary64; t = c + P, one binary64 addition, is the exact sum
//     x rounded to 53 bits, and its error e = x - t is computed exactly (TwoSum: Knuth, TAOCP vol.
//     2, 4.2.2; the additions in it are exact and raise nothing). When e = 0, t = x and one
//     conversion to binary32 under MXCSR round-to-nearest rounds it once, correctly, with IEEE's
//     flags: what round_pack computes. x = 0 gives +0 unless every term was -0 (then -0), as the
//     model's.
//  4. When e != 0 (x needs more than 53 bits), the addition raised inexact, as x is not binary32.
//     Rounding t to binary32 gives binary32's rounding of x unless t lies on a binary32 midpoint
//     (its low 29 fraction bits 1000...0), where x lies beyond it on e's side, or t is below 2^-126,
//     where binary32's grid is coarser; in those cases (a predicted branch) t is replaced by x
//     rounded to odd on 53 bits (t if its last bit is 1, else its neighbour on e's side), and
//     binary32's nearest-even rounding of that is the one of x, flags included (rounding to odd
//     with at least 2 more bits: Boldo and Melquiond, "Emulation of FMA and correctly rounded
//     sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008). Above
//     2^-126 and off a midpoint, t and x round to the same binary32 value, and both are tiny or
//     not alike.
//  5. Flags: MXCSR's sticky flags are cleared first and read after the last block (UE, OE; DE,
//     raised by converting a subnormal c, is not an IEEE flag and is not read). Only the
//     conversions of step 3 can raise them; the other operations are exact or stay far inside
//     binary64's range. Inexact is not read from MXCSR (step 7's addition can raise it for a block
//     that step 7 then leaves to steps 3 and 4): each block says whether its result differs from x
//     (step 4: e != 0 or the result != t; step 7: binade_chain.hpp, point 3). The general
//     path's blocks are integer arithmetic, their flags ORed in. Every floating-point operation is
//     a scalar SSE2 intrinsic, so no compiler vector lane computes anything else; the products are
//     formed after a compiler barrier that follows the clear, and the result passes through an
//     empty `asm volatile` before the flags are read.
//  6. The AVX2 kernel (exact_block_f32_kernel_avx2; CPUs with AVX2, F16C and FMA, where the span
//     kernels run AVX2 or AVX-512; N = 1, 2, 4 or 8) takes 8 products at a time, 8 / N whole blocks:
//     (a) a's and b's 8 encodings side by side in 16-bit lanes give the exponent fields (all ones:
//     an infinity or a NaN) and max(E_a, 1) + max(E_b, 1), the alignment exponent plus twice the
//     bias, of the nonzero products; their largest and smallest (vphminposuw) bound every block's
//     span. A special operand, or 8 products wider than step 2's span (one of the blocks may be
//     narrower), send the group to the portable kernel's block function, block by block. (b) The
//     products, exact in binary32 for binary16 (F16C conversions, one multiplication) and in binary64
//     for bfloat16, widened to binary64. (c) Each block's sum by vector additions of its own lanes
//     (vhaddpd and one more), exact by step 2 and raising nothing; then steps 3 and 4 block after
//     block, in order, a block whose c is an infinity or a NaN being the general path's.
//  7. Steps 3 and 4 put two conversions on the chain from one block to the next. Both kernels
//     first try one binary64 addition instead (fast/binade_chain.hpp: with c in binade E, c + K +
//     P rounded on binade E's step, taken when the result lies in binade E and is not 2^E); any
//     other block goes to steps 3 and 4 (or the general path), whose result sets the binade again.
//
// It declines when: not x86-64 with SSE arithmetic (dot_fast_built false); the caller's MXCSR is
// not the default (nearest, every exception masked, no FTZ/DAZ); the parameters are other than
// above (exact_block_fast_unit).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/binade_chain.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>
#include <libfloat/fast/dot.hpp>
#include <libfloat/fast/late_dot.hpp>  // (late_load8)
#include <libfloat/models/detail/block_fma.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

#if defined(LIBFLOAT_DOT_FAST_X86)
#include <emmintrin.h>  // SSE2 (x86-64's baseline)
#endif

namespace lf::detail {

/// Whether the exact-block hardware path can run unit mu (its formats and parameters; the MXCSR is
/// checked when it runs).
constexpr bool exact_block_fast_unit(const matrix_unit& mu) {
  return mu.model == matrix_unit_model::block_fma && mu.alignment == alignment_rounding::exact &&
         (mu.input == binary16 || mu.input == bfloat16) && mu.output == binary32 && mu.output_fraction_bits == 23 &&
         mu.final_rounding == rounding::nearest_even && mu.input_subnormals == subnormal_handling::keep &&
         mu.output_subnormals == subnormal_handling::keep && mu.block_size >= 1 && mu.block_size <= 16;
}

#if defined(LIBFLOAT_DOT_FAST_X86)
/// Steps 3 and 4 for one block whose exact product sum is P (binary64, lane 0), c (cd's lane 0)
/// finite: the block's result as a binary32 encoding, and bit 32 set when it is inexact.
[[gnu::noinline]] inline std::uint64_t exact_block_round(__m128d cd, __m128d P) {
  // (3) t = c + P and its error e = x - t (TwoSum)
  const __m128d t = _mm_add_sd(cd, P);
  const __m128d bp = _mm_sub_sd(t, cd), ap = _mm_sub_sd(t, bp);
  const __m128d e = _mm_add_sd(_mm_sub_sd(cd, ap), _mm_sub_sd(P, bp));
  const auto tb = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(t)));
  const bool error = _mm_ucomineq_sd(e, _mm_setzero_pd()) != 0;
  // (4) a binary32 midpoint, or below 2^-126, with e != 0: t rounded to odd instead
  __m128d to = t;
  if (((tb & 0x1FFFFFFFu) == 0x10000000u || (tb & ~(std::uint64_t{1} << 63)) < (std::uint64_t{1023 - 126} << 52)) &&
      error) {
    const auto eb = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(e)));
    const std::uint64_t odd = (tb & 1u) != 0 ? tb : ((tb ^ eb) >> 63) == 0 ? tb + 1 : tb - 1;
    to = _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<long long>(odd)));
  }
  const __m128 r = _mm_cvtsd_ss(_mm_setzero_ps(), to);  // (3, 4: the one rounding)
  const bool inexact = error || _mm_ucomineq_sd(_mm_cvtss_sd(_mm_setzero_pd(), r), t) != 0;  // (5: x = t + e)
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(r))) | std::uint64_t{inexact} << 32;
}

/// One block whose exact product sum is P (binary64, lane 0): c becomes the block's result, by step
/// 7 or by steps 3 and 4. general(cbits) is the general path's block for a c that is not finite.
template <class General>
[[gnu::always_inline]] inline void exact_chain_add(binade_chain& ch, __m128d P, const General& general) {
  if (binade_chain_try(ch, P, true)) [[likely]] return;  // (7)
  if (ch.nonfinite != 0) {
    binade_chain_set(ch, general(ch.nonfinite));
    return;
  }
  const std::uint64_t rounded = exact_block_round(ch.c, P);
  ch.inexact = ch.inexact || (rounded >> 32) != 0;
  binade_chain_set(ch, static_cast<std::uint32_t>(rounded));
}

/// One block of the portable kernel, the len <= N <= NB products from s on (NB a power of two):
/// steps 1-4 and 7, or the general path's block (its flags into `general`).
template <format F, int NB, class A, class B>
[[gnu::always_inline]] inline void exact_block_step(const matrix_unit& mu, const operand<A>& oa, const operand<B>& ob,
                                                    std::size_t s, std::size_t len, int span, binade_chain& ch,
                                                    status& general) {
  constexpr bool half = F == binary16;
  constexpr int fb = half ? 10 : 7, ebits = half ? 5 : 8, bias = half ? 15 : 127;
  constexpr std::uint32_t emask = (1u << ebits) - 1, fmask = (1u << fb) - 1;
  // (file comment, 1) the products, and the span of their alignment exponents
  constexpr int none = 100000;
  int emax = -none, emin = none;
  std::uint32_t special = 0;
  __m128d p[NB];
#pragma GCC unroll 16
  for (int i = 0; i < NB; ++i) {
    if (static_cast<std::size_t>(i) >= len) {
      p[i] = _mm_set_sd(-0.0);  // (file comment, 2: padding)
      continue;
    }
    const auto x = static_cast<std::uint32_t>(oa.get(s + i)) & 0xFFFFu;
    const auto y = static_cast<std::uint32_t>(ob.get(s + i)) & 0xFFFFu;
    const std::uint32_t Ex = (x >> fb) & emask, Ey = (y >> fb) & emask;
    special |= static_cast<std::uint32_t>(Ex == emask) | static_cast<std::uint32_t>(Ey == emask);
    const std::uint32_t sx = Ex == 0 ? x & fmask : (x & fmask) | (1u << fb);
    const std::uint32_t sy = Ey == 0 ? y & fmask : (y & fmask) | (1u << fb);
    const int E = static_cast<int>(Ex == 0 ? 1 : Ex) + static_cast<int>(Ey == 0 ? 1 : Ey) - 2 * bias;
    const std::uint32_t sig = sx * sy;
    emax = sig != 0 && E > emax ? E : emax;
    emin = sig != 0 && E < emin ? E : emin;
    const __m128d scale = _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<long long>(E - 2 * fb + 1023) << 52));
    const __m128d mag = _mm_mul_sd(_mm_cvtsi32_sd(_mm_setzero_pd(), static_cast<int>(sig)), scale);
    const auto sign = static_cast<long long>(((x ^ y) >> (fb + ebits)) & 1u) << 63;
    p[i] = _mm_or_pd(mag, _mm_castsi128_pd(_mm_cvtsi64_si128(sign)));
  }
  if (special != 0 || emax - emin > span || ch.nonfinite != 0) [[unlikely]] {
    binade_chain_set(ch, static_cast<std::uint32_t>(block_fma_general(mu, oa, ob, s, len, binade_chain_bits(ch), general)));
    return;
  }
  // (2) the exact sum P, as a tree
#pragma GCC unroll 16
  for (int w = 1; w < NB; w *= 2)
#pragma GCC unroll 16
    for (int i = 0; i + w < NB; i += 2 * w) p[i] = _mm_add_sd(p[i], p[i + w]);
  exact_chain_add(ch, p[0], [](std::uint32_t) { return 0u; });  // (c is finite here)
}

/// The largest span of the alignment exponents of a block's nonzero products that its binary64 sum
/// holds exactly (file comment, 2).
constexpr int exact_block_span(int fraction_bits, int block_size) {
  return 51 - 2 * fraction_bits - std::bit_width(static_cast<unsigned>(block_size) - 1);  // (ceil(log2 N))
}
#endif

#if defined(LIBFLOAT_DOT_FAST_X86)
/// Both kernels' frame (file comment, 5): declines unless the caller's MXCSR is the default, clears
/// the flags, runs body(oa, ob, ch, general) (ch: the chain from c, to end at the result; general: the
/// flags of the general path's blocks), reads the flags, restores the caller's MXCSR.
template <format F, class A, class B, class Body>
bool exact_block_frame(A a, B b, std::uint32_t c, std::uint32_t& out, status& st, const Body& body) {
  const unsigned caller = _mm_getcsr();
  if ((caller & 0xFFC0u) != 0x1F80u) return false;  // not: nearest, every exception masked, no DAZ/FTZ
  const operand oa{F, a};
  const operand ob{F, b};
  status general{};
  _mm_setcsr(caller & ~0x3Fu);
  __asm__ volatile("" : "+r"(c) : : "memory");  // every operation after the clear
  binade_chain ch{};
  binade_chain_set(ch, c);
  body(oa, ob, ch, general);
  out = binade_chain_bits(ch);  // (exact: raises nothing)
  __asm__ volatile("" : "+r"(out));  // the chain ends before the flags are read
  const unsigned raised = _mm_getcsr();
  _mm_setcsr(caller);
  // (5) inexact from the blocks themselves, not from MXCSR
  st = binade_chain_flags(raised, ch.inexact) | general;
  return true;
}
#endif

/// The portable kernel for input format F and blocks of at most NB products (NB a power of two,
/// N <= NB): see exact_block_f32_nearest.
template <format F, int NB, class A, class B>
bool exact_block_f32_kernel(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                            status& st) {
#if defined(LIBFLOAT_DOT_FAST_X86)
  return exact_block_frame<F>(a, b, c, out, st, [&](const auto& oa, const auto& ob, binade_chain& ch, status& general) {
    const auto N = static_cast<std::size_t>(mu.block_size);
    const int span = exact_block_span(F.fraction_bits(), mu.block_size);
    for (std::size_t s = 0; s < n; s += N)
      exact_block_step<F, NB>(mu, oa, ob, s, n - s < N ? n - s : N, span, ch, general);
  });
#else
  (void)mu, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
  return false;
#endif
}

#if defined(LIBFLOAT_DOT_FAST_X86) && defined(LIBFLOAT_ARRAY_X86)
#define LIBFLOAT_EXACT_BLOCK_AVX2 1
#define LIBFLOAT_EXACT_BLOCK_TARGET __attribute__((target("avx2,f16c,fma")))
/// The AVX2 kernel's loop (file comment, 6): groups of 8 products (8 / N whole blocks) at a time, the
/// rest by exact_block_step; the chain from ch, its end returned (a value: it stays in registers).
template <format F, int N, class A, class B>
LIBFLOAT_EXACT_BLOCK_TARGET binade_chain exact_block_groups_avx2(const matrix_unit& mu, const operand<A>& oa,
                                                           const operand<B>& ob, std::size_t n, binade_chain ch,
                                                           status& general) {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8);
  constexpr bool half = F == binary16;
  constexpr int fb = half ? 10 : 7;
  const int span = exact_block_span(fb, N);
  const A& a = oa.get;
  const B& b = ob.get;
  // one block of the group from s on: its sum P, unless c is not finite (the general path's block)
  auto add = [&](std::size_t first, __m128d P) __attribute__((always_inline, target("avx2,f16c,fma"))) {
    exact_chain_add(ch, P, [&](std::uint32_t cb) {
      return static_cast<std::uint32_t>(block_fma_general(mu, oa, ob, first, N, cb, general));
    });
  };
  const simd::m256i emask = simd::mm256_set1_epi16((1 << (15 - fb)) - 1), one = simd::mm256_set1_epi16(1);
  const simd::m256i magnitude = simd::mm256_set1_epi16(0x7FFF);
  std::size_t s = 0;
  for (; s + 8 <= n; s += 8) {
    // (6a) the 8 a's and b's side by side in 16-bit lanes: exponent fields (all ones: a special
    // operand), the alignment exponents E + 2 bias = max(E_a, 1) + max(E_b, 1) of the nonzero
    // products, their largest and smallest (vphminposuw, on the complements for the largest)
    const __m128i x16 = late_load8<true>(a, s, 8, n), y16 = late_load8<true>(b, s, 8, n);
    const simd::m256i xy = simd::mm256_set_m128i(y16, x16);
    const simd::m256i E = simd::mm256_and_si256(simd::mm256_srli_epi16(xy, fb), emask);
    const simd::m256i bad = simd::mm256_cmpeq_epi16(E, emask);
    const simd::m256i ex = simd::mm256_max_epi16(E, one);
    const simd::m256i zero = simd::mm256_cmpeq_epi16(simd::mm256_and_si256(xy, magnitude), simd::mm256_setzero_si256());
    const __m128i align = _mm_add_epi16(simd::mm256_castsi256_si128(ex), simd::mm256_extracti128_si256<1>(ex));
    const __m128i zp = _mm_or_si128(simd::mm256_castsi256_si128(zero), simd::mm256_extracti128_si256<1>(zero));
    const __m128i hi = _mm_andnot_si128(zp, align), lo = _mm_or_si128(zp, align);  // zero products: 0, 0xFFFF
    const int top = 0xFFFF ^ (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(hi, _mm_set1_epi32(-1)))) & 0xFFFF);
    const int bottom = _mm_cvtsi128_si32(_mm_minpos_epu16(lo)) & 0xFFFF;
    // A special operand, or a group wider than a block may be (each block's own span decides
    // there): block by block
    if (!simd::mm256_testz_si256(bad, bad) || (top != 0 && top - bottom > span)) [[unlikely]] {
      for (std::size_t k = 0; k < 8; k += N) exact_block_step<F, N>(mu, oa, ob, s + k, N, span, ch, general);
      continue;
    }
    // (6b) the products, exact in binary64: d0 = 0..3, d1 = 4..7
    simd::m256d d0, d1;
    if constexpr (half) {
      const simd::m256 pf =
          simd::mm256_mul_ps(simd::mm256_cvtph_ps(x16), simd::mm256_cvtph_ps(y16));  // exact in binary32
      d0 = simd::mm256_cvtps_pd(simd::mm256_castps256_ps128(pf));
      d1 = simd::mm256_cvtps_pd(simd::mm256_extractf128_ps<1>(pf));
    } else {  // bfloat16 -> binary32: the encoding in the upper half of a 32-bit lane
      const __m128i z = _mm_setzero_si128();
      d0 = simd::mm256_mul_pd(simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpacklo_epi16(z, x16))),
                              simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpacklo_epi16(z, y16))));
      d1 = simd::mm256_mul_pd(simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpackhi_epi16(z, x16))),
                              simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpackhi_epi16(z, y16))));
    }
    // (6c) the blocks' sums (exact), then the chain, block after block
    if constexpr (N == 1) {
      for (std::size_t k = 0; k < 8; k += 4) {
        const simd::m256d d = k == 0 ? d0 : d1;
        const __m128d l = simd::mm256_castpd256_pd128(d), h = simd::mm256_extractf128_pd<1>(d);
        add(s + k, l);
        add(s + k + 1, _mm_unpackhi_pd(l, l));
        add(s + k + 2, h);
        add(s + k + 3, _mm_unpackhi_pd(h, h));
      }
    } else {
      const simd::m256d h = simd::mm256_hadd_pd(d0, d1);  // p0+p1, p4+p5, p2+p3, p6+p7
      const __m128d l2 = simd::mm256_castpd256_pd128(h), h2 = simd::mm256_extractf128_pd<1>(h);
      if constexpr (N == 2) {
        add(s, l2);
        add(s + 2, h2);
        add(s + 4, _mm_unpackhi_pd(l2, l2));
        add(s + 6, _mm_unpackhi_pd(h2, h2));
      } else {
        const __m128d q = _mm_add_pd(l2, h2);  // the two blocks of 4
        if constexpr (N == 4) {
          add(s, q);
          add(s + 4, _mm_unpackhi_pd(q, q));
        } else {
          add(s, _mm_add_sd(q, _mm_unpackhi_pd(q, q)));
        }
      }
    }
  }
  for (; s < n; s += N) exact_block_step<F, N>(mu, oa, ob, s, n - s < N ? n - s : N, span, ch, general);
  return ch;
}

/// The AVX2 kernel for blocks of N = 1, 2, 4 or 8 products (file comment, 6).
template <format F, int N, class A, class B>
bool exact_block_f32_kernel_avx2(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                                 status& st) {
  return exact_block_frame<F>(a, b, c, out, st, [&](const auto& oa, const auto& ob, binade_chain& ch, status& general)
                                                    LIBFLOAT_EXACT_BLOCK_TARGET {
    ch = exact_block_groups_avx2<F, N>(mu, oa, ob, n, ch, general);
  });
}
#undef LIBFLOAT_EXACT_BLOCK_TARGET
#endif

/// exact_block_f32_kernel or, where the span kernels run AVX2 (fast/cpu_dispatch.hpp: AVX-512 CPUs
/// included, lf::set_array_dispatch chooses for tests), the CPU has FMA (the target of late_load8,
/// shared with fast/late_dot.hpp) and N is 1, 2, 4 or 8, exact_block_f32_kernel_avx2.
template <format F, class A, class B>
bool exact_block_dispatch(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                          status& st) {
#if defined(LIBFLOAT_EXACT_BLOCK_AVX2)
  if (array_dispatch_in_use() != array_dispatch::portable && cpu().fma) {
    switch (mu.block_size) {
      case 1: return exact_block_f32_kernel_avx2<F, 1>(mu, a, b, n, c, out, st);
      case 2: return exact_block_f32_kernel_avx2<F, 2>(mu, a, b, n, c, out, st);
      case 4: return exact_block_f32_kernel_avx2<F, 4>(mu, a, b, n, c, out, st);
      case 8: return exact_block_f32_kernel_avx2<F, 8>(mu, a, b, n, c, out, st);
      default: break;
    }
  }
#endif
  switch (std::bit_width(static_cast<unsigned>(mu.block_size) - 1)) {  // NB = N rounded up to a power of two
    case 0:
    case 1: return exact_block_f32_kernel<F, 2>(mu, a, b, n, c, out, st);
    case 2: return exact_block_f32_kernel<F, 4>(mu, a, b, n, c, out, st);
    case 3: return exact_block_f32_kernel<F, 8>(mu, a, b, n, c, out, st);
    default: return exact_block_f32_kernel<F, 16>(mu, a, b, n, c, out, st);
  }
}

/// The exact-alignment block-FMA model's dot product on the hardware (file comment): c + the blocks
/// of mu.block_size products a_i b_i of format `in` (binary16 or bfloat16, bits above the encoding
/// ignored), c binary32. out = the result, st = the flags raised (assigned, not ORed). Returns
/// false, with out and st untouched, when it declines. SF: the operands' format when the caller
/// knows it at compile time (typed entries), else format{}.
template <format SF, class A, class B>
bool exact_block_f32_nearest(const matrix_unit& mu, const format& in, A a, B b, std::size_t n, std::uint32_t c,
                             std::uint32_t& out, status& st) {
  if constexpr (!dot_fast_built || !(SF == format{} || SF == binary16 || SF == bfloat16)) {
    (void)mu, (void)in, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
    return false;
  } else {
    if (!exact_block_fast_unit(mu) || in != mu.input || (SF != format{} && in != SF)) return false;
    if constexpr (SF != format{}) {
      return exact_block_dispatch<SF>(mu, a, b, n, c, out, st);
    } else {
      if (in == binary16) return exact_block_dispatch<binary16>(mu, a, b, n, c, out, st);
      return exact_block_dispatch<bfloat16>(mu, a, b, n, c, out, st);
    }
  }
}

}  // namespace lf::detail
