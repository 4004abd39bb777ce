// bench/bench_scalar.cpp: throughput of independent scalar operations, each beside its hardware
// baseline (docs/performance.md has the numbers and how to reproduce them; bench/run.sh runs it).
//
// Every benchmark processes N = 4096 independent operand pairs (or triples) per iteration and
// writes the results to an output array, so the figure is throughput, not latency. Google
// Benchmark reports items_per_second = operations per second.
//
// Names: <path>/<format>/<operation>[/<rounding>][/<data set>]
//   op/...        lf::fp<F> operators: nearest even, no flags
//   typed/...     typed free functions, lf::add(a, b, lf::rounding::X, &st): any mode, with flags
//   runtime/...   run-time format, lf::add(f, a, b, env, st), with f and env opaque to the optimiser
//                 (what the CLI does with --format e4m3)
//   cvt/...       conversion from float: lf::fp16(float), lf::from<F>(float, env, &st),
//                 lf::convert(f, binary32, bits, env, st)
//   hw/...        hardware baselines: float (+ std::fma, and __builtin_fmaf with target("fma")),
//                 GCC _Float16 (portable = no -march flags, and with target("f16c,avx2")),
//                 F16C vcvtps2ph, AVX512-BF16 vcvtneps2bf16; skipped on CPUs without them
//   f16c-build/...  only in bench_scalar_f16c, this file built with -mf16c (see register_all)
// Data sets: "" = random values with exponents uniform in [-8, 7] (every format's normal range)
// and random significands; "wide" = random finite encodings of the whole format (subnormals,
// overflow, large alignment shifts), or for conversions floats with exponents in [-26, 16];
// "any" = random bit patterns (fp16 add only: 1 in 16 pairs has a NaN or infinite operand).
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include <libfloat/core/fp.hpp>

// LIBFLOAT_BENCH_NO_X86 compiles the non-x86 build on x86, to check that it still compiles.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(LIBFLOAT_BENCH_NO_X86)
#include <cpuid.h>
#include <immintrin.h>
#define LIBFLOAT_BENCH_X86 1
#endif

namespace {

using bench_data::N;

#if defined(LIBFLOAT_BENCH_X86)
/// F16C and AVX2 present and enabled by the OS (the kernels below are compiled for both).
/// cpuid rather than __builtin_cpu_supports("f16c"), which Clang 14 does not know.
bool cpu_has_f16c_avx2() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & bit_F16C) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6u) != 6u) return false;  // XMM and YMM state saved by the OS
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b & bit_AVX2) != 0;
}
#endif

// ---- operand generation ---------------------------------------------------------------------

/// Random finite encodings of f: sign and fraction uniform, unbiased exponent uniform in [lo, hi].
std::vector<std::uint64_t> random_normal_bits(const lf::format& f, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> exp(lo, hi);
  std::vector<std::uint64_t> v(N);
  for (auto& x : v) {
    const std::uint64_t sign = g() & 1 ? f.sign_mask() : 0;
    const auto biased = static_cast<std::uint64_t>(exp(g) + f.bias());
    x = sign | (biased << f.fraction_bits()) | (g() & f.fraction_mask());
  }
  return v;
}

using bench_data::random_finite_bits;

enum class data { normal, wide, any };

template <lf::format F>
std::vector<lf::fp<F>> operands(data d, std::uint64_t seed) {
  const auto bits = d == data::normal ? random_normal_bits(F, -8, 7, seed)
                    : d == data::wide   ? random_finite_bits(F, seed)
                                        : bench_data::random_bits(F, seed);
  std::vector<lf::fp<F>> v;
  v.reserve(N);
  for (auto b : bits) v.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(b)));
  return v;
}

template <lf::format F>
std::vector<typename lf::fp<F>::storage_type> operand_bits(data d, std::uint64_t seed) {
  std::vector<typename lf::fp<F>::storage_type> v;
  for (auto x : operands<F>(d, seed)) v.push_back(x.bits());
  return v;
}

std::vector<float> floats(data d, std::uint64_t seed) {
  const auto bits = d == data::normal ? random_normal_bits(lf::binary32, -8, 7, seed)
                                      : random_normal_bits(lf::binary32, -26, 16, seed);
  std::vector<float> v;
  for (auto b : bits) v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
  return v;
}

// ---- the measuring loops ------------------------------------------------------------------

template <typename A, typename R, typename Fn>
void loop1(benchmark::State& s, const std::vector<A>& a, std::vector<R>& out, Fn fn) {
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) out[i] = fn(a[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

template <typename A, typename R, typename Fn>
void loop2(benchmark::State& s, const std::vector<A>& a, const std::vector<A>& b, std::vector<R>& out, Fn fn) {
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) out[i] = fn(a[i], b[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

template <typename A, typename R, typename Fn>
void loop3(benchmark::State& s, const std::vector<A>& a, const std::vector<A>& b, const std::vector<A>& c,
           std::vector<R>& out, Fn fn) {
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) out[i] = fn(a[i], b[i], c[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

/// Array kernels for the baselines that need their own target attributes: whole-array functions,
/// so that the attribute covers the loop the compiler generates.
using kernel2 = void (*)(const void*, const void*, void*, std::size_t);
using kernel3 = void (*)(const void*, const void*, const void*, void*, std::size_t);

template <typename A, typename R>
void run_kernel2(benchmark::State& s, const std::vector<A>& a, const std::vector<A>& b, std::vector<R>& out, kernel2 k) {
  for (auto _ : s) {
    k(a.data(), b.data(), out.data(), N);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

template <typename A, typename R>
void run_kernel3(benchmark::State& s, const std::vector<A>& a, const std::vector<A>& b, const std::vector<A>& c,
                 std::vector<R>& out, kernel3 k) {
  for (auto _ : s) {
    k(a.data(), b.data(), c.data(), out.data(), N);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

// ---- libfloat: typed operators (nearest even, no flags) -------------------------------------

enum class bop { add, mul };

template <lf::format F, bop O>
void bm_op(benchmark::State& s, data d) {
  const auto a = operands<F>(d, 1), b = operands<F>(d, 2);
  std::vector<lf::fp<F>> out(N);
  loop2(s, a, b, out, [](lf::fp<F> x, lf::fp<F> y) {
    if constexpr (O == bop::add) return x + y;
    else return x * y;
  });
}

// ---- libfloat: typed free functions (any mode, with flags) ----------------------------------

template <lf::format F, bop O, lf::rounding R>
void bm_typed(benchmark::State& s, data d) {
  const auto a = operands<F>(d, 1), b = operands<F>(d, 2);
  std::vector<lf::fp<F>> out(N);
  lf::status st{};
  loop2(s, a, b, out, [&st](lf::fp<F> x, lf::fp<F> y) {
    if constexpr (O == bop::add) return lf::add(x, y, R, &st);
    else return lf::mul(x, y, R, &st);
  });
  benchmark::DoNotOptimize(st);
}

template <lf::format F, lf::rounding R>
void bm_typed_fma(benchmark::State& s, data d) {
  const auto a = operands<F>(d, 1), b = operands<F>(d, 2), c = operands<F>(d, 3);
  std::vector<lf::fp<F>> out(N);
  lf::status st{};
  loop3(s, a, b, c, out, [&st](lf::fp<F> x, lf::fp<F> y, lf::fp<F> z) { return lf::fma(x, y, z, R, &st); });
  benchmark::DoNotOptimize(st);
}

// ---- libfloat: run-time format (format and env opaque to the optimiser) ---------------------

template <lf::format F, bop O>
void bm_runtime(benchmark::State& s, lf::rounding mode, data d) {
  using S = typename lf::fp<F>::storage_type;
  const auto a = operand_bits<F>(d, 1), b = operand_bits<F>(d, 2);
  std::vector<S> out(N);
  lf::format f = F;
  lf::env e{mode};
  benchmark::DoNotOptimize(f);
  benchmark::DoNotOptimize(e);
  lf::status st{};
  loop2(s, a, b, out, [&](S x, S y) {
    if constexpr (O == bop::add) return static_cast<S>(lf::add(f, x, y, e, st));
    else return static_cast<S>(lf::mul(f, x, y, e, st));
  });
  benchmark::DoNotOptimize(st);
}

template <lf::format F>
void bm_runtime_fma(benchmark::State& s, lf::rounding mode, data d) {
  using S = typename lf::fp<F>::storage_type;
  const auto a = operand_bits<F>(d, 1), b = operand_bits<F>(d, 2), c = operand_bits<F>(d, 3);
  std::vector<S> out(N);
  lf::format f = F;
  lf::env e{mode};
  benchmark::DoNotOptimize(f);
  benchmark::DoNotOptimize(e);
  lf::status st{};
  loop3(s, a, b, c, out, [&](S x, S y, S z) { return static_cast<S>(lf::fma(f, x, y, z, e, st)); });
  benchmark::DoNotOptimize(st);
}

// ---- libfloat: conversion from float ---------------------------------------------------------

template <lf::format F>
void bm_cvt_op(benchmark::State& s, data d) {
  const auto in = floats(d, 4);
  std::vector<lf::fp<F>> out(N);
  loop1(s, in, out, [](float x) { return lf::fp<F>(x); });
}

template <lf::format F, lf::rounding R>
void bm_cvt_from(benchmark::State& s, data d) {
  const auto in = floats(d, 4);
  std::vector<lf::fp<F>> out(N);
  lf::status st{};
  loop1(s, in, out, [&st](float x) { return lf::from<F>(x, lf::env{R}, &st); });
  benchmark::DoNotOptimize(st);
}

template <lf::format F>
void bm_cvt_runtime(benchmark::State& s, lf::rounding mode, data d) {
  using S = typename lf::fp<F>::storage_type;
  const auto in = floats(d, 4);
  std::vector<std::uint32_t> bits;
  for (float x : in) bits.push_back(std::bit_cast<std::uint32_t>(x));
  std::vector<S> out(N);
  lf::format to = F, from = lf::binary32;
  lf::env e{mode};
  benchmark::DoNotOptimize(to);
  benchmark::DoNotOptimize(from);
  benchmark::DoNotOptimize(e);
  lf::status st{};
  loop1(s, bits, out, [&](std::uint32_t x) { return static_cast<S>(lf::convert(to, from, x, e, st)); });
  benchmark::DoNotOptimize(st);
}

// ---- hardware baselines: float ---------------------------------------------------------------

template <bop O>
void bm_hw_float(benchmark::State& s, data d) {
  const auto a = floats(d, 1), b = floats(d, 2);
  std::vector<float> out(N);
  loop2(s, a, b, out, [](float x, float y) {
    if constexpr (O == bop::add) return x + y;
    else return x * y;
  });
}

void bm_hw_float_fma(benchmark::State& s, data d) {
  const auto a = floats(d, 1), b = floats(d, 2), c = floats(d, 3);
  std::vector<float> out(N);
  loop3(s, a, b, c, out, [](float x, float y, float z) { return std::fma(x, y, z); });
}

#if defined(LIBFLOAT_BENCH_X86)
__attribute__((target("fma"), noinline)) void float_fma_fma3(const void* a, const void* b, const void* c, void* o,
                                                              std::size_t n) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const auto* z = static_cast<const float*>(c);
  auto* r = static_cast<float*>(o);
  for (std::size_t i = 0; i < n; ++i) r[i] = __builtin_fmaf(x[i], y[i], z[i]);
}

void bm_hw_float_fma_fma3(benchmark::State& s, data d) {
  if (!__builtin_cpu_supports("fma")) {
    s.SkipWithError("no FMA3 on this CPU");
    return;
  }
  const auto a = floats(d, 1), b = floats(d, 2), c = floats(d, 3);
  std::vector<float> out(N);
  run_kernel3(s, a, b, c, out, float_fma_fma3);
}
#endif

// ---- hardware baselines: GCC _Float16 ----------------------------------------------------------

#if defined(__FLT16_MANT_DIG__)
#define LIBFLOAT_BENCH_FLOAT16 1
using f16 = _Float16;

// Portable: no target flags, so GCC calls libgcc's __extendhfsf2 / __truncsfhf2 around binary32
// arithmetic. `a * b + c` is two roundings (GCC 12 does not contract _Float16 in C++).
#define LIBFLOAT_F16_KERNELS(suffix, attr)                                                              \
  attr void f16_add_##suffix(const void* a, const void* b, void* o, std::size_t n) {                    \
    const auto* x = static_cast<const f16*>(a);                                                         \
    const auto* y = static_cast<const f16*>(b);                                                         \
    auto* r = static_cast<f16*>(o);                                                                     \
    for (std::size_t i = 0; i < n; ++i) r[i] = x[i] + y[i];                                             \
  }                                                                                                     \
  attr void f16_mul_##suffix(const void* a, const void* b, void* o, std::size_t n) {                    \
    const auto* x = static_cast<const f16*>(a);                                                         \
    const auto* y = static_cast<const f16*>(b);                                                         \
    auto* r = static_cast<f16*>(o);                                                                     \
    for (std::size_t i = 0; i < n; ++i) r[i] = x[i] * y[i];                                             \
  }                                                                                                     \
  attr void f16_muladd_##suffix(const void* a, const void* b, const void* c, void* o, std::size_t n) {  \
    const auto* x = static_cast<const f16*>(a);                                                         \
    const auto* y = static_cast<const f16*>(b);                                                         \
    const auto* z = static_cast<const f16*>(c);                                                         \
    auto* r = static_cast<f16*>(o);                                                                     \
    for (std::size_t i = 0; i < n; ++i) r[i] = x[i] * y[i] + z[i];                                      \
  }                                                                                                     \
  attr void f16_cvt_##suffix(const void* a, const void*, void* o, std::size_t n) {                      \
    const auto* x = static_cast<const float*>(a);                                                       \
    auto* r = static_cast<f16*>(o);                                                                     \
    for (std::size_t i = 0; i < n; ++i) r[i] = static_cast<f16>(x[i]);                                  \
  }

LIBFLOAT_F16_KERNELS(portable, __attribute__((noinline)))
#if defined(LIBFLOAT_BENCH_X86)
LIBFLOAT_F16_KERNELS(f16c, __attribute__((target("f16c,avx2"), noinline)))
#endif
#undef LIBFLOAT_F16_KERNELS

struct f16_kernels {
  kernel2 add, mul;
  kernel3 muladd;
  kernel2 cvt;
  bool needs_f16c;
};
constexpr f16_kernels f16_portable{f16_add_portable, f16_mul_portable, f16_muladd_portable, f16_cvt_portable, false};
#if defined(LIBFLOAT_BENCH_X86)
constexpr f16_kernels f16_f16c{f16_add_f16c, f16_mul_f16c, f16_muladd_f16c, f16_cvt_f16c, true};
#endif

bool skip_without_f16c(benchmark::State& s, bool needed) {
#if defined(LIBFLOAT_BENCH_X86)
  if (needed && !cpu_has_f16c_avx2()) {
    s.SkipWithError("no F16C/AVX2 on this CPU");
    return true;
  }
#else
  (void)s;
  (void)needed;
#endif
  return false;
}

/// _Float16 operands with the same values as operands<binary16>(d, seed).
std::vector<f16> f16_operands(data d, std::uint64_t seed) {
  std::vector<f16> v;
  for (auto x : operands<lf::binary16>(d, seed)) {
    const std::uint16_t b = x.bits();
    f16 h;
    std::memcpy(&h, &b, sizeof h);
    v.push_back(h);
  }
  return v;
}

void bm_hw_f16_add(benchmark::State& s, const f16_kernels* k, data d) {
  if (skip_without_f16c(s, k->needs_f16c)) return;
  const auto a = f16_operands(d, 1), b = f16_operands(d, 2);
  std::vector<f16> out(N);
  run_kernel2(s, a, b, out, k->add);
}
void bm_hw_f16_mul(benchmark::State& s, const f16_kernels* k, data d) {
  if (skip_without_f16c(s, k->needs_f16c)) return;
  const auto a = f16_operands(d, 1), b = f16_operands(d, 2);
  std::vector<f16> out(N);
  run_kernel2(s, a, b, out, k->mul);
}
void bm_hw_f16_muladd(benchmark::State& s, const f16_kernels* k, data d) {
  if (skip_without_f16c(s, k->needs_f16c)) return;
  const auto a = f16_operands(d, 1), b = f16_operands(d, 2), c = f16_operands(d, 3);
  std::vector<f16> out(N);
  run_kernel3(s, a, b, c, out, k->muladd);
}
void bm_hw_f16_cvt(benchmark::State& s, const f16_kernels* k, data d) {
  if (skip_without_f16c(s, k->needs_f16c)) return;
  const auto a = floats(d, 4);
  std::vector<f16> out(N);
  run_kernel2(s, a, a, out, k->cvt);
}
#endif

// ---- hardware baselines: conversion instructions ------------------------------------------------

#if defined(LIBFLOAT_BENCH_X86)
__attribute__((target("f16c,avx2"), noinline)) void cvt_f16c(const void* a, const void*, void* o, std::size_t n) {
  const auto* x = static_cast<const float*>(a);
  auto* r = static_cast<std::uint16_t*>(o);
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r + i), h);
  }
}

void bm_hw_f16c_cvt(benchmark::State& s, data d) {
  if (!cpu_has_f16c_avx2()) {
    s.SkipWithError("no F16C/AVX2 on this CPU");
    return;
  }
  const auto a = floats(d, 4);
  std::vector<std::uint16_t> out(N);
  run_kernel2(s, a, a, out, cvt_f16c);
}

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
#define LIBFLOAT_BENCH_AVX512BF16 1
__attribute__((target("avx512bf16,avx512vl"), noinline)) void cvt_avx512bf16(const void* a, const void*, void* o,
                                                                              std::size_t n) {
  const auto* x = static_cast<const float*>(a);
  auto* r = static_cast<std::uint16_t*>(o);
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m128bh h = _mm256_cvtneps_pbh(_mm256_loadu_ps(x + i));
    std::memcpy(r + i, &h, sizeof h);
  }
}

void bm_hw_avx512bf16_cvt(benchmark::State& s, data d) {
  if (!__builtin_cpu_supports("avx512bf16")) {
    s.SkipWithError("no AVX512-BF16 on this CPU");
    return;
  }
  const auto a = floats(d, 4);
  std::vector<std::uint16_t> out(N);
  run_kernel2(s, a, a, out, cvt_avx512bf16);
}
#endif
#endif

// ---- registration ------------------------------------------------------------------------------

using lf::rounding;

template <typename Fn, typename... Args>
void reg(const std::string& name, Fn fn, Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), fn, args...);
}

std::string suffix(data d) { return d == data::wide ? "/wide" : d == data::any ? "/any" : ""; }

template <lf::format F>
void register_format(const std::string& fname) {
  const data d = data::normal;
  reg("op/" + fname + "/add", bm_op<F, bop::add>, d);
  reg("op/" + fname + "/mul", bm_op<F, bop::mul>, d);
  reg("typed/" + fname + "/add/nearest_even", bm_typed<F, bop::add, rounding::nearest_even>, d);
  reg("typed/" + fname + "/add/toward_zero", bm_typed<F, bop::add, rounding::toward_zero>, d);
  reg("typed/" + fname + "/mul/nearest_even", bm_typed<F, bop::mul, rounding::nearest_even>, d);
  reg("typed/" + fname + "/mul/toward_zero", bm_typed<F, bop::mul, rounding::toward_zero>, d);
  reg("typed/" + fname + "/fma/nearest_even", bm_typed_fma<F, rounding::nearest_even>, d);
  reg("typed/" + fname + "/fma/toward_zero", bm_typed_fma<F, rounding::toward_zero>, d);
  for (rounding r : {rounding::nearest_even, rounding::toward_zero}) {
    const std::string rn(lf::rounding_name(r));
    reg("runtime/" + fname + "/add/" + rn, bm_runtime<F, bop::add>, r, d);
    reg("runtime/" + fname + "/mul/" + rn, bm_runtime<F, bop::mul>, r, d);
    reg("runtime/" + fname + "/fma/" + rn, bm_runtime_fma<F>, r, d);
  }
}

#if defined(LIBFLOAT_BENCH_F16C_BUILD)
// bench_scalar_f16c: this same file compiled with -mf16c (what -march=x86-64-v3 or native gives),
// so lf::fp16's operators take their F16C path (fast/scalar.hpp). A separate executable, because
// inline functions compiled with and without -mf16c must not meet in one link. Only what the
// flag changes is registered; the names say which build they come from.
void register_all() {
  const data d = data::normal;
  reg("f16c-build/op/fp16/add", bm_op<lf::binary16, bop::add>, d);
  reg("f16c-build/op/fp16/mul", bm_op<lf::binary16, bop::mul>, d);
  reg("f16c-build/cvt/fp16/op", bm_cvt_op<lf::binary16>, d);
  reg("f16c-build/cvt/fp16/op/wide", bm_cvt_op<lf::binary16>, data::wide);
  reg("f16c-build/typed/fp16/add/nearest_even", bm_typed<lf::binary16, bop::add, rounding::nearest_even>, d);
}
#else
void register_all() {
  register_format<lf::binary16>("fp16");
  register_format<lf::bfloat16>("bf16");
  register_format<lf::binary32>("fp32");

  // The SoftFloat target is for any mode and quotes "random operands": fp16 add in the four other
  // deterministic modes, and all six on random finite encodings (/wide) and on random bit patterns,
  // NaNs and infinities included (/any). register_format has nearest_even and toward_zero.
  for (data d : {data::normal, data::wide, data::any}) {
    const std::string sx = suffix(d);
    if (d != data::normal) {
      reg("typed/fp16/add/nearest_even" + sx, bm_typed<lf::binary16, bop::add, rounding::nearest_even>, d);
      reg("typed/fp16/add/toward_zero" + sx, bm_typed<lf::binary16, bop::add, rounding::toward_zero>, d);
    }
    reg("typed/fp16/add/nearest_away" + sx, bm_typed<lf::binary16, bop::add, rounding::nearest_away>, d);
    reg("typed/fp16/add/upward" + sx, bm_typed<lf::binary16, bop::add, rounding::upward>, d);
    reg("typed/fp16/add/downward" + sx, bm_typed<lf::binary16, bop::add, rounding::downward>, d);
    reg("typed/fp16/add/odd" + sx, bm_typed<lf::binary16, bop::add, rounding::odd>, d);
    for (rounding r : {rounding::nearest_even, rounding::toward_zero, rounding::nearest_away, rounding::upward,
                       rounding::downward, rounding::odd}) {
      if (d == data::normal && (r == rounding::nearest_even || r == rounding::toward_zero)) continue;
      reg("runtime/fp16/add/" + std::string(lf::rounding_name(r)) + sx, bm_runtime<lf::binary16, bop::add>, r, d);
    }
  }

  for (data d : {data::normal, data::wide}) {
    const std::string sx = suffix(d);
    reg("cvt/fp16/op" + sx, bm_cvt_op<lf::binary16>, d);
    reg("cvt/fp16/from/nearest_even" + sx, bm_cvt_from<lf::binary16, rounding::nearest_even>, d);
    reg("cvt/fp16/from/toward_zero" + sx, bm_cvt_from<lf::binary16, rounding::toward_zero>, d);
    reg("cvt/fp16/runtime/nearest_even" + sx, bm_cvt_runtime<lf::binary16>, rounding::nearest_even, d);
    reg("cvt/fp16/runtime/toward_zero" + sx, bm_cvt_runtime<lf::binary16>, rounding::toward_zero, d);
  }
  reg("cvt/bf16/op", bm_cvt_op<lf::bfloat16>, data::normal);
  reg("cvt/bf16/from/nearest_even", bm_cvt_from<lf::bfloat16, rounding::nearest_even>, data::normal);
  reg("cvt/bf16/from/toward_zero", bm_cvt_from<lf::bfloat16, rounding::toward_zero>, data::normal);

  reg("hw/float/add", bm_hw_float<bop::add>, data::normal);
  reg("hw/float/mul", bm_hw_float<bop::mul>, data::normal);
  reg("hw/float/fma/portable", bm_hw_float_fma, data::normal);
#if defined(LIBFLOAT_BENCH_X86)
  reg("hw/float/fma/fma3", bm_hw_float_fma_fma3, data::normal);
#endif
#if defined(LIBFLOAT_BENCH_FLOAT16)
#if defined(LIBFLOAT_BENCH_X86)
  for (const auto* k : {&f16_portable, &f16_f16c}) {
#else
  for (const auto* k : {&f16_portable}) {
#endif
    const std::string kn = k->needs_f16c ? "f16c" : "portable";
    reg("hw/_Float16/add/" + kn, bm_hw_f16_add, k, data::normal);
    reg("hw/_Float16/mul/" + kn, bm_hw_f16_mul, k, data::normal);
    reg("hw/_Float16/muladd/" + kn, bm_hw_f16_muladd, k, data::normal);
    reg("hw/_Float16/cvt/" + kn, bm_hw_f16_cvt, k, data::normal);
    reg("hw/_Float16/cvt/" + kn + "/wide", bm_hw_f16_cvt, k, data::wide);
  }
  reg("hw/_Float16/add/portable/wide", bm_hw_f16_add, &f16_portable, data::wide);
  reg("hw/_Float16/add/portable/any", bm_hw_f16_add, &f16_portable, data::any);
#endif
#if defined(LIBFLOAT_BENCH_X86)
  reg("hw/f16c/cvt", bm_hw_f16c_cvt, data::normal);
  reg("hw/f16c/cvt/wide", bm_hw_f16c_cvt, data::wide);
#if defined(LIBFLOAT_BENCH_AVX512BF16)
  reg("hw/avx512bf16/cvt", bm_hw_avx512bf16_cvt, data::normal);
#endif
#endif
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if defined(LIBFLOAT_BENCH_F16C_BUILD)
  if (!cpu_has_f16c_avx2()) {
    std::fputs("bench_scalar_f16c: this CPU has no F16C; nothing to run\n", stderr);
    return 0;
  }
#endif
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
