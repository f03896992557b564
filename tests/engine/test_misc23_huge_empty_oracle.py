"""Tensors of sizes past 64 bits (issue 20): a new tensor's storage and strides are checked as
PyTorch 2.13 checks them ("Stride calculation overflowed", "Storage size calculation overflowed
with sizes=[...]"), sizes past a C long long are its parser's TypeError, a view's or an
expand's sizes whose product overflows are "numel: integer multiplication overflow"; never
NumPy's words.  The empty tensors PyTorch holds and NumPy cannot are gradcli's own one-line
RuntimeError.  Against torch (README "The oracle tests")."""

import pytest
from processes import gradcli_answer, torch_answer

EXPRESSIONS = [
    "torch.empty(0, 2**62, 2**62)", "torch.zeros(0, 2**62, 2**62)", "torch.ones(0, 2**40, 2**40)",
    "torch.empty(0, 2**62, 4)", "torch.empty(0, 2**61, 4)", "torch.empty(0, 2**31, 2**31, 4)",
    "torch.empty((0, 2**62, 2**62), dtype=torch.int8)", "torch.full((0, 2**62, 2**62), 1.0)",
    "torch.randn(0, 2**62, 2**62)", "torch.rand(0, 2**62, 2**62)",
    "torch.randint(3, (0, 2**62, 2**62))", "torch.zeros(3).new_empty(0, 2**62, 2**62)",
    "torch.empty(2**62, 2**62, 0)", "torch.empty(2**62)", "torch.empty(2**61)",
    "torch.ones(2**60, 2**4)", "torch.empty(2**63)", "torch.empty(0, 2**63)",
    "torch.zeros(2, 2**64)", "torch.empty(-2**63 - 1)", "torch.empty(0, 2**62, 2**62).sum()",
    "torch.empty(0).expand(2**62, 2**62, 0)", "torch.empty(0).view(2**62, 2**62, 0)",
    "torch.empty(0).reshape(2**62, 2**62, 0)", "torch.empty(0, 2**59, 0).shape",
    "torch.empty(0).view(0, 2**40, 2**10).shape", "torch.empty(1, 0).expand(2**40, 0).shape",
    "torch.empty(0).view(0, -1)",
]
CASES = {expression: f"r = {expression}" for expression in EXPRESSIONS}


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_huge_sizes_are_refused_as_pytorch_refuses_them(source, oracle):
    assert gradcli_answer(source) == oracle(lambda torch: torch_answer(torch, source))


@pytest.mark.parametrize("expression", [
    "torch.empty(0).view(0, 2**62, 2**62)", "torch.empty(0).reshape(0, 2**62, 2**62)",
    "torch.empty(1, 0).expand(2**62, 0)", "torch.empty(2**61, 4, 0)"])
def test_an_empty_tensor_numpy_cannot_hold_is_one_runtime_error(expression, oracle):
    # (PyTorch holds it: the oracle says so, and gradcli says it cannot, in one line)
    shape = oracle(lambda torch: list(eval(expression, {"torch": torch}).shape))
    assert 0 in shape and max(shape) >= 2 ** 61
    answer = gradcli_answer(f"r = {expression}")
    assert answer.startswith("RuntimeError: an empty tensor of size [")
    assert "more than gradcli holds" in answer and "\n" not in answer
