"""The op-table tests: every test starts from PyTorch's defaults (float32, grad mode on, no
forward-AD level open), whatever the test before it left behind."""

import pytest

from gradcli.engine import dtypes
from gradcli.engine.grad_mode import GradMode
from gradcli.engine.tangents import ForwardAD


@pytest.fixture(autouse=True)
def _fresh_engine_state():
    yield
    dtypes.set_default_dtype(dtypes.float32)
    GradMode.enabled = True
    ForwardAD.level = ForwardAD.duals = None
