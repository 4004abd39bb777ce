// libfloat/training/scaling_recipes.hpp: FP8 and FP4 scaling recipes for training, as NVIDIA
// Transformer Engine (TE, transformer_engine.common.recipe) names them, applied to one tensor at a
// time, bit-exactly, with what each did to the values.
//
//   fp8_current_scaling(x, rows, cols, fmt)         Float8CurrentScaling: one binary32 scale per tensor
//   fp8_delayed_scaling{config}.step(x, rows, cols) DelayedScaling: the scale from an amax history
//   fp8_blockwise_scaling(x, rows, cols, role)      Float8BlockScaling (DeepSeek-V3): 1x128 / 128x128
//   mxfp8_scaling(x, rows, cols[, rule])            MXFP8BlockScaling: E4M3, 32-element E8M0 scales
//   nvfp4_scaling(x, rows, cols, options)           NVFP4BlockScaling: E2M1, 1x16 / 16x16, SR, RHT
//   random_hadamard_transform(x, rows, cols, seed)  NVFP4's 16-point RHT of the wgrad inputs
//
// Every function takes a row-major rows x cols matrix of floats (a 1-D tensor is one row) and
// returns a recipe_result: the element encodings, the scale of every block, each value's decoded
// value (recipe_result::value), and recipe_stats: how many values became zero, saturated, lost
// precision or stayed exact, the error against the input (computed in double) and the range of the
// chosen scales.
//
// Sources:
//   - TE recipes: DelayedScaling(margin, fp8_format = HYBRID, amax_history_len = 1024,
//     amax_compute_algo = 'max' | 'most_recent'), Float8CurrentScaling, Float8BlockScaling,
//     MXFP8BlockScaling, NVFP4BlockScaling (transformer_engine/common/recipe/__init__.py); the scale
//     from an amax: transformer_engine/common/recipe/recipe_common.cuh compute_scale_from_amax; the
//     history update: transformer_engine/common/recipe/delayed_scaling.cu.
//   - DeepSeek-V3 Technical Report, arXiv 2412.19437, §3.3.2: fine-grained quantization, 1x128
//     activation tiles and 128x128 weight blocks, E4M3 on all tensors, the scale from the online
//     amax of each tile or block.
//   - OCP Microscaling Formats (MX) Specification v1.0 (2023), and NVIDIA, "Recipes for Pre-training
//     LLMs with MXFP8" (2025) for the round-up scale (models/block_scale.hpp, lf::scale_rule).
//   - NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv 2509.25149: 1x16 blocks for
//     activations and gradients, 16x16 for weights, stochastic rounding of gradients, 16x16 random
//     Hadamard transforms on the inputs of the weight-gradient GEMM.
//
// Conventions shared by every recipe:
//   - "scale" is TE's: the factor x is multiplied by before rounding into the element format, so a
//     value decodes as element / scale. For MX and NVFP4, whose stored scale X multiplies the
//     element, the reported scale is 1 / X (1 / (S * T) for NVFP4).
//   - amax follows CUDA fmaxf, as TE's amax kernels do: a NaN is ignored, an infinity counts.
//   - Elements round to nearest even and saturate (TE casts with cvt.rn.satfinite; OCP MX §6.3
//     clamps), except NVFP4 gradients (stochastic rounding).
//   - The FP8 recipes round the exact product x * scale once (x and scale are binary32, so their
//     product is exact in binary64). TE's kernels first round the product to binary32; the two agree
//     except when that first rounding lands exactly on an FP8 midpoint.
#pragma once

#include <libfloat/libfloat.hpp>
#include <libfloat/models/block_scale.hpp>

#include <algorithm>
#include <array>
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
#include <utility>
#include <vector>

namespace lf::training {

/// Which operand of a linear layer's GEMMs a tensor is: the recipes choose the format, the block
/// shape and the rounding by it.
enum class tensor_role : std::uint8_t { activation, weight, gradient };

constexpr std::string_view tensor_role_name(tensor_role r) {
  switch (r) {
    case tensor_role::activation: return "activation";
    case tensor_role::weight: return "weight";
    case tensor_role::gradient: return "gradient";
  }
  return "?";
}

/// TE's FP8 format choice (transformer_engine.common.recipe.Format): E4M3 for every tensor, or
/// HYBRID, E4M3 in the forward pass (activations, weights) and E5M2 in the backward pass
/// (gradients), the default of DelayedScaling and Float8CurrentScaling.
enum class fp8_format_choice : std::uint8_t { e4m3, hybrid };

constexpr format fp8_format_for(fp8_format_choice c, tensor_role r) {
  return c == fp8_format_choice::hybrid && r == tensor_role::gradient ? float8_e5m2 : float8_e4m3fn;
}

/// What a recipe did to a tensor. Every finite input is in exactly one of zero, saturated, inexact,
/// exact; non-finite inputs are counted apart and take no part in the errors.
struct recipe_stats {
  std::uint64_t values = 0;     ///< every element
  std::uint64_t nonfinite = 0;  ///< NaN or infinite inputs: counted apart
  /// Finite inputs that decode to NaN: they share an MX / NVFP4 block with a NaN or an infinity,
  /// whose scale is then NaN (OCP MX v1.0 §6.3). Counted apart like nonfinite.
  std::uint64_t nan_block = 0;
  std::uint64_t zero = 0;       ///< underflow: x != 0 became 0
  /// The rounding of x * scale overflowed (IEEE 754-2019 §7.4: rounded as if the exponent range
  /// were unbounded, it exceeds max) and the result was clamped to +-max. A value between max and
  /// that threshold (E4M3: 448 < |x * scale| <= 464) rounds to max as an ordinary inexact rounding.
  std::uint64_t saturated = 0;
  std::uint64_t inexact = 0;    ///< x != 0, nonzero result other than x: precision lost
  std::uint64_t exact = 0;      ///< the result is x (zero inputs included)
  std::uint64_t zero_inputs = 0;  ///< of exact: inputs that were +-0

  /// Errors of the decoded values against the inputs, in double: absolute |q - x| over the counted
  /// values (finite, not nan_block), relative |q - x| / |x| over those with x != 0 (1 for a zero).
  double max_abs_error = 0, max_rel_error = 0;
  double sum_sq_abs_error = 0, sum_sq_rel_error = 0;

  /// The scales (TE's convention, see the file comment) of the blocks that hold a nonzero finite
  /// value: the others' scales are arbitrary (1, or the smallest MX scale) and say nothing.
  double min_scale = std::numeric_limits<double>::quiet_NaN();
  double max_scale = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t scaled_blocks = 0;

  std::uint64_t counted() const { return values - nonfinite - nan_block; }
  std::uint64_t nonzero() const { return counted() - zero_inputs; }
  double rms_abs_error() const { return counted() ? std::sqrt(sum_sq_abs_error / static_cast<double>(counted())) : 0.0; }
  double rms_rel_error() const { return nonzero() ? std::sqrt(sum_sq_rel_error / static_cast<double>(nonzero())) : 0.0; }
  /// n / values (0 for an empty tensor).
  double fraction(std::uint64_t n) const { return values ? static_cast<double>(n) / static_cast<double>(values) : 0.0; }

  /// Adds another tensor's statistics (the errors and scale ranges combine exactly as if both
  /// tensors had been one).
  void merge(const recipe_stats& o) {
    values += o.values, nonfinite += o.nonfinite, nan_block += o.nan_block, zero += o.zero;
    saturated += o.saturated, inexact += o.inexact, exact += o.exact, zero_inputs += o.zero_inputs;
    max_abs_error = std::max(max_abs_error, o.max_abs_error);
    max_rel_error = std::max(max_rel_error, o.max_rel_error);
    sum_sq_abs_error += o.sum_sq_abs_error, sum_sq_rel_error += o.sum_sq_rel_error;
    if (o.scaled_blocks) {
      min_scale = scaled_blocks ? std::min(min_scale, o.min_scale) : o.min_scale;
      max_scale = scaled_blocks ? std::max(max_scale, o.max_scale) : o.max_scale;
    }
    scaled_blocks += o.scaled_blocks;
  }
};

/// The relative error of one block (for plots of the error along a tensor).
struct block_error {
  std::uint64_t nonzero = 0;  ///< counted values with x != 0
  double max_rel = 0, sum_sq_rel = 0;
  double rms_rel() const { return nonzero ? std::sqrt(sum_sq_rel / static_cast<double>(nonzero)) : 0.0; }
};

/// A quantized tensor and what the recipe did to it.
struct recipe_result {
  std::string recipe;  ///< "fp8-current", "fp8-delayed", "fp8-blockwise", "mxfp8", "nvfp4"
  format element = float8_e4m3fn;
  std::size_t rows = 0, cols = 0;
  /// Elements per block: tile_rows x tile_cols (the whole tensor for per-tensor scaling); a short
  /// last tile along either dimension covers what is left. Blocks are numbered row-major.
  std::size_t tile_rows = 1, tile_cols = 1;
  std::vector<std::uint8_t> codes;  ///< the element encodings, row-major
  /// Per block: the factor x was multiplied by before rounding (see the file comment); NaN for an
  /// MX / NVFP4 block whose scale is NaN.
  std::vector<double> scales;
  /// MX and NVFP4: the library's quantized matrix (scale encodings, NVFP4's tensor scale T).
  std::optional<block_quantized> block_scaled;
  /// NVFP4 with the random Hadamard transform: what was quantized (the transformed values rounded
  /// to binary32); the statistics compare against these. Empty otherwise.
  std::vector<float> transformed;
  bool stochastic = false;  ///< elements rounded stochastically (NVFP4 gradients)
  recipe_stats stats;
  std::vector<block_error> block_errors;  ///< one per block

  std::size_t grid_rows() const { return (rows + tile_rows - 1) / tile_rows; }
  std::size_t grid_cols() const { return (cols + tile_cols - 1) / tile_cols; }
  std::size_t block_count() const { return grid_rows() * grid_cols(); }
  std::size_t block_of(std::size_t r, std::size_t c) const { return (r / tile_rows) * grid_cols() + c / tile_cols; }

  /// The decoded value of element i as a double. MX and NVFP4: element * X (* T), exact
  /// (lf::mx_value). FP8 recipes: element / scale, the quotient rounded once to binary64 (exact
  /// whenever it is a binary64 number, e.g. for a power-of-two scale).
  double value(std::size_t i) const {
    if (block_scaled) return mx_value(*block_scaled, i);
    return lf::detail::decode_double(element, codes[i]) / scales[block_of(i / cols, i % cols)];
  }
};

namespace internal {

inline float f32_value(bits_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
inline bits_t f32_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
inline double max_finite(const format& f) { return lf::detail::decode_double(f, f.max_finite_bits()); }

/// Rounding into the element format: nearest even, saturating at +-max (TE: cvt.rn.satfinite;
/// OCP MX v1.0 §6.3 clamps).
inline constexpr env saturating_nearest{rounding::nearest_even,
                                        policy{tininess::after_rounding, {}, {}, overflow_policy::saturate}};

inline void check_matrix(const char* who, std::size_t n, std::size_t rows, std::size_t cols) {
  if (rows * cols != n)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(n) + " values do not fill a " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
}

/// A result with its geometry set and its codes and block errors sized.
inline recipe_result start_result(std::string name, const format& element, std::size_t rows, std::size_t cols,
                                  std::size_t tile_rows, std::size_t tile_cols) {
  recipe_result r;
  r.recipe = std::move(name);
  r.element = element;
  r.rows = rows;
  r.cols = cols;
  r.tile_rows = std::max<std::size_t>(1, tile_rows);
  r.tile_cols = std::max<std::size_t>(1, tile_cols);
  r.codes.assign(rows * cols, 0);
  r.block_errors.assign(r.block_count(), {});
  return r;
}

/// Accumulates recipe_stats one element at a time (see recipe_stats for the classes).
class stats_builder {
 public:
  explicit stats_builder(recipe_result& r) : r_(r), has_value_(r.block_count(), false) {}

  /// Element x of block b decoded to q (a double); `saturated`: its rounding overflowed and was
  /// clamped; `exact`: q equals x exactly.
  void add(std::size_t b, float x, double q, bool saturated, bool exact) {
    recipe_stats& s = r_.stats;
    ++s.values;
    // 1. Non-finite inputs and NaN blocks are counted apart.
    if (!std::isfinite(x)) return void(++s.nonfinite);
    if (std::isnan(q)) return void(++s.nan_block);
    // 2. The class: saturation first (a clamped value is neither zero nor exact), then underflow.
    if (saturated) {
      ++s.saturated;
    } else if (x != 0 && q == 0) {
      ++s.zero;
    } else if (exact) {
      ++s.exact;
      if (x == 0) ++s.zero_inputs;
    } else {
      ++s.inexact;
    }
    // 3. The errors, in double (|q - x| is one rounding of an exact difference).
    const double ax = std::fabs(static_cast<double>(x)), abs_err = std::fabs(q - static_cast<double>(x));
    s.max_abs_error = std::max(s.max_abs_error, abs_err);
    s.sum_sq_abs_error += abs_err * abs_err;
    if (ax == 0) return;
    has_value_[b] = true;
    const double rel = abs_err / ax;
    s.max_rel_error = std::max(s.max_rel_error, rel);
    s.sum_sq_rel_error += rel * rel;
    block_error& be = r_.block_errors[b];
    ++be.nonzero;
    be.max_rel = std::max(be.max_rel, rel);
    be.sum_sq_rel += rel * rel;
  }

  /// The scale range over the blocks that held a nonzero finite value.
  void finish() {
    recipe_stats& s = r_.stats;
    for (std::size_t b = 0; b < has_value_.size(); ++b) {
      const double sc = r_.scales[b];
      if (!has_value_[b] || std::isnan(sc)) continue;
      s.min_scale = s.scaled_blocks ? std::min(s.min_scale, sc) : sc;
      s.max_scale = s.scaled_blocks ? std::max(s.max_scale, sc) : sc;
      ++s.scaled_blocks;
    }
  }

 private:
  recipe_result& r_;
  std::vector<bool> has_value_;
};

/// The amax of every block of r's tiling, as CUDA fmaxf computes it in TE's amax kernels: a NaN is
/// ignored (fmaxf returns the other operand), an infinity counts.
inline std::vector<float> block_amax(std::span<const float> x, const recipe_result& r) {
  std::vector<float> m(r.block_count(), 0.0f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float a = std::fabs(x[i]);
    float& best = m[r.block_of(i / r.cols, i % r.cols)];
    if (a > best) best = a;  // false for a NaN
  }
  return m;
}

/// The FP8 recipes' quantizer: element i is x * scale of its block rounded once into `fp8`.
/// r's geometry and scales are set; fills codes and stats.
inline void quantize_fp8(std::span<const float> x, recipe_result& r) {
  stats_builder sb(r);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t b = r.block_of(i / r.cols, i % r.cols);
    // 1. The product of two binary32 numbers: exact in binary64 (48 significant bits, exponents
    //    within 2^-298 .. 2^256), so one rounding of it is the one rounding of the real product.
    const double p = static_cast<double>(x[i]) * r.scales[b];
    status st{};
    const bits_t q = convert(r.element, binary64, lf::detail::f64_bits(p), saturating_nearest, st);
    r.codes[i] = static_cast<std::uint8_t>(q);
    // 2. Classify in the scaled domain, where everything is exact: q is a small float, p exact.
    const double qv = lf::detail::decode_double(r.element, q);
    sb.add(b, x[i], qv / r.scales[b], has(st, status::overflow), qv == p);
  }
  sb.finish();
}

/// A result for a block-scaled quantization (models/block_scale.hpp): codes, scales (1 / (X * T)),
/// stats of q against `input` (what was quantized). `sr_seed`: q's elements were rounded
/// stochastically with lf::stochastic_source{*sr_seed} from position 0.
inline recipe_result from_block_quantized(std::string name, std::span<const float> input, block_quantized q,
                                          std::optional<std::uint64_t> sr_seed = std::nullopt) {
  const std::size_t tile_rows = q.layout == block_layout::tiles_2d ? q.fmt.block : 1;
  recipe_result r = start_result(std::move(name), q.fmt.element, q.rows, q.cols, tile_rows, q.fmt.block);
  r.codes = q.elements;
  // 1. Each block's decode factor d = X * T (exact: a scale-format value times a binary32) and
  //    the reported scale 1 / d (exact for the power-of-two MX scales).
  std::vector<double> d(r.block_count());
  r.scales.resize(d.size());
  for (std::size_t b = 0; b < d.size(); ++b) {
    d[b] = lf::detail::decode_double(q.fmt.scale, q.scales[b]) * static_cast<double>(q.tensor_scale);
    r.scales[b] = 1.0 / d[b];
  }
  // 2. Each element against its input. mx_quantize keeps only the ORed flags, so the element's
  //    rounding is done again, the same way (lf::detail::divide_into, the same random bits), for
  //    its own overflow flag; exact when the exact decoded value is x.
  stats_builder sb(r);
  const stochastic_source src{sr_seed.value_or(0), 0};
  for (std::size_t i = 0; i < input.size(); ++i) {
    const std::size_t b = r.block_of(i / r.cols, i % r.cols);
    const double v = mx_value(q, i);
    const double x = static_cast<double>(input[i]);
    status st{};
    if (d[b] > 0 && std::isfinite(x)) {  // a NaN block, or a zero NVFP4 scale: mx_quantize leaves 0
      env e = saturating_nearest;
      if (sr_seed) e = env{rounding::stochastic, saturating_nearest.policy, src.bits(i)};
      if (lf::detail::divide_into(q.fmt.element, x, d[b], e, st) != q.elements[i])
        throw std::logic_error("lf::training: an element rounded again differs from lf::mx_quantize's");
    }
    sb.add(b, input[i], v, has(st, status::overflow), v == x);
  }
  sb.finish();
  r.block_scaled = std::move(q);
  return r;
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014; the constants of Vigna's splitmix64.c): the first output for `seed`.
constexpr std::uint64_t splitmix64(std::uint64_t seed) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace internal

// ---- TE's scale from an amax -----------------------------------------------------------------------

/// The scale TE derives from an amax (compute_scale_from_amax in
/// transformer_engine/common/recipe/recipe_common.cuh, epsilon 0):
///   1. an amax of 0 or infinity gives 1 (nothing to scale by);
///   2. else fp8_max / amax rounded once to binary32 (the kernel's __fdiv_rn), computed here with
///      the core's division so that it is the same on every platform;
///   3. a quotient that overflows binary32 gives FLT_MAX;
///   4. with power_of_two (TE's force_pow_2_scales, Float8BlockScaling's default), the scale rounds
///      toward zero to a power of two (TE clears the significand), by the core's rounding into E8M0,
///      whose 2^-127..2^127 holds every scale here (448 / FLT_MAX > 2^-127).
inline float scale_from_amax(float amax, float fp8_max, bool power_of_two = false) {
  if (amax == 0 || !std::isfinite(amax)) return 1.0f;
  status st{};
  float s = internal::f32_value(div(binary32, internal::f32_bits(fp8_max), internal::f32_bits(amax), env{}, st));
  if (std::isinf(s)) s = std::numeric_limits<float>::max();
  if (power_of_two) {
    const bits_t p2 = convert(float8_e8m0fnu, binary32, internal::f32_bits(s), env{rounding::toward_zero}, st);
    s = internal::f32_value(convert(binary32, float8_e8m0fnu, p2, env{}, st));
  }
  return s;
}

// ---- Float8CurrentScaling -------------------------------------------------------------------------

/// Per-tensor current scaling (TE Float8CurrentScaling): scale = fp8_max / amax of this tensor
/// (scale_from_amax), one block. `fp8` is E4M3 for forward tensors, E5M2 for gradients under
/// HYBRID (fp8_format_for). Throws std::invalid_argument when x does not hold rows * cols values.
inline recipe_result fp8_current_scaling(std::span<const float> x, std::size_t rows, std::size_t cols,
                                         const format& fp8 = float8_e4m3fn) {
  internal::check_matrix("lf::training::fp8_current_scaling", x.size(), rows, cols);
  recipe_result r = internal::start_result("fp8-current", fp8, rows, cols, rows, cols);
  const float amax = internal::block_amax(x, r)[0];
  r.scales = {static_cast<double>(scale_from_amax(amax, static_cast<float>(internal::max_finite(fp8))))};
  internal::quantize_fp8(x, r);
  return r;
}

// ---- DelayedScaling ---------------------------------------------------------------------------------

/// How DelayedScaling reduces its amax history (TE amax_compute_algo).
enum class amax_algo : std::uint8_t { max, most_recent };

/// TE DelayedScaling's parameters (defaults: margin 0, amax_history_len 1024, 'max'; the format is
/// E4M3 here: pass E5M2 for gradients under HYBRID).
struct delayed_scaling_config {
  format fp8 = float8_e4m3fn;
  std::size_t history_len = 1024;
  amax_algo algo = amax_algo::max;
  int margin = 0;  ///< scale = (fp8_max / amax) / 2^margin
};

/// One step of a delayed-scaling run.
struct delayed_step {
  std::size_t step = 0;        ///< from 1
  float scale = 1;             ///< the scale this step's tensor was quantized with
  float amax = 0;              ///< this step's amax, recorded into the history after quantizing
  std::uint64_t saturated = 0;  ///< values clamped at +-max in this step
};

/// Delayed scaling (TE DelayedScaling): each step's tensor is quantized with a scale computed from
/// the amaxes of the steps before it, then its own amax joins the history.
///
///   1. step t quantizes with the current scale; the first step, with an empty history, uses 1
///      (TE initialises every scale to 1), so it saturates whatever lies beyond fp8_max;
///   2. this tensor's amax becomes the most recent history entry; the history keeps the last
///      history_len amaxes (TE's roll in delayed_scaling.cu);
///   3. amax = max over the history ('max') or the most recent entry ('most_recent');
///   4. if that amax is finite and > 0, the next scale is (fp8_max * 2^-margin) / amax rounded once
///      to binary32 (delayed_scaling.cu: scaled_max / amax), FLT_MAX if that overflows (TE's kernel
///      would store infinity; clamped as compute_scale_from_amax does); otherwise the scale stays.
class fp8_delayed_scaling {
 public:
  /// Throws std::invalid_argument for an empty history or |margin| > 64.
  explicit fp8_delayed_scaling(delayed_scaling_config c = {}) : cfg_(c) {
    if (c.history_len == 0) throw std::invalid_argument("lf::training::fp8_delayed_scaling: history_len must be >= 1");
    if (c.margin < -64 || c.margin > 64)
      throw std::invalid_argument("lf::training::fp8_delayed_scaling: margin " + std::to_string(c.margin) +
                                  " (accepted: -64 to 64)");
  }

  const delayed_scaling_config& config() const { return cfg_; }
  /// The scale the next step will use.
  float scale() const { return scale_; }
  /// The amax history, most recent first (at most history_len entries).
  const std::vector<float>& amax_history() const { return history_; }
  /// Every step so far.
  const std::vector<delayed_step>& steps() const { return steps_; }
  /// The steps (from 1) in which some value saturated.
  std::vector<std::size_t> saturated_steps() const {
    std::vector<std::size_t> out;
    for (const delayed_step& s : steps_)
      if (s.saturated) out.push_back(s.step);
    return out;
  }

  /// Quantizes one step's tensor (steps 1 to 4 of the class comment).
  recipe_result step(std::span<const float> x, std::size_t rows, std::size_t cols) {
    internal::check_matrix("lf::training::fp8_delayed_scaling::step", x.size(), rows, cols);
    // 1. Quantize with the scale the history gave.
    recipe_result r = internal::start_result("fp8-delayed", cfg_.fp8, rows, cols, rows, cols);
    r.scales = {static_cast<double>(scale_)};
    internal::quantize_fp8(x, r);
    // 2. Record this tensor's amax.
    const float amax = internal::block_amax(x, r)[0];
    steps_.push_back({steps_.size() + 1, scale_, amax, r.stats.saturated});
    history_.insert(history_.begin(), amax);
    if (history_.size() > cfg_.history_len) history_.pop_back();
    // 3. Reduce the history, 4. the next scale.
    float a = history_.front();
    if (cfg_.algo == amax_algo::max)
      for (float h : history_) a = h > a ? h : a;
    if (std::isfinite(a) && a > 0) {
      const auto scaled_max = static_cast<float>(std::ldexp(internal::max_finite(cfg_.fp8), -cfg_.margin));
      status st{};
      scale_ = internal::f32_value(div(binary32, internal::f32_bits(scaled_max), internal::f32_bits(a), env{}, st));
      if (std::isinf(scale_)) scale_ = std::numeric_limits<float>::max();
    }
    return r;
  }

  /// Runs `count` steps over a tensor that stacks them along its rows (rows / count rows each) and
  /// returns one result with one block per step (its scale that step's), the statistics of all.
  /// Throws std::invalid_argument unless count >= 1 divides rows.
  recipe_result run(std::span<const float> x, std::size_t rows, std::size_t cols, std::size_t count) {
    internal::check_matrix("lf::training::fp8_delayed_scaling::run", x.size(), rows, cols);
    if (count == 0 || rows % count != 0)
      throw std::invalid_argument("lf::training::fp8_delayed_scaling::run: " + std::to_string(count) +
                                  " steps do not divide " + std::to_string(rows) + " rows");
    const std::size_t per = rows / count;
    recipe_result all = internal::start_result("fp8-delayed", cfg_.fp8, rows, cols, per, cols);
    for (std::size_t k = 0; k < count; ++k) {
      const recipe_result r = step(x.subspan(k * per * cols, per * cols), per, cols);
      std::copy(r.codes.begin(), r.codes.end(), all.codes.begin() + static_cast<std::ptrdiff_t>(k * per * cols));
      all.scales.push_back(r.scales[0]);
      all.block_errors[k] = r.block_errors[0];
      all.stats.merge(r.stats);
    }
    return all;
  }

 private:
  delayed_scaling_config cfg_;
  float scale_ = 1.0f;
  std::vector<float> history_;
  std::vector<delayed_step> steps_;
};

// ---- Float8BlockScaling (DeepSeek-V3) -------------------------------------------------------------

/// Blockwise FP8 scaling (DeepSeek-V3, arXiv 2412.19437 §3.3.2; TE Float8BlockScaling): E4M3 on
/// all tensors; activations and gradients in 1 x 128 tiles (per row, 128 columns each), weights in
/// 128 x 128 blocks; each block's scale is fp8_max / amax of the block in binary32
/// (scale_from_amax). power_of_two rounds every scale down to a power of two, TE's default for this
/// recipe (DeepSeek-V3 describes plain fp8_max / amax).
inline recipe_result fp8_blockwise_scaling(std::span<const float> x, std::size_t rows, std::size_t cols,
                                           tensor_role role, bool power_of_two = false) {
  internal::check_matrix("lf::training::fp8_blockwise_scaling", x.size(), rows, cols);
  const std::size_t tile_rows = role == tensor_role::weight ? 128 : 1;
  recipe_result r = internal::start_result("fp8-blockwise", float8_e4m3fn, rows, cols, tile_rows, 128);
  const float max = static_cast<float>(internal::max_finite(float8_e4m3fn));
  for (float amax : internal::block_amax(x, r)) r.scales.push_back(scale_from_amax(amax, max, power_of_two));
  internal::quantize_fp8(x, r);
  return r;
}

// ---- MXFP8BlockScaling ----------------------------------------------------------------------------

/// MXFP8 (TE MXFP8BlockScaling; OCP MX v1.0): E4M3 elements for every tensor, one E8M0 scale per 32
/// elements along each row, through lf::mx_quantize with lf::mxfp8_e4m3. The scale rule defaults to
/// round_up, NVIDIA's MXFP8 recipe (2^ceil(log2(amax / 448)): no element saturates); ocp_floor is
/// the OCP spec's conversion (§6.3), which clamps the elements above 448.
inline recipe_result mxfp8_scaling(std::span<const float> x, std::size_t rows, std::size_t cols,
                                   scale_rule rule = scale_rule::round_up) {
  internal::check_matrix("lf::training::mxfp8_scaling", x.size(), rows, cols);
  block_format f = mxfp8_e4m3;
  f.rule = rule;
  return internal::from_block_quantized("mxfp8", x, mx_quantize(x, rows, cols, f));
}

// ---- NVFP4 and its random Hadamard transform --------------------------------------------------------

/// The 16 signs of the RHT's random diagonal for `seed`: sign j is -1 where bit j of
/// splitmix64(seed) is set (this library's choice of generator; TE draws its own).
inline std::array<int, 16> rht_signs(std::uint64_t seed) {
  const std::uint64_t bits = internal::splitmix64(seed);
  std::array<int, 16> s{};
  for (int j = 0; j < 16; ++j) s[static_cast<std::size_t>(j)] = (bits >> j) & 1 ? -1 : 1;
  return s;
}

/// Entry (i, j) of the 16 x 16 RHT matrix M = D * H: D the seeded +-1 diagonal (rht_signs), H the
/// Walsh-Hadamard matrix of Sylvester's construction normalised to be orthogonal,
/// H(i, j) = (-1)^popcount(i & j) / 4. M is orthogonal: its inverse is its transpose H * D.
inline double rht_entry(const std::array<int, 16>& signs, int i, int j) {
  return signs[static_cast<std::size_t>(i)] * (std::popcount(static_cast<unsigned>(i & j)) % 2 ? -0.25 : 0.25);
}

/// Applies M (or, with transpose, M^T) to every group of 16 consecutive elements of each row of the
/// rows x cols matrix x, in double: the reduction dimension of the weight-gradient GEMM, laid along
/// the rows (pass the operand as the GEMM reads it, K = cols). A last group of fewer than 16
/// elements is left as it is, so the whole map stays orthogonal.
inline std::vector<double> rht_apply(std::span<const double> x, std::size_t rows, std::size_t cols, std::uint64_t seed,
                                     bool transpose = false) {
  internal::check_matrix("lf::training::rht_apply", x.size(), rows, cols);
  const std::array<int, 16> s = rht_signs(seed);
  std::vector<double> y(x.begin(), x.end());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t g = 0; g + 16 <= cols; g += 16) {
      const double* in = x.data() + r * cols + g;
      for (int i = 0; i < 16; ++i) {
        double acc = 0;
        for (int j = 0; j < 16; ++j) acc += (transpose ? rht_entry(s, j, i) : rht_entry(s, i, j)) * in[j];
        y[r * cols + g + static_cast<std::size_t>(i)] = acc;
      }
    }
  return y;
}

/// NVFP4's 16-point random Hadamard transform of a wgrad input (arXiv 2509.25149): rht_apply in
/// double, each output then rounded to binary32 (nearest even) before quantization, as the
/// quantizer reads binary32.
inline std::vector<float> random_hadamard_transform(std::span<const float> x, std::size_t rows, std::size_t cols,
                                                    std::uint64_t seed) {
  const std::vector<double> y = rht_apply(std::vector<double>(x.begin(), x.end()), rows, cols, seed);
  std::vector<float> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    status st{};
    out[i] = internal::f32_value(convert(binary32, binary64, lf::detail::f64_bits(y[i]), env{}, st));
  }
  return out;
}

/// The NVFP4 recipe's choices for one tensor (arXiv 2509.25149; TE NVFP4BlockScaling).
struct nvfp4_options {
  tensor_role role = tensor_role::activation;
  bool stochastic = false;  ///< stochastic rounding of the elements (the recipe: gradients)
  bool hadamard = false;    ///< the 16-point RHT first (the recipe: the wgrad inputs)
  std::uint64_t seed = 0;   ///< the RHT's signs and the stochastic rounding's bits

  /// The recipe's defaults for a role: weights 16 x 16 blocks; gradients stochastic rounding and
  /// the RHT (a gradient is an input of the weight-gradient GEMM).
  static nvfp4_options for_role(tensor_role r, std::uint64_t seed = 0) {
    const bool g = r == tensor_role::gradient;
    return {r, g, g, seed};
  }
};

/// NVFP4 (models/block_scale.hpp lf::nvfp4): E2M1 elements, an E4M3 scale per block and a binary32
/// tensor scale. Blocks: 1 x 16 along rows, 16 x 16 tiles for weights.
///   1. with o.hadamard: x becomes random_hadamard_transform(x, rows, cols, o.seed) (binary32);
///   2. lf::mx_quantize with lf::nvfp4, nearest even, or with stochastic rounding from
///      lf::stochastic_source{o.seed} (element i takes bits(i));
///   3. the statistics compare the decoded values with what was quantized (the transformed values
///      with the RHT: the wgrad GEMM multiplies two transformed operands, and H^T H = I cancels).
inline recipe_result nvfp4_scaling(std::span<const float> x, std::size_t rows, std::size_t cols, const nvfp4_options& o) {
  internal::check_matrix("lf::training::nvfp4_scaling", x.size(), rows, cols);
  std::vector<float> y;
  if (o.hadamard) y = random_hadamard_transform(x, rows, cols, o.seed);
  const std::span<const float> in = o.hadamard ? std::span<const float>(y) : x;
  const block_layout layout = o.role == tensor_role::weight ? block_layout::tiles_2d : block_layout::rows_1d;
  block_quantized q;
  if (o.stochastic) {
    stochastic_source src{o.seed, 0};
    q = mx_quantize(in, rows, cols, nvfp4, src, internal::saturating_nearest.policy, layout);
  } else {
    q = mx_quantize(in, rows, cols, nvfp4, internal::saturating_nearest, layout);
  }
  recipe_result r = internal::from_block_quantized("nvfp4", in, std::move(q),
                                                  o.stochastic ? std::optional<std::uint64_t>(o.seed) : std::nullopt);
  r.stochastic = o.stochastic;
  r.transformed = std::move(y);
  return r;
}

}  // namespace lf::training
