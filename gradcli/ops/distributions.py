"""PyTorch's random sampling ops on the CPU, draw for draw: torch.normal (its four overloads),
bernoulli, multinomial, randperm, poisson and the in-place fills random_, exponential_,
geometric_, log_normal_, cauchy_ and bernoulli_ (uniform_ and normal_ are in tensor_methods).

The recipes are those of aten/src/ATen/core/DistributionsHelper.h and TransformationHelper.h,
native/cpu/DistributionTemplates.h, Distributions.cpp (multinomial, poisson) and
TensorFactories.cpp (randperm): one value per element drawn in the order of the tensor's
memory, mostly from a 53-bit uniform double (exponential: -1/lambda * log1p(-u); geometric:
ceil(log(u) / log1p(-p)); cauchy: median + sigma * tan(pi * (u - 1/2)); log_normal: exp of a
normal_distribution<double>), transcendental functions taken from the C library one value at a
time (math.*), as PyTorch's serial kernels call them.  The draws themselves are the
generator's (gradcli.engine.random), private to the engine."""

import math

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.random import VMAP_SAME_BATCHED, Vmap, libm, sample_by_sample
from ..engine.tensor import BatchedSample, Tensor, check_numel, check_pieces
from .arith import broadcast_error
from .creation import _dtype_or_default, _leaf, _size, generator_of, with_out
from .derivatives import helper
from .dropout import bernoulli_like, memory_order
from .numerics import fused
from .unsigned import is_wide
from .arguments import chosen_form
from .registry import OPS, Op, Overload, Plain, Sample, register
from .tensor_methods import check_floating, normal_values, uniform_values
from .topk_order import topk_order

_C_TYPES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long int", "bool": "bool", "float32": "float",
            "float64": "double"}
# the C++ names PyTorch's random kernels print (typeid's), where c10's differ (`uint16_t`)
_TYPEID_NAMES = {"uint16": "short unsigned int", "uint32": "unsigned int",
                 "uint64": "long unsigned int"}


def _typeid_name(dtype):
    return _TYPEID_NAMES.get(np.dtype(dtype).name) or dtypes.cpp_name(dtype)


def _refuse_wide_unsigned(dtype, kernel):
    """The kernels PyTorch compiles for uint8 but not for uint16, uint32 and uint64."""
    if is_wide(np.dtype(dtype)):
        raise not_implemented(kernel, np.dtype(dtype))


_REAL = "biuc"  # (the kinds of dtype the kernels of real values only refuse)


def _cpp_double(x):
    """A double as C++ streams print it in PyTorch's messages (6 significant digits)."""
    return f"{float(x):g}"


def _log(x):
    """C's log: log(0) is -inf."""
    return math.log(x) if x > 0 else -math.inf


def _exp(x):
    """C's exp: past the largest double, inf."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _type_name(x):
    from .creation import Generator
    return ("Tensor" if isinstance(x, Tensor) else "torch._C.Generator"
            if isinstance(x, Generator) else type(x).__name__)


def _invalid(name, args, kwargs, signatures):
    """PyTorch's TypeError for arguments that fit none of an overloaded function's signatures
    (its first line), the signatures after it on the same line."""
    given = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    shown = ", ".join(given) if args else ", ".join(given) + ", "
    return TypeError(f"{name}() received an invalid combination of arguments - got ({shown}), "
                     f"but expected one of: {signatures}")


def _check_generator(name, args, kwargs, signatures):
    """An overloaded function's generator= that is not a torch.Generator."""
    from .creation import Generator
    generator = kwargs.get("generator")
    if generator is not None and not isinstance(generator, Generator):
        raise _invalid(name, args, kwargs, signatures)


def refuse_same_batched(tensors):
    """PyTorch's error for a random op given a batched tensor under randomness='same'."""
    if Vmap.levels and Vmap.levels[-1].mode == "same" and any(
            isinstance(t, BatchedSample) for t in tensors):
        raise RuntimeError(VMAP_SAME_BATCHED)


def _uniforms(a, generator, name):
    """One uniform double in [0, 1) per element of a, in its memory order."""
    return memory_order(a, generator_of(generator, name)._uniform(a.size, np.float64))


def _exponential_values(a, lambd, generator):
    if a.dtype.kind != "f":  # (its message names PyTorch's dtype, not the C type)
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{dtypes.short_name(a)}")
    if not (lambd > 0 and math.isfinite(lambd)):
        raise RuntimeError("exponential_ expects lambda > 0.0, but found "
                           f"lambda={_cpp_double(lambd)}")
    scale = -1.0 / lambd
    return scale * libm(math.log1p, -_uniforms(a, generator, "exponential_"))


def _geometric_values(a, p, generator):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp_double(p)}")
    check_floating(a.dtype, "geometric_cpu", "bc")
    _refuse_wide_unsigned(a.dtype, "geometric_cpu")
    denominator = math.log1p(-p)
    return np.ceil(libm(_log, _uniforms(a, generator, "geometric_")) / denominator)


def _log_normal_values(a, mean, std, generator):
    check_floating(a.dtype, "log_normal_cpu", _REAL)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp_double(std)}")
    x = generator_of(generator, "log_normal_")._double_normals(a.size)
    return libm(_exp, memory_order(a, fused(x, np.float64(std), np.float64(mean))))


def _continuous(a, name):
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_typeid_name(a.dtype)}")


def _cauchy_values(a, median, sigma, generator):
    _continuous(a, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp_double(sigma)}")
    tan = libm(math.tan, math.pi * (_uniforms(a, generator, "cauchy_") - 0.5))
    return fused(np.float64(sigma), tan, np.float64(median))


# ------------------------------------------------------------------------------ random_

def _integer_bounds(dtype):
    """The smallest and largest value of NumPy dtype `dtype` that random_ may give (floats:
    exact integers up to 2^digits)."""
    if dtype == np.bool_:
        return 0, 1
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        return -(1 << digits), 1 << digits
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _check_in_range(dtype, name, value):
    """PyTorch's check_from_to_in_range for a bound of random values of NumPy dtype `dtype`
    (floats: within its finite range)."""
    if dtype.kind == "f":
        info = np.finfo(dtype)
        low, high = float(info.min), float(info.max)
    else:
        low, high = _integer_bounds(dtype)
    if not low <= value <= high:
        raise RuntimeError(f"{name} is out of bounds for {_typeid_name(dtype)}")


def check_random_bounds(dtype, low, high):
    """PyTorch's checks of randint's (and randint_like's) [low, high) for values of NumPy dtype
    `dtype`: bounds that are int64, low < high, and both within the dtype's values."""
    if not all(-(1 << 63) <= int(b) < 1 << 63 for b in (low, high)):
        raise ValueError("Overflow when unpacking long long")
    if not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    if dtype.kind not in "biuf":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    _check_in_range(dtype, "from", low)
    _check_in_range(dtype, "to - 1", high - 1)


def _random_values(a, low, high, generator):
    """random_(): [0, 2^digits] for floats, [0, max] for integers; random_(from, to): [from, to)
    (to None: up to the dtype's largest)."""
    if low is None and (a.dtype.kind == "c" or is_wide(a.dtype)):
        raise not_implemented("random_kernel_cpu", a)  # (random_(from, to) takes uint16-64)
    if a.dtype.name not in _C_TYPES and not is_wide(a.dtype):
        raise not_implemented("random_kernel_cpu" if a.dtype.kind == "c" else "random_", a)
    draw = generator_of(generator, "random_")
    if low is None:  # uniform_int_distribution<T>: 64-bit draws for double and int64
        wide = a.dtype in (np.float64, np.int64)
        if a.dtype == np.bool_:
            return memory_order(a, draw._words(a.size) & np.uint64(1))
        top = _integer_bounds(a.dtype)[1]
        return memory_order(a, draw._words(a.size, wide) % np.uint64(top + 1))
    if high is None:
        high = _integer_bounds(a.dtype)[1] + 1
    elif not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    _check_in_range(a.dtype, "from", low)
    _check_in_range(a.dtype, "to - 1", high - 1)
    return memory_order(a, draw._integers(low, high, a.size))


# ---------------------------------------------------------------------------- bernoulli

def _bernoulli_probabilities(a, p, generator, name="bernoulli_"):
    """bernoulli_(p tensor): one uniform per element, float for float32 probabilities and
    double for float64 ones, kept where it is below p (p broadcast to a)."""
    check_floating(a.dtype, "bernoulli_tensor_cpu_self_", "c")
    _refuse_wide_unsigned(a.dtype, "bernoulli_tensor_cpu_self_")
    if p.dtype.kind != "f":
        raise not_implemented("bernoulli_tensor_cpu_p_", p)
    try:
        p = np.broadcast_to(p, a.shape)
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({list(p.shape)}) must match the "
                           f"existing size {list(a.shape)}") from None
    if not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    precision = np.float64 if p.dtype == np.float64 else np.float32
    u = memory_order(a, generator_of(generator, name)._uniform(a.size, precision))
    return (u < p.astype(precision)).astype(a.dtype)


def _bernoulli_scalar(a, p, generator, name="bernoulli_"):
    check_floating(a.dtype, "bernoulli_scalar_cpu_", "c")
    _refuse_wide_unsigned(a.dtype, "bernoulli_scalar_cpu_")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp_double(p)}")
    return bernoulli_like(a, p, generator)


def _bernoulli_forward(p, generator):
    return _bernoulli_probabilities(p, p, generator, "bernoulli")


@helper
def _zeros_of(shape, grad):
    """PyTorch's at::zeros(x.sym_sizes(), grad.options()): the zero gradient of an input that
    random draws depend on only by their distribution."""
    return OPS["zeros"](tuple(shape), dtype=grad.dtype)


_P_SAMPLES = [Sample((), low=0.1, high=0.9), Sample((3,), low=0.1, high=0.9),
              Sample((2, 3), low=0.1, high=0.9)]
BERNOULLI = Op(
    "bernoulli.default", _bernoulli_forward, "self: zeros_like(grad)",
    attrs=("*", ("generator", None)),
    jvp="self: zeros_like(self_t)", grad_fn="BernoulliBackward0", dtype="same", method=False,
    kind="random", doc="1 with probability self (each element), else 0", samples=_P_SAMPLES,
    public=False)
BERNOULLI.random = True
BERNOULLI.hidden_saved += ("generator",)
_BERNOULLI_P_NODE = None


def bernoulli(input, p=None, *rest, generator=None):
    """torch.bernoulli(input): 1 with probability input[i]; bernoulli(input, p): probability p
    for every element (PyTorch has no derivative for that one: a NotImplemented node)."""
    global _BERNOULLI_P_NODE
    signatures = ("(Tensor input, *, Generator generator), (Tensor input, float p, *, "
                  "Generator generator)")
    if rest:  # (a generator given by position, say)
        raise _invalid("bernoulli", (input, p) + rest, {}, signatures)
    _check_generator("bernoulli", (input,) if p is None else (input, p),
                     {"generator": generator}, signatures)
    refuse_same_batched((input,))
    if p is None:
        return BERNOULLI(input, generator=generator)
    from .sorting import FailingNode
    data = _bernoulli_scalar(np.empty_like(input._data), p, generator)
    result = Tensor._make(data, None, 0, False)
    if _BERNOULLI_P_NODE is None:
        _BERNOULLI_P_NODE = FailingNode("NotImplemented",
                                        "derivative for aten::bernoulli is not implemented",
                                        error=RuntimeError)
    _BERNOULLI_P_NODE.attach((input,), (result,))
    return result


# ------------------------------------------------------------------------------- normal

def _check_std(std):
    if (std < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _standard(shape, dtype, generator, std=1.0):
    """`torch.empty(shape, dtype).normal_(0, std)`."""
    return normal_values(np.empty(shape, dtype), 0.0, std, generator, "normal").reshape(shape)


def _normal_tensor_tensor(mean, std, generator):
    """normal(Tensor mean, Tensor std): normal_(0, 1) on the broadcast shape, then mul_(std)
    and add_(mean) in mean's dtype."""
    check_floating(mean.dtype, "normal_kernel_cpu")
    _check_std(std)
    mismatch = broadcast_error(mean.shape, std.shape)
    if mismatch:
        raise RuntimeError(mismatch)
    shape = np.broadcast_shapes(mean.shape, std.shape)
    check_numel(shape)
    x = _standard(shape, mean.dtype, generator)
    return ((x * std).astype(mean.dtype) + mean).astype(mean.dtype)


def _normal_tensor_float(mean, std, generator):
    """normal(Tensor mean, float std): normal_(0, std), then add_(mean)."""
    check_floating(mean.dtype, "normal_kernel_cpu")
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_cpp_double(std)}")
    return _standard(mean.shape, mean.dtype, generator, std) + mean


def _normal_float_tensor(std, mean, generator):
    """normal(float mean, Tensor std): normal_(0, 1), then mul_(std) and add_(mean)."""
    check_floating(std.dtype, "normal_kernel_cpu")
    _check_std(std)
    return _standard(std.shape, std.dtype, generator) * std + std.dtype.type(mean)


_MEAN_STD = [Sample((3,), (3,), low=0.5, high=2.0), Sample((2, 3), (3,), low=0.5, high=2.0),
             Sample((), (2, 1), low=0.5, high=2.0)]


def _declare_normal(name, forward, inputs, grad_fn, samples, attrs):
    formulas = tuple(f"{x}: _zeros_of({x}_shape, grad)" for x in inputs)
    op = Op(name, forward, formulas, inputs=inputs, attrs=attrs + ("*", ("generator", None)),
            jvp=tuple(f"{x}: zeros_like(result)" for x in inputs), grad_fn=grad_fn,
            dtype="same", method=False, public=False, kind="random",
            doc="normal samples: a random draw, whose gradient PyTorch takes as zero",
            samples=samples)
    op.random = True
    op.zero_by_definition = True  # (the draw shifts with mean: no finite-difference check)
    op.hidden_saved += ("generator",) + tuple(a[0] for a in attrs)
    return register(op)


NORMAL_TENSOR_TENSOR = _declare_normal("normal.Tensor_Tensor", _normal_tensor_tensor,
                                       ("mean", "std"), "NormalBackward3", _MEAN_STD, ())
NORMAL_TENSOR_FLOAT = _declare_normal(
    "normal.Tensor_float", _normal_tensor_float, ("mean",), "NormalBackward1",
    [Sample((3,), attrs={"std": 2.0}), Sample((2, 3), attrs={"std": 0.5})], (("std", 1.0),))
NORMAL_FLOAT_TENSOR = _declare_normal(
    "normal.float_Tensor", _normal_float_tensor, ("std",), "NormalBackward2",
    [Sample((3,), low=0.5, high=2.0, attrs={"mean": 1.0})], (("mean", 0.0),))


_NORMAL_SIGNATURES = ("(Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor "
                      "std), (float mean, float std, tuple of ints size)")


def normal(mean=None, std=1.0, size=None, *rest, generator=None, dtype=None, **factory):
    """torch.normal: samples of N(mean, std), mean and std tensors (broadcast) or numbers (then
    with a size)."""
    if rest:  # (a generator given by position, say)
        raise _invalid("normal", (mean, std, size) + rest, {}, _NORMAL_SIGNATURES)
    refuse_same_batched((mean, std))
    _check_generator("normal", tuple(x for x in (mean, std) if x is not None) + (
        () if size is None else (size,)), {"generator": generator}, _NORMAL_SIGNATURES)
    mean_is, std_is = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mean_is and std_is and size is None:
        return NORMAL_TENSOR_TENSOR(mean, std, generator=generator)
    if mean_is and size is None:
        return NORMAL_TENSOR_FLOAT(mean, std=std, generator=generator)
    if std_is and size is None and mean is not None:
        return NORMAL_FLOAT_TENSOR(std, mean=mean, generator=generator)
    if mean_is or std_is or size is None or mean is None:
        raise _invalid("normal", [x for x in (mean, std, size) if x is not None], {},
                       _NORMAL_SIGNATURES)
    shape = _size((size,))
    unknown = set(factory) - {"device", "layout", "requires_grad", "pin_memory"}
    if unknown:
        raise TypeError(f"normal() got an unexpected keyword argument '{unknown.pop()}'")
    d = _dtype_or_default(dtype).np
    return _leaf(normal_values(np.empty(shape, d), mean, std, generator, "normal").reshape(shape),
                 factory.get("requires_grad", False))


# -------------------------------------------------------------------------- multinomial

def _check_distribution(p):
    """multinomial's checks of its probabilities, in PyTorch's order (element by element: the
    first bad one's message)."""
    flat = p.reshape(-1)
    bad = ~(flat >= 0) | ~np.isfinite(flat)
    if bad.any():
        value = flat[np.argmax(bad)]
        raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                           + ("< 0)" if not value >= 0 else "= infinity or NaN)"))


def _with_replacement(p, n, draw):
    """multinomial_with_replacement_apply: per row, the cumulative distribution in p's dtype
    divided by its sum, searched (binary) for n uniform doubles."""
    rows = p.reshape(-1, p.shape[-1])
    out = np.empty((rows.shape[0], n), np.int64)
    for i, row in enumerate(rows):
        cumulative = np.cumsum(row, dtype=row.dtype)
        total = cumulative[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cumulative = (cumulative / total).astype(row.dtype)
        cumulative[-1] = 1
        u = draw._uniform(n, np.float64)
        # the first slot whose cumulative probability is not below u
        out[i] = np.searchsorted(cumulative.astype(np.float64), u, side="left")
    return out


def _without_replacement(p, n, generator):
    """Gumbel's trick as PyTorch's CPU draws it: q = p / Exponential(1) noise (empty_like(p)
    .exponential_(1)), the n largest in topk's order (its order of ties: zero probabilities)."""
    if not (np.isfinite(p) & (p >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (p.reshape(-1, p.shape[-1]).sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = p / _exponential_values(np.empty_like(p), 1.0, generator).astype(p.dtype)
    rows = q.reshape(-1, q.shape[-1])
    out = np.empty((rows.shape[0], n), np.int64)  # (not a list of an array a row)
    for i, row in enumerate(rows):
        out[i] = topk_order(row, n)
    return out.reshape(q.shape[:-1] + (n,))


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the categories of each row of input (weights, not necessarily
    normalised): with replacement by inverting the cumulative distribution, without by
    Gumbel's trick (q = p / Exponential(1), the largest)."""
    generator_of(generator, "multinomial")
    refuse_same_batched((input,))
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    p = input._data
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.short_name(p)}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = p.shape[-1]
    if not replacement and n > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if categories > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    shape = (n,) if p.ndim == 1 else (p.shape[0], n)
    check_numel(shape)
    if 0 in shape:
        return _leaf(np.empty(shape, np.int64))
    if not categories:  # (rows of no category: PyTorch's errors of its two ways to draw)
        if n == 1:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or n == 1:
        result = _without_replacement(p, n, generator)
    else:
        _check_distribution(p)
        result = _with_replacement(p, n, generator_of(generator, "multinomial"))
    return _leaf(np.ascontiguousarray(result.reshape(shape)))


# ----------------------------------------------------------------------------- randperm

_RANDPERM_DTYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                    "int64": "int64_t", "float32": None, "float64": None}


def randperm(n, *rest, generator=None, dtype=None, **factory):
    """A random permutation of 0 .. n-1 (PyTorch's Fisher-Yates: position i swapped with
    i + random() % (n - i))."""
    if rest:  # (a generator given by position, say)
        raise _invalid("randperm", (n,) + rest, {}, "(int n, *, Generator generator, "
                       "torch.dtype dtype), (int n, *, torch.dtype dtype)")
    unknown = set(factory) - {"device", "layout", "requires_grad", "pin_memory"}
    if unknown:
        raise TypeError(f"randperm() got an unexpected keyword argument '{unknown.pop()}'")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    _check_generator("randperm", (n,), {"generator": generator}, "(int n, *, Generator "
                     "generator, torch.dtype dtype)")
    n = int(n)
    d = dtype or dtypes.int64
    np_dtype = np.dtype(d.np)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if np_dtype.name not in _RANDPERM_DTYPES:
        raise not_implemented("randperm", np_dtype)
    if np_dtype.kind == "f":
        digits = np.finfo(np_dtype).nmant + 1
        if n > (1 << digits) + 1:
            raise RuntimeError(f"n cannot be greater than 2^{digits}+1 for "
                               f"{d.short} type.")
    elif n - 1 > np.iinfo(np_dtype).max:
        raise RuntimeError(f"value cannot be converted to type {_RANDPERM_DTYPES[np_dtype.name]}"
                           f" without overflow")
    check_numel((n,))
    if n >= (1 << 32) // 20:
        raise RuntimeError("gradcli draws permutations of fewer than 214748364 elements")
    check_pieces(n)  # (the swaps and the permutation are Python lists, an int an element)
    draws = generator_of(generator, "randperm")._words(max(n - 1, 0))
    swaps = (draws % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64).tolist()
    perm = list(range(n))
    for i, z in enumerate(swaps):
        perm[i], perm[i + z] = perm[i + z], perm[i]
    return _leaf(np.array(perm, np.int64).astype(np_dtype), factory.get("requires_grad", False))


# ------------------------------------------------------------------------------ poisson

def _poisson_one(rate, uniform):
    """sample_poisson (Distributions.h): Hoermann's transformed rejection for rates of 10 and
    more, else multiplying uniforms until the product falls to exp(-rate)."""
    if rate >= 10:
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - math.lgamma(k + 1.0)):
                return k
    if rate == 0:
        return 0
    limit, count, product = math.exp(-rate), 0, 1.0
    while True:
        product *= uniform()
        if product > limit:
            count += 1
        else:
            return count


class _Uniforms:
    """Uniform doubles one at a time for a kernel that draws as many as it needs, taken from
    blocks drawn at once; close() leaves the generator as if they had been drawn one by one."""

    def __init__(self, generator):
        self.generator, self.start = generator, generator._get_state()
        self.block, self.position, self.used = [], 0, 0

    def __call__(self):
        if self.position == len(self.block):
            # (blocks that grow to 65,536 draws: not a list as long as all the draws)
            self.block = self.generator._uniform(min(64 + 2 * len(self.block), 1 << 16),
                                                 np.float64).tolist()
            self.position = 0
        self.position += 1
        self.used += 1
        return self.block[self.position - 1]

    def close(self):
        self.generator._set_state(self.start)
        for start in range(0, self.used, 1 << 16):  # (in blocks, as drawn)
            self.generator._uniform(min(self.used - start, 1 << 16), np.float64)


def _poisson_forward(rates, generator):
    check_floating(rates.dtype, "poisson_cpu", _REAL)
    if not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    draw = generator_of(generator, "poisson")
    # (into a new contiguous tensor: drawn in the order of its elements)
    flat = rates.reshape(-1)

    def sample(n):  # (inside vmap, n: the rates of every sample, the batch's rows in turn)
        uniform = _Uniforms(draw)
        rows = np.tile(flat, n // flat.size) if flat.size else flat
        values = np.fromiter((_poisson_one(float(rate), uniform) for rate in rows),
                             np.float64, count=rows.size)
        uniform.close()
        return values
    values = draw._each(flat.size, sample)
    return values.reshape(rates.shape).astype(rates.dtype)


class _Sampled(Op):
    """poisson: inside vmap, PyTorch's refusal of a batched input under randomness='same', and
    under 'different' the batch's samples drawn one after another."""

    def bind(self, args, kwargs):
        inputs, attrs = super().bind(args, kwargs)
        from .creation import Generator
        if len(args) > 1 and not isinstance(args[1], (Generator, type(None))):
            raise TypeError(f"{self.name}(): argument 'generator' (position 2) must be "
                            f"torch.Generator, not {type(args[1]).__name__}")
        return inputs, attrs

    def apply(self, inputs, attrs):
        refuse_same_batched(inputs)
        if Vmap.levels and Vmap.levels[-1].mode == "different" and any(
                isinstance(x, BatchedSample) for x in inputs):
            return sample_by_sample(lambda: Op.apply(self, inputs, attrs))
        return Op.apply(self, inputs, attrs)


POISSON = _Sampled(
    "poisson", _poisson_forward, "self: zeros_like(grad)", attrs=(("generator", None),),
    jvp="self: zeros_like(self_t)", grad_fn="PoissonBackward0", dtype="same", method=False,
    kind="random", doc="Poisson samples of rate self (each element)",
    samples=[Sample((), low=0.5, high=3.0), Sample((3,), low=0.5, high=15.0),
             Sample((2, 3), low=0.5, high=15.0)])
POISSON.random = True
POISSON.hidden_saved += ("generator",)


# --------------------------------------------------------------------------- the table

# ------------------------------------------------------------------ the in-place fills

def _integer(value, name, position):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"random_(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


def _random_from(a, low, high, generator):
    high = None if high is None else _integer(high, "to", 2)
    return _random_values(a, _integer(low, "from", 1), high, generator)


_FILL_SAMPLES = [Sample(()), Sample((3,)), Sample((2, 3))]


def _fill_op(name, forward, attrs, grad_fn, doc, inputs=("self",), samples=_FILL_SAMPLES):
    """A fill of PyTorch's (`name_`, in place) as a table op: values drawn for self's elements
    whatever self holds, so every input's gradient is zero (PyTorch's zeros_like)."""
    op = Op(name, lambda a, *rest: np.asarray(forward(a, *rest), a.dtype),
            tuple("self: zeros_like(grad)" if x == "self" else f"{x}: _zeros_of({x}_shape, grad)"
                  for x in inputs), inputs=inputs,
            attrs=attrs + ("*", ("generator", None)), grad_fn=grad_fn, dtype="same",
            method=False, function=False, public=False, kind="random", doc=doc, samples=samples,
            jvp=tuple(f"{x}: _zeros_of(self_shape, {x}_t)" for x in inputs))
    op.random = True
    op.hidden_saved += tuple(a if isinstance(a, str) else a[0] for a in attrs) + (
        "generator", "self_sym_sizes") + tuple(f"{x}_sym_sizes" for x in inputs)
    return register(op)


def _listed(name, doc, via):
    """The row `gradcli ops` shows for the Tensor method `name` (installed from its ops), its
    signature theirs."""
    signature = " | ".join(dict.fromkeys(OPS[n].signature_text(name, method=True) for n in via))
    entry = Plain(name, None, doc, kind="random", signature=signature, via=via)
    entry.function = False
    return register(entry)


for _name, _forward, _attrs, _node, _doc in [
        ("exponential", _exponential_values, (("lambd", 1.0),), "ExponentialBackward0",
         "exponential samples of rate lambd"),
        ("geometric", _geometric_values, ("p",), "GeometricBackward0",
         "geometric samples (trials up to a success)"),
        ("log_normal", _log_normal_values, (("mean", 1.0), ("std", 2.0)),
         "LogNormalBackward0", "exp(N(mean, std)) samples"),
        ("cauchy", _cauchy_values, (("median", 0.0), ("sigma", 1.0)), "CauchyBackward0",
         "Cauchy samples (median + sigma * tan(pi * (u - 1/2)))")]:
    _samples = [Sample((3,), attrs={"p": 0.3})] if _name == "geometric" else _FILL_SAMPLES
    _fill_op(_name, _forward, _attrs, _node, f"{_doc} (the values of {_name}_)",
             samples=_samples).inplace = True
    _listed(_name + "_", f"fill with {_doc}", (_name,))

def _uniform_fill(a, low, high, generator):
    return uniform_values(a, low, high, generator).reshape(a.shape)


def _normal_fill(a, mean, std, generator):
    return normal_values(a, mean, std, generator).reshape(a.shape)


# uniform_ and normal_, table ops as the fills above (aten's functional uniform and
# normal_functional; torch.normal's own name is the function's)
_fill_op("uniform", _uniform_fill, (("from", 0.0), ("to", 1.0)), "UniformBackward0",
         "uniform samples in [from, to) (the values of uniform_)").inplace = True
_listed("uniform_", "fill with uniform samples in [from, to)", ("uniform",))
_NORMAL_FILL = _fill_op("normal_functional", _normal_fill, (("mean", 0.0), ("std", 1.0)),
                        "NormalBackward0", "normal samples of mean and std (the values of "
                        "normal_)")
_listed("normal_", "fill with normal samples of mean and std", ("normal_functional",))


def _random_form(self=None, *args, generator=None, **bounds):
    """random_'s overload: random_(), random_(to) or random_(from, to)."""
    keywords = dict(bounds, **({} if generator is None else {"generator": generator}))
    signatures = ("(*, Generator generator), (int from, int to, *, Generator generator), "
                  "(int to, *, Generator generator)")
    invalid = _invalid("random_", args, keywords, signatures)
    _check_generator("random_", args, keywords, signatures)
    op = chosen_form(_RANDOM.ops, args, keywords, invalid)
    if op.takes(args, keywords, method=True):
        for i, value in enumerate(args):
            if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                    or value is None and i == 1):
                raise invalid
    return op


_RANDOM = Overload("random", _random_form,
    (_fill_op("random.default", lambda a, generator: _random_values(a, None, None, generator),
              (), "RandomBackward2", "integers in [0, 2^mantissa] (floats) or [0, max]"),
     _fill_op("random.to", lambda a, to, generator: _random_values(a, 0, _integer(
         to, "to", 1), generator), ("to",), "RandomBackward1", "integers in [0, to)",
              samples=[Sample((3,), attrs={"to": 10})]),
     _fill_op("random.from", _random_from, ("from", "to"), "RandomBackward0",
              "integers in [from, to)", samples=[Sample((3,), attrs={"from": -3, "to": 4})])),
    method=False, kind="random", doc="integers in [from, to) (random_: in place)")
_RANDOM.public, _RANDOM.inplace = False, True
register(_RANDOM)
_listed("random_", "fill with random integers: [0, to) or [from, to)",
        ("random.default", "random.to", "random.from"))
def _bernoulli_form(self=None, p=0.5, **kwargs):
    """bernoulli_'s overload: a tensor of probabilities or a number."""
    _check_generator("bernoulli_", (p,), kwargs, "(Tensor p, *, Generator generator), "
                     "(float p, *, Generator generator)")
    refuse_same_batched((p,))
    return OPS["bernoulli_.Tensor" if isinstance(p, Tensor) else "bernoulli_.float"]


def _bernoulli_overload(self=None, *args, **kwargs):
    """bernoulli_ given more arguments than it takes: PyTorch's parser's TypeError."""
    signatures = "(Tensor p, *, Generator generator), (float p, *, Generator generator)"
    if len(args) > 1 or set(kwargs) - {"p", "generator"}:
        chosen_form(_BERNOULLI_.ops, args, kwargs, _invalid("bernoulli_", args, kwargs,
                                                            signatures))
    return _bernoulli_form(self, *args, **kwargs)


_BERNOULLI_ = Overload("bernoulli_", _bernoulli_overload,
    (_fill_op("bernoulli_.float", lambda a, p, generator: _bernoulli_scalar(a, p, generator),
              (("p", 0.5),), "BernoulliBackward2", "1 with probability p, else 0"),
     _fill_op("bernoulli_.Tensor", lambda a, p, generator: _bernoulli_probabilities(
         a, p, generator), (), "BernoulliBackward1", "1 with probability p[i], else 0",
              inputs=("self", "p"), samples=[Sample((3,), (3,), low=0.1, high=0.9),
                                             Sample((2, 3), (3,), low=0.1, high=0.9)])),
    method=False, kind="random", doc="bernoulli_ with a number or a tensor of probabilities")
_listed("bernoulli_", "fill with 1 where a uniform draw is below p, else 0",
        ("bernoulli_.float", "bernoulli_.Tensor"))
register(BERNOULLI)
register(POISSON)
def _long_out(dtype):
    if dtype is not dtypes.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {dtype.short}")


def _factory(args, kwargs):
    """Whether torch.normal's arguments are its factory form (mean, std numbers, a size)."""
    values = list(args) + [kwargs.get(k) for k in ("mean", "std") if k in kwargs]
    return not any(isinstance(x, Tensor) for x in values)


def _normal_out(*args, out=None, **kwargs):
    """torch.normal with out=: aten::normal's factory form, or normal's on tensors."""
    if out is None:
        return normal(*args, **kwargs)
    return (with_out("normal") if _factory(args, kwargs) else with_out(
        "normal", False, lambda d: check_floating(d.np, "normal_kernel_cpu")))(normal)(
        *args, out=out, **kwargs)


bernoulli = with_out("bernoulli", False)(bernoulli)
multinomial = with_out("multinomial", False, _long_out)(multinomial)
randperm = with_out("randperm")(randperm)
register(Plain("bernoulli", bernoulli, "1 with probability p (input's elements, or a number)",
               kind="random", signature="bernoulli(input, p=None, *, generator=None)",
               via=("bernoulli.default",)))
OPS["bernoulli"].method, OPS["bernoulli"].inplace = bernoulli, _BERNOULLI_
register(Plain("normal", _normal_out, "samples of N(mean, std): mean and std tensors or numbers",
               kind="random", signature="normal(mean, std, size=None, *, generator=None)",
               via=("normal.Tensor_Tensor", "normal.Tensor_float", "normal.float_Tensor")))
OPS["normal"].inplace = _NORMAL_FILL  # (Tensor.normal_)
register(Plain("multinomial", multinomial, "indices drawn from rows of category weights",
               kind="random", signature="multinomial(input, num_samples, replacement=False, *, "
               "generator=None)"))
OPS["multinomial"].method = multinomial
register(Plain("randperm", randperm, "a random permutation of 0 .. n-1", kind="random",
               signature="randperm(n, *, generator=None, dtype=torch.int64)"))
