#!/usr/bin/env bash
# `floatlab grads` and `floatlab compare` on what training scripts save: .npz (stored and deflated),
# safetensors (F64/F32/F16/BF16/F8_E4M3/F8_E5M2, integer tensors skipped), raw --dtype bf16 /
# u16-as-bf16 / e4m3 / e5m2, numpy.savetxt text, standard input, a directory, --select, a fake
# torch.save archive (refused), and malformed archives (exit 2 naming the entry or tensor).
#
#   floatlab_dumps.sh FLOATLAB
#
# Files are written with python3's zipfile and struct (no numpy). Expected counts come from an
# independent model in this file: each value as an exact Fraction against each format's exact
# thresholds (zero: |x| <= min_subnormal/2; subnormal: below min_normal - min_subnormal/2;
# overflow: at or above max + ulp(max)/2), never from the library.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }

python3 - "$tmp" <<'PY'
import json, os, random, struct, sys, zipfile
from fractions import Fraction as F
d = sys.argv[1]
random.seed(18)

# ---- the model ---------------------------------------------------------------------------------
# (min subnormal, min normal, overflow threshold) per format, exact.
FORMATS = {
    'fp16': (F(1, 2**24), F(1, 2**14), F(65504) + 16),
    'bf16': (F(1, 2**133), F(1, 2**126), (2 - F(1, 2**7)) * 2**127 + F(2**119)),
    'e4m3': (F(1, 2**9), F(1, 2**6), F(464)),
    'e5m2': (F(1, 2**16), F(1, 2**14), F(57344) + 4096),
}

def classify(vals, fmt):
    sub, norm, over = FORMATS[fmt]
    z = s = o = 0
    big = F(0)
    for v in vals:
        if v != v or v in (float('inf'), float('-inf')) or v == 0:
            continue
        a = abs(F(v))
        big = max(big, a)
        if a <= sub / 2: z += 1
        elif a < norm - sub / 2: s += 1
        elif a >= over: o += 1
    k = None
    if big:
        # the largest k with big * 2^k below the overflow threshold, capped at 127
        k = 0
        while big * F(2)**k >= over: k -= 1
        while big * F(2)**(k + 1) < over: k += 1
        k = min(k, 127)
    return {'zero': z, 'subnormal': s, 'overflow': o, 'k': k}

def model(vals):
    return {f: classify(vals, f) for f in FORMATS}

expect = {}

# ---- encoders ----------------------------------------------------------------------------------
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
def npy(vals, descr='<f4', shape=None):
    code = {'<f4': 'f', '<f8': 'd', '<f2': 'e'}[descr]
    shape = (len(vals),) if shape is None else shape
    dims = ''.join('%d, ' % s for s in shape)
    shape_s = '(' + (dims[:-2] + ',' if len(shape) == 1 else dims[:-2]) + ')'
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_s)
    h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<%d%s' % (len(vals), code), *vals)

def bf16_bits(x):  # truncating is fine: the value is what the bits say
    return struct.unpack('<I', struct.pack('<f', x))[0] >> 16
def bf16_value(b): return struct.unpack('<f', struct.pack('<I', b << 16))[0]
def f8_value(b, e, m, bias, fn):
    s = -1.0 if b & 0x80 else 1.0
    E = (b >> m) & ((1 << e) - 1); M = b & ((1 << m) - 1)
    if fn and E == (1 << e) - 1 and M == (1 << m) - 1: return float('nan')
    if not fn and E == (1 << e) - 1: return float('nan') if M else s * float('inf')
    if E == 0: return s * M * 2.0 ** (1 - bias - m)
    return s * (1 + M / 2**m) * 2.0 ** (E - bias)

def spread(n):
    # magnitudes from 2^-40 to 2^20, both signs, a few exact zeros
    out = []
    for i in range(n):
        out.append(0.0 if i % 17 == 0 else random.choice((-1, 1)) * random.uniform(1, 2) * 2.0 ** random.randint(-40, 20))
    return out

w = [f32(x) for x in spread(300)]
g = spread(200)               # float64
a = [f32(x) for x in spread(50)]

# .npz deflated and stored; expected per tensor
with zipfile.ZipFile(f'{d}/deflated.npz', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('w.npy', npy(w))
    z.writestr('g.npy', npy(g, '<f8', (10, 20)))
    z.writestr('layer.0/a.npy', npy(a))
with zipfile.ZipFile(f'{d}/stored.npz', 'w', zipfile.ZIP_STORED) as z:
    z.writestr('w.npy', npy(w))
    z.writestr('g.npy', npy(g, '<f8', (10, 20)))
    z.writestr('layer.0/a.npy', npy(a))
# written to an unseekable stream: the sizes follow each member in a data descriptor (flag bit 3)
import io
class Unseekable(io.RawIOBase):
    def __init__(self): self.buf = bytearray()
    def writable(self): return True
    def write(self, b): self.buf += b; return len(b)
u = Unseekable()
with zipfile.ZipFile(u, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, data in (('w.npy', npy(w)), ('g.npy', npy(g, '<f8', (10, 20))), ('layer.0/a.npy', npy(a))):
        with z.open(name, 'w') as f: f.write(data)
assert u.buf[6] & 8, 'no data descriptor'
open(f'{d}/streamed.npz', 'wb').write(bytes(u.buf))
expect['npz'] = {'w': model(w), 'g': model(g), 'layer.0/a': model(a)}
expect['npz_count'] = {'w': len(w), 'g': len(g), 'layer.0/a': len(a)}

# safetensors: every float dtype plus an integer tensor
h16 = [struct.unpack('<e', struct.pack('<e', x))[0] for x in spread(40) if abs(x) < 60000]
b16 = [bf16_bits(x) for x in spread(64)] + [0x7f80, 0x7fc0]   # + inf, nan
e4 = list(range(256)); e5 = list(range(256))
tensors = [
    ('f64', 'F64', [2, 5], struct.pack('<10d', *g[:10]), g[:10]),
    ('f32', 'F32', [50], struct.pack('<50f', *a), a),
    ('f16', 'F16', [len(h16)], struct.pack('<%de' % len(h16), *h16), h16),
    ('bf16', 'BF16', [len(b16)], struct.pack('<%dH' % len(b16), *b16), [bf16_value(b) for b in b16]),
    ('e4m3', 'F8_E4M3', [256], bytes(e4), [f8_value(b, 4, 3, 7, True) for b in e4]),
    ('e5m2', 'F8_E5M2', [16, 16], bytes(e5), [f8_value(b, 5, 2, 15, False) for b in e5]),
    ('ids', 'I64', [3], struct.pack('<3q', 1, 2, 3), None),
]
def safetensors(tensors, header_extra=None, fix=None):
    hdr, data = {'__metadata__': {'format': 'pt', 'note': 'caf\u00e9 \\"quoted\\"'}}, b''
    for name, dt, shape, raw, _ in tensors:
        hdr[name] = {'dtype': dt, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    if fix: fix(hdr)
    j = json.dumps(hdr).encode()
    j += b' ' * ((8 - len(j) % 8) % 8)
    return struct.pack('<Q', len(j)) + j + data
open(f'{d}/model.safetensors', 'wb').write(safetensors(tensors))
expect['st'] = {n: model(v) for n, _, _, _, v in tensors if v is not None}
expect['st_count'] = {n: len(v) for n, _, _, _, v in tensors if v is not None}

# raw narrow types (single-tensor path)
open(f'{d}/raw.bf16', 'wb').write(struct.pack('<%dH' % len(b16), *b16))
open(f'{d}/raw.e4m3', 'wb').write(bytes(e4))
open(f'{d}/raw.e5m2', 'wb').write(bytes(e5))
expect['raw_bf16'] = model([bf16_value(b) for b in b16])
expect['raw_e4m3'] = model([f8_value(b, 4, 3, 7, True) for b in e4])
expect['raw_e5m2'] = model([f8_value(b, 5, 2, 15, False) for b in e5])
expect['raw_nan'] = {'bf16': 1, 'e4m3': 2, 'e5m2': 6}
expect['raw_inf'] = {'bf16': 1, 'e4m3': 0, 'e5m2': 2}

# numpy.savetxt output: 2-D, blanks (its default format) and commas
rows = [spread(4) for _ in range(5)]
with open(f'{d}/savetxt.txt', 'w') as f:
    f.write('# a header line, as savetxt(header=...) writes it\n')
    for r in rows: f.write(' '.join('%.18e' % x for x in r) + '\n')
with open(f'{d}/savetxt.csv', 'w') as f:
    for r in rows: f.write(','.join('%.18e' % x for x in r) + '\r\n')
expect['txt'] = model([x for r in rows for x in r])
open(f'{d}/bad.csv', 'w').write('1,2,3\n4,x5,6\n')
open(f'{d}/empty_field.csv', 'w').write('1,,3\n')

# a directory: a .npy, the stored .npz, a safetensors file, a text file and one that is none
os.makedirs(f'{d}/dir')
open(f'{d}/dir/b.npy', 'wb').write(npy(a))
open(f'{d}/dir/c.npz', 'wb').write(open(f'{d}/stored.npz', 'rb').read())
open(f'{d}/dir/a.safetensors', 'wb').write(safetensors(tensors[:2]))
open(f'{d}/dir/d.txt', 'w').write('1e-8\n0.5\n')
open(f'{d}/dir/notes.md', 'w').write('not a dump\n')

# torch.save's layout: refused, never unpickled
with zipfile.ZipFile(f'{d}/model.pt', 'w', zipfile.ZIP_STORED) as z:
    z.writestr('model/data.pkl', b'\x80\x02}q\x00.')
    z.writestr('model/data/0', struct.pack('<4f', 1, 2, 3, 4))
    z.writestr('model/version', b'3\n')
open(f'{d}/legacy.pt', 'wb').write(b'\x80\x02\x8a\x0alZ\xfc\x9cF\xf9 j\xa8P\x19.')

# compare: B = A rounded to bf16 (truncated bits), one NaN put in, one tensor only in each
ref = [x for x in a]
low = [bf16_value(bf16_bits(x)) for x in a]
low[7] = float('nan')
ca = [('t', 'F32', [50], struct.pack('<50f', *ref), None), ('s', 'F32', [2], struct.pack('<2f', 1, 2), None),
      ('onlyA', 'F32', [1], struct.pack('<f', 1), None)]
cb = [('t', 'F32', [50], struct.pack('<50f', *low), None), ('s', 'F32', [1, 2], struct.pack('<2f', 1, 2), None),
      ('onlyB', 'F32', [1], struct.pack('<f', 1), None)]
open(f'{d}/ca.safetensors', 'wb').write(safetensors(ca))
open(f'{d}/cb.safetensors', 'wb').write(safetensors(cb))
diffs = [(x, y) for x, y in zip(ref, low)]
fin = [(x, y) for x, y in diffs if y == y]
rel = [abs(F(y) - F(x)) / abs(F(x)) for x, y in fin if x != 0]
expect['cmp'] = {
    'differ': sum(1 for x, y in diffs if not (x == y)),
    'nan_mismatch': 1,
    'max_abs': float(max(abs(F(y) - F(x)) for x, y in fin)),
    'max_rel': float(max(rel)),
    'rms_rel': float(sum(r * r for r in rel) / len(rel)) ** 0.5,
}

# ---- malformed archives ------------------------------------------------------------------------
blob = open(f'{d}/stored.npz', 'rb').read()
open(f'{d}/truncated.npz', 'wb').write(blob[:len(blob) // 2])
cd = blob.rindex(b'PK\x01\x02')
open(f'{d}/badcd.npz', 'wb').write(blob[:cd] + b'PK\x09\x09' + blob[cd + 4:])
# CRC: flip a data byte of the last member (stored: the bytes are the .npy)
i = blob.rindex(b'\x93NUMPY') + 200
open(f'{d}/crc.npz', 'wb').write(blob[:i] + bytes([blob[i] ^ 1]) + blob[i + 1:])
# a zip bomb: 4 MiB of zeros deflate to a few KiB; the central directory then claims 4 GiB - 1
with zipfile.ZipFile(f'{d}/bomb.npz', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('zeros.npy', npy([0.0] * (1 << 20)))
bomb = bytearray(open(f'{d}/bomb.npz', 'rb').read())
c = bomb.rindex(b'PK\x01\x02')
bomb[c + 24:c + 28] = struct.pack('<I', 0xFFFFFFFE)
open(f'{d}/bomb.npz', 'wb').write(bomb)
# an honest all-zero tensor deflates at about 1030:1, under the limit (1100:1, above deflate's maximum): read
with zipfile.ZipFile(f'{d}/ratio.npz', 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('zeros.npy', npy([0.0] * (1 << 24)))
good = safetensors(tensors[:2])
n = struct.unpack('<Q', good[:8])[0]
open(f'{d}/long_header.safetensors', 'wb').write(struct.pack('<Q', len(good) + 10) + good[8:])
def past(h): h['f32']['data_offsets'] = [h['f32']['data_offsets'][0], h['f32']['data_offsets'][1] + 4]
def overlap(h): h['f32']['data_offsets'] = [h['f32']['data_offsets'][0] - 8, h['f32']['data_offsets'][1] - 8]
def shape(h): h['f32']['shape'] = [49]
open(f'{d}/past.safetensors', 'wb').write(safetensors(tensors[:2], fix=past))
open(f'{d}/overlap.safetensors', 'wb').write(safetensors(tensors[:2], fix=overlap))
open(f'{d}/shape.safetensors', 'wb').write(safetensors(tensors[:2], fix=shape))
open(f'{d}/badjson.safetensors', 'wb').write(struct.pack('<Q', 12) + b'{"a": [1, 2 ' + b'\0' * 8)

json.dump(expect, open(f'{d}/expect.json', 'w'))
PY

json_helpers='
E = json.load(open("'"$tmp"'/expect.json"))
def table_ok(j, exp, counts, fmts=("fp16", "bf16", "e4m3", "e5m2")):
    rows = {r["name"]: r for r in j if r["skipped"] is None}
    if set(rows) != set(exp): return print("names", sorted(rows), sorted(exp)) or False
    for n, r in rows.items():
        if r["count"] != counts[n]: return print(n, "count", r["count"], counts[n]) or False
        for res, safe in zip(r["results"], r["safe_scale"]):
            f = res["format"]; m = exp[n][f]
            got = (res["zero"], res["subnormal"], res["overflow"], safe["log2_scale"])
            if got != (m["zero"], m["subnormal"], m["overflow"], m["k"]): return print(n, f, got, m) or False
    lost = [r["lost"] for r in j if r["skipped"] is None]
    if lost != sorted(lost, reverse=True): return print("not worst first", lost) or False
    return all(r["lost"] == max(exp[r["name"]][f]["zero"] + exp[r["name"]][f]["subnormal"] + exp[r["name"]][f]["overflow"] for f in fmts) for r in rows.values())
def single_ok(j, exp, fmts):
    for res in j["results"]:
        m = exp[res["format"]]
        if (res["zero"], res["subnormal"], res["overflow"]) != (m["zero"], m["subnormal"], m["overflow"]):
            return print(res["format"], res["zero"], res["subnormal"], res["overflow"], m) or False
    return [r["format"] for r in j["results"]] == list(fmts)
'
json_args=(--json)

# ---- .npz, safetensors ----------------------------------------------------------------------------
expect_json "npz deflated" 'table_ok(j, E["npz"], E["npz_count"])' -- grads "$tmp/deflated.npz"
expect_json "npz stored" 'table_ok(j, E["npz"], E["npz_count"])' -- grads "$tmp/stored.npz"
expect_json "npz data descriptors" 'table_ok(j, E["npz"], E["npz_count"])' -- grads "$tmp/streamed.npz"
expect_json "npz shapes" '[r["shape"] for r in sorted(j, key=lambda r: r["name"])] == [[10, 20], [50], [300]]' -- grads "$tmp/deflated.npz"
expect_json "safetensors" 'table_ok(j, E["st"], E["st_count"])' -- grads "$tmp/model.safetensors"
expect_json "safetensors int skipped" '[r["name"] for r in j if r["skipped"]] == ["ids"] and "I64" in j[-1]["skipped"] and "not a floating-point" in j[-1]["skipped"]' -- grads "$tmp/model.safetensors"
expect_json "safetensors nan inf" '{r["name"]: (r["nan"], r["infinity"]) for r in j if r["skipped"] is None}["bf16"] == (1, 1)' -- grads "$tmp/model.safetensors"
expect_out "table text" "deflated.npz: 3 tensors (3 read)" "fp16 zero" "e5m2 safe" "layer.0/a" -- grads "$tmp/deflated.npz"
expect_out "table skipped text" "skipped: ids (safetensors): dtype I64: not a floating-point tensor, skipped" -- grads "$tmp/model.safetensors" -f fp16

# ---- --select ---------------------------------------------------------------------------------
expect_json "select" '[r["name"] for r in j] == ["layer.0/a"]' -- grads "$tmp/deflated.npz" --select '^layer\.'
expect_json "select none" 'j == []' -- grads "$tmp/deflated.npz" --select 'nomatch$'
expect_error "select bad regex" "--select '(['" "regular expression" -- grads "$tmp/deflated.npz" --select '(['
expect_error "select single file" "--select" "holds one tensor" -- grads "$tmp/dir/b.npy" --select a
expect_error "recipe per file" "--recipe is per file" -- grads "$tmp/deflated.npz" --recipe mxfp8

# ---- raw narrow dtypes (the single-tensor report) ---------------------------------------------------
for t in bf16 e4m3 e5m2; do
  expect_json "raw $t" 'single_ok(j, E["raw_'$t'"], ("fp16", "bf16", "e4m3", "e5m2")) and j["nan"] == E["raw_nan"]["'$t'"] and j["infinity"] == E["raw_inf"]["'$t'"] and j["input"]["dtype"] == "'$t'"' -- grads "$tmp/raw.$t" --dtype $t
done
expect_json "raw u16-as-bf16" 'single_ok(j, E["raw_bf16"], ("fp16", "bf16", "e4m3", "e5m2"))' -- grads "$tmp/raw.bf16" --dtype u16-as-bf16
expect_error "raw bf16 odd size" "whole number of 2-byte values" -- grads "$tmp/dir/d.txt" --dtype bf16

# ---- numpy.savetxt text ---------------------------------------------------------------------------
expect_json "savetxt blanks" 'single_ok(j, E["txt"], ("fp16", "bf16", "e4m3", "e5m2")) and j["input"]["count"] == 20' -- grads "$tmp/savetxt.txt"
expect_json "savetxt commas" 'single_ok(j, E["txt"], ("fp16", "bf16", "e4m3", "e5m2")) and j["input"]["count"] == 20' -- grads "$tmp/savetxt.csv"
expect_error "text field" "bad.csv: line 2, column 3: 'x5' is not a number" -- grads "$tmp/bad.csv"
expect_error "text empty field" "line 1, column 3: an empty field" -- grads "$tmp/empty_field.csv"

# ---- standard input -------------------------------------------------------------------------------
stdin_file=$tmp/deflated.npz
expect_json "stdin npz" 'table_ok(j, E["npz"], E["npz_count"])' -- grads -
stdin_file=$tmp/model.safetensors
expect_json "stdin safetensors" 'table_ok(j, E["st"], E["st_count"])' -- grads -
stdin_file=$tmp/dir/b.npy
expect_json "stdin npy" 'j["input"]["kind"] == "npy" and j["input"]["count"] == 50' -- grads -
stdin_file=$tmp/savetxt.csv
expect_json "stdin text" 'single_ok(j, E["txt"], ("fp16", "bf16", "e4m3", "e5m2"))' -- grads -
stdin_file=/dev/null
expect_error "stdin empty" "standard input is empty" -- grads -

# ---- a directory --------------------------------------------------------------------------------
expect_json "directory" 'sorted(r["name"] for r in j) == ["a.safetensors/f32", "a.safetensors/f64", "b.npy", "c.npz/g", "c.npz/layer.0/a", "c.npz/w", "d.txt", "notes.md"] and [r["name"] for r in j if r["skipped"]] == ["notes.md"]' -- grads "$tmp/dir"
expect_json "directory counts" 'table_ok([dict(r, name=r["name"][6:]) for r in j if r["name"].startswith("c.npz/")], E["npz"], E["npz_count"])' -- grads "$tmp/dir"

# ---- torch.save -------------------------------------------------------------------------------
expect_error "torch zip refused" "model.pt" "never unpickles" "safetensors" "torch.load" -- grads "$tmp/model.pt"
expect_error "legacy pickle refused" "legacy.pt" "pickle" "st.save_file" -- grads "$tmp/legacy.pt"
expect_error "torch compare refused" "never unpickles" -- compare "$tmp/model.pt" "$tmp/stored.npz"

# ---- compare ------------------------------------------------------------------------------------
json_helpers+='
def close(a, b): return abs(a - b) <= 1e-12 * max(abs(b), 1e-300)
'
expect_json "compare" 't = {r["name"]: r for r in j["tensors"]}["t"]; c = E["cmp"]; (t["differ"], t["nan_mismatch"], t["count"]) == (c["differ"], c["nan_mismatch"], 50) and close(t["max_abs"], c["max_abs"]) and close(t["max_rel"], c["max_rel"]) and close(t["rms_rel"], c["rms_rel"])' -- compare "$tmp/ca.safetensors" "$tmp/cb.safetensors"
expect_json "compare lists" 'j["only_a"] == ["onlyA"] and j["only_b"] == ["onlyB"] and "shape mismatch" in {r["name"]: r for r in j["tensors"]}["s"]["error"]' -- compare "$tmp/ca.safetensors" "$tmp/cb.safetensors"
expect_json "compare same" 'all(r["differ"] == 0 and r["max_abs"] == 0 and r["error"] is None for r in j["tensors"]) and len(j["tensors"]) == 3' -- compare "$tmp/deflated.npz" "$tmp/stored.npz"
expect_out "compare text" "1 only in A, 1 only in B" "only in A: onlyA" "only in B: onlyB" "error: s: shape mismatch: (2,) vs (1, 2)" -- compare "$tmp/ca.safetensors" "$tmp/cb.safetensors"
stdin_file=$tmp/cb.safetensors
expect_json "compare stdin" 'len(j["tensors"]) == 2' -- compare "$tmp/ca.safetensors" -
stdin_file=/dev/null
expect_error "compare both stdin" "both '-'" -- compare - -
expect_error "compare missing" "cannot open" -- compare "$tmp/nope.npz" "$tmp/stored.npz"

# ---- malformed archives -----------------------------------------------------------------------
expect_error "truncated zip" "truncated.npz" "bad zip archive" -- grads "$tmp/truncated.npz"
expect_error "bad central directory" "badcd.npz" "central directory entry" -- grads "$tmp/badcd.npz"
expect_error "crc mismatch" "entry 'layer.0/a.npy'" "CRC-32 mismatch" -- grads "$tmp/crc.npz"
expect_error "zip bomb declared" "entry 'zeros.npy'" "compression ratio" "1100:1" -- grads "$tmp/bomb.npz"
expect_json "all-zero deflated npz read" 'j[0]["count"] == 16777216 and j[0]["exact_zero"] == 16777216' -- grads "$tmp/ratio.npz"
expect_error "safetensors header too long" "long_header.safetensors" "header length" "past the end of the file" -- grads "$tmp/long_header.safetensors"
expect_error "safetensors offsets past end" "tensor 'f32'" "past the end of the data" -- grads "$tmp/past.safetensors"
expect_error "safetensors overlap" "overlap tensor" "f64" -- grads "$tmp/overlap.safetensors"
expect_error "safetensors shape vs offsets" "tensor 'f32'" "shape (49,) of F32 needs 196 bytes" -- grads "$tmp/shape.safetensors"
expect_error "safetensors bad json" "badjson.safetensors" "bad safetensors header JSON" -- grads "$tmp/badjson.safetensors"
expect_error "compare malformed" "CRC-32 mismatch" -- compare "$tmp/stored.npz" "$tmp/crc.npz"

cli_finish floatlab_dumps
