#!/usr/bin/env bash
# `floatlab show`, `range`, `table` and `calc` run as a user would: values, encodings, errors,
# JSON, exit codes, messages.
#
#   floatlab_explore.sh FLOATLAB
#
# Expected values come from python3, which shares no code with the library: struct's 'e' format
# (IEEE binary16, rounded by CPython's own code), 'f' for binary32 (bfloat16 is binary32's top 16
# bits), fractions.Fraction and decimal.Decimal for exact values; or they are derived by hand in
# the comments. Prints one line per failed expectation and exits 1 if there was any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
export NO_COLOR=1
out_flat_match=1   # a phrase may be wrapped across lines

# check_py NAME PYTHON_CODE: runs the code with `out` (last stdout) in the variable OUT; it must
# print "ok", otherwise what it prints is the failure.
check_py() {
  local name=$1 code=$2 verdict
  checks=$((checks + 1))
  verdict=$(OUT="$out" python3 -c "$PY_HELPERS
$code" 2>&1)
  [[ $verdict == ok ]] || fail "$name: $verdict"
}

# python3 helpers, independent of the library:
#   h(x)     x rounded to binary16 by struct (nearest even), as a float
#   hbits(x) its encoding as "0xHHHH"
#   exact(q) every digit of a Fraction with a terminating expansion, as floatlab's positional form
#   sci(q)   the same digits as d.ddde-XX
PY_HELPERS='
import json, os, struct, math
from fractions import Fraction as Q
from decimal import Decimal, getcontext
getcontext().prec = 2000
OUT = os.environ["OUT"]
def h(x): return struct.unpack("<e", struct.pack("<e", x))[0]
def hbits(x): return "0x%04X" % struct.unpack("<H", struct.pack("<e", x))[0]
def hval(bits): return struct.unpack("<e", struct.pack("<H", bits))[0]
def exact(q):
    d = Decimal(q.numerator) / Decimal(q.denominator)
    s = format(d, "f")
    if "." in s: s = s.rstrip("0").rstrip(".")
    return s
def sci(q):
    d = Decimal(q.numerator) / Decimal(q.denominator)
    m, e = ("%.200e" % d).split("e")
    m = m.rstrip("0").rstrip(".")
    return "%se%s%02d" % (m, "-" if int(e) < 0 else "+", abs(int(e)))
def need(cond, what):
    if not cond:
        print(what); raise SystemExit
# The low-bit formats decoded from their definitions (OCP MX v1.0 for FP4/FP6/E8M0; ml_dtypes for the
# fnuz and IEEE-style FP8 ones): (exponent bits, fraction bits, bias, kind). None for a NaN or an
# infinity; -0 as the string "-0".
LOWBIT = {"fp4": (2, 1, 1, "fo"), "fp6_e3m2": (3, 2, 3, "fo"), "fp6_e2m3": (2, 3, 1, "fo"),
          "e4m3fnuz": (4, 3, 8, "fnuz"), "e5m2fnuz": (5, 2, 16, "fnuz"), "e4m3b11fnuz": (4, 3, 11, "fnuz"),
          "e4m3ieee": (4, 3, 7, "ieee"), "e3m4": (3, 4, 3, "ieee"), "e8m0": (8, 0, 127, "e8m0")}
def lowbit(name, b):
    w, m, bias, kind = LOWBIT[name]
    if kind == "e8m0": return None if b == 0xFF else Q(2) ** (b - 127)
    s, e, f = b >> (w + m), (b >> m) & ((1 << w) - 1), b & ((1 << m) - 1)
    if kind == "ieee" and e == (1 << w) - 1: return None
    if kind == "fnuz" and s == 1 and e == 0 and f == 0: return None
    v = Q(f, 2 ** m) * Q(2) ** (1 - bias) if e == 0 else (1 + Q(f, 2 ** m)) * Q(2) ** (e - bias)
    if s and v == 0: return "-0"
    return -v if s else v
def signed_exact(v): return "-0" if v == "-0" else ("-" if v < 0 else "") + exact(abs(v))
'

# ---- show -------------------------------------------------------------------------------------------

# bfloat16 0.1: binary32 0.1 is 0x3DCCCCCD; bf16 keeps its top 16 bits, rounding the dropped 0xCCCD
# (> 0x8000, more than half) up: 0x3DCD = 0.10009765625.
expect_out "show 0.1 bf16" "0.10009765625" "0x3DCD" "0 | 01111011 | 1001101" "positive normal" "rounded up" \
  "lies between 0.099609375 and 0.10009765625" "flags       inexact" -- show 0.1 -f bf16
check_py "show 0.1 bf16: value from binary32's top half" '
b = struct.unpack("<I", struct.pack("<f", 0.1))[0]
top = (b >> 16) + (1 if (b & 0xFFFF) > 0x8000 else 0)
v = Q(struct.unpack("<f", struct.pack("<I", top << 16))[0])
need(top == 0x3DCD and exact(v) in OUT, "bf16 0.1 should be %s = 0x%04X" % (exact(v), top))
need("+" + exact(v - Q(1, 10)) + " absolute" in OUT, "absolute error %s" % exact(v - Q(1, 10)))
ulp = Q(1, 2**11)   # 0.1 = 1.6 * 2^-4, p = 8: ulp 2^(-4-7)
need("+" + exact((v - Q(1, 10)) / ulp) + " ulp" in OUT, "ulps %s" % exact((v - Q(1, 10)) / ulp))
print("ok")'

# binary16 0.1, checked against struct: value, encoding, error, neighbours
run show 0.1 -f fp16
check_py "show 0.1 fp16 against struct" '
v = Q(h(0.1))
need(exact(v) in OUT and hbits(0.1) in OUT, "want %s %s" % (exact(v), hbits(0.1)))
need(exact(v - Q(1, 10)) + " absolute" in OUT, "absolute error %s" % exact(v - Q(1, 10)))
need(exact((v - Q(1, 10)) / (Q(1, 10))) + " relative" in OUT, "relative")
need(exact((v - Q(1, 10)) / Q(1, 2**14)) + " ulp" in OUT, "ulps")   # 0.1 in [2^-4, 2^-3), p = 11
bits = int(hbits(0.1), 16)
need(exact(Q(hval(bits - 1))) + " (0x%04X) below" % (bits - 1) in OUT, "neighbour below")
need(exact(Q(hval(bits + 1))) + " (0x%04X) above" % (bits + 1) in OUT, "neighbour above")
need("rounded down" in OUT, "direction")
print("ok")'

# every rounding direction moves 0.1 to the expected neighbour (fp16 0.1 lies between 0x2E66 and 0x2E67)
expect_out "show -r upward" "0x2E67" "rounded up" "upward takes the upper" -- show 0.1 -f fp16 -r upward
expect_out "show -r toward_zero" "0x2E66" "toward_zero keeps the one nearer zero" -- show 0.1 -f fp16 -r minMag
expect_out "show negative -r downward" "0xAE67" "rounded down" -- show -0.1 -f fp16 -r downward
# 1 + 2^-11 = 1.00048828125 is halfway between 0x3C00 and 0x3C01: ties to even, or away
expect_out "show tie even" "0x3C00" "exactly halfway" "even" -- show 1.00048828125 -f fp16
expect_out "show tie away" "0x3C01" "away from zero" -- show 1.00048828125 -f fp16 -r nearest_away
# 65519 < 65520 = 65504 + 16 (half an ulp): nearest does not overflow; 65520 does; upward does at once
expect_out "show below overflow threshold" "65504" "does not overflow" -- show 65519 -f fp16
expect_out "show overflow" "inf" "overflowed" "flags       overflow, inexact" -- show 65520 -f fp16
expect_out "show saturate" "0x7BFF" "saturated" -- show 1e6 -f fp16 --saturate
# 2^-25 = 2.98023223876953125e-08 is half the smallest subnormal: a tie, to even (zero), underflow
expect_out "show underflow tie" "0x0000" "underflow, inexact" "exactly halfway" -- show 2.98023223876953125e-08 -f fp16
expect_out "show ftz" "flushed to zero" -- show 1e-6 -f fp16 --ftz
expect_out "show exact" "exact: 0.5 is a value of fp16" "0 absolute" -- show 0.5 -f fp16
expect_out "show hex float" "0x3200" "exact" -- show 0x1.8p-3 -f fp16
expect_out "show inf in e4m3" "e4m3 has no infinity" "invalid" -- show inf -f e4m3
# E4M3 464 = 1.1101b x 2^8 is halfway between 448 (1.110b, even) and 480 (1.111b x 2^8, whose slot is
# the NaN). IEEE 754-2019 §7.4 rounds with an unbounded exponent: nearest_even picks 448, no overflow;
# odd picks 480 (odd last bit), an overflow, and gives 448 with overflow raised; 465 is past the tie.
expect_out "show e4m3 tie 464" "0x7E" "between 448 and 480" "the tie goes to the even one" "does not overflow" \
  "flags       inexact" -- show 464 -f e4m3
expect_out "show e4m3 465 overflows" "0x7F" "overflow, inexact" -- show 465 -f e4m3
expect_out "show e4m3 464 odd" "0x7E" "overflow, inexact" "odd gives that value on overflow" -- show 464 -f e4m3 -r odd
expect_out "show e4m3 -470 toward_zero" "0xFE" "toward_zero picks -448, so it does not overflow" -- \
  show -f e4m3 -r toward_zero -- -470
expect_out "show nan" "quiet NaN" "0x7E00" -- show nan -f fp16
# a raw encoding: 0x3C01 is 1 + 2^-10
expect_out "show --bits" "1.0009765625" "raw encoding" "not rounded" -- show --bits 3C01 -f fp16
expect_out "show default formats" "in fp16" "in bf16" "in fp32" "in e4m3" "in e5m2" -- show 1
expect_out "show several values" "0.1 in fp16" "0.2 in fp16" -- show 0.1 0.2 -f fp16
# fp32 0.1 = 13421773 * 2^-27 = 0.100000001490116119384765625
expect_out "show fp32" "0.100000001490116119384765625" "0x3DCCCCCD" -- show 0.1 -f fp32
# a 3-digit-exponent value: relative error of 1e-40 in fp32 (subnormal) is not a terminating decimal
expect_out "show fp32 subnormal" "positive subnormal" "≈" -- show 1e-40 -f fp32

run show 0.1 -f bf16,fp16 --json
check_py "show --json" '
d = json.loads(OUT)
need(d["command"] == "show" and len(d["results"]) == 2, "two results")
r = d["results"][0]
need(r["format"] == "bf16" and r["bits"] == "0x3DCD" and r["exact"] == "0.10009765625", "bf16 value %r" % r)
need(r["fields"] == {"sign": "0", "exponent": "01111011", "fraction": "1001101"}, "fields")
need(r["direction"] == "up" and r["flags"] == ["inexact"] and r["class"] == "positive normal", "direction/flags")
need(r["error"]["ulps"] == {"value": "0.2", "exact": True}, "ulps %r" % r["error"]["ulps"])
need(r["next_down"]["bits"] == "0x3DCC" and r["next_up"]["bits"] == "0x3DCE", "neighbours")
need(r["ulp"]["exact"] == exact(Q(1, 2**11)), "ulp")
h16 = d["results"][1]
need(h16["bits"] == hbits(0.1) and h16["exact"] == exact(Q(h(0.1))), "fp16")
print("ok")'

# ---- range ------------------------------------------------------------------------------------------

run range -f fp16
check_py "range fp16 against struct" '
mx = Q(hval(0x7BFF)); mn = Q(hval(0x0400)); sub = Q(hval(0x0001)); eps = Q(hval(0x3C01)) - 1
need(mx == 65504 and "0x7BFF  65504" in OUT, "max finite 65504")
need(sci(sub) == "5.9604644775390625e-08" and "0x0001  " + sci(sub) in OUT, "min subnormal %s" % sci(sub))
need("0x0400  " + exact(mn) in OUT, "min normal %s" % exact(mn))
need(exact(eps) in OUT and exact(eps / 2) in OUT, "epsilon %s, unit roundoff %s" % (exact(eps), exact(eps / 2)))
need("-14, 15" in OUT and "bias            15" in OUT and "11 bits" in OUT, "emin emax bias precision")
need("3 (digits10), 5 (max_digits10)" in OUT, "digits")
need("0x7C00 (+inf), 0xFC00 (-inf)" in OUT and "2046 encodings" in OUT, "non-finite encodings")
print("ok")'
expect_out "range default: every named format" "fp16" "bf16" "fp32" "fp64" "tf32" "e4m3" "e5m2" -- range
expect_out "range custom format" "e3m2" -- range -f e3m2

run range --json
check_py "range --json" '
d = {f["format"]: f for f in json.loads(OUT)["formats"]}
need(len(d) == 16, "16 formats, got %d" % len(d))
h16 = d["fp16"]
need(h16["max_finite"]["exact"] == "65504" and h16["min_subnormal"]["exact"] == exact(Q(hval(1))), "fp16 values")
need((h16["precision"], h16["emin"], h16["emax"], h16["bias"]) == (11, -14, 15, 15), "fp16 parameters")
need(h16["epsilon"]["bits"] == "0x1400" and h16["unit_roundoff"]["log2"] == -11, "fp16 epsilon")
need(h16["infinity"] == ["0x7C00", "0xFC00"] and h16["nan_count"] == 2046, "fp16 non-finite")
f32 = d["fp32"]
maxf = Q(struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0])
need(f32["max_finite"]["exact"] == exact(maxf) and f32["max_finite"]["shortest"] == "3.4028235e+38", "fp32 max")
need((f32["digits10"], f32["max_digits10"]) == (6, 9), "fp32 digits")
# E4M3 (OCP): no infinity, NaN only S.1111.111, max S.1111.110 = 1.75 * 2^8 = 448
e = d["e4m3"]
need(e["infinity"] == [] and e["nan_count"] == 2 and e["max_finite"]["exact"] == "448", "e4m3")
need(d["e5m2"]["max_finite"]["exact"] == "57344", "e5m2 max 1.75 * 2^15")
# The low-bit formats: extremes from the decoder above (largest / smallest positive values).
for name in LOWBIT:
    f = d[name]
    vals = [lowbit(name, b) for b in range(2 ** f["bits"])]
    pos = sorted(v for v in vals if v is not None and v != "-0" and v > 0)
    need(f["max_finite"]["exact"] == exact(pos[-1]), "%s max %s vs %s" % (name, f["max_finite"]["exact"], exact(pos[-1])))
    need(Q(f["min_normal"]["exact"]) == Q(2) ** f["emin"], "%s min normal 2^emin" % name)
    kind = LOWBIT[name][3]
    if kind == "e8m0":
        need(f["min_subnormal"] is None and f["min_normal"]["exact"] == exact(pos[0]), "e8m0: no subnormals")
        need(f["has_sign"] is False and f["has_zero"] is False and f["kind"] == "exponent_only", "e8m0 kind")
        need(f["nan"] == [["0xFF", "0xFF"]] and f["nan_count"] == 1 and f["emax"] == 127, "e8m0 NaN 0xFF, max 2^127")
    else:
        need(f["min_subnormal"]["exact"] == exact(pos[0]), "%s min subnormal" % name)
    if kind == "fo":
        need(f["nan"] == [] and f["infinity"] == [] and f["has_nan"] is False and f["kind"] == "finite_only", name)
    if kind == "fnuz":
        need(f["nan"] == [["0x80", "0x80"]] and f["infinity"] == [] and f["has_negative_zero"] is False, name)
    if kind == "ieee":
        w, m = LOWBIT[name][:2]
        e_all = ((1 << w) - 1) << m   # exponent all ones, fraction 0
        need(f["infinity"] == ["0x%02X" % e_all, "0x%02X" % (e_all | 1 << (w + m))], "%s infinities %r" % (name, f["infinity"]))
need(d["fp4"]["max_finite"]["exact"] == "6" and d["e4m3fnuz"]["max_finite"]["exact"] == "240", "OCP / ml_dtypes maxima")
need(d["e4m3b11fnuz"]["max_finite"]["exact"] == "30" and d["fp6_e2m3"]["max_finite"]["exact"] == "7.5", "maxima")
print("ok")'
expect_out "range: what the new kinds lack" "fp4" "finite only: no inf, no NaN" "e4m3fnuz" "NaN 0x80" "no -0" \
  "e8m0" "unsigned, no zero" "min subnormal   none" "8 = 8 exponent (no sign bit, no fraction)" -- range -f fp4,e4m3fnuz,e8m0

# ---- show on the low-bit formats ---------------------------------------------------------------------

# fp4 (E2M1) 0.3: between 0 and 0.5, nearer 0.5 (0x1, a subnormal); 100 overflows to max finite 6
# (no infinity, no NaN); e4m3fnuz 300 overflows to its NaN 0x80; e8m0 0.001: between 2^-10 and 2^-9,
# nearer 2^-10 (field 117 = 0x75); -1 and 0 have no e8m0 encoding (NaN 0xFF, invalid).
expect_out "show 0.3 fp4" "stored      0.5" "0x1 = 0 | 00 | 1" "positive subnormal" "rounded up" -- show 0.3 -f fp4
expect_out "show 100 fp4" "stored      6" "0x7" "overflow, inexact" "no infinity and no NaN" -- show 100 -f fp4
expect_out "show 6.5 fp4" "stored      6" "flags       inexact" "does not overflow" -- show 6.5 -f fp4
expect_out "show 300 e4m3fnuz" "0x80" "quiet NaN" "overflow, inexact" "the -0 encoding 0x80" -- show 300 -f e4m3fnuz
expect_out "show -1e-9 e4m3fnuz: +0" "0x00 = 0 | 0000 | 000" "+0: e4m3fnuz has no -0" -- show -f e4m3fnuz -- -1e-9
expect_out "show 0.001 e8m0" "0.0009765625" "0x75 = 01110101  (exponent)" "nearer the" -- show 0.001 -f e8m0
expect_out "show -1 e8m0" "0xFF" "invalid" "unsigned with no zero" -- show -f e8m0 -- -1
expect_out "show 1e-40 e8m0" "0x00" "underflow, inexact" "no zero and no subnormals" -- show 1e-40 -f e8m0
expect_out "show nan fp4" "no infinity and no NaN" "invalid" -- show nan -f fp4
run show 0.3 1e6 -f fp4,fp6_e3m2,fp6_e2m3,e4m3fnuz,e5m2fnuz,e4m3b11fnuz,e4m3ieee,e3m4 --json
check_py "show --json on the low-bit formats: nearest value by enumeration" '
res = json.loads(OUT)["results"]
need(len(res) == 16, "16 results")
for r in res:
    name, x = r["format"], Q(r["input"])
    vals = [(lowbit(name, b), b) for b in range(2 ** (1 + sum(LOWBIT[name][:2])))]
    fin = [(v, b) for v, b in vals if v is not None and v != "-0"]
    top = max(v for v, b in fin)
    if x > top:   # overflow: finite_only clamps, fnuz gives its NaN, IEEE-style inf (nearest even)
        kind = LOWBIT[name][3]
        want = {"fo": exact(top), "fnuz": "nan", "ieee": "inf"}[kind]
        need(r["exact"] == want and "overflow" in r["flags"], "%s %s: %r" % (name, r["input"], r["exact"]))
        continue
    best = min(abs(v - x) for v, b in fin)
    near = sorted([(v, b) for v, b in fin if abs(v - x) == best and v >= 0])
    need(len(near) == 1 and r["exact"] == exact(near[0][0]) and r["bits"].upper() == ("0X%0*X" % (len(r["bits"]) - 2, near[0][1])).upper(),
         "%s %s: got %s %s, want %s" % (name, r["input"], r["exact"], r["bits"], near))
print("ok")'

# ---- table ------------------------------------------------------------------------------------------

run table e5m2 --json
check_py "table e5m2: every encoding is binary16 with a zero low byte" '
rows = json.loads(OUT)["rows"]
need(len(rows) == 256, "256 rows, got %d" % len(rows))
for b, r in enumerate(rows):
    v = hval(b << 8)
    need(r["bits"] == "0x%02X" % b, "bits of row %d" % b)
    if math.isnan(v): need("NaN" in r["class"], "row %d class %s" % (b, r["class"]))
    elif math.isinf(v): need("infinity" in r["class"], "row %d" % b)
    else: need(r["exact"] == ("-" if math.copysign(1, v) < 0 else "") + exact(abs(Q(v))), "row %d: %s vs %s" % (b, r["exact"], exact(Q(v))))
print("ok")'
run table e4m3
checks=$((checks + 1))
[[ $rc == 0 && $(wc -l <<<"$out") == 257 && $out == *"0x38  0 | 0111 | 000  1 "* && $out == *"0x7E  0 | 1111 | 110  448"* ]] ||
  fail "table e4m3: header + 256 rows, 0x38 = 1, 0x7E = 448"
# The low-bit formats are listed whole: every row against the decoder.
for name in fp4 fp6_e3m2 fp6_e2m3 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4 e8m0; do
  run table -f "$name" --json
  check_py "table $name: every encoding" '
name = json.loads(OUT)["format"]
rows = json.loads(OUT)["rows"]
bits = 8 if name == "e8m0" else 1 + LOWBIT[name][0] + LOWBIT[name][1]
need(len(rows) == 2 ** bits, "%s: %d rows" % (name, len(rows)))
for b, r in enumerate(rows):
    v = lowbit(name, b)
    need(int(r["bits"], 16) == b, "%s row %d bits" % (name, b))
    if v is None: need("NaN" in r["class"] or "infinity" in r["class"], "%s row %d: %s" % (name, b, r["class"]))
    else: need(r["exact"] == signed_exact(v), "%s row %d: %s vs %s" % (name, b, r["exact"], signed_exact(v)))
    if name == "e8m0": need(r["sign"] == "" and r["fraction"] == "", "e8m0 has no sign or fraction field")
print("ok")'
done
run table fp4
checks=$((checks + 1))
[[ $rc == 0 && $(wc -l <<<"$out") == 17 && $out == *"0x7  0 | 11 | 1  6 "* && $out == *"0x8  1 | 00 | 0  -0 "* ]] ||
  fail "table fp4: header + 16 rows, 0x7 = 6, 0x8 = -0"
# fnuz: the -0 slot 0x80 is the NaN, not a value: a range across zero skips it
run table e4m3fnuz --from -0.002 --to 0.001
checks=$((checks + 1))
[[ $rc == 0 && $out == *"0x82"*"0x81"*"0x00"*"0x01"* && $out != *"0x80"* ]] || fail "table e4m3fnuz across zero: $out"
expect_out "table e4m3fnuz --count across zero" "0x81" "0x00" "0x01" -- table e4m3fnuz --from -0.001 --count 3
expect_out "table e8m0 from its smallest value" "0x00  00000000" "0x01  00000001" -- table e8m0 --count 2
expect_error "table e8m0 --from 0" "not a value of e8m0" -- table e8m0 --from 0 --count 2
# 1 to 2 in fp16: 1 + k 2^-10 for k = 0..1024
run table fp16 --from 1 --to 2
checks=$((checks + 1))
[[ $rc == 0 && $(wc -l <<<"$out") == 1026 && $out == *"0x3C01  0 | 01111 | 0000000001  1.0009765625"* ]] ||
  fail "table fp16 --from 1 --to 2: 1025 values"
run table fp16 --from 0.1 --count 2 --json
check_py "table --from rounds up, --count" '
rows = json.loads(OUT)["rows"]
b = int(hbits(0.1), 16)
b = b if Q(hval(b)) >= Q(1, 10) else b + 1   # the smallest fp16 value >= 0.1
need([r["bits"] for r in rows] == ["0x%04X" % b, "0x%04X" % (b + 1)], "rows %r" % rows)
print("ok")'
expect_out "table -0 then +0" "0x8000" "0x0000" -- table fp16 --bits --from 8001 --count 3
expect_out "table --bits" "0x3F81" -- table bf16 --bits --from 3F80 --count 2
expect_error "table wide format without range" "give a range" "--from X --to Y" "--count" -- table fp16
expect_error "table empty range" "above --to" -- table fp16 --from 2 --to 1
expect_error "table unknown format" "unknown format 'fp17'" "fp16" "bf16" -- table fp17
expect_error "table bad number" "--from '1x' is not a number" "position 1" -- table fp16 --from 1x --to 2
expect_error "table --count 0" "--count" -- table fp16 --from 1 --count 0

# ---- calc -------------------------------------------------------------------------------------------

run calc "1 + 1e-4" -f fp16
check_py "calc 1 + 1e-4 in fp16" '
r = h(1 + h(1e-4))   # binary64 holds the exact sum; one rounding to binary16
need(r == 1.0 and "1 + 1e-4 = 1 in fp16 (0x3C00)" in OUT and "inexact" in OUT, "want 1 (0x3C00): " + OUT)
print("ok")'
run calc "1 + 1e-4" -f fp16 --steps
check_py "calc --steps" '
x = Q(h(1e-4))
need("literal 1e-4" in OUT and exact(x) in OUT, "literal rounded to %s" % exact(x))
need(exact(1 + x) in OUT and "rounded down" in OUT and "0x3C00" in OUT, "exact sum %s" % exact(1 + x))
need(exact(-x) + " absolute" in OUT, "error %s" % exact(-x))
print("ok")'
for e in "0.1 + 0.2" "0.1 * 3" "1 / 3" "2 - 0.7" "(0.1 + 0.2) * 10" "-0.1 - 0.2"; do
  run calc "$e" -f fp16 --json
  check_py "calc '$e' against struct" '
ops = {"0.1 + 0.2": lambda: h(h(0.1) + h(0.2)), "0.1 * 3": lambda: h(h(0.1) * 3), "1 / 3": lambda: h(1 / 3),
       "2 - 0.7": lambda: h(2 - h(0.7)), "(0.1 + 0.2) * 10": lambda: h(h(h(0.1) + h(0.2)) * 10),
       "-0.1 - 0.2": lambda: h(h(-0.1) - h(0.2))}
d = json.loads(OUT)
want = ops[d["expression"]]()   # binary64 holds each exact fp16 sum/product; 1/3: 53 >= 2*11+2
need(d["result"]["bits"] == hbits(want), "%s: got %s, want %s" % (d["expression"], d["result"]["bits"], hbits(want)))
print("ok")'
done
# An EXPR that starts with '-' is an expression, not an option, wherever it stands.
for e in "-(1+2)" "-sqrt(2)" "-.5 + 1" "-.5"; do
  run calc -f fp16 "$e" --json
  check_py "calc '$e': a leading minus" '
ops = {"-(1+2)": lambda: -3.0, "-sqrt(2)": lambda: -h(math.sqrt(2)), "-.5 + 1": lambda: h(-0.5 + 1), "-.5": lambda: -0.5}
d = json.loads(OUT)
want = ops[d["expression"]]()
need(d["result"]["bits"] == hbits(want), "%s: got %s, want %s" % (d["expression"], d["result"]["bits"], hbits(want)))
print("ok")'
done
run calc "sqrt(2)" -f fp16 --json
check_py "calc sqrt against math.sqrt" '
d = json.loads(OUT)
need(d["result"]["bits"] == hbits(math.sqrt(2)), "sqrt(2): %s vs %s" % (d["result"]["bits"], hbits(math.sqrt(2))))
need(d["steps"][-1]["op"] == "sqrt" and d["steps"][-1]["exact"]["exact"] is False, "sqrt(2) is irrational")
print("ok")'
# fma(3, 1/3, -1): 1/3 -> 0x3555 = 0.333251953125; 3 * that - 1 = -2^-12 exactly (one rounding);
# unfused, 3 * 0x3555 = 1 - 2^-12 is a tie between 1 - 2^-11 and 1, to even: 1, and 1 - 1 = 0.
run calc "fma(3, 1/3, -1)" -f fp16 --json
check_py "calc fma: one rounding" '
d = json.loads(OUT)
third = Q(h(1 / 3))
want = 3 * third - 1
need(want == Q(-1, 4096) and d["result"]["exact"] == exact(want) and d["result"]["bits"] == hbits(float(want)), "fma %r" % d["result"])
need([s["op"] for s in d["steps"]] == ["literal", "literal", "literal", "div", "literal", "fma"], "steps %r" % [s["op"] for s in d["steps"]])
print("ok")'
expect_out "calc unfused: 0" "= 0 in fp16 (0x0000)" -- calc "3 * (1/3) - 1" -f fp16
expect_out "calc bf16" "= 0.10009765625 in bf16" -- calc "0.1" -f bf16
expect_out "calc rounding mode" "(0x2E67)" -- calc "0.1" -f fp16 -r upward
expect_out "calc division by zero" "inf" "divide_by_zero" -- calc "1 / 0" -f fp16
expect_out "calc invalid" "nan" "invalid" -- calc "sqrt(-1)" -f fp16
expect_out "calc overflow" "inf" "overflow" -- calc "60000 + 60000" -f fp16
expect_out "calc unary minus" "= -6 in fp16" -- calc -f fp16 -- "-(2 * 3)"
expect_out "calc leading minus number" "= 1 in fp16" -- calc "-1 + 2" -f fp16
expect_out "calc precedence" "= 7 in fp16" -- calc "1 + 2 * 3" -f fp16
expect_out "calc hex float" "= 0.1875 in fp16" -- calc "0x1.8p-3" -f fp16
expect_error "calc: missing operand" "at position 4" "unexpected '*'" "expected a number" $'\n    1 + * 2\n        ^' -- \
  calc "1 + * 2" -f fp16
expect_error "calc: unexpected end" "at position 3" "unexpected end of the expression" -- calc "1 +" -f fp16
expect_error "calc: unclosed parenthesis" "expected ')' to close the '(' at position 0" -- calc "(1 + 2" -f fp16
expect_error "calc: unknown function" "unknown name 'foo'" "sqrt(x) or fma(a, b, c)" -- calc "foo(1)" -f fp16
expect_error "calc: fma arity" "',' between the 3 arguments" -- calc "fma(1, 2)" -f fp16
expect_error "calc: malformed number" "at position 3" "malformed number '1.2.3'" "accepted" -- calc "1.2.3 + 1" -f fp16
expect_error "calc: trailing garbage" "at position 2" "expected an operator" -- calc "1 2" -f fp16
expect_error "calc: empty" "empty expression" -- calc "" -f fp16
deep=$(printf '(%.0s' $(seq 300))1$(printf ')%.0s' $(seq 300))
expect_error "calc: too deep" "nested too deeply" -- calc "$deep" -f fp16
long=$(printf '1+%.0s' $(seq 20000))1
expect_out "calc: a long chain does not recurse" "= 2048 in fp16" -- calc "$long" -f fp16   # 2048 + 1 = 2048 (ulp 2)
expect_error "calc: unknown format" "unknown format 'fp17'" "fp16" "e4m3" -- calc "1" -f fp17
expect_error "calc: no format" "format" -- calc "1"

# ---- errors shared by the subcommands -----------------------------------------------------------

expect_error "show: unparsable number" "VALUE '1.2.3' is not a number" "at position 3" "accepted:" -- show 1.2.3 -f fp16
expect_error "show: unknown format" "unknown format 'fp8'" "fp16" "e5m2" -- show 1 -f fp8
expect_error "show: empty format name" "empty format name" -- show 1 -f fp16,
expect_error "show: --bits too wide" "not a raw e4m3 encoding: too wide" -- show --bits 3C00 -f e4m3
expect_error "show: --bits without -f" "--bits needs -f FORMAT" -- show --bits 3C00
expect_error "show: bad rounding" "unknown rounding 'sideways'" -- show 1 -r sideways
expect_error "show: no value" "VALUE" -- show
expect_error "range: unknown format" "unknown format 'half16'" -- range -f half16
expect_error "unknown format lists the new names" "unknown format 'fp5'" "e4m3fnuz" "fp4" "e8m0" "fp6_e2m3" -- show 1 -f fp5

# ---- help, colour -----------------------------------------------------------------------------------

for sub in show range table calc; do
  checks=$((checks + 1))
  run "$sub" --help
  [[ $rc == 0 && $out == *"Examples:"* && $out == *"--json"* && $out == *'"command":"'"$sub"* ]] ||
    fail "$sub --help: examples and the JSON schema"
done
expect_out "show --help shows computed output" "0.10009765625" "--bits" -- show --help
expect_out "calc --help shows computed output" "1 + 1e-4 = 1 in fp16 (0x3C00)" -- calc --help
expect_out "range --help shows computed output" "5.9604644775390625e-08" -- range --help
checks=$((checks + 1))
run show 0.1 -f bf16
[[ $out != *$'\x1b'* ]] || fail "no escape sequences when not on a terminal"
checks=$((checks + 1))
run range
too_wide=$(awk 'length > 80' <<<"$out" | head -3)
[[ -z $too_wide ]] || fail "range output wider than 80 columns: $too_wide"

cli_finish floatlab_explore
