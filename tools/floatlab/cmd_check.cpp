// floatlab check: compare Berkeley TestFloat lines (operands, expected result, expected flags)
// with the library's results, report the mismatches and a summary line.
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "commands.hpp"
#include "testfloat_io.hpp"

namespace floatlab {

namespace {

struct check_options {
  testfloat_options common;
  bool exact_nan = false;
  std::uint64_t show = 20;
};

int run_check(const check_options& o) {
  const operation op = operation_or_throw(o.common.operation);
  if (op.kind == op_kind::to_dec)
    throw usage_error("check does not take '" + op.name + "': its results are texts, not a result and flags; "
                      "compare the output of 'floatlab eval " + op.name + "' (HEX SHORTEST EXACT) with diff");
  input_file in(o.common.input);
  case_reader cases(op, in.get(), /*with_expected=*/true);
  case_evaluator eval(op, o.common);
  const palette colour = palette::for_stream(stdout);
  output_buffer out;
  std::uint64_t passed = 0, failed = 0;
  json_writer mismatches;  // --json: the first --show mismatches
  mismatches.begin_array();
  while (cases.next()) {
    lf::status st{};
    const std::uint64_t r = eval(cases, st);
    const std::uint64_t expected = cases.expected_result();
    // TestFloat's NaN encodings are x86's, one valid choice among several: any NaN matches any
    // NaN unless --exact-nan asks for the encoding.
    const bool same_result =
        r == expected || (!o.exact_nan && result_is_nan(op, r) && result_is_nan(op, expected));
    if (same_result && st == cases.expected_flags()) {
      ++passed;
      continue;
    }
    const bool shown = failed++ < o.show;
    if (shown && o.common.json) {
      write_case_json(mismatches, op, cases, r, st);
      mismatches.field("expected_result", hex_digits(expected, op.result.hex_digits()))
          .field("expected_flags", hex_digits(lf::to_bits(cases.expected_flags()), 2))
          .key("expected_flag_names")
          .strings(flag_names(cases.expected_flags()))
          .end_object();
    } else if (shown) {
      out << "line " << std::to_string(cases.line_number()) << ": ";
      write_operands(out, op, cases);
      out << "=> got " << colour.red;
      write_result(out, op, r, st);
      out << colour.reset << ", expected ";
      write_result(out, op, expected, cases.expected_flags());
      out << '\n';
    }
  }
  if (o.common.json) {
    mismatches.end_array();
    json_writer j;
    j.begin_object()
        .field("schema", "floatlab-check/1")
        .field("operation", op.name)
        .field("rounding", o.common.rounding.rounding)
        .field("passed", static_cast<long long>(passed))
        .field("failed", static_cast<long long>(failed))
        .key("mismatches")
        .raw(mismatches.str())
        .field("mismatches_not_shown", static_cast<long long>(failed > o.show ? failed - o.show : 0))
        .end_object();
    out << j.str() << '\n';
    return failed ? exit_failure : exit_success;
  }
  if (failed > o.show) out << "... " << std::to_string(failed - o.show) << " more\n";
  out << (failed ? colour.red : colour.green) << std::to_string(passed) << " passed, " << std::to_string(failed)
      << " failed" << colour.reset << '\n';
  return failed ? exit_failure : exit_success;
}

}  // namespace

command register_check(CLI::App& app) {
  auto o = std::make_shared<check_options>();
  CLI::App* cmd = app.add_subcommand("check", "Check TestFloat lines (operands, expected result, expected flags) "
                                              "against the library; exit 1 if any case differs");
  add_testfloat_options(*cmd, o->common);
  cmd->add_flag("--exact-nan", o->exact_nan,
                "Compare NaN results bit for bit (by default any NaN matches any NaN; flags always count)");
  add_whole_number_option(*cmd, "--show", o->show, "Print at most N mismatches (all are counted)", 0, UINT64_MAX)
      ->type_name("N")
      ->capture_default_str();
  cmd->footer([] {
    return fmt::format(R"(Input: Berkeley TestFloat lines (testfloat_gen's output), one case per line: the operands,
the expected result and the expected flags, hexadecimal, separated by whitespace, e.g. for
f16_add "{0}". Operands and results are encodings (integers as two's complement
bit patterns, comparison results 0 or 1); flags: 01 inexact, 02 underflow, 04 overflow,
08 infinite (divide by zero), 10 invalid. Blank lines are skipped. For <f>_from_dec the
operand is a number written out, as `floatlab eval <f>_from_dec` reads it, e.g. "{1}".
<f>_to_dec is not accepted (its output has no flags): diff the output of eval instead.
Output: each mismatch as "line N: OPERANDS => got RESULT FLAGS, expected RESULT FLAGS" (the
first --show of them, then "... K more"), and last the line "P passed, F failed".
--json: one object, {{"schema": "floatlab-check/1", "operation": OP, "rounding": MODE, "passed": P,
"failed": F, "mismatches": [{{"line": N, "operands": [...], "result": HEX, "flags": HEX,
"flag_names": [...], "expected_result": HEX, "expected_flags": HEX, "expected_flag_names": [...]}},
...] (the first --show), "mismatches_not_shown": K}}.
Streaming: lines are checked as they are read, in constant memory, and each mismatch is printed
when it is found. The first malformed line, N, stops the check there: stderr says "floatlab:
line N: ...", the mismatches of lines 1 to N-1 have been printed (with --json, nothing is), and
the summary line is not: a count of part of the input is no verdict.
Exit status: 0 all cases passed, 1 some failed, 2 bad usage or a malformed line.

Examples:
  echo "{0}" | floatlab check f16_add
      1 passed, 0 failed
  gzip -dc f16_mul.min.tininessbefore.tv.gz | floatlab check f16_mul -r min --tininess before
  gzip -dc f32_to_i32.minMag.exact.tv.gz | floatlab check f32_to_i32 -r minMag --exact
  floatlab check f32_from_dec --input decimal_cases.txt)",
                       example_line("f16_add", {0x3C00, 0x3C00}), example_from_dec_line("f16_from_dec", "0.1"));
  });
  return {cmd, [o] { return run_check(*o); }};
}

const register_command registered_check{81, register_check};

}  // namespace floatlab
