"""Rounding as PyTorch's CPU kernels round.  Their loops are compiled with floating-point
contraction, so `a * b + c` in a kernel is one fused multiply-add, rounded once: `fused` gives
that result, to the bit, for float32 and float64 arrays (NumPy has no fused multiply-add), and
`fma` the hot paths' compromise (float32 fused, float64 plain).

float32: the product and the sum are exact in float64, and so is rounding the sum to float32 but
on a float32 midpoint (or in float32's subnormals), where the sum's own rounding error (two-sum)
settles it. float64: Boldo and Melquiond's emulation with a sum rounded to odd (see _fused64),
elements of huge or tiny magnitude (where its error terms would overflow or underflow) with
exact fractions."""

import math

import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for float64
_SAFE = (2.0 ** -900, 2.0 ** 900)  # magnitudes whose error terms stay exact


def fma(a, b, c):
    """a * b + c as the elementwise kernels' hot paths compute it (tanh's backward, lerp,
    addcmul): float32 fused, rounded once; float64 plainly (fusing it takes some 100 times the
    plain expression's time), which may differ in the last bit.  A Python number operand is of
    the array's type, as a scalar is in the kernel."""
    if np.result_type(a, b, c) == _F32:
        return fused(a, b, c)
    return a * b + c


def fused(a, b, c):
    """a * b + c rounded once, exactly, for float32 and float64 arrays or scalars."""
    if np.result_type(a, b, c) == _F32:
        return _fused32(*(np.asarray(v, _F32) for v in (a, b, c)))
    return _fused64(*(np.asarray(v, _F64) for v in (a, b, c)))


def _fused32(a, b, c):
    """float32: the product is exact in float64 and so is rounding the float64 sum to float32
    but where that sum lies on a float32 midpoint (or in float32's subnormals): there the sum's
    own rounding error (two-sum) settles the tie."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    p = a * b
    s = p + c
    with np.errstate(over="ignore"):  # (past float32's largest: infinity)
        r = s.astype(np.float32)
    tie = ((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000) | (np.abs(r) < _F32_TINY)
    if not tie.any():
        return r
    p, c, s, near = p[tie], c[tie], s[tie], r[tie]
    e = _two_sum(p, c)[1]
    other = np.nextafter(near, np.where(near.astype(np.float64) < s, np.float32(np.inf),
                                        np.float32(-np.inf)))
    midway = (s == (near.astype(np.float64) + other.astype(np.float64)) / 2) & (e != 0)
    toward = np.where(e > 0, np.maximum(near, other), np.minimum(near, other))
    r = np.array(r)
    r[tie] = np.where(midway, toward, near)
    return r


_F32_TINY = np.float32(np.finfo(np.float32).tiny)


def _two_sum(a, b):
    """s + e == a + b exactly, s the rounded sum (Knuth)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _two_product(a, b):
    """p + e == a * b exactly, p the rounded product (Dekker, Veltkamp's split)."""
    p = a * b
    ca, cb = a * _SPLIT, b * _SPLIT
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fused64(a, b, c):
    """Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums: proved
    algorithms using rounding to odd", IEEE TC 2008): the exact product and sum, their low
    parts added rounded to odd, the sum of the high part and that rounded once.  Exact while
    nothing overflows or underflows: elements of huge or tiny magnitude are computed with
    fractions instead."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    a, b, c = (np.broadcast_to(v, shape).reshape(-1) for v in (a, b, c))
    with np.errstate(all="ignore"):
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        v, err = _two_sum(tl, ul)           # v = tl + ul rounded to odd:
        even = (v.view(np.int64) & 1) == 0  # an inexact even sum moves to its odd neighbour
        v = np.where(even & (err != 0), np.nextafter(v, np.where(err > 0, np.inf, -np.inf)), v)
        result = th + v
        finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        low, high = _SAFE
        magnitudes = np.abs(np.stack([a, b, c, uh]))
        unsafe = finite & ((magnitudes > high) | ((magnitudes < low) & (magnitudes != 0))).any(0)
        result = np.where(finite, result, a * b + c)  # (infinities and NaN: as the plain sum)
    if unsafe.any():
        from fractions import Fraction  # (on use: its import costs every start-up)
        for i in np.flatnonzero(unsafe):
            value = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            try:
                result[i] = float(value)
            except OverflowError:  # (past the largest double: rounds to infinity)
                result[i] = np.inf if value > 0 else -np.inf
    return result.reshape(shape) if shape else result[0]


_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(a):
    """The error function of an array as the C library's erf gives it, in a's dtype."""
    return np.asarray(_ERF(a), dtype=np.float64).astype(a.dtype)
