// exact_dot's fast paths (models/exact.hpp: the bucketed path for binary16, bfloat16, tf32 and the FP8
// formats, same and mixed; binary32 takes the term-by-term path) against an oracle written here:
// every operand decoded by tests/support/oracle.hpp (no libfloat code), the products summed
// exactly as cpp_int on a 2^-320 grid, IEEE specials decided by re-stating exact.hpp's documented
// rules, and the result rounded by oracle::round into binary16 / binary32 / binary64 / bfloat16 in
// every deterministic direction, bits and flags. Spans of 0..5000 terms: block boundaries (256),
// subnormals, zeros of both signs, exact cancellation (x, -x pairs) leaving tiny terms, 65504^2
// terms beside 2^-48 ones, and NaN / infinity operands at chosen places. Every span runs through
// the portable loop and through the one lf::array_dispatch_in_use() picks (AVX2 where the CPU has it).
#include <libfloat/models/exact.hpp>

#include <doctest/doctest.h>

#include "../support/oracle.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;
using boost::multiprecision::cpp_int;

constexpr long kLsb = -320;  // every product here (binary32 x binary32: 2^-298 and up) is a multiple

/// What exact_dot(a, b).round_to(t, mode) must give, decided from the operands alone.
struct expected_dot {
  cpp_int fixed = 0;  // the exact finite sum / 2^kLsb
  bool nan = false, invalid = false, invalid_nan = false, pos_inf = false, neg_inf = false;
  oracle::target nan_from{};
  u64 nan_bits = 0;
  std::size_t terms = 0, zero_products = 0, negative_zero_products = 0, nonzero_products = 0;

  void add(const oracle::target& ta, u64 a, const oracle::target& tb, u64 b) {
    ++terms;
    const oracle::operand x = oracle::decode(ta, a), y = oracle::decode(tb, b);
    if (x.nan || y.nan) {  // the first NaN operand (a before b) is the result; any sNaN is invalid
      if (x.snan || y.snan) invalid = true;
      if (!nan) {
        nan = true;
        nan_from = x.nan ? ta : tb;
        nan_bits = x.nan ? a : b;
      }
      return;
    }
    const bool neg = x.neg != y.neg;
    const bool inf = x.value.is_inf() || y.value.is_inf(), zero = x.value.is_zero() || y.value.is_zero();
    if (inf && zero) {
      invalid = invalid_nan = true;
      return;
    }
    if (inf) {
      (neg ? neg_inf : pos_inf) = true;
      return;
    }
    if (zero) {
      ++zero_products;
      if (neg) ++negative_zero_products;
      return;
    }
    ++nonzero_products;
    const cpp_int m = x.value.num * y.value.num;  // den == 1 for decoded encodings
    const cpp_int v = m << static_cast<unsigned>(x.value.exp + y.value.exp - kLsb);
    fixed += neg ? cpp_int(-v) : v;
  }

  /// The invalid flag (flags() and every rounding): a signaling NaN operand, 0 * inf, or infinite
  /// terms of both signs (IEEE 754-2019 §7.2 d), a NaN operand or not.
  bool raises_invalid() const { return invalid || (pos_inf && neg_inf); }

  oracle::result round(const oracle::target& t, oracle::mode m) const {
    const std::uint8_t fl = raises_invalid() ? oracle::flag::invalid : oracle::flag::none;
    if (nan) return {oracle::convert(t, nan_from, nan_bits, m).bits, fl};
    if (invalid_nan || (pos_inf && neg_inf)) return {t.default_nan(), oracle::flag::invalid};
    if (pos_inf || neg_inf) return {(neg_inf ? t.sign_mask() : 0) | t.top_bits(), fl};
    if (fixed == 0) {  // IEEE 754-2019 §6.3
      bool neg = false;
      if (nonzero_products == 0 && zero_products > 0 && negative_zero_products == zero_products) neg = true;
      else if (nonzero_products == 0 && negative_zero_products == 0) neg = false;
      else neg = m == oracle::mode::downward;
      return {neg ? t.sign_mask() : 0, fl};
    }
    const oracle::exact x = oracle::exact::dyadic(fixed < 0, fixed < 0 ? cpp_int(-fixed) : fixed, kLsb);
    oracle::result r = oracle::round(x, t, m);
    r.flags |= fl;
    return r;
  }
};

/// A random finite encoding of t (parameters from oracle::target only): zeros, subnormals, and
/// normals with biased exponents in [lo, hi] (clamped to the finite ones).
u64 random_finite(const oracle::target& t, std::mt19937_64& rng, long lo, long hi) {
  const u64 field_max = t.exp_field_max();
  const u64 top = t.nan_only ? field_max : field_max - 1;
  const u64 sign = (rng() & 1) ? t.sign_mask() : 0;
  u64 frac = rng() & t.frac_mask();
  const unsigned pick = rng() % 16;
  if (pick == 0) return sign;                           // zero
  if (pick == 1) return sign | (frac == 0 ? 1 : frac);  // subnormal
  long e = lo + static_cast<long>(rng() % static_cast<u64>(hi - lo + 1));
  e = std::clamp<long>(e, 1, static_cast<long>(top));
  if (t.nan_only && static_cast<u64>(e) == field_max && frac == t.frac_mask()) frac -= 1;  // not the NaN
  return sign | (static_cast<u64>(e) << (t.p - 1)) | frac;
}

/// Some NaN or infinity encoding of t.
u64 random_special(const oracle::target& t, std::mt19937_64& rng) {
  const u64 sign = (rng() & 1) ? t.sign_mask() : 0;
  if (t.nan_only) return sign | t.top_bits();  // the NaN
  switch (rng() % 3) {
    case 0: return sign | t.top_bits();                   // infinity
    case 1: return sign | t.top_bits() | t.quiet_bit();   // quiet NaN
    default: return sign | t.top_bits() | 1;             // signaling NaN (p >= 3) / the quiet one
  }
}

enum class shape { random, wide, cancel, huge_and_tiny, zeros, specials };
const char* shape_name(shape s) {
  switch (s) {
    case shape::random: return "random";
    case shape::wide: return "wide";
    case shape::cancel: return "cancel";
    case shape::huge_and_tiny: return "huge_and_tiny";
    case shape::zeros: return "zeros";
    case shape::specials: return "specials";
  }
  return "?";
}

/// Operand encodings of one test span.
struct span_data {
  std::vector<u64> a, b;
};

span_data make(const oracle::target& ta, const oracle::target& tb, shape s, std::size_t n, std::mt19937_64& rng) {
  span_data d;
  const long ca = 1 - ta.emin, cb = 1 - tb.emin;  // biased exponent of 1.0
  const long fa = static_cast<long>(ta.exp_field_max()), fb = static_cast<long>(tb.exp_field_max());
  auto finite_pair = [&](long spread) {
    d.a.push_back(random_finite(ta, rng, ca - spread, ca + spread));
    d.b.push_back(random_finite(tb, rng, cb - spread, cb + spread));
  };
  switch (s) {
    case shape::random:
      for (std::size_t i = 0; i < n; ++i) finite_pair(8);
      break;
    case shape::wide:  // the whole exponent range, subnormals included
      for (std::size_t i = 0; i < n; ++i) {
        d.a.push_back(random_finite(ta, rng, 1, fa));
        d.b.push_back(random_finite(tb, rng, 1, fb));
      }
      break;
    case shape::cancel: {  // x_i y_i and then x_i (-y_i), shuffled, plus one tiny product
      for (std::size_t i = 0; i < n / 2; ++i) {
        d.a.push_back(random_finite(ta, rng, 1, fa));
        d.b.push_back(random_finite(tb, rng, 1, fb));
      }
      for (std::size_t i = 0, k = d.a.size(); i < k; ++i) {
        d.a.push_back(d.a[i]);
        d.b.push_back(d.b[i] ^ tb.sign_mask());
      }
      if (n % 2 == 1) {  // smallest subnormal times smallest subnormal (or 1.0)
        d.a.push_back((rng() & 1) ? 1 : ta.sign_mask() | 1);
        d.b.push_back((rng() & 1) ? 1 : static_cast<u64>(cb) << (tb.p - 1));
      }
      for (std::size_t i = d.a.size(); i > 1; --i) {
        const std::size_t j = rng() % i;
        std::swap(d.a[i - 1], d.a[j]);
        std::swap(d.b[i - 1], d.b[j]);
      }
      break;
    }
    case shape::huge_and_tiny: {  // max finite squared, alternating signs, beside subnormal products
      const u64 max_a = ta.top_bits() - 1, max_b = tb.top_bits() - 1;  // below infinity / the E4M3 NaN
      for (std::size_t i = 0; i < n; ++i) {
        if (rng() % 3 == 0) {
          d.a.push_back(static_cast<u64>(1 + rng() % ta.frac_mask()) | ((rng() & 1) ? ta.sign_mask() : 0));
          d.b.push_back(static_cast<u64>(1 + rng() % tb.frac_mask()));
        } else {
          d.a.push_back(max_a | ((i & 1) ? ta.sign_mask() : 0));
          d.b.push_back(max_b);
        }
      }
      break;
    }
    case shape::zeros: {  // only zero products: all -0, all +0, or mixed
      const unsigned kind = rng() % 3;
      for (std::size_t i = 0; i < n; ++i) {
        const bool neg = kind == 0 ? true : kind == 1 ? false : (rng() & 1) != 0;
        const u64 other = random_finite(tb, rng, 1, fb) & ~tb.sign_mask();
        d.a.push_back(neg ? ta.sign_mask() : 0);  // +-0
        d.b.push_back(other == 0 ? 0 : other);   // +x (x may be +0 as well)
      }
      break;
    }
    case shape::specials: {
      for (std::size_t i = 0; i < n; ++i) finite_pair(4);
      const std::size_t where[] = {0, n - 1, 255, 256, 257, rng() % n, rng() % n};
      const unsigned count = 1 + rng() % 3;
      for (unsigned k = 0; k < count; ++k) {
        const std::size_t at = where[rng() % 7];
        if (at >= n) continue;
        if (rng() & 1) d.a[at] = random_special(ta, rng);
        else d.b[at] = random_special(tb, rng);
        if (rng() % 4 == 0) ((rng() & 1) ? d.a[at] : d.b[at]) = 0;  // sometimes 0 * inf
      }
      break;
    }
  }
  return d;
}

const oracle::target kTargets[] = {oracle::binary16, oracle::binary32, oracle::binary64, oracle::bfloat16};
const lf::format kTargetFormats[] = {lf::binary16, lf::binary32, lf::binary64, lf::bfloat16};
const lf::rounding kModes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                               lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};
const oracle::mode kOracleModes[] = {oracle::mode::nearest_even, oracle::mode::nearest_away, oracle::mode::toward_zero,
                                     oracle::mode::upward,       oracle::mode::downward,     oracle::mode::odd};

template <lf::format F, lf::format G>
void check_pair(const oracle::target& ta, const oracle::target& tb, const char* name, std::uint64_t seed,
                const std::vector<std::size_t>& lengths) {
  std::mt19937_64 rng(seed);
  const shape shapes[] = {shape::random,        shape::wide,  shape::cancel,
                          shape::huge_and_tiny, shape::zeros, shape::specials};
  const int rounds = lengths.back() <= 257 ? 2 : 1;  // short spans: two random draws
  for (int round = 0; round < rounds; ++round) {
    for (const std::size_t n : lengths)
      for (const shape s : shapes) {
        if (n == 0 && s == shape::specials) continue;
        const span_data d = make(ta, tb, s, n, rng);
        expected_dot want;
        std::vector<lf::fp<F>> a;
        std::vector<lf::fp<G>> b;
        for (std::size_t i = 0; i < n; ++i) {
          want.add(ta, d.a[i], tb, d.b[i]);
          a.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(d.a[i])));
          b.push_back(lf::fp<G>::from_bits(static_cast<typename lf::fp<G>::storage_type>(d.b[i])));
        }
        oracle::result expect[std::size(kTargets)][std::size(kModes)];
        for (std::size_t t = 0; t < std::size(kTargets); ++t)
          for (std::size_t m = 0; m < std::size(kModes); ++m) expect[t][m] = want.round(kTargets[t], kOracleModes[m]);
        for (const lf::array_dispatch path : {lf::array_dispatch::portable, lf::array_dispatch::automatic}) {
          const lf::array_dispatch previous = lf::set_array_dispatch(path);  // the portable loop, then the best
          const lf::exact_accumulator acc = lf::exact_dot(a, b);
          const std::string what = std::string(name) + " " + shape_name(s) + " n=" + std::to_string(n) +
                                   (path == lf::array_dispatch::portable ? " (portable loop)" : " (best loop)");
          lf::set_array_dispatch(previous);
          CHECK_MESSAGE(lf::to_bits(acc.flags()) == (want.raises_invalid() ? lf::to_bits(lf::status::invalid) : 0u), what);
          for (std::size_t t = 0; t < std::size(kTargets); ++t)
            for (std::size_t m = 0; m < std::size(kModes); ++m) {
              lf::status st{};
              const u64 got = acc.round_to(kTargetFormats[t], lf::env{kModes[m]}, st);
              const oracle::result& r = expect[t][m];
              if (got != r.bits || lf::to_bits(st) != r.flags) {
                FAIL_CHECK(what << " into " << kTargets[t].bits << "-bit/p" << kTargets[t].p << " "
                                << std::string(oracle::mode_name(kOracleModes[m])) << ": got " << oracle::hex(got, 64)
                                << " flags " << static_cast<int>(lf::to_bits(st)) << ", want " << oracle::hex(r.bits, 64)
                                << " flags " << static_cast<int>(r.flags));
                return;
              }
            }
          // The typed binary32 rounding the benchmark measures, and to_double.
          lf::status st{};
          const auto r32 = acc.round_to<lf::binary32>(lf::env{}, &st);
          CHECK_MESSAGE(r32.bits() == expect[1][0].bits, what);  // binary32, nearest even
          if (!want.nan && !want.invalid_nan && !(want.pos_inf && want.neg_inf))
            CHECK_MESSAGE(std::bit_cast<u64>(acc.to_double()) == expect[2][0].bits, what);  // binary64
        }
      }
  }
}

const std::vector<std::size_t> kShort{0, 1, 2, 3, 17, 255, 256, 257};
const std::vector<std::size_t> kLong{511, 4096, 5000};

}  // namespace

TEST_CASE("exact_dot on binary16 spans equals the cpp_int oracle (bits and flags, every direction)") {
  check_pair<lf::binary16, lf::binary16>(oracle::binary16, oracle::binary16, "binary16", 1, kShort);
  check_pair<lf::binary16, lf::binary16>(oracle::binary16, oracle::binary16, "binary16", 2, kLong);
}

TEST_CASE("exact_dot on FP8 spans (E4M3, E5M2, mixed) equals the cpp_int oracle") {
  check_pair<lf::float8_e4m3fn, lf::float8_e4m3fn>(oracle::e4m3, oracle::e4m3, "e4m3", 3, kShort);
  check_pair<lf::float8_e4m3fn, lf::float8_e4m3fn>(oracle::e4m3, oracle::e4m3, "e4m3", 4, {511, 5000});
  check_pair<lf::float8_e5m2, lf::float8_e5m2>(oracle::e5m2, oracle::e5m2, "e5m2", 5, kShort);
  check_pair<lf::float8_e5m2, lf::float8_e5m2>(oracle::e5m2, oracle::e5m2, "e5m2", 6, {1000});
  check_pair<lf::float8_e4m3fn, lf::float8_e5m2>(oracle::e4m3, oracle::e5m2, "e4m3 x e5m2", 7, kShort);
  check_pair<lf::float8_e5m2, lf::float8_e4m3fn>(oracle::e5m2, oracle::e4m3, "e5m2 x e4m3", 8, {600});
}

TEST_CASE("exact_dot on bfloat16, tf32, binary32 and mixed spans equals the cpp_int oracle") {
  check_pair<lf::bfloat16, lf::bfloat16>(oracle::bfloat16, oracle::bfloat16, "bfloat16", 9, kShort);
  check_pair<lf::bfloat16, lf::bfloat16>(oracle::bfloat16, oracle::bfloat16, "bfloat16", 10, {4096});
  check_pair<lf::tfloat32, lf::tfloat32>(oracle::tf32, oracle::tf32, "tf32", 11, {0, 1, 257, 1000});
  check_pair<lf::binary16, lf::float8_e4m3fn>(oracle::binary16, oracle::e4m3, "binary16 x e4m3", 12, {1, 256, 1000});
  check_pair<lf::bfloat16, lf::binary16>(oracle::bfloat16, oracle::binary16, "bfloat16 x binary16", 13, {3, 300});
  check_pair<lf::binary32, lf::binary32>(oracle::binary32, oracle::binary32, "binary32", 14, {0, 1, 257, 1000});
  check_pair<lf::binary16, lf::binary32>(oracle::binary16, oracle::binary32, "binary16 x binary32", 15, {300});
}

TEST_CASE("exact_dot: hand-checked cases through the bucketed path") {
  // 65504 * 65504 = 4290774016 = (2^11 - 1)^2 * 2^10, 3000 times with alternating signs, plus
  // 2^-24 * 2^-24 = 2^-48: the huge terms cancel to 0, the total is 2^-48 exactly.
  std::vector<lf::fp16> a, b;
  for (int i = 0; i < 3000; ++i) {
    a.push_back(lf::fp16::from_bits(static_cast<std::uint16_t>(i % 2 ? 0xFBFF : 0x7BFF)));  // -+65504
    b.push_back(lf::fp16::from_bits(0x7BFF));  // 0b0'11110'1111111111 = 65504, max finite
  }
  a.insert(a.begin() + 1234, lf::fp16::from_bits(0x0001));  // 2^-24, smallest subnormal
  b.insert(b.begin() + 1234, lf::fp16::from_bits(0x0001));
  const auto acc = lf::exact_dot(a, b);
  CHECK(acc.to_double() == 0x1p-48);
  CHECK(acc.ilogb() == -48);
  CHECK(acc.limbs() == lf::exact_accumulator::inline_limbs);  // nothing allocated
  // 3001 terms of +65504^2: 3001 * 4290774016 = 12876612822016, exact in binary64.
  std::vector<lf::fp16> c(3001, lf::fp16::from_bits(0x7BFF));
  CHECK(lf::exact_dot(c, c).to_double() == 12876612822016.0);
  // Only -0 products over two blocks stay -0; one +0 among them makes +0 (-0 downward).
  std::vector<lf::fp16> nz(600, lf::fp16::from_bits(0x8000)), one(600, lf::fp16::from_bits(0x3C00));  // -0, 1.0
  CHECK(lf::exact_dot(nz, one).round_to<lf::binary32>().bits() == 0x80000000u);
  nz[599] = lf::fp16::from_bits(0x0000);
  CHECK(lf::exact_dot(nz, one).round_to<lf::binary32>().bits() == 0u);
  CHECK(lf::exact_dot(nz, one).round_to<lf::binary32>(lf::env{lf::rounding::downward}).bits() == 0x80000000u);
  // A NaN at the end of the second block wins over an infinity earlier; an sNaN is invalid.
  std::vector<lf::fp16> x(600, lf::fp16::from_bits(0x3C00)), y(600, lf::fp16::from_bits(0x3C00));
  x[10] = lf::fp16::from_bits(0x7C00);    // +inf
  y[511] = lf::fp16::from_bits(0x7D01);   // 0b0'11111'0100000001: sNaN, payload 0x101
  lf::status st{};
  const auto r = lf::exact_dot(x, y).round_to<lf::binary32>(lf::env{}, &st);
  CHECK(r.bits() == 0x7FE02000u);  // quieted, payload 0x101 << 13
  CHECK(st == lf::status::invalid);
}
