// libfloat/core/io.hpp: stream output. Kept out of the core headers, which include no iostream.
#pragma once

#include <ostream>

#include <libfloat/core/decimal.hpp>
#include <libfloat/core/fp.hpp>

namespace lf {

/// Writes lf::to_shortest(x) (decimal.hpp): the fewest significant digits that read back (with
/// lf::parse, nearest even) to the same encoding, in std::to_chars' notation: fp16 0.1 prints
/// "0.1", binary32 values print exactly as std::to_chars(float) does. Width and fill apply.
template <format F>
std::ostream& operator<<(std::ostream& os, fp<F> x) {
  return os << to_shortest(x);
}

}  // namespace lf
