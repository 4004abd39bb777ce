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
  for (int it = 0; it < 20000; ++it) {
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
