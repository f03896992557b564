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
  hessian    Hessian of sum(tanh(W x)) + x.x/2, 100-dim (autograd.functional.hessian)
  jacobian   100x100 Jacobian of (W x) * x + x**3, reverse mode and forward mode
             (autograd.functional.jacobian)
             (these three: <= 1.0x PyTorch's autograd.functional with its defaults)

The workloads are bench/bench_suite.py's, built by the factories in bench/workloads/inprocess.py;
this runner only measures them differently (gradcli, PyTorch and NumPy alone, CPU-time goals).

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

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:  # run as a script it is there already (sys.path[0])
    sys.path.insert(0, str(BENCH))

from workloads import inprocess  # noqa: E402  (imports no gradcli: --tree decides which one)


def import_libraries(tree, with_torch=True):
    sys.path.insert(0, str(tree or ROOT))
    import gradcli
    inprocess.prepare("gradcli")
    if not with_torch:
        return gradcli, None
    try:
        import torch
        inprocess.prepare("torch", threads=1)
    except ImportError:  # the comparison columns are left out
        torch = None
    return gradcli, torch


# ---------------------------------------------------------------------------------- workloads
# The workloads are bench_suite.py's (workloads/inprocess.py): one factory per workload taking
# the implementation's name ("gradcli", "torch", "numpy"); its run() returns (result, phases).

def runs(factory, impls, *args):
    """{impl: run} for each implementation, built by factory(impl, *args)."""
    return {impl: factory(impl, *args) for impl in impls}


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
sys.path.insert(0, {str(BENCH)!r})
import bench_engine as b
if {kind!r} != "numpy":
    b.import_libraries({str(tree) if tree else None!r}, {kind!r} == "torch")
run = b.inprocess.mlp({kind!r})
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

    impls = ["gradcli"] + (["torch"] if torch is not None else [])
    summary = []

    def versus(ref, label, goal, title, factory, *factory_args, rounds=repeat, per=None):
        """Measure one workload (numpy's version too when it is the reference), report it and
        add gradcli's ratio to ref (when ref ran) to the summary; the CPU-time medians."""
        cands = runs(factory, impls + (["numpy"] if ref == "numpy" else []), *factory_args)
        med = report(title, measure(cands, rounds), per=per)
        if ref in med:
            summary.append((f"{label} vs {ref}", med["gradcli"] / med[ref], goal))
        return med

    if wanted("chain"):
        per_op = {}
        for n in ([10_000] if args.quick else [10_000, 100_000]):
            med = versus("torch", f"chain {n // 1000}k ops", 0.8,
                         f"scalar chain, {n} ops, forward+backward", inprocess.chain, n,
                         rounds=repeat if n <= 10_000 else max(3, repeat // 2), per=n)
            per_op[n] = med["gradcli"] / n
        if not args.quick:
            med = report("scalar chain, 1,000,000 ops (no recursion limit)",
                         measure(runs(inprocess.chain, ["gradcli"], 1_000_000), 1, False),
                         per=1_000_000)
            summary.append(("chain per-op cost, 1M / 10k", med["gradcli"] / 1e6 / per_op[10_000],
                            1.25))
    if wanted("mlp"):
        versus("numpy", "MLP", 1.1, "3-layer 1024x1024 tanh MLP (batch 64), forward+backward",
               inprocess.mlp)
    if wanted("memory"):
        mem = {k: peak_memory(k, args.tree) for k in ["numpy"] + impls}
        print("\npeak RSS of a process running only the MLP (MB)")
        for k, v in mem.items():
            print(f"  {k:10s} {v:8.1f} MB" + (f"   gradcli/{k} = {mem['gradcli'] / v:.2f}x"
                                              if k != "gradcli" else ""))
            ROWS.append(("MLP peak RSS", k, "rss", v, v, v, "MB",
                         f"{mem['gradcli'] / v:.2f}x" if k != "gradcli" else ""))
        summary.append(("MLP peak RSS vs numpy", mem["gradcli"] / mem["numpy"], 1.15))
    if wanted("elementwise"):
        versus("numpy", "elementwise", 1.1,
               "20-op elementwise chain on 1e6 elements, forward+backward", inprocess.elementwise)
    if wanted("grad2"):
        versus("torch", "grad of grad", 1.0, "second derivative of a 1000-op scalar chain",
               inprocess.second_derivative)
    if wanted("hessian"):
        versus("torch", "hessian", 1.0, "Hessian of a 100-dim function (functional.hessian)",
               inprocess.hessian, "reverse", rounds=max(3, repeat // 2))
    if wanted("jacobian"):
        for strategy in ("reverse-mode", "forward-mode"):
            versus("torch", f"jacobian {strategy}", 1.0,
                   f"100x100 Jacobian, {strategy} (functional.jacobian)", inprocess.jacobian,
                   strategy.split("-")[0], rounds=max(3, repeat // 2))
    print("\nsummary (ratio of CPU-time medians; goal: at most)")
    for name, ratio, goal in summary:
        print(f"  {name:34s} {ratio:6.2f}x   goal {goal:.2f}x   "
              f"{'ok' if ratio <= goal else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": ROWS, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
