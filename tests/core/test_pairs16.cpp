// Every operand pair (2^32) of binary16 and of bfloat16 through + - * / under roundTiesToEven:
// lf::add/sub/mul/div (the generic core, result and flags) and the typed operators of lf::fp16 and
// lf::bf16 (the binary32 fast path in fp.hpp), against hardware arithmetic followed by a narrowing
// that is not libfloat's. One doctest template over the two formats (binary16_pairs,
// bfloat16_pairs); ctest runs each format's test case as its own tests (--test-case filter), split
// into shards of the first operand, each checking the day's quarter of its pairs unless
// LIBFLOAT_PROOF_PART=all (pairs_common.hpp).
//
// binary16: x86 hardware binary32 arithmetic, then F16C VCVTPS2PH with round-to-nearest-even.
//
// Why the hardware oracle is correctly rounded: binary32 has p = 24 >= 2 * 11 + 2, so rounding the
// exact result first to binary32 and then to binary16 equals rounding it once (Figueroa, "When is
// double rounding innocuous?", SIGNUM 1995), and every exact +, -, *, / of binary16 values lies in
// binary32's normal range (|x| between 2^-48 and 2^40), so binary32 never rounds on a coarser
// subnormal grid. F16C's VCVTPS2PH with imm8 = 0 rounds to nearest even, correctly, including
// binary16 subnormals (Intel SDM vol. 2, VCVTPS2PH). Its flags follow another convention (tininess
// before rounding), so the flags are derived separately from their definitions
// (pairs_common.hpp), never read from the hardware.
//
// bfloat16: hardware binary64 arithmetic, then a round-to-nearest-even narrowing written here.
//
// Why binary64 and not binary32 as the intermediate: bfloat16 has binary32's exponent range, so an
// exact bfloat16 quotient below 2^-126 would first be rounded on binary32's *subnormal* grid
// (2^-149: as few as 16 bits there), where the p' >= 2p + 2 argument no longer applies as stated.
// binary64 has p = 53 >= 18 and holds every exact +, -, *, / of two bfloat16 values as a normal
// number (2^-266 <= |x| < 2^262), so rounding to binary64 and then to bfloat16 is the correct
// rounding (Figueroa, "When is double rounding innocuous?", SIGNUM 1995). (The library's typed
// operators do go through binary32; this test is what shows that path agrees on every pair.)
// AVX512_BF16's VCVTNEPS2BF16 is not usable: it flushes subnormals (Intel SDM vol. 2, VCVTNEPS2BF16).
// The flags are derived from their definitions (pairs_common.hpp).
#include "pairs_common.hpp"
#include "../support/cpu_features.hpp"

#include <cstring>
#include <immintrin.h>
#include <span>

namespace {

using pairs::op;

// F16C is used only inside functions compiled for it (target attribute), not by compiling the file
// with -mf16c: (1) the executable then starts, and skips, on a CPU without F16C instead of dying on
// an illegal instruction; (2) with -mf16c (__F16C__) lf::fp16's operators would themselves narrow
// with VCVTPS2PH (fast/scalar.hpp), the very instruction this oracle uses, and the typed-operator
// check would no longer compare against something independent.
__attribute__((target("f16c"))) float f16c_widen(std::uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("f16c"))) std::uint16_t f16c_narrow_rne(float f) {
  return static_cast<std::uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

bool have_f16c() { return test_cpu::has_f16c(); }

// binary16: p = 11, emin = -14, max = 65504 = 2047 * 2^5.
const pairs::format16 binary16_spec{
    "binary16",
    10,
    0x0200,
    0x1p-14,
    0x1p-14 * (1 - 0x1p-12),  // 2^emin (1 - 2^-(p+1))
    65520.0,                  // 65504 + 32/2
    65504.0,                  // max finite: 0b0'11110'1111111111
    0xFE00,                   // x86 default NaN: sign set, quiet bit set
};

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
/// Normal results (|d| >= 2^-126) are rounded on the integer encoding (below); the subnormal range:
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
  if (e >= -126) {
    // A normal bfloat16 result (or an overflow): round |d|'s 52 fraction bits to 7 in the integer
    // domain, ties to even: add half a unit of the kept last place less one, plus the kept last bit,
    // then drop the 45 bits. A carry out of the fraction increments the exponent field, which is
    // the rounding up to the next binade. Then rebias 1023 -> 127; a field of 255 or more overflows.
    const std::uint64_t mag = u & 0x7FFF'FFFF'FFFF'FFFFull;
    const std::uint64_t r = (mag + ((std::uint64_t{1} << 44) - 1) + ((mag >> 45) & 1)) >> 45;
    const int biased = static_cast<int>(r >> 7) - 1023 + 127;
    if (biased >= 255) return static_cast<std::uint16_t>(sign | 0x7F80);
    return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(biased) << 7) | (r & 0x7F));
  }
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

/// The known cases each format's oracle must reproduce (and the comparison must reject variants of).
struct known {
  op o;
  std::uint16_t a, b, bits;
  std::uint8_t flags;
  const char* why;
};

/// lf::add/sub/mul/div on format `fmt` and T's operator, for one operation.
template <op O, typename T>
pairs::library_answer library(const lf::format& fmt, std::uint16_t a, std::uint16_t b) {
  lf::status st{};
  std::uint64_t r = 0;
  const T x = T::from_bits(a), y = T::from_bits(b);
  T t;
  if constexpr (O == op::add) {
    r = lf::add(fmt, a, b, lf::env{}, st);
    t = x + y;
  } else if constexpr (O == op::sub) {
    r = lf::sub(fmt, a, b, lf::env{}, st);
    t = x - y;
  } else if constexpr (O == op::mul) {
    r = lf::mul(fmt, a, b, lf::env{}, st);
    t = x * y;
  } else {
    r = lf::div(fmt, a, b, lf::env{}, st);
    t = x / y;
  }
  return {static_cast<std::uint16_t>(r), lf::to_bits(st), t.bits()};
}

// ---- binary16: binary32 + F16C ----------------------------------------------------------------

struct binary16_pairs {
  static constexpr const char* oracle_name = "binary32 + F16C";
  static const pairs::format16& spec() { return binary16_spec; }
  static bool available() { return have_f16c(); }
  static std::span<const known> cases() {
    using namespace oracle::flag;
    static const known k[] = {
      {op::add, 0x3C00, 0x3C00, 0x4000, none, "1 + 1 = 2, exact"},
      {op::add, 0x3C00, 0x0001, 0x3C00, inexact, "1 + 2^-24 = 1, inexact"},
      {op::add, 0x7BFF, 0x4C00, 0x7C00, overflow | inexact, "65504 + 16 = 65520 = max + ulp/2: tie rounds to inf"},
      {op::add, 0x7BFF, 0x4BFF, 0x7BFF, inexact, "65504 + 15.99 < 65520 stays 65504"},
      {op::mul, 0x0001, 0x3800, 0x0000, underflow | inexact, "2^-24 * 0.5 = 2^-25: tie to even 0"},
      {op::mul, 0x3BFF, 0x0400, 0x0400, underflow | inexact,
       "(1-2^-11) * 2^-14 = 2^-15 * 1.1111111111b: exact in 11 bits, so tiny after rounding"},
      {op::mul, 0x3BFE, 0x0401, 0x0400, inexact,
       "(1-2^-10) * 2^-14(1+2^-10) = 2^-14(1-2^-20): rounds to 2^-14 at 11 bits, not tiny"},
      {op::div, 0x3C00, 0x0000, 0x7C00, divide_by_zero, "1 / +0 = +inf"},
      {op::div, 0x0000, 0x0000, 0xFE00, invalid, "0 / 0: default NaN"},
      {op::sub, 0x7C00, 0x7C00, 0xFE00, invalid, "inf - inf: default NaN"},
      {op::sub, 0x3C00, 0x3C00, 0x0000, none, "1 - 1 = +0"},
      {op::add, 0x7C01, 0x3C00, 0x7E01, invalid, "sNaN + 1: quieted sNaN, invalid"},
      {op::add, 0x7E05, 0x7C01, 0x7E05, invalid, "qNaN + sNaN: the first NaN wins, invalid"},
      {op::mul, 0x3C00, 0xFE07, 0xFE07, none, "1 * qNaN: the NaN, no flag"},
      {op::div, 0x3C00, 0x4200, 0x3555, inexact, "1/3 = 0x3555"},
    };
    return k;
  }
  std::vector<float> widen;  // every encoding as binary32, by F16C
  binary16_pairs() : widen(65536) {
    for (std::uint32_t h = 0; h < 65536; ++h) widen[h] = f16c_widen(static_cast<std::uint16_t>(h));
  }
  template <op O>
  pairs::expected oracle(std::uint16_t a, std::uint16_t b) const {
    const float r32 = pairs::hw<O>(widen[a], widen[b]);
    const std::uint16_t r = f16c_narrow_rne(r32);
    return pairs::derive<O>(binary16_spec, a, b, widen[a], widen[b], r, widen[r]);
  }
  template <op O>
  void run(std::uint16_t a, std::uint16_t b, pairs::expected& want, pairs::library_answer& got) const {
    want = oracle<O>(a, b);
    got = library<O, lf::fp16>(lf::binary16, a, b);
  }
};

// ---- bfloat16: binary64 + the narrowing above --------------------------------------------------

struct bfloat16_pairs {
  static constexpr const char* oracle_name = "binary64 + own RNE narrowing";
  static const pairs::format16& spec() { return bfloat16_spec; }
  static bool available() { return true; }
  static std::span<const known> cases() {
    using namespace oracle::flag;
    static const known k[] = {
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
    return k;
  }
  std::vector<double> wide;
  bfloat16_pairs() : wide(65536) {
    for (std::uint32_t h = 0; h < 65536; ++h) wide[h] = widen(static_cast<std::uint16_t>(h));
  }
  template <op O>
  pairs::expected oracle(std::uint16_t a, std::uint16_t b) const {
    const std::uint16_t r = narrow_rne(pairs::hw<O>(wide[a], wide[b]));
    return pairs::derive<O>(bfloat16_spec, a, b, wide[a], wide[b], r, wide[r]);
  }
  template <op O>
  void run(std::uint16_t a, std::uint16_t b, pairs::expected& want, pairs::library_answer& got) const {
    want = oracle<O>(a, b);
    got = library<O, lf::bf16>(lf::bfloat16, a, b);
  }
};

}  // namespace

// The test case names end in <binary16_pairs> / <bfloat16_pairs>: ctest selects a format with
// --test-case=*<binary16_pairs>*.
TYPE_TO_STRING(binary16_pairs);
TYPE_TO_STRING(bfloat16_pairs);

TEST_CASE_TEMPLATE("pairs oracle (flags from definitions) pins known cases and rejects wrong answers", T,
                   binary16_pairs, bfloat16_pairs) {
  if (!T::available()) {
    MESSAGE("SKIPPED: this CPU has no F16C");
    return;
  }
  const T oracle;
  MESSAGE(std::string(T::spec().name) << " oracle: " << std::string(T::oracle_name));
  using oracle::flag::inexact;
  for (const auto& c : T::cases()) {
    CAPTURE(c.why);
    const pairs::expected e = pairs::with_op(c.o, [&]<op O>() { return oracle.template oracle<O>(c.a, c.b); });
    CHECK(e.inconsistency == nullptr);
    CHECK(e.bits == c.bits);
    CHECK(e.flags == c.flags);
    // The comparison rejects a wrong value, a wrong flag, and a wrong typed-operator result.
    const pairs::library_answer right{e.bits, e.flags, e.bits};
    CHECK(pairs::agrees(e, right));
    CHECK_FALSE(pairs::agrees(e, {static_cast<std::uint16_t>(e.bits ^ 1), e.flags, e.bits}));
    CHECK_FALSE(pairs::agrees(e, {e.bits, static_cast<std::uint8_t>(e.flags ^ inexact), e.bits}));
    CHECK_FALSE(pairs::agrees(e, {e.bits, e.flags, static_cast<std::uint16_t>(e.bits ^ 0x8000)}));
  }
}

TEST_CASE_TEMPLATE("+ - * /: the 2^32 operand pairs (the day's quarter; all with LIBFLOAT_PROOF_PART=all), lf core (bits and flags) and the typed operators match the "
                   "hardware oracle, nearest_even", T, binary16_pairs, bfloat16_pairs) {
  if (!T::available()) {
    MESSAGE("SKIPPED: this CPU has no F16C");
    return;
  }
  const T check;
  const pairs::pair_selection sel = pairs::select_pairs();
  REQUIRE_FALSE(sel.firsts.empty());
  const pairs::run_stats st = pairs::run_all_pairs(T::spec(), sel, check);
  // Known library issue ("fp16 / bf16 operators: the result with two NaN operands
  // depends on the compiler"): with two NaN operands the typed operators may return the second
  // NaN. It is reported as its own kind of disagreement and fails this test until fixed.
  pairs::report(T::spec(), sel, st);
}
