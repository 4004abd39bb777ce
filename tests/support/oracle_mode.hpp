// The oracle's name for a library rounding mode. Kept apart from oracle.hpp, which must not see
// libfloat at all; this header is the one place the two enums meet.
#pragma once

#include <stdexcept>

#include <libfloat/core/rounding.hpp>

#include "oracle.hpp"

namespace oracle {

/// Throws for lf::rounding::stochastic, which has no deterministic oracle mode.
inline mode mode_of(lf::rounding r) {
  switch (r) {
    case lf::rounding::nearest_even: return mode::nearest_even;
    case lf::rounding::nearest_away: return mode::nearest_away;
    case lf::rounding::toward_zero: return mode::toward_zero;
    case lf::rounding::upward: return mode::upward;
    case lf::rounding::downward: return mode::downward;
    case lf::rounding::odd: return mode::odd;
    case lf::rounding::stochastic: break;
  }
  throw std::logic_error("lf::rounding::stochastic has no oracle::mode");
}

}  // namespace oracle
