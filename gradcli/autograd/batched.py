"""autograd.grad(..., is_grads_batched=True): the first dimension of every grad_output is a
batch; PyTorch maps the vector-Jacobian product over it with vmap, gradcli runs one backward
pass a batch row (the graph retained until the last) and stacks the gradients."""

import numpy as np

from ..engine import messages
from ..engine.autograd import register_batched_grad
from ..engine.tensor import Size, Tensor

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
    for b in range(batch):
        found.append(grad(outputs, inputs, [g[b] for g in rows],
                          retain_graph=True if b < batch - 1 else retain,
                          create_graph=create_graph, allow_unused=unused))
    inputs_tuple = found[0] if type(found[0]) is tuple else tuple(found[0].values())
    keys = None if type(found[0]) is tuple else list(found[0].keys())
    per_input = [list(r) if keys is None else [r[k] for k in keys] for r in found]
    result = []
    for j in range(len(inputs_tuple)):
        column = [r[j] for r in per_input]
        if column[0] is None:
            result.append(None)
        elif create_graph:
            from .. import ops
            result.append(ops.OPS["stack"](column))
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


register_batched_grad(batched_grad)
