// libfloat/fast/x86_simd.hpp: the AVX, AVX2, F16C, FMA and AVX-512 operations that the span kernels
// (fast/array_kernels.hpp, fast/binary32_span_ops.hpp) and the matrix-unit kernels
// (fast/matrix_block.hpp, fast/late_dot.hpp, fast/exact_block_dot.hpp) use, written on the
// compilers' vector types and x86 builtins instead of <immintrin.h>. No rounding decision here: each
// function is one instruction (or a fixed sequence, for the reductions) with the semantics of the
// Intel intrinsic it is named after (`mm256_add_epi32` is `_mm256_add_epi32`). Why: <immintrin.h> declares every x86 extension's
// intrinsics, and GCC 12 spends about 0.6 s of every compilation that includes the umbrella header
// parsing them (its AVX-512 headers alone are over 50,000 lines), while these few are parsed in a few
// milliseconds. The SSE ones come from <smmintrin.h> (SSE4.1 and below, a few milliseconds).
// Proof: tests/fast/test_x86_simd.cpp compares each function here with the compiler's own intrinsic
// (from <immintrin.h>) on edge values and random operands, bit for bit, on each instruction set the
// CPU has (a missing one is reported skipped), with GCC and (in the sanitizer build) Clang; the
// kernels that use them are proven against the core by the `proof` label (fast/array_kernels.hpp)
// and the matrix-unit tests (matrix_unit_fast, late_fast, exact_block_fast: label quick).
//
// The builtins are the ones GCC 12 and Clang 16 use in their own intrinsic headers; where the two
// compilers implement an operation differently (a masked operation's name, a zero extension), each
// compiler's form is here. Immediate operands are template parameters (a builtin needs a constant
// expression there).
#pragma once

#include <cstdint>

#include <smmintrin.h>

namespace lf::detail::simd {

using m128i = __m128i;
typedef long long m256i __attribute__((__vector_size__(32), __may_alias__));
typedef float m256 __attribute__((__vector_size__(32), __may_alias__));
typedef double m256d __attribute__((__vector_size__(32), __may_alias__));
typedef long long m512i __attribute__((__vector_size__(64), __may_alias__));
typedef float m512 __attribute__((__vector_size__(64), __may_alias__));
using mmask16 = std::uint16_t;
// The same at any address (unaligned loads and stores, as <immintrin.h>'s loadu / storeu).
typedef long long m256i_u __attribute__((__vector_size__(32), __may_alias__, __aligned__(1)));
typedef float m256_u __attribute__((__vector_size__(32), __may_alias__, __aligned__(1)));
typedef long long m512i_u __attribute__((__vector_size__(64), __may_alias__, __aligned__(1)));
typedef float m512_u __attribute__((__vector_size__(64), __may_alias__, __aligned__(1)));

// Lane views (the builtins' operand types).
typedef char v32qi __attribute__((__vector_size__(32)));
typedef short v8hi __attribute__((__vector_size__(16)));
typedef short v16hi __attribute__((__vector_size__(32)));
typedef unsigned short v16hu __attribute__((__vector_size__(32)));
typedef int v8si __attribute__((__vector_size__(32)));
typedef unsigned v8su __attribute__((__vector_size__(32)));
typedef long long v4di __attribute__((__vector_size__(32)));
typedef unsigned long long v4du __attribute__((__vector_size__(32)));
typedef double v4df __attribute__((__vector_size__(32)));
typedef char v16qi __attribute__((__vector_size__(16)));
typedef unsigned char v16qu __attribute__((__vector_size__(16)));
typedef unsigned short v8hu __attribute__((__vector_size__(16)));
typedef int v4si __attribute__((__vector_size__(16)));
typedef unsigned v4su __attribute__((__vector_size__(16)));
typedef long long v2di __attribute__((__vector_size__(16)));
typedef float v4sf __attribute__((__vector_size__(16)));
typedef double v2df __attribute__((__vector_size__(16)));
typedef float v8sf __attribute__((__vector_size__(32)));
typedef int v16si __attribute__((__vector_size__(64)));
typedef unsigned v16su __attribute__((__vector_size__(64)));
typedef float v16sf __attribute__((__vector_size__(64)));

// Predicates of VCMPPS (as <immintrin.h>'s _CMP_*) and of VPCMP[U]D.
inline constexpr int cmp_eq_oq = 0x00, cmp_unord_q = 0x03, cmp_neq_uq = 0x04, cmp_neq_oq = 0x0C;
inline constexpr int cmpint_lt = 1, cmpint_ne = 4, cmpint_ge = 5, cmpint_gt = 6;
inline constexpr int round_current = 0x04;  // _MM_FROUND_CUR_DIRECTION: the builtins' rounding operand

// Each function asks for the least it needs (AVX2; F16C or FMA where it uses them), so that a caller
// built for AVX2 alone (fast/matrix_block.hpp) can inline the integer ones.
#define LIBFLOAT_SIMD_AVX2 gnu::always_inline, gnu::target("avx2")
#define LIBFLOAT_SIMD_F16C gnu::always_inline, gnu::target("avx2,f16c")
#define LIBFLOAT_SIMD_FMA gnu::always_inline, gnu::target("avx2,fma")
#define LIBFLOAT_SIMD_AVX512 gnu::always_inline, gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")

// ---- AVX, AVX2, F16C, FMA (256 bits) -----------------------------------------------------------

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_setzero_si256() { return m256i{0, 0, 0, 0}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_setzero_ps() { return m256{0, 0, 0, 0, 0, 0, 0, 0}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_set1_epi32(int x) { return (m256i)v8si{x, x, x, x, x, x, x, x}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_set1_epi16(short x) {
  return (m256i)v16hi{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
}
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_set1_ps(float x) { return m256{x, x, x, x, x, x, x, x}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_setr_epi32(int a, int b, int c, int d, int e, int f, int g, int h) {
  return (m256i)v8si{a, b, c, d, e, f, g, h};
}

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_loadu_si256(const void* p) { return *static_cast<const m256i_u*>(p); }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_loadu_ps(const float* p) { return *reinterpret_cast<const m256_u*>(p); }
[[LIBFLOAT_SIMD_AVX2]] inline void mm256_storeu_si256(void* p, m256i v) { *static_cast<m256i_u*>(p) = v; }
[[LIBFLOAT_SIMD_AVX2]] inline void mm256_storeu_ps(float* p, m256 v) { *reinterpret_cast<m256_u*>(p) = v; }

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_castps_si256(m256 a) { return (m256i)a; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_castsi256_ps(m256i a) { return (m256)a; }
[[LIBFLOAT_SIMD_AVX2]] inline m128i mm256_castsi256_si128(m256i a) {
  return (m128i)__builtin_shufflevector((v4di)a, (v4di)a, 0, 1);
}
template <int I>
[[LIBFLOAT_SIMD_AVX2]] inline m128i mm256_extracti128_si256(m256i a) {
  static_assert(I == 0 || I == 1);
  return (m128i)__builtin_ia32_extract128i256((v4di)a, I);
}
template <int I>
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_permute4x64_epi64(m256i a) {
  static_assert(I >= 0 && I < 256);
  return (m256i)__builtin_ia32_permdi256((v4di)a, I);
}

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_and_si256(m256i a, m256i b) { return a & b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_or_si256(m256i a, m256i b) { return a | b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_xor_si256(m256i a, m256i b) { return a ^ b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_andnot_si256(m256i a, m256i b) { return ~a & b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_or_ps(m256 a, m256 b) { return (m256)((v8si)a | (v8si)b); }

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_add_epi16(m256i a, m256i b) { return (m256i)((v16hu)a + (v16hu)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_add_epi32(m256i a, m256i b) { return (m256i)((v8su)a + (v8su)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sub_epi32(m256i a, m256i b) { return (m256i)((v8su)a - (v8su)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_mullo_epi32(m256i a, m256i b) { return (m256i)((v8su)a * (v8su)b); }
/// Shifts by a count below 32 (the kernels' counts are constants; VPSLLD's larger counts give 0, not used).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_slli_epi32(m256i a, int n) { return (m256i)((v8su)a << n); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srli_epi32(m256i a, int n) { return (m256i)((v8su)a >> n); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srai_epi32(m256i a, int n) { return (m256i)((v8si)a >> n); }

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cmpeq_epi32(m256i a, m256i b) { return (m256i)((v8si)a == (v8si)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cmpgt_epi32(m256i a, m256i b) { return (m256i)((v8si)a > (v8si)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_max_epu32(m256i a, m256i b) {
#if defined(__clang__)
  return (m256i)__builtin_elementwise_max((v8su)a, (v8su)b);
#else
  return (m256i)__builtin_ia32_pmaxud256((v8si)a, (v8si)b);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_min_epu32(m256i a, m256i b) {
#if defined(__clang__)
  return (m256i)__builtin_elementwise_min((v8su)a, (v8su)b);
#else
  return (m256i)__builtin_ia32_pminud256((v8si)a, (v8si)b);
#endif
}
/// Bytes of b where the byte of m has its top bit set, else of a (VPBLENDVB).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_blendv_epi8(m256i a, m256i b, m256i m) {
  return (m256i)__builtin_ia32_pblendvb256((v32qi)a, (v32qi)b, (v32qi)m);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_blendv_ps(m256 a, m256 b, m256 m) {
  return (m256)__builtin_ia32_blendvps256((v8sf)a, (v8sf)b, (v8sf)m);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_packus_epi32(m256i a, m256i b) {
  return (m256i)__builtin_ia32_packusdw256((v8si)a, (v8si)b);
}
/// Whether a & b is all zeros (VPTEST's ZF).
[[LIBFLOAT_SIMD_AVX2]] inline int mm256_testz_si256(m256i a, m256i b) { return __builtin_ia32_ptestz256((v4di)a, (v4di)b); }
[[LIBFLOAT_SIMD_AVX2]] inline int mm256_movemask_ps(m256 a) { return __builtin_ia32_movmskps256((v8sf)a); }

/// Binary32 arithmetic under MXCSR (as the intrinsics, one VADDPS ... VFMADD per call).
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_add_ps(m256 a, m256 b) { return a + b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_sub_ps(m256 a, m256 b) { return a - b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_mul_ps(m256 a, m256 b) { return a * b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_div_ps(m256 a, m256 b) { return a / b; }
[[LIBFLOAT_SIMD_FMA]] inline m256 mm256_fmadd_ps(m256 a, m256 b, m256 c) {
  return (m256)__builtin_ia32_vfmaddps256((v8sf)a, (v8sf)b, (v8sf)c);
}
/// VCMPPS with predicate P (cmp_eq_oq, cmp_neq_oq, cmp_unord_q: quiet, no invalid for quiet NaNs).
template <int P>
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_cmp_ps(m256 a, m256 b) {
  return (m256)__builtin_ia32_cmpps256((v8sf)a, (v8sf)b, P);
}

/// VCVTPS2PH with rounding immediate I (_MM_FROUND_*), VCVTPH2PS (F16C).
template <int I>
[[LIBFLOAT_SIMD_F16C]] inline m128i mm256_cvtps_ph(m256 a) {
  return (m128i)__builtin_ia32_vcvtps2ph256((v8sf)a, I);
}
[[LIBFLOAT_SIMD_F16C]] inline m256 mm256_cvtph_ps(m128i a) { return (m256)__builtin_ia32_vcvtph2ps256((v8hi)a); }

// ---- more AVX2 (256 bits): the matrix-unit kernels (fast/matrix_block.hpp, fast/late_dot.hpp) ----
// Where GCC 12's and Clang 16's headers implement an intrinsic differently, each compiler's own way.

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_set1_epi64x(long long x) { return m256i{x, x, x, x}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_setr_epi64x(long long a, long long b, long long c, long long d) {
  return m256i{a, b, c, d};
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_setr_epi8(char b0, char b1, char b2, char b3, char b4, char b5, char b6,
                                                    char b7, char b8, char b9, char b10, char b11, char b12,
                                                    char b13, char b14, char b15, char b16, char b17, char b18,
                                                    char b19, char b20, char b21, char b22, char b23, char b24,
                                                    char b25, char b26, char b27, char b28, char b29, char b30,
                                                    char b31) {
  return (m256i)v32qi{b0,  b1,  b2,  b3,  b4,  b5,  b6,  b7,  b8,  b9,  b10, b11, b12, b13, b14, b15,
                      b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29, b30, b31};
}
/// The 256-bit vector with lo in bits 0-127 and hi in bits 128-255.
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_set_m128i(m128i hi, m128i lo) {
  return (m256i)__builtin_shufflevector((v2di)lo, (v2di)hi, 0, 1, 2, 3);
}
[[LIBFLOAT_SIMD_AVX2]] inline int mm256_cvtsi256_si32(m256i a) { return ((v8si)a)[0]; }
template <int N>
[[LIBFLOAT_SIMD_AVX2]] inline int mm256_extract_epi32(m256i a) {
  static_assert(N >= 0 && N < 8);
  return ((v8si)a)[N];
}

[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_add_epi64(m256i a, m256i b) { return (m256i)((v4du)a + (v4du)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sub_epi64(m256i a, m256i b) { return (m256i)((v4du)a - (v4du)b); }
/// The unsigned products of the low 32 bits of each 64-bit lane (VPMULUDQ).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_mul_epu32(m256i a, m256i b) {
  return (m256i)__builtin_ia32_pmuludq256((v8si)a, (v8si)b);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cmpeq_epi16(m256i a, m256i b) { return (m256i)((v16hi)a == (v16hi)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cmpeq_epi64(m256i a, m256i b) { return (m256i)((v4di)a == (v4di)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cmpgt_epi64(m256i a, m256i b) { return (m256i)((v4di)a > (v4di)b); }
/// SSE4.2's PCMPGTQ (the 128-bit form).
[[LIBFLOAT_SIMD_AVX2]] inline m128i mm_cmpgt_epi64(m128i a, m128i b) { return (m128i)((v2di)a > (v2di)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_max_epi16(m256i a, m256i b) {
#if defined(__clang__)
  return (m256i)__builtin_elementwise_max((v16hi)a, (v16hi)b);
#else
  return (m256i)__builtin_ia32_pmaxsw256((v16hi)a, (v16hi)b);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_max_epi32(m256i a, m256i b) {
#if defined(__clang__)
  return (m256i)__builtin_elementwise_max((v8si)a, (v8si)b);
#else
  return (m256i)__builtin_ia32_pmaxsd256((v8si)a, (v8si)b);
#endif
}
template <int M>
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_blend_epi32(m256i a, m256i b) {
  static_assert(M >= 0 && M < 256);
  return (m256i)__builtin_ia32_pblendd256((v8si)a, (v8si)b, M);
}
template <int N>
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_shuffle_epi32(m256i a) {
  static_assert(N >= 0 && N < 256);
  return (m256i)__builtin_ia32_pshufd256((v8si)a, N);
}
/// VPSHUFB: within each 128-bit half, byte i of the result is a's byte b[i] & 15, or 0 where b[i]'s
/// top bit is set.
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_shuffle_epi8(m256i a, m256i b) {
  return (m256i)__builtin_ia32_pshufb256((v32qi)a, (v32qi)b);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_permutevar8x32_epi32(m256i a, m256i idx) {
  return (m256i)__builtin_ia32_permvarsi256((v8si)a, (v8si)idx);
}
// Shifts with the instructions' semantics for every count (a count above the lane width gives 0).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srli_epi16(m256i a, int n) {
  return (m256i)__builtin_ia32_psrlwi256((v16hi)a, n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_slli_epi16(m256i a, int n) {
  return (m256i)__builtin_ia32_psllwi256((v16hi)a, n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srli_epi64(m256i a, int n) {
  return (m256i)__builtin_ia32_psrlqi256((v4di)a, n);
}
/// Every lane shifted by the count in the low 64 bits of n (VPSLLD / VPSLLQ with an xmm count).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sll_epi32(m256i a, m128i n) {
  return (m256i)__builtin_ia32_pslld256((v8si)a, (v4si)n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sll_epi64(m256i a, m128i n) {
  return (m256i)__builtin_ia32_psllq256((v4di)a, (v2di)n);
}
/// Each lane shifted by its own count (VPSLLV / VPSRLV).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sllv_epi32(m256i a, m256i n) {
  return (m256i)__builtin_ia32_psllv8si((v8si)a, (v8si)n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_sllv_epi64(m256i a, m256i n) {
  return (m256i)__builtin_ia32_psllv4di((v4di)a, (v4di)n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srlv_epi32(m256i a, m256i n) {
  return (m256i)__builtin_ia32_psrlv8si((v8si)a, (v8si)n);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_srlv_epi64(m256i a, m256i n) {
  return (m256i)__builtin_ia32_psrlv4di((v4di)a, (v4di)n);
}
// Zero extensions (VPMOVZX).
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cvtepu8_epi32(m128i a) {
#if defined(__clang__)
  return (m256i)__builtin_convertvector(__builtin_shufflevector((v16qu)a, (v16qu)a, 0, 1, 2, 3, 4, 5, 6, 7), v8si);
#else
  return (m256i)__builtin_ia32_pmovzxbd256((v16qi)a);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cvtepu8_epi64(m128i a) {
#if defined(__clang__)
  return (m256i)__builtin_convertvector(__builtin_shufflevector((v16qu)a, (v16qu)a, 0, 1, 2, 3), v4di);
#else
  return (m256i)__builtin_ia32_pmovzxbq256((v16qi)a);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cvtepu16_epi32(m128i a) {
#if defined(__clang__)
  return (m256i)__builtin_convertvector((v8hu)a, v8si);
#else
  return (m256i)__builtin_ia32_pmovzxwd256((v8hi)a);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cvtepu16_epi64(m128i a) {
#if defined(__clang__)
  return (m256i)__builtin_convertvector(__builtin_shufflevector((v8hu)a, (v8hu)a, 0, 1, 2, 3), v4di);
#else
  return (m256i)__builtin_ia32_pmovzxwq256((v8hi)a);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_cvtepu32_epi64(m128i a) {
#if defined(__clang__)
  return (m256i)__builtin_convertvector((v4su)a, v4di);
#else
  return (m256i)__builtin_ia32_pmovzxdq256((v4si)a);
#endif
}

// Binary64 vectors, and binary32 ones to and from them (exact conversions only in the kernels;
// under MXCSR as the intrinsics).
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_setzero_pd() { return m256d{0, 0, 0, 0}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_set1_pd(double x) { return m256d{x, x, x, x}; }
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_add_pd(m256d a, m256d b) { return a + b; }
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_mul_pd(m256d a, m256d b) { return a * b; }
/// VHADDPD: a0 + a1, b0 + b1, a2 + a3, b2 + b3.
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_hadd_pd(m256d a, m256d b) {
  return (m256d)__builtin_ia32_haddpd256((v4df)a, (v4df)b);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_or_pd(m256d a, m256d b) { return (m256d)((v4di)a | (v4di)b); }
[[LIBFLOAT_SIMD_AVX2]] inline m256i mm256_castpd_si256(m256d a) { return (m256i)a; }
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_castps_pd(m256 a) { return (m256d)a; }
/// a in the low half, zeros above (the defined-upper-half form of _mm256_castpd128_pd256).
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_zextpd128_pd256(__m128d a) {
  return (m256d)__builtin_shufflevector((v2df)a, v2df{0, 0}, 0, 1, 2, 3);
}
[[LIBFLOAT_SIMD_AVX2]] inline __m128d mm256_castpd256_pd128(m256d a) {
  return (__m128d)__builtin_shufflevector((v4df)a, (v4df)a, 0, 1);
}
[[LIBFLOAT_SIMD_AVX2]] inline __m128 mm256_castps256_ps128(m256 a) {
  return (__m128)__builtin_shufflevector((v8sf)a, (v8sf)a, 0, 1, 2, 3);
}
template <int N>
[[LIBFLOAT_SIMD_AVX2]] inline __m128d mm256_extractf128_pd(m256d a) {
  static_assert(N == 0 || N == 1);
  return (__m128d)__builtin_ia32_vextractf128_pd256((v4df)a, N);
}
template <int N>
[[LIBFLOAT_SIMD_AVX2]] inline __m128 mm256_extractf128_ps(m256 a) {
  static_assert(N == 0 || N == 1);
  return (__m128)__builtin_ia32_vextractf128_ps256((v8sf)a, N);
}
/// VCMPPD with predicate P (cmp_neq_uq: quiet, no invalid for quiet NaNs).
template <int P>
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_cmp_pd(m256d a, m256d b) {
  return (m256d)__builtin_ia32_cmppd256((v4df)a, (v4df)b, P);
}
/// VROUNDPS / VROUNDPD with immediate M (_MM_FROUND_*).
template <int M>
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_round_ps(m256 a) {
  return (m256)__builtin_ia32_roundps256((v8sf)a, M);
}
template <int M>
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_round_pd(m256d a) {
  return (m256d)__builtin_ia32_roundpd256((v4df)a, M);
}
[[LIBFLOAT_SIMD_AVX2]] inline m256 mm256_cvtepi32_ps(m256i a) {
#if defined(__clang__)
  return (m256)__builtin_convertvector((v8si)a, v8sf);
#else
  return (m256)__builtin_ia32_cvtdq2ps256((v8si)a);
#endif
}
[[LIBFLOAT_SIMD_AVX2]] inline m256d mm256_cvtps_pd(__m128 a) {
#if defined(__clang__)
  return (m256d)__builtin_convertvector((v4sf)a, v4df);
#else
  return (m256d)__builtin_ia32_cvtps2pd256((v4sf)a);
#endif
}
/// FMA's VFMADD...SD: a * b + c in the low lane, rounded once; a's high lane.
[[LIBFLOAT_SIMD_FMA]] inline __m128d mm_fmadd_sd(__m128d a, __m128d b, __m128d c) {
  return (__m128d)__builtin_ia32_vfmaddsd3((v2df)a, (v2df)b, (v2df)c);
}

// ---- AVX-512 F, BW, VL, DQ -----------------------------------------------------------------------

[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_setzero_si512() { return m512i{0, 0, 0, 0, 0, 0, 0, 0}; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_setzero_ps() { return m512{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_set1_epi32(int x) {
  return (m512i)v16si{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
}
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_set1_ps(float x) { return m512{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }

[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_loadu_si512(const void* p) { return *static_cast<const m512i_u*>(p); }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_loadu_ps(const float* p) { return *reinterpret_cast<const m512_u*>(p); }
[[LIBFLOAT_SIMD_AVX512]] inline void mm512_storeu_si512(void* p, m512i v) { *static_cast<m512i_u*>(p) = v; }
[[LIBFLOAT_SIMD_AVX512]] inline void mm512_storeu_ps(float* p, m512 v) { *reinterpret_cast<m512_u*>(p) = v; }

[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_castps_si512(m512 a) { return (m512i)a; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_castsi512_ps(m512i a) { return (m512)a; }

[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_and_si512(m512i a, m512i b) { return a & b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_or_si512(m512i a, m512i b) { return a | b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_add_epi32(m512i a, m512i b) { return (m512i)((v16su)a + (v16su)b); }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_sub_epi32(m512i a, m512i b) { return (m512i)((v16su)a - (v16su)b); }
/// Shifts by a count below 32 (as mm256_slli_epi32).
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_slli_epi32(m512i a, int n) { return (m512i)((v16su)a << n); }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_srli_epi32(m512i a, int n) { return (m512i)((v16su)a >> n); }
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_max_epu32(m512i a, m512i b) {
#if defined(__clang__)
  return (m512i)__builtin_elementwise_max((v16su)a, (v16su)b);
#else
  return (m512i)__builtin_ia32_pmaxud512_mask((v16si)a, (v16si)b, (v16si)mm512_setzero_si512(), (mmask16)-1);
#endif
}
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_min_epu32(m512i a, m512i b) {
#if defined(__clang__)
  return (m512i)__builtin_elementwise_min((v16su)a, (v16su)b);
#else
  return (m512i)__builtin_ia32_pminud512_mask((v16si)a, (v16si)b, (v16si)mm512_setzero_si512(), (mmask16)-1);
#endif
}
/// The smallest / largest of the 16 unsigned lanes.
[[LIBFLOAT_SIMD_AVX512]] inline std::uint32_t mm512_reduce_min_epu32(m512i a) {
  const v16su v = (v16su)a;
  v8su h = (v8su)mm256_min_epu32((m256i)__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                                 (m256i)__builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15));
  h = (v8su)mm256_min_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 4, 5, 6, 7, 0, 1, 2, 3));
  h = (v8su)mm256_min_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 2, 3, 0, 1, 6, 7, 4, 5));
  h = (v8su)mm256_min_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 1, 0, 3, 2, 5, 4, 7, 6));
  return h[0];
}
[[LIBFLOAT_SIMD_AVX512]] inline std::uint32_t mm512_reduce_max_epu32(m512i a) {
  const v16su v = (v16su)a;
  v8su h = (v8su)mm256_max_epu32((m256i)__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                                 (m256i)__builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15));
  h = (v8su)mm256_max_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 4, 5, 6, 7, 0, 1, 2, 3));
  h = (v8su)mm256_max_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 2, 3, 0, 1, 6, 7, 4, 5));
  h = (v8su)mm256_max_epu32((m256i)h, (m256i)__builtin_shufflevector(h, h, 1, 0, 3, 2, 5, 4, 7, 6));
  return h[0];
}

/// Lane masks: bit i for lane i.
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_cmplt_epu32_mask(m512i a, m512i b) {
  return (mmask16)__builtin_ia32_ucmpd512_mask((v16si)a, (v16si)b, cmpint_lt, (mmask16)-1);
}
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_cmpgt_epu32_mask(m512i a, m512i b) {
  return (mmask16)__builtin_ia32_ucmpd512_mask((v16si)a, (v16si)b, cmpint_gt, (mmask16)-1);
}
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_mask_cmplt_epu32_mask(mmask16 k, m512i a, m512i b) {
  return (mmask16)__builtin_ia32_ucmpd512_mask((v16si)a, (v16si)b, cmpint_lt, k);
}
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_mask_cmpge_epu32_mask(mmask16 k, m512i a, m512i b) {
  return (mmask16)__builtin_ia32_ucmpd512_mask((v16si)a, (v16si)b, cmpint_ge, k);
}
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_mask_cmpneq_epi32_mask(mmask16 k, m512i a, m512i b) {
  return (mmask16)__builtin_ia32_cmpd512_mask((v16si)a, (v16si)b, cmpint_ne, k);
}
/// The lanes where a & b is nonzero (VPTESTMD).
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_test_epi32_mask(m512i a, m512i b) {
  return (mmask16)__builtin_ia32_cmpd512_mask((v16si)(a & b), (v16si)mm512_setzero_si512(), cmpint_ne, (mmask16)-1);
}
/// The lanes whose sign bit is set (VPMOVD2M).
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_movepi32_mask(m512i a) { return (mmask16)__builtin_ia32_cvtd2mask512((v16si)a); }
/// VCMPPS with predicate P (see mm256_cmp_ps).
template <int P>
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm512_cmp_ps_mask(m512 a, m512 b) {
  return (mmask16)__builtin_ia32_cmpps512_mask((v16sf)a, (v16sf)b, P, (mmask16)-1, round_current);
}

/// b where k is set, else a.
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_mask_blend_epi32(mmask16 k, m512i a, m512i b) {
#if defined(__clang__)
  return (m512i)__builtin_ia32_selectd_512(k, (v16si)b, (v16si)a);
#else
  return (m512i)__builtin_ia32_blendmd_512_mask((v16si)a, (v16si)b, k);
#endif
}
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_mask_blend_ps(mmask16 k, m512 a, m512 b) {
#if defined(__clang__)
  return (m512)__builtin_ia32_selectps_512(k, (v16sf)b, (v16sf)a);
#else
  return (m512)__builtin_ia32_blendmps_512_mask((v16sf)a, (v16sf)b, k);
#endif
}
/// a where k is set, else zero.
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_maskz_mov_epi32(mmask16 k, m512i a) {
#if defined(__clang__)
  return (m512i)__builtin_ia32_selectd_512(k, (v16si)a, (v16si)mm512_setzero_si512());
#else
  return (m512i)__builtin_ia32_movdqa32_512_mask((v16si)a, (v16si)mm512_setzero_si512(), k);
#endif
}
/// a | b where k is set, else src.
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_mask_or_epi32(m512i src, mmask16 k, m512i a, m512i b) {
#if defined(__clang__)
  return (m512i)__builtin_ia32_selectd_512(k, (v16si)(a | b), (v16si)src);
#else
  return (m512i)__builtin_ia32_pord512_mask((v16si)a, (v16si)b, (v16si)src, k);
#endif
}
/// The 16-bit lanes of a where k is set, else of src (AVX-512 BW + VL).
[[LIBFLOAT_SIMD_AVX512]] inline m256i mm256_mask_mov_epi16(m256i src, mmask16 k, m256i a) {
#if defined(__clang__)
  return (m256i)__builtin_ia32_selectw_256(k, (v16hi)a, (v16hi)src);
#else
  return (m256i)__builtin_ia32_movdquhi256_mask((v16hi)a, (v16hi)src, k);
#endif
}
[[LIBFLOAT_SIMD_AVX512]] inline mmask16 mm256_cmpeq_epi16_mask(m256i a, m256i b) {
#if defined(__clang__)
  return (mmask16)__builtin_ia32_cmpw256_mask((v16hi)a, (v16hi)b, 0, (mmask16)-1);
#else
  return (mmask16)__builtin_ia32_pcmpeqw256_mask((v16hi)a, (v16hi)b, (mmask16)-1);
#endif
}

/// 32-bit lanes truncated to 16 bits (VPMOVDW); 16-bit lanes zero-extended to 32 bits (VPMOVZXWD).
[[LIBFLOAT_SIMD_AVX512]] inline m256i mm512_cvtepi32_epi16(m512i a) {
  return (m256i)__builtin_convertvector((v16si)a, v16hi);
}
[[LIBFLOAT_SIMD_AVX512]] inline m512i mm512_cvtepu16_epi32(m256i a) {
  return (m512i)__builtin_convertvector((v16hu)a, v16si);
}

[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_add_ps(m512 a, m512 b) { return a + b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_sub_ps(m512 a, m512 b) { return a - b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_mul_ps(m512 a, m512 b) { return a * b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_div_ps(m512 a, m512 b) { return a / b; }
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_fmadd_ps(m512 a, m512 b, m512 c) {
  return (m512)__builtin_ia32_vfmaddps512_mask((v16sf)a, (v16sf)b, (v16sf)c, (mmask16)-1, round_current);
}

/// VCVTPS2PH with rounding immediate I, lanes where k is clear taken from src; VCVTPH2PS likewise.
template <int I>
[[LIBFLOAT_SIMD_AVX512]] inline m256i mm512_mask_cvtps_ph(m256i src, mmask16 k, m512 a) {
  return (m256i)__builtin_ia32_vcvtps2ph512_mask((v16sf)a, I, (v16hi)src, k);
}
[[LIBFLOAT_SIMD_AVX512]] inline m512 mm512_mask_cvtph_ps(m512 src, mmask16 k, m256i a) {
  return (m512)__builtin_ia32_vcvtph2ps512_mask((v16hi)a, (v16sf)src, k, round_current);
}

#undef LIBFLOAT_SIMD_AVX2
#undef LIBFLOAT_SIMD_F16C
#undef LIBFLOAT_SIMD_FMA
#undef LIBFLOAT_SIMD_AVX512

}  // namespace lf::detail::simd
