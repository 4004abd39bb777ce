// fast/x86_simd.hpp against the compiler's own intrinsics from <immintrin.h>: each function on the
// same operands, results compared byte for byte, and for the binary32 operations also MXCSR's sticky
// flags, under each of the four rounding directions. Operands: lanes drawn from edge encodings
// (zeros, infinities, quiet and signaling NaNs, subnormals, the binary16 and bfloat16 thresholds the
// kernels test, all ones, the sign bit) and random bits. AVX2 + F16C + FMA and AVX-512 F/BW/VL/DQ
// each run only where the CPU has them (reported skipped otherwise).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <libfloat/fast/cpu_dispatch.hpp>

#if defined(LIBFLOAT_ARRAY_X86)
// The reference intrinsics: GCC 12's AVX-512 ones start from an uninitialised _mm512_undefined_*()
// (-Wuninitialized once inlined).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <libfloat/fast/x86_simd.hpp>

namespace {

namespace s = lf::detail::simd;

constexpr std::array<std::uint32_t, 24> edges = {
    0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u,
    0x7F800001u, 0xFFA00000u, 0x00000001u, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x477FF000u, 0x387FF000u,
    0x477FE001u, 0x38800000u, 0x7F7F8000u, 0x007FC000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0x7C017C00u, 0xFC007E00u};

struct source {
  std::mt19937_64 rng{20261206};
  std::uint32_t lane() {
    const std::uint64_t r = rng();
    switch (r % 4) {
      case 0: return edges[(r >> 8) % edges.size()];
      case 1: return static_cast<std::uint32_t>(r >> 32);
      case 2: {  // a binary32 value in or near binary16's range
        const auto e = static_cast<std::uint32_t>(96 + (r >> 8) % 56);
        return static_cast<std::uint32_t>(r >> 40 & 1) << 31 | e << 23 | static_cast<std::uint32_t>(r >> 16 & 0x7FFFFF);
      }
      default: {  // few bits set
        return static_cast<std::uint32_t>((r >> 32) & (r >> 16) & (r >> 8));
      }
    }
  }
  template <std::size_t N>
  std::array<std::uint32_t, N> lanes() {
    std::array<std::uint32_t, N> l;
    for (auto& x : l) x = lane();
    return l;
  }
  std::uint16_t mask() { return static_cast<std::uint16_t>(rng()); }
};

template <typename A, typename B>
bool same(const A& a, const B& b) {
  static_assert(sizeof(A) == sizeof(B));
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// A vector of operands drawn from src (no vector crosses a function boundary outside the targets).
#define DRAW(V, name)                                          \
  V name;                                                      \
  {                                                            \
    const auto l_ = src.lanes<sizeof(V) / 4>();                \
    std::memcpy(&name, l_.data(), sizeof name);                \
  }
// v, hidden from the optimiser (so that the operation runs between the MXCSR writes and reads).
#define opaque(v)                            \
  __extension__({                            \
    auto t_ = (v);                           \
    __asm__ volatile("" : "+m"(t_));         \
    t_;                                      \
  })

struct report {
  std::vector<std::string> bad;
  long checks = 0;
  void check(bool ok, const char* what) {
    ++checks;
    if (!ok && std::find(bad.begin(), bad.end(), what) == bad.end()) bad.emplace_back(what);
  }
};

constexpr std::array<unsigned, 4> csrs = {0x1F80u, 0x3F80u, 0x5F80u, 0x7F80u};

// A binary32 operation run as intrinsic (I) and as simd (S) under MXCSR csr: results and sticky flags.
#define SAME_FP(name, T, I, S)                         \
  for (unsigned csr : csrs) {                          \
    _mm_setcsr(csr);                                   \
    volatile T r1 = (I);                               \
    const unsigned f1 = _mm_getcsr();                  \
    _mm_setcsr(csr);                                   \
    volatile T r2 = (S);                               \
    const unsigned f2 = _mm_getcsr();                  \
    _mm_setcsr(0x1F80u);                               \
    const T v1 = r1, v2 = r2;                          \
    rep.check(same(v1, v2) && f1 == f2, name);         \
  }
#define SAME(name, I, S) rep.check(same((I), (S)), name)

[[gnu::target("avx2,f16c,fma")]] void run_avx2(source& src, report& rep, int rounds) {
  for (int k = 0; k < rounds; ++k) {
    DRAW(__m256i, a) DRAW(__m256i, b) DRAW(__m256i, m)
    const s::m256i sa = (s::m256i)a, sb = (s::m256i)b, sm = (s::m256i)m;
    const __m256 x = _mm256_castsi256_ps(a), y = _mm256_castsi256_ps(b), z = _mm256_castsi256_ps(m);
    const s::m256 sx = (s::m256)sa, sy = (s::m256)sb, sz = (s::m256)sm;
    const int i32 = static_cast<int>(src.lane());
    SAME("setzero_si256", _mm256_setzero_si256(), s::mm256_setzero_si256());
    SAME("setzero_ps", _mm256_setzero_ps(), s::mm256_setzero_ps());
    SAME("set1_epi32", _mm256_set1_epi32(i32), s::mm256_set1_epi32(i32));
    SAME("set1_epi16", _mm256_set1_epi16(static_cast<short>(i32)), s::mm256_set1_epi16(static_cast<short>(i32)));
    SAME("set1_ps", _mm256_set1_ps(x[0]), s::mm256_set1_ps(sx[0]));
    SAME("setr_epi32", _mm256_setr_epi32(i32, 1, -2, 3, i32 ^ 5, 0, 7, -8), s::mm256_setr_epi32(i32, 1, -2, 3, i32 ^ 5, 0, 7, -8));
    {
      std::array<std::uint32_t, 9> buf{}, buf2{};
      std::memcpy(buf.data() + 1, &a, 32);
      SAME("loadu_si256", _mm256_loadu_si256(reinterpret_cast<const __m256i*>(buf.data() + 1)), s::mm256_loadu_si256(buf.data() + 1));
      SAME("loadu_ps", _mm256_loadu_ps(reinterpret_cast<const float*>(buf.data() + 1)), s::mm256_loadu_ps(reinterpret_cast<const float*>(buf.data() + 1)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(buf.data() + 1), b);
      s::mm256_storeu_si256(buf2.data() + 1, sb);
      SAME("storeu_si256", buf, buf2);
      _mm256_storeu_ps(reinterpret_cast<float*>(buf.data() + 1), z);
      s::mm256_storeu_ps(reinterpret_cast<float*>(buf2.data() + 1), sz);
      SAME("storeu_ps", buf, buf2);
    }
    SAME("castsi256_si128", _mm256_castsi256_si128(a), s::mm256_castsi256_si128(sa));
    SAME("extracti128_si256<1>", _mm256_extracti128_si256(a, 1), s::mm256_extracti128_si256<1>(sa));
    SAME("extracti128_si256<0>", _mm256_extracti128_si256(a, 0), s::mm256_extracti128_si256<0>(sa));
    SAME("permute4x64_epi64<0xD8>", _mm256_permute4x64_epi64(a, 0xD8), s::mm256_permute4x64_epi64<0xD8>(sa));
    SAME("permute4x64_epi64<0x1B>", _mm256_permute4x64_epi64(a, 0x1B), s::mm256_permute4x64_epi64<0x1B>(sa));
    SAME("and_si256", _mm256_and_si256(a, b), s::mm256_and_si256(sa, sb));
    SAME("or_si256", _mm256_or_si256(a, b), s::mm256_or_si256(sa, sb));
    SAME("xor_si256", _mm256_xor_si256(a, b), s::mm256_xor_si256(sa, sb));
    SAME("andnot_si256", _mm256_andnot_si256(a, b), s::mm256_andnot_si256(sa, sb));
    SAME("or_ps", _mm256_or_ps(x, y), s::mm256_or_ps(sx, sy));
    SAME("add_epi16", _mm256_add_epi16(a, b), s::mm256_add_epi16(sa, sb));
    SAME("add_epi32", _mm256_add_epi32(a, b), s::mm256_add_epi32(sa, sb));
    SAME("sub_epi32", _mm256_sub_epi32(a, b), s::mm256_sub_epi32(sa, sb));
    SAME("mullo_epi32", _mm256_mullo_epi32(a, b), s::mm256_mullo_epi32(sa, sb));
    for (int n : {0, 1, 13, 15, 16, 31}) {
      SAME("slli_epi32", _mm256_slli_epi32(a, n), s::mm256_slli_epi32(sa, opaque(n)));
      SAME("srli_epi32", _mm256_srli_epi32(a, n), s::mm256_srli_epi32(sa, opaque(n)));
      SAME("srai_epi32", _mm256_srai_epi32(a, n), s::mm256_srai_epi32(sa, opaque(n)));
    }
    SAME("cmpeq_epi32", _mm256_cmpeq_epi32(a, b), s::mm256_cmpeq_epi32(sa, sb));
    SAME("cmpeq_epi32 (equal lanes)", _mm256_cmpeq_epi32(a, _mm256_blendv_epi8(a, b, m)), s::mm256_cmpeq_epi32(sa, s::mm256_blendv_epi8(sa, sb, sm)));
    SAME("cmpgt_epi32", _mm256_cmpgt_epi32(a, b), s::mm256_cmpgt_epi32(sa, sb));
    SAME("max_epu32", _mm256_max_epu32(a, b), s::mm256_max_epu32(sa, sb));
    SAME("min_epu32", _mm256_min_epu32(a, b), s::mm256_min_epu32(sa, sb));
    SAME("blendv_epi8", _mm256_blendv_epi8(a, b, m), s::mm256_blendv_epi8(sa, sb, sm));
    SAME("blendv_ps", _mm256_blendv_ps(x, y, z), s::mm256_blendv_ps(sx, sy, sz));
    SAME("packus_epi32", _mm256_packus_epi32(a, b), s::mm256_packus_epi32(sa, sb));
    SAME("testz_si256", _mm256_testz_si256(a, b), s::mm256_testz_si256(sa, sb));
    SAME("testz_si256 (disjoint)", _mm256_testz_si256(a, _mm256_andnot_si256(a, b)), s::mm256_testz_si256(sa, s::mm256_andnot_si256(sa, sb)));
    SAME("movemask_ps", _mm256_movemask_ps(x), s::mm256_movemask_ps(sx));
    SAME_FP("add_ps", __m256, _mm256_add_ps(opaque(x), y), s::mm256_add_ps(opaque(sx), sy));
    SAME_FP("sub_ps", __m256, _mm256_sub_ps(opaque(x), y), s::mm256_sub_ps(opaque(sx), sy));
    SAME_FP("mul_ps", __m256, _mm256_mul_ps(opaque(x), y), s::mm256_mul_ps(opaque(sx), sy));
    SAME_FP("div_ps", __m256, _mm256_div_ps(opaque(x), y), s::mm256_div_ps(opaque(sx), sy));
    SAME_FP("fmadd_ps", __m256, _mm256_fmadd_ps(opaque(x), y, z), s::mm256_fmadd_ps(opaque(sx), sy, sz));
    SAME_FP("cmp_ps EQ_OQ", __m256, _mm256_cmp_ps(opaque(x), y, _CMP_EQ_OQ), s::mm256_cmp_ps<s::cmp_eq_oq>(opaque(sx), sy));
    SAME_FP("cmp_ps NEQ_OQ", __m256, _mm256_cmp_ps(opaque(x), y, _CMP_NEQ_OQ), s::mm256_cmp_ps<s::cmp_neq_oq>(opaque(sx), sy));
    SAME_FP("cmp_ps UNORD_Q", __m256, _mm256_cmp_ps(opaque(x), y, _CMP_UNORD_Q), s::mm256_cmp_ps<s::cmp_unord_q>(opaque(sx), sy));
    SAME_FP("cmp_ps EQ_OQ (x, x)", __m256, _mm256_cmp_ps(opaque(x), x, _CMP_EQ_OQ), s::mm256_cmp_ps<s::cmp_eq_oq>(opaque(sx), sx));
    SAME_FP("cvtps_ph RNE", __m128i, _mm256_cvtps_ph(opaque(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
            s::mm256_cvtps_ph<_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC>(opaque(sx)));
    SAME_FP("cvtps_ph RZ", __m128i, _mm256_cvtps_ph(opaque(x), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
            s::mm256_cvtps_ph<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(opaque(sx)));
    SAME_FP("cvtps_ph RU", __m128i, _mm256_cvtps_ph(opaque(x), _MM_FROUND_TO_POS_INF), s::mm256_cvtps_ph<_MM_FROUND_TO_POS_INF>(opaque(sx)));
    SAME_FP("cvtps_ph RD", __m128i, _mm256_cvtps_ph(opaque(x), _MM_FROUND_TO_NEG_INF), s::mm256_cvtps_ph<_MM_FROUND_TO_NEG_INF>(opaque(sx)));
    SAME_FP("cvtph_ps", __m256, _mm256_cvtph_ps(opaque(_mm256_castsi256_si128(a))), s::mm256_cvtph_ps(opaque(s::mm256_castsi256_si128(sa))));
    // The matrix-unit kernels' operations (fast/matrix_block.hpp, fast/late_dot.hpp, fast/exact_block_dot.hpp).
    const long long i64 = static_cast<long long>(src.lane()) << 32 | src.lane();
    const __m128i a128 = _mm256_castsi256_si128(a), b128 = _mm256_castsi256_si128(b);
    const s::m128i sa128 = s::mm256_castsi256_si128(sa), sb128 = s::mm256_castsi256_si128(sb);
    const __m256d xd = _mm256_castsi256_pd(a), yd = _mm256_castsi256_pd(b);
    const s::m256d sxd = (s::m256d)sa, syd = (s::m256d)sb;
    SAME("set1_epi64x", _mm256_set1_epi64x(i64), s::mm256_set1_epi64x(i64));
    SAME("setr_epi64x", _mm256_setr_epi64x(i64, 1, -2, i32), s::mm256_setr_epi64x(i64, 1, -2, i32));
    SAME("setr_epi8", _mm256_setr_epi8(0, 1, 8, 9, -1, -1, 2, 3, 4, 5, 6, 7, 10, 11, 12, static_cast<char>(i32), -128, 127, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 31),
         s::mm256_setr_epi8(0, 1, 8, 9, -1, -1, 2, 3, 4, 5, 6, 7, 10, 11, 12, static_cast<char>(i32), -128, 127, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 31));
    SAME("set_m128i", _mm256_set_m128i(a128, b128), s::mm256_set_m128i(sa128, sb128));
    SAME("cvtsi256_si32", _mm256_cvtsi256_si32(a), s::mm256_cvtsi256_si32(sa));
    SAME("extract_epi32<0>", _mm256_extract_epi32(a, 0), s::mm256_extract_epi32<0>(sa));
    SAME("extract_epi32<3>", _mm256_extract_epi32(a, 3), s::mm256_extract_epi32<3>(sa));
    SAME("extract_epi32<4>", _mm256_extract_epi32(a, 4), s::mm256_extract_epi32<4>(sa));
    SAME("extract_epi32<7>", _mm256_extract_epi32(a, 7), s::mm256_extract_epi32<7>(sa));
    SAME("add_epi64", _mm256_add_epi64(a, b), s::mm256_add_epi64(sa, sb));
    SAME("sub_epi64", _mm256_sub_epi64(a, b), s::mm256_sub_epi64(sa, sb));
    SAME("mul_epu32", _mm256_mul_epu32(a, b), s::mm256_mul_epu32(sa, sb));
    SAME("cmpeq_epi16", _mm256_cmpeq_epi16(a, b), s::mm256_cmpeq_epi16(sa, sb));
    SAME("cmpeq_epi16 (equal lanes)", _mm256_cmpeq_epi16(a, _mm256_blendv_epi8(a, b, m)), s::mm256_cmpeq_epi16(sa, s::mm256_blendv_epi8(sa, sb, sm)));
    SAME("cmpeq_epi64", _mm256_cmpeq_epi64(a, b), s::mm256_cmpeq_epi64(sa, sb));
    SAME("cmpeq_epi64 (equal lanes)", _mm256_cmpeq_epi64(a, _mm256_blend_epi32(a, b, 0x0C)), s::mm256_cmpeq_epi64(sa, s::mm256_blend_epi32<0x0C>(sa, sb)));
    SAME("cmpgt_epi64", _mm256_cmpgt_epi64(a, b), s::mm256_cmpgt_epi64(sa, sb));
    SAME("mm_cmpgt_epi64", _mm_cmpgt_epi64(a128, b128), s::mm_cmpgt_epi64(sa128, sb128));
    SAME("max_epi16", _mm256_max_epi16(a, b), s::mm256_max_epi16(sa, sb));
    SAME("max_epi32", _mm256_max_epi32(a, b), s::mm256_max_epi32(sa, sb));
    SAME("blend_epi32<0xAA>", _mm256_blend_epi32(a, b, 0xAA), s::mm256_blend_epi32<0xAA>(sa, sb));
    SAME("blend_epi32<0xF0>", _mm256_blend_epi32(a, b, 0xF0), s::mm256_blend_epi32<0xF0>(sa, sb));
    SAME("shuffle_epi32<0x4E>", _mm256_shuffle_epi32(a, 0x4E), s::mm256_shuffle_epi32<0x4E>(sa));
    SAME("shuffle_epi32<0xB1>", _mm256_shuffle_epi32(a, 0xB1), s::mm256_shuffle_epi32<0xB1>(sa));
    SAME("shuffle_epi8", _mm256_shuffle_epi8(a, b), s::mm256_shuffle_epi8(sa, sb));
    SAME("permutevar8x32_epi32", _mm256_permutevar8x32_epi32(a, b), s::mm256_permutevar8x32_epi32(sa, sb));
    for (int n : {0, 1, 7, 15, 16, 31, 32, 63, 64, 200}) {
      SAME("srli_epi16", _mm256_srli_epi16(a, n), s::mm256_srli_epi16(sa, opaque(n)));
      SAME("slli_epi16", _mm256_slli_epi16(a, n), s::mm256_slli_epi16(sa, opaque(n)));
      SAME("srli_epi64", _mm256_srli_epi64(a, n), s::mm256_srli_epi64(sa, opaque(n)));
      SAME("sll_epi32", _mm256_sll_epi32(a, _mm_cvtsi32_si128(n)), s::mm256_sll_epi32(sa, opaque(_mm_cvtsi32_si128(n))));
      SAME("sll_epi64", _mm256_sll_epi64(a, _mm_cvtsi32_si128(n)), s::mm256_sll_epi64(sa, opaque(_mm_cvtsi32_si128(n))));
    }
    {
      // per-lane counts, in and beyond the lane widths
      const __m256i c32 = _mm256_and_si256(b, _mm256_set1_epi32(63)), c64 = _mm256_and_si256(b, _mm256_set1_epi64x(127));
      const s::m256i sc32 = (s::m256i)c32, sc64 = (s::m256i)c64;
      SAME("sllv_epi32", _mm256_sllv_epi32(a, c32), s::mm256_sllv_epi32(sa, sc32));
      SAME("srlv_epi32", _mm256_srlv_epi32(a, c32), s::mm256_srlv_epi32(sa, sc32));
      SAME("sllv_epi64", _mm256_sllv_epi64(a, c64), s::mm256_sllv_epi64(sa, sc64));
      SAME("srlv_epi64", _mm256_srlv_epi64(a, c64), s::mm256_srlv_epi64(sa, sc64));
    }
    SAME("cvtepu8_epi32", _mm256_cvtepu8_epi32(a128), s::mm256_cvtepu8_epi32(sa128));
    SAME("cvtepu8_epi64", _mm256_cvtepu8_epi64(a128), s::mm256_cvtepu8_epi64(sa128));
    SAME("cvtepu16_epi32", _mm256_cvtepu16_epi32(a128), s::mm256_cvtepu16_epi32(sa128));
    SAME("cvtepu16_epi64", _mm256_cvtepu16_epi64(a128), s::mm256_cvtepu16_epi64(sa128));
    SAME("cvtepu32_epi64", _mm256_cvtepu32_epi64(a128), s::mm256_cvtepu32_epi64(sa128));
    SAME("setzero_pd", _mm256_setzero_pd(), s::mm256_setzero_pd());
    SAME("set1_pd", _mm256_set1_pd(xd[2]), s::mm256_set1_pd(sxd[2]));
    SAME("or_pd", _mm256_or_pd(xd, yd), s::mm256_or_pd(sxd, syd));
    SAME("castpd_si256", _mm256_castpd_si256(xd), s::mm256_castpd_si256(sxd));
    SAME("castps_pd", _mm256_castps_pd(x), s::mm256_castps_pd(sx));
    SAME("zextpd128_pd256", _mm256_zextpd128_pd256(_mm256_castpd256_pd128(xd)), s::mm256_zextpd128_pd256(s::mm256_castpd256_pd128(sxd)));
    SAME("castpd256_pd128", _mm256_castpd256_pd128(xd), s::mm256_castpd256_pd128(sxd));
    SAME("castps256_ps128", _mm256_castps256_ps128(x), s::mm256_castps256_ps128(sx));
    SAME("extractf128_pd<0>", _mm256_extractf128_pd(xd, 0), s::mm256_extractf128_pd<0>(sxd));
    SAME("extractf128_pd<1>", _mm256_extractf128_pd(xd, 1), s::mm256_extractf128_pd<1>(sxd));
    SAME("extractf128_ps<0>", _mm256_extractf128_ps(x, 0), s::mm256_extractf128_ps<0>(sx));
    SAME("extractf128_ps<1>", _mm256_extractf128_ps(x, 1), s::mm256_extractf128_ps<1>(sx));
    SAME_FP("add_pd", __m256d, _mm256_add_pd(opaque(xd), yd), s::mm256_add_pd(opaque(sxd), syd));
    SAME_FP("mul_pd", __m256d, _mm256_mul_pd(opaque(xd), yd), s::mm256_mul_pd(opaque(sxd), syd));
    SAME_FP("hadd_pd", __m256d, _mm256_hadd_pd(opaque(xd), yd), s::mm256_hadd_pd(opaque(sxd), syd));
    SAME_FP("cmp_pd NEQ_UQ", __m256d, _mm256_cmp_pd(opaque(xd), yd, _CMP_NEQ_UQ), s::mm256_cmp_pd<s::cmp_neq_uq>(opaque(sxd), syd));
    SAME_FP("cmp_pd NEQ_UQ (x, x)", __m256d, _mm256_cmp_pd(opaque(xd), xd, _CMP_NEQ_UQ), s::mm256_cmp_pd<s::cmp_neq_uq>(opaque(sxd), sxd));
    SAME_FP("cmp_ps NEQ_UQ", __m256, _mm256_cmp_ps(opaque(x), y, _CMP_NEQ_UQ), s::mm256_cmp_ps<s::cmp_neq_uq>(opaque(sx), sy));
    SAME_FP("round_ps RZ", __m256, _mm256_round_ps(opaque(x), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
            s::mm256_round_ps<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(opaque(sx)));
    SAME_FP("round_ps RD", __m256, _mm256_round_ps(opaque(x), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
            s::mm256_round_ps<_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC>(opaque(sx)));
    SAME_FP("round_pd RZ", __m256d, _mm256_round_pd(opaque(xd), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
            s::mm256_round_pd<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(opaque(sxd)));
    SAME_FP("round_pd RD", __m256d, _mm256_round_pd(opaque(xd), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
            s::mm256_round_pd<_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC>(opaque(sxd)));
    SAME_FP("cvtepi32_ps", __m256, _mm256_cvtepi32_ps(opaque(a)), s::mm256_cvtepi32_ps(opaque(sa)));
    SAME_FP("cvtps_pd", __m256d, _mm256_cvtps_pd(opaque(_mm256_castps256_ps128(x))), s::mm256_cvtps_pd(opaque(s::mm256_castps256_ps128(sx))));
    {
      const __m128d p = _mm256_castpd256_pd128(xd), q = _mm256_castpd256_pd128(yd), r = _mm256_extractf128_pd(xd, 1);
      SAME_FP("mm_fmadd_sd", __m128d, _mm_fmadd_sd(opaque(p), q, r), s::mm_fmadd_sd(opaque(p), q, r));
    }
  }
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")]] void run_avx512(source& src, report& rep, int rounds) {
  for (int k = 0; k < rounds; ++k) {
    DRAW(__m512i, a) DRAW(__m512i, b) DRAW(__m512i, c)
    const s::m512i sa = (s::m512i)a, sb = (s::m512i)b, sc = (s::m512i)c;
    const __m512 x = _mm512_castsi512_ps(a), y = _mm512_castsi512_ps(b), z = _mm512_castsi512_ps(c);
    const s::m512 sx = (s::m512)sa, sy = (s::m512)sb, sz = (s::m512)sc;
    const __m256i h = _mm512_castsi512_si256(c), h2 = _mm512_castsi512_si256(b);
    const s::m256i sh = (s::m256i)h, sh2 = (s::m256i)h2;
    const std::uint16_t km = src.mask();
    const int i32 = static_cast<int>(src.lane());
    SAME("setzero_si512", _mm512_setzero_si512(), s::mm512_setzero_si512());
    SAME("setzero_ps", _mm512_setzero_ps(), s::mm512_setzero_ps());
    SAME("set1_epi32", _mm512_set1_epi32(i32), s::mm512_set1_epi32(i32));
    SAME("set1_ps", _mm512_set1_ps(x[1]), s::mm512_set1_ps(sx[1]));
    {
      std::array<std::uint32_t, 17> buf{}, buf2{};
      std::memcpy(buf.data() + 1, &a, 64);
      SAME("loadu_si512", _mm512_loadu_si512(buf.data() + 1), s::mm512_loadu_si512(buf.data() + 1));
      SAME("loadu_ps", _mm512_loadu_ps(buf.data() + 1), s::mm512_loadu_ps(reinterpret_cast<const float*>(buf.data() + 1)));
      _mm512_storeu_si512(buf.data() + 1, b);
      s::mm512_storeu_si512(buf2.data() + 1, sb);
      SAME("storeu_si512", buf, buf2);
      _mm512_storeu_ps(buf.data() + 1, z);
      s::mm512_storeu_ps(reinterpret_cast<float*>(buf2.data() + 1), sz);
      SAME("storeu_ps", buf, buf2);
    }
    SAME("and_si512", _mm512_and_si512(a, b), s::mm512_and_si512(sa, sb));
    SAME("or_si512", _mm512_or_si512(a, b), s::mm512_or_si512(sa, sb));
    SAME("add_epi32", _mm512_add_epi32(a, b), s::mm512_add_epi32(sa, sb));
    SAME("sub_epi32", _mm512_sub_epi32(a, b), s::mm512_sub_epi32(sa, sb));
    for (unsigned n : {0u, 1u, 13u, 16u, 31u}) {
      SAME("slli_epi32", _mm512_slli_epi32(a, n), s::mm512_slli_epi32(sa, static_cast<int>(opaque(n))));
      SAME("srli_epi32", _mm512_srli_epi32(a, n), s::mm512_srli_epi32(sa, static_cast<int>(opaque(n))));
    }
    SAME("max_epu32", _mm512_max_epu32(a, b), s::mm512_max_epu32(sa, sb));
    SAME("min_epu32", _mm512_min_epu32(a, b), s::mm512_min_epu32(sa, sb));
    SAME("reduce_min_epu32", _mm512_reduce_min_epu32(a), s::mm512_reduce_min_epu32(sa));
    SAME("reduce_max_epu32", _mm512_reduce_max_epu32(a), s::mm512_reduce_max_epu32(sa));
    SAME("cmplt_epu32_mask", _mm512_cmplt_epu32_mask(a, b), s::mm512_cmplt_epu32_mask(sa, sb));
    SAME("cmpgt_epu32_mask", _mm512_cmpgt_epu32_mask(a, b), s::mm512_cmpgt_epu32_mask(sa, sb));
    SAME("mask_cmplt_epu32_mask", _mm512_mask_cmplt_epu32_mask(km, a, b), s::mm512_mask_cmplt_epu32_mask(km, sa, sb));
    SAME("mask_cmpge_epu32_mask", _mm512_mask_cmpge_epu32_mask(km, a, b), s::mm512_mask_cmpge_epu32_mask(km, sa, sb));
    SAME("mask_cmpneq_epi32_mask", _mm512_mask_cmpneq_epi32_mask(km, a, b), s::mm512_mask_cmpneq_epi32_mask(km, sa, sb));
    SAME("mask_cmpneq_epi32_mask (equal lanes)", _mm512_mask_cmpneq_epi32_mask(km, a, _mm512_mask_blend_epi32(km, a, b)),
         s::mm512_mask_cmpneq_epi32_mask(km, sa, s::mm512_mask_blend_epi32(km, sa, sb)));
    SAME("test_epi32_mask", _mm512_test_epi32_mask(a, b), s::mm512_test_epi32_mask(sa, sb));
    SAME("movepi32_mask", _mm512_movepi32_mask(a), s::mm512_movepi32_mask(sa));
    SAME("mask_blend_epi32", _mm512_mask_blend_epi32(km, a, b), s::mm512_mask_blend_epi32(km, sa, sb));
    SAME("mask_blend_ps", _mm512_mask_blend_ps(km, x, y), s::mm512_mask_blend_ps(km, sx, sy));
    SAME("maskz_mov_epi32", _mm512_maskz_mov_epi32(km, a), s::mm512_maskz_mov_epi32(km, sa));
    SAME("mask_or_epi32", _mm512_mask_or_epi32(c, km, a, b), s::mm512_mask_or_epi32(sc, km, sa, sb));
    SAME("mask_mov_epi16", _mm256_mask_mov_epi16(h, km, h2), s::mm256_mask_mov_epi16(sh, km, sh2));
    SAME("cmpeq_epi16_mask", _mm256_cmpeq_epi16_mask(h, h2), s::mm256_cmpeq_epi16_mask(sh, sh2));
    SAME("cmpeq_epi16_mask (equal lanes)", _mm256_cmpeq_epi16_mask(h, _mm256_mask_mov_epi16(h, km, h2)),
         s::mm256_cmpeq_epi16_mask(sh, s::mm256_mask_mov_epi16(sh, km, sh2)));
    SAME("cvtepi32_epi16", _mm512_cvtepi32_epi16(a), s::mm512_cvtepi32_epi16(sa));
    SAME("cvtepu16_epi32", _mm512_cvtepu16_epi32(h), s::mm512_cvtepu16_epi32(sh));
    SAME_FP("add_ps", __m512, _mm512_add_ps(opaque(x), y), s::mm512_add_ps(opaque(sx), sy));
    SAME_FP("sub_ps", __m512, _mm512_sub_ps(opaque(x), y), s::mm512_sub_ps(opaque(sx), sy));
    SAME_FP("mul_ps", __m512, _mm512_mul_ps(opaque(x), y), s::mm512_mul_ps(opaque(sx), sy));
    SAME_FP("div_ps", __m512, _mm512_div_ps(opaque(x), y), s::mm512_div_ps(opaque(sx), sy));
    SAME_FP("fmadd_ps", __m512, _mm512_fmadd_ps(opaque(x), y, z), s::mm512_fmadd_ps(opaque(sx), sy, sz));
    SAME_FP("cmp_ps_mask EQ_OQ", std::uint16_t, _mm512_cmp_ps_mask(opaque(x), y, _CMP_EQ_OQ), s::mm512_cmp_ps_mask<s::cmp_eq_oq>(opaque(sx), sy));
    SAME_FP("cmp_ps_mask NEQ_OQ", std::uint16_t, _mm512_cmp_ps_mask(opaque(x), y, _CMP_NEQ_OQ), s::mm512_cmp_ps_mask<s::cmp_neq_oq>(opaque(sx), sy));
    SAME_FP("cmp_ps_mask UNORD_Q", std::uint16_t, _mm512_cmp_ps_mask(opaque(x), y, _CMP_UNORD_Q), s::mm512_cmp_ps_mask<s::cmp_unord_q>(opaque(sx), sy));
    SAME_FP("cmp_ps_mask EQ_OQ (x, x)", std::uint16_t, _mm512_cmp_ps_mask(opaque(x), x, _CMP_EQ_OQ), s::mm512_cmp_ps_mask<s::cmp_eq_oq>(opaque(sx), sx));
    SAME_FP("mask_cvtps_ph RNE", __m256i, _mm512_mask_cvtps_ph(h, km, opaque(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
            s::mm512_mask_cvtps_ph<_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC>(sh, km, opaque(sx)));
    SAME_FP("mask_cvtps_ph RZ", __m256i, _mm512_mask_cvtps_ph(h, 0xFFFF, opaque(x), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
            s::mm512_mask_cvtps_ph<_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>(sh, 0xFFFF, opaque(sx)));
    SAME_FP("mask_cvtps_ph RU", __m256i, _mm512_mask_cvtps_ph(h, 0xFFFF, opaque(x), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC),
            s::mm512_mask_cvtps_ph<_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC>(sh, 0xFFFF, opaque(sx)));
    SAME_FP("mask_cvtps_ph RD", __m256i, _mm512_mask_cvtps_ph(h, 0xFFFF, opaque(x), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
            s::mm512_mask_cvtps_ph<_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC>(sh, 0xFFFF, opaque(sx)));
    SAME_FP("mask_cvtph_ps", __m512, _mm512_mask_cvtph_ps(y, km, opaque(h)), s::mm512_mask_cvtph_ps(sy, km, opaque(sh)));
    SAME_FP("mask_cvtph_ps (full)", __m512, _mm512_mask_cvtph_ps(y, 0xFFFF, opaque(h)), s::mm512_mask_cvtph_ps(sy, 0xFFFF, opaque(sh)));
  }
}

/// Runs one instruction set's comparisons where the CPU has it: every mismatching operation named.
void verdict(bool cpu_has, const char* set, void (*run)(source&, report&, int)) {
  if (!cpu_has) {
    MESSAGE("skipped: this CPU lacks " << std::string(set));
    return;
  }
  source src;
  report rep;
  run(src, rep, 20000);
  for (const auto& name : rep.bad) FAIL_CHECK(std::string(set) << ": differs from the intrinsic: " << name);
  CHECK(rep.bad.empty());
  CHECK(rep.checks > 1000000);
  MESSAGE(std::string(set) << ": " << rep.checks << " comparisons");
}

}  // namespace

TEST_CASE("fast/x86_simd.hpp: each operation equals the compiler's intrinsic (AVX2, F16C, FMA)") {
  verdict(lf::detail::cpu().avx2_f16c && lf::detail::cpu().fma, "AVX2, F16C and FMA", run_avx2);
}

TEST_CASE("fast/x86_simd.hpp: each operation equals the compiler's intrinsic (AVX-512 F/BW/VL/DQ)") {
  verdict(lf::detail::cpu().avx512, "AVX-512 F/BW/VL/DQ", run_avx512);
}

#else
TEST_CASE("fast/x86_simd.hpp: not an x86 build") { MESSAGE("skipped: fast/x86_simd.hpp serves x86 only"); }
#endif
