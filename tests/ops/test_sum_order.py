"""Float sums (and means, and vector norms) add in PyTorch's order, bit for bit: the committed answers PyTorch 2.13 gave
(sum_order_golden.json, checked with or without torch), and random sums of many lengths, shapes,
layouts and thread counts against PyTorch itself (with torch installed)."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gradcli
from gradcli.ops import summation
from sum_order_cases import GOLDEN, _cases, compute, inputs, layout, torch_answer

GOLDEN_CASES = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


@pytest.fixture(autouse=True)
def _threads():
    threads = gradcli.get_num_threads()
    yield
    gradcli.set_num_threads(threads)


def _id(case):
    dim = "all" if case["dim"] is None else ",".join(map(str, case["dim"]))
    return (f"{case['op']}-{case['dtype']}-{'x'.join(map(str, case['shape']))}-{case['layout']}"
            f"-dim{dim}-t{case['threads']}")


def test_the_golden_file_covers_the_cases():
    assert [{k: c[k] for k in case} for c, case in zip(GOLDEN_CASES, _cases())] == _cases()


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[_id(c) for c in GOLDEN_CASES])
def test_gradcli_adds_as_pytorch_did(case):
    got = compute(gradcli, case)
    assert got == {k: case[k] for k in ("out_shape", "sha256", "first")}, \
        "regenerate the golden file with: python tests/ops/sum_order_cases.py"


def test_set_num_threads_errors():
    for value, message in [(0, "set_num_threads expects a positive integer"),
                           (-3, "set_num_threads expects a positive integer"),
                           (2.5, "set_num_threads expects an int, but got float"),
                           (summation.MAX_THREADS + 1, "at most 4096 threads")]:
        with pytest.raises(RuntimeError, match=message):
            gradcli.set_num_threads(value)
    gradcli.set_num_threads(3)
    assert gradcli.get_num_threads() == 3


def test_only_float32_and_float64_are_emulated():
    a = np.arange(10, dtype=np.int64)
    assert summation.torch_sum(a, None) is None
    assert summation.torch_sum(np.zeros((0, 3), np.float32), None) is None
    assert gradcli.tensor([1, 2, 3]).sum().item() == 6


# ------------------------------------------------------------------ against PyTorch itself

@st.composite
def _sums(draw):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    ndim = draw(st.integers(1, 4))
    limit = {1: 70000, 2: 400, 3: 60, 4: 20}[ndim]
    shape = [draw(st.integers(1, limit)) for _ in range(ndim)]
    how = draw(st.sampled_from(["contiguous", "transposed", "strided", "expanded"]))
    dims = draw(st.one_of(st.none(), st.lists(st.integers(0, ndim - 1), min_size=1,
                                              max_size=ndim, unique=True)))
    return dict(op=draw(st.sampled_from(["sum", "mean"])), dtype=dtype, shape=shape,
                layout=how, dim=None if dims is None else sorted(dims),
                keepdim=draw(st.booleans()), threads=draw(st.integers(1, 4)),
                seed=draw(st.integers(0, 10 ** 6)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sums())
def test_random_sums_match_pytorch_bit_for_bit(case):
    assert compute(gradcli, case) == torch_answer(compute, case)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300000), st.sampled_from(["float32", "float64"]), st.integers(1, 4))
def test_long_sums_match_pytorch_bit_for_bit(n, dtype, threads):
    case = dict(op="sum", dtype=dtype, shape=[n], layout="contiguous", dim=None,
                keepdim=False, threads=threads, seed=n)
    assert compute(gradcli, case) == torch_answer(compute, case)


@st.composite
def _paths(draw):
    """Sums that take gradcli's own paths: a reduced dimension of 1 to 3 elements (NumPy adds it
    in PyTorch's order), or one whose length is about a whole number of the cascade's blocks (16
    rows of 4 vectors), whose levels are added by moving the rows whole, beside a dimension of
    1 to 3 others (whose sums then lie 4 vectors apart: the next level's rows are runs of
    several)."""
    dtype = draw(st.sampled_from(["float32", "float64"]))
    block = 16 * 4 * (8 if dtype == "float32" else 4)
    blocks = st.sampled_from([1, 2, 8, 9, 16, 17, 64, 65, 160, 256, 257])
    near = st.tuples(blocks, st.integers(-3, 3)).map(lambda md: max(1, md[0] * block + md[1]))
    length = draw(st.one_of(st.integers(1, 3), near))
    other = draw(st.integers(1, 3))
    shape, dim = draw(st.sampled_from([([length], None), ([other, length], [1]),
                                       ([length, other], [0]), ([other, length], None)]))
    return dict(op=draw(st.sampled_from(["sum", "mean"])), dtype=dtype, shape=shape,
                layout=draw(st.sampled_from(["contiguous", "transposed", "strided", "expanded"])),
                dim=dim, keepdim=draw(st.booleans()), threads=draw(st.integers(1, 4)),
                seed=draw(st.integers(0, 10 ** 6)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_paths())
def test_sums_on_gradclis_own_paths_match_pytorch_bit_for_bit(case):
    assert compute(gradcli, case) == torch_answer(compute, case)


def test_iterators_are_kept_per_layout():
    """A layout's iterator is worked out once and kept (a bounded number of them): a kept one
    gives what a fresh one gives, for other values of the same layout too."""
    a, b = inputs([40, 70], "float32", 3), inputs([40, 70], "float32", 4)
    arrays = [(a, (1,)), (b, (1,)), (a.T, (1,)), (a[:, ::2], (0,)), (b.T, (0,))]
    fresh = []
    for x, ax in arrays:
        summation._PLANS.clear()
        fresh.append(summation.torch_sum(x, ax, 2))
    kept = [summation.torch_sum(x, ax, 2) for x, ax in arrays + arrays][len(arrays):]
    assert all(np.array_equal(f, k) for f, k in zip(fresh, kept))
    assert len(summation._PLANS) == 4       # a and b share theirs
    for n in range(4, summation.PLANS + 40):
        summation.torch_sum(inputs([n, 5], "float64", n), (0,))
    assert 0 < len(summation._PLANS) <= summation.PLANS


def test_few_rows_are_numpys_own_sum():
    """A reduced dimension of at most three elements: NumPy's reduction, whatever the layout."""
    a = inputs([3, 50], "float32", 7)
    for x, ax in [(a, (0,)), (a.T, (1,)), (a[:2], (0,)), (a[:, :1], None), (a[:1, :3], (0, 1))]:
        expected = np.add.reduce(x, axis=ax) + np.float32(0)
        assert np.array_equal(summation.torch_sum(x, ax), expected)
    assert str(summation.torch_sum(np.array([-0.0, -0.0]), None)) == "0.0"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sums(), st.sampled_from(["norm2", "norm1"]))
def test_random_vector_norms_match_pytorch_bit_for_bit(case, op):
    pytest.importorskip("torch")
    case = {**case, "op": op}
    a = layout(gradcli.from_numpy(inputs(case["shape"], case["dtype"], case["seed"])),
               case["layout"]).numpy()
    ax = tuple(range(a.ndim)) if case["dim"] is None else tuple(case["dim"])
    assume(summation.torch_vector_norm(a, int(op[-1]), ax) is not None)
    assert compute(gradcli, case) == torch_answer(compute, case)


def test_only_ord_1_and_2_norms_are_emulated():
    a = inputs([4, 30], "float32", 1)
    assert summation.torch_vector_norm(a, 2, (1,)) is not None
    assert summation.torch_vector_norm(a, 1, (0,)) is not None
    assert summation.torch_vector_norm(a, 3, (0, 1)) is None
    assert summation.torch_vector_norm(a.astype(np.float16), 2, (0, 1)) is None
