"""Instructions per op of the scalar chain (bench_suite's `chain`: x*w, x+b, sin, x*c; forward
and backward), counted by valgrind's callgrind: deterministic, so two versions of the engine
compare on a loaded machine, where timings do not.

    python3 bench/callgrind_chain.py [CHECKOUT ...]     # default: this checkout

Each checkout runs twice under callgrind (2,000 and 12,000 ops after a warm-up), with
PYTHONHASHSEED=0, one BLAS thread and a cache directory of its own (warmed by a first run, so
that no run writes gradcli's caches); the difference over 10,000 ops is the count per op.
Instructions are not time: quote a ratio of counts as such, and confirm a change that matters
with bench/bench_suite.py on a quiet machine."""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import sys
import gradcli as lib
def chain(n):
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
    return x.grad.item()
chain(400)
chain(int(sys.argv[1]))
"""


def instructions(checkout, n, cache):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(checkout),
               XDG_CACHE_HOME=cache)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", PROGRAM, str(n)],
                         capture_output=True, text=True, env=env, check=True, cwd=cache).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_op(checkout):
    with tempfile.TemporaryDirectory() as cache:
        instructions(checkout, 0, cache)  # (writes the caches)
        return (instructions(checkout, 12000, cache) - instructions(checkout, 2000, cache)) // 10000


if __name__ == "__main__":
    for checkout in sys.argv[1:] or [ROOT]:
        print(f"{checkout}: {per_op(Path(checkout).resolve()):,} instructions per op")
