// libfloat/status.hpp: IEEE 754-2019 §7 exception flags, and the policies that decide how
// tininess, subnormals and overflow are treated.
#pragma once

#include <cstdint>

#include "rounding.hpp"

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

/// §7.5: when a nonzero result counts as tiny. TestFloat's default and x86 SSE's is after.
enum class tininess : std::uint8_t {
  after_rounding,   ///< tiny if rounding to p bits with an unbounded exponent gives |r| < 2^emin
  before_rounding,  ///< tiny if the exact result has |x| < 2^emin
};

/// What happens to results that are tiny (FTZ).
enum class subnormal_results : std::uint8_t {
  keep,           ///< gradual underflow, as IEEE 754 requires
  flush_to_zero,  ///< a tiny result (per lf::tininess) becomes a zero of the same sign and
                  ///< raises underflow and inexact, as x86 MXCSR.FTZ does
};

/// What happens to subnormal operands (DAZ).
enum class subnormal_inputs : std::uint8_t {
  keep,           ///< subnormal operands are used as they are
  treat_as_zero,  ///< subnormal operands are read as a zero of the same sign, no flag (MXCSR.DAZ)
};

/// What a finite result too large for the format becomes.
enum class overflow_policy : std::uint8_t {
  ieee,      ///< §7.4: infinity or max finite depending on the rounding direction; formats
             ///< without infinity (OCP E4M3) give NaN where IEEE would give infinity
  saturate,  ///< always the largest finite value of that sign (OCP FP8 "saturating" conversions,
             ///< CUDA __NV_SATFINITE); a conversion of an infinity also gives max finite
};

/// The policies in force for an operation. The defaults are IEEE 754-2019's.
struct policy {
  lf::tininess tininess = tininess::after_rounding;
  subnormal_results results = subnormal_results::keep;
  subnormal_inputs inputs = subnormal_inputs::keep;
  overflow_policy overflow = overflow_policy::ieee;
  friend constexpr bool operator==(const policy&, const policy&) = default;
};

/// Everything an operation needs besides its operands: the rounding direction, the policies,
/// and, for rounding::stochastic only, 32 random bits for this one rounding.
struct env {
  rounding mode = rounding::nearest_even;
  lf::policy policy{};
  std::uint32_t random = 0;

  constexpr env() = default;
  constexpr env(rounding m) : mode(m) {}  // NOLINT: implicit on purpose, env{r} reads naturally
  constexpr env(rounding m, lf::policy p, std::uint32_t rnd = 0) : mode(m), policy(p), random(rnd) {}
};

}  // namespace lf
