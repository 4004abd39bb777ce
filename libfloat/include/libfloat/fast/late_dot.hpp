// libfloat/fast/late_dot.hpp: the hardware path of the late_accumulation matrix-unit model (AMD
// CDNA3 as MATLAB-tensor-core and MMA-Sim model it: lf::matrix_units::cdna3_fp16, cdna3_bf16,
// cdna3_fp8) with binary16, bfloat16 (both the same) or FNUZ FP8 inputs (E4M3FNUZ, E5M2FNUZ; both
// the same), binary32 output, nearest even, blocks of up to 32 products, subnormals kept, with or
// without odd/even halves and the dropping of a far c. models/matrix_unit.hpp calls it for such a
// unit; it is an optimisation only, and it declines (returns false) whenever it could differ from
// the general path (detail::late_block), which then runs.
//
// Proof (its domain cannot be enumerated): ctest test late_fast, label quick
// (tests/fast/test_late_fast.cpp), compares it and the public entries that reach it (typed and
// run-time lf::dot) with a chain of detail::block_fma_general calls, bits and flags, on random and
// edge data: every kind of encoding, subnormal inputs, products far below and far above c, sums
// that cancel exactly, cross into binary32's subnormals or overflow, zeros of both signs, every
// start value kind, block sizes 8, 4, 3 and 32, F = 24 and 28, late_extra_bits 7, 0 and 16, with
// and without odd/even halves and a far c dropped (25 or 3 binades), the three input kinds,
// lengths around the block sizes; and the caller MXCSR states on which it must decline. It runs both
// kernels, the portable one (late_f32_kernel, steps 1-5) and the AVX2 one (late_f32_kernel_avx2,
// step 6), chosen with lf::set_array_dispatch; a kernel the CPU lacks is reported as skipped.
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
//  6. The AVX2 kernel (late_f32_kernel_avx2; CPUs with AVX2, F16C and FMA, where the span kernels
//     run AVX2 or AVX-512) computes the same integers as binary64 values, 8 products per vector:
//     (a) the exponent fields and zero tests of a's and b's 8 encodings side by side in 16-bit
//     lanes give the alignment exponents (max(E, 1) summed; 0 for a zero product) and M; (b) each
//     product is exact in binary32 for binary16 (22 bits, magnitudes in [2^-48, 2^32)) and in
//     binary64 for bfloat16 (16 bits, [2^-266, 2^256)); times 2^(F - M) (exact: a power of two,
//     the result inside the normal range) and truncated (vroundps/pd toward zero, no exception) it
//     is step 2's cut term, and a truncation that changed it dropped bits; the terms, integers
//     below 2^30, sum exactly in binary64; (c) step 3's floors are vroundsd toward -inf of the
//     value times a power of two, and step 4's sum is an integer times 2^grid, exact in binary64,
//     converted to binary32 once under MXCSR as in step 4. These operations are exact, so they
//     raise nothing that step 5 reads (converting a subnormal raises only DE, which it ignores).
//  7. Step (6c) puts two conversions and the floors on the chain from one block to the next. The
//     AVX2 kernel first tries one binary64 addition instead (fast/binade_chain.hpp): with c a
//     normal binary32 value in binade E, e_c = E, so the case and the exact second term T of the
//     block's sum c + T are known beside the chain (no product or e_c - X <= M <= e_c + F - 23: T =
//     S 2^(M - F); M < e_c - X: T = floor(S 2^(M - e_c + X)) 2^(e_c - F - X), lost bits noted), and
//     c + T is rounded by one addition when the result stays in binade E. Otherwise (the case
//     where c itself is floored, a result in another binade, c zero or subnormal) (6c) runs. Its
//     inexact is then the blocks' own (the result differs from the exact sum, or bits were lost),
//     not MXCSR's, which the tried addition can raise for a block it leaves to (6c).
//  8. FNUZ FP8 inputs and the two options late_block has (cdna3_fp8). Both kernels compute them
//     for FP8 inputs; for binary16 and bfloat16 with either option the portable kernel runs
//     (late_avx2_unit). FNUZ decoding is step 1's with the format's own bias and widths; its one
//     NaN is the encoding with the sign bit alone (there is no infinity), which makes the path
//     decline as a special operand does; an FP8 product (at most 8 significant bits, e_a + e_b <=
//     30) never comes near 2^126. Odd/even halves: step 2 for the products at even positions of
//     the block and for those at odd ones, each half with its own largest alignment exponent; when
//     both have a nonzero product, the half with the smaller one is floored (toward -inf, dropped
//     bits noted) onto the other's grid and the two added, and M is the larger exponent; otherwise
//     M and S are the one half's. A far c: when late_c_drop > 0, some product is nonzero and M >=
//     e_c with e_c < M - late_c_drop, the sum is S alone (c's bits, when c is nonzero, are
//     dropped: inexact). These are late_block's steps in the same order, on the same integers,
//     within step 4's bound. In the AVX2 kernel: (6a) reads the 8-bit encodings into 16-bit lanes
//     (bits above them cleared), takes the largest alignment exponent of the even lanes and of the
//     odd ones (positions 8v + j have the parity of j), and forms the products: for E5M2FNUZ, the
//     significands' products (below 2^8) with a 16-bit multiplication; for E4M3FNUZ, whose encoding
//     moved up by 7 bits (the sign by 8) is a binary16 encoding of its value times 2^(bias - 15)
//     (normal and subnormal alike: exponent field E, fraction f 2^7), the product of two such
//     binary16 values in binary32 (exact: 8 bits); (6b) scales each by its half's power of two (for
//     E5M2FNUZ with the product's sign carried in it), exactly in binary32 (8 bits times a normal
//     power of two, the result normal), truncates as for binary16, and sums the even and the odd
//     lanes apart (integers below 2^35: exact in binary64); the floor of one half's sum onto the
//     other's grid is a binary64 multiplication by a power of two and a rounding toward -inf,
//     exact, lost bits noted. Step 7 is not tried for a far c (the sum is not c + T); (6c)'s case A
//     takes c as 0 there and notes its bits as lost.
//  9. Lost bits matter only for inexact. Once a whole block has raised it (its rounding inexact, or
//     bits lost), the AVX2 kernel runs the remaining whole blocks without noting lost bits: the
//     same results, and inexact is raised either way.
// 10. A block that step 7 allows (c normal in binade E; not c floored, not a far c) but whose
//     result leaves binade E: x = c + T is exact in binary64 when 2 F + X <= 68, so one addition
//     and one conversion under MXCSR round it, with inexact when the result differs from x, in
//     place of (6c). x's bits: c's lie in [2^(E - 23), 2^(E + 1)); T = S 2^(M - F) with |S| <
//     2^(F + 7) (N <= 32) and E - X <= M <= E + F - 23 lies in [2^(E - X - F), 2^(E + F - 16)); in
//     case B T is a multiple of 2^(E - F - X) below 2^(E - X + 7). So x spans at most max(F + X +
//     8, 2 F + X - 15) <= 53 bits.
//
// It declines when: not x86-64 with SSE arithmetic (dot_fast_built false); the caller's MXCSR is
// not the default (nearest, every exception masked, no FTZ/DAZ); c or an operand is an infinity or
// a NaN, or a block before the last overflows (the next block's c is then an infinity, which the
// general path's specials handle); a product could reach 2^128 (e_a + e_b >= 126: the model's
// overflowing products, which make the block an infinity); the parameters are other than above.
#pragma once

#include <bit>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/binade_chain.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>
#include <libfloat/fast/dot.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

#if defined(LIBFLOAT_DOT_FAST_X86) && defined(LIBFLOAT_ARRAY_X86)
#define LIBFLOAT_LATE_AVX2 1
#include <libfloat/fast/x86_simd.hpp>  // (not <immintrin.h>: compile time, see that file)
#endif

namespace lf::detail {

/// Whether the late-accumulation hardware path can run unit mu (its formats and parameters; the
/// data and MXCSR are checked when it runs).
/// The input formats the path reads: binary16, bfloat16 (both kernels) and the FNUZ FP8 formats
/// (the portable kernel: file comment, 8).
constexpr bool late_fast_input(const format& f) {
  return f == binary16 || f == bfloat16 || f == float8_e4m3fnuz || f == float8_e5m2fnuz;
}
constexpr bool late_fast_unit(const matrix_unit& mu) {
  return late_fast_input(mu.input) && mu.output == binary32 && mu.output_fraction_bits == 23 &&
         mu.final_rounding == rounding::nearest_even && mu.input_subnormals == subnormal_handling::keep &&
         mu.output_subnormals == subnormal_handling::keep && mu.late_c_drop >= 0 && mu.block_size >= 1 &&
         mu.block_size <= 32 && mu.alignment_bits >= 23 && mu.alignment_bits <= 28 && mu.late_extra_bits >= 0 &&
         mu.late_extra_bits <= 16;
}
/// Whether the AVX2 kernel computes unit mu on input format f (else the portable one runs).
constexpr bool late_avx2_unit(const matrix_unit& mu, const format& f) {
  return f.bits() == 8 || (!mu.odd_even_halves && mu.late_c_drop == 0);
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
  static_assert(late_fast_input(F));
  constexpr bool fnuz = F.kind == nonfinite::fnuz;  // (file comment, 8)
  constexpr int fb = F.fraction_bits(), ebits = F.exponent_bits, bias = F.bias();
  constexpr std::uint32_t emask = (1u << ebits) - 1, fmask = (1u << fb) - 1;
  constexpr std::uint32_t width = (1u << F.bits()) - 1, sign = 1u << (F.bits() - 1);
  const int Fa = mu.alignment_bits, X = mu.late_extra_bits, drop = mu.late_c_drop;
  const bool halves = mu.odd_even_halves;
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
    int Mh[2] = {none, none};  // the largest alignment exponent of the even / odd positions
    for (std::size_t i = 0; i < len; ++i) {  // (file comment, 1 and 2)
      const auto x = static_cast<std::uint32_t>(a(s + i)) & width, y = static_cast<std::uint32_t>(b(s + i)) & width;
      const std::uint32_t Ex = (x >> fb) & emask, Ey = (y >> fb) & emask;
      if constexpr (fnuz) bad |= static_cast<std::uint32_t>(x == sign) | static_cast<std::uint32_t>(y == sign);
      else bad |= static_cast<std::uint32_t>(Ex == emask) | static_cast<std::uint32_t>(Ey == emask);
      const std::uint32_t fx = x & fmask, fy = y & fmask;
      const std::uint32_t sx = Ex == 0 ? fx : fx | (1u << fb), sy = Ey == 0 ? fy : fy | (1u << fb);
      const int ax = Ex == 0 ? 1 - bias : static_cast<int>(Ex) - bias;
      const int ay = Ey == 0 ? 1 - bias : static_cast<int>(Ey) - bias;
      sig[i] = std::uint64_t{sx} * sy;
      align[i] = sx == 0 || sy == 0 ? none : ax + ay;
      neg[i] = ((x ^ y) >> (fb + ebits)) & 1u;
      int& m = Mh[halves ? i & 1 : 0];
      m = align[i] > m ? align[i] : m;
    }
    const int M = Mh[0] > Mh[1] ? Mh[0] : Mh[1];
    const bool any = M != none;
    if (bad != 0 || M >= 126) {  // a special operand, or a product that could overflow
      _mm_setcsr(caller);
      return false;
    }
    // Each half's products cut onto 2^(M_half - F) and summed (without halves, one: M_half = M);
    // then the half with the smaller exponent floored onto the other's grid (file comment, 8).
    std::int64_t Sh[2] = {0, 0};
    for (std::size_t i = 0; i < len; ++i) {
      const std::size_t h = halves ? i & 1 : 0;
      const int d = align[i] - 2 * fb - (Mh[h] - Fa);  // the product's last bit relative to 2^(M_half - F)
      // d >= 0: moved up (below 2^(F + 2)); d < 0: cut toward zero, dropped bits noted (a shift of
      // 63 or more drops all of sig < 2^22).
      const int r = -d < 63 ? -d : 63;
      const std::uint64_t k = d >= 0 ? sig[i] << (d & 63) : sig[i] >> (r & 63);
      dropped = dropped || (d < 0 && (sig[i] & ((std::uint64_t{1} << (r & 63)) - 1)) != 0);
      const auto sk = static_cast<std::int64_t>(k);
      Sh[h] += neg[i] != 0 ? -sk : sk;
    }
    // (a half with no nonzero product, or the odd one without halves, sums to 0)
    const std::int64_t S = halves && Mh[0] != none && Mh[1] != none
                               ? late_fast_floor(Sh[0], M - Mh[0], dropped) + late_fast_floor(Sh[1], M - Mh[1], dropped)
                               : Sh[0] + Sh[1];
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
    } else if (drop > 0 && ec < M - drop) {  // c too far below: dropped (file comment, 8)
      dropped = dropped || C != 0;
      sum = S;
      grid = M - Fa;
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

#if defined(LIBFLOAT_LATE_AVX2)
#define LIBFLOAT_LATE_TARGET __attribute__((target("avx2,f16c,fma")))
/// Eight encodings from j on as 16-bit lanes, lanes `left` and above 0 (the block's end; left >=
/// 1). One vector load where the getter reads a contiguous array (data(): the typed entries' fp<F>,
/// the run-time entries' 64-bit encodings, whose low 16 bits vpshufb gathers) and the 8 lanes lie
/// inside it (j + 8 <= n), else single loads. WHOLE: left >= 8 and j + 8 <= n are known.
template <bool WHOLE, class G>
[[gnu::always_inline]] LIBFLOAT_LATE_TARGET inline __m128i late_load8(const G& g, std::size_t j, std::size_t left,
                                                                      std::size_t n) {
  if constexpr (requires { g.data(); }) {
    using elem = std::remove_cvref_t<decltype(*g.data())>;
    if (WHOLE || j + 8 <= n) {
      const __m128i keep = WHOLE ? _mm_set1_epi32(-1)
                                 : _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<short>(left < 8 ? left : 8)),
                                                   _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
      const auto* p = g.data() + j;
      if constexpr (sizeof(elem) == 1) {  // (FP8: the typed entries' fp<F>)
        const __m128i x = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
        return WHOLE ? x : _mm_and_si128(x, keep);
      } else if constexpr (sizeof(elem) == 2) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        return WHOLE ? x : _mm_and_si128(x, keep);
      } else if constexpr (sizeof(elem) == 8) {
        // Per 128-bit half, the low 2 bytes of each 64-bit lane: the first vector's to bytes 0-3,
        // the second's to bytes 4-7; then the halves' dwords in order 0, 4, 1, 5.
        const simd::m256i x0 = simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p));
        const simd::m256i x1 = simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p + 4));
        const simd::m256i s0 = simd::mm256_setr_epi8(0, 1, 8, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1,
                                                     8, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
        const simd::m256i s1 = simd::mm256_setr_epi8(-1, -1, -1, -1, 0, 1, 8, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                     -1, -1, 0, 1, 8, 9, -1, -1, -1, -1, -1, -1, -1, -1);
        const simd::m256i both =
            simd::mm256_or_si256(simd::mm256_shuffle_epi8(x0, s0), simd::mm256_shuffle_epi8(x1, s1));
        const simd::m256i order =
            simd::mm256_permutevar8x32_epi32(both, simd::mm256_setr_epi32(0, 4, 1, 5, 2, 3, 6, 7));
        return _mm_and_si128(simd::mm256_castsi256_si128(order), keep);
      }
    }
  }
  auto get = [&](std::size_t k) -> short {
    return WHOLE || k < left ? static_cast<short>(static_cast<std::uint16_t>(g(j + k))) : short{0};
  };
  return _mm_setr_epi16(get(0), get(1), get(2), get(3), get(4), get(5), get(6), get(7));
}

/// Whether late_load8 reads getter G's encodings from an array of single bytes (zero-extended, so
/// with nothing above an 8-bit encoding).
template <class G>
constexpr bool late_reads_bytes() {
  if constexpr (requires(const G& g) { g.data(); })
    return sizeof(*std::declval<const G&>().data()) == 1;
  else
    return false;
}

/// 2^e as a binary64, e in [-1022, 1023].
[[gnu::always_inline]] inline double late_pow2(int e) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// The block's one rounding (file comment, 4): the exact sum v (a binary64) converted to binary32,
/// nearest even under MXCSR with its underflow and overflow; inexact when the result differs from
/// v. The result becomes the chain's c.
[[gnu::always_inline]] LIBFLOAT_LATE_TARGET inline void late_round_once(binade_chain& ch, __m128d v) {
  const __m128 d = _mm_cvtsd_ss(_mm_setzero_ps(), v);
  ch.inexact = ch.inexact || _mm_ucomineq_sd(_mm_cvtss_sd(_mm_setzero_pd(), d), v) != 0;
  binade_chain_set(ch, static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(d))));
}

/// One block of late_f32_kernel_avx2: the len <= 8 NV products from s on (WHOLE: len = 8 NV and
/// s + len <= n), and the chain's c replaced by the block's result; dropv collects lost bits
/// (nonzero lanes), with TRACK only (the kernel leaves it out once inexact is known: file comment,
/// 9). Returns false (the kernel declines) for a special operand or a product that could reach
/// 2^128.
template <format F, int NV, bool WHOLE, bool TRACK, class A, class B>
[[gnu::always_inline]] LIBFLOAT_LATE_TARGET inline bool late_avx2_block(const A& a, const B& b, std::size_t s,
                                                                        std::size_t len, std::size_t n, int Fa, int X,
                                                                        int drop, bool halves, bool direct,
                                                                        binade_chain& ch, simd::m256d& dropv) {
  constexpr bool half = F == binary16, fp8 = F.bits() == 8;
  // E4M3FNUZ read as binary16 (file comment, 8): its products in binary32, as binary16's (not
  // E5M2FNUZ: its exponent field 31 holds finite values, binary16's infinities and NaNs)
  constexpr bool e4m3 = fp8 && F.exponent_bits == 4;
  constexpr int fb = F.fraction_bits(), bias = F.bias();
  // lost bits noted (nonzero lanes of m) while inexact is not yet known
  auto lose = [&dropv](simd::m256d m) __attribute__((always_inline, target("avx2,f16c,fma"))) {
    if constexpr (TRACK)
      dropv = simd::mm256_or_pd(dropv, m);
    else
      (void)m, (void)dropv;
  };
  // (file comment, 6a) a's and b's 8 encodings side by side in 16-bit lanes: the exponent fields
  // (all ones: a special operand; FNUZ: the encoding with the sign bit alone), max(E, 1) = e + bias,
  // and a zero product's alignment exponent 0 (below every real one, which is at least 2); the
  // largest by vphminposuw on the complements (FP8: by unsigned maxima, of each half's lanes for
  // odd/even halves: file comment, 8).
  const simd::m256i emask = simd::mm256_set1_epi16((1 << F.exponent_bits) - 1), one = simd::mm256_set1_epi16(1);
  const simd::m256i magnitude = simd::mm256_set1_epi16(static_cast<short>((1 << (F.bits() - 1)) - 1));
  __m128i vmax = _mm_setzero_si128();
  simd::m256i bad = simd::mm256_setzero_si256();
  [[maybe_unused]] simd::m256 pf[NV];       // binary16, E4M3FNUZ: the products in binary32 (exact: file
                                            // comment, 6b and 8)
  [[maybe_unused]] simd::m256d pd[2 * NV];  // bfloat16: in binary64 (exact)
  [[maybe_unused]] __m128i pi[NV];          // E5M2FNUZ: the significands' products (< 2^8), 16-bit lanes
  [[maybe_unused]] __m128i al[NV];          // E5M2FNUZ: the alignment exponents plus 2 bias (0: a zero product),
                                            // plus 256 where the product is negative
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const std::size_t off = 8 * static_cast<std::size_t>(v), j = s + off;
    const std::size_t left = len > off ? len - off : 0;
    __m128i x16 = !WHOLE && left == 0 ? _mm_setzero_si128() : late_load8<WHOLE>(a, j, left, n);
    __m128i y16 = !WHOLE && left == 0 ? _mm_setzero_si128() : late_load8<WHOLE>(b, j, left, n);
    if constexpr (fp8) {  // (bits above the encoding ignored; a 1-byte array has none)
      if constexpr (!late_reads_bytes<A>()) x16 = _mm_and_si128(x16, _mm_set1_epi16(0xFF));
      if constexpr (!late_reads_bytes<B>()) y16 = _mm_and_si128(y16, _mm_set1_epi16(0xFF));
    }
    const simd::m256i xy = simd::mm256_set_m128i(y16, x16);
    const simd::m256i E = simd::mm256_and_si256(simd::mm256_srli_epi16(xy, fb), emask);
    if constexpr (F.kind == nonfinite::fnuz)
      bad = simd::mm256_or_si256(
          bad, simd::mm256_cmpeq_epi16(xy, simd::mm256_set1_epi16(static_cast<short>(F.sign_mask()))));
    else
      bad = simd::mm256_or_si256(bad, simd::mm256_cmpeq_epi16(E, emask));
    const simd::m256i ex = simd::mm256_max_epi16(E, one);
    const simd::m256i zero = simd::mm256_cmpeq_epi16(simd::mm256_and_si256(xy, magnitude), simd::mm256_setzero_si256());
    const __m128i align = _mm_add_epi16(simd::mm256_castsi256_si128(ex), simd::mm256_extracti128_si256<1>(ex));
    const __m128i zp = _mm_or_si128(simd::mm256_castsi256_si128(zero), simd::mm256_extracti128_si256<1>(zero));
    vmax = _mm_max_epu16(vmax, _mm_andnot_si128(zp, align));
    if constexpr (e4m3) {
      // The encoding's 7 magnitude bits moved up by 7 are a binary16 encoding of its value times
      // 2^(bias - 15) (exponent field E, fraction f 2^7; E = 0: binary16's subnormal f 2^7 2^-24);
      // the sign, then at bit 14, moved to bit 15 by adding it to itself (bit 15 was 0: the bits
      // above the encoding are cleared). The product of two is exact in binary32 (8 bits).
      const simd::m256i h7 = simd::mm256_slli_epi16(xy, 7);
      const simd::m256i h = simd::mm256_add_epi16(h7, simd::mm256_and_si256(h7, simd::mm256_set1_epi16(0x4000)));
      pf[v] = simd::mm256_mul_ps(simd::mm256_cvtph_ps(simd::mm256_castsi256_si128(h)),
                                 simd::mm256_cvtph_ps(simd::mm256_extracti128_si256<1>(h)));
    } else if constexpr (fp8) {  // significand = fraction | hidden bit (E != 0); their product is exact
      const simd::m256i sig =
          simd::mm256_or_si256(simd::mm256_and_si256(xy, simd::mm256_set1_epi16((1 << fb) - 1)),
                               simd::mm256_andnot_si256(simd::mm256_cmpeq_epi16(E, simd::mm256_setzero_si256()),
                                                        simd::mm256_set1_epi16(1 << fb)));
      pi[v] = _mm_mullo_epi16(simd::mm256_castsi256_si128(sig), simd::mm256_extracti128_si256<1>(sig));
      // the product's sign (bit 7 of a_i ^ b_i) moved to bit 8, above the alignment exponent
      const __m128i sgn = _mm_slli_epi16(_mm_and_si128(_mm_xor_si128(x16, y16), _mm_set1_epi16(0x80)), 1);
      al[v] = _mm_or_si128(_mm_andnot_si128(zp, align), sgn);
    } else if constexpr (half) {
      pf[v] = simd::mm256_mul_ps(simd::mm256_cvtph_ps(x16), simd::mm256_cvtph_ps(y16));
    } else {  // bfloat16 -> binary32: the encoding in the upper half of a 32-bit lane
      const __m128i z = _mm_setzero_si128();
      pd[2 * v] = simd::mm256_mul_pd(simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpacklo_epi16(z, x16))),
                                     simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpacklo_epi16(z, y16))));
      pd[2 * v + 1] = simd::mm256_mul_pd(simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpackhi_epi16(z, x16))),
                                         simd::mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpackhi_epi16(z, y16))));
    }
  }
  auto largest = [](__m128i v) __attribute__((always_inline, target("avx2,f16c,fma"))) {
    return 0xFFFF ^ (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(v, _mm_set1_epi32(-1)))) & 0xFFFF);
  };
  // (FP8: the largest of the even lanes, positions 2i, and of the odd ones, 2i + 1, by two
  // unsigned maxima with the 32-bit lanes swapped; with halves, each half's is its own (a half
  // with no nonzero product gives 0), and M the larger of the two)
  int Me = 0, Mo = 0, Mb;
  if constexpr (fp8) {
    const __m128i m2 = _mm_max_epu16(vmax, _mm_shuffle_epi32(vmax, 0x4E));
    const auto eo = static_cast<unsigned>(_mm_cvtsi128_si32(_mm_max_epu16(m2, _mm_shuffle_epi32(m2, 0xB1))));
    const int e = static_cast<int>(eo & 0xFFFF), o = static_cast<int>(eo >> 16);
    Mb = e > o ? e : o;
    if (halves) Me = e, Mo = o;
  } else {
    Mb = largest(vmax);
  }
  const bool any = Mb != 0;
  const int M = Mb - 2 * bias;  // (file comment, 2: e_a + e_b)
  if (!simd::mm256_testz_si256(bad, bad) || M >= 126) return false;
  // (6b) the terms cut toward zero onto 2^(M - F): t = p 2^(F - M) exactly, truncated (no flag),
  // summed in binary64 (integers below 2^35: exact)
  simd::m256d acc = simd::mm256_setzero_pd();  // +0: the lanes' sums are never -0
  [[maybe_unused]] __m128d Sd;
  // t, 8 terms times 2^(F - M_h) in binary32 (exact), truncated (lost bits noted) and summed into
  // acc: lane i of acc takes positions i and i + 4
  [[maybe_unused]] auto cut = [&](simd::m256 t) __attribute__((always_inline, target("avx2,f16c,fma"))) {
    const simd::m256 k = simd::mm256_round_ps<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(t);
    lose(simd::mm256_castps_pd(simd::mm256_cmp_ps<simd::cmp_neq_uq>(k, t)));
    acc = simd::mm256_add_pd(acc, simd::mm256_add_pd(simd::mm256_cvtps_pd(simd::mm256_castps256_ps128(k)),
                                                     simd::mm256_cvtps_pd(simd::mm256_extractf128_ps<1>(k))));
  };
  if constexpr (fp8) {
    const int Mbe = Me != 0 ? Me : Mb, Mbo = Mo != 0 ? Mo : Mb;
    if constexpr (e4m3) {
      // Each lane onto its half's grid 2^(M_h - F) (one grid, M_h = M, without halves; a half with
      // no nonzero product takes M: its lanes are all zeros): pf's product times 2^(2 (15 - bias))
      // 2^(F - M_h), M_h = Mbe or Mbo - 2 bias: a power of two with the binary32 exponent field
      // Fa - Mbe (or Mbo) + 157, in [Fa + 127, Fa + 157] (Mbe, Mbo in [0, 30]); t = P 2^(F - M_h)
      // for the product P, normal where P is nonzero (P >= 2^-20, M_h <= 14).
      const simd::m256 up = simd::mm256_castsi256_ps(simd::mm256_blend_epi32<0xAA>(
          simd::mm256_set1_epi32((Fa - Mbe + 157) << 23), simd::mm256_set1_epi32((Fa - Mbo + 157) << 23)));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) cut(simd::mm256_mul_ps(pf[v], up));
    } else {
      // Each lane onto its half's grid 2^(M_h - F) (as above): t = p * (+-2^(align - 2 fb + F -
      // M_h)), the power of two with a binary32 exponent field in [87, 151] (FNUZ FP8: align - M_h
      // >= -60; a zero product's align 0 gives a field in [83, 145], and t = +-0), which the
      // product's sign (256 in al) carries into bit 31.
      // (per lane, the exponent field of 2^(F - 2 fb - M_h) plus 2 bias: k0 - M_h)
      const simd::m256i kk = simd::mm256_sub_epi32(
          simd::mm256_set1_epi32(127 - 2 * fb + Fa),
          simd::mm256_blend_epi32<0xAA>(simd::mm256_set1_epi32(Mbe), simd::mm256_set1_epi32(Mbo)));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const simd::m256i e32 = simd::mm256_add_epi32(simd::mm256_cvtepu16_epi32(al[v]), kk);
        cut(simd::mm256_mul_ps(simd::mm256_cvtepi32_ps(simd::mm256_cvtepu16_epi32(pi[v])),
                               simd::mm256_castsi256_ps(simd::mm256_slli_epi32(e32, 23))));
      }
    }
    // acc's lanes: positions 0, 1, 2, 3 mod 4 (even, odd, even, odd). Each half's sum is an integer
    // below 2^35; the one with the smaller exponent floored onto the other's grid (exact in binary64,
    // lost bits noted), then the two added (exact).
    const __m128d lo = simd::mm256_castpd256_pd128(acc), hi = simd::mm256_extractf128_pd<1>(acc);
    const __m128d eo = _mm_add_pd(lo, hi);  // (even sum, odd sum)
    const __m128d sh = _mm_mul_pd(eo, _mm_setr_pd(late_pow2(Mbe - Mb), late_pow2(Mbo - Mb)));
    const __m128d fl = _mm_round_pd(sh, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    lose(simd::mm256_zextpd128_pd256(_mm_cmpneq_pd(fl, sh)));
    Sd = _mm_add_sd(fl, _mm_unpackhi_pd(fl, fl));
  } else if constexpr (half) {
    const simd::m256 up = simd::mm256_set1_ps(std::bit_cast<float>(static_cast<std::uint32_t>(Fa - M + 127) << 23));
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) cut(simd::mm256_mul_ps(pf[v], up));
  } else {
    const simd::m256d up = simd::mm256_set1_pd(late_pow2(Fa - M));
#pragma GCC unroll 8
    for (int v = 0; v < 2 * NV; ++v) {
      const simd::m256d t = simd::mm256_mul_pd(pd[v], up);
      const simd::m256d k = simd::mm256_round_pd<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(t);
      lose(simd::mm256_cmp_pd<simd::cmp_neq_uq>(k, t));
      acc = simd::mm256_add_pd(acc, k);
    }
  }
  if constexpr (!fp8) {
    __m128d s2 = _mm_add_pd(simd::mm256_castpd256_pd128(acc), simd::mm256_extractf128_pd<1>(acc));
    Sd = _mm_add_sd(s2, _mm_unpackhi_pd(s2, s2));  // the integer S of (2) (|S| < 2^35)
  }
  // (7) c normal in binade E: e_c = E, so the case and the sum's second term T are known beside
  // the chain: no nonzero product or e_c - X <= M <= e_c + F - 23 (neither floor drops a bit: T =
  // S 2^(M - F)); M < e_c - X (B: T = floor(S 2^(M - e_c + X)) 2^(e_c - F - X)); otherwise (A with c
  // floored, which needs c) steps (6c). x = c + T is exact, and binade_chain_try rounds it.
  {
    const int E = ch.E;
    const bool b_case = any && M < E - X;
    const int kb = M - E + X < -200 ? -200 : M - E + X;
    const __m128d sb = _mm_mul_sd(Sd, _mm_set_sd(late_pow2(kb)));
    const __m128d fl = _mm_round_sd(sb, sb, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m128d pick = _mm_castsi128_pd(_mm_cvtsi64_si128(b_case ? -1 : 0));
    const __m128d T = _mm_mul_sd(_mm_blendv_pd(Sd, fl, pick), _mm_set_sd(late_pow2(b_case ? E - Fa - X : M - Fa)));
    const bool far_c = drop > 0 && any && M > E + drop;  // c dropped (file comment, 8): not c + T
    const bool allowed = !(any && M > E + Fa - 23) && !far_c;
    // B's bits below 2^(e_c - F - X), lost when T is taken (here or by the direct rounding)
    const __m128d b_lost = _mm_and_pd(pick, _mm_cmpneq_sd(fl, sb));
    if (binade_chain_try(ch, T, allowed)) [[likely]] {
      lose(simd::mm256_zextpd128_pd256(b_lost));
      return true;
    }
    if (allowed && direct && ch.lo != binade_chain_none) {
      // (file comment, 10) the result left binade E: x = c + T is exact in binary64, and one
      // conversion rounds it
      lose(simd::mm256_zextpd128_pd256(b_lost));
      late_round_once(ch, _mm_add_sd(ch.c, T));
      return true;
    }
  }
  // (6c) c and the sum on a grid 2^G, both candidates computed and one chosen by a mask:
  //   A, M >= e_c: G = M - F, S as it is, c floored onto 2^G: (S + floor(c 2^-G)) 2^G;
  //   B, M < e_c or no nonzero product: G = e_c - F - X, S floored onto 2^G (by 2^(M - e_c + X),
  //   at least 2^-200: |S| < 2^35, so floor(S 2^k) is the same for every k <= -36), c exact on
  //   it: floor(S 2^(M - e_c + X)) 2^G + c.
  // The chosen one is exact (file comment, 4). The other must raise nothing either: A takes S = 0
  // and B takes c = 0 when not chosen, so that each is an integer times a power of two, inside
  // binary64's range. (Without these masks the other is inexact only when the chosen one dropped
  // bits, whose inexact is raised anyway, so no test can see them; they keep the argument short.)
  // e_c and B's powers of two come from c's bits in the vector unit.
  const __m128d cd = ch.c;
  const __m128 cv = _mm_cvtsd_ss(_mm_setzero_ps(), cd);  // (exact)
  const __m128i ecb = _mm_max_epi32(_mm_and_si128(_mm_srli_epi32(_mm_castps_si128(cv), 23), _mm_cvtsi32_si128(0xFF)),
                                    _mm_cvtsi32_si128(1));  // e_c + 127, in a 64-bit lane
  const __m128d pick_b = _mm_castsi128_pd(simd::mm_cmpgt_epi64(ecb, _mm_cvtsi64_si128(any ? M + 127 : -1)));
  // A; with c too far below (file comment, 8), c taken as 0 and its bits noted as lost
  const bool far_c = drop > 0 && any && M - (_mm_cvtsi128_si32(ecb) - 127) > drop;
  const __m128d ca = _mm_mul_sd(cd, _mm_set_sd(late_pow2(Fa - M)));
  const __m128d fa0 = _mm_round_sd(ca, ca, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m128d far = _mm_castsi128_pd(_mm_cvtsi64_si128(far_c ? -1 : 0));
  const __m128d fa = _mm_andnot_pd(far, fa0);
  lose(simd::mm256_zextpd128_pd256(_mm_and_pd(far, _mm_cmpneq_sd(cd, _mm_setzero_pd()))));
  const __m128d down = _mm_set_sd(late_pow2(M - Fa));
  const __m128d va = simd::mm_fmadd_sd(fa, down, _mm_andnot_pd(pick_b, _mm_mul_sd(Sd, down)));  // (exact: one FMA)
  // B: 2^k, k = max(M - e_c + X, -200), and 2^G from exponent fields
  const __m128i kf =
      _mm_max_epi32(_mm_sub_epi32(_mm_cvtsi32_si128(M + X + 1023 + 127), ecb), _mm_cvtsi32_si128(1023 - 200));
  const __m128d sb = _mm_mul_sd(Sd, _mm_castsi128_pd(_mm_slli_epi64(kf, 52)));
  const __m128d fbl = _mm_round_sd(sb, sb, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m128d gb = _mm_castsi128_pd(_mm_slli_epi64(_mm_add_epi32(ecb, _mm_cvtsi32_si128(1023 - 127 - Fa - X)), 52));
  const __m128d vb = simd::mm_fmadd_sd(fbl, gb, _mm_and_pd(pick_b, cd));
  lose(simd::mm256_zextpd128_pd256(_mm_blendv_pd(_mm_cmpneq_sd(fa0, ca), _mm_cmpneq_sd(fbl, sb), pick_b)));
  late_round_once(ch, _mm_blendv_pd(va, vb, pick_b));  // (4: the one rounding of the exact sum)
  return true;
}

/// late_f32_kernel on AVX2 and F16C, for blocks of at most 8 NV products (NV = 1 to 4): the same
/// bits and flags (file comment, 6).
template <format F, int NV, class A, class B>
LIBFLOAT_LATE_TARGET bool late_f32_kernel_avx2(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c,
                                               std::uint32_t& out, status& st) {
  const int Fa = mu.alignment_bits, X = mu.late_extra_bits, drop = mu.late_c_drop;
  const bool halves = mu.odd_even_halves;
  const bool direct = 2 * Fa + X <= 68;  // (file comment, 10: c + T exact in binary64)
  const auto N = static_cast<std::size_t>(mu.block_size);
  if ((c & 0x7F800000u) == 0x7F800000u) return false;  // c infinite or NaN
  const unsigned caller = _mm_getcsr();
  if ((caller & 0xFFC0u) != 0x1F80u) return false;  // not: nearest, every exception masked, no DAZ/FTZ
  simd::m256d dropv = simd::mm256_setzero_pd();     // nonzero where a term or c lost bits
  _mm_setcsr(caller & ~0x3Fu);
  __asm__ volatile("" : "+r"(c) : : "memory");  // every conversion after the clear
  binade_chain ch{};
  binade_chain_set(ch, c);
  // false: decline (restoring the caller's MXCSR); an overflow before the last block makes the
  // next c an infinity, which the general path's specials handle (as late_f32_kernel)
  auto next = [&](bool ok, std::size_t end) __attribute__((always_inline, target("avx2,f16c,fma"))) {
    if (ok && (ch.nonfinite == 0 || end == n)) return true;
    _mm_setcsr(caller);
    return false;
  };
  std::size_t s = 0;
  if (N == 8 * static_cast<std::size_t>(NV)) {  // whole blocks: no lane masked, vector loads
    // (file comment, 9) lost bits noted until inexact is known, then left out
    bool known = false;
    for (; s + N <= n && !known; s += N) {
      if (!next(late_avx2_block<F, NV, true, true>(a, b, s, N, n, Fa, X, drop, halves, direct, ch, dropv), s + N))
        return false;
      known = ch.inexact || !simd::mm256_testz_si256(simd::mm256_castpd_si256(dropv), simd::mm256_castpd_si256(dropv));
    }
    for (; s + N <= n; s += N)
      if (!next(late_avx2_block<F, NV, true, false>(a, b, s, N, n, Fa, X, drop, halves, direct, ch, dropv), s + N))
        return false;
  }
  for (; s < n; s += N) {
    const std::size_t len = n - s < N ? n - s : N;
    if (!next(late_avx2_block<F, NV, false, true>(a, b, s, len, n, Fa, X, drop, halves, direct, ch, dropv), s + len))
      return false;
  }
  std::uint32_t bits = binade_chain_bits(ch);  // (exact: raises nothing)
  __asm__ volatile("" : "+r"(bits));        // the chain ends before the flags are read
  const unsigned raised = _mm_getcsr();
  _mm_setcsr(caller);
  // inexact from the blocks and the lost bits, not from MXCSR (file comment, 7)
  const simd::m256i lost = simd::mm256_castpd_si256(dropv);
  st = binade_chain_flags(raised, ch.inexact || !simd::mm256_testz_si256(lost, lost));
  out = bits;
  return true;
}
#undef LIBFLOAT_LATE_TARGET
#endif

/// late_f32_kernel or, where the span kernels run AVX2 (fast/cpu_dispatch.hpp: AVX-512 CPUs
/// included, lf::set_array_dispatch chooses for tests), late_f32_kernel_avx2.
template <format F, class A, class B>
bool late_f32_dispatch(const matrix_unit& mu, A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                       status& st) {
#if defined(LIBFLOAT_LATE_AVX2)
  {
    if (late_avx2_unit(mu, F) && array_dispatch_in_use() != array_dispatch::portable && cpu().fma) {
      switch ((mu.block_size + 7) / 8) {
        case 1: return late_f32_kernel_avx2<F, 1>(mu, a, b, n, c, out, st);
        case 2: return late_f32_kernel_avx2<F, 2>(mu, a, b, n, c, out, st);
        case 3: return late_f32_kernel_avx2<F, 3>(mu, a, b, n, c, out, st);
        default: return late_f32_kernel_avx2<F, 4>(mu, a, b, n, c, out, st);
      }
    }
  }
#endif
  return late_f32_kernel<F>(mu, a, b, n, c, out, st);
}

/// The late_accumulation model's dot product on the hardware (file comment): c + the blocks of
/// mu.block_size products a_i b_i of format `in` (binary16 or bfloat16, bits above the encoding
/// ignored), c binary32. out = the result, st = the flags raised (assigned, not ORed). Returns
/// false, with out and st untouched, when it declines. SF: the operands' format when the caller
/// knows it at compile time (typed entries), else format{}.
template <format SF, class A, class B>
bool late_f32_nearest(const matrix_unit& mu, const format& in, A a, B b, std::size_t n, std::uint32_t c,
                      std::uint32_t& out, status& st) {
  if constexpr (!dot_fast_built || !(SF == format{} || late_fast_input(SF))) {
    (void)mu, (void)in, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
    return false;
  } else {
    if (!late_fast_unit(mu) || in != mu.input) return false;
    if constexpr (SF != format{}) {
      return in == SF && late_f32_dispatch<SF>(mu, a, b, n, c, out, st);
    } else {
      if (in == binary16) return late_f32_dispatch<binary16>(mu, a, b, n, c, out, st);
      if (in == bfloat16) return late_f32_dispatch<bfloat16>(mu, a, b, n, c, out, st);
      if (in == float8_e4m3fnuz) return late_f32_dispatch<float8_e4m3fnuz>(mu, a, b, n, c, out, st);
      return late_f32_dispatch<float8_e5m2fnuz>(mu, a, b, n, c, out, st);
    }
  }
}

}  // namespace lf::detail
