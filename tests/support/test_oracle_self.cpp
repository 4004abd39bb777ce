// The exact-rational oracle (oracle.hpp) checked against something else that is independent of it
// and of libfloat: the x86 SSE unit's binary32 + - * / sqrt and fma, with the hardware's exception
// flags (IEEE 754-2019, tininess after rounding), in all four IEEE rounding directions. If the
// oracle were wrong, every test built on it would be checking the library against a wrong answer.
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "oracle.hpp"
#include "sanitizer.hpp"

namespace {

float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t as_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::uint8_t hardware_flags() {
  const int e = std::fetestexcept(FE_ALL_EXCEPT);
  return static_cast<std::uint8_t>(((e & FE_INEXACT) ? oracle::flag::inexact : 0) |
                                   ((e & FE_UNDERFLOW) ? oracle::flag::underflow : 0) |
                                   ((e & FE_OVERFLOW) ? oracle::flag::overflow : 0) |
                                   ((e & FE_DIVBYZERO) ? oracle::flag::divide_by_zero : 0) |
                                   ((e & FE_INVALID) ? oracle::flag::invalid : 0));
}

enum class op { add, sub, mul, div, sqrt, fma };

/// One hardware operation under the current rounding direction. The asm barriers keep the
/// compiler from moving the arithmetic across feclearexcept / fetestexcept or folding it.
oracle::result hardware(op o, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  float x = as_float(a), y = as_float(b), z = as_float(c), r = 0;
  std::feclearexcept(FE_ALL_EXCEPT);
  asm volatile("" : "+x"(x), "+x"(y), "+x"(z));
  switch (o) {
    case op::add: asm volatile("addss %1, %0" : "+x"(x) : "x"(y)); r = x; break;
    case op::sub: asm volatile("subss %1, %0" : "+x"(x) : "x"(y)); r = x; break;
    case op::mul: asm volatile("mulss %1, %0" : "+x"(x) : "x"(y)); r = x; break;
    case op::div: asm volatile("divss %1, %0" : "+x"(x) : "x"(y)); r = x; break;
    case op::sqrt: asm volatile("sqrtss %1, %0" : "=x"(r) : "x"(x)); break;
    case op::fma: r = std::fma(x, y, z); break;
  }
  asm volatile("" : "+x"(r));
  return {as_bits(r), hardware_flags()};
}

oracle::result reference(op o, std::uint32_t a, std::uint32_t b, std::uint32_t c, oracle::mode m) {
  const auto& t = oracle::binary32;
  switch (o) {
    case op::add: return oracle::add(t, a, b, m);
    case op::sub: return oracle::sub(t, a, b, m);
    case op::mul: return oracle::mul(t, a, b, m);
    case op::div: return oracle::div(t, a, b, m);
    case op::sqrt: return oracle::sqrt(t, a, m);
    case op::fma: return oracle::fma(t, a, b, c, m);
  }
  return {};
}

}  // namespace

TEST_CASE("oracle agrees with x86 SSE binary32 + - * / sqrt fma, bits and flags, in the four IEEE directions "
          "(20000 random operand sets biased to subnormal, overflow and cancellation cases)") {
  struct dir {
    int fe;
    oracle::mode m;
    const char* name;
  };
  const dir dirs[] = {{FE_TONEAREST, oracle::mode::nearest_even, "nearest_even"},
                      {FE_TOWARDZERO, oracle::mode::toward_zero, "toward_zero"},
                      {FE_UPWARD, oracle::mode::upward, "upward"},
                      {FE_DOWNWARD, oracle::mode::downward, "downward"}};
  const op ops[] = {op::add, op::sub, op::mul, op::div, op::sqrt, op::fma};
  const char* op_names[] = {"add", "sub", "mul", "div", "sqrt", "fma"};
  std::mt19937_64 rng(20240601);
  long cases = 0, bad = 0;
  for (int it = 0; it < test_sanitizer::scaled(20000, 4); ++it) {  // a quarter under AddressSanitizer
    auto a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng()), c = static_cast<std::uint32_t>(rng());
    switch (it % 4) {
      case 1:  // tiny exponents: subnormal results
        a = (a & 0x807FFFFFu) | (static_cast<std::uint32_t>(rng() % 8) << 23);
        b = (b & 0x80FFFFFFu) | 0x3F000000u;
        break;
      case 2:  // same exponent: cancellation in + and -
        b = (a & 0x7F800000u) ^ (b & 0x807FFFFFu);
        break;
      case 3:  // huge: overflow
        a |= 0x7E000000u;
        a &= 0xFF7FFFFFu;
        b = (b & 0x807FFFFFu) | 0x40000000u;
        break;
      default: break;
    }
    for (const dir& d : dirs) {
      std::fesetround(d.fe);
      for (int k = 0; k < 6; ++k) {
        const oracle::result hw = hardware(ops[k], a, b, c);
        std::fesetround(FE_TONEAREST);
        const oracle::result ref = reference(ops[k], a, b, c, d.m);
        std::fesetround(d.fe);
        ++cases;
        // fma's NaN precedence depends on which of vfmadd132/213/231 the compiler picked: with
        // several NaN operands only "some NaN, same flags" is comparable.
        const auto is_nan = [](std::uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; };
        const bool nans_ambiguous = ops[k] == op::fma && (int(is_nan(a)) + int(is_nan(b)) + int(is_nan(c))) >= 2;
        const bool same_bits = nans_ambiguous ? (is_nan(hw.bits) && is_nan(static_cast<std::uint32_t>(ref.bits)))
                                              : hw.bits == ref.bits;
        if (!same_bits || hw.flags != ref.flags) {
          if (bad++ < 6)
            FAIL_CHECK(std::string(d.name) << " " << std::string(op_names[k]) << "(" << oracle::hex(a, 32) << ", " << oracle::hex(b, 32) << ", "
                              << oracle::hex(c, 32) << "): hardware " << oracle::hex(hw.bits, 32) << " flags "
                              << int(hw.flags) << ", oracle " << oracle::hex(ref.bits, 32) << " flags "
                              << int(ref.flags));
        }
      }
    }
  }
  std::fesetround(FE_TONEAREST);
  MESSAGE(cases << " cases");
  CHECK(bad == 0);
}

TEST_CASE("oracle self-check can fail: the hardware result one ulp off is told apart") {
  const oracle::result ref = reference(op::div, 0x3F800000u /*1*/, 0x40400000u /*3*/, 0, oracle::mode::nearest_even);
  CHECK(ref.bits == 0x3EAAAAABu);
  CHECK(ref.flags == oracle::flag::inexact);
  CHECK(ref.bits != 0x3EAAAAAAu);
  CHECK(reference(op::div, 0x3F800000u, 0x40400000u, 0, oracle::mode::toward_zero).bits == 0x3EAAAAAAu);
}

// ---- the low-bit layouts and the policies, by hand ------------------------------------------------
// The oracle's rules for finite_only, fnuz and exponent-only formats and for the policies, each
// expected value derived in the comment from the format's definition (not from the oracle).

namespace {

std::uint64_t d64(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
/// A double converted by the oracle into t.
oracle::result conv(const oracle::target& t, double v, oracle::mode m = oracle::mode::nearest_even,
                    const oracle::policy& p = {}) {
  return oracle::convert(t, oracle::binary64, d64(v), m, p);
}
constexpr std::uint8_t OI = oracle::flag::overflow | oracle::flag::inexact;
constexpr std::uint8_t UI = oracle::flag::underflow | oracle::flag::inexact;
constexpr std::uint8_t INV = oracle::flag::invalid;
constexpr std::uint8_t DBZ = oracle::flag::divide_by_zero;
bool is(const oracle::result& r, std::uint64_t bits, std::uint8_t flags) { return r.bits == bits && r.flags == flags; }

}  // namespace

TEST_CASE("oracle: finite_only FP4 E2M1 (0, 0.5, 1, 1.5, 2, 3, 4, 6): overflow to max in every mode, NaN/inf stand-ins") {
  const auto& t = oracle::e2m1;  // s.ee.m, bias 1: 0x7 = 0.11.1 = 6, 0xF = -6, 0x8 = -0
  using oracle::mode;
  // In [4, 8) the quantum is 2: 7 is the tie between 6 (1.1b * 2^2, odd) and 8 (1.0b * 2^3, even).
  // The modes that round it (unbounded exponent) to 8 overflow, and give max 6 as every mode does.
  for (mode m : oracle::all_modes) {
    const bool stays = m == mode::toward_zero || m == mode::downward || m == mode::odd;  // 7 -> 6, no overflow
    CHECK(is(conv(t, 7.0, m), 0x7, stays ? oracle::flag::inexact : OI));
    CHECK(is(conv(t, 100.0, m), 0x7, OI));
    CHECK(is(conv(t, -100.0, m), 0xF, OI));
  }
  CHECK(is(conv(t, 5.0), 0x6, oracle::flag::inexact));  // tie 4 | 6: even significand 1.0 -> 4 = 0x6
  CHECK(is(conv(t, 5.0, mode::nearest_away), 0x7, oracle::flag::inexact));
  CHECK(is(conv(t, 0.25), 0x0, UI));  // tie 0 | 0.5 -> +0, tiny and inexact
  CHECK(is(conv(t, -0.25), 0x8, UI));
  // 0.75 = 1.1b * 2^-1 has two digits: rounded with an unbounded exponent it stays 0.75 < 2^emin = 1,
  // tiny; on the subnormal grid (quantum 0.5) it is the tie 0.5 | 1 -> 1 (significand 10b, even).
  CHECK(is(conv(t, 0.75), 0x2, UI));
  CHECK(is(conv(t, 0.9), 0x2, oracle::flag::inexact));  // rounds to 1.0b * 2^0 either way: not tiny
  // NaN -> max of its sign with invalid; infinity -> max with invalid, or no flag when saturating.
  CHECK(is(oracle::convert(t, oracle::binary16, 0x7E00, mode::nearest_even), 0x7, INV));
  CHECK(is(oracle::convert(t, oracle::binary16, 0xFE00, mode::nearest_even), 0xF, INV));
  CHECK(is(oracle::convert(t, oracle::binary16, 0x7C01, mode::nearest_even), 0x7, INV));  // sNaN: invalid too
  CHECK(is(conv(t, INFINITY), 0x7, INV));
  CHECK(is(conv(t, -INFINITY, mode::nearest_even, {.saturate = true}), 0xF, oracle::flag::none));
  // invalid operations give -max; x/0 gives max of the quotient's sign with divide_by_zero
  CHECK(is(oracle::div(t, 0x0, 0x8, mode::nearest_even), 0xF, INV));      // 0 / -0
  CHECK(is(oracle::sqrt(t, 0xA, mode::nearest_even), 0xF, INV));          // sqrt(-1)
  CHECK(is(oracle::rem(t, 0x2, 0x0, mode::nearest_even), 0xF, INV));      // rem(1, 0)
  CHECK(is(oracle::div(t, 0x2, 0x0, mode::nearest_even), 0x7, DBZ));      // 1 / 0
  CHECK(is(oracle::div(t, 0x2, 0x8, mode::nearest_even), 0xF, DBZ));      // 1 / -0
  CHECK(is(oracle::div(t, 0xA, 0x8, mode::upward), 0x7, DBZ));            // -1 / -0
  CHECK(is(oracle::mul(t, 0x7, 0x7, mode::toward_zero), 0x7, OI));        // 36 -> 6
  CHECK(is(oracle::sub(t, 0x2, 0x2, mode::downward), 0x8, oracle::flag::none));  // 1 - 1 = -0 rounding down
}

TEST_CASE("oracle: fnuz (E4M3FNUZ, bias 8, max 0x7F = 240, NaN 0x80): no -0, overflow to NaN or max") {
  const auto& t = oracle::e4m3fnuz;
  using oracle::mode;
  CHECK(oracle::decode(t, 0x80).nan);
  CHECK(!oracle::decode(t, 0x80).snan);
  CHECK(is(conv(t, 240.0), 0x7F, oracle::flag::none));  // 0.1111.111 = 1.875 * 2^7
  CHECK(is(conv(t, 0x1p-10), 0x01, oracle::flag::none));
  CHECK(is(conv(t, 0x1p-7), 0x08, oracle::flag::none));
  // 256 is beyond max + ulp/2 = 248: nearest -> NaN; 248 is the tie 240 | 256 (odd 240) -> 256: overflow
  CHECK(is(conv(t, 256.0), 0x80, OI));
  CHECK(is(conv(t, 248.0), 0x80, OI));
  CHECK(is(conv(t, 247.0), 0x7F, oracle::flag::inexact));
  CHECK(is(conv(t, 256.0, mode::toward_zero), 0x7F, OI));
  CHECK(is(conv(t, 256.0, mode::odd), 0x7F, OI));
  CHECK(is(conv(t, 256.0, mode::upward), 0x80, OI));
  CHECK(is(conv(t, -256.0, mode::upward), 0xFF, OI));    // -max
  CHECK(is(conv(t, -256.0, mode::downward), 0x80, OI));
  CHECK(is(conv(t, 256.0, mode::downward), 0x7F, OI));
  CHECK(is(conv(t, 256.0, mode::nearest_even, {.saturate = true}), 0x7F, OI));
  // zeros: every zero result is +0
  CHECK(is(conv(t, -0.0), 0x00, oracle::flag::none));
  CHECK(is(conv(t, -0x1p-12), 0x00, UI));  // below half the min subnormal 2^-10
  // 1 = 0.1000.000 = 0x40, -1 = 0xC0, -2 = 0xC8
  CHECK(is(oracle::sub(t, 0x40, 0x40, mode::downward), 0x00, oracle::flag::none));  // 1 - 1
  CHECK(is(oracle::mul(t, 0xC0, 0x00, mode::nearest_even), 0x00, oracle::flag::none));  // -1 * 0
  CHECK(is(oracle::sub(t, 0x00, 0x00, mode::downward), 0x00, oracle::flag::none));  // 0 - 0
  CHECK(is(oracle::rem(t, 0xC8, 0x40, mode::nearest_even), 0x00, oracle::flag::none));  // rem(-2, 1) = -0 -> +0
  // NaNs: any NaN result is 0x80; x/0 is the NaN with divide_by_zero; 0/0 invalid
  CHECK(is(oracle::add(t, 0x80, 0x40, mode::nearest_even), 0x80, oracle::flag::none));
  CHECK(is(oracle::div(t, 0xC0, 0x00, mode::nearest_even), 0x80, DBZ));
  CHECK(is(oracle::div(t, 0x00, 0x00, mode::nearest_even), 0x80, INV));
  CHECK(is(oracle::sqrt(t, 0xC0, mode::nearest_even), 0x80, INV));
  // conversions: quiet NaN -> 0x80 silently, signaling with invalid; infinity -> NaN with invalid
  CHECK(is(oracle::convert(t, oracle::binary16, 0x7E00, mode::nearest_even), 0x80, oracle::flag::none));
  CHECK(is(oracle::convert(t, oracle::binary16, 0xFC01, mode::nearest_even), 0x80, INV));
  CHECK(is(conv(t, INFINITY), 0x80, INV));
  CHECK(is(conv(t, -INFINITY, mode::nearest_even, {.saturate = true}), 0xFF, oracle::flag::none));
  // DAZ: -min subnormal * 1 reads as -0 * 1 = -0 -> +0
  CHECK(is(oracle::mul(t, 0x81, 0x40, mode::nearest_even, {.denormals_are_zero = true}), 0x00, oracle::flag::none));
  CHECK(is(oracle::mul(t, 0x81, 0x40, mode::nearest_even), 0x81, oracle::flag::none));
  // -2^-10 * 0.5 = -2^-11, the tie 0 | -2^-10: even 0, which is +0
  CHECK(is(oracle::mul(t, 0x81, 0x38, mode::nearest_even), 0x00, UI));
  // E5M2FNUZ max 0.11111.11 = 57344; B11 max 0.1111.111 = 1.875 * 2^4 = 30
  CHECK(is(conv(oracle::e5m2fnuz, 57344.0), 0x7F, oracle::flag::none));
  CHECK(is(conv(oracle::e4m3b11fnuz, 30.0), 0x7F, oracle::flag::none));
  CHECK(is(conv(oracle::e4m3b11fnuz, 0x1p-13), 0x01, oracle::flag::none));
}

TEST_CASE("oracle: exponent-only E8M0 (2^(e-127), 0xFF NaN): one-bit rounding, range ends, invalid values") {
  const auto& t = oracle::e8m0;
  using oracle::mode;
  CHECK(is(conv(t, 1.0), 0x7F, oracle::flag::none));
  CHECK(is(conv(t, 0x1p-127), 0x00, oracle::flag::none));
  CHECK(is(conv(t, 0x1p127), 0xFE, oracle::flag::none));
  // 3 = 1.5 * 2^1 is the tie between 2 (0x80) and 4 (0x81): both nearest modes go up
  CHECK(is(conv(t, 3.0), 0x81, oracle::flag::inexact));
  CHECK(is(conv(t, 3.0, mode::nearest_away), 0x81, oracle::flag::inexact));
  CHECK(is(conv(t, 2.99), 0x80, oracle::flag::inexact));
  CHECK(is(conv(t, 3.99, mode::toward_zero), 0x80, oracle::flag::inexact));
  CHECK(is(conv(t, 3.99, mode::downward), 0x80, oracle::flag::inexact));
  CHECK(is(conv(t, 3.99, mode::odd), 0x80, oracle::flag::inexact));
  CHECK(is(conv(t, 2.01, mode::upward), 0x81, oracle::flag::inexact));
  CHECK(is(conv(t, 2.0, mode::upward), 0x80, oracle::flag::none));
  // top: 1.4 * 2^127 -> 2^127; 1.5 * 2^127 rounds to 2^128: overflow, NaN or 2^127 by mode
  CHECK(is(conv(t, 0x1.6p127), 0xFE, oracle::flag::inexact));
  CHECK(is(conv(t, 0x1.8p127), 0xFF, OI));
  CHECK(is(conv(t, 0x1.8p127, mode::toward_zero), 0xFE, oracle::flag::inexact));
  CHECK(is(conv(t, 0x1.01p127, mode::upward), 0xFF, OI));
  CHECK(is(conv(t, 0x1p128, mode::downward), 0xFE, OI));
  CHECK(is(conv(t, 0x1p128, mode::odd), 0xFE, OI));
  CHECK(is(conv(t, 0x1p128, mode::upward, {.saturate = true}), 0xFE, OI));
  // bottom: anything rounding below 2^-127 gives 0x00 with underflow|inexact, every mode
  for (mode m : oracle::all_modes) {
    CHECK(is(conv(t, 0x1p-128, m), 0x00, UI));
    CHECK(is(conv(t, 0x1p-140, m), 0x00, UI));
  }
  CHECK(is(conv(t, 0x1.8p-128), 0x00, oracle::flag::inexact));  // rounds up to 2^-127: not tiny after rounding
  CHECK(is(conv(t, 0x1.8p-128, mode::nearest_even, {.tininess_before = true}), 0x00, UI));
  CHECK(is(conv(t, 0x1.2p-128, mode::upward), 0x00, oracle::flag::inexact));
  CHECK(is(conv(t, 0x1.2p-128, mode::toward_zero), 0x00, UI));
  // the subnormal policies change nothing for E8M0 itself
  CHECK(is(conv(t, 0x1p-128, mode::nearest_even, {.flush_to_zero = true}), 0x00, UI));
  CHECK(is(oracle::mul(t, 0x00, 0x7F, mode::nearest_even, {.flush_to_zero = true, .denormals_are_zero = true}), 0x00,
           oracle::flag::none));
  // no zero, no sign, no infinity: invalid
  CHECK(is(conv(t, 0.0), 0xFF, INV));
  CHECK(is(conv(t, -0.0), 0xFF, INV));
  CHECK(is(conv(t, -2.0), 0xFF, INV));
  CHECK(is(conv(t, INFINITY), 0xFF, INV));
  CHECK(is(conv(t, INFINITY, mode::nearest_even, {.saturate = true}), 0xFE, oracle::flag::none));
  CHECK(is(conv(t, -INFINITY, mode::nearest_even, {.saturate = true}), 0xFF, INV));
  CHECK(is(oracle::convert(t, oracle::binary16, 0x7E00, mode::nearest_even), 0xFF, oracle::flag::none));
  // arithmetic: 2 - 2 = 0 and 2 - 4 < 0 are invalid; 4 - 2 = 2; 2^127 + 2^127 overflows; 2^100 * 2^-100 = 1
  CHECK(is(oracle::sub(t, 0x80, 0x80, mode::nearest_even), 0xFF, INV));
  CHECK(is(oracle::sub(t, 0x80, 0x81, mode::nearest_even), 0xFF, INV));
  CHECK(is(oracle::sub(t, 0x81, 0x80, mode::nearest_even), 0x80, oracle::flag::none));
  CHECK(is(oracle::add(t, 0xFE, 0xFE, mode::nearest_even), 0xFF, OI));
  CHECK(is(oracle::mul(t, 127 + 100, 127 - 100, mode::nearest_even), 0x7F, oracle::flag::none));
  CHECK(is(oracle::add(t, 0x80, 0x7F, mode::nearest_even), 0x81, oracle::flag::inexact));  // 2 + 1 = 3: the tie
  CHECK(is(oracle::sqrt(t, 0x80, mode::nearest_even), 0x7F, oracle::flag::inexact));  // sqrt 2 = 1.414 < 1.5 -> 1
  CHECK(is(oracle::add(t, 0xFF, 0x7F, mode::nearest_even), 0xFF, oracle::flag::none));
}

TEST_CASE("oracle: the policies, on cases where each changes the answer") {
  using oracle::mode;
  const auto& h = oracle::binary16;
  // a = (2 - 2^-9) 2^-8, b = (1 + 2^-10) 2^-7: a*b = 2^-14 (1 - 2^-20) rounds to 2^-14 = 0x0400:
  // tiny before rounding only.
  CHECK(is(oracle::mul(h, 0x1FFE, 0x2001, mode::nearest_even), 0x0400, oracle::flag::inexact));
  CHECK(is(oracle::mul(h, 0x1FFE, 0x2001, mode::nearest_even, {.tininess_before = true}), 0x0400, UI));
  CHECK(is(oracle::mul(h, 0x1FFE, 0x2001, mode::nearest_even, {.flush_to_zero = true}), 0x0400, oracle::flag::inexact));
  CHECK(is(oracle::mul(h, 0x1FFE, 0x2001, mode::nearest_even, {.tininess_before = true, .flush_to_zero = true}), 0x0000, UI));
  // FTZ flushes an exact subnormal result too; DAZ reads a subnormal operand as zero
  CHECK(is(oracle::mul(h, 0x0001, 0x3C00, mode::nearest_even), 0x0001, oracle::flag::none));
  CHECK(is(oracle::mul(h, 0x8001, 0x3C00, mode::nearest_even, {.flush_to_zero = true}), 0x8000, UI));
  CHECK(is(oracle::mul(h, 0x8001, 0x3C00, mode::nearest_even, {.denormals_are_zero = true}), 0x8000, oracle::flag::none));
  CHECK(is(oracle::div(h, 0x3C00, 0x0001, mode::nearest_even, {.denormals_are_zero = true}), 0x7C00, DBZ));
  // saturation: 65520 (= max + ulp/2, the tie, odd max) overflows to max, not infinity; infinity converts to max
  CHECK(is(conv(h, 65520.0), 0x7C00, OI));
  CHECK(is(conv(h, 65520.0, mode::nearest_even, {.saturate = true}), 0x7BFF, OI));
  CHECK(is(conv(h, -INFINITY, mode::nearest_even, {.saturate = true}), 0xFBFF, oracle::flag::none));
  CHECK(is(conv(oracle::e4m3, 500.0, mode::nearest_even, {.saturate = true}), 0x7E, OI));
  // round_to_integral: E2M3 max 7.5 is not an integer; 7.5 -> 8 overflows, and where the overflow
  // value is finite (always, finite_only) the result is the largest integer 7 = 1.11b * 2^2 = 0.11.110 = 0x1E
  CHECK(is(oracle::round_to_integral(oracle::e2m3, 0x1F, mode::nearest_even, true), 0x1E, OI));
  CHECK(is(oracle::round_to_integral(oracle::e2m3, 0x1F, mode::toward_zero, true), 0x1E, oracle::flag::inexact));
  // E3M4 (IEEE) max 15.5: nearest -> 16 -> infinity 0x70; saturated -> 15 = 0.110.1110 = 0x6E
  CHECK(is(oracle::round_to_integral(oracle::e3m4, 0x6F, mode::nearest_even, false), 0x70, OI));
  CHECK(is(oracle::round_to_integral(oracle::e3m4, 0x6F, mode::nearest_even, false, {.saturate = true}), 0x6E, OI));
}
