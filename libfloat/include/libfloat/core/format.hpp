// libfloat/core/format.hpp: a floating-point format is data.
//
// A format is {exponent width, precision p, non-finite behaviour}. Everything else (bias, emin,
// emax, masks, max finite, ...) is derived, so a custom format is one line and the same object is
// a C++20 template argument (lf::fp<lf::binary16>) and a run-time value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lf {

/// How the all-ones exponent field is used.
enum class nonfinite : std::uint8_t {
  /// IEEE 754-2019 §3.4: exponent field all ones encodes infinity (fraction 0) or NaN (fraction
  /// != 0; the fraction's most significant bit set means quiet, §6.2.1).
  ieee,
  /// OCP 8-bit FP spec v1.0 "fn" layout (E4M3): there is no infinity; only exponent and
  /// fraction both all ones is NaN (one encoding per sign). Every other encoding with the
  /// all-ones exponent is finite, which extends emax by one.
  nan_only,
};

/// Largest precision the core supports: products of two significands must fit the core's
/// 128-bit integers with room to align an addend (fma), so p <= 53 (binary64).
inline constexpr int max_precision = 53;

struct format {
  int exponent_bits;  ///< w, width of the biased exponent field
  int precision;      ///< p, significand digits including the hidden bit (IEEE 754 "p")
  nonfinite kind = nonfinite::ieee;

  /// Width of the encoding: sign + exponent + fraction.
  constexpr int bits() const { return 1 + exponent_bits + precision - 1; }
  constexpr int fraction_bits() const { return precision - 1; }
  constexpr int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  constexpr int emin() const { return 1 - bias(); }
  constexpr int emax() const {
    const int all_ones = (1 << exponent_bits) - 1;
    return (kind == nonfinite::ieee ? all_ones - 1 : all_ones) - bias();
  }
  constexpr bool has_infinity() const { return kind == nonfinite::ieee; }
  /// Signaling NaNs need a fraction bit besides the quiet bit.
  constexpr bool has_signaling_nan() const { return kind == nonfinite::ieee && precision >= 3; }

  constexpr std::uint64_t sign_mask() const { return std::uint64_t{1} << (bits() - 1); }
  constexpr std::uint64_t fraction_mask() const { return (std::uint64_t{1} << fraction_bits()) - 1; }
  constexpr std::uint64_t exponent_field_max() const { return (std::uint64_t{1} << exponent_bits) - 1; }
  constexpr std::uint64_t exponent_mask() const { return exponent_field_max() << fraction_bits(); }
  constexpr std::uint64_t encoding_mask() const {
    return bits() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits()) - 1;
  }
  /// Most significant fraction bit: set in a quiet NaN (IEEE 754-2019 §6.2.1).
  constexpr std::uint64_t quiet_bit() const { return std::uint64_t{1} << (fraction_bits() - 1); }

  /// Positive infinity for IEEE formats; for nan_only formats the positive NaN.
  constexpr std::uint64_t infinity_bits() const {
    return kind == nonfinite::ieee ? exponent_mask() : exponent_mask() | fraction_mask();
  }
  /// The largest finite encoding, positive.
  constexpr std::uint64_t max_finite_bits() const {
    return kind == nonfinite::ieee ? exponent_mask() - 1 : (exponent_mask() | fraction_mask()) - 1;
  }
  /// 2^emin: the smallest positive normal.
  constexpr std::uint64_t min_normal_bits() const { return std::uint64_t{1} << fraction_bits(); }
  /// 2^(emin - p + 1): the smallest positive subnormal.
  constexpr std::uint64_t min_subnormal_bits() const { return 1; }
  /// The NaN an invalid operation produces. This library follows x86 SSE (and so TestFloat's
  /// expected results): sign set, quiet bit set, payload zero, e.g. binary16 0xFE00,
  /// binary32 0xFFC00000. For nan_only formats: the negative NaN, e.g. E4M3 0xFF.
  constexpr std::uint64_t default_nan_bits() const {
    return kind == nonfinite::ieee ? sign_mask() | exponent_mask() | quiet_bit()
                                   : sign_mask() | exponent_mask() | fraction_mask();
  }

  /// Parameters the core can handle: 2 <= w <= 15, 2 <= p <= 53, at most 64 bits, and the
  /// exponent range must leave room for normal numbers.
  constexpr bool valid() const {
    return exponent_bits >= 2 && exponent_bits <= 15 && precision >= 2 &&
           precision <= max_precision && bits() <= 64 &&
           (kind == nonfinite::ieee || exponent_bits >= 2);
  }

  friend constexpr bool operator==(const format&, const format&) = default;
};

// The named formats. Each is one line of data; the comment cites where the parameters come from.

/// IEEE 754-2019 §3.6 binary16: w = 5, p = 11, max 65504, min normal 2^-14, min subnormal 2^-24.
inline constexpr format binary16{5, 11, nonfinite::ieee};
/// bfloat16 (Google Brain; Intel BF16 spec; PyTorch c10::BFloat16): binary32's exponent, p = 8.
inline constexpr format bfloat16{8, 8, nonfinite::ieee};
/// IEEE 754-2019 §3.6 binary32: w = 8, p = 24.
inline constexpr format binary32{8, 24, nonfinite::ieee};
/// IEEE 754-2019 §3.6 binary64: w = 11, p = 53.
inline constexpr format binary64{11, 53, nonfinite::ieee};
/// NVIDIA TensorFloat-32 (A100 whitepaper): binary32's exponent with p = 11. The encoding is the
/// 19 significant bits (sign | 8 | 10); in memory NVIDIA keeps it in a 32-bit word in binary32
/// layout with the low 13 bits ignored (see lf::tf32 helpers in fp.hpp).
inline constexpr format tfloat32{8, 11, nonfinite::ieee};
/// OCP 8-bit Floating Point Specification v1.0, E4M3: bias 7, no infinity, NaN = S.1111.111,
/// max finite S.1111.110 = 448, min normal 2^-6, min subnormal 2^-9.
inline constexpr format float8_e4m3fn{4, 4, nonfinite::nan_only};
/// OCP 8-bit Floating Point Specification v1.0, E5M2: IEEE-style, bias 15, max 57344.
inline constexpr format float8_e5m2{5, 3, nonfinite::ieee};

static_assert(binary16.bits() == 16 && binary16.emax() == 15 && binary16.emin() == -14);
static_assert(bfloat16.bits() == 16 && bfloat16.emax() == 127);
static_assert(binary32.bits() == 32 && binary64.bits() == 64 && tfloat32.bits() == 19);
static_assert(float8_e4m3fn.bits() == 8 && float8_e4m3fn.emax() == 8 && float8_e4m3fn.emin() == -6);
static_assert(float8_e4m3fn.max_finite_bits() == 0x7E);  // 0.1111.110 = 1.75 * 2^8 = 448
static_assert(float8_e5m2.max_finite_bits() == 0x7B);    // 0.11110.11 = 1.75 * 2^15 = 57344
static_assert(binary16.default_nan_bits() == 0xFE00 && binary32.default_nan_bits() == 0xFFC00000);

/// A named format and its spellings; the first spelling is the canonical short name.
struct named_format {
  std::string_view names[4];
  format fmt;
  std::string_view citation;
};

inline constexpr named_format named_formats[] = {
    {{"fp16", "binary16", "f16", "half"}, binary16, "IEEE 754-2019 binary16"},
    {{"bf16", "bfloat16", "bfloat", {}}, bfloat16, "bfloat16 (Intel BF16 spec, PyTorch c10::BFloat16)"},
    {{"fp32", "binary32", "f32", "float"}, binary32, "IEEE 754-2019 binary32"},
    {{"fp64", "binary64", "f64", "double"}, binary64, "IEEE 754-2019 binary64"},
    {{"tf32", "tfloat32", {}, {}}, tfloat32, "NVIDIA TensorFloat-32 (A100 whitepaper)"},
    {{"e4m3", "fp8_e4m3", "float8_e4m3fn", "e4m3fn"}, float8_e4m3fn, "OCP FP8 v1.0 E4M3"},
    {{"e5m2", "fp8_e5m2", "float8_e5m2", {}}, float8_e5m2, "OCP FP8 v1.0 E5M2"},
};

/// Canonical short name of a format ("fp16", ...), or "eXmY" / "eXmYfn" for a custom one.
inline std::string format_name(const format& f) {
  for (const auto& n : named_formats)
    if (n.fmt == f) return std::string(n.names[0]);
  std::string out = "e";  // appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "e" + string
  out += std::to_string(f.exponent_bits);
  out += 'm';
  out += std::to_string(f.fraction_bits());
  if (f.kind == nonfinite::nan_only) out += "fn";
  return out;
}

/// The names format_by_name accepts, for help texts and error messages.
inline std::string known_format_names() {
  std::string out;
  for (const auto& n : named_formats) {
    if (!out.empty()) out += ", ";
    bool first = true;
    for (auto s : n.names) {
      if (s.empty()) continue;
      out += first ? "" : "|";
      out += s;
      first = false;
    }
  }
  return out + "; or eXmY (IEEE-style custom) / eXmYfn (no infinity, OCP-style NaN)";
}

/// Looks a format up by name: "fp16", "binary16", "bf16", "e4m3", ..., or a custom "eXmY" /
/// "eXmYfn" with X exponent bits and Y fraction bits (p = Y + 1). On failure returns nullopt
/// and, when `error` is given, stores a message that lists the accepted names.
inline std::optional<format> format_by_name(std::string_view name, std::string* error = nullptr) {
  for (const auto& n : named_formats)
    for (auto s : n.names)
      if (!s.empty() && s == name) return n.fmt;
  // Custom: e<digits>m<digits>[fn]
  auto parse_uint = [](std::string_view& s, int& out) {
    std::size_t i = 0;
    out = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 3) out = out * 10 + (s[i++] - '0');
    s.remove_prefix(i);
    return i > 0;
  };
  std::string_view s = name;
  int e = 0, m = 0;
  if (!s.empty() && s.front() == 'e') {
    s.remove_prefix(1);
    if (parse_uint(s, e) && !s.empty() && s.front() == 'm') {
      s.remove_prefix(1);
      if (parse_uint(s, m)) {
        nonfinite k = nonfinite::ieee;
        bool ok = s.empty();
        if (s == "fn") {
          k = nonfinite::nan_only;
          ok = true;
        }
        format f{e, m + 1, k};
        if (ok && f.valid()) return f;
        if (ok && error)
          *error = "format '" + std::string(name) +
                   "' is out of range: need 2 <= exponent bits <= 15, 1 <= fraction bits <= 52, "
                   "at most 64 bits in all";
        if (ok) return std::nullopt;
      }
    }
  }
  if (error) *error = "unknown format '" + std::string(name) + "' (known: " + known_format_names() + ")";
  return std::nullopt;
}

}  // namespace lf
