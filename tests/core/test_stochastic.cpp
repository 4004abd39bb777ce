// Stochastic rounding (lf::rounding::stochastic, documented in core/rounding.hpp and docs/library.md):
// with D the first 32 bits of the discarded part of the significand, i.e. D = floor(f * 2^32) for
// the exact fraction f of an ulp that rounding drops, the magnitude rounds away from zero iff
// random < D; so P(up) = D / 2^32, the exact fraction truncated to 32 bits.
//
// This file computes D from the operands' exact values with Boost.Multiprecision cpp_int (exact
// integer quotients, and the exact integer square root for sqrt); it decodes and checks encodings
// with its own few lines (from the format's w, p and NaN layout), and shares no code with the
// library. For every operation that takes the random word (add, sub, mul, div, sqrt, fma,
// conversion from binary32 and binary64, conversion from int64, decimal parsing), every named
// format (the OCP MX finite-only FP4/FP6, the fnuz FP8s with their biases, IEEE-style E4M3 and E3M4
// included; not E8M0, which is unsigned with no zero) and some custom ones, on random operands with
// many subnormal results, and for the formats of at most 8 bits on every pair of finite encodings
// (add, sub, mul, div) and every encoding (sqrt), under the default policy and each single change
// to it (tininess before rounding, flush-to-zero, denormals-are-zero, saturation), it checks:
//   - random = D - 1 rounds up and random = D rounds down (for D > 0): the threshold is exact;
//   - random = 0, 2^31, 2^32 - 1, D + 1 and a random word give the "random < D" decision too;
//   - an exact result (f = 0) never rounds and raises nothing; f > 0 with D = 0 never rounds up;
//   - the flags: inexact iff f > 0; underflow iff inexact and tiny after rounding (IEEE 754-2019
//     §7.5, the default policy), decided with an unbounded exponent and the same random word;
//     overflow (§7.4) iff the chosen value exceeds max finite, then ±infinity (NaN for a format
//     without infinity: an OCP "fn" format's NaN of that sign, a fnuz format's one NaN; ±max for a
//     finite-only format, which has no NaN); a fnuz zero result is +0 (it has no -0).
// A division or square root that kept only a few bits below the rounding position plus a sticky
// bit sees D quantised (to 1/16 or 1/8 of an ulp) and fails the D - 1 / D pair: fp16 1/3 has
// D = 0x55555555 (f = 1/3), and a quantised D of 0x50000000 rounds random = D - 1 down.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
using boost::multiprecision::cpp_int;

long msb(const cpp_int& v) { return static_cast<long>(boost::multiprecision::msb(v)); }
long floor_div2(long v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

/// A format's parameters, read from its data: exponent width w, precision p, the bias, and what
/// the encodings beyond the finite numbers are:
///   ieee: the all-ones exponent is infinity/NaN (IEEE 754-2019 §3.4);
///   nan_only (OCP FP8 "fn"): finite except S.1...1.1...1, the NaN of each sign;
///   finite_only (OCP MX FP6, FP4): every encoding finite; an overflow gives +-max (overflow, inexact);
///   fnuz: every encoding finite except 1.0...0.0...0 (the one NaN, where -0 would be); no -0, so a
///   zero result is +0; an overflow that IEEE sends to infinity gives that NaN.
/// (The last two follow the library's documented choices, core/format.hpp's lf::nonfinite.)
struct params {
  enum layout { ieee, nan_only, finite_only, fnuz } kind;
  int w, p;
  long bias_;
  long bias() const { return bias_; }
  long emin() const { return 1 - bias(); }
  long emax() const { return (kind == ieee ? (1L << w) - 2 : (1L << w) - 1) - bias(); }
  u64 field_max() const { return (u64{1} << w) - 1; }
  u64 frac_max() const { return (u64{1} << (p - 1)) - 1; }
  /// max finite = M * 2^(emax - p + 1): 1.1...1 (IEEE, finite only, fnuz), 1.1...10 (nan_only:
  /// 1.1...1 is the NaN).
  cpp_int max_sig() const {
    cpp_int m = 1;  // (built in steps: GCC 12 -O3 warns falsely of an uninitialized limb in the one-liner)
    m <<= p;
    m -= kind == nan_only ? 2 : 1;
    return m;
  }
};
params of(const lf::format& f) {
  const params::layout k = f.kind == lf::nonfinite::ieee          ? params::ieee
                           : f.kind == lf::nonfinite::nan_only    ? params::nan_only
                           : f.kind == lf::nonfinite::finite_only ? params::finite_only
                                                                  : params::fnuz;
  return {k, f.exponent_bits, f.precision, f.exponent_bias};
}

/// An exact positive or negative value num / den * 2^e (den > 0), or with `root`, sqrt of that.
struct real {
  bool neg = false;
  cpp_int num, den = 1;
  long e = 0;
  bool root = false;  ///< the value is sqrt(num * 2^e) (den == 1)
  bool zero() const { return num == 0; }

  /// floor(log2 |v|)
  long floor_log2() const {
    long k = msb(num) - msb(den);  // num/den in [2^(k-1), 2^(k+1))
    const cpp_int a = k >= 0 ? num : num << -k, b = k >= 0 ? den << k : den;
    if (a < b) --k;
    return root ? floor_div2(k + e) : k + e;
  }
  /// {floor(|v| * 2^s), whether |v| * 2^s is that integer}
  std::pair<cpp_int, bool> scaled(long s) const {
    if (!root) {
      const long t = e + s;
      const cpp_int n = t >= 0 ? num << t : num, d = t >= 0 ? den : den << -t;
      return {n / d, n % d == 0};
    }
    // floor(sqrt(num * 2^t)), t = e + 2s: the integer square root of num * 2^t for t >= 0; for
    // t = -2u + r < 0 (r = 0 or 1), floor(sqrt(num * 2^r)) / 2^u, taking the floor first (dividing
    // a floor by an integer and flooring again is the floor of the quotient).
    const long t = e + 2 * s;
    if (t >= 0) {
      const cpp_int n = num << t;
      const cpp_int j = boost::multiprecision::sqrt(n);
      return {j, j * j == n};
    }
    const long r = (-t) & 1, u = (-t + r) / 2;
    const cpp_int n = num << r;
    const cpp_int j = boost::multiprecision::sqrt(n);
    const cpp_int mask = (cpp_int(1) << u) - 1;
    return {j >> u, j * j == n && (j & mask) == 0};
  }
};

/// Decoded encoding: NaN, infinity or a finite sig * 2^e.
struct decoded {
  enum { finite, infinite, nan } cls;
  bool neg;
  cpp_int sig;
  long e;
};
decoded decode(const params& t, u64 bits) {
  const int fb = t.p - 1;
  const bool neg = ((bits >> (t.w + fb)) & 1) != 0;
  const u64 E = (bits >> fb) & t.field_max(), M = bits & t.frac_max();
  if (E == t.field_max()) {
    if (t.kind == params::ieee) return {M == 0 ? decoded::infinite : decoded::nan, neg, 0, 0};
    if (t.kind == params::nan_only && M == t.frac_max()) return {decoded::nan, neg, 0, 0};
  }
  if (t.kind == params::fnuz && neg && E == 0 && M == 0) return {decoded::nan, neg, 0, 0};
  if (E == 0) return {decoded::finite, neg, cpp_int(M), t.emin() - fb};
  return {decoded::finite, neg, cpp_int(M) + (cpp_int(1) << fb), static_cast<long>(E) - t.bias() - fb};
}
real value_of(const params& t, u64 bits) {
  const decoded d = decode(t, bits);
  REQUIRE(d.cls == decoded::finite);
  real v;
  v.neg = d.neg;
  v.num = d.sig;
  v.e = d.e;
  return v;
}
/// sig * 2^e == m * 2^q
bool same_value(const cpp_int& sig, long e, const cpp_int& m, long q) {
  if (sig == 0 || m == 0) return sig == m;
  return e >= q ? (sig << (e - q)) == m : sig == (m << (q - e));
}

/// The reference decision for one exact nonzero value: everything that does not depend on the word.
struct reference {
  bool neg;
  long q;          ///< the rounding position: ulp = 2^q
  cpp_int I;       ///< floor(|v| / 2^q)
  u32 D;           ///< floor(f * 2^32), f = |v| / 2^q - I
  bool inexact;    ///< f > 0
  bool below_emin; ///< |v| < 2^emin: tininess is then decided after rounding, at the unbounded grid
  long qu;
  cpp_int Iu;
  u32 Du;
};
reference prepare(const params& t, const real& v) {
  reference r{};
  r.neg = v.neg;
  const long E = v.floor_log2();
  r.q = std::max(E, t.emin()) - (t.p - 1);
  const auto [J, exact] = v.scaled(32 - r.q);
  r.I = J >> 32;
  r.D = static_cast<u32>(J & 0xFFFFFFFFu);
  r.inexact = r.D != 0 || !exact;
  r.below_emin = E < t.emin();
  if (r.below_emin) {
    r.qu = E - (t.p - 1);
    const auto [Ju, exact_u] = v.scaled(32 - r.qu);
    r.Iu = Ju >> 32;
    r.Du = static_cast<u32>(Ju & 0xFFFFFFFFu);
  }
  return r;
}

struct outcome {
  u64 bits;
  lf::status st;
};

/// What happened over a test case, to show it exercised what it claims.
struct tally {
  long checks = 0, operands = 0, exact = 0, d_zero = 0, subnormal = 0, overflow = 0, failures = 0;
};

/// Checks the library's result for word `random` against the reference, under the policy `pol` (its
/// result-side parts: tininess before or after rounding, flush-to-zero, saturation; a caller that
/// tests denormals-are-zero hands the reference the operands read as zeros).
template <class Run, class Describe>
void check_word(const params& t, const reference& r, u32 random, Run&& run, Describe&& describe, tally& c,
                const lf::policy& pol = {}) {
  ++c.checks;
  const bool up = random < r.D;
  cpp_int R = r.I + (up ? 1 : 0);
  // overflow: R * 2^q > max_sig * 2^qm, qm = emax - p + 1
  const long qm = t.emax() - (t.p - 1);
  const bool over = r.q <= qm ? R > (t.max_sig() << (qm - r.q)) : (R << (r.q - qm)) > t.max_sig();
  bool tiny = false;
  if (pol.tininess == lf::tininess::before_rounding) {
    tiny = r.below_emin;  // |v| < 2^emin
  } else if (r.below_emin) {
    const cpp_int Ru = r.Iu + (random < r.Du ? 1 : 0);
    tiny = Ru < (cpp_int(1) << (t.emin() - r.qu));  // Ru * 2^qu < 2^emin (qu < emin here)
  }
  // flush-to-zero: a tiny result, exact or not, is a zero of its sign with underflow and inexact
  const bool flushed = tiny && pol.results == lf::subnormal_results::flush_to_zero;
  if (flushed) R = 0;
  const u32 want_flags = over      ? lf::to_bits(lf::status::overflow | lf::status::inexact)
                         : flushed ? lf::to_bits(lf::status::underflow | lf::status::inexact)
                                   : (r.inexact ? lf::to_bits(lf::status::inexact) : 0u) |
                                         (r.inexact && tiny ? lf::to_bits(lf::status::underflow) : 0u);
  const bool saturated = over && (pol.overflow == lf::overflow_policy::saturate || t.kind == params::finite_only);
  const outcome o = run(random);
  const decoded d = decode(t, o.bits);
  // (fnuz: its one NaN has the sign bit set whatever the result's sign, and a zero is +0)
  const bool want_neg = t.kind == params::fnuz ? (over && !saturated) || (r.neg && (over || R != 0)) : r.neg;
  bool ok = lf::to_bits(o.st) == want_flags && d.neg == want_neg;
  if (over) {
    if (saturated)  // +-max
      ok = ok && d.cls == decoded::finite && same_value(d.sig, d.e, t.max_sig(), t.emax() - (t.p - 1));
    else
      ok = ok && d.cls == (t.kind == params::ieee ? decoded::infinite : decoded::nan);
    ++c.overflow;
  } else {
    ok = ok && d.cls == decoded::finite && same_value(d.sig, d.e, R, r.q);
    if (r.below_emin) ++c.subnormal;
  }
  if (!ok) {
    ++c.failures;
    if (c.failures <= 8) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "random 0x%08X, D 0x%08X (f %s): want %s, flags 0x%02X; got bits 0x%llX, flags 0x%02X",
                    random, r.D, r.inexact ? "> 0" : "= 0", over ? "overflow" : up ? "rounded up" : "rounded down",
                    want_flags, static_cast<unsigned long long>(o.bits), lf::to_bits(o.st));
      FAIL_CHECK(describe() << ": " << buf);
    }
  }
}

/// All the words for one operand: the threshold pair D - 1 / D, the extremes, and one random word.
template <class Run, class Describe>
void check_value(const params& t, const real& v, Run&& run, Describe&& describe, tally& c, std::mt19937_64& rng,
                 const lf::policy& pol = {}) {
  ++c.operands;
  const reference r = prepare(t, v);
  if (!r.inexact) ++c.exact;
  if (r.inexact && r.D == 0) ++c.d_zero;
  std::vector<u32> words{0u, 0x80000000u, 0xFFFFFFFFu, r.D, static_cast<u32>(rng())};
  if (r.D > 0) words.push_back(r.D - 1);
  if (r.D < 0xFFFFFFFFu) words.push_back(r.D + 1);
  for (u32 w : words) check_word(t, r, w, run, describe, c, pol);
}

// ---- operands ------------------------------------------------------------------------------------

/// A random finite nonzero encoding with biased exponent be (clamped to the finite range; 0 gives
/// a subnormal).
u64 make(const params& t, std::mt19937_64& rng, long be, bool neg) {
  const long top = static_cast<long>(t.kind == params::ieee ? t.field_max() - 1 : t.field_max());
  be = std::clamp(be, 0L, top);
  u64 frac = rng() & t.frac_max();
  // Sometimes few fraction bits, so that exact results and short quotients occur too.
  if ((rng() & 3) == 0) frac &= ~((u64{1} << (rng() % t.p)) - 1) & t.frac_max();
  if (be == 0 && frac == 0) frac = 1;
  if (t.kind == params::nan_only && static_cast<u64>(be) == t.field_max() && frac == t.frac_max()) frac -= 1;  // not the NaN
  return (u64{neg} << (t.w + t.p - 1)) | (static_cast<u64>(be) << (t.p - 1)) | frac;
}
long random_be(const params& t, std::mt19937_64& rng) { return static_cast<long>(rng() % (t.field_max() + 1)); }
bool coin(std::mt19937_64& rng) { return (rng() & 1) != 0; }
/// A biased exponent offset that puts a result near or below 2^emin: the result's unbiased
/// exponent lands in [emin - p - 2, emin + 1].
long subnormal_target(const params& t, std::mt19937_64& rng) {
  return t.emin() - t.p - 2 + static_cast<long>(rng() % static_cast<u64>(t.p + 4));
}

std::string hex(u64 v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

struct fmt {
  lf::format lib;
  const char* name;
};
const fmt formats[] = {
    {lf::binary16, "binary16"},
    {lf::bfloat16, "bfloat16"},
    {lf::binary32, "binary32"},
    {lf::tfloat32, "tf32"},
    {lf::float8_e4m3fn, "E4M3"},
    {lf::float8_e5m2, "E5M2"},
    {lf::binary64, "binary64"},
    // the low-bit formats (ml_dtypes names): finite only, fnuz with their biases, IEEE-style FP8
    {lf::float4_e2m1fn, "float4_e2m1fn"},
    {lf::float6_e3m2fn, "float6_e3m2fn"},
    {lf::float6_e2m3fn, "float6_e2m3fn"},
    {lf::float8_e4m3fnuz, "float8_e4m3fnuz"},
    {lf::float8_e5m2fnuz, "float8_e5m2fnuz"},
    {lf::float8_e4m3b11fnuz, "float8_e4m3b11fnuz"},
    {lf::float8_e4m3, "float8_e4m3"},
    {lf::float8_e3m4, "float8_e3m4"},
    // custom formats: the generic (run-time) code path, both cores (p <= 24: 64-bit; above: 128-bit)
    {lf::format{2, 6, lf::nonfinite::ieee}, "e2m5 (sqrt results can be subnormal)"},
    {lf::format{6, 10, lf::nonfinite::nan_only}, "e6m9fn"},
    {lf::format{7, 24, lf::nonfinite::ieee}, "e7m23"},
    {lf::format{9, 31, lf::nonfinite::ieee}, "e9m30"},
    {lf::format{10, 53, lf::nonfinite::ieee}, "e10m52"},
};

/// 4000 (a quarter under AddressSanitizer, where the exact-rational oracle is slow).
constexpr int operands_per_case = test_sanitizer::scaled(4000, 4);

lf::env sr(u32 random, const lf::policy& pol = {}) { return lf::env{lf::rounding::stochastic, pol, random}; }

enum class op { add, sub, mul, div, sqrt, fma };
const char* op_name(op o) {
  switch (o) {
    case op::add: return "add";
    case op::sub: return "sub";
    case op::mul: return "mul";
    case op::div: return "div";
    case op::sqrt: return "sqrt";
    case op::fma: return "fma";
  }
  return "?";
}

/// Operands for o: a third of them aimed at subnormal results, some at close exponents (the
/// interesting roundings of add and fma), the rest uniform.
std::vector<u64> operands_for(op o, const params& t, std::mt19937_64& rng) {
  const long bias = t.bias();
  const int mode = static_cast<int>(rng() % 3);
  long ba = random_be(t, rng), bb = random_be(t, rng), bc = random_be(t, rng);
  switch (o) {
    case op::add:
    case op::sub:
      if (mode == 0) ba = static_cast<long>(rng() % 3), bb = static_cast<long>(rng() % 3);  // tiny sums
      if (mode == 1) bb = ba + static_cast<long>(rng() % static_cast<u64>(2 * t.p + 7)) - t.p - 3;
      break;
    case op::mul:  // (ba - bias) + (bb - bias) = target
      if (mode == 0) bb = subnormal_target(t, rng) - (ba - bias) + bias;
      if (mode == 1) bb = 2 * bias - ba + static_cast<long>(rng() % 5) - 2;  // products near 1
      break;
    case op::div:  // (ba - bias) - (bb - bias) = target
      if (mode == 0) bb = ba - subnormal_target(t, rng);
      if (mode == 1) bb = ba + static_cast<long>(rng() % 5) - 2;  // quotients near 1
      break;
    case op::sqrt:
      if (mode == 0) ba = static_cast<long>(rng() % 3);
      break;
    case op::fma:
      if (mode == 0) bb = subnormal_target(t, rng) - (ba - bias) + bias, bc = static_cast<long>(rng() % 3);
      if (mode == 1) bc = ba + bb - bias + static_cast<long>(rng() % static_cast<u64>(2 * t.p + 7)) - t.p - 3;
      break;
  }
  const bool pos = o == op::sqrt;
  return {make(t, rng, ba, !pos && coin(rng)), make(t, rng, bb, coin(rng)), make(t, rng, bc, coin(rng))};
}

real exact_result(op o, const params& t, const std::vector<u64>& x) {
  const real a = value_of(t, x[0]), b = value_of(t, x[1]), c = value_of(t, x[2]);
  auto signed_num = [](const real& v) { return v.neg ? cpp_int(-v.num) : v.num; };
  auto sum = [&](cpp_int n1, long e1, cpp_int n2, long e2) {  // n1 2^e1 + n2 2^e2
    const long m = std::min(e1, e2);
    const cpp_int s = (n1 << (e1 - m)) + (n2 << (e2 - m));
    real r;
    r.neg = s < 0;
    r.num = s < 0 ? cpp_int(-s) : s;
    r.e = m;
    return r;
  };
  real r;
  switch (o) {
    case op::add: return sum(signed_num(a), a.e, signed_num(b), b.e);
    case op::sub: return sum(signed_num(a), a.e, -signed_num(b), b.e);
    case op::mul:
      r.neg = a.neg != b.neg, r.num = a.num * b.num, r.e = a.e + b.e;
      return r;
    case op::div:
      r.neg = a.neg != b.neg, r.num = a.num, r.den = b.num, r.e = a.e - b.e;
      return r;
    case op::sqrt:
      r = a, r.root = true;
      return r;
    case op::fma: return sum(signed_num(a) * signed_num(b), a.e + b.e, signed_num(c), c.e);
  }
  return r;
}

outcome run_op(op o, const lf::format& f, const std::vector<u64>& x, u32 random, const lf::policy& pol = {}) {
  lf::status st{};
  u64 r = 0;
  const lf::env e = sr(random, pol);
  switch (o) {
    case op::add: r = lf::add(f, x[0], x[1], e, st); break;
    case op::sub: r = lf::sub(f, x[0], x[1], e, st); break;
    case op::mul: r = lf::mul(f, x[0], x[1], e, st); break;
    case op::div: r = lf::div(f, x[0], x[1], e, st); break;
    case op::sqrt: r = lf::sqrt(f, x[0], e, st); break;
    case op::fma: r = lf::fma(f, x[0], x[1], x[2], e, st); break;
  }
  return {r, st};
}

void report(const tally& c, const std::string& what) {
  MESSAGE(what << ": " << c.operands << " operands, " << c.checks << " words checked, " << c.exact
                << " exact, " << c.d_zero << " with 0 < f < 2^-32; words with results below 2^emin: "
                << c.subnormal << ", overflowing: " << c.overflow);
  CHECK_MESSAGE(c.failures == 0, what << ": " << c.failures << " wrong results");
}

void arithmetic_case(op o) {
  std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(o));
  for (const fmt& F : formats) {
    const params t = of(F.lib);
    tally c;
    for (int i = 0; i < operands_per_case; ++i) {
      const std::vector<u64> x = operands_for(o, t, rng);
      const real v = exact_result(o, t, x);
      if (v.zero()) continue;  // an exact zero (x - x) has no rounding; its sign rule is §6.3's
      check_value(
          t, v, [&](u32 w) { return run_op(o, F.lib, x, w); },
          [&] {
            std::string s = std::string(F.name) + " " + op_name(o) + "(" + hex(x[0]);
            if (o != op::sqrt) s += ", " + hex(x[1]);
            if (o == op::fma) s += ", " + hex(x[2]);
            return s + ")";
          },
          c, rng);
    }
    report(c, std::string(F.name) + " " + op_name(o));
  }
}

}  // namespace

TEST_CASE("stochastic div: round up iff random < D, D = floor(f * 2^32) of the exact quotient") {
  arithmetic_case(op::div);
}
TEST_CASE("stochastic sqrt: round up iff random < D, D = floor(f * 2^32) of the exact root") {
  arithmetic_case(op::sqrt);
}
TEST_CASE("stochastic fma: round up iff random < D") { arithmetic_case(op::fma); }
TEST_CASE("stochastic add and sub: round up iff random < D") {
  arithmetic_case(op::add);
  arithmetic_case(op::sub);
}
TEST_CASE("stochastic mul: round up iff random < D") { arithmetic_case(op::mul); }

TEST_CASE("stochastic, the low-bit formats: every pair of finite encodings (add, sub, mul, div) and every "
          "encoding (sqrt), each with the threshold words, under each policy") {
  // Every operand, not a sample: the formats of at most 8 bits that lf::nonfinite's finite_only and
  // fnuz layouts and the IEEE-style FP8 formats add (E8M0, unsigned with no zero, is not a format
  // this file's model describes), under the default policy and each single change to it: tininess
  // before rounding, flush-to-zero, denormals-are-zero (the model reads subnormal operands as zeros),
  // saturation.
  const lf::format low[] = {lf::float4_e2m1fn,   lf::float6_e3m2fn,      lf::float6_e2m3fn,
                            lf::float8_e4m3fnuz, lf::float8_e5m2fnuz,    lf::float8_e4m3b11fnuz,
                            lf::float8_e4m3,     lf::float8_e3m4};
  struct named_policy {
    const char* name;
    lf::policy pol;
  };
  const named_policy policies[] = {
      {"default", {}},
      {"tininess before rounding", {lf::tininess::before_rounding, {}, {}, {}}},
      {"flush to zero", {{}, lf::subnormal_results::flush_to_zero, {}, {}}},
      {"denormals are zero", {{}, {}, lf::subnormal_inputs::treat_as_zero, {}}},
      {"saturate", {{}, {}, {}, lf::overflow_policy::saturate}},
  };
  std::mt19937_64 rng(0x5eed1000u);
  for (const lf::format& f : low) {
    const params t = of(f);
    const u64 n = u64{1} << f.bits();
    std::vector<u64> finite;
    for (u64 a = 0; a < n; ++a)
      if (decode(t, a).cls == decoded::finite) finite.push_back(a);
    // (an operand as denormals-are-zero reads it: a subnormal is a zero of its sign; +0 in fnuz, whose
    // -0 encoding is its NaN; the sign of a zero operand only matters for exact zero results, skipped)
    const u64 sign_bit = u64{1} << (f.bits() - 1);
    auto daz = [&](u64 a) {
      const decoded d = decode(t, a);
      const bool subnormal = d.sig != 0 && (a & ~sign_bit) < (u64{1} << (t.p - 1));
      if (!subnormal) return a;
      return t.kind == params::fnuz ? u64{0} : (a & sign_bit);
    };
    for (const named_policy& np : policies) {
      // (under AddressSanitizer, where the exact-rational model is slow, the 8-bit formats take the
      // default policy only, and one pair in 8: those whose operands' indices sum to a multiple of 8,
      // so that every operand still meets an eighth of the others)
      if (test_sanitizer::under_asan && f.bits() == 8 && &np != &policies[0]) continue;
      const std::size_t pair_stride = test_sanitizer::under_asan && f.bits() == 8 ? 8 : 1;
      for (const op o : {op::add, op::sub, op::mul, op::div, op::sqrt}) {
        const bool reads_zero = np.pol.inputs == lf::subnormal_inputs::treat_as_zero;
        const std::vector<u64> seconds = o == op::sqrt ? std::vector<u64>{0} : finite;
        tally c;
        for (std::size_t ia = 0; ia < finite.size(); ++ia)
          for (std::size_t ib = 0; ib < seconds.size(); ++ib) {
            if (o != op::sqrt && (ia + ib) % pair_stride != 0) continue;
            const u64 a = finite[ia], b = seconds[ib];
            const std::vector<u64> x{a, b, 0};
            const std::vector<u64> read = reads_zero ? std::vector<u64>{daz(a), daz(b), 0} : x;
            if (o == op::div && value_of(t, read[1]).zero()) continue;  // x / 0: no rounding
            if (o == op::sqrt && decode(t, read[0]).neg && !value_of(t, read[0]).zero()) continue;  // invalid
            const real v = exact_result(o, t, read);
            if (v.zero()) continue;
            check_value(
                t, v,
                [&](u32 w) { return run_op(o, f, x, w, np.pol); },
                [&] {
                  return lf::format_name(f) + " " + op_name(o) + "(" + hex(a) + (o == op::sqrt ? "" : ", " + hex(b)) +
                         "), policy " + np.name;
                },
                c, rng, np.pol);
          }
        const char* which = pair_stride > 1 ? ", one pair of operands in 8, policy " : ", every operand, policy ";
        report(c, lf::format_name(f) + " " + op_name(o) + which + np.name);
      }
    }
  }
}

/// The same 1/3 and sqrt(2) in a constant expression, which takes the library's generic inline code
/// (and its digit-by-digit integer square root) instead of the per-format run-time instances.
constexpr u64 const_div(const lf::format& f, u64 a, u64 b, u32 w) {
  lf::status st{};
  return lf::div(f, a, b, lf::env{lf::rounding::stochastic, {}, w}, st);
}
constexpr u64 const_sqrt(const lf::format& f, u64 a, u32 w) {
  lf::status st{};
  return lf::sqrt(f, a, lf::env{lf::rounding::stochastic, {}, w}, st);
}

/// binary16 sqrt of every encoding in [1, 4) (both exponent parities), for four words, evaluated at
/// compile time: the constant-expression code of sqrt, checked below against the reference.
constexpr u32 const_words[4] = {0x0000FFFF, 0x40000000, 0x9E3779B9, 0xFFFF0000};
struct const_sqrt_table {
  outcome r[2048][4];
};
constexpr const_sqrt_table make_const_sqrt_table() {
  const_sqrt_table t{};
  for (int i = 0; i < 2048; ++i)
    for (int j = 0; j < 4; ++j) {
      lf::status st{};
      const u64 a = 0x3C00 + static_cast<u64>(i);
      const u64 bits = lf::sqrt(lf::binary16, a, lf::env{lf::rounding::stochastic, {}, const_words[j]}, st);
      t.r[i][j] = outcome{bits, st};
    }
  return t;
}

TEST_CASE("stochastic: fp16 1/3 and sqrt(2), worked by hand") {
  // 1/3 = 0x1.555...p-2: fp16 keeps 1.0101010101b, the discarded fraction of an ulp is 1/3 exactly,
  // so D = floor(2^32 / 3) = 0x55555555. 0x3555 is 0.33325195 (down), 0x3556 0.33349609 (up).
  lf::status st{};
  CHECK(lf::div(lf::binary16, 0x3C00, 0x4200, sr(0x55555554), st) == 0x3556);
  CHECK(lf::div(lf::binary16, 0x3C00, 0x4200, sr(0x55555555), st) == 0x3555);
  // sqrt(2) = 1.0110101000001001111001100110011111110011101111...b (OEIS A004539). fp16 keeps
  // 1.0110101000; the next 32 bits 0010 0111 1001 1001 1001 1111 1100 1110 are D = 0x27999FCE.
  CHECK(lf::sqrt(lf::binary16, 0x4000, sr(0x27999FCD), st) == 0x3DA9);
  CHECK(lf::sqrt(lf::binary16, 0x4000, sr(0x27999FCE), st) == 0x3DA8);
  // binary64 1/3: 53 bits 1.0101...01b, then the discarded fraction is 1/3 of an ulp again, as
  // 2^54 = 1 (mod 3) makes the pattern continue: D = 0x55555555. Up is 0x3FD5555555555556.
  CHECK(lf::div(lf::binary64, 0x3FF0000000000000, 0x4008000000000000, sr(0x55555554), st) == 0x3FD5555555555556);
  CHECK(lf::div(lf::binary64, 0x3FF0000000000000, 0x4008000000000000, sr(0x55555555), st) == 0x3FD5555555555555);
  constexpr u64 third_up = const_div(lf::binary16, 0x3C00, 0x4200, 0x55555554);
  constexpr u64 third_down = const_div(lf::binary16, 0x3C00, 0x4200, 0x55555555);
  constexpr u64 root2_up = const_sqrt(lf::binary16, 0x4000, 0x27999FCD);
  constexpr u64 root2_down = const_sqrt(lf::binary16, 0x4000, 0x27999FCE);
  CHECK(third_up == 0x3556);
  CHECK(third_down == 0x3555);
  CHECK(root2_up == 0x3DA9);
  CHECK(root2_down == 0x3DA8);
}

TEST_CASE("stochastic sqrt in a constant expression: binary16 [1, 4), round up iff random < D") {
  static constexpr const_sqrt_table table = make_const_sqrt_table();
  const params t = of(lf::binary16);
  tally c;
  for (int i = 0; i < 2048; ++i) {
    const u64 a = 0x3C00 + static_cast<u64>(i);
    real v = value_of(t, a);
    v.root = true;
    const reference r = prepare(t, v);
    ++c.operands;
    if (!r.inexact) ++c.exact;
    for (int j = 0; j < 4; ++j)
      check_word(
          t, r, const_words[j], [&](u32) { return table.r[i][j]; },
          [&] { return "constexpr binary16 sqrt(" + hex(a) + ")"; }, c);
  }
  report(c, "constexpr binary16 sqrt");
}

TEST_CASE("stochastic conversions from binary32 and binary64 and int64: round up iff random < D") {
  std::mt19937_64 rng(0xc0417e27);
  const struct {
    lf::format f;
    const char* name;
  } sources[] = {{lf::binary32, "binary32"}, {lf::binary64, "binary64"}};
  for (const auto& S : sources) {
    const params s = of(S.f);
    for (const fmt& F : formats) {
      const params t = of(F.lib);
      tally c;
      for (int i = 0; i < operands_per_case; ++i) {
        // an exponent in the target's range, its subnormals, and a little beyond both ends
        const long lo = t.emin() - t.p - 3, hi = t.emax() + 2;
        const long ue = lo + static_cast<long>(rng() % static_cast<u64>(hi - lo + 1));
        u64 a = make(s, rng, std::clamp(ue, s.emin() - 1, s.emax()) + s.bias(), coin(rng));
        // One in eight: the 33 source bits just below the target's last place (at its precision)
        // zero and the source's last bit set, so that a normal result has 0 < f < 2^-32, D = 0.
        const int k = s.p - t.p - 33;
        if (i % 8 == 0 && k >= 0) a = (a & ~(((u64{1} << 33) - 1) << k)) | 1;
        check_value(
            t, value_of(s, a),
            [&](u32 w) {
              lf::status st{};
              const u64 r = lf::convert(F.lib, S.f, a, sr(w), st);
              return outcome{r, st};
            },
            [&] { return std::string(S.name) + " " + hex(a) + " -> " + F.name; }, c, rng);
      }
      report(c, std::string(S.name) + " -> " + F.name);
    }
  }
  for (const fmt& F : formats) {
    const params t = of(F.lib);
    tally c;
    for (int i = 0; i < operands_per_case; ++i) {
      const u64 m = rng() >> (rng() % 64);
      const std::int64_t v = coin(rng) ? static_cast<std::int64_t>(m) : -static_cast<std::int64_t>(m >> 1);
      if (v == 0) continue;
      real x;
      x.neg = v < 0;
      x.num = v < 0 ? cpp_int(-cpp_int(v)) : cpp_int(v);
      check_value(
          t, x,
          [&](u32 w) {
            lf::status st{};
            const u64 r = lf::from_int(F.lib, v, sr(w), st);
            return outcome{r, st};
          },
          [&] { return "int64 " + std::to_string(v) + " -> " + F.name; }, c, rng);
    }
    report(c, std::string("int64 -> ") + F.name);
  }
}

TEST_CASE("stochastic decimal parsing: round up iff random < D") {
  std::mt19937_64 rng(0xdec1a1);
  for (const fmt& F : formats) {
    const params t = of(F.lib);
    tally c;
    for (int i = 0; i < operands_per_case / 3; ++i) {
      // N * 10^k with N of 1 to 30 digits, aimed at 2^[emin - p - 3, emax + 1]
      const int nd = 1 + static_cast<int>(rng() % 30);
      std::string digits;
      for (int j = 0; j < nd; ++j) digits += static_cast<char>('0' + (j == 0 ? 1 + rng() % 9 : rng() % 10));
      const long lo = t.emin() - t.p - 3, hi = t.emax() + 1;
      const long e2 = lo + static_cast<long>(rng() % static_cast<u64>(hi - lo + 1));
      const long k = static_cast<long>(std::floor(static_cast<double>(e2) * 0.30102999566398120)) - (nd - 1);
      const bool neg = coin(rng);
      const std::string text = (neg ? "-" : "") + digits + "e" + std::to_string(k);
      real x;
      x.neg = neg;
      x.num = cpp_int(digits);
      cpp_int p5 = 1;
      for (long j = 0; j < (k < 0 ? -k : k); ++j) p5 *= 5;
      if (k >= 0) x.num *= p5;
      else x.den = p5;
      x.e = k;
      check_value(
          t, x,
          [&](u32 w) {
            lf::status st{};
            const auto r = lf::parse(F.lib, text, sr(w), &st);
            REQUIRE(r);
            return outcome{r.value, st};
          },
          [&] { return "\"" + text + "\" -> " + std::string(F.name); }, c, rng);
    }
    report(c, std::string("decimal -> ") + F.name);
  }
}
