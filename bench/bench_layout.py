"""The cost of CPython's full collection per saved tensor, by the size of a tensor object: the
measurement behind gradcli.engine.tensor._apart_from_arrays.  Run on demand:

    .venv/bin/python bench/bench_layout.py [--n 100000] [--rounds 3]

A graph that saves its inputs for backward keeps a tensor object, and the tensor its NumPy
array, alive per op; every full collection walks them all.  This builds a chain of n stand-in
nodes and tensors with the slots of gradcli's own classes (the tensor's padded with unused slots
to each size in turn), times one full collection, and prints nanoseconds per link: CPython's
small-object allocator serves each size class (16-byte steps) from pools of its own, and a size
class shared with the arrays interleaves tensors and arrays in the same pools.  Also the same
for gradcli's real classes (run first): a chain of sin() (each node saves its input) and of
`+ 1.0` (saves nothing), with the layout gradcli chose.
"""

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402


def full_collection_s(rounds):
    """Median seconds of a full collection over what is alive now."""
    times = []
    for _ in range(rounds):
        gc.collect()
        t = time.perf_counter()
        gc.collect()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


BASELINE = [0.0]  # a full collection's time without a chain (the modules' own objects)


def full_collection_ns(n, rounds):
    """Nanoseconds per link of a full collection over a chain of n links (baseline subtracted)."""
    return (full_collection_s(rounds) - BASELINE[0]) / n * 1e9


def stand_ins(n, rounds, tensor_slots, node_slots, max_extra=5):
    meta = ((), np.dtype("float64"))
    node_cls = type("Node", (), {"__slots__": node_slots})
    rows = []
    for extra in range(max_extra + 1):
        padding = tuple(f"_x{i}" for i in range(extra))
        cls = type("Tensor", (), {"__slots__": tensor_slots + padding})
        prev = None
        for i in range(n):
            t = cls()
            t._data = np.array(1.0)
            t.grad_fn = prev
            t._output_nr, t._vc, t.requires_grad_flag = 0, None, True
            node = node_cls()
            node._fa, node._fb, node._s0, node._s1, node._sst = prev, None, t, None, 1
            node._attrs, node._meta, node._next_fns = (), meta, None
            node._next_nrs, node._seq = (0,), i
            prev = node
        size = sys.getsizeof(cls())
        rows.append((size, -(-size // 16) * 16, full_collection_ns(n, rounds)))
        del prev, t, node
    return rows


def engine_chains(n, rounds):
    import gradcli
    x = gradcli.tensor(0.5, dtype=gradcli.float64, requires_grad=True)
    out = []
    steps = (("sin(y) (saves y)", gradcli.sin), ("y + 1.0 (saves nothing)", lambda y: y + 1.0))
    for label, step in steps:
        y = x
        for _ in range(n):
            y = step(y)
        out.append((label, full_collection_ns(n, rounds)))
        del y
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="links in each chain")
    parser.add_argument("--rounds", type=int, default=3, help="timed collections per chain")
    args = parser.parse_args()
    gc.disable()  # (no collection while the chains are built; each is timed on its own)
    from gradcli.engine.tensor import Tensor
    from gradcli.ops.registry import _UnaryNode
    BASELINE[0] = full_collection_s(args.rounds)
    tensor_slots = tuple(s for s in Tensor.__slots__ if not s.startswith("_apart"))
    node_slots = tuple(s for c in _UnaryNode.__mro__ for s in c.__dict__.get("__slots__", ()))
    array_block = -(-np.ndarray.__basicsize__ // 16) * 16
    print(f"CPython {sys.version.split()[0]}, NumPy {np.__version__}; an array object is a "
          f"{array_block}-byte block")
    # (gradcli's chains first: the stand-ins leave the heap fragmented)
    used = sys.getsizeof(Tensor._make(np.array(1.0), None, 0, False))
    print(f"gradcli's tensor object: {used} bytes ({-(-used // 16) * 16}-byte block); its chains:")
    for label, ns in engine_chains(args.n, args.rounds):
        print(f"  {label:<26} {ns:>7.0f} ns/link")
    print(f"stand-in chain of {args.n:,} links (node -> tensor -> array), one full collection:")
    print("  tensor object  block  ns/link")
    for size, block, ns in stand_ins(args.n, args.rounds, tensor_slots, node_slots):
        shared = "  (the arrays' size class)" if block == array_block else ""
        print(f"  {size:>13}  {block:>5}  {ns:>7.0f}{shared}")


if __name__ == "__main__":
    main()
