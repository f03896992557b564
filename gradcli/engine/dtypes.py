"""torch-like dtype objects over NumPy dtypes, and PyTorch's type promotion."""

import numpy as np

from .torch_classes import TorchClass


class dtype(metaclass=TorchClass):
    """A tensor element type, printed as `torch.float32`."""

    _torch_name = "torch.dtype"

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "tensor_type", "short", "category")

    def __init__(self, name, np_dtype, tensor_type, short, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self.tensor_type = tensor_type
        self.short = short
        self.category = category  # 0 bool, 1 integer, 2 floating, 3 complex

    def __repr__(self):
        return "torch." + self.name

    def to_real(self):
        return self


bool_ = dtype("bool", np.bool_, "BoolTensor", "Bool", 0)
uint8 = dtype("uint8", np.uint8, "ByteTensor", "Byte", 1)
int8 = dtype("int8", np.int8, "CharTensor", "Char", 1)
int16 = dtype("int16", np.int16, "ShortTensor", "Short", 1)
int32 = dtype("int32", np.int32, "IntTensor", "Int", 1)
int64 = dtype("int64", np.int64, "LongTensor", "Long", 1)
float16 = dtype("float16", np.float16, "HalfTensor", "Half", 2)
float32 = dtype("float32", np.float32, "FloatTensor", "Float", 2)
float64 = dtype("float64", np.float64, "DoubleTensor", "Double", 2)
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor", "ComplexFloat", 3)
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor", "ComplexDouble", 3)
# PyTorch's "barebones" unsigned types: tensors of them (a NumPy array's, say) are made, copied,
# viewed and printed, but promote with no other integer type and few kernels compute in them
uint16 = dtype("uint16", np.uint16, "UInt16Tensor", "UInt16", 1)
uint32 = dtype("uint32", np.uint32, "UInt32Tensor", "UInt32", 1)
uint64 = dtype("uint64", np.uint64, "UInt64Tensor", "UInt64", 1)
BAREBONES = (uint16, uint32, uint64)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128,
       uint16, uint32, uint64)
ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
           "short": int16, "bool": bool_, "cfloat": complex64, "cdouble": complex128}
BY_NUMPY = {d.np: d for d in ALL}



def from_numpy_dtype(np_dtype):
    """The dtype for a NumPy dtype (TypeError for types torch has no equivalent of)."""
    try:
        return BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool.") from None


def short_name(x):
    """PyTorch's short name of the dtype of x (an array, or a NumPy dtype): "Float", "Long"."""
    return from_numpy_dtype(getattr(x, "dtype", x)).short


_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
              "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>", "uint16": "uint16_t", "uint32": "uint32_t",
              "uint64": "uint64_t"}


def cpp_name(x):
    """The C++ name of the element type of x (an array or a tensor, a NumPy dtype or a torch
    dtype), as PyTorch's messages print it: "float", "long int", "c10::Half"."""
    d = getattr(x, "dtype", x)
    return _CPP_NAMES[d.name if isinstance(d, dtype) else np.dtype(d).name]


class _Default:
    """The default floating dtype (float32 unless set_default_dtype changed it)."""
    dtype = float32


def get_default_dtype():
    return _Default.dtype


def set_default_dtype(d):
    if not isinstance(d, dtype) or d not in (float16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _Default.dtype = d


def promote_types(a, b):
    """torch.promote_types: the smallest dtype both a and b convert to safely."""
    if a is b:
        return a
    if (a in BAREBONES or b in BAREBONES) and not (a.is_floating_point or b.is_floating_point):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.short} and {b.short}")
    if a.category != b.category:  # PyTorch: the higher category wins (long + float -> float)
        low, high = (a, b) if a.category < b.category else (b, a)
        if high.is_complex and low is float64:
            return complex128
        if low.category > 0 or high.category > 1:
            return high
    return BY_NUMPY[np.promote_types(a.np, b.np)]


def _combine(higher, lower):
    # PyTorch's combine_categories (c10/core/ScalarType.h, ResultTypeState)
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return complex128 if higher is float64 else (complex64 if higher.is_floating_point else lower)
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value):
    """The dtype a Python scalar takes as a wrapped number."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, complex):
        return complex128 if _Default.dtype is float64 else complex64
    return _Default.dtype


def result_type(tensors, scalars=()):
    """PyTorch's result_type: dimensioned tensors win over 0-d tensors, which win over scalars,
    unless a lower class is of a higher category (bool < int < float < complex)."""
    dim = zero = None
    for t in tensors:
        d = t.dtype
        if t._data.ndim:
            dim = d if dim is None else promote_types(dim, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    wrapped = None
    for s in scalars:
        d = scalar_dtype(s)
        wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))


def wrapped_unsigned(values, dtype):
    """PyTorch's torch.tensor of ints an unsigned dtype cannot hold: a negative int down to
    -max wraps around (-1 is 255 in uint8), as C's conversion does; below that or above max
    the overflow error; uint64 takes no negative int; an int past int64 is PyTorch's error of
    unpacking a long long."""
    bits = 8 * dtype.np.itemsize
    try:
        signed = np.array(values, dtype=np.int64)
    except OverflowError:
        raise (OverflowError("int too big to convert") if bits == 64 else
               ValueError("Overflow when unpacking long long")) from None
    if bits == 64:
        raise OverflowError("can't convert negative int to unsigned")
    top = 2 ** bits - 1
    if (signed < -top).any() or (signed > top).any():
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return signed.astype(dtype.np)
