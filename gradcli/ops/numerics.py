"""Rounding as PyTorch's CPU kernels round.  Their vectorized loops are compiled with
floating-point contraction, so `a * b + c` in a kernel is one fused multiply-add, rounded once.
For float32 operands the product and sum are exact in float64, so computing there and rounding
to float32 gives the fused result (a float64 sum that itself rounds is off by one unit only in
rare ties); float64 operands are computed plainly, which may differ in the last bit.

`fused` is the exact fused multiply-add of both dtypes, for the code that reproduces PyTorch's
vectorised math functions (Sleef's, avx_mathfun's) to the bit: float32 as above with the ties
settled; float64 by Boldo and Melquiond's emulation (Dekker's exact product, Knuth's two-sum
and a sum rounded to odd; "Emulation of FMA and correctly rounded sums: proved algorithms
using rounding to odd", IEEE TC 2008), exact while nothing overflows or underflows."""

import numpy as np

_F32 = np.dtype(np.float32)


def fma(a, b, c):
    """a * b + c rounded once, as PyTorch's kernels compute it (float32; see above)."""
    dtype = np.result_type(a, b, c)
    if dtype == _F32:  # (a Python number operand is a float32 in the kernel too)
        a, b, c = (np.asarray(v, _F32) for v in (a, b, c))
        return (np.multiply(a, b, dtype=np.float64) + c).astype(_F32)
    return a * b + c


def fused(a, b, c):
    """a * b + c rounded once, exactly (float32 or float64 arrays or scalars)."""
    if np.result_type(a, b, c) == _F32:
        return _fused32(a, b, c)
    return _fused64(a, b, c)


def _fused32(a, b, c):
    """float32: the product is exact in float64 and so is rounding the float64 sum to float32
    but where that sum lies on a float32 midpoint (or in float32's subnormals): there the sum's
    own rounding error (two-sum) settles the tie."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    p = a * b
    s = p + c
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
    ca, cb = a * 134217729.0, b * 134217729.0
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fused64(a, b, c):
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    with np.errstate(all="ignore"):
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        v, err = _two_sum(tl, ul)           # v = tl + ul rounded to odd: an inexact even
        odd = (err != 0) & ((v.view(np.int64) & 1) == 0)  # sum moves to its odd neighbour
        if odd.any():
            v[odd] = np.nextafter(v[odd], np.where(err[odd] > 0, np.inf, -np.inf))
        out = np.asarray(th + v)
        bad = ~(np.isfinite(out) & np.isfinite(uh))
        if bad.any():  # (infinities and NaN: as the plain expression gives them)
            out[bad] = np.asarray(a * b + c)[bad]
    return out
