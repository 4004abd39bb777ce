// libfloat/core/array_arith.hpp: element-wise add, sub, mul and div on spans, the way a simulator runs
// a vector of operations: lf::add(a, b, out, e) writes out[i] = a[i] + b[i] rounded under e, exactly
// as the scalar lf::add(a[i], b[i], e) rounds it (same bits, same flags), and returns the OR of every
// element's flags.
//
// binary16 under the default policy, in a deterministic rounding direction, runs the vector kernels
// of fast/binary16_span_ops.hpp on the AVX2 and AVX-512 paths (lf::set_array_dispatch forces a path;
// all give the same bits); everything else (other formats and policies, stochastic rounding, the
// portable path, the last partial block) runs the scalar operation element by element.
//
// Spans: a, b and out must have the same size, otherwise std::invalid_argument is thrown (nothing
// is written). out may be a or b itself (in place); other overlaps are not allowed.
// rounding::stochastic through a rounding or env throws std::invalid_argument: pass an
// lf::stochastic_source, which gives element i the random bits source.bits(position + i) and
// advances position by the size, as lf::convert does.
#pragma once

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

namespace lf {
namespace detail {

inline void check_span_sizes(const char* function, std::size_t a, std::size_t b, std::size_t out) {
  if (a != b || a != out)
    throw std::invalid_argument(std::string(function) + ": the operand spans have " + std::to_string(a) + " and " +
                                std::to_string(b) + " elements and the output span " + std::to_string(out) +
                                "; all three must have the same size");
}

constexpr const char* span_op_name(span_op o) {
  return o == span_op::add ? "lf::add" : o == span_op::sub ? "lf::sub" : o == span_op::mul ? "lf::mul" : "lf::div";
}

/// The scalar operation (fp.hpp's typed free functions).
template <span_op O, format F>
LIBFLOAT_INLINE fp<F> scalar_op(fp<F> a, fp<F> b, const env& e, status* st) {
  if constexpr (O == span_op::add) return add(a, b, e, st);
  else if constexpr (O == span_op::sub) return sub(a, b, e, st);
  else if constexpr (O == span_op::mul) return mul(a, b, e, st);
  else return div(a, b, e, st);
}

/// out[i] = a[i] O b[i] by the scalar operation in mode M (a constant, so the operation's switch on
/// the mode folds away); for stochastic rounding element i takes stochastic_bits(seed, position + i).
template <span_op O, format F, rounding M>
status span_op_loop(const fp<F>* a, const fp<F>* b, fp<F>* out, std::size_t n, const policy& p, std::uint64_t seed,
                    std::uint64_t position) {
  status st{};
  env e{M, p};
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (M == rounding::stochastic) e.random = stochastic_bits(seed, position + i);
    out[i] = scalar_op<O, F>(a[i], b[i], e, &st);
  }
  return st;
}
template <span_op O, format F>
status span_op_scalar(const fp<F>* a, const fp<F>* b, fp<F>* out, std::size_t n, const env& e, std::uint64_t seed,
                      std::uint64_t position) {
  switch (e.mode) {
    case rounding::nearest_even: return span_op_loop<O, F, rounding::nearest_even>(a, b, out, n, e.policy, seed, position);
    case rounding::nearest_away: return span_op_loop<O, F, rounding::nearest_away>(a, b, out, n, e.policy, seed, position);
    case rounding::toward_zero: return span_op_loop<O, F, rounding::toward_zero>(a, b, out, n, e.policy, seed, position);
    case rounding::upward: return span_op_loop<O, F, rounding::upward>(a, b, out, n, e.policy, seed, position);
    case rounding::downward: return span_op_loop<O, F, rounding::downward>(a, b, out, n, e.policy, seed, position);
    case rounding::odd: return span_op_loop<O, F, rounding::odd>(a, b, out, n, e.policy, seed, position);
    case rounding::stochastic: break;
  }
  return span_op_loop<O, F, rounding::stochastic>(a, b, out, n, e.policy, seed, position);
}

#if defined(LIBFLOAT_ARRAY_X86)
/// The whole blocks of [0, n) through fast/binary16_span_ops.hpp on an AVX2 or AVX-512 path: stage 1
/// into a binary32 buffer, the pairs it marks by the core (before anything is written: out may be
/// a or b), the buffer rounded to binary16 by lf::convert's kernel for M. Returns the ORed flags.
template <span_op O, rounding M>
std::uint32_t binary16_span_blocks(const fp16* a, const fp16* b, fp16* out, std::size_t n, array_dispatch path) {
  constexpr std::size_t B = binary16_span_block;
  alignas(64) float v[B];
  fp16 fixed[B];
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i + B <= n; i += B) {
    const bool any = is_avx512(path) ? binary16_span_stage_avx512<O, M>(a + i, b + i, v)
                                     : binary16_span_stage_avx2<O, M>(a + i, b + i, v);
    status st{};
    std::uint64_t marked[B / 64]{};  // which pairs the core took (read before out is written)
    if (any)
      for (std::size_t j = 0; j < B; ++j)
        if (binary16_span_special<O>(a[i + j].bits(), b[i + j].bits())) {
          fixed[j] = scalar_op<O, binary16>(a[i + j], b[i + j], env{M}, &st);
          marked[j / 64] |= std::uint64_t{1} << (j % 64);
        }
    flags |= narrow_dispatch<binary16, binary32, M>(v, out + i, B, lane_policy{}, 0, 0);
    if (any)
      for (std::size_t j = 0; j < B; ++j)
        if ((marked[j / 64] >> (j % 64)) & 1u) out[i + j] = fixed[j];
    flags |= to_bits(st);
  }
  return flags;
}
#endif

template <span_op O, format F>
status span_op_checked(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, const env& e,
                       std::uint64_t seed, std::uint64_t position) {
  check_span_sizes(span_op_name(O), a.size(), b.size(), out.size());
  const std::size_t n = out.size();
  std::size_t done = 0;
  std::uint32_t fl = 0;
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (F == binary16) {
    const array_dispatch path = array_dispatch_in_use();
    if (default_policy(e) && (path == array_dispatch::avx2 || is_avx512(path))) {
      const fp16 *pa = a.data(), *pb = b.data();
      fp16* po = out.data();
      done = n - n % binary16_span_block;
      switch (e.mode) {
        case rounding::nearest_even: fl = binary16_span_blocks<O, rounding::nearest_even>(pa, pb, po, n, path); break;
        case rounding::nearest_away: fl = binary16_span_blocks<O, rounding::nearest_away>(pa, pb, po, n, path); break;
        case rounding::toward_zero: fl = binary16_span_blocks<O, rounding::toward_zero>(pa, pb, po, n, path); break;
        case rounding::upward: fl = binary16_span_blocks<O, rounding::upward>(pa, pb, po, n, path); break;
        case rounding::downward: fl = binary16_span_blocks<O, rounding::downward>(pa, pb, po, n, path); break;
        case rounding::odd: fl = binary16_span_blocks<O, rounding::odd>(pa, pb, po, n, path); break;
        case rounding::stochastic: done = 0; break;  // the scalar operation, with a source's bits
      }
    }
  }
#endif
  return static_cast<status>(fl) |
         span_op_scalar<O, F>(a.data() + done, b.data() + done, out.data() + done, n - done, e, seed, position + done);
}

template <span_op O, format F>
status span_op_env(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, const env& e) {
  check_not_stochastic(span_op_name(O), e.mode);
  return span_op_checked<O, F>(a, b, out, e, 0, 0);
}
template <span_op O, format F>
status span_op_source(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, stochastic_source& s,
                      const policy& p) {
  const status st = span_op_checked<O, F>(a, b, out, env{rounding::stochastic, p}, s.seed, s.position);
  s.position += out.size();
  return st;
}

}  // namespace detail

// out[i] = a[i] op b[i], each rounded as the scalar operation rounds it; returns the OR of the
// flags. Any lf::fp<F> through the templates (spans of const fp<F> for a and b); the named types
// below also take anything that converts to a span (std::vector, arrays).
#define LIBFLOAT_SPAN_OP(name, O)                                                                               \
  template <format F>                                                                                           \
  status name(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, const env& e = {}) {    \
    return detail::span_op_env<O, F>(a, b, out, e);                                                             \
  }                                                                                                             \
  template <format F>                                                                                           \
  status name(std::span<const fp<F>> a, std::span<const fp<F>> b, std::span<fp<F>> out, stochastic_source& s,   \
              const policy& p = {}) {                                                                           \
    return detail::span_op_source<O, F>(a, b, out, s, p);                                                       \
  }
LIBFLOAT_SPAN_OP(add, detail::span_op::add)
LIBFLOAT_SPAN_OP(sub, detail::span_op::sub)
LIBFLOAT_SPAN_OP(mul, detail::span_op::mul)
LIBFLOAT_SPAN_OP(div, detail::span_op::div)
#undef LIBFLOAT_SPAN_OP

// (Function templates with a defaulted, never deduced parameter, as in core/array.hpp: called as
// plain functions, instantiated only where called.)
#define LIBFLOAT_SPAN_OP_NAMED(name, O, T)                                                                          \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, rounding r = rounding::nearest_even) {  \
    return detail::span_op_env<O, T::fmt>(a, b, out, env{r});                                                       \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, const env& e) {                         \
    return detail::span_op_env<O, T::fmt>(a, b, out, e);                                                            \
  }                                                                                                                 \
  template <class = void>                                                                                           \
  status name(std::span<const T> a, std::span<const T> b, std::span<T> out, stochastic_source& s,                   \
              const policy& p = {}) {                                                                               \
    return detail::span_op_source<O, T::fmt>(a, b, out, s, p);                                                      \
  }
#define LIBFLOAT_SPAN_OPS_NAMED(T)                              \
  LIBFLOAT_SPAN_OP_NAMED(add, detail::span_op::add, T)          \
  LIBFLOAT_SPAN_OP_NAMED(sub, detail::span_op::sub, T)          \
  LIBFLOAT_SPAN_OP_NAMED(mul, detail::span_op::mul, T)          \
  LIBFLOAT_SPAN_OP_NAMED(div, detail::span_op::div, T)
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
