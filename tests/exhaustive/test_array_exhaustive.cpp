// Every float (all 2^32 bit patterns) through lf::convert on spans (array.hpp), for every output
// format of the lane kernels and every rounding mode: the automatic path (AVX-512 / AVX2+F16C where
// the CPU has them), the portable kernels and the AVX2 kernels (called directly, so threads need no
// process-wide dispatch switch) must give the same bits as the scalar core lf::convert, element by
// element, and the flags of each 65536-element chunk must be the OR of the core's.
//
// Cost: about 20 ns of CPU per element and combination (the scalar core dominates): all 45
// combinations take roughly an hour of CPU, split over std::thread::hardware_concurrency() threads.
// LIBFLOAT_ARRAY_EXHAUSTIVE_STRIDE=k checks only every k-th chunk (a sample, for a quick run);
// LIBFLOAT_EXHAUSTIVE_SHARDS=n / LIBFLOAT_EXHAUSTIVE_SHARD=i take the chunks c with c % n == i.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using u32 = std::uint32_t;
constexpr std::size_t chunk = std::size_t{1} << 16;
constexpr std::size_t n_chunks = std::size_t{1} << 16;
constexpr std::uint64_t seed = 0x5EED;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::size_t env_or(const char* name, std::size_t fallback) {
  const char* s = std::getenv(name);
  return s && *s ? static_cast<std::size_t>(std::strtoull(s, nullptr, 10)) : fallback;
}

lf::policy odd_policy() {  // FTZ + DAZ + saturation: every policy switch at once
  lf::policy p{};
  p.results = lf::subnormal_results::flush_to_zero;
  p.inputs = lf::subnormal_inputs::treat_as_zero;
  p.overflow = lf::overflow_policy::saturate;
  return p;
}

/// The portable and AVX2 kernels narrow_dispatch (array.hpp) would pick for this case.
template <lf::format F, lf::rounding M>
u32 run_direct(bool avx2, const float* in, lf::fp<F>* out, std::size_t n, lf::detail::lane_policy pol, std::uint64_t key,
               u32 idx0) {
  using namespace lf::detail;
  const bool plain = pol.is_default();
#if defined(LIBFLOAT_ARRAY_X86)
  if (avx2) {
    if constexpr (F == lf::binary16 && M == lf::rounding::nearest_even)
      if (plain) return f16_rne_f16c_avx2(in, out, n);
    if constexpr (F == lf::bfloat16 && M == lf::rounding::nearest_even)
      if (plain) return bf16_rne_avx2(in, out, n);
    return plain ? narrow_avx2<F, lf::binary32, M, true>(in, out, n, pol, key, idx0)
                 : narrow_avx2<F, lf::binary32, M, false>(in, out, n, pol, key, idx0);
  }
#endif
  (void)avx2;
  if constexpr (F == lf::bfloat16 && M == lf::rounding::nearest_even)
    if (plain) return bf16_rne_portable(in, out, n);
  return plain ? narrow_portable<F, lf::binary32, M, true>(in, out, n, pol, key, idx0)
               : narrow_portable<F, lf::binary32, M, false>(in, out, n, pol, key, idx0);
}

template <lf::format F, lf::rounding M>
void check_all_floats(const lf::policy& policy) {
  using T = lf::fp<F>;
  const std::size_t stride = std::max<std::size_t>(1, env_or("LIBFLOAT_ARRAY_EXHAUSTIVE_STRIDE", 1));
  const std::size_t shards = std::max<std::size_t>(1, env_or("LIBFLOAT_EXHAUSTIVE_SHARDS", 1));
  const std::size_t shard = env_or("LIBFLOAT_EXHAUSTIVE_SHARD", 0);
  const bool has_avx2 = [] {
    const auto prev = lf::set_array_dispatch(lf::array_dispatch::avx2);
    const bool ok = lf::array_dispatch_in_use() == lf::array_dispatch::avx2;
    lf::set_array_dispatch(prev);
    return ok;
  }();
  const lf::detail::lane_policy pol = lf::detail::lane_policy::from(policy);
  std::atomic<std::size_t> next{0}, mismatches{0}, flag_mismatches{0}, checked{0};
  std::mutex report;
  std::string first_report;
  auto worker = [&] {
    std::vector<float> in(chunk);
    std::vector<T> autom(chunk), portable(chunk), avx2(chunk);
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      const std::size_t c = k * stride;
      if (c >= n_chunks) break;
      if (c % shards != shard) continue;
      const u32 base = static_cast<u32>(c * chunk);
      for (std::size_t i = 0; i < chunk; ++i) in[i] = std::bit_cast<float>(base + static_cast<u32>(i));
      const lf::stochastic_source src = lf::stochastic_source{seed}.at(base);
      lf::stochastic_source advancing = src;
      const lf::status st_auto = M == lf::rounding::stochastic ? lf::convert<F>(in, autom, advancing, policy)
                                                               : lf::convert<F>(in, autom, lf::env{M, policy});
      const std::uint64_t key = lf::detail::stochastic_key(seed, 0);
      const u32 st_port = run_direct<F, M>(false, in.data(), portable.data(), chunk, pol, key, base);
      const u32 st_avx2 = has_avx2 ? run_direct<F, M>(true, in.data(), avx2.data(), chunk, pol, key, base) : st_port;
      lf::status want{};
      std::size_t bad = 0;
      for (std::size_t i = 0; i < chunk; ++i) {
        lf::status s{};
        const auto r = lf::convert(F, lf::binary32, base + i, lf::env{M, policy, src.at(0).bits(base + i)}, s);
        want |= s;
        const bool ok = autom[i].bits() == r && portable[i].bits() == r && (!has_avx2 || avx2[i].bits() == r);
        if (!ok && bad++ == 0) {
          const std::lock_guard<std::mutex> lock(report);
          if (first_report.empty())
            first_report = "input " + hex(base + i) + ": core " + hex(r) + ", automatic " + hex(autom[i].bits()) +
                           ", portable " + hex(portable[i].bits()) + ", avx2 " + hex(avx2[i].bits());
        }
      }
      mismatches += bad;
      const u32 w = lf::to_bits(want);
      flag_mismatches += (lf::to_bits(st_auto) != w) + (st_port != w) + (st_avx2 != w);
      ++checked;
    }
  };
  const unsigned n_threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n_threads; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  MESSAGE(lf::format_name(F) << " " << lf::rounding_name(M) << std::string(policy == lf::policy{} ? "" : " FTZ+DAZ+saturate") << ": "
                             << checked.load() << " chunks of 65536 floats checked");
  CHECK_MESSAGE(mismatches == 0, first_report);
  CHECK(flag_mismatches == 0);
}

template <lf::format F>
void check_format() {
  check_all_floats<F, lf::rounding::nearest_even>({});
  check_all_floats<F, lf::rounding::nearest_away>({});
  check_all_floats<F, lf::rounding::toward_zero>({});
  check_all_floats<F, lf::rounding::upward>({});
  check_all_floats<F, lf::rounding::downward>({});
  check_all_floats<F, lf::rounding::odd>({});
  check_all_floats<F, lf::rounding::stochastic>({});
  check_all_floats<F, lf::rounding::nearest_even>(odd_policy());
  check_all_floats<F, lf::rounding::toward_zero>(odd_policy());
}

}  // namespace

TEST_CASE("all 2^32 floats -> binary16: every path = the core, every mode") { check_format<lf::binary16>(); }
TEST_CASE("all 2^32 floats -> bfloat16: every path = the core, every mode") { check_format<lf::bfloat16>(); }
TEST_CASE("all 2^32 floats -> tf32: every path = the core, every mode") { check_format<lf::tfloat32>(); }
TEST_CASE("all 2^32 floats -> E4M3: every path = the core, every mode") { check_format<lf::float8_e4m3fn>(); }
TEST_CASE("all 2^32 floats -> E5M2: every path = the core, every mode") { check_format<lf::float8_e5m2>(); }
