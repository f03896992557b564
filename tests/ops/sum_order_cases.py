"""Fixed float sums, means and vector norms whose bits PyTorch 2.13 gave (tests/ops/sum_order_golden.json), so that a
run without torch checks gradcli's summation order bit for bit.

`python tests/ops/sum_order_cases.py` (torch installed) records the golden file again.  The inputs
are made from integers (exact in every NumPy), never from a random generator whose stream may
change between versions.
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).with_name("sum_order_golden.json")


def inputs(shape, dtype, seed):
    """Deterministic values in [-1, 1) with all their bits used, from an integer hash."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.uint64) + np.uint64(seed * 1000003 + 17)
    h = (i * np.uint64(0x9E3779B97F4A7C15)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    h ^= h >> np.uint64(29)
    h = (h * np.uint64(0xBF58476D1CE4E5B9)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    h ^= h >> np.uint64(32)
    values = (h >> np.uint64(11)).astype(np.float64) / float(1 << 52) - 1.0  # exact
    return values.astype(dtype).reshape(shape)


def layout(a, how):
    """The tensor (torch or gradcli, same methods) laid out as the case says."""
    if how == "contiguous":
        return a
    if how == "transposed":
        return a.transpose(0, a.dim() - 1)
    if how == "strided":          # every other element of the last dimension
        return a[..., ::2]
    if how == "expanded":         # the first row repeated: stride 0
        return a[:1].expand(*a.shape)
    raise ValueError(how)


def _cases():
    cases = []
    lengths = [1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256,
               257, 511, 512, 513, 1000, 2000, 4095, 4096, 4097, 10000, 32767, 32768, 32769,
               65535, 65536, 100000, 262145]
    for dtype in ("float32", "float64"):
        for n in lengths:
            cases.append(dict(op="sum", dtype=dtype, shape=[n], layout="contiguous", dim=None,
                              keepdim=False, threads=2))
        for n in (2000, 40000, 100000):
            for threads in (1, 3, 4):
                cases.append(dict(op="sum", dtype=dtype, shape=[n], layout="contiguous",
                                  dim=None, keepdim=False, threads=threads))
        for shape, dims in [([3, 5], [None, [0], [1]]), ([64, 33], [None, [0], [1]]),
                            ([33, 64], [None, [0], [1]]), ([5, 300, 7], [None, [1], [0, 2]]),
                            ([300, 300], [None, [0], [1]]), ([2, 40000], [None, [0], [1]]),
                            ([40000, 3], [None, [0], [1]]), ([7, 11, 13, 5], [[1, 3], [0, 2]])]:
            for how in ("contiguous", "transposed", "strided", "expanded"):
                for dim in dims:
                    for op in ("sum", "mean"):
                        cases.append(dict(op=op, dtype=dtype, shape=shape, layout=how, dim=dim,
                                          keepdim=op == "mean" and dim is not None,
                                          threads=2))
    for dtype in ("float32", "float64"):   # vector norms of ord 2 and 1 (where emulated)
        for n in (1, 7, 8, 9, 100, 1000, 40000, 100000):
            for op in ("norm2", "norm1"):
                cases.append(dict(op=op, dtype=dtype, shape=[n], layout="contiguous",
                                  dim=None, keepdim=False, threads=2))
        for shape, how, dim in [([64, 33], "contiguous", [0]), ([64, 33], "transposed", [1]),
                                ([300, 300], "contiguous", [0]), ([5, 300, 7], "contiguous",
                                                                   [0, 1]),
                                ([40000, 3], "contiguous", [0]), ([40000, 3], "strided", None),
                                ([7, 11, 13], "transposed", None)]:
            for op in ("norm2", "norm1"):
                cases.append(dict(op=op, dtype=dtype, shape=shape, layout=how, dim=dim,
                                  keepdim=True, threads=2))
        for shape, how, dim in [([64, 33], "contiguous", [1]), ([5, 300, 7], "contiguous",
                                                                 [2]),
                                ([400, 7], "contiguous", [1]), ([300, 13], "contiguous", [1]),
                                ([33, 64], "transposed", [0])]:
            for op in ("norm2", "norm1"):
                cases.append(dict(op=op, dtype=dtype, shape=shape, layout=how, dim=dim,
                                  keepdim=False, threads=2))
    for dtype in ("float32", "float64"):   # the paths of gradcli's own: moved rows, few rows
        for n in (2047, 2048, 2049, 8191, 8192, 8193, 131071, 131072, 131073):
            cases.append(dict(op="sum", dtype=dtype, shape=[n], layout="contiguous", dim=None,
                              keepdim=False, threads=1))
        for shape, dims in [([3, 40000], [[0], [1]]), ([40000, 2], [[0], [1]]),
                            ([2, 3, 5], [[0], [1], [2], [0, 2], [0, 1]]), ([1, 1, 7], [None]),
                            ([300, 600], [[1], [0]]), ([64, 4100], [[1]]),
                            ([5, 3000, 7], [[1], [0, 1]])]:
            for how in ("contiguous", "transposed", "strided"):
                for dim in dims:
                    cases.append(dict(op="sum", dtype=dtype, shape=shape, layout=how, dim=dim,
                                      keepdim=False, threads=2))
        for shape, dim in [([2, 40000], [1]), ([2, 65795], [1]), ([65795, 2], [0]),
                           ([3, 8, 8200], [2])]:   # sums 4 vectors apart: runs of several rows
            cases.append(dict(op="sum", dtype=dtype, shape=shape, layout="contiguous", dim=dim,
                              keepdim=False, threads=1))
    for dtype in ("float32", "float64"):   # a bias's gradient: (N, C, H, W) summed to C
        for shape, dim in [([8, 16, 32], [0, 2]), ([4, 64, 7, 7], [0, 2, 3]),
                           ([16, 32, 12, 12], [0, 2, 3])]:
            for how in ("contiguous", "transposed"):
                cases.append(dict(op="sum", dtype=dtype, shape=shape, layout=how, dim=dim,
                                  keepdim=True, threads=2))
    for i, case in enumerate(cases):
        case["seed"] = i
    return cases


def compute(torch, case):
    """The case's result in `torch` (PyTorch or gradcli): its shape, the SHA-256 of its bytes
    (little-endian) and its first values as float.hex strings."""
    torch.set_num_threads(case["threads"])
    a = torch.from_numpy(inputs(case["shape"], case["dtype"], case["seed"]))
    t = layout(a, case["layout"])
    if case["op"] in ("norm2", "norm1"):
        out = torch.linalg.vector_norm(t, int(case["op"][-1]), case["dim"], case["keepdim"])
    else:
        f = getattr(t, case["op"])
        out = f() if case["dim"] is None else f(case["dim"], keepdim=case["keepdim"])
    values = np.ascontiguousarray(out.detach().numpy()).reshape(-1)
    digest = hashlib.sha256(values.astype(values.dtype.newbyteorder("<")).tobytes()).hexdigest()
    return {"out_shape": list(out.shape), "sha256": digest,
            "first": [float(v).hex() for v in values[:4].tolist()]}


def torch_answer(compute_fn, case):
    """compute_fn(torch, case) from PyTorch itself (skipped without torch), its thread count
    restored afterwards."""
    import pytest
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    try:
        return compute_fn(torch, case)
    finally:
        torch.set_num_threads(threads)


def record():
    import torch
    threads = torch.get_num_threads()
    golden = []
    try:
        for case in _cases():
            golden.append({**case, **compute(torch, case)})
    finally:
        torch.set_num_threads(threads)
    lines = ",\n".join(json.dumps(case) for case in golden)
    GOLDEN.write_text(f'{{"torch": "{torch.__version__}", "cases": [\n{lines}\n]}}\n',
                      encoding="utf-8")

if __name__ == "__main__":
    sys.exit(record())
