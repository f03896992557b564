"""Engine benchmarks, run on demand (never collected by pytest): gradcli against PyTorch and
hand-written NumPy, measured alternately in one process so that machine noise hits all of them
alike.

    .venv/bin/python bench/bench_engine.py [--quick] [--only chain,mlp,...] [--repeat N]
                                           [--tree PATH]

Prints, per workload, the median and min-max of each implementation and the ratio of medians
(gradcli / reference), then a summary table against the goals:

  chain      scalar chain (x*w, x+b, sin(x), x*1.0001 repeated), forward+backward, per op:
             <= 0.8x PyTorch (one thread) at 10k and 100k ops; per-op cost flat up to 1M ops
  mlp        3-layer 1024x1024 tanh MLP, batch 64, forward+backward: <= 1.1x NumPy
  memory     peak RSS of a process running only the MLP: <= 1.15x the NumPy process
  elementwise 20-op elementwise chain on 1e6 elements, forward+backward: <= 1.1x NumPy
  grad2      second derivative of a 1000-op scalar chain (create_graph, grad of grad)
  hessian    Hessian of a 100-dim function (autograd.functional.hessian)
  jacobian   100x100 Jacobian, reverse mode and forward mode (autograd.functional.jacobian)
             (these three: <= 1.0x PyTorch's autograd.functional with its defaults)

--tree runs another checkout's gradcli (for before/after figures).  Float64 throughout; BLAS
and PyTorch run on one thread (on a shared machine, spinning BLAS threads make matrix products
erratic).  Each run is timed by the wall clock and by the process's CPU time; the summary judges
the goals on CPU time, which other processes on the machine disturb least.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def import_libraries(tree, with_torch=True):
    sys.path.insert(0, str(tree or ROOT))
    import gradcli
    gradcli.set_default_dtype(gradcli.float64)
    if not with_torch:
        return gradcli, None
    try:
        import torch
        torch.set_num_threads(1)
        torch.set_default_dtype(torch.float64)
    except ImportError:  # the comparison columns are left out
        torch = None
    return gradcli, torch


# ---------------------------------------------------------------------------------- workloads

def scalar_chain(lib, n):
    """x*w, x+b, sin(x), x*1.0001 repeated: n ops forward, then backward."""
    def run():
        x = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(1.0001, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(0.001, dtype=lib.float64, requires_grad=True)
        y = x
        for _ in range(n // 4):
            y = y * w
            y = y + b
            y = lib.sin(y)
            y = y * 1.0001
        y.backward()
        return x.grad
    return run


def mlp_arrays(batch=64, width=1024):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((width, width)) / 32 for _ in range(3)], \
        rng.standard_normal((batch, width))


def mlp(lib, arrays, xa):
    """x@W1 -> tanh -> @W2 -> tanh -> @W3 -> tanh -> sum; gradients of the weights accumulate
    into .grad, reset between steps (as a training loop does)."""
    ws = [lib.from_numpy(a).requires_grad_() for a in arrays]
    x = lib.from_numpy(xa)

    def run():
        for w in ws:
            w.grad = None
        h = x
        for w in ws:
            h = lib.tanh(h @ w)
        h.sum().backward()
        return ws[0].grad
    return run


def numpy_mlp(ws, x):
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


def elementwise(lib, a):
    """5 x (y*0.5 + 0.1 -> sin -> *0.5 -> exp): 20 elementwise ops on 1e6 elements."""
    def run():
        x = lib.from_numpy(a).requires_grad_()
        y = x
        for _ in range(5):
            y = lib.exp(lib.sin(y * 0.5 + 0.1) * 0.5)
        y.sum().backward()
        return x.grad
    return run


def numpy_elementwise(a):
    def run():
        saved = []
        y = a
        for _ in range(5):
            u = y * 0.5 + 0.1
            s = np.sin(u)
            v = s * 0.5
            e = np.exp(v)
            saved.append((u, e))
            y = e
        g = np.ones_like(a)
        for u, e in reversed(saved):
            g = g * e
            g *= 0.5
            g *= np.cos(u)
            g *= 0.5
        return g
    return run


def second_derivative(lib, n=1000):
    """d2y/dx2 of a 1000-op scalar chain: grad with create_graph, then grad of the grad."""
    def run():
        x = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(1.0001, dtype=lib.float64)
        y = x
        for _ in range(n // 4):
            y = y * w
            y = y + 0.001
            y = lib.sin(y)
            y = y * 1.0001
        (dx,) = lib.autograd.grad(y, x, create_graph=True)
        (d2x,) = lib.autograd.grad(dx, x)
        return d2x
    return run


def functional_inputs(lib, n=100):
    rng = np.random.default_rng(2)
    a = lib.tensor(rng.standard_normal((n, n)) / 10)
    x = lib.tensor(rng.uniform(-1, 1, n))
    return a, x


def hessian(lib, n=100):
    a, x = functional_inputs(lib, n)

    def f(v):
        return lib.tanh(a @ v).sum() + (v ** 3).sum()

    def run():
        return lib.autograd.functional.hessian(f, x)
    return run


def jacobian(lib, strategy, n=100):
    a, x = functional_inputs(lib, n)

    def f(v):
        return lib.tanh(a @ v) + v ** 2

    def run():
        return lib.autograd.functional.jacobian(
            f, x, strategy=strategy, vectorize=strategy == "forward-mode")
    return run


# ---------------------------------------------------------------------------------- measuring

def measure(candidates, repeat, warm_up=True):
    """Run the candidates alternately, repeat times each: {name: (wall times, cpu times)}."""
    times = {name: ([], []) for name in candidates}
    if warm_up:
        for fn in candidates.values():  # imports, caches
            fn()
    for _ in range(repeat):
        for name, fn in candidates.items():
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[name][0].append(time.perf_counter() - w0)
            times[name][1].append(time.process_time() - c0)
    return times


ROWS = []  # (workload, implementation, clock, median, min, max, unit, ratio text)


def report(title, times, per=None, base="gradcli"):
    """Print medians, min-max and ratios of medians for both clocks; the CPU-time medians."""
    print(f"\n{title}")
    scale, unit = (1e6 / per, "us/op") if per else (1e3, "ms")
    result = {}
    for clock, index in (("cpu", 1), ("wall", 0)):
        med = {k: statistics.median(v[index]) for k, v in times.items()}
        for name, v in times.items():
            ts = v[index]
            ratio = f"{med[base] / med[name]:.2f}x" if name != base and base in med else ""
            print(f"  {clock:4s} {name:8s} median {med[name] * scale:10.3f} {unit}  "
                  f"(min {min(ts) * scale:.3f}, max {max(ts) * scale:.3f})"
                  + (f"   gradcli/{name} = {ratio}" if ratio else ""))
            ROWS.append((title, name, clock, med[name] * scale, min(ts) * scale,
                         max(ts) * scale, unit, ratio))
        if clock == "cpu":
            result = med
    return result


def peak_memory(kind, tree):
    """Peak RSS (MB) of a fresh process that runs only the MLP (kind: gradcli/numpy/torch).

    Read as VmHWM (the high-water mark of the process's own address space): Linux carries
    ru_maxrss over fork and exec, so a child of this large process would report our size."""
    code = f"""
import sys
sys.path.insert(0, {str(ROOT / 'bench')!r})
import bench_engine as b
import numpy as np
ws, x = b.mlp_arrays()
if {kind!r} == "numpy":
    run = b.numpy_mlp(ws, x)
else:
    gradcli, torch = b.import_libraries({str(tree) if tree else None!r}, {kind!r} == "torch")
    lib = gradcli if {kind!r} == "gradcli" else torch
    run = b.mlp(lib, ws, x)
for _ in range(3):
    run()
status = open("/proc/self/status").read()
print(int(status.split("VmHWM:")[1].split()[0]) / 1024)
"""
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return float(out.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no 1M chain")
    ap.add_argument("--only", default="", help="comma-separated workloads")
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--tree", default=None, help="import gradcli from this checkout")
    ap.add_argument("--json", default=None, help="also write the rows as JSON to this file")
    args = ap.parse_args()
    gradcli, torch = import_libraries(args.tree)
    repeat = args.repeat or (3 if args.quick else 7)
    only = set(args.only.split(",")) if args.only else None

    def wanted(name):
        return only is None or name in only

    libs = {"gradcli": gradcli}
    if torch is not None:
        libs["torch"] = torch
    summary = []
    if wanted("chain"):
        per_op = {}
        for n in ([10_000] if args.quick else [10_000, 100_000]):
            cands = {k: scalar_chain(v, n) for k, v in libs.items()}
            med = report(f"scalar chain, {n} ops, forward+backward",
                         measure(cands, repeat if n <= 10_000 else max(3, repeat // 2)), per=n)
            per_op[n] = med["gradcli"] / n
            if "torch" in med:
                summary.append((f"chain {n // 1000}k ops vs torch", med["gradcli"] / med["torch"],
                                0.8))
        if not args.quick:
            med = report("scalar chain, 1,000,000 ops (no recursion limit)",
                         measure({"gradcli": scalar_chain(gradcli, 1_000_000)}, 1, False),
                         per=1_000_000)
            summary.append(("chain per-op cost, 1M / 10k", med["gradcli"] / 1e6 / per_op[10_000],
                            1.25))
    if wanted("mlp"):
        ws, x = mlp_arrays()
        cands = {k: mlp(v, ws, x) for k, v in libs.items()}
        cands["numpy"] = numpy_mlp(ws, x)
        med = report("3-layer 1024x1024 tanh MLP (batch 64), forward+backward",
                     measure(cands, repeat))
        summary.append(("MLP vs numpy", med["gradcli"] / med["numpy"], 1.1))
    if wanted("memory"):
        mem = {k: peak_memory(k, args.tree) for k in ["numpy"] + list(libs)}
        print("\npeak RSS of a process running only the MLP (MB)")
        for k, v in mem.items():
            print(f"  {k:10s} {v:8.1f} MB" + (f"   gradcli/{k} = {mem['gradcli'] / v:.2f}x"
                                              if k != "gradcli" else ""))
            ROWS.append(("MLP peak RSS", k, "rss", v, v, v, "MB",
                         f"{mem['gradcli'] / v:.2f}x" if k != "gradcli" else ""))
        summary.append(("MLP peak RSS vs numpy", mem["gradcli"] / mem["numpy"], 1.15))
    if wanted("elementwise"):
        a = np.random.default_rng(1).uniform(0.5, 1.5, 1_000_000)
        cands = {k: elementwise(v, a) for k, v in libs.items()}
        cands["numpy"] = numpy_elementwise(a)
        med = report("20-op elementwise chain on 1e6 elements, forward+backward",
                     measure(cands, repeat))
        summary.append(("elementwise vs numpy", med["gradcli"] / med["numpy"], 1.1))
    if wanted("grad2"):
        cands = {k: second_derivative(v) for k, v in libs.items()}
        med = report("second derivative of a 1000-op scalar chain", measure(cands, repeat))
        if "torch" in med:
            summary.append(("grad of grad vs torch", med["gradcli"] / med["torch"], 1.0))
    if wanted("hessian"):
        cands = {k: hessian(v) for k, v in libs.items()}
        med = report("Hessian of a 100-dim function (functional.hessian)",
                     measure(cands, max(3, repeat // 2)))
        if "torch" in med:
            summary.append(("hessian vs torch", med["gradcli"] / med["torch"], 1.0))
    if wanted("jacobian"):
        for strategy in ("reverse-mode", "forward-mode"):
            cands = {k: jacobian(v, strategy) for k, v in libs.items()}
            med = report(f"100x100 Jacobian, {strategy} (functional.jacobian)",
                         measure(cands, max(3, repeat // 2)))
            if "torch" in med:
                summary.append((f"jacobian {strategy} vs torch", med["gradcli"] / med["torch"],
                                1.0))
    print("\nsummary (ratio of CPU-time medians; goal: at most)")
    for name, ratio, goal in summary:
        print(f"  {name:34s} {ratio:6.2f}x   goal {goal:.2f}x   "
              f"{'ok' if ratio <= goal else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": ROWS, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
