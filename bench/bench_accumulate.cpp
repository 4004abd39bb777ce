// bench/bench_accumulate.cpp: throughput of the accumulation models (accumulate.hpp), the matrix
// units (matrix_unit.hpp) and the exact dot product (exact.hpp) on a 4096-long dot product, beside
// a plain float dot loop in the same binary (docs/performance.md; bench/run.sh runs it).
//
// Every benchmark computes one dot product of N = 4096 terms per iteration; items_per_second is
// terms per second. Names:
//   hw/float/dot                 float a[i], b[i]: acc += a[i] * b[i] (the baseline; built without
//                                -march flags, so a mul and an add per term, one dependency chain)
//   lf/dot/<preset>              lf::dot(lf::accumulations::<preset>, typed fp16 spans)
//   lf/dot/<preset>/runtime      the same on std::span<const lf::bits_t> (what floatlab calls)
//   lf/mu/<preset>               lf::dot(lf::matrix_units::<preset>, fp16 or E4M3 spans, c = 0)
//   lf/exact/dot/<fmt>           lf::exact_dot(a, b).round_to<binary32>()
//   proto/fp32_acc_fast[_blocked] NOT the library: a candidate fast path for fp32_acc (fp16 inputs,
//                                exact products, binary32 nearest-even accumulator, sequential),
//                                main() checks it bit for bit (result and flags) against lf::dot
//                                before measuring. fp16 products are exact in binary32 (22
//                                significant bits, exponents -48..32), so acc + a*b rounds once,
//                                as the fma chain does; inexact comes from TwoSum's error term.
//                                _blocked: the same in three passes per 256 terms (products,
//                                the serial add chain, the TwoSum checks), so only the chain is serial.
// Data: a, b random fp16 with exponents in [-8, 7] (normal range, no overflow); E4M3 for the FP8 unit.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include <libfloat/libfloat.hpp>

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

// ---- the candidate fast path (see the file comment) --------------------------------------------

/// fp16 encoding -> float for finite values, branch-free: the exponent and fraction moved into
/// place and multiplied by 2^112 (exact: it rebias es normals and normalises subnormals alike).
inline float fp16_finite_to_float(std::uint16_t h) {
  const float mag = std::bit_cast<float>(static_cast<std::uint32_t>(h & 0x7FFFu) << 13) * 0x1p112f;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(mag) | (static_cast<std::uint32_t>(h & 0x8000u) << 16));
}

/// fp32_acc's dot product: result and flags, or false when an input is not finite (the library's
/// general path then decides: NaN, infinities and their flags).
bool fp32_acc_fast(const lf::fp16* a, const lf::fp16* b, std::size_t n, float& out, lf::status& st) {
  float acc = 0;
  float err = 0;  // OR of |TwoSum errors| as a sum of absolute values: nonzero iff some add was inexact
  std::uint16_t nonfinite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t x = a[i].bits(), y = b[i].bits();
    nonfinite |= static_cast<std::uint16_t>(((x & 0x7C00u) == 0x7C00u) | ((y & 0x7C00u) == 0x7C00u));
    const float p = fp16_finite_to_float(x) * fp16_finite_to_float(y);  // exact
    const float s = acc + p;                                             // the one rounding
    const float bp = s - acc, e = (acc - (s - bp)) + (p - bp);          // TwoSum: s + e == acc + p exactly
    err += e < 0 ? -e : e;
    acc = s;
  }
  if (nonfinite) return false;
  st = lf::status::none;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(acc);
  if ((bits & 0x7F800000u) == 0x7F800000u) {
    st = lf::status::overflow | lf::status::inexact;  // finite inputs: only an overflow gives inf
  } else if (err != 0) {
    st = lf::status::inexact;
  }
  out = acc;
  return true;
}

/// The same result and flags in three passes over blocks of 256 terms, so that only the add chain
/// stays serial: products (independent, vectorisable), the chain storing every partial sum, and
/// TwoSum's error of every step (independent again).
bool fp32_acc_fast_blocked(const lf::fp16* a, const lf::fp16* b, std::size_t n, float& out, lf::status& st) {
  constexpr std::size_t B = 256;
  float p[B], s[B + 1];
  float acc = 0;
  float err = 0;
  std::uint32_t nonfinite = 0;
  for (std::size_t i0 = 0; i0 < n; i0 += B) {
    const std::size_t m = n - i0 < B ? n - i0 : B;
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint16_t x = a[i0 + i].bits(), y = b[i0 + i].bits();
      nonfinite |= static_cast<std::uint32_t>(((x & 0x7C00u) == 0x7C00u) | ((y & 0x7C00u) == 0x7C00u));
      p[i] = fp16_finite_to_float(x) * fp16_finite_to_float(y);  // exact
    }
    s[0] = acc;
    for (std::size_t i = 0; i < m; ++i) s[i + 1] = s[i] + p[i];  // the one rounding per term
    for (std::size_t i = 0; i < m; ++i) {
      const float bp = s[i + 1] - s[i], e = (s[i] - (s[i + 1] - bp)) + (p[i] - bp);
      err += e < 0 ? -e : e;
    }
    acc = s[m];
  }
  if (nonfinite) return false;
  st = lf::status::none;
  if ((std::bit_cast<std::uint32_t>(acc) & 0x7F800000u) == 0x7F800000u) st = lf::status::overflow | lf::status::inexact;
  else if (err != 0) st = lf::status::inexact;
  out = acc;
  return true;
}

void bm_proto_fast_blocked(benchmark::State& s) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] {
    float r = 0;
    lf::status st{};
    fp32_acc_fast_blocked(a.data(), b.data(), N, r, st);
    return r + static_cast<float>(lf::to_bits(st));
  });
}

void bm_proto_fast(benchmark::State& s) {
  const auto& a = A16();
  const auto& b = B16();
  run(s, [&] {
    float r = 0;
    lf::status st{};
    fp32_acc_fast(a.data(), b.data(), N, r, st);
    return r + static_cast<float>(lf::to_bits(st));
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

void bm_mu_e4m3(benchmark::State& s, lf::matrix_unit mu) {
  const auto a = random_values<lf::float8_e4m3fn>(-4, 3, 3), b = random_values<lf::float8_e4m3fn>(-4, 3, 4);
  run(s, [&] {
    lf::status st{};
    return lf::dot(mu, std::span<const lf::fp8_e4m3>(a), std::span<const lf::fp8_e4m3>(b), lf::fp32(0.0f), &st)
        .bits();
  });
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

/// The candidate fast path against lf::dot(fp32_acc) on the benchmark data, on data with
/// subnormals, zeros and wide exponents, on sums that overflow, and on every prefix length up to
/// 64: the same bits and the same flags, or false.
bool fast_path_agrees() {
  std::vector<std::vector<lf::fp16>> sets{A16(), B16()};
  std::mt19937_64 g(9);
  for (int k = 0; k < 6; ++k) {  // random finite encodings: subnormals, zeros, up to 65504
    std::vector<lf::fp16> v(N);
    for (auto& x : v) {
      std::uint16_t bits;
      do bits = static_cast<std::uint16_t>(g());
      while ((bits & 0x7C00u) == 0x7C00u);
      x = lf::fp16::from_bits(bits);
    }
    sets.push_back(v);
  }
  std::vector<lf::fp16> big(N, lf::fp16::from_bits(0x7BFF));  // 65504: large terms (binary32 cannot overflow here)
  sets.push_back(big);
  for (std::size_t i = 0; i + 1 < sets.size(); ++i)
    for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{64},
                            std::size_t{255}, std::size_t{256}, std::size_t{257}, N}) {
      const std::span<const lf::fp16> a(sets[i].data(), len), b(sets[i + 1].data(), len);
      lf::status want_st{};
      const lf::value want = lf::dot(lf::accumulations::fp32_acc, a, b, &want_st);
      float got = 0, got2 = 0;
      lf::status got_st{}, got2_st{};
      if (!fp32_acc_fast(a.data(), b.data(), len, got, got_st)) return false;
      if (!fp32_acc_fast_blocked(a.data(), b.data(), len, got2, got2_st)) return false;
      if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(got2) || got_st != got2_st) {
        std::fprintf(stderr, "blocked fast path differs: set %zu, length %zu\n", i, len);
        return false;
      }
      if (want.bits != std::bit_cast<std::uint32_t>(got) || want_st != got_st) {
        std::fprintf(stderr, "fast path differs: set %zu, length %zu: %08llX/%02X vs %08X/%02X\n", i, len,
                     static_cast<unsigned long long>(want.bits), lf::to_bits(want_st), std::bit_cast<std::uint32_t>(got),
                     lf::to_bits(got_st));
        return false;
      }
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!fast_path_agrees()) {
    std::fputs("bench_accumulate: the candidate fast path disagrees with lf::dot(fp32_acc); not measuring\n", stderr);
    return 1;
  }
  benchmark::RegisterBenchmark("hw/float/dot", bm_float_dot);
  benchmark::RegisterBenchmark("proto/fp32_acc_fast", bm_proto_fast);
  benchmark::RegisterBenchmark("proto/fp32_acc_fast_blocked", bm_proto_fast_blocked);
  benchmark::RegisterBenchmark("lf/dot/fp32_acc", bm_lf_dot, lf::accumulations::fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/fp32_acc/runtime", bm_lf_dot_runtime, lf::accumulations::fp32_acc);
  benchmark::RegisterBenchmark("lf/dot/fp16_acc", bm_lf_dot, lf::accumulations::fp16_acc);
  benchmark::RegisterBenchmark("lf/dot/fp16_pairwise", bm_lf_dot, lf::accumulations::fp16_pairwise);
  benchmark::RegisterBenchmark("lf/dot/fp16_kahan", bm_lf_dot, lf::accumulations::fp16_kahan);
  benchmark::RegisterBenchmark("lf/mu/cuda_core_fp32", bm_mu_fp16, lf::matrix_units::cuda_core_fp32);
  benchmark::RegisterBenchmark("lf/mu/volta_fp16", bm_mu_fp16, lf::matrix_units::volta_fp16);
  benchmark::RegisterBenchmark("lf/mu/ampere_fp16", bm_mu_fp16, lf::matrix_units::ampere_fp16);
  benchmark::RegisterBenchmark("lf/mu/hopper_fp16", bm_mu_fp16, lf::matrix_units::hopper_fp16);
  benchmark::RegisterBenchmark("lf/mu/hopper_fp8", bm_mu_e4m3, lf::matrix_units::hopper_fp8);
  benchmark::RegisterBenchmark("lf/mu/deepseek_fp8_promote128", bm_mu_e4m3, lf::matrix_units::deepseek_fp8_promote128);
  benchmark::RegisterBenchmark("lf/exact/dot/fp16", bm_exact_fp16);
  benchmark::RegisterBenchmark("lf/exact/dot/e4m3", bm_exact_e4m3);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
