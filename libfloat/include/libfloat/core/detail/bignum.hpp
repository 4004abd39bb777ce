// libfloat/core/detail/bignum.hpp: the unsigned big integer behind decimal.hpp's slow paths.
//
// Exact decimal conversion needs integers wider than 128 bits only for values far from 1 or
// for very long inputs (binary64's smallest subnormal has 751 significant digits). Those paths
// need just a few operations: multiply and divide by a small number, by a power of 5, shift by a
// power of 2, and print in decimal. Writing them here (base 2^32 limbs, schoolbook algorithms)
// keeps decimal.hpp, and so io.hpp and the umbrella header, free of any dependency beyond the
// standard library. Sizes stay small: at most a few thousand bits for the
// named formats (see the digit bound in decimal.hpp), so quadratic algorithms are the right ones.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <libfloat/core/detail/round.hpp>

namespace lf::detail {

class bignum {
 public:
  bignum() = default;
  explicit bignum(u128 v) {
    while (v != 0) {
      limbs_.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }

  bool is_zero() const { return limbs_.empty(); }

  /// Number of significant bits (0 for zero).
  int bit_width() const {
    if (limbs_.empty()) return 0;
    return static_cast<int>(32 * (limbs_.size() - 1)) + std::bit_width(limbs_.back());
  }
  bool fits_u128() const { return limbs_.size() <= 4; }
  /// The value; precondition fits_u128().
  u128 to_u128() const {
    u128 v = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) v = (v << 32) | limbs_[i];
    return v;
  }
  /// The lowest bit.
  bool odd() const { return !limbs_.empty() && (limbs_[0] & 1) != 0; }
  /// The value modulo 2^64.
  std::uint64_t low64() const {
    const std::uint64_t lo = limbs_.empty() ? 0 : limbs_[0];
    const std::uint64_t hi = limbs_.size() < 2 ? 0 : limbs_[1];
    return (hi << 32) | lo;
  }

  /// *this = *this * m + a.
  void mul_add_small(std::uint32_t m, std::uint32_t a = 0) {
    std::uint64_t carry = a;
    for (auto& l : limbs_) {
      const std::uint64_t t = std::uint64_t{l} * m + carry;
      l = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<std::uint32_t>(carry));
    trim();
  }
  /// *this = floor(*this / d); returns the remainder. d > 0.
  std::uint32_t div_small(std::uint32_t d) {
    std::uint64_t rem = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = static_cast<std::uint32_t>(cur / d);
      rem = cur % d;
    }
    trim();
    return static_cast<std::uint32_t>(rem);
  }

  /// *this *= 5^n (n >= 0), in steps of 5^13 = 1220703125 < 2^32.
  void mul_pow5(long n) {
    for (; n >= 13; n -= 13) mul_add_small(pow5_13);
    if (n > 0) mul_add_small(small_pow5(static_cast<int>(n)));
  }
  /// *this = floor(*this / 5^n) (n >= 0); returns true when the division was inexact.
  /// Nested floors are exact: floor(floor(x / a) / b) = floor(x / (a b)), and the remainder of
  /// x / (a b) is zero iff every step's remainder is.
  bool div_pow5(long n) {
    bool inexact = false;
    for (; n >= 13 && !is_zero(); n -= 13) inexact |= div_small(pow5_13) != 0;
    if (n > 0 && !is_zero()) inexact |= div_small(small_pow5(static_cast<int>(n < 13 ? n : 13))) != 0;
    return inexact;
  }

  /// *this <<= n (n >= 0).
  void shl(long n) {
    if (is_zero() || n <= 0) return;
    const auto words = static_cast<std::size_t>(n / 32);
    const int bits = static_cast<int>(n % 32);
    if (bits != 0) {
      std::uint32_t carry = 0;
      for (auto& l : limbs_) {
        const std::uint32_t next = l >> (32 - bits);
        l = (l << bits) | carry;
        carry = next;
      }
      if (carry != 0) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), words, 0u);
  }
  /// *this = floor(*this / 2^n) (n >= 0); returns true when nonzero bits were shifted out.
  bool shr(long n) {
    if (is_zero() || n <= 0) return false;
    const auto words = static_cast<std::size_t>(n / 32);
    const int bits = static_cast<int>(n % 32);
    if (words >= limbs_.size()) {
      limbs_.clear();
      return true;  // nonzero before, all of it shifted out
    }
    bool lost = false;
    for (std::size_t i = 0; i < words; ++i) lost |= limbs_[i] != 0;
    limbs_.erase(limbs_.begin(), limbs_.begin() + static_cast<std::ptrdiff_t>(words));
    if (bits != 0) {
      lost |= (limbs_[0] & ((std::uint32_t{1} << bits) - 1)) != 0;
      for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const std::uint32_t hi = i + 1 < limbs_.size() ? limbs_[i + 1] << (32 - bits) : 0;
        limbs_[i] = (limbs_[i] >> bits) | hi;
      }
    }
    trim();
    return lost;
  }

  /// The value in decimal, without sign or leading zeros ("0" for zero).
  std::string to_decimal() const {
    if (limbs_.size() <= 4) return u128_to_decimal(to_u128());
    bignum t = *this;
    std::vector<std::uint32_t> chunks;  // base 10^9, least significant first
    while (!t.is_zero()) chunks.push_back(t.div_small(1000000000u));
    std::string out = std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
      const std::string c = std::to_string(chunks[i]);
      out.append(9 - c.size(), '0');
      out += c;
    }
    return out;
  }

  static std::string u128_to_decimal(u128 v) {
    char buf[40];
    char* p = buf + sizeof buf;
    while ((v >> 64) != 0) {  // 128-bit divisions only for the top digits
      *--p = static_cast<char>('0' + static_cast<int>(v % 10));
      v /= 10;
    }
    auto w = static_cast<std::uint64_t>(v);
    do {
      *--p = static_cast<char>('0' + static_cast<int>(w % 10));
      w /= 10;
    } while (w != 0);
    return std::string(p, buf + sizeof buf);
  }

 private:
  static constexpr std::uint32_t pow5_13 = 1220703125u;  // 5^13, the largest power of 5 below 2^32
  static constexpr std::uint32_t small_pow5(int n) {
    std::uint32_t r = 1;
    for (int i = 0; i < n; ++i) r *= 5;
    return r;
  }
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<std::uint32_t> limbs_;  // little-endian base 2^32, no leading zero limbs
};

}  // namespace lf::detail
