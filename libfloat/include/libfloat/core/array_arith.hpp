// libfloat/core/array_arith.hpp: element-wise add, sub, mul, div and fma on spans, the way a simulator
// runs a vector of operations: lf::add(a, b, out, e) writes out[i] = a[i] + b[i] rounded under e,
// exactly as the scalar lf::add(a[i], b[i], e) rounds it (same bits, same flags), and returns the OR
// of every element's flags; lf::fma(a, b, c, out, e) likewise with out[i] = a[i] * b[i] + c[i].
//
// binary16 under the default policy, in a deterministic rounding direction, runs the vector kernels
// of fast/binary16_span_ops.hpp on the AVX2 and AVX-512 paths (lf::set_array_dispatch forces a path;
// all give the same bits), and binary32 under the default policy in nearest_even, toward_zero, upward
// or downward the CPU's own binary32 operations there (fast/binary32_span_ops.hpp); on the portable
// path, and for the last partial block, binary16 and binary32 mul run fast/binary16_ops.hpp's scalar
// fast paths inline in the loop; everything else (other formats and policies, stochastic rounding)
// runs the scalar operation element by element.
//
// Spans: the operand spans and out must have the same size, otherwise std::invalid_argument is
// thrown (nothing is written). out may be one of the operands itself (in place); other overlaps are
// not allowed.
// rounding::stochastic through a rounding or env throws std::invalid_argument: pass an
// lf::stochastic_source, which gives element i the random bits source.bits(position + i) and
// advances position by the size, as lf::convert does.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include <libfloat/core/array.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/fast/binary16_ops.hpp>
#include <libfloat/fast/binary16_span_ops.hpp>
#include <libfloat/fast/binary32_span_ops.hpp>

namespace lf {
namespace detail {

/// a, b (and for fma c) and out must have one size. fma: whether c is an operand.
inline void check_span_sizes(const char* function, std::size_t a, std::size_t b, std::size_t c, std::size_t out,
                             bool fma) {
  if (a == b && (!fma || a == c) && a == out) return;
  const std::string operands = fma ? std::to_string(a) + ", " + std::to_string(b) + " and " + std::to_string(c)
                                   : std::to_string(a) + " and " + std::to_string(b);
  throw std::invalid_argument(std::string(function) + ": the operand spans have " + operands +
                              " elements and the output span " + std::to_string(out) +
                              "; all must have the same size");
}

constexpr const char* span_op_name(span_op o) {
  switch (o) {
    case span_op::add: return "lf::add";
    case span_op::sub: return "lf::sub";
    case span_op::mul: return "lf::mul";
    case span_op::div: return "lf::div";
    case span_op::fma: return "lf::fma";
  }
  return "?";
}

/// The scalar operation (fp.hpp's typed free functions); c is read by fma only.
template <span_op O, format F>
LIBFLOAT_INLINE fp<F> scalar_op(fp<F> a, fp<F> b, fp<F> c, const env& e, status* st) {
  if constexpr (O == span_op::add) return add(a, b, e, st);
  else if constexpr (O == span_op::sub) return sub(a, b, e, st);
  else if constexpr (O == span_op::mul) return mul(a, b, e, st);
  else if constexpr (O == span_op::div) return div(a, b, e, st);
  else return fma(a, b, c, e, st);
}

/// The operands of one call: c is null except for fma.
template <format F>
struct span_args {
  const fp<F>* a;
  const fp<F>* b;
  const fp<F>* c;
  fp<F>* out;
  fp<F> third(std::size_t i) const { return c == nullptr ? fp<F>{} : c[i]; }
  span_args from(std::size_t k) const { return {a + k, b + k, c == nullptr ? nullptr : c + k, out + k}; }
};

/// out[i] = a[i] O b[i] (fma: a[i] * b[i] + c[i]) by the scalar operation in mode M (a constant, so
/// the operation's switch on the mode folds away); for stochastic rounding element i takes
/// stochastic_bits(seed, position + i).
template <span_op O, format F, rounding M>
status span_op_loop(span_args<F> s, std::size_t n, const policy& p, std::uint64_t seed, std::uint64_t position) {
  status st{};
  env e{M, p};
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (M == rounding::stochastic) e.random = stochastic_bits(seed, position + i);
    s.out[i] = scalar_op<O, F>(s.a[i], s.b[i], s.third(i), e, &st);
  }
  return st;
}
template <span_op O, format F>
status span_op_scalar(span_args<F> s, std::size_t n, const env& e, std::uint64_t seed, std::uint64_t position) {
  return with_mode(e.mode, [&](auto m) { return span_op_loop<O, F, decltype(m)::value>(s, n, e.policy, seed, position); });
}

#if defined(LIBFLOAT_ARRAY_X86)
/// The whole blocks of [0, n) through fast/binary32_span_ops.hpp on an AVX2 or AVX-512 path, in
/// direction m (one of the four it serves): each block into a buffer, the elements with a NaN
/// operand by the core (before anything is written: out may be an operand), then out. Returns the
/// ORed flags.
template <span_op O>
std::uint32_t binary32_span_blocks(span_args<binary32> s, std::size_t n, array_dispatch path, rounding m) {
  constexpr std::size_t B = binary32_span_block;
  alignas(64) float v[B];
  fp32 fixed[B];
  const std::uint32_t csr = binary32_mxcsr(m);
  const env e{m};
  std::uint32_t flags = 0;
  auto is_nan = [](fp32 x) { return (x.bits() & 0x7FFFFFFFu) > 0x7F800000u; };
  for (std::size_t i = 0; i + B <= n; i += B) {
    const span_args<binary32> blk = s.from(i);
    bool nan = false;
    flags |= is_avx512(path) ? binary32_span_stage_avx512<O>(blk.a, blk.b, blk.c, v, csr, nan)
                             : binary32_span_stage_avx2<O>(blk.a, blk.b, blk.c, v, csr, nan);
    status st{};
    std::uint64_t marked[B / 64]{};  // which elements the core took (read before out is written)
    if (nan)
      for (std::size_t j = 0; j < B; ++j)
        if (is_nan(blk.a[j]) || is_nan(blk.b[j]) || (O == span_op::fma && is_nan(blk.c[j]))) {
          fixed[j] = scalar_op<O, binary32>(blk.a[j], blk.b[j], blk.third(j), e, &st);
          marked[j / 64] |= std::uint64_t{1} << (j % 64);
        }
    for (std::size_t j = 0; j < B; ++j)
      blk.out[j] = (marked[j / 64] >> (j % 64)) & 1u ? fixed[j] : fp32::from_bits(std::bit_cast<std::uint32_t>(v[j]));
    flags |= to_bits(st);
  }
  return flags;
}

/// The whole blocks of [0, n) through fast/binary16_span_ops.hpp on an AVX2 or AVX-512 path: stage 1
/// into a binary32 buffer, the operands it marks by the core (before anything is written: out may
/// be an operand), the buffer rounded to binary16 by lf::convert's kernel for M. Returns the ORed
/// flags.
template <span_op O, rounding M>
std::uint32_t binary16_span_blocks(span_args<binary16> s, std::size_t n, array_dispatch path) {
  constexpr std::size_t B = binary16_span_block;
  alignas(64) float v[B];
  fp16 fixed[B];
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i + B <= n; i += B) {
    const span_args<binary16> blk = s.from(i);
    const bool any = is_avx512(path) ? binary16_span_stage_avx512<O, M>(blk.a, blk.b, blk.c, v)
                                     : binary16_span_stage_avx2<O, M>(blk.a, blk.b, blk.c, v);
    status st{};
    std::uint64_t marked[B / 64]{};  // which elements the core took (read before out is written)
    if (any)
      for (std::size_t j = 0; j < B; ++j)
        if (binary16_span_special<O>(blk.a[j].bits(), blk.b[j].bits(), blk.third(j).bits())) {
          fixed[j] = scalar_op<O, binary16>(blk.a[j], blk.b[j], blk.third(j), env{M}, &st);
          marked[j / 64] |= std::uint64_t{1} << (j % 64);
        }
    flags |= narrow_dispatch<binary16, binary32, M>(v, blk.out, B, lane_policy{}, 0, 0);
    if (any)
      for (std::size_t j = 0; j < B; ++j)
        if ((marked[j / 64] >> (j % 64)) & 1u) blk.out[j] = fixed[j];
    flags |= to_bits(st);
  }
  return flags;
}
#endif

/// Whether fast/binary16_ops.hpp has a scalar fast path for O in F (binary16: all; binary32: mul).
template <span_op O, format F>
inline constexpr bool has_scalar_fast_path = F == binary16 || (F == binary32 && O == span_op::mul);

/// One element by fast/binary16_ops.hpp's fast path for O in F (inline here), or false when it
/// declines (a NaN or infinite operand, a zero divisor): then the caller runs the scalar operation.
template <span_op O, format F, rounding M>
LIBFLOAT_INLINE bool scalar_fast(std::uint64_t a, std::uint64_t b, std::uint64_t c, const env& e, status& st,
                                 bits_t& r) {
  if constexpr (F == binary32) return binary32_fast_mul(M, a, b, e, st, r);
  else if constexpr (O == span_op::add) return binary16_fast_add(M, a, b, e, st, r);
  else if constexpr (O == span_op::sub) return binary16_fast_sub(M, a, b, e, st, r);
  else if constexpr (O == span_op::mul) return binary16_fast_mul(M, a, b, e, st, r);
  else if constexpr (O == span_op::div) return binary16_fast_div(M, a, b, e, st, r);
  else return binary16_fast_fma(M, a, b, c, e, st, r);
}
/// The scalar fast path element by element in mode M under the default policy, inline in the loop
/// (no call, no mode switch per element): the portable path, and the tail after the whole blocks.
template <span_op O, format F, rounding M>
status span_fast_loop(span_args<F> s, std::size_t n) {
  using S = typename fp<F>::storage_type;
  status st{};
  const env e{M};
  for (std::size_t i = 0; i < n; ++i) {
    bits_t r = 0;
    if (scalar_fast<O, F, M>(s.a[i].bits(), s.b[i].bits(), s.third(i).bits(), e, st, r))
      s.out[i] = fp<F>::from_bits(static_cast<S>(r));
    else
      s.out[i] = scalar_op<O, F>(s.a[i], s.b[i], s.third(i), e, &st);
  }
  return st;
}

template <span_op O, format F>
status span_op_run(span_args<F> s, std::size_t n, const env& e, std::uint64_t seed, std::uint64_t position) {
  std::size_t done = 0;
  std::uint32_t fl = 0;
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (F == binary16) {
    const array_dispatch path = array_dispatch_in_use();
    if (default_policy(e) && (path == array_dispatch::avx2 || is_avx512(path))) {
      // (stochastic: the scalar operation below, with a source's bits)
      if (e.mode != rounding::stochastic) {
        done = n - n % binary16_span_block;
        fl = with_mode(e.mode, [&](auto m) -> std::uint32_t {
          if constexpr (decltype(m)::value == rounding::stochastic) return 0;
          else return binary16_span_blocks<O, decltype(m)::value>(s, n, path);
        });
      }
    }
  }
  if constexpr (F == binary32) {
    const array_dispatch path = array_dispatch_in_use();
    if (default_policy(e) && binary32_hw_direction(e.mode) && (path == array_dispatch::avx2 || is_avx512(path))) {
      done = n - n % binary32_span_block;
      fl = binary32_span_blocks<O>(s, n, path, e.mode);
    }
  }
#endif
  if constexpr (has_scalar_fast_path<O, F>) {
    if (default_policy(e) && e.mode != rounding::stochastic) {
      const span_args<F> rest = s.from(done);
      return static_cast<status>(fl) | with_mode(e.mode, [&](auto m) -> status {
               if constexpr (decltype(m)::value == rounding::stochastic) return status{};  // (not reached)
               else return span_fast_loop<O, F, decltype(m)::value>(rest, n - done);
             });
    }
  }
  return static_cast<status>(fl) | span_op_scalar<O, F>(s.from(done), n - done, e, seed, position + done);
}

/// Checks the sizes (c empty except for fma) and the mode, then runs.
template <span_op O, format F>
status span_op_env(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<const fp<F>> c, std::span<fp<F>> out,
                   const env& e) {
  check_span_sizes(span_op_name(O), a.size(), b.size(), c.size(), out.size(), O == span_op::fma);
  check_not_stochastic(span_op_name(O), e.mode);
  return span_op_run<O, F>({a.data(), b.data(), O == span_op::fma ? c.data() : nullptr, out.data()}, out.size(), e, 0, 0);
}
template <span_op O, format F>
status span_op_source(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<const fp<F>> c,
                      std::span<fp<F>> out, stochastic_source& src, const policy& p) {
  check_span_sizes(span_op_name(O), a.size(), b.size(), c.size(), out.size(), O == span_op::fma);
  const status st = span_op_run<O, F>({a.data(), b.data(), O == span_op::fma ? c.data() : nullptr, out.data()},
                                      out.size(), env{rounding::stochastic, p}, src.seed, src.position);
  src.position += out.size();
  return st;
}

}  // namespace detail

// out[i] = a[i] op b[i] (fma: a[i] * b[i] + c[i], rounded once), each rounded as the scalar operation
// rounds it; returns the OR of the flags. Any lf::fp<F> through the templates (spans of const fp<F>
// for the operands); the named types below also take anything that converts to a span (std::vector,
// arrays).
#define LIBFLOAT_SPAN_OP(name, O)                                                                               \
  template <format F>                                                                                           \
  status name(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, const env& e = {}) {    \
    return detail::span_op_env<O, F>(a, b, {}, out, e);                                                         \
  }                                                                                                             \
  template <format F>                                                                                           \
  status name(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, stochastic_source& s,   \
              const policy& p = {}) {                                                                           \
    return detail::span_op_source<O, F>(a, b, {}, out, s, p);                                                   \
  }
LIBFLOAT_SPAN_OP(add, detail::span_op::add)
LIBFLOAT_SPAN_OP(sub, detail::span_op::sub)
LIBFLOAT_SPAN_OP(mul, detail::span_op::mul)
LIBFLOAT_SPAN_OP(div, detail::span_op::div)
#undef LIBFLOAT_SPAN_OP
template <format F>
status fma(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<const fp<F>> c, std::span<fp<F>> out,
           const env& e = {}) {
  return detail::span_op_env<detail::span_op::fma, F>(a, b, c, out, e);
}
template <format F>
status fma(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<const fp<F>> c, std::span<fp<F>> out,
           stochastic_source& s, const policy& p = {}) {
  return detail::span_op_source<detail::span_op::fma, F>(a, b, c, out, s, p);
}

// (Function templates with a defaulted, never deduced parameter, as in core/array.hpp: called as
// plain functions, instantiated only where called.)
#define LIBFLOAT_SPAN_OP_NAMED(name, O, T)                                                                          \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, rounding r = rounding::nearest_even) {  \
    return detail::span_op_env<O, T::fmt>(a, b, {}, out, env{r});                                                   \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, const env& e) {                         \
    return detail::span_op_env<O, T::fmt>(a, b, {}, out, e);                                                        \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, stochastic_source& s,                   \
              const policy& p = {}) {                                                                               \
    return detail::span_op_source<O, T::fmt>(a, b, {}, out, s, p);                                                  \
  }
#define LIBFLOAT_SPAN_OPS_NAMED(T)                                                                                  \
  LIBFLOAT_SPAN_OP_NAMED(add, detail::span_op::add, T)                                                              \
  LIBFLOAT_SPAN_OP_NAMED(sub, detail::span_op::sub, T)                                                              \
  LIBFLOAT_SPAN_OP_NAMED(mul, detail::span_op::mul, T)                                                              \
  LIBFLOAT_SPAN_OP_NAMED(div, detail::span_op::div, T)                                                              \
  template <class = void>                                                                                           \
  status fma(std::span<const T> a, std::span<const T> b, std::span<const T> c, std::span<T> out,                    \
             rounding r = rounding::nearest_even) {                                                                 \
    return detail::span_op_env<detail::span_op::fma, T::fmt>(a, b, c, out, env{r});                                 \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status fma(std::span<const T> a, std::span<const T> b, std::span<const T> c, std::span<T> out, const env& e) {    \
    return detail::span_op_env<detail::span_op::fma, T::fmt>(a, b, c, out, e);                                      \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status fma(std::span<const T> a, std::span<const T> b, std::span<const T> c, std::span<T> out,                    \
             stochastic_source& s, const policy& p = {}) {                                                          \
    return detail::span_op_source<detail::span_op::fma, T::fmt>(a, b, c, out, s, p);                                \
  }
LIBFLOAT_SPAN_OPS_NAMED(fp16)
LIBFLOAT_SPAN_OPS_NAMED(bf16)
LIBFLOAT_SPAN_OPS_NAMED(tf32)
LIBFLOAT_SPAN_OPS_NAMED(fp8_e4m3)
LIBFLOAT_SPAN_OPS_NAMED(fp8_e5m2)
LIBFLOAT_SPAN_OPS_NAMED(fp32)
LIBFLOAT_SPAN_OPS_NAMED(fp64)
#undef LIBFLOAT_SPAN_OPS_NAMED
#undef LIBFLOAT_SPAN_OP_NAMED

}  // namespace lf
