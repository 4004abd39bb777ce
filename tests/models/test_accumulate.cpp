// models/accumulate.hpp: sum / dot / gemm under accumulation models, against references that share no
// code with the library:
//  - a replay: this file's own implementation of every order and compensation, written from the
//    documented semantics (accumulate.hpp's file comment), where every rounding is done by the
//    exact-rational oracle (tests/support/oracle.hpp: Boost cpp_int rationals, its own rounding).
//    Its pairwise order is the level-by-level formulation (sum adjacent pairs, carry an odd last
//    element up), not the library's recursive one, so the documented tree shape is checked too.
//  - Boost cpp_rational: exact sums and products, rounded once per step by oracle::round for the
//    exact-products model, and the exact value that measures the error of compensated sums.
// Bits and the five flags must agree; sequential/blocked/split-K traces must agree step by step.
#include <libfloat/models/accumulate.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "../support/oracle.hpp"
#include "../support/oracle_mode.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using u64 = std::uint64_t;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

// ---- the oracle's view of formats and modes -------------------------------------------------

/// The oracle's own parameters for a library format (written from the specs in oracle.hpp).
oracle::target target_of(const lf::format& f) {
  if (f == lf::binary16) return oracle::binary16;
  if (f == lf::bfloat16) return oracle::bfloat16;
  if (f == lf::binary32) return oracle::binary32;
  if (f == lf::binary64) return oracle::binary64;
  if (f == lf::tfloat32) return oracle::tf32;
  if (f == lf::float8_e4m3fn) return oracle::e4m3;
  if (f == lf::float8_e5m2) return oracle::e5m2;
  FAIL("no oracle target for this format");
  return oracle::binary16;
}

using oracle::mode_of;

// ---- the replay -----------------------------------------------------------------------------

struct ref_step {
  std::size_t first, last;
  u64 bits;
  friend bool operator==(const ref_step&, const ref_step&) = default;
  friend bool operator<(const ref_step& a, const ref_step& b) {
    return std::tie(a.first, a.last, a.bits) < std::tie(b.first, b.last, b.bits);
  }
};

/// Replays a model with oracle roundings. Data: sum terms x (b empty) or dot terms a, b.
class replay {
 public:
  replay(const lf::accumulation& m, std::vector<u64> a, std::vector<u64> b = {})
      : m_(m), acc_(target_of(m.accumulator)),
        prod_(m.products == lf::product_mode::rounded ? target_of(m.product_format) : acc_),
        mode_(mode_of(m.accumulator_env.mode)), a_(std::move(a)), b_(std::move(b)) {}

  void set_dot() { dot_ = true; }

  /// The result for accumulator start value `init` (encoding of the accumulator format).
  u64 run(u64 init = 0) {
    const std::size_t n = a_.size();
    switch (m_.order) {
      case lf::summation_order::sequential: return sequential(0, n, init, 0);
      case lf::summation_order::pairwise: {
        if (n == 0) return init;
        // Level by level: adjacent pairs, an odd last element carried up unchanged.
        std::vector<u64> level;
        std::vector<std::pair<std::size_t, std::size_t>> cover;
        for (std::size_t i = 0; i < n; ++i) {
          level.push_back(value(i));
          cover.emplace_back(i, i);
        }
        while (level.size() > 1) {
          std::vector<u64> next;
          std::vector<std::pair<std::size_t, std::size_t>> next_cover;
          for (std::size_t j = 0; j + 1 < level.size(); j += 2) {
            next.push_back(add(level[j], level[j + 1]));
            next_cover.emplace_back(cover[j].first, cover[j + 1].second);
            steps.push_back({next_cover.back().first, next_cover.back().second, next.back()});
          }
          if (level.size() % 2 == 1) {
            next.push_back(level.back());
            next_cover.push_back(cover.back());
          }
          level = std::move(next);
          cover = std::move(next_cover);
        }
        const u64 r = add(init, level[0]);
        steps.push_back({0, n - 1, r});
        return r;
      }
      case lf::summation_order::blocked: return blocked(static_cast<std::size_t>(m_.block_size), init);
      case lf::summation_order::split_k: {
        const auto s = static_cast<std::size_t>(m_.splits);
        return blocked(n == 0 ? 1 : (n + s - 1) / s, init);
      }
    }
    return init;
  }

  std::uint8_t flags = 0;
  std::vector<ref_step> steps;  ///< every partial sum, as the trace should show it

 private:
  const lf::accumulation& m_;
  oracle::target acc_, prod_;
  oracle::mode mode_;
  std::vector<u64> a_, b_;
  bool dot_ = false;

  u64 keep(oracle::result r) {
    flags |= r.flags;
    return r.bits;
  }
  u64 add(u64 x, u64 y) { return keep(oracle::add(acc_, x, y, mode_)); }
  u64 sub(u64 x, u64 y) { return keep(oracle::sub(acc_, x, y, mode_)); }
  u64 mul(u64 x, u64 y) { return keep(oracle::mul(acc_, x, y, mode_)); }
  u64 fma(u64 x, u64 y, u64 z) { return keep(oracle::fma(acc_, x, y, z, mode_)); }
  /// Format `from` into `to`; nothing at all when they are the same format (documented: a load).
  u64 conv(const lf::format& to, const lf::format& from, u64 x) {
    if (to == from) return x;
    return keep(oracle::convert(target_of(to), target_of(from), x, mode_));
  }
  const lf::format& in() const { return m_.input; }
  const lf::format& acc() const { return m_.accumulator; }
  const lf::format& pf() const { return m_.product_format; }
  /// -z as an addend: the sign bit flipped, except a NaN (lf::sub's rule for a NaN subtrahend).
  u64 negated(u64 z) const { return oracle::is_nan(acc_, z) ? z : (z ^ acc_.sign_mask()); }

  bool via_fma() const { return dot_ && m_.products != lf::product_mode::rounded; }
  u64 rounded_product(std::size_t i) {
    const u64 pa = conv(pf(), in(), a_[i]);
    const u64 pb = conv(pf(), in(), b_[i]);
    const u64 p = keep(oracle::mul(prod_, pa, pb, mode_));
    return conv(acc(), pf(), p);
  }
  /// The term as one accumulator value.
  u64 value(std::size_t i) {
    if (!dot_) return conv(acc(), in(), a_[i]);
    if (!via_fma()) return rounded_product(i);
    const u64 fa = conv(acc(), in(), a_[i]);
    const u64 fb = conv(acc(), in(), b_[i]);
    return mul(fa, fb);
  }

  /// One term into s (and c), per the compensation.
  void step(u64& s, u64& c, std::size_t i, const u64* given) {
    auto term = [&] { return given ? *given : value(i); };
    switch (m_.compensation) {
      case lf::compensation::none:
        if (!given && via_fma()) {
          const u64 fa = conv(acc(), in(), a_[i]);
          const u64 fb = conv(acc(), in(), b_[i]);
          s = fma(fa, fb, s);
        } else {
          s = add(s, term());
        }
        return;
      case lf::compensation::kahan: {
        u64 y;
        if (!given && via_fma()) {
          const u64 fa = conv(acc(), in(), a_[i]);
          const u64 fb = conv(acc(), in(), b_[i]);
          y = fma(fa, fb, negated(c));
        } else {
          y = sub(term(), c);
        }
        const u64 u = add(s, y);
        c = sub(sub(u, s), y);
        s = u;
        return;
      }
      case lf::compensation::neumaier: {
        u64 t, r = 0;
        bool has_r = false;
        if (!given && via_fma()) {
          const u64 fa = conv(acc(), in(), a_[i]);
          const u64 fb = conv(acc(), in(), b_[i]);
          t = mul(fa, fb);
          r = fma(fa, fb, negated(t));
          has_r = true;
        } else {
          t = term();
        }
        const u64 u = add(s, t);
        std::uint8_t ignored = 0;
        const auto abs_mask = ~acc_.sign_mask();
        const auto o = oracle::compare(acc_, s & abs_mask, t & abs_mask, false, ignored);
        const bool s_larger = o == std::partial_ordering::greater || o == std::partial_ordering::equivalent;
        const u64 e = s_larger ? add(sub(s, u), t) : add(sub(t, u), s);
        c = add(c, e);
        if (has_r) c = add(c, r);
        s = u;
        return;
      }
    }
  }

  u64 sequential(std::size_t begin, std::size_t end, u64 init, std::size_t cover_first) {
    u64 s = init, c = 0;
    for (std::size_t i = begin; i < end; ++i) {
      step(s, c, i, nullptr);
      steps.push_back({cover_first, i, s});
    }
    if (m_.compensation == lf::compensation::neumaier && begin < end) {
      s = add(s, c);
      steps.push_back({cover_first, end - 1, s});
    }
    return s;
  }

  u64 blocked(std::size_t block, u64 init) {
    const std::size_t n = a_.size();
    u64 s = init, c = 0;
    for (std::size_t b0 = 0; b0 < n; b0 += block) {
      const std::size_t b1 = std::min(n, b0 + block);
      const u64 beta = sequential(b0, b1, 0, b0);
      step(s, c, 0, &beta);
      steps.push_back({0, b1 - 1, s});
    }
    if (m_.compensation == lf::compensation::neumaier && n > 0) {
      s = add(s, c);
      steps.push_back({0, n - 1, s});
    }
    return s;
  }
};

std::vector<ref_step> steps_of(const lf::trace& tr) {
  std::vector<ref_step> out;
  for (const auto& s : tr.steps) out.push_back({s.first, s.last, s.bits});
  return out;
}

// ---- data -----------------------------------------------------------------------------------

/// Finite encodings of format f with exponents within +-spread of 1 (both signs): sums and
/// products that round often but rarely overflow. Built from bits, not from the library.
/// Exponents in [lo, hi]; see below.
std::vector<u64> random_values(std::mt19937_64& rng, const oracle::target& t, std::size_t n, int lo, int hi) {
  std::vector<u64> out;
  for (std::size_t i = 0; i < n; ++i) {
    const long e = lo + static_cast<long>(rng() % static_cast<u64>(hi - lo + 1));
    long biased = e + t.bias();
    biased = std::clamp<long>(biased, 1, static_cast<long>(t.exp_field_max()) - 1);
    const u64 frac = rng() & t.frac_mask();
    const u64 sign = (rng() % 4 == 0) ? t.sign_mask() : 0;  // mostly positive: long partial sums
    out.push_back(sign | (static_cast<u64>(biased) << (t.p - 1)) | frac);
  }
  return out;
}

std::vector<u64> random_values(std::mt19937_64& rng, const oracle::target& t, std::size_t n, int spread) {
  return random_values(rng, t, n, -spread, spread);
}

/// Sprinkles specials over data: +-0, +-inf, a quiet and a signalling NaN (where the format has
/// them), the smallest subnormal, max finite. About one value in `one_in`.
void add_specials(std::mt19937_64& rng, const oracle::target& t, std::vector<u64>& v, unsigned one_in) {
  std::vector<u64> specials{0, t.sign_mask(), 1, t.sign_mask() | 1, t.top_bits() - 1, t.default_nan()};
  if (!t.nan_only) {
    specials.push_back(t.top_bits());                       // +inf
    specials.push_back(t.sign_mask() | t.top_bits());       // -inf
    specials.push_back(t.top_bits() | 1);                   // signalling NaN, payload 1
    specials.push_back(t.top_bits() | t.quiet_bit() | 2);   // quiet NaN, payload 2
  }
  for (auto& x : v)
    if (rng() % one_in == 0) x = specials[rng() % specials.size()];
}

std::string name_of(const lf::accumulation& m) { return lf::describe(m); }

// ---- exact values with Boost cpp_rational --------------------------------------------------

cpp_rational rational_of(const oracle::target& t, u64 bits) {
  const oracle::operand o = oracle::decode(t, bits);
  REQUIRE(!o.nan);
  REQUIRE(!o.value.is_inf());
  if (o.value.is_zero()) return 0;
  cpp_rational v(o.value.num, o.value.den);
  if (o.value.exp >= 0) v *= cpp_rational(cpp_int(1) << static_cast<unsigned>(o.value.exp));
  else v /= cpp_rational(cpp_int(1) << static_cast<unsigned>(-o.value.exp));
  return o.value.neg ? cpp_rational(-v) : v;
}

oracle::exact exact_of(const cpp_rational& v) {
  using boost::multiprecision::denominator;
  using boost::multiprecision::numerator;
  if (v == 0) return oracle::exact::zero(false);
  const cpp_int n = numerator(v), d = denominator(v);
  return oracle::exact::rational(n < 0, n < 0 ? cpp_int(-n) : n, d, 0);
}

const lf::rounding deterministic[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                      lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};

}  // namespace

// ---- every model against the replay --------------------------------------------------------

TEST_CASE("every order, compensation and product mode matches the oracle replay (bits, flags, trace)") {
  struct formats {
    lf::format input, accumulator, product;
  };
  const formats pairs[] = {
      {lf::binary16, lf::binary16, lf::binary16},      // fp16 throughout
      {lf::binary16, lf::binary32, lf::binary16},      // mixed precision
      {lf::bfloat16, lf::binary32, lf::bfloat16},      // bf16 into fp32
      {lf::bfloat16, lf::bfloat16, lf::bfloat16},      // bf16 throughout
      {lf::float8_e4m3fn, lf::binary16, lf::float8_e5m2},  // fp8: products rounded to E5M2 (P fits nowhere)
      {lf::binary16, lf::bfloat16, lf::binary16},      // input does not fit: conversions round
      {lf::binary32, lf::binary16, lf::bfloat16},      // fp32 data into fp16: conversions round and overflow
      {lf::binary32, lf::binary64, lf::binary32},      // the 128-bit core
      {lf::tfloat32, lf::binary32, lf::tfloat32},
  };
  const lf::summation_order orders[] = {lf::summation_order::sequential, lf::summation_order::pairwise,
                                        lf::summation_order::blocked, lf::summation_order::split_k};
  const lf::compensation comps[] = {lf::compensation::none, lf::compensation::kahan, lf::compensation::neumaier};
  const lf::product_mode prods[] = {lf::product_mode::exact, lf::product_mode::fused, lf::product_mode::rounded};
  const std::size_t sizes[] = {0, 1, 2, 5, 12, 33};
  std::mt19937_64 rng(20240604);
  int cases = 0;
  for (const auto& fp : pairs)
    for (auto order : orders)
      for (auto comp : comps)
        for (auto prod : prods) {
          if (order == lf::summation_order::pairwise && comp != lf::compensation::none) continue;
          if (prod == lf::product_mode::exact && !lf::fits_in(fp.input, fp.accumulator)) continue;
          for (auto mode : deterministic) {
            lf::accumulation m{.input = fp.input, .products = prod, .product_format = fp.product,
                               .accumulator = fp.accumulator, .accumulator_env = lf::env{mode}, .order = order,
                               .block_size = 3, .splits = 3, .compensation = comp};
            REQUIRE_FALSE(m.invalid_reason());
            const oracle::target in = target_of(fp.input);
            for (std::size_t n : sizes) {
              const int spread = fp.input == lf::float8_e4m3fn ? 3 : 5;
              auto a = random_values(rng, in, n, spread);
              auto b = random_values(rng, in, n, spread);
              const bool specials = rng() % 4 == 0;  // a quarter of the cases: NaN, inf, zeros, extremes
              if (specials) {
                add_specials(rng, in, a, 6);
                add_specials(rng, in, b, 6);
              }
              CAPTURE(specials);
              CAPTURE(name_of(m));
              CAPTURE(n);
              {  // sum
                replay ref(m, a);
                const u64 want = ref.run();
                lf::status st{};
                lf::trace tr;
                const lf::value got = lf::sum(m, a, &st, &tr);
                CHECK(oracle::hex(got.bits, fp.accumulator.bits()) == oracle::hex(want, fp.accumulator.bits()));
                CHECK(int{lf::to_bits(st)} == int{ref.flags});
                auto gs = steps_of(tr), ws = ref.steps;
                if (order == lf::summation_order::pairwise) {  // same nodes; the two build them in different orders
                  std::sort(gs.begin(), gs.end());
                  std::sort(ws.begin(), ws.end());
                }
                CHECK(gs == ws);
              }
              {  // dot
                replay ref(m, a, b);
                ref.set_dot();
                const u64 want = ref.run();
                lf::status st{};
                lf::trace tr;
                const lf::value got = lf::dot(m, a, b, &st, &tr);
                CHECK(oracle::hex(got.bits, fp.accumulator.bits()) == oracle::hex(want, fp.accumulator.bits()));
                CHECK(int{lf::to_bits(st)} == int{ref.flags});
                auto gs = steps_of(tr), ws = ref.steps;
                if (order == lf::summation_order::pairwise) {
                  std::sort(gs.begin(), gs.end());
                  std::sort(ws.begin(), ws.end());
                }
                CHECK(gs == ws);
              }
              ++cases;
            }
          }
        }
  CHECK(cases > 2000);
}

TEST_CASE("exact products: each step is round(acc + a*b), computed with cpp_rational and rounded once") {
  // Independent of oracle::fma: the exact value acc + a*b is formed with Boost rationals and rounded
  // by oracle::round, one rounding per term. Data with cancellation and tiny products.
  // Exponents from -12 up to `hi`: tiny products (subnormal or lost in fp16) next to large ones.
  std::mt19937_64 rng(7);
  struct pair {
    lf::format input, acc;
    int hi;
  };
  for (auto mode : deterministic) {
    for (const auto& [input, acc, hi] : {pair{lf::binary16, lf::binary32, 12}, pair{lf::bfloat16, lf::binary32, 12},
                                         pair{lf::float8_e4m3fn, lf::binary16, 3}, pair{lf::binary16, lf::binary16, 3}}) {
      const lf::accumulation m{.input = input, .products = lf::product_mode::exact, .accumulator = acc,
                               .accumulator_env = lf::env{mode}};
      const oracle::target ti = target_of(input), ta = target_of(acc);
      const auto a = random_values(rng, ti, 60, -12, hi);
      const auto b = random_values(rng, ti, 60, -12, hi);
      lf::trace tr;
      lf::status st{};
      const lf::value got = lf::dot(m, a, b, &st, &tr);
      std::uint8_t flags = 0;
      u64 s = 0;
      REQUIRE(tr.steps.size() == a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        const cpp_rational exact = rational_of(ta, s) + rational_of(ti, a[i]) * rational_of(ti, b[i]);
        oracle::result r{};
        if (exact == 0) r = {mode == lf::rounding::downward ? ta.sign_mask() : 0, 0};  // §6.3 exact zero sum
        else r = oracle::round(exact_of(exact), ta, mode_of(mode));
        s = r.bits;
        flags |= r.flags;
        CAPTURE(i);
        REQUIRE(oracle::hex(tr.steps[i].bits, acc.bits()) == oracle::hex(s, acc.bits()));
      }
      CHECK(got.bits == s);
      CHECK(int{lf::to_bits(st)} == int{flags});
    }
  }
}

TEST_CASE("fused equals exact wherever the input format fits in the accumulator") {
  std::mt19937_64 rng(11);
  for (auto order : {lf::summation_order::sequential, lf::summation_order::pairwise, lf::summation_order::blocked})
    for (auto comp : {lf::compensation::none, lf::compensation::kahan, lf::compensation::neumaier}) {
      if (order == lf::summation_order::pairwise && comp != lf::compensation::none) continue;
      lf::accumulation exact{.input = lf::binary16, .products = lf::product_mode::exact,
                             .accumulator = lf::binary32, .order = order, .block_size = 7, .compensation = comp};
      lf::accumulation fused = exact;
      fused.products = lf::product_mode::fused;
      const auto a = random_values(rng, oracle::binary16, 100, 10);
      const auto b = random_values(rng, oracle::binary16, 100, 10);
      lf::status s1{}, s2{};
      CHECK(lf::dot(exact, a, b, &s1) == lf::dot(fused, a, b, &s2));
      CHECK(s1 == s2);
    }
}

// ---- stalls, via the trace ------------------------------------------------------------------

TEST_CASE("summing 1.0 in fp16 stalls at 2048: the trace reaches 2048 at term 2047 and stays there") {
  // 2048 = 0b0'11010'0000000000 = 0x6800; ulp(2048) = 2, so 2048 + 1 is a tie that rounds to even (2048).
  const std::vector<lf::fp16> ones(3000, lf::fp16{1.0});
  lf::trace tr;
  lf::status st{};
  const lf::value r = lf::sum(lf::accumulations::fp16_acc, ones, &st, &tr);
  CHECK(r.bits == 0x6800);
  CHECK(r.to_double() == 2048.0);
  CHECK(st == lf::status::inexact);
  REQUIRE(tr.steps.size() == 3000);
  CHECK(tr.fmt == lf::binary16);
  for (std::size_t i = 0; i < 2047; ++i) {
    CHECK(tr.steps[i].kind == lf::step_kind::term);
    CHECK(tr.steps[i].first == 0);
    CHECK(tr.steps[i].last == i);
    CHECK(tr.at(i).to_double() == static_cast<double>(i + 1));
    CHECK(tr.steps[i].flags == lf::status::none);
  }
  for (std::size_t i = 2047; i < 3000; ++i) CHECK(tr.steps[i].bits == 0x6800);
  CHECK(tr.steps[2047].flags == lf::status::none);  // 2047 + 1 = 2048 exactly
  CHECK(tr.steps[2048].flags == lf::status::inexact);
  // The same data: pairwise, Kahan and fp32 accumulation all reach 3000 (exact in fp16: even, < 4096).
  CHECK(lf::sum(lf::accumulations::fp16_pairwise, ones).to_double() == 3000.0);
  CHECK(lf::sum(lf::accumulations::fp16_kahan, ones).to_double() == 3000.0);
  CHECK(lf::sum(lf::accumulations::fp16_neumaier, ones).to_double() == 3000.0);
  const lf::accumulation fp16_in_fp32{.input = lf::binary16, .accumulator = lf::binary32};
  CHECK(lf::sum(fp16_in_fp32, ones).to_double() == 3000.0);
}

TEST_CASE("summing 1.0 in bf16 stalls at 256") {
  // 256 = 0b0'10000111'0000000 = 0x4380; p = 8, so ulp(256) = 2 and 256 + 1 ties to 256.
  const std::vector<lf::bf16> ones(400, lf::bf16{1.0});
  lf::trace tr;
  const lf::value r = lf::sum(lf::accumulations::bf16_acc, ones, nullptr, &tr);
  CHECK(r.bits == 0x4380);
  REQUIRE(tr.steps.size() == 400);
  CHECK(tr.at(254).to_double() == 255.0);
  for (std::size_t i = 255; i < 400; ++i) CHECK(tr.steps[i].bits == 0x4380);
  CHECK(tr.steps[256].flags == lf::status::inexact);
}

TEST_CASE("stochastic rounding: fresh documented random bits per call, no stall, reproducible") {
  // fp16 terms into an fp16 accumulator need no conversion, so step i is one library call, the
  // addition, with random bits accumulation_random_bits(seed, 0, i).
  lf::accumulation m = lf::accumulations::fp16_acc;
  m.accumulator_env = lf::env{lf::rounding::stochastic};
  m.seed = 42;
  const std::vector<lf::fp16> ones(4000, lf::fp16{1.0});
  lf::status st{};
  const lf::value r = lf::sum(m, ones, &st);
  // Replay with the oracle's stochastic rounding.
  u64 s = 0;
  std::uint8_t flags = 0;
  for (std::size_t i = 0; i < ones.size(); ++i) {
    const cpp_rational exact = rational_of(oracle::binary16, s) + 1;
    const auto rr = oracle::round_stochastic(exact_of(exact), oracle::binary16, lf::accumulation_random_bits(42, 0, i));
    s = rr.bits;
    flags |= rr.flags;
  }
  CHECK(r.bits == s);
  CHECK(int{lf::to_bits(st)} == int{flags});
  // Unbiased on average: well past the round-to-nearest stall at 2048 (E[sum] = 4000).
  CHECK(r.to_double() > 3500.0);
  CHECK(r.to_double() < 4500.0);
  CHECK(lf::sum(m, ones) == r);  // same seed, same bits
  m.seed = 43;
  CHECK(lf::sum(m, ones) != r);
}

// ---- compensation ---------------------------------------------------------------------------

TEST_CASE("Kahan and Neumaier in fp16: 1 + 1000 * 2^-12 (each term below half an ulp of 1)") {
  // Exact: 1 + 1000/4096 = 1.244140625. Plain fp16: 1 + 2^-12 rounds back to 1 every time
  // (half an ulp of 1 is 2^-11), so the sum stays 1.
  std::vector<lf::fp16> x{lf::fp16{1.0}};
  x.insert(x.end(), 1000, lf::fp16{0x1p-12});
  cpp_rational exact = 0;
  for (auto v : x) exact += rational_of(oracle::binary16, v.bits());
  CHECK(exact == cpp_rational(1) + cpp_rational(1000, 4096));
  auto error = [&](const lf::accumulation& m) {
    const lf::value r = lf::sum(m, x);
    const cpp_rational e = rational_of(oracle::binary16, r.bits) - exact;
    return static_cast<double>(e < 0 ? cpp_rational(-e) : e);
  };
  const double ulp = 0x1p-10;  // ulp of fp16 in [1, 2)
  CHECK(lf::sum(lf::accumulations::fp16_acc, x).to_double() == 1.0);
  CHECK(error(lf::accumulations::fp16_acc) > 200 * ulp);
  CHECK(error(lf::accumulations::fp16_kahan) <= 0.5 * ulp);  // correctly rounded here
  CHECK(error(lf::accumulations::fp16_neumaier) <= 0.5 * ulp);
  // Pairwise loses only the small term paired with the 1 (1 + 2^-12 = 1); the other 999 add exactly.
  CHECK(error(lf::accumulations::fp16_pairwise) == ulp);
}

TEST_CASE("Neumaier fixes what Kahan cannot: fp16 [1, 32768, 1, -32768] = 2") {
  // Kahan loses the first 1 when the large term arrives (c = (32768 - 1) - 32768 = 0 in fp16,
  // since 32767 rounds to 32768) and ends at 0; Neumaier keeps 1 + 1 in c and returns 2.
  const std::vector<lf::fp16> x{lf::fp16{1.0}, lf::fp16{32768.0}, lf::fp16{1.0}, lf::fp16{-32768.0}};
  CHECK(lf::sum(lf::accumulations::fp16_acc, x).to_double() == 0.0);
  CHECK(lf::sum(lf::accumulations::fp16_kahan, x).to_double() == 0.0);
  CHECK(lf::sum(lf::accumulations::fp16_neumaier, x).to_double() == 2.0);
  lf::trace tr;
  lf::sum(lf::accumulations::fp16_neumaier, x, nullptr, &tr);
  REQUIRE(tr.steps.size() == 5);
  CHECK(tr.steps.back().kind == lf::step_kind::final);  // s + c
  CHECK(tr.at(3).to_double() == 0.0);                  // s alone
  CHECK(tr.at(4).to_double() == 2.0);
}

TEST_CASE("compensated dot with exact products: the error stays near one rounding") {
  // fp16 data, fp16 accumulator, fused products (exact product, one rounding per fma).
  std::mt19937_64 rng(99);
  const auto a = random_values(rng, oracle::binary16, 2000, 2);
  const auto b = random_values(rng, oracle::binary16, 2000, 2);
  cpp_rational exact = 0;
  for (std::size_t i = 0; i < a.size(); ++i) exact += rational_of(oracle::binary16, a[i]) * rational_of(oracle::binary16, b[i]);
  auto error = [&](lf::compensation c) {
    const lf::accumulation m{.input = lf::binary16, .products = lf::product_mode::exact, .accumulator = lf::binary16,
                             .compensation = c};
    const lf::value r = lf::dot(m, a, b);
    const cpp_rational e = rational_of(oracle::binary16, r.bits) - exact;
    return static_cast<double>(e < 0 ? cpp_rational(-e) : e);
  };
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(std::abs(static_cast<double>(exact))))) - 10);
  // Measured: none 2.86 ulps, Kahan and Neumaier 0.14 ulps (correctly rounded).
  CHECK(error(lf::compensation::none) > 2 * ulp);
  CHECK(error(lf::compensation::kahan) <= 1.0 * ulp);
  CHECK(error(lf::compensation::neumaier) <= 0.5 * ulp);
}

// ---- orders: tree and slice shapes ----------------------------------------------------------

TEST_CASE("pairwise tree shape: left subtrees of power-of-two size, post-order nodes") {
  auto nodes = [](std::size_t n) {
    const std::vector<lf::fp16> x(n, lf::fp16{1.0});
    lf::trace tr;
    lf::sum(lf::accumulations::fp16_pairwise, x, nullptr, &tr);
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (const auto& s : tr.steps) out.emplace_back(s.first, s.last);
    return out;
  };
  using v = std::vector<std::pair<std::size_t, std::size_t>>;
  // n = 5: ((t0+t1) + (t2+t3)) + t4, then init + tree (the final step).
  CHECK(nodes(5) == v{{0, 1}, {2, 3}, {0, 3}, {0, 4}, {0, 4}});
  // n = 6: ((t0+t1) + (t2+t3)) + (t4+t5)
  CHECK(nodes(6) == v{{0, 1}, {2, 3}, {0, 3}, {4, 5}, {0, 5}, {0, 5}});
  // n = 7: ((t0+t1) + (t2+t3)) + ((t4+t5) + t6)
  CHECK(nodes(7) == v{{0, 1}, {2, 3}, {0, 3}, {4, 5}, {4, 6}, {0, 6}, {0, 6}});
  CHECK(nodes(1) == v{{0, 0}});
  CHECK(nodes(0).empty());
  // A sum whose value shows the shape: fp16 [2048, 1, 1, 1, 1] (ulp(2048) = 2). Sequential:
  // 2048 + 1 ties to even, 2048, four times. Pairwise: ((2048 + 1) + (1 + 1)) + 1 =
  // (2048 + 2) + 1 = 2050 + 1, a tie between 2050 = 0b0'11010'0000000001 (odd) and
  // 2052 = 0b0'11010'0000000010 (even): 2052.
  const std::vector<lf::fp16> x{lf::fp16{2048.0}, lf::fp16{1.0}, lf::fp16{1.0}, lf::fp16{1.0}, lf::fp16{1.0}};
  CHECK(lf::sum(lf::accumulations::fp16_acc, x).to_double() == 2048.0);
  CHECK(lf::sum(lf::accumulations::fp16_pairwise, x).to_double() == 2052.0);
}

TEST_CASE("split-K slices: ceil(n/splits) terms each, empty slices skipped; blocked blocks of b") {
  auto block_ends = [](const lf::accumulation& m, std::size_t n) {
    const std::vector<lf::fp16> x(n, lf::fp16{1.0});
    lf::trace tr;
    lf::sum(m, x, nullptr, &tr);
    std::vector<std::size_t> out;
    for (const auto& s : tr.steps)
      if (s.kind == lf::step_kind::block) out.push_back(s.last);
    return out;
  };
  lf::accumulation m = lf::accumulations::fp32_split_k;  // 4 splits
  using v = std::vector<std::size_t>;
  CHECK(block_ends(m, 10) == v{2, 5, 8, 9});  // slices of 3: 3, 3, 3, 1
  CHECK(block_ends(m, 5) == v{1, 3, 4});      // slices of 2: 2, 2, 1 (the fourth is empty)
  CHECK(block_ends(m, 8) == v{1, 3, 5, 7});
  CHECK(block_ends(m, 0).empty());
  m.order = lf::summation_order::blocked;
  m.block_size = 4;
  CHECK(block_ends(m, 10) == v{3, 7, 9});
  // Inner steps cover their block only: term 5 of a blocked sum is in block [4, 7].
  const std::vector<lf::fp16> x(10, lf::fp16{1.0});
  lf::trace tr;
  lf::sum(m, x, nullptr, &tr);
  const auto it = std::find_if(tr.steps.begin(), tr.steps.end(), [](const lf::trace_step& s) {
    return s.kind == lf::step_kind::term && s.last == 5;
  });
  REQUIRE(it != tr.steps.end());
  CHECK(it->first == 4);
  CHECK(tr.at(static_cast<std::size_t>(it - tr.steps.begin())).to_double() == 2.0);  // 1 + 1 inside the block
}

// ---- gemm -----------------------------------------------------------------------------------

TEST_CASE("gemm: every C_ij is dot(row i of A, column j of B) started at C_ij") {
  std::mt19937_64 rng(5);
  const std::size_t M = 5, N = 7, K = 13;
  for (const auto& named : lf::named_accumulations) {
    const lf::accumulation& m = named.model;
    CAPTURE(std::string(named.name));
    const oracle::target ti = target_of(m.input), ta = target_of(m.accumulator);
    const auto A = random_values(rng, ti, M * K, 3);
    const auto B = random_values(rng, ti, K * N, 3);
    const auto C0 = random_values(rng, ta, M * N, 3);
    std::vector<u64> C = C0;
    lf::status st{};
    lf::gemm(m, M, N, K, A, B, C, &st);
    lf::status st_dots{};
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        std::vector<u64> row(A.begin() + static_cast<long>(i * K), A.begin() + static_cast<long>((i + 1) * K)), col;
        for (std::size_t k = 0; k < K; ++k) col.push_back(B[k * N + j]);
        const lf::value d = lf::dot(m, row, col, lf::value{m.accumulator, C0[i * N + j]}, &st_dots);
        CHECK(C[i * N + j] == d.bits);
      }
    CHECK(st == st_dots);
  }
}

TEST_CASE("gemm with an fp16 dot started at C matches the oracle replay") {
  std::mt19937_64 rng(6);
  const lf::accumulation m = lf::accumulations::fp32_acc;
  const auto a = random_values(rng, oracle::binary16, 30, 4);
  const auto b = random_values(rng, oracle::binary16, 30, 4);
  const u64 c = random_values(rng, oracle::binary32, 1, 4)[0];
  replay ref(m, a, b);
  ref.set_dot();
  const u64 want = ref.run(c);
  // A 1 x 30 times 30 x 1 gemm.
  std::vector<u64> C{c};
  lf::status st{};
  lf::gemm(m, 1, 1, 30, a, b, C, &st);
  CHECK(C[0] == want);
  CHECK(int{lf::to_bits(st)} == int{ref.flags});
}

TEST_CASE("gemm is bit-identical for 1, 2, 3 and automatic threads") {
  std::mt19937_64 rng(8);
  const std::size_t M = 48, N = 40, K = 36;  // M*N*K = 69120 >= gemm_parallel_min_work: automatic threads too
  static_assert(48 * 40 * 36 >= lf::gemm_parallel_min_work);
  lf::accumulation sr = lf::accumulations::fp16_acc;
  sr.accumulator_env = lf::env{lf::rounding::stochastic};
  sr.seed = 1234;
  for (const lf::accumulation& m : {lf::accumulations::fp32_acc, lf::accumulations::fp16_kahan,
                                    lf::accumulations::fp16_pairwise, sr}) {
    CAPTURE(lf::describe(m));
    const auto A = random_values(rng, target_of(m.input), M * K, 4);
    const auto B = random_values(rng, target_of(m.input), K * N, 4);
    const auto C0 = random_values(rng, target_of(m.accumulator), M * N, 4);
    std::vector<u64> ref = C0;
    lf::status st_ref{};
    lf::gemm(m, M, N, K, A, B, ref, &st_ref, 1);
    for (unsigned threads : {2u, 3u, 0u}) {
      std::vector<u64> C = C0;
      lf::status st{};
      lf::gemm(m, M, N, K, A, B, C, &st, threads);
      CHECK(C == ref);
      CHECK(st == st_ref);
    }
  }
}

TEST_CASE("typed gemm: fp16 A and B, fp32 C") {
  const std::vector<lf::fp16> A{lf::fp16{1.0}, lf::fp16{2.0}, lf::fp16{3.0}, lf::fp16{4.0}};  // 2 x 2
  const std::vector<lf::fp16> B{lf::fp16{0.5}, lf::fp16{-1.0}, lf::fp16{0.25}, lf::fp16{2.0}};
  std::vector<lf::fp32> C{lf::fp32{1.0f}, lf::fp32{0.0f}, lf::fp32{0.0f}, lf::fp32{-1.0f}};
  lf::status st{};
  lf::gemm(lf::accumulations::fp32_acc, 2, 2, 2, A, B, C, &st);
  // [1 2; 3 4] * [0.5 -1; 0.25 2] = [1 3; 2.5 5], plus C.
  CHECK(static_cast<double>(C[0]) == 2.0);
  CHECK(static_cast<double>(C[1]) == 3.0);
  CHECK(static_cast<double>(C[2]) == 2.5);
  CHECK(static_cast<double>(C[3]) == 4.0);
  CHECK(st == lf::status::none);
}

// ---- specials and flags ---------------------------------------------------------------------

TEST_CASE("NaN and infinity propagate; flags are the OR of every step") {
  const auto& m = lf::accumulations::fp16_acc;
  auto h = [](double v) { return lf::fp16{v}; };
  lf::status st{};
  // A quiet NaN term: the result is that NaN (0x7E01 stays 0x7E01: first NaN operand), no flag.
  std::vector<lf::fp16> x{h(1.0), lf::fp16::from_bits(0x7E01), h(2.0)};
  CHECK(lf::sum(m, x, &st).bits == 0x7E01);
  CHECK(st == lf::status::none);
  // A signalling NaN is quieted (0x7C01 -> 0x7E01) and raises invalid.
  st = {};
  x[1] = lf::fp16::from_bits(0x7C01);
  CHECK(lf::sum(m, x, &st).bits == 0x7E01);
  CHECK(st == lf::status::invalid);
  // inf + -inf: the default NaN 0xFE00 and invalid.
  st = {};
  const std::vector<lf::fp16> infs{h(INFINITY), h(1.0), h(-INFINITY)};
  CHECK(lf::sum(m, infs, &st).bits == 0xFE00);
  CHECK(st == lf::status::invalid);
  // Overflow: 65504 + 65504 -> inf, overflow | inexact; then + 1 stays inf.
  st = {};
  const std::vector<lf::fp16> big{h(65504.0), h(65504.0), h(1.0)};
  CHECK(lf::sum(m, big, &st).bits == 0x7C00);
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  // Kahan on an overflow: c = (inf - s) - y = inf, then y = t - inf, inf + -inf = NaN (documented).
  st = {};
  CHECK(lf::sum(lf::accumulations::fp16_kahan, big, &st).is_nan());
  CHECK(lf::has(st, lf::status::invalid));
  // dot: 0 * inf is invalid under every product mode.
  for (auto prod : {lf::product_mode::exact, lf::product_mode::fused, lf::product_mode::rounded}) {
    lf::accumulation d{.input = lf::binary16, .products = prod, .product_format = lf::binary16, .accumulator = lf::binary32};
    st = {};
    const std::vector<lf::fp16> a{h(1.0), h(0.0)}, b{h(2.0), h(INFINITY)};
    CHECK(lf::dot(d, a, b, &st).bits == 0xFFC00000);
    CHECK(st == lf::status::invalid);
  }
  // Underflow: an fp16 product 2^-14 * 2^-14 = 2^-28 rounded to fp16 is 0 (below 2^-25): underflow | inexact.
  st = {};
  const std::vector<lf::fp16> tiny{h(0x1p-14)};
  CHECK(lf::dot(m, tiny, tiny, &st).bits == 0);
  CHECK(st == (lf::status::underflow | lf::status::inexact));
  // ... exact in fp32 (fp32-acc): 2^-28, no flag.
  st = {};
  CHECK(lf::dot(lf::accumulations::fp32_acc, tiny, tiny, &st).to_double() == 0x1p-28);
  CHECK(st == lf::status::none);
  // Exact integer sums raise nothing.
  st = {};
  const std::vector<lf::fp16> ints{h(1.0), h(2.0), h(-3.0), h(1024.0)};
  CHECK(lf::sum(m, ints, &st).to_double() == 1024.0);
  CHECK(st == lf::status::none);
}

TEST_CASE("the accumulator env's policies apply to every step (FTZ, DAZ, saturation)") {
  auto h = [](double v) { return lf::fp16{v}; };
  lf::accumulation m = lf::accumulations::fp16_acc;
  // 2^-14 - (2^-14 - 2^-24) = 2^-24, the smallest subnormal: kept by default, flushed under FTZ.
  const std::vector<lf::fp16> x{h(0x1p-14), h(-(0x1p-14 - 0x1p-24))};
  lf::status st{};
  CHECK(lf::sum(m, x, &st).bits == 0x0001);
  CHECK(st == lf::status::none);
  m.accumulator_env.policy.results = lf::subnormal_results::flush_to_zero;
  st = {};
  CHECK(lf::sum(m, x, &st).bits == 0x0000);
  CHECK(lf::has(st, lf::status::underflow));
  // DAZ: a subnormal term reads as zero.
  m = lf::accumulations::fp16_acc;
  m.accumulator_env.policy.inputs = lf::subnormal_inputs::treat_as_zero;
  const std::vector<lf::fp16> y{h(1.0), lf::fp16::from_bits(0x0001)};
  CHECK(lf::sum(m, y).to_double() == 1.0);
  CHECK(lf::sum(m, std::vector<lf::fp16>{lf::fp16::from_bits(0x0001)}).bits == 0);
  // Saturation: 65504 + 65504 stays 65504 (0x7BFF).
  m = lf::accumulations::fp16_acc;
  m.accumulator_env.policy.overflow = lf::overflow_policy::saturate;
  CHECK(lf::sum(m, std::vector<lf::fp16>{h(65504.0), h(65504.0)}).bits == 0x7BFF);
}

// ---- errors ---------------------------------------------------------------------------------

TEST_CASE("errors: mismatched lengths, invalid models, wrong typed formats give NaN and invalid") {
  const auto& m = lf::accumulations::fp32_acc;
  const std::vector<lf::fp16> a(3, lf::fp16{1.0}), b(4, lf::fp16{1.0});
  lf::status st{};
  lf::trace tr;
  const lf::value r = lf::dot(m, a, b, &st, &tr);
  CHECK(r.bits == 0xFFC00000);  // binary32 default NaN
  CHECK(r.fmt == lf::binary32);
  CHECK(st == lf::status::invalid);
  CHECK(tr.steps.empty());
  st = {};
  CHECK(lf::dot(m, std::vector<u64>{1, 2}, std::vector<u64>{1}, &st).is_nan());
  CHECK(st == lf::status::invalid);
  // A typed range of the wrong format.
  st = {};
  CHECK(lf::sum(m, std::vector<lf::bf16>(2, lf::bf16{1.0}), &st).is_nan());
  CHECK(st == lf::status::invalid);
  // Exact products need the input to fit in the accumulator: bf16 does not fit in fp16.
  lf::accumulation bad{.input = lf::bfloat16, .products = lf::product_mode::exact, .accumulator = lf::binary16};
  REQUIRE(bad.invalid_reason());
  CHECK(bad.invalid_reason()->find("bf16") != std::string::npos);
  st = {};
  CHECK(lf::sum(bad, std::vector<lf::bf16>(2, lf::bf16{1.0}), &st).bits == 0xFE00);
  CHECK(st == lf::status::invalid);
  bad.products = lf::product_mode::fused;  // fine: the inputs are rounded to fp16 first
  CHECK_FALSE(bad.invalid_reason());
  lf::accumulation blocked = lf::accumulations::fp16_blocked;
  blocked.block_size = 0;
  CHECK(blocked.invalid_reason());
  lf::accumulation pk = lf::accumulations::fp16_pairwise;
  pk.compensation = lf::compensation::kahan;
  CHECK(pk.invalid_reason());
  // gemm: wrong sizes fill C with NaN.
  std::vector<u64> C(4, 0);
  st = {};
  lf::gemm(m, 2, 2, 2, std::vector<u64>(4, 0x3C00), std::vector<u64>(3, 0x3C00), C, &st);
  CHECK(C == std::vector<u64>(4, 0xFFC00000));
  CHECK(st == lf::status::invalid);
}

// ---- presets, names, formats ----------------------------------------------------------------

TEST_CASE("presets: every one is valid, found by name; unknown names list the known ones") {
  for (const auto& n : lf::named_accumulations) {
    CAPTURE(std::string(n.name));
    CHECK_FALSE(n.model.invalid_reason());
    const auto found = lf::accumulation_by_name(n.name);
    REQUIRE(found);
    CHECK(lf::describe(*found) == lf::describe(n.model));
  }
  std::string error;
  CHECK_FALSE(lf::accumulation_by_name("fp17-acc", &error));
  CHECK(error.find("fp17-acc") != std::string::npos);
  CHECK(error.find("fp16-acc, fp16-fma") != std::string::npos);
  CHECK(error.find("fp32-acc") != std::string::npos);
  CHECK(lf::describe(lf::accumulations::fp16_acc) ==
        "fp16 inputs, products rounded to fp16, fp16 accumulator (nearest_even), sequential");
  CHECK(lf::describe(lf::accumulations::fp16_kahan) ==
        "fp16 inputs, products rounded to fp16, fp16 accumulator (nearest_even), sequential, kahan compensation");
  CHECK(lf::describe(lf::accumulations::fp32_split_k) ==
        "fp16 inputs, exact products, fp32 accumulator (nearest_even), split_k (4 splits)");
}

TEST_CASE("fits_in: which formats hold every value of which") {
  CHECK(lf::fits_in(lf::binary16, lf::binary32));
  CHECK(lf::fits_in(lf::bfloat16, lf::binary32));
  CHECK(lf::fits_in(lf::tfloat32, lf::binary32));
  CHECK(lf::fits_in(lf::float8_e4m3fn, lf::binary16));
  CHECK(lf::fits_in(lf::float8_e5m2, lf::binary16));
  CHECK(lf::fits_in(lf::binary32, lf::binary64));
  CHECK(lf::fits_in(lf::binary16, lf::binary16));
  CHECK_FALSE(lf::fits_in(lf::bfloat16, lf::binary16));  // range: 2^127 > 65504
  CHECK_FALSE(lf::fits_in(lf::binary16, lf::bfloat16));  // precision: 11 > 8
  CHECK(lf::fits_in(lf::binary16, lf::tfloat32));  // tf32: p = 11 with binary32's range
  CHECK_FALSE(lf::fits_in(lf::float8_e5m2, lf::float8_e4m3fn));  // infinity has nowhere to go
  CHECK_FALSE(lf::fits_in(lf::binary32, lf::binary16));
  CHECK_FALSE(lf::fits_in(lf::float8_e4m3fn, lf::float8_e5m2));  // precision 4 > 3
}

TEST_CASE("value: to_double, to<F>, the init overloads") {
  const lf::value v{lf::binary16, 0x3555};  // 0b0'01101'0101010101 = 0.333251953125
  CHECK(v.to_double() == 0.333251953125);
  CHECK(v.to<lf::binary16>().bits() == 0x3555);
  CHECK(static_cast<double>(v.to<lf::binary32>()) == 0.333251953125);
  const lf::value typed = lf::fp16{0.5};
  CHECK(typed.fmt == lf::binary16);
  CHECK(typed.bits == 0x3800);
  // sum and dot with a start value (converted to the accumulator format, exact here).
  const std::vector<lf::fp16> x{lf::fp16{1.0}, lf::fp16{2.0}};
  CHECK(lf::sum(lf::accumulations::fp32_acc, x, lf::fp16{0.5}).to_double() == 3.5);
  CHECK(lf::dot(lf::accumulations::fp32_acc, x, x, lf::fp32{-5.0f}).to_double() == 0.0);
  // An empty sum is the start value (+0 by default).
  const std::vector<lf::fp16> none;
  CHECK(lf::sum(lf::accumulations::fp32_acc, none).bits == 0);
}
