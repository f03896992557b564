"""Sorting and order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode,
cummax, cummin, unique.

The ops that select elements return (values, indices) as PyTorch's torch.return_types
namedtuples; the gradient of the values goes back to the selected elements (PyTorch's
value_selecting_reduction_backward: zeros with the gradient scattered at the indices), written
with gather_backward so that it can be differentiated again.  The VJPs recompute the indices from
the saved input (the forward's order is deterministic: NumPy's stable sort)."""

import numpy as np

from ..engine import messages
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor, batched
from .reductions import return_type
from .derivatives import helper
from .registry import Composed, OPS, Op, Overload, Plain, Sample, register, wrap_dim


SortResult = return_type("sort", ["values", "indices"])
TopkResult = return_type("topk", ["values", "indices"])
KthvalueResult = return_type("kthvalue", ["values", "indices"])
MedianResult = return_type("median", ["values", "indices"])
NanmedianResult = return_type("nanmedian", ["values", "indices"])
ModeResult = return_type("mode", ["values", "indices"])
CummaxResult = return_type("cummax", ["values", "indices"])
CumminResult = return_type("cummin", ["values", "indices"])


def _long(a):
    return np.array(a, dtype=np.int64, order="C")


def _order(a, d, descending):
    """Stable argsort along axis d (NaN last ascending, first descending; ties keep their
    order either way)."""
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    flipped = np.argsort(np.flip(a, d), axis=d, kind="stable")
    return a.shape[d] - 1 - np.flip(flipped, d)


@helper
def _scatter(g, self_shape, dim, indices, keepdim=True):
    """Zeros of self_shape with g put at indices along dim (differentiable: its VJP gathers)."""
    if not self_shape:
        return g.reshape(())
    d = wrap_dim(dim, len(self_shape))
    if not keepdim:
        g = g.unsqueeze(d)
        indices = np.expand_dims(indices, d)
    return OPS["gather_backward"].apply((g,), (tuple(self_shape), d, indices))


@helper
def _gather(t, dim, indices, keepdim=True):
    """t at indices along dim (the JVP of a value-selecting op)."""
    if not t.dim():
        return t
    d = wrap_dim(dim, t.dim())
    if not keepdim:
        out = OPS["gather"].apply((t,), (d, np.expand_dims(indices, d)))
        return out.squeeze(d)
    return OPS["gather"].apply((t,), (d, indices))


# ------------------------------------------------------------------ sort, argsort, msort

def _sort(a, dim=-1, descending=False):
    d = wrap_dim(dim, a.ndim)
    if not a.ndim:
        return a.copy(), np.zeros((), np.int64)
    index = _order(a, d, descending)
    return np.take_along_axis(a, index, d), _long(index)


@helper
def _sort_index(self, dim, descending):
    return _sort(self._data, dim, descending)[1]


SORT_SAMPLES = [Sample((4,)), Sample((2, 3), attrs={"dim": 0}),
                Sample((2, 3), attrs={"descending": True}), Sample(())]


@helper
def _sort_vjp(g, self, dim, descending):
    return _scatter(g[0], tuple(self.shape), dim, _sort_index(self, dim, descending))


@helper
def _sort_jvp(t, self, dim, descending):
    return [_gather(t, dim, _sort_index(self, dim, descending)), None]


def _sort_op(name, forward, grad_fn, attrs, samples):
    return register(Op(
        name, forward, "self: _sort_vjp(grad, self, dim, descending)",
        jvp="self: _sort_jvp(self_t, self, dim, descending)", attrs=attrs, outputs=2,
        output_wrapper=lambda r: SortResult(*r), dtype="same", method=False, public=False,
        grad_fn=grad_fn, kind="sorting",
        doc="the elements sorted along dim and their original indices (values, indices)",
        samples=samples))


sort_default = _sort_op("sort.default", _sort, "SortBackward0",
                        (("dim", -1), ("descending", False)), SORT_SAMPLES)
sort_stable = _sort_op(
    "sort.stable", lambda a, stable, dim, descending: _sort(a, dim, descending), "SortBackward1",
    (("stable", False), ("dim", -1), ("descending", False)),
    [Sample((4,), attrs={"stable": True}),
     Sample((2, 3), attrs={"stable": True, "dim": 0, "descending": True})])
register(Overload(
    "sort", lambda self=None, *args, **kwargs: sort_stable if "stable" in kwargs else sort_default,
    (sort_default, sort_stable), kind="sorting",
    doc="the elements sorted along dim and their original indices (values, indices)"))


def _argsort(a, dim, descending, stable):
    return _sort(a, dim, descending)[1]


register(Op("argsort", _argsort, None,
            attrs=(("dim", -1), ("descending", False), ("stable", False)), dtype="long",
            kind="sorting", doc="the indices that sort self along dim"))


def _msort_compose(self):
    return sort_default.apply((self,), (0, False))[0]


register(Composed(
    "msort", _msort_compose, via=("sort.default",), method=True,
    kind="sorting", doc="self sorted along its first dimension (sort(self, 0).values)",
    samples=[Sample((4,)), Sample((3, 2))], dtype="same"))


# ------------------------------------------------------------------ topk, kthvalue

def _topk(a, k, dim=-1, largest=True, sorted=True):
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if not a.ndim:
        return a.copy(), np.zeros((), np.int64)
    index = np.take(_order(a, d, largest), np.arange(k), axis=d)
    return np.take_along_axis(a, index, d), _long(index)


@helper
def _topk_index(self, k, dim, largest):
    return _topk(self._data, k, dim, largest)[1]


register(Op(
    "topk", _topk,
    "self: _scatter(grad[0], tuple(self.shape), dim, _topk_index(self, k, dim, largest))",
    jvp="self: [_gather(self_t, dim, _topk_index(self, k, dim, largest)), None]",
    attrs=("k", ("dim", -1), ("largest", True), ("sorted", True)), outputs=2,
    output_wrapper=lambda r: TopkResult(*r), dtype="same", grad_fn="TopkBackward0",
    kind="sorting", doc="the k largest (largest=False: smallest) elements along dim and their "
                        "indices",
    samples=[Sample((5,), attrs={"k": 2}), Sample((2, 4), attrs={"k": 3, "dim": -1}),
             Sample((3, 2), attrs={"k": 2, "dim": 0, "largest": False})]))


def _kthvalue(a, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, a.ndim)
    if a.dtype == np.bool_:
        raise messages.not_implemented("kthvalue_cpu", a.dtype)
    size = a.shape[d] if a.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if not a.ndim:
        return a.copy(), np.zeros((), np.int64)
    index = np.take(_order(a, d, False), [k - 1], axis=d)
    values = np.take_along_axis(a, index, d)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return values, _long(index)


@helper
def _kth_index(self, k, dim, keepdim):
    return _kthvalue(self._data, k, dim, keepdim)[1]


register(Op(
    "kthvalue", _kthvalue,
    "self: _scatter(grad[0], tuple(self.shape), dim, _kth_index(self, k, dim, keepdim), "
    "keepdim)",
    jvp="self: [_gather(self_t, dim, _kth_index(self, k, dim, keepdim), keepdim), None]",
    attrs=("k", ("dim", -1), ("keepdim", False)), outputs=2,
    output_wrapper=lambda r: KthvalueResult(*r), dtype="same", grad_fn="KthvalueBackward0",
    kind="sorting", doc="the k-th smallest element along dim and its index",
    samples=[Sample((5,), attrs={"k": 2}), Sample((2, 3), attrs={"k": 3}),
             Sample((3, 2), attrs={"k": 1, "dim": 0, "keepdim": True}), Sample((), attrs={"k": 1})]))


# ------------------------------------------------------------------ median, nanmedian, mode

def _median_index(a, d, ignore_nan):
    """The index (kept dim) of the lower median along d: with NaN present, the first NaN
    (median) or the median of the other elements (nanmedian)."""
    order = _order(a, d, False)
    nan = np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
    count = a.shape[d] - nan.sum(axis=d, keepdims=True) if ignore_nan else \
        np.full(nan.sum(axis=d, keepdims=True).shape, a.shape[d])
    position = np.maximum(count - 1, 0) // 2
    index = np.take_along_axis(order, position, d)
    if not ignore_nan:
        first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
        index = np.where(nan.any(axis=d, keepdims=True), first_nan, index)
    return index


def _median_dim(name, ignore_nan):
    def forward(a, dim, keepdim=False):
        d = wrap_dim(dim, a.ndim)
        if not a.ndim:
            return a.copy(), np.zeros((), np.int64)
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        index = _median_index(a, d, ignore_nan)
        values = np.take_along_axis(a, index, d)
        if not keepdim:
            values, index = values.squeeze(d), index.squeeze(d)
        return values, _long(index)
    return forward


def _median_all(ignore_nan):
    def forward(a):
        flat = a.reshape(-1)
        if not flat.size:
            return np.array(np.nan, a.dtype)
        return flat[_median_index(flat, 0, ignore_nan)[0]]
    return forward


def _median_pair(name, ignore_nan, Result):
    capital = name.capitalize()
    over_dim = _median_dim(name, ignore_nan)

    def index(self, dim, keepdim):
        return over_dim(self._data, dim, keepdim)[1]
    index_name = f"_{name}_index"
    helper(index, name=index_name)

    everything = Op(
        f"{name}.default", _median_all(ignore_nan), "self: _evenly(grad, self, result)",
        jvp="self: _evenly_jvp(self_t, self, result)", dtype="same", method=False, public=False,
        grad_fn=f"{capital}Backward0", kind="sorting",
        doc=f"the lower median of all elements{' (NaN ignored)' if ignore_nan else ''}",
        samples=[Sample((5,)), Sample((2, 3)), Sample(())])
    by_dim = Op(
        f"{name}.dim", over_dim,
        f"self: _scatter(grad[0], tuple(self.shape), dim, {index_name}(self, dim, keepdim), "
        "keepdim)",
        jvp=f"self: [_gather(self_t, dim, {index_name}(self, dim, keepdim), keepdim), None]",
        attrs=(("dim", -1), ("keepdim", False)), outputs=2,
        output_wrapper=lambda r: Result(*r), dtype="same", method=False, public=False,
        grad_fn=f"{capital}Backward1", kind="sorting",
        doc=f"the lower median along dim and its index{' (NaN ignored)' if ignore_nan else ''}",
        samples=[Sample((5,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
                 Sample((4, 2), attrs={"dim": 0, "keepdim": True})])
    register(everything)
    register(by_dim)
    register(Overload(
        name, lambda self=None, *args, **kwargs: by_dim if args or "dim" in kwargs else everything,
        (everything, by_dim), kind="sorting",
        doc=f"the lower median{' ignoring NaN' if ignore_nan else ''}; with dim, (values, "
            "indices)"))


_median_pair("median", False, MedianResult)
_median_pair("nanmedian", True, NanmedianResult)


def _mode(a, dim=-1, keepdim=False):
    d = wrap_dim(dim, a.ndim)
    if not a.ndim:
        return a.copy(), np.zeros((), np.int64)
    n = a.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    rows = np.moveaxis(a, d, -1).reshape(-1, n)
    values = np.empty(rows.shape[0], a.dtype)
    index = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        order = np.argsort(row, kind="stable")
        ordered = row[order]
        best, best_count, start = 0, 0, 0
        for i in range(1, n + 1):  # runs of equal values; the first longest (smallest) wins
            if i == n or not ordered[i] == ordered[start]:
                if i - start > best_count:
                    best, best_count = start, i - start
                start = i
        values[r] = ordered[best]
        index[r] = order[best + best_count - 1]  # its last occurrence
    shape = np.moveaxis(a, d, -1).shape[:-1]
    values, index = values.reshape(shape), index.reshape(shape)
    if keepdim:
        values, index = np.expand_dims(values, d), np.expand_dims(index, d)
    return values, index


@helper
def _mode_index(self, dim, keepdim):
    return _mode(self._data, dim, keepdim)[1]


register(Op(
    "mode", _mode,
    "self: _scatter(grad[0], tuple(self.shape), dim, _mode_index(self, dim, keepdim), "
    "keepdim)",
    jvp="self: [_gather(self_t, dim, _mode_index(self, dim, keepdim), keepdim), None]",
    attrs=(("dim", -1), ("keepdim", False)), outputs=2, output_wrapper=lambda r: ModeResult(*r),
    dtype="same", grad_fn="ModeBackward0", kind="sorting",
    doc="the most frequent value along dim (the smallest among ties) and its last index",
    samples=[Sample((4,)), Sample((2, 3), attrs={"dim": 0}),
             Sample((2, 3), attrs={"keepdim": True})]))


# ------------------------------------------------------------------ cummax, cummin

def _cumulative_extreme(better):
    def forward(a, dim):
        d = wrap_dim(dim, a.ndim)
        if not a.ndim:
            return a.copy(), np.zeros((), np.int64)
        x = np.moveaxis(a, d, 0)
        values = np.empty_like(x)
        index = np.zeros(x.shape, np.int64)
        for j in range(x.shape[0]):
            if j == 0:
                values[0], index[0] = x[0], 0
                continue
            nan = np.isnan(x[j]) if x.dtype.kind in "fc" else False
            take = better(x[j], values[j - 1]) | nan
            values[j] = np.where(take, x[j], values[j - 1])
            index[j] = np.where(take, j, index[j - 1])
        return np.moveaxis(values, 0, d).copy(), _long(np.moveaxis(index, 0, d))
    return forward


def _cumulative_pair(name, better, Result):
    forward = _cumulative_extreme(better)

    def index(self, dim):
        return forward(self._data, dim)[1]
    index_name = f"_{name}_index"
    helper(index, name=index_name)

    register(Op(
        name, forward,
        f"self: gather_backward.apply((grad[0],), (tuple(self.shape), wrap_dim(dim, self.dim()), "
        f"{index_name}(self, dim))) if self.dim() else grad[0]",
        jvp=f"self: [_gather(self_t, dim, {index_name}(self, dim)), None]",
        attrs=("dim",), outputs=2, output_wrapper=lambda r: Result(*r), dtype="same",
        kind="sorting",
        doc=f"the running {'maximum' if name == 'cummax' else 'minimum'} along dim and where it "
            "was attained",
        samples=[Sample((5,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": 1}),
                 Sample((3, 2), attrs={"dim": 0}), Sample((), attrs={"dim": 0})]))


_cumulative_pair("cummax", np.greater_equal, CummaxResult)
_cumulative_pair("cummin", np.less_equal, CumminResult)


# ------------------------------------------------------------------ unique

@helper
def _not_implemented(message, error):
    """derivatives.yaml's not_implemented: raises error(message) when the VJP runs."""
    raise error(message)


class FailingNode:
    """A node PyTorch records for an op it has no derivative for (unique: Unique2Backward0,
    heaviside: NotImplemented): the output requires grad, backward through it raises."""

    def __init__(self, name, message, inputs=("self",), error=NotImplementedError):
        self.name, self.message, self.inputs, self.error = name, message, inputs, error
        self.ops = {}  # number of edges -> the node's op

    def attach(self, inputs, results):
        """Record the node on results; its edges are the inputs that require grad only (as
        PyTorch's NotImplemented and DelayedError nodes collect them)."""
        if not GradMode.enabled:
            return
        edges = tuple(x for x in inputs if isinstance(x, Tensor) and x.requires_grad_flag)
        if edges:
            self._op(len(edges))._record(edges, (), tuple(results))

    def _op(self, n):
        if n not in self.ops:
            names = self.inputs[:n]
            derivative = (f"{', '.join(names)}: _not_implemented({self.message!r}, "
                          f"{self.error.__name__})")
            op = Op(self.name, None, derivative, inputs=names, grad_fn=self.name,
                    public=False, method=False, differentiable=False)
            if self.name == "NotImplemented":  # (a C++ class of autograd's own, as named)
                op.prepare()
                op.node_cls.name = lambda node: "torch::autograd::NotImplemented"
            self.ops[n] = op
        return self.ops[n]


UNIQUE_NODE = FailingNode("Unique2Backward0", "the derivative for '_unique2' is not implemented.")
UNIQUE_DIM_NODE = FailingNode("UniqueDimBackward0",
                              "the derivative for 'unique_dim' is not implemented.")


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of input, sorted (with dim: the distinct slices along dim); also
    the inverse indices and the counts when asked."""
    if batched(input) and dim is None:  # (each sample's result would have its own shape)
        raise RuntimeError(messages.VMAP_DYNAMIC_SHAPE.format(op="aten::_unique2"))
    a = input._data
    if dim is None:
        values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True,
                                            return_counts=True)
        inverse = inverse.reshape(a.shape)
        node = UNIQUE_NODE
    else:
        d = wrap_dim(dim, a.ndim)
        values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
        node = UNIQUE_DIM_NODE
    out = Tensor._make(np.ascontiguousarray(values), None, 0, False)
    if out._data.dtype.kind in "fc":
        node.attach((input,), (out,))
    extra = [Tensor._make(_long(x), None, 0, False) for x, wanted in
             ((inverse, return_inverse), (counts, return_counts)) if wanted]
    return (out, *extra) if extra else out


register(Plain("unique", unique, "the distinct elements, sorted (return_inverse, return_counts, "
                                 "dim)", kind="sorting")).method = True
