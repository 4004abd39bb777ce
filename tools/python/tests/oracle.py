"""An exact rounding model for the Python tests, written apart from the library: Python's Fraction
arithmetic and the IEEE 754-2019 rules stated directly (§4.3 rounding directions, §7 flags with
tininess detected after rounding, gradual underflow). It shares no code with libfloat."""

from fractions import Fraction
import math

INEXACT, UNDERFLOW, OVERFLOW, DIVIDE_BY_ZERO, INVALID = 1, 2, 4, 8, 16

# (precision p, emin, emax) of the IEEE-style formats the tests model.
FORMATS = {
    "fp16": (11, -14, 15),
    "bf16": (8, -126, 127),
    "fp32": (24, -126, 127),
}

INF = float("inf")


def floor_log2(a: Fraction) -> int:
    """floor(log2 a) for a > 0, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def _round_int(m: Fraction, mode: str, negative: bool) -> int:
    """m >= 0 rounded to an integer under mode, for a number of the given sign."""
    lo = math.floor(m)
    frac = m - lo
    if frac == 0:
        return lo
    if mode == "nearest_even":
        if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and lo % 2 == 1):
            return lo + 1
        return lo
    if mode == "nearest_away":
        return lo + 1 if frac >= Fraction(1, 2) else lo
    if mode == "toward_zero":
        return lo
    if mode == "upward":
        return lo if negative else lo + 1
    if mode == "downward":
        return lo + 1 if negative else lo
    if mode == "odd":
        return lo if lo % 2 == 1 else lo + 1
    raise ValueError(mode)


def round_exact(v: Fraction, fmt: str, mode: str = "nearest_even"):
    """(result as a float, flags) of rounding the exact nonzero-or-zero value v into fmt."""
    p, emin, emax = FORMATS[fmt]
    if v == 0:
        return 0.0, 0
    negative = v < 0
    a = -v if negative else v
    e = floor_log2(a)
    q = Fraction(2) ** (max(e, emin) - p + 1)
    n = _round_int(a / q, mode, negative)
    r = n * q
    flags = INEXACT if r != a else 0
    # tininess after rounding: the result rounded with an unbounded exponent range is below 2^emin
    qu = Fraction(2) ** (e - p + 1)
    ru = _round_int(a / qu, mode, negative) * qu
    if flags and ru < Fraction(2) ** emin:
        flags |= UNDERFLOW
    if ru >= Fraction(2) ** (emax + 1):
        flags |= OVERFLOW | INEXACT
        big = (Fraction(2) ** (emax + 1) - Fraction(2) ** (emax + 1 - p))
        to_inf = mode in ("nearest_even", "nearest_away") or (mode == "upward" and not negative) or \
            (mode == "downward" and negative)
        mag = INF if to_inf else float(big)
        return (-mag if negative else mag), flags
    res = float(r)
    return (-res if negative else res), flags
