"""Rounding as PyTorch's CPU kernels round.  Their loops are compiled with floating-point
contraction, so `a * b + c` in a kernel is one fused multiply-add, rounded once: `fused` gives
that result, to the bit, for float32 and float64 arrays (NumPy has no fused multiply-add), and
`fma` the hot paths' compromise (float32 fused, float64 plain).

float32: the product and the sum are exact in float64 but for the sum's own rounding, which is
recovered (two-sum) to settle the float32 midpoints.  float64: the product's and the sums'
rounding errors are recovered exactly (Dekker's product, Knuth's two-sum), the candidate result
is then moved by one unit where the errors add up to more than half of one; the rare elements
whose errors sit within a hair of half a unit, and those with huge or tiny magnitudes (where
the error terms would overflow or underflow), are computed with exact fractions."""

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
        return _fused32(*(np.asarray(v, _F32) for v in (a, b, c)))
    return a * b + c


def fused(a, b, c):
    """a * b + c rounded once, exactly, for float32 and float64 arrays or scalars."""
    if np.result_type(a, b, c) == _F32:
        return _fused32(*(np.asarray(v, _F32) for v in (a, b, c)))
    return _fused64(*(np.asarray(v, _F64) for v in (a, b, c)))


def _two_sum(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _fused32(a, b, c):
    p = np.multiply(a, b, dtype=np.float64)   # exact
    s, e = _two_sum(p, c.astype(np.float64))  # p + c == s + e exactly
    with np.errstate(over="ignore"):          # (past float32's largest: infinity)
        r = s.astype(_F32)
    other = np.nextafter(r, np.where(r.astype(np.float64) < s, _F32.type(np.inf),
                                     _F32.type(-np.inf)))
    tie = (s == (r.astype(np.float64) + other.astype(np.float64)) / 2) & (e != 0)
    toward = np.where(e > 0, np.maximum(r, other), np.minimum(r, other))
    result = np.where(tie, toward, r).astype(_F32)
    return result if result.ndim else result[()]


def _split(x):
    t = _SPLIT * x
    high = t - (t - x)
    return high, x - high


def _fused64(a, b, c):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    a, b, c = (np.broadcast_to(v, shape).reshape(-1) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        a_high, a_low = _split(a)
        b_high, b_low = _split(b)
        e = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low  # a*b-p
        s, t = _two_sum(p, c)            # p + c == s + t
        w, w_err = _two_sum(t, e)        # the exact value is s + w + w_err
        r, z = _two_sum(s, w)            # ... is r + z + w_err
        q = z + w_err                    # what r is off by (rounded once more)
        up = np.nextafter(r, np.inf) - r
        down = r - np.nextafter(r, -np.inf)
        half = np.where(q > 0, up, down) / 2
        beyond = np.abs(q) > half
        result = np.where(beyond, np.where(q > 0, r + up, r - down), r)
        near_tie = np.abs(np.abs(q) - half) <= half * 2.0 ** -40
        low, high = _SAFE
        unsafe = ~(((np.abs(a) >= low) | (a == 0)) & (np.abs(a) <= high)
                   & ((np.abs(b) >= low) | (b == 0)) & (np.abs(b) <= high)
                   & ((np.abs(c) >= low) | (c == 0)) & (np.abs(c) <= high)
                   & ((np.abs(p) >= low) | (p == 0)) & (np.abs(p) <= high))
    exact = (near_tie | unsafe) & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    plain = ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))
    if plain.any():
        result = np.where(plain, p + c, result)
    if exact.any():
        from fractions import Fraction  # (on use: its import costs every start-up)
        for i in np.flatnonzero(exact):
            value = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            try:
                result[i] = float(value)
            except OverflowError:  # (past the largest double: rounds to infinity)
                result[i] = np.inf if value > 0 else -np.inf
    return result.reshape(shape) if shape else result[0]
