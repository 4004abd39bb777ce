// Span kernels (core/array.hpp): lf::convert / widen / quantize on whole arrays.
//
// - Every output format, every rounding mode, default and non-default policies, on every dispatch
//   path the CPU has: each element equals the scalar lf::convert (the core), and the returned status
//   is the OR of the scalar flags. Data: the boundary values of each format (every encoding of the
//   8-bit formats widened, +-1 float ulp, the midpoints between neighbours and +-1 ulp around them),
//   float specials, random bit patterns, and blocks of ordinary values with one special value
//   planted in them (the AVX-512 kernels treat such blocks apart).
// - Independent checks, sharing no code with the library: the exact-rational oracle
//   (tests/support/oracle.hpp) for every deterministic mode and format on a sample; the F16C
//   hardware conversion for binary16 nearest even on a million values; widening against values
//   computed with std::ldexp from the spec's encoding rules.
// - Stochastic rounding: whole vs chunks vs reverse order vs two threads give the same output; the
//   fraction of roundings up matches the discarded fraction.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/oracle.hpp"
#include "../support/oracle_mode.hpp"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define TEST_ARRAY_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

#if defined(NDEBUG)
constexpr std::size_t n_random = std::size_t{1} << 20;  // per format and path in the path comparison
constexpr std::size_t n_matrix_random = 20000;          // random values per (format, mode, policy, path)
constexpr std::uint64_t n_boundary_encodings = 4096;    // encodings sampled per format for boundary values
constexpr std::size_t n_other = 20000;                  // values in the quantize and stochastic tests
#else
constexpr std::size_t n_random = std::size_t{1} << 16;  // Debug + sanitizers: keep the test in seconds
constexpr std::size_t n_matrix_random = 1000;
constexpr std::uint64_t n_boundary_encodings = 300;
constexpr std::size_t n_other = 3000;
#endif

std::string hex(u64 v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

float f_of(u32 b) { return std::bit_cast<float>(b); }
u32 bits_of(float f) { return std::bit_cast<u32>(f); }

/// All dispatch paths this CPU offers (portable always).
std::vector<lf::array_dispatch> paths() {
  std::vector<lf::array_dispatch> out{lf::array_dispatch::portable};
  for (auto d : {lf::array_dispatch::avx2, lf::array_dispatch::avx512, lf::array_dispatch::avx512_bf16}) {
    const auto prev = lf::set_array_dispatch(d);
    if (lf::array_dispatch_in_use() == d) out.push_back(d);
    lf::set_array_dispatch(prev);
  }
  return out;
}

struct dispatch_scope {
  lf::array_dispatch previous;
  explicit dispatch_scope(lf::array_dispatch d) : previous(lf::set_array_dispatch(d)) {}
  ~dispatch_scope() { lf::set_array_dispatch(previous); }
  dispatch_scope(const dispatch_scope&) = delete;
  dispatch_scope& operator=(const dispatch_scope&) = delete;
};

/// Boundary values of format F as floats: each (sampled) encoding widened, its float neighbours, the
/// midpoint to the next encoding and its float neighbours; plus float specials.
template <lf::format F>
std::vector<float> boundary_values() {
  std::vector<float> v;
  const u64 count = u64{1} << (F.bits() - 1);  // positive encodings
  const u64 step = count <= n_boundary_encodings ? 1 : count / n_boundary_encodings + 1;
  auto widen_exact = [](u64 b) {  // F inside binary32 for every format tested here
    lf::status s{};
    return f_of(static_cast<u32>(lf::convert(lf::binary32, F, b, lf::env{}, s)));
  };
  for (u64 e = 0; e < count; e += step) {
    for (u64 b : {e, e + 1 < count ? e + 1 : e}) {
      const float x = widen_exact(b);
      if (std::isnan(x)) continue;
      const float y = b + 1 < count ? widen_exact(b + 1) : x;
      for (float z : {x, std::nextafter(x, 0.0f), std::nextafter(x, INFINITY)}) v.push_back(z);
      if (!std::isnan(y) && !std::isinf(y) && !std::isinf(x)) {
        const float mid = static_cast<float>((static_cast<double>(x) + static_cast<double>(y)) / 2);
        for (float z : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) v.push_back(z);
      }
    }
  }
  for (u32 s : {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x00400000u, 0x7F7FFFFFu, 0x7F800000u,
                0x7FC00000u, 0x7FC00001u, 0x7F800001u, 0x7FA00000u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0x3F800000u,
                0x477FF000u, 0x477FEFFFu, 0x387FF000u, 0x387FEFFFu, 0x33000000u, 0x33000001u, 0x32FFFFFFu,
                0x7F7F8000u, 0x7F7F7FFFu, 0x007FC000u, 0x007FBFFFu, 0x43E80000u, 0x43E7FFFFu, 0x43E80001u,
                // binary16's directed-mode thresholds: 65504, 65536 (overflow), 2^-14 - 2^-25, 2^-14 (tiny)
                0x477FE000u, 0x477FE001u, 0x477FFFFFu, 0x47800000u, 0x387FE000u, 0x387FE001u, 0x387FFFFFu,
                0x38800000u, 0x7F7F0000u, 0x7F7F0001u, 0x7F7EFFFFu})
    v.push_back(f_of(s));
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

std::vector<float> random_bits(std::size_t n, u64 seed) {
  std::mt19937_64 g(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = f_of(static_cast<u32>(g()));
  return v;
}

/// Random floats with exponents uniform in [lo, hi] (a format's range and a bit beyond).
std::vector<float> random_range(std::size_t n, int lo, int hi, u64 seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> e(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = f_of(static_cast<u32>((g() & 0x807FFFFFu) | (static_cast<u32>(e(g) + 127) << 23)));
  return v;
}

std::vector<lf::policy> policies() {
  std::vector<lf::policy> ps(5);
  ps[1].results = lf::subnormal_results::flush_to_zero;
  ps[2].inputs = lf::subnormal_inputs::treat_as_zero;
  ps[3].overflow = lf::overflow_policy::saturate;
  ps[4].tininess = lf::tininess::before_rounding;
  ps[4].results = lf::subnormal_results::flush_to_zero;
  ps[4].overflow = lf::overflow_policy::saturate;
  return ps;
}

std::string describe(lf::array_dispatch d, lf::rounding m, int pol, const lf::format& f) {
  return std::string(lf::array_dispatch_name(d)) + " " + std::string(lf::rounding_name(m)) + " policy#" +
         std::to_string(pol) + " " + lf::format_name(f);
}

/// in -> out through the span API and through the scalar core; checks every element and the OR.
template <typename T, typename E>
void check_against_core(const std::vector<E>& in, lf::rounding m, const lf::policy& pol, u64 seed,
                        const std::string& what) {
  constexpr lf::format src = sizeof(E) == 4 ? lf::binary32 : lf::binary64;
  using U = std::conditional_t<sizeof(E) == 4, u32, u64>;
  std::vector<T> out(in.size());
  lf::stochastic_source source{seed};
  const lf::status got =
      m == lf::rounding::stochastic ? lf::convert(in, out, source, pol) : lf::convert(in, out, lf::env{m, pol});
  lf::status want{};
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    lf::status s{};
    const lf::env e{m, pol, source.at(0).bits(i)};
    const auto r = lf::convert(T::fmt, src, std::bit_cast<U>(in[i]), e, s);
    want |= s;
    if (r != out[i].bits() && mismatches++ < 5)
      FAIL_CHECK(what << ": element " << i << " input " << hex(std::bit_cast<U>(in[i])) << " gives "
                      << hex(out[i].bits()) << ", the core " << hex(r));
  }
  CHECK_MESSAGE(mismatches == 0, what << ": " << mismatches << " elements differ from the core");
  CHECK_MESSAGE(lf::to_bits(got) == lf::to_bits(want),
                what << ": flags " << hex(lf::to_bits(got)) << ", the OR of the core's " << hex(lf::to_bits(want)));
}

template <typename T>
void check_format_matrix() {
  constexpr lf::format F = T::fmt;
  std::vector<float> in = boundary_values<F>();
  const auto rnd = random_bits(n_matrix_random, 11);
  in.insert(in.end(), rnd.begin(), rnd.end());
  const auto ranged = random_range(n_matrix_random, F.emin() - F.precision - 2, F.emax() + 2, 12);
  in.insert(in.end(), ranged.begin(), ranged.end());
  const auto pols = policies();
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    for (lf::rounding m : lf::all_roundings)
      for (std::size_t p = 0; p < pols.size(); ++p) check_against_core<T>(in, m, pols[p], 99, describe(d, m, int(p), F));
  }
}

/// Blocks of ordinary values with one special value planted at `at`: the AVX-512 kernels test a
/// block's extremes first; every flag must still be exactly the OR.
template <typename T>
void check_planted() {
  constexpr lf::format F = T::fmt;
  const float specials[] = {f_of(0x387FEFFFu), f_of(0x477FEFFFu), f_of(0x00000001u), 0x1p-30f, -0x1p-20f, 0x1.8p-24f, 1e30f, -65520.0f, 70000.0f,
                            INFINITY, -INFINITY, f_of(0x7FC00123u), f_of(0x7F800001u), 0.0f, -0.0f,
                            f_of(0x7F7FFFFFu), f_of(0x387FF000u), f_of(0x007FC000u), f_of(0x007FBFFFu)};
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    for (bool inexact_background : {false, true}) {
      // Small integers are exact in every format tested (p >= 3 covers 1..7); 1 + 2^-20 is not.
      std::vector<float> in(2200);  // two 1024-blocks and a tail
      for (std::size_t i = 0; i < in.size(); ++i)
        in[i] = inexact_background && i % 97 == 5 ? 1.0f + 0x1p-20f : static_cast<float>(1 + i % 3);
      for (float s : specials)
        for (std::size_t at : {std::size_t{5}, std::size_t{1500}, std::size_t{2195}}) {
          std::vector<float> v = in;
          v[at] = s;
          for (lf::rounding m : {lf::rounding::nearest_even})
            check_against_core<T>(v, m, lf::policy{}, 5,
                                  describe(d, m, 0, F) + " planted " + hex(bits_of(s)) + " at " +
                                      std::to_string(at) + (inexact_background ? " (inexact background)" : ""));
        }
    }
  }
}

/// Two special values: the first (at 5, in the first 1024-block) raises flags that let the AVX-512
/// kernels drop accumulators from later blocks (scan_level in fast/array_kernels.hpp: after
/// inexact, no OR; after underflow too, no minimum; after overflow and invalid too, nothing); the
/// second (at 1500, in the second block) must still raise whatever flag it adds. Every mode the
/// F16C and bit-trick kernels take.
template <typename T>
void check_planted_pairs() {
  constexpr lf::format F = T::fmt;
  const float firsts[] = {1.0f + 0x1p-20f, 0x1p-30f, 70000.0f, 1e30f, f_of(0x7F800001u), 0x1p-140f};
  const float seconds[] = {f_of(0x387FEFFFu), f_of(0x00000001u), 0x1p-30f, -0x1p-20f, 0x1.8p-24f, 1e30f, -65520.0f,
                           70000.0f, f_of(0x7FC00123u), f_of(0x7F800001u), f_of(0x7F7FFFFFu), f_of(0x007FBFFFu),
                           1.0f + 0x1p-20f};
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    std::vector<float> in(2200);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(1 + i % 3);
    for (float s1 : firsts)
      for (float s3 : {0.0f, 0x1p-30f})  // with the second: also a tiny value, so that underflow is raised
        for (float s2 : seconds)
          for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::toward_zero, lf::rounding::upward,
                                 lf::rounding::downward, lf::rounding::nearest_away, lf::rounding::odd}) {
            std::vector<float> v = in;
            v[5] = s1;
            v[6] = s3;
            v[1500] = s2;
            check_against_core<T>(v, m, lf::policy{}, 5,
                                  describe(d, m, 0, F) + " planted " + hex(bits_of(s1)) + ", " + hex(bits_of(s3)) +
                                      " at 5, 6 and " + hex(bits_of(s2)) + " at 1500");
          }
  }
}

/// Each boundary value alone among 63 exact ones (1.0): the span's flags are that value's flags, so
/// every element's flags are checked, through the vector loops (64 elements: no scalar tail).
template <typename T>
void check_flags_one_by_one(lf::rounding m) {
  constexpr lf::format F = T::fmt;
  const auto values = boundary_values<F>();
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    std::vector<float> in(64, 1.0f);
    std::vector<T> out(64);
    std::size_t bad = 0;
    for (float v : values) {
      in[37] = v;
      const lf::status got = lf::convert(in, out, m);
      lf::status want{};
      const auto r = lf::convert(F, lf::binary32, bits_of(v), lf::env{m}, want);
      if ((lf::to_bits(got) != lf::to_bits(want) || out[37].bits() != r) && bad++ < 5)
        FAIL_CHECK(describe(d, m, 0, F) << " input " << hex(bits_of(v)) << ": flags " << hex(lf::to_bits(got))
                                        << ", the core's " << hex(lf::to_bits(want)));
    }
    CHECK_MESSAGE(bad == 0, describe(d, m, 0, F));
  }
}

}  // namespace

TEST_CASE("convert: each element's flags, one special value at a time, every path") {
  for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                         lf::rounding::upward, lf::rounding::downward, lf::rounding::odd}) {
    check_flags_one_by_one<lf::fp16>(m);
    check_flags_one_by_one<lf::bf16>(m);
    check_flags_one_by_one<lf::fp8_e4m3>(m);
  }
}

TEST_CASE("convert: every format x mode x policy x path equals the scalar core, flags ORed") {
  check_format_matrix<lf::fp16>();
  check_format_matrix<lf::bf16>();
  check_format_matrix<lf::tf32>();
  check_format_matrix<lf::fp8_e4m3>();
  check_format_matrix<lf::fp8_e5m2>();
}

TEST_CASE("convert: float -> fp32 and fp64 (the core's own loop) under FTZ/DAZ") {
  const auto in = boundary_values<lf::binary16>();
  for (const auto& p : policies()) {
    check_against_core<lf::fp32>(in, lf::rounding::nearest_even, p, 1, "fp32");
    check_against_core<lf::fp64>(in, lf::rounding::upward, p, 1, "fp64");
  }
}

TEST_CASE("convert: a special value planted in a block of ordinary ones still raises exactly its flags") {
  check_planted<lf::fp16>();
  check_planted<lf::bf16>();
  check_planted<lf::fp8_e4m3>();
}

TEST_CASE("convert: flags raised in one block do not hide those of a later block (two planted values)") {
  check_planted_pairs<lf::fp16>();
  check_planted_pairs<lf::bf16>();
}

TEST_CASE("convert: double input equals the scalar core, every format and mode") {
  std::mt19937_64 g(3);
  std::vector<double> in;
  for (float f : boundary_values<lf::binary16>()) in.push_back(f);
  for (std::size_t i = 0; i < n_matrix_random; ++i) in.push_back(std::bit_cast<double>(g()));
  for (std::size_t i = 0; i < n_matrix_random; ++i)
    in.push_back(std::ldexp(static_cast<double>(g() >> 11) * 0x1p-53, static_cast<int>(g() % 300) - 150));
  in.push_back(std::bit_cast<double>(0x7FF0000000000001ull));  // signaling NaN
  in.push_back(0x1.0000000000001p-14);                           // far below a float ulp: double rounding would lose it
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    for (lf::rounding m : lf::all_roundings)
      for (const auto& p : {lf::policy{}, policies()[4]}) {
        check_against_core<lf::fp16>(in, m, p, 4, describe(d, m, 0, lf::binary16) + " from double");
        check_against_core<lf::bf16>(in, m, p, 4, describe(d, m, 0, lf::bfloat16) + " from double");
        check_against_core<lf::fp8_e4m3>(in, m, p, 4, describe(d, m, 0, lf::float8_e4m3fn) + " from double");
        check_against_core<lf::fp32>(in, m, p, 4, describe(d, m, 0, lf::binary32) + " from double");
      }
  }
}

TEST_CASE("convert: every dispatch path gives the same bits and flags on a million random floats") {
  const auto ps = paths();
  MESSAGE("paths on this CPU: " << ps.size() << ", automatic = " << std::string(lf::array_dispatch_name(lf::array_dispatch_in_use())));
  const auto wide = random_bits(n_random, 21);
  const auto fp16_range = random_range(n_random, -14, 15, 22);  // plain blocks: only inexact
  for (const auto* data : {&wide, &fp16_range})
    for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::toward_zero, lf::rounding::stochastic}) {
      auto run = [&](auto tag, lf::array_dispatch d) {
        const dispatch_scope scope(d);
        std::vector<decltype(tag)> out(data->size());
        const lf::status st = m == lf::rounding::stochastic ? lf::convert(*data, out, lf::stochastic_source{8})
                                                            : lf::convert(*data, out, m);
        std::vector<u32> bits(out.size());
        for (std::size_t i = 0; i < out.size(); ++i) bits[i] = out[i].bits();
        return std::pair{bits, lf::to_bits(st)};
      };
      const auto ref16 = run(lf::fp16{}, lf::array_dispatch::portable);
      const auto refb = run(lf::bf16{}, lf::array_dispatch::portable);
      for (auto d : ps) {
        CHECK_MESSAGE((run(lf::fp16{}, d) == ref16), lf::array_dispatch_name(d) << " fp16 " << lf::rounding_name(m));
        CHECK_MESSAGE((run(lf::bf16{}, d) == refb), lf::array_dispatch_name(d) << " bf16 " << lf::rounding_name(m));
      }
    }
}

TEST_CASE("convert: the exact-rational oracle agrees, every deterministic mode and format (sample)") {
  const std::size_t n = 600;
  auto in = random_range(n, -30, 18, 31);
  const auto b = boundary_values<lf::float8_e4m3fn>();
  in.insert(in.end(), b.begin(), b.begin() + std::min<std::size_t>(b.size(), 600));
  auto one = [&](auto tag, const oracle::target& t) {
    using T = decltype(tag);
    for (lf::rounding m : lf::deterministic_roundings) {
      std::vector<T> out(in.size());
      const lf::status st = lf::convert(in, out, m);
      std::uint8_t want_flags = 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const oracle::result r = oracle::convert(t, oracle::binary32, bits_of(in[i]), oracle::mode_of(m));
        want_flags |= r.flags;
        if (std::isnan(in[i])) continue;  // NaN payload rules are checked against the core above
        CHECK_MESSAGE(static_cast<u64>(out[i].bits()) == r.bits,
                      lf::format_name(T::fmt) << " " << lf::rounding_name(m) << " input " << hex(bits_of(in[i])));
      }
      CHECK(lf::to_bits(st) == want_flags);
    }
  };
  one(lf::fp16{}, oracle::binary16);
  one(lf::bf16{}, oracle::bfloat16);
  one(lf::tf32{}, oracle::tf32);
  one(lf::fp8_e4m3{}, oracle::e4m3);
  one(lf::fp8_e5m2{}, oracle::e5m2);
}

#if defined(TEST_ARRAY_X86)
namespace {
bool cpu_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) && (c & bit_AVX) && (c & bit_OSXSAVE);
}
__attribute__((target("f16c,avx"))) u32 hw_f16(float x) {
  return static_cast<u32>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0));
}
__attribute__((target("f16c,avx"))) float hw_widen(u32 h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(h))));
}
}  // namespace

TEST_CASE("convert and quantize fp16 nearest even match the F16C hardware on a million values") {
  if (!cpu_f16c()) return;
  const auto in = random_range(n_random, -27, 17, 41);
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    std::vector<lf::fp16> out(in.size());
    (void)lf::convert(in, out);
    std::vector<float> q(in.size());
    (void)lf::quantize(in, q, lf::binary16);
    std::size_t bad = 0, badq = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      bad += out[i].bits() != hw_f16(in[i]);
      badq += bits_of(q[i]) != bits_of(hw_widen(hw_f16(in[i])));
    }
    CHECK_MESSAGE(bad == 0, lf::array_dispatch_name(d));
    CHECK_MESSAGE(badq == 0, lf::array_dispatch_name(d));
  }
}

TEST_CASE("the F16C kernels ignore and restore the caller's MXCSR (DAZ, FTZ, rounding control, flags)") {
  if (!cpu_f16c()) return;
  auto in = boundary_values<lf::binary16>();
  std::vector<lf::fp16> want(in.size()), got(in.size());
  std::vector<float> wback(in.size()), gback(in.size());
  lf::status want_st{}, want_w{};
  {
    const dispatch_scope scope(lf::array_dispatch::portable);
    want_st = lf::convert(in, want);
    want_w = lf::widen(want, wback);
  }
  const unsigned saved = _mm_getcsr();
  const unsigned odd = (saved & ~0x7FBFu) | 0x8040u /*FTZ, DAZ*/ | 0x6000u /*toward zero*/;  // flags cleared
  _mm_setcsr(odd);
  const lf::status got_st = lf::convert(in, got);
  const lf::status got_w = lf::widen(got, gback);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  CHECK(after == odd);
  CHECK(lf::to_bits(got_st) == lf::to_bits(want_st));
  CHECK(lf::to_bits(got_w) == lf::to_bits(want_w));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i)
    bad += (got[i].bits() != want[i].bits()) + (bits_of(gback[i]) != bits_of(wback[i]));
  CHECK(bad == 0);
}
#endif

namespace {
/// (-1)^s * (e == 0 ? f * 2^(emin - fb) : (2^fb + f) * 2^(e - bias - fb)), by std::ldexp, from
/// the format's field widths only; infinities and NaNs by the IEEE / OCP rules.
float value_from_fields(u64 bits, int w, int fb, bool nan_only) {
  const bool s = (bits >> (w + fb)) & 1;
  const u64 e = (bits >> fb) & ((u64{1} << w) - 1), f = bits & ((u64{1} << fb) - 1);
  const int bias = (1 << (w - 1)) - 1;
  const u64 emax_field = (u64{1} << w) - 1;
  double v;
  if (e == emax_field && !nan_only) v = f == 0 ? INFINITY : NAN;
  else if (e == emax_field && nan_only && f == (u64{1} << fb) - 1) v = NAN;
  else if (e == 0) v = std::ldexp(static_cast<double>(f), 1 - bias - fb);
  else v = std::ldexp(static_cast<double>(f + (u64{1} << fb)), static_cast<int>(e) - bias - fb);
  return static_cast<float>(s ? -v : v);
}

template <typename T>
void check_widen_all(int w, int fb, bool nan_only) {
  constexpr lf::format F = T::fmt;
  const u64 count = u64{1} << F.bits();
  std::vector<T> enc(count);
  for (u64 b = 0; b < count; ++b) enc[b] = T::from_bits(static_cast<typename T::storage_type>(b));
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    std::vector<float> wide(count);
    const lf::status st = lf::widen(enc, wide);
    bool any_snan = false;
    std::size_t bad = 0, bad_trip = 0;
    for (u64 b = 0; b < count; ++b) {
      const float want = value_from_fields(b, w, fb, nan_only);
      if (std::isnan(want)) {
        bad += !std::isnan(wide[b]) || std::signbit(wide[b]) != std::signbit(want) || !(bits_of(wide[b]) & 0x00400000u);
        any_snan = any_snan || lf::issignaling(enc[b]);
      } else {
        bad += bits_of(wide[b]) != bits_of(want);
      }
    }
    // the round trip is exact: converting back gives the same encodings, no flags (NaNs aside)
    std::vector<T> back(count);
    std::vector<float> finite;
    std::vector<T> finite_enc;
    for (u64 b = 0; b < count; ++b)
      if (!std::isnan(wide[b])) {
        finite.push_back(wide[b]);
        finite_enc.push_back(enc[b]);
      }
    back.resize(finite.size());
    const lf::status back_st = lf::convert(finite, back);
    for (std::size_t i = 0; i < finite.size(); ++i) bad_trip += back[i].bits() != finite_enc[i].bits();
    CHECK_MESSAGE(bad == 0, lf::format_name(F) << " " << lf::array_dispatch_name(d));
    CHECK_MESSAGE(bad_trip == 0, lf::format_name(F) << " " << lf::array_dispatch_name(d));
    CHECK(lf::to_bits(back_st) == 0);
    CHECK(lf::has(st, lf::status::invalid) == any_snan);
  }
}
}  // namespace

TEST_CASE("widen: every encoding of fp16, bf16, E4M3, E5M2 and a sample of tf32 is exact; round trip exact") {
  check_widen_all<lf::fp16>(5, 10, false);
  check_widen_all<lf::bf16>(8, 7, false);
  check_widen_all<lf::fp8_e4m3>(4, 3, true);
  check_widen_all<lf::fp8_e5m2>(5, 2, false);
  // tf32: 2^19 encodings, every 7th
  std::vector<lf::tf32> t;
  for (u32 b = 0; b < (1u << 19); b += 7) t.push_back(lf::tf32::from_bits(b));
  std::vector<float> wide(t.size());
  (void)lf::widen(t, wide);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const float want = value_from_fields(t[i].bits(), 8, 10, false);
    bad += std::isnan(want) ? !std::isnan(wide[i]) : bits_of(wide[i]) != bits_of(want);
  }
  CHECK(bad == 0);
  std::vector<double> wd(t.size());
  (void)lf::widen(t, wd);
  for (std::size_t i = 0; i < t.size(); ++i)
    if (!std::isnan(wide[i])) CHECK(wd[i] == static_cast<double>(wide[i]));
}

TEST_CASE("quantize equals widen(convert(x)) for every format and mode; custom and wide formats too") {
  auto in = random_range(n_other, -30, 18, 51);
  const auto b = boundary_values<lf::binary16>();
  in.insert(in.end(), b.begin(), b.end());
  lf::policy sat{};
  sat.overflow = lf::overflow_policy::saturate;
  auto one = [&](auto tag, lf::rounding m, const lf::policy& p) {
    using T = decltype(tag);
    std::vector<T> mid(in.size());
    std::vector<float> want(in.size()), got(in.size());
    lf::stochastic_source s1{3}, s2{3};
    const lf::status st1 = m == lf::rounding::stochastic ? lf::convert(in, mid, s1, p) : lf::convert(in, mid, lf::env{m, p});
    (void)lf::widen(mid, want);
    const lf::status st2 = m == lf::rounding::stochastic ? lf::quantize(in, got, T::fmt, s2, p)
                                                         : lf::quantize(in, got, T::fmt, lf::env{m, p});
    CHECK(lf::to_bits(st1) == lf::to_bits(st2));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) bad += bits_of(want[i]) != bits_of(got[i]);
    CHECK_MESSAGE(bad == 0, lf::format_name(T::fmt) << " " << lf::rounding_name(m));
  };
  for (lf::rounding m : lf::all_roundings)
    for (const auto& p : {lf::policy{}, sat}) {
      one(lf::fp16{}, m, p);
      one(lf::bf16{}, m, p);
      one(lf::tf32{}, m, p);
      one(lf::fp8_e4m3{}, m, p);
      one(lf::fp8_e5m2{}, m, p);
    }

  // A custom format (the core's loop) and binary32 itself under FTZ: element by element with the core.
  for (const lf::format f : {lf::format{3, 3}, lf::format{6, 5, lf::nonfinite::nan_only}, lf::binary32}) {
    lf::policy ftz{};
    ftz.results = lf::subnormal_results::flush_to_zero;
    std::vector<float> got(in.size());
    const lf::status st = lf::quantize(in, got, f, lf::env{lf::rounding::upward, ftz});
    lf::status want{};
    std::size_t bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      lf::status s{}, ignored{};
      const auto r = lf::convert(f, lf::binary32, bits_of(in[i]), lf::env{lf::rounding::upward, ftz}, s);
      want |= s;
      bad += static_cast<u32>(lf::convert(lf::binary32, f, r, lf::env{}, ignored)) != bits_of(got[i]);
    }
    CHECK_MESSAGE(bad == 0, lf::format_name(f));
    CHECK(lf::to_bits(st) == lf::to_bits(want));
  }

  // In place, and on doubles.
  std::vector<float> v = in, w(in.size());
  (void)lf::quantize(v, v, lf::bfloat16, lf::rounding::toward_zero);
  (void)lf::quantize(in, w, lf::bfloat16, lf::rounding::toward_zero);
  CHECK(std::equal(v.begin(), v.end(), w.begin(), [](float a, float c) { return bits_of(a) == bits_of(c); }));
  std::vector<double> dv(in.begin(), in.end()), dq(in.size());
  (void)lf::quantize(dv, dq, lf::binary32, lf::rounding::nearest_even);
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!std::isnan(in[i])) CHECK(dq[i] == static_cast<double>(in[i]));  // floats are on binary32's grid
}

TEST_CASE("quantize: documented out-of-range, subnormal and NaN results") {
  // Expected values derived by hand: E4M3 max 1.75 * 2^8 = 448, binary16 max (2 - 2^-10) * 2^15 = 65504,
  // binary16 min subnormal 2^-24.
  const std::vector<float> in{1000.0f, -1000.0f, 1e6f, 0x1.8p-25f, 0x1p-26f, NAN, INFINITY};
  std::vector<float> out(in.size());
  lf::status st = lf::quantize(in, out, lf::float8_e4m3fn, lf::rounding::nearest_even);
  CHECK(std::isnan(out[0]));
  CHECK(std::isnan(out[1]));
  CHECK(std::signbit(out[1]));
  CHECK(lf::has(st, lf::status::overflow | lf::status::inexact));
  CHECK(lf::has(st, lf::status::invalid));  // infinity into E4M3
  lf::policy sat{};
  sat.overflow = lf::overflow_policy::saturate;
  st = lf::quantize(in, out, lf::float8_e4m3fn, lf::env{lf::rounding::nearest_even, sat});
  CHECK(out[0] == 448.0f);
  CHECK(out[1] == -448.0f);
  CHECK(out[6] == 448.0f);
  CHECK(!lf::has(st, lf::status::invalid));
  st = lf::quantize(in, out, lf::binary16, lf::rounding::toward_zero);
  CHECK(out[2] == 65504.0f);  // toward zero: max finite, not infinity
  CHECK(out[3] == 0.0f);      // 1.5 * 2^-25 = 0.75 of the smallest subnormal 2^-24, truncated
  CHECK(lf::has(st, lf::status::overflow | lf::status::underflow | lf::status::inexact));
  (void)lf::quantize(in, out, lf::binary16, lf::rounding::nearest_even);
  CHECK(std::isinf(out[2]));
  CHECK(out[3] == 0x1p-24f);  // 0.75 ulp rounds up to the smallest subnormal
  CHECK(out[4] == 0.0f);      // 2^-26 = 0.25 ulp rounds to zero
  lf::policy ftz{};
  ftz.results = lf::subnormal_results::flush_to_zero;
  (void)lf::quantize(in, out, lf::binary16, lf::env{lf::rounding::nearest_even, ftz});
  CHECK(out[3] == 0.0f);  // tiny: flushed
}

TEST_CASE("stochastic rounding: whole, in chunks, in reverse, on two threads: the same bits") {
  const auto in = random_range(5 * n_other, -20, 16, 61);
  auto whole = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> a(in.size());
    lf::stochastic_source s{2026};
    (void)lf::convert(in, a, s);
    CHECK(s.position == in.size());
    return a;
  };
  auto same = [](const auto& x, const auto& y) {
    return std::equal(x.begin(), x.end(), y.begin(), [](auto p, auto q) { return p.bits() == q.bits(); });
  };
  auto check = [&](auto tag) {
    using T = decltype(tag);
    const auto ref = whole(tag);
    const std::span<const float> ins(in);
    // consecutive chunks of odd sizes through one advancing source
    std::vector<T> chunks(in.size());
    lf::stochastic_source s{2026};
    std::size_t at = 0;
    for (std::size_t len : {1u, 7u, 1000u, 16u, 3333u}) {
      (void)lf::convert(ins.subspan(at, len), std::span<T>(chunks).subspan(at, len), s);
      at += len;
    }
    (void)lf::convert(ins.subspan(at), std::span<T>(chunks).subspan(at), s);
    CHECK(same(chunks, ref));
    // element by element, last to first, each from source.at(i)
    std::vector<T> rev(in.size());
    const lf::stochastic_source base{2026};
    for (std::size_t i = in.size(); i-- > 0;) (void)lf::convert(ins.subspan(i, 1), std::span<T>(rev).subspan(i, 1), base.at(i));
    CHECK(same(rev, ref));
    // two threads, each half from its own position
    std::vector<T> thr(in.size());
    const std::size_t h = in.size() / 2 + 3;
    std::thread t1([&] { (void)lf::convert(ins.first(h), std::span<T>(thr).first(h), base.at(0)); });
    std::thread t2([&] { (void)lf::convert(ins.subspan(h), std::span<T>(thr).subspan(h), base.at(h)); });
    t1.join();
    t2.join();
    CHECK(same(thr, ref));
    // a different seed changes the output
    std::vector<T> other(in.size());
    (void)lf::convert(in, other, lf::stochastic_source{2027});
    CHECK(!same(other, ref));
    // every path
    for (auto d : paths()) {
      const dispatch_scope scope(d);
      CHECK(same(whole(tag), ref));
    }
  };
  check(lf::fp16{});
  check(lf::bf16{});
  check(lf::fp8_e5m2{});
}

TEST_CASE("stochastic rounding: indices across a multiple of 2^32 use bits(index) (the kernels split there)") {
  const auto in = random_range(64, -10, 10, 71);
  for (auto d : paths()) {
    const dispatch_scope scope(d);
    check_against_core<lf::fp16>(in, lf::rounding::stochastic, lf::policy{}, 5, "2^32 boundary");  // base case
    lf::stochastic_source s = lf::stochastic_source{5}.at((u64{1} << 32) - 20);
    std::vector<lf::fp16> out(in.size());
    (void)lf::convert(in, out, s);
    for (std::size_t i = 0; i < in.size(); ++i) {
      lf::status st{};
      const auto r = lf::convert(lf::binary16, lf::binary32, bits_of(in[i]),
                                 lf::env{lf::rounding::stochastic, {}, s.at(0).bits((u64{1} << 32) - 20 + i)}, st);
      CHECK(out[i].bits() == r);
    }
  }
}

TEST_CASE("stochastic rounding: P(up) is the discarded fraction (1 + 2^-12 to fp16: a quarter ulp)") {
  // 1 + 2^-12 lies a quarter of the way from 1 to 1 + 2^-10 (fp16's ulp at 1). With n = 2^18
  // roundings the count of ups has standard deviation sqrt(n * 3/16) ~ 222; allow 6 of them.
  const std::size_t n = std::size_t{1} << 18;
  const std::vector<float> in(n, 1.0f + 0x1p-12f);
  std::vector<lf::fp16> out(n);
  (void)lf::convert(in, out, lf::stochastic_source{1});
  std::size_t up = 0;
  for (auto x : out) up += x.bits() == 0x3C01;  // 0.01111.0000000001 = 1 + 2^-10
  const double expected = n / 4.0;
  CHECK(std::fabs(static_cast<double>(up) - expected) < 6 * std::sqrt(n * 3.0 / 16));
}

TEST_CASE("errors: mismatched sizes, stochastic without a source, a format the element type cannot hold") {
  std::vector<float> in(10), out(9);
  std::vector<lf::fp16> h(9);
  CHECK_THROWS_AS((void)lf::convert(in, h), std::invalid_argument);
  CHECK_THROWS_WITH((void)lf::convert(in, h), doctest::Contains("10 elements and the output span 9"));
  CHECK_THROWS_AS((void)lf::widen(h, in), std::invalid_argument);
  CHECK_THROWS_AS((void)lf::quantize(in, out, lf::binary16), std::invalid_argument);
  std::vector<lf::fp16> h10(10);
  CHECK_THROWS_WITH((void)lf::convert(in, h10, lf::rounding::stochastic), doctest::Contains("stochastic_source"));
  std::vector<float> out10(10);
  CHECK_THROWS_WITH((void)lf::quantize(in, out10, lf::binary64), doctest::Contains("fp64"));
  CHECK_THROWS_AS((void)lf::quantize(in, out10, lf::format{9, 5}), std::invalid_argument);  // emax 255 > 127
  CHECK_NOTHROW((void)lf::quantize(in, out10, lf::format{8, 23}));                        // all its values are floats
}
