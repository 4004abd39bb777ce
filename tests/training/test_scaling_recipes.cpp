// training/scaling_recipes.hpp: every recipe against a model written here from the sources, sharing
// no code with the library's rounding:
//   - each element format's values listed from its spec parameters (sign, exponent, fraction, bias;
//     OCP FP8 v1.0, OCP MX v1.0 §5), the nearest value found by exact rational comparison over that
//     list (ties to the even encoding; past the largest value the rounding overflows and the result
//     clamps to max, as a saturating conversion does);
//   - binary32 rounding of a rational (the scales) by integer division, nearest even;
//   - TE's scale rules, DelayedScaling's history and margin, DeepSeek-V3's tiles, the MX scale rules
//     and NVFP4's two-level scale restated from the papers and from TE's code;
//   - the Hadamard matrix by Sylvester's recursion and SplitMix64 restated from its paper;
//   - every statistic (zero, saturated, inexact, exact, the errors) recounted from the model.
#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <libfloat/training/scaling_recipes.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace tr = lf::training;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

cpp_rational pow2(int k) { return k >= 0 ? cpp_rational(cpp_int(1) << k) : cpp_rational(1, cpp_int(1) << -k); }

/// The exact value of a finite double.
cpp_rational exact(double v) {
  if (v == 0) return 0;
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  return cpp_rational(static_cast<long long>(std::ldexp(m, 53))) * pow2(e - 53);
}

/// A rational as the nearest double (for errors; the values compared exactly stay rationals).
double approx(const cpp_rational& q) { return q.convert_to<double>(); }

/// floor(log2 q) for q > 0.
int floor_log2(const cpp_rational& q) {
  int e = static_cast<int>(msb(numerator(q))) - static_cast<int>(msb(denominator(q)));
  while (pow2(e) > q) --e;
  while (pow2(e + 1) <= q) ++e;
  return e;
}

/// q > 0 rounded to nearest even binary32 (normal range only, as every scale here is).
float rn32(const cpp_rational& q) {
  int e = floor_log2(q);
  REQUIRE(e >= -126);
  REQUIRE(e <= 127);
  const cpp_rational m = q / pow2(e - 23);  // in [2^23, 2^24)
  cpp_int n = numerator(m) / denominator(m);
  const cpp_rational rem = m - cpp_rational(n);
  if (rem > cpp_rational(1, 2) || (rem == cpp_rational(1, 2) && (n & 1) != 0)) ++n;
  return static_cast<float>(std::ldexp(n.convert_to<double>(), e - 23));
}

// ---- the element formats from their parameters --------------------------------------------------

/// w exponent bits, f fraction bits, bias; ieee: the all-ones exponent is infinity/NaN (E5M2);
/// fn: only S.1111.111 is NaN (E4M3); finite: every encoding is a number (E2M1).
struct spec {
  int w, f, bias;
  enum { ieee, fn, finite } kind;
  unsigned sign_bit() const { return 1u << (w + f); }
};
constexpr spec e4m3{4, 3, 7, spec::fn}, e5m2{5, 2, 15, spec::ieee}, e2m1{2, 1, 1, spec::finite};

struct point {
  cpp_rational v;
  unsigned code;
};

/// Every finite value >= 0 in encoding order, then one more: the next value of the top binade as
/// if the exponent range went on (E4M3 480, E5M2 65536, E2M1 8), with the code it would have, so
/// that a tie with max goes to the even code as IEEE 754-2019 §7.4's unbounded rounding does.
std::vector<point> grid(const spec& s) {
  std::vector<point> g;
  const unsigned ones = (1u << s.w) - 1, fmask = (1u << s.f) - 1;
  unsigned code = 0;
  for (; code < s.sign_bit(); ++code) {
    const unsigned e = code >> s.f, m = code & fmask;
    if (s.kind == spec::ieee && e == ones) break;
    if (s.kind == spec::fn && e == ones && m == fmask) break;
    g.push_back({e == 0 ? cpp_rational(m) * pow2(1 - s.bias - s.f)
                        : cpp_rational((1u << s.f) + m) * pow2(static_cast<int>(e) - s.bias - s.f),
                 code});
  }
  const unsigned last = g.back().code, e = last >> s.f, m = last & fmask;
  g.push_back({cpp_rational((1u << s.f) + m + 1) * pow2(static_cast<int>(e) - s.bias - s.f), code});
  return g;
}

cpp_rational max_of(const spec& s) { return grid(s)[grid(s).size() - 2].v; }

struct rounded {
  unsigned code;
  cpp_rational value;
  bool overflow;
};

/// t rounded to nearest even into s, saturating: an overflow gives +-max.
rounded nearest(const spec& s, const cpp_rational& t) {
  static thread_local std::vector<std::pair<const spec*, std::vector<point>>> cache;
  const std::vector<point>* gp = nullptr;
  for (auto& [k, g] : cache)
    if (k == &s) gp = &g;
  if (!gp) gp = &cache.emplace_back(&s, grid(s)).second;
  const std::vector<point>& g = *gp;
  const bool neg = t < 0;
  const cpp_rational a = neg ? cpp_rational(-t) : t;
  std::size_t pick = g.size() - 1;  // beyond the virtual point: overflow
  // The first grid point above a, by bisection with exact comparisons (g ascends from 0 <= a).
  const auto above = std::partition_point(g.begin(), g.end(), [&](const point& p) { return p.v <= a; });
  if (above != g.end()) {
    const std::size_t i = static_cast<std::size_t>(above - g.begin()) - 1;
    const cpp_rational d_lo = a - g[i].v, d_hi = g[i + 1].v - a;
    pick = d_lo < d_hi ? i : d_hi < d_lo ? i + 1 : (g[i].code % 2 == 0 ? i : i + 1);
  }
  const bool overflow = pick == g.size() - 1;
  if (overflow) pick = g.size() - 2;
  return {g[pick].code | (neg ? s.sign_bit() : 0u), neg ? cpp_rational(-g[pick].v) : g[pick].v, overflow};
}

/// The two grid values around |t| (for stochastic rounding): the result must be one of them, the
/// upper one clamped to max.
std::pair<cpp_rational, cpp_rational> neighbours(const spec& s, const cpp_rational& t) {
  const std::vector<point> g = grid(s);
  const cpp_rational a = t < 0 ? cpp_rational(-t) : t;
  for (std::size_t i = 0; i + 1 < g.size(); ++i)
    if (a < g[i + 1].v) return {g[i].v, i + 2 == g.size() ? g[i].v : g[i + 1].v};
  return {g[g.size() - 2].v, g[g.size() - 2].v};
}

// ---- statistics recounted -------------------------------------------------------------------------

/// One element as the model sees it: the input x, its exact decoded value, whether it overflowed.
struct model_elem {
  float x;
  cpp_rational value;
  bool overflow;
};

void check_stats(const tr::recipe_stats& s, const std::vector<model_elem>& m) {
  std::uint64_t zero = 0, sat = 0, exact_n = 0, inexact = 0, zeros_in = 0, nonzero = 0;
  double max_abs = 0, max_rel = 0, sq_abs = 0, sq_rel = 0;
  for (const model_elem& e : m) {
    const cpp_rational x = exact(e.x);
    if (e.overflow) ++sat;
    else if (x != 0 && e.value == 0) ++zero;
    else if (e.value == x) ++exact_n, zeros_in += x == 0;
    else ++inexact;
    const cpp_rational d = e.value > x ? cpp_rational(e.value - x) : cpp_rational(x - e.value);
    max_abs = std::max(max_abs, approx(d));
    sq_abs += approx(d) * approx(d);
    if (x == 0) continue;
    ++nonzero;
    const double rel = approx(d / (x < 0 ? cpp_rational(-x) : x));
    max_rel = std::max(max_rel, rel);
    sq_rel += rel * rel;
  }
  CHECK(s.values == m.size());
  CHECK(s.nonfinite == 0);
  CHECK(s.nan_block == 0);
  CHECK(s.zero == zero);
  CHECK(s.saturated == sat);
  CHECK(s.exact == exact_n);
  CHECK(s.inexact == inexact);
  CHECK(s.zero_inputs == zeros_in);
  // The library computes in double; relative agreement to 1e-9 (doctest's Approx would also accept
  // any absolute difference below 1e-9, which says nothing about errors of 2^-40).
  auto close = [](double got, double want) { return std::fabs(got - want) <= 1e-9 * std::max(std::fabs(got), std::fabs(want)); };
  CHECK(close(s.max_abs_error, max_abs));
  CHECK(close(s.max_rel_error, max_rel));
  CHECK(close(s.rms_abs_error(), std::sqrt(sq_abs / static_cast<double>(m.size()))));
  CHECK(close(s.rms_rel_error(), nonzero ? std::sqrt(sq_rel / static_cast<double>(nonzero)) : 0.0));
}

/// n floats with random signs, exponents in [emin, emax] and 24-bit significands; about
/// zero_percent of them zero.
std::vector<float> wide_values(std::size_t n, unsigned seed, int emin, int emax, unsigned zero_percent = 3) {
  std::mt19937 g(seed);
  std::vector<float> v(n);
  for (float& x : v) {
    if (g() % 100 < zero_percent) continue;
    const double sig = 1.0 + static_cast<double>(g() & 0x7FFFFF) * 0x1p-23;
    x = static_cast<float>(std::ldexp(g() % 2 ? -sig : sig, emin + static_cast<int>(g() % static_cast<unsigned>(emax - emin + 1))));
  }
  return v;
}

float amax_of(std::span<const float> x) {
  float m = 0;
  for (float v : x) m = std::max(m, std::fabs(v));
  return m;
}

/// The FP8 recipes' elements: x * scale rounded into s; the decoded value is that / scale.
std::vector<model_elem> fp8_model(const tr::recipe_result& r, std::span<const float> x, const spec& s,
                                  const std::vector<float>& block_scale) {
  std::vector<model_elem> m;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float sc = block_scale[r.block_of(i / r.cols, i % r.cols)];
    const rounded q = nearest(s, exact(x[i]) * exact(sc));
    CHECK_MESSAGE(r.codes[i] == q.code, "element ", i, " x = ", x[i], " scale ", sc);
    m.push_back({x[i], q.value / exact(sc), q.overflow});
  }
  return m;
}

}  // namespace

TEST_CASE("the model's grids match the specs' tables") {
  CHECK(max_of(e4m3) == 448);
  CHECK(max_of(e5m2) == 57344);
  CHECK(max_of(e2m1) == 6);
  CHECK(grid(e2m1).size() == 9);  // 0, 0.5, 1, 1.5, 2, 3, 4, 6 and the virtual 8
  CHECK(nearest(e4m3, 464).code == 0x7E);          // the tie goes to 448 (even), no overflow
  CHECK_FALSE(nearest(e4m3, 464).overflow);
  CHECK(nearest(e4m3, cpp_rational(465)).overflow);
  CHECK(nearest(e5m2, 61440).overflow);            // the tie goes up to 2^16: overflow
  CHECK(nearest(e2m1, 7).overflow);
  CHECK(nearest(e2m1, cpp_rational(-5)).code == 0xE);  // -4 / -6 tie: to the even code -4 (0b1110)
}

TEST_CASE("scale_from_amax follows TE's compute_scale_from_amax") {
  CHECK(tr::scale_from_amax(0.0f, 448.0f) == 1.0f);
  CHECK(tr::scale_from_amax(INFINITY, 448.0f) == 1.0f);
  CHECK(tr::scale_from_amax(NAN, 448.0f) == 1.0f);
  CHECK(tr::scale_from_amax(3.0f, 448.0f) == rn32(cpp_rational(448, 3)));
  CHECK(tr::scale_from_amax(3.0f, 448.0f, true) == 128.0f);  // 149.33 rounded down to a power of two
  CHECK(tr::scale_from_amax(1e-40f, 448.0f) == std::numeric_limits<float>::max());  // overflow: FLT_MAX
  for (float a : wide_values(200, 11, -100, 100, 0)) {
    const float f = std::fabs(a);
    CHECK(tr::scale_from_amax(f, 57344.0f) == rn32(cpp_rational(57344) / exact(f)));
  }
}

TEST_CASE("fp8-current: one scale fp8_max / amax, each element one saturating rounding") {
  const std::vector<float> x = wide_values(4 * 64, 1, -40, 8);
  for (const auto& [fmt, s] : {std::pair{lf::float8_e4m3fn, &e4m3}, std::pair{lf::float8_e5m2, &e5m2}}) {
    CAPTURE(lf::format_name(fmt));
    const tr::recipe_result r = tr::fp8_current_scaling(x, 4, 64, fmt);
    const float sc = rn32(max_of(*s) / exact(amax_of(x)));
    REQUIRE(r.block_count() == 1);
    CHECK(r.scales[0] == sc);
    const std::vector<model_elem> m = fp8_model(r, x, *s, {sc});
    check_stats(r.stats, m);
    CHECK(r.stats.min_scale == sc);
    CHECK(r.stats.max_scale == sc);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(r.value(i) == approx(m[i].value));
  }
  // With the format HYBRID gives gradients.
  CHECK(tr::fp8_format_for(tr::fp8_format_choice::hybrid, tr::tensor_role::gradient) == lf::float8_e5m2);
  CHECK(tr::fp8_format_for(tr::fp8_format_choice::hybrid, tr::tensor_role::activation) == lf::float8_e4m3fn);
  CHECK(tr::fp8_format_for(tr::fp8_format_choice::e4m3, tr::tensor_role::gradient) == lf::float8_e4m3fn);
  CHECK_THROWS_AS(tr::fp8_current_scaling(x, 3, 64), std::invalid_argument);
}

TEST_CASE("fp8 rounding: ties go to the even encoding, 464 is not an overflow in E4M3") {
  // Delayed scaling's first step has scale 1, so each x is rounded as it is. Midpoints: 464 (448 |
  // 480), 1.0625 (1 | 1.125), 1.1875 (1.125 | 1.25), 2^-10 (0 | 2^-9, the smallest subnormal),
  // 3 * 2^-10 (2^-9 | 2^-8).
  const std::vector<float> x{448, 464, 1.0625f, -1.1875f, 0x1p-10f, 3 * 0x1p-10f};
  tr::fp8_delayed_scaling d;
  const tr::recipe_result r = d.step(x, 1, 6);
  CHECK(r.scales[0] == 1.0);
  CHECK(r.codes == std::vector<std::uint8_t>{0x7E, 0x7E, 0x38, 0xBA, 0x00, 0x02});
  check_stats(r.stats, fp8_model(r, x, e4m3, {1.0f}));
  CHECK(r.stats.saturated == 0);
  CHECK(r.stats.zero == 1);
}

TEST_CASE("fp8-delayed: history, margin and the first step's scale 1, by hand") {
  // E4M3, margin 1 (scaled max 224), history of 2. Steps' amaxes 2, 8, 1, 0.5.
  const std::vector<float> s1{2, -0.5f, 1}, s2{8, 1, -3}, s3{1, 0.25f, 0}, s4{0.5f};
  SUBCASE("max over the history") {
    tr::fp8_delayed_scaling d({lf::float8_e4m3fn, 2, tr::amax_algo::max, 1});
    CHECK(d.scale() == 1.0f);
    const tr::recipe_result r1 = d.step(s1, 1, 3);
    CHECK(r1.scales[0] == 1.0);            // empty history: TE's initial scale
    CHECK(d.scale() == 112.0f);            // 224 / 2
    const tr::recipe_result r2 = d.step(s2, 1, 3);
    CHECK(r2.scales[0] == 112.0);
    CHECK(r2.stats.saturated == 1);        // 8 * 112 = 896 > 464: clamped to 448
    CHECK(r2.codes[0] == 0x7E);
    CHECK(r2.value(0) == 4.0);             // 448 / 112
    CHECK(d.amax_history() == std::vector<float>{8, 2});
    CHECK(d.scale() == 28.0f);             // 224 / max(8, 2)
    d.step(s3, 1, 3);
    CHECK(d.amax_history() == std::vector<float>{1, 8});
    CHECK(d.scale() == 28.0f);             // max(1, 8) = 8 still
    d.step(s4, 1, 1);
    CHECK(d.amax_history() == std::vector<float>{0.5f, 1});  // 8 left the window of 2
    CHECK(d.scale() == 224.0f);
    CHECK(d.saturated_steps() == std::vector<std::size_t>{2});
    REQUIRE(d.steps().size() == 4);
    CHECK(d.steps()[2].scale == 28.0f);
    CHECK(d.steps()[2].amax == 1.0f);
  }
  SUBCASE("most recent") {
    tr::fp8_delayed_scaling d({lf::float8_e4m3fn, 2, tr::amax_algo::most_recent, 1});
    d.step(s1, 1, 3);
    CHECK(d.scale() == 112.0f);
    d.step(s2, 1, 3);
    CHECK(d.scale() == 28.0f);
    d.step(s3, 1, 3);
    CHECK(d.scale() == 224.0f);  // 224 / 1
    d.step(s4, 1, 1);
    CHECK(d.scale() == 448.0f);  // 224 / 0.5
    CHECK(d.saturated_steps() == std::vector<std::size_t>{2});
  }
  SUBCASE("a zero tensor keeps the scale; E5M2 and a quotient that rounds") {
    tr::fp8_delayed_scaling d({lf::float8_e5m2, 1024, tr::amax_algo::most_recent, 0});
    const std::vector<float> a{3, -1}, zero{0, 0}, b{0.1f, 1e-6f};
    d.step(a, 1, 2);
    const float sc = rn32(cpp_rational(57344, 3));
    CHECK(d.scale() == sc);
    const tr::recipe_result rz = d.step(zero, 1, 2);
    CHECK(rz.stats.exact == 2);
    CHECK(d.scale() == sc);  // amax 0: the scale stays
    const tr::recipe_result rb = d.step(b, 1, 2);
    check_stats(rb.stats, fp8_model(rb, b, e5m2, {sc}));
  }
  SUBCASE("run: steps stacked along the rows") {
    std::vector<float> all;
    for (const auto* s : {&s1, &s2, &s3}) all.insert(all.end(), s->begin(), s->end());
    tr::fp8_delayed_scaling one({lf::float8_e4m3fn, 2, tr::amax_algo::max, 1}), each = one;
    const tr::recipe_result r = one.run(all, 3, 3, 3);
    CHECK(r.block_count() == 3);
    CHECK(r.scales == std::vector<double>{1, 112, 28});
    std::vector<model_elem> m;
    const std::vector<model_elem> m1 = fp8_model(each.step(s1, 1, 3), s1, e4m3, {1}),
                                  m2 = fp8_model(each.step(s2, 1, 3), s2, e4m3, {112}),
                                  m3 = fp8_model(each.step(s3, 1, 3), s3, e4m3, {28});
    for (const auto* v : {&m1, &m2, &m3}) m.insert(m.end(), v->begin(), v->end());
    check_stats(r.stats, m);
    CHECK(r.stats.min_scale == 1);
    CHECK(r.stats.max_scale == 112);
    CHECK_THROWS_AS(one.run(all, 3, 3, 2), std::invalid_argument);
  }
  CHECK_THROWS_AS(tr::fp8_delayed_scaling({lf::float8_e4m3fn, 0}), std::invalid_argument);
}

TEST_CASE("fp8-blockwise: 1x128 tiles and 128x128 blocks, a scale per block (DeepSeek-V3)") {
  for (const bool pow2_scales : {false, true}) {
    CAPTURE(pow2_scales);
    // Activations: 3 rows of 300 = tiles of 128, 128 and 44 per row.
    const std::vector<float> a = wide_values(3 * 300, 2, -30, 6);
    const tr::recipe_result r = tr::fp8_blockwise_scaling(a, 3, 300, tr::tensor_role::activation, pow2_scales);
    REQUIRE(r.block_count() == 9);
    CHECK(r.tile_rows == 1);
    CHECK(r.tile_cols == 128);
    std::vector<float> sc;
    for (std::size_t row = 0; row < 3; ++row)
      for (std::size_t c0 = 0; c0 < 300; c0 += 128) {
        const std::size_t len = std::min<std::size_t>(128, 300 - c0);
        float s = rn32(cpp_rational(448) / exact(amax_of(std::span(a).subspan(row * 300 + c0, len))));
        if (pow2_scales) s = std::ldexp(1.0f, floor_log2(exact(s)));
        sc.push_back(s);
      }
    for (std::size_t b = 0; b < 9; ++b) CHECK(r.scales[b] == sc[b]);
    check_stats(r.stats, fp8_model(r, a, e4m3, sc));
    // Weights: 200 x 150 = 2 x 2 blocks of up to 128 x 128 (under AddressSanitizer 129 x 131, also
    // 2 x 2 blocks with short ones at the edges: the model costs a cpp_rational rounding per element).
    const std::size_t wr = test_sanitizer::under_asan ? 129 : 200, wc = test_sanitizer::under_asan ? 131 : 150;
    const std::vector<float> w = wide_values(wr * wc, 3, -20, 2);
    const tr::recipe_result rw = tr::fp8_blockwise_scaling(w, wr, wc, tr::tensor_role::weight, pow2_scales);
    REQUIRE(rw.block_count() == 4);
    std::vector<float> amax(4, 0.0f);
    for (std::size_t i = 0; i < w.size(); ++i) {
      float& m = amax[(i / wc / 128) * 2 + (i % wc) / 128];
      m = std::max(m, std::fabs(w[i]));
    }
    std::vector<float> scw;
    for (float m : amax) {
      float s = rn32(cpp_rational(448) / exact(m));
      if (pow2_scales) s = std::ldexp(1.0f, floor_log2(exact(s)));
      scw.push_back(s);
    }
    for (std::size_t b = 0; b < 4; ++b) CHECK(rw.scales[b] == scw[b]);
    check_stats(rw.stats, fp8_model(rw, w, e4m3, scw));
  }
}

TEST_CASE("mxfp8: E8M0 scales per 32, rounded up (NVIDIA) or floored (OCP MX)") {
  const std::vector<float> x = wide_values(2 * 100, 4, -60, 30, 0);  // blocks of 32, 32, 32, 4 per row
  for (const lf::scale_rule rule : {lf::scale_rule::round_up, lf::scale_rule::ocp_floor}) {
    const bool up = rule == lf::scale_rule::round_up;
    CAPTURE(up);
    const tr::recipe_result r = tr::mxfp8_scaling(x, 2, 100, rule);
    REQUIRE(r.block_count() == 8);
    std::vector<model_elem> m;
    for (std::size_t b = 0; b < 8; ++b) {
      const std::size_t row = b / 4, c0 = (b % 4) * 32, len = std::min<std::size_t>(32, 100 - c0);
      const cpp_rational amax = exact(amax_of(std::span(x).subspan(row * 100 + c0, len)));
      // round up: the smallest 2^k with 448 * 2^k >= amax; OCP: 2^(floor(log2 amax) - emax), emax 8.
      int k = floor_log2(amax) - 8;
      if (up)
        while (448 * pow2(k) < amax) ++k;
      CHECK(r.scales[b] == std::ldexp(1.0, -k));
      CHECK(r.block_scaled->scales[b] == k + 127);  // E8M0: bias 127
      for (std::size_t c = c0; c < c0 + len; ++c) {
        const float v = x[row * 100 + c];
        const rounded q = nearest(e4m3, exact(v) / pow2(k));
        CHECK(r.codes[row * 100 + c] == q.code);
        m.push_back({v, q.value * pow2(k), q.overflow});
      }
    }
    check_stats(r.stats, m);
    if (up) CHECK(r.stats.saturated == 0);  // the point of rounding up
  }
}

TEST_CASE("nvfp4: a binary32 tensor scale, E4M3 block scales, E2M1 elements (nearest even)") {
  struct shape {
    std::size_t rows, cols, tile_rows;
    tr::tensor_role role;
  };
  for (const shape sh : {shape{3, 40, 1, tr::tensor_role::activation}, shape{32, 48, 16, tr::tensor_role::weight}}) {
    CAPTURE(tr::tensor_role_name(sh.role));
    const std::vector<float> x = wide_values(sh.rows * sh.cols, 5, -12, 4, 2);
    const tr::recipe_result r = tr::nvfp4_scaling(x, sh.rows, sh.cols, tr::nvfp4_options::for_role(sh.role));
    CHECK_FALSE(r.stochastic);
    CHECK(r.transformed.empty());
    CHECK(r.tile_rows == sh.tile_rows);
    CHECK(r.tile_cols == 16);
    // 1. T = amax / (6 * 448), one binary32 rounding.
    const cpp_rational T = exact(rn32(exact(amax_of(x)) / 2688));
    CHECK(exact(r.block_scaled->tensor_scale) == T);
    // 2. S per block: amax_b / (6 T) to nearest E4M3 (saturating); 3. x / (S T) to nearest E2M1.
    std::vector<float> amax(r.block_count(), 0.0f);
    for (std::size_t i = 0; i < x.size(); ++i) {
      float& a = amax[r.block_of(i / sh.cols, i % sh.cols)];
      a = std::max(a, std::fabs(x[i]));
    }
    std::vector<cpp_rational> S;
    for (std::size_t b = 0; b < amax.size(); ++b) {
      const rounded s = amax[b] == 0 ? rounded{0x08, pow2(-6), false} : nearest(e4m3, exact(amax[b]) / (6 * T));
      CHECK(r.block_scaled->scales[b] == s.code);
      S.push_back(s.value);
    }
    std::vector<model_elem> m;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const cpp_rational d = S[r.block_of(i / sh.cols, i % sh.cols)] * T;
      const rounded q = nearest(e2m1, exact(x[i]) / d);
      CHECK(r.codes[i] == q.code);
      CHECK(exact(r.value(i)) == q.value * d);
      m.push_back({x[i], q.value * d, q.overflow});
    }
    check_stats(r.stats, m);
  }
}

TEST_CASE("the random Hadamard transform: orthogonal, Sylvester's matrix, signs from the seed") {
  // SplitMix64 as Steele, Lea and Flood give it (the golden-gamma increment, then the mix).
  auto splitmix = [](std::uint64_t s) {
    std::uint64_t z = s + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // Sylvester: H_1 = [1], H_2n = [[H_n, H_n], [H_n, -H_n]].
  std::vector<std::vector<int>> H{{1}};
  while (H.size() < 16) {
    const std::size_t n = H.size();
    std::vector<std::vector<int>> next(2 * n, std::vector<int>(2 * n));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        next[i][j] = next[i][j + n] = next[i + n][j] = H[i][j];
        next[i + n][j + n] = -H[i][j];
      }
    H = next;
  }
  for (const std::uint64_t seed : {0ull, 1ull, 42ull, 0xFFFFFFFFull}) {
    CAPTURE(seed);
    const std::array<int, 16> s = tr::rht_signs(seed);
    for (int j = 0; j < 16; ++j) CHECK(s[static_cast<std::size_t>(j)] == ((splitmix(seed) >> j) & 1 ? -1 : 1));
    CHECK(tr::rht_signs(seed) == s);  // reproducible
    // The matrix M = D H / 4 applied to 2 rows of 40 (groups 0-15, 16-31; 32-39 left alone).
    std::mt19937 g(static_cast<unsigned>(seed));
    std::vector<double> x(80);
    for (double& v : x) v = std::ldexp(static_cast<double>(g() % 2000) - 1000.0, -9);
    const std::vector<double> y = tr::rht_apply(x, 2, 40, seed);
    for (std::size_t r = 0; r < 2; ++r)
      for (std::size_t grp = 0; grp < 2; ++grp)
        for (std::size_t i = 0; i < 16; ++i) {
          double want = 0;
          for (std::size_t j = 0; j < 16; ++j) want += s[i] * H[i][j] * x[r * 40 + grp * 16 + j] / 4.0;
          CHECK(std::fabs(y[r * 40 + grp * 16 + i] - want) <= 1e-12);
        }
    for (std::size_t r = 0; r < 2; ++r)
      for (std::size_t c = 32; c < 40; ++c) CHECK(y[r * 40 + c] == x[r * 40 + c]);
    // Orthogonal: the transpose undoes it.
    const std::vector<double> back = tr::rht_apply(y, 2, 40, seed, true);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::fabs(back[i] - x[i]) <= 1e-12);
    // Columns of M (M applied to unit vectors) are orthonormal.
    std::vector<std::vector<double>> col;
    for (std::size_t k = 0; k < 16; ++k) {
      std::vector<double> e(16, 0.0);
      e[k] = 1;
      col.push_back(tr::rht_apply(e, 1, 16, seed));
    }
    for (std::size_t a = 0; a < 16; ++a)
      for (std::size_t b = 0; b < 16; ++b) {
        double dot = 0;
        for (std::size_t i = 0; i < 16; ++i) dot += col[a][i] * col[b][i];
        CHECK(std::fabs(dot - (a == b ? 1.0 : 0.0)) <= 1e-15);
      }
    // The binary32 version is the double one rounded to nearest.
    const std::vector<float> xf(x.begin(), x.end());
    const std::vector<float> yf = tr::random_hadamard_transform(xf, 2, 40, seed);
    for (std::size_t i = 0; i < y.size(); ++i) CHECK(yf[i] == static_cast<float>(y[i]));
  }
  CHECK(tr::rht_signs(1) != tr::rht_signs(2));
}

TEST_CASE("nvfp4 gradients: RHT then stochastic rounding, reproducible, each value a neighbour") {
  const std::vector<float> x = wide_values(4 * 64, 6, -14, 3, 2);
  const tr::nvfp4_options o = tr::nvfp4_options::for_role(tr::tensor_role::gradient, 9);
  CHECK(o.stochastic);
  CHECK(o.hadamard);
  const tr::recipe_result r = tr::nvfp4_scaling(x, 4, 64, o);
  CHECK(r.stochastic);
  REQUIRE(r.transformed == tr::random_hadamard_transform(x, 4, 64, 9));
  const std::vector<float>& y = r.transformed;
  // Scales as with nearest even, from the transformed values.
  const cpp_rational T = exact(rn32(exact(amax_of(y)) / 2688));
  CHECK(exact(r.block_scaled->tensor_scale) == T);
  std::uint64_t zero = 0, exact_n = 0, inexact_or_sat = 0, beyond = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::size_t b = r.block_of(i / 64, i % 64);
    const cpp_rational S = nearest(e4m3, exact(amax_of(std::span(y).subspan(b * 16, 16))) / (6 * T)).value;
    const cpp_rational t = exact(y[i]) / (S * T);
    const auto [lo, hi] = neighbours(e2m1, t);
    const cpp_rational got = exact(r.value(i)) / (S * T);
    const cpp_rational mag = got < 0 ? cpp_rational(-got) : got;
    CHECK((mag == lo || mag == hi));
    CHECK((got == 0 || (got < 0) == (y[i] < 0)));
    if (y[i] != 0 && got == 0) ++zero;
    else if (got == t) ++exact_n;
    else ++inexact_or_sat;
    beyond += (t < 0 ? cpp_rational(-t) : t) > 6;
  }
  CHECK(r.stats.zero == zero);
  CHECK(r.stats.exact == exact_n);
  CHECK(r.stats.inexact + r.stats.saturated == inexact_or_sat);
  CHECK(r.stats.saturated <= beyond);
  // Same seed, same codes; another seed, other codes.
  CHECK(tr::nvfp4_scaling(x, 4, 64, o).codes == r.codes);
  CHECK(tr::nvfp4_scaling(x, 4, 64, tr::nvfp4_options::for_role(tr::tensor_role::gradient, 10)).codes != r.codes);
}

TEST_CASE("non-finite inputs are counted apart") {
  std::vector<float> x(64, 0.5f);
  x[3] = NAN;
  x[40] = -INFINITY;
  // Per tensor: amax is infinite, so TE's scale is 1; the two are in no class.
  const tr::recipe_result c = tr::fp8_current_scaling(x, 1, 64);
  CHECK(c.scales[0] == 1.0);
  CHECK(c.stats.nonfinite == 2);
  CHECK(c.stats.exact == 62);
  CHECK(c.stats.max_abs_error == 0);
  // MX: the blocks holding them have a NaN scale (OCP MX §6.3): their other 31 values each are lost.
  const tr::recipe_result m = tr::mxfp8_scaling(x, 1, 64);
  CHECK(m.stats.nonfinite == 2);
  CHECK(m.stats.nan_block == 62);
  CHECK(std::isnan(m.scales[0]));
  CHECK(m.stats.scaled_blocks == 0);
  CHECK(std::isnan(m.value(0)));
}

TEST_CASE("recipe_stats::merge combines like one tensor") {
  const std::vector<float> a = wide_values(128, 7, -20, 2), b = wide_values(96, 8, -20, 2);
  std::vector<float> ab(a);
  ab.insert(ab.end(), b.begin(), b.end());
  const tr::recipe_result ra = tr::fp8_blockwise_scaling(a, 1, 128, tr::tensor_role::gradient),
                          rb = tr::fp8_blockwise_scaling(b, 1, 96, tr::tensor_role::gradient),
                          rab = tr::fp8_blockwise_scaling(ab, 2, 112, tr::tensor_role::gradient);
  // (rab's tiles differ: only the counts that do not depend on the tiling are compared)
  tr::recipe_stats s = ra.stats;
  s.merge(rb.stats);
  CHECK(s.values == 224);
  CHECK(s.zero + s.saturated + s.inexact + s.exact == 224);
  CHECK(s.zero_inputs == rab.stats.zero_inputs);
  CHECK(s.max_rel_error == std::max(ra.stats.max_rel_error, rb.stats.max_rel_error));
  CHECK(s.sum_sq_rel_error == ra.stats.sum_sq_rel_error + rb.stats.sum_sq_rel_error);
  CHECK(s.min_scale == std::min(ra.stats.min_scale, rb.stats.min_scale));
  CHECK(s.scaled_blocks == 2);
}
