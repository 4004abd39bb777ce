// libfloat/matrix_unit.hpp: bit-accurate models of matrix units (NVIDIA tensor cores): the
// block fused multiply-add D = A*B + C as the hardware computes it, and the per-architecture
// presets (issue 4 §3, numerics-facts.md §3).
//
// API (everything in namespace lf):
//   struct matrix_unit                  the model's parameters, as data (like lf::format)
//   namespace matrix_units              the presets: volta_fp16 ... blackwell_fp8, cuda_core_fp32,
//                                       deepseek_fp8_promote128, each citing its source
//   matrix_unit_presets[], matrix_unit_by_name(name)     the presets by name (for the CLI)
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
// Why F relative to e(a) + e(b) and not to the normalised product exponent: the MATLAB models
// align unnormalised products (significands in [1, 4)) and give the alignment one extra bit when
// the largest product is >= 2 (Generic_BFMA_TC.m, fpbits_IEEE2, "spcFlag"), which is the same grid.
//
// Specials (not measured bit-for-bit on hardware; the MATLAB models' rules): a NaN operand, 0*inf
// or +inf together with -inf gives NaN (the output format's default NaN: payloads are not
// propagated); otherwise an infinite product or c gives that infinity. A result beyond the
// output's range is +-inf whatever final_rounding (the MATLAB models return Inf when the
// truncated exponent overflows). An exact zero result is +0, or -0 when every term was -0.
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
//    (detail/dot_fast.hpp).
//  - fp8_promotion: DeepSeek-V3 technical report (arXiv 2412.19437) §3.3.2: the tensor core
//    (the block-FMA parameters of this unit: N, F, output_fraction_bits) accumulates
//    promotion_interval products at a time, starting from +0; each such partial result is added
//    into an FP32 accumulator on the CUDA cores with lf::add in the output format, nearest even.
//    That accumulator starts at c. The per-block scaling factors DeepSeek multiplies in at the
//    same time are not modelled (scale 1).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "arith.hpp"
#include "detail/dot_fast.hpp"
#include "detail/fits_in.hpp"
#include "detail/round.hpp"
#include "exact.hpp"
#include "format.hpp"
#include "fp.hpp"
#include "rounding.hpp"
#include "status.hpp"

namespace lf {

/// Which computation a matrix_unit models.
enum class matrix_unit_model : std::uint8_t {
  block_fma,      ///< the tensor-core block FMA (file comment, steps 1-6)
  cuda_core_fma,  ///< a chain of binary32 (output-format) fmas, one per product
  fp8_promotion,  ///< block FMA for promotion_interval products, then an FP32 add (DeepSeek-V3)
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
  /// 23 for binary32 output, 13 for Hopper FP8 (numerics-facts.md §3), 10 for binary16 output.
  int output_fraction_bits = 23;
  subnormal_handling input_subnormals = subnormal_handling::keep;
  subnormal_handling output_subnormals = subnormal_handling::keep;
  int promotion_interval = 0;  ///< fp8_promotion: products per FP32 promotion (DeepSeek: 128)

  /// Parameters the implementation handles: a deterministic input_rounding, 1 <= N <= 2^24,
  /// 0 <= F <= 96 (so an exact block sum stays below 2^126), 1 <= output_fraction_bits <= the
  /// output's fraction bits, and a positive promotion interval for fp8_promotion.
  constexpr bool valid() const {
    return input.valid() && output.valid() && input_rounding != rounding::stochastic && block_size >= 1 &&
           block_size <= (1 << 24) && alignment_bits >= 0 && alignment_bits <= 96 && output_fraction_bits >= 1 &&
           output_fraction_bits <= output.fraction_bits() &&
           (model != matrix_unit_model::fp8_promotion || promotion_interval >= 1);
  }
  friend constexpr bool operator==(const matrix_unit&, const matrix_unit&) = default;
};

// ---- presets ----------------------------------------------------------------------------------
//
// N and F from numerics-facts.md §3 (table), which collects: Fasi, Higham, Mikaitis, Pranesh,
// PeerJ Comput. Sci. 7:e330 (2021) for V100, T4, A100; Khattak and Mikaitis, MATLAB-tensor-core
// models/{V100TC,A100TC,H100TC,B200TC}.m (fma = N, neab = F - 23, frmode 'rz' for binary32
// output); MMA-Sim (arXiv 2511.10909) for Hopper and Blackwell. All: binary32 output truncated
// toward zero, subnormal inputs and outputs kept.
// input_rounding, from the same MATLAB models: their GEMM.m (models/tools) rounds A and B to the
// input format with CPFloat before the block FMA, with round = 4 (toward zero) for tf32 and
// round = 1 (nearest, ties to even) for fp16, bf16 and FP8, on every GPU. The recorded hardware
// results (model_validation) cannot tell the two apart: every recorded input is already a value
// of its input format.
namespace matrix_units {

/// V100 (Volta), fp16 inputs: N = 4, F = 23 (Fasi et al. 2021; V100TC.m fma 4, neab 0).
inline constexpr matrix_unit volta_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 4,
                                        .alignment_bits = 23};
/// T4 (Turing), fp16 inputs: N = 8, F = 24 (numerics-facts.md §3; N = 4 in some sources). No
/// MATLAB model: wider data nearest even, as every fp16 model of GEMM.m.
inline constexpr matrix_unit turing_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 8,
                                         .alignment_bits = 24};
/// A100 (Ampere), fp16 inputs: N = 8, F = 24 (Fasi et al. 2021; A100TC.m fma 8, neab 1).
inline constexpr matrix_unit ampere_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 8,
                                         .alignment_bits = 24};
/// A100, bf16 inputs: N = 8, F = 24 (Fasi et al. 2021; A100TC.m).
inline constexpr matrix_unit ampere_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even, .block_size = 8,
                                         .alignment_bits = 24};
/// A100, tf32 inputs, binary32 data truncated to tf32 (GEMM.m round = 4): N = 4, F = 24 (Fasi et
/// al. 2021; A100TC.m fma 4).
inline constexpr matrix_unit ampere_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero, .block_size = 4,
                                         .alignment_bits = 24};
/// H100 (Hopper), fp16 inputs: N = 16, F = 25 (H100TC.m fma 16, neab 2; MMA-Sim).
inline constexpr matrix_unit hopper_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 16,
                                         .alignment_bits = 25};
/// H100, bf16 inputs: N = 16, F = 25 (H100TC.m; MMA-Sim).
inline constexpr matrix_unit hopper_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even, .block_size = 16,
                                         .alignment_bits = 25};
/// H100, tf32 inputs, binary32 data truncated (GEMM.m round = 4): N = 8, F = 25 (H100TC.m fma 8; MMA-Sim).
inline constexpr matrix_unit hopper_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero, .block_size = 8,
                                         .alignment_bits = 25};
/// H100 wgmma, FP8 (E4M3 or E5M2) inputs: N = 32, F = 13, the result keeps 13 fraction bits
/// (H100TC.m fma 32, neab -10, NoManBitsOut 23 - 10; MMA-Sim; DeepSeek-V3 §3.3.2: "about 14 bits").
inline constexpr matrix_unit hopper_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                        .block_size = 32, .alignment_bits = 13, .output_fraction_bits = 13};
/// B200 (Blackwell), fp16/bf16 inputs: N = 16, F = 25 (B200TC.m fma 16, neab 2; MMA-Sim).
inline constexpr matrix_unit blackwell_fp16{.input = binary16, .input_rounding = rounding::nearest_even,
                                            .block_size = 16, .alignment_bits = 25};
/// B200, tf32 inputs, binary32 data truncated (GEMM.m round = 4): N = 8, F = 25 (B200TC.m fma 8; MMA-Sim).
inline constexpr matrix_unit blackwell_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero,
                                            .block_size = 8, .alignment_bits = 25};
/// B200, FP8 inputs: N = 32, F = 25, full 23-bit result (B200TC.m fma 32, neab 2; MMA-Sim).
inline constexpr matrix_unit blackwell_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                           .block_size = 32, .alignment_bits = 25};
/// CUDA cores: a binary32 fma chain c = fmaf(a_i, b_i, c), round to nearest even (the usual
/// non-tensor-core kernel; products of fp16/bf16/tf32/FP8 values are exact in the fma). Wider data
/// (binary64) reaches binary32 nearest even, as a C++ cast does (IEEE 754-2019 §5.4.2 convertFormat
/// under the default roundTiesToEven).
inline constexpr matrix_unit cuda_core_fp32{.model = matrix_unit_model::cuda_core_fma, .input = binary16,
                                            .input_rounding = rounding::nearest_even, .block_size = 1,
                                            .alignment_bits = 0,
                                            .final_rounding = rounding::nearest_even};
/// DeepSeek-V3 (arXiv 2412.19437) §3.3.2: H800 FP8 GEMM with the Hopper FP8 tensor core for 128
/// products (4 wgmma of K = 32), each partial result promoted to an FP32 accumulator on CUDA cores.
/// Wider data nearest even, as hopper_fp8.
inline constexpr matrix_unit deepseek_fp8_promote128{.model = matrix_unit_model::fp8_promotion,
                                                     .input = float8_e4m3fn,
                                                     .input_rounding = rounding::nearest_even, .block_size = 32,
                                                     .alignment_bits = 13, .output_fraction_bits = 13,
                                                     .promotion_interval = 128};

}  // namespace matrix_units

struct named_matrix_unit {
  std::string_view name;
  matrix_unit unit;
  std::string_view citation;
};

/// Every preset with its name (the identifier in lf::matrix_units) and source.
inline constexpr named_matrix_unit matrix_unit_presets[] = {
    {"volta_fp16", matrix_units::volta_fp16, "Fasi et al. 2021 (PeerJ CS 7:e330); V100TC.m"},
    {"turing_fp16", matrix_units::turing_fp16, "numerics-facts.md §3 (T4; N = 4 in some sources)"},
    {"ampere_fp16", matrix_units::ampere_fp16, "Fasi et al. 2021; A100TC.m"},
    {"ampere_bf16", matrix_units::ampere_bf16, "Fasi et al. 2021; A100TC.m"},
    {"ampere_tf32", matrix_units::ampere_tf32, "Fasi et al. 2021; A100TC.m; truncation: GEMM.m"},
    {"hopper_fp16", matrix_units::hopper_fp16, "H100TC.m; MMA-Sim arXiv 2511.10909"},
    {"hopper_bf16", matrix_units::hopper_bf16, "H100TC.m; MMA-Sim arXiv 2511.10909"},
    {"hopper_tf32", matrix_units::hopper_tf32, "H100TC.m; MMA-Sim arXiv 2511.10909; truncation: GEMM.m"},
    {"hopper_fp8", matrix_units::hopper_fp8, "H100TC.m; MMA-Sim; DeepSeek-V3 arXiv 2412.19437 §3.3.2"},
    {"blackwell_fp16", matrix_units::blackwell_fp16, "B200TC.m; MMA-Sim arXiv 2511.10909"},
    {"blackwell_tf32", matrix_units::blackwell_tf32, "B200TC.m; MMA-Sim arXiv 2511.10909; truncation: GEMM.m"},
    {"blackwell_fp8", matrix_units::blackwell_fp8, "B200TC.m; MMA-Sim arXiv 2511.10909"},
    {"cuda_core_fp32", matrix_units::cuda_core_fp32, "binary32 fma chain (IEEE 754-2019 fusedMultiplyAdd)"},
    {"deepseek_fp8_promote128", matrix_units::deepseek_fp8_promote128, "DeepSeek-V3 arXiv 2412.19437 §3.3.2"},
};

/// A preset by its name ("ampere_fp16", ...), or nullopt.
constexpr std::optional<matrix_unit> matrix_unit_by_name(std::string_view name) {
  for (const auto& p : matrix_unit_presets)
    if (p.name == name) return p.unit;
  return std::nullopt;
}

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

// ---- the models -------------------------------------------------------------------------------

namespace detail {

/// Reads operand i of a dot product: a run-time format plus a function from index to encoding.
template <class Get>
struct operand {
  const format& fmt;
  Get get;
};
template <class Get>
operand(const format&, Get) -> operand<Get>;

inline env unit_env(const matrix_unit& mu, rounding mode) {
  policy p{};
  if (mu.output_subnormals == subnormal_handling::flush) p.results = subnormal_results::flush_to_zero;
  return env{mode, p};
}

/// The output format with output_fraction_bits fraction bits (step 5's rounding target).
constexpr format unit_kept_format(const matrix_unit& mu) {
  return format{mu.output.exponent_bits, mu.output_fraction_bits + 1, mu.output.kind};
}

/// One block: d = sum_{i in [first, first + n)} a_i b_i + c (c and d in mu.output), steps 1-5.
/// The general path: any formats and parameters (block_fma_fast below is the same computation for
/// the common cases; tests/unit/test_matrix_unit_fast.cpp compares the two).
template <class A, class B>
bits_t block_fma_general(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first, std::size_t n,
                 bits_t c, status& st) {
  const format& fo = mu.output;
  const bool daz = mu.input_subnormals == subnormal_handling::flush;
  const int fba = a.fmt.fraction_bits(), fbb = b.fmt.fraction_bits(), fbo = fo.fraction_bits();
  // Pass 1: specials, zero signs, emax (alignment exponents e(a) + e(b), e(c); see step 2:
  // for an unpacked finite x = sig * 2^exp, e(x) = exp + fraction_bits, normal or subnormal).
  bool special = false, any_nonzero = false, all_negative_zero = true;
  int emax = 0;
  auto see = [&](int e) {
    emax = any_nonzero ? (e > emax ? e : emax) : e;
    any_nonzero = true;
  };
  for (std::size_t i = first; i < first + n; ++i) {
    const unpacked x = unpack(a.fmt, a.get(i), daz), y = unpack(b.fmt, b.get(i), daz);
    if (x.kind > kind::finite || y.kind > kind::finite) {
      special = true;
      continue;
    }
    if (x.kind == kind::zero || y.kind == kind::zero) {
      all_negative_zero = all_negative_zero && (x.negative != y.negative);
      continue;
    }
    see(x.exp + fba + y.exp + fbb);
  }
  const unpacked z = unpack(fo, c, daz);
  if (z.kind > kind::finite) special = true;
  else if (z.kind == kind::zero) all_negative_zero = all_negative_zero && z.negative;
  else see(z.exp + fbo);

  if (special) {
    // NaN operand, 0 * inf, +inf with -inf: NaN; otherwise the infinity.
    bool nan = false, pos_inf = false, neg_inf = false;
    auto note = [&](const unpacked& u, const format& f, bits_t bits) {
      if (u.is_nan()) {
        nan = true;
        if (is_snan_bits(f, bits)) st |= status::invalid;
      }
    };
    for (std::size_t i = first; i < first + n; ++i) {
      const bits_t ab = a.get(i), bb = b.get(i);
      const unpacked x = unpack(a.fmt, ab, daz), y = unpack(b.fmt, bb, daz);
      note(x, a.fmt, ab);
      note(y, b.fmt, bb);
      if (x.is_nan() || y.is_nan()) continue;
      const bool inf = x.kind == kind::infinite || y.kind == kind::infinite;
      if (inf && (x.kind == kind::zero || y.kind == kind::zero)) {
        st |= status::invalid;
        nan = true;
      } else if (inf) {
        (x.negative != y.negative ? neg_inf : pos_inf) = true;
      }
    }
    note(z, fo, c);
    if (z.kind == kind::infinite) (z.negative ? neg_inf : pos_inf) = true;
    if (!nan && pos_inf && neg_inf) st |= status::invalid;
    if (nan || (pos_inf && neg_inf)) return fo.default_nan_bits();
    status ignored{};
    return convert(fo, binary64, sign_bit(binary64, neg_inf) | binary64.infinity_bits(), unit_env(mu, mu.final_rounding),
                   ignored);
  }
  if (!any_nonzero) return zero_bits(fo, all_negative_zero);

  const env final_env = unit_env(mu, mu.final_rounding);
  const format kept = unit_kept_format(mu);
  status rs{};
  bits_t r;
  if (mu.alignment == alignment_rounding::exact) {
    // No alignment loss: the exact block sum, rounded once.
    exact_accumulator acc;
    for (std::size_t i = first; i < first + n; ++i) {
      const bits_t ab = a.get(i), bb = b.get(i);
      if (daz && (unpack(a.fmt, ab, true).kind == kind::zero || unpack(b.fmt, bb, true).kind == kind::zero)) continue;
      acc.add_product(a.fmt, ab, b.fmt, bb);
    }
    if (z.kind == kind::finite) acc.add(fo, c);
    if (acc.is_zero()) return zero_bits(fo, false);
    r = acc.round_to(kept, final_env, rs);
  } else {
    // Pass 2: cut every term onto the grid 2^g (step 3) and sum exactly (step 4). A term
    // sig * 2^exp with exp < g loses its bits below 2^g: round_shift decides (toward zero in
    // sign-magnitude for truncate, toward -inf for floor), as the hardware's shifter does.
    const int g = emax - mu.alignment_bits;
    const rounding cut = mu.alignment == alignment_rounding::floor ? rounding::downward : rounding::toward_zero;
    __extension__ typedef __int128 i128;
    i128 sum = 0;
    bool dropped = false;
    auto term = [&](bool neg, u128 sig, int exp) {
      u128 k;
      if (exp >= g) {
        k = sig << (exp - g);  // exact: a term is below 2^(emax + 2), so k < 2^(F + 2)
      } else {
        const decision<u128> d = round_shift(sig, g - exp, neg, cut, 0);
        k = d.kept;
        dropped = dropped || d.frac != lost::zero;
      }
      sum += neg ? -static_cast<i128>(k) : static_cast<i128>(k);
    };
    for (std::size_t i = first; i < first + n; ++i) {
      const unpacked x = unpack(a.fmt, a.get(i), daz), y = unpack(b.fmt, b.get(i), daz);
      if (x.kind == kind::zero || y.kind == kind::zero) continue;
      term(x.negative != y.negative, u128{x.sig} * y.sig, x.exp + y.exp);
    }
    if (z.kind == kind::finite) term(z.negative, u128{z.sig}, z.exp);
    if (dropped) st |= status::inexact;
    if (sum == 0) return zero_bits(fo, false);  // §6.3: an exact zero sum is +0 (rounding toward zero or nearest)
    const bool neg = sum < 0;
    // Step 5: the one normalisation, by the core.
    r = round_pack(kept, neg, g, static_cast<u128>(neg ? -sum : sum), false, final_env, rs);
  }
  st |= rs;
  if (has(rs, status::overflow)) return sign_bit(fo, (r & kept.sign_mask()) != 0) | fo.infinity_bits();
  if (kept == fo) return r;
  status ignored{};  // exact: `kept` has fo's exponent range and fewer fraction bits
  return convert(fo, kept, r, env{}, ignored);
}

/// A chain of blocks over [first, first + n) (step 6), starting from c: the general path.
template <class A, class B>
bits_t block_chain_general(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                           std::size_t n, bits_t c, status& st) {
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N) c = block_fma_general(mu, a, b, first + s, n - s < N ? n - s : N, c, st);
  return c;
}

// ---- the fast path ------------------------------------------------------------------------------
//
// The same computation as block_fma_general, bit for bit and flag for flag, for the common case:
// both input formats named (known at compile time for the typed entries, dispatched once per chain
// for run-time formats), output binary32, truncate or floor alignment, N <= 32, F <= 48. A block
// with a special operand (NaN, infinity) or with no nonzero term goes to block_fma_general; so do
// every other format and parameter (exact alignment, other outputs, N > 32).
//
// How: every operand is decoded once into (sign, significand, biased alignment exponent); a block's
// products stay in small local arrays; the terms are cut onto the grid 2^g with 64-bit shifts.
//  - The first loop over a block assumes every operand normal and finite (no per-operand branch or
//    select; one check word ORed over the block says whether that held); a block with a zero,
//    subnormal, NaN or infinity operand is decoded again by a loop that handles zeros and
//    subnormals (and DAZ) and notes specials.
//  - Exponents are kept biased, in the products' frame: P = field_a' + field_b' for a product (field'
//    = max(field, 1), so that e(a) + e(b) = P - bias_a - bias_b) and e(c) + bias_a + bias_b for c.
//    A product a*b = p * 2^(P - bias_a - bias_b - fa - fb) with p = sig_a * sig_b exact (p_a + p_b
//    <= 22 bits for the named formats below 32 bits), c = sig_c * 2^(e(c) - 23).
//  - The grid: g = Pmax - bias_a - bias_b - F. A product's bits below it are its low
//    d = Pmax - P - F + fa + fb bits (d < 0: none, the term moves up by -d bits; it stays below
//    2^(F + 2), file comment step 3). Every product is scaled by 2^L (L = max(0, F - fa - fb)) when
//    stored, so that d + L >= 0 and each term is one right shift: (p * 2^L) >> min(d + L, 63),
//    which drops all of p * 2^L < 2^63 at 63. c likewise with L_c = max(0, F - 23).
//  - Truncation (sign-magnitude) shifts the magnitude and applies the sign; floor shifts the
//    two's-complement value arithmetically (floor(v / 2^r) = v >> r).
//  - Dropped bits (inexact): each shift's lost bits are (shifted value) XOR (result shifted back),
//    ORed over the block (a zero term loses nothing, whatever its shift).
//  - The sum of at most 32 terms and c is below 33 * 2^(F + 2) < 2^56 (int64), inside round_pack's
//    64-bit precondition (sig < 2^62). Only round_pack rounds it, as in the general path.

/// One operand of the fast path: value = (-1)^neg * sig * 2^(be - bias - fraction_bits) with
/// be = max(field, 1) (step 2's e = be - bias); sig = 0 for zeros (and subnormals under DAZ);
/// NaN and infinity have bit (bits - 1) of `special` set (the other fields then mean nothing), so
/// a block ORs `special` over its operands and tests that bit once.
struct fast_operand {
  std::uint64_t sig;
  int be;
  std::uint64_t neg;
  std::uint64_t special;
};

template <format F, bool DAZ>
LIBFLOAT_INLINE constexpr fast_operand fast_decode(bits_t x) {
  constexpr int fb = F.fraction_bits();
  const auto field = static_cast<int>((x >> fb) & F.exponent_field_max());
  const std::uint64_t m = x & F.fraction_mask();
  // Special: adding one to the exponent field (IEEE: field all ones) or to the whole magnitude
  // (nan_only: S.1..1.1..1 is the NaN) carries into the sign position.
  constexpr std::uint64_t test_mask = F.kind == nonfinite::ieee ? F.exponent_mask() : F.exponent_mask() | F.fraction_mask();
  constexpr std::uint64_t test_unit = F.kind == nonfinite::ieee ? F.min_normal_bits() : 1;
  const std::uint64_t special = (x & test_mask) + test_unit;
  const std::uint64_t hidden = std::uint64_t{field != 0} << fb;
  const std::uint64_t sig = DAZ ? (field != 0 ? m | hidden : 0) : m | hidden;
  return {sig, field | int{field == 0}, (x >> (F.bits() - 1)) & 1, special};
}

inline constexpr int fast_block_max = 32;

/// Whether block_chain may take the fast path for this unit (the formats are checked there).
constexpr bool block_fast_applies(const matrix_unit& mu) {
  return mu.alignment != alignment_rounding::exact && mu.output == binary32 && mu.block_size <= fast_block_max &&
         mu.alignment_bits <= 48;
}

/// What block_fma_fast needs of the unit, computed once per chain.
struct fast_chain {
  env final_env;
  format kept;
  int F;
  bool floor;
  std::uint64_t scale;  ///< 2^L, the scaling of products (see above)
  int L, Lc;            ///< L and the scaling 2^Lc of c
};

/// block_fma_general's result and flags for one block, in the cases block_fast_applies() accepts,
/// with input formats FA and FB. K: the kept format as a constant, or format{} (use ch.kept);
/// M >= 0: the final rounding as a constant, M < 0: ch.final_env's; DAZ: input subnormals flushed.
template <class A, class B>
[[gnu::noinline]] bits_t block_fma_fallback(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                            std::size_t first, std::size_t n, bits_t c, status& st) {
  return block_fma_general(mu, a, b, first, n, c, st);  // (out of line: keeps the fast loop small)
}

template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
LIBFLOAT_INLINE bits_t block_fma_fast(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                                      std::size_t n, bits_t c, const fast_chain& ch, status& st) {
  static_assert(FA.precision + FB.precision <= 40, "products and their scaling must fit 63 bits");
  constexpr int none = -(1 << 20);  // the exponent of a zero term: below every real one
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  constexpr int bias_ab = FA.bias() + FB.bias();
  constexpr int fo = binary32.fraction_bits();
  // Steps 1-2: exact products, exponents, Pmax. First assuming every operand normal and finite
  // (the common case: no test per operand, a check word ORed over the block); a block with a zero,
  // subnormal, NaN or infinity operand takes the second loop, which handles zeros and subnormals
  // and notes specials.
  std::uint64_t sig[fast_block_max];
  int pe[fast_block_max];
  std::uint64_t neg[fast_block_max];
  int pmax = none;
  std::uint64_t check_a = 0, check_b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bits_t xa = a.get(first + i), xb = b.get(first + i);
    const std::uint64_t ea = xa & FA.exponent_mask(), eb = xb & FB.exponent_mask();
    // Bit 63: exponent field 0 (zero or subnormal); bit (bits - 1): NaN or infinity (fast_decode).
    check_a |= (ea - FA.min_normal_bits()) | fast_decode<FA, DAZ>(xa).special;
    check_b |= (eb - FB.min_normal_bits()) | fast_decode<FB, DAZ>(xb).special;
    const std::uint64_t p = ((xa & FA.fraction_mask()) | FA.min_normal_bits()) *
                            ((xb & FB.fraction_mask()) | FB.min_normal_bits());
    pe[i] = static_cast<int>(ea >> FA.fraction_bits()) + static_cast<int>(eb >> FB.fraction_bits());
    pmax = pe[i] > pmax ? pe[i] : pmax;
    sig[i] = p * ch.scale;
    neg[i] = ((xa >> (FA.bits() - 1)) ^ (xb >> (FB.bits() - 1))) & 1;
  }
  if (((check_a | check_b) >> 63 | check_a >> (FA.bits() - 1) | check_b >> (FB.bits() - 1)) & 1) [[unlikely]] {
    std::uint64_t special_a = 0, special_b = 0;
    pmax = none;
    for (std::size_t i = 0; i < n; ++i) {
      const fast_operand x = fast_decode<FA, DAZ>(a.get(first + i)), y = fast_decode<FB, DAZ>(b.get(first + i));
      const std::uint64_t p = x.sig * y.sig;
      special_a |= x.special;
      special_b |= y.special;
      pe[i] = p != 0 ? x.be + y.be : none;
      pmax = pe[i] > pmax ? pe[i] : pmax;
      sig[i] = p * ch.scale;
      neg[i] = x.neg ^ y.neg;
    }
    if (((special_a >> (FA.bits() - 1)) | (special_b >> (FB.bits() - 1))) & 1)
      return block_fma_fallback(mu, a, b, first, n, c, st);
  }
  const fast_operand z = fast_decode<binary32, DAZ>(c);
  const int pc = z.sig != 0 ? z.be - binary32.bias() + bias_ab : none;
  pmax = pc > pmax ? pc : pmax;
  if ((z.special >> (binary32.bits() - 1) & 1) != 0 || pmax == none) [[unlikely]]
    return block_fma_fallback(mu, a, b, first, n, c, st);

  // Steps 3-4.
  const int shift_base = pmax + fab - ch.F + ch.L;  // a product's right shift: shift_base - P
  std::int64_t sum = 0;
  std::uint64_t dropped = 0;  // the bits shifted out, ORed
  if (ch.floor) {
    for (std::size_t i = 0; i < n; ++i) {
      const int r = shift_base - pe[i];
      const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
      const auto v = static_cast<std::int64_t>((sig[i] ^ (0 - neg[i])) + neg[i]);  // two's complement
      const std::int64_t k = v >> rr;
      dropped |= static_cast<std::uint64_t>(v) ^ (static_cast<std::uint64_t>(k) << rr);
      sum += k;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const int r = shift_base - pe[i];
      const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
      const std::uint64_t k = sig[i] >> rr;
      dropped |= sig[i] ^ (k << rr);
      sum += static_cast<std::int64_t>((k ^ (0 - neg[i])) + neg[i]);
    }
  }
  {
    const int r = pmax + fo - ch.F + ch.Lc - pc;
    const auto rr = static_cast<unsigned>(r < 63 ? r : 63);
    const std::uint64_t s = z.sig << ch.Lc;
    const auto v = static_cast<std::int64_t>((s ^ (0 - z.neg)) + z.neg);
    if (ch.floor) {
      const std::int64_t k = v >> rr;
      dropped |= static_cast<std::uint64_t>(v) ^ (static_cast<std::uint64_t>(k) << rr);
      sum += k;
    } else {
      const std::uint64_t k = s >> rr;
      dropped |= s ^ (k << rr);
      sum += static_cast<std::int64_t>((k ^ (0 - z.neg)) + z.neg);
    }
  }
  if (dropped != 0) st |= status::inexact;
  if (sum == 0) return zero_bits(binary32, false);  // as block_fma_general: an exact zero sum is +0
  // Step 5: the one normalisation, by the core.
  const int g = pmax - bias_ab - ch.F;
  const bool rneg = sum < 0;
  const auto mag = static_cast<std::uint64_t>(rneg ? -sum : sum);
  env e = ch.final_env;
  if constexpr (M >= 0) e.mode = static_cast<rounding>(M);
  status rs{};
  bits_t r;
  if constexpr (K == format{}) r = round_pack(ch.kept, rneg, g, mag, false, e, rs);
  else r = round_pack(K, rneg, g, mag, false, e, rs);
  st |= rs;
  if (has(rs, status::overflow)) return sign_bit(binary32, rneg) | binary32.infinity_bits();
  // `kept` has binary32's exponent field and output_fraction_bits fraction bits, so the exact
  // conversion to binary32 moves the sign and appends zero fraction bits.
  const format& kept = K == format{} ? ch.kept : K;
  return sign_bit(binary32, (r & kept.sign_mask()) != 0) | ((r & ~kept.sign_mask()) << (fo - kept.fraction_bits()));
}

template <format FA, format FB, format K, int M, bool DAZ, class A, class B>
bits_t block_chain_fast_with(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                             std::size_t n, bits_t c, status& st) {
  constexpr int fab = FA.fraction_bits() + FB.fraction_bits();
  const int F = mu.alignment_bits;
  const int L = F > fab ? F - fab : 0;
  const fast_chain ch{unit_env(mu, mu.final_rounding), unit_kept_format(mu), F,
                      mu.alignment == alignment_rounding::floor, std::uint64_t{1} << L, L,
                      F > binary32.fraction_bits() ? F - binary32.fraction_bits() : 0};
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N)
    c = block_fma_fast<FA, FB, K, M, DAZ>(mu, a, b, first + s, n - s < N ? n - s : N, c, ch, st);
  return c;
}

/// The fast chain for input formats FA, FB: the presets' kept formats (binary32, and 13 fraction
/// bits for Hopper FP8) and final rounding (toward zero) as constants, the rest at run time.
template <format FA, format FB, class A, class B>
bits_t block_chain_fast(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                        std::size_t n, bits_t c, status& st) {
  constexpr format kept13{binary32.exponent_bits, 14, binary32.kind};
  constexpr int tz = static_cast<int>(rounding::toward_zero);
  if (mu.final_rounding == rounding::toward_zero && mu.input_subnormals == subnormal_handling::keep) {
    if (mu.output_fraction_bits == 23) return block_chain_fast_with<FA, FB, binary32, tz, false>(mu, a, b, first, n, c, st);
    if (mu.output_fraction_bits == 13) return block_chain_fast_with<FA, FB, kept13, tz, false>(mu, a, b, first, n, c, st);
  }
  if (mu.input_subnormals == subnormal_handling::flush)
    return block_chain_fast_with<FA, FB, format{}, -1, true>(mu, a, b, first, n, c, st);
  return block_chain_fast_with<FA, FB, format{}, -1, false>(mu, a, b, first, n, c, st);
}

/// An operand getter that carries its format as a constant (the typed entries): block_chain then
/// instantiates the fast path for that format only.
template <format F, class Get>
struct typed_get {
  static constexpr format fmt = F;
  Get get;
  LIBFLOAT_INLINE constexpr bits_t operator()(std::size_t i) const { return get(i); }
};
template <format F, class Get>
constexpr typed_get<F, Get> make_typed_get(Get g) {
  return {g};
}

template <class Get>
inline constexpr format static_format_of = format{};
template <format F, class Get>
inline constexpr format static_format_of<typed_get<F, Get>> = F;

/// The named formats the fast path takes (p_a + p_b <= 22 for every pair of them).
constexpr bool fast_format(const format& f) {
  return f == binary16 || f == bfloat16 || f == tfloat32 || f == float8_e4m3fn || f == float8_e5m2;
}

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

/// Operands held in memory after the input conversion.
struct stored_get {
  const bits_t* p;
  LIBFLOAT_INLINE constexpr bits_t operator()(std::size_t i) const { return p[i]; }
};

template <class A, class B>
bits_t unit_dot(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t n, bits_t c, status& st);

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
  return unit_dot(mu, operand{fa, stored_get{va.data()}}, operand{fb, stored_get{vb.data()}}, n, c, st);
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
  switch (mu.model) {
    case matrix_unit_model::block_fma: return block_chain(mu, a, b, 0, n, c, st);
    case matrix_unit_model::cuda_core_fma: {
      // binary16 (or E5M2, E4M3) in, binary32 nearest-even out, subnormals kept: the hardware's
      // own binary32 adds give the same bits and flags (detail/dot_fast.hpp); it declines for
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
  const detail::operand oa{fa, [a](std::size_t i) { return a[i]; }};
  const detail::operand ob{fb, [b](std::size_t i) { return b[i]; }};
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
    const detail::operand oa{F, detail::make_typed_get<F>([a](std::size_t i) { return bits_t{a[i].bits()}; })};
    const detail::operand ob{G, detail::make_typed_get<G>([b](std::size_t i) { return bits_t{b[i].bits()}; })};
    r = detail::unit_dot(mu, oa, ob, a.size(), cb, s);
  }
  status ignored{};
  const bits_t out = mu.output == binary32 ? r : convert(binary32, mu.output, r, env{}, ignored);
  detail::report(st, s);
  return fp32::from_bits(static_cast<std::uint32_t>(out));
}

// The stable calls (issue 4 §3): plain overloads, so that spans built from braces,
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
      const detail::operand oa{F, detail::make_typed_get<F>([&A, i, K](std::size_t k) { return bits_t{A[i * K + k].bits()}; })};
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
