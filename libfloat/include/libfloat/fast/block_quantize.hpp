// libfloat/fast/block_quantize.hpp: MX element quantization by integer operations.
//
// Proof: ctest tests proof_block_quantize_<i>of<n>, label `proof` (tests/fast/test_block_quantize_proof.cpp):
// for every element format this file serves (E4M3, E5M2, FP6 E3M2, FP6 E2M3, FP4 E2M1) and every
// finite binary32 x, with the power-of-two scale exponents k = 0, -127 and 127 (the ends and the middle
// of E8M0's range), mx_element_rne and the run kernel mx_elements_rne on each path the CPU has
// (portable; AVX2, 8 lanes; AVX-512, 16 lanes; a path the CPU lacks is reported as skipped) give,
// element by element,
// the code and the flags that the core gives for
// lf::convert(F, binary64, x * 2^-k) under nearest even with the saturating policy (tininess after
// rounding, no FTZ, no DAZ). The result depends on k only through the exponent E = e(x) - k, which
// those three cover from -276 to 254, everything the E8M0 range can give.
//
// What it computes, for x = (-1)^s * sig * 2^(E - 23) with sig a 24-bit integer (a normalised
// subnormal x included) and E = e(x) - k: the significand shifted right to the element's quantum
// 2^(max(E, emin) - M) (M fraction bits), rounded to nearest even from the discarded bits, the code
// assembled from the exponent and the rounded significand (a carry moves to the next binade by plain
// addition), and codes above the format's max finite clamped to it with overflow and inexact. Tiny
// (after rounding): the result rounded to M + 1 bits with an unbounded exponent is below 2^emin.
// Nothing reads the floating-point environment.
//
// NVFP4 (E2M1 elements with any E4M3 x binary32 divisor, and the E4M3 block scales) is proven by the
// same test's second case: mx_e2m1_rne_div on each path against the core's division for every finite
// binary32 x and five divisors, and e4m3_scale_table against the core's division for every positive
// finite binary32 amax and five tensor scales (see each function for its domain), its 8-lane codes()
// against code() on the same amax on each path. mx_amax_bits and mx_amax_runs (not roundings), and the
// MX row kernel mx_blocks_e8m0 (its elements are the run kernels' lane code; which blocks it takes,
// their scales and flags), are compared with the core-only quantizer through mx_quantize on each path.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>

#if defined(LIBFLOAT_ARRAY_X86)
#include <immintrin.h>
#endif

namespace lf::fast {

/// The parameters of an element format for mx_element_rne: fraction bits M, emin, the sign bit
/// position and the largest finite code (magnitude).
struct mx_element_params {
  int fraction_bits;
  int emin;
  int sign_shift;
  std::uint32_t max_code;
};

constexpr mx_element_params mx_params(const format& f) {
  return {f.fraction_bits(), f.emin(), f.bits() - 1, static_cast<std::uint32_t>(f.max_finite_bits())};
}

/// Whether mx_e2m1_rne_div serves the divisor d (see there).
inline bool mx_e2m1_divisor_ok(double d) {
  if (!(d > 0x1p-1000 && d < 0x1p1000)) return false;
  const std::uint64_t sig = (std::bit_cast<std::uint64_t>(d) & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  return 53 - std::countr_zero(sig) <= 28;
}

/// NVFP4's block scales for one denominator d = max_elem * T (the element format's largest value times
/// the binary32 tensor scale): code(amax) is the E4M3 code of amax / d rounded to nearest even, for amax
/// a positive finite binary32 value. Usable when ok(d): d between 2^-900 and 2^900 with at most 48
/// significant bits (6 * T has at most 26). code() serves the quotients q in [2^-6, 448) (an E4M3
/// normal result: no underflow, no overflow, only inexact) that are not a midpoint between two E4M3
/// values: there it returns the code and sets `inexact` when q is not the code's value; it returns -1
/// for every other input (the caller then takes the core's division).
/// How: a candidate code from amax * (1 / d) in binary64 rounded to 4 significant bits, accepted only when
/// q lies strictly between the midpoints to its neighbours, decided exactly: lo * d < amax < hi * d,
/// where lo and hi have at most 5 significant bits, so each product has at most 53 and is exact (the
/// table holds them per code), as are 2^-6 * d, 448 * d and value * d. An accepted code is the
/// nearest E4M3 value to q by definition, whatever the candidate's own rounding did.
/// Proof: tests/fast/test_block_quantize_proof.cpp compares it with the core's division (lf::detail::
/// divide_into, nearest even, saturating) on every positive finite binary32 amax for a set of d.
class e4m3_scale_table {
 public:
  static bool ok(double d) {
    if (!(d > 0x1p-900 && d < 0x1p900)) return false;
    const std::uint64_t sig = (std::bit_cast<std::uint64_t>(d) & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    return 53 - std::countr_zero(sig) <= 48;
  }
  explicit e4m3_scale_table(double d) : inv_(1.0 / d), min_(0x1p-6 * d), max_(448.0 * d), d_(d) {
    for (int code = 8; code <= 126; ++code) {  // the normal codes: exponent field 1..15, max finite 126
      const int e = (code >> 3) - 7, f = code & 7;
      const double v = std::ldexp(1.0 + f / 8.0, e), ulp = std::ldexp(1.0, e - 3);
      const double below = f == 0 && e > -6 ? ulp / 2 : ulp;  // the spacing to the neighbour below
      lo_[code] = (v - below / 2) * d;
      hi_[code] = (v + ulp / 2) * d;
      val_[code] = v * d;
    }
  }
  int code(double amax, bool& inexact) const {
    if (!(amax >= min_ && amax < max_)) return -1;
    // (a product with 1 / d, within a few binary64 ulps of q: a candidate only, checked below)
    std::uint64_t b = std::bit_cast<std::uint64_t>(amax * inv_);
    constexpr std::uint64_t half = std::uint64_t{1} << 48, drop = (std::uint64_t{1} << 49) - 1;
    b = (b + (half - 1) + ((b >> 49) & 1)) & ~drop;  // to nearest even at 3 fraction bits
    const int code = ((static_cast<int>(b >> 52) - 1023 + 7) << 3) | static_cast<int>((b >> 49) & 7);
    if (code < 8 || code > 126) return -1;  // (amax * (1 / d) may fall just outside [2^-6, 448])
    if (!(amax > lo_[code] && amax < hi_[code])) return -1;  // a midpoint, or a candidate off by one
    inexact = amax != val_[code];
    return code;
  }
  /// What codes() found besides the codes: some amax it left (code -1), some code it gave inexact.
  struct summary {
    bool left = false, inexact = false;
  };
  /// code() for the binary32 amax whose bits are amax_bits[0..n) (magnitudes: a NaN's or an infinity's
  /// bits give -1, as amax outside [2^-6 d, 448 d)), at once: out[i] = the code, 0xFF where code()
  /// gives -1 (no E4M3 normal code is 0xFF); inexact_each[i], when given, 1 where that code is inexact;
  /// the summary of all. On AVX-512 (8 lanes of binary64) or AVX2 (4 lanes), where the CPU has it and
  /// lf::array_dispatch_in_use() allows, the same steps as lane operations, with the table's three
  /// values computed in place: the candidate's value v (the rounded bits themselves), and
  /// lo = (v - below / 2) * d, hi = (v + ulp / 2) * d, each exact as in the table (v -+ half a spacing
  /// has at most 5 significant bits, d at most 48). Proof: tests/fast/test_block_quantize_proof.cpp
  /// compares it with code() on every positive finite binary32 amax for five tensor scales, and
  /// code() with the core.
  summary codes(const std::uint32_t* amax_bits, std::uint8_t* out, std::size_t n, std::uint8_t* inexact_each = nullptr) const;
  /// The E4M3 value of a normal code (8..126) that code() or codes() gave: 2^(e - 7) (1 + f / 8) for
  /// the exponent field e and the fraction f, exact in binary64.
  static double value(int code) {
    const auto biased = static_cast<std::uint64_t>((code >> 3) - 7 + 1023), f = static_cast<std::uint64_t>(code & 7);
    return std::bit_cast<double>(biased << 52 | f << 49);
  }
 private:
#if defined(LIBFLOAT_ARRAY_X86)
  std::size_t codes_avx512(const std::uint32_t* amax_bits, std::uint8_t* out, std::size_t n, std::uint8_t* inexact_each,
                           summary& sum) const;
  std::size_t codes_avx2(const std::uint32_t* amax_bits, std::uint8_t* out, std::size_t n, std::uint8_t* inexact_each,
                         summary& sum) const;
#endif
  double inv_, min_, max_, d_;
  double lo_[127] = {}, hi_[127] = {}, val_[127] = {};
};

/// Whether mx_element_rne serves format f: the five MX element formats (signed, at most 8 bits, with
/// subnormals; the all-ones codes above max finite, if any, are NaN or infinity).
constexpr bool mx_element_fast(const format& f) {
  return f == float8_e4m3fn || f == float8_e5m2 || f == float6_e3m2fn || f == float6_e2m3fn || f == float4_e2m1fn;
}

/// The code of the finite binary32 x (its bits) divided by 2^k, rounded to nearest even into the
/// element format with saturation; its flags are ORed into `flags` (status bits). Written without
/// data-dependent branches (selects instead), so that a loop over a block runs at a steady rate.
inline std::uint32_t mx_element_rne(std::uint32_t xb, int k, const mx_element_params& p, std::uint32_t& flags) {
  const std::uint32_t sign = (xb >> 31) << p.sign_shift;
  const std::uint32_t field = (xb >> 23) & 0xFF;
  const std::uint32_t mant = xb & 0x7FFFFF;
  // sig * 2^(e - 23) = |x| with sig a 24-bit integer: a binary32 subnormal is normalised (n = its
  // significant bits); a zero gives sig = 0, and then every step below gives the code 0, exactly.
  const int n = std::bit_width(mant);
  const bool normal = field != 0;
  const std::uint32_t sig = normal ? (mant | 0x800000u) : (mant << (24 - n));
  const int e = normal ? static_cast<int>(field) - 127 : n - 150;
  const int E = e - k;
  const int M = p.fraction_bits;
  // The element's quantum is 2^(max(E, emin) - M): drop sh bits of sig (capped at 25: sig < 2^24
  // is then below half the quantum, and rounds to zero).
  const int below = p.emin - E > 0 ? p.emin - E : 0;
  const int sh = 23 - M + below < 25 ? 23 - M + below : 25;
  const std::uint32_t q = sig >> sh;
  const std::uint32_t rem = sig & ((1u << sh) - 1);
  const std::uint32_t half = 1u << (sh - 1);
  const std::uint32_t r = q + static_cast<std::uint32_t>(rem > half || (rem == half && (q & 1)));
  // The code: biased exponent and fraction for a normal result (a carry to 2^(M+1) moves on to the
  // next exponent by the addition), the rounded significand itself for a subnormal one (2^M there is
  // the smallest normal's code).
  const int normal_code = ((E - p.emin + 1) << M) + static_cast<int>(r) - (1 << M);
  const std::uint32_t code = E >= p.emin ? static_cast<std::uint32_t>(normal_code) : r;
  // Tiny after rounding: below 2^emin when rounded to M + 1 bits with an unbounded exponent. Only
  // E = emin - 1 can round up to 2^emin: then the top M + 1 bits of sig are all ones and round up.
  const int shu = 23 - M;
  const std::uint32_t qu = sig >> shu, remu = sig & ((1u << shu) - 1), halfu = 1u << (shu - 1);
  const std::uint32_t ru = qu + static_cast<std::uint32_t>(remu > halfu || (remu == halfu && (qu & 1)));
  const bool tiny = E < p.emin - 1 || (E == p.emin - 1 && ru < (2u << M));
  const bool inexact = rem != 0;
  // Beyond max finite: the code of max finite, with overflow and inexact (the conversion saturates).
  // A normal code is at least 2^M > 0 here, so the unsigned compare also holds for large E.
  const bool over = code > p.max_code;
  flags |= static_cast<std::uint32_t>(inexact || over) * to_bits(status::inexact) |
           static_cast<std::uint32_t>(inexact && tiny) * to_bits(status::underflow) |
           static_cast<std::uint32_t>(over) * to_bits(status::overflow);
  return sign | (over ? p.max_code : code);
}

namespace detail {

/// The portable run: n elements of x divided by 2^k; element flags into per_element when given.
inline std::uint32_t mx_elements_rne_portable(const float* x, std::uint8_t* out, std::size_t n, int k,
                                               const mx_element_params& p, std::uint8_t* per_element) {
  std::uint32_t flags = 0;
  for (std::size_t j = 0; j < n; ++j) {
    std::uint32_t f = 0;
    out[j] = static_cast<std::uint8_t>(mx_element_rne(std::bit_cast<std::uint32_t>(x[j]), k, p, f));
    if (per_element) per_element[j] = static_cast<std::uint8_t>(f);
    flags |= f;
  }
  return flags;
}

#if defined(LIBFLOAT_ARRAY_X86)
/// mx_element_rne on the 8 lanes of xb (binary32 bits, none of them a binary32 subnormal) as AVX2 lane
/// operations, with v_k127 = 127 + k in every lane: the codes (one per 32-bit lane), and each lane's
/// flags ORed into the accumulators (all-ones lanes). Shared by the run kernel below and the block
/// kernel mx_blocks_e8m0_x86 (the constants are loop invariants once it is inlined).
[[gnu::always_inline]] __attribute__((target("avx2"))) inline __m256i mx_rne8_avx2(__m256i xb, __m256i v_k127,
                                                                                    const mx_element_params& p,
                                                                                    __m256i& inexact_any, __m256i& under,
                                                                                    __m256i& over) {
  const int M = p.fraction_bits;
  const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
  const __m256i v_emin = _mm256_set1_epi32(p.emin);
  const __m256i v_sh0 = _mm256_set1_epi32(23 - M), v_25 = _mm256_set1_epi32(25);
  const __m256i v_maxcode = _mm256_set1_epi32(static_cast<int>(p.max_code));
  const __m256i v_emin1 = _mm256_set1_epi32(p.emin - 1), v_carry = _mm256_set1_epi32((1 << 24) - (1 << (22 - M)));
  const __m128i shift_m = _mm_cvtsi32_si128(M);
  const __m128i shift_sign = _mm_cvtsi32_si128(p.sign_shift);
  const __m256i field = _mm256_and_si256(_mm256_srli_epi32(xb, 23), _mm256_set1_epi32(0xFF));
  const __m256i mant = _mm256_and_si256(xb, _mm256_set1_epi32(0x7FFFFF));
  const __m256i field0 = _mm256_cmpeq_epi32(field, zero);
  // sig: 0 for a zero (field 0, mantissa 0), the mantissa with its hidden bit otherwise.
  const __m256i sig = _mm256_andnot_si256(field0, _mm256_or_si256(mant, _mm256_set1_epi32(0x800000)));
  const __m256i E = _mm256_sub_epi32(field, v_k127);
  const __m256i below = _mm256_max_epi32(_mm256_sub_epi32(v_emin, E), zero);
  const __m256i sh = _mm256_min_epi32(_mm256_add_epi32(v_sh0, below), v_25);
  const __m256i q = _mm256_srlv_epi32(sig, sh);
  const __m256i bit = _mm256_sllv_epi32(one, sh);
  const __m256i rem = _mm256_and_si256(sig, _mm256_sub_epi32(bit, one));
  const __m256i half = _mm256_srli_epi32(bit, 1);
  const __m256i q_odd = _mm256_cmpeq_epi32(_mm256_and_si256(q, one), one);
  const __m256i up = _mm256_or_si256(_mm256_cmpgt_epi32(rem, half),
                                     _mm256_and_si256(_mm256_cmpeq_epi32(rem, half), q_odd));
  const __m256i r = _mm256_sub_epi32(q, up);  // up is -1 where it rounds up
  // The code (see mx_rne16_avx512): r + ((E - emin) << M) for E >= emin, r below; 0 for a zero lane
  // (field 0 here, whose E = -127 - k may look normal).
  const __m256i above = _mm256_max_epi32(_mm256_sub_epi32(E, v_emin), zero);
  const __m256i code = _mm256_andnot_si256(field0, _mm256_add_epi32(r, _mm256_sll_epi32(above, shift_m)));
  // tiny after rounding (see mx_rne16_avx512)
  const __m256i tiny = _mm256_or_si256(_mm256_cmpgt_epi32(v_emin1, E),
                                       _mm256_and_si256(_mm256_cmpeq_epi32(E, v_emin1), _mm256_cmpgt_epi32(v_carry, sig)));
  const __m256i inexact = _mm256_xor_si256(_mm256_cmpeq_epi32(rem, zero), _mm256_set1_epi32(-1));
  over = _mm256_cmpgt_epi32(code, v_maxcode);
  const __m256i sign = _mm256_sll_epi32(_mm256_srli_epi32(xb, 31), shift_sign);
  inexact_any = _mm256_or_si256(inexact, over);
  under = _mm256_and_si256(inexact, tiny);
  return _mm256_or_si256(sign, _mm256_blendv_epi8(code, v_maxcode, over));
}

/// Whether any of the 8 lanes of xb is a binary32 subnormal (exponent field 0, mantissa not 0): the
/// vector kernels leave such a group to the portable code (normalising one needs a count of leading
/// zeros, which AVX2 lacks).
[[gnu::always_inline]] __attribute__((target("avx2"))) inline bool mx_any_subnormal_avx2(__m256i xb) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i field0 = _mm256_cmpeq_epi32(_mm256_and_si256(xb, _mm256_set1_epi32(0x7F800000)), zero);
  const __m256i mant0 = _mm256_cmpeq_epi32(_mm256_and_si256(xb, _mm256_set1_epi32(0x7FFFFF)), zero);
  return !_mm256_testz_si256(_mm256_andnot_si256(mant0, field0), field0);
}

/// The low bytes of the 8 lanes of res (codes of at most 8 bits) to dst[0..8).
[[gnu::always_inline]] __attribute__((target("avx2"))) inline void mx_store8_avx2(std::uint8_t* dst, __m256i res) {
  const __m256i w16 = _mm256_packus_epi32(res, res);  // in-lane packs, then the two 4-byte halves gathered
  const __m256i w8 = _mm256_packus_epi16(w16, w16);
  const __m256i both = _mm256_permutevar8x32_epi32(w8, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(both));
}

/// The MX kernels' flag accumulators on AVX2 (all-ones lanes) and their reduction to status bits.
struct mx_flags_avx2 {
  __m256i inexact, under, over;
};
[[gnu::always_inline]] __attribute__((target("avx2"))) inline void mx_flags_clear_avx2(mx_flags_avx2& acc) {
  acc.inexact = acc.under = acc.over = _mm256_setzero_si256();
}
[[gnu::always_inline]] __attribute__((target("avx2"))) inline std::uint32_t mx_flags_bits_avx2(const mx_flags_avx2& acc) {
  return (_mm256_testz_si256(acc.inexact, acc.inexact) ? 0u : to_bits(status::inexact)) |
         (_mm256_testz_si256(acc.under, acc.under) ? 0u : to_bits(status::underflow)) |
         (_mm256_testz_si256(acc.over, acc.over) ? 0u : to_bits(status::overflow));
}

/// One group of 8 elements x[0..8) in the MX kernels on AVX2: a group holding a binary32 subnormal
/// to the portable code (its flags into `flags`), the others through mx_rne8_avx2 (flags into acc);
/// codes to out, each element's flags to per_element when given.
[[gnu::always_inline]] __attribute__((target("avx2"))) inline void mx_group8_avx2(const float* x, std::uint8_t* out,
                                                                                  __m256i v_k127, int k,
                                                                                  const mx_element_params& p,
                                                                                  std::uint8_t* per_element,
                                                                                  mx_flags_avx2& acc, std::uint32_t& flags) {
  const __m256i xb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  if (mx_any_subnormal_avx2(xb)) {
    flags |= mx_elements_rne_portable(x, out, 8, k, p, per_element);
    return;
  }
  __m256i inexact_any, under, over;
  mx_store8_avx2(out, mx_rne8_avx2(xb, v_k127, p, inexact_any, under, over));
  acc.inexact = _mm256_or_si256(acc.inexact, inexact_any);
  acc.under = _mm256_or_si256(acc.under, under);
  acc.over = _mm256_or_si256(acc.over, over);
  if (per_element)
    mx_store8_avx2(per_element,
                   _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(inexact_any, _mm256_set1_epi32(to_bits(status::inexact))),
                                                   _mm256_and_si256(under, _mm256_set1_epi32(to_bits(status::underflow)))),
                                   _mm256_and_si256(over, _mm256_set1_epi32(to_bits(status::overflow)))));
}

/// The run kernel on 8 lanes of AVX2 (mx_rne8_avx2). A group of 8 holding a binary32 subnormal takes
/// the portable code, and so does a tail of fewer than 8.
__attribute__((target("avx2"))) inline std::uint32_t mx_elements_rne_avx2(const float* x, std::uint8_t* out,
                                                                          std::size_t n, int k,
                                                                          const mx_element_params& params,
                                                                          std::uint8_t* per_element) {
  const mx_element_params p = params;  // (a copy: the byte stores below may not change it)
  const __m256i v_k127 = _mm256_set1_epi32(127 + k);
  mx_flags_avx2 acc;
  mx_flags_clear_avx2(acc);
  std::uint32_t flags = 0;
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) mx_group8_avx2(x + j, out + j, v_k127, k, p, per_element ? per_element + j : nullptr, acc, flags);
  flags |= mx_flags_bits_avx2(acc);
  if (j < n) flags |= mx_elements_rne_portable(x + j, out + j, n - j, k, p, per_element ? per_element + j : nullptr);
  return flags;
}

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32() (an uninitialised variable), which
// -Wmaybe-uninitialized reports once inlined here (as in fast/array_kernels.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define LIBFLOAT_BQ_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
/// mx_element_rne on the 16 lanes of xb (binary32 bits, none of them a binary32 subnormal) as AVX-512
/// lane operations (F, BW, VL, DQ; compares give mask registers), with v_k127 = 127 + k in every lane:
/// the codes (one per 32-bit lane), and each lane's flags in the masks. Shared by the run kernel below
/// and the block kernel mx_blocks_e8m0_x86.
/// (the masked forms with a full mask: GCC 12's unmasked ones start from _mm512_undefined_*(), which
/// -Wmaybe-uninitialized reports wherever a precompiled header holds this file, pragmas or not)
[[gnu::always_inline]] LIBFLOAT_BQ_AVX512 inline __m512i mx_rne16_avx512(__m512i xb, __m512i v_k127,
                                                                        const mx_element_params& p,
                                                                        __mmask16& inexact_any, __mmask16& under,
                                                                        __mmask16& over) {
  const int M = p.fraction_bits;
  const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
  const __m512i v_emin = _mm512_set1_epi32(p.emin);
  const __m512i v_sh0 = _mm512_set1_epi32(23 - M), v_25 = _mm512_set1_epi32(25);
  const __m512i v_maxcode = _mm512_set1_epi32(static_cast<int>(p.max_code));
  const __m512i v_emin1 = _mm512_set1_epi32(p.emin - 1), v_carry = _mm512_set1_epi32((1 << 24) - (1 << (22 - M)));
  const __m512i v_m = _mm512_set1_epi32(M), v_sign = _mm512_set1_epi32(p.sign_shift);
  constexpr __mmask16 all = 0xFFFF;
  const __m512i field = _mm512_and_si512(_mm512_maskz_srli_epi32(all, xb, 23), _mm512_set1_epi32(0xFF));
  const __m512i mant = _mm512_and_si512(xb, _mm512_set1_epi32(0x7FFFFF));
  const __mmask16 field0 = _mm512_cmpeq_epi32_mask(field, zero);
  const __m512i sig = _mm512_maskz_or_epi32(static_cast<__mmask16>(~field0), mant, _mm512_set1_epi32(0x800000));
  const __m512i E = _mm512_sub_epi32(field, v_k127);
  const __m512i below = _mm512_maskz_max_epi32(all, _mm512_sub_epi32(v_emin, E), zero);
  const __m512i sh = _mm512_maskz_min_epi32(all, _mm512_add_epi32(v_sh0, below), v_25);
  const __m512i q = _mm512_maskz_srlv_epi32(all, sig, sh);
  const __m512i bit = _mm512_maskz_sllv_epi32(all, one, sh);
  const __m512i rem = _mm512_and_si512(sig, _mm512_sub_epi32(bit, one));
  const __m512i half = _mm512_maskz_srli_epi32(all, bit, 1);
  const __mmask16 q_odd = _mm512_test_epi32_mask(q, one);
  const __mmask16 up = _mm512_cmpgt_epi32_mask(rem, half) | (_mm512_cmpeq_epi32_mask(rem, half) & q_odd);
  const __m512i r = _mm512_mask_add_epi32(q, up, q, one);
  // The code: for E >= emin, r holds the hidden bit (2^M, the smallest normal's code) and the code is
  // r + ((E - emin) << M) (a carry to 2^(M+1) moves on to the next exponent by the addition); below
  // emin it is r itself. A zero lane (field 0 here, whose E = -127 - k may look normal) gives 0.
  const __m512i above = _mm512_maskz_max_epi32(all, _mm512_sub_epi32(E, v_emin), zero);
  const __m512i code = _mm512_maskz_add_epi32(static_cast<__mmask16>(~field0), r, _mm512_maskz_sllv_epi32(all, above, v_m));
  // Tiny after rounding: below 2^emin when rounded to M + 1 bits with an unbounded exponent. Only
  // E = emin - 1 can round up to 2^emin: when the top M + 1 bits of sig are all ones (odd) and the
  // bits below are at least half, that is sig >= 2^24 - 2^(22 - M).
  const __mmask16 tiny = _mm512_cmpgt_epi32_mask(v_emin1, E) |
                         (_mm512_cmpeq_epi32_mask(E, v_emin1) & _mm512_cmpgt_epi32_mask(v_carry, sig));
  const __mmask16 inexact = _mm512_cmpneq_epi32_mask(rem, zero);
  over = _mm512_cmpgt_epi32_mask(code, v_maxcode);
  const __m512i sign = _mm512_maskz_sllv_epi32(all, _mm512_maskz_srli_epi32(all, xb, 31), v_sign);
  inexact_any = inexact | over;
  under = inexact & tiny;
  return _mm512_or_si512(sign, _mm512_mask_blend_epi32(over, code, v_maxcode));
}

/// Whether any of the 16 lanes of xb is a binary32 subnormal (the AVX-512 kernels leave such a group
/// to the AVX2 code, and that to the portable one).
[[gnu::always_inline]] LIBFLOAT_BQ_AVX512 inline bool mx_any_subnormal_avx512(__m512i xb) {
  const __m512i zero = _mm512_setzero_si512();
  return (_mm512_cmpeq_epi32_mask(_mm512_and_si512(xb, _mm512_set1_epi32(0x7F800000)), zero) &
          _mm512_cmpneq_epi32_mask(_mm512_and_si512(xb, _mm512_set1_epi32(0x7FFFFF)), zero)) != 0;
}

/// One group of 16 elements x[0..16) in the MX kernels on AVX-512: when `maybe_subnormal`, a group
/// holding a binary32 subnormal to the AVX2 code (its flags into `flags`); the others through
/// mx_rne16_avx512 (flags into the masks acc: inexact, underflow, overflow); codes to out, each
/// element's flags to per_element when given.
[[gnu::always_inline]] LIBFLOAT_BQ_AVX512 inline void mx_group16_avx512(const float* x, std::uint8_t* out, __m512i v_k127,
                                                                       int k, const mx_element_params& p,
                                                                       bool maybe_subnormal, std::uint8_t* per_element,
                                                                       __mmask16 (&acc)[3], std::uint32_t& flags) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512i xb = _mm512_loadu_si512(x);
  if (maybe_subnormal && mx_any_subnormal_avx512(xb)) {
    flags |= mx_elements_rne_avx2(x, out, 16, k, p, per_element);
    return;
  }
  __mmask16 inexact_any, under, over;
  const __m512i res = mx_rne16_avx512(xb, v_k127, p, inexact_any, under, over);
  acc[0] |= inexact_any;
  acc[1] |= under;
  acc[2] |= over;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_maskz_cvtepi32_epi8(all, res));
  if (per_element) {
    __m512i fl = _mm512_maskz_mov_epi32(inexact_any, _mm512_set1_epi32(to_bits(status::inexact)));
    fl = _mm512_mask_or_epi32(fl, under, fl, _mm512_set1_epi32(to_bits(status::underflow)));
    fl = _mm512_mask_or_epi32(fl, over, fl, _mm512_set1_epi32(to_bits(status::overflow)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(per_element), _mm512_maskz_cvtepi32_epi8(all, fl));
  }
}

/// The status bits of the masks acc (inexact, underflow, overflow).
inline std::uint32_t mx_flags_bits_masks(const __mmask16 (&acc)[3]) {
  return (acc[0] ? to_bits(status::inexact) : 0u) | (acc[1] ? to_bits(status::underflow) : 0u) |
         (acc[2] ? to_bits(status::overflow) : 0u);
}

/// The run kernel on 16 lanes of AVX-512 (mx_rne16_avx512). A group of 16 holding a binary32
/// subnormal, and a tail of fewer than 16, take the AVX2 code.
LIBFLOAT_BQ_AVX512 inline std::uint32_t mx_elements_rne_avx512(const float* x, std::uint8_t* out, std::size_t n, int k,
                                                              const mx_element_params& params, std::uint8_t* per_element) {
  const mx_element_params p = params;  // (a copy: the byte stores below may not change it)
  const __m512i v_k127 = _mm512_set1_epi32(127 + k);
  __mmask16 acc[3] = {0, 0, 0};
  std::uint32_t flags = 0;
  std::size_t j = 0;
  for (; j + 16 <= n; j += 16)
    mx_group16_avx512(x + j, out + j, v_k127, k, p, true, per_element ? per_element + j : nullptr, acc, flags);
  flags |= mx_flags_bits_masks(acc);
  if (j < n) flags |= mx_elements_rne_avx2(x + j, out + j, n - j, k, p, per_element ? per_element + j : nullptr);
  return flags;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

}  // namespace detail

/// The largest of the magnitudes' bits |x[j]| (as unsigned integers: for non-negative binary32 values
/// that order is the numeric order; a NaN or an infinity gives at least 0x7F800000), 0 for n = 0. Not
/// a rounding: mx_quantize's blocks use it for amax, and its result is compared with the portable
/// loop's by tests/fast/test_block_quantize_proof.cpp.
inline std::uint32_t mx_amax_bits_portable(const float* x, std::size_t n) {
  std::uint32_t m = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(x[j]) & 0x7FFFFFFFu;
    m = b > m ? b : m;
  }
  return m;
}

/// What mx_amax_runs returns besides each run's bits: the largest of them, and the largest below
/// 0x7F800000 (of the runs with no NaN and no infinity; 0 when there is none).
struct mx_runs_max {
  std::uint32_t all = 0, finite = 0;
  void add(std::uint32_t v) {
    all = v > all ? v : all;
    finite = v < 0x7F800000u && v > finite ? v : finite;
  }
};

/// mx_amax_runs (see there) in portable code.
inline mx_runs_max mx_amax_runs_portable(const float* x, std::size_t n, std::size_t block, std::uint32_t* out) {
  mx_runs_max m;
  for (std::size_t j = 0; j < n; j += block) m.add(*out++ = mx_amax_bits_portable(x + j, block < n - j ? block : n - j));
  return m;
}

#if defined(LIBFLOAT_ARRAY_X86)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// The largest of the 16 lanes of m (unsigned) in every lane.
[[gnu::always_inline]] LIBFLOAT_BQ_AVX512 inline __m512i mx_hmax_epu32_avx512(__m512i m) {
  constexpr __mmask16 all = 0xFFFF;
  m = _mm512_maskz_max_epu32(all, m, _mm512_maskz_shuffle_i32x4(all, m, m, 0x4E));  // 256-bit halves swapped
  m = _mm512_maskz_max_epu32(all, m, _mm512_maskz_shuffle_i32x4(all, m, m, 0xB1));  // 128-bit quarters
  m = _mm512_maskz_max_epu32(all, m, _mm512_maskz_shuffle_epi32(all, m, static_cast<_MM_PERM_ENUM>(0x4E)));
  return _mm512_maskz_max_epu32(all, m, _mm512_maskz_shuffle_epi32(all, m, static_cast<_MM_PERM_ENUM>(0xB1)));
}

LIBFLOAT_BQ_AVX512 inline std::uint32_t mx_amax_bits_avx512(const float* x, std::size_t n) {
  __m512i m = _mm512_setzero_si512();
  const __m512i mask = _mm512_set1_epi32(0x7FFFFFFF);
  std::size_t j = 0;
  for (; j + 16 <= n; j += 16) m = _mm512_maskz_max_epu32(0xFFFF, m, _mm512_and_si512(_mm512_loadu_si512(x + j), mask));
  if (j < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - j)) - 1);
    m = _mm512_maskz_max_epu32(0xFFFF, m, _mm512_and_si512(_mm512_maskz_loadu_epi32(tail, x + j), mask));
  }
  return static_cast<std::uint32_t>(_mm512_cvtsi512_si32(mx_hmax_epu32_avx512(m)));
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#if defined(LIBFLOAT_ARRAY_X86)
/// The same on 8 lanes of AVX2 (an unsigned maximum of the magnitudes' bits); a tail of fewer than 8
/// takes the portable loop.
__attribute__((target("avx2"))) inline std::uint32_t mx_amax_bits_avx2(const float* x, std::size_t n) {
  __m256i m = _mm256_setzero_si256();
  const __m256i mask = _mm256_set1_epi32(0x7FFFFFFF);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8)
    m = _mm256_max_epu32(m, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + j)), mask));
  __m128i h = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xB1));
  const auto r = static_cast<std::uint32_t>(_mm_cvtsi128_si32(h));
  const std::uint32_t t = j < n ? mx_amax_bits_portable(x + j, n - j) : 0;
  return r > t ? r : t;
}

/// mx_amax_bits of each run of `block` elements of x[0..n) (the last one shorter when block does not
/// divide n), to out[0..ceil(n / block)), on AVX2.
[[gnu::target("avx2")]] inline mx_runs_max mx_amax_runs_avx2(const float* x, std::size_t n, std::size_t block, std::uint32_t* out) {
  mx_runs_max m;
  for (std::size_t j = 0; j < n; j += block) m.add(*out++ = mx_amax_bits_avx2(x + j, block < n - j ? block : n - j));
  return m;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// The same on AVX-512: whole runs of 16 (NVFP4's blocks) one vector each (the largest and the largest
/// finite kept in lanes), others by mx_amax_bits_avx512.
LIBFLOAT_BQ_AVX512 inline mx_runs_max mx_amax_runs_avx512(const float* x, std::size_t n, std::size_t block, std::uint32_t* out) {
  constexpr __mmask16 all = 0xFFFF;
  std::size_t j = 0;
  mx_runs_max m;
  if (block == 16) {
    const __m512i mask = _mm512_set1_epi32(0x7FFFFFFF), infinity = _mm512_set1_epi32(0x7F800000);
    __m512i all_v = _mm512_setzero_si512(), finite_v = all_v;
    for (; j + 16 <= n; j += 16) {
      const __m512i h = mx_hmax_epu32_avx512(_mm512_and_si512(_mm512_loadu_si512(x + j), mask));
      *out++ = static_cast<std::uint32_t>(_mm512_cvtsi512_si32(h));
      all_v = _mm512_maskz_max_epu32(all, all_v, h);
      finite_v = _mm512_mask_max_epu32(finite_v, _mm512_cmplt_epu32_mask(h, infinity), finite_v, h);
    }
    m.all = static_cast<std::uint32_t>(_mm512_cvtsi512_si32(all_v));
    m.finite = static_cast<std::uint32_t>(_mm512_cvtsi512_si32(finite_v));
  }
  for (; j < n; j += block) m.add(*out++ = mx_amax_bits_avx512(x + j, block < n - j ? block : n - j));
  return m;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// The exponent k of the E8M0 scale that the OCP rule gives a block whose largest magnitude has the
/// bits amax (OCP MX v1.0 §6.3: 2^(floor(log2 amax) - emax_elem)), or mx_no_block when the block kernel
/// leaves the block to the caller (and models/block_scale.hpp's scale_of to the core's conversion): amax zero, a binary32 subnormal, a NaN or an infinity, or k outside
/// -127..127 (E8M0's finite range). For a normal binary32 amax, floor(log2 amax) is its exponent field
/// minus 127.
inline constexpr int mx_no_block = 1 << 20;
inline int mx_e8m0_block_k(std::uint32_t amax, int emax_elem) {
  const int field = static_cast<int>(amax >> 23);
  const int k = field - 127 - emax_elem;
  return field == 0 || field == 0xFF || k < -127 || k > 127 ? mx_no_block : k;
}

#if defined(LIBFLOAT_ARRAY_X86)
namespace detail {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// mx_blocks_e8m0 (see there) on 16 lanes of AVX-512; len is a multiple of 16.
LIBFLOAT_BQ_AVX512 inline std::size_t mx_blocks_e8m0_avx512(const float* x, std::uint8_t* out, std::uint8_t* scales,
                                                           std::size_t len, std::size_t count, int emax_elem,
                                                           const mx_element_params& params, std::uint32_t& flags) {
  const mx_element_params p = params;  // (a copy: the byte stores below may not change it)
  constexpr __mmask16 all = 0xFFFF;
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1);
  const __m512i below_normal = _mm512_set1_epi32(0x7FFFFF);
  __mmask16 acc[3] = {0, 0, 0};
  std::size_t b = 0;
  for (; b < count; ++b, x += len, out += len) {
    // the largest magnitude's bits, and whether the block holds a binary32 subnormal (magnitude bits
    // 1 .. 2^23 - 1: the elements of such a block are checked vector by vector below)
    __m512i m = _mm512_setzero_si512();
    __mmask16 subnormal = 0;
    for (std::size_t j = 0; j < len; j += 16) {
      const __m512i a = _mm512_and_si512(_mm512_loadu_si512(x + j), abs_mask);
      m = _mm512_maskz_max_epu32(all, m, a);
      subnormal |= _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), below_normal);
    }
    const int k = mx_e8m0_block_k(static_cast<std::uint32_t>(_mm512_cvtsi512_si32(mx_hmax_epu32_avx512(m))),
                                  emax_elem);
    if (k == mx_no_block) break;
    scales[b] = static_cast<std::uint8_t>(k + 127);
    const __m512i v_k127 = _mm512_set1_epi32(127 + k);
    for (std::size_t j = 0; j < len; j += 16)
      mx_group16_avx512(x + j, out + j, v_k127, k, p, subnormal != 0, nullptr, acc, flags);
  }
  flags |= mx_flags_bits_masks(acc);
  return b;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// mx_blocks_e8m0 on 8 lanes of AVX2; len is a multiple of 8.
__attribute__((target("avx2"))) inline std::size_t mx_blocks_e8m0_avx2(const float* x, std::uint8_t* out,
                                                                       std::uint8_t* scales, std::size_t len,
                                                                       std::size_t count, int emax_elem,
                                                                       const mx_element_params& params, std::uint32_t& flags) {
  const mx_element_params p = params;  // (a copy: the byte stores below may not change it)
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  mx_flags_avx2 acc;
  mx_flags_clear_avx2(acc);
  std::size_t b = 0;
  for (; b < count; ++b, x += len, out += len) {
    __m256i m = _mm256_setzero_si256();
    for (std::size_t j = 0; j < len; j += 8)
      m = _mm256_max_epu32(m, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + j)), abs_mask));
    __m128i h = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4E));
    h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xB1));
    const int k = mx_e8m0_block_k(static_cast<std::uint32_t>(_mm_cvtsi128_si32(h)), emax_elem);
    if (k == mx_no_block) break;
    scales[b] = static_cast<std::uint8_t>(k + 127);
    const __m256i v_k127 = _mm256_set1_epi32(127 + k);
    for (std::size_t j = 0; j < len; j += 8) mx_group8_avx2(x + j, out + j, v_k127, k, p, nullptr, acc, flags);
  }
  flags |= mx_flags_bits_avx2(acc);
  return b;
}

}  // namespace detail
#endif

/// mx_amax_bits_portable on AVX-512 or AVX2 where the CPU has it and the array dispatch allows.
inline std::uint32_t mx_amax_bits(const float* x, std::size_t n) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) return mx_amax_bits_avx512(x, n);
  if (path == array_dispatch::avx2) return mx_amax_bits_avx2(x, n);
#endif
  return mx_amax_bits_portable(x, n);
}

/// mx_amax_bits of each run of `block` (>= 1) elements of x[0..n), the last one shorter when block does
/// not divide n, to out[0..ceil(n / block)): one call for a row of blocks (the path is chosen once).
/// Returns the largest of them and the largest finite one (mx_runs_max).
inline mx_runs_max mx_amax_runs(const float* x, std::size_t n, std::size_t block, std::uint32_t* out) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) return mx_amax_runs_avx512(x, n, block, out);
  if (path == array_dispatch::avx2) return mx_amax_runs_avx2(x, n, block, out);
#endif
  return mx_amax_runs_portable(x, n, block, out);
}

/// n elements of x divided by 2^k (-127 <= k <= 127) rounded to nearest even into the element format,
/// saturating: codes to out, the ORed flags returned (status bits), and each element's flags to
/// per_element when it is not null. Runs on AVX-512 or AVX2 where the CPU has them and
/// lf::array_dispatch_in_use() allows (lf::set_array_dispatch(lf::array_dispatch::portable) forces the
/// portable loop, array_dispatch::avx2 the AVX2 one).
inline std::uint32_t mx_elements_rne(const float* x, std::uint8_t* out, std::size_t n, int k, const mx_element_params& p,
                                     std::uint8_t* per_element = nullptr) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) return detail::mx_elements_rne_avx512(x, out, n, k, p, per_element);
  if (path == array_dispatch::avx2) return detail::mx_elements_rne_avx2(x, out, n, k, p, per_element);
#endif
  return detail::mx_elements_rne_portable(x, out, n, k, p, per_element);
}

/// MX blocks with an E8M0 scale by the OCP rule (OCP MX v1.0 §6.3: 2^(floor(log2 amax) - emax_elem)),
/// as lf::mx_quantize's 1-D blocks take them (no tensor scale), in one pass: `count` consecutive whole
/// blocks of `len` elements of x, each block's largest magnitude (as mx_amax_bits), its scale code
/// k + 127 to scales[b] (k = floor(log2 amax) - emax_elem), and its elements divided by 2^k and rounded
/// as mx_elements_rne to out; the flags ORed into `flags`. Returns the number of blocks done: it stops
/// before the first block it does not serve, one whose amax is zero, a binary32 subnormal, a NaN or an
/// infinity, or whose k lies outside -127..127 (the caller's general code takes that block, and may
/// call again after it). Serves len a multiple of 16 on AVX-512 and of 8 on AVX2 (where the CPU has
/// them and lf::array_dispatch_in_use() allows); returns 0 otherwise.
/// Checked: the elements by mx_elements_rne's proof (the same lane code, mx_rne16_avx512 and
/// mx_rne8_avx2); the blocks, scales and the stop by tests/fast/test_block_quantize_proof.cpp, which
/// compares lf::mx_quantize on each path with the core's element loop, on data with blocks of each
/// kind the kernel leaves to the caller.
inline std::size_t mx_blocks_e8m0(const float* x, std::uint8_t* out, std::uint8_t* scales, std::size_t len,
                                  std::size_t count, int emax_elem, const mx_element_params& p, std::uint32_t& flags) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path) && len % 16 == 0)
    return detail::mx_blocks_e8m0_avx512(x, out, scales, len, count, emax_elem, p, flags);
  if ((lf::detail::is_avx512(path) || path == array_dispatch::avx2) && len % 8 == 0 && len != 0)
    return detail::mx_blocks_e8m0_avx2(x, out, scales, len, count, emax_elem, p, flags);
#else
  (void)x, (void)out, (void)scales, (void)len, (void)count, (void)emax_elem, (void)p, (void)flags;
#endif
  return 0;
}

#if defined(LIBFLOAT_ARRAY_X86)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// e4m3_scale_table::codes on 8 lanes of AVX-512 (F, DQ); returns how many of the n it did (a
/// multiple of 8: the caller finishes the rest with code()).
LIBFLOAT_BQ_AVX512 inline std::size_t e4m3_scale_table::codes_avx512(const std::uint32_t* amax_bits, std::uint8_t* out,
                                                                    std::size_t n, std::uint8_t* inexact_each,
                                                                    summary& sum) const {
  constexpr __mmask8 all = 0xFF;
  const __m512d inv = _mm512_set1_pd(inv_), lo_bound = _mm512_set1_pd(min_), hi_bound = _mm512_set1_pd(max_);
  const __m512d d = _mm512_set1_pd(d_);
  const __m512i half_m1 = _mm512_set1_epi64((std::int64_t{1} << 48) - 1), drop = _mm512_set1_epi64(~((std::int64_t{1} << 49) - 1));
  const __m512i one = _mm512_set1_epi64(1), seven = _mm512_set1_epi64(7);
  const __m512i e_off = _mm512_set1_epi64(1023 - 7), code8 = _mm512_set1_epi64(8), code126 = _mm512_set1_epi64(126);
  const __m512i e_min6 = _mm512_set1_epi64(1023 - 6), none = _mm512_set1_epi64(0xFF);
  __mmask8 left_acc = 0, inexact_acc = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512d a = _mm512_maskz_cvtps_pd(all, _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(amax_bits + i))));
    const __mmask8 in_range = _mm512_cmp_pd_mask(a, lo_bound, _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, hi_bound, _CMP_LT_OQ);
    __m512i b = _mm512_castpd_si512(_mm512_mul_pd(a, inv));
    // to nearest even at 3 fraction bits: + (2^48 - 1) + the kept last bit, then the low 49 bits off
    const __m512i last = _mm512_and_si512(_mm512_maskz_srli_epi64(all, b, 49), one);
    b = _mm512_and_si512(_mm512_add_epi64(_mm512_add_epi64(b, half_m1), last), drop);
    const __m512i field = _mm512_maskz_srli_epi64(all, b, 52);  // (a positive product: no sign bit)
    const __m512i frac = _mm512_and_si512(_mm512_maskz_srli_epi64(all, b, 49), seven);
    const __m512i code = _mm512_or_si512(_mm512_maskz_slli_epi64(all, _mm512_sub_epi64(field, e_off), 3), frac);
    const __mmask8 code_ok = _mm512_cmp_epi64_mask(code, code8, _MM_CMPINT_NLT) & _mm512_cmp_epi64_mask(code, code126, _MM_CMPINT_LE);
    // v: the candidate's value; half a spacing above it 2^(e - 4), below it the same except at a
    // binade's first value (fraction 0, above the smallest normal's binade): 2^(e - 5)
    const __m512d v = _mm512_castsi512_pd(b);
    const __m512d half_up = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(all, _mm512_sub_epi64(field, _mm512_set1_epi64(4)), 52));
    const __mmask8 first = _mm512_cmp_epi64_mask(frac, _mm512_setzero_si512(), _MM_CMPINT_EQ) &
                           _mm512_cmp_epi64_mask(field, e_min6, _MM_CMPINT_NLE);
    const __m512i below_field = _mm512_mask_sub_epi64(_mm512_sub_epi64(field, _mm512_set1_epi64(4)), first,
                                                      field, _mm512_set1_epi64(5));
    const __m512d half_down = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(all, below_field, 52));
    const __m512d lo = _mm512_mul_pd(_mm512_sub_pd(v, half_down), d), hi = _mm512_mul_pd(_mm512_add_pd(v, half_up), d);
    const __mmask8 ok = in_range & code_ok & _mm512_cmp_pd_mask(a, lo, _CMP_GT_OQ) & _mm512_cmp_pd_mask(a, hi, _CMP_LT_OQ);
    const __mmask8 inexact = ok & _mm512_cmp_pd_mask(a, _mm512_mul_pd(v, d), _CMP_NEQ_UQ);
    left_acc |= static_cast<__mmask8>(~ok);
    inexact_acc |= inexact;
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm512_maskz_cvtepi64_epi8(all, _mm512_mask_blend_epi64(ok, none, code)));
    if (inexact_each)
      _mm_storel_epi64(reinterpret_cast<__m128i*>(inexact_each + i),
                       _mm512_maskz_cvtepi64_epi8(all, _mm512_maskz_mov_epi64(inexact, _mm512_set1_epi64(1))));
  }
  sum.left |= left_acc != 0;
  sum.inexact |= inexact_acc != 0;
  return i;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace detail {
/// The low byte of each of v's four 64-bit lanes to dst[0..4).
__attribute__((target("avx2"))) inline void low_bytes4_avx2(std::uint8_t* dst, __m256i v) {
  const __m256i low_bytes = _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                             0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i g = _mm256_shuffle_epi8(v, low_bytes);  // (lanes 0, 1 to bytes 0, 1; lanes 2, 3 to 16, 17)
  const auto lo = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(g))) & 0xFFFFu;
  const auto hi = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_extracti128_si256(g, 1))) & 0xFFFFu;
  const std::uint32_t both = lo | hi << 16;
  std::memcpy(dst, &both, 4);
}
}  // namespace detail

/// e4m3_scale_table::codes on 4 lanes of AVX2 (binary64): codes_avx512's steps, with compares into
/// all-ones lanes instead of masks; returns how many of the n it did (a multiple of 4).
__attribute__((target("avx2"))) inline std::size_t e4m3_scale_table::codes_avx2(const std::uint32_t* amax_bits,
                                                                                 std::uint8_t* out, std::size_t n,
                                                                                 std::uint8_t* inexact_each,
                                                                                 summary& sum) const {
  using ll = long long;
  const __m256d inv = _mm256_set1_pd(inv_), lo_bound = _mm256_set1_pd(min_), hi_bound = _mm256_set1_pd(max_);
  const __m256d d = _mm256_set1_pd(d_);
  const __m256i half_m1 = _mm256_set1_epi64x((ll{1} << 48) - 1), drop = _mm256_set1_epi64x(~((ll{1} << 49) - 1));
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1), four = _mm256_set1_epi64x(4);
  const __m256i seven = _mm256_set1_epi64x(7), e_off = _mm256_set1_epi64x(1023 - 7);
  const __m256i code126 = _mm256_set1_epi64x(126), e_min6 = _mm256_set1_epi64x(1023 - 6);
  const __m256i none = _mm256_set1_epi64x(0xFF);
  __m256i left_acc = _mm256_setzero_si256(), inexact_acc = left_acc;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d a = _mm256_cvtps_pd(_mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(amax_bits + i))));
    const __m256d in_range = _mm256_and_pd(_mm256_cmp_pd(a, lo_bound, _CMP_GE_OQ), _mm256_cmp_pd(a, hi_bound, _CMP_LT_OQ));
    __m256i b = _mm256_castpd_si256(_mm256_mul_pd(a, inv));
    // to nearest even at 3 fraction bits: + (2^48 - 1) + the kept last bit, then the low 49 bits off
    const __m256i last = _mm256_and_si256(_mm256_srli_epi64(b, 49), one);
    b = _mm256_and_si256(_mm256_add_epi64(_mm256_add_epi64(b, half_m1), last), drop);
    const __m256i field = _mm256_srli_epi64(b, 52);  // (a positive product: no sign bit)
    const __m256i frac = _mm256_and_si256(_mm256_srli_epi64(b, 49), seven);
    const __m256i code = _mm256_or_si256(_mm256_slli_epi64(_mm256_sub_epi64(field, e_off), 3), frac);
    // 8 <= code <= 126 (signed compares: a code below 8 may be negative)
    const __m256i code_ok = _mm256_andnot_si256(_mm256_cmpgt_epi64(code, code126), _mm256_cmpgt_epi64(code, seven));
    // v: the candidate's value; half a spacing above it 2^(e - 4), below it the same except at a
    // binade's first value (fraction 0, above the smallest normal's binade): 2^(e - 5)
    const __m256d v = _mm256_castsi256_pd(b);
    const __m256i up_field = _mm256_sub_epi64(field, four);
    const __m256d half_up = _mm256_castsi256_pd(_mm256_slli_epi64(up_field, 52));
    const __m256i first = _mm256_and_si256(_mm256_cmpeq_epi64(frac, zero), _mm256_cmpgt_epi64(field, e_min6));
    const __m256d half_down = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(up_field, first), 52));
    const __m256d lo = _mm256_mul_pd(_mm256_sub_pd(v, half_down), d), hi = _mm256_mul_pd(_mm256_add_pd(v, half_up), d);
    const __m256d ok = _mm256_and_pd(_mm256_and_pd(in_range, _mm256_castsi256_pd(code_ok)),
                                     _mm256_and_pd(_mm256_cmp_pd(a, lo, _CMP_GT_OQ), _mm256_cmp_pd(a, hi, _CMP_LT_OQ)));
    const __m256i inexact =
        _mm256_and_si256(_mm256_castpd_si256(ok), _mm256_castpd_si256(_mm256_cmp_pd(a, _mm256_mul_pd(v, d), _CMP_NEQ_UQ)));
    left_acc = _mm256_or_si256(left_acc, _mm256_andnot_si256(_mm256_castpd_si256(ok), none));
    inexact_acc = _mm256_or_si256(inexact_acc, inexact);
    detail::low_bytes4_avx2(out + i, _mm256_blendv_epi8(none, code, _mm256_castpd_si256(ok)));  // (0xFF where not ok)
    if (inexact_each) detail::low_bytes4_avx2(inexact_each + i, _mm256_and_si256(inexact, one));
  }
  sum.left |= !_mm256_testz_si256(left_acc, left_acc);
  sum.inexact |= !_mm256_testz_si256(inexact_acc, inexact_acc);
  return i;
}
#endif

inline e4m3_scale_table::summary e4m3_scale_table::codes(const std::uint32_t* amax_bits, std::uint8_t* out, std::size_t n,
                                                          std::uint8_t* inexact_each) const {
  summary sum;
  std::size_t i = 0;
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) i = codes_avx512(amax_bits, out, n, inexact_each, sum);
  else if (path == array_dispatch::avx2) i = codes_avx2(amax_bits, out, n, inexact_each, sum);
#endif
  for (; i < n; ++i) {
    bool inexact = false;
    const int c = code(static_cast<double>(std::bit_cast<float>(amax_bits[i])), inexact);
    out[i] = c < 0 ? std::uint8_t{0xFF} : static_cast<std::uint8_t>(c);
    if (inexact_each) inexact_each[i] = c >= 0 && inexact ? 1 : 0;
    sum.left |= c < 0;
    sum.inexact |= c >= 0 && inexact;
  }
  return sum;
}

/// The thresholds of mx_e2m1_rne_div for a divisor d, computed once per divisor (a block-scaled
/// quantizer keeps one per scale code). In binary64, each exact (t * d with t of at most 3 significant
/// bits and d of at most 28): the midpoints between E2M1's magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6
/// (0.25 0.75 1.25 1.75 2.5 3.5 5), the magnitudes themselves, and the overflow and tininess bounds,
/// all times d. In binary32, for the vector kernel, the same decisions for a binary32 |x|:
///   |x| > t   iff |x| > RD(t)   (RD(t): the largest binary32 <= t; t is not always a binary32)
///   |x| >= t  iff |x| >= RU(t)  (RU(t): the smallest binary32 >= t, infinity above the largest)
///   |x| == t  iff t is a binary32 and |x| equals it (else a NaN, equal to nothing)
///   |x| < t   iff |x| < RU(t).
struct e2m1_thresholds {
  double mid[7], val[8], over_at, tiny_below;
  float mid_f[7];  ///< RD of an even midpoint (passed when above it), RU of an odd one (at or above)
  float val_f[8], over_f, tiny_f;
  e2m1_thresholds() = default;
  explicit e2m1_thresholds(double d)
      : mid{0.25 * d, 0.75 * d, 1.25 * d, 1.75 * d, 2.5 * d, 3.5 * d, 5 * d},
        val{0.0, 0.5 * d, 1.0 * d, 1.5 * d, 2.0 * d, 3.0 * d, 4.0 * d, 6.0 * d},
        over_at(7 * d),
        tiny_below(0.875 * d) {
    for (int i = 0; i < 7; ++i) mid_f[i] = (i & 1) != 0 ? up(mid[i]) : down(mid[i]);
    for (int i = 0; i < 8; ++i) val_f[i] = down(val[i]) == val[i] ? down(val[i]) : std::numeric_limits<float>::quiet_NaN();
    over_f = up(over_at);
    tiny_f = up(tiny_below);
  }
  /// RD(t) and RU(t) for t >= 0 (binary32 neighbours found from the bits: t is not converted where the
  /// conversion would leave binary32's range).
  static float down(double t) {
    if (t >= static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::max();
    const float f = static_cast<float>(t);  // one of t's two binary32 neighbours (or t itself)
    return static_cast<double>(f) > t ? std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) - 1) : f;
  }
  static float up(double t) {
    if (t > static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
    const float f = static_cast<float>(t);
    return static_cast<double>(f) < t ? std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) + 1) : f;
  }
};

namespace detail {

/// The portable loop of mx_e2m1_rne_div (see there), on the binary64 thresholds.
inline std::uint32_t mx_e2m1_rne_div_portable(const float* x, std::uint8_t* out, std::size_t n, const e2m1_thresholds& t,
                                              std::uint8_t* per_element) {
  std::uint32_t flags = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t xb = std::bit_cast<std::uint32_t>(x[j]);
    const double a = static_cast<double>(std::bit_cast<float>(xb & 0x7FFFFFFFu));
    // the code: how many midpoints |x| passes, a tie (equality) passing only toward an even code
    std::uint32_t c = 0;
    for (int i = 0; i < 7; ++i) {
      const bool pass = a > t.mid[i] || (a == t.mid[i] && (i & 1) != 0);  // midpoint i lies between codes i and i + 1
      c += pass ? 1u : 0u;
    }
    const bool over = a >= t.over_at;
    const bool inexact = over || a != t.val[c];
    const bool tiny = a < t.tiny_below;
    const std::uint32_t f = (inexact ? to_bits(status::inexact) : 0u) | (inexact && tiny ? to_bits(status::underflow) : 0u) |
                            (over ? to_bits(status::overflow) : 0u);
    out[j] = static_cast<std::uint8_t>(((xb >> 31) << 3) | c);
    if (per_element) per_element[j] = static_cast<std::uint8_t>(f);
    flags |= f;
  }
  return flags;
}

#if defined(LIBFLOAT_ARRAY_X86)
/// The low byte of each of v's eight 32-bit lanes to dst[0..8), by the shuffle `gather` (byte 0 of
/// each lane to bytes 0..3 of its 128-bit half).
__attribute__((target("avx2"))) inline void e2m1_store8(__m256i gather, std::uint8_t* dst, __m256i v) {
  const __m256i g = _mm256_shuffle_epi8(v, gather);
  const auto lo = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(g)));
  const auto hi = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_extracti128_si256(g, 1)));
  const std::uint64_t both = lo | static_cast<std::uint64_t>(hi) << 32;
  std::memcpy(dst, &both, 8);
}

/// The same on 8 lanes of binary32 (AVX2), on the binary32 thresholds: each comparison's all-ones
/// lanes (-1) subtracted from the code; exact when |x| equals code c's magnitude (a lane permutation
/// of the eight; a magnitude that is no binary32 is a NaN there, equal to nothing). The
/// codes (low byte of each 32-bit lane) are gathered into 8 bytes by a byte shuffle. Over `count`
/// consecutive runs of `len` elements, run i with the thresholds table[codes[i]] (table[0] for every
/// run when codes is null; NVFP4: one run per block, one call per row of blocks, its scale codes
/// indexing the thresholds kept per code); a run's tail of fewer than 8 takes the portable loop.
__attribute__((target("avx2"))) inline std::uint32_t mx_e2m1_rne_div_avx2(const float* x, std::uint8_t* out,
                                                                          std::size_t len, std::size_t count,
                                                                          const e2m1_thresholds* table,
                                                                          const std::uint8_t* codes,
                                                                          std::uint8_t* per_element) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256i all_ones = _mm256_set1_epi32(-1);
  // byte 0 of each 32-bit lane to bytes 0..3 of its 128-bit half
  const __m256i gather = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  __m256i inexact_acc = _mm256_setzero_si256(), under_acc = inexact_acc, over_acc = inexact_acc;
  std::uint32_t flags = 0;
  for (std::size_t r = 0; r < count; ++r, x += len, out += len) {
    const e2m1_thresholds& t = table[codes ? codes[r] : 0];
    __m256 mid[7];
    for (int i = 0; i < 7; ++i) mid[i] = _mm256_set1_ps(t.mid_f[i]);
    const __m256 val = _mm256_loadu_ps(t.val_f);
    const __m256 over_at = _mm256_set1_ps(t.over_f), tiny_below = _mm256_set1_ps(t.tiny_f);
    std::size_t j = 0;
    for (; j + 8 <= len; j += 8) {
      const __m256 xf = _mm256_loadu_ps(x + j);
      const __m256 a = _mm256_and_ps(xf, abs_mask);
      __m256i c = _mm256_setzero_si256();
      for (int i = 0; i < 7; ++i) {
        const __m256 pass = (i & 1) != 0 ? _mm256_cmp_ps(a, mid[i], _CMP_GE_OQ) : _mm256_cmp_ps(a, mid[i], _CMP_GT_OQ);
        c = _mm256_sub_epi32(c, _mm256_castps_si256(pass));
      }
      const __m256 exact = _mm256_cmp_ps(a, _mm256_permutevar8x32_ps(val, c), _CMP_EQ_OQ);  // code c's magnitude
      const __m256i over = _mm256_castps_si256(_mm256_cmp_ps(a, over_at, _CMP_GE_OQ));
      const __m256i inexact = _mm256_andnot_si256(_mm256_castps_si256(exact), all_ones);
      const __m256i under = _mm256_and_si256(inexact, _mm256_castps_si256(_mm256_cmp_ps(a, tiny_below, _CMP_LT_OQ)));
      inexact_acc = _mm256_or_si256(inexact_acc, inexact);
      under_acc = _mm256_or_si256(under_acc, under);
      over_acc = _mm256_or_si256(over_acc, over);
      const __m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(_mm256_castps_si256(xf), 31), 3);
      e2m1_store8(gather, out + j, _mm256_or_si256(c, sign));
      if (per_element) {
        const __m256i f = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(inexact, _mm256_set1_epi32(static_cast<int>(to_bits(status::inexact)))),
                            _mm256_and_si256(under, _mm256_set1_epi32(static_cast<int>(to_bits(status::underflow))))),
            _mm256_and_si256(over, _mm256_set1_epi32(static_cast<int>(to_bits(status::overflow)))));
        e2m1_store8(gather, per_element + r * len + j, f);
      }
    }
    if (j < len)
      flags |= mx_e2m1_rne_div_portable(x + j, out + j, len - j, t, per_element ? per_element + r * len + j : nullptr);
  }
  if (!_mm256_testz_si256(inexact_acc, inexact_acc)) flags |= to_bits(status::inexact);
  if (!_mm256_testz_si256(under_acc, under_acc)) flags |= to_bits(status::underflow);
  if (!_mm256_testz_si256(over_acc, over_acc)) flags |= to_bits(status::overflow);
  return flags;
}
#endif

#if defined(LIBFLOAT_ARRAY_X86)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// One vector of mx_e2m1_rne_div_avx512: the codes of the 16 lanes of xb (binary32 bits) for the
/// thresholds t, each lane's flags in the masks.
[[gnu::always_inline]] LIBFLOAT_BQ_AVX512 inline __m512i mx_e2m1_16_avx512(__m512i xb, const e2m1_thresholds& t,
                                                                           __mmask16& inexact, __mmask16& under,
                                                                           __mmask16& over) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(xb, _mm512_set1_epi32(0x7FFFFFFF)));
  // each midpoint passed: a mask, turned into -1 lanes and subtracted (no merge-masked chain)
  __m512i c = _mm512_setzero_si512();
  for (int i = 0; i < 7; ++i) {
    const __m512 m = _mm512_set1_ps(t.mid_f[i]);
    const __mmask16 pass = (i & 1) != 0 ? _mm512_cmp_ps_mask(a, m, _CMP_GE_OQ) : _mm512_cmp_ps_mask(a, m, _CMP_GT_OQ);
    c = _mm512_sub_epi32(c, _mm512_movm_epi32(pass));
  }
  const __m512 val = _mm512_castps256_ps512(_mm256_loadu_ps(t.val_f));  // (lanes 8-15 unused: c <= 7)
  const __mmask16 exact = _mm512_cmp_ps_mask(a, _mm512_maskz_permutexvar_ps(all, c, val), _CMP_EQ_OQ);
  over = _mm512_cmp_ps_mask(a, _mm512_set1_ps(t.over_f), _CMP_GE_OQ);
  inexact = static_cast<__mmask16>(~exact);
  under = inexact & _mm512_cmp_ps_mask(a, _mm512_set1_ps(t.tiny_f), _CMP_LT_OQ);
  const __m512i sign = _mm512_maskz_slli_epi32(all, _mm512_maskz_srli_epi32(all, xb, 31), 3);
  return _mm512_or_si512(c, sign);
}

/// The same on 16 lanes of binary32 (AVX-512 F, BW, VL, DQ), the AVX2 kernel's steps with compares
/// into mask registers (mx_e2m1_16_avx512). A run's tail of fewer than 16 takes the portable loop.
LIBFLOAT_BQ_AVX512 inline std::uint32_t mx_e2m1_rne_div_avx512(const float* x, std::uint8_t* out, std::size_t len,
                                                              std::size_t count, const e2m1_thresholds* table,
                                                              const std::uint8_t* codes, std::uint8_t* per_element) {
  constexpr __mmask16 all = 0xFFFF;
  __mmask16 inexact_acc = 0, under_acc = 0, over_acc = 0;
  std::uint32_t flags = 0;
  if (len == 16 && per_element == nullptr && codes != nullptr) {  // NVFP4's rows: one vector a block
    for (std::size_t r = 0; r < count; ++r) {
      __mmask16 inexact, under, over;
      const __m512i res = mx_e2m1_16_avx512(_mm512_loadu_si512(x + 16 * r), table[codes[r]], inexact, under, over);
      inexact_acc |= inexact;
      under_acc |= under;
      over_acc |= over;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * r), _mm512_maskz_cvtepi32_epi8(all, res));
    }
    count = 0;
  }
  for (std::size_t r = 0; r < count; ++r, x += len, out += len) {
    const e2m1_thresholds& t = table[codes ? codes[r] : 0];
    std::size_t j = 0;
    for (; j + 16 <= len; j += 16) {
      __mmask16 inexact, under, over;
      const __m512i res = mx_e2m1_16_avx512(_mm512_loadu_si512(x + j), t, inexact, under, over);
      inexact_acc |= inexact;
      under_acc |= under;
      over_acc |= over;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), _mm512_maskz_cvtepi32_epi8(all, res));
      if (per_element) {
        __m512i fl = _mm512_maskz_mov_epi32(inexact, _mm512_set1_epi32(to_bits(status::inexact)));
        fl = _mm512_mask_or_epi32(fl, under, fl, _mm512_set1_epi32(to_bits(status::underflow)));
        fl = _mm512_mask_or_epi32(fl, over, fl, _mm512_set1_epi32(to_bits(status::overflow)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(per_element + r * len + j), _mm512_maskz_cvtepi32_epi8(all, fl));
      }
    }
    if (j < len)
      flags |= mx_e2m1_rne_div_portable(x + j, out + j, len - j, t, per_element ? per_element + r * len + j : nullptr);
  }
  if (inexact_acc) flags |= to_bits(status::inexact);
  if (under_acc) flags |= to_bits(status::underflow);
  if (over_acc) flags |= to_bits(status::overflow);
  return flags;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

}  // namespace detail

/// NVFP4's elements: n elements of x divided by d (a positive divisor whose significand has at most 28
/// bits, between 2^-1000 and 2^1000: an E4M3 scale times a binary32 tensor scale is one; t =
/// e2m1_thresholds(d)), rounded to nearest even into FP4 E2M1 with saturation. Codes to out, each
/// element's flags to per_element when given, the ORed flags returned. By comparisons with exact
/// thresholds: t * d is exact in binary64 for every t here (at most 3 significant bits), and so is |x|,
/// so |x| > t * d decides |x| / d > t exactly:
///   midpoints between E2M1's magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6: 0.25 0.75 1.25 1.75 2.5 3.5 5
///   (a tie goes to the even code: 0, 1, 1, 2, 2, 4, 4);
///   overflow from |x| / d >= 7 (with an unbounded exponent 7 is the tie between 6 and 8, and goes to 8);
///   tiny below 0.875 (the tie between 0.875 and 1 goes to 1), underflow when also inexact.
/// The elements must be finite (a block holding a NaN or an infinity does not come here). Runs on
/// AVX-512 (16 lanes) or AVX2 (8 lanes), on the binary32 form of the thresholds, where the CPU has
/// them and lf::array_dispatch_in_use() allows, as mx_elements_rne does; the portable loop compares in
/// binary64.
/// Proof: tests/fast/test_block_quantize_proof.cpp, every finite binary32 x for a set of divisors
/// (whose thresholds reach beyond binary32's range at both ends), on each path the CPU has, against
/// the core's division of x by d rounded into E2M1.
inline std::uint32_t mx_e2m1_rne_div(const float* x, std::uint8_t* out, std::size_t n, const e2m1_thresholds& t,
                                     std::uint8_t* per_element = nullptr) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) return detail::mx_e2m1_rne_div_avx512(x, out, n, 1, &t, nullptr, per_element);
  if (path == array_dispatch::avx2) return detail::mx_e2m1_rne_div_avx2(x, out, n, 1, &t, nullptr, per_element);
#endif
  return detail::mx_e2m1_rne_div_portable(x, out, n, t, per_element);
}

/// mx_e2m1_rne_div on `count` consecutive runs of `len` elements of x, run i with the thresholds
/// table[codes[i]] (NVFP4: the blocks of a row, codes their scale codes and table the thresholds of
/// each code's divisor), in one call; the ORed flags.
inline std::uint32_t mx_e2m1_rne_div_runs(const float* x, std::uint8_t* out, std::size_t len, std::size_t count,
                                          const e2m1_thresholds* table, const std::uint8_t* codes) {
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (lf::detail::is_avx512(path)) return detail::mx_e2m1_rne_div_avx512(x, out, len, count, table, codes, nullptr);
  if (path == array_dispatch::avx2) return detail::mx_e2m1_rne_div_avx2(x, out, len, count, table, codes, nullptr);
#endif
  std::uint32_t flags = 0;
  for (std::size_t r = 0; r < count; ++r)
    flags |= detail::mx_e2m1_rne_div_portable(x + r * len, out + r * len, len, table[codes[r]], nullptr);
  return flags;
}

inline std::uint32_t mx_e2m1_rne_div(const float* x, std::uint8_t* out, std::size_t n, double d,
                                     std::uint8_t* per_element = nullptr) {
  return mx_e2m1_rne_div(x, out, n, e2m1_thresholds(d), per_element);
}

}  // namespace lf::fast
