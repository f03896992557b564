"""Red team 3: the language features added on branch attack3 (try/except, raise, type(),
super(), torch.nn).  Each test runs a program through the real CLI (`gradcli run -`) and asserts
the SAFE behaviour (each hole it found is closed)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import ROOT

LOCATION = re.compile(r"<stdin>:\d+(:\d+)?: ")


def run(source, timeout=10):
    """(exit code, stdout + stderr) of `gradcli run -` on source."""
    env = dict(os.environ, GRADCLI_MAX_MEMORY="1G", NO_COLOR="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "gradcli.cli.main", "run", "--timeout",
                           str(timeout), "-"], input=source, capture_output=True, text=True,
                          env=env, timeout=timeout + 20, cwd=ROOT)
    return done.returncode, done.stdout + done.stderr


def refused(source, error_type):
    """The program ends in one `error_type: ...` error (exit 2; `run` gives its location, the
    source line and a caret), no traceback."""
    code, output = run(source)
    assert "Traceback" not in output, output
    assert code == 2, output
    errors = [LOCATION.sub("", line, count=1) for line in output.splitlines()
              if LOCATION.match(line)]
    assert errors and errors[-1].startswith(error_type + ":"), output


# ---------------------------------------------------------------------- Module registration

# Module.add_module / register_module / register_parameter call object.__setattr__ with the
# name the program gives: any name, `__class__` and `__dict__` included, so a program sets
# attributes that the compiler refuses to let it name (`_...`, `__...`), reassigns the class
# of an object or replaces its __dict__.  PyTorch refuses a name that is already an attribute
# (KeyError "attribute '__class__' already exists") and a non-Module (TypeError, checked
# first, as PyTorch checks it).

def test_add_module_cannot_reassign_the_class():
    refused("import torch\n"
            "class P:\n"
            "    pass\n"
            "m = torch.nn.Module()\n"
            "m.add_module('__class__', P)\n"
            "print(type(m))\n", "TypeError")
    refused("import torch\n"
            "m = torch.nn.Module()\n"
            "m.add_module('__class__', torch.nn.Linear(1, 1))\n"
            "print(type(m))\n", "KeyError")


def test_add_module_cannot_replace_the_instance_dict():
    refused("import torch\n"
            "d = {}\n"
            "m = torch.nn.Linear(2, 2)\n"
            "m.add_module('__dict__', d)\n"
            "print(d)\n", "TypeError")
    refused("import torch\n"
            "m = torch.nn.Linear(2, 2)\n"
            "m.add_module('__dict__', torch.nn.ReLU())\n", "KeyError")


def test_unbound_add_module_cannot_reassign_the_class():
    refused("import torch\n"
            "m = torch.nn.Module()\n"
            "torch.nn.Module.add_module(m, '__class__', torch.nn.Linear)\n"
            "print(type(m))\n", "TypeError")
    refused("import torch\n"
            "m = torch.nn.Module()\n"
            "torch.nn.Module.register_module(m, '__class__', torch.nn.Tanh())\n", "KeyError")


def test_register_parameter_cannot_overwrite_internal_state():
    refused("import torch\n"
            "m = torch.nn.Module()\n"
            "m.register_parameter('_modules', None)\n"
            "print(m)\n", "KeyError")


def test_add_module_takes_modules_only():
    refused("import torch\n"
            "m = torch.nn.Module()\n"
            "m.add_module('x', print)\n"
            "print(m.x)\n", "TypeError")


def test_activation_keywords_cannot_set_dunder_attributes():
    refused("import torch\n"
            "class P:\n"
            "    pass\n"
            "r = torch.nn.ReLU(**{'__class__': P, '_secret': 1})\n"
            "print(type(r))\n", "TypeError")


# ---------------------------------------------------------------------- exceptions

# _check_exception_attribute hides what Python's exception classes keep (with_traceback,
# add_note) from programs; super() and a class deriving from both nn.Module and Exception step
# around it.

def test_super_does_not_show_exception_internals():
    refused("class E(Exception):\n"
            "    pass\n"
            "e = E('x')\n"
            "print(super(E, e).with_traceback)\n", "AttributeError")


def test_module_exception_class_does_not_show_exception_internals():
    code, output = run("import torch\n"
                       "class E(torch.nn.Module, Exception):\n"
                       "    pass\n"
                       "print(E().with_traceback)\n")
    assert "Traceback" not in output and code == 2, output
    errors = [LOCATION.sub("", line, count=1) for line in output.splitlines()
              if LOCATION.match(line)]
    assert errors and errors[-1].startswith(("AttributeError:", "TypeError:")), output


def test_exception_internals_of_a_caught_error_stay_hidden():
    refused("try:\n"
            "    1 / 0\n"
            "except Exception as e:\n"
            "    e.with_traceback(None)\n", "AttributeError")


def test_base_exception_from_the_mro_is_not_raised_nor_subclassed():
    # (mro is not offered at all now: BaseException is out of a program's reach)
    refused("B = ZeroDivisionError.mro()[-2]\n"
            "raise B('x')\n", "AttributeError")


def test_except_base_exception_from_the_mro_does_not_catch_the_timeout():
    code, output = run("B = ZeroDivisionError.mro()[-2]\n"
                       "while True:\n"
                       "    try:\n"
                       "        while True:\n"
                       "            pass\n"
                       "    except B:\n"
                       "        pass\n", timeout=2)
    assert code == 2 and "'mro' is not available" in output, output


# ---------------------------------------------------------------------- type()

def test_type_of_a_hidden_class_is_not_the_sandbox_class():
    code, output = run("H = type(type(type(1)))\n"
                       "print(H)\n"
                       "class G(H):\n"
                       "    pass\n")
    assert "gradcli.lang.sandbox" not in output, output
    refused("H = type(type(type(1)))\nclass G(H):\n    pass\n", "TypeError")
    refused("def f():\n    pass\nH = type(type(f))\nH('function')\n", "TypeError")
