"""Elementwise add/sub/mul/div/sqrt/fma against NumPy's float16 arithmetic and the exact model.

NumPy computes a float16 operation in float32 and rounds the result to float16. For +, -, *, / and
sqrt that double rounding is harmless (24 >= 2 * 11 + 2: Figueroa, "When is double rounding
innocuous?", 1995), so NumPy's float16 results are the correctly rounded ones."""

from fractions import Fraction
import math

import numpy as np
import pytest

import libfloat as lf
import oracle

F = lf.Flags


def random_fp16_codes(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 16, size=n, dtype=np.uint32).astype(np.uint16)


def same_halves(mine_codes, ref_halves):
    ref = ref_halves.view(np.uint16)
    nan = np.isnan(ref_halves)
    assert np.array_equal(np.isnan(mine_codes.view(np.float16)), nan)
    assert np.array_equal(mine_codes[~nan], ref[~nan])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_ops_as_numpy_float16(op):
    a = random_fp16_codes(300_000, 1)
    b = random_fp16_codes(300_000, 2)
    mine, _ = getattr(lf, op)(a, b, "fp16")
    assert mine.dtype == np.uint16
    ha, hb = a.view(np.float16), b.view(np.float16)
    with np.errstate(all="ignore"):
        ref = {"add": ha + hb, "sub": ha - hb, "mul": ha * hb, "div": ha / hb}[op]
    same_halves(mine, ref)


def test_sqrt_every_fp16_as_numpy():
    a = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    mine, _ = lf.sqrt(a, "fp16")
    with np.errstate(all="ignore"):
        ref = np.sqrt(a.view(np.float16))
    same_halves(mine, ref)


def exact(code):
    v = float(np.uint16(code).view(np.float16))
    return Fraction(v)


@pytest.mark.parametrize("mode", ["nearest_even", "toward_zero", "upward", "downward", "nearest_away"])
def test_ops_and_flags_against_exact_model(mode):
    # Finite operands only; the exact model covers finite results and overflow.
    a = random_fp16_codes(6000, 3 + len(mode))
    b = random_fp16_codes(6000, 4 + len(mode))
    c = random_fp16_codes(6000, 5 + len(mode))
    keep = np.isfinite(a.view(np.float16)) & np.isfinite(b.view(np.float16)) & np.isfinite(c.view(np.float16))
    a, b, c = a[keep], b[keep], c[keep]
    for name, fn, model in [
        ("add", lambda: lf.add(a, b, "fp16", mode, elementwise_flags=True), lambda x, y, z: x + y),
        ("mul", lambda: lf.mul(a, b, "fp16", mode, elementwise_flags=True), lambda x, y, z: x * y),
        ("fma", lambda: lf.fma(a, b, c, "fp16", mode, elementwise_flags=True), lambda x, y, z: x * y + z),
    ]:
        got, flags = fn()
        for i in range(len(a)):
            v = model(exact(a[i]), exact(b[i]), exact(c[i]))
            want, wflags = oracle.round_exact(v, "fp16", mode)
            if v == 0:
                # An exact zero sum: +0 except in downward (IEEE 754-2019 §6.3); no flags.
                continue
            g = float(np.uint16(got[i]).view(np.float16))
            assert (g, int(flags[i])) == (want, wflags), (name, mode, a[i], b[i], c[i])


def test_division_by_zero_and_invalid():
    z = np.array([0.0], np.float32)
    one = np.array([1.0], np.float32)
    r, flags = lf.div(one, z, "fp16")
    assert math.isinf(r[0]) and flags == F.DIVIDE_BY_ZERO
    r, flags = lf.div(z, z, "fp16")
    assert math.isnan(r[0]) and flags == F.INVALID
    r, flags = lf.sqrt(-one, "fp16")
    assert math.isnan(r[0]) and flags == F.INVALID


def test_values_in_values_out_and_broadcasting():
    a = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    b = np.array([0.5, 2.0**-11], dtype=np.float32)
    r, flags = lf.add(a, b, "fp16")
    assert r.shape == (3, 2) and r.dtype == np.float32
    assert r.tolist() == [[1.5, 1.0], [2.5, 2.0], [3.5, 3.0]]
    assert flags == F.INEXACT
    r, per = lf.add(a, b, "fp16", elementwise_flags=True)
    assert per.tolist() == [[0, 1], [0, 1], [0, 1]]
    # A value that is not a fp16 value is refused, not rounded silently.
    with pytest.raises(ValueError, match=r"is not a fp16 value"):
        lf.add(np.float32(0.1), np.float32(1.0), "fp16")
