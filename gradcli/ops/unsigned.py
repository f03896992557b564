"""The CPU kernels PyTorch 2.13 lacks for its barebones unsigned types (uint16, uint32, uint64):
an op that would compute in one of them raises PyTorch's `"<kernel>" not implemented for
'UInt16'`, from this one table (found with the oracle: tests/ops/test_misc23_unsigned_oracle.py).

What an op computes in: for the ops whose dtype promotes (add, the comparisons, clamp with
numbers: a float operand makes them compute in float) the promoted dtype of their operands; for
the others (neg, flip, max, ...) their input's dtype.  mul, the bitwise ops, where, sort, cat,
the views and the copies have their kernels."""

import numbers

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor


def _clamp(op, inputs, attrs):
    """clamp(min, max) of numbers (None: no such bound), or of tensors (maximum/minimum)."""
    low, high = attrs if op.name == "clamp.default" else inputs[1:3]
    if low is None and high is None:
        return None  # (the op's own error)
    if op.name == "clamp.default":
        return ("clamp_scalar_cpu" if high is not None and low is not None else
                "clamp_min_scalar_cpu" if low is not None else "clamp_max_scalar_cpu")
    return "clamp_cpu" if high is not None and low is not None else \
        "maximum_cpu" if low is not None else "minimum_cpu"


def _div(op, inputs, attrs):
    """(true division computes in floats: only the rounding modes get here)"""
    return {"trunc": "div_trunc_cpu", "floor": "div_floor_cpu"}.get(attrs[0] if attrs else None)


def _count_nonzero(op, inputs, attrs):
    """(over a dim it has its kernel)"""
    return "nonzero_count_cpu" if not attrs or attrs[0] is None else None


def _inner(op, inputs, attrs):
    return "dot" if inputs[0].dim() == 1 and inputs[1].dim() == 1 else "addmm_impl_cpu_"


def _scatter_reduce(op, inputs, attrs):
    reduce, include_self = attrs[2:4]
    if not include_self:
        return "scatter_reduce_exclude_input_init"
    return "scatter_gather_tensor_cpu" + (f"_reduce_{reduce}" if reduce in ("mean", "amax",
                                                                             "amin") else "")


# op name (or the name before its overload's `.`) -> the kernel PyTorch has not, or a function
# of the call that names it (None: the call reaches no such kernel)
KERNELS = {
    # ops whose dtype promotes
    "add": "add_stub", "sub": "add_stub", "rsub": "add_stub", "dist": "add_stub",
    "addcmul": "addcmul_cpu_out", "clamp": _clamp, "clamp_max": "minimum_cpu",
    "clamp_min": "maximum_cpu", "clamp_min.default": "clamp_min_scalar_cpu",
    "clamp_max.default": "clamp_max_scalar_cpu", "div": _div,
    "floor_divide": "div_floor_cpu", "fmod": "fmod_cpu", "hypot": "hypot_cpu",
    "logaddexp": "logaddexp_cpu", "logaddexp2": "logaddexp2_cpu", "maximum": "maximum_cpu",
    "minimum": "minimum_cpu", "pow": "pow", "remainder": "remainder_cpu",
    "lt": "lt_cpu", "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu",
    "logical_and": "logical_and_cpu", "logical_or": "logical_or_cpu",
    "logical_xor": "logical_xor_cpu", "heaviside": "heaviside_cpu",
    # ops that compute in their input's dtype
    "neg": "neg_cpu", "abs": "abs_cpu", "sign": "sign_cpu", "sgn": "sign_cpu",
    "flip": "flip_cpu", "bitwise_not": "bitwise_not_cpu", "logical_not": "logical_not_cpu",
    "max.default": "max_all", "min.default": "min_all", "max.dim": "max_cpu",
    "min.dim": "min_cpu", "argmax": "argmax_cpu", "argmin": "argmin_cpu",
    "amax": "max_values_cpu", "amin": "min_values_cpu", "aminmax": "aminmax_cpu",
    "topk": "topk_cpu", "kthvalue": "kthvalue_cpu", "median.default": "median_cpu",
    "nanmedian.default": "median_cpu", "median.dim": "median_out", "nanmedian.dim": "median_out",
    "mode": "mode_cpu", "cummax": "cummax_cpu", "cummin": "cummin_cpu",
    "logcumsumexp": "logcumsumexp_out_cpu", "tril": "tril", "triu": "triu", "trace": "trace",
    "masked_fill": "masked_fill", "masked_select": "masked_select",
    "masked_scatter": "masked_scatter", "index_select": "index_select",
    "gather": "scatter_gather_tensor_cpu", "count_nonzero": _count_nonzero,
    "dot": "dot", "vdot": "dot", "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_",
    "mv": "addmv_impl_cpu", "bmm": "bmm", "inner": _inner, "lerp.Scalar": "lerp_kernel_scalar",
    "lerp.Tensor": "lerp_kernel_tensor", "cross": "cross", "relu": "clamp_min_scalar_cpu",
    "hardtanh": "clamp_scalar_cpu", "threshold": "threshold_cpu",
    "hardshrink": "hardshrink_cpu", "softshrink": "softshrink_check", "elu": "elu_cpu",
    "selu": "elu_cpu", "celu": "elu_cpu", "gelu": "GeluKernelImpl", "silu": "silu_cpu",
    "softplus": "softplus_cpu", "leaky_relu": "leaky_relu_cpu", "mish": "mish_cpu",
    "glu": "glu_cpu", "hardswish": "hardswish_cpu", "hardsigmoid": "hardsigmoid_cpu",
    "log_sigmoid": "log_sigmoid_cpu", "prelu": "prelu_cpu",
    "index_put": "index_put", "index_fill": "index_fill_cpu", "index_add": "index_add_",
    "index_copy": "index_copy_cpu", "scatter.src": "scatter_gather_tensor_cpu",
    "scatter.value": "scatter_gather_scalar_cpu", "scatter_add": "scatter_gather_tensor_cpu",
    "scatter_reduce": _scatter_reduce, "masked_scatter_": "masked_scatter",
    # plain functions, of an input tensor
    "nonzero": "nonzero_count_cpu", "argwhere": "nonzero_count_cpu",
}

# the ops above that compute in their operands' promoted dtype although their rule is not
# "promote" (a comparison's result is bool, clamp's numbers are attributes)
_PROMOTING = frozenset(("lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                        "clamp.default", "clamp.Tensor", "clamp_min.default",
                        "clamp_max.default"))


def kernel_entry(name):
    return KERNELS.get(name) or KERNELS.get(name.split(".")[0])


def is_wide(np_dtype):
    return np_dtype.kind == "u" and np_dtype.itemsize > 1


def check(op, inputs, attrs, dtype=None):
    """Raise PyTorch's NotImplementedError if op (an Op of the table) computes in a wide
    unsigned dtype on these inputs; dtype: the promoted one, when the caller has it."""
    entry = kernel_entry(op.name)
    if entry is None:
        return
    if dtype is None:
        tensors = [x for x in inputs if isinstance(x, Tensor)]
        if not tensors:
            return
        if op.dtype_rule == "promote" or op.name in _PROMOTING:
            # (clamp's bounds are attributes; another op's, such as add's alpha, promote not)
            operands = (*inputs, *attrs) if op.name in _PROMOTING else inputs
            scalars = [x for x in operands if isinstance(x, numbers.Number)]
            dtype = dtypes.result_type(tensors, scalars).np
        else:
            dtype = tensors[0]._data.dtype
    if not is_wide(dtype):
        return
    kernel = entry(op, inputs, attrs) if callable(entry) else entry
    if kernel is not None:
        raise not_implemented(kernel, dtype)


def _any_wide(inputs):
    for x in inputs:
        if isinstance(x, Tensor) and is_wide(x._data.dtype):
            return True
    return False


def refusing_composed(op):
    """A composite op's apply, refusing what its kernel does not compute: after the ops it is
    made of ran, or in place of the refusal of one of them (which names its own kernel)."""
    apply = op.apply

    def checked_apply(inputs, attrs):
        wide = _any_wide(inputs)
        try:
            result = apply(inputs, attrs)
        except NotImplementedError:
            if wide:
                check(op, inputs, attrs)
            raise
        if wide:
            check(op, inputs, attrs)
        return result
    return checked_apply


def refusing_plain(name, fn):
    """A plain function of the table (fn(input, ...)), refusing a wide unsigned input (after
    the call, as refusing)."""
    kernel = KERNELS[name]

    def checked(*args, **kwargs):
        result = fn(*args, **kwargs)
        first = args[0] if args else kwargs.get("input")
        if isinstance(first, Tensor) and is_wide(first._data.dtype):
            raise not_implemented(kernel, first._data)
        return result
    checked.__name__, checked.__doc__ = getattr(fn, "__name__", name), fn.__doc__
    checked.__wrapped__ = fn
    return checked
