// tests/models/test_mxint8.cpp: MXINT8 (OCP MX v1.0 §5.3: 8-bit two's complement elements k with the
// implicit factor 2^-6, 32 per E8M0 scale) against a model written here: the scale exponent from
// std::frexp (the largest power of two not above amax, emax_elem = 0), each element x / X * 64 as an
// exact rational rounded to an integer by the rule of each rounding direction (IEEE 754-2019 §4.3),
// clamped to +-127 (microsoft/microxcaling int8: max_norm 127/64), and the flags that follow from
// that. The 256 encodings' values are hand-derived literals. Nothing here calls the library's rounding.
#include <doctest/doctest.h>

#include <libfloat/models/block_scale.hpp>
#include <libfloat/models/block_scaled_unit.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

cpp_rational exact(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  const auto sig = static_cast<std::int64_t>(std::ldexp(m, 53));
  cpp_rational r(sig);
  const int k = e - 53;
  return k >= 0 ? r * cpp_rational(cpp_int(1) << k) : r / cpp_rational(cpp_int(1) << -k);
}

cpp_int floor_of(const cpp_rational& v) {
  cpp_int q = boost::multiprecision::numerator(v) / boost::multiprecision::denominator(v);  // toward zero
  if (v < 0 && cpp_rational(q) != v) q -= 1;
  return q;
}

/// v rounded to an integer in mode m (deterministic modes).
cpp_int round_int(const cpp_rational& v, lf::rounding m) {
  const cpp_int lo = floor_of(v);
  const cpp_rational frac = v - cpp_rational(lo);
  if (frac == 0) return lo;
  const cpp_rational half(1, 2);
  switch (m) {
    case lf::rounding::nearest_even: return frac > half || (frac == half && (lo & 1) != 0) ? lo + 1 : lo;
    case lf::rounding::nearest_away: return frac > half || (frac == half && v > 0) ? lo + 1 : lo;
    case lf::rounding::toward_zero: return v > 0 ? lo : lo + 1;
    case lf::rounding::upward: return lo + 1;
    case lf::rounding::downward: return lo;
    case lf::rounding::odd: return (lo & 1) != 0 ? lo : lo + 1;
    default: break;
  }
  return 0;
}

struct expected {
  std::vector<std::uint8_t> elements, scales;
  lf::status flags{};
};

/// The model of lf::mx_quantize(x, rows, cols, mxint8, env{m}) (finite data).
expected model(const std::vector<float>& x, std::size_t rows, std::size_t cols, lf::rounding m) {
  expected out;
  out.elements.resize(x.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c0 = 0; c0 < cols; c0 += 32) {
      const std::size_t len = std::min<std::size_t>(32, cols - c0);
      double amax = 0;
      for (std::size_t j = 0; j < len; ++j) amax = std::max(amax, std::fabs(static_cast<double>(x[r * cols + c0 + j])));
      int k = -127;  // an all-zero block: the smallest scale
      if (amax > 0) {
        int e = 0;
        std::frexp(amax, &e);  // amax in [2^(e-1), 2^e)
        k = std::max(e - 1 - 0, -127);  // X = 2^(floor(log2 amax) - emax_elem), emax_elem = 0
      }
      out.scales.push_back(static_cast<std::uint8_t>(k + 127));
      for (std::size_t j = 0; j < len; ++j) {
        const double xv = x[r * cols + c0 + j];
        const cpp_rational v = exact(xv) * cpp_rational(64) / (k >= 0 ? cpp_rational(cpp_int(1) << k)
                                                                       : cpp_rational(1, cpp_int(1) << -k));
        cpp_int n = round_int(v, m);
        if (cpp_rational(n) != v) out.flags |= lf::status::inexact;
        if (n > 127 || n < -127) {
          n = n > 0 ? 127 : -127;
          out.flags |= lf::status::overflow | lf::status::inexact;
        }
        const int ni = n.convert_to<int>();
        out.elements[r * cols + c0 + j] = static_cast<std::uint8_t>(ni & 0xFF);
      }
    }
  return out;
}

constexpr lf::rounding deterministic[] = {lf::rounding::nearest_even, lf::rounding::nearest_away,
                                          lf::rounding::toward_zero,  lf::rounding::upward,
                                          lf::rounding::downward,     lf::rounding::odd};

}  // namespace

TEST_CASE("MXINT8: the 256 encodings are two's complement k / 64") {
  lf::block_quantized q;
  q.fmt = lf::mxint8;
  q.rows = 1;
  q.cols = 256;
  q.elements.resize(256);
  for (int c = 0; c < 256; ++c) q.elements[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c);
  q.scales.assign(8, 127);  // 2^0
  for (int c = 0; c < 256; ++c) {
    const int k = c < 128 ? c : c - 256;
    CHECK(lf::mx_value(q, static_cast<std::size_t>(c)) == k / 64.0);
  }
  CHECK(lf::mx_value(q, 0x7F) == 1.984375);  // the largest, 127/64
  CHECK(lf::mx_value(q, 0x80) == -2.0);      // decoded; quantization never gives it
  CHECK(lf::mx_value(q, 0xFF) == -0.015625);
  CHECK(lf::mx_value(q, 0x01) == 0.015625);
  CHECK(lf::element_name(lf::mxint8) == "int8");
  CHECK(lf::element_name(lf::mxfp4) == "fp4");
}

TEST_CASE("MXINT8 quantization against the exact model, every deterministic mode") {
  std::mt19937_64 gen(20261203);
  std::uniform_real_distribution<double> expo(-30, 30);
  std::uniform_int_distribution<int> sign(0, 1);
  const std::size_t rows = 16, cols = 80;  // 3 blocks per row, the last one of 16
  std::vector<float> x(rows * cols);
  for (std::size_t i = 0; i < x.size(); ++i) {
    // a block exponent per block, values within 2^-12 of it, some exact multiples of 1/64 of amax
    const double base = std::exp2(std::floor(expo(gen) / 4) * 4);
    float v = static_cast<float>(base * std::uniform_real_distribution<double>(0, 2)(gen));
    if (i % 7 == 0) v = static_cast<float>(base * std::floor(std::uniform_real_distribution<double>(0, 128)(gen)) / 64);
    if (i % 11 == 0) v = static_cast<float>(base * (std::floor(std::uniform_real_distribution<double>(0, 255)(gen)) + 0.5) / 128);  // ties
    if (i % 13 == 0) v = static_cast<float>(base * (2 - std::ldexp(1.0, -9)));  // rounds to +-128: clamped
    x[i] = sign(gen) ? -v : v;
  }
  x[5] = 0;
  for (std::size_t j = 0; j < 32; ++j) x[2 * cols + j] = 0;  // an all-zero block
  const lf::policy sat{lf::tininess::after_rounding, {}, {}, lf::overflow_policy::saturate};
  int blocks_with_overflow = 0;
  for (const lf::rounding m : deterministic) {
    CAPTURE(static_cast<int>(m));
    const lf::block_quantized q = lf::mx_quantize(x, rows, cols, lf::mxint8, lf::env{m, sat});
    const expected want = model(x, rows, cols, m);
    REQUIRE(q.scales == want.scales);
    CHECK(q.elements == want.elements);
    CHECK(q.flags == want.flags);
    blocks_with_overflow += lf::has(want.flags, lf::status::overflow);
    for (const std::uint8_t e : q.elements) CHECK(e != 0x80);
    // Every value decodes to element * scale, exactly.
    std::vector<float> back(x.size());
    lf::mx_dequantize(q, back);
    for (std::size_t i = 0; i < x.size(); i += 37)
      CHECK(static_cast<double>(back[i]) == lf::mx_value(q, i));
  }
  CHECK(blocks_with_overflow > 0);  // the clamp at 127 is exercised (values near 2 X round to 128)
}

TEST_CASE("MXINT8: ties, the clamp, stochastic rounding, and what is refused") {
  const lf::policy sat{lf::tininess::after_rounding, {}, {}, lf::overflow_policy::saturate};
  // amax 1.99609375 -> X = 1; 1.9921875 * 64 = 127.5 ties to 128, which clamps to 127.
  std::vector<float> x(32, 0.0f);
  x[0] = 1.9921875f;
  x[1] = 0.5f / 64;    // a tie at 0.5: nearest even gives 0
  x[2] = 1.5f / 64;    // a tie at 1.5: gives 2
  x[3] = -2.5f / 64;   // -2.5 -> -2
  x[4] = -1.99609375f;  // -127.75 -> -128 -> clamps to -127 (never 0x80)
  lf::block_quantized q = lf::mx_quantize(x, 1, 32, lf::mxint8, lf::env{lf::rounding::nearest_even, sat});
  CHECK(q.scales[0] == 127);
  CHECK(q.elements[0] == 127);
  CHECK(q.elements[1] == 0);
  CHECK(q.elements[2] == 2);
  CHECK(q.elements[3] == static_cast<std::uint8_t>(-2 & 0xFF));
  CHECK(q.elements[4] == static_cast<std::uint8_t>(-127 & 0xFF));
  CHECK(q.flags == (lf::status::inexact | lf::status::overflow));
  // Stochastic: reproducible, every result one of the two neighbours, unbiased on average.
  std::vector<float> y(32 * 1000);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = i % 32 == 0 ? 1.0f : 0.25f / 64;  // a quarter above 0
  lf::stochastic_source s1{7}, s2{7};
  const lf::block_quantized a = lf::mx_quantize(y, 1000, 32, lf::mxint8, s1, sat);
  const lf::block_quantized b = lf::mx_quantize(y, 1000, 32, lf::mxint8, s2, sat);
  CHECK(a.elements == b.elements);
  int ups = 0, n = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (i % 32 == 0) continue;
    CHECK((a.elements[i] == 0 || a.elements[i] == 1));
    ups += a.elements[i];
    ++n;
  }
  CHECK(std::abs(ups / static_cast<double>(n) - 0.25) < 5 * std::sqrt(0.25 * 0.75 / n));
  // No block-scaled matrix unit takes integer elements.
  lf::block_quantized m = lf::mx_quantize(x, 1, 32, lf::mxint8);
  lf::status st{};
  CHECK_THROWS_WITH_AS(lf::block_scaled_dot(lf::block_scaled_units::blackwell_mxf8f6f4, m, 0, m, 0, 0.0f, st),
                       doctest::Contains("integer elements (MXINT8)"), std::invalid_argument);
  lf::block_format nv_int = lf::mxint8;
  nv_int.rule = lf::scale_rule::nvfp4;
  CHECK_THROWS_AS(lf::mx_quantize(x, 1, 32, nv_int), std::invalid_argument);
}
