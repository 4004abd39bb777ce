// libfloat/fast/array_lane.hpp: the per-element narrowing behind lf::convert on spans (array.hpp).
//
// Proof: ctest label `proof`, tests proof_array_<i>of<n> (tests/fast/test_array_exhaustive.cpp): the
// loops over narrow_lane (portable, AVX2 and AVX-512 builds, through lf::convert on spans) give the
// core's bits (lf::convert, core/arith.hpp) and flags for all 2^32 binary32 inputs, into binary16,
// bfloat16, tf32, E4M3 and E5M2, in all seven rounding modes (stochastic with a fixed seed) and six
// policies (default, FTZ, DAZ, saturate, tininess before rounding, all four at once). binary64 inputs
// (In = binary64) cannot be enumerated: tests/core/test_array.cpp checks random and edge doubles.
//
// narrow_lane() is detail::round_pack specialised, at compile time, to one input format In
// (binary32 or binary64), one output format F and one rounding direction M, and written without
// branches on integer lanes so that a loop over it vectorises (a fast path, allowed because it is
// bit-identical to the core).
//
// The random bits of stochastic rounding come from stochastic_bits(): a pure function of a seed and
// the element's index, so results do not depend on vector width, chunking or threads.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/core/detail/round.hpp>

namespace lf::detail {

// ---- counter-based random bits for stochastic rounding ------------------------------------------

/// splitmix64's output function (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective 64-bit mix.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/// The key for indices [hi * 2^32, (hi + 1) * 2^32) of the stream `seed`.
constexpr std::uint64_t stochastic_key(std::uint64_t seed, std::uint64_t hi) {
  return splitmix64_mix(seed + 0x9E3779B97F4A7C15u * (hi + 1));
}

/// 32 random bits for the element whose index has low half `lo`, under `key`. A 32-bit
/// multiply-xorshift mix (the constants of C. Wellons' "lowbias32"), keyed on both halves of the
/// key; 32-bit multiplies so that it vectorises on every x86 vector width.
LIBFLOAT_INLINE constexpr std::uint32_t stochastic_mix(std::uint32_t lo, std::uint64_t key) {
  std::uint32_t x = lo ^ static_cast<std::uint32_t>(key);
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x += static_cast<std::uint32_t>(key >> 32);
  x *= 0x735A2D97u;
  x ^= x >> 15;
  return x;
}

/// The random bits of element `index` of the stream `seed`.
constexpr std::uint32_t stochastic_bits(std::uint64_t seed, std::uint64_t index) {
  return stochastic_mix(static_cast<std::uint32_t>(index), stochastic_key(seed, index >> 32));
}

// ---- narrowing one lane -----------------------------------------------------------------------------

/// lf::policy as plain bools, read once per call (loop-invariant in the kernels).
struct lane_policy {
  bool daz = false;          ///< subnormal_inputs::treat_as_zero
  bool ftz = false;          ///< subnormal_results::flush_to_zero
  bool tiny_before = false;  ///< tininess::before_rounding
  bool saturate = false;     ///< overflow_policy::saturate
  static constexpr lane_policy from(const policy& p) {
    return {p.inputs == subnormal_inputs::treat_as_zero, p.results == subnormal_results::flush_to_zero,
            p.tininess == tininess::before_rounding, p.overflow == overflow_policy::saturate};
  }
  constexpr bool is_default() const { return !daz && !ftz && !tiny_before && !saturate; }
};

template <format In>
using lane_uint = std::conditional_t<In == binary32, std::uint32_t, std::uint64_t>;

/// The (In, F) pairs narrow_lane handles: F strictly narrower than In in precision, F's exponent
/// range inside In's. Then every finite F value's grid is a coarsening of In's, F's subnormal
/// quantum is an In quantum, and F's min normal is an In normal or In's own min normal.
/// (p <= p_In - 2 keeps every shift below at least 1.)
template <format F, format In>
inline constexpr bool lane_supported = (In == binary32 || In == binary64) && F.valid() &&
                                       (F.kind == nonfinite::ieee || F.kind == nonfinite::nan_only) &&
                                       F.has_subnormals() &&
                                       F.precision <= In.precision - 2 && F.emin() >= In.emin() &&
                                       F.emax() <= In.emax();

/// c ? x : y as mask arithmetic. The lane is written without ?: so that GCC sees no control flow:
/// otherwise it threads the flags' OR-reduction through the branches and gives up vectorising.
template <typename U>
LIBFLOAT_INLINE constexpr U sel(bool c, U x, U y) {
  return y ^ ((x ^ y) & (U{0} - static_cast<U>(c)));
}

/// Rounds the In encoding x to F under M and policy pol; ORs the flags into `flags`.
/// Follows round_pack's steps; the comments name them.
template <format F, format In, rounding M>
  requires lane_supported<F, In>
LIBFLOAT_INLINE constexpr lane_uint<In> narrow_lane(lane_uint<In> x, std::uint32_t random, lane_policy pol,
                                                    std::uint32_t& flags) {
  using U = lane_uint<In>;
  constexpr int W = width_of<U>;
  constexpr int fb_in = In.fraction_bits();
  constexpr int fb = F.fraction_bits();
  constexpr U s0 = static_cast<U>(fb_in - fb);                     // bits dropped at a normal F result
  constexpr U be_min = static_cast<U>(F.emin() + In.bias());        // In's biased exponent of 2^emin(F), >= 1
  constexpr U T = be_min << fb_in;                                  // |x| >= T (as bits) <=> |x| >= 2^emin(F)
  constexpr U adj = (be_min - 1) << fb;                             // rebias: F's encoding = (|x| >> s0) - adj
  constexpr U inf_in = static_cast<U>(In.exponent_mask());
  constexpr U qnan_in = inf_in | static_cast<U>(In.quiet_bit());
  constexpr U frac_in = static_cast<U>(In.fraction_mask());
  constexpr U hidden_in = frac_in + 1;
  constexpr U max_finite = static_cast<U>(F.max_finite_bits());
  constexpr U inf_out = static_cast<U>(F.infinity_bits());  // the NaN slot for nan_only formats
  constexpr std::uint32_t INX = to_bits(status::inexact), UNF = to_bits(status::underflow),
                          OVF = to_bits(status::overflow), INV = to_bits(status::invalid);

  const U sign = x & (U{1} << (W - 1));
  U a = x ^ sign;
  const bool neg = sign != 0;
  a = sel(pol.daz & (a < hidden_in), U{0}, a);  // DAZ: a subnormal input reads as a zero, no flag
  const bool is_nan = a > inf_in, is_inf = a == inf_in, is_zero = a == 0;

  // 2. |x| >= 2^emin(F): the last kept bit is s0 bits up. Below: the grid stops at F's subnormal
  //    quantum 2^(emin - fb), s_tiny bits above the input's last bit (> s0).
  const bool normal = a >= T;
  const U be = a >> fb_in;
  const U be1 = max_of(be, U{1});
  const U sig = (a & frac_in) | sel(be > 0, hidden_in, U{0});
  const U s_tiny = (be_min - be1) + s0;  // only used when !normal (then be1 < be_min)
  const U v = sel(normal, a, sig);
  const U st = sel(normal, s0, s_tiny);        // true shift
  const U sh = min_of(st, U{W - 1});     // v < 2^(W-2): a shift >= W-1 discards everything, half > rem
  // 3. decide
  const U kept = v >> sh;
  const U rem = v & ((U{1} << sh) - 1);
  const U half = U{1} << (sh - 1);
  const U base = kept - sel(normal, adj, U{0});  // encoding of the truncated magnitude
  const bool nonzero = rem != 0;
  U enc = base;
  // nearest even: up iff rem > half, or rem == half and kept is odd (as one compare: GCC does not
  // vectorise a bool made from kept's low bit)
  if constexpr (M == rounding::nearest_even) enc += static_cast<U>(rem + (kept & 1) > half);
  else if constexpr (M == rounding::nearest_away) enc += static_cast<U>(rem >= half);
  else if constexpr (M == rounding::upward) enc += static_cast<U>(nonzero & !neg);
  else if constexpr (M == rounding::downward) enc += static_cast<U>(nonzero & neg);
  else if constexpr (M == rounding::odd) enc |= static_cast<U>(nonzero);
  else if constexpr (M == rounding::stochastic) {
    // D = the first 32 discarded bits, zero-padded; up iff random < D.
    const bool left = st <= 32;
    const U lsh = sel(left, 32 - st, U{0});
    const U rsh = min_of(sel(left, U{0}, st - 32), U{W - 1});  // v < 2^(W-2): a shift of W-1 leaves 0
    const auto d = static_cast<std::uint32_t>(sel(left, v << lsh, v >> rsh));
    enc += static_cast<U>(random < d);
  }
  // 5. overflow: the rounded magnitude reaches F's infinity (or, without infinity, its NaN slot;
  //    a tie at max + ulp/2 goes to the even max under nearest_even and does not overflow, as
  //    round_pack decides, IEEE 754-2019 §7.4).
  const bool over = enc >= inf_out;
  constexpr bool inf_if_pos = M == rounding::nearest_even || M == rounding::nearest_away ||
                              M == rounding::stochastic || M == rounding::upward;
  constexpr bool inf_if_neg = M == rounding::nearest_even || M == rounding::nearest_away ||
                              M == rounding::stochastic || M == rounding::downward;
  const bool to_inf = ((neg & inf_if_neg) | (!neg & inf_if_pos)) & !pol.saturate;
  const U over_enc = sel(to_inf, inf_out, max_finite);
  // 4. tininess. After rounding, a value just below 2^emin that rounds (at F's precision, with an
  //    unbounded exponent) up to 2^emin is not tiny. At that scale an F ulp is 2^sh_u input units:
  //    s0 when 2^(emin-1) is an In normal, one less when it is In's largest subnormal binade.
  constexpr U sh_u = F.emin() == In.emin() ? s0 - 1 : s0;
  bool reaches = false;
  if constexpr (M == rounding::nearest_even || M == rounding::nearest_away)
    reaches = a >= T - (U{1} << (sh_u - 1));  // ties: T >> sh_u is even, so the odd neighbour rounds up
  else if constexpr (M == rounding::upward) reaches = !neg & (a > T - (U{1} << sh_u));
  else if constexpr (M == rounding::downward) reaches = neg & (a > T - (U{1} << sh_u));
  else if constexpr (M == rounding::stochastic) {
    const U rem_u = a & ((U{1} << sh_u) - 1);
    const std::uint32_t d_u = sh_u <= 32 ? static_cast<std::uint32_t>(rem_u << (sh_u <= 32 ? 32 - sh_u : 0))
                                         : static_cast<std::uint32_t>(rem_u >> (sh_u > 32 ? sh_u - 32 : 0));
    reaches = (a > T - (U{1} << sh_u)) & (random < d_u);
  }
  const bool tiny = !normal & !(reaches & !pol.tiny_before);
  // 6. FTZ flushes a tiny result (exact or not) and raises underflow and inexact.
  const bool flush = pol.ftz & tiny;
  const U fin = sel(over, over_enc, sel(flush, U{0}, enc));

  // Non-finite and zero inputs, as lf::convert treats them.
  const U nan_enc = F.kind == nonfinite::nan_only
                        ? inf_out
                        : static_cast<U>(F.exponent_mask() | F.quiet_bit()) | ((a & frac_in) >> s0);
  const U inf_enc = sel(pol.saturate, max_finite, inf_out);
  const U mag = sel(is_nan, nan_enc, sel(is_inf, inf_enc, sel(is_zero, U{0}, fin)));

  // The flags in arithmetic form too.
  const auto b = [](bool c) { return static_cast<std::uint32_t>(c); };
  const bool finite = !is_nan & !is_inf & !is_zero;
  const bool raise_inexact = finite & (over | flush | nonzero);
  const bool raise_underflow = finite & !over & tiny & (flush | nonzero);
  const bool raise_invalid = (is_nan & (a < qnan_in)) |  // a signaling NaN
                             (is_inf & (F.kind == nonfinite::nan_only) & !pol.saturate);
  flags |= b(raise_inexact) * INX | b(raise_underflow) * UNF | b(finite & over) * OVF | b(raise_invalid) * INV;
  return (sign >> (W - F.bits())) | mag;
}

}  // namespace lf::detail
