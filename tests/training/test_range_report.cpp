// training/range_report.hpp: the per-class counts, the exponent histogram and the scale recommendation,
// against things that share no code with the library:
//   - hand-derived round-to-nearest-even boundaries, compared in double (exact for these inputs),
//     over every binary16 and every bfloat16 encoding;
//   - the compiler's _Float16 conversion (F16C or libgcc) for the binary16 target;
//   - the exact-rational oracle (tests/support/oracle.hpp) in every deterministic direction, on
//     floats and doubles at and around every boundary of every target and scale;
//   - frexp / the oracle's floor_log2 for the histogram.
// Also: classify_scaled equals lf::convert's result (the core) as the header promises.
#include <libfloat/core/arith.hpp>
#include <libfloat/training/range_report.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../support/oracle.hpp"
#include "../support/oracle_mode.hpp"

namespace {

using lf::training::range_class;

struct named_target {
  lf::format fmt;        // the library's format
  oracle::target spec;   // the same format from the specifications' parameters
  const char* name;
};
const named_target targets[] = {
    {lf::binary16, oracle::binary16, "fp16"},
    {lf::bfloat16, oracle::bfloat16, "bf16"},
    {lf::float8_e4m3fn, oracle::e4m3, "e4m3"},
    {lf::float8_e5m2, oracle::e5m2, "e5m2"},
};
const int scale_log2s[] = {0, 3, 10, 16, -3};  // 1, 8, 2^10, 2^16, 1/8

/// The oracle's class of an exact value rounded to t in m.
range_class oracle_class(const oracle::exact& x, const oracle::target& t, oracle::mode m) {
  if (x.is_zero()) return range_class::exact_zero;
  if (x.is_inf()) return range_class::infinity;
  const oracle::result r = oracle::round(x, t, m);
  if (r.flags & oracle::flag::overflow) return range_class::overflow;
  const std::uint64_t mag = r.bits & ~t.sign_mask() & t.mask();
  if (mag == 0) return range_class::zero;
  if ((mag >> (t.p - 1)) == 0) return range_class::subnormal;
  return range_class::normal;
}

oracle::exact scaled(oracle::exact x, int k) {
  if (x.is_finite_nonzero()) x.exp += k;
  return x;
}

/// Round to nearest even by hand: v = |x| * S >= 0, exact in double. The boundaries follow from
/// the spec parameters (IEEE 754-2019 §4.3.1, §7.4):
///   nonzero   v > 2^(emin-p)            (half the smallest subnormal 2^(emin-p+1); the tie goes to 0)
///   normal    v >= 2^emin - 2^(emin-p)  (the midpoint below 2^emin; the tie goes to even 2^emin)
///   overflow  v >= max + ulp(max)/2     IEEE: 2^emax * (2 - 2^-p). Max has an odd last bit, so the
///                                       tie rounds (unbounded exponent, §7.4) up to 2^(emax+1).
///             v >  max + ulp(max)/2     no infinity (OCP E4M3): max S.1..1.1..10 has an even last
///                                       bit, the tie rounds to max itself (E4M3: 464 -> 448).
range_class rne_by_hand(double v, const oracle::target& t) {
  const double max = std::ldexp(static_cast<double>(t.max_sig()), t.emax - (t.p - 1));
  const double tie = max + std::ldexp(1.0, t.emax - t.p);
  if (v == 0) return range_class::exact_zero;
  if (t.nan_only ? v > tie : v >= tie) return range_class::overflow;
  if (v >= std::ldexp(1.0, t.emin) - std::ldexp(1.0, t.emin - t.p)) return range_class::normal;
  if (v > std::ldexp(1.0, t.emin - t.p)) return range_class::subnormal;
  return range_class::zero;
}

struct counts {
  std::array<std::uint64_t, 7> n{};
  void add(range_class c) { ++n[static_cast<std::size_t>(c)]; }
};

void check_report(const lf::training::range_report& r, const counts& want, const std::string& what) {
  INFO(what);
  CHECK(r.exact_zero == want.n[0]);
  CHECK(r.zero == want.n[1]);
  CHECK(r.subnormal == want.n[2]);
  CHECK(r.normal == want.n[3]);
  CHECK(r.overflow == want.n[4]);
  CHECK(r.nan == want.n[5]);
  CHECK(r.infinity == want.n[6]);
}

float f32(std::uint32_t b) { return std::bit_cast<float>(b); }

/// Floats at and around the magnitudes where some direction changes class, for target t at
/// scale 2^k, both signs: half and whole smallest subnormal, the largest subnormal and the
/// midpoint below 2^emin, 2^emin, max, max + ulp/2, 2^(emax+1), each +-3 float ulps.
std::vector<float> floats_near_boundaries(const oracle::target& t, int k, std::mt19937& gen) {
  const double max = std::ldexp(static_cast<double>(t.max_sig()), t.emax - (t.p - 1));
  const double points[] = {std::ldexp(1.0, t.emin - t.p),
                           std::ldexp(1.0, t.emin - t.p + 1),
                           std::ldexp(1.0, t.emin) - std::ldexp(1.0, t.emin - t.p + 1),
                           std::ldexp(1.0, t.emin) - std::ldexp(1.0, t.emin - t.p),
                           std::ldexp(1.0, t.emin),
                           max,
                           max + std::ldexp(1.0, t.emax - t.p),
                           max + std::ldexp(1.0, t.emax - t.p + 1),
                           std::ldexp(1.0, t.emax + 1)};
  std::vector<float> out;
  for (double p : points) {
    const auto centre = std::bit_cast<std::uint32_t>(static_cast<float>(std::ldexp(p, -k)));
    for (int d = -3; d <= 3; ++d)
      for (std::uint32_t sign : {0u, 0x80000000u}) out.push_back(f32((centre + static_cast<std::uint32_t>(d)) | sign));
  }
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 64; ++i) out.push_back(f32(any(gen)));
  return out;
}

}  // namespace

TEST_CASE("window_of: spec exponents (min subnormal, min normal, max)") {
  CHECK(lf::training::window_of(lf::binary16) == lf::training::range_window{-24, -14, 15});
  CHECK(lf::training::window_of(lf::bfloat16) == lf::training::range_window{-133, -126, 127});
  CHECK(lf::training::window_of(lf::float8_e4m3fn) == lf::training::range_window{-9, -6, 8});
  CHECK(lf::training::window_of(lf::float8_e5m2) == lf::training::range_window{-16, -14, 15});
}

TEST_CASE("scale_factor: exact decomposition") {
  const auto three = lf::training::scale_factor::of(3.0);
  REQUIRE(three);
  CHECK(three->sig == 3);
  CHECK(three->exp == 0);
  CHECK(!three->is_power_of_two());
  CHECK(three->floor_log2() == 1);
  const auto p10 = lf::training::scale_factor::of(1024.0);
  REQUIRE(p10);
  CHECK(p10->is_power_of_two());
  CHECK(p10->exp == 10);
  CHECK(!lf::training::scale_factor::of(0.0));
  CHECK(!lf::training::scale_factor::of(-2.0));
  CHECK(!lf::training::scale_factor::of(INFINITY));
  CHECK(!lf::training::scale_factor::of(NAN));
  CHECK_THROWS_AS(lf::training::range_counter(lf::binary16, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(lf::training::range_counter(lf::binary16, 1.0, lf::env{lf::rounding::stochastic}), std::invalid_argument);
}

TEST_CASE("every binary16 and bfloat16 encoding, nearest even: counts and classes equal the hand boundaries") {
  std::vector<std::uint16_t> halves(65536);
  std::vector<float> bfloats(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    halves[i] = static_cast<std::uint16_t>(i);
    bfloats[i] = f32(i << 16);  // bfloat16 is binary32's top half: exact
  }
  for (const named_target& t : targets)
    for (int k : scale_log2s) {
      const double S = std::ldexp(1.0, k);
      lf::training::range_counter c(t.fmt, S);
      c.add_binary16(halves);
      c.add(std::span<const float>(bfloats));
      counts want;
      for (std::uint32_t i = 0; i < 65536; ++i) {
        // binary16 by its fields, independently of the library: (-1)^s * 2^(E-15) * 1.F or 2^-14 * 0.F
        const std::uint32_t E = (i >> 10) & 0x1F, F = i & 0x3FF;
        range_class h;
        if (E == 0x1F) h = F ? range_class::nan : range_class::infinity;
        else {
          const double mag = E ? std::ldexp(1024.0 + F, static_cast<int>(E) - 25) : std::ldexp(F, -24);
          h = rne_by_hand(mag * S, t.spec);
        }
        want.add(h);
        const float b = bfloats[i];
        const range_class hb = std::isnan(b)   ? range_class::nan
                               : std::isinf(b) ? range_class::infinity
                                               : rne_by_hand(std::fabs(static_cast<double>(b)) * S, t.spec);
        want.add(hb);
        if (c.classify(0, b) != hb) {
          FAIL_CHECK(t.name << " 2^" << k << " bf16 " << i);
          break;
        }
      }
      check_report(c.report(), want, std::string(t.name) + " at 2^" + std::to_string(k));
    }
}

TEST_CASE("binary16 target, nearest even: every float near a boundary and every fp16 encoding, as _Float16 converts it") {
  std::mt19937 gen(20261130);
  for (int k : scale_log2s) {
    lf::training::range_counter c(lf::binary16, std::ldexp(1.0, k));
    std::vector<float> xs = floats_near_boundaries(oracle::binary16, k, gen);
    for (std::uint32_t i = 0; i < 65536; ++i) {
      const std::uint32_t E = (i >> 10) & 0x1F, F = i & 0x3FF;
      if (E == 0x1F) continue;
      const double mag = E ? std::ldexp(1024.0 + F, static_cast<int>(E) - 25) : std::ldexp(F, -24);
      xs.push_back(static_cast<float>((i & 0x8000) ? -mag : mag));
    }
    // keep the values whose product x * 2^k is exact in float (the random ones may leave its range)
    std::erase_if(xs, [k](float x) {
      return std::isfinite(x) && static_cast<double>(x * static_cast<float>(std::ldexp(1.0, k))) !=
                                     static_cast<double>(x) * std::ldexp(1.0, k);
    });
    c.add(std::span<const float>(xs));
    counts want;
    for (float x : xs) {
      const float y = x * static_cast<float>(std::ldexp(1.0, k));  // exact (see above)
      const auto h = std::bit_cast<std::uint16_t>(static_cast<_Float16>(y));
      range_class want_c;
      if (std::isnan(x)) want_c = range_class::nan;
      else if (std::isinf(x)) want_c = range_class::infinity;
      else if (x == 0) want_c = range_class::exact_zero;
      else if ((h & 0x7FFF) == 0x7C00) want_c = range_class::overflow;
      else if ((h & 0x7FFF) == 0) want_c = range_class::zero;
      else if ((h & 0x7C00) == 0) want_c = range_class::subnormal;
      else want_c = range_class::normal;
      want.add(want_c);
      CHECK_MESSAGE(c.classify(0, x) == want_c, "x = " << x << " k = " << k);
    }
    check_report(c.report(), want, "fp16 via _Float16 at 2^" + std::to_string(k));
  }
}

TEST_CASE("every direction, every target and scale: floats near each boundary against the exact oracle") {
  std::mt19937 gen(7);
  for (const named_target& t : targets)
    for (int k : scale_log2s)
      for (lf::rounding mode : lf::deterministic_roundings) {
        const std::vector<float> xs = floats_near_boundaries(t.spec, k, gen);
        lf::training::range_counter c(t.fmt, std::ldexp(1.0, k), lf::env{mode});
        // split in uneven pieces: counts must not depend on it
        const std::span<const float> all(xs);
        c.add(all.first(5));
        c.add(all.subspan(5));
        counts want;
        for (float x : xs) {
          const range_class w = std::isnan(x) ? range_class::nan
                                              : oracle_class(scaled(oracle::exact::from_double(x), k), t.spec,
                                                             oracle::mode_of(mode));
          want.add(w);
          CHECK_MESSAGE(c.classify(0, x) == w, t.name << " 2^" << k << " " << lf::rounding_name(mode) << " x = "
                                                      << std::hexfloat << x);
        }
        check_report(c.report(), want, std::string(t.name) + " " + std::string(lf::rounding_name(mode)));
      }
}

TEST_CASE("doubles, and scales that are not powers of two, against the exact oracle") {
  std::mt19937_64 gen(11);
  const double scales[] = {1.0, 1024.0, 3.0, 0.1, 1000.0, 65536.0 * 3};
  for (const named_target& t : targets)
    for (double S : scales) {
      const auto sf = lf::training::scale_factor::of(S);
      REQUIRE(sf);
      std::vector<double> xs;
      const double max = std::ldexp(static_cast<double>(t.spec.max_sig()), t.spec.emax - (t.spec.p - 1));
      const double points[] = {std::ldexp(1.0, t.spec.emin - t.spec.p), std::ldexp(1.0, t.spec.emin - t.spec.p + 1),
                               std::ldexp(1.0, t.spec.emin) - std::ldexp(1.0, t.spec.emin - t.spec.p),
                               std::ldexp(1.0, t.spec.emin), max, max + std::ldexp(1.0, t.spec.emax - t.spec.p),
                               std::ldexp(1.0, t.spec.emax + 1)};
      for (double p : points) {
        double x = p / S;  // near the boundary; then walk a few ulps either way
        for (int d = 0; d < 3; ++d) x = std::nextafter(x, 0.0);
        for (int d = 0; d < 7; ++d, x = std::nextafter(x, INFINITY)) {
          xs.push_back(x);
          xs.push_back(-x);
        }
      }
      std::uniform_int_distribution<std::uint64_t> any;
      for (int i = 0; i < 64; ++i) xs.push_back(std::bit_cast<double>(any(gen)));
      xs.push_back(0.0);
      xs.push_back(-0.0);
      xs.push_back(INFINITY);
      xs.push_back(NAN);
      for (lf::rounding mode : {lf::rounding::nearest_even, lf::rounding::upward, lf::rounding::toward_zero}) {
        const lf::training::range_target tg{t.fmt, *sf, lf::env{mode}};
        lf::training::range_counter c(std::span<const lf::training::range_target>(&tg, 1));
        c.add(std::span<const double>(xs));
        counts want;
        const oracle::exact s_exact = oracle::exact::from_double(S);
        for (double x : xs) {
          range_class w;
          if (std::isnan(x)) w = range_class::nan;
          else if (x == 0) w = range_class::exact_zero;
          else if (std::isinf(x)) w = range_class::infinity;
          else w = oracle_class(oracle::detail::exact_mul(oracle::exact::from_double(x), s_exact), t.spec, oracle::mode_of(mode));
          want.add(w);
          CHECK_MESSAGE(c.classify(0, x) == w,
                        t.name << " S=" << S << " " << lf::rounding_name(mode) << " x = " << std::hexfloat << x);
        }
        check_report(c.report(), want, std::string(t.name) + " S=" + std::to_string(S));
        // histogram: floor(log2|x*S|) from the oracle's exact product
        lf::training::range_report r = c.report();
        std::vector<long> exps;
        for (double x : xs)
          if (std::isfinite(x) && x != 0)
            exps.push_back(oracle::detail::floor_log2(oracle::detail::exact_mul(oracle::exact::from_double(x), s_exact)));
        std::uint64_t in_range = 0, below = 0, above = 0;
        for (long e : exps) {
          if (e < lf::training::range_report::histogram_min) ++below;
          else if (e > lf::training::range_report::histogram_max) ++above;
          else ++in_range;
        }
        CHECK(r.below == below);
        CHECK(r.above == above);
        std::uint64_t in_histogram = 0;  // every in-range exponent is counted once
        for (int e = lf::training::range_report::histogram_min; e <= lf::training::range_report::histogram_max; ++e)
          in_histogram += r.at(e);
        CHECK(in_histogram == in_range);
        for (long e : exps)
          if (e >= lf::training::range_report::histogram_min && e <= lf::training::range_report::histogram_max) {
            const auto n = static_cast<std::uint64_t>(std::count(exps.begin(), exps.end(), e));
            CHECK_MESSAGE(r.at(static_cast<int>(e)) == n, "exponent " << e << " S=" << S);
          }
        CHECK(*r.max_exponent == *std::max_element(exps.begin(), exps.end()));
        CHECK(*r.min_exponent == *std::min_element(exps.begin(), exps.end()));
      }
    }
}

TEST_CASE("classify_scaled is lf::convert of the scaled value, flags and all") {
  std::mt19937 gen(3);
  std::uniform_int_distribution<std::uint32_t> any;
  for (const named_target& t : targets)
    for (int k : scale_log2s)
      for (lf::rounding mode : lf::deterministic_roundings)
        for (int i = 0; i < 300; ++i) {
          const float x = f32(any(gen));
          if (std::isnan(x)) continue;
          const double y = static_cast<double>(x) * std::ldexp(1.0, k);  // exact in double
          lf::status st{};
          const lf::bits_t r = lf::convert(t.fmt, lf::binary64, std::bit_cast<std::uint64_t>(y), lf::env{mode}, st);
          range_class want;
          const lf::bits_t mag = r & ~t.fmt.sign_mask();
          if (std::isinf(x)) want = range_class::infinity;
          else if (x == 0) want = range_class::exact_zero;
          else if (lf::has(st, lf::status::overflow)) want = range_class::overflow;
          else if (mag == 0) want = range_class::zero;
          else if ((mag & t.fmt.exponent_mask()) == 0) want = range_class::subnormal;
          else want = range_class::normal;
          CHECK(lf::training::classify_scaled(t.fmt, lf::binary32, std::bit_cast<std::uint32_t>(x),
                                    lf::training::scale_factor::power_of_two(k), lf::env{mode}) == want);
        }
}

TEST_CASE("policies: flush to zero, saturation and DAZ match classify_scaled element by element") {
  std::mt19937 gen(5);
  for (const named_target& t : targets) {
    std::vector<float> xs = floats_near_boundaries(t.spec, 0, gen);
    for (std::uint32_t m = 1; m < 64; ++m) xs.push_back(f32(m));  // float subnormals (DAZ)
    lf::env ftz, sat, daz;
    ftz.policy.results = lf::subnormal_results::flush_to_zero;
    sat.policy.overflow = lf::overflow_policy::saturate;
    daz.policy.inputs = lf::subnormal_inputs::treat_as_zero;
    for (const lf::env& e : {ftz, sat, daz}) {
      lf::training::range_counter c(t.fmt, 1.0, e);
      c.add(std::span<const float>(xs));
      counts want;
      for (float x : xs) {
        const range_class w =
            lf::training::classify_scaled(t.fmt, lf::binary32, std::bit_cast<std::uint32_t>(x), lf::training::scale_factor{}, e);
        want.add(w);
        CHECK(c.classify(0, x) == w);
      }
      check_report(c.report(), want, std::string(t.name) + " policy");
    }
    // FTZ leaves nothing subnormal; saturation still counts overflow (the core raises it).
    lf::training::range_counter f(t.fmt, 1.0, ftz), s(t.fmt, 1.0, sat), plain(t.fmt, 1.0);
    f.add(std::span<const float>(xs));
    s.add(std::span<const float>(xs));
    plain.add(std::span<const float>(xs));
    CHECK(f.report().subnormal == 0);
    CHECK(f.report().zero >= plain.report().zero + plain.report().subnormal);
    CHECK(s.report().overflow == plain.report().overflow);
    // DAZ: the 63 float subnormals are nonzero inputs read as zero
    lf::training::range_counter d(t.fmt, 1.0, daz);
    d.add(std::span<const float>(xs).last(63));
    CHECK(d.report().zero == 63);
  }
}

TEST_CASE("histogram of floor(log2|x*S|) at powers of two, against frexp; NaN, inf and zeros counted apart") {
  std::mt19937 gen(9);
  std::uniform_int_distribution<std::uint32_t> any;
  std::vector<float> xs;
  for (int i = 0; i < 5000; ++i) xs.push_back(f32(any(gen)));
  xs.push_back(0.0f);
  xs.push_back(-0.0f);
  xs.push_back(-INFINITY);
  xs.push_back(f32(1));  // smallest float subnormal: floor(log2) = -149
  for (int k : {0, 16, -100, 200}) {
    lf::training::range_counter c(lf::binary16, std::ldexp(1.0, k));
    c.add(std::span<const float>(xs));
    const lf::training::range_report r = c.report();
    std::vector<std::uint64_t> want(r.histogram.size(), 0);
    std::uint64_t below = 0, above = 0, nan = 0, inf = 0, zeros = 0;
    for (float x : xs) {
      if (std::isnan(x)) ++nan;
      else if (std::isinf(x)) ++inf;
      else if (x == 0) ++zeros;
      else {
        int e = 0;
        (void)std::frexp(static_cast<double>(x), &e);  // |x| in [2^(e-1), 2^e)
        const int b = e - 1 + k;
        if (b < lf::training::range_report::histogram_min) ++below;
        else if (b > lf::training::range_report::histogram_max) ++above;
        else ++want[static_cast<std::size_t>(b - lf::training::range_report::histogram_min)];
      }
    }
    CHECK(r.nan == nan);
    CHECK(r.infinity == inf);
    CHECK(r.exact_zero == zeros);
    CHECK(r.below == below);
    CHECK(r.above == above);
    CHECK(std::equal(want.begin(), want.end(), r.histogram.begin()));
    CHECK(r.total() == xs.size());
  }
}

TEST_CASE("merge adds counts; different targets are refused") {
  std::vector<float> xs;
  for (int i = -40; i <= 20; ++i) xs.push_back(std::ldexp(1.0f, i));
  lf::training::range_counter whole(lf::binary16, 8.0), a(lf::binary16, 8.0), b(lf::binary16, 8.0);
  whole.add(std::span<const float>(xs));
  a.add(std::span<const float>(xs).first(10));
  b.add(std::span<const float>(xs).subspan(10));
  a.merge(b);
  const lf::training::range_report w = whole.report(), m = a.report();
  CHECK(w.zero == m.zero);
  CHECK(w.subnormal == m.subnormal);
  CHECK(w.normal == m.normal);
  CHECK(w.overflow == m.overflow);
  CHECK(w.histogram == m.histogram);
  lf::training::range_counter other(lf::bfloat16, 8.0);
  CHECK_THROWS_AS(a.merge(other), std::invalid_argument);
}

TEST_CASE("largest safe power-of-two scale and what it saves (hand-derived, binary16)") {
  // max |x| = 1: 2^15 is fine (32768 <= 65504); 2^16 = 65536 >= 65520 overflows.
  {
    lf::training::range_counter c(lf::binary16);
    const float xs[] = {1.0f, -0.5f};
    c.add(std::span<const float>(xs));
    CHECK(lf::training::largest_safe_scale_log2(c, lf::binary16) == 15);
  }
  // 1.99951171875 * 2^15 = 65520 exactly: the midpoint above max rounds to infinity, so 2^14.
  {
    lf::training::range_counter c(lf::binary16);
    const double xs[] = {1.99951171875};
    c.add(std::span<const double>(xs));
    CHECK(lf::training::largest_safe_scale_log2(c, lf::binary16) == 14);
    // toward zero never overflows below 2^16 * 1.0: 65520 truncates to 65504
    CHECK(lf::training::largest_safe_scale_log2(c, lf::binary16, lf::env{lf::rounding::toward_zero}) == 15);
  }
  // the negative side decides under upward rounding of a negative value: -65504.5 rounds up to -65504
  // (no overflow), the same magnitude positive rounds up past max.
  {
    lf::training::range_counter c(lf::binary16);
    const double neg[] = {-65504.5 / 2};
    c.add(std::span<const double>(neg));
    CHECK(lf::training::largest_safe_scale_log2(c, lf::binary16, lf::env{lf::rounding::upward}) == 1);
    const double pos[] = {65504.5 / 2};
    lf::training::range_counter p(lf::binary16);
    p.add(std::span<const double>(pos));
    CHECK(lf::training::largest_safe_scale_log2(p, lf::binary16, lf::env{lf::rounding::upward}) == 0);
  }
  // {2^-30, 2^-20, 1}: at 1, zero / subnormal / normal; at 2^15: 2^-15 subnormal, 2^-5 and 2^15 normal.
  const float xs[] = {std::ldexp(1.0f, -30), std::ldexp(1.0f, -20), 1.0f};
  const auto rec = lf::training::recommend_scale(lf::binary16, std::span<const float>(xs));
  REQUIRE(rec);
  CHECK(rec->log2_scale == 15);
  CHECK(rec->at_one.zero == 1);
  CHECK(rec->at_one.subnormal == 1);
  CHECK(rec->at_scale.zero == 0);
  CHECK(rec->at_scale.subnormal == 1);
  CHECK(rec->at_scale.normal == 2);
  CHECK(rec->at_scale.overflow == 0);
  CHECK(rec->saved_from_zero() == 1);
  CHECK(rec->saved_from_zero_or_subnormal() == 1);
  // nothing finite and nonzero: no recommendation
  const float none[] = {0.0f, NAN};
  CHECK(!lf::training::recommend_scale(lf::binary16, std::span<const float>(none)));
}
