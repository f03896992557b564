"""Red team, round 5: regression tests that state the SAFE behaviour (they fail until fixed).

Each wall attacked with the other up and down.  The language wall alone: programs run in-process
through a Session (no evaluator), to see what a program reaches by itself; the findings there are
objects a program must not call or forge that still reach the engine (the callables the engine
calls for a program are not checked as calls are; a class body makes attributes starting with `_`
that the engine's unbound methods then read as a tensor's).  The OS wall alone: arbitrary Python
in an evaluator (run_task, the test-only way past the language), looking for what reaches the
machine beyond the evaluator."""

import ctypes
import os

import pytest
from processes import in_evaluator as _in_evaluator, needs_seccomp, program_error as _error


pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- the language wall alone

# Every way the engine calls a function a program hands it: np.ndarray (the raw constructor:
# object arrays, uninitialised memory) and np.dtype outside the allow-list must be refused there
# as a direct call `np.ndarray((3,), "O")` is.
ENGINE_CALLS = {
    "Module.forward attribute": "m = torch.nn.Module()\nm.forward = np.ndarray\n"
                                "r = m((3,), 'O')",
    "Module subclass forward": "class M(torch.nn.Module):\n    forward = np.ndarray\n"
                               "r = M()((3,), 'O')",
    "dtype as forward": "m = torch.nn.Module()\nm.forward = np.dtype\nr = m('O')",
    "tensor hook": "x = torch.ones(2, requires_grad=True)\nx.register_hook(np.ndarray)\n"
                   "(x * 1).sum().backward()",
    "Module.apply": "torch.nn.Linear(2, 2).apply(np.ndarray)",
    "optimizer closure": "w = torch.zeros(2, requires_grad=True)\n"
                         "torch.optim.SGD([w], lr=0.1).step(np.ndarray)",
    "Function.forward": "class F(torch.autograd.Function):\n    forward = np.ndarray\n"
                        "F.apply('O')",
    "torch.func.vmap": "torch.func.vmap(np.ndarray)(torch.ones(2, dtype=torch.int64))",
    "uninitialised memory": "m = torch.nn.Module()\nm.forward = np.ndarray\n"
                            "r = m((4096,), np.uint8).tolist()",
}


@pytest.mark.parametrize("source", ENGINE_CALLS.values(), ids=ENGINE_CALLS.keys())
def test_the_engine_does_not_call_what_a_program_may_not_call(source):
    """np.ndarray is in the numpy facade for isinstance, and `np.ndarray(...)` is refused by
    the call check (as is np.dtype('O')); but the engine calls what a program hands it
    (nn.Module's forward, a hook, Module.apply, an optimizer's closure, autograd.Function's
    forward, torch.func's transforms) without that check.  So a program makes object arrays
    (the facade's numeric-only promise), arrays of uninitialised memory (heap pointers:
    addresses for a memory attack, stale data) and dtypes off the allow-list."""
    line, _ = _error("import torch\nimport numpy as np\n" + source + "\nfail = 1 / 0\n")
    assert "is not available in gradcli programs" in line, line


@pytest.mark.parametrize("hooked", [False, True], ids=["plain", "hooked"])
def test_the_engine_does_not_make_integers_over_the_limit_for_a_program(hooked):
    """`int(text, 16)` is the sandbox's safe_int for a call, since Python's limit on digits
    leaves power-of-two bases alone; `int` itself (the builtin name and type(1)) is the real
    class, which the engine called unchecked as a Module's forward: 300,000 hex digits are 1.2
    million bits, over the 1,000,000 of GRADCLI_MAX_INT_BITS.  (A stand-in as for np.ndarray
    would break `dtype=int`, which the engine compares by identity: the module's call checks
    its forward instead, as hooks and closures are checked when they are registered.)"""
    hook = "m.register_forward_hook(lambda m, i, o: o)\n" if hooked else ""
    line, _ = _error("import torch\nm = torch.nn.Module()\nm.forward = int\n" + hook +
                     "n = m('f' * 300000, 16)\nfail = 1 / 0\n")
    assert "limit" in line and not line.startswith("ZeroDivisionError"), line


@pytest.mark.parametrize("source", [
    pytest.param("B(10 ** 8)", id="call"),
    pytest.param("m = torch.nn.Module()\nm.forward = B\nm(10 ** 8)", id="engine"),
    pytest.param("B.center(B(1), 10 ** 8)", id="method")])
def test_bytes_of_a_size_are_metered(source):
    """`[0] * n`, `"a" * n` and `b.ljust(n)` are metered, but the bytes class (no builtin name,
    but what `type("".encode())` gives, as a plain class) makes n zero bytes in one call past
    GRADCLI_MAX_ITEMS: 10 ** 8 here, 10 ** 10 in-process (the language wall alone) takes the
    machine's memory.  Expected: the size refused as for every other sequence."""
    line, _ = _error("import torch\nB = type(''.encode())\n" + source + "\nfail = 1 / 0\n")
    assert "limit" in line and not line.startswith("ZeroDivisionError"), line


FAKE_SELF = {
    "detach": "t = torch.Tensor.detach(G())\nprint(t.numpy())",
    "tolist": "print(torch.Tensor.tolist(G()))",
    "property fget": "print(torch.Tensor.data.fget(G()).numpy())",
    "numpy": "print(torch.Tensor.numpy(G()))",
    "as a class's method": "class H:\n    detach = torch.Tensor.detach\nprint(H().detach())",
    "Module method": "print(torch.nn.Module.parameters(G()))",
}


@pytest.mark.parametrize("source", FAKE_SELF.values(), ids=FAKE_SELF.keys())
def test_a_program_object_is_never_taken_for_a_tensor(source):
    """A program cannot write `self._data = ...` (no attribute starting with `_`), but a class
    body's names became class attributes as they were: `class G: _data = [len, 2 ** 100]`.
    torch.Tensor's methods read from the class are plain functions that take any object as
    `self` (PyTorch's are C descriptors: "descriptor 'detach' for 'torch._C.TensorBase'
    objects doesn't apply to a 'G' object"), so `torch.Tensor.detach(G())` was a real Tensor
    whose storage was any object the program chose: the engine's reading of a tensor's memory
    through its attributes (round 4's subclass findings) without a subclass.  Expected: an
    engine class's method refuses another class's object as `self` (G here has only public
    attributes: a class body's `_` names are refused, test below)."""
    prelude = ("import torch\nimport numpy as np\nclass G:\n    data = [len, 2 ** 100]\n"
               "    requires_grad = False\n")
    line, out = _error(prelude + source + "\n")
    assert line.startswith(("TypeError: descriptor", "AttributeError: ")), (line, out)
    assert "len" not in out, out


@pytest.mark.parametrize("bases", ["torch.nn.Module, torch.Tensor",
                                   "torch.nn.Parameter, torch.nn.Module",
                                   "torch.autograd.Function, torch.nn.Parameter"])
def test_a_tensor_class_mixes_with_no_other_engine_class(bases):
    """`class S(torch.nn.Module, torch.Tensor)` passed the class statement: Module's own
    machinery then answers for Tensor's (its __setattr__, and its __getattr__ for a slot never
    set: `s.add_module("_data", obj)` makes obj the tensor's memory as the engine reads it,
    with Module's names before Tensor's in the MRO).  A class deriving from torch.Tensor should
    have no engine base outside Tensor's own line (torch.nn.Parameter)."""
    line, _ = _error(f"import torch\nclass S({bases}):\n    pass\n")
    assert line.startswith("TypeError: "), line


@pytest.mark.parametrize("body", ["_data = [len]", "_vc = None", "def _helper(self):\n        "
                                  "return 1", "for _grad_fn in range(1):\n        pass"])
def test_a_class_body_binds_no_name_starting_with_an_underscore(body):
    """A program cannot read or write an attribute starting with `_` (the compiler refuses
    `obj._x`), so a class body's `_x` serves it nothing but to give its objects the engine's
    internal attributes: `class G: _data = ...` passes for a tensor where the engine reads
    `other._data` (torch.flatten(G()) and torch.broadcast_tensors(G()) hand G back as a
    tensor, view_as takes its shape, cross and unique compute on it), and was the other half
    of the forged tensor of test_a_program_object_is_never_taken_for_a_tensor.  Expected: the
    class statement refused, as `self._x = ...` is."""
    line, _ = _error(f"import torch\nclass G:\n    {body}\n")
    assert line.startswith(("NameError: ", "TypeError: ")), line


def test_a_tensors_storage_is_always_an_array():
    """Whatever reaches the engine's constructors of tensors (the forged self above reached
    Tensor._make with a list holding `len`), a tensor's memory is a NumPy array: the one place
    every tensor is made should refuse anything else."""
    from gradcli.engine.tensor import Tensor
    with pytest.raises(TypeError):
        Tensor._make([len, 2 ** 100], None, 0, False)


# ---------------------------------------------------------------------- the OS wall alone

@needs_seccomp
def test_the_evaluator_cannot_take_the_machines_aio_contexts():
    """Linux AIO contexts are counted machine-wide (fs.aio-nr against fs.aio-max-nr, 65536 by
    default) and not per user or namespace: one io_setup(65536) in an evaluator (a REPL's
    lives as long as the session) makes io_setup fail with EAGAIN for every other process of
    the machine (databases, qemu, fio...).  Neither Python nor NumPy uses AIO: the filter
    should refuse io_setup (this test asks for one context only, freed at once)."""
    number = {"x86_64": 206, "aarch64": 0, "riscv64": 0}.get(os.uname().machine)
    if number is None:
        pytest.skip("io_setup's number on this architecture is not listed here")

    def attack():
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        context = ctypes.c_ulong(0)
        result = libc.syscall(ctypes.c_long(number), ctypes.c_long(1), ctypes.byref(context))
        code = ctypes.get_errno()
        if result == 0:
            libc.syscall(ctypes.c_long(number + 1), context)  # io_destroy
        return {"io_setup": result, "errno": code if result else 0}

    result = _in_evaluator(attack)
    assert result == {"io_setup": -1, "errno": 1}, result


@needs_seccomp
def test_the_evaluator_cannot_flush_the_machines_disks():
    """sync() writes back every dirty page of every file system of the machine (and syncfs()
    a whole file system through any descriptor): in a loop, an evaluator holds the disks of
    every other process busy.  It writes nothing itself (RLIMIT_FSIZE 0, no writable file):
    the filter should refuse both (EPERM)."""
    number = {"x86_64": 162, "aarch64": 81, "riscv64": 81}.get(os.uname().machine)
    if number is None:
        pytest.skip("sync's number on this architecture is not listed here")

    def attack():
        libc = ctypes.CDLL(None, use_errno=True)
        r = {"sync": libc.syscall(number) and ctypes.get_errno()}  # (libc's sync() is void)
        fd = os.open(os.path.dirname(os.__file__), os.O_RDONLY)
        r["syncfs"] = libc.syncfs(fd) and ctypes.get_errno()
        return r

    assert _in_evaluator(attack) == {"sync": 1, "syncfs": 1}
