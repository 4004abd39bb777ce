#!/usr/bin/env bash
# `floatlab grads FILE --recipe ...` run as a user would: every recipe on a generated gradient dump
# (log-normal magnitudes over 2^-30..2^2, written with python3's struct), the --json fields checked
# against python3 recomputations with exact fractions (each recipe's scales from its definition,
# which values must become zero or saturate), the text table, --plot, --shape, and every error path
# (unknown recipe: exit 2 listing the names).
#
#   floatlab_grads_recipes.sh FLOATLAB
#
# Prints one line per failed expectation and exits 1 if there was any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
json_args=(--json)

# ---- input files --------------------------------------------------------------------------------
python3 - "$tmp" <<'PY'
import random, struct, sys
d = sys.argv[1]

def npy(name, shape, data, fortran=False):
    dims = ''.join('%d, ' % s for s in shape)
    shape_s = '(' + (dims[:-2] + ',' if len(shape) == 1 else dims[:-2]) + ')'
    header = "{'descr': '<f4', 'fortran_order': %s, 'shape': %s, }" % (fortran, shape_s)
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    with open(f'{d}/{name}', 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack('<%df' % len(data), *data))

# A gradient dump: log2|g| normal around -14 (sd 5) clipped to [-30, 2], random signs, as float32.
r = random.Random(7)
g = [(1 if r.random() < 0.5 else -1) * 2.0 ** min(2.0, max(-30.0, r.gauss(-14, 5))) for _ in range(4096)]
g = [struct.unpack('<f', struct.pack('<f', v))[0] for v in g]
npy('g.npy', (4096,), g)
npy('m.npy', (16, 256), g)                  # rows x cols from the shape
npy('f.npy', (256, 16), g, fortran=True)    # Fortran order: read as its transpose, 16 x 256
open(f'{d}/small.txt', 'w').write('1\n-0.5\n0\n1e-30\nnan\n448\n')
PY

# Python run before every JSON check: the dump's values and exact models of the recipes' scales.
json_helpers='
import struct
from fractions import Fraction as F
def load(path):
    b = open(path, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    data = b[10 + n:]
    return list(struct.unpack("<%df" % (len(data) // 4), data))
def rn32(q):                      # q > 0 to nearest even binary32 (normal range)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while F(2) ** e > q: e -= 1
    while F(2) ** (e + 1) <= q: e += 1
    m = q / F(2) ** (e - 23)
    n = m.numerator // m.denominator
    rem = m - n
    if rem > F(1, 2) or (rem == F(1, 2) and n % 2): n += 1
    return F(n) * F(2) ** (e - 23)
def e4m3_grid():                  # finite E4M3 values >= 0 in code order, then 480 (the tie with max)
    out = []
    for c in range(0x7F):
        e, m = c >> 3, c & 7
        out.append(F(m, 8) * F(2) ** -6 if e == 0 else F(8 + m, 8) * F(2) ** (e - 7))
    return out + [F(480)]
E4M3 = e4m3_grid()
def rne_e4m3(q):                  # q >= 0, saturating
    for i in range(len(E4M3) - 1):
        if q < E4M3[i + 1]:
            lo, hi = E4M3[i], E4M3[i + 1]
            v = lo if q - lo < hi - q else hi if hi - q < q - lo else (lo if i % 2 == 0 else hi)
            return min(v, F(448))
    return F(448)
def blocks(v, n):
    return [v[i:i + n] for i in range(0, len(v), n)]
def amax(v):
    return max(abs(F(x)) for x in v)
def nonzero_at_most(v, d, limit):  # values x != 0 with |x| / d <= limit
    return sum(1 for x in v if x != 0 and abs(F(x)) / d <= limit)
def rec(name):
    return next(r for r in j["recipes"] if r["recipe"] == name)
def classes_add_up(r):
    return r["zero"] + r["saturated"] + r["inexact"] + r["exact"] + r["nonfinite"] + r["nan_block"] == j["input"]["count"]
'"
G = load('$tmp/g.npy')"

all_recipes=fp8-current,fp8-delayed,fp8-blockwise,mxfp8,mxfp8-ocp,nvfp4

# ---- JSON against the models --------------------------------------------------------------------
expect_json "every recipe, classes add up" 'len(j["recipes"]) == 6 and all(classes_add_up(r) for r in j["recipes"]) and [r["recipe"] for r in j["recipes"]] == ["fp8-current", "fp8-delayed", "fp8-blockwise", "mxfp8", "mxfp8-ocp", "nvfp4"] and j["matrix"] == {"rows": 1, "cols": 4096} and j["role"] == "gradient" and j["results"] == [] and j["auto"] is None' -- grads "$tmp/g.npy" --recipe "$all_recipes"
expect_json "repeatable --recipe, duplicates dropped" '[r["recipe"] for r in j["recipes"]] == ["mxfp8", "nvfp4", "fp8-current"]' -- grads "$tmp/g.npy" --recipe mxfp8,nvfp4 --recipe fp8-current,mxfp8
# fp8-current, gradient under HYBRID: E5M2, scale = 57344 / amax rounded to binary32 (TE
# compute_scale_from_amax). Zero: |x * scale| <= 2^-17, half of E5M2's smallest subnormal 2^-16 (the
# tie goes to 0, the even one). Nothing reaches 61440, where E5M2 overflows.
expect_json "fp8-current (E5M2): scale and zeros" 'r = rec("fp8-current"); s = rn32(F(57344) / amax(G)); r["format"] == "e5m2" and F(r["scale"]["min"]) == s and F(r["scale"]["max"]) == s and r["zero"] == nonzero_at_most(G, 1 / s, F(2) ** -17) and r["saturated"] == 0 and r["block"] == [1, 4096] and r["blocks"] == 1 and r["scale_format"] == "fp32" and r["rounding"] == "nearest_even"' -- grads "$tmp/g.npy" --recipe fp8-current
# --fp8-format e4m3: E4M3, scale 448 / amax; zero: |x * scale| <= 2^-10.
expect_json "fp8-current (E4M3)" 'r = rec("fp8-current"); s = rn32(F(448) / amax(G)); r["format"] == "e4m3" and F(r["scale"]["min"]) == s and r["zero"] == nonzero_at_most(G, 1 / s, F(2) ** -10)' -- grads "$tmp/g.npy" --recipe fp8-current --fp8-format e4m3
# fp8-blockwise: E4M3, a scale 448 / amax per 1x128 tile; zero where |x * scale| <= 2^-10.
expect_json "fp8-blockwise: tiles of 128" 'r = rec("fp8-blockwise"); sc = [rn32(F(448) / amax(b)) for b in blocks(G, 128)]; r["blocks"] == 32 and r["block"] == [1, 128] and F(r["scale"]["min"]) == min(sc) and F(r["scale"]["max"]) == max(sc) and r["zero"] == sum(nonzero_at_most(b, 1 / s, F(2) ** -10) for b, s in zip(blocks(G, 128), sc)) and r["saturated"] == 0' -- grads "$tmp/g.npy" --recipe fp8-blockwise
# mxfp8: an E8M0 scale X = 2^k per 32 values, k the smallest with 448 * 2^k >= amax (rounded up):
# nothing saturates; zero where |x| / X <= 2^-10. The reported scale is 1 / X.
expect_json "mxfp8: round-up scales" '
def k_up(b):
    k = -140
    while 448 * F(2) ** k < amax(b): k += 1
    return k
ks = [k_up(b) for b in blocks(G, 32)]
r = rec("mxfp8")
r["blocks"] == 128 and r["saturated"] == 0 and F(r["scale"]["min"]) == F(2) ** -max(ks) and F(r["scale"]["max"]) == F(2) ** -min(ks) and r["zero"] == sum(nonzero_at_most(b, F(2) ** k, F(2) ** -10) for b, k in zip(blocks(G, 32), ks)) and r["scale_format"] == "e8m0"' -- grads "$tmp/g.npy" --recipe mxfp8
# mxfp8-ocp: X = 2^(floor(log2 amax) - 8); |x| / X > 464 overflows (464 itself rounds to 448).
expect_json "mxfp8-ocp: floor scales saturate" '
def k_floor(b):
    a = amax(b); e = 0
    while F(2) ** e > a: e -= 1
    while F(2) ** (e + 1) <= a: e += 1
    return e - 8
ks = [k_floor(b) for b in blocks(G, 32)]
r = rec("mxfp8-ocp")
r["saturated"] > 0 and r["saturated"] == sum(1 for b, k in zip(blocks(G, 32), ks) for x in b if abs(F(x)) / F(2) ** k > 464)' -- grads "$tmp/g.npy" --recipe mxfp8-ocp
# nvfp4 for activations (nearest even, no transform): T = amax / (6 * 448) to binary32, per 16 values
# S = amax_b / (6 T) to nearest E4M3; zero where |x| / (S T) <= 1/4 (the tie with 0.5 goes to 0);
# overflow where |x| / (S T) >= 7 (the tie of 6 and 8 goes to 8).
expect_json "nvfp4 (activation): two-level scale" '
T = rn32(amax(G) / 2688)
S = [rne_e4m3(amax(b) / (6 * T)) for b in blocks(G, 16)]
r = rec("nvfp4")
F(r["tensor_scale"]) == T and r["rounding"] == "nearest_even" and r["hadamard"] is False and r["block"] == [1, 16] and r["zero"] == sum(nonzero_at_most(b, s * T, F(1, 4)) for b, s in zip(blocks(G, 16), S)) and r["saturated"] == sum(1 for b, s in zip(blocks(G, 16), S) for x in b if abs(F(x)) / (s * T) >= 7)' -- grads "$tmp/g.npy" --recipe nvfp4 --role activation
expect_json "nvfp4 (gradient): RHT and stochastic rounding" 'r = rec("nvfp4"); r["rounding"] == "stochastic" and r["hadamard"] is True and classes_add_up(r) and r["error"]["rms_rel"] > 0 and j["seed"] == 5' -- grads "$tmp/g.npy" --recipe nvfp4 --seed 5
checks=$((checks + 1))
a=$("$floatlab" grads "$tmp/g.npy" --recipe nvfp4 --seed 5 --json)
b=$("$floatlab" grads "$tmp/g.npy" --recipe nvfp4 --seed 5 --json)
c=$("$floatlab" grads "$tmp/g.npy" --recipe nvfp4 --seed 6 --json)
[[ $a == "$b" && $a != "$c" ]] || fail "nvfp4 gradients: the same --seed gives the same result, another seed another"
# fp8-delayed over 4 steps of 1024 values (E5M2): step 1 uses 1 (empty history); step t uses
# 57344 / max(amax of steps 1..t-1) rounded to binary32; saturated: |x * scale| >= 61440.
expect_json "fp8-delayed: 4 steps" '
steps = blocks(G, 1024)
want, sc, hist = [], F(1), []
for t, b in enumerate(steps, 1):
    want.append((t, sc, amax(b), sum(1 for x in b if abs(F(x)) * sc >= 61440)))
    hist.append(amax(b))
    sc = rn32(F(57344) / max(hist))
r = rec("fp8-delayed")
[(s["step"], F(s["scale"]), F(s["amax"]), s["saturated"]) for s in r["steps"]] == want and r["saturated"] == sum(w[3] for w in want) and r["blocks"] == 4' -- grads "$tmp/g.npy" --recipe fp8-delayed --steps 4
# The same for activations (E4M3): |x * scale| > 464 overflows (464 itself rounds to 448).
expect_json "fp8-delayed: E4M3 steps that saturate" '
steps = blocks(G, 256)
want, sc, hist = [], F(1), []
for t, b in enumerate(steps, 1):
    want.append((t, sc, sum(1 for x in b if abs(F(x)) * sc > 464)))
    hist.append(amax(b))
    sc = rn32(F(448) / max(hist))
r = rec("fp8-delayed")
[(s["step"], F(s["scale"]), s["saturated"]) for s in r["steps"]] == want and any(w[2] for w in want) and r["format"] == "e4m3"' -- grads "$tmp/g.npy" --recipe fp8-delayed --steps 16 --role activation
# most_recent, margin 2, history 1: step t uses (57344 / 4) / amax of step t-1.
expect_json "fp8-delayed: most_recent, margin" '
steps = blocks(G, 512)
want, sc = [], F(1)
for b in steps:
    want.append(sc)
    sc = rn32(F(57344, 4) / amax(b))
[F(s["scale"]) for s in rec("fp8-delayed")["steps"]] == want' -- grads "$tmp/g.npy" --recipe fp8-delayed --steps 8 --amax-algo most_recent --margin 2 --amax-history 1
# Shapes: from a 2-D .npy; Fortran order read as its transpose; --shape; weights in 16x16 / 128x128.
expect_json "shape from .npy" 'j["matrix"] == {"rows": 16, "cols": 256} and rec("fp8-blockwise")["blocks"] == 32' -- grads "$tmp/m.npy" --recipe fp8-blockwise
expect_json "Fortran order" 'j["matrix"] == {"rows": 16, "cols": 256}' -- grads "$tmp/f.npy" --recipe mxfp8
expect_json "--shape and weight blocks" 'j["matrix"] == {"rows": 64, "cols": 64} and rec("nvfp4")["block"] == [16, 16] and rec("nvfp4")["blocks"] == 16 and rec("fp8-blockwise")["block"] == [128, 128] and rec("fp8-blockwise")["blocks"] == 1 and rec("fp8-current")["format"] == "e4m3" and rec("nvfp4")["rounding"] == "nearest_even"' -- grads "$tmp/g.npy" --recipe nvfp4,fp8-blockwise,fp8-current --shape 64x64 --role weight
# Text input with a NaN: counted apart; in MX it makes its block's scale NaN (all 6 values, one block).
# Text is read as binary64: 1e-30 is the one value binary32 does not hold (rounded_to_f32).
expect_json "NaN in a block" 'r = rec("mxfp8"); c = rec("fp8-current"); j["nan"] == 1 and r["nonfinite"] == 1 and r["nan_block"] == 5 and r["scale"]["min"] is None and c["nonfinite"] == 1 and c["exact"] == 4 and c["zero"] == 1 and j["rounded_to_f32"] == 1' -- grads "$tmp/small.txt" --recipe mxfp8,fp8-current --role activation
# Without --recipe: the range report as before, no "recipes" field.
expect_json "no --recipe: unchanged" '"recipes" not in j and len(j["results"]) == 4' -- grads "$tmp/g.npy"

# ---- text, plot, help ---------------------------------------------------------------------------------
expect_out "text table" "4096 values (.npy '<f4' shape (4096,), C order)" "as 1 x 4096 (rows x cols, one row), role gradient" \
  "recipe         format block      zero     sat  inexact   max rel   rms rel" "fp8-current    e5m2   tensor" \
  "mxfp8          e4m3   1x32" "nvfp4          fp4    1x16" "scales (x * scale is rounded" "over 128 blocks" \
  "fp8-delayed    1 (step 1: empty amax history, TE's initial scale)" "no step saturated" "16-point random Hadamard transform and stochastic rounding, seed 1" \
  -- grads "$tmp/g.npy" --recipe "$all_recipes"
checks=$((checks + 1))
run grads "$tmp/g.npy" --recipe "$all_recipes" --steps 4 --plot "$tmp/r.svg"
if (( rc != 0 )) || awk 'length > 80 { bad = 1 } END { exit !bad }' "$tmp/out"; then fail "text fits 80 columns: $out"; fi
checks=$((checks + 1))
if [[ $rc != 0 ]] || ! python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text or "" for t in root.iter(ns + "text")]
assert root.tag == ns + "svg", root.tag
assert len(list(root.iter(ns + "path"))) == 6
for name in ("fp8-current", "fp8-delayed", "fp8-blockwise", "mxfp8", "mxfp8-ocp", "nvfp4"):
    assert name in texts, name
assert "RMS relative error" in texts
' "$tmp/r.svg"; then fail "--plot writes a valid SVG, one line per recipe"; fi
expect_out "plot is reported" "Wrote $tmp/r.svg" -- grads "$tmp/g.npy" --recipe mxfp8 --plot "$tmp/r.svg"
expect_out "help has --recipe and an example" "--recipe" "floatlab grads grads.npy --recipe fp8-current,mxfp8,nvfp4" "\"recipes\":[Q...]" -- grads --help

# ---- errors -----------------------------------------------------------------------------------------
expect_error "unknown recipe" "unknown recipe 'fp9'" "accepted: fp8-current, fp8-delayed, fp8-blockwise, mxfp8, mxfp8-ocp, nvfp4" -- grads "$tmp/g.npy" --recipe mxfp8,fp9
expect_error "empty recipe name" "an empty recipe name" -- grads "$tmp/g.npy" --recipe mxfp8,
expect_error "shape mismatch" "--shape '3x5'" "3 x 5 = 15 values" "holds 4096" -- grads "$tmp/g.npy" --recipe mxfp8 --shape 3x5
expect_error "shape syntax" "--shape '64'" "expected ROWSxCOLS" -- grads "$tmp/g.npy" --recipe mxfp8 --shape 64
expect_error "shape zero" "--shape ROWS: '0' is too small" -- grads "$tmp/g.npy" --recipe mxfp8 --shape 0x4096
expect_error "steps do not divide" "--steps 3" "does not split into 3 equal steps" -- grads "$tmp/g.npy" --recipe fp8-delayed --steps 3
expect_error "steps negative" "--steps: '-1' is negative" -- grads "$tmp/g.npy" --recipe fp8-delayed --steps -1
expect_error "margin too large" "--margin: '65' is too large" -- grads "$tmp/g.npy" --recipe fp8-delayed --margin 65
expect_error "recipe option without --recipe" "--shape: only used with --recipe" -- grads "$tmp/g.npy" --shape 64x64
expect_error "range option with --recipe" "--scale: not used with --recipe" -- grads "$tmp/g.npy" --recipe mxfp8 --scale 1024
expect_error "formats with --recipe" "--formats: not used with --recipe" -- grads "$tmp/g.npy" --recipe mxfp8 -f fp16
expect_error "rounding with --recipe" "--rounding: not used with --recipe" -- grads "$tmp/g.npy" --recipe mxfp8 -r upward
expect_error "steps without fp8-delayed" "--steps: only read by --recipe fp8-delayed, and --recipe mxfp8,nvfp4 has none of them" -- grads "$tmp/g.npy" --recipe mxfp8,nvfp4 --steps 4
expect_error "margin without fp8-delayed" "--margin: only read by --recipe fp8-delayed" -- grads "$tmp/g.npy" --recipe fp8-current --margin 2
expect_error "fp8-format without an fp8 recipe" "--fp8-format: only read by --recipe fp8-current or fp8-delayed" -- grads "$tmp/g.npy" --recipe nvfp4 --fp8-format e4m3
expect_error "bad role" "--role" -- grads "$tmp/g.npy" --recipe mxfp8 --role bias
expect_error "missing file" "cannot open" -- grads "$tmp/nope.npy" --recipe mxfp8
expect_error "plot unwritable" "--plot" "cannot write" -- grads "$tmp/g.npy" --recipe mxfp8 --plot "$tmp/no/such/dir/x.svg"

cli_finish floatlab_grads_recipes
