// libfloat/fast/array_kernels.hpp: the loops behind core/array.hpp (the CPU they run on is chosen in
// fast/cpu_dispatch.hpp).
//
// Proof: ctest label `proof`, tests proof_array_<i>of<n> and proof_array_path_<path>
// (tests/fast/test_array_exhaustive.cpp): on every path the CPU has (portable, avx2, avx512,
// avx512_bf16; a missing one is reported skipped), each loop here, reached through lf::convert on
// spans with the path forced, gives the core's bits (lf::convert, core/arith.hpp) for all 2^32
// binary32 inputs, and each span's flags are the OR of the core's (per chunk of 65536 consecutive
// encodings; under the default policy also per group of inputs with equal core flags), into binary16,
// bfloat16, tf32, E4M3 and E5M2, seven rounding modes, six policies; lf::widen for every encoding of
// those five formats.
//
// Three builds of every loop: portable (the translation unit's own flags), AVX2 and AVX-512
// (GCC/Clang target attributes, so one binary runs everywhere and uses what the CPU has). They
// share one body: narrow_lane (array_lane.hpp), so they agree bit for bit by construction; the
// tests compare them anyway. Two loops use hardware conversions where those are bit-identical to
// the core:
//   - float -> binary16, nearest even, default policy: F16C VCVTPS2PH with imm8 = 0 (IEEE
//     roundTiesToEven, gradual underflow, NaNs quieted keeping the leading payload bits, as
//     lf::convert does). The flags are computed beside it from integer compares.
//   - binary16 -> float: F16C VCVTPH2PS is exact.
// Both run with MXCSR set to its default (DAZ/FTZ off) and restore the caller's MXCSR, flags included:
// VCVTPS2PH reads a subnormal input as zero under MXCSR.DAZ, and an unmasked exception would trap.
// F16C also converts float -> binary16 in the directed modes (VCVTPS2PH's rounding immediate: toward
// zero, upward, downward), and to odd and nearest-away from truncation and nearest even, on AVX2 and
// AVX-512 (f16_f16c_avx2 / f16_f16c_avx512), flags computed beside it as above. The AVX-512 loops
// of float -> bfloat16 in every deterministic mode, and the AVX2 loop in nearest even, use integer
// bit tricks on blocks of normal-range values and the core's lane elsewhere (narrow_trick_avx512,
// bf16_rne_blocks_avx512, bf16_blocks_avx2; the last also in stochastic rounding, and widening for
// lf::quantize).
// AVX512_BF16's VCVTNEPS2BF16 never consults MXCSR (Intel SDM: nearest even, subnormal inputs and
// outputs flushed, no flags), so it needs no guard; it runs only on blocks without subnormal inputs
// (bf16_rne_blocks_avx512), and the flags are computed beside it.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/fast/array_lane.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>
#include <libfloat/fast/scalar.hpp>

#if defined(LIBFLOAT_ARRAY_X86)
#include <libfloat/fast/x86_simd.hpp>
#endif

namespace lf {
namespace detail {

// ---- the generic narrowing loop ------------------------------------------------------------------

template <typename T>
using float_bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

/// out[i] = narrow_lane(in[i]); returns the ORed flags. For stochastic rounding element i takes the
/// random bits stochastic_mix(idx0 + i, key): the caller splits spans at multiples of 2^32.
/// Plain = the default policy, as a constant so that the policy's selects fold away.
template <format F, format In, rounding M, bool Plain, typename T>
LIBFLOAT_INLINE std::uint32_t narrow_loop(const T* in, fp<F>* out, std::size_t n, lane_policy policy, std::uint64_t key,
                                          std::uint32_t idx0) {
  using S = typename fp<F>::storage_type;
  const lane_policy pol = Plain ? lane_policy{} : policy;
  std::uint32_t flags = 0;
  const auto one = [&](std::size_t i) __attribute__((always_inline)) {
    std::uint32_t rnd = 0;
    if constexpr (M == rounding::stochastic) rnd = stochastic_mix(idx0 + static_cast<std::uint32_t>(i), key);
    const auto r = narrow_lane<F, In, M>(std::bit_cast<float_bits_t<T>>(in[i]), rnd, pol, flags);
    out[i] = fp<F>::from_bits(static_cast<S>(r));
  };
  // Blocks of a constant 256 elements, then the tail: at -O2, GCC 12 vectorises only loops whose
  // trip count is a multiple of the vector length (-fvect-cost-model=very-cheap), so one plain loop
  // over n stayed scalar there. Measured on the AVX2 path, 64K floats in cache (docs/performance.md,
  // "Array kernels"), upward: 4.8 ns per element at -O2 before, 2.25 ns after, 0.85 ns at -O3 either way.
  constexpr std::size_t block = 256;
  std::size_t i = 0;
  for (; i + block <= n; i += block)
    for (std::size_t j = 0; j < block; ++j) one(i + j);
  for (; i < n; ++i) one(i);
  return flags;
}

template <format F, format In, rounding M, bool Plain, typename T>
[[gnu::noinline]] std::uint32_t narrow_portable(const T* in, fp<F>* out, std::size_t n, lane_policy pol,
                                                std::uint64_t key, std::uint32_t idx0) {
  return narrow_loop<F, In, M, Plain>(in, out, n, pol, key, idx0);
}

/// bfloat16, nearest even, default policy: fast.hpp's bit trick (tests/fast/test_fast_paths.cpp
/// checks it against the core for every float) and the flags from integer compares. O = float:
/// the result widened back to binary32 (its bits << 16, exact), what lf::quantize writes.
template <typename T, typename O>
LIBFLOAT_INLINE std::uint32_t bf16_rne_loop(const T* in, O* out, std::size_t n) {
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = std::bit_cast<std::uint32_t>(in[i]);
    const std::uint32_t a = x & 0x7FFFFFFFu;
    const std::uint16_t r = f32_to_bf16_bits_rne(x);
    const bool finite = a < 0x7F800000u;
    const bool inexact = finite & ((a & 0xFFFFu) != 0);
    const bool over = finite & ((r & 0x7FFFu) == 0x7F80u);
    // tiny after rounding: below 2^-126 - 2^-135 (bits 0x007FC000), where 8 bits at an unbounded
    // exponent round up to 2^-126
    const bool tiny = a < 0x007FC000u;
    const bool snan = (a > 0x7F800000u) & (a < 0x7FC00000u);
    const auto b = [](bool c) { return static_cast<std::uint32_t>(c); };  // arithmetic, not selects: vectorises
    flags |= b(inexact) * to_bits(status::inexact) | b(over) * to_bits(status::overflow) |
             b(inexact & tiny) * to_bits(status::underflow) | b(snan) * to_bits(status::invalid);
    if constexpr (std::is_same_v<O, float>) out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(r) << 16);
    else out[i] = bf16::from_bits(r);
  }
  return flags;
}
[[gnu::noinline]] inline std::uint32_t bf16_rne_portable(const float* in, bf16* out, std::size_t n) {
  return bf16_rne_loop(in, out, n);
}

#if defined(LIBFLOAT_ARRAY_X86)
#define LIBFLOAT_TARGET_AVX2 gnu::target("avx2,f16c,fma,bmi,bmi2,popcnt")
#define LIBFLOAT_TARGET_AVX512 gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,bmi,bmi2,popcnt")
// A lambda's call operator does not inherit its enclosing function's target: it is given it here.
#define LIBFLOAT_LAMBDA_AVX512 \
  __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,bmi,bmi2,popcnt")))
#define LIBFLOAT_LAMBDA_AVX2 __attribute__((always_inline, target("avx2,f16c,fma,bmi,bmi2,popcnt")))

template <format F, format In, rounding M, bool Plain, typename T>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] std::uint32_t narrow_avx2(const T* in, fp<F>* out, std::size_t n,
                                                                  lane_policy pol, std::uint64_t key, std::uint32_t idx0) {
  return narrow_loop<F, In, M, Plain>(in, out, n, pol, key, idx0);
}
template <format F, format In, rounding M, bool Plain, typename T>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] std::uint32_t narrow_avx512(const T* in, fp<F>* out, std::size_t n,
                                                                      lane_policy pol, std::uint64_t key,
                                                                      std::uint32_t idx0) {
  return narrow_loop<F, In, M, Plain>(in, out, n, pol, key, idx0);
}

/// Keeps the caller's MXCSR (rounding control, DAZ/FTZ, sticky flags) out of and away from the
/// F16C kernels: default MXCSR inside (or `csr`: fast/binary32_span_ops.hpp sets a rounding
/// direction), the caller's restored on exit.
struct mxcsr_guard {
  unsigned saved;
  [[gnu::always_inline]] mxcsr_guard() : saved(_mm_getcsr()) { _mm_setcsr(0x1F80u); }
  [[gnu::always_inline]] explicit mxcsr_guard(unsigned csr) : saved(_mm_getcsr()) { _mm_setcsr(csr); }
  [[gnu::always_inline]] ~mxcsr_guard() { _mm_setcsr(saved); }
  mxcsr_guard(const mxcsr_guard&) = delete;
  mxcsr_guard& operator=(const mxcsr_guard&) = delete;
};

// Flags of float -> binary16 nearest even, from the input bits a = |x| and d = whether the F16C
// result widened back (exactly) differs from x:
//   inexact    d, for non-NaN x (an overflow differs too: it became infinity)
//   underflow  d and a < 0x387FF000 = 2^-14 - 2^-26: below it 11 bits at an unbounded exponent stay
//              below 2^-14, so the value is tiny after rounding; at or above it they round to 2^-14
//   overflow   0x477FF000 <= a < infinity: |x| >= 65520 = 65504 + ulp/2
//   invalid    a signaling NaN: 0x7F800000 < a < 0x7FC00000
inline constexpr std::uint32_t f16_overflow_from = 0x477FF000u;
inline constexpr std::uint32_t f16_tiny_below = 0x387FF000u;

LIBFLOAT_INLINE std::uint32_t f16_flags_from(bool ne, bool tiny_ne, bool over, bool snan) {
  return static_cast<std::uint32_t>(ne) * to_bits(status::inexact) |
         static_cast<std::uint32_t>(tiny_ne) * to_bits(status::underflow) |
         static_cast<std::uint32_t>(over) * to_bits(status::overflow) |
         static_cast<std::uint32_t>(snan) * to_bits(status::invalid);
}

// AVX-512 kernels in blocks of `wide_block` elements. The common block holds only values whose
// flags need no care: lo <= |x| < hi, i.e. results that are neither tiny, nor overflowing, nor NaN
// (zeros too). There the only flag is inexact, which is "any of the discarded low bits set", so
// the loop keeps three accumulators: min(|x| - 1) (a zero wraps to the maximum and never counts),
// max(|x|) and the OR of the inputs. A block with anything else has its flags recomputed from L1
// with the complete per-lane tests.
inline constexpr std::size_t wide_block = 1024;

/// Whether a block needs the complete per-lane tests: it holds a lane outside [lo, hi) (zeros
/// aside) that could raise a flag not raised yet. A tiny lane can raise only underflow and
/// inexact, a lane >= hi only overflow and inexact (infinities: nothing), a NaN only invalid; and
/// the plain test for inexact (any discarded bit set) is only sound on plain lanes.
/// mn: min(|x| - 1) over the block, mx: max(|x|) (both as unsigned integers).
constexpr bool block_needs_full(std::uint32_t mn, std::uint32_t mx, std::uint32_t lo, std::uint32_t hi,
                                std::uint32_t flags) {
  const bool tiny = mn < lo - 1, high = mx >= hi, nan = mx > 0x7F800000u;
  const auto raised = [flags](status s) { return (flags & to_bits(s)) != 0; };
  if ((tiny || high) && !raised(status::inexact)) return true;
  return (tiny && !raised(status::underflow)) || (high && !raised(status::overflow)) || (nan && !raised(status::invalid));
}
[[gnu::always_inline, LIBFLOAT_TARGET_AVX512]] inline bool block_needs_full_avx512(simd::m512i min_a_minus_1, simd::m512i max_a,
                                                                                  std::uint32_t lo, std::uint32_t hi,
                                                                                  std::uint32_t flags) {
  return block_needs_full(simd::mm512_reduce_min_epu32(min_a_minus_1), simd::mm512_reduce_max_epu32(max_a), lo, hi, flags);
}

/// The accumulators of one block: min(|x| - 1), max(|x|) and the OR of the inputs, each left at its
/// neutral value (all ones, zero, zero) when the flags already raised make it useless.
struct block_scan {
  simd::m512i min_a1, max_a, all_bits;
};

/// How much of block_scan a block needs, given the flags raised so far: the OR only while inexact
/// is not raised (on plain lanes it is the only flag); min(|x| - 1) (tiny lanes) while underflow or
/// inexact is not; max(|x|) (lanes >= hi, and NaNs) while overflow, inexact or invalid is not, or
/// always when a NaN lane must be redone (`nan_redo`). Level 0: everything; 1: min and max; 2: max;
/// 3: nothing.
constexpr int scan_level(std::uint32_t flags, bool nan_redo) {
  const auto raised = [flags](status s) { return (flags & to_bits(s)) != 0; };
  if (!raised(status::inexact)) return 0;
  if (!raised(status::underflow)) return 1;
  if (nan_redo || !raised(status::overflow) || !raised(status::invalid)) return 2;
  return 3;
}

/// Runs one block: for each 16 lanes, convert(i, x) converts and stores them, and the accumulators
/// of level L (scan_level) are updated.
template <int L, class Convert>
[[gnu::always_inline, LIBFLOAT_TARGET_AVX512]] inline block_scan scan_block(const float* in, std::size_t b, std::size_t m,
                                                                           Convert convert) {
  const simd::m512i absmask = simd::mm512_set1_epi32(0x7FFFFFFF), one = simd::mm512_set1_epi32(1);
  block_scan acc{simd::mm512_set1_epi32(-1), simd::mm512_setzero_si512(), simd::mm512_setzero_si512()};
  for (std::size_t i = b; i < b + m; i += 16) {
    const simd::m512i xb = simd::mm512_loadu_si512(in + i);
    convert(i, xb);
    if constexpr (L <= 2) {
      const simd::m512i a = simd::mm512_and_si512(xb, absmask);
      acc.max_a = simd::mm512_max_epu32(acc.max_a, a);
      if constexpr (L <= 1) acc.min_a1 = simd::mm512_min_epu32(acc.min_a1, simd::mm512_sub_epi32(a, one));
    }
    if constexpr (L == 0) acc.all_bits = simd::mm512_or_si512(acc.all_bits, xb);
  }
  return acc;
}

/// scan_block at the level the flags call for, but at most `max_level`: a kernel whose output is
/// wrong for some inputs (not only its flags) keeps the accumulators that find them (level 1: the
/// minimum and the maximum) whatever flags are raised.
template <class Convert>
[[gnu::always_inline, LIBFLOAT_TARGET_AVX512]] inline block_scan scan_block_for(std::uint32_t flags, bool nan_redo,
                                                                               int max_level, const float* in,
                                                                               std::size_t b, std::size_t m,
                                                                               Convert convert) {
  const int level = scan_level(flags, nan_redo);
  switch (level < max_level ? level : max_level) {
    case 0: return scan_block<0>(in, b, m, convert);
    case 1: return scan_block<1>(in, b, m, convert);
    case 2: return scan_block<2>(in, b, m, convert);
    default: return scan_block<3>(in, b, m, convert);
  }
}

/// Whether the OR of a plain block's inputs has one of the `discarded` bits set.
[[gnu::always_inline, LIBFLOAT_TARGET_AVX512]] inline bool any_bits_avx512(simd::m512i all_bits, std::uint32_t discarded) {
  return simd::mm512_test_epi32_mask(all_bits, simd::mm512_set1_epi32(static_cast<int>(discarded))) != 0;
}

/// float -> binary16 with F16C in mode M (nearest even or a directed mode: VCVTPS2PH's rounding
/// immediate, IEEE rounding with gradual underflow; overflow gives infinity or the largest finite
/// value as IEEE says for the mode). Thresholds on a = |x| for its flags, per lane: "away" lanes
/// are those whose magnitude rounds up (upward: positive x; downward: negative x), "truncating"
/// lanes the others (toward zero: all). Overflow: a >= over_from (nearest even 65520 = 65504 +
/// ulp/2; truncating 65536; away anything above 65504). Tiny after rounding (underflow when also
/// inexact): a < tiny_below (nearest even 2^-14 - 2^-26; truncating 2^-14; away 2^-14 - 2^-25 and
/// below, since larger values round up to 2^-14 at an unbounded exponent). Plain lanes, whose only
/// possible flag is inexact (a discarded bit set): plain_lo <= a < plain_hi, every lane's range.
/// Round to odd is truncation (the toward-zero immediate) with the last bit set when the result is
/// inexact, which is the same on the subnormal grid and gives the largest finite value on overflow;
/// its flags are truncation's. Nearest-away is nearest even except at a tie that nearest even
/// rounded toward zero (its result equals truncation's, t, which is then even and below the largest
/// finite value): there it is t + 1. Its flags are nearest even's (the thresholds 65520 and
/// 2^-14 - 2^-26 are ties that both round away from zero).
template <rounding M>
struct f16c_mode {
  static_assert(M == rounding::nearest_even || M == rounding::toward_zero || M == rounding::upward ||
                M == rounding::downward || M == rounding::odd || M == rounding::nearest_away);
  static constexpr int imm = M == rounding::nearest_even || M == rounding::nearest_away ? _MM_FROUND_TO_NEAREST_INT
                             : M == rounding::toward_zero || M == rounding::odd         ? _MM_FROUND_TO_ZERO
                             : M == rounding::upward                                    ? _MM_FROUND_TO_POS_INF
                                                                                        : _MM_FROUND_TO_NEG_INF;
  static constexpr bool rne = M == rounding::nearest_even || M == rounding::nearest_away;
  static constexpr std::uint32_t over_trunc = rne ? f16_overflow_from : 0x47800000u;
  static constexpr std::uint32_t over_away = rne ? f16_overflow_from : 0x477FE001u;
  static constexpr std::uint32_t tiny_trunc = rne ? f16_tiny_below : 0x38800000u;
  static constexpr std::uint32_t tiny_away = rne ? f16_tiny_below : 0x387FE001u;
  static constexpr std::uint32_t plain_lo = rne ? f16_tiny_below : 0x38800000u;
  static constexpr std::uint32_t plain_hi = rne ? f16_overflow_from : 0x477FE001u;
};

/// The lanes of xb whose magnitude rounds away from zero under M (see f16c_mode).
template <rounding M>
[[gnu::always_inline, LIBFLOAT_TARGET_AVX512]] inline simd::mmask16 f16c_away_lanes(simd::m512i xb) {
  if constexpr (M == rounding::upward) return static_cast<simd::mmask16>(~simd::mm512_movepi32_mask(xb));
  else if constexpr (M == rounding::downward) return simd::mm512_movepi32_mask(xb);
  else return 0;
}

/// float -> binary16 with F16C on AVX2 in the six deterministic modes (VCVTPS2PH's rounding immediate;
/// round to odd and nearest-away from truncation and nearest even as f16_f16c_avx512 makes them, see
/// f16c_mode), the flags computed beside it per lane as in f16_flags_avx512: inexact where the result
/// widened back differs from x, underflow where also |x| is below the tiny threshold of its lane's
/// direction, overflow from the overflow threshold, invalid for a signaling NaN.
template <rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] std::uint32_t f16_f16c_avx2(const float* in, fp16* out, std::size_t n) {
  using T = f16c_mode<M>;
  const mxcsr_guard guard;
  const simd::m256i absmask = simd::mm256_set1_epi32(0x7FFFFFFF), inf = simd::mm256_set1_epi32(0x7F800000);
  const simd::m256i qnan = simd::mm256_set1_epi32(0x7FC00000);
  const simd::m256i over_trunc = simd::mm256_set1_epi32(static_cast<int>(T::over_trunc - 1));
  const simd::m256i over_away = simd::mm256_set1_epi32(static_cast<int>(T::over_away - 1));
  const simd::m256i tiny_trunc = simd::mm256_set1_epi32(static_cast<int>(T::tiny_trunc));
  const simd::m256i tiny_away = simd::mm256_set1_epi32(static_cast<int>(T::tiny_away));
  simd::m256i ne = simd::mm256_setzero_si256(), tiny_ne = ne, over = ne, snan = ne;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const simd::m256 x = simd::mm256_loadu_ps(in + i);
    __m128i h = simd::mm256_cvtps_ph<T::imm | _MM_FROUND_NO_EXC>(x);
    // 8 lanes' 32-bit masks as 16-bit masks (each is 0 or -1, so the signed saturation keeps them)
    const auto narrow_mask = [](simd::m256i m) LIBFLOAT_LAMBDA_AVX2 {
      return _mm_packs_epi32(simd::mm256_castsi256_si128(m), simd::mm256_extracti128_si256<1>(m));
    };
    if constexpr (M == rounding::odd) {  // the last bit set where truncation was inexact (NaNs compare unequal: not them)
      const simd::m256i inexact = simd::mm256_castps_si256(simd::mm256_cmp_ps<simd::cmp_neq_oq>(simd::mm256_cvtph_ps(h), x));
      h = _mm_or_si128(h, _mm_and_si128(narrow_mask(inexact), _mm_set1_epi16(1)));
    } else if constexpr (M == rounding::nearest_away) {
      const __m128i t = simd::mm256_cvtps_ph<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(x);
      const __m128i t1 = _mm_add_epi16(t, _mm_set1_epi16(1));  // the next magnitude
      // x - wt and wt1 - x are exact (Sterbenz); equal at a tie (NaNs and infinities: never)
      const simd::m256 wt = simd::mm256_cvtph_ps(t), wt1 = simd::mm256_cvtph_ps(t1);
      const simd::m256i tie = simd::mm256_castps_si256(simd::mm256_cmp_ps<simd::cmp_eq_oq>(simd::mm256_sub_ps(x, wt), simd::mm256_sub_ps(wt1, x)));
      const __m128i up = _mm_and_si128(narrow_mask(tie), _mm_cmpeq_epi16(h, t));
      h = _mm_blendv_epi8(h, t1, up);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
    const simd::m256i xb = simd::mm256_castps_si256(x);
    const simd::m256i a = simd::mm256_and_si256(xb, absmask);  // >= 0 as a signed integer: signed compares work
    // the lanes whose magnitude rounds away from zero (f16c_away_lanes): all ones there
    simd::m256i away = simd::mm256_setzero_si256();
    if constexpr (M == rounding::upward) away = simd::mm256_cmpgt_epi32(simd::mm256_setzero_si256(), simd::mm256_xor_si256(xb, simd::mm256_set1_epi32(-1)));
    else if constexpr (M == rounding::downward) away = simd::mm256_srai_epi32(xb, 31);
    const simd::m256i over_gt = simd::mm256_blendv_epi8(over_trunc, over_away, away);
    const simd::m256i tiny_lt = simd::mm256_blendv_epi8(tiny_trunc, tiny_away, away);
    const simd::m256i below_inf = simd::mm256_cmpgt_epi32(inf, a), above_inf = simd::mm256_cmpgt_epi32(a, inf);
    const simd::m256i same = simd::mm256_cmpeq_epi32(simd::mm256_castps_si256(simd::mm256_cvtph_ps(h)), xb);
    const simd::m256i d = simd::mm256_andnot_si256(same, below_inf);  // infinities widen back equal
    ne = simd::mm256_or_si256(ne, d);
    tiny_ne = simd::mm256_or_si256(tiny_ne, simd::mm256_and_si256(d, simd::mm256_cmpgt_epi32(tiny_lt, a)));
    over = simd::mm256_or_si256(over, simd::mm256_and_si256(below_inf, simd::mm256_cmpgt_epi32(a, over_gt)));
    snan = simd::mm256_or_si256(snan, simd::mm256_and_si256(above_inf, simd::mm256_cmpgt_epi32(qnan, a)));
  }
  std::uint32_t flags = f16_flags_from(!simd::mm256_testz_si256(ne, ne), !simd::mm256_testz_si256(tiny_ne, tiny_ne),
                                       !simd::mm256_testz_si256(over, over), !simd::mm256_testz_si256(snan, snan));
  for (; i < n; ++i) {  // the tail: the core's lane
    const auto r = narrow_lane<binary16, binary32, M>(std::bit_cast<std::uint32_t>(in[i]), 0, {}, flags);
    out[i] = fp16::from_bits(static_cast<std::uint16_t>(r));
  }
  return flags;
}

/// The complete flags of float -> binary16 in mode M over one block (see f16c_mode).
template <rounding M>
[[LIBFLOAT_TARGET_AVX512]] inline std::uint32_t f16_flags_avx512(const float* in, std::size_t n) {
  using T = f16c_mode<M>;
  const simd::m512i absmask = simd::mm512_set1_epi32(0x7FFFFFFF), inf = simd::mm512_set1_epi32(0x7F800000);
  const simd::m512i qnan = simd::mm512_set1_epi32(0x7FC00000);
  const simd::m512i over_trunc = simd::mm512_set1_epi32(static_cast<int>(T::over_trunc));
  const simd::m512i over_away = simd::mm512_set1_epi32(static_cast<int>(T::over_away));
  const simd::m512i tiny_trunc = simd::mm512_set1_epi32(static_cast<int>(T::tiny_trunc));
  const simd::m512i tiny_away = simd::mm512_set1_epi32(static_cast<int>(T::tiny_away));
  simd::mmask16 ne = 0, tiny_ne = 0, over = 0, snan = 0;
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    const simd::m512 x = simd::mm512_loadu_ps(in + i);
    // (VCVTPS2PH / VCVTPH2PS in their masked forms, with a full mask: simd has only those)
    const simd::m256i h = simd::mm512_mask_cvtps_ph<T::imm | _MM_FROUND_NO_EXC>(simd::mm256_setzero_si256(), 0xFFFF, x);
    const simd::m512i xb = simd::mm512_castps_si512(x);
    const simd::m512i a = simd::mm512_and_si512(xb, absmask);
    const simd::mmask16 away = f16c_away_lanes<M>(xb);
    const simd::m512i over_from = simd::mm512_mask_blend_epi32(away, over_trunc, over_away);
    const simd::m512i tiny_lt = simd::mm512_mask_blend_epi32(away, tiny_trunc, tiny_away);
    const simd::mmask16 below_inf = simd::mm512_cmplt_epu32_mask(a, inf), above_inf = simd::mm512_cmpgt_epu32_mask(a, inf);
    const simd::mmask16 d = simd::mm512_mask_cmpneq_epi32_mask(
        below_inf, simd::mm512_castps_si512(simd::mm512_mask_cvtph_ps(simd::mm512_setzero_ps(), 0xFFFF, h)), xb);
    ne = static_cast<simd::mmask16>(ne | d);
    tiny_ne = static_cast<simd::mmask16>(tiny_ne | simd::mm512_mask_cmplt_epu32_mask(d, a, tiny_lt));
    over = static_cast<simd::mmask16>(over | simd::mm512_mask_cmpge_epu32_mask(below_inf, a, over_from));
    snan = static_cast<simd::mmask16>(snan | simd::mm512_mask_cmplt_epu32_mask(above_inf, a, qnan));
  }
  return f16_flags_from(ne != 0, tiny_ne != 0, over != 0, snan != 0);
}

template <rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] std::uint32_t f16_f16c_avx512(const float* in, fp16* out, std::size_t n) {
  using T = f16c_mode<M>;
  const mxcsr_guard guard;
  std::uint32_t flags = 0;
  std::size_t b = 0;
  for (; b < n && (reinterpret_cast<std::uintptr_t>(in + b) & 63) != 0; ++b) {  // up to a cache line: no split loads
    const auto r = narrow_lane<binary16, binary32, M>(std::bit_cast<std::uint32_t>(in[b]), 0, {}, flags);
    out[b] = fp16::from_bits(static_cast<std::uint16_t>(r));
  }
  for (; b + 16 <= n; b += wide_block) {
    const std::size_t m = (n - b < wide_block ? n - b : wide_block) & ~std::size_t{15};
    const block_scan acc = scan_block_for(flags, false, 3, in, b, m, [out](std::size_t i, simd::m512i xb) LIBFLOAT_LAMBDA_AVX512 {
      const simd::m512 x = simd::mm512_castsi512_ps(xb);
      simd::m256i h = simd::mm512_mask_cvtps_ph<T::imm | _MM_FROUND_NO_EXC>(simd::mm256_setzero_si256(), 0xFFFF, x);
      if constexpr (M == rounding::odd) {  // the last bit set where truncation was inexact (NaNs compare unequal: not them)
        const simd::mmask16 inexact = simd::mm512_cmp_ps_mask<simd::cmp_neq_oq>(simd::mm512_mask_cvtph_ps(simd::mm512_setzero_ps(), 0xFFFF, h), x);
        h = simd::mm256_mask_mov_epi16(h, inexact, simd::mm256_or_si256(h, simd::mm256_set1_epi16(1)));
      } else if constexpr (M == rounding::nearest_away) {
        const simd::m256i t = simd::mm512_mask_cvtps_ph<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(simd::mm256_setzero_si256(), 0xFFFF, x);
        const simd::m256i t1 = simd::mm256_add_epi16(t, simd::mm256_set1_epi16(1));  // the next magnitude
        const simd::m512 wt = simd::mm512_mask_cvtph_ps(simd::mm512_setzero_ps(), 0xFFFF, t);
        const simd::m512 wt1 = simd::mm512_mask_cvtph_ps(simd::mm512_setzero_ps(), 0xFFFF, t1);
        // x - wt and wt1 - x are exact (Sterbenz); equal at a tie (NaNs and infinities: never)
        const simd::mmask16 tie = simd::mm512_cmp_ps_mask<simd::cmp_eq_oq>(simd::mm512_sub_ps(x, wt), simd::mm512_sub_ps(wt1, x));
        h = simd::mm256_mask_mov_epi16(h, static_cast<simd::mmask16>(tie & simd::mm256_cmpeq_epi16_mask(h, t)), t1);
      }
      simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i), h);
    });
    if (block_needs_full_avx512(acc.min_a1, acc.max_a, T::plain_lo, T::plain_hi, flags)) {
      flags |= f16_flags_avx512<M>(in + b, m);
    } else if (any_bits_avx512(acc.all_bits, 0x1FFFu)) {
      // plain lanes: inexact iff one of the 13 discarded bits is set (nearest even also takes
      // 2^-14 - 2^-26 <= |x| < 2^-14, where 14 bits are discarded and bit 12 is always set)
      flags |= to_bits(status::inexact);
    }
    if (m < wide_block) {
      b += m;
      break;
    }
  }
  for (; b < n; ++b) {  // the tail: the core's lane
    const auto r = narrow_lane<binary16, binary32, M>(std::bit_cast<std::uint32_t>(in[b]), 0, {}, flags);
    out[b] = fp16::from_bits(static_cast<std::uint16_t>(r));
  }
  return flags;
}

/// float -> bfloat16 nearest even on blocks, bf16_rne_loop (the core's lane: every case, complete
/// flags) redoing the blocks that need it. Without Hw: the bit trick (x + 0x7FFF + lsb) >> 16, which
/// lacks the NaN select, so blocks with a NaN are redone. With Hw (AVX512_BF16): VCVTNEPS2BF16,
/// which rounds to nearest even and quiets a NaN as the core does ((x >> 16) | 0x40), but reads
/// subnormal inputs as zero, so blocks with a nonzero |x| < 2^-126 are redone. It is issued
/// through inline assembly so that the function needs no avx512bf16 target (core/array.hpp calls it only
/// when the CPU has the instruction).
inline constexpr std::uint32_t bf16_tiny_below = 0x007FC000u;    // 2^-126 - 2^-135: tiny after rounding below
inline constexpr std::uint32_t bf16_overflow_from = 0x7F7F8000u;  // max + ulp/2: overflows from here

/// O = bf16: lf::convert; O = float: lf::quantize in one pass, the results widened (<< 16). When out
/// does not overlap in (always for bf16), the results are stored as the block is scanned and a
/// block that needs it is redone from in; when it does (quantize in place), each block is scanned
/// first and written after the decision (as bf16_blocks_avx2).
template <bool Hw, typename O>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] std::uint32_t bf16_rne_blocks_avx512(const float* in, O* out, std::size_t n) {
  static_assert(std::is_same_v<O, bf16> || std::is_same_v<O, float>);
  const auto ia = reinterpret_cast<std::uintptr_t>(in), oa = reinterpret_cast<std::uintptr_t>(out);
  const bool apart = std::is_same_v<O, bf16> || oa + n * sizeof(float) <= ia || ia + n * sizeof(float) <= oa;
  const simd::m512i one = simd::mm512_set1_epi32(1), round = simd::mm512_set1_epi32(0x7FFF);
  std::uint32_t flags = 0;
  std::size_t b = 0;
  while (b < n && (reinterpret_cast<std::uintptr_t>(in + b) & 63) != 0) ++b;  // up to a cache line: no split loads
  flags |= bf16_rne_loop(in, out, b);
  const auto convert = [&](std::size_t i, simd::m512i xb) LIBFLOAT_LAMBDA_AVX512 {  // [&]: some constants serve one mode only
    simd::m256i r;
    if constexpr (Hw) {
      __asm__("vcvtneps2bf16 %1, %0" : "=v"(r) : "v"(xb));
      if constexpr (std::is_same_v<O, float>) {
        simd::mm512_storeu_si512(out + i, simd::mm512_slli_epi32(simd::mm512_cvtepu16_epi32(r), 16));
        return;
      }
    } else {
      // (x + 0x7FFF + ((x >> 16) & 1)) >> 16: fast.hpp's f32_to_bf16_bits_rne for non-NaN x
      const simd::m512i sum = simd::mm512_add_epi32(simd::mm512_add_epi32(xb, round), simd::mm512_and_si512(simd::mm512_srli_epi32(xb, 16), one));
      if constexpr (std::is_same_v<O, float>) {
        simd::mm512_storeu_si512(out + i, simd::mm512_and_si512(sum, simd::mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
        return;
      }
      r = simd::mm512_cvtepi32_epi16(simd::mm512_srli_epi32(sum, 16));
    }
    simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i), r);
  };
  const auto scan_only = [](std::size_t, simd::m512i) LIBFLOAT_LAMBDA_AVX512 {};
  for (; b + 16 <= n; b += wide_block) {
    const std::size_t m = (n - b < wide_block ? n - b : wide_block) & ~std::size_t{15};
    // Hw needs the minimum (subnormal inputs) in every block; the trick needs the maximum (NaNs).
    const block_scan acc = apart ? scan_block_for(flags, !Hw, Hw ? 1 : 3, in, b, m, convert)
                                 : scan_block_for(flags, !Hw, Hw ? 1 : 3, in, b, m, scan_only);
    const bool redo = Hw ? simd::mm512_reduce_min_epu32(acc.min_a1) < 0x007FFFFFu   // a nonzero subnormal input
                         : simd::mm512_reduce_max_epu32(acc.max_a) > 0x7F800000u;   // a NaN
    if (redo || block_needs_full_avx512(acc.min_a1, acc.max_a, bf16_tiny_below, bf16_overflow_from, flags)) {
      flags |= bf16_rne_loop(in + b, out + b, m);  // rewrites the block (in is intact: not yet written, or apart)
    } else {
      if (!apart) scan_block<3>(in, b, m, convert);
      if (any_bits_avx512(acc.all_bits, 0xFFFFu)) flags |= to_bits(status::inexact);
    }
    if (m < wide_block) {
      b += m;
      break;
    }
  }
  return flags | bf16_rne_loop(in + b, out + b, n - b);
}

/// The AVX2 float -> bfloat16 block kernel, in nearest even (the AVX2 form of
/// bf16_rne_blocks_avx512<false>) or stochastic rounding, default policy. On every lane that is not
/// a NaN the result is integer arithmetic on the float encoding, (x + inc) >> 16, a carry out of the
/// kept bits running into the exponent as it should (up to infinity on overflow: both modes round
/// an overflowing value to infinity under the default policy, and an infinity stays one):
///   - nearest even: inc = 0x7FFF + ((x >> 16) & 1) (fast.hpp's f32_to_bf16_bits_rne);
///   - stochastic: the lane (array_lane.hpp) rounds up iff random < D, D the 16 discarded bits d
///     followed by 16 zeros; that is d > (random >> 16), i.e. d + ((~random) >> 16) carries, so
///     inc = (~random) >> 16, with random = stochastic_mix(idx0 + i, key) as the lane's.
/// bfloat16 has binary32's exponent range, so the 16 discarded bits are the same for subnormal
/// inputs (bfloat16's subnormal quantum is 2^16 binary32 quanta) and the results of tiny lanes are
/// right too. What the block decides is the flags: a block with a NaN (the trick lacks the NaN
/// select) or with a lane that could raise a flag not raised yet (block_needs_full: a nonzero
/// |x| below tiny_below, or |x| >= overflow_from) is redone by the core's lane (bf16_lane_loop);
/// a plain block raises inexact iff one of the 16 discarded bits is set in some input.
template <rounding M>
struct bf16_avx2_mode {
  static_assert(M == rounding::nearest_even || M == rounding::stochastic);
  // nearest even: tiny after rounding below 2^-126 - 2^-135; overflows from max + ulp/2.
  // stochastic: any nonzero |x| < 2^-126 may round to a tiny result; anything above max may
  // round up to infinity.
  static constexpr std::uint32_t tiny_below = M == rounding::nearest_even ? bf16_tiny_below : 0x00800000u;
  static constexpr std::uint32_t overflow_from = M == rounding::nearest_even ? bf16_overflow_from : 0x7F7F0001u;
};

/// Element i of in[0, n) (index idx0 + i of the stochastic stream `key`) through the core's lane,
/// results and complete flags; O = float: widened (<< 16), what lf::quantize writes.
template <rounding M, typename O>
LIBFLOAT_INLINE std::uint32_t bf16_lane_loop(const float* in, O* out, std::size_t n, std::uint64_t key,
                                             std::uint32_t idx0) {
  if constexpr (M == rounding::nearest_even) {
    return bf16_rne_loop(in, out, n);
  } else {
    std::uint32_t flags = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t rnd = stochastic_mix(idx0 + static_cast<std::uint32_t>(i), key);
      const auto r = narrow_lane<bfloat16, binary32, M>(std::bit_cast<std::uint32_t>(in[i]), rnd, lane_policy{}, flags);
      if constexpr (std::is_same_v<O, float>) out[i] = std::bit_cast<float>(r << 16);
      else out[i] = bf16::from_bits(static_cast<std::uint16_t>(r));
    }
    return flags;
  }
}

/// One block of bf16_blocks_avx2, 16 lanes at a time (two vectors of 8), with the accumulators of
/// scan_level beside it. O = bf16: the results packed to 16 bits; O = float: widened (<< 16);
/// O = void: nothing stored (the accumulators only).
template <rounding M, int L, typename O>
[[gnu::always_inline, LIBFLOAT_TARGET_AVX2]] inline void bf16_trick_block_avx2(const float* in, O* out, std::size_t b,
                                                                             std::size_t m, simd::m256i& min_a1,
                                                                             simd::m256i& max_a, simd::m256i& all_bits,
                                                                             std::uint64_t key, std::uint32_t idx0) {
  const simd::m256i one = simd::mm256_set1_epi32(1), round = simd::mm256_set1_epi32(0x7FFF);
  const simd::m256i absmask = simd::mm256_set1_epi32(0x7FFFFFFF);
  const simd::m256i key_lo = simd::mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(key)));
  const simd::m256i key_hi = simd::mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(key >> 32)));
  const simd::m256i mul1 = simd::mm256_set1_epi32(0x21F0AAAD), mul2 = simd::mm256_set1_epi32(0x735A2D97);
  const simd::m256i steps = simd::mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // stochastic_mix (array_lane.hpp) on 8 consecutive indices from `first`
  const auto mix8 = [&](std::uint32_t first) LIBFLOAT_LAMBDA_AVX2 {
    simd::m256i x = simd::mm256_xor_si256(simd::mm256_add_epi32(simd::mm256_set1_epi32(static_cast<int>(first)), steps), key_lo);
    x = simd::mm256_mullo_epi32(simd::mm256_xor_si256(x, simd::mm256_srli_epi32(x, 16)), mul1);
    x = simd::mm256_add_epi32(simd::mm256_xor_si256(x, simd::mm256_srli_epi32(x, 15)), key_hi);
    x = simd::mm256_mullo_epi32(x, mul2);
    return simd::mm256_xor_si256(x, simd::mm256_srli_epi32(x, 15));
  };
  const auto rounded = [&](simd::m256i x, std::size_t i) LIBFLOAT_LAMBDA_AVX2 {
    simd::m256i inc;
    if constexpr (M == rounding::nearest_even) {
      inc = simd::mm256_add_epi32(round, simd::mm256_and_si256(simd::mm256_srli_epi32(x, 16), one));
    } else {
      inc = simd::mm256_srli_epi32(simd::mm256_xor_si256(mix8(idx0 + static_cast<std::uint32_t>(i)), simd::mm256_set1_epi32(-1)), 16);
    }
    // at most 0xFFFF for non-NaN x, so the unsigned-saturating pack below keeps it
    return simd::mm256_srli_epi32(simd::mm256_add_epi32(x, inc), 16);
  };
  for (std::size_t i = b; i < b + m; i += 16) {
    const simd::m256i x0 = simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(in + i));
    const simd::m256i x1 = simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(in + i + 8));
    if constexpr (!std::is_void_v<O>) {
      const simd::m256i r0 = rounded(x0, i), r1 = rounded(x1, i + 8);
      if constexpr (std::is_same_v<O, bf16>) {  // the pack interleaves 128-bit halves, the permutation restores the order
        simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i), simd::mm256_permute4x64_epi64<0xD8>(simd::mm256_packus_epi32(r0, r1)));
      } else {
        simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i), simd::mm256_slli_epi32(r0, 16));
        simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i + 8), simd::mm256_slli_epi32(r1, 16));
      }
    }
    if constexpr (L <= 2) {
      const simd::m256i a0 = simd::mm256_and_si256(x0, absmask), a1 = simd::mm256_and_si256(x1, absmask);
      max_a = simd::mm256_max_epu32(max_a, simd::mm256_max_epu32(a0, a1));
      if constexpr (L <= 1)
        min_a1 = simd::mm256_min_epu32(min_a1, simd::mm256_min_epu32(simd::mm256_sub_epi32(a0, one), simd::mm256_sub_epi32(a1, one)));
    }
    if constexpr (L == 0) all_bits = simd::mm256_or_si256(all_bits, simd::mm256_or_si256(x0, x1));
  }
}
[[gnu::always_inline, LIBFLOAT_TARGET_AVX2]] inline std::uint32_t reduce_min_epu32_avx2(simd::m256i v) {
  __m128i h = _mm_min_epu32(simd::mm256_castsi256_si128(v), simd::mm256_extracti128_si256<1>(v));
  h = _mm_min_epu32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_min_epu32(h, _mm_shuffle_epi32(h, 0xB1));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(h));
}
[[gnu::always_inline, LIBFLOAT_TARGET_AVX2]] inline std::uint32_t reduce_max_epu32_avx2(simd::m256i v) {
  __m128i h = _mm_max_epu32(simd::mm256_castsi256_si128(v), simd::mm256_extracti128_si256<1>(v));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xB1));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(h));
}

/// float -> bfloat16 in nearest even or stochastic rounding, default policy, with AVX2, on blocks
/// (bf16_trick_block_avx2). O = bf16: lf::convert. O = float: lf::quantize in one pass (the widening
/// is the shift). Element i takes the random bits stochastic_mix(idx0 + i, key) (the caller splits
/// spans at multiples of 2^32). When out does not overlap in (always for bf16), the results are
/// stored as the block is scanned and a block that needs it is redone from in. When it does
/// (quantize in place), each block is decided before anything is written (the accumulators from a
/// first read of the block, which then sits in L1), then the trick's results written, or the lane's
/// for a block that needs it.
template <rounding M, typename O>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] std::uint32_t bf16_blocks_avx2(const float* in, O* out, std::size_t n,
                                                                       std::uint64_t key = 0, std::uint32_t idx0 = 0) {
  static_assert(std::is_same_v<O, bf16> || std::is_same_v<O, float>);
  using mode = bf16_avx2_mode<M>;
  const auto ia = reinterpret_cast<std::uintptr_t>(in), oa = reinterpret_cast<std::uintptr_t>(out);
  const bool apart = std::is_same_v<O, bf16> || oa + n * sizeof(float) <= ia || ia + n * sizeof(float) <= oa;
  std::uint32_t flags = 0;
  std::size_t b = 0;
  while (b < n && (reinterpret_cast<std::uintptr_t>(in + b) & 63) != 0) ++b;  // up to a cache line: no split loads
  flags |= bf16_lane_loop<M>(in, out, b, key, idx0);
  for (; b + 16 <= n; b += wide_block) {
    const std::size_t m = (n - b < wide_block ? n - b : wide_block) & ~std::size_t{15};
    simd::m256i min_a1 = simd::mm256_set1_epi32(-1), max_a = simd::mm256_setzero_si256(), all_bits = simd::mm256_setzero_si256();
    const auto scan = [&]<typename W>(W* dst) LIBFLOAT_LAMBDA_AVX2 {
      switch (scan_level(flags, true)) {  // at most level 2: the maximum finds the NaNs
        case 0: return bf16_trick_block_avx2<M, 0>(in, dst, b, m, min_a1, max_a, all_bits, key, idx0);
        case 1: return bf16_trick_block_avx2<M, 1>(in, dst, b, m, min_a1, max_a, all_bits, key, idx0);
        default: return bf16_trick_block_avx2<M, 2>(in, dst, b, m, min_a1, max_a, all_bits, key, idx0);
      }
    };
    if (apart) scan(out);
    else scan(static_cast<void*>(nullptr));
    const std::uint32_t mx = reduce_max_epu32_avx2(max_a);
    if (mx > 0x7F800000u ||
        block_needs_full(reduce_min_epu32_avx2(min_a1), mx, mode::tiny_below, mode::overflow_from, flags)) {
      // in is intact: not yet written, or apart from out
      flags |= bf16_lane_loop<M>(in + b, out + b, m, key, idx0 + static_cast<std::uint32_t>(b));
    } else {
      if (!apart) bf16_trick_block_avx2<M, 3>(in, out, b, m, min_a1, max_a, all_bits, key, idx0);
      if (!simd::mm256_testz_si256(all_bits, simd::mm256_set1_epi32(0xFFFF))) flags |= to_bits(status::inexact);
    }
    if (m < wide_block) {
      b += m;
      break;
    }
  }
  return flags | bf16_lane_loop<M>(in + b, out + b, n - b, key, idx0 + static_cast<std::uint32_t>(b));
}

/// The rounding modes narrow_trick_avx512 takes (nearest even has the kernels above).
constexpr bool trick_mode(rounding m) {
  return m == rounding::toward_zero || m == rounding::upward || m == rounding::downward ||
         m == rounding::nearest_away || m == rounding::odd;
}

/// float -> bfloat16 (or binary16) in a directed mode, nearest-away or odd, default policy. On a
/// block whose nonzero lanes all have normal results, lo <= |x| <= hi (hi: F's largest finite
/// value, so nothing overflows; no NaN or infinity), the result is integer arithmetic on the float
/// encoding: rebias the exponent, add the mode's increment below the kept bits (away from zero:
/// all ones; nearest-away: half), shift (a carry out of the fraction runs into the exponent, as it
/// should), then odd sets the last bit when a discarded bit is set; zeros keep their sign. The only
/// flag there is inexact (a discarded bit set). Any other block is redone by the core's lane
/// (narrow_loop), results and flags. core/array.hpp uses it for bfloat16, whose normal range is
/// binary32's; for binary16 data with values in its subnormal range almost every block would be
/// redone (the directed modes use F16C instead, f16_f16c_avx512).
template <format F, rounding M>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] std::uint32_t narrow_trick_avx512(const float* in, fp<F>* out, std::size_t n) {
  static_assert((F == binary16 || F == bfloat16) && trick_mode(M));
  constexpr bool half = F == binary16;
  constexpr int shift = half ? 13 : 16;                             // float fraction bits dropped
  constexpr std::uint32_t discarded = (1u << shift) - 1;
  constexpr std::uint32_t rebias = half ? 0x38000000u : 0u;          // (127 - 15) << 23 for binary16
  constexpr std::uint32_t lo = half ? 0x38800000u : 0x00800000u;     // F's smallest normal, 2^-14 / 2^-126
  constexpr std::uint32_t hi = half ? 0x477FE000u : 0x7F7F0000u;     // F's largest finite, 65504 / ~3.39e38
  const simd::m512i absmask = simd::mm512_set1_epi32(0x7FFFFFFF), one = simd::mm512_set1_epi32(1);
  const simd::m512i vrebias = simd::mm512_set1_epi32(static_cast<int>(rebias)), vdisc = simd::mm512_set1_epi32(static_cast<int>(discarded));
  const simd::m512i vhalf = simd::mm512_set1_epi32(static_cast<int>(1u << (shift - 1))), signbit = simd::mm512_set1_epi32(0x8000);
  std::uint32_t flags = 0;
  std::size_t b = 0;
  while (b < n && (reinterpret_cast<std::uintptr_t>(in + b) & 63) != 0) ++b;  // up to a cache line: no split loads
  flags |= narrow_loop<F, binary32, M, true>(in, out, b, lane_policy{}, 0, 0);
  const auto convert = [&](std::size_t i, simd::m512i xb) LIBFLOAT_LAMBDA_AVX512 {  // [&]: some constants serve one mode only
    const simd::m512i a = simd::mm512_and_si512(xb, absmask);
    const simd::mmask16 negative = simd::mm512_movepi32_mask(xb);
    simd::m512i inc;
    if constexpr (M == rounding::toward_zero || M == rounding::odd) inc = simd::mm512_setzero_si512();
    else if constexpr (M == rounding::nearest_away) inc = vhalf;
    else if constexpr (M == rounding::upward) inc = simd::mm512_maskz_mov_epi32(static_cast<simd::mmask16>(~negative), vdisc);
    else inc = simd::mm512_maskz_mov_epi32(negative, vdisc);
    simd::m512i r = simd::mm512_srli_epi32(simd::mm512_add_epi32(simd::mm512_sub_epi32(a, vrebias), inc), shift);
    if constexpr (M == rounding::odd) r = simd::mm512_mask_or_epi32(r, simd::mm512_test_epi32_mask(a, vdisc), r, one);
    r = simd::mm512_maskz_mov_epi32(simd::mm512_test_epi32_mask(a, a), r);  // zeros: +-0
    r = simd::mm512_or_si512(r, simd::mm512_and_si512(simd::mm512_srli_epi32(xb, 16), signbit));
    simd::mm256_storeu_si256(reinterpret_cast<simd::m256i*>(out + i), simd::mm512_cvtepi32_epi16(r));
  };
  for (; b + 16 <= n; b += wide_block) {
    const std::size_t m = (n - b < wide_block ? n - b : wide_block) & ~std::size_t{15};
    // Out-of-range lanes make the block wrong, not only its flags: minimum and maximum always.
    const block_scan acc = scan_block_for(flags, true, 1, in, b, m, convert);
    const simd::m512i min_a1 = acc.min_a1, max_a = acc.max_a, all_bits = acc.all_bits;
    if (simd::mm512_reduce_min_epu32(min_a1) < lo - 1 || simd::mm512_reduce_max_epu32(max_a) > hi) {
      flags |= narrow_loop<F, binary32, M, true>(in + b, out + b, m, lane_policy{}, 0, 0);  // rewrites the block
    } else if (any_bits_avx512(all_bits, discarded)) {
      flags |= to_bits(status::inexact);
    }
    if (m < wide_block) {
      b += m;
      break;
    }
  }
  return flags | narrow_loop<F, binary32, M, true>(in + b, out + b, n - b, lane_policy{}, 0, 0);
}

/// binary16 -> float with VCVTPH2PS (exact; quiets signaling NaNs, as lf::convert does). Returns
/// invalid when a signaling NaN was read.
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] inline std::uint32_t f16_widen_f16c_avx2(const fp16* in, float* out,
                                                                                 std::size_t n) {
  const mxcsr_guard guard;
  std::size_t i = 0;
  __m128i snan = _mm_setzero_si128();
  const __m128i absmask = _mm_set1_epi16(0x7FFF);
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    simd::mm256_storeu_ps(out + i, simd::mm256_cvtph_ps(h));
    // signaling: 0x7C00 < |h| < 0x7E00 (as signed 16-bit compares: all values are positive)
    const __m128i a = _mm_and_si128(h, absmask);
    snan = _mm_or_si128(snan, _mm_and_si128(_mm_cmpgt_epi16(a, _mm_set1_epi16(0x7C00)),
                                            _mm_cmplt_epi16(a, _mm_set1_epi16(0x7E00))));
  }
  std::uint32_t flags = _mm_testz_si128(snan, snan) ? 0u : to_bits(status::invalid);
  for (; i < n; ++i) {
    const std::uint16_t h = in[i].bits();
    const std::uint16_t a = h & 0x7FFFu;
    if (a > 0x7C00u && a < 0x7E00u) flags |= to_bits(status::invalid);
    out[i] = std::bit_cast<float>(f16_to_f32_bits(h));
  }
  return flags;
}
#endif  // LIBFLOAT_ARRAY_X86

// ---- widening -----------------------------------------------------------------------------------

/// Every encoding of an 8-bit format widened to binary32 by the core (exact), and whether it is a
/// signaling NaN (lf::convert raises invalid for those).
template <format F>
  requires(F.bits() <= 8)
struct widen_table {
  std::array<std::uint32_t, 256> bits{};
  std::array<std::uint8_t, 256> flags{};
  constexpr widen_table() {
    for (std::uint32_t i = 0; i < (1u << F.bits()); ++i) {
      status st{};
      bits[i] = static_cast<std::uint32_t>(convert(binary32, F, i, env{}, st));
      flags[i] = to_bits(st);
    }
  }
};
template <format F>
inline constexpr widen_table<F> widen_table_v{};

/// fp<F> -> float for formats inside binary32, exact. Returns the flags lf::convert raises
/// (invalid for a signaling NaN).
template <format F>
inline std::uint32_t widen_loop(const fp<F>* in, float* out, std::size_t n) {
  std::uint32_t flags = 0;
  if constexpr (F.bits() <= 8) {
    const auto& t = widen_table_v<F>;
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = std::bit_cast<float>(t.bits[in[i].bits()]);
      flags |= t.flags[in[i].bits()];
    }
  } else if constexpr (F == binary16 || F == bfloat16 || F == tfloat32 || F == binary32) {
    constexpr std::uint32_t shift = 23 - F.fraction_bits();  // binary32 layout, low bits zero
    for (std::size_t i = 0; i < n; ++i) {
      const auto h = in[i].bits();
      std::uint32_t w;
      if constexpr (F == binary16) w = f16_to_f32_bits(h);  // quiets NaNs itself
      else w = static_cast<std::uint32_t>(h) << shift;
      const std::uint32_t a = w & 0x7FFFFFFFu;
      w = a > 0x7F800000u ? w | 0x00400000u : w;  // a NaN comes out quiet
      flags |= is_snan_bits(F, h) ? to_bits(status::invalid) : 0u;
      out[i] = std::bit_cast<float>(w);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      status st{};
      out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(convert(binary32, F, in[i].bits(), env{}, st)));
      flags |= to_bits(st);
    }
  }
  return flags;
}

}  // namespace detail
}  // namespace lf
