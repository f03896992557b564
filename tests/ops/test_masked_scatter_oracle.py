"""masked_scatter and masked_scatter_ against PyTorch: values, the node and what it saved, the
gradients of both inputs, the graph of a create_graph gradient (MaskedScatterBackwardBackward0),
and the errors (mask dtype, dtypes, too few source elements, shapes, the in-place expand)."""

import numpy as np
import pytest

import gradcli
from op_oracle import assert_matches, graph

X = [[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]]
S = [[1.5, -0.5, 0.75, 2.5], [-1.25, 0.5, 1.0, -3.0]]

CALLS = {
    "row_mask": "x.masked_scatter(torch.tensor([True, False, True]), s)",
    "full_mask": "x.masked_scatter(x > 0, s)",
    "function": "torch.masked_scatter(x, torch.tensor([[True], [False]]), s)",
    "broadcast_self": "x[0].masked_scatter(torch.tensor([[True, False, True], [False, True, "
                      "False]]), s)",
    "no_true": "x.masked_scatter(x > 10, s)",
    "inplace": "(x * 1).masked_scatter_(x < 0, s)",
    "inplace_view": "(x * 1)[1].masked_scatter_(torch.tensor([True, True, False]), s[0])",
    "source_const": "x.masked_scatter(x > 0, s.detach())",
    # errors
    "long_mask": "x.masked_scatter(torch.tensor([1, 0, 1]), s)",
    "few_source": "x.masked_scatter(torch.ones(2, 3, dtype=torch.bool), s[:, :1])",
    "dtypes": "x.masked_scatter(x > 0, s.float())",
    "shapes": "x.masked_scatter(torch.tensor([True, False]), s)",
    "inplace_rank": "(x * 1)[0].masked_scatter_(torch.ones(2, 3, dtype=torch.bool), s)",
    "inplace_size": "(x * 1)[0].masked_scatter_(torch.ones(2, dtype=torch.bool), s)",
}


def _values(t):
    return None if t is None else np.asarray(t.detach().tolist(), np.float64)


def report(lib, name):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    s = lib.tensor(S, dtype=lib.float64, requires_grad=True)
    try:
        y = eval(CALLS[name], {"torch": lib, "x": x, "s": s})
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return {"error": [type(e).__name__, str(e)]}
    fn = y.grad_fn
    saved = {}
    for key in sorted(k for k in dir(fn) if k.startswith("_saved_")):
        value = getattr(fn, key)
        saved[key] = value.tolist() if isinstance(value, lib.Tensor) else repr(value)
    weights = lib.tensor(np.linspace(-1, 2, y.numel()).reshape(tuple(y.shape)).tolist(),
                         dtype=lib.float64)
    first = lib.autograd.grad((y * y * weights).sum(), (x, s), allow_unused=True,
                              create_graph=True)
    second = [None if g is None or not g.requires_grad else
              lib.autograd.grad(g.sum(), (x, s), allow_unused=True, retain_graph=True)
              for g in first]
    return {"value": _values(y), "graph": graph(fn), "saved": saved, "version": y._version,
            "grads": [_values(g) for g in first],
            "double graphs": [None if g is None else graph(g.grad_fn) for g in first],
            "second": [None if g is None else [_values(v) for v in g] for g in second]}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_masked_scatter_matches_pytorch(name, oracle):
    assert_matches(report(gradcli, name), oracle(lambda torch: report(torch, name)), name,
                   rtol=1e-12)
