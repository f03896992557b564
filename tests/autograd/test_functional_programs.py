"""Semantics of gradcli/autograd/functional.py (autograd.functional.jacobian), pinned by small
programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("functional_jacobian", """
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
x = torch.tensor([1.0, 2.0])
f = lambda t: torch.stack([t[0] * t[1], t[0] ** 2, torch.sin(t[1])])
print(jacobian(f, x))
print(jacobian(f, x, vectorize=True, strategy="forward-mode"))
a = torch.tensor([1.0, 2.0]); b = torch.tensor([3.0, 4.0])
print(jacobian(lambda a, b: (a * b, a.exp().sum()), (a, b)))
print(jacobian(lambda a: a * 2, torch.tensor(3.0)))
h = lambda t: (t ** 3).sum() + t[0] * t[1]
print(hessian(h, a))
print(vjp(f, x, torch.tensor([1.0, 0.5, 2.0])))
print(jvp(lambda t: t ** 2, x, torch.tensor([1.0, 1.0])))
print(hvp(h, a, torch.tensor([1.0, 0.0])))
print(vhp(h, a, torch.tensor([1.0, 0.0])))
attempt(lambda: vjp(f, x))
""")


EXPECTED = {
    'functional_jacobian': (
        'tensor([[ 2.0000,  1.0000],\n'
        '        [ 2.0000,  0.0000],\n'
        '        [ 0.0000, -0.4161]])\n'
        'tensor([[ 2.0000,  1.0000],\n'
        '        [ 2.0000,  0.0000],\n'
        '        [-0.0000, -0.4161]])\n'
        '((tensor([[3., 0.],\n'
        '        [0., 4.]]), tensor([[1., 0.],\n'
        '        [0., 2.]])), (tensor([2.7183, 7.3891]), tensor([0., 0.])))\n'
        'tensor(2.)\n'
        'tensor([[ 6.,  1.],\n'
        '        [ 1., 12.]])\n'
        '(tensor([2.0000, 1.0000, 0.9093]), tensor([3.0000, 0.1677]))\n'
        '(tensor([1., 4.]), tensor([2., 4.]))\n'
        '(tensor(11.), tensor([6., 1.]))\n'
        '(tensor(11.), tensor([6., 1.]))\n'
        'RuntimeError: The vector v can only be None if the user-provided function returns a single Tensor with a single element.'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
