#!/usr/bin/env bash
# `floatlab eval` and `floatlab check` run as a user would: outputs, flags, exit codes, messages.
#
#   floatlab_eval_check.sh FLOATLAB VERSION
#
# Expected results are worked out by hand from the encodings (see each comment), not taken from
# the library. Prints one line per failed expectation and exits 1 if there was any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 2 "FLOATLAB VERSION" "$@"
version=$2
run_with=run_input   # expect_error: the stdin text comes first after --

# expect NAME RC STDOUT INPUT ARGS...: with INPUT (printf %b escapes) on stdin, exit status RC and exactly STDOUT.
expect() {
  local name=$1 want_rc=$2 want_out=$3
  shift 3
  checks=$((checks + 1))
  run_input "$@"
  if [[ $rc != "$want_rc" || $out != "$want_out" ]]; then
    fail "$name: floatlab ${*:2}"
    printf '      exit %s, want %s\n      stdout: %q\n      want:   %q\n      stderr: %s\n' \
      "$rc" "$want_rc" "$out" "$want_out" "$err"
  fi
}

# ---- eval: a worked example and TestFloat's widths ----------------------------------------------

expect "example" 0 "3C00 3C00 4000 00" "3C00 3C00\n" eval f16_add
expect "lowercase, 0x, short and tabbed input" 0 "3C00 0001 3C00 01" "0x3c00\t1\n" eval f16_add
expect "blank lines skipped, CRLF accepted" 0 $'3C00 3C00 4000 00\n4000 4000 4400 00' \
  "\n3C00 3C00\r\n   \n4000 4000\n" eval f16_add
expect "several lines" 0 $'3C00 3C00 3C00 00\n3C00 0000 7C00 08\n0000 0000 FE00 10' \
  "3C00 3C00\n3C00 0000\n0000 0000\n" eval f16_div
# widths: f32 8, f64 16, tf32 5 (19 bits: 1.0 = 0|01111111|0000000000 = 1FC00), e4m3 2 (1.0 = 0|0111|000)
expect "f32 to f16" 0 "3F800000 3C00 00" "3F800000\n" eval f32_to_f16
expect "f16 to f64" 0 "3C00 3FF0000000000000 00" "3C00\n" eval f16_to_f64
expect "f32 to tf32" 0 "3F800000 1FC00 00" "3F800000\n" eval f32_to_tf32
expect "f16 to e4m3" 0 "3C00 38 00" "3C00\n" eval f16_to_e4m3
expect "e5m2 mul: 1 * 1" 0 "3C 3C 3C 00" "3C 3C\n" eval e5m2_mul           # 1.0 = 0|01111|00
expect "e4m3 add: 1 + 1" 0 "38 38 40 00" "38 38\n" eval e4m3_add           # 2.0 = 0|1000|000
expect "i64 to f16: -1" 0 "FFFFFFFFFFFFFFFF BC00 00" "FFFFFFFFFFFFFFFF\n" eval i64_to_f16
expect "ui32 to f32" 0 "00000001 3F800000 00" "1\n" eval ui32_to_f32
expect "f32 to i32: -2" 0 "C0000000 FFFFFFFE 00" "C0000000\n" eval f32_to_i32
expect "f64 to ui64" 0 "3FF0000000000000 0000000000000001 00" "3FF0000000000000\n" eval f64_to_ui64
# comparisons: one digit; a signaling NaN (7C01) raises invalid (10), a quiet one (7E00) only for _signaling
expect "lt" 0 "3C00 4000 1 00" "3C00 4000\n" eval f16_lt
expect "eq with sNaN" 0 "7C01 3C00 0 10" "7C01 3C00\n" eval f16_eq
expect "eq with qNaN" 0 "7E00 3C00 0 00" "7E00 3C00\n" eval f16_eq
expect "eq_signaling with qNaN" 0 "7E00 3C00 0 10" "7E00 3C00\n" eval f16_eq_signaling
expect "mulAdd: 1*1+1" 0 "3C00 3C00 3C00 4000 00" "3C00 3C00 3C00\n" eval f16_mulAdd

# ---- rounding modes: 1 + 2^-11 (3C00 + 1000) is halfway between 3C00 and 3C01 ----------------

expect "near_even ties to even" 0 "3C00 1000 3C00 01" "3C00 1000\n" eval f16_add -r near_even
expect "near_maxMag ties away" 0 "3C00 1000 3C01 01" "3C00 1000\n" eval f16_add -r near_maxMag
expect "IEEE word nearest_away" 0 "3C00 1000 3C01 01" "3C00 1000\n" eval f16_add -r nearest_away
expect "minMag" 0 "3C00 1000 3C00 01" "3C00 1000\n" eval f16_add -r minMag
expect "max" 0 "3C00 1000 3C01 01" "3C00 1000\n" eval f16_add -r max
expect "min, negative" 0 "BC00 9000 BC01 01" "BC00 9000\n" eval f16_add -r min
expect "max, negative" 0 "BC00 9000 BC00 01" "BC00 9000\n" eval f16_add -r upward
expect "odd" 0 "3C00 1000 3C01 01" "3C00 1000\n" eval f16_add -r odd
# 1.5 = 3E00 rounds to 2 = 4000 (near_even) or 1 (minMag); --exact adds inexact
expect "roundToInt" 0 "3E00 4000 00" "3E00\n" eval f16_roundToInt
expect "roundToInt --exact" 0 "3E00 4000 01" "3E00\n" eval f16_roundToInt --exact
expect "to_i32 minMag" 0 "3FC00000 00000001 00" "3FC00000\n" eval f32_to_i32 -r minMag
expect "to_i32 minMag --exact" 0 "3FC00000 00000001 01" "3FC00000\n" eval f32_to_i32 -r minMag --exact

# ---- policies ----------------------------------------------------------------------------------

# 2^-14 (0400, min normal) * 0.5 (3800) = 2^-15 = subnormal 0200, exact; FTZ flushes it: underflow+inexact
expect "mul subnormal result" 0 "0400 3800 0200 00" "0400 3800\n" eval f16_mul
expect "--ftz" 0 "0400 3800 0000 03" "0400 3800\n" eval f16_mul --ftz
# DAZ reads the subnormal 0200 as zero: 0 * 2 = 0, no flag (without: 2^-15 * 2 = 2^-14 = 0400)
expect "subnormal operand" 0 "0200 4000 0400 00" "0200 4000\n" eval f16_mul
expect "--daz" 0 "0200 4000 0000 00" "0200 4000\n" eval f16_mul --daz
# BBFE * 0401 = -(2 - 2^-9)(1 + 2^-10) 2^-15 = -(1 - 2^-20 ...)2^-14 exactly: below 2^-14 before
# rounding, 2^-14 after rounding down (toward -inf the magnitude grows): tiny only "before".
expect "tininess after (default)" 0 "BBFE 0401 8400 01" "BBFE 0401\n" eval f16_mul -r min
expect "--tininess before" 0 "BBFE 0401 8400 03" "BBFE 0401\n" eval f16_mul -r min --tininess before
# 65504 (7BFF) * 2 overflows: infinity, or 65504 when saturating; overflow+inexact either way
expect "overflow" 0 "7BFF 4000 7C00 05" "7BFF 4000\n" eval f16_mul
expect "--saturate" 0 $'7BFF 4000 7BFF 05\nFBFF 4000 FBFF 05' "7BFF 4000\nFBFF 4000\n" eval f16_mul --saturate

# ---- stochastic rounding: reproducible from --seed ----------------------------------------------

halfway=$(for _ in $(seq 400); do echo "3C00 1000"; done)
run_input "$halfway\n" eval f16_add -r stochastic --seed 5
first=$out
run_input "$halfway\n" eval f16_add -r stochastic --seed 5
checks=$((checks + 1))
[[ $out == "$first" && $rc == 0 ]] || fail "stochastic: the same seed gave different results"
checks=$((checks + 1))
[[ $first == *"3C00 1000 3C00 01"* && $first == *"3C00 1000 3C01 01"* ]] ||
  fail "stochastic: a halfway case should round both ways over 400 draws"
run_input "$halfway\n" eval f16_add -r stochastic --seed 6
checks=$((checks + 1))
[[ $out != "$first" ]] || fail "stochastic: seeds 5 and 6 gave the same 400 results"

# ---- --input -----------------------------------------------------------------------------------

printf '3C00 3C00\n' >"$tmp/cases.txt"
expect "--input FILE" 0 "3C00 3C00 4000 00" "" eval f16_add --input "$tmp/cases.txt"
expect_error "--input missing file" "floatlab: cannot open" -- "" eval f16_add --input "$tmp/nonexistent"

# ---- errors: exit 2 and a message saying what was expected ---------------------------------------

expect_error "unknown operation" "floatlab: unknown operation 'f16_frobnicate'" "<f>_add" "f16 bf16 f32" -- \
  "3C00 3C00\n" eval f16_frobnicate
expect_error "unknown operation (check)" "unknown operation 'f17_add'" -- "" check f17_add
expect_error "unknown subcommand" "floatlab: unknown subcommand 'bogus'" "eval, check" -- "" bogus
expect_error "bad hex" "floatlab: line 2: " "'3G00' is not hexadecimal" "f16" "4 hex digits" -- \
  "3C00 3C00\n3C00 3G00\n" eval f16_add
expect_error "too wide f16" "floatlab: line 1: " "'13C00' is too wide" "0 to FFFF" -- "13C00 3C00\n" eval f16_add
expect_error "too wide tf32 (19 bits)" "line 1: " "'FFFFF' is too wide" "0 to 7FFFF" -- "FFFFF\n" eval tf32_sqrt
expect_error "too wide for uint64" "line 1: " "too wide" -- "1FFFFFFFFFFFFFFFF\n" eval i64_to_f64
expect_error "too few fields" "floatlab: line 1: expected 2 fields" "got 1" -- "3C00\n" eval f16_add
expect_error "too many fields" "floatlab: line 1: expected 1 field" "got 2" -- "3C00 3C00\n" eval f16_sqrt
expect_error "check: 3 fields" "floatlab: line 3: expected 4 fields" "got 3" -- \
  "3C00 3C00 4000 00\n\n3C00 3C00 4000\n" check f16_add
expect_error "check: flags too wide" "line 1: " "flags" "00 to 1F" -- "3C00 3C00 4000 100\n" check f16_add
expect_error "check: comparison result 2" "line 1: " "0 or 1" -- "3C00 4000 2 00\n" check f16_lt
# the lines before the malformed one are still printed
expect "output before the error" 2 "3C00 3C00 4000 00" "3C00 3C00\nxyz 3C00\n" eval f16_add
# Streaming, as documented in --help: the first malformed line stops the run; every line before
# it has been printed, none after it is read (line 5 is malformed too and never reported), and the
# error names the line. 1 + 1 = 2 is 4000; 2 + 2 = 4 is 4400 (exponent 15 + 2 = 17 = 10001).
streamed="3C00 3C00\n4000 4000\nxyz 3C00\n3C00 3C00\n3C00 3G00\n"
expect "eval stops at the first malformed line" 2 $'3C00 3C00 4000 00\n4000 4000 4400 00' "$streamed" eval f16_add
checks=$((checks + 1))
[[ $err == "floatlab: line 3: "* && $err != *"line 5"* && $(wc -l <<<"$err") == 1 ]] ||
  fail "eval: one error, naming line 3: $err"
expect "eval --json stops at the first malformed line" 2 \
  $'{"line":1,"operands":["3C00","3C00"],"result":"4000","flags":"00","flag_names":[]}\n{"line":2,"operands":["4000","4000"],"result":"4400","flags":"00","flag_names":[]}' \
  "$streamed" eval f16_add --json
# nothing is lost at the output's block boundaries: 100,000 cases, then a malformed line
checks=$((checks + 1))
awk 'BEGIN { for (i = 0; i < 100000; i++) print "3C00 3C00"; print "3C00 zz" }' >"$tmp/many.txt"
"$floatlab" eval f16_add --input "$tmp/many.txt" >"$tmp/many.out" 2>"$tmp/many.err"
rc=$?
[[ $rc == 2 && $(grep -c -x '3C00 3C00 4000 00' "$tmp/many.out") == 100000 && $(wc -l <"$tmp/many.out") == 100000 &&
   $(<"$tmp/many.err") == "floatlab: line 100001: "* ]] ||
  fail "eval: 100,000 results before the malformed line 100001: exit $rc, $(wc -l <"$tmp/many.out") lines, $(<"$tmp/many.err")"
# check: the mismatch of line 1 has been printed, the summary has not (no verdict on part of the input)
expect "check stops at the first malformed line" 2 "line 1: 3C00 3C00 => got 4000 00, expected 3C00 00" \
  "3C00 3C00 3C00 00\n3C00 3C00 4000 00\n3C00 3C00 40\n3C00 3C00 3C00 00\n" check f16_add
checks=$((checks + 1))
[[ $err == "floatlab: line 3: "* && $out != *passed* ]] || fail "check: the error names line 3, no summary: $err"
expect "check --json prints nothing on a malformed line" 2 "" \
  "3C00 3C00 3C00 00\n3C00 3C00 40\n" check f16_add --json

# usage errors (CLI11) exit 2 as well
expect_error "no subcommand" "subcommand" -- ""
expect_error "no operation" "OPERATION" -- "" eval
expect_error "bad rounding" "unknown rounding 'sideways'" "near_maxMag" -- "" eval f16_add -r sideways
expect_error "bad tininess" "tininess" -- "" eval f16_add --tininess during
expect_error "unknown option" "--frobnicate" -- "" check f16_add --frobnicate

# ---- check -------------------------------------------------------------------------------------

expect "check passes" 0 "2 passed, 0 failed" "3C00 3C00 4000 00\n4000 4000 4400 00\n" check f16_add
expect "check: empty input" 0 "0 passed, 0 failed" "" check f16_add
expect "check: wrong result" 1 $'line 2: 4000 4000 => got 4400 00, expected 4401 00\n1 passed, 1 failed' \
  "3C00 3C00 4000 00\n4000 4000 4401 00\n" check f16_add
expect "check: wrong flags" 1 $'line 1: 3C00 1000 => got 3C00 01, expected 3C00 00\n0 passed, 1 failed' \
  "3C00 1000 3C00 00\n" check f16_add
expect "check with options" 0 "1 passed, 0 failed" "BBFE 0401 8400 03\n" check f16_mul -r min --tininess before
bad25=$(for i in $(seq 25); do echo "3C00 3C00 4001 00"; done)
run_input "$bad25\n" check f16_add
checks=$((checks + 1))
shown=$(grep -c '^line ' <<<"$out")
[[ $rc == 1 && $shown == 20 && $out == *$'\n... 5 more\n0 passed, 25 failed' ]] ||
  fail "check: 25 mismatches should show 20, then '... 5 more', then '0 passed, 25 failed' (exit $rc, $shown shown)"
run_input "$bad25\n" check f16_add --show 3
checks=$((checks + 1))
[[ $rc == 1 && $(grep -c '^line ' <<<"$out") == 3 && $out == *$'\n... 22 more\n0 passed, 25 failed' ]] ||
  fail "check --show 3"

# NaN results: 7E00 + 1 gives a quiet NaN (7E00 propagated); 7E01 is another quiet NaN
expect "any NaN matches any NaN" 0 "1 passed, 0 failed" "7E00 3C00 7E01 00\n" check f16_add
expect "--exact-nan" 1 $'line 1: 7E00 3C00 => got 7E00 00, expected 7E01 00\n0 passed, 1 failed' \
  "7E00 3C00 7E01 00\n" check f16_add --exact-nan
expect "--exact-nan, same NaN" 0 "1 passed, 0 failed" "7E00 3C00 7E00 00\n" check f16_add --exact-nan
expect "a NaN never matches a number" 1 $'line 1: 7E00 3C00 => got 7E00 00, expected 3C00 00\n0 passed, 1 failed' \
  "7E00 3C00 3C00 00\n" check f16_add
expect "NaN match still needs the flags" 1 $'line 1: 7C01 3C00 => got 7E01 10, expected 7E00 00\n0 passed, 1 failed' \
  "7C01 3C00 7E00 00\n" check f16_add

# ---- decimal text: <f>_from_dec and <f>_to_dec --------------------------------------------------
# Expected encodings worked out by hand from the definitions (value = 1.f * 2^(e - bias)), e.g.
# 0.1 = 1.6 * 2^-4: f16 exponent field -4 + 15 = 01011, fraction 0.6 * 2^10 = 614.4 -> 614 = 0x266
# (rounded down: inexact 01), 0|01011|1001100110 = 2E66. Every row below was also checked against
# an exact-rational reference written for this purpose (Python fractions, sharing no code with the
# library): round the exact value of the string to p bits with SoftFloat's flags.

expect "from_dec: 0.1" 0 "0.1 2E66 01" "0.1\n" eval f16_from_dec
# bf16: exponent 127 - 4 = 01111011, fraction 0.6 * 2^7 = 76.8 -> 77 = 1001101: 3DCD. f32 0.1 is the
# well-known 3DCCCCCD, f64 3FB999999999999A. tf32 (19 bits): 123 << 10 | 614 = 1EE66. e5m2:
# 01011, 0.6 * 4 = 2.4 -> 10: 0|01011|10 = 2E. e4m3 (bias 7): 0011, 0.6 * 8 = 4.8 -> 101: 1D.
expect "from_dec bf16" 0 "0.1 3DCD 01" "0.1\n" eval bf16_from_dec
expect "from_dec f32" 0 "0.1 3DCCCCCD 01" "0.1\n" eval f32_from_dec
expect "from_dec f64" 0 "0.1 3FB999999999999A 01" "0.1\n" eval f64_from_dec
expect "from_dec tf32" 0 "0.1 1EE66 01" "0.1\n" eval tf32_from_dec
expect "from_dec e5m2" 0 "0.1 2E 01" "0.1\n" eval e5m2_from_dec
expect "from_dec e4m3" 0 "0.1 1D 01" "0.1\n" eval e4m3_from_dec
# exact values: no flag. 5 = 1.25 * 2^2 = 0|10001|0100000000 = 4500; .5 = 3800; 65504 = max = 7BFF;
# 2^-24 = 5.9604644775390625e-8 = smallest subnormal 0001 (exact, so no underflow flag).
expect "from_dec exact values" 0 $'1 3C00 00\n.5 3800 00\n5. 4500 00\n-0 8000 00\n+0.0e5 0000 00\n65504 7BFF 00\n5.9604644775390625e-8 0001 00' \
  "1\n.5\n5.\n-0\n+0.0e5\n65504\n5.9604644775390625e-8\n" eval f16_from_dec
# whitespace around the string and CRLF are not part of it; blank lines are skipped as for the other ops
expect "from_dec: spaces, CRLF, blank lines" 0 $'0.1 2E66 01\n1 3C00 00' "\n  0.1\t\r\n\n1\n" eval f16_from_dec
# hex floats: 0x1.8p-3 = 1.5 * 2^-3 = 0|01100|1000000000 = 3200; 0x1.ffcp15 = 65504; -0X1P0 = -1.
expect "from_dec hex floats" 0 $'0x1.8p-3 3200 00\n0x1.ffcp15 7BFF 00\n-0X1P0 BC00 00' \
  "0x1.8p-3\n0x1.ffcp15\n-0X1P0\n" eval f16_from_dec
# 1.00048828125 = 1 + 2^-11 is the midpoint of 3C00 (1) and 3C01 (1 + 2^-10): each direction, both signs
mid=$'1.00048828125\n-1.00048828125\n'
expect "midpoint near_even" 0 $'1.00048828125 3C00 01\n-1.00048828125 BC00 01' "$mid" eval f16_from_dec -r near_even
expect "midpoint near_maxMag" 0 $'1.00048828125 3C01 01\n-1.00048828125 BC01 01' "$mid" eval f16_from_dec -r near_maxMag
expect "midpoint minMag" 0 $'1.00048828125 3C00 01\n-1.00048828125 BC00 01' "$mid" eval f16_from_dec -r minMag
expect "midpoint max" 0 $'1.00048828125 3C01 01\n-1.00048828125 BC00 01' "$mid" eval f16_from_dec -r max
expect "midpoint min" 0 $'1.00048828125 3C00 01\n-1.00048828125 BC01 01' "$mid" eval f16_from_dec -r min
expect "midpoint odd" 0 $'1.00048828125 3C01 01\n-1.00048828125 BC01 01' "$mid" eval f16_from_dec -r odd
# 40 significant digits: the midpoint plus or minus 10^-39 lands on the side it is on (a parser going
# through double would see the midpoint itself, 1 + 2^-11 being a double, and tie to even 3C00)
expect "40 digits above the midpoint" 0 "1.000488281250000000000000000000000000001 3C01 01" \
  "1.000488281250000000000000000000000000001\n" eval f16_from_dec
expect "40 digits below the midpoint" 0 "1.000488281249999999999999999999999999999 3C00 01" \
  "1.000488281249999999999999999999999999999\n" eval f16_from_dec
# overflow: 65520 = 65504 + 16 is the midpoint of max and 2^16, ties to even = infinity (overflow|inexact);
# just below stays max; --saturate keeps max. Huge and tiny exponents.
expect "from_dec overflow" 0 $'65520 7C00 05\n65519.99999 7BFF 01\n123456789012345678901234567890e-5 7C00 05\n-1e10000 FC00 05' \
  "65520\n65519.99999\n123456789012345678901234567890e-5\n-1e10000\n" eval f16_from_dec
expect "from_dec --saturate" 0 "1e5 7BFF 05" "1e5\n" eval f16_from_dec --saturate
# underflow: 1e-8 = 0.168 * 2^-24 rounds to 0 (underflow|inexact), upward to 0001; 3e-5 = 503.3 * 2^-24
# rounds to the subnormal 01F7, or flushes to 0 under --ftz
expect "from_dec underflow" 0 $'1e-8 0000 03\n1e-10000 0000 03\n3e-5 01F7 03' "1e-8\n1e-10000\n3e-5\n" eval f16_from_dec
expect "from_dec underflow upward" 0 "1e-8 0001 03" "1e-8\n" eval f16_from_dec -r max
expect "from_dec --ftz" 0 "3e-5 0000 03" "3e-5\n" eval f16_from_dec --ftz
# inf/nan/snan, any case: f16 infinity 7C00, quiet NaN 7E00, signaling NaN with the smallest payload 7C01;
# E4M3 has no infinity (inf -> NaN 7F, invalid 10; --saturate -> max 7E) and no signaling NaN
expect "from_dec inf/nan/snan" 0 $'inf 7C00 00\n-Infinity FC00 00\nnan 7E00 00\n-NaN FE00 00\nSNaN 7C01 00' \
  "inf\n-Infinity\nnan\n-NaN\nSNaN\n" eval f16_from_dec
expect "from_dec e4m3 inf/nan" 0 $'inf 7F 10\nnan 7F 00\nsnan 7F 00' "inf\nnan\nsnan\n" eval e4m3_from_dec
expect "from_dec e4m3 inf --saturate" 0 "inf 7E 00" "inf\n" eval e4m3_from_dec --saturate
# stochastic: the midpoint goes both ways over 400 draws, the same way for the same seed
halfway=$(for _ in $(seq 400); do echo "1.00048828125"; done)
run_input "$halfway\n" eval f16_from_dec -r stochastic --seed 3
first=$out
run_input "$halfway\n" eval f16_from_dec -r stochastic --seed 3
checks=$((checks + 1))
[[ $rc == 0 && $out == "$first" && $first == *"1.00048828125 3C00 01"* && $first == *"1.00048828125 3C01 01"* ]] ||
  fail "from_dec stochastic: reproducible, and the midpoint should round both ways over 400 draws"

# malformed strings: exit 2, the line number, the offending character and its position (from 0);
# the lines before are still printed
expect_error "from_dec '1.2.3'" "floatlab: line 2: " "'1.2.3' is not a number" "unexpected character '.' at position 3" -- \
  "0.1\n1.2.3\n" eval f16_from_dec
expect "from_dec: output before the error" 2 "0.1 2E66 01" "0.1\n1.2.3\n" eval f16_from_dec
expect_error "from_dec '1e'" "line 1: " "unexpected end of input at position 2" "exponent digit" -- "1e\n" eval f16_from_dec
expect_error "from_dec '0x'" "line 1: " "unexpected end of input at position 2" "hexadecimal digit" -- "0x\n" eval f16_from_dec
expect_error "from_dec '--1'" "line 1: " "unexpected character '-' at position 1" -- "--1\n" eval f16_from_dec
expect_error "from_dec trailing garbage" "line 3: " "unexpected character 'x' at position 3" -- \
  "1\n\n0.5x\n" eval f16_from_dec
expect_error "from_dec 'inf1'" "line 1: " "unexpected character '1' at position 3" -- "inf1\n" eval f16_from_dec
expect_error "from_dec: what is accepted" "line 1: " "a decimal like 0.1" "a hex float like 0x1.8p-3" -- \
  "abc\n" eval f16_from_dec
expect_error "from_dec: a space inside" "line 1: expected 1 field" "got 2" -- "1 000\n" eval f16_from_dec

# to_dec: HEX SHORTEST EXACT. 2E66 = 1638 * 2^-14 = 0.0999755859375 exactly, and 0.1 is within half an
# ulp (2^-15) of it; 0001 = 2^-24 = 5.9604644775390625e-8, 6e-08 is the one-digit decimal within 2^-25;
# 03FF = 1023 * 2^-24 (largest subnormal), 6.1e-05 is within 2^-25 of it, 6e-05 is not; 7BFF = 65504;
# -0, inf, NaNs (snan for a signaling one). Notation as std::to_chars (scientific when shorter).
expect "to_dec f16" 0 $'2E66 0.1 0.0999755859375\n0001 6e-08 0.000000059604644775390625\n03FF 6.1e-05 0.000060975551605224609375\n7BFF 65504 65504\n8000 -0 -0\n7C00 inf inf\nFC00 -inf -inf\n7E00 nan nan\n7C01 snan snan' \
  "2E66\n1\n3ff\n0x7BFF\n8000\n7C00\nFC00\n7E00\n7C01\n" eval f16_to_dec
# bf16 max = (2 - 2^-7) * 2^127 = 2^128 - 2^120: all 39 digits; shortest 3.39e+38 (half an ulp is 2^119 = 6.6e35)
expect "to_dec bf16 max" 0 "7F7F 3.39e+38 338953138925153547590470800371487866880" "7F7F\n" eval bf16_to_dec
# f32 0.1 (3DCCCCCD) and max, as printf("%.27f") and std::to_chars give them
expect "to_dec f32" 0 $'3DCCCCCD 0.1 0.100000001490116119384765625\n7F7FFFFF 3.4028235e+38 340282346638528859811704183484516925440' \
  "3DCCCCCD\n7F7FFFFF\n" eval f32_to_dec
# E4M3 max 448 (0|1111|110), its NaN 7F; E5M2's smallest subnormal 2^-16 = 0.0000152587890625: both
# 1e-05 and 2e-05 read back to it, 2e-05 is the closer
expect "to_dec fp8" 0 $'7E 448 448\n7F nan nan' "7E\n7F\n" eval e4m3_to_dec
expect "to_dec e5m2 subnormal" 0 "01 2e-05 0.0000152587890625" "01\n" eval e5m2_to_dec
expect_error "to_dec: too wide" "line 1: " "'13C00' is too wide" -- "13C00\n" eval f16_to_dec

# check <f>_from_dec: STRING EXPECTED_HEX EXPECTED_FLAGS
expect "check from_dec" 0 "3 passed, 0 failed" "0.1 2E66 01\n1.00048828125 3C00 01\n0x1.8p-3 3200 00\n" check f16_from_dec
expect "check from_dec mismatch" 1 $'line 1: 1.00048828125 => got 3C01 01, expected 3C00 01\n0 passed, 1 failed' \
  "1.00048828125 3C00 01\n" check f16_from_dec -r max
expect "check from_dec: any NaN" 0 "1 passed, 0 failed" "nan 7E01 00\n" check f16_from_dec
expect_error "check from_dec malformed" "line 1: " "'0x1.8q-3' is not a number" "unexpected character 'q' at position 5" -- \
  "0x1.8q-3 3200 00\n" check f16_from_dec
expect_error "check from_dec: 2 fields" "line 1: expected 3 fields (operand decimal, result f16, flags)" -- \
  "0.1 2E66\n" check f16_from_dec
expect_error "check rejects to_dec" "check does not take 'f16_to_dec'" "floatlab eval f16_to_dec" -- "2E66 0.1 0.1\n" check f16_to_dec

# ---- help and version --------------------------------------------------------------------------

for sub in eval check; do
  checks=$((checks + 1))
  run_input "" "$sub" --help
  [[ $rc == 0 && $out == *"Examples:"* && $out == *"floatlab $sub"* && $out == *"Input:"* &&
     $out == *"--rounding"* && $out == *"near_maxMag"* ]] || fail "$sub --help: examples, input format, options"
done
checks=$((checks + 1))
run_input "" eval --help
[[ $out == *"3C00 3C00 4000 00"* && $out == *"0400 3800 0000 03"* && $out == *"_from_dec"* && $out == *"_to_dec"* &&
   $out == *"0.1 2E66 01"* && $out == *"1.00048828125 3C01 01"* && $out == *"2E66 0.1 0.0999755859375"* ]] ||
  fail "eval --help: example outputs, the decimal operations"
checks=$((checks + 1))
run_input "" check --help
[[ $out == *"--exact-nan"* && $out == *"passed, "*" failed"* ]] || fail "check --help: --exact-nan, summary line"
checks=$((checks + 1))
run_input "" eval --help
flat=$(tr -s ' \n' '  ' <<<"$out")
[[ $flat == *"The first malformed line, N, stops the run: the results of lines 1 to N-1 have all been printed, no line after N is read"* &&
   $flat == *"the exit status is the verdict"* ]] || fail "eval --help: says that results stream and the exit status is the verdict"
checks=$((checks + 1))
run_input "" check --help
flat=$(tr -s ' \n' '  ' <<<"$out")
[[ $flat == *"The first malformed line, N, stops the check there"* && $flat == *"the summary line is not"* ]] ||
  fail "check --help: says what a malformed line leaves on stdout"
checks=$((checks + 1))
run_input "" --help
[[ $rc == 0 && $out == *eval* && $out == *check* ]] || fail "--help lists the subcommands"
expect "--version" 0 "floatlab $version" "" --version
expect "--version after a subcommand" 0 "floatlab $version" "" show --version

# ---- --json ------------------------------------------------------------------------------------
# Expected values worked out by hand: 2^-14 * 0.5 = 2^-15 is an exact fp16 subnormal (0200, no flag);
# 1 + 2^-11 is a tie, kept at 1 (3C00) by nearest-even: inexact.

checks=$((checks + 1))
run_input "0400 3800\n3C00 1000\n" eval f16_mul --json
python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert rows[0] == {"line": 1, "operands": ["0400", "3800"], "result": "0200", "flags": "00", "flag_names": []}, rows[0]
assert rows[1]["line"] == 2 and rows[1]["result"] == "1000" and rows[1]["flags"] == "00", rows[1]
' <<< "$out" && [[ $rc == 0 ]] || fail "eval --json: JSON Lines with operands, result, flags"
checks=$((checks + 1))
run_input "3C00 1000\n" eval f16_add --json
[[ $rc == 0 && $out == '{"line":1,"operands":["3C00","1000"],"result":"3C00","flags":"01","flag_names":["inexact"]}' ]] ||
  fail "eval --json: a tie rounded to even is inexact ($out)"
checks=$((checks + 1))
run_input "2E66\n" eval f16_to_dec --json
[[ $rc == 0 && $out == '{"line":1,"operand":"2E66","shortest":"0.1","exact":"0.0999755859375"}' ]] ||
  fail "eval --json for <f>_to_dec ($out)"
checks=$((checks + 1))
run_input "3C00 3C00 4000 00\n3C00 3C00 4001 00\n3C00 3C00 4000 01\n" check f16_add --json --show 1
python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["schema"] == "floatlab-check/1" and j["operation"] == "f16_add", j
assert (j["passed"], j["failed"], j["mismatches_not_shown"]) == (1, 2, 1), j
m = j["mismatches"]
assert len(m) == 1 and m[0]["line"] == 2 and m[0]["result"] == "4000" and m[0]["expected_result"] == "4001", m
' <<< "$out" && [[ $rc == 1 ]] || fail "check --json: counts, the first mismatch, exit 1"

cli_finish floatlab_eval_check
