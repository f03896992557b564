"""Size limits that turn runaway programs into a clear error before Python or NumPy would spend
minutes (uninterruptibly, inside C) or exhaust memory: huge integers, long sequences, huge
format widths, NumPy arrays, deep recursion, deeply nested or very long sources.  Tensors are
limited by the engine itself, with a limit that also bounds NumPy arrays here.

Every limit is a setting with a default that an environment variable raises (or lowers) for the
process, e.g. `GRADCLI_MAX_INT_BITS=10000000 gradcli run big.grad`; from Python, assign the
module attribute (`gradcli.lang.limits.MAX_INT_BITS = ...`).  Each error names its variable:

    GRADCLI_MAX_ELEMENTS     100,000,000   elements of a tensor or NumPy array (the engine's
                                           limit: apply_element_limit hands the variable to it;
                                           from Python, gradcli.set_element_limit)
    GRADCLI_MAX_INT_BITS       1,000,000   bits of a Python integer (`10 ** 10 ** 10`)
    GRADCLI_MAX_ITEMS         10,000,000   items of a list, tuple, string or range
    GRADCLI_MAX_WIDTH          1,000,000   a format width or precision, a padding width
    GRADCLI_MAX_INT_ARGUMENT     100,000   the argument of math.factorial, comb and perm
    GRADCLI_MAX_ITEMSIZE              64   bytes per element of a NumPy dtype ('U100000')
    GRADCLI_MAX_RECURSION          1,000   nested calls of a program (Python's default limit;
                                           far higher values can crash the interpreter, as
                                           sys.setrecursionlimit can)
    GRADCLI_MAX_NESTING              200   nested brackets or indented blocks in the source
                                           (Python's limit on brackets)
    GRADCLI_MAX_SOURCE         1,000,000   characters of a program's source

A program that runs too long is stopped by a timeout instead (`--timeout SECONDS`,
`Session.run(timeout=...)`) or by Ctrl-C."""

import contextlib
import functools
import itertools
import math
import operator
import os
import re
import sys

import numpy as np

from .source import MAX_SOURCE, _setting, limit_note, read_source  # noqa: F401


MAX_INT_BITS = _setting("GRADCLI_MAX_INT_BITS", 1_000_000)
MAX_ITEMS = _setting("GRADCLI_MAX_ITEMS", 10_000_000)
MAX_WIDTH = _setting("GRADCLI_MAX_WIDTH", 1_000_000)
MAX_INT_ARGUMENT = _setting("GRADCLI_MAX_INT_ARGUMENT", 100_000)
MAX_ITEMSIZE = _setting("GRADCLI_MAX_ITEMSIZE", 64)
MAX_RECURSION = _setting("GRADCLI_MAX_RECURSION", 1_000)
MAX_NESTING = _setting("GRADCLI_MAX_NESTING", 200)


def _array_limit():
    from ..engine.tensor import ElementLimit
    return ElementLimit.limit


def int_too_large():
    return OverflowError("integer too large " +
                         limit_note(f"{MAX_INT_BITS:,} bits", "GRADCLI_MAX_INT_BITS"))


def check_items(n):
    if n > MAX_ITEMS:
        raise MemoryError("sequence too long " +
                          limit_note(f"{MAX_ITEMS:,} items", "GRADCLI_MAX_ITEMS"))


def check_text(n):
    """The text of a tensor of n characters or more (printed in full below a huge threshold),
    and of all the tensors in the one text being made (printing.TextBudget: a list's)."""
    from ..engine.printing import TextBudget
    if TextBudget.spent is not None:
        TextBudget.spent += n
        n = max(n, TextBudget.spent)
    if n > MAX_ITEMS:
        raise MemoryError(f"tensor text too long ({n:,} characters or more; print fewer "
                          f"elements, or lower torch.set_printoptions(threshold=...)) " +
                          limit_note(f"{MAX_ITEMS:,} items", "GRADCLI_MAX_ITEMS"))


def check_array_size(n):
    limit = _array_limit()
    if n > limit:
        raise MemoryError(f"array of {n} elements exceeds the limit of {limit} elements "
                          f"(set GRADCLI_MAX_ELEMENTS to raise it)")


def apply_element_limit():
    """Hand GRADCLI_MAX_ELEMENTS, when set, to the engine (sessions call this once), and the
    item limit to its printing (`torch.set_printoptions(threshold=...)` of any size)."""
    global ITERATED_TYPES
    from ..engine import printing, tensor
    from ..engine.tensor import Tensor
    printing.TEXT_CHECK[0] = check_text
    tensor.PIECES_CHECK[0] = check_items
    ITERATED_TYPES = (np.ndarray, Tensor)
    if "GRADCLI_MAX_ELEMENTS" in os.environ:
        from ..engine.tensor import ElementLimit, set_element_limit
        set_element_limit(_setting("GRADCLI_MAX_ELEMENTS", ElementLimit.limit))


RECURSION_MESSAGE = "maximum recursion depth exceeded"
FRAMES_PER_NESTING_LEVEL = 20     # Python frames the parser and compiler use per nested bracket


def recursion_message():
    """What a program's RecursionError says."""
    return (f"{RECURSION_MESSAGE} " +
            limit_note(f"{MAX_RECURSION:,} calls", "GRADCLI_MAX_RECURSION"))


def nesting_message():
    """What a program too deeply nested to compile gets."""
    return (f"{RECURSION_MESSAGE} during compilation " +
            limit_note(f"{MAX_NESTING:,} levels of nesting", "GRADCLI_MAX_NESTING"))


def _stack_depth():
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


@contextlib.contextmanager
def recursion_budget(calls):
    """Allow `calls` nested Python calls beyond the caller's own depth (Python's recursion limit
    counts the frames of whoever runs the program: the REPL, pytest, the CLI)."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + calls)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def program_recursion():
    """The recursion budget of a running program."""
    return recursion_budget(MAX_RECURSION)


def compile_recursion():
    """The recursion budget of parsing and compiling (it grows with MAX_NESTING)."""
    return recursion_budget(FRAMES_PER_NESTING_LEVEL * MAX_NESTING)


def source_too_long(n):
    return MemoryError(f"program too long ({n:,} characters) " +
                       limit_note(f"{MAX_SOURCE:,}", "GRADCLI_MAX_SOURCE"))


# The NumPy dtypes a program may make arrays of: bool, integers, floats and complex numbers
# (PyTorch snippets need no other).  Object arrays hold pointers that a program could forge
# through an integer view of the same memory; strings, bytes, structured, void and datetime
# dtypes have no place in a gradient calculator.
ALLOWED_DTYPE_KINDS = frozenset("biufc")


def dtype_refused(dtype):
    return TypeError(f"NumPy dtype {str(dtype)!r} is not available in gradcli programs "
                     f"(numeric and bool arrays only)")


def check_dtypes(values, dtypes=()):
    """Refuse NumPy dtypes outside the allow-list, or of huge elements: each of `dtypes` (the
    `dtype=` arguments), and each of `values` (positional arguments) that is a string, a dtype
    or a class.  A value that is no dtype at all (`np.linalg.norm(a, "fro")`) is left to the
    function."""
    for v in values:
        if isinstance(v, (str, np.dtype, type)):
            check_dtype(v)
    for v in dtypes:
        if v is not None:
            check_dtype(v)


def check_dtype(v):
    try:
        dtype = np.dtype(v)
    except (TypeError, ValueError, SyntaxError):
        return
    if dtype.kind not in ALLOWED_DTYPE_KINDS or dtype.fields is not None or \
            dtype.subdtype is not None:
        raise dtype_refused(dtype)
    if dtype.itemsize > MAX_ITEMSIZE:
        raise MemoryError(f"dtype {v!r} is too large " + limit_note(
            f"{MAX_ITEMSIZE} bytes per element", "GRADCLI_MAX_ITEMSIZE"))


def check_numpy_result(value):
    """value itself, unless it is (or holds, as a tuple) a NumPy array or scalar of a dtype
    outside the allow-list (`np.array([len])`, `a * [2 ** 100]`: object arrays) or an array of
    more elements than the limit (`np.concatenate([a] * n)`, a broadcasting comparison)."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in ALLOWED_DTYPE_KINDS:
            raise dtype_refused(value.dtype)
        if value.size > _array_limit():
            check_array_size(value.size)
    elif type(value) is tuple:
        for item in value:
            if isinstance(item, (np.ndarray, np.generic)):
                check_numpy_result(item)
    return value


def check_format_spec(spec):
    """Refuse widths and precisions that would build a string of many megabytes."""
    digits = len(str(MAX_WIDTH))
    if any(len(d) > digits or int(d) > MAX_WIDTH for d in re.findall(r"\d+", spec)):
        raise ValueError("format width or precision too large " +
                         limit_note(f"{MAX_WIDTH:,}", "GRADCLI_MAX_WIDTH"))


def check_print_options(precision, linewidth):
    """torch.set_printoptions: a precision past a thousandth of the width limit (each of the
    thousand elements a tensor shows would be that long), a line width past the width limit."""
    if isinstance(precision, (int, float)) and precision > MAX_WIDTH // 1000:
        raise ValueError("print precision too large " + limit_note(
            f"{MAX_WIDTH // 1000:,} digits, a thousandth of GRADCLI_MAX_WIDTH",
            "GRADCLI_MAX_WIDTH"))
    if isinstance(linewidth, (int, float)) and linewidth > MAX_WIDTH:
        raise ValueError("print line width too large " + limit_note(f"{MAX_WIDTH:,}",
                                                                  "GRADCLI_MAX_WIDTH"))


TEXT = (str, bytes, bytearray)
SEQUENCES = (str, bytes, bytearray, list, tuple)


def _is_sequence(x):
    return isinstance(x, SEQUENCES)


def check_repetition(sequence, n):
    """`sequence * n`: its items, and the items of the sequences it holds, n times over (so that
    `[[0] * 10 ** 7] * 10 ** 7`, whose repr would be 10**14 characters, is refused)."""
    check_items(len(sequence) * n)
    if n > 1 and isinstance(sequence, (list, tuple)):
        check_items(sum(len(item) for item in sequence if isinstance(item, SEQUENCES)) * n)


# arrays and tensors (Tensor is added when a session starts: apply_element_limit)
ITERATED_TYPES = (np.ndarray,)


def check_each(x):
    """x, unless it is an array or a tensor of more items than a list may hold: iterating one
    makes a Python object an item (a NumPy scalar, a row; a tensor's rows are made all at
    once), which `list(a)`, `sorted(a)`, `[*a]` or `zip(*a)` keep, in C that nothing meters."""
    if isinstance(x, ITERATED_TYPES) and x.ndim and len(x) > MAX_ITEMS:
        check_items(len(x))
    return x


def materialising(make):
    """make (list, tuple, set, dict, enumerate, zip, ...), its iterable arguments metered."""
    def call(*args, **kwargs):
        for a in args:
            check_each(a)
        return make(*args, **kwargs)
    call.__name__ = call.__qualname__ = make.__name__
    call.__doc__ = make.__doc__
    return call


def buffer_length(x):
    """What `bytes.join` and a bytes template's `%b` copy of x: a text's items, a buffer's bytes
    (an array's memory: `b"".join([a] * 100)`), nothing of any other object (refused there)."""
    if isinstance(x, TEXT):
        return len(x)
    try:
        return memoryview(x).nbytes
    except TypeError:
        return 0


def check_join(separator, items):
    """`separator.join(items)` (items a list)."""
    check_items(sum(buffer_length(item) for item in items) +
                len(separator) * max(len(items) - 1, 0))


def _shape(x):
    """The shape of the array NumPy makes of x (an array, a number, lists and tuples of them),
    without making it (np.shape would: `[a] * 1000` is 1,000 references, and an array of a
    thousand times a's elements): a list's length, then its first item's shape.  (Of lists
    whose items differ, NumPy makes no array at all.)"""
    shape = []
    while type(x) in (list, tuple):
        shape.append(len(x))
        if not x:
            return tuple(shape)
        x = x[0]
    return (*shape, *(x.shape if isinstance(x, (np.ndarray, np.generic)) or _is_tensor(x) else
                      np.shape(x)))


def _is_tensor(x):
    """A tensor (what NumPy reads through `__array__`: its shape is its array's)."""
    return hasattr(type(x), "__array__") and isinstance(getattr(x, "shape", None), tuple)


ARRAY_LIKE = (np.ndarray, np.generic, list, tuple)


def check_broadcast(*args, **kwargs):
    """A NumPy function of array arguments (lists too) must not make an array of them, nor
    broadcast them to a result, of more elements than the limit."""
    shapes = [_shape(a) for a in (*args, *kwargs.values())
              if isinstance(a, ARRAY_LIKE) or _is_tensor(a)]
    try:
        check_array_size(_numel(np.broadcast_shapes(*shapes)))
    except ValueError:
        pass  # shapes that do not broadcast: the function reports it


def check_total(arrays, *args, **kwargs):
    """np.concatenate and np.stack of a sequence of arrays: all their elements."""
    if isinstance(arrays, ARRAY_LIKE):
        check_array_size(sum(_numel(_shape(a)) for a in arrays) if
                         isinstance(arrays, (list, tuple)) else arrays.size)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


NUMPY_VALUES = (np.ndarray, np.generic)


def check_arrays(a, b):
    """A NumPy operation of a and b must not broadcast to more elements than the limit (a NumPy
    scalar makes an array of a list as an array does: `np.float64(1) + [a] * 1000`)."""
    if not (isinstance(a, NUMPY_VALUES) or isinstance(b, NUMPY_VALUES)):
        return
    if not all(isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex, bool))
               or _is_tensor(x) for x in (a, b)):
        return
    try:
        check_array_size(_numel(np.broadcast_shapes(_shape(a), _shape(b))))
    except ValueError:
        pass  # shapes that do not broadcast: the operation reports it


# The values that Python's own comparisons of containers meet as they are: no NumPy there
COMPARED_PLAINLY = frozenset((int, float, complex, bool, str, bytes, type(None)))


class Comparisons:
    """The arrays that Python's own comparisons may meet, in C where no guard runs: `[a] ==
    [b]`, `x in items`, sorted, min, max and list.index compare items, and NumPy broadcasts
    two arrays (or an array and a list, of which it makes an array) to a result that nothing
    checks before it is made (then bool() of it fails).  Any two of the values added (or of
    their items, at any depth) broadcast to at most the elementwise largest of their shapes
    (right-aligned), which is checked against the element limit as values are added, once an
    array is among them.  (The shape of the array NumPy would make of a list is taken once an
    array is met: lists of anything else, ranges among them, compare in C without NumPy.)"""

    __slots__ = ("largest", "numpy", "lists")

    def __init__(self):
        self.largest = []     # the largest length of each dimension, the last one first
        self.numpy = False
        self.lists = []       # the lists and tuples met before any array

    def add(self, *values):
        """Add values (each compared as it is) and their items; the last value."""
        if len(values) == 1 and type(values[0]) in COMPARED_PLAINLY:
            return values[0]  # (a key= function's number: the usual case)
        self._walk(values, top=False)
        return values[-1] if values else None

    def add_items(self, container):
        """Add a container's items (the container itself is compared item by item)."""
        if type(container) in (list, tuple) and COMPARED_PLAINLY.issuperset(map(type, container)):
            return  # (numbers and strings alone: the usual case, settled in C)
        self._walk((container,), top=True)

    def _walk(self, values, top):
        stack, seen = [(v, top) for v in values], set()
        while stack:
            value, top = stack.pop()
            kind = type(value)
            if kind in COMPARED_PLAINLY:
                continue
            if isinstance(value, NUMPY_VALUES) or _is_tensor(value):
                self.numpy = True
                self._merge(value.shape)
                continue
            if kind not in (list, tuple, dict) or id(value) in seen:
                continue
            seen.add(id(value))
            if kind is not dict and not top:
                self.lists.append(value)
            items = value.values() if kind is dict else value
            if not COMPARED_PLAINLY.issuperset(map(type, items)):
                # (the items that are not plain, picked in C: a long list of numbers costs little)
                plain = map(COMPARED_PLAINLY.__contains__, map(type, items))
                stack.extend(zip(itertools.compress(items, map(operator.not_, plain)),
                                 itertools.repeat(False)))
        if self.numpy:
            for listed in self.lists:
                self._merge(_shape(listed))
            self.lists.clear()
            check_array_size(_numel(self.largest))

    def _merge(self, shape):
        largest = self.largest
        for i, n in enumerate(reversed(shape)):
            if i < len(largest):
                if n > largest[i]:
                    largest[i] = n
            else:
                largest.append(n)


def check_matmul(a, b):
    if not (isinstance(a, NUMPY_VALUES) or isinstance(b, NUMPY_VALUES)) or \
            not all(isinstance(x, ARRAY_LIKE) or _is_tensor(x) for x in (a, b)):
        return
    sa, sb = _shape(a), _shape(b)
    if sa and sb:
        rows = _numel(sa[:-1])
        columns = sb[-1] if len(sb) > 1 else 1
        batch = _numel(sb[:-2])
        check_array_size(rows * columns * max(batch, 1))


def check_add(a, b):
    if _is_sequence(a) and _is_sequence(b):
        check_items(len(a) + len(b))
    else:
        if type(a) is list:
            check_each(b)  # (`items += a` extends the list by an object an element)
        check_arrays(a, b)


def _count(n):
    """n as a repetition count (a Python or NumPy integer), else None."""
    if isinstance(n, (int, np.integer)):
        return int(n)
    return None


def check_mul(a, b):
    if type(a) is int and type(b) is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise int_too_large()
    elif _is_sequence(a) and _count(b) is not None:
        check_repetition(a, _count(b))
    elif _is_sequence(b) and _count(a) is not None:
        check_repetition(b, _count(a))
    else:
        check_arrays(a, b)


def check_pow(a, b):
    if type(a) is int and type(b) is int:
        if b > 0 and abs(a) > 1 and b * math.log2(abs(a)) > MAX_INT_BITS:
            raise int_too_large()
    else:
        check_arrays(a, b)


# pow(b, e, m) costs about 1e-10 s * (bits of e) * (bits of m) ** 1.585 (CPython's Karatsuba
# multiplication; 0.15 s for two 4096-bit numbers), all of it in C that no timeout interrupts:
# a program may ask for about two seconds of it.
MODULAR_POW_WORK = 2e10


def check_modular_pow(exp, mod):
    if type(exp) is int and type(mod) is int:
        exp_bits, mod_bits = abs(exp).bit_length(), abs(mod).bit_length()
        if exp_bits * mod_bits ** 1.585 > MODULAR_POW_WORK:
            raise OverflowError(f"pow() of a {exp_bits:,}-bit exponent modulo a {mod_bits:,}-bit "
                                f"number would run for minutes")


def check_mod(a, b):
    if isinstance(a, TEXT):
        template = a if isinstance(a, str) else a.decode("latin-1")
        check_format_spec(template)
        if "*" in template:
            for n in b if isinstance(b, tuple) else (b,):
                if type(n) is int and n > MAX_WIDTH:
                    check_format_spec(str(n))
        if not isinstance(a, str):  # (`%b` and `%s` copy a buffer's bytes: an array's memory)
            values = b.values() if isinstance(b, dict) else b if isinstance(b, tuple) else (b,)
            check_items(len(a) + sum(buffer_length(v) for v in values))
    else:
        check_arrays(a, b)


def check_int_arguments(fn):
    """fn (math.factorial, comb, perm), refusing arguments that take minutes to compute."""
    @functools.wraps(fn)
    def checked(*args):
        if any(type(a) is int and a > MAX_INT_ARGUMENT for a in args):
            raise OverflowError(f"{fn.__name__}() argument too large " +
                                limit_note(f"{MAX_INT_ARGUMENT:,}", "GRADCLI_MAX_INT_ARGUMENT"))
        return fn(*args)
    return checked


class Stopping:
    """What ends the running program, once its timeout has come (the session's alarm sets it,
    and clears it when the run ends): a program's `except` then catches nothing."""
    exception = None
