// lf::add / sub / mul / div / fma on spans (core/array_arith.hpp): every element's bits and the span's flags
// against the scalar operation, on every dispatch path the CPU has, in every rounding direction, with
// NaNs, infinities, zeros and subnormals among the operands, spans that are not a multiple of the
// kernels' block, in place (out = a, out = b), other formats and policies (the scalar loop), stochastic
// rounding from a source, the caller's MXCSR kept, and the errors. (The binary16 vector kernels are
// proven on all 2^32 pairs by tests/fast/test_binary16_ops_proof.cpp, label proof.)
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace {

enum class op { add, sub, mul, div, fma };
constexpr op ops[] = {op::add, op::sub, op::mul, op::div, op::fma};
constexpr lf::rounding det_modes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                      lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};
constexpr lf::array_dispatch paths[] = {lf::array_dispatch::portable, lf::array_dispatch::avx2,
                                        lf::array_dispatch::avx512};

/// fma's third operand: c, a fixed function of a and b (an encoding of the same format).
template <lf::format F>
lf::fp<F> third(lf::fp<F> a, lf::fp<F> b) {
  return lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>((a.bits() * 7u) ^ (b.bits() >> 1)));
}
template <lf::format F>
lf::fp<F> scalar(op o, lf::fp<F> a, lf::fp<F> b, const lf::env& e, lf::status* st) {
  switch (o) {
    case op::add: return lf::add(a, b, e, st);
    case op::sub: return lf::sub(a, b, e, st);
    case op::mul: return lf::mul(a, b, e, st);
    case op::div: return lf::div(a, b, e, st);
    case op::fma: return lf::fma(a, b, third<F>(a, b), e, st);
  }
  return {};
}
/// The span operation; for fma, c[i] = third(a[i], b[i]) (out may be a or b: c is made first).
template <lf::format F>
lf::status spans(op o, std::span<const lf::fp<F>> a, std::span<const lf::fp<F>> b, std::span<lf::fp<F>> out,
                 const lf::env& e) {
  switch (o) {
    case op::add: return lf::add<F>(a, b, out, e);
    case op::sub: return lf::sub<F>(a, b, out, e);
    case op::mul: return lf::mul<F>(a, b, out, e);
    case op::div: return lf::div<F>(a, b, out, e);
    case op::fma: {
      std::vector<lf::fp<F>> c(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) c[i] = third<F>(a[i], b[i]);
      return lf::fma<F>(a, b, c, out, e);
    }
  }
  return {};
}

/// Random encodings of F, every class included (the top bits uniform).
template <lf::format F>
std::vector<lf::fp<F>> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<lf::fp<F>> v(n);
  for (auto& x : v) x = lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(g()));
  return v;
}

/// out = a op b by spans vs element by element; returns the number of differences (bits or flags).
template <lf::format F>
int compare(op o, const std::vector<lf::fp<F>>& a, const std::vector<lf::fp<F>>& b, const lf::env& e) {
  std::vector<lf::fp<F>> out(a.size());
  const lf::status got = spans<F>(o, a, b, out, e);
  lf::status want{};
  int bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (scalar<F>(o, a[i], b[i], e, &want).bits() != out[i].bits() && bad++ == 0)
      MESSAGE("element " << i << ": " << a[i].bits() << ", " << b[i].bits() << " -> " << out[i].bits());
  if (got != want) {
    MESSAGE("flags " << int(lf::to_bits(got)) << ", scalar " << int(lf::to_bits(want)));
    ++bad;
  }
  return bad;
}

struct dispatch_scope {
  lf::array_dispatch previous;
  explicit dispatch_scope(lf::array_dispatch p) : previous(lf::set_array_dispatch(p)) {}
  ~dispatch_scope() { lf::set_array_dispatch(previous); }
};

}  // namespace

TEST_CASE("binary16 span arithmetic == the scalar operation on every path, mode and size") {
  for (const auto path : paths) {
    dispatch_scope scope(path);
    if (lf::array_dispatch_in_use() != path) {
      MESSAGE("path " << lf::array_dispatch_name(path) << " SKIPPED: not on this CPU");
      continue;
    }
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{1000},
                                std::size_t{4096 + 37}}) {
      const auto a = random_values<lf::binary16>(n, 1 + n), b = random_values<lf::binary16>(n, 2 + n);
      for (const op o : ops)
        for (const auto m : det_modes) {
          CAPTURE(lf::array_dispatch_name(path));
          CAPTURE(n);
          CAPTURE(static_cast<int>(o));
          CAPTURE(lf::rounding_name(m));
          CHECK(compare<lf::binary16>(o, a, b, lf::env{m}) == 0);
        }
    }
  }
}

TEST_CASE("binary16 span arithmetic: finite operands only (every block on the vector kernels)") {
  // the top exponent masked off: no NaN or infinity, so the core takes no pair in the vector paths
  auto a = random_values<lf::binary16>(4096, 7), b = random_values<lf::binary16>(4096, 8);
  for (auto* v : {&a, &b})
    for (auto& x : *v) x = lf::fp16::from_bits(static_cast<std::uint16_t>(x.bits() & 0xBFFFu));
  for (const auto path : paths) {
    dispatch_scope scope(path);
    if (lf::array_dispatch_in_use() != path) continue;
    for (const op o : ops)
      for (const auto m : det_modes) CHECK(compare<lf::binary16>(o, a, b, lf::env{m}) == 0);
  }
}

TEST_CASE("span arithmetic in place: out may be a or b") {
  const auto a = random_values<lf::binary16>(1000, 3), b = random_values<lf::binary16>(1000, 4);
  for (const auto path : paths) {
    dispatch_scope scope(path);
    if (lf::array_dispatch_in_use() != path) continue;
    for (const op o : ops) {
      std::vector<lf::fp16> want(a.size()), x = a, y = b;
      (void)spans<lf::binary16>(o, a, b, want, lf::env{lf::rounding::upward});
      (void)spans<lf::binary16>(o, x, b, x, lf::env{lf::rounding::upward});  // x = x op b
      (void)spans<lf::binary16>(o, a, y, y, lf::env{lf::rounding::upward});  // y = a op y
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(x[i].bits() == want[i].bits());
        CHECK(y[i].bits() == want[i].bits());
      }
    }
  }
}

TEST_CASE("span fma in place: out may be c (c = a * b + c)") {
  const auto a = random_values<lf::binary16>(1000, 13), b = random_values<lf::binary16>(1000, 14),
             c = random_values<lf::binary16>(1000, 15);
  for (const auto path : paths) {
    dispatch_scope scope(path);
    if (lf::array_dispatch_in_use() != path) continue;
    std::vector<lf::fp16> acc = c;
    lf::status want{};
    const lf::status got = lf::fma(a, b, acc, acc, lf::rounding::downward);
    for (std::size_t i = 0; i < a.size(); ++i)
      CHECK(acc[i].bits() == lf::fma(a[i], b[i], c[i], lf::rounding::downward, &want).bits());
    CHECK(got == want);
  }
}

TEST_CASE("span arithmetic in other formats and policies (the scalar loop)") {
  const lf::policy ftz{lf::tininess::after_rounding, lf::subnormal_results::flush_to_zero,
                       lf::subnormal_inputs::treat_as_zero, lf::overflow_policy::saturate};
  for (const op o : ops)
    for (const auto m : det_modes) {
      CHECK(compare<lf::bfloat16>(o, random_values<lf::bfloat16>(300, 5), random_values<lf::bfloat16>(300, 6), lf::env{m}) == 0);
      CHECK(compare<lf::binary32>(o, random_values<lf::binary32>(300, 5), random_values<lf::binary32>(300, 6), lf::env{m}) == 0);
      CHECK(compare<lf::float8_e4m3fn>(o, random_values<lf::float8_e4m3fn>(300, 5), random_values<lf::float8_e4m3fn>(300, 6),
                                       lf::env{m}) == 0);
      CHECK(compare<lf::binary16>(o, random_values<lf::binary16>(600, 5), random_values<lf::binary16>(600, 6), lf::env{m, ftz}) == 0);
    }
  // the named types' overloads take vectors directly
  std::vector<lf::bf16> x{lf::bf16{1.0}, lf::bf16{2.0}}, y{lf::bf16{0.5}, lf::bf16{3.0}}, z(2);
  CHECK(lf::mul(x, y, z) == lf::status::none);
  CHECK(static_cast<double>(z[1]) == 6.0);
}

TEST_CASE("span arithmetic with stochastic rounding: element i takes source.bits(position + i)") {
  const auto a = random_values<lf::binary16>(700, 9), b = random_values<lf::binary16>(700, 10);
  std::vector<lf::fp16> whole(700), parts(700);
  lf::stochastic_source s{1234}, s2{1234};
  const lf::status st = lf::add(a, b, whole, s);
  CHECK(s.position == 700);
  lf::status want{};
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(lf::add(a[i], b[i], lf::env{lf::rounding::stochastic, lf::policy{}, s2.bits(i)}, &want).bits() == whole[i].bits());
  CHECK(st == want);
  // in two pieces: the same
  (void)lf::add(std::span(a).first(300), std::span(b).first(300), std::span(parts).first(300), s2);
  (void)lf::add(std::span(a).subspan(300), std::span(b).subspan(300), std::span(parts).subspan(300), s2);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(parts[i].bits() == whole[i].bits());
}

TEST_CASE("span arithmetic errors: sizes, stochastic without a source") {
  std::vector<lf::fp16> a(10), b(9), out(10, lf::fp16{1.0});
  CHECK_THROWS_WITH_AS(lf::add(a, b, out), doctest::Contains("lf::add: the operand spans have 10 and 9 elements"),
                       std::invalid_argument);
  CHECK_THROWS_AS(lf::div(a, a, std::span(out).first(3)), std::invalid_argument);
  CHECK_THROWS_WITH_AS(lf::fma(a, a, b, out), doctest::Contains("lf::fma: the operand spans have 10, 10 and 9 elements"),
                       std::invalid_argument);
  CHECK(out[0].bits() == lf::fp16{1.0}.bits());  // nothing written
  CHECK_THROWS_WITH_AS(lf::mul(a, a, out, lf::rounding::stochastic), doctest::Contains("lf::stochastic_source"),
                       std::invalid_argument);
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("span arithmetic keeps the caller's MXCSR (rounding control, FTZ/DAZ, sticky flags)") {
  const auto a = random_values<lf::binary16>(2048, 11), b = random_values<lf::binary16>(2048, 12);
  std::vector<lf::fp16> ref(2048), out(2048);
  const unsigned saved = _mm_getcsr();
  for (const auto path : paths) {
    dispatch_scope scope(path);
    if (lf::array_dispatch_in_use() != path) continue;
    for (const op o : ops) {
      const lf::status want = spans<lf::binary16>(o, a, b, ref, lf::env{lf::rounding::nearest_even});
      // toward zero, FTZ and DAZ on, no sticky flags: the results must not change, nor the MXCSR
      const unsigned odd_env = (saved & ~0xE03Fu) | 0x6000u | 0x8040u;
      _mm_setcsr(odd_env);
      const lf::status got = spans<lf::binary16>(o, a, b, out, lf::env{lf::rounding::nearest_even});
      const unsigned after = _mm_getcsr();
      _mm_setcsr(saved);
      CHECK(after == odd_env);
      CHECK(got == want);
      for (std::size_t i = 0; i < a.size(); ++i) CHECK(out[i].bits() == ref[i].bits());
    }
  }
}
#endif
