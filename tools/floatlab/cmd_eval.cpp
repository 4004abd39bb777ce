// floatlab eval: evaluate TestFloat cases. Reads operands, writes TestFloat lines
// (operands, result, flags) as Berkeley TestFloat's testfloat_gen would; <f>_from_dec reads
// numbers written out, <f>_to_dec writes them (testfloat_io.hpp).
#include <memory>

#include <fmt/core.h>

#include "commands.hpp"
#include "testfloat_io.hpp"

namespace floatlab {

namespace {

int run_eval(const testfloat_options& o) {
  const operation op = operation_or_throw(o.operation);
  input_file in(o.input);
  case_reader cases(op, in.get(), /*with_expected=*/false);
  case_evaluator eval(op, o);
  output_buffer out;
  while (cases.next()) {
    if (o.json) {  // JSON Lines: one object per case
      json_writer j;
      if (op.kind == op_kind::to_dec) {
        const decimal_texts t = print_decimal(op, cases.operands()[0]);
        j.begin_object()
            .field("line", static_cast<long long>(cases.line_number()))
            .field("operand", hex_digits(cases.operands()[0], op.operands[0].hex_digits()))
            .field("shortest", t.shortest)
            .field("exact", t.exact)
            .end_object();
      } else {
        lf::status st{};
        const std::uint64_t r = eval(cases, st);
        write_case_json(j, op, cases, r, st);
        j.end_object();
      }
      out << j.str() << '\n';
      continue;
    }
    if (op.kind == op_kind::to_dec) {  // "HEX SHORTEST EXACT"
      write_operands(out, op, cases);
      write_decimal_texts(out, print_decimal(op, cases.operands()[0]));
      out << '\n';
      continue;
    }
    lf::status st{};
    const std::uint64_t r = eval(cases, st);
    write_operands(out, op, cases);
    write_result(out, op, r, st);
    out << '\n';
  }
  return exit_success;
}

}  // namespace

command register_eval(CLI::App& app) {
  auto o = std::make_shared<testfloat_options>();
  CLI::App* cmd = app.add_subcommand("eval", "Evaluate one operation on cases read from the input, "
                                             "printing TestFloat lines: operands, result, flags");
  add_testfloat_options(*cmd, *o);
  cmd->footer([] {
    lf::env ftz;
    ftz.policy.results = lf::subnormal_results::flush_to_zero;
    // 1 + 2^-11, the midpoint of fp16 1 (3C00) and 1 + 2^-10 (3C01), as the library prints it exactly
    const std::string halfway = lf::to_exact_decimal(lf::binary32, 0x3F801000);
    return fmt::format(R"(Input: one case per line, the operands as hexadecimal encodings separated by
whitespace (integers as two's complement bit patterns); an optional 0x prefix and lowercase
digits are accepted; blank lines are skipped.
<f>_from_dec reads one number written out per line instead: a decimal of any length and
exponent (0.1, -1e-8, .5, 5., 123456789012345678901234567890e-5), a hex float (0x1.8p-3, the
p exponent optional), inf, infinity, nan or snan; any case, a sign allowed, no spaces inside.
Output: one line per case in Berkeley TestFloat's format, uppercase hex: the operands and the
result zero-padded to their type's width (e4m3/e5m2 2 digits, f16/bf16 4, tf32 5 (19-bit
encoding), f32 8, f64 16, i32/ui32 8, i64/ui64 16, comparisons 1: 0 or 1), then the flags
in 2 digits: 01 inexact, 02 underflow, 04 overflow, 08 infinite (divide by zero), 10 invalid.
<f>_from_dec prints "STRING RESULT FLAGS": the string as read, then the number rounded once,
directly to <f>, under -r and the policy options. <f>_to_dec prints "HEX SHORTEST EXACT": the
fewest significant digits that read back to the same encoding (std::to_chars' notation), then
every digit of the exact value; both are exact, so no option applies and there are no flags.
--json: JSON Lines, one object per case: {{"line": N, "operands": [HEX or the text read, ...],
"result": HEX, "flags": HEX (2 digits), "flag_names": ["inexact", ...]}}, widths as above;
for <f>_to_dec {{"line": N, "operand": HEX, "shortest": TEXT, "exact": TEXT}}.
Streaming: results are written out, in blocks, while the input is still being read, so vectors
of any size pass through a pipe in constant memory. The first malformed line, N,
stops the run: the results of lines 1 to N-1 have all been printed, no line after N is read,
and stderr says "floatlab: line N: ..." (for a malformed number, which character is wrong,
positions counting from 0). So the exit status is the verdict, not the output: 0 means every
line was read and evaluated; in a pipeline use set -o pipefail.
Exit status: 0 success, 2 bad usage or a malformed line (stdout then holds the results of
lines 1 to N-1).

Examples:
  echo "3C00 3C00" | floatlab eval f16_add
      {}
  echo "0400 3800" | floatlab eval f16_mul --ftz        # tiny result flushed to zero
      {}
  echo "3FC00000" | floatlab eval f32_to_i32 -r minMag --exact   # 1.5 truncated: inexact
      {}
  echo 0.1 | floatlab eval f16_from_dec
      {}
  echo {} | floatlab eval f16_from_dec -r max     # halfway between 1 and the next fp16
      {}
  echo 2E66 | floatlab eval f16_to_dec
      {}
  floatlab eval f32_mulAdd -r stochastic --seed 7 --input cases.txt)",
                       example_line("f16_add", {0x3C00, 0x3C00}), example_line("f16_mul", {0x0400, 0x3800}, ftz),
                       example_line("f32_to_i32", {0x3FC00000}, lf::rounding::toward_zero, /*exact=*/true),
                       example_from_dec_line("f16_from_dec", "0.1"), halfway,
                       example_from_dec_line("f16_from_dec", halfway, lf::rounding::upward),
                       example_to_dec_line("f16_to_dec", 0x2E66));
  });
  return {cmd, [o] { return run_eval(*o); }};
}

const register_command registered_eval{80, register_eval};

}  // namespace floatlab
