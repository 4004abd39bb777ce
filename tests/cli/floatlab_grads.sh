#!/usr/bin/env bash
# `floatlab grads` run as a user would: .npy (v1-v3, f2/f4/f8, C and Fortran order, big endian,
# 0-d and empty shapes), raw and text inputs, --json (parsed with python3), --plot (parsed as XML),
# --scale auto, and every error path (exit 2, message naming the file position).
#
#   floatlab_grads.sh FLOATLAB
#
# Input files are written with python3's struct (no numpy). Expected counts are worked out by
# hand from the values (see the comments), not taken from the library. Prints one line per
# failed expectation and exits 1 if there was any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
json_args=(--json)

# ---- input files --------------------------------------------------------------------------------
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]

def npy(name, descr, shape, data, fortran=False, version=1, magic=b'\x93NUMPY', header=None):
    if header is None:
        dims = ''.join('%d, ' % s for s in shape)
        shape_s = '()' if not shape else '(' + (dims[:-2] + ',' if len(shape) == 1 else dims[:-2]) + ')'
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_s)
    pre = 10 if version == 1 else 12
    header += ' ' * ((64 - (pre + len(header) + 1) % 64) % 64) + '\n'
    with open(f'{d}/{name}', 'wb') as f:
        f.write(magic + bytes([version, 0]))
        f.write(struct.pack('<H' if version == 1 else '<I', len(header)))
        f.write(header.encode())
        f.write(data)

# Nine values. In fp16 at scale 1 (min subnormal 2^-24, half of it 2^-25 ~ 2.98e-8 rounds to 0;
# min normal 2^-14 ~ 6.1e-5; max 65504, 65520 and above overflow):
#   1e-8 zero; 2^-20 subnormal; 0.5, 1.0 normal; 70000 overflow; 0 exact zero; nan; inf;
#   -3e-5 subnormal  =>  zero 1, subnormal 2, normal 2, overflow 1, nan 1, infinity 1, exact 1.
# In bf16 (binary32's exponent range): every finite nonzero one is normal (6).
vals = [1e-8, 2.0**-20, 0.5, 1.0, 70000.0, 0.0, float('nan'), float('inf'), -3e-5]
npy('c_f4.npy', '<f4', (3, 3), struct.pack('<9f', *vals))
npy('f_f8.npy', '<f8', (3, 3), struct.pack('<9d', *vals), fortran=True)
npy('be_f4.npy', '>f4', (9,), struct.pack('>9f', *vals))
npy('v2_f4.npy', '<f4', (9,), struct.pack('<9f', *vals), version=2)
npy('v3_f4.npy', '<f4', (1, 9), struct.pack('<9f', *vals), version=3)
# float16 encodings of the same values as fp16 sees them: 1e-8 -> 0 is not representable, so
# use fp16 itself: 0x0001 (2^-24, subnormal), 0x3C00 (1), 0x7BFF (65504, normal), 0x7E00 (nan),
# 0xFC00 (-inf), 0x8000 (-0): subnormal 1, normal 2, nan 1, infinity 1, exact zero 1.
npy('f2.npy', '<f2', (2, 3), struct.pack('<6H', 0x0001, 0x3C00, 0x7BFF, 0x7E00, 0xFC00, 0x8000), fortran=True)
npy('scalar.npy', '<f8', (), struct.pack('<d', 0.25))                # 0-d: one value
npy('empty_shape.npy', '<f4', (0, 5), b'')                           # no values
# raw
open(f'{d}/raw.f32', 'wb').write(struct.pack('<9f', *vals))
open(f'{d}/raw.f64', 'wb').write(struct.pack('<9d', *vals))
open(f'{d}/raw.f16', 'wb').write(struct.pack('<6H', 0x0001, 0x3C00, 0x7BFF, 0x7E00, 0xFC00, 0x8000))
open(f'{d}/raw_odd.f32', 'wb').write(b'\0' * 10)
# text: the same nine values written out, with a hex float, blank lines, CRLF and spaces
open(f'{d}/vals.txt', 'w').write('1e-8\n0x1p-20\n\n  0.5\r\n1\n7e4\n0\nnan\ninf\n-3e-5')
open(f'{d}/bad.txt', 'w').write('0.5\n1.0\n1.2.3\n')
open(f'{d}/empty.npy', 'wb').write(b'')
open(f'{d}/empty.txt', 'wb').write(b'')
# errors
npy('bad_magic.npy', '<f4', (1,), struct.pack('<f', 1.0), magic=b'\x93NUMPZ')
open(f'{d}/truncated.npy', 'wb').write(b'\x93NUMPY\x01\x00\x76\x00{\'descr\': \'<f4\'')
npy('int.npy', '<i4', (1,), struct.pack('<i', 1))
npy('shape.npy', '<f4', (4,), struct.pack('<3f', 1, 2, 3))
npy('version.npy', '<f4', (1,), struct.pack('<f', 1), version=9)
npy('nokey.npy', '', (), b'', header="{'descr': '<f4', 'shape': (1,), }")
PY

# ---- .npy inputs ----------------------------------------------------------------------------------
fp16_9='r = {x["format"]: x for x in j["results"]}; h = r["fp16"]; b = r["bf16"];'
nine="$fp16_9"' j["input"]["count"] == 9 and j["nan"] == 1 and j["infinity"] == 1 and j["exact_zero"] == 1 and (h["zero"], h["subnormal"], h["normal"], h["overflow"]) == (1, 2, 2, 1) and (b["zero"], b["subnormal"], b["normal"], b["overflow"]) == (0, 0, 6, 0)'
expect_json "npy <f4 C order" "$nine"' and j["input"]["shape"] == [3, 3] and j["input"]["fortran_order"] is False and j["input"]["dtype"] == "f32"' -- grads "$tmp/c_f4.npy"
expect_json "npy <f8 Fortran order" "$nine"' and j["input"]["fortran_order"] is True and j["input"]["dtype"] == "f64"' -- grads "$tmp/f_f8.npy"
expect_json "npy >f4 big endian" "$nine" -- grads "$tmp/be_f4.npy"
expect_json "npy version 2" "$nine" -- grads "$tmp/v2_f4.npy"
expect_json "npy version 3" "$nine"' and j["input"]["shape"] == [1, 9]' -- grads "$tmp/v3_f4.npy"
expect_json "npy <f2 Fortran" 'h = j["results"][0]; j["input"]["count"] == 6 and (h["zero"], h["subnormal"], h["normal"], h["overflow"]) == (0, 1, 2, 0) and j["nan"] == 1 and j["infinity"] == 1 and j["exact_zero"] == 1' -- grads "$tmp/f2.npy" -f fp16
expect_json "npy 0-d" 'j["input"]["count"] == 1 and j["input"]["shape"] == [] and j["results"][0]["normal"] == 1' -- grads "$tmp/scalar.npy" -f fp16
expect_json "npy shape with 0" 'j["input"]["count"] == 0 and j["results"][0]["normal"] == 0 and j["results"][0]["histogram"]["bins"] == []' -- grads "$tmp/empty_shape.npy"

# ---- raw and text ---------------------------------------------------------------------------------
expect_json "raw f32" "$nine"' and j["input"]["kind"] == "raw"' -- grads "$tmp/raw.f32" --dtype f32
expect_json "raw f64" "$nine" -- grads "$tmp/raw.f64" --dtype float64
expect_json "raw f16" 'h = j["results"][0]; (h["subnormal"], h["normal"]) == (1, 2) and j["nan"] == 1' -- grads "$tmp/raw.f16" --dtype f16 -f fp16
expect_json "text" "$nine"' and j["input"]["kind"] == "text"' -- grads "$tmp/vals.txt"

# ---- scales -----------------------------------------------------------------------------------------
# At 2^10: 1e-8 * 1024 ~ 1.02e-5 is subnormal in fp16 (>= 2^-25, < 2^-14), 2^-10 and 3e-5*1024 ~ 0.03
# normal, 512 and 1024 normal, 70000*1024 overflows: zero 0, subnormal 1, normal 4, overflow 1.
at10='h = j["results"][0]; (h["zero"], h["subnormal"], h["normal"], h["overflow"]) == (0, 1, 4, 1) and h["log2_scale"] == 10'
expect_json "--scale 1024" "$at10" -- grads "$tmp/c_f4.npy" -f fp16 --scale 1024
expect_json "--scale 2^10" "$at10" -- grads "$tmp/c_f4.npy" -f fp16 --scale '2^10'
# histogram at 2^10: 2^-20 * 2^10 = 2^-10 lands in bin -10, 1.0 in bin 10, 0.5 in bin 9
expect_json "histogram" 'b = dict(map(tuple, j["results"][0]["histogram"]["bins"])); b[-10] == 1 and b[10] == 1 and b[9] == 1 and sum(b.values()) == 6' -- grads "$tmp/c_f4.npy" -f fp16 --scale 1024
# A scale that is not a power of two: 3 * 70000 still overflows; 3e-8 > 2^-25 and 3 * 2^-20 are
# subnormal; 9e-5 >= 2^-14 ~ 6.1e-5, 1.5 and 3 are normal. Exponents: 3e-8 in [2^-25, 2^-24),
# 3 * 2^-20 in [2^-19, 2^-18), 9e-5 in [2^-14, 2^-13), 1.5, 3, 210000 in [2^17, 2^18).
expect_json "--scale 3" 'h = j["results"][0]; (h["zero"], h["subnormal"], h["normal"], h["overflow"]) == (0, 2, 3, 1) and h["log2_scale"] is None and h["histogram"]["bins"] == [[-25, 1], [-19, 1], [-14, 1], [0, 1], [1, 1], [17, 1]]' -- grads "$tmp/c_f4.npy" -f fp16 --scale 3
# auto: largest |x| is 70000; 70000 / 2 = 35000 <= 65504, so fp16's scale is 2^-1 (one halving).
# Without it (f2 file, max 65504) fp16 keeps 2^0: 65504 * 2 overflows.
expect_json "--scale auto" 'a = {x["format"]: x for x in j["auto"]}; a["fp16"]["log2_scale"] == -1 and a["fp16"]["at_scale"]["overflow"] == 0 and a["bf16"]["at_scale"]["overflow"] == 0' -- grads "$tmp/c_f4.npy" --scale auto
expect_json "--scale auto at max finite" 'j["auto"][0]["log2_scale"] == 0' -- grads "$tmp/f2.npy" -f fp16 --scale auto
# 2^-20 alone: fp16 scale 2^30 makes it 2^10 (2^31 would make it 2^11... no: the largest safe
# power keeps 2^-20 * 2^k <= 65504, so k = 35: 2^15 = 32768); saves it from subnormal.
printf '0x1p-20\n' >"$tmp/one.txt"
expect_json "--scale auto saves" 'a = j["auto"][0]; a["log2_scale"] == 35 and a["saved_from_zero_or_subnormal"] == 1 and a["at_scale"]["normal"] == 1' -- grads "$tmp/one.txt" -f fp16 --scale auto
expect_out "auto text" "--scale auto" "fp16: scale 2^35" "zero 0 -> 0, subnormal 1 -> 0" "saves 1 value from zero or subnormal" -- grads "$tmp/one.txt" -f fp16 --scale auto
# 0.5 in bf16: the largest safe scale would be 2^128 (0.5 * 2^128 = 2^127 is below bf16's max,
# 2^128 - 2^120; 2^129 would overflow); a float32 loss scale holds at most 2^127, so auto caps there,
# and nothing needed scaling.
printf '0.5\n' >"$tmp/half.txt"
expect_json "--scale auto is capped at 2^127" 'a = j["auto"][0]; a["log2_scale"] == 127 and a["capped"] is True' -- grads "$tmp/half.txt" -f bf16 --scale auto
expect_out "--scale auto: capped, no scaling needed" "(capped: 2^127" "no scaling needed: no value is zero or subnormal at scale 1" -- grads "$tmp/half.txt" -f bf16 --scale auto
expect_json "--scale auto below the cap is not capped" 'j["auto"][0]["capped"] is False' -- grads "$tmp/one.txt" -f fp16 --scale auto
# 0.25 = 2^-2: 2^-2 * 2^17 = 32768 fits; 2^16 = 65536 > 65504 overflows rounding upward, and
# saturation still counts it as overflow (the core raises the flag), so 2^17 with every policy on.
expect_json "auto with policies" 'j["auto"][0]["log2_scale"] == 17 and j["rounding"] == "upward"' -- grads "$tmp/scalar.npy" -f fp16 --scale auto -r upward --ftz --saturate --daz --tininess before
printf 'nan\n0\n' >"$tmp/nonfinite.txt"
expect_json "only nan and zero" 'j["auto"][0]["log2_scale"] is None and j["nan"] == 1 and j["exact_zero"] == 1' -- grads "$tmp/nonfinite.txt" -f fp16 --scale auto

# ---- text output, plot ------------------------------------------------------------------------------
expect_out "text report" "9 values" "fp16 at scale 2^0 = 1" "window: subnormal from 2^-24, normal from 2^-14, top binade 2^15" "1 NaN, 1 infinite, 1 exact zero;" "Binary exponents" "marks:" -- grads "$tmp/c_f4.npy"
checks=$((checks + 1))
run grads "$tmp/c_f4.npy" --scale auto
if (( rc != 0 )) || awk 'length > 80 { bad = 1 } END { exit !bad }' "$tmp/out"; then fail "text fits 80 columns"; fi
checks=$((checks + 1))
run grads "$tmp/c_f4.npy" --plot "$tmp/plot.svg"
if [[ $rc != 0 ]] || ! python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text or "" for t in root.iter(ns + "text")]
assert root.tag == ns + "svg", root.tag
assert len(list(root.iter(ns + "rect"))) > 10
for name in ("fp16", "bf16", "e4m3", "e5m2"):
    assert name in texts, name
assert any("floor(log2" in t for t in texts)
' "$tmp/plot.svg"; then fail "--plot writes a valid SVG with axes labels and a legend"; fi
# The x axis spans the data (exponents -4..4 here, margins of 4 and 5), not every format's window;
# windows cut at the axis get an arrow. --plot-log: tick labels 0, 1, 10, ...; with --scale auto the
# windows move by each format's scale (fp16 x2^k).
checks=$((checks + 1))
run grads "$tmp/c_f4.npy" --plot "$tmp/plot_log.svg" --plot-log --scale auto
if [[ $rc != 0 ]] || ! python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text or "" for t in root.iter(ns + "text")]
nums = sorted(int(t) for t in texts if t.lstrip("-").isdigit())
assert "10" in texts and "1" in texts and "0" in texts, texts
assert any(t.startswith("fp16 x2^") for t in texts), texts
assert any("log scale" in t for t in texts)
assert any("→" in t or "←" in t for t in texts)   # a window cut at the axis
assert not any(t == "-133" for t in texts)                 # bf16 min subnormal exponent: off the axis
' "$tmp/plot_log.svg"; then fail "--plot-log --scale auto: log ticks, shifted windows, data-sized x axis"; fi
expect_error "--plot-log needs --plot" "--plot-log" "--plot OUT.svg" -- grads "$tmp/c_f4.npy" --plot-log
expect_out "help has examples and schema" "Examples:" "schema 1" "--scale auto" -- grads --help

# ---- errors -----------------------------------------------------------------------------------------
expect_error "missing file" "cannot open" "nope.npy" -- grads "$tmp/nope.npy"
expect_error "empty file" "empty.npy" "the file is empty" -- grads "$tmp/empty.npy"
expect_error "empty text file" "empty.txt" "the file is empty" -- grads "$tmp/empty.txt"
expect_error "bad magic" "bad_magic.npy" "byte 5" "bad .npy magic" -- grads "$tmp/bad_magic.npy"
expect_error "truncated header" "truncated.npy" "truncated .npy header" -- grads "$tmp/truncated.npy"
expect_error "unsupported dtype" "int.npy" "unsupported dtype '<i4'" "'<f4' float32" -- grads "$tmp/int.npy"
expect_error "shape does not match" "shape.npy" "shape (4,)" "needs 16 data bytes" "the file has 12" -- grads "$tmp/shape.npy"
expect_error "version" "unsupported .npy format version 9" "accepted: 1.0, 2.0, 3.0" -- grads "$tmp/version.npy"
expect_error "missing key" "missing key 'fortran_order'" -- grads "$tmp/nokey.npy"
expect_error "bad text line" "bad.txt: line 3" "'1.2.3' is not a number" "accepted:" -- grads "$tmp/bad.txt"
expect_error "raw size" "raw_odd.f32" "byte 8" "whole number of 4-byte values" -- grads "$tmp/raw_odd.f32" --dtype f32
expect_error "unknown dtype" "--dtype 'i32'" "accepted: f16" -- grads "$tmp/raw.f32" --dtype i32
expect_error "unknown format" "unknown format 'fp7'" "known:" -- grads "$tmp/c_f4.npy" -f fp16,fp7
expect_error "empty format" "an empty format name" -- grads "$tmp/c_f4.npy" -f fp16,
expect_error "scale zero" "--scale '0'" "greater than 0" -- grads "$tmp/c_f4.npy" --scale 0
expect_error "scale negative" "--scale '-8'" -- grads "$tmp/c_f4.npy" --scale=-8
expect_error "scale text" "--scale 'big'" "accepted: auto" -- grads "$tmp/c_f4.npy" --scale big
expect_error "scale inf" "--scale 'inf'" -- grads "$tmp/c_f4.npy" --scale inf
expect_error "scale 2^x" "--scale '2^x'" -- grads "$tmp/c_f4.npy" --scale '2^x'
expect_error "stochastic" "deterministic rounding" -- grads "$tmp/c_f4.npy" -r stochastic
expect_error "plot unwritable" "--plot" "cannot write" -- grads "$tmp/c_f4.npy" --plot "$tmp/no/such/dir/x.svg"
expect_error "plot: SVG only" "--plot" "written as SVG only" "ending in .svg" -- grads "$tmp/c_f4.npy" --plot "$tmp/x.png"
# -r's help lists the deterministic modes only (grads refuses stochastic rounding).
checks=$((checks + 1))
run grads --help
if [[ $out != *"odd|rto"* || $out == *"stochastic|sr"* ]]; then fail "grads --help: -r lists deterministic modes only"; fi
printf '0\n' >"$tmp/zero1.txt"
expect_out "a count of one is singular" "1 value (text" "1 exact zero;" -- grads "$tmp/zero1.txt" -f fp16

cli_finish floatlab_grads
