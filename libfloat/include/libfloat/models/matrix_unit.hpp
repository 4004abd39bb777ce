// libfloat/models/matrix_unit.hpp: bit-accurate models of matrix units (NVIDIA tensor cores): the
// block fused multiply-add D = A*B + C as the hardware computes it, and the per-architecture
// presets (models/matrix_unit_presets.hpp).
//
// API (everything in namespace lf):
//   struct matrix_unit                  the model's parameters, as data (like lf::format)
//   namespace matrix_units              the presets: volta_fp16 ... blackwell_fp8, cuda_core_fp32,
//                                       deepseek_fp8_promote128, each citing its source
//   matrix_unit_presets[], matrix_unit_by_name(name)     the presets by name
//   fp32 dot(const matrix_unit&, std::span<const fp16> a, std::span<const fp16> b, fp32 c,
//            status* = nullptr)        also for bf16, tf32, fp8_e4m3, fp8_e5m2, and any mix
//                                      (template over fp<F>, fp<G>)
//   bits_t dot(const matrix_unit&, const format& fa, std::span<const bits_t> a,
//              const format& fb, std::span<const bits_t> b, bits_t c, status&)   run-time formats,
//                                      c and the result in mu.output
//   void gemm(const matrix_unit&, M, N, K, A, B, C, status* = nullptr)   C = A*B + C, row-major,
//                                      one dot per element (deterministic)
//   unit_operand_format(mu), unit_converts_input(mu, format), unit_input_env(mu)
//                                      which data the unit converts first, and how
//
// The block-FMA model (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor
// cores", PeerJ Comput. Sci. 7:e330, 2021; Khattak and Mikaitis, github.com/north-numerical-
// computing/MATLAB-tensor-core, models/tools/Generic_BFMA_TC.m; MMA-Sim, arXiv 2511.10909).
// For one block of at most N products and the accumulator c (a value of the output format):
//  1. every product a_i*b_i is exact: significands multiplied, exponents added;
//  2. each nonzero term has an alignment exponent: for a product e(a) + e(b), for c e(c), where
//     e(x) = max(floor(log2|x|), emin of x's format), the exponent field's value (a product's
//     significand is then in [0, 4), c's in [0, 2)); emax = the largest of them;
//  3. every term is truncated onto the grid 2^(emax - F) (F = alignment_bits): toward zero in
//     sign-magnitude (the hardware's alignment shifter drops the bits it shifts out); this is a
//     rounding, decided by detail::round_shift with rounding::toward_zero (or downward for
//     alignment_rounding::floor), the core's own decision function;
//  4. the truncated terms are summed exactly (the hardware has enough carry bits);
//  5. one normalisation: the sum is rounded once, by detail::round_pack, to a format with the
//     output's exponent range and output_fraction_bits fraction bits under final_rounding
//     (toward_zero for binary32 output, nearest_even for binary16 output), then converted
//     exactly to the output format; the output's subnormals are kept (or flushed, FTZ);
//  6. K > N is a chain of blocks: each block's result is the next block's c.
// With alignment_rounding::exact (a block is its exact sum with c, rounded once: CDNA1 as
// MATLAB-tensor-core models it), binary16 or bfloat16 inputs, binary32 output, nearest even,
// subnormals kept and blocks of up to 16, binary64 sums and one binary64 addition or hardware
// conversion per block compute it (fast/exact_block_dot.hpp: the same bits and flags; blocks it
// cannot take are the general path's).
// Why F relative to e(a) + e(b) and not to the normalised product exponent: the MATLAB models
// align unnormalised products (significands in [1, 4)) and give the alignment one extra bit when
// the largest product is >= 2 (Generic_BFMA_TC.m, fpbits_IEEE2, "spcFlag"), which is the same grid.
//
// Specials (not measured bit-for-bit on hardware; the MATLAB models' rules): a NaN operand, 0*inf
// or +inf together with -inf gives NaN (the output format's default NaN: payloads are not
// propagated); otherwise an infinite product or c gives that infinity. A result beyond the
// output's range is +-inf whatever final_rounding (the MATLAB models return Inf when the
// truncated exponent overflows). An exact zero result is +0, or -0 when every term was -0; with
// positive_zero (the Hopper presets, as an H200 gives) every zero result is +0.
// Flags (status): invalid for a signaling NaN operand, 0*inf, inf - inf, an invalid unit
// (matrix_unit::valid() false) or mismatched lengths; overflow (+ inexact) for a result beyond
// range; inexact when the alignment or the normalisation dropped bits; underflow when the result
// is tiny (after rounding) and inexact. Subnormal inputs flushed by input_subnormals raise nothing.
// Plus the flags of the input conversion, when there is one (Input conversion, below).
//
// Errors: mismatched lengths (a.size() != b.size(); gemm: A, B, C not M*K, K*N, M*N) and invalid
// units are reported, not thrown or asserted: the result is NaN (the output's default NaN; gemm:
// every element of C) and status::invalid is raised.
//
// K = 0: dot returns c unchanged (no block runs).
//
// Input conversion. Data wider than the unit's operand type (binary32 data on a tf32 unit, as a
// cuBLAS TF32 GEMM reads fp32 matrices; binary32 or binary64 on fp16, bf16 and FP8 units) is
// first converted to mu.input, each operand once, by lf::convert under mu.input_rounding
// (toward_zero: the low fraction bits dropped; nearest_even), subnormal inputs read
// as zero when input_subnormals flushes them; the block FMA then runs on the converted values,
// on the general or the fast path alike. The conversion's flags (inexact, underflow, overflow;
// invalid for a signaling NaN) join the unit's. Narrower and overlapping formats are used as they
// are (unit_converts_input). The CUDA-core model converts every input to its output format under
// input_rounding (exact for the formats that fit).
//
// The two other models (matrix_unit::model):
//  - cuda_core_fma: c = fma(a_i, b_i, c) for i = 0, 1, ..., each fma correctly rounded in the
//    output format under final_rounding (lf::fma): what a CUDA-core loop with fmaf does. Inputs
//    are converted to the output format first (exact for every preset: fp16, bf16, tf32 and FP8
//    values are binary32 values). For binary16/FP8 inputs, binary32 output, nearest even and kept
//    subnormals the chain runs on the hardware adder when that gives the same bits and flags
//    (fast/dot.hpp).
//  - fp8_promotion: DeepSeek-V3 technical report (arXiv 2412.19437) §3.3.2: the tensor core
//    (the block-FMA parameters of this unit: N, F, output_fraction_bits) accumulates
//    promotion_interval products at a time, starting from +0; each such partial result is added
//    into an FP32 accumulator on the CUDA cores with lf::add in the output format, nearest even.
//    That accumulator starts at c. The per-block scaling factors DeepSeek multiplies in at the
//    same time are not modelled (scale 1).
//  - pairwise_tree: AMD CDNA1 as MMA-Sim models it and CDNA2 (MI210, MI250X) as both MMA-Sim
//    (arXiv 2511.10909, mmasim/simulator/arithmetic.py, the pairwise path) and MATLAB-tensor-core
//    (models/MI210MC.m: pair_wise_sum = 1; Generic_BFMA_TC.m, pws_main / pws_fma) model it. K is
//    cut into blocks of N products, chained as the block FMA's (step 6). In one block of n <= N
//    products: the operands are converted to the output format (exact for the presets: fp16 and
//    bf16 values are binary32 values); each product a_i * b_i is rounded to the output format under
//    final_rounding (an fmaf(a, b, 0)); the N products (the missing ones of a short last block are
//    +0, as MATLAB's zero padding) are added as a binary tree, the first half's sum plus the second
//    half's, halves split at floor(len / 2), each add rounded to the output format; then
//    d = c + tree, rounded the same way. Subnormals: input_subnormals = flush reads a subnormal a_i
//    or b_i (in its own format) as +0; output_subnormals = flush reads a subnormal c as +0 and
//    replaces every subnormal product, tree node and d, after its rounding, by a zero of its sign,
//    raising underflow and inexact (MI200's MFMA flushes subnormal inputs and outputs: AMD ROCm
//    MIOpen documentation, "MI200 MFMA behavior specifics"). Each rounding raises its IEEE flags;
//    a NaN result is the output's default NaN. The zero signs are the models' (neither source
//    measured them on hardware). With binary16 or bfloat16 inputs (both the same), binary32
//    output, nearest even and blocks of 2, 4 or 8, the hardware's binary32 operations compute it
//    (fast/pairwise_dot.hpp: the same bits and flags; it declines for non-finite data).
//  - late_accumulation: AMD CDNA3 (MI300A, MI300X) as MATLAB-tensor-core (models/MI300MC.m at
//    commit b4bf135, deleted since; Generic_BFMA_TC.m: global_alignment, late_partial_sum,
//    odd_even_grouping, armode 'rd') and MMA-Sim (amd_fused_dot_rd_add) model it. In one block, the
//    nonzero products (a zero product takes no part: MATLAB's choice; MMA-Sim gives a zero operand
//    the exponent -126) are cut toward zero onto 2^(M - F), M the largest e(a) + e(b) (step 2), c
//    left out, and summed exactly: S. With odd_even_halves the even and the odd positions of the
//    block are two such sums, and the one with the smaller M is floored (toward -inf) onto the
//    other's grid before they are added. Then c, with e(c) = emin for a zero c: when e(c) > M, S is
//    floored onto 2^(e(c) - F - late_extra_bits) and c added exactly there; otherwise c is floored
//    onto 2^(M - F) and added, or dropped when e(c) < M - late_c_drop (late_c_drop > 0). The sum is
//    rounded once (step 5; an exact zero is +0). A product of magnitude 2^(emax + 1) or more makes
//    the block +-inf, NaN with both signs (invalid), c ignored (MATLAB's prd_limit). Specials as the
//    block FMA's. With binary16 or bfloat16 inputs, binary32 output, nearest even, subnormals
//    kept, blocks of up to 32, F <= 28 and no halves or dropping of c, integer blocks and one
//    binary64 addition or hardware conversion per block compute it (fast/late_dot.hpp: the same
//    bits and flags; it declines for non-finite data).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/dot.hpp>
#include <libfloat/fast/exact_block_dot.hpp>
#include <libfloat/fast/late_dot.hpp>
#include <libfloat/fast/matrix_block.hpp>
#include <libfloat/fast/pairwise_dot.hpp>
#include <libfloat/models/detail/block_fma.hpp>
#include <libfloat/models/detail/span_get.hpp>
#include <libfloat/models/exact.hpp>
#include <libfloat/models/matrix_unit_presets.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

namespace lf {
namespace detail {

/// A chain of blocks over [first, first + n) (step 6), starting from c: the fast path where it
/// applies (both input formats among binary16, bfloat16, tfloat32, E4M3, E5M2, the same format or
/// the two FP8 formats mixed), else block_chain_general. The same result and flags either way.
template <class A, class B>
bits_t block_chain(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first, std::size_t n,
                   bits_t c, status& st) {
  constexpr format SA = static_format_of<A>, SB = static_format_of<B>;
  if constexpr (SA != format{} && SB != format{}) {
    if constexpr (fast_format(SA) && fast_format(SB) && (SA == SB || (SA.bits() == 8 && SB.bits() == 8)))
      if (block_fast_applies(mu) && a.fmt == SA && b.fmt == SB) return block_chain_fast<SA, SB>(mu, a, b, first, n, c, st);
  } else if (block_fast_applies(mu)) {
    const named_id ia = named_id_of(a.fmt), ib = named_id_of(b.fmt);
    if (ia == ib) {
      switch (ia) {
        case named_id::binary16: return block_chain_fast<binary16, binary16>(mu, a, b, first, n, c, st);
        case named_id::bfloat16: return block_chain_fast<bfloat16, bfloat16>(mu, a, b, first, n, c, st);
        case named_id::tfloat32: return block_chain_fast<tfloat32, tfloat32>(mu, a, b, first, n, c, st);
        case named_id::e4m3: return block_chain_fast<float8_e4m3fn, float8_e4m3fn>(mu, a, b, first, n, c, st);
        case named_id::e5m2: return block_chain_fast<float8_e5m2, float8_e5m2>(mu, a, b, first, n, c, st);
        default: break;
      }
    } else if (ia == named_id::e4m3 && ib == named_id::e5m2) {
      return block_chain_fast<float8_e4m3fn, float8_e5m2>(mu, a, b, first, n, c, st);
    } else if (ia == named_id::e5m2 && ib == named_id::e4m3) {
      return block_chain_fast<float8_e5m2, float8_e4m3fn>(mu, a, b, first, n, c, st);
    }
  }
  return block_chain_general(mu, a, b, first, n, c, st);
}

/// matrix_unit_model::pairwise_tree (the file comment): a subnormal nonzero encoding of f.
constexpr bool pairwise_subnormal(const format& f, bits_t x) {
  const bits_t mag = x & ~f.sign_mask() & f.encoding_mask();
  return mag != 0 && (mag & f.exponent_mask()) == 0 && f.has_subnormals();
}

/// A rounded result r of the output format, flushed to a zero of its sign when the unit flushes
/// subnormal outputs and r is one (underflow and inexact raised).
/// This is not the core's subnormal_results::flush_to_zero, on purpose: that policy flushes a
/// result that is tiny per lf::tininess, judged on the value before it meets the subnormal grid,
/// so a value just below 2^emin that rounds up to 2^emin on that grid (for binary16,
/// (1 - 2^-11) * 2^-14 in nearest even) becomes 0 there. MMA-Sim (simulator/amd.py:
/// flush_denormal applied to the rounded tensor) and MATLAB-tensor-core (Generic_BFMA_TC.m,
/// pws_main: d = d*(abs(d) >= min_out) after each single-precision fma) round to the output first and
/// flush what is subnormal after, so that value stays 2^emin here. tests/models/test_matrix_unit.cpp
/// checks the case on a unit with a binary16 output.
inline bits_t pairwise_flush(const matrix_unit& mu, bits_t r, status& st) {
  if (mu.output_subnormals != subnormal_handling::flush || !pairwise_subnormal(mu.output, r)) return r;
  st |= status::underflow | status::inexact;
  return r & mu.output.sign_mask();
}

/// One pairwise_tree block over [first, first + n), n <= N, starting from c.
template <class A, class B>
bits_t pairwise_block(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first, std::size_t n,
                      bits_t c, status& st) {
  const format& fo = mu.output;
  const env e{mu.final_rounding};
  const bool daz = mu.input_subnormals == subnormal_handling::flush;
  auto input = [&](const format& f, bits_t x) {
    if (daz && pairwise_subnormal(f, x)) x = 0;  // +0 (MMA-Sim's flush of the operands)
    return convert(fo, f, x, e, st);              // exact for the presets' formats
  };
  auto product = [&](std::size_t i) {
    return pairwise_flush(mu, mul(fo, input(a.fmt, a.get(first + i)), input(b.fmt, b.get(first + i)), e, st), st);
  };
  // The tree over leaves [lo, hi) of the N-leaf block; leaves at or past n are +0 (a subtree of
  // them sums to +0 exactly, in every rounding direction, so it is not computed).
  auto tree = [&](auto&& self, std::size_t lo, std::size_t hi) -> bits_t {
    if (lo >= n) return 0;
    if (hi - lo == 1) return product(lo);
    const std::size_t mid = lo + (hi - lo) / 2;
    const bits_t l = self(self, lo, mid), r = self(self, mid, hi);
    return pairwise_flush(mu, add(fo, l, r, e, st), st);
  };
  if (mu.output_subnormals == subnormal_handling::flush && pairwise_subnormal(fo, c)) c = 0;  // +0
  const bits_t sum = tree(tree, 0, static_cast<std::size_t>(mu.block_size));
  const bits_t d = pairwise_flush(mu, add(fo, c, sum, e, st), st);
  return is_nan_bits(fo, d) ? fo.default_nan_bits() : d;
}

/// The typed entries' operand: a contiguous array of fp<F> (i -> p[i].bits()), whose objects are
/// their encodings (the fast blocks load them as vectors of integers).
template <format F>
struct fp_array_get {
  static_assert(sizeof(fp<F>) == sizeof(typename fp<F>::storage_type));
  const fp<F>* p;
  LIBFLOAT_INLINE constexpr bits_t operator()(std::size_t i) const { return p[i].bits(); }
  constexpr const fp<F>* data() const { return p; }
};

template <class A, class B>
bits_t unit_dot(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t n, bits_t c, status& st);
template <class A, class B>
bits_t unit_dot_signed(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t n, bits_t c,
                       status& st);

/// unit_dot with the operands of a wider format converted first (unit_converts_input), each once,
/// by lf::convert under unit_input_env: the general and the fast block paths then see the same
/// operands of mu.input. The conversions' flags join the unit's.
template <class A, class B>
[[gnu::noinline]] bits_t unit_dot_converting(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                             std::size_t n, bits_t c, status& st) {
  const env e = unit_input_env(mu);
  auto take = [&](const auto& x, std::vector<bits_t>& out) {
    const bool conv = unit_converts_input(mu, x.fmt);
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = conv ? convert(mu.input, x.fmt, x.get(i), e, st) : x.get(i);
    return conv ? mu.input : x.fmt;
  };
  std::vector<bits_t> va, vb;
  const format fa = take(a, va), fb = take(b, vb);
  // (span_get, the run-time-format entries' operand: this adds no instantiation of the paths)
  return unit_dot(mu, operand{fa, span_get{va}}, operand{fb, span_get{vb}}, n, c, st);
}

/// The whole dot product a . b + c under mu; c and the result in mu.output.
template <class A, class B>
bits_t unit_dot(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t n, bits_t c, status& st) {
  if (!mu.valid()) {
    st |= status::invalid;
    return mu.output.valid() ? mu.output.default_nan_bits() : binary32.default_nan_bits();
  }
  const bool block_model = mu.model != matrix_unit_model::cuda_core_fma;
  if (block_model && (unit_converts_input(mu, a.fmt) || unit_converts_input(mu, b.fmt))) [[unlikely]]
    return unit_dot_converting(mu, a, b, n, c, st);
  // (a zero's sign only decides the sign of a zero result, so +0 for the final result alone is +0
  // for every block's)
  const bits_t r = unit_dot_signed(mu, a, b, n, c, st);
  return mu.positive_zero && (r & ~mu.output.sign_mask()) == 0 ? bits_t{0} : r;
}

/// unit_dot without positive_zero (the zero signs of the models).
template <class A, class B>
bits_t unit_dot_signed(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t n, bits_t c,
                       status& st) {
  switch (mu.model) {
    case matrix_unit_model::block_fma: {
      // Exact alignment, binary16 or bfloat16 in, binary32 nearest-even out (exact_block_fast_unit):
      // binary64 sums and one hardware conversion per block give the same bits and flags
      // (fast/exact_block_dot.hpp); it declines only for a caller's MXCSR other than the default.
      if (dot_fast_built && a.fmt == b.fmt && exact_block_fast_unit(mu)) {
        std::uint32_t r = 0;
        status s{};
        if (exact_block_f32_nearest<static_format_of<A>>(mu, a.fmt, a.get, b.get, n, static_cast<std::uint32_t>(c), r,
                                                         s)) {
          st |= s;
          return r;
        }
      }
      return block_chain(mu, a, b, 0, n, c, st);
    }
    case matrix_unit_model::cuda_core_fma: {
      // binary16 (or E5M2, E4M3) in, binary32 nearest-even out, subnormals kept: the hardware's
      // own binary32 adds give the same bits and flags (fast/dot.hpp); it declines for
      // non-finite data.
      if (dot_fast_built && n > 0 && a.fmt == b.fmt && dot_fast_input(a.fmt) && mu.output == binary32 &&
          mu.final_rounding == rounding::nearest_even && mu.input_subnormals == subnormal_handling::keep &&
          mu.output_subnormals == subnormal_handling::keep) {
        std::uint32_t r = 0;
        status s{};
        if (dot_f32_nearest(a.fmt, a.get, b.get, n, static_cast<std::uint32_t>(c), r, s)) {
          st |= s;
          return r;
        }
      }
      const env e = unit_env(mu, mu.final_rounding);
      const env in = unit_input_env(mu);  // exact for inputs that fit in the output format
      for (std::size_t i = 0; i < n; ++i) {
        const bits_t x = convert(mu.output, a.fmt, a.get(i), in, st);
        const bits_t y = convert(mu.output, b.fmt, b.get(i), in, st);
        c = fma(mu.output, x, y, c, e, st);
      }
      return c;
    }
    case matrix_unit_model::late_accumulation: {
      // binary16, bfloat16 or FNUZ FP8 in, binary32 nearest-even out (late_fast_unit): integer blocks and
      // one hardware conversion per block give the same bits and flags (fast/late_dot.hpp); it
      // declines for non-finite data.
      if (dot_fast_built && a.fmt == b.fmt && late_fast_unit(mu)) {
        std::uint32_t r = 0;
        status s{};
        if (late_f32_nearest<static_format_of<A>>(mu, a.fmt, a.get, b.get, n, static_cast<std::uint32_t>(c), r, s)) {
          st |= s;
          return r;
        }
      }
      return block_chain_general(mu, a, b, 0, n, c, st);
    }
    case matrix_unit_model::pairwise_tree: {
      // binary16 or bfloat16 in, binary32 nearest-even out: the hardware's binary32 operations
      // give the same bits and flags (fast/pairwise_dot.hpp); it declines for non-finite data.
      if (dot_fast_built && a.fmt == b.fmt && mu.output == binary32 && mu.final_rounding == rounding::nearest_even) {
        std::uint32_t r = 0;
        status s{};
        if (pairwise_f32_nearest<static_format_of<A>>(a.fmt, mu.block_size,
                                                      mu.input_subnormals == subnormal_handling::flush,
                                                      mu.output_subnormals == subnormal_handling::flush, a.get, b.get,
                                                      n, static_cast<std::uint32_t>(c), r, s)) {
          st |= s;
          return r;
        }
      }
      const auto N = static_cast<std::size_t>(mu.block_size);
      for (std::size_t s = 0; s < n; s += N) c = pairwise_block(mu, a, b, s, n - s < N ? n - s : N, c, st);
      return c;
    }
    case matrix_unit_model::fp8_promotion: {
      const auto P = static_cast<std::size_t>(mu.promotion_interval);
      const env e = unit_env(mu, rounding::nearest_even);
      for (std::size_t s = 0; s < n; s += P) {
        const bits_t partial = block_chain(mu, a, b, s, n - s < P ? n - s : P, zero_bits(mu.output, false), st);
        c = add(mu.output, c, partial, e, st);
      }
      return c;
    }
  }
  return c;
}

}  // namespace detail

/// The dot product a . b + c on matrix unit mu, with run-time formats: a and b are encodings of
/// fa and fb, c and the result encodings of mu.output. Mismatched lengths or an invalid unit:
/// the output's default NaN and status::invalid.
inline bits_t dot(const matrix_unit& mu, const format& fa, std::span<const bits_t> a, const format& fb,
                  std::span<const bits_t> b, bits_t c, status& st) {
  if (a.size() != b.size()) {
    st |= status::invalid;
    return mu.output.default_nan_bits();
  }
  const detail::operand oa{fa, detail::span_get{a}};
  const detail::operand ob{fb, detail::span_get{b}};
  return detail::unit_dot(mu, oa, ob, a.size(), c, st);
}

/// The dot product a . b + c on matrix unit mu (typed). c is converted to mu.output (exact for
/// binary32 output; nearest even otherwise) and the result widened to fp32 (exact for the
/// outputs a matrix unit has: binary32, binary16). Flags are ORed into *st.
template <format F, format G>
fp32 dot(const matrix_unit& mu, std::span<const fp<F>> a, std::span<const fp<G>> b, fp32 c, status* st = nullptr) {
  status s{};
  bits_t r;
  if (a.size() != b.size()) {
    s |= status::invalid;
    r = mu.output.default_nan_bits();
  } else {
    const bits_t cb = convert(mu.output, binary32, c.bits(), env{}, s);
    const detail::operand oa{F, detail::make_typed_get<F>(detail::fp_array_get<F>{a.data()})};
    const detail::operand ob{G, detail::make_typed_get<G>(detail::fp_array_get<G>{b.data()})};
    r = detail::unit_dot(mu, oa, ob, a.size(), cb, s);
  }
  status ignored{};
  const bits_t out = mu.output == binary32 ? r : convert(binary32, mu.output, r, env{}, ignored);
  detail::report(st, s);
  return fp32::from_bits(static_cast<std::uint32_t>(out));
}

// The stable calls: plain overloads, so that spans built from braces,
// std::vector or std::array convert implicitly.
#define LIBFLOAT_MATRIX_UNIT_DOT(T)                                                                       \
  inline fp32 dot(const matrix_unit& mu, std::span<const T> a, std::span<const T> b, fp32 c, status* st = nullptr) { \
    return dot<T::fmt, T::fmt>(mu, a, b, c, st);                                                         \
  }
LIBFLOAT_MATRIX_UNIT_DOT(fp16)
LIBFLOAT_MATRIX_UNIT_DOT(bf16)
LIBFLOAT_MATRIX_UNIT_DOT(tf32)
LIBFLOAT_MATRIX_UNIT_DOT(fp8_e4m3)
LIBFLOAT_MATRIX_UNIT_DOT(fp8_e5m2)
#undef LIBFLOAT_MATRIX_UNIT_DOT

/// C = A*B + C on matrix unit mu: A is M x K, B is K x N, C is M x N, all row-major. Each C_ij is
/// dot(mu, row i of A, column j of B, C_ij): deterministic, single-threaded. Sizes that do not
/// match: every element of C becomes NaN and status::invalid is raised.
template <format F, format G>
void gemm(const matrix_unit& mu, std::size_t M, std::size_t N, std::size_t K, std::span<const fp<F>> A,
          std::span<const fp<G>> B, std::span<fp32> C, status* st = nullptr) {
  status s{};
  if (A.size() != M * K || B.size() != K * N || C.size() != M * N) {
    s |= status::invalid;
    for (auto& x : C) x = fp32::from_bits(static_cast<std::uint32_t>(binary32.default_nan_bits()));
    detail::report(st, s);
    return;
  }
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const detail::operand oa{F, detail::make_typed_get<F>(detail::fp_array_get<F>{A.data() + i * K})};
      const detail::operand ob{G, detail::make_typed_get<G>([&B, j, N](std::size_t k) { return bits_t{B[k * N + j].bits()}; })};
      const bits_t cb = convert(mu.output, binary32, C[i * N + j].bits(), env{}, s);
      const bits_t r = detail::unit_dot(mu, oa, ob, K, cb, s);
      status ignored{};
      const bits_t out = mu.output == binary32 ? r : convert(binary32, mu.output, r, env{}, ignored);
      C[i * N + j] = fp32::from_bits(static_cast<std::uint32_t>(out));
    }
  detail::report(st, s);
}

#define LIBFLOAT_MATRIX_UNIT_GEMM(T)                                                                      \
  inline void gemm(const matrix_unit& mu, std::size_t M, std::size_t N, std::size_t K, std::span<const T> A, \
                   std::span<const T> B, std::span<fp32> C, status* st = nullptr) {                      \
    gemm<T::fmt, T::fmt>(mu, M, N, K, A, B, C, st);                                                      \
  }
LIBFLOAT_MATRIX_UNIT_GEMM(fp16)
LIBFLOAT_MATRIX_UNIT_GEMM(bf16)
LIBFLOAT_MATRIX_UNIT_GEMM(tf32)
LIBFLOAT_MATRIX_UNIT_GEMM(fp8_e4m3)
LIBFLOAT_MATRIX_UNIT_GEMM(fp8_e5m2)
#undef LIBFLOAT_MATRIX_UNIT_GEMM

}  // namespace lf

// The matrix-unit engine behind the run-time-format dot above, and the typed dot and gemm behind
// the plain overloads. With LIBFLOAT_SEPARATE_RUNTIME (CMake target libfloat::runtime) a
// translation unit only declares them; the library compiles them once, in three files that build in
// parallel (the engine in libfloat/src/models_instances.cpp, the typed forms in
// matrix_unit_16bit_instances.cpp and matrix_unit_tf32_fp8_instances.cpp). The same code either way.
#define LIBFLOAT_MATRIX_UNIT_ENGINE_INSTANCE(prefix)                                                          \
  namespace lf {                                                                                              \
  prefix template bits_t detail::unit_dot<detail::span_get, detail::span_get>(                                \
      const matrix_unit&, const detail::operand<detail::span_get>&, const detail::operand<detail::span_get>&, \
      std::size_t, bits_t, status&);                                                                          \
  }
#define LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, T)                                                                \
  namespace lf {                                                                                                       \
  prefix template fp32 dot<T::fmt, T::fmt>(const matrix_unit&, std::span<const T>, std::span<const T>, fp32, status*); \
  prefix template void gemm<T::fmt, T::fmt>(const matrix_unit&, std::size_t, std::size_t, std::size_t,                 \
                                            std::span<const T>, std::span<const T>, std::span<fp32>, status*);         \
  }
// The typed instances in the two groups that the library's two files define, and every instance,
// for the declarations below.
#define LIBFLOAT_MATRIX_UNIT_16BIT_INSTANCES(prefix)  \
  LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, fp16) \
  LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, bf16)
#define LIBFLOAT_MATRIX_UNIT_TF32_FP8_INSTANCES(prefix)   \
  LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, tf32)     \
  LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, fp8_e4m3) \
  LIBFLOAT_MATRIX_UNIT_TYPED_INSTANCES(prefix, fp8_e5m2)
#define LIBFLOAT_MATRIX_UNIT_INSTANCES(prefix)   \
  LIBFLOAT_MATRIX_UNIT_ENGINE_INSTANCE(prefix)   \
  LIBFLOAT_MATRIX_UNIT_16BIT_INSTANCES(prefix)   \
  LIBFLOAT_MATRIX_UNIT_TF32_FP8_INSTANCES(prefix)
#if defined(LIBFLOAT_SEPARATE_RUNTIME)
LIBFLOAT_MATRIX_UNIT_INSTANCES(extern)
#endif
