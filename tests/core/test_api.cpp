// The public API's stable names and their documented behaviour: the typed values, numeric_limits
// for every named format (against IEEE 754-2019 §3.6, OCP FP8 v1.0 and the C/C++ definitions), constexpr use,
// std::hash, operator<<, name lookup, classification, neighbours, §9.6 minimum/maximum, remainder,
// roundToIntegral, integer conversions, the tf32 word helpers and custom formats.
//
// Expected values come from the spec tables, hand derivations in the comments, the C++ standard
// library for float/double (std::nextafter, std::remainder, std::trunc, std::numeric_limits<float>,
// ...), and an independent decoder written here from the format definitions.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using u64 = std::uint64_t;

/// Independent decoder: the value of an encoding from the format's parameters, by the IEEE 754-2019
/// §3.4 formula (subnormal: 0.f * 2^emin; normal: 1.f * 2^(E - bias)); NaN for NaN encodings.
double reference_value(int w, int p, bool nan_only, u64 bits) {
  const int fb = p - 1;
  const int bias = (1 << (w - 1)) - 1;
  const bool neg = (bits >> (w + fb)) & 1;
  const u64 E = (bits >> fb) & ((u64{1} << w) - 1);
  const u64 F = bits & ((u64{1} << fb) - 1);
  const u64 all_e = (u64{1} << w) - 1, all_f = (u64{1} << fb) - 1;
  double v;
  if (!nan_only && E == all_e) v = F == 0 ? INFINITY : NAN;
  else if (nan_only && E == all_e && F == all_f) v = NAN;
  else if (E == 0) v = std::ldexp(static_cast<double>(F), 1 - bias - fb);
  else v = std::ldexp(static_cast<double>((u64{1} << fb) | F), static_cast<int>(E) - bias - fb);
  return neg ? -v : v;
}

template <lf::format F>
bool same_double(lf::fp<F> x, double v) {
  const double got = static_cast<double>(x);
  if (std::isnan(v)) return std::isnan(got);
  return std::bit_cast<u64>(got) == std::bit_cast<u64>(v);
}

/// The numeric_limits members C and C++ define from p, emin, emax (C11 5.2.4.2.2), computed with
/// floating logarithms here, independently of the library's integer formulas.
struct limits_reference {
  int digits10, max_digits10, min_exponent, max_exponent, min_exponent10, max_exponent10;
};
limits_reference limits_from(int p, int emin, int emax, double max_finite) {
  const double l2 = std::log10(2.0);
  return {static_cast<int>(std::floor((p - 1) * l2)), static_cast<int>(std::ceil(1 + p * l2)), emin + 1, emax + 1,
          static_cast<int>(std::ceil(emin * l2)), static_cast<int>(std::floor(std::log10(max_finite)))};
}

template <lf::format F>
void check_limits(int p, int emin, int emax, double max, double min_normal, double denorm_min, double epsilon,
                  bool has_inf) {
  using L = std::numeric_limits<lf::fp<F>>;
  INFO(lf::format_name(F));
  static_assert(L::is_specialized && L::radix == 2 && L::is_signed && !L::is_integer && !L::is_exact);
  CHECK(L::digits == p);
  CHECK(static_cast<double>(L::max()) == max);
  CHECK(static_cast<double>(L::lowest()) == -max);
  CHECK(static_cast<double>(L::min()) == min_normal);
  CHECK(static_cast<double>(L::denorm_min()) == denorm_min);
  CHECK(static_cast<double>(L::epsilon()) == epsilon);
  CHECK(static_cast<double>(L::round_error()) == 0.5);
  CHECK(L::has_infinity == has_inf);
  CHECK(L::has_quiet_NaN);
  CHECK(std::isnan(static_cast<double>(L::quiet_NaN())));
  CHECK(lf::classify(L::quiet_NaN()) == lf::fp_class::quiet_nan);
  if (has_inf) {
    CHECK(static_cast<double>(L::infinity()) == INFINITY);
    CHECK(L::has_signaling_NaN == (p >= 3));
    if (p >= 3) CHECK(lf::classify(L::signaling_NaN()) == lf::fp_class::signaling_nan);
  } else {
    CHECK_FALSE(L::has_signaling_NaN);
    CHECK_FALSE(L::is_iec559);
  }
  const limits_reference r = limits_from(p, emin, emax, max);
  CHECK(L::digits10 == r.digits10);
  CHECK(L::max_digits10 == r.max_digits10);
  CHECK(L::min_exponent == r.min_exponent);
  CHECK(L::max_exponent == r.max_exponent);
  CHECK(L::min_exponent10 == r.min_exponent10);
  CHECK(L::max_exponent10 == r.max_exponent10);
  CHECK(L::has_denorm == std::denorm_present);
  CHECK(L::round_style == std::round_to_nearest);
  CHECK_FALSE(L::tinyness_before);  // the default policy: tininess after rounding
  CHECK_FALSE(L::traps);
}

u64 bits64(double v) { return std::bit_cast<u64>(v); }

}  // namespace

// ---- stable names --------------------------------------------------------------------------------

TEST_CASE("lf::fp16 x{0.1}: bits 0x2E66, value 0.0999755859375; from_bits(0x3C00) == 1.0; bf16 max 0x7F7F") {
  // 0.1 = 1.6 * 2^-4; 1.6 * 2^10 = 1638.4 -> 1638 = 1.1001100110b: 0.01011.1001100110 = 0x2E66
  lf::fp16 x{0.1};
  CHECK(x.bits() == 0x2E66);
  CHECK(static_cast<double>(x) == 0.0999755859375);
  CHECK(static_cast<float>(x) == 0.0999755859375f);
  CHECK(lf::fp16::from_bits(0x3C00) == lf::fp16{1.0});
  CHECK(double(lf::fp16::from_bits(0x3C00)) == 1.0);
  CHECK(std::numeric_limits<lf::bf16>::max().bits() == 0x7F7F);
  static_assert(std::is_same_v<lf::fp16, lf::fp<lf::binary16>> && std::is_same_v<lf::bf16, lf::fp<lf::bfloat16>> &&
                std::is_same_v<lf::fp32, lf::fp<lf::binary32>> && std::is_same_v<lf::fp64, lf::fp<lf::binary64>> &&
                std::is_same_v<lf::tf32, lf::fp<lf::tfloat32>> && std::is_same_v<lf::fp8_e4m3, lf::fp<lf::float8_e4m3fn>> &&
                std::is_same_v<lf::fp8_e5m2, lf::fp<lf::float8_e5m2>>);
  static_assert(sizeof(lf::fp16) == 2 && sizeof(lf::fp8_e4m3) == 1 && sizeof(lf::fp32) == 4 && sizeof(lf::tf32) == 4);
  CHECK(lf::fp16{}.bits() == 0);  // default: +0
  CHECK(lf::fp16(3).bits() == 0x4200);       // from an integer: 1.1b * 2^1 = 0.10000.1000000000
  CHECK(lf::fp16(-2048).bits() == 0xE800);   // 2^11: 1.11010.0000000000
  CHECK(lf::fp16(2049).bits() == 0x6800);    // tie between 2048 and 2050: even 2048
}

// ---- numeric_limits, every named format ----------------------------------------------------------

TEST_CASE("numeric_limits of every named format matches IEEE 754-2019 §3.6, OCP FP8 v1.0 and the C definitions") {
  // binary16: p 11, emin -14, emax 15, max 65504, 2^-14, 2^-24, eps 2^-10
  check_limits<lf::binary16>(11, -14, 15, 65504, 0x1p-14, 0x1p-24, 0x1p-10, true);
  // bfloat16: max 0x7F7F = 1.1111111b * 2^127 = (2 - 2^-7) 2^127 ~ 3.38953139e38
  check_limits<lf::bfloat16>(8, -126, 127, 0x1.FEp127, 0x1p-126, 0x1p-133, 0x1p-7, true);
  CHECK(std::fabs(static_cast<double>(std::numeric_limits<lf::bf16>::max()) / 3.38953139e38 - 1) < 1e-8);
  check_limits<lf::binary32>(24, -126, 127, 0x1.FFFFFEp127, 0x1p-126, 0x1p-149, 0x1p-23, true);
  CHECK(std::fabs(static_cast<double>(std::numeric_limits<lf::fp32>::max()) / 3.40282347e38 - 1) < 1e-8);
  check_limits<lf::binary64>(53, -1022, 1023, DBL_MAX, DBL_MIN, 0x1p-1074, DBL_EPSILON, true);
  // tf32: binary32's range, p 11: max (2 - 2^-10) 2^127, min subnormal 2^(-126 - 10)
  check_limits<lf::tfloat32>(11, -126, 127, 0x1.FFCp127, 0x1p-126, 0x1p-136, 0x1p-10, true);
  // OCP E4M3: max 1.110b * 2^8 = 448, min normal 2^-6, min subnormal 2^-9, eps 2^-3, no infinity
  check_limits<lf::float8_e4m3fn>(4, -6, 8, 448, 0x1p-6, 0x1p-9, 0x1p-3, false);
  // OCP E5M2: max 1.11b * 2^15 = 57344, 2^-14, 2^-16, eps 2^-2
  check_limits<lf::float8_e5m2>(3, -14, 15, 57344, 0x1p-14, 0x1p-16, 0x1p-2, true);
}

TEST_CASE("numeric_limits<fp32>/<fp64> equal std::numeric_limits<float>/<double> member by member") {
  using LF = std::numeric_limits<lf::fp32>;
  using SF = std::numeric_limits<float>;
  CHECK(LF::digits == SF::digits);
  CHECK(LF::digits10 == SF::digits10);
  CHECK(LF::max_digits10 == SF::max_digits10);
  CHECK(LF::min_exponent == SF::min_exponent);
  CHECK(LF::max_exponent == SF::max_exponent);
  CHECK(LF::min_exponent10 == SF::min_exponent10);
  CHECK(LF::max_exponent10 == SF::max_exponent10);
  CHECK(LF::is_iec559 == SF::is_iec559);
  CHECK(LF::has_signaling_NaN == SF::has_signaling_NaN);
  CHECK(LF::max().bits() == std::bit_cast<std::uint32_t>(SF::max()));
  CHECK(LF::min().bits() == std::bit_cast<std::uint32_t>(SF::min()));
  CHECK(LF::lowest().bits() == std::bit_cast<std::uint32_t>(SF::lowest()));
  CHECK(LF::epsilon().bits() == std::bit_cast<std::uint32_t>(SF::epsilon()));
  CHECK(LF::denorm_min().bits() == std::bit_cast<std::uint32_t>(SF::denorm_min()));
  CHECK(LF::infinity().bits() == std::bit_cast<std::uint32_t>(SF::infinity()));
  CHECK(LF::quiet_NaN().bits() == std::bit_cast<std::uint32_t>(SF::quiet_NaN()));

  using LD = std::numeric_limits<lf::fp64>;
  using SD = std::numeric_limits<double>;
  CHECK(LD::digits == SD::digits);
  CHECK(LD::digits10 == SD::digits10);
  CHECK(LD::max_digits10 == SD::max_digits10);
  CHECK(LD::min_exponent == SD::min_exponent);
  CHECK(LD::max_exponent == SD::max_exponent);
  CHECK(LD::min_exponent10 == SD::min_exponent10);
  CHECK(LD::max_exponent10 == SD::max_exponent10);
  CHECK(LD::max().bits() == std::bit_cast<u64>(SD::max()));
  CHECK(LD::min().bits() == std::bit_cast<u64>(SD::min()));
  CHECK(LD::epsilon().bits() == std::bit_cast<u64>(SD::epsilon()));
  CHECK(LD::denorm_min().bits() == std::bit_cast<u64>(SD::denorm_min()));
  CHECK(LD::quiet_NaN().bits() == std::bit_cast<u64>(SD::quiet_NaN()));
#ifdef __FLT16_MANT_DIG__
  // binary16 against the compiler's own _Float16 description (GCC's predefined macros)
  using LH = std::numeric_limits<lf::fp16>;
  CHECK(LH::digits == __FLT16_MANT_DIG__);
  CHECK(LH::digits10 == __FLT16_DIG__);
  CHECK(LH::max_digits10 == __FLT16_DECIMAL_DIG__);
  CHECK(LH::min_exponent == __FLT16_MIN_EXP__);
  CHECK(LH::max_exponent == __FLT16_MAX_EXP__);
  CHECK(LH::min_exponent10 == __FLT16_MIN_10_EXP__);
  CHECK(LH::max_exponent10 == __FLT16_MAX_10_EXP__);
#endif
}

// ---- constexpr -------------------------------------------------------------------------------------

// Typed arithmetic is usable in constant expressions: 1 + 2 = 3 = 0.10000.1000000000 = 0x4200;
// sqrt(2) in binary16 = 1.0110101000b (1.41421 * 1024 = 1448.15 -> 1448) = 0x3DA8;
// fma(3, 3, -8) = 1 exactly; E4M3 1.5 * 1.5 = 2.25 = 1.001b * 2^1 = 0.1000.001 = 0x41.
static_assert((lf::fp16(1.0) + lf::fp16(2.0)).bits() == 0x4200);
static_assert((lf::fp16(1.0) / lf::fp16(3.0)).bits() == 0x3555);  // 1/3 = 1.0101010101b * 2^-2, below half: 0.01101.0101010101
static_assert(lf::sqrt(lf::fp16(2.0)).bits() == 0x3DA8);
static_assert(lf::fma(lf::fp16(3.0), lf::fp16(3.0), lf::fp16(-8.0)).bits() == 0x3C00);
static_assert((lf::fp8_e4m3(1.5) * lf::fp8_e4m3(1.5)).bits() == 0x41);
static_assert(lf::add(lf::bf16(1.0), lf::bf16(0x1p-8), lf::rounding::upward).bits() == 0x3F81);
static_assert(std::numeric_limits<lf::fp16>::max().bits() == 0x7BFF);
static_assert(lf::rounding_by_name("minMag") == lf::rounding::toward_zero);
static_assert(lf::classify(lf::fp16::from_bits(0x7C01)) == lf::fp_class::signaling_nan);
static_assert(lf::fp16(65520.0).bits() == 0x7C00);

TEST_CASE("constexpr: typed arithmetic, sqrt, fma, limits and lookup fold at compile time (static_asserts above)") {
  constexpr lf::fp16 third = lf::fp16(1.0) / lf::fp16(3.0);
  CHECK(static_cast<double>(third) == 0x1.554p-2);  // 0x3555: (1 + 0x155/1024) * 2^-2
}

// ---- std::hash and operator<< ----------------------------------------------------------------------

TEST_CASE("std::hash<fp16> is consistent with operator==: +0 and -0 hash alike, so unordered_set holds one zero") {
  const std::hash<lf::fp16> h;
  CHECK(h(lf::fp16(1.5)) == h(lf::fp16::from_bits(0x3E00)));
  CHECK(h(lf::fp16(0.0)) == h(lf::fp16(-0.0)));  // +0 == -0 (IEEE 754-2019 §5.11), so equal hashes
  std::unordered_set<lf::fp16> s{lf::fp16(0.0), lf::fp16(-0.0), lf::fp16(1.0), lf::fp16(1.0), lf::fp16(2.0)};
  CHECK(s.size() == 3);
  CHECK(s.count(lf::fp16(2.0)) == 1);
}

TEST_CASE("operator<< prints the shortest text that reads back to the same encoding, every 8/16-bit encoding") {
  std::ostringstream os;
  os << lf::fp16(0.1);
  CHECK(os.str() == "0.1");  // lf::to_shortest (decimal.hpp): 0.0999755859375 is the fp16 nearest to 0.1
  os.str("");
  os << lf::fp16::from_bits(0x7C00) << ' ' << lf::fp16::from_bits(0x8000) << ' ' << lf::fp8_e4m3(448.0);
  CHECK(os.str() == "inf -0 448");
  // read back with strtod, then check the double lies strictly inside x's rounding interval
  // (half the gap to each neighbour, computed here from p and emin: an independent check).
  const auto round_trips = [](auto tag, int w, int p, bool nan_only) {
    using T = decltype(tag);
    long long bad = 0, n = 0;
    const int fb = p - 1, emin = 2 - (1 << (w - 1));
    for (u64 b = 0; b < (u64{1} << (w + p)); ++b) {
      const double v = reference_value(w, p, nan_only, b);
      if (!std::isfinite(v)) continue;
      std::ostringstream s;
      s << T::from_bits(static_cast<typename T::storage_type>(b));
      const double back = std::strtod(s.str().c_str(), nullptr);
      const double av = std::fabs(v);
      const int e = av == 0 ? emin : std::max(std::ilogb(av), emin);
      const double gap_up = std::ldexp(1.0, e - fb);
      const double gap_down = (av > 0 && av == std::ldexp(1.0, e) && e > emin) ? gap_up / 2 : gap_up;
      const double diff = std::fabs(back) - av;  // compares magnitudes: signs are checked below
      ++n;
      const bool ok = std::signbit(back) == std::signbit(v) && (diff >= 0 ? diff < gap_up / 2 : -diff < gap_down / 2);
      if (!ok && ++bad <= 3) FAIL_CHECK("encoding " << b << " printed as " << s.str());
    }
    CHECK(bad == 0);
    CHECK(n > 200);
  };
  round_trips(lf::fp16{}, 5, 11, false);
  round_trips(lf::bf16{}, 8, 8, false);
  round_trips(lf::fp8_e4m3{}, 4, 4, true);
  round_trips(lf::fp8_e5m2{}, 5, 3, false);
#ifdef __FLT16_MANT_DIG__
  // and binary16 through the compiler's own decimal -> _Float16 rounding
  long long bad = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto x = lf::fp16::from_bits(static_cast<std::uint16_t>(b));
    if (!std::isfinite(static_cast<double>(x))) continue;
    std::ostringstream s;
    s << x;
    const auto back = static_cast<_Float16>(std::strtod(s.str().c_str(), nullptr));
    if (std::bit_cast<std::uint16_t>(back) != b && ++bad <= 3) FAIL_CHECK("0x" << std::hex << b << " -> " << s.str());
  }
  CHECK(bad == 0);
#endif
}

// ---- names -----------------------------------------------------------------------------------------

TEST_CASE("format_by_name: every spelling of the named formats, custom eXmY / eXmYfn, errors list the known names") {
  struct spelling {
    const char* name;
    lf::format f;
  };
  const spelling known[] = {
      {"fp16", lf::binary16},          {"binary16", lf::binary16},      {"f16", lf::binary16},
      {"half", lf::binary16},          {"bf16", lf::bfloat16},          {"bfloat16", lf::bfloat16},
      {"bfloat", lf::bfloat16},        {"fp32", lf::binary32},          {"binary32", lf::binary32},
      {"f32", lf::binary32},           {"float", lf::binary32},         {"fp64", lf::binary64},
      {"binary64", lf::binary64},      {"f64", lf::binary64},           {"double", lf::binary64},
      {"tf32", lf::tfloat32},          {"tfloat32", lf::tfloat32},      {"e4m3", lf::float8_e4m3fn},
      {"fp8_e4m3", lf::float8_e4m3fn}, {"float8_e4m3fn", lf::float8_e4m3fn}, {"e4m3fn", lf::float8_e4m3fn},
      {"e5m2", lf::float8_e5m2},       {"fp8_e5m2", lf::float8_e5m2},   {"float8_e5m2", lf::float8_e5m2},
  };
  for (const auto& k : known) {
    INFO(k.name);
    const auto f = lf::format_by_name(k.name);
    REQUIRE(f.has_value());
    CHECK(*f == k.f);
  }
  // the named formats' parameters, from the specs (w, p, non-finite)
  CHECK(lf::binary16 == lf::format{5, 11, lf::nonfinite::ieee});
  CHECK(lf::bfloat16 == lf::format{8, 8, lf::nonfinite::ieee});
  CHECK(lf::binary32 == lf::format{8, 24, lf::nonfinite::ieee});
  CHECK(lf::binary64 == lf::format{11, 53, lf::nonfinite::ieee});
  CHECK(lf::tfloat32 == lf::format{8, 11, lf::nonfinite::ieee});
  CHECK(lf::float8_e4m3fn == lf::format{4, 4, lf::nonfinite::nan_only});
  CHECK(lf::float8_e5m2 == lf::format{5, 3, lf::nonfinite::ieee});
  // custom
  CHECK(lf::format_by_name("e3m2") == lf::format{3, 3, lf::nonfinite::ieee});
  CHECK(lf::format_by_name("e2m3fn") == lf::format{2, 4, lf::nonfinite::nan_only});
  CHECK(lf::format_by_name("e8m23") == lf::binary32);  // the same parameters are the same format
  CHECK(lf::format_by_name("e5m10") == lf::binary16);
  CHECK(lf::format_name(lf::format{3, 3, lf::nonfinite::ieee}) == "e3m2");
  CHECK(lf::format_name(lf::format{2, 4, lf::nonfinite::nan_only}) == "e2m3fn");
  CHECK(lf::format_name(lf::float8_e4m3fn) == "e4m3");
  CHECK(lf::format_name(lf::binary16) == "fp16");
  // errors
  std::string err;
  CHECK_FALSE(lf::format_by_name("fp17", &err).has_value());
  CHECK(err.find("fp17") != std::string::npos);
  for (const auto& k : known) {
    INFO(k.name);
    CHECK(err.find(k.name) != std::string::npos);  // the message lists every accepted name
  }
  for (const char* bad : {"", "FP16", "e4m3x", "e4", "m3", "e4m", "fp8"}) {
    INFO("'" << bad << "'");
    err.clear();
    CHECK_FALSE(lf::format_by_name(bad, &err).has_value());
    CHECK(err.find("known:") != std::string::npos);
  }
  for (const char* out_of_range : {"e1m2", "e16m3", "e11m53", "e4m0"}) {
    INFO(out_of_range);
    err.clear();
    CHECK_FALSE(lf::format_by_name(out_of_range, &err).has_value());
    CHECK(err.find("out of range") != std::string::npos);
  }
  CHECK_FALSE(lf::format_by_name("nope").has_value());  // no error pointer: fine
}

TEST_CASE("rounding_by_name: IEEE words, TestFloat names, short aliases; case-sensitive; names round-trip") {
  struct spelling {
    const char* name;
    lf::rounding m;
  };
  const spelling known[] = {
      {"nearest_even", lf::rounding::nearest_even}, {"near_even", lf::rounding::nearest_even},
      {"rne", lf::rounding::nearest_even},          {"nearest_away", lf::rounding::nearest_away},
      {"near_maxMag", lf::rounding::nearest_away},  {"rna", lf::rounding::nearest_away},
      {"toward_zero", lf::rounding::toward_zero},   {"minMag", lf::rounding::toward_zero},
      {"rtz", lf::rounding::toward_zero},           {"upward", lf::rounding::upward},
      {"max", lf::rounding::upward},                {"rtp", lf::rounding::upward},
      {"downward", lf::rounding::downward},         {"min", lf::rounding::downward},
      {"rtn", lf::rounding::downward},              {"odd", lf::rounding::odd},
      {"rto", lf::rounding::odd},                   {"stochastic", lf::rounding::stochastic},
      {"sr", lf::rounding::stochastic},
  };
  for (const auto& k : known) {
    INFO(k.name);
    CHECK(lf::rounding_by_name(k.name) == k.m);
    CHECK(std::string(lf::rounding_names_help).find(k.name) != std::string::npos);
  }
  for (const char* bad : {"", "minmag", "NEAREST_EVEN", "nearest", "up", "truncate"}) {
    INFO(bad);
    CHECK_FALSE(lf::rounding_by_name(bad).has_value());
  }
  for (auto m : lf::all_roundings) {
    CHECK(lf::rounding_by_name(lf::rounding_name(m)) == m);
    CHECK(lf::rounding_by_name(lf::testfloat_rounding_name(m)) == m);
  }
  CHECK(lf::testfloat_rounding_name(lf::rounding::toward_zero) == "minMag");
  CHECK(lf::testfloat_rounding_name(lf::rounding::nearest_away) == "near_maxMag");
}

// ---- classification ----------------------------------------------------------------------------------

TEST_CASE("classify: all ten classes in binary16, E4M3's lone NaN, E5M2's signaling NaN, binary32 vs std::fpclassify") {
  const struct {
    std::uint16_t bits;
    lf::fp_class c;
    const char* name;
  } fp16_cases[] = {
      {0x7C01, lf::fp_class::signaling_nan, "signaling NaN"},     // 0.11111.0000000001
      {0x7E00, lf::fp_class::quiet_nan, "quiet NaN"},             // 0.11111.1000000000
      {0xFC00, lf::fp_class::negative_infinity, "negative infinity"},
      {0xBC00, lf::fp_class::negative_normal, "negative normal"},  // -1
      {0x8001, lf::fp_class::negative_subnormal, "negative subnormal"},
      {0x8000, lf::fp_class::negative_zero, "negative zero"},
      {0x0000, lf::fp_class::positive_zero, "positive zero"},
      {0x03FF, lf::fp_class::positive_subnormal, "positive subnormal"},  // max subnormal
      {0x0400, lf::fp_class::positive_normal, "positive normal"},        // min normal
      {0x7C00, lf::fp_class::positive_infinity, "positive infinity"},
  };
  for (const auto& c : fp16_cases) {
    CHECK(lf::classify(lf::fp16::from_bits(c.bits)) == c.c);
    CHECK(lf::class_name(c.c) == c.name);
  }
  CHECK(lf::isnan(lf::fp16::from_bits(0x7C01)));
  CHECK(lf::issignaling(lf::fp16::from_bits(0x7C01)));
  CHECK_FALSE(lf::issignaling(lf::fp16::from_bits(0x7E00)));
  // E4M3: 0.1111.111 is the (quiet) NaN; 0.1111.000 = 256 is a normal number, not an infinity
  CHECK(lf::classify(lf::fp8_e4m3::from_bits(0x7F)) == lf::fp_class::quiet_nan);
  CHECK(lf::classify(lf::fp8_e4m3::from_bits(0x78)) == lf::fp_class::positive_normal);
  CHECK(lf::classify(lf::fp8_e4m3::from_bits(0xFE)) == lf::fp_class::negative_normal);
  // E5M2: 0.11111.01 signaling, 0.11111.10 quiet
  CHECK(lf::classify(lf::fp8_e5m2::from_bits(0x7D)) == lf::fp_class::signaling_nan);
  CHECK(lf::classify(lf::fp8_e5m2::from_bits(0x7E)) == lf::fp_class::quiet_nan);
  // binary32: against the C library on seeded random encodings
  std::mt19937_64 rng(0xC1A55);
  for (int i = 0; i < 100'000; ++i) {
    auto b = static_cast<std::uint32_t>(rng());
    if (i % 3 == 0) b &= 0x807FFFFFu;                              // subnormals and zeros
    if (i % 3 == 1) b |= 0x7F800000u;                              // infinities and NaNs
    if (i % 5 == 0) b &= 0xFF800000u;                              // zeros and infinities
    const float v = std::bit_cast<float>(b);
    const bool neg = std::signbit(v);
    lf::fp_class expect{};
    switch (std::fpclassify(v)) {
      case FP_NAN: expect = (b & 0x00400000u) ? lf::fp_class::quiet_nan : lf::fp_class::signaling_nan; break;
      case FP_INFINITE: expect = neg ? lf::fp_class::negative_infinity : lf::fp_class::positive_infinity; break;
      case FP_ZERO: expect = neg ? lf::fp_class::negative_zero : lf::fp_class::positive_zero; break;
      case FP_SUBNORMAL: expect = neg ? lf::fp_class::negative_subnormal : lf::fp_class::positive_subnormal; break;
      default: expect = neg ? lf::fp_class::negative_normal : lf::fp_class::positive_normal; break;
    }
    if (lf::classify(lf::binary32, b) != expect) FAIL_CHECK("0x" << std::hex << b);
  }
}

// ---- nextUp, nextDown, ulp ---------------------------------------------------------------------------

TEST_CASE("next_up / next_down / ulp at the edges of binary16 and E4M3") {
  auto up = [](std::uint16_t b) { return lf::next_up(lf::fp16::from_bits(b)).bits(); };
  auto down = [](std::uint16_t b) { return lf::next_down(lf::fp16::from_bits(b)).bits(); };
  auto ulp = [](std::uint16_t b) { return lf::ulp(lf::fp16::from_bits(b)).bits(); };
  CHECK(up(0x0000) == 0x0001);  // +0 -> min subnormal
  CHECK(up(0x8000) == 0x0001);  // -0 -> min subnormal
  CHECK(up(0x8001) == 0x8000);  // -min subnormal -> -0 (§5.3.1)
  CHECK(down(0x0001) == 0x0000);
  CHECK(down(0x0000) == 0x8001);
  CHECK(up(0x03FF) == 0x0400);  // max subnormal -> min normal
  CHECK(up(0x3BFF) == 0x3C00);  // 1 - 2^-11 -> 1
  CHECK(down(0x3C00) == 0x3BFF);
  CHECK(up(0x7BFF) == 0x7C00);  // max -> +inf
  CHECK(up(0x7C00) == 0x7C00);  // +inf stays
  CHECK(up(0xFC00) == 0xFBFF);  // -inf -> -max
  CHECK(down(0xFC00) == 0xFC00);
  CHECK(down(0x7C00) == 0x7BFF);
  lf::status st{};
  CHECK(lf::next_up(lf::fp16::from_bits(0x7E05), &st).bits() == 0x7E05);  // quiet NaN: itself
  CHECK(st == lf::status::none);
  CHECK(lf::next_up(lf::fp16::from_bits(0x7C05), &st).bits() == 0x7E05);  // signaling: quieted, invalid
  CHECK(st == lf::status::invalid);
  // ulp: 2^(max(e, emin) - 10)
  CHECK(ulp(0x3C00) == 0x1400);  // ulp(1) = 2^-10 = 0.00101.0000000000
  CHECK(ulp(0x3BFF) == 0x1000);  // ulp(1 - 2^-11) = 2^-11
  CHECK(ulp(0x0000) == 0x0001);  // ulp(0) = min subnormal
  CHECK(ulp(0x0400) == 0x0001);  // min normal: 2^-24 too
  CHECK(ulp(0x7BFF) == 0x5000);  // ulp(65504) = 2^5 = 32
  CHECK(ulp(0xFBFF) == 0x5000);  // positive for negative operands
  CHECK(ulp(0x7C00) == 0x7C00);  // ulp(inf) = +inf
  CHECK(lf::isnan(lf::ulp(lf::fp16::from_bits(0x7E00))));
  // E4M3: nothing above 448, so next_up(448) is the NaN (documented); next_down(-448) too.
  CHECK(lf::next_up(lf::fp8_e4m3::from_bits(0x7E)).bits() == 0x7F);
  CHECK(lf::next_up(lf::fp8_e4m3::from_bits(0xFE)).bits() == 0xFD);
  CHECK(lf::ulp(lf::fp8_e4m3::from_bits(0x7E)).bits() == 0x60);  // ulp(448) = 2^(8-3) = 32: biased 5 + 7 = 12, 0.1100.000
}

TEST_CASE("next_up / next_down / ulp of binary32 and binary64 agree with std::nextafter on seeded random values") {
  std::mt19937_64 rng(0x1EB);
  long long bad = 0;
  for (int i = 0; i < 100'000; ++i) {
    // random encodings, with extra weight on subnormals and the ends of the range
    u64 b64 = rng();
    if (i % 4 == 1) b64 &= 0x800FFFFFFFFFFFFFull;
    if (i % 4 == 2) b64 = (b64 & 0x800FFFFFFFFFFFFFull) | 0x7FE0000000000000ull;
    const double x = std::bit_cast<double>(b64);
    const auto b32 = static_cast<std::uint32_t>(b64 >> 32);
    const float y = std::bit_cast<float>(b32);
    if (!std::isnan(x)) {
      const double nu = std::nextafter(x, INFINITY), nd = std::nextafter(x, -INFINITY);
      bad += lf::next_up(lf::fp64::from_bits(b64)).bits() != bits64(nu);
      bad += lf::next_down(lf::fp64::from_bits(b64)).bits() != bits64(nd);
      if (std::isfinite(x)) {
        const double ax = std::fabs(x);
        const double u = std::isfinite(std::nextafter(ax, INFINITY)) ? std::nextafter(ax, INFINITY) - ax
                                                                     : ax - std::nextafter(ax, 0.0);
        bad += lf::ulp(lf::fp64::from_bits(b64)).bits() != bits64(u);
      }
    }
    if (!std::isnan(y)) {
      bad += lf::next_up(lf::fp32::from_bits(b32)).bits() != std::bit_cast<std::uint32_t>(std::nextafter(y, INFINITY));
      bad += lf::next_down(lf::fp32::from_bits(b32)).bits() != std::bit_cast<std::uint32_t>(std::nextafter(y, -INFINITY));
    }
  }
  CHECK(bad == 0);
}

// ---- minimum / maximum (IEEE 754-2019 §9.6) ------------------------------------------------------

TEST_CASE("minimum/maximum/minimumNumber/maximumNumber: -0 < +0, NaN rules and sNaN invalid per §9.6") {
  using lf::fp16;
  const fp16 pz = fp16::from_bits(0x0000), nz = fp16::from_bits(0x8000), one(1.0), two(2.0);
  const fp16 qnan = fp16::from_bits(0x7E01), qnan2 = fp16::from_bits(0xFE02), snan = fp16::from_bits(0x7C03);
  lf::status st{};
  // zeros: -0 is the smaller one, in either operand order, for all four operations
  CHECK(lf::minimum(nz, pz).bits() == 0x8000);
  CHECK(lf::minimum(pz, nz).bits() == 0x8000);
  CHECK(lf::maximum(nz, pz).bits() == 0x0000);
  CHECK(lf::maximum(pz, nz).bits() == 0x0000);
  CHECK(lf::minimum_number(pz, nz).bits() == 0x8000);
  CHECK(lf::maximum_number(nz, pz).bits() == 0x0000);
  CHECK(lf::minimum(one, two).bits() == one.bits());
  CHECK(lf::maximum(two, one).bits() == two.bits());
  CHECK(lf::minimum(fp16::from_bits(0xFC00), one).bits() == 0xFC00);
  // minimum/maximum: a NaN operand gives a quiet NaN (the first NaN), no flag for quiet NaNs
  CHECK(lf::minimum(one, qnan, &st).bits() == 0x7E01);
  CHECK(lf::maximum(qnan, one, &st).bits() == 0x7E01);
  CHECK(lf::minimum(qnan2, qnan, &st).bits() == 0xFE02);
  CHECK(st == lf::status::none);
  // ... a signaling NaN: quieted, invalid
  CHECK(lf::maximum(one, snan, &st).bits() == 0x7E03);
  CHECK(st == lf::status::invalid);
  // *Number: the number wins over a NaN; a signaling NaN still signals invalid
  st = {};
  CHECK(lf::minimum_number(one, qnan, &st).bits() == one.bits());
  CHECK(lf::maximum_number(qnan, nz, &st).bits() == 0x8000);
  CHECK(st == lf::status::none);
  CHECK(lf::minimum_number(snan, two, &st).bits() == two.bits());
  CHECK(st == lf::status::invalid);
  // two NaNs: a quiet NaN
  st = {};
  CHECK(lf::maximum_number(snan, qnan, &st).bits() == 0x7E03);
  CHECK(st == lf::status::invalid);
  // against std::fmin / std::fmax (= minimumNumber / maximumNumber away from zeros and sNaNs)
  std::mt19937_64 rng(0x9E6);
  for (int i = 0; i < 20'000; ++i) {
    const double a = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng()) >> 11), -60);
    const double b = i % 7 == 0 ? NAN : std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng()) >> 11), -60);
    if (a == 0 || b == 0) continue;
    CHECK(lf::minimum_number(lf::fp64(a), lf::fp64(b)).bits() == bits64(std::fmin(a, b)));
    CHECK(lf::maximum_number(lf::fp64(b), lf::fp64(a)).bits() == bits64(std::fmax(b, a)));
  }
}

// ---- remainder (§5.3.1) ------------------------------------------------------------------------------

TEST_CASE("remainder: n is a/b rounded to nearest even; exact; rem(5,3) = -1, rem(7,2) = -1, rem(-6,3) = -0; vs std::remainder") {
  auto rem16 = [](double a, double b) { return static_cast<double>(lf::rem(lf::fp16(a), lf::fp16(b))); };
  CHECK(rem16(5, 3) == -1);  // 5/3 = 1.67 -> n = 2
  CHECK(rem16(7, 2) == -1);  // 3.5 -> n = 4 (even)
  CHECK(rem16(5, 2) == 1);   // 2.5 -> n = 2 (even)
  CHECK(rem16(-5, 2) == -1);
  CHECK(rem16(1, 0.75) == 0.25);
  CHECK(lf::rem(lf::fp16(6.0), lf::fp16(3.0)).bits() == 0x0000);
  CHECK(lf::rem(lf::fp16(-6.0), lf::fp16(3.0)).bits() == 0x8000);  // zero with a's sign
  CHECK(lf::rem(lf::fp16(1.5), lf::fp16::from_bits(0x7C00)).bits() == lf::fp16(1.5).bits());  // rem(x, inf) = x
  lf::status st{};
  CHECK(lf::rem(lf::fp16::from_bits(0x7C00), lf::fp16(1.0), lf::env{}, &st).bits() == 0xFE00);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::rem(lf::fp16(1.0), lf::fp16(0.0), lf::env{}, &st).bits() == 0xFE00);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::rem(lf::fp16(65504.0), lf::fp16::from_bits(0x0001), lf::env{}, &st).bits() == 0x0000);  // exact, no flag
  CHECK(st == lf::status::none);
  // binary64 and binary32 against the C library's remainder (exact by definition), including
  // exponent ratios up to the whole range
  std::mt19937_64 rng(0x4E3);
  long long bad = 0;
  for (int i = 0; i < 20'000; ++i) {
    const u64 ra = rng(), rb = rng();
    const double a = std::bit_cast<double>(ra), b = std::bit_cast<double>(i % 3 ? (rb & 0x3FFFFFFFFFFFFFFFull) : rb);
    const double r = std::remainder(a, b);
    const auto got = lf::rem(lf::fp64(a), lf::fp64(b));
    if (std::isnan(r)) bad += !lf::isnan(got);
    else bad += got.bits() != bits64(r);
    const float fa = std::bit_cast<float>(static_cast<std::uint32_t>(ra)), fb = std::bit_cast<float>(static_cast<std::uint32_t>(rb));
    const float fr = std::remainder(fa, fb);
    const auto fgot = lf::rem(lf::fp32(fa), lf::fp32(fb));
    if (std::isnan(fr)) bad += !lf::isnan(fgot);
    else bad += fgot.bits() != std::bit_cast<std::uint32_t>(fr);
  }
  CHECK(bad == 0);
}

// ---- roundToIntegral (§5.3.1) ------------------------------------------------------------------------

TEST_CASE("round_to_integral in each direction: ±2.5, ±0.3, 1.5; exact variant raises inexact; vs std::trunc/floor/ceil/round") {
  struct row {
    double x;
    double expect[6];  // nearest_even, nearest_away, toward_zero, upward, downward, odd
  };
  const row rows[] = {
      {2.5, {2, 3, 2, 3, 2, 3}},     {-2.5, {-2, -3, -2, -2, -3, -3}}, {1.5, {2, 2, 1, 2, 1, 1}},
      {0.3, {0, 0, 0, 1, 0, 1}},     {-0.3, {-0.0, -0.0, -0.0, -0.0, -1, -1}}, {3.0, {3, 3, 3, 3, 3, 3}},
      {-0.5, {-0.0, -1, -0.0, -0.0, -1, -1}},
  };
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < 6; ++i) {
      const lf::rounding m = lf::deterministic_roundings[i];
      INFO(r.x << " " << lf::rounding_name(m));
      lf::status quiet{}, exact{};
      const auto got = lf::round_to_integral(lf::fp16(r.x), lf::env{m}, false, &quiet);
      CHECK(got.bits() == lf::fp16(r.expect[i]).bits());  // bits: the sign of a zero counts
      CHECK(quiet == lf::status::none);
      lf::round_to_integral(lf::fp16(r.x), lf::env{m}, true, &exact);
      CHECK(exact == (r.x == r.expect[i] ? lf::status::none : lf::status::inexact));
    }
  }
  // binary64 against the C library (std::trunc, floor, ceil, round are direction-fixed; nearbyint
  // uses the current mode, which this test leaves at round-to-nearest-even). Round-to-odd: truncate,
  // then step away from zero if inexact and the truncation is even.
  std::mt19937_64 rng(0x2157);
  long long bad = 0;
  for (int i = 0; i < 20'000; ++i) {
    const double x = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng()) >> 11), -static_cast<int>(rng() % 60));
    const double t = std::trunc(x);
    const double odd = (t != x && std::fmod(t, 2.0) == 0) ? t + std::copysign(1.0, x) : t;
    const double expect[6] = {std::nearbyint(x), std::round(x), t, std::ceil(x), std::floor(x), odd};
    for (std::size_t k = 0; k < 6; ++k)
      bad += lf::round_to_integral(lf::fp64(x), lf::env{lf::deterministic_roundings[k]}).bits() != bits64(expect[k]);
  }
  CHECK(bad == 0);
}

// roundToIntegral (§5.3.1) in formats whose max finite is not an integer. In an IEEE format every
// value at or above 2^(p-1) is an integer, and 2^(p-1) <= max finite, so the rounded integer is
// always representable. A tiny custom format can have emax < p - 1: e2m3 {2, 4} has max
// 0.10.111 = 1.875 * 2 = 3.75, and 3.75 rounds (nearest) to 4, which the format cannot hold. The
// library treats that integer like any other result beyond the range (§7.4): overflow and inexact,
// and the overflow result of the direction (infinity, or the NaN of a format without one); where
// that result would be finite (overflow_policy::saturate) it is the largest finite *integer* of
// the format (e2m3: 3 = 0.10.100), so that the result is still integral.
//
// The model below shares nothing with the library: values from reference_value (every value of
// these formats is a double with few bits, so double arithmetic on them is exact), the integer by
// the mode's rule written out with floor/ceil/trunc, representability by looking the integer up
// among all decoded encodings.
double integral_by_mode(double x, lf::rounding m, std::uint32_t random) {
  const double a = std::fabs(x), fl = std::floor(a), frac = a - fl;
  double r = fl;
  switch (m) {
    case lf::rounding::nearest_even: r = frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0) ? fl + 1 : fl; break;
    case lf::rounding::nearest_away: r = frac >= 0.5 ? fl + 1 : fl; break;
    case lf::rounding::toward_zero: r = fl; break;
    case lf::rounding::upward: r = frac > 0 && x > 0 ? fl + 1 : fl; break;
    case lf::rounding::downward: r = frac > 0 && x < 0 ? fl + 1 : fl; break;
    case lf::rounding::odd: r = frac > 0 && std::fmod(fl, 2.0) == 0 ? fl + 1 : fl; break;
    case lf::rounding::stochastic:  // up iff random < D, D = the first 32 bits of the fraction (exact here)
      r = frac > 0 && static_cast<double>(random) < std::ldexp(frac, 32) ? fl + 1 : fl;
      break;
  }
  return std::copysign(r, x);  // a zero keeps x's sign (§5.3.1)
}

TEST_CASE("round_to_integral when the integer exceeds max finite (e2m3 3.75 -> 4): overflow, saturate gives an integer") {
  using lf::status;
  const status oi = status::overflow | status::inexact;
  const lf::env sat{lf::rounding::nearest_even, lf::policy{.overflow = lf::overflow_policy::saturate}};
  // Hand-derived. e2m3 {2, 4, ieee}: 6 bits, bias 1, emax 1; 0x17 = 0.10.111 = 3.75 (max),
  // 0x16 = 3.5, 0x14 = 0.10.100 = 3, infinity 0x18, sign 0x20.
  constexpr lf::format e2m3{2, 4, lf::nonfinite::ieee};
  // e3m5 {3, 6, ieee}: 9 bits, bias 3, emax 3; 0xDF = 0.110.11111 = 15.75 (max), 0xDE = 15.5,
  // 0xDD = 15.25, 0xDC = 0.110.11100 = 15, infinity 0xE0.
  constexpr lf::format e3m5{3, 6, lf::nonfinite::ieee};
  // e2m5fn {2, 6, nan_only}: 8 bits, bias 1, emax 2; 0x7E = 0.11.11110 = 7.75 (max), 0x7C = 7.5,
  // 0x7A = 7.25, 0x78 = 0.11.11000 = 7, NaN 0x7F.
  constexpr lf::format e2m5fn{2, 6, lf::nonfinite::nan_only};
  struct row {
    lf::format f;
    u64 a;
    lf::env e;
    u64 bits;
    status flags;
  };
  const row rows[] = {
      {e2m3, 0x17, lf::rounding::nearest_even, 0x18, oi},  // 3.75 -> 4: +inf
      {e2m3, 0x17, lf::rounding::nearest_away, 0x18, oi},
      {e2m3, 0x17, lf::rounding::upward, 0x18, oi},
      {e2m3, 0x17, lf::rounding::toward_zero, 0x14, status::none},  // 3
      {e2m3, 0x17, lf::rounding::downward, 0x14, status::none},
      {e2m3, 0x17, lf::rounding::odd, 0x14, status::none},           // 3 is odd
      {e2m3, 0x37, lf::rounding::downward, 0x38, oi},                // -3.75 -> -4: -inf
      {e2m3, 0x37, lf::rounding::upward, 0x34, status::none},        // -3
      {e2m3, 0x16, lf::rounding::nearest_even, 0x18, oi},            // 3.5: tie, 4 is even
      {e2m3, 0x16, lf::rounding::toward_zero, 0x14, status::none},
      {e2m3, 0x17, sat, 0x14, oi},                                   // saturate: 3, not 3.75
      {e2m3, 0x37, sat, 0x34, oi},
      {e3m5, 0xDF, lf::rounding::nearest_even, 0xE0, oi},            // 15.75 -> 16: +inf
      {e3m5, 0xDE, lf::rounding::nearest_even, 0xE0, oi},            // 15.5: tie, 16 is even
      {e3m5, 0xDD, lf::rounding::nearest_even, 0xDC, status::none},  // 15.25 -> 15
      {e3m5, 0xDF, sat, 0xDC, oi},                                   // saturate: 15
      {e2m5fn, 0x7E, lf::rounding::nearest_even, 0x7F, oi},          // 7.75 -> 8: the NaN
      {e2m5fn, 0x7C, lf::rounding::nearest_even, 0x7F, oi},          // 7.5: tie, 8 is even
      {e2m5fn, 0x7A, lf::rounding::nearest_even, 0x78, status::none},// 7.25 -> 7
      {e2m5fn, 0xFE, sat, 0xF8, oi},                                 // saturate: -7
      {e2m5fn, 0x7E, lf::env{lf::rounding::stochastic, {}, 0xBFFFFFFFu}, 0x7F, oi},  // D = 0.75 * 2^32: up
      {e2m5fn, 0x7E, lf::env{lf::rounding::stochastic, {}, 0xC0000000u}, 0x78, status::none},  // not below D: 7
  };
  for (const auto& r : rows) {
    std::ostringstream what;
    what << lf::format_name(r.f) << " 0x" << std::hex << r.a << " " << lf::rounding_name(r.e.mode);
    INFO(what.str());
    for (bool exact : {false, true}) {
      status st{};
      CHECK(lf::round_to_integral(r.f, r.a, r.e, exact, st) == r.bits);
      CHECK(st == (exact && r.flags == status::none ? status::inexact : r.flags));  // every row's input is inexact
    }
  }

  // Every encoding of a few tiny formats, every mode, both policies, against the model.
  struct tiny {
    int w, p;
    bool nan_only;
  };
  const tiny formats[] = {{2, 4, false}, {3, 6, false}, {2, 3, false}, {3, 8, false}, {2, 6, true},
                          {3, 5, true},  {2, 2, false}, {3, 3, false}, {2, 4, true},  {4, 4, true}};
  const std::uint32_t randoms[] = {0u, 0x40000000u, 0x80000000u, 0xBFFFFFFFu, 0xFFFFFFFFu};
  long long bad = 0, overflows = 0, checked = 0;
  for (const tiny& t : formats) {
    const lf::format f{t.w, t.p, t.nan_only ? lf::nonfinite::nan_only : lf::nonfinite::ieee};
    const int bits = 1 + t.w + t.p - 1;
    const u64 sign = u64{1} << (bits - 1);
    const u64 exp_mask = ((u64{1} << t.w) - 1) << (t.p - 1);
    const u64 top = t.nan_only ? exp_mask | ((u64{1} << (t.p - 1)) - 1) : exp_mask;  // +inf or +NaN
    std::vector<std::pair<double, u64>> finite;  // every finite value with its encoding
    double largest_integer = 0, max_finite = 0;
    for (u64 b = 0; b < (u64{1} << bits); ++b) {
      const double v = reference_value(t.w, t.p, t.nan_only, b);
      if (!std::isfinite(v)) continue;
      finite.emplace_back(v, b);
      max_finite = std::max(max_finite, v);
      if (v == std::floor(v)) largest_integer = std::max(largest_integer, v);
    }
    const auto encoding_of = [&](double v) -> std::optional<u64> {
      for (const auto& [x, b] : finite)
        if (std::bit_cast<u64>(x) == std::bit_cast<u64>(v)) return b;
      return std::nullopt;
    };
    for (const auto& [x, b] : finite) {
      for (lf::rounding m : lf::all_roundings) {
        for (std::uint32_t rnd : randoms) {
          if (m != lf::rounding::stochastic && rnd != 0) continue;
          const double want = integral_by_mode(x, m, rnd);
          const auto enc = encoding_of(want);
          const bool over = !enc;
          if (over && std::fabs(want) <= max_finite) {
            ++bad;  // the model's premise: every integer up to max finite is representable
            continue;
          }
          const bool to_infinity = m == lf::rounding::nearest_even || m == lf::rounding::nearest_away ||
                                   m == lf::rounding::stochastic || (m == lf::rounding::upward && x > 0) ||
                                   (m == lf::rounding::downward && x < 0);
          const u64 s = x < 0 ? sign : 0;
          for (bool saturate : {false, true}) {
            lf::policy pol{};
            if (saturate) pol.overflow = lf::overflow_policy::saturate;
            u64 expect_bits = over ? 0 : *enc;
            status expect_flags = status::none;
            if (over) {
              expect_flags = oi;
              expect_bits = to_infinity && !saturate ? s | top : s | *encoding_of(largest_integer);
              ++overflows;
            }
            for (bool exact : {false, true}) {
              status st{};
              const u64 got = lf::round_to_integral(f, b, lf::env{m, pol, rnd}, exact, st);
              const status want_flags = expect_flags | (exact && want != x ? status::inexact : status::none);
              ++checked;
              if (got != expect_bits || st != want_flags) {
                if (bad < 8) {
                  std::ostringstream msg;
                  msg << lf::format_name(f) << " " << x << " " << lf::rounding_name(m) << " random " << rnd
                      << (saturate ? " saturate" : "") << (exact ? " exact" : "") << ": got 0x" << std::hex << got
                      << " flags 0x" << unsigned(lf::to_bits(st)) << ", want 0x" << expect_bits << " flags 0x"
                      << unsigned(lf::to_bits(want_flags));
                  MESSAGE(msg.str());
                }
                ++bad;
              }
            }
          }
        }
      }
    }
  }
  CHECK(bad == 0);
  CHECK(overflows > 0);  // the sweep did reach the case
  MESSAGE(checked << " round_to_integral results checked, " << overflows << " of them overflows");
}

// ---- integer conversions (§5.8, §5.4.1) ----------------------------------------------------------

TEST_CASE("to_integer into int32/int64/uint32/uint64: rounding, exact variant, and x86's indefinite on invalid") {
  auto i32 = [](double v, lf::rounding m, lf::status& st) { return lf::to_integer<std::int32_t>(lf::fp64(v), lf::env{m}, false, &st); };
  lf::status st{};
  CHECK(i32(2147483647.0, lf::rounding::nearest_even, st) == INT32_MAX);
  CHECK(i32(-2147483648.0, lf::rounding::nearest_even, st) == INT32_MIN);  // exactly INT_MIN: valid
  CHECK(i32(-2147483648.5, lf::rounding::nearest_even, st) == INT32_MIN);  // tie -> even 2^31
  CHECK(i32(2147483647.5, lf::rounding::toward_zero, st) == INT32_MAX);
  CHECK(i32(-7.5, lf::rounding::nearest_even, st) == -8);
  CHECK(i32(-7.5, lf::rounding::upward, st) == -7);
  CHECK(st == lf::status::none);  // convertToInteger (not Exact): no inexact
  CHECK(i32(2147483647.5, lf::rounding::nearest_even, st) == INT32_MIN);  // rounds to 2^31: out of range
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(i32(-2147483649.0, lf::rounding::nearest_even, st) == INT32_MIN);
  CHECK(i32(NAN, lf::rounding::nearest_even, st) == INT32_MIN);
  CHECK(i32(INFINITY, lf::rounding::nearest_even, st) == INT32_MIN);
  CHECK(i32(-INFINITY, lf::rounding::nearest_even, st) == INT32_MIN);
  CHECK(st == lf::status::invalid);
  // exact variant: inexact only when the value changes, never together with invalid
  st = {};
  CHECK(lf::to_integer<std::int32_t>(lf::fp64(2.5), lf::env{}, true, &st) == 2);
  CHECK(st == lf::status::inexact);
  st = {};
  CHECK(lf::to_integer<std::int32_t>(lf::fp64(1e10), lf::env{}, true, &st) == INT32_MIN);
  CHECK(st == lf::status::invalid);
  // int64: 2^63 is out of range, -2^63 is INT64_MIN exactly, 2^63 - 1024 (the largest double below) fits
  st = {};
  CHECK(lf::to_integer<std::int64_t>(lf::fp64(0x1p63), lf::env{}, false, &st) == INT64_MIN);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::to_integer<std::int64_t>(lf::fp64(-0x1p63), lf::env{}, false, &st) == INT64_MIN);
  CHECK(lf::to_integer<std::int64_t>(lf::fp64(0x1.FFFFFFFFFFFFFp62), lf::env{}, false, &st) == 9223372036854774784);
  CHECK(st == lf::status::none);
  // unsigned: indefinite is all ones; -0.4 rounds to 0 (valid), -0.6 rounds to -1 (invalid)
  st = {};
  CHECK(lf::to_integer<std::uint32_t>(lf::fp64(4294967295.0), lf::env{}, false, &st) == 0xFFFFFFFFu);
  CHECK(lf::to_integer<std::uint32_t>(lf::fp64(-0.4), lf::env{}, false, &st) == 0u);
  CHECK(st == lf::status::none);
  CHECK(lf::to_integer<std::uint32_t>(lf::fp64(4294967296.0), lf::env{}, false, &st) == 0xFFFFFFFFu);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::to_integer<std::uint32_t>(lf::fp64(-0.6), lf::env{}, false, &st) == 0xFFFFFFFFu);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::to_integer<std::uint32_t>(lf::fp64(-1.0), lf::env{}, false, &st) == 0xFFFFFFFFu);
  CHECK(lf::to_integer<std::uint64_t>(lf::fp64(0x1p64), lf::env{}, false, &st) == UINT64_MAX);
  CHECK(lf::to_integer<std::uint64_t>(lf::fp64(NAN), lf::env{}, false, &st) == UINT64_MAX);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::to_integer<std::uint64_t>(lf::fp64(0x1.FFFFFFFFFFFFFp63), lf::env{}, false, &st) == 0xFFFFFFFFFFFFF800ull);
  CHECK(st == lf::status::none);
  // from a 16-bit format
  CHECK(lf::to_integer<std::int32_t>(lf::fp16(65504.0)) == 65504);
  CHECK(lf::to_integer<std::uint64_t>(lf::fp16(-0.0)) == 0u);
}

TEST_CASE("from_int: int32/int64/uint32/uint64 into binary32, binary16 and E4M3, rounded with flags") {
  lf::status st{};
  CHECK(lf::from_int(lf::binary32, INT64_MAX, lf::env{}, st) == 0x5F000000);  // 2^63 - 1 -> 2^63
  CHECK(st == lf::status::inexact);
  st = {};
  CHECK(lf::from_int(lf::binary32, UINT64_MAX, lf::env{}, st) == 0x5F800000);  // -> 2^64
  CHECK(lf::from_int(lf::binary32, UINT64_MAX, lf::env{lf::rounding::toward_zero}, st) == 0x5F7FFFFF);
  st = {};
  CHECK(lf::from_int(lf::binary32, INT32_MIN, lf::env{}, st) == 0xCF000000);  // -2^31 exactly
  CHECK(lf::from_int(lf::binary32, std::uint32_t{16777217}, lf::env{}, st) == 0x4B800000);  // 2^24 + 1: tie -> 2^24
  CHECK(st == lf::status::inexact);
  st = {};
  CHECK(lf::from_int(lf::binary16, std::int64_t{65519}, lf::env{}, st) == 0x7BFF);  // below 65520: 65504
  CHECK(lf::from_int(lf::binary16, std::int32_t{-65520}, lf::env{}, st) == 0xFC00);  // the tie: -infinity
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  st = {};
  CHECK(lf::from_int(lf::binary16, std::int8_t{-128}, lf::env{}, st) == 0xD800);  // -1.0b * 2^7
  CHECK(lf::from_int(lf::binary64, std::uint64_t{1} << 63, lf::env{}, st) == bits64(0x1p63));
  CHECK(st == lf::status::none);
  CHECK(lf::from_int(lf::float8_e4m3fn, 500, lf::env{}, st) == 0x7F);  // past 464: E4M3's NaN
  CHECK(lf::from_int(lf::float8_e4m3fn, 464, lf::env{}, st) == 0x7E);  // the tie 448/480 goes to even 448
  CHECK(lf::from_int(lf::float8_e4m3fn, 465, lf::env{}, st) == 0x7F);
  CHECK(lf::fp8_e4m3(448).bits() == 0x7E);
}

// ---- tf32 word helpers ------------------------------------------------------------------------------

// TF32 in memory: a binary32 word whose low 13 fraction bits are ignored. 1.0f = 0x3F800000,
// as tf32 0x3F800000 >> 13 = 0x1FC00 (0.01111111.0000000000 in 19 bits).
TEST_CASE("tf32 word helpers: truncate the low 13 bits; tf32(float) rounds to nearest even; all 2^19 round-trip") {
  CHECK(lf::tf32_from_binary32_word(0x3F800000).bits() == 0x1FC00);
  CHECK(static_cast<float>(lf::tf32_from_binary32_word(0x3F800000)) == 1.0f);
  CHECK(lf::tf32_from_binary32_word(0x3F801FFF).bits() == 0x1FC00);  // ignored bits ignored
  CHECK(lf::tf32_to_binary32_word(lf::tf32(1.0)) == 0x3F800000u);
  // 1 + 2^-11 + 2^-12 = float 0x3F801800: the first dropped bit (2^-11, word bit 12) is the half,
  // and a bit below it is set: round to nearest goes up to 1 + 2^-10 (0x1FC01), truncation does not.
  CHECK(lf::tf32(std::bit_cast<float>(0x3F801800u)).bits() == 0x1FC01);
  CHECK(lf::tf32_to_binary32_word(lf::tf32(std::bit_cast<float>(0x3F801800u))) == 0x3F802000u);
  CHECK(lf::tf32_from_binary32_word(0x3F801800).bits() == 0x1FC00);
  long long bad = 0;
  for (std::uint32_t b = 0; b < (1u << 19); ++b) {
    const auto x = lf::tf32::from_bits(b);
    const std::uint32_t w = lf::tf32_to_binary32_word(x);
    bad += (w & 0x1FFFu) != 0 || lf::tf32_from_binary32_word(w).bits() != b;
    // the word read as a binary32 by the hardware has the tf32 value (NaNs: both NaN)
    const float hw = std::bit_cast<float>(w);
    const double v = reference_value(8, 11, false, b);
    bad += std::isnan(v) ? !std::isnan(hw) : static_cast<double>(hw) != v;
    bad += !same_double(x, v);
  }
  CHECK(bad == 0);
}

// ---- custom formats ----------------------------------------------------------------------------------

// e3m2 (IEEE-style, 6 bits, bias 3, emin -2, emax 3):
//   0.011.00 = 1.0 = 0x0C; max 0.110.11 = 1.75 * 2^3 = 14 = 0x1B; +inf 0.111.00 = 0x1C;
//   min normal 0.001.00 = 2^-2 = 0x04; min subnormal 0.000.01 = 0.25 * 2^-2 = 2^-4 = 0x01.
// e2m3fn (no infinity, NaN = S.11.111, 6 bits, bias 1, emin 0, emax 2):
//   0.01.000 = 1.0 = 0x08; max 0.11.110 = 1.75 * 2^2 = 7 = 0x1E; NaN 0x1F;
//   min subnormal 0.00.001 = 1/8 = 0x01.
// (OCP MX FP6 E2M3 has no NaN and max 7.5 = 0.11.111; the library's "fn" layout reserves that
// encoding for NaN, so e2m3fn is not MX E2M3; the same holds for e3m2 vs MX FP6 E3M2, max 28.)
TEST_CASE("custom formats e3m2 and e2m3fn: hand-derived encodings, limits, and every encoding decoded") {
  constexpr lf::format e3m2{3, 3, lf::nonfinite::ieee};
  constexpr lf::format e2m3fn{2, 4, lf::nonfinite::nan_only};
  using T = lf::fp<e3m2>;
  using U = lf::fp<e2m3fn>;
  static_assert(e3m2.bits() == 6 && e3m2.bias() == 3 && e3m2.emin() == -2 && e3m2.emax() == 3);
  static_assert(e2m3fn.bits() == 6 && e2m3fn.bias() == 1 && e2m3fn.emin() == 0 && e2m3fn.emax() == 2);
  CHECK(T(1.0).bits() == 0x0C);
  CHECK(T(14.0).bits() == 0x1B);
  CHECK(T(-14.0).bits() == 0x3B);            // sign is bit 5
  CHECK(T(15.0).bits() == 0x1C);             // 14 + ulp/2: ties to infinity (§4.3.1)
  CHECK(T(14.99).bits() == 0x1B);
  CHECK(T(0.0625).bits() == 0x01);
  CHECK(T(0.09375).bits() == 0x02);          // 1.5 * 2^-4: tie between 0x01 and 0x02, even
  CHECK(T(0.03125).bits() == 0x00);          // 2^-5: tie between 0 and 2^-4, even (zero)
  CHECK(lf::classify(T::from_bits(0x1C)) == lf::fp_class::positive_infinity);
  CHECK(lf::classify(T::from_bits(0x1D)) == lf::fp_class::signaling_nan);
  CHECK(lf::classify(T::from_bits(0x1E)) == lf::fp_class::quiet_nan);
  CHECK(static_cast<double>(std::numeric_limits<T>::max()) == 14);
  CHECK(static_cast<double>(std::numeric_limits<T>::epsilon()) == 0.25);
  CHECK(static_cast<double>(std::numeric_limits<T>::denorm_min()) == 0.0625);
  CHECK((T(1.0) + T(0.25)).bits() == 0x0D);  // 1.25 = 1.01b: 0.011.01

  CHECK(U(1.0).bits() == 0x08);
  CHECK(U(7.0).bits() == 0x1E);
  CHECK(U(0.125).bits() == 0x01);
  // 7.25 = 7 + ulp/2 is the tie between 7 = 1.110b * 4 and 7.5 = 1.111b * 4 (the NaN encoding):
  // nearest_even picks the even 7, a finite value, so no overflow (§7.4: rounded with unbounded
  // exponent, 7 does not exceed max). 7.5 and anything above 7.25 round to 7.5: overflow, NaN.
  CHECK(U(7.25).bits() == 0x1E);
  CHECK(U(7.2500001).bits() == 0x1F);
  CHECK(U(7.5).bits() == 0x1F);
  CHECK(lf::from<e2m3fn>(7.5, lf::env{lf::rounding::nearest_even, lf::policy{{}, {}, {}, lf::overflow_policy::saturate}}).bits() == 0x1E);
  CHECK(lf::classify(U::from_bits(0x1F)) == lf::fp_class::quiet_nan);
  CHECK(lf::classify(U::from_bits(0x18)) == lf::fp_class::positive_normal);  // 0.11.000 = 4: finite
  CHECK(static_cast<double>(std::numeric_limits<U>::max()) == 7);
  CHECK_FALSE(std::numeric_limits<U>::has_infinity);

  // every encoding of several custom formats against the independent decoder
  long long bad = 0;
  for (u64 b = 0; b < 64; ++b) {
    bad += !same_double(T::from_bits(static_cast<T::storage_type>(b)), reference_value(3, 3, false, b));
    bad += !same_double(U::from_bits(static_cast<U::storage_type>(b)), reference_value(2, 4, true, b));
  }
  using E2M1 = lf::fp<lf::format{2, 2, lf::nonfinite::nan_only}>;  // 4 bits: max 0.11.0 = 4, NaN 0.11.1
  using E6M9 = lf::fp<lf::format{6, 10, lf::nonfinite::ieee}>;      // 16 bits, a wider-range half
  for (u64 b = 0; b < 16; ++b) bad += !same_double(E2M1::from_bits(static_cast<std::uint8_t>(b)), reference_value(2, 2, true, b));
  for (u64 b = 0; b < 65536; ++b) bad += !same_double(E6M9::from_bits(static_cast<std::uint16_t>(b)), reference_value(6, 10, false, b));
  // and the named 8/16-bit formats
  for (u64 b = 0; b < 65536; ++b) {
    bad += !same_double(lf::fp16::from_bits(static_cast<std::uint16_t>(b)), reference_value(5, 11, false, b));
    bad += !same_double(lf::bf16::from_bits(static_cast<std::uint16_t>(b)), reference_value(8, 8, false, b));
  }
  for (u64 b = 0; b < 256; ++b) {
    bad += !same_double(lf::fp8_e4m3::from_bits(static_cast<std::uint8_t>(b)), reference_value(4, 4, true, b));
    bad += !same_double(lf::fp8_e5m2::from_bits(static_cast<std::uint8_t>(b)), reference_value(5, 3, false, b));
  }
  CHECK(bad == 0);
  CHECK(static_cast<double>(std::numeric_limits<E2M1>::max()) == 4);
}
