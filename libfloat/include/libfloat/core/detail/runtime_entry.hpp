// libfloat/core/detail/runtime_entry.hpp (not a header to include on its own): how the run-time-format operations of core/arith.hpp
// (lf::add(format, ...), sub, mul, div, sqrt, fma) reach the constant-format code: one
// out-of-line instantiation per (operation, named format, rounding mode), and the macros that
// declare them extern (LIBFLOAT_SEPARATE_RUNTIME) or define them (core/runtime_instances.hpp, the
// libfloat::runtime library). Included by core/arith.hpp after the inline operations.
#pragma once

#include <type_traits>

#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/binary16_ops.hpp>

namespace lf::detail {

// The run-time-format entry points (lf::add(f, ...) below) look the format up once among the
// named formats and call the constant-format code for it, so lf::add(lf::binary16, ...), the CLI
// and TestFloat runs get the same folded code as lf::fp16; only custom formats take the generic
// code, where every derived constant is computed per call. The branch depends on the format
// only, so it is predicted.
enum class named_id : std::uint8_t { other, binary16, bfloat16, binary32, binary64, tfloat32, e4m3, e5m2 };
constexpr named_id named_id_of(const format& f) {
  switch (f.precision) {
    case 11: return f == lf::binary16 ? named_id::binary16 : f == lf::tfloat32 ? named_id::tfloat32 : named_id::other;
    case 8: return f == lf::bfloat16 ? named_id::bfloat16 : named_id::other;
    case 24: return f == lf::binary32 ? named_id::binary32 : named_id::other;
    case 53: return f == lf::binary64 ? named_id::binary64 : named_id::other;
    case 4: return f == lf::float8_e4m3fn ? named_id::e4m3 : named_id::other;
    case 3: return f == lf::float8_e5m2 ? named_id::e5m2 : named_id::other;
    default: return named_id::other;
  }
}

/// One out-of-line instantiation per (operation, named format, mode): F == lf::format{} is the
/// generic code; M >= 0 fixes the rounding mode to rounding(M), so every deterministic mode gets
/// its own folded code (M == -1: stochastic, whose random bits come from the env at run time).
/// In a constant expression the entry points take the generic inline code instead (the same core,
/// the mode read from the env), so the *_of functions themselves need not be constexpr: that lets a
/// program compile them once (LIBFLOAT_SEPARATE_RUNTIME below).
#define LIBFLOAT_RUNTIME_ENTRY(name, params, outer_args, inner_args, slow_args)                            \
  /* What a fast path leaves to the core, out of line so that the fast path's own code needs no */ \
  /* callee-saved registers (fast/binary16_ops.hpp). */                                            \
  template <format F, int M>                                                                      \
  [[gnu::noinline, gnu::cold]] bits_t name##_core(LIBFLOAT_UNPAREN params) {                      \
    env e = e_in;                                                                                 \
    e.mode = static_cast<rounding>(M);                                                            \
    return name##_inline<F>(F, LIBFLOAT_UNPAREN inner_args);                                      \
  }                                                                                               \
  template <format F, int M>                                                                      \
  [[gnu::noinline]] bits_t name##_of(const format& f, LIBFLOAT_UNPAREN params) {                   \
    if constexpr (F == lf::binary16 && M >= 0 && binary16_fast_has_##name) { /* fast/binary16_ops.hpp */ \
      if (bits_t r{}; binary16_fast_##name(static_cast<rounding>(M), LIBFLOAT_UNPAREN outer_args, r)) return r; \
      return name##_core<F, M>(LIBFLOAT_UNPAREN outer_args);                                      \
    }                                                                                             \
    if constexpr (F == lf::binary32 && M >= 0 && binary32_fast_has_##name) { /* the same file */  \
      if (bits_t r{}; binary32_fast_##name(static_cast<rounding>(M), LIBFLOAT_UNPAREN outer_args, r)) return r; \
      return name##_core<F, M>(LIBFLOAT_UNPAREN outer_args);                                      \
    }                                                                                             \
    env e = e_in;                                                                                 \
    if constexpr (M >= 0) e.mode = static_cast<rounding>(M);                                      \
    if constexpr (F == format{}) return name##_inline(f, LIBFLOAT_UNPAREN inner_args);            \
    else return name##_inline<F>(F, LIBFLOAT_UNPAREN inner_args);                                 \
  }                                                                                               \
  template <format F, class Lazy = void>                                                          \
  LIBFLOAT_INLINE constexpr bits_t name##_switch(const format& f, LIBFLOAT_UNPAREN params) {       \
    switch (e_in.mode) {                                                                          \
      case rounding::nearest_even: return name##_of<F, int(rounding::nearest_even)>(f, LIBFLOAT_UNPAREN outer_args); \
      case rounding::nearest_away: return name##_of<F, int(rounding::nearest_away)>(f, LIBFLOAT_UNPAREN outer_args); \
      case rounding::toward_zero: return name##_of<F, int(rounding::toward_zero)>(f, LIBFLOAT_UNPAREN outer_args); \
      case rounding::upward: return name##_of<F, int(rounding::upward)>(f, LIBFLOAT_UNPAREN outer_args);       \
      case rounding::downward: return name##_of<F, int(rounding::downward)>(f, LIBFLOAT_UNPAREN outer_args);   \
      case rounding::odd: return name##_of<F, int(rounding::odd)>(f, LIBFLOAT_UNPAREN outer_args);             \
      case rounding::stochastic: break;                                                           \
    }                                                                                             \
    return name##_of<F, -1>(f, LIBFLOAT_UNPAREN outer_args);                                      \
  }                                                                                               \
  template <format F, class Lazy = void>                                                          \
  LIBFLOAT_INLINE constexpr bits_t name##_mode(const format& f, LIBFLOAT_UNPAREN params) {         \
    if (std::is_constant_evaluated()) return name##_inline(f, LIBFLOAT_UNPAREN outer_args);      \
    /* binary16 (and binary32 mul): the common case of the fast path inline, in the caller's */    \
    /* direction (fast/binary16_ops.hpp), with no switch and no call. What it declines takes the */ \
    /* switch on copies of the env and the flags, so that the caller's need no memory home on */  \
    /* the fast path. */                                                                         \
    if constexpr (has_inline_fast<F, fast_op::name>) {                                            \
      bits_t r{};                                                                                 \
      if (inline_fast<F, fast_op::name>(e_in.mode, LIBFLOAT_UNPAREN outer_args, r)) [[likely]] return r; \
    } else {                                                                                      \
      return name##_switch<F, Lazy>(f, LIBFLOAT_UNPAREN outer_args);                              \
    }                                                                                             \
    const env e = e_in;                                                                           \
    status s{};                                                                                   \
    const bits_t r = name##_switch<F, Lazy>(f, LIBFLOAT_UNPAREN slow_args);                       \
    st |= s;                                                                                      \
    return r;                                                                                     \
  }                                                                                               \
  /* A template, and its calls name Lazy, so that it and the 300 functions it reaches are */   \
  /* instantiated only where called (core/arith.hpp, LIBFLOAT_RUNTIME_LAZY). */                    \
  template <class Lazy = void>                                                                    \
  constexpr bits_t name##_named(const format& f, LIBFLOAT_UNPAREN params) {                        \
    if (std::is_constant_evaluated()) return name##_inline(f, LIBFLOAT_UNPAREN outer_args);      \
    switch (named_id_of(f)) {                                                                     \
      case named_id::binary16: return name##_mode<lf::binary16, Lazy>(f, LIBFLOAT_UNPAREN outer_args);  \
      case named_id::bfloat16: return name##_mode<lf::bfloat16, Lazy>(f, LIBFLOAT_UNPAREN outer_args);  \
      case named_id::binary32: return name##_mode<lf::binary32, Lazy>(f, LIBFLOAT_UNPAREN outer_args);  \
      case named_id::binary64: return name##_mode<lf::binary64, Lazy>(f, LIBFLOAT_UNPAREN outer_args);  \
      case named_id::tfloat32: return name##_mode<lf::tfloat32, Lazy>(f, LIBFLOAT_UNPAREN outer_args);  \
      case named_id::e4m3: return name##_mode<lf::float8_e4m3fn, Lazy>(f, LIBFLOAT_UNPAREN outer_args); \
      case named_id::e5m2: return name##_mode<lf::float8_e5m2, Lazy>(f, LIBFLOAT_UNPAREN outer_args);   \
      case named_id::other: break;                                                                \
    }                                                                                             \
    return name##_of<format{}, -1>(f, LIBFLOAT_UNPAREN outer_args);                               \
  }
#define LIBFLOAT_UNPAREN(...) __VA_ARGS__
LIBFLOAT_RUNTIME_ENTRY(add, (bits_t a, bits_t b, const env& e_in, status& st), (a, b, e_in, st), (a, b, e, st),
                       (a, b, e, s))
LIBFLOAT_RUNTIME_ENTRY(sub, (bits_t a, bits_t b, const env& e_in, status& st), (a, b, e_in, st), (a, b, e, st),
                       (a, b, e, s))
LIBFLOAT_RUNTIME_ENTRY(mul, (bits_t a, bits_t b, const env& e_in, status& st), (a, b, e_in, st), (a, b, e, st),
                       (a, b, e, s))
LIBFLOAT_RUNTIME_ENTRY(div, (bits_t a, bits_t b, const env& e_in, status& st), (a, b, e_in, st), (a, b, e, st),
                       (a, b, e, s))
LIBFLOAT_RUNTIME_ENTRY(sqrt, (bits_t a, const env& e_in, status& st), (a, e_in, st), (a, e, st), (a, e, s))
LIBFLOAT_RUNTIME_ENTRY(fma, (bits_t a, bits_t b, bits_t c, const env& e_in, status& st), (a, b, c, e_in, st),
                       (a, b, c, e, st), (a, b, c, e, s))
#undef LIBFLOAT_UNPAREN
#undef LIBFLOAT_RUNTIME_ENTRY

// The (format, mode) instantiations above: 6 operations x (7 named formats x 7 modes + the generic
// code) = 300 functions, about 7 s of compile time per operation in every translation unit that
// calls a run-time-format operation (lf::add(format, ...), sum, dot, the matrix units...).
// A program may compile them once instead: define LIBFLOAT_SEPARATE_RUNTIME in every translation
// unit (they then only declare them, extern template) and include <libfloat/core/runtime_instances.hpp>
// in exactly one .cpp file, which defines them. The code is the same; only where it is compiled
// changes. The CMake target libfloat::runtime is that library; libfloat's own programs link it.
#define LIBFLOAT_RUNTIME_INSTANCES_OF(X, F)                                                      \
  X(F, 0) X(F, 1) X(F, 2) X(F, 3) X(F, 4) X(F, 5) X(F, -1)
#define LIBFLOAT_RUNTIME_INSTANCES(X)                                                             \
  LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::binary16) LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::bfloat16)    \
  LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::binary32) LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::binary64)    \
  LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::tfloat32) LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::float8_e4m3fn) \
  LIBFLOAT_RUNTIME_INSTANCES_OF(X, lf::float8_e5m2) X(format{}, -1)
#define LIBFLOAT_RUNTIME_DECLARE(prefix, F, M)                                                   \
  prefix template bits_t add_of<F, M>(const format&, bits_t, bits_t, const env&, status&);       \
  prefix template bits_t sub_of<F, M>(const format&, bits_t, bits_t, const env&, status&);       \
  prefix template bits_t mul_of<F, M>(const format&, bits_t, bits_t, const env&, status&);       \
  prefix template bits_t div_of<F, M>(const format&, bits_t, bits_t, const env&, status&);       \
  prefix template bits_t sqrt_of<F, M>(const format&, bits_t, const env&, status&);              \
  prefix template bits_t fma_of<F, M>(const format&, bits_t, bits_t, bits_t, const env&, status&);
#define LIBFLOAT_RUNTIME_EXTERN(F, M) LIBFLOAT_RUNTIME_DECLARE(extern, F, M)
#if defined(LIBFLOAT_SEPARATE_RUNTIME)
LIBFLOAT_RUNTIME_INSTANCES(LIBFLOAT_RUNTIME_EXTERN)
#endif

}  // namespace lf::detail
