// fast/dot.hpp: the hardware path of the "CUDA core" dot product (binary16 inputs, exact
// products, binary32 nearest-even accumulator, sequential), behind lf::dot(accumulations::fp32_acc)
// and lf::dot(matrix_units::cuda_core_fp32). Checked against
//  - the library's step-by-step engine (lf::detail::dot_impl_general: one lf::fma per term): the
//    same bits and the same five flags on random data with subnormals, zeros of both signs, exact
//    cancellation, the largest terms, every length class around the 256-term block, and start
//    values 0, -0, subnormal, max finite;
//  - the exact-rational oracle (tests/support/oracle.hpp, no library code): every step an
//    oracle::fma in binary32, flags ORed;
// and for what it must leave alone: non-finite data and non-default MXCSR settings (toward zero,
// FTZ, DAZ, an unmasked exception) make it decline, so the engine decides; the caller's MXCSR,
// sticky flags included, is the same after the call.
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/mxcsr_settings.hpp"
#include "../support/oracle.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TEST_DOT_FAST_X86 1
#endif

namespace {

using u64 = std::uint64_t;
using bits = std::vector<lf::bits_t>;

constexpr std::size_t lengths[] = {0, 1, 2, 17, 31, 32, 33, 255, 256, 257, 4096};

/// n random binary16 encodings with biased exponent fields in [lo, hi] (0: zero or subnormal),
/// random signs and fractions.
bits random_f16(std::mt19937_64& g, std::size_t n, unsigned lo, unsigned hi) {
  std::uniform_int_distribution<unsigned> e(lo, hi);
  bits v(n);
  for (auto& x : v) x = ((g() & 1) << 15) | (u64{e(g)} << 10) | (g() & 0x3FF);
  return v;
}

/// The data sets: pairs (a, b) of 4096 finite binary16 encodings each.
std::vector<std::pair<bits, bits>> data_sets() {
  std::mt19937_64 g(20261130);
  std::vector<std::pair<bits, bits>> sets;
  sets.emplace_back(random_f16(g, 4096, 0, 30), random_f16(g, 4096, 0, 30));     // every finite encoding
  sets.emplace_back(random_f16(g, 4096, 7, 22), random_f16(g, 4096, 7, 22));     // exponents -8..7 (the bench)
  sets.emplace_back(random_f16(g, 4096, 0, 0), random_f16(g, 4096, 0, 3));       // subnormal x tiny: down to 2^-48
  sets.emplace_back(random_f16(g, 4096, 26, 30), random_f16(g, 4096, 26, 30));   // large: terms up to 65504^2
  {
    // Zeros of both signs with a few tiny terms: zero sums and their signs.
    bits a = random_f16(g, 4096, 0, 0), b = random_f16(g, 4096, 0, 0);
    for (std::size_t i = 0; i < a.size(); ++i)
      if (g() % 16 != 0) a[i] &= 0x8000;  // +-0
    sets.emplace_back(a, b);
  }
  {
    // Exact cancellation: a_i b_i followed by -a_i b_i, so the running sum returns to the start.
    bits a = random_f16(g, 4096, 5, 25), b = random_f16(g, 4096, 5, 25);
    for (std::size_t i = 1; i < a.size(); i += 2) {
      a[i] = a[i - 1] ^ 0x8000;
      b[i] = b[i - 1];
    }
    sets.emplace_back(a, b);
  }
  {
    // All terms -0 (a = -0, b = +x): the sign of an all-zero sum depends on the start value.
    bits a(4096, 0x8000), b = random_f16(g, 4096, 1, 30);
    for (auto& x : b) x &= 0x7FFF;
    sets.emplace_back(a, b);
  }
  sets.emplace_back(bits(4096, 0x7BFF), bits(4096, 0x7BFF));  // 65504^2, 4096 times: about 2^44, no overflow
  return sets;
}

/// Start values: absent, and binary32 encodings.
std::vector<std::optional<lf::value>> start_values() {
  std::vector<std::optional<lf::value>> v{std::nullopt};
  for (u64 c : {u64{0x00000000},    // +0
                u64{0x80000000},    // -0
                u64{0x3F800000},    // 1
                u64{0xC8000000},    // -131072
                u64{0x00000001},    // 2^-149, the smallest subnormal
                u64{0x807FFFFF},    // -(2^-126 - 2^-149), the largest subnormal
                u64{0x7F7FFFFF},    // max finite: every term is below its half-ulp
                u64{0xFF7FFFFF}})   // -max finite
    v.emplace_back(lf::value{lf::binary32, c});
  return v;
}

struct outcome {
  lf::bits_t r;
  lf::status st;
};

outcome engine(const lf::accumulation& m, std::span<const lf::bits_t> a, std::span<const lf::bits_t> b,
               const std::optional<lf::value>& init) {
  lf::status st{};
  const lf::value v = lf::detail::dot_impl_general(
      m, [a](std::size_t i) { return a[i]; }, [b](std::size_t i) { return b[i]; }, a.size(), init, &st, nullptr);
  return {v.bits, st};
}

outcome public_dot(const lf::accumulation& m, std::span<const lf::bits_t> a, std::span<const lf::bits_t> b,
                   const std::optional<lf::value>& init) {
  lf::status st = lf::status::none;
  const lf::value v = init ? lf::dot(m, a, b, *init, &st) : lf::dot(m, a, b, &st);
  return {v.bits, st};
}

template <lf::format F = lf::binary16>
std::vector<lf::fp<F>> typed(std::span<const lf::bits_t> x) {
  using T = lf::fp<F>;
  std::vector<T> v;
  for (auto b : x) v.push_back(T::from_bits(static_cast<typename T::storage_type>(b & F.encoding_mask())));
  return v;
}

template <lf::format F = lf::binary16>
outcome typed_dot(const lf::accumulation& m, std::span<const lf::bits_t> a, std::span<const lf::bits_t> b,
                  const std::optional<lf::value>& init) {
  const auto ta = typed<F>(a), tb = typed<F>(b);
  lf::status st = lf::status::none;
  const lf::value v = init ? lf::dot(m, ta, tb, *init, &st) : lf::dot(m, ta, tb, &st);
  return {v.bits, st};
}

template <lf::format F = lf::binary16>
outcome unit_dot(std::span<const lf::bits_t> a, std::span<const lf::bits_t> b, lf::bits_t c) {
  const auto ta = typed<F>(a), tb = typed<F>(b);
  lf::status st = lf::status::none;
  const lf::fp32 r = lf::dot(lf::matrix_units::cuda_core_fp32, std::span<const lf::fp<F>>(ta),
                             std::span<const lf::fp<F>>(tb), lf::fp32::from_bits(static_cast<std::uint32_t>(c)), &st);
  return {r.bits(), st};
}

outcome unit_dot_runtime(std::span<const lf::bits_t> a, std::span<const lf::bits_t> b, lf::bits_t c,
                         const lf::format& f = lf::binary16) {
  lf::status st = lf::status::none;
  const lf::bits_t r = lf::dot(lf::matrix_units::cuda_core_fp32, f, a, f, b, c, st);
  return {r, st};
}

/// The kernel itself: nullopt when it declines.
std::optional<outcome> kernel(std::span<const lf::bits_t> a, std::span<const lf::bits_t> b, std::uint32_t init,
                              const lf::format& f = lf::binary16) {
  std::uint32_t r = 0xDEADBEEF;
  lf::status st = lf::status::invalid;  // must be overwritten
  if (!lf::detail::dot_f32_nearest(f, [a](std::size_t i) { return a[i]; }, [b](std::size_t i) { return b[i]; },
                                   a.size(), init, r, st))
    return std::nullopt;
  return outcome{r, st};
}

std::string hex(u64 v) { return oracle::hex(v, 32); }

#define CHECK_SAME(got, want, what)                                                                    \
  do {                                                                                                 \
    INFO(what << ": got " << hex((got).r) << " flags " << int(lf::to_bits((got).st)) << ", engine "    \
              << hex((want).r) << " flags " << int(lf::to_bits((want).st)));                           \
    CHECK(((got).r == (want).r && (got).st == (want).st));                                             \
  } while (0)

constexpr lf::accumulation fp32_fused{.input = lf::binary16, .products = lf::product_mode::fused,
                                      .accumulator = lf::binary32};

}  // namespace

TEST_CASE("dot fast path: fp32_acc and cuda_core_fp32 give the engine's bits and flags") {
  const auto sets = data_sets();
  const auto inits = start_values();
  int inexact_seen = 0, exact_seen = 0, negative_zero_seen = 0;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (std::size_t n : lengths)
      for (std::size_t j = 0; j < inits.size(); ++j) {
        if (n >= 255 && j != 0 && j != 2 && j != 7) continue;  // long sums: none, -0, max (time under ASan)
        const auto& init = inits[j];
        const std::span<const lf::bits_t> a(sets[s].first.data(), n), b(sets[s].second.data(), n);
        CAPTURE(s);
        CAPTURE(n);
        CAPTURE(init ? hex(init->bits) : std::string("none"));
        const outcome want = engine(lf::accumulations::fp32_acc, a, b, init);
        inexact_seen += lf::has(want.st, lf::status::inexact);
        exact_seen += want.st == lf::status::none;
        negative_zero_seen += want.r == 0x80000000;
        CHECK_SAME(public_dot(lf::accumulations::fp32_acc, a, b, init), want, "lf::dot(fp32_acc, bits)");
        CHECK_SAME(typed_dot(lf::accumulations::fp32_acc, a, b, init), want, "lf::dot(fp32_acc, fp16)");
        CHECK_SAME(public_dot(fp32_fused, a, b, init), want, "lf::dot(fused products, bits)");
        const std::uint32_t c = init ? static_cast<std::uint32_t>(init->bits) : 0u;
        const auto k = kernel(a, b, c);
        // The kernel runs (does not decline) on finite data under the default MXCSR wherever it is built.
        REQUIRE(k.has_value() == lf::detail::dot_fast_built);
        if (k) CHECK_SAME(*k, want, "detail::dot_f32_nearest");
        // The matrix unit: the same fma chain, started at c (+0 when there is no init, as fp32_acc starts).
        CHECK_SAME(unit_dot(a, b, c), want, "lf::dot(cuda_core_fp32, fp16)");
        CHECK_SAME(unit_dot_runtime(a, b, c), want, "lf::dot(cuda_core_fp32, bits)");
      }
  // The data reach the interesting outcomes (else the comparison above proves little).
  CHECK(inexact_seen > 100);
  CHECK(exact_seen > 50);
  CHECK(negative_zero_seen > 5);
}

TEST_CASE("dot fast path: encodings are read modulo 2^16, as the engine reads them") {
  std::mt19937_64 g(7);
  bits a = random_f16(g, 300, 0, 30), b = random_f16(g, 300, 0, 30);
  for (auto& x : a) x |= u64{0xABCD} << 16;
  const outcome want = engine(lf::accumulations::fp32_acc, a, b, std::nullopt);
  CHECK_SAME(public_dot(lf::accumulations::fp32_acc, a, b, std::nullopt), want, "high bits set in a");
}

TEST_CASE("dot fast path: every step is the oracle's binary32 fma (no library code)") {
  const auto sets = data_sets();
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (u64 c0 : {u64{0}, u64{0x80000000}, u64{0x00000001}}) {
      CAPTURE(s);
      CAPTURE(hex(c0));
      constexpr std::size_t n = 257;
      u64 acc = c0;
      std::uint8_t flags = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto fa = oracle::convert(oracle::binary32, oracle::binary16, sets[s].first[i], oracle::mode::nearest_even);
        const auto fb = oracle::convert(oracle::binary32, oracle::binary16, sets[s].second[i], oracle::mode::nearest_even);
        const auto r = oracle::fma(oracle::binary32, fa.bits, fb.bits, acc, oracle::mode::nearest_even);
        flags |= fa.flags | fb.flags | r.flags;
        acc = r.bits;
      }
      const outcome want{acc, static_cast<lf::status>(flags)};
      const std::span<const lf::bits_t> a(sets[s].first.data(), n), b(sets[s].second.data(), n);
      CHECK_SAME(public_dot(lf::accumulations::fp32_acc, a, b, lf::value{lf::binary32, c0}), want, "fp32_acc vs oracle");
      CHECK_SAME(unit_dot(a, b, c0), want, "cuda_core_fp32 vs oracle");
    }
}

TEST_CASE("dot fast path: infinities and NaNs are left to the engine") {
  std::mt19937_64 g(11);
  struct special {
    const char* name;
    std::size_t at;
    lf::bits_t a, b;
  };
  const special cases[] = {
      {"+inf * 2", 100, 0x7C00, 0x4000},        {"-inf * 2", 300, 0xFC00, 0x4000},
      {"inf * 0 (invalid)", 5, 0x7C00, 0x0000}, {"quiet NaN", 257, 0x7E00, 0x3C00},
      {"signaling NaN", 0, 0x3C00, 0x7D00},     {"NaN with payload, last", 1023, 0xFE01, 0x3C00},
  };
  const bits base_a = random_f16(g, 1024, 0, 30), base_b = random_f16(g, 1024, 0, 30);
  for (const auto& sp : cases) {
    CAPTURE(sp.name);
    bits a = base_a, b = base_b;
    a[sp.at] = sp.a;
    b[sp.at] = sp.b;
    if (sp.at == 100) {  // +inf and -inf in one sum: invalid
      a[200] = 0xFC00;
      b[200] = 0x3C00;
    }
    const outcome want = engine(lf::accumulations::fp32_acc, a, b, std::nullopt);
    CHECK(oracle::is_nan(oracle::binary32, want.r) + ((want.r & 0x7FFFFFFF) == 0x7F800000) == 1);
    CHECK_SAME(public_dot(lf::accumulations::fp32_acc, a, b, std::nullopt), want, "lf::dot");
    CHECK_SAME(unit_dot(a, b, 0), want, "cuda_core_fp32");
    CHECK_FALSE(kernel(a, b, 0).has_value());
  }
  // Non-finite start values.
  const bits a = random_f16(g, 64, 0, 30), b = random_f16(g, 64, 0, 30);
  for (u64 c : {u64{0x7F800000}, u64{0xFF800000}, u64{0x7FC00000}, u64{0x7F800001}}) {
    CAPTURE(hex(c));
    const outcome want = engine(lf::accumulations::fp32_acc, a, b, lf::value{lf::binary32, c});
    CHECK_SAME(public_dot(lf::accumulations::fp32_acc, a, b, lf::value{lf::binary32, c}), want, "lf::dot, init");
    CHECK_FALSE(kernel(a, b, static_cast<std::uint32_t>(c)).has_value());
  }
}

TEST_CASE("dot fast path: other models are not taken for it") {
  // The kernel must not run for a model that rounds differently; these must match the engine
  // (which lf::dot then runs) and differ from fp32_acc somewhere on this data.
  std::mt19937_64 g(13);
  const bits a = random_f16(g, 1000, 5, 25), b = random_f16(g, 1000, 5, 25);
  lf::accumulation toward_zero = lf::accumulations::fp32_acc;
  toward_zero.accumulator_env = lf::env{lf::rounding::toward_zero};
  lf::accumulation ftz = lf::accumulations::fp32_acc;
  ftz.accumulator_env.policy.inputs = lf::subnormal_inputs::treat_as_zero;
  const bits sub_a = random_f16(g, 1000, 0, 0), sub_b = random_f16(g, 1000, 20, 30);
  const outcome base = engine(lf::accumulations::fp32_acc, a, b, std::nullopt);
  const outcome base_sub = engine(lf::accumulations::fp32_acc, sub_a, sub_b, std::nullopt);
  const outcome tz = engine(toward_zero, a, b, std::nullopt);
  CHECK(tz.r != base.r);
  CHECK_SAME(public_dot(toward_zero, a, b, std::nullopt), tz, "toward zero");
  const outcome daz = engine(ftz, sub_a, sub_b, std::nullopt);
  CHECK(daz.r != base_sub.r);
  CHECK_SAME(public_dot(ftz, sub_a, sub_b, std::nullopt), daz, "DAZ");
  for (const auto& m : {lf::accumulations::fp32_split_k, lf::accumulations::fp16_mul_fp32_acc}) {
    const outcome want = engine(m, a, b, std::nullopt);
    CHECK(want.r != base.r);
    CHECK_SAME(public_dot(m, a, b, std::nullopt), want, std::string(lf::describe(m)));
  }
  lf::trace tr;
  lf::status st{};
  const lf::value traced = lf::dot(lf::accumulations::fp32_acc, a, b, &st, &tr);
  CHECK(tr.steps.size() == a.size());  // a trace request runs the engine, which records every step
  CHECK((traced.bits == base.r && st == base.st));
}

namespace {

/// n random finite encodings of OCP FP8 format F (E4M3: 1+4+3 bits, NaN S.1111.111, no infinity;
/// E5M2: 1+5+2 bits, IEEE specials at exponent field 11111) with the exponent field in [lo, hi].
template <lf::format F>
bits random_fp8(std::mt19937_64& g, std::size_t n, unsigned lo, unsigned hi) {
  constexpr unsigned fraction_bits = F == lf::float8_e4m3fn ? 3 : 2;
  std::uniform_int_distribution<unsigned> e(lo, hi);
  bits v(n);
  for (auto& x : v) {
    do x = ((g() & 1) << 7) | (u64{e(g)} << fraction_bits) | (g() & ((1u << fraction_bits) - 1));
    while (F == lf::float8_e4m3fn && (x & 0x7F) == 0x7F);
  }
  return v;
}

/// FP8 inputs, exact products, binary32 accumulator: the same checks as for binary16.
template <lf::format F>
void check_fp8(unsigned top_exponent, std::initializer_list<lf::bits_t> specials) {
  std::mt19937_64 g(F == lf::float8_e4m3fn ? 31 : 37);
  const lf::accumulation m{.input = F, .products = lf::product_mode::exact, .accumulator = lf::binary32};
  std::vector<std::pair<bits, bits>> sets;
  sets.emplace_back(random_fp8<F>(g, 4096, 0, top_exponent), random_fp8<F>(g, 4096, 0, top_exponent));
  sets.emplace_back(random_fp8<F>(g, 4096, 0, 0), random_fp8<F>(g, 4096, 0, 1));  // subnormal x tiny
  sets.emplace_back(random_fp8<F>(g, 4096, top_exponent - 1, top_exponent),
                    random_fp8<F>(g, 4096, top_exponent - 1, top_exponent));  // the largest products
  {
    bits a = random_fp8<F>(g, 4096, 0, top_exponent), b = a;  // a_i^2 then -a_i^2: exact zero sums
    for (std::size_t i = 1; i < a.size(); i += 2) a[i] = (b[i] = b[i - 1]) ^ 0x80;
    sets.emplace_back(a, b);
  }
  const auto inits = start_values();
  int inexact_seen = 0;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (std::size_t n : lengths)
      for (std::size_t j = 0; j < inits.size(); ++j) {
        if (n >= 255 && j != 0 && j != 2) continue;  // long sums: no init and -0 (time under ASan)
        const auto& init = inits[j];
        const std::span<const lf::bits_t> a(sets[s].first.data(), n), b(sets[s].second.data(), n);
        CAPTURE(s);
        CAPTURE(n);
        CAPTURE(init ? hex(init->bits) : std::string("none"));
        const outcome want = engine(m, a, b, init);
        inexact_seen += lf::has(want.st, lf::status::inexact);
        CHECK_SAME(public_dot(m, a, b, init), want, "lf::dot(bits)");
        CHECK_SAME(typed_dot<F>(m, a, b, init), want, "lf::dot(typed)");
        const std::uint32_t c = init ? static_cast<std::uint32_t>(init->bits) : 0u;
        const auto k = kernel(a, b, c, F);
        REQUIRE(k.has_value() == lf::detail::dot_fast_built);
        if (k) CHECK_SAME(*k, want, "detail::dot_f32_nearest");
        CHECK_SAME(unit_dot<F>(a, b, c), want, "lf::dot(cuda_core_fp32, typed)");
        CHECK_SAME(unit_dot_runtime(a, b, c, F), want, "lf::dot(cuda_core_fp32, bits)");
      }
  CHECK(inexact_seen > 50);
  // Bits above the 8-bit encoding are ignored, as the engine ignores them.
  bits high = sets[0].first;
  for (auto& x : high) x |= 0xAB00;
  CHECK_SAME(public_dot(m, high, sets[0].second, std::nullopt), engine(m, sets[0].first, sets[0].second, std::nullopt),
             "high bits set");
  // Infinities and NaNs: the engine decides.
  for (lf::bits_t sp : specials) {
    CAPTURE(hex(sp));
    bits a(sets[0].first.begin(), sets[0].first.begin() + 300), b(sets[0].second.begin(), sets[0].second.begin() + 300);
    a[123] = sp;
    const outcome want = engine(m, a, b, std::nullopt);
    CHECK(((want.r & 0x7F800000) == 0x7F800000));  // an infinity or a NaN
    CHECK_SAME(public_dot(m, a, b, std::nullopt), want, "lf::dot");
    CHECK_SAME(unit_dot_runtime(a, b, 0, F), want, "cuda_core_fp32");
    CHECK_FALSE(kernel(a, b, 0, F).has_value());
  }
}

}  // namespace

TEST_CASE("dot fast path: E4M3 inputs (e4m3_fp32_acc) give the engine's bits and flags") {
  check_fp8<lf::float8_e4m3fn>(15, {0x7F, 0xFF});  // the two NaNs
}

TEST_CASE("dot fast path: E5M2 inputs give the engine's bits and flags") {
  check_fp8<lf::float8_e5m2>(30, {0x7C, 0xFC, 0x7E, 0x7D});  // +inf, -inf, quiet NaN, signaling NaN
}

#if defined(TEST_DOT_FAST_X86)
TEST_CASE("dot fast path: the caller's MXCSR decides, and is restored with its flags") {
  std::mt19937_64 g(17);
  const bits a = random_f16(g, 600, 0, 30), b = random_f16(g, 600, 0, 30);
  const outcome want = engine(lf::accumulations::fp32_acc, a, b, std::nullopt);
  REQUIRE(lf::has(want.st, lf::status::inexact));
  const unsigned saved = _mm_getcsr();

  for (const auto& s : test_support::mxcsr_settings) {
    CAPTURE(s.name);
    _mm_setcsr(s.csr);
    // Integer code only between the two MXCSR writes: the library's engine is integer arithmetic.
    const outcome acc = public_dot(lf::accumulations::fp32_acc, a, b, std::nullopt);
    const outcome mu = unit_dot_runtime(a, b, 0);
    const bool fast = kernel(a, b, 0).has_value();
    const unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    CHECK(after == s.csr);
    CHECK(fast == (s.fast && lf::detail::dot_fast_built));
    CHECK_SAME(acc, want, "lf::dot(fp32_acc)");
    CHECK_SAME(mu, want, "lf::dot(cuda_core_fp32)");
  }
}
#endif
