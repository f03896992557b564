"""Semantics of gradcli/autograd/gradcheck.py (gradcheck's report), pinned by small programs and
what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("gradcheck_report", """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x

x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
attempt(lambda: torch.autograd.gradcheck(Bad.apply, (x,)))
print(torch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
print(torch.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,)))
print(torch.autograd.gradgradcheck(lambda t: t.sin() * t, (x,)))
print(torch.autograd.gradcheck(lambda t: t.exp(), (x,), check_forward_ad=True))
attempt(lambda: torch.autograd.gradcheck(lambda t: t * 2, (x.detach(),)))
xf = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.autograd.gradcheck(lambda t: t * 2, (xf,), eps=1e-3, atol=1e-2))
""")


EXPECTED = {
    'gradcheck_report': (
        'GradcheckError: Jacobian mismatch for output 0 with respect to input 0,\n'
        'numerical:tensor([[2.0000, 0.0000],\n'
        '        [0.0000, 4.0000]], dtype=torch.float64)\n'
        'analytical:tensor([[3., 0.],\n'
        '        [0., 6.]], dtype=torch.float64)\n'
        '\n'
        'False\n'
        'True\n'
        'True\n'
        'True\n'
        'ValueError: gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.\n'
        'UserWarning: Input #0 requires gradient and is not a double precision floating point or complex. This check will likely fail if all the inputs are not of double precision floating point or complex. \n'
        'True'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
