"""Semantics of gradcli/engine/dtypes.py (the default dtype and type promotion), pinned by small
programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("default_dtype", """
print(torch.get_default_dtype(), torch.tensor([1.0, 2.0]).dtype, torch.tensor([1, 2]).dtype)
print(torch.tensor([True]).dtype, torch.ones(2).dtype, torch.tensor(np.array([1.0])).dtype)
torch.set_default_dtype(torch.float64)
try:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    print(repr(x), torch.get_default_dtype())
    print(repr(x * 2))
    print(repr(torch.tensor([1.0], dtype=torch.float32)))
finally:
    torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype())
""")

program("type_promotion", """
i = torch.tensor([1, 2])
f = torch.tensor([1.0, 2.0])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
print((i + 1).dtype, (i + 1.5).dtype, (i / 2).dtype, (i * f).dtype, (f * d).dtype)
print((f + torch.tensor(3.0, dtype=torch.float64)).dtype, (i + torch.tensor(3.0)).dtype)
print((torch.tensor([True, False]) + 1).dtype, (f + np.float64(2.0)).dtype)
print(repr(i + 1.5), repr(f * d))
print((torch.tensor(2) * 2.5).dtype, (2.5 * i).dtype, (f + True).dtype)
""")


EXPECTED = {
    'default_dtype': (
        'torch.float32 torch.float32 torch.int64\n'
        'torch.bool torch.float32 torch.float64\n'
        'tensor([1., 2.], requires_grad=True) torch.float64\n'
        'tensor([2., 4.], grad_fn=<MulBackward0>)\n'
        'tensor([1.], dtype=torch.float32)\n'
        'torch.float32'
    ),
    'type_promotion': (
        'torch.int64 torch.float32 torch.float32 torch.float32 torch.float64\n'
        'torch.float32 torch.float32\n'
        'torch.int64 torch.float32\n'
        'tensor([2.5000, 3.5000]) tensor([1., 4.], dtype=torch.float64)\n'
        'torch.float32 torch.float32 torch.float32'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
