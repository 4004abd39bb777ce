// tools/python/src/module.cpp: libfloat._core, the compiled half of the Python module `libfloat`.
//
// It works on one-dimensional C-contiguous arrays of one dtype each; the Python half
// (tools/python/libfloat/__init__.py) checks dtypes, shapes and strides, broadcasts, reshapes and
// turns the results into the documented API. Every loop here runs without the GIL (the arrays'
// buffers are taken first, and nothing touches a Python object until the loop ends).
//
// Errors: a bad format, mode or model name throws pybind11::value_error with the library's own
// message (which lists what is accepted); the library's std::invalid_argument becomes ValueError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <libfloat/libfloat.hpp>
#include <libfloat/models.hpp>
#include <libfloat/training.hpp>
#include <libfloat/version.hpp>

namespace py = pybind11;

namespace {

using u64_array = py::array_t<std::uint64_t, py::array::c_style>;
using u8_array = py::array_t<std::uint8_t, py::array::c_style>;
using f32_array = py::array_t<float, py::array::c_style>;
using f64_array = py::array_t<double, py::array::c_style>;

lf::format format_of(const std::string& name) {
  std::string error;
  const std::optional<lf::format> f = lf::format_by_name(name, &error);
  if (!f) throw py::value_error(error);
  return *f;
}

lf::rounding rounding_of(const std::string& name) {
  const std::optional<lf::rounding> r = lf::rounding_by_name(name);
  if (!r)
    throw py::value_error("unknown rounding mode '" + name + "' (known: " + std::string(lf::rounding_names_help) + ")");
  return *r;
}

/// The environment of every rounding: mode and the four policies, as the Python keywords name them.
struct options {
  lf::env e{};
  std::uint64_t seed = 0;
};

options options_of(const std::string& mode, bool saturate, bool ftz, bool daz, bool tininess_before, std::uint64_t seed) {
  options o;
  o.e.mode = rounding_of(mode);
  o.e.policy.overflow = saturate ? lf::overflow_policy::saturate : lf::overflow_policy::ieee;
  o.e.policy.results = ftz ? lf::subnormal_results::flush_to_zero : lf::subnormal_results::keep;
  o.e.policy.inputs = daz ? lf::subnormal_inputs::treat_as_zero : lf::subnormal_inputs::keep;
  o.e.policy.tininess = tininess_before ? lf::tininess::before_rounding : lf::tininess::after_rounding;
  o.seed = seed;
  return o;
}

/// The env of element i: the stochastic bits of (seed, i) when the mode is stochastic.
lf::env env_at(const options& o, std::size_t i) {
  lf::env e = o.e;
  if (e.mode == lf::rounding::stochastic) e.random = lf::stochastic_source{o.seed, 0}.bits(i);
  return e;
}

template <typename T>
lf::bits_t bits_of(T x) {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<std::uint32_t>(x);
  else
    return std::bit_cast<std::uint64_t>(x);
}

template <typename T>
constexpr lf::format element_format = sizeof(T) == 4 ? lf::binary32 : lf::binary64;

// ---- formats -------------------------------------------------------------------------------------

double decode_double(const lf::format& f, lf::bits_t b) {
  lf::status ignored{};
  return std::bit_cast<double>(lf::convert(lf::binary64, f, b, lf::env{}, ignored));
}

std::string kind_name(lf::nonfinite k) {
  switch (k) {
    case lf::nonfinite::ieee: return "ieee";
    case lf::nonfinite::nan_only: return "nan_only";
    case lf::nonfinite::finite_only: return "finite_only";
    case lf::nonfinite::fnuz: return "fnuz";
  }
  return "?";
}

/// Everything finfo needs, computed from the format by the library: limits are decoded encodings.
py::dict format_info(const std::string& name) {
  const lf::format f = format_of(name);
  py::dict d;
  d["name"] = lf::format_name(f);
  d["bits"] = f.bits();
  d["exponent_bits"] = f.exponent_bits;
  d["precision"] = f.precision;
  d["fraction_bits"] = f.fraction_bits();
  d["bias"] = f.bias();
  d["emin"] = f.emin();
  d["emax"] = f.emax();
  d["kind"] = kind_name(f.kind);
  d["has_infinity"] = f.has_infinity();
  d["has_nan"] = f.has_nan();
  d["has_zero"] = f.has_zero();
  d["has_sign"] = f.has_sign();
  d["has_subnormals"] = f.has_subnormals();
  d["has_negative_zero"] = f.has_negative_zero();
  d["max"] = decode_double(f, f.max_finite_bits());
  d["smallest_normal"] = decode_double(f, f.min_normal_bits());
  // The smallest positive value: encoding 1 (a subnormal, or 2^emin where there are none).
  d["smallest_subnormal"] = decode_double(f, 1);
  // eps: next_up(1) - 1 in the format (exact in binary64); epsneg: 1 - next_down(1).
  if (f.has_zero() && f.has_sign()) {
    lf::status ignored{};
    const lf::bits_t one = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(1.0), lf::env{}, ignored);
    d["eps"] = decode_double(f, lf::next_up(f, one)) - 1.0;
    d["epsneg"] = 1.0 - decode_double(f, lf::next_down(f, one));
  } else {
    d["eps"] = py::none();
    d["epsneg"] = py::none();
  }
  d["fits_float32"] = lf::detail::values_fit_in(f, lf::binary32);
  d["fits_float64"] = lf::detail::values_fit_in(f, lf::binary64);
  return d;
}

// ---- quantize, encode, decode ----------------------------------------------------------------------

/// (values, flags): each x[i] rounded into f and back, as lf::quantize does. With `elementwise` the
/// flags are an array of one status per element (the scalar core per element); otherwise one status.
template <typename T>
py::tuple quantize(py::array_t<T, py::array::c_style> x, const std::string& fmt, const std::string& mode, bool saturate,
                   bool ftz, bool daz, bool tininess_before, std::uint64_t seed, bool elementwise) {
  const lf::format f = format_of(fmt);
  const options o = options_of(mode, saturate, ftz, daz, tininess_before, seed);
  const auto n = static_cast<std::size_t>(x.size());
  py::array_t<T> out(static_cast<py::ssize_t>(n));
  const T* in = x.data();
  T* res = out.mutable_data();
  if (!elementwise) {
    lf::status st{};
    {
      py::gil_scoped_release release;
      const std::span<const T> sin(in, n);
      const std::span<T> sout(res, n);
      if (o.e.mode == lf::rounding::stochastic) {
        lf::stochastic_source src{seed, 0};
        st = lf::quantize(sin, sout, f, src, o.e.policy);
      } else {
        st = lf::quantize(sin, sout, f, o.e);
      }
    }
    return py::make_tuple(out, lf::to_bits(st));
  }
  if (!lf::detail::values_fit_in(f, element_format<T>))
    throw py::value_error("format " + lf::format_name(f) + " has values that " + (sizeof(T) == 4 ? "float32" : "float64") +
                          " cannot hold");
  u8_array flags(static_cast<py::ssize_t>(n));
  std::uint8_t* fl = flags.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) {
      lf::status st{};
      const lf::bits_t r = lf::convert(f, element_format<T>, bits_of(in[i]), env_at(o, i), st);
      lf::status back{};
      const lf::bits_t w = lf::convert(element_format<T>, f, r, lf::env{}, back);
      if constexpr (sizeof(T) == 4)
        res[i] = std::bit_cast<float>(static_cast<std::uint32_t>(w));
      else
        res[i] = std::bit_cast<double>(static_cast<std::uint64_t>(w));
      fl[i] = lf::to_bits(st);
    }
  }
  return py::make_tuple(out, flags);
}

/// The encodings of x[i] rounded into F by the array kernels (lf::convert on spans), in blocks
/// through a buffer of lf::fp<F>, copied out as integers of the encoding's width. Returns the flags.
template <lf::format F, typename T, typename S>
lf::status encode_named(const T* in, S* out, std::size_t n, const options& o) {
  constexpr std::size_t block = 4096;
  std::vector<lf::fp<F>> buf(std::min(n, block));
  lf::status st{};
  lf::stochastic_source src{o.seed, 0};
  for (std::size_t b = 0; b < n; b += block) {
    const std::size_t m = std::min(block, n - b);
    const std::span<const T> sin(in + b, m);
    const std::span<lf::fp<F>> sout(buf.data(), m);
    if (o.e.mode == lf::rounding::stochastic)
      st |= lf::convert<F>(sin, sout, src, o.e.policy);  // src.position advances by m
    else
      st |= lf::convert<F>(sin, sout, o.e);
    for (std::size_t i = 0; i < m; ++i) out[b + i] = static_cast<S>(buf[i].bits());
  }
  return st;
}

/// (codes, flags): the encodings of x[i] rounded into f, as unsigned integers of the format's width
/// (uint8 up to 8 bits, uint16, uint32, uint64). flags: one status per element with `elementwise`
/// (the scalar core), otherwise the OR of all (the array kernels for the named formats they serve).
template <typename T, typename S>
py::tuple encode_as(const T* in, std::size_t n, const lf::format& f, const options& o, bool elementwise) {
  py::array_t<S> codes(static_cast<py::ssize_t>(n));
  S* c = codes.mutable_data();
  if (elementwise) {
    u8_array flags(static_cast<py::ssize_t>(n));
    std::uint8_t* fl = flags.mutable_data();
    {
      py::gil_scoped_release release;
      for (std::size_t i = 0; i < n; ++i) {
        lf::status st{};
        c[i] = static_cast<S>(lf::convert(f, element_format<T>, bits_of(in[i]), env_at(o, i), st));
        fl[i] = lf::to_bits(st);
      }
    }
    return py::make_tuple(codes, flags);
  }
  lf::status st{};
  {
    py::gil_scoped_release release;
    bool done = true;
    if constexpr (sizeof(S) == 2) {
      if (f == lf::binary16) st = encode_named<lf::binary16>(in, c, n, o);
      else if (f == lf::bfloat16) st = encode_named<lf::bfloat16>(in, c, n, o);
      else done = false;
    } else if constexpr (sizeof(S) == 1) {
      if (f == lf::float8_e4m3fn) st = encode_named<lf::float8_e4m3fn>(in, c, n, o);
      else if (f == lf::float8_e5m2) st = encode_named<lf::float8_e5m2>(in, c, n, o);
      else done = false;
    } else {
      done = false;
    }
    if (!done)
      for (std::size_t i = 0; i < n; ++i)
        c[i] = static_cast<S>(lf::convert(f, element_format<T>, bits_of(in[i]), env_at(o, i), st));
  }
  return py::make_tuple(codes, lf::to_bits(st));
}

template <typename T>
py::tuple encode(py::array_t<T, py::array::c_style> x, const std::string& fmt, const std::string& mode, bool saturate,
                 bool ftz, bool daz, bool tininess_before, std::uint64_t seed, bool elementwise) {
  const lf::format f = format_of(fmt);
  const options o = options_of(mode, saturate, ftz, daz, tininess_before, seed);
  const auto n = static_cast<std::size_t>(x.size());
  const T* in = x.data();
  if (f.bits() <= 8) return encode_as<T, std::uint8_t>(in, n, f, o, elementwise);
  if (f.bits() <= 16) return encode_as<T, std::uint16_t>(in, n, f, o, elementwise);
  if (f.bits() <= 32) return encode_as<T, std::uint32_t>(in, n, f, o, elementwise);
  return encode_as<T, std::uint64_t>(in, n, f, o, elementwise);
}

/// Checks that every code is an encoding of f (no bits above its width); names the first that is not.
void check_codes(const lf::format& f, const std::uint64_t* c, std::size_t n, const char* what) {
  const std::uint64_t mask = f.encoding_mask();
  for (std::size_t i = 0; i < n; ++i)
    if ((c[i] & ~mask) != 0)
      throw py::value_error(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(c[i]) +
                            " is not an encoding of " + lf::format_name(f) + " (it has " + std::to_string(f.bits()) +
                            " bits: 0.." + std::to_string(mask) + ")");
}

/// The value of each code, as a float64 (exact for every format inside binary64).
f64_array decode(u64_array codes, const std::string& fmt) {
  const lf::format f = format_of(fmt);
  const auto n = static_cast<std::size_t>(codes.size());
  const std::uint64_t* c = codes.data();
  check_codes(f, c, n, "codes");
  f64_array out(static_cast<py::ssize_t>(n));
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) o[i] = decode_double(f, c[i]);
  }
  return out;
}

// ---- elementwise arithmetic ------------------------------------------------------------------------

enum class op_kind { add, sub, mul, div, fma, sqrt };

op_kind op_of(const std::string& name) {
  if (name == "add") return op_kind::add;
  if (name == "sub") return op_kind::sub;
  if (name == "mul") return op_kind::mul;
  if (name == "div") return op_kind::div;
  if (name == "fma") return op_kind::fma;
  if (name == "sqrt") return op_kind::sqrt;
  throw py::value_error("unknown operation '" + name + "' (known: add, sub, mul, div, fma, sqrt)");
}

/// (codes, flags per element) of op on encodings of fmt; b and c are used by the operations that
/// take them and must then have a's length.
py::tuple arith(const std::string& op_name, const std::string& fmt, u64_array a, u64_array b, u64_array c,
                const std::string& mode, bool saturate, bool ftz, bool daz, bool tininess_before, std::uint64_t seed) {
  const op_kind op = op_of(op_name);
  const lf::format f = format_of(fmt);
  const options o = options_of(mode, saturate, ftz, daz, tininess_before, seed);
  const auto n = static_cast<std::size_t>(a.size());
  const int operands = op == op_kind::sqrt ? 1 : op == op_kind::fma ? 3 : 2;
  if ((operands >= 2 && static_cast<std::size_t>(b.size()) != n) || (operands == 3 && static_cast<std::size_t>(c.size()) != n))
    throw py::value_error("the operands have different lengths");
  const std::uint64_t* pa = a.data();
  const std::uint64_t* pb = operands >= 2 ? b.data() : nullptr;
  const std::uint64_t* pc = operands == 3 ? c.data() : nullptr;
  check_codes(f, pa, n, "a");
  if (pb) check_codes(f, pb, n, "b");
  if (pc) check_codes(f, pc, n, "c");
  u64_array out(static_cast<py::ssize_t>(n));
  u8_array flags(static_cast<py::ssize_t>(n));
  std::uint64_t* r = out.mutable_data();
  std::uint8_t* fl = flags.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) {
      lf::status st{};
      const lf::env e = env_at(o, i);
      switch (op) {
        case op_kind::add: r[i] = lf::add(f, pa[i], pb[i], e, st); break;
        case op_kind::sub: r[i] = lf::sub(f, pa[i], pb[i], e, st); break;
        case op_kind::mul: r[i] = lf::mul(f, pa[i], pb[i], e, st); break;
        case op_kind::div: r[i] = lf::div(f, pa[i], pb[i], e, st); break;
        case op_kind::fma: r[i] = lf::fma(f, pa[i], pb[i], pc[i], e, st); break;
        case op_kind::sqrt: r[i] = lf::sqrt(f, pa[i], e, st); break;
      }
      fl[i] = lf::to_bits(st);
    }
  }
  return py::make_tuple(out, flags);
}

// ---- accumulation: sum, dot, matmul ------------------------------------------------------------------

/// An accumulation preset (lf::named_accumulations) or a matrix-unit preset (lf::matrix_unit_presets).
struct model {
  std::optional<lf::accumulation> acc;
  std::optional<lf::matrix_unit> unit;
  lf::format input() const { return acc ? acc->input : unit->input; }
  lf::format output() const { return acc ? acc->accumulator : unit->output; }
};

std::string model_names() {
  std::string out = lf::known_accumulation_names();
  for (const auto& p : lf::matrix_unit_presets) out += ", " + std::string(p.name);
  return out;
}

model model_of(const std::string& name) {
  model m;
  if (auto a = lf::accumulation_by_name(name)) {
    m.acc = *a;
    return m;
  }
  if (auto u = lf::matrix_unit_by_name(name)) {
    m.unit = *u;
    return m;
  }
  throw py::value_error("unknown model '" + name + "' (accumulation models and matrix units: " + model_names() + ")");
}

py::dict model_info(const std::string& name) {
  const model m = model_of(name);
  py::dict d;
  d["name"] = name;
  d["kind"] = m.acc ? "accumulation" : "matrix_unit";
  d["input"] = lf::format_name(m.input());
  d["output"] = lf::format_name(m.output());
  if (m.acc) d["description"] = lf::describe(*m.acc);
  return d;
}

py::list model_list() {
  py::list out;
  for (const auto& n : lf::named_accumulations) out.append(py::make_tuple(std::string(n.name), "accumulation", std::string(n.description)));
  for (const auto& p : lf::matrix_unit_presets) out.append(py::make_tuple(std::string(p.name), "matrix_unit", std::string(p.citation)));
  return out;
}

/// The result of one reduction: its encoding in the model's output format, the exact value rounded
/// once to binary64, and the flags.
struct reduction {
  lf::bits_t bits = 0;
  double exact = 0;
  std::uint8_t flags = 0;
};

reduction reduce_dot(const model& m, const std::uint64_t* a, const std::uint64_t* b, std::size_t n, std::size_t stride_a,
                     std::size_t stride_b, std::vector<lf::bits_t>& ta, std::vector<lf::bits_t>& tb) {
  const lf::format in = m.input();
  ta.resize(n);
  tb.resize(n);
  lf::exact_accumulator exact;
  for (std::size_t i = 0; i < n; ++i) {
    ta[i] = a[i * stride_a];
    tb[i] = b ? b[i * stride_b] : 0;
    if (b)
      exact.add_product(in, ta[i], in, tb[i]);
    else
      exact.add(in, ta[i]);
  }
  reduction r;
  lf::status st{};
  if (m.acc) {
    const lf::value v = b ? lf::dot(*m.acc, std::span<const lf::bits_t>(ta), std::span<const lf::bits_t>(tb), &st)
                          : lf::sum(*m.acc, std::span<const lf::bits_t>(ta), &st);
    r.bits = v.bits;
  } else {
    if (!b) {  // a matrix unit sums by multiplying by one
      lf::status ignored{};
      const lf::bits_t one = lf::convert(in, lf::binary64, std::bit_cast<std::uint64_t>(1.0), lf::env{}, ignored);
      std::fill(tb.begin(), tb.end(), one);
    }
    r.bits = lf::dot(*m.unit, in, std::span<const lf::bits_t>(ta), in, std::span<const lf::bits_t>(tb), 0, st);
  }
  r.flags = lf::to_bits(st);
  r.exact = exact.to_double();
  return r;
}

/// (result codes, exact values, flags OR) of rows x cols reductions of length k: a is rows x k and b
/// is k x cols (row-major); element (i, j) is the dot product of row i of a and column j of b, or
/// (is_dot false, cols 1) the sum of row i of a.
py::tuple reduce(const std::string& name, u64_array a, u64_array b, bool is_dot, std::size_t rows, std::size_t cols,
                 std::size_t k) {
  const model m = model_of(name);
  const lf::format in = m.input();
  const bool has_b = is_dot;
  if (static_cast<std::size_t>(a.size()) != rows * k || (has_b && static_cast<std::size_t>(b.size()) != k * cols))
    throw py::value_error("the operands' sizes do not match the shape");
  check_codes(in, a.data(), static_cast<std::size_t>(a.size()), "a");
  if (has_b) check_codes(in, b.data(), static_cast<std::size_t>(b.size()), "b");
  if (m.acc && m.acc->invalid_reason()) throw py::value_error("model " + name + ": " + *m.acc->invalid_reason());
  u64_array out(static_cast<py::ssize_t>(rows * cols));
  f64_array exact(static_cast<py::ssize_t>(rows * cols));
  std::uint8_t flags = 0;
  const std::uint64_t* pa = a.data();
  const std::uint64_t* pb = has_b ? b.data() : nullptr;
  std::uint64_t* po = out.mutable_data();
  double* pe = exact.mutable_data();
  {
    py::gil_scoped_release release;
    std::vector<lf::bits_t> ta, tb;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        // a is rows x k (row-major), b is k x cols (row-major): element (i, j) is row i of a times column j of b.
        const reduction r = reduce_dot(m, pa + i * k, pb ? pb + j : nullptr, k, 1, cols, ta, tb);
        po[i * cols + j] = r.bits;
        pe[i * cols + j] = r.exact;
        flags |= r.flags;
      }
  }
  return py::make_tuple(out, exact, flags);
}

// ---- block scaling -----------------------------------------------------------------------------------

const lf::block_format& block_format_of(const std::string& name) {
  std::string known;
  for (const auto& b : lf::named_block_formats) {
    if (b.name == name) return b;
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  throw py::value_error("unknown block format '" + name + "' (known: " + known + ")");
}

py::tuple mx_quantize(f32_array x, std::size_t rows, std::size_t cols, const std::string& fmt, const std::string& mode,
                      std::uint64_t seed, bool tiles) {
  const lf::block_format& bf = block_format_of(fmt);
  const lf::rounding r = rounding_of(mode);
  const std::span<const float> in(x.data(), static_cast<std::size_t>(x.size()));
  const lf::block_layout layout = tiles ? lf::block_layout::tiles_2d : lf::block_layout::rows_1d;
  const lf::policy sat{lf::tininess::after_rounding, {}, {}, lf::overflow_policy::saturate};
  lf::block_quantized q;
  {
    py::gil_scoped_release release;
    if (r == lf::rounding::stochastic) {
      lf::stochastic_source src{seed, 0};
      q = lf::mx_quantize(in, rows, cols, bf, src, sat, layout);
    } else {
      q = lf::mx_quantize(in, rows, cols, bf, lf::env{r, sat}, layout);
    }
  }
  u8_array elements(static_cast<py::ssize_t>(q.elements.size()));
  std::copy(q.elements.begin(), q.elements.end(), elements.mutable_data());
  u8_array scales(static_cast<py::ssize_t>(q.scales.size()));
  std::copy(q.scales.begin(), q.scales.end(), scales.mutable_data());
  return py::make_tuple(elements, scales, q.tensor_scale, lf::to_bits(q.flags));
}

py::tuple mx_dequantize(u8_array elements, u8_array scales, std::size_t rows, std::size_t cols, const std::string& fmt,
                        float tensor_scale, bool tiles) {
  lf::block_quantized q;
  q.fmt = block_format_of(fmt);
  q.layout = tiles ? lf::block_layout::tiles_2d : lf::block_layout::rows_1d;
  q.rows = rows;
  q.cols = cols;
  q.tensor_scale = tensor_scale;
  if (static_cast<std::size_t>(elements.size()) != rows * cols)
    throw py::value_error("elements has " + std::to_string(elements.size()) + " codes for a " + std::to_string(rows) +
                          " x " + std::to_string(cols) + " matrix");
  const std::size_t nscales = q.block_rows() * q.block_cols();
  if (static_cast<std::size_t>(scales.size()) != nscales)
    throw py::value_error("scales has " + std::to_string(scales.size()) + " codes; this shape has " +
                          std::to_string(nscales) + " blocks");
  q.elements.assign(elements.data(), elements.data() + elements.size());
  q.scales.assign(scales.data(), scales.data() + scales.size());
  const std::uint64_t emask = q.fmt.int_bits ? (std::uint64_t{1} << q.fmt.int_bits) - 1 : q.fmt.element.encoding_mask();
  for (std::size_t i = 0; i < q.elements.size(); ++i)
    if ((q.elements[i] & ~emask) != 0)
      throw py::value_error("elements[" + std::to_string(i) + "] = " + std::to_string(q.elements[i]) +
                            " is not an encoding of " + lf::element_name(q.fmt));
  f32_array out(static_cast<py::ssize_t>(rows * cols));
  lf::status st{};
  {
    py::gil_scoped_release release;
    st = lf::mx_dequantize(q, std::span<float>(out.mutable_data(), rows * cols));
  }
  return py::make_tuple(out, lf::to_bits(st));
}

py::list block_format_list() {
  py::list out;
  for (const auto& b : lf::named_block_formats)
    out.append(py::make_tuple(std::string(b.name), lf::element_name(b), lf::format_name(b.scale), b.block));
  return out;
}

// ---- range report ----------------------------------------------------------------------------------

py::dict report_dict(const lf::training::range_report& r) {
  py::dict d;
  d["exact_zero"] = r.exact_zero;
  d["zero"] = r.zero;
  d["subnormal"] = r.subnormal;
  d["normal"] = r.normal;
  d["overflow"] = r.overflow;
  d["nan"] = r.nan;
  d["infinity"] = r.infinity;
  d["total"] = r.total();
  d["scale"] = r.scale.value;
  if (r.min_exponent) d["min_exponent"] = *r.min_exponent; else d["min_exponent"] = py::none();
  if (r.max_exponent) d["max_exponent"] = *r.max_exponent; else d["max_exponent"] = py::none();
  return d;
}

/// The counts at scale 1 and, with `automatic`, the largest power of two that overflows nothing
/// (capped at 2^127, the largest a float32 loss scale holds); otherwise the counts at `scale`.
template <typename T>
py::dict range_report(py::array_t<T, py::array::c_style> x, const std::string& fmt, bool automatic, double scale,
                      const std::string& mode, bool ftz, bool daz) {
  const lf::format f = format_of(fmt);
  const options o = options_of(mode, false, ftz, daz, false, 0);
  if (o.e.mode == lf::rounding::stochastic)
    throw py::value_error("range_report: stochastic rounding gives no fixed class per value; use a deterministic mode");
  const std::span<const T> v(x.data(), static_cast<std::size_t>(x.size()));
  py::dict d;
  d["format"] = lf::format_name(f);
  std::optional<lf::training::range_report> one, there;
  std::optional<int> k;
  bool capped = false;
  {
    py::gil_scoped_release release;
    lf::training::range_counter c1(f, 1.0, o.e);
    c1.add(v);
    one = c1.report();
    if (automatic) {
      k = lf::training::largest_safe_scale_log2(c1, f, o.e);
      if (k && *k > 127) {
        k = 127;
        capped = true;
      }
      if (k) {
        lf::training::range_counter c2(f, std::ldexp(1.0, *k), o.e);
        c2.add(v);
        there = c2.report();
      }
    } else {
      lf::training::range_counter c2(f, scale, o.e);
      c2.add(v);
      there = c2.report();
    }
  }
  d["at_one"] = report_dict(*one);
  d["at_scale"] = there ? py::object(report_dict(*there)) : py::object(py::none());
  d["log2_scale"] = k ? py::object(py::int_(*k)) : py::object(py::none());
  d["capped"] = capped;
  return d;
}

// ---- GradScaler -------------------------------------------------------------------------------------

bool gradients_overflow(f64_array g, const std::string& fmt, float scale) {
  const lf::format f = format_of(fmt);
  const std::span<const double> v(g.data(), static_cast<std::size_t>(g.size()));
  py::gil_scoped_release release;
  return lf::training::scaled_gradients_overflow(f, v, scale);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "libfloat's compiled core (use the package `libfloat`)";
  m.attr("version") = LIBFLOAT_VERSION_STRING;
  m.def("format_info", &format_info);
  m.def("format_names", [] { return lf::known_format_names(); });
  m.def("rounding_names", [] { return std::string(lf::rounding_names_help); });
  m.def("quantize_f32", &quantize<float>);
  m.def("quantize_f64", &quantize<double>);
  m.def("encode_f32", &encode<float>);
  m.def("encode_f64", &encode<double>);
  m.def("decode", &decode);
  m.def("arith", &arith);
  m.def("model_info", &model_info);
  m.def("model_list", &model_list);
  m.def("reduce", &reduce);
  m.def("block_format_list", &block_format_list);
  m.def("mx_quantize", &mx_quantize);
  m.def("mx_dequantize", &mx_dequantize);
  m.def("range_report_f32", &range_report<float>);
  m.def("range_report_f64", &range_report<double>);
  m.def("gradients_overflow", &gradients_overflow);

  py::class_<lf::training::grad_scaler>(m, "GradScalerCore")
      .def(py::init([](double init_scale, double growth_factor, double backoff_factor, std::int64_t growth_interval,
                       bool enabled) {
        return lf::training::grad_scaler(
            lf::training::grad_scaler_options{init_scale, growth_factor, backoff_factor, growth_interval, enabled});
      }))
      .def("scale", &lf::training::grad_scaler::scale)
      .def("inverse_scale", &lf::training::grad_scaler::inverse_scale)
      .def("growth_tracker", &lf::training::grad_scaler::growth_tracker)
      .def("update", &lf::training::grad_scaler::update)
      .def("last_event",
           [](const lf::training::grad_scaler& s) { return std::string(lf::training::scaler_event_name(s.last_event())); });
}
