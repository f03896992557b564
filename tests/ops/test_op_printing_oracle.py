"""Ops print as PyTorch prints them: `print(torch.sort)` is `<built-in method sort of type
object at 0x...>`, a Python function of PyTorch's (torch.norm, F.relu) `<function norm at
0x...>`, a torch._C._nn function (F.gelu) `<built-in function gelu>` without an address; and
their `__name__` is theirs.  (Addresses are compared as `0x...`: they need not be PyTorch's.)
Tensor methods, C descriptors in PyTorch, are Python functions here: a program prints them as
PyTorch prints its C methods (`<built-in method sin of Tensor object at 0x...>`, `<method 'add'
of 'torch._C.TensorBase' objects>`; the methods PyTorch writes in Python, split, as bound
methods of Tensor), never under gradcli's own names."""

import io
import re

import pytest

from gradcli.lang.session import Session

SAME = ["torch.sort", "torch.sin", "torch.add", "torch.tensor", "torch.zeros", "torch.exp",
        "torch.max", "torch.relu", "torch.matmul", "torch.norm", "torch.split",
        "torch.manual_seed", "torch.einsum", "torch.FloatTensor", "F.relu", "F.softmax",
        "F.mse_loss", "F.conv2d", "F.gelu", "F.pad", "F.interpolate", "F.one_hot",
        "torch.autograd.grad", "torch.nn.functional.linear.__name__", "x.backward",
        "torch.Tensor.backward"]
NAMED = ["torch.sin", "torch.sort", "torch.tensor", "torch.split", "F.conv2d", "F.relu",
         "torch.autograd.grad"]


def _program(expressions):
    shown = "\n".join(f"print(repr({e}), str({e}) == repr({e}))" for e in expressions)
    named = "\n".join(f"print({e}.__name__)" for e in NAMED)
    return ("import torch\nimport torch.nn.functional as F\nx = torch.ones(2)\n"
            f"{shown}\n{named}\n")


def _addresses(text):
    return re.sub(r"0x[0-9a-f]+", "0x...", text)


def test_ops_print_as_pytorchs(oracle):
    program = _program(SAME)

    def printed(torch):
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(program, {})
        return _addresses(out.getvalue())
    out = io.StringIO()
    Session(out=out).run(program)
    assert _addresses(out.getvalue()) == oracle(printed)


@pytest.mark.parametrize("expression, shown", [
    ("x.sin", "<built-in method sin of Tensor object at 0x...>"),
    ("x.exp_", "<built-in method exp_ of Tensor object at 0x...>"),
    ("x.split", "<bound method Tensor.split of tensor([1., 1.])>"),
    ("torch.Tensor.add", "<method 'add' of 'torch._C.TensorBase' objects>"),
    ("sin", "<built-in method sin of type object at 0x...>"),
    ("max", "<built-in function max>"),
])
def test_methods_print_as_methods_of_tensor(expression, shown):
    out = io.StringIO()
    Session(out=out).run(f"import torch\nx = torch.ones(2)\nprint({expression}, "
                         f"{expression}.__name__)")
    assert _addresses(out.getvalue()) == f"{shown} {expression.split('.')[-1]}\n"


def test_no_op_or_method_prints_gradcli_names():
    import gradcli
    from gradcli.lang.namespace import modules
    shown = [(name, repr(value)) for name, value in modules()["torch"]._members.items()
             if callable(value) and not isinstance(value, type)]
    shown += [(name, repr(getattr(gradcli.Tensor, name))) for name in dir(gradcli.Tensor)
              if not name.startswith("_")]
    for name, text in shown:
        assert "gradcli" not in text and "<locals>" not in text and "<op " not in text, \
            (name, text)


@pytest.mark.parametrize("expression, first_lines", [
    ("torch.split", "Help on function split:\n\nsplit\n    split into pieces"),
    ("torch.sin", "Help on function sin:\n\nsin\n    sine"),
    ("max", "Help on function max:\n\nmax\n    max(iterable"),
])
def test_help_on_an_op_is_its_own_not_its_classs(expression, first_lines):
    out = io.StringIO()
    Session(out=out).run(f"import torch\nhelp({expression})")
    assert out.getvalue().startswith(first_lines), out.getvalue()
