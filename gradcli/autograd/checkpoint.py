"""torch.utils.checkpoint (gradcli.utils): `checkpoint(function, *args, use_reentrant=...)` and
`checkpoint_sequential`, with PyTorch's results, nodes and warnings.

The reentrant form (use_reentrant=True, and PyTorch 2.13's default, with its warning) runs the
function without a graph and records one `CheckpointFunctionBackward` node, whose backward runs
the function again (from the random state of the first run) and backpropagates through it.  The
non-reentrant form gives the function's own graph (PyTorch frees and recomputes its saved tensors
behind it, which changes no value: gradcli keeps them)."""

import warnings

from .function import Function
from ..engine import callables
from ..engine.grad_mode import enable_grad, no_grad, GradMode
from ..engine.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_USE_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_NO_INPUT_GRAD = "None of the inputs have requires_grad=True. Gradients will be None"
_NOT_VALID = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
              "passing an `inputs` parameter to .backward(). To resolve this error, you can "
              "either set use_reentrant=False, or call .backward() without passing the `inputs` "
              "argument.")


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        from ..ops.creation import get_rng_state
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        # (the tensors saved, as PyTorch saves them: an input written in place before the
        # backward pass, or a second backward pass, is refused, never recomputed from)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..engine.autograd import Checkpointing, backward
        if not Checkpointing.valid:
            raise RuntimeError(_NOT_VALID)
        from ..ops.creation import get_rng_state, set_rng_state
        saved = iter(ctx.saved_tensors)
        inputs = [a if a is not None else next(saved) for a in ctx.inputs]
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in inputs]
        state = get_rng_state() if ctx.rng_state is not None else None
        if state is not None:
            set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if state is not None:
                set_rng_state(state)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) else None for a in inputs))


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), its intermediate results recomputed in the backward pass.
    (function, a program's, is called as the program's own call of it would be: `int` of a
    string of hex digits is metered, as callables.checked makes it.)"""
    function = callables.checked(function)
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT, UserWarning, stacklevel=2)
        use_reentrant = True
    if not use_reentrant:
        return function(*args, **kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if GradMode.enabled and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run the modules (or functions) in segments, each checkpointed; the last one plainly."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT, UserWarning, stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    functions = [callables.checked(f) for f in functions]
    size = len(functions) // segments
    end = -1

    def run(start, stop):
        def forward(x):
            for j in range(start, stop + 1):
                x = functions[j](x)
            return x
        return forward
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
