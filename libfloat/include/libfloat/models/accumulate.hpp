// libfloat/models/accumulate.hpp: sums, dot products and matrix products under an accumulation model.
//
// A model (lf::accumulation) says where every rounding of a sum happens and into which format:
// the input format, how products are formed, the accumulator format and its rounding, the order of
// the additions, and whether the sum is compensated. This header only *sequences* operations:
// every rounding is an lf::add / sub / mul / fma / convert call (core/arith.hpp) with the model's
// lf::env, so each step is correctly rounded by the one core and raises its IEEE flags.
//
// Entry points (all take the model first, like lf::dot(const lf::matrix_unit&, ...)):
//   lf::value lf::sum(model, x [, init], status*, trace*)         x: encodings of model.input
//   lf::value lf::dot(model, a, b [, init], status*, trace*)
//   void      lf::gemm(model, M, N, K, A, B, C, status*, threads)  C = A*B + C
// with x, a, b, A, B given as std::span<const lf::bits_t> (run-time formats) or as
// any contiguous range of lf::fp<F> (typed); C as std::span<lf::bits_t> or a range of lf::fp<Acc>.
//
// The semantics, step by step (⊕ ⊖ ⊗ are lf::add, lf::sub, lf::mul in the accumulator format F
// under model.accumulator_env; conv_X(v) is lf::convert into format X):
//
//  Terms. sum: t_i = conv_F(x_i). dot, by model.products:
//    exact    t_i = a_i*b_i exactly: acc ⊕ t_i is ONE rounding, computed as
//             lf::fma(F, conv_F(a_i), conv_F(b_i), acc). The conversions must be exact, so the
//             model requires lf::fits_in(input, accumulator) (accumulation::invalid_reason()):
//             fp16 / bf16 / fp8 / tf32 inputs into binary32 qualify. The product itself need not
//             fit in F (the fma keeps it exact whatever its width).
//    fused    the same fma on inputs converted to F, which rounds them first when the input
//             format does not fit in F (e.g. binary32 data, binary16 fma chain: what
//             `__hfma(__float2half(a), __float2half(b), acc)` does). Where the input fits,
//             fused and exact give identical bits; they differ in what they promise.
//    rounded  p_i = lf::mul(P, conv_P(a_i), conv_P(b_i)) with P = model.product_format, then
//             t_i = conv_F(p_i): two roundings per term when P = F (`_Float16 acc += a*b`
//             compiled without contraction), three if P does not fit in F.
//    conv_X(v) with v already in format X is v itself (no operation: no flag, no random bits; a
//    signalling NaN is then quieted, with invalid, by the operation that consumes it). A
//    conversion into a format the source fits in is exact and raises nothing but invalid for a
//    signalling NaN.
//    Pairwise leaves need each term as one F value: under exact/fused that is
//    t_i = conv_F(a_i) ⊗ conv_F(b_i), one rounding of the exact product. (Kahan and Neumaier keep
//    the product exact, see below.)
//
//  Orders (n terms, init = the accumulator's start value: +0 for sum/dot unless given, C_ij for gemm):
//    sequential  acc = init; for i = 0..n-1: acc = acc ⊕ t_i           (a plain loop)
//    pairwise    init ⊕ P(0, n), where P(l, 1) = t_l and, for m >= 2, P(l, m) = P(l, k) ⊕ P(l+k, m-k)
//                with k = the largest power of two below m. This is the same tree as summing
//                adjacent pairs level by level and carrying an odd last element up (Higham,
//                "Accuracy and Stability of Numerical Algorithms", 2nd ed., §4.2): for n = 5,
//                ((t0 ⊕ t1) ⊕ (t2 ⊕ t3)) ⊕ t4; for n = 6, ((t0 ⊕ t1) ⊕ (t2 ⊕ t3)) ⊕ (t4 ⊕ t5).
//    blocked     consecutive blocks of block_size terms (the last one shorter); each block is summed
//                sequentially into a fresh accumulator starting at +0, and the block results are
//                added sequentially into the outer accumulator, which starts at init (Blanchard,
//                Higham, Mary, "A class of fast and accurate summation algorithms", SIAM J. Sci.
//                Comput. 42(3), 2020).
//    split_k     `splits` slices of ceil(n / splits) consecutive terms (the last ones shorter, empty
//                slices skipped), each summed sequentially from +0, the slice results added
//                sequentially into the outer accumulator that starts at init: the split-K GEMM
//                decomposition (CUTLASS "split-K": every K slice has its own partial accumulator,
//                reduced in slice order). It is blocked summation with block size ceil(n/splits).
//
//  Compensation (sequential, blocked and split_k; the same algorithm runs inside each block and
//  over the block results; pairwise does not compensate):
//    kahan     (Kahan, CACM 8(1):40, 1965) s = init, c = +0; per term: y = t ⊖ c (exact/fused
//              products: y = fma(a, b, -c), the exact product enters once), u = s ⊕ y,
//              c = (u ⊖ s) ⊖ y, s = u. Result s.
//    neumaier  (Neumaier, ZAMM 54:39-51, 1974) s = init, c = +0; per term: u = s ⊕ t,
//              c = c ⊕ ((s ⊖ u) ⊕ t) if |s| >= |t| else c ⊕ ((t ⊖ u) ⊕ s), s = u. Result s ⊕ c.
//              Under exact/fused products the product is split exactly into t + r with
//              t = a ⊗ b and r = fma(a, b, -t) (TwoProduct; Ogita, Rump, Oishi, SIAM J. Sci.
//              Comput. 26(6), 2005), and c = c ⊕ r after the step above.
//    As in any implementation of these textbook algorithms, an infinite partial sum makes the
//    compensation ∞ - ∞ = NaN: the result is then NaN and invalid is raised.
//
//  Stochastic rounding (accumulator_env.mode == rounding::stochastic): every library call draws
//  fresh random bits lf::accumulation_random_bits(model.seed, stream, k), k = 0, 1, 2, ... counting
//  the library calls of one sum/dot in the order above (conversions between different formats
//  included), stream = 0 for sum/dot and i*N + j for gemm's C_ij. The same seed gives the same
//  result whatever the thread count.
//
//  Errors: a model whose invalid_reason() is set, a typed range whose format differs from the
//  model's, or mismatched lengths (dot: a.size() != b.size(); gemm: A, B, C not M*K, K*N, M*N)
//  are reported, not thrown: the result is the accumulator format's default NaN (gemm: every
//  element of C) and status::invalid is raised. Callers that want a message check
//  invalid_reason() and the lengths first.
//
//  Flags: the status is the OR of the flags of every operation performed, conversions included.
//
//  Speed: dot and gemm under the "CUDA core" model (binary16, E5M2 or E4M3 inputs, exact or fused
//  products, binary32 accumulator, nearest even, default policy, sequential, no compensation:
//  accumulations::fp32_acc, e4m3_fp32_acc) run on the hardware's binary32 additions when no
//  trace is asked for (fast/dot.hpp: the products are exact in binary32, so each hardware
//  add is the model's one rounding, and the flags are the hardware's). Same bits and flags as
//  the engine, which still runs for non-finite data and non-default floating-point environments.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/fast/dot.hpp>
#include <libfloat/models/detail/fits_in.hpp>
#include <libfloat/models/detail/fp_range.hpp>
#include <libfloat/models/detail/parallel.hpp>
#include <libfloat/models/detail/span_get.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

// ---- formats inside formats -----------------------------------------------------------------

// lf::fits_in(from, to): models/detail/fits_in.hpp.
static_assert(!fits_in(bfloat16, binary16) && !fits_in(binary16, bfloat16) && !fits_in(float8_e5m2, float8_e4m3fn));

// ---- the model ------------------------------------------------------------------------------

/// How a dot product's terms a_i * b_i are formed (see the file comment for the exact steps).
enum class product_mode : std::uint8_t {
  exact,    ///< the exact product enters the accumulator with one rounding (fma in the accumulator
            ///< format); requires fits_in(input, accumulator)
  rounded,  ///< the product is rounded to product_format, then added (two roundings)
  fused,    ///< fma in the accumulator format on inputs converted to it (rounded if they don't fit)
};

/// The order of the additions.
enum class summation_order : std::uint8_t {
  sequential,  ///< ((init + t0) + t1) + ...
  pairwise,    ///< a balanced binary tree, left subtrees of power-of-two sizes
  blocked,     ///< sequential inside blocks of block_size terms, then sequential over the blocks
  split_k,     ///< `splits` slices summed separately, then the slice results in order
};

/// Compensated summation: an extra accumulator that carries the rounding errors.
enum class compensation : std::uint8_t {
  none,
  kahan,     ///< Kahan 1965
  neumaier,  ///< Neumaier 1974 (Kahan-Babuška): also right when a term outweighs the sum
};

constexpr std::string_view product_mode_name(product_mode m) {
  switch (m) {
    case product_mode::exact: return "exact";
    case product_mode::rounded: return "rounded";
    case product_mode::fused: return "fused";
  }
  return "?";
}
constexpr std::string_view summation_order_name(summation_order o) {
  switch (o) {
    case summation_order::sequential: return "sequential";
    case summation_order::pairwise: return "pairwise";
    case summation_order::blocked: return "blocked";
    case summation_order::split_k: return "split_k";
  }
  return "?";
}
constexpr std::string_view compensation_name(compensation c) {
  switch (c) {
    case compensation::none: return "none";
    case compensation::kahan: return "kahan";
    case compensation::neumaier: return "neumaier";
  }
  return "?";
}

/// An accumulation model: data, so presets are constants and a program can pick one by name.
/// Write custom ones with designated initializers:
///   lf::accumulation m{.input = lf::bfloat16, .accumulator = lf::binary32,
///                      .order = lf::summation_order::blocked, .block_size = 128};
struct accumulation {
  format input = binary16;                         ///< the format of the data (x, a, b, A, B)
  product_mode products = product_mode::exact;     ///< dot/gemm only
  format product_format = binary16;                ///< products == rounded only
  format accumulator = binary32;                   ///< where the partial sums live (and C, and the result)
  env accumulator_env{};                           ///< rounding and policies of every operation
  summation_order order = summation_order::sequential;
  int block_size = 32;                             ///< order == blocked only
  int splits = 4;                                  ///< order == split_k only
  lf::compensation compensation = compensation::none;
  std::uint64_t seed = 0;                          ///< accumulator_env.mode == stochastic only

  /// Why this model cannot run, or nullopt when it can. sum/dot/gemm with such a model return
  /// NaN and raise invalid.
  std::optional<std::string> invalid_reason() const {
    auto bad = [](const format& f) { return !f.valid(); };
    if (bad(input)) return "the input format is not a valid format";
    if (bad(accumulator)) return "the accumulator format is not a valid format";
    // Every order starts partial sums (and compensations) at +0, encoding 0: in an exponent-only
    // format (E8M0: no sign, no zero) that encoding is 2^emin, and a sum has no zero to start from.
    if (!accumulator.has_zero())
      return "the accumulator format " + format_name(accumulator) +
             " has no zero (an exponent-only format holds scales, not sums); use a format with a zero";
    if (products == product_mode::rounded && bad(product_format)) return "the product format is not a valid format";
    if (products == product_mode::exact && !fits_in(input, accumulator))
      return "exact products need every " + format_name(input) + " value to be a " + format_name(accumulator) +
             " value; use products 'fused' (inputs rounded to the accumulator first) or 'rounded'";
    if (order == summation_order::blocked && block_size < 1) return "the block size must be at least 1";
    if (order == summation_order::split_k && splits < 1) return "split-K needs at least 1 split";
    if (order == summation_order::pairwise && compensation != lf::compensation::none)
      return "compensation applies to sequential, blocked and split-K orders, not pairwise";
    return std::nullopt;
  }
};

/// A number of a run-time format: what sum and dot return (in the accumulator format).
struct value {
  format fmt = binary32;
  bits_t bits = 0;

  constexpr value() = default;
  constexpr value(const format& f, bits_t b) : fmt(f), bits(b & f.encoding_mask()) {}
  template <format F>
  constexpr value(fp<F> x) : fmt(F), bits(x.bits()) {}  // NOLINT: implicit, a typed value is a value

  /// The value as a double: exact for every format inside binary64 (all the named ones), rounded
  /// to nearest even otherwise.
  double to_double() const {
    status ignored{};
    return std::bit_cast<double>(convert(binary64, fmt, bits, env{}, ignored));
  }
  /// The value in format F: the same encoding when fmt == F, else converted (nearest even).
  template <format F>
  constexpr fp<F> to() const {
    status ignored{};
    const bits_t b = fmt == F ? bits : convert(F, fmt, bits, env{}, ignored);
    return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(b));
  }
  constexpr bool is_nan() const { return detail::is_nan_bits(fmt, bits); }
  /// Same format and same encoding (so NaN == NaN and +0 != -0 here: a bit comparison).
  friend constexpr bool operator==(const value&, const value&) = default;
};

// ---- the trace ------------------------------------------------------------------------------

/// What a trace step is.
enum class step_kind : std::uint8_t {
  term,   ///< one term added into a sequential accumulator (the whole sum, or one block)
  block,  ///< a block's (or split's) result added into the outer accumulator
  node,   ///< a pairwise tree node: the sum of two subtrees
  final,  ///< a last step: init ⊕ the pairwise tree, or Neumaier's s ⊕ c
};

constexpr std::string_view step_kind_name(step_kind k) {
  switch (k) {
    case step_kind::term: return "term";
    case step_kind::block: return "block";
    case step_kind::node: return "node";
    case step_kind::final: return "final";
  }
  return "?";
}

/// One partial sum. It covers terms first..last (inclusive; sequential steps and outer steps also
/// include init); for a sequential sum the step of term i has first = 0 and last = i.
struct trace_step {
  step_kind kind;
  std::size_t first;
  std::size_t last;
  bits_t bits;   ///< the partial sum, an encoding of the accumulator format
  status flags;  ///< raised by this step alone (the term's conversions and products included)
};

/// The partial sums of one sum or dot, in the order they were computed. Pass a pointer to sum/dot
/// to fill it (it is cleared first); this is the only part of the header that allocates.
struct trace {
  format fmt = binary32;  ///< the accumulator format of `steps[i].bits`
  std::vector<trace_step> steps;
  value at(std::size_t i) const { return {fmt, steps.at(i).bits}; }
};

// ---- stochastic rounding bits ---------------------------------------------------------------

/// The 32 random bits of the k-th library call of stream `stream` under seed `seed`: the high half
/// of splitmix64 (Steele, Lea, Flood, OOPSLA 2014) applied to splitmix64(seed ^ splitmix64(stream))
/// + k. Counter-based, so every call's bits are fixed by (seed, stream, k) alone.
constexpr std::uint32_t accumulation_random_bits(std::uint64_t seed, std::uint64_t stream, std::uint64_t k) {
  auto mix = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
  };
  return static_cast<std::uint32_t>(mix(mix(seed ^ mix(stream)) + k) >> 32);
}

// ---- the engine -----------------------------------------------------------------------------

namespace detail {

/// One running sum/dot: the model, the ORed flags, the optional trace, the random-bits counter.
struct acc_context {
  const accumulation& m;
  trace* tr = nullptr;
  std::uint64_t stream = 0;
  std::uint64_t calls = 0;
  status st{};

  const format& F() const { return m.accumulator; }
  /// The env of the next library call (fresh random bits under stochastic rounding).
  env next() {
    env e = m.accumulator_env;
    if (e.mode == rounding::stochastic) e.random = accumulation_random_bits(m.seed, stream, calls);
    ++calls;
    return e;
  }
  bits_t add(bits_t a, bits_t b, status& s) { return lf::add(F(), a, b, next(), s); }
  bits_t sub(bits_t a, bits_t b, status& s) { return lf::sub(F(), a, b, next(), s); }
  bits_t mul(bits_t a, bits_t b, status& s) { return lf::mul(F(), a, b, next(), s); }
  bits_t fma(bits_t a, bits_t b, bits_t c, status& s) { return lf::fma(F(), a, b, c, next(), s); }
  /// A value of format `from` into format `to`: the encoding itself when the formats are the same
  /// (a load, not an operation: no flag, no random bits, and FTZ does not touch subnormal inputs),
  /// else lf::convert.
  bits_t convert(const format& to, const format& from, bits_t x, status& s) {
    return to == from ? x : lf::convert(to, from, x, next(), s);
  }
  bits_t to_acc(const format& from, bits_t x, status& s) { return convert(F(), from, x, s); }

  void record(step_kind k, std::size_t first, std::size_t last, bits_t v, status s) {
    st |= s;
    if (tr) tr->steps.push_back({k, first, last, v, s});
  }
};

/// -c as an fma addend; a NaN keeps its sign, as lf::sub keeps a NaN subtrahend's.
constexpr bits_t negated_addend(const format& f, bits_t c) { return is_nan_bits(f, c) ? c : neg(f, c); }

/// The terms of a sum: t_i = conv_F(x_i). X: i -> encoding of the input format.
template <class X>
struct sum_terms {
  X x;
  std::size_t n;
  bits_t value(acc_context& c, std::size_t i, status& s) const { return c.to_acc(c.m.input, x(i), s); }
  bits_t add_to(acc_context& c, bits_t acc, std::size_t i, status& s) const { return c.add(acc, value(c, i, s), s); }
  bits_t minus(acc_context& c, std::size_t i, bits_t k, status& s) const { return c.sub(value(c, i, s), k, s); }
  /// Neumaier's view of the term: hi (+ lo when the term is not one F value). Returns true if lo is set.
  bool split(acc_context& c, std::size_t i, bits_t& hi, bits_t&, status& s) const {
    hi = value(c, i, s);
    return false;
  }
};

/// The terms of a dot product a_i * b_i, formed as model.products says.
template <class A, class B>
struct dot_terms {
  A a;
  B b;
  std::size_t n;
  bool via_fma(const acc_context& c) const { return c.m.products != product_mode::rounded; }
  /// products == rounded: conv_F(round_P(conv_P(a) * conv_P(b))).
  bits_t rounded_product(acc_context& c, std::size_t i, status& s) const {
    const format& P = c.m.product_format;
    const bits_t pa = c.convert(P, c.m.input, a(i), s);
    const bits_t pb = c.convert(P, c.m.input, b(i), s);
    const bits_t p = lf::mul(P, pa, pb, c.next(), s);
    return c.to_acc(P, p, s);
  }
  bits_t value(acc_context& c, std::size_t i, status& s) const {
    if (!via_fma(c)) return rounded_product(c, i, s);
    const bits_t fa = c.to_acc(c.m.input, a(i), s);
    const bits_t fb = c.to_acc(c.m.input, b(i), s);
    return c.mul(fa, fb, s);
  }
  bits_t add_to(acc_context& c, bits_t acc, std::size_t i, status& s) const {
    if (!via_fma(c)) return c.add(acc, rounded_product(c, i, s), s);
    const bits_t fa = c.to_acc(c.m.input, a(i), s);
    const bits_t fb = c.to_acc(c.m.input, b(i), s);
    return c.fma(fa, fb, acc, s);
  }
  bits_t minus(acc_context& c, std::size_t i, bits_t k, status& s) const {
    if (!via_fma(c)) return c.sub(rounded_product(c, i, s), k, s);
    const bits_t fa = c.to_acc(c.m.input, a(i), s);
    const bits_t fb = c.to_acc(c.m.input, b(i), s);
    return c.fma(fa, fb, negated_addend(c.F(), k), s);
  }
  bool split(acc_context& c, std::size_t i, bits_t& hi, bits_t& lo, status& s) const {
    if (!via_fma(c)) {
      hi = rounded_product(c, i, s);
      return false;
    }
    const bits_t fa = c.to_acc(c.m.input, a(i), s);
    const bits_t fb = c.to_acc(c.m.input, b(i), s);
    hi = c.mul(fa, fb, s);
    lo = c.fma(fa, fb, negated_addend(c.F(), hi), s);  // a*b - hi, exact unless it underflows
    return true;
  }
};

/// One value as a term source (the outer accumulator of blocked / split-K sums).
struct one_value {
  bits_t v;
  bits_t add_to(acc_context& c, bits_t acc, std::size_t, status& s) const { return c.add(acc, v, s); }
  bits_t minus(acc_context& c, std::size_t, bits_t k, status& s) const { return c.sub(v, k, s); }
  bool split(acc_context&, std::size_t, bits_t& hi, bits_t&, status&) const {
    hi = v;
    return false;
  }
};

/// A (possibly compensated) sequential accumulator: s and, when compensating, c.
struct running_sum {
  bits_t s;
  bits_t c = 0;  // +0 in every format with a zero (accumulation::invalid_reason rejects the others)

  /// s (and c) after one more term, as model.compensation says.
  template <class T>
  void add(acc_context& ctx, const T& terms, std::size_t i, status& st) {
    switch (ctx.m.compensation) {
      case compensation::none: s = terms.add_to(ctx, s, i, st); return;
      case compensation::kahan: {
        const bits_t y = terms.minus(ctx, i, c, st);
        const bits_t u = ctx.add(s, y, st);
        c = ctx.sub(ctx.sub(u, s, st), y, st);
        s = u;
        return;
      }
      case compensation::neumaier: {
        bits_t t = 0, r = 0;
        const bool has_r = terms.split(ctx, i, t, r, st);
        const bits_t u = ctx.add(s, t, st);
        status ignored{};  // a comparison, not an operation of the algorithm's arithmetic
        const format& F = ctx.F();
        const bool s_larger = le_quiet(F, lf::abs(F, t), lf::abs(F, s), ignored);
        const bits_t e = s_larger ? ctx.add(ctx.sub(s, u, st), t, st) : ctx.add(ctx.sub(t, u, st), s, st);
        c = ctx.add(c, e, st);
        if (has_r) c = ctx.add(c, r, st);
        s = u;
        return;
      }
    }
  }
  /// The result: s, or s ⊕ c for Neumaier (recorded as a final step covering first..last).
  bits_t finish(acc_context& ctx, std::size_t first, std::size_t last) {
    if (ctx.m.compensation != compensation::neumaier) return s;
    status st{};
    s = ctx.add(s, c, st);
    ctx.record(step_kind::final, first, last, s, st);
    return s;
  }
};

/// Terms [begin, end) added in order into an accumulator that starts at init; trace steps cover
/// [cover_first, i].
template <class T>
bits_t run_sequential(acc_context& ctx, const T& terms, std::size_t begin, std::size_t end, bits_t init,
                      std::size_t cover_first) {
  running_sum acc{init};
  for (std::size_t i = begin; i < end; ++i) {
    status st{};
    acc.add(ctx, terms, i, st);
    ctx.record(step_kind::term, cover_first, i, acc.s, st);
  }
  return begin < end ? acc.finish(ctx, cover_first, end - 1) : acc.s;
}

/// P(l, m) of the file comment. The leaves' flags go into `leaf_flags` (the step that uses them).
template <class T>
bits_t run_pairwise(acc_context& ctx, const T& terms, std::size_t l, std::size_t m, status& leaf_flags) {
  if (m == 1) return terms.value(ctx, l, leaf_flags);
  const std::size_t k = std::bit_floor(m - 1);  // the largest power of two below m
  status st{};
  const bits_t left = run_pairwise(ctx, terms, l, k, st);
  const bits_t right = run_pairwise(ctx, terms, l + k, m - k, st);
  const bits_t v = ctx.add(left, right, st);
  ctx.record(step_kind::node, l, l + m - 1, v, st);
  return v;
}

/// Blocks of `block` terms summed from +0, their results added in order into an outer
/// accumulator that starts at init.
template <class T>
bits_t run_blocked(acc_context& ctx, const T& terms, std::size_t n, std::size_t block, bits_t init) {
  running_sum outer{init};
  for (std::size_t b0 = 0; b0 < n; b0 += block) {
    const std::size_t b1 = b0 + min_of(block, n - b0);
    const bits_t beta = run_sequential(ctx, terms, b0, b1, /*init=+0*/ 0, b0);
    status st{};
    outer.add(ctx, one_value{beta}, 0, st);
    ctx.record(step_kind::block, 0, b1 - 1, outer.s, st);
  }
  return n > 0 ? outer.finish(ctx, 0, n - 1) : outer.s;
}

template <class T>
bits_t run(acc_context& ctx, const T& terms, std::size_t n, bits_t init) {
  switch (ctx.m.order) {
    case summation_order::sequential: return run_sequential(ctx, terms, 0, n, init, 0);
    case summation_order::pairwise: {
      if (n == 0) return init;
      status st{};
      const bits_t tree = run_pairwise(ctx, terms, 0, n, st);
      const bits_t v = ctx.add(init, tree, st);
      ctx.record(step_kind::final, 0, n - 1, v, st);
      return v;
    }
    case summation_order::blocked: return run_blocked(ctx, terms, n, static_cast<std::size_t>(ctx.m.block_size), init);
    case summation_order::split_k: {
      const auto s = static_cast<std::size_t>(ctx.m.splits);
      return run_blocked(ctx, terms, n, max_of<std::size_t>(1, (n + s - 1) / s), init);
    }
  }
  return init;
}

/// The error result: the accumulator format's default NaN, invalid raised.
inline value invalid_result(const accumulation& m, status* st, trace* tr) {
  if (st) *st |= status::invalid;
  if (tr) *tr = trace{m.accumulator, {}};
  return {m.accumulator, m.accumulator.valid() ? m.accumulator.default_nan_bits() : 0};
}

/// init converted into the accumulator (exact when its format fits), or an error.
inline bool start_value(acc_context& ctx, const std::optional<value>& init, bits_t& out) {
  out = 0;
  if (!init) return true;
  if (!init->fmt.valid()) return false;
  status st{};
  out = ctx.to_acc(init->fmt, init->bits, st);
  ctx.st |= st;
  return true;
}

template <class X>
value sum_impl(const accumulation& m, X x, std::size_t n, const std::optional<value>& init, status* st, trace* tr,
               std::uint64_t stream = 0) {
  if (m.invalid_reason()) return invalid_result(m, st, tr);
  if (tr) *tr = trace{m.accumulator, {}};
  acc_context ctx{m, tr, stream};
  bits_t start = 0;
  if (!start_value(ctx, init, start)) return invalid_result(m, st, tr);
  const bits_t r = run(ctx, sum_terms<X>{x, n}, n, start);
  report(st, ctx.st);
  return {m.accumulator, r};
}

/// The dot product by the step-by-step engine above, always (the reference the hardware path is
/// tested against; dot_impl runs it unless the hardware path applies).
template <class A, class B>
value dot_impl_general(const accumulation& m, A a, B b, std::size_t n, const std::optional<value>& init, status* st,
                       trace* tr, std::uint64_t stream = 0) {
  if (m.invalid_reason()) return invalid_result(m, st, tr);
  if (tr) *tr = trace{m.accumulator, {}};
  acc_context ctx{m, tr, stream};
  bits_t start = 0;
  if (!start_value(ctx, init, start)) return invalid_result(m, st, tr);
  const bits_t r = run(ctx, dot_terms<A, B>{a, b, n}, n, start);
  report(st, ctx.st);
  return {m.accumulator, r};
}

/// True when model m, started at init, is the "CUDA core" dot product that
/// detail::dot_f32_nearest (fast/dot.hpp) computes on the hardware: binary16, E5M2 or
/// E4M3 inputs, products exact or fused (the same bits: these formats fit in binary32, so fused
/// rounds nothing before its fma), a binary32 accumulator under nearest even with the default
/// policy, sequential order, no compensation, and init absent or already binary32 (no
/// conversion, so no flag from it). The seed, block_size, splits and product_format do not enter
/// this computation.
inline bool dot_fast_applies(const accumulation& m, const std::optional<value>& init) {
  return dot_fast_input(m.input) && (m.products == product_mode::exact || m.products == product_mode::fused) &&
         m.accumulator == binary32 && m.accumulator_env.mode == rounding::nearest_even &&
         m.accumulator_env.policy == policy{} && m.order == summation_order::sequential &&
         m.compensation == compensation::none && (!init || init->fmt == binary32);
}

/// The dot product under m: the hardware path when it applies and accepts the data (no trace
/// requested), else the engine. Both give the same bits and flags (tests/fast/test_dot_fast.cpp).
template <class A, class B>
value dot_impl(const accumulation& m, A a, B b, std::size_t n, const std::optional<value>& init, status* st,
               trace* tr, std::uint64_t stream = 0) {
  if (dot_fast_built && tr == nullptr && dot_fast_applies(m, init)) {
    std::uint32_t r = 0;
    status s{};
    if (dot_f32_nearest(m.input, a, b, n, init ? static_cast<std::uint32_t>(init->bits) : 0u, r, s)) {
      report(st, s);
      return {binary32, r};
    }
  }
  return dot_impl_general(m, a, b, n, init, st, tr, stream);
}

}  // namespace detail

// ---- sum ------------------------------------------------------------------------------------

/// The sum of x (encodings of m.input) under model m, in m.accumulator; flags ORed into *st, the
/// partial sums into *tr. The accumulator starts at +0.
inline value sum(const accumulation& m, std::span<const bits_t> x, status* st = nullptr, trace* tr = nullptr) {
  return detail::sum_impl(m, detail::span_get{x}, x.size(), std::nullopt, st, tr);
}
/// As above, with the accumulator starting at init (converted to the accumulator format).
inline value sum(const accumulation& m, std::span<const bits_t> x, value init, status* st = nullptr,
                 trace* tr = nullptr) {
  return detail::sum_impl(m, detail::span_get{x}, x.size(), init, st, tr);
}
/// Typed: x is a range of lf::fp<F>, and F must be m.input (else NaN and invalid).
template <fp_range R>
value sum(const accumulation& m, const R& x, status* st = nullptr, trace* tr = nullptr) {
  if (fp_range_format_v<R> != m.input) return detail::invalid_result(m, st, tr);
  const auto* p = std::data(x);
  return detail::sum_impl(m, [p](std::size_t i) -> bits_t { return p[i].bits(); }, std::size(x),
                          std::nullopt, st, tr);
}
template <fp_range R>
value sum(const accumulation& m, const R& x, value init, status* st = nullptr, trace* tr = nullptr) {
  if (fp_range_format_v<R> != m.input) return detail::invalid_result(m, st, tr);
  const auto* p = std::data(x);
  return detail::sum_impl(m, [p](std::size_t i) -> bits_t { return p[i].bits(); }, std::size(x), init, st,
                          tr);
}

// ---- dot ------------------------------------------------------------------------------------

/// sum_i a_i * b_i under model m (a, b: encodings of m.input). a.size() != b.size() gives NaN and
/// invalid. The accumulator starts at +0.
inline value dot(const accumulation& m, std::span<const bits_t> a, std::span<const bits_t> b, status* st = nullptr,
                 trace* tr = nullptr) {
  if (a.size() != b.size()) return detail::invalid_result(m, st, tr);
  return detail::dot_impl(m, detail::span_get{a}, detail::span_get{b}, a.size(), std::nullopt, st, tr);
}
/// As above, with the accumulator starting at init (c in D = a.b + c; converted to the accumulator format).
inline value dot(const accumulation& m, std::span<const bits_t> a, std::span<const bits_t> b, value init,
                 status* st = nullptr, trace* tr = nullptr) {
  if (a.size() != b.size()) return detail::invalid_result(m, st, tr);
  return detail::dot_impl(m, detail::span_get{a}, detail::span_get{b}, a.size(), init, st, tr);
}
/// Typed: a and b are ranges of lf::fp<m.input>.
template <fp_range RA, fp_range RB>
value dot(const accumulation& m, const RA& a, const RB& b, status* st = nullptr, trace* tr = nullptr) {
  if (fp_range_format_v<RA> != m.input || fp_range_format_v<RB> != m.input || std::size(a) != std::size(b))
    return detail::invalid_result(m, st, tr);
  const auto* pa = std::data(a);
  const auto* pb = std::data(b);
  return detail::dot_impl(m, [pa](std::size_t i) -> bits_t { return pa[i].bits(); },
                          [pb](std::size_t i) -> bits_t { return pb[i].bits(); }, std::size(a), std::nullopt,
                          st, tr);
}
template <fp_range RA, fp_range RB>
value dot(const accumulation& m, const RA& a, const RB& b, value init, status* st = nullptr, trace* tr = nullptr) {
  if (fp_range_format_v<RA> != m.input || fp_range_format_v<RB> != m.input || std::size(a) != std::size(b))
    return detail::invalid_result(m, st, tr);
  const auto* pa = std::data(a);
  const auto* pb = std::data(b);
  return detail::dot_impl(m, [pa](std::size_t i) -> bits_t { return pa[i].bits(); },
                          [pb](std::size_t i) -> bits_t { return pb[i].bits(); }, std::size(a), init, st, tr);
}

// ---- gemm -----------------------------------------------------------------------------------

/// gemm runs on more than one thread (threads = 0, automatic) only from this many multiply-adds
/// (M*N*K) on: below it, starting a thread (tens of microseconds) costs more than it saves at the
/// library's 5-20 ns per term.
inline constexpr std::size_t gemm_parallel_min_work = std::size_t{1} << 16;

namespace detail {

/// C_ij = dot(m, row i of A, column j of B, init = C_ij) for rows [r0, r1), written in place.
template <class A, class B, class CR, class CW>
status gemm_rows(const accumulation& m, std::size_t N, std::size_t K, A a, B b, CR c_read, CW c_write, std::size_t r0,
                 std::size_t r1) {
  status st{};
  for (std::size_t i = r0; i < r1; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const value r = dot_impl(
          m, [&a, i, K](std::size_t k) { return a(i * K + k); }, [&b, j, N](std::size_t k) { return b(k * N + j); }, K,
          value{m.accumulator, c_read(i * N + j)}, &st, nullptr, /*stream=*/i * N + j);
      c_write(i * N + j, r.bits);
    }
  return st;
}

/// Splits the rows over the threads; each C_ij is computed by one thread, by the same code, so the
/// result does not depend on the thread count.
template <class A, class B, class CR, class CW>
void gemm_impl(const accumulation& m, std::size_t M, std::size_t N, std::size_t K, A a, B b, CR c_read, CW c_write,
               status* st, unsigned threads) {
  if (threads == 0) {
    const std::size_t work = M * N * max_of<std::size_t>(K, 1);
    threads = work < gemm_parallel_min_work ? 1u : parallel_threads(0);
  }
  const std::size_t T = max_of<std::size_t>(1, min_of<std::size_t>(threads, M));
  std::vector<status> flags(T, status::none);
  auto rows = [&](std::size_t t) {
    flags[t] = gemm_rows(m, N, K, a, b, c_read, c_write, t * M / T, (t + 1) * M / T);
  };
  parallel_for(
      T, [](void* context, std::size_t t) { (*static_cast<decltype(rows)*>(context))(t); }, &rows);
  status all{};
  for (status s : flags) all |= s;
  report(st, all);
}

}  // namespace detail

/// C = A*B + C under model m: A is M x K, B is K x N, C is M x N, all row-major. A and B hold
/// encodings of m.input, C encodings of m.accumulator (C's values are each dot product's starting
/// accumulator, see the file comment). threads = 0 picks the thread count (1 below
/// gemm_parallel_min_work multiply-adds, else std::thread::hardware_concurrency()); the result is
/// bit-identical for every thread count. Wrong span sizes or an invalid model: every element of
/// C becomes NaN and invalid is raised.
inline void gemm(const accumulation& m, std::size_t M, std::size_t N, std::size_t K, std::span<const bits_t> A,
                 std::span<const bits_t> B, std::span<bits_t> C, status* st = nullptr, unsigned threads = 0) {
  if (m.invalid_reason() || A.size() != M * K || B.size() != K * N || C.size() != M * N) {
    const value nan = detail::invalid_result(m, st, nullptr);
    for (bits_t& x : C) x = nan.bits;
    return;
  }
  detail::gemm_impl(m, M, N, K, detail::span_get{A}, detail::span_get{B}, detail::span_get{C}, detail::span_set{C}, st,
                    threads);
}

/// Typed: A, B ranges of lf::fp<m.input>, C a range of lf::fp<m.accumulator>.
template <fp_range RA, fp_range RB, class RC>
  requires fp_range<RC>
void gemm(const accumulation& m, std::size_t M, std::size_t N, std::size_t K, const RA& A, const RB& B, RC&& C,
          status* st = nullptr, unsigned threads = 0) {
  using CT = detail::fp_range_value_t<RC>;
  auto* pc = std::data(C);
  const std::size_t nc = std::size(C);
  if (m.invalid_reason() || fp_range_format_v<RA> != m.input || fp_range_format_v<RB> != m.input ||
      fp_range_format_v<RC> != m.accumulator || std::size(A) != M * K || std::size(B) != K * N ||
      nc != M * N) {
    const value nan = detail::invalid_result(m, st, nullptr);
    for (std::size_t i = 0; i < nc; ++i) pc[i] = CT::from_bits(static_cast<typename CT::storage_type>(nan.bits));
    return;
  }
  const auto* pa = std::data(A);
  const auto* pb = std::data(B);
  detail::gemm_impl(
      m, M, N, K, [pa](std::size_t i) -> bits_t { return pa[i].bits(); },
      [pb](std::size_t i) -> bits_t { return pb[i].bits(); }, [pc](std::size_t i) -> bits_t { return pc[i].bits(); },
      [pc](std::size_t i, bits_t v) { pc[i] = CT::from_bits(static_cast<typename CT::storage_type>(v)); }, st, threads);
}

// ---- presets --------------------------------------------------------------------------------

/// Named models (named_accumulations below lists them by name).
namespace accumulations {
/// binary16 throughout, no fma: `_Float16 acc = 0; acc += a[i] * b[i];` compiled without
/// contraction (two roundings per term). Summing 1.0 stalls at 2048.
inline constexpr accumulation fp16_acc{.input = binary16, .products = product_mode::rounded,
                                       .product_format = binary16, .accumulator = binary16};
/// A binary16 fma chain: CUDA `acc = __hfma(a[i], b[i], acc)`.
inline constexpr accumulation fp16_fma{.input = binary16, .products = product_mode::fused, .accumulator = binary16};
/// fp16_acc in pairwise order (Higham §4.2; numpy's sum uses a blocked variant of it).
inline constexpr accumulation fp16_pairwise{.input = binary16, .products = product_mode::rounded,
                                            .product_format = binary16, .accumulator = binary16,
                                            .order = summation_order::pairwise};
/// fp16_acc in blocks of 32 (Blanchard, Higham, Mary 2020).
inline constexpr accumulation fp16_blocked{.input = binary16, .products = product_mode::rounded,
                                           .product_format = binary16, .accumulator = binary16,
                                           .order = summation_order::blocked, .block_size = 32};
/// fp16_acc with Kahan's compensation, every operation in binary16.
inline constexpr accumulation fp16_kahan{.input = binary16, .products = product_mode::rounded,
                                         .product_format = binary16, .accumulator = binary16,
                                         .compensation = compensation::kahan};
/// fp16_acc with Neumaier's compensation, every operation in binary16.
inline constexpr accumulation fp16_neumaier{.input = binary16, .products = product_mode::rounded,
                                            .product_format = binary16, .accumulator = binary16,
                                            .compensation = compensation::neumaier};
/// binary16 inputs, binary32 accumulation, exact products: a binary32 fma chain on widened inputs,
/// the "CUDA core" model and what mixed-precision training means by "fp32 accumulation"
/// (Micikevicius et al., ICLR 2018).
inline constexpr accumulation fp32_acc{.input = binary16, .products = product_mode::exact, .accumulator = binary32};
/// binary16 products rounded to binary16, then added in binary32 (fp16 multiply, fp32 add).
inline constexpr accumulation fp16_mul_fp32_acc{.input = binary16, .products = product_mode::rounded,
                                                .product_format = binary16, .accumulator = binary32};
/// fp32_acc split into 4 K-slices, each with its own binary32 partial sum (CUTLASS split-K).
inline constexpr accumulation fp32_split_k{.input = binary16, .products = product_mode::exact, .accumulator = binary32,
                                           .order = summation_order::split_k, .splits = 4};
/// bfloat16 throughout, no fma. Summing 1.0 stalls at 256.
inline constexpr accumulation bf16_acc{.input = bfloat16, .products = product_mode::rounded,
                                       .product_format = bfloat16, .accumulator = bfloat16};
/// bfloat16 inputs, exact products, binary32 accumulation (Kalamkar et al., arXiv 1905.12322).
inline constexpr accumulation bf16_fp32_acc{.input = bfloat16, .products = product_mode::exact, .accumulator = binary32};
/// OCP E4M3 inputs, exact products, binary32 accumulation on CUDA cores.
inline constexpr accumulation e4m3_fp32_acc{.input = float8_e4m3fn, .products = product_mode::exact,
                                            .accumulator = binary32};
/// binary32 data, a binary32 fma chain: C `acc = fmaf(a[i], b[i], acc)`.
inline constexpr accumulation fp32_fma{.input = binary32, .products = product_mode::fused, .accumulator = binary32};
/// binary32 data, exact products, binary64 accumulation (`double acc += (double)a * b`).
inline constexpr accumulation fp64_acc{.input = binary32, .products = product_mode::exact, .accumulator = binary64};
}  // namespace accumulations

/// A preset and its name.
struct named_accumulation {
  std::string_view name;
  accumulation model;
  std::string_view description;
};

inline constexpr named_accumulation named_accumulations[] = {
    {"fp16-acc", accumulations::fp16_acc, "fp16 inputs, products rounded to fp16, fp16 accumulator (no fma)"},
    {"fp16-fma", accumulations::fp16_fma, "fp16 inputs, fp16 fma chain"},
    {"fp16-pairwise", accumulations::fp16_pairwise, "fp16-acc in pairwise order"},
    {"fp16-blocked", accumulations::fp16_blocked, "fp16-acc in blocks of 32"},
    {"fp16-kahan", accumulations::fp16_kahan, "fp16-acc with Kahan compensation in fp16"},
    {"fp16-neumaier", accumulations::fp16_neumaier, "fp16-acc with Neumaier compensation in fp16"},
    {"fp32-acc", accumulations::fp32_acc, "fp16 inputs, exact products, fp32 accumulator (fp32 fma chain)"},
    {"fp16-mul-fp32-acc", accumulations::fp16_mul_fp32_acc, "fp16 inputs, products rounded to fp16, fp32 accumulator"},
    {"fp32-split-k", accumulations::fp32_split_k, "fp32-acc split into 4 K-slices"},
    {"bf16-acc", accumulations::bf16_acc, "bf16 inputs, products rounded to bf16, bf16 accumulator (no fma)"},
    {"bf16-fp32-acc", accumulations::bf16_fp32_acc, "bf16 inputs, exact products, fp32 accumulator"},
    {"e4m3-fp32-acc", accumulations::e4m3_fp32_acc, "e4m3 inputs, exact products, fp32 accumulator"},
    {"fp32-fma", accumulations::fp32_fma, "fp32 inputs, fp32 fma chain"},
    {"fp64-acc", accumulations::fp64_acc, "fp32 inputs, exact products, fp64 accumulator"},
};

/// The preset names, comma-separated, for help texts and error messages.
inline std::string known_accumulation_names() {
  std::string out;
  for (const auto& n : named_accumulations) {
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

/// A preset by name ("fp16-acc", ...). On failure returns nullopt and, when `error` is given,
/// stores a message that lists the known names.
inline std::optional<accumulation> accumulation_by_name(std::string_view name, std::string* error = nullptr) {
  for (const auto& n : named_accumulations)
    if (n.name == name) return n.model;
  if (error) *error = "unknown accumulation model '" + std::string(name) + "' (known: " + known_accumulation_names() + ")";
  return std::nullopt;
}

/// One line that says what a model does, generated from its fields, e.g.
/// "fp16 inputs, products rounded to fp16, fp16 accumulator (nearest_even), sequential".
inline std::string describe(const accumulation& m) {
  std::string out = format_name(m.input) + " inputs, ";
  switch (m.products) {
    case product_mode::exact: out += "exact products"; break;
    case product_mode::rounded: out += "products rounded to " + format_name(m.product_format); break;
    case product_mode::fused: out += "fused multiply-add"; break;
  }
  out += ", " + format_name(m.accumulator) + " accumulator (" + std::string(rounding_name(m.accumulator_env.mode)) + ")";
  out += ", ";
  out += summation_order_name(m.order);
  if (m.order == summation_order::blocked) out += " (block " + std::to_string(m.block_size) + ")";
  if (m.order == summation_order::split_k) out += " (" + std::to_string(m.splits) + " splits)";
  if (m.compensation != compensation::none) {
    out += ", ";
    out += compensation_name(m.compensation);
    out += " compensation";
  }
  return out;
}

}  // namespace lf

// The engines behind the non-template sum, dot and gemm above, for the accessors they use. With
// LIBFLOAT_SEPARATE_RUNTIME (CMake target libfloat::runtime) a translation unit only declares
// them; libfloat/src/models_instances.cpp compiles them once. The same code either way.
#define LIBFLOAT_ACCUMULATE_INSTANCES(prefix)                                                                  \
  namespace lf::detail {                                                                                        \
  prefix template value sum_impl<span_get>(const accumulation&, span_get, std::size_t, const std::optional<value>&, \
                                           status*, trace*, std::uint64_t);                                     \
  prefix template value dot_impl<span_get, span_get>(const accumulation&, span_get, span_get, std::size_t,      \
                                                     const std::optional<value>&, status*, trace*, std::uint64_t); \
  prefix template void gemm_impl<span_get, span_get, span_get, span_set>(const accumulation&, std::size_t,       \
                                                                         std::size_t, std::size_t, span_get,      \
                                                                         span_get, span_get, span_set, status*,   \
                                                                         unsigned);                              \
  }
#if defined(LIBFLOAT_SEPARATE_RUNTIME)
LIBFLOAT_ACCUMULATE_INSTANCES(extern)
#endif
