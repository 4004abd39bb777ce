"""libfloat for NumPy: bit-exact low-precision floating point on arrays.

Every function takes NumPy arrays of any shape and strides (and Python scalars or lists) and returns
NumPy arrays of the same shape. Values are float16/float32/float64 arrays; encodings (the bits of a
format) are unsigned integer arrays: uint8 for formats of at most 8 bits, uint16, uint32, uint64.
Results are what the C++ library gives, bit for bit; flags are IEEE 754 exception flags (`Flags`).

    >>> import numpy as np, libfloat
    >>> values, flags = libfloat.quantize(np.float32(0.1), "bf16")
    >>> float(values), flags
    (0.10009765625, <Flags.INEXACT: 1>)

docs/python.md documents every function.
"""

from __future__ import annotations

import enum
import functools
import math
import secrets
from dataclasses import dataclass

import numpy as np

from . import _core

__version__ = _core.version

__all__ = [
    "Flags", "formats", "finfo", "quantize", "encode", "decode", "add", "sub", "mul", "div", "fma", "sqrt",
    "models", "sum", "dot", "matmul", "Result", "block_formats", "mx_quantize", "mx_dequantize", "MXTensor",
    "range_report", "GradScaler",
]


class Flags(enum.IntFlag):
    """IEEE 754-2019 §7 exception flags; the values are Berkeley SoftFloat's (and the C++ lf::status)."""

    NONE = 0
    INEXACT = 0x01
    UNDERFLOW = 0x02
    OVERFLOW = 0x04
    DIVIDE_BY_ZERO = 0x08
    INVALID = 0x10


# ---- argument checking -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _info(fmt: str) -> dict:
    if not isinstance(fmt, str):
        raise TypeError(f"the format must be a name (str) such as 'bf16', not {type(fmt).__name__}")
    return _core.format_info(fmt)


def _mode(rounding) -> str:
    if not isinstance(rounding, str):
        raise TypeError(f"rounding must be a mode name (str) such as 'nearest_even', not {type(rounding).__name__}")
    return rounding


def _seed(seed) -> int:
    """The stochastic seed: given (0 <= seed < 2**64), or a fresh one from the OS."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in 0 .. 2**64 - 1, not {seed}")
    return seed


def _tininess(tininess: str) -> bool:
    if tininess not in ("after", "before"):
        raise ValueError(f"tininess must be 'after' or 'before' (rounding), not {tininess!r}")
    return tininess == "before"


def _values(x, name: str = "x") -> np.ndarray:
    """x as a float32 or float64 array (float16 widened exactly to float32; exact integers to float64)."""
    arr = np.asarray(x)
    if arr.dtype == np.float32 or arr.dtype == np.float64:
        return arr
    if arr.dtype == np.float16:
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu" and not isinstance(x, (np.ndarray, np.generic)):
        # Python ints (or lists of them): taken as values when float64 holds them exactly. NumPy
        # integers are encodings, never values.
        wide = arr.astype(np.float64)
        if arr.size and not np.array_equal(wide.astype(arr.dtype), arr):
            raise ValueError(f"{name} holds integers that float64 cannot hold exactly; pass float values")
        return wide
    raise TypeError(f"{name} has dtype {arr.dtype}: values must be float16, float32 or float64 "
                    "(for encodings, the unsigned integer arrays of encode/decode, see libfloat.decode)")


def _codes_dtype(bits: int):
    return np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32 if bits <= 32 else np.uint64


def _flags(per_element: np.ndarray, elementwise: bool):
    if elementwise:
        return per_element
    return Flags(int(np.bitwise_or.reduce(per_element, axis=None))) if per_element.size else Flags.NONE


def _flat(arr: np.ndarray, dtype) -> np.ndarray:
    return np.ascontiguousarray(arr, dtype=dtype).reshape(-1)


# ---- formats -----------------------------------------------------------------------------------------

def formats() -> list[str]:
    """The named formats, one canonical name each ('fp16', 'bf16', ...); custom 'eXmY' names work too."""
    names = _core.format_names().split("; or ")[0]
    return [entry.split("|")[0] for entry in names.split(", ")]


class finfo:
    """Machine limits of a format, with numpy.finfo's and ml_dtypes.finfo's field names.

    eps = 2**(1-p), epsneg = 2**-p, machep and negep their log2, nmant the stored fraction bits,
    nexp = iexp the exponent bits, minexp = emin, maxexp = emax + 1, tiny = smallest_normal,
    precision = int(-log10(eps)), resolution = 10**-precision, min = -max (0 without a sign),
    smallest_subnormal the smallest positive value. dtype is the unsigned integer type of the
    format's encodings. Every limit is an encoding of the format decoded by the library.
    """

    _fields = ("name", "bits", "eps", "epsneg", "max", "min", "tiny", "smallest_normal", "smallest_subnormal",
               "nexp", "iexp", "nmant", "machep", "negep", "minexp", "maxexp", "precision", "resolution", "dtype")

    def __init__(self, fmt: str):
        i = _info(fmt)
        eps = i["eps"]
        self.name = i["name"]
        self.bits = i["bits"]
        self.eps = eps
        self.epsneg = i["epsneg"]
        self.max = i["max"]
        self.min = -i["max"] if i["has_sign"] else 0.0
        self.tiny = self.smallest_normal = i["smallest_normal"]
        self.smallest_subnormal = i["smallest_subnormal"]
        self.nexp = self.iexp = i["exponent_bits"]
        self.nmant = i["fraction_bits"]
        self.machep = 1 - i["precision"]
        self.negep = -i["precision"]
        self.minexp = i["emin"]
        self.maxexp = i["emax"] + 1
        self.precision = int(-math.log10(eps)) if eps else 0
        self.resolution = 10.0 ** -self.precision
        self.dtype = _codes_dtype(i["bits"])

    def __repr__(self) -> str:
        return (f"finfo(name={self.name}, bits={self.bits}, eps={self.eps!r}, max={self.max!r}, "
                f"tiny={self.tiny!r}, smallest_subnormal={self.smallest_subnormal!r})")


# ---- rounding into a format --------------------------------------------------------------------------

def quantize(x, fmt: str, rounding: str = "nearest_even", *, saturate: bool = False, ftz: bool = False,
             daz: bool = False, tininess: str = "after", seed=None, elementwise_flags: bool = False):
    """Rounds each value of x into fmt and back: returns (values, flags).

    values has x's shape and dtype (float64 where the format has values float32 cannot hold, and
    for float64 x); flags is the OR of every element's Flags, or with elementwise_flags=True a uint8
    array of x's shape. saturate: out-of-range values become +-max finite (OCP FP8 "satfinite");
    ftz: tiny results flush to zero; daz: subnormal inputs read as zero; tininess: 'after' or
    'before' rounding. rounding='stochastic' uses seed (a fresh one from the OS when None):
    element i gets the random bits of (seed, i) in x's C order, whatever the strides.
    """
    arr = _values(x)
    info = _info(fmt)
    dtype = np.float32 if arr.dtype == np.float32 and info["fits_float32"] else np.float64
    flat = _flat(arr, dtype)
    fn = _core.quantize_f32 if dtype == np.float32 else _core.quantize_f64
    out, flags = fn(flat, fmt, _mode(rounding), bool(saturate), bool(ftz), bool(daz), _tininess(tininess),
                    _seed(seed), bool(elementwise_flags))
    out = out.reshape(arr.shape)
    if elementwise_flags:
        return out, flags.reshape(arr.shape)
    return out, Flags(flags)


def encode(x, fmt: str, rounding: str = "nearest_even", *, saturate: bool = False, ftz: bool = False,
           daz: bool = False, tininess: str = "after", seed=None, elementwise_flags: bool = False):
    """Rounds each value of x into fmt: returns (codes, flags), codes the encodings (uint8/16/32/64)."""
    arr = _values(x)
    flat = _flat(arr, arr.dtype)
    fn = _core.encode_f32 if arr.dtype == np.float32 else _core.encode_f64
    codes, flags = fn(flat, fmt, _mode(rounding), bool(saturate), bool(ftz), bool(daz), _tininess(tininess),
                      _seed(seed), bool(elementwise_flags))
    codes = codes.reshape(arr.shape)
    if elementwise_flags:
        return codes, flags.reshape(arr.shape)
    return codes, Flags(flags)


def _codes(codes, name: str = "codes") -> np.ndarray:
    arr = np.asarray(codes)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} has dtype {arr.dtype}: encodings must be an integer array (uint8, uint16, ...)")
    if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        raise ValueError(f"{name} holds negative numbers; encodings are 0 .. 2**bits - 1")
    return arr


def decode(codes, fmt: str) -> np.ndarray:
    """The value of each encoding: float32 where every value of fmt is a float32, else float64 (exact)."""
    arr = _codes(codes)
    values = _core.decode(_flat(arr, np.uint64), fmt).reshape(arr.shape)
    return values.astype(np.float32) if _info(fmt)["fits_float32"] else values


# ---- elementwise arithmetic -----------------------------------------------------------------------

def _operand(x, fmt: str, name: str):
    """(codes as uint64, was it given as values): values must be values of fmt, exactly."""
    arr = np.asarray(x)
    if arr.dtype.kind in "iu" and isinstance(x, (np.ndarray, np.generic)):
        return _codes(arr, name).astype(np.uint64), False
    arr = _values(x, name)
    flat = _flat(arr, arr.dtype)
    fn = _core.encode_f32 if arr.dtype == np.float32 else _core.encode_f64
    codes, flags = fn(flat, fmt, "nearest_even", False, False, False, False, 0, True)
    inexact = np.flatnonzero(flags & int(Flags.INEXACT))
    if inexact.size:
        i = int(inexact[0])
        raise ValueError(f"{name}[{np.unravel_index(i, arr.shape) if arr.ndim else ()}] = {flat[i]!r} is not a "
                         f"{_info(fmt)['name']} value; round it first (libfloat.quantize) or pass encodings")
    return codes.astype(np.uint64).reshape(arr.shape), True


def _arith(op: str, fmt: str, operands, rounding, saturate, ftz, daz, tininess, seed, elementwise_flags):
    coded = [_operand(x, fmt, name) for name, x in operands]
    shapes = np.broadcast_shapes(*(c.shape for c, _ in coded))
    flat = [_flat(np.broadcast_to(c, shapes), np.uint64) for c, _ in coded]
    empty = np.zeros(0, dtype=np.uint64)
    a = flat[0]
    b = flat[1] if len(flat) > 1 else empty
    c = flat[2] if len(flat) > 2 else empty
    out, flags = _core.arith(op, fmt, a, b, c, _mode(rounding), bool(saturate), bool(ftz), bool(daz),
                             _tininess(tininess), _seed(seed))
    out = out.reshape(shapes)
    result = decode(out, fmt) if any(v for _, v in coded) else out.astype(_codes_dtype(_info(fmt)["bits"]))
    return result, _flags(flags.reshape(shapes), elementwise_flags)


def _binary(op):
    def f(a, b, fmt: str, rounding: str = "nearest_even", *, saturate: bool = False, ftz: bool = False,
          daz: bool = False, tininess: str = "after", seed=None, elementwise_flags: bool = False):
        return _arith(op, fmt, [("a", a), ("b", b)], rounding, saturate, ftz, daz, tininess, seed, elementwise_flags)
    f.__name__ = op
    f.__qualname__ = op
    f.__doc__ = (f"Elementwise correctly rounded {op}(a, b) in fmt (IEEE 754-2019 §5.4.1): returns (result, flags).\n\n"
                 "a and b broadcast. Value arrays (float) must hold values of fmt exactly (else ValueError) and give\n"
                 "values; integer ndarrays are encodings and give encodings. Keywords as in quantize.")
    return f


add = _binary("add")
sub = _binary("sub")
mul = _binary("mul")
div = _binary("div")


def fma(a, b, c, fmt: str, rounding: str = "nearest_even", *, saturate: bool = False, ftz: bool = False,
        daz: bool = False, tininess: str = "after", seed=None, elementwise_flags: bool = False):
    """Elementwise a*b + c rounded once in fmt: returns (result, flags). Operands as in add."""
    return _arith("fma", fmt, [("a", a), ("b", b), ("c", c)], rounding, saturate, ftz, daz, tininess, seed,
                  elementwise_flags)


def sqrt(a, fmt: str, rounding: str = "nearest_even", *, saturate: bool = False, ftz: bool = False,
         daz: bool = False, tininess: str = "after", seed=None, elementwise_flags: bool = False):
    """Elementwise correctly rounded square root in fmt: returns (result, flags)."""
    return _arith("sqrt", fmt, [("a", a)], rounding, saturate, ftz, daz, tininess, seed, elementwise_flags)


# ---- accumulation -----------------------------------------------------------------------------------

def models() -> list[tuple[str, str, str]]:
    """(name, kind, description) of every accumulation model and matrix-unit preset."""
    return [tuple(m) for m in _core.model_list()]


@dataclass(frozen=True)
class Result:
    """A sum, dot product or matrix product under a model, with its exact reference.

    value: the model's result (a float, or an array for matmul) in the output format, as float64
    (exact); exact: the exact result rounded once to float64; bits: the encoding(s) of value;
    flags: the OR of the flags of every rounding the model did; format: the output format.
    """

    value: object
    exact: object
    bits: object
    flags: Flags
    format: str
    model: str

    @property
    def error(self):
        """|value - exact|, computed in float64."""
        return np.abs(np.asarray(self.value, dtype=np.float64) - np.asarray(self.exact, dtype=np.float64))

    @property
    def relative_error(self):
        """|value - exact| / |exact| in float64 (inf where exact is 0 and value is not; 0 where both are)."""
        v = np.asarray(self.value, dtype=np.float64)
        e = np.asarray(self.exact, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(v == e, 0.0, np.abs(v - e) / np.abs(e))
        return float(r) if r.ndim == 0 else r


def _model_inputs(x, info: dict, name: str, round_inputs: bool) -> np.ndarray:
    if round_inputs:
        codes, _ = encode(x, info["input"])
        return np.asarray(codes)
    codes, _ = _operand(x, info["input"], name)
    return codes


def _reduce(model: str, a, b, rows, cols, k, shape):
    info = _core.model_info(model)
    out, exact, flags = _core.reduce(model, _flat(a, np.uint64), _flat(b, np.uint64) if b is not None else
                                     np.zeros(0, dtype=np.uint64), b is not None, rows, cols, k)
    value = decode(out, info["output"]).astype(np.float64)
    bits = out.astype(_codes_dtype(_info(info["output"])["bits"]))
    if shape == ():
        return Result(float(value[0]), float(exact[0]), int(bits[0]), Flags(flags), info["output"], model)
    return Result(value.reshape(shape), exact.reshape(shape), bits.reshape(shape), Flags(flags), info["output"], model)


def sum(x, model: str = "fp32-acc", *, round_inputs: bool = False) -> Result:  # noqa: A001 (numpy's name)
    """The sum of all of x's values under an accumulation model or matrix-unit preset (see models()).

    x holds values of the model's input format (round_inputs=True rounds them there first,
    nearest even). The order is x's C order.
    """
    info = _core.model_info(model)
    codes = _model_inputs(x, info, "x", round_inputs).reshape(-1)
    return _reduce(model, codes, None, 1, 1, codes.size, ())


def dot(a, b, model: str = "fp32-acc", *, round_inputs: bool = False) -> Result:
    """The dot product of two vectors of the same length under a model (see sum)."""
    info = _core.model_info(model)
    ca = _model_inputs(a, info, "a", round_inputs)
    cb = _model_inputs(b, info, "b", round_inputs)
    if ca.ndim != 1 or cb.ndim != 1 or ca.size != cb.size:
        raise ValueError(f"dot needs two vectors of the same length, not shapes {ca.shape} and {cb.shape}")
    return _reduce(model, ca, cb, 1, 1, ca.size, ())


def matmul(a, b, model: str = "fp32-acc", *, round_inputs: bool = False) -> Result:
    """The matrix product a @ b (M x K times K x N) under a model: each element is a dot product."""
    info = _core.model_info(model)
    ca = _model_inputs(a, info, "a", round_inputs)
    cb = _model_inputs(b, info, "b", round_inputs)
    if ca.ndim != 2 or cb.ndim != 2 or ca.shape[1] != cb.shape[0]:
        raise ValueError(f"matmul needs an M x K and a K x N matrix, not shapes {ca.shape} and {cb.shape}")
    m, k = ca.shape
    n = cb.shape[1]
    return _reduce(model, ca, cb, m, n, k, (m, n))


# ---- block scaling ---------------------------------------------------------------------------------

def block_formats() -> list[tuple[str, str, str, int]]:
    """(name, element format, scale format, block size) of each block-scaled format (MX, NVFP4)."""
    return [tuple(b) for b in _core.block_format_list()]


@dataclass(frozen=True)
class MXTensor:
    """A block-quantized tensor: element encodings (uint8, x's shape), scale encodings (uint8, one per
    block: rows x blocks per row, or tile rows x tile columns with tiles=True), the per-tensor scale
    (NVFP4; 1 otherwise), the format and the flags of its roundings. Blocks run along the last axis."""

    elements: np.ndarray
    scales: np.ndarray
    tensor_scale: float
    format: str
    tiles: bool
    flags: Flags


def _matrix_shape(shape):
    if len(shape) == 0:
        return 1, 1
    cols = shape[-1]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    return rows, cols


def mx_quantize(x, fmt: str = "mxfp8_e4m3", rounding: str = "nearest_even", *, seed=None,
                tiles: bool = False) -> MXTensor:
    """Quantizes x (float16 or float32; blocks along the last axis) into a block-scaled format."""
    arr = np.asarray(x)
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    if arr.dtype != np.float32:
        raise TypeError(f"x has dtype {arr.dtype}: mx_quantize takes float16 or float32 values "
                        "(cast float64 with .astype(np.float32) if that rounding is intended)")
    rows, cols = _matrix_shape(arr.shape)
    e, s, t, flags = _core.mx_quantize(_flat(arr, np.float32), rows, cols, fmt, _mode(rounding), _seed(seed),
                                       bool(tiles))
    block = dict((b[0], b[3]) for b in block_formats())[fmt]
    scale_rows = (rows + block - 1) // block if tiles else rows
    return MXTensor(e.reshape(arr.shape), s.reshape(scale_rows, -1) if s.size else s, float(t), fmt, bool(tiles),
                    Flags(flags))


def mx_dequantize(q: MXTensor) -> np.ndarray:
    """The values of a block-quantized tensor as float32 (nearest even where not a float32)."""
    rows, cols = _matrix_shape(q.elements.shape)
    out, _ = _core.mx_dequantize(_flat(q.elements, np.uint8), _flat(q.scales, np.uint8), rows, cols, q.format,
                                 q.tensor_scale, q.tiles)
    return out.reshape(q.elements.shape)


# ---- training ----------------------------------------------------------------------------------------

def range_report(x, fmt: str = "fp16", scale="auto", *, rounding: str = "nearest_even", ftz: bool = False,
                 daz: bool = False) -> dict:
    """Where the values of x land in fmt: counts of exact zeros, zero (lost), subnormal, normal,
    overflow, NaN and infinity at scale 1 ('at_one') and at the scale ('at_scale').

    scale='auto' picks the largest power of two that overflows nothing (capped at 2**127, the
    largest power of two a float32 loss scale holds: 'capped'); a number uses that scale. The result
    also has 'log2_scale' (None when x has no nonzero finite value) and 'scale'.
    """
    arr = _values(x)
    flat = _flat(arr, arr.dtype)
    automatic = isinstance(scale, str)
    if automatic and scale != "auto":
        raise ValueError(f"scale must be 'auto' or a positive number, not {scale!r}")
    if not automatic:
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
            raise TypeError(f"scale must be 'auto' or a positive number, not {type(scale).__name__}")
        if not (math.isfinite(float(scale)) and float(scale) > 0):
            raise ValueError(f"scale must be finite and > 0, not {scale!r}")
    fn = _core.range_report_f32 if arr.dtype == np.float32 else _core.range_report_f64
    r = fn(flat, fmt, automatic, 1.0 if automatic else float(scale), _mode(rounding), bool(ftz), bool(daz))
    r["scale"] = (2.0 ** r["log2_scale"] if r["log2_scale"] is not None else None) if automatic else float(scale)
    return r


class GradScaler:
    """torch.amp.GradScaler's scale logic, step by step (the C++ lf::training::grad_scaler).

    update(found_inf) is one optimizer step: returns True when the step is skipped. step(grads, fmt)
    first decides found_inf from the gradients: any g * scale rounded once into fmt overflows.
    """

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        if not growth_interval >= 1:
            raise ValueError(f"growth_interval must be >= 1, not {growth_interval}")
        self._s = _core.GradScalerCore(float(init_scale), float(growth_factor), float(backoff_factor),
                                       int(growth_interval), bool(enabled))

    @property
    def scale(self) -> float:
        """The current scale, a float32 value (1.0 when disabled)."""
        return self._s.scale()

    @property
    def inverse_scale(self) -> float:
        """What unscale_ multiplies gradients by: float32(1 / float64(scale))."""
        return self._s.inverse_scale()

    @property
    def growth_tracker(self) -> int:
        return self._s.growth_tracker()

    @property
    def last_event(self) -> str:
        """'none', 'growth', 'growth_blocked' or 'backoff': what the last update did."""
        return self._s.last_event()

    def update(self, found_inf: bool) -> bool:
        return self._s.update(bool(found_inf))

    def found_inf(self, grads, fmt: str = "fp16") -> bool:
        """Whether some gradient times the current scale overflows fmt (rounded once, nearest even)."""
        arr = _values(grads, "grads")
        return _core.gradients_overflow(_flat(arr, np.float64), fmt, self.scale)

    def step(self, grads, fmt: str = "fp16") -> bool:
        """found_inf(grads, fmt), then update: returns True when the step is skipped."""
        return self.update(self.found_inf(grads, fmt))

    def __repr__(self) -> str:
        return f"GradScaler(scale={self.scale!r}, growth_tracker={self.growth_tracker})"
