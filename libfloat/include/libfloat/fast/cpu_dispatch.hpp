// libfloat/fast/cpu_dispatch.hpp: which CPU features the span kernels (fast/array_kernels.hpp) may
// use, detected once with cpuid, and the process-wide choice of path (lf::set_array_dispatch). No
// rounding here: every path gives the same bits and flags. Proof: ctest label `proof`, tests
// proof_array_<i>of<n> / proof_array_path_<path> (tests/fast/test_array_exhaustive.cpp) force each path
// with set_array_dispatch, check that array_dispatch_in_use() reports it (else it is skipped, not
// proven), and compare it with the core on all 2^32 binary32 inputs (fast/array_kernels.hpp).
// Defining LIBFLOAT_ARRAY_NO_X86 leaves only the portable loops (to check a non-x86 build on x86).
#pragma once

#include <cstdint>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && !defined(LIBFLOAT_ARRAY_NO_X86)
#define LIBFLOAT_ARRAY_X86 1
#include <cpuid.h>
#endif

namespace lf {

/// Which code lf::convert / widen / quantize on spans run (see lf::set_array_dispatch).
enum class array_dispatch : std::uint8_t {
  automatic,  ///< the best the CPU supports (the default)
  portable,   ///< plain C++ built with the program's own compiler flags; no run-time-selected instructions
  avx2,       ///< x86 AVX2 + F16C
  avx512,     ///< x86 AVX-512 F/BW/VL/DQ (+ F16C)
  avx512_bf16,  ///< avx512, and AVX512_BF16's VCVTNEPS2BF16 for float -> bfloat16 nearest even
};

namespace detail {

// ---- CPU features ------------------------------------------------------------------------------

struct cpu_caps {
  bool avx2_f16c = false;
  bool avx512 = false;
  bool avx512_bf16 = false;
  bool bmi2_lzcnt = false;  ///< BMI2 and LZCNT (the matrix unit's short blocks, fast/matrix_block.hpp)
  bool fma = false;         ///< FMA3 (the late-accumulation unit's AVX2 blocks, fast/late_dot.hpp)
};

/// cpuid rather than __builtin_cpu_supports, which older Clang lacks for "f16c"; checks that the
/// OS saves the YMM / ZMM state (XGETBV).
inline cpu_caps detect_cpu() {
  cpu_caps c;
#if defined(LIBFLOAT_ARRAY_X86)
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
  const bool osxsave = (cx & bit_OSXSAVE) != 0, f16c = (cx & bit_F16C) != 0, avx = (cx & bit_AVX) != 0;
  const bool fma = (cx & bit_FMA) != 0;
  if (!osxsave || !avx) return c;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0x6u) != 0x6u) return c;  // XMM and YMM state
  if (!__get_cpuid_count(7, 0, &a, &b, &cx, &d)) return c;
  c.avx2_f16c = f16c && (b & bit_AVX2) != 0;
  c.fma = c.avx2_f16c && fma;
  unsigned xa = 0, xb = 0, xc = 0, xd = 0;  // leaf 0x80000001 (ECX bit 5: LZCNT); BMI2: leaf 7.0 EBX bit 8
  c.bmi2_lzcnt = (b & (1u << 8)) != 0 && __get_cpuid(0x80000001u, &xa, &xb, &xc, &xd) && (xc & (1u << 5)) != 0;
  const bool zmm_state = (lo & 0xE6u) == 0xE6u;  // + opmask, ZMM_Hi256, Hi16_ZMM
  c.avx512 = c.avx2_f16c && zmm_state && (b & bit_AVX512F) && (b & bit_AVX512BW) && (b & bit_AVX512VL) &&
             (b & bit_AVX512DQ);
  c.avx512_bf16 = c.avx512 && __get_cpuid_count(7, 1, &a, &b, &cx, &d) && (a & (1u << 5)) != 0;  // EAX bit 5
#endif
  return c;
}

inline const cpu_caps& cpu() {
  static const cpu_caps c = detect_cpu();
  return c;
}

/// The request set_array_dispatch stores (an array_dispatch value), read and written with the
/// GCC/Clang atomic builtins (relaxed loads, a sequentially consistent exchange: what std::atomic's
/// load(relaxed) and exchange() do) rather than std::atomic, whose header costs every program that
/// includes the umbrella header about 0.03 s of compilation. (Clang's builtins take integers only.)
inline std::uint8_t& dispatch_request() {
  static std::uint8_t r = static_cast<std::uint8_t>(array_dispatch::automatic);
  return r;
}

}  // namespace detail

/// Forces the span kernels onto one path, for tests and benchmarks; returns the previous request.
/// A path the CPU lacks falls back to the best one below it (avx512_bf16 -> avx512 -> avx2 -> portable). Every path
/// gives the same bits and flags. Process-wide; not meant to be changed while other threads convert.
inline array_dispatch set_array_dispatch(array_dispatch d) noexcept {
  return static_cast<array_dispatch>(
      __atomic_exchange_n(&detail::dispatch_request(), static_cast<std::uint8_t>(d), __ATOMIC_SEQ_CST));
}

/// The path the span kernels take now: portable, avx2, avx512 or avx512_bf16 (never automatic).
inline array_dispatch array_dispatch_in_use() noexcept {
  const auto& c = detail::cpu();
  const array_dispatch upto_avx2 = c.avx2_f16c ? array_dispatch::avx2 : array_dispatch::portable;
  const array_dispatch upto_avx512 = c.avx512 ? array_dispatch::avx512 : upto_avx2;
  const array_dispatch best = c.avx512_bf16 ? array_dispatch::avx512_bf16 : upto_avx512;
  switch (static_cast<array_dispatch>(__atomic_load_n(&detail::dispatch_request(), __ATOMIC_RELAXED))) {
    case array_dispatch::automatic: return best;
    case array_dispatch::portable: return array_dispatch::portable;
    case array_dispatch::avx2: return upto_avx2;
    case array_dispatch::avx512: return upto_avx512;
    case array_dispatch::avx512_bf16: return best;
  }
  return array_dispatch::portable;
}

namespace detail {
/// Whether `path` runs the AVX-512 kernels (with or without AVX512_BF16).
constexpr bool is_avx512(array_dispatch path) {
  return path == array_dispatch::avx512 || path == array_dispatch::avx512_bf16;
}
}  // namespace detail

/// "automatic", "portable", "avx2", "avx512", "avx512_bf16".
constexpr const char* array_dispatch_name(array_dispatch d) {
  switch (d) {
    case array_dispatch::automatic: return "automatic";
    case array_dispatch::portable: return "portable";
    case array_dispatch::avx2: return "avx2";
    case array_dispatch::avx512: return "avx512";
    case array_dispatch::avx512_bf16: return "avx512_bf16";
  }
  return "?";
}

}  // namespace lf
