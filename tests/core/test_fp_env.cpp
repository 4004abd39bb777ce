// Typed values whatever the thread's floating-point environment. lf::fp16 and lf::bf16 promise
// their format's nearest-even arithmetic, and every conversion its exact or correctly rounded
// result, also when the caller has changed the x86 MXCSR register: flush-to-zero (FTZ, bit 15),
// denormals-are-zero (DAZ, bit 6), the rounding control (bits 13-14) or the exception masks (bits
// 7-12; an unmasked exception traps with SIGFPE). Binary32 hardware arithmetic follows MXCSR, so
// the fast paths that use it must notice (fast.hpp). Checked here:
//  - lf::fp16 / lf::bf16 + - * / under each setting against the library's exact integer core
//    (lf::add etc., nearest even) computed in the default environment, which in turn is checked
//    against the exact-rational oracle (tests/support/oracle.hpp, no library code) on a sample;
//    plus hand-derived cases (a bfloat16 subnormal operand under DAZ, x - x under downward
//    rounding);
//  - conversions to and from float and double against the oracle's convertFormat;
//  - the span kernels (lf::convert, lf::widen) on every dispatch path against the oracle, results
//    and flags;
//  - the free functions (integer code) give the same bits and flags in every environment;
//  - lf::fp32 keeps its documented behaviour: the hardware's arithmetic, in the thread's environment.
// Every environment-dependent call sits in a noinline function between _mm_setcsr and an empty
// volatile asm on its operands and results, and the file is compiled with -frounding-math, so the
// compiler can neither fold the operations nor move them across the MXCSR writes. MXCSR is
// restored after each setting.
#include <libfloat/core/array.hpp>
#include <libfloat/core/fp.hpp>

#include <doctest/doctest.h>

#include "../support/oracle.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TEST_FP_ENV_X86 1
#endif

namespace {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class op { add, sub, mul, div };
constexpr op all_ops[] = {op::add, op::sub, op::mul, op::div};
const char* op_name(op o) {
  switch (o) {
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
  }
  return "?";
}

std::string hex(u64 v) {
  static const char digits[] = "0123456789ABCDEF";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

template <lf::format F>
constexpr const oracle::target& target_of() {
  if constexpr (F == lf::binary16) return oracle::binary16;
  else return oracle::bfloat16;
}

/// The library's exact core, nearest even, in whatever environment is current (integer code).
template <lf::format F>
u16 core(op o, u16 a, u16 b) {
  const auto x = lf::fp<F>::from_bits(a), y = lf::fp<F>::from_bits(b);
  switch (o) {
    case op::add: return lf::add(x, y).bits();
    case op::sub: return lf::sub(x, y).bits();
    case op::mul: return lf::mul(x, y).bits();
    case op::div: return lf::div(x, y).bits();
  }
  return 0;
}

oracle::result oracle_op(const oracle::target& t, op o, u16 a, u16 b) {
  switch (o) {
    case op::add: return oracle::add(t, a, b, oracle::mode::nearest_even);
    case op::sub: return oracle::sub(t, a, b, oracle::mode::nearest_even);
    case op::mul: return oracle::mul(t, a, b, oracle::mode::nearest_even);
    case op::div: return oracle::div(t, a, b, oracle::mode::nearest_even);
  }
  return {};
}

/// Operand pairs: n uniformly random encodings (every class: NaNs, infinities, zeros, subnormals),
/// then n pairs whose exponent fields are drawn near the bottom of the range, so that operands are
/// subnormal and products, quotients and sums land among the subnormals, and exact zero sums.
template <lf::format F>
void operand_pairs(std::vector<u16>& a, std::vector<u16>& b, std::size_t n, u64 seed) {
  std::mt19937_64 g(seed);
  constexpr int fb = F.fraction_bits();
  constexpr u32 emax_field = (1u << F.exponent_bits) - 1;
  const auto low = [&](u32 spread) {
    const u32 e = static_cast<u32>(g() % spread);
    return static_cast<u16>(((g() & 1) << (F.bits() - 1)) | (std::min(e, emax_field) << fb) | (g() & F.fraction_mask()));
  };
  for (std::size_t i = 0; i < n; ++i) {
    a.push_back(static_cast<u16>(g()));
    b.push_back(static_cast<u16>(g()));
  }
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: a.push_back(low(4)), b.push_back(low(emax_field + 1)); break;  // subnormal or tiny operand
      case 1: a.push_back(low(F.bias() / 2)), b.push_back(low(F.bias() / 2)); break;  // tiny products
      case 2: a.push_back(low(F.bias() / 2)), b.push_back(low(emax_field + 1)); break;  // tiny quotients
      default: {  // x and -x (exact zero sums and differences), and x and x
        const u16 x = low(emax_field + 1);
        a.push_back(x);
        b.push_back(static_cast<u16>(g() & 1 ? x : x ^ static_cast<u16>(F.sign_mask())));
      }
    }
  }
}

#if defined(TEST_FP_ENV_X86)

struct setting {
  const char* name;
  unsigned csr;
};
// MXCSR: 0-5 sticky flags, 6 DAZ, 7-12 exception masks (IM DM ZM OM UM PM), 13-14 rounding control
// (00 nearest, 01 downward, 10 upward, 11 toward zero), 15 FTZ. 0x1F80 is the power-on default.
constexpr unsigned mxcsr_default = 0x1F80;
constexpr setting settings[] = {
    {"default", mxcsr_default},
    {"default with sticky flags set", mxcsr_default | 0x3F},
    {"FTZ", mxcsr_default | 0x8000},
    {"DAZ", mxcsr_default | 0x0040},
    {"FTZ and DAZ", mxcsr_default | 0x8040},
    {"rounding downward", mxcsr_default | 0x2000},
    {"rounding upward", mxcsr_default | 0x4000},
    {"rounding toward zero", mxcsr_default | 0x6000},
    {"rounding toward zero, FTZ and DAZ", mxcsr_default | 0xE040},
};

/// The operators under MXCSR = csr. The operands pass through an empty volatile asm after the
/// write, the result through one before the restore: the operations happen in that environment.
template <lf::format F>
[[gnu::noinline]] void typed_ops_under(unsigned csr, op o, const std::vector<u16>& a, const std::vector<u16>& b,
                                       std::vector<u16>& out) {
  out.resize(a.size());
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(csr);
  for (std::size_t i = 0; i < a.size(); ++i) {
    u16 x = a[i], y = b[i];
    __asm__ volatile("" : "+r"(x), "+r"(y));
    const auto fx = lf::fp<F>::from_bits(x), fy = lf::fp<F>::from_bits(y);
    u16 r = 0;
    switch (o) {
      case op::add: r = (fx + fy).bits(); break;
      case op::sub: r = (fx - fy).bits(); break;
      case op::mul: r = (fx * fy).bits(); break;
      case op::div: r = (fx / fy).bits(); break;
    }
    __asm__ volatile("" : "+r"(r));
    out[i] = r;
  }
  _mm_setcsr(saved);
}

/// One operation under MXCSR = csr.
template <lf::format F>
u16 typed_op_under(unsigned csr, op o, u16 a, u16 b) {
  std::vector<u16> out;
  typed_ops_under<F>(csr, o, {a}, {b}, out);
  return out[0];
}

template <lf::format F>
void check_operators_in_every_setting(u64 seed) {
  const oracle::target& t = target_of<F>();
  std::vector<u16> a, b;
  operand_pairs<F>(a, b, 50000, seed);
  for (op o : all_ops) {
    const std::string op_text = op_name(o);
    CAPTURE(op_text);
    // The reference: the core in the default environment ...
    std::vector<u16> want(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) want[i] = core<F>(o, a[i], b[i]);
    // ... which is the exact-rational oracle's result on a sample (every 25th pair, from both halves).
    int oracle_bad = 0;
    for (std::size_t i = 0; i < a.size(); i += 25) oracle_bad += oracle_op(t, o, a[i], b[i]).bits != want[i];
    CHECK(oracle_bad == 0);
    for (const auto& s : settings) {
      const std::string setting_name = s.name;
      CAPTURE(setting_name);
      std::vector<u16> got;
      typed_ops_under<F>(s.csr, o, a, b, got);
      std::size_t bad = 0, first = 0;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (got[i] != want[i] && bad++ == 0) first = i;
      if (bad != 0) {
        const std::string o_name = op_name(o);
        const std::string text = lf::format_name(F) + " " + o_name + " under " + s.name + ": " + std::to_string(bad) +
                                 " of " + std::to_string(a.size()) + " pairs differ, e.g. " + hex(a[first]) + " " +
                                 o_name + " " + hex(b[first]) + " = " + hex(got[first]) + ", want " + hex(want[first]);
        MESSAGE(text);
      }
      CHECK(bad == 0);
      // The free functions are integer code: the same bits and flags in every environment.
      if (s.csr != mxcsr_default) {
        std::size_t free_bad = 0;
        const unsigned saved = _mm_getcsr();
        for (std::size_t i = 0; i < a.size(); i += 7) {
          lf::status st_default{}, st_env{};
          const auto x = lf::fp<F>::from_bits(a[i]), y = lf::fp<F>::from_bits(b[i]);
          const auto r_default = lf::mul(x, y, lf::rounding::upward, &st_default);
          _mm_setcsr(s.csr);
          const auto r_env = lf::mul(x, y, lf::rounding::upward, &st_env);
          _mm_setcsr(saved);
          free_bad += r_default.bits() != r_env.bits() || st_default != st_env;
        }
        CHECK(free_bad == 0);
      }
    }
  }
}

#endif  // TEST_FP_ENV_X86

}  // namespace

#if defined(TEST_FP_ENV_X86)

TEST_CASE("bf16 0x000F * 0x6C40 = 0x2BB4 under FTZ and DAZ, set as _MM_SET_FLUSH_ZERO_MODE etc. do") {
  // 0x000F is the subnormal 15 * 2^-133; 0x6C40 is 1.1000000b * 2^(0xD8 - 127) = 1.5 * 2^89. The
  // product 22.5 * 2^-44 = 1.0110100b * 2^-40 is exact and normal: exponent field -40 + 127 = 0x57,
  // fraction 0110100b = 0x34, so 0.01010111.0110100 = 0x2BB4. DAZ must not read 0x000F as zero.
  const unsigned saved = _mm_getcsr();
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(saved);
  CHECK((csr & 0x8040u) == 0x8040u);
  CHECK(typed_op_under<lf::bfloat16>(csr, op::mul, 0x000F, 0x6C40) == 0x2BB4);
  CHECK(typed_op_under<lf::bfloat16>(mxcsr_default | 0x0040, op::mul, 0x000F, 0x6C40) == 0x2BB4);  // DAZ alone
  // FTZ alone: 0x0010 * 0x0010 = 2^-132 * 2^-132, far below the smallest subnormal 2^-133: +0; but
  // 0x3F00 (0.5) * 0x0080 (2^-126) = 2^-127 is the subnormal 0x0040, which FTZ must not flush.
  CHECK(typed_op_under<lf::bfloat16>(mxcsr_default | 0x8000, op::mul, 0x3F00, 0x0080) == 0x0040);
  CHECK(typed_op_under<lf::bfloat16>(mxcsr_default | 0x8000, op::div, 0x0080, 0x4000) == 0x0040);  // 2^-126 / 2
  CHECK(typed_op_under<lf::bfloat16>(mxcsr_default | 0x8000, op::sub, 0x0081, 0x0080) == 0x0001);  // 2^-133
  CHECK(typed_op_under<lf::bfloat16>(mxcsr_default | 0x0040, op::add, 0x0001, 0x0001) == 0x0002);
  // The conversion to double is exact: 15 * 2^-133, not the zero DAZ would read.
  _mm_setcsr(csr);
  u16 sub = 0x000F;
  __asm__ volatile("" : "+r"(sub));
  double d = static_cast<double>(lf::bf16::from_bits(sub));
  __asm__ volatile("" : "+x"(d));
  _mm_setcsr(saved);
  CHECK(d == 15 * 0x1p-133);
}

TEST_CASE("x - x is +0 in every rounding control setting (IEEE 754-2019 §6.3, nearest even)") {
  // §6.3: an exact zero difference of like-signed operands is +0 in roundTiesToEven; the operators
  // round to nearest even whatever MXCSR says, so rounding control 01 (downward) must not make -0.
  for (unsigned rc : {0x0000u, 0x2000u, 0x4000u, 0x6000u}) {
    CAPTURE(rc);
    const unsigned csr = mxcsr_default | rc;
    CHECK(typed_op_under<lf::binary16>(csr, op::sub, 0x3C00, 0x3C00) == 0x0000);  // 1 - 1
    CHECK(typed_op_under<lf::binary16>(csr, op::add, 0x3C00, 0xBC00) == 0x0000);  // 1 + (-1)
    CHECK(typed_op_under<lf::bfloat16>(csr, op::sub, 0x3F80, 0x3F80) == 0x0000);
    CHECK(typed_op_under<lf::bfloat16>(csr, op::add, 0xC000, 0x4000) == 0x0000);  // -2 + 2
    CHECK(typed_op_under<lf::binary16>(csr, op::add, 0x8000, 0x8000) == 0x8000);  // -0 + -0 = -0
  }
}

TEST_CASE("lf::fp16 operators: the core's bits under FTZ, DAZ and every rounding control") {
  check_operators_in_every_setting<lf::binary16>(11);
}

TEST_CASE("lf::bf16 operators: the core's bits under FTZ, DAZ and every rounding control") {
  check_operators_in_every_setting<lf::bfloat16>(12);
}

namespace {

/// Conversions under MXCSR = csr, each input laundered after the write and each output before the
/// restore: fp16(float), bf16(float), tf32(float), fp16(double), float(fp16), double(fp16),
/// double(bf16), double(fp32), float(bf16).
struct conversions {
  std::vector<u64> f16_from_float, bf16_from_float, tf32_from_float, f16_from_double;
  std::vector<u64> float_from_f16, double_from_f16, double_from_bf16, double_from_f32, float_from_bf16;
};

/// The double inputs: |float| * 2^-5 with bit 30 cleared (exact, within binary16's range),
/// computed before any MXCSR change.
std::vector<u64> doubles_for(const std::vector<u32>& floats) {
  std::vector<u64> d;
  for (u32 w : floats) d.push_back(std::bit_cast<u64>(static_cast<double>(std::bit_cast<float>(w & 0x7F7FFFFFu)) * 0x1p-5));
  return d;
}

[[gnu::noinline]] conversions conversions_under(unsigned csr, const std::vector<u32>& floats) {
  const std::vector<u64> doubles = doubles_for(floats);
  conversions c;
  const std::size_t n = floats.size();
  c.f16_from_float.resize(n), c.bf16_from_float.resize(n), c.tf32_from_float.resize(n), c.f16_from_double.resize(n);
  c.float_from_f16.resize(n), c.double_from_f16.resize(n), c.double_from_bf16.resize(n), c.double_from_f32.resize(n);
  c.float_from_bf16.resize(n);
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(csr);
  for (std::size_t i = 0; i < n; ++i) {
    u32 w = floats[i];
    u64 wd = doubles[i];
    __asm__ volatile("" : "+r"(w), "+r"(wd));
    const float f = std::bit_cast<float>(w);
    const u16 h = static_cast<u16>(w);
    u64 r[9] = {
        lf::fp16(f).bits(),
        lf::bf16(f).bits(),
        lf::tf32(f).bits(),
        lf::fp16(std::bit_cast<double>(wd)).bits(),
        std::bit_cast<u32>(static_cast<float>(lf::fp16::from_bits(h))),
        std::bit_cast<u64>(static_cast<double>(lf::fp16::from_bits(h))),
        std::bit_cast<u64>(static_cast<double>(lf::bf16::from_bits(h))),
        std::bit_cast<u64>(static_cast<double>(lf::fp32::from_bits(w))),
        std::bit_cast<u32>(static_cast<float>(lf::bf16::from_bits(h))),
    };
    __asm__ volatile("" : "+m"(r));
    c.f16_from_float[i] = r[0], c.bf16_from_float[i] = r[1], c.tf32_from_float[i] = r[2], c.f16_from_double[i] = r[3];
    c.float_from_f16[i] = r[4], c.double_from_f16[i] = r[5], c.double_from_bf16[i] = r[6], c.double_from_f32[i] = r[7];
    c.float_from_bf16[i] = r[8];
  }
  _mm_setcsr(saved);
  return c;
}

}  // namespace

TEST_CASE("binary32 -> binary64 in integers: the hardware's conversion (default MXCSR) on every 4093rd encoding") {
  // static_cast<double>(lf::fp32 / bf16 / fp16) widen with integer code so that DAZ cannot zero a
  // subnormal; in the default environment the hardware's CVTSS2SD gives the reference (exact; a
  // NaN quieted with its payload kept).
  std::size_t bad = 0, subnormals = 0;
  for (u64 i = 0; i < (u64{1} << 32); i += 4093) {
    const auto w = static_cast<u32>(i);
    const double hw = static_cast<double>(std::bit_cast<float>(w));
    bad += std::bit_cast<u64>(static_cast<double>(lf::fp32::from_bits(w))) != std::bit_cast<u64>(hw);
    subnormals += (w & 0x7F800000u) == 0 && (w & 0x7FFFFFu) != 0;
  }
  CHECK(subnormals > 1000);
  CHECK(bad == 0);
}

TEST_CASE("conversions to and from float and double: the oracle's convertFormat under every setting") {
  std::mt19937_64 g(13);
  std::vector<u32> floats;
  for (int i = 0; i < 6000; ++i) {
    const u32 r = static_cast<u32>(g());
    switch (i % 3) {
      case 0: floats.push_back(r); break;                                 // any encoding
      case 1: floats.push_back(r & 0x807FFFFFu); break;                   // binary32 subnormals
      default: floats.push_back((r & 0x81FFFFFFu) | 0x32000000u); break;  // binary16's subnormal range
    }
  }
  // The expected bits, from the oracle.
  using oracle::mode;
  conversions want;
  const std::vector<u64> doubles = doubles_for(floats);
  for (std::size_t i = 0; i < floats.size(); ++i) {
    const u32 w = floats[i];
    const u16 h = static_cast<u16>(w);
    const double d = std::bit_cast<double>(doubles[i]);
    want.f16_from_float.push_back(oracle::convert(oracle::binary16, oracle::binary32, w, mode::nearest_even).bits);
    want.bf16_from_float.push_back(oracle::convert(oracle::bfloat16, oracle::binary32, w, mode::nearest_even).bits);
    want.tf32_from_float.push_back(oracle::convert(oracle::tf32, oracle::binary32, w, mode::nearest_even).bits);
    want.f16_from_double.push_back(
        oracle::convert(oracle::binary16, oracle::binary64, std::bit_cast<u64>(d), mode::nearest_even).bits);
    want.float_from_f16.push_back(oracle::convert(oracle::binary32, oracle::binary16, h, mode::nearest_even).bits);
    want.double_from_f16.push_back(oracle::convert(oracle::binary64, oracle::binary16, h, mode::nearest_even).bits);
    want.double_from_bf16.push_back(oracle::convert(oracle::binary64, oracle::bfloat16, h, mode::nearest_even).bits);
    want.double_from_f32.push_back(oracle::convert(oracle::binary64, oracle::binary32, w, mode::nearest_even).bits);
    want.float_from_bf16.push_back(oracle::convert(oracle::binary32, oracle::bfloat16, h, mode::nearest_even).bits);
  }
  for (const auto& s : settings) {
    const std::string setting_name = s.name;
    CAPTURE(setting_name);
    const conversions got = conversions_under(s.csr, floats);
    const auto count = [](const std::vector<u64>& x, const std::vector<u64>& y) {
      std::size_t bad = 0;
      for (std::size_t i = 0; i < x.size(); ++i) bad += x[i] != y[i];
      return bad;
    };
    CHECK(count(got.f16_from_float, want.f16_from_float) == 0);
    CHECK(count(got.bf16_from_float, want.bf16_from_float) == 0);
    CHECK(count(got.tf32_from_float, want.tf32_from_float) == 0);
    CHECK(count(got.f16_from_double, want.f16_from_double) == 0);
    CHECK(count(got.float_from_f16, want.float_from_f16) == 0);
    CHECK(count(got.double_from_f16, want.double_from_f16) == 0);
    CHECK(count(got.double_from_bf16, want.double_from_bf16) == 0);
    CHECK(count(got.double_from_f32, want.double_from_f32) == 0);
    CHECK(count(got.float_from_bf16, want.float_from_bf16) == 0);
  }
}

namespace {

struct span_results {
  std::vector<u16> f16, bf16;
  std::vector<u32> widened;
  lf::status f16_st{}, bf16_st{}, widen_st{};
};

[[gnu::noinline]] span_results span_kernels_under(unsigned csr, const std::vector<float>& in,
                                                  const std::vector<lf::fp16>& halves, lf::rounding mode) {
  std::vector<lf::fp16> h(in.size());
  std::vector<lf::bf16> b(in.size());
  std::vector<float> w(halves.size());
  span_results r;
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(csr);
  __asm__ volatile("" ::: "memory");
  r.f16_st = lf::convert(std::span<const float>(in), std::span<lf::fp16>(h), lf::env{mode});
  r.bf16_st = lf::convert(std::span<const float>(in), std::span<lf::bf16>(b), lf::env{mode});
  r.widen_st = lf::widen(std::span<const lf::fp16>(halves), std::span<float>(w));
  __asm__ volatile("" ::: "memory");
  _mm_setcsr(saved);
  for (auto x : h) r.f16.push_back(x.bits());
  for (auto x : b) r.bf16.push_back(x.bits());
  for (float x : w) r.widened.push_back(std::bit_cast<u32>(x));
  return r;
}

}  // namespace

TEST_CASE("span kernels (every dispatch path): the oracle's results and flags under every setting") {
  std::mt19937_64 g(14);
  std::vector<float> in;
  std::vector<lf::fp16> halves;
  for (int i = 0; i < 4096; ++i) {
    const u32 r = static_cast<u32>(g());
    // every 4th block of 64 elements holds binary32 subnormals, every 4th binary16-subnormal-range
    // values; the rest are normal-range values with a few NaNs and infinities among the random bits
    const int block = (i / 64) % 4;
    const u32 w = block == 0 ? (r & 0x807FFFFFu) : block == 1 ? ((r & 0x81FFFFFFu) | 0x32000000u)
                  : block == 2 ? r : (r & 0x8FFFFFFFu) | 0x30000000u;
    in.push_back(std::bit_cast<float>(w));
    halves.push_back(lf::fp16::from_bits(static_cast<u16>(r)));
  }
  std::vector<lf::array_dispatch> paths{lf::array_dispatch::portable};
  for (auto d : {lf::array_dispatch::avx2, lf::array_dispatch::avx512, lf::array_dispatch::avx512_bf16}) {
    const auto prev = lf::set_array_dispatch(d);
    if (lf::array_dispatch_in_use() == d) paths.push_back(d);
    lf::set_array_dispatch(prev);
  }
  for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::toward_zero, lf::rounding::upward}) {
    const oracle::mode om = m == lf::rounding::nearest_even ? oracle::mode::nearest_even
                            : m == lf::rounding::toward_zero ? oracle::mode::toward_zero
                                                             : oracle::mode::upward;
    span_results want;
    std::uint8_t f16_fl = 0, bf16_fl = 0, widen_fl = 0;
    for (float x : in) {
      const auto rh = oracle::convert(oracle::binary16, oracle::binary32, std::bit_cast<u32>(x), om);
      const auto rb = oracle::convert(oracle::bfloat16, oracle::binary32, std::bit_cast<u32>(x), om);
      want.f16.push_back(static_cast<u16>(rh.bits)), f16_fl |= rh.flags;
      want.bf16.push_back(static_cast<u16>(rb.bits)), bf16_fl |= rb.flags;
    }
    for (auto h : halves) {
      const auto rw = oracle::convert(oracle::binary32, oracle::binary16, h.bits(), oracle::mode::nearest_even);
      want.widened.push_back(static_cast<u32>(rw.bits)), widen_fl |= rw.flags;
    }
    for (auto d : paths) {
      const auto prev = lf::set_array_dispatch(d);
      const std::string path = lf::array_dispatch_name(d), mode_name(lf::rounding_name(m));
      for (const auto& s : settings) {
        CAPTURE(path);
        CAPTURE(mode_name);
        const std::string setting_name = s.name;
      CAPTURE(setting_name);
        const span_results got = span_kernels_under(s.csr, in, halves, m);
        CHECK(got.f16 == want.f16);
        CHECK(got.bf16 == want.bf16);
        CHECK(got.widened == want.widened);
        CHECK(lf::to_bits(got.f16_st) == f16_fl);
        CHECK(lf::to_bits(got.bf16_st) == bf16_fl);
        CHECK(lf::to_bits(got.widen_st) == widen_fl);
      }
      lf::set_array_dispatch(prev);
    }
  }
}

TEST_CASE("unmasked exceptions: the typed operators and conversions trap nothing and give the core's bits") {
  // With an exception unmasked, a hardware operation that raises it traps (SIGFPE, which would end
  // this test program): 1/0 (divide by zero), inf - inf (invalid), max * max (overflow), any
  // rounding (inexact), a subnormal operand (denormal). The library may not use the hardware then.
  const setting unmasked[] = {
      {"invalid unmasked", mxcsr_default & ~0x0080u},   {"denormal unmasked", mxcsr_default & ~0x0100u},
      {"divide-by-zero unmasked", mxcsr_default & ~0x0200u}, {"overflow unmasked", mxcsr_default & ~0x0400u},
      {"underflow unmasked", mxcsr_default & ~0x0800u}, {"inexact unmasked", mxcsr_default & ~0x1000u},
      {"every exception unmasked", 0x0000},
  };
  std::vector<u16> a16, b16, abf, bbf;
  operand_pairs<lf::binary16>(a16, b16, 2000, 15);
  operand_pairs<lf::bfloat16>(abf, bbf, 2000, 16);
  for (auto* v : {&a16, &b16}) v->insert(v->end(), {0x3C00, 0x7C00, 0x7BFF, 0x0000, 0x7D00, 0x0001});
  for (auto* v : {&abf, &bbf}) v->insert(v->end(), {0x3F80, 0x7F80, 0x7F7F, 0x0000, 0x7F81, 0x0001});
  for (const auto& s : unmasked) {
    const std::string setting_name = s.name;
    CAPTURE(setting_name);
    for (op o : all_ops) {
      const std::string op_text = op_name(o);
    CAPTURE(op_text);
      std::vector<u16> got;
      std::size_t bad = 0;
      typed_ops_under<lf::binary16>(s.csr, o, a16, b16, got);
      for (std::size_t i = 0; i < a16.size(); ++i) bad += got[i] != core<lf::binary16>(o, a16[i], b16[i]);
      typed_ops_under<lf::bfloat16>(s.csr, o, abf, bbf, got);
      for (std::size_t i = 0; i < abf.size(); ++i) bad += got[i] != core<lf::bfloat16>(o, abf[i], bbf[i]);
      CHECK(bad == 0);
    }
    std::vector<u32> floats;
    for (u16 x : abf) floats.push_back(static_cast<u32>(x) << 16 | x);
#if !defined(__F16C__)
    // (Built for F16C, binary16's conversions are the hardware's and, as documented, trap on an
    // unmasked exception like a _Float16 cast; the integer forms never do.)
    const conversions got = conversions_under(s.csr, floats);
    const conversions base = conversions_under(mxcsr_default, floats);
    CHECK(got.f16_from_float == base.f16_from_float);
    CHECK(got.double_from_bf16 == base.double_from_bf16);
    CHECK(got.double_from_f32 == base.double_from_f32);
    CHECK(got.float_from_f16 == base.float_from_f16);
#endif
    std::vector<float> in;
    std::vector<lf::fp16> halves;
    for (std::size_t i = 0; i < floats.size(); ++i) {
      in.push_back(std::bit_cast<float>(floats[i]));
      halves.push_back(lf::fp16::from_bits(a16[i % a16.size()]));
    }
    for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::upward}) {
      const span_results k = span_kernels_under(s.csr, in, halves, m), k0 = span_kernels_under(mxcsr_default, in, halves, m);
      CHECK(k.f16 == k0.f16);
      CHECK(k.bf16 == k0.bf16);
      CHECK(k.widened == k0.widened);
      CHECK(k.f16_st == k0.f16_st);
      CHECK(k.bf16_st == k0.bf16_st);
      CHECK(k.widen_st == k0.widen_st);
    }
  }
}

/// lf::mul(f, a, b, mode) for every pair, in each deterministic mode, under MXCSR = csr: result << 8
/// | flags per call. Returns MXCSR as it was after the calls (its sticky flags: bits 0-5).
[[gnu::noinline]] unsigned runtime_muls_under(unsigned csr, const lf::format& f, const std::vector<u64>& a,
                                              const std::vector<u64>& b, std::vector<u64>& out) {
  constexpr lf::rounding modes[] = {lf::rounding::nearest_even, lf::rounding::toward_zero,  lf::rounding::upward,
                                    lf::rounding::downward,     lf::rounding::nearest_away, lf::rounding::odd};
  out.clear();
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(csr);
  for (lf::rounding m : modes) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      u64 x = a[i], y = b[i];
      __asm__ volatile("" : "+r"(x), "+r"(y));
      lf::status st{};
      u64 r = lf::mul(f, x, y, lf::env{m}, st);
      __asm__ volatile("" : "+r"(r));
      out.push_back(r << 8 | lf::to_bits(st));
    }
  }
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  return after;
}

TEST_CASE(
    "run-time-mode mul (binary16, binary32: products of normals in hardware): the same bits and flags "
    "under every setting, traps unmasked included, and no MXCSR flag raised") {
  // The fast paths of fast/binary16_ops.hpp multiply two normals as float or double (an exact
  // product, so no exception); every other pair takes integer code. Both must be blind to MXCSR.
  std::vector<u16> a16, b16;
  operand_pairs<lf::binary16>(a16, b16, 3000, 17);
  std::vector<u64> x16(a16.begin(), a16.end()), y16(b16.begin(), b16.end()), x32, y32;
  std::mt19937_64 g(18);
  const auto field = [&](u32 e) { return static_cast<u64>(((g() & 1) << 31) | (e << 23) | (g() & 0x7FFFFFu)); };
  // Pairs of four kinds in turn: any encodings (every class), exponent fields below 64 (tiny
  // products), above 189 (overflowing products), and a zero or subnormal (or tiny) second operand.
  const auto draw = [&](u64 lo, u64 n) { return static_cast<u32>(lo + g() % n); };
  for (int i = 0; i < 6000; ++i) {
    const int kind = i % 4;
    if (kind == 0) {
      x32.push_back(g() & 0xFFFFFFFFu);
      y32.push_back(g() & 0xFFFFFFFFu);
    } else {
      x32.push_back(field(kind == 1 ? draw(0, 64) : kind == 2 ? draw(190, 65) : draw(0, 255)));
      y32.push_back(field(kind == 1 ? draw(0, 64) : kind == 2 ? draw(190, 65) : draw(0, 3)));
    }
  }
  // (The fast paths themselves are compared with the core in tests/fast, default environment.)
  std::vector<u64> want16, want32, got;
  CHECK((runtime_muls_under(mxcsr_default, lf::binary16, x16, y16, want16) & 0x3F) == 0);
  CHECK((runtime_muls_under(mxcsr_default, lf::binary32, x32, y32, want32) & 0x3F) == 0);
  constexpr unsigned masks_cleared[] = {mxcsr_default & ~0x1F80u, (mxcsr_default & ~0x1F80u) | 0xE040u};
  std::vector<setting> all(std::begin(settings), std::end(settings));
  all.push_back({"every exception unmasked", masks_cleared[0]});
  all.push_back({"every exception unmasked, toward zero, FTZ and DAZ", masks_cleared[1]});
  for (const auto& s : all) {
    const std::string setting_name = s.name;
    CAPTURE(setting_name);
    const unsigned flags_before = s.csr & 0x3F;
    CHECK((runtime_muls_under(s.csr, lf::binary16, x16, y16, got) & 0x3F) == flags_before);
    CHECK(got == want16);
    CHECK((runtime_muls_under(s.csr, lf::binary32, x32, y32, got) & 0x3F) == flags_before);
    CHECK(got == want32);
  }
}

TEST_CASE("lf::fp32 operators are the hardware's: they follow the rounding control, as documented") {
  // 1 + 2^-30: binary32 rounds it to 1 to nearest and to 1 + 2^-23 (0x3F800001) upward.
  const auto fp32_add_under = [](unsigned csr) {
    const unsigned saved = _mm_getcsr();
    u32 x = 0x3F800000, y = 0x30800000;  // 1, 2^-30
    _mm_setcsr(csr);
    __asm__ volatile("" : "+r"(x), "+r"(y));
    u32 r = (lf::fp32::from_bits(x) + lf::fp32::from_bits(y)).bits();
    __asm__ volatile("" : "+r"(r));
    _mm_setcsr(saved);
    return r;
  };
  CHECK(fp32_add_under(mxcsr_default) == 0x3F800000u);
  CHECK(fp32_add_under(mxcsr_default | 0x4000) == 0x3F800001u);
}

#endif  // TEST_FP_ENV_X86

TEST_CASE("the environment check itself: default MXCSR, or no hardware path at all") {
#if defined(TEST_FP_ENV_X86)
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(0x1F80);
  const bool at_default = lf::detail::hardware_env_is_default();
  _mm_setcsr(0x1F80 | 0x3F);  // sticky flags do not matter
  const bool with_flags = lf::detail::hardware_env_is_default();
  _mm_setcsr(0x1F80 | 0x8000);
  const bool ftz = lf::detail::hardware_env_is_default();
  _mm_setcsr(saved);
  CHECK(at_default == lf::detail::hardware_float_built);
  CHECK(with_flags == lf::detail::hardware_float_built);
  CHECK_FALSE(ftz);
#else
  CHECK_FALSE(lf::detail::hardware_env_is_default());
#endif
  // In constant evaluation the operators are the same (the compiler's IEEE arithmetic).
  static_assert((lf::bf16::from_bits(0x000F) * lf::bf16::from_bits(0x6C40)).bits() == 0x2BB4);
  static_assert((lf::fp16::from_bits(0x3C00) - lf::fp16::from_bits(0x3C00)).bits() == 0x0000);
}
