// fast/late_dot.hpp: the hardware path of the late_accumulation matrix-unit model (the CDNA3
// binary16 and bfloat16 presets) against the general path it stands in for, a chain of
// detail::block_fma_general calls (detail::late_block: 128-bit integer sums, the core's round_pack):
// the same result bits and the same status.
//
// Units: cdna3_fp16, cdna3_bf16 and cdna3_fp8 (on E4M3FNUZ and on E5M2FNUZ), and each with other
// block sizes (4, 32, 3), alignment bits (F = 28, the path's bound), late_extra_bits (0, 16), with
// and without odd/even halves and a far c dropped (25 binades, 3, and 2 with F = 28); plus units it
// must decline (F = 29, toward-zero rounding, flushed outputs), which must still give the general
// path's result. Where the path takes a case, it must give the same with random bits above the
// encodings (ignored, as lf::unpack ignores them). Entries: detail::late_f32_nearest itself (it must not decline on finite
// data whose products stay below 2^126), also instantiated with the typed entry's getters and
// compiled in this test, the run-time-format lf::dot and the typed lf::dot; each with both kernels,
// the portable one and the AVX2 one where the CPU has it (for_every_kernel).
//
// Data, binary16, bfloat16 and the FNUZ FP8 formats: random encodings of every kind (infinities
// and NaNs: the path declines), finite values over the whole exponent range, narrow and wide
// exponents (FP8: every exponent field, the top one included, and its pairs that cancel), small
// products (so that c is often the larger: the late_extra_bits case), zero products whose
// exponents are above the nonzero ones (they must not count), subnormal inputs, pairs that
// cancel exactly, and for bfloat16 products at the bottom of binary32's range (subnormal results)
// and at its top (overflow, and products of 2^126 or more, which it declines); c: +-0, subnormals,
// +-2^-126, 1, -100, +-max finite, infinities, NaN and random encodings; lengths 0 to 200 around the
// block sizes. Then sums at the edges of the binade that file comment 7 predicts
// (unit_dot_cases::binade_edge). Then the caller MXCSR settings on which it must decline, and MXCSR
// restored.
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

/// The general path: the model's blocks one after another (detail::block_fma_general, which
/// takes a late_accumulation unit to detail::late_block: integer sums and the core's round_pack).
outcome general(const lf::matrix_unit& mu, const lf::format& f, const bits& a, const bits& b, lf::bits_t c) {
  return block_chain(mu, f, a, b, c, [](auto&&... args) { return lf::detail::block_fma_general(args...); });
}

/// The late test's data sets: the shared ones and four of its own.
std::vector<data_set> late_data_sets(const lf::format& f) {
  std::vector<data_set> v = data_sets(f);
  if (f.bits() == 8) {  // the FNUZ FP8 formats: exponent fields 0 to all ones, every one finite
    const int top = static_cast<int>(f.exponent_mask() >> f.fraction_bits());
    v.push_back({"every exponent field, the top one included", 1, 0, top, false});
    v.push_back({"small products", 1, 1, 3, false});
    v.push_back({"zero products above small ones", 2, 1, 3, false});
    v.push_back({"every exponent field, cancelling", 1, 0, top, true});
    return v;
  }
  v.push_back({"wide exponents", 1, f.bias() - 12, f.bias() + 12, false});
  v.push_back({"small products", 1, f.bias() - 9, f.bias() - 6, false});
  // kind 2 (make_operands): even positions the largest binade times a zero, whose e(a) + e(b)
  // = emax + emin is above every odd position's small product: a zero product must not set M.
  v.push_back({"zero products above small ones", 2, f.bias() - 6, f.bias() - 4, false});
  if (f == lf::bfloat16) {
    v.push_back({"products at binary32's top, wider", 1, 185, 190, false});
    v.push_back({"products at binary32's top, cancelling", 1, 185, 190, true});
  }
  return v;
}

/// The units: the preset and its variants; `fast` whether the path takes it.

std::vector<unit_case> units(const lf::matrix_unit& preset, const char* name) {
  unit_variants with{preset, name, {}};
  with("as is", true, [](lf::matrix_unit&) {});
  with("N=4", true, [](lf::matrix_unit& m) { m.block_size = 4; });
  with("N=32", true, [](lf::matrix_unit& m) { m.block_size = 32; });
  with("N=3", true, [](lf::matrix_unit& m) { m.block_size = 3; });
  with("F=28", true, [](lf::matrix_unit& m) { m.alignment_bits = 28; });
  with("X=0", true, [](lf::matrix_unit& m) { m.late_extra_bits = 0; });
  with("X=16 F=28 N=32", true, [](lf::matrix_unit& m) { m.late_extra_bits = 16, m.alignment_bits = 28, m.block_size = 32; });
  with("odd/even halves", true, [](lf::matrix_unit& m) { m.odd_even_halves = true; });
  with("no odd/even halves", true, [](lf::matrix_unit& m) { m.odd_even_halves = false; });
  with("c dropped below 25 binades", true, [](lf::matrix_unit& m) { m.late_c_drop = 25; });
  with("c never dropped", true, [](lf::matrix_unit& m) { m.late_c_drop = 0; });
  with("halves, c dropped below 3 binades", true, [](lf::matrix_unit& m) { m.odd_even_halves = true, m.late_c_drop = 3; });
  with("halves, F=28, c dropped below 2 binades", true, [](lf::matrix_unit& m) { m.odd_even_halves = true, m.alignment_bits = 28, m.late_c_drop = 2; });
  with("halves N=3", true, [](lf::matrix_unit& m) { m.odd_even_halves = true, m.block_size = 3; });
  with("F=29", false, [](lf::matrix_unit& m) { m.alignment_bits = 29; });
  with("toward zero", false, [](lf::matrix_unit& m) { m.final_rounding = lf::rounding::toward_zero; });
  with("outputs flushed", false, [](lf::matrix_unit& m) { m.output_subnormals = lf::subnormal_handling::flush; });
  return with.cases;
}

/// Whether the path must take these data on a unit it takes: c and every operand finite, and no
/// nonzero product with e(a) + e(b) >= 126 (file comment of fast/late_dot.hpp), from the fields.
bool must_take(const lf::format& f, const bits& a, const bits& b, lf::bits_t c) {
  if ((c & 0x7F800000) == 0x7F800000) return false;
  if (f.kind == lf::nonfinite::fnuz) {  // the one NaN, the sign bit alone; products stay far below 2^126
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] == f.sign_mask() || b[i] == f.sign_mask()) return false;
    return true;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto ea = static_cast<int>((a[i] & f.exponent_mask()) >> f.fraction_bits());
    const auto eb = static_cast<int>((b[i] & f.exponent_mask()) >> f.fraction_bits());
    const int top = static_cast<int>(f.exponent_mask() >> f.fraction_bits());
    if (ea == top || eb == top) return false;
    const bool zero = (a[i] & (f.sign_mask() - 1)) == 0 || (b[i] & (f.sign_mask() - 1)) == 0;
    if (!zero && (ea > 0 ? ea : 1) + (eb > 0 ? eb : 1) - 2 * f.bias() >= 126) return false;
  }
  return true;
}

/// Whether some block before the last gives an infinity (the general path, block by block).
bool overflow_before_last(const lf::matrix_unit& mu, const lf::format& f, const bits& a, const bits& b, lf::bits_t c) {
  lf::status st{};
  const lf::detail::operand oa{f, lf::detail::span_get{a}}, ob{f, lf::detail::span_get{b}};
  const std::size_t n = a.size(), N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s + N < n; s += N) {
    c = lf::detail::block_fma_general(mu, oa, ob, s, N, c, st);
    if ((c & 0x7FFFFFFF) == 0x7F800000) return true;
  }
  return false;
}

template <lf::format F>
void check_format(const lf::matrix_unit& preset, const char* preset_name, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 200};
  long compared = 0, taken = 0;
  // The hardware path's cases that raised underflow, overflow, inexact: the data must reach them.
  const lf::status flag[3] = {lf::status::underflow, lf::status::overflow, lf::status::inexact};
  long reached[3] = {0, 0, 0};
  // 2 repetitions of each data set and length; one under AddressSanitizer (tests/support/sanitizer.hpp).
  for (const unit_case& u : units(preset, preset_name)) {
    for_each_case<F>(u.mu, u.name, g, late_data_sets(F), lengths, test_sanitizer::scaled(2, 2), general, [&](const bits& a, const bits& b, lf::bits_t c, const outcome& want) {
      ++compared;
      const std::size_t n = a.size();
      std::uint32_t r = 0;
      lf::status st{};
      const bool fast = lf::detail::late_f32_nearest<lf::format{}>(u.mu, F, lf::detail::span_get{a}, lf::detail::span_get{b},
                                                                   n, static_cast<std::uint32_t>(c), r, st);
      if (fast) {
        ++taken;
        CHECK(outcome{r, st} == want);
        for (int k = 0; k < 3; ++k) reached[k] += lf::has(want.st, flag[k]) ? 1 : 0;
      }
      {  // Bits above the encodings are ignored (lf::unpack reads them so): the same with random ones.
        bits ha = a, hb = b;
        for (auto& x : ha) x |= g() << F.bits();
        for (auto& x : hb) x |= g() << F.bits();
        std::uint32_t hr = 0;
        lf::status hst{};
        const bool high_fast = lf::detail::late_f32_nearest<lf::format{}>(
            u.mu, F, lf::detail::span_get{ha}, lf::detail::span_get{hb}, n, static_cast<std::uint32_t>(c), hr, hst);
        CHECK(high_fast == fast);
        if (high_fast) CHECK(outcome{hr, hst} == want);
      }
      {  // the kernel as the typed lf::dot instantiates it, compiled here (a header-only program
         // compiles this; the typed lf::dot above may come from libfloat::runtime)
        const std::vector<lf::fp<F>> ta = typed_array<F>(a), tb = typed_array<F>(b);
        std::uint32_t tr = 0;
        lf::status tst{};
        const bool typed_fast = lf::detail::late_f32_nearest<F>(
            u.mu, F, lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{ta.data()}),
            lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{tb.data()}), n, static_cast<std::uint32_t>(c), tr,
            tst);
        CHECK(typed_fast == fast);
        if (typed_fast) CHECK(outcome{tr, tst} == want);
      }
      // It must not decline where it can run (or it proves nothing), nor run where it cannot; it
      // also declines when a block before the last overflows (overflow_before_last).
      if (lf::detail::dot_fast_built && u.fast)
        CHECK(fast == (must_take(F, a, b, c) && !overflow_before_last(u.mu, F, a, b, c)));
      if (!u.fast) CHECK_FALSE(fast);
    });
  }
  MESSAGE(std::string(preset_name) << ": " << compared << " dot products compared, " << taken
                                    << " taken by the hardware path, of which " << reached[0] << " underflow, "
                                    << reached[1] << " overflow, " << reached[2] << " inexact");
  if (lf::detail::dot_fast_built) {
    CHECK(taken > compared / 4);
    CHECK(reached[2] > 0);
    if (F == lf::bfloat16) {  // (binary16 products stay far inside binary32's range)
      CHECK(reached[0] > 0);
      CHECK(reached[1] > 0);
    }
  }
}

/// File comment 7: unit_dot_cases::binade_edge's sums at the edges of the binade that the AVX2
/// kernel's chain predicts (fast/binade_chain.hpp), on every variant the path takes, against the
/// general path. Returns the share of cases the path took.
template <lf::format F>
double check_binade_edges(const lf::matrix_unit& preset, const char* preset_name, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  long taken = 0, tried = 0;
  for (const unit_case& u : units(preset, preset_name)) {
    if (!u.fast) continue;
    for (int rep = 0; rep < test_sanitizer::scaled(1400, 7); ++rep) {
      const edge_case e = binade_edge<F>(u.mu.block_size, rep, g);
      ++tried;
      CAPTURE(u.name);
      CAPTURE(e.kind);
      CAPTURE(e.E);
      CAPTURE(e.c);
      const outcome want = general(u.mu, F, e.a, e.b, e.c);
      std::uint32_t r = 0;
      lf::status st{};
      if (lf::detail::late_f32_nearest<lf::format{}>(u.mu, F, lf::detail::span_get{e.a}, lf::detail::span_get{e.b},
                                                     e.a.size(), static_cast<std::uint32_t>(e.c), r, st)) {
        ++taken;
        CHECK(outcome{r, st} == want);
      }
      lf::status rst{};
      CHECK(outcome{lf::dot(u.mu, F, e.a, F, e.b, e.c, rst), rst} == want);
      CHECK(typed_dot<F>(u.mu, e.a, e.b, e.c) == want);
    }
  }
  return static_cast<double>(taken) / static_cast<double>(tried);
}

}  // namespace

TEST_CASE("late-accumulation fast path: binary16 units give the general path's bits and flags") {
  for_every_kernel([] { check_format<lf::binary16>(lf::matrix_units::cdna3_fp16, "cdna3_fp16", 1); });
}

TEST_CASE("late-accumulation fast path: bfloat16 units give the general path's bits and flags") {
  for_every_kernel([] { check_format<lf::bfloat16>(lf::matrix_units::cdna3_bf16, "cdna3_bf16", 2); });
}

TEST_CASE("late-accumulation fast path: FNUZ FP8 units (odd/even halves, a far c dropped) give the general path's bits and flags") {
  for_every_kernel([] {
    check_format<lf::float8_e4m3fnuz>(lf::matrix_units::cdna3_fp8, "cdna3_fp8", 5);
    lf::matrix_unit e5m2 = lf::matrix_units::cdna3_fp8;
    e5m2.input = lf::float8_e5m2fnuz;
    check_format<lf::float8_e5m2fnuz>(e5m2, "cdna3_fp8 on E5M2FNUZ", 6);
  });
}

TEST_CASE("late-accumulation fast path: sums at the edges of the predicted binade (file comment, 7)") {
  for_every_kernel([] {
    const double fp16 = check_binade_edges<lf::binary16>(lf::matrix_units::cdna3_fp16, "cdna3_fp16", 3);
    const double bf16 = check_binade_edges<lf::bfloat16>(lf::matrix_units::cdna3_bf16, "cdna3_bf16", 4);
    MESSAGE("taken by the hardware path: binary16 " << fp16 << ", bfloat16 " << bf16);
    if (lf::detail::dot_fast_built) {  // (it declines for products that could reach 2^128: E = 127)
      CHECK(fp16 > 0.9);
      CHECK(bf16 > 0.9);
    }
  });
}

#if defined(LIBFLOAT_DOT_FAST_X86)
TEST_CASE("late-accumulation fast path: the caller's MXCSR decides, and is restored with its flags") {
  const lf::matrix_unit& mu = lf::matrix_units::cdna3_bf16;
  for (const lf::array_dispatch d : {lf::array_dispatch::portable, lf::array_dispatch::avx2}) {
    const lf::array_dispatch prev = lf::set_array_dispatch(d);
    check_mxcsr_decides(mu, general, [&](const bits& a, const bits& b, std::uint32_t& r, lf::status& st) {
      return lf::detail::late_f32_nearest<lf::format{}>(mu, lf::bfloat16, lf::detail::span_get{a},
                                                         lf::detail::span_get{b}, a.size(), 0, r, st);
    });
    lf::set_array_dispatch(prev);
  }
}
#endif
