"""Attacks on generators (`yield`, `yield from`, generator expressions): a generator object
holds gi_frame (whose f_globals, f_builtins and f_back are gradcli's), gi_code and
gi_yieldfrom; the engine's own generators (`model.parameters()`) resume engine code; and a
generator the garbage collector finalizes would run the program's finally blocks wherever the
collection happens.  A program reaches none of it, an endless generator meets the limits a loop
meets, and deep recursion through generators ends in Python's RecursionError."""

import gc
import io
import subprocess
import sys

import pytest
from processes import ROOT, program_error, program_output

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

GEN = "def gen():\n    x = yield 1\n    yield 2\ng = gen()\nnext(g)\n"
NOT_AVAILABLE = "is not available in gradcli programs"


@pytest.mark.parametrize("attack", [
    "g.gi_frame", "g.gi_code", "g.gi_yieldfrom", "g.gi_running", "g.gi_suspended",
    "g.gi_frame.f_globals", "g.__next__", "g.__class__", "g.__name__", "g.__qualname__",
    "(x for x in [1]).gi_frame", "(lambda: (yield))().gi_frame",
    "'{0.gi_frame}'.format(g)", "'{g.gi_code}'.format_map({'g': g})",
    "g.close.func", "g.throw.args", "g.close._generator", "g.send.__self__",
    "type(g).gi_frame", "type(g)(1)", "type(g.close).__call__",
])
def test_a_generators_internals_are_out_of_reach(attack):
    line, _ = program_error(GEN + attack + "\n")
    assert line.startswith(("AttributeError", "TypeError")), line
    assert "gi_" not in program_output(GEN + "print(dir(g))\n").replace("'", "")


@pytest.mark.parametrize("source", [
    "import torch\nm = torch.nn.Linear(2, 2)\np = m.parameters()\nnext(p)\np.{method}(None)",
    "import torch\nm = torch.nn.Sequential(torch.nn.Linear(2, 2))\np = m.named_modules()\n"
    "next(p)\np.{method}(None)",
    "it = iter(lambda: 1, 2)\nnext(it)\nit.{method}(None)",
])
@pytest.mark.parametrize("method", ["send", "throw", "close"])
def test_the_engines_generators_iterate_and_no_more(source, method):
    """(send would resume engine code with the program's value, throw raise in it)"""
    line, _ = program_error(source.format(method=method))
    assert line == f"AttributeError: 'generator' object attribute '{method}' {NOT_AVAILABLE}"


@pytest.mark.parametrize("method", ["send(1)", "throw(ValueError('x'))"])
def test_yield_from_an_engine_generator_reaches_it_by_iteration_alone(method):
    """(send and throw of a generator that delegates to model.parameters() would resume the
    engine's generator with the program's value or exception)"""
    source = ("import torch\nm = torch.nn.Linear(2, 2)\ndef f():\n    yield from m.parameters()\n"
              "g = f()\nprint(next(g).shape)\ng." + method + "\n")
    line, printed = program_error(source)
    assert printed == "torch.Size([2, 2])\n"
    assert line in ("AttributeError: 'itertools.chain' object has no attribute 'send'",
                    "ValueError: x"), line
    assert program_output(source.replace("g." + method, "print(len(list(g)))")) == \
        "torch.Size([2, 2])\n1\n"


@pytest.mark.parametrize("thrown, expected", [
    ("StopIteration", "RuntimeError: generator raised StopIteration"),
    ("ValueError, ValueError('x'), 3", "TypeError: throw() third argument must be a traceback"),
    ("ValueError.mro()[-2]", "AttributeError: 'type' object attribute 'mro' " + NOT_AVAILABLE),
    ("type(g.close)", "TypeError: exceptions must be classes or instances deriving from "
                      "BaseException, not"),
])
def test_throw_takes_what_raise_takes(thrown, expected):
    line, _ = program_error(GEN + f"g.throw({thrown})\n")
    assert line.startswith(expected), line


def test_the_closing_guard_is_a_reserved_name():
    line, _ = program_error("def f():\n    _closing = 1\n    yield _closing\n")
    assert line == "NameError: '_closing' is a name gradcli reserves for itself"


FINALIZED = """\
def f():
    me = yield
    try:
        yield 1
    except print('except clause evaluated') or ValueError:
        pass
    finally:
        print('finally ran')
        while True:
            pass
g = f()
next(g)
g.send(g)    # (a cycle: its frame holds the generator, which only the collector finalizes)
h = f()
next(h)
h.send(None)
del g, h     # (h: finalized here, by its reference count)
chain = None
def delegate(inner):
    try:
        yield from inner
    finally:
        print('delegate finally ran')
for _ in range(900):
    chain = delegate(chain if chain is not None else f())
next(chain)
chain.send(None)
chain = None
print('program ended')
"""


def test_the_collector_runs_no_program_code_of_a_generator_it_finalizes():
    """A suspended generator finalized by its reference count, by the cyclic collector after
    the program ended, or as a chain of 900 delegations, runs neither its finally blocks (one
    an endless loop) nor the expressions of its except clauses, and nothing is reported."""
    out = io.StringIO()
    session = Session(out=out)
    hooked = []
    previous, sys.unraisablehook = sys.unraisablehook, hooked.append
    try:
        session.run(FINALIZED, timeout=20)
        session.namespace.clear()
        gc.collect()
    finally:
        sys.unraisablehook = previous
    assert out.getvalue() == "program ended\n"
    assert hooked == []


@pytest.mark.parametrize("suspended", [
    "        def g(a: (yield 1)):\n            pass\n",            # (an annotation)
    "        def g(a=(yield 1)):\n            pass\n",            # (a default)
    "        @(yield 1)\n        def g():\n            pass\n",    # (a decorator)
    "        class C((yield 1)):\n            pass\n",           # (a base)
    "        def g() -> (yield 1):\n            pass\n",          # (a return annotation)
])
def test_a_yield_anywhere_in_a_function_guards_its_finally_blocks(suspended):
    """(Each of these makes the enclosing function a generator, suspended inside its try.)"""
    source = ("def f():\n    try:\n" + suspended + "    finally:\n        print('ran')\n"
              "it = f()\nprint(next(it))\nit = None\nprint('dropped')\n")
    out = io.StringIO()
    Session(out=out).run(source, timeout=10)
    assert out.getvalue() == "1\ndropped\n"


def test_a_close_of_the_programs_own_runs_finally_blocks_and_is_timed():
    source = ("def f():\n    try:\n        yield 1\n    finally:\n        print('cleanup')\n"
              "        while True:\n            pass\ng = f()\nnext(g)\ng.close()\n")
    out = io.StringIO()
    with pytest.raises(ProgramError) as e:
        Session(out=out).run(source, timeout=1)
    assert (e.value.type_name, out.getvalue()) == ("TimeoutError", "cleanup\n")


ENDLESS = "def zeros():\n    while True:\n        yield 0\n"


@pytest.mark.parametrize("consumer", [
    "list(zeros())", "tuple(zeros())", "sum(zeros())", "max(zeros())", "sorted(zeros())",
    "any(zeros())", "1 in zeros()", "set(zeros())", "dict.fromkeys(zeros())",
    "''.join(str(z) for z in zeros())", "[*zeros()]", "list(zip(zeros(), zeros()))",
    "list(enumerate(zeros()))", "[z for z in zeros()]", "[].extend(zeros())",
    "list((lambda: (yield from zeros()))())", "list(x for x in zeros())",
    "import torch\ntorch.tensor(list(zeros()))",
])
def test_an_endless_generator_meets_the_timeout_as_a_loop_does(consumer):
    with pytest.raises(ProgramError) as e:
        Session(out=io.StringIO()).run(ENDLESS + consumer + "\n", timeout=1)
    assert e.value.type_name == "TimeoutError"


@pytest.mark.parametrize("recursion", [
    "def g(n):\n    yield from g(n + 1)\nnext(g(0))\n",
    "def g(n):\n    yield next(g(n + 1))\nnext(g(0))\n",
    "def g(n):\n    for x in g(n + 1):\n        yield x\nlist(g(0))\n",
    "g = lambda n: (yield from g(n + 1))\nnext(g(0))\n",
    "def g(n):\n    yield from (x for x in g(n + 1))\nnext(g(0))\n",
])
def test_deep_recursion_through_generators_is_pythons_recursion_error(recursion):
    line, _ = program_error(recursion)
    assert line.startswith("RecursionError: maximum recursion depth exceeded"), line


def test_deep_generator_recursion_does_not_crash_an_evaluator(tmp_path):
    """(In an evaluator, through the CLI: C recursion in next(), then the collector's close of
    the generators the error left suspended.)"""
    program = tmp_path / "deep.grad"
    program.write_text("def g(n):\n    yield next(g(n + 1))\nnext(g(0))\n")
    result = subprocess.run([sys.executable, "-m", "gradcli", "run", str(program)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert "RecursionError: maximum recursion depth exceeded" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
