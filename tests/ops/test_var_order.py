"""var, std, var_mean and std_mean compute as PyTorch's CPU kernels do, bit for bit, in float32
and float64 (gradcli/ops/summation.py: torch_var, torch_var_mean): fixed cases whose answers
PyTorch 2.13 gave (tests/ops/golden/test_var_order.json, checked with or without torch), and
random shapes, layouts, dims, corrections and thread counts against PyTorch itself (with torch
installed)."""

import hashlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli
from gradcli.ops import summation
from sum_order_cases import inputs, layout, torch_answer

OPS = ("var", "std", "var_mean", "std_mean")


@pytest.fixture(autouse=True)
def _threads():
    threads = gradcli.get_num_threads()
    yield
    gradcli.set_num_threads(threads)


def compute(torch, case):
    """The case's results in `torch` (PyTorch or gradcli): per output, its shape, the SHA-256
    of its bytes and its first values as float.hex strings."""
    torch.set_num_threads(case["threads"])
    scale, shift = case.get("scale", 1.0), case.get("shift", 0.0)
    a = torch.from_numpy((inputs(case["shape"], "float64", case["seed"]) * scale + shift)
                         .astype(case["dtype"]))
    t = layout(a, case["layout"])
    kwargs = {"correction": case["correction"]}
    if case["dim"] is not None:
        kwargs.update(dim=case["dim"], keepdim=case["keepdim"])
    if case["op"] in ("var", "std"):
        outs = [getattr(t, case["op"])(**kwargs)]
    else:
        outs = list(getattr(torch, case["op"])(t, **kwargs))
    answer = []
    for out in outs:
        values = np.ascontiguousarray(out.detach().numpy()).reshape(-1)
        digest = hashlib.sha256(values.astype(values.dtype.newbyteorder("<")).tobytes())
        answer.append([list(out.shape), digest.hexdigest(),
                       [float(v).hex() for v in values[:4].tolist()]])
    return answer


def _cases():
    cases = []
    for dtype in ("float32", "float64"):
        for n in (2, 7, 100, 1000, 4097, 32768, 40000, 100000):
            for threads in ((1, 4) if n >= 32768 else (2,)):
                for op in OPS:
                    cases.append(dict(op=op, dtype=dtype, shape=[n], layout="contiguous",
                                      dim=None, keepdim=False, correction=1, threads=threads))
        for shape, dims in [([3, 5], [None, [0], [1]]), ([64, 33], [None, [0], [1]]),
                            ([5, 300, 7], [None, [1], [0, 2]]), ([2, 40000], [None, [0], [1]]),
                            ([7, 11, 13, 5], [[1, 3], [0, 2]])]:
            for how in ("contiguous", "transposed", "strided", "expanded"):
                for dim in dims:
                    for op in OPS:
                        cases.append(dict(op=op, dtype=dtype, shape=shape, layout=how, dim=dim,
                                          keepdim=dim is not None and op in ("var", "std_mean"),
                                          correction=(0, 1, 2)[len(cases) % 3], threads=3))
    for i, case in enumerate(cases):
        case["seed"] = i
        case["scale"], case["shift"] = (1000.0, 12345.0) if i % 2 else (1.0, 0.25)
    return cases


def _id(case):
    dim = "all" if case["dim"] is None else ",".join(map(str, case["dim"]))
    return (f"{case['op']}-{case['dtype']}-{'x'.join(map(str, case['shape']))}-{case['layout']}"
            f"-dim{dim}-c{case['correction']}-t{case['threads']}")


CASES = _cases()


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_moments_match_pytorch_bit_for_bit(case, oracle):
    expected = oracle(lambda torch: compute(torch, case))
    assert compute(gradcli, case) == [list(map(lambda x: list(x) if isinstance(x, tuple) else x,
                                               part)) for part in expected]


@st.composite
def _moments(draw):
    ndim = draw(st.integers(1, 3))
    limit = {1: 60000, 2: 300, 3: 40}[ndim]
    dims = draw(st.one_of(st.none(), st.lists(st.integers(0, ndim - 1), min_size=1,
                                              max_size=ndim, unique=True)))
    return dict(op=draw(st.sampled_from(OPS)), dtype=draw(st.sampled_from(["float32", "float64"])),
                shape=[draw(st.integers(1, limit)) for _ in range(ndim)],
                layout=draw(st.sampled_from(["contiguous", "transposed", "strided", "expanded"])),
                dim=None if dims is None else sorted(dims), keepdim=draw(st.booleans()),
                correction=draw(st.sampled_from([0, 1, 2])), threads=draw(st.integers(1, 4)),
                seed=draw(st.integers(0, 10 ** 6)), scale=draw(st.sampled_from([1.0, 1e3])),
                shift=draw(st.sampled_from([0.0, 0.5, 1e4])))


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_moments())
def test_random_moments_match_pytorch_bit_for_bit(case):
    assert compute(gradcli, case) == torch_answer(compute, case)


WELFORD_MEAN_CASES = [
    dict(op=op, dtype=dtype, shape=shape, layout="contiguous", dim=None, keepdim=False,
         correction=0, threads=threads, seed=seed, scale=1.0, shift=0.0)
    for op, dtype, shape, threads, seed in [
        ("var_mean", "float64", [183, 183], 2, 0),     # (found by CI's hypothesis run)
        ("var_mean", "float64", [33489], 2, 1), ("std_mean", "float64", [33489], 2, 3),
        ("var_mean", "float64", [100000], 3, 4), ("std_mean", "float64", [70001], 4, 5),
        ("var_mean", "float32", [65536], 2, 6), ("std_mean", "float32", [100000], 4, 7)]]


@pytest.mark.parametrize("case", WELFORD_MEAN_CASES, ids=[_id(c) for c in WELFORD_MEAN_CASES])
def test_all_elements_var_mean_mean_is_welford_s(case, oracle):
    # one output split between threads: their Welford accumulators combined in order, the
    # mean's update a fused multiply-add as PyTorch's compiled WelfordOps::combine makes it
    expected = oracle(lambda torch: compute(torch, case))
    assert compute(gradcli, case) == [[list(x) if isinstance(x, tuple) else x for x in part]
                                      for part in expected]


def test_long_welford_loops_fall_back_to_numpy():
    a = np.ones((10, 50000), np.float32)
    assert summation.torch_var(a, (1,), 1, False) is None       # (NumPy's two passes)
    assert summation.torch_var(a, (0,), 1, False) is not None
    assert summation.torch_var(a, None, 1, False) is not None   # one output: always emulated
    assert summation.torch_var(a.astype(np.float16), None, 1, False) is None
