"""Reductions: sum, mean, prod, max/min, std/var, norm, logsumexp, cumsum, softmax …"""

import numpy as np

from .registry import Op, Sample, register, wrap_dim

REDUCE = [Sample((3,)), Sample((2, 3)), Sample((2, 3), attrs={"dim": 1}),
          Sample((2, 3), attrs={"dim": 0, "keepdim": True}), Sample((2, 3, 2), attrs={"dim": (0, 2)})]


def axes(dim, ndim):
    """NumPy axes for a `dim` argument (None: all)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        return tuple(sorted(wrap_dim(d, ndim) for d in dim))
    return (wrap_dim(dim, ndim),)


def unreduce(g, shape, dim, keepdim):
    """Broadcast a reduced gradient back over the input's shape."""
    ax = axes(dim, len(shape))
    if not keepdim and len(shape):
        kept = list(shape)
        for a in (range(len(shape)) if ax is None else ax):
            kept[a] = 1
        g = g.reshape(tuple(kept))
    return g.expand(shape)


def _sum(a, dim, keepdim, dtype):
    out = np.sum(a, axis=axes(dim, a.ndim), keepdims=keepdim)
    if dtype is not None:
        return out.astype(dtype.np)
    return out if a.dtype.kind != "b" else out.astype(np.int64)


register(Op(
    "sum", _sum, lambda g, self_shape, dim, keepdim: unreduce(g, self_shape, dim, keepdim),
    attrs=(("dim", None), ("keepdim", False), ("dtype", None)), jvp="linear", dtype="numpy",
    doc="sum of elements (over dim)", formula="1 for every element", samples=REDUCE,
    kind="reduction"))


def _count(shape, dim):
    ax = axes(dim, len(shape))
    n = 1
    for a in (range(len(shape)) if ax is None else ax):
        n *= shape[a]
    return n


def _mean(a, dim, keepdim, dtype):
    if a.dtype.kind not in "fc" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dict(i='Long', b='Bool', u='Byte').get(a.dtype.kind, 'Int')}")
    out = np.mean(a, axis=axes(dim, a.ndim), keepdims=keepdim)
    return out if dtype is None else out.astype(dtype.np)


register(Op(
    "mean", _mean,
    lambda g, self_shape, dim, keepdim: unreduce(g, self_shape, dim, keepdim) / _count(self_shape, dim),
    attrs=(("dim", None), ("keepdim", False), ("dtype", None)), jvp="linear", dtype="numpy",
    doc="mean of elements (over dim)", formula="1/n for every element", samples=REDUCE,
    kind="reduction"))
