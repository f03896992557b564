"""Semantics of gradcli/engine/grad_mode.py (no_grad, enable_grad, set_grad_enabled,
inference_mode, as context managers and decorators), pinned by small programs and what real
PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("grad_modes", """
x = torch.tensor([2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(y.requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        z = x * 3
print(z.requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.inference_mode():
    print((x * 2).requires_grad)
with torch.inference_mode(False):
    print((x * 2).requires_grad)

@torch.no_grad()
def doubled(t):
    return t * 2

@torch.enable_grad()
def tripled(t):
    return t * 3

print(doubled(x).requires_grad)
with torch.no_grad():
    print(tripled(x).requires_grad)
print(torch.is_grad_enabled())
""")


EXPECTED = {
    'grad_modes': (
        'False False\n'
        'True True\n'
        'False\n'
        'True\n'
        'False\n'
        'False\n'
        'True\n'
        'False\n'
        'True\n'
        'True'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
