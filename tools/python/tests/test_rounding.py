"""quantize, encode, decode and finfo against NumPy's own IEEE rounding (float16, float32) and the
exact model in oracle.py (every mode, bf16)."""

from fractions import Fraction

import numpy as np
import pytest

import libfloat as lf
import oracle

F = lf.Flags


def same_floats(a, b):
    """Bit-for-bit equal, except that any NaN equals any NaN (payloads are checked separately)."""
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b))
    ua = a.view(np.uint32 if a.dtype == np.float32 else np.uint64)
    ub = b.view(ua.dtype)
    assert np.array_equal(ua[~nan], ub[~nan])


# ---- all 2^16 fp16 encodings --------------------------------------------------------------------

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def test_decode_every_fp16_encoding_as_numpy():
    mine = lf.decode(ALL16, "fp16")
    assert mine.dtype == np.float32
    same_floats(mine, ALL16.view(np.float16).astype(np.float32))
    # NaNs keep their sign and payload, quieted (IEEE 754-2019 §6.2.3): bit 9 of fp16 is bit 22 of float32.
    nan = np.isnan(ALL16.view(np.float16))
    assert nan.sum() == 2 * 1023  # two signs, 1023 nonzero fractions under the all-ones exponent
    got = mine[nan].view(np.uint32)
    want = ((ALL16[nan].astype(np.uint32) & 0x8000) << 16) | 0x7F800000 | \
        ((ALL16[nan].astype(np.uint32) & 0x3FF) << 13) | 0x400000
    assert np.array_equal(got, want)


def test_every_fp16_value_rounds_to_itself():
    values = ALL16.view(np.float16).astype(np.float32)
    finite = ~np.isnan(values)
    q, flags = lf.quantize(values[finite], "fp16", elementwise_flags=True)
    same_floats(q, values[finite])
    assert not flags.any()
    codes, flags = lf.encode(values[finite], "fp16")
    assert codes.dtype == np.uint16
    assert np.array_equal(codes, ALL16[finite])
    assert flags == F.NONE


def test_fp16_nan_encodings():
    nan = np.isnan(ALL16.view(np.float16))
    # libfloat's decode quiets: converting back gives the quieted fp16 NaN, no flag.
    codes, flags = lf.encode(lf.decode(ALL16[nan], "fp16"), "fp16")
    assert np.array_equal(codes, ALL16[nan] | 0x0200)
    assert flags == F.NONE
    # NumPy's widening keeps signaling NaNs signaling: each of those raises invalid.
    numpy_widened = ALL16[nan].view(np.float16).astype(np.float32)
    codes, per = lf.encode(numpy_widened, "fp16", elementwise_flags=True)
    assert np.array_equal(codes, ALL16[nan] | 0x0200)
    assert np.array_equal(per == F.INVALID, (ALL16[nan] & 0x0200) == 0)
    # A signaling float32 NaN raises invalid.
    snan = np.array([0x7F800001], dtype=np.uint32).view(np.float32)
    _, flags = lf.encode(snan, "fp16")
    assert flags == F.INVALID


# ---- 10^6 random floats against NumPy --------------------------------------------------------------

def random_float32(n, seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    # Half of them near fp16's range, so that every class (overflow, normal, subnormal, zero) is dense.
    near = rng.uniform(-30, 17, size=n // 2)
    x[: n // 2] = (np.sign(rng.uniform(-1, 1, size=n // 2)) * np.exp2(near)).astype(np.float32)
    return x


def fp16_flags_model(x):
    """The flags of float32 -> fp16 (nearest even), from NumPy's rounding and the IEEE definitions."""
    r = x.astype(np.float16).astype(np.float64)
    xd = x.astype(np.float64)
    nan = np.isnan(x)
    snan = nan & ((x.view(np.uint32) & 0x400000) == 0)
    inexact = ~nan & (r != xd)
    overflow = np.isfinite(x) & np.isinf(r)
    # Tiny after rounding: |x| rounded to 11 bits with an unbounded exponent is below 2^-14, i.e.
    # |x| < 2^-14 - 2^-26 (the midpoint under 2^-14 rounds up, to even).
    tiny = np.abs(xd) < 2.0**-14 - 2.0**-26
    flags = np.zeros(x.shape, dtype=np.uint8)
    flags |= np.where(inexact, 1, 0).astype(np.uint8)
    flags |= np.where(inexact & tiny, 2, 0).astype(np.uint8)
    flags |= np.where(overflow, 4, 0).astype(np.uint8)
    flags |= np.where(snan, 16, 0).astype(np.uint8)
    return flags


def test_million_random_floats_to_fp16_as_numpy():
    x = random_float32(1_000_000, 20261203)
    q, flags = lf.quantize(x, "fp16")
    same_floats(q, x.astype(np.float16).astype(np.float32))
    want = fp16_flags_model(x)
    assert flags == F(int(np.bitwise_or.reduce(want)))
    q2, per = lf.quantize(x, "fp16", elementwise_flags=True)
    same_floats(q2, q)
    assert np.array_equal(per, want)
    # Every flag and class occurs in this sample, so the comparison above can fail on each.
    for bit in (1, 2, 4, 16):
        assert (want & bit).any()
    codes, per_codes = lf.encode(x, "fp16", elementwise_flags=True)
    finite = ~np.isnan(x)
    assert np.array_equal(codes[finite], x[finite].astype(np.float16).view(np.uint16))
    assert np.array_equal(per_codes, want)


def test_million_random_doubles_to_fp32_as_numpy():
    rng = np.random.default_rng(7)
    n = 1_000_000
    x = rng.integers(0, 1 << 63, size=n, dtype=np.int64).view(np.float64).copy()
    x[::2] = np.sign(rng.uniform(-1, 1, size=n // 2)) * np.exp2(rng.uniform(-160, 130, size=n // 2))
    q, flags = lf.quantize(x, "fp32")
    assert q.dtype == np.float64
    same_floats(q, x.astype(np.float32).astype(np.float64))
    r = x.astype(np.float32).astype(np.float64)
    inexact = ~np.isnan(x) & (r != x)
    tiny = np.abs(x) < 2.0**-126 - 2.0**-151
    overflow = np.isfinite(x) & np.isinf(r)
    snan = np.isnan(x) & ((x.view(np.uint64) & (1 << 51)) == 0)
    want = np.where(inexact, 1, 0) | np.where(inexact & tiny, 2, 0) | np.where(overflow, 4, 0) | np.where(snan, 16, 0)
    assert snan.any() and (want & 2).any() and (want & 4).any()
    _, per = lf.quantize(x, "fp32", elementwise_flags=True)
    assert np.array_equal(per, want.astype(np.uint8))
    assert flags == F(int(np.bitwise_or.reduce(want)))


# ---- every rounding mode against the exact model --------------------------------------------------------

MODES = ["nearest_even", "nearest_away", "toward_zero", "upward", "downward", "odd"]


@pytest.mark.parametrize("fmt", ["fp16", "bf16"])
@pytest.mark.parametrize("mode", MODES)
def test_modes_against_exact_model(fmt, mode):
    x = random_float32(4000, 100 * MODES.index(mode) + len(fmt))
    x = x[np.isfinite(x)]
    if mode == "odd":  # round to odd has no defined overflow result in IEEE 754: keep values in range
        x = x[np.abs(x) < 2.0**15]
    q, per = lf.quantize(x, fmt, mode, elementwise_flags=True)
    for xi, qi, fi in zip(x.tolist(), q.tolist(), per.tolist()):
        want, wflags = oracle.round_exact(Fraction(xi), fmt, mode)
        assert (qi, fi) == (want, wflags) and np.signbit(qi) == np.signbit(want), (xi, mode)


def test_saturate_ftz_daz():
    x = np.array([70000.0, -1e6, 1e-6, -1e-6, 3e-5], dtype=np.float32)
    q, flags = lf.quantize(x, "fp16", saturate=True)
    assert q[0] == 65504 and q[1] == -65504
    q, _ = lf.quantize(x, "fp16", ftz=True)
    assert q[2] == 0 and q[3] == 0 and np.signbit(q[3])
    assert q[4] == 0  # 3e-5 is below 2^-14 = 6.1e-5: tiny, flushed
    tiny32 = np.array([1e-40], dtype=np.float32)  # a float32 subnormal
    q, flags = lf.quantize(tiny32, "bf16", daz=True)
    assert q[0] == 0 and flags == F.NONE


def test_stochastic_is_reproducible_and_unbiased():
    x = np.full(200_000, 1 + 2.0**-12, dtype=np.float32)  # a quarter of the way from 1 to the next fp16
    a, _ = lf.quantize(x, "fp16", "stochastic", seed=42)
    b, _ = lf.quantize(x, "fp16", "stochastic", seed=42)
    c, _ = lf.quantize(x, "fp16", "stochastic", seed=43)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert set(np.unique(a).tolist()) == {1.0, 1.0 + 2.0**-10}
    up = np.mean(a > 1)
    assert abs(up - 0.25) < 5 * np.sqrt(0.25 * 0.75 / x.size)
    # Element i gets the bits of (seed, i) in C order, whatever the layout.
    m = np.full((400, 500), 1 + 2.0**-12, dtype=np.float32)
    d, _ = lf.quantize(np.asfortranarray(m), "fp16", "stochastic", seed=42)
    assert np.array_equal(d.reshape(-1), a)


# ---- finfo ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt,np_type", [("fp16", np.float16), ("fp32", np.float32), ("fp64", np.float64)])
def test_finfo_as_numpy(fmt, np_type):
    mine = lf.finfo(fmt)
    ref = np.finfo(np_type)
    for field in ("bits", "nexp", "iexp", "nmant", "machep", "negep", "minexp", "maxexp", "precision"):
        assert getattr(mine, field) == getattr(ref, field), field
    for field in ("eps", "epsneg", "max", "min", "tiny", "smallest_normal", "smallest_subnormal"):
        assert getattr(mine, field) == float(getattr(ref, field)), field
    assert np_type(mine.resolution) == ref.resolution  # NumPy's is 10**-precision in the type itself


def test_finfo_bf16_and_fp8():
    b = lf.finfo("bf16")
    assert (b.bits, b.nmant, b.nexp, b.eps, b.max) == (16, 7, 8, 2.0**-7, (2 - 2.0**-7) * 2.0**127)
    assert b.smallest_subnormal == 2.0**-133 and b.tiny == 2.0**-126
    e = lf.finfo("e4m3")  # OCP E4M3: max 448 (S.1111.110), no infinity
    assert (e.max, e.tiny, e.smallest_subnormal, e.dtype) == (448.0, 2.0**-6, 2.0**-9, np.uint8)
    assert "fp16" in lf.formats() and "e4m3" in lf.formats()


# ---- the array kernels (fast paths) against the scalar core, per element --------------------------------

@pytest.mark.parametrize("fmt", ["fp16", "bf16", "e4m3", "e5m2", "tf32", "e3m4", "fp4"])
@pytest.mark.parametrize("mode", MODES + ["stochastic"])
def test_array_kernels_equal_the_scalar_core(fmt, mode):
    """quantize and encode without elementwise_flags take the array kernels; with it, the scalar core."""
    x = random_float32(50_000, 5)
    for saturate in (False, True):
        a, fa = lf.encode(x, fmt, mode, seed=9, saturate=saturate)
        b, fb = lf.encode(x, fmt, mode, seed=9, saturate=saturate, elementwise_flags=True)
        assert np.array_equal(a, b) and fa == F(int(np.bitwise_or.reduce(fb)))
        q, fq = lf.quantize(x, fmt, mode, seed=9, saturate=saturate)
        r, fr = lf.quantize(x, fmt, mode, seed=9, saturate=saturate, elementwise_flags=True)
        same_floats(q, r)
        assert fq == F(int(np.bitwise_or.reduce(fr)))
        same_floats(q, lf.decode(a, fmt).astype(q.dtype))
