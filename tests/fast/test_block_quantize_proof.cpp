// The proof of fast/block_quantize.hpp: on its whole domain, lf::fast::mx_element_rne gives the core's
// code and flags.
//
// Domain: every finite binary32 x (2^32 minus the NaNs and infinities), through the one-element
// function and through the run kernel on each path the CPU has (portable, AVX2, AVX-512; element by element,
// with each element's flags, and the ORed flags), for each element format the kernel serves (E4M3, E5M2, FP6 E3M2, FP6 E2M3, FP4 E2M1) and each scale exponent k in {0, -127, 127}.
// The kernel depends on k only through E = e(x) - k, so these three cover every E that an E8M0 scale
// (2^-127 .. 2^127) can give, -276 .. 254. The reference is the core: lf::convert(F, binary64, x * 2^-k)
// (the quotient is exact in binary64) under nearest even with the policy mx_quantize uses by default
// (tininess after rounding, subnormals kept, saturating overflow). Bits and flags are compared.
// The test also runs lf::mx_quantize through the public entry point on random data and compares it
// with the core's element loop (the same quantizer with the kernel turned off).
//
// Environment (single-threaded; ctest runs shards in parallel): the chunk c is the top 16 bits of x.
//   LIBFLOAT_EXHAUSTIVE_SHARDS, LIBFLOAT_EXHAUSTIVE_SHARD, LIBFLOAT_PROOF_PART: as in
//   tests/fast/proof_selection.hpp, with a rotation of 32 parts (32 consecutive days cover everything).
#include <libfloat/fast/block_quantize.hpp>
#include <libfloat/models/block_scale.hpp>

#include <doctest/doctest.h>

#include "proof_selection.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int n_parts = 32;
constexpr lf::format formats[] = {lf::float8_e4m3fn, lf::float8_e5m2, lf::float6_e3m2fn, lf::float6_e2m3fn,
                                  lf::float4_e2m1fn};
constexpr int scale_exponents[] = {0, -127, 127};

const lf::env saturating{lf::rounding::nearest_even,
                         lf::policy{lf::tininess::after_rounding, {}, {}, lf::overflow_policy::saturate}};

// The kernel's paths: portable always; AVX2 and AVX-512 where the CPU has them (otherwise said to be
// skipped).
std::vector<lf::array_dispatch> proof_paths(const char* kernel) {
  std::vector<lf::array_dispatch> paths{lf::array_dispatch::portable};
  if (lf::detail::cpu().avx2_f16c)
    paths.push_back(lf::array_dispatch::avx2);
  else
    std::printf("block_quantize proof: the AVX2 %s kernel is SKIPPED (this CPU has no AVX2): not proven here\n", kernel);
  if (lf::detail::cpu().avx512)
    paths.push_back(lf::array_dispatch::avx512);
  else
    std::printf("block_quantize proof: the AVX-512 %s kernel is SKIPPED (this CPU has no AVX-512): not proven here\n",
                kernel);
  return paths;
}

}  // namespace

TEST_CASE("mx_element_rne and the run kernel on each path equal the core on every finite binary32") {
  const proof::selection sel = proof::select_chunks();
  std::printf("block_quantize proof: shard %zu of %zu, %s; %s\n", sel.shard, sel.shards, sel.part_text(n_parts).c_str(),
              sel.how.c_str());
  const std::vector<lf::array_dispatch> paths = proof_paths("run");
  std::uint64_t checked = 0, mismatches = 0;
  std::string first;
  std::vector<float> xs(65536);
  std::vector<std::uint8_t> codes(65536), flags(65536);
  auto note = [&](const char* who, const lf::format& f, std::uint32_t xb, int k, unsigned got, unsigned got_st,
                  unsigned long long want, unsigned want_st) {
    if (mismatches++ == 0) {
      char buf[240];
      std::snprintf(buf, sizeof buf, "%s %s x=0x%08x k=%d: 0x%02x flags %02x, core 0x%02llx flags %02x", who,
                    lf::format_name(f).c_str(), xb, k, got, got_st, want, want_st);
      first = buf;
    }
  };
  for (std::uint32_t c = 0; c < 65536; ++c) {
    if (!sel.selected(c, n_parts)) continue;
    for (std::uint32_t lo = 0; lo < 65536; ++lo) {
      std::uint32_t xb = (c << 16) | lo;
      if ((xb & 0x7F800000u) == 0x7F800000u) xb = 0;  // NaN, infinity: not in the domain (a zero instead)
      xs[lo] = std::bit_cast<float>(xb);
    }
    for (const lf::format& f : formats) {
      const lf::fast::mx_element_params p = lf::fast::mx_params(f);
      for (const int k : scale_exponents) {
        std::vector<std::uint8_t> want_code(65536), want_flags(65536);
        for (std::uint32_t lo = 0; lo < 65536; ++lo) {
          const std::uint32_t xb = std::bit_cast<std::uint32_t>(xs[lo]);
          const double y = std::ldexp(static_cast<double>(xs[lo]), -k);
          lf::status want_st{};
          const lf::bits_t want = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(y), saturating, want_st);
          want_code[lo] = static_cast<std::uint8_t>(want);
          want_flags[lo] = lf::to_bits(want_st);
          std::uint32_t got_st = 0;
          const std::uint32_t got = lf::fast::mx_element_rne(xb, k, p, got_st);
          ++checked;
          if (got != want || got_st != lf::to_bits(want_st)) note("scalar", f, xb, k, got, got_st, want, lf::to_bits(want_st));
        }
        for (const lf::array_dispatch path : paths) {
          const lf::array_dispatch before = lf::set_array_dispatch(path);
          // in runs of 61 (not a multiple of 8: tails take the portable code, groups the vector code)
          std::uint32_t ored = 0, want_or = 0;
          for (std::size_t b = 0; b < 65536; b += 61) {
            const std::size_t len = std::min<std::size_t>(61, 65536 - b);
            ored |= lf::fast::mx_elements_rne(xs.data() + b, codes.data() + b, len, k, p, flags.data() + b);
          }
          lf::set_array_dispatch(before);
          for (std::uint32_t lo = 0; lo < 65536; ++lo) {
            want_or |= want_flags[lo];
            ++checked;
            if (codes[lo] != want_code[lo] || flags[lo] != want_flags[lo])
              note(lf::array_dispatch_name(path), f, std::bit_cast<std::uint32_t>(xs[lo]), k, codes[lo], flags[lo],
                   want_code[lo], want_flags[lo]);
          }
          if (ored != want_or) note("ORed flags", f, c << 16, k, 0, ored, 0, want_or);
        }
      }
    }
  }
  std::printf("block_quantize proof: %llu comparisons (scalar and %zu run paths), %llu mismatches\n",
              static_cast<unsigned long long>(checked), paths.size(), static_cast<unsigned long long>(mismatches));
  INFO(first);
  CHECK(mismatches == 0);
  CHECK(checked > 0);
}

TEST_CASE("mx_e2m1_rne_div (NVFP4 elements) and the E4M3 scale table equal the core on every finite binary32") {
  const proof::selection sel = proof::select_chunks();
  // d = S * T: an E4M3 scale times a binary32 tensor scale (28 significant bits at most), from the
  // ends of the range and with a full 24-bit T.
  const double divisors[] = {1.0, 448.0 * 0x1.fffffep+3, 0x1p-9 * 0x1p-140, 1.625 * 0x1.234567p-20, 448.0 * 0x1p120};
  std::uint64_t checked = 0, mismatches = 0;
  std::string first;
  std::vector<float> xs(65536);
  std::vector<std::uint8_t> codes(65536), flags(65536), want(65536), want_flags(65536);
  // NVFP4's tensor scales T (the block scale divides amax by 6 * T): 1, a full 24-bit significand, an
  // odd one, the smallest and the largest binary32.
  const double tensor_scales[] = {1.0, 0x1.fffffep+3, 0x1.234567p-20, 0x1p-149, 0x1.fffffep+127};
  std::uint64_t scale_checked = 0, scale_fallback = 0, codes_checked = 0;
  const std::vector<lf::array_dispatch> paths = proof_paths("e2m1 division");
  for (std::uint32_t c = 0; c < 65536; ++c) {
    if (!sel.selected(c, n_parts)) continue;
    for (std::uint32_t lo = 0; lo < 65536; ++lo) {
      std::uint32_t xb = (c << 16) | lo;
      if ((xb & 0x7F800000u) == 0x7F800000u) xb = 0;  // NaN, infinity: not in the domain
      xs[lo] = std::bit_cast<float>(xb);
    }
    for (const double d : divisors) {
      REQUIRE(lf::fast::mx_e2m1_divisor_ok(d));
      for (std::uint32_t lo = 0; lo < 65536; ++lo) {
        lf::status st{};
        want[lo] = static_cast<std::uint8_t>(
            lf::detail::divide_into(lf::float4_e2m1fn, static_cast<double>(xs[lo]), d, saturating, st));
        want_flags[lo] = static_cast<std::uint8_t>(lf::to_bits(st));
      }
      for (const lf::array_dispatch path : paths) {
        const lf::array_dispatch before = lf::set_array_dispatch(path);
        const std::uint32_t ored = lf::fast::mx_e2m1_rne_div(xs.data(), codes.data(), 65536, d, flags.data());
        lf::set_array_dispatch(before);
        std::uint32_t want_or = 0;
        for (std::uint32_t lo = 0; lo < 65536; ++lo) {
          want_or |= want_flags[lo];
          ++checked;
          if (codes[lo] != want[lo] || flags[lo] != want_flags[lo]) {
            if (mismatches++ == 0) {
              char buf[200];
              std::snprintf(buf, sizeof buf, "e2m1 %s x=0x%08x d=%a: 0x%x flags %02x, core 0x%x flags %02x",
                            lf::array_dispatch_name(path), std::bit_cast<std::uint32_t>(xs[lo]), d, codes[lo], flags[lo],
                            want[lo], want_flags[lo]);
              first = buf;
            }
          }
        }
        if (ored != want_or) ++mismatches;
      }
    }
    // NVFP4's block scale: every positive finite binary32 amax of the chunk, for denominators 6 * T.
    if (c >= 0x7F80u) continue;  // negative, infinite or NaN amax: not in the domain
    std::vector<double> amaxes(65536);
    std::vector<std::uint32_t> amax_bits(65536);
    std::vector<std::uint8_t> vector_codes(65536), vector_inexact(65536);
    for (std::uint32_t lo = 0; lo < 65536; ++lo) {
      amaxes[lo] = static_cast<double>(xs[lo]);
      amax_bits[lo] = std::bit_cast<std::uint32_t>(xs[lo]);
    }
    for (const double T : tensor_scales) {
      const double d = 6.0 * T;
      REQUIRE(lf::fast::e4m3_scale_table::ok(d));
      const lf::fast::e4m3_scale_table table(d);
      // codes() (all of the chunk at once, from the binary32 bits, on the lanes of each path the CPU
      // has) gives code()'s result and inexact for every amax, 0xFF where code() gives -1 (zeros
      // included), and its summary is what they add up to
      for (const lf::array_dispatch path : paths) {
        const lf::array_dispatch before = lf::set_array_dispatch(path);
        const lf::fast::e4m3_scale_table::summary sum =
            table.codes(amax_bits.data(), vector_codes.data(), 65536, vector_inexact.data());
        lf::set_array_dispatch(before);
        bool any_left = false, any_inexact = false;
        for (std::uint32_t lo = 0; lo < 65536; ++lo) {
          bool inexact = false;
          const int code = table.code(amaxes[lo], inexact);
          const int want_code = code < 0 ? 0xFF : code;
          const int want_inexact = code >= 0 && inexact ? 1 : 0;
          any_left |= code < 0;
          any_inexact |= want_inexact != 0;
          ++codes_checked;
          if ((vector_codes[lo] != want_code || vector_inexact[lo] != want_inexact) && mismatches++ == 0) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "e4m3 scale codes() %s amax=%a d=%a: 0x%x inexact %d, code() 0x%x inexact %d",
                          lf::array_dispatch_name(path), amaxes[lo], d, vector_codes[lo], vector_inexact[lo], want_code,
                          want_inexact);
            first = buf;
          }
        }
        if ((sum.left != any_left || sum.inexact != any_inexact) && mismatches++ == 0)
          first = std::string("e4m3 scale codes() summary on ") + lf::array_dispatch_name(path);
      }
      for (std::uint32_t lo = 0; lo < 65536; ++lo) {
        const double amax = static_cast<double>(xs[lo]);
        if (!(amax > 0)) continue;
        bool inexact = false;
        const int code = table.code(amax, inexact);
        ++scale_checked;
        if (code < 0) {
          ++scale_fallback;
          continue;
        }
        lf::status st{};
        const lf::bits_t core = lf::detail::divide_into(lf::float8_e4m3fn, amax, d, saturating, st);
        const lf::status fast_st = inexact ? lf::status::inexact : lf::status{};
        if (static_cast<lf::bits_t>(code) != core || fast_st != st) {
          if (mismatches++ == 0) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "e4m3 scale amax=%a d=%a: 0x%x inexact %d, core 0x%llx flags %02x", amax, d,
                          code, inexact ? 1 : 0, static_cast<unsigned long long>(core), lf::to_bits(st));
            first = buf;
          }
        }
      }
    }
  }
  std::printf("block_quantize proof (e2m1 divisions): %llu comparisons on %zu paths; e4m3 scales: %llu amax x T, "
              "%llu left to the core (outside [2^-6, 448) or a midpoint), codes() against code() %llu times; "
              "%llu mismatches\n",
              static_cast<unsigned long long>(checked), paths.size(), static_cast<unsigned long long>(scale_checked),
              static_cast<unsigned long long>(scale_fallback), static_cast<unsigned long long>(codes_checked),
              static_cast<unsigned long long>(mismatches));
  INFO(first);
  CHECK(mismatches == 0);
  CHECK(checked > 0);
}

TEST_CASE("mx_quantize takes the kernel: the same codes and flags as the core's element loop") {
  // The default env (nearest even, saturating) takes the kernel for power-of-two scales; the reference
  // is the same quantizer with the kernel turned off (its last argument), the core's element loop.
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> expo(-40, 40);
  std::vector<float> x(64 * 96);
  for (float& v : x) {
    const double m = std::exp2(expo(gen));
    v = static_cast<float>((gen() & 1) ? -m : m);
  }
  for (std::size_t i = 0; i < x.size(); i += 97) x[i] = 0.0f;
  x[5] = std::numeric_limits<float>::infinity();  // a NaN block
  x[700] = 1e-40f;                                 // a binary32 subnormal (the vector kernels' fallback)
  // NaN blocks inside rows, between blocks that NVFP4's row kernel (mx_e2m1_rne_div_runs) takes
  for (const std::size_t i : {1000, 1011, 2500, 4100, 5555}) x[i] = std::numeric_limits<float>::quiet_NaN();
  // For the MX formats, blocks that mx_blocks_e8m0 (the MX row kernel) leaves to the general code,
  // between blocks it takes (in the 64 x 96 shape: row 3's blocks 0-2, row 4's blocks 0-1): all zero;
  // all binary32 subnormals; largest magnitude in [2^-125, 2^-124) (scale exponent -127 for FP4 and
  // FP6 E2M3, in E8M0's range; below it for the others); largest exactly 2^-126 (below it for every
  // format); and a block near binary32's largest (scale exponents 127 - emax_elem, elements
  // saturating or not). NVFP4 keeps the data above: that block would set its tensor scale so high
  // that every other block's scale underflows to the same code.
  const std::vector<float> x_nvfp4 = x;
  std::uniform_int_distribution<std::uint32_t> frac(0, 0x7FFFFF);
  auto with_field = [&](std::uint32_t field) {  // random sign and fraction, binary32 exponent field `field`
    return std::bit_cast<float>(static_cast<std::uint32_t>(gen() & 1) << 31 | field << 23 | frac(gen));
  };
  for (std::size_t i = 288; i < 320; ++i) x[i] = 0.0f;
  for (std::size_t i = 320; i < 352; ++i) x[i] = with_field(0);
  for (std::size_t i = 352; i < 384; ++i) x[i] = with_field(static_cast<std::uint32_t>(2 - i % 3));  // 2^-125, 2^-126, subnormal
  for (std::size_t i = 384; i < 416; ++i) x[i] = i == 390 ? 0x1p-126f : with_field(0);
  for (std::size_t i = 416; i < 448; ++i) x[i] = with_field(static_cast<std::uint32_t>(254 - i % 4));
  // (64 x 96: whole blocks; 9 x 100: runs cut short at the end of a row, 7 or 4 elements; 12 x 176:
  // 11 NVFP4 blocks a row; 5 x 560: 35, two groups of 16 for the AVX-512 row maxima and 3 more)
  const std::pair<std::size_t, std::size_t> shapes[] = {{64, 96}, {9, 100}, {12, 176}, {5, 560}};
  for (const lf::array_dispatch path : proof_paths("mx_quantize"))
  for (const auto& [rows, cols] : shapes)
  for (const lf::block_format& bf : {lf::mxfp8_e4m3, lf::mxfp8_e5m2, lf::mxfp6_e3m2, lf::mxfp6_e2m3, lf::mxfp4, lf::nvfp4})
    for (const lf::block_layout layout : {lf::block_layout::rows_1d, lf::block_layout::tiles_2d}) {
      CAPTURE(bf.name);
      CAPTURE(static_cast<int>(layout));
      CAPTURE(cols);
      CAPTURE(lf::array_dispatch_name(path));
      const std::span<const float> xs((bf.rule == lf::scale_rule::nvfp4 ? x_nvfp4 : x).data(), rows * cols);
      const lf::array_dispatch before = lf::set_array_dispatch(path);
      const lf::block_quantized fast = lf::mx_quantize(xs, rows, cols, bf, saturating, layout);
      lf::block_quantized again;
      lf::mx_quantize_into(xs, rows, cols, bf, again, saturating, layout);  // into a reused one below too
      lf::mx_quantize_into(xs, rows, cols, bf, again, saturating, layout);
      lf::set_array_dispatch(before);
      lf::block_quantized slow = lf::detail::mx_quantize_with(xs, rows, cols, bf, saturating, layout,
                                                              [](std::size_t) { return std::uint32_t{0}; }, false);
      CHECK(fast.scales == slow.scales);
      CHECK(fast.elements == slow.elements);
      CHECK(fast.flags == slow.flags);
      CHECK(fast.tensor_scale == slow.tensor_scale);
      if (bf.rule == lf::scale_rule::nvfp4) {
        // (independently: the largest finite magnitude, NaN and infinite elements skipped, over
        // 6 * 448 in one binary32 division, IEEE hardware)
        float finite_amax = 0;
        for (const float v : xs)
          if (std::isfinite(v)) finite_amax = std::max(finite_amax, std::fabs(v));
        CHECK(fast.tensor_scale == finite_amax / 2688.0f);
      }
      // into a reused block_quantized: the same
      CHECK(again.elements == fast.elements);
      CHECK(again.scales == fast.scales);
      CHECK(again.flags == fast.flags);
    }
}

TEST_CASE("mx_quantize's flags from the MX row kernel's blocks alone") {
  // Rows of two whole blocks that fast::mx_blocks_e8m0 takes (normal largest magnitudes, scales in
  // E8M0's range), so each flag below can only come from it: elements that are powers of two from 1
  // to 8 (exact in every MX element format once divided by the scale 2^(3 - emax_elem)); the same with
  // one element 2^-30 (below every format's smallest subnormal after the division: underflow and
  // inexact); the same with one element 15.9 (the scale is still 2^(3 - emax_elem), and 15.9 / scale
  // lies above every format's largest finite value: overflow and inexact, saturated).
  std::mt19937_64 gen(23);
  for (const lf::array_dispatch path : proof_paths("mx_blocks_e8m0"))
    for (const lf::block_format& bf : {lf::mxfp8_e4m3, lf::mxfp8_e5m2, lf::mxfp6_e3m2, lf::mxfp6_e2m3, lf::mxfp4})
      for (int kind = 0; kind < 3; ++kind) {
        CAPTURE(bf.name);
        CAPTURE(kind);
        CAPTURE(lf::array_dispatch_name(path));
        std::vector<float> x(64);
        for (float& v : x) v = std::ldexp((gen() & 1) ? -1.0f : 1.0f, static_cast<int>(gen() % 4));
        x[3] = 8.0f;
        x[35] = -8.0f;
        if (kind == 1) x[40] = 0x1p-30f;
        if (kind == 2) x[40] = 15.9f;
        const lf::array_dispatch before = lf::set_array_dispatch(path);
        const lf::block_quantized fast = lf::mx_quantize(x, 1, 64, bf, saturating, lf::block_layout::rows_1d);
        lf::set_array_dispatch(before);
        const lf::block_quantized slow = lf::detail::mx_quantize_with(
            x, 1, 64, bf, saturating, lf::block_layout::rows_1d, [](std::size_t) { return std::uint32_t{0}; }, false);
        CHECK(fast.elements == slow.elements);
        CHECK(fast.scales == slow.scales);
        CHECK(fast.flags == slow.flags);
        // (the data does what it is meant to: the flags expected of each kind)
        const lf::status expected = kind == 0 ? lf::status{}
                                    : kind == 1 ? lf::status::underflow | lf::status::inexact
                                                : lf::status::overflow | lf::status::inexact;
        CHECK(slow.flags == expected);
      }
}

TEST_CASE("e4m3_scale_table::codes leaves NaN, infinite, zero, tiny and huge amax to the core") {
  // (binary32 magnitudes' bits, as mx_amax_runs gives them: a NaN's and an infinity's included)
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 0.0f,
                            1.0f, 3.0f, 448.0f * 6.0f, 0x1p-6f * 6.0f, 0x1p-149f, std::numeric_limits<float>::max()};
  std::vector<std::uint32_t> amax;
  for (int i = 0; i < 3; ++i)  // 27: lanes and a tail
    for (const float v : specials) amax.push_back(std::bit_cast<std::uint32_t>(v));
  const lf::fast::e4m3_scale_table table(6.0);
  for (const lf::array_dispatch path : proof_paths("e4m3 scale codes")) {
    CAPTURE(lf::array_dispatch_name(path));
    std::vector<std::uint8_t> got(amax.size()), got_inexact(amax.size());
    const lf::array_dispatch before = lf::set_array_dispatch(path);
    const lf::fast::e4m3_scale_table::summary sum = table.codes(amax.data(), got.data(), amax.size(), got_inexact.data());
    lf::set_array_dispatch(before);
    CHECK(sum.left);
    CHECK(sum.inexact);  // (1 / 6)
    for (std::size_t i = 0; i < amax.size(); ++i) {
      const double a = static_cast<double>(std::bit_cast<float>(amax[i]));
      CAPTURE(a);
      bool inexact = false;
      const int code = table.code(a, inexact);
      CHECK(got[i] == (code < 0 ? 0xFF : code));
      CHECK(got_inexact[i] == (code >= 0 && inexact ? 1 : 0));
      // (by hand: 1 / 6 and 3 / 6 = 0.5 are E4M3 values only for 0.5; 448 * 6 / 6 = 448 is max finite,
      // outside [2^-6, 448); 2^-6 is the smallest normal, inside; 2^-149 / 6 far below it)
      if (!(a > 0) || std::isinf(a) || a == 448.0 * 6.0 || a == 0x1p-149 || a > 448.0 * 6.0) CHECK(got[i] == 0xFF);
      if (a == 1.0) CHECK((got[i] == 0x23 && got_inexact[i] == 1));  // 1/6 = 1.333 * 2^-3 -> 1.375 * 2^-3: field 4, fraction 3
      if (a == 3.0) CHECK((got[i] == 0x30 && got_inexact[i] == 0));  // 0.5: exponent field 6, fraction 0, exact
      if (a == 0x1p-6 * 6.0) CHECK((got[i] == 0x08 && got_inexact[i] == 0));  // 2^-6: exponent field 1, exact
    }
  }
}

TEST_CASE("NVFP4's tensor scale counts the finite elements of blocks that hold a NaN or an infinity") {
  // 2 x 48, blocks of 16: the largest finite magnitude (1000) sits in a block with a NaN, the next
  // (3) in a block with an infinity, the rest are at most 1; T = 1000 / (6 * 448) in one binary32
  // division (IEEE hardware), on each path.
  std::vector<float> x(96, 0.5f);
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[2] = -1000.0f;
  x[50] = std::numeric_limits<float>::infinity();
  x[51] = 3.0f;
  for (const lf::array_dispatch path : proof_paths("nvfp4 tensor scale"))
    for (const lf::block_layout layout : {lf::block_layout::rows_1d, lf::block_layout::tiles_2d}) {
      CAPTURE(lf::array_dispatch_name(path));
      const lf::array_dispatch before = lf::set_array_dispatch(path);
      const lf::block_quantized q = lf::mx_quantize(x, 2, 48, lf::nvfp4, saturating, layout);
      lf::set_array_dispatch(before);
      CHECK(q.tensor_scale == 1000.0f / 2688.0f);
    }
}

TEST_CASE("NVFP4's rows: whole rows of table-served scales, and rows that mix them with others") {
  // 24 rows of 256 (16 blocks) and of 264 (a short block of 8 at the end of each row), magnitudes in
  // [2^-4, 2^4) and one 2^5 (the tensor's largest, in row 0): every other block's scale quotient
  // amax / (6 T) = 448 amax / 2^5 then lies in [2^-6, 448), where the scale table serves it (the
  // largest block's is 448, max finite, which it leaves). Rows 3, 7, 11, ... mix in blocks it leaves:
  // one scaled by 2^-24 (its scale an E4M3 subnormal or zero), and in rows 7, 15, 23 a NaN block.
  // Each path, against the core-only quantizer, new and reused storage.
  std::mt19937_64 gen(41);
  std::uniform_int_distribution<std::uint32_t> frac(0, 0x7FFFFF), field(123, 130);
  for (const std::size_t cols : {std::size_t{256}, std::size_t{264}}) {
    const std::size_t rows = 24;
    std::vector<float> x(rows * cols);
    for (float& v : x) v = std::bit_cast<float>(static_cast<std::uint32_t>(gen() & 1) << 31 | field(gen) << 23 | frac(gen));
    x[21] = -32.0f;
    for (std::size_t r = 3; r < rows; r += 4) {
      const std::size_t blk = (r * 5) % (cols / 16);
      for (std::size_t j = 0; j < 16; ++j) x[r * cols + blk * 16 + j] *= 0x1p-24f;
      if (r % 8 == 7) x[r * cols + ((blk + 3) % (cols / 16)) * 16 + 5] = std::numeric_limits<float>::quiet_NaN();
    }
    // (the data does what it is meant to: a row is whole when every whole block's quotient lies well
    // inside [2^-6, 448), by plain binary64 arithmetic with margins of 2x: row 0 and the six above mix)
    double tensor_amax = 0;
    for (const float v : x)
      if (std::isfinite(v)) tensor_amax = std::max(tensor_amax, std::fabs(static_cast<double>(v)));
    std::size_t mixed_rows = 0, whole_rows = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      bool all_inside = true;
      for (std::size_t blk = 0; blk < cols / 16; ++blk) {
        double m = 0;
        for (std::size_t j = 0; j < 16; ++j) m = std::max(m, std::fabs(static_cast<double>(x[r * cols + blk * 16 + j])));
        const double quotient = m / tensor_amax * 448.0;
        all_inside &= std::isfinite(quotient) && quotient > 0x1p-5 && quotient < 224.0;
      }
      (all_inside ? whole_rows : mixed_rows) += 1;
    }
    CHECK(mixed_rows == 7);
    CHECK(whole_rows == 17);
    const lf::block_quantized slow = lf::detail::mx_quantize_with(x, rows, cols, lf::nvfp4, saturating, lf::block_layout::rows_1d,
                                                                  [](std::size_t) { return std::uint32_t{0}; }, false);
    for (const lf::array_dispatch path : proof_paths("nvfp4 rows")) {
      CAPTURE(lf::array_dispatch_name(path));
      CAPTURE(cols);
      const lf::array_dispatch before = lf::set_array_dispatch(path);
      const lf::block_quantized fast = lf::mx_quantize(x, rows, cols, lf::nvfp4, saturating);
      lf::block_quantized again;
      lf::mx_quantize_into(x, rows, cols, lf::nvfp4, again, saturating);
      lf::mx_quantize_into(x, rows, cols, lf::nvfp4, again, saturating);
      lf::set_array_dispatch(before);
      CHECK(fast.scales == slow.scales);
      CHECK(fast.elements == slow.elements);
      CHECK(fast.flags == slow.flags);
      CHECK(again.scales == slow.scales);
      CHECK(again.elements == slow.elements);
      CHECK(again.flags == slow.flags);
    }
  }
}
