// Data shared by the benchmark suites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <libfloat/core/format.hpp>

namespace bench_data {

/// Values per benchmark iteration: small enough for L1, large enough to hide loop overhead.
inline constexpr std::size_t N = 4096;

/// Uniformly random finite encodings of f (all exponents, subnormals and zeros included).
inline std::vector<std::uint64_t> random_finite_bits(const lf::format& f, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint64_t> v(N);
  for (auto& x : v) {
    do x = g() & f.encoding_mask();
    while ((x & f.exponent_mask()) == f.exponent_mask());
  }
  return v;
}

/// Uniformly random encodings of f: every bit pattern, NaNs and infinities included.
inline std::vector<std::uint64_t> random_bits(const lf::format& f, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint64_t> v(N);
  for (auto& x : v) x = g() & f.encoding_mask();
  return v;
}

}  // namespace bench_data
