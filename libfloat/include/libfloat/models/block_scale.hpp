// libfloat/models/block_scale.hpp: block-scaled formats (OCP Microscaling MX v1.0, NVIDIA NVFP4):
// a block of elements in a small format shares one scale in a scale format.
//
//   block_format                    element format, scale format, block size, scale rule
//   mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4 nvfp4 mxint8     the named ones
//   mx_quantize(x, rows, cols, fmt, env[, layout])  -> block_quantized (encodings, scales, flags)
//   mx_quantize(x, rows, cols, fmt, stochastic_source&, policy[, layout])
//   mx_quantize_into(x, rows, cols, fmt, q[, env, layout])  the same into q, reusing its storage
//   mx_dequantize(q, out)           every element times its scale (exact in float)
//   exact_block_dot(a, b)           sum of a_i * b_i of two quantized vectors, exactly
//   pack / unpack                   two FP4 values per byte, four FP6 values per three bytes
//
// Every rounding is the core's (lf::convert, lf::div): the scale is one rounding of a real value
// into the scale format, and each element one rounding of x / scale into the element format.
#pragma once

#include <libfloat/fast/block_quantize.hpp>
#include <libfloat/libfloat.hpp>
#include <libfloat/models/exact.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lf {

/// How a block's scale is chosen from the largest magnitude `amax` of its elements. Each rule is a
/// real value rounded once into the scale format, in the direction given.
enum class scale_rule : std::uint8_t {
  /// OCP MX v1.0 §6.3: X = 2^(floor(log2(amax)) - emax_elem), the largest power of two not above
  /// amax, divided by the element format's largest power of two. Elements that then exceed the
  /// element's max finite are clamped to it (the spec's conversion saturates).
  ocp_floor,
  /// X = amax / max_elem rounded up into the scale format: the smallest scale with which no element
  /// overflows (NVIDIA Transformer Engine MXFP8 recipe; "Recipes for Pre-training LLMs with MXFP8",
  /// NVIDIA 2025). With an E8M0 scale: 2^ceil(log2(amax / max_elem)).
  round_up,
  /// NVFP4 (NVIDIA Blackwell; arXiv 2509.25149): a per-tensor binary32 scale T = amax_tensor /
  /// (max_elem * max_scale) (one rounding, nearest even), and per block S = amax_block / (max_elem *
  /// T) rounded to nearest even into the scale format (E4M3), saturating. An element is x / (S * T).
  nvfp4,
};

/// A block-scaled format: elements of `element` share, per `block` elements, a scale of format
/// `scale`.
struct block_format {
  std::string_view name;
  format element;
  format scale;
  std::size_t block;
  scale_rule rule;
  /// 0: the elements are encodings of `element`. n > 0: the elements are n-bit two's complement
  /// integers k with the implicit factor 2^-(n-2), value k / 2^(n-2), and `element` is not used
  /// (MXINT8, n = 8: OCP MX v1.0 §5.3). Rounding gives integers in -(2^(n-1) - 1) .. 2^(n-1) - 1,
  /// clamping there, as microsoft/microxcaling's int8 (mx/formats.py: emax 0, max_norm 127/64) does:
  /// the encoding 0x80 (-2) is decoded, never produced.
  int int_bits = 0;
};

/// OCP MX v1.0 §5 (Table 1): the concrete MX formats, 32 elements per E8M0 scale.
inline constexpr block_format mxfp8_e4m3{"mxfp8_e4m3", float8_e4m3fn, float8_e8m0fnu, 32, scale_rule::ocp_floor};
inline constexpr block_format mxfp8_e5m2{"mxfp8_e5m2", float8_e5m2, float8_e8m0fnu, 32, scale_rule::ocp_floor};
inline constexpr block_format mxfp6_e3m2{"mxfp6_e3m2", float6_e3m2fn, float8_e8m0fnu, 32, scale_rule::ocp_floor};
inline constexpr block_format mxfp6_e2m3{"mxfp6_e2m3", float6_e2m3fn, float8_e8m0fnu, 32, scale_rule::ocp_floor};
inline constexpr block_format mxfp4{"mxfp4", float4_e2m1fn, float8_e8m0fnu, 32, scale_rule::ocp_floor};
/// NVFP4: E2M1 elements, 16 per E4M3 scale, and a binary32 scale per tensor.
inline constexpr block_format nvfp4{"nvfp4", float4_e2m1fn, float8_e4m3fn, 16, scale_rule::nvfp4};
/// OCP MX v1.0 §5.3 MXINT8: 8-bit two's complement elements with the implicit factor 2^-6 (values
/// k / 64, |k| <= 127 when quantized; largest power of two 2^0, the emax the scale rule uses), 32
/// per E8M0 scale.
inline constexpr block_format mxint8{"mxint8", format{}, float8_e8m0fnu, 32, scale_rule::ocp_floor, 8};

inline constexpr block_format named_block_formats[] = {mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3,
                                                       mxfp4,      nvfp4,      mxint8};

/// The element type's name: the element format's ("e4m3", "fp4", ...) or "intN" (MXINT8: "int8").
inline std::string element_name(const block_format& f) {
  return f.int_bits > 0 ? "int" + std::to_string(f.int_bits) : format_name(f.element);
}

/// How blocks tile a rows x cols matrix (row-major): runs of `block` elements along each row, or
/// block x block tiles (NVFP4's 16x16 weight blocks). A short last run or tile covers what is left.
enum class block_layout : std::uint8_t { rows_1d, tiles_2d };

/// A quantized matrix: one element encoding per input value (unpacked, one per byte; see pack),
/// one scale encoding per block, in row-major block order.
struct block_quantized {
  block_format fmt;
  block_layout layout = block_layout::rows_1d;
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint8_t> elements;
  std::vector<std::uint8_t> scales;
  /// NVFP4's per-tensor scale T (1 for the other rules): a value is element * scale * T.
  float tensor_scale = 1.0f;
  /// The flags of every rounding (scales and elements) ORed.
  status flags{};

  std::size_t block_rows() const { return layout == block_layout::tiles_2d ? (rows + fmt.block - 1) / fmt.block : rows; }
  std::size_t block_cols() const { return (cols + fmt.block - 1) / fmt.block; }
  /// The block that element (r, c) belongs to.
  std::size_t block_of(std::size_t r, std::size_t c) const {
    return (layout == block_layout::tiles_2d ? r / fmt.block : r) * block_cols() + c / fmt.block;
  }
};

namespace detail {

inline bits_t f64_bits(double v) { return std::bit_cast<std::uint64_t>(v); }
inline double f64_value(bits_t b) { return std::bit_cast<double>(b); }

/// A value of format f as a double (every value of the element and scale formats here is one).
inline double decode_double(const format& f, bits_t b) {
  status ignored{};
  return f64_value(convert(binary64, f, b, env{}, ignored));
}

/// The value of element encoding `code` of fmt (an integer element: sign-extended, times 2^-(n-2)).
inline double element_value(const block_format& fmt, bits_t code) {
  if (fmt.int_bits == 0) return decode_double(fmt.element, code);
  const int n = fmt.int_bits;
  const auto k = static_cast<std::int64_t>(code & ((bits_t{1} << n) - 1));
  const std::int64_t v = k >= (std::int64_t{1} << (n - 1)) ? k - (std::int64_t{1} << n) : k;
  return std::ldexp(static_cast<double>(v), 2 - n);
}

/// The largest element value (an integer element: (2^(n-1) - 1) / 2^(n-2), MXINT8's 127/64).
inline double element_max(const block_format& fmt) {
  if (fmt.int_bits == 0) return decode_double(fmt.element, fmt.element.max_finite_bits());
  return std::ldexp(static_cast<double>((std::int64_t{1} << (fmt.int_bits - 1)) - 1), 2 - fmt.int_bits);
}

/// The exponent of the element type's largest power of two (emax_elem of OCP MX §6.3; 0 for an
/// integer element).
inline int element_emax(const block_format& fmt) { return fmt.int_bits == 0 ? fmt.element.emax() : 0; }

/// x[0..n) / d into n-bit integer elements k / 2^(n-2): the quotient (exact: d is a power of two)
/// times 2^(n-2), rounded to an integer under e (lf::round_to_integral in binary64, roundToIntegralExact:
/// inexact where it changes), then clamped to +-(2^(n-1) - 1) with overflow and inexact raised, in
/// every mode (the conversion saturates). Subnormal inputs read as zero under treat_as_zero; no
/// underflow (an integer format has no tininess).
template <class Random>
void quantize_run_int(int n, const float* x, std::uint8_t* out, std::size_t len, double d, const env& e, std::size_t i0,
                      Random& random, status& st) {
  const double top = static_cast<double>((std::int64_t{1} << (n - 1)) - 1);
  env ee = e;
  for (std::size_t j = 0; j < len; ++j) {
    ee.random = random(i0 + j);
    float xv = x[j];
    if (e.policy.inputs == subnormal_inputs::treat_as_zero && std::fpclassify(xv) == FP_SUBNORMAL) xv = 0.0f;
    const double v = std::ldexp(static_cast<double>(xv) / d, n - 2);
    double r = f64_value(round_to_integral(binary64, f64_bits(v), ee, true, st));
    if (std::fabs(r) > top) {
      r = r < 0 ? -top : top;
      st |= status::overflow | status::inexact;
    }
    const auto k = static_cast<std::int64_t>(r);
    out[j] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(k) & ((std::uint64_t{1} << n) - 1));
  }
}

/// a / b rounded once into `to` under e: the quotient rounded to odd in binary64, then into `to`.
/// Round to odd at p + 2 or more bits makes the second rounding the one correct rounding of the
/// exact quotient (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
/// algorithms using rounding to odd", IEEE TC 2008), in every mode; stochastic rounding reads the
/// first 32 bits below `to`'s last place, which binary64's 53 bits hold for p <= 20.
inline bits_t divide_into(const format& to, double a, double b, const env& e, status& st) {
  status inner{};
  const bits_t q = div(binary64, f64_bits(a), f64_bits(b), env{rounding::odd}, inner);
  st |= inner & (status::invalid | status::divide_by_zero);  // inexact etc.: the final rounding's
  return convert(to, binary64, q, e, st);
}

/// The scale encoding of a block with largest magnitude amax (finite, > 0).
inline bits_t block_scale_bits(const block_format& fmt, double amax, double tensor_scale, status& st) {
  const format& sf = fmt.scale;
  const double max_elem = element_max(fmt);
  policy sat{};
  sat.overflow = overflow_policy::saturate;  // a scale beyond the scale format's range clamps
  switch (fmt.rule) {
    case scale_rule::ocp_floor: {
      // 2^(floor(log2 amax) - emax_elem): exact in binary64; toward zero keeps it a power of two
      // inside the scale format's range (clamped at the ends).
      const double x = std::ldexp(1.0, std::ilogb(amax) - element_emax(fmt));
      return convert(sf, binary64, f64_bits(x), env{rounding::toward_zero, sat}, st);
    }
    case scale_rule::round_up: return divide_into(sf, amax, max_elem, env{rounding::upward, sat}, st);
    case scale_rule::nvfp4: return divide_into(sf, amax, max_elem * tensor_scale, env{rounding::nearest_even, sat}, st);
  }
  return sf.default_nan_bits();
}

inline void check_shape(std::size_t n, std::size_t rows, std::size_t cols, const block_format& fmt) {
  if (rows * cols != n)
    throw std::invalid_argument("lf::mx_quantize: " + std::to_string(n) + " values do not fill a " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  if (fmt.block == 0) throw std::invalid_argument("lf::mx_quantize: block size 0 (accepted: 1 or more)");
  if (fmt.int_bits != 0 && (fmt.int_bits < 2 || fmt.int_bits > 8 || fmt.rule == scale_rule::nvfp4))
    throw std::invalid_argument("lf::mx_quantize: integer elements of " + std::to_string(fmt.int_bits) +
                                " bits (accepted: 2 to 8, with a power-of-two scale rule: ocp_floor or round_up)");
  if ((fmt.int_bits == 0 && (!fmt.element.valid() || fmt.element.bits() > 8)) || !fmt.scale.valid() || fmt.scale.bits() > 8)
    throw std::invalid_argument("lf::mx_quantize: element and scale formats must be valid formats of at most 8 bits");
  if (fmt.int_bits != 0 && !fmt.scale.exponent_only())
    throw std::invalid_argument("lf::mx_quantize: integer elements need a power-of-two scale format (E8M0)");
}

/// x[0..n) / d rounded into F, codes to out; element j's random bits are random(i0 + j). F is the
/// element format as a constant (the named element formats: the core folds its constants) or
/// format{} with `f` at run time. A power-of-two divisor (every E8M0 scale) divides a float exactly in
/// binary64 (its exponent range holds 2^-149 / 2^127 and 2^128 / 2^-127), so only the conversion
/// rounds; any other divisor goes through divide_into.
template <format F, class Random>
void quantize_run(const format& f, const float* x, std::uint8_t* out, std::size_t n, double d, const env& e,
                  std::size_t i0, Random& random, status& st) {
  const format& ef = F == format{} ? f : F;
  int d_exp = 0;
  const bool power_of_two = std::frexp(d, &d_exp) == 0.5;
  env ee = e;
  status s{};
  for (std::size_t j = 0; j < n; ++j) {
    ee.random = random(i0 + j);
    const double v = static_cast<double>(x[j]);
    const bits_t code = power_of_two ? convert(ef, binary64, f64_bits(v / d), ee, s) : divide_into(ef, v, d, ee, s);
    out[j] = static_cast<std::uint8_t>(code);
  }
  st |= s;
}

template <class Random>
void quantize_run_any(const format& f, const float* x, std::uint8_t* out, std::size_t n, double d, const env& e,
                      std::size_t i0, Random& random, status& st) {
  if (f == float8_e4m3fn) return quantize_run<float8_e4m3fn>(f, x, out, n, d, e, i0, random, st);
  if (f == float8_e5m2) return quantize_run<float8_e5m2>(f, x, out, n, d, e, i0, random, st);
  if (f == float6_e3m2fn) return quantize_run<float6_e3m2fn>(f, x, out, n, d, e, i0, random, st);
  if (f == float6_e2m3fn) return quantize_run<float6_e2m3fn>(f, x, out, n, d, e, i0, random, st);
  if (f == float4_e2m1fn) return quantize_run<float4_e2m1fn>(f, x, out, n, d, e, i0, random, st);
  quantize_run<format{}>(f, x, out, n, d, e, i0, random, st);
}

/// A divisor not known to be a power of two (quantize_block's k).
inline constexpr int mx_no_k = std::numeric_limits<int>::min();

/// The quantizer: random(i) gives element i's random bits (stochastic rounding) or 0. With
/// allow_fast (the default), blocks with a power-of-two scale whose elements round to nearest even
/// with the saturating default policy into an MX element format take fast/block_quantize.hpp's
/// integer kernel (proven equal to the core: tests/fast/test_block_quantize_proof.cpp); false keeps
/// the core's loop for every element (the proof's reference).
template <class Random>
void mx_quantize_into(std::span<const float> x, std::size_t rows, std::size_t cols, const block_format& fmt,
                      const env& e, block_layout layout, Random random, block_quantized& q, bool allow_fast = true) {
  check_shape(x.size(), rows, cols, fmt);
  q.fmt = fmt;
  q.layout = layout;
  q.rows = rows;
  q.cols = cols;
  q.tensor_scale = 1.0f;
  q.flags = status{};
  q.elements.resize(x.size());  // every element is written below (a NaN block's as 0)
  const std::size_t nb = q.block_rows() * q.block_cols();
  q.scales.resize(nb);
  const std::size_t B = fmt.block;
  const bool fast_elements =
      allow_fast && fmt.int_bits == 0 && fast::mx_element_fast(fmt.element) && e.mode == rounding::nearest_even &&
      e.policy == policy{tininess::after_rounding, subnormal_results::keep, subnormal_inputs::keep, overflow_policy::saturate};
  const fast::mx_element_params params = fast::mx_params(fmt.int_bits == 0 ? fmt.element : float8_e4m3fn);
  std::uint32_t fast_flags = 0;
  // x[i0 .. i0 + len) / divisor into the elements: the proven kernel for a power-of-two divisor 2^k with
  // k in E8M0's range -127..127 (the range its proof covers), else the core's loop; a NaN or zero
  // divisor (a block holding a NaN or an infinity) gives elements 0 (the block decodes to NaN).
  // (k_known: the divisor is known to be 2^k, from the E8M0 shortcut in scale_of)
  // (th: the E2M1 thresholds of this divisor, when the caller keeps them)
  auto quantize_block = [&](std::size_t i0, std::size_t len, double divisor, int k_known = mx_no_k,
                            const fast::e2m1_thresholds* th = nullptr) {
    std::uint8_t* out = q.elements.data() + i0;
    if (std::isnan(divisor) || divisor == 0) {
      std::fill(out, out + len, std::uint8_t{0});
      return;
    }
    // (a power of two: a normal binary64 with no fraction bits, 2^k with k its unbiased exponent)
    const std::uint64_t db = std::bit_cast<std::uint64_t>(divisor);
    const bool pow2 = (db & ((std::uint64_t{1} << 52) - 1)) == 0 && (db >> 52) != 0 && (db >> 52) < 0x7FF;
    const int k = k_known != mx_no_k ? k_known : pow2 ? static_cast<int>(db >> 52) - 1023 : mx_no_k;
    if (fast_elements && k >= -127 && k <= 127)
      fast_flags |= fast::mx_elements_rne(x.data() + i0, out, len, k, params);
    else if (fast_elements && fmt.element == float4_e2m1fn && fast::mx_e2m1_divisor_ok(divisor))
      fast_flags |= th ? fast::mx_e2m1_rne_div(x.data() + i0, out, len, *th)  // NVFP4: proven, any such divisor
                       : fast::mx_e2m1_rne_div(x.data() + i0, out, len, divisor);
    else if (fmt.int_bits != 0)
      quantize_run_int(fmt.int_bits, x.data() + i0, out, len, divisor, e, i0, random, q.flags);
    else
      quantize_run_any(fmt.element, x.data() + i0, out, len, divisor, e, i0, random, q.flags);
  };
  // The scale code of a block whose largest magnitude is amax (NaN: the block holds a NaN or an
  // infinity), and the divisor it gives with tensor scale T.
  const bool e8m0_floor = allow_fast && fmt.rule == scale_rule::ocp_floor && fmt.scale == float8_e8m0fnu;
  // (NVFP4's scale table, made once T is known)
  std::optional<fast::e4m3_scale_table> nvfp4_table;
  const fast::e4m3_scale_table* nvfp4_scales = nullptr;
  auto scale_of = [&](double amax, double T, double& divisor, int* k = nullptr) -> std::uint8_t {
    if (e8m0_floor && T == 1.0 && amax > 0 && amax <= std::numeric_limits<double>::max()) {
      // 2^x, x = floor(log2 amax) - emax_elem, is an E8M0 value when -127 <= x <= 127: its code is
      // x + 127, exactly what the core's conversion of 2^x gives, with no flag (the shortcut is
      // checked against the core path by tests/fast/test_block_quantize_proof.cpp). amax is a
      // binary32 value; a subnormal one goes to the core below.
      const int x = fast::mx_e8m0_block_k(std::bit_cast<std::uint32_t>(static_cast<float>(amax)), element_emax(fmt));
      if (x != fast::mx_no_block) {
        divisor = std::bit_cast<double>(static_cast<std::uint64_t>(x + 1023) << 52);
        if (k) *k = x;
        return static_cast<std::uint8_t>(x + 127);
      }
    }
    if (nvfp4_scales && amax > 0 && amax <= std::numeric_limits<double>::max()) {
      // NVFP4's E4M3 scale of amax / (max_elem * T) without the core's division where the quotient is a
      // normal E4M3 value and no midpoint (fast/block_quantize.hpp, proven against the core: only
      // inexact can arise there); its value times T is exact (4 and 24 significant bits).
      bool inexact = false;
      const int code = nvfp4_scales->code(amax, inexact);
      if (code >= 0) {
        if (inexact) q.flags |= status::inexact;
        divisor = fast::e4m3_scale_table::value(code) * T;
        return static_cast<std::uint8_t>(code);
      }
    }
    bits_t s;
    if (std::isnan(amax)) {
      s = fmt.scale.nan_bits(false);
      q.flags |= status::invalid;
    } else if (amax == 0) {
      s = fmt.scale.min_normal_bits();
    } else {
      s = block_scale_bits(fmt, amax, T, q.flags);
    }
    divisor = decode_double(fmt.scale, s) * T;  // exact: a scale value times a binary32
    return static_cast<std::uint8_t>(s);
  };
  // The largest magnitude of a run (NaN if it holds a NaN or an infinity).
  // On the magnitudes' bits: for non-negative binary32 values the integer order is the numeric order,
  // and a NaN or an infinity has bits of at least 0x7F800000 (a loop that compilers vectorise).
  auto amax_value = [](std::uint32_t m) {
    return m >= 0x7F800000u ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(std::bit_cast<float>(m));
  };
  auto run_amax = [allow_fast, amax_value](const float* run, std::size_t len) {
    return amax_value(allow_fast ? fast::mx_amax_bits(run, len) : fast::mx_amax_bits_portable(run, len));
  };
  if (layout == block_layout::rows_1d && fmt.rule != scale_rule::nvfp4) {
    // One pass: each block is one run of a row, and its scale needs nothing from other blocks.
    auto one_block = [&](std::size_t r, std::size_t c0) {
      const std::size_t i0 = r * cols + c0, len = std::min(B, cols - c0);
      double divisor = 1.0;
      int k = mx_no_k;
      q.scales[q.block_of(r, c0)] = scale_of(run_amax(x.data() + i0, len), 1.0, divisor, &k);
      quantize_block(i0, len, divisor, k);
    };
    // (E8M0 scales by the OCP rule, elements the kernel serves: a row's whole blocks go to
    // fast::mx_blocks_e8m0, which does scale and elements in one pass and leaves to one_block the
    // blocks it does not serve: zero, subnormal, NaN or infinite maxima, scales beyond E8M0's range)
    const bool block_kernel = fast_elements && e8m0_floor;
    const std::size_t whole = block_kernel ? cols / B : 0;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t b = 0; b < whole;) {
        b += fast::mx_blocks_e8m0(x.data() + r * cols + b * B, q.elements.data() + r * cols + b * B,
                                  q.scales.data() + q.block_of(r, b * B), B, whole - b, element_emax(fmt), params,
                                  fast_flags);
        if (b < whole) one_block(r, b++ * B);
      }
      for (std::size_t c0 = whole * B; c0 < cols; c0 += B) one_block(r, c0);
    }
    q.flags |= static_cast<status>(fast_flags);
    return;
  }
  // The general case (2-D tiles, NVFP4's tensor scale): in passes.
  // 1. The largest magnitude of each block (NaN if any element is NaN or infinite), a row's run
  //    of up to `block` columns at a time.
  // (scratch kept per thread and reused: a large matrix's per-block vectors cost page faults each
  // time they are allocated anew)
  thread_local std::vector<double> amax, divisor;       // tiles: each block's largest magnitude
  thread_local std::vector<std::uint32_t> amax_bits;     // rows: each block's mx_amax_bits
  if (layout == block_layout::tiles_2d) amax.assign(nb, 0.0);
  else amax_bits.resize(nb);  // (rows: one run per block, written below)
  double tensor_amax = 0.0;
  const std::size_t bc = q.block_cols();
  // (the block index of row r's first run; the runs of a row go to consecutive blocks)
  auto first_block = [&](std::size_t r) { return (layout == block_layout::tiles_2d ? r / B : r) * bc; };
  thread_local std::vector<std::uint32_t> run_bits;  // tiles: a row's runs, mx_amax_bits of each
  run_bits.resize(bc);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    std::uint32_t* runs = layout == block_layout::tiles_2d ? run_bits.data() : amax_bits.data() + first_block(r);
    const fast::mx_runs_max m =
        allow_fast ? fast::mx_amax_runs(row, cols, B, runs) : fast::mx_amax_runs_portable(row, cols, B, runs);
    if (layout != block_layout::tiles_2d) {
      // rows: a run is a block, its bits kept; the tensor's largest finite magnitude is the largest of
      // the finite runs' and of the finite elements of the others (a run holding a NaN or an infinity)
      tensor_amax = std::max(tensor_amax, static_cast<double>(std::bit_cast<float>(m.finite)));
      if (m.all >= 0x7F800000u)
        for (std::size_t c0 = 0, k = 0; c0 < cols; c0 += B, ++k)
          if (runs[k] >= 0x7F800000u)
            for (std::size_t j = c0; j < std::min(c0 + B, cols); ++j)
              if (std::isfinite(row[j])) tensor_amax = std::max(tensor_amax, std::fabs(static_cast<double>(row[j])));
      continue;
    }
    for (std::size_t c0 = 0, b = first_block(r), k = 0; c0 < cols; c0 += B, ++b, ++k) {
      const float* run = row + c0;
      const std::size_t len = std::min(B, cols - c0);
      const double m = run_bits[k] >= 0x7F800000u ? std::numeric_limits<double>::quiet_NaN()
                                                  : static_cast<double>(std::bit_cast<float>(run_bits[k]));
      double& bm = amax[b];  // (tiles: the largest of its rows' runs)
      if (std::isnan(m) || std::isnan(bm)) bm = std::numeric_limits<double>::quiet_NaN();
      else bm = std::max(bm, m);
      if (!std::isnan(m)) tensor_amax = std::max(tensor_amax, m);
      else
        for (std::size_t j = 0; j < len; ++j)
          if (std::isfinite(run[j])) tensor_amax = std::max(tensor_amax, std::fabs(static_cast<double>(run[j])));
    }
  }
  // 2. NVFP4's tensor scale: T = amax / (max_elem * max_scale), one binary32 rounding.
  double T = 1.0;
  if (fmt.rule == scale_rule::nvfp4 && tensor_amax > 0) {
    const double denom = element_max(fmt) *
                         decode_double(fmt.scale, fmt.scale.max_finite_bits());
    const bits_t t = divide_into(binary32, tensor_amax, denom, env{}, q.flags);
    q.tensor_scale = std::bit_cast<float>(static_cast<std::uint32_t>(t));
    T = q.tensor_scale;
    if (!(T > 0)) T = 1.0, q.tensor_scale = 1.0f;  // (an underflow to zero: no tensor scale)
  }
  if (allow_fast && fmt.rule == scale_rule::nvfp4 && fmt.scale == float8_e4m3fn &&
      fast::e4m3_scale_table::ok(element_max(fmt) * T)) {
    nvfp4_table.emplace(element_max(fmt) * T);
    nvfp4_scales = &*nvfp4_table;
  }
  // 3. Each block's scale: a NaN for a block with a NaN or infinity (OCP MX §6.3), the smallest
  //    normal scale for an all-zero block (any scale gives zeros), else the rule's value.
  // 4. Each element: x / divisor rounded once into the element format (MX clamps: saturate), a
  //    row's run of a block at a time.
  //    NVFP4's E2M1 elements compare with thresholds made once per scale code (T is the same for
  //    every block, so the code decides the divisor).
  const bool e2m1_table = fast_elements && fmt.element == float4_e2m1fn && fmt.scale.bits() <= 8;
  thread_local std::vector<fast::e2m1_thresholds> table;
  thread_local std::vector<std::uint8_t> made;
  if (e2m1_table) {
    table.resize(256);
    made.assign(256, 0);
  }
  // (the thresholds of scale code s, whose divisor is d, or nullptr where the E2M1 kernel does not serve)
  auto thresholds_of = [&](double d, std::uint8_t s) -> const fast::e2m1_thresholds* {
    if (!e2m1_table || !fast::mx_e2m1_divisor_ok(d)) return nullptr;
    if (!made[s]) table[s] = fast::e2m1_thresholds(d), made[s] = 1;
    return &table[s];
  };
  auto elements_of = [&](std::size_t i0, std::size_t len, double d, std::uint8_t s) {
    quantize_block(i0, len, d, mx_no_k, thresholds_of(d, s));
  };
  if (layout != block_layout::tiles_2d) {
    // rows: a block is one run. Each row's blocks that the E2M1 kernel serves go to it in stretches,
    // one call per stretch, each block with the thresholds of its scale code (mx_e2m1_rne_div_runs:
    // NVFP4's blocks are 16 elements, and a call per block cost about as much as the elements).
    // With the scale table, a row's scale bytes come from e4m3_scale_table::codes at once, and the
    // thresholds of all the codes it gives (the normal E4M3 ones, 8..126; their divisors value * T
    // have at most 4 + 24 significant bits, which the kernel serves) are made first, about 1 us: the
    // usual row is then one codes() call and one kernel call. A block the table leaves (0xFF), or a
    // short one at the end of a row, takes scale_of.
    // (every code codes() can give has its thresholds made before the kernel reads them by code)
    bool with_codes = nvfp4_scales != nullptr && e2m1_table;
    for (int s = 8; with_codes && s <= 126; ++s)
      with_codes = thresholds_of(fast::e4m3_scale_table::value(s) * T, static_cast<std::uint8_t>(s)) != nullptr;
    const std::size_t whole = cols / B;
    bool codes_inexact = false;
    for (std::size_t r = 0, b = 0; r < rows; ++r, b += bc) {
      const float* xr = x.data() + r * cols;
      std::uint8_t* out = q.elements.data() + r * cols;
      std::uint8_t* sc = q.scales.data() + b;
      std::size_t first = 0;  // the stretch for the kernel: blocks first .. k - 1
      const auto flush = [&](std::size_t end) {
        if (end > first)
          fast_flags |= fast::mx_e2m1_rne_div_runs(xr + first * B, out + first * B, B, end - first, table.data(), sc + first);
      };
      if (with_codes) {
        const fast::e4m3_scale_table::summary sum = nvfp4_scales->codes(amax_bits.data() + b, sc, whole);
        codes_inexact |= sum.inexact;
        if (!sum.left && whole == bc) {  // the usual row
          flush(bc);
          continue;
        }
      }
      for (std::size_t k = 0; k < bc; ++k) {
        if (with_codes && k < whole && sc[k] != 0xFF) continue;  // in the stretch
        double d = 1.0;
        const std::uint8_t s = sc[k] = scale_of(amax_value(amax_bits[b + k]), T, d);
        const std::size_t len = std::min(B, cols - k * B);
        if (len == B && thresholds_of(d, s) != nullptr) continue;  // in the stretch too
        flush(k);
        elements_of(r * cols + k * B, len, d, s);
        first = k + 1;
      }
      flush(bc);
    }
    if (codes_inexact) q.flags |= status::inexact;
  } else {
    divisor.resize(nb);  // (every one written by scale_of)
    for (std::size_t b = 0; b < nb; ++b) q.scales[b] = scale_of(amax[b], T, divisor[b]);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c0 = 0, b = first_block(r); c0 < cols; c0 += B, ++b)
        elements_of(r * cols + c0, std::min(B, cols - c0), divisor[b], q.scales[b]);
  }
  q.flags |= static_cast<status>(fast_flags);
}

template <class Random>
block_quantized mx_quantize_with(std::span<const float> x, std::size_t rows, std::size_t cols, const block_format& fmt,
                                 const env& e, block_layout layout, Random random, bool allow_fast = true) {
  block_quantized q;
  mx_quantize_into(x, rows, cols, fmt, e, layout, random, q, allow_fast);
  return q;
}

}  // namespace detail

/// Quantizes the rows x cols row-major matrix x into `fmt` (blocks along rows, or block x block
/// tiles). Elements round under e (any deterministic mode and policy; the MX formats' conversion
/// clamps, so pass a saturating policy to follow the spec, which is the default here). Throws
/// std::invalid_argument when x does not hold rows * cols values or the formats are not usable.
inline block_quantized mx_quantize(std::span<const float> x, std::size_t rows, std::size_t cols, const block_format& fmt,
                                   env e = env{rounding::nearest_even, policy{tininess::after_rounding, {}, {}, overflow_policy::saturate}},
                                   block_layout layout = block_layout::rows_1d) {
  if (e.mode == rounding::stochastic)
    throw std::invalid_argument("lf::mx_quantize: stochastic rounding needs an lf::stochastic_source");
  return detail::mx_quantize_with(x, rows, cols, fmt, e, layout, [](std::size_t) { return std::uint32_t{0}; });
}

/// The same into q, whose storage is reused: quantizing data of one shape again and again (a training
/// loop) allocates nothing after the first call. q's previous contents are replaced.
inline void mx_quantize_into(std::span<const float> x, std::size_t rows, std::size_t cols, const block_format& fmt,
                             block_quantized& q,
                             env e = env{rounding::nearest_even, policy{tininess::after_rounding, {}, {}, overflow_policy::saturate}},
                             block_layout layout = block_layout::rows_1d) {
  if (e.mode == rounding::stochastic)
    throw std::invalid_argument("lf::mx_quantize_into: stochastic rounding needs an lf::stochastic_source");
  detail::mx_quantize_into(x, rows, cols, fmt, e, layout, [](std::size_t) { return std::uint32_t{0}; }, q);
}

/// The same with stochastic rounding of the elements (the NVFP4 recipe rounds gradients so): the
/// random bits of element i are src.bits(src.position + i); src.position advances by x.size().
inline block_quantized mx_quantize(std::span<const float> x, std::size_t rows, std::size_t cols, const block_format& fmt,
                                   stochastic_source& src,
                                   policy p = policy{tininess::after_rounding, {}, {}, overflow_policy::saturate},
                                   block_layout layout = block_layout::rows_1d) {
  const stochastic_source at = src;
  block_quantized q = detail::mx_quantize_with(x, rows, cols, fmt, env{rounding::stochastic, p}, layout,
                                               [&](std::size_t i) { return at.bits(at.position + i); });
  src.position += x.size();
  return q;
}

/// The value of element i: element * scale * tensor scale, as a double (exact).
inline double mx_value(const block_quantized& q, std::size_t i) {
  const std::size_t b = q.block_of(i / q.cols, i % q.cols);
  const double s = detail::decode_double(q.fmt.scale, q.scales[b]);
  if (std::isnan(s)) return std::numeric_limits<double>::quiet_NaN();
  return detail::element_value(q.fmt, q.elements[i]) * s * static_cast<double>(q.tensor_scale);
}

/// Every value of q into out (rows * cols floats), rounded to nearest even where it is not a float:
/// an MX value (an element of at most 7 significant bits times a power of two) is exact unless it
/// lies beyond binary32's range; an NVFP4 value (E2M1 x E4M3 x the binary32 tensor scale, up to 30
/// significant bits) is often inexact, and mx_value gives it exactly. Returns the flags.
inline status mx_dequantize(const block_quantized& q, std::span<float> out) {
  if (out.size() != q.elements.size())
    throw std::invalid_argument("lf::mx_dequantize: the output has " + std::to_string(out.size()) +
                                " elements and the quantized matrix " + std::to_string(q.elements.size()));
  status st{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bits_t b = convert(binary32, binary64, detail::f64_bits(mx_value(q, i)), env{}, st);
    out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(b));
  }
  return st;
}

/// sum_i a_i * b_i of two quantized vectors of the same length (each value element * scale *
/// tensor scale), exactly: an exact_accumulator holding every product, for rounding into any
/// format (round_to) or reading as a double (to_double).
inline exact_accumulator exact_block_dot(const block_quantized& a, const block_quantized& b) {
  if (a.elements.size() != b.elements.size())
    throw std::invalid_argument("lf::exact_block_dot: lengths differ (" + std::to_string(a.elements.size()) + " and " +
                                std::to_string(b.elements.size()) + ")");
  exact_accumulator acc;
  for (std::size_t i = 0; i < a.elements.size(); ++i)
    acc.add_product(binary64, detail::f64_bits(mx_value(a, i)), binary64, detail::f64_bits(mx_value(b, i)));
  return acc;
}

// ---- packed storage ------------------------------------------------------------------------------
// Sub-byte elements packed little-endian: element i occupies bits [w*i, w*i + w) of the byte stream
// read as one little-endian integer. FP4 (w = 4): element 2k in the low nibble of byte k, 2k + 1 in
// the high nibble (as PyTorch's torch.float4_e2m1fn_x2 stores pairs); FP6 (w = 6): elements 4k..4k+3
// in bytes 3k..3k+2. A trailing partial byte is zero-filled. (OCP MX v1.0 defines the bits of each
// element and the block, not their physical layout in memory: this order is PyTorch's.)

/// Packs encodings of width `bits` (1..8) into bytes.
inline std::vector<std::uint8_t> pack(std::span<const std::uint8_t> codes, int bits) {
  if (bits < 1 || bits > 8) throw std::invalid_argument("lf::pack: element width " + std::to_string(bits) + " (accepted: 1 to 8)");
  std::vector<std::uint8_t> out((codes.size() * static_cast<std::size_t>(bits) + 7) / 8, 0);
  const unsigned mask = (1u << bits) - 1;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if ((codes[i] & ~mask) != 0)
      throw std::invalid_argument("lf::pack: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                                  " does not fit " + std::to_string(bits) + " bits");
    const std::size_t bit = i * static_cast<std::size_t>(bits);
    const unsigned v = static_cast<unsigned>(codes[i]) << (bit % 8);
    out[bit / 8] = static_cast<std::uint8_t>(out[bit / 8] | (v & 0xFF));
    if ((bit % 8) + static_cast<std::size_t>(bits) > 8) out[bit / 8 + 1] = static_cast<std::uint8_t>(out[bit / 8 + 1] | (v >> 8));
  }
  return out;
}

/// The first n encodings of width `bits` from packed bytes.
inline std::vector<std::uint8_t> unpack(std::span<const std::uint8_t> bytes, int bits, std::size_t n) {
  if (bits < 1 || bits > 8) throw std::invalid_argument("lf::unpack: element width " + std::to_string(bits) + " (accepted: 1 to 8)");
  if (bytes.size() * 8 < n * static_cast<std::size_t>(bits))
    throw std::invalid_argument("lf::unpack: " + std::to_string(bytes.size()) + " bytes hold fewer than " + std::to_string(n) +
                                " elements of " + std::to_string(bits) + " bits");
  std::vector<std::uint8_t> out(n);
  const unsigned mask = (1u << bits) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = i * static_cast<std::size_t>(bits);
    unsigned v = bytes[bit / 8];
    if (bit / 8 + 1 < bytes.size()) v |= static_cast<unsigned>(bytes[bit / 8 + 1]) << 8;
    out[i] = static_cast<std::uint8_t>((v >> (bit % 8)) & mask);
  }
  return out;
}

}  // namespace lf
