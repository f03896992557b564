"""autograd.grad(..., is_grads_batched=True): the first dimension of every grad_output is a
batch; PyTorch maps the vector-Jacobian product over it with vmap, gradcli runs one backward
pass a batch row (the graph retained until the last) and stacks the gradients."""

import numpy as np

from ..engine import messages
from ..engine.autograd import register_batched_grad
from ..engine.tensor import Tensor
from ..engine.torch_classes import Size

BATCHED_SHAPE = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{index}] has a shape of "
    "{grad_shape} and output[{index}] has a shape of {out_shape}. If you only want some tensors "
    "in `grad_output` to be considered batched, consider using vmap.")
SCALAR_IN_DIM = (
    "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a "
    "Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
BATCH_SIZES = ("vmap: Expected all tensors to have the same size in the mapped dimension, got "
               "sizes {sizes} for the mapped dimension")


def batched_grad(grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                 allow_unused, materialize_grads):
    """grad: autograd.grad itself (one batch row at a time); outputs: a tuple; inputs as
    autograd.grad takes them."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,)
    else:
        grad_outputs = tuple(grad_outputs)
    rows = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if isinstance(out, Tensor) and out.requires_grad and out._data.size != 1:
                raise RuntimeError(messages.IMPLICIT_GRAD_NOT_SCALAR)
            raise ValueError(SCALAR_IN_DIM)
        if not isinstance(g, Tensor):
            raise TypeError(messages.GRADIENT_NOT_TENSOR.format(type=type(g).__name__))
        if isinstance(out, Tensor) and g._data.shape[1:] != out._data.shape:
            # (PyTorch's message shows the gradient's shape past its first two dimensions)
            raise RuntimeError(BATCHED_SHAPE.format(index=i, grad_shape=Size(g._data.shape[2:]),
                                                    out_shape=Size(out._data.shape)))
        rows.append(g)
    sizes = [g._data.shape[0] for g in rows]
    if len(set(sizes)) > 1:
        raise ValueError(BATCH_SIZES.format(sizes=sizes))
    batch = sizes[0] if sizes else 0
    if batch == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    retain = create_graph if retain_graph is None else retain_graph
    unused = allow_unused or materialize_grads
    found = []
    captures = []
    row_grads = [[g[b] for g in rows] for b in range(batch)]
    for b in range(batch):
        with _Capture() as capture:   # (the nodes the backward pass makes, with their inputs)
            found.append(grad(outputs, inputs, [g[b] for g in rows],
                              retain_graph=True if b < batch - 1 else retain,
                              create_graph=create_graph, allow_unused=unused))
        captures.append(capture.records)
    inputs_tuple = found[0] if type(found[0]) is tuple else tuple(found[0].values())
    keys = None if type(found[0]) is tuple else list(found[0].keys())
    per_input = [list(r) if keys is None else [r[k] for k in keys] for r in found]
    result = []
    for j in range(len(inputs_tuple)):
        column = [r[j] for r in per_input]
        if column[0] is None:
            result.append(None)
        elif create_graph:
            result.append(_as_vmap_computes(column, captures, row_grads))
        else:
            result.append(Tensor._make(np.stack([c._data for c in column]), None, 0, False))
    if materialize_grads:
        given = tuple(inputs.values()) if type(inputs) is dict else (
            (inputs,) if isinstance(inputs, Tensor) else tuple(inputs))
        result = [Tensor._make(np.zeros_like(i._data), None, 0, False) if r is None else r
                  for r, i in zip(result, given)]
    if keys is not None:
        return dict(zip(keys, result))
    return tuple(result)


# ---------------------------------------------------------------------- the graph vmap makes

# PyTorch runs the backward pass once, under its legacy vmap (torch._vmap_internals), on
# batched gradients: an op of a batched and an unbatched tensor records one node, the unbatched
# operand viewed to line up with the batch (ViewBackward0).  gradcli runs one pass a row; the
# rows' graphs are folded into that one when every node the passes made is a pointwise op whose
# batching rule is known (below), else the rows are stacked (StackBackward0).
# The ops whose legacy batching rule lines the operands up (an unbatched one through a view)
BROADCASTING_OPS = frozenset(("add", "sub", "mul", "div", "div.Tensor", "sigmoid_backward",
                              "threshold_backward"))
# The ops PyTorch's legacy vmap has no rule for: it runs them a row at a time and stacks the
# rows (StackBackward0), viewed as the batched result (ViewBackward0)
FALLBACK_OPS = frozenset(("tanh_backward", "softplus_backward", "elu_backward", "gelu_backward",
                          "leaky_relu_backward"))


class _NotBatchable(Exception):
    pass


class _Capture:
    """Records the op nodes made while it is on (gradcli's NodeRecorder), with their inputs."""

    def __enter__(self):
        from ..engine.graph import NodeRecorder
        self.records = {}
        self._previous = NodeRecorder.callback
        previous = self._previous

        def on_node(node, inputs, results, swapped=False):
            self.records[node] = (tuple(inputs), len(results))
            if previous is not None:
                if swapped:
                    previous(node, inputs, results, swapped=True)
                else:
                    previous(node, inputs, results)
        NodeRecorder.callback = on_node
        return self

    def __exit__(self, *exc):
        from ..engine.graph import NodeRecorder
        NodeRecorder.callback = self._previous
        return False


def _as_vmap_computes(column, captures, rows):
    """The rows' gradients of one input as one tensor, with the graph PyTorch's vmap gives it
    when gradcli knows how (the same values in any case), else their stack."""
    from .. import ops
    stacked = np.stack([c._data for c in column])
    try:
        batched, value = _fold(column, captures, rows)
    except _NotBatchable:
        batched = False
    if batched and value._data.shape == stacked.shape and \
            np.array_equal(value._data, stacked, equal_nan=True):
        return value
    return ops.OPS["stack"](column)


def _fold(values, captures, rows):
    """(batched, value) for one argument position across the rows: a tensor (or number) the
    same in every row, as it is; else the batched tensor, with the batch dimension first."""
    first = values[0]
    if not isinstance(first, Tensor):
        if any(isinstance(v, Tensor) or v != first for v in values):
            raise _NotBatchable
        return False, first
    if not all(isinstance(v, Tensor) for v in values):
        raise _NotBatchable
    node = first.grad_fn
    if node is not None and node in captures[0]:
        return _fold_node(values, captures, rows)
    nodes = [v.grad_fn for v in values]
    same_data = all(v._data.shape == first._data.shape and
                    np.array_equal(v._data, first._data, equal_nan=True) for v in values)
    if node is not None or first.requires_grad:
        # made before the backward pass (a leaf too): the same tensor in every row
        if not (same_data and all(n is node and v._output_nr == first._output_nr
                                  for n, v in zip(nodes, values))):
            raise _NotBatchable
        return False, first
    if any(n is not None for n in nodes):
        raise _NotBatchable
    if all(v._data.shape == first._data.shape for v in values) and \
            any(_broadcastable(first._data.shape, g._data.shape) for g in rows[0]):
        # made from the rows' grad_outputs by pointwise ops or a broadcast (a sum's
        # gradient): batched, as in PyTorch (a constant of the formulas counts too, which
        # makes no node either way)
        return True, Tensor._make(np.stack([v._data for v in values]), None, 0, False)
    if same_data:
        return False, first
    # (a value made from the grad_outputs by other ops, as a reshape, went through batching
    # rules gradcli does not follow)
    raise _NotBatchable


def _broadcastable(shape, grad_shape):
    """Is shape that of a grad_output of grad_shape, or of its broadcast?"""
    try:
        return np.broadcast_shapes(shape, grad_shape) == tuple(shape)
    except ValueError:
        return False


def _fold_node(values, captures, rows):
    nodes = [v.grad_fn for v in values]
    first = nodes[0]
    records = []
    for node, capture in zip(nodes, captures):
        if type(node) is not type(first) or node not in capture or \
                getattr(node, "_attrs", None) != getattr(first, "_attrs", None) or \
                values[0]._output_nr != 0:
            raise _NotBatchable
        records.append(capture[node][0])
    if any(len(r) != len(records[0]) for r in records):
        raise _NotBatchable
    folded = [_fold([r[k] for r in records], captures, rows) for k in range(len(records[0]))]
    if not any(batched for batched, _ in folded):
        return False, values[0]   # (recomputed from unbatched tensors in each row: the same)
    op = getattr(first, "op", None)
    if op is not None and op.name in FALLBACK_OPS:
        from .. import ops
        return True, ops.OPS["stack"](values).view((len(values), *values[0].shape))
    if op is None or op.n_outputs != 1 or not (
            op.kind == "elementwise" or op.name in BROADCASTING_OPS):
        raise _NotBatchable
    ranks = [v.dim() - batched if isinstance(v, Tensor) else 0 for batched, v in folded]
    rank = max(ranks)
    inputs = []
    for (batched, v), r in zip(folded, ranks):
        if not isinstance(v, Tensor):
            inputs.append(v)
        elif batched:   # (a batched operand of fewer dimensions is padded after the batch)
            inputs.append(v if r == rank else v.view(v.shape[:1] + (1,) * (rank - r) +
                                                     v.shape[1:]))
        elif op.name in BROADCASTING_OPS:   # an unbatched operand: lined up with the batch
            inputs.append(v.view((1,) * (1 + rank - r) + tuple(v.shape)))
        else:
            raise _NotBatchable
    return True, op.apply(tuple(inputs), first._attrs)


register_batched_grad(batched_grad)
