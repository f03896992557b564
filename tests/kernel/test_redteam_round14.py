"""Red team, round 14: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session): a callable a program
hands to torch.utils.checkpoint, a grad-mode decorator or a torch.func transform was called
without the sandbox's call check; Tensor.data_ptr() gave the real address of NumPy's buffer;
builtins printed under gradcli's internal names."""

import sys

import pytest
from processes import program_error, program_output
from test_redteam_round11 import _assert_pytorchs


pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- the callable check

HEX = '"f" * 10 ** 6, 16'   # int() of these: 4,000,000 bits, the limit is 1,000,000
UNCHECKED_CALLS = [
    f"torch.utils.checkpoint.checkpoint(int, {HEX}, use_reentrant=False)",
    f"torch.utils.checkpoint.checkpoint(int, {HEX}, use_reentrant=True)",
    f"torch.utils.checkpoint.checkpoint(int, {HEX})",
    f"torch.no_grad()(int)({HEX})",
    f"torch.enable_grad()(int)({HEX})",
    f"torch.inference_mode()(int)({HEX})",
    f"torch.set_grad_enabled(False)(int)({HEX})",
    f"torch.autograd.detect_anomaly()(int)({HEX})",
    f"torch.func.vmap(int, in_dims=(None, 0))({HEX[:-4]}, torch.tensor([16]))",
]


@pytest.mark.parametrize("call", UNCHECKED_CALLS, ids=range(len(UNCHECKED_CALLS)))
def test_a_callable_the_engine_calls_is_checked(call):
    """checkpoint(f, ...), `torch.no_grad()(f)` and the transforms called f as it was: a
    program's `int` (the sandbox's, metered, when the program calls it) was Python's, and
    `int("f" * 10 ** 6, 16)` made a 4,000,000-bit integer past GRADCLI_MAX_INT_BITS (as
    `str`/`repr` passed the text budget, `list` the iteration meter).  Expected: f is held to
    what the program's own call of it would be (engine.callables.checked)."""
    error, _ = program_error(f"import torch\nx = {call}\nprint(x.bit_length())\n")
    assert error.startswith("OverflowError: integer too large"), error


CHECKPOINTED = [
    # what the function returns, its state, nesting: as PyTorch's
    "def f(a): return (a * 2, 3)\ny = checkpoint(f, x, use_reentrant=True)\n"
    "y[0].sum().backward()\nprint(y, x.grad)",
    "n = [0]\ndef f(a):\n    n[0] += 1\n    return a * n[0]\n"
    "y = checkpoint(f, x, use_reentrant=True)\ny.sum().backward()\nprint(y, x.grad, n)",
    "def f(a): return checkpoint(lambda b: b.sin(), a, use_reentrant=True) * 2\n"
    "y = checkpoint(f, x, use_reentrant=True)\ny.sum().backward()\nprint(y, x.grad)",
    "print(checkpoint(len, [1, 2], use_reentrant=False), checkpoint(int, '12', "
    "use_reentrant=False))",
    "print(checkpoint_sequential([lambda a: a * 2] * 4, 2, x, use_reentrant=True))",
    "print(checkpoint_sequential([int, abs], 1, '-7', use_reentrant=False))",
    "y = checkpoint(lambda t, k: t ** k, x, 3, use_reentrant=True)\ny.sum().backward()\n"
    "print(x.grad, y)",
    "y = checkpoint(lambda t: t * 2, x, use_reentrant=True)\n"
    "y.sum().backward(retain_graph=True)\ny.sum().backward()\nprint(x.grad)",
]


@pytest.mark.parametrize("source", CHECKPOINTED, ids=range(len(CHECKPOINTED)))
def test_checkpoint_still_computes_as_pytorchs(source, oracle):
    _assert_pytorchs(oracle, "from torch.utils.checkpoint import checkpoint, "
                             "checkpoint_sequential\nx = torch.ones(3, requires_grad=True)\n"
                             + source + "\n")


STALE_CHECKPOINTS = [
    "a = x * 1\ny = checkpoint(lambda t: t ** 2, a, use_reentrant=True)\na.mul_(3)\n"
    "y.sum().backward()\nprint(x.grad)",
    "w = torch.ones(3)\ny = checkpoint(lambda t, u: t * u, x, w, use_reentrant=True)\n"
    "w.add_(1)\ny.sum().backward()\nprint(x.grad)",
    "y = checkpoint(lambda t: t * 2, x, use_reentrant=True)\ny.sum().backward()\n"
    "y.sum().backward()\nprint(x.grad)",
    # (a pass given its inputs: the inner backward pass would accumulate into other leaves)
    "y = checkpoint(lambda t: t * 2, x, use_reentrant=True)\n"
    "print(torch.autograd.grad(y.sum(), x))",
    "y = checkpoint(lambda t: t * 2, x, use_reentrant=True)\ny.sum().backward(inputs=[x])",
    "y = checkpoint(lambda t: t * 2, x, use_reentrant=False)\n"
    "print(torch.autograd.grad(y.sum(), x))",
]


@pytest.mark.parametrize("source", STALE_CHECKPOINTS, ids=range(len(STALE_CHECKPOINTS)))
def test_a_reentrant_checkpoint_saves_its_inputs(source, oracle):
    """The reentrant checkpoint kept its inputs as plain attributes of ctx: an input written in
    place between the forward and the backward pass was recomputed from (x.grad 6 for 2, a
    wrong gradient without a word), and a second backward pass ran again.  PyTorch saves
    them (save_for_backward): the version check and the freed graph refuse both."""
    _assert_pytorchs(oracle, "from torch.utils.checkpoint import checkpoint\n"
                             "x = torch.ones(3, requires_grad=True)\n" + source + "\n")


FUNC_MESSAGES = [
    "torch.func.grad(lambda x: x.sum(), argnums=(0, 0))(torch.ones(2))",
    "torch.func.jacrev(lambda x: x, chunk_size=0)(torch.ones(2))",
    "torch.func.vmap(lambda x: x, chunk_size=0)(torch.ones(2))",
    "torch.func.functional_call(torch.nn.Linear(2, 2), ({'weight': torch.ones(2, 2), "
    "'bias': torch.ones(2)}, {'weight': torch.ones(2, 2), 'bias': torch.ones(2)}), "
    "(torch.ones(2),))",
    "torch.func.vmap(lambda x: x * 2, out_dims='a')(torch.ones(2))",
    "torch.func.vmap(lambda x: x * 2, out_dims=(0, 1.5))(torch.ones(2))",
    "torch.func.vmap(lambda x: (x, x), out_dims=(0, None))(torch.ones(2))",
    "torch.func.vmap(lambda x: (x * 2, torch.ones(3), 5), out_dims=(0, None, None))"
    "(torch.ones(2))",
    "torch.func.linearize(lambda x: x.sin(), torch.ones(2))[1](torch.ones(3))",
]


@pytest.mark.parametrize("call", FUNC_MESSAGES, ids=range(len(FUNC_MESSAGES)))
def test_torch_func_refuses_in_pytorchs_words(call, oracle):
    """jacrev's and vmap's chunk_size=0 were taken; argnums and functional_call's repeated
    keys were refused in other words than PyTorch's; vmap's out_dims of a string was a
    `TypeError: dim must be int`, and out_dims=None for a result that depends on the mapped
    inputs gave the first sample's value (PyTorch refuses: a wrong result, silently)."""
    _assert_pytorchs(oracle, f"print({call})")


# ---------------------------------------------------------------------- data_ptr

DATA_PTRS = """x = torch.ones(3)
print(x.data_ptr() % 64, x[3:].data_ptr(), torch.ones(0).data_ptr(),
      x[1:].data_ptr() - x.data_ptr(), x.flip(0).data_ptr() == x.data_ptr())
y = x.view(3, 1).expand(3, 4)
print(y.data_ptr() == x.data_ptr(), x.detach().data_ptr() == x.data_ptr(),
      x.clone().data_ptr() == x.data_ptr())
z = torch.ones(2, 3).t()
print(z.contiguous().data_ptr() != z.data_ptr())
a, b = torch.ones(100), torch.ones(100)
print(a.data_ptr() + a.nbytes <= b.data_ptr() or b.data_ptr() + b.nbytes <= a.data_ptr())
n = np.zeros(4)
t = torch.from_numpy(n)
print(t.data_ptr() == torch.from_numpy(n).data_ptr(), torch.from_numpy(n[2:]).data_ptr() - t.data_ptr())
w = torch.arange(12.).reshape(3, 4)
print(w[1, 2:].data_ptr() - w.data_ptr(), w.T[1].data_ptr() - w.data_ptr())
x.data = torch.zeros(5)
print(x.data_ptr() == y.data_ptr(), x.data_ptr() % 64)
"""


def test_data_ptr_keeps_pytorchs_sharing_and_offsets(oracle):
    """Programs compare data_ptr()s to tell shared memory and subtract them for offsets."""
    _assert_pytorchs(oracle, DATA_PTRS)


def test_data_ptr_is_not_the_address_of_the_memory():
    """data_ptr() was the address of NumPy's buffer (`__array_interface__`): where the heap
    is, for a program that gets a write primitive (issue 17's escapes began with the distance
    from a known object).  Expected: a fake address for each storage, the real offset in it."""
    from gradcli.engine.tensor import Tensor
    out = program_output("import torch\nx = torch.arange(8.)\nv = x[3:]\n"
                         "print(x.data_ptr(), v.data_ptr())\n")
    from gradcli.engine import storage
    shown = [int(s) for s in out.split()]
    assert shown[1] - shown[0] == 12
    t = Tensor([1.0, 2.0])
    real = t._data.__array_interface__["data"][0]
    assert t.data_ptr() != real and t[1:].data_ptr() - t.data_ptr() == 4
    assert all(abs(p - real) > 1 << 20 for p in shown)
    assert t.data_ptr() == t.detach().data_ptr() and len(storage._FAKE_BASES) >= 1


def test_a_fake_address_goes_with_its_storage():
    """The table of fake addresses holds no storage alive, and keeps none it no longer
    describes (a new array at a freed array's address gets its own)."""
    import gc
    import numpy as np
    from gradcli.engine import storage
    gc.collect()
    before = len(storage._FAKE_BASES)
    arrays = [np.ones(10) for _ in range(50)]
    fakes = [storage.fake_address(a) for a in arrays]
    assert len(set(fakes)) == 50 and len(storage._FAKE_BASES) == before + 50
    del arrays
    gc.collect()
    assert len(storage._FAKE_BASES) == before


# ---------------------------------------------------------------------- builtins as Python's

BUILTINS_SHOWN = [
    "print([print, range])",
    "print([pow, format, sorted, iter, dir, map, filter, type, super, property, classmethod, "
    "staticmethod], f'{print!r}', '%r' % (range,), str([max, sum, abs]))",
    "print(type(print), type(sorted), type(range), type(map), type(range(3)) is range)",
    "print(isinstance(range(3), range), isinstance(map(abs, []), map), "
    "isinstance(filter(None, []), filter), isinstance(int, type), isinstance(len, type))",
    "print(type(range(3))(2, 5), list(type(map(abs, []))(abs, [-1, 2])), type(5) is int, "
    "type(int) is type, print.__name__, range.__name__, map.__name__)",
    "print(issubclass(range, range), isinstance(property(lambda s: 1), property))",
    "class A:\n    @property\n    def p(self):\n        return 2\n"
    "    @staticmethod\n    def s():\n        return 3\n"
    "    @classmethod\n    def c(cls):\n        return cls.s() + 1\n"
    "    def m(self):\n        return super().__init__()\n"
    "print(A().p, A.s(), A.c(), A().m())",
]


@pytest.mark.parametrize("source", BUILTINS_SHOWN, ids=range(len(BUILTINS_SHOWN)))
def test_builtins_print_and_test_as_pythons(source, oracle):
    """`print([print, range])` showed `[<bound method Session._print of <gradcli...Session
    object at 0x...>>, <function safe_range at 0x...>]` (and `range.__name__` was
    'safe_range'), and `isinstance(r, range)` was a TypeError: the sandbox's versions of
    Python's builtins were plain functions.  Expected: Python's text and Python's classes (a
    stand-in whose call is the sandbox's, wherever it is called from)."""
    _assert_pytorchs(oracle, source)


def test_a_builtins_stand_in_is_checked_wherever_it_is_called():
    """`type(range(3))` is the stand-in of range: its call, from a program or from the engine,
    is the sandbox's (metered), and so is the class type() gives for a map."""
    for call in ["type(range(3))(10 ** 12)",
                 "torch.no_grad()(type(range(3)))(10 ** 12)",
                 "torch.utils.checkpoint.checkpoint(range, 10 ** 12, use_reentrant=False)"]:
        error, _ = program_error(f"import torch\nx = {call}\n")
        assert error.startswith("MemoryError: sequence too long"), (call, error)


# ---------------------------------------------------------------------- NumPy's keywords

NUMPY_KEYWORDS = [
    "torch.mean(torch.ones(2, 3), axis=1, keepdim=True, keepdims=False)",
    "torch.mean(torch.ones(2, 3), foo=1)",
    "torch.ones(2, 3).mean(axis=0, dim=1)",
    "torch.pow(torch.ones(2, 3), 2, axis=1)",
    "torch.ones(2, 3).sum(axis=1, dim=0)",
    "torch.sum(torch.ones(2, 3), axis=0, keepdims=True)",
    "torch.ones(2, 3).max(axis=1, keepdims=True)",
]


@pytest.mark.parametrize("call", NUMPY_KEYWORDS, ids=range(len(NUMPY_KEYWORDS)))
def test_numpy_keywords_refused_in_the_ops_public_name(call, oracle):
    """A NumPy keyword an op cannot take was refused under the overload's name
    (`mean.default() got an unexpected keyword argument 'axis'`, `max.dim()`), or under the
    name it was renamed to (`torch.pow(x, 2, axis=1)`: "... keyword argument 'dim'", a keyword
    the program never wrote).  PyTorch's parser words these "received an invalid
    combination of arguments", with its list of signatures: the error keeps gradcli's one line
    but names the op and the keyword as the program wrote them."""
    from test_redteam_round11 import _ours, _pytorchs
    ours, theirs = _ours(f"print({call})"), _pytorchs(oracle, f"print({call})")
    if theirs[0] == "output" or ours == theirs:  # (PyTorch's parser's line, word for word)
        assert ours == theirs
        return
    name = call.split("(")[0].split(".")[-1] if "ones(2, 3)." not in call \
        else call.split(").")[1].split("(")[0]
    assert ours[0] == "error" and ours[1].startswith(f"TypeError: {name}() ") and "." not in \
        ours[1].split("(")[0] and theirs[1].startswith(f"TypeError: {name}()"), (ours, theirs)
    written = [k for k in ("axis", "keepdims", "foo") if f"{k}=" in call]
    assert any(f"'{k}'" in ours[1] for k in written), ours


# ---------------------------------------------------------------------- LBFGS

LBFGS_HISTORY = """p = torch.ones(2, requires_grad=True)
opt = torch.optim.LBFGS([p], max_iter=50, history_size={size})
def closure():
    opt.zero_grad()
    loss = ((p - 3) ** 2).sum()
    loss.backward()
    return loss
opt.step(closure)
print(p)
"""


def test_lbfgs_history_size_is_metered(small_limits):
    """LBFGS's two-loop recursion keeps `[None] * history_size` (PyTorch's list of alphas):
    history_size=10**9 made a list of 8 GB through Python's `*`, past GRADCLI_MAX_ITEMS, in C
    (10 s of page faults here; the timeout waits for it).  Expected: the program's metered `*`."""
    error, _ = program_error("import torch\n" + LBFGS_HISTORY.format(size=10 ** 9))
    assert error.startswith("MemoryError: sequence too long"), error


def test_lbfgs_still_steps_as_pytorchs(oracle):
    _assert_pytorchs(oracle, LBFGS_HISTORY.format(size=5))


# ---------------------------------------------------------------------- names of classes

def test_return_types_print_as_pytorchs(oracle):
    """`type(torch.topk(x, 2))` printed `<class 'gradcli.ops.reductions.topk'>` (gradcli's
    module), `type(torch.linalg.slogdet(x))` `<class 'gradcli.ops.linalg.SlogdetResult'>`."""
    _assert_pytorchs(oracle, "x = torch.arange(6.).reshape(2, 3)\n"
                             "print(type(torch.topk(x, 2)), type(x.max(0)), type(x.sort()), "
                             "type(torch.linalg.slogdet(torch.eye(2))), type(x.aminmax()), "
                             "type(torch.linalg.qr(x)))\n")


# ---------------------------------------------------------------------- iter(f, sentinel)

COUNTED = "n = [0]\ndef f():\n    n[0] += 1\n    return n[0]\n"


@pytest.mark.parametrize("use", ["list(iter(f, 5000))", "sorted(iter(f, 5000))",
                                 "set(iter(f, 5000))", "[a for a in iter(f, 5000)]"])
def test_iter_with_a_sentinel_is_metered(use, small_limits):
    """`list(iter(f, 2 * 10 ** 7))` made a list of 20,000,000 items (past GRADCLI_MAX_ITEMS,
    which range() and every other way to make a list keeps): the sentinel form is a generator
    the materialising builtins cannot measure.  Expected: it yields at most the item limit."""
    error, _ = program_error(COUNTED + f"x = {use}\n")
    assert error.startswith("MemoryError: sequence too long"), error


def test_iter_with_a_sentinel_within_the_limit_is_pythons(small_limits):
    out = program_output(COUNTED + "print(len(list(iter(f, 1001))), list(iter(f, 1003)))\n")
    assert out == "1000 [1002]\n"   # (1001, the first one's sentinel, was called)


# ---------------------------------------------------------------------- the wall alone

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux walls")
def test_the_lbfgs_history_with_the_language_down_ends_at_the_timeout():
    """The LBFGS finding with the language's meter out of the way: `[None] * 10 ** 9` (8 GB,
    under the default memory limit of half of a machine of 16 GB or more) fills its list in C,
    holding the GIL, for longer than the timeout: the frontend ends the evaluator (or, on a
    smaller machine, the address-space limit refuses the list at once)."""
    import io
    import time
    from gradcli.kernel.process import EvaluatorGone, run_task

    def attack():
        x = [None] * 10 ** 9
        print("made", len(x))
        return 0
    start, out = time.monotonic(), io.StringIO()
    try:
        run_task(attack, timeout=1, out=out, err=out)
        kind = "MemoryError" if "MemoryError" in out.getvalue() else out.getvalue()
    except EvaluatorGone as gone:
        kind = gone.kind
    took = time.monotonic() - start
    assert kind in ("timeout", "MemoryError") and took < 1 + 2, (kind, took)


# ---------------------------------------------------------------------- custom Functions

JVP_RETURNS = ['"x" * 1000', "[1, 2]", "torch.ones(3)", "torch.ones(2, 1)", "torch.ones(())",
               "(t * 5, None)[0]"]
CUSTOM_JVP = """import torch.autograd.forward_ad as fwAD
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def jvp(ctx, t):
        return {tangent}
with fwAD.dual_level():
    y = F.apply(fwAD.make_dual(torch.ones(2), torch.ones(2)))
    print(fwAD.unpack_dual(y * 2).tangent)
"""


@pytest.mark.parametrize("tangent", JVP_RETURNS, ids=range(len(JVP_RETURNS)))
def test_a_custom_jvps_tangent_is_checked_as_pytorchs(tangent, oracle):
    """A custom Function's jvp() returned any object as its output's tangent: a string, which
    the next op's forward formula then multiplied (`AttributeError: 'str' object has no
    attribute '_data'`, or a string grown by each `* 2`), a tensor of another shape (a
    tangent of 1,000,000 elements on a tensor of 1,000).  PyTorch refuses both."""
    _assert_pytorchs(oracle, CUSTOM_JVP.format(tangent=tangent))


CUSTOM_VJP = """class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def vjp(ctx, g):
        return g * 3
{more}
x = torch.ones(2, requires_grad=True)
F.apply(x).sum().backward()
print(x.grad)
"""
BACKWARD_TOO = "    @staticmethod\n    def backward(ctx, g):\n        return g"


@pytest.mark.parametrize("more", ["", BACKWARD_TOO], ids=["vjp", "both"])
def test_a_custom_function_may_name_its_backward_vjp(more, oracle):
    """PyTorch's BackwardCFunction calls a Function's `vjp` when it defines one (and refuses
    both): gradcli raised "You must implement either the backward or vjp method"."""
    _assert_pytorchs(oracle, CUSTOM_VJP.format(more=more))


# ---------------------------------------------------------------------- unsigned dtypes

UNSIGNED = ["torch.tensor([-1, -200], dtype=torch.uint8)", "torch.tensor(-1, dtype=torch.uint16)",
            "torch.tensor([-40000, 7], dtype=torch.uint16)",
            "torch.tensor([-2 ** 31 - 1], dtype=torch.uint32)",
            "torch.tensor([-40000], dtype=torch.uint8)", "torch.tensor([300], dtype=torch.uint8)",
            "torch.tensor([2 ** 63], dtype=torch.uint8)", "torch.tensor([-1], dtype=torch.uint64)",
            "torch.tensor([2 ** 64], dtype=torch.uint64)",
            "torch.tensor([2 ** 64 - 1, 3], dtype=torch.uint64)",
            "torch.tensor([[-1, 2.5], [3, -4]], dtype=torch.uint8)",
            "torch.tensor([-2 ** 63], dtype=torch.uint32)"]


@pytest.mark.parametrize("call", UNSIGNED, ids=range(len(UNSIGNED)))
def test_negative_ints_wrap_into_unsigned_tensors_as_pytorchs(call, oracle):
    """`torch.tensor([-1], dtype=torch.uint16)` was "value cannot be converted to type uint16
    without overflow" where PyTorch wraps it around (65535), down to -65535."""
    _assert_pytorchs(oracle, f"print({call})")
