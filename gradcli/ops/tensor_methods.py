"""The Tensor methods that are not one op of the table: dtype conversions, in-place random
fills, `new_*` factories, and the properties and methods shape.py and indexing.py write by
hand (`T`, `mT`, item assignment, `broadcast_to`).  gradcli.ops.install() gives them to Tensor with the rest,
through the engine's one way in (engine.tensor.install_attribute)."""

import math

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.dtypes import dtype as _dtype_cls
from ..engine.tensor import Tensor
from ..engine.torch_classes import Device
from .numerics import fused


def to(self, *args, **kwargs):
    """Convert to a dtype (devices other than cpu are refused); returns self if unchanged."""
    target = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, _dtype_cls):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
        else:
            Device(a)
    if "device" in kwargs:
        Device(kwargs["device"])
    if target is None or (target is self.dtype and not copy):
        return self
    return self.to_dtype(target)


def _caster(d):
    def cast(self, memory_format=None):
        return self.to(d)
    return cast


def check_floating(dtype, kernel, refused="biu"):
    """PyTorch's refusal of a random kernel for integer and bool tensors (refused "biuc": and
    complex ones, for the kernels of real values only)."""
    if np.dtype(dtype).kind in refused:
        raise not_implemented(kernel, np.dtype(dtype))


def uniform_values(data, a, b, generator=None, name="uniform_"):
    """Uniform samples in [a, b) for the elements of the array data, drawn as PyTorch's uniform_
    draws them (in the array's precision: x * (b - a) + a)."""
    from .creation import generator_of
    dtype = data.dtype
    if dtype.kind == "c":  # (PyTorch's: its real view's 2n elements, as complex)
        real = np.empty(2 * data.size, data.real.dtype)
        return uniform_values(real, a, b, generator, name).view(dtype)
    check_floating(dtype, "check_uniform_bounds")
    largest = float(np.finfo(dtype).max)  # (PyTorch's check_uniform_bounds, in its order)
    for value, bound in ((a, "from"), (b, "to")):
        if not -largest <= value <= largest:
            raise RuntimeError(f"{bound} is out of bounds for {dtypes.cpp_name(dtype)}")
    if not a <= b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={float(a):g} > to={float(b):g}")
    if not float(b) - float(a) <= largest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{dtypes.short_name(dtype)}>::max(), but found to={float(b):g} and "
                           f"from={float(a):g} which result in to-from to exceed the limit")
    x = generator_of(generator, name)._uniform(data.size, dtype).astype(dtype)
    if a == 0 and b == 1:
        return x
    a, b = dtype.type(a), dtype.type(b)
    return fused(x, b - a, a)  # (PyTorch's kernel: x * (b - a) + a, fused)


def normal_values(data, mean, std, generator=None, name="normal_"):
    """Normal samples for the elements of the array data, drawn as torch.randn draws them, times
    std plus mean."""
    from .creation import generator_of
    dtype = data.dtype
    if dtype.kind == "c":  # (PyTorch's: its real view's 2n elements, std / sqrt(2) each)
        real = np.empty(2 * data.size, data.real.dtype)
        return normal_values(real, mean, std / math.sqrt(2), generator, name).view(dtype)
    check_floating(dtype, "normal_kernel_cpu")
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
    # (below 16 elements double normals, with mean and std applied in double too)
    x = generator_of(generator, name)._normal_fill(data.size, dtype)
    if mean == 0 and std == 1:
        return x.astype(dtype)
    # PyTorch's kernels: normal * std + mean, fused
    return fused(x, x.dtype.type(std), x.dtype.type(mean)).astype(dtype)


def fill_values(tensor, values):
    """Write values into tensor's array in place (one version bump), outside autograd (an
    expanded tensor's elements share memory: PyTorch's error, as other in-place ops give)."""
    data = tensor._data
    if not data.flags.writeable:
        from . import _expanded_target
        data = _expanded_target(data, "random")
    data[...] = values.reshape(data.shape)
    tensor._counter[0] += 1
    return tensor


def new_tensor(self, data, dtype=None, requires_grad=False):
    from .creation import tensor
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_filler(fill):
    def make(self, *size, dtype=None, requires_grad=False):
        from .creation import full
        return full(size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size,
                    fill, dtype=dtype or self.dtype, requires_grad=requires_grad)
    return make


def new_full(self, size, fill_value, dtype=None, requires_grad=False):
    from .creation import full
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def hand_written(first_use):
    """{name: attribute} of the Tensor methods and properties written by hand.  first_use(name,
    make): the attribute made at its first use by make() (ops._FirstUse), for those of
    gradcli.ops.indexing, which loads at its first use (gradcli.ops.lazy)."""
    from . import shape

    def indexing(name):
        def make():
            from .lazy import load
            load("indexing")
            from . import indexing
            return getattr(indexing, name)
        return make
    methods = {"to": to, "new_tensor": new_tensor, "new_zeros": _new_filler(0),
               "new_ones": _new_filler(1), "new_empty": _new_filler(0), "new_full": new_full,
               "T": property(shape._T), "mT": property(shape._mT),
               "__setitem__": first_use("__setitem__", indexing("_setitem")),
               "broadcast_to": first_use("broadcast_to", indexing("_broadcast_to_method"))}
    for name, d in [("float", dtypes.float32), ("double", dtypes.float64),
                    ("half", dtypes.float16), ("long", dtypes.int64), ("int", dtypes.int32),
                    ("bool", dtypes.bool_), ("short", dtypes.int16), ("char", dtypes.int8),
                    ("byte", dtypes.uint8)]:
        methods[name] = _caster(d)
    return methods
