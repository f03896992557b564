import pytest

from gradcli.engine import tensor as engine_tensor
from gradcli.lang import limits


@pytest.fixture
def small_limits(monkeypatch):
    """An element limit of 2,000 and an item limit of 1,000 (the red-team rounds' inputs are
    50 elements each: every result over the limits is one a program could make 10 ** 6 times
    larger)."""
    monkeypatch.setattr(engine_tensor.ElementLimit, "limit", 2000)
    monkeypatch.setattr(limits, "MAX_ITEMS", 1000)
