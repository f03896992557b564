"""Engine semantics (SPEC section 1) pinned by small programs and what real PyTorch 2.x printed
for them: values, gradients, grad_fn names, reprs, and every error and warning text.

Each program runs with `torch` bound to gradcli; `attempt(fn)` prints the error fn raises.  The
expected outputs were produced by running the same programs against torch 2.13;
tests/engine/test_oracle_semantics.py re-runs them against torch (or its golden answers).

The programs live in `test_<module>_programs.py` beside the tests of the package module whose
behaviour they pin (tests/engine/test_tensor_programs.py for gradcli/engine/tensor.py, ...);
each declares `PROGRAMS = Programs()`, its `program(name, source)` calls and `EXPECTED`."""

import importlib
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import gradcli

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
TESTS = Path(__file__).resolve().parent

ALL_PROGRAMS = {}   # every module's programs: name -> source
REQUIRES = {}       # program -> Tensor attributes it needs beyond the engine core


class Programs(dict):
    """One module's programs, name -> source (names are unique across modules)."""

    def add(self, name, source, requires=()):
        assert name not in ALL_PROGRAMS or ALL_PROGRAMS[name] == source, f"two programs {name}"
        self[name] = ALL_PROGRAMS[name] = source
        if requires:
            REQUIRES[name] = requires


def program_modules():
    """The paths of the modules that declare programs."""
    return sorted(TESTS.glob("*/test_*_programs.py"))


def load_all():
    """Every module's programs (imported as pytest imports test modules: by their stem, their
    directory on sys.path)."""
    for path in program_modules():
        if str(path.parent) not in sys.path:
            sys.path.append(str(path.parent))
        importlib.import_module(path.stem)
    return ALL_PROGRAMS


def run_program(torch_module, source):
    """Run a program against a torch-like module; return what it printed, the warnings it
    raised and the error it ended with, one line each, object addresses removed."""
    lines = []

    def emit(*args, sep=" ", end="\n"):
        lines.append(sep.join(str(a) for a in args))

    def attempt(fn):
        try:
            fn()
        except Exception as e:  # the program pins the error text
            lines.append(f"{type(e).__name__}: {e}")

    def show(message, category, filename, lineno, file=None, line=None):
        lines.append(f"{category.__name__}: {message}".split("\n")[0])

    env = {"torch": torch_module, "np": np, "print": emit, "attempt": attempt}
    saved = {name: sys.modules.get(name) for name in _submodule_names()}
    _alias_modules(torch_module)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.showwarning = show
        try:
            exec(compile(source, "<program>", "exec"), env)
        except Exception as e:
            lines.append(f"{type(e).__name__}: {e}")
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
    return _ADDRESS.sub(" at 0x", "\n".join(lines))


def _submodule_names():
    return ["torch", "torch.autograd", "torch.autograd.forward_ad", "torch.autograd.functional"]


def _alias_modules(torch_module):
    """`import torch...` inside a program imports the module under test."""
    sys.modules["torch"] = torch_module
    sys.modules["torch.autograd"] = torch_module.autograd
    sys.modules["torch.autograd.forward_ad"] = torch_module.autograd.forward_ad
    sys.modules["torch.autograd.functional"] = torch_module.autograd.functional


def normalize(text):
    """Drop what only PyTorch's C++ core adds to warnings."""
    text = re.sub(r" \(Triggered internally at [^)]*\)", "", text)
    return text.replace(" See github.com/pytorch/pytorch/pull/30531 for more information.", "")


def skip_if_unavailable(name):
    missing = [attr for attr in REQUIRES.get(name, ()) if not hasattr(gradcli.Tensor, attr)]
    if missing:
        pytest.skip(f"needs Tensor.{', '.join(missing)} from the op table")


def check(programs, expected, name):
    """The program prints what PyTorch printed for it."""
    skip_if_unavailable(name)
    assert normalize(run_program(gradcli, programs[name])) == normalize(expected[name])


@pytest.fixture(autouse=True)
def fresh_warn_once_state(monkeypatch):
    """PyTorch warns once per process about backward(create_graph=True): start each program
    as a fresh process would.  (Autouse in each module that imports it.)"""
    from gradcli.engine import autograd
    monkeypatch.setattr(autograd, "_warned_create_graph", False)
