// fast/matrix_block.hpp's block-FMA path (detail::block_chain_fast: one decode per operand, 64-bit
// terms) against the general path it stands in for (detail::block_chain_general: unpack(), 128-bit
// terms, round_shift per term): the same result bits and the same status on random data, for every
// preset and variants (input and output subnormal flush, floor alignment, nearest-even final
// rounding, block sizes 4/8/16/32, N = 4 at alignment widths on either side of the bound of the two
// blocks per vector of 32-bit lanes, other kept widths), every input format the fast path takes, chain
// lengths 0, 1, around and between the block sizes and past one DeepSeek promotion interval (128).
// Three ways into the fast path are checked: the typed lf::dot, the run-time-format lf::dot
// (named-format dispatch) and block_chain_fast itself (which takes no fallback by dispatch, only
// per special or all-zero block). All of it runs once per implementation of the fast chain, each
// forced with lf::set_array_dispatch: the portable blocks and the AVX2 blocks (skipped, with a
// message, on a CPU without AVX2), three seeds each. Data wider than a unit's operand format (binary32 everywhere,
// fp16 on the FP8 units, ...) is converted to mu.input under input_rounding first (matrix_unit.hpp,
// "Input conversion"), so the reference converts it the same way, each operand once, before the
// general path; the units include tf32 units converting nearest even or upward and fp16 / FP8
// ones truncating.
//
// The data: random encodings of every kind (subnormals, zeros of both signs, NaN, infinity, 0 * inf),
// exponents spread over the whole range (so terms are truncated entirely) or narrow, exact
// cancellation (a, -a pairs), products near the top of the range (overflow) and the bottom (results
// below binary32's subnormals), the widest terms (every significand all ones, one sign: the largest
// block sums, which the AVX2 blocks' 32-bit lanes must hold where they take them), and products and
// c near the edges of binary32's normal range (sums that cross into its subnormals or overflow);
// c: +-0, subnormal, normal, max finite, infinity, NaN.
//
// The general path is itself checked against an independent cpp_int model in test_matrix_unit.cpp;
// the tensor-core test vectors there now run through the fast path too.
#include <libfloat/models/matrix_unit.hpp>

#include <doctest/doctest.h>

#include "../support/sanitizer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace {

using u64 = std::uint64_t;
using bits = std::vector<lf::bits_t>;

/// One random encoding of f, drawn by `kind`:
///   0 any encoding (specials at their natural rate), 1 finite, fields in [lo, hi],
///   2 finite with at most one in 64 a special or zero.
u64 draw(const lf::format& f, std::mt19937_64& g, int kind, int lo, int hi) {
  const u64 sign = (g() & 1) ? f.sign_mask() : 0;
  if (kind == 0) return g() & f.encoding_mask();
  if (kind == 2 && g() % 64 == 0) {
    switch (g() % 4) {
      case 0: return sign;                                    // zero
      case 1: return sign | f.infinity_bits();                // infinity (E4M3: NaN)
      case 2: return f.default_nan_bits() & ~f.sign_mask();   // quiet NaN
      default: return f.has_signaling_nan() ? (f.exponent_mask() | 1) : sign;  // signaling NaN
    }
  }
  std::uniform_int_distribution<int> field(lo, hi);
  u64 e = static_cast<u64>(field(g));
  u64 m = g() & f.fraction_mask();
  // nan_only formats: S.1..1.1..1 is the NaN; keep kind 1 finite.
  if (f.kind == lf::nonfinite::nan_only && e == f.exponent_field_max() && m == f.fraction_mask()) m -= 1;
  return sign | (e << f.fraction_bits()) | m;
}

struct data_set {
  std::string name;
  bits a, b;
  std::optional<u64> c;  ///< c for this set (else drawn from c_values)
};

/// Data sets of length n for formats fa, fb.
std::vector<data_set> data_sets(const lf::format& fa, const lf::format& fb, std::size_t n, std::mt19937_64& g) {
  const int ta = static_cast<int>(fa.exponent_field_max()), tb = static_cast<int>(fb.exponent_field_max());
  const int fa_top = fa.kind == lf::nonfinite::ieee ? ta - 1 : ta, fb_top = fb.kind == lf::nonfinite::ieee ? tb - 1 : tb;
  auto make = [&](std::string name, int kind, int alo, int ahi, int blo, int bhi) {
    data_set d{std::move(name), bits(n), bits(n), std::nullopt};
    for (std::size_t i = 0; i < n; ++i) {
      d.a[i] = draw(fa, g, kind, alo, ahi);
      d.b[i] = draw(fb, g, kind, blo, bhi);
    }
    return d;
  };
  std::vector<data_set> sets;
  sets.push_back(make("any encoding", 0, 0, 0, 0, 0));
  sets.push_back(make("finite, whole range", 1, 0, fa_top, 0, fb_top));
  sets.push_back(make("finite, narrow", 1, fa.bias() - 3, fa.bias() + 2, fb.bias() - 3, fb.bias() + 2));
  sets.push_back(make("subnormal and tiny", 1, 0, 2, 0, 2));
  sets.push_back(make("largest", 1, fa_top - 2, fa_top, fb_top - 2, fb_top));
  sets.push_back(make("rare specials and zeros", 2, fa.bias() - 6, fa.bias() + 6, fb.bias() - 6, fb.bias() + 6));
  {
    // Exact cancellation: term 2k+1 = -(term 2k), with a few odd terms left over.
    data_set d = make("cancellation", 1, 0, fa_top, 0, fb_top);
    for (std::size_t i = 1; i < n; i += 2) {
      if (g() % 8 == 0) continue;
      d.a[i] = d.a[i - 1];
      d.b[i] = d.b[i - 1] ^ fb.sign_mask();
    }
    sets.push_back(std::move(d));
  }
  {
    // Zeros of both signs, a few subnormal products: zero sums and their signs.
    data_set d = make("zeros", 1, 0, 0, 0, 1);
    for (std::size_t i = 0; i < n; ++i)
      if (g() % 4 != 0) d.a[i] &= fa.sign_mask();
    sets.push_back(std::move(d));
  }
  // Products and c near the edges of binary32's normal range (for the formats whose products reach
  // them: bfloat16, tf32, binary32 data): running sums that cross into binary32's subnormals
  // (results there are rounded at the subnormal grid, and a normal one may round up to 2^-126) or
  // overflow, and come back; c of the same size, either sign.
  auto edge = [&](std::string name, int target) {
    const auto field_of = [](const lf::format& f, int e) {
      return std::clamp(e + f.bias(), 1, static_cast<int>(f.exponent_field_max()) - 1);
    };
    data_set d{std::move(name), bits(n), bits(n), std::nullopt};
    for (std::size_t i = 0; i < n; ++i) {
      const int eb = static_cast<int>(g() % 5) - 2;
      const int ea = target - eb - static_cast<int>(g() % 4);
      d.a[i] = draw(fa, g, 1, field_of(fa, ea), field_of(fa, ea));
      d.b[i] = draw(fb, g, 1, field_of(fb, eb), field_of(fb, eb));
    }
    d.c = draw(lf::binary32, g, 1, field_of(lf::binary32, target - 1), field_of(lf::binary32, target + 1));
    return d;
  };
  // The widest terms: every significand all ones at one exponent, every product of one sign; the
  // largest block sums, which the fast path's 32-bit lanes (short_blocks' narrow case) must hold.
  for (const bool negative : {false, true}) {
    data_set d{negative ? "widest terms, negative" : "widest terms", bits(n), bits(n), std::nullopt};
    for (std::size_t i = 0; i < n; ++i) {
      d.a[i] = (static_cast<u64>(fa.bias()) << fa.fraction_bits()) | fa.fraction_mask() | (negative ? fa.sign_mask() : 0);
      d.b[i] = (static_cast<u64>(fb.bias()) << fb.fraction_bits()) | fb.fraction_mask();
    }
    sets.push_back(std::move(d));
  }
  // Blocks that round to 24 bits on a tie or above it just below 2^24: c = 2^24 - 1 (or - 2), the
  // first block's products 0.25 + 0.25 (or 0.25 + 0.5) and pairs that cancel exactly (every operand
  // normal, so the fast chain takes the block itself), the rest likewise. With c = 2^24 - 1 the sum
  // 2^24 - 0.5 (a tie, odd last bit) or 2^24 - 0.25 rounds up into the next binade (nearest even:
  // a carry out of the kept bits); with 2^24 - 2 the tie 2^24 - 1.5 stays at the even 2^24 - 2.
  const auto pow2 = [](const lf::format& f, int e) {
    return static_cast<u64>(e + f.bias()) << f.fraction_bits();
  };
  for (const auto& [cname, cbits, second] : {std::tuple{"tie below 2^24, odd: carry", u64{0x4B7FFFFF}, -2},
                                             std::tuple{"above half below 2^24: carry", u64{0x4B7FFFFF}, -1},
                                             std::tuple{"tie below 2^24, even: no carry", u64{0x4B7FFFFE}, -2}}) {
    for (const bool negative : {false, true}) {
      data_set d{std::string(cname) + (negative ? ", negative" : ""), bits(n), bits(n),
                 cbits | (negative ? lf::binary32.sign_mask() : 0)};
      const u64 sa = negative ? fa.sign_mask() : 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i % 2 == 0 && i + 1 < n && i % 8 != 0) {  // a pair that cancels
          d.a[i] = d.a[i + 1] = draw(fa, g, 1, fa.bias(), fa.bias());
          d.b[i] = draw(fb, g, 1, fb.bias(), fb.bias());
          d.b[i + 1] = d.b[i] ^ fb.sign_mask();
          ++i;
        } else {  // 0.25, then 0.25 or 0.5
          d.a[i] = pow2(fa, 0) | sa;
          d.b[i] = pow2(fb, i % 8 == 0 ? -2 : second);
        }
      }
      sets.push_back(std::move(d));
    }
  }
  sets.push_back(edge("near binary32's smallest normal", lf::binary32.emin()));
  sets.push_back(edge("near binary32's largest", lf::binary32.emax() - 1));
  return sets;
}

/// c values (binary32 encodings).
std::vector<u64> c_values(std::mt19937_64& g) {
  const lf::format f = lf::binary32;
  return {0,
          f.sign_mask(),                                // -0
          1,                                            // smallest subnormal
          f.sign_mask() | (g() & f.fraction_mask()),    // negative subnormal
          0x3F800000,                                   // 1
          draw(f, g, 1, 100, 150),                      // a normal value
          draw(f, g, 1, 1, 254),                        // any normal value
          f.max_finite_bits(),
          f.sign_mask() | f.max_finite_bits(),
          f.infinity_bits(),
          f.default_nan_bits(),
          0x7F800001};                                  // signaling NaN
}

/// The units: every block-FMA and FP8-promotion preset, and variants of each.
std::vector<std::pair<std::string, lf::matrix_unit>> units() {
  std::vector<std::pair<std::string, lf::matrix_unit>> out;
  for (const auto& p : lf::matrix_unit_presets) {
    // (the CUDA-core chain and the pairwise tree have no block FMA; exact alignment and the late
    // accumulation take the general path)
    if (p.unit.model == lf::matrix_unit_model::cuda_core_fma || p.unit.model == lf::matrix_unit_model::pairwise_tree ||
        p.unit.model == lf::matrix_unit_model::late_accumulation || p.unit.alignment == lf::alignment_rounding::exact)
      continue;
    out.emplace_back(std::string(p.name), p.unit);
  }
  auto variant = [&](const char* base, const char* what, auto change) {
    lf::matrix_unit u = *lf::matrix_unit_by_name(base);
    change(u);
    out.emplace_back(std::string(base) + " " + what, u);
  };
  using lf::subnormal_handling;
  variant("volta_fp16", "flush inputs", [](lf::matrix_unit& u) { u.input_subnormals = subnormal_handling::flush; });
  variant("ampere_bf16", "flush outputs", [](lf::matrix_unit& u) { u.output_subnormals = subnormal_handling::flush; });
  variant("hopper_fp8", "flush both", [](lf::matrix_unit& u) {
    u.input_subnormals = u.output_subnormals = subnormal_handling::flush;
  });
  variant("ampere_fp16", "floor", [](lf::matrix_unit& u) { u.alignment = lf::alignment_rounding::floor; });
  variant("hopper_fp8", "floor", [](lf::matrix_unit& u) { u.alignment = lf::alignment_rounding::floor; });
  variant("hopper_fp16", "nearest even", [](lf::matrix_unit& u) { u.final_rounding = lf::rounding::nearest_even; });
  variant("hopper_fp16", "upward, 20 bits kept", [](lf::matrix_unit& u) {
    u.final_rounding = lf::rounding::upward;
    u.output_fraction_bits = 20;
  });
  variant("ampere_tf32", "inputs nearest even", [](lf::matrix_unit& u) { u.input_rounding = lf::rounding::nearest_even; });
  variant("hopper_tf32", "inputs upward", [](lf::matrix_unit& u) { u.input_rounding = lf::rounding::upward; });
  variant("hopper_fp16", "inputs truncated", [](lf::matrix_unit& u) { u.input_rounding = lf::rounding::toward_zero; });
  variant("hopper_fp8", "inputs truncated", [](lf::matrix_unit& u) { u.input_rounding = lf::rounding::toward_zero; });
  variant("ampere_tf32", "N = 16, F = 0", [](lf::matrix_unit& u) {
    u.block_size = 16;
    u.alignment_bits = 0;
  });
  // N = 4 on 32-bit lanes, two blocks per vector (short_pairs), with nearest even and at the lanes'
  // bound (pa + pb + L + 2 = 31 at F = 27); one bit past it, N = 4 on 64-bit lanes.
  variant("volta_fp16", "nearest even", [](lf::matrix_unit& u) { u.final_rounding = lf::rounding::nearest_even; });
  variant("volta_fp16", "F = 27", [](lf::matrix_unit& u) { u.alignment_bits = 27; });
  variant("volta_fp16", "F = 28", [](lf::matrix_unit& u) { u.alignment_bits = 28; });
  variant("volta_fp16", "N = 32, F = 48", [](lf::matrix_unit& u) {
    u.block_size = 32;
    u.alignment_bits = 48;
  });
  // Block sizes and widths that no preset has, so the short chain's loop for any N takes them: 64-bit
  // lanes for N = 8 (pa + pb + L + 3 = 32 at F = 27) and N = 16, and N = 12; and 13 bits kept from
  // fp16 inputs (the kept width at run time).
  variant("blackwell_rn_tf32", "F = 27", [](lf::matrix_unit& u) { u.alignment_bits = 27; });
  variant("blackwell_fp8", "N = 16", [](lf::matrix_unit& u) { u.block_size = 16; });
  variant("hopper_fp16", "N = 12", [](lf::matrix_unit& u) { u.block_size = 12; });
  variant("ada_fp16", "13 bits kept", [](lf::matrix_unit& u) { u.output_fraction_bits = 13; });
  variant("hopper_fp8", "N = 8, floor, downward", [](lf::matrix_unit& u) {
    u.block_size = 8;
    u.alignment = lf::alignment_rounding::floor;
    u.final_rounding = lf::rounding::downward;
  });
  variant("blackwell_fp8", "N = 16, flush inputs", [](lf::matrix_unit& u) {
    u.block_size = 16;
    u.input_subnormals = subnormal_handling::flush;
  });
  variant("deepseek_fp8_promote128", "floor, interval 40", [](lf::matrix_unit& u) {
    u.alignment = lf::alignment_rounding::floor;
    u.promotion_interval = 40;
  });
  // Outside the fast path (the dispatch must leave these to the general code): exact alignment, N > 32.
  variant("ampere_fp16", "exact", [](lf::matrix_unit& u) { u.alignment = lf::alignment_rounding::exact; });
  variant("hopper_fp8", "N = 64", [](lf::matrix_unit& u) { u.block_size = 64; });
  return out;
}

template <class A, class B>
lf::bits_t reference_signed(const lf::matrix_unit& mu, const lf::detail::operand<A>& a, const lf::detail::operand<B>& b,
                            std::size_t n, lf::bits_t c, lf::status& st) {
  if (mu.model == lf::matrix_unit_model::block_fma) return lf::detail::block_chain_general(mu, a, b, 0, n, c, st);
  // fp8_promotion (file comment of matrix_unit.hpp): a chain from +0 per interval, added to c.
  const auto P = static_cast<std::size_t>(mu.promotion_interval);
  const lf::env e = lf::detail::unit_env(mu, lf::rounding::nearest_even);
  for (std::size_t s = 0; s < n; s += P) {
    const lf::bits_t partial = lf::detail::block_chain_general(mu, a, b, s, n - s < P ? n - s : P, 0, st);
    c = lf::add(mu.output, c, partial, e, st);
  }
  return c;
}

/// The same with the unit's zero rule (matrix_unit::positive_zero: every zero result +0).
template <class A, class B>
lf::bits_t reference(const lf::matrix_unit& mu, const lf::detail::operand<A>& a, const lf::detail::operand<B>& b,
                     std::size_t n, lf::bits_t c, lf::status& st) {
  const lf::bits_t r = reference_signed(mu, a, b, n, c, st);
  return mu.positive_zero && (r & ~mu.output.sign_mask()) == 0 ? lf::bits_t{0} : r;
}

template <lf::format F>
std::vector<lf::fp<F>> typed(const bits& v) {
  std::vector<lf::fp<F>> out;
  for (u64 x : v) out.push_back(lf::fp<F>::from_bits(static_cast<typename lf::fp<F>::storage_type>(x)));
  return out;
}

struct counts {
  long checked = 0, fast_direct = 0;
};

template <lf::format FA, lf::format FB>
void check_pair(std::mt19937_64& g, counts& n_checked) {
  static constexpr std::size_t lengths[] = {0, 1, 2, 3, 5, 8, 31, 33, 130};
  const auto all_units = units();
  const auto cs = c_values(g);
  for (const auto& [uname, mu] : all_units) {
    REQUIRE(mu.valid());
    for (std::size_t n : lengths) {
      for (const auto& d : data_sets(FA, FB, n, g)) {
        const u64 drawn_c = cs[g() % cs.size()];
        const u64 c = d.c.value_or(drawn_c);
        CAPTURE(uname);
        CAPTURE(lf::format_name(FA));
        CAPTURE(lf::format_name(FB));
        CAPTURE(n);
        CAPTURE(d.name);
        CAPTURE(c);
        // Data wider than the unit's operand format (binary32 on every unit, tf32 on fp16 and bf16
        // units, fp16 and bf16 on FP8 units; test_matrix_unit.cpp checks which against a table):
        // converted first, flags included.
        bits ra = d.a, rb = d.b;
        lf::format fa = FA, fb = FB;
        lf::status conv_st{};
        lf::env conv_env{mu.input_rounding};
        if (mu.input_subnormals == lf::subnormal_handling::flush) conv_env.policy.inputs = lf::subnormal_inputs::treat_as_zero;
        if (lf::unit_converts_input(mu, FA)) {
          for (auto& x : ra) x = lf::convert(mu.input, FA, x, conv_env, conv_st);
          fa = mu.input;
        }
        if (lf::unit_converts_input(mu, FB)) {
          for (auto& x : rb) x = lf::convert(mu.input, FB, x, conv_env, conv_st);
          fb = mu.input;
        }
        const lf::detail::operand oa{fa, [&ra](std::size_t i) { return ra[i]; }};
        const lf::detail::operand ob{fb, [&rb](std::size_t i) { return rb[i]; }};
        lf::status want_st = conv_st;
        const lf::bits_t want_signed = reference_signed(mu, oa, ob, n, c, want_st);
        const lf::bits_t want = mu.positive_zero && (want_signed & ~mu.output.sign_mask()) == 0 ? 0 : want_signed;

        // The run-time-format entry.
        lf::status st1{};
        const lf::bits_t got1 = lf::dot(mu, FA, std::span<const lf::bits_t>(d.a), FB, std::span<const lf::bits_t>(d.b), c, st1);
        CHECK(got1 == want);
        CHECK(st1 == want_st);

        // The typed entry (c and the result in binary32: the outputs here are binary32). It converts
        // c to the output format first, which quiets a signaling NaN (and raises invalid).
        const auto ta = typed<FA>(d.a);
        const auto tb = typed<FB>(d.b);
        lf::status st2{}, want_st2 = conv_st;
        const lf::bits_t c2 = lf::convert(mu.output, lf::binary32, c, lf::env{}, want_st2);
        const lf::bits_t want2 = c2 == c ? want : reference(mu, oa, ob, n, c2, want_st2);
        want_st2 = c2 == c ? want_st : want_st2;
        const lf::fp32 got2 = lf::dot<FA, FB>(mu, std::span<const lf::fp<FA>>(ta), std::span<const lf::fp<FB>>(tb),
                                              lf::fp32::from_bits(static_cast<std::uint32_t>(c)), &st2);
        CHECK(got2.bits() == want2);
        CHECK(st2 == want_st2);

        // block_chain_fast itself.
        if constexpr (lf::detail::fast_format(FA) && lf::detail::fast_format(FB)) {
          if (mu.model == lf::matrix_unit_model::block_fma && lf::detail::block_fast_applies(mu) && fa == FA && fb == FB) {
            lf::status st3{};
            const lf::bits_t got3 = lf::detail::block_chain_fast<FA, FB>(mu, oa, ob, 0, n, c, st3);
            CHECK(got3 == want_signed);  // (the chain itself: unit_dot applies positive_zero)
            CHECK(st3 == want_st);
            ++n_checked.fast_direct;
          }
        }
        ++n_checked.checked;
      }
    }
  }
}

/// Every input pair on the path lf::set_array_dispatch(path) selects, three seeds (the same data
/// for each path; one under AddressSanitizer).
void check_all_pairs(lf::array_dispatch path) {
  const lf::array_dispatch before = lf::set_array_dispatch(path);
  const std::string in_use = lf::array_dispatch_name(lf::array_dispatch_in_use());
  CAPTURE(in_use);
  counts n;
  // Three draws of the whole domain (the first only under AddressSanitizer, where the general
  // path's cpp_int model is slow).
  const std::uint64_t seeds[] = {4, 5, 6};
  for (std::size_t s = 0; s < test_sanitizer::scaled<std::size_t>(3, 3); ++s) {
    std::mt19937_64 g(seeds[s]);
    check_pair<lf::binary16, lf::binary16>(g, n);
    check_pair<lf::bfloat16, lf::bfloat16>(g, n);
    check_pair<lf::tfloat32, lf::tfloat32>(g, n);
    check_pair<lf::float8_e4m3fn, lf::float8_e4m3fn>(g, n);
    check_pair<lf::float8_e5m2, lf::float8_e5m2>(g, n);
    check_pair<lf::float8_e4m3fn, lf::float8_e5m2>(g, n);
    check_pair<lf::float8_e5m2, lf::float8_e4m3fn>(g, n);
    // binary32 data, wider than every unit's operand format: converted under input_rounding, then
    // the fast path (or the general one) on the converted operands.
    check_pair<lf::binary32, lf::binary32>(g, n);
  }
  MESSAGE("path " << in_use << ": dot products compared: " << n.checked
                  << ", of them through block_chain_fast directly: " << n.fast_direct);
  CHECK(n.fast_direct > 0);
  lf::set_array_dispatch(before);
}

}  // namespace

// The fast chain has two implementations (fast/matrix_block.hpp): the portable blocks and the AVX2
// blocks (taken where the CPU has AVX2, AVX-512 CPUs included: lf::array_dispatch_in_use() is avx2,
// avx512 or avx512_bf16). Each is forced in turn; a CPU without AVX2 reports the AVX2 case as
// skipped, not proven.
TEST_CASE("matrix unit fast path: same bits and flags as the general path, every input format, portable blocks") {
  check_all_pairs(lf::array_dispatch::portable);
}

TEST_CASE("matrix unit fast path: same bits and flags as the general path, every input format, AVX2 blocks") {
  const lf::array_dispatch before = lf::set_array_dispatch(lf::array_dispatch::avx2);
  const bool has_avx2 = lf::array_dispatch_in_use() == lf::array_dispatch::avx2;
  lf::set_array_dispatch(before);
  if (!has_avx2) {
    MESSAGE("SKIPPED: this CPU has no AVX2 (+F16C); the AVX2 blocks are not proven here");
    return;
  }
  check_all_pairs(lf::array_dispatch::avx2);
}

TEST_CASE("matrix unit fast path: the dispatch takes it for the presets' formats and leaves the rest") {
  using lf::detail::block_fast_applies;
  // Every block preset but the exact ones (cdna1_fp16, cdna1_bf16: an exact block sum, no alignment grid).
  for (const auto& p : lf::matrix_unit_presets) {
    const bool block = p.unit.model == lf::matrix_unit_model::block_fma || p.unit.model == lf::matrix_unit_model::fp8_promotion;
    if (block) CHECK_MESSAGE(block_fast_applies(p.unit) == (p.unit.alignment != lf::alignment_rounding::exact), p.name);
  }
  lf::matrix_unit u = lf::matrix_units::ampere_fp16;
  u.alignment = lf::alignment_rounding::exact;
  CHECK_FALSE(block_fast_applies(u));
  u = lf::matrix_units::hopper_fp8;
  u.block_size = 33;
  CHECK_FALSE(block_fast_applies(u));
  u = lf::matrix_units::volta_fp16;
  u.output = lf::binary16;
  u.output_fraction_bits = 10;
  CHECK_FALSE(block_fast_applies(u));
}
