// tests/support/cpu_features.hpp: whether this CPU (and its OS) can run the hardware oracles'
// instructions. cpuid directly rather than __builtin_cpu_supports("f16c"), which Clang (14 to 16)
// does not accept.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace test_cpu {

/// F16C (VCVTPH2PS / VCVTPS2PH) usable: the cpuid bits for F16C and AVX, and the OS saving the
/// YMM state (OSXSAVE, XCR0 bits 1-2), which VEX-encoded instructions need.
inline bool has_f16c() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & bit_F16C) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u;
#else
  return false;
#endif
}

}  // namespace test_cpu
