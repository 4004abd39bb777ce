// libfloat/fast/scalar.hpp: fast paths that are bit-identical to the core.
//
// Proof: ctest test fast_paths, label `proof` (tests/fast/test_fast_paths.cpp): f32_to_f16_bits_rne
// and f32_to_bf16_bits_rne equal the core (lf::convert, core/arith.hpp) for all 2^32 binary32 inputs
// (binary16 also equals F16C's VCVTPS2PH where the CPU has it); f16_to_f32_bits and bf16_to_f32_bits
// for all 2^16 encodings. The binary32 route of lf::fp16 / lf::bf16's + - * /: tests binary16_pairs
// and bfloat16_pairs (tests/core/test_*_pairs.cpp, label exhaustive), every operand pair against a
// hardware oracle under roundTiesToEven.
//
// - Widening binary16 / bfloat16 to binary32 is exact (pure bit manipulation); NaNs are quieted.
// - Narrowing binary32 to binary16 / bfloat16 under roundTiesToEven, without flags. These are the
//   integer formulations of round_pack for one fixed format and mode.
// - A binary16 or bfloat16 +, -, *, / computed in binary32 and then narrowed is correctly rounded:
//   binary32 has p = 24 >= 2p + 2 for both (Figueroa, "When is double rounding innocuous?", 1995),
//   and its exponent range holds every exact result's magnitude.
// - All of that holds for IEEE 754's default floating-point environment only. Hardware arithmetic
//   follows the thread's control register (x86 MXCSR: rounding direction, flush-to-zero FTZ,
//   denormals-are-zero DAZ, exception traps), which -ffast-math's startup code,
//   _MM_SET_FLUSH_ZERO_MODE or torch.set_flush_denormal change. hardware_env_is_default() reads
//   it, and lf::fp16 / lf::bf16's operators take the binary32 path only when it is the default;
//   otherwise the library's exact integer path runs (tests/core/test_fp_env.cpp). The conversions
//   below give the same bits in every environment (f16_to_float).
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2_MATH__) && !defined(__FAST_MATH__) && !defined(LIBFLOAT_NO_HARDWARE_FLOAT)
// The fast paths need SSE arithmetic for float and double (not x87's extended precision) and a
// compiler that keeps IEEE semantics (no -ffast-math: it assumes no NaNs and may reassociate).
#define LIBFLOAT_HARDWARE_FLOAT_X86 1
#endif
#if defined(__F16C__)
#include <immintrin.h>
#elif defined(LIBFLOAT_HARDWARE_FLOAT_X86)
// Only _mm_getcsr (SSE): <xmmintrin.h>, not <immintrin.h>, whose AVX-512 declarations cost every
// translation unit that uses lf::fp16 about 0.5 s of compile time at -O2 (GCC 12).
#include <xmmintrin.h>
#endif

namespace lf::detail {

/// True when this build can use binary32 hardware arithmetic for the binary16 / bfloat16
/// operators at all (x86 with SSE float and double arithmetic, no -ffast-math); they still check
/// the environment at run time (hardware_env_is_default).
inline constexpr bool hardware_float_built =
#if defined(LIBFLOAT_HARDWARE_FLOAT_X86)
    true;
#else
    false;
#endif

/// Whether the thread's SSE environment is IEEE 754's default, under which binary32 hardware
/// arithmetic gives the results the fast paths rely on and raises no trap: MXCSR
/// (bits 0-5 sticky flags, ignored; 6 DAZ; 7-12 exception masks; 13-14 rounding control; 15 FTZ)
/// is 0x1F80 apart from the sticky flags: round to nearest even, no DAZ, no FTZ, every exception
/// masked (so nothing traps). One STMXCSR and a compare; false where hardware_float_built is false.
[[gnu::always_inline]] inline bool hardware_env_is_default() {
#if defined(LIBFLOAT_HARDWARE_FLOAT_X86)
  return (_mm_getcsr() & 0xFFC0u) == 0x1F80u;
#else
  return false;
#endif
}

constexpr std::uint32_t f16_to_f32_bits(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t e = (h >> 10) & 0x1Fu;
  std::uint32_t m = h & 0x3FFu;
  if (e == 0x1F) return sign | 0x7F800000u | (m << 13) | (m ? 0x400000u : 0u);  // inf; NaN quieted, payload kept
  if (e == 0) {
    if (m == 0) return sign;
    // subnormal m * 2^-24: normalise so that bit 10 is the hidden bit
    const int s = 11 - std::bit_width(m);
    m = (m << s) & 0x3FFu;
    e = static_cast<std::uint32_t>(1 - s);
  }
  return sign | ((e + 112u) << 23) | (m << 13);  // rebias 15 -> 127
}

constexpr std::uint16_t f32_to_f16_bits_rne(std::uint32_t x) {
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));  // quiet NaN
  if (a >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // >= 65520 (= 65504 + ulp/2): inf
  if (a >= 0x38800000u) {                                                     // >= 2^-14: normal result
    const std::uint32_t r = a + 0x0FFFu + ((a >> 13) & 1u);                   // ties to even at bit 13
    return static_cast<std::uint16_t>(sign | ((r - (112u << 23)) >> 13));
  }
  const std::uint32_t e = a >> 23;
  if (e < 102) return sign;  // |x| < 2^-25: below half the smallest subnormal (or exactly 2^-25? no: e=102)
  const std::uint32_t m = (a & 0x7FFFFFu) | 0x800000u;  // |x| = m * 2^(e - 150); result unit 2^-24
  const std::uint32_t s = 126 - e;                       // 14..24
  const std::uint32_t kept = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
  const std::uint32_t r = kept + ((rem > half || (rem == half && (kept & 1u))) ? 1u : 0u);
  return static_cast<std::uint16_t>(sign | r);
}

constexpr std::uint32_t bf16_to_f32_bits(std::uint16_t h) {
  const std::uint32_t x = static_cast<std::uint32_t>(h) << 16;
  return (x & 0x7FFFFFFFu) > 0x7F800000u ? x | 0x400000u : x;  // a NaN comes out quiet, as §5.4.2 wants
}

constexpr std::uint16_t f32_to_bf16_bits_rne(std::uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  return static_cast<std::uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);  // ties to even; carries into inf
}

/// binary32 -> binary64, exact, in integers: the same bits as a hardware conversion in the default
/// environment (a NaN quieted, its payload kept), but DAZ cannot read a subnormal as zero and a
/// signaling NaN cannot trap.
constexpr std::uint64_t f32_to_f64_bits(std::uint32_t x) {
  const std::uint64_t sign = static_cast<std::uint64_t>(x & 0x80000000u) << 32;
  const std::uint32_t e = (x >> 23) & 0xFFu;
  std::uint64_t m = x & 0x7FFFFFu;
  if (e == 0xFF) return sign | 0x7FF0000000000000u | (m << 29) | (m ? 0x0008000000000000u : 0u);  // NaN quieted
  if (e == 0) {
    if (m == 0) return sign;
    // subnormal m * 2^-149: normalise so that bit 23 is the hidden bit
    const int s = 24 - std::bit_width(m);
    m = (m << s) & 0x7FFFFFu;
    return sign | (static_cast<std::uint64_t>(1 - s + 896) << 52) | (m << 29);  // rebias 127 -> 1023
  }
  return sign | (static_cast<std::uint64_t>(e + 896) << 52) | (m << 29);
}

/// binary16 <-> float for lf::fp16's operators and conversions. When the translation unit is
/// compiled for F16C (-mf16c, -march=x86-64-v3, -march=native) the hardware conversions are used
/// outside constant evaluation: VCVTPH2PS is exact and VCVTPS2PH with imm8 = 0 is IEEE
/// roundTiesToEven with the same NaN quieting, so both paths give the same bits (tests/fast
/// checks both builds). Their results do not depend on MXCSR either (Intel SDM): VCVTPS2PH takes
/// its rounding from imm8 and ignores FTZ, and under DAZ reads a binary32 subnormal input as a
/// zero of the same sign, which is also that input's binary16 result; VCVTPH2PS ignores DAZ. Like
/// any hardware conversion they do raise MXCSR exceptions (inexact, overflow, underflow, invalid
/// for a signaling NaN), which trap where the caller has unmasked them.
constexpr float f16_to_float(std::uint16_t h) {
#if defined(__F16C__)
  if (!std::is_constant_evaluated()) return _cvtsh_ss(h);
#endif
  return std::bit_cast<float>(f16_to_f32_bits(h));
}
constexpr std::uint16_t float_to_f16(float x) {
#if defined(__F16C__)
  // (_mm_cvtps_ph rather than _cvtss_sh: Clang's _cvtss_sh macro uses a compound literal, which
  // -Wpedantic rejects in C++.)
  if (!std::is_constant_evaluated())
    return static_cast<std::uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0));
#endif
  return f32_to_f16_bits_rne(std::bit_cast<std::uint32_t>(x));
}

}  // namespace lf::detail
