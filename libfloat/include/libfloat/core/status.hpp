// libfloat/core/status.hpp: IEEE 754-2019 §7 exception flags (lf::status). The policies that decide
// how tininess, subnormals and overflow are treated are in core/policy.hpp; the environment of an
// operation (rounding direction, policies, random bits) in core/env.hpp.
#pragma once

#include <cstdint>

namespace lf {

/// Exception flags as a bitmask. The values are Berkeley SoftFloat/TestFloat's, so a status
/// prints as TestFloat's 2-digit flags field.
enum class status : std::uint8_t {
  none = 0x00,
  inexact = 0x01,         ///< §7.6: the rounded result differs from the exact one
  underflow = 0x02,       ///< §7.5: tiny (see lf::tininess) and inexact
  overflow = 0x04,        ///< §7.4: the rounded result with unbounded exponent exceeds max finite
  divide_by_zero = 0x08,  ///< §7.3: exact infinite result from finite operands
  invalid = 0x10,         ///< §7.2: no usefully definable result (NaN, or invalid integer)
};

constexpr status operator|(status a, status b) {
  return static_cast<status>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr status operator&(status a, status b) {
  return static_cast<status>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
constexpr status& operator|=(status& a, status b) { return a = a | b; }
/// True when every flag of `which` is raised in `s`.
constexpr bool has(status s, status which) { return (s & which) == which && which != status::none; }
constexpr std::uint8_t to_bits(status s) { return static_cast<std::uint8_t>(s); }

}  // namespace lf
