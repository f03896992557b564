"""Sweep benchmark (issue 21, item 5), run on demand (never in CI): a 1,000-point sweep of a
small expression against a one-point `gradcli eval` of the same program, whole processes,
started alternately so that both meet the same machine.  Goal: the sweep takes at most 3x the
one-point eval's wall time (a shell loop of 1,000 evals takes about 1,000x).

    .venv/bin/python bench/bench_sweep.py [--rounds N] [--points N] [--format table|csv|jsonl]

Rows: the median and min-max of wall time and of CPU time (of the child), and the ratio of the
sweep's median to the one-point eval's.  Exit 1 when the wall-time ratio exceeds 3.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = "y = x**2 + sin(x)"
GOAL = 3.0


def gradcli():
    script = Path(sys.executable).parent / "gradcli"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gradcli.cli.main"]


def timed(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def row(name, samples):
    walls, cpus = zip(*samples)
    return (f"{name:<28} wall {statistics.median(walls):7.3f} s "
            f"({min(walls):.3f}-{max(walls):.3f})   cpu {statistics.median(cpus):7.3f} s "
            f"({min(cpus):.3f}-{max(cpus):.3f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--format", choices=["table", "csv", "jsonl"], default="csv")
    args = parser.parse_args()
    one = gradcli() + ["eval", PROGRAM, "--at", "x=0.5"]
    sweep = gradcli() + ["eval", PROGRAM, "--at", f"x=-3:3:{args.points}"]
    if args.format != "table":
        sweep.append("--" + args.format)
    timed(one), timed(sweep)  # (warm the page cache and the bytecode)
    ones, sweeps = [], []
    for _ in range(args.rounds):
        ones.append(timed(one))
        sweeps.append(timed(sweep))
    print(f"program: {PROGRAM}")
    print(row("eval, one point", ones))
    print(row(f"eval, {args.points:,}-point sweep ({args.format})", sweeps))
    ratio = statistics.median(w for w, _ in sweeps) / statistics.median(w for w, _ in ones)
    cpu_ratio = statistics.median(c for _, c in sweeps) / statistics.median(c for _, c in ones)
    print(f"ratio (sweep / one point): wall {ratio:.2f}x, cpu {cpu_ratio:.2f}x "
          f"(goal: wall <= {GOAL:g}x)")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
