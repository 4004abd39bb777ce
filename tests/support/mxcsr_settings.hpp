// tests/support/mxcsr_settings.hpp: caller MXCSR settings for the tests of the hardware paths
// (fast/dot.hpp, fast/pairwise_dot.hpp): each path must run under the default (sticky flags set or
// not) and decline under every other setting, and leave MXCSR as it found it.
#pragma once

namespace test_support {

struct mxcsr_setting {
  const char* name;
  unsigned csr;
  bool fast;  ///< the hardware path runs under it
};

// MXCSR: bits 0-5 sticky flags (IE DE ZE OE UE PE), 6 DAZ, 7-12 masks, 13-14 rounding, 15 FTZ.
inline constexpr mxcsr_setting mxcsr_settings[] = {
    {"default", 0x1F80, true},
    {"default with sticky IE, DE, PE set", 0x1F80 | 0x01 | 0x02 | 0x20, true},
    {"round toward zero", 0x1F80 | 0x6000, false},
    {"round upward", 0x1F80 | 0x4000, false},
    {"FTZ", 0x1F80 | 0x8000, false},
    {"DAZ", 0x1F80 | 0x0040, false},
    {"inexact unmasked", 0x1F80 & ~0x1000u, false},  // a hardware add would trap (SIGFPE)
};

}  // namespace test_support
