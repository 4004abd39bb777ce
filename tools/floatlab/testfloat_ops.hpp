// tools/floatlab/testfloat_ops.hpp: TestFloat operation names ("f16_add", "f32_to_i64", ...)
// mapped onto the library. Shared by `floatlab eval` and `floatlab check`. evaluate() is defined
// in testfloat_ops.cpp, compiled once: it instantiates every run-time operation of the library.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <libfloat/training.hpp>

namespace floatlab {

enum class op_kind {
  add, sub, mul, div, sqrt, mul_add, rem, round_to_int,
  eq, le, lt, eq_signaling, le_quiet, lt_quiet,
  convert,        // <f>_to_<g>
  to_int,         // <f>_to_{i32,i64,ui32,ui64}
  from_int,       // {i32,i64,ui32,ui64}_to_<f>
  from_dec,       // <f>_from_dec: a decimal or hex-float string, correctly rounded to <f> (lf::parse)
  to_dec,         // <f>_to_dec: an encoding printed as shortest round-trip and exact decimal
};

enum class int_type { none, i32, i64, ui32, ui64 };

/// The type of an operand or result in TestFloat's line format.
struct operand_type {
  /// text: a number written out (decimal or hex float), as <f>_from_dec reads and <f>_to_dec writes.
  enum class category { floating, integer, boolean, text };
  category cat = category::floating;
  lf::format fmt{5, 11};             // when floating
  int_type integer = int_type::none;  // when integer
  std::string name = "f16";          // TestFloat's name: f16 ... e5m2, i32 ... ui64, bool

  bool is_float() const { return cat == category::floating; }
  bool is_text() const { return cat == category::text; }
  /// Hex digits of this type in TestFloat's line format: f16/bf16 4, f32 8, f64 16, tf32 5
  /// (19-bit encoding), e4m3/e5m2 2, i32/ui32 8, i64/ui64 16, comparison results 1 ("0"/"1").
  int hex_digits() const {
    switch (cat) {
      case category::floating: return (fmt.bits() + 3) / 4;
      case category::integer: return (integer == int_type::i32 || integer == int_type::ui32) ? 8 : 16;
      case category::boolean: return 1;
      case category::text: return 0;  // not hexadecimal
    }
    return 16;
  }
  /// Largest value a field of this type may hold: an encoding of fmt.bits() bits, an integer's
  /// two's complement bit pattern, or 1 for a comparison result.
  std::uint64_t max_value() const {
    if (cat == category::boolean) return 1;
    if (cat == category::text) return 0;
    const int b = cat == category::integer ? hex_digits() * 4 : fmt.bits();
    return b == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
  }
};

struct operation {
  std::string name;
  op_kind kind;
  std::vector<operand_type> operands;
  operand_type result;
};

/// TestFloat's short format names: f16, bf16, f32, f64, tf32, e4m3, e5m2.
inline std::optional<lf::format> testfloat_format(std::string_view s) {
  if (s == "f16") return lf::binary16;
  if (s == "bf16") return lf::bfloat16;
  if (s == "f32") return lf::binary32;
  if (s == "f64") return lf::binary64;
  if (s == "tf32") return lf::tfloat32;
  if (s == "e4m3") return lf::float8_e4m3fn;
  if (s == "e5m2") return lf::float8_e5m2;
  return std::nullopt;
}

inline std::optional<int_type> testfloat_int(std::string_view s) {
  if (s == "i32") return int_type::i32;
  if (s == "i64") return int_type::i64;
  if (s == "ui32") return int_type::ui32;
  if (s == "ui64") return int_type::ui64;
  return std::nullopt;
}

inline constexpr std::string_view operation_help =
    "<f>_add <f>_sub <f>_mul <f>_div <f>_sqrt <f>_mulAdd <f>_rem <f>_roundToInt "
    "<f>_eq <f>_le <f>_lt <f>_eq_signaling <f>_le_quiet <f>_lt_quiet "
    "<f>_to_<g> <f>_to_i32 <f>_to_i64 <f>_to_ui32 <f>_to_ui64 i32_to_<f> i64_to_<f> ui32_to_<f> ui64_to_<f> "
    "<f>_from_dec <f>_to_dec; "
    "<f>,<g> in f16 bf16 f32 f64 tf32 e4m3 e5m2";

/// Parses an operation name; nullopt if it is not one.
inline std::optional<operation> parse_operation(std::string_view name) {
  operation op;
  op.name = std::string(name);
  const auto us = name.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  const std::string_view head = name.substr(0, us), rest = name.substr(us + 1);
  auto fmt_operand = [](lf::format f, std::string_view n) {
    operand_type t;
    t.fmt = f;
    t.name = std::string(n);
    return t;
  };
  auto int_operand = [](int_type i, std::string_view n) {
    operand_type t;
    t.cat = operand_type::category::integer;
    t.integer = i;
    t.name = std::string(n);
    return t;
  };
  operand_type boolean;
  boolean.cat = operand_type::category::boolean;
  boolean.name = "bool";
  operand_type text;
  text.cat = operand_type::category::text;
  text.name = "decimal";

  if (auto it = testfloat_int(head)) {  // i32_to_f16
    if (rest.substr(0, 3) != "to_") return std::nullopt;
    auto g = testfloat_format(rest.substr(3));
    if (!g) return std::nullopt;
    op.kind = op_kind::from_int;
    op.operands = {int_operand(*it, head)};
    op.result = fmt_operand(*g, rest.substr(3));
    return op;
  }
  auto f = testfloat_format(head);
  if (!f) return std::nullopt;
  const operand_type F = fmt_operand(*f, head);
  struct simple { std::string_view n; op_kind k; int arity; bool boolean_result; };
  constexpr simple table[] = {
      {"add", op_kind::add, 2, false}, {"sub", op_kind::sub, 2, false}, {"mul", op_kind::mul, 2, false},
      {"div", op_kind::div, 2, false}, {"sqrt", op_kind::sqrt, 1, false}, {"mulAdd", op_kind::mul_add, 3, false},
      {"rem", op_kind::rem, 2, false}, {"roundToInt", op_kind::round_to_int, 1, false},
      {"eq", op_kind::eq, 2, true}, {"le", op_kind::le, 2, true}, {"lt", op_kind::lt, 2, true},
      {"eq_signaling", op_kind::eq_signaling, 2, true}, {"le_quiet", op_kind::le_quiet, 2, true},
      {"lt_quiet", op_kind::lt_quiet, 2, true},
  };
  for (const auto& s : table) {
    if (rest == s.n) {
      op.kind = s.k;
      op.operands.assign(static_cast<std::size_t>(s.arity), F);
      op.result = s.boolean_result ? boolean : F;
      return op;
    }
  }
  if (rest == "from_dec") {  // f16_from_dec: "0.1" -> 2E66
    op.kind = op_kind::from_dec;
    op.operands = {text};
    op.result = F;
    return op;
  }
  if (rest == "to_dec") {  // f16_to_dec: 2E66 -> "0.1 0.0999755859375"
    op.kind = op_kind::to_dec;
    op.operands = {F};
    op.result = text;
    return op;
  }
  if (rest.substr(0, 3) == "to_") {
    const std::string_view tgt = rest.substr(3);
    op.operands = {F};
    if (auto it = testfloat_int(tgt)) {
      op.kind = op_kind::to_int;
      op.result = int_operand(*it, tgt);
      return op;
    }
    if (auto g = testfloat_format(tgt)) {
      op.kind = op_kind::convert;
      op.result = fmt_operand(*g, tgt);
      return op;
    }
  }
  return std::nullopt;
}

/// Options that change how an operation is evaluated.
struct eval_options {
  lf::env env{};
  bool exact = false;  ///< roundToInt and conversions to integer raise inexact (TestFloat -exact)
};

/// Evaluates one case. Operands are raw encodings (integers as two's complement bit patterns).
/// <f>_from_dec and <f>_to_dec have text on one side: see parse_decimal and print_decimal.
std::uint64_t evaluate(const operation& op, std::span<const std::uint64_t> in, const eval_options& o,
                       lf::status& st);

/// <f>_from_dec: `text` correctly rounded to the result format under o.env (lf::parse: decimal of
/// any length, hex float, inf/infinity/nan/snan, any case), flags ORed into st. A malformed string
/// gives the error (then no flag is raised and the value is meaningless).
inline lf::parsed<lf::bits_t> parse_decimal(const operation& op, std::string_view text, const eval_options& o,
                                            lf::status& st) {
  return lf::parse(op.result.fmt, text, o.env, &st);
}

/// <f>_to_dec: the encoding's shortest round-trip text and its exact decimal expansion. Exact, so
/// no rounding option applies and no flag is raised.
struct decimal_texts {
  std::string shortest, exact;
};
inline decimal_texts print_decimal(const operation& op, std::uint64_t bits) {
  const lf::format f = op.operands.front().fmt;
  return {lf::to_shortest(f, bits), lf::to_exact_decimal(f, bits)};
}

/// True when `r` is a NaN of the result type (integers and booleans never are).
inline bool result_is_nan(const operation& op, std::uint64_t r) {
  return op.result.is_float() && lf::classify(op.result.fmt, r) <= lf::fp_class::quiet_nan;
}

}  // namespace floatlab
