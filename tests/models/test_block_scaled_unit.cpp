// tests/models/test_block_scaled_unit.cpp: models/block_scaled_unit.hpp (Blackwell block-scaled MMA,
// kind::mxf8f6f4 / mxf4 / mxf4nvf4, as MMA-Sim's nv_fused_dot_add and
// nv_fused_dot_add_with_block_scale model them) against a model of the same rule written here:
//   - every element, scale and binary32 encoding is decoded by the test's own bit-level decoder into
//     an exact dyadic value m * 2^e (cpp_int m), with exp(v) = max(floor(log2 |v|), emin) read off
//     the bit length of m and sig(v) = v / 2^exp(v);
//   - each chunk of instruction_k positions: specials first, then the terms (acc; each product, or
//     each group's exact sum of element products times the two scales), emax, every term truncated
//     toward zero onto the 2^(emax - F) grid by integer shifts of its magnitude, the exact integer
//     sum, and one rounding into binary32 by integer quotient and remainder (toward zero for the
//     presets; |V| >= 2^128 goes to infinity as MMA-Sim's conversion does; underflow: inexact and
//     tiny after rounding, the core's default tininess, which toward zero cannot tell from before);
//   - NVFP4's per-tensor scales: the chain from +0, then alpha = fl32(Ta * Tb), fl32(alpha * acc),
//     fl32(. + c), each rounded to nearest even by the same integer rounding (tininess after rounding).
// Nothing here calls the library's arithmetic or rounding: the library provides only the
// block_quantized containers (and mx_quantize to fill some of them from float data).
// Checked: hand cases with derived literals, thousands of random dots per (unit, block format) pair
// that the hardware has (bits and flags), custom units (other chunk sizes, groups, final roundings),
// a gemm against block_scaled_dot element by element, and every invalid_argument case.
#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <libfloat/models/block_scaled_unit.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using boost::multiprecision::cpp_int;
using lf::status;

// ---- the model's decoder -------------------------------------------------------------------------

/// An encoding's layout: w exponent bits, f fraction bits, bias, the spec's emin (minimum normal
/// exponent), and its special encodings.
enum class specials { none, e4m3fn, ieee, e8m0 };
struct spec {
  int w, f, bias, emin;
  specials sp;
};
constexpr spec s_e4m3{4, 3, 7, -6, specials::e4m3fn};   // S.1111.111 is NaN, no infinity
constexpr spec s_e5m2{5, 2, 15, -14, specials::ieee};   // exponent 31: infinity (m = 0) or NaN
constexpr spec s_e3m2{3, 2, 3, -2, specials::none};
constexpr spec s_e2m3{2, 3, 1, 0, specials::none};
constexpr spec s_e2m1{2, 1, 1, 0, specials::none};
constexpr spec s_e8m0{8, 0, 127, -127, specials::e8m0};  // 2^(code - 127); 0xFF is NaN
constexpr spec s_b32{8, 23, 127, -126, specials::ieee};

enum class kind { zero, finite, inf, nan };

/// A decoded value: m * 2^e exactly (m signed), x = exp(v), and the sign (kept for zeros too).
struct val {
  kind k = kind::zero;
  bool neg = false;
  cpp_int m = 0;
  int e = 0;
  int x = 0;
};

int bit_length(const cpp_int& mag) { return mag == 0 ? 0 : static_cast<int>(msb(mag)) + 1; }

/// m * 2^s for s >= 0, on the magnitude (no reliance on shifts of negative numbers).
cpp_int shl(const cpp_int& m, int s) { return m < 0 ? cpp_int(-(cpp_int(-m) << s)) : cpp_int(m << s); }

/// Sets x = max(floor(log2 |m * 2^e|), emin) for a nonzero finite value.
void set_exp(val& v, int emin) {
  const cpp_int mag = abs(v.m);
  v.x = std::max(bit_length(mag) - 1 + v.e, emin);
}

val decode(const spec& s, std::uint32_t code, bool unsigned_read = false) {
  val v;
  if (s.sp == specials::e8m0) {
    if (code == 0xFF) {
      v.k = kind::nan;
      return v;
    }
    v.k = kind::finite;
    v.m = 1;
    v.e = static_cast<int>(code) - 127;
    set_exp(v, s.emin);
    return v;
  }
  const std::uint32_t sign = (code >> (s.w + s.f)) & 1u;
  const std::uint32_t E = (code >> s.f) & ((1u << s.w) - 1), M = code & ((1u << s.f) - 1);
  v.neg = !unsigned_read && sign;
  if (s.sp == specials::e4m3fn && E == 15 && M == 7) {
    v.k = kind::nan;
    return v;
  }
  if (s.sp == specials::ieee && E == (1u << s.w) - 1) {
    v.k = M == 0 ? kind::inf : kind::nan;
    return v;
  }
  if (E == 0 && M == 0) return v;  // a zero of that sign
  v.k = kind::finite;
  if (E == 0) {
    v.m = M;
    v.e = 1 - s.bias - s.f;
  } else {
    v.m = (cpp_int(1) << s.f) + M;
    v.e = static_cast<int>(E) - s.bias - s.f;
  }
  if (v.neg) v.m = -v.m;
  set_exp(v, s.emin);
  return v;
}

val decode_f32(float f) { return decode(s_b32, std::bit_cast<std::uint32_t>(f)); }

const spec& element_spec(const lf::format& f) {
  if (f == lf::float8_e4m3fn) return s_e4m3;
  if (f == lf::float8_e5m2) return s_e5m2;
  if (f == lf::float6_e3m2fn) return s_e3m2;
  if (f == lf::float6_e2m3fn) return s_e2m3;
  if (f == lf::float4_e2m1fn) return s_e2m1;
  FAIL("unexpected element format");
  return s_e4m3;
}

/// The decoded element (r, c) and its block's scale (E4M3 scales read as magnitudes: UE4M3).
struct operand {
  const lf::block_quantized& q;
  std::size_t row;
  std::vector<val> elem, scale;  // per position k: the element and its block's scale
  operand(const lf::block_quantized& qq, std::size_t r) : q(qq), row(r) {
    const spec& es = element_spec(q.fmt.element);
    const bool e8m0 = q.fmt.scale == lf::float8_e8m0fnu;
    elem.reserve(q.cols);
    scale.reserve(q.cols);
    for (std::size_t k = 0; k < q.cols; ++k) {
      elem.push_back(decode(es, q.elements[r * q.cols + k]));
      const std::uint8_t sc = q.scales[q.block_of(r, k)];
      scale.push_back(e8m0 ? decode(s_e8m0, sc) : decode(s_e4m3, sc & 0x7Fu, true));
    }
  }
};

// ---- exact rounding into binary32 ----------------------------------------------------------------

constexpr std::uint32_t nan32 = 0xFFC00000u;  // binary32's default NaN

/// The binary32 encoding of (neg ? -1 : 1) * mag * 2^e0 (mag > 0) rounded in `mode`, and its flags.
/// Underflow: inexact and tiny after rounding (rounded with an unbounded exponent, below 2^-126).
/// mmasim_overflow: any |V| >= 2^128 becomes an infinity whatever the mode.
std::uint32_t round32(bool neg, const cpp_int& mag, int e0, lf::rounding mode, bool mmasim_overflow, status& st) {
  const std::uint32_t sign = neg ? 0x80000000u : 0u;
  const int e = bit_length(mag) - 1 + e0;  // floor(log2 |V|)
  // n * 2^q with q = the quantum of binary32 at |V| (or of an unbounded exponent range)
  auto round_at = [&](int q, cpp_int& n) {
    bool inexact = false;
    if (q <= e0) {
      n = mag << (e0 - q);
    } else {
      const int sh = q - e0;
      n = mag >> sh;
      const cpp_int rem = mag - (n << sh), half = cpp_int(1) << (sh - 1);
      inexact = rem != 0;
      bool up = false;
      switch (mode) {
        case lf::rounding::toward_zero: up = false; break;
        case lf::rounding::upward: up = inexact && !neg; break;
        case lf::rounding::downward: up = inexact && neg; break;
        case lf::rounding::nearest_even: up = rem > half || (rem == half && (n & 1) != 0); break;
        case lf::rounding::nearest_away: up = rem >= half; break;
        default: FAIL("mode not modelled");
      }
      if (up) n += 1;
    }
    return inexact;
  };
  int q = std::max(e, -126) - 23;
  cpp_int n;
  const bool inexact = round_at(q, n);
  if (bit_length(n) == 25) {  // carried to the next binade
    n >>= 1;
    ++q;
  }
  const bool away = mode == lf::rounding::nearest_even || mode == lf::rounding::nearest_away ||
                    (mode == lf::rounding::upward && !neg) || (mode == lf::rounding::downward && neg);
  if (n != 0 && bit_length(n) - 1 + q >= 128) {  // the rounded value is 2^128 or more
    st = st | status::overflow | status::inexact;
    if ((mmasim_overflow && e >= 128) || away) return sign | 0x7F800000u;
    return sign | 0x7F7FFFFFu;
  }
  if (inexact) {
    st = st | status::inexact;
    cpp_int nu;
    const int qu = e - 23;
    round_at(qu, nu);
    if (bit_length(nu) - 1 + qu < -126) st = st | status::underflow;
  }
  if (n == 0) return sign;
  if (bit_length(n) == 24) {  // normal: n in [2^23, 2^24), value n * 2^q, biased exponent q + 150
    const auto frac = static_cast<std::uint32_t>(n - (cpp_int(1) << 23));
    return sign | (static_cast<std::uint32_t>(q + 150) << 23) | frac;
  }
  REQUIRE(q == -149);  // subnormal
  return sign | static_cast<std::uint32_t>(n);
}

/// fl32(a * b) and fl32(a + b), nearest even, tininess after rounding, for finite a and b.
std::uint32_t fl32_mul(const val& a, const val& b, status& st) {
  const bool neg = a.neg != b.neg;
  if (a.k == kind::zero || b.k == kind::zero) return neg ? 0x80000000u : 0u;
  return round32(neg, abs(a.m * b.m), a.e + b.e, lf::rounding::nearest_even, false, st);
}
std::uint32_t fl32_add(const val& a, const val& b, status& st) {
  if (a.k == kind::zero && b.k == kind::zero) return a.neg && b.neg ? 0x80000000u : 0u;
  const int e0 = std::min(a.k == kind::zero ? b.e : a.e, b.k == kind::zero ? a.e : b.e);
  cpp_int s = 0;
  if (a.k != kind::zero) s += shl(a.m, a.e - e0);
  if (b.k != kind::zero) s += shl(b.m, b.e - e0);
  if (s == 0) return 0u;  // x + (-x) = +0 to nearest
  return round32(s < 0, abs(s), e0, lf::rounding::nearest_even, false, st);
}

// ---- the model of the unit -----------------------------------------------------------------------

struct term {
  int X;
  cpp_int m;  // significand m * 2^e
  int e;
};

/// One chunk [k0, k1): acc (binary32 bits) -> the unit's binary32 result; flags into st.
std::uint32_t model_chunk(const lf::block_scaled_unit& u, const operand& A, const operand& B, std::size_t k0,
                          std::size_t k1, std::uint32_t acc_bits, status& st) {
  const val acc = decode(s_b32, acc_bits);
  // 1. specials
  bool nan = acc.k == kind::nan;
  for (std::size_t k = k0; k < k1; ++k)
    nan = nan || A.elem[k].k == kind::nan || B.elem[k].k == kind::nan || A.scale[k].k == kind::nan ||
          B.scale[k].k == kind::nan;
  if (nan) return nan32;
  bool pinf = acc.k == kind::inf && !acc.neg, ninf = acc.k == kind::inf && acc.neg, invalid = false;
  for (std::size_t k = k0; k < k1; ++k) {
    const val &a = A.elem[k], &b = B.elem[k], &sa = A.scale[k], &sb = B.scale[k];
    if (a.k != kind::inf && b.k != kind::inf) continue;
    if (a.k == kind::zero || b.k == kind::zero || sa.k == kind::zero || sb.k == kind::zero) invalid = true;
    else if (a.neg != b.neg) ninf = true;
    else pinf = true;
  }
  if (invalid || (pinf && ninf)) {
    st = st | status::invalid;
    return nan32;
  }
  if (pinf) return 0x7F800000u;
  if (ninf) return 0xFF800000u;
  // 2. terms: value = (m * 2^e) * 2^X
  std::vector<term> terms;
  if (acc.k == kind::finite) terms.push_back({acc.x, acc.m, acc.e - acc.x});
  if (u.group == 1) {
    for (std::size_t k = k0; k < k1; ++k) {
      const val &a = A.elem[k], &b = B.elem[k], &sa = A.scale[k], &sb = B.scale[k];
      if (a.k == kind::zero || b.k == kind::zero || sa.k == kind::zero || sb.k == kind::zero) continue;
      // sig(a) sig(b) sig(Sa) sig(Sb): each sig(v) = m * 2^(e - x)
      terms.push_back({a.x + b.x + sa.x + sb.x, a.m * b.m * sa.m * sb.m, (a.e - a.x) + (b.e - b.x) + (sa.e - sa.x) + (sb.e - sb.x)});
    }
  } else {
    for (std::size_t g0 = k0; g0 < k1; g0 += static_cast<std::size_t>(u.group)) {
      const std::size_t g1 = std::min(k1, g0 + static_cast<std::size_t>(u.group));
      for (std::size_t k = g0; k < g1; ++k)  // the test's own check of the rule's premise
        if (A.q.block_of(A.row, k) != A.q.block_of(A.row, g0) || B.q.block_of(B.row, k) != B.q.block_of(B.row, g0))
          FAIL("a group straddles two scale blocks at position ", k);
      const val &sa = A.scale[g0], &sb = B.scale[g0];
      if (sa.k == kind::zero || sb.k == kind::zero) continue;
      // s = sum of the element values a_k * b_k, exactly, as sm * 2^se (se: the smallest exponent)
      int se = 0;
      for (std::size_t k = g0; k < g1; ++k) se = std::min(se, A.elem[k].e + B.elem[k].e);
      cpp_int sm = 0;
      for (std::size_t k = g0; k < g1; ++k) {
        const val &a = A.elem[k], &b = B.elem[k];
        if (a.k == kind::zero || b.k == kind::zero) continue;
        sm += shl(a.m * b.m, a.e + b.e - se);
      }
      terms.push_back({sa.x + sb.x, sm * sa.m * sb.m, se + (sa.e - sa.x) + (sb.e - sb.x)});
    }
  }
  // 3. emax
  if (terms.empty()) return 0u;
  int emax = terms[0].X;
  for (const auto& t : terms) emax = std::max(emax, t.X);
  // 4. t = trunc(sig * 2^(F + X - emax)); 5. S = sum t, V = S * 2^(emax - F)
  const int F = u.alignment_bits;
  cpp_int S = 0;
  bool lost = false;
  for (const auto& t : terms) {
    const int sh = t.e + F + t.X - emax;
    const cpp_int mag = abs(t.m);
    cpp_int q;
    if (sh >= 0) {
      q = mag << sh;
    } else {
      q = mag >> -sh;
      lost = lost || (q << -sh) != mag;
    }
    S += t.m < 0 ? cpp_int(-q) : q;
  }
  if (lost) st = st | status::inexact;
  if (S == 0) return 0u;
  return round32(S < 0, abs(S), emax - F, u.final_rounding, true, st);
}

struct result {
  std::uint32_t bits;
  status st;
};

/// The model's d for row ra of a and row rb of b, from c.
result model_dot(const lf::block_scaled_unit& u, const lf::block_quantized& a, std::size_t ra,
                 const lf::block_quantized& b, std::size_t rb, float c) {
  const operand A(a, ra), B(b, rb);
  const bool tensor = a.tensor_scale != 1.0f || b.tensor_scale != 1.0f;
  status st{};
  std::uint32_t acc = tensor ? 0u : std::bit_cast<std::uint32_t>(c);
  const std::size_t K = a.cols, ik = static_cast<std::size_t>(u.instruction_k);
  for (std::size_t k0 = 0; k0 < K; k0 += ik) acc = model_chunk(u, A, B, k0, std::min(K, k0 + ik), acc, st);
  if (!tensor) return {acc, st};
  // 6. d = fl32(fl32(alpha * acc) + c), alpha = fl32(Ta * Tb)
  const val ta = decode_f32(a.tensor_scale), tb = decode_f32(b.tensor_scale), cv = decode_f32(c);
  REQUIRE(ta.k == kind::finite);
  REQUIRE(tb.k == kind::finite);
  REQUIRE(cv.k != kind::nan);
  const val alpha = decode(s_b32, fl32_mul(ta, tb, st));
  REQUIRE(alpha.k == kind::finite);
  const val av = decode(s_b32, acc);
  if (av.k == kind::nan) return {nan32, st};
  if (av.k == kind::inf) {
    const bool neg = av.neg != alpha.neg;
    if (cv.k == kind::inf && cv.neg != neg) return {nan32, st | status::invalid};
    return {neg ? 0xFF800000u : 0x7F800000u, st};
  }
  const val p = decode(s_b32, fl32_mul(alpha, av, st));
  if (p.k == kind::inf) {
    if (cv.k == kind::inf && cv.neg != p.neg) return {nan32, st | status::invalid};
    return {p.neg ? 0xFF800000u : 0x7F800000u, st};
  }
  if (cv.k == kind::inf) return {std::bit_cast<std::uint32_t>(c), st};
  const std::uint32_t d = fl32_add(p, cv, st);
  return {d, st};
}

// ---- helpers -------------------------------------------------------------------------------------

/// A block_quantized of `rows` x `cols` built by hand: every element code `e`, every scale code `s`.
lf::block_quantized make_q(const lf::block_format& f, std::size_t rows, std::size_t cols, std::uint8_t e,
                           std::uint8_t s, float tensor_scale = 1.0f) {
  lf::block_quantized q;
  q.fmt = f;
  q.rows = rows;
  q.cols = cols;
  q.elements.assign(rows * cols, e);
  q.scales.assign(rows * ((cols + f.block - 1) / f.block), s);
  q.tensor_scale = tensor_scale;
  return q;
}

std::string fmt_bits(std::uint32_t b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", b);
  return buf;
}

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }
float float_of(std::uint32_t b) { return std::bit_cast<float>(b); }

struct got {
  std::uint32_t bits;
  status st;
};
got run_dot(const lf::block_scaled_unit& u, const lf::block_quantized& a, const lf::block_quantized& b, float c,
            std::size_t ra = 0, std::size_t rb = 0) {
  status st{};
  const float d = lf::block_scaled_dot(u, a, ra, b, rb, c, st);
  return {bits_of(d), st};
}

/// Checks the library and the model against the literal (bits, flags) of a hand case.
void check_case(const lf::block_scaled_unit& u, const lf::block_quantized& a, const lf::block_quantized& b, float c,
                std::uint32_t want_bits, status want_st) {
  const got g = run_dot(u, a, b, c);
  const result m = model_dot(u, a, 0, b, 0, c);
  INFO("want ", fmt_bits(want_bits), " flags ", int(want_st), "; library ", fmt_bits(g.bits), " flags ", int(g.st),
       "; model ", fmt_bits(m.bits), " flags ", int(m.st), " (flags: 1 inexact, 2 underflow, 4 overflow, 16 invalid)");
  CHECK(m.bits == want_bits);  // the model reproduces the derivation
  CHECK(int(m.st) == int(want_st));
  CHECK(g.bits == want_bits);
  CHECK(int(g.st) == int(want_st));
}

const lf::block_scaled_unit u8 = lf::block_scaled_units::blackwell_mxf8f6f4;
const lf::block_scaled_unit u4 = lf::block_scaled_units::blackwell_mxf4;

// E4M3 codes: 1.0 = 0.0111.000 = 0x38; E2M1: 1.0 = 0.01.0 = 0x2; E8M0: 2^k = k + 127.
constexpr std::uint8_t e4m3_one = 0x38, e2m1_one = 0x2;
constexpr std::uint8_t e8m0(int k) { return static_cast<std::uint8_t>(k + 127); }

}  // namespace

// ---- hand cases ----------------------------------------------------------------------------------

TEST_CASE("presets: the instruction sizes, groups and alignments of kind::mxf8f6f4 and kind::mxf4") {
  CHECK(u8.instruction_k == 32);
  CHECK(u8.group == 1);
  CHECK(u8.alignment_bits == 25);
  CHECK(u8.final_rounding == lf::rounding::toward_zero);
  CHECK(u8.valid());
  CHECK(u4.instruction_k == 64);
  CHECK(u4.group == 16);
  CHECK(u4.alignment_bits == 35);
  CHECK(u4.final_rounding == lf::rounding::toward_zero);
  CHECK(u4.valid());
}

TEST_CASE("MX scales cancel: 32 ones with scale 2^10 on a and 2^-10 on b give exactly 32") {
  // Each product: X = 0 + 0 + 10 - 10 = 0, sig 1; emax 0; t = 2^25 each; S = 2^30; V = 2^30 * 2^-25 = 32.
  const auto a = make_q(lf::mxfp8_e4m3, 1, 32, e4m3_one, e8m0(10));
  const auto b = make_q(lf::mxfp8_e4m3, 1, 32, e4m3_one, e8m0(-10));
  check_case(u8, a, b, 0.0f, bits_of(32.0f), status::none);
  // the same in E2M1 under kind::mxf4: two groups of 16, each s = 16, X = 10 - 10 = 0: 16 * 2 = 32
  const auto a4 = make_q(lf::mxfp4, 1, 32, e2m1_one, e8m0(10));
  const auto b4 = make_q(lf::mxfp4, 1, 32, e2m1_one, e8m0(-10));
  check_case(u4, a4, b4, 0.0f, bits_of(32.0f), status::none);
}

TEST_CASE("acc = 1 plus products below the 2^-25 grid: stays 1, inexact") {
  // 32 products of 1 * 1 * 2^-16 * 2^-10 = 2^-26: X = -26 < emax = 0 (acc); t = trunc(2^(25 - 26)) = 0
  // each, with a remainder: S = 2^25 (acc alone), V = 1, inexact. (Exactly: 1 + 32 * 2^-26 = 1 + 2^-21,
  // a binary32.)
  const auto a = make_q(lf::mxfp8_e4m3, 1, 32, e4m3_one, e8m0(-16));
  const auto b = make_q(lf::mxfp8_e4m3, 1, 32, e4m3_one, e8m0(-10));
  check_case(u8, a, b, 1.0f, bits_of(1.0f), status::inexact);
}

TEST_CASE("group rule: an all-zero group with a large scale sets emax and truncates the others away") {
  // kind::mxf4, mxfp4, K = 64 (one chunk, two E8M0 blocks of 32, four groups of 16). Block 0: a's
  // elements all 0 with scale 2^100 (b's scale 2^0): groups 0 and 1 have s = 0 but X = 100. Block 1:
  // ones, scales 2^0: groups 2 and 3 have s = 16, X = 0. emax = 100; t = trunc(16 * 2^(35 + 0 - 100))
  // = 0, inexact; S = 0 -> +0. (Exactly: 32.)
  auto a = make_q(lf::mxfp4, 1, 64, e2m1_one, e8m0(0));
  const auto b = make_q(lf::mxfp4, 1, 64, e2m1_one, e8m0(0));
  for (std::size_t k = 0; k < 32; ++k) a.elements[k] = 0;
  a.scales[0] = e8m0(100);
  check_case(u4, a, b, 0.0f, 0u, status::inexact);
  // without the large scale on the zero block: 32 exactly
  a.scales[0] = e8m0(0);
  check_case(u4, a, b, 0.0f, bits_of(32.0f), status::none);
}

TEST_CASE("group rule with NVFP4 E4M3 scales (tensor scales 1): a zero group's scales set emax") {
  // kind::mxf4nvf4, K = 32: group 0 (block 0) all zeros with scales 448 (E4M3 0x7E = 1.75 * 2^8, X
  // = 8 + 8 = 16). Group 1 (block 1): a[16] = b[16] = 0.5 (E2M1 0x1), the rest 0, scales 1.875 * 2^-6
  // (E4M3 0x0F, exp -6, sig 1.875): s = 0.25, X = -12, significand 0.25 * 1.875^2 = 225/256.
  // emax = 16: t = trunc(225/256 * 2^(35 - 12 - 16)) = trunc(112.5) = 112, inexact; V = 112 * 2^(16 -
  // 35) = 7 * 2^-15 (0x39600000). (Exactly: 225 * 2^-20.)
  auto a = make_q(lf::nvfp4, 1, 32, 0, 0x7E);
  auto b = make_q(lf::nvfp4, 1, 32, 0, 0x7E);
  a.scales[1] = b.scales[1] = 0x0F;
  a.elements[16] = b.elements[16] = 0x1;
  check_case(u4, a, b, 0.0f, 0x39600000u, status::inexact);
  // a negative E4M3 scale is read as its magnitude (UE4M3): the same result
  a.scales[1] = 0x8F;
  check_case(u4, a, b, 0.0f, 0x39600000u, status::inexact);
  // a zero scale removes its group's term: with group 0's scale 0 (sign ignored: 0x80), emax = -12 and
  // the result is exact: 225 * 2^-20 = 0x39610000 (225 = 1.11000010b * 2^7: fraction 0x610000)
  a.scales[0] = 0x80;
  check_case(u4, a, b, 0.0f, 0x39610000u, status::none);
}

TEST_CASE("NVFP4 with E4M3 scale significands and per-tensor scales") {
  // K = 16, one group: a = [6, 1.5, 0...] (E2M1 0x7, 0x3), scale 1.125 (E4M3 0x39); b = [1, -3, 0...]
  // (0x2, 0xD), scale 0.75 (E4M3 0x34). s = 6 - 4.5 = 1.5; X = 0 + (-1) = -1; significand 1.5 * 1.125 *
  // 1.5 = 81/32; t exact; acc_final = 81/32 * 2^-1 = 1.265625 (the chain from +0).
  // Ta = 0.1f = 13421773 * 2^-27, Tb = 3: alpha = RNE(40265319 * 2^-27) = 10066330 * 2^-25 (0x3E99999A,
  // inexact); alpha * acc = 815372730 * 2^-31 -> RNE 12740199 * 2^-25 (inexact); + c = 1:
  // 46294631 * 2^-25 -> RNE 11573658 * 2^-23 = 0x3FB0999A (inexact).
  auto a = make_q(lf::nvfp4, 1, 16, 0, 0x39, 0.1f);
  auto b = make_q(lf::nvfp4, 1, 16, 0, 0x34, 3.0f);
  a.elements[0] = 0x7;
  a.elements[1] = 0x3;
  b.elements[0] = 0x2;
  b.elements[1] = 0xD;
  check_case(u4, a, b, 1.0f, 0x3FB0999Au, status::inexact);
  // With both tensor scales 1 the chain starts from c: 1 + 1.265625 = 2.265625 exactly.
  a.tensor_scale = b.tensor_scale = 1.0f;
  check_case(u4, a, b, 1.0f, bits_of(2.265625f), status::none);
}

TEST_CASE("NVFP4 per-tensor scales: the fl32 steps detect tininess after rounding (lf's default policy)") {
  // The rule says only "a nearest-even binary32 operation"; the model takes lf::policy's default,
  // tininess after rounding. acc_final: a[0] = 0.5 (E2M1 0x1), b[0] = 1 (0x2), scales 1.25 (E4M3 0x3A):
  // 0.5 * 1.25 * 1.25 = 25 * 2^-5, exact. Ta = 10737418 * 2^-149 (0x00A3D70A), Tb = 1: alpha = Ta.
  // alpha * acc = (2^28 - 6) * 2^-154 = 2^-126 - 0.75 * 2^-151: to nearest 2^-126 both in the binary32
  // grid and with an unbounded exponent, so not tiny after rounding: inexact only. + c = 0: 0x00800000.
  auto a = make_q(lf::nvfp4, 1, 16, 0, 0x3A, float_of(0x00A3D70Au));
  auto b = make_q(lf::nvfp4, 1, 16, 0, 0x3A, 1.0f);
  a.elements[0] = 0x1;
  b.elements[0] = 0x2;
  check_case(u4, a, b, 0.0f, 0x00800000u, status::inexact);
}

TEST_CASE("the chain over K = 128: the second chunk sees the first one's truncated output") {
  // kind::mxf8f6f4, E4M3, 4 chunks of 32 (= the 4 blocks). Chunk 0: scales 2^-8 and 2^-8; a[0] = b[0]
  // = 256 (0x78): product 1, X = 8 + 8 - 16 = 0; a[1] = 1.5 * 2^-4 (0x1C), b[1] = 2^-4 (0x18): product
  // 1.5 * 2^-24, X = -24, sig 1.5. c = 0 (no term). emax 0: t = 2^25 and trunc(1.5 * 2) = 3; V = 1 +
  // 3 * 2^-25 -> toward zero 1, inexact. Chunk 1 (scales 2^0): a[32] = -1 (0xB8), b[32] = 1: terms 1
  // and -1 -> +0. Chunks 2 and 3: zeros, no terms -> +0. (Exactly: 1.5 * 2^-24.)
  auto a = make_q(lf::mxfp8_e4m3, 1, 128, 0, e8m0(0));
  auto b = make_q(lf::mxfp8_e4m3, 1, 128, 0, e8m0(0));
  a.scales[0] = b.scales[0] = e8m0(-8);
  a.elements[0] = b.elements[0] = 0x78;
  a.elements[1] = 0x1C;
  b.elements[1] = 0x18;
  a.elements[32] = 0xB8;
  b.elements[32] = e4m3_one;
  check_case(u8, a, b, 0.0f, 0u, status::inexact);
  // the first chunk alone (K = 32): 1.0, inexact
  auto a1 = a, b1 = b;
  a1.cols = b1.cols = 32;
  a1.elements.resize(32);
  b1.elements.resize(32);
  a1.scales.resize(1);
  b1.scales.resize(1);
  check_case(u8, a1, b1, 0.0f, bits_of(1.0f), status::inexact);
}

TEST_CASE("subnormal E4M3 elements: the exponent is clamped to emin = -6") {
  // a[0] = b[0] = 2^-9 (E4M3 0x01: 0.001 * 2^-6): exp -6, sig 1/8; product X = -12 (not -18), sig 2^-6.
  // c = (1 + 2^-23) * 2^-15 (0x38000001): X = -15. emax = -12: c's t = trunc((1 + 2^-23) * 2^22) = 2^22,
  // inexact; the product's t = 2^-6 * 2^25 = 2^19. V = (2^22 + 2^19) * 2^-37 = 1.125 * 2^-15
  // (0x38100000). (With exp -18 for the product, emax would be -15 and c would be kept whole.)
  auto a = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(0));
  auto b = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(0));
  a.elements[0] = b.elements[0] = 0x01;
  check_case(u8, a, b, float_of(0x38000001u), 0x38100000u, status::inexact);
  // with a 1 * 1 product beside it, emax = 0: 2^-18 exactly on the grid: 1 + 2^-18 = 0x3F800020
  a.elements[1] = b.elements[1] = e4m3_one;
  check_case(u8, a, b, 0.0f, 0x3F800020u, status::none);
}

TEST_CASE("NaN scales, NaN elements and a NaN c give binary32's default NaN without flags") {
  auto a = make_q(lf::mxfp8_e4m3, 1, 64, e4m3_one, e8m0(0));
  auto b = make_q(lf::mxfp8_e4m3, 1, 64, e4m3_one, e8m0(0));
  a.scales[1] = 0xFF;  // E8M0 NaN in the second chunk's block
  check_case(u8, a, b, 1.0f, nan32, status::none);
  a.scales[1] = e8m0(0);
  for (std::size_t k = 32; k < 64; ++k) a.elements[k] = 0;  // the NaN scale is used even with zero elements
  b.scales[1] = 0xFF;
  check_case(u8, a, b, 1.0f, nan32, status::none);
  b.scales[1] = e8m0(0);
  a.elements[5] = 0x7F;  // E4M3 NaN
  check_case(u8, a, b, 1.0f, nan32, status::none);
  a.elements[5] = e4m3_one;
  check_case(u8, a, b, float_of(0x7FC00001u), nan32, status::none);
  // NVFP4 E4M3 scale NaNs, 0x7F and 0xFF, with tensor scales 1
  for (const std::uint8_t s : {std::uint8_t{0x7F}, std::uint8_t{0xFF}}) {
    auto a4 = make_q(lf::nvfp4, 1, 32, e2m1_one, 0x38);
    const auto b4 = make_q(lf::nvfp4, 1, 32, e2m1_one, 0x38);
    a4.scales[1] = s;
    check_case(u4, a4, b4, 0.0f, nan32, status::none);
  }
  // a NaN in an early chunk stays a NaN through the chain
  a.elements[5] = 0x7F;
  check_case(u8, a, b, 0.0f, nan32, status::none);
}

TEST_CASE("E5M2 infinities: inf * 0 and inf - inf are invalid, a lone infinity passes") {
  // E5M2: +inf 0x7C, 1.0 = 0.01111.00 = 0x3C, -1.0 = 0xBC
  auto a = make_q(lf::mxfp8_e5m2, 1, 32, 0x3C, e8m0(0));
  auto b = make_q(lf::mxfp8_e5m2, 1, 32, 0x3C, e8m0(0));
  a.elements[0] = 0x7C;
  check_case(u8, a, b, 0.0f, 0x7F800000u, status::none);   // inf * 1 -> +inf
  b.elements[0] = 0xBC;
  check_case(u8, a, b, 0.0f, 0xFF800000u, status::none);   // inf * -1 -> -inf
  b.elements[0] = 0x00;
  check_case(u8, a, b, 0.0f, nan32, status::invalid);      // inf * 0
  b.elements[0] = 0x3C;
  a.elements[1] = 0x7C;
  b.elements[1] = 0xBC;
  check_case(u8, a, b, 0.0f, nan32, status::invalid);      // +inf and -inf products
  a.elements[1] = b.elements[1] = 0x3C;
  check_case(u8, a, b, -std::numeric_limits<float>::infinity(), nan32, status::invalid);  // +inf product, -inf c
  a.elements[0] = 0x3C;
  check_case(u8, a, b, std::numeric_limits<float>::infinity(), 0x7F800000u, status::none);  // c = inf passes
}

TEST_CASE("overflow: |V| >= 2^128 is an infinity (MMA-Sim), just below stays max finite toward zero") {
  // 448 * 448 * 2^127 = 200704 * 2^127 > 2^128: +inf, overflow and inexact
  auto a = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(127));
  auto b = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(0));
  a.elements[0] = b.elements[0] = 0x7E;
  check_case(u8, a, b, 0.0f, 0x7F800000u, status::overflow | status::inexact);
  b.elements[0] = 0xFE;  // -448
  check_case(u8, a, b, 0.0f, 0xFF800000u, status::overflow | status::inexact);
  // c = max finite (2^128 - 2^104) plus 2^102 (1 * 1 * 2^102 * 2^0): t = trunc(2^(25 + 102 - 127)) = 1;
  // V = 2^128 - 2^104 + 2^102 < 2^128: toward zero max finite 0x7F7FFFFF, inexact (no overflow).
  auto a2 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(102));
  auto b2 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(0));
  a2.elements[0] = b2.elements[0] = e4m3_one;
  const float maxf = float_of(0x7F7FFFFFu);
  check_case(u8, a2, b2, maxf, 0x7F7FFFFFu, status::inexact);
  // plus 2^104 instead: V = 2^128 exactly: +inf, overflow and inexact
  a2.scales[0] = e8m0(104);
  check_case(u8, a2, b2, maxf, 0x7F800000u, status::overflow | status::inexact);
}

TEST_CASE("zeros and subnormal results") {
  // no terms: +0 even from c = -0
  const auto z = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(0));
  check_case(u8, z, z, -0.0f, 0u, status::none);
  // a subnormal c with no products passes exactly
  check_case(u8, z, z, float_of(0x80000005u), 0x80000005u, status::none);
  // 1.875 * 1.875 * 2^-75 * 2^-75 = 225 * 2^-156: X = -150, t exact; V = 225/128 * 2^-149 -> toward
  // zero 2^-149 (0x00000001), inexact and underflow
  auto a = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-75));
  auto b = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-75));
  a.elements[0] = b.elements[0] = 0x3F;  // 1.875
  check_case(u8, a, b, 0.0f, 0x00000001u, status::inexact | status::underflow);
  // 1.5 * 1 * 2^-70 * 2^-70 = 3 * 2^-141: a subnormal on the grid, exact
  a.scales[0] = b.scales[0] = e8m0(-70);
  a.elements[0] = 0x3C;  // 1.5
  b.elements[0] = e4m3_one;
  check_case(u8, a, b, 0.0f, 0x00000300u, status::none);  // 3 * 2^-141 = 768 * 2^-149
  // a product below 2^-149 with nothing else: V = -2^-254 (E8M0 2^-127 twice, -1 * 1), rounded toward
  // zero: -0 (as the spec's "V rounded into binary32"), inexact and underflow
  auto a3 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-127));
  auto b3 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-127));
  a3.elements[0] = 0xB8;
  b3.elements[0] = e4m3_one;
  check_case(u8, a3, b3, 0.0f, 0x80000000u, status::inexact | status::underflow);
  // tininess after rounding (the core's default): c = 2^-126 - 2^-149 (0x007FFFFF, X = -126) plus
  // 1.5 * 2^-150 (1.5 * 1 * 2^-75 * 2^-75, X = -150): t = trunc(1.5 * 2^(25 - 150 + 126)) = 3, exact;
  // V = 2^-126 - 2^-151. Upward: 2^-126 (0x00800000); rounded with an unbounded exponent it is 2^-126
  // too, so not tiny: inexact only. Toward zero: 0x007FFFFF, inexact and underflow.
  auto a5 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-75));
  auto b5 = make_q(lf::mxfp8_e4m3, 1, 32, 0, e8m0(-75));
  a5.elements[0] = 0x3C;  // 1.5
  b5.elements[0] = e4m3_one;
  const lf::block_scaled_unit up{32, 1, 25, lf::rounding::upward};
  check_case(up, a5, b5, float_of(0x007FFFFFu), 0x00800000u, status::inexact);
  // to nearest the same: 2^-151 is a quarter of the subnormal ulp: 2^-126, not tiny after rounding
  const lf::block_scaled_unit ne{32, 1, 25, lf::rounding::nearest_even};
  check_case(ne, a5, b5, float_of(0x007FFFFFu), 0x00800000u, status::inexact);
  check_case(u8, a5, b5, float_of(0x007FFFFFu), 0x007FFFFFu, status::inexact | status::underflow);
}

// ---- random ----------------------------------------------------------------------------------------

namespace {

/// Fills a rows x K operand: mode 0 normal, 1 log-uniform 2^-20..2^20, 2 normal with ~30% zeros (all
/// three quantized by mx_quantize), 3 random codes (elements, and scales over a wide range; NVFP4: tensor
/// scale 1 or random), 4 random codes with tiny scales (E8M0 2^-80..2^-55; NVFP4 tensor scales
/// 2^-70..2^-50), for subnormal results and underflow. specials_rate > 0 puts infinities into E5M2
/// operands (random codes only).
lf::block_quantized random_operand(const lf::block_format& f, std::size_t rows, std::size_t K, int mode,
                                   std::mt19937_64& g, double specials_rate) {
  if (mode < 3) {
    std::normal_distribution<double> nd(0.0, 1.0);
    std::uniform_real_distribution<double> ud(-20.0, 20.0), u01(0.0, 1.0);
    std::vector<float> x(rows * K);
    for (auto& v : x) {
      if (mode == 0) v = static_cast<float>(nd(g));
      else if (mode == 1) v = static_cast<float>((u01(g) < 0.5 ? -1 : 1) * std::exp2(ud(g)));
      else v = u01(g) < 0.3 ? 0.0f : static_cast<float>(nd(g) * 8);
    }
    return lf::mx_quantize(x, rows, K, f);
  }
  lf::block_quantized q;
  q.fmt = f;
  q.rows = rows;
  q.cols = K;
  const unsigned ebits = f.element.bits();
  const spec& es = element_spec(f.element);
  std::uniform_int_distribution<unsigned> code(0, (1u << ebits) - 1);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  q.elements.resize(rows * K);
  for (auto& e : q.elements) {
    unsigned c;
    do c = code(g);
    while (decode(es, c).k == kind::nan || decode(es, c).k == kind::inf);
    if (u01(g) < 0.15) c = 0;
    if (specials_rate > 0 && u01(g) < specials_rate) c = u01(g) < 0.5 ? 0x7C : 0xFC;  // E5M2 +-inf
    e = static_cast<std::uint8_t>(c);
  }
  q.scales.resize(rows * ((K + f.block - 1) / f.block));
  const bool e8 = f.scale == lf::float8_e8m0fnu;
  const int wide = std::uniform_int_distribution<int>(0, 3)(g);  // 0: anywhere in range
  for (auto& s : q.scales) {
    if (e8) {
      const int k = mode == 4   ? std::uniform_int_distribution<int>(-80, -55)(g)
                    : wide == 0 ? std::uniform_int_distribution<int>(-127, 127)(g)
                                : std::uniform_int_distribution<int>(-12, 12)(g);
      s = e8m0(k);
    } else {
      unsigned c;
      do c = std::uniform_int_distribution<unsigned>(0, 0xFF)(g);
      while ((c & 0x7F) == 0x7F);
      if (u01(g) < 0.05) c &= 0x80;  // a zero scale, either sign
      s = static_cast<std::uint8_t>(c);
    }
  }
  if (!e8 && mode == 4) q.tensor_scale = static_cast<float>(std::exp2(std::uniform_real_distribution<double>(-70, -50)(g)));
  else if (!e8 && u01(g) < 0.5) q.tensor_scale = static_cast<float>(std::exp2(std::uniform_real_distribution<double>(-12, 4)(g)) * 1.0000001);
  return q;
}

/// A random c: zeros, ordinary values, subnormals, large and tiny normals, occasionally an infinity
/// (tiny: only zeros, subnormals and tiny normals).
float random_c(std::mt19937_64& g, bool allow_inf, bool tiny = false) {
  std::uniform_int_distribution<std::uint32_t> r32;
  const std::uint32_t sign = (r32(g) & 1u) << 31, frac = r32(g) & 0x7FFFFFu;
  constexpr int tiny_kinds[] = {0, 1, 1, 3};
  switch (tiny ? tiny_kinds[r32(g) % 4] : std::uniform_int_distribution<int>(0, 11)(g)) {
    case 0: return float_of(sign);                                              // +-0
    case 1: return float_of(sign | (frac ? frac : 1u));                         // subnormal
    case 2: return float_of(sign | ((200u + r32(g) % 55u) << 23) | frac);       // large (2^73 .. 2^127)
    case 3: return float_of(sign | ((1u + r32(g) % 40u) << 23) | frac);         // tiny normal
    case 4: return allow_inf ? float_of(sign | 0x7F800000u) : 1.0f;
    default: return float_of(sign | ((110u + r32(g) % 30u) << 23) | frac);     // 2^-17 .. 2^12
  }
}

struct pair_case {
  const char* name;
  lf::block_scaled_unit u;
  lf::block_format fa, fb;
  double specials_rate;
};

/// Random dots of one (unit, format pair): M x N dots per (K, mode, seed); the library's bits and flags
/// against the model's. Returns the number of dots.
std::size_t run_pair(const pair_case& pc, int seeds, std::size_t M, std::size_t N) {
  std::size_t dots = 0, fails = 0;
  for (const std::size_t K : {16u, 32u, 64u, 100u, 256u})
    for (int mode = 0; mode < 5; ++mode)
      for (int seed = 1; seed <= seeds; ++seed) {
        std::mt19937_64 g(static_cast<std::uint64_t>(seed) * 1000003u + K * 131u + static_cast<std::uint64_t>(mode) * 7u +
                          std::hash<std::string>{}(pc.name));
        const auto a = random_operand(pc.fa, M, K, mode, g, mode >= 3 ? pc.specials_rate : 0.0);
        const auto b = random_operand(pc.fb, N, K, mode, g, mode >= 3 ? pc.specials_rate : 0.0);
        const bool tensor = a.tensor_scale != 1.0f || b.tensor_scale != 1.0f;
        for (std::size_t i = 0; i < M; ++i)
          for (std::size_t j = 0; j < N; ++j) {
            const float c = random_c(g, pc.specials_rate > 0 && !tensor, mode == 4);
            const result want = model_dot(pc.u, a, i, b, j, c);
            const got have = run_dot(pc.u, a, b, c, i, j);
            ++dots;
            const bool ok = have.bits == want.bits && have.st == want.st;
            if (!ok && ++fails > 6) continue;
            INFO(pc.name, " K ", K, " mode ", mode, " seed ", seed, " row ", i, " col ", j, " c ",
                 fmt_bits(bits_of(c)), " Ta ", a.tensor_scale, " Tb ", b.tensor_scale, ": model ",
                 fmt_bits(want.bits), " flags ", int(want.st), ", library ", fmt_bits(have.bits), " flags ",
                 int(have.st));
            CHECK(ok);
          }
      }
  INFO(pc.name, ": ", fails, " of ", dots, " dots differ");
  CHECK(fails == 0);
  return dots;
}

}  // namespace

TEST_CASE("random dots: kind::mxf8f6f4 on every MX format and mixed pairs, bits and flags") {
  const pair_case cases[] = {
      {"mxf8f6f4 e4m3", u8, lf::mxfp8_e4m3, lf::mxfp8_e4m3, 0.0},
      {"mxf8f6f4 e5m2", u8, lf::mxfp8_e5m2, lf::mxfp8_e5m2, 0.004},
      {"mxf8f6f4 e3m2", u8, lf::mxfp6_e3m2, lf::mxfp6_e3m2, 0.0},
      {"mxf8f6f4 e2m3", u8, lf::mxfp6_e2m3, lf::mxfp6_e2m3, 0.0},
      {"mxf8f6f4 e2m1", u8, lf::mxfp4, lf::mxfp4, 0.0},
      {"mxf8f6f4 e4m3 x e5m2", u8, lf::mxfp8_e4m3, lf::mxfp8_e5m2, 0.0},
      {"mxf8f6f4 e3m2 x e2m3", u8, lf::mxfp6_e3m2, lf::mxfp6_e2m3, 0.0},
      {"mxf8f6f4 e4m3 x e2m1", u8, lf::mxfp8_e4m3, lf::mxfp4, 0.0},
      {"mxf8f6f4 e2m3 x e5m2", u8, lf::mxfp6_e2m3, lf::mxfp8_e5m2, 0.0},
  };
  // 6 x 6 dots per operand pair (3 x 3 under AddressSanitizer, where the cpp_int model is slow).
  const std::size_t m = test_sanitizer::scaled<std::size_t>(6, 2);
  std::size_t dots = 0;
  for (const auto& pc : cases) dots += run_pair(pc, 2, m, m);
  CHECK(dots == 9 * 5 * 5 * 2 * m * m);  // 1800 dots a pair in release
}

TEST_CASE("random dots: kind::mxf4 (mxfp4) and kind::mxf4nvf4 (nvfp4), bits and flags") {
  const pair_case cases[] = {
      {"mxf4 mxfp4", u4, lf::mxfp4, lf::mxfp4, 0.0},
      {"mxf4nvf4 nvfp4", u4, lf::nvfp4, lf::nvfp4, 0.0},
  };
  const std::size_t m = test_sanitizer::scaled<std::size_t>(6, 2);
  for (const auto& pc : cases) CHECK(run_pair(pc, 3, m, m) == 5 * 5 * 3 * m * m);  // 2700 in release
}

TEST_CASE("random dots: other chunk sizes, groups and final roundings") {
  const pair_case cases[] = {
      {"k16 g1 F25 rz e4m3", lf::block_scaled_unit{16, 1, 25, lf::rounding::toward_zero}, lf::mxfp8_e4m3, lf::mxfp8_e4m3, 0.0},
      {"k64 g1 F25 rne e4m3", lf::block_scaled_unit{64, 1, 25, lf::rounding::nearest_even}, lf::mxfp8_e4m3, lf::mxfp8_e4m3, 0.0},
      {"k32 g1 F25 up e2m1", lf::block_scaled_unit{32, 1, 25, lf::rounding::upward}, lf::mxfp4, lf::mxfp4, 0.0},
      {"k32 g1 F25 down e3m2", lf::block_scaled_unit{32, 1, 25, lf::rounding::downward}, lf::mxfp6_e3m2, lf::mxfp6_e3m2, 0.0},
      {"k32 g1 F20 rz nvfp4", lf::block_scaled_unit{32, 1, 20, lf::rounding::toward_zero}, lf::nvfp4, lf::nvfp4, 0.0},
      {"k64 g8 F35 rz nvfp4", lf::block_scaled_unit{64, 8, 35, lf::rounding::toward_zero}, lf::nvfp4, lf::nvfp4, 0.0},
      {"k64 g16 F30 rne mxfp4", lf::block_scaled_unit{64, 16, 30, lf::rounding::nearest_even}, lf::mxfp4, lf::mxfp4, 0.0},
  };
  for (const auto& pc : cases) {
    INFO(pc.name);
    REQUIRE(pc.u.valid());
    run_pair(pc, 1, 3, 3);
  }
}

TEST_CASE("gemm: every c_ij is block_scaled_dot of row i of a and row j of b from c_ij; flags ORed") {
  std::mt19937_64 g(99);
  struct gc {
    lf::block_scaled_unit u;
    lf::block_format f;
  };
  for (const gc& k : {gc{u8, lf::mxfp8_e4m3}, gc{u4, lf::mxfp4}, gc{u4, lf::nvfp4}}) {
    const std::size_t M = 3, N = 4, K = 96;
    const auto a = random_operand(k.f, M, K, 3, g, 0.0);
    const auto bt = random_operand(k.f, N, K, 1, g, 0.0);
    std::vector<float> c(M * N);
    for (auto& v : c) v = random_c(g, false);
    const std::vector<float> c0 = c;
    status st{};
    lf::block_scaled_gemm(k.u, a, bt, c, st);
    status want_st{};
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        status s1{};
        const float d = lf::block_scaled_dot(k.u, a, i, bt, j, c0[i * N + j], s1);
        want_st = want_st | s1;
        INFO(k.f.name, " i ", i, " j ", j);
        CHECK(bits_of(c[i * N + j]) == bits_of(d));
        CHECK(bits_of(d) == model_dot(k.u, a, i, bt, j, c0[i * N + j]).bits);
      }
    CHECK(int(st) == int(want_st));
  }
}

TEST_CASE("errors: shapes, rows, units, gemm sizes and group constraints throw invalid_argument") {
  const auto a = make_q(lf::mxfp8_e4m3, 2, 32, e4m3_one, e8m0(0));
  const auto b64 = make_q(lf::mxfp8_e4m3, 2, 64, e4m3_one, e8m0(0));
  const auto b = make_q(lf::mxfp8_e4m3, 3, 32, e4m3_one, e8m0(0));
  status st{};
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u8, a, 0, b64, 0, 0.0f, st), std::invalid_argument);  // a.cols != b.cols
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u8, a, 2, b, 0, 0.0f, st), std::invalid_argument);    // ra >= a.rows
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u8, a, 0, b, 3, 0.0f, st), std::invalid_argument);    // rb >= b.rows
  CHECK_NOTHROW((void)lf::block_scaled_dot(u8, a, 1, b, 2, 0.0f, st));
  const lf::block_scaled_unit bad_k{0, 1, 25}, bad_g{32, 0, 25};
  CHECK(!bad_k.valid());
  CHECK(!bad_g.valid());
  CHECK_THROWS_AS((void)lf::block_scaled_dot(bad_k, a, 0, b, 0, 0.0f, st), std::invalid_argument);
  CHECK_THROWS_AS((void)lf::block_scaled_dot(bad_g, a, 0, b, 0, 0.0f, st), std::invalid_argument);
  std::vector<float> c(2 * 3, 0.0f), c_short(5, 0.0f);
  CHECK_NOTHROW(lf::block_scaled_gemm(u8, a, b, c, st));
  CHECK_THROWS_AS(lf::block_scaled_gemm(u8, a, b, c_short, st), std::invalid_argument);
  CHECK_THROWS_AS(lf::block_scaled_gemm(u8, a, b64, c, st), std::invalid_argument);
  CHECK_THROWS_AS(lf::block_scaled_gemm(bad_k, a, b, c, st), std::invalid_argument);
  // group > 1: elements wider than 4 bits
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u4, a, 0, b, 0, 0.0f, st), std::invalid_argument);  // E4M3
  const auto a6 = make_q(lf::mxfp6_e2m3, 1, 32, 0, e8m0(0));
  const auto a4 = make_q(lf::mxfp4, 1, 32, e2m1_one, e8m0(0));
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u4, a6, 0, a6, 0, 0.0f, st), std::invalid_argument);  // E2M3
  CHECK_THROWS_AS((void)lf::block_scaled_dot(u4, a4, 0, a6, 0, 0.0f, st), std::invalid_argument);  // b is E2M3
  std::vector<float> c1(1, 0.0f);
  CHECK_THROWS_AS(lf::block_scaled_gemm(u4, a6, a6, c1, st), std::invalid_argument);
  // group > 1 not dividing the block: 32 with NVFP4 (16), 64 with MXFP4 (32)
  const auto n4 = make_q(lf::nvfp4, 1, 64, e2m1_one, 0x38);
  const auto m4 = make_q(lf::mxfp4, 1, 64, e2m1_one, e8m0(0));
  const lf::block_scaled_unit g32{64, 32, 35}, g64{64, 64, 35};
  CHECK_THROWS_AS((void)lf::block_scaled_dot(g32, n4, 0, n4, 0, 0.0f, st), std::invalid_argument);
  CHECK_THROWS_AS((void)lf::block_scaled_dot(g64, m4, 0, m4, 0, 0.0f, st), std::invalid_argument);
  CHECK_NOTHROW((void)lf::block_scaled_dot(g32, m4, 0, m4, 0, 0.0f, st));  // 32 divides 32
  CHECK_NOTHROW((void)lf::block_scaled_dot(u4, n4, 0, n4, 0, 0.0f, st));
}
