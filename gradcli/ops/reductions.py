"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, std/var, norm, logsumexp,
cumsum, cumprod, softmax and log_softmax.

PyTorch names the node of a reduction over everything differently from the one over `dim`
(`x.sum()` is SumBackward0, `x.sum(0)` SumBackward1), so each such reduction is an Overload of
two ops chosen by whether `dim` was given."""

import math
import warnings
from collections import namedtuple

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass
from .derivatives import helper
from .registry import OPS, Op, Overload, Plain, Sample, register, wrap_dim
from . import vectorized
from .summation import torch_sum, torch_var

ALL = [Sample(()), Sample((3,)), Sample((2, 3))]
REDUCE = [Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
          Sample((2, 3), attrs={"dim": 0, "keepdim": True}),
          Sample((2, 3, 2), attrs={"dim": (0, 2)}), Sample((), attrs={"dim": 0})]
ONE_DIM = [Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
           Sample((2, 3), attrs={"dim": 0, "keepdim": True}), Sample((2, 3), attrs={"dim": -1})]


@helper
def axes(dim, ndim):
    """NumPy axes for a `dim` argument (None: all)."""
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    if len(dims) == 0:
        return None
    out = tuple(sorted(wrap_dim(d, ndim) for d in dims))
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {_first_repeated(out)} appears multiple times in the list of dims")
    return out if ndim else None


def _first_repeated(dims):
    seen = set()
    for d in dims:
        if d in seen:
            return d
        seen.add(d)
    return None


def _kept_shape(shape, dim):
    ax = axes(dim, len(shape))
    return tuple(1 if ax is None or i in ax else s for i, s in enumerate(shape))


@helper
def keep(g, shape, dim, keepdim):
    """A reduced tensor with its reduced dimensions back as size 1 (broadcasts over self)."""
    if keepdim or not len(shape):
        return g
    return g.reshape(_kept_shape(shape, dim))


@helper
def unsqueezed(g, shape, dim, keepdim):
    """PyTorch's unsqueeze_multiple in the backward of sum, mean, prod, var, logsumexp, norm,
    max/min(dim): the reduced dimensions back as size 1, one unsqueeze each in increasing
    order (UnsqueezeBackward0, whose own derivative is squeeze: SqueezeBackward1 in a double
    backward, where a reshape would show ViewBackward0); as it is when kept, for a 0-d input
    or over every element (a 0-d gradient broadcasts).  (amax/amin reshape: `keep`.)"""
    ax = None if keepdim or not len(shape) else axes(dim, len(shape))
    if ax is None:
        return g
    for d in ax:
        g = g.unsqueeze(d)
    return g


@helper
def unreduce(g, shape, dim, keepdim):
    """Broadcast a reduced gradient back over the input's shape."""
    return unsqueezed(g, shape, dim, keepdim).expand(shape)


@helper
def _count(shape, dim):
    ax = axes(dim, len(shape))
    n = 1
    for a in (range(len(shape)) if ax is None else ax):
        n *= shape[a]
    return n


def _by_dim(name, everything, over_dim):
    """The Overload of a reduction: over `dim` when one is given, else over everything."""
    def choose(self=None, *args, **kwargs):
        if (args and not isinstance(args[0], dtypes.dtype)) or "dim" in kwargs:
            return over_dim
        return everything
    register(everything)
    register(over_dim)
    return register(Overload(name, choose, (everything, over_dim), kind="reduction",
                             doc=over_dim.doc))


def _cast(out, dtype):
    return out if dtype is None else out.astype(dtype.np)


# ------------------------------------------------------------------ sum, mean, prod

def _float_sum(a, ax, keepdim):
    """PyTorch's float32/float64 sum over the axes ax (gradcli/ops/summation.py), None when it
    is not emulated."""
    out = torch_sum(a, ax)
    if out is not None and keepdim:
        out = out.reshape(tuple(1 if ax is None or d in ax else n for d, n in enumerate(a.shape)))
    return out


def _sum(a, dim, keepdim, dtype):
    a = _cast(a, dtype)   # (PyTorch's: the input cast, then summed in dtype; a sum of int64
    out = _float_sum(a, axes(dim, a.ndim), keepdim)   # values cast after would wrap)
    if out is not None:
        return out
    out = np.sum(a, axis=axes(dim, a.ndim), keepdims=keepdim)
    if dtype is None and a.dtype.kind in "biu":
        return out.astype(np.int64)
    return _cast(np.asarray(out), dtype)


_by_dim(
    "sum",
    Op("sum.default", lambda a, dtype: _sum(a, None, False, dtype),
       "self: grad.expand(self_shape)", attrs=(("dtype", None),), jvp="linear",
       dtype="numpy", method=False, public=False, grad_fn="SumBackward0", kind="reduction",
       doc="sum of all elements", samples=ALL),
    Op("sum.dim_IntList", _sum,
       "self: unreduce(grad, self_shape, dim, keepdim)",
       attrs=("dim", ("keepdim", False), ("dtype", None)), jvp="linear", dtype="numpy",
       method=False, public=False, grad_fn="SumBackward1", kind="reduction",
       doc="sum of elements (over dim)", samples=REDUCE))


def _mean(a, dim, keepdim, dtype):
    if a.dtype.kind not in "fc" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.from_numpy_dtype(a.dtype).short}")
    a = _cast(a, dtype)
    out = _float_sum(a, axes(dim, a.ndim), keepdim)
    if out is not None:
        return np.asarray(out / a.dtype.type(_count(a.shape, dim) if a.ndim else 1), a.dtype)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing is nan, silently
        return np.asarray(np.mean(a, axis=axes(dim, a.ndim), keepdims=keepdim), dtype=a.dtype)


_by_dim(
    "mean",
    Op("mean.default", lambda a, dtype: _mean(a, None, False, dtype),
       "self: _div_s(grad.expand(self_shape), _count(self_shape, None))",
       attrs=(("dtype", None),), jvp="linear", dtype="numpy", method=False, public=False,
       grad_fn="MeanBackward0", kind="reduction", doc="mean of all elements",
       samples=ALL),
    Op("mean.dim", _mean,
       "self: _div_s(unreduce(grad, self_shape, dim, keepdim), _count(self_shape, dim))",
       attrs=("dim", ("keepdim", False), ("dtype", None)), jvp="linear", dtype="numpy",
       method=False, public=False, grad_fn="MeanBackward1", kind="reduction",
       doc="mean of elements (over dim)", samples=REDUCE))
for _name in ("mean.default", "mean.dim"):  # (PyTorch's nodes save the input's numel)
    OPS[_name].extra_saved = {"_saved_self_sym_numel": lambda node: int(np.prod(node._meta[0]))}


def _prod(a, dim, keepdim, dtype):
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    a = _cast(a, dtype)   # (as sum's)
    out = np.prod(a, axis=axes(dim, a.ndim), keepdims=keepdim)
    if dtype is None and a.dtype.kind in "biu":
        return out.astype(np.int64)
    return np.asarray(out, dtype=a.dtype)


def _eye_mask(n):
    return Tensor._make(np.eye(n, dtype=bool), None, 0, False)


def _products_of_others(self, result, dim):
    """d prod / d self_i = the product of the other elements (correct where self has zeros);
    result is the product with the reduced dimension kept."""
    if dim is None:
        if not (self._data == 0).any():
            return result / self
        flat = self.reshape(-1)
        n = flat.shape[0]
        others = flat.unsqueeze(0).expand((n, n)).masked_fill(_eye_mask(n), 1.0)
        return others.prod(1).reshape(tuple(self.shape))
    d = wrap_dim(dim, self.dim())
    if not (self._data == 0).any():
        return result / self
    last = self.transpose(d, -1)
    n = last.shape[-1]
    shape = tuple(last.shape)
    others = last.unsqueeze(-2).expand(shape[:-1] + (n, n)).masked_fill(_eye_mask(n), 1.0)
    return others.prod(-1).transpose(d, -1)


@helper
def _prod_vjp(g, self, result, dim=None, keepdim=False):
    if not self.dim():  # PyTorch's prod_backward: the gradient itself, with no graph of its own
        return g
    shape = tuple(self.shape)
    kept = unsqueezed(result, shape, dim, keepdim)
    return unsqueezed(g, shape, dim, keepdim) * _products_of_others(self, kept, dim)


_by_dim(
    "prod",
    Op("prod.default", lambda a, dtype: _prod(a, None, False, dtype),
       "self: _prod_vjp(grad, self, result)",
       jvp="self: (self_t * _prod_vjp(result * 0 + 1, self, result)).sum()",
       attrs=(("dtype", None),), dtype="numpy", method=False, public=False,
       grad_fn="ProdBackward0", kind="reduction", doc="product of all elements",
       samples=ALL + [Sample((4,), low=0.5)]),
    Op("prod.dim_int", _prod,
       "self: _prod_vjp(grad, self, result, dim, keepdim)",
       jvp="self: (self_t * _prod_vjp(result * 0 + 1, self, result, dim, keepdim)).sum(dim, keepdim)",
       attrs=("dim", ("keepdim", False), ("dtype", None)), dtype="numpy", method=False,
       public=False, grad_fn="ProdBackward1", kind="reduction",
       doc="product of elements over dim",
       samples=ONE_DIM))

# ------------------------------------------------------------------ max, min, amax, amin, argmax


def return_type(name, fields):
    """A torch.return_types.<name> namedtuple, printed as PyTorch prints it."""
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    # (TorchClass: the class prints as PyTorch's, `<class 'torch.return_types.topk'>`)
    return TorchClass(name, (base,), {"__repr__": __repr__, "__str__": __repr__, "__slots__": (),
                                      "_torch_name": f"torch.return_types.{name}"})


def _empty_check(name, a):
    if a.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")


def _tie_mask(self, value):
    """The elements that attain value (nan: the nan elements), as PyTorch's
    evenly_distribute_backward finds them."""
    if np.isnan(value._data).any() and value.dim() == 0:
        return self.isnan()
    return self == value


@helper
def _evenly(g, self, result):
    """PyTorch's evenly_distribute_backward (CPU): zeros with grad / count at the ties."""
    mask = _tie_mask(self, result)
    return OPS["where"](mask, g / mask.sum(), 0.0)


@helper
def _evenly_jvp(t, self, result):
    mask = _tie_mask(self, result)
    return (t * mask).sum() / mask.sum()


def _extreme_dim(name, fn, arg):
    def forward(a, dim, keepdim):
        d = wrap_dim(dim, a.ndim)
        if not a.ndim:
            return a.copy(), np.zeros((), np.int64)
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return (np.asarray(fn(a, axis=d, keepdims=keepdim)),
                np.asarray(arg(a, axis=d, keepdims=keepdim), dtype=np.int64))
    forward.__name__ = name
    return forward


@helper
def _selected(self, dim, which):
    """A mask of the element each slice along dim selected (the index max/min returns; which:
    "max" or "min")."""
    arg = np.argmax if which == "max" else np.argmin
    if not self.dim():
        return Tensor._make(np.ones((), bool), None, 0, False)
    d = wrap_dim(dim, self.dim())
    index = arg(self._data, axis=d, keepdims=True)
    positions = np.arange(self._data.shape[d]).reshape(
        tuple(-1 if i == d else 1 for i in range(self._data.ndim)))
    return Tensor._make(positions == index, None, 0, False)


@helper
def value_selecting_backward(g, self, dim, keepdim, which):
    """PyTorch's value_selecting_reduction_backward (max/min over dim): the gradient scattered
    in place into zeros at the index each slice selected (ScatterBackward0; version 2, as
    at::zeros is empty().zero_())."""
    arg = np.argmax if which == "max" else np.argmin
    index = (np.zeros((), np.int64) if not self.dim()
             else arg(self._data, axis=wrap_dim(dim, self.dim()), keepdims=True))
    zeros = Tensor._make(np.zeros(self._data.shape, g._data.dtype), None, 0, False)
    return zeros.zero_().scatter_(dim, Tensor._make(index, None, 0, False),
                                  unsqueezed(g, tuple(self.shape), dim, keepdim))


def _reduction_pair(name, np_fn, np_arg, binary, doc_word):
    Result = return_type(name, ["values", "indices"])
    everything = Op(
        f"{name}.default", lambda a: (_empty_check(name, a), np_fn(a))[1],
        "self: _evenly(grad, self, result)", jvp="self: _evenly_jvp(self_t, self, result)",
        dtype="same",
        method=False, public=False, grad_fn=f"{name.capitalize()}Backward1", kind="reduction",
        doc=f"the {doc_word} element",
        samples=ALL)
    over_dim = Op(
        f"{name}.dim", _extreme_dim(name, np_fn, np_arg),
        f"self: value_selecting_backward(grad[0], self, dim, keepdim, {name!r})",
        jvp=f"self: [(self_t * _selected(self, dim, {name!r})).sum(dim, keepdim) if self.dim() "
        "else self_t, None]",
        attrs=("dim", ("keepdim", False)), outputs=2, output_wrapper=lambda r: Result(*r),
        dtype="same", method=False, public=False, grad_fn=f"{name.capitalize()}Backward0",
        kind="reduction", doc=f"the {doc_word} along dim and its index (values, indices)",
        samples=ONE_DIM)

    def choose(self=None, *args, **kwargs):
        other = args[0] if args else kwargs.get("other", kwargs.get("dim"))
        if isinstance(other, Tensor):
            return OPS[binary]
        if args or "dim" in kwargs:
            return over_dim
        return everything

    register(everything)
    register(over_dim)
    register(Overload(
        name, choose, (everything, over_dim), kind="reduction",
        doc=f"the {doc_word} element; with dim, (values, indices); with a tensor, {binary}"))
    return Result


MaxResult = _reduction_pair("max", np.max, np.argmax, "maximum", "largest")
MinResult = _reduction_pair("min", np.min, np.argmin, "minimum", "smallest")


def _amax_forward(name, fn):
    def forward(a, dim, keepdim):
        ax = axes(dim, a.ndim)
        if ax is None:
            _empty_check(name, a)
        return np.asarray(fn(a, axis=ax, keepdims=keepdim))
    return forward


@helper
def _amax_vjp(g, self, result, dim, keepdim):
    shape = tuple(self.shape)
    mask = self == keep(result, shape, dim, keepdim)
    ax = axes(dim, len(shape))
    count = mask.sum(ax if ax is not None else tuple(range(len(shape))), keepdim=True)
    return keep(g, shape, dim, keepdim) / count * mask


@helper
def _amax_jvp(t, self, result, dim, keepdim):
    shape = tuple(self.shape)
    ax = axes(dim, len(shape))
    ax = ax if ax is not None else tuple(range(len(shape)))
    mask = self == keep(result, shape, dim, keepdim)
    return (t * mask).sum(ax, keepdim) / mask.sum(ax, keepdim)


AMAX_SAMPLES = [Sample(()), Sample((3,)), Sample((2, 3), attrs={"dim": 1}),
                Sample((2, 3), attrs={"dim": (0, 1), "keepdim": True}),
                Sample((2, 3, 2), attrs={"dim": (0, 2)})]
for _name, _fn in (("amax", np.max), ("amin", np.min)):
    register(Op(
        _name, _amax_forward(_name, _fn), "self: _amax_vjp(grad, self, result, dim, keepdim)",
        jvp="self: _amax_jvp(self_t, self, result, dim, keepdim)",
        attrs=(("dim", ()), ("keepdim", False)), dtype="same", kind="reduction",
        doc=f"the {'largest' if _name == 'amax' else 'smallest'} elements over dim",
        samples=AMAX_SAMPLES))


def _arg_forward(fn):
    def forward(a, dim, keepdim):
        if dim is None:
            out = np.asarray(fn(a), dtype=np.int64)
            return out.reshape((1,) * a.ndim) if keepdim else out
        if not a.ndim:
            wrap_dim(dim, 0)
            return np.zeros((), np.int64)
        return np.asarray(fn(a, axis=wrap_dim(dim, a.ndim), keepdims=keepdim), dtype=np.int64)
    return forward


for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register(Op(_name, _arg_forward(_fn), None, attrs=(("dim", None), ("keepdim", False)),
                dtype="long", kind="reduction",
                doc=f"the index of the {'largest' if _name == 'argmax' else 'smallest'} "
                    "element (over dim)"))

# ------------------------------------------------------------------ var, std


def _correction(dim, unbiased, correction):
    """(dim, correction) from var/std's overloaded arguments: `x.var(False)` means
    unbiased=False; the default correction is 1."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None:
        return dim, correction
    return dim, 1 if unbiased is None or unbiased else 0


def _moment(name, root):
    def forward(a, dim, unbiased, keepdim, correction):
        if a.dtype.kind not in "fc":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        dim, ddof = _correction(dim, unbiased, correction)
        ax = axes(dim, a.ndim)
        if _count(a.shape, dim) - ddof <= 0:
            warnings.warn(
                f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
                "the reduction factor (input numel divided by output numel). (Triggered "
                "internally at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)",
                UserWarning, stacklevel=4)
        out = torch_var(a, ax, ddof, root)   # (in PyTorch's order, for float32 and float64)
        if out is not None:
            return out.reshape(_kept_shape(a.shape, dim)) if keepdim else out
        mean = np.mean(a, axis=ax, keepdims=True)
        total = np.sum((a - mean) ** 2, axis=ax, keepdims=keepdim)
        out = np.asarray(total / np.asarray(_count(a.shape, dim) - ddof, dtype=a.dtype))
        return np.sqrt(out) if root else out
    return forward


@helper
def _var_vjp(g, self, dim, unbiased, keepdim, correction):
    """PyTorch's var_backward: (2 / dof) * grad * (self - mean), in that order; over all
    elements with dof <= 0, grad times inf, or nan where self is its mean (inf * 0)."""
    dim, ddof = _correction(dim, unbiased, correction)
    shape = tuple(self.shape)
    ax = axes(dim, len(shape))
    dof = _count(shape, dim) - ddof
    # (self - mean) is made before the product's left operand, as PyTorch's compiled
    # `(2 / dof) * grad * (self - self.mean())` evaluates it (its nodes' order)
    if ax is None or not shape:
        if dof <= 0:
            return g * OPS["where"](self == self.mean(), float("nan"), float("inf"))
        diff = self - self.mean()
        return OPS["mul.Scalar"](g, float(np.float64(2.0) / np.float64(dof))) * diff
    g = unsqueezed(g, shape, dim, keepdim)
    diff = self - self.mean(ax, keepdim=True)
    return OPS["mul.Scalar"](g, float(np.float64(2.0) / np.float64(dof))) * diff


@helper
def _std_vjp(g, self, result, dim, unbiased, keepdim, correction):
    # PyTorch's std_backward: (grad / (result * 2)).masked_fill_(result == 0, 0), Scalar mul
    return _var_vjp((g / OPS["mul.Scalar"](result, 2)).masked_fill(result == 0, 0.0), self,
                    dim, unbiased, keepdim, correction)


@helper
def _moment_jvp(vjp, t, self, result, dim, unbiased, keepdim, correction):
    """The forward derivative of var or std, from its VJP vjp (of the result too)."""
    ones = result * 0 + 1
    slope = vjp(ones, self, result, dim, unbiased, keepdim, correction)
    d, _ = _correction(dim, unbiased, correction)
    ax = axes(d, self.dim())
    return (t * slope).sum(ax if ax is not None else tuple(range(self.dim())), keepdim)


@helper
def _var_vjp_of_result(g, self, result, *args):
    return _var_vjp(g, self, *args)


def moment_saved(name, attrs, value):
    """The `_saved_dim` and `_saved_correction` of var/std(_mean)'s node: PyTorch's schemas
    take `correction` only, which the `unbiased` overloads (`x.var(0, False)`, `x.var(False)`)
    fill with 1 or 0; a call with neither dim, unbiased nor correction saves None."""
    dim, unbiased, _, correction = attrs
    if name == "_saved_dim":
        return None if isinstance(dim, bool) else value
    if name == "_saved_correction" and correction is None:
        if isinstance(dim, bool):
            return int(dim)
        if unbiased is not None:
            return int(bool(unbiased))
        return None if dim is None else 1
    return value


MOMENT_SAMPLES = [Sample((3,)), Sample((2, 3), attrs={"dim": 1}),
                  Sample((2, 3), attrs={"dim": 0, "keepdim": True, "correction": 0}),
                  Sample((2, 3, 2), attrs={"dim": (0, 2), "unbiased": False}),
                  Sample((4,), attrs={"dim": False})]
MOMENT_ATTRS = (("dim", None), ("unbiased", None), ("keepdim", False), ("correction", None))
register(Op(
    "var", _moment("var", False), "self: _var_vjp(grad, self, dim, unbiased, keepdim, correction)",
    jvp="self: _moment_jvp(_var_vjp_of_result, self_t, self, result, dim, unbiased, keepdim, "
        "correction)",
    attrs=MOMENT_ATTRS, dtype="same", kind="reduction", doc="variance over dim (correction=1: Bessel's)",
    samples=MOMENT_SAMPLES))
register(Op(
    "std", _moment("std", True),
    "self: _std_vjp(grad, self, result, dim, unbiased, keepdim, correction)",
    jvp="self: _moment_jvp(_std_vjp, self_t, self, result, dim, unbiased, keepdim, correction)",
    attrs=MOMENT_ATTRS,
    dtype="same", kind="reduction", doc="standard deviation over dim (correction=1: Bessel's)",
    samples=MOMENT_SAMPLES))
for _name in ("var", "std"):
    OPS[_name].shown_saved, OPS[_name].hidden_saved = moment_saved, ("unbiased",)

# ------------------------------------------------------------------ norm, logsumexp


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: a vector norm over dim (all elements by default); 'fro' is p=2 and 'nuc'
    the nuclear norm of matrices.  The node is LinalgVectorNormBackward0, as in PyTorch."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        return OPS["linalg_matrix_norm"](input, "nuc", dim if dim is not None else (-2, -1),
                                         keepdim, dtype=dtype)
    if isinstance(p, str) and p != "fro":
        raise RuntimeError(f"norm(): unsupported norm type {p}")
    ord = 2 if p in ("fro", None) else p
    return OPS["linalg_vector_norm"](input, ord, dim, keepdim, dtype=dtype)


_norm = register(Plain("norm", norm, "the p-norm over dim (p=2, 1, inf, 'fro', 'nuc'; all "
                                     "elements by default)", kind="reduction",
                       via=("linalg_vector_norm",)))  # (nuc: the composition's SumBackward1)
_norm.method = True


def _logsumexp(a, dim, keepdim):
    """PyTorch's composition (ReduceOps.cpp): the max, infinite maxes as 0, the sum (in
    PyTorch's order) of exp(self - max), its log, plus the max.  PyTorch takes exp and log
    from MKL's VML, which is not correctly rounded; here the C library's, correctly rounded
    in nearly all cases (the two differ in the last bit for about 1% of float32 and 0.5% of
    float64 arguments of exp, 8% and 0.06% of log's)."""
    ax = axes(dim, a.ndim)
    if not a.size:
        return np.log(np.sum(np.exp(a), axis=ax, keepdims=keepdim))
    if a.dtype.kind not in "fc":
        a = a.astype(dtypes.get_default_dtype().np)
    peak = np.max(a, axis=ax, keepdims=True)
    peak = np.where(np.isinf(peak), 0, peak).astype(a.dtype)
    e = _nearly_exact(np.exp, math.exp, a - peak)
    total = _float_sum(e, ax, True)
    if total is None:
        total = np.sum(e, axis=ax, keepdims=True)
    out = _nearly_exact(np.log, math.log, total) + peak
    if not keepdim:
        out = out.reshape(tuple(s for i, s in enumerate(a.shape) if ax is not None and i not in ax))
    return out.astype(a.dtype, copy=False)


def _nearly_exact(numpy_fn, libm_fn, x):
    """fn(x) rounded once in nearly all cases: float32 through float64, float64 by the C
    library (Python's math); other dtypes by NumPy."""
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return numpy_fn(x.astype(np.float64)).astype(np.float32)
        if x.dtype != np.float64:
            return numpy_fn(x)
        return vectorized.libm(libm_fn, numpy_fn, x)


@helper
def _logsumexp_vjp(g, self, result, dim, keepdim):
    shape = tuple(self.shape)
    return (unsqueezed(g, shape, dim, keepdim)
            * (self - unsqueezed(result, shape, dim, keepdim)).exp())


@helper
def _logsumexp_jvp(t, self, result, dim, keepdim):
    shape = tuple(self.shape)
    ax = axes(dim, len(shape))
    weights = (self - keep(result, shape, dim, keepdim)).exp()
    return (t * weights).sum(ax if ax is not None else tuple(range(len(shape))), keepdim)


register(Op(
    "logsumexp", _logsumexp, "self: _logsumexp_vjp(grad, self, result, dim, keepdim)",
    jvp="self: _logsumexp_jvp(self_t, self, result, dim, keepdim)",
    attrs=("dim", ("keepdim", False)), dtype="float", kind="reduction",
    doc="log(sum(exp(self))) over dim, computed stably",
    samples=[Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": 0, "keepdim": True}),
             Sample((2, 3, 2), attrs={"dim": (0, 2)})]))

# ------------------------------------------------------------------ cumsum, cumprod


def _cumulative(fn):
    def forward(a, dim, dtype):
        d = wrap_dim(dim, a.ndim)
        if dtype is not None:
            a = a.astype(dtype.np)
        elif a.dtype.kind in "biu":
            a = a.astype(np.int64)
        if not a.ndim:
            return a.copy()
        return fn(a, axis=d)
    return forward


@helper
def _reverse_cumsum(g, dim):
    if not g.dim():
        return g
    return g.flip(dim).cumsum(dim).flip(dim)


register(Op(
    "cumsum", _cumulative(np.cumsum), "self: _reverse_cumsum(grad, dim)", jvp="linear",
    attrs=("dim", ("dtype", None)), dtype="numpy", inplace=True, kind="reduction",
    doc="running sums along dim",
    samples=[Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": -2}), Sample((), attrs={"dim": 0})]))


@helper
def _cumprod_vjp(g, self, result, dim):
    if not self.dim() or self.numel() <= 1 or self.shape[wrap_dim(dim, self.dim())] == 1:
        return g  # (PyTorch's cumprod_backward: grad itself)
    if not (self._data == 0).any():  # (PyTorch's cumprod_backward: w = output * grad)
        return _reverse_cumsum(result * g, dim) / self
    d = wrap_dim(dim, self.dim())
    last = self.transpose(d, -1)
    n = last.shape[-1]
    shape = tuple(last.shape)
    # partial[..., i, k] = prod_{j <= k, j != i} self_j: the running product with self_i left out
    others = last.unsqueeze(-2).expand(shape[:-1] + (n, n)).masked_fill(_eye_mask(n), 1.0)
    partial = others.cumprod(-1)
    upper = Tensor._make(np.triu(np.ones((n, n), dtype=bool)), None, 0, False)
    weights = (partial * g.transpose(d, -1).unsqueeze(-2)).masked_fill(~upper, 0.0)
    return weights.sum(-1).transpose(d, -1)


@helper
def _cumprod_jvp(t, self, result, dim):
    if not self.dim():
        return t
    if not (self._data == 0).any():
        return (t / self).cumsum(dim) * result
    d = wrap_dim(dim, self.dim())
    last, tangent = self.transpose(d, -1), t.transpose(d, -1)
    n = last.shape[-1]
    shape = tuple(last.shape)
    others = last.unsqueeze(-2).expand(shape[:-1] + (n, n)).masked_fill(_eye_mask(n), 1.0)
    upper = Tensor._make(np.triu(np.ones((n, n), dtype=bool)), None, 0, False)
    terms = (others.cumprod(-1) * tangent.unsqueeze(-1)).masked_fill(~upper, 0.0)
    return terms.sum(-2).transpose(d, -1)


register(Op(
    "cumprod", _cumulative(np.cumprod), "self: _cumprod_vjp(grad, self, result, dim)",
    jvp="self: _cumprod_jvp(self_t, self, result, dim)",
    attrs=("dim", ("dtype", None)), dtype="numpy", inplace=True, kind="reduction",
    doc="running products along dim",
    samples=[Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
             Sample((2, 3), attrs={"dim": 0}), Sample((), attrs={"dim": 0})]))

# ------------------------------------------------------------------ softmax, log_softmax


class _WithDtype(Op):
    """softmax(dim, dtype=): the input is converted to dtype first (a ToCopyBackward0 node)."""

    def apply(self, inputs, attrs):
        dtype = attrs[-1]
        if dtype is not None:
            inputs = (inputs[0].to(dtype),) + tuple(inputs[1:])
            attrs = attrs[:-1] + (None,)
        return super().apply(inputs, attrs)


def _softmax_input(name, a, dim):
    if a.dtype.kind not in "fc":
        kernel = "lastdim_kernel_impl" if not a.ndim or wrap_dim(dim, a.ndim) == a.ndim - 1 \
            else "kernel_impl"
        raise not_implemented(f"{name}_{kernel}", a.dtype)
    d = wrap_dim(dim, a.ndim)
    return (a.reshape(1), 0) if not a.ndim else (a, d)


def _softmax(a, dim, dtype):
    """PyTorch's CPU kernels, to the bit (gradcli.ops.vectorized): _vec_softmax_lastdim for
    the last dimension, _vec_softmax for the others; NumPy for other dtypes."""
    x, d = _softmax_input("softmax", a, dim)
    out = vectorized.along(d, vectorized.softmax_lastdim, vectorized.softmax_inner, x)
    if out is None:
        shifted = np.exp(x - np.max(x, axis=d, keepdims=True)) if x.size else x
        out = shifted / np.sum(shifted, axis=d, keepdims=True)
    return np.ascontiguousarray(out).reshape(a.shape)


def _log_softmax(a, dim, dtype):
    """As softmax: _vec_log_softmax_lastdim, _vec_logsoftmax; NumPy for other dtypes."""
    x, d = _softmax_input("log_softmax", a, dim)
    out = vectorized.along(d, vectorized.log_softmax_lastdim, vectorized.log_softmax_inner, x)
    if out is None:
        shifted = x - np.max(x, axis=d, keepdims=True) if x.size else x
        out = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
    return np.ascontiguousarray(out).reshape(a.shape)


@helper
def _along(t, dim):
    return t.sum(dim, keepdim=True) if t.dim() else t


SOFTMAX_SAMPLES = [Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
                   Sample((2, 3), attrs={"dim": 0}), Sample((), attrs={"dim": 0}),
                   Sample((2, 3, 2), attrs={"dim": -1})]
register(_WithDtype(
    "softmax", _softmax, "self: _softmax_backward_data(grad, result, dim, result.dtype)",
    attrs=("dim", ("dtype", None)), dtype="same", kind="reduction",
    doc="exp(self) / sum(exp(self)) along dim",
    samples=SOFTMAX_SAMPLES))
register(_WithDtype(
    "log_softmax", _log_softmax,
    "self: _log_softmax_backward_data(grad, result, dim, result.dtype)",
    jvp="self: self_t - _along(result.exp() * self_t, dim)",
    attrs=("dim", ("dtype", None)), dtype="same", kind="reduction",
    doc="self - logsumexp(self) along dim",
    samples=SOFTMAX_SAMPLES))
