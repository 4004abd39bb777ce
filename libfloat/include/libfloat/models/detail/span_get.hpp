// libfloat/models/detail/span_get.hpp (not a header to include on its own): the element accessors
// that the models' non-template entry points (sum, dot and gemm on encodings, the matrix-unit dot
// on run-time formats) hand to their engines. Named types rather than lambdas, so that the engines'
// instantiations for them can be declared extern (LIBFLOAT_SEPARATE_RUNTIME) and compiled once, in
// the libfloat::runtime library (libfloat/src/models_instances.cpp); the code is the same either way.
#pragma once

#include <cstddef>
#include <span>

#include <libfloat/core/arith.hpp>  // bits_t

namespace lf::detail {

/// i -> s[i].
struct span_get {
  std::span<const bits_t> s;
  constexpr bits_t operator()(std::size_t i) const { return s[i]; }
  constexpr const bits_t* data() const { return s.data(); }  // (contiguous: the fast blocks load vectors)
};

/// (i, v) -> s[i] = v.
struct span_set {
  std::span<bits_t> s;
  constexpr void operator()(std::size_t i, bits_t v) const { s[i] = v; }
};

}  // namespace lf::detail
