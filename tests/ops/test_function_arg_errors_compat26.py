"""A call of a torch function whose arguments PyTorch's argument parser refuses gets the
parser's TypeError, word for word (issue 20: `torch.sum(x, 'a')`): the function's forms are
its Tensor method's with `Tensor input` first and `out=` last (gradcli.ops.arg_errors.
function_error, reached from the error path of the op table's overloaded names).  The calls
PyTorch's parser takes keep gradcli's own result or error."""

import pytest
from processes import program_output
from test_arg_errors_msgs24 import _outcome  # (x: a 2x2 tensor of ones)

import gradcli

CALLS = [
    # reductions with and without dim (PyTorch's overloads, its `out=` where it has one)
    "torch.sum(x, 'a')", "torch.sum(x, dim='a')", "torch.sum(x, 1, 2, 3, 4)", "torch.sum('a')",
    "torch.sum(x, dim=1, bogus=2)", "torch.sum(x, (0, 'a'))",
    "torch.mean(x, 'a')", "torch.mean(x, dim='a')", "torch.mean(x, (0, 'a'))",
    "torch.prod(x, 'a')", "torch.prod(x, dim=1.5)",
    # max/min (a form of several outputs: `tuple of Tensors out`)
    "torch.max(x, 'a')", "torch.min(x, 'a')", "torch.max(x, dim='a')", "torch.max(x, 1, 'a', 3)",
    # binary families (pow's Number self form), squeeze's view forms (no out=)
    "torch.pow(x, 'a')", "torch.pow('a', x)", "torch.squeeze(x, 'a')", "torch.squeeze(x, 0, 1)",
    "torch.lerp(x, x, 'a')", "torch.div(x, 'a')", "torch.fmod(x, 'a')", "torch.clamp(x, 'a')",
    # taken by the parser: gradcli's own answer stands
    "torch.sum(x, 1)", "torch.pow(x, 2)", "torch.squeeze(x, 0)", "torch.max(x, 0)",
]


@pytest.mark.parametrize("call", CALLS)
def test_function_argument_errors_are_pytorchs(call, oracle):
    assert _outcome(gradcli, call) == oracle(lambda torch: _outcome(torch, call))


def test_a_program_catches_the_parsers_error_by_its_type():
    out = program_output("import torch\nx = torch.ones(2)\ntry:\n    torch.mean(x, dim='a')\n"
                      "except TypeError as e:\n    print(str(e).splitlines()[0])\n")
    assert out == ("mean() received an invalid combination of arguments - got (Tensor, "
                   "dim=str), but expected one of:\n")
