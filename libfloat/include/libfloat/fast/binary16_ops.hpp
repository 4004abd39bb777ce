// libfloat/fast/binary16_ops.hpp: binary16 add, sub, mul, div and fma, and binary32 mul, in a
// deterministic rounding direction under the default policy: the fast path of the run-time-mode
// entry points (core/detail/runtime_entry.hpp), which lf::add(lf::binary16, ...),
// lf::add(fp16, fp16, mode, ...), lf::mul(fp32, fp32, mode, ...), the span operations and the CLI
// reach. The direction is a function argument: detail::*_mode runs the common case inline in the
// caller with the caller's run-time direction (inline_fast: mul and div of two normals, add, sub and
// fma of finite operands; no switch, no call), and the per-direction functions detail::*_of<F, M>
// run the whole fast path (binary16_fast_<op>) with the direction a constant, folded into the code.
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
// (for div: the quotient rounded to odd, see binary16_quotient) as a binary32 (mul, div) or
// binary64 (add, sub) encoding and rounds that once to binary16: a normal result by an integer
// addition of a per-direction increment and a shift (round_magnitude), any other with
// narrow_lane (fast/array_lane.hpp), round_pack specialised to the rounding direction; rounding
// the exact value once is what IEEE 754-2019 §5.4.1 asks for, with §7's flags.
//  - mul: |a| = A * 2^(ea - 25), |b| = B * 2^(eb - 25) with integers A, B < 2^11 and ea, eb in
//    [1, 30] (ea = max(biased exponent, 1)), so |a * b| = (A * B) * 2^(ea + eb - 50) with
//    A * B < 2^22: exact in binary32, whose 24-bit significand holds it. A nonzero product lies in
//    [2^-48, 2^32), inside binary32's normal range [2^-126, 2^128). For two normals the product is
//    formed in hardware from the operands' own encodings (binary16_mul_normal).
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
// both operands of mul are normals, the product of binary32 normals of values a * 2^-112 and
// b * 2^112 (binary16) or of the operands widened to binary64 (binary32): 22 or 48 bits, exact,
// a normal, as above. An exact
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
/// binary64) in the deterministic direction m, with narrow_lane (fast/array_lane.hpp): every case
/// (subnormal, overflowing, zero results), branch-free, which is what a vector loop wants but costs
/// a scalar call about 2.5 times the core's time, so round_magnitude below takes the normal results
/// itself and leaves only the rest to this. Returns the result in the low 32 bits and the flags
/// (to_bits(status)) in bits 32 and up.
template <format F, format In>
[[gnu::noinline, gnu::cold]] constexpr std::uint64_t round_exact_lane(lane_uint<In> x, rounding m) {
  // Out of line, and the flags come back in the result's register rather than through a status&:
  // the callers' common path then needs no memory home for its flags (a status whose address is
  // passed is stored on every call, taken or not), and no callee-saved register.
  std::uint32_t flags = 0;
  const std::uint64_t r = with_mode(m, [&](auto mode) -> std::uint64_t {
    constexpr rounding M = decltype(mode)::value;
    if constexpr (M == rounding::stochastic)
      return 0;  // not reached: the callers exclude it
    else
      return narrow_lane<F, In, M>(x, 0, lane_policy{}, flags);
  });
  return r | (std::uint64_t{flags} << 32);
}

/// What round_magnitude adds to |x| before dropping s0 = In's fraction bits - F's, for each
/// direction m, sign and kept last bit (lsb): index m * 8 + neg * 4 + lsb (entries 2, 3, 6 and 7 of
/// each direction unused: the index is then a shift of the sign and lsb bits, see round_magnitude).
/// Each entry is the rounding increment, less the exponent rebias (In's bias - F's, at bit
/// In.fraction_bits()), plus F's sign bit for a negative result (at bit F.bits() - 1 + s0), so that
/// the shifted sum is F's encoding with its sign: one addition and one shift in all. (U arithmetic
/// wraps; the true sum is in [0, 2^W), so the wrapped one is the same.) The increment is a choice
/// between truncation (0) and rounding up (ulp - 1: any nonzero remainder carries into the kept
/// bits): nearest_even: half - 1 + lsb (a tie goes up only from an odd lsb); nearest_away: half;
/// toward_zero: 0; upward: ulp - 1 when positive; downward: ulp - 1 when negative; odd: ulp - 1
/// when the lsb is even (an inexact result becomes the odd neighbour, truncated | sticky, as one
/// addition). (A table rather than ?: on the sign, which GCC turns into a branch: a coin flip on
/// varied data; and one load serves every direction, where the direction is a run-time value.)
template <format F, format In>
struct round_increment_table {
  using U = lane_uint<In>;
  U v[64]{};
  constexpr round_increment_table() {
    constexpr int s0 = In.fraction_bits() - F.fraction_bits();
    const U half = U{1} << (s0 - 1), up = (U{1} << s0) - 1;
    const U rebias = static_cast<U>(In.bias() - F.bias()) << In.fraction_bits();
    const U sign = U{1} << (F.bits() - 1 + s0);
    for (unsigned i = 0; i < 64; ++i) {
      const unsigned m = i >> 3, neg = (i >> 2) & 1, lsb = i & 1;
      U inc = 0;
      if (m == static_cast<unsigned>(rounding::nearest_even))
        inc = half - 1 + lsb;
      else if (m == static_cast<unsigned>(rounding::nearest_away))
        inc = half;
      else if (m == static_cast<unsigned>(rounding::upward))
        inc = neg ? 0 : up;
      else if (m == static_cast<unsigned>(rounding::downward))
        inc = neg ? up : 0;
      else if (m == static_cast<unsigned>(rounding::odd))
        inc = lsb ? 0 : up;
      // (toward_zero, and stochastic (never taken here): 0)
      v[i] = static_cast<U>(inc - rebias + (neg ? sign : U{0}));
    }
  }
};
template <format F, format In>
inline constexpr round_increment_table<F, In> round_increments{};

/// |x| rounded to F in the deterministic direction m, with the sign `sign` (0, or F's sign bit:
/// 0x8000 for binary16), for x an In encoding whose magnitude a is a normal or a zero (In's sign bit
/// clear). The flags are ORed into st. When F's smallest normal <= |x| <= F's largest finite value
/// the result is a normal that cannot overflow or be tiny, so rounding is an addition and a shift
/// of the encoding (a carry out of the fraction moves the exponent up, as in round_pack's normal
/// case, core/detail/round.hpp) and the only flag is inexact; the rest goes to round_exact_lane.
/// m is a function argument, not a template one: where the caller's m is a constant (the
/// per-mode functions, the span loops) the compiler folds the table index into the code, and where
/// it is not (the inline part of the run-time-mode entry points) one function serves every
/// direction without a switch.
template <format F, format In>
LIBFLOAT_INLINE constexpr std::uint64_t round_magnitude(lane_uint<In> a, std::uint32_t sign, rounding m, status& st) {
  static_assert(In.fraction_bits() > F.fraction_bits() && F.bits() <= 32 && F.kind == nonfinite::ieee);
  using U = lane_uint<In>;
  constexpr int W = width_of<U>;
  constexpr int fb_in = In.fraction_bits(), fb = F.fraction_bits();
  constexpr int s0 = fb_in - fb;                                                         // bits dropped
  constexpr U frac_max = (U{1} << fb) - 1;
  constexpr U lo = static_cast<U>(In.bias() + F.emin()) << fb_in;                        // F's smallest normal
  constexpr U hi = (static_cast<U>(In.bias() + F.emax()) << fb_in) | (frac_max << s0);   // F's largest finite
  constexpr U ulp_mask = (U{1} << s0) - 1;
  if (a - lo <= hi - lo) [[likely]] {
    const U rem = a & ulp_mask;
    // index m * 8 + neg * 4 + lsb: when the sign bit (F.bits() - 1) is 2 above the lsb (bit s0 of
    // a), as for binary16 from binary32 (15, 13) and binary32 from binary64 (31, 29), one shift of
    // the two bits together; otherwise each on its own
    unsigned i = static_cast<unsigned>(m) << 3;
    if constexpr (F.bits() - 1 == s0 + 2)
      i |= static_cast<unsigned>((static_cast<U>(sign) | (a & (U{1} << s0))) >> s0);
    else
      i |= ((sign >> (F.bits() - 1)) << 2) | static_cast<unsigned>((a >> s0) & 1);
    // F's encoding, sign included: a's exponent field holds F's biased exponent plus the rebias,
    // which the table's entry takes away, and at least 1 (a >= lo), so the sum stays positive
    const U r = (a + round_increments<F, In>.v[i]) >> s0;
    st |= static_cast<status>(static_cast<std::uint8_t>(rem != 0) * to_bits(status::inexact));
    return static_cast<std::uint64_t>(r);
  }
  const std::uint64_t v = round_exact_lane<F, In>(a | (static_cast<U>(sign >> (F.bits() - 1)) << (W - 1)), m);
  st |= static_cast<status>(static_cast<std::uint8_t>(v >> 32));
  return v & 0xFFFFFFFFu;
}
/// The In encoding x (an exact value: a normal, or a zero) rounded to F in direction m, sign included.
template <format F, format In>
LIBFLOAT_INLINE constexpr std::uint64_t round_exact_to(lane_uint<In> x, rounding m, status& st) {
  using U = lane_uint<In>;
  constexpr int W = width_of<U>;
  const auto sign = static_cast<std::uint32_t>(x >> (W - 1)) << (F.bits() - 1);
  return round_magnitude<F, In>(x & ~(U{1} << (W - 1)), sign, m, st);
}
template <format In>
LIBFLOAT_INLINE constexpr std::uint64_t binary16_round_exact(lane_uint<In> x, rounding m, status& st) {
  return round_exact_to<binary16, In>(x, m, st);
}

/// Whether both binary16 encodings (low 16 bits; the bits above are ignored) are normals, biased
/// exponent in [1, 30]: a 64-entry table on the sign and exponent bits.
struct binary16_normal_table {
  std::uint8_t v[64]{};
  constexpr binary16_normal_table() {
    for (int i = 0; i < 64; ++i) v[i] = (i & 31) != 0 && (i & 31) != 31;
  }
};
inline constexpr binary16_normal_table binary16_normal_v{};
LIBFLOAT_INLINE constexpr bool binary16_both_normal(std::uint64_t x, std::uint64_t y) {
  return (binary16_normal_v.v[(x >> 10) & 63u] & binary16_normal_v.v[(y >> 10) & 63u]) != 0;
}

/// The product of two normal binary16 encodings rounded to binary16 in direction m. The encoding
/// of a normal shifted up 13 bits is a binary32 normal of value a * 2^-112 (the exponent field
/// moves unchanged into binary32's, biased 127 instead of 15), and adding 224 to b's field gives
/// b * 2^112 (field in [225, 254], still a normal). Their product, A * B < 2^22 times a power of
/// two, is a * b exactly: a binary32 normal in [2^-28, 2^32).
LIBFLOAT_INLINE constexpr std::uint64_t binary16_mul_normal(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  const float wx = std::bit_cast<float>((x & 0x7FFFu) << 13);
  const float wy = std::bit_cast<float>(((y & 0x7FFFu) << 13) + (224u << 23));
  return round_magnitude<binary16, binary32>(std::bit_cast<std::uint32_t>(wx * wy), (x ^ y) & 0x8000u, m, st);
}

/// The exact product of two finite binary16 encodings rounded to binary16 in direction m; the flags
/// are ORed into st.
LIBFLOAT_INLINE constexpr std::uint64_t binary16_mul_finite(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  if (binary16_both_normal(x, y)) [[likely]]
    return binary16_mul_normal(x, y, m, st);
  const std::uint32_t bx = (x >> 10) & 0x1Fu, by = (y >> 10) & 0x1Fu;
  const std::uint32_t nx = bx != 0, ny = by != 0;
  const std::uint32_t P = ((x & 0x3FFu) | (nx << 10)) * ((y & 0x3FFu) | (ny << 10));  // < 2^22
  // |a * b| = P * 2^E with E = ea + eb - 50 in [-48, 10]. float(P) is exact; adding E to its
  // encoding's exponent field (biased 127..148 for 1 <= P < 2^22) keeps it in [79, 158]: a normal.
  const int E = static_cast<int>(bx + (1 - nx)) + static_cast<int>(by + (1 - ny)) - 50;
  const std::uint32_t pf = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(P)));
  const std::uint32_t mag = P == 0 ? 0u : pf + (static_cast<std::uint32_t>(E) << 23);  // a zero stays a zero
  const std::uint32_t sign = ((x ^ y) & 0x8000u) << 16;
  return binary16_round_exact<binary32>(sign | mag, m, st);
}

/// The exact sum of two finite binary16 encodings rounded to binary16 in direction m.
LIBFLOAT_INLINE constexpr std::uint64_t binary16_add_finite(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  const std::int64_t S = binary16_fixed(x) + binary16_fixed(y);  // a + b = S * 2^-24, |S| < 2^41
  if (S == 0) [[unlikely]] {
    // IEEE 754-2019 §6.3: -0 + -0 = -0; any other exact zero sum is +0, or -0 rounding downward.
    const bool negx = (x & 0x8000u) != 0, negy = (y & 0x8000u) != 0;
    const bool neg = negx == negy ? negx : m == rounding::downward;
    return neg ? 0x8000u : 0u;
  }
  // double(S) is exact (|S| < 2^53), signed, with biased exponent >= 1023; subtracting 24 from the
  // exponent field gives the encoding of S * 2^-24, a normal (no borrow reaches the sign bit).
  const std::uint64_t d = std::bit_cast<std::uint64_t>(static_cast<double>(S)) - (std::uint64_t{24} << 52);
  return binary16_round_exact<binary64>(d, m, st);
}

/// ceil(2^43 / B) for each binary16 significand B in [2^10, 2^11), index B - 2^10: binary16_quotient
/// divides by multiplying with it (8 KiB; an integer division is the slowest instruction of the
/// common case, and of a run of divisions).
struct binary16_reciprocal_table {
  std::uint64_t v[1024]{};
  constexpr binary16_reciprocal_table() {
    for (std::uint64_t b = 1024; b < 2048; ++b) v[b - 1024] = ((std::uint64_t{1} << 43) + b - 1) / b;
  }
};
inline constexpr binary16_reciprocal_table binary16_reciprocal_v{};

/// A * 2^ea / (B * 2^eb) with A and B in [2^10, 2^11), of sign `sign` (0 or 0x8000), rounded to
/// binary16 in direction m; de23 is (ea - eb) * 2^23 modulo 2^32 (the difference where binary32's
/// exponent field lies, so that the caller forms it from the encodings' fields in place).
LIBFLOAT_INLINE constexpr std::uint64_t binary16_quotient(std::uint32_t A, std::uint32_t B, std::uint32_t de23,
                                                          std::uint32_t sign, rounding m, status& st) {
  // |a / b| = (A / B) * 2^de = (2N / B) * 2^(de - 22) with N = A * 2^21. With Q = floor(N / B) in
  // [2^20, 2^22) and r = N mod B, P = 2Q + (r != 0) is 2N / B rounded to odd at P's 22 or 23 bits
  // (2N / B is 2Q exactly, or lies in (2Q, 2Q + 2), where 2Q + 1 is the odd integer), at least
  // p + 2 = 13, so rounding it once more to binary16 gives the same value and flags as rounding
  // 2N / B itself, in every direction (Boldo and Melquiond, "Emulation of FMA and correctly rounded
  // sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008, Theorem 1; tininess after
  // rounding is decided at p bits with an unbounded exponent, which the same theorem covers).
  // Q and r != 0 without a division: with M = ceil(2^43 / B) = 2^43 / B + e, 0 <= e < 1, the
  // product t = A * M (< 2^44) is t / 2^22 = A * 2^21 / B + A * e / 2^22 = Q + r / B + d, with
  // d = A * e / 2^22 < 2^11 / 2^22 = 2^-11 < 1 / B. So r / B + d < 1: t >> 22 = Q. The low 22 bits
  // of t, L = (r / B + d) * 2^22, are below 2^11 when r = 0 (only d), and at least 2^22 / B > 2^11
  // when r >= 1; so r != 0 exactly when L >= 2^11, when adding 2^22 - 2^11 to t carries into bit
  // 22: (t + 2^22 - 2^11) >> 22 = Q + (r != 0), and P = (t >> 22) + that.
  // (tests/fast/test_binary16_ops_proof.cpp runs every pair of significands A, B of normals in
  // every run, and all 2^32 pairs of encodings over its 32 parts. The sticky bit only decides a
  // rounding when Q's dropped bits are all zero or exactly a half, which needs 2^9 | Q and so
  // r = 0 mod 2^9: there a threshold of 2^12 for L gives the same results as 2^11, one of 2^21 does
  // not, and the proof fails with it.)
  const std::uint64_t t = std::uint64_t{A} * binary16_reciprocal_v.v[B & 0x3FFu];  // (B - 2^10)
  const std::uint32_t P = static_cast<std::uint32_t>((t >> 22) + ((t + 0x3FF800u) >> 22));
  // float(P) is exact (P < 2^23) with biased exponent 148 or 149 (P >= 2^21); adding E = de - 22
  // (de = ea - eb in [-39, 39]) to that field keeps it in [87, 166]: a normal.
  const std::uint32_t pf = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(P)));
  const std::uint32_t mag = pf + de23 - (22u << 23);
  return round_magnitude<binary16, binary32>(mag, sign, m, st);
}

/// The quotient of two normal binary16 encodings rounded to binary16 in direction m (no
/// normalisation: bit 10 leads both significands).
LIBFLOAT_INLINE constexpr std::uint64_t binary16_div_normal(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  const std::uint32_t de23 = ((x & 0x7C00u) - (y & 0x7C00u)) << 13;  // the fields' difference, moved to bit 23
  return binary16_quotient((x & 0x3FFu) | 0x400u, (y & 0x3FFu) | 0x400u, de23, (x ^ y) & 0x8000u, m, st);
}

/// The quotient of two finite binary16 encodings, y not a zero, in direction m: any operands,
/// subnormals normalised first.
LIBFLOAT_INLINE constexpr std::uint64_t binary16_div_finite_any(std::uint32_t x, std::uint32_t y, rounding m,
                                                                status& st) {
  const std::uint32_t bx = (x >> 10) & 0x1Fu, by = (y >> 10) & 0x1Fu;
  const std::uint32_t nx = bx != 0, ny = by != 0;
  std::uint32_t A = (x & 0x3FFu) | (nx << 10), B = (y & 0x3FFu) | (ny << 10);  // B >= 1
  int ea = static_cast<int>(bx + (1 - nx)), eb = static_cast<int>(by + (1 - ny));
  // A zero dividend: an exact zero of the quotient's sign, no flag.
  if (A == 0) return (x ^ y) & 0x8000u;
  // Subnormals normalised so that bit 10 leads: then A / B lies in (1/2, 2).
  const int sa = 11 - std::bit_width(A), sb = 11 - std::bit_width(B);
  A <<= sa;
  ea -= sa;
  B <<= sb;
  eb -= sb;
  return binary16_quotient(A, B, static_cast<std::uint32_t>(ea - eb) << 23, (x ^ y) & 0x8000u, m, st);
}

/// The quotient of two finite binary16 encodings, y not a zero, rounded to binary16 in direction m.
LIBFLOAT_INLINE constexpr std::uint64_t binary16_div_finite(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  if (binary16_both_normal(x, y)) [[likely]]
    return binary16_div_normal(x, y, m, st);
  return binary16_div_finite_any(x, y, m, st);
}

/// a * b + c for three finite binary16 encodings, rounded once to binary16 in direction m (see the
/// file comment for why it is exact).
LIBFLOAT_INLINE constexpr std::uint64_t binary16_fma_finite(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                                            rounding m, status& st) {
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
  // branches they cost a misprediction per call). Negation is (t ^ s) - s with s = 0 or -1.
  const int dp = d > 0 ? d : 0, dc = dp - d;
  const std::int64_t mp = -static_cast<std::int64_t>(negp), mc = -static_cast<std::int64_t>(negc);
  const std::int64_t S = (((P << dp) ^ mp) - mp) + (((C << dc) ^ mc) - mc);
  if (S == 0) [[unlikely]] {
    // IEEE 754-2019 §6.3: an exact zero a * b + c is -0 when both terms are -0 (or negative zeros);
    // any other exact zero is +0, or -0 rounding downward.
    const bool neg = negp == negc ? negp : m == rounding::downward;
    return neg ? 0x8000u : 0u;
  }
  const int u = ep < ec ? ep : ec;  // S * 2^u
  std::uint64_t v = static_cast<std::uint64_t>(S < 0 ? -S : S);
  int k = 0;
  if ((v >> 53) != 0) [[unlikely]] {  // |a * b + c| >= 2^29: an overflow (a branch: no bit scan on the common path)
    k = std::bit_width(v) - 53;       // [1, 4]
    v = (v >> k) | static_cast<std::uint64_t>((v & ((std::uint64_t{1} << k) - 1)) != 0);  // rounded to odd
  }
  // double(v) is exact (v < 2^53) with biased exponent in [1023, 1075]; adding u + k in [-48, 9] to the
  // exponent field gives v * 2^(u + k) >= 2^-48, a normal.
  const std::uint64_t mag = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(v))) +
                            (static_cast<std::uint64_t>(static_cast<std::int64_t>(u + k)) << 52);
  return binary16_round_exact<binary64>((static_cast<std::uint64_t>(S < 0) << 63) | mag, m, st);
}

/// The exact product of two finite binary32 encodings rounded to binary32 in direction m:
/// |a| = A * 2^(ea - 150), |b| = B * 2^(eb - 150) with integers A, B < 2^24 and ea, eb in [1, 254],
/// so |a * b| = (A * B) * 2^(ea + eb - 300) with A * B < 2^48: exact in binary64. A nonzero product
/// lies in [2^-298, 2^256), inside binary64's normal range.
LIBFLOAT_INLINE constexpr bool binary32_both_normal(std::uint64_t x, std::uint64_t y) {
  const bool nx = ((x & 0x7F800000u) - 0x00800000u) < 0x7F000000u, ny = ((y & 0x7F800000u) - 0x00800000u) < 0x7F000000u;
  return nx & ny;
}
/// Both normal (the common case): double(a) and double(b) are exact, and so is their product
/// (A * B < 2^48 times a power of two, in [2^-252, 2^256): a binary64 normal).
LIBFLOAT_INLINE constexpr std::uint64_t binary32_mul_normal(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  const double p = static_cast<double>(std::bit_cast<float>(x)) * static_cast<double>(std::bit_cast<float>(y));
  return round_exact_to<binary32, binary64>(std::bit_cast<std::uint64_t>(p), m, st);
}
LIBFLOAT_INLINE constexpr std::uint64_t binary32_mul_finite(std::uint32_t x, std::uint32_t y, rounding m, status& st) {
  if (binary32_both_normal(x, y)) [[likely]]
    return binary32_mul_normal(x, y, m, st);
  const std::uint32_t bx = (x >> 23) & 0xFFu, by = (y >> 23) & 0xFFu;
  const std::uint32_t nx = bx != 0, ny = by != 0;
  const std::uint64_t P = std::uint64_t{(x & 0x7FFFFFu) | (nx << 23)} * ((y & 0x7FFFFFu) | (ny << 23));  // < 2^48
  // double(P) is exact with biased exponent in [1023, 1070] for P >= 1; adding E in [-298, 208]
  // keeps it in [725, 1278]: a normal.
  const int E = static_cast<int>(bx + (1 - nx)) + static_cast<int>(by + (1 - ny)) - 300;
  const std::uint64_t pd = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(P)));
  const std::uint64_t mag = P == 0 ? 0u : pd + (static_cast<std::uint64_t>(static_cast<std::int64_t>(E)) << 52);
  const std::uint64_t sign = static_cast<std::uint64_t>((x ^ y) & 0x80000000u) << 32;
  return round_exact_to<binary32, binary64>(sign | mag, m, st);
}

// The entry points' hooks (core/detail/runtime_entry.hpp, core/array_arith.hpp): each returns true
// and sets r when it has computed the result in direction m, false when the core must (a NaN or
// infinite operand, a policy other than the default, stochastic rounding). The run-time-mode entry
// points call them inline with the caller's mode, the per-mode instantiations and span loops with a
// constant one. binary16_fast_has_<op> says whether an operation has a fast path at all.

inline constexpr bool binary16_fast_has_add = true;
inline constexpr bool binary16_fast_has_sub = true;
inline constexpr bool binary16_fast_has_mul = true;
inline constexpr bool binary16_fast_has_div = true;
inline constexpr bool binary16_fast_has_sqrt = false;
inline constexpr bool binary16_fast_has_fma = true;

/// Whether the fast paths serve env e in direction m: the default policy and a deterministic
/// direction (stochastic rounding, and any value outside the enumeration, go to the core).
LIBFLOAT_INLINE constexpr bool fast_env(rounding m, const env& e) {
  const bool plain = default_policy(e),
             deterministic = static_cast<unsigned>(m) < static_cast<unsigned>(rounding::stochastic);
  return plain & deterministic;
}

LIBFLOAT_INLINE constexpr bool binary16_fast_add(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b), served = fast_env(m, e);
  if (!(finite & served)) return false;  // (& on bools, not &&: one branch; locals keep Clang's -Wall quiet)
  r = binary16_add_finite(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), m, st);
  return true;
}
/// a - b = a + (-b) for a finite b (the core's rule: only a NaN b keeps its sign).
LIBFLOAT_INLINE constexpr bool binary16_fast_sub(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  return binary16_fast_add(m, a, b ^ 0x8000u, e, st, r);
}
/// The entry points' inline part for mul and div (core/detail/runtime_entry.hpp, detail::*_mode;
/// for add, sub and fma it is the whole hook): Op on two normal operands (Both tests them) only,
/// so that the code inlined into every caller's loop is short (one test covers finiteness and the
/// choice of the path); the rest goes through the per-mode functions, whose hooks below cover
/// every finite case.
template <auto Both, auto Op>
LIBFLOAT_INLINE constexpr bool fast_normal_pair(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                std::uint64_t& r) {
  const bool normal = Both(a, b), served = fast_env(m, e);
  if (!(normal & served)) return false;
  r = Op(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), m, st);
  return true;
}
LIBFLOAT_INLINE constexpr bool binary16_inline_mul(rounding m, std::uint64_t a, std::uint64_t b, const env& e,
                                                   status& st, std::uint64_t& r) {
  return fast_normal_pair<binary16_both_normal, binary16_mul_normal>(m, a, b, e, st, r);
}
LIBFLOAT_INLINE constexpr bool binary16_inline_div(rounding m, std::uint64_t a, std::uint64_t b, const env& e,
                                                   status& st, std::uint64_t& r) {
  return fast_normal_pair<binary16_both_normal, binary16_div_normal>(m, a, b, e, st, r);
}
LIBFLOAT_INLINE constexpr bool binary16_fast_mul(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  if (binary16_inline_mul(m, a, b, e, st, r)) [[likely]]
    return true;
  const bool finite = binary16_all_finite(a, b), served = fast_env(m, e);
  if (!(finite & served)) return false;
  r = binary16_mul_finite(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), m, st);
  return true;
}
/// Division by a zero (divide_by_zero or invalid) goes to the core.
LIBFLOAT_INLINE constexpr bool binary16_fast_div(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  if (binary16_inline_div(m, a, b, e, st, r)) [[likely]]
    return true;
  const bool finite = binary16_all_finite(a, b), nonzero = (b & 0x7FFFu) != 0, served = fast_env(m, e);
  if (!(finite & nonzero & served)) return false;
  r = binary16_div_finite(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu), m, st);
  return true;
}
/// NaN or infinite operands go to the core (invalid for 0 * inf, the NaN rules).
LIBFLOAT_INLINE constexpr bool binary16_fast_fma(rounding m, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                                 const env& e, status& st, std::uint64_t& r) {
  const bool finite = binary16_all_finite(a, b, c), served = fast_env(m, e);
  if (!(finite & served)) return false;
  r = binary16_fma_finite(static_cast<std::uint32_t>(a & 0xFFFFu), static_cast<std::uint32_t>(b & 0xFFFFu),
                          static_cast<std::uint32_t>(c & 0xFFFFu), m, st);
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
LIBFLOAT_INLINE constexpr bool binary32_fast_mul(rounding m, std::uint64_t a, std::uint64_t b, const env& e, status& st,
                                                 std::uint64_t& r) {
  const bool fa = binary32_finite(a), fb = binary32_finite(b), served = fast_env(m, e);
  if (!(fa & fb & served)) return false;
  r = binary32_mul_finite(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), m, st);
  return true;
}
// clang-format off
template <typename... A>
constexpr bool binary32_fast_add(A&&...) { return false; }
template <typename... A>
constexpr bool binary32_fast_sub(A&&...) { return false; }
template <typename... A>
constexpr bool binary32_fast_div(A&&...) { return false; }
template <typename... A>
constexpr bool binary32_fast_sqrt(A&&...) { return false; }
template <typename... A>
constexpr bool binary32_fast_fma(A&&...) { return false; }
// clang-format on

/// The inline parts by format and operation, for the entry points' macro: has_inline_fast says
/// which exist (binary16: all but sqrt; binary32: mul), inline_fast calls one.
enum class fast_op { add, sub, mul, div, sqrt, fma };
template <format F, fast_op O>
inline constexpr bool has_inline_fast = (F == binary16 && O != fast_op::sqrt) || (F == binary32 && O == fast_op::mul);
template <format F, fast_op O, typename... A>
requires has_inline_fast<F, O> LIBFLOAT_INLINE constexpr bool inline_fast(rounding m, A&&... args) {
  if constexpr (F == binary32)
    return fast_normal_pair<binary32_both_normal, binary32_mul_normal>(m, args...);
  else if constexpr (O == fast_op::add)
    return binary16_fast_add(m, args...);
  else if constexpr (O == fast_op::sub)
    return binary16_fast_sub(m, args...);
  else if constexpr (O == fast_op::mul)
    return binary16_inline_mul(m, args...);
  else if constexpr (O == fast_op::div)
    return binary16_inline_div(m, args...);
  else
    return binary16_fast_fma(m, args...);
}

/// No fast path (yet) for binary16 sqrt: the core runs.
template <typename... A>
constexpr bool binary16_fast_sqrt(A&&...) { return false; }

}  // namespace lf::detail
