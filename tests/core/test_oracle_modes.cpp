// What the hardware cannot check, checked against the exact-rational oracle (tests/support/oracle.hpp,
// Boost.Multiprecision; it shares no code with the library):
//  - binary32 + - * / sqrt under the two directions x86 lacks: roundTiesToAway (IEEE 754-2019
//    §4.3.1) and round-to-odd;
//  - fusedMultiplyAdd in every named format (binary16, bfloat16, binary32, binary64, tf32,
//    OCP E4M3, OCP E5M2) under every deterministic direction. fma is the operation where a wider
//    intermediate does not make double rounding innocuous (Figueroa, "When is double rounding
//    innocuous?", ACM SIGNUM Newsletter 30(3), 1995, covers + - * / sqrt only), so each format
//    needs the core's own single rounding.
//
// The cases are seeded (std::mt19937_64, fixed seeds) and edge-biased the same way for every
// format: zeros, subnormals, min normal, max finite, infinities, NaNs (quiet and signaling where
// the format has them), values near powers of two, close exponents for cancellation, addends close
// to -(a*b), products near the overflow and underflow thresholds. Result bits and the five flags
// must agree exactly; a coverage count makes sure the delicate regions are actually reached.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "../support/oracle.hpp"
#include "../support/sanitizer.hpp"

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;

lf::rounding to_lf(oracle::mode m) {
  switch (m) {
    case oracle::mode::nearest_even: return lf::rounding::nearest_even;
    case oracle::mode::nearest_away: return lf::rounding::nearest_away;
    case oracle::mode::toward_zero: return lf::rounding::toward_zero;
    case oracle::mode::upward: return lf::rounding::upward;
    case oracle::mode::downward: return lf::rounding::downward;
    case oracle::mode::odd: return lf::rounding::odd;
  }
  return lf::rounding::stochastic;  // unreachable; makes a mapping slip fail loudly
}

/// A format under test: the library's description and the oracle's, written independently.
struct format_pair {
  const char* name;
  lf::format lib;
  oracle::target ref;
};
const format_pair formats[] = {
    {"binary16", lf::binary16, oracle::binary16}, {"bfloat16", lf::bfloat16, oracle::bfloat16},
    {"binary32", lf::binary32, oracle::binary32}, {"binary64", lf::binary64, oracle::binary64},
    {"tf32", lf::tfloat32, oracle::tf32},         {"e4m3", lf::float8_e4m3fn, oracle::e4m3},
    {"e5m2", lf::float8_e5m2, oracle::e5m2},
};

// ---- an edge-biased generator for any format (it only proposes operands; it checks nothing) ----

class edge_gen {
 public:
  edge_gen(u64 seed, const oracle::target& t) : rng_(seed), t_(t) {}

  u64 next() { return rng_(); }
  long in(long lo, long hi) { return lo + static_cast<long>(next() % static_cast<u64>(hi - lo + 1)); }
  bool chance(int percent) { return static_cast<int>(next() % 100) < percent; }

  int fraction_bits() const { return t_.p - 1; }
  /// Largest biased exponent field of a finite value.
  long max_finite_field() const {
    return static_cast<long>(t_.exp_field_max()) - (t_.nan_only ? 0 : 1);
  }
  u64 sign() { return (next() & 1) ? t_.sign_mask() : 0; }

  u64 fraction() {
    const int fb = fraction_bits();
    const u64 all = t_.frac_mask();
    switch (next() % 6) {
      case 0: return next() & all;
      case 1: return ((u64{1} << in(0, fb - 1)) | (u64{1} << in(0, fb - 1))) & all;
      case 2: return all >> in(0, fb - 1);
      case 3: return (all << in(0, fb - 1)) & all;
      case 4: return static_cast<u64>(in(0, 3)) & all;
      default: return all - (static_cast<u64>(in(0, 3)) & all);
    }
  }

  /// A finite encoding with the given biased exponent field (clamped) and a random sign.
  u64 with_field(long field) {
    field = field < 0 ? 0 : field > max_finite_field() ? max_finite_field() : field;
    u64 f = fraction();
    if (t_.nan_only && field == static_cast<long>(t_.exp_field_max()) && f == t_.frac_mask()) --f;  // not the NaN
    return sign() | (static_cast<u64>(field) << fraction_bits()) | f;
  }

  u64 any() {
    const u64 max_finite = t_.top_bits() - 1;
    const u64 min_normal = u64{1} << fraction_bits();
    const u64 one = static_cast<u64>(t_.bias()) << fraction_bits();
    u64 specials[16] = {0, 1, min_normal - 1, min_normal, max_finite, max_finite - 1, one, one + 1, one - 1,
                        t_.top_bits(), 0, 0, 0, 0, 0, 0};  // top_bits: infinity, or the NaN (nan_only)
    int n = 10;
    if (!t_.nan_only) {
      specials[n++] = t_.top_bits() | t_.quiet_bit();                             // quiet NaN
      specials[n++] = t_.top_bits() | t_.quiet_bit() | (t_.frac_mask() >> 1);    // quiet NaN, payload
      if (t_.p >= 3) specials[n++] = t_.top_bits() | 1;                          // signaling NaN
      if (t_.p >= 4) specials[n++] = t_.top_bits() | (t_.quiet_bit() >> 1) | 1;  // signaling NaN, payload
    }
    switch (next() % 10) {
      case 0: return specials[next() % static_cast<u64>(n)] | sign();
      case 1: return sign() | (next() & t_.frac_mask());  // subnormal (or zero)
      case 2: return with_field(in(1, 3));
      case 3: return with_field(max_finite_field() - in(0, 2));
      case 4:
      case 5: return with_field(in(0, max_finite_field()));
      default: return next() & t_.mask();
    }
  }

  u64 finite() {
    for (;;) {
      const u64 x = any();
      if (!oracle::decode(t_, x).nan && !oracle::decode(t_, x).value.is_inf()) return x;
    }
  }

  /// A neighbour of x a few encodings away, same sign, still finite.
  u64 nudge(u64 x) {
    const u64 mag = x & ~t_.sign_mask() & t_.mask();
    const long long m = static_cast<long long>(mag) + in(-3, 3);
    if (m < 0 || static_cast<u64>(m) >= t_.top_bits()) return x;
    return (x & t_.sign_mask()) | static_cast<u64>(m);
  }

  long field_of(u64 x) const { return static_cast<long>((x >> fraction_bits()) & t_.exp_field_max()); }

 private:
  std::mt19937_64 rng_;
  oracle::target t_;
};

struct triple {
  u64 a, b, c;
};

/// Two operands for + - (close exponents, near-negatives, sticky gaps) or * / (exponents whose
/// sum / difference lands near the overflow threshold or in the subnormal range).
triple make_pair_for(char op, edge_gen& g, const oracle::target& t) {
  const long bias = t.bias(), top = g.max_finite_field();
  u64 a = g.any(), b = g.any();
  switch (op) {
    case '+':
    case '-':
      switch (g.next() % 6) {
        case 0:
        case 1: b = g.with_field(g.field_of(a) + g.in(-2, 2)); break;
        case 2: b = g.nudge(a) ^ (op == '+' ? t.sign_mask() : 0); break;
        case 3: b = g.with_field(g.field_of(a) - g.in(t.p - 2, t.p + 3)); break;
        default: break;
      }
      break;
    case '*':
      if (g.chance(25)) {
        const long fa = g.in(bias, top);
        a = g.with_field(fa);
        b = g.with_field(top + bias - fa + g.in(-1, 2));
      } else if (g.chance(40)) {
        const long fa = g.in(1, top);
        a = g.with_field(fa);
        b = g.with_field(bias - fa + g.in(-t.p - 1, 2));
      }
      break;
    case '/':
      if (g.chance(25)) {
        const long fb = g.in(0, bias);
        a = g.with_field(fb + top - bias + g.in(-1, 2));
        b = g.with_field(fb);
      } else if (g.chance(40)) {
        const long fb = g.in(bias, top);
        a = g.with_field(fb - bias + g.in(-t.p - 1, 2));
        b = g.with_field(fb);
      } else if (g.chance(20)) {
        b = g.nudge(a);
      }
      break;
    default: break;
  }
  return {a, b, 0};
}

/// fma triples: c near -(a*b) (cancellation; the oracle rounds the product to propose it),
/// c far below the product (sticky), c near the product's exponent, tiny c, arbitrary c.
triple make_fma_triple(edge_gen& g, const oracle::target& t) {
  const triple m = make_pair_for('*', g, t);
  u64 c = g.any();
  switch (g.next() % 6) {
    case 0:
    case 1: {
      const oracle::result p = oracle::mul(t, m.a, m.b, oracle::mode::nearest_even);
      if (!oracle::is_nan(t, p.bits) && !oracle::decode(t, p.bits).value.is_inf())
        c = g.nudge(p.bits ^ t.sign_mask());
      break;
    }
    case 2: {
      const oracle::result p = oracle::mul(t, m.a, m.b, oracle::mode::toward_zero);
      c = g.with_field(g.field_of(p.bits) - g.in(t.p, 2 * t.p + 4));
      break;
    }
    case 3: {
      const oracle::result p = oracle::mul(t, m.a, m.b, oracle::mode::toward_zero);
      c = g.with_field(g.field_of(p.bits) + g.in(-2, 2));
      break;
    }
    case 4: c = g.with_field(g.in(0, 2)); break;
    default: break;
  }
  return {m.a, m.b, c};
}

struct tally {
  long long checked = 0, mismatches = 0;
  std::array<long long, 5> raised{};  // oracle flags, bit order inexact .. invalid
  long long exact_results = 0;
};

void record(tally& s, const oracle::result& ref, u64 lib_bits, lf::status lib_st, const std::string& what) {
  ++s.checked;
  for (int f = 0; f < 5; ++f) s.raised[static_cast<std::size_t>(f)] += (ref.flags >> f) & 1;
  if (ref.flags == 0) ++s.exact_results;
  if (ref.bits != lib_bits || ref.flags != lf::to_bits(lib_st)) {
    if (++s.mismatches <= 8)
      FAIL_CHECK(what << "  oracle " << oracle::hex(ref.bits, 64) << " flags " << int{ref.flags} << ", libfloat "
                      << oracle::hex(lib_bits, 64) << " flags " << int{lf::to_bits(lib_st)});
  }
}

std::string hex3(const oracle::target& t, const triple& x, int n) {
  std::string s = "a=" + oracle::hex(x.a, t.bits);
  if (n > 1) s += " b=" + oracle::hex(x.b, t.bits);
  if (n > 2) s += " c=" + oracle::hex(x.c, t.bits);
  return s;
}

/// The coverage a sample must reach: counts of raised flags that prove the generator visited the
/// rounding boundaries (a weak generator would make the comparison pass without meaning much).
void check_coverage(const tally& s, const std::string& what, std::uint8_t must_see, long long at_least) {
  static constexpr const char* names[] = {"inexact", "underflow", "overflow", "divide_by_zero", "invalid"};
  for (int f = 0; f < 5; ++f) {
    if (!((must_see >> f) & 1)) continue;
    INFO(what << ": the oracle raised " << std::string(names[f]) << " in " << s.raised[static_cast<std::size_t>(f)]
              << " of " << s.checked << " cases");
    CHECK(s.raised[static_cast<std::size_t>(f)] >= at_least);
  }
  INFO(what << ": " << s.exact_results << " exact results");
  CHECK(s.exact_results >= at_least);
}

// Case counts. An unoptimised build (the dev preset: Debug with sanitizers, where Boost's cpp_int is
// ~20x slower) runs a quarter of them so that the quick label stays quick there too.
#ifdef __OPTIMIZE__
constexpr int scale = 4;
#else
constexpr int scale = 1;
#endif

constexpr oracle::mode hardware_lacks[] = {oracle::mode::nearest_away, oracle::mode::odd};
constexpr int binary32_cases_per_op_and_mode = 5'000 * scale;  // 5 ops x 2 modes: 200k cases (optimised)

void check_binary32_op(char op, u64 seed) {
  const oracle::target& t = oracle::binary32;
  const lf::format F = lf::binary32;
  tally s;
  for (const oracle::mode m : hardware_lacks) {
    edge_gen g(seed + static_cast<u64>(m), t);
    const lf::env e{to_lf(m)};
    for (int i = 0; i < binary32_cases_per_op_and_mode; ++i) {
      triple x = make_pair_for(op == 's' ? '*' : op, g, t);
      lf::status st{};
      oracle::result ref{};
      u64 got = 0;
      switch (op) {
        case '+': ref = oracle::add(t, x.a, x.b, m); got = lf::add(F, x.a, x.b, e, st); break;
        case '-': ref = oracle::sub(t, x.a, x.b, m); got = lf::sub(F, x.a, x.b, e, st); break;
        case '*': ref = oracle::mul(t, x.a, x.b, m); got = lf::mul(F, x.a, x.b, e, st); break;
        case '/': ref = oracle::div(t, x.a, x.b, m); got = lf::div(F, x.a, x.b, e, st); break;
        default:
          if (g.chance(70)) x.a &= ~t.sign_mask();  // mostly non-negative radicands
          ref = oracle::sqrt(t, x.a, m);
          got = lf::sqrt(F, x.a, e, st);
          break;
      }
      record(s, ref, got, st,
             std::string("binary32 ") + (op == 's' ? "sqrt" : std::string(1, op)) + " " + oracle::mode_name(m) + " " +
                 hex3(t, x, op == 's' ? 1 : 2));
    }
  }
  MESSAGE("binary32 " << (op == 's' ? std::string("sqrt") : std::string(1, op)) << " in nearest_away and odd: "
                      << s.checked << " cases, " << s.mismatches << " mismatches");
  CHECK(s.mismatches == 0);
  // A sum is never tiny and inexact (subnormals make tiny sums exact), so + and - cannot underflow;
  // sqrt can neither underflow nor overflow.
  const std::uint8_t must = op == 's' ? 0x11 : op == '/' ? 0x1F : op == '*' ? 0x17 : 0x15;
  check_coverage(s, std::string("binary32 ") + op, must, 20 * scale);
}

/// fma triples per format and direction; binary64 costs the oracle most (wide cpp_ints). A quarter
/// again under AddressSanitizer, whose allocator makes every cpp_int slower still.
int fma_cases(const format_pair& f) {
  return test_sanitizer::scaled(f.ref.p == 53 ? 6'250 * scale : 7'500 * scale, 4);
}

}  // namespace

TEST_CASE("binary32 add in nearest_away and odd matches the exact-rational oracle") {
  check_binary32_op('+', 0xA11CE000);
}
TEST_CASE("binary32 sub in nearest_away and odd matches the exact-rational oracle") {
  check_binary32_op('-', 0xA11CE100);
}
TEST_CASE("binary32 mul in nearest_away and odd matches the exact-rational oracle") {
  check_binary32_op('*', 0xA11CE200);
}
TEST_CASE("binary32 div in nearest_away and odd matches the exact-rational oracle") {
  check_binary32_op('/', 0xA11CE300);
}
TEST_CASE("binary32 sqrt in nearest_away and odd matches the exact-rational oracle") {
  check_binary32_op('s', 0xA11CE400);
}

TEST_CASE("fma in every named format and every deterministic rounding matches the exact-rational oracle") {
  long long total = 0;
  for (const auto& f : formats) {
    tally s;
    for (const oracle::mode m : oracle::all_modes) {
      edge_gen g(0xF3A0000 + 16 * static_cast<u64>(&f - formats) + static_cast<u64>(m), f.ref);
      const lf::env e{to_lf(m)};
      for (int i = 0; i < fma_cases(f); ++i) {
        const triple x = make_fma_triple(g, f.ref);
        lf::status st{};
        const u64 got = lf::fma(f.lib, x.a, x.b, x.c, e, st);
        record(s, oracle::fma(f.ref, x.a, x.b, x.c, m), got, st,
               std::string("fma ") + f.name + " " + oracle::mode_name(m) + " " + hex3(f.ref, x, 3));
      }
    }
    MESSAGE("fma " << std::string(f.name) << ": " << s.checked << " cases (" << fma_cases(f) << " per direction x 6), "
                   << s.mismatches << " mismatches");
    CHECK(s.mismatches == 0);
    // A format without infinity or signaling NaNs (E4M3) has no invalid fma: there is no inf * 0.
    check_coverage(s, std::string("fma ") + f.name, f.ref.nan_only ? 0x07 : 0x17, 20 * scale);
    total += s.checked;
  }
  MESSAGE("fma, all formats: " << total << " cases");
}
