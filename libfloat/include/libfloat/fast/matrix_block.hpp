// libfloat/fast/matrix_block.hpp: the matrix unit's block FMA on 64-bit integers for the common
// cases (block_fma_fast): the same computation as block_fma_general (models/detail/block_fma.hpp),
// bit for bit and flag for flag; only detail::round_pack rounds the sum.
//
// Proof (its domain cannot be enumerated): ctest test matrix_unit_fast, label quick
// (tests/fast/test_matrix_unit_fast.cpp), compares block_chain_fast and the lf::dot entries that
// reach it (typed and run-time formats) with block_chain_general, bits and flags, on this random +
// edge domain: every block-FMA and FP8-promotion preset plus variants (input / output flush, floor
// alignment, nearest-even / upward / downward final rounding, N = 8, 16, 32, F = 0, 20, 48, input
// rounding nearest even / upward / toward zero, promotion interval 40); input pairs binary16,
// bfloat16, tf32, E4M3, E5M2, E4M3 x E5M2, E5M2 x E4M3 and binary32 (converted first); chain lengths
// 0, 1, 2, 3, 5, 8, 31, 33, 130; per length eight data sets (any encoding, finite over the whole
// range, narrow exponents, subnormal and tiny, the largest, rare specials and zeros, exact
// cancellation, zeros) and c drawn from +-0, subnormals, 1, normals, +-max finite, infinity, quiet
// and signaling NaN (fixed seed). The whole domain runs twice, once per implementation of the
// chain, each forced with lf::set_array_dispatch: the portable blocks (array_dispatch::portable)
// and the AVX2 blocks (array_dispatch::avx2; reported as skipped, not proven, on a CPU without
// AVX2).
//
// The same computation as block_fma_general, bit for bit and flag for flag, for the common case:
// both input formats named (known at compile time for the typed entries, dispatched once per chain
// for run-time formats), output binary32, truncate or floor alignment, N <= 32, F <= 48. A block
// with a special operand (NaN, infinity) or with no nonzero term goes to block_fma_general; so do
// every other format and parameter (exact alignment, other outputs, N > 32).
//
// How: every operand is decoded once into (sign, significand, biased alignment exponent); a block's
// products stay in small local arrays; the terms are cut onto the grid 2^g with 64-bit shifts.
//  - The first loop over a block assumes every operand normal and finite (no per-operand branch or
//    select; one check word ORed over the block says whether that held); a block with a zero,
//    subnormal, NaN or infinity operand is decoded again by a loop that handles zeros and
//    subnormals (and DAZ) and notes specials.
//  - Exponents are kept biased, in the products' frame: P = field_a' + field_b' for a product (field'
//    = max(field, 1), so that e(a) + e(b) = P - bias_a - bias_b) and e(c) + bias_a + bias_b for c.
//    A product a*b = p * 2^(P - bias_a - bias_b - fa - fb) with p = sig_a * sig_b exact (p_a + p_b
//    <= 22 bits for the named formats below 32 bits), c = sig_c * 2^(e(c) - 23).
//  - The grid: g = Pmax - bias_a - bias_b - F. A product's bits below it are its low
//    d = Pmax - P - F + fa + fb bits (d < 0: none, the term moves up by -d bits; it stays below
//    2^(F + 2), file comment step 3). Every product is scaled by 2^L (L = max(0, F - fa - fb)) when
//    stored, so that d + L >= 0 and each term is one right shift: (p * 2^L) >> min(d + L, 63),
//    which drops all of p * 2^L < 2^63 at 63. c likewise with L_c = max(0, F - 23).
//  - Truncation (sign-magnitude) shifts the magnitude and applies the sign; floor shifts the
//    two's-complement value arithmetically (floor(v / 2^r) = v >> r).
//  - Dropped bits (inexact): each shift's lost bits are (shifted value) XOR (result shifted back),
//    ORed over the block (a zero term loses nothing, whatever its shift).
//  - The sum of at most 32 terms and c is below 33 * 2^(F + 2) < 2^56 (int64), inside round_pack's
//    64-bit precondition (sig < 2^62). Only round_pack rounds it, as in the general path.
//
// Two implementations of the chain, chosen once per chain by lf::array_dispatch_in_use()
// (fast/cpu_dispatch.hpp, the switch the span kernels use): the portable blocks (block_fma_fast,
// plain C++ for the program's own flags) and, where the CPU has AVX2 (AVX-512 CPUs included), the
// AVX2 blocks (block_chain_fast_avx2: the same steps on 4 terms per vector, see there; a block with
// a zero, subnormal or special operand is the portable block's). Both end in block_fast_finish (c's
// term and round_pack), so they differ only in how the products' terms are formed and summed.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/cpu_dispatch.hpp>
#include <libfloat/models/detail/block_fma.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

#if defined(LIBFLOAT_ARRAY_X86)
#include <immintrin.h>
#endif

namespace lf::detail {

/// One operand of the fast path: value = (-1)^neg * sig * 2^(be - bias - fraction_bits) with
/// be = max(field, 1) (step 2's e = be - bias); sig = 0 for zeros (and subnormals under DAZ);
/// NaN and infinity have bit (bits - 1) of `special` set (the other fields then mean nothing), so
/// a block ORs `special` over its operands and tests that bit once.
struct fast_operand {
  std::uint64_t sig;
  int be;
  std::uint64_t neg;
  std::uint64_t special;
};

template <format F, bool DAZ>
LIBFLOAT_INLINE constexpr fast_operand fast_decode(bits_t x) {
  // The decoding below assumes a sign bit, field 0 = zero or subnormal, and ieee or nan_only
  // specials. fast_format() admits only such formats (by equality); fnuz (NaN at -0), finite_only
  // and exponent-only formats always take block_fma_general, which decodes with detail::unpack.
  static_assert((F.kind == nonfinite::ieee || F.kind == nonfinite::nan_only) && F.has_subnormals(),
                "fast_decode reads only ieee and nan_only encodings with subnormals");
  constexpr int fb = F.fraction_bits();
  const auto field = static_cast<int>((x >> fb) & F.exponent_field_max());
  const std::uint64_t m = x & F.fraction_mask();
  // Special: adding one to the exponent field (IEEE: field all ones) or to the whole magnitude
  // (nan_only: S.1..1.1..1 is the NaN) carries into the sign position.
  constexpr std::uint64_t test_mask = F.kind == nonfinite::ieee ? F.exponent_mask() : F.exponent_mask() | F.fraction_mask();
  constexpr std::uint64_t test_unit = F.kind == nonfinite::ieee ? F.min_normal_bits() : 1;
  const std::uint64_t special = (x & test_mask) + test_unit;
  const std::uint64_t hidden = std::uint64_t{field != 0} << fb;
  const std::uint64_t sig = DAZ ? (field != 0 ? m | hidden : 0) : m | hidden;
  return {sig, field | int{field == 0}, (x >> (F.bits() - 1)) & 1, special};
}

inline constexpr int fast_block_max = 32;

/// Whether block_chain may take the fast path for this unit (the formats are checked there).
constexpr bool block_fast_applies(const matrix_unit& mu) {
  return mu.alignment != alignment_rounding::exact && mu.output == binary32 && mu.block_size <= fast_block_max &&
         mu.alignment_bits <= 48;
}

/// What block_fma_fast needs of the unit, computed once per chain.
struct fast_chain {
  env final_env;
  format kept;
  int F;
  bool floor;
  std::uint64_t scale;  ///< 2^L, the scaling of products (see above)
  int L, Lc;            ///< L and the scaling 2^Lc of c
};

/// block_fma_general's result and flags for one block, in the cases block_fast_applies() accepts,
/// with input formats FA and FB. K: the kept format as a constant, or format{} (use ch.kept);
/// M >= 0: the final rounding as a constant, M < 0: ch.final_env's; DAZ: input subnormals flushed.
template <class A, class B>
[[gnu::noinline]] bits_t block_fma_fallback(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                            std::size_t first, std::size_t n, bits_t c, status& st) {
  return block_fma_general(mu, a, b, first, n, c, st);  // (out of line: keeps the fast loop small)
}

/// Steps 3-5 for c and the rounding: the products' terms (cut onto the grid 2^(pmax - bias_a -
/// bias_b - F)) summed into `sum`, their dropped bits ORed into `dropped`; z is c decoded, pc its
/// exponent in the products' frame (or `none`), pmax the block's largest. Shared by the portable
/// block and the AVX2 one.
template <format FA, format FB, format K, int M, bool DAZ>
LIBFLOAT_INLINE bits_t block_fast_finish(int pmax, int pc, const fast_operand& z, std::int64_t sum, std::uint64_t dropped,
                                         const fast_chain& ch, status& st) {
  constexpr int bias_ab = FA.bias() + FB.bias();
  constexpr int fo = binary32.fraction_bits();
  {
    const int r = pmax + fo - ch.F + ch.Lc - pc;
    const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
    const std::uint64_t s = z.sig << ch.Lc;
    const auto v = static_cast<std::int64_t>((s ^ (0 - z.neg)) + z.neg);
    if (ch.floor) {
      const std::int64_t k = v >> rr;
      dropped |= static_cast<std::uint64_t>(v) ^ (static_cast<std::uint64_t>(k) << rr);
      sum += k;
    } else {
      const std::uint64_t k = s >> rr;
      dropped |= s ^ (k << rr);
      sum += static_cast<std::int64_t>((k ^ (0 - z.neg)) + z.neg);
    }
  }
  if (dropped != 0) st |= status::inexact;
  if (sum == 0) return zero_bits(binary32, false);  // as block_fma_general: an exact zero sum is +0
  // Step 5: the one normalisation, by the core.
  const int g = pmax - bias_ab - ch.F;
  const bool rneg = sum < 0;
  const auto mag = static_cast<std::uint64_t>(rneg ? -sum : sum);
  env e = ch.final_env;
  if constexpr (M >= 0) e.mode = static_cast<rounding>(M);
  status rs{};
  bits_t r;
  if constexpr (K == format{}) r = round_pack(ch.kept, rneg, g, mag, false, e, rs);
  else r = round_pack(K, rneg, g, mag, false, e, rs);
  st |= rs;
  if (has(rs, status::overflow)) return sign_bit(binary32, rneg) | binary32.infinity_bits();
  // `kept` has binary32's exponent field and output_fraction_bits fraction bits, so the exact
  // conversion to binary32 moves the sign and appends zero fraction bits.
  const format& kept = K == format{} ? ch.kept : K;
  return sign_bit(binary32, (r & kept.sign_mask()) != 0) | ((r & ~kept.sign_mask()) << (fo - kept.fraction_bits()));
}

template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
LIBFLOAT_INLINE bits_t block_fma_fast(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                                      std::size_t n, bits_t c, const fast_chain& ch, status& st) {
  static_assert(FA.precision + FB.precision <= 40, "products and their scaling must fit 63 bits");
  constexpr int none = -(1 << 20);  // the exponent of a zero term: below every real one
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  constexpr int bias_ab = FA.bias() + FB.bias();
  // Steps 1-2: exact products, exponents, Pmax. First assuming every operand normal and finite
  // (the common case: no test per operand, a check word ORed over the block); a block with a zero,
  // subnormal, NaN or infinity operand takes the second loop, which handles zeros and subnormals
  // and notes specials.
  std::uint64_t sig[fast_block_max];
  int pe[fast_block_max];
  std::uint64_t neg[fast_block_max];
  int pmax = none;
  std::uint64_t check_a = 0, check_b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bits_t xa = a.get(first + i), xb = b.get(first + i);
    const std::uint64_t ea = xa & FA.exponent_mask(), eb = xb & FB.exponent_mask();
    // Bit 63: exponent field 0 (zero or subnormal); bit (bits - 1): NaN or infinity (fast_decode).
    check_a |= (ea - FA.min_normal_bits()) | fast_decode<FA, DAZ>(xa).special;
    check_b |= (eb - FB.min_normal_bits()) | fast_decode<FB, DAZ>(xb).special;
    const std::uint64_t p = ((xa & FA.fraction_mask()) | FA.min_normal_bits()) *
                            ((xb & FB.fraction_mask()) | FB.min_normal_bits());
    pe[i] = static_cast<int>(ea >> FA.fraction_bits()) + static_cast<int>(eb >> FB.fraction_bits());
    pmax = pe[i] > pmax ? pe[i] : pmax;
    sig[i] = p * ch.scale;
    neg[i] = ((xa >> (FA.bits() - 1)) ^ (xb >> (FB.bits() - 1))) & 1;
  }
  if (((check_a | check_b) >> 63 | check_a >> (FA.bits() - 1) | check_b >> (FB.bits() - 1)) & 1) [[unlikely]] {
    std::uint64_t special_a = 0, special_b = 0;
    pmax = none;
    for (std::size_t i = 0; i < n; ++i) {
      const fast_operand x = fast_decode<FA, DAZ>(a.get(first + i)), y = fast_decode<FB, DAZ>(b.get(first + i));
      const std::uint64_t p = x.sig * y.sig;
      special_a |= x.special;
      special_b |= y.special;
      pe[i] = p != 0 ? x.be + y.be : none;
      pmax = pe[i] > pmax ? pe[i] : pmax;
      sig[i] = p * ch.scale;
      neg[i] = x.neg ^ y.neg;
    }
    if (((special_a >> (FA.bits() - 1)) | (special_b >> (FB.bits() - 1))) & 1)
      return block_fma_fallback(mu, a, b, first, n, c, st);
  }
  const fast_operand z = fast_decode<binary32, DAZ>(c);
  const int pc = z.sig != 0 ? z.be - binary32.bias() + bias_ab : none;
  pmax = pc > pmax ? pc : pmax;
  if ((z.special >> (binary32.bits() - 1) & 1) != 0 || pmax == none) [[unlikely]]
    return block_fma_fallback(mu, a, b, first, n, c, st);

  // Steps 3-4.
  const int shift_base = pmax + fab - ch.F + ch.L;  // a product's right shift: shift_base - P
  std::int64_t sum = 0;
  std::uint64_t dropped = 0;  // the bits shifted out, ORed
  if (ch.floor) {
    for (std::size_t i = 0; i < n; ++i) {
      const int r = shift_base - pe[i];
      const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
      const auto v = static_cast<std::int64_t>((sig[i] ^ (0 - neg[i])) + neg[i]);  // two's complement
      const std::int64_t k = v >> rr;
      dropped |= static_cast<std::uint64_t>(v) ^ (static_cast<std::uint64_t>(k) << rr);
      sum += k;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const int r = shift_base - pe[i];
      const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
      const std::uint64_t k = sig[i] >> rr;
      dropped |= sig[i] ^ (k << rr);
      sum += static_cast<std::int64_t>((k ^ (0 - neg[i])) + neg[i]);
    }
  }
  return block_fast_finish<FA, FB, K, M, DAZ>(pmax, pc, z, sum, dropped, ch, st);
}

#if defined(LIBFLOAT_ARRAY_X86)
#define LIBFLOAT_MB_AVX2 __attribute__((target("avx2")))
/// The largest / the sum of the 4 lanes. mb_hmax_small_epi64 compares 32-bit halves: for lanes in
/// [0, 2^31) (the exponents here) that is the 64-bit maximum.
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_hmax_small_epi64(__m256i x) {
  x = _mm256_max_epi32(x, _mm256_permute4x64_epi64(x, 0x4E));
  x = _mm256_max_epi32(x, _mm256_shuffle_epi32(x, 0x4E));
  return static_cast<std::int64_t>(x[0]);
}
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_hadd_epi64(__m256i x) {
  x = _mm256_add_epi64(x, _mm256_permute4x64_epi64(x, 0x4E));
  x = _mm256_add_epi64(x, _mm256_shuffle_epi32(x, 0x4E));
  return static_cast<std::int64_t>(x[0]);
}

/// The chain of block_fma_fast on 4 lanes of AVX2, the same computation, bit for bit and flag for
/// flag. Per vector of 4 terms: the encodings gathered into a register (lanes past the block's end
/// 0), decoded, multiplied (vpmuludq: both significands below 2^32), exponents added, and cut onto
/// the grid 2^g with per-lane shifts (vpsrlvq; vpsllvq back to find the dropped bits; floor's
/// arithmetic shift as ~(~v >> r) on negative lanes, whose significand is nonzero). vpsrlvq gives
/// 0 for a count of 64 or more, which is what the portable min(r, 63) gives (a shift of 63 drops
/// all of a value below 2^63 or, floored, leaves its sign; the dropped bits are nonzero exactly
/// when the term is). The maximum exponent, the sum and the dropped bits are reduced across lanes;
/// c and the rounding are the portable block's (block_fast_finish). A block with a zero,
/// subnormal, NaN or infinity operand is the portable block_fma_fast's. Lanes past the block's end
/// are masked out of that check and hold significand 0, sign + (nothing added, nothing dropped)
/// and exponent 0, below every real one (a normal product's is at least 2).
/// (Speed: building the vectors from single loads, not storing the encodings to a local array and
/// loading that as a vector, which stalls on store forwarding and costs more than the rest.)
template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
LIBFLOAT_MB_AVX2 bits_t block_chain_fast_avx2(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                              std::size_t first, std::size_t n, bits_t c, const fast_chain& ch,
                                              status& st) {
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  constexpr int bias_ab = FA.bias() + FB.bias();
  constexpr int none = -(1 << 20);
  // (x & spec) == spec: NaN or infinity (IEEE: exponent field all ones; nan_only: S.1..1.1..1).
  constexpr std::uint64_t spec_a =
      FA.kind == nonfinite::ieee ? FA.exponent_mask() : FA.exponent_mask() | FA.fraction_mask();
  constexpr std::uint64_t spec_b =
      FB.kind == nonfinite::ieee ? FB.exponent_mask() : FB.exponent_mask() | FB.fraction_mask();
  using ll = long long;
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1), iota = _mm256_setr_epi64x(0, 1, 2, 3);
  const __m256i exp_a = _mm256_set1_epi64x(static_cast<ll>(FA.exponent_mask()));
  const __m256i exp_b = _mm256_set1_epi64x(static_cast<ll>(FB.exponent_mask()));
  const __m256i frac_a = _mm256_set1_epi64x(static_cast<ll>(FA.fraction_mask()));
  const __m256i frac_b = _mm256_set1_epi64x(static_cast<ll>(FB.fraction_mask()));
  const __m256i hid_a = _mm256_set1_epi64x(static_cast<ll>(FA.min_normal_bits()));
  const __m256i hid_b = _mm256_set1_epi64x(static_cast<ll>(FB.min_normal_bits()));
  const __m256i vspec_a = _mm256_set1_epi64x(static_cast<ll>(spec_a)), vspec_b = _mm256_set1_epi64x(static_cast<ll>(spec_b));
  const __m128i vL = _mm_cvtsi32_si128(ch.L);
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N) {
    const std::size_t nb = n - s < N ? n - s : N, f0 = first + s;
    const std::size_t nv = (nb + 3) / 4;
    __m256i sig[fast_block_max / 4], pe[fast_block_max / 4], neg[fast_block_max / 4];
    __m256i vmax = zero, slow = zero;
    for (std::size_t v = 0; v < nv; ++v) {
      const std::size_t j = f0 + 4 * v, left = nb - 4 * v;
      // (vectors built in registers: see above)
      auto get = [left, j](const auto& g, std::size_t k) -> ll { return k < left ? static_cast<ll>(g(j + k)) : 0; };
      const __m256i valid = _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<ll>(left)), iota);
      __m256i x, y;
      if (left >= 4) {
        x = _mm256_setr_epi64x(static_cast<ll>(a.get(j)), static_cast<ll>(a.get(j + 1)), static_cast<ll>(a.get(j + 2)),
                               static_cast<ll>(a.get(j + 3)));
        y = _mm256_setr_epi64x(static_cast<ll>(b.get(j)), static_cast<ll>(b.get(j + 1)), static_cast<ll>(b.get(j + 2)),
                               static_cast<ll>(b.get(j + 3)));
      } else {
        x = _mm256_setr_epi64x(get(a.get, 0), get(a.get, 1), get(a.get, 2), 0);
        y = _mm256_setr_epi64x(get(b.get, 0), get(b.get, 1), get(b.get, 2), 0);
      }
      const __m256i ea = _mm256_and_si256(x, exp_a), eb = _mm256_and_si256(y, exp_b);
      const __m256i bad = _mm256_or_si256(
          _mm256_or_si256(_mm256_cmpeq_epi64(ea, zero), _mm256_cmpeq_epi64(eb, zero)),
          _mm256_or_si256(_mm256_cmpeq_epi64(_mm256_and_si256(x, vspec_a), vspec_a),
                          _mm256_cmpeq_epi64(_mm256_and_si256(y, vspec_b), vspec_b)));
      slow = _mm256_or_si256(slow, _mm256_and_si256(bad, valid));
      const __m256i pa = _mm256_and_si256(_mm256_or_si256(_mm256_and_si256(x, frac_a), hid_a), valid);
      const __m256i pb = _mm256_or_si256(_mm256_and_si256(y, frac_b), hid_b);
      sig[v] = _mm256_sll_epi64(_mm256_mul_epu32(pa, pb), vL);
      pe[v] = _mm256_add_epi64(_mm256_srli_epi64(ea, FA.fraction_bits()), _mm256_srli_epi64(eb, FB.fraction_bits()));
      const __m256i sg = _mm256_and_si256(
          _mm256_xor_si256(_mm256_srli_epi64(x, FA.bits() - 1), _mm256_srli_epi64(y, FB.bits() - 1)), one);
      neg[v] = _mm256_sub_epi64(zero, sg);  // all ones for a negative product
      vmax = _mm256_max_epi32(vmax, pe[v]);  // (exponents in [0, 2^31): the 64-bit maximum)
    }
    if (!_mm256_testz_si256(slow, slow)) [[unlikely]] {
      c = block_fma_fast<FA, FB, K, M, DAZ>(mu, a, b, f0, nb, c, ch, st);
      continue;
    }
    int pmax = static_cast<int>(mb_hmax_small_epi64(vmax));
    const fast_operand z = fast_decode<binary32, DAZ>(c);
    const int pc = z.sig != 0 ? z.be - binary32.bias() + bias_ab : none;
    pmax = pc > pmax ? pc : pmax;
    if ((z.special >> (binary32.bits() - 1) & 1) != 0) [[unlikely]] {
      c = block_fma_fallback(mu, a, b, f0, nb, c, st);
      continue;
    }
    const __m256i base = _mm256_set1_epi64x(pmax + fab - ch.F + ch.L);  // a product's shift: base - P
    __m256i vsum = zero, vdrop = zero;
    for (std::size_t v = 0; v < nv; ++v) {
      const __m256i r = _mm256_sub_epi64(base, pe[v]);
      if (ch.floor) {
        const __m256i t = _mm256_sub_epi64(_mm256_xor_si256(sig[v], neg[v]), neg[v]);  // two's complement
        // t >> r, arithmetic: ~(~t >> r) for t < 0 (neg all ones), t >> r otherwise
        const __m256i q = _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(t, neg[v]), r), neg[v]);
        vdrop = _mm256_or_si256(vdrop, _mm256_xor_si256(t, _mm256_sllv_epi64(q, r)));
        vsum = _mm256_add_epi64(vsum, q);
      } else {
        const __m256i q = _mm256_srlv_epi64(sig[v], r);
        vdrop = _mm256_or_si256(vdrop, _mm256_xor_si256(sig[v], _mm256_sllv_epi64(q, r)));
        vsum = _mm256_add_epi64(vsum, _mm256_sub_epi64(_mm256_xor_si256(q, neg[v]), neg[v]));
      }
    }
    const std::uint64_t dropped = _mm256_testz_si256(vdrop, vdrop) ? 0 : 1;
    c = block_fast_finish<FA, FB, K, M, DAZ>(pmax, pc, z, mb_hadd_epi64(vsum), dropped, ch, st);
  }
  return c;
}
#undef LIBFLOAT_MB_AVX2
#endif

template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
bits_t block_chain_fast_with(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                             std::size_t n, bits_t c, status& st) {
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  const int F = mu.alignment_bits;
  const int L = F > fab ? F - fab : 0;
  const fast_chain ch{unit_env(mu, mu.final_rounding), unit_kept_format(mu), F,
                      mu.alignment == alignment_rounding::floor, std::uint64_t{1} << L, L,
                      F > binary32.fraction_bits() ? F - binary32.fraction_bits() : 0};
#if defined(LIBFLOAT_ARRAY_X86)
  const array_dispatch path = array_dispatch_in_use();
  if (path == array_dispatch::avx2 || is_avx512(path))
    return block_chain_fast_avx2<FA, FB, K, M, DAZ>(mu, a, b, first, n, c, ch, st);
#endif
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N)
    c = block_fma_fast<FA, FB, K, M, DAZ>(mu, a, b, first + s, n - s < N ? n - s : N, c, ch, st);
  return c;
}

/// The fast chain for input formats FA, FB: the presets' kept formats (binary32, and 13 fraction
/// bits for Hopper FP8) and final roundings (toward zero; nearest even with binary32 kept) as
/// constants, the rest at run time.
template <format FA, format FB, class A, class B>
bits_t block_chain_fast(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                        std::size_t n, bits_t c, status& st) {
  constexpr format kept13{binary32.exponent_bits, 14, binary32.kind};
  constexpr int tz = static_cast<int>(rounding::toward_zero);
  constexpr int ne = static_cast<int>(rounding::nearest_even);
  if (mu.final_rounding == rounding::toward_zero && mu.input_subnormals == subnormal_handling::keep) {
    if (mu.output_fraction_bits == 23) return block_chain_fast_with<FA, FB, binary32, tz, false>(mu, a, b, first, n, c, st);
    if (mu.output_fraction_bits == 13) return block_chain_fast_with<FA, FB, kept13, tz, false>(mu, a, b, first, n, c, st);
  }
  if (mu.final_rounding == rounding::nearest_even && mu.input_subnormals == subnormal_handling::keep &&
      mu.output_fraction_bits == 23)  // (Blackwell's nearest-even models)
    return block_chain_fast_with<FA, FB, binary32, ne, false>(mu, a, b, first, n, c, st);
  if (mu.input_subnormals == subnormal_handling::flush)
    return block_chain_fast_with<FA, FB, format{}, -1, true>(mu, a, b, first, n, c, st);
  return block_chain_fast_with<FA, FB, format{}, -1, false>(mu, a, b, first, n, c, st);
}

/// An operand getter that carries its format as a constant (the typed entries): block_chain then
/// instantiates the fast path for that format only.
template <format F, class Get>
struct typed_get {
  static constexpr format fmt = F;
  Get get;
  LIBFLOAT_INLINE constexpr bits_t operator()(std::size_t i) const { return get(i); }
};
template <format F, class Get>
constexpr typed_get<F, Get> make_typed_get(Get g) {
  return {g};
}

template <class Get>
inline constexpr format static_format_of = format{};
template <format F, class Get>
inline constexpr format static_format_of<typed_get<F, Get>> = F;

/// The named formats the fast path takes (p_a + p_b <= 22 for every pair of them). Equality, not
/// a property test: the fnuz, finite_only and exponent-only formats (and float8_e4m3 / e3m4) are
/// not among them and take block_fma_general.
constexpr bool fast_format(const format& f) {
  return f == binary16 || f == bfloat16 || f == tfloat32 || f == float8_e4m3fn || f == float8_e5m2;
}

}  // namespace lf::detail
