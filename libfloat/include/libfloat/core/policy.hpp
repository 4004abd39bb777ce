// libfloat/core/policy.hpp: the policies beside the rounding direction: when a result counts as
// tiny (IEEE 754-2019 §7.5), flush-to-zero and denormals-are-zero, and what overflow gives.
#pragma once

#include <cstdint>

namespace lf {

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

}  // namespace lf
