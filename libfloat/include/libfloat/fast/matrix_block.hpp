// libfloat/fast/matrix_block.hpp: the matrix unit's block FMA on 64-bit integers for the common
// cases (block_fma_fast): the same computation as block_fma_general (models/detail/block_fma.hpp),
// bit for bit and flag for flag; detail::round_pack rounds the sum, except in the AVX2 short
// chain's normal-range step (block_chain_short_avx2: truncation or nearest even to p bits).
//
// Proof (its domain cannot be enumerated): ctest test matrix_unit_fast, label quick
// (tests/fast/test_matrix_unit_fast.cpp), compares block_chain_fast and the lf::dot entries that
// reach it (typed and run-time formats) with block_chain_general, bits and flags, on this random +
// edge domain: every block-FMA and FP8-promotion preset plus variants (input / output flush, floor
// alignment, nearest-even / upward / downward final rounding, N = 8, 16, 32, F = 0, 20, 27, 28, 48, input
// rounding nearest even / upward / toward zero, promotion interval 40); input pairs binary16,
// bfloat16, tf32, E4M3, E5M2, E4M3 x E5M2, E5M2 x E4M3 and binary32 (converted first); chain lengths
// 0, 1, 2, 3, 5, 8, 31, 33, 130; per length twelve data sets (any encoding, finite over the whole
// range, narrow exponents, subnormal and tiny, the largest, rare specials and zeros, exact
// cancellation, zeros, the widest terms of either sign (every significand all ones: the largest
// block sums), and products and c near binary32's smallest normal and near its largest, whose
// running sums cross into its subnormals or overflow) and c drawn from +-0, subnormals, 1,
// normals, +-max finite, infinity, quiet and signaling NaN (fixed seed); the operands reach the
// blocks as contiguous arrays (vector loads) and through a getter (single loads). The whole domain
// runs twice, once per implementation of the chain, each forced with lf::set_array_dispatch: the
// portable blocks (array_dispatch::portable) and the AVX2 blocks (array_dispatch::avx2; reported
// as skipped, not proven, on a CPU without AVX2).
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
// For the presets' case (kept format and final rounding constants, truncate alignment, inputs'
// subnormals kept) on a CPU with BMI2 and LZCNT, the AVX2 chain is block_chain_short_avx2: c kept
// decoded between blocks, the products cut on a guessed grid, and a result in binary32's normal
// range rounded in place (see there); whole blocks of 8 to 32 terms unrolled on 8 lanes of 32 bits
// per vector where every term and the block's sum fit them (mb_narrow_ok: pa + pb + L + log2(N) <=
// 31; among the presets, the fp16, bf16 and tf32 units with N = 8 or 16 and the FP8 units with
// F = 13), blocks of 4 that fit them two per vector (short_pairs: volta_fp16, ampere_tf32,
// ada_tf32), and blocks of 32 on 64-bit lanes (the other FP8 units); any other block size or width
// takes one loop for any N. Each of those loops runs in two copies: until a block sets the (sticky)
// inexact flag, and from there without the work that only that flag needs (short_round's Track).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
#include <libfloat/fast/x86_simd.hpp>  // (not <immintrin.h>: compile time, see that file)
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
#define LIBFLOAT_MB_AVX2_BMI __attribute__((target("avx2,bmi2,lzcnt")))
/// The largest / the sum of the 4 lanes. mb_hmax_small_epi64 compares 32-bit halves: for lanes in
/// [0, 2^31) (the exponents here) that is the 64-bit maximum.
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_hmax_small_epi64(simd::m256i x) {
  x = simd::mm256_max_epi32(x, simd::mm256_permute4x64_epi64<0x4E>(x));
  x = simd::mm256_max_epi32(x, simd::mm256_shuffle_epi32<0x4E>(x));
  return static_cast<std::int64_t>(x[0]);
}
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_hadd_epi64(simd::m256i x) {
  x = simd::mm256_add_epi64(x, simd::mm256_permute4x64_epi64<0x4E>(x));
  x = simd::mm256_add_epi64(x, simd::mm256_shuffle_epi32<0x4E>(x));
  return static_cast<std::int64_t>(x[0]);
}

/// Four encodings from j on: one vector load where the getter reads a contiguous array (data():
/// the typed entries' spans, the run-time entries' stored encodings), else four single loads.
template <class G>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline simd::m256i mb_load4(const G& g, std::size_t j) {
  if constexpr (requires { g.data(); }) {
    const auto* p = g.data() + j;
    constexpr std::size_t size = sizeof(*p);
    if constexpr (size == 1) {
      std::uint32_t w;
      std::memcpy(&w, p, 4);
      return simd::mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(w)));
    } else if constexpr (size == 2) {
      return simd::mm256_cvtepu16_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    } else if constexpr (size == 4) {
      return simd::mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    } else {
      static_assert(size == 8);
      return simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p));
    }
  } else {
    using ll = long long;
    return simd::mm256_setr_epi64x(static_cast<ll>(g(j)), static_cast<ll>(g(j + 1)), static_cast<ll>(g(j + 2)),
                                   static_cast<ll>(g(j + 3)));
  }
}

/// One block's products on 4 lanes of AVX2 (the first half of block_chain_fast_avx2's step, see
/// there): per vector of 4 terms the encodings gathered into a register (lanes past the block's end
/// 0), decoded, multiplied (vpmuludq: both significands below 2^32) and scaled by 2^L, exponents
/// added. `slow`: some lane of the block has a zero, subnormal, NaN or infinity operand (then the
/// block is the portable one's). Lanes past the block's end hold significand 0, sign + and
/// exponent 0, below every real one (a normal product's is at least 2), and are masked out of
/// `slow`. (Speed: the vectors are built from single loads, not by storing the encodings to a local
/// array and loading that as a vector, which stalls on store forwarding and costs more than the
/// rest.)
struct mb_block_terms {
  simd::m256i sig[fast_block_max / 4], pe[fast_block_max / 4], neg[fast_block_max / 4];
  std::size_t nv;
  int pmax;   ///< the largest product exponent
  bool slow;
};

template <format FA, format FB, std::size_t NV, class A, class B>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline void mb_load_block(mb_block_terms& t, const A& ga, const B& gb,
                                                                  std::size_t f0, std::size_t nb, int L) {
  // (x & spec) == spec: NaN or infinity (IEEE: exponent field all ones; nan_only: S.1..1.1..1).
  constexpr std::uint64_t spec_a =
      FA.kind == nonfinite::ieee ? FA.exponent_mask() : FA.exponent_mask() | FA.fraction_mask();
  constexpr std::uint64_t spec_b =
      FB.kind == nonfinite::ieee ? FB.exponent_mask() : FB.exponent_mask() | FB.fraction_mask();
  using ll = long long;
  const simd::m256i zero = simd::mm256_setzero_si256(), one = simd::mm256_set1_epi64x(1),
                    iota = simd::mm256_setr_epi64x(0, 1, 2, 3);
  const simd::m256i exp_a = simd::mm256_set1_epi64x(static_cast<ll>(FA.exponent_mask()));
  const simd::m256i exp_b = simd::mm256_set1_epi64x(static_cast<ll>(FB.exponent_mask()));
  const simd::m256i frac_a = simd::mm256_set1_epi64x(static_cast<ll>(FA.fraction_mask()));
  const simd::m256i frac_b = simd::mm256_set1_epi64x(static_cast<ll>(FB.fraction_mask()));
  const simd::m256i hid_a = simd::mm256_set1_epi64x(static_cast<ll>(FA.min_normal_bits()));
  const simd::m256i hid_b = simd::mm256_set1_epi64x(static_cast<ll>(FB.min_normal_bits()));
  const simd::m256i vspec_a = simd::mm256_set1_epi64x(static_cast<ll>(spec_a)),
                    vspec_b = simd::mm256_set1_epi64x(static_cast<ll>(spec_b));
  const __m128i vL = _mm_cvtsi32_si128(L);
  t.nv = NV > 0 ? NV : (nb + 3) / 4;
  simd::m256i vmax = zero, slow = zero;
  auto vector = [&](std::size_t v) __attribute__((always_inline, target("avx2"))) {
    const std::size_t j = f0 + 4 * v, left = NV > 0 ? 4 : nb - 4 * v;
    auto get = [left, j](const auto& g, std::size_t k) -> ll { return k < left ? static_cast<ll>(g(j + k)) : 0; };
    const simd::m256i valid = simd::mm256_cmpgt_epi64(simd::mm256_set1_epi64x(static_cast<ll>(left)), iota);
    simd::m256i x, y;
    if (NV > 0 || left >= 4) {
      x = mb_load4(ga, j);
      y = mb_load4(gb, j);
    } else {
      x = simd::mm256_setr_epi64x(get(ga, 0), get(ga, 1), get(ga, 2), 0);
      y = simd::mm256_setr_epi64x(get(gb, 0), get(gb, 1), get(gb, 2), 0);
    }
    const simd::m256i ea = simd::mm256_and_si256(x, exp_a), eb = simd::mm256_and_si256(y, exp_b);
    const simd::m256i bad =
        simd::mm256_or_si256(simd::mm256_or_si256(simd::mm256_cmpeq_epi64(ea, zero), simd::mm256_cmpeq_epi64(eb, zero)),
                             simd::mm256_or_si256(simd::mm256_cmpeq_epi64(simd::mm256_and_si256(x, vspec_a), vspec_a),
                                                  simd::mm256_cmpeq_epi64(simd::mm256_and_si256(y, vspec_b), vspec_b)));
    slow = simd::mm256_or_si256(slow, simd::mm256_and_si256(bad, valid));
    const simd::m256i pa = simd::mm256_and_si256(simd::mm256_or_si256(simd::mm256_and_si256(x, frac_a), hid_a), valid);
    const simd::m256i pb = simd::mm256_or_si256(simd::mm256_and_si256(y, frac_b), hid_b);
    t.sig[v] = simd::mm256_sll_epi64(simd::mm256_mul_epu32(pa, pb), vL);
    t.pe[v] = simd::mm256_add_epi64(simd::mm256_srli_epi64(ea, FA.fraction_bits()),
                                    simd::mm256_srli_epi64(eb, FB.fraction_bits()));
    const simd::m256i sg = simd::mm256_and_si256(
        simd::mm256_xor_si256(simd::mm256_srli_epi64(x, FA.bits() - 1), simd::mm256_srli_epi64(y, FB.bits() - 1)), one);
    t.neg[v] = simd::mm256_sub_epi64(zero, sg);   // all ones for a negative product
    vmax = simd::mm256_max_epi32(vmax, t.pe[v]);  // (exponents in [0, 2^31): the 64-bit maximum)
  };
  if constexpr (NV > 0) {
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) vector(v);
  } else {
    for (std::size_t v = 0; v < t.nv; ++v) vector(v);
  }
  t.slow = !simd::mm256_testz_si256(slow, slow);
  t.pmax = static_cast<int>(mb_hmax_small_epi64(vmax));
}

/// The products' terms of a block cut onto the grid whose products' shift is base - P (step 3),
/// summed (step 4): returns the sum, and sets `dropped` nonzero when a term lost bits. Per-lane
/// shifts (vpsrlvq; vpsllvq back to find the dropped bits; floor's arithmetic shift as ~(~v >> r)
/// on negative lanes, whose significand is nonzero). vpsrlvq gives 0 for a count of 64 or more,
/// which is what the portable min(r, 63) gives (a shift of 63 drops all of a value below 2^63 or,
/// floored, leaves its sign; the dropped bits are nonzero exactly when the term is).
template <std::size_t NV>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_cut_block(const mb_block_terms& t, int base, bool floor,
                                                                         std::uint64_t& dropped) {
  const simd::m256i zero = simd::mm256_setzero_si256();
  const simd::m256i vbase = simd::mm256_set1_epi64x(base);
  simd::m256i vsum = zero, vdrop = zero;
  auto vector = [&](std::size_t v) __attribute__((always_inline, target("avx2"))) {
    const simd::m256i r = simd::mm256_sub_epi64(vbase, t.pe[v]);
    if (floor) {
      const simd::m256i x =
          simd::mm256_sub_epi64(simd::mm256_xor_si256(t.sig[v], t.neg[v]), t.neg[v]);  // two's complement
      // x >> r, arithmetic: ~(~x >> r) for x < 0 (neg all ones), x >> r otherwise
      const simd::m256i q =
          simd::mm256_xor_si256(simd::mm256_srlv_epi64(simd::mm256_xor_si256(x, t.neg[v]), r), t.neg[v]);
      vdrop = simd::mm256_or_si256(vdrop, simd::mm256_xor_si256(x, simd::mm256_sllv_epi64(q, r)));
      vsum = simd::mm256_add_epi64(vsum, q);
    } else {
      const simd::m256i q = simd::mm256_srlv_epi64(t.sig[v], r);
      vdrop = simd::mm256_or_si256(vdrop, simd::mm256_xor_si256(t.sig[v], simd::mm256_sllv_epi64(q, r)));
      vsum = simd::mm256_add_epi64(vsum, simd::mm256_sub_epi64(simd::mm256_xor_si256(q, t.neg[v]), t.neg[v]));
    }
  };
  if constexpr (NV > 0) {
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) vector(v);
  } else {
    for (std::size_t v = 0; v < t.nv; ++v) vector(v);
  }
  dropped = simd::mm256_testz_si256(vdrop, vdrop) ? 0 : 1;
  return mb_hadd_epi64(vsum);
}

/// The chain of block_fma_fast on 4 lanes of AVX2, the same computation, bit for bit and flag for
/// flag: per block, the products' terms (mb_load_block, mb_cut_block); c and the rounding are the
/// portable block's (block_fast_finish). A block with a zero, subnormal, NaN or infinity operand is
/// the portable block_fma_fast's.
template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
LIBFLOAT_MB_AVX2 bits_t block_chain_fast_avx2(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                              std::size_t first, std::size_t n, bits_t c, const fast_chain& ch,
                                              status& st) {
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  constexpr int bias_ab = FA.bias() + FB.bias();
  constexpr int none = -(1 << 20);
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N) {
    const std::size_t nb = n - s < N ? n - s : N, f0 = first + s;
    mb_block_terms t;
    mb_load_block<FA, FB, 0>(t, a.get, b.get, f0, nb, ch.L);
    if (t.slow) [[unlikely]] {
      c = block_fma_fast<FA, FB, K, M, DAZ>(mu, a, b, f0, nb, c, ch, st);
      continue;
    }
    const fast_operand z = fast_decode<binary32, DAZ>(c);
    const int pc = z.sig != 0 ? z.be - binary32.bias() + bias_ab : none;
    const int pmax = pc > t.pmax ? pc : t.pmax;
    if ((z.special >> (binary32.bits() - 1) & 1) != 0) [[unlikely]] {
      c = block_fma_fallback(mu, a, b, f0, nb, c, st);
      continue;
    }
    std::uint64_t dropped;
    const std::int64_t sum = mb_cut_block<0>(t, pmax + fab - ch.F + ch.L, ch.floor, dropped);
    c = block_fast_finish<FA, FB, K, M, DAZ>(pmax, pc, z, sum, dropped, ch, st);
  }
  return c;
}

// ---- the narrow blocks: 8 terms per vector on 32-bit lanes ----------------------------------------
// short_blocks' whole blocks of 8, 16 or 32 terms when every term fits 32-bit lanes: a product's
// significand times 2^L below 2^(pa + pb + L) (pa, pb the input precisions) and the block's sum
// below 2^31, i.e. pa + pb + L + log2(N) <= 31 (mb_narrow_ok). Then mb_load_block / mb_cut_block's
// steps on 8 lanes of 32 bits give the same fields and sums: the product pa * pb < 2^22 (vpmulld),
// and a right shift by 32 or more drops the whole term as one by 64 does (vpsrlvd gives 0, the
// term is below 2^28). The vectors sig[v], pe[v], neg[v] of mb_block_terms hold 8 terms each.

inline bool mb_narrow_ok(int pa, int pb, int L, std::size_t N) {
  return pa + pb + L + std::bit_width(N - 1) <= 31;
}

/// The largest / the sum of the 8 lanes of 32 bits (the sum: the caller keeps it below 2^31).
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline int mb_hmax_epi32(simd::m256i x) {
  x = simd::mm256_max_epi32(x, simd::mm256_permute4x64_epi64<0x4E>(x));
  x = simd::mm256_max_epi32(x, simd::mm256_shuffle_epi32<0x4E>(x));
  return simd::mm256_cvtsi256_si32(simd::mm256_max_epi32(x, simd::mm256_shuffle_epi32<0xB1>(x)));
}
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline int mb_hadd_epi32(simd::m256i x) {
  x = simd::mm256_add_epi32(x, simd::mm256_permute4x64_epi64<0x4E>(x));
  x = simd::mm256_add_epi32(x, simd::mm256_shuffle_epi32<0x4E>(x));
  return simd::mm256_cvtsi256_si32(simd::mm256_add_epi32(x, simd::mm256_shuffle_epi32<0xB1>(x)));
}

/// Eight encodings from j on as 32-bit lanes (every fast format's encoding has at most 19 bits).
template <class G>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline simd::m256i mb_load8_epi32(const G& g, std::size_t j) {
  if constexpr (requires { g.data(); }) {
    const auto* p = g.data() + j;
    constexpr std::size_t size = sizeof(*p);
    if constexpr (size == 1) {
      return simd::mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    } else if constexpr (size == 2) {
      return simd::mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    } else if constexpr (size == 4) {
      return simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p));
    } else {
      static_assert(size == 8);  // (the low 32-bit word of each)
      const simd::m256i even = simd::mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
      const simd::m256i lo =
          simd::mm256_permutevar8x32_epi32(simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p)), even);
      const simd::m256i hi =
          simd::mm256_permutevar8x32_epi32(simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(p + 4)), even);
      return simd::mm256_blend_epi32<0xF0>(lo, hi);
    }
  } else {
    return simd::mm256_setr_epi32(static_cast<int>(g(j)), static_cast<int>(g(j + 1)), static_cast<int>(g(j + 2)),
                                  static_cast<int>(g(j + 3)), static_cast<int>(g(j + 4)), static_cast<int>(g(j + 5)),
                                  static_cast<int>(g(j + 6)), static_cast<int>(g(j + 7)));
  }
}

/// mb_load_block for a whole block of 8 NW terms on NW vectors of 8 lanes of 32 bits.
template <format FA, format FB, std::size_t NW, class A, class B>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline void mb_load_block_narrow(mb_block_terms& t, const A& ga, const B& gb,
                                                                         std::size_t f0, int L) {
  constexpr int spec_a = static_cast<int>(FA.kind == nonfinite::ieee ? FA.exponent_mask()
                                                                      : FA.exponent_mask() | FA.fraction_mask());
  constexpr int spec_b = static_cast<int>(FB.kind == nonfinite::ieee ? FB.exponent_mask()
                                                                      : FB.exponent_mask() | FB.fraction_mask());
  const simd::m256i zero = simd::mm256_setzero_si256(), one = simd::mm256_set1_epi32(1);
  const simd::m256i exp_a = simd::mm256_set1_epi32(static_cast<int>(FA.exponent_mask()));
  const simd::m256i exp_b = simd::mm256_set1_epi32(static_cast<int>(FB.exponent_mask()));
  const simd::m256i frac_a = simd::mm256_set1_epi32(static_cast<int>(FA.fraction_mask()));
  const simd::m256i frac_b = simd::mm256_set1_epi32(static_cast<int>(FB.fraction_mask()));
  const simd::m256i hid_a = simd::mm256_set1_epi32(static_cast<int>(FA.min_normal_bits()));
  const simd::m256i hid_b = simd::mm256_set1_epi32(static_cast<int>(FB.min_normal_bits()));
  const simd::m256i vspec_a = simd::mm256_set1_epi32(spec_a), vspec_b = simd::mm256_set1_epi32(spec_b);
  // IEEE operands with the same exponent field (and so the same special encodings' test)
  constexpr bool same_fields = FA.kind == nonfinite::ieee && FB.kind == nonfinite::ieee &&
                               FA.exponent_mask() == FB.exponent_mask();
  const __m128i vL = _mm_cvtsi32_si128(L);
  simd::m256i vmax = zero, slow = zero;
#pragma GCC unroll 4
  for (std::size_t v = 0; v < NW; ++v) {
    const simd::m256i x = mb_load8_epi32(ga, f0 + 8 * v), y = mb_load8_epi32(gb, f0 + 8 * v);
    const simd::m256i ea = simd::mm256_and_si256(x, exp_a), eb = simd::mm256_and_si256(y, exp_b);
    if constexpr (same_fields) {  // a field 0 or all ones: the smaller field 0 or the larger all ones
      slow = simd::mm256_or_si256(slow,
                                  simd::mm256_or_si256(simd::mm256_cmpeq_epi32(simd::mm256_min_epu32(ea, eb), zero),
                                                       simd::mm256_cmpeq_epi32(simd::mm256_max_epu32(ea, eb), exp_a)));
    } else {
      slow = simd::mm256_or_si256(
          slow, simd::mm256_or_si256(
                    simd::mm256_or_si256(simd::mm256_cmpeq_epi32(ea, zero), simd::mm256_cmpeq_epi32(eb, zero)),
                    simd::mm256_or_si256(simd::mm256_cmpeq_epi32(simd::mm256_and_si256(x, vspec_a), vspec_a),
                                         simd::mm256_cmpeq_epi32(simd::mm256_and_si256(y, vspec_b), vspec_b))));
    }
    const simd::m256i pa = simd::mm256_or_si256(simd::mm256_and_si256(x, frac_a), hid_a);
    const simd::m256i pb = simd::mm256_or_si256(simd::mm256_and_si256(y, frac_b), hid_b);
    t.sig[v] = simd::mm256_sll_epi32(simd::mm256_mullo_epi32(pa, pb), vL);
    t.pe[v] = simd::mm256_add_epi32(simd::mm256_srli_epi32(ea, FA.fraction_bits()),
                                    simd::mm256_srli_epi32(eb, FB.fraction_bits()));
    if constexpr (FA.bits() == FB.bits()) {  // the signs' xor moved to bit 31, copied to every bit
      t.neg[v] = simd::mm256_srai_epi32(simd::mm256_slli_epi32(simd::mm256_xor_si256(x, y), 32 - FA.bits()), 31);
    } else {
      const simd::m256i sg = simd::mm256_and_si256(
          simd::mm256_xor_si256(simd::mm256_srli_epi32(x, FA.bits() - 1), simd::mm256_srli_epi32(y, FB.bits() - 1)),
          one);
      t.neg[v] = simd::mm256_sub_epi32(zero, sg);
    }
    vmax = simd::mm256_max_epi32(vmax, t.pe[v]);
  }
  t.nv = NW;
  t.slow = !simd::mm256_testz_si256(slow, slow);
  t.pmax = mb_hmax_epi32(vmax);
}

/// mb_cut_block (truncation) for mb_load_block_narrow's terms: the block's sum (below 2^31 in
/// magnitude); `lost` ORs the bits each term lost (nonzero when one lost bits).
template <std::size_t NW>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::int64_t mb_cut_block_narrow(const mb_block_terms& t, int base,
                                                                                simd::m256i& lost) {
  const simd::m256i vbase = simd::mm256_set1_epi32(base);
  simd::m256i vsum = simd::mm256_setzero_si256(), vdrop = simd::mm256_setzero_si256();
#pragma GCC unroll 4
  for (std::size_t v = 0; v < NW; ++v) {
    const simd::m256i r = simd::mm256_sub_epi32(vbase, t.pe[v]);
    const simd::m256i q = simd::mm256_srlv_epi32(t.sig[v], r);
    vdrop = simd::mm256_or_si256(vdrop, simd::mm256_xor_si256(t.sig[v], simd::mm256_sllv_epi32(q, r)));
    vsum = simd::mm256_add_epi32(vsum, simd::mm256_sub_epi32(simd::mm256_xor_si256(q, t.neg[v]), t.neg[v]));
  }
  lost = vdrop;
  return mb_hadd_epi32(vsum);
}

/// Whether a vector of lost bits has one.
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::uint64_t mb_any(simd::m256i lost) {
  return simd::mm256_testz_si256(lost, lost) ? 0 : 1;
}

/// The accumulator of block_chain_short_avx2 between blocks while it is zero or normal:
/// |c| = sig * 2^(pc - bias_a - bias_b - 63), sig binary32's significand shifted left to bit 63
/// (short_sig_shift: the 24-bit significand times 2^40; pc its exponent in the products' frame),
/// sig = 0 and pc = short_zero for a zero; neg its sign as a mask (all ones: negative). Any other c
/// (subnormal, infinity, NaN): pc = short_other and sig its encoding. Left-aligned, c's term on a
/// block's grid is one right shift and a rounded result is its normalised sum with the bits below p
/// cleared (short_round).
struct short_acc {
  std::uint64_t sig, neg;
  int pc;
};

inline constexpr int short_zero = -(1 << 20);  // the exponent of a zero: below every real one
inline constexpr int short_other = 1 << 20;    // (above every real one)
inline constexpr int short_sig_shift = 63 - binary32.fraction_bits();

template <int BiasAB>
LIBFLOAT_INLINE constexpr short_acc short_decode(bits_t x) {
  constexpr int fo = binary32.fraction_bits();
  const std::uint64_t field = (x >> fo) & 0xff, m = x & binary32.fraction_mask();
  const std::uint64_t neg = 0 - (x >> (binary32.bits() - 1));
  if (field == 0 && m == 0) return {0, neg, short_zero};
  if (field == 0 || field == 0xff) return {x, neg, short_other};
  return {(m | binary32.min_normal_bits()) << short_sig_shift, neg, static_cast<int>(field) - binary32.bias() + BiasAB};
}

template <int BiasAB>
LIBFLOAT_INLINE constexpr bits_t short_encode(const short_acc& c) {
  if (c.pc == short_other) return c.sig;
  const bits_t s = (c.neg & 1) << (binary32.bits() - 1);
  if (c.pc == short_zero) return s;
  return s | (static_cast<std::uint64_t>(c.pc - BiasAB + binary32.bias()) << binary32.fraction_bits()) |
         ((c.sig >> short_sig_shift) & binary32.fraction_mask());
}

/// A block that block_chain_short_avx2 does not take itself (an operand zero, subnormal or
/// special, or c neither zero nor normal): the portable block, on c's encoding. (Out of line,
/// encodings in and out: the fast loop keeps its state in registers.)
template <format FA, format FB, format K, int M, class A, class B>
[[gnu::noinline]] bits_t short_block_portable(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                              std::size_t f0, std::size_t nb, bits_t c, const fast_chain& ch,
                                              status& st) {
  return block_fma_fast<FA, FB, K, M, false>(mu, a, b, f0, nb, c, ch, st);
}

/// A result outside binary32's normal range, or zero: block_fast_finish (round_pack) from the
/// products' sum and c (sig, neg, pc as in short_acc). (Out of line, as above.)
template <format FA, format FB, format K, int M>
[[gnu::noinline]] bits_t short_finish(int pmax, std::uint64_t sig, std::uint64_t neg, int pc, std::int64_t products,
                                      std::uint64_t dropped, const fast_chain& ch, status& st) {
  constexpr int bias_ab = FA.bias() + FB.bias();
  const fast_operand z{sig >> short_sig_shift, pc - bias_ab + binary32.bias(), neg & 1, 0};
  return block_fast_finish<FA, FB, K, M, false>(pmax, pc, z, products, dropped, ch, st);
}

/// The end of a block of block_chain_short_avx2: c's term added to `sum`, the products' terms cut
/// on the grid of pmax = max(Pmax, c's pc) (dropped: whether they lost bits), and the sum rounded
/// (step 5) into c. A result in binary32's normal range is rounded here: normalised by its
/// leading-zero count, p bits kept, nearest even by adding half an ulp less one plus the last kept
/// bit; zero, a result outside that range and a rounding that carries into the next binade go to
/// short_finish (round_pack) with the same sum.
/// (The unit's parameters short_round uses, copied once per chain into locals, which the calls out
/// of line cannot change: the loops keep them in registers.)
struct short_params {
  int cut_base;  ///< a product's right shift: pmax + cut_base - P
  int base;      ///< 63 - F: c's right shift is pmax + base - pc, the result's exponent pmax + base - lz
};

template <format FA, format FB, format K>
constexpr short_params make_short_params(const fast_chain& ch) {
  return {FA.fraction_bits() + FB.fraction_bits() - ch.F + ch.L, 63 - ch.F};
}

/// A block that the short chain does not take itself, on the decoded c (short_block_portable).
template <format FA, format FB, format K, int M, class A, class B>
[[gnu::always_inline]] inline void short_portable(short_acc& c, const matrix_unit& mu, const operand<A>& a,
                                                  const operand<B>& b, std::size_t f0, std::size_t nb,
                                                  const fast_chain& ch, status& st) {
  constexpr int bias_ab = FA.bias() + FB.bias();
  c = short_decode<bias_ab>(short_block_portable<FA, FB, K, M>(mu, a, b, f0, nb, short_encode<bias_ab>(c), ch, st));
}

/// A copy of pmax for short_round that the optimiser cannot relate to anything: the caller checks
/// pmax against max(Pmax, c's pc) and would otherwise let short_round read that maximum (equal on
/// the path taken), which waits for the previous block's result, where pmax (decided by the guess)
/// does not.
[[gnu::always_inline]] inline int short_opaque(int x) {
  asm("" : "+r"(x));
  return x;
}

/// products_dropped(): whether the products' terms lost bits on this block's grid, read only where
/// needed: by the result's inexact flag when CountProducts (else the caller counts them, see
/// short_pairs) and by short_finish (with Track).
/// Track: whether the inexact flag is still to be found. The flag is sticky: once `inexact` is
/// nonzero the chains go on with Track false (block_chain_short_avx2), which leaves out what only
/// the flag needs: the bits c's term and the products lose (block_fast_finish, too, reads them
/// for nothing else: its rounding takes no sticky bit from them) and, toward zero, the bits below p.
template <format FA, format FB, format K, int M, bool CountProducts, bool Track, class Dropped>
[[gnu::always_inline]] LIBFLOAT_MB_AVX2_BMI inline void short_round(short_acc& c, int pmax, std::int64_t sum,
                                                                  const Dropped& products_dropped,
                                                                  std::uint64_t& inexact, const short_params kp,
                                                                  const fast_chain& ch, status& st) {
  constexpr int bias_ab = FA.bias() + FB.bias();
  constexpr int p = K.precision;
  constexpr int emin = binary32.emin(), emax = binary32.emax();
  const std::int64_t products = sum;
  // c's term, as block_fast_finish: |c| / 2^(grid) = sig >> r with r = pmax + 63 - F - pc >= 63 - F
  // (pc <= pmax); a shift of 64 or more drops all of it, by a mask instead of a clamp of r (one
  // instruction less between one block's result and the next one's)
  const int r = pmax + kp.base - c.pc;
  const auto rr = static_cast<unsigned>(r) & 63;
  const std::uint64_t k = (c.sig >> rr) & (0 - static_cast<std::uint64_t>(static_cast<unsigned>(r) < 64));
  const auto c_dropped = [&] { return c.sig ^ (k << rr); };  // c's bits below the grid (Track only)
  const auto dropped = [&] { return c_dropped() | products_dropped(); };
  sum += static_cast<std::int64_t>((k ^ c.neg) - c.neg);
  // Step 5 for a normal result: |sum| * 2^(pmax - bias_ab - F) normalised, p bits kept.
  const auto sm = static_cast<std::uint64_t>(sum >> 63);  // all ones for a negative sum
  const std::uint64_t mag = (static_cast<std::uint64_t>(sum) ^ sm) - sm;  // (no branch: the sign is random)
  const int lz = std::countl_zero(mag);                    // 64 for mag == 0 (handled below)
  const std::uint64_t norm = mag << (lz & 63);
  const int pr = pmax + kp.base - lz;  // the result's exponent in the products' frame
  std::uint64_t sig, below = 0;
  bool carry = false;
  if constexpr (M == static_cast<int>(rounding::nearest_even)) {
    // norm + (half an ulp - 1) + the last kept bit, the bits below p cleared: nearest even (a tie
    // rounds up only from an odd last bit). A carry out of the 64 bits (the kept bits all ones and
    // rounded up: the result is the next binade's 2^(pr + 1)) goes to short_finish with the zero and
    // out-of-range results, which rounds it as round_pack does. (Four operations from norm to sig:
    // the chain from one block's result to the next runs through them.)
    constexpr std::uint64_t half_m1 = (std::uint64_t{1} << (63 - p)) - 1;
    std::uint64_t t;
    carry = __builtin_add_overflow(norm, half_m1 + ((norm >> (64 - p)) & 1), &t);
    sig = t >> (64 - p) << (64 - p);
    if constexpr (Track) below = norm << p;  // the bits below the kept ones
  } else {
    sig = norm >> (64 - p) << (64 - p);  // (shifts by constants: no mask held in a register)
    if constexpr (Track) below = norm ^ sig;
  }
  if (mag == 0 || carry || static_cast<unsigned>(pr - bias_ab - emin) > static_cast<unsigned>(emax - emin)) [[unlikely]] {
    c = short_decode<bias_ab>(
        short_finish<FA, FB, K, M>(pmax, c.sig, c.neg, c.pc, products, Track ? dropped() : 0, ch, st));
    return;
  }
  if constexpr (Track) {
    if constexpr (CountProducts) inexact |= dropped() | below;
    else inexact |= c_dropped() | below;
  }
  c.sig = sig;
  c.neg = sm;
  c.pc = pr;
}

/// The blocks of block_chain_short_avx2 from first + s on: whole blocks of N = 4 NV terms while
/// NV > 0 (the vectors unrolled), else every block to n (the last one may be short). With Track,
/// it returns after the first block that sets `inexact` (the rest: Track false, short_round).
/// The unit's parameters are copied to locals, which the calls out of line cannot change.
template <format FA, format FB, format K, int M, std::size_t NV, bool Narrow, bool Track, class A, class B>
LIBFLOAT_MB_AVX2_BMI inline std::size_t short_blocks(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                                 std::size_t first, std::size_t s, std::size_t n, short_acc& io,
                                                 int& guess_io, std::uint64_t& inexact_io, const fast_chain& ch,
                                                 status& st) {
  const auto N = static_cast<std::size_t>(mu.block_size);
  const int L = ch.L;
  const short_params kp = make_short_params<FA, FB, K>(ch);
  const int cut_base = kp.cut_base;
  const A ga = a.get;  // (locals: the loop keeps them in registers)
  const B gb = b.get;
  short_acc c = io;
  int guess = guess_io;
  std::uint64_t inexact = inexact_io;
  simd::m256i lost_all = simd::mm256_setzero_si256();
  for (; (NV > 0 ? n - s >= N : s < n) && (!Track || inexact == 0); s += N) {
    const std::size_t f0 = first + s, nb = NV > 0 ? N : (n - s < N ? n - s : N);
    mb_block_terms t;
    if constexpr (Narrow) mb_load_block_narrow<FA, FB, NV / 2>(t, ga, gb, f0, L);
    else mb_load_block<FA, FB, NV>(t, ga, gb, f0, nb, L);
    if (t.slow || c.pc == short_other) [[unlikely]] {
      short_portable<FA, FB, K, M>(c, mu, a, b, f0, nb, ch, st);
      continue;
    }
    // The products' terms on the grid of the guessed c exponent; again if the real one differs.
    const int pmax = t.pmax > guess ? t.pmax : guess;
    const int pmax_round = short_opaque(pmax);
    if constexpr (Narrow && NV == 2) {
      // N = 8: the lost bits of the guessed grid's blocks are ORed into one vector, read at the end
      // (a block cut again counts its own in short_round). (Measured: faster for N = 8, slower for
      // the FP8 units' N = 16 and 32, which keep the reduction per block.) Without Track, `lost` is
      // read by nothing and the compiler leaves out its computation.
      simd::m256i lost;
      const std::int64_t sum = mb_cut_block_narrow<NV / 2>(t, pmax + cut_base, lost);
      if (const int real = t.pmax > c.pc ? t.pmax : c.pc; real != pmax) [[unlikely]] {
        guess = c.pc;
        simd::m256i rlost;
        const std::int64_t rsum = mb_cut_block_narrow<NV / 2>(t, real + cut_base, rlost);
        short_round<FA, FB, K, M, true, Track>(
            c, real, rsum, [rlost]() LIBFLOAT_MB_AVX2 { return mb_any(rlost); }, inexact, kp, ch, st);
        continue;
      }
      short_round<FA, FB, K, M, false, Track>(
          c, pmax_round, sum, [lost]() LIBFLOAT_MB_AVX2 { return mb_any(lost); }, inexact, kp, ch, st);
      if constexpr (Track) lost_all = simd::mm256_or_si256(lost_all, lost);
    } else {
      // (Without Track, `dropped` is read by nothing and the compiler leaves out its computation.)
      const auto cut = [&](int grid, std::uint64_t& dropped) __attribute__((always_inline, target("avx2"))) {
        if constexpr (Narrow) {
          simd::m256i lost;
          const std::int64_t sum = mb_cut_block_narrow<NV / 2>(t, grid + cut_base, lost);
          dropped = mb_any(lost);
          return sum;
        } else {
          return mb_cut_block<NV>(t, grid + cut_base, false, dropped);
        }
      };
      std::uint64_t dropped;
      std::int64_t sum = cut(pmax, dropped);
      int grid = pmax_round;
      if (const int real = t.pmax > c.pc ? t.pmax : c.pc; real != pmax) [[unlikely]] {
        guess = c.pc;
        grid = real;
        sum = cut(real, dropped);
      }
      short_round<FA, FB, K, M, true, Track>(c, grid, sum, [dropped] { return dropped; }, inexact, kp, ch, st);
    }
  }
  if (!simd::mm256_testz_si256(lost_all, lost_all)) inexact = 1;
  io = c;
  guess_io = guess;
  inexact_io = inexact;
  return s;
}

/// mb_cut_block_narrow for the two blocks of 4 terms of mb_load_block_narrow<.., 1>'s vector (block k
/// in 128-bit half k, cut on the grid whose products' shift is base[k] - P): each half's sum (in-lane
/// shuffles); `lost` holds the bits each term lost (mb_half_dropped reads a half's).
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline void mb_cut_halves(const mb_block_terms& t, simd::m256i base,
                                                                  std::int64_t (&sum)[2], simd::m256i& lost) {
  const simd::m256i r = simd::mm256_sub_epi32(base, t.pe[0]);
  const simd::m256i q = simd::mm256_srlv_epi32(t.sig[0], r);
  lost = simd::mm256_xor_si256(t.sig[0], simd::mm256_sllv_epi32(q, r));
  simd::m256i v = simd::mm256_sub_epi32(simd::mm256_xor_si256(q, t.neg[0]), t.neg[0]);
  v = simd::mm256_add_epi32(v, simd::mm256_shuffle_epi32<0x4E>(v));
  v = simd::mm256_add_epi32(v, simd::mm256_shuffle_epi32<0xB1>(v));
  sum[0] = simd::mm256_cvtsi256_si32(v);
  sum[1] = simd::mm256_extract_epi32<4>(v);
}

/// Whether a term of block k (half k of mb_cut_halves' vector) lost bits.
[[gnu::always_inline]] LIBFLOAT_MB_AVX2 inline std::uint64_t mb_half_dropped(simd::m256i lost, int k) {
  const __m128i h = k == 0 ? simd::mm256_castsi256_si128(lost) : simd::mm256_extracti128_si256<1>(lost);
  return _mm_testz_si128(h, h) ? 0 : 1;
}

/// Whole blocks of 4 terms two at a time, for block_chain_short_avx2 where mb_narrow_ok(pa, pb, L, 4)
/// (volta_fp16, ampere_tf32, ada_tf32): the 8 terms of two consecutive blocks on one vector of 8
/// lanes of 32 bits (mb_load_block_narrow), the first block in the low 128 bits; each half's largest
/// product exponent, its cut on the grid of max(that, guess) and its sum (mb_cut_halves), so that the
/// two blocks share the loads, the decoding and the cut. Then, block by block, what short_blocks does:
/// the cut again (that block's half) when c's real exponent decides another grid, and short_round.
/// A pair with a zero, subnormal or special operand is the portable block's, block by block; so is a
/// block reached with c neither zero nor normal (its pc, short_other, is above every Pmax, so the
/// test for another grid catches it).
/// The products' lost bits (the inexact flag) of the guessed grid are ORed into one vector per pair,
/// read at the end; a block cut again counts its own in short_round and a portable block in its
/// flags, and both clear their half of the pair's vector first. With Track, it returns after the
/// first pair that sets `inexact`; without, it tracks no lost bits (the compiler leaves out `lost`).
template <format FA, format FB, format K, int M, bool Track, class A, class B>
LIBFLOAT_MB_AVX2_BMI inline std::size_t short_pairs(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                                  std::size_t first, std::size_t s, std::size_t n, short_acc& io,
                                                  int& guess_io, std::uint64_t& inexact_io, const fast_chain& ch,
                                                  status& st) {
  const short_params kp = make_short_params<FA, FB, K>(ch);
  const int L = ch.L, cut_base = kp.cut_base;
  const simd::m256i vcut_base = simd::mm256_set1_epi32(cut_base);
  const A ga = a.get;  // (locals: the loop keeps them in registers)
  const B gb = b.get;
  short_acc c = io;
  int guess = guess_io;
  std::uint64_t inexact = inexact_io;
  simd::m256i lost_all = simd::mm256_setzero_si256();
  for (; n - s >= 8 && (!Track || inexact == 0); s += 8) {
    const std::size_t f0 = first + s;
    mb_block_terms t;
    mb_load_block_narrow<FA, FB, 1>(t, ga, gb, f0, L);
    if (t.slow) [[unlikely]] {
      for (std::size_t k = 0; k < 8; k += 4) short_portable<FA, FB, K, M>(c, mu, a, b, f0 + k, 4, ch, st);
      continue;
    }
    simd::m256i hmax = simd::mm256_max_epi32(t.pe[0], simd::mm256_shuffle_epi32<0x4E>(t.pe[0]));  // each half's largest
    hmax = simd::mm256_max_epi32(hmax, simd::mm256_shuffle_epi32<0xB1>(hmax));                    // in all its lanes
    const int pm[2] = {simd::mm256_cvtsi256_si32(hmax), simd::mm256_extract_epi32<4>(hmax)};
    const int cut_guess = guess;
    std::int64_t sums[2];
    simd::m256i lost;
    mb_cut_halves(t, simd::mm256_add_epi32(simd::mm256_max_epi32(hmax, simd::mm256_set1_epi32(cut_guess)), vcut_base),
                  sums, lost);
#pragma GCC unroll 2
    for (int k = 0; k < 2; ++k) {
      const int pmax = pm[k] > cut_guess ? pm[k] : cut_guess;
      const int pmax_round = short_opaque(pmax);
      if (const int real = pm[k] > c.pc ? pm[k] : c.pc; real != pmax) [[unlikely]] {
        if constexpr (Track)
          lost =
              simd::mm256_and_si256(lost, k == 0 ? simd::mm256_setr_epi32(0, 0, 0, 0, -1, -1, -1, -1)  // (counted here)
                                                 : simd::mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0));
        if (c.pc == short_other) {
          short_portable<FA, FB, K, M>(c, mu, a, b, f0 + 4 * k, 4, ch, st);
          continue;
        }
        guess = c.pc;
        std::int64_t rsums[2];
        simd::m256i rlost;
        mb_cut_halves(t, simd::mm256_set1_epi32(real + cut_base), rsums, rlost);
        short_round<FA, FB, K, M, true, Track>(
            c, real, rsums[k], [rlost, k]() LIBFLOAT_MB_AVX2 { return mb_half_dropped(rlost, k); }, inexact, kp, ch, st);
        continue;
      }
      short_round<FA, FB, K, M, false, Track>(
          c, pmax_round, sums[k], [lost, k]() LIBFLOAT_MB_AVX2 { return mb_half_dropped(lost, k); }, inexact, kp, ch, st);
    }
    if constexpr (Track) lost_all = simd::mm256_or_si256(lost_all, lost);
  }
  if (!simd::mm256_testz_si256(lost_all, lost_all)) inexact = 1;
  io = c;
  guess_io = guess;
  inexact_io = inexact;
  return s;
}

/// The chain of block_chain_fast_avx2 for a kept format K and a final rounding M (toward zero or
/// nearest even) known at compile time and input subnormals kept (every block-FMA preset): the same
/// computation, bit for bit and flag for flag, with the dependency from one block's result to the
/// next shortened, since it bounds the speed of short blocks (N = 4 and 8):
///  - c stays decoded between blocks (short_acc) while it is zero or normal; it is encoded only at
///    the end or for a block taken another way.
///  - The grid of a block is 2^(max(Pmax, pc) - bias_a - bias_b - F) (step 3): it depends on c's
///    exponent pc. The products' terms are cut onto the grid of a guessed pc (the last one that
///    decided a grid, changed only on a branch, so no data dependency on the previous block's
///    result), and cut again when the real max(Pmax, pc) differs.
///  - The rounding of a result in binary32's normal range (K has binary32's exponent range) is
///    done here: normalised by its leading-zero count, p bits kept, nearest even from the round
///    bit and the bits below; zero, a result outside that range (subnormal, overflow) and a
///    nearest-even rounding that carries into the next binade are block_fast_finish's (round_pack)
///    from the same sum.
///  - Whole blocks of the presets' sizes have their vectors unrolled: 8, 16 and 32 terms on 32-bit
///    lanes, 32 on 64-bit ones, and blocks of 4 on 32-bit lanes two per vector (short_pairs).
///  - The inexact flag is sticky: each loop runs in two copies, with short_round's Track until a
///    block sets it, and from there without what only that flag needs.
template <format FA, format FB, format K, int M, class A, class B>
LIBFLOAT_MB_AVX2_BMI bits_t block_chain_short_avx2(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                               std::size_t first, std::size_t n, bits_t c, const fast_chain& ch,
                                               status& st) {
  static_assert(M == static_cast<int>(rounding::toward_zero) || M == static_cast<int>(rounding::nearest_even));
  static_assert(K.exponent_bits == binary32.exponent_bits && K.bias() == binary32.bias() && K.kind == nonfinite::ieee &&
                K.precision <= binary32.precision);
  constexpr int bias_ab = FA.bias() + FB.bias();
  short_acc acc = short_decode<bias_ab>(c);
  int guess = acc.pc == short_other ? short_zero : acc.pc;  // the c exponent the products' grid is cut for
  std::uint64_t inexact = 0;
  std::size_t s = 0;
  const auto N = static_cast<std::size_t>(mu.block_size);
  // Each loop twice: with Track until a block sets `inexact` (exact data may never do), then from
  // there without.
  const auto blocks = [&]<std::size_t NV, bool Narrow>() {
    s = short_blocks<FA, FB, K, M, NV, Narrow, true>(mu, a, b, first, s, n, acc, guess, inexact, ch, st);
    if (inexact != 0) s = short_blocks<FA, FB, K, M, NV, Narrow, false>(mu, a, b, first, s, n, acc, guess, inexact, ch, st);
  };
  // Whole blocks unrolled where a preset needs them (each loop is compiled for every pair of input
  // formats and every kept format and rounding, twice): on 32-bit lanes (mb_narrow_ok) for N = 4
  // (two blocks per vector), 8, 16 and 32, and on 64-bit lanes for N = 32 only (the Blackwell FP8
  // units, F = 25 and 48). Other block sizes and widths take the loop for any N (NV = 0), as the
  // last, short block does.
  const bool narrow = mb_narrow_ok(FA.precision, FB.precision, ch.L, N);
  switch (N) {
    case 4:
      if (narrow) {
        s = short_pairs<FA, FB, K, M, true>(mu, a, b, first, s, n, acc, guess, inexact, ch, st);
        if (inexact != 0) s = short_pairs<FA, FB, K, M, false>(mu, a, b, first, s, n, acc, guess, inexact, ch, st);
      }
      break;
    case 8:
      if (narrow) blocks.template operator()<2, true>();
      break;
    case 16:
      if (narrow) blocks.template operator()<4, true>();
      break;
    case 32:
      if (narrow) blocks.template operator()<8, true>();
      else blocks.template operator()<8, false>();
      break;
    default: break;
  }
  blocks.template operator()<0, false>();
  if (inexact != 0) st |= status::inexact;
  return short_encode<bias_ab>(acc);
}
#undef LIBFLOAT_MB_AVX2
#undef LIBFLOAT_MB_AVX2_BMI
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
  if (path == array_dispatch::avx2 || is_avx512(path)) {
    if constexpr (K != format{} && !DAZ &&
                  (M == static_cast<int>(rounding::toward_zero) || M == static_cast<int>(rounding::nearest_even)))
      if (!ch.floor && cpu().bmi2_lzcnt) return block_chain_short_avx2<FA, FB, K, M>(mu, a, b, first, n, c, ch, st);
    return block_chain_fast_avx2<FA, FB, K, M, DAZ>(mu, a, b, first, n, c, ch, st);
  }
#endif
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N)
    c = block_fma_fast<FA, FB, K, M, DAZ>(mu, a, b, first + s, n - s < N ? n - s : N, c, ch, st);
  return c;
}

/// The fast chain for input formats FA, FB: the presets' kept formats (binary32, and 13 fraction
/// bits for the FP8 units of Ada and Hopper: FP8 inputs only) and final roundings (toward zero;
/// nearest even with binary32 kept) as constants, the rest at run time.
template <format FA, format FB, class A, class B>
bits_t block_chain_fast(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                        std::size_t n, bits_t c, status& st) {
  constexpr format kept13{binary32.exponent_bits, 14, binary32.kind};
  constexpr int tz = static_cast<int>(rounding::toward_zero);
  constexpr int ne = static_cast<int>(rounding::nearest_even);
  if (mu.final_rounding == rounding::toward_zero && mu.input_subnormals == subnormal_handling::keep) {
    if (mu.output_fraction_bits == 23) return block_chain_fast_with<FA, FB, binary32, tz, false>(mu, a, b, first, n, c, st);
    if constexpr (FA.bits() == 8 && FB.bits() == 8)  // (the FP8 units' kept width; others: K at run time)
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
  constexpr auto data() const
    requires requires(const Get& g) { g.data(); }
  {
    return get.data();
  }
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
