"""More reductions: std_mean, var_mean, nansum, nanmean, aminmax, logcumsumexp."""

import numpy as np

from ..engine.messages import not_implemented
from ..engine.tensor import Tensor
from .reductions import (MOMENT_ATTRS, _amax_forward, _amax_jvp, _amax_vjp, _correction, _count, _moment,
                         _reverse_cumsum, _std_vjp, _var_vjp, axes, moment_saved, return_type,
                         unreduce)
from .derivatives import helper
from .summation import torch_var_mean
from .registry import OPS, Composed, Op, Sample, register, wrap_dim

AminmaxResult = return_type("aminmax", ["min", "max"])


# ------------------------------------------------------------------ std_mean, var_mean

def _mean_of(a, dim, unbiased, keepdim, correction):
    d, _ = _correction(dim, unbiased, correction)
    return np.asarray(np.mean(a, axis=axes(d, a.ndim), keepdims=keepdim), dtype=a.dtype)


def _mean_vjp(g, self, dim, unbiased, keepdim):
    d, _ = _correction(dim, unbiased, None)
    shape = tuple(self.shape)
    return OPS["div.Scalar"](unreduce(g, shape, d, keepdim), _count(shape, d))


def _with_mean(name, root):
    moment = _moment(name, root)

    def forward(a, dim, unbiased, keepdim, correction):
        value = moment(a, dim, unbiased, keepdim, correction)   # (its checks and warning)
        d, ddof = _correction(dim, unbiased, correction)
        pair = torch_var_mean(a, axes(d, a.ndim), ddof, root)   # PyTorch's Welford, in order
        if pair is None:
            return value, _mean_of(a, dim, unbiased, keepdim, correction)
        return pair[0].reshape(value.shape), pair[1].reshape(value.shape)
    return forward


def _sum_defined(a, b):
    """PyTorch's `gself.defined() ? gself + aux : aux` (None: an undefined gradient)."""
    return b if a is None else a if b is None else a + b


@helper
def _std_mean_vjp(g, self, result, dim, unbiased, keepdim, correction):
    """PyTorch's std_mean_backward: each part only for an output that received a gradient."""
    return _sum_defined(
        None if g[0] is None else _std_vjp(g[0], self, result, dim, unbiased, keepdim, correction),
        None if g[1] is None else _mean_vjp(g[1], self, dim, unbiased, keepdim))


@helper
def _var_mean_vjp(g, self, dim, unbiased, keepdim, correction):
    """PyTorch's var_mean_backward: each part only for an output that received a gradient."""
    return _sum_defined(
        None if g[0] is None else _var_vjp(g[0], self, dim, unbiased, keepdim, correction),
        None if g[1] is None else _mean_vjp(g[1], self, dim, unbiased, keepdim))


@helper
def _pair_jvp(vjp, uses_result, t, self, result, dim, unbiased, keepdim, correction):
    """The forward derivative of std_mean or var_mean, from its VJP vjp."""
    d, _ = _correction(dim, unbiased, correction)
    ax = axes(d, self.dim())
    ax = ax if ax is not None else tuple(range(self.dim()))
    ones = result * 0 + 1
    zeros = result * 0
    args = (self, result) if uses_result else (self,)
    first = vjp([ones, zeros], *args, dim, unbiased, keepdim, correction)
    second = vjp([zeros, ones], *args, dim, unbiased, keepdim, correction)
    return [(t * first).sum(ax, keepdim), (t * second).sum(ax, keepdim)]


MOMENT_SAMPLES = [Sample((3,)), Sample((2, 3), attrs={"dim": 1}),
                  Sample((2, 3), attrs={"dim": 0, "keepdim": True, "correction": 0}),
                  Sample((2, 3, 2), attrs={"dim": (0, 2), "unbiased": False})]
register(Op(
    "std_mean", _with_mean("std_mean", True),
    "self: _std_mean_vjp(grad, self, result, dim, unbiased, keepdim, correction)",
    jvp="self: _pair_jvp(_std_mean_vjp, True, self_t, self, result, dim, unbiased, keepdim, "
        "correction)", attrs=MOMENT_ATTRS, outputs=2,
    output_wrapper=tuple, dtype="same", method=False, kind="reduction",
    doc="(std, mean) over dim in one call",
    samples=MOMENT_SAMPLES))
register(Op(
    "var_mean", _with_mean("var_mean", False),
    "self: _var_mean_vjp(grad, self, dim, unbiased, keepdim, correction)",
    jvp="self: _pair_jvp(_var_mean_vjp, False, self_t, self, result, dim, unbiased, keepdim, "
        "correction)",
    attrs=MOMENT_ATTRS, outputs=2, output_wrapper=tuple, dtype="same", method=False,
    kind="reduction", doc="(var, mean) over dim in one call",
    samples=MOMENT_SAMPLES))
for _name in ("std_mean", "var_mean"):
    OPS[_name].undefined_grads = True
    OPS[_name].shown_saved, OPS[_name].hidden_saved = moment_saved, ("unbiased",)


# ------------------------------------------------------------------ nansum, nanmean

def _nansum(a, dim, keepdim, dtype):
    if dtype is not None:
        a = a.astype(dtype.np)
    out = np.asarray(np.nansum(a, axis=axes(dim, a.ndim), keepdims=keepdim))
    if dtype is None and a.dtype.kind in "biu":
        return out.astype(np.int64)
    return out.astype(a.dtype, copy=False)


@helper
def _nansum_vjp(g, self, dim, keepdim):
    return unreduce(g, tuple(self.shape), dim, keepdim) * (self == self)


register(Op(
    "nansum", _nansum, "self: _nansum_vjp(grad, self, dim, keepdim)",
    jvp="self: (self_t * (self == self)).sum(axes(dim, self.dim()) or tuple(range(self.dim())), keepdim)",
    attrs=(("dim", None), ("keepdim", False), ("dtype", None)), dtype="numpy",
    kind="reduction", doc="the sum of the elements (over dim), nan counted as 0",
    samples=[Sample((3,)), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": 0, "keepdim": True})]))


def _nanmean_compose(self, dim=None, keepdim=False, dtype=None):
    if self.dtype.category < 2:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {self.dtype.short}")
    # the mask from the data: a comparison of a dual tensor would meet forward AD
    present = Tensor._make(~np.isnan(self._data), None, 0, False)
    count = present.sum() if dim is None else present.sum(dim, keepdim=keepdim)
    return OPS["nansum"](self, dim, keepdim, dtype=dtype) / count


register(Composed(
    "nanmean", _nanmean_compose,
    via=("nansum", "div.Tensor"),
    attrs=(("dim", None), ("keepdim", False), ("dtype", None)), dtype="same", kind="reduction",
    doc="the mean of the elements that are not nan (over dim)",
    samples=[Sample((3,)), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": 0, "keepdim": True})]))


# ------------------------------------------------------------------ aminmax

def _aminmax(a, dim, keepdim):
    if a.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    d = () if dim is None else (wrap_dim(dim, a.ndim),)
    return (_amax_forward("aminmax", np.min)(a, d, keepdim),
            _amax_forward("aminmax", np.max)(a, d, keepdim))


@helper
def _aminmax_vjp(g, self, dim, keepdim):
    low, high = _aminmax(self._data, dim, keepdim)
    d = () if dim is None else (dim,)
    low = Tensor._make(low, None, 0, False)
    high = Tensor._make(high, None, 0, False)
    return _amax_vjp(g[0], self, low, d, keepdim) + _amax_vjp(g[1], self, high, d, keepdim)


@helper
def _aminmax_jvp(t, self, dim, keepdim):
    low, high = _aminmax(self._data, dim, keepdim)
    d = () if dim is None else (dim,)
    return [_amax_jvp(t, self, Tensor._make(low, None, 0, False), d, keepdim),
            _amax_jvp(t, self, Tensor._make(high, None, 0, False), d, keepdim)]


register(Op(
    "aminmax", _aminmax, "self: _aminmax_vjp(grad, self, dim, keepdim)",
    jvp="self: _aminmax_jvp(self_t, self, dim, keepdim)",
    attrs=(("dim", None), ("keepdim", False)), outputs=2,
    output_wrapper=lambda r: AminmaxResult(*r), dtype="same", kind="reduction",
    doc="(min, max) of the elements (over dim)",
    samples=[Sample((4,)), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": 0, "keepdim": True})]))


# ------------------------------------------------------------------ logcumsumexp

def _logcumsumexp(a, dim):
    if a.dtype.kind not in "fc":
        raise not_implemented("logcumsumexp_out_cpu", a.dtype)
    d = wrap_dim(dim, a.ndim)
    if not a.ndim:
        return a.copy()
    return np.logaddexp.accumulate(a, axis=d)


@helper
def _logcumsumexp_vjp(g, self, result, dim):
    if not self.dim():
        return g
    return self.exp() * _reverse_cumsum(g * (-result).exp(), dim)


register(Op(
    "logcumsumexp", _logcumsumexp, "self: _logcumsumexp_vjp(grad, self, result, dim)",
    jvp="self: (self_t * self.exp()).cumsum(dim) * (-result).exp() if self.dim() else self_t",
    attrs=("dim",), dtype="same", kind="reduction",
    doc="log(cumsum(exp(self))) along dim, computed stably",
    samples=[Sample((4,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
             Sample((3, 2), attrs={"dim": 0}), Sample((), attrs={"dim": 0})]))
