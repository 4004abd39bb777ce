// libfloat/fast/binary16_ops.hpp: binary16 add, sub, mul, div and fma, and binary32 mul, in one
// fixed deterministic rounding direction under the default policy: the fast path of the
// run-time-mode entry points (detail::add_of / sub_of / mul_of / div_of / fma_of<binary16, M>,
// mul_of<binary32, M>, core/detail/runtime_entry.hpp), which lf::add(lf::binary16, ...),
// lf::add(fp16, fp16, mode, ...), lf::mul(fp32, fp32, mode, ...) and the CLI reach.
//
// Proof: tests/fast/test_binary16_ops_proof.cpp (ctest label `proof`) compares these functions, and
// the public entry points that call them, with the core (detail::add_inline / sub_inline /
// mul_inline / div_inline<binary16>, core/arith.hpp) on their whole domain: all 2^32 pairs of
// binary16 encodings, for each of the six deterministic rounding directions and add, sub, mul and
// div, results and flags. Pairs with a NaN or infinite operand, division by zero, non-default
// policies and stochastic rounding are not taken here (the functions return false and the caller
// runs the core). fma's 2^48 triples cannot be enumerated: tests/fast/test_fast_ops_sampled.cpp
// (label `proof`) compares it with the core (detail::fma_inline<binary16>) on every combination of
// the three operands' biased exponents (31^3, zeros and subnormals included) and signs, with
// random fractions, on triples built to cancel (c near -a * b), on each side of the far-operand
// cut (below), and through the public entry points; the argument below is what makes it exact.
// binary32 mul (2^64 pairs) likewise, in the same test: every pair of biased exponents (255^2)
// and signs with random fractions.
//
// Why the result is the core's: each operation forms the exact result of two finite binary16 values
// (for div: the quotient rounded to odd, see binary16_div_finite) as a binary32 (mul, div) or
// binary64 (add, sub) encoding and rounds that once to binary16 with
// narrow_lane (fast/array_lane.hpp), round_pack specialised to the rounding direction; rounding
// the exact value once is what IEEE 754-2019 §5.4.1 asks for, with §7's flags.
//  - mul: |a| = A * 2^(ea - 25), |b| = B * 2^(eb - 25) with integers A, B < 2^11 and ea, eb in
//    [1, 30] (ea = max(biased exponent, 1)), so |a * b| = (A * B) * 2^(ea + eb - 50) with
//    A * B < 2^22: exact in binary32, whose 24-bit significand holds it. A nonzero product lies in
//    [2^-48, 2^32), inside binary32's normal range [2^-126, 2^128).
//    binary32 mul is the same with A, B < 2^24: A * B < 2^48 is exact in binary64 (below).
//  - add: every finite binary16 value is an integer multiple of 2^-24 below 2^16 * 2^24 = 2^40 in
//    magnitude, so a + b = S * 2^-24 with |S| < 2^41: exact in binary64 (53-bit significand), and
//    a nonzero sum is at least 2^-24, a binary64 normal. An exact zero sum is signed as §6.3 says
//    (the core's rule), without a rounding.
//  - fma: a * b = P * 2^ep with P = A * B < 2^22, ep in [-48, 10], and c = C * 2^ec with C < 2^11,
//    ec in [-24, 5]; both are integer multiples of 2^min(ep, ec), so a * b + c = S * 2^min(ep, ec)
//    exactly, with |S| < 2^(22 + 34) + 2^11 when ep >= ec (ep - ec <= 34). When ec - ep > 40 the
//    product is below 2^(ec - 19) while the result is at least c - 2^(ec - 19) > 2^(ec - 1), whose
//    rounding boundaries (binary16 values and midpoints there) are multiples of at least 2^(ec - 2),
//    and c is one of them: so the product can be replaced by any value of its sign in
//    (0, 2^(ec - 12)), e.g. 2^(ec - 40), without changing the rounded result, inexact, or the
//    result rounded with an unbounded exponent (overflow, tininess). Then |S| < 2^51 + 1. (The
//    bound is loose: a cut anywhere above 24 is exact, 20 is not; tests/fast/test_fast_ops_sampled.cpp
//    fails with it.) S is rounded to odd at 53 bits (a shift with the lost bits ORed into the last,
//    when |S| >= 2^53), which Boldo and Melquiond's theorem (as for div) lets round once more to
//    binary16, in binary64; |S| >= 2^53 means |a * b + c| >= 2^29, an overflow in every direction.
// The floating-point instructions are exact operations on and to normals: the conversion of an
// integer (A * B, S, a quotient) to float or double (fewer bits than the significand), and, when
// both operands of mul are normals, their widening to binary32 (binary16) or binary64 (binary32)
// and the product of the widened values (22 or 48 bits: exact, a normal, as above). An exact
// operation raises no exception and reads none of MXCSR (the rounding direction only matters for
// inexact results; FTZ and DAZ only for subnormal operands and results, and there are none). So
// this path gives the same bits and flags as the core in every floating-point environment, as the
// integer core does; it needs no hardware_env_is_default() check (fast/scalar.hpp), and constant
// evaluation gives the same too.
#pragma once

#include <bit>
#include <cstdint>

#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/policy.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/array_lane.hpp>

namespace lf::detail {

/// Whether binary16 encodings (low 16 bits; the bits above are ignored, as the core does) are all
/// finite, in one test: an exponent field of 31 (0x7C00) plus 0x400 carries into bit 15, every other
/// one stays below it.
template <typename... U>
LIBFLOAT_INLINE constexpr bool binary16_all_finite(U... v) {
  return ((((static_cast<std::uint64_t>(v) & 0x7C00u) + 0x400u) | ...) & 0x8000u) == 0;
}

/// The value of a finite binary16 encoding h as a signed integer multiple of 2^-24, the smallest
/// subnormal: ±(fraction | hidden bit) << (max(biased exponent, 1) - 1), computed as
/// fraction * scale[s.e] + hidden[s.e] from the top 6 bits (sign and biased exponent), as the
/// core's add does (a multiplication rather than a variable shift and a negation: fewer
/// instructions on the ports that shifts and branches share).
struct binary16_fixed_table {
  std::int64_t scale[64]{};
  std::int64_t hidden[64]{};
  constexpr binary16_fixed_table() {
    for (int i = 0; i < 64; ++i) {
      const int be = i & 31;
      const std::int64_t sign = (i >> 5) ? -1 : 1;
      scale[i] = sign * (std::int64_t{1} << (be == 0 ? 0 : be - 1));
      hidden[i] = be == 0 ? 0 : sign * (std::int64_t{1} << (be - 1 + 10));
    }
  }
};
inline constexpr binary16_fixed_table binary16_fixed_table_v{};
LIBFLOAT_INLINE constexpr std::int64_t binary16_fixed(std::uint32_t h) {
  const std::uint32_t i = (h >> 10) & 63u;
  return static_cast<std::int64_t>(h & 0x3FFu) * binary16_fixed_table_v.scale[i] + binary16_fixed_table_v.hidden[i];
}

/// Whether e's policy is the default one (every field's default is its enumerator 0: one load and
/// one compare).
LIBFLOAT_INLINE constexpr bool default_policy(const env& e) {
  static_assert(sizeof(policy) == 4 && std::bit_cast<std::uint32_t>(policy{}) == 0);
  return std::bit_cast<std::uint32_t>(e.policy) == 0;
}

/// Rounds the exact value x, a binary32 or binary64 encoding (In), to F (binary16, or binary32 from
/// binary64) in direction M and ORs the flags into st: narrow_lane (fast/array_lane.hpp), with its
/// common case first. When F's smallest normal <= |x| <= F's largest finite value the result is a
/// normal that cannot overflow or be tiny, so rounding is a shift of the encoding (a carry out of
/// the fraction moves the exponent up, as in round_pack's normal case, core/detail/round.hpp) and
/// the only flag is inexact. The branch-free lane computes every case at once, which is what a
/// vector loop wants but costs a scalar call about 2.5 times the core's time; the rest of the range
/// (subnormal, overflowing, zero results) takes it.
template <format F, format In, rounding M>
[[gnu::noinline, gnu::cold]] constexpr std::uint64_t round_exact_lane(lane_uint<In> x, status& st) {
  // Out of line, and it ORs the flags into st itself: the callers' common path then ends in a
  // jump to it (a tail call), needs no callee-saved register and so saves and restores none.
  std::uint32_t flags = 0;
  const auto r = static_cast<std::uint64_t>(narrow_lane<F, In, M>(x, 0, lane_policy{}, flags));
  st |= static_cast<status>(flags);
  return r;
}
template <format F, format In, rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t round_exact_to(lane_uint<In> x, status& st) {
  static_assert(In.fraction_bits() > F.fraction_bits() && F.bits() <= 32 && F.kind == nonfinite::ieee);
  using U = lane_uint<In>;
  constexpr int W = width_of<U>;
  constexpr int fb_in = In.fraction_bits(), fb = F.fraction_bits();
  constexpr int s0 = fb_in - fb;                                                         // bits dropped
  constexpr U frac_max = (U{1} << fb) - 1;
  constexpr U lo = static_cast<U>(In.bias() + F.emin()) << fb_in;                        // F's smallest normal
  constexpr U hi = (static_cast<U>(In.bias() + F.emax()) << fb_in) | (frac_max << s0);  // F's largest finite
  constexpr U rebias = static_cast<U>(In.bias() - F.bias()) << fb;
  constexpr U half = U{1} << (s0 - 1), ulp_mask = (U{1} << s0) - 1;
  const U a = x & ~(U{1} << (W - 1));
  if (a - lo <= hi - lo) [[likely]] {
    const bool neg = (x >> (W - 1)) != 0;
    const U rem = a & ulp_mask;
    U r;
    if constexpr (M == rounding::nearest_even) r = (a + (half - 1) + ((a >> s0) & 1)) >> s0;
    else if constexpr (M == rounding::nearest_away) r = (a + half) >> s0;
    else if constexpr (M == rounding::toward_zero) r = a >> s0;
    // (masks, not ?:, which GCC turns into a branch on the sign, a coin flip)
    else if constexpr (M == rounding::upward) r = (a + (ulp_mask & (U{0} - U{!neg}))) >> s0;
    else if constexpr (M == rounding::downward) r = (a + (ulp_mask & (U{0} - U{neg}))) >> s0;
    else r = (a >> s0) | U{rem != 0};  // odd
    st |= static_cast<status>(static_cast<std::uint8_t>(rem != 0) * to_bits(status::inexact));
    return (static_cast<std::uint64_t>(x >> (W - 1)) << (F.bits() - 1)) | static_cast<std::uint64_t>(r - rebias);
  }
  return round_exact_lane<F, In, M>(x, st);
}
template <format In, rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_round_exact(lane_uint<In> x, status& st) {
  return round_exact_to<binary16, In, M>(x, st);
}

/// The exact product of two finite binary16 encodings rounded to binary16 in direction M; the flags
/// are ORed into st.
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_mul_finite(std::uint32_t x, std::uint32_t y, status& st) {
  const std::uint32_t bx = (x >> 10) & 0x1Fu, by = (y >> 10) & 0x1Fu;
  if ((bx != 0) & (by != 0)) [[likely]] {
    // Both normal (the common case): each is a binary32 normal whose encoding is its own shifted up
    // 13 bits and rebiased (+112 = 127 - 15 in the exponent field), and their product, A * B < 2^22
    // times 2^(ea + eb - 50), is exact in binary32 and a normal there (in [2^-28, 2^32)).
    const auto widen = [](std::uint32_t h) {
      return std::bit_cast<float>(((h & 0x8000u) << 16) | (((h & 0x7FFFu) << 13) + (112u << 23)));
    };
    const float p = widen(x) * widen(y);
    return binary16_round_exact<binary32, M>(std::bit_cast<std::uint32_t>(p), st);
  }
  const std::uint32_t nx = bx != 0, ny = by != 0;
  const std::uint32_t P = ((x & 0x3FFu) | (nx << 10)) * ((y & 0x3FFu) | (ny << 10));  // < 2^22
  // |a * b| = P * 2^E with E = ea + eb - 50 in [-48, 10]. float(P) is exact; adding E to its
  // encoding's exponent field (biased 127..148 for 1 <= P < 2^22) keeps it in [79, 158]: a normal.
  const int E = static_cast<int>(bx + (1 - nx)) + static_cast<int>(by + (1 - ny)) - 50;
  const std::uint32_t pf = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(P)));
  const std::uint32_t mag = P == 0 ? 0u : pf + (static_cast<std::uint32_t>(E) << 23);  // a zero stays a zero
  const std::uint32_t sign = ((x ^ y) & 0x8000u) << 16;
  return binary16_round_exact<binary32, M>(sign | mag, st);
}

/// The exact sum of two finite binary16 encodings rounded to binary16 in direction M.
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_add_finite(std::uint32_t x, std::uint32_t y, status& st) {
  const std::int64_t S = binary16_fixed(x) + binary16_fixed(y);  // a + b = S * 2^-24, |S| < 2^41
  if (S == 0) [[unlikely]] {
    // IEEE 754-2019 §6.3: -0 + -0 = -0; any other exact zero sum is +0, or -0 rounding downward.
    const bool negx = (x & 0x8000u) != 0, negy = (y & 0x8000u) != 0;
    const bool neg = negx == negy ? negx : M == rounding::downward;
    return neg ? 0x8000u : 0u;
  }
  // double(S) is exact (|S| < 2^53), signed, with biased exponent >= 1023; subtracting 24 from the
  // exponent field gives the encoding of S * 2^-24, a normal (no borrow reaches the sign bit).
  const std::uint64_t d = std::bit_cast<std::uint64_t>(static_cast<double>(S)) - (std::uint64_t{24} << 52);
  return binary16_round_exact<binary64, M>(d, st);
}

/// The quotient of two finite binary16 encodings, y not a zero, rounded to binary16 in direction M.
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_div_finite(std::uint32_t x, std::uint32_t y, status& st) {
  const std::uint32_t bx = (x >> 10) & 0x1Fu, by = (y >> 10) & 0x1Fu;
  const std::uint32_t nx = bx != 0, ny = by != 0;
  std::uint32_t A = (x & 0x3FFu) | (nx << 10), B = (y & 0x3FFu) | (ny << 10);  // B >= 1
  int ea = static_cast<int>(bx + (1 - nx)), eb = static_cast<int>(by + (1 - ny));
  // Subnormals normalised so that bit 10 leads (a zero A stays 0): then A / B lies in (1/2, 2).
  // (Normals have it already: the common case skips the bit scans.)
  if ((nx & ny) == 0) [[unlikely]] {
    const int sa = A == 0 ? 0 : 11 - std::bit_width(A), sb = 11 - std::bit_width(B);
    A <<= sa;
    ea -= sa;
    B <<= sb;
    eb -= sb;
  }
  // |a / b| = (A / B) * 2^(ea - eb) = (N / B) * 2^(ea - eb - 21) with N = A * 2^21 < 2^32. One
  // division gives Q = floor(N / B) in [2^20, 2^22) (or 0) and the exact remainder; Q | sticky is
  // N / B rounded to odd at Q's 21 or 22 bits, at least p + 2 = 13, so rounding it once more to
  // binary16 gives the same value and flags as rounding N / B itself, in every direction (Boldo and
  // Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
  // odd", IEEE TC 57(4), 2008, Theorem 1; tininess after rounding is decided at p bits with an
  // unbounded exponent, which the same theorem covers).
  const std::uint32_t N = A << 21;
  const std::uint32_t Q = N / B, R = N % B;
  const std::uint32_t P = Q | static_cast<std::uint32_t>(R != 0);  // < 2^22
  // float(P) is exact with biased exponent 147 or 148 (P >= 2^20); E = ea - eb - 21 in [-60, 18]
  // keeps it in [87, 166]: a normal.
  const int E = ea - eb - 21;
  const std::uint32_t pf = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(P)));
  const std::uint32_t mag = P == 0 ? 0u : pf + (static_cast<std::uint32_t>(E) << 23);
  const std::uint32_t sign = ((x ^ y) & 0x8000u) << 16;
  return binary16_round_exact<binary32, M>(sign | mag, st);
}

/// a * b + c for three finite binary16 encodings, rounded once to binary16 in direction M (see the
/// file comment for why it is exact).
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_fma_finite(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                                            status& st) {
  const std::uint32_t bx = (x >> 10) & 0x1Fu, by = (y >> 10) & 0x1Fu, bz = (z >> 10) & 0x1Fu;
  const std::uint32_t nx = bx != 0, ny = by != 0, nz = bz != 0;
  std::int64_t P = static_cast<std::int64_t>(((x & 0x3FFu) | (nx << 10)) * ((y & 0x3FFu) | (ny << 10)));  // < 2^22
  const std::int64_t C = static_cast<std::int64_t>((z & 0x3FFu) | (nz << 10));                           // < 2^11
  int ep = static_cast<int>(bx + (1 - nx)) + static_cast<int>(by + (1 - ny)) - 50;  // [-48, 10]
  const int ec = static_cast<int>(bz + (1 - nz)) - 25;                              // [-24, 5]
  if (ec - ep > 40) [[unlikely]] {  // the far product: its sign at 2^(ec - 40)
    P = P != 0;
    ep = ec - 40;
  }
  const bool negp = ((x ^ y) & 0x8000u) != 0, negc = (z & 0x8000u) != 0;
  const int d = ep - ec;  // [-40, 34]
  // Without branches: which term is shifted, and the signs, are coin flips on varied data (as
  // branches they cost a misprediction per call). Negation is (v ^ m) - m with m = 0 or -1.
  const int dp = d > 0 ? d : 0, dc = dp - d;
  const std::int64_t mp = -static_cast<std::int64_t>(negp), mc = -static_cast<std::int64_t>(negc);
  const std::int64_t S = (((P << dp) ^ mp) - mp) + (((C << dc) ^ mc) - mc);
  if (S == 0) [[unlikely]] {
    // IEEE 754-2019 §6.3: an exact zero a * b + c is -0 when both terms are -0 (or negative zeros);
    // any other exact zero is +0, or -0 rounding downward.
    const bool neg = negp == negc ? negp : M == rounding::downward;
    return neg ? 0x8000u : 0u;
  }
  const int u = ep < ec ? ep : ec;  // S * 2^u
  std::uint64_t m = static_cast<std::uint64_t>(S < 0 ? -S : S);
  int k = 0;
  if ((m >> 53) != 0) [[unlikely]] {  // |a * b + c| >= 2^29: an overflow (a branch: no bit scan on the common path)
    k = std::bit_width(m) - 53;       // [1, 4]
    m = (m >> k) | static_cast<std::uint64_t>((m & ((std::uint64_t{1} << k) - 1)) != 0);  // rounded to odd
  }
  // double(m) is exact (m < 2^53) with biased exponent in [1023, 1075]; adding u + k in [-48, 9] to the
  // exponent field gives m * 2^(u + k) >= 2^-48, a normal.
  const std::uint64_t mag = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(m))) +
                            (static_cast<std::uint64_t>(static_cast<std::int64_t>(u + k)) << 52);
  return binary16_round_exact<binary64, M>((static_cast<std::uint64_t>(S < 0) << 63) | mag, st);
}

/// The exact product of two finite binary32 encodings rounded to binary32 in direction M:
/// |a| = A * 2^(ea - 150), |b| = B * 2^(eb - 150) with integers A, B < 2^24 and ea, eb in [1, 254],
/// so |a * b| = (A * B) * 2^(ea + eb - 300) with A * B < 2^48: exact in binary64. A nonzero product
/// lies in [2^-298, 2^256), inside binary64's normal range.
template <rounding M>
LIBFLOAT_INLINE constexpr std::uint64_t binary32_mul_finite(std::uint32_t x, std::uint32_t y, status& st) {
  const std::uint32_t bx = (x >> 23) & 0xFFu, by = (y >> 23) & 0xFFu;
  if ((bx != 0) & (by != 0)) [[likely]] {
    // Both normal (the common case): double(a) and double(b) are exact, and so is their product
    // (A * B < 2^48 times a power of two, in [2^-252, 2^256): a binary64 normal).
    const double p = static_cast<double>(std::bit_cast<float>(x)) * static_cast<double>(std::bit_cast<float>(y));
    return round_exact_to<binary32, binary64, M>(std::bit_cast<std::uint64_t>(p), st);
  }
  const std::uint32_t nx = bx != 0, ny = by != 0;
  const std::uint64_t P = std::uint64_t{(x & 0x7FFFFFu) | (nx << 23)} * ((y & 0x7FFFFFu) | (ny << 23));  // < 2^48
  // double(P) is exact with biased exponent in [1023, 1070] for P >= 1; adding E in [-298, 208]
  // keeps it in [725, 1278]: a normal.
  const int E = static_cast<int>(bx + (1 - nx)) + static_cast<int>(by + (1 - ny)) - 300;
  const std::uint64_t pd = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(P)));
  const std::uint64_t mag = P == 0 ? 0u : pd + (static_cast<std::uint64_t>(static_cast<std::int64_t>(E)) << 52);
  const std::uint64_t sign = static_cast<std::uint64_t>((x ^ y) & 0x80000000u) << 32;
  return round_exact_to<binary32, binary64, M>(sign | mag, st);
}

// The entry points' hooks (core/detail/runtime_entry.hpp): each returns true and sets r when it
// has computed the result, false when the core must (a NaN or infinite operand, a policy other
// than the default). binary16_fast_has_<op> says whether an operation has a fast path at all.

inline constexpr bool binary16_fast_has_add = true;
inline constexpr bool binary16_fast_has_sub = true;
inline constexpr bool binary16_fast_has_mul = true;
inline constexpr bool binary16_fast_has_div = true;
inline constexpr bool binary16_fast_has_sqrt = false;
inline constexpr bool binary16_fast_has_fma = true;

template <rounding M>
LIBFLOAT_INLINE constexpr bool binary16_fast_add(std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b), plain = default_policy(e);
  if (!(finite & plain)) return false;  // (& on bools, not &&: one branch; locals keep Clang's -Wall quiet)
  r = binary16_add_finite<M>(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), st);
  return true;
}
/// a - b = a + (-b) for a finite b (the core's rule: only a NaN b keeps its sign).
template <rounding M>
LIBFLOAT_INLINE constexpr bool binary16_fast_sub(std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  return binary16_fast_add<M>(a, b ^ 0x8000u, e, st, r);
}
template <rounding M>
LIBFLOAT_INLINE constexpr bool binary16_fast_mul(std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b), plain = default_policy(e);
  if (!(finite & plain)) return false;  // (& on bools, not &&: one branch; locals keep Clang's -Wall quiet)
  r = binary16_mul_finite<M>(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), st);
  return true;
}
/// Division by a zero (divide_by_zero or invalid) goes to the core.
template <rounding M>
LIBFLOAT_INLINE constexpr bool binary16_fast_div(std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b), nonzero = (b & 0x7FFFu) != 0, plain = default_policy(e);
  if (!(finite & nonzero & plain)) return false;
  r = binary16_div_finite<M>(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), st);
  return true;
}
/// NaN or infinite operands go to the core (invalid for 0 * inf, the NaN rules).
template <rounding M>
LIBFLOAT_INLINE constexpr bool binary16_fast_fma(std::uint64_t a, std::uint64_t b, std::uint64_t c, const env& e,
                                                 status& st, std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b, c), plain = default_policy(e);
  if (!(finite & plain)) return false;
  r = binary16_fma_finite<M>(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu),
                             static_cast<std::uint32_t>(c & 0xFFFFu), st);
  return true;
}
/// binary32: mul only (the others run the core).
inline constexpr bool binary32_fast_has_add = false;
inline constexpr bool binary32_fast_has_sub = false;
inline constexpr bool binary32_fast_has_mul = true;
inline constexpr bool binary32_fast_has_div = false;
inline constexpr bool binary32_fast_has_sqrt = false;
inline constexpr bool binary32_fast_has_fma = false;
LIBFLOAT_INLINE constexpr bool binary32_finite(std::uint64_t a) { return (a & 0x7F800000u) != 0x7F800000u; }
template <rounding M>
LIBFLOAT_INLINE constexpr bool binary32_fast_mul(std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool fa = binary32_finite(a), fb = binary32_finite(b), plain = default_policy(e);
  if (!(fa & fb & plain)) return false;
  r = binary32_mul_finite<M>(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), st);
  return true;
}
template <rounding M, typename... A>
constexpr bool binary32_fast_add(A&&...) { return false; }
template <rounding M, typename... A>
constexpr bool binary32_fast_sub(A&&...) { return false; }
template <rounding M, typename... A>
constexpr bool binary32_fast_div(A&&...) { return false; }
template <rounding M, typename... A>
constexpr bool binary32_fast_sqrt(A&&...) { return false; }
template <rounding M, typename... A>
constexpr bool binary32_fast_fma(A&&...) { return false; }

/// No fast path (yet) for binary16 sqrt: the core runs.
template <rounding M, typename... A>
constexpr bool binary16_fast_sqrt(A&&...) { return false; }

}  // namespace lf::detail
