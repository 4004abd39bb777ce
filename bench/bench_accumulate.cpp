// bench/bench_accumulate.cpp: throughput of the accumulation models (models/accumulate.hpp), the
// matrix units (models/matrix_unit.hpp) and the exact dot product (models/exact.hpp) on a
// 4096-long dot product, beside a plain float dot loop in the same binary (docs/performance.md;
// bench/run.sh runs it).
//
// Every benchmark computes one dot product of N = 4096 terms per iteration; items_per_second is
// terms per second. Names:
//   hw/float/dot                 float a[i], b[i]: acc += a[i] * b[i] (the baseline; built without
//                                -march flags, so a mul and an add per term, one dependency chain)
//   lf/dot/<preset>              lf::dot(lf::accumulations::<preset>, typed fp16 spans)
//   lf/dot/<preset>/runtime      the same on std::span<const lf::bits_t> (what floatlab calls)
//   lf/dot/e4m3_fp32_acc         lf::dot(lf::accumulations::e4m3_fp32_acc, typed E4M3 spans)
//   lf/mu/<preset>               lf::dot(lf::matrix_units::<preset>, c = 0), every preset of
//                                lf::matrix_unit_presets on spans of its input format (fp16, bf16,
//                                tf32, E4M3, E4M3FNUZ; cuda_core_fp32 on fp16)
//   lf/exact/dot/<fmt>           lf::exact_dot(a, b).round_to<binary32>()
//   lf/dot/fp32_acc/general      lf::detail::dot_impl_general: the step-by-step engine (every term an
//                                lf::fma call), which lf::dot(fp32_acc) runs only when the hardware
//                                path (fast/dot.hpp) declines; shown for the speed-up
// fp32_acc, e4m3_fp32_acc and cuda_core_fp32 (fp16 / E4M3 inputs, exact products, binary32
// nearest-even accumulator, sequential) run on the hardware's binary32 adds
// (fast/dot.hpp); main() checks that lf::dot and the engine give the same bits and flags
// on the benchmark data before measuring (tests/fast/test_dot_fast.cpp covers the edge cases).
// Data: a, b random fp16 with exponents in [-8, 7] (normal range, no overflow); E4M3 (E4M3FNUZ for
// cdna3_fp8) with exponents in [-4, 3] for the FP8 models.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include <libfloat/models.hpp>

namespace {

using bench_data::N;

template <lf::format F>
std::vector<lf::fp<F>> random_values(int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> exp(lo, hi);
  std::vector<lf::fp<F>> v(N);
  for (auto& x : v) {
    const std::uint64_t sign = g() & 1 ? F.sign_mask() : 0;
    const auto biased = static_cast<std::uint64_t>(exp(g) + F.bias());
    const std::uint64_t b = sign | (biased << F.fraction_bits()) | (g() & F.fraction_mask());
    x = lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(b));
  }
  return v;
}

const std::vector<lf::fp16>& A16() {
  static const auto v = random_values<lf::binary16>(-8, 7, 1);
  return v;
}
const std::vector<lf::fp16>& B16() {
  static const auto v = random_values<lf::binary16>(-8, 7, 2);
  return v;
}

template <class Fn>
void run(benchmark::State& s, Fn fn) {
  for (auto _ : s) {
    auto r = fn();
    benchmark::DoNotOptimize(r);
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

// ---- the baseline -------------------------------------------------------------------------------

void bm_float_dot(benchmark::State& s) {
  std::vector<float> a, b;
  for (auto x : A16()) a.push_back(static_cast<float>(x));
  for (auto x : B16()) b.push_back(static_cast<float>(x));
  run(s, [&] {
    float acc = 0;
    for (std::size_t i = 0; i < N; ++i) acc += a[i] * b[i];
    return acc;
  });
}

// ---- libfloat -------------------------------------------------------------------------------------

void bm_lf_dot(benchmark::State& s, lf::accumulation m) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] {
    lf::status st{};
    return lf::dot(m, a, b, &st).bits;
  });
}

void bm_lf_dot_general(benchmark::State& s, lf::accumulation m) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] {
    lf::status st{};
    return lf::detail::dot_impl_general(
               m, [&a](std::size_t i) -> lf::bits_t { return a[i].bits(); },
               [&b](std::size_t i) -> lf::bits_t { return b[i].bits(); }, N, std::nullopt, &st, nullptr)
        .bits;
  });
}

void bm_lf_dot_runtime(benchmark::State& s, lf::accumulation m) {
  std::vector<lf::bits_t> a, b;
  for (auto x : A16()) a.push_back(x.bits());
  for (auto x : B16()) b.push_back(x.bits());
  benchmark::DoNotOptimize(m);
  run(s, [&] {
    lf::status st{};
    return lf::dot(m, std::span<const lf::bits_t>(a), std::span<const lf::bits_t>(b), &st).bits;
  });
}

void bm_mu_fp16(benchmark::State& s, lf::matrix_unit mu) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] {
    lf::status st{};
    return lf::dot(mu, std::span<const lf::fp16>(a), std::span<const lf::fp16>(b), lf::fp32(0.0f), &st).bits();
  });
}

void bm_lf_dot_e4m3(benchmark::State& s, lf::accumulation m) {
  const auto a = random_values<lf::float8_e4m3fn>(-4, 3, 3), b = random_values<lf::float8_e4m3fn>(-4, 3, 4);
  run(s, [&] {
    lf::status st{};
    return lf::dot(m, a, b, &st).bits;
  });
}

/// A matrix-unit preset on data of its own input format (normal range: exponents in [-8, 7], [-4, 3]
/// for FP8), c = 0.
template <lf::format F>
void bm_mu_own(benchmark::State& s, lf::matrix_unit mu) {
  constexpr bool fp8 = F.precision <= 4;
  static const auto a = random_values<F>(fp8 ? -4 : -8, fp8 ? 3 : 7, 5), b = random_values<F>(fp8 ? -4 : -8, fp8 ? 3 : 7, 6);
  run(s, [&] {
    lf::status st{};
    return lf::dot(mu, std::span<const lf::fp<F>>(a), std::span<const lf::fp<F>>(b), lf::fp32(0.0f), &st).bits();
  });
}

/// Registers lf/mu/<name> for every block-FMA preset (lf::matrix_unit_presets) on its input format.
void register_every_preset() {
  for (const auto& p : lf::matrix_unit_presets) {
    const std::string name = "lf/mu/" + std::string(p.name);
    const lf::format in = p.unit.input;
    if (p.unit.model == lf::matrix_unit_model::cuda_core_fma) continue;  // registered above, fp16 data
    if (in == lf::binary16) benchmark::RegisterBenchmark(name.c_str(), bm_mu_own<lf::binary16>, p.unit);
    else if (in == lf::bfloat16) benchmark::RegisterBenchmark(name.c_str(), bm_mu_own<lf::bfloat16>, p.unit);
    else if (in == lf::tfloat32) benchmark::RegisterBenchmark(name.c_str(), bm_mu_own<lf::tfloat32>, p.unit);
    else if (in == lf::float8_e4m3fn) benchmark::RegisterBenchmark(name.c_str(), bm_mu_own<lf::float8_e4m3fn>, p.unit);
    else if (in == lf::float8_e4m3fnuz) benchmark::RegisterBenchmark(name.c_str(), bm_mu_own<lf::float8_e4m3fnuz>, p.unit);
  }
}

void bm_exact_fp16(benchmark::State& s) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] { return lf::exact_dot(a, b).round_to<lf::binary32>().bits(); });
}

void bm_exact_e4m3(benchmark::State& s) {
  const auto a = random_values<lf::float8_e4m3fn>(-4, 3, 3), b = random_values<lf::float8_e4m3fn>(-4, 3, 4);
  run(s, [&] { return lf::exact_dot(a, b).round_to<lf::binary32>().bits(); });
}

/// lf::dot(fp32_acc) (the hardware path) and lf::dot(cuda_core_fp32) against the engine on the
/// benchmark data: the same bits and flags, or false.
bool fast_path_agrees() {
  const auto& a = A16();
  const auto& b = B16();
  lf::status want_st{}, got_st{}, mu_st{};
  const lf::value want = lf::detail::dot_impl_general(
      lf::accumulations::fp32_acc, [&a](std::size_t i) -> lf::bits_t { return a[i].bits(); },
      [&b](std::size_t i) -> lf::bits_t { return b[i].bits(); }, N, std::nullopt, &want_st, nullptr);
  const lf::value got = lf::dot(lf::accumulations::fp32_acc, a, b, &got_st);
  const lf::fp32 mu = lf::dot(lf::matrix_units::cuda_core_fp32, std::span<const lf::fp16>(a),
                              std::span<const lf::fp16>(b), lf::fp32(0.0f), &mu_st);
  return want == got && want_st == got_st && mu.bits() == want.bits && mu_st == want_st;
}

}  // namespace

int main(int argc, char** argv) {
  if (!fast_path_agrees()) {
    std::fputs("bench_accumulate: lf::dot(fp32_acc) disagrees with the engine (detail::dot_impl_general); not measuring\n",
               stderr);
    return 1;
  }
  benchmark::RegisterBenchmark("hw/float/dot", bm_float_dot);
  benchmark::RegisterBenchmark("lf/dot/fp32_acc", bm_lf_dot, lf::accumulations::fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/fp32_acc/runtime", bm_lf_dot_runtime, lf::accumulations::fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/fp32_acc/general", bm_lf_dot_general, lf::accumulations::fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/e4m3_fp32_acc", bm_lf_dot_e4m3, lf::accumulations::e4m3_fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/fp16_acc", bm_lf_dot, lf::accumulations::fp16_acc);
  benchmark::RegisterBenchmark("lf/dot/fp16_pairwise", bm_lf_dot, lf::accumulations::fp16_pairwise);
  benchmark::RegisterBenchmark("lf/dot/fp16_kahan", bm_lf_dot, lf::accumulations::fp16_kahan);
  benchmark::RegisterBenchmark("lf/mu/cuda_core_fp32", bm_mu_fp16, lf::matrix_units::cuda_core_fp32);
  register_every_preset();
  benchmark::RegisterBenchmark("lf/exact/dot/fp16", bm_exact_fp16);
  benchmark::RegisterBenchmark("lf/exact/dot/e4m3", bm_exact_e4m3);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
