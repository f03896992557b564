"""The tensor object's size (gradcli.engine.tensor._apart_from_arrays): tensors and NumPy's
array objects are not blocks of one size class of CPython's small-object allocator, which made
each full collection walk saved tensors 2.4x slower (bench/bench_layout.py)."""

import sys

import numpy as np
import pytest

import gradcli
from gradcli.engine.tensor import Tensor, _apart_from_arrays


def size_class(size):
    return -(-size // 16)  # (the allocator's steps: 16 bytes)


ARRAY_CLASS = size_class(np.ndarray.__basicsize__)


def instance_size(slots):
    return sys.getsizeof(type("probe", (), {"__slots__": slots})())


def test_tensors_and_arrays_are_blocks_of_different_sizes():
    for t in (gradcli.tensor(1.0), gradcli.tensor(1.0, requires_grad=True) * 2, Tensor([1.0])):
        assert size_class(sys.getsizeof(t)) != ARRAY_CLASS


@pytest.mark.parametrize("n", range(0, 9))
def test_slots_are_padded_only_out_of_the_arrays_size_class(n):
    slots = ("__dict__", "__weakref__") + tuple(f"s{i}" for i in range(n))
    padded = _apart_from_arrays(slots)
    assert padded[:len(slots)] == slots
    assert size_class(instance_size(padded)) != ARRAY_CLASS
    if size_class(instance_size(slots)) != ARRAY_CLASS:
        assert padded == slots  # nothing added where nothing collides
    else:
        assert 0 < len(padded) - len(slots) <= 2  # one step of 16 bytes is two slots at most


def test_the_padding_slots_are_never_set():
    t = gradcli.tensor([1.0, 2.0], requires_grad=True).sin()
    for name in Tensor.__slots__[7:]:
        assert name.startswith("_apart")
        with pytest.raises(AttributeError):
            getattr(t, name)
