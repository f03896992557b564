"""torch.finfo and torch.iinfo: the numerical properties of a dtype, as PyTorch shows them."""

import math

import numpy as np

from . import dtypes
from .torch_classes import TorchClass


def _dtype_of(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtype


class finfo(metaclass=TorchClass):
    """Machine limits of a floating-point dtype: eps, max, min, tiny, resolution, bits."""

    _torch_name = "torch.finfo"

    def __init__(self, type=None):  # noqa: A002  (PyTorch's parameter name)
        dtype = _dtype_of(type)
        if not isinstance(dtype, dtypes.dtype) or not (dtype.is_floating_point or
                                                       dtype.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(dtype.np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = dtype.name if dtype.is_floating_point else {
            "complex64": "float32", "complex128": "float64"}[dtype.name]

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(metaclass=TorchClass):
    """Machine limits of an integer dtype: min, max, bits."""

    _torch_name = "torch.iinfo"

    def __init__(self, type):  # noqa: A002
        if not isinstance(type, dtypes.dtype) or type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(np.uint8 if type.name == "bool" else type.np)
        self.bits = info.bits
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
