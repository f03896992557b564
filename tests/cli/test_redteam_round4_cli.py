"""Red team, round 4: programs (both walls up) whose result differs from PyTorch's, as
regression tests that state PyTorch's behaviour (they fail until fixed)."""

import pytest

OVERLAP = ("RuntimeError: unsupported operation: some elements of the input tensor and the "
           "written-to tensor refer to a single memory location. Please clone() the tensor "
           "before performing the operation.")


@pytest.mark.parametrize("statement", [
    "a[1:] = a[:-1]",                        # the classic shift: copy_ through __setitem__
    "a[1:].copy_(a[:-1])",
    "a[1:].add_(a[:-1])",
    "a[:-1].mul_(a[1:])",
    "a.view(2, 2).t().add_(a.view(2, 2))",   # the same memory, other strides
])
def test_an_in_place_op_whose_input_partly_overlaps_its_output_is_refused(cli, statement):
    """PyTorch's TensorIterator refuses an output that partly overlaps an input
    (assert_no_partial_overlap): the result would depend on the order elements are written.
    gradcli computes from a snapshot of the input instead and prints a tensor PyTorch never
    gives (`a[1:] = a[:-1]` -> [0, 0, 1, 2]).  Its internal-overlap check exists (an expanded
    tensor written in place is refused); the partial one is missing."""
    r = cli("run", "-", input=f"import torch\na = torch.arange(4.)\n{statement}\nprint(a)\n")
    assert r.code == 2, r.stdout
    assert r.stdout == ""
    assert OVERLAP in r.stderr.splitlines()[0], r.stderr


def test_the_same_view_in_and_out_is_allowed(cli):
    """(What stays allowed: full overlap, the same elements with the same strides.)"""
    r = cli("run", "-", input="import torch\na = torch.arange(4.)\na[:2].add_(a[:2])\n"
                              "a.mul_(a)\nprint(a)\n")
    assert (r.code, r.stdout) == (0, "tensor([0., 4., 4., 9.])\n"), r.stderr
