"""Recurrent layers (over packed sequences too) and prelu through the CLI: gradients, and
PyTorch's errors on one line with exit code 2 (of the other issue 20 nn additions too)."""

import pytest


def test_eval_prelu_gradients(cli):
    r = cli("eval", "import torch\ny = torch.nn.functional.prelu(x, w).sum()",
            "--at", "x=[[-2., 3.], [1., -4.]]", "--at", "w=[0.5, 0.25]", "--json")
    assert r.code == 0
    assert r.json()["gradients"]["y"] == {"x": [[0.5, 1.0], [1.0, 0.25]], "w": [-2.0, -4.0]}


def run_program(cli, tmp_path, text):
    """`gradcli run` of a program of text: its output's lines (it must succeed)."""
    program = tmp_path / "program.grad"
    program.write_text(text)
    r = cli("run", str(program))
    assert r.code == 0, r.stderr
    return r.stdout.splitlines()


def test_run_an_lstm(cli, tmp_path):
    assert run_program(cli, tmp_path, "import torch\ntorch.manual_seed(0)\n"
                       "lstm = torch.nn.LSTM(2, 3)\nout, (h, c) = lstm(torch.ones(4, 1, 2))\n"
                       "print(out.shape, h.shape, out.grad_fn.name())\n") == [
        "torch.Size([4, 1, 3]) torch.Size([1, 1, 3]) StackBackward0"]


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
     "ValueError: expected 4D input (got 2D input)"),    ("torch.nn.utils.rnn.pack_padded_sequence(torch.ones(4, 3, 2), [2, 4, 1])",
     "RuntimeError: `lengths` array must be sorted in decreasing order when `enforce_sorted` is "
     "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
     "sidestep this requirement if you do not need ONNX exportability."),
    ("torch.nn.utils.rnn.pad_sequence([])",
     "RuntimeError: received an empty list of sequences"),
    ("torch.nn.utils.rnn.pad_packed_sequence(torch.nn.utils.rnn.pack_sequence([torch.ones(3)]),"
     " total_length=2)",
     "ValueError: Expected total_length to be at least the length of the longest sequence in "
     "input, but got total_length=2 and max sequence length being 3"),
    ("torch.nn.InstanceNorm3d(3)(torch.ones(2, 3, 1, 1, 1))",
     "ValueError: Expected more than 1 spatial element when training, got input size "
     "torch.Size([2, 3, 1, 1, 1])"),
    ("torch.instance_norm(torch.ones(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False)",
     "RuntimeError: Expected running_mean and running_var to be defined when use_input_stats "
     "is false"),
    ("torch.nn.functional.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[1, 16]]]]), 2)",
     "RuntimeError: Found an invalid max index: 16 (output volumes are of size 2x2x4)"),
    ("torch.nn.functional.interpolate(torch.ones(1, 1, 3), size=5, mode='bicubic')",
     "NotImplementedError: Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for "
     "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
     "nearest-exact (got bicubic)"),
    ("torch.nn.functional.lp_pool2d(torch.ones(1, 4, 4), 2, 5)",
     "RuntimeError: Given input size: (1x4x4). Calculated output size: (1x0x0). Output size is "
     "too small"),
])
def test_errors_are_one_line_and_exit_2(cli, program, message):
    r = cli("eval", f"import torch\ny = {program}")
    assert r.code == 2
    assert r.stderr.strip() == message


def test_run_an_lstm_over_a_packed_batch(cli, tmp_path):
    assert run_program(
        cli, tmp_path,
        "import torch\nfrom torch.nn.utils.rnn import pack_sequence, pad_packed_sequence\n"
        "torch.manual_seed(0)\nlstm = torch.nn.LSTM(2, 3)\n"
        "packed = pack_sequence([torch.ones(2, 2), torch.ones(4, 2)], enforce_sorted=False)\n"
        "out, (h, c) = lstm(packed)\npadded, lengths = pad_packed_sequence(out)\n"
        "print(type(out).__name__, out.data.grad_fn.name(), padded.shape, lengths.tolist(),\n"
        "      h.grad_fn.name(), torch.equal(h[0, 0], padded[1, 0]))\n") == [
        "PackedSequence CatBackward0 torch.Size([4, 2, 3]) [2, 4] IndexSelectBackward0 True"]


def test_a_program_uses_the_other_issue_20_additions(cli, tmp_path):
    """InstanceNorm3d, MaxUnpool3d, interpolate's bicubic, nearest-exact and antialias modes
    and LPPool, as PyTorch snippets write them."""
    assert run_program(
        cli, tmp_path,
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
        "torch.manual_seed(0)\n"
        "x = torch.randn(1, 2, 4, 4, 4, requires_grad=True)\n"
        "y, i = F.max_pool3d(x, 2, return_indices=True)\n"
        "u = nn.MaxUnpool3d(2)(y, i)\n"
        "n = nn.InstanceNorm3d(2, affine=True)(u)\n"
        "img = torch.randn(1, 3, 5, 6, requires_grad=True)\n"
        "big = F.interpolate(img, scale_factor=2, mode='bicubic', align_corners=False)\n"
        "small = F.interpolate(img, size=(2, 3), mode='bilinear', antialias=True)\n"
        "exact = F.interpolate(img, size=(7, 7), mode='nearest-exact')\n"
        "p = nn.LPPool2d(2, 2)(img.abs())\n"
        "(n.sum() + big.sum() + small.sum() + exact.sum() + p.sum()).backward()\n"
        "print(u.grad_fn.name(), n.shape, big.grad_fn.name(), small.grad_fn.name())\n"
        "print(exact.grad_fn.name(), p.grad_fn.name(), x.grad.shape, img.grad.shape)\n"
        "print(nn.LPPool2d(2, 2), nn.MaxUnpool3d(2), nn.InstanceNorm3d(2))\n") == [
        "MaxUnpool3DBackward0 torch.Size([1, 2, 4, 4, 4]) UpsampleBicubic2DBackward0 "
        "UpsampleBilinear2DAaBackward0",
        "UpsampleNearestExact2DBackward0 PowBackward0 torch.Size([1, 2, 4, 4, 4]) "
        "torch.Size([1, 3, 5, 6])",
        "LPPool2d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False) "
        "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0)) "
        "InstanceNorm3d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)"]

