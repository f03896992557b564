"""A call that leaves out a required argument gets PyTorch's TypeError: its argument parser's
words for its C++ ops ("missing 1 required positional arguments"), Python's for its Python
functions (torch.split, Tensor.split), the "invalid combination" of an overloaded name."""

import pytest

import gradcli

CALLS = ["x.split()", "torch.split(x)", "x.split(2, 0, 1)", "x.view()", "torch.cat()",
         "torch.stack()", "x.expand()", "x.reshape()", "x.permute()", "x.repeat()", "x.flip()",
         "x.transpose(0)", "torch.transpose(x, 0)", "x.unsqueeze()", "x.index_select(0)",
         "torch.gather(x, 0)", "x.chunk()", "m.mm()", "torch.matmul(m)", "torch.sin()",
         "x.topk()", "torch.zeros()", "torch.ones()", "torch.empty()", "torch.rand()",
         "torch.randn()", "torch.full()", "torch.full((2,))", "torch.randint(5)",
         "torch.zeros(())"]


def _outcome(lib, call):
    names = {"torch": lib, "x": lib.ones(4), "m": lib.ones(2, 2)}
    try:
        result = eval(call, names)
    except Exception as e:
        return [type(e).__name__, str(e).split("\n")[0]]
    return ["value", repr(result)]


@pytest.mark.parametrize("call", CALLS)
def test_missing_arguments_are_pytorchs_errors(call, oracle):
    assert _outcome(gradcli, call) == oracle(lambda torch: _outcome(torch, call))
