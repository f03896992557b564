"""Every construct of the language parses and runs with Python's semantics: each program here is
valid Python, and what it prints in a gradcli session equals what Python's own exec prints."""

import contextlib
import io

import pytest

PROGRAMS = {
    "numbers": "print(3, 3., .5, 1e-3, 2.5e+2, 0x1F, 0o17, 0b101, 1_000, 2j, 10 // 3, -7 % 3)",
    "constants": "print(True, False, None, ...)",
    "strings": "print('a' 'b', \"c\\td\", r'\\n', '''tri\nple''', 'it''s' + \"x\")",
    "f-strings": ("x = 3.14159; w = 8; name = 'gr'\n"
                  "print(f'{x:.2f}|{x!r}|{name!s:>5}|{x:{w}.3f}|{{lit}}|{x=}|{name=!s}')\n"
                  "print(f\"{'nested'}\", f'{[1, 2][0]}', f'{ {1: 2}[1] }', f'{x if x else 0}')"),
    "f-string with a tensor-like format": "print(f'{1.5!r:>8}', format(2.5, '.3f'))",
    "lists tuples dicts sets": ("a = [1, 2, *[3, 4]]; t = (1,); e = (); d = {'k': 1, **{'j': 2}}\n"
                                "s = {1, 2, 2}\nprint(a, t, e, d, sorted(s), [], {})"),
    "comprehensions": ("print([i * i for i in range(6) if i % 2 if i > 1],\n"
                       "      [(i, j) for i in range(3) for j in range(i)],\n"
                       "      {k: v for k, v in zip('ab', (1, 2))},\n"
                       "      sorted({i % 3 for i in range(9)}),\n"
                       "      sum(i for i in range(10)), list(x for x in 'ab'))"),
    "assignment forms": ("a = b = 1\nc, d = 2, 3\n(e, f), g = (4, 5), 6\nh, *i = range(4)\n"
                         "d1, = [7]\n[j, k] = 8, 9\nprint(a, b, c, d, e, f, g, h, i, d1, j, k)"),
    "subscripts and slices": ("x = list(range(10))\nx[0] = 100\nx[1:3] = ['a']\n"
                              "print(x[::2], x[-1], x[1:-1:3], x[:], x[5:])\n"
                              "d = {(1, 2): 'tuple key'}\nprint(d[1, 2], d[(1, 2)])"),
    "augmented assignment": ("a = 5\na += 2; a -= 1; a *= 3; a /= 2; a //= 2; a %= 5; a **= 3\n"
                             "l = [1]; l += [2]; l *= 2\nd = {'k': 1}; d['k'] += 10\n"
                             "b = 6; b &= 3; c = 4; c |= 1\nprint(a, l, d, b, c)"),
    "operators and precedence": ("print(-2 ** 2, 2 ** -1, 2 ** 3 ** 2, 1 + 2 * 3 - 4 / 2, "
                                 "7 // 2 * 2, -(3 - 5), +4, ~5, 6 & 3, 6 | 3, (1 + 2) * 3)"),
    "comparisons and booleans": ("x = 2\nprint(1 < x < 3, 1 < x > 3, x == 2 != 3, x is None, "
                                 "x is not None, 2 in [2], 3 not in [2], not x, x and 0, "
                                 "0 or 'y', None or [] or 'z')"),
    "conditional expressions": "x = 0\nprint(1 if x else 2, 'a' if x else 'b' if not x else 'c')",
    "lambda": ("f = lambda a, b=2, *c, k=3, **kw: (a, b, c, k, kw)\n"
               "print(f(1), f(1, 5, 6, 7, k=8, z=9), (lambda: 'none')(), "
               "sorted([3, 1, 2], key=lambda v: -v))"),
    "def with defaults and keywords": (
        "def f(a, b=2, *args, c, d=4, **kwargs):\n"
        "    '''A docstring.'''\n"
        "    return a, b, args, c, d, kwargs\n"
        "print(f(1, c=3), f(1, 2, 3, 4, c=5, e=6), f(*[1, 2], **{'c': 7}))"),
    "annotations": "def f(x: int, y: 'str' = 'a') -> list:\n    return [x, y]\nprint(f(1))",
    "closures and late binding": (
        "def make():\n    fs = []\n    for i in range(3):\n        fs.append(lambda i=i: i * 10)\n"
        "    return fs\nprint([g() for g in make()])\n"
        "def counter():\n    count = [0]\n    def inc():\n        count[0] += 1\n"
        "        return count[0]\n    return inc\nc = counter(); c(); print(c())"),
    "recursion": "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\nprint(fact(20))",
    "if elif else": ("for v in (0, 1, 2):\n    if v == 0:\n        print('zero')\n"
                     "    elif v == 1:\n        print('one')\n    else:\n        print('many')"),
    "for else, while, break, continue": (
        "for i in range(5):\n    if i == 1:\n        continue\n    if i == 3:\n        break\n"
        "    print(i)\nelse:\n    print('no break')\n"
        "n = 0\nwhile n < 3:\n    n += 1\nelse:\n    print('while else', n)\n"
        "while True:\n    n -= 1\n    if n == 0:\n        break\nprint(n)"),
    "pass, semicolons and comments": ("x = 1; y = 2;  # comment\n# a whole-line comment\n"
                                      "if x:\n    pass\nprint(x + y)  # done"),
    "del": "a = [1, 2, 3]\ndel a[0]\nb = 1\ndel b\nd = {'k': 1, 'j': 2}\ndel d['k']\nprint(a, d)",
    "assert": "assert 1 < 2\nassert True, 'message'\nprint('ok')",
    "calls with star arguments": ("def f(*a, **k):\n    return a, k\nargs = [1, 2]\n"
                                  "print(f(*args, 3, *args, x=1, **{'y': 2}), f(**{'z': 0}))"),
    "classes with static methods": (
        "class Shape:\n    sides = 0\n    @staticmethod\n    def describe(n):\n"
        "        return f'{n} sides'\n    @classmethod\n    def make(cls):\n        return cls\n"
        "print(Shape.sides, Shape.describe(4), Shape.make() is Shape)"),
    "line continuation": "x = 1 + \\\n    2\ny = (3 +\n     4)\nprint(x, y)",
    "builtins": ("print(len('abc'), abs(-2), min(3, 1), max([4, 9]), round(2.567, 2), "
                 "divmod(7, 2), pow(2, 10), sorted('cab'), list(reversed([1, 2])), "
                 "list(map(str, [1, 2])), list(filter(None, [0, 1])), any([0, 1]), all([]), "
                 "isinstance(1, int), int('7'), float('1.5'), bool(0), str(3), repr('q'), "
                 "list(enumerate('ab')), dict(a=1), tuple([1]), set(), hash(1) == hash(1), "
                 "'{} {:>4}'.format(1, 'x'), '%s=%d' % ('a', 1), chr(65), ord('A'))"),
}


def python_output(source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<python>", "exec"), {})
    return out.getvalue()


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_program_prints_what_python_prints(run, source):
    assert run(source) == python_output(source)


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_program_parses_as_one_module(source):
    import ast
    from gradcli.lang.syntax import parse_module
    assert isinstance(parse_module(source), ast.Module)


def test_with_statements_nest_and_bind_targets(run):
    source = ("import torch\nx = torch.tensor(2., requires_grad=True)\n"
              "with torch.no_grad():\n    with torch.enable_grad() as g:\n        y = x * 3\n"
              "    z = x * 3\nprint(y.requires_grad, z.requires_grad, g is None)")
    assert run(source) == "True False True\n"


def test_caret_is_power_and_right_associative(run):
    assert run("print(2 ^ 3, 2 ^ 3 ^ 2, -2 ^ 2)\nx = 3\nx ^= 2\nprint(x)") == "8 512 -4\n9\n"


def test_imports_bind_like_python(run):
    source = ("import torch\nimport torch as T\nimport numpy as np\nimport math\n"
              "import torch.autograd\nimport torch.nn.functional as F\n"
              "from torch import tensor, exp as E\nfrom torch.autograd import grad, Function\n"
              "from math import (sqrt,\n    pi)\n"
              "print(T is torch, torch.autograd is T.autograd, F, E is torch.exp, sqrt(4.0), "
              "math.floor(pi), np.pi == pi)")
    assert run(source) == ("True True <module 'torch.nn.functional'> True 2.0 3 True\n")


def test_star_import_binds_public_names(run):
    assert run("from math import *\nprint(floor(2.5), factorial(5))") == "2 120\n"


def test_class_deriving_from_autograd_function(run):
    source = ("import torch\nclass Cube(torch.autograd.Function):\n    @staticmethod\n"
              "    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        return x ** 3\n"
              "    @staticmethod\n    def backward(ctx, g):\n        x, = ctx.saved_tensors\n"
              "        return g * 3 * x ** 2\n"
              "x = torch.tensor(2., requires_grad=True)\ny = Cube.apply(x)\ny.backward()\n"
              "print(y, x.grad)")
    assert run(source) == "tensor(8., grad_fn=<CubeBackward>) tensor(12.)\n"


def test_bare_op_names_and_constants_need_no_import(run):
    assert run("x = tensor([1., 2.])\nprint(exp(x * 0), pi, e, inf, nan)") == (
        "tensor([1., 1.]) 3.141592653589793 2.718281828459045 inf nan\n")


def test_bare_math_names_compute_on_python_numbers(run):
    assert run("print(exp(0.), sqrt(16), log(e))") == "1.0 4.0 1.0\n"


def test_predefined_names_may_be_shadowed(run):
    assert run("pi = 3\nexp = lambda v: v + 1\nprint(pi, exp(1))") == "3 2\n"


def test_python_builtins_win_over_op_names(run):
    assert run("print(abs(-2), sum([1, 2]), max(1, 5), int(2.7), float(1))") == "2 3 5 2 1.0\n"
