"""Convolutions and pooling through the CLI: values and gradients, PyTorch's errors on one
line with exit code 2."""

import pytest


def test_eval_conv2d_gradients(cli):
    r = cli("eval", "import torch\ny = torch.nn.functional.conv2d(x, w).sum()",
            "--at", "x=[[[[1.,2,3],[3,4,5]]]]", "--at", "w=[[[[1.,-1]]]]", "--json")
    assert r.code == 0
    assert r.json()["gradients"]["y"] == {"x": [[[[1.0, 0.0, -1.0], [1.0, 0.0, -1.0]]]],
                                          "w": [[[[10.0, 14.0]]]]}


@pytest.mark.parametrize("program, message", [
    ("torch.nn.functional.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 2, 2, 2))",
     "RuntimeError: Given groups=1, weight of size [4, 2, 2, 2], expected input[2, 4, 5, 6] "
     "to have 2 channels, but got 4 channels instead"),
    ("torch.nn.functional.conv1d(torch.ones(5), torch.ones(1, 1, 2))",
     "RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input "
     "of size: [5]"),
    ("torch.nn.functional.max_pool2d(torch.ones(1, 4, 5), 2, padding=2)",
     "RuntimeError: pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    ("torch.nn.Conv2d(3, 4, 2, groups=2)", "ValueError: in_channels must be divisible by groups"),
])
def test_errors_are_one_line_and_exit_2(cli, program, message):
    r = cli("eval", f"import torch\ny = {program}")
    assert r.code == 2
    assert r.stderr.strip() == message
