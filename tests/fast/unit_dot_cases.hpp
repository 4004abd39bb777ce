// Shared by the tests of the matrix units' hardware paths (test_pairwise_fast.cpp,
// test_late_fast.cpp): a dot product's outcome, random encodings, the data sets, the start values
// and the typed lf::dot on the same data.
#pragma once

#include <libfloat/models/matrix_unit.hpp>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace unit_dot_cases {

using u64 = std::uint64_t;
using bits = std::vector<lf::bits_t>;

struct outcome {
  lf::bits_t r;
  lf::status st;
  bool operator==(const outcome&) const = default;
};

/// One random encoding of f: kind 0 any, 1 finite with the exponent field in [lo, hi].
inline u64 draw(const lf::format& f, std::mt19937_64& g, int kind, int lo, int hi) {
  if (kind == 0) return g() & f.encoding_mask();
  const u64 sign = (g() & 1) ? f.sign_mask() : 0;
  const auto field = static_cast<u64>(lo + static_cast<int>(g() % static_cast<u64>(hi - lo + 1)));
  return sign | (field << f.fraction_bits()) | (g() & f.fraction_mask());
}

struct data_set {
  const char* name;
  int kind, lo, hi;
  bool cancel;  // odd positions cancel the even ones: a_{2i+1} = -a_{2i}, b_{2i+1} = b_{2i}
};

/// The data sets of both tests (the binary16 and bfloat16 ones; the late test adds its own).
inline std::vector<data_set> data_sets(const lf::format& f) {
  const int top = static_cast<int>(f.exponent_mask() >> f.fraction_bits()) - 1;  // largest finite field
  std::vector<data_set> v{{"any encoding", 0, 0, 0, false},
                          {"finite, every exponent", 1, 0, top, false},
                          {"narrow exponents", 1, f.bias() - 3, f.bias() + 3, false},
                          {"exact cancellation", 1, f.bias() - 3, f.bias() + 3, true},
                          {"subnormal and smallest normal inputs", 1, 0, 2, false}};
  if (f == lf::bfloat16) {
    v.push_back({"products at binary32's bottom", 1, 60, 67, false});
    v.push_back({"products at binary32's bottom, cancelling", 1, 60, 67, true});
    v.push_back({"products at binary32's top", 1, 188, 193, false});
  }
  return v;
}

inline std::vector<lf::bits_t> start_values(std::mt19937_64& g) {
  std::vector<lf::bits_t> c{0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000,
                            0x3F800000, 0xC2C80000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000};
  for (int i = 0; i < 4; ++i) c.push_back(g() & 0xFFFFFFFF);
  return c;
}

template <lf::format F>
outcome typed_dot(const lf::matrix_unit& mu, const bits& a, const bits& b, lf::bits_t c) {
  std::vector<lf::fp<F>> ta, tb;
  for (auto x : a) ta.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(x)));
  for (auto x : b) tb.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(x)));
  lf::status st{};
  const lf::fp32 r = lf::dot<F, F>(mu, std::span<const lf::fp<F>>(ta), std::span<const lf::fp<F>>(tb),
                                   lf::fp32::from_bits(static_cast<std::uint32_t>(c)), &st);
  return {r.bits(), st};
}

}  // namespace unit_dot_cases
