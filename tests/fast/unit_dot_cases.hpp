// Shared by the tests of the matrix units' hardware paths (test_pairwise_fast.cpp,
// test_late_fast.cpp, test_exact_block_fast.cpp): a dot product's outcome, random encodings, the
// data sets, the start values, the typed lf::dot on the same data, and each kernel of a path.
#pragma once

#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/mxcsr_settings.hpp"
#include "../support/sanitizer.hpp"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#if defined(LIBFLOAT_DOT_FAST_X86)
#include <immintrin.h>
#endif

namespace unit_dot_cases {

using u64 = std::uint64_t;
using bits = std::vector<lf::bits_t>;

struct outcome {
  lf::bits_t r;
  lf::status st;
  bool operator==(const outcome&) const = default;
};

/// A chain of blocks of mu.block_size over a . b from c, each block(mu, a, b, first, length, c, st):
/// the general path that a hardware path stands in for, given its block function.
template <class Block>
outcome block_chain(const lf::matrix_unit& mu, const lf::format& f, const bits& a, const bits& b, lf::bits_t c,
                    const Block& block) {
  lf::status st{};
  const lf::detail::operand oa{f, lf::detail::span_get{a}}, ob{f, lf::detail::span_get{b}};
  const std::size_t n = a.size(), N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N) c = block(mu, oa, ob, s, n - s < N ? n - s : N, c, st);
  return {c, st};
}

/// A unit under test: its name, the unit, and whether the hardware path takes it.
struct unit_case {
  std::string name;
  lf::matrix_unit mu;
  bool fast;
};

/// A test's units: with(what, fast, change) adds the preset changed by change(mu), named
/// "<name> <what>"; cases holds them.
struct unit_variants {
  const lf::matrix_unit& preset;
  std::string name;
  std::vector<unit_case> cases;
  template <class Change>
  void operator()(const char* what, bool fast, const Change& change) {
    lf::matrix_unit mu = preset;
    change(mu);
    cases.push_back({name + " " + what, mu, fast});
  }
};

/// One random encoding of f: kind 0 any, 1 finite with the exponent field in [lo, hi], 3 a zero
/// of either sign.
inline u64 draw(const lf::format& f, std::mt19937_64& g, int kind, int lo, int hi) {
  if (kind == 0) return g() & f.encoding_mask();
  if (kind == 3) return (g() & 1) ? f.sign_mask() : 0;
  const u64 sign = (g() & 1) ? f.sign_mask() : 0;
  const auto field = static_cast<u64>(lo + static_cast<int>(g() % static_cast<u64>(hi - lo + 1)));
  return sign | (field << f.fraction_bits()) | (g() & f.fraction_mask());
}

struct data_set {
  const char* name;
  int kind, lo, hi;  // kind 0, 1, 3: draw's; kind 2: as 1, but even positions the largest binade times +-0;
                     // kind 4: as 1, but one a_i in 16 an infinity or a NaN, and the last one in 2 (so that
                     // one ends the dot product, past every other block), a quarter of them times +-0
  bool cancel;       // odd positions cancel the even ones: a_{2i+1} = -a_{2i}, b_{2i+1} = b_{2i}
};

/// The data sets of both tests (the binary16 and bfloat16 ones; the late test adds its own).
inline std::vector<data_set> data_sets(const lf::format& f) {
  const int top = static_cast<int>(f.exponent_mask() >> f.fraction_bits()) - 1;  // largest finite field
  std::vector<data_set> v{{"any encoding", 0, 0, 0, false},
                          {"finite, every exponent", 1, 0, top, false},
                          {"narrow exponents", 1, f.bias() - 3, f.bias() + 3, false},
                          {"exact cancellation", 1, f.bias() - 3, f.bias() + 3, true},
                          {"subnormal and smallest normal inputs", 1, 0, 2, false}};
  if (f == lf::bfloat16) {
    v.push_back({"products at binary32's bottom", 1, 60, 67, false});
    v.push_back({"products at binary32's bottom, cancelling", 1, 60, 67, true});
    v.push_back({"products at binary32's top", 1, 188, 193, false});
  }
  return v;
}

inline std::vector<lf::bits_t> start_values(std::mt19937_64& g) {
  std::vector<lf::bits_t> c{0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000,
                            0x3F800000, 0xC2C80000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000};
  for (int i = 0; i < 4; ++i) c.push_back(g() & 0xFFFFFFFF);
  return c;
}

template <lf::format F>
outcome typed_dot(const lf::matrix_unit& mu, const bits& a, const bits& b, lf::bits_t c) {
  std::vector<lf::fp<F>> ta, tb;
  for (auto x : a) ta.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(x)));
  for (auto x : b) tb.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(x)));
  lf::status st{};
  const lf::fp32 r = lf::dot<F, F>(mu, std::span<const lf::fp<F>>(ta), std::span<const lf::fp<F>>(tb),
                                   lf::fp32::from_bits(static_cast<std::uint32_t>(c)), &st);
  return {r.bits(), st};
}


/// The operands of one case: n encodings of f each, from data set d.
inline void make_operands(const lf::format& f, std::mt19937_64& g, const data_set& d, std::size_t n, bits& a, bits& b) {
  a.assign(n, 0);
  b.assign(n, 0);
  const int top = static_cast<int>(f.exponent_mask() >> f.fraction_bits()) - 1;  // largest finite field
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = draw(f, g, d.kind == 2 || d.kind == 4 ? 1 : d.kind, d.lo, d.hi);
    b[i] = draw(f, g, d.kind == 2 || d.kind == 4 ? 1 : d.kind, d.lo, d.hi);
    if (d.kind == 4 && (g() % 16 == 0 || (i + 1 == n && g() % 2 == 0))) {
      a[i] = (g() & f.sign_mask()) | f.exponent_mask() | ((g() & 1) ? g() & f.fraction_mask() : 0);
      if (g() % 4 == 0) b[i] = g() & f.sign_mask();
    }
    if (d.kind == 2 && i % 2 == 0) {
      a[i] = draw(f, g, 1, top, top);
      b[i] = g() & f.sign_mask();  // +-0
    }
    if (d.cancel && i % 2 == 1) {
      a[i] = a[i - 1] ^ f.sign_mask();
      b[i] = b[i - 1];
    }
  }
}

/// The encodings x as an fp<F> array.
template <lf::format F>
std::vector<lf::fp<F>> typed_array(const bits& x) {
  std::vector<lf::fp<F>> t;
  for (auto v : x) t.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(v)));
  return t;
}

/// body(a, b, c) for every case of one unit: each data set, length, repetition and start value,
/// with the unit, set, length and c captured for doctest's messages; after checking that the
/// run-time and typed lf::dot give want = general(a, b, c).
template <lf::format F, class General, class Body>
void for_each_case(const lf::matrix_unit& mu, const std::string& unit, std::mt19937_64& g, const std::vector<data_set>& sets,
                   std::span<const std::size_t> lengths, int reps, const General& general, const Body& body) {
  for (const data_set& d : sets) {
    for (std::size_t n : lengths) {
      for (int rep = 0; rep < reps; ++rep) {
        bits a, b;
        make_operands(F, g, d, n, a, b);
        for (lf::bits_t c : start_values(g)) {
          const std::string set = d.name;
          CAPTURE(unit);
          CAPTURE(set);
          CAPTURE(n);
          CAPTURE(c);
          const outcome want = general(mu, F, a, b, c);
          lf::status rst{};
          const outcome runtime{lf::dot(mu, F, a, F, b, c, rst), rst};
          CHECK(runtime == want);
          // (the typed entry converts c to binary32 first, which quiets a signaling NaN: with no
          // products to add, that is the one difference)
          if (n > 0 || (c & 0x7FFFFFFF) <= 0x7F800000) CHECK(typed_dot<F>(mu, a, b, c) == want);
          body(a, b, c, want);
        }
      }
    }
  }
}

/// The encoding of F for k 2^q (0 < |k| < 2^p, normal in F).
template <lf::format F>
lf::bits_t encode(std::int64_t k, int q) {
  const auto m = static_cast<std::uint64_t>(k < 0 ? -k : k);
  const int top = std::bit_width(m) - 1, p = F.precision;
  REQUIRE(m != 0);
  REQUIRE(top < p);
  REQUIRE(q + top + F.bias() >= 1);
  REQUIRE(q + top + F.bias() <= 2 * F.bias());
  const auto field = static_cast<lf::bits_t>(q + top + F.bias());
  const lf::bits_t frac = (m << (p - 1 - top)) & F.fraction_mask();
  return (k < 0 ? F.sign_mask() : 0) | (field << F.fraction_bits()) | frac;
}

/// Pushes the product k 2^q as two encodings, 2^q split between them.
template <lf::format F>
void push_product(bits& a, bits& b, std::int64_t k, int q) {
  a.push_back(encode<F>(k, q / 2));
  b.push_back(encode<F>(1, q - q / 2));
}

/// One case of binade_edge: a . b from c; the edge block ends at `prefix`; its kind and c's binade E.
struct edge_case {
  bits a, b;
  lf::bits_t c;
  std::size_t prefix;
  int kind, E;
};

/// The chain of fast/binade_chain.hpp at the edges of the binade it predicts, for blocks of N: c
/// in binade E, two blocks of +0 products (c stays), one block whose sum P puts x = c + P at an
/// edge of binade E (kind = rep % 7), then blocks of small products of random signs:
///   0  onto 2^E from above (the chain's r is 2^E, which it must not take)
///   1  just below 2^E by 1 or 3 2^(E - 24): exact binary32 values of binade E - 1, off binade E's
///      step (the chain's addition raises an inexact that the model does not)
///   2  a tie of binade E's step, and 3 just beside one (a second, tiny product)
///   4  onto or to within a tie of 2^(E + 1) from below
///   5  far below (P = -c and a small product), 6 across zero (-2c and a small product)
/// with E over the format's range (bfloat16: binary32's lowest and highest normal binades, where
/// results become subnormal or overflow; binary16: where every product is one of normal values).
template <lf::format F>
edge_case binade_edge(int N, int rep, std::mt19937_64& g) {
  const int kind = rep % 7;
  int E;
  if (F == lf::binary16) E = 4 + static_cast<int>(g() % 17);
  else E = rep % 50 == 0 ? -126 : rep % 50 == 1 ? 127 : -100 + static_cast<int>(g() % 201);
  const std::int64_t sgn = (g() & 1) != 0 ? -1 : 1;
  // a small number of binade E's steps (blocks of 1: 2j + 3 must fit the one product's significand)
  const auto j = static_cast<std::int64_t>(1 + g() % (N == 1 ? 100 : 200));
  // c = m 2^(E - 23), m in [2^23, 2^24): near the bottom of the binade for kinds 0 and 1, near the
  // top for 4; for 5 and 6 with 8 significant bits, h 2^16
  std::int64_t m = (std::int64_t{1} << 23) + static_cast<std::int64_t>(g() % (std::uint64_t{1} << 23));
  const auto h = static_cast<std::int64_t>(128 + g() % 128);
  if (kind <= 1) m = (std::int64_t{1} << 23) + j;
  if (kind == 4) m = (std::int64_t{1} << 24) - j;
  if (kind >= 5) m = h << 16;
  edge_case e{};
  e.kind = kind;
  e.E = E;
  e.c = std::bit_cast<std::uint32_t>(static_cast<float>(std::ldexp(static_cast<double>(sgn * m), E - 23)));
  const auto zeros = [&](std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      e.a.push_back(0);
      e.b.push_back(0);
    }
  };
  const auto n = static_cast<std::size_t>(N);
  zeros(2 * n);
  // the edge block: P = u 2^(E - 23) + v 2^(E - 24) (one product 2u + v for blocks of 1), a tiny
  // product for kind 3, -c (5) or -2c (6) and a small product
  std::int64_t u = 0, v = 0;
  switch (kind) {
    case 0: u = -j; break;
    case 1: u = -j, v = (g() & 1) ? -1 : -3; break;
    case 2: u = static_cast<std::int64_t>(g() % 100) - 50, v = 1; break;
    case 3: u = static_cast<std::int64_t>(g() % 100) - 50, v = (g() & 1) ? 1 : -1; break;
    case 4: u = j - static_cast<std::int64_t>(g() % 2), v = (g() & 1) ? 1 : 0; break;
    default: break;
  }
  std::size_t used = 0;
  if (kind >= 5) {
    push_product<F>(e.a, e.b, -sgn * h, kind == 5 ? E - 7 : E - 6), ++used;
  } else if (N == 1) {
    push_product<F>(e.a, e.b, sgn * (2 * u + v), E - 24), ++used;
  } else {
    if (u != 0) push_product<F>(e.a, e.b, sgn * u, E - 23), ++used;
    if (v != 0) push_product<F>(e.a, e.b, sgn * v, E - 24), ++used;
  }
  if ((kind == 3 || kind >= 5) && used < n) {  // a tiny or small product
    const int q = kind == 3 ? E - 24 - (F == lf::binary16 ? 8 : 20) : E - 23 - static_cast<int>(g() % 3);
    push_product<F>(e.a, e.b, (static_cast<std::int64_t>(g() % 64) - 32) | 1, q), ++used;
  }
  zeros(n - used);
  e.prefix = e.a.size();
  // then small products (a block of them, and a short one for a kernel's tail)
  for (int i = 0; i < N + 1 + static_cast<int>(g() % 3); ++i)
    push_product<F>(e.a, e.b, (static_cast<std::int64_t>(g() % 255) - 127) | 1, E - 23 - static_cast<int>(g() % 8));
  return e;
}

/// body() with each kernel of a hardware path that has two (lf::set_array_dispatch chooses): the
/// portable one and, where the CPU has AVX2, F16C and FMA, the AVX2 one. A kernel the CPU lacks is
/// reported as skipped. Under AddressSanitizer only the kernel this CPU runs by default (the AVX2
/// one where it has it), to keep the sanitizer stage short.
template <class Body>
void for_every_kernel(const Body& body) {
  const bool avx2 = lf::detail::cpu().avx2_f16c && lf::detail::cpu().fma;
  for (const lf::array_dispatch d : {lf::array_dispatch::portable, lf::array_dispatch::avx2}) {
    if (test_sanitizer::under_asan && (d == lf::array_dispatch::avx2) != avx2) continue;
    const lf::array_dispatch prev = lf::set_array_dispatch(d);
    if (lf::array_dispatch_in_use() == d && (d == lf::array_dispatch::portable || avx2)) {
      MESSAGE("kernel: " << std::string(lf::array_dispatch_name(d)));
      body();
    } else {
      MESSAGE("kernel " << std::string(lf::array_dispatch_name(d)) << " skipped: this CPU lacks it");
    }
    lf::set_array_dispatch(prev);
  }
}

#if defined(LIBFLOAT_DOT_FAST_X86)
/// The caller's MXCSR decides: under each setting of test_support::mxcsr_settings, fast(a, b, r, st)
/// (the hardware path on 100 bfloat16 pairs, c = +0) runs exactly on the default ones, the
/// run-time lf::dot on unit mu still gives general's outcome, and MXCSR comes back as it was.
template <class General, class Fast>
void check_mxcsr_decides(const lf::matrix_unit& mu, const General& general, const Fast& fast) {
  std::mt19937_64 g(9);
  bits a(100), b(100);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = draw(lf::bfloat16, g, 1, 120, 134), b[i] = draw(lf::bfloat16, g, 1, 120, 134);
  const outcome want = general(mu, lf::bfloat16, a, b, 0);
  REQUIRE(lf::has(want.st, lf::status::inexact));
  const unsigned saved = _mm_getcsr();
  for (const auto& s : test_support::mxcsr_settings) {
    CAPTURE(s.name);
    _mm_setcsr(s.csr);
    // Integer code only between the two MXCSR writes: the library's general path is integer arithmetic.
    lf::status rst{};
    const outcome runtime{lf::dot(mu, lf::bfloat16, a, lf::bfloat16, b, 0, rst), rst};
    std::uint32_t r = 0;
    lf::status st{};
    const bool taken = fast(a, b, r, st);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    CHECK(after == s.csr);
    CHECK(taken == s.fast);
    CHECK(runtime == want);
  }
}
#endif

}  // namespace unit_dot_cases
