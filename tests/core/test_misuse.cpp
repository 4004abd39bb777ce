// What must not compile, and what must, for lf::fp<F> (core/fp.hpp) and lf::parse (core/decimal.hpp).
//
// Every "does not compile" is a static_assert on a concept (a requires-expression on template
// parameters, so an invalid expression makes it false instead of an error): if someone allows the
// expression again, this file stops building. The run-time cases check values worked out by hand
// from the encodings (IEEE 754-2019 §3.4), never the library against itself.
#include <doctest/doctest.h>

#include <libfloat/libfloat.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// ---- the expressions, as concepts --------------------------------------------------------------
template <class A, class B> concept eq_with = requires(A a, B b) { a == b; };
template <class A, class B> concept ne_with = requires(A a, B b) { a != b; };
template <class A, class B> concept lt_with = requires(A a, B b) { a < b; };
template <class A, class B> concept ge_with = requires(A a, B b) { a >= b; };
template <class A, class B> concept spaceship_with = requires(A a, B b) { a <=> b; };
template <class A, class B> concept add_with = requires(A a, B b) { a + b; };
template <class A, class B> concept sub_with = requires(A a, B b) { a - b; };
template <class A, class B> concept mul_with = requires(A a, B b) { a * b; };
template <class A, class B> concept div_with = requires(A a, B b) { a / b; };
template <class A, class B> concept add_assign_with = requires(A& a, B b) { a += b; };
template <class A, class B> concept sub_assign_with = requires(A& a, B b) { a -= b; };
template <class A, class B> concept mul_assign_with = requires(A& a, B b) { a *= b; };
template <class A, class B> concept div_assign_with = requires(A& a, B b) { a /= b; };
/// Copy-initialisation, `To t = from;`, as a concept (is_convertible's question).
template <class From, class To> concept copy_init = std::is_convertible_v<From, To>;
template <class T> concept in_a_condition = requires(T x) { x ? 1 : 2; };

/// Any of the mixed operators, in either order.
template <class A, class B>
concept any_mixed_operator = eq_with<A, B> || eq_with<B, A> || ne_with<A, B> || ne_with<B, A> || lt_with<A, B> ||
                             lt_with<B, A> || ge_with<A, B> || ge_with<B, A> || spaceship_with<A, B> ||
                             spaceship_with<B, A> || add_with<A, B> || add_with<B, A> || sub_with<A, B> ||
                             sub_with<B, A> || mul_with<A, B> || mul_with<B, A> || div_with<A, B> || div_with<B, A> ||
                             add_assign_with<A, B> || add_assign_with<B, A> || sub_assign_with<A, B> ||
                             sub_assign_with<B, A> || mul_assign_with<A, B> || mul_assign_with<B, A> ||
                             div_assign_with<A, B> || div_assign_with<B, A>;
template <class A>
concept all_same_type_operators = eq_with<A, A> && ne_with<A, A> && lt_with<A, A> && ge_with<A, A> &&
                                  spaceship_with<A, A> && add_with<A, A> && sub_with<A, A> && mul_with<A, A> &&
                                  div_with<A, A> && add_assign_with<A, A> && sub_assign_with<A, A> &&
                                  mul_assign_with<A, A> && div_assign_with<A, A>;

template <class T>
concept mixes_with_a_builtin = any_mixed_operator<T, double> || any_mixed_operator<T, float> ||
                               any_mixed_operator<T, int> || any_mixed_operator<T, unsigned> ||
                               any_mixed_operator<T, long long> || any_mixed_operator<T, bool> ||
                               any_mixed_operator<T, char> || any_mixed_operator<T, long double>;

// ---- 1. narrowing is explicit ------------------------------------------------------------------
template <class T>
concept narrowing_is_explicit = !copy_init<double, T> && !copy_init<float, T> && !copy_init<int, T> &&
                                !copy_init<long long, T> && !copy_init<unsigned, T> &&
                                std::is_constructible_v<T, double> && std::is_constructible_v<T, float> &&
                                std::is_constructible_v<T, int> && std::is_constructible_v<T, std::uint64_t>;
static_assert(narrowing_is_explicit<lf::fp16> && narrowing_is_explicit<lf::bf16> && narrowing_is_explicit<lf::fp32> &&
              narrowing_is_explicit<lf::fp64> && narrowing_is_explicit<lf::tf32> &&
              narrowing_is_explicit<lf::fp8_e4m3> && narrowing_is_explicit<lf::fp8_e5m2>);
// `lf::fp16 x = 70000;` and `lf::fp16 x = 0.1;` in concept form; braces: `lf::fp16 x = {0.1};`.
template <class T, class V> concept takes_by_value = requires(void (*f)(T), V v) { f(v); };
template <class T> concept takes_braced_double = requires(void (*f)(T)) { f({0.1}); };
template <class T> concept takes_braced_int = requires(void (*f)(T)) { f({70000}); };
static_assert(!takes_by_value<lf::fp16, int> && !takes_by_value<lf::fp16, double> &&
              !takes_braced_double<lf::fp16> && !takes_braced_int<lf::fp16>);
// Direct initialisation, `lf::fp16{0.1}` and `lf::fp16(70000.0)`, compiles (and is constexpr).
static_assert(lf::fp16{0.1}.bits() == 0x2E66 && lf::fp16(70000.0).bits() == 0x7C00 && lf::fp16{70000}.bits() == 0x7C00);

// ---- widening is implicit exactly where it is exact -----------------------------------------------
template <class T> concept widens_to_float = copy_init<T, float>;
template <class T> concept widens_to_double = copy_init<T, double>;
static_assert(widens_to_float<lf::fp16> && widens_to_float<lf::bf16> && widens_to_float<lf::tf32> &&
              widens_to_float<lf::fp8_e4m3> && widens_to_float<lf::fp8_e5m2> && widens_to_float<lf::fp32>);
static_assert(widens_to_double<lf::fp16> && widens_to_double<lf::bf16> && widens_to_double<lf::tf32> &&
              widens_to_double<lf::fp8_e4m3> && widens_to_double<lf::fp8_e5m2> && widens_to_double<lf::fp32> &&
              widens_to_double<lf::fp64>);
// binary64 is not inside binary32: float only explicitly (no way round through the implicit double).
static_assert(!widens_to_float<lf::fp64> && std::is_constructible_v<float, lf::fp64>);
// Custom formats by the rule: e8m29 (p = 30 > 24) fits binary64 only; e12m3 (emax 2047 > 1023)
// neither; e5m2fn inside both; e9m7 (emax 255 > 127) only binary64.
inline constexpr lf::format e8m29{8, 30}, e12m3{12, 4}, e5m2fn{5, 3, lf::nonfinite::nan_only}, e9m7{9, 8};
static_assert(!widens_to_float<lf::fp<e8m29>> && widens_to_double<lf::fp<e8m29>>);
static_assert(!widens_to_float<lf::fp<e12m3>> && !widens_to_double<lf::fp<e12m3>> &&
              std::is_constructible_v<double, lf::fp<e12m3>> && std::is_constructible_v<float, lf::fp<e12m3>>);
static_assert(widens_to_float<lf::fp<e5m2fn>> && widens_to_double<lf::fp<e5m2fn>>);
static_assert(!widens_to_float<lf::fp<e9m7>> && widens_to_double<lf::fp<e9m7>>);
// Nothing else converts, implicitly or explicitly: an implicit float must not carry on to int or bool.
template <class T>
concept no_other_conversion = !copy_init<T, int> && !copy_init<T, bool> && !copy_init<T, long double> &&
                              !std::is_constructible_v<int, T> && !std::is_constructible_v<bool, T> &&
                              !std::is_constructible_v<unsigned char, T> && !in_a_condition<T>;
static_assert(no_other_conversion<lf::fp16> && no_other_conversion<lf::fp32> && no_other_conversion<lf::fp64> &&
              no_other_conversion<lf::fp8_e4m3> && no_other_conversion<lf::fp<e12m3>>);
// fp16 -> fp32 is a different format: lf::convert, not a conversion.
static_assert(!copy_init<lf::fp16, lf::fp32> && !copy_init<lf::fp32, lf::fp16> && !copy_init<lf::fp16, lf::bf16>);

// ---- mixed comparisons and arithmetic are deleted -------------------------------------------------
static_assert(!mixes_with_a_builtin<lf::fp16> && !mixes_with_a_builtin<lf::bf16> && !mixes_with_a_builtin<lf::fp32> &&
              !mixes_with_a_builtin<lf::fp64> && !mixes_with_a_builtin<lf::tf32> &&
              !mixes_with_a_builtin<lf::fp8_e4m3> && !mixes_with_a_builtin<lf::fp8_e5m2> &&
              !mixes_with_a_builtin<lf::fp<e12m3>>);
static_assert(!any_mixed_operator<lf::fp16, lf::bf16> && !any_mixed_operator<lf::fp16, lf::fp32> &&
              !any_mixed_operator<lf::fp32, lf::fp64> && !any_mixed_operator<lf::fp8_e4m3, lf::fp8_e5m2> &&
              !any_mixed_operator<lf::tf32, lf::fp32>);
static_assert(all_same_type_operators<lf::fp16> && all_same_type_operators<lf::bf16> &&
              all_same_type_operators<lf::fp32> && all_same_type_operators<lf::fp64> &&
              all_same_type_operators<lf::tf32> && all_same_type_operators<lf::fp8_e4m3> &&
              all_same_type_operators<lf::fp<e12m3>>);

// ---- 4. stochastic rounding needs its random bits where the mode is a constant --------------------
template <lf::rounding M, class T> concept add_without_bits = requires(T a) { lf::add<M>(a, a); };
template <lf::rounding M, class T> concept add_with_bits = requires(T a, std::uint32_t r) { lf::add<M>(a, a, r); };
template <lf::rounding M, class T> concept sqrt_without_bits = requires(T a) { lf::sqrt<M>(a); };
template <lf::rounding M, class T> concept fma_without_bits = requires(T a) { lf::fma<M>(a, a, a); };
template <lf::rounding M, class T> concept div_without_bits = requires(T a, lf::status* st) { lf::div<M>(a, a, st); };
static_assert(!add_without_bits<lf::rounding::stochastic, lf::fp16> && add_with_bits<lf::rounding::stochastic, lf::fp16>);
static_assert(!sqrt_without_bits<lf::rounding::stochastic, lf::bf16> && !fma_without_bits<lf::rounding::stochastic, lf::fp32>);
static_assert(!div_without_bits<lf::rounding::stochastic, lf::fp8_e4m3>);
static_assert(add_without_bits<lf::rounding::upward, lf::fp16> && !add_with_bits<lf::rounding::upward, lf::fp16> &&
              sqrt_without_bits<lf::rounding::odd, lf::bf16> && fma_without_bits<lf::rounding::toward_zero, lf::fp32> &&
              div_without_bits<lf::rounding::nearest_away, lf::fp8_e4m3>);

// ---- 3. parse by type ---------------------------------------------------------------------------
static_assert(std::is_same_v<decltype(lf::parse<lf::fp16>("1")), lf::parsed<lf::fp16>> &&
              std::is_same_v<decltype(lf::parse<lf::fp16>("1")), decltype(lf::parse<lf::binary16>("1"))>);
template <class T> concept parses_as_type = requires { lf::parse<T>("1"); };
static_assert(parses_as_type<lf::fp8_e4m3> && !parses_as_type<double> && !parses_as_type<int>);

}  // namespace

TEST_CASE("explicit construction rounds to nearest even; implicit widening is exact") {
  // 0.1 = 1.6 * 2^-4; 1.6 * 2^10 = 1638.4 -> 1638 = 0x666: sign 0, exponent 15 - 4 = 11, 0x2C00 | 0x266.
  const lf::fp16 x{0.1};
  CHECK(x.bits() == 0x2E66);
  const double d = x;  // implicit: exact, 1638 * 2^-14
  const float f = x;
  CHECK(d == 1638.0 / 16384.0);
  CHECK(f == 1638.0f / 16384.0f);
  // 70000 > 65520 (max 65504 plus half an ulp, 16): overflows to +inf, 0x7C00, from every source type.
  CHECK(lf::fp16(70000.0).bits() == 0x7C00);
  CHECK(lf::fp16(70000.0f).bits() == 0x7C00);
  CHECK(lf::fp16{70000}.bits() == 0x7C00);
  CHECK(lf::fp16{65519}.bits() == 0x7BFF);  // below the midpoint 65520: max finite
  // bf16 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even is 1 (0x3F80).
  CHECK(lf::bf16{1.0 + 0x1p-8}.bits() == 0x3F80);
  CHECK(lf::bf16{1.0 + 0x1p-8 + 0x1p-30}.bits() == 0x3F81);
  // The documented spellings compare as the reader chose.
  CHECK(x == lf::fp16{0.1});
  CHECK(double(x) != 0.1);
  CHECK(static_cast<float>(lf::fp64{0.1}) == 0.1f);  // explicit: rounds to nearest even
}

TEST_CASE("mode as a template argument: same results as the env overloads; stochastic uses the bits") {
  const lf::fp16 one{1.0}, half_ulp{0x1p-11};  // 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10
  lf::status st{};
  CHECK(lf::add<lf::rounding::upward>(one, half_ulp, &st).bits() == 0x3C01);
  CHECK(st == lf::status::inexact);
  CHECK(lf::add<lf::rounding::downward>(one, half_ulp).bits() == 0x3C00);
  CHECK(lf::sub<lf::rounding::toward_zero>(one, half_ulp).bits() == 0x3BFF);  // 1 - 2^-11 is exact in fp16
  CHECK(lf::mul<lf::rounding::odd>(one, half_ulp).bits() == 0x1000);          // 2^-11 exact: 0 00100 0000000000
  CHECK(lf::div<lf::rounding::upward>(one, lf::fp16{3.0}).bits() == 0x3556);  // 1/3 = 0x3555.55..: up
  CHECK(lf::sqrt<lf::rounding::downward>(lf::fp16{2.0}).bits() == 0x3DA8);    // sqrt 2 = 1.0110101000001..b
  CHECK(lf::fma<lf::rounding::upward>(one, one, half_ulp).bits() == 0x3C01);
  // Stochastic (core/rounding.hpp): up iff random < D, D = 2^31 for a discarded half.
  CHECK(lf::add<lf::rounding::stochastic>(one, half_ulp, 0x7FFFFFFFu).bits() == 0x3C01);
  CHECK(lf::add<lf::rounding::stochastic>(one, half_ulp, 0x80000000u).bits() == 0x3C00);
  CHECK(lf::fma<lf::rounding::stochastic>(one, one, half_ulp, 0u).bits() == 0x3C01);
}

// Each (format, mode) of the mode-as-template forms against the env overloads (which switch on
// the mode at run time): bits and flags on random encodings, specials included, for two named
// formats (binary16 with its fast path, bfloat16) and a custom one, and in a constant expression.
template <lf::format F, lf::rounding M>
void template_mode_agrees(std::uint64_t seed) {
  std::uint64_t x = seed;
  const auto next = [&x] {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return x >> 33;
  };
  const auto draw = [&] { return lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(next() & F.encoding_mask())); };
  for (int i = 0; i < 3000; ++i) {
    const lf::fp<F> a = draw(), b = draw();
    const auto random = static_cast<std::uint32_t>(next());
    const lf::env e{M, lf::policy{}, M == lf::rounding::stochastic ? random : 0u};
    const auto pair = [&](auto typed, auto by_env) {
      lf::status s1{}, s2{};
      const auto r1 = typed(&s1), r2 = by_env(&s2);
      CHECK(r1.bits() == r2.bits());
      CHECK(s1 == s2);
    };
    if constexpr (M == lf::rounding::stochastic) {
      pair([&](lf::status* st) { return lf::add<M>(a, b, random, st); }, [&](lf::status* st) { return lf::add(a, b, e, st); });
      pair([&](lf::status* st) { return lf::sub<M>(a, b, random, st); }, [&](lf::status* st) { return lf::sub(a, b, e, st); });
      pair([&](lf::status* st) { return lf::mul<M>(a, b, random, st); }, [&](lf::status* st) { return lf::mul(a, b, e, st); });
      pair([&](lf::status* st) { return lf::div<M>(a, b, random, st); }, [&](lf::status* st) { return lf::div(a, b, e, st); });
    } else {
      pair([&](lf::status* st) { return lf::add<M>(a, b, st); }, [&](lf::status* st) { return lf::add(a, b, e, st); });
      pair([&](lf::status* st) { return lf::sub<M>(a, b, st); }, [&](lf::status* st) { return lf::sub(a, b, e, st); });
      pair([&](lf::status* st) { return lf::mul<M>(a, b, st); }, [&](lf::status* st) { return lf::mul(a, b, e, st); });
      pair([&](lf::status* st) { return lf::div<M>(a, b, st); }, [&](lf::status* st) { return lf::div(a, b, e, st); });
    }
  }
}
template <lf::format F>
void template_modes_agree(std::uint64_t seed) {
  template_mode_agrees<F, lf::rounding::nearest_even>(seed);
  template_mode_agrees<F, lf::rounding::nearest_away>(seed + 1);
  template_mode_agrees<F, lf::rounding::toward_zero>(seed + 2);
  template_mode_agrees<F, lf::rounding::upward>(seed + 3);
  template_mode_agrees<F, lf::rounding::downward>(seed + 4);
  template_mode_agrees<F, lf::rounding::odd>(seed + 5);
  template_mode_agrees<F, lf::rounding::stochastic>(seed + 6);
}

TEST_CASE("mode as a template argument: every mode and operation equals the env overload, bits and flags") {
  template_modes_agree<lf::binary16>(11);
  template_modes_agree<lf::bfloat16>(22);
  template_modes_agree<lf::format{3, 3}>(33);
  // In a constant expression (the inline core, not the out-of-line function of the mode).
  static_assert(lf::add<lf::rounding::upward>(lf::fp16::from_bits(0x3C00), lf::fp16::from_bits(0x1000)).bits() == 0x3C01);
  static_assert(lf::div<lf::rounding::downward>(lf::fp16::from_bits(0x3C00), lf::fp16::from_bits(0x4200)).bits() == 0x3555);
  static_assert(lf::mul<lf::rounding::stochastic>(lf::fp16::from_bits(0x3C01), lf::fp16::from_bits(0x3C01), 0u).bits() == 0x3C03);
}

TEST_CASE("lf::parse<lf::fp16> and lf::parse<lf::binary16> agree on values, flags and errors") {
  std::vector<std::string> texts = {"",      "0",     "-0",     "0.1",    "1e-8",   "6e-8",  "5.9604644775390625e-8",
                                    "65504", "65519", "65520",  "70000",  "1e5",    "inf",   "-Infinity",
                                    "nan",   "-nan",  "snan",   "0x1.8p-3", "-0X.8P1", "0x10", "1e-99999999999999999999",
                                    "--1",   "e5",    " 1",     ".",      "+",      "-.e5",  "0x",
                                    "0x.p1", "1e",    "1e+",    "0x1.8p", "1x",     "1.2.3", "inf1",
                                    "1 ",    "1,5",   "nan(1)", "0.000000059604644775390625"};
  // Generated: digits around binary16's grid and range, with and without errors appended.
  for (int i = 0; i < 120; ++i) {
    texts.push_back(std::to_string(i * 547 + 1) + "e-" + std::to_string(i % 12));
    texts.push_back("-" + std::to_string(i) + "." + std::to_string(i * 7919) + "e" + std::to_string(i % 7 - 3));
    texts.push_back(std::to_string(i * 13) + (i % 3 == 0 ? "x" : i % 3 == 1 ? "e" : "."));
  }
  REQUIRE(texts.size() >= 300);
  int errors = 0;
  for (const std::string& t : texts) {
    for (lf::rounding r : lf::all_roundings) {
      if (r == lf::rounding::stochastic) continue;
      lf::status s1{}, s2{};
      const auto by_type = lf::parse<lf::fp16>(t, r, &s1);
      const auto by_format = lf::parse<lf::binary16>(t, r, &s2);
      CAPTURE(t);
      CHECK(by_type.value.bits() == by_format.value.bits());
      CHECK(by_type.error == by_format.error);
      CHECK(s1 == s2);
      CHECK(static_cast<bool>(by_type) == static_cast<bool>(by_format));
      if (!by_type) ++errors;
    }
    const lf::env e{lf::rounding::stochastic, {}, 0x12345678u};
    CHECK(lf::parse<lf::bf16>(t, e).value.bits() == lf::parse<lf::bfloat16>(t, e).value.bits());
    CHECK(lf::parse<lf::fp8_e4m3>(t).error == lf::parse<lf::float8_e4m3fn>(t).error);
  }
  // The error cases are really exercised: 18 malformed texts in the list and 80 generated ones
  // (a trailing "x" or "e"), each under six roundings.
  CHECK(errors == 6 * (18 + 80));
  // Anchors worked out by hand: 0.1 -> 0x2E66 (above); 65520 is the overflow midpoint -> +inf.
  CHECK(lf::parse<lf::fp16>("0.1").value.bits() == 0x2E66);
  CHECK(lf::parse<lf::fp16>("65520").value.bits() == 0x7C00);
  CHECK(lf::parse<lf::fp16>("1x").error.code == lf::parse_errc::trailing_characters);
  CHECK(lf::parse<lf::fp16>("1x").error.position == 1);
}

TEST_CASE("flags: status* and status& both work on run-time calls; status* on typed calls") {
  // binary16 1 + 2^-11: the midpoint of 1 and 1 + 2^-10, nearest even gives 1 (0x3C00), inexact.
  lf::status by_ref{}, by_ptr{};
  CHECK(lf::add(lf::binary16, 0x3C00, 0x1000, lf::env{}, by_ref) == 0x3C00);
  CHECK(lf::add(lf::binary16, 0x3C00, 0x1000, lf::env{}, &by_ptr) == 0x3C00);
  CHECK(lf::add(lf::binary16, 0x3C00, 0x1000, lf::env{}) == 0x3C00);  // flags not wanted
  CHECK(by_ref == lf::status::inexact);
  CHECK(by_ptr == lf::status::inexact);
  // sqrt(-1): the default NaN 0xFE00 and invalid, through either form.
  lf::status s1{}, s2{};
  CHECK(lf::sqrt(lf::binary16, 0xBC00, lf::env{}, s1) == 0xFE00);
  CHECK(lf::sqrt(lf::binary16, 0xBC00, lf::env{}, &s2) == 0xFE00);
  CHECK((s1 == lf::status::invalid && s2 == lf::status::invalid));
  // A signaling NaN (0x7C01) in a quiet comparison raises invalid.
  lf::status s3{};
  CHECK_FALSE(lf::eq(lf::binary16, 0x7C01, 0x7C01, &s3));
  CHECK(s3 == lf::status::invalid);
  // binary32 65520 = 65504 + 16, half an ulp above max finite: a tie, to even (65536) = +inf,
  // overflow and inexact.
  lf::status s4{};
  CHECK(lf::convert(lf::binary16, lf::binary32, 0x477FF000u, lf::env{}, &s4) == 0x7C00);
  CHECK(s4 == (lf::status::overflow | lf::status::inexact));
  lf::status s5{};
  CHECK(lf::to_int<int>(lf::binary16, 0x3E00, lf::env{}, true, &s5) == 2);  // 1.5 -> 2, inexact (exact form)
  CHECK(s5 == lf::status::inexact);
  lf::status s6{};
  (void)lf::add(lf::fp16{1.0}, lf::fp16{0x1p-11}, lf::rounding::nearest_even, &s6);
  CHECK(s6 == lf::status::inexact);
}
