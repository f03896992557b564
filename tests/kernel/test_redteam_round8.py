"""Red team, round 8: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator).  The size
check of an operator or a comparison ran only when an operand was an ndarray: a NumPy scalar
(`np.float64(1)`, `a.sum()`) makes an array of a list of arrays as an ndarray does.  Python's
own comparisons of containers (`[a] == [b]`, `x in items`, sorted, min, max, list.index)
compare their items in C, where NumPy broadcast two arrays to a result that no guard saw.  A
bytes separator's `join`, a bytes template's `%b` and `bytes.replace` copy any buffer (an
array's memory) into the result, which the item meter counted as nothing."""

import ast

import pytest
from processes import (assert_refused_before_made as _refused_before_made,
                       program_error as _error, program_output)


pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- NumPy scalars

# each makes 10 ** 6 elements (8 MB) from inputs of a few thousand, under an element limit of
# 10 ** 5
NUMPY_SCALAR = {
    "+": "np.float64(1) + [np.ones(1000)] * 1000",
    "-": "np.ones(3).sum() - [np.ones(1000)] * 1000",
    "/": "np.float64(1) / ([np.ones(1000)] * 1000)",
    "**": "np.float32(2) ** ([np.ones(1000)] * 1000)",
    "&": "np.int64(1) & [np.ones(1000, int)] * 1000",
    "==": "np.float64(1) == [np.ones(1000)] * 1000",
    "<": "np.float64(1) < [np.ones(1000)] * 1000",
    "!= reflected": "[np.ones(1000)] * 1000 != np.float64(2)",
}


@pytest.mark.parametrize("source", NUMPY_SCALAR.values(), ids=NUMPY_SCALAR.keys())
def test_a_numpy_scalar_and_a_list_are_checked_before_numpy_computes(source):
    """`np.float64(1) + [a] * 10 ** 4` of an array of 10 ** 7 elements is 10 ** 11 floats: the
    operators' and comparisons' size check (limits.check_arrays) looked for an ndarray operand
    and let a NumPy scalar's pass, whose operator makes an array of the list as an ndarray's
    does.  Expected: refused before NumPy allocates."""
    _refused_before_made(source)


def test_numpy_scalars_still_compute():
    assert program_output("import numpy as np\nprint(np.float64(2) + [1, 2], "
                          "np.float64(1) < [0, 3], np.int64(2) * [1, 2], [1] * np.int64(2))\n"
                          ) == "[3. 4.] [False  True] [1, 2, 1, 2] [1, 1]\n"


# ---------------------------------------------------------------------- comparisons in C

# each compares an array of 1,000 by 1 with one of 1,000 (a result of 10 ** 6 elements) where
# Python's own code compares items
COMPARED_IN_C = {
    "list == list": "[np.ones((1000, 1))] == [np.ones(1000)]",
    "tuple < tuple": "(np.ones((1000, 1)),) < (np.ones(1000),)",
    "chained lists": "[np.ones((1000, 1))] <= [np.ones(1000)] < [1]",
    "a chain with is": "(lambda a: a is a < np.ones(1000))(np.ones((1000, 1)))",
    "a chain with is not": "(lambda a: np.ones(1000) == a is not None)(np.ones((1000, 1)))",
    "dict == dict": "{1: np.ones(1000)} == {1: np.ones((1000, 1))}",
    "nested lists": "[[np.ones(1000)]] == [[[[1.0]] * 1000]]",
    "a scalar meets a list": "[np.float64(1), [[0.0] * 1000] * 1000] < "
                             "[[[0.0] * 1000] * 1000, 2]",
    "max of a list": "max([np.ones((1000, 1)), np.ones(1000)])",
    "min of arguments": "min(np.ones((1000, 1)), np.ones(1000))",
    "max of an iterator": "max(iter([np.ones((1000, 1)), np.ones(1000)]))",
    "max key=": "max([0, 1], key=lambda i: [np.ones((1000, 1)), np.ones(1000)][i])",
    "sorted": "sorted([np.ones((1000, 1)), np.ones(1000)])",
    "sorted key=": "sorted([0, 1], key=lambda i: [np.ones((1000, 1)), np.ones(1000)][i])",
    "list.sort": "[np.ones((1000, 1)), np.ones(1000)].sort()",
    "list.index": "[np.ones(1000)].index(np.ones((1000, 1)))",
    "list.count": "[np.ones(1000)].count(np.ones((1000, 1)))",
    "list.remove": "[np.ones(1000)].remove(np.ones((1000, 1)))",
    "tuple.count": "(np.ones(1000),).count(np.ones((1000, 1)))",
    "in a list": "np.ones((1000, 1)) in [np.ones(1000)]",
    "list in a list": "[np.ones(1000)] in [[np.ones((1000, 1))]]",
    "not in a list": "np.ones(1000) not in [np.ones((1000, 1))]",
    "in dict values": "np.ones((1000, 1)) in {1: np.ones(1000)}.values()",
    "in an iterator": "np.ones((1000, 1)) in iter([np.ones(1000)])",
    "in a map": "np.ones((1000, 1)) in map(abs, [np.ones(1000)])",
    "in a generator": "np.ones((1000, 1)) in (v for v in [np.ones(1000)])",
}


@pytest.mark.parametrize("source", COMPARED_IN_C.values(), ids=COMPARED_IN_C.keys())
def test_arrays_compared_by_python_itself_are_checked_first(source):
    """The comparison guard checked a comparison whose operand is an array; two lists, a
    sorted() or a max() of arrays, `x in items`, list.index compare the items in C, and NumPy
    broadcast `[np.ones((10 ** 5, 1))] == [np.ones(10 ** 5)]` to 10 ** 10 booleans (10 GB)
    before bool() of them failed.  Expected: refused before NumPy allocates (any two of the
    arrays compared broadcast to at most the elementwise largest of their shapes)."""
    _refused_before_made(source)


def test_python_comparisons_of_containers_still_work():
    out = program_output(
        "import numpy as np\nimport torch\na = np.ones(3)\n"
        "print(a in [a], a in iter([a]), 2 in map(abs, [1, -2]), 5 in iter([1]), "
        "[1, 2] in [[1, 2]], (1,) in {(1,): 0}, a not in [a])\n"
        "print(sorted([3, 1, 2]), sorted([3, 1, 2], key=lambda v: -v, reverse=True), "
        "sorted('bca'), sorted({3: 0, 1: 0}))\n"
        "print(min([3, 1]), max(3, 1, 7), min([], default=5), max(iter([2, 9, 4])), "
        "min('zab'), max({1: 2, 5: 0}), min([[2], [1, 0]]))\n"
        "print(max([1, 2], key=lambda v: -v), min(3, 4, key=lambda v: -v), "
        "[1, 2, 1].count(1), [1, 2].index(2), (4, 5).index(5), torch.Size([2, 3]).index(3))\n"
        "x = [1, 2, 3]\nx.remove(2)\nx.sort(key=lambda v: -v)\nprint(x)\n"
        "print([1, [2]] == [1, [2]], {1: [a]} == {1: [a]}, (1, 2) < (1, 3), [a] == [a])\n"
        "y = [1]\ny.append(y)\nz = [np.ones(2)] * 3\nprint(y == y, y in [y], z == list(z))\n")
    assert out == ("True True True False True True False\n"
                   "[1, 2, 3] [1, 2, 3] ['a', 'b', 'c'] [1, 3]\n"
                   "1 7 5 9 a 5 [1, 0]\n"
                   "1 4 2 1 1 1\n"
                   "[3, 1]\n"
                   "True True True True\n"
                   "True True True\n")


IDENTITY_CHAINS = """\
import numpy as np
a = np.ones(3)
b = [1]
n = None
print(a is a < 2, b is b == [1], b is [1] == b, n is None is n, b is not b < 5, b < [2] is not n)
print(b == b is not n, (1 < 2) is True, a is not n is not b, n is not b in [b], b in [b] is not n)
def f(v):
    print("eval", v)
    return v
print(f(1) is f(2) < f(3))
print(f(1) is not f(2) < f(3) is f(None))
print(f(2) is not f(1) <= f(1) is not f(0))
class C:
    x = 1
    y = x is x < 2
print(C.y, [v is v <= 1 for v in [0, 1, 2]])
"""


def test_a_chain_with_is_keeps_pythons_order_and_identities():
    """A chain that mixes `is` with other comparisons (`a is a < b`) was left to Python
    unguarded (no stand-in keeps an identity), so `a is a < np.ones(10 ** 5)` broadcast
    unchecked.  Its comparisons are guarded now: the values, the order of evaluation and the
    short circuits stay Python's own (the same program run by Python itself)."""
    import contextlib
    import io
    python = io.StringIO()
    with contextlib.redirect_stdout(python):
        exec(compile(IDENTITY_CHAINS, "<python>", "exec"), {})
    assert program_output(IDENTITY_CHAINS) == python.getvalue()


def test_python_comparisons_keep_their_errors():
    """Arrays of several elements compared in C still end in NumPy's own error."""
    line, _ = _error("import numpy as np\nr = sorted([np.ones(3), np.zeros(3)])\n")
    assert line.startswith("ValueError: The truth value of an array with more than one "
                           "element is ambiguous"), line
    line, _ = _error("r = max(5)\n")
    assert line == "TypeError: 'int' object is not iterable", line


# ---------------------------------------------------------------------- buffers into bytes

BYTES_OF_BUFFERS = {
    "join": "''.encode().join([np.zeros(2000)] * 2)",
    "join of a 2-d array": "'-'.encode().join([np.zeros((1, 2000))])",
    "%b": "'%b'.encode() % np.zeros(2000)",
    "%s of a tuple": "'%s%s'.encode() % (np.zeros(1000), np.zeros(1000))",
    "%(name)b": "'%(a)b'.encode() % {'a': np.zeros(2000)}",
    "replace with a 2-d array": "('x' * 100).encode().replace(''.encode(), np.zeros((1, 20)))",
}


@pytest.mark.parametrize("source", BYTES_OF_BUFFERS.values(), ids=BYTES_OF_BUFFERS.keys())
def test_bytes_made_of_an_arrays_memory_are_metered(source, small_limits):
    """bytes.join, a bytes template's `%b` (and `%s`) and bytes.replace copy any buffer, an
    array's memory included, into the result: `b''.join([a] * 1000)` of an array of 10 ** 7
    floats is 80 GB of bytes, and the item meter counted only the items that are str or
    bytes (and replace measured an array by its first dimension).  Expected: refused by
    GRADCLI_MAX_ITEMS (1,000 here) before the bytes are made."""
    line, _ = _error(f"import numpy as np\nr = {source}\n")
    assert line.startswith("MemoryError: sequence too long"), line


def test_bytes_of_a_few_buffers_are_still_made(small_limits):
    assert program_output(
        "import numpy as np\ne = ''.encode()\n"
        "print(len(e.join([np.zeros(10), 'ab'.encode()])), len('%b'.encode() % np.zeros(4)), "
        "'a-b'.encode().replace('-'.encode(), '+'.encode()), '-'.join(['a', 'b']), "
        "'x'.replace('x', 'yy'))\n") == "82 32 b'a+b' a-b yy\n"


# ---------------------------------------------------------------------- digamma, trigamma

FAR_NEGATIVE = [-1e15 - 0.5, -1e6 - 0.5, -123.456, -7.9, -0.5]


@pytest.mark.parametrize("n", [0, 1])
def test_digamma_and_trigamma_of_a_far_negative_x_reflect_it(n, oracle):
    """digamma and polygamma(1, x) took x up to 20 by the recurrence psi(x) = psi(x + 1) -
    1 / x, one NumPy step per unit: `torch.digamma(torch.tensor(-1e15 - 0.5,
    dtype=torch.float64))` ran 10 ** 15 steps (a million of them, 7 s, for -1e6 - 0.5), where
    PyTorch reflects a negative x (calc_digamma, calc_trigamma) and answers at once.
    Expected: PyTorch's values within the program's timeout."""
    theirs = oracle(lambda torch: torch.polygamma(
        n, torch.tensor(FAR_NEGATIVE, dtype=torch.float64)).tolist())
    out = program_output(f"import torch\nx = torch.tensor({FAR_NEGATIVE}, dtype=torch.float64)\n"
                         f"print(torch.polygamma({n}, x).tolist())\n")
    assert ast.literal_eval(out) == pytest.approx(theirs, rel=1e-9)  # (as for positive x)


# ---------------------------------------------------------------------- iterated in C

ITERATED_IN_C = {
    "any": "any(np.zeros(1001))",
    "all": "all(np.ones(1001))",
    "sum": "sum(np.ones(1001))",
    "sum of a tensor": "sum(torch.ones(1001))",
    "max": "max(np.ones(1001))",
    "min of rows": "min(np.ones((1001, 1)))",
    "math.fsum": "math.fsum(np.ones(1001))",
    "math.dist": "math.dist(np.ones(1001), np.ones(1001))",
}


@pytest.mark.parametrize("source", ITERATED_IN_C.values(), ids=ITERATED_IN_C.keys())
def test_builtins_that_iterate_an_array_in_c_are_metered(source, small_limits):
    """any, all, sum (of numbers), min, max, math.fsum and math.dist iterate an array's items
    in C, where neither the timeout's alarm nor Ctrl-C is seen until they end: `sum(a)` of the
    10 ** 8 elements the element limit allows ran 11 s past a timeout of 2 (`any(a)` 6.6 s),
    and the REPL's Ctrl-C could only kill the evaluator, session and all.  Expected: refused
    past GRADCLI_MAX_ITEMS (1,000 here), as list(a) and sorted(a) are."""
    line, _ = _error(f"import torch\nimport numpy as np\nimport math\nr = {source}\n")
    assert line.startswith("MemoryError: sequence too long"), line


def test_builtins_still_iterate_what_is_under_the_limit(small_limits):
    assert program_output(
        "import torch\nimport numpy as np\nimport math\n"
        "print(any(np.zeros(3)), all(x > 0 for x in [1, 2]), sum(np.ones(1000)), "
        "max(np.arange(5)), min(torch.arange(3)), any(torch.ones(2), dim=0), "
        "math.fsum([0.1] * 10), math.dist([0, 0], [3, 4]))\n") == \
        "False True 1000.0 4 tensor(0) tensor(True) 1.0 5.0\n"


FROM_BYTES = {
    "an array": "int.from_bytes(np.ones(2000, np.uint8), 'big')",
    "an array of floats": "int.from_bytes(np.ones(200), 'big')",
    "a list": "int.from_bytes([1] * 2000, 'big')",
    "an iterator": "int.from_bytes(iter([1] * 2000), 'big')",
    "a tensor": "int.from_bytes(torch.ones(2000, dtype=torch.uint8), 'big')",
}


@pytest.mark.parametrize("source", FROM_BYTES.values(), ids=FROM_BYTES.keys())
def test_int_from_bytes_is_metered_whatever_it_reads(source, monkeypatch):
    """int.from_bytes was metered for bytes only: an array (any buffer), a list or an iterator
    of byte values made an integer of 8 bits a byte past GRADCLI_MAX_INT_BITS, 8 * 10 ** 8
    bits from the element limit's array, whose `//` (quadratic in C, and unmetered) then runs
    for days.  Expected: refused (a limit of 10,000 bits here)."""
    from gradcli.lang import limits
    monkeypatch.setattr(limits, "MAX_INT_BITS", 10_000)
    line, _ = _error(f"import torch\nimport numpy as np\nr = {source}\n")
    assert line.startswith("OverflowError: integer too large"), line
    assert program_output("import numpy as np\nprint(int.from_bytes([1, 2], 'big'), "
                          "int.from_bytes(np.array([1, 2], np.uint8), 'little'), "
                          "(5).from_bytes(iter([1]), 'big'))\n") == "258 513 1\n"


def test_math_has_no_exact_sum_of_products():
    """math.sumprod (Python 3.12 and later) multiplies integers exactly, with no meter:
    `math.sumprod([x], [x])` squares a number of a million bits, and each square of the last
    takes three times as long, in C.  Expected: not in the math module, as math.prod is not
    (on every Python, so that a program runs alike on each)."""
    line, _ = _error("import math\nx = 3 ** 600000\ny = math.sumprod([x], [x])\n")
    assert line == "AttributeError: module 'math' has no attribute 'sumprod'", line


# ---------------------------------------------------------------------- a tensor in pieces

PIECES = {
    "unbind": "torch.zeros(2000).unbind()",
    "torch.unbind": "torch.unbind(torch.zeros(2000))",
    "unbind of a dimension": "torch.zeros(1, 2000).unbind(1)",
    "unbind of an expanded tensor": "torch.zeros(1).expand(2000).unbind()",
    "split": "torch.zeros(2000).split(1)",
    "chunk": "torch.zeros(2000).chunk(2000)",
}


@pytest.mark.parametrize("source", PIECES.values(), ids=PIECES.keys())
def test_a_tensor_in_more_pieces_than_a_list_may_hold_is_refused(source, small_limits):
    """list(t) of a tensor is metered by GRADCLI_MAX_ITEMS (a Python object a row, some 360
    bytes each), but t.unbind(), t.split(1) and t.chunk(n) made their tuple of views unmetered:
    `torch.zeros(10 ** 8).unbind()` (an expanded tensor of one element will do) is 10 ** 8
    tensors, 36 GB.  Expected: refused past the item limit (1,000 here) before the pieces are
    made."""
    line, _ = _error(f"import torch\nr = {source}\n")
    assert line.startswith("MemoryError: sequence too long"), line


def test_a_tensor_in_as_many_pieces_as_a_list_may_hold_is_made(small_limits):
    assert program_output("import torch\nprint(len(torch.zeros(1000).split(1)), "
                          "len(torch.zeros(1000, 2).unbind(1)), len(torch.zeros(2000).chunk(2)))\n"
                          ) == "1000 2 2\n"


def test_a_generator_shows_what_pytorchs_does():
    """torch.Generator showed the engine's layout of its state, STATE_LAYOUT (a NumPy
    structured dtype, which no program may make arrays of), to `dir()`, tab completion and
    attribute reads; PyTorch's Generator has no such attribute.  Expected: public names that
    PyTorch's Generator has (it has a few more: clone_state, get_offset, ...)."""
    assert program_output("import torch\nprint(dir(torch.Generator()))\n") == \
        "['device', 'get_state', 'initial_seed', 'manual_seed', 'seed', 'set_state']\n"
    line, _ = _error("import torch\nr = torch.default_generator.STATE_LAYOUT\n")
    assert line.startswith("AttributeError:") and "STATE_LAYOUT" in line, line


# ---------------------------------------------------------------------- f-strings

FSTRINGS = [r'f"\N{DIGIT ONE}{x}"', r'f"{x!r:\N{DIGIT ONE}}"',
            r'f"\N{DIGIT ONE}\N{LATIN SMALL LETTER A}"', r'f"\\N{x}"', r'f"\\{x}"', r'rf"\{x}"',
            r'f"a\{x}"', r'f"a\\\{x}"']


@pytest.mark.parametrize("source", FSTRINGS)
def test_an_f_string_reads_its_escapes_as_python_does(source):
    """The f-string splitter took the brace of a character's name (`\\N{DIGIT ONE}`) for a
    field, and a backslash before a field's brace (`\\{x}`, an invalid escape Python keeps)
    for the end of the literal, whose text then failed to parse: a SyntaxError where Python
    prints the text.  Expected: Python's value."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = eval(source, {"x": 5})
        out = program_output(f"x = 5\nprint({source})\n")
    assert out.splitlines()[-1] == expected, out


def test_in_a_tensor_is_checked_before_numpy_compares(small_limits):
    """`x in t` compared t's array with x's in NumPy, unchecked: `torch.ones(10 ** 5, 1) in
    torch.ones(10 ** 5)` broadcast 10 ** 10 booleans (10 GB), and a list or an ndarray was
    compared as NumPy makes it an array.  Expected: a tensor compared by the engine's op (its
    result checked against the element limit, 2,000 here), anything but a tensor or a number
    refused with PyTorch's error."""
    line, _ = _error("import torch\nr = torch.ones(1000, 1) in torch.ones(1000)\n")
    assert "exceeds the limit" in line, line
    line, _ = _error("import torch\nimport numpy as np\n"
                     "r = np.ones((1000, 1)) in torch.ones(1000)\n")
    assert line == "RuntimeError: Tensor.__contains__ only supports Tensor or scalar, but you " \
                   "passed in a <class 'numpy.ndarray'>.", line
    assert program_output("import torch\nprint(torch.ones(3, 1) in torch.ones(3), "
                          "torch.tensor([2.]) in torch.arange(3.), 5 in torch.arange(3), "
                          "True in torch.ones(2))\n") == "True True False True\n"


@pytest.mark.parametrize("source", [
    "torch.ones(1000).masked_scatter(torch.zeros(1000, 1, dtype=torch.bool), torch.ones(1))",
    "torch.ones(1000, 1).masked_scatter(torch.zeros(1000, dtype=torch.bool), torch.ones(1))"],
    ids=["a mask that broadcasts self", "self that broadcasts the mask"])
def test_masked_scatter_is_checked_before_its_result_is_made(source):
    """masked_scatter broadcasts self and the mask, and made self's broadcast (the result)
    before the engine checked the element limit: `torch.ones(10 ** 5).masked_scatter(
    torch.zeros(10 ** 5, 1, dtype=torch.bool), torch.ones(1))` is 10 ** 10 floats (40 GB).
    Expected: refused before NumPy allocates."""
    _refused_before_made(source)
