"""Ops on uint16, uint32 and uint64 tensors where PyTorch 2.13 has no CPU kernel: the ops whose
dtype does not promote (neg, flip, max, sort's kin, the comparisons, clamp with numbers, the
scatter family, matrix products, ...) refuse with PyTorch's `"<kernel>" not implemented for
'UInt16'` (gradcli/ops/unsigned.py, one table), after the checks of their arguments, and those
PyTorch computes (sort, where, mul, a comparison with a float) still compute.  Checked against
torch (README "The oracle tests")."""

import pytest
from processes import gradcli_answer, torch_answer

EXPRESSIONS = [
    # one input, in its own dtype
    "a.neg()", "-a", "abs(a)", "a.sign()", "a.sgn()", "a.flip(0)", "m.flip(0, 1)",
    "a.bitwise_not()", "~a", "a.logical_not()", "a.neg_()", "a.abs_()",
    # reductions and selections
    "a.max()", "a.min()", "a.max(0)", "m.min(1)", "a.max(dim=0, keepdim=True)", "a.argmax()",
    "m.argmin(1)", "a.amax()", "torch.amin(m, 1)", "a.aminmax()", "a.topk(2)",
    "a.kthvalue(2)", "a.median()", "a.median(0)", "a.nanmedian()", "a.mode()",
    "a.cummax(0)", "a.cummin(0)", "a.logcumsumexp(0)", "a.count_nonzero()",
    "a.count_nonzero(0)", "a.nonzero()", "a.argwhere()", "m.trace()",
    # comparisons and clamp: in the promoted dtype (a float operand computes in float)
    "a < a", "a <= 2", "a > torch.tensor(1)", "2 > a", "torch.ge(a, a)", "a.lt(torch.tensor(2))",
    "a < 1.5", "a > torch.tensor(1.5)", "a == 2", "a != a", "a.lt(torch.tensor([1, 2, 3]))",
    "a.logical_and(a)", "a.logical_or(a)", "a.logical_xor(a)", "a.logical_and(a.bool())",
    "a.clamp(1, 2)", "a.clamp(min=1)", "a.clamp(max=2)", "a.clamp_(1, 2)", "a.clamp_min(1)",
    "a.clamp_max(2)", "a.clamp(1.5)", "a.clamp(1, 2.5)", "a.clamp(a, a)", "a.clamp(min=a)",
    "a.clamp(max=a)", "a.clamp(torch.tensor(1.0))", "torch.relu(a)", "a.relu_()",
    "torch.nn.functional.hardtanh(a)", "torch.nn.functional.relu6(a)",
    "torch.nn.functional.threshold(a, 1, 0)", "torch.heaviside(a, a)",
    # float activations refuse an integer input
    "torch.nn.functional.elu(a)", "torch.nn.functional.gelu(a)", "torch.nn.functional.silu(a)",
    "torch.nn.functional.softplus(a)", "torch.nn.functional.leaky_relu(a)",
    "torch.nn.functional.softshrink(a)", "torch.nn.functional.hardshrink(a)",
    "torch.nn.functional.selu(a)", "torch.nn.functional.mish(a)",
    "torch.nn.functional.hardswish(a)", "torch.nn.functional.logsigmoid(a)",
    "torch.nn.functional.glu(m)", "torch.nn.functional.prelu(a, torch.ones(1, dtype=a.dtype))",
    # indexing, masks and scatters
    "m.tril()", "m.triu()", "a.masked_fill(a == 2, 0)",
    "a.masked_fill_(torch.tensor([True, False, True]), 0)",
    "a.masked_select(torch.tensor([True, False, True]))",
    "a.masked_scatter(torch.tensor([True, False, True]), a)",
    "a.masked_scatter_(torch.tensor([True, False, True]), a)", "a.index_select(0, i)",
    "a.gather(0, i)", "a.scatter(0, i, a[:2])", "a.scatter(0, i, 5)", "a.scatter_(0, i, a[:2])",
    "a.scatter_add(0, i, a[:2])", "a.scatter_reduce(0, i, a[:2], 'sum')",
    "a.scatter_reduce(0, i, a[:2], 'mean')", "a.scatter_reduce(0, i, a[:2], 'amax')",
    "a.scatter_reduce(0, i, a[:2], 'amin', include_self=False)", "a.index_put((i,), a[:2])",
    "a.index_put_((i,), a[:2], accumulate=True)", "a.index_fill(0, i, 5)",
    "a.index_add(0, i, a[:2])", "a.index_copy(0, i, a[:2])", "torch.repeat_interleave(a)",
    "a.repeat_interleave(2)",
    # products
    "a.dot(a)", "torch.vdot(a, a)", "m @ m", "m.mm(m)", "m.mv(m[0])", "a @ a",
    "torch.matmul(m, m[0])", "m[None].bmm(m[None])", "torch.addmm(m, m, m)", "torch.inner(a, a)",
    "torch.inner(m, m)", "torch.cross(m, m, dim=0)", "a.lerp(a, 0.5)", "a.lerp(a, a)",
    # argument checks come first
    "a.amax(1)", "a.argmax(1)", "a.tril()", "m.dot(m)", "a.mm(a)", "a.bmm(a)", "a.mv(a)",
    "a.masked_select(a)", "a.kthvalue(0)", "torch.nn.functional.glu(a)",
    # what PyTorch computes
    "a.sort()", "a.sort(descending=True)", "a.argsort()", "a.unique()", "a.roll(1)",
    "torch.where(a == 2, a, a)", "a * a", "a * 2", "a & a", "a.sum()", "a.cumsum(0)",
    "torch.cat([a, a])", "a[i]", "a.clone().fill_(3)", "a.sqrt()", "a.float().clamp(0, 2)",
    "m.t().contiguous()", "a.diag()", "a.repeat(2)",
]
CASES = {f"{dtype}: {expression}":
         f"a = torch.tensor([1, 2, 3], dtype=torch.{dtype})\n"
         f"m = torch.tensor([[1, 2], [3, 4]], dtype=torch.{dtype})\n"
         f"i = torch.tensor([0, 1])\nr = {expression}"
         for dtype in ("uint16", "uint32", "uint64") for expression in EXPRESSIONS}


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_wide_unsigned_kernels_are_pytorchs(source, oracle):
    assert gradcli_answer(source) == oracle(lambda torch: torch_answer(torch, source))
