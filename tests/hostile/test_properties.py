"""Property-based tests (hypothesis): random valid expressions differentiate like central finite
differences; random bytes and token soups only ever give ProgramError; random REPL sessions
survive every bad statement.  Example counts are kept small: the whole directory runs in well
under a minute."""

import io
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.lang.console import run_piped
from gradcli.lang.errors import ProgramError
from gradcli.lang.parser import parse
from gradcli.lang.session import Session

FEW = settings(max_examples=30, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
HEADLINE = re.compile(r"[A-Z][A-Za-z]*(Error|Exception|Interrupt)(: .*)?")

# ---------------------------------------------------------------------- expressions vs FD

VARIABLES = ("a", "b", "c")
# Each form keeps its result finite and smooth for any finite argument in a moderate range, so
# that central differences are accurate: (gradcli source, Python source on floats).
UNARY = [
    ("sin({})", "math.sin({})"),
    ("cos({})", "math.cos({})"),
    ("tanh({})", "math.tanh({})"),
    ("torch.sigmoid({})", "(1 / (1 + math.exp(-({}))))"),
    ("exp(tanh({}))", "math.exp(math.tanh({}))"),
    ("log({0} * {0} + 1)", "math.log({0} * {0} + 1)"),
    ("sqrt({0} * {0} + 1)", "math.sqrt({0} * {0} + 1)"),
    ("(-{})", "(-{})"),
    ("({} ** 2)", "({} ** 2)"),
    ("({}).pow(3)", "(({}) ** 3)"),
    ("torch.atan({})", "math.atan({})"),
]
BINARY = [
    ("({} + {})", "({} + {})"),
    ("({} - {})", "({} - {})"),
    ("({} * {})", "({} * {})"),
    ("({0} / ({1} * {1} + 1))", "({0} / ({1} * {1} + 1))"),
    ("({0} * {1}).sin()", "math.sin({0} * {1})"),
]
CONSTANTS = ["0.5", "2", "1.5", "3"]


def _leaves():
    constants = [(f"torch.tensor({c}, dtype=torch.float64)", c) for c in CONSTANTS]
    return st.sampled_from([(v, v) for v in VARIABLES] + constants)


def _extend(children):
    unary = st.tuples(st.sampled_from(UNARY), children).map(
        lambda t: (t[0][0].format(t[1][0]), t[0][1].format(t[1][1])))
    binary = st.tuples(st.sampled_from(BINARY), children, children).map(
        lambda t: (t[0][0].format(t[1][0], t[2][0]), t[0][1].format(t[1][1], t[2][1])))
    return unary | binary


EXPRESSIONS = st.recursive(_leaves(), _extend, max_leaves=6).filter(
    lambda e: re.search(r"\b[abc]\b", e[1]))
POINTS = st.tuples(*[st.floats(0.3, 1.7) for _ in VARIABLES])


@FEW
@given(EXPRESSIONS, POINTS)
def test_random_expressions_differentiate_like_finite_differences(expression, point):
    source, python_source = expression
    session = Session(out=io.StringIO())
    leaves = "".join(f"{name} = torch.tensor({v!r}, dtype=torch.float64, requires_grad=True)\n"
                     for name, v in zip(VARIABLES, point))
    session.run(f"import torch\ndef F(a, b, c):\n    return {source}\n"
                f"{leaves}out = F(a, b, c)\nout.backward()")
    namespace = session.namespace
    expected = eval(python_source, dict(zip(VARIABLES, point), math=math))
    assert namespace["out"].item() == pytest.approx(expected, rel=1e-9, abs=1e-12)
    torch = namespace["torch"]
    h = 1e-6
    for i, name in enumerate(VARIABLES):
        def at(shift):
            args = [torch.tensor(p + (shift if j == i else 0.0), dtype=torch.float64)
                    for j, p in enumerate(point)]
            return namespace["F"](*args).item()
        numeric = (at(h) - at(-h)) / (2 * h)
        grad = namespace[name].grad
        analytic = 0.0 if grad is None else grad.item()
        assert analytic == pytest.approx(numeric, rel=1e-4, abs=1e-5), (source, name)


# ---------------------------------------------------------------------- garbage in

TOKENS = ["x", "y", "torch", "tensor", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "+",
          "-", "*", "/", "**", "^", "%", "@", "<", "==", "not", "and", "or", "if", "else",
          "for", "in", "while", "def", "return", "lambda", "class", "import", "from", "as",
          "with", "pass", "break", "1", "2.5", "1e3", "'s'", 'f"{x}"', '"""', "None", "True",
          "\n", "\n    ", "  ", "#", "\\", ";", "_", "__class__", "print", "range", "0x1f",
          "sin", "backward", "grad", "requires_grad", "!", "$", "?", "`", "\t", "\x00", "é"]
SOUPS = st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join)
BYTES = st.binary(max_size=200).map(lambda b: b.decode("latin-1"))


def _only_program_errors(source):
    session = Session(out=io.StringIO())
    try:
        session.run("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = 2")
        session.run(source, timeout=2)
    except ProgramError as e:
        assert HEADLINE.fullmatch(e.headline()), e.headline()
        assert "\n" not in e.headline()
    try:
        parse(source)
    except ProgramError:
        pass
    assert session.run("1 + 1") == 2


@FEW
@given(SOUPS)
def test_token_soups_give_program_errors_only(source):
    _only_program_errors(source)


@FEW
@given(BYTES)
def test_random_bytes_give_program_errors_only(source):
    _only_program_errors(source)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=12).map(" ".join))
def test_soups_inside_a_valid_program_give_program_errors_only(fragment):
    _only_program_errors(f"def f(t):\n    return {fragment}\nz = f(x)\nprint(z)")


# ---------------------------------------------------------------------- REPL sessions

GOOD = ["x = torch.tensor([1., 2., 3.], requires_grad=True)", "y = (x * x).sum()",
        "y.backward()", "x.grad", "print(x.grad)", "z = sin(x) * 2", "z", "x.grad = None",
        "def f(t):\n    return t ** 2\n", "f(3)", "for i in range(3):\n    i\n",
        "with torch.no_grad():\n    w = x * 2\n", "w.requires_grad", "import numpy as np",
        "np.array([1, 2]).sum()", "q = [1, 2, 3]; q[1]", "'text'", "None", "1 if x is None else 2",
        "class C:\n    k = 1\n", "C.k", "torch.ones(2, 2) @ torch.ones(2)"]
BAD = ["1 / 0", "undefined", "x.nope", "torch.ones(2) + torch.ones(3)", ")", "]", "x = = 1",
       "if x = 1:\n    pass\n", "import os", "x.__class__", "open('f')", "y.backward()",
       "[0] * 10 ** 12", "10 ** 10 ** 10", "def g(:\n", "f(", "'unclosed", "x[10]",
       "torch.tensor([1, 2]).backward()", "del undefined", "lambda: (yield)", "q[5]",
       "print(1,, 2)", "\x00", "é = 1", "torch.zeros(10 ** 6, 10 ** 6)", "assert False, 'no'",
       "int('x')", "x.grad.zero_() + undefined", "  indented = 1", "for i in 3:\n    pass\n"]


@FEW
@given(st.lists(st.sampled_from(GOOD + BAD), max_size=15))
def test_random_repl_sessions_survive_and_still_add(statements):
    lines = []
    for statement in statements:
        lines.append(statement)
        if "\n" in statement.strip("\n") or statement.rstrip().endswith(":"):
            lines.append("")
    # A statement left open (an unclosed bracket or string) would swallow the last line as
    # Python's interactive interpreter would: close it first.
    text = "\n".join(lines) + "\n\n)\n]\n'\n\n1 + 1\n"
    out = io.StringIO()
    assert run_piped(io.StringIO("import torch\n" + text), out) == 0
    output = out.getvalue()
    assert "Traceback" not in output
    assert output.splitlines()[-1] == "2"


# ---------------------------------------------------------------------- the facades' names

def _facade_calls():
    """`module.name` for every function of the numpy and random facades, and the builtins and
    torch names that take functions, dtypes or sizes (names that change global state are left
    out)."""
    from gradcli.lang.namespace import Facade, modules
    numpy = modules()["numpy"]
    names = []
    for prefix, facade in (("np", numpy), ("np.random", numpy._members["random"]),
                           ("np.linalg", numpy._members["linalg"]),
                           ("random", modules()["random"])):
        names += [f"{prefix}.{n}" for n, v in facade._members.items()
                  if callable(v) and not isinstance(v, Facade) and n != "seed"]
    names += ["map", "filter", "sorted", "min", "max", "iter", "int", "str", "list", "tuple",
              "round", "pow", "sum", "hash", "isinstance", "len", "repr", "property",
              "staticmethod", "torch.tensor", "torch.zeros", "torch.from_numpy", "torch.einsum",
              "torch.as_tensor", "torch.ones_like"]
    return sorted(names)


ARGUMENTS = ["0", "1", "2", "3", "-1", "2.5", "True", "None", "'O'", "'i8'", "'f4'", "'U3'",
             "'V8'", "'fro'", "'ij->ji'", "'a\\tb'", "[1, 2]", "[[1., 2.], [3., 4.]]", "(2, 2)",
             "[len]", "len", "abs", "lambda v: v", "a", "x", "x.detach()", "np.float64",
             "np.int8", "np.dtype('f8')", "np.ndarray", "object_like", "y.grad_fn", "[2 ** 100]",
             "str", "int", "{1: 'xy'}"]
METHODS = ["astype", "sum", "cumsum", "reshape", "tolist", "copy", "fill", "clip", "round",
           "expandtabs", "translate", "encode", "upper", "join", "sort", "extend"]
CALL = st.tuples(st.sampled_from(_facade_calls()),
                 st.lists(st.sampled_from(ARGUMENTS), max_size=3),
                 st.lists(st.tuples(st.sampled_from(["dtype", "key", "size", "out"]),
                                    st.sampled_from(ARGUMENTS)), max_size=1))
METHOD_CALL = st.tuples(st.sampled_from(ARGUMENTS), st.sampled_from(METHODS),
                        st.lists(st.sampled_from(ARGUMENTS), max_size=2))


def _render_call(call):
    name, args, keywords = call
    return f"{name}({', '.join(args + [f'{k}={v}' for k, v in dict(keywords).items()])})"


def _render_method(call):
    receiver, method, args = call
    return f"({receiver}).{method}({', '.join(args)})"


PROGRAM_STATEMENTS = st.lists(st.one_of(CALL.map(_render_call), METHOD_CALL.map(_render_method)),
                              min_size=1, max_size=6)


def _engine_value(value, path="v"):
    """Assert value is what a program may hold: engine objects, numeric NumPy arrays and plain
    Python values (containers checked one level down)."""
    import numpy as np
    from gradcli.lang import allowed
    assert not isinstance(value, allowed.UNSAFE_TYPES) or type(value).__name__ == "generator", \
        path
    assert id(value) not in allowed.DENIED_IDS, path
    module = type(value).__module__ or ""
    assert module.split(".")[0] in ("builtins", "gradcli", "torch", "numpy", "functools") or \
        type(value) in allowed.PROGRAM_CLASSES, (path, type(value))
    if isinstance(value, (np.ndarray, np.generic)):
        assert value.dtype.kind in "biufc", (path, value.dtype)
    if isinstance(value, (list, tuple, set, frozenset)) and len(value) < 100:
        for item in value:
            assert id(item) not in allowed.DENIED_IDS, path
            if isinstance(item, (np.ndarray, np.generic)):
                assert item.dtype.kind in "biufc", (path, item.dtype)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(PROGRAM_STATEMENTS)
def test_programs_of_the_facades_names_never_crash_or_leak(statements):
    session = Session(out=io.StringIO())
    session.run("import torch\nimport numpy as np\nimport random\n"
                "x = torch.tensor([1., 2.], requires_grad=True)"
                "\ny = (x * 2).sum()\na = np.array([1., 2.])\nclass Like:\n    pass\n"
                "object_like = Like()")
    for i, statement in enumerate(statements):
        try:
            session.run(f"v{i} = {statement}", timeout=2)
        except ProgramError as e:
            assert HEADLINE.fullmatch(e.headline()), e.headline()
            assert "\n" not in e.headline()
    for name, value in session.namespace.items():
        if name != "__builtins__":
            _engine_value(value, name)
    assert session.run("1 + 1") == 2
