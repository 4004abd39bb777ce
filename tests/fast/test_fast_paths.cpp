// The fast paths of fast/scalar.hpp must be bit-identical to the rounding core
// (core/detail/round.hpp). Every binary32 input is checked, and, where the CPU has F16C, the hardware
// conversion is a third, independent opinion for binary16.
#include <doctest/doctest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include <immintrin.h>

#include <libfloat/libfloat.hpp>

#include "../support/cpu_features.hpp"

namespace {

__attribute__((target("f16c"))) std::uint16_t f16c_narrow(std::uint32_t x) {
  return static_cast<std::uint16_t>(_cvtss_sh(std::bit_cast<float>(x), _MM_FROUND_TO_NEAREST_INT));
}

// Runs body(lo, hi) over [0, 2^32) on two threads; returns the number of mismatches it reports.
template <typename Body>
std::uint64_t over_all_floats(Body body) {
  std::atomic<std::uint64_t> bad{0};
  std::vector<std::thread> pool;
  const std::uint64_t half = std::uint64_t{1} << 31;
  for (std::uint64_t t = 0; t < 2; ++t)
    pool.emplace_back([&, t] { bad += body(t * half, (t + 1) * half); });
  for (auto& th : pool) th.join();
  return bad;
}

}  // namespace

TEST_CASE("binary32 -> binary16 nearest-even bit trick equals the core for all 2^32 inputs") {
  const bool hw = test_cpu::has_f16c();
  const auto bad = over_all_floats([hw](std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t n = 0;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const auto x = static_cast<std::uint32_t>(i);
      lf::status st{};
      const auto core = static_cast<std::uint16_t>(lf::convert(lf::binary16, lf::binary32, x, lf::env{}, st));
      const auto fast = lf::detail::f32_to_f16_bits_rne(x);
      const bool ok = core == fast && (!hw || f16c_narrow(x) == core);
      if (!ok && ++n <= 5) std::printf("0x%08X: core %04X fast %04X\n", x, core, fast);
    }
    return n;
  });
  CHECK(bad == 0);
}

TEST_CASE("binary32 -> bfloat16 nearest-even bit trick equals the core for all 2^32 inputs") {
  const auto bad = over_all_floats([](std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t n = 0;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const auto x = static_cast<std::uint32_t>(i);
      lf::status st{};
      const auto core = static_cast<std::uint16_t>(lf::convert(lf::bfloat16, lf::binary32, x, lf::env{}, st));
      const auto fast = lf::detail::f32_to_bf16_bits_rne(x);
      if (core != fast && ++n <= 5) std::printf("0x%08X: core %04X fast %04X\n", x, core, fast);
    }
    return n;
  });
  CHECK(bad == 0);
}

TEST_CASE("binary16 / bfloat16 -> binary32 widening equals the core for all 2^16 encodings") {
  int bad = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    lf::status st{};
    const auto h16 = static_cast<std::uint16_t>(h);
    const bool ok = lf::detail::f16_to_f32_bits(h16) == lf::convert(lf::binary32, lf::binary16, h, lf::env{}, st) &&
                    lf::detail::bf16_to_f32_bits(h16) == lf::convert(lf::binary32, lf::bfloat16, h, lf::env{}, st);
    if (!ok && ++bad <= 5) std::printf("0x%04X widens differently\n", h);
  }
  CHECK(bad == 0);
}

TEST_CASE("the comparison above can fail: a one-ulp error is caught") {
  // 0x3DCCCCCD (0.1f) narrows to 0x2E66; the core and the trick must both disagree with 0x2E67.
  lf::status st{};
  CHECK(lf::convert(lf::binary16, lf::binary32, 0x3DCCCCCDu, lf::env{}, st) != 0x2E67);
  CHECK(lf::detail::f32_to_f16_bits_rne(0x3DCCCCCDu) == 0x2E66);
}
