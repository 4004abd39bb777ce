#!/usr/bin/env bash
# `floatlab calc` on long and deeply nested expressions: --json stays linear in the length of the
# expression (30,001 operands finish well inside this test's ctest TIMEOUT; a JSON writer that
# copies the document per step, or steps that repeat their operands' text, do not), every step of
# the JSON is right, and nesting beyond the documented limit is an error, never a crash.
#
#   floatlab_calc_long.sh FLOATLAB
#
# Nothing here is timed: a superlinear calc runs into the TIMEOUT ctest gives this test. Expected
# values come from a small exact model written below in Python (fractions.Fraction, rounding to
# nearest even or toward zero at precision p in [emin, emax], IEEE 754-2019 4.3 and 3.4), itself
# checked against CPython's struct 'e' (binary16) and 'f' (binary32) packing.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
export NO_COLOR=1

# check_json NAME FORMAT ROUNDING OPERANDS SEED: builds an expression of OPERANDS literals (sums
# and differences of products, quotients and single numbers), runs calc --json on it and compares
# the whole document with the model.
check_json() {
  local name=$1 format=$2 mode=$3 operands=$4 seed=$5 verdict
  checks=$((checks + 1))
  python3 - "$operands" "$seed" >"$tmp/expr" <<'PY'
import random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
digits = "123456789"
def literal():
    d = rng.choice(digits)
    return d if rng.random() < 0.5 else "." + d
parts, left = [], n
while left:
    k = 1 if left == 1 else rng.choice((1, 2, 2))
    term = literal() if k == 1 else literal() + rng.choice("*/") + literal()
    parts.append(term if not parts else rng.choice("+-") + term)
    left -= k
print("".join(parts), end="")
PY
  # (an argument is at most 128 KiB on Linux, MAX_ARG_STRLEN: the expression stays below)
  run calc "$(<"$tmp/expr")" -f "$format" -r "$mode" --json
  if [[ $rc != 0 ]]; then
    fail "$name: exit $rc: ${err:0:500}"
    return
  fi
  verdict=$(python3 - "$tmp/out" "$tmp/expr" "$format" "$mode" <<'PY' 2>&1
import json, random, struct, sys
from fractions import Fraction as Q

FORMATS = {"fp16": (11, -14, 15), "bf16": (8, -126, 127), "fp32": (24, -126, 127)}

def floor_log2(a):  # a > 0, exact
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Q(2) ** e > a: e -= 1
    while Q(2) ** (e + 1) <= a: e += 1
    return e

def round_q(q, fmt, mode):
    """q rounded to the format: nearest even or toward zero; overflow to inf (nearest) or max."""
    p, emin, emax = FORMATS[fmt]
    if q == 0: return q
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = max(floor_log2(a), emin)
    scale = Q(2) ** (p - 1 - e)
    m = a * scale
    i = m.numerator // m.denominator
    r = m - i
    if mode == "nearest_even" and (r > Q(1, 2) or (r == Q(1, 2) and i % 2 == 1)): i += 1
    v = i / scale
    top = (2 - Q(2) ** (1 - p)) * Q(2) ** emax
    if v > top: v = float("inf") if mode == "nearest_even" else top
    return sign * v

def bits(v, fmt):
    p, emin, emax = FORMATS[fmt]
    width = {"fp16": 16, "bf16": 16, "fp32": 32}[fmt]
    ew = width - p
    bias = (1 << (ew - 1)) - 1
    s = 1 if (v < 0) else 0
    a = abs(v)
    if a == float("inf"): body = ((1 << ew) - 1) << (p - 1)
    elif a == 0: body = 0
    else:
        e = floor_log2(a)
        if e < emin: body = int(a * Q(2) ** (p - 1 - emin))
        else: body = ((e + bias) << (p - 1)) | int(a * Q(2) ** (p - 1 - e) - 2 ** (p - 1))
    return "0x%0*X" % (width // 4, (s << (width - 1)) | body)

# The model against CPython's packing, on values exact in binary64 (sums and products of fp16
# values, products of 12-bit integers scaled): any slip in round_q or bits shows here first.
rng = random.Random(1)
for _ in range(3000):
    x = Q(rng.randint(1, 2047), 2 ** rng.randint(0, 30)) * rng.choice((1, -1))
    y = Q(rng.randint(1, 2047), 2 ** rng.randint(0, 30))
    for q in (x * y, x + y, x - y):
        if q == 0: continue
        h = struct.unpack("<H", struct.pack("<e", float(q)))[0] if abs(q) < 65520 else None
        if h is not None and abs(q) > Q(1, 2 ** 25): assert bits(round_q(q, "fp16", "nearest_even"), "fp16") == "0x%04X" % h, q
        f = struct.unpack("<I", struct.pack("<f", float(q)))[0]
        assert bits(round_q(q, "fp32", "nearest_even"), "fp32") == "0x%08X" % f, q

d = json.load(open(sys.argv[1]))
expr, fmt, mode = open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]

# The expected steps, in evaluation order (children first), from the expression's own structure:
# terms separated by + and -, each a literal or literal (* or /) literal, left associative.
want = []   # (op, begin, end, operand indexes, exact value or None, rounded value)
def push(op, b, e, args, exact):
    want.append((op, b, e, args, exact, round_q(exact, fmt, mode)))
    return len(want) - 1
i, acc = 0, None
while i < len(expr):
    sign = None
    if acc is not None:
        sign, i = expr[i], i + 1
    start = i
    def lit():
        global i
        b = i
        while i < len(expr) and expr[i] not in "+-*/": i += 1
        return push("literal", b, i, [], Q(expr[b:i]))
    a = lit()
    if i < len(expr) and expr[i] in "*/":
        o, i = expr[i], i + 1
        c = lit()
        x, y = want[a][5], want[c][5]
        t = push("mul" if o == "*" else "div", start, i, [a, c], x * y if o == "*" else x / y)
    else:
        t = a
    if acc is None: acc = t
    else:
        x, y = want[acc][5], want[t][5]
        acc = push("add" if sign == "+" else "sub", 0, i, [acc, t], x + y if sign == "+" else x - y)

steps = d["steps"]
assert d["command"] == "calc" and d["expression"] == expr and d["format"] == fmt and d["rounding"] == mode
assert len(steps) == len(want), "%d steps, want %d" % (len(steps), len(want))
inexact = False
for k, (s, (op, b, e, args, exact, v)) in enumerate(zip(steps, want)):
    where = "step %d (%s %r)" % (k, op, expr[b:e][:40])
    assert s["op"] == op, where + ": op " + s["op"]
    assert s["span"] == [b, e], where + ": span %r, want %r" % (s["span"], [b, e])
    assert s["operands"] == args, where + ": operands %r" % s["operands"]
    assert s["result"]["bits"] == bits(v, fmt), where + ": %s, want %s" % (s["result"]["bits"], bits(v, fmt))
    assert Q(s["result"]["exact"]) == v, where + ": exact " + s["result"]["exact"]
    direction = "exact" if v == exact else "up" if v > exact else "down"
    assert s["direction"] == direction, where + ": direction %s, want %s" % (s["direction"], direction)
    assert ("inexact" in s["flags"]) == (direction != "exact"), where + ": flags %r" % s["flags"]
    inexact = inexact or direction != "exact"
    if op != "literal":
        x = Q(s["exact"]["value"])
        if s["exact"]["exact"]: assert x == exact, where + ": exact value " + s["exact"]["value"]
        else: assert op == "div" and abs(x - exact) <= abs(exact) / 10 ** 18, where + ": approximate " + s["exact"]["value"]
assert d["result"] == steps[-1]["result"]
assert ("inexact" in d["flags"]) == inexact and "overflow" not in d["flags"], d["flags"]
print("ok")
PY
)
  [[ $verdict == ok ]] || fail "$name: ${verdict:0:2000}"
}

check_json "fp16, 30001 operands" fp16 nearest_even 30001 7
check_json "bf16, 30001 operands, toward_zero" bf16 toward_zero 30001 11
check_json "fp16, 5 operands" fp16 nearest_even 5 3

# Steps hold their place in EXPR, not its text: the output grows linearly with the expression.
# 1+1+...+1 with 30,001 ones is 60,001 characters; the steps' texts would add up to 9 * 10^8.
long=$(printf '1+%.0s' $(seq 30000))1
run calc "$long" -f fp16 --json
checks=$((checks + 1))
size=$(wc -c <"$tmp/out")
(( rc == 0 && size < 40000000 )) || fail "1+1+...+1 (30,001 ones) --json: exit $rc, $size bytes"

# ---- nesting -----------------------------------------------------------------------------------
# The parser refuses nesting beyond 200 levels with an error; 200 levels work. Exit 2 (not 134 or
# 139, an abort or a stack overflow) and the message says why.
nest() { printf -- "$2%.0s" $(seq "$1"); }
deep_ok="$(nest 200 '(')1$(nest 200 ')')"
expect_out "200 nested parentheses" "= 1 in fp16 (0x3C00)" -- calc "$deep_ok" -f fp16
expect_error "201 nested parentheses" "nested too deeply (more than 200 levels)" -- \
  calc "$(nest 201 '(')1$(nest 201 ')')" -f fp16
expect_error "60,000 nested parentheses" "nested too deeply (more than 200 levels)" -- \
  calc "$(nest 60000 '(')1$(nest 60000 ')')" -f fp16
expect_error "100,000 unary minus signs" "nested too deeply (more than 200 levels)" -- \
  calc -f fp16 -- "$(nest 100000 '-')1"
expect_error "20,000 nested square roots" "nested too deeply (more than 200 levels)" -- \
  calc "$(nest 20000 'sqrt(')4$(nest 20000 ')')" -f fp16
expect_error "unclosed 100,000 parentheses" "nested too deeply" -- calc "$(nest 100000 '(')" -f fp16
# -(-(...-(2)...)): each "-(" is 2 levels (the sign, the parenthesis), so 100 of them are 200
# levels; an even number of exact negations gives 2 back
expect_out "100 nested negations" "= 2 in fp16 (0x4000)" -- calc -f fp16 -- "$(nest 100 '-(')2$(nest 100 ')')"
expect_error "101 nested negations" "nested too deeply" -- calc -f fp16 -- "$(nest 101 '-(')2$(nest 101 ')')"

cli_finish floatlab_calc_long
