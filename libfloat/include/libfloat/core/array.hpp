// libfloat/core/array.hpp: whole arrays at once. lf::convert rounds a span of float or double into a span
// of lf::fp<F>; lf::widen converts back exactly; lf::quantize writes each value's nearest (by the
// rounding) value of a format, as a float or double, as CPFloat and chop do.
//
// Every element is rounded exactly as the scalar lf::convert rounds it (same bits, same flags): the
// kernels are detail::round_pack specialised per format and mode (fast/array_lane.hpp) and, for
// float -> binary16 in nearest even, the F16C instruction, which is bit-identical to it. The flags
// of all elements are ORed into the returned lf::status.
//
// Dispatch is at run time (fast/cpu_dispatch.hpp): AVX-512, AVX2+F16C or portable C++, so one
// binary runs on any x86-64 CPU (and any other CPU, on the portable path). lf::set_array_dispatch
// forces a path; all paths give the same results.
//
// Span sizes: the input and output spans must have the same size, otherwise std::invalid_argument
// is thrown (nothing is written). quantize may work in place (in and out the same span); otherwise
// input and output must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <libfloat/core/arith.hpp>
#include <libfloat/fast/array_kernels.hpp>
#include <libfloat/fast/array_lane.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

/// The random bits for stochastic rounding of arrays: element `index` of the stream `seed` gets
/// bits(index), a counter-based hash of (seed, index) (splitmix64 for the seed and the index's high
/// 32 bits, then a 32-bit multiply-xorshift mix of the low 32 bits). So the output depends only on
/// the seed and each element's index, never on vector width, chunking, order or threads.
///
/// `position` is the index of the next element: each lf::convert / lf::quantize that takes the
/// source by reference uses indices position, position + 1, ... and advances it by the span's
/// size, so converting an array in consecutive chunks gives the same result as converting it
/// whole. To convert a piece out of order (another thread, reverse order), give it
/// `source.at(first_index)`.
struct stochastic_source {
  std::uint64_t seed = 0;
  std::uint64_t position = 0;

  /// The 32 random bits of element `index` (lf::env::random for that element).
  constexpr std::uint32_t bits(std::uint64_t index) const { return detail::stochastic_bits(seed, index); }
  /// The same stream positioned at `index`.
  constexpr stochastic_source at(std::uint64_t index) const { return {seed, index}; }
};

namespace detail {

inline void check_span_sizes(const char* function, std::size_t in, std::size_t out) {
  if (in != out)
    throw std::invalid_argument(std::string(function) + ": the input span has " + std::to_string(in) +
                                " elements and the output span " + std::to_string(out) +
                                "; they must have the same size");
}

inline void check_not_stochastic(const char* function, rounding r) {
  if (r == rounding::stochastic)
    throw std::invalid_argument(std::string(function) +
                                ": rounding::stochastic needs random bits per element; pass an "
                                "lf::stochastic_source{seed} (and an lf::policy) instead of a rounding or env");
}

template <typename T>
inline constexpr format float_format_of = sizeof(T) == 4 ? binary32 : binary64;

template <format F, format In, rounding M, bool Plain, typename T>
std::uint32_t narrow_path(array_dispatch path, const T* in, fp<F>* out, std::size_t n, lane_policy pol,
                          std::uint64_t key, std::uint32_t idx0) {
#if defined(LIBFLOAT_ARRAY_X86)
  if (is_avx512(path)) return narrow_avx512<F, In, M, Plain>(in, out, n, pol, key, idx0);
  if (path == array_dispatch::avx2) return narrow_avx2<F, In, M, Plain>(in, out, n, pol, key, idx0);
#endif
  (void)path;
  return narrow_portable<F, In, M, Plain>(in, out, n, pol, key, idx0);
}

/// run(done, count, key, idx0) over [0, n), returning the ORed flags: one run, or for stochastic
/// rounding one per stretch of the stream's indices (position + done ...) that stays inside one
/// multiple of 2^32, whose element i takes stochastic_mix(idx0 + i, key) (= stochastic_bits(seed,
/// position + done + i)).
template <rounding M, class Run>
LIBFLOAT_INLINE std::uint32_t stochastic_runs(std::size_t n, std::uint64_t seed, std::uint64_t position, Run run) {
  if constexpr (M != rounding::stochastic) {
    return run(std::size_t{0}, n, std::uint64_t{0}, static_cast<std::uint32_t>(position));
  } else {
    std::uint32_t flags = 0;
    for (std::size_t done = 0; done < n;) {
      const std::uint64_t index = position + done;
      const std::uint64_t room = (std::uint64_t{1} << 32) - (index & 0xFFFFFFFFu);
      const std::size_t chunk = room < n - done ? static_cast<std::size_t>(room) : n - done;
      flags |= run(done, chunk, stochastic_key(seed, index >> 32), static_cast<std::uint32_t>(index));
      done += chunk;
    }
    return flags;
  }
}

/// float -> bfloat16 under the default policy in mode M by a block kernel of fast/array_kernels.hpp
/// (O = bf16: lf::convert; O = float: lf::quantize, one pass): nearest even on the AVX-512 paths
/// (bf16_rne_blocks_avx512) and AVX2, stochastic rounding with the AVX2 kernel on every x86 vector
/// path (2.5x the generic AVX-512 lane, measured on an AMD EPYC with AVX-512). False, nothing done,
/// where `path` has none (the portable path, another mode).
template <rounding M, typename O>
bool bf16_block_kernel([[maybe_unused]] array_dispatch path, [[maybe_unused]] const float* in, [[maybe_unused]] O* out,
                       [[maybe_unused]] std::size_t n, [[maybe_unused]] std::uint64_t seed,
                       [[maybe_unused]] std::uint64_t position, [[maybe_unused]] std::uint32_t& flags) {
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (M == rounding::nearest_even) {
    if (path == array_dispatch::avx512_bf16) return flags = bf16_rne_blocks_avx512<true>(in, out, n), true;
    if (path == array_dispatch::avx512) return flags = bf16_rne_blocks_avx512<false>(in, out, n), true;
    if (path == array_dispatch::avx2) return flags = bf16_blocks_avx2<M>(in, out, n), true;
  } else if constexpr (M == rounding::stochastic) {
    if (path == array_dispatch::avx2 || is_avx512(path)) {
      // (in place, each run reads and writes only its own elements: the runs do not overlap)
      flags = stochastic_runs<M>(n, seed, position, [&](std::size_t done, std::size_t count, std::uint64_t key,
                                                        std::uint32_t idx0) {
        return bf16_blocks_avx2<M>(in + done, out + done, count, key, idx0);
      });
      return true;
    }
  }
#endif
  return false;
}

/// One generic-lane run, split where the stochastic index crosses a multiple of 2^32.
template <format F, format In, rounding M, typename T>
std::uint32_t narrow_dispatch(const T* in, fp<F>* out, std::size_t n, lane_policy pol, std::uint64_t seed,
                              std::uint64_t position) {
  [[maybe_unused]] const array_dispatch path = array_dispatch_in_use();
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (F == binary16 && In == binary32 &&
                (M == rounding::nearest_even || M == rounding::toward_zero || M == rounding::upward ||
                 M == rounding::downward || M == rounding::odd || M == rounding::nearest_away)) {
    if (pol.is_default()) {
      if (is_avx512(path)) return f16_f16c_avx512<M>(in, out, n);
      if (path == array_dispatch::avx2) return f16_f16c_avx2<M>(in, out, n);
    }
  }
#endif
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (F == bfloat16 && In == binary32 && trick_mode(M)) {
    if (pol.is_default() && is_avx512(path)) return narrow_trick_avx512<F, M>(in, out, n);
  }
#endif
  if constexpr (F == bfloat16 && In == binary32 && (M == rounding::nearest_even || M == rounding::stochastic)) {
    if (pol.is_default()) {
      std::uint32_t flags = 0;
      if (bf16_block_kernel<M>(path, in, out, n, seed, position, flags)) return flags;
      if constexpr (M == rounding::nearest_even) return bf16_rne_portable(in, out, n);
    }
  }
  return stochastic_runs<M>(n, seed, position, [&](std::size_t done, std::size_t chunk, std::uint64_t key,
                                                  std::uint32_t idx0) {
    if (pol.is_default()) return narrow_path<F, In, M, true>(path, in + done, out + done, chunk, pol, key, idx0);
    return narrow_path<F, In, M, false>(path, in + done, out + done, chunk, pol, key, idx0);
  });
}

/// in -> out under e (e.random ignored); for rounding::stochastic the bits of element i are
/// stochastic_bits(seed, position + i).
template <format F, typename T>
status convert_span(std::span<const T> in, std::span<fp<F>> out, const env& e, std::uint64_t seed,
                    std::uint64_t position) {
  constexpr format In = float_format_of<T>;
  using U = float_bits_t<T>;
  using S = typename fp<F>::storage_type;
  const std::size_t n = in.size();
  if constexpr (lane_supported<F, In>) {
    const lane_policy pol = lane_policy::from(e.policy);
    const T* pi = in.data();
    fp<F>* po = out.data();
    return static_cast<status>(with_mode(e.mode, [&](auto m) {
      return narrow_dispatch<F, In, decltype(m)::value>(pi, po, n, pol, seed, position);
    }));
  } else {
    // Formats the lanes do not cover (binary32 from float, binary64, custom wide formats): the core
    // itself, one element at a time.
    status st{};
    env ei = e;
    for (std::size_t i = 0; i < n; ++i) {
      if (e.mode == rounding::stochastic) ei.random = stochastic_bits(seed, position + i);
      out[i] = fp<F>::from_bits(static_cast<S>(convert(F, In, std::bit_cast<U>(in[i]), ei, st)));
    }
    return st;
  }
}

template <format F, typename T>
status convert_checked(std::span<const T> in, std::span<fp<F>> out, const env& e) {
  check_span_sizes("lf::convert", in.size(), out.size());
  check_not_stochastic("lf::convert", e.mode);
  return convert_span<F, T>(in, out, e, 0, 0);
}

template <format F, typename T>
status convert_checked(std::span<const T> in, std::span<fp<F>> out, stochastic_source& src, const policy& p) {
  check_span_sizes("lf::convert", in.size(), out.size());
  const status st = convert_span<F, T>(in, out, env{rounding::stochastic, p}, src.seed, src.position);
  src.position += in.size();
  return st;
}

template <format F>
status widen_span(std::span<const fp<F>> in, std::span<float> out) {
  check_span_sizes("lf::widen", in.size(), out.size());
#if defined(LIBFLOAT_ARRAY_X86)
  if constexpr (F == binary16)
    if (array_dispatch_in_use() != array_dispatch::portable)
      return static_cast<status>(f16_widen_f16c_avx2(in.data(), out.data(), in.size()));
#endif
  return static_cast<status>(widen_loop<F>(in.data(), out.data(), in.size()));
}

template <format F>
status widen_span(std::span<const fp<F>> in, std::span<double> out) {
  check_span_sizes("lf::widen", in.size(), out.size());
  status st{};
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = std::bit_cast<double>(static_cast<std::uint64_t>(convert(binary64, F, in[i].bits(), env{}, st)));
  return st;
}

/// Every finite value of f is a value of In (so quantize's output is exact): p <= p_In,
/// emax <= emax_In, and f's smallest subnormal 2^(emin - p + 1) is a multiple of In's.
constexpr bool values_fit_in(const format& f, const format& in) {
  return f.valid() && f.precision <= in.precision && f.emax() <= in.emax() &&
         f.emin() - f.precision >= in.emin() - in.precision;
}

template <format F, typename T>
status quantize_named(std::span<const T> in, std::span<T> out, const env& e, std::uint64_t seed, std::uint64_t position) {
  // bfloat16, default policy: one pass where a block kernel serves the mode (bf16_block_kernel)
  if constexpr (F == bfloat16 && std::is_same_v<T, float>) {
    if (lane_policy::from(e.policy).is_default()) {
      const array_dispatch path = array_dispatch_in_use();
      std::uint32_t flags = 0;
      if (e.mode == rounding::nearest_even &&
          bf16_block_kernel<rounding::nearest_even>(path, in.data(), out.data(), in.size(), seed, position, flags))
        return static_cast<status>(flags);
      if (e.mode == rounding::stochastic &&
          bf16_block_kernel<rounding::stochastic>(path, in.data(), out.data(), in.size(), seed, position, flags))
        return static_cast<status>(flags);
    }
  }
  constexpr std::size_t block = 1024;
  fp<F> buf[block];
  status st{};
  for (std::size_t b = 0; b < in.size(); b += block) {
    const std::size_t m = in.size() - b < block ? in.size() - b : block;
    const std::span<fp<F>> tmp(buf, m);
    st |= convert_span<F, T>(in.subspan(b, m), tmp, e, seed, position + b);
    st |= widen_span<F>(std::span<const fp<F>>(tmp), out.subspan(b, m));
  }
  return st;
}

template <typename T>
status quantize_span(std::span<const T> in, std::span<T> out, const format& f, const env& e, std::uint64_t seed,
                     std::uint64_t position) {
  constexpr format In = float_format_of<T>;
  using U = float_bits_t<T>;
  check_span_sizes("lf::quantize", in.size(), out.size());
  if (!values_fit_in(f, In))
    throw std::invalid_argument("lf::quantize: format " + format_name(f) + " has values that " +
                                std::string(sizeof(T) == 4 ? "float" : "double") +
                                " cannot hold; quantize needs a format inside the element type (p <= " +
                                std::to_string(In.precision) + ", emax <= " + std::to_string(In.emax()) +
                                ", smallest subnormal at least the element type's)");
  if (f == binary16) return quantize_named<binary16, T>(in, out, e, seed, position);
  if (f == bfloat16) return quantize_named<bfloat16, T>(in, out, e, seed, position);
  if (f == tfloat32) return quantize_named<tfloat32, T>(in, out, e, seed, position);
  if (f == float8_e4m3fn) return quantize_named<float8_e4m3fn, T>(in, out, e, seed, position);
  if (f == float8_e5m2) return quantize_named<float8_e5m2, T>(in, out, e, seed, position);
  if constexpr (In == binary64)
    if (f == binary32) return quantize_named<binary32, T>(in, out, e, seed, position);
  // Any other format: the core, element by element; the way back is exact.
  status st{};
  env ei = e;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (e.mode == rounding::stochastic) ei.random = stochastic_bits(seed, position + i);
    const bits_t r = convert(f, In, std::bit_cast<U>(in[i]), ei, st);
    status back{};
    out[i] = std::bit_cast<T>(static_cast<U>(convert(In, f, r, env{}, back)));
  }
  return st;
}

}  // namespace detail

// ---- the public functions ------------------------------------------------------------------------
//
// For each output type T (fp16, bf16, tf32, fp8_e4m3, fp8_e5m2, fp32, fp64) and each input element
// type (float, double):
//
//   status convert(span<const float> in, span<T> out, rounding r = nearest_even);
//   status convert(span<const float> in, span<T> out, const env& e);      // mode + FTZ/DAZ/saturate/tininess
//   status convert(span<const float> in, span<T> out, stochastic_source& s, const policy& p = {});
//   status widen(span<const T> in, span<float> out);                      // exact (T inside binary32)
//   status widen(span<const T> in, span<double> out);                     // exact
//
// out[i] is what lf::convert / lf::from<F>(in[i], e) gives, and the returned status is the OR of
// every element's flags. rounding::stochastic through a rounding or env throws
// std::invalid_argument (it needs a stochastic_source). Any other lf::fp<F> works through the
// templates: lf::convert<F>(in, out, ...), lf::widen<F>(in, out).

template <format F>
status convert(std::span<const float> in, std::span<fp<F>> out, const env& e = {}) {
  return detail::convert_checked<F, float>(in, out, e);
}
template <format F>
status convert(std::span<const double> in, std::span<fp<F>> out, const env& e = {}) {
  return detail::convert_checked<F, double>(in, out, e);
}
template <format F>
status convert(std::span<const float> in, std::span<fp<F>> out, stochastic_source& s, const policy& p = {}) {
  return detail::convert_checked<F, float>(in, out, s, p);
}
template <format F>
status convert(std::span<const double> in, std::span<fp<F>> out, stochastic_source& s, const policy& p = {}) {
  return detail::convert_checked<F, double>(in, out, s, p);
}
template <format F>
  requires(detail::values_fit_in(F, binary32))
status widen(std::span<const fp<F>> in, std::span<float> out) {
  return detail::widen_span<F>(in, out);
}
template <format F>
status widen(std::span<const fp<F>> in, std::span<double> out) {
  return detail::widen_span<F>(in, out);
}

// The plain overloads below are function templates with one defaulted, never deduced parameter:
// called exactly as plain functions (their parameter types are not deduced, so std::vector, braces
// and spans convert implicitly; partial ordering prefers them to the template <format F> versions,
// as it preferred the plain functions), but their bodies, and the span kernels of every format and
// rounding mode they reach, are instantiated only in a program that calls them. As plain inline
// functions they were instantiated in every translation unit that included this header, about a
// third of the cost of including <libfloat/libfloat.hpp>.
#define LIBFLOAT_ARRAY_LAZY template <class = void>

#define LIBFLOAT_ARRAY_OVERLOADS(T, E)                                                                    \
  LIBFLOAT_ARRAY_LAZY status convert(std::span<const E> in, std::span<T> out, rounding r = rounding::nearest_even) {   \
    return detail::convert_checked<T::fmt, E>(in, out, env{r});                                           \
  }                                                                                                       \
  LIBFLOAT_ARRAY_LAZY status convert(std::span<const E> in, std::span<T> out, const env& e) {                          \
    return detail::convert_checked<T::fmt, E>(in, out, e);                                                \
  }                                                                                                       \
  LIBFLOAT_ARRAY_LAZY status convert(std::span<const E> in, std::span<T> out, stochastic_source& s, const policy& p = {}) { \
    return detail::convert_checked<T::fmt, E>(in, out, s, p);                                             \
  }                                                                                                       \
  LIBFLOAT_ARRAY_LAZY status convert(std::span<const E> in, std::span<T> out, stochastic_source&& s, const policy& p = {}) { \
    return detail::convert_checked<T::fmt, E>(in, out, s, p);                                             \
  }                                                                                                       \
  LIBFLOAT_ARRAY_LAZY status widen(std::span<const T> in, std::span<E> out) { return detail::widen_span<T::fmt>(in, out); }

LIBFLOAT_ARRAY_OVERLOADS(fp16, float)
LIBFLOAT_ARRAY_OVERLOADS(bf16, float)
LIBFLOAT_ARRAY_OVERLOADS(tf32, float)
LIBFLOAT_ARRAY_OVERLOADS(fp8_e4m3, float)
LIBFLOAT_ARRAY_OVERLOADS(fp8_e5m2, float)
LIBFLOAT_ARRAY_OVERLOADS(fp32, float)
LIBFLOAT_ARRAY_OVERLOADS(fp16, double)
LIBFLOAT_ARRAY_OVERLOADS(bf16, double)
LIBFLOAT_ARRAY_OVERLOADS(tf32, double)
LIBFLOAT_ARRAY_OVERLOADS(fp8_e4m3, double)
LIBFLOAT_ARRAY_OVERLOADS(fp8_e5m2, double)
LIBFLOAT_ARRAY_OVERLOADS(fp32, double)
LIBFLOAT_ARRAY_OVERLOADS(fp64, double)
#undef LIBFLOAT_ARRAY_OVERLOADS
// float -> binary64 is exact; widening binary64 to float is not a widening, so there is none.
LIBFLOAT_ARRAY_LAZY status convert(std::span<const float> in, std::span<fp64> out, rounding r = rounding::nearest_even) {
  return detail::convert_checked<binary64, float>(in, out, env{r});
}
LIBFLOAT_ARRAY_LAZY status convert(std::span<const float> in, std::span<fp64> out, const env& e) {
  return detail::convert_checked<binary64, float>(in, out, e);
}
LIBFLOAT_ARRAY_LAZY status convert(std::span<const float> in, std::span<fp64> out, stochastic_source& s, const policy& p = {}) {
  return detail::convert_checked<binary64, float>(in, out, s, p);
}

/// Writes to out[i] the value of format f that in[i] rounds to (under r / e / the stochastic
/// source), as a float: widen(convert(in[i])) element by element, with convert's flags ORed.
/// - Out of range: what convert gives: +-infinity or +-max finite (by direction; always max
///   finite under overflow_policy::saturate). A format without infinity (E4M3, fnuz) gives NaN
///   instead of infinity, as its conversion does, and a finite_only one (FP4, FP6) max finite; an
///   infinite input under saturate gives +-max finite.
/// - NaN into a finite_only format: max finite of its sign, with invalid (it has no NaN); into an
///   exponent-only one (E8M0), zero and negative values give its NaN, with invalid.
/// - Subnormals: values below f's min normal land on f's subnormal grid (gradual underflow), or
///   become +-0 under subnormal_results::flush_to_zero; subnormal_inputs::treat_as_zero reads
///   float subnormal inputs as zeros.
/// - NaN: stays NaN, quieted (a signaling NaN raises invalid), sign kept, with the payload bits f
///   can hold (f's NaN payload widened: for E4M3 every NaN becomes S.11111111.1110...0, 0x7FF00000
///   with the sign).
/// - f must fit the element type (every value of f a float), else std::invalid_argument.
/// in and out may be the same span.
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const float> in, std::span<float> out, const format& f, const env& e) {
  detail::check_not_stochastic("lf::quantize", e.mode);
  return detail::quantize_span<float>(in, out, f, e, 0, 0);
}
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const float> in, std::span<float> out, const format& f,
                       rounding r = rounding::nearest_even) {
  return quantize(in, out, f, env{r});
}
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const float> in, std::span<float> out, const format& f, stochastic_source& s,
                       const policy& p = {}) {
  const status st = detail::quantize_span<float>(in, out, f, env{rounding::stochastic, p}, s.seed, s.position);
  s.position += in.size();
  return st;
}
/// The same for double elements (f must fit binary64).
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const double> in, std::span<double> out, const format& f, const env& e) {
  detail::check_not_stochastic("lf::quantize", e.mode);
  return detail::quantize_span<double>(in, out, f, e, 0, 0);
}
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const double> in, std::span<double> out, const format& f,
                       rounding r = rounding::nearest_even) {
  return quantize(in, out, f, env{r});
}
LIBFLOAT_ARRAY_LAZY status quantize(std::span<const double> in, std::span<double> out, const format& f, stochastic_source& s,
                       const policy& p = {}) {
  const status st = detail::quantize_span<double>(in, out, f, env{rounding::stochastic, p}, s.seed, s.position);
  s.position += in.size();
  return st;
}

#undef LIBFLOAT_ARRAY_LAZY
}  // namespace lf
