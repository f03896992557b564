"""softmax and log_softmax, forward and backward, bit for bit with PyTorch's CPU kernels
(gradcli.ops.vectorized): the answers PyTorch 2.13 gave on an AVX-512 CPU for fixed cases
(golden, checked with or without torch, gradcli run with AVX-512's vectors), and random cases
against PyTorch itself (with torch installed, gradcli with this CPU's vectors)."""

import hashlib
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli
from gradcli.ops import vectorized
from golden import torch_module

CASES = [  # (shape, dim, dtype, scale, threads)
    ((7,), 0, "float32", 1, 1), ((7,), 0, "float64", 10, 1), ((16,), 0, "float32", 3, 1),
    ((100,), 0, "float32", 1, 1), ((100,), 0, "float64", 1, 2), ((3, 20), 1, "float32", 1, 1),
    ((3, 20), 1, "float32", 1, 2), ((3, 20), 0, "float32", 10, 2), ((5, 33), -1, "float64", 1, 3),
    ((4, 3, 40), 1, "float32", 10, 2), ((2, 9, 17), 0, "float64", 1, 2),
    ((2, 5, 70), 1, "float32", 1, 3), ((6, 1), 0, "float32", 1, 2), ((1, 6), 0, "float64", 1, 2),
    ((3, 4, 5, 6), 2, "float32", 10, 2), ((64, 3), 0, "float32", 1, 1),
    ((2, 40, 3), 2, "float64", 1, 2), ((17, 64), 0, "float32", 1, 4), ((), 0, "float32", 1, 1),
    ((3, 300, 50), 1, "float32", 1, 2), ((2, 3, 2000), 1, "float64", 1, 2),
    ((4, 1000), 1, "float32", 30, 2), ((4, 1000), 1, "float32", 30, 1),
    ((3, 129), -1, "float64", 5, 1), ((2, 3), 0, "float64", 100, 1),
]


@pytest.fixture(autouse=True)
def _emulated_at_every_size(monkeypatch):
    """The kernels are checked past their budget too (the thread splits need long rows)."""
    monkeypatch.setattr(vectorized, "EXACT_ELEMENTS", 10 ** 7)


def test_past_the_budget_numpy_stands_in(monkeypatch):
    """Past EXACT_ELEMENTS the emulation (5 to 180 times NumPy's time) gives way to NumPy's
    expression, forward and backward."""
    monkeypatch.setattr(vectorized, "EXACT_ELEMENTS", 8192)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 1000))
    t = gradcli.tensor(x, requires_grad=True)
    y = gradcli.log_softmax(t, 1)
    shifted = x - x.max(1, keepdims=True)
    expected = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    assert np.array_equal(y.detach().numpy(), expected)
    w = rng.standard_normal((9, 1000))
    g, = gradcli.autograd.grad(y, t, gradcli.tensor(w))
    assert np.array_equal(g.numpy(), w - np.exp(expected) * w.sum(1, keepdims=True))
    assert vectorized.along(1, None, None, x) is None
    assert vectorized.along(1, vectorized.softmax_lastdim, None, x[:8]) is not None


def _id(case):
    shape, dim, dtype, scale, threads = case
    return f"{'x'.join(map(str, shape)) or 'scalar'}-dim{dim}-{dtype}-s{scale}-t{threads}"


def run(lib, case, name):
    """The op's output and the gradient of sum(y * w), exactly (float64 values)."""
    shape, dim, dtype, scale, threads = case
    rng = np.random.default_rng(zlib.crc32(repr((shape, dim, dtype, scale)).encode()))
    x = np.asarray(rng.standard_normal(shape) * scale, dtype)
    w = np.asarray(rng.standard_normal(shape), dtype)
    lib.set_num_threads(threads)
    t = lib.tensor(x.tolist(), dtype=getattr(lib, dtype), requires_grad=True)
    y = getattr(lib, name)(t, dim)
    g, = lib.autograd.grad(y, t, lib.tensor(w.tolist(), dtype=getattr(lib, dtype)))
    return [np.asarray(y.detach().tolist(), np.float64).ravel().tolist(),
            np.asarray(g.tolist(), np.float64).ravel().tolist()]


@pytest.fixture
def restore_threads():
    threads = gradcli.get_num_threads()
    yield
    gradcli.set_num_threads(threads)


def _with_torch_threads(compute):
    def run_with(torch):
        threads = torch.get_num_threads()
        try:
            return compute(torch)
        finally:
            torch.set_num_threads(threads)
    return run_with


def digest(values):
    """The exact values as a SHA-256 and the first three (the golden file stays small)."""
    return [[hashlib.sha256(np.asarray(v, np.float64).tobytes()).hexdigest(), v[:3]]
            for v in values]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_softmax_matches_pytorch_bit_for_bit(case, name, oracle, monkeypatch, restore_threads):
    if torch_module() is not None and vectorized.VECTOR_BYTES != 64:
        pytest.skip("the answers are AVX-512's and this CPU's PyTorch computes with other "
                    "vectors (the random test below checks this CPU)")
    expected = oracle(_with_torch_threads(lambda torch: digest(run(torch, case, name))))
    monkeypatch.setattr(vectorized, "VECTOR_BYTES", 64)
    assert digest(run(gradcli, case, name)) == expected


@st.composite
def _cases(draw):
    ndim = draw(st.integers(0, 4))
    limit = {0: 1, 1: 300, 2: 80, 3: 24, 4: 9}[ndim]
    shape = tuple(draw(st.integers(1, limit)) for _ in range(ndim))
    dim = draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    return (shape, dim, draw(st.sampled_from(["float32", "float64"])),
            draw(st.sampled_from([0.1, 1, 10, 60])), draw(st.integers(1, 4)))


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=_cases(), name=st.sampled_from(["softmax", "log_softmax"]))
def test_random_softmax_matches_pytorch_bit_for_bit(case, name, restore_threads):
    torch = pytest.importorskip("torch")
    assert run(gradcli, case, name) == _with_torch_threads(lambda t: run(t, case, name))(torch)


def test_sleef_exp_and_log_keep_their_special_values():
    for dtype in (np.float32, np.float64):
        x = np.array([0.0, -0.0, 1.0, -200.0, -2000.0, 800.0, np.inf, -np.inf, np.nan], dtype)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(vectorized.exp(x)[[0, 1, 2, 6, 7]],
                                          np.array([1, 1, np.e, np.inf, 0], dtype))
            assert np.isnan(vectorized.exp(x)[-1])
            assert vectorized.exp(x)[4] == 0 and vectorized.exp(x)[5] == np.inf
            y = vectorized.log(np.array([1.0, np.e, 0.0, -1.0, np.inf, np.nan], dtype))
        assert y[0] == 0 and abs(y[1] - 1) < 1e-6 and y[2] == -np.inf
        assert np.isnan(y[3]) and y[4] == np.inf and np.isnan(y[5])
