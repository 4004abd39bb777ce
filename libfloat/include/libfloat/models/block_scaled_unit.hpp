// libfloat/models/block_scaled_unit.hpp: block-scaled matrix units. NVIDIA Blackwell multiplies
// block-scaled operands in the tensor core itself (PTX ISA, tcgen05.mma and mma.sync with
// .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4, "Block Scaling"): D = (A * scale_A) * (B * scale_B) + C,
// each run of 32 (or 16) elements along K multiplied by its own scale.
//
//   block_scaled_unit                   instruction K, product grouping, alignment bits F, final rounding
//   block_scaled_units::blackwell_mxf8f6f4, blackwell_mxf4      the presets (block_scaled_unit_presets)
//   block_scaled_dot(u, a, ra, b, rb, c, st)     row ra of a . row rb of b + c   (a: M x K, b: N x K)
//   block_scaled_gemm(u, a, bt, c, st)           C = A * B + C with B given transposed (N x K)
//
// The operands are lf::block_quantized (models/block_scale.hpp: lf::mx_quantize): element codes and
// scale codes as the hardware reads them.
//
// The rule is MMA-Sim's (Microsoft, arXiv 2511.10909; its simulator/functions.py,
// nv_fused_dot_add and nv_fused_dot_add_with_block_scale), a model that no recorded block-scaled
// hardware result here has checked (the H200 that this project's GPU checks run on has no such
// instruction). For one instruction of K products and the accumulator c:
//   exp(v) = max(floor(log2 |v|), emin of v's format), sig(v) = v / 2^exp(v)   (v != 0)
//   1. terms: c (X = exp(c)), and
//      - group 1 (kind::mxf8f6f4): per product, X = exp(a) + exp(b) + exp(Sa) + exp(Sb), significand
//        sig(a) sig(b) sig(Sa) sig(Sb) (an E8M0 scale's sig is 1);
//      - group 16 (kind::mxf4, mxf4nvf4): per 16 products, their exact sum s, X = exp(Sa) + exp(Sb),
//        significand s sig(Sa) sig(Sb): the group's own magnitude does not enter X;
//   2. emax = the largest X; every term truncated toward zero onto 2^(emax - F): F = 25 for
//      mxf8f6f4, 35 for the FP4 kinds (MMA-Sim's n_accum_fractional_bits);
//   3. the truncated terms summed exactly, the sum truncated to binary32 (toward zero); a sum
//      beyond binary32's range gives infinity (MMA-Sim's torch conversion does), with overflow.
//      An exactly zero sum (or no term at all, even from c = -0) gives +0, as MMA-Sim does; a
//      negative sum too small for binary32 truncates to -0 (IEEE; MMA-Sim's Python gives +0).
// Flags (the hardware has none; these say what the model did): inexact when a term lost bits or the
// final rounding was inexact; underflow with the core's tininess after rounding; overflow.
// K longer than one instruction chains: each instruction's binary32 result is the next one's c.
// NVFP4's per-tensor binary32 scales are not in the instruction; they are applied in the GEMM's
// epilogue (CUTLASS's block-scaled GEMMs take them as alpha): d = fl(fl(alpha * acc) + c) with
// alpha = fl(Ta * Tb), acc the chain from 0, fl binary32 nearest even. This library's model too.
//
// Specials: a NaN element, scale or c gives the binary32 default NaN; inf * 0 or opposite
// infinities give it with invalid; otherwise an infinite product or c gives that infinity.
// Exactness: every term is formed from doubles that hold it exactly (elements of at most 8 bits,
// scales of at most 8 bits, a binary32 c), truncated and summed in int64, and rounded once by the
// core (lf::convert from binary64: the sum times 2^(emax - F) is a double exactly, the sum staying
// below 2^53 for every valid unit; block_scaled_unit::valid says why).
// tests/models/test_block_scaled_unit.cpp checks it against an exact-rational model of the rule.
#pragma once

#include <libfloat/models/block_scale.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lf {

struct block_scaled_unit {
  int instruction_k = 32;   ///< K of one MMA instruction: the chain's step
  int group = 1;            ///< 1: each product is a term; > 1: products summed exactly in groups first
  int alignment_bits = 25;  ///< F: terms are cut onto 2^(emax - F)
  rounding final_rounding = rounding::toward_zero;  ///< the sum into binary32

  /// Parameters the implementation handles: 1 <= K <= 256, 1 <= group <= K dividing K, 0 <= F <= 37, a
  /// deterministic final rounding. With them the truncated sum stays below 2^53 (exact in binary64):
  /// a term's significand is below 16 (group 1: two elements' and two scales' significands, each
  /// below 2) or 36 * group * 4 (E2M1 products of at most 36, summed per group), so the sum is below
  /// 2^F * (144 K + 2) <= 2^(37 + 15.2).
  constexpr bool valid() const {
    return instruction_k >= 1 && instruction_k <= 256 && group >= 1 && group <= instruction_k && instruction_k % group == 0 &&
           alignment_bits >= 0 && alignment_bits <= 37 && final_rounding != rounding::stochastic;
  }
  friend constexpr bool operator==(const block_scaled_unit&, const block_scaled_unit&) = default;
};

namespace block_scaled_units {
/// Blackwell kind::mxf8f6f4 (tcgen05.mma; mma.sync on sm_120): FP8, FP6 or FP4 elements with E8M0
/// scales per 32, K = 32 per instruction, each product its own term, F = 25 (MMA-Sim TCGen05MMASim).
inline constexpr block_scaled_unit blackwell_mxf8f6f4{.instruction_k = 32, .group = 1, .alignment_bits = 25};
/// Blackwell kind::mxf4 (E2M1, E8M0 per 32) and kind::mxf4nvf4 (also E2M1 with UE4M3 per 16, NVFP4):
/// K = 64 per instruction, products summed exactly per 16, F = 35 (MMA-Sim: n_accum_fractional_bits
/// 35 for the mxf4 kinds).
inline constexpr block_scaled_unit blackwell_mxf4{.instruction_k = 64, .group = 16, .alignment_bits = 35};
}  // namespace block_scaled_units

struct named_block_scaled_unit {
  std::string_view name;
  block_scaled_unit unit;
  std::string_view kinds;     ///< the PTX kinds and operand formats it models
  std::string_view citation;  ///< where the rule comes from
};

/// Every block-scaled preset. None is checked against hardware (no recorded results exist here).
inline constexpr named_block_scaled_unit block_scaled_unit_presets[] = {
    {"blackwell_mxf8f6f4", block_scaled_units::blackwell_mxf8f6f4,
     "kind::mxf8f6f4: MXFP8, MXFP6, MXFP4 (E8M0 per 32)", "MMA-Sim arXiv 2511.10909 (TCGen05MMASim); PTX ISA block scaling"},
    {"blackwell_mxf4", block_scaled_units::blackwell_mxf4,
     "kind::mxf4, kind::mxf4nvf4: MXFP4 (E8M0 per 32), NVFP4 (UE4M3 per 16)",
     "MMA-Sim arXiv 2511.10909 (nv_fused_dot_add_with_block_scale); PTX ISA block scaling"},
};

/// A preset by name, or nullopt.
constexpr std::optional<block_scaled_unit> block_scaled_unit_by_name(std::string_view name) {
  for (const auto& p : block_scaled_unit_presets)
    if (p.name == name) return p.unit;
  return std::nullopt;
}

namespace detail {

/// A finite nonzero value v of a format with minimum exponent emin as sig * 2^x (MMA-Sim's
/// extract_significand_exponent): x = max(floor(log2 |v|), emin), sig = v / 2^x, both exact.
struct sig_exp {
  double sig;
  int x;
};
inline sig_exp split_value(double v, int emin) {
  const int x = std::max(std::ilogb(v), emin);
  return {std::ldexp(v, -x), x};
}

/// One operand row's element and scale at position k, decoded.
struct scaled_row {
  const block_quantized& q;
  std::size_t row;
  double element(std::size_t k) const { return decode_double(q.fmt.element, q.elements[row * q.cols + k]); }
  double scale(std::size_t k) const {
    const double s = decode_double(q.fmt.scale, q.scales[q.block_of(row, k)]);
    return std::isnan(s) ? s : std::fabs(s);  // NVFP4's E4M3 scales are read as UE4M3 magnitudes
  }
  std::size_t block(std::size_t k) const { return q.block_of(row, k); }
};

/// One instruction over positions [k0, k0 + n) of rows a and b, from the binary32 accumulator c.
inline float block_scaled_step(const block_scaled_unit& u, const scaled_row& a, const scaled_row& b, std::size_t k0,
                               std::size_t n, float c, status& st) {
  const float nan = std::bit_cast<float>(static_cast<std::uint32_t>(binary32.default_nan_bits()));
  // Specials first: NaN anywhere, inf * 0, opposite infinities; else an infinity wins.
  bool pos_inf = std::isinf(c) && c > 0, neg_inf = std::isinf(c) && c < 0;
  if (std::isnan(c)) return nan;
  for (std::size_t k = k0; k < k0 + n; ++k) {
    const double x = a.element(k), y = b.element(k), sx = a.scale(k), sy = b.scale(k);
    if (std::isnan(x) || std::isnan(y) || std::isnan(sx) || std::isnan(sy)) return nan;
    if (std::isinf(x) || std::isinf(y)) {
      if (x == 0 || y == 0 || sx == 0 || sy == 0) {
        st |= status::invalid;
        return nan;
      }
      ((x < 0) != (y < 0) ? neg_inf : pos_inf) = true;
    }
  }
  if (pos_inf && neg_inf) {
    st |= status::invalid;
    return nan;
  }
  if (pos_inf || neg_inf) return pos_inf ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();

  // The terms (significand, X), at most K + 1 of them.
  sig_exp terms[257];
  std::size_t count = 0;
  if (c != 0) terms[count++] = split_value(c, binary32.emin());
  const int ea_min = a.q.fmt.element.emin(), eb_min = b.q.fmt.element.emin();
  const int sa_min = a.q.fmt.scale.emin(), sb_min = b.q.fmt.scale.emin();
  const std::size_t g = static_cast<std::size_t>(u.group);
  for (std::size_t k = k0; k < k0 + n; k += g) {
    const double sx = a.scale(k), sy = b.scale(k);
    if (sx == 0 || sy == 0) continue;
    const sig_exp ssa = split_value(sx, sa_min), ssb = split_value(sy, sb_min);
    if (g == 1) {
      const double x = a.element(k), y = b.element(k);
      if (x == 0 || y == 0) continue;
      const sig_exp ex = split_value(x, ea_min), ey = split_value(y, eb_min);
      // At most 4 + 4 significant bits for elements, 1 + 4 for scales: exact in a double.
      terms[count++] = {ex.sig * ey.sig * ssa.sig * ssb.sig, ex.x + ey.x + ssa.x + ssb.x};
    } else {
      double s = 0;  // FP4 products are multiples of 2^-2 below 2^6: 16 of them sum exactly
      for (std::size_t j = k; j < std::min(k + g, k0 + n); ++j) s += a.element(j) * b.element(j);
      terms[count++] = {s * ssa.sig * ssb.sig, ssa.x + ssb.x};
    }
  }
  if (count == 0) return 0.0f;
  int emax = terms[0].x;
  for (std::size_t i = 1; i < count; ++i) emax = std::max(emax, terms[i].x);

  std::int64_t sum = 0;
  bool dropped = false;
  for (std::size_t i = 0; i < count; ++i) {
    const double shifted = std::ldexp(terms[i].sig, u.alignment_bits + terms[i].x - emax);
    const double t = std::trunc(shifted);
    dropped |= t != shifted || (shifted == 0 && terms[i].sig != 0);  // (no term is that far below emax)
    sum += static_cast<std::int64_t>(t);
  }
  if (dropped) st |= status::inexact;
  if (sum == 0) return 0.0f;
  // The sum times 2^(emax - F): exact in binary64 (|sum| < 2^53; the exponent stays inside
  // binary64's normal range: |emax| < 600 for formats of at most 8 bits), rounded once.
  const double v = std::ldexp(static_cast<double>(sum), emax - u.alignment_bits);
  if (std::fabs(v) >= 0x1p128) {
    st |= status::overflow | status::inexact;
    return v > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  }
  const bits_t r = convert(binary32, binary64, f64_bits(v), env{u.final_rounding}, st);
  return std::bit_cast<float>(static_cast<std::uint32_t>(r));
}

inline void check_block_scaled(const block_scaled_unit& u, const block_quantized& a, const block_quantized& b) {
  const std::string who = "lf::block_scaled_dot: ";
  if (!u.valid()) throw std::invalid_argument(who + "invalid unit (accepted: 1 <= K <= 256, a group dividing K, 0 <= F <= 37, a deterministic rounding)");
  if (a.cols != b.cols)
    throw std::invalid_argument(who + "a has K = " + std::to_string(a.cols) + " and b K = " + std::to_string(b.cols) +
                                " (b is given transposed: N x K)");
  if (a.fmt.int_bits != 0 || b.fmt.int_bits != 0)
    throw std::invalid_argument(who + "integer elements (MXINT8) have no block-scaled unit model here "
                                      "(Blackwell's kind::mxf8f6f4 and kind::mxf4nvf4 take FP8, FP6 and FP4 elements)");
  if (u.group > 1) {
    const auto g = static_cast<std::size_t>(u.group);
    if (a.fmt.block % g != 0 || b.fmt.block % g != 0)
      throw std::invalid_argument(who + "blocks of " + std::to_string(a.fmt.block) + " and " +
                                  std::to_string(b.fmt.block) + " elements do not hold whole groups of " +
                                  std::to_string(g));
    if (a.fmt.element != float4_e2m1fn || b.fmt.element != float4_e2m1fn)
      throw std::invalid_argument(who + "a unit that groups products takes E2M1 (float4_e2m1fn) elements only, "
                                        "as kind::mxf4 and kind::mxf4nvf4 do");
  }
}

}  // namespace detail

/// Row ra of a (M x K) times row rb of b (N x K: the B operand transposed, blocks along K) plus c on
/// unit u, with the chain over K in steps of u.instruction_k; NVFP4 tensor scales in the epilogue
/// (file comment). Flags are ORed into st. Throws std::invalid_argument for rows out of range,
/// different K, an invalid unit, or (grouping units) blocks that do not hold whole groups or
/// elements wider than 4 bits.
inline float block_scaled_dot(const block_scaled_unit& u, const block_quantized& a, std::size_t ra,
                              const block_quantized& b, std::size_t rb, float c, status& st) {
  detail::check_block_scaled(u, a, b);
  if (ra >= a.rows || rb >= b.rows)
    throw std::invalid_argument("lf::block_scaled_dot: row " + std::to_string(ra >= a.rows ? ra : rb) +
                                " of a matrix of " + std::to_string(ra >= a.rows ? a.rows : b.rows) + " rows");
  const bool tensor_scaled = a.tensor_scale != 1.0f || b.tensor_scale != 1.0f;
  const detail::scaled_row ar{a, ra}, br{b, rb};
  float acc = tensor_scaled ? 0.0f : c;
  const auto step = static_cast<std::size_t>(u.instruction_k);
  for (std::size_t k0 = 0; k0 < a.cols; k0 += step)
    acc = detail::block_scaled_step(u, ar, br, k0, std::min(step, a.cols - k0), acc, st);
  if (!tensor_scaled) return acc;
  const auto f32 = [](float v) { return static_cast<bits_t>(std::bit_cast<std::uint32_t>(v)); };
  const bits_t alpha = mul(binary32, f32(a.tensor_scale), f32(b.tensor_scale), env{}, st);
  const bits_t scaled = mul(binary32, alpha, f32(acc), env{}, st);
  return std::bit_cast<float>(static_cast<std::uint32_t>(add(binary32, scaled, f32(c), env{}, st)));
}

/// C = A * B + C on unit u: a is M x K, bt is B transposed (N x K), c is M x N row-major, updated in
/// place; each element is block_scaled_dot(u, a, i, bt, j, c_ij). Throws as block_scaled_dot, and
/// when c does not hold M * N values.
inline void block_scaled_gemm(const block_scaled_unit& u, const block_quantized& a, const block_quantized& bt,
                              std::span<float> c, status& st) {
  detail::check_block_scaled(u, a, bt);
  if (c.size() != a.rows * bt.rows)
    throw std::invalid_argument("lf::block_scaled_gemm: C holds " + std::to_string(c.size()) + " values, not " +
                                std::to_string(a.rows) + " x " + std::to_string(bt.rows));
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < bt.rows; ++j) c[i * bt.rows + j] = block_scaled_dot(u, a, i, bt, j, c[i * bt.rows + j], st);
}

}  // namespace lf
