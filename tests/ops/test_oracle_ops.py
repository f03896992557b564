"""Every op of the table on every sample, against PyTorch: forward values, output dtype,
grad_fn name and the gradients of sum((y * v)) with respect to each input, in float32 and
float64.  Op names map to torch callables generically: `torch.<name>`, else the Tensor method,
`torch.linalg.<rest>` for `linalg_<rest>`, the reflected operator for `rsub`/`rdiv`-like ops,
the public name for overload members, and `torch.ops.aten.<name>` for internal ops."""

import operator
import warnings

import numpy as np
import pytest

import gradcli
from gradcli.ops import OPERATORS
from checks import (as_input, call, cases, differentiable_positions, ids, overload_of,
                    rng_for, sample_arrays)

from golden import torch_module

torch = torch_module()  # (None without torch: its answers are the golden ones)

SPELLED_DIFFERENTLY = {
    "getitem": operator.getitem,
    "to_dtype": lambda x, dtype: torch.ops.aten._to_copy(x, dtype=dtype),
    # the scatter family's ops take src before the attributes, torch's functions after them
    "scatter.src": lambda self, src, dim, index: torch.scatter(self, dim, index, src),
    "scatter.value": lambda self, dim, index, value: torch.scatter(self, dim, index, value),
    "scatter_add.default": lambda self, src, dim, index: torch.scatter_add(self, dim, index, src),
    "scatter_reduce.two": lambda self, src, dim, index, reduce, include_self=True:
        torch.scatter_reduce(self, dim, index, src, reduce, include_self=include_self),
    "_cdist": lambda x1, x2, p=2.0, compute_mode=None: torch.cdist(x1, x2, p),
    # the normalizations' ops take the tensors first, torch.nn.functional's calls do not
    "native_layer_norm": lambda input, weight, bias, normalized_shape, eps=1e-5:
        torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps),
    "native_batch_norm": lambda input, weight, bias, running_mean, running_var, training,
    momentum, eps: torch.nn.functional.batch_norm(
        input, _stats(running_mean, input), _stats(running_var, input), weight, bias, training,
        momentum, eps),
    "native_group_norm": lambda input, weight, bias, N, C, HxW, group, eps:
        torch.group_norm(input, group, weight, bias, eps),
    "_pack_padded_sequence": lambda input, lengths, batch_first:
        torch.ops.aten._pack_padded_sequence(input, torch.tensor(lengths), batch_first)[0],
    "_adaptive_max_pool2d": lambda self, output_size:
        torch.ops.aten.adaptive_max_pool2d(self, output_size),
    "_adaptive_max_pool3d": lambda self, output_size:
        torch.ops.aten.adaptive_max_pool3d(self, output_size),
    # torch.normal's and torch.bernoulli's overloads, declared apart (distributions.py)
    "normal.Tensor_Tensor": lambda mean, std: torch.normal(mean, std),
    "normal.Tensor_float": lambda mean, std=1.0: torch.normal(mean, std),
    "normal.float_Tensor": lambda std, mean=0.0: torch.normal(mean, std),
    "bernoulli.default": lambda p: torch.bernoulli(p),
    "bernoulli_.float": lambda self, p=0.5: (self * 1).bernoulli_(p),
    "bernoulli_.Tensor": lambda self, p: (self * 1).bernoulli_(p),
    # Tensor.uniform_'s and normal_'s ops (aten's functional forms record no node of theirs)
    "uniform": lambda self, *bounds, **kwargs: (self * 1).uniform_(*bounds, **kwargs),
    "normal_functional": lambda self, *args, **kwargs: (self * 1).normal_(*args, **kwargs)}


def _stats(values, like):
    """A sample's running statistics (gradcli tensors) as torch's, or None."""
    return None if values is None else torch.tensor(values.tolist(), dtype=like.dtype)


REFLECTED_OPERATORS = {name: dunder for dunder, (name, reflected) in OPERATORS.items()
                       if not reflected}
TOLERANCES = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-7, atol=1e-10)}
GRAD_TOLERANCES = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-10)}


def public_name(op):
    if op.public:
        return op.name
    overload = overload_of(op)
    return overload.name if overload is not None else op.name


def _method(name):
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def torch_callable(op):
    """(callable, internal): the torch spelling of op; internal ops (no public gradcli name) map
    to aten and may have no compatible torch call."""
    name = public_name(op)
    internal = not op.public and overload_of(op) is None
    if name in SPELLED_DIFFERENTLY:
        return SPELLED_DIFFERENTLY[name], internal
    if name.startswith("linalg_") and hasattr(torch.linalg, name[7:]):
        return getattr(torch.linalg, name[7:]), False
    if hasattr(torch, name) and callable(getattr(torch, name)):
        return getattr(torch, name), internal
    if hasattr(torch.Tensor, name):
        return _method(name), internal
    if name in REFLECTED_OPERATORS and hasattr(torch.Tensor, REFLECTED_OPERATORS[name]):
        return _method(REFLECTED_OPERATORS[name]), False
    if hasattr(torch.ops.aten, name):
        return getattr(torch.ops.aten, name), True
    return None, True


def torch_value(value):
    if isinstance(value, gradcli.dtype):
        return getattr(torch, str(value).split(".")[-1])
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    if isinstance(value, tuple):
        return tuple(torch_value(v) for v in value)
    return value


def call_torch(fn, op, inputs, attrs):
    """Attributes by keyword, else by position (defaults filled in up to the last one given);
    list attributes (indices, masks) as given, else as tensors, as torch requires."""
    args = [list(inputs)] if op.variadic else list(inputs)
    attrs = {k: torch_value(v) for k, v in attrs.items()}
    as_tensors = {k: torch.tensor(v) if isinstance(v, list) else v for k, v in attrs.items()}
    has_lists = any(isinstance(v, list) for v in attrs.values())
    attempts = [attrs, as_tensors] if has_lists else [attrs]
    calls = [lambda a=a: fn(*args, **a) for a in attempts]
    if attrs:
        last = max(op.attr_names.index(k) for k in attrs)
        names = list(zip(op.attr_names[:last + 1], op.attr_defaults))
        calls += [lambda a=a: fn(*args, *[a.get(n, d) for n, d in names]) for a in attempts]
    first_error = None
    for attempt in calls:
        try:
            return attempt()
        except (TypeError, RuntimeError) as e:
            first_error = first_error or e
    raise first_error


def tensors_in(result, cls):
    if isinstance(result, cls):
        return [result]
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in tensors_in(r, cls)]
    return []


def run(lib, op, sample, dtype, fn=None):
    """Call op on the sample with lib; return (outputs, gradients wrt each differentiable input
    of sum(y * v) over the float outputs, the warnings' messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outputs, grads = _run(lib, op, sample, dtype, fn)
    return outputs, grads, [str(w.message) for w in caught]


def _run(lib, op, sample, dtype, fn):
    positions = differentiable_positions(op, sample)
    lib_dtype = getattr(lib, dtype)
    inputs = [as_input(lib, a, lib_dtype, i in positions)
              for i, a in enumerate(sample_arrays(op, sample))]
    if op.random:  # (seeded as checks.call seeds gradcli)
        lib.manual_seed(0)
    result = call(op, inputs, sample.attrs) if lib is gradcli else call_torch(fn, op, inputs,
                                                                                 sample.attrs)
    outputs = tensors_in(result, lib.Tensor)
    rng = rng_for(op, sample, "oracle")
    total = None
    for y in outputs:
        if y.requires_grad:
            v = lib.tensor(rng.standard_normal(tuple(y.shape)), dtype=y.dtype)
            term = (y * v).sum()
            total = term if total is None else total + term
    wrt = [inputs[i] for i in positions]
    grads = [None] * len(wrt)
    if total is not None:
        grads = lib.autograd.grad(total, wrt, allow_unused=True)
    return outputs, grads


def _array(t):
    return np.asarray(t.detach().tolist(), dtype=None if str(t.dtype).endswith(".bool")
                      else np.float64)


def _grad_fn(t):
    fn = t.grad_fn
    if fn is None:
        return None
    return fn.name() if isinstance(t, gradcli.Tensor) else type(fn).__name__


ONCE = "(Triggered internally at"  # PyTorch's C++ warnings: most are emitted once per process
SEEN = {"gradcli": set(), "torch": set()}


def assert_same_warnings(got, expected, what):
    """Python-level warnings must match call for call; a C++ warning needs only to have been
    emitted by the other library in this call or an earlier one."""
    SEEN["gradcli"].update(got)
    SEEN["torch"].update(expected)
    assert [w for w in got if ONCE not in w] == [w for w in expected if ONCE not in w], (
        f"{what}: warnings")
    for w in got:
        assert ONCE not in w or w in SEEN["torch"], f"{what}: torch does not warn {w!r}"
    for w in expected:
        assert ONCE not in w or w in SEEN["gradcli"], f"{what}: gradcli does not warn {w!r}"


CASES = cases()


def torch_answer(torch_module, op, sample, dtype):
    """What torch does with the sample, as plain data: its outputs (shape, dtype, values,
    grad_fn), the gradients and the warnings, or the error it raises."""
    assert torch_module is torch
    fn, internal = torch_callable(op)
    if fn is None:
        return {"missing": True}
    try:
        outputs, grads, warned = run(torch, op, sample, dtype, fn)
    except (TypeError, RuntimeError, IndexError, ValueError) as e:
        return {"error": [type(e).__name__, str(e)], "internal": internal}
    return {"outputs": [(tuple(t.shape), str(t.dtype), _array(t), _grad_fn(t)) for t in outputs],
            "grads": [None if g is None else (str(g.dtype), _array(g)) for g in grads],
            "warnings": warned}


def without_cpp_warnings(answer):
    """The answer but the C++ warnings, which PyTorch gives once per process (whether this
    call gives one depends on what ran before it)."""
    if "warnings" not in answer:
        return answer
    return dict(answer, warnings=[w for w in answer["warnings"] if ONCE not in w])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, sample", CASES, ids=ids(CASES))
def test_op_matches_pytorch(op, sample, dtype, oracle):
    answer = oracle(lambda torch_module: torch_answer(torch_module, op, sample, dtype),
                    stable=without_cpp_warnings)
    if answer.get("missing"):
        pytest.skip(f"{op.name} has no torch counterpart")
    what = f"{op.name}-{sample!r} ({dtype})"
    if "error" in answer:
        kind, message = answer["error"]
        if answer["internal"]:
            pytest.skip(f"internal op {op.name}: no compatible torch call ({message})")
        with pytest.raises(Exception) as raised:
            run(gradcli, op, sample, dtype)
        assert type(raised.value).__name__ == kind and str(raised.value) == message, \
            f"{what}: torch raises {kind}: {message}"
        pytest.fail(f"{what}: the sample is invalid in torch ({kind}: {message})")
    got, got_grads, got_warnings = run(gradcli, op, sample, dtype)
    expected = answer["outputs"]
    assert len(got) == len(expected), f"{what}: {len(got)} outputs, torch gives {len(expected)}"
    for k, (y, (shape, t_dtype, t_value, t_grad_fn)) in enumerate(zip(got, expected)):
        assert tuple(y.shape) == tuple(shape), f"{what} output {k}: shape"
        assert str(y.dtype) == t_dtype, f"{what} output {k}: dtype"
        np.testing.assert_allclose(_array(y), t_value, **TOLERANCES[dtype],
                                   err_msg=f"{what} output {k}: value")
        assert _grad_fn(y) == t_grad_fn, f"{what} output {k}: grad_fn"
    for k, (g, t) in enumerate(zip(got_grads, answer["grads"])):
        assert (g is None) == (t is None), f"{what}: gradient of input {k} is {g}, torch's {t}"
        if g is not None:
            t_dtype, t_value = t
            assert str(g.dtype) == t_dtype, f"{what}: dtype of the gradient of input {k}"
            np.testing.assert_allclose(_array(g), t_value, **GRAD_TOLERANCES[dtype],
                                       err_msg=f"{what}: gradient of input {k}")
    assert_same_warnings(got_warnings, answer["warnings"], what)
