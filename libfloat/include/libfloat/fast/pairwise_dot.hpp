// libfloat/fast/pairwise_dot.hpp: the hardware path of the pairwise_tree matrix-unit model (AMD
// CDNA1 as MMA-Sim models it, CDNA2: lf::matrix_units::cdna1_pairwise_fp16, cdna1_pairwise_bf16,
// cdna2_fp16, cdna2_bf16) with binary16 or bfloat16 inputs (both the same), binary32 output,
// nearest even, blocks of 2, 4 or 8 products, input and output subnormals kept or flushed.
// models/matrix_unit.hpp calls it for such a unit; it is an optimisation only, and it declines
// (returns false) whenever it could differ from the general path (detail::pairwise_block), which
// then runs.
//
// Proof (its domain cannot be enumerated): ctest test pairwise_fast, label quick
// (tests/fast/test_pairwise_fast.cpp), compares it and the public entries that reach it (typed and
// run-time lf::dot) with a chain of detail::pairwise_block calls, bits and flags, on random and
// edge data: every kind of encoding, subnormal inputs, products that are binary32 subnormals or
// overflow (bfloat16), sums that cancel exactly, cross into the subnormals or overflow, zeros of
// both signs, every start value kind, every block size it takes, lengths around the block sizes,
// each flush setting; and the caller MXCSR states on which it must decline. It runs all of that
// once per build of the kernel (10 below), each forced with lf::set_array_dispatch.
//
// Why binary32 hardware arithmetic gives the model's bits (the model: matrix_unit.hpp, pairwise_tree):
//  1. The operands are binary32 values: a binary16 value is one (11 significant bits, exponents
//     -24..15); a bfloat16 encoding is the top half of the binary32 encoding of the same value.
//     An input subnormal in its own format that the unit flushes is replaced by +0 first, in
//     integer arithmetic, as the model does.
//  2. Each product is one binary32 multiplication rounded to nearest even, what the model's
//     lf::mul(binary32, ...) computes; each tree node and d = c + tree one binary32 addition. The
//     hardware's IEEE 754 operations under MXCSR round-to-nearest, FTZ and DAZ off give the
//     correctly rounded result, subnormals included, and the sign of an exact zero of §6.3.
//     (For binary16 the products are exact: at most 22 significant bits, magnitudes in
//     [2^-48, 2^32).)
//  3. The flush of the unit's outputs is done here in integer arithmetic after each rounding, as
//     the model's pairwise_flush does: a subnormal binary32 result becomes a zero of its sign, and
//     underflow and inexact are raised. Not MXCSR's FTZ: it flushes on tininess (judged before the
//     value meets the subnormal grid), which differs for values that round up to 2^-126.
//  4. The leaves past the end of a short last block are +0 in the model (a subtree of them is +0);
//     here they are +0 products, and +0 + +0 = +0 raises nothing, so the tree is the same.
//  5. Flags. The sticky flags are cleared before the first product and read after the last add:
//     PE (inexact), UE (underflow: tininess after rounding, with underflow masked only when also
//     inexact: IEEE's default and the library's default policy), OE (overflow), IE (invalid: an
//     infinity minus an infinity, when bfloat16 products overflow). The model's rounding steps raise
//     the same ones. A flush raises underflow and inexact besides. DE, the denormal-operand flag, is
//     not an IEEE flag and is not read. The caller's MXCSR is written back after.
//  6. NaN. With finite operands the only NaN is that of an infinity minus an infinity, which on
//     x86 SSE is 0xFFC00000, the library's default NaN for binary32 (the model's replacement of a
//     NaN block result); later additions pass it on unchanged and raise nothing (a quiet NaN).
//  7. Order. The flags are cleared, then a compiler barrier with a memory clobber: the operand loads
//     and so every product come after it. The accumulator passes through an empty `asm volatile`
//     before the flags are read, and it depends on every product.
//  8. No other multiplication. The compiler's vectoriser may compute lanes that the source does not
//     (GCC 12 at -O3 formed the remainder of a loop over m products from vectors part of whose
//     lanes held the operands before their input flush, so a flushed bfloat16 subnormal times a
//     normal raised underflow and inexact in MXCSR although every stored product was right). So
//     the products are formed in loops of exactly 16, the last 16 from a copy of the remaining
//     encodings padded with +0: no remainder, and a padding lane's +0 * +0 raises nothing.
//  9. No other addition. Left to the vectoriser, the blocks' trees were computed two blocks at a
//     time at -O3 with vector adds whose spare lanes added leaves the model never adds, and
//     MXCSR reported inexact (binary16, blocks of 8, n = 15, exact cancellation). So the trees are
//     written with SSE2 intrinsics: four blocks per vector, lane k holding block k, every lane a
//     block of the model or, past the last block, a block of +0 leaves, whose additions raise
//     nothing and whose sums are not added to the accumulator.
// 10. Two builds of the same code (pairwise_f32_body): with the program's own instruction set, and
//     with AVX2 (pairwise_f32_kernel_avx2), which lf::array_dispatch_in_use() (fast/cpu_dispatch.hpp)
//     chooses on a CPU that has it, as the span kernels do. The source is the same, so the
//     arguments above hold for both; AVX2 only lets the compiler form the 16 products of a group
//     in two 8-lane vectors instead of four 4-lane ones (the products loop was about two thirds of
//     the time), and the VEX forms of the same SSE operations round and flag the same way under the
//     same MXCSR.
//
// It declines when:
//  - not x86-64 with SSE arithmetic for float, or built with -ffast-math (dot_fast_built false);
//  - the caller's MXCSR is not round-to-nearest with FTZ and DAZ off and every exception masked;
//  - c, or any a_i or b_i, is an infinity or a NaN (the work done is discarded); n is 0;
//  - the block size is not 2, 4 or 8, the formats are other than above, or the unit flushes
//    its inputs but not its outputs or the reverse (no preset does).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>
#include <libfloat/fast/dot.hpp>

#if defined(LIBFLOAT_DOT_FAST_X86)
#include <emmintrin.h>  // SSE2 (x86-64's baseline): the four-block trees (file comment, 9)
#endif

namespace lf::detail {

/// The formats the pairwise hardware path reads (file comment, 1).
constexpr bool pairwise_fast_input(const format& f) { return f == binary16 || f == bfloat16; }

/// The block sizes it unrolls.
constexpr bool pairwise_fast_block(int n) { return n == 2 || n == 4 || n == 8; }

/// Whether the binary32 encoding b is a subnormal: its magnitude in [1, 2^23 - 1] (one compare, so
/// that the products' loop vectorises).
constexpr bool binary32_subnormal_bits(std::uint32_t b) { return ((b & 0x7FFFFFFFu) - 1u) < 0x007FFFFFu; }

#if defined(LIBFLOAT_DOT_FAST_X86)
/// x replaced by a zero of its sign when it is a binary32 subnormal (file comment, 3); `flushed`
/// notes it. The branch is almost never taken, so it stays off the chain's dependencies.
template <bool FLUSH>
[[gnu::always_inline]] inline float pairwise_fast_flush(float x, bool& flushed) {
  if constexpr (FLUSH) {
    const auto b = std::bit_cast<std::uint32_t>(x);
    if (binary32_subnormal_bits(b)) [[unlikely]] {
      flushed = true;
      return std::bit_cast<float>(b & 0x80000000u);
    }
  }
  return x;
}

/// x with each lane that is a binary32 subnormal replaced by a zero of its sign (file comment, 3);
/// `flagged` collects those lanes (all ones). Integer compares: 0 < |x| < 2^-126 as bits.
template <bool FLUSH>
[[gnu::always_inline]] inline __m128 pairwise_fast_flush4(__m128 x, __m128i& flagged) {
  if constexpr (FLUSH) {
    const __m128i b = _mm_castps_si128(x), magnitude_bits = _mm_set1_epi32(0x7FFFFFFF);
    const __m128i mag = _mm_and_si128(b, magnitude_bits);  // (non-negative as a signed integer)
    const __m128i sub = _mm_andnot_si128(_mm_cmpeq_epi32(mag, _mm_setzero_si128()),
                                         _mm_cmplt_epi32(mag, _mm_set1_epi32(0x00800000)));
    flagged = _mm_or_si128(flagged, sub);
    return _mm_castsi128_ps(_mm_andnot_si128(_mm_and_si128(sub, magnitude_bits), b));
  } else {
    (void)flagged;
    return x;
  }
}

/// The trees over leaves [LO, HI) of four blocks at once, lane k holding block k's (halves split at
/// floor(len / 2), as the model's); L[i] = leaf i of the four blocks.
template <int LO, int HI, bool FLUSH>
[[gnu::always_inline]] inline __m128 pairwise_fast_tree4(const __m128* L, __m128i& flagged) {
  if constexpr (HI - LO == 1) {
    return L[LO];
  } else {
    constexpr int mid = LO + (HI - LO) / 2;
    const __m128 l = pairwise_fast_tree4<LO, mid, FLUSH>(L, flagged);
    const __m128 r = pairwise_fast_tree4<mid, HI, FLUSH>(L, flagged);
    return pairwise_fast_flush4<FLUSH>(_mm_add_ps(l, r), flagged);
  }
}

/// The block sums of the four consecutive blocks of N leaves at p (4N floats, 16-byte aligned),
/// lane k = block k (file comment, 9): the leaves transposed so that each vector holds one leaf
/// position of the four blocks, then the tree on whole vectors.
template <int N, bool FLUSH>
[[gnu::always_inline]] inline __m128 pairwise_fast_blocks4(const float* p, __m128i& flagged) {
  __m128 L[N];
  if constexpr (N == 2) {
    const __m128 v0 = _mm_load_ps(p), v1 = _mm_load_ps(p + 4);  // b0l0 b0l1 b1l0 b1l1, b2l0 ...
    L[0] = _mm_shuffle_ps(v0, v1, _MM_SHUFFLE(2, 0, 2, 0));
    L[1] = _mm_shuffle_ps(v0, v1, _MM_SHUFFLE(3, 1, 3, 1));
  } else {
    for (int h = 0; h < N; h += 4) {  // leaves h..h+3 of blocks 0..3
      __m128 r0 = _mm_load_ps(p + h), r1 = _mm_load_ps(p + N + h), r2 = _mm_load_ps(p + 2 * N + h),
             r3 = _mm_load_ps(p + 3 * N + h);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      L[h] = r0, L[h + 1] = r1, L[h + 2] = r2, L[h + 3] = r3;
    }
  }
  return pairwise_fast_tree4<0, N, FLUSH>(L, flagged);
}
#endif

/// The kernel for input format F, block size N, input flush DAZ, output flush FTZ: see
/// pairwise_f32_nearest. Inlined into two functions (file comment, 10): pairwise_f32_kernel (the
/// program's own instruction set) and pairwise_f32_kernel_avx2.
template <format F, int N, bool DAZ, bool FTZ, class A, class B>
[[gnu::always_inline]] inline bool pairwise_f32_body(A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out,
                                                     status& st) {
#if defined(LIBFLOAT_DOT_FAST_X86)
  static_assert(pairwise_fast_input(F) && pairwise_fast_block(N));
  constexpr bool half = F == binary16;
  constexpr std::uint32_t mag_mask = 0x7FFFu, min_normal = half ? 0x0400u : 0x0080u;
  constexpr std::uint32_t exp_mask = half ? 0x7C00u : 0x7F80u;
  // Products per pass: a multiple of N; formed first (independent, vectorised), then the blocks.
  // They are formed in whole groups of `group`, the last one from a copy of the remaining encodings
  // padded with +0 (file comment, 8), so that no vectorised loop has a remainder.
  constexpr std::size_t chunk = 64, group = 16;
  static_assert(chunk % (4 * N) == 0 && chunk % group == 0);
  if (n == 0 || (c & 0x7F800000u) == 0x7F800000u) return false;  // (c infinite or NaN)
  const unsigned caller = _mm_getcsr();
  if ((caller & 0xFFC0u) != 0x1F80u) return false;  // not: nearest, every exception masked, no DAZ/FTZ
  bool flushed = false;
  if (FTZ && binary32_subnormal_bits(c)) c = 0;  // a subnormal c reads as +0, no flag
  alignas(64) float p[chunk];  // (the last groups end at m rounded up to a multiple of group or 4N <= chunk)
  std::uint32_t nonfinite = 0;
  float acc = std::bit_cast<float>(c);
  _mm_setcsr(caller & ~0x3Fu);
  __asm__ volatile("" : "+x"(acc) : : "memory");  // every load, product and add after the clear
  for (std::size_t i0 = 0; i0 < n; i0 += chunk) {
    const std::size_t m = n - i0 < chunk ? n - i0 : chunk;
    std::uint32_t tiny = 0;  // FTZ: some product is a binary32 subnormal
    // The products of `group` operand pairs from ga(j0), gb(j0) on, into out (a constant trip count:
    // whole vectors).
    auto form = [&](const auto& ga, const auto& gb, std::size_t j0, float* out) __attribute__((always_inline)) {
      for (std::size_t i = 0; i < group; ++i) {
        auto x = static_cast<std::uint32_t>(ga(j0 + i)) & 0xFFFFu, y = static_cast<std::uint32_t>(gb(j0 + i)) & 0xFFFFu;
        // Bit 15 of (x & exp_mask) + min_normal is set exactly when the exponent field is all ones
        // (an infinity or a NaN); integer adds and ORs, so that the loop vectorises.
        nonfinite |= ((x & exp_mask) + min_normal) | ((y & exp_mask) + min_normal);
        if constexpr (DAZ) {  // a subnormal of F reads as +0 (a zero keeps its sign)
          // (x & mag_mask) - 1 < min_normal - 1: a nonzero magnitude below the smallest normal; the
          // result is a mask, so that the loop vectorises.
          x &= 0u - static_cast<std::uint32_t>((x & mag_mask) - 1u >= min_normal - 1u);
          y &= 0u - static_cast<std::uint32_t>((y & mag_mask) - 1u >= min_normal - 1u);
        }
        float fx, fy;
        if constexpr (half) {
          fx = dot_fast_magnitude<binary16>(x);
          fy = dot_fast_magnitude<binary16>(y);
        } else {
          fx = std::bit_cast<float>(x << 16);
          fy = std::bit_cast<float>(y << 16);
        }
        std::uint32_t q = std::bit_cast<std::uint32_t>(fx * fy);
        if constexpr (half) q |= ((x ^ y) & 0x8000u) << 16;  // (the magnitudes' product is exact)
        if constexpr (FTZ && !half) {  // (a binary16 product is never a binary32 subnormal)
          const std::uint32_t sub = binary32_subnormal_bits(q);
          tiny |= sub;
          q &= (sub - 1u) | 0x80000000u;  // (a mask, as above: the sign alone when subnormal)
        }
        out[i] = std::bit_cast<float>(q);
      }
    };
    dot_fast_groups<group>(a, b, i0, m, p, form);
    flushed = flushed || tiny != 0;
    // The leaves past m, up to whole groups of four blocks, are +0: a short block's missing leaves
    // (file comment, 4) and the blocks of the last group that do not exist, whose sums are not used.
    const std::size_t blocks = (m + N - 1) / N;
    for (std::size_t i = m; i < (blocks + 3) / 4 * (4 * N); ++i) p[i] = 0.0f;
    __m128i flagged = _mm_setzero_si128();
    for (std::size_t j = 0; j < blocks; j += 4) {
      alignas(16) float t[4];
      _mm_store_ps(t, pairwise_fast_blocks4<N, FTZ>(p + j * N, flagged));
      if (blocks - j >= 4) {  // (unrolled: the common case)
        for (int k = 0; k < 4; ++k) acc = pairwise_fast_flush<FTZ>(acc + t[k], flushed);
      } else {
        for (std::size_t k = 0; k < blocks - j; ++k) acc = pairwise_fast_flush<FTZ>(acc + t[k], flushed);
      }
    }
    flushed = flushed || _mm_movemask_epi8(flagged) != 0;
  }
  __asm__ volatile("" : "+x"(acc));  // the chain ends before the flags are read
  const unsigned raised = _mm_getcsr();
  _mm_setcsr(caller);
  if (nonfinite & 0x8000u) return false;  // an infinity or NaN among the inputs
  status s = mxcsr_flags(raised);
  if (flushed) s |= status::underflow | status::inexact;
  st = s;
  static_assert(binary32.default_nan_bits() == 0xFFC00000u);  // x86's (file comment, 6)
  out = std::bit_cast<std::uint32_t>(acc);
  return true;
#else
  (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
  return false;
#endif
}
template <format F, int N, bool DAZ, bool FTZ, class A, class B>
bool pairwise_f32_kernel(A a, B b, std::size_t n, std::uint32_t c, std::uint32_t& out, status& st) {
  return pairwise_f32_body<F, N, DAZ, FTZ>(a, b, n, c, out, st);
}
#if defined(LIBFLOAT_DOT_FAST_X86) && defined(LIBFLOAT_ARRAY_X86)
template <format F, int N, bool DAZ, bool FTZ, class A, class B>
__attribute__((target("avx2"))) bool pairwise_f32_kernel_avx2(A a, B b, std::size_t n, std::uint32_t c,
                                                              std::uint32_t& out, status& st) {
  return pairwise_f32_body<F, N, DAZ, FTZ>(a, b, n, c, out, st);
}
#endif

/// The pairwise_tree model's dot product on the hardware (file comment): blocks of `block`
/// products a_i b_i of format `in` (binary16 or bfloat16; bits above the encoding ignored), each
/// block's products summed as a binary tree and added to c, every step one binary32 rounding to
/// nearest even; daz / ftz: the unit flushes subnormal inputs / outputs. out = the result, st = the
/// flags raised (assigned, not ORed). Returns false, with out and st untouched, when it declines.
/// SF: the operands' format when the caller knows it at compile time (typed entries), else
/// format{}; only the kernels that can run are instantiated.
template <format SF, class A, class B>
bool pairwise_f32_nearest(const format& in, int block, bool daz, bool ftz, A a, B b, std::size_t n, std::uint32_t c,
                          std::uint32_t& out, status& st) {
  if constexpr (!dot_fast_built || !(SF == format{} || pairwise_fast_input(SF))) {
    (void)in, (void)block, (void)daz, (void)ftz, (void)a, (void)b, (void)n, (void)c, (void)out, (void)st;
    return false;
  } else {
    // The presets flush both or neither; other units take the general path.
    if (daz != ftz) return false;
    // the AVX2 build where the span kernels run AVX2 or AVX-512 (file comment, 10)
    auto kernel = [&]<format F, int N, bool Z>() {
#if defined(LIBFLOAT_DOT_FAST_X86) && defined(LIBFLOAT_ARRAY_X86)
      if (array_dispatch_in_use() != array_dispatch::portable)
        return pairwise_f32_kernel_avx2<F, N, Z, Z>(a, b, n, c, out, st);
#endif
      return pairwise_f32_kernel<F, N, Z, Z>(a, b, n, c, out, st);
    };
    auto sized = [&]<format F, bool Z>() {
      switch (block) {
        case 2: return kernel.template operator()<F, 2, Z>();
        case 4: return kernel.template operator()<F, 4, Z>();
        case 8: return kernel.template operator()<F, 8, Z>();
        default: return false;
      }
    };
    auto flushes = [&]<format F>() {
      return ftz ? sized.template operator()<F, true>() : sized.template operator()<F, false>();
    };
    if constexpr (SF != format{}) {
      return in == SF && flushes.template operator()<SF>();
    } else {
      if (in == binary16) return flushes.template operator()<binary16>();
      if (in == bfloat16) return flushes.template operator()<bfloat16>();
      return false;
    }
  }
}

}  // namespace lf::detail
