"""Red team, round 12: regression tests that state the SAFE behaviour (they fail until fixed).

The op modules that load at first use under Ctrl-C and the timeout's alarm, ..."""

import signal
import textwrap

import pytest
from processes import python_output


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
