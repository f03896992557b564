"""Make `import gradcli` work from a checkout without installing it or setting PYTHONPATH."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _warn_once_as_a_fresh_process():
    """PyTorch gives some warnings once per process (Tensor.T off 2-D): each test starts as a
    fresh process would, whatever ran before it in this worker."""
    from gradcli.ops import shape
    shape.WARNED_T.clear()
    yield
