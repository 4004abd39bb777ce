// tools/floatlab/testfloat_io.hpp: Berkeley TestFloat's line format, read and written, and the
// options `floatlab eval` and `floatlab check` share.
//
// A TestFloat line: the operands, the result and the flags, uppercase hex separated by spaces,
// each field as wide as its type (operand_type::hex_digits), flags 2 digits (SoftFloat's values:
// 01 inexact, 02 underflow, 04 overflow, 08 infinite, 10 invalid), e.g. f16_add: "3C00 3C00 4000 00".
// The decimal operations extend it with text fields: <f>_from_dec reads a number written out
// ("0.1 2E66 01": string, result, flags), <f>_to_dec writes one ("2E66 0.1 0.0999755859375":
// encoding, shortest, exact; no flags, the texts are exact).
#pragma once

#include <array>
#include <charconv>
#include <initializer_list>
#include <vector>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common.hpp"
#include "explore.hpp"  // json_writer, hex_digits, flag_names
#include "testfloat_ops.hpp"

namespace floatlab {

/// What eval and check both take: the operation, how it rounds, TestFloat's -exact, the input.
struct testfloat_options {
  std::string operation;
  rounding_options rounding;
  bool exact = false;
  std::string input = "-";
  bool json = false;
};

inline void add_testfloat_options(CLI::App& cmd, testfloat_options& o) {
  cmd.add_option("OPERATION", o.operation,
                 "TestFloat operation: " + std::string(operation_help))
      ->required();
  add_rounding_options(cmd, o.rounding);
  cmd.add_flag("--exact", o.exact,
               "roundToInt and conversions to integer raise inexact when the value changes (TestFloat's -exact)");
  cmd.add_flag("--json", o.json, "Machine-readable output (schema in the footer below)");
  cmd.add_option("-i,--input", o.input, "Read the cases from FILE ('-' is stdin)")
      ->type_name("FILE")
      ->capture_default_str();
}

inline operation operation_or_throw(const std::string& name) {
  if (auto op = parse_operation(name)) return *op;
  throw usage_error("unknown operation '" + name + "' (accepted: " + std::string(operation_help) + ")");
}

/// "f16 f16": the operand types of op, for messages.
inline std::string operand_list(const operation& op) {
  std::string s;
  for (const auto& t : op.operands) s += (s.empty() ? "" : " ") + t.name;
  return s;
}

/// The flags field: SoftFloat's five flags, 2 hex digits.
inline constexpr std::uint64_t max_flags = 0x1F;

/// Reads TestFloat lines of one operation: the operands, and with `with_expected` also the
/// expected result and flags. Blank lines are skipped; anything else that is not exactly such a
/// line throws usage_error "line N: ..." saying what was expected. A text field (<f>_from_dec's
/// operand) is kept as written, one whitespace-free token; case_evaluator checks it is a number.
class case_reader {
 public:
  case_reader(const operation& op, std::FILE* in, bool with_expected)
      : op_(op), lines_(in), arity_(op.operands.size()), fields_(arity_ + (with_expected ? 2 : 0)) {}

  /// Reads the next case; false at the end of the input.
  bool next() {
    std::string_view line;
    for (;;) {
      if (!lines_.next(line)) return false;
      std::size_t n = split(line);
      if (n == 0) continue;  // blank
      if (n != fields_) throw usage_error(where() + "expected " + layout() + ", got " + std::to_string(n) +
                                          " field" + (n == 1 ? "" : "s") + ": '" + shorten(line) + "'");
      for (std::size_t i = 0; i < fields_; ++i) values_[i] = parse(i);
      return true;
    }
  }

  std::span<const std::uint64_t> operands() const { return {values_.data(), arity_}; }
  /// The text operand of <f>_from_dec as written (valid until the next call to next()).
  std::string_view text_operand() const { return tokens_[0]; }
  /// Throws usage_error "line N: field I (role) 'TOKEN' WHAT" about field i of the current line.
  [[noreturn]] void fail(std::size_t i, const std::string& what) const {
    throw usage_error(where() + field_name(i) + "'" + shorten(tokens_[i]) + "' " + what);
  }
  std::uint64_t expected_result() const { return values_[arity_]; }
  lf::status expected_flags() const { return static_cast<lf::status>(values_[arity_ + 1]); }
  std::size_t line_number() const { return lines_.line_number(); }

 private:
  static constexpr std::size_t max_fields = 5;  // 3 operands (mulAdd), result, flags

  static bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

  /// Splits into tokens_ (the first max_fields); returns how many fields the line has.
  std::size_t split(std::string_view line) {
    std::size_t n = 0, i = 0;
    while (i < line.size()) {
      while (i < line.size() && space(line[i])) ++i;
      if (i == line.size()) break;
      const std::size_t start = i;
      while (i < line.size() && !space(line[i])) ++i;
      if (n < max_fields) tokens_[n] = line.substr(start, i - start);
      ++n;
    }
    return n;
  }

  /// The field's type, or nullptr for the flags field.
  const operand_type* type_of(std::size_t i) const {
    if (i < arity_) return &op_.operands[i];
    if (i == arity_) return &op_.result;
    return nullptr;
  }

  std::uint64_t parse(std::size_t i) const {
    std::string_view tok = tokens_[i];
    if (const operand_type* t = type_of(i); t && t->is_text()) return 0;  // see text_operand()
    if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) tok.remove_prefix(2);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v, 16);
    const operand_type* t = type_of(i);
    const std::uint64_t max = t ? t->max_value() : max_flags;
    if (end != tok.data() + tok.size() || (ec != std::errc{} && ec != std::errc::result_out_of_range))
      throw usage_error(where() + field_name(i) + "'" + shorten(tokens_[i]) + "' is not hexadecimal (expected " +
                        expectation(t) + ")");
    if (ec == std::errc::result_out_of_range || v > max)
      throw usage_error(where() + field_name(i) + "'" + shorten(tokens_[i]) + "' is too wide (expected " +
                        expectation(t) + ")");
    return v;
  }

  std::string where() const { return "line " + std::to_string(lines_.line_number()) + ": "; }

  std::string field_name(std::size_t i) const {
    const char* role = i < arity_ ? "operand" : i == arity_ ? "result" : "flags";
    return "field " + std::to_string(i + 1) + " (" + role + ") ";
  }

  static std::string hex(std::uint64_t v) {
    char buf[17];
    const auto r = std::to_chars(buf, buf + 16, v, 16);
    std::string s(buf, r.ptr);
    for (char& c : s) c = static_cast<char>(c >= 'a' ? c - 'a' + 'A' : c);
    return s;
  }

  /// "f16: an encoding, up to 4 hex digits, 0 to FFFF"
  static std::string expectation(const operand_type* t) {
    if (!t) return "flags: 2 hex digits, 00 to 1F";
    if (t->cat == operand_type::category::boolean) return "a comparison result: 0 or 1";
    const char* what = t->is_float() ? ": an encoding, up to " : ": two's complement, up to ";
    return t->name + what + std::to_string(t->hex_digits()) + " hex digits, 0 to " + hex(t->max_value());
  }

  /// "4 fields (operands f16 f16, result f16, flags)"
  std::string layout() const {
    std::string s = std::to_string(fields_) + (fields_ == 1 ? " field" : " fields") + " (operand" +
                    (arity_ == 1 ? " " : "s ") + operand_list(op_);
    if (fields_ > arity_) s += ", result " + op_.result.name + ", flags";
    return s + ")";
  }

  /// The user's text for a message: trailing blanks dropped, cut at 80 characters, and bytes that
  /// are not printable ASCII shown as \xHH so they cannot garble the terminal.
  static std::string shorten(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    const bool cut = line.size() > 80;
    if (cut) line = line.substr(0, 77);
    std::string out;
    for (const char c : line) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7F) {
        out += c;
      } else {
        constexpr char hex[] = "0123456789ABCDEF";
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
      }
    }
    return cut ? out + "..." : out;
  }

  const operation& op_;
  line_reader lines_;
  std::size_t arity_, fields_;
  std::array<std::string_view, max_fields> tokens_{};
  std::array<std::uint64_t, max_fields> values_{};
};

/// Evaluates cases of one operation under fixed options; under -r stochastic each case gets the
/// next 32 bits of a std::mt19937 seeded with --seed (see rounding_options).
class case_evaluator {
 public:
  case_evaluator(const operation& op, const testfloat_options& o)
      : op_(op), random_(o.rounding.seed), stochastic_(o.rounding.env().mode == lf::rounding::stochastic) {
    options_.env = o.rounding.env();
    options_.exact = o.exact;
  }
  /// The result of the case `cases` has just read. For <f>_from_dec, a malformed string throws
  /// usage_error "line N: ..." with lf::parse's message (which character, where). Not for
  /// <f>_to_dec, whose results are texts (print_decimal).
  std::uint64_t operator()(const case_reader& cases, lf::status& st) {
    if (stochastic_) options_.env.random = random_.next();
    if (op_.kind != op_kind::from_dec) return evaluate(op_, cases.operands(), options_, st);
    const std::string_view text = cases.text_operand();
    const lf::parsed<lf::bits_t> r = parse_decimal(op_, text, options_, st);
    if (!r) cases.fail(0, "is not a number: " + r.error.message() + " (" + std::string(number_syntax_help) + ")");
    return r.value;
  }

 private:
  const operation& op_;
  eval_options options_;
  random_source random_;
  bool stochastic_;
};

/// Writes the operands of the case just read, each followed by a space: encodings zero-padded to
/// their types' widths, a text operand as written.
inline void write_operands(output_buffer& out, const operation& op, const case_reader& cases) {
  const auto operands = cases.operands();
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (op.operands[i].is_text()) out << cases.text_operand() << ' ';
    else out.hex(operands[i], op.operands[i].hex_digits()) << ' ';
  }
}

/// Writes "RESULT FLAGS" in TestFloat's widths.
inline void write_result(output_buffer& out, const operation& op, std::uint64_t result, lf::status st) {
  out.hex(result, op.result.hex_digits()) << ' ';
  out.hex(lf::to_bits(st), 2);
}

/// One case as a JSON object for --json: operands (hex encodings, or the text as read), result
/// and flags in TestFloat's widths, and the flags by name; `extra` adds fields (check's expected
/// values) before the object closes.
inline void write_case_json(json_writer& j, const operation& op, const case_reader& cases, std::uint64_t result,
                            lf::status st) {
  j.begin_object().field("line", static_cast<long long>(cases.line_number())).key("operands").begin_array();
  const auto operands = cases.operands();
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (op.operands[i].is_text()) j.value(std::string(cases.text_operand()));
    else j.value(hex_digits(operands[i], op.operands[i].hex_digits()));
  }
  j.end_array()
      .field("result", hex_digits(result, op.result.hex_digits()))
      .field("flags", hex_digits(lf::to_bits(st), 2))
      .key("flag_names")
      .strings(flag_names(st));
}

/// Writes <f>_to_dec's results: "SHORTEST EXACT".
inline void write_decimal_texts(output_buffer& out, const decimal_texts& t) { out << t.shortest << ' ' << t.exact; }

/// "3C00 3C00 4000 00": the TestFloat line for operands of `op_name` evaluated with `env`, computed
/// by the library (help texts show real results, never literals).
inline std::string example_line(std::string_view op_name, std::initializer_list<std::uint64_t> operands,
                                lf::env env = {}, bool exact = false) {
  const operation op = *parse_operation(op_name);
  const std::vector<std::uint64_t> in(operands);
  lf::status st{};
  const std::uint64_t r = evaluate(op, in, eval_options{env, exact}, st);
  auto hex = [](std::uint64_t v, int digits) {
    std::string s(static_cast<std::size_t>(digits), '0');
    for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = "0123456789ABCDEF"[v & 0xF];
    return s;
  };
  std::string line;
  for (std::size_t i = 0; i < in.size(); ++i) line += hex(in[i], op.operands[i].hex_digits()) + " ";
  return line + hex(r, op.result.hex_digits()) + " " + hex(lf::to_bits(st), 2);
}

/// "0.1 2E66 01": what `floatlab eval <f>_from_dec` prints for `text`, computed by the library.
inline std::string example_from_dec_line(std::string_view op_name, std::string_view text, lf::env env = {}) {
  const operation op = *parse_operation(op_name);
  lf::status st{};
  const lf::bits_t r = parse_decimal(op, text, eval_options{env, false}, st).value;
  std::string line(text);
  line += ' ';
  for (int i = op.result.hex_digits() - 1; i >= 0; --i) line += "0123456789ABCDEF"[(r >> (4 * i)) & 0xF];
  const unsigned flags = lf::to_bits(st);
  return line + ' ' + "0123456789ABCDEF"[flags >> 4] + "0123456789ABCDEF"[flags & 0xF];
}

/// "2E66 0.1 0.0999755859375": what `floatlab eval <f>_to_dec` prints for `bits`.
inline std::string example_to_dec_line(std::string_view op_name, std::uint64_t bits) {
  const operation op = *parse_operation(op_name);
  const decimal_texts t = print_decimal(op, bits);
  std::string line;
  for (int i = op.operands.front().hex_digits() - 1; i >= 0; --i) line += "0123456789ABCDEF"[(bits >> (4 * i)) & 0xF];
  return line + ' ' + t.shortest + ' ' + t.exact;
}

}  // namespace floatlab
