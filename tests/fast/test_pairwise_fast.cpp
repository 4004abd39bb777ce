// fast/pairwise_dot.hpp: the hardware path of the pairwise_tree matrix-unit model (the CDNA1
// pairwise and CDNA2 presets) against the general path it stands in for, a chain of
// detail::pairwise_block calls (lf::mul and lf::add of the core, the flush in integer code): the
// same result bits and the same status.
//
// Units: the four presets (cdna1_pairwise_fp16/bf16, cdna2_fp16/bf16) and each with the other
// block sizes the path takes (2, 4, 8) and the other flush setting; plus units it must decline
// (block size 3 and 16, inputs flushed without the outputs, toward-zero rounding), which must still
// give the general path's result. Entries: detail::pairwise_f32_nearest itself (it must not
// decline on finite data), also instantiated with the typed entry's getters and compiled in this
// test (at -O3, as a header-only program compiles it: the entries themselves may come from
// libfloat::runtime, compiled with its own flags), the run-time-format lf::dot and the typed lf::dot.
//
// Data, binary16 and bfloat16: random encodings of every kind (infinities and NaNs at their natural
// rate: the path declines and the general path answers), finite values over the whole exponent
// range, narrow exponents, subnormal inputs, pairs that cancel exactly, and for bfloat16 products
// at the bottom of binary32's range (subnormal products and sums, flushed or kept) and at its top
// (overflow, inf - inf); c: +-0, subnormals, +-2^-126, random normals, +-max finite, infinities,
// NaN; lengths 0 to 200 around the block sizes and the kernel's 64-product passes. Then the caller
// MXCSR settings on which it must decline, and MXCSR restored. All of it once per build of the
// kernel, each forced with lf::set_array_dispatch: the program's own instruction set (portable)
// and AVX2 (skipped, with a message, on a CPU without it).
#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"
#include "unit_dot_cases.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace unit_dot_cases;

/// The general path: the model's blocks one after another (matrix_unit.hpp, pairwise_tree).
outcome general(const lf::matrix_unit& mu, const lf::format& f, const bits& a, const bits& b, lf::bits_t c) {
  return block_chain(mu, f, a, b, c, [](auto&&... args) { return lf::detail::pairwise_block(args...); });
}

/// The units: the preset, its other block sizes and flush settings; `fast` whether the path takes it.

std::vector<unit_case> units(const lf::matrix_unit& preset, const char* name) {
  std::vector<unit_case> v;
  for (int N : {2, 4, 8, 3, 16})
    for (bool flush : {false, true}) {
      lf::matrix_unit mu = preset;
      mu.block_size = N;
      const auto h = flush ? lf::subnormal_handling::flush : lf::subnormal_handling::keep;
      mu.input_subnormals = mu.output_subnormals = h;
      v.push_back({std::string(name) + " N=" + std::to_string(N) + (flush ? " flush" : " keep"), mu, N == 2 || N == 4 || N == 8});
    }
  lf::matrix_unit mixed = preset;
  mixed.input_subnormals = lf::subnormal_handling::flush;
  mixed.output_subnormals = lf::subnormal_handling::keep;
  v.push_back({std::string(name) + " inputs flushed only", mixed, false});
  lf::matrix_unit rz = preset;
  rz.final_rounding = lf::rounding::toward_zero;
  v.push_back({std::string(name) + " toward zero", rz, false});
  return v;
}

template <lf::format F>
void check_format(const lf::matrix_unit& preset, const char* preset_name, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200};
  long compared = 0, taken = 0;
  // The hardware path's cases that raised underflow, overflow, invalid: the data must reach them.
  const lf::status flag[3] = {lf::status::underflow, lf::status::overflow, lf::status::invalid};
  long reached[3] = {0, 0, 0};
  // 3 repetitions of each data set and length; one under AddressSanitizer (tests/support/sanitizer.hpp).
  for (const unit_case& u : units(preset, preset_name)) {
    for_each_case<F>(u.mu, u.name, g, data_sets(F), lengths, test_sanitizer::scaled(3, 3), general, [&](const bits& a, const bits& b, lf::bits_t c, const outcome& want) {
      ++compared;
      if (u.mu.final_rounding != lf::rounding::nearest_even) return;  // (the caller checks the rounding)
      const std::size_t n = a.size();
      std::uint32_t r = 0;
      lf::status st{};
      const bool fast = lf::detail::pairwise_f32_nearest<lf::format{}>(
          F, u.mu.block_size, u.mu.input_subnormals == lf::subnormal_handling::flush,
          u.mu.output_subnormals == lf::subnormal_handling::flush, lf::detail::span_get{a},
          lf::detail::span_get{b}, n, static_cast<std::uint32_t>(c), r, st);
      if (fast) {
        ++taken;
        CHECK(outcome{r, st} == want);
        for (int k = 0; k < 3; ++k) reached[k] += lf::has(want.st, flag[k]) ? 1 : 0;
      }
      {  // the kernel as the typed lf::dot instantiates it (typed getters on fp<F> arrays), compiled
         // here, at this test's optimization level: a program that uses the library header-only
         // compiles this, while the typed lf::dot above may come from libfloat::runtime
        const std::vector<lf::fp<F>> ta = typed_array<F>(a), tb = typed_array<F>(b);
        std::uint32_t tr = 0;
        lf::status tst{};
        const bool typed_fast = lf::detail::pairwise_f32_nearest<F>(
            F, u.mu.block_size, u.mu.input_subnormals == lf::subnormal_handling::flush,
            u.mu.output_subnormals == lf::subnormal_handling::flush,
            lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{ta.data()}),
            lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{tb.data()}), n,
            static_cast<std::uint32_t>(c), tr, tst);
        CHECK(typed_fast == fast);
        if (typed_fast) CHECK(outcome{tr, tst} == want);
      }
      // It must not decline for finite data on a unit it takes (or it proves nothing).
      bool finite = (c & 0x7F800000) != 0x7F800000;
      for (std::size_t i = 0; i < n; ++i)
        finite = finite && (a[i] & F.exponent_mask()) != F.exponent_mask() &&
                 (b[i] & F.exponent_mask()) != F.exponent_mask();
      if (lf::detail::dot_fast_built && u.fast && finite && n > 0) CHECK(fast);
      if (!u.fast) CHECK_FALSE(fast);
    });
  }
  MESSAGE(std::string(preset_name) << ": " << compared << " dot products compared, " << taken
                                    << " taken by the hardware path, of which " << reached[0] << " underflow, "
                                    << reached[1] << " overflow, " << reached[2] << " invalid");
  if (lf::detail::dot_fast_built) {
    CHECK(taken > compared / 4);
    // bfloat16 products leave binary32's range. Binary16 ones cannot (every partial sum is a
    // multiple of 2^-149 below 2^103 in magnitude, or c itself), so there these stay 0.
    if (F == lf::bfloat16) {
      CHECK(reached[0] > 0);
      CHECK(reached[1] > 0);
      CHECK(reached[2] > 0);
    }
  }
}

}  // namespace

/// Runs check(), named by the path, once per kernel: the program's own instruction set
/// (array_dispatch::portable) and the AVX2 build of the same code (array_dispatch::avx2, skipped
/// with a message on a CPU without it); the same seeds, so the same data, for each.
template <class Check>
void on_each_kernel(const Check& check) {
  for (const lf::array_dispatch path : {lf::array_dispatch::portable, lf::array_dispatch::avx2}) {
    const lf::array_dispatch before = lf::set_array_dispatch(path);
    const lf::array_dispatch in_use = lf::array_dispatch_in_use();
    if (in_use == path) {
      const std::string name = lf::array_dispatch_name(in_use);
      CAPTURE(name);
      MESSAGE("kernel: " << name);
      check();
    } else {
      MESSAGE("kernel " << lf::array_dispatch_name(path) << ": skipped, this CPU lacks it (not proven here)");
    }
    lf::set_array_dispatch(before);
  }
}

TEST_CASE("pairwise fast path: binary16 units give the general path's bits and flags") {
  on_each_kernel([] {
    check_format<lf::binary16>(lf::matrix_units::cdna1_pairwise_fp16, "cdna1_pairwise_fp16", 1);
    check_format<lf::binary16>(lf::matrix_units::cdna2_fp16, "cdna2_fp16", 2);
  });
}

TEST_CASE("pairwise fast path: bfloat16 units give the general path's bits and flags") {
  on_each_kernel([] {
    check_format<lf::bfloat16>(lf::matrix_units::cdna1_pairwise_bf16, "cdna1_pairwise_bf16", 3);
    check_format<lf::bfloat16>(lf::matrix_units::cdna2_bf16, "cdna2_bf16", 4);
  });
}

TEST_CASE("pairwise fast path: the flush cases the data must reach") {
  // A bfloat16 product that is a binary32 subnormal, exactly (-2^-70 * 2^-70 = -2^-140): cdna2
  // flushes it to -0 with underflow and inexact, and -0 + +0 is +0; cdna1 keeps it, exactly (no flag).
  const bits a{0x1C80 | 0x8000, 0x3F80}, b{0x1C80, 0x0000};  // -2^-70 * 2^-70, 1 * 0
  const outcome flushed = general(lf::matrix_units::cdna2_bf16, lf::bfloat16, a, b, 0);
  CHECK(flushed == outcome{0x00000000, lf::status::underflow | lf::status::inexact});
  const outcome kept = general(lf::matrix_units::cdna1_pairwise_bf16, lf::bfloat16, a, b, 0);
  CHECK(kept == outcome{0x80000000u | (1u << (149 - 140)), lf::status{}});
  for (const auto& mu : {lf::matrix_units::cdna2_bf16, lf::matrix_units::cdna1_pairwise_bf16}) {
    std::uint32_t r = 0;
    lf::status st{};
    REQUIRE(lf::detail::pairwise_f32_nearest<lf::format{}>(lf::bfloat16, mu.block_size,
                                                            mu.input_subnormals == lf::subnormal_handling::flush,
                                                            mu.output_subnormals == lf::subnormal_handling::flush,
                                                            lf::detail::span_get{a}, lf::detail::span_get{b}, 2, 0, r,
                                                            st) == lf::detail::dot_fast_built);
    if (lf::detail::dot_fast_built) CHECK(outcome{r, st} == general(mu, lf::bfloat16, a, b, 0));
  }
}

#if defined(LIBFLOAT_DOT_FAST_X86)
TEST_CASE("pairwise fast path: the caller's MXCSR decides, and is restored with its flags") {
  const lf::matrix_unit& mu = lf::matrix_units::cdna2_bf16;
  on_each_kernel([&] {
    check_mxcsr_decides(mu, general, [&](const bits& a, const bits& b, std::uint32_t& r, lf::status& st) {
      return lf::detail::pairwise_f32_nearest<lf::format{}>(lf::bfloat16, 4, true, true, lf::detail::span_get{a},
                                                             lf::detail::span_get{b}, a.size(), 0, r, st);
    });
  });
}
#endif
