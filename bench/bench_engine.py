"""Engine benchmarks, run on demand (never in CI): gradcli against PyTorch and hand-written NumPy,
measured alternately in one process so that machine noise hits all of them alike.

    .venv/bin/python bench/bench_engine.py [--quick]

Reports, per workload, the median and min-max of each implementation and the ratio of medians.
"""

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.setrecursionlimit(10_000)

import gradcli  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # the comparison columns are left out
    torch = None


def scalar_chain(lib, n):
    """x*w, x+b, sin(x), x*1.0001 repeated: forward and backward, per op."""
    def run():
        x = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(1.0001, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(0.001, dtype=lib.float64, requires_grad=True)
        y = x
        for i in range(n // 4):
            y = y * w
            y = y + b
            y = lib.sin(y)
            y = y * 1.0001
        y.backward()
        return x.grad
    return run


def numpy_scalar_chain(n):
    def run():
        x, w, b = 0.5, 1.0001, 0.001
        ys = []
        y = x
        for i in range(n // 4):
            ys.append(y)
            y = np.sin((y * w) + b) * 1.0001
        g, gw, gb = 1.0, 0.0, 0.0
        for y0 in reversed(ys):
            a = y0 * w + b
            g = g * 1.0001 * np.cos(a)
            gw += g * y0
            gb += g
            g = g * w
        return g
    return run


def mlp(lib, batch=64, width=1024):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((width, width)) / 32 for _ in range(3)]
    xa = rng.standard_normal((batch, width))

    def run():
        ws = [lib.tensor(a, requires_grad=True) for a in arrays]
        h = lib.tensor(xa)
        for w in ws:
            h = lib.tanh(h @ w)
        h.sum().backward()
        return ws[0].grad
    return run


def numpy_mlp(batch=64, width=1024):
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((width, width)) / 32 for _ in range(3)]
    x = rng.standard_normal((batch, width))

    def run():
        hs = [x]
        for w in ws:
            hs.append(np.tanh(hs[-1] @ w))
        g = np.ones_like(hs[-1])
        grads = []
        for i in reversed(range(3)):
            g = g * (1 - hs[i + 1] ** 2)
            grads.append(hs[i].T @ g)
            g = g @ ws[i].T
        return grads[-1]
    return run


def elementwise(lib, n=1_000_000):
    a = np.random.default_rng(1).uniform(0.5, 1.5, n)

    def run():
        x = lib.tensor(a, requires_grad=True)
        y = x
        for i in range(5):
            y = lib.exp(lib.sin(y * 0.5 + 0.1) * 0.5)
        y.sum().backward()
        return x.grad
    return run


def numpy_elementwise(n=1_000_000):
    a = np.random.default_rng(1).uniform(0.5, 1.5, n)

    def run():
        saved = []
        y = a
        for i in range(5):
            u = y * 0.5 + 0.1
            s = np.sin(u)
            v = s * 0.5
            e = np.exp(v)
            saved.append((u, e))
            y = e
        g = np.ones_like(a)
        for u, e in reversed(saved):
            g = g * e
            g = g * 0.5
            g = g * np.cos(u)
            g = g * 0.5
        return g
    return run


def measure(candidates, repeat):
    times = {name: [] for name in candidates}
    for _ in range(repeat):
        for name, fn in candidates.items():
            gc.collect()
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def report(title, times, per=None, base="gradcli"):
    print(f"\n{title}")
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, ts in times.items():
        scale, unit = (1e6 / per, "us/op") if per else (1e3, "ms")
        ratio = med[base] / med[name] if name != base else 1.0
        print(f"  {name:10s} median {med[name] * scale:9.3f} {unit}  "
              f"(min {min(ts) * scale:.3f}, max {max(ts) * scale:.3f})"
              + (f"   gradcli/{name} = {ratio:.2f}x" if name != base else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    repeat = 3 if args.quick else 7
    gradcli.set_default_dtype(gradcli.float64)
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    libs = {"gradcli": gradcli}
    if torch is not None:
        libs["torch"] = torch
    for n in ([10_000] if args.quick else [10_000, 100_000]):
        if args.only and args.only != "chain":
            break
        cands = {k: scalar_chain(v, n) for k, v in libs.items()}
        cands["numpy"] = numpy_scalar_chain(n)
        report(f"scalar chain, {n} ops, forward+backward", measure(cands, repeat), per=n)
    if not args.quick and (not args.only or args.only == "chain1m"):
        cands = {"gradcli": scalar_chain(gradcli, 1_000_000)}
        report("scalar chain, 1,000,000 ops (no recursion limit)", measure(cands, 1), per=1_000_000)
    if not args.only or args.only == "mlp":
        cands = {k: mlp(v) for k, v in libs.items()}
        cands["numpy"] = numpy_mlp()
        report("3-layer 1024x1024 tanh MLP (batch 64), forward+backward", measure(cands, repeat))
    if not args.only or args.only == "elementwise":
        cands = {k: elementwise(v) for k, v in libs.items()}
        cands["numpy"] = numpy_elementwise()
        report("20-op elementwise chain on 1e6 elements, forward+backward", measure(cands, repeat))


if __name__ == "__main__":
    main()
