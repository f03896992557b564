"""Size limits that turn runaway programs into a clear error before Python or NumPy would spend
minutes (uninterruptibly, inside C) or exhaust memory: huge integers, long sequences, huge
format widths and NumPy arrays.  Tensors are limited by the engine itself."""

import functools
import math
import re

import numpy as np

MAX_INT_BITS = 1_000_000
MAX_ITEMS = 10_000_000
MAX_WIDTH = 1_000_000
MAX_INT_ARGUMENT = 100_000         # factorial, comb and perm
NUMBER = re.compile(r"\d+")


def _array_limit():
    from ..engine.tensor import ElementLimit
    return ElementLimit.limit


def int_too_large():
    return OverflowError(f"integer too large (the limit is {MAX_INT_BITS:,} bits)")


def check_items(n):
    if n > MAX_ITEMS:
        raise MemoryError(f"sequence too long (the limit is {MAX_ITEMS:,} items)")


def check_array_size(n):
    limit = _array_limit()
    if n > limit:
        raise MemoryError(f"array of {n} elements exceeds the limit of {limit} elements")


MAX_ITEMSIZE = 64                  # bytes per element of a NumPy dtype ('U100000' is refused)


def check_dtypes(values):
    """Refuse NumPy dtypes (given as strings, dtypes or scalar types) of huge elements."""
    for v in values:
        if isinstance(v, (str, np.dtype)) or (isinstance(v, type) and issubclass(v, np.generic)):
            try:
                itemsize = np.dtype(v).itemsize
            except TypeError:
                continue
            if itemsize > MAX_ITEMSIZE:
                raise MemoryError(f"dtype {v!r} is too large (the limit is {MAX_ITEMSIZE} "
                                  f"bytes per element)")


def check_format_spec(spec):
    """Refuse widths and precisions that would build a string of many megabytes."""
    if any(len(d) > 7 or int(d) > MAX_WIDTH for d in NUMBER.findall(spec)):
        raise ValueError(f"format width or precision too large (the limit is {MAX_WIDTH:,})")


def _is_sequence(x):
    return isinstance(x, (str, list, tuple))


def _shape(x):
    return x.shape if isinstance(x, np.ndarray) else np.shape(x)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def check_arrays(a, b):
    """A NumPy operation of a and b must not broadcast to more elements than the limit."""
    if not (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        return
    if not all(isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex, bool))
               for x in (a, b)):
        return
    try:
        check_array_size(_numel(np.broadcast_shapes(_shape(a), _shape(b))))
    except ValueError:
        pass  # shapes that do not broadcast: the operation reports it


def check_matmul(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.ndim and b.ndim:
        rows = _numel(a.shape[:-1])
        columns = b.shape[-1] if b.ndim > 1 else 1
        batch = _numel(b.shape[:-2])
        check_array_size(rows * columns * max(batch, 1))


def check_add(a, b):
    if _is_sequence(a) and _is_sequence(b):
        check_items(len(a) + len(b))
    else:
        check_arrays(a, b)


def check_mul(a, b):
    if type(a) is int and type(b) is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise int_too_large()
    elif _is_sequence(a) and isinstance(b, int):
        check_items(len(a) * b)
    elif _is_sequence(b) and isinstance(a, int):
        check_items(len(b) * a)
    else:
        check_arrays(a, b)


def check_pow(a, b):
    if type(a) is int and type(b) is int:
        if b > 0 and abs(a) > 1 and b * math.log2(abs(a)) > MAX_INT_BITS:
            raise int_too_large()
    else:
        check_arrays(a, b)


def check_mod(a, b):
    if isinstance(a, str):
        check_format_spec(a)
        if "*" in a:
            for n in b if isinstance(b, tuple) else (b,):
                if type(n) is int and n > MAX_WIDTH:
                    check_format_spec(str(n))
    else:
        check_arrays(a, b)


def check_int_arguments(fn):
    """fn (math.factorial, comb, perm), refusing arguments that take minutes to compute."""
    @functools.wraps(fn)
    def checked(*args):
        if any(type(a) is int and a > MAX_INT_ARGUMENT for a in args):
            raise int_too_large()
        return fn(*args)
    return checked
