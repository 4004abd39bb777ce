// tests/models/test_block_scale.cpp: models/block_scale.hpp (MX and NVFP4 block scaling) against a
// model written here from the specs: each small format's values listed from its parameters (sign,
// exponent, fraction; OCP MX v1.0 §5 tables), the nearest value found by exact rational comparison
// over that list (ties to the even encoding, clamped at max as the MX conversion does), the scale
// rules computed with plain integer exponent arithmetic. Nothing here calls the library's rounding.
#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <libfloat/models/block_scale.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace {

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

/// A small format from its spec parameters, for the model: w exponent bits, f fraction bits, bias,
/// whether the all-ones encoding is a NaN (E4M3 "fn") or every encoding is finite (FP4/FP6), and
/// the exponent-only E8M0 (no sign, field e = 2^(e - 127)).
struct spec {
  int w, f, bias;
  bool nan_all_ones;
  bool exponent_only;
  int bits() const { return exponent_only ? w : 1 + w + f; }
  bool operator==(const spec&) const = default;
};
constexpr spec e2m1{2, 1, 1, false, false}, e3m2{3, 2, 3, false, false}, e2m3{2, 3, 1, false, false};
constexpr spec e4m3{4, 3, 7, true, false}, e5m2ieee{5, 2, 15, false, false}, e8m0{8, 0, 127, false, true};

cpp_rational pow2(int k) { return k >= 0 ? cpp_rational(cpp_int(1) << k) : cpp_rational(1, cpp_int(1) << -k); }

/// The value of encoding c, or nullopt for a NaN or an infinity (E5M2's all-ones exponent).
std::optional<cpp_rational> value_of(const spec& s, unsigned c) {
  if (s.exponent_only) {
    if (c == 0xFF) return std::nullopt;
    return pow2(static_cast<int>(c) - s.bias);
  }
  const unsigned mag_bits = static_cast<unsigned>(s.w + s.f);
  const bool neg = (c >> mag_bits) & 1;
  const unsigned e = (c >> s.f) & ((1u << s.w) - 1), m = c & ((1u << s.f) - 1);
  if (s.nan_all_ones && e == (1u << s.w) - 1 && m == (1u << s.f) - 1) return std::nullopt;
  if (!s.nan_all_ones && s.w == 5 && e == 31) return std::nullopt;  // E5M2: IEEE infinities and NaNs
  cpp_rational v = e == 0 ? cpp_rational(m) * pow2(1 - s.bias - s.f)
                          : cpp_rational((1u << s.f) + m) * pow2(static_cast<int>(e) - s.bias - s.f);
  return neg ? -v : v;
}

/// value_of for every encoding of s, made once per spec (the scans of nearest and rounded are the
/// model; this only saves rebuilding the same rationals for every element).
const std::vector<std::optional<cpp_rational>>& values_of(const spec& s) {
  static thread_local std::deque<std::pair<spec, std::vector<std::optional<cpp_rational>>>> cache;  // (references stay valid)
  for (const auto& [k, vs] : cache)
    if (k == s) return vs;
  std::vector<std::optional<cpp_rational>> vs;
  for (unsigned c = 0; c < (1u << s.bits()); ++c) vs.push_back(value_of(s, c));
  return cache.emplace_back(s, std::move(vs)).second;
}

/// The encoding of s that x rounds to in `mode` (nearest with ties to the even encoding, toward zero,
/// upward, downward, nearest with ties away, or to odd), clamped at the largest magnitude as under
/// the saturating policy (the MX conversion saturates): the largest value <= x and the smallest >= x
/// are found by a scan of every value, then the mode chooses. A zero takes x's sign.
unsigned rounded(const spec& s, const cpp_rational& x, lf::rounding mode) {
  const auto& values = values_of(s);
  std::optional<unsigned> below, above;  // (encodings)
  for (unsigned c = 0; c < (1u << s.bits()); ++c) {
    const auto& v = values[c];
    if (!v) continue;
    if (*v <= x && (!below || *v > *values[*below])) below = c;
    if (*v >= x && (!above || *v < *values[*above])) above = c;
  }
  unsigned r = 0;
  if (!above) r = *below;       // beyond +max: clamped
  else if (!below) r = *above;  // beyond -max
  else if (*values[*below] == x) r = *below;  // exact
  else {
    const cpp_rational lo = *values[*below], hi = *values[*above];
    switch (mode) {
      case lf::rounding::toward_zero: r = x > 0 ? *below : *above; break;
      case lf::rounding::upward: r = *above; break;
      case lf::rounding::downward: r = *below; break;
      case lf::rounding::nearest_even:
      case lf::rounding::nearest_away: {
        const cpp_rational dl = x - lo, dh = hi - x;
        const unsigned tie = mode == lf::rounding::nearest_even ? ((*below & 1) == 0 ? *below : *above)
                                                                : (x > 0 ? *above : *below);
        r = dl < dh ? *below : dh < dl ? *above : tie;
        break;
      }
      default: r = (*below & 1) != 0 ? *below : *above; break;  // odd: the neighbour whose last bit is 1
    }
  }
  if (*values[r] == 0) r = x < 0 ? 1u << (s.w + s.f) : 0u;
  return r;
}

/// The nearest encoding of s to x under nearest-even, clamped at the largest magnitude (the MX
/// conversion saturates). A zero takes x's sign.
unsigned nearest(const spec& s, const cpp_rational& x) { return rounded(s, x, lf::rounding::nearest_even); }

cpp_rational max_of(const spec& s) {
  cpp_rational m = 0;
  for (unsigned c = 0; c < (1u << s.bits()); ++c)
    if (auto v = value_of(s, c); v && *v > m) m = *v;
  return m;
}

cpp_rational exact(double d) {  // a double's exact value
  int e = 0;
  const double m = std::frexp(d, &e);
  const auto i = static_cast<std::int64_t>(std::ldexp(m, 53));
  return cpp_rational(i) * pow2(e - 53);
}

/// floor(log2 |x|) of a nonzero double, from frexp (independent of ilogb).
int floor_log2(double x) {
  int e = 0;
  std::frexp(std::fabs(x), &e);
  return e - 1;
}

std::vector<float> random_matrix(std::size_t n, std::uint32_t seed, int spread) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> ex(-spread, spread), sign(0, 1);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>((sign(g) ? -1 : 1) * std::ldexp(mant(g), ex(g)));
  return x;
}

struct case_fmt {
  const lf::block_format* fmt;
  spec elem;
  int emax_elem;  // OCP MX v1.0 Table: E4M3 8, E5M2 15, E3M2 4, E2M3 2, E2M1 2
};
const case_fmt mx_cases[] = {{&lf::mxfp8_e4m3, e4m3, 8},
                             {&lf::mxfp8_e5m2, e5m2ieee, 15},
                             {&lf::mxfp6_e3m2, e3m2, 4},
                             {&lf::mxfp6_e2m3, e2m3, 2},
                             {&lf::mxfp4, e2m1, 2}};

/// The model's check of q against x under the OCP floor rule.
void check_ocp(const case_fmt& k, const std::vector<float>& x, std::size_t rows, std::size_t cols,
               const lf::block_quantized& q) {
  const std::size_t B = k.fmt->block;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c0 = 0; c0 < cols; c0 += B) {
      double amax = 0;
      for (std::size_t c = c0; c < std::min(cols, c0 + B); ++c) amax = std::max(amax, std::fabs(double(x[r * cols + c])));
      const std::size_t b = r * ((cols + B - 1) / B) + c0 / B;
      int kexp = amax == 0 ? -127 : floor_log2(amax) - k.emax_elem;
      kexp = std::max(-127, std::min(127, kexp));
      INFO(k.fmt->name, " row ", r, " block at ", c0, " amax ", amax);
      REQUIRE(int(q.scales[b]) == kexp + 127);
      for (std::size_t c = c0; c < std::min(cols, c0 + B); ++c) {
        const float xv = x[r * cols + c];
        const unsigned want = xv == 0 ? (std::signbit(xv) ? 1u << (k.elem.w + k.elem.f) : 0u)
                                      : nearest(k.elem, exact(xv) / pow2(kexp));
        INFO("element ", c, " x ", x[r * cols + c]);
        REQUIRE(unsigned(q.elements[r * cols + c]) == want);
      }
    }
}

}  // namespace

TEST_CASE("MX formats, OCP floor rule: scales and elements match the model on random matrices") {
  for (const auto& k : mx_cases) {
    // Seeds 1 and 2 draw exponents within +-6, seed 3 within +-60 (under AddressSanitizer, where the
    // model's rational scan is slow, seed 2 is left out).
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      if (test_sanitizer::under_asan && seed == 2) continue;
      const std::size_t rows = 5, cols = 70;  // 70 = 2 full blocks of 32 and a short one of 6
      auto x = random_matrix(rows * cols, seed, seed == 3 ? 60 : 6);
      for (std::size_t c = 0; c < 32; ++c) x[2 * cols + c] = 0.0f;  // an all-zero block
      x[3 * cols + 1] = -0.0f;
      // Row 4's first block: exact ties. Each element is a midpoint (1 + (2i + 1) / 2^(f + 1)) * 2^j
      // with j in {-2, -1, 0}, so amax < 2 puts the scale at 2^-emax and each scaled element is a
      // midpoint between two normal values, where nearest-even picks the even encoding (or, above the
      // largest value, e.g. E4M3's 448 and E2M1's 6, is clamped to it).
      const int f = k.elem.f;
      for (std::size_t c = 0; c < 32; ++c) {
        const int i = static_cast<int>(c) % (1 << f), j = -static_cast<int>(c % 3);
        x[4 * cols + c] = static_cast<float>((c % 2 ? -1 : 1) * std::ldexp(1.0 + (2 * i + 1) / std::ldexp(1.0, f + 1), j));
      }
      const auto q = lf::mx_quantize(x, rows, cols, *k.fmt);
      check_ocp(k, x, rows, cols, q);
    }
  }
}

TEST_CASE("MX round-up rule: the smallest power-of-two scale with which nothing overflows") {
  lf::block_format f = lf::mxfp4;
  f.rule = lf::scale_rule::round_up;
  const auto x = random_matrix(4 * 64, 11, 20);
  const auto q = lf::mx_quantize(x, 4, 64, f);
  const cpp_rational mx = max_of(e2m1);  // 6
  for (std::size_t b = 0; b < 8; ++b) {
    cpp_rational amax = 0;
    for (std::size_t i = b * 32; i < b * 32 + 32; ++i) amax = std::max(amax, cpp_rational(abs(exact(x[i]))));
    int k = -127;
    while (mx * pow2(k) < amax) ++k;  // the smallest k with amax <= 6 * 2^k
    CHECK(int(q.scales[b]) == k + 127);
    for (std::size_t i = b * 32; i < b * 32 + 32; ++i) CHECK(unsigned(q.elements[i]) == nearest(e2m1, exact(x[i]) / pow2(k)));
  }
  CHECK(!lf::has(q.flags, lf::status::overflow));
}

TEST_CASE("NVFP4: tensor scale, E4M3 block scales and E2M1 elements, 1x16 and 16x16 blocks") {
  const std::size_t rows = 32, cols = 48;
  const auto x = random_matrix(rows * cols, 5, 12);
  for (const auto layout : {lf::block_layout::rows_1d, lf::block_layout::tiles_2d}) {
    const auto q = lf::mx_quantize(x, rows, cols, lf::nvfp4, lf::env{lf::rounding::nearest_even,
                                                                     lf::policy{{}, {}, {}, lf::overflow_policy::saturate}},
                                   layout);
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    const float T = amax / 2688.0f;  // 6 * 448; one binary32 division, nearest even (IEEE hardware)
    CHECK(q.tensor_scale == T);
    const bool tiles = layout == lf::block_layout::tiles_2d;
    const std::size_t bc = cols / 16, br = tiles ? rows / 16 : rows;
    for (std::size_t bi = 0; bi < br; ++bi)
      for (std::size_t bj = 0; bj < bc; ++bj) {
        std::vector<std::size_t> members;
        for (std::size_t r = tiles ? bi * 16 : bi; r < (tiles ? bi * 16 + 16 : bi + 1); ++r)
          for (std::size_t c = bj * 16; c < bj * 16 + 16; ++c) members.push_back(r * cols + c);
        cpp_rational am = 0;
        for (auto i : members) am = std::max(am, cpp_rational(abs(exact(x[i]))));
        const unsigned s = nearest(e4m3, am / (6 * exact(T)));
        INFO("block ", bi, ",", bj);
        REQUIRE(unsigned(q.scales[bi * bc + bj]) == s);
        const cpp_rational d = *value_of(e4m3, s) * exact(T);
        for (auto i : members) REQUIRE(unsigned(q.elements[i]) == (d == 0 ? 0u : nearest(e2m1, exact(x[i]) / d)));
      }
  }
}

TEST_CASE("a NaN or infinity gives its block a NaN scale and NaN values; the other blocks are untouched") {
  std::vector<float> x(64, 1.5f);
  x[40] = std::numeric_limits<float>::infinity();
  const auto q = lf::mx_quantize(x, 1, 64, lf::mxfp8_e4m3);
  CHECK(q.scales[0] == 127 - 8);  // floor(log2 1.5) - 8 = -8
  CHECK(q.scales[1] == 0xFF);
  CHECK(lf::has(q.flags, lf::status::invalid));
  std::vector<float> out(64);
  lf::mx_dequantize(q, out);
  CHECK(out[0] == 1.5f);
  CHECK(std::isnan(out[33]));
}

TEST_CASE("dequantize and the exact block dot product equal the model's values") {
  const auto a = random_matrix(96, 21, 8), b = random_matrix(96, 22, 8);
  for (const auto* f : {&lf::mxfp8_e4m3, &lf::mxfp4, &lf::nvfp4}) {
    const auto qa = lf::mx_quantize(a, 1, 96, *f), qb = lf::mx_quantize(b, 1, 96, *f);
    const spec es = f->element == lf::float4_e2m1fn ? e2m1 : e4m3;
    const spec ss = f->scale == lf::float8_e8m0fnu ? e8m0 : e4m3;
    auto model_value = [&](const lf::block_quantized& q, std::size_t i) {
      return *value_of(es, q.elements[i]) * *value_of(ss, q.scales[i / f->block]) * exact(q.tensor_scale);
    };
    std::vector<float> out(96);
    lf::mx_dequantize(qa, out);
    cpp_rational dot = 0;
    for (std::size_t i = 0; i < 96; ++i) {
      // An MX value (<= 4 significant bits times a power of two) is a float; an NVFP4 one (up to 30
      // bits with the binary32 tensor scale) is exact in double and rounded to float by the cast.
      const double v = model_value(qa, i).convert_to<double>();
      CHECK(exact(v) == model_value(qa, i));
      CHECK(out[i] == static_cast<float>(v));
      CHECK(lf::mx_value(qa, i) == v);
      dot += model_value(qa, i) * model_value(qb, i);
    }
    const auto acc = lf::exact_block_dot(qa, qb);
    lf::status st{};
    const double got = std::bit_cast<double>(acc.round_to(lf::binary64, lf::env{lf::rounding::toward_zero}, st));
    const double got_up = std::bit_cast<double>(acc.round_to(lf::binary64, lf::env{lf::rounding::upward}, st));
    CHECK(exact(got) <= dot);
    CHECK(dot <= exact(got_up));
    CHECK((got == got_up) == (exact(got) == dot));
  }
}

TEST_CASE("stochastic rounding of elements: one of the two neighbours, reproducible from the seed") {
  const auto x = random_matrix(512, 31, 4);
  lf::stochastic_source s1{7}, s2{7};
  const auto q1 = lf::mx_quantize(x, 16, 32, lf::nvfp4, s1);
  const auto q2 = lf::mx_quantize(x, 16, 32, lf::nvfp4, s2);
  CHECK(q1.elements == q2.elements);
  CHECK(s1.position == 512);
  int differs = 0;
  const auto qn = lf::mx_quantize(x, 16, 32, lf::nvfp4);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const cpp_rational d = *value_of(e4m3, q1.scales[i / 16]) * exact(q1.tensor_scale);
    const cpp_rational v = exact(x[i]) / d;
    const cpp_rational got = *value_of(e2m1, q1.elements[i]);
    // got is the largest value <= v or the smallest >= v (clamped at 6)
    cpp_rational below = -7, above = 7;
    for (unsigned c = 0; c < 16; ++c) {
      const cpp_rational w = *value_of(e2m1, c);
      if (w <= v && w > below) below = w;
      if (w >= v && w < above) above = w;
    }
    if (above == 7) above = 6;
    if (below == -7) below = -6;
    CHECK((got == below || got == above));
    differs += q1.elements[i] != qn.elements[i];
  }
  CHECK(differs > 0);
}

TEST_CASE("elements in every deterministic mode: toward zero, upward, downward, nearest away, odd (MX and NVFP4)") {
  // The scales do not depend on the elements' mode (the OCP floor rule reads amax's exponent, NVFP4
  // rounds amax / (6 T) to nearest even); each element is x / scale rounded in the mode, clamped.
  const lf::policy sat{{}, {}, {}, lf::overflow_policy::saturate};
  const lf::rounding modes[] = {lf::rounding::toward_zero, lf::rounding::upward, lf::rounding::downward,
                                lf::rounding::nearest_away, lf::rounding::odd};
  const std::size_t rows = 4, cols = 64;
  const auto x = random_matrix(rows * cols, 43, 8);
  for (const lf::rounding mode : modes) {
    CAPTURE(lf::rounding_name(mode));
    for (const auto& k : {mx_cases[0], mx_cases[2], mx_cases[4]}) {  // E4M3, E3M2, E2M1 elements
      const auto q = lf::mx_quantize(x, rows, cols, *k.fmt, lf::env{mode, sat});
      const auto qn = lf::mx_quantize(x, rows, cols, *k.fmt, lf::env{lf::rounding::nearest_even, sat});
      CHECK(q.scales == qn.scales);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const cpp_rational v = exact(x[i]) / pow2(static_cast<int>(q.scales[i / 32]) - 127);
        INFO(k.fmt->name, " element ", i, " x ", x[i]);
        REQUIRE(unsigned(q.elements[i]) == rounded(k.elem, v, mode));
      }
    }
    const auto q = lf::mx_quantize(x, rows, cols, lf::nvfp4, lf::env{mode, sat});
    for (std::size_t b = 0; b < x.size() / 16; ++b) {
      cpp_rational am = 0;
      for (std::size_t i = b * 16; i < b * 16 + 16; ++i) am = std::max(am, cpp_rational(abs(exact(x[i]))));
      INFO("nvfp4 block ", b);
      REQUIRE(unsigned(q.scales[b]) == nearest(e4m3, am / (6 * exact(q.tensor_scale))));
      const cpp_rational d = *value_of(e4m3, q.scales[b]) * exact(q.tensor_scale);
      for (std::size_t i = b * 16; i < b * 16 + 16; ++i) {
        INFO("element ", i, " x ", x[i]);
        REQUIRE(unsigned(q.elements[i]) == rounded(e2m1, exact(x[i]) / d, mode));
      }
    }
  }
}

TEST_CASE("pack and unpack: FP4 two per byte (element 2k in the low nibble), FP6 four per three bytes") {
  const std::vector<std::uint8_t> fp4{0x1, 0x2, 0xF, 0x8, 0x7};
  const auto p4 = lf::pack(fp4, 4);
  CHECK(p4 == std::vector<std::uint8_t>{0x21, 0x8F, 0x07});
  CHECK(lf::unpack(p4, 4, fp4.size()) == fp4);
  const std::vector<std::uint8_t> fp6{0x3F, 0x01, 0x2A, 0x15};
  // 24-bit little-endian word: 0x15 << 18 | 0x2A << 12 | 0x01 << 6 | 0x3F = 0x56A07F
  const auto p6 = lf::pack(fp6, 6);
  CHECK(p6 == std::vector<std::uint8_t>{0x7F, 0xA0, 0x56});
  CHECK(lf::unpack(p6, 6, 4) == fp6);
  CHECK_THROWS_AS((void)lf::pack(std::vector<std::uint8_t>{0x40}, 6), std::invalid_argument);
  CHECK_THROWS_AS((void)lf::unpack(p6, 6, 5), std::invalid_argument);
}

TEST_CASE("bad shapes are errors that name what was wrong") {
  std::vector<float> x(10, 1.0f);
  CHECK_THROWS_WITH_AS((void)lf::mx_quantize(x, 3, 4, lf::mxfp4),
                       "lf::mx_quantize: 10 values do not fill a 3 x 4 matrix", std::invalid_argument);
  lf::stochastic_source src{1};
  CHECK_THROWS_AS((void)lf::mx_quantize(x, 1, 10, lf::mxfp4, lf::env{lf::rounding::stochastic}), std::invalid_argument);
  (void)src;
}
