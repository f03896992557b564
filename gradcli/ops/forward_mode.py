"""Forward-mode AD for the op table: the tangent of an op's result from its inputs' tangents
(its JVP formula, or batched tangents under vmap-like batching) and saving it on the result."""

from ..engine.tangents import ForwardAD, Unbatchable, set_tangent as _set_tangent
from ..engine.tensor import Tensor
from .nodes import ATTR, DTYPE, G, INPUT, RESULT, SHAPE


def _forward_ad(op, inputs, attrs, results):
    """Propagate tangents (forward-mode AD) through op."""
    if not op.differentiable:  # (x == 0 and the like: no tangent, as in PyTorch)
        return
    tangents = [x._fw if isinstance(x, Tensor) else None for x in inputs]
    if ForwardAD.batch is not None:
        _set_tangent(results[0], _batched_tangent(op, inputs, attrs, results, tangents))
        _save_output_tangent(results[0])
        return
    out = _tangent_out(op, inputs, attrs, results, tangents)
    if op.n_outputs == 1:
        r = results[0]
        if out._data.shape != r._data.shape:
            out = out.expand(r._data.shape)
        if out._data.dtype != r._data.dtype:
            out = out.to(r.dtype)
        _set_tangent(r, out)
    else:
        for r, t in zip(results, out):
            if r._data.dtype.kind in "fc":
                _set_tangent(r, t)
    _save_output_tangent(results[0])


def _save_output_tangent(r):
    """A node that saved its output keeps the output's tangent with it, as PyTorch's saved
    variables keep their forward gradient: its backward, run inside the dual level
    (forward-over-reverse), then sees a dual tensor."""
    node = r.grad_fn
    saved = getattr(node, "_saved_out", None) if node is not None else None
    if saved is not None and len(saved) == 4 and r._fw is not None:
        node._saved_out = saved + (r._fw,)


def _batched_tangent(op, inputs, attrs, results, tangents):
    """The output tangent of a one-output op when every tangent has a leading batch dimension:
    elementwise ops of equal shapes apply their formula to the whole batch (it broadcasts),
    matrix products use a batched product, anything else runs its JVP one slice at a time.
    All of it in Tensor ops: a tangent that depends on inputs requiring grad is differentiable,
    as PyTorch's vmap-ed jvp is (forward-over-reverse Hessians have a grad_fn there)."""
    batch = ForwardAD.batch
    if op.n_outputs != 1:
        raise Unbatchable(op.name)
    for x, t in zip(inputs, tangents):
        if t is not None and t._data.shape != (batch,) + x._data.shape:
            raise Unbatchable(op.name)
    r = results[0]
    shape = (batch,) + r._data.shape
    out = None
    if (op.kind in ("elementwise", "binary", "backward") and op.elementwise_jvp
            and not op.variadic and all(x._data.shape == r._data.shape for x in inputs
                                        if isinstance(x, Tensor))):
        out = _tangent_out(op, inputs, attrs, results, tangents)
    elif op.name in ("mm", "mv"):
        out = _batched_product(inputs, tangents)
    elif op.name in _BATCH_RULES and tangents[0] is not None:
        out = _BATCH_RULES[op.name](tangents, attrs, r._data.shape)
    if out is None or out._data.shape != shape:
        from . import stack
        slices = []
        for k in range(batch):
            o = _tangent_out(op, inputs, attrs, results,
                             [None if t is None else t[k] for t in tangents])
            slices.append(o.expand(r._data.shape) if o._data.shape != r._data.shape else o)
        out = stack(slices)
    if out._data.dtype != r._data.dtype:
        out = out.to(r.dtype)
    return out


def _batched_reshape(tangents, attrs, shape):
    return tangents[0].reshape((tangents[0].shape[0],) + shape)


def _batched_select(tangents, attrs, shape):
    dim, index = attrs
    return tangents[0].select(dim if dim < 0 else dim + 1, index)


def _batched_sum(tangents, attrs, shape):
    t = tangents[0]
    return t.sum(dim=tuple(range(1, t.dim()))) if attrs == (None,) and t.dim() > 1 else None


def _batched_stack(tangents, attrs, shape):
    from . import stack
    (dim,) = attrs
    if any(t is None for t in tangents):
        return None
    return stack(tangents, dim if dim < 0 else dim + 1)


# Linear ops whose batched tangent is the op on the batch with its dimensions shifted by one
# (f(tangents, attrs, one slice's result shape) -> batched tangent, or None: slice by slice).
# The reshapes keep the order of the elements, so one reshape with the batch in front serves.
_BATCH_RULES = dict.fromkeys(
    ("view", "reshape", "_reshape_alias", "_unsafe_view", "squeeze.all", "squeeze.dim",
     "squeeze.dims", "unsqueeze", "flatten", "unflatten", "view_as", "reshape_as", "alias",
     "clone", "contiguous"), _batched_reshape)
_BATCH_RULES.update({"select": _batched_select, "sum.default": _batched_sum,
                     "stack": _batched_stack})


def _batched_product(inputs, tangents):
    """mm/mv's JVP (t @ other + self @ t) for batched tangents: matmul broadcasts the batch
    dimension."""
    from .registry import OPS  # (the op: gradcli.ops.matmul may be the module of that name)
    matmul = OPS["matmul"]
    a, b = _primal(inputs[0]), _primal(inputs[1])
    out = None
    if tangents[0] is not None:
        out = matmul(tangents[0], b)
    if tangents[1] is not None:
        t = tangents[1]
        term = matmul(t, a.mT) if b.dim() == 1 else matmul(a, t)
        out = term if out is None else out + term
    return out


def _tangent_out(op, inputs, attrs, results, tangents):
    """The JVP of op: the output tangent (a list for several outputs)."""
    if op.jvp == "linear":
        from . import zeros_like
        ts = [t if t is not None else (zeros_like(x) if isinstance(x, Tensor) else x)
              for t, x in zip(tangents, inputs)]
        out = op.apply(ts, attrs)
    else:
        entries = op.vjps if op.jvp == "elementwise" else op.jvps
        if entries is None:
            raise RuntimeError(f"Trying to use forward AD with {op.name} that does not support it")
        fake = _TangentContext(op, inputs, attrs, results)
        out = None
        # one formula per input, summed; or one formula given every tangent (a list with None
        # for an input that has none, when the op has several inputs)
        if (op.jvp == "elementwise" and op.per_input
                or op.jvp != "elementwise" and len(entries) == len(inputs)):
            for i, entry in enumerate(entries):
                if tangents[i] is None or entry is None:
                    continue
                fn, kinds = entry
                contrib = fn(*fake.resolve(kinds, tangents[i]))
                out = contrib if out is None else out + contrib
        else:
            fn, kinds = entries[0]
            out = fn(*fake.resolve(kinds, tangents if op.variadic or len(inputs) > 1
                                   else tangents[0]))
    return out


class _TangentContext:
    """Resolves JVP parameters from live inputs and outputs (nothing is saved)."""

    def __init__(self, op, inputs, attrs, results):
        self.op, self.inputs, self.attrs, self.results = op, inputs, attrs, results

    def resolve(self, kinds, t):
        args = []
        for kind, idx in kinds:
            if kind == G:
                args.append(t)
            elif kind == INPUT:
                x = list(self.inputs) if self.op.variadic else self.inputs[idx]
                args.append(_primal(x))
            elif kind == RESULT:
                args.append(_primal(self.results[0]))
            elif kind == ATTR:
                args.append(self.attrs[idx])
            elif kind == SHAPE:
                args.append(self.inputs[idx]._data.shape)
            elif kind == DTYPE:
                args.append(self.inputs[idx].dtype)
            else:
                args.append([x._data.shape for x in self.inputs])
        return args


def _primal(x):
    if isinstance(x, list):
        return [_primal(v) for v in x]
    if isinstance(x, Tensor) and x._fw is not None:
        p = Tensor._make(x._data, x.grad_fn, x._output_nr, x.requires_grad_flag)
        p._counter = x._counter
        return p
    return x
