// libfloat/fast/binade_chain.hpp: the chain from one block's binary32 result to the next in the
// hardware paths of the exact-alignment and late-accumulation block models (fast/exact_block_dot.hpp
// file comment 7, fast/late_dot.hpp file comment 7), one binary64 addition per block where the
// result stays in the binade of the last one.
//
// Proof: with the kernels that use it, ctest tests exact_block_fast and late_fast (label quick),
// which include sums at the edges of the predicted binade.
//
// The rounding, for a block whose exact sum is x = c + T (c binary32, T binary64, both exact):
//  1. With c a normal binary32 value in binade E (2^E <= |c| < 2^(E + 1), -126 <= E <= 127) and
//     K = 1.5 2^(E + 29), c + K is exact: c is a multiple of 2^(E - 23), binary64's step at K.
//     The chain carries c + K.
//  2. u = (c + K) + T rounds K + x once to binary64, on the step 2^(E - 23) as long as |x| <
//     2^(E + 28), to nearest even (K's last bit is even, so u's last bit is that of x's rounding).
//     So r = u - K (exact) is x rounded to nearest even on binary32's step of binade E. Otherwise
//     |r| >= 2^(E + 28).
//  3. When 2^E < |r| < 2^(E + 1), x lies in binade E: |x| >= |r| - 2^(E - 24) > 2^E, and likewise
//     |x| < 2^(E + 1). There the step is binary32's own, so r is binary32's nearest-even rounding
//     of x, normal: neither tiny nor overflowing. It is inexact exactly when r - c != T (r - c is
//     exact: both are multiples of 2^(E - 23) below 2^(E + 1)). The chain goes on from u, with the
//     same E.
//  4. Any other r (x in another binade; r = 2^E, which x just below 2^E rounds to on the coarser
//     step; no E, as for a zero or subnormal c) leaves the block to the kernel's own rounding,
//     whose result sets c and E again. The test is a branch the CPU predicts, beside the chain.
//  5. u's addition raises inexact when x is off binade E's step, also for a block that step 4 then
//     rounds exactly (x a binary32 value of a lower binade): the kernels take inexact from the
//     blocks (binade_chain::inexact), not from MXCSR. Nothing here raises another flag: the
//     values stay far inside binary64's range.
#pragma once

#include <cstdint>

#include <libfloat/fast/dot.hpp>

#if defined(LIBFLOAT_DOT_FAST_X86)
#include <emmintrin.h>  // SSE2 (x86-64's baseline)

namespace lf::detail {

struct binade_chain {
  __m128d cK;               // lane 0: c + K (exact), the value the chain carries; +0 when E is none
  __m128d c;                // lane 0: c as a binary64 value (exact) while finite; +0 while not
  __m128d K;                // lane 0: 1.5 2^(E + 29); +0 when E is none
  std::uint64_t lo;         // the encoding of 2^E, plus 1 (|r| in binade E but 2^E: lo <= |r| < lo + 2^52 - 1)
  int E;                    // c's binade when c is a normal binary32 value, else 0 (and lo is none)
  std::uint32_t nonfinite;  // c's binary32 encoding while it is an infinity or a NaN, else 0
  bool inexact;             // a block's rounding was inexact (point 5)
};

/// lo when there is no E: above every finite |r|.
inline constexpr std::uint64_t binade_chain_none = 0x7FF0000000000001u;

/// Sets c to the binary32 encoding `bits`, and E to c's binade when c is normal (point 1).
[[gnu::always_inline]] inline void binade_chain_set(binade_chain& ch, std::uint32_t bits) {
  const std::uint32_t field = (bits >> 23) & 0xFFu;
  ch.nonfinite = field == 0xFFu ? bits : 0u;
  // (an infinity or a NaN is never converted, not even by a compiler that computes both sides of a
  // select: a signaling NaN would raise invalid)
  const std::uint32_t finite = field == 0xFFu ? 0u : bits;
  ch.c = _mm_cvtss_sd(_mm_setzero_pd(), _mm_castsi128_ps(_mm_cvtsi32_si128(static_cast<int>(finite))));
  if (field >= 1 && field <= 254) {
    const std::uint64_t e = std::uint64_t{field} - 127 + 1023;  // E's binary64 exponent field
    ch.E = static_cast<int>(field) - 127;
    ch.K = _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<long long>(((e + 29) << 52) | (std::uint64_t{1} << 51))));
    ch.lo = (e << 52) + 1;
    ch.cK = _mm_add_sd(ch.c, ch.K);  // (exact: point 1)
  } else {
    ch.E = 0;
    ch.K = ch.cK = _mm_setzero_pd();
    ch.lo = binade_chain_none;
  }
}

/// c as a binary32 encoding (the conversion of a finite c is exact and raises nothing).
[[gnu::always_inline]] inline std::uint32_t binade_chain_bits(const binade_chain& ch) {
  if (ch.nonfinite != 0) return ch.nonfinite;
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(_mm_cvtsd_ss(_mm_setzero_ps(), ch.c))));
}

/// Points 2-4 for a block whose exact sum is c + T: true, c replaced by its rounding, when `allowed`
/// and r lies in binade E but 2^E; false (nothing changed) otherwise.
[[gnu::always_inline]] inline bool binade_chain_try(binade_chain& ch, __m128d T, bool allowed) {
  const __m128d u = _mm_add_sd(ch.cK, T);
  const __m128d r = _mm_sub_sd(u, ch.K);
  const auto rb = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(r))) & ~(std::uint64_t{1} << 63);
  if (!allowed || rb - ch.lo >= (std::uint64_t{1} << 52) - 1) [[unlikely]] return false;
  if (!ch.inexact) ch.inexact = _mm_ucomineq_sd(_mm_sub_sd(r, ch.c), T) != 0;  // (point 3: exact)
  ch.cK = u;
  ch.c = r;
  return true;
}

/// MXCSR's flags without inexact (point 5), and inexact when `inexact`.
constexpr status binade_chain_flags(unsigned raised, bool inexact) {
  return static_cast<status>(to_bits(mxcsr_flags(raised)) & ~to_bits(status::inexact)) |
         (inexact ? status::inexact : status{});
}

}  // namespace lf::detail
#endif
