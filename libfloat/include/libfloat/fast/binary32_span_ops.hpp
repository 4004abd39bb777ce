// libfloat/fast/binary32_span_ops.hpp: binary32 add, sub, mul, div and fma on spans (lf::add(a, b, out,
// e) etc., core/array_arith.hpp) under the default policy, in the four rounding directions x86 has
// (nearest_even, toward_zero, upward, downward), on the AVX2 and AVX-512 paths: the CPU's own binary32
// operations, with MXCSR set to the direction.
//
// Proof: tests/fast/test_fast_ops_sampled.cpp (ctest label `proof`), "binary32 span operations": each
// of the five operations on every pair of biased exponents (fma: with the addend's exponent at and
// around the product's, and anywhere) and signs with random fractions, zeros, subnormals, infinities,
// quiet and signaling NaNs, in the six directions (nearest_away and odd take the scalar path), on each
// vector path the CPU has (one it lacks is reported skipped), grouped by the core's flags: every
// element's bits against the core (core/arith.hpp), and each group's span flags exactly its core
// flags.
//
// Why the result is the core's. SSE/AVX binary32 arithmetic (vaddps, vsubps, vmulps, vdivps, vfmadd)
// is IEEE 754's, correctly rounded in the direction MXCSR.RC selects; with every exception masked and
// FTZ and DAZ off it gives IEEE's default results and flags, with the choices the library documents
// and follows (docs/library.md, "Rules worth knowing"): tininess detected after rounding, underflow
// raised when tiny and inexact, overflow to infinity or max finite by direction, an invalid
// operation's default NaN 0xFFC00000, a NaN operand returned quieted. What the hardware leaves to the
// instruction's operand order is which NaN comes back when two operands are NaNs, and a compiler may
// swap the operands of a commutative operation: a lane with a NaN operand is therefore computed by
// the core instead (the caller does it), and its operands are replaced by 0, 1 (and 0) in the vector
// operation, which gives an exact result and raises nothing.
// Flags: MXCSR's sticky bits after the block: IE invalid, ZE divide_by_zero, OE overflow, UE
// underflow, PE inexact (DE, the denormal-operand flag, has no IEEE counterpart and is not read). A
// quiet compare of a signaling NaN raises IE, which the core raises for that lane too.
// Floating-point environment: the caller's MXCSR is saved, set to 0x1F80 | RC (all exceptions
// masked, flags clear, no FTZ/DAZ), and restored with its own sticky flags after each block
// (mxcsr_guard).
#pragma once

#include <cstddef>
#include <cstdint>

#include <libfloat/core/fp.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/array_kernels.hpp>
#include <libfloat/fast/binary16_span_ops.hpp>

namespace lf::detail {

/// Whether the hardware kernels serve direction m (MXCSR.RC has four).
constexpr bool binary32_hw_direction(rounding m) {
  return m == rounding::nearest_even || m == rounding::toward_zero || m == rounding::upward || m == rounding::downward;
}

/// A block of this many elements per kernel call (the caller handles the rest).
inline constexpr std::size_t binary32_span_block = 256;

#if defined(LIBFLOAT_ARRAY_X86)
/// MXCSR for direction m: all exceptions masked, flags clear, no FTZ/DAZ, RC = m.
constexpr std::uint32_t binary32_mxcsr(rounding m) {
  return 0x1F80u | (m == rounding::downward ? 0x2000u : m == rounding::upward ? 0x4000u
                                                      : m == rounding::toward_zero ? 0x6000u : 0u);
}

/// MXCSR's sticky flags as status bits (DE not read).
constexpr std::uint32_t binary32_mxcsr_status(std::uint32_t csr) {
  return ((csr & 0x01u) != 0 ? to_bits(status::invalid) : 0u) | ((csr & 0x04u) != 0 ? to_bits(status::divide_by_zero) : 0u) |
         ((csr & 0x08u) != 0 ? to_bits(status::overflow) : 0u) | ((csr & 0x10u) != 0 ? to_bits(status::underflow) : 0u) |
         ((csr & 0x20u) != 0 ? to_bits(status::inexact) : 0u);
}

/// One block of binary32_span_block elements into v under MXCSR csr (8 lanes of AVX2); nan set when a
/// lane had a NaN operand (its v is not the result). Returns the flags as status bits.
template <span_op O>
[[gnu::noinline, LIBFLOAT_TARGET_AVX2]] std::uint32_t binary32_span_stage_avx2(const fp32* a, const fp32* b, const fp32* c,
                                                                               float* v, std::uint32_t csr, bool& nan) {
  const mxcsr_guard guard(csr);
  const simd::m256 zero = simd::mm256_setzero_ps(), one = simd::mm256_set1_ps(1.0f);
  simd::m256 any = zero;
  for (std::size_t i = 0; i < binary32_span_block; i += 8) {
    // (the operands' bits loaded as they are: an integer load, which may alias fp32's storage)
    simd::m256 x = simd::mm256_castsi256_ps(simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(a + i)));
    simd::m256 y = simd::mm256_castsi256_ps(simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(b + i))), z = zero;
    simd::m256 bad = simd::mm256_cmp_ps<simd::cmp_unord_q>(x, y);
    if constexpr (O == span_op::fma) {
      z = simd::mm256_castsi256_ps(simd::mm256_loadu_si256(reinterpret_cast<const simd::m256i*>(c + i)));
      bad = simd::mm256_or_ps(bad, simd::mm256_cmp_ps<simd::cmp_unord_q>(z, z));
      z = simd::mm256_blendv_ps(z, zero, bad);
    }
    any = simd::mm256_or_ps(any, bad);
    x = simd::mm256_blendv_ps(x, zero, bad);
    y = simd::mm256_blendv_ps(y, one, bad);
    simd::m256 r;
    if constexpr (O == span_op::add) r = simd::mm256_add_ps(x, y);
    else if constexpr (O == span_op::sub) r = simd::mm256_sub_ps(x, y);
    else if constexpr (O == span_op::mul) r = simd::mm256_mul_ps(x, y);
    else if constexpr (O == span_op::div) r = simd::mm256_div_ps(x, y);
    else r = simd::mm256_fmadd_ps(x, y, z);
    simd::mm256_storeu_ps(v + i, r);
  }
  nan = simd::mm256_movemask_ps(any) != 0;
  return binary32_mxcsr_status(_mm_getcsr());
}

/// The same on 16 lanes of AVX-512.
template <span_op O>
[[gnu::noinline, LIBFLOAT_TARGET_AVX512]] std::uint32_t binary32_span_stage_avx512(const fp32* a, const fp32* b,
                                                                                   const fp32* c, float* v,
                                                                                   std::uint32_t csr, bool& nan) {
  const mxcsr_guard guard(csr);
  const simd::m512 zero = simd::mm512_setzero_ps(), one = simd::mm512_set1_ps(1.0f);
  simd::mmask16 any = 0;
  for (std::size_t i = 0; i < binary32_span_block; i += 16) {
    simd::m512 x = simd::mm512_castsi512_ps(simd::mm512_loadu_si512(a + i)), y = simd::mm512_castsi512_ps(simd::mm512_loadu_si512(b + i)), z = zero;
    simd::mmask16 bad = simd::mm512_cmp_ps_mask<simd::cmp_unord_q>(x, y);
    if constexpr (O == span_op::fma) {
      z = simd::mm512_castsi512_ps(simd::mm512_loadu_si512(c + i));
      bad |= simd::mm512_cmp_ps_mask<simd::cmp_unord_q>(z, z);
      z = simd::mm512_mask_blend_ps(bad, z, zero);
    }
    any |= bad;
    x = simd::mm512_mask_blend_ps(bad, x, zero);
    y = simd::mm512_mask_blend_ps(bad, y, one);
    simd::m512 r;
    if constexpr (O == span_op::add) r = simd::mm512_add_ps(x, y);
    else if constexpr (O == span_op::sub) r = simd::mm512_sub_ps(x, y);
    else if constexpr (O == span_op::mul) r = simd::mm512_mul_ps(x, y);
    else if constexpr (O == span_op::div) r = simd::mm512_div_ps(x, y);
    else r = simd::mm512_fmadd_ps(x, y, z);
    simd::mm512_storeu_ps(v + i, r);
  }
  nan = any != 0;
  return binary32_mxcsr_status(_mm_getcsr());
}
#endif

}  // namespace lf::detail
