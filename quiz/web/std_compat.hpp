// quiz/web/std_compat.hpp: included first in every file of the WebAssembly build (quiz/web/CMakeLists.txt).
// Debian 12's Emscripten 3.1.6 ships libc++ 13, which lacks std::bit_cast (C++20, libc++ 14); its
// Clang 14 has the builtin that libc++ 14 implements it with. Nothing here applies to other builds.
#pragma once
#include <version>
#if defined(__EMSCRIPTEN__) && !defined(__cpp_lib_bit_cast)
#include <bit>
#include <type_traits>
namespace std {
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
