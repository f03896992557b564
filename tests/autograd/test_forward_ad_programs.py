"""Semantics of gradcli/autograd/forward_ad.py (dual levels, make_dual and unpack_dual), pinned by
small programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("forward_ad_basics", """
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
    print(d)
    y = d.sin() * d
    print(y)
    p, t = fwAD.unpack_dual(y)
    print(p, t)
    print(fwAD.unpack_dual(x))
    print((d * 3).sum())
    attempt(lambda: fwAD.make_dual(x, torch.tensor([1.0])))
    attempt(lambda: fwAD.make_dual(torch.tensor([1, 2]), torch.tensor([1.0, 1.0])))
    attempt(lambda: fwAD.make_dual(d, torch.tensor([1.0, 0.0])))
    attempt(lambda: fwAD.dual_level().__enter__())
print(y, fwAD.unpack_dual(y).tangent)
attempt(lambda: fwAD.make_dual(x, x))
""")


EXPECTED = {
    'forward_ad_basics': (
        'tensor([1., 2.], tangent=tensor([1., 0.]))\n'
        'tensor([0.8415, 1.8186], tangent=tensor([1.3818, 0.0000]))\n'
        'tensor([0.8415, 1.8186]) tensor([1.3818, 0.0000])\n'
        'UnpackedDualTensor(primal=tensor([1., 2.]), tangent=None)\n'
        'tensor(9., tangent=3.0)\n'
        'RuntimeError: Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size [2] while the given forward gradient is of size [1].\n'
        'ValueError: Expected primal to be floating point or complex, but got: torch.int64\n'
        'RuntimeError: Making a dual Tensor based on a Tensor that already has a forward gradient at the same level 0 is not supported.\n'
        'RuntimeError: Nested forward mode AD is not supported at the moment\n'
        'tensor([0.8415, 1.8186]) None\n'
        'RuntimeError: Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
