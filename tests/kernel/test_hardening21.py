"""Issue #17's leftovers (hardening21), closed: regression tests of programs run in-process
(the language wall alone), against PyTorch's answers (golden/test_hardening21.json).

Messages that name an element type print PyTorch's C++ names, from one table."""

import io
import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("fresh_engine")


def _described(value):
    """Plain data for a result: its type's name, and a tensor's or array's dtype, shape,
    requires_grad and values."""
    if isinstance(value, tuple):
        return [_described(v) for v in value]
    kind = type(value).__name__
    if kind in ("Tensor", "ndarray"):
        return [kind, str(value.dtype), list(value.shape), getattr(value, "requires_grad", None),
                value.tolist()]
    return [kind, value if isinstance(value, (bool, int, float)) else repr(value)]


def _torch_answer(torch, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's DeprecationWarning of torch's __array_wrap__)
        namespace = {"torch": torch, "np": np}
        try:
            exec(source, namespace)
        except Exception as e:
            return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return _described(namespace["r"])


def _gradcli_answer(source):
    from gradcli.lang.errors import ProgramError
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    try:
        session.run("import torch\nimport numpy as np\n" + source + "\n", timeout=10)
    except ProgramError as e:
        return e.format()[0]
    return _described(session.namespace["r"])


# ------------------------------------------------------------------ the C++ dtype names

@pytest.mark.parametrize("source", [
    "torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.cfloat), 0.5)",
    "torch.ones(2).masked_fill(torch.ones(2, dtype=torch.cdouble), 1.)",
    "torch.ones(2).masked_fill(torch.ones(2, dtype=torch.short), 1.)",
    "torch.mm(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.half))",
    "torch.mm(torch.ones(2, 2, dtype=torch.cfloat), torch.ones(2, 2, dtype=torch.double))",
    "torch.mm(torch.ones(2, 2, dtype=torch.uint8), torch.ones(2, 2, dtype=torch.long))",
    "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.cfloat)",
    "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.bool)",
])
def test_messages_name_dtypes_as_cpp_does(oracle, source):
    """One table of PyTorch's C++ type names (`c10::complex<float>`, `bool`, `long int`) for
    every message that prints one."""
    source = "r = None\n" + source
    assert _gradcli_answer(source) == oracle(lambda torch: _torch_answer(torch, source))
