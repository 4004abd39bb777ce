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

/// How a format encodes what is not an ordinary finite number: infinities, NaNs, negative zero.
enum class nonfinite : std::uint8_t {
  /// IEEE 754-2019 §3.4: exponent field all ones encodes infinity (fraction 0) or NaN (fraction
  /// != 0; the fraction's most significant bit set means quiet, §6.2.1).
  ieee,
  /// OCP 8-bit FP spec v1.0 "fn" layout (E4M3): there is no infinity; only exponent and
  /// fraction both all ones is NaN (one encoding per sign). Every other encoding with the
  /// all-ones exponent is finite, which extends emax by one. An exponent-only format (precision
  /// 1, OCP MX v1.0 §5.4.1 E8M0) has this kind too: its NaN is the all-ones exponent.
  nan_only,
  /// No infinity and no NaN: every encoding is a finite number (OCP MX v1.0 §5.3: FP6 E3M2 and
  /// E2M3, FP4 E2M1; LLVM APFloat calls it fltNonfiniteBehavior::FiniteOnly). What stands in for
  /// the missing values is a choice of this library, following the OCP MX spec's conversions,
  /// which clamp to the largest magnitude (§6.3): an overflow gives max finite (with overflow and
  /// inexact) in every rounding mode, and an operation or conversion whose IEEE result is a NaN
  /// or an infinity gives max finite of the result's sign, raising invalid (or divide_by_zero for
  /// x/0, as IEEE does).
  finite_only,
  /// "fnuz" (Graphcore, arXiv 2206.02915; AMD CDNA3 MI300; LLVM Float8E4M3FNUZ, ml_dtypes
  /// float8_e4m3fnuz): no infinity and no negative zero; the one NaN is the negative-zero
  /// encoding 1.0...0.0...0 (0x80 for 8 bits). Every other encoding is finite. A result that would
  /// be -0 is +0; an overflow that IEEE sends to infinity gives the NaN. The bias is one more than
  /// the IEEE one (2^(w-1)) unless the format says otherwise (E4M3B11FNUZ: 11).
  fnuz,
};

/// Largest precision the core supports: products of two significands must fit the core's
/// 128-bit integers with room to align an addend (fma), so p <= 53 (binary64).
inline constexpr int max_precision = 53;

/// A format: exponent width w, precision p, non-finite behaviour and exponent bias. Everything
/// else is derived. One rule covers exponent-only formats: precision 1 (no fraction field) means
/// the OCP MX E8M0 layout, unsigned (no sign bit), with no zero and no subnormals; every exponent
/// field below the all-ones NaN is a power of two 2^(field - bias), the all-zero field included.
struct format {
  int exponent_bits;  ///< w, width of the biased exponent field
  int precision;      ///< p, significand digits including the hidden bit (IEEE 754 "p")
  nonfinite kind;
  int exponent_bias;  ///< the bias: 2^(w-1) - 1 unless a constructor is given another

  /// The bias a format of this kind has unless it says otherwise: IEEE 754-2019 §3.3's
  /// 2^(w-1) - 1, and 2^(w-1) for fnuz formats (ml_dtypes float8_e4m3fnuz 8, float8_e5m2fnuz 16).
  static constexpr int standard_bias(int w, nonfinite k) {
    if (w < 1 || w > 30) return 0;
    return k == nonfinite::fnuz ? 1 << (w - 1) : (1 << (w - 1)) - 1;
  }

  /// format{}: no format (every field zero, valid() false).
  constexpr format() : exponent_bits(0), precision(0), kind(nonfinite::ieee), exponent_bias(0) {}
  constexpr format(int w, int p, nonfinite k = nonfinite::ieee)
      : exponent_bits(w), precision(p), kind(k), exponent_bias(standard_bias(w, k)) {}
  constexpr format(int w, int p, nonfinite k, int bias) : exponent_bits(w), precision(p), kind(k), exponent_bias(bias) {}

  /// Exponent-only (precision 1): unsigned, no zero, no subnormals (see the struct comment).
  constexpr bool exponent_only() const { return precision == 1; }
  constexpr bool has_sign() const { return !exponent_only(); }
  constexpr bool has_zero() const { return !exponent_only(); }
  constexpr bool has_subnormals() const { return !exponent_only(); }
  constexpr bool has_negative_zero() const { return has_sign() && kind != nonfinite::fnuz; }
  constexpr bool has_nan() const { return kind != nonfinite::finite_only; }

  /// Width of the encoding: sign + exponent + fraction.
  constexpr int bits() const { return (has_sign() ? 1 : 0) + exponent_bits + precision - 1; }
  constexpr int fraction_bits() const { return precision - 1; }
  constexpr int bias() const { return exponent_bias; }
  /// The exponent of the smallest normal: field 1 (field 0 for an exponent-only format).
  constexpr int emin() const { return (exponent_only() ? 0 : 1) - bias(); }
  /// The exponent of the top binade that holds finite values: the all-ones field is an ordinary
  /// binade in every kind but ieee (for nan_only it holds the NaN as its last encoding), except in
  /// an exponent-only format, where that field is the NaN alone (E8M0: emax = 254 - 127 = 127).
  constexpr int emax() const {
    const int all_ones = (1 << exponent_bits) - 1;
    return (kind == nonfinite::ieee || exponent_only() ? all_ones - 1 : all_ones) - bias();
  }
  constexpr bool has_infinity() const { return kind == nonfinite::ieee; }
  /// Signaling NaNs need a fraction bit besides the quiet bit.
  constexpr bool has_signaling_nan() const { return kind == nonfinite::ieee && precision >= 3; }

  constexpr std::uint64_t sign_mask() const { return has_sign() ? std::uint64_t{1} << (bits() - 1) : 0; }
  constexpr std::uint64_t fraction_mask() const { return (std::uint64_t{1} << fraction_bits()) - 1; }
  constexpr std::uint64_t exponent_field_max() const { return (std::uint64_t{1} << exponent_bits) - 1; }
  constexpr std::uint64_t exponent_mask() const { return exponent_field_max() << fraction_bits(); }
  constexpr std::uint64_t encoding_mask() const {
    return bits() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits()) - 1;
  }
  /// Most significant fraction bit: set in a quiet NaN (IEEE 754-2019 §6.2.1).
  constexpr std::uint64_t quiet_bit() const { return precision >= 2 ? std::uint64_t{1} << (fraction_bits() - 1) : 0; }

  /// The largest finite encoding, positive: below the infinity (ieee), below the NaN (nan_only),
  /// or all ones (finite_only, fnuz).
  constexpr std::uint64_t max_finite_bits() const {
    switch (kind) {
      case nonfinite::ieee: return exponent_mask() - 1;
      case nonfinite::nan_only: return (exponent_mask() | fraction_mask()) - 1;
      case nonfinite::finite_only:
      case nonfinite::fnuz: break;
    }
    return exponent_mask() | fraction_mask();
  }
  /// The quiet NaN of the given sign with payload zero: IEEE S.1..1.10..0; nan_only S.1..1.1..1;
  /// fnuz's one NaN 1.0..0.0..0 whatever the sign. A finite_only format has none: what stands in
  /// for it is max finite of that sign (see nonfinite::finite_only).
  constexpr std::uint64_t nan_bits(bool negative) const {
    const std::uint64_t s = negative ? sign_mask() : 0;
    switch (kind) {
      case nonfinite::ieee: return s | exponent_mask() | quiet_bit();
      case nonfinite::nan_only: return s | exponent_mask() | fraction_mask();
      case nonfinite::finite_only: return s | max_finite_bits();
      case nonfinite::fnuz: break;
    }
    return sign_mask();
  }
  /// Positive infinity for IEEE formats; otherwise what stands in for it, ORed with a sign by the
  /// callers: the positive NaN (nan_only), the NaN (fnuz, whose NaN is the sign bit), max finite
  /// (finite_only).
  constexpr std::uint64_t infinity_bits() const {
    switch (kind) {
      case nonfinite::ieee: return exponent_mask();
      case nonfinite::nan_only: return exponent_mask() | fraction_mask();
      case nonfinite::finite_only: return max_finite_bits();
      case nonfinite::fnuz: break;
    }
    return sign_mask();
  }
  /// 2^emin: the smallest positive normal (the all-zero encoding of an exponent-only format).
  constexpr std::uint64_t min_normal_bits() const { return exponent_only() ? 0 : std::uint64_t{1} << fraction_bits(); }
  /// 2^(emin - p + 1): the smallest positive subnormal (min normal where there are none).
  constexpr std::uint64_t min_subnormal_bits() const { return exponent_only() ? 0 : 1; }
  /// The NaN an invalid operation produces. This library follows x86 SSE (and so TestFloat's
  /// expected results): sign set, quiet bit set, payload zero, e.g. binary16 0xFE00,
  /// binary32 0xFFC00000. For nan_only formats: the negative NaN, e.g. E4M3 0xFF; fnuz: 0x80;
  /// exponent-only: all ones; finite_only: -max finite, standing in for the missing NaN.
  constexpr std::uint64_t default_nan_bits() const { return nan_bits(true); }

  /// Parameters the core can handle: 2 <= w <= 15, 2 <= p <= 53, at most 64 bits, and the
  /// exponent range must leave room for normal numbers; precision 1 only as an exponent-only
  /// nan_only format (E8M0). The bias keeps emin and emax within the core's exponent range.
  constexpr bool valid() const {
    if (exponent_bits < 2 || exponent_bits > 15 || precision < 1 || precision > max_precision || bits() > 64)
      return false;
    if (precision == 1 && kind != nonfinite::nan_only) return false;
    if (kind == nonfinite::ieee && precision < 2) return false;
    return exponent_bias >= -(1 << 15) && exponent_bias <= (1 << 15) && emax() >= emin();
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
/// IEEE-style E4M3 with infinities and NaNs (ml_dtypes float8_e4m3; not the OCP E4M3): bias 7,
/// max 0.1110.111 = 1.875 * 2^7 = 240.
inline constexpr format float8_e4m3{4, 4, nonfinite::ieee};
/// IEEE-style E3M4 (ml_dtypes float8_e3m4): bias 3, max 0.110.1111 = 1.9375 * 2^3 = 15.5.
inline constexpr format float8_e3m4{3, 5, nonfinite::ieee};
/// FNUZ E4M3 (ml_dtypes float8_e4m3fnuz; AMD CDNA3 FP8; Graphcore, arXiv 2206.02915): bias 8,
/// max 0.1111.111 = 1.875 * 2^7 = 240, NaN 0x80.
inline constexpr format float8_e4m3fnuz{4, 4, nonfinite::fnuz};
/// FNUZ E5M2 (ml_dtypes float8_e5m2fnuz; AMD CDNA3 BF8): bias 16, max 0.11111.11 = 1.75 * 2^15 = 57344.
inline constexpr format float8_e5m2fnuz{5, 3, nonfinite::fnuz};
/// FNUZ E4M3 with bias 11 (ml_dtypes float8_e4m3b11fnuz): max 0.1111.111 = 1.875 * 2^4 = 30.
inline constexpr format float8_e4m3b11fnuz{4, 4, nonfinite::fnuz, 11};
/// OCP Microscaling (MX) v1.0 §5.3 FP6 E3M2: bias 3, finite only, max 0.111.11 = 1.75 * 2^4 = 28.
inline constexpr format float6_e3m2fn{3, 3, nonfinite::finite_only};
/// OCP MX v1.0 §5.3 FP6 E2M3: bias 1, finite only, max 0.11.111 = 1.875 * 2^2 = 7.5.
inline constexpr format float6_e2m3fn{2, 4, nonfinite::finite_only};
/// OCP MX v1.0 §5.3 FP4 E2M1: bias 1, finite only; values 0, 0.5, 1, 1.5, 2, 3, 4, 6.
inline constexpr format float4_e2m1fn{2, 2, nonfinite::finite_only};
/// OCP MX v1.0 §5.4.1 E8M0, the MX scale: unsigned, exponent only, bias 127; 2^-127 .. 2^127,
/// NaN 0xFF, no zero, no infinity.
inline constexpr format float8_e8m0fnu{8, 1, nonfinite::nan_only};

static_assert(binary16.bits() == 16 && binary16.emax() == 15 && binary16.emin() == -14);
static_assert(bfloat16.bits() == 16 && bfloat16.emax() == 127);
static_assert(binary32.bits() == 32 && binary64.bits() == 64 && tfloat32.bits() == 19);
static_assert(float8_e4m3fn.bits() == 8 && float8_e4m3fn.emax() == 8 && float8_e4m3fn.emin() == -6);
static_assert(float8_e4m3fn.max_finite_bits() == 0x7E);  // 0.1111.110 = 1.75 * 2^8 = 448
static_assert(float8_e5m2.max_finite_bits() == 0x7B);    // 0.11110.11 = 1.75 * 2^15 = 57344
static_assert(binary16.default_nan_bits() == 0xFE00 && binary32.default_nan_bits() == 0xFFC00000);
static_assert(float8_e4m3.max_finite_bits() == 0x77 && float8_e4m3.emax() == 7);  // 0.1110.111 = 240
static_assert(float8_e4m3fnuz.bias() == 8 && float8_e4m3fnuz.emax() == 7 && float8_e4m3fnuz.emin() == -7);
static_assert(float8_e4m3fnuz.max_finite_bits() == 0x7F && float8_e4m3fnuz.default_nan_bits() == 0x80);
static_assert(float8_e5m2fnuz.bias() == 16 && float8_e5m2fnuz.emax() == 15 && float8_e5m2fnuz.emin() == -15);
static_assert(float8_e4m3b11fnuz.emax() == 4 && float8_e4m3b11fnuz.emin() == -10);
static_assert(float6_e3m2fn.bits() == 6 && float6_e3m2fn.emax() == 4 && float6_e3m2fn.max_finite_bits() == 0x1F);
static_assert(float6_e2m3fn.bits() == 6 && float6_e2m3fn.emax() == 2 && float6_e2m3fn.emin() == 0);
static_assert(float4_e2m1fn.bits() == 4 && float4_e2m1fn.max_finite_bits() == 0x7);  // 0.11.1 = 1.5 * 2^2 = 6
static_assert(float8_e8m0fnu.bits() == 8 && float8_e8m0fnu.sign_mask() == 0 && float8_e8m0fnu.emin() == -127);
static_assert(float8_e8m0fnu.emax() == 127);  // 0xFE = 2^(254 - 127)
static_assert(float8_e8m0fnu.max_finite_bits() == 0xFE && float8_e8m0fnu.default_nan_bits() == 0xFF);  // 2^127, NaN
static_assert(float8_e8m0fnu.min_normal_bits() == 0x00);  // 2^(0 - 127)

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
    {{"e4m3fnuz", "fp8_e4m3fnuz", "float8_e4m3fnuz", {}}, float8_e4m3fnuz, "FNUZ FP8 E4M3 (ml_dtypes float8_e4m3fnuz, AMD CDNA3)"},
    {{"e5m2fnuz", "fp8_e5m2fnuz", "float8_e5m2fnuz", {}}, float8_e5m2fnuz, "FNUZ FP8 E5M2 (ml_dtypes float8_e5m2fnuz, AMD CDNA3)"},
    {{"e4m3b11fnuz", "fp8_e4m3b11fnuz", "float8_e4m3b11fnuz", {}}, float8_e4m3b11fnuz, "FNUZ FP8 E4M3, bias 11 (ml_dtypes float8_e4m3b11fnuz)"},
    {{"e4m3ieee", "fp8_e4m3ieee", "float8_e4m3", {}}, float8_e4m3, "IEEE-style E4M3 with infinities (ml_dtypes float8_e4m3)"},
    {{"e3m4", "fp8_e3m4", "float8_e3m4", {}}, float8_e3m4, "IEEE-style E3M4 (ml_dtypes float8_e3m4)"},
    {{"fp6_e3m2", "float6_e3m2fn", "mxfp6_e3m2", {}}, float6_e3m2fn, "OCP MX v1.0 FP6 E3M2"},
    {{"fp6_e2m3", "float6_e2m3fn", "mxfp6_e2m3", {}}, float6_e2m3fn, "OCP MX v1.0 FP6 E2M3"},
    {{"fp4", "fp4_e2m1", "float4_e2m1fn", "mxfp4"}, float4_e2m1fn, "OCP MX v1.0 FP4 E2M1"},
    {{"e8m0", "fp8_e8m0", "float8_e8m0fnu", "e8m0fnu"}, float8_e8m0fnu, "OCP MX v1.0 E8M0 scale"},
};

/// The custom name's suffix for a kind: "" (ieee), "fn", "fo" (finite only), "fnuz".
constexpr std::string_view kind_suffix(nonfinite k) {
  switch (k) {
    case nonfinite::ieee: return "";
    case nonfinite::nan_only: return "fn";
    case nonfinite::finite_only: return "fo";
    case nonfinite::fnuz: return "fnuz";
  }
  return "";
}

/// Canonical short name of a format ("fp16", ...), or "eXmY[bB][fn|fo|fnuz]" for a custom one
/// (bB only where the bias is not the kind's standard one).
inline std::string format_name(const format& f) {
  for (const auto& n : named_formats)
    if (n.fmt == f) return std::string(n.names[0]);
  std::string out = "e";  // appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "e" + string
  out += std::to_string(f.exponent_bits);
  out += 'm';
  out += std::to_string(f.fraction_bits());
  if (f.bias() != format::standard_bias(f.exponent_bits, f.kind)) {
    out += 'b';
    out += std::to_string(f.bias());
  }
  out += kind_suffix(f.kind);
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
  return out + "; or eXmY (IEEE-style custom), eXmYfn (no infinity, OCP-style NaN), eXmYfo (finite only), "
               "eXmYfnuz (NaN at -0), with an optional bias: eXmYbB...";
}

/// Looks a format up by name: "fp16", "binary16", "bf16", "e4m3", ..., or a custom
/// "eXmY[bB][fn|fo|fnuz]" with X exponent bits, Y fraction bits (p = Y + 1), an optional bias B
/// and a kind suffix (none: IEEE). On failure returns nullopt and, when `error` is given, stores a
/// message that lists the accepted names.
inline std::optional<format> format_by_name(std::string_view name, std::string* error = nullptr) {
  for (const auto& n : named_formats)
    for (auto s : n.names)
      if (!s.empty() && s == name) return n.fmt;
  // Custom: e<digits>m<digits>[b<digits>][fn|fo|fnuz]
  auto parse_uint = [](std::string_view& s, int& out) {
    std::size_t i = 0;
    out = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 3) out = out * 10 + (s[i++] - '0');
    s.remove_prefix(i);
    return i > 0;
  };
  std::string_view s = name;
  int e = 0, m = 0, b = 0;
  if (!s.empty() && s.front() == 'e') {
    s.remove_prefix(1);
    if (parse_uint(s, e) && !s.empty() && s.front() == 'm') {
      s.remove_prefix(1);
      if (parse_uint(s, m)) {
        bool ok = true, explicit_bias = false;
        if (!s.empty() && s.front() == 'b') {
          s.remove_prefix(1);
          ok = parse_uint(s, b);
          explicit_bias = true;
        }
        std::optional<nonfinite> k;
        for (nonfinite c : {nonfinite::ieee, nonfinite::nan_only, nonfinite::finite_only, nonfinite::fnuz})
          if (s == kind_suffix(c)) k = c;
        if (ok && k) {
          const format f = explicit_bias ? format{e, m + 1, *k, b} : format{e, m + 1, *k};
          if (f.valid()) return f;
          if (error)
            *error = "format '" + std::string(name) +
                     "' is out of range: need 2 <= exponent bits <= 15, 1 <= fraction bits <= 52 (0 only "
                     "as an fn exponent-only format like e8m0), at most 64 bits in all, and a bias that "
                     "leaves normal numbers";
          return std::nullopt;
        }
      }
    }
  }
  if (error) *error = "unknown format '" + std::string(name) + "' (known: " + known_format_names() + ")";
  return std::nullopt;
}

}  // namespace lf
