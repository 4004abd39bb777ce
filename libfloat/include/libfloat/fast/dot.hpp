// libfloat/fast/dot.hpp: the hardware path of the "CUDA core" dot product: binary16 (or
// OCP E5M2 / E4M3) inputs, exact products, a binary32 accumulator rounded to nearest even,
// sequential order, no compensation (lf::accumulations::fp32_acc and e4m3_fp32_acc,
// lf::matrix_units::cuda_core_fp32). accumulate.hpp and matrix_unit.hpp call it when a model is
// exactly that; it is an optimisation only, and it declines (returns false) whenever it could
// differ from the general path, which then runs.
//
// Proof (its domain cannot be enumerated): ctest test dot_fast, label quick
// (tests/fast/test_dot_fast.cpp), compares dot_f32_nearest and the public entries that reach it
// (lf::dot with fp32_acc, fused products and cuda_core_fp32; typed and run-time formats) with the
// general engine (dot_impl_general), bits and flags, and each step with an independent binary32 fma
// oracle, on this random + edge domain: binary16 sets of 4096 pairs (all finite encodings; exponents
// -8..7; subnormal x tiny; the largest, up to 65504^2; zeros of both signs; exact cancellation; all
// -0 terms; 65504^2 repeated), lengths 0, 1, 2, 17, 31, 32, 33, 255, 256, 257, 4096, with no start
// value or +-0, 1, -131072, 2^-149, -(2^-126 - 2^-149), +-max finite; E4M3 and E5M2 likewise (all
// finite, subnormal x tiny, largest, cancellation; bits above the encoding ignored); infinities, NaNs
// and non-finite starts (it must decline); MXCSR default, with sticky flags, toward zero, upward,
// FTZ, DAZ, inexact unmasked (it must decline on all but the default; MXCSR restored).
//
// Why plain binary32 hardware arithmetic gives the core's bits (a fast path
// must be bit-identical to the core):
//  1. Every finite binary16 value is a binary32 value (11 significant bits, exponents -24..15).
//  2. Their product is exact in binary32: at most 11 + 11 = 22 significant bits, and a nonzero
//     magnitude in [2^-24 * 2^-24, 65504^2] = [2^-48, < 2^32], inside binary32's normal range.
//     So `x * y` rounds nothing and raises nothing (inexact, underflow and overflow need a
//     rounding). E5M2 (3 significant bits, [2^-16, 57344]) and E4M3 (4 bits, [2^-9, 448]) have
//     narrower products still (dot_fast_input below).
//  3. Hence `acc + x*y` rounds once, the exact acc + a*b to binary32 nearest even: what the
//     general path's lf::fma(binary32, a, b, acc) computes, bit for bit, the sign of an exact
//     zero included (IEEE 754-2019 §6.3: +0, or -0 when both addends are -0; the product's sign
//     is sign(a) xor sign(b) in both). Summing the product into the accumulator is exactly the
//     fma chain the model specifies.
//  4. Flags. An fma of finite operands can only raise inexact, underflow and overflow. The chain
//     runs with the hardware's sticky flags cleared and reads them at the end: on x86-64 SSE,
//     PE (inexact), UE (underflow: tininess after rounding, and with underflow masked only when
//     also inexact, IEEE's default and the library's default policy) and OE (overflow). The
//     caller's MXCSR is saved before and written back after, its own sticky flags included.
//     (Neither underflow nor overflow can in fact occur: every partial sum is a multiple of
//     2^-149 (init and products alike), so a tiny exact sum is a subnormal binary32 value
//     and rounds exactly; and |acc| <= max finite plus a term below 2^32, far under max finite's
//     half-ulp 2^103, never rounds past max finite. The flags are read anyway.)
//  5. The compiler must not move the additions across the MXCSR writes and reads: the
//     accumulator passes through an empty `asm volatile` right after the flags are cleared and
//     right before they are read, and volatile asm and the MXCSR intrinsics keep their order.
//     The products do not depend on the accumulator and may be scheduled anywhere: by 2 they
//     raise no flag (an x86 "denormal operand" DE flag is not an IEEE flag; it is not read, and
//     the caller's MXCSR is restored anyway). They are formed in whole groups of 16, the last from
//     a copy padded with +0 (dot_fast_groups), so that no vector lane multiplies anything but two
//     of the data's values or two +0.
//
// When the hardware path declines (the general path then decides NaN, infinities and flags):
//  - not x86-64 with SSE arithmetic for float, or built with -ffast-math (which may reassociate);
//  - the caller's MXCSR is not round-to-nearest with FTZ and DAZ off and every exception masked
//    (0x1F80, the default, plus any sticky flags): another rounding direction, flushing or a
//    trap would change the results or the control flow;
//  - the initial accumulator, or any a_i or b_i, is an infinity or a NaN (the products pass
//    notices it; the work done is discarded).
// Encodings are read modulo 2^width (16 or 8 bits), as lf::unpack reads them.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libfloat/core/format.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__SSE_MATH__) && \
    !defined(__FAST_MATH__) && !defined(LIBFLOAT_DOT_FAST_DISABLE)
#define LIBFLOAT_DOT_FAST_X86 1
#include <xmmintrin.h>  // _mm_getcsr, _mm_setcsr (this file and fast/pairwise_dot.hpp need no more)
#endif

namespace lf::detail {

/// True when this build has the hardware path at all (x86-64, SSE float, no -ffast-math); it still
/// declines at run time for other MXCSR settings and non-finite data.
inline constexpr bool dot_fast_built =
#if defined(LIBFLOAT_DOT_FAST_X86)
    true;
#else
    false;
#endif

/// MXCSR's sticky flags (bits 0-5: IE DE ZE OE UE PE) as status: invalid, overflow, underflow,
/// inexact (DE is not an IEEE flag; ZE cannot arise in a sum of products).
constexpr status mxcsr_flags(unsigned raised) {
  status s{};
  if (raised & 0x20u) s |= status::inexact;
  if (raised & 0x10u) s |= status::underflow;
  if (raised & 0x08u) s |= status::overflow;
  if (raised & 0x01u) s |= status::invalid;
  return s;
}

/// The input formats the hardware path reads: binary16, OCP E5M2 and OCP E4M3. For each, every
/// value is a binary32 value and the product of two values is exact in binary32 (at most 2 x 11
/// significant bits; nonzero magnitudes within [2^-48, 2^32) for binary16, [2^-32, 2^32) for
/// E5M2, [2^-18, 2^18) for E4M3, all inside binary32's normal range). bfloat16 and tf32 do not
/// qualify: their products leave binary32's exponent range. Equality, not a property test: the
/// kernel's bit tricks (sign_mask() - 1 as the magnitude, the nonfinite test, field 0 subnormal)
/// hold for these three only; the fnuz, finite_only and exponent-only formats take the engine.
constexpr bool dot_fast_input(const format& f) { return f == binary16 || f == float8_e5m2 || f == float8_e4m3fn; }

/// |x| for a finite encoding x of F (sign bit and anything above the encoding ignored) as a float:
/// the exponent and fraction fields moved to binary32's positions, where they read as
/// 2^(bias - 127) * |x| (exponent field e becomes binary32 field e; a subnormal's fraction becomes
/// a binary32 subnormal with the same scaling), then multiplied by 2^(127 - bias): exact. For
/// binary16: `(x & 0x7FFF) << 13` times 2^112. (The encodings of infinity and NaN give some finite
/// value: the kernel checks for them apart.)
template <format F>
[[gnu::always_inline]] inline float dot_fast_magnitude(std::uint32_t x) {
  static_assert(dot_fast_input(F));
  constexpr auto magnitude = static_cast<std::uint32_t>(F.sign_mask() - 1);
  constexpr int shift = 23 - F.fraction_bits();
  constexpr float scale = std::bit_cast<float>(static_cast<std::uint32_t>(127 - F.bias() + 127) << 23);
  return std::bit_cast<float>((x & magnitude) << shift) * scale;
}

#if defined(LIBFLOAT_DOT_FAST_X86)
/// Calls form(ga, gb, j0, out + k) for pairs [i0, i0 + m) in whole groups of G (k = 0, G, 2G, ...),
/// ga(j0 + i), gb(j0 + i) giving the encodings of the group's pair i, so that a loop of exactly G
/// products in `form` vectorises with no remainder: the compiler's vector code then has no spare
/// lane that multiplies values the source does not (GCC 12 -O3 formed a remainder whose spare
/// lanes held operands before their input flush, and MXCSR collected flags from them). The last
/// m mod G pairs come from a copy padded with encoding 0 (+0): a padding product is +0 * +0 = +0,
/// which raises nothing, stored past out[m).
template <std::size_t G, class A, class B, class Form>
[[gnu::always_inline]] inline void dot_fast_groups(const A& a, const B& b, std::size_t i0, std::size_t m, float* out,
                                                   const Form& form) {
  const std::size_t whole = m / G * G;
  for (std::size_t g = 0; g < whole; g += G) form(a, b, i0 + g, out + g);
  if (whole < m) {
    std::uint16_t ra[G] = {}, rb[G] = {};  // (the formats read are at most 16 bits wide)
    for (std::size_t i = 0; i < m - whole; ++i) {
      ra[i] = static_cast<std::uint16_t>(a(i0 + whole + i));
      rb[i] = static_cast<std::uint16_t>(b(i0 + whole + i));
    }
    form([&ra](std::size_t i) { return ra[i]; }, [&rb](std::size_t i) { return rb[i]; }, 0, out + whole);
  }
}
#endif

/// Terms per pass: the products of a block are formed first (independent, vectorised), then the
/// block's serial add chain runs. Short blocks let the out-of-order core form the next block's
/// products while the chain's adds wait on each other: on the development machine 32 runs at
/// about the plain float loop's speed, 256 at 0.6x of it (bench/bench_accumulate.cpp).
inline constexpr std::size_t dot_fast_block = 32;

/// The kernel for one input format F (dot_fast_input(F)): see dot_f32_nearest.
template <format F, class A, class B>
bool dot_f32_nearest_kernel(A a, B b, std::size_t n, std::uint32_t init, std::uint32_t& out, status& st) {
#if defined(LIBFLOAT_DOT_FAST_X86)
  static_assert(dot_fast_input(F));
  constexpr auto sign_bit = static_cast<std::uint32_t>(F.sign_mask());
  constexpr int sign_to_bit31 = 32 - F.bits();
  // (x & top) + carry reaches the sign bit exactly when x is an infinity or a NaN: for IEEE
  // formats when the exponent field is all ones (binary16: (x & 0x7C00) + 0x0400), for E4M3
  // (NaN only: S.1111.111) when the magnitude bits are all ones ((x & 0x7F) + 1).
  constexpr auto top = static_cast<std::uint32_t>(F.kind == nonfinite::ieee ? F.exponent_mask() : F.sign_mask() - 1);
  constexpr auto carry = static_cast<std::uint32_t>(F.kind == nonfinite::ieee ? F.min_normal_bits() : 1);
  if ((init & 0x7F800000u) == 0x7F800000u) return false;  // infinite or NaN start value
  // MXCSR: bits 0-5 sticky flags (IE DE ZE OE UE PE), 6 DAZ, 7-12 masks, 13-14 rounding, 15 FTZ.
  const unsigned caller = _mm_getcsr();
  if ((caller & 0xFFC0u) != 0x1F80u) return false;  // not: nearest, every exception masked, no DAZ/FTZ
  constexpr std::size_t group = 16;
  static_assert(dot_fast_block % group == 0);
  alignas(64) float p[dot_fast_block];
  std::uint32_t nonfinite = 0;  // sign_bit set: some a_i or b_i is an infinity or a NaN
  float acc = std::bit_cast<float>(init);
  _mm_setcsr(caller & ~0x3Fu);
  __asm__ volatile("" : "+x"(acc));  // the chain starts after the flags are cleared
  for (std::size_t i0 = 0; i0 < n; i0 += dot_fast_block) {
    const std::size_t m = n - i0 < dot_fast_block ? n - i0 : dot_fast_block;
    // The products, in whole groups (dot_fast_groups; file comment, 5).
    dot_fast_groups<group>(a, b, i0, m, p, [&](const auto& ga, const auto& gb, std::size_t j0, float* q) __attribute__((always_inline)) {
      for (std::size_t i = 0; i < group; ++i) {
        const auto x = static_cast<std::uint32_t>(ga(j0 + i)), y = static_cast<std::uint32_t>(gb(j0 + i));
        // An integer OR, so the loop vectorises (a float max would not, without -ffast-math).
        nonfinite |= ((x & top) + carry) | ((y & top) + carry);
        const float fx = dot_fast_magnitude<F>(x), fy = dot_fast_magnitude<F>(y);
        const std::uint32_t sign = ((x ^ y) & sign_bit) << sign_to_bit31;
        q[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(fx * fy) | sign);  // exact (file comment, 2)
      }
    });
    for (std::size_t i = 0; i < m; ++i) acc += p[i];  // one rounding per term (file comment, 3)
  }
  __asm__ volatile("" : "+x"(acc));  // the chain ends before the flags are read
  const unsigned raised = _mm_getcsr();
  _mm_setcsr(caller);
  if (nonfinite & sign_bit) return false;  // an infinity or NaN among the inputs
  st = mxcsr_flags(raised);  // (IE cannot be raised: the inputs are finite and the products exact)
  out = std::bit_cast<std::uint32_t>(acc);
  return true;
#else
  (void)a, (void)b, (void)n, (void)init, (void)out, (void)st;
  return false;
#endif
}

/// The "CUDA core" dot product on the hardware: out = init + a_0 b_0 + a_1 b_1 + ... in binary32,
/// sequential, each step one rounding to nearest even; st = the flags raised (assigned, not
/// ORed). a(i), b(i) give encodings of `in` (binary16, E5M2 or E4M3: dot_fast_input; bits above
/// the encoding are ignored, as lf::unpack ignores them); init is a binary32 encoding. Returns
/// false, with out and st untouched, when the hardware path declines (file comment; also for
/// any other input format); the caller then runs the general path.
template <class A, class B>
bool dot_f32_nearest(const format& in, A a, B b, std::size_t n, std::uint32_t init, std::uint32_t& out, status& st) {
  if constexpr (!dot_fast_built) {
    (void)in, (void)a, (void)b, (void)n, (void)init, (void)out, (void)st;
    return false;
  } else {
    if (in == binary16) return dot_f32_nearest_kernel<binary16>(a, b, n, init, out, st);
    if (in == float8_e5m2) return dot_f32_nearest_kernel<float8_e5m2>(a, b, n, init, out, st);
    if (in == float8_e4m3fn) return dot_f32_nearest_kernel<float8_e4m3fn>(a, b, n, init, out, st);
    return false;
  }
}

}  // namespace lf::detail
