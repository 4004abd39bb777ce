// libfloat/io.hpp: stream output. Kept out of the core headers, which include no iostream.
#pragma once

#include <ios>
#include <limits>
#include <ostream>

#include "fp.hpp"

namespace lf {

/// Writes x with enough significant digits (max_digits10 of F) that the text reads back to the
/// same encoding. The value goes through double, which holds every value of every format exactly.
template <format F>
std::ostream& operator<<(std::ostream& os, fp<F> x) {
  const auto old = os.precision(std::numeric_limits<fp<F>>::max_digits10);
  os << static_cast<double>(x);
  os.precision(old);
  return os;
}

}  // namespace lf
