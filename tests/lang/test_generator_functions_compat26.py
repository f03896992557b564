"""Generator functions (`yield`, `yield from`), generator expressions and lambdas that yield,
with next, for, list(...), iter, send, close and throw as Python has them: each program runs in
gradcli and in the interpreter running the tests (the oracle: plain Python, no torch in these
programs), which must print the same text, or end in the same `Type: message` line.  (What
gradcli does differently on purpose, a generator the garbage collector closes running no
finally block, is tested with the attacks: tests/kernel/test_generators_compat26.py.)"""

import contextlib
import io
import re

import pytest
from processes import program_error, program_output

ADDRESS = re.compile(r" at 0x[0-9a-f]+")
LOCATION = re.compile(r" \(line \d+, column \d+\)$")


def python_prints(source):
    """(what the program printed, the `Type: message` line of the error it ended in or "")."""
    out = io.StringIO()
    error = ""
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<program>", "exec", dont_inherit=True),
                 {"__name__": "__main__"})
        except SyntaxError as e:
            error = f"SyntaxError: {e.msg}"
        except Exception as e:
            error = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return error, ADDRESS.sub(" at 0x...", out.getvalue())


def gradcli_prints(source):
    return "", ADDRESS.sub(" at 0x...", program_output(source))


def assert_prints_as_python(source):
    error, printed = python_prints(source)
    if not error:
        assert gradcli_prints(source) == ("", printed)
        return
    line, got = program_error(source)
    assert (LOCATION.sub("", line), ADDRESS.sub(" at 0x...", got)) == (error, printed)


PROGRAMS = {
    "d2l_data_iter": """\
import random
def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch = indices[i: min(i + batch_size, num_examples)]
        yield [features[j] for j in batch], [labels[j] for j in batch]
random.seed(0)
features = [i * 0.5 for i in range(10)]
labels = [2 * f + 1 for f in features]
for X, y in data_iter(3, features, labels):
    print(X, y)
    break
print(sum(len(X) for X, _ in data_iter(4, features, labels)))
""",
    "send_and_return_value": """\
def running_total():
    total = 0
    while True:
        x = yield total
        if x is None:
            return total
        total += x
g = running_total()
print(next(g), g.send(3), g.send(4))
try:
    g.send(None)
except StopIteration as e:
    print('stopped with', e.value, e.args)
print(next(g, 'exhausted'))
""",
    "yield_from_returns_the_delegates_value": """\
def inner(n):
    for i in range(n):
        got = yield i
        print('inner got', got)
    return n * 10
def outer():
    r = yield from inner(2)
    print('inner returned', r)
    yield from [r, r + 1]
    yield from (c for c in 'ab')
g = outer()
print(next(g))
print(g.send('x'))
print(list(g))
""",
    "close_runs_finally_blocks_of_a_delegation_chain": """\
def leaf():
    try:
        yield 1
        yield 2
    finally:
        print('leaf finally')
def middle():
    try:
        yield from leaf()
    finally:
        print('middle finally')
g = middle()
print(next(g))
print(g.close())
print(list(g))
g.close()
def unstarted():
    try:
        yield 1
    finally:
        print('never printed')
unstarted().close()
""",
    "throw_is_caught_inside_the_generator": """\
def g():
    while True:
        try:
            yield 'ready'
        except ValueError as e:
            print('handled', e)
            yield 'recovered'
it = g()
print(next(it))
print(it.throw(ValueError('bad input')))
print(next(it))
print(it.throw(ValueError('second')))
try:
    it.throw(KeyError('k'))
except KeyError as e:
    print('escaped', repr(e))
print(next(it, 'done'))
""",
    "finally_raising_during_close": """\
def g():
    try:
        yield 1
    finally:
        raise ValueError('from finally')
it = g()
next(it)
try:
    it.close()
except ValueError as e:
    print('close raised', e)
""",
    "generator_expressions_and_lambdas": """\
squares = (i * i for i in range(5))
print(next(squares), next(squares))
squares.close()
print(list(squares))
f = lambda n: (yield n)
print(list(f(3)))
gen = (x for x in range(3))
print(iter(gen) is gen, 1 in gen, list(gen))
print(sorted(x % 3 for x in range(7)), max(x for x in [3, 1, 2]))
print('-'.join(str(i) for i in range(3)))
print(dict((k, k * 2) for k in range(3)), set(c for c in 'aba') == {'a', 'b'})
print(list(zip((i for i in range(3)), 'xyz')), list(enumerate(c for c in 'ab')))
""",
    "printing_and_type": """\
def gen():
    yield 1
def outer():
    def inner():
        yield 2
    return inner()
g = gen()
print(g)
print(outer())
print(type(g), type(g).__name__, type(g) is type(outer()))
print(repr(x for x in []))
print(callable(g), g is iter(g))
""",
    "state_machine_with_yield_in_expressions": """\
def averager():
    total, count, average = 0.0, 0, None
    while True:
        term = yield average
        total += term
        count += 1
        average = total / count
a = averager()
next(a)
print([a.send(v) for v in (10, 30, 5)])
def echo():
    received = yield
    while received is not None:
        received = yield received.upper()
e = echo()
print(e.send(None), e.send('a'), e.send('b'))
""",
    "fibonacci_and_infinite_generators": """\
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
f = fib()
print([next(f) for _ in range(10)])
def take(n, it):
    for i, x in enumerate(it):
        if i >= n:
            return
        yield x
print(list(take(5, fib())))
""",
    "err_send_to_a_just_started_generator": """\
def g():
    yield 1
g().send(1)
""",
    "err_next_of_an_exhausted_generator": """\
def g():
    yield 1
it = g()
print(next(it))
next(it)
""",
    "err_generator_raised_stop_iteration": """\
def g():
    yield 1
    raise StopIteration('inside')
print(list(g()))
""",
    "err_generator_ignored_generator_exit": """\
def g():
    try:
        yield 1
    finally:
        yield 2
it = g()
next(it)
it.close()
""",
    "err_generator_already_executing": """\
def g():
    yield next(it)
it = g()
next(it)
""",
    "err_yield_outside_function": "yield 1\n",
    "err_yield_inside_comprehension": "def f():\n    return [(yield i) for i in range(3)]\n",
    "err_throw_a_non_exception": """\
def g():
    yield 1
it = g()
next(it)
it.throw(3)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_python_prints(name):
    assert_prints_as_python(PROGRAMS[name])


def test_dir_of_a_generator_lists_what_a_program_may_call(run):
    assert run("def g():\n    yield 1\nprint(dir(g()), dir(x for x in []))\n") == \
        "['close', 'send', 'throw'] ['close', 'send', 'throw']\n"


def test_a_yield_statement_is_valid_syntax_where_python_takes_it(run):
    source = ("def f(x):\n    y = yield x\n    y += yield\n    z = yield from [y]\n"
              "    yield x, y, z\n    yield\n    return (yield (yield 1))\n"
              "g = f(1)\nprint(next(g), g.send(2), g.send(3), next(g), next(g), next(g))\n"
              "print(next(g), next(g, 'end'))\n")
    assert run(source) == python_prints(source)[1]
