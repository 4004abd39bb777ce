// Every policy switch of lf::env (core/env.hpp, core/policy.hpp, core/rounding.hpp) on a case where switching it changes
// the answer, so that a library which ignored the switch would fail. Expected values are derived
// by hand in the comments (bit patterns grouped sign.exponent.fraction) or computed here with
// plain double arithmetic that shares no code with the library.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;

lf::env with(lf::rounding m, lf::policy p) { return lf::env{m, p}; }
lf::policy tininess_before() {
  lf::policy p{};
  p.tininess = lf::tininess::before_rounding;
  return p;
}
lf::policy ftz() {
  lf::policy p{};
  p.results = lf::subnormal_results::flush_to_zero;
  return p;
}
lf::policy daz() {
  lf::policy p{};
  p.inputs = lf::subnormal_inputs::treat_as_zero;
  return p;
}
lf::policy saturate() {
  lf::policy p{};
  p.overflow = lf::overflow_policy::saturate;
  return p;
}
constexpr lf::status inexact = lf::status::inexact;
constexpr lf::status underflow_inexact = lf::status::underflow | lf::status::inexact;
constexpr lf::status overflow_inexact = lf::status::overflow | lf::status::inexact;

u64 d(double v) { return std::bit_cast<u64>(v); }

}  // namespace

// ---- tininess (IEEE 754-2019 §7.5) -------------------------------------------------------------

// a = 0.00111.1111111110 = (2 - 2^-9) * 2^-8 = 2^-7 (1 - 2^-10)
// b = 0.01000.0000000001 = (1 + 2^-10) * 2^-7
// a*b = 2^-14 (1 - 2^-20) exactly: below the min normal 2^-14, so tiny *before* rounding. Rounded
// to 11 bits with unbounded exponent it is 2^-14 (the discarded part 2^-20 of the unit 2^-10... is
// far below half of the last kept bit), so not tiny *after* rounding. On the subnormal grid
// (unit 2^-24) it is 2^-14 - 2^-34: rounds to 2^-14 = 0.00001.0000000000 = 0x0400, inexact.
TEST_CASE("tininess before vs after rounding: binary16 0x1FFE*0x2001 = 0x0400 underflows only before") {
  const auto a = lf::fp16::from_bits(0x1FFE), b = lf::fp16::from_bits(0x2001);
  lf::status after{}, before{};
  CHECK(lf::mul(a, b, lf::env{}, &after).bits() == 0x0400);
  CHECK(lf::mul(a, b, with(lf::rounding::nearest_even, tininess_before()), &before).bits() == 0x0400);
  CHECK(after == inexact);
  CHECK(before == underflow_inexact);
  // Upward: the same; toward zero the result 0.00000.1111111111 = 0x03FF is tiny either way.
  after = before = {};
  CHECK(lf::mul(a, b, lf::rounding::upward, &after).bits() == 0x0400);
  CHECK(lf::mul(a, b, with(lf::rounding::upward, tininess_before()), &before).bits() == 0x0400);
  CHECK(after == inexact);
  CHECK(before == underflow_inexact);
  after = before = {};
  CHECK(lf::mul(a, b, lf::rounding::toward_zero, &after).bits() == 0x03FF);
  CHECK(lf::mul(a, b, with(lf::rounding::toward_zero, tininess_before()), &before).bits() == 0x03FF);
  CHECK(after == underflow_inexact);
  CHECK(before == underflow_inexact);
  // With FTZ the tininess rule decides what is flushed: before flushes to +0, after keeps 0x0400.
  lf::policy ftz_before = ftz();
  ftz_before.tininess = lf::tininess::before_rounding;
  lf::status st{};
  CHECK(lf::mul(a, b, with(lf::rounding::nearest_even, ftz_before), &st).bits() == 0x0000);
  CHECK(st == underflow_inexact);
  st = {};
  CHECK(lf::mul(a, b, with(lf::rounding::nearest_even, ftz()), &st).bits() == 0x0400);
  CHECK(st == inexact);
}

// ---- FTZ: subnormal_results::flush_to_zero ---------------------------------------------------

// 2^-100 * 2^-30 = 2^-130 = 2^19 * 2^-149: the binary32 subnormal 0x00080000, exact. IEEE raises
// nothing (underflow needs inexact); MXCSR.FTZ returns a zero with underflow and inexact
// (Intel SDM vol. 1 §10.2.3.3; the hardware test compares this on the real unit).
TEST_CASE("FTZ: binary32 2^-100 * 2^-30 = 0x00080000 exact, flushed to +-0 with underflow|inexact") {
  const u64 two_m100 = 0x0D800000, two_m30 = 0x30800000;  // biased 27 and 97
  lf::status st{};
  CHECK(lf::mul(lf::binary32, two_m100, two_m30, lf::env{}, st) == 0x00080000);
  CHECK(st == lf::status::none);
  CHECK(lf::mul(lf::binary32, two_m100, two_m30, with(lf::rounding::nearest_even, ftz()), st) == 0x00000000);
  CHECK(st == underflow_inexact);
  st = {};
  CHECK(lf::mul(lf::binary32, two_m100 | 0x80000000, two_m30, with(lf::rounding::upward, ftz()), st) == 0x80000000);
  CHECK(st == underflow_inexact);
  // FTZ flushes results, not operands: a subnormal operand times 2^30 is a normal result.
  // 0x00000800 = 2^11 * 2^-149 = 2^-138; * 2^30 = 2^-108 = biased 19 = 0x09800000.
  st = {};
  CHECK(lf::mul(lf::binary32, 0x00000800, 0x4E800000, with(lf::rounding::nearest_even, ftz()), st) == 0x09800000);
  CHECK(st == lf::status::none);
  // binary16 conversion: 1e-6 is a binary16 subnormal (min normal 2^-14 ~ 6.1e-5).
  CHECK(lf::from<lf::binary16>(1e-6).bits() == 0x0011);  // 1e-6 / 2^-24 = 16.78 -> 17
  st = {};
  CHECK(lf::from<lf::binary16>(-1e-6, with(lf::rounding::nearest_even, ftz()), &st).bits() == 0x8000);
  CHECK(st == underflow_inexact);
}

// ---- DAZ: subnormal_inputs::treat_as_zero ------------------------------------------------------

TEST_CASE("DAZ: subnormal operands read as zeros, silently, in arithmetic, conversion and comparison") {
  const u64 min_sub = 0x00000001, neg_sub = 0x807FFFFF;  // 2^-149, -(2^-126 - 2^-149)
  lf::status st{};
  // 2^-149 + 2^-149 = 2^-148 = 0x00000002 exactly; DAZ: 0 + 0 = +0.
  CHECK(lf::add(lf::binary32, min_sub, min_sub, lf::env{}, st) == 0x00000002);
  CHECK(lf::add(lf::binary32, min_sub, min_sub, with(lf::rounding::nearest_even, daz()), st) == 0x00000000);
  CHECK(st == lf::status::none);
  // subnormal * inf: inf normally, 0 * inf = invalid with DAZ (default NaN 1.11111111.10..0).
  CHECK(lf::mul(lf::binary32, min_sub, 0x7F800000, lf::env{}, st) == 0x7F800000);
  CHECK(st == lf::status::none);
  CHECK(lf::mul(lf::binary32, min_sub, 0x7F800000, with(lf::rounding::nearest_even, daz()), st) == 0xFFC00000);
  CHECK(st == lf::status::invalid);
  // 1 / 2^-149 = 2^149 overflows; with DAZ it is 1 / +0: divide by zero.
  st = {};
  CHECK(lf::div(lf::binary32, 0x3F800000, min_sub, lf::env{}, st) == 0x7F800000);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::div(lf::binary32, 0x3F800000, min_sub, with(lf::rounding::nearest_even, daz()), st) == 0x7F800000);
  CHECK(st == lf::status::divide_by_zero);
  // sqrt of a negative subnormal: invalid normally; DAZ reads -0 and sqrt(-0) = -0.
  st = {};
  CHECK(lf::sqrt(lf::binary32, neg_sub, lf::env{}, st) == 0xFFC00000);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::sqrt(lf::binary32, neg_sub, with(lf::rounding::nearest_even, daz()), st) == 0x80000000);
  CHECK(st == lf::status::none);
  // convertFormat: binary32 subnormal -> binary64 is exact normally, a signed zero with DAZ.
  CHECK(lf::convert(lf::binary64, lf::binary32, neg_sub, lf::env{}, st) == d(-(std::ldexp(1.0, -126) - std::ldexp(1.0, -149))));
  CHECK(lf::convert(lf::binary64, lf::binary32, neg_sub, with(lf::rounding::nearest_even, daz()), st) == d(-0.0));
  CHECK(st == lf::status::none);
  // comparisons take the daz flag explicitly
  CHECK_FALSE(lf::eq(lf::binary32, min_sub, 0x00000000, st));
  CHECK(lf::eq(lf::binary32, min_sub, 0x00000000, st, /*daz=*/true));
  CHECK(lf::lt(lf::binary32, 0x80000000, min_sub, st));
  CHECK_FALSE(lf::lt(lf::binary32, 0x80000000, min_sub, st, /*daz=*/true));
  CHECK(lf::compare(lf::binary32, neg_sub, min_sub, false, st) == std::partial_ordering::less);
  CHECK(lf::compare(lf::binary32, neg_sub, min_sub, false, st, true) == std::partial_ordering::equivalent);
  CHECK(st == lf::status::none);
  // binary16 too: 0x0001 * 0x3C00 (1.0) is 0x0001 normally, +0 with DAZ
  CHECK(lf::mul(lf::fp16::from_bits(0x0001), lf::fp16(1.0), with(lf::rounding::nearest_even, daz())).bits() == 0x0000);
  CHECK(lf::mul(lf::fp16::from_bits(0x0001), lf::fp16(1.0)).bits() == 0x0001);
}

// ---- saturation (overflow_policy::saturate) -------------------------------------------------------

// OCP FP8 E4M3: max finite 0.1111.110 = 1.75 * 2^8 = 448 = 0x7E; NaN 0.1111.111 = 0x7F; no infinity.
// Under IEEE-style rounding everything above 448 + ulp/2 = 464 overflows to the NaN (PyTorch
// Float8_e4m3fn); 464 itself is a tie that nearest_even sends to 448 (see the next test case).
// Saturating conversions (OCP "saturate", CUDA __NV_SATFINITE) give 448.
TEST_CASE("saturate: E4M3 500 -> 448 (0x7E) instead of NaN 0x7F; infinity -> max finite") {
  lf::status st{};
  CHECK(lf::from<lf::float8_e4m3fn>(500.0, lf::env{}, &st).bits() == 0x7F);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::from<lf::float8_e4m3fn>(500.0, with(lf::rounding::nearest_even, saturate()), &st).bits() == 0x7E);
  CHECK(st == overflow_inexact);
  CHECK(lf::from<lf::float8_e4m3fn>(-1e30, with(lf::rounding::nearest_even, saturate())).bits() == 0xFE);
  // infinity has no E4M3 encoding: NaN and invalid, or max finite under saturation (no flag)
  st = {};
  CHECK(lf::from<lf::float8_e4m3fn>(INFINITY, lf::env{}, &st).bits() == 0x7F);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::from<lf::float8_e4m3fn>(-INFINITY, with(lf::rounding::nearest_even, saturate()), &st).bits() == 0xFE);
  CHECK(st == lf::status::none);
  // arithmetic: 448 * 2
  const auto max = lf::fp8_e4m3::from_bits(0x7E), two = lf::fp8_e4m3(2.0);
  CHECK(lf::mul(max, two).bits() == 0x7F);
  CHECK(lf::mul(max, two, with(lf::rounding::nearest_even, saturate())).bits() == 0x7E);
  // The boundary under nearest_even: 463.99 -> 448, 464 (the tie max + ulp/2) -> 448, above -> NaN.
  CHECK(lf::fp8_e4m3(463.99).bits() == 0x7E);
  CHECK(lf::fp8_e4m3(464.0).bits() == 0x7E);
  CHECK(lf::fp8_e4m3(464.01).bits() == 0x7F);
}

// IEEE 754-2019 §7.4: overflow is signalled when the result, rounded as if the exponent range were
// unbounded, exceeds max finite. In E4M3's top binade (2^8, ulp 2^5 = 32) the significands are
// 1.000 .. 1.111; 1.111 * 2^8 = 480 is the NaN encoding, so 480 exists only with an unbounded
// exponent. 464 = 1.1101b * 2^8 lies exactly halfway between 448 = 1.110b (even last bit) and
// 480 = 1.111b (odd): nearest_even gives 448, which is finite, so 464 is inexact, not an overflow
// (PyTorch c10::Float8_e4m3fn and ml_dtypes agree: 464 -> 0x7E). Anything above 464 rounds to 480
// and overflows. nearest_away sends the tie to 480: overflow. upward/downward take 480 on the side
// away from zero, toward_zero keeps 448 below 480 and overflows (to 448, §7.4) from 480 on.
// Stochastic rounding of 464 discards exactly half an ulp: D = 2^31, up (480, overflow) iff random < D.
TEST_CASE("E4M3 464 = 448 + ulp/2 (tie 1.110b/1.111b * 2^8): nearest_even 448 inexact, not overflow; every mode") {
  using E = lf::fp8_e4m3;
  constexpr auto F = lf::float8_e4m3fn;
  const double above = std::nextafter(464.0f, 1000.0f);  // 464 + 2^-15: the next float, exact in both types
  struct row {
    double x;
    lf::rounding m;
    u64 bits;
    lf::status flags;
  };
  const row rows[] = {
      {464.0, lf::rounding::nearest_even, 0x7E, inexact},          {-464.0, lf::rounding::nearest_even, 0xFE, inexact},
      {above, lf::rounding::nearest_even, 0x7F, overflow_inexact}, {-above, lf::rounding::nearest_even, 0xFF, overflow_inexact},
      {463.0, lf::rounding::nearest_even, 0x7E, inexact},          {480.0, lf::rounding::nearest_even, 0x7F, overflow_inexact},
      {464.0, lf::rounding::nearest_away, 0x7F, overflow_inexact}, {-464.0, lf::rounding::nearest_away, 0xFF, overflow_inexact},
      {463.0, lf::rounding::nearest_away, 0x7E, inexact},
      {464.0, lf::rounding::toward_zero, 0x7E, inexact},           {-464.0, lf::rounding::toward_zero, 0xFE, inexact},
      {479.0, lf::rounding::toward_zero, 0x7E, inexact},           {480.0, lf::rounding::toward_zero, 0x7E, overflow_inexact},
      {464.0, lf::rounding::upward, 0x7F, overflow_inexact},       {-464.0, lf::rounding::upward, 0xFE, inexact},
      {449.0, lf::rounding::upward, 0x7F, overflow_inexact},
      {464.0, lf::rounding::downward, 0x7E, inexact},              {-464.0, lf::rounding::downward, 0xFF, overflow_inexact},
      // odd picks the neighbour with an odd last bit: 1.111b * 2^8 = 480 for everything in (448, 480),
      // which overflows (to max finite under odd, as SoftFloat does).
      {464.0, lf::rounding::odd, 0x7E, overflow_inexact},          {449.0, lf::rounding::odd, 0x7E, overflow_inexact},
      {480.0, lf::rounding::odd, 0x7E, overflow_inexact},          {447.0, lf::rounding::odd, 0x7D, inexact},  // 416 = 1.101b
  };
  for (const auto& r : rows) {
    INFO(r.x << " " << lf::rounding_name(r.m));
    lf::status st{};
    CHECK(lf::from<F>(r.x, lf::env{r.m}, &st).bits() == r.bits);  // from double
    CHECK(st == r.flags);
    st = {};
    CHECK(lf::from<F>(static_cast<float>(r.x), lf::env{r.m}, &st).bits() == r.bits);  // from float (every x is a float)
    CHECK(st == r.flags);
    // saturate: the same rounding; an overflow gives max finite 448 (sign kept) and still raises overflow
    st = {};
    const bool over = (r.flags & lf::status::overflow) != lf::status::none;
    CHECK(lf::from<F>(r.x, with(r.m, saturate()), &st).bits() == (over ? (r.bits & 0x80) | 0x7E : r.bits));
    CHECK(st == (over ? overflow_inexact : inexact));
  }
  // The array kernels (lf::convert over spans, a vectorised lane of their own) round the same way:
  // 100 copies of each value, from float and from double; the status is the OR over the elements.
  for (const auto& r : rows) {
    INFO(r.x << " " << lf::rounding_name(r.m));
    for (bool sat : {false, true}) {
      const bool over = (r.flags & lf::status::overflow) != lf::status::none;
      const u64 want = sat && over ? (r.bits & 0x80) | 0x7E : r.bits;
      const std::vector<float> xf(100, static_cast<float>(r.x));
      const std::vector<double> xd(100, r.x);
      std::vector<E> of(100), od(100);
      const lf::env e = sat ? with(r.m, saturate()) : lf::env{r.m};
      CHECK(lf::convert(std::span<const float>(xf), std::span<E>(of), e) == r.flags);
      CHECK(lf::convert(std::span<const double>(xd), std::span<E>(od), e) == r.flags);
      CHECK(std::all_of(of.begin(), of.end(), [&](E v) { return v.bits() == want; }));
      CHECK(std::all_of(od.begin(), od.end(), [&](E v) { return v.bits() == want; }));
    }
  }
  // from double: 464 + 2^-44, the double just above 464, is not a float
  CHECK(lf::from<F>(std::nextafter(464.0, 1000.0)).bits() == 0x7F);
  CHECK(lf::from<F>(-std::nextafter(464.0, 1000.0)).bits() == 0xFF);
  // convertFormat from binary16: 464 = 0.11000.1101000000 = 0x5F40 exactly, 466 = 0x5F48
  lf::status st{};
  CHECK(lf::convert(F, lf::binary16, 0x5F40, lf::env{}, st) == 0x7E);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::convert(F, lf::binary16, 0x5F48, lf::env{}, st) == 0x7F);
  CHECK(st == overflow_inexact);
  // from integer
  st = {};
  CHECK(lf::from_int(F, 464, lf::env{}, st) == 0x7E);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::from_int(F, -465, lf::env{}, st) == 0xFF);
  CHECK(st == overflow_inexact);
  // stochastic: D = 2^31
  st = {};
  CHECK(lf::from<F>(464.0, lf::env{lf::rounding::stochastic, {}, 0x7FFFFFFFu}, &st).bits() == 0x7F);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::from<F>(464.0, lf::env{lf::rounding::stochastic, {}, 0x80000000u}, &st).bits() == 0x7E);
  CHECK(st == inexact);

  // Arithmetic results that land on the tie. 448 = 0x7E, 16 = 0.1011.000 = 0x58, 18 = 0.1011.001 = 0x59,
  // 8 = 0x50, 2 = 0x40, 1 = 0x38, 1.125 = 0x39, 14 = 0x56, 15 = 0x57.
  const E max = E::from_bits(0x7E);
  st = {};
  CHECK(lf::add(max, E::from_bits(0x58), lf::rounding::nearest_even, &st).bits() == 0x7E);  // 448 + 16 = 464
  CHECK(st == inexact);
  st = {};
  CHECK(lf::sub(-max, E::from_bits(0x58), lf::rounding::nearest_even, &st).bits() == 0xFE);  // -464
  CHECK(st == inexact);
  st = {};
  CHECK(lf::add(max, E::from_bits(0x59), lf::rounding::nearest_even, &st).bits() == 0x7F);  // 466
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::add(max, E::from_bits(0x58), lf::rounding::nearest_away, &st).bits() == 0x7F);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::add(max, E::from_bits(0x58), with(lf::rounding::nearest_away, saturate()), &st).bits() == 0x7E);
  CHECK(st == overflow_inexact);
  CHECK((max + E::from_bits(0x58)).bits() == 0x7E);  // the typed operator (nearest_even)
  st = {};
  CHECK(lf::fma(E::from_bits(0x50), E::from_bits(0x40), max, lf::rounding::nearest_even, &st).bits() == 0x7E);  // 8*2 + 448
  CHECK(st == inexact);
  st = {};
  CHECK(lf::fma(E::from_bits(0x39), E::from_bits(0x57), max, lf::rounding::nearest_even, &st).bits() == 0x7F);  // 16.875 + 448
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::fma(E::from_bits(0x39), E::from_bits(0x56), max, lf::rounding::nearest_even, &st).bits() == 0x7E);  // 15.75 + 448
  CHECK(st == inexact);
  // mul: 464 = 29 * 2^4 and 29 = 11101b needs 5 bits, so no product of E4M3 values is 464. Two
  // multiples of 2^4 above 448 that are products: 2 * 240 (0x40 * 0x77 = 480) overflows.
  st = {};
  CHECK(lf::mul(E::from_bits(0x40), E::from_bits(0x77), lf::rounding::nearest_even, &st).bits() == 0x7F);
  CHECK(st == overflow_inexact);
}

// The same rule in custom no-infinity ("fn") formats. Their max finite is always S.1..1.1..10,
// an even last bit, so max + ulp/2 ties to max under nearest_even.
//   e5m3fn {5, 4, nan_only}: 9 bits, bias 15, emax 31 - 15 = 16: max 1.110b * 2^16 = 114688 = 0xFE,
//     NaN 0xFF (1.111b * 2^16 = 122880 unbounded), tie 1.1101b * 2^16 = 118784; sign bit 0x100.
//   e4m5fn {4, 6, nan_only}: 10 bits, bias 7, emax 8, ulp at the top 2^3: max 62 * 8 = 496 = 0x1FE,
//     NaN 0x1FF (63 * 8 = 504), tie 500 = 5 * 100 = 1.01b * 2^2 * 1.1001b * 2^6 (a product).
TEST_CASE("custom fn formats e5m3fn and e4m5fn: max + ulp/2 ties to max under nearest_even; above overflows") {
  constexpr lf::format e5m3fn{5, 4, lf::nonfinite::nan_only};
  constexpr lf::format e4m5fn{4, 6, lf::nonfinite::nan_only};
  static_assert(e5m3fn.emax() == 16 && e4m5fn.emax() == 8);
  lf::status st{};
  CHECK(lf::from<e5m3fn>(118784.0, lf::env{}, &st).bits() == 0xFE);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::from<e5m3fn>(-118784.0, lf::env{}, &st).bits() == 0x1FE);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::from<e5m3fn>(118785.0, lf::env{}, &st).bits() == 0xFF);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::from<e5m3fn>(118784.0, lf::env{lf::rounding::nearest_away}, &st).bits() == 0xFF);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::from<e5m3fn>(118785.0, with(lf::rounding::nearest_even, saturate()), &st).bits() == 0xFE);
  CHECK(st == overflow_inexact);
  // e4m5fn: 5 * 100 = 500 is the tie; 5 = 0.1001.01000 (0x128), 100 = 0.1101.10010 (0x1B2)
  using G = lf::fp<e4m5fn>;
  static_assert(sizeof(G::storage_type) >= 2);
  CHECK(static_cast<double>(G::from_bits(0x128)) == 5.0);
  CHECK(static_cast<double>(G::from_bits(0x1B2)) == 100.0);
  st = {};
  CHECK(lf::mul(G::from_bits(0x128), G::from_bits(0x1B2), lf::rounding::nearest_even, &st).bits() == 0x1FE);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::mul(G::from_bits(0x128), G::from_bits(0x1B2), lf::rounding::nearest_away, &st).bits() == 0x1FF);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::mul(G::from_bits(0x128), G::from_bits(0x1B2), lf::rounding::upward, &st).bits() == 0x1FF);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::mul(G::from_bits(0x128), G::from_bits(0x1B2), lf::rounding::toward_zero, &st).bits() == 0x1FE);
  CHECK(st == inexact);
  // 5 * 102 (0x1B3 = 1.10011b * 2^6) = 510 > 500: overflow
  CHECK(static_cast<double>(G::from_bits(0x1B3)) == 102.0);
  st = {};
  CHECK(lf::mul(G::from_bits(0x128), G::from_bits(0x1B3), lf::rounding::nearest_even, &st).bits() == 0x1FF);
  CHECK(st == overflow_inexact);
  // run-time format path (not the typed template): the same answers
  st = {};
  CHECK(lf::mul(e4m5fn, 0x128, 0x1B2, lf::env{}, st) == 0x1FE);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::add(lf::float8_e4m3fn, 0x7E, 0x58, lf::env{}, st) == 0x7E);
  CHECK(st == inexact);
}

// 432 = 1.6875 * 2^8 is the tie between 416 = 0.1111.101 and 448 = 0.1111.110. Ties to even pick
// 448 (fraction 110): a finite, non-overflowing result, inexact only. (A core that decided this
// tie by "a tie that reaches max" would confuse it with the one at 464 above max.)
TEST_CASE("E4M3 nearest_even: 432 (tie 416/448) rounds to even 448 = 0x7E with inexact only, not NaN") {
  lf::status st{};
  CHECK(lf::from<lf::float8_e4m3fn>(432.0, lf::env{}, &st).bits() == 0x7E);
  CHECK(st == inexact);
  st = {};
  CHECK(lf::add(lf::fp8_e4m3::from_bits(0x7D), lf::fp8_e4m3(16.0), lf::rounding::nearest_even, &st).bits() == 0x7E);
  CHECK(st == inexact);
  CHECK(lf::fp8_e4m3(-432.0f).bits() == 0xFE);
  st = {};
  CHECK(lf::from<lf::float8_e4m3fn>(432.0, with(lf::rounding::nearest_even, saturate()), &st).bits() == 0x7E);
  CHECK(st == inexact);
}

// OCP FP8 E5M2 is IEEE-style: max 0.11110.11 = 1.75 * 2^15 = 57344 = 0x7B, infinity 0x7C.
TEST_CASE("saturate: E5M2 65536 -> 57344 (0x7B) instead of infinity 0x7C") {
  lf::status st{};
  CHECK(lf::from<lf::float8_e5m2>(65536.0, lf::env{}, &st).bits() == 0x7C);
  CHECK(st == overflow_inexact);
  st = {};
  CHECK(lf::from<lf::float8_e5m2>(65536.0, with(lf::rounding::nearest_even, saturate()), &st).bits() == 0x7B);
  CHECK(st == overflow_inexact);
  CHECK(lf::from<lf::float8_e5m2>(INFINITY, with(lf::rounding::nearest_even, saturate())).bits() == 0x7B);
  CHECK(lf::from<lf::float8_e5m2>(-INFINITY, with(lf::rounding::upward, saturate())).bits() == 0xFB);
  CHECK(lf::from<lf::float8_e5m2>(-INFINITY).bits() == 0xFC);
  // binary16 too: 1e5 -> 65504 = 0x7BFF
  CHECK(lf::from<lf::binary16>(1e5, with(lf::rounding::nearest_even, saturate())).bits() == 0x7BFF);
  CHECK(lf::from<lf::binary16>(1e5).bits() == 0x7C00);
}

// ---- the seven rounding directions ---------------------------------------------------------------

// One value cannot separate seven directions (there are only two neighbours), so four values do it
// together: every pair of deterministic directions differs on at least one row (checked below), and
// stochastic differs from each of them for some random word.
//   row 1: 1 + 2^-11        tie between 0x3C00 (even) and 0x3C01
//   row 2: -(1 + 2^-11)     the same tie, negative
//   row 3: 1 + 3 * 2^-11    tie between 0x3C01 (odd) and 0x3C02 (even)
//   row 4: 1 + 2^-12        a quarter of an ulp above 0x3C00
TEST_CASE("every rounding direction on binary16: four values on which the six deterministic modes all differ pairwise") {
  struct row {
    double x;
    std::array<std::uint16_t, 6> expect;  // nearest_even, nearest_away, toward_zero, upward, downward, odd
  };
  const row rows[] = {
      {1 + 0x1p-11, {0x3C00, 0x3C01, 0x3C00, 0x3C01, 0x3C00, 0x3C01}},
      {-(1 + 0x1p-11), {0xBC00, 0xBC01, 0xBC00, 0xBC00, 0xBC01, 0xBC01}},
      {1 + 0x3p-11, {0x3C02, 0x3C02, 0x3C01, 0x3C02, 0x3C01, 0x3C01}},
      {1 + 0x1p-12, {0x3C00, 0x3C00, 0x3C00, 0x3C01, 0x3C00, 0x3C01}},
  };
  // The table separates every pair, so a library that ignored the direction (or confused two)
  // cannot pass.
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = i + 1; j < 6; ++j) {
      bool differ = false;
      for (const auto& r : rows) differ = differ || r.expect[i] != r.expect[j];
      CHECK(differ);
    }
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < 6; ++i) {
      const lf::rounding m = lf::deterministic_roundings[i];
      INFO(lf::rounding_name(m) << " x=" << r.x);
      lf::status st{};
      CHECK(lf::from<lf::binary16>(r.x, lf::env{m}, &st).bits() == r.expect[i]);
      CHECK(st == inexact);
      // the same through an operation: x = 1 + (x - 1), both operands exact binary16 values
      CHECK(lf::add(lf::fp16(r.x < 0 ? -1.0 : 1.0), lf::fp16(r.x - (r.x < 0 ? -1.0 : 1.0)), m).bits() == r.expect[i]);
    }
  }
  // stochastic on row 4 (discarded quarter: D = 2^30): random < 2^30 rounds up, anything else down.
  const auto sr = [](std::uint32_t rnd) {
    return lf::from<lf::binary16>(1 + 0x1p-12, lf::env{lf::rounding::stochastic, {}, rnd}).bits();
  };
  CHECK(sr(0) == 0x3C01);           // differs from nearest_even, nearest_away, toward_zero, downward
  CHECK(sr(0x3FFFFFFF) == 0x3C01);
  CHECK(sr(0x40000000) == 0x3C00);  // differs from upward, odd
  CHECK(sr(0xFFFFFFFF) == 0x3C00);
}

// ---- stochastic rounding (rounding.hpp): P(up) = D / 2^32 ----------------------------------------

namespace {
/// The stochastic-rounding reference for one value x -> binary16, computed with double arithmetic:
/// the magnitudes below and above, and D = floor(frac * 2^32) where frac in [0, 1) is the
/// discarded fraction of an ulp. Exact for every x used below (all steps are exact in binary64).
struct sr_reference {
  double down, up;
  std::uint64_t D;
};
sr_reference stochastic_reference(double x) {
  const double ax = std::fabs(x);
  const int e = std::max(std::ilogb(ax), -14);  // binary16: emin = -14, p = 11
  const double ulp = std::ldexp(1.0, e - 10);
  const double down = std::trunc(ax / ulp) * ulp;
  const double frac = (ax - down) / ulp;
  return {down, down + ulp, static_cast<std::uint64_t>(std::floor(std::ldexp(frac, 32)))};
}
}  // namespace

TEST_CASE("stochastic rounding: over all 2^16 spaced random words, P(up) = D / 2^32 exactly (count = ceil(D / 2^16))") {
  const double xs[] = {
      1 + 0x1p-12,                 // 1/4 of an ulp: D = 2^30
      1 + 0x7p-13,                 // 7/8
      -(2 + 0x1p-9 + 0x1p-20),     // negative; 2^-20 below the ulp 2^-9 is 1/2^11 of it
      3.14159265358979,            // 42 discarded bits: P(up) is D / 2^32 with D truncated
      0x1.2345p-20,                // a subnormal result (grid 2^-24)
      0x1p-30,                     // below the min subnormal: up to 2^-24 with probability 2^-6
      65504 + 8.5,                 // between max finite and 2^16: up means overflow to infinity
      1 + 0x1p-40,                 // tiny fraction: D = 2^-30 * 2^32 = 4 -> one word of 2^16 rounds up
  };
  for (const double x : xs) {
    const sr_reference ref = stochastic_reference(x);
    long long ups = 0, downs = 0;
    for (std::uint32_t i = 0; i < (1u << 16); ++i) {
      const lf::fp16 r = lf::from<lf::binary16>(x, lf::env{lf::rounding::stochastic, {}, i << 16});
      const double mag = std::fabs(static_cast<double>(r));
      if (mag == ref.up || (std::isinf(mag) && ref.up >= 65520)) ++ups;
      else if (mag == ref.down) ++downs;
      else FAIL_CHECK("x=" << x << " random=" << (i << 16) << " gave " << static_cast<double>(r));
    }
    INFO("x=" << x << " D=" << ref.D);
    CHECK(ups + downs == 65536);
    CHECK(ups == static_cast<long long>((ref.D + 0xFFFF) >> 16));
    // the threshold itself: up iff random < D
    if (ref.D > 0 && ref.D < (u64{1} << 32)) {
      const auto at = [&](u64 rnd) {
        return std::fabs(static_cast<double>(lf::from<lf::binary16>(x, lf::env{lf::rounding::stochastic, {}, static_cast<std::uint32_t>(rnd)})));
      };
      CHECK(at(ref.D - 1) != ref.down);
      CHECK(at(ref.D) == ref.down);
    }
  }
}

TEST_CASE("stochastic rounding is a pure function of its random bits: same word, same result") {
  std::mt19937_64 rng(0x5EED5);
  std::set<std::uint16_t> seen;
  for (int i = 0; i < 20'000; ++i) {
    const double x = std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 80));
    const auto word = static_cast<std::uint32_t>(rng());
    const lf::env e{lf::rounding::stochastic, {}, word};
    const auto r1 = lf::from<lf::binary16>(x, e);
    const auto r2 = lf::from<lf::binary16>(x, lf::env{lf::rounding::stochastic, {}, word});
    CHECK(r1.bits() == r2.bits());
    const auto s1 = lf::add(lf::fp16(x), lf::fp16(0.1), e), s2 = lf::add(lf::fp16(x), lf::fp16(0.1), e);
    CHECK(s1.bits() == s2.bits());
    if (i < 64) seen.insert(lf::from<lf::binary16>(1 + 0x1p-11, lf::env{lf::rounding::stochastic, {}, word}).bits());
  }
  // and it is not constant: 1 + half an ulp lands on both neighbours for 64 random words
  CHECK(seen == std::set<std::uint16_t>{0x3C00, 0x3C01});
}

// ---- NaNs: default NaN and propagation ------------------------------------------------------------

// The library's rule (core/arith.hpp; x86 SSE and TestFloat's): an invalid operation returns the default
// NaN (sign set, quiet bit set, payload 0); an operation on NaNs returns the first NaN operand,
// quieted, payload kept; a signaling NaN raises invalid. binary32 is compared with the SSE unit in
// tests/core/test_binary32_hardware.cpp; here the rule is pinned for every format.
TEST_CASE("default NaN per format: inf - inf gives 0xFE00 / 0xFFC0 / 0xFFC00000 / 0xFFF8... / 0xFF (E4M3) / 0xFE (E5M2)") {
  struct fmt_case {
    lf::format f;
    u64 inf, default_nan;
  };
  const fmt_case cases[] = {
      {lf::binary16, 0x7C00, 0xFE00},         {lf::bfloat16, 0x7F80, 0xFFC0},
      {lf::binary32, 0x7F800000, 0xFFC00000}, {lf::binary64, 0x7FF0000000000000, 0xFFF8000000000000},
      {lf::tfloat32, 0x3FC00, 0x7FE00},       {lf::float8_e5m2, 0x7C, 0xFE},
  };
  for (const auto& c : cases) {
    lf::status st{};
    CHECK(lf::sub(c.f, c.inf, c.inf, lf::env{}, st) == c.default_nan);
    CHECK(st == lf::status::invalid);
    st = {};
    CHECK(lf::div(c.f, 0, 0, lf::env{}, st) == c.default_nan);  // 0/0
    CHECK(st == lf::status::invalid);
  }
  // E4M3 has no infinity: 0/0 gives its negative NaN 1.1111.111
  lf::status st{};
  CHECK(lf::div(lf::float8_e4m3fn, 0, 0, lf::env{}, st) == 0xFF);
  CHECK(st == lf::status::invalid);
  CHECK(lf::sqrt(lf::float8_e4m3fn, 0xB8 /* -1 */, lf::env{}, st) == 0xFF);
}

TEST_CASE("NaN propagation: first NaN operand wins, quieted, payload and sign kept; sNaN raises invalid") {
  lf::status st{};
  // binary16 quiet NaNs 0.11111.1000000001 and 1.11111.1000000010
  CHECK(lf::add(lf::binary16, 0x7E01, 0xFE02, lf::env{}, st) == 0x7E01);
  CHECK(lf::add(lf::binary16, 0xFE02, 0x7E01, lf::env{}, st) == 0xFE02);
  CHECK(lf::mul(lf::binary16, 0x3C00, 0xFE02, lf::env{}, st) == 0xFE02);
  CHECK(st == lf::status::none);
  // sub keeps a NaN subtrahend's sign (it is not negated)
  CHECK(lf::sub(lf::binary16, 0x3C00, 0x7E07, lf::env{}, st) == 0x7E07);
  // signaling 0.11111.0000000101 -> quieted 0.11111.1000000101 = 0x7E05, invalid
  CHECK(lf::add(lf::binary16, 0x3C00, 0x7C05, lf::env{}, st) == 0x7E05);
  CHECK(st == lf::status::invalid);
  // first operand quiet, second signaling: the first is returned, the sNaN still raises invalid
  st = {};
  CHECK(lf::add(lf::binary16, 0x7E01, 0x7C05, lf::env{}, st) == 0x7E01);
  CHECK(st == lf::status::invalid);
  // fma: a NaN factor beats a NaN addend
  st = {};
  CHECK(lf::fma(lf::binary16, 0x3C00, 0x7E03, 0x7E04, lf::env{}, st) == 0x7E03);
  CHECK(lf::fma(lf::binary16, 0x3C00, 0x3C00, 0x7C04, lf::env{}, st) == 0x7E04);
  CHECK(st == lf::status::invalid);
  // conversions keep the leading payload bits: binary16 0x7E15 -> binary32 0.11111111.1000000001010100..0
  st = {};
  CHECK(lf::convert(lf::binary32, lf::binary16, 0x7E15, lf::env{}, st) == 0x7FC2A000);
  CHECK(st == lf::status::none);
  // E5M2 (p = 3): signaling 0.11111.01 -> quiet 0.11111.11
  st = {};
  CHECK(lf::add(lf::float8_e5m2, 0x7D, 0x3C, lf::env{}, st) == 0x7F);
  CHECK(st == lf::status::invalid);
  // E4M3: the only NaN is S.1111.111, quiet; sign kept
  st = {};
  CHECK(lf::add(lf::float8_e4m3fn, 0xFF, 0x38, lf::env{}, st) == 0xFF);
  CHECK(lf::add(lf::float8_e4m3fn, 0x38, 0x7F, lf::env{}, st) == 0x7F);
  CHECK(st == lf::status::none);
}
