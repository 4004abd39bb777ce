// libfloat/core/env.hpp: everything an operation needs besides its operands.
#pragma once

#include <cstdint>

#include <libfloat/core/policy.hpp>
#include <libfloat/core/rounding.hpp>

namespace lf {

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
