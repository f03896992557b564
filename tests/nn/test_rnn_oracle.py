"""Recurrent layers, PReLU, BatchNorm2d/3d, GroupNorm and InstanceNorm against PyTorch 2.13.

RNN, LSTM and GRU (and their cells) are PyTorch's CPU recurrences composed from the same ops,
so the graph's nodes are PyTorch's (StackBackward0, UnsafeSplitBackward0, AddmmBackward0, ...),
to the depth compared here.  Their values agree to about 1e-15 relative in float64: the
matrix products with a bias (addmm) are BLAS's in PyTorch (MKL) and NumPy's here, whose
orders of addition differ in the last bit; everything else is elementwise.  The parameters
are PyTorch's draws after manual_seed, bit for bit.  prelu and batch_norm are PyTorch's to the
bit in float64; group_norm's forward (its values, mean and rstd) in float64 and float32, its
gradients (composed here, PyTorch's own kernel there) to about 1e-15 relative."""

import re

import numpy as np
import pytest

import gradcli


def _graph(fn, depth=0, limit=7):
    if fn is None or depth > limit:
        return None
    return [fn.name(), [_graph(n, depth + 1, limit) for n, _ in fn.next_functions]]


def _data(lib, shape, seed, dtype="float64"):
    rng = np.random.default_rng(seed)
    return lib.tensor(np.round(rng.standard_normal(shape), 4).tolist(),
                      dtype=getattr(lib, dtype), requires_grad=True)


RNN_CASES = {
    # name: (module, input shape, initial states' shapes or None)
    "rnn": ("torch.nn.RNN(4, 3)", (5, 2, 4), None),
    "rnn_relu_no_bias": ("torch.nn.RNN(4, 3, nonlinearity='relu', bias=False)", (5, 2, 4), None),
    "rnn_two_layers_h0": ("torch.nn.RNN(4, 3, 2, batch_first=True)", (2, 5, 4), [(2, 2, 3)]),
    "rnn_unbatched": ("torch.nn.RNN(4, 3, bidirectional=True)", (5, 4), [(2, 3)]),
    "lstm": ("torch.nn.LSTM(4, 3)", (5, 2, 4), None),
    "lstm_h0_c0": ("torch.nn.LSTM(4, 3)", (4, 2, 4), [(1, 2, 3), (1, 2, 3)]),
    "lstm_deep_bidirectional": ("torch.nn.LSTM(4, 3, num_layers=2, batch_first=True, "
                                "bidirectional=True)", (2, 5, 4), None),
    "lstm_unbatched_batch_first": ("torch.nn.LSTM(4, 3, batch_first=True)", (5, 4),
                                   [(1, 3), (1, 3)]),
    "lstm_no_bias": ("torch.nn.LSTM(4, 3, bias=False)", (3, 2, 4), None),
    "lstm_proj": ("torch.nn.LSTM(4, 3, proj_size=2)", (3, 2, 4), None),
    "lstm_proj_deep_h0_c0": ("torch.nn.LSTM(4, 3, 2, bias=False, bidirectional=True, "
                             "proj_size=1)", (3, 2, 4), [(4, 2, 1), (4, 2, 3)]),
    "gru": ("torch.nn.GRU(4, 3)", (5, 2, 4), None),
    "gru_bidirectional_h0": ("torch.nn.GRU(4, 3, 2, bidirectional=True)", (3, 2, 4),
                             [(4, 2, 3)]),
    "rnn_cell": ("torch.nn.RNNCell(4, 3)", (2, 4), None),
    "rnn_cell_relu_h": ("torch.nn.RNNCell(4, 3, nonlinearity='relu')", (2, 4), [(2, 3)]),
    "lstm_cell": ("torch.nn.LSTMCell(4, 3)", (2, 4), None),
    "lstm_cell_unbatched": ("torch.nn.LSTMCell(4, 3, bias=False)", (4,), [(3,), (3,)]),
    "gru_cell": ("torch.nn.GRUCell(4, 3)", (2, 4), [(2, 3)]),
    "gru_cell_unbatched": ("torch.nn.GRUCell(4, 3)", (4,), None),
}


def _flat(result):
    if isinstance(result, tuple):
        return [t for r in result for t in (_flat(r) if isinstance(r, tuple) else [r])]
    return [result]


def run_rnn(lib, name):
    program, shape, states = RNN_CASES[name]
    lib.manual_seed(0)
    module = eval(program, {"torch": lib}).double()
    x = _data(lib, shape, 1)
    leaves = [x] + [_data(lib, s, 2 + i) for i, s in enumerate(states or ())]
    args = [x] if states is None else [x, leaves[1] if len(states) == 1 else tuple(leaves[1:])]
    outputs = _flat(module(*args))
    grads, second = gradients(lib, outputs, leaves + list(module.parameters()))
    return {"repr": repr(module), "names": [n for n, _ in module.named_parameters()],
            "graphs": [_graph(t.grad_fn) for t in outputs], **answers(outputs, grads, second)}


def gradients(lib, outputs, leaves, square=False):
    """The gradients of leaves of a weighted sum of the outputs (of their squares: square),
    with the graph, and those of the sum of the gradients' squares."""
    weights = [lib.tensor(np.linspace(-1, 1.5, t.numel()).reshape(tuple(t.shape)).tolist(),
                          dtype=t.dtype) for t in outputs]
    loss = sum(((t * t if square else t) * w).sum() for t, w in zip(outputs, weights))
    grads = lib.autograd.grad(loss, leaves, create_graph=True)
    return grads, lib.autograd.grad(sum((g * g).sum() for g in grads), leaves)


def answers(outputs, grads, second):
    """The shapes and values of outputs, and the first and second gradients, as plain data."""
    return {"shapes": [list(t.shape) for t in outputs],
            "values": [np.asarray(t.tolist()) for t in outputs],
            "grads": [np.asarray(g.tolist()) for g in grads],
            "second": [np.asarray(g.tolist()) for g in second]}


def compare(ours, theirs, rtol=1e-12, atol=1e-13):
    """Our answers against PyTorch's: the numbers within rtol and atol, the rest equal."""
    numbers = ("values", "grads", "second")
    assert sorted(ours) == sorted(theirs)
    for key in sorted(set(ours) - set(numbers)):
        assert ours[key] == theirs[key], key
    for key in numbers:
        assert len(ours[key]) == len(theirs[key]), key
        for a, b in zip(ours[key], theirs[key]):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=key)


@pytest.mark.parametrize("name", sorted(RNN_CASES))
def test_recurrent_layers_match_pytorch(name, oracle):
    compare(run_rnn(gradcli, name), oracle(lambda torch: run_rnn(torch, name)))


MODULES = [
    "torch.nn.RNN(10, 20)", "torch.nn.RNN(3, 4, nonlinearity='relu', bias=False)",
    "torch.nn.LSTM(10, 20, num_layers=2, batch_first=True)",
    "torch.nn.LSTM(3, 2, 2, dropout=0.5, bidirectional=True)",
    "torch.nn.LSTM(3, 4, 2, proj_size=2, bidirectional=True)",
    "torch.nn.GRU(3, 4, bias=False, bidirectional=True)", "torch.nn.RNNCell(3, 4)",
    "torch.nn.RNNCell(3, 4, nonlinearity='relu')", "torch.nn.LSTMCell(3, 4, bias=False)",
    "torch.nn.GRUCell(2, 5)",
    "torch.nn.PReLU()", "torch.nn.PReLU(3, init=0.1)",
    "torch.nn.BatchNorm2d(3)", "torch.nn.BatchNorm3d(2, momentum=None, affine=False)",
    "torch.nn.BatchNorm2d(4, track_running_stats=False, bias=False)",
    "torch.nn.Sequential(torch.nn.LSTM(3, 4), torch.nn.Linear(4, 2))",
    "torch.nn.GroupNorm(2, 4)", "torch.nn.GroupNorm(3, 6, eps=0.1, affine=False)",
    "torch.nn.GroupNorm(1, 2, bias=False)", "torch.nn.InstanceNorm1d(3)",
    "torch.nn.InstanceNorm2d(4, affine=True, track_running_stats=True)",
    "torch.nn.InstanceNorm3d(2)",
    "torch.nn.InstanceNorm3d(3, affine=True, track_running_stats=True, momentum=None)",
]


def _module(lib, program):
    lib.manual_seed(0)
    module = eval(program, {"torch": lib})
    return [repr(module), [[name, list(p.shape), p.detach().flatten().tolist()]
                           for name, p in module.named_parameters()],
            [[name, b.tolist()] for name, b in module.named_buffers()]]


@pytest.mark.parametrize("program", MODULES)
def test_modules_print_and_initialise_as_pytorch(program, oracle):
    assert _module(gradcli, program) == oracle(lambda torch: _module(torch, program))


ERRORS = [
    "torch.nn.RNN(4, 3)(torch.ones(5, 2, 3))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 2, 2, 4))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 2, 4), torch.ones(1, 3, 3))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 2, 4), torch.ones(2, 3))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 4), torch.ones(1, 2, 3))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 4), torch.ones(2, 3))",
    "torch.nn.RNN(4, 3)(torch.ones(5, 2, 4, dtype=torch.float64))",
    "torch.nn.RNN(4, 3)(torch.ones(0, 2, 4))",
    "torch.nn.RNN(4, 3, batch_first=True)(torch.ones(5, 2, 4), torch.ones(1, 2, 3))",
    "torch.nn.GRU(4, 3)(torch.ones(5, 2, 2, 4))",
    "torch.nn.GRU(4, 3, 2)(torch.ones(5, 2, 4), torch.ones(1, 2, 3))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 2, 2, 4))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 2, 4), (torch.ones(1, 2, 3), torch.ones(2, 3)))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 4), (torch.ones(1, 2, 3), torch.ones(1, 2, 3)))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 2, 4), (torch.ones(1, 2, 3), torch.ones(1, 2, 4)))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 2, 4), (torch.ones(1, 1, 3), torch.ones(1, 2, 3)))",
    "torch.nn.LSTM(4, 3)(torch.ones(5, 2, 5))",
    "torch.nn.LSTM(4, 3, proj_size=2)(torch.ones(5, 2, 4), (torch.ones(1, 2, 3), "
    "torch.ones(1, 2, 3)))",
    "torch.nn.LSTM(4, 3, proj_size=2)(torch.ones(5, 2, 4), (torch.ones(1, 2, 2), "
    "torch.ones(1, 2, 2)))",
    "torch.nn.LSTM(4, 3, proj_size=3)",
    "torch.nn.LSTM(4, 3, proj_size=-1)",
    "torch.nn.RNN(4, 3, nonlinearity='sigmoid')",
    "torch.nn.RNN(4, 0)",
    "torch.nn.RNN(4.0, 3)",
    "torch.nn.LSTM(4, 3, num_layers=0)",
    "torch.nn.LSTM(4, 3, dropout=2)",
    "torch.nn.LSTM(4, 3, bias=1)",
    "torch.nn.GRU(4, 3, proj_size=1)",
    "torch.nn.RNNCell(4, 3)(torch.ones(2, 5))",
    "torch.nn.RNNCell(4, 3)(torch.ones(2, 2, 4))",
    "torch.nn.RNNCell(4, 3)(torch.ones(2, 4), torch.ones(3, 3))",
    "torch.nn.RNNCell(4, 3)(torch.ones(2, 4), torch.ones(2, 4))",
    "torch.nn.RNNCell(4, 3)(torch.ones(2, 4), torch.ones(2, 2, 3))",
    "torch.nn.LSTMCell(4, 3)(torch.ones(2, 4), (torch.ones(2, 3), torch.ones(2, 4)))",
    "torch.nn.LSTMCell(4, 3)(torch.ones(2, 4), (torch.ones(2, 3), torch.ones(1, 3)))",
    "torch.nn.LSTMCell(4, 3)(torch.ones(2, 4), (torch.ones(2, 3), torch.ones(2, 2, 3)))",
    "torch.nn.GRUCell(4, 3)(torch.ones(3))",
    "torch.nn.GRUCell(4, 3)(torch.ones(4), torch.ones(4))",
    "torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(2))",
    "torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(3, dtype=torch.float64))",
    "torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(1, 3))",
    "torch.nn.functional.prelu(torch.tensor(1.), torch.ones(2))",
    "torch.nn.functional.prelu(torch.ones(2, 3, dtype=torch.int64), "
    "torch.ones(3, dtype=torch.int64))",
    "torch.prelu(torch.ones(4), torch.ones(4)).shape",
    "torch.nn.BatchNorm2d(3)(torch.ones(2, 3, 4))",
    "torch.nn.BatchNorm3d(3)(torch.ones(2, 3, 4, 4))",
    "torch.nn.BatchNorm2d(3)(torch.ones(2, 4, 4, 4))",
    "torch.nn.BatchNorm2d(3)(torch.ones(1, 3, 1, 1))",
    "torch.nn.GroupNorm(2, 5)",
    "torch.nn.functional.group_norm(torch.ones(2, 5, 3), 2)",
    "torch.nn.functional.group_norm(torch.ones(2, 4, 3), 0)",
    "torch.nn.functional.group_norm(torch.ones(2, 4, 3), -2)",
    "torch.nn.functional.group_norm(torch.ones(4), 2)",
    "torch.nn.functional.group_norm(torch.ones(1, 4), 4)",
    "torch.nn.functional.group_norm(torch.ones(2, 4, 3), 2, torch.ones(3))",
    "torch.nn.functional.group_norm(torch.ones(2, 4, 3), 2, None, torch.ones(2, 2))",
    "torch.nn.functional.group_norm(torch.ones(2, 4, 3), 2, torch.ones(4), torch.ones(2, 2))",
    "torch.group_norm(torch.ones(1, 4), 4).shape",
    "torch.group_norm(torch.ones(2, 4, 3, dtype=torch.int64), 2)",
    "torch.nn.InstanceNorm1d(3)(torch.ones(2, 3, 1))",
    "torch.nn.InstanceNorm1d(3)(torch.ones(2, 3, 4, 4))",
    "torch.nn.InstanceNorm2d(3, affine=True)(torch.ones(2, 4, 4, 4))",
    "torch.nn.InstanceNorm2d(3)(torch.ones(3, 4, 4)).shape",
    "torch.nn.InstanceNorm3d(3)(torch.ones(2, 3, 2, 2, 2, 2))",
    "torch.nn.InstanceNorm3d(3, affine=True)(torch.ones(2, 4, 2, 2, 2))",
    "torch.nn.InstanceNorm3d(3)(torch.ones(3, 1, 1, 1))",
    "torch.nn.InstanceNorm3d(3)(torch.ones(2, 3, 1, 1, 1))",
    "torch.nn.InstanceNorm3d(3, track_running_stats=True).eval()(torch.ones(2, 3, 1, 1, 1))"
    ".shape",
    "torch.instance_norm(torch.ones(2, 3, 1), None, None, None, None, True, 0.1, 1e-5, False)"
    ".shape",
    "torch.instance_norm(torch.ones(3), None, None, None, None, True, 0.1, 1e-5, False)",
    "torch.instance_norm(torch.ones(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False)",
    "torch.instance_norm(torch.ones(2, 3, 4), None, None, torch.zeros(3), None, False, 0.1, 1e-5, "
    "False)",
    "torch.instance_norm(torch.ones(2, 3, 4), torch.ones(2), None, None, None, True, 0.1, 1e-5, "
    "False)",
    "torch.instance_norm(torch.ones(2, 3, 4), None, None, torch.zeros(3), None, True, 0.1, 1e-5, "
    "False)",
    "torch.instance_norm(torch.ones(2, 3, 4), None, None, None, None, True, 0.1, -1., False)"
    ".shape",
    "torch.instance_norm(torch.ones(2, 3, 4, dtype=torch.int64), None, None, None, None, True, "
    "0.1, 1e-5, False)",
    "torch.nn.functional.instance_norm(torch.ones(2, 3))",
    "torch.nn.functional.instance_norm(torch.ones(3))",
    "torch.nn.functional.instance_norm(torch.ones(2, 3, 2), use_input_stats=False)",
    "torch.nn.functional.instance_norm(torch.ones(2, 3, 2), torch.zeros(3), torch.ones(4))",
    "torch.nn.functional.instance_norm(torch.ones(2, 3, 2), torch.zeros(3, requires_grad=True), "
    "torch.ones(3))",
    "torch.nn.functional.batch_norm(torch.ones(2, 3, 2, dtype=torch.int32), None, None, "
    "training=True)",
]


def _error(lib, program, **names):
    """The error (type, first line) of program with torch as lib (and names), or its result."""
    try:
        result = eval(program, {"torch": lib, **names})
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return [type(e).__name__, str(e).split("\n")[0]]
    return ["no error", list(result) if isinstance(result, (tuple, list)) else None]


@pytest.mark.parametrize("program", ERRORS)
def test_errors_are_pytorchs(program, oracle):
    assert _error(gradcli, program) == oracle(lambda torch: _error(torch, program))


def train(lib, dtype, kind):
    """A few SGD steps of a recurrent layer and a linear head predicting the next value of a
    toy sequence; the losses as printed, and the final parameters."""
    lib.manual_seed(0)
    nn = lib.nn
    rnn = getattr(nn, kind)(1, 8, num_layers=2, batch_first=True)
    head = nn.Linear(8, 1)
    t = lib.linspace(0, 6.0, 13)
    wave = lib.sin(t)
    x = lib.stack([wave[:-1], -wave[:-1], 0.5 * wave[:-1]]).unsqueeze(-1)
    y = lib.stack([wave[1:], -wave[1:], 0.5 * wave[1:]]).unsqueeze(-1)
    params = list(rnn.parameters()) + list(head.parameters())
    if dtype == "float64":
        x, y = x.double(), y.double()
        rnn.double()
        head.double()
        params = list(rnn.parameters()) + list(head.parameters())
    opt = lib.optim.SGD(params, lr=0.3)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        out, _ = rnn(x)
        loss = nn.functional.mse_loss(head(out), y)
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.6f}")
    return losses, [p.detach().flatten().tolist() for p in params]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_small_recurrent_model_trains_as_pytorch(dtype, kind, oracle):
    losses, params = train(gradcli, dtype, kind)
    their_losses, their_params = oracle(lambda torch: train(torch, dtype, kind))
    assert losses == their_losses
    for a, b in zip(params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-6 if dtype == "float32" else 1e-13)


def dropout_between_layers(lib):
    """dropout=0.5 between two layers in training draws PyTorch's masks (eval: none)."""
    lib.manual_seed(0)
    lstm = lib.nn.LSTM(3, 4, num_layers=2, dropout=0.5).double()
    x = _data(lib, (4, 2, 3), 5)
    trained = lstm(x)[0]
    lstm.eval()
    return [np.asarray(trained.tolist()), np.asarray(lstm(x)[0].tolist())]


def test_dropout_between_layers_is_pytorchs(oracle):
    ours = dropout_between_layers(gradcli)
    theirs = oracle(dropout_between_layers)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


PRELU_CASES = {
    "channels": ((2, 3, 4), (3,)),
    "one_weight_vector": ((5,), (1,)),
    "one_weight_matrix": ((2, 3), (1,)),
    "image": ((3, 4, 2, 2), (4,)),
    "scalar": ((), (1,)),
    "long_rows": ((40, 3, 30), (3,)),
}


def run_prelu(lib, name):
    xs, ws = PRELU_CASES[name]
    x = _data(lib, xs, 3)
    if x.dim():
        with lib.no_grad():  # (ties at zero: where PyTorch's kernels test > 0 and >= 0)
            x[..., ::3] = 0.0
    w = _data(lib, ws, 4)
    y = lib.nn.functional.prelu(x, w)
    fn = y.grad_fn
    weight = lib.tensor(np.linspace(-1, 2, y.numel()).reshape(tuple(y.shape)).tolist(),
                        dtype=y.dtype)
    grads = lib.autograd.grad((y * weight).sum(), [x, w], create_graph=True)
    second = lib.autograd.grad(sum((g * g * g).sum() for g in grads), [x, w])
    return {"node": fn.name(), "saved": sorted(a for a in dir(fn) if a.startswith("_saved_")),
            "second_nodes": [g.grad_fn.name() for g in grads],
            "second_saved": sorted(a for a in dir(grads[0].grad_fn) if a.startswith("_saved_")),
            "values": [np.asarray(t.tolist()) for t in (y, *grads, *second)]}


@pytest.mark.parametrize("name", sorted(PRELU_CASES))
def test_prelu_matches_pytorch_to_the_bit(name, oracle):
    ours = run_prelu(gradcli, name)
    theirs = oracle(lambda torch: run_prelu(torch, name))
    for key in ("node", "saved", "second_nodes", "second_saved"):
        assert ours[key] == theirs[key], key
    for a, b in zip(ours["values"], theirs["values"]):
        np.testing.assert_array_equal(a, b)


BATCH_NORM = {
    "2d": "torch.nn.BatchNorm2d(3)",
    "2d_momentum_none": "torch.nn.BatchNorm2d(3, momentum=None)",
    "2d_untracked": "torch.nn.BatchNorm2d(3, track_running_stats=False)",
    "3d_no_affine": "torch.nn.BatchNorm3d(3, affine=False)",
    "3d_no_bias": "torch.nn.BatchNorm3d(3, eps=0.1, bias=False)",
}


def run_batch_norm(lib, name):
    """Three training steps (the running stats as they go), then eval."""
    module = eval(BATCH_NORM[name], {"torch": lib}).double()
    shape = (2, 3, 3, 2) if "2d" in name else (2, 3, 2, 2, 3)
    out = []
    for step in range(3):
        x = _data(lib, shape, 10 + step)
        y = module(x)
        y.pow(3).sum().backward()
        out.append([np.asarray(y.tolist()), np.asarray(x.grad.tolist()), y.grad_fn.name()])
        out.append([b.tolist() for _, b in module.named_buffers()])
    module.eval()
    x = _data(lib, shape, 20)
    y = module(x)
    y.pow(3).sum().backward()
    out.append([np.asarray(y.tolist()), np.asarray(x.grad.tolist()), y.grad_fn.name()])
    out.append([np.asarray(p.grad.tolist()) for p in module.parameters()])
    return out


@pytest.mark.parametrize("name", sorted(BATCH_NORM))
def test_batch_norm_2d_3d_match_pytorch(name, oracle):
    ours = run_batch_norm(gradcli, name)
    theirs = oracle(lambda torch: run_batch_norm(torch, name))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert [v for v in a if isinstance(v, str)] == [v for v in b if isinstance(v, str)]
        for u, v in zip(a, b):
            if not isinstance(u, str):
                np.testing.assert_allclose(np.asarray(u, dtype=float),
                                           np.asarray(v, dtype=float), rtol=1e-13, atol=1e-14)


GROUP_NORM = {
    # name: (input shape, groups, affine, dtype)
    "groups": ((2, 4, 3), 2, True, "float64"),
    "no_affine": ((2, 4, 3), 2, False, "float64"),
    "image": ((3, 6, 5, 4), 3, True, "float64"),
    "long_rows": ((2, 6, 40), 2, True, "float64"),
    "one_per_channel": ((4, 3), 3, True, "float64"),
    "float32": ((2, 6, 40), 2, True, "float32"),
    "float32_no_affine": ((3, 6, 5, 4), 6, False, "float32"),
}


def run_group_norm(lib, name):
    shape, groups, affine, dtype = GROUP_NORM[name]
    x = _data(lib, shape, 6, dtype)
    w, b = (_data(lib, (shape[1],), seed, dtype) for seed in (7, 8)) if affine else (None, None)
    y = lib.nn.functional.group_norm(x, groups, w, b, 1e-5)
    fn = y.grad_fn
    saved = {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")
             and a not in ("_saved_input", "_saved_weight")}
    weight = lib.tensor(np.linspace(-1, 2, y.numel()).reshape(tuple(y.shape)).tolist(),
                        dtype=y.dtype)
    leaves = [x] + ([w, b] if affine else [])
    grads = lib.autograd.grad((y * weight).sum(), leaves, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), leaves, allow_unused=True)
    return {"node": fn.name(), "names": sorted(a for a in dir(fn) if a.startswith("_saved_")),
            "saved": {k: np.asarray(v.tolist()) if hasattr(v, "tolist") else v
                      for k, v in saved.items()},
            "value": np.asarray(y.tolist()), "grads": [np.asarray(g.tolist()) for g in grads],
            "second": [None if g is None else np.asarray(g.tolist()) for g in second]}


@pytest.mark.parametrize("name", sorted(GROUP_NORM))
def test_group_norm_matches_pytorch(name, oracle):
    ours = run_group_norm(gradcli, name)
    theirs = oracle(lambda torch: run_group_norm(torch, name))
    assert ours["node"] == theirs["node"] and ours["names"] == theirs["names"]
    assert sorted(ours["saved"]) == sorted(theirs["saved"])
    for key, value in theirs["saved"].items():  # (the mean and rstd to the bit)
        np.testing.assert_array_equal(ours["saved"][key], value)
    np.testing.assert_array_equal(ours["value"], theirs["value"])
    single = GROUP_NORM[name][3] == "float32"
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if single else {"rtol": 1e-12, "atol": 1e-13}
    for a, b in zip(ours["grads"] + ours["second"], theirs["grads"] + theirs["second"]):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, **tolerance)


INSTANCE_NORM = {
    "1d": ("torch.nn.InstanceNorm1d(3)", (2, 3, 5)),
    "1d_unbatched": ("torch.nn.InstanceNorm1d(3, affine=True)", (3, 5)),
    "2d_tracked": ("torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)",
                   (2, 3, 3, 2)),
    "2d_momentum_none": ("torch.nn.InstanceNorm2d(3, momentum=None, track_running_stats=True)",
                         (2, 3, 2, 2)),
    "3d": ("torch.nn.InstanceNorm3d(2)", (2, 2, 3, 2, 2)),
    "3d_unbatched_tracked": ("torch.nn.InstanceNorm3d(2, affine=True, track_running_stats=True, "
                             "momentum=0.3)", (2, 3, 1, 2)),
}


def run_instance_norm(lib, name):
    """Two training steps (the running stats as they go), then eval."""
    program, shape = INSTANCE_NORM[name]
    module = eval(program, {"torch": lib}).double()
    out = []
    for step in range(3):
        if step == 2:
            module.eval()
        x = _data(lib, shape, 30 + step)
        y = module(x)
        y.pow(3).sum().backward()
        out.append([np.asarray(y.tolist()), np.asarray(x.grad.tolist()),
                    [np.asarray(b.tolist(), dtype=float) for _, b in module.named_buffers()],
                    _graph(y.grad_fn, limit=3)])
    return out


@pytest.mark.parametrize("name", sorted(INSTANCE_NORM))
def test_instance_norm_matches_pytorch(name, oracle):
    ours = run_instance_norm(gradcli, name)
    theirs = oracle(lambda torch: run_instance_norm(torch, name))
    for a, b in zip(ours, theirs):
        assert a[3] == b[3] and len(a[2]) == len(b[2])
        for u, v in zip(a[:2] + a[2], b[:2] + b[2]):
            np.testing.assert_allclose(u, v, rtol=1e-13, atol=1e-14)


TORCH_INSTANCE_NORM = {
    # name: (program of x, w, b, rm, rv (the running stats, float64 tensors)), input shape)
    "rank3": ("torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False)", (2, 3, 4)),
    "rank2": ("torch.instance_norm(x, w, b, rm, rv, False, 0.1, 1e-5, False)", (2, 3)),
    "rank5": ("torch.instance_norm(x, w, None, None, None, True, 0.1, 0.01, True)",
              (2, 3, 2, 3, 2)),
    "rank6_functional": ("torch.nn.functional.instance_norm(x, weight=w, bias=b)",
                         (1, 3, 2, 2, 1, 2)),
    "running_stats": ("torch.nn.functional.instance_norm(x, rm, rv, w, b, momentum=0.3)",
                      (2, 3, 4, 2)),
    "running_stats_used": ("torch.nn.functional.instance_norm(x, rm, rv, w, b, "
                           "use_input_stats=False, eps=0.1)", (2, 3, 4)),
    "running_stats_torch": ("torch.instance_norm(x, None, None, rm, rv, True, 0.5, 1e-5, False)",
                            (3, 3, 2, 2, 2)),
}


def run_torch_instance_norm(lib, name):
    program, shape = TORCH_INSTANCE_NORM[name]
    x, w, b = _data(lib, shape, 40), _data(lib, (3,), 41), _data(lib, (3,), 42)
    rm = lib.tensor([0.5, -1.0, 0.25], dtype=lib.float64)
    rv = lib.tensor([1.5, 0.5, 2.0], dtype=lib.float64)
    y = eval(program, {"torch": lib, "x": x, "w": w, "b": b, "rm": rm, "rv": rv})
    used = set(re.findall(r"\b[a-z]+\b", program))
    leaves = [t for n, t in (("x", x), ("w", w), ("b", b)) if n in used]
    grads, second = gradients(lib, [y], leaves, square=True)
    return {"graph": _graph(y.grad_fn, limit=4), **answers([y, rm, rv], grads, second)}


@pytest.mark.parametrize("name", sorted(TORCH_INSTANCE_NORM))
def test_torch_instance_norm_of_every_rank_matches_pytorch(name, oracle):
    compare(run_torch_instance_norm(gradcli, name),
            oracle(lambda torch: run_torch_instance_norm(torch, name)), rtol=1e-12, atol=1e-13)
