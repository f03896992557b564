"""Recurrent layers and prelu through the CLI: gradients, and PyTorch's errors on one line with
exit code 2."""

import pytest


def test_eval_prelu_gradients(cli):
    r = cli("eval", "import torch\ny = torch.nn.functional.prelu(x, w).sum()",
            "--at", "x=[[-2., 3.], [1., -4.]]", "--at", "w=[0.5, 0.25]", "--json")
    assert r.code == 0
    assert r.json()["gradients"]["y"] == {"x": [[0.5, 1.0], [1.0, 0.25]], "w": [-2.0, -4.0]}


def test_run_an_lstm(cli, tmp_path):
    program = tmp_path / "lstm.grad"
    program.write_text("import torch\ntorch.manual_seed(0)\nlstm = torch.nn.LSTM(2, 3)\n"
                       "out, (h, c) = lstm(torch.ones(4, 1, 2))\n"
                       "print(out.shape, h.shape, out.grad_fn.name())\n")
    r = cli("run", str(program))
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "torch.Size([4, 1, 3]) torch.Size([1, 1, 3]) StackBackward0"


@pytest.mark.parametrize("program, message", [
    ("torch.nn.LSTM(4, 3)(torch.ones(5, 2, 3))",
     "RuntimeError: input.size(-1) must be equal to input_size. Expected 4, got 3"),
    ("torch.nn.GRU(4, 3)(torch.ones(5, 2, 4), torch.ones(2, 2, 3))",
     "RuntimeError: Expected hidden size (1, 2, 3), got [2, 2, 3]"),
    ("torch.nn.RNN(4, 3)(torch.ones(5))",
     "ValueError: RNN: Expected input to be 2D or 3D, got 1D tensor instead"),
    ("torch.nn.LSTMCell(4, 3)(torch.ones(2, 4), (torch.ones(2, 3), torch.ones(1, 3)))",
     "RuntimeError: Input batch size 2 doesn't match hidden1 batch size 1"),
    ("torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(2))",
     "RuntimeError: Mismatch of parameter numbers and input channel size. Found parameter "
     "numbers = 2 and channel size = 3."),
    ("torch.nn.BatchNorm2d(3)(torch.ones(2, 3))",
     "ValueError: expected 4D input (got 2D input)"),
])
def test_errors_are_one_line_and_exit_2(cli, program, message):
    r = cli("eval", f"import torch\ny = {program}")
    assert r.code == 2
    assert r.stderr.strip() == message


def test_run_an_lstm_over_a_packed_batch(cli, tmp_path):
    program = tmp_path / "packed.grad"
    program.write_text(
        "import torch\nfrom torch.nn.utils.rnn import pack_sequence, pad_packed_sequence\n"
        "torch.manual_seed(0)\nlstm = torch.nn.LSTM(2, 3)\n"
        "packed = pack_sequence([torch.ones(2, 2), torch.ones(4, 2)], enforce_sorted=False)\n"
        "out, (h, c) = lstm(packed)\npadded, lengths = pad_packed_sequence(out)\n"
        "print(type(out).__name__, out.data.grad_fn.name(), padded.shape, lengths.tolist(),\n"
        "      h.grad_fn.name(), torch.equal(h[0, 0], padded[1, 0]))\n")
    r = cli("run", str(program))
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == ("PackedSequence CatBackward0 torch.Size([4, 2, 3]) [2, 4] "
                                "IndexSelectBackward0 True")


@pytest.mark.parametrize("program, message", [
    ("torch.nn.utils.rnn.pack_padded_sequence(torch.ones(4, 3, 2), [2, 4, 1])",
     "RuntimeError: `lengths` array must be sorted in decreasing order when `enforce_sorted` is "
     "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
     "sidestep this requirement if you do not need ONNX exportability."),
    ("torch.nn.utils.rnn.pad_sequence([])",
     "RuntimeError: received an empty list of sequences"),
    ("torch.nn.utils.rnn.pad_packed_sequence(torch.nn.utils.rnn.pack_sequence([torch.ones(3)]),"
     " total_length=2)",
     "ValueError: Expected total_length to be at least the length of the longest sequence in "
     "input, but got total_length=2 and max sequence length being 3"),
])
def test_packed_sequence_errors_are_one_line_and_exit_2(cli, program, message):
    r = cli("eval", f"import torch\ny = {program}")
    assert r.code == 2
    assert r.stderr.strip() == message
