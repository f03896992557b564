"""Issue 20's nn additions through the CLI: InstanceNorm3d, torch.instance_norm,
F.max_unpool3d/nn.MaxUnpool3d, interpolate's bicubic, nearest-exact and antialias modes, and
LPPool, run by a program as PyTorch snippets write them; their errors on one line, exit 2."""

import pytest


def test_a_program_uses_them(cli, tmp_path):
    program = tmp_path / "nn23.grad"
    program.write_text(
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
        "print(nn.LPPool2d(2, 2), nn.MaxUnpool3d(2), nn.InstanceNorm3d(2))\n")
    r = cli("run", str(program))
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "MaxUnpool3DBackward0 torch.Size([1, 2, 4, 4, 4]) UpsampleBicubic2DBackward0 "
        "UpsampleBilinear2DAaBackward0",
        "UpsampleNearestExact2DBackward0 PowBackward0 torch.Size([1, 2, 4, 4, 4]) "
        "torch.Size([1, 3, 5, 6])",
        "LPPool2d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False) "
        "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0)) "
        "InstanceNorm3d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)"]


@pytest.mark.parametrize("program, message", [
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
