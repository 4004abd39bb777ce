// libfloat/models/detail/fits_in.hpp: lf::fits_in(from, to), whether every value of one format is a
// value of another. Shared by accumulate.hpp (exact products need the inputs to fit the
// accumulator) and matrix_unit.hpp (a unit converts data wider than its operand format).
#pragma once

#include <libfloat/core/arith.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

/// True when every value of `from` is a value of `to`, so lf::convert(to, from, ...) is exact for
/// every finite encoding and infinities stay infinities: p_from <= p_to, and the smallest
/// subnormal and the largest finite value of `from` convert exactly (a finite value of `from` is
/// then a multiple of to's smallest subnormal with at most p_to significant bits, below to's max).
/// binary16, bfloat16, tf32, E4M3 and E5M2 all fit in binary32; E4M3 and E5M2 fit in binary16;
/// bfloat16 does not fit in binary16 (range), nor binary16 in bfloat16 (precision).
/// The checks below only look at positive finite values, so what the target may lack is checked
/// apart: a NaN (finite_only formats), negative values and zero (exponent-only formats, E8M0).
/// (A -0 going to a fnuz format's +0 is allowed: as values they are equal.)
constexpr bool fits_in(const format& from, const format& to) {
  if (from.precision > to.precision) return false;
  if (from.has_infinity() && !to.has_infinity()) return false;
  if (from.has_nan() && !to.has_nan()) return false;
  if ((from.has_sign() && !to.has_sign()) || (from.has_zero() && !to.has_zero())) return false;
  status st{};
  (void)convert(to, from, from.min_subnormal_bits(), env{}, st);
  (void)convert(to, from, from.max_finite_bits(), env{}, st);
  return st == status::none;
}

static_assert(fits_in(binary16, binary32) && fits_in(bfloat16, binary32) && fits_in(tfloat32, binary32));
static_assert(fits_in(float8_e4m3fn, binary16) && fits_in(float8_e5m2, binary16) && fits_in(binary32, binary64));

}  // namespace lf
