"""Creation: tensor, zeros, ones, full, *_like, arange, linspace, eye, rand, randn, randint."""


import functools
import os

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode, no_grad
from ..engine.random import TorchGenerator, Vmap
from ..engine.tensor import (INT64_MAX, Tensor, check_new_sizes, check_numel, mark_batched,
                             to_array)
from ..engine.torch_classes import Device, TorchClass
from .numerics import fused
from .arguments import missing_arguments
from .registry import Plain, register
from . import unsigned
from .tensor_methods import check_floating, normal_values, uniform_values


def is_number(x):
    """Whether PyTorch's argument parser takes x as a Number (a zero-dim tensor too)."""
    if isinstance(x, Tensor):
        return x.dim() == 0
    return isinstance(x, (int, float, complex, np.number, np.bool_))


def _must_be(name, param, expected, value, position=None):
    """PyTorch's TypeError for an argument of the wrong type (gradcli.ops.arg_errors, which
    loads on an error path only)."""
    from .arg_errors import must_be
    return TypeError(must_be(name, param, expected, value, position))


def _leaf(data, requires_grad=False):
    t = Tensor._make(data, None, 0, False)
    if requires_grad:
        if data.dtype.kind not in "fc":  # factories word it their own way
            raise RuntimeError(messages.ONLY_FLOAT_REQUIRES_GRAD_FACTORY)
        t.requires_grad_(True)
    return t


def _dtype_or_default(dtype):
    return dtype if dtype is not None else dtypes.get_default_dtype()


def _size(size, dtype=None, name="zeros"):
    """The sizes of a new tensor (of dtype, by default the default dtype), checked."""
    given = size
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for i, s in enumerate(size):
        if type(s) is not int and not isinstance(s, np.integer):  # (PyTorch's parser's check)
            from .arg_errors import size_refusal
            refused = size_refusal(given, name)
            if refused:
                raise TypeError(refused)
        if not -INT64_MAX - 1 <= int(s) <= INT64_MAX:  # (PyTorch's C long long)
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f'{i + 1} with error "Overflow when unpacking long long')
        if int(s) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {int(s)}: "
                               f"{[int(x) for x in size]}")
    size = tuple(int(s) for s in size)
    check_new_sizes(size, _dtype_or_default(dtype).np.itemsize)
    return size


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of data (nested lists, numbers, arrays, tensors)."""
    if isinstance(data, range):
        data = list(data)
    if dtype is None and isinstance(data, (list, tuple)) and _no_elements(data):
        dtype = dtypes.get_default_dtype()  # torch.tensor([]) is a float tensor
    return _leaf(to_array(data, dtype), requires_grad)


def _no_elements(data):
    return all(isinstance(v, (list, tuple)) and _no_elements(v) for v in data)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    return tensor(data, dtype)


def from_numpy(array):
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.from_numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError(messages.FROM_NUMPY_NEGATIVE_STRIDES)
    if any(s % array.itemsize for s in array.strides):
        raise ValueError(messages.FROM_NUMPY_STRIDES_NOT_MULTIPLE)
    return _leaf(array)


def _size_argument(size, keywords, name, overloaded=False):
    """The size given as positional integers or as `size=` (torch.zeros(size=(2, 3))); none
    is PyTorch's TypeError (an overloaded name's, rand's and randn's, its "invalid
    combination")."""
    if not size and "size" not in keywords:
        if overloaded:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (), "
                            f"but expected one of:")
        raise missing_arguments(name, ["size"])
    if "size" in keywords:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (keywords.pop("size"),)
        from .arg_errors import keyword_size_refusal
        refused = keyword_size_refusal(size[0], name)
        if refused:
            raise TypeError(refused)
    if keywords:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(keywords))}'")
    return size


def _filled(fill, name):
    def make(*size, dtype=None, device=None, requires_grad=False, layout=None, **keywords):
        d = _dtype_or_default(dtype)
        shape = _size(_size_argument(size, keywords, name), d, name)
        return _leaf(np.full(shape, fill, d.np), requires_grad)
    return make


zeros = _filled(0, "zeros")
ones = _filled(1, "ones")
empty = _filled(0, "empty")


def full(size=None, fill_value=None, dtype=None, device=None, requires_grad=False):
    if size is None or fill_value is None:
        raise missing_arguments("full", ["size", "fill_value"][size is not None:])
    from .arg_errors import size_refusal
    refused = size_refusal((size,), "full", varargs=False)
    if refused:
        raise TypeError(refused)
    if not is_number(fill_value):
        raise _must_be("full", "fill_value", "Number", fill_value, 2)
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    shape = _size((size,), dtype, "full")
    return _leaf(np.full(shape, fill_value, dtype.np), requires_grad)


def _tensor_input(input, name):
    if not isinstance(input, Tensor):
        raise _must_be(name, "input", "Tensor", input, 1)


def _like(fill, name):
    def make(input, dtype=None, device=None, requires_grad=False, memory_format=None):
        _tensor_input(input, name)
        d = dtype or input.dtype
        return _batched_like(_leaf(np.full(input._data.shape, fill, d.np), requires_grad), input)
    return make


def _batched_like(result, input):
    """(inside vmap, a tensor made like a batched one is batched too)"""
    mark_batched((result,), (input,))
    return result


zeros_like = _like(0, "zeros_like")
ones_like = _like(1, "ones_like")
empty_like = _like(0, "empty_like")


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    _tensor_input(input, "full_like")
    if not is_number(fill_value):
        raise _must_be("full_like", "fill_value", "Number", fill_value, 2)
    d = dtype or input.dtype
    return _batched_like(_leaf(np.full(input._data.shape, fill_value, d.np), requires_grad),
                         input)


def _number(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from start to end (exclusive) by step."""
    if end is None:
        if not is_number(start):
            raise _must_be("arange", "end", "Number", start, 1)
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = (dtypes.get_default_dtype()
                 if any(isinstance(v, float) for v in (start, end, step)) else dtypes.int64)
    kind = np.dtype(dtype.np)
    if kind == np.bool_ or unsigned.is_wide(kind):
        raise unsigned.not_implemented("arange_cpu", kind)
    if kind == np.int64:   # (its kernel's: the bounds and the step as int64, then counted)
        start, end, step = int(start), int(end), int(step)
        if not all(-2 ** 63 <= v < 2 ** 63 for v in (start, end, step)):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if step == 0:
            raise ValueError("step must be nonzero")
        n = -((start - end) // step)
        check_numel((n,))
        return _leaf(start + step * np.arange(n, dtype=np.int64), requires_grad)
    n = int(np.ceil((end - start) / step))
    check_numel((n,))
    if kind.kind == "f" and kind.itemsize in (4, 8):
        return _leaf(_arange_values(start, step, n, kind), requires_grad)
    return _leaf(np.arange(start, end, step).astype(dtype.np)[:n], requires_grad)


# PyTorch's arange kernel (RangeFactoriesKernel.cpp) fills a contiguous output two AVX2 vectors
# at a time, each vector as `base + k * step` from its first element, the rest one element at a
# time; linspace goes element by element; the compiler contracts each `a + b * c` into a fused
# multiply-add.
# Reproduced (the fused operations exactly, with fractions) so that the values agree to the bit.
_LANES = 32  # bytes in an AVX2 vector
_EXACT_LIMIT = 4096  # longer ranges: ordinary arithmetic (may differ in the last bit)


def _fma(a, b, c, dtype):
    """a * b + c rounded once to dtype (a, b, c numbers exactly representable as floats)."""
    a, b, c = float(a), float(b), float(c)
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        return dtype.type(a * b + c)
    from fractions import Fraction  # (on use: its import costs every start 3 ms)
    value = Fraction(a) * Fraction(b) + Fraction(c)
    if dtype == np.float64:
        return float(value)
    return _round_float32(value)


def _round_float32(value):
    """A fraction rounded to the nearest float32 (ties to even)."""
    from fractions import Fraction
    if value == 0:
        return np.float32(0.0)
    below = np.float32(float(value))  # double rounding may be off by one float32 step
    candidates = [np.nextafter(below, np.float32(-np.inf)), below,
                  np.nextafter(below, np.float32(np.inf))]
    return min(candidates, key=lambda f: (abs(Fraction(float(f)) - value),
                                          int(np.float32(f).view(np.int32)) & 1))


def _ramp(n, dtype, scalar, vector):
    """The n values of a range kernel: scalar(i) for the elements filled one at a time,
    vector(first, k) for lane k of the vector starting at element `first`."""
    lanes = _LANES // dtype.itemsize
    vectorized = n // (2 * lanes) * 2 * lanes
    out = np.empty(n, dtype)
    for i in range(n):
        out[i] = vector(i - i % lanes, i % lanes) if i < vectorized else scalar(i)
    return out


def _arange_values(start, step, n, dtype):
    """float arange: start + step * i in double (fused), each vector lane added to its base."""
    if n > _EXACT_LIMIT:
        return (np.float64(start) + np.float64(step) * np.arange(n)).astype(dtype)
    start, step = float(start), float(step)

    def scalar(i):
        return dtype.type(_fma(step, i, start, np.float64))

    def vector(first, k):
        base = float(dtype.type(_fma(step, first, start, np.float64)))
        return dtype.type(_fma(k, step, base, np.float64))
    return _ramp(n, dtype, scalar, vector)


def _linspace_values(start, end, steps, dtype):
    """float linspace in the dtype's arithmetic (fused): from start up to halfway, then back
    from end."""
    t = dtype.type
    start, end = t(start), t(end)
    if steps == 1:
        return np.full(1, start, dtype)
    step = (end - start) / t(steps - 1)
    half = steps // 2
    if steps > _EXACT_LIMIT:
        i = np.arange(steps)
        return np.where(i < half, start + step * i, end - step * (steps - i - 1)).astype(dtype)

    with np.errstate(invalid="ignore", over="ignore"):
        return np.array([_fma(step, i, start, dtype) if i < half else
                         _fma(-step, steps - i - 1, end, dtype) for i in range(steps)], dtype)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    check_numel((steps,))
    d = _dtype_or_default(dtype)
    if np.dtype(d.np).kind == "f" and np.dtype(d.np).itemsize in (4, 8) and steps:
        return _leaf(_linspace_values(_number(start), _number(end), steps, np.dtype(d.np)),
                     requires_grad)
    return _leaf(np.linspace(_number(start), _number(end), steps).astype(d.np), requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    d = _dtype_or_default(dtype)
    check_numel((int(steps),))
    return _leaf(np.logspace(_number(start), _number(end), int(steps), base=base).astype(d.np),
                 requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    if m is None and (type(n) is bool or not isinstance(n, (int, np.integer))):
        raise _must_be("eye", "n", "int", n, 1)
    check_numel((n, n if m is None else m))
    return _leaf(np.eye(n, m, dtype=_dtype_or_default(dtype).np), requires_grad)


class Generator(TorchGenerator, metaclass=TorchClass):
    """torch.Generator: a CPU generator of its own, which draws what PyTorch's does
    (`torch.randn(3, generator=torch.Generator().manual_seed(1))`); torch.default_generator is
    the one behind torch.manual_seed, torch.rand and the rest."""

    _torch_name = "torch._C.Generator"

    def __init__(self, device="cpu"):
        self._device = Device("cpu" if device is None else device)
        super().__init__()

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Seed the generator (a negative seed wraps, as PyTorch's unsigned 64 bits); itself."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -(1 << 63) <= int(seed) < 1 << 64:
            raise ValueError("Overflow when unpacking long long")
        return super().manual_seed(int(seed))

    def seed(self):
        """Seed it from the operating system's randomness; that seed."""
        value = int.from_bytes(os.urandom(8), "little")
        super().manual_seed(value)
        return value

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state, as PyTorch's get_state gives it: 5056 bytes (a uint8 tensor)."""
        return _leaf(self._state_bytes())

    def set_state(self, new_state):
        """Go back to a state get_state gave (PyTorch's own states too); itself."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if not new_state.is_contiguous():
            raise RuntimeError("RNG state must be contiguous")
        data = np.ascontiguousarray(new_state._data).reshape(-1)
        if data.size != self._STATE_LAYOUT.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size "
                               f"{self._STATE_LAYOUT.itemsize} but found the input RNG state "
                               f"size to be {data.size}")
        self._load_state_bytes(data)
        return self

    def _normal(self, n, dtype):
        """float32 tensors of 16 or more elements: PyTorch's AVX2 kernel (normal_fill_AVX2),
        whose Box-Muller takes log and sin/cos from avx_mathfun.h in float32."""
        if np.dtype(dtype) != np.float32 or n < 16:
            return super()._normal(n, dtype)
        data = self._uniform(n, np.float32)
        full = n // 16 * 16
        data[:full] = _box_muller16_avx2(data[:full])
        if n % 16:  # the last 16 values are drawn again
            data[n - 16:] = _box_muller16_avx2(self._uniform(16, np.float32))
        return data


# avx_mathfun.h's log256_ps and sincos256_ps (cephes polynomials in float32), as GCC compiles
# them for PyTorch's AVX2 kernels: a multiply feeding an add is contracted into a fused
# multiply-add.  Checked bit for bit against torch.randn.
_F32 = np.float32
_LOG_P = [_F32(p) for p in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                            -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                            2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2, _SQRTHF = _F32(-2.12194440e-4), _F32(0.693359375), _F32(0.707106781186547524)
_FOPI = _F32(1.27323954473516)
_DP = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_SINCOF = (_F32(-1.9515295891E-4), _F32(8.3321608736E-3), _F32(-1.6666654611E-1))
_COSCOF = (_F32(2.443315711809948E-005), _F32(-1.388731625493765E-003),
           _F32(4.166664568298827E-002))


def _log256(x):
    bits = x.view(np.int32)
    e = (((bits >> 23) & 0xFF) - 127).astype(_F32) + _F32(1)
    x = ((bits & ~0x7F800000) | np.int32(0x3F000000)).view(_F32)
    small = x < _SQRTHF
    tmp = np.where(small, x, _F32(0))
    x = x - _F32(1)
    e = e - np.where(small, _F32(1), _F32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = fused(y, x, p)
    y = fused(y * x, z, e * _LOG_Q1)
    y = fused(-z, _F32(0.5), y)
    return fused(e, _LOG_Q2, x + y)


def _sincos256(x):
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = ((x * _FOPI).astype(np.int32) + 1) & ~1
    y = j.astype(_F32)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = ((j - 2) & 4) == 0
    first = (j & 2) == 0
    for dp in _DP:
        x = fused(y, dp, x)
    z = x * x
    yc = fused(fused(_COSCOF[0], z, _COSCOF[1]), z, _COSCOF[2]) * z
    yc = fused(yc, z, -(z * _F32(0.5))) + _F32(1)
    ys = fused(fused(_SINCOF[0], z, _SINCOF[1]), z, _SINCOF[2]) * z
    ys = fused(ys, x, x)
    sin, cos = np.where(first, ys, yc), np.where(first, yc, ys)
    return np.where(sign_sin, -sin, sin), np.where(sign_cos, -cos, cos)


def _box_muller16_avx2(uniforms):
    """normal_fill_16_AVX2 on each block of 16 uniforms (mean 0, std 1)."""
    d = uniforms.reshape(-1, 16)
    radius = np.sqrt(_F32(-2) * _log256(_F32(1) - d[:, :8]))
    sin, cos = _sincos256(_F32(2 * np.pi) * d[:, 8:])
    return np.concatenate([radius * cos, radius * sin], axis=1).reshape(-1).astype(_F32)


GENERATOR = Generator()  # torch.default_generator


def generator_of(generator, name):
    """The generator a random function draws from: its `generator=` argument, else the
    default one."""
    if generator is None:
        return GENERATOR
    if not isinstance(generator, Generator):
        raise TypeError(f"{name}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator


def manual_seed(seed):
    """Seed the generator behind rand/randn/randint (the same numbers as torch.manual_seed)."""
    if isinstance(seed, str) or not isinstance(seed, (int, np.integer)):
        seed = int(seed)  # (torch.manual_seed(1.5) seeds 1, as PyTorch's int(seed))
    return GENERATOR.manual_seed(seed)


def seed():
    return GENERATOR.seed()


def initial_seed():
    return GENERATOR.initial_seed()


def get_rng_state():
    return GENERATOR.get_state()


def set_rng_state(new_state):
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    GENERATOR.set_state(new_state)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, **keywords):
    """Uniform samples in [0, 1)."""
    shape = _size(_size_argument(size, keywords, "rand", overloaded=True), name="rand")
    d = _dtype_or_default(dtype).np
    check_floating(d, "check_uniform_bounds")
    if np.dtype(d).kind == "c":  # (uniform_'s: the real view's)
        return _leaf(uniform_values(np.empty(shape, d), 0, 1, generator, "rand").reshape(shape),
                     requires_grad)
    return _leaf(generator_of(generator, "rand")._uniform(_numel(shape), d).reshape(shape),
                 requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, **keywords):
    """Standard normal samples."""
    shape = _size(_size_argument(size, keywords, "randn", overloaded=True), name="randn")
    d = _dtype_or_default(dtype).np
    check_floating(d, "normal_kernel_cpu")
    if np.dtype(d).kind == "c":  # (normal_'s: the real view's)
        return _leaf(normal_values(np.empty(shape, d), 0, 1, generator, "randn").reshape(shape),
                     requires_grad)
    return _leaf(generator_of(generator, "randn")._normal(_numel(shape), d).reshape(shape),
                 requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False,
            generator=None):
    """Integers drawn uniformly from [low, high)."""
    if size is None:
        if not isinstance(high, (tuple, list)):
            given = ", ".join(type(a).__name__ for a in (low, high) if a is not None)
            raise TypeError(f"randint() received an invalid combination of arguments - got "
                            f"({given}), but expected one of:")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    d = dtype or dtypes.int64
    shape = _size((size,), d)
    from .distributions import check_random_bounds
    check_random_bounds(d.np, low, high)
    draws = generator_of(generator, "randint")._integers(low, high, _numel(shape))
    return _leaf(draws.reshape(shape).astype(d.np), requires_grad)


def with_out(name, factory=True, check=None, resized=False, random=True):
    """fn with PyTorch's out= (the random functions' and the fills'): its values written into
    `out`, resized to their shape, and `out` returned.  factory: a function of sizes, whose
    values are made in out's dtype (dtype= must agree), whose autograd message names aten's op,
    and whose requires_grad= a leaf `out` then takes, as PyTorch's factories set it; check(dtype):
    the error for an out of a dtype fn cannot fill; resized: PyTorch resizes out first (an out
    that requires grad is its resize_ error); random: refused inside vmap."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            if not isinstance(out, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                                f"{messages.type_name(out)}")
            if random and Vmap.levels:  # (a draw per sample, or one for all, written into one tensor)
                raise RuntimeError("vmap: We do not support calling out variants of random "
                                   "operations inside of vmap. Please use non-out variants as "
                                   "a workaround")
            given = [x for x in args + tuple(kwargs.values()) if isinstance(x, Tensor)]
            if resized and out.requires_grad:
                raise RuntimeError("cannot resize variables that require grad")
            if GradMode.enabled and any(x.requires_grad for x in given + [out]):
                raise RuntimeError(f"{'aten::' if factory else ''}{name}(): functions with "
                                   f"out=... arguments don't support automatic differentiation, "
                                   f"but one of the arguments requires grad.")
            if check is not None:
                check(out.dtype)
            if factory:
                dtype = kwargs.get("dtype")
                if dtype is not None and dtype is not out.dtype:
                    raise RuntimeError(f"dtype {dtype.short} does not match dtype of out "
                                       f"parameter ({out.dtype.short})")
                kwargs["dtype"] = out.dtype
            result = fn(*args, **kwargs)
            with no_grad():
                if result.shape != out.shape:  # (resize_: a new memory of the result's shape)
                    if out._base is not None:
                        raise RuntimeError(f"{name}(): gradcli resizes an out= tensor that is "
                                           f"no view only (give one of shape "
                                           f"{list(result.shape)})")
                    out._data = np.empty(result._data.shape, out._data.dtype)
                out.copy_(result)
            if kwargs.get("requires_grad"):
                out.requires_grad_()
            elif factory and out.grad_fn is None and out.requires_grad:
                out.requires_grad_(False)
            return out
        return call
    return wrap


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    _tensor_input(input, "rand_like")
    return rand(*input.shape, generator=generator, dtype=dtype or input.dtype,
                requires_grad=requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    _tensor_input(input, "randn_like")
    return randn(*input.shape, generator=generator, dtype=dtype or input.dtype,
                 requires_grad=requires_grad)


def randint_like(input, *bounds, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None):
    """Integers drawn from [low, high) (high alone: [0, high)) in input's shape and dtype."""
    from .distributions import _check_generator, _invalid, check_random_bounds
    signatures = ("(Tensor input, int high, *, Generator generator, torch.dtype dtype), (Tensor "
                  "input, int low, int high, *, Generator generator, torch.dtype dtype)")
    if not isinstance(input, Tensor) or len(bounds) not in (1, 2) or any(
            isinstance(b, bool) or not isinstance(b, (int, np.integer)) for b in bounds):
        raise _invalid("randint_like", (input,) + bounds, {} if generator is None else {
            "generator": generator}, signatures)
    _check_generator("randint_like", (input,) + bounds, {"generator": generator}, signatures)
    low, high = bounds if len(bounds) == 2 else (bounds[0], None)
    if high is None:
        low, high = 0, low
    d = dtype or input.dtype
    check_random_bounds(d.np, low, high)
    draws = generator_of(generator, "randint_like")._integers(low, high, input._data.size)
    return _batched_like(_leaf(draws.reshape(input._data.shape).astype(d.np), requires_grad),
                         input)


rand = with_out("rand", check=lambda d: check_floating(d.np, "check_uniform_bounds"))(rand)
randn = with_out("randn", check=lambda d: check_floating(d.np, "normal_kernel_cpu"),
                 resized=True)(randn)
randint = with_out("randint")(randint)
zeros, ones, empty = (with_out(name, random=False)(fn) for name, fn in
                      (("zeros", zeros), ("ones", ones), ("empty", empty)))


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
        ("get_rng_state", get_rng_state), ("set_rng_state", set_rng_state),
        ("FloatTensor", FloatTensor), ("DoubleTensor", DoubleTensor),
        ("LongTensor", LongTensor), ("IntTensor", IntTensor), ("BoolTensor", BoolTensor)]:
    register(Plain(_name, _fn, (_fn.__doc__ or f"{_name}: create a tensor").strip().split("\n")[0]))
_RANDINT_LIKE = ("randint_like(input, low=0, high, *, generator=None, dtype=None, "
                 "requires_grad=False)")
register(Plain("randint_like", randint_like, randint_like.__doc__, signature=_RANDINT_LIKE))
