"""sum, dot and matmul (against models written here, and against the C++ library through floatlab on
the same data), block scaling, range_report and GradScaler."""

from fractions import Fraction
import json
import math
import os
import subprocess

import numpy as np
import pytest

import libfloat as lf
import oracle

F = lf.Flags


def fp16_data(n, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * scale).astype(np.float16).astype(np.float32)


# ---- independent models of three accumulation presets ------------------------------------------------

def fp16_acc_sum(x):
    """fp16-acc: a float16 accumulator, one rounding per addition (NumPy's float16 add is correct)."""
    acc = np.float16(0)
    for v in x:
        acc = np.float16(acc + np.float16(v))
    return float(acc)


def fp32_acc_dot(a, b):
    """fp32-acc: exact products (fp16 x fp16 fits in float64), a float32 accumulator. The float64 sum
    of a float32 and such a product, rounded to float32, is the correctly rounded sum (53 >= 2*24+2)."""
    acc = np.float32(0)
    for x, y in zip(a, b):
        acc = np.float32(np.float64(acc) + np.float64(x) * np.float64(y))
    return float(acc)


def exact_dot(a, b):
    return sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a, b)), Fraction(0))


def test_sum_fp16_acc_as_model():
    x = fp16_data(3000, 1) + np.float32(4)
    x = x.astype(np.float16).astype(np.float32)
    r = lf.sum(x, "fp16-acc")
    assert r.value == fp16_acc_sum(x)
    assert r.format == "fp16"
    assert r.exact == float(sum((Fraction(float(v)) for v in x), Fraction(0)))
    assert r.flags & F.INEXACT
    assert r.relative_error == abs(r.value - r.exact) / abs(r.exact)


def test_the_stalled_fp16_sum():
    x = np.full(10_000, np.float16(0.01), dtype=np.float16)
    r = lf.sum(x, "fp16-acc")
    assert r.value == fp16_acc_sum(x.astype(np.float32)) == 32.0
    assert lf.sum(x, "fp32-acc").value == fp32_acc_dot(x.astype(np.float32), np.ones(x.size, np.float32))


def test_dot_fp32_acc_as_model():
    a, b = fp16_data(2000, 2), fp16_data(2000, 3)
    r = lf.dot(a, b, "fp32-acc")
    assert r.value == fp32_acc_dot(a, b)
    assert r.exact == float(exact_dot(a, b))
    assert r.format == "fp32"


def test_matmul_fp16_acc_as_model():
    a = fp16_data(6 * 40, 4).reshape(6, 40)
    b = fp16_data(40 * 5, 5).reshape(40, 5)
    r = lf.matmul(a, b, "fp16-acc")
    assert r.value.shape == (6, 5) and r.bits.dtype == np.uint16
    for i in range(6):
        for j in range(5):
            acc = np.float16(0)
            for k in range(40):
                acc = np.float16(acc + np.float16(np.float16(a[i, k]) * np.float16(b[k, j])))
            assert r.value[i, j] == float(acc)
            assert r.exact[i, j] == float(exact_dot(a[i], b[:, j]))


def test_round_inputs():
    x = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    with pytest.raises(ValueError, match="not a fp16 value"):
        lf.sum(x, "fp16-acc")
    r = lf.sum(x, "fp16-acc", round_inputs=True)
    assert r.value == fp16_acc_sum(x.astype(np.float16).astype(np.float32))


FLOATLAB = os.environ.get("LIBFLOAT_FLOATLAB")


@pytest.mark.skipif(not FLOATLAB, reason="LIBFLOAT_FLOATLAB (the floatlab binary) is not set")
@pytest.mark.parametrize("model", ["fp16-acc", "fp32-acc", "fp16-kahan", "fp16-pairwise", "ampere_fp16",
                                   "volta_fp16", "hopper_fp16", "cdna3_fp16"])
def test_dot_equals_the_cpp_library_through_floatlab(model, tmp_path):
    a, b = fp16_data(1000, 6, 3.0), fp16_data(1000, 7, 0.01)
    (tmp_path / "a.txt").write_text("".join(f"{float(v)!r}\n" for v in a))
    (tmp_path / "b.txt").write_text("".join(f"{float(v)!r}\n" for v in b))
    out = subprocess.run([FLOATLAB, "dot", "--model", model, "--input-format", "fp16", "--json",
                          str(tmp_path / "a.txt"), str(tmp_path / "b.txt")],
                         capture_output=True, text=True, check=True).stdout
    cli = json.loads(out)["models"][0]
    r = lf.dot(a, b, model)
    assert int(cli["bits"], 16) == r.bits, (cli, r)
    # floatlab prints the shortest decimal that reads back as the result in its format
    assert float({"fp16": np.float16, "fp32": np.float32}[r.format](cli["result"])) == r.value
    assert sorted(cli["flags"]) == sorted(f.name.lower() for f in F if f and f in r.flags)


# ---- block scaling ------------------------------------------------------------------------------------

def e4m3_round(v: Fraction):
    """OCP E4M3 (p = 4, emin = -6, max 448) nearest even, saturating: the MX conversion clamps."""
    if v == 0:
        return 0.0
    neg = v < 0
    a = -v if neg else v
    e = max(oracle.floor_log2(a), -6)
    q = Fraction(2) ** (e - 3)
    m = a / q
    n = math.floor(m)
    if m - n > Fraction(1, 2) or (m - n == Fraction(1, 2) and n % 2):
        n += 1
    r = min(float(n * q), 448.0)
    return -r if neg else r


def test_mxfp8_against_ocp_rule():
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((4, 96)) * np.exp2(rng.integers(-20, 20, size=(4, 1)))).astype(np.float32)
    q = lf.mx_quantize(x, "mxfp8_e4m3")
    assert q.elements.shape == x.shape and q.scales.shape == (4, 3)
    back = lf.mx_dequantize(q)
    for r in range(4):
        for blk in range(3):
            block = x[r, 32 * blk: 32 * blk + 32]
            amax = Fraction(float(np.max(np.abs(block))))
            # OCP MX v1.0 §6.3: X = 2^(floor(log2(amax)) - emax_elem), emax of E4M3 = 8.
            k = oracle.floor_log2(amax) - 8
            assert int(q.scales[r, blk]) == k + 127
            for c, v in enumerate(block):
                assert back[r, 32 * blk + c] == e4m3_round(Fraction(float(v)) / Fraction(2) ** k) * 2.0**k


def test_mx_formats_listed_and_errors():
    names = [b[0] for b in lf.block_formats()]
    assert names == ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "nvfp4", "mxint8"]
    with pytest.raises(ValueError, match="unknown block format 'mxfp9'"):
        lf.mx_quantize(np.ones(32, np.float32), "mxfp9")
    with pytest.raises(TypeError, match="float64"):
        lf.mx_quantize(np.ones(32), "mxfp4")
    q = lf.mx_quantize(np.ones(40, np.float32), "nvfp4")
    assert lf.mx_dequantize(q).tolist() == [1.0] * 40


# ---- range_report ---------------------------------------------------------------------------------

def test_range_report_as_numpy_model():
    rng = np.random.default_rng(9)
    x = (np.sign(rng.uniform(-1, 1, 50_000)) * np.exp2(rng.uniform(-40, 4, 50_000))).astype(np.float32)
    x[:100] = 0
    r = lf.range_report(x, "fp16")
    h = x.astype(np.float16)
    a = np.abs(h.astype(np.float64))
    nz = x != 0
    at_one = r["at_one"]
    assert at_one["exact_zero"] == int((~nz).sum())
    assert at_one["zero"] == int((nz & (a == 0)).sum())
    assert at_one["subnormal"] == int(((a > 0) & (a < 2.0**-14)).sum())
    assert at_one["normal"] == int((a >= 2.0**-14).sum())
    # The largest power of two S with no overflow: max|x| * S < 65520 (65520 rounds to infinity).
    amax = float(np.max(np.abs(x)))
    k = 0
    while amax * 2.0 ** (k + 1) < 65520:
        k += 1
    while amax * 2.0**k >= 65520:
        k -= 1
    assert r["log2_scale"] == k and r["scale"] == 2.0**k and not r["capped"]
    hs = (x.astype(np.float64) * 2.0**k).astype(np.float16).astype(np.float64)
    assert r["at_scale"]["zero"] == int((nz & (hs == 0)).sum())
    assert r["at_scale"]["overflow"] == 0


def test_range_report_caps_at_2_127():
    r = lf.range_report(np.array([1e-30], np.float32), "bf16")
    assert r["log2_scale"] == 127 and r["capped"]
    r = lf.range_report(np.zeros(3, np.float32), "fp16")
    assert r["log2_scale"] is None and r["at_scale"] is None
    r = lf.range_report(np.array([1.0, 1e-12], np.float32), "fp16", scale=1024)
    assert r["scale"] == 1024.0 and r["at_scale"]["zero"] == 1


# ---- GradScaler --------------------------------------------------------------------------------------

def test_grad_scaler_as_torch_rule():
    """torch._amp_update_scale_: backoff on inf (x0.5, tracker 0); growth after growth_interval clean steps."""
    s = lf.GradScaler(init_scale=2.0**16, growth_interval=3)
    scale, tracker = np.float32(2.0**16), 0
    pattern = [False, False, True, False, False, False, False, True, True, False, False, False]
    for found in pattern:
        skipped = s.update(found)
        if found:
            scale, tracker = np.float32(np.float64(scale) * 0.5), 0
        else:
            tracker += 1
            if tracker == 3:
                scale, tracker = np.float32(np.float64(scale) * 2.0), 0
        assert skipped == found
        assert s.scale == float(scale) and s.growth_tracker == tracker
    assert s.inverse_scale == float(np.float32(1 / np.float64(scale)))


def test_grad_scaler_step_from_gradients():
    s = lf.GradScaler(init_scale=2.0**16)
    g = np.array([1.0, 2.0], np.float64)  # 2 * 65536 = 131072 > 65504: overflows fp16
    assert s.found_inf(g, "fp16") and s.step(g, "fp16") and s.scale == 32768.0 and s.last_event == "backoff"
    assert s.found_inf(g, "fp16")  # 2 * 32768 = 65536 >= 65520 still rounds to infinity
    assert not s.found_inf(np.array([1.0, 1.99]), "fp16")  # 1.99 * 32768 = 65208.32 < 65520


def test_mxint8_elements_are_int8_over_64():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 64)).astype(np.float32)
    q = lf.mx_quantize(x, "mxint8")
    k = q.elements.view(np.int8).astype(np.float64)
    scale = np.exp2(q.scales.astype(np.float64) - 127)  # E8M0
    assert np.array_equal(lf.mx_dequantize(q), (k / 64 * np.repeat(scale, 32, axis=1)).astype(np.float32))
    for r in range(3):
        for blk in range(2):
            block = x[r, 32 * blk: 32 * blk + 32].astype(np.float64)
            X = 2.0 ** math.floor(math.log2(np.max(np.abs(block))))
            want = np.clip(np.round(block / X * 64), -127, 127)  # np.round: ties to even
            assert np.array_equal(k[r, 32 * blk: 32 * blk + 32], want)
