"""PyTorch's vectorised CPU kernels, to the bit, where a kernel computes with its own vector
math rather than a library's: the width of at::vec::Vectorized, its reduce_all order, and the
Sleef functions Vectorized<float|double>::exp() and ::log() call (Sleef_expf*_u10,
Sleef_expd*_u10, Sleef_logf*_u10, Sleef_logd*_u10, as built for AVX2/AVX-512, with fused
multiply-adds).  The kernels of softmax and log_softmax and of their backward
(aten/src/ATen/native/cpu/SoftMaxKernel.cpp, LogSoftmaxKernelImpl.h) are written on them here,
in their order of operations; where a kernel falls back to scalar code, std::exp is the C
library's.

The vectors are those of the kernel PyTorch dispatches to on this CPU: 64 bytes (16 floats, 8
doubles) where the CPU has AVX-512 (F, BW, VL and DQ: PyTorch's AVX512 capability), else 32 (the
AVX2 kernel).  NumPy says which features the CPU has; without that answer, 32."""

import math

import numpy as np

from .numerics import fused


def _cpu_features():
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            return getattr(__import__(module, fromlist=["__cpu_features__"]),
                           "__cpu_features__")
        except (ImportError, AttributeError):
            continue
    return {}


_AVX512 = ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")
VECTOR_BYTES = 64 if all(_cpu_features().get(f) for f in _AVX512) else 32


def lanes(dtype):
    """The elements of one Vectorized<scalar_t>."""
    return VECTOR_BYTES // np.dtype(dtype).itemsize


# ------------------------------------------------------------------ Sleef's exp (u10)

_F = np.float32
_R_LN2F = _F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF, _L2LF = _F(0.693145751953125), _F(1.428606765330187045e-06)
_EXPF = [_F(c) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                         0.00833336077630519866943359, 0.0416664853692054748535156,
                         0.166666671633720397949219, 0.5)]
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = .69314718055966295651160180568695068359375
_L2L = .28235290563031577122588448175013436025525412068e-12
_EXPD = (+0.2081276378237164457e-8, +0.2511210703042288022e-7, +0.2755762628169491192e-6,
         +0.2755723402025388239e-5, +0.2480158687479686264e-4, +0.1984126989855865850e-3,
         +0.1388888888914497797e-2, +0.8333333333314938210e-2, +0.4166666666666602598e-1,
         +0.1666666666666669072e+0)


def _ldexp2(u, q):
    """Sleef's vldexp2: u * 2^(q >> 1) * 2^(q - (q >> 1)), two exact scalings."""
    half = q >> 1
    one = u.dtype.type(1)
    return u * np.ldexp(one, half).astype(u.dtype) * np.ldexp(one, q - half).astype(u.dtype)


def _expf(d):
    """Sleef's xexpf: Cody-Waite reduction by ln 2, a degree-6 polynomial, fused."""
    q = np.rint(d * _R_LN2F).astype(np.int32)
    qf = q.astype(_F)
    s = fused(qf, -_L2UF, d)
    s = fused(qf, -_L2LF, s)
    u = np.full_like(s, _EXPF[0])
    for c in _EXPF[1:]:
        u = fused(u, s, c)
    u = _F(1) + fused(s * s, u, s)
    u = _ldexp2(u, q)
    u = np.where(d < -104, _F(0), u)
    return np.where(d > 100, _F(np.inf), u)


def _poly(x, x2, x4, x8, c):
    """Sleef's POLY10 (Estrin's scheme, each step one fused multiply-add)."""
    def p2(c1, c0):
        return fused(x, c1, c0)

    def p4(c3, c2, c1, c0):
        return fused(x2, p2(c3, c2), p2(c1, c0))
    return fused(x8, p2(c[0], c[1]), fused(x4, p4(*c[2:6]), p4(*c[6:10])))


def _expd(d):
    """Sleef's xexp (its FMA path): a degree-10 polynomial by Estrin's scheme, then three
    fused steps."""
    u = np.rint(d * _R_LN2)
    q = u.astype(np.int64)
    s = fused(u, -_L2U, d)
    s = fused(u, -_L2L, s)
    s2 = s * s
    s4 = s2 * s2
    u = _poly(s, s2, s4, s4 * s4, _EXPD)
    for c in (0.5, 1.0, 1.0):
        u = fused(u, s, c)
    u = _ldexp2(u, np.clip(q, -2100, 2100))
    u = np.where(d > 709.78271114955742909217217426, np.inf, u)
    return np.where(d < -1000, 0.0, u)


def exp(x):
    """Vectorized<scalar_t>::exp() of a float32 or float64 array (NaN stays NaN)."""
    def one(part):
        out = (_expf if part.dtype == _F else _expd)(part)
        return np.where(np.isnan(part), part, out).astype(part.dtype, copy=False)
    return _by_chunks(one, np.asarray(x))


_CHUNK = 8192  # elements at a time: the some 40 passes of an exact fused multiply-add then
#                run in cache (two to three times faster than over a long array at once)


def _by_chunks(fn, x):
    """fn over x's elements, _CHUNK at a time."""
    if x.size <= _CHUNK:
        with np.errstate(all="ignore"):
            return fn(x)
    flat = x.ravel()
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for i in range(0, flat.size, _CHUNK):
            out[i:i + _CHUNK] = fn(flat[i:i + _CHUNK])
    return out.reshape(x.shape)


def libm_exp(x):
    """std::exp of each element: the C library's exp (Python's math.exp) for float64, its
    expf for float32 (glibc's is not the float64 exp rounded: they differ once in some
    thousand), else the float64 exp rounded."""
    x = np.asarray(x)
    expf = _c_expf() if x.dtype == _F else None
    if expf is None:
        return libm(math.exp, np.exp, x.astype(np.float64)).astype(x.dtype)
    # glibc's expf rounds a float64 approximation good to 1.7 * 2^-34 (e_expf.c) to float32:
    # the float64 exp rounded gives the same float32 but near a midpoint between two (and
    # outside the normal range), where expf itself is asked
    with np.errstate(all="ignore"):
        y = np.exp(x.astype(np.float64))
        r = y.astype(_F)
        other = np.nextafter(r, np.where(r < y, _F(np.inf), _F(-np.inf))).astype(np.float64)
        midpoint = (r.astype(np.float64) + other) / 2
        ask = ~(np.abs(y - midpoint) > y * 2.0 ** -30) | ~(np.abs(r) >= np.finfo(_F).tiny)
    if ask.any():
        r[ask] = [expf(v) for v in x[ask].tolist()]
    return r


def libm(fn, numpy_fn, x):
    """The C library's fn (Python's math.exp, math.log) of each element of a float64 array;
    where math raises (an overflow, log of 0 or of a negative number), NumPy's answer."""
    def one(v):
        try:
            return fn(v)
        except (OverflowError, ValueError):
            return float(numpy_fn(np.float64(v)))
    with np.errstate(all="ignore"):
        return np.array([one(v) for v in x.ravel().tolist()], np.float64).reshape(x.shape)


_C_EXPF = []


def _c_expf():
    """The C library's expf through ctypes (libm.so.6, which Python has loaded already: no
    file is opened), or None where there is none."""
    if not _C_EXPF:
        try:
            import ctypes
            fn = ctypes.CDLL("libm.so.6").expf
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        except (ImportError, OSError, AttributeError):
            fn = None
        _C_EXPF.append(fn)
    return _C_EXPF[0]


# ------------------------------------------------------------------ Sleef's log (u10)

def _getexp(v):
    """AVX-512's getexp: floor(log2(|v|)) as a float."""
    return (np.frexp(v)[1] - 1).astype(v.dtype)


def _getmant(d):
    """AVX-512's getmant(_MM_MANT_NORM_p75_1p5): d's significand scaled into [0.75, 1.5)."""
    f = np.frexp(d)[0]
    return np.where(2 * f >= 1.5, f, 2 * f).astype(d.dtype)


def _two_sum(x, y):                     # Sleef's dfadd2 / ddadd2 of two numbers
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _pair_div(nx, ny, dx, dy):          # dfdiv / dddiv, FMA variant
    one = nx.dtype.type(1)
    t = one / dx
    s = nx * t
    u = fused(t, nx, -s)
    v = fused(-dy, t, fused(-dx, t, one))
    return s, fused(s, v, fused(ny, t, u))


def _log(d, ln2, coefficients, poly, inf_exponent):
    """Sleef's xlogf_u1 / xlog_u1 as built for AVX-512 (getexp, getmant): m in [0.75, 1.5),
    x = (m - 1) / (m + 1) in double-single (double-double) arithmetic, e ln 2 + 2x + x^3 p(x^2)."""
    t = d.dtype.type
    e = _getexp(d * t(1 / 0.75))
    e = np.where(np.isposinf(e), t(inf_exponent), e)
    m = _getmant(d)
    xx, xy = _pair_div(*_two_sum(t(-1), m), *_two_sum(t(1), m))
    x2 = xx * xx
    p = poly(x2, [t(c) for c in coefficients])
    sx = ln2[0] * e                                   # dfmul(ln 2 as a pair, e)
    sy = fused(ln2[1], e, fused(ln2[0], e, -sx))
    s = sx + xx * t(2)                                # dfadd(s, 2x)
    sy = (((sx - s) + xx * t(2)) + sy) + xy * t(2)
    sx = s
    y = (x2 * xx) * p
    s = sx + y                                        # dfadd(s, x^3 p)
    r = s + (((sx - s) + y) + sy)
    r = np.where(np.isposinf(d), t(np.inf), r)
    r = np.where((d < 0) | np.isnan(d), t(np.nan), r)
    return np.where(d == 0, t(-np.inf), r)


def _logf_poly(x2, c):
    return fused(fused(c[0], x2, c[1]), x2, c[2])


def _logd_poly(x2, c):                  # POLY7 (Estrin's scheme)
    x4 = x2 * x2
    return fused(x4 * x4, fused(x4, c[0], fused(x2, c[1], c[2])),
                 fused(x4, fused(x2, c[3], c[4]), fused(x2, c[5], c[6])))


_LOGF = (+0.3027294874e+0, +0.3996108174e+0, +0.6666694880e+0)
_LOGD = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
         0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
         0.6666666666667333541e+0)


def log(x):
    """Vectorized<scalar_t>::log() of a float32 or float64 array."""
    def one(part):
        if part.dtype == _F:
            return _log(part, (_F(0.69314718246459960938), _F(-1.904654323148236017e-09)),
                        _LOGF, _logf_poly, 128).astype(_F)
        return _log(part, (0.693147180559945286226764, 2.319046813846299558417771e-17),
                    _LOGD, _logd_poly, 1024)
    return _by_chunks(one, np.asarray(x))


# ------------------------------------------------------------------ reduce_all

def reduce_rows(a, op, combine=True):
    """vec::reduce_all(op) of each row of the 2-d array a: vectors of `lanes` elements folded
    into one accumulator (a short tail into its first lanes), whose lanes are then combined
    (_combine_lanes; combine=False: the accumulator).  A row shorter than a vector is folded
    element after element."""
    n = a.shape[1]
    width = lanes(a.dtype)
    if n < width:
        acc = a[:, 0]
        for j in range(1, n):
            acc = op(acc, a[:, j])
        return acc
    acc = a[:, :width].copy()
    full = n - n % width
    for d in range(width, full, width):
        acc = op(acc, a[:, d:d + width])
    if full < n:
        acc[:, :n - full] = op(acc[:, :n - full], a[:, full:])
    return _combine_lanes(acc, op) if combine else acc


def _combine_lanes(acc, op):
    """vec_reduce_all of one vector: float32 by halving (the shuffles of VecReduceAllSIMD),
    float64 lane after lane."""
    if acc.dtype == _F:
        while acc.shape[1] > 1:
            half = acc.shape[1] // 2
            acc = op(acc[:, :half], acc[:, half:])
        return acc[:, 0]
    out = acc[:, 0]
    for j in range(1, acc.shape[1]):
        out = op(out, acc[:, j])
    return out


# ------------------------------------------------------------------ softmax

EXACT_ELEMENTS = 8192  # the budget of the emulated kernels (see along)


def along(dim, last, inner, *arrays):
    """The kernel for dim on arrays of one shape (broadcast to the first's; 0-d as (1,)):
    last(rows x n arrays) when dim is the last dimension, else inner(outer x dim x inner
    arrays), PyTorch's two layouts; None for dtypes other than float32 and float64, for
    empty arrays (the caller's NumPy code is exact there), and past EXACT_ELEMENTS elements:
    the emulation, NumPy calls per vector lane and fused multiply-adds made of a dozen NumPy
    operations each, takes some 0.15 (float32) and 1.2 (float64) microseconds an element, 5 to
    180 times NumPy's own expression, which past the budget stands in (and may differ from
    PyTorch in the last bit)."""
    shape = np.shape(arrays[0])
    dtype = np.result_type(*arrays)
    if dtype not in (np.float32, np.float64) or not 0 < np.size(arrays[0]) <= EXACT_ELEMENTS:
        return None
    flat = shape or (1,)
    dim = dim % len(flat)
    arrays = [np.ascontiguousarray(np.broadcast_to(a, shape), dtype).reshape(flat)
              for a in arrays]
    if dim == len(flat) - 1:
        out = last(*[a.reshape(-1, flat[-1]) for a in arrays])
    else:
        outer = int(np.prod(flat[:dim], dtype=np.int64))
        out = inner(*[a.reshape(outer, flat[dim], -1) for a in arrays])
    return np.ascontiguousarray(out).reshape(shape)


def softmax_lastdim(x):
    """_vec_softmax_lastdim on a 2-d array (rows, n): max, exp(x - max), their sum, and the
    exponentials times the sum's reciprocal."""
    peak = reduce_rows(x, np.maximum)
    e = exp(x - peak[:, None])
    total = reduce_rows(e, np.add)
    return e * (x.dtype.type(1) / total)[:, None]


def _vectorised_columns(outer, inner, width, threads):
    """Which of the outer * inner columns _vec_softmax runs in vectors: parallel_for splits
    the columns between the threads evenly (grain 0); each thread takes `width` columns at a
    time while they lie in one inner row and in its part, the rest one by one."""
    total = outer * inner
    flags = np.zeros(total, bool)
    chunk = -(-total // threads) if threads > 1 and total > 1 else total
    for begin in range(0, total, max(chunk, 1)):
        end = min(total, begin + chunk)
        idx = begin
        while idx < end:
            inner_idx = idx % inner
            if inner_idx + width <= inner and idx + width <= end:
                flags[idx:idx + width] = True
                idx += width
            else:
                idx += (end - idx) if idx + width > end else (inner - inner_idx)
    return flags


def softmax_inner(x, threads=None):
    """_vec_softmax on a 3-d array (outer, dim, inner), dim not the last: per column, the max
    along dim, exp(x - max) summed from 0 along dim, each divided by the sum; the columns in
    vectors take Sleef's exp, the others the C library's."""
    threads = _threads(threads)
    outer, dim, inner = x.shape
    cols = np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(outer * inner, dim)
    vector = _vectorised_columns(outer, inner, lanes(x.dtype), threads)
    shifted = cols - cols.max(axis=1, keepdims=True)
    e = np.empty_like(shifted)
    e[vector] = exp(shifted[vector])
    e[~vector] = libm_exp(shifted[~vector])
    total = np.zeros(len(cols), x.dtype)
    for d in range(dim):
        total = total + e[:, d]
    out = e / total[:, None]
    return out.reshape(outer, inner, dim).transpose(0, 2, 1)


def log_softmax_lastdim(x):
    """_vec_log_softmax_lastdim on (rows, n): max, the sum of exp(x - max), its log, and
    x - max - log(sum) in that order."""
    peak = reduce_rows(x, np.maximum)[:, None]
    total = reduce_rows(exp(x - peak), np.add)
    return (x - peak) - log(total)[:, None]


def _chunk_vector_columns(inner, dim, dtype):
    """The columns the dim != last kernels (log_softmax, the backward ones) run in vectors:
    inner is cut in chunks of a 128 KiB block's worth (a whole number of vectors), and each
    chunk's columns run in vectors but its last size % lanes."""
    width = lanes(dtype)
    chunk = max(128 * 1024 // dim // np.dtype(dtype).itemsize, width) // width * width
    chunk = min(chunk, inner)
    flags = np.zeros(inner, bool)
    for begin in range(0, inner, chunk):
        size = min(chunk, inner - begin)
        flags[begin:begin + size - size % width] = True
    return flags


def _exp_by_columns(x, vector):
    """exp of x (outer, dim, inner): Sleef's in the vector columns, std::exp in the others."""
    out = np.empty_like(x)
    out[..., vector] = exp(x[..., vector])
    out[..., ~vector] = libm_exp(x[..., ~vector])
    return out


def log_softmax_inner(x):
    """_vec_logsoftmax on (outer, dim, inner): per column the max, the sum from 0 of
    exp(x - max) along dim, its Sleef log, and x - max - log(sum)."""
    vector = _chunk_vector_columns(x.shape[2], x.shape[1], x.dtype)
    peak = x.max(axis=1, keepdims=True)
    e = _exp_by_columns(x - peak, vector)
    total = np.zeros(e[:, 0].shape, x.dtype)
    for d in range(x.shape[1]):
        total = total + e[:, d]
    return (x - peak) - log(total)[:, None]


# ------------------------------------------------------------------ the backward kernels

def softmax_backward_lastdim(g, out, threads=None):
    """_vec_host_softmax_backward_lastdim: sum(g * out) by map2_reduce_all, then
    (g - sum) * out.  As GCC compiled it, where parallel_for runs the rows itself (one row,
    or one thread) the float32 products of a short last vector are fused into the
    accumulator; in the threads' copy of the loop, and for float64, nothing is fused."""
    rows, n = g.shape
    width = lanes(g.dtype)
    products = g * out
    serial = rows == 1 or _threads(threads) == 1
    if n <= width or n % width == 0 or g.dtype != _F or not serial:
        total = reduce_rows(products, np.add)
    else:
        full = n - n % width
        acc = reduce_rows(products[:, :full], np.add, combine=False)
        acc[:, :n - full] = fused(g[:, full:], out[:, full:], acc[:, :n - full])
        total = _combine_lanes(acc, np.add)
    return (g - total[:, None]) * out


def _threads(threads):
    if threads is None:
        from .summation import get_num_threads
        threads = get_num_threads()
    return threads


def softmax_backward_inner(g, out):
    """_vec_softmax_backward on (outer, dim, inner): the sum of g * out from 0 along dim, one
    fused multiply-add a step (as compiled), then out * (g - sum)."""
    total = np.zeros(g[:, 0].shape, g.dtype)
    for d in range(g.shape[1]):
        total = fused(g[:, d], out[:, d], total)
    return out * (g - total[:, None])


def log_softmax_backward_lastdim(g, out):
    """The lastdim backward of log_softmax: g - exp(out) * sum(g), fused."""
    total = reduce_rows(g, np.add)[:, None]
    return fused(-exp(out), np.broadcast_to(total, g.shape), g)


def log_softmax_backward_inner(g, out):
    """_vec_log_softmax_backward on (outer, dim, inner): the sum of g from 0 along dim, then
    g - exp(out) * sum, fused (Sleef's exp in the vector columns, std::exp in the others)."""
    vector = _chunk_vector_columns(g.shape[2], g.shape[1], g.dtype)
    total = np.zeros(g[:, 0].shape, g.dtype)
    for d in range(g.shape[1]):
        total = total + g[:, d]
    e = _exp_by_columns(out, vector)
    return fused(-e, np.broadcast_to(total[:, None], g.shape), g)
