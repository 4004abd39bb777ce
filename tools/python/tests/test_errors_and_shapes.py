"""Bad input is a Python exception with the library's message; odd arrays (non-contiguous, empty, 0-d,
Fortran order, negative strides) give the same results as a plain copy."""

import threading

import numpy as np
import pytest

import libfloat as lf


def test_unknown_format_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown format 'fp17' \(known: fp16\|binary16"):
        lf.quantize(np.ones(3, np.float32), "fp17")
    with pytest.raises(ValueError, match="unknown format"):
        lf.finfo("half-precision")
    with pytest.raises(TypeError, match="the format must be a name"):
        lf.quantize(np.ones(3, np.float32), 16)


def test_unknown_rounding_mode():
    with pytest.raises(ValueError, match=r"unknown rounding mode 'nearest' \(known: nearest_even"):
        lf.quantize(np.ones(3, np.float32), "fp16", "nearest")


def test_wrong_dtypes():
    with pytest.raises(TypeError, match="dtype int32: values must be float16, float32 or float64"):
        lf.quantize(np.ones(3, np.int32), "fp16")
    with pytest.raises(TypeError, match="dtype <U1"):
        lf.quantize(np.array(["a"]), "fp16")
    with pytest.raises(TypeError, match="encodings must be an integer array"):
        lf.decode(np.ones(3, np.float32), "fp16")
    with pytest.raises(ValueError, match="negative"):
        lf.decode(np.array([-1]), "fp16")
    with pytest.raises(ValueError, match=r"codes\[1\] = 65536 is not an encoding of fp16"):
        lf.decode(np.array([1, 65536], np.uint32), "fp16")
    with pytest.raises(ValueError, match="seed must be in"):
        lf.quantize(np.ones(3, np.float32), "fp16", "stochastic", seed=-1)
    with pytest.raises(ValueError, match="tininess must be"):
        lf.quantize(np.ones(3, np.float32), "fp16", tininess="early")


def test_model_errors():
    with pytest.raises(ValueError, match=r"unknown model 'fp8-acc' \(accumulation models and matrix units: fp16-acc"):
        lf.sum(np.ones(3, np.float32), "fp8-acc")
    with pytest.raises(ValueError, match="same length"):
        lf.dot(np.ones(3, np.float32), np.ones(4, np.float32), "fp32-acc")
    with pytest.raises(ValueError, match="M x K and a K x N"):
        lf.matmul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), "fp32-acc")
    with pytest.raises(ValueError, match="scale must be 'auto' or a positive number"):
        lf.range_report(np.ones(3, np.float32), "fp16", scale="max")
    with pytest.raises(ValueError, match="finite and > 0"):
        lf.range_report(np.ones(3, np.float32), "fp16", scale=-2.0)
    with pytest.raises(ValueError, match="stochastic rounding gives no fixed class"):
        lf.range_report(np.ones(3, np.float32), "fp16", rounding="stochastic")
    names = [m[0] for m in lf.models()]
    assert "fp16-acc" in names and "ampere_fp16" in names


def test_quantize_into_a_format_wider_than_float32():
    x = np.array([1 + 2.0**-30], np.float64)
    q, flags = lf.quantize(x.astype(np.float32), "fp64")  # float32 input, fp64 format: float64 out
    assert q.dtype == np.float64 and flags == lf.Flags.NONE
    q, flags = lf.quantize(x, "fp64")
    assert q[0] == x[0] and flags == lf.Flags.NONE


LAYOUTS = {
    "strided": lambda a: a[:, ::3],
    "fortran": np.asfortranarray,
    "reversed": lambda a: a[::-1, ::-1],
    "transposed": lambda a: a.T,
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_function_on_odd_layouts(layout):
    rng = np.random.default_rng(5)
    base = rng.standard_normal((12, 33)).astype(np.float16).astype(np.float32)
    v = LAYOUTS[layout](base)
    c = np.ascontiguousarray(v)
    assert np.array_equal(lf.quantize(v, "e4m3")[0], lf.quantize(c, "e4m3")[0])
    assert np.array_equal(lf.encode(v, "bf16")[0], lf.encode(c, "bf16")[0])
    codes = lf.encode(v, "fp16")[0]
    assert np.array_equal(lf.decode(codes, "fp16"), v)
    assert np.array_equal(lf.add(v, v, "fp16")[0], lf.add(c, c, "fp16")[0])
    assert lf.sum(v, "fp16-acc").value == lf.sum(c, "fp16-acc").value
    assert np.array_equal(lf.mx_dequantize(lf.mx_quantize(v, "mxfp4")), lf.mx_dequantize(lf.mx_quantize(c, "mxfp4")))
    assert lf.range_report(v, "fp16") == lf.range_report(c, "fp16")


def test_empty_and_zero_d():
    e = np.zeros((0, 4), np.float32)
    q, flags = lf.quantize(e, "fp16")
    assert q.shape == (0, 4) and flags == lf.Flags.NONE
    assert lf.encode(e, "fp16")[0].shape == (0, 4)
    assert lf.add(e, e, "fp16")[0].shape == (0, 4)
    assert lf.sum(e, "fp16-acc").value == 0.0
    assert lf.dot(np.zeros(0, np.float32), np.zeros(0, np.float32)).value == 0.0
    assert lf.range_report(e, "fp16")["log2_scale"] is None
    assert lf.mx_dequantize(lf.mx_quantize(e, "mxfp8_e4m3")).shape == (0, 4)
    z = np.float32(0.1)
    q, flags = lf.quantize(z, "bf16")
    assert q.shape == () and float(q) == 0.10009765625 and flags == lf.Flags.INEXACT
    assert lf.encode(3.0, "fp16")[0].shape == ()
    assert float(lf.decode(np.uint16(0x3C00), "fp16")) == 1.0
    assert float(lf.sqrt(np.float32(4.0), "fp16")[0]) == 2.0
    assert lf.mx_dequantize(lf.mx_quantize(np.float32(3.0), "mxfp8_e4m3")).shape == ()
    assert lf.quantize([0.5, 1.5], "fp16")[0].tolist() == [0.5, 1.5]  # lists work too (float64)


def test_big_arrays_release_the_gil():
    """Two threads quantizing at once give the same results as one after the other."""
    x = np.linspace(-1000, 1000, 2_000_000, dtype=np.float32)
    want = lf.quantize(x, "bf16")[0]
    results = [None, None]

    def work(i):
        results[i] = lf.quantize(x, "bf16")[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(r, want) for r in results)
