// libfloat/core/rounding.hpp: the rounding-direction attribute (IEEE 754-2019 §4.3) plus the
// non-IEEE directions the library also models (round-to-odd, stochastic rounding).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace lf {

/// How an inexact result is mapped to a representable one.
///
/// - nearest_even  IEEE 754-2019 §4.3.1 roundTiesToEven (the default everywhere).
/// - nearest_away  §4.3.1 roundTiesToAway.
/// - toward_zero   §4.3.2 roundTowardZero (TestFloat: minMag).
/// - upward        §4.3.2 roundTowardPositive (TestFloat: max).
/// - downward      §4.3.2 roundTowardNegative (TestFloat: min).
/// - odd           round to odd ("jamming"): truncate, then set the last bit if anything was
///                 discarded. Not an IEEE attribute; used to make a later rounding innocuous.
/// - stochastic    round away from zero with probability equal to the discarded fraction,
///                 driven by 32 caller-supplied random bits (see lf::env::random):
///                 let D be the first 32 discarded bits (the bits just below the last kept
///                 bit, read as an unsigned integer, zero-padded when fewer than 32 bits are
///                 discarded). The magnitude is rounded up iff random < D, so
///                 P(up) = D / 2^32: exactly the discarded fraction when at most 32 bits are
///                 discarded, and that fraction truncated to 32 bits otherwise (bias < 2^-32).
///                 The same random bits always give the same result.
enum class rounding : std::uint8_t {
  nearest_even,
  nearest_away,
  toward_zero,
  upward,
  downward,
  odd,
  stochastic,
};

inline constexpr std::array<rounding, 7> all_roundings{
    rounding::nearest_even, rounding::nearest_away, rounding::toward_zero, rounding::upward,
    rounding::downward,     rounding::odd,          rounding::stochastic};

/// The deterministic directions (every mode but stochastic).
inline constexpr std::array<rounding, 6> deterministic_roundings{
    rounding::nearest_even, rounding::nearest_away, rounding::toward_zero,
    rounding::upward,       rounding::downward,     rounding::odd};

/// IEEE-style name used in code and output: "nearest_even", ...
constexpr std::string_view rounding_name(rounding r) {
  switch (r) {
    case rounding::nearest_even: return "nearest_even";
    case rounding::nearest_away: return "nearest_away";
    case rounding::toward_zero: return "toward_zero";
    case rounding::upward: return "upward";
    case rounding::downward: return "downward";
    case rounding::odd: return "odd";
    case rounding::stochastic: return "stochastic";
  }
  return "?";
}

/// Berkeley TestFloat's name for a mode ("near_even", "minMag", ...); stochastic has none.
constexpr std::string_view testfloat_rounding_name(rounding r) {
  switch (r) {
    case rounding::nearest_even: return "near_even";
    case rounding::nearest_away: return "near_maxMag";
    case rounding::toward_zero: return "minMag";
    case rounding::upward: return "max";
    case rounding::downward: return "min";
    case rounding::odd: return "odd";
    case rounding::stochastic: return "stochastic";
  }
  return "?";
}

/// The spellings lf::rounding_by_name accepts, for error messages.
inline constexpr std::string_view rounding_names_help =
    "nearest_even|near_even|rne, nearest_away|near_maxMag|rna, toward_zero|minMag|rtz, "
    "upward|max|rtp, downward|min|rtn, odd|rto, stochastic|sr";

/// Parses an IEEE word, a TestFloat name or a short alias. Case-sensitive for TestFloat's
/// camel-case names (minMag, near_maxMag); returns nullopt for anything else.
constexpr std::optional<rounding> rounding_by_name(std::string_view s) {
  struct entry {
    std::string_view name;
    rounding mode;
  };
  constexpr entry table[] = {
      {"nearest_even", rounding::nearest_even}, {"near_even", rounding::nearest_even},
      {"rne", rounding::nearest_even},          {"nearest_away", rounding::nearest_away},
      {"near_maxMag", rounding::nearest_away},  {"rna", rounding::nearest_away},
      {"toward_zero", rounding::toward_zero},   {"minMag", rounding::toward_zero},
      {"rtz", rounding::toward_zero},           {"upward", rounding::upward},
      {"max", rounding::upward},                {"rtp", rounding::upward},
      {"downward", rounding::downward},         {"min", rounding::downward},
      {"rtn", rounding::downward},              {"odd", rounding::odd},
      {"rto", rounding::odd},                   {"stochastic", rounding::stochastic},
      {"sr", rounding::stochastic},
  };
  for (const auto& e : table)
    if (e.name == s) return e.mode;
  return std::nullopt;
}

namespace detail {

/// Template argument for a run-time rounding direction: f(std::integral_constant<rounding, M>{})
/// with M == m. The one place where the span operations (core/array.hpp, core/array_arith.hpp) turn
/// the run-time mode into the compile-time one their loops and kernels take.
template <typename Fn>
constexpr decltype(auto) with_mode(rounding m, Fn&& f) {
  using R = rounding;
  switch (m) {
    case R::nearest_even: return f(std::integral_constant<R, R::nearest_even>{});
    case R::nearest_away: return f(std::integral_constant<R, R::nearest_away>{});
    case R::toward_zero: return f(std::integral_constant<R, R::toward_zero>{});
    case R::upward: return f(std::integral_constant<R, R::upward>{});
    case R::downward: return f(std::integral_constant<R, R::downward>{});
    case R::odd: return f(std::integral_constant<R, R::odd>{});
    case R::stochastic: break;
  }
  return f(std::integral_constant<R, R::stochastic>{});
}

}  // namespace detail
}  // namespace lf
