// tests/support/sanitizer.hpp: whether this test program runs under AddressSanitizer (the dev
// preset), and a trial count scaled for it.
//
// Under ASan every heap allocation and every stack frame is instrumented; the exact-rational oracle
// (cpp_int) allocates on nearly every operation, so a random comparison that takes 3 s in release
// takes a minute there. The dev stage's job is to find memory and undefined-behaviour errors on every
// code path, which a fraction of the random trials reaches as well as all of them; the release build
// runs every trial. Every loop scaled this way keeps at least one trial, and its fixed edge cases are
// never scaled.
#pragma once

#include <algorithm>

namespace test_sanitizer {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool under_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool under_asan = true;
#else
inline constexpr bool under_asan = false;
#endif
#else
inline constexpr bool under_asan = false;
#endif

/// n trials in release; n / divisor (at least 1) under AddressSanitizer.
template <class Int>
constexpr Int scaled(Int n, Int divisor) {
  if constexpr (!under_asan) {
    (void)divisor;
    return n;
  } else {
    return std::max<Int>(Int{1}, n / divisor);
  }
}

}  // namespace test_sanitizer
