// libfloat/models/matrix_unit_types.hpp: lf::matrix_unit, a matrix unit's parameters as data (like
// lf::format), and which data a unit converts before it computes. The model itself is in
// models/matrix_unit.hpp, the presets in models/matrix_unit_presets.hpp.
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
#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/models/detail/fits_in.hpp>

namespace lf {

/// Which computation a matrix_unit models.
enum class matrix_unit_model : std::uint8_t {
  block_fma,      ///< the tensor-core block FMA (file comment, steps 1-6)
  cuda_core_fma,  ///< a chain of binary32 (output-format) fmas, one per product
  fp8_promotion,  ///< block FMA for promotion_interval products, then an FP32 add (DeepSeek-V3)
  pairwise_tree,  ///< per block: products rounded to the output, a pairwise tree of output-format
                  ///< adds, then c + the tree (AMD CDNA1 in MMA-Sim, CDNA2); models/matrix_unit.hpp
  late_accumulation,  ///< per block: the products aligned among themselves (truncated), c added
                      ///< afterwards with a floor alignment (AMD CDNA3); models/matrix_unit.hpp
};

/// How each term is cut onto the alignment grid 2^(emax - F) (step 3).
enum class alignment_rounding : std::uint8_t {
  truncate,  ///< toward zero, sign-magnitude: NVIDIA tensor cores (Fasi et al. 2021)
  floor,     ///< toward -inf (a two's complement shifter's truncation), for what-if experiments
  exact,     ///< no bits dropped: the block is an exact dot product rounded once (a Kulisch unit)
};

/// Subnormal numbers at a unit's inputs (a, b and c) or output.
enum class subnormal_handling : std::uint8_t {
  keep,   ///< used and produced as they are (every preset: Fasi et al. 2021 found them supported)
  flush,  ///< inputs read as zero of the same sign; tiny outputs become zero (FTZ)
};

struct matrix_unit {
  matrix_unit_model model = matrix_unit_model::block_fma;
  /// The input format the preset models (the hardware's operand type). The model itself works on
  /// values: dot() accepts any input formats, and converts only data wider than this (below).
  format input = binary16;
  /// How data wider than the operand type is converted to it before use (unit_converts_input):
  /// toward_zero (the low bits dropped, as the MATLAB models' tf32 inputs: GEMM.m, CPFloat
  /// round = 4) or nearest_even (their fp16, bf16 and FP8 inputs: round = 1); any deterministic
  /// lf::rounding. The CUDA-core model converts every input to its output format with it.
  rounding input_rounding = rounding::nearest_even;
  int block_size = 4;       ///< N: products per block FMA
  int alignment_bits = 23;  ///< F: terms are cut onto the grid 2^(emax - F)
  alignment_rounding alignment = alignment_rounding::truncate;
  rounding final_rounding = rounding::toward_zero;  ///< the one normalisation (step 5)
  format output = binary32;                          ///< the accumulator's format (c and d)
  /// The block result keeps this many fraction bits before the exact conversion to `output`:
  /// 23 for binary32 output, 13 for Hopper FP8 (MMA-Sim, arXiv 2511.10909), 10 for binary16 output.
  int output_fraction_bits = 23;
  subnormal_handling input_subnormals = subnormal_handling::keep;
  subnormal_handling output_subnormals = subnormal_handling::keep;
  int promotion_interval = 0;  ///< fp8_promotion: products per FP32 promotion (DeepSeek: 128)
  /// late_accumulation: the fraction bits the products' sum gains when c's exponent is the larger
  /// (MATLAB-tensor-core's AddTwoNonNormSums with eab 7: 31 = 24 + 7 for CDNA3).
  int late_extra_bits = 0;
  /// late_accumulation: the products at even and odd positions of a block are aligned and summed
  /// as two halves, combined with a floor alignment (CDNA3 FP8: odd_even_grouping).
  bool odd_even_halves = false;
  /// late_accumulation: c contributes nothing when its exponent is more than this many binades
  /// below the products' (CDNA3 FP8: 25); 0: never dropped.
  int late_c_drop = 0;
  /// Every zero result is +0, also where the terms were all -0 or a negative sum rounded to zero (the
  /// default follows IEEE 754 and the MATLAB models: -0 when every term was -0, a negative sum rounded
  /// to zero is -0). Measured on an H200 (mma.sync, fp16 / bf16 / tf32 / FP8, binary32 and binary16
  /// output; tests/data/tensor-core-hw-mma): no result of 32,000 recorded cases was -0, and the crafted
  /// cases whose IEEE result is -0 gave +0.
  bool positive_zero = false;

  /// Parameters the implementation handles: a deterministic input_rounding, 1 <= N <= 2^24,
  /// 0 <= F <= 96 (so an exact block sum stays below 2^126), 1 <= output_fraction_bits <= the
  /// output's fraction bits, and a positive promotion interval for fp8_promotion.
  constexpr bool valid() const {
    return input.valid() && output.valid() && input_rounding != rounding::stochastic && block_size >= 1 &&
           block_size <= (1 << 24) && alignment_bits >= 0 && alignment_bits <= 96 && output_fraction_bits >= 1 &&
           output_fraction_bits <= output.fraction_bits() &&
           (model != matrix_unit_model::fp8_promotion || promotion_interval >= 1) && late_extra_bits >= 0 &&
           late_extra_bits <= 16 && late_c_drop >= 0 &&
           (model != matrix_unit_model::late_accumulation || alignment_bits >= output.fraction_bits());
  }
  friend constexpr bool operator==(const matrix_unit&, const matrix_unit&) = default;
};

/// The format a unit computes on: mu.input for the block FMA and FP8 promotion models, mu.output
/// for the CUDA-core fma chain (its fma's operands).
constexpr format unit_operand_format(const matrix_unit& mu) {
  return mu.model == matrix_unit_model::cuda_core_fma ? mu.output : mu.input;
}

/// Whether dot() and gemm() convert data of format f to unit_operand_format(mu), rounding with
/// mu.input_rounding, before the unit computes (the file comment, "Input conversion"):
///  - block_fma, fp8_promotion: f is wider than mu.input (every value of mu.input is a value of f,
///    not the reverse): binary32 or binary64 data on a tf32, fp16, bf16 or FP8 unit. Other formats
///    are used as they are, the model working on values: narrower ones (fp16 data on a tf32 unit)
///    and overlapping ones (bf16 on Blackwell's fp16/bf16 unit, E5M2 on an E4M3 unit: the
///    hardware takes both FP8 formats);
///  - cuda_core_fma: f does not fit in mu.output.
constexpr bool unit_converts_input(const matrix_unit& mu, const format& f) {
  const format op = unit_operand_format(mu);
  if (f == op) return false;
  if (mu.model == matrix_unit_model::cuda_core_fma) return !fits_in(f, op);
  return fits_in(op, f) && !fits_in(f, op);
}

/// The environment of that conversion: mu.input_rounding, and subnormal inputs read as zero when
/// the unit flushes them.
constexpr env unit_input_env(const matrix_unit& mu) {
  env e{mu.input_rounding};
  if (mu.input_subnormals == subnormal_handling::flush) e.policy.inputs = subnormal_inputs::treat_as_zero;
  return e;
}

}  // namespace lf
