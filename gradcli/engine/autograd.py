"""torch.autograd's entry points: backward and grad."""

import warnings
from contextlib import contextmanager, nullcontext

import numpy as np

from . import messages
from .graph import GradientEdge, check_edge_input, edge_output_meta
from .backward import run_backward
from .tensor import Tensor
from .torch_classes import Size


def _as_tuple(x):
    """PyTorch's reading of `tensors` and `outputs`: a tensor (or a GradientEdge) alone, else
    any iterable."""
    return (x,) if isinstance(x, Tensor) or type(x) is GradientEdge else tuple(x)


def _inputs_tuple(x):
    """PyTorch's reading of `inputs`: as _as_tuple, but of a dict its values (a GradientEdge
    is one input)."""
    if type(x) is GradientEdge:
        return (x,)
    return tuple(x.values()) if type(x) is dict else _as_tuple(x)


def _grads_tuple(grads, length):
    """PyTorch's _tensor_or_tensors_to_tuple: None for each output, else as _as_tuple (so that
    a Python number is refused as not iterable)."""
    return (None,) * length if grads is None else _as_tuple(grads)


def _make_grads(outputs, grads, is_grads_batched=False):
    """Default and validate the gradients of the outputs, with PyTorch's messages (pairs taken
    as zip takes them; the engine then refuses counts that differ)."""
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if type(out) is GradientEdge:  # (the shape and dtype of the gradient its node takes)
            shape, dtype = edge_output_meta(out)
            requires_grad = True
        elif not isinstance(out, Tensor):
            raise AssertionError(messages.OUTPUT_NOT_TENSOR)
        else:
            shape, dtype, requires_grad = out._data.shape, out.dtype, out.requires_grad
        if g is None:
            if requires_grad:
                if int(np.prod(shape)) != 1:
                    raise RuntimeError(messages.IMPLICIT_GRAD_NOT_SCALAR)
                if dtype.np.kind == "c":
                    raise RuntimeError(messages.IMPLICIT_GRAD_NOT_REAL.format(dtype=dtype.name))
                g = Tensor._make(np.ones(shape, dtype.np), None, 0, False)
            result.append(g)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(messages.GRADIENT_NOT_TENSOR.format(type=type(g).__name__))
        if g._data.shape != shape:
            raise RuntimeError(messages.SHAPE_MISMATCH.format(
                index=i, grad_shape=Size(g._data.shape), out_shape=Size(shape)))
        if (g._data.dtype.kind == "c") != (dtype.np.kind == "c"):
            raise RuntimeError(messages.GRADIENT_COMPLEX_MISMATCH.format(
                index=i, grad_dtype=g.dtype, out_dtype=dtype))
        result.append(g if g.dtype is dtype else g.to(dtype))
    return result


def _check_roots(tensors, grads):
    """The engine's checks of the roots of a backward pass (after _make_grads)."""
    if len(grads) != len(tensors):
        raise RuntimeError(messages.ROOTS_GRADS_COUNT.format(tensors=len(tensors),
                                                             grads=len(grads)))
    for i, t in enumerate(tensors):
        if type(t) is not GradientEdge and not t.requires_grad:
            raise RuntimeError(messages.NO_GRAD_FN.format(index=i))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of tensors (weighted by grad_tensors) into the leaves' `.grad`."""
    if grad_variables is not None:
        warnings.warn(messages.GRAD_VARIABLES_DEPRECATED, FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError(messages.GRAD_VARIABLES_AND_TENSORS)
        grad_tensors = grad_variables
    inputs = None if inputs is None else _inputs_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError(messages.BACKWARD_EMPTY_INPUTS)
    tensors = _as_tuple(tensors)
    grads = _make_grads(tensors, _grads_tuple(grad_tensors, len(tensors)))
    _check_roots(tensors, grads)
    retain_graph, create_graph = _graph_options(retain_graph, create_graph)
    # PyTorch's engine warns when the pass starts; Python sees the warning when it returns
    warn = create_graph and inputs is None and not _warned_create_graph
    valid = Checkpointing.valid
    Checkpointing.valid = valid and inputs is None
    try:
        with pass_observer(tensors) if pass_observer is not None else nullcontext():
            run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs,
                         accumulate=True)
    finally:
        Checkpointing.valid = valid
        if warn:
            _warn_create_graph()
    if observed_roots is not None:
        observed_roots.extend(tensors)


class Checkpointing:
    """Whether a reentrant checkpoint's backward may run now (PyTorch's
    `_is_checkpoint_valid`): not within a pass given its inputs (autograd.grad,
    `backward(inputs=...)`), nor within any pass such a pass started."""
    valid = True


# A list while `gradcli eval` runs a program: the tensors its own backward calls started from
# (so that the gradients printed are attributed to the output they are the gradients of).
observed_roots = None
# While `gradcli explain`/`graph --values` run a program: called with the roots of each of its
# backward passes, it returns a context manager around the pass (that traces it node by node).
pass_observer = None
# While `gradcli eval --retain-graph/--create-graph` runs a program: (retain_graph,
# create_graph), each True to force it on in every backward pass the program makes.
forced_graph_options = None
_warned_create_graph = False


@contextmanager
def observing(**settings):
    """Set the observers above (observed_roots, pass_observer, forced_graph_options) for the
    block, and put back the ones before it after."""
    module = globals()
    previous = {name: module[name] for name in settings}  # (a KeyError for a misspelt name)
    module.update(settings)
    try:
        yield
    finally:
        module.update(previous)


def _graph_options(retain_graph, create_graph):
    """backward's and grad's (retain_graph, create_graph): retain_graph defaults to
    create_graph, as in PyTorch; forced_graph_options may turn either on."""
    if forced_graph_options is not None:
        if forced_graph_options[0]:
            retain_graph = True
        if forced_graph_options[1]:
            create_graph = True
    return (create_graph if retain_graph is None else retain_graph), create_graph


def _warn_create_graph():
    """PyTorch warns once per process about backward(create_graph=True)."""
    global _warned_create_graph
    _warned_create_graph = True
    warnings.warn(messages.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=4)


_BATCHED_GRAD = [None]  # what autograd(is_grads_batched=True) runs: register_batched_grad


def register_batched_grad(fn):
    """The layer above the engine (gradcli.autograd.batched, which stacks tensors with the op
    table) gives grad its batched form."""
    _BATCHED_GRAD[0] = fn


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, returned instead of accumulated (as a
    dict when inputs is a dict)."""
    if materialize_grads and allow_unused is False:
        raise ValueError(messages.MATERIALIZE_WITHOUT_UNUSED)
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_tuple = _inputs_tuple(inputs)
    if not inputs_tuple:
        raise RuntimeError(messages.GRAD_EMPTY_INPUTS)
    if is_grads_batched:  # (one backward pass a batch row: gradcli/autograd/batched.py)
        return _BATCHED_GRAD[0](grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                                allow_unused, materialize_grads)
    if not only_inputs:
        warnings.warn(messages.ONLY_INPUTS_DEPRECATED, FutureWarning, stacklevel=2)
    grads = _make_grads(outputs, _grads_tuple(grad_outputs, len(outputs)))
    _check_roots(outputs, grads)
    for i in inputs_tuple:
        if type(i) is GradientEdge:
            check_edge_input(i)
    retain_graph, create_graph = _graph_options(retain_graph, create_graph)
    valid, Checkpointing.valid = Checkpointing.valid, False
    try:
        result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_tuple,
                              accumulate=False, allow_unused=allow_unused)
    finally:
        Checkpointing.valid = valid
    if materialize_grads:
        if any(g is None and type(i) is GradientEdge for g, i in zip(result, inputs_tuple)):
            raise RuntimeError(messages.MATERIALIZE_EDGE)
        result = [Tensor._make(np.zeros_like(i._data), None, 0, create_graph) if g is None
                  else g for g, i in zip(result, inputs_tuple)]
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)
