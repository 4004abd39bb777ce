// libfloat/core/detail/decimal_pow5.hpp: 128-bit reciprocals of powers of five, computed at compile
// time, for decimal.hpp's fast paths (parsing short inputs with large negative exponents, and
// shortest printing of formats up to 32 bits without divisions).
//
// For 1 <= m <= pow5_reciprocal_max, with b = bit_width(5^m):
//     R_m = floor(2^(127 + b) / 5^m),   2^127 <= R_m < 2^128
// (5^m is odd, so 2^(127+b) / 5^m is never an integer and ceil = R_m + 1).
// They are computed here, not copied: V_m = floor(2^511 / 5^m) by repeated exact division by 5
// (nested floors: floor(floor(x) / 5) = floor(x / 5)), and R_m = floor(V_m / 2^(511 - 127 - b)),
// again a nested floor. A static_assert below checks R_m * 5^m <= 2^(127+b) < (R_m + 1) * 5^m for
// every m whose 5^m fits 128 bits.
#pragma once

#include <array>
#include <cstdint>

#include <libfloat/core/detail/round.hpp>

namespace lf::detail {

struct pow5_reciprocal {
  std::uint64_t hi, lo;  ///< R_m = hi * 2^64 + lo
  int bits;              ///< b = bit_width(5^m)
};

inline constexpr int pow5_reciprocal_max = 127;

inline constexpr std::array<pow5_reciprocal, pow5_reciprocal_max + 1> pow5_reciprocal_table = [] {
  constexpr int L = 16;        // 32-bit limbs, little-endian: 512 bits
  constexpr int W = 32 * L - 1;  // V_0 = 2^W
  std::array<pow5_reciprocal, pow5_reciprocal_max + 1> t{};
  std::array<std::uint32_t, L> V{}, P{};
  V[L - 1] = 0x80000000u;
  P[0] = 1;
  int top = 0;  // index of P's highest nonzero limb
  for (int m = 1; m <= pow5_reciprocal_max; ++m) {
    std::uint64_t rem = 0;  // V /= 5
    for (int i = L - 1; i >= 0; --i) {
      const std::uint64_t cur = (rem << 32) | V[static_cast<std::size_t>(i)];
      V[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(cur / 5);
      rem = cur % 5;
    }
    std::uint64_t carry = 0;  // P *= 5
    for (int i = 0; i <= top + 1 && i < L; ++i) {
      const std::uint64_t x = std::uint64_t{P[static_cast<std::size_t>(i)]} * 5 + carry;
      P[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(x);
      carry = x >> 32;
    }
    if (top + 1 < L && P[static_cast<std::size_t>(top + 1)] != 0) ++top;
    const int b = 32 * top + std::bit_width(P[static_cast<std::size_t>(top)]);
    const int shift = W - 127 - b;  // R = bits [shift, shift + 128) of V
    const int w = shift / 32, o = shift % 32;
    std::uint64_t limb[4] = {};
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t low = V[static_cast<std::size_t>(w + i)] >> o;
      const std::uint64_t high = o == 0 || w + i + 1 >= L ? 0 : std::uint64_t{V[static_cast<std::size_t>(w + i + 1)]} << (32 - o);
      limb[i] = (low | high) & 0xFFFFFFFFu;
    }
    const std::uint64_t lo = limb[0] | (limb[1] << 32), hi = limb[2] | (limb[3] << 32);
    t[static_cast<std::size_t>(m)] = {hi, lo, b};
  }
  return t;
}();

namespace pow5_check {
/// R_m * 5^m <= 2^(127+b) < (R_m + 1) * 5^m, on 256-bit products, for 5^m < 2^128.
constexpr bool reciprocal_ok(int m) {
  u128 p = 1;
  for (int i = 0; i < m; ++i) p *= 5;
  const pow5_reciprocal& r = pow5_reciprocal_table[static_cast<std::size_t>(m)];
  if (r.bits != bit_width(p) || (r.hi >> 63) != 1) return false;
  // x * p as a 256-bit number (4 words), x = R or R + 1.
  auto mul = [](std::uint64_t xh, std::uint64_t xl, u128 y, std::array<std::uint64_t, 4>& out) {
    const auto yl = static_cast<std::uint64_t>(y), yh = static_cast<std::uint64_t>(y >> 64);
    const u128 ll = u128{xl} * yl, lh = u128{xl} * yh, hl = u128{xh} * yl, hh = u128{xh} * yh;
    const u128 mid = (ll >> 64) + static_cast<std::uint64_t>(lh) + static_cast<std::uint64_t>(hl);
    const u128 top = (mid >> 64) + (lh >> 64) + (hl >> 64) + static_cast<std::uint64_t>(hh);
    out = {static_cast<std::uint64_t>(ll), static_cast<std::uint64_t>(mid), static_cast<std::uint64_t>(top),
           static_cast<std::uint64_t>((top >> 64) + (hh >> 64))};
  };
  // 2^(127+b) as 4 words
  std::array<std::uint64_t, 4> two{};
  const int e = 127 + r.bits;
  two[static_cast<std::size_t>(e / 64)] = std::uint64_t{1} << (e % 64);
  auto less = [](const std::array<std::uint64_t, 4>& a, const std::array<std::uint64_t, 4>& b) {
    for (int i = 3; i >= 0; --i)
      if (a[static_cast<std::size_t>(i)] != b[static_cast<std::size_t>(i)]) return a[static_cast<std::size_t>(i)] < b[static_cast<std::size_t>(i)];
    return false;
  };
  std::array<std::uint64_t, 4> lower{}, upper{};
  mul(r.hi, r.lo, p, lower);
  const std::uint64_t lo1 = r.lo + 1, hi1 = r.hi + (lo1 == 0 ? 1 : 0);
  mul(hi1, lo1, p, upper);
  return !less(two, lower) && less(two, upper);
}
constexpr bool all_ok() {
  for (int m = 1; m <= 55; ++m)
    if (!reciprocal_ok(m)) return false;
  for (int m = 1; m <= pow5_reciprocal_max; ++m)  // R_m + 1 never carries out of the low word
    if (pow5_reciprocal_table[static_cast<std::size_t>(m)].lo == ~std::uint64_t{0}) return false;
  return true;
}
static_assert(all_ok(), "pow5_reciprocal_table: R_m = floor(2^(127+b) / 5^m) fails for some m <= 55");
static_assert(pow5_reciprocal_table[1].hi == 0xCCCCCCCCCCCCCCCCu && pow5_reciprocal_table[1].lo == 0xCCCCCCCCCCCCCCCCu);
}  // namespace pow5_check

}  // namespace lf::detail
