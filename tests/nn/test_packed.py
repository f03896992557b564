"""torch.nn.utils.rnn beyond the oracle (tests/nn/test_packed_oracle.py): a program imports it
as PyTorch's snippets do, completion offers its names, the op table lists
_pack_padded_sequence (gradchecked, first and second order, in tests/ops/test_op_gradcheck.py
and test_jvp.py with every op), and the element limit holds for a packed recurrence."""

import io

import pytest

import gradcli
from gradcli.analysis.optable import op_rows
from gradcli.engine.tensor import ElementLimit
from gradcli.lang.session import Session
from gradcli.ops.registry import OPS
from test_conv import names  # noqa: F401 - the session's namespace (a fixture)
from test_conv import test_completion_offers_them as check_completion

U = gradcli.nn.utils.rnn


def test_a_program_imports_the_utilities_as_pytorchs_snippets_do():
    out = io.StringIO()
    session = Session(out=out)
    session.run(
        "import torch\n"
        "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence\n"
        "import torch.nn.utils.rnn as rnn_utils\n"
        "from torch import nn\n"
        "x = torch.ones(3, 2, 2, requires_grad=True)\n"
        "packed = pack_padded_sequence(x, torch.tensor([1, 3]), enforce_sorted=False)\n"
        "data, batch_sizes, sorted_indices, unsorted_indices = packed\n"
        "print(type(packed).__name__, batch_sizes.tolist(), sorted_indices.tolist(),\n"
        "      isinstance(packed, rnn_utils.PackedSequence))\n"
        "out, h = nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)\n"
        "out.sum().backward()\n"
        "print(x.grad[:, :, 0].tolist(), h.tolist(), out.grad_fn.name())\n")
    assert out.getvalue().splitlines() == [
        "PackedSequence [2, 1, 1] [1, 0] True",
        "[[1.0, 1.0], [0.0, 1.0], [0.0, 1.0]] [1, 3] IndexSelectBackward0"]


def test_the_table_holds_pack_padded_sequence():
    """(a private op, as PyTorch's _pack_padded_sequence: the table's gradchecks take it, and
    `gradcli ops` lists torch's public names only)"""
    op = OPS["_pack_padded_sequence"]
    assert op.grad_fn_name == "PackPaddedSequenceBackward0" and not op.public
    assert op.formula == ("input: pack_padded_sequence_backward(grad, input_shape, lengths, "
                          "batch_first)")  # (PyTorch's helper's name, as derivatives.yaml's)
    assert "_pack_padded_sequence" not in {r["name"] for r in op_rows()}


def test_the_node_saves_pytorchs_names():
    x = gradcli.ones(4, 3, 2, requires_grad=True)
    node = U.pack_padded_sequence(x, [4, 2, 1]).data.grad_fn
    assert node._saved_batch_first is False
    assert node._saved_input_sym_sizes == (4, 3, 2)
    assert node._saved_result1.tolist() == [3, 2, 1, 1]


@pytest.mark.parametrize("text, expected", [
    ("nn.utils.rnn.pack_", ["pack_padded_sequence", "pack_sequence"]),
    ("nn.utils.rnn.pad_", ["pad_packed_sequence", "pad_sequence"]),
    ("torch.nn.utils.rnn.Pack", ["PackedSequence"]),
    ("nn.ut", ["utils"]),
])
def test_completion_offers_them(names, text, expected):
    check_completion(names, text, expected)


def test_a_packed_recurrence_is_held_to_the_element_limit_before_it_runs():
    gradcli.manual_seed(0)
    lstm = gradcli.nn.LSTM(1, 8)
    packed = U.pack_padded_sequence(gradcli.ones(100, 2, 1), [100, 50])
    saved = ElementLimit.limit
    gradcli.set_element_limit(2000)
    try:
        with pytest.raises(RuntimeError, match="tensor of 4800 elements exceeds the limit"):
            lstm(packed)
    finally:
        gradcli.set_element_limit(saved)


def test_unpad_sequence_transposes_its_input_in_place_as_pytorchs_does():
    padded = gradcli.arange(6.).reshape(3, 2)
    parts = U.unpad_sequence(padded, gradcli.tensor([3, 1]))
    assert [p.tolist() for p in parts] == [[0.0, 2.0, 4.0], [1.0]]
    assert padded.shape == (2, 3)
