// models/matrix_unit.hpp: every tensor-core test vector of the model's sources (Fasi, Higham,
// Mikaitis, Pranesh, PeerJ Comput. Sci. 7:e330, 2021; Khattak and Mikaitis, MATLAB-tensor-core;
// MMA-Sim, arXiv 2511.10909) as a named test, the behaviours the header documents (chaining,
// specials, overflow, mismatched lengths, subnormal handling, gemm),
// and an independent oracle: the block-FMA model written a second time here with Boost cpp_int
// (values decoded from their bit fields here, products and sums exact on a fixed grid 2^-400,
// an explicit floor of each magnitude onto the grid 2^(emax - F), the final rounding by
// tests/support/oracle.hpp), compared bit for bit on random blocks for every preset.
#include <libfloat/models.hpp>

#include <doctest/doctest.h>

#include "../support/oracle.hpp"
#include "../support/sanitizer.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
using boost::multiprecision::cpp_int;
namespace units = lf::matrix_units;

u32 bits_of(lf::fp32 x) { return x.bits(); }
double value_of(lf::fp32 x) { return static_cast<double>(x); }

template <class T>
std::vector<T> values(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double d : v) {
    out.push_back(T(d));
    REQUIRE(static_cast<double>(out.back()) == d);  // every test input is exact in its format
  }
  return out;
}

// ---- the reference model (independent of libfloat) ---------------------------------------------

namespace ref {

/// Every value here (products of two bfloat16 subnormals: 2^-266) is a multiple of 2^kLsb.
constexpr long kLsb = -400;

/// A decoded encoding: |x| = mag * 2^kLsb; e = the exponent field's value (floor(log2|x|) for a
/// normal number, emin for a subnormal one).
struct value {
  bool nan = false, inf = false, neg = false;
  cpp_int mag = 0;
  long e = 0;
};

value fields(const oracle::target& t, u64 bits) {
  const int w = t.bits - t.p;
  const u64 field_max = (u64{1} << w) - 1, frac_mask = (u64{1} << (t.p - 1)) - 1;
  const u64 E = (bits >> (t.p - 1)) & field_max, M = bits & frac_mask;
  value v;
  v.neg = ((bits >> (t.bits - 1)) & 1) != 0;
  if (t.kind == oracle::layout::fnuz) {  // the one NaN is the negative-zero encoding; no infinity
    if (bits == t.sign_mask()) {
      v.nan = true;
      return v;
    }
  } else if (E == field_max && !t.nan_only) {
    (M == 0 ? v.inf : v.nan) = true;
    return v;
  }
  if (t.kind != oracle::layout::fnuz && E == field_max && t.nan_only && M == frac_mask) {
    v.nan = true;
    return v;
  }
  const long bias = 1 - t.emin;
  if (E == 0) {
    v.e = t.emin;
    v.mag = cpp_int(M) << static_cast<unsigned>(t.emin - (t.p - 1) - kLsb);
  } else {
    v.e = static_cast<long>(E) - bias;
    v.mag = cpp_int((u64{1} << (t.p - 1)) | M) << static_cast<unsigned>(v.e - (t.p - 1) - kLsb);
  }
  return v;
}

enum class cut { truncate, floor, exact };

struct params {
  int N;
  int F;
  int k;  // fraction bits kept at the output
  cut alignment;
  oracle::mode final_mode;
  oracle::target out;
};

struct term {
  bool neg;
  cpp_int mag;
  long e;
};

/// One block FMA, the model of Fasi et al. (2021) and MATLAB-tensor-core stated directly.
u64 block(const params& P, const oracle::target& ta, const std::vector<u64>& a, const oracle::target& tb,
          const std::vector<u64>& b, std::size_t first, std::size_t n, u64 c) {
  std::vector<term> terms;
  bool all_negative_zero = true;
  for (std::size_t i = first; i < first + n; ++i) {
    const value x = fields(ta, a[i]), y = fields(tb, b[i]);
    if (x.nan || x.inf || y.nan || y.inf) throw std::logic_error("reference block: finite operands only");
    if (x.mag == 0 || y.mag == 0) {
      all_negative_zero = all_negative_zero && (x.neg != y.neg);
      continue;
    }
    // exact product: (mx 2^L)(my 2^L) = (mx my 2^L) 2^L, and mx my is a multiple of 2^-L
    static const cpp_int below_grid = (cpp_int(1) << static_cast<unsigned>(-kLsb)) - 1;
    const cpp_int p = x.mag * y.mag;
    if ((p & below_grid) != 0) throw std::logic_error("reference: grid too coarse");
    terms.push_back({x.neg != y.neg, p >> static_cast<unsigned>(-kLsb), x.e + y.e});
  }
  const value z = fields(P.out, c);
  if (z.nan) throw std::logic_error("reference block: NaN c");
  if (z.inf) return c;  // finite products: an infinite c (an earlier block overflowed) stays
  if (z.mag == 0) all_negative_zero = all_negative_zero && z.neg;
  else terms.push_back({z.neg, z.mag, z.e});
  if (terms.empty()) return all_negative_zero ? P.out.sign_mask() : 0;

  long emax = terms[0].e;
  for (const auto& t : terms) emax = std::max(emax, t.e);
  const long g = emax - P.F;  // the grid 2^g
  cpp_int S = 0;
  for (const auto& t : terms) {
    cpp_int m = t.mag;
    if (P.alignment != cut::exact && g > kLsb) {
      const unsigned s = static_cast<unsigned>(g - kLsb);
      const cpp_int q = m >> s;  // floor(|t| / 2^g)
      const bool rest = (q << s) != m;
      m = q << s;
      if (P.alignment == cut::floor && t.neg && rest) m += cpp_int(1) << s;  // floor of a negative value
    }
    S += t.neg ? cpp_int(-m) : m;
  }
  if (S == 0) return 0;
  const oracle::exact x = oracle::exact::dyadic(S < 0, S < 0 ? cpp_int(-S) : S, kLsb);
  const oracle::target kept{P.k + 1, P.out.emin, P.out.emax, 1 + (P.out.bits - P.out.p) + P.k, false};
  const oracle::result r = oracle::round(x, kept, P.final_mode);
  if (r.flags & oracle::flag::overflow) return (S < 0 ? P.out.sign_mask() : 0) | P.out.top_bits();
  return oracle::convert(P.out, kept, r.bits, oracle::mode::nearest_even).bits;  // exact widening
}

/// floor(v / 2^d), d >= 0, written out (not relying on how cpp_int shifts a negative value).
cpp_int floor_div_pow2(const cpp_int& v, long d) {
  if (d <= 0) return v;
  const cpp_int m = v < 0 ? cpp_int(-v) : v;
  const cpp_int q = m >> static_cast<unsigned>(d);
  if (v >= 0) return q;
  return (q << static_cast<unsigned>(d)) == m ? cpp_int(-q) : cpp_int(-q - 1);
}

/// AMD CDNA3 as MATLAB-tensor-core (MI300MC.m at b4bf135, Generic_BFMA_TC.m) and MMA-Sim
/// (amd_fused_dot_rd_add) describe it, restated: the block's nonzero products (all, or the even and
/// the odd positions apart) are cut toward zero onto 2^(M - F), M their largest exponent field sum;
/// two halves are combined with the smaller floored onto the larger's grid; c (exponent emin when
/// zero) is then added: when its exponent ec is the larger, the products' sum is floored onto
/// 2^(ec - F - X) and c is exact there; otherwise c is floored onto 2^(M - F), or dropped when ec <
/// M - drop (drop > 0); the sum is rounded once to nearest even. A product of 2^(emax + 1) or more
/// gives +-inf (NaN for both signs). An exact zero is +0.
struct late_params {
  int N, F, X, drop;
  bool halves;
  oracle::target out;
};

u64 late_block(const late_params& L, const oracle::target& ta, const std::vector<u64>& a, const oracle::target& tb,
               const std::vector<u64>& b, std::size_t first, std::size_t n, u64 c) {
  const value z = fields(L.out, c);
  if (z.nan) return L.out.sign_mask() | L.out.top_bits() | (u64{1} << (L.out.p - 2));  // an earlier block's NaN
  if (z.inf) return c;
  struct prod {
    bool neg;
    cpp_int mag;  // |p| = mag * 2^kLsb
    long e;
    std::size_t pos;
  };
  std::vector<prod> ps;
  bool pos_big = false, neg_big = false;
  const cpp_int big = cpp_int(1) << static_cast<unsigned>(L.out.emax + 1 - kLsb);
  for (std::size_t i = 0; i < n; ++i) {
    const value x = fields(ta, a[first + i]), y = fields(tb, b[first + i]);
    if (x.nan || x.inf || y.nan || y.inf) throw std::logic_error("reference late block: finite operands only");
    if (x.mag == 0 || y.mag == 0) continue;
    const cpp_int m = (x.mag * y.mag) >> static_cast<unsigned>(-kLsb);  // exact (see block)
    if (m >= big) (x.neg != y.neg ? neg_big : pos_big) = true;
    ps.push_back({x.neg != y.neg, m, x.e + y.e, i});
  }
  if (pos_big && neg_big) return L.out.sign_mask() | L.out.top_bits() | (u64{1} << (L.out.p - 2));  // default NaN
  if (pos_big || neg_big) return (neg_big ? L.out.sign_mask() : 0) | L.out.top_bits();
  // One group: M and the sum in units of 2^(M - F).
  auto group = [&](int parity, long& M, cpp_int& S) {
    bool any = false;
    for (const auto& p : ps)
      if (parity < 0 || static_cast<int>(p.pos % 2) == parity) {
        M = any ? std::max(M, p.e) : p.e;
        any = true;
      }
    S = 0;
    for (const auto& p : ps)
      if (parity < 0 || static_cast<int>(p.pos % 2) == parity) {
        const long s = M - L.F - kLsb;  // |p| / 2^(M - F) = mag / 2^s
        const cpp_int t = p.mag >> static_cast<unsigned>(s);  // toward zero
        S += p.neg ? cpp_int(-t) : t;
      }
    return any;
  };
  long M = 0;
  cpp_int S = 0;
  bool any;
  if (!L.halves) {
    any = group(-1, M, S);
  } else {
    long Me = 0, Mo = 0;
    cpp_int Se, So;
    const bool ae = group(0, Me, Se), ao = group(1, Mo, So);
    any = ae || ao;
    if (ae && ao) {
      M = std::max(Me, Mo);
      S = floor_div_pow2(Se, M - Me) + floor_div_pow2(So, M - Mo);
    } else {
      M = ae ? Me : Mo;
      S = ae ? Se : So;
    }
  }
  const long ec = z.mag == 0 ? L.out.emin : z.e;
  // c in units of 2^(ec - F): mag / 2^(ec - F - kLsb), exact (c has p - 1 <= F fraction bits)
  cpp_int C = z.mag >> static_cast<unsigned>(ec - L.F - kLsb);
  if (z.neg) C = -C;
  cpp_int total;
  long unit;  // the sum is total * 2^unit
  if (!any) {
    total = C;
    unit = ec - L.F;
  } else if (M < ec) {
    unit = ec - L.F - L.X;
    const long d = unit - (M - L.F);
    total = (d >= 0 ? floor_div_pow2(S, d) : cpp_int(S << static_cast<unsigned>(-d))) + (C << static_cast<unsigned>(L.X));
  } else if (L.drop > 0 && ec < M - L.drop) {
    total = S;
    unit = M - L.F;
  } else {
    total = S + floor_div_pow2(C, M - ec);
    unit = M - L.F;
  }
  if (total == 0) return 0;
  const oracle::exact x = oracle::exact::dyadic(total < 0, total < 0 ? cpp_int(-total) : total, unit);
  const oracle::result r = oracle::round(x, L.out, oracle::mode::nearest_even);
  if (r.flags & oracle::flag::overflow) return (total < 0 ? L.out.sign_mask() : 0) | L.out.top_bits();
  return r.bits;
}

u64 chain(const params& P, const oracle::target& ta, const std::vector<u64>& a, const oracle::target& tb,
          const std::vector<u64>& b, std::size_t first, std::size_t n, u64 c) {
  for (std::size_t s = 0; s < n; s += static_cast<std::size_t>(P.N))
    c = block(P, ta, a, tb, b, first + s, std::min<std::size_t>(static_cast<std::size_t>(P.N), n - s), c);
  return c;
}

}  // namespace ref

// ---- random data ----------------------------------------------------------------------------

/// A random finite encoding of t around exponent field `center` (+- spread), with zeros and
/// subnormals.
u64 random_finite(const oracle::target& t, std::mt19937_64& rng, long center, long spread) {
  const int w = t.bits - t.p;
  const u64 field_max = (u64{1} << w) - 1;
  const bool fnuz = t.kind == oracle::layout::fnuz;
  const u64 top = t.nan_only || fnuz ? field_max : field_max - 1;
  const u64 sign = (rng() & 1) ? t.sign_mask() : 0;
  u64 frac = rng() & t.frac_mask();
  const unsigned pick = rng() % 16;
  if (pick == 0) return fnuz ? 0 : sign;  // (fnuz: the negative-zero encoding is the NaN)
  if (pick == 1) return sign | (frac == 0 ? 1 : frac);
  long e = center + static_cast<long>(rng() % static_cast<u64>(2 * spread + 1)) - spread;
  e = std::clamp<long>(e, 1, static_cast<long>(top));
  if (t.nan_only && static_cast<u64>(e) == field_max && frac == t.frac_mask()) frac -= 1;
  return sign | (static_cast<u64>(e) << (t.p - 1)) | frac;
}

/// The value of a finite encoding of t as a double (test data generation only).
double to_double(const oracle::target& t, u64 bits) {
  const int w = t.bits - t.p;
  const u64 E = (bits >> (t.p - 1)) & ((u64{1} << w) - 1), M = bits & t.frac_mask();
  const double sign = ((bits >> (t.bits - 1)) & 1) ? -1.0 : 1.0;
  if (E == 0) return sign * std::ldexp(static_cast<double>(M), t.emin - (t.p - 1));
  return sign * std::ldexp(static_cast<double>((u64{1} << (t.p - 1)) | M), static_cast<int>(E) - (1 - t.emin) - (t.p - 1));
}

struct block_data {
  std::vector<u64> a, b;
  u64 c;
};

/// K products of ta x tb values plus a binary32 (or `out`) c of a comparable, random magnitude;
/// sometimes c cancels the products' sum.
block_data random_block(const oracle::target& ta, const oracle::target& tb, const oracle::target& out,
                        std::mt19937_64& rng, std::size_t K) {
  auto field_range = [](const oracle::target& t) { return static_cast<long>((u64{1} << (t.bits - t.p)) - 2); };
  const long spreads[] = {0, 1, 4, 12, 300};
  const long sa = spreads[rng() % 5], sb = spreads[rng() % 5];
  const long ca = 1 + static_cast<long>(rng() % static_cast<u64>(field_range(ta)));
  const long cb = 1 + static_cast<long>(rng() % static_cast<u64>(field_range(tb)));
  block_data d;
  double approx = 0;
  for (std::size_t i = 0; i < K; ++i) {
    d.a.push_back(random_finite(ta, rng, ca, sa));
    d.b.push_back(random_finite(tb, rng, cb, sb));
    approx += to_double(ta, d.a.back()) * to_double(tb, d.b.back());  // only to make c cancel: need not be exact
  }
  const unsigned pick = rng() % 8;
  if (pick == 0) {
    d.c = 0;
  } else if (pick == 1 && approx != 0) {  // cancellation: c = -(the products' sum rounded to out)
    d.c = oracle::round(oracle::exact::from_double(-approx), out, oracle::mode::nearest_even).bits;
    if (oracle::decode(out, d.c).value.is_inf()) d.c = 0;
  } else {
    // c's exponent near the products': e(a) + e(b) + [-30, 30]
    const long pe = (ca - (1 - ta.emin)) + (cb - (1 - tb.emin));
    const long field = pe + (1 - out.emin) + static_cast<long>(rng() % 61) - 30;
    d.c = random_finite(out, rng, std::clamp<long>(field, 1, field_range(out)), static_cast<long>(rng() % 3));
  }
  return d;
}

oracle::target target_of(const lf::format& f) {
  if (f == lf::binary16) return oracle::binary16;
  if (f == lf::bfloat16) return oracle::bfloat16;
  if (f == lf::tfloat32) return oracle::tf32;
  if (f == lf::float8_e4m3fn) return oracle::e4m3;
  if (f == lf::float8_e5m2) return oracle::e5m2;
  if (f == lf::binary32) return oracle::binary32;
  if (f == lf::float8_e4m3fnuz) return oracle::e4m3fnuz;
  if (f == lf::float8_e5m2fnuz) return oracle::e5m2fnuz;
  FAIL("no oracle target for this format");
  return oracle::binary32;
}

template <lf::format F>
std::vector<lf::fp<F>> typed(const std::vector<u64>& bits) {
  std::vector<lf::fp<F>> v;
  for (u64 b : bits) v.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(b)));
  return v;
}

/// The reference result of unit u (its parameters restated for the oracle) on one dot product.
u64 reference_dot_signed(const lf::matrix_unit& u, const oracle::target& ta, const block_data& d,
                         const oracle::target& tb);
/// The model's result: with positive_zero (the Hopper presets), a zero of either sign is +0.
u64 reference_dot(const lf::matrix_unit& u, const oracle::target& ta, const block_data& d, const oracle::target& tb) {
  const u64 r = reference_dot_signed(u, ta, d, tb);
  const u64 sign = u64{1} << (target_of(u.output).bits - 1);
  return u.positive_zero && (r & ~sign) == 0 ? 0 : r;
}
u64 reference_dot_signed(const lf::matrix_unit& u, const oracle::target& ta, const block_data& d,
                         const oracle::target& tb) {
  const oracle::target out = target_of(u.output);
  const ref::params P{u.block_size, u.alignment_bits, u.output_fraction_bits,
                      u.alignment == lf::alignment_rounding::truncate ? ref::cut::truncate
                      : u.alignment == lf::alignment_rounding::floor  ? ref::cut::floor
                                                                      : ref::cut::exact,
                      u.final_rounding == lf::rounding::toward_zero ? oracle::mode::toward_zero
                                                                     : oracle::mode::nearest_even,
                      out};
  const std::size_t K = d.a.size();
  switch (u.model) {
    case lf::matrix_unit_model::block_fma: return ref::chain(P, ta, d.a, tb, d.b, 0, K, d.c);
    case lf::matrix_unit_model::cuda_core_fma: {
      u64 c = d.c;
      for (std::size_t i = 0; i < K; ++i) {
        const u64 x = oracle::convert(out, ta, d.a[i], oracle::mode::nearest_even).bits;
        const u64 y = oracle::convert(out, tb, d.b[i], oracle::mode::nearest_even).bits;
        c = oracle::fma(out, x, y, c, oracle::mode::nearest_even).bits;
      }
      return c;
    }
    case lf::matrix_unit_model::late_accumulation: {
      const ref::late_params L{u.block_size, u.alignment_bits, u.late_extra_bits, u.late_c_drop, u.odd_even_halves, out};
      u64 c = d.c;
      for (std::size_t s = 0; s < K; s += L.N)
        c = ref::late_block(L, ta, d.a, tb, d.b, s, std::min<std::size_t>(static_cast<std::size_t>(L.N), K - s), c);
      return c;
    }
    case lf::matrix_unit_model::pairwise_tree: {
      // Restated from models/matrix_unit.hpp (pairwise_tree) with the oracle's operations: a
      // subnormal is a nonzero encoding whose exponent field is 0; flushing an input gives +0,
      // flushing a rounded output keeps its sign; the tree's halves split at floor(len / 2) and
      // its missing leaves are +0.
      const oracle::mode m = P.final_mode;
      auto subnormal = [](const oracle::target& t, u64 x) {
        return (x & ~t.sign_mask() & t.mask()) != 0 && ((x >> (t.p - 1)) & ((u64{1} << t.w()) - 1)) == 0;
      };
      const bool flush_in = u.input_subnormals == lf::subnormal_handling::flush;
      const bool flush_out = u.output_subnormals == lf::subnormal_handling::flush;
      auto out_flush = [&](u64 x) { return flush_out && subnormal(out, x) ? (x & out.sign_mask()) : x; };
      auto in = [&](const oracle::target& t, u64 x) {
        return oracle::convert(out, t, flush_in && subnormal(t, x) ? 0 : x, m).bits;
      };
      const auto N = static_cast<std::size_t>(u.block_size);
      u64 c = flush_out && subnormal(out, d.c) ? 0 : d.c;
      for (std::size_t s = 0; s < K; s += N) {
        const std::size_t n = std::min(N, K - s);
        auto tree = [&](auto&& self, std::size_t lo, std::size_t hi) -> u64 {
          if (hi - lo == 1)
            return lo < n ? out_flush(oracle::mul(out, in(ta, d.a[s + lo]), in(tb, d.b[s + lo]), m).bits) : 0;
          const std::size_t mid = lo + (hi - lo) / 2;
          return out_flush(oracle::add(out, self(self, lo, mid), self(self, mid, hi), m).bits);
        };
        c = out_flush(oracle::add(out, c, tree(tree, 0, N), m).bits);
        // the default NaN: quiet, with the sign set (the x86 convention libfloat follows)
        if (oracle::is_nan(out, c)) c = out.sign_mask() | out.top_bits() | (u64{1} << (out.p - 2));
      }
      return c;
    }
    case lf::matrix_unit_model::fp8_promotion: {
      u64 acc = d.c;
      const auto P128 = static_cast<std::size_t>(u.promotion_interval);
      for (std::size_t s = 0; s < K; s += P128) {
        const u64 partial = ref::chain(P, ta, d.a, tb, d.b, s, std::min(P128, K - s), 0);
        acc = oracle::add(out, acc, partial, oracle::mode::nearest_even).bits;
      }
      return acc;
    }
  }
  return 0;
}

/// Under AddressSanitizer (the dev preset) every cpp_int allocation is slow: the random comparisons
/// run a sixty-fourth of their trials there (release runs them all, in about 3 s).
constexpr int kTrialDivisor = 64;

/// `trials` random dot products of lengths 1..max_k on unit u with inputs of formats F x G,
/// compared bit for bit with reference_dot.
template <lf::format F, lf::format G>
void compare_with_reference(const lf::matrix_unit& u, const char* name, int trials, std::size_t max_k, u64 seed) {
  std::mt19937_64 rng(seed);
  const oracle::target ta = target_of(F), tb = target_of(G), out = target_of(u.output);
  int mismatches = 0;
  trials = test_sanitizer::scaled(trials, kTrialDivisor);
  for (int t = 0; t < trials; ++t) {
    const std::size_t K = 1 + rng() % max_k;
    const block_data d = random_block(ta, tb, out, rng, K);
    const auto a = typed<F>(d.a);
    const auto b = typed<G>(d.b);
    lf::status st{};
    u64 got;
    if (u.output == lf::binary32) {
      got = lf::dot(u, std::span<const lf::fp<F>>(a), std::span<const lf::fp<G>>(b), lf::fp32::from_bits(static_cast<u32>(d.c)), &st).bits();
    } else {
      got = lf::dot(u, F, std::span<const u64>(d.a), G, std::span<const u64>(d.b), d.c, st);
    }
    const u64 want = reference_dot(u, ta, d, tb);
    if (got != want && ++mismatches <= 5) {
      std::string s;
      for (std::size_t i = 0; i < K; ++i) s += oracle::hex(d.a[i], ta.bits) + "*" + oracle::hex(d.b[i], tb.bits) + " ";
      FAIL_CHECK(std::string(name) << ": " << s << "+ c " << oracle::hex(d.c, out.bits) << ": got " << oracle::hex(got, out.bits)
                      << ", want " << oracle::hex(want, out.bits));
    }
  }
  const std::string summary = std::string(name) + ": " + std::to_string(mismatches) + " of " + std::to_string(trials) + " differ";
  CHECK_MESSAGE(mismatches == 0, summary);
}

}  // namespace

// ---- test vectors of the model's sources (Fasi et al. 2021; MATLAB-tensor-core; MMA-Sim) ---------

TEST_CASE("1*1 + c, c = -(1 - 2^-24): V100 gives 2^-23, A100 and H100 give 2^-24 (exact)") {
  // c = -0.111...1 (24 ones) * 2^0. emax = 0. V100 aligns onto 2^-23: |c| truncates to 1 - 2^-23,
  // so 1 + c = 2^-23. F = 24 (A100, T4) and F = 25 (H100, B200) keep c exactly: 2^-24.
  const auto one = values<lf::fp16>({1.0});
  const lf::fp32 c(-(1.0 - 0x1p-24));
  CHECK(value_of(lf::dot(units::volta_fp16, one, one, c)) == 0x1p-23);
  CHECK(value_of(lf::dot(units::ampere_fp16, one, one, c)) == 0x1p-24);
  CHECK(value_of(lf::dot(units::hopper_fp16, one, one, c)) == 0x1p-24);
  CHECK(value_of(lf::dot(units::turing_fp16, one, one, c)) == 0x1p-24);
  CHECK(value_of(lf::dot(units::blackwell_fp16, one, one, c)) == 0x1p-24);
  const auto one_bf = values<lf::bf16>({1.0});
  CHECK(value_of(lf::dot(units::ampere_bf16, one_bf, one_bf, c)) == 0x1p-24);
  CHECK(value_of(lf::dot(units::hopper_bf16, one_bf, one_bf, c)) == 0x1p-24);
  // V100 drops bits: inexact.
  lf::status st{};
  (void)lf::dot(units::volta_fp16, one, one, c, &st);
  CHECK(st == lf::status::inexact);
}

TEST_CASE("1*2 + 1*(2^-23 + 2^-24), c = 0: 2.0 on every architecture; binary32 round-to-nearest gives 2 + 2^-22") {
  // 2^-23 + 2^-24 = 3 * 2^-24 is the fp16 subnormal 0x0003. emax = e(1 * 2) = 1, the grid 2^(1 - F):
  // V100 (F = 23, grid 2^-22) drops the small product, A100 (2^-23) keeps 2^-23 of it, H100 (2^-24)
  // all of it; either way the sum is then truncated to 23 fraction bits at exponent 1 (unit 2^-22): 2.
  const auto a = values<lf::fp16>({1.0, 1.0});
  const auto b = values<lf::fp16>({2.0, 0x1p-23 + 0x1p-24});
  for (const auto& p : lf::matrix_unit_presets) {
    if (p.unit.model != lf::matrix_unit_model::block_fma || p.unit.input != lf::binary16) continue;
    CAPTURE(p.name);
    // B200TCRN.m's variant rounds that sum to nearest instead: 3 * 2^-24 is 0.75 of the unit 2^-22.
    const double want = p.unit.final_rounding == lf::rounding::toward_zero ? 2.0 : 2.0 + 0x1p-22;
    CHECK(value_of(lf::dot(p.unit, a, b, lf::fp32(0.0f))) == want);
  }
  const auto ab = values<lf::bf16>({1.0, 1.0}), bb = values<lf::bf16>({2.0, 0x1p-23 + 0x1p-24});
  const auto at = values<lf::tf32>({1.0, 1.0}), bt = values<lf::tf32>({2.0, 0x1p-23 + 0x1p-24});
  for (const auto* u : {&units::ampere_bf16, &units::hopper_bf16}) CHECK(value_of(lf::dot(*u, ab, bb, lf::fp32(0.0f))) == 2.0);
  for (const auto* u : {&units::ampere_tf32, &units::hopper_tf32, &units::blackwell_tf32})
    CHECK(value_of(lf::dot(*u, at, bt, lf::fp32(0.0f))) == 2.0);
  // binary32 round to nearest (the CUDA-core fma chain): 2 + 3*2^-24 = 2 + 0.75 ulp -> 2 + 2^-22
  CHECK(value_of(lf::dot(units::cuda_core_fp32, a, b, lf::fp32(0.0f))) == 2.0 + 0x1p-22);
  // The exact dot rounded to binary32 agrees with the fma chain here.
  CHECK(lf::exact_dot(a, b).round_to<lf::binary32>().bits() == bits_of(lf::fp32(2.0 + 0x1p-22)));
}

TEST_CASE("A100 is not monotonic: 0.5 * [2^-24, 2^-24, 2^-24, 2^-23 + 2^-24] + (1 - 2^-24) = 1 + 2^-23 but + 1 = 1") {
  // c = 1 - 2^-24 (exponent -1): grid 2^-25, products 2^-25, 2^-25, 2^-25, 3 * 2^-25 all kept:
  // 1 - 2^-24 + 6 * 2^-25 = 1 + 2^-23. c = 1 (exponent 0): grid 2^-24, 2^-25 -> 0 and
  // 3 * 2^-25 -> 2^-24: 1 + 2^-24, truncated to 23 fraction bits: 1. A larger c, a smaller result.
  const auto a = values<lf::fp16>({0.5, 0.5, 0.5, 0.5});
  const auto b = values<lf::fp16>({0x1p-24, 0x1p-24, 0x1p-24, 0x1p-23 + 0x1p-24});
  CHECK(value_of(lf::dot(units::ampere_fp16, a, b, lf::fp32(1.0 - 0x1p-24))) == 1.0 + 0x1p-23);
  CHECK(value_of(lf::dot(units::ampere_fp16, a, b, lf::fp32(1.0f))) == 1.0);
}

TEST_CASE("carry: products 1, 1.5, 1.75, 1.875 plus c = 1.875 give exactly 8 on every block unit") {
  // The sum 8 = 2^3 needs three carry bits above the largest term's exponent 0.
  const auto a = values<lf::fp16>({1.0, 1.5, 1.75, 1.875}), one = values<lf::fp16>({1.0, 1.0, 1.0, 1.0});
  const auto a8 = values<lf::fp8_e4m3>({1.0, 1.5, 1.75, 1.875}), one8 = values<lf::fp8_e4m3>({1.0, 1.0, 1.0, 1.0});
  for (const auto& p : lf::matrix_unit_presets) {
    CAPTURE(p.name);
    lf::status st{};
    const lf::fp32 r = p.unit.input == lf::float8_e4m3fn ? lf::dot(p.unit, a8, one8, lf::fp32(1.875f), &st)
                                                         : lf::dot(p.unit, a, one, lf::fp32(1.875f), &st);
    CHECK(value_of(r) == 8.0);
    CHECK(st == lf::status::none);
  }
}

TEST_CASE("H100 FP8: c = 1 plus 32 products 2^-7 * 2^-7 stays 1.0 (exact 1.001953125); promotion every 128 fixes it") {
  // Each product is 2^-14; emax = e(c) = 0 and F = 13 put the grid at 2^-13: every product
  // truncates to 0. The exact value is 1 + 32 * 2^-14 = 1 + 2^-9 = 1.001953125.
  for (double v : {0x1p-7}) {
    const std::vector<lf::fp8_e4m3> a(32, lf::fp8_e4m3(v));
    const std::vector<lf::fp8_e5m2> b(32, lf::fp8_e5m2(v));
    REQUIRE(static_cast<double>(a[0]) == v);
    REQUIRE(static_cast<double>(b[0]) == v);
    lf::status st{};
    CHECK(value_of(lf::dot(units::hopper_fp8, a, a, lf::fp32(1.0f), &st)) == 1.0);
    CHECK(st == lf::status::inexact);
    CHECK(value_of(lf::dot(units::hopper_fp8, b, b, lf::fp32(1.0f))) == 1.0);
    CHECK(value_of(lf::dot(units::hopper_fp8, std::span<const lf::fp8_e4m3>(a), std::span<const lf::fp8_e5m2>(b),
                           lf::fp32(1.0f))) == 1.0);
    CHECK(lf::exact_dot(a, a).add(lf::fp32(1.0f)).to_double() == 1.001953125);
    // DeepSeek-V3: the tensor core sums the 32 products from 0 (grid 2^-25: exact, 2^-9), the
    // CUDA cores add that to the FP32 accumulator 1: 1 + 2^-9.
    CHECK(value_of(lf::dot(units::deepseek_fp8_promote128, a, a, lf::fp32(1.0f))) == 1.001953125);
    // Blackwell's mma.sync keeps F = 48 and rounds once (nearest even): exact here. The CUDA-core fma chain too.
    CHECK(value_of(lf::dot(units::blackwell_fp8, a, a, lf::fp32(1.0f))) == 1.001953125);
    CHECK(value_of(lf::dot(units::cuda_core_fp32, a, a, lf::fp32(1.0f))) == 1.001953125);
  }
}

TEST_CASE("H100 FP8 keeps 13 fraction bits of a block result, B200 keeps 23") {
  // c = 1 + 2^-13 + 2^-20 (binary32) and the product 2^-14: emax = e(c) = 0, grid 2^-13: c
  // truncates to 1 + 2^-13, the product to 0.
  const std::vector<lf::fp8_e4m3> a{lf::fp8_e4m3(0x1p-7)}, one{lf::fp8_e4m3(0x1p-7)};
  CHECK(value_of(lf::dot(units::hopper_fp8, a, one, lf::fp32(1.0 + 0x1p-13 + 0x1p-20))) == 1.0 + 0x1p-13);
  // Carry: c = 1.5 + 2^-13, product 1.5 (emax 0, grid 2^-13 keeps c exactly); the sum
  // 3 + 2^-13 has exponent 1, so 13 fraction bits means unit 2^-12: truncated to 3.
  const std::vector<lf::fp8_e4m3> p{lf::fp8_e4m3(1.5)}, q{lf::fp8_e4m3(1.0)};
  CHECK(value_of(lf::dot(units::hopper_fp8, p, q, lf::fp32(1.5 + 0x1p-13))) == 3.0);
  CHECK(value_of(lf::dot(units::blackwell_fp8, p, q, lf::fp32(1.5 + 0x1p-13))) == 3.0 + 0x1p-13);
}

// ---- documented behaviours ----------------------------------------------------------------------

TEST_CASE("chaining: K > N feeds each block's result to the next block as c") {
  // 1 + seven products 2^-24 (fp16 subnormal times 1). V100 (N = 4, F = 23): block 1 = 1 + 3 of
  // them on grid 2^-23 -> 1; block 2 = 1 + 4 more -> 1. A100 (N = 8, F = 24): one block on grid
  // 2^-24 keeps all: 1 + 7 * 2^-24, truncated to 23 fraction bits: 1 + 6 * 2^-24 = 1 + 3 * 2^-23.
  // H100 (N = 16, F = 25): the same 1 + 3 * 2^-23.
  const auto a = values<lf::fp16>({1.0, 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24});
  const auto b = values<lf::fp16>({1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0});
  CHECK(value_of(lf::dot(units::volta_fp16, a, b, lf::fp32(0.0f))) == 1.0);
  CHECK(value_of(lf::dot(units::ampere_fp16, a, b, lf::fp32(0.0f))) == 1.0 + 3 * 0x1p-23);
  CHECK(value_of(lf::dot(units::hopper_fp16, a, b, lf::fp32(0.0f))) == 1.0 + 3 * 0x1p-23);
  // Two V100 blocks by hand equal the chained call.
  const std::span<const lf::fp16> sa(a), sb(b);
  const lf::fp32 first = lf::dot(units::volta_fp16, sa.first(4), sb.first(4), lf::fp32(0.25f));
  CHECK(lf::dot(units::volta_fp16, sa.last(4), sb.last(4), first).bits() ==
        lf::dot(units::volta_fp16, a, b, lf::fp32(0.25f)).bits());
}

TEST_CASE("mismatched lengths and invalid units: NaN and status::invalid") {
  const auto a = values<lf::fp16>({1.0, 2.0}), b = values<lf::fp16>({1.0});
  lf::status st{};
  CHECK(std::isnan(value_of(lf::dot(units::ampere_fp16, a, b, lf::fp32(1.0f), &st))));
  CHECK(st == lf::status::invalid);
  lf::matrix_unit bad = units::ampere_fp16;
  bad.block_size = 0;
  CHECK_FALSE(bad.valid());
  st = {};
  CHECK(std::isnan(value_of(lf::dot(bad, a, a, lf::fp32(1.0f), &st))));
  CHECK(st == lf::status::invalid);
}

TEST_CASE("K = 0 returns c unchanged, even where a block would cut it (H100 FP8)") {
  const std::vector<lf::fp8_e4m3> none;
  const lf::fp32 c(1.0 + 0x1p-20);
  CHECK(lf::dot(units::hopper_fp8, none, none, c).bits() == c.bits());
}

TEST_CASE("specials: NaN operands, 0 * inf and inf - inf give NaN; an infinity wins otherwise") {
  const auto one = values<lf::fp16>({1.0, 1.0});
  std::vector<lf::fp16> inf_b{lf::fp16::from_bits(0x7C00), lf::fp16(2.0)};
  std::vector<lf::fp16> zero_a{lf::fp16(0.0), lf::fp16(1.0)};
  std::vector<lf::fp16> nan_a{lf::fp16::from_bits(0x7E00), lf::fp16(1.0)};
  std::vector<lf::fp16> snan_a{lf::fp16::from_bits(0x7C01), lf::fp16(1.0)};
  lf::status st{};
  CHECK(lf::dot(units::ampere_fp16, one, inf_b, lf::fp32(1.0f), &st).bits() == 0x7F800000u);
  CHECK(st == lf::status::none);
  st = {};
  CHECK(lf::dot(units::ampere_fp16, one, inf_b, lf::fp32::from_bits(0xFF800000u), &st).bits() == 0xFFC00000u);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(lf::dot(units::ampere_fp16, zero_a, inf_b, lf::fp32(1.0f), &st).bits() == 0xFFC00000u);
  CHECK(st == lf::status::invalid);
  st = {};
  CHECK(std::isnan(value_of(lf::dot(units::ampere_fp16, nan_a, one, lf::fp32(1.0f), &st))));
  CHECK(st == lf::status::none);
  st = {};
  CHECK(std::isnan(value_of(lf::dot(units::ampere_fp16, snan_a, one, lf::fp32(1.0f), &st))));
  CHECK(st == lf::status::invalid);
  // A NaN c stays NaN through later blocks.
  CHECK(std::isnan(value_of(lf::dot(units::volta_fp16, one, one, lf::fp32::from_bits(0x7FC00000u)))));
}

TEST_CASE("overflow gives infinity although the final rounding is toward zero (MATLAB models)") {
  // bf16 max 0x7F7F ~ 3.39e38, times 2 > binary32 max: +inf, overflow and inexact.
  const std::vector<lf::bf16> a{lf::bf16::from_bits(0x7F7F)}, b{lf::bf16(2.0)};
  lf::status st{};
  CHECK(lf::dot(units::ampere_bf16, a, b, lf::fp32(0.0f), &st).bits() == 0x7F800000u);
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  const std::vector<lf::bf16> nb{lf::bf16(-2.0)};
  CHECK(lf::dot(units::ampere_bf16, a, nb, lf::fp32(0.0f)).bits() == 0xFF800000u);
}

TEST_CASE("zero results: +0 for cancellation, -0 only when every term is -0") {
  const auto a = values<lf::fp16>({1.0, -1.0}), one = values<lf::fp16>({1.0, 1.0});
  CHECK(lf::dot(units::ampere_fp16, a, one, lf::fp32(0.0f)).bits() == 0);
  const auto nz = values<lf::fp16>({-0.0, 0.0});
  CHECK(lf::dot(units::ampere_fp16, nz, one, lf::fp32(-0.0f)).bits() == 0);
  const auto nn = values<lf::fp16>({-0.0, -0.0});
  CHECK(lf::dot(units::ampere_fp16, nn, one, lf::fp32(-0.0f)).bits() == 0x80000000u);
}

TEST_CASE("subnormal handling: inputs flushed to zero, outputs flushed to zero (FTZ)") {
  // fp16 2^-24 (subnormal) times 1: kept = 2^-24, flushed = 0.
  const auto a = values<lf::fp16>({0x1p-24}), one = values<lf::fp16>({1.0});
  lf::matrix_unit daz = units::ampere_fp16;
  daz.input_subnormals = lf::subnormal_handling::flush;
  CHECK(value_of(lf::dot(units::ampere_fp16, a, one, lf::fp32(0.0f))) == 0x1p-24);
  CHECK(value_of(lf::dot(daz, a, one, lf::fp32(0.0f))) == 0.0);
  // bf16 2^-70 * 2^-70 = 2^-140: a binary32 subnormal; FTZ makes it 0 with underflow + inexact.
  const auto t = values<lf::bf16>({0x1p-70});
  lf::matrix_unit ftz = units::ampere_bf16;
  ftz.output_subnormals = lf::subnormal_handling::flush;
  lf::status st{};
  CHECK(value_of(lf::dot(units::ampere_bf16, t, t, lf::fp32(0.0f), &st)) == 0x1p-140);
  CHECK(st == lf::status::none);
  st = {};
  CHECK(lf::dot(ftz, t, t, lf::fp32(0.0f), &st).bits() == 0);
  CHECK(st == (lf::status::underflow | lf::status::inexact));
}

TEST_CASE("binary16 output rounds to nearest even (V100TC.m frmode 'rne' for fp16 output)") {
  lf::matrix_unit h = units::volta_fp16;
  h.output = lf::binary16;
  h.output_fraction_bits = 10;
  h.final_rounding = lf::rounding::nearest_even;
  REQUIRE(h.valid());
  const std::vector<u64> a{0x3C00, 0x3C00}, tie{0x3C00, 0x1000}, above{0x3C00, 0x1600};  // 1; 1, 2^-11; 1, 3*2^-11
  lf::status st{};
  // 1 + 2^-11 is the tie between 1 and 1 + 2^-10: even is 1. 1 + 3 * 2^-11 -> 1 + 2^-9.
  CHECK(lf::dot(h, lf::binary16, a, lf::binary16, tie, 0, st) == 0x3C00);
  CHECK(lf::dot(h, lf::binary16, a, lf::binary16, above, 0, st) == 0x3C02);
  // Through the typed API the fp16 result is widened to fp32.
  const auto x = values<lf::fp16>({1.0, 1.0}), y = values<lf::fp16>({1.0, 3 * 0x1p-11});
  CHECK(value_of(lf::dot(h, x, y, lf::fp32(0.0f))) == 1.0 + 0x1p-9);
}

TEST_CASE("the stable calls compile as written: std::vector, std::array, spans from braces") {
  std::vector<lf::fp16> va{lf::fp16(1.0), lf::fp16(2.0)};
  std::array<lf::fp16, 2> aa{lf::fp16(3.0), lf::fp16(4.0)};
  const lf::matrix_unit& u = units::ampere_fp16;
  CHECK(value_of(lf::dot(u, va, aa, lf::fp32{})) == 11.0);
  CHECK(value_of(lf::dot(u, {va.data(), va.size()}, {aa.data(), aa.size()}, lf::fp32(1.0f))) == 12.0);
  CHECK(value_of(lf::dot(u, std::span<const lf::fp16>(va), aa, lf::fp32(0.0f), nullptr)) == 11.0);
  std::vector<lf::bf16> vb{lf::bf16(1.0)};
  std::vector<lf::tf32> vt{lf::tf32(1.0)};
  std::array<lf::fp8_e4m3, 1> v4{lf::fp8_e4m3(1.0)};
  std::array<lf::fp8_e5m2, 1> v5{lf::fp8_e5m2(1.0)};
  CHECK(value_of(lf::dot(units::ampere_bf16, vb, vb, lf::fp32(1.0f))) == 2.0);
  CHECK(value_of(lf::dot(units::ampere_tf32, vt, vt, lf::fp32(1.0f))) == 2.0);
  CHECK(value_of(lf::dot(units::hopper_fp8, v4, v4, lf::fp32(1.0f))) == 2.0);
  CHECK(value_of(lf::dot(units::hopper_fp8, {v5.data(), 1}, {v5.data(), 1}, lf::fp32(1.0f))) == 2.0);
  CHECK(lf::matrix_unit_by_name("hopper_fp8") == units::hopper_fp8);
  CHECK_FALSE(lf::matrix_unit_by_name("pentium_fdiv"));
}

TEST_CASE("gemm is one dot per element of C = A*B + C; wrong sizes give NaN and invalid") {
  std::mt19937_64 rng(3);
  const std::size_t M = 3, N = 5, K = 37;
  std::vector<lf::fp16> A, B;
  for (std::size_t i = 0; i < M * K; ++i) A.push_back(lf::fp16::from_bits(static_cast<std::uint16_t>(random_finite(oracle::binary16, rng, 15, 4))));
  for (std::size_t i = 0; i < K * N; ++i) B.push_back(lf::fp16::from_bits(static_cast<std::uint16_t>(random_finite(oracle::binary16, rng, 15, 4))));
  std::vector<lf::fp32> C(M * N, lf::fp32(0.5f)), C0 = C;
  lf::gemm(units::volta_fp16, M, N, K, A, B, C);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      std::vector<lf::fp16> row(A.begin() + static_cast<long>(i * K), A.begin() + static_cast<long>((i + 1) * K)), col;
      for (std::size_t k = 0; k < K; ++k) col.push_back(B[k * N + j]);
      CHECK(C[i * N + j].bits() == lf::dot(units::volta_fp16, row, col, C0[i * N + j]).bits());
    }
  lf::status st{};
  lf::gemm(units::volta_fp16, M, N, K + 1, A, B, C, &st);
  CHECK(st == lf::status::invalid);
  CHECK(std::all_of(C.begin(), C.end(), [](lf::fp32 x) { return std::isnan(static_cast<float>(x)); }));
}

// ---- AMD CDNA: the two public models' differences, derived by hand ---------------------------------
// cdna1_* (MATLAB-tensor-core MI100MC.m): each block of N products and c exact, one rounding to
// nearest even. cdna1_pairwise_* (MMA-Sim): products rounded to binary32, a pairwise binary32 tree,
// then c + tree, all nearest even. cdna2_* (MI210MC.m and MMA-Sim): the pairwise tree with subnormal
// inputs, c, sums and results flushed.

TEST_CASE("CDNA: 1*1 + 2^-12*2^-12 + 2^-12*2^-12 = 1 + 2^-23 exactly; the pairwise tree loses both halves of an ulp") {
  // Products 1, 2^-24, 2^-24. Exact: 1 + 2^-23 = 0x3F800001. Pairwise: 1 + 2^-24 is a tie between 1
  // and 1 + 2^-23 (ulp 2^-23): even, 1; then 1 + (2^-24 + 0) ties again: 1.
  const auto a = values<lf::fp16>({1.0, 0x1p-12, 0x1p-12});
  CHECK(bits_of(lf::dot(units::cdna1_fp16, a, a, lf::fp32(0.0f))) == 0x3F800001u);
  CHECK(bits_of(lf::dot(units::cdna1_pairwise_fp16, a, a, lf::fp32(0.0f))) == 0x3F800000u);
  CHECK(bits_of(lf::dot(units::cdna2_fp16, a, a, lf::fp32(0.0f))) == 0x3F800000u);
}

TEST_CASE("CDNA: 1 + fifteen products 2^-25, blocks of 4: 1 + 4 ulp exact per block, 1 + 3 ulp pairwise") {
  // Exact blocks: block 1 is 1 + 3 * 2^-25 = 1 + 0.75 ulp -> 1 + 2^-23; blocks 2-4 each add
  // 4 * 2^-25 = 2^-23 exactly: 1 + 4 * 2^-23 = 0x3F800004. Pairwise: block 1 gives
  // (1 + 2^-25 -> 1) + (2^-24) -> tie, 1; blocks 2-4 each add 2^-23 exactly: 0x3F800003.
  std::vector<lf::fp16> a{lf::fp16(1.0)}, b{lf::fp16(1.0)};
  for (int i = 0; i < 15; ++i) {
    a.push_back(lf::fp16(0x1p-12));
    b.push_back(lf::fp16(0x1p-13));
  }
  CHECK(bits_of(lf::dot(units::cdna1_fp16, a, b, lf::fp32(0.0f))) == 0x3F800004u);
  CHECK(bits_of(lf::dot(units::cdna1_pairwise_fp16, a, b, lf::fp32(0.0f))) == 0x3F800003u);
  CHECK(bits_of(lf::dot(units::cdna2_fp16, a, b, lf::fp32(0.0f))) == 0x3F800003u);
}

TEST_CASE("CDNA2 flushes: an fp16 subnormal input, a binary32 subnormal product; CDNA1 keeps both") {
  // 2^-15 is the fp16 subnormal 0x0200: CDNA2 reads it as +0.
  const auto s = values<lf::fp16>({0x1p-15}), one = values<lf::fp16>({1.0});
  CHECK(bits_of(lf::dot(units::cdna2_fp16, s, one, lf::fp32(0.0f))) == 0u);
  CHECK(bits_of(lf::dot(units::cdna1_fp16, s, one, lf::fp32(0.0f))) == 0x38000000u);
  CHECK(bits_of(lf::dot(units::cdna1_pairwise_fp16, s, one, lf::fp32(0.0f))) == 0x38000000u);
  // bf16 2^-63 * 2^-64 = 2^-127, the binary32 subnormal 0x00400000, exact: CDNA2 flushes it
  // (underflow, inexact); CDNA1 keeps it and raises nothing (exact, IEEE 754-2019 §7.5).
  const auto x = values<lf::bf16>({0x1p-63}), y = values<lf::bf16>({0x1p-64});
  for (const auto* u : {&units::cdna1_bf16, &units::cdna1_pairwise_bf16}) {
    lf::status st{};
    CHECK(bits_of(lf::dot(*u, x, y, lf::fp32(0.0f), &st)) == 0x00400000u);
    CHECK(st == lf::status::none);
  }
  lf::status st{};
  CHECK(bits_of(lf::dot(units::cdna2_bf16, x, y, lf::fp32(0.0f), &st)) == 0u);
  CHECK(st == (lf::status::underflow | lf::status::inexact));
  // A subnormal c is read as +0 by CDNA2: 0 * 0 + 2^-130 = +0.
  const auto z = values<lf::bf16>({0.0});
  CHECK(bits_of(lf::dot(units::cdna2_bf16, z, z, lf::fp32(0x1p-130f))) == 0u);
  CHECK(bits_of(lf::dot(units::cdna1_bf16, z, z, lf::fp32(0x1p-130f))) == 0x00080000u);  // 2^-130 = 2^19 * 2^-149
}

TEST_CASE("pairwise_tree flushes the rounded output: (1 - 2^-11) * 2^-14 rounds up to 2^-14 in binary16 and stays") {
  // A CDNA2-style unit with a binary16 output. The exact product 2^-14 - 2^-25 lies below 2^-14;
  // on binary16's subnormal grid (2^-24) it is a tie between 2^-14 - 2^-24 and 2^-14, and nearest
  // even picks 2^-14 (0x0400, the smallest normal): not subnormal, so nothing is flushed. The
  // product is still tiny and inexact (IEEE 754-2019 §7.5, tininess after rounding: 2^-14 - 2^-25
  // is exact at 11 bits with an unbounded exponent), so the multiplication raises underflow and
  // inexact. The core's flush_to_zero policy would flush it to 0 for the same reason.
  lf::matrix_unit u = units::cdna2_fp16;
  u.output = lf::binary16;
  u.output_fraction_bits = 10;
  const auto enc16 = [](double v) { return lf::bits_t{lf::fp16(v).bits()}; };  // exact for these values
  const std::vector<lf::bits_t> a{enc16(1 - 0x1p-11)}, b{enc16(0x1p-14)}, neg_b{enc16(-0x1p-14)};
  lf::status st{};
  CHECK(lf::dot(u, lf::binary16, a, lf::binary16, b, 0, st) == 0x0400u);
  CHECK(st == (lf::status::underflow | lf::status::inexact));
  CHECK(lf::dot(u, lf::binary16, a, lf::binary16, neg_b, 0, st) == 0x8400u);
  // (1 - 2^-10) * 2^-14 = 2^-14 - 2^-24 is the subnormal 0x03FF, exact: flushed to +0, and with
  // the negative operand to -0, underflow and inexact raised. The tree then adds the missing
  // leaves (+0) to it: -0 + +0 = +0 in nearest even (IEEE 754-2019 §6.3).
  const std::vector<lf::bits_t> s{enc16(1 - 0x1p-10)};
  st = {};
  CHECK(lf::dot(u, lf::binary16, s, lf::binary16, b, 0, st) == 0x0000u);
  CHECK(st == (lf::status::underflow | lf::status::inexact));
  CHECK(lf::dot(u, lf::binary16, s, lf::binary16, neg_b, 0, st) == 0x0000u);
  // The same products on CDNA1's pairwise unit with a binary16 output keep the subnormal.
  lf::matrix_unit k = units::cdna1_pairwise_fp16;
  k.output = lf::binary16;
  k.output_fraction_bits = 10;
  st = {};
  CHECK(lf::dot(k, lf::binary16, s, lf::binary16, b, 0, st) == 0x03FFu);
  CHECK(st == lf::status::none);
}

TEST_CASE("CDNA bf16: 2^100 * 2^30 - 2^100 * 2^30 + 1: exact gives 1, rounded products overflow to inf - inf = NaN") {
  const auto a = values<lf::bf16>({0x1p100, -0x1p100}), b = values<lf::bf16>({0x1p30, 0x1p30});
  CHECK(bits_of(lf::dot(units::cdna1_bf16, a, b, lf::fp32(1.0f))) == 0x3F800000u);
  for (const auto* u : {&units::cdna1_pairwise_bf16, &units::cdna2_bf16}) {
    lf::status st{};
    CHECK(bits_of(lf::dot(*u, a, b, lf::fp32(1.0f), &st)) == 0xFFC00000u);  // the default NaN (x86: sign set)
    CHECK(st == (lf::status::overflow | lf::status::inexact | lf::status::invalid));
  }
}

TEST_CASE("CDNA: -(2^-10)^2 - (2^-14)^2 - 16 rounds away from 16 on every model; bf16 1 + 2^-24 + 2^-25 (N = 2)") {
  // -16 - 2^-20 - 2^-28: ulp(16) = 2^-19, and 2^-20 + 2^-28 is above half of it: -(16 + 2^-19).
  const auto a = values<lf::fp16>({-0x1p-10, -0x1p-14}), b = values<lf::fp16>({0x1p-10, 0x1p-14});
  for (const auto* u : {&units::cdna1_fp16, &units::cdna1_pairwise_fp16, &units::cdna2_fp16})
    CHECK(bits_of(lf::dot(*u, a, b, lf::fp32(-16.0f))) == 0xC1800001u);
  // bf16 products 1 and 2^-24 plus c = 2^-25: exact 1 + 0.75 ulp -> 0x3F800001; pairwise (N = 2 on
  // CDNA1, 4 on CDNA2) 1 + 2^-24 ties to 1, then 1 + 2^-25 -> 1.
  const auto x = values<lf::bf16>({1.0, 0x1p-12});
  CHECK(bits_of(lf::dot(units::cdna1_bf16, x, x, lf::fp32(0x1p-25f))) == 0x3F800001u);
  CHECK(bits_of(lf::dot(units::cdna1_pairwise_bf16, x, x, lf::fp32(0x1p-25f))) == 0x3F800000u);
  CHECK(bits_of(lf::dot(units::cdna2_bf16, x, x, lf::fp32(0x1p-25f))) == 0x3F800000u);
  // Products that cancel leave c: 1 - 1 + 2^-30 = 2^-30 (0x30800000) everywhere.
  const auto p = values<lf::fp16>({1.0, -1.0}), q = values<lf::fp16>({1.0, 1.0});
  for (const auto* u : {&units::cdna1_fp16, &units::cdna1_pairwise_fp16, &units::cdna2_fp16})
    CHECK(bits_of(lf::dot(*u, p, q, lf::fp32(0x1p-30f))) == 0x30800000u);
}

// ---- AMD CDNA3: cases worked out by hand from MI300MC.m (b4bf135) and MMA-Sim's amd_fused_dot_rd_add ----

namespace {
lf::bits_t enc(const lf::format& f, double v) {
  lf::status st{};
  return lf::convert(f, lf::binary64, std::bit_cast<u64>(v), lf::env{}, st);
}
double dec(const lf::format& f, lf::bits_t x) {
  lf::status st{};
  return std::bit_cast<double>(static_cast<u64>(lf::convert(lf::binary64, f, x, lf::env{}, st)));
}
u32 cdna3(const lf::matrix_unit& u, const lf::format& f, std::initializer_list<double> a, std::initializer_list<double> b,
          float c) {
  std::vector<lf::bits_t> ea, eb;
  for (double v : a) ea.push_back(enc(f, v));
  for (double v : b) eb.push_back(enc(f, v));
  for (std::size_t i = 0; i < ea.size(); ++i) REQUIRE(dec(f, ea[i]) == std::data(a)[i]);  // exact inputs
  for (std::size_t i = 0; i < eb.size(); ++i) REQUIRE(dec(f, eb[i]) == std::data(b)[i]);
  lf::status st{};
  return static_cast<u32>(lf::dot(u, f, ea, f, eb, bits_of(lf::fp32(c)), st));
}
}  // namespace

TEST_CASE("CDNA3 fp16/bf16: products truncated at 24 fraction bits, c added late under a floor alignment") {
  const lf::format h = lf::binary16, bf = lf::bfloat16;
  const auto& u = units::cdna3_fp16;
  // Products 1, 2^-24, 2^-24 on the grid 2^-24: kept, 1 + 2^-23.
  CHECK(cdna3(u, h, {1.0, 0x1p-12, 0x1p-12}, {1.0, 0x1p-12, 0x1p-12}, 0.0f) == 0x3F800001u);
  // Products 1 and four 2^-25: each 2^-25 truncated to 0 on the grid 2^-24.
  CHECK(cdna3(u, h, {1.0, 0x1p-12, 0x1p-12, 0x1p-12, 0x1p-12}, {1.0, 0x1p-13, 0x1p-13, 0x1p-13, 0x1p-13}, 0.0f) ==
        0x3F800000u);
  // c = 16 dominates (exponent 4 > -20): the products 2^-20 + 2^-28 keep 31 fraction bits below
  // 2^4, grid 2^-27: 2^-28 floors to 0, 16 + 2^-20 rounds to 16 (nearest even). Negated: the
  // floor of -(2^-20 + 2^-28) is -(2^-20 + 2^-27), above half an ulp of 16: -(16 + 2^-19).
  CHECK(cdna3(u, h, {0x1p-10, 0x1p-14}, {0x1p-10, 0x1p-14}, 16.0f) == 0x41800000u);
  CHECK(cdna3(u, h, {-0x1p-10, -0x1p-14}, {0x1p-10, 0x1p-14}, -16.0f) == 0xC1800001u);
  // 1 * 1 + c with c negative and far below: the floor takes one unit 2^-24: 1 - 2^-24. Positive: 1.
  CHECK(cdna3(u, h, {1.0}, {1.0}, -0x1p-26f) == 0x3F7FFFFFu);
  CHECK(cdna3(units::cdna3_bf16, bf, {1.0}, {1.0}, -0x1p-100f) == 0x3F7FFFFFu);
  CHECK(cdna3(u, h, {1.0}, {1.0}, 0x1p-100f) == 0x3F800000u);
  // c = 2^20 dominates: the products' sum 2^-4 + 2^-12 on the grid 2^(20 - 31) = 2^-11 is 2^-4;
  // 2^20 + 2^-4 is a tie between 2^20 and 2^20 + 2^-3: even, 2^20. With 2^-11 (on the grid), just above.
  CHECK(cdna3(u, h, {0x1p-2, 0x1p-6}, {0x1p-2, 0x1p-6}, 0x1p20f) == 0x49800000u);
  CHECK(cdna3(u, h, {0x1p-2, 0x1p-5}, {0x1p-2, 0x1p-6}, 0x1p20f) == 0x49800001u);
  CHECK(cdna3(u, h, {-0x1p-2, -0x1p-6}, {0x1p-2, 0x1p-6}, -0x1p20f) == 0xC9800001u);
  // Products that cancel keep their exponent 0: c = 2^-30 floors to 0 on the grid 2^-24, -2^-30 to -2^-24.
  CHECK(cdna3(u, h, {1.0, -1.0}, {1.0, 1.0}, 0x1p-30f) == 0u);
  CHECK(cdna3(u, h, {1.0, -1.0}, {1.0, 1.0}, -0x1p-30f) == 0xB3800000u);
  // K = 16, two blocks of 8: block 1 truncates its seven 2^-25; block 2 sums eight 2^-25 = 2^-22
  // exactly (their own maximum 2^-25, c = 1 added late): 1 + 2^-22.
  std::vector<lf::bits_t> a{enc(h, 1.0)}, b{enc(h, 1.0)};
  for (int i = 0; i < 15; ++i) {
    a.push_back(enc(h, 0x1p-12));
    b.push_back(enc(h, 0x1p-13));
  }
  lf::status st{};
  CHECK(lf::dot(u, h, a, h, b, 0, st) == 0x3F800002u);
  // bf16: a zero product takes no part in the maximum (MATLAB; MMA-Sim would give 0 * 2^127 the
  // exponent 1 and lose 2^-30): 2^-30.
  CHECK(cdna3(units::cdna3_bf16, bf, {0.0, 0x1p-15}, {0x1p127, 0x1p-15}, 0.0f) == 0x30800000u);
  // A product of 2^128 or more: inf; of both signs: NaN, c ignored.
  CHECK(cdna3(units::cdna3_bf16, bf, {0x1p100}, {0x1p30}, 1.0f) == 0x7F800000u);
  CHECK(cdna3(units::cdna3_bf16, bf, {0x1p100, -0x1p100}, {0x1p30, 0x1p30}, 1.0f) == 0xFFC00000u);
}

TEST_CASE("CDNA3 FP8 (FNUZ): even and odd positions summed apart, then floored together; a far c is dropped") {
  const lf::format e4 = lf::float8_e4m3fnuz, e5 = lf::float8_e5m2fnuz;
  const auto& u = units::cdna3_fp8;
  // 128 * 128 = 2^14 at position 0, -2^-20 at position 1 (the odd half): floored onto 2^-10 it is
  // -2^-10: 2^14 - 2^-10. At position 2 (the even half) it is truncated to 0: 2^14.
  CHECK(cdna3(u, e4, {128.0, 0x1p-10}, {128.0, -0x1p-10}, 0.0f) == 0x467FFFFFu);
  CHECK(cdna3(u, e4, {128.0, 0.0, 0x1p-10}, {128.0, 0.0, -0x1p-10}, 0.0f) == 0x46800000u);
  // E5M2FNUZ: 2^15 * 2^-2 = 2^13 (even), 2^-16 * -2^-16 (odd) floors to -2^-11: 2^13 - 2^-11.
  CHECK(cdna3(u, e5, {0x1p15, 0x1p-16}, {0x1p-2, -0x1p-16}, 0.0f) == 0x45FFFFFFu);
  // c = -2^-25 is 25 binades below: floored to -2^-24; -2^-26 (26 below): dropped.
  CHECK(cdna3(u, e4, {1.0}, {1.0}, -0x1p-25f) == 0x3F7FFFFFu);
  CHECK(cdna3(u, e4, {1.0}, {1.0}, -0x1p-26f) == 0x3F800000u);
  // Cancelled products: -2^-30 is dropped here, where fp16/bf16 keep -2^-24.
  CHECK(cdna3(u, e4, {1.0, -1.0}, {1.0, 1.0}, -0x1p-30f) == 0u);
}

// ---- every preset against the independent model -------------------------------------------------

TEST_CASE("every block and pairwise preset equals the cpp_int model on 20000 random dot products (K up to 2N + 1)") {
  constexpr int trials = 20000;
  for (const auto& p : lf::matrix_unit_presets) {
    if (p.unit.model == lf::matrix_unit_model::cuda_core_fma || p.unit.model == lf::matrix_unit_model::fp8_promotion)
      continue;
    CAPTURE(p.name);
    const std::size_t max_k = 2 * static_cast<std::size_t>(p.unit.block_size) + 1;
    const u64 seed = std::hash<std::string_view>{}(p.name);
    if (p.unit.input == lf::binary16) compare_with_reference<lf::binary16, lf::binary16>(p.unit, p.name.data(), trials, max_k, seed);
    if (p.unit.input == lf::bfloat16) compare_with_reference<lf::bfloat16, lf::bfloat16>(p.unit, p.name.data(), trials, max_k, seed);
    if (p.unit.input == lf::tfloat32) compare_with_reference<lf::tfloat32, lf::tfloat32>(p.unit, p.name.data(), trials, max_k, seed);
    if (p.unit.input == lf::float8_e4m3fnuz) {  // CDNA3 FP8 takes both FNUZ formats
      compare_with_reference<lf::float8_e4m3fnuz, lf::float8_e4m3fnuz>(p.unit, p.name.data(), trials, max_k, seed);
      compare_with_reference<lf::float8_e5m2fnuz, lf::float8_e5m2fnuz>(p.unit, p.name.data(), trials / 2, max_k, seed + 1);
      compare_with_reference<lf::float8_e4m3fnuz, lf::float8_e5m2fnuz>(p.unit, p.name.data(), trials / 4, max_k, seed + 2);
    }
    if (p.unit.input == lf::float8_e4m3fn) {
      compare_with_reference<lf::float8_e4m3fn, lf::float8_e4m3fn>(p.unit, p.name.data(), trials, max_k, seed);
      compare_with_reference<lf::float8_e5m2, lf::float8_e5m2>(p.unit, p.name.data(), trials / 2, max_k, seed + 1);
      compare_with_reference<lf::float8_e4m3fn, lf::float8_e5m2>(p.unit, p.name.data(), trials / 4, max_k, seed + 2);
    }
  }
  // Blackwell's fp16 unit also takes bf16 (MMA-Sim, arXiv 2511.10909; B200TC.m).
  compare_with_reference<lf::bfloat16, lf::bfloat16>(units::blackwell_fp16, "blackwell_fp16 (bf16)", trials, 33, 11);
}

TEST_CASE("the CUDA-core fma chain and DeepSeek's FP8 promotion equal the oracle's IEEE operations") {
  compare_with_reference<lf::binary16, lf::binary16>(units::cuda_core_fp32, "cuda_core_fp32", 20000, 64, 21);
  compare_with_reference<lf::bfloat16, lf::bfloat16>(units::cuda_core_fp32, "cuda_core_fp32 (bf16)", 5000, 64, 22);
  compare_with_reference<lf::float8_e4m3fn, lf::float8_e4m3fn>(units::deepseek_fp8_promote128, "deepseek_fp8_promote128",
                                                               3000, 400, 23);
  compare_with_reference<lf::float8_e5m2, lf::float8_e5m2>(units::deepseek_fp8_promote128, "deepseek (e5m2)", 1000, 400, 24);
}

TEST_CASE("variants: fp16 output, floor alignment, exact alignment, other N and F equal the model") {
  lf::matrix_unit h = units::volta_fp16;  // V100 with binary16 output
  h.output = lf::binary16;
  h.output_fraction_bits = 10;
  h.final_rounding = lf::rounding::nearest_even;
  compare_with_reference<lf::binary16, lf::binary16>(h, "volta_fp16 -> fp16", 10000, 9, 31);
  lf::matrix_unit fl = units::ampere_bf16;
  fl.alignment = lf::alignment_rounding::floor;
  fl.alignment_bits = 10;
  compare_with_reference<lf::bfloat16, lf::bfloat16>(fl, "floor, F = 10", 10000, 17, 32);
  lf::matrix_unit ex = units::hopper_fp16;
  ex.alignment = lf::alignment_rounding::exact;
  compare_with_reference<lf::binary16, lf::binary16>(ex, "exact alignment", 10000, 33, 33);
  lf::matrix_unit odd{.input = lf::binary16, .block_size = 3, .alignment_bits = 0, .output_fraction_bits = 5};
  compare_with_reference<lf::binary16, lf::binary16>(odd, "N = 3, F = 0, k = 5", 10000, 10, 34);
  lf::matrix_unit wide{.input = lf::binary16, .block_size = 64, .alignment_bits = 60,
                       .final_rounding = lf::rounding::nearest_even};
  compare_with_reference<lf::binary16, lf::binary16>(wide, "N = 64, F = 60, nearest", 3000, 200, 35);
}

// ---- data wider than the operand type: the input conversion (input_rounding) -------------------

TEST_CASE("presets' input conversion follows their source: tf32 truncates, fp16 / bf16 / FP8 round to nearest even") {
  // The MATLAB models (models/tools/GEMM.m) round A and B with CPFloat: round = 4 (toward zero)
  // for tf32, round = 1 (nearest even) for fp16, bf16 and the FP8 formats.
  for (const auto& p : lf::matrix_unit_presets) {
    CAPTURE(p.name);
    CHECK(p.unit.input_rounding == (p.unit.input == lf::tfloat32 ? lf::rounding::toward_zero : lf::rounding::nearest_even));
  }
  CHECK(units::ampere_tf32.input_rounding == lf::rounding::toward_zero);
  CHECK(units::hopper_tf32.input_rounding == lf::rounding::toward_zero);
  CHECK(units::blackwell_tf32.input_rounding == lf::rounding::toward_zero);
  lf::matrix_unit stochastic = units::ampere_tf32;
  stochastic.input_rounding = lf::rounding::stochastic;  // no source of random bits in a unit
  CHECK_FALSE(stochastic.valid());
}

TEST_CASE("which data a unit converts: formats wider than its operand type (a table written by hand)") {
  // f contains g: every value of g is a value of f (precision and exponent range, by hand):
  // binary64 > binary32 > tf32 > {fp16, bf16} > {E4M3, E5M2}; fp16 and bf16 overlap (neither
  // contains the other), as do E4M3 and E5M2.
  // E4M3FNUZ (CDNA3): max 240, min subnormal 2^-10, p = 4: inside fp16, bf16 and above; it and
  // E4M3 (max 448, min subnormal 2^-9) overlap, and E5M2 (p = 3) is not inside it.
  enum { h, b, t, s, d, e4, e5, e4z, count };
  const lf::format fmts[count] = {lf::binary16, lf::bfloat16, lf::tfloat32, lf::binary32, lf::binary64,
                                  lf::float8_e4m3fn, lf::float8_e5m2, lf::float8_e4m3fnuz};
  auto contains = [](int f, int g) {
    if (f == g) return true;
    switch (f) {
      case d: return true;
      case s: return g != d;
      case t: return g == h || g == b || g == e4 || g == e5 || g == e4z;
      case h: case b: return g == e4 || g == e5 || g == e4z;
      default: return false;
    }
  };
  for (const auto& p : lf::matrix_unit_presets) {
    int op = -1;
    for (int i = 0; i < count; ++i)
      if (fmts[i] == (p.unit.model == lf::matrix_unit_model::cuda_core_fma ? p.unit.output : p.unit.input)) op = i;
    REQUIRE(op >= 0);
    for (int f = 0; f < count; ++f) {
      CAPTURE(p.name);
      CAPTURE(lf::format_name(fmts[f]));
      // block units: data strictly wider than the operand type; the CUDA core: data not inside binary32
      const bool want = p.unit.model == lf::matrix_unit_model::cuda_core_fma ? !contains(op, f)
                                                                              : contains(f, op) && f != op;
      CHECK(lf::unit_converts_input(p.unit, fmts[f]) == want);
    }
  }
}

TEST_CASE("binary32 data on a tf32 unit: 1 + 2^-10 + 2^-11 is cut to 1 + 2^-10; nearest even gives 1 + 2^-9") {
  // 1 + 2^-10 + 2^-11 = 0x3F803000 lies halfway between the tf32 values 1 + 2^-10 (last fraction
  // bit odd) and 1 + 2^-9 (even). Truncation keeps 1 + 2^-10 = 0x3F802000; nearest even takes
  // 1 + 2^-9 = 0x3F804000. Times 1, plus 0: the block adds nothing, so the result is the
  // converted operand itself; the conversion was inexact.
  const std::vector<lf::bits_t> a{0x3F803000u}, one{0x3F800000u};
  lf::matrix_unit nearest = units::ampere_tf32;
  nearest.input_rounding = lf::rounding::nearest_even;
  for (const auto* u : {&units::ampere_tf32, &units::hopper_tf32, &units::blackwell_tf32}) {
    lf::status st{};
    CHECK(lf::dot(*u, lf::binary32, a, lf::binary32, one, 0, st) == 0x3F802000u);
    CHECK(st == lf::status::inexact);
    const std::vector<lf::fp32> ta{lf::fp32::from_bits(0x3F803000u)}, tone{lf::fp32(1.0f)};
    CHECK(lf::dot<lf::binary32, lf::binary32>(*u, ta, tone, lf::fp32(0.0f)).bits() == 0x3F802000u);
  }
  lf::status st{};
  CHECK(lf::dot(nearest, lf::binary32, a, lf::binary32, one, 0, st) == 0x3F804000u);
  CHECK(st == lf::status::inexact);
  // Both operands converted: (1 + 2^-10 + 2^-11)^2 from truncated (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20,
  // exact in the block (F = 24) and in binary32: 0x3F804008.
  st = {};
  CHECK(lf::dot(units::ampere_tf32, lf::binary32, a, lf::binary32, a, 0, st) == 0x3F804008u);
  // binary32's largest finite value (2 - 2^-23) 2^127: truncated to tf32's (2 - 2^-10) 2^127 =
  // 0x7F7FE000; to nearest it rounds up past tf32's range: +inf, overflow and inexact.
  const std::vector<lf::bits_t> big{0x7F7FFFFFu};
  st = {};
  CHECK(lf::dot(units::ampere_tf32, lf::binary32, big, lf::binary32, one, 0, st) == 0x7F7FE000u);
  CHECK(st == lf::status::inexact);
  st = {};
  CHECK(lf::dot(nearest, lf::binary32, big, lf::binary32, one, 0, st) == 0x7F800000u);
  CHECK(st == (lf::status::overflow | lf::status::inexact));
  // Data that is already tf32 (low 13 bits zero) is the same either way, flags none.
  const std::vector<lf::bits_t> exact{0x3F802000u};
  st = {};
  CHECK(lf::dot(units::ampere_tf32, lf::binary32, exact, lf::binary32, one, 0, st) == 0x3F802000u);
  CHECK(lf::dot(nearest, lf::binary32, exact, lf::binary32, one, 0, st) == 0x3F802000u);
  CHECK(st == lf::status::none);
  // A signaling NaN converts to a quiet one with invalid; the unit's result is its default NaN.
  const std::vector<lf::bits_t> snan{0x7F800001u};
  st = {};
  CHECK(lf::dot(units::ampere_tf32, lf::binary32, snan, lf::binary32, one, 0, st) == 0xFFC00000u);
  CHECK(st == lf::status::invalid);
}

namespace {

/// `trials` random dot products of binary32 data on unit u: the reference converts each operand
/// to u.input with the oracle's own conversion (toward zero or nearest even, u.input_rounding),
/// then runs reference_dot; lf::dot gets the binary32 data (typed and run-time entries).
/// Exponent fields 127 +- (4 + spread): inside the unit's input range for the spreads used.
void compare_binary32_data(const lf::matrix_unit& u, const char* name, int trials, long spread, u64 seed) {
  std::mt19937_64 rng(seed);
  const oracle::target in = target_of(u.input);
  REQUIRE((u.input_rounding == lf::rounding::toward_zero || u.input_rounding == lf::rounding::nearest_even));
  const oracle::mode m = u.input_rounding == lf::rounding::toward_zero ? oracle::mode::toward_zero : oracle::mode::nearest_even;
  int mismatches = 0, changed = 0;
  trials = test_sanitizer::scaled(trials, kTrialDivisor);
  for (int t = 0; t < trials; ++t) {
    const std::size_t K = 1 + rng() % (2 * static_cast<std::size_t>(u.block_size) + 1);
    block_data d, cv;
    for (std::size_t i = 0; i < K; ++i) {
      d.a.push_back(random_finite(oracle::binary32, rng, 127 + static_cast<long>(rng() % 9) - 4, spread));
      d.b.push_back(random_finite(oracle::binary32, rng, 127 + static_cast<long>(rng() % 9) - 4, spread));
    }
    d.c = rng() % 4 == 0 ? 0 : random_finite(oracle::binary32, rng, 127 + static_cast<long>(rng() % 21) - 10, 3);
    cv.c = d.c;
    for (std::size_t i = 0; i < K; ++i) {
      cv.a.push_back(oracle::convert(in, oracle::binary32, d.a[i], m).bits);
      cv.b.push_back(oracle::convert(in, oracle::binary32, d.b[i], m).bits);
      changed += (d.a[i] & 0x1FFFu) != 0;
    }
    const u64 want = reference_dot(u, in, cv, in);
    const auto ta = typed<lf::binary32>(d.a), tb = typed<lf::binary32>(d.b);
    const u64 got1 = lf::dot<lf::binary32, lf::binary32>(u, ta, tb, lf::fp32::from_bits(static_cast<u32>(d.c))).bits();
    lf::status st{};
    const u64 got2 = lf::dot(u, lf::binary32, std::span<const u64>(d.a), lf::binary32, std::span<const u64>(d.b), d.c, st);
    if ((got1 != want || got2 != want) && ++mismatches <= 5)
      FAIL_CHECK(std::string(name) << ": K " << K << " a0 " << oracle::hex(d.a[0], 32) << " b0 " << oracle::hex(d.b[0], 32)
                                   << ": got " << oracle::hex(got1, 32) << " / " << oracle::hex(got2, 32) << ", want "
                                   << oracle::hex(want, 32));
  }
  const std::string summary = std::string(name) + ": " + std::to_string(mismatches) + " of " + std::to_string(trials) + " differ";
  CHECK_MESSAGE(mismatches == 0, summary);
  CHECK(changed > trials);  // most data has bits below tf32's: the conversion matters
}

}  // namespace

TEST_CASE("binary32 data on tf32, fp16 and bf16 units equals the cpp_int model on the oracle-converted data") {
  for (const auto* u : {&units::ampere_tf32, &units::hopper_tf32, &units::blackwell_tf32}) {
    compare_binary32_data(*u, "tf32 truncating", 5000, 60, 41 + static_cast<u64>(u->block_size));
    lf::matrix_unit nearest = *u;
    nearest.input_rounding = lf::rounding::nearest_even;
    compare_binary32_data(nearest, "tf32 nearest even", 5000, 60, 51 + static_cast<u64>(u->block_size));
  }
  compare_binary32_data(units::ampere_fp16, "ampere_fp16 (nearest even)", 5000, 8, 61);
  lf::matrix_unit cut = units::hopper_fp16;
  cut.input_rounding = lf::rounding::toward_zero;
  compare_binary32_data(cut, "hopper_fp16 truncating", 5000, 8, 62);
  compare_binary32_data(units::hopper_bf16, "hopper_bf16 (nearest even)", 5000, 60, 63);
}
