// libfloat/models/matrix_unit_presets.hpp: the matrix-unit presets (lf::matrix_units::volta_fp16 ...)
// and the table of them by name, each citing its source.
#pragma once

#include <optional>
#include <string_view>

#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

namespace lf {

// ---- presets ----------------------------------------------------------------------------------
//
// N and F from: Fasi, Higham, Mikaitis, Pranesh,
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
/// T4 (Turing), fp16 inputs: N = 8, F = 24 (Fasi et al. 2021 report T4; N = 4 in some sources). No
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
/// The Hopper presets return +0 for every zero result (positive_zero): measured with mma.sync on an
/// H200 (tests/gpu/record_mma.cu, 2026-12-04; tests/data/tensor-core-hw-mma).
/// H100 (Hopper), fp16 inputs: N = 16, F = 25 (H100TC.m fma 16, neab 2; MMA-Sim).
inline constexpr matrix_unit hopper_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 16,
                                         .alignment_bits = 25, .positive_zero = true};
/// H100, bf16 inputs: N = 16, F = 25 (H100TC.m; MMA-Sim).
inline constexpr matrix_unit hopper_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even, .block_size = 16,
                                         .alignment_bits = 25, .positive_zero = true};
/// H100, tf32 inputs, binary32 data truncated (GEMM.m round = 4): N = 8, F = 25 (H100TC.m fma 8; MMA-Sim).
inline constexpr matrix_unit hopper_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero, .block_size = 8,
                                         .alignment_bits = 25, .positive_zero = true};
/// H100 wgmma, FP8 (E4M3 or E5M2) inputs: N = 32, F = 13, the result keeps 13 fraction bits
/// (H100TC.m fma 32, neab -10, NoManBitsOut 23 - 10; MMA-Sim; DeepSeek-V3 §3.3.2: "about 14 bits").
inline constexpr matrix_unit hopper_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                        .block_size = 32, .alignment_bits = 13, .output_fraction_bits = 13,
                                        .positive_zero = true};
/// B200 (Blackwell), fp16 inputs: N = 16, F = 25 (B200TC.m fma 16, neab 2; MMA-Sim).
inline constexpr matrix_unit blackwell_fp16{.input = binary16, .input_rounding = rounding::nearest_even,
                                            .block_size = 16, .alignment_bits = 25};
/// B200, bf16 inputs: the fp16 unit's N = 16, F = 25 (B200TC.m, which treats bf16 as fp16; MMA-Sim).
inline constexpr matrix_unit blackwell_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even,
                                            .block_size = 16, .alignment_bits = 25};
/// B200, tf32 inputs, binary32 data truncated (GEMM.m round = 4): N = 8, F = 25 (B200TC.m fma 8; MMA-Sim).
inline constexpr matrix_unit blackwell_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero,
                                            .block_size = 8, .alignment_bits = 25};
/// B200, FP8 inputs (E4M3 or E5M2) through the warp-level mma.sync m16n8k32, as the recorded B200
/// results were measured (MATLAB-tensor-core model_validation/CUDA/mma_fp8_output_fp32.cu): the 32
/// products and c on a grid 2^(emax - F) with F = 48, the sum rounded once to nearest even. Those
/// results rule out the truncated result of B200TC.m and MMA-Sim (N = 32, F = 25, toward zero: 662
/// of the 1000 FP8 cases of the development sample; blackwell_fp8_tcgen05 below) and F = 25 with
/// nearest even (B200TCRN.m: 940). Nearest even fits all of them for every F from 28 up to an exact
/// sum, so the sample does not fix F; 48 is the widest grid the fast block computes (every FP8
/// product is exact on it; only bits of c more than 48 below the largest term are dropped).
inline constexpr matrix_unit blackwell_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                           .block_size = 32, .alignment_bits = 48,
                                           .final_rounding = rounding::nearest_even};
/// B200 tcgen05.mma kind::f8f6f4 as MMA-Sim models it (arXiv 2511.10909, TCGen05MMASim: 25 fraction
/// bits, one fused sum of K = 32, truncated) and B200TC.m (fma 32, neab 2, rz). Not what the
/// recorded mma.sync results show (blackwell_fp8); not checked against tcgen05 hardware here.
inline constexpr matrix_unit blackwell_fp8_tcgen05{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                                   .block_size = 32, .alignment_bits = 25};
/// B200TCRN.m: the B200 model with the final normalisation rounded to nearest even instead of
/// truncated (fma 16 / 8 / 32, neab 2, frmode 'rne'), for fp16/bf16, tf32 and FP8 inputs.
inline constexpr matrix_unit blackwell_rn_fp16{.input = binary16, .input_rounding = rounding::nearest_even,
                                               .block_size = 16, .alignment_bits = 25,
                                               .final_rounding = rounding::nearest_even};
inline constexpr matrix_unit blackwell_rn_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even,
                                               .block_size = 16, .alignment_bits = 25,
                                               .final_rounding = rounding::nearest_even};
inline constexpr matrix_unit blackwell_rn_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero,
                                               .block_size = 8, .alignment_bits = 25,
                                               .final_rounding = rounding::nearest_even};
inline constexpr matrix_unit blackwell_rn_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                              .block_size = 32, .alignment_bits = 25,
                                              .final_rounding = rounding::nearest_even};
/// Ada Lovelace (L40S, RTX 4090; sm_89), fp16 inputs: N = 8, F = 24 (AdaTC.m / L40STC.m fma 8,
/// neab 1; MMA-Sim "Ada Lovelace": 24 fraction bits, m16n8k16 split into two k = 8 halves).
inline constexpr matrix_unit ada_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 8,
                                      .alignment_bits = 24};
/// Ada, bf16 inputs: N = 8, F = 24 (AdaTC.m; MMA-Sim).
inline constexpr matrix_unit ada_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even, .block_size = 8,
                                      .alignment_bits = 24};
/// Ada, tf32 inputs, binary32 data truncated: N = 4, F = 24 (AdaTC.m fma 4; MMA-Sim).
inline constexpr matrix_unit ada_tf32{.input = tfloat32, .input_rounding = rounding::toward_zero, .block_size = 4,
                                      .alignment_bits = 24};
/// Ada, FP8 inputs (E4M3 or E5M2): N = 16, F = 13, the block result keeps 13 fraction bits
/// (AdaTC.m fma 16, neab -10; MMA-Sim: m16n8k32 split into two k = 16 halves, 13 bits, e8m13 output).
inline constexpr matrix_unit ada_fp8{.input = float8_e4m3fn, .input_rounding = rounding::nearest_even,
                                     .block_size = 16, .alignment_bits = 13, .output_fraction_bits = 13};
// AMD CDNA matrix cores (MFMA), binary32 accumulation. Two public models, no recorded hardware
// results here: MATLAB-tensor-core (models/MI100MC.m, MI210MC.m with models/tools/Generic_BFMA_TC.m)
// and MMA-Sim (arXiv 2511.10909; mmasim/simulator/amd.py). They agree on CDNA2 and disagree on
// CDNA1, so CDNA1 has both; for CDNA3 MATLAB-tensor-core's MI300MC.m was deleted from the
// repository (commit d12a5b3); its last version (b4bf135) and MMA-Sim's amd_fused_dot_rd_add agree
// but for one choice, followed here as MATLAB makes it: a zero product takes no part in the block's
// exponent maximum (MMA-Sim gives a zero operand the exponent -126). Wider data nearest even (GEMM.m:
// CPFloat round = 1).
/// MI100 (CDNA1), fp16 inputs, as MATLAB-tensor-core models it (MI100MC.m: fma 4,
/// correct_rounding = 1): each block of 4 products and c summed exactly, rounded once to nearest
/// even; subnormals kept.
inline constexpr matrix_unit cdna1_fp16{.input = binary16, .input_rounding = rounding::nearest_even, .block_size = 4,
                                        .alignment = alignment_rounding::exact,
                                        .final_rounding = rounding::nearest_even};
/// MI100, bf16 inputs (MI100MC.m: fma 2 for bf16), as cdna1_fp16.
inline constexpr matrix_unit cdna1_bf16{.input = bfloat16, .input_rounding = rounding::nearest_even, .block_size = 2,
                                        .alignment = alignment_rounding::exact,
                                        .final_rounding = rounding::nearest_even};
/// MI100 as MMA-Sim models it (group 4 for fp16): products rounded to binary32, a pairwise
/// binary32 tree, then c added, every add nearest even; subnormals kept.
inline constexpr matrix_unit cdna1_pairwise_fp16{.model = matrix_unit_model::pairwise_tree, .input = binary16,
                                                 .input_rounding = rounding::nearest_even, .block_size = 4,
                                                 .alignment_bits = 0, .final_rounding = rounding::nearest_even};
/// MI100 bf16 as MMA-Sim models it (group 2).
inline constexpr matrix_unit cdna1_pairwise_bf16{.model = matrix_unit_model::pairwise_tree, .input = bfloat16,
                                                 .input_rounding = rounding::nearest_even, .block_size = 2,
                                                 .alignment_bits = 0, .final_rounding = rounding::nearest_even};
/// MI210, MI250, MI250X (CDNA2), fp16 inputs: the pairwise tree of 4 binary32 products, c added
/// last, subnormal inputs, c, intermediate sums and results flushed (MI210MC.m: fma 4,
/// pair_wise_sum 1, in_subnormals = out_subnormals = 0; MMA-Sim: group 4, flush_denormal).
inline constexpr matrix_unit cdna2_fp16{.model = matrix_unit_model::pairwise_tree, .input = binary16,
                                        .input_rounding = rounding::nearest_even, .block_size = 4,
                                        .alignment_bits = 0, .final_rounding = rounding::nearest_even,
                                        .input_subnormals = subnormal_handling::flush,
                                        .output_subnormals = subnormal_handling::flush};
/// CDNA2, bf16 inputs, the *_bf16_1k instructions (group 4; MMA-Sim gives the older non-_1k bf16
/// instructions a group of 2, which MI210MC.m does not distinguish).
inline constexpr matrix_unit cdna2_bf16{.model = matrix_unit_model::pairwise_tree, .input = bfloat16,
                                        .input_rounding = rounding::nearest_even, .block_size = 4,
                                        .alignment_bits = 0, .final_rounding = rounding::nearest_even,
                                        .input_subnormals = subnormal_handling::flush,
                                        .output_subnormals = subnormal_handling::flush};
/// MI300A, MI300X (CDNA3), fp16 inputs: blocks of 8 products, cut toward zero onto 2^(M - 24) (M
/// the largest product exponent, c left out: MI300MC.m global_alignment, neab 1, denorm_prd 1),
/// summed exactly; then c added with a floor alignment, the products' sum keeping 31 fraction bits
/// when c's exponent is the larger (late_partial_sum, armode 'rd'; MMA-Sim n_fractional_bits 24);
/// one rounding to nearest even; subnormals kept.
inline constexpr matrix_unit cdna3_fp16{.model = matrix_unit_model::late_accumulation, .input = binary16,
                                        .input_rounding = rounding::nearest_even, .block_size = 8,
                                        .alignment_bits = 24, .final_rounding = rounding::nearest_even,
                                        .late_extra_bits = 7};
/// CDNA3, bf16 inputs: as cdna3_fp16.
inline constexpr matrix_unit cdna3_bf16{.model = matrix_unit_model::late_accumulation, .input = bfloat16,
                                        .input_rounding = rounding::nearest_even, .block_size = 8,
                                        .alignment_bits = 24, .final_rounding = rounding::nearest_even,
                                        .late_extra_bits = 7};
/// CDNA3, FP8 inputs (E4M3FNUZ, E5M2FNUZ, mixed): blocks of 16, the even and the odd positions
/// aligned and summed apart, combined with a floor alignment (odd_even_grouping), then c as
/// cdna3_fp16 except that a c more than 25 binades below the products is dropped (exp_check).
inline constexpr matrix_unit cdna3_fp8{.model = matrix_unit_model::late_accumulation, .input = float8_e4m3fnuz,
                                       .input_rounding = rounding::nearest_even, .block_size = 16,
                                       .alignment_bits = 24, .final_rounding = rounding::nearest_even,
                                       .late_extra_bits = 7, .odd_even_halves = true, .late_c_drop = 25};
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
  /// The recorded hardware results this preset reproduces bit for bit (the GPU and its sets, from the
  /// development sample of MATLAB-tensor-core's model_validation: tests/data/tensor-core-hw, checked
  /// by tests/models/test_tensor_core_hw.cpp), or empty: a model not checked against hardware.
  std::string_view hardware = {};
};

/// Every preset with its name (the identifier in lf::matrix_units) and source.
inline constexpr named_matrix_unit matrix_unit_presets[] = {
    {"volta_fp16", matrix_units::volta_fp16, "Fasi et al. 2021 (PeerJ CS 7:e330); V100TC.m", "V100: fp16 to fp32 and fp16"},
    {"turing_fp16", matrix_units::turing_fp16, "Fasi et al. 2021 (T4; N = 4 in some sources)"},
    {"ampere_fp16", matrix_units::ampere_fp16, "Fasi et al. 2021; A100TC.m", "A100, A2: fp16 to fp32 and fp16"},
    {"ampere_bf16", matrix_units::ampere_bf16, "Fasi et al. 2021; A100TC.m", "A100, A2: bf16 to fp32"},
    {"ampere_tf32", matrix_units::ampere_tf32, "Fasi et al. 2021; A100TC.m; truncation: GEMM.m", "A100, A2: tf32 to fp32"},
    {"ada_fp16", matrix_units::ada_fp16, "AdaTC.m, L40STC.m; MMA-Sim arXiv 2511.10909", "Ada, L40S: fp16 to fp32 and fp16"},
    {"ada_bf16", matrix_units::ada_bf16, "AdaTC.m, L40STC.m; MMA-Sim arXiv 2511.10909", "Ada, L40S: bf16 to fp32"},
    {"ada_tf32", matrix_units::ada_tf32, "AdaTC.m, L40STC.m; MMA-Sim; truncation: GEMM.m", "Ada, L40S: tf32 to fp32"},
    {"ada_fp8", matrix_units::ada_fp8, "AdaTC.m, L40STC.m (neab -10); MMA-Sim arXiv 2511.10909",
     "Ada, L40S: E4M3, E5M2 to fp32; Ada: E4M3, E5M2 to fp16"},
    {"hopper_fp16", matrix_units::hopper_fp16, "H100TC.m; MMA-Sim arXiv 2511.10909", "H100, H200: fp16 to fp32 and fp16"},
    {"hopper_bf16", matrix_units::hopper_bf16, "H100TC.m; MMA-Sim arXiv 2511.10909", "H100, H200: bf16 to fp32"},
    {"hopper_tf32", matrix_units::hopper_tf32, "H100TC.m; MMA-Sim arXiv 2511.10909; truncation: GEMM.m",
     "H100, H200: tf32 to fp32"},
    {"hopper_fp8", matrix_units::hopper_fp8, "H100TC.m; MMA-Sim; DeepSeek-V3 arXiv 2412.19437 §3.3.2",
     "H100, H200: E4M3, E5M2 to fp32 (c = 0, wgmma)"},
    {"blackwell_fp16", matrix_units::blackwell_fp16, "B200TC.m; MMA-Sim arXiv 2511.10909", "B200: fp16 to fp32 and fp16"},
    {"blackwell_bf16", matrix_units::blackwell_bf16, "B200TC.m; MMA-Sim arXiv 2511.10909", "B200: bf16 to fp32"},
    {"blackwell_tf32", matrix_units::blackwell_tf32, "B200TC.m; MMA-Sim arXiv 2511.10909; truncation: GEMM.m",
     "B200: tf32 to fp32"},
    {"blackwell_fp8", matrix_units::blackwell_fp8,
     "the recorded B200 mma.sync results (MATLAB-tensor-core model_validation); B200TC.m and MMA-Sim truncate instead",
     "B200: E4M3, E5M2 to fp32"},
    {"blackwell_fp8_tcgen05", matrix_units::blackwell_fp8_tcgen05, "MMA-Sim arXiv 2511.10909 (tcgen05); B200TC.m"},
    {"blackwell_rn_fp16", matrix_units::blackwell_rn_fp16, "B200TCRN.m"},
    {"blackwell_rn_bf16", matrix_units::blackwell_rn_bf16, "B200TCRN.m"},
    {"blackwell_rn_tf32", matrix_units::blackwell_rn_tf32, "B200TCRN.m; truncation: GEMM.m"},
    {"blackwell_rn_fp8", matrix_units::blackwell_rn_fp8, "B200TCRN.m"},
    {"cdna1_fp16", matrix_units::cdna1_fp16, "MATLAB-tensor-core MI100MC.m (correct_rounding = 1)"},
    {"cdna1_bf16", matrix_units::cdna1_bf16, "MATLAB-tensor-core MI100MC.m (correct_rounding = 1, fma 2)"},
    {"cdna1_pairwise_fp16", matrix_units::cdna1_pairwise_fp16, "MMA-Sim arXiv 2511.10909 (CDNA1, pairwise)"},
    {"cdna1_pairwise_bf16", matrix_units::cdna1_pairwise_bf16, "MMA-Sim arXiv 2511.10909 (CDNA1, pairwise, group 2)"},
    {"cdna2_fp16", matrix_units::cdna2_fp16, "MI210MC.m (pair_wise_sum); MMA-Sim arXiv 2511.10909; ROCm MIOpen MI200 notes"},
    {"cdna2_bf16", matrix_units::cdna2_bf16,
     "MI210MC.m (pair_wise_sum); MMA-Sim arXiv 2511.10909 (bf16_1k); ROCm MIOpen MI200 notes"},
    {"cdna3_fp16", matrix_units::cdna3_fp16, "MATLAB-tensor-core MI300MC.m (b4bf135); MMA-Sim arXiv 2511.10909"},
    {"cdna3_bf16", matrix_units::cdna3_bf16, "MATLAB-tensor-core MI300MC.m (b4bf135); MMA-Sim arXiv 2511.10909"},
    {"cdna3_fp8", matrix_units::cdna3_fp8,
     "MATLAB-tensor-core MI300MC.m (b4bf135, odd_even_grouping); MMA-Sim arXiv 2511.10909"},
    {"cuda_core_fp32", matrix_units::cuda_core_fp32, "binary32 fma chain (IEEE 754-2019 fusedMultiplyAdd)"},
    {"deepseek_fp8_promote128", matrix_units::deepseek_fp8_promote128, "DeepSeek-V3 arXiv 2412.19437 §3.3.2"},
};

/// A preset by its name ("ampere_fp16", ...), or nullopt.
constexpr std::optional<matrix_unit> matrix_unit_by_name(std::string_view name) {
  for (const auto& p : matrix_unit_presets)
    if (p.name == name) return p.unit;
  return std::nullopt;
}

}  // namespace lf
