// fast/exact_block_dot.hpp: the hardware path of the block-FMA model with exact alignment (the
// CDNA1 binary16 and bfloat16 presets as MATLAB-tensor-core models them) against the general path
// it stands in for, a chain of detail::block_fma_general calls (detail::exact_window_block: 128-bit
// integer sums, the core's round_pack): the same result bits and the same status.
//
// Units: cdna1_fp16 (N = 4) and cdna1_bf16 (N = 2), and each with block sizes 1, 3, 8 and 16; plus
// units it must decline (N = 17, toward-zero rounding, flushed inputs or outputs, 22 kept fraction
// bits, truncating alignment), which must still give the general path's result. Entries:
// detail::exact_block_f32_nearest itself (it must not decline with the default MXCSR), also
// instantiated with the typed entry's getters and compiled in this test, the run-time-format
// lf::dot and the typed lf::dot.
//
// Data, binary16 and bfloat16: the shared sets of unit_dot_cases.hpp (every kind of encoding:
// infinities and NaNs go to the general path block by block; finite values over the whole
// exponent range, whose wide blocks go there too; narrow exponents; exact cancellation; subnormal
// inputs; for bfloat16 products at the bottom and the top of binary32's range) and start values
// (+-0, subnormals, +-2^-126, 1, -100, +-max finite, infinities, NaN, random), lengths 0 to 200.
// Then sums whose binary64 rounding lands on a binary32 midpoint while the exact sum lies just
// beside it (normal range, both formats; bfloat16 also on binary32's subnormal grid), where a
// plain conversion of the binary64 sum rounds the wrong way: the path must correct them (file
// comment, 4). Then sums at the edges of the binade that file comment 7 predicts (check_binade_edges).
// Then the caller MXCSR settings on which it must decline, and MXCSR restored.
#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"
#include "unit_dot_cases.hpp"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace unit_dot_cases;

/// The general path: the model's blocks one after another (detail::block_fma_general).
outcome general(const lf::matrix_unit& mu, const lf::format& f, const bits& a, const bits& b, lf::bits_t c) {
  return block_chain(mu, f, a, b, c, [](auto&&... args) { return lf::detail::block_fma_general(args...); });
}

/// The shared data sets and two of this test's: zeros of both signs only (a short last block of -0
/// products, with c = -0, gives -0: the padding of file comment 2 must keep it), and specials among
/// narrow exponents.
std::vector<data_set> exact_data_sets(const lf::format& f) {
  std::vector<data_set> v = data_sets(f);
  v.push_back({"signed zeros", 3, 0, 0, false});
  // (an infinity or a NaN among products of narrow exponents: a group of the AVX2 kernel whose
  // exponents alone would let it through)
  v.push_back({"narrow exponents with infinities and NaNs", 4, f.bias() - 3, f.bias() + 3, false});
  return v;
}

std::vector<unit_case> units(const lf::matrix_unit& preset, const char* name) {
  unit_variants with{preset, name, {}};
  with("as is", true, [](lf::matrix_unit&) {});
  with("N=1", true, [](lf::matrix_unit& m) { m.block_size = 1; });
  with("N=3", true, [](lf::matrix_unit& m) { m.block_size = 3; });
  with("N=8", true, [](lf::matrix_unit& m) { m.block_size = 8; });
  with("N=16", true, [](lf::matrix_unit& m) { m.block_size = 16; });
  with("N=17", false, [](lf::matrix_unit& m) { m.block_size = 17; });
  with("toward zero", false, [](lf::matrix_unit& m) { m.final_rounding = lf::rounding::toward_zero; });
  with("inputs flushed", false, [](lf::matrix_unit& m) { m.input_subnormals = lf::subnormal_handling::flush; });
  with("outputs flushed", false, [](lf::matrix_unit& m) { m.output_subnormals = lf::subnormal_handling::flush; });
  with("22 kept fraction bits", false, [](lf::matrix_unit& m) { m.output_fraction_bits = 22; });
  with("truncated alignment", false, [](lf::matrix_unit& m) { m.alignment = lf::alignment_rounding::truncate; });
  return with.cases;
}

/// The path on (a, b, c), through detail::exact_block_f32_nearest with the run-time getters and
/// with the typed entry's (compiled here: a header-only program compiles this; the typed lf::dot
/// may come from libfloat::runtime); both must agree on whether they run and on the outcome.
template <lf::format F>
bool run_path(const lf::matrix_unit& mu, const bits& a, const bits& b, lf::bits_t c, outcome& got) {
  const std::size_t n = a.size();
  std::uint32_t r = 0;
  lf::status st{};
  const bool fast = lf::detail::exact_block_f32_nearest<lf::format{}>(
      mu, F, lf::detail::span_get{a}, lf::detail::span_get{b}, n, static_cast<std::uint32_t>(c), r, st);
  const std::vector<lf::fp<F>> ta = typed_array<F>(a), tb = typed_array<F>(b);
  std::uint32_t tr = 0;
  lf::status tst{};
  const bool typed_fast = lf::detail::exact_block_f32_nearest<F>(
      mu, F, lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{ta.data()}),
      lf::detail::make_typed_get<F>(lf::detail::fp_array_get<F>{tb.data()}), n, static_cast<std::uint32_t>(c), tr, tst);
  CHECK(typed_fast == fast);
  if (fast && typed_fast) CHECK(outcome{tr, tst} == outcome{r, st});
  got = {r, st};
  return fast;
}

template <lf::format F>
void check_format(const lf::matrix_unit& preset, const char* preset_name, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 200};
  long compared = 0, taken = 0;
  const lf::status flag[4] = {lf::status::underflow, lf::status::overflow, lf::status::inexact, lf::status::invalid};
  long reached[4] = {0, 0, 0, 0};
  for (const unit_case& u : units(preset, preset_name)) {
    for_each_case<F>(u.mu, u.name, g, exact_data_sets(F), lengths, test_sanitizer::scaled(2, 1), general,
                     [&](const bits& a, const bits& b, lf::bits_t c, const outcome& want) {
                       ++compared;
                       outcome got{};
                       const bool fast = run_path<F>(u.mu, a, b, c, got);
                       if (fast) {
                         ++taken;
                         CHECK(got == want);
                         for (int k = 0; k < 4; ++k) reached[k] += lf::has(want.st, flag[k]) ? 1 : 0;
                       }
                       // It runs on every unit it takes (the default MXCSR here), whatever the data.
                       CHECK(fast == (lf::detail::dot_fast_built && u.fast));
                     });
  }
  MESSAGE(std::string(preset_name) << ": " << compared << " dot products compared, " << taken
                                    << " taken by the hardware path, of which " << reached[0] << " underflow, "
                                    << reached[1] << " overflow, " << reached[2] << " inexact, " << reached[3]
                                    << " invalid");
  if (lf::detail::dot_fast_built) {
    CHECK(taken > compared / 3);
    CHECK(reached[2] > 0);
    CHECK(reached[3] > 0);
    if (F == lf::bfloat16) {  // (binary16 products stay far inside binary32's range)
      CHECK(reached[0] > 0);
      CHECK(reached[1] > 0);
    }
  }
}

/// An encoding of F for +-2^k (normal in F), or with a random odd fraction when `odd`.
template <lf::format F>
lf::bits_t power(int k, bool negative, bool odd, std::mt19937_64& g) {
  const lf::bits_t field = static_cast<lf::bits_t>(k + F.bias()) << F.fraction_bits();
  const lf::bits_t frac = odd ? ((g() & F.fraction_mask()) | 1) : 0;
  return (negative ? F.sign_mask() : 0) | field | frac;
}

/// The value of a finite encoding x of F (binary16 or bfloat16), decoded here from its fields.
template <lf::format F>
double value(lf::bits_t x) {
  const int fb = F.fraction_bits(), bias = F.bias();
  const auto field = static_cast<int>((x & F.exponent_mask()) >> fb);
  const auto frac = static_cast<double>(x & F.fraction_mask());
  const double v = field == 0 ? std::ldexp(frac, 1 - bias - fb) : std::ldexp(frac + std::ldexp(1.0, fb), field - bias - fb);
  return (x & F.sign_mask()) != 0 ? -v : v;
}

/// Cases whose exact sum x lies beside a binary32 midpoint m, closer than half of binary64's spacing
/// there: binary64's nearest value is m itself, and converting it rounds to the wrong side as often
/// as not. One block each: c, then a product m - c (half a binary32 step of c's grid, c's sign), then
/// a tiny product of either sign. `tiny_grid`: c below 2^-126, where binary32's step is 2^-149
/// (bfloat16 only: binary16 products are multiples of 2^-48 and cannot reach that range with c).
/// Returns how often the plain conversion of binary64's sum differed from the model's result.
template <lf::format F>
double check_midpoints(const lf::matrix_unit& mu, bool tiny_grid, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  long cases = 0, naive_wrong = 0;
  for (int rep = 0; rep < 4000; ++rep) {
    const bool neg = (g() & 1) != 0, below = (g() & 1) != 0;
    std::uint32_t c;
    int half_step;  // the exponent of half a binary32 step at c
    if (tiny_grid) {
      c = static_cast<std::uint32_t>(0x00400000u | (g() & 0x3FFFFFu));  // in [2^-127, 2^-126)
      half_step = -150;
    } else {
      const int ec = F == lf::binary16 ? 6 + static_cast<int>(g() % 10) : -100 + static_cast<int>(g() % 200);
      c = static_cast<std::uint32_t>((ec + 127) << 23) | static_cast<std::uint32_t>(g() & 0x7FFFFFu);
      half_step = ec - 24;
    }
    c |= neg ? 0x80000000u : 0;
    // the exact sum's tiny part: below a quarter of binary64's spacing at m (2^(e(m) - 52)), within
    // the span the path takes (file comment, 2), a random odd multiple of its last bit
    bits a, b;
    if constexpr (F == lf::binary16) {
      const int ec = half_step + 24;
      // m - c = 2^(ec - 24) = 2^(ec - 10) * 2^-14; the tiny part k 2^-48 (two subnormals), k < 2^(ec - 6)
      a.push_back(power<F>(ec - 10, neg, false, g));
      b.push_back(power<F>(-14, false, false, g));
      const auto k = static_cast<lf::bits_t>((g() % (std::uint64_t{1} << (ec - 6))) | 1);
      a.push_back((neg != below ? F.sign_mask() : 0) | k);
      b.push_back(1);  // 2^-24
    } else {
      // m - c = 2^half_step (as 2^(half_step / 2) squared, or times 1); the tiny part a product
      // 2^q * odd, 2^(q + 1) below 2^(e(m) - 54) and q >= half_step - 36 (the span)
      const int em = tiny_grid ? -127 : half_step + 24;
      if (half_step >= -126) {
        a.push_back(power<F>(half_step, neg, false, g));
        b.push_back(power<F>(0, false, false, g));
      } else {
        a.push_back(power<F>(half_step / 2, neg, false, g));
        b.push_back(power<F>(half_step - half_step / 2, false, false, g));
      }
      const int q = em - 55 - static_cast<int>(g() % 3);
      a.push_back(power<F>(q / 2, neg != below, true, g));
      b.push_back(power<F>(q - q / 2, false, false, g));
    }
    // zero products to 8 (one group of the AVX2 kernel; the blocks after the first add +-0)
    for (std::size_t i = a.size(); i < 8; ++i) {
      a.push_back(0);
      b.push_back(0);
    }
    // binary64's sum, converted: what the path would give without the correction
    double sum = static_cast<double>(std::bit_cast<float>(c));
    {
      double p = 0;
      for (std::size_t i = 0; i < a.size(); ++i) p += value<F>(a[i]) * value<F>(b[i]);  // exact: within 53 bits
      sum += p;
    }
    const outcome want = general(mu, F, a, b, c);
    const auto naive = std::bit_cast<std::uint32_t>(static_cast<float>(sum));
    naive_wrong += naive != want.r ? 1 : 0;
    ++cases;
    CAPTURE(c);
    CAPTURE(a);
    CAPTURE(b);
    outcome got{};
    if (run_path<F>(mu, a, b, c, got)) CHECK(got == want);
    lf::status rst{};
    CHECK(outcome{lf::dot(mu, F, a, F, b, c, rst), rst} == want);
    CHECK(typed_dot<F>(mu, a, b, c) == want);
  }
  return static_cast<double>(naive_wrong) / static_cast<double>(cases);
}

/// Blocks at the span bound of file comment 2 (binary16, N = 4: 29): three products of 2047 2^-9
/// squared (alignment exponents 2, their sum 12570627 2^-18, 24 bits) and a fourth, k j 2^-47 (k
/// and j odd) or 2^-48, of either sign (its alignment exponent -27 or -28: a span of 29 or 30); c puts
/// c + the three on a binary32 midpoint. At 29 the binary64 sum is exact and the path computes it;
/// at 30 it could lose the fourth product's last bit, with which the exact sum is off the midpoint,
/// so the block is the general path's. Returns how often binary64's sum of the four in the path's
/// tree order, plus c and converted, differed from the model's result (at span 30 it must, often).
double check_span_bound(int span, std::uint64_t seed) {
  const lf::matrix_unit& mu = lf::matrix_units::cdna1_fp16;
  std::mt19937_64 g(seed);
  long cases = 0, naive_wrong = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    const lf::bits_t neg = (g() & 1) ? 0x8000 : 0, tiny_sign = (g() & 1) ? 0x8000 : 0;
    // (at span 30, k = 1: half of binary64's last place at the sum, lost to the tie rule)
    const lf::bits_t k = span == 30 ? 1 : (g() % 1024) | 1;
    bits a{0x43FF | neg, 0x43FF | neg, 0x43FF | neg, k | tiny_sign};
    bits b{0x43FF, 0x43FF, 0x43FF, span == 29 ? 0x0800 | ((g() & 0x3FF) | 1) : 1};  // 2^-13 (odd fraction) or 2^-24
    a.resize(8, 0);  // a second block of +0 products: one group of the AVX2 kernel
    b.resize(8, 0);
    // c = m 2^-17, c + 12570627 2^-18 in [64, 128): an odd multiple of 2^-18 there, a midpoint
    const auto m = static_cast<std::uint64_t>(17 << 17) + g() % (62u << 17);
    const float cf = static_cast<float>(std::ldexp(static_cast<double>(m), -17));  // exact: at most 24 bits
    const lf::bits_t c = std::bit_cast<std::uint32_t>(neg ? -cf : cf);
    const double p0 = value<lf::binary16>(a[0]) * value<lf::binary16>(b[0]);
    const double p3 = value<lf::binary16>(a[3]) * value<lf::binary16>(b[3]);
    const double P = (p0 + p0) + (p0 + p3);
    const auto naive = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<double>(neg ? -cf : cf) + P));
    const outcome want = general(mu, lf::binary16, a, b, c);
    naive_wrong += naive != want.r ? 1 : 0;
    ++cases;
    CAPTURE(span);
    CAPTURE(k);
    CAPTURE(c);
    outcome got{};
    if (run_path<lf::binary16>(mu, a, b, c, got)) CHECK(got == want);
    lf::status rst{};
    CHECK(outcome{lf::dot(mu, lf::binary16, a, lf::binary16, b, c, rst), rst} == want);
  }
  return static_cast<double>(naive_wrong) / static_cast<double>(cases);
}

/// check_binade_edges (file comment 7, unit_dot_cases::binade_edge): the path against the general
/// path and, where the edge block's sum x = c + P is a binary32 value (kinds 0, 1, 5 and 6: computed
/// here in binary64, exactly), the model's result after it: x, without inexact. Returns how many
/// cases had such an exact sum off binade E's step (kind 1; 5 and 6 when the small product is finer).
template <lf::format F>
long check_binade_edges(const lf::matrix_unit& mu, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  long off_step = 0;
  for (int rep = 0; rep < 3000; ++rep) {
    const edge_case e = binade_edge<F>(mu.block_size, rep, g);
    CAPTURE(e.kind);
    CAPTURE(e.E);
    CAPTURE(e.c);
    CAPTURE(e.a);
    CAPTURE(e.b);
    double x = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(e.c)));
    for (std::size_t i = 0; i < e.prefix; ++i) x += value<F>(e.a[i]) * value<F>(e.b[i]);  // (exact: at most 30 bits)
    if (e.kind != 2 && e.kind != 3 && e.kind != 4 && static_cast<double>(static_cast<float>(x)) == x &&
        std::fabs(x) >= 0x1p-126) {
      const bits pa(e.a.begin(), e.a.begin() + static_cast<std::ptrdiff_t>(e.prefix));
      const bits pb(e.b.begin(), e.b.begin() + static_cast<std::ptrdiff_t>(e.prefix));
      const outcome want = general(mu, F, pa, pb, e.c);
      CHECK(want.r == std::bit_cast<std::uint32_t>(static_cast<float>(x)));
      CHECK(!lf::has(want.st, lf::status::inexact));
      if (std::fmod(x, std::ldexp(1.0, e.E - 23)) != 0) ++off_step;
    }
    const outcome want = general(mu, F, e.a, e.b, e.c);
    outcome got{};
    if (run_path<F>(mu, e.a, e.b, e.c, got)) CHECK(got == want);
    lf::status rst{};
    CHECK(outcome{lf::dot(mu, F, e.a, F, e.b, e.c, rst), rst} == want);
    CHECK(typed_dot<F>(mu, e.a, e.b, e.c) == want);
  }
  return off_step;
}

}  // namespace

TEST_CASE("exact-block fast path: binary16 units give the general path's bits and flags") {
  for_every_kernel([] { check_format<lf::binary16>(lf::matrix_units::cdna1_fp16, "cdna1_fp16", 1); });
}

TEST_CASE("exact-block fast path: bfloat16 units give the general path's bits and flags") {
  for_every_kernel([] { check_format<lf::bfloat16>(lf::matrix_units::cdna1_bf16, "cdna1_bf16", 2); });
}

TEST_CASE("exact-block fast path: blocks at the bound of the products' span") {
  for_every_kernel([] {
    const double at = check_span_bound(29, 6), beyond = check_span_bound(30, 7);
    MESSAGE("binary64 tree sum wrong in: span 29 " << at << ", span 30 " << beyond);
    CHECK(at == 0.0);  // (exact: file comment, 2)
    CHECK(beyond > 0.25);
  });
}

TEST_CASE("exact-block fast path: binary64 sums on a binary32 midpoint are rounded as the exact sum") {
  // The data must be ones a plain conversion gets wrong, or the correction is not tested.
  for_every_kernel([] {
    const double fp16 = check_midpoints<lf::binary16>(lf::matrix_units::cdna1_fp16, false, 3);
    const double bf16 = check_midpoints<lf::bfloat16>(lf::matrix_units::cdna1_bf16, false, 4);
    const double tiny = check_midpoints<lf::bfloat16>(lf::matrix_units::cdna1_bf16, true, 5);
    MESSAGE("plain conversion wrong in: binary16 " << fp16 << ", bfloat16 " << bf16 << ", bfloat16 below 2^-126 "
                                                   << tiny);
    CHECK(fp16 > 0.25);
    CHECK(bf16 > 0.25);
    CHECK(tiny > 0.25);
  });
}

TEST_CASE("exact-block fast path: sums at the edges of the predicted binade (file comment, 7)") {
  for_every_kernel([] {
    const long fp16 = check_binade_edges<lf::binary16>(lf::matrix_units::cdna1_fp16, 8);
    const long bf16 = check_binade_edges<lf::bfloat16>(lf::matrix_units::cdna1_bf16, 9);
    lf::matrix_unit one = lf::matrix_units::cdna1_bf16;
    one.block_size = 1;
    const long bf16_1 = check_binade_edges<lf::bfloat16>(one, 10);
    MESSAGE("exact sums off the predicted binade's step: binary16 " << fp16 << ", bfloat16 " << bf16
                                                                   << ", bfloat16 N = 1 " << bf16_1);
    CHECK(fp16 > 100);
    CHECK(bf16 > 100);
    CHECK(bf16_1 > 50);
  });
}

#if defined(LIBFLOAT_DOT_FAST_X86)
TEST_CASE("exact-block fast path: the caller's MXCSR decides, and is restored with its flags") {
  const lf::matrix_unit& mu = lf::matrix_units::cdna1_bf16;
  for (const lf::array_dispatch d : {lf::array_dispatch::portable, lf::array_dispatch::avx2}) {
    const lf::array_dispatch prev = lf::set_array_dispatch(d);
    check_mxcsr_decides(mu, general, [&](const bits& a, const bits& b, std::uint32_t& r, lf::status& st) {
      return lf::detail::exact_block_f32_nearest<lf::format{}>(mu, lf::bfloat16, lf::detail::span_get{a},
                                                                lf::detail::span_get{b}, a.size(), 0, r, st);
    });
    lf::set_array_dispatch(prev);
  }
}
#endif
