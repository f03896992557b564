"""torch.autograd's entry points: backward and grad."""

import warnings

import numpy as np

from . import messages
from .graph import run_backward
from .tensor import Size, Tensor


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """Default and validate the gradients of the outputs, with PyTorch's messages."""
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out.requires_grad:
                if out._data.size != 1:
                    raise RuntimeError(messages.IMPLICIT_GRAD_NOT_SCALAR)
                if out._data.dtype.kind == "c":
                    raise RuntimeError(messages.IMPLICIT_GRAD_NOT_REAL.format(
                        dtype=out.dtype.name))
                g = Tensor._make(np.ones_like(out._data), None, 0, False)
            result.append(g)
            continue
        if not isinstance(g, Tensor):
            if isinstance(g, (int, float, bool)):
                g = Tensor._make(np.full_like(out._data, g), None, 0, False)
            else:
                raise TypeError("gradients can be either Tensors or None, but got "
                                + type(g).__name__)
        if g._data.shape != out._data.shape:
            raise RuntimeError(messages.SHAPE_MISMATCH.format(
                index=i, grad_shape=Size(g._data.shape), out_shape=Size(out._data.shape)))
        if g.dtype is not out.dtype:
            if g.dtype.category != out.dtype.category and (g.dtype.category < 2):
                raise RuntimeError(f"invalid gradient at index {i} - expected dtype "
                                   f"{out.dtype.short} but got {g.dtype.short}")
            g = g.to(out.dtype)
        result.append(g)
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of tensors (weighted by grad_tensors) into the leaves' `.grad`."""
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"grad_tensors has {len(grads)} elements but tensors has "
                           f"{len(tensors)}")
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError(messages.BACKWARD_EMPTY_INPUTS)
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(messages.NO_GRAD_FN.format(index=i))
    grads = _make_grads(tensors, grads)
    if retain_graph is None:
        retain_graph = create_graph
    # PyTorch's engine warns when the pass starts; Python sees the warning when it returns
    warn = create_graph and inputs is None and not _warned_create_graph
    try:
        if pass_observer is None:
            run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs,
                         accumulate=True)
        else:
            with pass_observer(tensors):
                run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs,
                             accumulate=True)
    finally:
        if warn:
            _warn_create_graph()
    if observed_roots is not None:
        observed_roots.extend(tensors)


# A list while `gradcli eval` runs a program: the tensors its own backward calls started from
# (so that the gradients printed are attributed to the output they are the gradients of).
observed_roots = None
# While `gradcli explain`/`graph --values` run a program: called with the roots of each of its
# backward passes, it returns a context manager around the pass (that traces it node by node).
pass_observer = None
_warned_create_graph = False


def _warn_create_graph():
    """PyTorch warns once per process about backward(create_graph=True)."""
    global _warned_create_graph
    _warned_create_graph = True
    warnings.warn(messages.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=4)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, returned instead of accumulated."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError(messages.GRAD_OUTPUTS_LEN)
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_outputs has {len(grads)} elements but outputs has "
                           f"{len(outputs)}")
    for i, t in enumerate(outputs):
        if not t.requires_grad:
            raise RuntimeError(messages.NO_GRAD_FN.format(index=i))
    grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                          accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        result = [Tensor._make(np.zeros_like(i._data), None, 0, False) if g is None else g
                  for g, i in zip(result, inputs)]
    return tuple(result)
