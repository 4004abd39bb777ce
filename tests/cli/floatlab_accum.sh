#!/usr/bin/env bash
# `floatlab sum`, `dot` and `gemm` run as a user would: results, the exact reference, --json, every
# error path and its exit code.
#
#   floatlab_accum.sh FLOATLAB
#
# Expected values are derived independently of the library: by hand (the fp16 sum of 4096 ones
# stops at 2048: 2048 + 1 lies halfway between the fp16 neighbours 2048 and 2050, and ties go to
# the even significand, 2048), or by python3 with fractions.Fraction (exact sums) and struct's
# binary32 rounding (an fp32 accumulator). Prints one line per failed expectation, exits 1 if any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 2; }
error_stdout_empty=1
json_args=(--json)
# expect_json checks also see `m`, the models by name, and these helpers:
json_helpers='
m = {x["name"]: x for x in j.get("models", [])}
def f32(x):  # round a double to binary32, nearest even, as C converts
    return struct.unpack("<f", struct.pack("<f", x))[0]
def bits32(h):  # the binary32 value of the "bits" field
    return struct.unpack("<f", int(h, 16).to_bytes(4, "little"))[0]
def exact(s):  # a shortest fp64 decimal as the exact binary64 value
    return Fraction(float(s))
'

# ---- sum: the fp16 stall at 2048 (hand-derived), exact and fp32 against python ------------------

expect_json "fp16 sum of 4096 ones stalls at 2048" \
  'm["fp16-acc"]["result"] == "2048" and m["fp32-acc"]["result"] == "4096" and m["exact"]["result"] == "4096"
   and "inexact" in m["fp16-acc"]["flags"] and m["fp32-acc"]["flags"] == []
   and m["fp16-acc"]["error"]["absolute"] == 2048 and m["fp16-acc"]["error"]["relative"] == 0.5' \
  -- sum --dist ones --n 4096 --model fp16-acc,fp32-acc,exact
# The trace's first stall is the step of term 2048 (counting from 0): 2048 + 1 ties to 2048.
expect_json "the trace finds the stall" \
  'm["fp16-acc"]["trace"]["first_stall"] == 2048 and m["fp16-acc"]["trace"]["absorbed_terms"] == 2048
   and m["fp16-acc"]["trace"]["steps"] == 4096
   and any(r["step"] == 2048 and r["value"] == "2048" and r["last"] == 2048 for r in m["fp16-acc"]["trace"]["rows"])
   and len(m["fp16-acc"]["trace"]["rows"]) < 60' \
  -- sum --dist ones --n 4096 --model fp16-acc --trace
expect_out "text trace marks the stall" "fp16-acc" "2048" "first stall" -- \
  sum --dist ones --n 4096 --model fp16-acc --trace --trace-every 0
expect_json "--trace-every 0 --trace-head 2 --trace-tail 1: 2 + 1 + the stall" \
  '[r["step"] for r in m["fp16-acc"]["trace"]["rows"]] == [0, 1, 2048, 4095]' \
  -- sum --dist ones --n 4096 --model fp16-acc --trace --trace-every 0 --trace-head 2 --trace-tail 1

# fp16 values (exactly representable, so the data are these numbers), spanning 2^-24 .. 2^15.
cat >"$tmp/small.txt" <<'NUM'
# a comment line
1024
0.0009765625
3.5

-0.125
65504
5.9604644775390625e-08
-32768
0.333251953125
NUM
sum_expr='j["exact"]["exact_in_fp64"] and exact(m["exact"]["result"]) == sum(Fraction(l) for l in open("'$tmp'/small.txt").read().split() if l[0] in "-0123456789")'
expect_json "exact sum = python Fraction sum" "$sum_expr" -- sum "$tmp/small.txt" --model fp32-acc,exact
# fp32-acc: acc = fl32(acc + x) in order; each acc + x is exact in binary64 here (span < 53 bits).
fp32_expr='bits32(m["fp32-acc"]["bits"]) == __import__("functools").reduce(lambda a, x: f32(a + x), [float(Fraction(l)) for l in open("'$tmp'/small.txt").read().split() if l[0] in "-0123456789"], 0.0)'
expect_json "fp32-acc sum = python binary32 loop" "$fp32_expr" -- sum "$tmp/small.txt" --model fp32-acc,exact
expect_json "exact sum: schema" \
  'j["schema"] == "floatlab-accum/1" and j["command"] == "sum" and j["n"] == 8 and j["input_format"] == "fp16"
   and j["data"]["source"] == "file" and j["exact"]["exact_in_fp64"] is True and m["exact"]["kind"] == "exact"
   and m["fp32-acc"]["kind"] == "accumulation" and m["fp32-acc"]["accumulator_format"] == "fp32"
   and set(m["fp32-acc"]["error"]) == {"absolute", "relative", "ulps", "bound_ratio"}' \
  -- sum "$tmp/small.txt" --model fp32-acc,exact
printf '1\n3\n' >"$tmp/stdin.txt"
stdin_file=$tmp/stdin.txt expect_json "stdin as FILE" 'm["exact"]["result"] == "4" and j["data"]["files"] == ["-"]' -- sum - --model exact

# ---- dot: exact against python, the tensor-core test vector "1*2 + 1*(2^-23 + 2^-24)" -------------

# 2^-23 + 2^-24 = 3 * 2^-24 is an fp16 subnormal. Exact: 2 + 3*2^-24. fp32 RNE fma chain: the
# addend is 0.75 ulp of 2 (ulp 2^-22), so 2 + 2^-22. A100 block FMA (N 8, F 24): the largest
# product 1*2 has exponent 1, so the other term is truncated to the grid 2^(1-24): 3*2^-24 becomes
# 2^-23; the sum 2 + 2^-23 is then truncated to 23 fraction bits (ulp 2^-22): 2.
printf '1 2\n1 1.78813934326171875e-07\n' >"$tmp/pairs.txt"
expect_json "dot: exact, fp32 RNE and the A100 truncation" \
  'exact(m["exact"]["result"]) == 2 + Fraction(3, 2**24) and Fraction(bits32(m["fp32-acc"]["bits"])) == 2 + Fraction(1, 2**22)
   and m["ampere_fp16"]["result"] == "2" and m["ampere_fp16"]["kind"] == "matrix_unit"' \
  -- dot "$tmp/pairs.txt" --model fp32-acc,ampere_fp16,exact
printf '0.5\n-3\n1024\n0.0009765625\n' >"$tmp/a.txt"
printf '7\n0.25\n-0.125\n65504\n' >"$tmp/b.txt"
expect_json "dot of two files: exact = python Fractions" \
  'exact(m["exact"]["result"]) == sum(Fraction(x) * Fraction(y) for x, y in zip(open("'$tmp'/a.txt").read().split(), open("'$tmp'/b.txt").read().split()))
   and j["n"] == 4 and j["command"] == "dot"' \
  -- dot "$tmp/a.txt" "$tmp/b.txt" --model fp16-acc,exact
expect_out "hopper_fp8 --fp8-scaling none says it converts to e4m3" "hopper_fp8: inputs converted fp16 -> e4m3" -- \
  dot --n 256 --model hopper_fp8,exact --fp8-scaling none
expect_error "--fp8-scaling: unknown recipe" "--fp8-scaling: unknown recipe 'delayed'" "accepted: current, none" -- \
  dot --n 4 --fp8-scaling delayed

# FP8 units under current scaling (TE Float8CurrentScaling). a = 2^-9, 2^-10, -2^-11: amax 2^-9, so
# S_a = 448 / 2^-9 = 229376 (exact in fp32) and a * S_a = 448, 224, -112, all E4M3 values; b = 1,
# 0.5, 0.25: S_b = 448, b * S_b = 448, 224, 112. hopper_fp8 (N 32, F 13, 13 fraction bits) sums
# 448^2 + 224^2 - 112^2 = 238336 exactly (every term a multiple of 2^(17 - 13)); the result is
# 238336 * fl32(fl32(1/229376) * fl32(1/448)), each step an fp32 rounding (python: struct).
printf '0.001953125 1\n0.0009765625 0.5\n-0.00048828125 0.25\n' >"$tmp/fp8cur.txt"
expect_json "hopper_fp8 current scaling: scales, exact block sum, fp32 epilogue" \
  'Fraction(bits32(m["hopper_fp8"]["bits"])) == Fraction(f32(238336 * f32(f32(1 / 229376) * f32(1 / 448))))
   and "a x 229376 and b x 448 " in m["hopper_fp8"]["input_conversion"]
   and exact(m["exact"]["result"]) == Fraction(1, 2**9) + Fraction(1, 2**11) - Fraction(1, 2**13)' \
  -- dot "$tmp/fp8cur.txt" --model hopper_fp8,exact

# Block-scaled models. 32 pairs (1.5 * 2^-20, 2^10): each MXFP8 block quantizes exactly (a power-of-two
# scale, elements 1.5 * 2^k), and the unit sums 32 equal terms exactly: 32 * 1.5 * 2^-10.
for i in $(seq 32); do printf '1.430511474609375e-06 1024\n'; done >"$tmp/mx_exact.txt"
expect_json "mxfp8: exact data stays exact" \
  'exact(m["mxfp8"]["result"]) == Fraction(3, 2**6) == exact(m["exact"]["result"]) and m["mxfp8"]["kind"] == "block_scaled"
   and m["mxfp8"]["flags"] == [] and "a and b quantized to mxfp8: 0 of 64 values changed" in m["mxfp8"]["input_conversion"]' \
  -- dot "$tmp/mx_exact.txt" --input-format fp32 --model mxfp8,exact
# K = 64 is two kind::mxf8f6f4 instructions (K 32 each). The first sums 32 ones: 32. The second
# starts from c = 32 (exponent 5) with 32 products 2^-30 * 1 (exponent -30): each is truncated onto
# the grid 2^(5 - 25) to 0, so the result stays 32 with inexact; the exact dot is 32 + 2^-25.
{ for i in $(seq 32); do printf '1 1\n'; done; for i in $(seq 32); do printf '9.313225746154785e-10 1\n'; done; } >"$tmp/mx_trunc.txt"
expect_json "mxfp8: the next instruction truncates products below c's grid" \
  'exact(m["mxfp8"]["result"]) == 32 and m["mxfp8"]["flags"] == ["inexact"]
   and exact(m["exact"]["result"]) == 32 + Fraction(1, 2**25)' \
  -- dot "$tmp/mx_trunc.txt" --input-format fp32 --model mxfp8,exact
expect_out "block-scaled sum: the terms are quantized" "mxfp4: the terms quantized to mxfp4" \
  "a sum on a matrix unit is its dot product with ones" -- sum --n 64 --model mxfp4,nvfp4,exact
expect_out "dot usage names FILE..." "Usage: floatlab dot [OPTIONS] [FILE...]" -- dot --help
expect_out "gemm usage names FILE..." "Usage: floatlab gemm [OPTIONS] [FILE...]" -- gemm --help
expect_out "--model list: block-scaled models" "Block-scaled GEMM models" "nvfp4" "blackwell_mxf4" -- dot --model list
expect_out "gemm: block-scaled and scaled FP8 models" "mxfp8: a and b quantized to mxfp8" \
  "hopper_fp8: current scaling" -- gemm --m 4 --n 3 --k 64 --model hopper_fp8,mxfp8,nvfp4,exact
expect_json "generated dot is reproducible and models differ from exact" \
  'j["data"] == {"source": "generated", "dist": "normal", "seed": 3} and m["fp16-acc"]["error"]["relative"] > 0
   and m["exact"]["error"]["absolute"] == 0' \
  -- dot --n 1000 --seed 3 --model fp16-acc,exact

# binary32 data on the tf32 units: 1 + 2^-10 + 2^-11 lies halfway between the tf32 values
# 1 + 2^-10 and 1 + 2^-9. The tf32 presets truncate it, as the MATLAB models' GEMM.m does (CPFloat
# round = 4): 1 + 2^-10 (times 1, plus 0: nothing else is rounded); nearest even would give 1 + 2^-9.
printf '1.00146484375 1\n' >"$tmp/tf32.txt"
expect_json "tf32 units truncate binary32 data" \
  'all(Fraction(bits32(m[u]["bits"])) == 1 + Fraction(1, 2**10) and "fp32 -> tf32 (toward zero)" in m[u]["input_conversion"]
       for u in ("ampere_tf32", "hopper_tf32", "blackwell_tf32"))
   and exact(m["exact"]["result"]) == 1 + Fraction(1, 2**10) + Fraction(1, 2**11)' \
  -- dot "$tmp/tf32.txt" --input-format fp32 --model ampere_tf32,hopper_tf32,blackwell_tf32,exact
# The same number on an fp16 unit: nearest even (GEMM.m round = 1); 2^-11 is half an fp16 ulp
# above 1 + 2^-10 (odd), so the tie goes up to 1 + 2^-9.
expect_json "fp16 units round binary32 data to nearest even" \
  'Fraction(bits32(m["ampere_fp16"]["bits"])) == 1 + Fraction(1, 2**9) and "(nearest even)" in m["ampere_fp16"]["input_conversion"]' \
  -- dot "$tmp/tf32.txt" --input-format fp32 --model ampere_fp16

# The exact reference with infinities (IEEE 754-2019 §7.2): +inf*1 + -inf*1 is a magnitude
# subtraction of infinities, 0*inf an invalid product: NaN and invalid; +inf + +inf is +inf, no flag.
printf 'inf 1\n-inf 1\n' >"$tmp/inf_minus_inf.txt"
expect_json "exact dot: inf - inf is invalid" \
  'm["exact"]["flags"] == ["invalid"] and m["exact"]["result"] in ("nan", "-nan")' \
  -- dot "$tmp/inf_minus_inf.txt" --input-format fp32 --model exact
printf 'inf\n1\n-inf\n' >"$tmp/inf_minus_inf_sum.txt"
expect_json "exact sum: inf - inf is invalid" \
  'm["exact"]["flags"] == ["invalid"] and m["exact"]["result"] in ("nan", "-nan")' \
  -- sum "$tmp/inf_minus_inf_sum.txt" --model exact
printf '0 inf\n1 1\n' >"$tmp/zero_times_inf.txt"
expect_json "exact dot: 0 * inf is invalid" 'm["exact"]["flags"] == ["invalid"]' \
  -- dot "$tmp/zero_times_inf.txt" --model exact
printf 'inf 1\ninf 2\n' >"$tmp/inf_plus_inf.txt"
expect_json "exact dot: inf + inf = inf, no flag" 'm["exact"]["flags"] == [] and m["exact"]["result"] == "inf"' \
  -- dot "$tmp/inf_plus_inf.txt" --model exact

# ---- gemm: exact C against python ------------------------------------------------------------

printf '1 2 0.5\n-3 0.25 8\n' >"$tmp/A.txt"   # 2 x 3
printf '1 0\n0.125 4\n-2 1024\n' >"$tmp/B.txt"  # 3 x 2
gemm_expr='(lambda A, B: [exact(c) for c in m["exact"]["c"]] == [sum(A[i][q] * B[q][j] for q in range(3)) for i in range(2) for j in range(2)])(
  [[Fraction(x) for x in l.split()] for l in open("'$tmp'/A.txt")], [[Fraction(x) for x in l.split()] for l in open("'$tmp'/B.txt")])
  and j["m"] == 2 and j["n"] == 2 and j["k"] == 3 and len(m["fp32-acc"]["c"]) == 4'
expect_json "gemm: exact C = python Fractions" "$gemm_expr" -- gemm "$tmp/A.txt" "$tmp/B.txt" --model fp32-acc,ampere_fp16,exact
expect_out "gemm generated" "max ulps" "ampere_fp16" -- gemm --m 4 --n 3 --k 64 --model fp32-acc,ampere_fp16,exact

# ---- --model list and --help ----------------------------------------------------------------

expect_out "--model list" "fp16-acc" "fp32-acc" "fp16-pairwise" "fp16-kahan" "volta_fp16" "hopper_fp8" \
  "deepseek_fp8_promote128" "exact" -- dot --model list
expect_out "--model list: each unit's input conversion" "tf32 inputs (wider data converted toward zero)" \
  "fp16 inputs (wider data converted nearest even)" "e4m3 inputs (wider data converted nearest even)" -- dot --model list
expect_out "sum --help: examples and JSON schema" "Examples:" "floatlab-accum/1" -- sum --help
expect_out "gemm --help" "Examples:" "--m" -- gemm --help

# ---- errors: exit 2, a message naming the problem ------------------------------------------------

expect_error "unknown model" "unknown model 'fp17-acc'" "fp16-acc" "ampere_fp16" "exact" -- \
  sum --n 4 --model fp16-acc,fp17-acc
expect_error "empty model name" "empty model name" -- dot --n 4 --model fp16-acc,,exact
expect_error "unknown input format" "--input-format" "fp16" -- sum --n 4 --input-format fp12
expect_error "unknown rounding" "unknown rounding 'sideways'" -- sum --n 4 --rounding sideways
printf '1\n2\nabc\n' >"$tmp/bad.txt"
expect_error "not a number: file:line" "$tmp/bad.txt:3: 'abc' is not a number" -- sum "$tmp/bad.txt"
printf '1 2\n3 x4\n' >"$tmp/badpairs.txt"
expect_error "not a number in a pair" "$tmp/badpairs.txt:2: 'x4' is not a number" -- dot "$tmp/badpairs.txt"
: >"$tmp/empty.txt"
expect_error "empty file" "$tmp/empty.txt: no numbers (empty input" -- sum "$tmp/empty.txt"
printf '# only a comment\n\n' >"$tmp/comment.txt"
expect_error "comments only" "no numbers" -- dot "$tmp/comment.txt"
expect_error "missing file" "cannot open '$tmp/nope.txt'" -- sum "$tmp/nope.txt"
printf '1\n2\n3\n' >"$tmp/three.txt"
expect_error "mismatched lengths" "mismatched lengths" "has 4 numbers" "has 3" -- dot "$tmp/a.txt" "$tmp/three.txt"
expect_error "one number in a pair file" "$tmp/three.txt:1: 1 numbers on the line, expected two" -- dot "$tmp/three.txt"
expect_error "two numbers in a sum file" "$tmp/pairs.txt:1: 2 numbers on the line, expected one per line" -- \
  sum "$tmp/pairs.txt"
expect_error "--n 0" "--n: '0' is too small" "from 1 to" -- sum --n 0
expect_error "FILE with --n" "--n generates data" -- sum "$tmp/small.txt" --n 5
expect_error "--low with normal" "--low applies to --dist uniform" -- dot --n 4 --low 3
expect_error "--low >= --high" "--low must be below --high" -- sum --n 4 --dist uniform --low 2 --high 1
expect_error "unknown dist" "--dist" -- sum --n 4 --dist cauchy
expect_error "--trace-every without --trace" "need --trace" -- sum --n 4 --trace-every 3
expect_error "gemm --m 0" "--m: '0' is too small" "from 1 to" -- gemm --m 0 --n 2 --k 2
expect_error "gemm too large" "M*N*K must be at most" -- gemm --m 100000 --n 100000 --k 100000
expect_error "gemm A cols != B rows" "bad sizes" "needs K = 3 rows, but it has 2 rows" -- gemm "$tmp/A.txt" "$tmp/A.txt"
printf '1 2\n3\n' >"$tmp/ragged.txt"
expect_error "gemm ragged rows" "$tmp/ragged.txt:2: 1 numbers on the line, but the first row of A has 2" -- \
  gemm "$tmp/ragged.txt" "$tmp/B.txt"
expect_error "gemm one file" "gemm reads two FILEs" -- gemm "$tmp/A.txt"
expect_error "dot three files" "" -- dot "$tmp/a.txt" "$tmp/a.txt" "$tmp/a.txt"

cli_finish floatlab_accum
