"""Printing against PyTorch on random tensors: magnitudes from 1e-9 to 1e12, integer-valued
floats, inf and nan, zeros, integers and booleans, float32 and float64, with and without
requires_grad, small and wrapped shapes; format specs of tensors."""

import numpy as np
import pytest

import gradcli



def _array(rng):
    nd = int(rng.integers(0, 4))
    high = 40 if rng.random() < 0.05 else 7
    shape = tuple(int(s) for s in rng.integers(1, high, size=nd))
    kind = int(rng.integers(0, 8))
    a = rng.standard_normal(shape) * 10.0 ** int(rng.integers(-9, 12))
    if kind == 1:
        a = np.round(a)
    elif kind == 2:
        a = rng.integers(-1000, 1000, size=shape).astype(float)
    elif kind == 3:
        a.flat[0] = np.inf
    elif kind == 4:
        a.flat[-1] = np.nan
    elif kind == 5:
        a = np.zeros(shape)
    elif kind == 6:
        a = rng.integers(-50, 50, size=shape)
    elif kind == 7:
        a = rng.random(shape) > 0.5
    return np.asarray(a)


def _tensor(lib, a, dtype, requires_grad):
    return lib.tensor(a, dtype=getattr(lib, dtype) if dtype else None, requires_grad=requires_grad)


@pytest.mark.parametrize("seed", range(20))
def test_repr_matches_pytorch(seed, oracle):
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(40):
        a = _array(rng)
        variants = [(None, False)]
        if a.dtype.kind == "f":
            variants = [("float32", False), ("float32", True), ("float64", False)]
        cases += [(a, dtype, rg) for dtype, rg in variants]

    def texts(lib):
        return [(repr(t), str(t)) for t in (_tensor(lib, *case) for case in cases)]
    for ours, theirs in zip(texts(gradcli), oracle(texts), strict=True):
        assert ours == theirs


@pytest.mark.parametrize("spec", ["", ".3f", ".2e", "g", "10.4f", ">12"])
@pytest.mark.parametrize("shape", [(), (1,), (2, 2)])
def test_format_spec_matches_pytorch(spec, shape, oracle):
    def formatted(lib):
        try:
            return format(_tensor(lib, np.full(shape, 1.23456789), "float32", False), spec)
        except TypeError as e:
            return {"TypeError": str(e)}
    assert formatted(gradcli) == oracle(formatted)
