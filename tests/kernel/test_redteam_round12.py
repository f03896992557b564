"""Red team, round 12: regression tests that state the SAFE behaviour (they fail until fixed).

The op modules that load at first use under Ctrl-C and the timeout's alarm, the REPL's
evaluator under Ctrl-C, graph nodes a program makes, byte masks written with one value,
interpolate's infinite scale factors."""

import signal
import textwrap

import pytest
from processes import python_output
from gradcli.engine.messages import UINT8_INDEX
from test_redteam_round11 import _assert_pytorchs


pytestmark = pytest.mark.usefixtures("fresh_engine")

HELD = sorted([int(signal.SIGINT), int(signal.SIGALRM)])


# ---------------------------------------------------------------------- loads at first use

def _fresh(code):
    """What code prints in a fresh interpreter whose op modules load at first use."""
    return python_output(textwrap.dedent(code), GRADCLI_LAZY_OPS=None).strip().splitlines()


def test_ctrl_c_in_the_middle_of_a_load_comes_when_the_load_is_done():
    """A Ctrl-C (or the timeout's alarm) stopped a load half way, and its undo ran while the
    exception unwound the import: a second Ctrl-C (the alarm repeats too) landing there left
    the module counted as loaded with its ops Pending (`x.sort()` then said "Tensor.sort is
    not given by gradcli.ops.sorting: run `GRADCLI_LAZY_OPS=0 ...`" for the rest of the
    session) and SIGINT and SIGALRM blocked for good (no more Ctrl-C, no more --timeout but
    the SIGKILL).  Sending a process SIGINT bursts during `lazy.load("sorting")` broke 28
    loads of 30.  Expected: the load holds both signals until it is done; they come then."""
    out = _fresh("""
        import os, signal
        from gradcli.ops import lazy
        from gradcli.ops.registry import OPS
        import_module = lazy.importlib.import_module

        def import_then_interrupt(name):
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            return import_module(name)
        lazy.importlib.import_module = import_then_interrupt
        try:
            lazy.load("sorting")
        except KeyboardInterrupt:
            print("interrupted")
        lazy.importlib.import_module = import_module
        print("sorting" in lazy.LOADED, type(OPS["sort"]).__name__,
              sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        import gradcli.api as torch
        print(torch.tensor([2., 1.]).sort().values.tolist())
    """)
    assert out == ["interrupted", "True Overload []", "[1.0, 2.0]"]


def test_an_undo_stopped_in_turn_is_done_again():
    """A handler due before the load held the signals (a Ctrl-C, then the alarm) raises in
    the load, the next in its undo: the undo is done again, the last error is raised, and
    the next use loads the module."""
    out = _fresh("""
        import signal
        from gradcli import ops
        from gradcli.ops import derivatives, lazy
        from gradcli.ops.registry import OPS

        class Alarmed(dict):
            due = True

            def pop(self, *args):
                if Alarmed.due:
                    Alarmed.due = False
                    raise TimeoutError("the alarm")
                return dict.pop(self, *args)
        derivatives.HELPERS = Alarmed(derivatives.HELPERS)
        install = ops.install

        def interrupted(*args):  # (a Ctrl-C in the installation step)
            ops.install = install
            raise KeyboardInterrupt
        ops.install = interrupted
        try:
            lazy.load("sorting")
        except BaseException as e:
            print(type(e).__name__)
        print("sorting" in lazy.LOADED, type(OPS["sort"]).__name__,
              sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        import gradcli.api as torch
        print(torch.tensor([2., 1.]).sort().values.tolist(), torch.tensor([1., 3.]).argsort())
    """)
    assert out == ["TimeoutError", "False Pending []", "[1.0, 2.0] tensor([0, 1])"]


# ---------------------------------------------------------------------- the REPL's evaluator

def test_a_ctrl_c_while_the_repls_evaluator_waits_is_dropped():
    """The REPL's evaluator took Ctrl-C as a KeyboardInterrupt everywhere: one the frontend
    forwarded while the session started, before the evaluator read the request sent, or
    after it had answered (three Ctrl-C in a row at the piped REPL) ended the evaluator,
    "gradcli: the evaluator failed: KeyboardInterrupt:", and its session with it; one in the
    middle of an answer could cut the answer's message in two.  Expected: dropped, as
    between statements; the session goes on."""
    out = _fresh("""
        import os, signal, sys
        from gradcli.cli import replcore
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sent = []

        class Channel:
            def send(self, message):
                sent.append(message["r"]["value"])
                os.kill(os.getpid(), signal.SIGINT)  # (forwarded late: after the answer)

        def core():
            made = replcore.ReplCore(sys.stdout, False)
            os.kill(os.getpid(), signal.SIGINT)  # (while the session starts)
            return made
        r, w = os.pipe()
        os.write(w, b'{"op": "run", "source": "x = 1"}\\n'
                    b'{"op": "run", "source": "print(x + 1)"}\\n')
        os.close(w)
        code = replcore.serve(Channel(), r, core)
        print(code, sent, signal.getsignal(signal.SIGINT).__name__)
    """)
    assert out == ["2", "0 [True, True] dropped"]


# ---------------------------------------------------------------------- PyTorch's answers

NODE_CALLS = [
    "x = torch.ones(2, requires_grad=True)\nN = type((x * 2).sum().grad_fn)\nn = N()\n",
    "x = torch.ones(2, requires_grad=True)\nn = type(x.view(2).grad_fn)()\n",
    "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
    "n = type(y.grad_fn.next_functions[0][0].next_functions[0][0])()\n",
    "n = torch.autograd.graph.Node()\n",
    "class N(torch.autograd.graph.Node):\n    pass\nn = N()\n",
    "class N(torch.autograd.graph.Node):\n    pass\nclass M(N):\n    pass\nn = M()\n",
    "x = torch.ones(2, requires_grad=True)\nclass M(type((x * 2).sum().grad_fn)):\n    pass\n",
    "x = torch.ones(2, requires_grad=True)\nn = list(map(type(x.view(2).grad_fn), [1]))\n",
    "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
    "        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
    "x = torch.ones(2, requires_grad=True)\nn = type(F.apply(x).grad_fn)()\n"
    "print(type(n).__name__)\n",
]


@pytest.mark.parametrize("source", NODE_CALLS, ids=range(len(NODE_CALLS)))
def test_a_program_makes_no_graph_node_pytorch_would_not(source, oracle):
    """`type(y.grad_fn)()`, `torch.autograd.graph.Node()` and a program's subclass of Node
    made a node with none of the state the backward pass reads (handed to
    torch.autograd.grad as a GradientEdge: "AttributeError: 'SumBackward0' object has no
    attribute '_saved_out'"), and a class could derive from an op's node class.  Expected:
    PyTorch's refusals (an op's node class is a C++ class without a constructor, Node is
    abstract); a custom Function's node class still makes instances, as in PyTorch."""
    _assert_pytorchs(oracle, source)


BYTE_MASK_WRITES = [
    "x = torch.zeros(5)\nx[m] = 7.\n", "x = torch.zeros(5)\nx[m] = 7\n",
    "x = torch.zeros(5)\nx[m] = torch.tensor(7.)\n", "x = torch.zeros(5)\nx[m] = True\n",
    "x = torch.zeros(5)\nx[m] = torch.tensor([7.])\n",
    "x = torch.zeros(5)\nx[m] = torch.tensor(7., dtype=torch.float64)\n",
    "x = torch.zeros(5, 2)\nx[m] = 7.\n", "x = torch.zeros(5, 2)\nx[m, 0] = 7.\n",
    "x = torch.zeros(5, 2)\nx[m, :] = 7.\n", "x = torch.zeros(5)\nx[..., m] = 7.\n",
    "x = torch.zeros(5)\nx[None, m] = 7.\n", "x = torch.zeros(5)\nx[(m,)] = 7.\n",
    "x = torch.zeros(5)\nx.index_put_((m,), torch.tensor([7.]))\n",
    "x = torch.zeros(5)\nx.index_put_((m,), torch.tensor([[7.]]))\n",
    # (a value of several elements, or accumulate, is no masked_fill_: the mask selects)
    "x = torch.zeros(5)\nx[m] = torch.tensor([7., 8.])\nprint(x)\n",
    "x = torch.zeros(5)\nx[m] += 1\nprint(x)\n",
    "x = torch.zeros(5)\nprint(x.index_put((m,), torch.tensor([7.]), accumulate=True))\n",
    "x = torch.zeros(5, 2)\nx[m, :] = torch.tensor([7., 8.])\nprint(x)\n",
]


@pytest.mark.parametrize("source", BYTE_MASK_WRITES, ids=range(len(BYTE_MASK_WRITES)))
def test_a_byte_mask_written_with_one_value_is_refused_as_in_pytorch(source, oracle):
    """`x[byte_mask] = 7.` filled the mask's positions; PyTorch's index_put_ of a one-element
    value with a single mask as its only tensor index is masked_fill_, which refuses a uint8
    mask.  (Round 11 refused index_put's 0-d value only.)"""
    _assert_pytorchs(oracle, "m = torch.tensor([0, 0, 1, 0, 1], dtype=torch.uint8)\n" + source,
                     on_stderr=[UINT8_INDEX])


SIZE_FACTORS = [f"F.interpolate(torch.ones({shape}), scale_factor={factor}{mode})"
                for factor in ("float('inf')", "float('nan')", "-float('inf')", "1e30",
                               "(1., float('inf'))")
                for shape, mode in (("1, 1, 4, 4", ""), ("1, 1, 4, 4", ", mode='bilinear'"),
                                    ("1, 1, 4, 4", ", mode='bicubic'"),
                                    ("1, 1, 4, 4", ", mode='area'"),
                                    ("1, 1, 4, 4", ", mode='nearest-exact'"),
                                    ("1, 1, 4", ""), ("1, 1, 4", ", mode='linear'"))
                if not (factor == "1e30" and "area" in mode)] + [
    f"F.max_unpool{d}d(torch.ones(1, 1{', 4' * d}), torch.zeros(1, 1{', 4' * d}).long(), "
    f"{kernel})" for d in (1, 2, 3) for kernel in ("kernel_size=0", "2, stride=0")]


@pytest.mark.parametrize("source", SIZE_FACTORS, ids=range(len(SIZE_FACTORS)))
def test_infinite_and_nan_scale_factors_give_pytorchs_error(source, oracle):
    """F.interpolate(x, scale_factor=inf or nan) said Python's "OverflowError: cannot convert
    float infinity to integer" (ValueError for NaN) where PyTorch's C++ op says "RuntimeError:
    value cannot be converted to type int64_t without overflow" (area mode, computed in
    PyTorch's Python, keeps Python's; not its error for 1e30).  max_unpool with kernel_size=0 or stride=0 already gave
    PyTorch's answers: kept so."""
    _assert_pytorchs(oracle, f"import torch.nn.functional as F\nr = {source}\nprint(r.shape)\n")
