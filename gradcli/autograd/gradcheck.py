"""gradcheck and gradgradcheck: analytical derivatives (reverse mode, and forward mode when asked)
against central finite differences, with PyTorch's messages (its "slow mode")."""

import warnings

import numpy as np

from ..engine.autograd import grad as _grad
from ..engine.tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "get_numerical_jacobian",
           "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


GradcheckError.__module__ = "torch.autograd.gradcheck"  # as PyTorch's class prints


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if isinstance(o, Tensor) and o.requires_grad)


def _diff_inputs(inputs):
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs):
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype.name not in ("float64", "complex128"):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point "
                    "or complex. This check will likely fail if all the inputs are not of double "
                    "precision floating point or complex. ", UserWarning, stacklevel=4)
            if any(st == 0 and sz > 1 for st, sz in zip(inp._data.strides, inp._data.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before passing "
                    "it to gradcheck.")
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _tensor(arr):
    return Tensor._make(arr, None, 0, False)


def _numerical_jacobian(func, inputs, outputs, eps):
    """jac[i][j]: (numel of input j, numel of output i), by central differences, for every output
    (PyTorch computes it for all outputs, then keeps the differentiable ones)."""
    outputs = [o for o in _as_tuple(outputs) if isinstance(o, Tensor)]
    diff = _diff_inputs(inputs)
    jac = [[np.zeros((x._data.size, o._data.size), o._data.dtype) for x in diff] for o in outputs]

    def evaluate():
        out = _as_tuple(func(*inputs))
        return [o._data.copy() for o in out if isinstance(o, Tensor)]

    for j, x in enumerate(diff):
        data = x._data
        for k in range(data.size):
            idx = np.unravel_index(k, data.shape)
            orig = data[idx].copy()
            data[idx] = orig - eps
            outa = evaluate()
            data[idx] = orig + eps
            outb = evaluate()
            data[idx] = orig
            for i, (a, b) in enumerate(zip(outa, outb)):
                jac[i][j][k] = ((b - a) / (2 * eps)).reshape(-1)
    return jac


def _analytical_jacobian_reverse(inputs, output):
    """One row per output element: the gradient of that element, by autograd.grad."""
    diff = _diff_inputs(inputs)
    jac = [np.zeros((x._data.size, output._data.size), x._data.dtype) for x in diff]
    for k in range(output._data.size):
        g = np.zeros(output._data.size, output._data.dtype)
        g[k] = 1
        grads = _grad(output, diff, _tensor(g.reshape(output._data.shape)), retain_graph=True,
                      allow_unused=True)
        for j, gi in enumerate(grads):
            if gi is not None:
                if gi._data.shape != diff[j]._data.shape:
                    raise GradcheckError("Analytical gradient has incorrect size")
                jac[j][:, k] = gi._data.reshape(-1)
    return jac


def _analytical_jacobian_forward(func, inputs):
    """jac[j][i] (numel of input j, numel of output i) column by column with dual tensors."""
    from . import forward_ad as fwAD
    diff_pos = [p for p, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    jac = None
    for j, p in enumerate(diff_pos):
        x = inputs[p]
        for k in range(x._data.size):
            with fwAD.dual_level():
                duals = list(inputs)
                for q in diff_pos:
                    t = np.zeros_like(inputs[q]._data)
                    if q == p:
                        t.reshape(-1)[k] = 1
                    duals[q] = fwAD.make_dual(inputs[q].detach(), _tensor(t))
                outs = [o for o in _as_tuple(func(*duals)) if isinstance(o, Tensor)]
                if jac is None:
                    jac = [[np.zeros((inputs[q]._data.size, o._data.size), o._data.dtype)
                            for o in outs] for q in diff_pos]
                for i, o in enumerate(outs):
                    tangent = fwAD.unpack_dual(o).tangent
                    if tangent is not None:
                        jac[j][i][k] = tangent._data.reshape(-1)
    return jac


def _allclose(a, n, rtol, atol):
    dt = np.result_type(a.dtype, n.dtype)
    return np.allclose(a.astype(dt), n.astype(dt), rtol=rtol, atol=atol, equal_nan=False)


def _mismatch(a, n, i, j, forward):
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{_tensor(n)}\nanalytical:{_tensor(a)}\n")


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, nondet_tol, forward):
    func_out = _as_tuple(func_out)
    if not outputs:
        for per_output in _numerical_jacobian(func, inputs, func_out, eps):
            for jac in per_output:
                if (jac != 0).any():
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    tensor_outs = [o for o in func_out if isinstance(o, Tensor)]
    numerical = [nj for o, nj in zip(tensor_outs, _numerical_jacobian(func, inputs, func_out, eps))
                 if o.requires_grad]
    if forward:
        analytical = _analytical_jacobian_forward(func, inputs)
        diff_outs = [k for k, o in enumerate(tensor_outs) if o.requires_grad]
        for i, n_per_out in enumerate(numerical):
            for j, n in enumerate(n_per_out):
                a = analytical[j][diff_outs[i]]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_mismatch(a, n, i, j, True))
        return True
    for i, o in enumerate(outputs):
        first = _analytical_jacobian_reverse(inputs, o)
        second = _analytical_jacobian_reverse(inputs, o)
        for a, b in zip(first, second):
            same = (np.allclose(a, b, rtol=0, atol=nondet_tol) if nondet_tol
                    else np.array_equal(a, b, equal_nan=True))
            if not same:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient."
                    f"The tolerance for nondeterminism was {nondet_tol}.")
        for j, (a, n) in enumerate(zip(first, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j, False))
    return True


def _check_undefined_grad(func, inputs):
    """Backward with all-zero output gradients must give zero (or no) input gradients."""
    diff = _diff_inputs(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if not outputs:
        return
    zeros = [_tensor(np.zeros_like(o._data)) for o in outputs]
    try:
        grads = _grad(outputs, diff, zeros, allow_unused=True)
    except RuntimeError as e:
        raise GradcheckError(
            "Expected backward function to handle undefined output grads. Please look at "
            '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"') from e
    for g in grads:
        if g is not None and (g._data != 0).any():
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"')


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_forward_ad, check_backward_ad):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, nondet_tol, False)
    if check_forward_ad:
        _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, nondet_tol, True)
    if check_backward_ad and check_undefined_grad:
        _check_undefined_grad(func, inputs)
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Check the analytical Jacobian of func at inputs against central finite differences.

    Returns True, or raises GradcheckError (returns False with raise_exception=False).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to "
                             "be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                          check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the backward pass of func (with respect to the
    inputs and to the output gradients)."""
    from ..engine import dtypes
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outputs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(
            _tensor(rng.uniform(-1, 1, o._data.shape).astype(
                o._data.dtype if o.dtype.is_floating_point or o.dtype.is_complex
                else dtypes.float64.np)).requires_grad_(True) for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_input_idx = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_idx = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_idx else x
                           for i, x in enumerate(args[:-n_out]))
        outputs = _differentiable_outputs(func(*input_args))
        gouts = tuple(x.requires_grad_() if i in diff_grad_idx else x
                      for i, x in enumerate(args[-n_out:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_idx)
        grads = _grad(outputs, diff_args, gouts, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """The finite-difference Jacobian blocks (numel of input, numel of output) of fn's first
    output (deprecated in PyTorch, kept for scripts)."""
    inputs = _as_tuple(inputs)
    out = fn(*inputs)
    return tuple(_tensor(j * grad_out) for j in _numerical_jacobian(fn, inputs, out, eps)[0])


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """The autograd Jacobian blocks of output with respect to inputs."""
    jac = _analytical_jacobian_reverse(_as_tuple(inputs), output)
    return tuple(_tensor(j * grad_out) for j in jac), True, True, True
