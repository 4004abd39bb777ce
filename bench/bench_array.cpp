// bench/bench_array.cpp: span conversions (core/array.hpp) on 16M floats, beside the hardware in the same run.
//
// Every benchmark converts the same 16M floats (64 MiB: far beyond the caches, so the figures are
// memory-bound, as the targets in docs/performance.md assume); items_per_second = elements per second of the
// benchmark thread's CPU time (Google Benchmark's default), which on a shared machine is steadier
// than wall time. Run with repetitions and read medians:
//   build/bench/bench/bench_array --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       --benchmark_out=array.json --benchmark_out_format=json    (one command line)
//   python3 bench/ratios.py array.json
//
// Names:
//   array/<format>/<rounding>[/<path>]   lf::convert(in, out, mode) with flags ORed over the span;
//                                        path = the dispatch forced with lf::set_array_dispatch
//                                        (none = automatic). Stochastic uses lf::stochastic_source.
//   array/fp16/nearest_even/saturate     the same with a non-default policy (generic kernel)
//   array/quantize/fp16, array/widen/fp16
//   array/hw/f16c/cvtps_ph        _mm256_cvtps_ph loop (F16C, nearest even), results only
//   array/hw/bf16/bittrick        bfloat16 nearest even by the integer trick (x + 0x7FFF + lsb) >> 16 with the
//                           NaN case, vectorised for AVX-512 (or AVX2), results only
//   array/hw/avx512bf16/cvtneps   VCVTNEPS2BF16 (flushes subnormal inputs; not bit-identical), results only
//   array/hw/copy                 memcpy of the 64 MiB input: the memory bandwidth ceiling
// Data: random signs, exponents uniform in [-26, 17] (binary16's whole range: subnormals, overflow)
// and random significands.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <libfloat/core/array.hpp>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define LIBFLOAT_BENCH_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace {

constexpr std::size_t n_elements = std::size_t{1} << 24;  // 16M

const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    std::mt19937_64 g(20261130);
    std::uniform_int_distribution<int> e(-26, 17);
    std::vector<float> x(n_elements);
    for (auto& f : x) {
      const std::uint64_t r = g();
      const auto bits = static_cast<std::uint32_t>((r & 0x807FFFFFu) | (static_cast<std::uint32_t>(e(g) + 127) << 23));
      f = std::bit_cast<float>(bits);
    }
    return x;
  }();
  return v;
}

void finish(benchmark::State& s) {
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()) * static_cast<std::int64_t>(n_elements));
}

template <typename T>
void bm_convert(benchmark::State& s, lf::rounding mode, lf::array_dispatch path, lf::policy pol) {
  const auto& in = input();
  std::vector<T> out(n_elements);
  const auto previous = lf::set_array_dispatch(path);
  s.SetLabel(lf::array_dispatch_name(lf::array_dispatch_in_use()));
  lf::stochastic_source src{42};
  for (auto _ : s) {
    lf::status st = mode == lf::rounding::stochastic ? lf::convert(in, out, src, pol) : lf::convert(in, out, lf::env{mode, pol});
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  lf::set_array_dispatch(previous);
  finish(s);
}

void bm_quantize_fp16(benchmark::State& s) {
  const auto& in = input();
  std::vector<float> out(n_elements);
  for (auto _ : s) {
    benchmark::DoNotOptimize(lf::quantize(in, out, lf::binary16, lf::rounding::nearest_even));
    benchmark::ClobberMemory();
  }
  finish(s);
}

void bm_widen_fp16(benchmark::State& s) {
  std::vector<lf::fp16> h(n_elements);
  (void)lf::convert(input(), h);
  std::vector<float> out(n_elements);
  for (auto _ : s) {
    benchmark::DoNotOptimize(lf::widen(h, out));
    benchmark::ClobberMemory();
  }
  finish(s);
}

void bm_copy(benchmark::State& s) {
  const auto& in = input();
  std::vector<float> out(n_elements);
  for (auto _ : s) {
    std::memcpy(out.data(), in.data(), n_elements * sizeof(float));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(s);
}

#if defined(LIBFLOAT_BENCH_X86)
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
bool has_avx2() { return cpu_has(false); }
bool has_avx512() { return cpu_has(true); }
bool has_avx512bf16() {  // CPUID.(EAX=7,ECX=1):EAX[5]
  unsigned a = 0, b = 0, c = 0, d = 0;
  return has_avx512() && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)) != 0;
}

__attribute__((target("avx2,f16c"), noinline)) void f16c_loop(const float* in, std::uint16_t* out, std::size_t n) {
  for (std::size_t i = 0; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// The bit trick written out here (not the library's), so the baseline shares no code with it.
#define LIBFLOAT_BENCH_BF16_TRICK                                                      \
  for (std::size_t i = 0; i < n; ++i) {                                                \
    std::uint32_t x;                                                                   \
    std::memcpy(&x, in + i, 4);                                                        \
    const std::uint32_t r = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;                    \
    const std::uint32_t q = (x >> 16) | 0x40u;                                         \
    out[i] = static_cast<std::uint16_t>((x & 0x7FFFFFFFu) > 0x7F800000u ? q : r);      \
  }
__attribute__((target("avx512f,avx512bw,avx512vl"), noinline)) void bf16_trick_avx512(const float* in, std::uint16_t* out,
                                                                                      std::size_t n) {
  LIBFLOAT_BENCH_BF16_TRICK
}
__attribute__((target("avx2"), noinline)) void bf16_trick_avx2(const float* in, std::uint16_t* out, std::size_t n) {
  LIBFLOAT_BENCH_BF16_TRICK
}

__attribute__((target("avx512bf16,avx512f,avx512vl"), noinline)) void cvtneps_loop(const float* in, std::uint16_t* out,
                                                                                  std::size_t n) {
  for (std::size_t i = 0; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(in + i)));
}

template <void (*Kernel)(const float*, std::uint16_t*, std::size_t)>
void bm_hw(benchmark::State& s, bool (*available)()) {
  if (!available()) {
    s.SkipWithError("the CPU lacks the instructions");
    return;
  }
  const auto& in = input();
  std::vector<std::uint16_t> out(n_elements);
  for (auto _ : s) {
    Kernel(in.data(), out.data(), n_elements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(s);
}
void bm_hw_bf16_trick(benchmark::State& s) {
  if (has_avx512()) bm_hw<bf16_trick_avx512>(s, has_avx512);
  else bm_hw<bf16_trick_avx2>(s, has_avx2);
}
#endif

template <typename... A>
void reg(const std::string& name, A&&... a) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<A>(a)...)->Unit(benchmark::kMillisecond);
}

template <typename T>
void register_format(const std::string& fmt, bool all_paths) {
  for (lf::rounding m : lf::all_roundings)
    reg("array/" + fmt + "/" + std::string(lf::rounding_name(m)), bm_convert<T>, m, lf::array_dispatch::automatic,
        lf::policy{});
  if (all_paths)
    for (auto p : {lf::array_dispatch::portable, lf::array_dispatch::avx2})
      for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::toward_zero, lf::rounding::stochastic})
        reg("array/" + fmt + "/" + std::string(lf::rounding_name(m)) + "/" + lf::array_dispatch_name(p), bm_convert<T>,
            m, p, lf::policy{});
}

}  // namespace

int main(int argc, char** argv) {
  register_format<lf::fp16>("fp16", true);
  register_format<lf::bf16>("bf16", true);
  for (lf::rounding m : {lf::rounding::nearest_even, lf::rounding::stochastic}) {
    reg("array/e4m3/" + std::string(lf::rounding_name(m)), bm_convert<lf::fp8_e4m3>, m, lf::array_dispatch::automatic,
        lf::policy{});
    reg("array/e5m2/" + std::string(lf::rounding_name(m)), bm_convert<lf::fp8_e5m2>, m, lf::array_dispatch::automatic,
        lf::policy{});
    reg("array/tf32/" + std::string(lf::rounding_name(m)), bm_convert<lf::tf32>, m, lf::array_dispatch::automatic,
        lf::policy{});
  }
  lf::policy sat{};
  sat.overflow = lf::overflow_policy::saturate;
  reg("array/fp16/nearest_even/saturate", bm_convert<lf::fp16>, lf::rounding::nearest_even, lf::array_dispatch::automatic,
      sat);
  reg("array/quantize/fp16", bm_quantize_fp16);
  reg("array/widen/fp16", bm_widen_fp16);
  reg("array/hw/copy", bm_copy);
#if defined(LIBFLOAT_BENCH_X86)
  reg("array/hw/f16c/cvtps_ph", bm_hw<f16c_loop>, has_avx2);
  reg("array/hw/bf16/bittrick", bm_hw_bf16_trick);
  reg("array/hw/avx512bf16/cvtneps", bm_hw<cvtneps_loop>, has_avx512bf16);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
