// The models and span kernels on the low-bit format kinds: fnuz (NaN at -0, no inf,
// no -0), finite_only (FP4 / FP6: no inf, no NaN), the exponent-only E8M0 and the IEEE-style
// float8_e4m3 / float8_e3m4. Everything that reads encodings outside the core (exact.hpp's bucketed
// and fixed-point loops, accumulate.hpp's starting zero, the block FMA's kept format, the span
// kernels, range_report's classes) is run on them and compared with a reference computed here.
//
// What the reference is independent of:
//  - Values: decode() below, written from the format definitions (OCP MX v1.0 §5.3 / §5.4.1 for
//    FP4, FP6, E8M0; ml_dtypes and arXiv 2206.02915 for the fnuz formats; IEEE 754 layout for
//    float8_e4m3 / e3m4), with its own table of widths and biases (only checked against lf::format).
//    It shares no code with lf::detail::unpack or with the fixed-point decoders of exact.hpp.
//  - Exact sums and products: boost::multiprecision::cpp_rational, not the long accumulator.
//  - Rounding: two kinds. (a) For sums and accumulation steps, the exact rational is turned into a
//    binary64 only when it is one (checked by a round trip), then rounded by the scalar core,
//    lf::convert(F, binary64, ...): the same round_pack, but reached from a different entry
//    point than the models' (exact_accumulator::round_to, lf::add / lf::fma). (b) For quantize /
//    span convert, round_nearest_even / round_toward_zero below pick the result from the list of
//    all the format's values with rational comparisons, with the overflow rules written out from
//    the kinds' definitions (core/format.hpp comments): shares nothing with the core.
#include <libfloat/libfloat.hpp>
#include <libfloat/models.hpp>
#include <libfloat/training.hpp>

#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;
using Q = boost::multiprecision::cpp_rational;
using boost::multiprecision::cpp_int;

// ---- the formats, from their definitions -----------------------------------------------------

enum class layout { ieee, fnuz, finite_only, e8m0 };

struct spec {
  const char* name;
  int w, m, bias;  // exponent bits, fraction bits, exponent bias
  layout kind;
  lf::format fmt;  // the library's, only compared with the numbers above
  int bits() const { return kind == layout::e8m0 ? w : 1 + w + m; }
  u64 sign() const { return kind == layout::e8m0 ? 0 : u64{1} << (bits() - 1); }
  bool has_zero() const { return kind != layout::e8m0; }
};

// OCP MX v1.0 §5.3.3 (FP4 E2M1, bias 1), §5.3.2 (FP6 E3M2 bias 3, E2M3 bias 1), §5.4.1 (E8M0,
// bias 127); ml_dtypes float8_e4m3fnuz (bias 8), float8_e5m2fnuz (bias 16), float8_e4m3b11fnuz
// (bias 11); ml_dtypes float8_e4m3 (IEEE layout, bias 7) and float8_e3m4 (IEEE layout, bias 3).
const spec fp4{"fp4", 2, 1, 1, layout::finite_only, lf::float4_e2m1fn};
const spec fp6_e3m2{"fp6_e3m2", 3, 2, 3, layout::finite_only, lf::float6_e3m2fn};
const spec fp6_e2m3{"fp6_e2m3", 2, 3, 1, layout::finite_only, lf::float6_e2m3fn};
const spec e4m3fnuz{"e4m3fnuz", 4, 3, 8, layout::fnuz, lf::float8_e4m3fnuz};
const spec e5m2fnuz{"e5m2fnuz", 5, 2, 16, layout::fnuz, lf::float8_e5m2fnuz};
const spec e4m3b11fnuz{"e4m3b11fnuz", 4, 3, 11, layout::fnuz, lf::float8_e4m3b11fnuz};
const spec e4m3ieee{"e4m3ieee", 4, 3, 7, layout::ieee, lf::float8_e4m3};
const spec e3m4{"e3m4", 3, 4, 3, layout::ieee, lf::float8_e3m4};
const spec e8m0{"e8m0", 8, 0, 127, layout::e8m0, lf::float8_e8m0fnu};
// A custom exponent-only format with E8M0's layout rules and a range narrow enough (2^-7 .. 2^7)
// for the exact accumulator's fixed-point path, which must not read its field 0 as a zero.
constexpr lf::format e4m0_fmt{4, 1, lf::nonfinite::nan_only};
const spec e4m0{"e4m0", 4, 0, 7, layout::e8m0, e4m0_fmt};

const spec* const all_specs[] = {&fp4,      &fp6_e3m2, &fp6_e2m3, &e4m3fnuz, &e5m2fnuz,
                                 &e4m3b11fnuz, &e4m3ieee, &e3m4,     &e8m0,     &e4m0};

Q pow2(int e) {
  const cpp_int one = 1;
  return e >= 0 ? Q(one << e) : Q(one, one << -e);
}

struct value {
  enum what_t { number, nan, inf } what = number;
  bool neg = false;
  Q mag = 0;  // |value| for numbers
  Q signed_value() const { return neg ? Q(-mag) : mag; }
};

/// The value of encoding b of s, from the fields.
value decode(const spec& s, u64 b) {
  value v;
  if (s.kind == layout::e8m0) {  // exponent only: all ones is the NaN, every other field 2^(field - bias)
    if (b == (u64{1} << s.w) - 1) v.what = value::nan;
    else v.mag = pow2(static_cast<int>(b) - s.bias);  // field 0 included (E8M0: 2^-127), no zero
    return v;
  }
  v.neg = (b & s.sign()) != 0;
  const u64 e = (b >> s.m) & ((u64{1} << s.w) - 1), f = b & ((u64{1} << s.m) - 1);
  const u64 all_ones = (u64{1} << s.w) - 1;
  if (s.kind == layout::ieee && e == all_ones) {
    v.what = f == 0 ? value::inf : value::nan;
    return v;
  }
  if (s.kind == layout::fnuz && v.neg && e == 0 && f == 0) {  // the one NaN, 1.0..0.0..0
    v.what = value::nan;
    return v;
  }
  if (e == 0) v.mag = Q(cpp_int(f)) * pow2(1 - s.bias - s.m);
  else v.mag = Q(cpp_int((u64{1} << s.m) + f)) * pow2(static_cast<int>(e) - s.bias - s.m);
  return v;
}

/// The rational as a double when it is one exactly.
std::optional<double> exact_double(const Q& q) {
  const double d = q.convert_to<double>();
  if (!std::isfinite(d) || Q(d) != q) return std::nullopt;
  return d;
}

lf::bits_t f64_bits(double d) { return std::bit_cast<u64>(d); }

/// (a) The exact rational q rounded once into `to` by the scalar core, from binary64 (q must be a double).
lf::bits_t core_round(const lf::format& to, const Q& q, lf::status& st, const lf::env& e = {}) {
  const std::optional<double> d = exact_double(q);
  REQUIRE_MESSAGE(d.has_value(), "the reference value must be a double");
  return lf::convert(to, lf::binary64, f64_bits(*d), e, st);
}

/// An encoding's reading as a value, with -0 distinguished: equality of numbers (and of the sign of
/// zeros in formats that have -0), NaN with NaN, inf with inf of the same sign.
bool same(const spec& s, u64 got, const value& want) {
  const value g = decode(s, got);
  if (g.what != want.what) return false;
  if (g.what == value::nan) return true;
  if (g.what == value::inf) return g.neg == want.neg;
  return g.mag == want.mag && (g.mag != 0 || g.neg == want.neg);
}
std::string show(const spec& s, u64 b) {
  const value v = decode(s, b);
  std::string t = std::string(s.name) + " 0x" + [&] {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%llX", static_cast<unsigned long long>(b));
    return std::string(buf);
  }();
  if (v.what == value::nan) return t + " (NaN)";
  if (v.what == value::inf) return t + (v.neg ? " (-inf)" : " (+inf)");
  return t + " (" + (v.neg ? "-" : "") + v.mag.str() + ")";
}

// ---- (b) rounding by enumeration ------------------------------------------------------------

/// The format's non-negative finite values, ascending, with their encodings.
struct grid {
  std::vector<Q> mag;
  std::vector<u64> enc;
};
grid grid_of(const spec& s) {
  std::vector<std::pair<Q, u64>> v;
  const u64 n = u64{1} << s.bits();
  for (u64 b = 0; b < n; ++b) {
    if (b & s.sign()) continue;
    const value d = decode(s, b);
    if (d.what == value::number) v.emplace_back(d.mag, b);
  }
  std::sort(v.begin(), v.end());
  grid g;
  for (auto& [q, b] : v) {
    g.mag.push_back(q);
    g.enc.push_back(b);
  }
  return g;
}

/// floor(log2 q), q > 0.
int floor_log2(const Q& q) {
  int e = 0;
  while (pow2(e) > q) --e;
  while (pow2(e + 1) <= q) ++e;
  return e;
}

enum class mode { nearest_even, toward_zero };

/// What converting x (a binary64 value, or NaN / inf) into s gives: overflow as the kinds define it
/// (IEEE: inf in nearest, max in toward_zero; fnuz: its NaN, or max; finite_only: max always;
/// E8M0: its NaN, or max), E8M0: no zero and no sign (zero and negative values are its NaN,
/// anything below 2^-127 becomes 2^-127 in every mode), fnuz: no -0. Ties to the even encoding;
/// E8M0 has one significant bit, odd in both neighbours: the carry takes the larger (round_pack's
/// one-bit decision).
value round_reference(const spec& s, const grid& g, double x, mode m) {
  value r;
  if (std::isnan(x)) {
    r.what = s.kind == layout::finite_only ? value::number : value::nan;
    r.neg = std::signbit(x) && s.kind == layout::finite_only;
    if (s.kind == layout::finite_only) r.mag = g.mag.back();  // max finite stands in for NaN
    return r;
  }
  const bool neg = std::signbit(x);
  if (s.kind == layout::e8m0 && (neg || x == 0)) {
    r.what = value::nan;
    return r;
  }
  if (std::isinf(x)) {
    switch (s.kind) {
      case layout::ieee: r.what = value::inf; r.neg = neg; return r;
      case layout::fnuz:
      case layout::e8m0: r.what = value::nan; return r;
      case layout::finite_only: r.neg = neg; r.mag = g.mag.back(); return r;
    }
  }
  const Q a = abs(Q(x));
  const Q top = g.mag.back();
  const Q threshold = top + pow2(floor_log2(top) - s.m) / 2;  // max + ulp/2, with an unbounded exponent
  r.neg = neg;
  auto finish = [&](const Q& mag) {
    r.mag = mag;
    if (mag == 0 && s.kind == layout::fnuz) r.neg = false;
    return r;
  };
  if (m == mode::nearest_even && a >= threshold) {
    if (s.kind == layout::ieee) {
      r.what = value::inf;
      return r;
    }
    if (s.kind == layout::fnuz || s.kind == layout::e8m0) {
      r.what = value::nan;
      r.neg = false;
      return r;
    }
    return finish(top);
  }
  if (a >= top) return finish(top);
  if (a < g.mag.front()) return finish(g.mag.front());  // E8M0 only (the others start at 0)
  std::size_t i = static_cast<std::size_t>(std::upper_bound(g.mag.begin(), g.mag.end(), a) - g.mag.begin()) - 1;
  if (g.mag[i] == a || m == mode::toward_zero) return finish(g.mag[i]);
  const Q lo = a - g.mag[i], hi = g.mag[i + 1] - a;
  if (lo < hi) return finish(g.mag[i]);
  if (hi < lo) return finish(g.mag[i + 1]);
  if (s.m == 0) return finish(g.mag[i + 1]);
  return finish((g.enc[i] & 1) == 0 ? g.mag[i] : g.mag[i + 1]);
}

/// Inputs for quantize / convert: specials, every value and every midpoint of the format (both
/// signs), values beyond both ends, and random doubles over the range.
std::vector<double> probe_inputs(const spec& s, const grid& g, std::mt19937_64& rng) {
  std::vector<double> x = {0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 1e30, -1e30, 1e-30, -1e-30};
  for (std::size_t i = 0; i < g.mag.size(); ++i) {
    const double v = g.mag[i].convert_to<double>();
    x.push_back(v);
    x.push_back(-v);
    if (i + 1 < g.mag.size()) {
      const double mid = *exact_double((g.mag[i] + g.mag[i + 1]) / 2);
      x.push_back(mid);
      x.push_back(-mid);
      x.push_back(std::nextafter(mid, 0.0));
      x.push_back(std::nextafter(mid, 1e300));
    }
  }
  const double top = g.mag.back().convert_to<double>();
  const double thr = *exact_double(g.mag.back() + pow2(floor_log2(g.mag.back()) - s.m) / 2);
  for (double v : {thr, std::nextafter(thr, 0.0), top * 2, top * 1.25}) {
    x.push_back(v);
    x.push_back(-v);
  }
  const int lo = floor_log2(g.mag[s.has_zero() ? 1 : 0]) - 3, hi = floor_log2(g.mag.back()) + 2;
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<int> ex(lo, hi);
  for (int k = 0; k < test_sanitizer::scaled(400, 4); ++k) {
    const double v = std::ldexp(unit(rng), ex(rng));
    x.push_back(k % 2 ? -v : v);
  }
  return x;
}

// ---- helpers over typed values ----------------------------------------------------------------

template <lf::format F>
std::vector<lf::fp<F>> typed(const std::vector<u64>& bits) {
  std::vector<lf::fp<F>> v;
  for (u64 b : bits) v.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(b)));
  return v;
}

/// Random finite (non-NaN) encodings of s: every magnitude equally likely, the largest ones and
/// (where there is one) -0 included.
std::vector<u64> random_finite(const spec& s, std::size_t n, std::mt19937_64& rng) {
  std::vector<u64> all;
  for (u64 b = 0; b < (u64{1} << s.bits()); ++b)
    if (decode(s, b).what == value::number) all.push_back(b);
  std::uniform_int_distribution<std::size_t> pick(0, all.size() - 1);
  std::vector<u64> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(all[pick(rng)]);
  return out;
}

const spec& spec_of(const lf::format& f) {
  for (const spec* s : all_specs)
    if (s->fmt == f) return *s;
  throw std::logic_error("no spec");
}

}  // namespace

// ---- the reference's own table agrees with lf::format ---------------------------------------------

TEST_CASE("the test's format table matches the library's (widths, biases, kinds)") {
  for (const spec* s : all_specs) {
    CAPTURE(s->name);
    CHECK(s->fmt.exponent_bits == s->w);
    CHECK(s->fmt.fraction_bits() == s->m);
    CHECK(s->fmt.bias() == s->bias);
    CHECK(s->fmt.bits() == s->bits());
    CHECK(s->fmt.sign_mask() == s->sign());
    // The decoder against the values the sources list.
  }
  const grid g4 = grid_of(fp4);
  CHECK(g4.mag == std::vector<Q>{0, Q(1, 2), 1, Q(3, 2), 2, 3, 4, 6});  // OCP MX Table 5
  CHECK(grid_of(fp6_e3m2).mag.back() == 28);
  CHECK(grid_of(fp6_e2m3).mag.back() == Q(15, 2));
  CHECK(grid_of(e4m3fnuz).mag.back() == 240);
  CHECK(grid_of(e5m2fnuz).mag.back() == 57344);
  CHECK(grid_of(e4m3b11fnuz).mag.back() == 30);
  CHECK(grid_of(e4m3ieee).mag.back() == 240);
  CHECK(grid_of(e3m4).mag.back() == Q(31, 2));
  CHECK(decode(e8m0, 0x00).mag == pow2(-127));
  CHECK(decode(e8m0, 0x7F).mag == 1);
  CHECK(decode(e8m0, 0xFE).mag == pow2(127));
  CHECK(decode(e4m3fnuz, 0x80).what == value::nan);
  CHECK(decode(e4m3fnuz, 0x7F).mag == 240);
}

// ---- exact sums and dot products (models/exact.hpp) -----------------------------------------

namespace {

/// exact_sum over x against the rational sum, rounded into binary32, binary64 and F itself.
template <lf::format F>
void check_exact_sum(const std::vector<u64>& bits) {
  const spec& s = spec_of(F);
  const std::vector<lf::fp<F>> x = typed<F>(bits);
  const lf::exact_accumulator acc = lf::exact_sum(x);
  Q sum = 0;
  bool nan = false;
  for (u64 b : bits) {
    const value v = decode(s, b);
    if (v.what == value::nan) nan = true;
    else sum += v.signed_value();
  }
  if (nan) {
    CHECK(acc.is_nan());
    lf::status st{};
    CHECK(std::isnan(std::bit_cast<double>(acc.round_to(lf::binary64, lf::env{}, st))));
    return;
  }
  REQUIRE(acc.is_finite());
  const std::optional<double> d = exact_double(sum);
  REQUIRE_MESSAGE(d.has_value(), "test data: the exact sum must be a double");
  CHECK(lf::compare(acc, lf::binary64, f64_bits(*d)) == std::partial_ordering::equivalent);
  CHECK(acc.to_double() == *d);
  for (const lf::format& to : {lf::binary32, F}) {
    lf::status got_st{}, want_st{};
    const lf::bits_t got = acc.round_to(to, lf::env{}, got_st);
    if (sum == 0) continue;  // the zero's sign is the accumulator's rule (checked apart)
    const lf::bits_t want = core_round(to, sum, want_st);
    CHECK_MESSAGE(got == want, lf::format_name(to), ": got 0x", std::to_string(got), ", want 0x", std::to_string(want));
    CHECK(got_st == want_st);
  }
}

/// exact_dot over a, b (formats F, G) against the rational dot product, rounded into binary32.
template <lf::format F, lf::format G>
void check_exact_dot(const std::vector<u64>& a, const std::vector<u64>& b) {
  const spec &sa = spec_of(F), &sb = spec_of(G);
  const lf::exact_accumulator acc = lf::exact_dot(typed<F>(a), typed<G>(b));
  Q dot = 0;
  bool nan = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const value x = decode(sa, a[i]), y = decode(sb, b[i]);
    if (x.what != value::number || y.what != value::number) nan = true;
    else dot += x.signed_value() * y.signed_value();
  }
  if (nan) {
    CHECK(acc.is_nan());
    return;
  }
  REQUIRE(acc.is_finite());
  const std::optional<double> d = exact_double(dot);
  REQUIRE_MESSAGE(d.has_value(), "test data: the exact dot product must be a double");
  CHECK(acc.to_double() == *d);
  lf::status got_st{}, want_st{};
  if (dot != 0) CHECK(acc.round_to(lf::binary32, lf::env{}, got_st) == core_round(lf::binary32, dot, want_st));
}

}  // namespace

TEST_CASE("exact_sum on fnuz, finite_only, E8M0 and IEEE-style FP8: every encoding and random sets") {
  std::mt19937_64 rng(17);
  auto every = [](const spec& s, bool with_nan) {
    std::vector<u64> v;
    for (u64 b = 0; b < (u64{1} << s.bits()); ++b)
      if (with_nan || decode(s, b).what == value::number) v.push_back(b);
    return v;
  };
  // Every finite encoding once: the largest magnitudes (all-ones, which a nan_only reading takes for
  // a NaN) must count; then with the NaN (fnuz 0x80, E8M0 0xFF) the sum is NaN.
  check_exact_sum<lf::float4_e2m1fn>(every(fp4, false));
  check_exact_sum<lf::float6_e3m2fn>(every(fp6_e3m2, false));
  check_exact_sum<lf::float6_e2m3fn>(every(fp6_e2m3, false));
  check_exact_sum<lf::float8_e4m3fnuz>(every(e4m3fnuz, false));
  check_exact_sum<lf::float8_e4m3fnuz>(every(e4m3fnuz, true));
  check_exact_sum<lf::float8_e5m2fnuz>(every(e5m2fnuz, false));
  check_exact_sum<lf::float8_e5m2fnuz>(every(e5m2fnuz, true));
  check_exact_sum<lf::float8_e4m3b11fnuz>(every(e4m3b11fnuz, false));
  check_exact_sum<lf::float8_e4m3>(every(e4m3ieee, false));
  check_exact_sum<lf::float8_e3m4>(every(e3m4, false));
  for (int k = 0; k < 20; ++k) {
    const std::size_t n = static_cast<std::size_t>(k * 37 + 1);
    check_exact_sum<lf::float4_e2m1fn>(random_finite(fp4, n, rng));
    check_exact_sum<lf::float6_e3m2fn>(random_finite(fp6_e3m2, n, rng));
    check_exact_sum<lf::float6_e2m3fn>(random_finite(fp6_e2m3, n, rng));
    check_exact_sum<lf::float8_e4m3fnuz>(random_finite(e4m3fnuz, n, rng));
    check_exact_sum<lf::float8_e5m2fnuz>(random_finite(e5m2fnuz, n, rng));
    check_exact_sum<lf::float8_e4m3b11fnuz>(random_finite(e4m3b11fnuz, n, rng));
  }
  // E8M0: every value once is no double (2^-127 + ... + 2^127 needs 255 bits); sums of powers of
  // two within a 40-binade window are. Field 0 is 2^-127, not a zero.
  for (int k = 0; k < 20; ++k) {
    std::uniform_int_distribution<u64> field(static_cast<u64>(k * 10), static_cast<u64>(k * 10 + 40));
    std::vector<u64> v;
    for (int i = 0; i < 50; ++i) v.push_back(std::min<u64>(field(rng), 0xFE));
    check_exact_sum<lf::float8_e8m0fnu>(v);
  }
  check_exact_sum<lf::float8_e8m0fnu>({0x00});
  check_exact_sum<lf::float8_e8m0fnu>({0x00, 0x01, 0xFF});
  check_exact_sum<e4m0_fmt>(every(e4m0, false));  // 2^-7 + ... + 2^7, field 0 = 2^-7
  check_exact_sum<e4m0_fmt>({0x0, 0x0, 0x0});
  check_exact_sum<e4m0_fmt>(every(e4m0, true));   // with the NaN 0xF
}

TEST_CASE("exact_dot: fnuz, finite_only, E8M0 (and an E8M0 x FP4 scaled product), NaN operands") {
  std::mt19937_64 rng(18);
  for (std::size_t n : {0u, 1u, 7u, 256u, 1000u}) {
    CAPTURE(n);
    check_exact_dot<lf::float4_e2m1fn, lf::float4_e2m1fn>(random_finite(fp4, n, rng), random_finite(fp4, n, rng));
    check_exact_dot<lf::float6_e3m2fn, lf::float6_e2m3fn>(random_finite(fp6_e3m2, n, rng),
                                                          random_finite(fp6_e2m3, n, rng));
    check_exact_dot<lf::float8_e4m3fnuz, lf::float8_e4m3fnuz>(random_finite(e4m3fnuz, n, rng),
                                                              random_finite(e4m3fnuz, n, rng));
    check_exact_dot<lf::float8_e4m3b11fnuz, lf::float8_e4m3b11fnuz>(random_finite(e4m3b11fnuz, n, rng),
                                                                    random_finite(e4m3b11fnuz, n, rng));
    check_exact_dot<lf::float8_e5m2fnuz, lf::float4_e2m1fn>(random_finite(e5m2fnuz, n, rng),
                                                            random_finite(fp4, n, rng));
    check_exact_dot<lf::float8_e4m3, lf::float8_e3m4>(random_finite(e4m3ieee, n, rng), random_finite(e3m4, n, rng));
    // An MX block's scale times its elements: E8M0 fields within 2^-10 .. 2^10 (so that the
    // exact sum stays a double).
    std::uniform_int_distribution<u64> field(117, 137);
    std::vector<u64> scales;
    for (std::size_t i = 0; i < n; ++i) scales.push_back(field(rng));
    check_exact_dot<lf::float8_e8m0fnu, lf::float4_e2m1fn>(scales, random_finite(fp4, n, rng));
  }
  // The largest magnitudes (all-ones encodings) are numbers in fnuz and finite_only formats.
  check_exact_dot<lf::float8_e4m3fnuz, lf::float8_e4m3fnuz>({0x7F, 0xFF, 0x7F}, {0x7F, 0x7F, 0x01});
  check_exact_dot<lf::float4_e2m1fn, lf::float4_e2m1fn>({0x7, 0xF, 0x7}, {0x7, 0x7, 0x1});
  // NaN operands: fnuz 0x80 (times anything, zero included), E8M0 0xFF.
  check_exact_dot<lf::float8_e4m3fnuz, lf::float8_e4m3fnuz>({0x3C, 0x80, 0x10}, {0x3C, 0x00, 0x10});
  check_exact_dot<lf::float8_e5m2fnuz, lf::float8_e5m2fnuz>({0x80}, {0x80});
  check_exact_dot<lf::float8_e8m0fnu, lf::float4_e2m1fn>({0x7F, 0xFF}, {0x2, 0x0});
  // 500 terms with one NaN in the middle (the bucketed loop would have counted 0x80 as a zero).
  std::vector<u64> a = random_finite(e4m3fnuz, 500, rng), b = random_finite(e4m3fnuz, 500, rng);
  a[250] = 0x80;
  check_exact_dot<lf::float8_e4m3fnuz, lf::float8_e4m3fnuz>(a, b);
}

TEST_CASE("exact accumulator: zeros of the new kinds, NaN of fnuz, the zero E8M0 cannot hold") {
  lf::status st{};
  // fp4 {+1, -1}: an exact zero; +0 in every format that has one, fnuz's +0 = 0x00.
  const lf::exact_accumulator z = lf::exact_sum(typed<lf::float4_e2m1fn>({0x2, 0xA}));
  CHECK(z.is_zero());
  CHECK(z.round_to(lf::float8_e4m3fnuz, lf::env{}, st) == 0x00);
  CHECK(st == lf::status::none);
  // Rounding downward, an exact zero sum is -0 (IEEE 754-2019 §6.3): fp4 has -0 (0x8), fnuz not.
  CHECK(z.round_to(lf::float4_e2m1fn, lf::env{lf::rounding::downward}, st) == 0x8);
  CHECK(z.round_to(lf::float8_e5m2fnuz, lf::env{lf::rounding::downward}, st) == 0x00);
  // E8M0 has no zero: an exact zero result is its NaN with invalid (not 0x00, which is 2^-127).
  st = {};
  CHECK(z.round_to(lf::float8_e8m0fnu, lf::env{}, st) == 0xFF);
  CHECK(lf::has(st, lf::status::invalid));
  st = {};
  CHECK(lf::exact_accumulator().round_to(lf::float8_e8m0fnu, lf::env{}, st) == 0xFF);  // the empty sum
  CHECK(lf::has(st, lf::status::invalid));
  // A sum whose value is a power of two rounds into E8M0 exactly: 2^-127 + 2^-127 = 2^-126.
  st = {};
  CHECK(lf::exact_sum(typed<lf::float8_e8m0fnu>({0x00, 0x00})).round_to(lf::float8_e8m0fnu, lf::env{}, st) == 0x01);
  CHECK(st == lf::status::none);
  // A fnuz NaN operand: NaN into every format; |NaN| stays the fnuz NaN (the sign bit is the NaN).
  const lf::exact_accumulator n = lf::exact_sum(typed<lf::float8_e4m3fnuz>({0x38, 0x80}));
  CHECK(n.is_nan());
  st = {};
  CHECK(n.round_to(lf::float8_e4m3fnuz, lf::env{}, st) == 0x80);
  CHECK(n.round_abs_scaled(lf::float8_e4m3fnuz, 0, lf::env{}, st) == 0x80);
  CHECK(n.round_to(lf::float8_e8m0fnu, lf::env{}, st) == 0xFF);
  // finite_only has no NaN: max finite of the NaN's sign stands in, with invalid (core convert).
  st = {};
  const lf::bits_t r = n.round_to(lf::float4_e2m1fn, lf::env{}, st);
  CHECK(decode(fp4, r).mag == 6);
  CHECK(lf::has(st, lf::status::invalid));
  // measure_error in a fnuz format: a NaN computed result gives NaN measures.
  const lf::error_measures m = lf::measure_error(lf::float8_e4m3fnuz, 0x80, z, 2);
  CHECK(std::isnan(m.absolute));
}

// ---- accumulation models (models/accumulate.hpp) ------------------------------------------------

namespace {

/// sum / dot under a sequential model with accumulator format A, replayed here: each step's exact
/// value (a rational) rounded once by core_round (the model's add or fma is one rounding).
template <lf::format In>
void check_sequential_sum(const lf::format& A, const std::vector<u64>& x, lf::rounding r = lf::rounding::nearest_even) {
  const spec& si = spec_of(In);
  const lf::accumulation m{.input = In, .accumulator = A, .accumulator_env = lf::env{r}};
  REQUIRE_FALSE(m.invalid_reason().has_value());
  lf::status got_st{};
  const lf::value got = lf::sum(m, typed<In>(x), &got_st);
  // Replay. The accumulator starts at +0; a NaN stays NaN (lf::add propagates it).
  lf::bits_t acc = 0;
  lf::status want_st{};
  bool nan = false;
  for (u64 b : x) {
    const value v = decode(si, b);
    if (v.what == value::nan || nan) {
      nan = true;
      continue;
    }
    const std::optional<double> ad = [&]() -> std::optional<double> {
      lf::status ignored{};
      const double d = std::bit_cast<double>(lf::convert(lf::binary64, A, acc, lf::env{}, ignored));
      return std::isnan(d) ? std::nullopt : std::optional<double>(d);
    }();
    if (!ad) {
      nan = true;
      continue;
    }
    const Q exact = Q(*ad) + v.signed_value();  // conv_F(x_i) is exact here: x's format fits in A
    // An exact zero sum of nonzero terms is +0 under nearest even and toward zero (§6.3).
    acc = exact == 0 ? lf::bits_t{0} : core_round(A, exact, want_st, lf::env{r});
  }
  if (nan) {
    CHECK(got.is_nan());
    return;
  }
  CHECK_MESSAGE(got.bits == acc, "sum in ", lf::format_name(A), ": got ", std::to_string(got.bits), ", want ",
                std::to_string(acc));
}

template <lf::format In>
void check_sequential_dot(const lf::format& A, const std::vector<u64>& a, const std::vector<u64>& b) {
  const spec& si = spec_of(In);
  const lf::accumulation m{.input = In, .products = lf::product_mode::exact, .accumulator = A};
  REQUIRE_FALSE(m.invalid_reason().has_value());
  const lf::value got = lf::dot(m, typed<In>(a), typed<In>(b));
  lf::bits_t acc = 0;
  lf::status st{};
  bool nan = false;
  for (std::size_t i = 0; i < a.size() && !nan; ++i) {
    const value x = decode(si, a[i]), y = decode(si, b[i]);
    lf::status ignored{};
    const double ad = std::bit_cast<double>(lf::convert(lf::binary64, A, acc, lf::env{}, ignored));
    if (x.what != value::number || y.what != value::number || std::isnan(ad)) {
      nan = true;
      break;
    }
    const Q exact = Q(ad) + x.signed_value() * y.signed_value();  // fma: one rounding
    if (exact != 0) acc = core_round(A, exact, st);
    else acc = 0;  // +0 (nearest even); -0 only when both are -0, kept out of these data
  }
  if (nan) CHECK(got.is_nan());
  else CHECK_MESSAGE(got.bits == acc, "dot in ", lf::format_name(A), ": got ", std::to_string(got.bits));
}

/// Encodings of s without zeros (so the replay need not follow zero signs).
std::vector<u64> random_nonzero(const spec& s, std::size_t n, std::mt19937_64& rng) {
  std::vector<u64> v;
  while (v.size() < n) {
    const u64 b = random_finite(s, 1, rng)[0];
    if (decode(s, b).mag != 0) v.push_back(b);
  }
  return v;
}

}  // namespace

TEST_CASE("accumulation models: sums and dots with fnuz, finite_only and binary32 accumulators") {
  std::mt19937_64 rng(19);
  // Lengths 5 to 212 (under AddressSanitizer every third one: 5, 74, 143, 212).
  for (int k = 0; k < 10; k += test_sanitizer::under_asan ? 3 : 1) {
    const std::size_t n = static_cast<std::size_t>(5 + 23 * k);
    // fp4 inputs: into binary32 (exact), into a fnuz accumulator (rounds; overflows to its NaN
    // past 240 under nearest), into a finite_only one (saturates at 28), and toward zero.
    const std::vector<u64> x = random_nonzero(fp4, n, rng);
    check_sequential_sum<lf::float4_e2m1fn>(lf::binary32, x);
    check_sequential_sum<lf::float4_e2m1fn>(lf::float8_e4m3fnuz, x);
    check_sequential_sum<lf::float4_e2m1fn>(lf::float8_e4m3b11fnuz, x);
    check_sequential_sum<lf::float4_e2m1fn>(lf::float6_e3m2fn, x);
    check_sequential_sum<lf::float4_e2m1fn>(lf::float8_e4m3fnuz, x, lf::rounding::toward_zero);
    check_sequential_sum<lf::float8_e4m3fnuz>(lf::binary32, random_nonzero(e4m3fnuz, n, rng));
    check_sequential_sum<lf::float8_e4m3fnuz>(lf::float8_e4m3fnuz, random_nonzero(e4m3fnuz, n, rng));
    check_sequential_sum<lf::float6_e2m3fn>(lf::float6_e2m3fn, random_nonzero(fp6_e2m3, n, rng));
    check_sequential_dot<lf::float4_e2m1fn>(lf::binary32, random_nonzero(fp4, n, rng), random_nonzero(fp4, n, rng));
    for (const lf::format& acc : {lf::float8_e4m3fnuz, lf::float6_e3m2fn})
      check_sequential_dot<lf::float4_e2m1fn>(acc, random_nonzero(fp4, n, rng), random_nonzero(fp4, n, rng));
    check_sequential_dot<lf::float8_e4m3fnuz>(lf::binary32, random_nonzero(e4m3fnuz, n, rng),
                                              random_nonzero(e4m3fnuz, n, rng));
    // E8M0 inputs (exact products 2^(a+b)) into binary32: the values are within 2^-10 .. 2^10, so
    // every partial sum is a multiple of 2^-20 below 2^30 and each step's exact value a double.
    std::uniform_int_distribution<u64> field(117, 137);
    std::vector<u64> s1, s2;
    for (std::size_t i = 0; i < n; ++i) s1.push_back(field(rng)), s2.push_back(field(rng));
    check_sequential_dot<lf::float8_e8m0fnu>(lf::binary32, s1, s2);
    check_sequential_sum<lf::float8_e8m0fnu>(lf::binary32, s1);
  }
  // A NaN input (fnuz 0x80) makes the sum NaN, in a binary32 and in a fnuz accumulator.
  check_sequential_sum<lf::float8_e4m3fnuz>(lf::binary32, {0x38, 0x80, 0x38});
  check_sequential_sum<lf::float8_e4m3fnuz>(lf::float8_e4m3fnuz, {0x38, 0x80, 0x38});
  // Overflow in a fnuz accumulator is its NaN (240 + 240 under nearest), in finite_only max finite.
  check_sequential_sum<lf::float8_e4m3fnuz>(lf::float8_e4m3fnuz, {0x7F, 0x7F});
  const lf::value sat = lf::sum(lf::accumulation{.input = lf::float4_e2m1fn, .accumulator = lf::float6_e3m2fn},
                                typed<lf::float4_e2m1fn>(std::vector<u64>(10, 0x7)));
  CHECK(decode(fp6_e3m2, sat.bits).mag == 28);  // 10 x 6 = 60 saturates at 28
  // +1 - 1 in a fnuz accumulator: +0, never the -0 encoding (the NaN), even rounding downward.
  const lf::value z = lf::sum(lf::accumulation{.input = lf::float4_e2m1fn, .accumulator = lf::float8_e4m3fnuz,
                                               .accumulator_env = lf::env{lf::rounding::downward}},
                              typed<lf::float4_e2m1fn>({0x2, 0xA}));
  CHECK(z.bits == 0x00);
  // An exponent-only accumulator has no zero to start from: the model is invalid (NaN, invalid).
  const lf::accumulation bad{.input = lf::float8_e8m0fnu, .accumulator = lf::float8_e8m0fnu};
  REQUIRE(bad.invalid_reason().has_value());
  CHECK(bad.invalid_reason()->find("no zero") != std::string::npos);
  lf::status st{};
  CHECK(lf::sum(bad, typed<lf::float8_e8m0fnu>({0x7F}), &st).bits == 0xFF);
  CHECK(lf::has(st, lf::status::invalid));
  // fits_in: the new kinds into formats that lack what they have.
  CHECK(lf::fits_in(lf::float4_e2m1fn, lf::float8_e4m3fnuz));
  CHECK(lf::fits_in(lf::float8_e8m0fnu, lf::binary32));
  CHECK_FALSE(lf::fits_in(lf::float8_e4m3fnuz, lf::float6_e2m3fn));  // fnuz has a NaN, FP6 has none
  // An OCP-style e2m1fn (values up to 4, NaN S.11.1) has values that all lie in FP6 E3M2, but its
  // NaN would become max finite there: it does not fit.
  CHECK_FALSE(lf::fits_in(lf::format{2, 2, lf::nonfinite::nan_only}, lf::float6_e3m2fn));
  CHECK(lf::fits_in(lf::format{4, 1, lf::nonfinite::nan_only}, lf::float8_e8m0fnu));  // exponent-only, narrower
}

// ---- matrix unit: the kept format keeps the output's bias ------------------------------------

TEST_CASE("matrix unit with a bias-11 fnuz output: the block result is rounded with bias 11") {
  // 1.5 * 2^-10 (binary16 0x1600) times 1: a normal of E4M3B11FNUZ (field 1, fraction 100 = 0x0C).
  // With bias 8 (the kind's standard bias) it would be a subnormal there, truncated to 2^-10 (0x08).
  lf::matrix_unit mu{};
  mu.output = lf::float8_e4m3b11fnuz;
  mu.output_fraction_bits = 3;
  mu.final_rounding = lf::rounding::toward_zero;
  REQUIRE(mu.valid());
  const std::vector<lf::bits_t> a{0x1600}, b{0x3C00};
  lf::status st{};
  const lf::bits_t r = lf::dot(mu, lf::binary16, a, lf::binary16, b, 0, st);
  CHECK(decode(e4m3b11fnuz, r).mag == Q(3, 2) * pow2(-10));
  CHECK(r == 0x0C);
  CHECK(st == lf::status::none);
  // A NaN operand gives the output's NaN (0x80); a block past max (30) its overflow value, the NaN.
  const std::vector<lf::bits_t> big{0x5000};  // 32
  st = {};
  CHECK(lf::dot(mu, lf::binary16, big, lf::binary16, b, 0, st) == 0x80);
  CHECK(lf::has(st, lf::status::overflow));
  // fnuz inputs, their all-ones maximum and their NaN, through the general block path.
  lf::matrix_unit m2{};
  const std::vector<lf::bits_t> x{0x7F, 0x7F}, y{0x40, 0x40};  // 240 * 1 twice (fnuz 1.0 = 0x40, bias 8)
  st = {};
  auto as_float = [](lf::bits_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); };
  CHECK(as_float(lf::dot(m2, lf::float8_e4m3fnuz, x, lf::float8_e4m3fnuz, y, 0, st)) == 480.0f);
  const std::vector<lf::bits_t> xn{0x7F, 0x80};
  CHECK(std::isnan(as_float(lf::dot(m2, lf::float8_e4m3fnuz, xn, lf::float8_e4m3fnuz, y, 0, st))));
}

// ---- quantize and convert over spans (core/array.hpp through the fast lanes or the core) ------

namespace {

template <lf::format F, typename T>
void check_spans(mode m) {
  const spec& s = spec_of(F);
  const grid g = grid_of(s);
  std::mt19937_64 rng(20);
  std::vector<T> in;
  for (double d : probe_inputs(s, g, rng)) {
    if constexpr (sizeof(T) == 4) {
      const float f = static_cast<float>(d);
      if (!std::isnan(d) && static_cast<double>(f) != d && std::isfinite(d)) continue;  // only what a float holds
      in.push_back(f);
    } else {
      in.push_back(d);
    }
  }
  const lf::rounding r = m == mode::nearest_even ? lf::rounding::nearest_even : lf::rounding::toward_zero;
  // quantize needs every value of F to be a T (values_fit_in, core/array.hpp): true for all of
  // these, E8M0 into float included (2^-127 .. 2^127).
  std::vector<T> q(in.size());
  (void)lf::quantize(std::span<const T>(in), std::span<T>(q), F, r);
  std::vector<lf::fp<F>> c(in.size());
  (void)lf::convert<F>(std::span<const T>(in), std::span<lf::fp<F>>(c), lf::env{r});
  for (std::size_t i = 0; i < in.size(); ++i) {
    const value want = round_reference(s, g, static_cast<double>(in[i]), m);
    CAPTURE(static_cast<double>(in[i]));
    CAPTURE(s.name);
    // quantize: the value as a T.
    const double qd = static_cast<double>(q[i]);
    if (want.what == value::nan) {
      CHECK(std::isnan(qd));
    } else if (want.what == value::inf) {
      CHECK((std::isinf(qd) && std::signbit(qd) == want.neg));
    } else {
      CHECK((!std::isnan(qd) && !std::isinf(qd) && Q(qd) == want.signed_value() && std::signbit(qd) == want.neg));
    }
    // convert: the encoding.
    CHECK_MESSAGE(same(s, c[i].bits(), want), show(s, c[i].bits()));
  }
}

}  // namespace

TEST_CASE("quantize and convert spans into the new formats, nearest even and toward zero, float and double") {
  for (mode m : {mode::nearest_even, mode::toward_zero}) {
    check_spans<lf::float4_e2m1fn, float>(m);
    check_spans<lf::float6_e3m2fn, float>(m);
    check_spans<lf::float6_e2m3fn, float>(m);
    check_spans<lf::float8_e4m3fnuz, float>(m);
    check_spans<lf::float8_e5m2fnuz, float>(m);
    check_spans<lf::float8_e4m3b11fnuz, float>(m);
    check_spans<lf::float8_e4m3, float>(m);  // IEEE-style: the fast lanes (lane_supported)
    check_spans<lf::float8_e3m4, float>(m);
    check_spans<lf::float8_e8m0fnu, float>(m);
    check_spans<e4m0_fmt, float>(m);
    check_spans<lf::float4_e2m1fn, double>(m);
    check_spans<lf::float8_e4m3fnuz, double>(m);
    check_spans<lf::float8_e4m3, double>(m);
    check_spans<lf::float8_e8m0fnu, double>(m);
  }
}

// ---- range_report's classes ---------------------------------------------------------------------

TEST_CASE("range classes on fnuz and finite_only targets; E8M0 is rejected") {
  using lf::training::range_class;
  const lf::training::scale_factor one{};
  auto cls = [&](const lf::format& f, float x) {
    return lf::training::classify_scaled(f, lf::binary32, std::bit_cast<std::uint32_t>(x), one);
  };
  CHECK(cls(lf::float8_e4m3fnuz, 300.0f) == range_class::overflow);   // -> NaN 0x80
  CHECK(cls(lf::float8_e4m3fnuz, 240.0f) == range_class::normal);     // max, the all-ones encoding
  CHECK(cls(lf::float8_e4m3fnuz, -1e-4f) == range_class::zero);       // -> +0
  CHECK(cls(lf::float8_e4m3fnuz, 0x1p-9f) == range_class::subnormal); // min normal 2^-7
  CHECK(cls(lf::float4_e2m1fn, 100.0f) == range_class::overflow);     // -> 6 with overflow raised
  CHECK(cls(lf::float4_e2m1fn, 0.2f) == range_class::zero);
  CHECK(cls(lf::float4_e2m1fn, 0.3f) == range_class::subnormal);      // -> 0.5
  CHECK_THROWS_AS(cls(lf::float8_e8m0fnu, 1.0f), std::invalid_argument);
  CHECK_THROWS_AS((void)lf::training::range_counter{lf::float8_e8m0fnu}, std::invalid_argument);
  lf::training::range_counter c(lf::float8_e4m3fnuz);
  const std::vector<float> v{300.0f, 240.0f, -1e-4f, 0x1p-9f, 0.0f, 1.0f};
  c.add(std::span<const float>(v));
  const lf::training::range_report r = c.report();
  CHECK(r.overflow == 1);
  CHECK(r.normal == 2);
  CHECK(r.zero == 1);
  CHECK(r.subnormal == 1);
  CHECK(r.exact_zero == 1);
}
