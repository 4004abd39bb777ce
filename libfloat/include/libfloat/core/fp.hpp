// libfloat/core/fp.hpp: lf::fp<F>, a value of format F that behaves like a hardware number of that
// format, plus typed free functions that take an explicit rounding and report flags.
#pragma once

#include <bit>
#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>  // std::hash and its arithmetic specialisations ([unord.hash]/2: every header
                     // that declares hash provides them); <functional> costs more to compile
#include <type_traits>

#include <libfloat/core/arith.hpp>
#include <libfloat/fast/scalar.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf {

namespace detail {
template <int Bits>
using storage_for = std::conditional_t<
    (Bits <= 8), std::uint8_t,
    std::conditional_t<(Bits <= 16), std::uint16_t, std::conditional_t<(Bits <= 32), std::uint32_t, std::uint64_t>>>;

constexpr void report(status* out, status s) {
  if (out) *out |= s;
}

/// floor(log10(m * 2^q)) exactly, for m * 2^q >= 1 and q <= 16400 (enough for every format's max
/// finite value and powers of two): the number of decimal digits of the integer floor(m * 2^q),
/// less one (10^k <= x < 10^(k+1) holds for x exactly when it holds for floor(x), 10^k being an
/// integer). The digits are counted by dividing a big integer in base 2^64 limbs by 10^19,
/// schoolbook; at most about 260 divisions of at most 258 limbs (w = 15), few enough for a
/// compiler's constant-evaluation step limits.
constexpr int floor_log10_scaled(std::uint64_t m, int q) {
  int digits = 0;
  if (q <= 0) {
    std::uint64_t v = q <= -64 ? 0 : m >> -q;
    for (; v != 0; v /= 10) ++digits;
    return digits - 1;
  }
  constexpr int max_limbs = (64 + 16400) / 64 + 2;
  constexpr std::uint64_t ten19 = 10000000000000000000u;
  std::uint64_t limb[max_limbs] = {};
  const int word = q / 64, bit = q % 64;
  const u128 shifted = static_cast<u128>(m) << bit;  // m * 2^bit < 2^128
  limb[word] = static_cast<std::uint64_t>(shifted);
  limb[word + 1] = static_cast<std::uint64_t>(shifted >> 64);
  int n = word + 2;
  while (n > 0 && limb[n - 1] == 0) --n;
  while (n > 1) {  // at least 2^64 > 10^19: take 19 digits off
    u128 rem = 0;
    for (int i = n; i-- > 0;) {
      const u128 cur = (rem << 64) | limb[i];
      limb[i] = static_cast<std::uint64_t>(cur / ten19);
      rem = cur % ten19;
    }
    while (n > 0 && limb[n - 1] == 0) --n;
    digits += 19;
  }
  for (std::uint64_t v = limb[0]; v != 0; v /= 10) ++digits;
  return digits - 1;
}

/// A built-in arithmetic type: integer, bool, character or floating (never an lf::fp).
template <class T>
concept arithmetic = std::is_arithmetic_v<T>;
}  // namespace detail

/// A number in format F.
///
/// Construction from float, double or an integer is explicit and rounds to nearest even (like a
/// hardware cast): lf::fp16{0.1}, lf::fp16(70000.0) (+inf); `lf::fp16 x = 0.1;` does not compile.
/// Conversion to float is implicit when it is exact (every value of F is a float:
/// exact_in_float: binary16, bfloat16, tf32, FP8, binary32) and to double when it is exact
/// (exact_in_double: those and binary64); otherwise it is explicit and rounds to
/// nearest even. Conversion to any other arithmetic type (int, bool, ...) is deleted: use
/// lf::to_integer, or convert the float / double.
///
/// Mixed expressions do not compile: fp<F> op T and T op fp<F> for an arithmetic T (==, !=, <, <=,
/// >, >=, <=>, +, -, *, /, +=, -=, *=, /=), and the same between fp<F> and fp<G> of different
/// formats. Neither an implicit widening (compare in double) nor an implicit narrowing (round 0.1
/// to F) would be what every reader expects, so the reader writes one: x == lf::fp16{0.1} or
/// double(x) == 0.1; lf::convert<G>(x) between formats.
///
/// Operators round to nearest even and raise no flags; use the free functions (lf::add, ...) for
/// other directions, policies and flags.
///
/// For binary32 and binary64 the operators are the hardware's, so they follow the thread's
/// floating-point environment (rounding direction, FTZ, DAZ), as float and double do. Every other
/// format's operators, and every conversion, give the format's nearest-even result whatever that
/// environment is: binary16 and bfloat16 use binary32 hardware arithmetic only while the
/// environment is IEEE's default (detail::hardware_env_is_default) and the library's exact path
/// otherwise.
template <format F>
  requires(F.valid())
class fp {
 public:
  using storage_type = detail::storage_for<F.bits()>;
  static constexpr lf::format fmt = F;

  /// Whether every value of F (finite, infinite, NaN) is a value of To: p <= p(To),
  /// emax <= emax(To), and F's smallest subnormal 2^(emin - p + 1) no smaller than To's. Then
  /// converting to To is exact (IEEE 754-2019 §5.4.2: convertFormat to a format with every value
  /// of the source is exact), and lf::fp<F> converts to float / double implicitly.
  static constexpr bool values_in(const lf::format& To) {
    return F.precision <= To.precision && F.emax() <= To.emax() &&
           F.emin() - F.precision >= To.emin() - To.precision;
  }
  static constexpr bool exact_in_float = values_in(binary32);
  static constexpr bool exact_in_double = values_in(binary64);

  constexpr fp() = default;  ///< +0
  /// Explicit: rounds (nearest even, like a hardware cast), so the rounding is visible.
  explicit constexpr fp(float v) : bits_(from_float(v)) {}
  explicit constexpr fp(double v) : bits_(from_double(v)) {}
  template <std::integral I>
  explicit constexpr fp(I v) {  // nearest even, like a hardware cast
    status ignored{};
    bits_ = static_cast<storage_type>(from_int(F, v, env{}, ignored));
  }

  static constexpr fp from_bits(storage_type b) {
    fp r;
    r.bits_ = static_cast<storage_type>(b & F.encoding_mask());
    return r;
  }
  constexpr storage_type bits() const { return bits_; }

  /// Exact, and implicit, when F's values are all binary32 values (exact_in_float); otherwise
  /// explicit and rounded to nearest even.
  explicit(!exact_in_float) constexpr operator float() const {
    if constexpr (F == binary16) return detail::f16_to_float(bits_);
    else if constexpr (F == bfloat16) return std::bit_cast<float>(detail::bf16_to_f32_bits(bits_));
    else if constexpr (F == binary32) return std::bit_cast<float>(bits_);
    else {
      status ignored{};
      return std::bit_cast<float>(static_cast<std::uint32_t>(convert(binary32, F, bits_, env{}, ignored)));
    }
  }
  /// Exact when F's values are all binary64 values (every named format; a custom format with at
  /// most 10 exponent bits, or 11 with infinities); otherwise rounded to nearest even, so a value
  /// beyond binary64's range gives an infinity or a zero (e.g. max() of e12m3). Implicit when
  /// exact (exact_in_double).
  explicit(!exact_in_double) constexpr operator double() const {
    if constexpr (F == binary64) return std::bit_cast<double>(static_cast<std::uint64_t>(bits_));
    else if constexpr (F == binary16)
      return std::bit_cast<double>(detail::f32_to_f64_bits(detail::f16_to_f32_bits(bits_)));
    else if constexpr (F == bfloat16)
      return std::bit_cast<double>(detail::f32_to_f64_bits(detail::bf16_to_f32_bits(bits_)));
    else if constexpr (F == binary32)
      return std::bit_cast<double>(detail::f32_to_f64_bits(static_cast<std::uint32_t>(bits_)));
    else {
      status ignored{};
      return std::bit_cast<double>(convert(binary64, F, bits_, env{}, ignored));
    }
  }

  constexpr fp operator-() const { return from_bits(static_cast<storage_type>(lf::neg(F, bits_))); }
  constexpr fp operator+() const { return *this; }

  friend constexpr fp operator+(fp a, fp b) { return a.binary_op<op::add>(b); }
  friend constexpr fp operator-(fp a, fp b) { return a.binary_op<op::sub>(b); }
  friend constexpr fp operator*(fp a, fp b) { return a.binary_op<op::mul>(b); }
  friend constexpr fp operator/(fp a, fp b) { return a.binary_op<op::div>(b); }
  constexpr fp& operator+=(fp b) { return *this = *this + b; }
  constexpr fp& operator-=(fp b) { return *this = *this - b; }
  constexpr fp& operator*=(fp b) { return *this = *this * b; }
  constexpr fp& operator/=(fp b) { return *this = *this / b; }

  /// IEEE equality (§5.11): NaN is unequal to everything, -0 == +0. Raises nothing.
  friend constexpr bool operator==(fp a, fp b) {
    status ignored{};
    return eq(F, a.bits_, b.bits_, ignored);
  }
  friend constexpr std::partial_ordering operator<=>(fp a, fp b) {
    status ignored{};
    return compare(F, a.bits_, b.bits_, false, ignored);
  }

  // ---- what does not compile (class comment) ----
  // Any other arithmetic target: without this, an implicit float would convert on to int or bool
  // (and an implicit double on to float) without a cast. Direct conversions to float and double
  // pick the non-template functions above.
  template <detail::arithmetic T>
    requires(!(std::same_as<T, float> && exact_in_float) && !(std::same_as<T, double> && exact_in_double))
  operator T() const = delete;
  // fp<F> op T, T op fp<F>: deleted rather than absent, so that no built-in operator on a widened
  // value is chosen instead.
  template <detail::arithmetic T> friend bool operator==(fp, T) = delete;
  template <detail::arithmetic T> friend bool operator==(T, fp) = delete;
  template <detail::arithmetic T> friend std::partial_ordering operator<=>(fp, T) = delete;
  template <detail::arithmetic T> friend std::partial_ordering operator<=>(T, fp) = delete;
  template <detail::arithmetic T> friend fp operator+(fp, T) = delete;
  template <detail::arithmetic T> friend fp operator+(T, fp) = delete;
  template <detail::arithmetic T> friend fp operator-(fp, T) = delete;
  template <detail::arithmetic T> friend fp operator-(T, fp) = delete;
  template <detail::arithmetic T> friend fp operator*(fp, T) = delete;
  template <detail::arithmetic T> friend fp operator*(T, fp) = delete;
  template <detail::arithmetic T> friend fp operator/(fp, T) = delete;
  template <detail::arithmetic T> friend fp operator/(T, fp) = delete;
  template <detail::arithmetic T> friend fp& operator+=(fp&, T) = delete;
  template <detail::arithmetic T> friend fp& operator-=(fp&, T) = delete;
  template <detail::arithmetic T> friend fp& operator*=(fp&, T) = delete;
  template <detail::arithmetic T> friend fp& operator/=(fp&, T) = delete;
  template <detail::arithmetic T> friend T& operator+=(T&, fp) = delete;
  template <detail::arithmetic T> friend T& operator-=(T&, fp) = delete;
  template <detail::arithmetic T> friend T& operator*=(T&, fp) = delete;
  template <detail::arithmetic T> friend T& operator/=(T&, fp) = delete;
  // fp<F> op fp<G>, F != G: which format would the result have? lf::convert<G>(x) says.
  template <format G> requires(G != F) friend bool operator==(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend std::partial_ordering operator<=>(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend fp operator+(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend fp operator-(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend fp operator*(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend fp operator/(fp, fp<G>) = delete;
  template <format G> requires(G != F) friend fp& operator+=(fp&, fp<G>) = delete;
  template <format G> requires(G != F) friend fp& operator-=(fp&, fp<G>) = delete;
  template <format G> requires(G != F) friend fp& operator*=(fp&, fp<G>) = delete;
  template <format G> requires(G != F) friend fp& operator/=(fp&, fp<G>) = delete;

 private:
  enum class op { add, sub, mul, div };
  storage_type bits_ = 0;

  template <op O, typename T>
  static constexpr T apply(T x, T y) {
    if constexpr (O == op::add) return x + y;
    else if constexpr (O == op::sub) return x - y;
    else if constexpr (O == op::mul) return x * y;
    else return x / y;
  }

  template <op O>
  constexpr fp binary_op(fp b) const {
    if constexpr (F == binary32 || F == binary64) {
      return hardware_op<O, false>(b);  // the hardware's, in the thread's environment (class comment)
    } else if constexpr (F == binary16 || F == bfloat16) {
      // binary32 arithmetic is the format's only in IEEE's default environment: under FTZ or DAZ a
      // bfloat16 subnormal operand or result reads or comes out as zero, another rounding direction
      // changes the sign of an exact zero sum (and other results), an unmasked exception traps.
      // One STMXCSR decides (detail::hardware_env_is_default); otherwise the exact path below.
      if (std::is_constant_evaluated()) return hardware_op<O, false>(b);
      if (detail::hardware_env_is_default()) [[likely]] return hardware_op<O, true>(b);
      return exact_op_cold<O>(b);  // out of line: the loop around the fast path stays small
    } else {
      return exact_op<O>(b);
    }
  }

  template <op O>
  constexpr fp exact_op(fp b) const {
    status ignored{};
    bits_t r{};
    if constexpr (O == op::add) r = detail::add_inline<F>(F, bits_, b.bits_, env{}, ignored);
    else if constexpr (O == op::sub) r = detail::sub_inline<F>(F, bits_, b.bits_, env{}, ignored);
    else if constexpr (O == op::mul) r = detail::mul_inline<F>(F, bits_, b.bits_, env{}, ignored);
    else r = detail::div_inline<F>(F, bits_, b.bits_, env{}, ignored);
    return from_bits(static_cast<storage_type>(r));
  }
  template <op O>
  [[gnu::noinline, gnu::cold]] fp exact_op_cold(fp b) const {
    return exact_op<O>(b);
  }

  /// The operation in binary32 (binary64 for binary64) hardware arithmetic. Checked: the caller has
  /// just found the environment at its default, and the arithmetic is kept between that read and
  /// whatever follows (empty volatile asm on its operands and result; volatile asm and the MXCSR
  /// intrinsics keep their order), so the compiler cannot move it across a later _mm_setcsr.
  template <op O, bool Checked>
  constexpr fp hardware_op(fp b) const {
    // binary16/bfloat16: binary32 arithmetic then one narrowing is correctly rounded (fast.hpp).
    using H = std::conditional_t<F == binary64, double, float>;
    using S = storage_type;
    H x = static_cast<H>(*this), y = static_cast<H>(b);
#if defined(LIBFLOAT_HARDWARE_FLOAT_X86)
    if constexpr (Checked) __asm__ volatile("" : "+x"(x), "+x"(y));
#endif
    H z = apply<O>(x, y);
#if defined(LIBFLOAT_HARDWARE_FLOAT_X86)
    if constexpr (Checked) __asm__ volatile("" : "+x"(z));
#endif
    const S r = narrow(z);
    // The NaN rule (first NaN operand, quieted) is applied here rather than left to the FPU: the
    // compiler may swap the operands of a commutative + or *, and x86 returns the first one's
    // NaN. As masks (a ?: here becomes branches), so that GCC still vectorises binary32 loops.
    const auto quiet = static_cast<S>(F.quiet_bit());
    if constexpr (F == binary16) {
      // binary16's conversions do not vectorise anyway; selects are the faster form here.
      S out = r;
      out = __builtin_isnan(y) ? static_cast<S>(b.bits_ | quiet) : out;
      out = __builtin_isnan(x) ? static_cast<S>(bits_ | quiet) : out;
      return from_bits(out);
    } else {
      const auto all_if = [](bool c) { return static_cast<S>(S{0} - static_cast<S>(c)); };
      const S na = all_if(__builtin_isnan(x));
      const S nb = static_cast<S>(all_if(__builtin_isnan(y)) & ~na);
      return from_bits(static_cast<S>((r & static_cast<S>(~(na | nb))) | ((bits_ | quiet) & na) |
                                      ((b.bits_ | quiet) & nb)));
    }
  }

  static constexpr storage_type narrow(float v) { return from_float(v); }
  static constexpr storage_type narrow(double v) { return from_double(v); }

  static constexpr storage_type from_float(float v) {
    if constexpr (F == binary16) return detail::float_to_f16(v);
    else if constexpr (F == bfloat16) return detail::f32_to_bf16_bits_rne(std::bit_cast<std::uint32_t>(v));
    else if constexpr (F == binary32) return std::bit_cast<std::uint32_t>(v);
    else {
      status ignored{};
      return static_cast<storage_type>(convert(F, binary32, std::bit_cast<std::uint32_t>(v), env{}, ignored));
    }
  }
  static constexpr storage_type from_double(double v) {
    if constexpr (F == binary64) return std::bit_cast<std::uint64_t>(v);
    else {
      status ignored{};
      return static_cast<storage_type>(convert(F, binary64, std::bit_cast<std::uint64_t>(v), env{}, ignored));
    }
  }
};

using fp16 = fp<binary16>;
using bf16 = fp<bfloat16>;
using fp32 = fp<binary32>;
using fp64 = fp<binary64>;
using tf32 = fp<tfloat32>;
using fp8_e4m3 = fp<float8_e4m3fn>;
using fp8_e5m2 = fp<float8_e5m2>;

/// NVIDIA keeps TF32 in a 32-bit word in binary32 layout, low 13 bits ignored. These map between
/// that word and lf::tf32: from_binary32_word drops the ignored bits (as the tensor cores read
/// them; no rounding), with one exception. A NaN word whose payload lies entirely in the low 13
/// bits (0x7F800001..0x7F801FFF and the same with the sign set: signaling NaNs) would lose it and
/// read as an infinity; it gives the quiet NaN of the same sign with a zero payload instead
/// (0x3FE00 or 0x7FE00), as a conversion would: IEEE 754-2019 §6.2 has an operation on a signaling
/// NaN deliver a quiet NaN, and §6.2.3 keeps a payload only where the destination can hold it
/// (none of this one fits). Every other word, NaNs included, keeps its top 19 bits, so
/// tf32_from_binary32_word(tf32_to_binary32_word(x)) is x for every encoding x.
constexpr tf32 tf32_from_binary32_word(std::uint32_t w) {
  const auto t = static_cast<std::uint32_t>(w >> 13);
  const bool nan_lost = (w & 0x7FFFE000u) == 0x7F800000u && (w & 0x1FFFu) != 0;
  return tf32::from_bits(nan_lost ? t | 0x200u : t);  // 0x200: tf32's quiet bit
}
constexpr std::uint32_t tf32_to_binary32_word(tf32 x) { return static_cast<std::uint32_t>(x.bits()) << 13; }

// ---- typed free functions: explicit rounding / env, flags ORed into *st -------------------

// (F is a constant here. add, sub, mul and div go through detail::*_mode<F>: a switch
// on the mode (folded away when the caller's mode is a constant) to one out-of-line function per
// format and mode, the one lf::add(format, ...) reaches for a named format, with every derived
// constant folded. Out of line on purpose: inlined into the caller's loop, the whole core ran
// anywhere between 148 and 298 Mop/s for fp16 add depending on where the linker put the loop
// (docs/performance.md); out of line it runs the same in every build. Only the common case of
// binary16 add, sub, mul, div and fma and binary32 mul runs inline, before the switch: a few dozen
// instructions with the caller's direction as a run-time value (fast/binary16_ops.hpp). sqrt and
// fma stay inline: out of line, fma ran at 60% of its inline speed; except binary16 fma, whose
// out-of-line function has the fast path of fast/binary16_ops.hpp.)
#define LIBFLOAT_TYPED_BINARY(name, impl)                                                       \
  template <format F>                                                                           \
  LIBFLOAT_INLINE constexpr fp<F> name(fp<F> a, fp<F> b, const env& e, status* st = nullptr) {  \
    status s{};                                                                                 \
    const auto r = impl(F, a.bits(), b.bits(), e, s);                                           \
    detail::report(st, s);                                                                      \
    return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));                     \
  }                                                                                             \
  template <format F>                                                                           \
  LIBFLOAT_INLINE constexpr fp<F> name(fp<F> a, fp<F> b, rounding r = rounding::nearest_even,   \
                                       status* st = nullptr) {                                  \
    return name(a, b, env{r}, st);                                                              \
  }
LIBFLOAT_TYPED_BINARY(add, detail::add_mode<F>)
LIBFLOAT_TYPED_BINARY(sub, detail::sub_mode<F>)
LIBFLOAT_TYPED_BINARY(mul, detail::mul_mode<F>)
LIBFLOAT_TYPED_BINARY(div, detail::div_mode<F>)
LIBFLOAT_TYPED_BINARY(rem, rem)
#undef LIBFLOAT_TYPED_BINARY

// The rounding as a template argument: lf::add<lf::rounding::upward>(a, b, &st). Stochastic
// rounding needs 32 random bits for the one rounding (core/rounding.hpp), so there the bits are a
// required argument, lf::add<lf::rounding::stochastic>(a, b, random, &st), and
// lf::add<lf::rounding::stochastic>(a, b) does not compile. (With the mode as a run-time
// lf::rounding, lf::add(a, b, r) cannot be checked: rounding::stochastic there uses random = 0;
// see docs/library.md, "Errors".) These call the one out-of-line function of their mode
// (detail::*_of<F, M>, what the run-time-mode forms' switch reaches for that mode), so a program
// compiles only the modes it names.
namespace detail {
template <rounding M>
inline constexpr int mode_instance = M == rounding::stochastic ? -1 : static_cast<int>(M);
}  // namespace detail
#define LIBFLOAT_TYPED_MODE_BINARY(name)                                                          \
  namespace detail {                                                                           \
  template <rounding M, format F>                                                              \
  LIBFLOAT_INLINE constexpr fp<F> name##_typed_mode(fp<F> a, fp<F> b, const env& e, status* st) { \
    status s{};                                                                                \
    bits_t r; /* (an if, not a const initialiser: that one would be tried as a constant first) */ \
    if (std::is_constant_evaluated()) r = name##_inline(F, a.bits(), b.bits(), e, s);          \
    else r = name##_of<F, mode_instance<M>>(F, a.bits(), b.bits(), e, s);                      \
    report(st, s);                                                                             \
    return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));                    \
  }                                                                                            \
  }                                                                                            \
  template <rounding M, format F>                                                              \
    requires(M != rounding::stochastic)                                                        \
  constexpr fp<F> name(fp<F> a, fp<F> b, status* st = nullptr) {                               \
    return detail::name##_typed_mode<M>(a, b, env{M}, st);                                     \
  }                                                                                            \
  template <rounding M, format F>                                                              \
    requires(M == rounding::stochastic)                                                        \
  constexpr fp<F> name(fp<F> a, fp<F> b, std::uint32_t random, status* st = nullptr) {         \
    return detail::name##_typed_mode<M>(a, b, env{M, policy{}, random}, st);                   \
  }
LIBFLOAT_TYPED_MODE_BINARY(add)
LIBFLOAT_TYPED_MODE_BINARY(sub)
LIBFLOAT_TYPED_MODE_BINARY(mul)
LIBFLOAT_TYPED_MODE_BINARY(div)
#undef LIBFLOAT_TYPED_MODE_BINARY

template <format F>
constexpr fp<F> sqrt(fp<F> a, const env& e, status* st = nullptr) {
  status s{};
  const auto r = detail::sqrt_inline<F>(F, a.bits(), e, s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}
template <format F>
constexpr fp<F> sqrt(fp<F> a, rounding r = rounding::nearest_even, status* st = nullptr) {
  return sqrt(a, env{r}, st);
}

template <format F>
  requires(F != binary16)
constexpr fp<F> fma(fp<F> a, fp<F> b, fp<F> c, const env& e, status* st = nullptr) {
  status s{};
  const auto r = detail::fma_inline<F>(F, a.bits(), b.bits(), c.bits(), e, s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}
/// binary16: out of line, as add (the mode switch inline, then the fast path of fast/binary16_ops.hpp).
template <format F>
  requires(F == binary16)
LIBFLOAT_INLINE constexpr fp<F> fma(fp<F> a, fp<F> b, fp<F> c, const env& e, status* st = nullptr) {
  status s{};
  const auto r = detail::fma_mode<F>(F, a.bits(), b.bits(), c.bits(), e, s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}
template <format F>
constexpr fp<F> fma(fp<F> a, fp<F> b, fp<F> c, rounding r = rounding::nearest_even, status* st = nullptr) {
  return fma(a, b, c, env{r}, st);
}

template <rounding M, format F>
  requires(M != rounding::stochastic)
constexpr fp<F> sqrt(fp<F> a, status* st = nullptr) {
  return sqrt(a, env{M}, st);
}
template <rounding M, format F>
  requires(M == rounding::stochastic)
constexpr fp<F> sqrt(fp<F> a, std::uint32_t random, status* st = nullptr) {
  return sqrt(a, env{M, policy{}, random}, st);
}
template <rounding M, format F>
  requires(M != rounding::stochastic)
constexpr fp<F> fma(fp<F> a, fp<F> b, fp<F> c, status* st = nullptr) {
  return fma(a, b, c, env{M}, st);
}
template <rounding M, format F>
  requires(M == rounding::stochastic)
constexpr fp<F> fma(fp<F> a, fp<F> b, fp<F> c, std::uint32_t random, status* st = nullptr) {
  return fma(a, b, c, env{M, policy{}, random}, st);
}

/// roundToIntegral (exact = false) or roundToIntegralExact (exact = true).
template <format F>
constexpr fp<F> round_to_integral(fp<F> a, const env& e, bool exact = false, status* st = nullptr) {
  status s{};
  const auto r = round_to_integral(F, a.bits(), e, exact, s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}

/// convertFormat to another format G.
template <format G, format F>
constexpr fp<G> convert(fp<F> a, const env& e = {}, status* st = nullptr) {
  status s{};
  const auto r = convert(G, F, a.bits(), e, s);
  detail::report(st, s);
  return fp<G>::from_bits(static_cast<typename fp<G>::storage_type>(r));
}

/// Correctly rounded conversion from float or double in any rounding and policy.
template <format F, typename T>
  requires(std::same_as<T, float> || std::same_as<T, double>)
constexpr fp<F> from(T v, const env& e = {}, status* st = nullptr) {
  constexpr format src = std::same_as<T, float> ? binary32 : binary64;
  using U = std::conditional_t<std::same_as<T, float>, std::uint32_t, std::uint64_t>;
  return convert<F, src>(fp<src>::from_bits(std::bit_cast<U>(v)), e, st);
}

/// convertToInteger(Exact) into I.
template <std::integral I, format F>
constexpr I to_integer(fp<F> a, const env& e = {}, bool exact = false, status* st = nullptr) {
  status s{};
  const I r = to_int<I>(F, a.bits(), e, exact, s);
  detail::report(st, s);
  return r;
}

template <format F> constexpr fp<F> abs(fp<F> a) { return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(abs(F, a.bits()))); }
template <format F> constexpr fp<F> copysign(fp<F> a, fp<F> b) { return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(copysign(F, a.bits(), b.bits()))); }
template <format F> constexpr fp_class classify(fp<F> a) { return classify(F, a.bits()); }
template <format F> constexpr bool isnan(fp<F> a) { return detail::is_nan_bits(F, a.bits()); }
template <format F> constexpr bool issignaling(fp<F> a) { return detail::is_snan_bits(F, a.bits()); }
template <format F> constexpr fp<F> next_up(fp<F> a, status* st = nullptr) {
  status s{};
  const auto r = next_up(F, a.bits(), s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}
template <format F> constexpr fp<F> next_down(fp<F> a, status* st = nullptr) {
  status s{};
  const auto r = next_down(F, a.bits(), s);
  detail::report(st, s);
  return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));
}
template <format F> constexpr fp<F> ulp(fp<F> a) { return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(ulp(F, a.bits()))); }

#define LIBFLOAT_TYPED_MINMAX(name)                                          \
  template <format F>                                                        \
  constexpr fp<F> name(fp<F> a, fp<F> b, status* st = nullptr) {             \
    status s{};                                                              \
    const auto r = name(F, a.bits(), b.bits(), s);                           \
    detail::report(st, s);                                                   \
    return fp<F>::from_bits(static_cast<typename fp<F>::storage_type>(r));  \
  }
LIBFLOAT_TYPED_MINMAX(minimum)
LIBFLOAT_TYPED_MINMAX(maximum)
LIBFLOAT_TYPED_MINMAX(minimum_number)
LIBFLOAT_TYPED_MINMAX(maximum_number)
#undef LIBFLOAT_TYPED_MINMAX

}  // namespace lf

// ---- std::numeric_limits, generated from the format (never written per format) -----------

template <lf::format F>
class std::numeric_limits<lf::fp<F>> {
  using T = lf::fp<F>;
  using S = typename T::storage_type;
  // The decimal members, exactly ([numeric.limits.members]), from floor(log10(x)) of exact values:
  // max finite = sig * 2^exp as its encoding unpacks (every kind: the top binade's all-ones fraction
  // is finite in IEEE, finite_only and fnuz formats and the NaN in nan_only ones); min normal = 2^emin.
  static constexpr lf::detail::unpacked max_unpacked = lf::detail::unpack(F, F.max_finite_bits());

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = F.has_sign();
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = F.has_infinity();
  static constexpr bool has_quiet_NaN = F.has_nan();
  static constexpr bool has_signaling_NaN = F.has_signaling_nan();
  static constexpr std::float_denorm_style has_denorm = F.has_subnormals() ? std::denorm_present : std::denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  /// Only the IEEE 754 interchange formats themselves (bfloat16, TF32 and FP8 are IEEE-style but
  /// not IEC 559 formats, as PyTorch and Eigen also report).
  static constexpr bool is_iec559 = F == lf::binary16 || F == lf::binary32 || F == lf::binary64;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = F.precision;
  /// floor((p - 1) log10 2): decimal digits that survive a round trip through F.
  static constexpr int digits10 = lf::detail::floor_log10_scaled(1, F.precision - 1);
  /// ceil(p log10 2) + 1 = floor(p log10 2) + 2 (p log10 2 is never an integer for p >= 1): digits
  /// that tell every two values apart.
  static constexpr int max_digits10 = lf::detail::floor_log10_scaled(1, F.precision) + 2;
  static constexpr int radix = 2;
  static constexpr int min_exponent = F.emin() + 1;
  /// The smallest k with 10^k >= min normal 2^emin: -floor(log10(2^-emin)).
  static constexpr int min_exponent10 = -lf::detail::floor_log10_scaled(1, -F.emin());
  static constexpr int max_exponent = F.emax() + 1;
  /// The largest k with 10^k <= max finite: floor(log10(max finite)).
  static constexpr int max_exponent10 = lf::detail::floor_log10_scaled(max_unpacked.sig, max_unpacked.exp);
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr T min() noexcept { return T::from_bits(static_cast<S>(F.min_normal_bits())); }
  /// -max; the smallest value 2^emin of an exponent-only (unsigned) format.
  static constexpr T lowest() noexcept {
    return T::from_bits(static_cast<S>(F.has_sign() ? F.sign_mask() | F.max_finite_bits() : F.min_normal_bits()));
  }
  static constexpr T max() noexcept { return T::from_bits(static_cast<S>(F.max_finite_bits())); }
  /// 2^(1-p): the gap between 1 and the next value.
  static constexpr T epsilon() noexcept {
    lf::status ignored{};
    return T::from_bits(static_cast<S>(lf::detail::round_pack(F, false, 1 - F.precision, std::uint64_t{1}, false, lf::env{}, ignored)));
  }
  /// 0.5 (1 in an exponent-only format, which has no 0.5 ulp of 1: its ulp of 1 is 1).
  static constexpr T round_error() noexcept { return F.exponent_only() ? T(1.0) : T(0.5); }
  /// +inf; a format without infinity returns what stands in for it (lf::format::infinity_bits:
  /// its NaN, or max finite in a finite_only format; has_infinity is false).
  static constexpr T infinity() noexcept { return T::from_bits(static_cast<S>(F.infinity_bits())); }
  /// The positive quiet NaN (fnuz: its one NaN; finite_only has none, has_quiet_NaN is false, and
  /// this returns max finite, what stands in for it).
  static constexpr T quiet_NaN() noexcept { return T::from_bits(static_cast<S>(F.nan_bits(false))); }
  /// The signaling NaN with the smallest payload; where there is none, the quiet NaN.
  static constexpr T signaling_NaN() noexcept {
    return has_signaling_NaN ? T::from_bits(static_cast<S>(F.exponent_mask() | 1)) : quiet_NaN();
  }
  static constexpr T denorm_min() noexcept { return T::from_bits(static_cast<S>(F.min_subnormal_bits())); }
};

template <lf::format F>
struct std::hash<lf::fp<F>> {
  /// Consistent with operator==: +0 and -0 are equal, so both hash like +0. (NaNs compare
  /// unequal to everything, so their hashes are free.)
  std::size_t operator()(const lf::fp<F>& x) const noexcept {
    const auto b = (x.bits() & ~F.sign_mask()) == 0 ? typename lf::fp<F>::storage_type{0} : x.bits();
    return std::hash<typename lf::fp<F>::storage_type>{}(b);
  }
};
