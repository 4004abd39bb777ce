// Every bfloat16 operand pair (2^32) through + - * / under roundTiesToEven: lf::add/sub/mul/div
// (the generic core, result and flags) and lf::bf16's operators (the binary32 fast path in fp.hpp)
// against hardware binary64 arithmetic followed by a round-to-nearest-even narrowing written here.
//
// Why binary64 and not binary32 as the intermediate: bfloat16 has binary32's exponent range, so an
// exact bfloat16 quotient below 2^-126 would first be rounded on binary32's *subnormal* grid
// (2^-149: as few as 16 bits there), where the p' >= 2p + 2 argument no longer applies as stated.
// binary64 has p = 53 >= 18 and holds every exact +, -, *, / of two bfloat16 values as a normal
// number (2^-266 <= |x| < 2^262), so rounding to binary64 and then to bfloat16 is the correct
// rounding (Figueroa, "When is double rounding innocuous?", SIGNUM 1995). (The library's typed
// operators do go through binary32; this test is what shows that path agrees on every pair.)
// AVX512_BF16's VCVTNEPS2BF16 is not usable: it flushes subnormals (numerics-facts.md §2).
// The flags are derived from their definitions (pairs_common.hpp).
#include "pairs_common.hpp"

#include <cstring>

namespace {

using pairs::op;

// bfloat16: p = 8, emin = -126, max = 0x7F7F = 255 * 2^120.
const pairs::format16 bfloat16_spec{
    "bfloat16",
    7,
    0x0040,
    0x1p-126,
    0x1p-126 * (1 - 0x1p-9),  // 2^emin (1 - 2^-(p+1))
    0x1.FFp127,               // max + ulp/2 = 511 * 2^119
    0x1.FEp127,               // max finite: 0b0'11111110'1111111
    0xFFC0,                   // x86 default NaN: sign set, quiet bit set
};

std::uint64_t bits_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
double double_of(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// bfloat16 -> double: a bfloat16 is the top half of a binary32 (definition of the format), and
/// binary32 -> binary64 is exact in hardware (a signaling NaN comes back quiet).
double widen(std::uint16_t h) { return static_cast<double>(float_of(static_cast<std::uint32_t>(h) << 16)); }

/// binary64 -> bfloat16, round to nearest even, with bfloat16 subnormals; the test's own code.
/// 1. q = the exponent of the result's last place: max(e, emin) - (p - 1), e = exponent of |d|.
/// 2. m = |d| / 2^q (exact: a power-of-two scaling in range), rounded to an integer by the
///    hardware's round-to-nearest-even addition of 2^52 (m < 2^9 << 2^52).
/// 3. r * 2^q above max finite overflows to infinity; r = 2^8 carries into the next binade.
std::uint16_t narrow_rne(double d) {
  const std::uint64_t u = bits_of(d);
  const auto sign = static_cast<std::uint16_t>((u >> 48) & 0x8000);
  if (std::isnan(d)) {
    // NaN: binary64 -> binary32 in hardware keeps the leading payload bits (quiet), and the
    // bfloat16 payload is binary32's leading 7 fraction bits.
    return static_cast<std::uint16_t>(bits_of(static_cast<float>(d)) >> 16);
  }
  if (std::isinf(d)) return static_cast<std::uint16_t>(sign | 0x7F80);
  if (d == 0) return sign;
  const int e = static_cast<int>((u >> 52) & 0x7FF) - 1023;  // |d| >= 2^-266: normal in binary64
  const int q = std::max(e, -126) - 7;
  auto pow2 = [](int k) { return double_of(static_cast<std::uint64_t>(1023 + k) << 52); };  // |k| < 1023
  const double m = std::fabs(d) * pow2(-q);  // exact: a power-of-two scaling of a normal number
  double r = m + 0x1p52;                     // the hardware's round-to-nearest-even does the rounding
  asm("" : "+x"(r));                         // (IEEE semantics already forbid folding; this is belt and braces)
  r -= 0x1p52;
  if (r * pow2(q) > bfloat16_spec.max_finite) return static_cast<std::uint16_t>(sign | 0x7F80);  // exact product
  auto R = static_cast<std::uint32_t>(r);
  int qq = q;
  if (R == 256) {
    R = 128;
    ++qq;
  }
  if (R < 128) return static_cast<std::uint16_t>(sign | R);  // subnormal: q == -133
  const auto biased = static_cast<std::uint32_t>(qq + 7 + 127);
  return static_cast<std::uint16_t>(sign | (biased << 7) | (R - 128));
}

struct bfloat16_oracle {
  std::vector<double> wide;
  bfloat16_oracle() : wide(65536) {
    for (std::uint32_t h = 0; h < 65536; ++h) wide[h] = widen(static_cast<std::uint16_t>(h));
  }
  pairs::expected operator()(op o, std::uint16_t a, std::uint16_t b) const {
    const std::uint16_t r = narrow_rne(pairs::hw(o, wide[a], wide[b]));
    return pairs::derive(bfloat16_spec, o, a, b, wide[a], wide[b], r, wide[r]);
  }
};

pairs::library_answer library(op o, std::uint16_t a, std::uint16_t b) {
  lf::status st{};
  std::uint64_t r = 0;
  const lf::bf16 x = lf::bf16::from_bits(a), y = lf::bf16::from_bits(b);
  lf::bf16 t;
  switch (o) {
    case op::add:
      r = lf::add(lf::bfloat16, a, b, lf::env{}, st);
      t = x + y;
      break;
    case op::sub:
      r = lf::sub(lf::bfloat16, a, b, lf::env{}, st);
      t = x - y;
      break;
    case op::mul:
      r = lf::mul(lf::bfloat16, a, b, lf::env{}, st);
      t = x * y;
      break;
    case op::div:
      r = lf::div(lf::bfloat16, a, b, lf::env{}, st);
      t = x / y;
      break;
  }
  return {static_cast<std::uint16_t>(r), lf::to_bits(st), t.bits()};
}

}  // namespace

TEST_CASE("bfloat16 oracle (binary64 + own RNE narrowing, flags from definitions) pins known cases and rejects "
          "wrong answers") {
  const bfloat16_oracle oracle;
  using namespace oracle::flag;
  struct known {
    op o;
    std::uint16_t a, b, bits;
    std::uint8_t flags;
    const char* why;
  };
  const known cases[] = {
      {op::add, 0x3F80, 0x3F80, 0x4000, none, "1 + 1 = 2, exact"},
      {op::add, 0x3F80, 0x3B80, 0x3F80, inexact, "1 + 2^-8 = 1: tie to even"},
      {op::add, 0x3F81, 0x3B80, 0x3F82, inexact, "(1 + 2^-7) + 2^-8: tie to even, up"},
      {op::add, 0x7F7F, 0x7B00, 0x7F80, overflow | inexact, "max + 2^119 = 511 * 2^119 = max + ulp/2: inf"},
      {op::mul, 0x0001, 0x3F00, 0x0000, underflow | inexact, "2^-133 * 0.5 = 2^-134: tie to even 0"},
      {op::mul, 0x0003, 0x3F00, 0x0002, underflow | inexact, "3 * 2^-134: tie to even 2 * 2^-133"},
      {op::mul, 0x3F7F, 0x0080, 0x0080, underflow | inexact,
       "(1-2^-8) * 2^-126 = 2^-127 * 1.1111111b: exact in 8 bits, so tiny after rounding"},
      {op::mul, 0x3F7E, 0x0081, 0x0080, inexact,
       "(1-2^-7) * 2^-126(1+2^-7) = 2^-126(1-2^-14): rounds to 2^-126 at 8 bits, not tiny"},
      {op::div, 0x0001, 0x4000, 0x0000, underflow | inexact, "2^-133 / 2 = 2^-134: tie to even 0"},
      {op::div, 0x0001, 0x3FFF, 0x0001, underflow | inexact,
       "2^-133 / 1.9921875 is just above 2^-134: rounds up to the min subnormal"},
      {op::div, 0x3F80, 0x0000, 0x7F80, divide_by_zero, "1 / +0 = +inf"},
      {op::div, 0x8000, 0x0000, 0xFFC0, invalid, "-0 / 0: default NaN"},
      {op::add, 0xFF80, 0x7F80, 0xFFC0, invalid, "-inf + inf: default NaN"},
      {op::sub, 0x3F80, 0x3F80, 0x0000, none, "1 - 1 = +0"},
      {op::add, 0x7F81, 0x3F80, 0x7FC1, invalid, "sNaN + 1: quieted sNaN, invalid"},
      {op::add, 0xFFC5, 0x7F81, 0xFFC5, invalid, "qNaN + sNaN: the first NaN wins, invalid"},
      {op::div, 0x3F80, 0x4040, 0x3EAB, inexact, "1/3 = 0x3EAB"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.why);
    const pairs::expected e = oracle(c.o, c.a, c.b);
    CHECK(e.inconsistency == nullptr);
    CHECK(e.bits == c.bits);
    CHECK(e.flags == c.flags);
    const pairs::library_answer right{e.bits, e.flags, e.bits};
    CHECK(pairs::agrees(e, right));
    CHECK_FALSE(pairs::agrees(e, {static_cast<std::uint16_t>(e.bits ^ 1), e.flags, e.bits}));
    CHECK_FALSE(pairs::agrees(e, {e.bits, static_cast<std::uint8_t>(e.flags ^ inexact), e.bits}));
    CHECK_FALSE(pairs::agrees(e, {e.bits, e.flags, static_cast<std::uint16_t>(e.bits ^ 0x8000)}));
  }
}

TEST_CASE("bfloat16 + - * /: all 2^32 operand pairs, lf core (bits and flags) and lf::bf16 operators "
          "match binary64 + RNE narrowing, nearest_even") {
  const bfloat16_oracle oracle;
  const pairs::shard_range shard = pairs::shard_from_env();
  const pairs::run_stats st = pairs::run_all_pairs(bfloat16_spec, shard, [&](op o, std::uint16_t a, std::uint16_t b,
                                                                          pairs::expected& want,
                                                                          pairs::library_answer& got) {
    want = oracle(o, a, b);
    got = library(o, a, b);
  });
  // Known library issue (CORE_BUGS.md, "fp16 / bf16 operators: the result with two NaN operands
  // depends on the compiler"): with two NaN operands the typed operators may return the second
  // NaN. It is reported as its own kind of disagreement and fails this test until fixed.
  pairs::report(bfloat16_spec, shard, st);
}
