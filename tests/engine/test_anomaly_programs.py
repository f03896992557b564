"""Semantics of gradcli/engine/anomaly.py (anomaly detection of nan gradients), pinned by small
programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("anomaly_nan", """
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    y = (x / x).sum()
    attempt(lambda: y.backward())
y = (x / x).sum()
y.backward()
print(x.grad)
""")


EXPECTED = {
    'anomaly_nan': (
        'UserWarning: Error detected in DivBackward0. Traceback of forward call that caused the error:\n'
        "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.\n"
        'tensor([nan, 0.])'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
