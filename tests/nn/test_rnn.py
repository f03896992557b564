"""Recurrent layers, PReLU and BatchNorm2d/3d beyond the oracle (tests/nn/test_rnn_oracle.py):
the element limit holds before a recurrence starts, the table lists the new names, completion
offers them, and a sequence too long for the language's item limit is refused when unbound.
prelu's and unsafe_split's derivatives are the table's (gradchecked, first and second order,
in tests/ops/test_op_gradcheck.py and test_jvp.py with every op)."""

import io

import pytest

import gradcli
from gradcli.analysis.optable import op_rows
from gradcli.engine.tensor import ElementLimit
from gradcli.lang.session import Session
from test_conv import names  # noqa: F401 - the session's namespace (a fixture)
from test_conv import test_completion_offers_them as check_completion

nn = gradcli.nn


@pytest.fixture
def limit():
    saved = ElementLimit.limit
    yield gradcli.set_element_limit
    gradcli.set_element_limit(saved)


@pytest.mark.parametrize("program, gates", [
    # (inputs and parameters under the limit; the gates of all steps, layers and directions
    # the graph keeps are not)
    ("nn.LSTM(1, 8)(gradcli.ones(100, 1, 1))", 100 * 32),
    ("nn.GRU(1, 8, num_layers=2, bidirectional=True)(gradcli.ones(30, 2, 1))", 4 * 30 * 2 * 24),
    ("nn.RNN(2, 40, batch_first=True)(gradcli.ones(3, 20, 2))", 20 * 3 * 40),
])
def test_the_recurrence_is_held_to_the_element_limit_before_it_runs(program, gates, limit):
    gradcli.manual_seed(0)
    module_program, call = program.split(")(", 1)
    module = eval(module_program + ")", {"nn": nn})
    limit(2000)
    with pytest.raises(RuntimeError, match=r"tensor of (\d+) elements exceeds the limit of "
                                           "2000 elements") as caught:
        eval("module(" + call, {"module": module, "gradcli": gradcli})
    assert int(caught.value.args[0].split()[2]) == gates


def test_a_session_refuses_more_steps_than_its_item_limit(monkeypatch):
    """The steps are the unbound sequence: more than GRADCLI_MAX_ITEMS of them is the
    language's MemoryError before the first step runs."""
    from gradcli.lang import limits
    session = Session(out=io.StringIO())
    session.run("import torch\nrnn = torch.nn.RNN(1, 2)\n")
    monkeypatch.setattr(limits, "MAX_ITEMS", 1000)
    from gradcli.lang.errors import ProgramError
    with pytest.raises(ProgramError, match="MemoryError: sequence too long"):
        session.run("rnn(torch.ones(1001, 1, 1))")
    session.run("out, h = rnn(torch.ones(1000, 1, 1))")


NAMES = ["prelu", "unsafe_split", "unsafe_chunk", "group_norm", "instance_norm"]


def test_gradcli_ops_lists_the_new_names():
    rows = {r["name"]: r for r in op_rows()}
    for name in NAMES:
        assert name in rows, name
    assert "PreluKernelBackward0" in rows["prelu"]["formula"]
    assert "UnsafeSplitBackward0" in rows["unsafe_chunk"]["formula"]
    assert "group_norm_backward(grad, input, weight, group, eps)" in \
        rows["group_norm"]["formula"]
    assert "batch_norm_backward(grad, input, weight" in rows["instance_norm"]["formula"]
    assert rows["instance_norm"]["signature"].startswith("instance_norm(input, weight, bias, "
                                                         "running_mean, running_var")


def test_torch_namespace_has_pytorchs_names():
    for name in ("prelu", "unsafe_split", "unsafe_chunk", "group_norm", "instance_norm"):
        assert callable(getattr(gradcli, name)), name
    assert gradcli.nn.functional.prelu is gradcli.prelu
    x = gradcli.tensor([[-1.0, 2.0]])
    assert x.prelu(gradcli.tensor([0.5])).tolist() == [[-0.5, 2.0]]
    assert [p.tolist() for p in x.unsafe_chunk(2, 1)] == [[[-1.0]], [[2.0]]]
    for name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "PReLU",
                 "BatchNorm2d", "BatchNorm3d", "RNNBase", "RNNCellBase", "GroupNorm",
                 "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
        assert isinstance(getattr(nn, name), type), name


@pytest.mark.parametrize("text, expected", [
    ("nn.LST", ["LSTM", "LSTMCell"]),
    ("nn.GR", ["GRU", "GRUCell"]),
    ("torch.nn.RN", ["RNN", "RNNBase", "RNNCell", "RNNCellBase"]),
    ("nn.PR", ["PReLU"]),
    ("nn.BatchNorm", ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]),
    ("F.pre", ["prelu"]),
    ("F.group_", ["group_norm"]),
    ("F.instance_", ["instance_norm"]),
    ("nn.GroupN", ["GroupNorm"]),
    ("nn.InstanceNorm", ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]),
    ("torch.instance_", ["instance_norm"]),
    ("torch.unsafe_", ["unsafe_chunk", "unsafe_split"]),
    ("nn.LSTM(3, 4, batch_", ["batch_first="]),
])
def test_completion_offers_them(names, text, expected):
    check_completion(names, text, expected)


def test_the_parameters_are_pytorchs_names_in_its_order():
    gradcli.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, bias=False)
    assert [n for n, _ in lstm.named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
        "weight_ih_l1", "weight_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse"]
    assert lstm.weight_ih_l1.shape == (16, 8)
    assert [len(w) for w in lstm.all_weights] == [2, 2, 2, 2]
    bound = 1 / 4 ** 0.5
    assert all(p.abs().max().item() <= bound for p in lstm.parameters())


def test_a_cell_by_hand_is_the_cell():
    """The LSTM recurrence as the tutorials write it gives nn.LSTM's outputs (to rounding)."""
    gradcli.manual_seed(1)
    lstm = nn.LSTM(2, 3).double()
    x = gradcli.randn(4, 1, 2, dtype=gradcli.float64)
    out, (h_n, c_n) = lstm(x)
    h = c = gradcli.zeros(1, 3, dtype=gradcli.float64)
    for t in range(4):
        gates = (x[t] @ lstm.weight_ih_l0.T + lstm.bias_ih_l0 + h @ lstm.weight_hh_l0.T
                 + lstm.bias_hh_l0)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        assert gradcli.allclose(out[t], h, rtol=1e-14, atol=1e-15)
    assert gradcli.allclose(h_n[0], h, rtol=1e-14, atol=1e-15)
    assert gradcli.allclose(c_n[0], c, rtol=1e-14, atol=1e-15)
