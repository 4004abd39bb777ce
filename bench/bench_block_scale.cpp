// bench/bench_block_scale.cpp: block-scaled quantization (models/block_scale.hpp) of 16M floats, beside a
// memcpy of the same 64 MiB in the same run (issue target: >= 0.25x memcpy's rate).
//
// Names:
//   block_scale/<format>   lf::mx_quantize of the 16M floats as 4096 rows of 4096 (mxfp8_e4m3, mxfp4,
//                          nvfp4), nearest even, saturating; items_per_second = elements per second
//   block_scale/into/<format>  the same with lf::mx_quantize_into into one block_quantized reused
//                          across iterations (no allocation, no page faults after the first call)
//   block_scale/into/<format>/avx2  the same on the AVX2 kernels (lf::set_array_dispatch), as a CPU
//                          without AVX-512 runs them
//   block_scale/hw/copy    memcpy of the 64 MiB input: the memory bandwidth ceiling
// Data: random signs, exponents uniform in [-26, 17], random significands (as bench_array.cpp).
// Run: build/bench/bench/bench_block_scale --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <libfloat/models/block_scale.hpp>

namespace {

constexpr std::size_t side = 4096, n_elements = side * side;  // 16M

const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    std::mt19937_64 g(20261202);
    std::uniform_int_distribution<int> e(-26, 17);
    std::vector<float> x(n_elements);
    for (auto& f : x) {
      const std::uint64_t r = g();
      f = std::bit_cast<float>(static_cast<std::uint32_t>((r & 0x807FFFFFu) | (static_cast<std::uint32_t>(e(g) + 127) << 23)));
    }
    return x;
  }();
  return v;
}

void copy(benchmark::State& state) {
  const auto& in = input();
  std::vector<float> out(n_elements);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), n_elements * sizeof(float));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}
BENCHMARK(copy)->Name("block_scale/hw/copy")->Unit(benchmark::kMillisecond);

void quantize(benchmark::State& state, const lf::block_format* f) {
  const auto& in = input();
  for (auto _ : state) {
    lf::block_quantized q = lf::mx_quantize(in, side, side, *f);
    benchmark::DoNotOptimize(q.elements.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}
BENCHMARK_CAPTURE(quantize, mxfp8, &lf::mxfp8_e4m3)->Name("block_scale/mxfp8_e4m3")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(quantize, mxfp4, &lf::mxfp4)->Name("block_scale/mxfp4")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(quantize, nvfp4, &lf::nvfp4)->Name("block_scale/nvfp4")->Unit(benchmark::kMillisecond)->Iterations(1);

// The same into one block_quantized reused across iterations (lf::mx_quantize_into): what a training
// loop that quantizes same-shape tensors pays; the first, untimed call allocates and touches the storage.
void quantize_into(benchmark::State& state, const lf::block_format* f) {
  const auto& in = input();
  lf::block_quantized q;
  lf::mx_quantize_into(in, side, side, *f, q);
  for (auto _ : state) {
    lf::mx_quantize_into(in, side, side, *f, q);
    benchmark::DoNotOptimize(q.elements.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}
BENCHMARK_CAPTURE(quantize_into, mxfp8, &lf::mxfp8_e4m3)->Name("block_scale/into/mxfp8_e4m3")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(quantize_into, mxfp4, &lf::mxfp4)->Name("block_scale/into/mxfp4")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(quantize_into, nvfp4, &lf::nvfp4)->Name("block_scale/into/nvfp4")->Unit(benchmark::kMillisecond);

// The same on the AVX2 kernels, forced with lf::set_array_dispatch (what a CPU without AVX-512 runs);
// skipped where the CPU has no AVX2.
void quantize_into_avx2(benchmark::State& state, const lf::block_format* f) {
  if (!lf::detail::cpu().avx2_f16c) {
    state.SkipWithError("this CPU has no AVX2");
    return;
  }
  const lf::array_dispatch before = lf::set_array_dispatch(lf::array_dispatch::avx2);
  quantize_into(state, f);
  lf::set_array_dispatch(before);
}
BENCHMARK_CAPTURE(quantize_into_avx2, mxfp8, &lf::mxfp8_e4m3)->Name("block_scale/into/mxfp8_e4m3/avx2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(quantize_into_avx2, nvfp4, &lf::nvfp4)->Name("block_scale/into/nvfp4/avx2")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
