// std::numeric_limits<lf::fp<F>> and the TF32 word helpers, against independent computations:
//  - the decimal members ([numeric.limits.members]: max_exponent10 is the largest k with 10^k in
//    the range of finite values, min_exponent10 the smallest k with 10^k at or above the smallest
//    normal value; digits10 = floor((p - 1) log10 2) and max_digits10 = ceil(1 + p log10 2), C11
//    5.2.4.2.2) for every named format and 30 custom ones, from the format's parameters re-derived
//    here (IEEE 754-2019 §3.3: bias 2^(w-1) - 1; the OCP FP8 "fn" layout's extra binade) and exact
//    Boost cpp_int comparisons of 10^k with max finite = (2^p - 1 or 2^p - 2) * 2^(emax - p + 1)
//    and with 2^emin; the same rule for every valid (w, p, kind) through the helper they use;
//  - max() as a double: the exact max finite value when every value of F is a binary64 value,
//    +infinity beyond binary64's range (w >= 12, or w = 11 without infinities);
//  - lf::tf32_from_binary32_word on every NaN word with the high payload bits zero (both signs,
//    quiet and signaling, all 2^13 low payloads) against the rule written out here, the round trip
//    through tf32_to_binary32_word for all 2^19 encodings, and plain truncation for finite words.
#include <libfloat/core/fp.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "../support/oracle.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace {

using boost::multiprecision::cpp_int;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// How the format encodes non-finite values, as the specs describe the layouts.
enum class layout { ieee, nan_only, finite_only, fnuz, exponent_only };

/// A format's parameters from its field widths and bias alone (IEEE 754-2019 §3.3 for the IEEE
/// layout; the OCP FP8 "fn" layout keeps the all-ones exponent for finite values, so emax is one
/// larger and the all-ones significand there is the NaN; OCP MX FP6/FP4 (finite only) and FNUZ
/// (NaN at -0) keep every all-ones encoding finite; OCP MX E8M0 is exponent only: field e is
/// 2^(e - bias) from e = 0, and all ones is the NaN).
struct params {
  int w, p;
  layout kind;
  int bias_;
  int bias() const { return bias_; }
  int emin() const { return (kind == layout::exponent_only ? 0 : 1) - bias(); }
  int emax() const {
    return (kind == layout::ieee || kind == layout::exponent_only ? (1 << w) - 2 : (1 << w) - 1) - bias();
  }
  /// max finite = max_sig() * 2^max_q()
  u64 max_sig() const {
    if (kind == layout::exponent_only) return 1;
    return (u64{1} << p) - (kind == layout::nan_only ? 2 : 1);
  }
  int max_q() const { return emax() - p + 1; }
};

params params_of(const lf::format& f) {
  layout k = layout::ieee;
  if (f.precision == 1) k = layout::exponent_only;
  else if (f.kind == lf::nonfinite::nan_only) k = layout::nan_only;
  else if (f.kind == lf::nonfinite::finite_only) k = layout::finite_only;
  else if (f.kind == lf::nonfinite::fnuz) k = layout::fnuz;
  return {f.exponent_bits, f.precision, k, f.exponent_bias};
}

cpp_int pow10(int k) { return boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(k)); }

/// Compares 10^k (k >= 0) with m * 2^q exactly: <0, 0 or >0.
int cmp_pow10(int k, u64 m, int q) {
  const cpp_int lhs = q >= 0 ? pow10(k) : pow10(k) << -q;
  const cpp_int rhs = q >= 0 ? cpp_int(m) << q : cpp_int(m);
  return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

/// The largest k >= 0 with 10^k <= m * 2^q (m * 2^q >= 1): a floating estimate, then moved until
/// the exact comparisons hold, so the answer rests on the comparisons only.
int largest_pow10_at_most(u64 m, int q) {
  int k = static_cast<int>(std::floor(std::log10(static_cast<double>(m)) + q * std::log10(2.0)));
  if (k < 0) k = 0;
  while (k > 0 && cmp_pow10(k, m, q) > 0) --k;
  while (cmp_pow10(k + 1, m, q) <= 0) ++k;
  REQUIRE(cmp_pow10(k, m, q) <= 0);
  REQUIRE(cmp_pow10(k + 1, m, q) > 0);
  return k;
}

struct decimal_members {
  int digits10, max_digits10, min_exponent10, max_exponent10;
};

decimal_members reference(const params& f) {
  decimal_members r{};
  r.max_exponent10 = largest_pow10_at_most(f.max_sig(), f.max_q());  // 10^k <= max finite
  r.min_exponent10 = -largest_pow10_at_most(1, -f.emin());  // 10^k >= 2^emin  <=>  10^-k <= 2^-emin
  r.digits10 = largest_pow10_at_most(1, f.p - 1);            // floor((p - 1) log10 2)
  // ceil(1 + p log10 2) = 1 + the smallest j with 10^j > 2^p (never equal: 2^p is not a power of 10)
  r.max_digits10 = 1 + largest_pow10_at_most(1, f.p) + 1;
  return r;
}

/// Whether every finite value of the format is a binary64 value: p <= 53, emax <= 1023 and the
/// smallest subnormal 2^(emin - p + 1) >= 2^-1074.
bool fits_binary64(const params& f) { return f.p <= 53 && f.emax() <= 1023 && f.emin() - f.p + 1 >= -1074; }

/// m * 2^q == d exactly (d finite and positive).
bool equals_exactly(double d, u64 m, int q) {
  int e = 0;
  const double fr = std::frexp(d, &e);  // d = fr * 2^e, fr in [0.5, 1)
  const auto dm = static_cast<u64>(std::ldexp(fr, 53));  // d = dm * 2^(e - 53), exact
  const int dq = e - 53;
  const int lo = std::min(q, dq);
  return (cpp_int(m) << (q - lo)) == (cpp_int(dm) << (dq - lo));
}

template <lf::format F>
void check_format(const params& f) {
  using L = std::numeric_limits<lf::fp<F>>;
  const std::string name = lf::format_name(F);
  CAPTURE(name);
  REQUIRE(F.exponent_bits == f.w);
  REQUIRE(F.precision == f.p);
  const decimal_members r = reference(f);
  CHECK(L::digits == f.p);
  CHECK(L::min_exponent == f.emin() + 1);
  CHECK(L::max_exponent == f.emax() + 1);
  CHECK(L::digits10 == r.digits10);
  CHECK(L::max_digits10 == r.max_digits10);
  CHECK(L::min_exponent10 == r.min_exponent10);
  CHECK(L::max_exponent10 == r.max_exponent10);
  // max(): exponent field all ones less one (IEEE), all ones with the largest non-NaN fraction
  // (nan_only), all ones (finite_only, fnuz), the field below the NaN (exponent only).
  const u64 frac_mask = (u64{1} << (f.p - 1)) - 1;
  const u64 e_top = (u64{1} << f.w) - 1;
  u64 max_bits = ((e_top - 1) << (f.p - 1)) | frac_mask;
  if (f.kind == layout::nan_only) max_bits = (e_top << (f.p - 1)) | (frac_mask - 1);
  if (f.kind == layout::finite_only || f.kind == layout::fnuz) max_bits = (e_top << (f.p - 1)) | frac_mask;
  if (f.kind == layout::exponent_only) max_bits = e_top - 1;
  CHECK(L::max().bits() == max_bits);
  const double dmax = static_cast<double>(L::max());
  if (fits_binary64(f)) {
    CHECK(equals_exactly(dmax, f.max_sig(), f.max_q()));
    CHECK(equals_exactly(static_cast<double>(L::min()), 1, f.emin()));
  } else {
    // Rounded to nearest even: beyond binary64's max finite + ulp/2 (2^1024 - 2^970) it is +inf.
    CHECK(f.emax() >= 1024);
    CHECK(dmax == std::numeric_limits<double>::infinity());
  }
}

constexpr lf::format custom_formats[] = {
    {2, 2},  {2, 2, lf::nonfinite::nan_only}, {2, 6},  {3, 3},  {3, 3, lf::nonfinite::nan_only}, {2, 4},
    {5, 4, lf::nonfinite::nan_only},          {9, 2},  {9, 2, lf::nonfinite::nan_only},          {6, 10},
    {7, 8},  {8, 3},  {8, 24, lf::nonfinite::nan_only}, {10, 6}, {10, 21}, {11, 5},
    {11, 53, lf::nonfinite::nan_only},        {12, 4}, {12, 52}, {13, 7},  {14, 3, lf::nonfinite::nan_only},
    {15, 49}, {15, 48, lf::nonfinite::nan_only}, {15, 2}, {4, 2},  {3, 5},  {6, 2, lf::nonfinite::nan_only},
    {7, 25},  {10, 53}, {4, 8, lf::nonfinite::nan_only},
    // the kinds of OCP MX and FNUZ on other widths: finite only, NaN at -0 (with explicit biases),
    // exponent only
    {3, 4, lf::nonfinite::finite_only}, {5, 3, lf::nonfinite::finite_only}, {6, 6, lf::nonfinite::fnuz},
    {4, 4, lf::nonfinite::fnuz, 3},     {5, 3, lf::nonfinite::fnuz, 20},    {5, 1, lf::nonfinite::nan_only},
    {10, 1, lf::nonfinite::nan_only},
};
static_assert(std::size(custom_formats) == 37);

template <std::size_t... I>
void check_named(std::index_sequence<I...>) {
  (check_format<lf::named_formats[I].fmt>(params_of(lf::named_formats[I].fmt)), ...);
}
template <std::size_t... I>
void check_custom(std::index_sequence<I...>) {
  (check_format<custom_formats[I]>(params_of(custom_formats[I])), ...);
}

}  // namespace

TEST_CASE("numeric_limits decimal members of every named format: exact comparisons with 10^k") {
  check_named(std::make_index_sequence<std::size(lf::named_formats)>{});
  // The C and C++ values for the hardware types, for comparison.
  CHECK(std::numeric_limits<lf::fp32>::max_exponent10 == std::numeric_limits<float>::max_exponent10);
  CHECK(std::numeric_limits<lf::fp32>::min_exponent10 == std::numeric_limits<float>::min_exponent10);
  CHECK(std::numeric_limits<lf::fp64>::max_exponent10 == std::numeric_limits<double>::max_exponent10);
  CHECK(std::numeric_limits<lf::fp64>::min_exponent10 == std::numeric_limits<double>::min_exponent10);
}

TEST_CASE("numeric_limits of 30 custom formats, e5m3fn (max 114688: 5) and e9m1 (max 1.5 * 2^255: 76) among them") {
  // e5m3fn: bias 15, emax 31 - 15 = 16, max 1.75 * 2^16 = 114688, so 10^5 <= max < 10^6.
  // e9m1: bias 255, emax 510 - 255 = 255, max 1.5 * 2^255 ~ 8.7e76 < 10^77.
  CHECK(std::numeric_limits<lf::fp<lf::format{5, 4, lf::nonfinite::nan_only}>>::max_exponent10 == 5);
  CHECK(std::numeric_limits<lf::fp<lf::format{9, 2}>>::max_exponent10 == 76);
  check_custom(std::make_index_sequence<std::size(custom_formats)>{});
}

TEST_CASE("the exact floor(log10) behind the members: every valid format's max finite and 2^-emin") {
  int checked = 0, bad = 0;
  for (int w = 2; w <= 15; ++w)
    for (int p = 2; p <= lf::max_precision; ++p)
      for (bool nan_only : {false, true}) {
        const lf::format fmt{w, p, nan_only ? lf::nonfinite::nan_only : lf::nonfinite::ieee};
        if (!fmt.valid()) continue;
        const params f = params_of(fmt);
        const decimal_members r = reference(f);
        bad += lf::detail::floor_log10_scaled(f.max_sig(), f.max_q()) != r.max_exponent10;
        bad += -lf::detail::floor_log10_scaled(1, -f.emin()) != r.min_exponent10;
        ++checked;
      }
  CHECK(checked > 1000);
  CHECK(bad == 0);
}

TEST_CASE("tf32_from_binary32_word: a NaN word stays a NaN; the round trip is the identity") {
  // The rule, as written here: drop the low 13 bits; if the word is a NaN (exponent all ones,
  // fraction nonzero) whose fraction lies entirely in those bits, give the quiet NaN of the same
  // sign with a zero payload: sign << 18 | 0xFF << 10 | 0x200.
  int bad = 0;
  for (u32 sign : {0u, 1u}) {
    const u32 tf_sign = sign << 18;
    for (u32 low = 0; low < (1u << 13); ++low) {
      const u32 quiet = sign << 31 | 0x7FC00000u | low, signaling = sign << 31 | 0x7F800000u | low;
      const auto q = lf::tf32_from_binary32_word(quiet), s = lf::tf32_from_binary32_word(signaling);
      bad += q.bits() != (tf_sign | 0x3FE00u);
      bad += lf::classify(q) != lf::fp_class::quiet_nan;
      if (low == 0) {
        bad += s.bits() != (tf_sign | 0x3FC00u);  // the infinity
        bad += lf::classify(s) != (sign ? lf::fp_class::negative_infinity : lf::fp_class::positive_infinity);
      } else {
        bad += s.bits() != (tf_sign | 0x3FE00u);
        bad += lf::classify(s) != lf::fp_class::quiet_nan;
      }
    }
  }
  CHECK(bad == 0);
  CHECK(lf::tf32_from_binary32_word(0x7F800001u).bits() == 0x3FE00u);
  CHECK(lf::tf32_from_binary32_word(0xFF801FFFu).bits() == 0x7FE00u);
  // A NaN with payload bits above the low 13 keeps them (and its signaling bit): 0x7F802000 is
  // tf32's signaling NaN 0x3FC01.
  CHECK(lf::tf32_from_binary32_word(0x7F802001u).bits() == 0x3FC01u);
  CHECK(lf::issignaling(lf::tf32_from_binary32_word(0x7F802001u)));
  // Every encoding survives the trip through the 32-bit word.
  int trip_bad = 0;
  for (u32 x = 0; x < (1u << 19); ++x)
    trip_bad += lf::tf32_from_binary32_word(lf::tf32_to_binary32_word(lf::tf32::from_bits(x))).bits() != x;
  CHECK(trip_bad == 0);
  // Finite words and infinities: the top 19 bits, i.e. the value truncated toward zero to 10
  // fraction bits; as a value, the oracle's decoding of w with the low 13 bits cleared.
  int trunc_bad = 0;
  for (u64 i = 0; i < 200000; ++i) {
    const u32 w = static_cast<u32>(i * 0x9E3779B9u);
    if ((w & 0x7F800000u) == 0x7F800000u && (w & 0x7FFFFFu) != 0) continue;  // NaNs: above
    const u64 t = lf::tf32_from_binary32_word(w).bits();
    trunc_bad += oracle::convert(oracle::binary32, oracle::tf32, t, oracle::mode::nearest_even).bits != (w & 0xFFFFE000u);
  }
  CHECK(trunc_bad == 0);
}
