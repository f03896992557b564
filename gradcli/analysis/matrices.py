"""Jacobians and Hessians of a program with respect to its --at inputs."""

from ..engine.tensor import Tensor
from .evaluate import Discard, UsageError, program_function



def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def jacobian_blocks(source, bindings, of, mode, dtype, timeout):
    """[((output, input), J)] for every output and input; mode "reverse" or "forward"."""
    from ..autograd.functional import jacobian
    fn, inputs, outputs = program_function(source, bindings, of, dtype, timeout, Discard())
    strategy = "forward-mode" if mode == "forward" else "reverse-mode"
    jac = jacobian(fn, inputs, strategy=strategy, vectorize=mode == "forward")
    blocks = []
    rows = jac if len(outputs) > 1 else (jac,)
    for out_name, row in zip(outputs, rows):
        for b, block in zip(bindings, row):
            blocks.append(((out_name, b.name), block))
    return outputs, blocks


def hessian_blocks(source, bindings, of, dtype, timeout):
    """[((output, input_a, input_b), H)] for a scalar output."""
    from ..autograd.functional import hessian
    fn, inputs, outputs = program_function(source, bindings, of, dtype, timeout, Discard())
    if len(outputs) != 1:
        raise UsageError("hessian takes one output (--of NAME)")
    probe = fn(*inputs)
    if isinstance(probe, Tensor) and probe.numel() != 1:
        raise UsageError(f"hessian needs a scalar output; {outputs[0]} has shape "
                         f"{list(probe.shape)} (reduce it, e.g. .sum())")
    hes = hessian(fn, inputs)
    blocks = []
    for a, row in zip(bindings, hes):
        for b, block in zip(bindings, row):
            blocks.append(((outputs[0], a.name, b.name), block))
    return outputs, blocks
