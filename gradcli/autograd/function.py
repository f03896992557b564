"""Custom autograd Functions: `class F(autograd.Function)` with static forward/backward.

As in PyTorch, the `ctx` handed to forward and backward IS the graph node (`y.grad_fn`), an
instance of a class named `<F>Backward` made for each Function subclass.
"""

import functools

import numpy as np

from ..engine import messages
from ..engine.grad_mode import GradMode, no_grad
from ..engine.graph import AnomalyMode, Node, NodeRecorder, gradient_edge
from ..engine.saved import PackedTensor, SavedHooks, SavedOutput, SavedTensor
from ..engine.tangents import ForwardAD, Unbatchable, set_tangent
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass

LEGACY_FUNCTION = (
    "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
    "autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
NO_FORWARD = "You must implement the forward function for custom autograd.Function."
NO_BACKWARD = ("You must implement either the backward or vjp method for your custom "
               "autograd.Function to use it with backward mode AD.")
NO_JVP = ("You must implement the jvp function for custom autograd.Function to use it with "
          "forward mode AD.")
DIRTY_LEAF = "a leaf Variable that requires grad has been used in an in-place operation."
NON_TENSOR_GRAD = ("function {node} returned a gradient different than None at position {pos}, "
                   "but the corresponding forward input was not a Variable")
ONCE_DIFFERENTIABLE = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionCtx(metaclass=TorchClass):
    """What forward/setup_context may call on ctx."""

    _torch_name = "torch.autograd.function.FunctionCtx"

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for backward; read them back with `ctx.saved_tensors`."""
        _check_saveable(tensors)
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declare inputs that forward modified in place."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that have no gradient."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value


def _check_saveable(tensors):
    """What save_for_backward (or `ctx.to_save`, set by the program) may save: tensors and
    None."""
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is "
                            f"of type {type(t).__name__}")


class BackwardCFunction(Node, FunctionCtx):
    """The graph node (and ctx) of one call of a custom Function."""

    _torch_name = "torch.autograd.function.BackwardCFunction"
    _forward_cls = None

    def __init__(self):
        Node.__init__(self)
        self.next_functions = ()
        self.to_save = ()
        self.materialize_grads = True
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.needs_input_grad = ()
        self._saved = ()
        self._in_jvp = False
        self.saved_for_forward = ()
        self._released = False
        self._arg_is_tensor = ()
        self._input_meta = ()
        self._output_meta = ()
        self.num_outputs = 0

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"

    @property
    def saved_tensors(self):
        if self._released:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if self._in_jvp:
            return tuple(self.saved_for_forward)
        if self._saved is None:  # read during forward: nothing is packed yet
            return tuple(self.to_save)
        return tuple(None if s is None else
                     s.unpack_for(self) if isinstance(s, (SavedOutput, PackedTensor))
                     else s.unpack()
                     for s in self._saved)

    saved_variables = saved_tensors

    def release(self):
        self._released = True
        self._saved = ()

    def apply(self, grads):
        cls = self._forward_cls
        if self.materialize_grads:
            grads = [_zeros(meta) if g is None and meta is not None else g
                     for g, meta in zip(grads, self._output_meta)]
        result = _user_backward(cls)(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._arg_is_tensor)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(messages.FUNCTION_WRONG_GRAD_COUNT.format(
                    node=self.name(), expected=n, got=len(result)))
        out = []
        for pos, (g, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(NON_TENSOR_GRAD.format(node=self.name(), pos=pos + 1))
                continue
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            out.append(g)
        return [_validate(self, i, g, meta) if g is not None and self.next_functions[i][0]
                is not None else None for i, (g, meta) in enumerate(zip(out, self._input_meta))]


def _zeros(meta):
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype), None, 0, False)


def _validate(node, i, g, meta):
    """Reduce a gradient to its input's shape and cast it to its dtype (PyTorch's
    validate_outputs)."""
    from ..ops.nodes import _reduce_to
    shape, dtype = meta
    if g._data.shape != shape:
        g = _reduce_to(node, i, g, shape)
    if g.dtype is not dtype:
        g = g.to(dtype)
    return g


class FunctionMeta(TorchClass):
    """Gives every Function subclass its node class `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {
            "_forward_cls": cls, "_torch_name": f"torch.autograd.function.{name}Backward"})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom differentiable operations.

    Subclasses define static `forward(ctx, *args)` (or `forward(*args)` plus
    `setup_context(ctx, inputs, output)`) and `backward(ctx, *grad_outputs)`, and are called
    with `F.apply(*args)`.
    """

    _torch_name = "torch.autograd.function.Function"

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(LEGACY_FUNCTION)

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(NO_FORWARD)

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(NO_BACKWARD)

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(NO_JVP)

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward and, when an input requires grad, record a `<Name>Backward` node."""
        uses_setup = cls.setup_context is not Function.setup_context
        if kwargs:
            from inspect import signature  # (inspect: 18M instructions of start-up on 3.10)
            sig = signature(cls.forward)
            bound = sig.bind(*args, **kwargs) if uses_setup else sig.bind(None, *args, **kwargs)
            bound.apply_defaults()
            args = bound.args if uses_setup else bound.args[1:]
        return _apply(cls, args, uses_setup)


def _apply(cls, args, uses_setup):
    ctx = cls._backward_cls()
    grad_on = GradMode.enabled
    needs = tuple(isinstance(a, Tensor) and a.requires_grad_flag for a in args)
    executable = grad_on and any(needs)
    ctx.needs_input_grad = needs
    ctx._saved = None
    level = ForwardAD.level
    ForwardAD.level = None
    try:
        with no_grad():
            if uses_setup:
                raw = cls.forward(*args)
                cls.setup_context(ctx, args, raw)
            else:
                raw = cls.forward(ctx, *args)
    finally:
        ForwardAD.level = level
    is_tuple = isinstance(raw, tuple)
    outputs = list(raw) if is_tuple else [raw]
    raw_outputs = list(outputs)
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    input_ids = {id(a) for a in tensor_args}
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    if executable:
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx.next_functions = tuple(gradient_edge(a) if a.requires_grad_flag else (None, 0)
                                   for a in tensor_args)
        ctx._input_meta = tuple((a._data.shape, a.dtype) for a in tensor_args)
        ctx.num_outputs = len(outputs)
        ctx._output_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                                 for o in outputs)
    for nr, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            continue
        if id(o) in dirty:
            if executable and o.grad_fn is None and o.requires_grad_flag:
                raise RuntimeError(DIRTY_LEAF)
            o._counter[0] += 1
        elif id(o) in input_ids:
            o = outputs[nr] = _alias(o)
        if executable:
            # (an input returned as an output is marked by the input's identity)
            if id(raw_outputs[nr]) in non_diff or o._data.dtype.kind not in "fc":
                o.grad_fn, o._output_nr, o.requires_grad_flag = None, 0, False
            else:
                o.grad_fn, o._output_nr, o.requires_grad_flag = ctx, nr, True
    if executable:
        _check_saveable(ctx.to_save)
        ctx._saved = _pack_saved(ctx.to_save, outputs)
        ctx.to_save = None
        if NodeRecorder.callback is not None:
            NodeRecorder.callback(ctx, tensor_args, [o for o in outputs if isinstance(o, Tensor)])
        if AnomalyMode.enabled:
            ctx._anomaly = AnomalyMode.where(3)
    else:
        ctx._saved = ()  # PyTorch packs saved tensors only when it records a node
    if level is not None and any(a._fw is not None for a in tensor_args):
        _forward_tangents(cls, ctx, args, outputs)
    return tuple(outputs) if is_tuple else outputs[0]


def _alias(t):
    """An output that is an input (not marked dirty) becomes a view of it."""
    a = Tensor._make(t._data, None, 0, False)
    a._counter = t._counter
    a._base = t._base if t._base is not None else t
    return a


def _pack_saved(to_save, outputs):
    out_ids = {id(o): o for o in outputs if isinstance(o, Tensor)}
    if SavedHooks.stack:  # (saved_tensors_hooks)
        return tuple(None if t is None else
                     PackedTensor(t, output=id(t) in out_ids and t.grad_fn is not None)
                     for t in to_save)
    return tuple(None if t is None else SavedOutput(t) if id(t) in out_ids and t.grad_fn is not None
                 else SavedTensor(t) for t in to_save)


def _forward_tangents(cls, ctx, args, outputs):
    """Forward-mode AD through a custom Function: its `jvp(ctx, *tangents)`."""
    if ForwardAD.batch is not None:  # a user jvp is not known to accept batched tangents
        raise Unbatchable(cls.__name__)
    if cls.jvp is Function.jvp:
        raise NotImplementedError(NO_JVP)
    tangents = []
    for a in args:
        if not isinstance(a, Tensor):
            tangents.append(None)
        elif a._fw is not None:
            tangents.append(a._fw)
        else:
            tangents.append(Tensor._make(np.zeros_like(a._data), None, 0, False)
                            if ctx.materialize_grads else None)
    ctx._in_jvp = True
    level, ForwardAD.level = ForwardAD.level, None  # (PyTorch calls jvp with forward AD off:
    try:                                            # a dual tensor the ctx kept is its primal)
        result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        ForwardAD.level = level
    if not isinstance(result, tuple):
        result = (result,)
    if len(result) != len(outputs):
        raise RuntimeError(f"jvp() returned an invalid number of outputs (expected "
                           f"{len(outputs)}, got {len(result)})")
    for i, (o, t) in enumerate(zip(outputs, result)):
        if isinstance(o, Tensor) and t is not None and o._data.dtype.kind in "fc":
            set_tangent(o, _checked_tangent(o, t, i))


def _user_backward(cls):
    """The custom Function's backward, or its vjp (PyTorch's name for the same), as PyTorch's
    BackwardCFunction chooses."""
    backward, vjp = cls.backward, cls.vjp
    if vjp is Function.vjp:
        return backward
    if backward is not Function.backward:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                           "not allowed. You should only implement one of them.")
    return vjp


def _checked_tangent(output, tangent, i):
    """A tangent jvp() returned for an output, refused as PyTorch refuses it: a string, a list
    or a tensor of another shape would have been the output's tangent, for the ops after it to
    compute with (a tangent of a million elements on a tensor of two)."""
    if not isinstance(tangent, Tensor):
        raise RuntimeError(f"expected Variable or None (got {type(tangent).__name__}) for grad "
                           f"output {i}.")
    if tangent._data.shape != output._data.shape:
        from .forward_ad import SIZE_MISMATCH
        raise RuntimeError(SIZE_MISMATCH.format(primal=list(output._data.shape),
                                                tangent=list(tangent._data.shape)))
    if tangent._data.dtype.kind not in "fc":
        raise RuntimeError("Expected both tensor and its forward grad to be floating point or "
                           "complex")
    return tangent


def once_differentiable(fn):
    """Decorate a backward that cannot itself be differentiated (it runs under no_grad)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not (GradMode.enabled and any(isinstance(a, Tensor) and a.requires_grad for a in args)):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        edges = tuple(gradient_edge(a) for a in args if isinstance(a, Tensor) and a.requires_grad)
        wrapped = []
        for o in outs:
            if isinstance(o, Tensor):
                node = DelayedError(ONCE_DIFFERENTIABLE, edges)
                o = Tensor._make(o._data, node, 0, True)
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


class DelayedError(Node):
    """A node that raises when backward reaches it (once_differentiable's second derivative)."""

    __slots__ = ("msg",)

    def __init__(self, msg, edges):
        Node.__init__(self)
        self.msg = msg
        self.next_functions = edges

    def apply(self, grads):
        raise RuntimeError(self.msg)


__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]
