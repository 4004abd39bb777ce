// The low-bit format kinds: OCP MX FP4/FP6 (finite only), the fnuz FP8 formats,
// ml_dtypes' IEEE-style float8_e4m3 and float8_e3m4, and the exponent-only E8M0 scale, checked
// exhaustively against the exact-rational oracle (tests/support/oracle.hpp, no libfloat code):
//
//   every encoding     class, exact value (via binary64 and as exact decimal text), conversion to
//                      binary64 and back, sqrt, roundToIntegral(Exact), nextUp/nextDown, neg/abs
//   every pair         add, sub, mul, div, rem
//   every triple       fma (4- and 6-bit formats); a seeded sample of 200k triples (8-bit formats)
//   conversions        into each other and into binary16/bfloat16/binary32/E4M3/E5M2 (every
//                      encoding), from every binary16 encoding, from binary32 values at every rounding
//                      boundary of the target (values, midpoints, one binary32 ulp either side,
//                      overflow thresholds, tiny values, NaNs, infinities) and random ones
//   decimal text       parse of the exact decimal text of every value and of every midpoint
//
// everything rounded in every deterministic mode under five policies: IEEE default, tininess
// before rounding, DAZ, FTZ and saturation (the per-encoding, conversion and parse tests add two
// combinations); result bits and flags. Arithmetic is checked through both entry points: the
// run-time format (lf::add(format, ...)) and the typed lf::fp<F> (lf::add(fp, fp, env), and the
// operators in nearest_even), which instantiate the core separately. Then literals derived by hand
// from the specifications (not from the oracle), lf::format_by_name and std::numeric_limits.
//
// The oracle's work per operand set (decode, exact arithmetic) is done once (oracle::prepare_*);
// only the final rounding runs per mode and policy (oracle::finish).
#include "exhaustive_common.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using ex::collector;
using oracle::cpp_int;
using u64 = std::uint64_t;

// ---- the formats, the modes, the policies ------------------------------------------------------

enum class bop : std::uint8_t { add, sub, mul, div, rem };
constexpr bop bops[] = {bop::add, bop::sub, bop::mul, bop::div, bop::rem};

/// The typed API (lf::fp<F>, the format a constant: its own instantiation of the core), per format.
struct typed_api {
  u64 (*binary)(bop, u64, u64, const lf::env&, lf::status&);  ///< lf::add(fp<F>, fp<F>, env, &st) ...
  u64 (*op)(bop, u64, u64);                                    ///< operator+ - * / (nearest_even, IEEE)
  u64 (*fma)(u64, u64, u64, const lf::env&, lf::status&);
  u64 (*sqrt)(u64, const lf::env&, lf::status&);
};

template <lf::format F>
constexpr typed_api typed_api_of() {
  using T = lf::fp<F>;
  using S = typename T::storage_type;
  typed_api t{};
  t.binary = [](bop o, u64 a, u64 b, const lf::env& e, lf::status& st) -> u64 {
    const T x = T::from_bits(static_cast<S>(a)), y = T::from_bits(static_cast<S>(b));
    switch (o) {
      case bop::add: return lf::add(x, y, e, &st).bits();
      case bop::sub: return lf::sub(x, y, e, &st).bits();
      case bop::mul: return lf::mul(x, y, e, &st).bits();
      case bop::div: return lf::div(x, y, e, &st).bits();
      case bop::rem: return lf::rem(x, y, e, &st).bits();
    }
    return 0;
  };
  t.op = [](bop o, u64 a, u64 b) -> u64 {
    const T x = T::from_bits(static_cast<S>(a)), y = T::from_bits(static_cast<S>(b));
    switch (o) {
      case bop::add: return (x + y).bits();
      case bop::sub: return (x - y).bits();
      case bop::mul: return (x * y).bits();
      case bop::div: return (x / y).bits();
      case bop::rem: break;
    }
    return ~u64{0};
  };
  t.fma = [](u64 a, u64 b, u64 c, const lf::env& e, lf::status& st) -> u64 {
    return lf::fma(T::from_bits(static_cast<S>(a)), T::from_bits(static_cast<S>(b)), T::from_bits(static_cast<S>(c)), e,
                   &st)
        .bits();
  };
  t.sqrt = [](u64 a, const lf::env& e, lf::status& st) -> u64 {
    return lf::sqrt(T::from_bits(static_cast<S>(a)), e, &st).bits();
  };
  return t;
}

struct low_fmt {
  const char* name;
  lf::format lib;
  oracle::target ora;
  typed_api typed;
  u64 count() const { return u64{1} << ora.bits; }
};

const low_fmt formats[] = {
    {"float4_e2m1fn", lf::float4_e2m1fn, oracle::e2m1, typed_api_of<lf::float4_e2m1fn>()},
    {"float6_e3m2fn", lf::float6_e3m2fn, oracle::e3m2, typed_api_of<lf::float6_e3m2fn>()},
    {"float6_e2m3fn", lf::float6_e2m3fn, oracle::e2m3, typed_api_of<lf::float6_e2m3fn>()},
    {"float8_e4m3fnuz", lf::float8_e4m3fnuz, oracle::e4m3fnuz, typed_api_of<lf::float8_e4m3fnuz>()},
    {"float8_e5m2fnuz", lf::float8_e5m2fnuz, oracle::e5m2fnuz, typed_api_of<lf::float8_e5m2fnuz>()},
    {"float8_e4m3b11fnuz", lf::float8_e4m3b11fnuz, oracle::e4m3b11fnuz, typed_api_of<lf::float8_e4m3b11fnuz>()},
    {"float8_e4m3", lf::float8_e4m3, oracle::e4m3ieee, typed_api_of<lf::float8_e4m3>()},
    {"float8_e3m4", lf::float8_e3m4, oracle::e3m4, typed_api_of<lf::float8_e3m4>()},
    {"float8_e8m0fnu", lf::float8_e8m0fnu, oracle::e8m0, typed_api_of<lf::float8_e8m0fnu>()},
};

struct pol {
  const char* name;
  lf::policy lib;
  oracle::policy ora;
};

/// The five single policies (every pair and triple runs under these), then combinations that the
/// per-encoding and conversion tests add: FTZ with tininess before rounding (decides what is flushed),
/// and everything at once.
const pol all_policies[] = {
    {"default", lf::policy{}, oracle::policy{}},
    {"tininess_before", lf::policy{.tininess = lf::tininess::before_rounding}, oracle::policy{.tininess_before = true}},
    {"daz", lf::policy{.inputs = lf::subnormal_inputs::treat_as_zero}, oracle::policy{.denormals_are_zero = true}},
    {"ftz", lf::policy{.results = lf::subnormal_results::flush_to_zero}, oracle::policy{.flush_to_zero = true}},
    {"saturate", lf::policy{.overflow = lf::overflow_policy::saturate}, oracle::policy{.saturate = true}},
    {"ftz+tininess_before",
     lf::policy{.tininess = lf::tininess::before_rounding, .results = lf::subnormal_results::flush_to_zero},
     oracle::policy{.tininess_before = true, .flush_to_zero = true}},
    {"ftz+daz+saturate+tininess_before",
     lf::policy{lf::tininess::before_rounding, lf::subnormal_results::flush_to_zero,
                lf::subnormal_inputs::treat_as_zero, lf::overflow_policy::saturate},
     oracle::policy{true, true, true, true}},
};
const std::span<const pol> policies(all_policies, 5);

/// A collector for one format and operation; LOWBIT_KEEP=n keeps n disagreement texts (default 6).
collector make_collector(const low_fmt& f, const std::string& what) {
  collector c(std::string(f.name) + " " + what);
  if (const char* k = std::getenv("LOWBIT_KEEP")) c.keep = static_cast<std::size_t>(std::strtoul(k, nullptr, 10));
  return c;
}

std::string hx(const low_fmt& f, u64 v) { return ex::hex(v, f.ora.bits); }

/// "mode upward policy ftz: lf 0x.. flags 0x.., oracle 0x.. flags 0x.."
std::string verdict(const ex::direction& d, const pol& p, u64 got, lf::status st, const oracle::result& want, int bits) {
  return std::string(" mode ") + d.name + " policy " + p.name + ": " +
         ex::got_want(got, lf::to_bits(st), want.bits, want.flags, bits);
}

/// True for a subnormal encoding (nonzero, exponent field zero): the operands DAZ reads as zeros.
bool is_subnormal(const oracle::target& t, u64 a) {
  const oracle::operand o = oracle::decode(t, a);
  return !o.nan && o.value.is_finite_nonzero() && oracle::decode(t, a, true).value.is_zero();
}

/// The value of a finite encoding as a double (every value of these formats is one).
double to_double(const oracle::exact& x) {
  if (x.is_inf()) return x.neg ? -INFINITY : INFINITY;
  if (x.is_zero()) return x.neg ? -0.0 : 0.0;
  const double m = std::ldexp(static_cast<double>(x.num) / static_cast<double>(x.den), static_cast<int>(x.exp));
  return x.neg ? -m : m;
}

/// Exact positional decimal text of a dyadic value ("-0", "6", "0.0625", "-1.5").
std::string decimal_text(const oracle::exact& x) {
  if (x.is_zero()) return x.neg ? "-0" : "0";
  REQUIRE(x.den == 1);
  std::string s;
  if (x.exp >= 0) {
    s = cpp_int(x.num << static_cast<unsigned>(x.exp)).str();
  } else {
    const unsigned k = static_cast<unsigned>(-x.exp);  // num / 2^k = num * 5^k / 10^k
    std::string digits = cpp_int(x.num * boost::multiprecision::pow(cpp_int(5), k)).str();
    if (digits.size() <= k) digits.insert(0, k + 1 - digits.size(), '0');
    s = digits.substr(0, digits.size() - k) + "." + digits.substr(digits.size() - k);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return x.neg ? "-" + s : s;
}

/// The exact midpoint of two dyadic values.
oracle::exact midpoint(const oracle::exact& a, const oracle::exact& b) {
  oracle::exact s = a.is_zero() ? b : b.is_zero() ? a : oracle::detail::exact_add(a, b);
  if (s.is_zero()) return s;
  s.exp -= 1;
  return s;
}

/// Every non-NaN, non-infinite value of the format (one per value: +0 stands for both zeros),
/// ascending, with its encoding.
struct value_list {
  std::vector<oracle::exact> v;
  std::vector<u64> enc;
  explicit value_list(const oracle::target& t) {
    std::vector<std::pair<double, u64>> tmp;
    for (u64 a = 0; a < (u64{1} << t.bits); ++a) {
      const oracle::operand o = oracle::decode(t, a);
      if (o.nan || o.value.is_inf()) continue;
      if (o.value.is_zero() && o.neg) continue;
      tmp.emplace_back(to_double(o.value), a);
    }
    std::sort(tmp.begin(), tmp.end());
    for (const auto& [d, a] : tmp) {
      v.push_back(oracle::decode(t, a).value);
      enc.push_back(a);
    }
  }
  /// The smallest positive value (the min subnormal; 2^emin where there are none).
  const oracle::exact& smallest_positive() const {
    for (const oracle::exact& x : v)
      if (x.is_finite_nonzero() && !x.neg) return x;
    FAIL("no positive value");
    return v.front();
  }
  /// The value one step above max on the unbounded-exponent grid: max + ulp(max).
  static oracle::exact beyond_max(const oracle::target& t) {
    const oracle::exact ulp = oracle::exact::dyadic(false, cpp_int(1), t.emax - (t.p - 1));
    return oracle::detail::exact_add(oracle::decode(t, t.max_bits()).value, ulp);
  }
};

// ---- library and oracle side by side: binary operations -----------------------------------------

const char* bop_name(bop o) {
  switch (o) {
    case bop::add: return "add";
    case bop::sub: return "sub";
    case bop::mul: return "mul";
    case bop::div: return "div";
    case bop::rem: return "rem";
  }
  return "?";
}
u64 lib_bop(bop o, const lf::format& f, u64 a, u64 b, const lf::env& e, lf::status& st) {
  switch (o) {
    case bop::add: return lf::add(f, a, b, e, st);
    case bop::sub: return lf::sub(f, a, b, e, st);
    case bop::mul: return lf::mul(f, a, b, e, st);
    case bop::div: return lf::div(f, a, b, e, st);
    case bop::rem: return lf::rem(f, a, b, e, st);
  }
  return 0;
}
oracle::outcome prepare_bop(bop o, const oracle::target& t, u64 a, u64 b, bool daz) {
  switch (o) {
    case bop::add: return oracle::prepare_add(t, a, b, daz);
    case bop::sub: return oracle::prepare_sub(t, a, b, daz);
    case bop::mul: return oracle::prepare_mul(t, a, b, daz);
    case bop::div: return oracle::prepare_div(t, a, b, daz);
    case bop::rem: return oracle::prepare_rem(t, a, b, daz);
  }
  return {};
}

/// The oracle's final rounding remembered per exact value: oracle::finish of a value outcome is a
/// pure function of (value, mode, policy), and the exact results of the pairs and triples repeat
/// (a*b = b*a, a + b = b + a = a - (-b), ...), so each distinct value is rounded once per mode and
/// policy. Values whose numerator or denominator does not fit 64 bits are not remembered.
class rounding_memo {
 public:
  static constexpr std::size_t slots = std::size(ex::deterministic) * 5;  // modes x the five single policies
  struct entry {
    std::array<std::uint16_t, slots> packed{};  // bits | flags << 8 (encodings of at most 8 bits)
    std::uint64_t known = 0;                    // which slots are filled
  };

  explicit rounding_memo(const oracle::target& t) : t_(t) { REQUIRE(t.bits <= 8); }

  /// The entry for a value outcome, or null (not a value, or too wide to remember).
  entry* find(const oracle::outcome& o) {
    if (o.k != oracle::outcome::kind::value || o.extra != oracle::flag::none || !o.v.is_finite_nonzero() || o.v.tail)
      return nullptr;
    cpp_int num = o.v.num, den = o.v.den;
    long exp = o.v.exp;
    if (den == 1) {  // one spelling per dyadic value: odd numerator
      const auto tz = static_cast<long>(boost::multiprecision::lsb(num));
      num >>= static_cast<unsigned>(tz);
      exp += tz;
    }
    if (boost::multiprecision::msb(num) >= 64 || boost::multiprecision::msb(den) >= 64) return nullptr;
    const key k{static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den), exp, o.v.neg};
    return &map_[k];
  }

  /// The oracle's result in slot (mode i, policy j), from the entry when known.
  oracle::result get(entry* e, const oracle::outcome& o, std::size_t i, std::size_t j) {
    const std::size_t slot = i * 5 + j;
    if (e && (e->known >> slot & 1)) return {static_cast<u64>(e->packed[slot] & 0xFF), static_cast<std::uint8_t>(e->packed[slot] >> 8)};
    const oracle::result w = oracle::finish(o, t_, ex::deterministic[i].ora, policies[j].ora);
    if (e) {
      e->packed[slot] = static_cast<std::uint16_t>(w.bits | (u64{w.flags} << 8));
      e->known |= std::uint64_t{1} << slot;
    }
    return w;
  }

 private:
  struct key {
    std::uint64_t num, den;
    long exp;
    bool neg;
    bool operator==(const key&) const = default;
  };
  struct hash {
    std::size_t operator()(const key& k) const {
      std::uint64_t h = k.num * 0x9E3779B97F4A7C15u;
      h ^= (k.den + 0x632BE59BD9B4E019u + (h << 6) + (h >> 2));
      h ^= (static_cast<std::uint64_t>(k.exp) * 0xBF58476D1CE4E5B9u) + (k.neg ? 0x94D049BB133111EBu : 0);
      return static_cast<std::size_t>(h ^ (h >> 31));
    }
  };
  const oracle::target& t_;
  std::unordered_map<key, entry, hash> map_;
};

/// One operand set: the oracle prepared once for the plain reading and (only when some operand
/// is subnormal) once for DAZ, then every mode x policy finished (through the memo) and compared
/// with the library. `lib` is the run-time-format entry point, `typed` the lf::fp<F> one (checked
/// the same way), `op` (may be nullptr) the typed operator, checked in nearest_even under the
/// default policy (it returns nullopt where there is none).
template <typename Lib, typename Typed, typename Op, typename Describe>
void check_all_envs(collector& c, rounding_memo& memo, const low_fmt& f, const oracle::outcome& plain,
                    const oracle::outcome* daz, Lib lib, Typed typed, Op op, Describe describe) {
  rounding_memo::entry* const plain_entry = memo.find(plain);
  rounding_memo::entry* const daz_entry = daz ? memo.find(*daz) : nullptr;
  for (std::size_t i = 0; i < std::size(ex::deterministic); ++i)
    for (std::size_t j = 0; j < policies.size(); ++j) {
      const auto& d = ex::deterministic[i];
      const pol& p = policies[j];
      const bool use_daz = p.ora.denormals_are_zero && daz;
      const oracle::result w = memo.get(use_daz ? daz_entry : plain_entry, use_daz ? *daz : plain, i, j);
      const lf::env e{d.lib, p.lib};
      lf::status st{};
      const u64 r = lib(e, st);
      c.check(r == w.bits && lf::to_bits(st) == w.flags,
              [&] { return describe() + verdict(d, p, r, st, w, f.ora.bits); });
      lf::status tst{};
      const u64 tr = typed(e, tst);
      c.check(tr == w.bits && lf::to_bits(tst) == w.flags,
              [&] { return "typed lf::fp " + describe() + verdict(d, p, tr, tst, w, f.ora.bits); });
      if constexpr (!std::is_same_v<Op, std::nullptr_t>) {
        if (d.lib == lf::rounding::nearest_even && &p == &policies[0]) {
          if (const std::optional<u64> orr = op())
            c.check(*orr == w.bits, [&] {
              return "typed operator " + describe() + " mode " + d.name + " policy " + p.name + " (bits only): lf " +
                     hx(f, *orr) + ", oracle " + hx(f, w.bits);
            });
        }
      }
    }
}

TEST_CASE("low-bit formats: every operand pair, add sub mul div rem, every mode and policy (bits and flags)") {
  for (const low_fmt& f : formats) {
    std::vector<char> sub(f.count());
    for (u64 a = 0; a < f.count(); ++a) sub[a] = is_subnormal(f.ora, a);
    rounding_memo memo(f.ora);  // shared by the five operations: their exact values overlap
    for (bop o : bops) {
      collector c = make_collector(f, bop_name(o));
      for (u64 a = 0; a < f.count() && !c.enough(); ++a)
        for (u64 b = 0; b < f.count(); ++b) {
          const oracle::outcome plain = prepare_bop(o, f.ora, a, b, false);
          std::optional<oracle::outcome> daz;
          if (sub[a] || sub[b]) daz = prepare_bop(o, f.ora, a, b, true);
          check_all_envs(
              c, memo, f, plain, daz ? &*daz : nullptr,
              [&](const lf::env& e, lf::status& st) { return lib_bop(o, f.lib, a, b, e, st); },
              [&](const lf::env& e, lf::status& st) { return f.typed.binary(o, a, b, e, st); },
              [&]() -> std::optional<u64> {
                if (o == bop::rem) return std::nullopt;  // no operator for it
                return f.typed.op(o, a, b);
              },
              [&] { return std::string(f.name) + " " + bop_name(o) + "(" + hx(f, a) + ", " + hx(f, b) + ")"; });
        }
      c.report();
    }
  }
}

// ---- fma ------------------------------------------------------------------------------------------

TEST_CASE("low-bit formats: fma over every triple (4 and 6 bits) or 200000 seeded triples (8 bits), every mode and "
          "policy") {
  for (const low_fmt& f : formats) {
    std::vector<char> sub(f.count());
    for (u64 a = 0; a < f.count(); ++a) sub[a] = is_subnormal(f.ora, a);
    collector c = make_collector(f, "fma");
    rounding_memo memo(f.ora);
    auto one = [&](u64 a, u64 b, u64 z) {
      const oracle::outcome plain = oracle::prepare_fma(f.ora, a, b, z, false);
      std::optional<oracle::outcome> daz;
      if (sub[a] || sub[b] || sub[z]) daz = oracle::prepare_fma(f.ora, a, b, z, true);
      check_all_envs(
          c, memo, f, plain, daz ? &*daz : nullptr,
          [&](const lf::env& e, lf::status& st) { return lf::fma(f.lib, a, b, z, e, st); },
          [&](const lf::env& e, lf::status& st) { return f.typed.fma(a, b, z, e, st); }, nullptr,
          [&] { return std::string(f.name) + " fma(" + hx(f, a) + ", " + hx(f, b) + ", " + hx(f, z) + ")"; });
    };
    if (f.ora.bits <= 6) {
      for (u64 a = 0; a < f.count() && !c.enough(); ++a)
        for (u64 b = 0; b < f.count(); ++b)
          for (u64 z = 0; z < f.count(); ++z) one(a, b, z);
    } else {
      // Half the triples uniform; half with c next to -(a*b) (cancellation, exact zero sums, and
      // sums that fall into the subnormal range or stay near overflow).
      std::mt19937_64 rng(0x17A1u + static_cast<unsigned>(f.ora.bits * 31 + f.ora.p));
      const u64 m = f.count() - 1;
      for (int i = 0; i < 200000 && !c.enough(); ++i) {
        const u64 a = rng() & m, b = rng() & m;
        u64 z = rng() & m;
        if (i & 1) {
          // -(a*b) rounded (a*b itself where there is no sign), and its neighbours by encoding
          const u64 p = oracle::mul(f.ora, a, b, oracle::mode::nearest_even).bits;
          z = ((p ^ f.ora.sign_mask()) + (rng() % 5) - 2) & m;
        }
        one(a, b, z);
      }
    }
    c.report();
  }
}

// ---- unary: sqrt, roundToIntegral -----------------------------------------------------------------

TEST_CASE("low-bit formats: every encoding, sqrt and round_to_integral (exact and not), every mode and policy") {
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "sqrt/round_to_integral");
    rounding_memo memo(f.ora);  // (square roots carry a tail: never remembered)
    for (u64 a = 0; a < f.count(); ++a) {
      const bool sub = is_subnormal(f.ora, a);
      const oracle::outcome plain = oracle::prepare_sqrt(f.ora, a, false);
      std::optional<oracle::outcome> daz;
      if (sub) daz = oracle::prepare_sqrt(f.ora, a, true);
      check_all_envs(
          c, memo, f, plain, daz ? &*daz : nullptr,
          [&](const lf::env& e, lf::status& st) { return lf::sqrt(f.lib, a, e, st); },
          [&](const lf::env& e, lf::status& st) { return f.typed.sqrt(a, e, st); }, nullptr,
          [&] { return std::string(f.name) + " sqrt(" + hx(f, a) + ")"; });
      for (bool exact : {false, true})
        for (const auto& d : ex::deterministic)
          for (const pol& p : all_policies) {
            const oracle::result w = oracle::round_to_integral(f.ora, a, d.ora, exact, p.ora);
            lf::status st{};
            const u64 r = lf::round_to_integral(f.lib, a, lf::env{d.lib, p.lib}, exact, st);
            c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
              return std::string(f.name) + (exact ? " round_to_integral_exact(" : " round_to_integral(") + hx(f, a) +
                     ")" + verdict(d, p, r, st, w, f.ora.bits);
            });
          }
    }
    c.report();
  }
}

// ---- every encoding: class, value, decimal text, binary64 round trip --------------------------------

lf::fp_class class_oracle(const oracle::target& t, u64 a) {
  const oracle::operand o = oracle::decode(t, a);
  if (o.nan) return o.snan ? lf::fp_class::signaling_nan : lf::fp_class::quiet_nan;
  if (o.value.is_inf()) return o.neg ? lf::fp_class::negative_infinity : lf::fp_class::positive_infinity;
  if (o.value.is_zero()) return o.neg ? lf::fp_class::negative_zero : lf::fp_class::positive_zero;
  // below 2^emin: subnormal (an exponent-only format has none: its smallest value is 2^emin)
  const bool subnormal = oracle::detail::floor_log2(o.value) < t.emin;
  if (subnormal) return o.neg ? lf::fp_class::negative_subnormal : lf::fp_class::positive_subnormal;
  return o.neg ? lf::fp_class::negative_normal : lf::fp_class::positive_normal;
}

TEST_CASE("low-bit formats: every encoding decoded (class, value, exact decimal text) and through binary64 and back") {
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "decode / binary64 round trip");
    for (u64 a = 0; a < f.count(); ++a) {
      const oracle::operand o = oracle::decode(f.ora, a);
      const lf::fp_class cls = lf::classify(f.lib, a), want_cls = class_oracle(f.ora, a);
      c.check(cls == want_cls, [&] {
        return std::string(f.name) + " classify(" + hx(f, a) + "): lf " + std::string(lf::class_name(cls)) +
               ", oracle " + std::string(lf::class_name(want_cls));
      });
      if (!o.nan) {
        const std::string text = lf::to_exact_decimal(f.lib, a), want = o.value.is_inf() ? (o.neg ? "-inf" : "inf")
                                                                                          : decimal_text(o.value);
        c.check(text == want, [&] {
          return std::string(f.name) + " to_exact_decimal(" + hx(f, a) + "): lf \"" + text + "\", oracle \"" + want + "\"";
        });
      }
      for (const auto& d : ex::deterministic)
        for (const pol& p : all_policies) {
          const lf::env e{d.lib, p.lib};
          // To binary64: exact (the value itself; NaNs as binary64 quiet NaNs).
          const oracle::result w = oracle::convert(oracle::binary64, f.ora, a, d.ora, p.ora);
          lf::status st{};
          const u64 r = lf::convert(lf::binary64, f.lib, a, e, st);
          c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(f.name) + " convert to binary64(" + hx(f, a) + ")" + verdict(d, p, r, st, w, 64);
          });
          // And back, from the library's binary64.
          const oracle::result w2 = oracle::convert(f.ora, oracle::binary64, r, d.ora, p.ora);
          lf::status st2{};
          const u64 r2 = lf::convert(f.lib, lf::binary64, r, e, st2);
          c.check(r2 == w2.bits && lf::to_bits(st2) == w2.flags, [&] {
            return std::string(f.name) + " convert from binary64(" + ex::hex(r, 64) + ") [from " + hx(f, a) + "]" +
                   verdict(d, p, r2, st2, w2, f.ora.bits);
          });
        }
    }
    c.report();
  }
}

// ---- conversions from binary16 (every encoding) and binary32 (boundaries and random) ----------------

TEST_CASE("low-bit formats: conversion from every binary16 encoding, every mode and policy") {
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "convert from binary16");
    for (u64 h = 0; h < 0x10000 && !c.enough(); ++h)
      for (const auto& d : ex::deterministic)
        for (const pol& p : all_policies) {
          const oracle::result w = oracle::convert(f.ora, oracle::binary16, h, d.ora, p.ora);
          lf::status st{};
          const u64 r = lf::convert(f.lib, lf::binary16, h, lf::env{d.lib, p.lib}, st);
          c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(f.name) + " convert from binary16(" + ex::hex(h, 16) + ")" +
                   verdict(d, p, r, st, w, f.ora.bits);
          });
        }
    c.report();
  }
}

/// binary32 inputs that decide every rounding of format t: each value, each midpoint between
/// neighbours (also 0 | min subnormal and max | max + ulp, the overflow tie), one binary32 ulp
/// either side of both, tiny values, overflow values, NaNs, infinities, binary32 subnormals, both
/// signs; then random values with exponents over the format's range and beyond.
std::vector<std::uint32_t> binary32_inputs(const oracle::target& t, std::mt19937_64& rng) {
  std::vector<float> xs;
  const value_list vl(t);
  std::vector<oracle::exact> points = vl.v;
  points.push_back(value_list::beyond_max(t));
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (points[i].neg) continue;  // the negatives are the same inputs with the sign set, below
    const double lo = to_double(points[i]);
    const double mid = to_double(midpoint(points[i], points[i + 1]));
    for (double v : {lo, mid, mid * 0.75 + lo * 0.25}) {
      const float x = static_cast<float>(v);
      xs.push_back(x);
      xs.push_back(std::nextafter(x, INFINITY));
      xs.push_back(std::nextafter(x, 0.0f));
    }
  }
  const double beyond = to_double(points.back());
  const double smallest = to_double(vl.smallest_positive());
  for (double v : {beyond, beyond * 2, smallest / 2, smallest / 4, smallest * 0.375, smallest / 1024,
                   static_cast<double>(FLT_MAX), static_cast<double>(FLT_MIN), static_cast<double>(FLT_TRUE_MIN)})
    for (float x : {static_cast<float>(v), std::nextafter(static_cast<float>(v), INFINITY),
                    std::nextafter(static_cast<float>(v), 0.0f)})
      xs.push_back(x);
  std::vector<std::uint32_t> out;
  for (float x : xs) {
    const auto u = std::bit_cast<std::uint32_t>(x);
    out.push_back(u & 0x7FFFFFFFu);
    out.push_back(u | 0x80000000u);
  }
  for (std::uint32_t u : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                          0xFF812345u, 0x7FC12345u, 0x00000001u, 0x807FFFFFu, 0x00400000u})
    out.push_back(u);
  // Random: exponent uniform over [emin - p - 3, emax + 2], random fraction and sign.
  const int lo_e = t.emin - t.p - 3, hi_e = t.emax + 2;
  for (int i = 0; i < 20000; ++i) {
    const int e = lo_e + static_cast<int>(rng() % static_cast<u64>(hi_e - lo_e + 1));
    const float m = 1.0f + static_cast<float>(rng() & 0x7FFFFF) * 0x1p-23f;
    float x = std::ldexp(m, e);
    if (rng() & 1) x = -x;
    out.push_back(std::bit_cast<std::uint32_t>(x));
  }
  for (int i = 0; i < 2000; ++i) out.push_back(static_cast<std::uint32_t>(rng()));
  return out;
}

TEST_CASE("low-bit formats: conversion from binary32 at every rounding boundary and random, every mode and policy") {
  std::mt19937_64 rng(20240917);
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "convert from binary32");
    for (std::uint32_t u : binary32_inputs(f.ora, rng)) {
      if (c.enough()) break;
      for (const auto& d : ex::deterministic)
        for (const pol& p : all_policies) {
          const oracle::result w = oracle::convert(f.ora, oracle::binary32, u, d.ora, p.ora);
          lf::status st{};
          const u64 r = lf::convert(f.lib, lf::binary32, u, lf::env{d.lib, p.lib}, st);
          c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(f.name) + " convert from binary32(" + ex::hex(u, 32) + ")" +
                   verdict(d, p, r, st, w, f.ora.bits);
          });
        }
    }
    c.report();
  }
}

// ---- decimal text --------------------------------------------------------------------------------

TEST_CASE("low-bit formats: parse of the exact decimal text of every value and every midpoint, every mode and "
          "policy; to_shortest reads back") {
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "parse");
    const value_list vl(f.ora);
    // Values, both signs (and "-0"), and midpoints, including 0 | min subnormal and max | max + ulp,
    // plus values below the smallest one (tiny) and beyond max.
    std::vector<oracle::exact> xs;
    std::vector<oracle::exact> points = vl.v;
    points.push_back(value_list::beyond_max(f.ora));
    for (std::size_t i = 0; i < points.size(); ++i) {
      xs.push_back(points[i]);
      if (i + 1 < points.size()) xs.push_back(midpoint(points[i], points[i + 1]));
    }
    const oracle::exact smallest = vl.smallest_positive();
    for (long k = 1; k <= 3; ++k) {
      oracle::exact s = smallest;
      s.exp -= k;
      xs.push_back(s);
      s.num *= 3;  // 3/2^k of it
      xs.push_back(s);
    }
    const std::size_t n = xs.size();
    for (std::size_t i = 0; i < n; ++i) {
      oracle::exact m = xs[i];
      m.neg = !m.neg;
      xs.push_back(m);
    }
    for (const oracle::exact& x : xs) {
      const std::string text = decimal_text(x);
      for (const auto& d : ex::deterministic)
        for (const pol& p : all_policies) {
          const oracle::result w = oracle::round(x, f.ora, d.ora, p.ora);  // DAZ does not apply to text
          lf::status st{};
          const auto parsed = lf::parse(f.lib, text, lf::env{d.lib, p.lib}, &st);
          c.check(parsed && parsed.value == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(f.name) + " parse(\"" + text + "\")" + (parsed ? "" : " [parse error]") +
                   verdict(d, p, parsed.value, st, w, f.ora.bits);
          });
        }
    }
    // "inf", "-inf", "nan", "-nan" read as converting that binary64 would (the library's documented
    // rule; a finite_only format raises invalid for "nan", which convertFormat of a NaN also does).
    const struct {
      const char* text;
      u64 binary64;
    } specials[] = {{"inf", 0x7FF0000000000000u},
                    {"-inf", 0xFFF0000000000000u},
                    {"infinity", 0x7FF0000000000000u},
                    {"nan", 0x7FF8000000000000u},
                    {"-nan", 0xFFF8000000000000u}};
    for (const auto& sp : specials)
      for (const auto& d : ex::deterministic)
        for (const pol& p : all_policies) {
          const oracle::result w = oracle::convert(f.ora, oracle::binary64, sp.binary64, d.ora, p.ora);
          lf::status st{};
          const auto parsed = lf::parse(f.lib, sp.text, lf::env{d.lib, p.lib}, &st);
          c.check(parsed && parsed.value == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(f.name) + " parse(\"" + sp.text + "\")" + verdict(d, p, parsed.value, st, w, f.ora.bits);
          });
        }
    // to_shortest reads back (nearest_even) to the same encoding, NaNs to the format's NaN.
    for (u64 a = 0; a < f.count(); ++a) {
      const std::string s = lf::to_shortest(f.lib, a);
      lf::status st{};
      const auto back = lf::parse(f.lib, s, lf::env{}, &st);
      const oracle::operand o = oracle::decode(f.ora, a);
      // (the flags are those of reading the shortest digits: inexact, and underflow when tiny)
      const bool ok = back && (o.nan ? oracle::decode(f.ora, back.value).nan : back.value == a);
      c.check(ok, [&] {
        return std::string(f.name) + " to_shortest(" + hx(f, a) + ") = \"" + s + "\" reads back as " +
               hx(f, back.value) + " flags " + std::to_string(lf::to_bits(st));
      });
    }
    c.report();
  }
}

// ---- conversions between the formats ----------------------------------------------------------------

TEST_CASE("low-bit formats: every encoding converted into every other low-bit format and into binary16, bfloat16, "
          "binary32, OCP E4M3 and E5M2, every mode and policy") {
  struct target_fmt {
    const char* name;
    lf::format lib;
    oracle::target ora;
  };
  std::vector<target_fmt> targets = {{"binary16", lf::binary16, oracle::binary16},
                                     {"bfloat16", lf::bfloat16, oracle::bfloat16},
                                     {"binary32", lf::binary32, oracle::binary32},
                                     {"float8_e4m3fn", lf::float8_e4m3fn, oracle::e4m3},
                                     {"float8_e5m2", lf::float8_e5m2, oracle::e5m2}};
  for (const low_fmt& g : formats) targets.push_back({g.name, g.lib, g.ora});
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "convert to other formats");
    for (const target_fmt& g : targets)
      for (u64 a = 0; a < f.count(); ++a)
        for (const auto& d : ex::deterministic)
          for (const pol& p : all_policies) {
            const oracle::result w = oracle::convert(g.ora, f.ora, a, d.ora, p.ora);
            lf::status st{};
            const u64 r = lf::convert(g.lib, f.lib, a, lf::env{d.lib, p.lib}, st);
            c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
              return std::string(f.name) + " convert(" + hx(f, a) + ") to " + g.name + verdict(d, p, r, st, w, g.ora.bits);
            });
          }
    c.report();
  }
}

// ---- nextUp / nextDown, neg / abs -------------------------------------------------------------------

TEST_CASE("low-bit formats: next_up / next_down between finite values; neg and abs") {
  for (const low_fmt& f : formats) {
    collector c = make_collector(f, "next_up/next_down/neg/abs");
    const value_list vl(f.ora);
    auto index_of = [&](const oracle::exact& x) -> long {
      for (std::size_t i = 0; i < vl.v.size(); ++i)
        if (oracle::detail::compare_values(vl.v[i], x) == 0) return static_cast<long>(i);
      return -1;
    };
    for (u64 a = 0; a < f.count(); ++a) {
      const oracle::operand o = oracle::decode(f.ora, a);
      if (o.nan || o.value.is_inf()) continue;
      const long i = index_of(o.value);
      // nextUp: the least value above a; only where that is a finite value of the format.
      if (i + 1 < static_cast<long>(vl.v.size())) {
        lf::status st{};
        const u64 r = lf::next_up(f.lib, a, st);
        u64 want = vl.enc[static_cast<std::size_t>(i + 1)];
        if (vl.v[static_cast<std::size_t>(i + 1)].is_zero()) want = f.ora.has_negative_zero() ? f.ora.sign_mask() : 0;
        c.check(r == want && st == lf::status::none, [&] {
          return std::string(f.name) + " next_up(" + hx(f, a) + "): lf " + hx(f, r) + ", oracle " + hx(f, want);
        });
      }
      if (i > 0) {
        lf::status st{};
        const u64 r = lf::next_down(f.lib, a, st);
        const u64 want = vl.enc[static_cast<std::size_t>(i - 1)];  // +0 when it is zero: nextDown(min sub) = +0
        c.check(r == want && st == lf::status::none, [&] {
          return std::string(f.name) + " next_down(" + hx(f, a) + "): lf " + hx(f, r) + ", oracle " + hx(f, want);
        });
      }
      if (f.ora.exponent_only()) continue;  // unsigned: no neg/abs of a value
      // neg / abs: the sign of the value flips / clears; a zero of a fnuz format stays +0.
      const u64 s = f.ora.sign_mask();
      const bool fnuz_zero = f.ora.kind == oracle::layout::fnuz && o.value.is_zero();
      const u64 want_neg = fnuz_zero ? 0 : a ^ s, want_abs = a & ~s;
      c.check(lf::neg(f.lib, a) == want_neg, [&] { return std::string(f.name) + " neg(" + hx(f, a) + ")"; });
      c.check(lf::abs(f.lib, a) == want_abs, [&] { return std::string(f.name) + " abs(" + hx(f, a) + ")"; });
    }
    if (f.ora.kind == oracle::layout::fnuz) {  // the NaN 1.0..0.0..0 is not a negative zero
      const u64 nan = f.ora.sign_mask();
      c.check(lf::neg(f.lib, nan) == nan && lf::abs(f.lib, nan) == nan,
              [&] { return std::string(f.name) + " neg/abs of the NaN " + hx(f, nan); });
    }
    c.report();
  }
}

// ---- hand-derived literals (from the specifications, not from the oracle) ----------------------

double lib_value(const lf::format& f, u64 bits) {
  lf::status st{};
  return std::bit_cast<double>(lf::convert(lf::binary64, f, bits, lf::env{}, st));
}
u64 lib_encode(const lf::format& f, double v) {
  lf::status st{};
  const u64 r = lf::convert(f, lf::binary64, std::bit_cast<u64>(v), lf::env{}, st);
  CHECK(st == lf::status::none);
  return r;
}

TEST_CASE("FP4 E2M1: the 16 encodings are 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives") {
  // s.ee.m, bias 1: ee = 00 is subnormal m * 2^(1-1) * 2^-1 = 0, 0.5; ee = 01: 1.m * 2^0 = 1, 1.5;
  // ee = 10: 1.m * 2^1 = 2, 3; ee = 11 (finite: no infinity, no NaN): 1.m * 2^2 = 4, 6.
  const double want[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (u64 a = 0; a < 8; ++a) {
    CHECK(lib_value(lf::float4_e2m1fn, a) == want[a]);
    CHECK(lib_value(lf::float4_e2m1fn, a | 0x8) == -want[a]);
    CHECK(lib_encode(lf::float4_e2m1fn, want[a]) == a);
    CHECK(lib_encode(lf::float4_e2m1fn, -want[a]) == (a | 0x8));
  }
  CHECK(std::signbit(lib_value(lf::float4_e2m1fn, 0x8)));  // 1.00.0 is -0
}

struct landmarks {
  const char* name;
  lf::format f;
  u64 max_bits;
  double max;
  u64 min_normal_bits;
  double min_normal;
  u64 min_sub_bits;
  double min_sub;
};

TEST_CASE("low-bit formats: max, min normal and min subnormal, derived by hand from the specifications") {
  const landmarks table[] = {
      // E2M1 bias 1: max 0.11.1 = 1.5 * 2^2 = 6; min normal 0.01.0 = 2^(1-1) = 1; min sub 0.00.1 = 0.5 * 2^0 = 0.5
      {"float4_e2m1fn", lf::float4_e2m1fn, 0x7, 6.0, 0x2, 1.0, 0x1, 0.5},
      // E3M2 bias 3: max 0.111.11 = 1.75 * 2^4 = 28; min normal 0.001.00 = 2^-2; min sub 0.000.01 = 2^-2 * 2^-2
      {"float6_e3m2fn", lf::float6_e3m2fn, 0x1F, 28.0, 0x04, 0.25, 0x01, 0.0625},
      // E2M3 bias 1: max 0.11.111 = 1.875 * 2^2 = 7.5; min normal 0.01.000 = 2^0; min sub 0.00.001 = 2^0 * 2^-3
      {"float6_e2m3fn", lf::float6_e2m3fn, 0x1F, 7.5, 0x08, 1.0, 0x01, 0.125},
      // E4M3FNUZ bias 8: max 0.1111.111 = 1.875 * 2^7 = 240; min normal 0.0001.000 = 2^-7; min sub 2^-7 * 2^-3
      {"float8_e4m3fnuz", lf::float8_e4m3fnuz, 0x7F, 240.0, 0x08, 0x1p-7, 0x01, 0x1p-10},
      // E5M2FNUZ bias 16: max 0.11111.11 = 1.75 * 2^15 = 57344; min normal 0.00001.00 = 2^-15; min sub 2^-15 * 2^-2
      {"float8_e5m2fnuz", lf::float8_e5m2fnuz, 0x7F, 57344.0, 0x04, 0x1p-15, 0x01, 0x1p-17},
      // E4M3B11FNUZ bias 11: max 0.1111.111 = 1.875 * 2^4 = 30; min normal 2^(1-11) = 2^-10; min sub 2^-13
      {"float8_e4m3b11fnuz", lf::float8_e4m3b11fnuz, 0x7F, 30.0, 0x08, 0x1p-10, 0x01, 0x1p-13},
      // E4M3 (IEEE) bias 7: 0.1111.000 is +inf, so max 0.1110.111 = 1.875 * 2^7 = 240; min normal 2^-6; min sub 2^-9
      {"float8_e4m3", lf::float8_e4m3, 0x77, 240.0, 0x08, 0x1p-6, 0x01, 0x1p-9},
      // E3M4 (IEEE) bias 3: max 0.110.1111 = 1.9375 * 2^3 = 15.5; min normal 0.001.0000 = 2^-2; min sub 2^-2 * 2^-4
      {"float8_e3m4", lf::float8_e3m4, 0x6F, 15.5, 0x10, 0.25, 0x01, 0x1p-6},
      // E8M0 bias 127: max 0xFE = 2^(254-127) = 2^127 (0xFF is the NaN); smallest 0x00 = 2^(0-127) = 2^-127,
      // which is also what stands for "min subnormal" (there are none)
      {"float8_e8m0fnu", lf::float8_e8m0fnu, 0xFE, 0x1p127, 0x00, 0x1p-127, 0x00, 0x1p-127},
  };
  for (const landmarks& l : table) {
    INFO(std::string(l.name));
    CHECK(lib_value(l.f, l.max_bits) == l.max);
    CHECK(lib_value(l.f, l.min_normal_bits) == l.min_normal);
    CHECK(lib_value(l.f, l.min_sub_bits) == l.min_sub);
    CHECK(lib_encode(l.f, l.max) == l.max_bits);
    CHECK(lib_encode(l.f, l.min_normal) == l.min_normal_bits);
    CHECK(lib_encode(l.f, l.min_sub) == l.min_sub_bits);
    CHECK(l.f.max_finite_bits() == l.max_bits);
    CHECK(l.f.min_normal_bits() == l.min_normal_bits);
    CHECK(l.f.min_subnormal_bits() == l.min_sub_bits);
  }
  // The non-finite encodings, by hand: fnuz NaN 1.0000.000 = 0x80; E8M0 NaN 0xFF; float8_e4m3 +inf
  // 0.1111.000 = 0x78 and quiet NaN 0.1111.100 = 0x7C; E3M4 +inf 0.111.0000 = 0x70.
  CHECK(std::isnan(lib_value(lf::float8_e4m3fnuz, 0x80)));
  CHECK(std::isnan(lib_value(lf::float8_e5m2fnuz, 0x80)));
  CHECK(std::isnan(lib_value(lf::float8_e4m3b11fnuz, 0x80)));
  CHECK(std::isnan(lib_value(lf::float8_e8m0fnu, 0xFF)));
  CHECK(lib_value(lf::float8_e4m3, 0x78) == INFINITY);
  CHECK(lib_value(lf::float8_e4m3, 0xF8) == -INFINITY);
  CHECK(std::isnan(lib_value(lf::float8_e4m3, 0x7C)));
  CHECK(lib_value(lf::float8_e3m4, 0x70) == INFINITY);
  // E8M0: 1.0 is 0x7F (2^(127-127)), 2 is 0x80, 0.5 is 0x7E.
  CHECK(lib_encode(lf::float8_e8m0fnu, 1.0) == 0x7F);
  CHECK(lib_encode(lf::float8_e8m0fnu, 2.0) == 0x80);
  CHECK(lib_encode(lf::float8_e8m0fnu, 0.5) == 0x7E);
  // Overflow by hand. E2M1 nearest_even: 7 is above the tie 5 between 4 and 6, and rounds (unbounded
  // exponent) to 8 > 6: max 6 with overflow|inexact, no infinity exists. fnuz E4M3: 256 -> NaN 0x80.
  lf::status st{};
  CHECK(lf::convert(lf::float4_e2m1fn, lf::binary64, std::bit_cast<u64>(7.0), lf::env{}, st) == 0x7);
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  st = {};
  CHECK(lf::convert(lf::float8_e4m3fnuz, lf::binary64, std::bit_cast<u64>(256.0), lf::env{}, st) == 0x80);
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  // E8M0: 3 = 1.5 * 2^1 is the tie: nearest gives 4 = 0x81; 2.9 gives 2 = 0x80; toward_zero 3 -> 2.
  CHECK(lib_encode(lf::float8_e8m0fnu, 4.0) == 0x81);
  st = {};
  CHECK(lf::convert(lf::float8_e8m0fnu, lf::binary64, std::bit_cast<u64>(3.0), lf::env{}, st) == 0x81);
  CHECK(st == lf::status::inexact);
  CHECK(lf::convert(lf::float8_e8m0fnu, lf::binary64, std::bit_cast<u64>(2.9), lf::env{}, st) == 0x80);
  CHECK(lf::convert(lf::float8_e8m0fnu, lf::binary64, std::bit_cast<u64>(3.0), lf::env{lf::rounding::toward_zero}, st) ==
        0x80);
}

TEST_CASE("low-bit formats: the OCP MX v1.0 tables (FP6, FP4, E8M0): bias, emax, emin, max and min normal, max and "
          "min subnormal") {
  // The numbers as OCP Microscaling Formats (MX) v1.0 tabulates them (§5.3.2 FP6 E2M3 and E3M2, §5.3.3
  // FP4 E2M1, §5.4.1 E8M0), typed here; the library's values come from its format data.
  struct row {
    const char* name;
    lf::format f;
    int bias, emax, emin;
    double max_normal, min_normal, max_sub, min_sub;  // (E8M0: no subnormals; 0 here)
  };
  const row table[] = {
      {"float6_e2m3fn", lf::float6_e2m3fn, 1, 2, 0, 7.5, 1.0, 0.875, 0.125},
      {"float6_e3m2fn", lf::float6_e3m2fn, 3, 4, -2, 28.0, 0.25, 0.1875, 0.0625},
      {"float4_e2m1fn", lf::float4_e2m1fn, 1, 2, 0, 6.0, 1.0, 0.5, 0.5},
      {"float8_e8m0fnu", lf::float8_e8m0fnu, 127, 127, -127, 0x1p127, 0x1p-127, 0, 0},
  };
  for (const row& r : table) {
    INFO(std::string(r.name));
    CHECK(r.f.exponent_bias == r.bias);
    CHECK(r.f.emax() == r.emax);
    CHECK(r.f.emin() == r.emin);
    CHECK(lib_value(r.f, r.f.max_finite_bits()) == r.max_normal);
    CHECK(lib_value(r.f, r.f.min_normal_bits()) == r.min_normal);
    if (r.max_sub == 0) {
      CHECK(!r.f.has_subnormals());
      continue;
    }
    // the largest subnormal is the encoding just below the smallest normal; the smallest is 1
    CHECK(lib_value(r.f, r.f.min_normal_bits() - 1) == r.max_sub);
    CHECK(lib_value(r.f, 1) == r.min_sub);
    CHECK(lib_value(r.f, r.f.min_subnormal_bits()) == r.min_sub);
  }
}

// ---- names ------------------------------------------------------------------------------------------

TEST_CASE("low-bit formats: format_by_name knows the ml_dtypes names and the short names") {
  struct entry {
    const char* name;
    int w, p;
    lf::nonfinite kind;
    int bias;
  };
  // Parameters by hand from the specifications (see the landmarks above), not from the constants.
  const entry table[] = {
      {"float4_e2m1fn", 2, 2, lf::nonfinite::finite_only, 1},  {"fp4", 2, 2, lf::nonfinite::finite_only, 1},
      {"float6_e3m2fn", 3, 3, lf::nonfinite::finite_only, 3},  {"fp6_e3m2", 3, 3, lf::nonfinite::finite_only, 3},
      {"float6_e2m3fn", 2, 4, lf::nonfinite::finite_only, 1},  {"fp6_e2m3", 2, 4, lf::nonfinite::finite_only, 1},
      {"float8_e8m0fnu", 8, 1, lf::nonfinite::nan_only, 127},  {"e8m0", 8, 1, lf::nonfinite::nan_only, 127},
      {"float8_e4m3fnuz", 4, 4, lf::nonfinite::fnuz, 8},       {"e4m3fnuz", 4, 4, lf::nonfinite::fnuz, 8},
      {"float8_e5m2fnuz", 5, 3, lf::nonfinite::fnuz, 16},      {"e5m2fnuz", 5, 3, lf::nonfinite::fnuz, 16},
      {"float8_e4m3b11fnuz", 4, 4, lf::nonfinite::fnuz, 11},   {"e4m3b11fnuz", 4, 4, lf::nonfinite::fnuz, 11},
      {"float8_e3m4", 3, 5, lf::nonfinite::ieee, 3},           {"e3m4", 3, 5, lf::nonfinite::ieee, 3},
      {"float8_e4m3", 4, 4, lf::nonfinite::ieee, 7},           {"e4m3ieee", 4, 4, lf::nonfinite::ieee, 7},
  };
  for (const entry& e : table) {
    INFO(std::string(e.name));
    const auto f = lf::format_by_name(e.name);
    REQUIRE(f.has_value());
    CHECK(f->exponent_bits == e.w);
    CHECK(f->precision == e.p);
    CHECK(f->kind == e.kind);
    CHECK(f->bias() == e.bias);
  }
  CHECK(*lf::format_by_name("float4_e2m1fn") == lf::float4_e2m1fn);
  CHECK(*lf::format_by_name("float8_e4m3") == lf::float8_e4m3);
  CHECK(*lf::format_by_name("e4m3") == lf::float8_e4m3fn);  // "e4m3" stays the OCP E4M3 (fn)
  CHECK(*lf::format_by_name("float8_e8m0fnu") == lf::float8_e8m0fnu);
}

// ---- std::numeric_limits ---------------------------------------------------------------------------

/// floor(log10(x)) of a positive exact dyadic value, by exact comparison with powers of ten.
long floor_log10(const oracle::exact& x) {
  // x = num * 2^exp; find the largest k with 10^k <= x.
  auto at_least = [&](long k) {  // 10^k <= x ?
    cpp_int lhs = x.num, rhs = 1;
    if (x.exp >= 0) lhs <<= static_cast<unsigned>(x.exp);
    else rhs <<= static_cast<unsigned>(-x.exp);
    if (k >= 0) rhs *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(k));
    else lhs *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(-k));
    return rhs <= lhs;
  };
  long k = 0;
  while (at_least(k + 1)) ++k;
  while (!at_least(k)) --k;
  return k;
}

template <lf::format F>
void check_limits(const char* name, const oracle::target& t) {
  using L = std::numeric_limits<lf::fp<F>>;
  INFO(std::string(name));
  const u64 max = t.max_bits();
  const u64 min_normal = t.exponent_only() ? 0 : u64{1} << (t.p - 1);
  const u64 denorm_min = t.exponent_only() ? min_normal : 1;
  CHECK(L::is_specialized);
  CHECK(L::max().bits() == max);
  CHECK(L::lowest().bits() == (t.exponent_only() ? min_normal : t.sign_mask() | max));
  CHECK(L::min().bits() == min_normal);
  CHECK(L::denorm_min().bits() == denorm_min);
  // epsilon: 2^(1-p), the gap between 1 and the next value
  CHECK(L::epsilon().bits() == oracle::round(oracle::exact::dyadic(false, cpp_int(1), 1 - t.p), t, oracle::mode::nearest_even).bits);
  const bool ieee = t.kind == oracle::layout::interchange && !t.nan_only;
  CHECK(L::has_infinity == ieee);
  CHECK(L::has_quiet_NaN == (t.kind != oracle::layout::finite_only));
  CHECK(L::has_signaling_NaN == (ieee && t.p >= 3));
  CHECK(L::is_signed == !t.exponent_only());
  CHECK(L::has_denorm == (t.exponent_only() ? std::denorm_absent : std::denorm_present));
  CHECK(L::digits == t.p);
  CHECK(L::radix == 2);
  CHECK(L::min_exponent == t.emin + 1);
  CHECK(L::max_exponent == t.emax + 1);
  CHECK_FALSE(L::is_iec559);
  CHECK(L::is_bounded);
  CHECK_FALSE(L::is_integer);
  CHECK_FALSE(L::is_exact);
  // max_exponent10 = floor(log10(max)); min_exponent10 = the least k with 10^k >= 2^emin
  const oracle::exact maxv = oracle::decode(t, max).value;
  CHECK(L::max_exponent10 == floor_log10(maxv));
  const oracle::exact minv = oracle::exact::dyadic(false, cpp_int(1), t.emin);
  const long fl = floor_log10(minv);
  CHECK(L::min_exponent10 == (oracle::detail::compare_magnitude(minv, boost::multiprecision::pow(cpp_int(10), 0), 0) == 0
                                  ? fl
                                  : fl + 1));
  // digits10 = floor((p-1) log10 2) = floor(log10(2^(p-1))); max_digits10 = ceil(p log10 2) + 1
  CHECK(L::digits10 == floor_log10(oracle::exact::dyadic(false, cpp_int(1), t.p - 1)));
  CHECK(L::max_digits10 == floor_log10(oracle::exact::dyadic(false, cpp_int(1), t.p)) + 2);
  // What stands in for infinity and NaN (has_infinity / has_quiet_NaN false): documented choices.
  CHECK(L::infinity().bits() == t.top_bits());
  if (L::has_quiet_NaN) CHECK(oracle::decode(t, L::quiet_NaN().bits()).nan);
}

TEST_CASE("low-bit formats: std::numeric_limits fields agree with the oracle's description") {
  check_limits<lf::float4_e2m1fn>("float4_e2m1fn", oracle::e2m1);
  check_limits<lf::float6_e3m2fn>("float6_e3m2fn", oracle::e3m2);
  check_limits<lf::float6_e2m3fn>("float6_e2m3fn", oracle::e2m3);
  check_limits<lf::float8_e4m3fnuz>("float8_e4m3fnuz", oracle::e4m3fnuz);
  check_limits<lf::float8_e5m2fnuz>("float8_e5m2fnuz", oracle::e5m2fnuz);
  check_limits<lf::float8_e4m3b11fnuz>("float8_e4m3b11fnuz", oracle::e4m3b11fnuz);
  check_limits<lf::float8_e4m3>("float8_e4m3", oracle::e4m3ieee);
  check_limits<lf::float8_e3m4>("float8_e3m4", oracle::e3m4);
  check_limits<lf::float8_e8m0fnu>("float8_e8m0fnu", oracle::e8m0);
}

}  // namespace
