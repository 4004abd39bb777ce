// bench/bench_peers.cpp: libfloat beside Berkeley SoftFloat 3e and CPFloat, in one process on the
// same data (docs/performance.md, "Side by side with SoftFloat and CPFloat"; bench/run_peers.sh runs
// it and bench/ratios.py --peers prints the ratios). Built only when the peers' sources are present
// (bench/peers.cmake); their code is compiled in the build directory and linked here.
//
// Scalar operations, N = 65536 independent operand sets per iteration (LIBFLOAT_PEERS_SETS=<n>
// sets another count), items = operations. Not fewer: a branch predictor can learn a short set that
// repeats. With 4096 sets (the count until 2026-12-07), the AMD EPYC (Zen 5) of docs/performance.md
// predicted SoftFloat's data-dependent branches (the signs, the exponent difference) nearly
// perfectly: f16_add ran at 185-207 Mop/s there and at 43-53 Mop/s on 65536 sets, while libfloat's
// fast paths, which have no such branches, ran at the same speed on both. A simulator's stream of
// operations does not repeat like that. 3 x 65536 binary16 operands take 384 KiB.
//   peers/<fmt>/<op>/<mode>/libfloat     lf::add(a, b, mode, &st) etc.: typed free functions with
//                                        flags ORed into st
//   peers/<fmt>/<op>/<mode>/softfloat    f16_add etc. with softfloat_roundingMode = mode, flags
//                                        collected in softfloat_exceptionFlags
//   peers/<fmt>/<op>/<mode>/cpfloat      (fp16 add/mul/div only) cpf_addf etc. on the operands
//                                        widened to float: whole arrays, no flags; for information
//   peers/<fmt>/<op>/<mode>/libfloat_span[_avx2]
//                                        lf::add(a, b, out, mode) etc. on the N
//                                        operand sets at once (core/array_arith.hpp), flags returned,
//                                        the mode read once per call; _avx2 with lf::set_array_dispatch(avx2)
//                                        (what an AVX2-only CPU runs); checked against the scalar loop
//                                        element by element before timing
// The mode is chosen at run time, as a simulator does: libfloat reads it from a volatile variable
// on every call (a simulator's rounding-mode register), SoftFloat from its global on every call.
// Before timing, each SoftFloat benchmark compares SoftFloat's result and flags with libfloat's on
// every operand set and reports an error instead of a figure if any differ.
//
// Conversions of 16M floats (64 MiB, beyond the caches), items = elements:
//   peers/cvt/<fmt>/<mode>/libfloat          lf::convert(in, span<fp16 or bf16>, env{mode}) with flags
//                                            (stochastic: lf::stochastic_source)
//   peers/cvt/<fmt>/<mode>/libfloat_quantize lf::quantize(in, span<float>, format, ...): float out,
//                                            as CPFloat writes
//   peers/cvt/<fmt>/<mode>/libfloat_avx2, .../libfloat_quantize_avx2
//                                            lf::convert / lf::quantize with lf::set_array_dispatch(avx2): what
//                                            an AVX2-only CPU runs
//   peers/cvt/<fmt>/<mode>/cpfloat           cpfloatf() (single-threaded: no OpenMP), float out
//   peers/cvt/<fmt>/nearest_even/softfloat   f32_to_f16 / f32_to_bf16 in a loop, mode and flags as above
//   peers/cvt/fp16/nearest_even/f16c         _mm256_cvtps_ph loop
//   peers/cvt/bf16/nearest_even/bittrick[_avx2]  (x + 0x7FFF + lsb) >> 16 with the NaN case,
//                                            vectorised for AVX-512 where present (or AVX2), and AVX2
// Every nearest-even conversion is compared, after timing, with libfloat's result on all 16M
// elements (CPFloat's floats with libfloat's values widened); a difference is reported as an error.
// Data: as bench_array: random signs, exponents uniform in [-26, 17] (subnormal and overflowing
// binary16 results included), random significands.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <libfloat/libfloat.hpp>

#include <cpuid.h>
#include <immintrin.h>

extern "C" {
#include "softfloat.h"

// bench/peers_cpfloat.c
void* bench_cpfloat_new(unsigned precision, int emin, int emax, int round);
void bench_cpfloat_free(void* o);
int bench_cpfloat_round(float* out, const float* in, std::size_t n, void* o);
int bench_cpfloat_binary(int op, float* out, const float* a, const float* b, std::size_t n, void* o);
}

namespace {

/// The scalar operand sets per iteration (the file comment: why not fewer), LIBFLOAT_PEERS_SETS or 65536.
std::size_t scalar_sets() {
  const char* v = std::getenv("LIBFLOAT_PEERS_SETS");
  if (v == nullptr || *v == '\0') return 65536;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0' || n < 1 || n > (1u << 24) || v[0] == '-') {
    std::fprintf(stderr, "bench_peers: LIBFLOAT_PEERS_SETS='%s': expected a whole number of operand sets from 1 to %u\n",
                 v, 1u << 24);
    std::exit(2);
  }
  return static_cast<std::size_t>(n);
}
const std::size_t N = scalar_sets();
constexpr std::size_t n_elements = std::size_t{1} << 24;  // 16M

// ---- rounding modes, as each library names them ------------------------------------------------

struct mode_info {
  lf::rounding lf;
  std::uint_fast8_t softfloat;
  int cpfloat;  // cpfloat_rounding_t
};

// CPFloat's cpfloat_rounding_t values (cpfloat_definitions.h is C-only, so not included here).
constexpr int cpf_nearest_away = -1, cpf_nearest_even = 1, cpf_upward = 2, cpf_downward = 3, cpf_toward_zero = 4,
              cpf_stochastic_proportional = 5;

constexpr mode_info modes[] = {
    {lf::rounding::nearest_even, softfloat_round_near_even, cpf_nearest_even},
    {lf::rounding::toward_zero, softfloat_round_minMag, cpf_toward_zero},
    {lf::rounding::upward, softfloat_round_max, cpf_upward},
    {lf::rounding::downward, softfloat_round_min, cpf_downward},
    {lf::rounding::nearest_away, softfloat_round_near_maxMag, cpf_nearest_away},
};

/// The simulator's rounding-mode register: read on every libfloat call, so the compiler can neither
/// fold the mode into the code nor hoist its dispatch out of the loop.
volatile lf::rounding g_mode = lf::rounding::nearest_even;

// ---- operands ----------------------------------------------------------------------------------

/// Random finite encodings of f: sign and fraction uniform, unbiased exponent uniform in [-8, 7]
/// (bench_scalar's default data set: every format's normal range).
std::vector<std::uint32_t> operand_bits(const lf::format& f, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> exp(-8, 7);
  std::vector<std::uint32_t> v(N);
  for (auto& x : v) {
    const std::uint64_t sign = g() & 1 ? f.sign_mask() : 0;
    const auto biased = static_cast<std::uint64_t>(exp(g) + f.bias());
    x = static_cast<std::uint32_t>(sign | (biased << f.fraction_bits()) | (g() & f.fraction_mask()));
  }
  return v;
}

enum class op { add, mul, div, fma };

template <lf::format F>
using storage = typename lf::fp<F>::storage_type;

template <lf::format F, op O>
[[gnu::always_inline]] inline lf::fp<F> lf_op(lf::fp<F> a, lf::fp<F> b, lf::fp<F> c, lf::rounding m, lf::status* st) {
  if constexpr (O == op::add) return lf::add(a, b, m, st);
  else if constexpr (O == op::mul) return lf::mul(a, b, m, st);
  else if constexpr (O == op::div) return lf::div(a, b, m, st);
  else return lf::fma(a, b, c, m, st);
}

template <lf::format F, op O>
std::uint32_t sf_op(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  if constexpr (F == lf::binary16) {
    const auto h = [](std::uint32_t v) { return float16_t{static_cast<std::uint16_t>(v)}; };
    const float16_t x = h(a), y = h(b), z = h(c);
    if constexpr (O == op::add) return f16_add(x, y).v;
    else if constexpr (O == op::mul) return f16_mul(x, y).v;
    else if constexpr (O == op::div) return f16_div(x, y).v;
    else return f16_mulAdd(x, y, z).v;
  } else {
    static_assert(F == lf::binary32 && O == op::mul, "only fp32 mul is measured");
    return f32_mul(float32_t{a}, float32_t{b}).v;
  }
}

template <lf::format F>
struct operand_set {
  std::vector<std::uint32_t> a = operand_bits(F, 1), b = operand_bits(F, 2), c = operand_bits(F, 3);
  std::vector<lf::fp<F>> fa = typed(a), fb = typed(b), fc = typed(c);
  static std::vector<lf::fp<F>> typed(const std::vector<std::uint32_t>& v) {
    std::vector<lf::fp<F>> r;
    for (auto x : v) r.push_back(lf::fp<F>::from_bits(static_cast<storage<F>>(x)));
    return r;
  }
};

template <lf::format F>
const operand_set<F>& operands() {
  static const operand_set<F> s;
  return s;
}

template <lf::format F, op O>
void bm_libfloat(benchmark::State& s, mode_info m) {
  const auto& d = operands<F>();
  std::vector<lf::fp<F>> out(N);
  lf::status st{};
  g_mode = m.lf;
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) out[i] = lf_op<F, O>(d.fa[i], d.fb[i], d.fc[i], g_mode, &st);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(st);
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

/// lf::add / mul / div on the whole operand spans, the mode read from the simulator's register once
/// per call. Before timing, every element and the flags are compared with the scalar loop's.
template <lf::format F, op O>
void bm_libfloat_span(benchmark::State& s, mode_info m, lf::array_dispatch path) {
  const auto& d = operands<F>();
  std::vector<lf::fp<F>> out(N);
  const auto previous = lf::set_array_dispatch(path);
  s.SetLabel(lf::array_dispatch_name(lf::array_dispatch_in_use()));
  g_mode = m.lf;
  const auto run = [&](lf::rounding r) {
    if constexpr (O == op::add) return lf::add(d.fa, d.fb, out, r);
    else if constexpr (O == op::mul) return lf::mul(d.fa, d.fb, out, r);
    else if constexpr (O == op::div) return lf::div(d.fa, d.fb, out, r);
    else return lf::fma(d.fa, d.fb, d.fc, out, r);
  };
  lf::status want{};
  std::size_t bad = 0;
  const lf::status got = run(m.lf);
  for (std::size_t i = 0; i < N; ++i)
    bad += lf_op<F, O>(d.fa[i], d.fb[i], d.fc[i], m.lf, &want).bits() != out[i].bits();
  if (bad != 0 || got != want) {
    lf::set_array_dispatch(previous);
    s.SkipWithError(("span operation differs from the scalar loop: " + std::to_string(bad) + " elements, flags " +
                     std::to_string(lf::to_bits(got)) + " vs " + std::to_string(lf::to_bits(want)))
                        .c_str());
    return;
  }
  lf::status st{};
  for (auto _ : s) {
    st |= run(g_mode);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(st);
  lf::set_array_dispatch(previous);
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

/// Every operand set through both libraries, one at a time: results and flags must agree.
template <lf::format F, op O>
std::string compare_with_libfloat(const mode_info& m) {
  const auto& d = operands<F>();
  std::size_t bad = 0;
  std::string first;
  softfloat_roundingMode = m.softfloat;
  for (std::size_t i = 0; i < N; ++i) {
    lf::status st{};
    const auto want = lf_op<F, O>(d.fa[i], d.fb[i], d.fc[i], m.lf, &st).bits();
    softfloat_exceptionFlags = 0;
    const auto got = sf_op<F, O>(d.a[i], d.b[i], d.c[i]);
    if (got != want || softfloat_exceptionFlags != lf::to_bits(st)) {
      if (bad++ == 0)
        first = "operands " + std::to_string(d.a[i]) + ", " + std::to_string(d.b[i]) + ", " + std::to_string(d.c[i]) +
                ": libfloat " + std::to_string(want) + " flags " + std::to_string(lf::to_bits(st)) + ", SoftFloat " +
                std::to_string(got) + " flags " + std::to_string(softfloat_exceptionFlags);
    }
  }
  softfloat_exceptionFlags = 0;
  return bad == 0 ? std::string() : std::to_string(bad) + " of " + std::to_string(N) + " differ; first: " + first;
}

template <lf::format F, op O>
void bm_softfloat(benchmark::State& s, mode_info m) {
  if (const auto diff = compare_with_libfloat<F, O>(m); !diff.empty()) {
    s.SkipWithError(("SoftFloat and libfloat disagree: " + diff).c_str());
    return;
  }
  const auto& d = operands<F>();
  std::vector<std::uint32_t> out(N);
  softfloat_roundingMode = m.softfloat;
  softfloat_exceptionFlags = 0;
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) out[i] = sf_op<F, O>(d.a[i], d.b[i], d.c[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(softfloat_exceptionFlags);
  softfloat_roundingMode = softfloat_round_near_even;
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

/// CPFloat's array arithmetic on the binary16 operands widened to float (binary16 options).
void bm_cpfloat_binary(benchmark::State& s, op o, mode_info m) {
  const auto& d = operands<lf::binary16>();
  std::vector<float> a, b, out(N);
  for (std::size_t i = 0; i < N; ++i) {
    a.push_back(static_cast<float>(d.fa[i]));
    b.push_back(static_cast<float>(d.fb[i]));
  }
  void* opts = bench_cpfloat_new(11, -14, 15, m.cpfloat);
  const int code = o == op::add ? 0 : o == op::mul ? 1 : 2;
  if (opts == nullptr || bench_cpfloat_binary(code, out.data(), a.data(), b.data(), N, opts) > 0) {
    s.SkipWithError("CPFloat rejected the options");
    bench_cpfloat_free(opts);
    return;
  }
  for (auto _ : s) {
    benchmark::DoNotOptimize(bench_cpfloat_binary(code, out.data(), a.data(), b.data(), N, opts));
    benchmark::ClobberMemory();
  }
  bench_cpfloat_free(opts);
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

// ---- conversions of 16M floats -----------------------------------------------------------------

const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    std::mt19937_64 g(20261130);
    std::uniform_int_distribution<int> e(-26, 17);
    std::vector<float> x(n_elements);
    for (auto& f : x) {
      const std::uint64_t r = g();
      f = std::bit_cast<float>(
          static_cast<std::uint32_t>((r & 0x807FFFFFu) | (static_cast<std::uint32_t>(e(g) + 127) << 23)));
    }
    return x;
  }();
  return v;
}

enum class target { fp16, bf16 };

/// libfloat's nearest-even result, the reference every other nearest-even conversion is compared with.
const std::vector<std::uint16_t>& reference(target t) {
  static const auto make = [](target which) {
    std::vector<std::uint16_t> r(n_elements);
    if (which == target::fp16) {
      std::vector<lf::fp16> o(n_elements);
      (void)lf::convert(input(), o);
      for (std::size_t i = 0; i < n_elements; ++i) r[i] = o[i].bits();
    } else {
      std::vector<lf::bf16> o(n_elements);
      (void)lf::convert(input(), o);
      for (std::size_t i = 0; i < n_elements; ++i) r[i] = o[i].bits();
    }
    return r;
  };
  static const std::vector<std::uint16_t> fp16 = make(target::fp16), bf16 = make(target::bf16);
  return t == target::fp16 ? fp16 : bf16;
}

void finish(benchmark::State& s) {
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()) * static_cast<std::int64_t>(n_elements));
}

/// Report a difference from libfloat's nearest-even result as an error. `bits_of(i)` is the
/// encoding the peer produced for element i.
template <typename Fn>
void check_nearest_even(benchmark::State& s, target t, Fn bits_of) {
  const auto& ref = reference(t);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n_elements; ++i)
    if (bits_of(i) != ref[i] && bad++ == 0) first = i;
  if (bad != 0)
    s.SkipWithError((std::to_string(bad) + " results differ from libfloat's; first at input bits " +
                     std::to_string(std::bit_cast<std::uint32_t>(input()[first])) + ": " +
                     std::to_string(bits_of(first)) + " vs " + std::to_string(ref[first]))
                        .c_str());
}

template <typename T>
void bm_lf_convert(benchmark::State& s, lf::rounding mode, lf::array_dispatch path) {
  const auto& in = input();
  std::vector<T> out(n_elements);
  const auto previous = lf::set_array_dispatch(path);
  s.SetLabel(lf::array_dispatch_name(lf::array_dispatch_in_use()));
  lf::stochastic_source src{42};
  for (auto _ : s) {
    const lf::status st =
        mode == lf::rounding::stochastic ? lf::convert(in, out, src) : lf::convert(in, out, lf::env{mode});
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  lf::set_array_dispatch(previous);
  finish(s);
}

void bm_lf_quantize(benchmark::State& s, target t, lf::rounding mode, lf::array_dispatch path) {
  const auto& in = input();
  std::vector<float> out(n_elements);
  const lf::format& f = t == target::fp16 ? lf::binary16 : lf::bfloat16;
  const auto previous = lf::set_array_dispatch(path);
  s.SetLabel(lf::array_dispatch_name(lf::array_dispatch_in_use()));
  lf::stochastic_source src{42};
  for (auto _ : s) {
    const lf::status st =
        mode == lf::rounding::stochastic ? lf::quantize(in, out, f, src) : lf::quantize(in, out, f, lf::env{mode});
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  lf::set_array_dispatch(previous);
  finish(s);
}

void bm_cpfloat_convert(benchmark::State& s, target t, int cpf_round) {
  const auto& in = input();
  std::vector<float> out(n_elements);
  void* opts =
      t == target::fp16 ? bench_cpfloat_new(11, -14, 15, cpf_round) : bench_cpfloat_new(8, -126, 127, cpf_round);
  if (opts == nullptr || bench_cpfloat_round(out.data(), in.data(), 16, opts) > 0) {
    s.SkipWithError("CPFloat rejected the options");
    bench_cpfloat_free(opts);
    return;
  }
  for (auto _ : s) {
    benchmark::DoNotOptimize(bench_cpfloat_round(out.data(), in.data(), n_elements, opts));
    benchmark::ClobberMemory();
  }
  bench_cpfloat_free(opts);
  finish(s);
  if (cpf_round == cpf_nearest_even) {
    // CPFloat's float against libfloat's encoding widened back to float (exact).
    const auto& ref = reference(t);
    check_nearest_even(s, t, [&](std::size_t i) -> std::uint16_t {
      const float want = t == target::fp16 ? static_cast<float>(lf::fp16::from_bits(ref[i]))
                                           : static_cast<float>(lf::bf16::from_bits(ref[i]));
      const bool same = std::bit_cast<std::uint32_t>(out[i]) == std::bit_cast<std::uint32_t>(want);
      return same ? ref[i] : static_cast<std::uint16_t>(~ref[i]);
    });
  }
}

void bm_softfloat_convert(benchmark::State& s, target t, mode_info m) {
  const auto& in = input();
  std::vector<std::uint16_t> out(n_elements);
  softfloat_roundingMode = m.softfloat;
  softfloat_exceptionFlags = 0;
  for (auto _ : s) {
    if (t == target::fp16) {
      for (std::size_t i = 0; i < n_elements; ++i)
        out[i] = f32_to_f16(float32_t{std::bit_cast<std::uint32_t>(in[i])}).v;
    } else {
      for (std::size_t i = 0; i < n_elements; ++i)
        out[i] = f32_to_bf16(float32_t{std::bit_cast<std::uint32_t>(in[i])}).v;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(softfloat_exceptionFlags);
  softfloat_roundingMode = softfloat_round_near_even;
  finish(s);
  if (m.lf == lf::rounding::nearest_even) check_nearest_even(s, t, [&](std::size_t i) { return out[i]; });
}

// ---- hardware baselines ------------------------------------------------------------------------

/// F16C + AVX2 (zmm = false) or + AVX-512 F/BW/VL (zmm = true), with the OS saving the registers.
bool cpu_has(bool zmm) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_F16C) || !(c & bit_AVX)) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const unsigned state = zmm ? 0xE6u : 0x6u;  // XMM, YMM (+ opmask, ZMM)
  if ((lo & state) != state || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const unsigned need = zmm ? bit_AVX2 | bit_AVX512F | bit_AVX512BW | bit_AVX512VL : bit_AVX2;
  return (b & need) == need;
}

__attribute__((target("avx2,f16c"), noinline)) void f16c_loop(const float* in, std::uint16_t* out, std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// bfloat16 nearest even by integer rounding of the binary32 encoding: add 0x7FFF plus the lowest
// kept bit, keep the top half; a NaN keeps its top half with the quiet bit set instead (the add
// could carry it into an infinity). Written out here, so the baseline shares no code with libfloat.
#define BENCH_PEERS_BF16_TRICK                                                   \
  for (std::size_t i = 0; i < n; ++i) {                                          \
    std::uint32_t x;                                                             \
    std::memcpy(&x, in + i, 4);                                                  \
    const std::uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;        \
    const std::uint32_t quiet = (x >> 16) | 0x40u;                               \
    out[i] = static_cast<std::uint16_t>((x & 0x7FFFFFFFu) > 0x7F800000u ? quiet : rounded); \
  }
__attribute__((target("avx512f,avx512bw,avx512vl"), noinline)) void bf16_trick_avx512(const float* in,
                                                                                      std::uint16_t* out,
                                                                                      std::size_t n) {
  BENCH_PEERS_BF16_TRICK
}
__attribute__((target("avx2"), noinline)) void bf16_trick_avx2(const float* in, std::uint16_t* out, std::size_t n) {
  BENCH_PEERS_BF16_TRICK
}
#undef BENCH_PEERS_BF16_TRICK

void bm_hw(benchmark::State& s, target t, void (*kernel)(const float*, std::uint16_t*, std::size_t), bool available) {
  if (!available) {
    s.SkipWithError("the CPU lacks the instructions");
    return;
  }
  const auto& in = input();
  std::vector<std::uint16_t> out(n_elements);
  for (auto _ : s) {
    kernel(in.data(), out.data(), n_elements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(s);
  check_nearest_even(s, t, [&](std::size_t i) { return out[i]; });
}

// ---- registration ------------------------------------------------------------------------------

std::string mode_name(lf::rounding r) { return std::string(lf::rounding_name(r)); }

template <lf::format F, op O>
void register_op(const std::string& fmt, const std::string& name) {
  for (const auto& m : modes) {
    const std::string base = "peers/" + fmt + "/" + name + "/" + mode_name(m.lf) + "/";
    benchmark::RegisterBenchmark((base + "libfloat").c_str(), bm_libfloat<F, O>, m);
    benchmark::RegisterBenchmark((base + "softfloat").c_str(), bm_softfloat<F, O>, m);
    if constexpr (F == lf::binary16 && O != op::fma)
      benchmark::RegisterBenchmark((base + "cpfloat").c_str(), bm_cpfloat_binary, O, m);
    benchmark::RegisterBenchmark((base + "libfloat_span").c_str(), bm_libfloat_span<F, O>, m,
                                 lf::array_dispatch::automatic);
    if (lf::detail::is_avx512(lf::array_dispatch_in_use()))
      benchmark::RegisterBenchmark((base + "libfloat_span_avx2").c_str(), bm_libfloat_span<F, O>, m,
                                   lf::array_dispatch::avx2);
  }
}

template <typename... A>
void reg_cvt(const std::string& name, A&&... a) {
  benchmark::RegisterBenchmark(("peers/cvt/" + name).c_str(), std::forward<A>(a)...)->Unit(benchmark::kMillisecond);
}

void register_conversions() {
  const bool avx2 = cpu_has(false), avx512 = cpu_has(true);
  const mode_info& ne = modes[0];
  for (target t : {target::fp16, target::bf16}) {
    const std::string fmt = t == target::fp16 ? "fp16" : "bf16";
    for (lf::rounding r : {lf::rounding::nearest_even, lf::rounding::stochastic}) {
      const std::string base = fmt + "/" + mode_name(r) + "/";
      if (t == target::fp16) reg_cvt(base + "libfloat", bm_lf_convert<lf::fp16>, r, lf::array_dispatch::automatic);
      else reg_cvt(base + "libfloat", bm_lf_convert<lf::bf16>, r, lf::array_dispatch::automatic);
      reg_cvt(base + "libfloat_quantize", bm_lf_quantize, t, r, lf::array_dispatch::automatic);
      reg_cvt(base + "cpfloat", bm_cpfloat_convert, t,
              r == lf::rounding::stochastic ? cpf_stochastic_proportional : cpf_nearest_even);
      if (avx2 && avx512) {  // what an AVX2-only CPU runs, measured on this one (on an AVX2-only CPU: the rows above)
        if (t == target::fp16) reg_cvt(base + "libfloat_avx2", bm_lf_convert<lf::fp16>, r, lf::array_dispatch::avx2);
        else reg_cvt(base + "libfloat_avx2", bm_lf_convert<lf::bf16>, r, lf::array_dispatch::avx2);
        reg_cvt(base + "libfloat_quantize_avx2", bm_lf_quantize, t, r, lf::array_dispatch::avx2);
      }
    }
    const std::string base = fmt + "/nearest_even/";
    if (avx2 && !avx512) {  // (the same path as libfloat: for the bit-trick ratio below)
      if (t == target::fp16) reg_cvt(base + "libfloat_avx2", bm_lf_convert<lf::fp16>, ne.lf, lf::array_dispatch::avx2);
      else reg_cvt(base + "libfloat_avx2", bm_lf_convert<lf::bf16>, ne.lf, lf::array_dispatch::avx2);
    }
    reg_cvt(base + "softfloat", bm_softfloat_convert, t, ne);
  }
  reg_cvt("fp16/nearest_even/f16c", bm_hw, target::fp16, f16c_loop, avx2);
  reg_cvt("bf16/nearest_even/bittrick", bm_hw, target::bf16, avx512 ? bf16_trick_avx512 : bf16_trick_avx2, avx2);
  reg_cvt("bf16/nearest_even/bittrick_avx2", bm_hw, target::bf16, bf16_trick_avx2, avx2);
}

}  // namespace

int main(int argc, char** argv) {
  register_op<lf::binary16, op::add>("fp16", "add");
  register_op<lf::binary16, op::mul>("fp16", "mul");
  register_op<lf::binary16, op::div>("fp16", "div");
  register_op<lf::binary16, op::fma>("fp16", "fma");
  register_op<lf::binary32, op::mul>("fp32", "mul");
  register_conversions();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
