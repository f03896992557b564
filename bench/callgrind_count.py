"""Instructions a workload of bench/workloads/inprocess.py costs gradcli, counted by valgrind's
callgrind: deterministic, so two versions of the engine compare on a loaded machine, where
timings do not.

    python3 bench/callgrind_count.py [--workload chain] [--args 10000] [CHECKOUT ...]

The default counts instructions per op of the scalar chain (`chain`, 10,000 ops: x*w, x+b, sin,
x*c, forward and backward).  Any workload factory of inprocess.py works: `--workload jacobian
--args reverse`, `--workload hessian --args reverse`, `--workload second_derivative`.  Each
checkout runs the workload's `run()` once and three times, each under callgrind after a
warm-up run, with PYTHONHASHSEED=0, one BLAS thread and a cache directory of its own (warmed
by a first run, so that no counted run writes gradcli's caches); half the difference is the
count per run (divided by the chain's length for `chain`).  Instructions are not time: quote a
ratio of counts as such, and confirm a change that matters with bench/bench_suite.py on a
quiet machine."""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent

PROGRAM = """
import sys
sys.path.insert(0, sys.argv[1])
import inprocess
name, repeats, args = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
args = [int(a) if a.isdigit() else a for a in args]
run = getattr(inprocess, name)("gradcli", *args)
run()
for _ in range(repeats):
    run()
"""


def instructions(checkout, workload, args, repeats, cache):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(checkout),
               XDG_CACHE_HOME=cache)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", PROGRAM, str(BENCH / "workloads"), workload,
                          str(repeats), *args],
                         capture_output=True, text=True, env=env, check=True, cwd=cache).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_run(checkout, workload, args):
    with tempfile.TemporaryDirectory() as cache:
        instructions(checkout, workload, args, 0, cache)  # (writes the caches)
        three = instructions(checkout, workload, args, 3, cache)
        one = instructions(checkout, workload, args, 1, cache)
        return (three - one) // 2


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", default="chain")
    parser.add_argument("--args", default=None, help="the factory's arguments, comma-separated")
    parser.add_argument("checkouts", nargs="*", default=[str(BENCH.parent)])
    opts = parser.parse_args()
    args = (opts.args.split(",") if opts.args else []) if opts.args is not None else (
        ["10000"] if opts.workload == "chain" else [])
    for checkout in opts.checkouts:
        count = per_run(Path(checkout).resolve(), opts.workload, args)
        if opts.workload == "chain":
            print(f"{checkout}: {count // int(args[0]):,} instructions per op")
        else:
            print(f"{checkout}: {count:,} instructions per run")
