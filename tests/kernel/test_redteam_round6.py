"""Red team, round 6: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator): what a
program reaches by itself past the metering that README's "Safety and limits" promises.  The
element limit (GRADCLI_MAX_ELEMENTS) is checked op by op, before each op makes its result;
the ops whose result is larger than their inputs by a factor the program chooses (an outer
product through a matrix product of k = 1, a diagonal's offset, a stack of one tensor many
times) made theirs unchecked: `torch.ones(10 ** 5, 1) @ torch.ones(1, 10 ** 5)` is 40 GB that
NumPy allocates and writes, which only the OS wall's memory limit stops; the numpy facade,
ndarray methods and NumPy's advanced indexing checked theirs after NumPy had made them, or
never.  Lists that a tensor or an array becomes (`tolist()`) were not metered as every other
list is (GRADCLI_MAX_ITEMS).  The tests lower the limits so that nothing large is ever made.
Round 5's check of an engine method's `self` did not reach the engine's properties, which a
program puts in a class of its own.

The OS wall alone (arbitrary Python in an evaluator: run_task, the test-only way past the
language): budgets that Linux keeps per user rather than per process, which an evaluator took
from every other process of its user (pipe buffers, queued signals)."""

import os
import sys

import pytest
from processes import (assert_refused_before_made as _refused_before_made,
                       in_evaluator as _in_evaluator, needs_seccomp, program_error as _error)



LINUX = sys.platform.startswith("linux")


pytestmark = pytest.mark.usefixtures("fresh_engine")


# each makes 2,500 elements or more from inputs of 50 elements or fewer
LARGER_RESULTS = {
    "mm": "torch.ones(50, 1).mm(torch.ones(1, 50))",
    "matmul": "torch.ones(50, 1) @ torch.ones(1, 50)",
    "matmul broadcast": "torch.ones(50, 1, 1) @ torch.ones(1, 50)",
    "bmm": "torch.ones(1, 50, 1).bmm(torch.ones(1, 1, 50))",
    "addmm": "torch.addmm(torch.zeros(1), torch.ones(50, 1), torch.ones(1, 50))",
    "baddbmm": "torch.baddbmm(torch.zeros(1, 1, 1), torch.ones(1, 50, 1), torch.ones(1, 1, 50))",
    "tensordot": "torch.tensordot(torch.ones(50), torch.ones(50), 0)",
    "diag_embed offset": "torch.ones(1).diag_embed(100)",
    "diag offset": "torch.diag(torch.ones(1), 100)",
    "stack": "v = torch.ones(50)\ntorch.stack([v] * 50)",
    "vmap": "v = torch.ones(50)\ntorch.func.vmap(lambda a: a * v)(v)",
}


@pytest.mark.parametrize("source", LARGER_RESULTS.values(), ids=LARGER_RESULTS.keys())
def test_no_op_makes_a_tensor_over_the_element_limit(small_limits, source):
    """Expected: every op's result checked against GRADCLI_MAX_ELEMENTS before it is made
    (`torch.ones(10 ** 5, 1) @ torch.ones(1, 10 ** 5)`: ten billion elements from two hundred
    thousand; `torch.ones(1).diag_embed(10 ** 5)`: ten billion from one element and an int),
    and no tensor over the limit made anywhere (Tensor._make, where every tensor is made)."""
    *first, last = source.split("\n")
    line, _ = _error("\n".join(["import torch", *first, "r = " + last, "fail = 1 / 0", ""]))
    assert "exceeds the limit" in line, line


def test_tensor_make_refuses_more_than_the_element_limit(small_limits):
    """The one place every tensor is made refuses a result over the limit, whichever op made
    it (the net under the ops' own checks)."""
    import numpy as np
    from gradcli.engine.tensor import Tensor
    with pytest.raises(RuntimeError, match="exceeds the limit"):
        Tensor._make(np.zeros(2001, np.float32), None, 0, False)
    assert Tensor._make(np.zeros(2000, np.float32), None, 0, False).numel() == 2000


@pytest.mark.parametrize("source", ["torch.zeros(1500).tolist()",
                                    "torch.zeros(1500).numpy().tolist()",
                                    "torch.Tensor.tolist(torch.zeros(1500))",
                                    "np.zeros(1500).tolist()",
                                    "np.ndarray.tolist(np.zeros(1500))"])
def test_tolist_is_metered(small_limits, source):
    """`t.tolist()` makes one Python number per element in one C call: a tensor of 10 ** 8
    elements (400 MB, under the element limit) is a list of 10 ** 8 floats, some 3 GB, past
    GRADCLI_MAX_ITEMS (10 ** 7), which every other list-making operation keeps to."""
    line, _ = _error(f"import torch\nimport numpy as np\nr = {source}\nfail = 1 / 0\n")
    assert "sequence too long" in line, line


# Made before they were checked (the result's size known only once NumPy had allocated and
# written it), or never checked: each here allocates 8 MB or more (10 ** 6 elements) from
# inputs of a few thousand, under an element limit of 10 ** 5 (800 KB).
ALLOCATED_FIRST = {
    "np.linspace of arrays": "np.linspace(np.ones((1000, 1)), np.ones(1000))",
    "np.dot": "np.dot(np.ones((1000, 2)), np.ones((2, 1000)))",
    "np.matmul": "np.matmul(np.ones((1000, 2)), np.ones((2, 1000)))",
    "ndarray.dot": "np.ones((1000, 2)).dot(np.ones((2, 1000)))",
    "ndarray.clip": "np.ones((1000, 1)).clip(np.ones(1000), 2)",
    "ndarray.dot from the class": "np.ndarray.dot(np.ones((1000, 2)), np.ones((2, 1000)))",
    "np.diag offset": "np.diag(np.ones(1), 1000)",
    "NumPy advanced index": "np.ones((3, 3))[np.zeros((1000, 1), np.int64), "
                            "np.zeros(1000, np.int64)]",
    "torch.allclose": "torch.allclose(torch.ones(1000, 1), torch.ones(1000))",
    "torch.dist": "torch.dist(torch.ones(1000, 1), torch.ones(1000))",
    "pow of tensors": "torch.ones(1000, 1).pow(torch.ones(1000))",
    "masked_select": "torch.ones(1000, 1).masked_select(torch.ones(1000, dtype=torch.bool))",
}


@pytest.mark.parametrize("source", ALLOCATED_FIRST.values(), ids=ALLOCATED_FIRST.keys())
def test_a_result_over_the_element_limit_is_refused_before_it_is_made(source):
    """`np.linspace(np.ones((10 ** 4, 1)), np.ones(10 ** 4))` is 50 * 10 ** 8 floats (40 GB:
    the facade counted `num` only), `a.dot(b)` of k = 2 an outer product, `a[i, j]` with index
    arrays that broadcast as large as they like (never checked at all).  Expected: refused
    before NumPy allocates (the peak of traced memory stays under the result's size)."""
    _refused_before_made(source)


FOREIGN_PROPERTY = {
    "class body": "class G:\n    shape = torch.Tensor.shape\nprint(G().shape)",
    "set later": "class G:\n    pass\nG.ndim = torch.Tensor.ndim\nprint(G().ndim)",
    "setter": "class G:\n    requires_grad_flag = False\n    data = torch.Tensor.data\n"
              "g = G()\ng.data = torch.ones(2)\nprint(g.data)",
    "deleter": "class G:\n    grad = torch.Tensor.grad\ng = G()\ndel g.grad\nprint(g.grad)",
    "Module's _data": "class Arr(torch.nn.Module):\n    shape = (64, 64)\n    strides = (8, 0)\n"
                      "class M(torch.nn.Module):\n    shape = torch.Tensor.shape\nm = M()\n"
                      "m.add_module('_data', Arr())\nprint(m.shape)",
}


@pytest.mark.parametrize("source", FOREIGN_PROPERTY.values(), ids=FOREIGN_PROPERTY.keys())
def test_an_engine_property_refuses_a_program_object(source):
    """Round 5 made `torch.Tensor.detach(obj)` refuse another class's object as `self` (and
    `torch.Tensor.data.fget`), but `torch.Tensor.shape` is the property itself, which a
    program puts in its own class (body, or `G.x = ...` later): Python then runs the engine's
    getter, setter and deleter with the program's object as `self`.  They read and write the
    engine's `_` attributes of an object the program controls: `shape` shows the forged shape
    of a Module's `_data` (add_module), the `data` setter gives a program object a `_data`
    array (the attribute round 5 refused in class bodies), `del g.grad` writes `_grad`.
    Expected: PyTorch's answer for a C descriptor on another class's object."""
    line, out = _error("import torch\n" + source + "\n")
    assert line.startswith("TypeError: descriptor"), (line, out)
    assert out == "", out


# ---------------------------------------------------------------------- the OS wall alone


@needs_seccomp
def test_the_evaluator_cannot_take_the_users_pipe_buffers():
    """Pipe buffers are counted per user (fs.pipe-user-pages-soft, 64 MB by default), not per
    process or namespace, and not in RLIMIT_AS: an evaluator's 256 descriptors are 128 pipes
    that fcntl(F_SETPIPE_SZ) grows to 1 MB each (fs.pipe-max-size), some 65 of them filled
    before the user's quota is gone.  While the evaluator lives (a REPL's: the session), every
    other process of the user gets pipes of two pages and cannot grow one (EPERM), and 64 MB
    of kernel memory are held outside the memory limit.  Neither Python nor NumPy sets a
    pipe's size: the filter should refuse F_SETPIPE_SZ (this test asks for one pipe of 1 MB,
    closed at once)."""
    def attack():
        import fcntl
        read, write = os.pipe()
        try:
            fcntl.fcntl(write, 1031, 1 << 20)  # F_SETPIPE_SZ
            return {"errno": 0}
        except OSError as e:
            return {"errno": e.errno}
        finally:
            os.close(read)
            os.close(write)

    assert _in_evaluator(attack) == {"errno": 1}


@pytest.mark.skipif(not LINUX, reason="RLIMIT_SIGPENDING and tgkill are Linux's")
def test_the_evaluator_cannot_take_the_users_pending_signals():
    """RLIMIT_SIGPENDING counts the signals queued for all the processes of a user (Linux's
    ucounts count an evaluator's, in its own user namespace, in its parent's too): an
    evaluator that blocks a real-time signal and sends it to itself (tgkill, allowed for its
    own pid) queues the user's whole budget, 96,362 signals on this machine.  While it lives
    (a REPL's: the session) every other process of the user gets EAGAIN from sigqueue and
    timer_create (a POSIX timer reserves its signal when made): checked by hand, a shell's
    `python3 -c "...tgkill(SIGRTMIN)..."` fails so.  Python queues none of its own (the alarm
    and Ctrl-C come from the kernel and the frontend, which the limit does not count): the
    wall should bound the evaluator's (RLIMIT_SIGPENDING) to a few dozen."""
    def attack():
        import ctypes
        import signal
        import threading
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        number = {"x86_64": 234, "aarch64": 131, "riscv64": 131}.get(os.uname().machine)
        if number is None:
            return {"skip": True}
        sig = signal.SIGRTMIN
        signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
        pid, tid, queued = os.getpid(), threading.get_native_id(), 0
        while queued < 1000 and libc.syscall(ctypes.c_long(number), ctypes.c_long(pid),
                                             ctypes.c_long(tid), ctypes.c_long(sig)) == 0:
            queued += 1
        return {"queued": queued, "errno": ctypes.get_errno() if queued < 1000 else 0}

    result = _in_evaluator(attack)
    if result.get("skip"):
        pytest.skip("tgkill's number on this architecture is not listed here")
    assert result["queued"] <= 64 and result["errno"] == 11, result
