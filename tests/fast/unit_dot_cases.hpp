// Shared by the tests of the matrix units' hardware paths (test_pairwise_fast.cpp,
// test_late_fast.cpp, test_exact_block_fast.cpp): a dot product's outcome, random encodings, the
// data sets, the start values, the typed lf::dot on the same data, and each kernel of a path.
#pragma once

#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/mxcsr_settings.hpp"
#include "../support/sanitizer.hpp"

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
