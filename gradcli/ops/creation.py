"""Creation: tensor, zeros, ones, full, *_like, arange, linspace, eye, rand, randn, randint."""

import numpy as np

from ..engine import dtypes, messages
from ..engine.random import TorchGenerator
from ..engine.tensor import Tensor, check_numel, to_array
from .registry import Plain, register


def _leaf(data, requires_grad=False):
    t = Tensor._make(data, None, 0, False)
    if requires_grad:
        if data.dtype.kind not in "fc":  # factories word it their own way
            raise RuntimeError(messages.ONLY_FLOAT_REQUIRES_GRAD_FACTORY)
        t.requires_grad_(True)
    return t


def _dtype_or_default(dtype):
    return dtype if dtype is not None else dtypes.get_default_dtype()


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) and not (
                isinstance(s, Tensor) and s.numel() == 1):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
        if int(s) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {int(s)}: "
                               f"{[int(x) for x in size]}")
    size = tuple(int(s) for s in size)
    check_numel(size)
    return size


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of data (nested lists, numbers, arrays, tensors)."""
    return _leaf(to_array(data, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    return tensor(data, dtype)


def from_numpy(array):
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    return _leaf(array)


def _filled(fill):
    def make(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
        shape = _size(size)
        d = _dtype_or_default(dtype)
        return _leaf(np.full(shape, fill, d.np), requires_grad)
    return make


zeros = _filled(0)
ones = _filled(1)
empty = _filled(0)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    shape = _size((size,))
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    return _leaf(np.full(shape, fill_value, dtype.np), requires_grad)


def _like(fill):
    def make(input, dtype=None, device=None, requires_grad=False, memory_format=None):
        d = dtype or input.dtype
        return _leaf(np.full(input._data.shape, fill, d.np), requires_grad)
    return make


zeros_like = _like(0)
ones_like = _like(1)
empty_like = _like(0)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    d = dtype or input.dtype
    return _leaf(np.full(input._data.shape, fill_value, d.np), requires_grad)


def _number(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from start to end (exclusive) by step."""
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = (dtypes.get_default_dtype()
                 if any(isinstance(v, float) for v in (start, end, step)) else dtypes.int64)
    n = int(np.ceil((end - start) / step))
    check_numel((n,))
    return _leaf(np.arange(start, end, step).astype(dtype.np)[:n], requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    check_numel((steps,))
    d = _dtype_or_default(dtype)
    return _leaf(np.linspace(_number(start), _number(end), steps).astype(d.np), requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    d = _dtype_or_default(dtype)
    check_numel((int(steps),))
    return _leaf(np.logspace(_number(start), _number(end), int(steps), base=base).astype(d.np),
                 requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    check_numel((n, n if m is None else m))
    return _leaf(np.eye(n, m, dtype=_dtype_or_default(dtype).np), requires_grad)


GENERATOR = TorchGenerator()


def manual_seed(seed):
    """Seed the generator behind rand/randn/randint (the same numbers as torch.manual_seed)."""
    return GENERATOR.manual_seed(seed)


def seed():
    import os
    s = int.from_bytes(os.urandom(8), "little") % (2 ** 63)
    GENERATOR.manual_seed(s)
    return s


def initial_seed():
    return GENERATOR.seed


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Uniform samples in [0, 1)."""
    shape = _size(size)
    d = _dtype_or_default(dtype).np
    return _leaf(GENERATOR.uniform(_numel(shape), d).reshape(shape), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Standard normal samples."""
    shape = _size(size)
    d = _dtype_or_default(dtype).np
    return _leaf(GENERATOR.normal(_numel(shape), d).reshape(shape), requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False,
            generator=None):
    """Integers drawn uniformly from [low, high)."""
    if size is None:
        if not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    shape = _size((size,))
    d = dtype or dtypes.int64
    return _leaf(GENERATOR.integers(low, high, _numel(shape)).reshape(shape).astype(d.np),
                 requires_grad)


def rand_like(input, dtype=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, dtype=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def _legacy(d):
    def make(*args):
        if len(args) == 1 and not isinstance(args[0], int):
            return _leaf(to_array(args[0], d))
        return _leaf(np.zeros(_size(args), d.np))
    return make


FloatTensor = _legacy(dtypes.float32)
DoubleTensor = _legacy(dtypes.float64)
LongTensor = _legacy(dtypes.int64)
IntTensor = _legacy(dtypes.int32)
BoolTensor = _legacy(dtypes.bool_)

for _name, _fn in [
        ("tensor", tensor), ("as_tensor", as_tensor), ("from_numpy", from_numpy),
        ("zeros", zeros), ("ones", ones), ("empty", empty), ("full", full),
        ("zeros_like", zeros_like), ("ones_like", ones_like), ("empty_like", empty_like),
        ("full_like", full_like), ("arange", arange), ("linspace", linspace),
        ("logspace", logspace), ("eye", eye), ("rand", rand), ("randn", randn),
        ("randint", randint), ("rand_like", rand_like), ("randn_like", randn_like),
        ("manual_seed", manual_seed), ("seed", seed), ("initial_seed", initial_seed),
        ("FloatTensor", FloatTensor), ("DoubleTensor", DoubleTensor),
        ("LongTensor", LongTensor), ("IntTensor", IntTensor), ("BoolTensor", BoolTensor)]:
    register(Plain(_name, _fn, (_fn.__doc__ or f"{_name}: create a tensor").strip().split("\n")[0]))
